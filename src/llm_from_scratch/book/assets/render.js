// What every widget of the book does when it is drawn; book/widgets.py (esm) puts it before a widget's module.

let made = 0;

// A root element of class `className` appended to `el`, and an id no other element of the page has.
function mount(el, className) {
  const root = document.createElement("div");
  root.className = className;
  el.append(root);
  return { root, id: `${className}-${Date.now().toString(36)}-${made++}` };
}

// Call `draw` now and whenever one of the traits `names` changes; returns what undoes that.
function follow(model, names, draw) {
  for (const name of names) model.on(`change:${name}`, draw);
  draw();
  return () => {
    for (const name of names) model.off(`change:${name}`, draw);
  };
}

// Keep `keys` from the notebook's own commands (arrows select cells there). JupyterLab reads keys on their way up,
// so stopping them here is enough; Notebook 7 reads them on their way down, before this element, so the element
// also carries Lumino's mark that no application shortcut applies inside it (only inside: the page keeps its own).
function keepKeys(element, keys) {
  element.setAttribute("data-lm-suppress-shortcuts", "true");
  element.addEventListener("keydown", (event) => {
    if (keys.has(event.key)) event.stopPropagation();
  });
}
