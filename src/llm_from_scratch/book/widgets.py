"""Widget bases every chapter uses: live widgets with a stored snapshot, explorers, exercise forms.

An explorer separates its numbers (``state_for``) from their rendering
(``render``), so tests check the numbers without a browser. A widget cell first
shows a static snapshot of the default state (guarded by nbval, readable without
a kernel), then the live widget, whose plain-text form only names it.

Accessibility: a live widget is marked with the learner's language and shows a
visible focus ring on every control; a slider is a native ``<input type="range">``
named by its ``<label>`` (``Slider``), which the keyboard moves without
JupyterLab taking the keys; figures carry a title and a description.
"""

from __future__ import annotations

import asyncio
from html import escape

import anywidget
import ipywidgets as w
import traitlets
from IPython.display import HTML, display

from .answers import AnswerFormatError, read_choice
from .display import show
from .exercises import OPTIONS, ExerciseBook
from .figures import Figure
from .text import language, text

LABEL_STYLE = {"description_width": "initial"}
CHOICE_CLASS = "llm-choice"
# The options' list box wraps each option's text and grows to fit them all (field-sizing: Chromium; elsewhere
# it scrolls), so options never overlap as fixed-height radio labels do. ipywidgets writes a list box's
# labels with no-break spaces, so a zero-width space after each space lets a long option wrap.
WRAP_AFTER_SPACE = " \u200b"
SUBMIT_SETTLE_S = 0.25  # how long Enter's check waits for the box's last value (see ExerciseForm)
CHOICE_CSS = (f"<style>.{CHOICE_CLASS} select{{height:auto;field-sizing:content;padding:2px}}"
              f".{CHOICE_CLASS} option{{white-space:normal;line-height:1.35;padding:3px 4px}}</style>")


LIVE_CLASS = "llm-live"
# ipywidgets draws a text box's focus as a pale border only (its CSS sets outline: none !important), and a
# button's as a 1 px pale outline: every control of a live widget gets a 2 px ring of 3:1 or more against white
FOCUS_RING = "outline:2px solid #1a56db !important;outline-offset:2px"  # 6.4:1 against white
FOCUS_CSS = (f".{LIVE_CLASS}.{LIVE_CLASS} :is(input, select, textarea, button):focus-visible,"
             f".{LIVE_CLASS}.{LIVE_CLASS} :is(input, select, textarea):focus{{{FOCUS_RING}}}")
# ipywidgets gives no way to set an element's attributes: this invisible part of a live widget marks the
# widget's element with the learner's language (lang), so a screen reader reads a Russian label as Russian
# in JupyterLab's English page, and brings the focus ring's CSS
MARK_ESM = f"""
function render({{ model, el }}) {{
  el.style.display = "none";
  let tries = 0;
  const mark = () => {{
    const live = el.closest(".{LIVE_CLASS}");
    if (live) live.setAttribute("lang", model.get("lang"));
    else if (tries++ < 100) requestAnimationFrame(mark);
  }};
  mark();
}}
export default {{ render }};
"""


class _LiveMark(anywidget.AnyWidget):
    _esm = MARK_ESM
    _css = FOCUS_CSS
    lang = traitlets.Unicode("").tag(sync=True)


EXERCISE_CLASS = "llm-exercise"
# An exercise's answer sits folded in a cell below its form (show_folded: a closed <details>, in a cell whose
# stored output is collapsed too): once the form reveals the answer, it opens the first folded answer after the
# form's cell (a collapsed output expands when its placeholder is clicked), looking no further than the next
# exercise's form.
UNFOLD_ESM = f"""
function render({{ model, el }}) {{
  el.style.display = "none";
  model.on("change:opened", () => {{
    for (let cell = el.closest(".jp-Cell")?.nextElementSibling; cell; cell = cell.nextElementSibling) {{
      if (cell.querySelector(".{EXERCISE_CLASS}")) return;
      const details = cell.querySelector(".jp-OutputArea details:not([open])");
      if (!details) continue;
      cell.querySelector(".jp-OutputPlaceholder")?.click();
      details.open = true;
      return;
    }}
  }});
}}
export default {{ render }};
"""


class _Unfold(anywidget.AnyWidget):
    _esm = UNFOLD_ESM
    opened = traitlets.Int(0).tag(sync=True)


class LiveWidget(w.VBox):
    """A VBox whose plain-text form says what it is, so stored notebooks stay deterministic; in the browser
    it is marked with the learner's language and its controls show their focus."""

    def __init__(self, children, description: str) -> None:
        super().__init__([*children, _LiveMark(lang=language())])
        self.add_class(LIVE_CLASS)
        self._description = description

    def __repr__(self) -> str:
        return self._description


