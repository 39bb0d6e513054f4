"""The mistake library: every composition of up to two slips, fed to every exercise it applies to, is named
with its slips in both editions; right answers written the ways learners write them are accepted."""

import math
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import tiered

from llm_from_scratch.book.mistakes import READINGS, distance, named, written_precision
from llm_from_scratch.book.slips import ANSWER
from llm_from_scratch.book.text import set_language
from llm_from_scratch.book.tolerances import ROUNDED, SAME_ANSWER
from llm_from_scratch.ch27.evidence import evidence
from llm_from_scratch.ch27.exercises import EXERCISE_BOOK, EXERCISES, check
from llm_from_scratch.ch27.mistakes import HEAD_MISTAKES
from llm_from_scratch.ch27.strings import STRINGS
from llm_from_scratch.ch27.variants import VARIANTS

HEAD_EXERCISES = ("scores", "weights", "scores-by-hand", "weights-by-hand", "output-by-hand")  # a stage of a run
LEARNER = "slip-search"
VARIANTS_TRIED = range(0, 6)  # the notebook's own example and variants 1–5 of the exercise's family


def _told(exercise_id: str, n: int):
    """The evidence of variant ``n`` as ``check`` gives it to the judge of a learner who has seen variants 0–5."""
    family = EXERCISES[exercise_id].varies
    if not family:
        return evidence()

    def drawn(m: int):
        return evidence() if m == 0 else VARIANTS.evidence(family, LEARNER, m)
    return drawn(n).told(tuple(drawn(m) for m in VARIANTS_TRIED if m != n))


def _named(exercise_id: str, ev):
    """The compositions the exercise's judge can tell apart on ``ev``, as it makes them."""
    judge = EXERCISES[exercise_id].judge
    found = named((*HEAD_MISTAKES, *READINGS), judge.instance(ev), EXERCISES[exercise_id].expected(ev),
                  judge.tolerance(ev))
    return [c for kept, _, _ in found.by_shape.values() for c in kept]


COMPOSITION_CASES = [(e, n, lang) for e in HEAD_EXERCISES for n in (VARIANTS_TRIED if EXERCISES[e].varies else (0,))
                     for lang in ("ru", "en")]
# the quick tier: both examples of the chapter and one variant, each edition once
QUICK_COMPOSITIONS = {("scores", 0, "ru"), ("weights", 0, "en"), ("scores-by-hand", 3, "ru")}


def case_id(case: tuple) -> str:
    exercise_id, n, lang = case
    return f"{exercise_id}-v{n}-{lang}"


@pytest.mark.parametrize("exercise_id, n, lang", tiered(COMPOSITION_CASES, QUICK_COMPOSITIONS, case_id))
def test_every_composition_of_up_to_two_slips_is_named_with_its_slips(exercise_id, n, lang):
    """Each composition the search tells apart on this instance, given as the learner's answer, is named by its
    slips: one slip in its own words, two one by one. The judge is called directly, as ``check`` calls it. A
    composition whose numbers, as written, are also an earlier one's (fewer slips, or earlier in the library) is
    that one: [0, 4.2] written with one decimal is the scaled scores, whether rounded or not."""
    set_language(lang)
    exercise, ev = EXERCISES[exercise_id], _told(exercise_id, n)
    start = time.perf_counter()
    compositions = _named(exercise_id, ev)
    by_shape = {}
    for c in compositions:
        by_shape.setdefault(c.value.shape, []).append(c)
    stacked = {shape: (kept, np.stack([c.value.ravel() for c in kept])) for shape, kept in by_shape.items()}
    told_apart = 0
    for composition in compositions:
        value = composition.value
        kept, values = stacked[value.shape]
        first = kept[int(np.argmax(np.abs(values - value.ravel()).max(axis=1) <= max(written_precision(value),
                                                                                       SAME_ANSWER)))]
        told_apart += first is composition
        verdict = EXERCISE_BOOK.judge.judge(exercise, value.tolist(), ev)
        assert not verdict.correct and verdict.misconception == "+".join(slip.id for slip in first.slips), (
            value, verdict)
        said = EXERCISE_BOOK.present.said(exercise, verdict.key, verdict.fields)
        for slip in first.slips:
            assert STRINGS.text_in(lang, slip.message) in said, said
    assert told_apart >= 20, told_apart
    print(f"{exercise_id} v{n} {lang}: {told_apart} of {len(compositions)} compositions told apart and named, in "
          f"{time.perf_counter() - start:.2f} s")


