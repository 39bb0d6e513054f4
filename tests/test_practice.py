"""Practice until mastered: fresh variants a hand can compute, skills and their mastery, a teacher's table."""

import math
import os
import pathlib
import re
import time

import numpy as np
import pytest
from support import tiered
from support.records import record as record_attempt

from llm_from_scratch.book import progress as lasting
from llm_from_scratch.book.formatting import matrix
from llm_from_scratch.book.mastery import Served, mastery
from llm_from_scratch.book.state import STATE
from llm_from_scratch.book.text import set_language
from llm_from_scratch.ch27.exercises import (
    EXERCISE_BOOK,
    check,
    check_code,
    hint,
    progress,
    reveal,
    variant,
)
from llm_from_scratch.ch27.exercises import mastery as chapter_mastery
from llm_from_scratch.ch27.variants import DISTINCT
from llm_from_scratch.engine.closed_form import closed_form_backward, closed_form_head

# what the book answers in code besides the notebooks' functions
attempted, learner = EXERCISE_BOOK.attempted, EXERCISE_BOOK.learner
next_variant, set_name = EXERCISE_BOOK.next_variant, EXERCISE_BOOK.set_name
COUNT = 200
# the quick tier's variants: between them every T and every d_k that the walk over COUNT meets (a test makes sure)
QUICK_VARIANTS = {1, 4, 13}
HAND = ("scores-by-hand", "weights-by-hand", "output-by-hand", "causal-rows", "score-gradient")


def softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def hand_variants(exercise_id):
    return [variant(exercise_id, n) for n in range(1, COUNT + 1)]


# --- variants a hand can compute -------------------------------------------------------------

@pytest.mark.slow  # each walks COUNT variants; the quick tier judges its chosen variants below
@pytest.mark.parametrize("exercise_id", [*HAND, "write-head", "write-backward"])
def test_hand_variants_obey_the_constraints(exercise_id):
    for given in hand_variants(exercise_id):
        q, k, v = (given[name][0] for name in ("query", "key", "value"))
        tokens, width = q.shape
        assert given["query"].shape == (1, tokens, width) and 2 <= tokens <= 3 and width in (1, 4), "hand-sized"
        assert all(np.array_equal(x, np.round(x)) and np.abs(x).max() <= 2 for x in (q, k, v)), "small integers"
        scaled = q @ k.T / math.sqrt(width)
        assert np.isin(scaled, (-1, 0, 1)).all(), "exponentials the chapter gives: e, 1, 1/e"
        assert not np.array_equal(q @ k.T, (q @ k.T).T), "QKᵀ is never symmetric"
        assert softmax(scaled).max() <= 0.9


@pytest.mark.parametrize("exercise_id", [*HAND, "output-shape", "head-width", "single-token", "identical-keys",
                                         "write-head"])
def test_the_first_variants_are_all_unlike_each_other_and_the_notebooks_one(exercise_id):
    shown = [repr(sorted((k, np.asarray(x).tolist()) for k, x in variant(exercise_id, n).items()))
             for n in range(1, DISTINCT + 1)]
    assert len(set(shown)) == DISTINCT
    if EXERCISE_BOOK.prompt(exercise_id):  # a code exercise's task is the notebook's prose
        assert EXERCISE_BOOK.prompt(exercise_id) not in {EXERCISE_BOOK.prompt(exercise_id, n) for n in range(1, 4)}


ANSWERS_OF_THEIR_OWN = [e.id for e in EXERCISE_BOOK.exercises.values() if e.varies and e.kind == "numbers"
                        and e.id not in ("first-look", "identical-keys")]  # two indices; 1/T by design


@pytest.mark.parametrize("learner_id", tiered(["learner-a", "learner-b", "learner-c", "learner-d", "learner-e",
                                              "learner-f"], {"learner-a"}))
def test_every_question_with_variants_has_at_least_ten_answers_over_thirty_variants(learner_id, monkeypatch):
    """Counted as sets at two decimals, as a hand answers (a pair swapped is one answer): a learner who has seen a
    few answers cannot pick the next one from them."""
    monkeypatch.setenv(lasting.LEARNER_ENV, learner_id)
    for exercise_id in ANSWERS_OF_THEIR_OWN:
        answers = {tuple(sorted(np.round(np.ravel(EXERCISE_BOOK[exercise_id].expected(
            EXERCISE_BOOK.drawn(exercise_id, n))), 2))) for n in range(1, 31)}
        assert len(answers) >= 10, (exercise_id, len(answers))