def lang_div(html: str) -> str:
    """HTML marked with the learner's language."""
    return f'<div lang="{language()}">{html}</div>'


def figure_html(figure: Figure) -> str:
    """A live figure: the SVG with its title and description, named as one image."""
    return f'<div role="img" aria-label="{escape(figure.alt)}">{figure.described_svg()}</div>'


SLIDER_CLASS = "llm-slider"
# Keys the range input answers itself; JupyterLab's notebook reads keys on the bubbling path (arrows select
# cells in command mode), so the input keeps these to itself.
SLIDER_ESM = f"""
const OWN_KEYS = new Set(["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown", "Home", "End", "PageUp", "PageDown"]);
let made = 0;

function render({{ model, el }}) {{
  const id = `{SLIDER_CLASS}-${{Date.now().toString(36)}}-${{made++}}`;
  const root = document.createElement("div");
  root.className = "{SLIDER_CLASS}";
  const label = document.createElement("label");
  label.htmlFor = id;
  const input = document.createElement("input");
  Object.assign(input, {{ type: "range", id, min: "0", step: "1" }});
  const readout = document.createElement("output");
  readout.setAttribute("for", id);
  readout.setAttribute("aria-hidden", "true");  // the input's value text says it already
  root.append(label, input, readout);
  el.append(root);
  const draw = () => {{
    const labels = model.get("labels");
    const index = model.get("index");
    if (model.get("lang")) root.lang = model.get("lang");
    label.textContent = model.get("description");
    input.max = String(labels.length - 1);
    input.value = String(index);
    input.setAttribute("aria-valuetext", labels[index] ?? "");
    readout.textContent = labels[index] ?? "";
  }};
  input.addEventListener("input", () => {{
    model.set("index", Number(input.value));
    model.save_changes();
  }});
  input.addEventListener("keydown", (event) => {{
    if (OWN_KEYS.has(event.key)) event.stopPropagation();
  }});
  for (const name of ["index", "labels", "description", "lang"]) model.on(`change:${{name}}`, draw);
  draw();
  return () => {{
    for (const name of ["index", "labels", "description", "lang"]) model.off(`change:${{name}}`, draw);
  }};
}}
export default {{ render }};
"""
SLIDER_CSS = (f".{SLIDER_CLASS}{{display:flex;align-items:center;gap:10px;margin:2px 4px;"
              "font-size:var(--jp-widgets-font-size,13px);color:var(--jp-widgets-label-color,#000)}"
              f".{SLIDER_CLASS} label{{white-space:nowrap}}"
              f".{SLIDER_CLASS} input{{width:20em;margin:0;accent-color:#1a56db}}"
              f".{SLIDER_CLASS} input:focus-visible{{{FOCUS_RING}}}"
              f".{SLIDER_CLASS} output{{font-family:var(--jp-code-font-family,monospace);white-space:nowrap;"
              "min-width:4em}")


class Slider(anywidget.AnyWidget):
    """A slider over a list of options, with the API of ipywidgets' SelectionSlider (``options``, ``value``,
    ``label``, ``index``), drawn as a native ``<input type="range">`` named by its ``<label>``.

    ipywidgets' sliders are noUiSlider handles: a div with role="slider" and no accessible name
    (ipywidgets passes noUiSlider no ARIA options). The native range input has its name from the label,
    its value text from the option's label (aria-valuetext), and the browser's keys: arrows, Home, End,
    Page Up and Page Down. Options are (label, value) pairs or values (labelled by ``str``).
    """

    _esm = SLIDER_ESM
    _css = SLIDER_CSS
    index = traitlets.Int(0).tag(sync=True)
    labels = traitlets.List(traitlets.Unicode()).tag(sync=True)
    description = traitlets.Unicode("").tag(sync=True)
    lang = traitlets.Unicode("").tag(sync=True)
    value = traitlets.Any()

    def __init__(self, options, value, description: str = "", **kwargs) -> None:
        self.options = tuple(o if isinstance(o, tuple) else (str(o), o) for o in options)
        super().__init__(labels=[label for label, _ in self.options], index=self._index_of(value),
                         description=description, lang=language(), **kwargs)
        self.value = value

    def _index_of(self, value) -> int:
        for i, (_, option) in enumerate(self.options):
            if option == value:
                return i
        raise traitlets.TraitError(f"{value!r} is not one of the slider's options")

    @property
    def label(self) -> str:
        return self.options[self.index][0]

    @traitlets.validate("value")
    def _valid_value(self, proposal):
        self._index_of(proposal["value"])
        return proposal["value"]

    @traitlets.observe("value")
    def _value_changed(self, change) -> None:
        self.index = self._index_of(change["new"])

    @traitlets.observe("index")
    def _index_changed(self, change) -> None:
        self.value = self.options[change["new"]][1]


