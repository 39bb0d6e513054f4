// A live widget's invisible part: it marks the widget with the learner's language (lang), so a screen reader
// reads a Russian label as Russian in JupyterLab's English page, and hides the stored snapshot of its cell, so
// a reader sees the snapshot (no kernel) or the live widget, never both.
function render({ model, el }) {
  el.style.display = "none";
  let tries = 0;
  const mark = () => {
    const live = el.closest(`.${model.get("live_class")}`);
    if (!live) { if (tries++ < 100) requestAnimationFrame(mark); return; }
    live.setAttribute("lang", model.get("lang"));
    for (const stored of live.closest(".jp-Cell")?.querySelectorAll(`.${model.get("snapshot_class")}`) ?? []) {
      const output = stored.closest(".jp-OutputArea-child");
      if (output) output.style.display = "none";  // (the hidden attribute loses to its display: flex)
    }
  };
  mark();
}
export default { render };