def test_a_gradient_questions_weights_are_none_a_weights_question_of_another_family_answers():
    """What 07's review forms print (A, to two decimals) is no row of two weights the worked or the second example's
    families give."""
    def rows(exercise_id, run):
        weights = (getattr(EXERCISE_BOOK.drawn(exercise_id, n), run).weights for n in range(1, 31))
        return {round(float(x), 2) for w in weights if w.shape[-1] == 2 for x in w.ravel()}
    assert not rows("value-gradient", "worked") & (rows("weights", "worked") | rows("weights-by-hand", "hand"))


@pytest.mark.parametrize("n", range(0, 31))
def test_first_looks_explanation_says_of_each_variant_which_key_wins(n):
    """The reveal reasons from this variant's own products, never from the notebook's example."""
    given = variant("first-look", n) if n else None
    q, k = (given["query"][0], given["key"][0]) if n else (np.array([[0, 3], [2, -1]]), np.array([[3, 0], [-1, 2]]))
    check("first-look", [0, 0], variant=n)
    said = reveal("first-look", n).message
    for i, scores in enumerate(q @ k.T):
        more, less = int(scores.argmax()), int(scores.argmin())
        assert f"у q_{i} произведение с k_{more} больше, чем с k_{less}" in said, said


def test_the_same_learner_gets_the_same_variant_again_and_two_learners_get_different_ones(monkeypatch, tmp_path):
    first = variant("scores-by-hand", 3)
    STATE.stores.clear()
    assert all(np.array_equal(first[k], x) for k, x in variant("scores-by-hand", 3).items())
    monkeypatch.setenv(lasting.ENV, str(tmp_path / "other.json"))
    monkeypatch.setenv(lasting.LEARNER_ENV, "another-learner")
    assert learner().id == "another-learner"
    other = variant("scores-by-hand", 3)
    assert not all(np.array_equal(first[k], other[k]) if first[k].shape == other[k].shape else False for k in first)


def test_a_new_learner_gets_a_random_id_that_lasts(monkeypatch, tmp_path):
    monkeypatch.delenv(lasting.LEARNER_ENV)
    ids = []
    for name in ("a.json", "b.json"):
        monkeypatch.setenv(lasting.ENV, str(tmp_path / name))
        ids.append(learner().id)
        STATE.stores.clear()
        assert learner().id == ids[-1], "the id is kept in the store"
    assert ids[0] != ids[1] and all(len(i) == 12 for i in ids)
    assert set_name("Маша").name == "Маша" and learner().id == ids[-1]


def hand_shape(n: int) -> tuple[int, int]:
    return variant("scores-by-hand", n)["query"].shape[1:]


@pytest.mark.slow  # it walks COUNT variants
def test_the_quick_variants_meet_every_token_count_and_key_width_of_the_walk():
    """The quick tier's variants are sharp: every T and every d_k of the hand family's first COUNT variants is among
    theirs."""
    quick, walked = ({hand_shape(n) for n in ns} for ns in (QUICK_VARIANTS, range(1, COUNT + 1)))
    for axis in (0, 1):
        assert {shape[axis] for shape in quick} == {shape[axis] for shape in walked}


@pytest.mark.parametrize("n", tiered(list(range(1, COUNT + 1)), QUICK_VARIANTS))
def test_on_every_hand_variant_the_engine_and_plain_numpy_are_right_and_named_mistakes_are_named(n):
    given = variant("scores-by-hand", n)
    q, k, v = (given[name][0] for name in ("query", "key", "value"))
    root = math.sqrt(q.shape[1])
    raw = q @ k.T
    weights = softmax(raw / root)
    assert check("scores-by-hand", raw, variant=n).correct
    assert check("weights-by-hand", weights.round(2), variant=n).correct
    assert check("output-by-hand", (weights @ v).round(2), variant=n).correct
    head = EXERCISE_BOOK.drawn("scores-by-hand", n).hand
    assert check("weights-by-hand", head.weights[0], variant=n).correct, "the engine's own answer"
    row, row_gradient = weights[0].round(3), v[:, 0]  # L = o_00: the first row of Ā is the first column of V
    assert check("score-gradient", row * (row_gradient - row @ row_gradient), variant=n).correct
    assert check("scores-by-hand", raw.T, variant=n).misconception == "transposed-scores"
    mistakes = {"transposed-scores": softmax(raw.T / root), "missing-scale": softmax(raw),
                "columns-normalized": softmax(raw / root, axis=0)}
    for name, answer in mistakes.items():
        if np.abs(answer - weights).max() > 0.02:  # with d_k = 1 a missing scale is no mistake
            assert check("weights-by-hand", answer.round(2), variant=n).misconception == name, name