def pre(lines: str) -> str:
    """Monospaced lines that wrap only between words: JupyterLab breaks an output's pre anywhere
    (word-break: break-all), which split a number of the d_k explorer across two lines."""
    return (f'<pre style="font-family:monospace;margin:4px 0;white-space:pre-wrap;word-break:normal;'
            f'overflow-wrap:break-word">{escape(lines)}</pre>')


def snapshot(parts: list[Figure | str]) -> None:
    """Show a default state statically: figures with their text tables, then text."""
    display(HTML(lang_div(f"<p><em>{escape(text('widget.snapshot'))}</em></p>")))
    for part in parts:
        if isinstance(part, Figure):
            show(part)
        else:
            print(part)


class Explorer:
    """A slider-driven view: ``state_for`` computes the numbers, ``render`` draws them. Every position of the
    slider is drawn when the explorer is made (``draw_every_position``), so a step only swaps in what is drawn
    and the browser shows it at once; a figure takes tens of milliseconds to draw."""

    slider: Slider
    figure: w.HTML
    numbers: w.HTML

    def draw_every_position(self):
        """Draw each of the slider's values, then follow the slider; the state at its current value."""
        self.drawn = {}
        for _, value in self.slider.options:
            figure, numbers = self.render(self.state_for(value))
            self.drawn[value] = (figure_html(figure), pre(numbers))
        self.slider.observe(lambda change: self.update(change["new"]), names="value")
        return self.update(self.slider.value)

    def update(self, value):
        self.state = self.state_for(value)
        self.figure.value, self.numbers.value = self.drawn[value]
        return self.state


