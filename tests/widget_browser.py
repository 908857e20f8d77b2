"""The replay widget in a real headless Chromium, without Jupyter: a page loads the widget's own JavaScript
(gpuviz/widget/replay.js) with a small stand-in for anywidget's model that carries every change and message
to the Python widget over HTTP, as Jupyter's comm would; the browser is driven through the DevTools protocol
(tornado's websocket client), so clicks are real mouse events at real pixels.

Used by tests/test_widget_browser.py and tools/screenshots/notebook_widget.py."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import shutil
import subprocess
import tempfile
import threading
import urllib.request
from pathlib import Path

import tornado.httpserver
import tornado.ioloop
import tornado.netutil
import tornado.web
import tornado.websocket

WIDGET = Path(__file__).parent.parent / "gpuviz" / "widget"
PAGE = """<!doctype html><html><head><meta charset="utf-8"><style>body{margin:0;background:#111}</style>
<link rel="stylesheet" href="/replay.css"></head><body><div id="root"></div><script type="module">
import widget from "/replay.js";
let state = await (await fetch("/state")).json();
const handlers = {}, pending = {};
function arrive(next) {  // the Python side's state: every trait that changed fires its change event
  for (const [key, value] of Object.entries(next)) {
    if (JSON.stringify(value) === JSON.stringify(state[key])) continue;
    state[key] = value;
    for (const f of handlers["change:" + key] || []) f();
  }
  window.replies = (window.replies || 0) + 1;
}
async function post(path, body) {
  const reply = await fetch(path, { method: "POST", body: JSON.stringify(body) });
  arrive(await reply.json());
}
const model = {
  get: (key) => state[key],
  set: (key, value) => { state[key] = value; pending[key] = value; },
  save_changes: () => { const sent = { ...pending }; for (const k in pending) delete pending[k]; post("/save", sent); },
  send: (content) => post("/send", content),
  on: (name, f) => { (handlers[name] = handlers[name] || []).push(f); },
  off: () => {},
};
widget.render({ model, el: document.getElementById("root") });
window.ready = true;
</script></body></html>"""


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


class WidgetServer:
    """Serves the page and carries the browser's changes and messages to a Python widget."""

    def __init__(self, widget) -> None:
        self.widget = widget
        self.loop = None
        started = threading.Event()
        self.thread = threading.Thread(target=self._serve, args=(started,), daemon=True)
        self.thread.start()
        started.wait(10)

    def _state(self) -> str:
        keys = [k for k in self.widget.keys if not k.startswith("_")]
        return json.dumps(self.widget.get_state(keys))

    def _serve(self, started: threading.Event) -> None:
        asyncio.set_event_loop(asyncio.new_event_loop())
        server, lock = self, threading.Lock()

        class Page(tornado.web.RequestHandler):
            def get(self):
                self.set_header("Content-Type", "text/html")
                self.write(PAGE)

        class File(tornado.web.RequestHandler):
            def get(self, name):
                self.set_header("Content-Type", "text/javascript" if name.endswith(".js") else "text/css")
                self.write((WIDGET / name).read_text())

        class State(tornado.web.RequestHandler):
            def get(self):
                self.write(server._state())

        class Save(tornado.web.RequestHandler):
            def post(self):
                with lock:
                    server.widget.set_state(json.loads(self.request.body))
                    self.write(server._state())

        class Send(tornado.web.RequestHandler):
            def post(self):
                with lock:
                    server.widget._on_message(server.widget, json.loads(self.request.body), [])
                    self.write(server._state())

        app = tornado.web.Application([(r"/", Page), (r"/(replay\.(?:js|css))", File), (r"/state", State),
                                       (r"/save", Save), (r"/send", Send)])  # fmt: skip
        self.http = tornado.httpserver.HTTPServer(app)
        sockets = tornado.netutil.bind_sockets(0, "127.0.0.1")
        self.port = sockets[0].getsockname()[1]
        self.http.add_sockets(sockets)
        self.loop = tornado.ioloop.IOLoop.current()
        started.set()
        self.loop.start()

    def close(self) -> None:
        if self.loop is not None:
            self.loop.add_callback(self.loop.stop)
        self.thread.join(10)


class Browser:
    """Headless Chromium driven through the DevTools protocol."""

    def __init__(self, width: int = 1400, height: int = 900) -> None:
        self.profile = tempfile.mkdtemp(prefix="gpuviz-chromium-")
        self.process = subprocess.Popen(
            [chromium(), "--headless=new", "--no-sandbox", "--disable-gpu", "--remote-debugging-port=0",
             f"--user-data-dir={self.profile}", f"--window-size={width},{height}", "--hide-scrollbars",
             "about:blank"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)  # fmt: skip
        for line in self.process.stderr:  # "DevTools listening on ws://127.0.0.1:PORT/devtools/browser/..."
            if "DevTools listening on" in line:
                port = line.split("ws://")[1].split("/")[0]
                break
        else:
            raise RuntimeError("chromium did not start its DevTools endpoint")
        threading.Thread(target=self.process.stderr.read, daemon=True).start()  # never let the pipe fill
        pages = json.loads(urllib.request.urlopen(f"http://{port}/json/list", timeout=10).read())
        url = next(p["webSocketDebuggerUrl"] for p in pages if p["type"] == "page")
        self.loop = asyncio.new_event_loop()
        asyncio.set_event_loop(self.loop)  # tornado's client future belongs to the loop current when it is made

        async def connect():
            return await tornado.websocket.websocket_connect(url, max_message_size=1 << 28)

        self.socket = self.loop.run_until_complete(connect())
        self.calls = 0
        # the page gets the whole window: headless Chromium's window keeps some of it for itself otherwise
        self.call("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1, mobile=False)

    def call(self, method: str, **params) -> dict:
        async def ask():
            self.calls += 1
            await self.socket.write_message(json.dumps({"id": self.calls, "method": method, "params": params}))
            while True:
                reply = json.loads(await self.socket.read_message())
                if reply.get("id") == self.calls:
                    if "error" in reply:
                        raise RuntimeError(f"{method}: {reply['error']}")
                    return reply["result"]

        return self.loop.run_until_complete(asyncio.wait_for(ask(), 60))

    def evaluate(self, expression: str):
        result = self.call("Runtime.evaluate", expression=expression, awaitPromise=True, returnByValue=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression: str, seconds: float = 60) -> None:
        """Until a JavaScript expression is true (the page answers asynchronously)."""
        ok = self.evaluate(f"new Promise(done => {{ const t0 = Date.now(); (function poll() {{"
                           f" if ({expression}) done(true); else if (Date.now() - t0 > {seconds * 1000}) done(false);"
                           f" else setTimeout(poll, 25); }})(); }})")  # fmt: skip
        if not ok:
            raise TimeoutError(f"the page never reached: {expression}")

    def click(self, x: float, y: float) -> None:
        for kind in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)

    def click_selector(self, selector: str) -> None:
        box = self.evaluate(f"(() => {{ const r = document.querySelector({selector!r}).getBoundingClientRect();"
                            f" return [r.left + r.width / 2, r.top + r.height / 2]; }})()")  # fmt: skip
        self.click(*box)

    def screenshot(self, path: Path, most: tuple[int, int] | None = None) -> None:
        """The widget's picture; at most `most` (width, height) pixels of it (a screen's worth), from its top left."""
        height = self.evaluate("document.querySelector('.gpuviz-replay').getBoundingClientRect().bottom + 8")
        width = self.evaluate("document.querySelector('.gpuviz-replay').getBoundingClientRect().right + 8")
        if most is not None:
            width, height = min(width, most[0]), min(height, most[1])
        shot = self.call("Page.captureScreenshot", format="png",
                         clip={"x": 0, "y": 0, "width": width, "height": height, "scale": 1})  # fmt: skip
        Path(path).write_bytes(base64.b64decode(shot["data"]))

    def close(self) -> None:
        self.socket.close()
        self.loop.close()
        self.process.terminate()
        self.process.wait(10)
        shutil.rmtree(self.profile, ignore_errors=True)


def open_widget(widget, browser: Browser) -> WidgetServer:
    """The widget's page, loaded and drawn."""
    server = WidgetServer(widget)
    browser.call("Page.navigate", url=f"http://127.0.0.1:{server.port}/")
    browser.wait_for("window.ready && document.querySelector('.view-grid') && document.querySelector('.view-grid')"
                     ".complete")  # fmt: skip
    return server


def click_on(browser: Browser, widget, view: str, wanted) -> None:
    """Click a view's picture in the middle of what picks `wanted` (("thread", 70)) in the picture Python drew:
    the browser rounds mouse positions to whole pixels, so an edge pixel could miss."""
    image = widget.model.picture(view)
    width, height = widget.model.box
    hits = [(x, y) for y in range(height) for x in range(width) if image.pick(x, y) == wanted]
    assert hits, f"nothing in the {view} picture picks {wanted}"
    x, y = sorted(hits)[len(hits) // 2]
    left, top = browser.evaluate(f"(() => {{ const r = document.querySelector('img.view-{view}')"
                                 f".getBoundingClientRect(); return [r.left, r.top]; }})()")  # fmt: skip
    browser.click(round(left + x + 0.5), round(top + y + 0.5))


def in_ci() -> bool:
    return os.environ.get("CI") == "true"