@pytest.mark.parametrize("n", tiered(list(range(1, COUNT + 1)), QUICK_VARIANTS))
def test_on_every_variant_of_the_worked_example_plain_numpy_is_right_and_a_transpose_is_not(n):
    """The first look, the scores and the first row of weights on a fresh pair of tokens, and the two gradients of
    O = AV with Ō = I on a pair of their own; the task shows what it is computed from."""
    given = variant("scores", n)
    q, k, v = (given[name][0] for name in ("query", "key", "value"))
    raw = q @ k.T
    weights = softmax(raw / math.sqrt(q.shape[1]))
    assert check("first-look", weights.argmax(axis=1), variant=n).correct
    assert check("scores", raw, variant=n).correct
    assert check("scores", raw.T, variant=n).misconception == "transposed-scores"
    assert check("weights", weights[0].round(3), variant=n).correct
    prompts = {e: EXERCISE_BOOK.prompt(e, n) for e in ("first-look", "scores", "weights", "weight-gradient")}
    assert all(f"K = {matrix(k, 1)}" in prompts[e] for e in ("first-look", "scores", "weights"))
    assert f"d_k = {k.shape[1]}" in prompts["weights"]
    given = variant("value-gradient", n)  # the gradients' own family: two tokens, other weights
    q, k, v = (given[name][0] for name in ("query", "key", "value"))
    shown = softmax(q @ k.T / math.sqrt(q.shape[1])).round(3)  # the task gives A to three decimals
    assert check("value-gradient", shown.T, variant=n).correct and not check("value-gradient", shown, variant=n).correct
    assert check("weight-gradient", v.T, variant=n).correct and not check("weight-gradient", v, variant=n).correct
    assert f"V = {matrix(v, 1)}" in EXERCISE_BOOK.prompt("weight-gradient", n)


@pytest.mark.parametrize("n", tiered(list(range(1, COUNT + 1)), QUICK_VARIANTS))
def test_the_other_families_are_right_on_a_plain_computation(n):
    shapes = variant("output-shape", n)
    assert check("output-shape", [*shapes["query_shape"][:2], shapes["value_shape"][2]], variant=n).correct
    assert check("output-shape", shapes["query_shape"], variant=n).misconception == "dk-for-dv"
    split = variant("head-width", n)
    width = split["model_width"] // split["heads"]
    assert check("head-width", [width, 1 / math.sqrt(width)], variant=n).correct
    single = variant("single-token", n)
    assert check("single-token", [1, *single["value"][0, 0]], variant=n).correct
    equal = variant("identical-keys", n)
    tokens = equal["key"].shape[1]
    assert np.ptp(equal["key"][0], axis=0).max() == 0, "every key row is the same"
    assert check("identical-keys", [1 / tokens] * tokens, variant=n).correct
    causal = variant("causal-rows", n)
    q, k = causal["query"][0], causal["key"][0]
    visible = np.tril(np.ones((len(q), len(q)))) > 0
    scores = np.where(visible, q @ k.T / math.sqrt(q.shape[1]), -np.inf)
    assert check("causal-rows", softmax(scores).round(2), variant=n).correct
    unscaled = softmax(np.where(visible, q @ k.T, -np.inf))
    if np.abs(unscaled - softmax(scores)).max() > 0.02:
        assert check("causal-rows", unscaled.round(2), variant=n).misconception == "missing-scale"
    assert check("head-width", [width, round(1 / math.sqrt(width), 2)], variant=n).correct, "two decimals"
    printed = re.search(r"\[[^\]]*\]", reveal("identical-keys", n).message).group(0)
    assert check("identical-keys", printed, variant=n).correct, f"the answer the reveal prints, {printed}, is right"