class ExerciseForm:
    """An answer box (Enter checks), a check button, feedback, and hint and reveal buttons enabled after an attempt;
    an exercise with variants adds «Новый пример», which puts the next variant's inputs above the box and judges the
    next answers on it.

    A choice adds the list of its options: a click there writes the option's letter in
    the box, and a letter typed in the box selects the option. The keyboard never
    enters the list: in JupyterLab a focused list or radio button loses its keys to the
    notebook (arrows move to another cell, "a" and "b" insert cells: ipywidgets issue
    3912), while the box keeps them. So Tab reaches the box, a letter chooses, Enter
    checks. Feedback always belongs to the answer on screen: changing it clears it.

    The form holds the exercise's one status: it opens with what the store says of earlier attempts, and shows
    every answer judged later, in the form or in a code cell. «Показать ответ» also opens the folded answer below.
    An exercise of kind "state" has no box: its check reads ``source`` (the vector plane) at the click.
    """

    def __init__(self, book: ExerciseBook, exercise_id: str, variant: int = 0, source: object = None) -> None:
        self.book = book
        self.exercise = book[exercise_id]
        self.variant = variant
        self.source = source  # an exercise of kind "state": what its answer is read from when checked
        options = book.options(exercise_id)
        self.choices = None
        if self.exercise.kind == "state":
            self.answer = None
        elif options:
            # named by its tooltip (ipywidgets writes it as the list's title): it has no visible label
            self.choices = w.Select(options=[(f"{k}) {v}".replace(" ", WRAP_AFTER_SPACE), k) for k, v in options],
                                    value=None, rows=len(options), tabbable=False, layout=w.Layout(width="auto"),
                                    tooltip=text("widget.exercise.options", title=book.title(exercise_id)))
            self.choices.add_class(CHOICE_CLASS)
            self.choices.observe(lambda change: setattr(self.answer, "value", change["new"] or ""), names="value")
            self.answer = w.Text(placeholder=text("widget.exercise.letters", letters=", ".join(OPTIONS[:-1]),
                                                  last=OPTIONS[-1]),
                                 description=text("widget.exercise.choose"), style=LABEL_STYLE,
                                 layout=w.Layout(width="16em"))
        else:
            self.answer = w.Text(placeholder=book.form(exercise_id, variant),
                                 description=text("widget.exercise.answer"), style=LABEL_STYLE,
                                 layout=w.Layout(width="36em"))
        if self.answer is not None:
            self.answer.on_msg(self._on_answer_message)
            self.answer.observe(self._answer_changed, names="value")
        self.check_button = w.Button(description=text("widget.exercise.check"))
        self.hint_button = w.Button(description=text("widget.exercise.hint"))
        self.reveal_button = w.Button(description=text("widget.exercise.reveal"))
        self.new_button = w.Button(description=text("widget.exercise.new_example")) if self.exercise.varies else None
        self.given = w.HTML()  # a fresh variant's task (the static part above shows the form's first one)
        self._unlock()
        self.feedback = w.HTML()
        self.hint_text = w.HTML()
        self.solution = w.HTML()
        self.check_button.on_click(lambda _: self.submit())
        self.hint_button.on_click(lambda _: self.show_hint())
        self.reveal_button.on_click(lambda _: self.show_solution())
        if self.new_button:
            self.new_button.on_click(lambda _: self.new_example())
        self.unfold = _Unfold()
        status = book.status(exercise_id, variant)
        if status:  # answered before, in an earlier kernel: the form says so
            self.feedback.value = lang_div(f'<div role="status">{escape(status)}</div>')
        book.watch(exercise_id, self._told)

    def _told(self, feedback, variant: int) -> None:
        """An answer to this exercise was judged, here or in a code cell: the form shows its one status."""
        if variant == self.variant:
            self.feedback.value = lang_div(feedback._repr_html_())
            self._unlock()

    def _unlock(self) -> None:
        self.reveal_button.disabled = self.hint_button.disabled = not self.book.attempted(self.exercise.id,
                                                                                          self.variant)

    def _on_answer_message(self, _widget, content, _buffers) -> None:
        """The box sends {"event": "submit"} when Enter is pressed.

        ipywidgets sends a box's new value only once the kernel has answered the previous one, while the
        submit goes at once: after fast typing (or in a busy kernel) the last value arrives just after the
        submit, and the check would judge the value before it, then lose its feedback to the change. In a
        kernel the check therefore waits SUBMIT_SETTLE_S for that value; without an event loop it runs now.
        """
        if isinstance(content, dict) and content.get("event") == "submit":
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:
                self.submit()
            else:
                loop.call_later(SUBMIT_SETTLE_S, self.submit)

    def _answer_changed(self, change) -> None:
        self.feedback.value = ""
        if self.choices is not None:
            try:
                self.choices.value = read_choice(change["new"], OPTIONS)
            except AnswerFormatError:
                self.choices.value = None

    def submit(self):
        answer = self.source if self.answer is None else self.answer.value
        feedback = self.book.check(self.exercise.id, answer, self.variant)
        self.feedback.value = lang_div(feedback._repr_html_())
        self._unlock()
        return feedback

    def show_hint(self):
        given = self.book.hint(self.exercise.id, self.variant)
        self.hint_text.value = lang_div(given._repr_html_())
        return given

    def show_solution(self):
        """The answer with its explanation, and the folded output below the form opened (after an attempt)."""
        solution = self.book.reveal(self.exercise.id, self.variant)
        self.solution.value = lang_div(solution._repr_html_())
        if solution.shown:
            self.unfold.opened += 1
        return solution

    def new_example(self) -> int:
        """Move to the next variant: its task above the box, an empty box, and no feedback of the last one."""
        self.variant = max(self.book.next_variant(self.exercise.id), self.variant + 1)
        self.given.value = lang_div(f"<p><strong>{escape(text('widget.exercise.variant', n=self.variant))}</strong> "
                                    f"{escape(self.book.prompt(self.exercise.id, self.variant))}</p>")
        self.answer.placeholder = self.book.form(self.exercise.id, self.variant)
        self.answer.value = ""
        self.feedback.value = self.hint_text.value = self.solution.value = ""
        self._unlock()
        return self.variant

    def static_html(self) -> str:
        exercise_id = self.exercise.id
        options = "".join(f"<li><strong>{k})</strong> {escape(v)}</li>" for k, v in self.book.options(exercise_id))
        written = self.book.form(exercise_id, self.variant)
        form = (f'<ul style="list-style:none">{options}</ul>' if options else
                f"<p><em>{escape(text('widget.exercise.form'))}: {escape(written)}</em></p>" if written else "")
        which = f" {text('widget.exercise.variant', n=self.variant)}" if self.variant else ""
        return (f'<div lang="{language()}" style="border:2px solid #000;padding:6px 10px">'
                f"<p><strong>{escape(text('widget.exercise.title', title=self.book.title(exercise_id)) + which)}"
                f"</strong> {escape(self.book.prompt(exercise_id, self.variant))}</p>{form}</div>")

    def show(self) -> None:
        display(HTML(self.static_html()))
        buttons = [self.check_button, self.hint_button, self.reveal_button, *([self.new_button] if self.new_button
                                                                              else [])]
        if self.answer is None:
            form = [w.HBox(buttons)]
        elif self.choices is None:
            form = [self.answer, w.HBox(buttons)]
        else:
            form = [w.HTML(CHOICE_CSS, layout=w.Layout(display="none")), self.choices, w.HBox([self.answer, *buttons])]
        description = text("widget.exercise.repr", title=self.book.title(self.exercise.id))
        live = LiveWidget([self.given, *form, self.feedback, self.hint_text, self.solution, self.unfold], description)
        live.add_class(EXERCISE_CLASS)
        display(live)