def _searched():
    """The other exercises the search judges: (exercise, its library, its instance, its tolerance), as its judge
    makes them."""
    from llm_from_scratch.book.tolerances import BY_HAND, TYPED
    from llm_from_scratch.ch27 import mistakes as M

    return {"output-shape": (M.SHAPE_MISTAKES, lambda ev: ev.output_shape, 0.0),
            "single-token": (M.SINGLE_TOKEN_MISTAKES, lambda ev: ev, 0.0),
            "identical-keys": (M.IDENTICAL_KEYS_MISTAKES, lambda ev: ev, 0.0),
            "temperature-limits": (M.TEMPERATURE_MISTAKES, lambda ev: ev, BY_HAND),
            "causal-rows": (M.CAUSAL_MISTAKES, lambda ev: ev, BY_HAND),
            "head-width": (M.HEAD_WIDTH_MISTAKES, lambda ev: ev, TYPED),
            "value-gradient": (M.VALUE_GRADIENT_MISTAKES, lambda ev: ev, 0.0),
            "weight-gradient": (M.WEIGHT_GRADIENT_MISTAKES, lambda ev: ev, 0.0),
            "score-gradient": (M.SCORE_GRADIENT_MISTAKES, lambda ev: ev, BY_HAND)}


FAMILY_COMPOSITIONS = [(e, n, lang) for e in _searched() for n in (VARIANTS_TRIED if EXERCISES[e].varies else (0,))
                       for lang in ("ru", "en")]
# the quick tier: one case of each kind of library (a shape, a row, a matrix, a pair of numbers, a gradient)
QUICK_FAMILY_COMPOSITIONS = {("output-shape", 1, "ru"), ("single-token", 2, "en"), ("identical-keys", 1, "ru"),
                             ("temperature-limits", 0, "en"), ("head-width", 0, "ru"), ("value-gradient", 0, "en")}


@pytest.mark.parametrize("exercise_id, n, lang", tiered(FAMILY_COMPOSITIONS, QUICK_FAMILY_COMPOSITIONS, case_id))
def test_every_composition_of_the_other_exercises_is_named_with_its_slips(exercise_id, n, lang):
    """The same for the exercises with whole-answer mistakes of their own: each mistake, each reading of the right
    answer (percent, cut, rounded coarsely, a sign lost, all signs flipped) and each reading of a mistake's answer.
    Equal keys are answered with one row or the whole matrix: both are fed."""
    set_language(lang)
    exercise = EXERCISES[exercise_id]
    ev = evidence() if n == 0 else VARIANTS.evidence(exercise.varies, LEARNER, n)
    library, instance, tolerance = _searched()[exercise_id]
    expected = np.asarray(exercise.expected(ev), dtype=float)
    answers = [expected, expected[0]] if exercise_id == "identical-keys" else [expected]
    told_apart = 0
    for right in answers:
        compositions = [c for kept, _, _ in named((*library, *READINGS), instance(ev), right, tolerance)
                        .by_shape.values() for c in kept]
        for composition in compositions:
            value = composition.value
            first = next(c for c in compositions if c.value.shape == value.shape and np.abs(
                c.value - value).max() <= max(written_precision(value), SAME_ANSWER))
            told_apart += first is composition
            verdict = EXERCISE_BOOK.judge.judge(exercise, value.tolist(), ev)
            assert not verdict.correct and verdict.misconception == "+".join(s.id for s in first.slips), (
                value, verdict)
            said = EXERCISE_BOOK.present.said(exercise, verdict.key, verdict.fields)
            assert all(STRINGS.text_in(lang, slip.message) in said for slip in first.slips), said
    assert told_apart >= len(library), told_apart


@pytest.mark.slow
@pytest.mark.slow
def test_every_slip_of_the_library_is_named_alone_somewhere():
    """On the worked example, the second one or a variant every slip is named alone, but one: dividing by √d_v.
    The second example and its variants have d_v = 2, the worked example's d_k, whose scale a learner carrying it
    over (the likelier slip, first in the library) also divides by; in the worked example √d_v is √d_k."""
    alone = {c.slips[0].id for e in HEAD_EXERCISES for n in VARIANTS_TRIED for c in _named(e, _told(e, n))
             if len(c.slips) == 1}
    assert alone == {slip.id for slip in (*HEAD_MISTAKES, *READINGS)} - {"scale-by-root-dv"}, sorted(
        {slip.id for slip in (*HEAD_MISTAKES, *READINGS)} ^ alone)


