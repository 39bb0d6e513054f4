// A labelled text box and its check button. Enter and the button send the text the box holds then, so the
// check judges exactly what the learner sees: ipywidgets sends a box's value only once the kernel has taken
// the previous one, so a click right after typing could reach the kernel before the last value did.
function render({ model, el }) {
  const { root, id } = mount(el, model.get("css_class"));
  const label = document.createElement("label");
  label.htmlFor = id;
  const input = Object.assign(document.createElement("input"), { type: "text", id });
  const check = Object.assign(document.createElement("button"), { type: "button" });
  check.className = "jupyter-widgets jupyter-button widget-button";
  root.append(label, input, check);
  const submit = () => model.send({ event: "submit", value: input.value });
  input.addEventListener("input", () => {
    model.set("value", input.value);
    model.save_changes();
  });
  input.addEventListener("keydown", (event) => {
    if (event.key !== "Enter" || event.shiftKey) return;
    event.preventDefault();
    event.stopPropagation();
    submit();
  });
  check.addEventListener("click", submit);
  return follow(model, ["value", "placeholder", "description", "check_label", "width", "lang"], () => {
    if (model.get("lang")) root.lang = model.get("lang");
    label.textContent = model.get("description");
    input.placeholder = model.get("placeholder");
    input.style.width = model.get("width");
    check.textContent = model.get("check_label");
    if (input.value !== model.get("value")) input.value = model.get("value");
  });
}
export default { render };
