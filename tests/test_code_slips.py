"""The search that names a wrong head or backward (book/slips.py, book/code_search.py, ch27/code_slips.py): every
slip, alone and with another, written as the computation with that slip, is named as itself — or, where the probes
cannot tell it from another hypothesis, not named at all — in every language, with a hint that gives no code. A
corpus of wrong heads and backwards written without reading the slips (tests/data/learner_code.json, each with its
mistake in words and the slips that say it, "note" where two give the same numbers on every probe) is named as
annotated."""

import json
import linecache
import re
from pathlib import Path

import numpy as np
import pytest
from support import stable_id, tiered

from llm_from_scratch.book.code_search import _agrees
from llm_from_scratch.book.slips import hypotheses, recipe
from llm_from_scratch.book.text import LANGUAGES, set_language
from llm_from_scratch.ch27.code_slips import BACKWARD_SEARCH, HEAD_SEARCH
from llm_from_scratch.ch27.exercises import EXERCISE_BOOK, check_code
from llm_from_scratch.ch27.strings import STRINGS

SEARCHES = {"write-head": HEAD_SEARCH, "write-backward": BACKWARD_SEARCH}
CORPUS = json.loads((Path(__file__).parent / "data" / "learner_code.json").read_text(encoding="utf-8"))
CODE = re.compile(r"[=@(\[]|\.\w|keepdims|def ")


def _written(search, slips):
    """The learner's function that makes exactly these slips."""
    steps = {**search.right, **recipe(slips)}
    return lambda *args: search.compute(*args, steps=steps)


def _results(search, slips):
    return next(results for hypothesis, results in search.fingerprints if hypothesis == slips)


def _same_everywhere(search, a, b) -> bool:
    ra, rb = _results(search, a), _results(search, b)
    return all(_agrees(ra[name], rb[name], 1e-6) for name in ra)


HYPOTHESES = [(exercise, slips) for exercise, search in SEARCHES.items() for slips in hypotheses(search.slips)]


def _id(case) -> str:
    exercise, slips = case
    return f"{exercise}:{'+'.join(slip.id for slip in slips)}"


@pytest.mark.parametrize("exercise, slips", tiered(HYPOTHESES, lambda case: len(case[1]) == 1, ids=_id))
def test_every_slip_alone_and_in_a_pair_is_named_as_itself_or_not_at_all(exercise, slips):
    search = SEARCHES[exercise]
    named = search.named(_written(search, slips))
    if len(slips) == 1:
        assert named == slips, f"{_id((exercise, slips))} named {named}"
    else:  # a pair the probes cannot tell from a simpler hypothesis, or from another pair, may go unnamed
        assert named is None or named == slips or _same_everywhere(search, named, slips), named


def test_no_slip_is_the_right_computation_on_every_probe_and_no_two_slips_are_the_same():
    for search in SEARCHES.values():
        right = search.run({})
        singles = [(slip,) for slip in search.slips]
        assert len({slip.id for slip in search.slips}) == len(search.slips)
        for slips in singles:
            results = _results(search, slips)
            assert not all(_agrees(results[name], right[name], 1e-6) for name in right), slips[0].id
        for i, a in enumerate(singles):
            for b in singles[i + 1:]:
                assert not _same_everywhere(search, a, b), (a[0].id, b[0].id)


SINGLES = [(exercise, slip) for exercise, search in SEARCHES.items() for slip in search.slips]


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("exercise, slip", SINGLES, ids=[f"{e}:{s.id}" for e, s in SINGLES])
def test_every_slip_is_said_in_every_language_with_a_hint_that_gives_no_code(exercise, slip, lang):
    set_language(lang)
    try:
        feedback = check_code(exercise, _written(SEARCHES[exercise], (slip,)))
        assert feedback.misconception == slip.id, (slip.id, feedback.message)
        said = STRINGS.text(slip.message), STRINGS.text(f"hint.{slip.id}")
        assert all(part in feedback.message for part in said), feedback.message
        assert not CODE.search(said[1]), f"the hint of {slip.id} gives code: {said[1]}"
    finally:
        set_language(LANGUAGES[0])


@pytest.mark.slow
@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_named_pair_is_said_in_every_language(lang):
    set_language(lang)
    try:
        for exercise, search in SEARCHES.items():
            pairs = [slips for slips in hypotheses(search.slips) if len(slips) == 2][::7]
            for slips in pairs:
                feedback = check_code(exercise, _written(search, slips))
                if "+" in (feedback.misconception or ""):
                    for slip in slips:
                        assert STRINGS.text(f"slip.{slip.id}") in feedback.message, feedback.message
    finally:
        set_language(LANGUAGES[0])


def test_every_slip_string_belongs_to_a_slip_and_each_language_has_them_all():
    ids = {slip.id for search in SEARCHES.values() for slip in search.slips}
    for lang in LANGUAGES:
        keys = STRINGS.strings[lang]
        assert {key.split(".", 1)[1] for key in keys if key.startswith("slip.")} == ids, lang
        assert {key.split(".", 1)[1] for key in keys if key.startswith("hint.")} == ids, lang


# --- the corpus written without reading the slips ---------------------------------------------------------

def _function(entry):
    """The corpus's own code, defined as a notebook cell defines it: with its source where the judge reads lines."""
    cell = f"<ipython-input-{stable_id(entry['code'])}-corpus>"
    linecache.cache[cell] = (len(entry["code"]), None, entry["code"].splitlines(True), cell)
    namespace = {"np": np}
    exec(compile(entry["code"], cell, "exec"), namespace)
    return namespace["my_head" if entry["exercise"] == "write-head" else "my_backward"]


@pytest.mark.parametrize("entry", CORPUS, ids=[f"{i}:{e['exercise']}" for i, e in enumerate(CORPUS)])
def test_the_corpus_is_judged_as_annotated(entry):
    feedback = check_code(entry["exercise"], _function(entry))
    if entry["right"]:
        assert feedback.correct, feedback.message
    else:
        assert not feedback.correct and feedback.misconception in entry["named"], (entry["mistake"], feedback.message)


def test_the_corpus_is_large_enough():
    wrong = [entry for entry in CORPUS if not entry["right"]]
    assert len(wrong) >= 20 and all(entry["named"] and entry["mistake"] for entry in wrong)
    assert {entry["exercise"] for entry in wrong} == set(SEARCHES) and EXERCISE_BOOK
