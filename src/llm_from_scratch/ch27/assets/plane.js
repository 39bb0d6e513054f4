// The vector plane. The figure is drawn by the kernel and redrawn whole; a pointer takes a tip in it. The
// keyboard and screen readers move the same vectors with native range inputs below it, x and y for each
// vector, which are never redrawn (the focus stays on them) and keep the keys they answer from the notebook.
const STEPS = { ArrowRight: 1, ArrowUp: 1, ArrowLeft: -1, ArrowDown: -1 };
const OWN_KEYS = new Set([...Object.keys(STEPS), "Home", "End", "PageUp", "PageDown"]);
const round = (x, step) => Number((Math.round(x / step) * step).toFixed(2));
const named = (name) => name[0] + "₀₁"[Number(name[1])];

function render({ model, el }) {
  const { limit, unit, size, top, planes, names, step, fine } = model.get("geometry");
  const clamp = (x) => Math.max(-limit, Math.min(limit, x));
  const { root, id } = mount(el, model.get("css_class"));
  const figure = document.createElement("div");
  figure.setAttribute("role", "img");
  const keys = document.createElement("p");
  keys.id = `${id}-keys`;
  const controls = document.createElement("div");
  controls.className = "plane-controls";
  const live = document.createElement("p");
  live.setAttribute("aria-live", "polite");
  const reset = document.createElement("button");
  reset.type = "button";
  const worked = document.createElement("button");  // only when the plane opened on vectors of the cells' own
  worked.type = "button";
  root.append(figure, keys, controls, live, reset, worked);
  const inputs = {};  // each vector's x and y
  for (const name of names) {
    const group = document.createElement("fieldset");
    group.append(document.createElement("legend"));  // the vector's name and where it stands
    inputs[name] = ["x", "y"].map((axis) => {
      const label = document.createElement("label");
      const input = document.createElement("input");
      Object.assign(input, { type: "range", min: String(-limit), max: String(limit), step: String(fine) });
      input.dataset.name = name;
      input.dataset.axis = axis;
      input.setAttribute("aria-describedby", keys.id);
      label.append(axis, " ", input);
      group.append(label);
      return input;
    });
    controls.append(group);
  }
  let focused = null, pending = false, next = null, dragging = null;

  const send = (name, x, y) => {
    const move = { move: name, x: clamp(x), y: clamp(y) };
    const tip = figure.querySelector(`[data-name="${name}"]`);
    if (!pending && tip && Number(tip.dataset.x) === move.x && Number(tip.dataset.y) === move.y) return;
    if (pending) { next = move; return; }  // only the latest position goes while a reply is awaited
    pending = true;
    model.send(move);
  };
  const place = () => {  // the inputs follow the kernel, but not while a move of theirs is on its way
    if (pending || next) return;
    const positions = model.get("positions");
    for (const name of names) {
      const at = `${named(name)} = (${positions[name].map((c) => Number(c.toFixed(2))).join(", ")})`;
      inputs[name][0].closest("fieldset").querySelector("legend").textContent = at;
      inputs[name].forEach((input, axis) => {
        input.value = String(positions[name][axis]);
        input.setAttribute("aria-valuetext", at);
      });
    }
  };
  model.on("msg:custom", (message) => {  // the kernel has drawn a move: send the one that waited, if any
    if (!message || !message.done) return;
    pending = false;
    if (next) { const move = next; next = null; send(move.move, move.x, move.y); }
    else place();
  });
  const words = () => {
    root.lang = model.get("lang");
    figure.setAttribute("aria-label", model.get("description"));
    keys.textContent = model.get("keys_label");
    live.textContent = model.get("announce");
    reset.textContent = model.get("reset_label");
    worked.textContent = model.get("worked_label");
    worked.hidden = !model.get("worked_label");
  };
  const mark = () => {  // the vector whose input has the focus is ringed in the figure
    figure.querySelector(".plane-tip.chosen")?.classList.remove("chosen");
    if (focused) figure.querySelector(`.plane-tip[data-name="${focused}"]`)?.classList.add("chosen");
  };
  const draw = () => { figure.innerHTML = model.get("svg"); mark(); };
  const where = (event, tip) => {
    const svg = figure.querySelector("svg");
    const point = new DOMPoint(event.clientX, event.clientY).matrixTransform(svg.getScreenCTM().inverse());
    const left = planes[tip.dataset.plane];
    let x = (point.x - left - size / 2) / unit, y = (top + size / 2 - point.y) / unit;
    return event.shiftKey ? [x, y] : [round(x, step), round(y, step)];
  };
  figure.addEventListener("pointerdown", (event) => {
    const tip = event.target.closest(".plane-tip");
    if (!tip) return;
    dragging = tip.dataset.name;
    figure.setPointerCapture(event.pointerId);
    model.send({ select: dragging });
    event.preventDefault();
  });
  figure.addEventListener("pointermove", (event) => {
    if (!dragging) return;
    const [x, y] = where(event, figure.querySelector(`[data-name="${dragging}"]`));
    send(dragging, x, y);
  });
  const stop = () => { dragging = null; };
  figure.addEventListener("pointerup", stop);
  figure.addEventListener("pointercancel", stop);
  const moved = (name) => {
    const [x, y] = inputs[name].map((input) => Number(input.value));
    send(name, x, y);
  };
  controls.addEventListener("focusin", (event) => {
    focused = event.target.dataset.name ?? null;
    if (focused) model.send({ select: focused });
    mark();
  });
  controls.addEventListener("focusout", () => { focused = null; mark(); });
  keepKeys(controls, OWN_KEYS);  // no key the inputs answer reaches the notebook's own commands
  controls.addEventListener("keydown", (event) => {
    const input = event.target;
    if (!input.dataset.name || !(event.key in STEPS)) return;  // Home, End, Page Up and Down: the browser's own
    event.preventDefault();
    input.value = String(clamp(round(Number(input.value) + STEPS[event.key] * (event.shiftKey ? fine : step), fine)));
    moved(input.dataset.name);
  });
  controls.addEventListener("input", (event) => { if (event.target.dataset.name) moved(event.target.dataset.name); });
  reset.addEventListener("click", () => model.send({ reset: true }));
  worked.addEventListener("click", () => model.send({ reset: "worked" }));
  const unfollow = [follow(model, ["announce", "lang", "description", "keys_label", "reset_label", "worked_label"], words),
                    follow(model, ["svg"], draw), follow(model, ["positions"], place)];
  return () => unfollow.forEach((undo) => undo());
}
export default { render };
