// Once the form reveals the answer, open every folded answer of the first cell after the form's cell that has
// one (a collapsed output expands when its placeholder is clicked), looking no further than the next form.
function render({ model, el }) {
  el.style.display = "none";
  model.on("change:opened", () => {
    for (let cell = el.closest(".jp-Cell")?.nextElementSibling; cell; cell = cell.nextElementSibling) {
      if (cell.querySelector(`.${model.get("exercise_class")}`)) return;
      const folded = cell.querySelectorAll(`.jp-OutputArea details.${model.get("folded_class")}:not([open])`);
      if (!folded.length) continue;
      cell.querySelector(".jp-OutputPlaceholder")?.click();
      folded.forEach((details) => { details.open = true; });
      return;
    }
  });
}
export default { render };
