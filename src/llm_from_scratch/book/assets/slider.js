// A native range input named by its label; the keys it answers itself stay away from the notebook.
const OWN_KEYS = new Set(["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown", "Home", "End", "PageUp", "PageDown"]);

function render({ model, el }) {
  const { root, id } = mount(el, model.get("css_class"));
  const label = document.createElement("label");
  label.htmlFor = id;
  const input = document.createElement("input");
  Object.assign(input, { type: "range", id, min: "0", step: "1" });
  const readout = document.createElement("output");
  readout.setAttribute("for", id);
  readout.setAttribute("aria-hidden", "true");  // the input's value text says it already
  root.append(label, input, readout);
  input.addEventListener("input", () => {
    model.set("index", Number(input.value));
    model.save_changes();
  });
  keepKeys(input, OWN_KEYS);
  return follow(model, ["index", "labels", "description", "lang"], () => {
    const labels = model.get("labels");
    const index = model.get("index");
    if (model.get("lang")) root.lang = model.get("lang");
    label.textContent = model.get("description");
    input.max = String(labels.length - 1);
    input.value = String(index);
    input.setAttribute("aria-valuetext", labels[index] ?? "");
    readout.textContent = labels[index] ?? "";
  });
}
export default { render };
