// The replay widget's browser side: it shows the pictures Python drew and sends back what the user did
// (a cursor move, a step, a click or a hover). No replay, colour or layout is computed here.

function el(tag, props = {}, children = []) {
  const node = Object.assign(document.createElement(tag), props);
  for (const child of children) node.append(child);
  return node;
}

function render({ model, el: root }) {
  const box = el("div", { className: "gpuviz-replay" });
  const title = el("div", { className: "title" });
  const slider = el("input", { type: "range", min: 0, step: 1, className: "cursor" });
  const position = el("span", { className: "position" });
  const unit = el("select", { className: "unit", title: "what one step is" });
  const button = (text, name, tip) => el("button", { textContent: text, className: name, title: tip });
  const first = button("|◀", "first", "to the start");
  const back = button("◀", "back", "one step back");
  const play = button("▶", "play", "play / pause");
  const forward = button("▶|", "forward", "one step forward");
  const barrier = button("next barrier", "next-barrier", "advance every thread to the next barrier");
  const caption = el("div", { className: "caption" });
  const selection = el("div", { className: "selection" });
  const hover = el("div", { className: "caption hover" });
  const shown = el("span", { className: "shown" });
  const dataMode = el("select", { className: "data-mode", title: "what the data view's colours say" });
  const dataArray = el("select", { className: "data-array", title: "the array the data view shows" });
  const panes = el("div", { className: "panes" });
  const source = el("pre", { className: "source" });
  box.append(title, el("div", { className: "bar" }, [first, back, play, forward, unit, barrier, slider, position]),
             caption, el("div", { className: "bar" }, ["views: ", shown, " data coloured by ", dataMode, " array ", dataArray]), panes, selection, hover);
  root.append(box);

  const images = {};
  let playing = null;
  const send = (content) => model.send(content);
  const step = (direction) => send({ kind: "step", unit: unit.value, direction });

  function where(view, event) {  // the click's pixel in the picture Python drew (the image may be scaled)
    const img = images[view], rect = img.getBoundingClientRect();
    return { x: (event.clientX - rect.left) * img.naturalWidth / rect.width,
             y: (event.clientY - rect.top) * img.naturalHeight / rect.height };
  }

  function buildViews() {
    shown.replaceChildren();
    for (const view of model.get("all_views")) {
      const check = el("input", { type: "checkbox", checked: model.get("views").includes(view), name: view });
      check.addEventListener("change", () => {
        const on = model.get("all_views").filter((v) => (v === view ? check.checked : model.get("views").includes(v)));
        model.set("views", on);
        model.save_changes();
      });
      shown.append(el("label", {}, [check, " " + view + " "]));
    }
  }

  const pictured = el("div", { className: "pictured" });  // the views' pictures; the source pane stays put
  panes.append(pictured, el("div", { className: "view" }, [el("b", { textContent: "source" }), source]));

  function drawViews() {
    const pictures = model.get("images");
    pictured.replaceChildren();
    for (const view of model.get("views")) {
      if (!(view in pictures)) continue;
      let img = images[view];
      if (!img) {
        img = images[view] = el("img", { alt: view, className: "view-" + view });
        img.addEventListener("click", (e) => send({ kind: "click", view, ...where(view, e) }));
        let last = 0;
        img.addEventListener("mousemove", (e) => {  // at most a few hovers a second: each is a round trip
          if (Date.now() - last > 150) { last = Date.now(); send({ kind: "hover", view, ...where(view, e) }); }
        });
      }
      img.src = pictures[view];
      pictured.append(el("div", { className: "view" }, [img]));
    }
  }

  function drawSource() {
    const here = model.get("line"), busy = model.get("lines_busy");
    source.replaceChildren();
    model.get("source").forEach((text, i) => {
      const n = i + 1, threads = busy[String(n)];
      const row = el("div", { className: n === here ? "here" : "", textContent: `${String(n).padStart(3)}  ${text}` });
      if (threads) row.append(el("span", { className: "busy", textContent: `   ← ${threads.toLocaleString()} threads` }));
      source.append(row);
    });
    const current = source.querySelector(".here");
    if (current) {  // scroll the source pane only, never the notebook's page under the student
      const above = current.offsetTop - source.offsetTop, below = above + current.offsetHeight;
      if (above < source.scrollTop || below > source.scrollTop + source.clientHeight) {
        source.scrollTop = above - source.clientHeight / 2;
      }
    }
  }

  function drawCursor() {
    const frame = model.get("frame"), frames = model.get("frames");
    slider.max = frames - 1;
    slider.value = frame;
    position.textContent = `${frame.toLocaleString()} / ${(frames - 1).toLocaleString()}`;
    caption.textContent = model.get("caption");
    selection.textContent = model.get("selection") ? "selected: " + model.get("selection") : "";
    title.textContent = model.get("title");
  }

  function choices(select, options, chosen) {  // a select's options from Python, the chosen one selected
    select.replaceChildren(...model.get(options).map((s) => el("option", { value: s, textContent: s })));
    select.value = model.get(chosen);
  }
  function drawDataChoices() {
    choices(dataMode, "data_modes", "data_mode");
    choices(dataArray, "arrays", "data_array");
  }
  for (const [select, name] of [[dataMode, "data_mode"], [dataArray, "data_array"]]) {
    select.addEventListener("change", () => { model.set(name, select.value); model.save_changes(); });
  }

  function drawSteps() {
    unit.replaceChildren(...model.get("steps").map((s) => el("option", { value: s, textContent: s })));
    barrier.disabled = !model.get("steps").includes("barrier");
  }

  function stop() { clearTimeout(playing); playing = null; play.textContent = "▶"; }
  function tick() {  // the next step is asked for only once the last one's pictures came back
    if (playing === null) return;
    if (model.get("frame") >= model.get("frames") - 1) { stop(); return; }
    step(1);
  }

  first.addEventListener("click", () => { stop(); model.set("frame", 0); model.save_changes(); });
  back.addEventListener("click", () => { stop(); step(-1); });
  forward.addEventListener("click", () => { stop(); step(1); });
  barrier.addEventListener("click", () => { stop(); send({ kind: "step", unit: "barrier", direction: 1 }); });
  play.addEventListener("click", () => {
    if (playing !== null) { stop(); return; }
    if (model.get("frame") >= model.get("frames") - 1) { model.set("frame", 0); model.save_changes(); }
    play.textContent = "⏸";
    playing = setTimeout(tick, 0);
  });
  slider.addEventListener("change", () => { stop(); model.set("frame", Number(slider.value)); model.save_changes(); });
  model.on("change:images", () => {
    drawViews();
    if (playing !== null) playing = setTimeout(tick, 120);
  });
  model.on("change:frame", drawCursor);
  model.on("change:caption", drawCursor);
  model.on("change:selection", drawCursor);
  model.on("change:line", drawSource);
  model.on("change:lines_busy", drawSource);
  model.on("change:source", drawSource);
  model.on("change:steps", drawSteps);
  model.on("change:views", buildViews);
  for (const name of ["data_modes", "data_mode", "arrays", "data_array"]) model.on("change:" + name, drawDataChoices);
  model.on("change:hover_text", () => { hover.textContent = model.get("hover_text"); });
  model.on("change:said", () => { hover.textContent = model.get("said"); });
  buildViews();
  drawDataChoices();
  drawSteps();
  drawCursor();
  drawSource();
  drawViews();
  return () => stop();
}

export default { render };
