"""Widget bases every chapter uses: live widgets with a stored snapshot, explorers, exercise forms.

An explorer separates its numbers (``state_for``) from their rendering
(``render``), so tests check the numbers without a browser. A widget cell first
shows a static snapshot of the default state (guarded by nbval, readable without
a kernel), then the live widget, whose plain-text form only names it; once drawn,
the live widget hides the snapshot of its cell.

Accessibility: a live widget is marked with the learner's language and shows a
visible focus ring on every control; a slider is a native ``<input type="range">``
named by its ``<label>`` (``Slider``), which the keyboard moves without
JupyterLab taking the keys; figures carry a title and a description.
"""

from __future__ import annotations

import re
from html import escape
from pathlib import Path

import anywidget
import ipywidgets as w
import traitlets
from IPython.display import HTML, display

from .answers import AnswerFormatError, read_choice
from .blocks import Section, to_html, to_text
from .declare import OPTIONS
from .display import FOLDED_CLASS, figure_bundle
from .exercises import ExerciseBook
from .feedback import Feedback
from .figures import Figure
from .judge import are_the_exercises
from .present import Asks, Line
from .progress import SURE_LEVELS
from .review import SAID
from .state import STATE
from .text import book_text, language

LABEL_STYLE = {"description_width": "initial"}
CHOICE_CLASS = "llm-choice"  # its list box wraps and grows to fit its options (assets/live.css)
# ipywidgets writes a list box's labels with no-break spaces, so a zero-width space after each space lets a long
# option wrap.
WRAP_AFTER_SPACE = " \u200b"


ASSETS = Path(__file__).with_name("assets")  # the widgets' JavaScript and CSS, package data of the wheel


def esm(module: Path) -> str:
    """A widget's JavaScript module for anywidget's ``_esm``: the book's render helpers (assets/render.js: mount,
    follow, keepKeys), then the module's own file. Every value the module needs comes as a synced trait."""
    return (ASSETS / "render.js").read_text(encoding="utf-8") + "\n" + module.read_text(encoding="utf-8")


LIVE_CLASS = "llm-live"  # a live widget: its controls show their focus ring (assets/live.css)
SNAPSHOT_CLASS = "llm-snapshot"  # a stored snapshot, hidden once the live widget of its cell is drawn


class _LiveMark(anywidget.AnyWidget):
    """An invisible part of a live widget: it marks the widget with the learner's language (ipywidgets gives no
    way to set an element's attributes), brings the focus ring's CSS, and hides the cell's stored snapshot."""

    _esm = esm(ASSETS / "mark.js")
    _css = ASSETS / "live.css"
    lang = traitlets.Unicode("").tag(sync=True)
    live_class = traitlets.Unicode(LIVE_CLASS).tag(sync=True)
    snapshot_class = traitlets.Unicode(SNAPSHOT_CLASS).tag(sync=True)


EXERCISE_CLASS = "llm-exercise"
# An exercise's answer sits folded in a cell below its form (show_folded: a closed <details>, in a cell whose
# stored output is collapsed too): once the form reveals the answer, assets/unfold.js opens it.


class _Unfold(anywidget.AnyWidget):
    _esm = esm(ASSETS / "unfold.js")
    opened = traitlets.Int(0).tag(sync=True)
    exercise_class = traitlets.Unicode(EXERCISE_CLASS).tag(sync=True)
    folded_class = traitlets.Unicode(FOLDED_CLASS).tag(sync=True)


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
    """A live figure: the SVG with its title and description, named as one image (its table is not beside it:
    the explorer's numbers under it say what the step changed)."""
    live = book_text("figure.live")
    return f'<div role="img" aria-label="{escape(f"{figure.title}. {live}")}">{figure.described_svg(live)}</div>'


SLIDER_CLASS = "llm-slider"


