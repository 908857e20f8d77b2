"""The Perfetto export in an offline trace viewer, for docs/perfetto-speedscope.png: a launch of 64 blocks on
2 simulated SMs exported with `gpuviz export --format perfetto`, opened in speedscope (npm's `speedscope`
package, a static web app) and drawn by headless Chromium (Debian's `chromium` package).

Usage: python tools/screenshots/perfetto_screenshot.py SPEEDSCOPE_RELEASE_DIR
(SPEEDSCOPE_RELEASE_DIR: node_modules/speedscope/dist/release after `npm install speedscope`)."""

from __future__ import annotations

import functools
import shutil
import subprocess
import sys
import tempfile
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "docs" / "perfetto-speedscope.png"
SCRIPT = """
import numpy as np
from numba import cuda

@cuda.jit
def add(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] + b[i]

a = np.arange(64 * 256, dtype=np.float32)
out = np.zeros_like(a)
add[64, 256](a, a, out)
"""


def export(folder: Path) -> Path:
    sys.path.insert(0, str(ROOT))
    from gpuviz.cli import main

    (folder / "waves.py").write_text(SCRIPT)
    assert main(["run", str(folder / "waves.py"), "--backend", "sim", "--sms", "2", "--out", str(folder)]) == 0
    assert main(["export", str(folder / "000-add.npz"), "--format", "perfetto", "--out", str(folder / "add.json")]) == 0
    return folder / "add.json"


def shoot(release: Path) -> None:
    folder = Path(tempfile.mkdtemp())
    shutil.copytree(release, folder / "viewer")
    shutil.copy(export(folder), folder / "viewer" / "add.json")
    handler = functools.partial(SimpleHTTPRequestHandler, directory=str(folder / "viewer"))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)  # speedscope fetches the profile: file:// cannot
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_port}"
    url = f"{base}/index.html#profileURL={base}/add.json&title=gpuviz export --format perfetto: add, 64 blocks, 2 SMs"
    try:
        subprocess.run([shutil.which("chromium") or "chromium", "--headless", "--no-sandbox", "--disable-gpu",
                        "--hide-scrollbars", "--window-size=1600,900", "--virtual-time-budget=15000",
                        f"--screenshot={OUT}", url], check=True, capture_output=True, timeout=120)  # fmt: skip
    finally:
        server.shutdown()
    print(f"wrote {OUT}")


if __name__ == "__main__":
    if len(sys.argv) != 2 or not (Path(sys.argv[1]) / "index.html").is_file():
        sys.exit("usage: perfetto_screenshot.py SPEEDSCOPE_RELEASE_DIR (node_modules/speedscope/dist/release)")
    shoot(Path(sys.argv[1]))