def test_a_mistake_that_gives_the_right_answer_is_never_named():
    """In the worked example T = d_k = d_v = 2: dividing by √T or √d_v is dividing by √d_k."""
    ev = evidence()
    asked = EXERCISES["weights"].judge.instance(ev)
    right_row = EXERCISES["weights"].expected(ev)
    for how in ("√T", "√d_v"):
        np.testing.assert_allclose(asked.computed({"scale": how})[0], right_row)
    assert check("weights", right_row.tolist()).correct


def test_an_answer_made_on_a_variant_seen_before_is_named(tmp_path, monkeypatch):
    """check tells the judge which variants this learner has seen: variant 1's scores, given for variant 2's, are
    named as another variant's."""
    monkeypatch.setenv("LLM_FROM_SCRATCH_PROGRESS", str(tmp_path / "progress.json"))
    book = EXERCISE_BOOK
    first, second = (book.drawn("scores-by-hand", n).hand.head.raw_scores.data[0] for n in (1, 2))
    assert check("scores-by-hand", first.tolist(), variant=1).correct
    assert check("scores-by-hand", first.tolist(), variant=2).misconception == "other-variant"
    assert distance(first, second) > ROUNDED


@pytest.mark.parametrize("answer, misconception", [
    ([0.986, 0.014], "row-reversed"), ([0, 1], "hard-attention"), ([0.5, 0.5], "uniform-weights"),
    ([0.0, 1.0], "hard-attention"), ("0 1", "hard-attention")])
def test_the_weights_mistakes_learners_make_most(answer, misconception):
    feedback = check("weights", answer)
    assert feedback.misconception == misconception, feedback.message


def test_a_coarse_rounding_that_coincides_with_hard_attention_says_softmax_never_gives_0_or_1():
    """[0.014, 0.986] to one decimal is [0.0, 1.0]: the hard-attention row."""
    feedback = check("weights", [0.0, 1.0])
    assert feedback.misconception == "hard-attention" and "не даёт ни 0, ни 1" in feedback.message


@pytest.mark.parametrize("answer", [[0.01, 0.99], "[0.01, 0.99]", "0,01 0,99", "1.4% 98.6%", [0.014, 0.986]])
def test_an_answer_rounded_to_two_decimals_is_right_with_the_exact_value(answer):
    feedback = check("weights", answer)
    assert feedback.correct, feedback.message
    assert "0.014166" in feedback.message or feedback.message == STRINGS.text_in("ru", "feedback.right")


@pytest.mark.parametrize("answer", ["4×7×5", "4x7x5", "4х7х5", "4 × 7 × 5", "(4, 7, 5)", "4 X 7 X 5", "[4; 7; 5]"])
def test_shapes_as_learners_write_them(answer):
    assert check("output-shape", answer).correct


@pytest.mark.parametrize("answer, misconception", [
    ([4, 7, 7], "weights-shape-for-output"), ([4, 7, 3], "dk-for-dv"), ([7, 5], "batch-axis-dropped"),
    ([4, 5, 7], "shape-axes-swapped"), ([7, 4, 5], "shape-axes-swapped")])
def test_the_shape_slips(answer, misconception):
    assert check("output-shape", answer).misconception == misconception


@pytest.mark.parametrize("answer", ["0 6\n6 -4", "0, 6\n6, -4\n", "0 6; 6 -4", "[0, 6; 6, -4]", "[[0 6] [6 -4]]"])
def test_matrices_one_row_per_line_or_with_semicolons(answer):
    assert check("scores", answer).correct


def test_an_ambiguous_decimal_comma_gets_both_readings_and_is_not_an_attempt():
    feedback = check("weights", "[0,01,0,99]")
    assert not feedback.readable and "[0, 1, 0, 99]" in feedback.message and "[0.01, 0.99]" in feedback.message


def test_an_answer_of_another_form_is_told_what_was_read():
    feedback = check("weights", [1, 2, 3])
    assert not feedback.readable and feedback.message.startswith("Прочитано: [1, 2, 3] (форма [3]).")


def _exact(x: float) -> list[str]:
    """``x`` as the exact expressions a learner may write for it: a fraction p/q (q up to 16), m/√k and
    m/sqrt(k) (k among 2, 3, 5, 6, 8, 32 and 64); e/(e + 2) and its kind are left to the reader's own tests."""
    found = []
    for q in range(1, 17):
        if abs(x * q - round(x * q)) < 1e-9 and q > 1 and round(x * q):
            found.append(f"{round(x * q)}/{q}")
            break
    for k in (2, 3, 5, 6, 8, 32, 64):
        m = x * math.sqrt(k)
        if abs(m - round(m)) < 1e-9 and round(m):
            found += [f"{round(m)}/√{k}", f"{round(m)}/sqrt({k})"]
    return found