class Slider(anywidget.AnyWidget):
    """A slider over a list of options, with the API of ipywidgets' SelectionSlider (``options``, ``value``,
    ``label``, ``index``), drawn as a native ``<input type="range">`` named by its ``<label>``.

    ipywidgets' sliders are noUiSlider handles: a div with role="slider" and no accessible name
    (ipywidgets passes noUiSlider no ARIA options). The native range input has its name from the label,
    its value text from the option's label (aria-valuetext), and the browser's keys: arrows, Home, End,
    Page Up and Page Down. Options are (label, value) pairs or values (labelled by ``str``).
    """

    _esm = esm(ASSETS / "slider.js")
    _css = ASSETS / "slider.css"
    css_class = traitlets.Unicode(SLIDER_CLASS).tag(sync=True)
    index = traitlets.Int(0).tag(sync=True)
    labels = traitlets.List(traitlets.Unicode()).tag(sync=True)
    description = traitlets.Unicode("").tag(sync=True)
    lang = traitlets.Unicode("").tag(sync=True)
    value = traitlets.Any()

    def __init__(self, options, value, description: str = "", **kwargs) -> None:
        self.options = tuple(o if isinstance(o, tuple) else (str(o), o) for o in options)
        index = self._index_of(value)
        if index is None:
            raise ValueError(f"{value!r} is not one of the slider's options")  # the chapter's own mistake
        super().__init__(labels=[label for label, _ in self.options], index=index, description=description,
                         lang=language(), **kwargs)
        self.value = value

    def _index_of(self, value) -> int | None:
        for i, (_, option) in enumerate(self.options):
            if option == value:
                return i
        return None

    @property
    def label(self) -> str:
        return self.options[self.index][0]

    def _kept(self, said: str) -> None:
        """A value or index set from code that is none of the slider's steps: said in one line, in the learner's
        language, and the slider stays where it is (no traceback)."""
        display(HTML(lang_div(f"<p>{escape(said)}</p>")))

    @traitlets.validate("value")
    def _valid_value(self, proposal):
        if self._index_of(proposal["value"]) is None:
            labels = [label for label, _ in self.options]
            steps = ", ".join(labels if len(labels) <= 6 else [*labels[:3], "…", labels[-1]])
            self._kept(book_text("widget.slider.kept", asked=repr(proposal["value"]), steps=steps, label=self.label))
            return self.value
        return proposal["value"]

    @traitlets.validate("index")
    def _valid_index(self, proposal):
        index = proposal["value"]
        if not 0 <= index < len(self.options):
            self._kept(book_text("widget.slider.no_step", asked=index, label=self.label))
            return self.index
        return index

    @traitlets.observe("value")
    def _value_changed(self, change) -> None:
        self.index = self._index_of(change["new"])

    @traitlets.observe("index")
    def _index_changed(self, change) -> None:
        self.value = self.options[change["new"]][1]


ANSWER_CLASS = "llm-answer"


class AnswerBox(anywidget.AnyWidget):
    """A labelled text box, how sure the learner is (``sure``: 0 for not said, else one of SURE_LEVELS; radio
    buttons the keyboard reaches, named by a legend) and the check button; Enter and the button both send the
    text the box holds then and the level chosen (``on_submit``), and ``value`` follows the typing."""

    _esm = esm(ASSETS / "answer.js")
    _css = ASSETS / "answer.css"
    css_class = traitlets.Unicode(ANSWER_CLASS).tag(sync=True)
    value = traitlets.Unicode("").tag(sync=True)
    placeholder = traitlets.Unicode("").tag(sync=True)
    description = traitlets.Unicode("").tag(sync=True)
    check_label = traitlets.Unicode("").tag(sync=True)
    width = traitlets.Unicode("auto").tag(sync=True)
    lang = traitlets.Unicode("").tag(sync=True)
    sure = traitlets.Int(0).tag(sync=True)
    sure_legend = traitlets.Unicode("").tag(sync=True)
    sure_labels = traitlets.List(traitlets.Unicode()).tag(sync=True)

    def __init__(self, **kwargs) -> None:
        super().__init__(lang=language(), sure_legend=book_text("widget.exercise.sure"),
                         sure_labels=[book_text(SAID[level]) for level in SURE_LEVELS], **kwargs)
        self._submitted: list = []
        self.on_msg(self._on_message)

    def on_submit(self, callback) -> None:
        """Call ``callback(text, sure)`` with the box's text and the level chosen (None: not said) at each Enter or
        click."""
        self._submitted.append(callback)

    def submit(self, typed: str | None = None, sure: int | None = None) -> None:
        """What Enter or the button does, with the text the box holds and the level chosen (``value`` and ``sure``
        when none is given); the level is asked again for the next answer."""
        level = sure if sure is not None else self.sure or None
        self.sure = 0
        for callback in self._submitted:
            callback(self.value if typed is None else typed, level)

    def _on_message(self, _widget, content, _buffers) -> None:
        if isinstance(content, dict) and content.get("event") == "submit" and isinstance(content.get("value"), str):
            level = content.get("sure")
            self.submit(content["value"], level if level in SURE_LEVELS else 0)