@pytest.mark.parametrize("n", [1, 2])
def test_a_code_variant_is_a_fresh_set_of_hidden_cases(n):
    right = check_code("write-head", lambda q, k, v: closed_form_head(q, k, v), variant=n)
    assert right.correct
    backward = check_code("write-backward", lambda q, k, v, g: closed_form_backward(q, k, v, g), variant=n)
    assert backward.correct
    assert variant("write-head", n)["query"].shape[0] == 1


def test_a_variant_prompt_shows_its_own_inputs_and_the_form_its_size():
    given = variant("weights-by-hand", 1)
    tokens = given["query"].shape[1]
    assert f"{tokens}×{tokens}" in EXERCISE_BOOK.form("weights-by-hand", 1)
    prompt = EXERCISE_BOOK.prompt("causal-rows", 1)
    tokens = variant("causal-rows", 1)["query"].shape[1]
    assert "второго примера" not in prompt and "Q = [[" in prompt and f"T = {tokens}" in prompt
    assert "второго примера" in EXERCISE_BOOK.prompt("causal-rows")


def wrong_scores(n):
    tokens = variant("scores-by-hand", n)["query"].shape[1]
    return np.zeros((tokens, tokens))


def test_hints_and_reveal_follow_the_variant():
    assert not reveal("scores-by-hand", 1).shown and not hint("scores-by-hand", 1).step
    assert not check("scores-by-hand", wrong_scores(1), variant=1).correct
    assert reveal("scores-by-hand", 1).shown and not reveal("scores-by-hand", 2).shown
    assert hint("scores-by-hand", 1).step == 1 and hint("scores-by-hand", 2).step == 0


VARIED = [i for i, e in EXERCISE_BOOK.exercises.items() if e.varies]


@pytest.mark.parametrize("exercise_id", tiered(VARIED, {"single-token", "write-head"}))
def test_every_hint_and_answer_of_a_variant_can_be_told(exercise_id):
    """Hints and explanations name rows and columns: on 2×2 and 4×4 variants too."""
    for n in range(1, 31):
        record_attempt(lasting.store(), "ch27", exercise_id, False, n)
        assert reveal(exercise_id, n).shown
        steps = hint(exercise_id, n).steps
        assert all(hint(exercise_id, n).message for _ in range(steps))
        assert EXERCISE_BOOK.prompt(exercise_id, n) or EXERCISE_BOOK.exercises[exercise_id].kind == "code"


def test_an_exercise_without_variants_says_so_in_the_learners_language(english):
    assert "has one variant" in check("permutation", "d", variant=1).message
    set_language("ru")
    with pytest.raises(ValueError, match="один вариант"):  # variant() gives inputs: a misuse cannot give any
        variant("temperature-limits", 1)
    said = check("scores-by-hand", wrong_scores(1), variant=-1)
    assert "целое число" in said.message and not said.readable and not attempted("scores-by-hand")
    assert "целое число" in hint("scores-by-hand", variant=True).message


def test_a_far_variant_is_as_quick_as_a_near_one_and_stays_the_same():
    start = time.perf_counter()
    far = variant("scores-by-hand", 10**9)
    assert time.perf_counter() - start < 1.0
    assert all(np.array_equal(far[k], variant("scores-by-hand", 10**9)[k]) for k in far)
    assert not np.array_equal(far["query"], variant("scores-by-hand", 10**9 + 1)["query"]) or not np.array_equal(
        far["key"], variant("scores-by-hand", 10**9 + 1)["key"])


@pytest.mark.slow
def test_the_next_variant_is_the_first_not_tried_in_the_family():
    assert next_variant("weights-by-hand") == 1
    check("scores-by-hand", wrong_scores(1), variant=1)
    check("scores-by-hand", wrong_scores(3), variant=3)
    assert next_variant("weights-by-hand") == 3, "the next step of the example just computed"
    assert next_variant("scores-by-hand") == 4 and next_variant("causal-rows") == 1


# --- mastery ---------------------------------------------------------------------------------

def record(*attempts, hints=None):
    return {"attempts": [{"variant": n, "correct": c, "hinted": h} for n, c, h in attempts], "hints": hints or {}}


