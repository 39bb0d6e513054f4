"""Widget bases every chapter uses: live widgets with a stored snapshot, explorers, exercise forms.

An explorer separates its numbers (``state_for``) from their rendering
(``render``), so tests check the numbers without a browser. A widget cell first
shows a static snapshot of the default state (guarded by nbval, readable without
a kernel), then the live widget, whose plain-text form only names it.
"""

from __future__ import annotations

from html import escape

import ipywidgets as w
from IPython.display import HTML, display

from .answers import AnswerFormatError, read_choice
from .exercises import OPTIONS, ExerciseBook
from .figures import Figure, show
from .text import language, text

LABEL_STYLE = {"description_width": "initial"}
CHOICE_CLASS = "llm-choice"
# The options' list box wraps each option's text and grows to fit them all (field-sizing: Chromium; elsewhere
# it scrolls), so options never overlap as fixed-height radio labels do. ipywidgets writes a list box's
# labels with no-break spaces, so a zero-width space after each space lets a long option wrap.
WRAP_AFTER_SPACE = " \u200b"
CHOICE_CSS = (f"<style>.{CHOICE_CLASS} select{{height:auto;field-sizing:content;padding:2px}}"
              f".{CHOICE_CLASS} option{{white-space:normal;line-height:1.35;padding:3px 4px}}</style>")


class LiveWidget(w.VBox):
    """A VBox whose plain-text form says what it is, so stored notebooks stay deterministic."""

    def __init__(self, children, description: str) -> None:
        super().__init__(children)
        self._description = description

    def __repr__(self) -> str:
        return self._description


def lang_div(html: str) -> str:
    """HTML marked with the learner's language."""
    return f'<div lang="{language()}">{html}</div>'


def figure_html(figure: Figure) -> str:
    return f'<div role="img" aria-label="{escape(figure.title)}">{figure.svg}</div>'


def pre(lines: str) -> str:
    return f'<pre style="font-family:monospace;margin:4px 0">{escape(lines)}</pre>'


def snapshot(parts: list[Figure | str]) -> None:
    """Show a default state statically: figures with their text tables, then text."""
    display(HTML(lang_div(f"<p><em>{escape(text('widget.snapshot'))}</em></p>")))
    for part in parts:
        if isinstance(part, Figure):
            show(part)
        else:
            print(part)


class Explorer:
    """A control-driven view: ``state_for`` computes the numbers, ``render`` draws them."""

    figure: w.HTML
    numbers: w.HTML

    def update(self, value):
        self.state = self.state_for(value)
        figure, numbers = self.render(self.state)
        self.figure.value = figure_html(figure)
        self.numbers.value = pre(numbers)
        return self.state


class ExerciseForm:
    """An answer box (Enter checks), a check button, feedback, and a reveal button enabled after an attempt.

    A choice adds the list of its options: a click there writes the option's letter in
    the box, and a letter typed in the box selects the option. The keyboard never
    enters the list: in JupyterLab a focused list or radio button loses its keys to the
    notebook (arrows move to another cell, "a" and "b" insert cells: ipywidgets issue
    3912), while the box keeps them. So Tab reaches the box, a letter chooses, Enter
    checks. Feedback always belongs to the answer on screen: changing it clears it.
    """

    def __init__(self, book: ExerciseBook, exercise_id: str) -> None:
        self.book = book
        self.exercise = book[exercise_id]
        options = book.options(exercise_id)
        self.choices = None
        if options:
            self.choices = w.Select(options=[(f"{k}) {v}".replace(" ", WRAP_AFTER_SPACE), k) for k, v in options],
                                    value=None, rows=len(options), tabbable=False, layout=w.Layout(width="auto"))
            self.choices.add_class(CHOICE_CLASS)
            self.choices.observe(lambda change: setattr(self.answer, "value", change["new"] or ""), names="value")
            self.answer = w.Text(placeholder=text("widget.exercise.letters", letters=", ".join(OPTIONS[:-1]),
                                                  last=OPTIONS[-1]),
                                 description=text("widget.exercise.choose"), style=LABEL_STYLE,
                                 layout=w.Layout(width="16em"))
        else:
            self.answer = w.Text(placeholder=book.form(exercise_id), description=text("widget.exercise.answer"),
                                 style=LABEL_STYLE, layout=w.Layout(width="36em"))
        self.answer.on_msg(self._on_answer_message)
        self.check_button = w.Button(description=text("widget.exercise.check"))
        self.reveal_button = w.Button(description=text("widget.exercise.reveal"),
                                      disabled=not book.attempted(exercise_id))
        self.feedback = w.HTML()
        self.solution = w.HTML()
        self.answer.observe(self._answer_changed, names="value")
        self.check_button.on_click(lambda _: self.submit())
        self.reveal_button.on_click(lambda _: self.show_solution())

    def _on_answer_message(self, _widget, content, _buffers) -> None:
        """The box sends {"event": "submit"} when Enter is pressed (after the value it holds)."""
        if isinstance(content, dict) and content.get("event") == "submit":
            self.submit()

    def _answer_changed(self, change) -> None:
        self.feedback.value = ""
        if self.choices is not None:
            try:
                self.choices.value = read_choice(change["new"], OPTIONS)
            except AnswerFormatError:
                self.choices.value = None

    def submit(self):
        feedback = self.book.check(self.exercise.id, self.answer.value)
        self.feedback.value = lang_div(feedback._repr_html_())
        self.reveal_button.disabled = not self.book.attempted(self.exercise.id)
        return feedback

    def show_solution(self):
        solution = self.book.reveal(self.exercise.id)
        self.solution.value = lang_div(solution._repr_html_())
        return solution

    def static_html(self) -> str:
        exercise_id = self.exercise.id
        options = "".join(f"<li><strong>{k})</strong> {escape(v)}</li>" for k, v in self.book.options(exercise_id))
        form = (f'<ul style="list-style:none">{options}</ul>' if options else
                f"<p><em>{escape(text('widget.exercise.form'))}: {escape(self.book.form(exercise_id))}</em></p>")
        return (f'<div lang="{language()}" style="border:2px solid #000;padding:6px 10px">'
                f"<p><strong>{escape(text('widget.exercise.title', title=self.book.title(exercise_id)))}</strong> "
                f"{escape(self.book.prompt(exercise_id))}</p>{form}</div>")

    def show(self) -> None:
        display(HTML(self.static_html()))
        if self.choices is None:
            form = [self.answer, w.HBox([self.check_button, self.reveal_button])]
        else:
            form = [w.HTML(CHOICE_CSS, layout=w.Layout(display="none")), self.choices,
                    w.HBox([self.answer, self.check_button, self.reveal_button])]
        description = text("widget.exercise.repr", title=self.book.title(self.exercise.id))
        display(LiveWidget([*form, self.feedback, self.solution], description))