def pre(lines: str) -> str:
    """Monospaced lines that wrap only between words: JupyterLab breaks an output's pre anywhere
    (word-break: break-all), which split a number of the d_k explorer across two lines."""
    return (f'<pre style="font-family:monospace;margin:4px 0;white-space:pre-wrap;word-break:normal;'
            f'overflow-wrap:break-word">{escape(lines)}</pre>')


def show_snapshot(html: str, plain: str, svg: str | None = None) -> None:
    """One output of a stored snapshot, marked so that the live widget of its cell hides it once drawn; it keeps
    its plain text (and a figure its SVG) for nbval and for pages that do not show HTML."""
    bundle = {"text/html": f'<div class="{SNAPSHOT_CLASS}" lang="{language()}">{html}</div>', "text/plain": plain}
    if svg:
        bundle["image/svg+xml"] = svg
    display(bundle, raw=True)


def snapshot(parts: list[Figure | Section | str], note: str | None = None) -> None:
    """Show a state statically, for readers without a kernel: a note that it is a snapshot (at the default values,
    unless ``note`` says at which), then figures (each with its table folded beneath it), sections and text, each
    output marked as the snapshot."""
    note = note or book_text("widget.snapshot")
    show_snapshot(f"<p><em>{escape(note)}</em></p>", note)
    for part in parts:
        if isinstance(part, Figure):
            bundle = figure_bundle(part)
            show_snapshot(bundle["text/html"], bundle["text/plain"], bundle["image/svg+xml"])
        elif isinstance(part, Section):
            show_snapshot(to_html(part), to_text(part))
        else:
            show_snapshot(pre(part), part)


# A tag, or a number in a text: split by it, even places hold the text between them
TAG_OR_NUMBER = re.compile(r"(<[^>]*>|-?\d+(?:\.\d+)?(?:e[+-]?\d+)?)")
CHANGED_STYLE = "font-weight:bold;text-decoration:underline;background:#fff3b0;color:#000"  # readable without colour


def mark_changes(before: str, after: str) -> tuple[str, int]:
    """``after`` with every number that differs from the one at its place in ``before`` marked (bold, underlined,
    highlighted), and how many were; nothing is marked when the two are laid out differently."""
    old, new = TAG_OR_NUMBER.split(before), TAG_OR_NUMBER.split(after)
    if len(old) != len(new) or old[::2] != new[::2]:
        return after, 0
    changed = [i for i in range(1, len(new), 2) if old[i] != new[i] and not new[i].startswith("<")]
    for i in changed:
        new[i] = f'<mark style="{CHANGED_STYLE}">{new[i]}</mark>'
    return "".join(new), len(changed)


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


class NotDrawn:
    """What a widget gives for inputs it cannot draw: shown, or challenged, it says why in one sentence, so the
    cells after it still run."""

    def __init__(self, reason: str) -> None:
        self.reason = reason

    def show(self) -> None:
        display(HTML(lang_div(f"<p><strong>{escape(self.reason)}</strong></p>")))

    def __repr__(self) -> str:
        return self.reason


