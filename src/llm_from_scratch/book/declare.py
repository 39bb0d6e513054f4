"""Declare: an exercise as data, in one place, and the notebooks that ask them.

An ``Exercise`` is one block in its chapter: the notebook that asks it, its expected answer (a function of the
chapter's evidence, computed when asked), how an answer is read, its judge and the misconceptions the judge names.
Its strings are data, in the chapter's catalogue, under keys derived from its id; ``say`` says one of them, or any
catalogue string, with its fields. Nothing here reads the store,
draws a variant or shows anything: ``book.exercises`` serves what is declared here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .answers import read_choice, read_numbers
from .text import Catalogue, language
from .verdicts import Given, Judgement, Own, Phrase, own

OPTIONS = ("a", "b", "c", "d")

Fields = dict[str, str]


def _no_fields(*_: object) -> Fields:
    return {}


HINTS = "hint_"  # an exercise's hints are its strings whose field begins so, in the order it gives them


@dataclass(frozen=True)
class Exercise:
    """One exercise, declared in one place: what it asks and how it is judged; its strings are data.

    ``notebook`` is the stem of the notebook that asks it; ``example(evidence)`` is the example it is asked on (the
    chapter's ``Example.worked``, ``Example.hand``, …). Its strings stand in the chapter's catalogue, in
    the table ``[ex.<id>]`` of each language (catalogues/<language>/<notebook>.toml), by field ("title", "prompt",
    "form", "explain", "hint_stage", …, a choice's "a" … "d", "right" and "why_a" …, and whatever its judge names
    with ``own``); their keys are derived, ``ex.<id>.<field>``. The book fills in ``fields`` (their names, in the
    source language's order) and ``gives_away`` from the catalogue.
    ``expected(evidence)`` is the right answer (an array, a letter, or a code exercise's solution);
    ``read(answer, form text)`` turns an answer into what ``judge(read answer, expected, evidence)``
    judges; ``facts(expected, evidence)`` are the fields of "explain", "answer" among them, and of the hints;
    ``inputs(evidence)`` are the fields of "prompt" and "form".
    """

    id: str
    kind: str  # "numbers", "choice", "code", or "state": a widget's state (a move on a plane), read when checked
    notebook: str
    example: Callable[[Any], Any]  # the example it is asked on, from the evidence
    expected: Callable[[Any], Any]
    judge: Callable[[Any, Any, Any], Judgement]
    facts: Callable[[Any, Any], Fields]
    inputs: Callable[[Any], Fields] = _no_fields
    read: Callable[[object, str], Any] = read_numbers
    options: Mapping[str, str | None] = field(default_factory=dict)  # a choice: letter -> the misconception it shows
    skills: tuple[str, ...] = ()  # the skills it serves (each its name's catalogue key, "skill.…")
    varies: str = ""  # the family of variants it draws from ("" = one example); exercises of one family share them
    after: str = ""  # the prediction it follows: it is judged only once that one was answered
    given: Given | None = None  # the values its answer cell passes by keyword, if any
    fields: tuple[str, ...] = ()  # the names of its strings, from the catalogue
    # per language, what would give its answer away (regular expressions over a text read as in
    # tests/test_reading_order.py), from the catalogue: none may stand above the question, in prose, outputs or
    # code comments
    gives_away: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def key(self, name: str) -> str:
        """The catalogue key of one of its strings."""
        return f"ex.{self.id}.{name}"

    def has(self, name: str) -> bool:
        return name in self.fields

    @property
    def title(self) -> str:
        return self.key("title")

    @property
    def explain(self) -> str:
        return self.key("explain")

    @property
    def prompt(self) -> str:
        """Its task's key; "" where the notebook asks the question in its prose."""
        return self.key("prompt") if self.has("prompt") else ""

    @property
    def form(self) -> str:
        """How to write a numbers exercise's answer (its key; "" for other kinds)."""
        return self.key("form") if self.has("form") else ""

    @property
    def hints(self) -> tuple[str, ...]:
        """Its hints' keys in steps, smaller and smaller: which stage, its formula, then part of the method, never a
        number the answer follows from in one step (a code exercise adds the first row of its output)."""
        return tuple(self.key(name) for name in self.fields if name.startswith(HINTS))


def choice_exercise(exercise_id: str, *, notebook: str, example: Callable[[Any], Any], correct: str,
                    misconceptions: Mapping[str, str], skills: tuple[str, ...],
                    facts: Callable[[Any], Fields] = _no_fields, inputs: Callable[[Any], Fields] = _no_fields
                    ) -> Exercise:
    """A choice among OPTIONS, each wrong letter showing a misconception; the message of a letter is its "why_"
    string ("right" for the right one), with ``facts`` filled in."""
    options = {letter: misconceptions.get(letter) for letter in OPTIONS}
    if sorted([*misconceptions, correct]) != sorted(OPTIONS):
        raise ValueError(f"{exercise_id}: every wrong option names its misconception, the right one ({correct}) none")

    def judge(letter: str, expected: str, ev: Any) -> Judgement:
        why = own("right" if letter == expected else f"why_{letter}")
        return Judgement(letter == expected, why, options[letter], {**facts(ev), "answer": expected})

    return Exercise(exercise_id, "choice", notebook, example, lambda ev: correct, judge,
                    lambda expected, ev: {**facts(ev), "answer": expected}, inputs=inputs,
                    read=lambda answer, form: read_choice(answer, OPTIONS), options=options, skills=skills)


@dataclass(frozen=True)
class Notebook:
    """A notebook of a chapter: its file's stem ("02_scores_softmax_mixture"), the catalogue key of its title and
    the ids of the exercises it asks, in the order it asks them."""

    stem: str
    title: str
    asks: tuple[str, ...]


def say(strings: Catalogue, exercise: Exercise, key: str | Own, fields: Mapping[str, object] | None = None,
        lang: str | None = None) -> str:
    """The catalogue string ``key`` (or the exercise's own one) with ``fields``, any ``Own`` or ``Phrase`` among
    them said first, in ``lang`` (by default the chosen language)."""
    if isinstance(key, Own):
        key, fields = exercise.key(key.field), {**key.fields, **(fields or {})}
    filled = {name: say(strings, exercise, value, lang=lang) if isinstance(value, Own) else
              say(strings, exercise, value.key, value.fields, lang) if isinstance(value, Phrase) else value
              for name, value in (fields or {}).items()}
    return strings.text_in(lang or language(), key, **filled)