SERVED = (Served("a", ("skill.x",), varied=True, code=False), Served("b", ("skill.x", "skill.y"), varied=False,
                                                                     code=False),
          Served("c", ("skill.z",), varied=False, code=True), Served("d", ("skill.w",), varied=True, code=False))


@pytest.mark.parametrize("records, mastered", [
    ({}, set()),
    ({"a": record((0, True, False), (1, True, False))}, set()),  # variant 0 sits in the fold: it does not count
    ({"a": record((1, True, False), (2, True, False))}, {"skill.x"}),  # two fresh variants of one question
    ({"a": record((1, True, False)), "b": record((0, True, False))}, {"skill.x", "skill.y"}),  # two questions
    ({"a": record((1, False, False), (1, True, False), (2, True, False))}, set()),  # only first attempts count
    ({"a": record((1, True, True), (2, True, False))}, set()),  # after a hint it does not count
    ({"b": record((0, True, False))}, {"skill.y"}),  # a skill served by one question alone
    ({"c": record((1, True, False), (2, True, False))}, {"skill.z"}),  # a code exercise counts once, and is enough
    ({"d": record((1, True, False))}, set()),  # a lone question with variants still needs two of them
])
def test_the_mastery_rule(records, mastered):
    found = mastery(SERVED, records)
    assert {s for s, m in found.items() if m.mastered} == mastered
    assert found["skill.z"].required == 1 and found["skill.x"].required == 2 and found["skill.w"].required == 2


def test_mastery_counts_attempts_successes_and_hints():
    found = mastery(SERVED, {"a": record((1, False, False), (1, True, True), (2, True, False), hints={"1": 2})})
    assert (found["skill.x"].attempts, found["skill.x"].first_right, found["skill.x"].hints) == (3, 1, 2)


def test_every_exercise_serves_a_skill_and_every_skill_has_a_name_in_both_editions():
    skills = chapter_mastery()
    assert all(e.skills for e in EXERCISE_BOOK.exercises.values())
    for language in ("ru", "en"):
        assert all(EXERCISE_BOOK.strings.text_in(language, s) for s in skills)


@pytest.mark.parametrize("language, words", [("ru", ("Навыки", "освоен", "засчитано 2 из 2")),
                                             ("en", ("Skills", "mastered", "2 of 2 counted"))])
def test_progress_shows_the_skills_table_in_the_editions_language(language, words):
    set_language(language)
    for n in (1, 2):
        given = variant("output-shape", n)
        check("output-shape", [*given["query_shape"][:2], given["value_shape"][2]], variant=n)
    shown = repr(progress())
    assert all(w in shown for w in words)
    assert chapter_mastery()["skill.shapes"].mastered


def test_mastery_survives_a_kernel_restart_and_a_corrupt_store_loses_nothing():
    for n in (1, 2):
        given = variant("output-shape", n)
        check("output-shape", [*given["query_shape"][:2], given["value_shape"][2]], variant=n)
    STATE.stores.clear()
    assert chapter_mastery()["skill.shapes"].mastered
    file = pathlib.Path(os.environ[lasting.ENV])
    kept = file.read_bytes()
    file.write_text("{broken")
    assert not chapter_mastery()["skill.shapes"].mastered
    assert [p.read_text() for p in file.parent.glob("progress.backup-*")] == ["{broken"]
    file.write_bytes(kept)
    assert chapter_mastery()["skill.shapes"].mastered


def test_a_verdict_on_the_notebooks_example_is_told_the_variants_this_learner_saw(monkeypatch):
    """After a fresh variant, an answer on the notebook's own example is judged knowing that variant (a judge may
    name an answer made on it): the learner's own draw, the very one they were shown."""
    assert not check("scores", [[0, 0], [0, 0]], 1).correct
    judged, real = [], EXERCISE_BOOK.judge.judge

    def judge(exercise, answer, ev, values=None):
        judged.append(ev)
        return real(exercise, answer, ev, values)

    monkeypatch.setattr(EXERCISE_BOOK.judge, "judge", judge)
    assert not check("scores", [[0, 0], [0, 0]]).correct
    told = judged[-1].seen
    assert [ev.draw.variant for ev in told] == [1] and told[0] is EXERCISE_BOOK.drawn("scores", 1)
