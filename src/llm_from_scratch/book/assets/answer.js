// A labelled text box, how sure the learner is, and the check button. Enter (in the box or on a level) and the
// button send the text the box holds then and the level chosen, so the check judges exactly what the learner
// sees: ipywidgets sends a box's value only once the kernel has taken the previous one, so a click right after
// typing could reach the kernel before the last value did. The levels are native radio buttons in a fieldset
// named by its legend: Tab reaches them, arrows or the keys 1 to 3 choose, and choosing none is allowed.
function render({ model, el }) {
  const { root, id } = mount(el, model.get("css_class"));
  const label = document.createElement("label");
  label.htmlFor = id;
  const input = Object.assign(document.createElement("input"), { type: "text", id });
  const check = Object.assign(document.createElement("button"), { type: "button" });
  check.className = "jupyter-widgets jupyter-button widget-button";
  const sure = document.createElement("fieldset");
  const legend = document.createElement("legend");
  sure.append(legend);
  const levels = [1, 2, 3].map((level) => {
    const radio = Object.assign(document.createElement("input"), { type: "radio", name: `${id}-sure`,
                                                                   value: String(level), id: `${id}-sure-${level}` });
    const named = Object.assign(document.createElement("label"), { htmlFor: radio.id });
    sure.append(radio, named);
    return { radio, named };
  });
  root.append(label, input, sure, check);
  const chosen = () => Number(levels.find(({ radio }) => radio.checked)?.radio.value ?? 0);
  const reveal = revealVerdict(root);
  const submit = () => {
    reveal();
    model.send({ event: "submit", value: input.value, sure: chosen() });
  };
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
  keepKeys(sure, new Set(["ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight", " ", "1", "2", "3"]));
  sure.addEventListener("keydown", (event) => {
    const level = levels[Number(event.key) - 1];
    if (level) {
      level.radio.checked = true;
      level.radio.focus();
      level.radio.dispatchEvent(new Event("change", { bubbles: true }));
    } else if (event.key === "Enter") {
      event.preventDefault();
      event.stopPropagation();
      submit();
    }
  });
  sure.addEventListener("change", () => {
    model.set("sure", chosen());
    model.save_changes();
  });
  check.addEventListener("click", submit);
  return follow(model, ["value", "placeholder", "description", "check_label", "width", "lang", "sure",
                        "sure_legend", "sure_labels"], () => {
    if (model.get("lang")) root.lang = model.get("lang");
    label.textContent = model.get("description");
    input.placeholder = model.get("placeholder");
    input.style.width = model.get("width");
    check.textContent = model.get("check_label");
    if (input.value !== model.get("value")) input.value = model.get("value");
    legend.textContent = model.get("sure_legend");
    levels.forEach(({ radio, named }, i) => {
      named.textContent = model.get("sure_labels")[i] ?? "";
      radio.checked = model.get("sure") === i + 1;
    });
  });
}
// Once a check is sent, bring the verdict the kernel writes into the form into view: below the box it may fall
// past the window's edge, or inside an output that the front end put in a scrolling box of its own.
const VERDICT_WAIT = 10000;  // ms: a verdict that has not come by then is not waited for
function revealVerdict(root) {
  let watching = null;
  const stop = () => { watching?.disconnect(); watching = null; };
  return () => {
    const form = root.closest(".llm-live") ?? root.parentElement;
    if (!form) return;
    stop();
    watching = new MutationObserver((records) => {
      for (const { target } of records) {
        const node = target.nodeType === Node.ELEMENT_NODE ? target : target.parentElement;
        const verdict = node?.closest("[role='status']") ?? node?.querySelector("[role='status']");
        if (verdict) {
          stop();
          verdict.scrollIntoView({ block: "nearest" });
          return;
        }
      }
    });
    watching.observe(form, { childList: true, subtree: true, characterData: true });
    const mine = watching;
    setTimeout(() => { if (watching === mine) stop(); }, VERDICT_WAIT);
  };
}
export default { render };