class ExerciseForm:
    """An answer box with its check button (``AnswerBox``: Enter or the button judges the text it holds then),
    feedback, and hint and reveal buttons enabled after an attempt; an exercise with variants adds «Новый пример»,
    which puts the next variant's inputs above the box and judges the next answers on it.

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

    def __init__(self, book: ExerciseBook, exercise_id: str, variant: int = 0, source: object = None,
                 values: dict[str, object] | None = None, answer_cell_below: bool = False,
                 review_of: str = "", snapshot: dict | None = None) -> None:
        self.book = book
        self.review_of = review_of  # in review, the exercise this one is asked in place of
        self.exercise = book[exercise_id]
        self.variant = variant
        self.source = source  # an exercise of kind "state": what its answer is read from when checked
        self.values = values or {}  # what its answer cell passes to check: the example's own answer is judged on them
        self.answer_cell_below = answer_cell_below  # the prompt says once that the cell below takes an answer too
        options = book.present.options(self.exercise)
        self.choices = None
        check = book_text("widget.exercise.check")
        if self.exercise.kind == "state":
            self.answer = None
            self.check_button = w.Button(description=check)
            self.check_button.on_click(lambda _: self.submit())
        elif options:
            # named by its tooltip (ipywidgets writes it as the list's title): it has no visible label
            self.choices = w.Select(options=[(f"{k}) {v}".replace(" ", WRAP_AFTER_SPACE), k) for k, v in options],
                                    value=None, rows=len(options), tabbable=False, layout=w.Layout(width="auto"),
                                    tooltip=book_text("widget.exercise.options", title=book.title(exercise_id)))
            self.choices.add_class(CHOICE_CLASS)
            self.choices.observe(lambda change: setattr(self.answer, "value", change["new"] or ""), names="value")
            self.answer = AnswerBox(placeholder=book_text("widget.exercise.letters", letters=", ".join(OPTIONS[:-1]),
                                                     last=OPTIONS[-1]),
                                    description=book_text("widget.exercise.choose"), check_label=check, width="10em")
        else:
            self.answer = AnswerBox(placeholder=book.form(exercise_id, variant, snapshot, self._values()),
                                    description=book_text("widget.exercise.answer"), check_label=check, width="36em")
        self.judged: str | None = None  # the text last judged: its value arriving late clears nothing
        if self.answer is not None:
            self.answer.on_submit(self.submit)
            self.answer.observe(self._answer_changed, names="value")
        self.hint_button = w.Button(description=book_text("widget.exercise.hint"))
        self.reveal_button = w.Button(description=book_text("widget.exercise.reveal"))
        self.new_button = (w.Button(description=book_text("widget.exercise.new_example")) if self.exercise.varies
                           else None)
        self.given = w.HTML()  # a fresh variant's task (the static part above shows the form's first one)
        self._unlock(snapshot)
        self.feedback = w.HTML()
        self.hint_text = w.HTML()
        self.solution = w.HTML()
        self.hint_button.on_click(lambda _: self.show_hint())
        self.reveal_button.on_click(lambda _: self.show_solution())
        if self.new_button:
            self.new_button.on_click(lambda _: self.new_example())
        self.unfold = _Unfold()
        status = book.present.status(self.exercise, variant, book.records(snapshot))
        if status:  # answered before, in an earlier kernel: the form says so
            self.feedback.value = lang_div(f'<div role="status">{escape(status)}</div>')
        STATE.forms[book.chapter, exercise_id] = self  # the latest form of the exercise shows its status

    def tell(self, feedback: Feedback, variant: int) -> None:
        """Show the feedback on an answer to this exercise, given here or in a code cell (``shown_in_form``): its one
        status (a read answer was recorded, so hints and the answer open)."""
        if variant == self.variant:
            self.feedback.value = lang_div(feedback._repr_html_())
            if feedback.readable:
                self.reveal_button.disabled = self.hint_button.disabled = False

    def _unlock(self, snapshot: dict | None = None) -> None:
        attempted = self.book.attempted(self.exercise.id, self.variant, snapshot)
        self.reveal_button.disabled = self.hint_button.disabled = not attempted

    def _answer_changed(self, change) -> None:
        if change["new"] != self.judged:  # the feedback belongs to the text it judged
            self.feedback.value = ""
            self.judged = None
        if self.choices is not None:
            try:
                self.choices.value = read_choice(change["new"], OPTIONS)
            except AnswerFormatError:
                self.choices.value = None

    def submit(self, typed: str | None = None, sure: int | None = None) -> Feedback:
        """Judge ``typed`` (what the box held at Enter or the click; by default its value) said with ``sure`` (by
        default the level chosen in the box, if any), or the source of a state exercise as it stands now, and show
        the feedback the book returns."""
        if self.answer is None:
            answer = self.source
        else:
            answer = self.judged = self.answer.value if typed is None else typed
            sure, self.answer.sure = sure or self.answer.sure or None, 0
        STATE.forms[self.book.chapter, self.exercise.id] = self  # the form answered in shows the status
        feedback = self.book.check(self.exercise.id, answer, self.variant, sure=sure, review_of=self.review_of,
                                   **self._values())
        self.tell(feedback, self.variant)
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

    def _values(self) -> dict[str, object]:
        """The learner's values this form judges on: none on a variant, which has inputs of its own."""
        return {} if self.variant else self.values

    def new_example(self) -> int:
        """Move to the next variant: its task above the box, an empty box, and no feedback of the last one."""
        self.variant = max(self.book.next_variant(self.exercise.id), self.variant + 1)
        variant = escape(book_text("widget.exercise.variant", n=self.variant))
        self.given.value = lang_div(f"<p><strong>{variant}</strong> "
                                    f"{escape(self.book.prompt(self.exercise.id, self.variant))}</p>")
        self.answer.placeholder = self.book.form(self.exercise.id, self.variant)
        self.answer.value = ""
        self.feedback.value = self.hint_text.value = self.solution.value = ""
        self._unlock()
        return self.variant

    def static_html(self, snapshot: dict | None = None) -> str:
        """The exercise's title and task, and the answer's written form; a choice's options are in ``show``."""
        exercise_id = self.exercise.id
        written = self.book.form(exercise_id, self.variant, snapshot, self._values())
        form = f"<p><em>{escape(book_text('widget.exercise.form'))}: {escape(written)}</em></p>" if written else ""
        which = f" {book_text('widget.exercise.variant', n=self.variant)}" if self.variant else ""
        own = self._own_values() if not self.variant else ""
        own = f"<p><strong>{escape(book_text('widget.exercise.own_values', values=own))}</strong></p>" if own else ""
        in_code = f"<p>{escape(book_text('widget.exercise.in_code'))}</p>" if self.answer_cell_below else ""
        return (f'<div lang="{language()}" style="border:2px solid #000;padding:6px 10px">'
                f"<p><strong>{escape(book_text('widget.exercise.title', title=self.book.title(exercise_id)) + which)}"
                f"</strong> {escape(self.book.prompt(exercise_id, self.variant, snapshot))}</p>"
                f"{own}{form}{in_code}</div>")

    def _own_values(self) -> str:
        """The values its answer cell passes, written out, where they are not those of the exercise's example (a
        cell above changed); "" where they are (or none are given)."""
        book, exercise, values = self.book, self.exercise, self.values
        if not values or book.misuse.given(exercise, 0, values) or are_the_exercises(
                exercise, values, book.drawn(exercise.id)):
            return ""
        return book.present.values(values)

    def show_options(self) -> None:
        """A choice's options as a stored list, for readers without a kernel: the live list replaces it."""
        options = self.book.present.options(self.exercise)
        if options:
            items = "".join(f"<li><strong>{k})</strong> {escape(v)}</li>" for k, v in options)
            show_snapshot(f'<ul style="list-style:none;margin:0">{items}</ul>',
                          "\n".join(f"{k}) {v}" for k, v in options))

    def show(self, snapshot: dict | None = None) -> None:
        """Its static part (read from ``snapshot`` where one is given, else from the store now), then the live form."""
        display(HTML(self.static_html(snapshot)))
        self.show_options()
        buttons = [self.hint_button, self.reveal_button, *([self.new_button] if self.new_button else [])]
        if self.answer is None:
            form = [w.HBox([self.check_button, *buttons])]
        elif self.choices is None:
            form = [self.answer, w.HBox(buttons)]
        else:
            form = [self.choices, w.HBox([self.answer, *buttons], layout=w.Layout(flex_flow="row wrap"))]
        description = book_text("widget.exercise.repr", title=self.book.title(self.exercise.id))
        live = LiveWidget([self.given, *form, self.feedback, self.hint_text, self.solution, self.unfold], description)
        live.add_class(EXERCISE_CLASS)
        display(live)


class ReviewPage:
    """A review session shown: each line as a paragraph, each form it asks (``Presenter.session``), all forms
    reading the one ``snapshot`` the session was made from."""

    def __init__(self, book: ExerciseBook, shown: list[Line | Asks], snapshot: dict) -> None:
        self.book, self.shown, self.snapshot = book, shown, snapshot

    def show(self) -> None:
        for item in self.shown:
            if isinstance(item, Line):
                parts = [f"<strong>{escape(item.strong)}</strong>"] + ([] if item.rest is None else [escape(item.rest)])
                display(HTML(lang_div(f"<p>{' '.join(parts)}</p>")))
            else:
                ExerciseForm(self.book, item.exercise_id, item.variant, review_of=item.review_of,
                             snapshot=self.snapshot).show(self.snapshot)


def shown_in_form(chapter: str, feedback: Feedback, variant: int = 0) -> Feedback:
    """``feedback`` on an answer given in a code cell, shown in the exercise's latest form too; returned for the
    cell to show."""
    form = STATE.forms.get((chapter, feedback.exercise_id))
    if form is not None:
        form.tell(feedback, variant)
    return feedback