def _written(values: np.ndarray, draw) -> str:
    """``values`` written as a learner might: brackets or none, commas, semicolons or spaces, rounded, and a
    number that is a simple fraction or a root's quotient sometimes written so."""
    decimals = draw(st.sampled_from([2, 3, 4, 6]))
    comma = draw(st.booleans())

    def number(x):
        exact = _exact(float(x))
        if exact and draw(st.booleans()):
            return draw(st.sampled_from(exact))
        text = f"{x:.{decimals}f}"
        return text.replace(".", ",") if comma else text

    between = draw(st.sampled_from(["; ", "  ", " "] if comma else [", ", ",", " ", "; ", "  "]))
    rows = [between.join(number(x) for x in row) for row in np.atleast_2d(values)]
    trailing = draw(st.sampled_from(["", ","])) if not comma else ""
    if values.ndim == 1:
        return draw(st.sampled_from(["[{}]", "({})", "{}"])).format(rows[0]) + trailing
    semicolons_free = ";" not in between and (not comma or between == "  ")  # rows apart by ";" need rows without
    style = draw(st.sampled_from(["nested", "lines", "semicolons"] if semicolons_free else ["nested", "lines"]))
    if style == "lines":
        return "\n".join(rows)
    if style == "semicolons":
        return "[" + "; ".join(rows) + "]"
    return "[" + ", ".join(f"[{row}]" for row in rows) + "]" + trailing


@pytest.mark.slow
@pytest.mark.slow
@settings(max_examples=300, deadline=None, derandomize=True)
@given(data=st.data(), exercise_id=st.sampled_from(["scores", "weights", "scores-by-hand", "weights-by-hand",
                                                     "output-by-hand", "causal-rows", "identical-keys",
                                                     "value-gradient", "weight-gradient", "score-gradient",
                                                     "head-width", "temperature-limits", "single-token"]))
def test_right_answers_in_random_notations_are_accepted(data, exercise_id):
    expected = EXERCISES[exercise_id].expected(evidence())
    values = np.asarray(expected, dtype=float)
    if exercise_id == "single-token":
        values = values.ravel()
    answer = _written(values, data.draw)
    feedback = check(exercise_id, answer)
    assert feedback.correct, (answer, feedback.message)


# the other families: (exercise, its mistakes, its instance)
def _families():
    from llm_from_scratch.ch27 import mistakes as M

    ev = evidence()
    return [("output-shape", M.SHAPE_MISTAKES, ev.output_shape), ("single-token", M.SINGLE_TOKEN_MISTAKES, ev),
            ("identical-keys", M.IDENTICAL_KEYS_MISTAKES, ev), ("temperature-limits", M.TEMPERATURE_MISTAKES, ev),
            ("causal-rows", M.CAUSAL_MISTAKES, ev), ("head-width", M.HEAD_WIDTH_MISTAKES, ev),
            ("value-gradient", M.VALUE_GRADIENT_MISTAKES, ev), ("weight-gradient", M.WEIGHT_GRADIENT_MISTAKES, ev),
            ("score-gradient", M.SCORE_GRADIENT_MISTAKES, ev)]


FAMILY_CASES = [(exercise_id, mistake, np.asarray(value, dtype=float))
                for exercise_id, family, instance in _families() for mistake in family
                for value in (lambda g: g if isinstance(g, (list, tuple)) else [g])(mistake.steps[ANSWER](instance))]


@pytest.mark.parametrize("exercise_id, mistake, value", FAMILY_CASES,
                         ids=[f"{e}-{m.id}-{i}" for i, (e, m, _) in enumerate(FAMILY_CASES)])
@pytest.mark.parametrize("lang", ["ru", "en"])
def test_every_mistake_of_the_other_families_is_named(exercise_id, mistake, value, lang):
    set_language(lang)
    feedback = check(exercise_id, value.tolist())
    assert feedback.misconception == mistake.id and feedback.message == STRINGS.text_in(lang, mistake.message)


def test_a_score_gradient_whose_rows_do_not_sum_to_zero_is_told_so():
    """Every row of S̄ sums to 0 (a common shift of a row of scores changes no weight): an answer that breaks
    that, and is no named mistake, hears why."""
    feedback = check("score-gradient", [0.15, -0.10, 0.05])
    assert feedback.misconception == "gradient-rows-not-zero" and "0.1000" in feedback.message
    assert check("score-gradient", [0.15, -0.10, -0.05]).misconception is None, "a row that sums to 0 is not told so"
