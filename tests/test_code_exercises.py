"""Code exercises: right heads pass however written, each mistake is named, nothing the learner's code does breaks
the check, and a function that never returns is stopped."""

import linecache
import math
import re
import signal
import threading
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import stable_id

from llm_from_scratch.book import code_check
from llm_from_scratch.book.code_check import Case
from llm_from_scratch.ch27.evidence import evidence
from llm_from_scratch.ch27.exercises import EXERCISE_BOOK, check_code
from llm_from_scratch.ch27.exercises.shapes import buggy_head
from llm_from_scratch.engine.closed_form import closed_form_backward, closed_form_head

CYRILLIC = re.compile("[а-яА-ЯёЁ]")


def scores(q, k):
    return q @ k.swapaxes(1, 2) / np.sqrt(q.shape[-1])


def softmax(s, axis=-1):
    e = np.exp(s - s.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


# --- heads, right and wrong ---------------------------------------------------------------

def right_head(q, k, v):
    return softmax(scores(q, k)) @ v


def softmax_axis(q, k, v):
    return softmax(scores(q, k), axis=1) @ v


def missing_scale(q, k, v):
    return softmax(q @ k.swapaxes(1, 2)) @ v


def scale_by_dk(q, k, v):
    return softmax(q @ k.swapaxes(1, 2) / q.shape[-1]) @ v


def no_max_shift(q, k, v):
    e = np.exp(scores(q, k))
    return e / e.sum(axis=-1, keepdims=True) @ v


def transposed_scores(q, k, v):
    return softmax(k @ q.swapaxes(1, 2) / np.sqrt(q.shape[-1])) @ v


def returns_weights(q, k, v):
    return softmax(scores(q, k))


def mutates_input(q, k, v):
    q /= np.sqrt(q.shape[-1])
    return softmax(q @ k.swapaxes(1, 2)) @ v


def drops_batch(q, k, v):
    return right_head(q, k, v)[0]


def forgets_return(q, k, v):
    right_head(q, k, v)


def divides_by_zero(q, k, v):
    e = np.exp(scores(q, k))
    return e / (e.sum(axis=-1, keepdims=True) - e.sum(axis=-1, keepdims=True)) @ v


def shifts_by_global_max(q, k, v):
    s = scores(q, k)
    e = np.exp(s - s.max())
    return e / e.sum(axis=-1, keepdims=True) @ v


def undefined_name(q, k, v):
    weights = soft_max(scores(q, k))  # noqa: F821 - the learner's typo
    return weights @ v


# A wrong function's lines are read on the first case it gets wrong, the hidden random ones first, and the message
# names that case; a function that raises or returns what is no array is told so on the first case it does.
WORKED = "на разобранном примере"
RANDOM = "на скрытом случае B = 2, T = 3, d_k = 4, d_v = 5"
HEAD_MISTAKES = [
    (softmax_axis, "softmax-axis", RANDOM, "softmax идёт вниз по столбцам (axis=1)"),
    (missing_scale, "missing-scale", RANDOM, "Оценки не делятся на √d_k"),
    (scale_by_dk, "scale-by-dk", RANDOM, "Оценки делятся на d_k, а не на √d_k"),
    (no_max_shift, "no-max-shift", "с большими оценками", "exp переполняется на больших оценках"),
    (transposed_scores, "transposed-scores", RANDOM, "Оценки — это K Qᵀ"),
    (returns_weights, "returns-weights", RANDOM, "Функция возвращает веса A"),
    (mutates_input, "mutates-input", RANDOM, "свои входы: q (замечено"),
    (drops_batch, "wrong-shape", "на разобранном примере", "форму [2,2], а должна вернуть массив O формы [1,2,2]"),
    (forgets_return, "wrong-shape", "на разобранном примере", "вернула None"),
    (divides_by_zero, "departs-output", RANDOM, "inf или nan стоят в 30 из 30 её элементов"),
    (shifts_by_global_max, "max-of-whole", "с большими оценками", "Вычитается максимум всех оценок"),
    (undefined_name, "raised", "на разобранном примере", "NameError: name 'soft_max' is not defined"),
]


def test_the_closed_form_and_a_written_out_head_pass():
    for fn in (closed_form_head, right_head):
        feedback = check_code("write-head", fn)
        assert feedback.correct and feedback.misconception is None, feedback.message
        assert "во всех 6 случаях" in feedback.message


@pytest.mark.parametrize("fn, misconception, case, words", HEAD_MISTAKES, ids=lambda x: getattr(x, "__name__", ""))
def test_each_head_mistake_is_named_with_the_case_or_probe_that_exposed_it(fn, misconception, case, words):
    feedback = check_code("write-head", fn)
    assert not feedback.correct and feedback.readable
    assert feedback.misconception == misconception
    assert case in feedback.message and words in feedback.message, feedback.message


def test_a_raised_exception_shows_the_learners_line_and_no_traceback_from_the_package():
    message = check_code("write-head", undefined_name).message
    assert "weights = soft_max(scores(q, k))" in message
    assert f"Строка {undefined_name.__code__.co_firstlineno + 1} вашего кода" in message
    assert "Traceback" not in message and "llm_from_scratch" not in message


def run_cell(filename, source, namespace):
    """Run ``source`` as IPython runs a cell: compiled under the cell's file name, its lines in linecache."""
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    exec(compile(source, filename, "exec"), namespace)


@pytest.mark.parametrize("cells", [("<ipython-input-7-0a1b2c>", "<ipython-input-8-3d4e5f>"),
                                   ("/tmp/ipykernel_4242/1111.py", "/tmp/ipykernel_4242/2222.py")])
def test_the_line_is_found_in_a_notebook_cell_even_inside_a_helper_from_another_cell(cells):
    """A helper in another cell raises; the innermost line in the learner's cells is the helper's."""
    namespace = {"np": np}
    run_cell(cells[0], "def normalise(s):\n    return s / undefined\n", namespace)
    run_cell(cells[1], "def my_head(q, k, v):\n    return normalise(q @ k.swapaxes(1, 2)) @ v\n", namespace)
    feedback = check_code("write-head", namespace["my_head"])
    assert feedback.misconception == "raised"
    assert "NameError" in feedback.message and "Строка 2 вашего кода: return s / undefined" in feedback.message


# --- backward, right and wrong ------------------------------------------------------------

def backward(q, k, v, upstream, scale_q=True, scale_k=True, row_sum=True, swap=False, shift=True):
    root = np.sqrt(q.shape[-1])
    s = scores(q, k)
    a = softmax(s) if shift else np.exp(s) / np.exp(s).sum(axis=-1, keepdims=True)
    da = upstream @ v.swapaxes(1, 2)
    ds = a * (da - (a * da).sum(axis=-1, keepdims=True)) if row_sum else a * da
    for_q, for_k = (ds.swapaxes(1, 2), ds) if swap else (ds, ds.swapaxes(1, 2))
    return (for_q @ k / (root if scale_q else 1), for_k @ q / (root if scale_k else 1),
            a.swapaxes(1, 2) @ upstream)


BACKWARD_MISTAKES = [
    (lambda *x: backward(*x, scale_q=False), "query-scale-missing", "Q̄ не делится на √d_k"),
    (lambda *x: backward(*x, scale_k=False), "key-scale-missing", "K̄ не делится на √d_k"),
    (lambda *x: backward(*x, scale_q=False, scale_k=False), "grad-scale-missing", "Q̄ и K̄ не делятся на √d_k"),
    (lambda *x: backward(*x, row_sum=False), "softmax-jacobian", "S̄ = A ⊙ Ā забывает"),
    (lambda *x: backward(*x, swap=True), "transposed-grad", "S̄ и S̄ᵀ перепутаны"),
    (lambda *x: backward(*x, shift=False), "no-max-shift", "exp переполняется"),
    (lambda *x: backward(*x)[:2], "wrong-shape", "вернула tuple длины 2"),
    (lambda *x: np.stack(backward(*x)), "wrong-shape", "вернула ndarray"),
    (lambda *x: None, "wrong-shape", "вернула None"),
    (lambda q, k, v, upstream: (q, k, v, upstream)[4], "raised", "IndexError"),
]


def test_the_closed_form_backward_and_a_written_out_one_pass():
    for fn in (closed_form_backward, backward):
        feedback = check_code("write-backward", fn)
        assert feedback.correct, feedback.message


@pytest.mark.parametrize("fn, misconception, words", BACKWARD_MISTAKES, ids=[m for _, m, _ in BACKWARD_MISTAKES])
def test_each_backward_mistake_is_named(fn, misconception, words):
    feedback = check_code("write-backward", fn)
    assert not feedback.correct and feedback.misconception == misconception
    assert words in feedback.message, feedback.message


def test_a_wrong_gradient_no_slip_explains_gets_the_line_where_its_numbers_part():
    feedback = check_code("write-backward", lambda *x: (*backward(*x)[:2], 2 * backward(*x)[2]))
    assert feedback.misconception == "departs-value-gradient"
    assert "вашего кода — место, где её числа расходятся" in feedback.message
    assert "Её числа — значение «градиент значений V̄ = AᵀŌ», умноженное на 2." in feedback.message


# --- right heads written in other ways ----------------------------------------------------

def scores_matmul(q, k):
    return q @ np.swapaxes(k, -1, -2)


def scores_einsum(q, k):
    return np.einsum("btd,bsd->bts", q, k)


def scores_loops(q, k):
    out = np.zeros((q.shape[0], q.shape[1], k.shape[1]))
    for b in range(q.shape[0]):
        for i in range(q.shape[1]):
            for j in range(k.shape[1]):
                out[b, i, j] = sum(float(x) * float(y) for x, y in zip(q[b, i], k[b, j]))
    return out


def softmax_shift(s):
    return softmax(s)


def softmax_logsumexp(s):
    m = s.max(axis=-1, keepdims=True)
    return np.exp(s - m - np.log(np.exp(s - m).sum(axis=-1, keepdims=True)))


def softmax_loops(s):
    out = np.empty_like(s)
    for index in np.ndindex(s.shape[:-1]):
        row = [math.exp(x - max(s[index])) for x in s[index]]
        out[index] = [x / sum(row) for x in row]
    return out


def mix_matmul(a, v):
    return np.matmul(a, v)


def mix_einsum(a, v):
    return np.einsum("bts,bsd->btd", a, v)


def mix_loops(a, v):
    return np.array([[sum(a[b, i, j] * v[b, j] for j in range(a.shape[2])) for i in range(a.shape[1])]
                     for b in range(a.shape[0])])


@settings(max_examples=25, deadline=None)
@given(st.sampled_from([scores_matmul, scores_einsum, scores_loops]),
       st.sampled_from(["scores", "query", "both"]),
       st.sampled_from([softmax_shift, softmax_logsumexp, softmax_loops]),
       st.sampled_from([mix_matmul, mix_einsum, mix_loops]))
def test_right_heads_pass_however_they_are_written(score, scale_on, normalise, mix):
    def my_head(q, k, v):
        root = math.sqrt(q.shape[-1])
        if scale_on == "scores":
            s = score(q, k) / root
        elif scale_on == "query":
            s = score(q / root, k)
        else:
            s = score(q / math.sqrt(root), k / math.sqrt(root))
        return mix(normalise(s), v)

    feedback = check_code("write-head", my_head)
    assert feedback.correct, feedback.message


# --- hostile functions and values ----------------------------------------------------------

class BrokenMessage(Exception):
    def __str__(self):
        raise RuntimeError("no message")


class CallableObject:
    def __call__(self, q, k, v):
        return right_head(q, k, v)


def recurse(q, k, v):
    return recurse(q, k, v)


def raise_broken(q, k, v):
    raise BrokenMessage


def exits(q, k, v):
    raise SystemExit(1)


def generator(q, k, v):
    yield right_head(q, k, v)


RETURNS = [None, [], [1, 2], 5, "abc", object(), (x for x in range(3)), np.array([1j]), ["a", "b"],
           [[1, 2], [3]], {"O": 1}, 1e308, float("nan"), np.empty((1, 2, 2), dtype=object), True]
FUNCTIONS = [lambda: 0, lambda q, k: 0, CallableObject(), recurse, raise_broken, exits, generator, print, len,
             np.exp, type]


@pytest.mark.parametrize("exercise_id", ["write-head", "write-backward"])
@pytest.mark.parametrize("fn", [(lambda *args, r=r: r) for r in RETURNS] + FUNCTIONS, ids=stable_id)
def test_whatever_the_function_returns_or_does_the_check_answers(exercise_id, fn):
    feedback = check_code(exercise_id, fn)
    assert feedback.message and feedback.readable and EXERCISE_BOOK.attempted(exercise_id)
    assert "Traceback" not in feedback.message


@pytest.mark.parametrize("answer", [..., None, 5, "def my_head(q, k, v): ...", [right_head], right_head(
    *(np.ones((1, 2, 2)),) * 3)], ids=stable_id)
@pytest.mark.parametrize("exercise_id", ["write-head", "write-backward"])
def test_no_function_is_not_an_attempt(exercise_id, answer):
    feedback = check_code(exercise_id, answer)
    assert not feedback.correct and not feedback.readable
    assert ("Замените ... в теле функции" if answer is ... else "Нужна функция") in feedback.message
    assert not EXERCISE_BOOK.attempted(exercise_id)


def test_the_stub_that_returns_ellipsis_is_a_prompt_not_a_verdict_and_not_an_attempt():
    def my_head(q, k, v):
        return ...  # the stored notebook's stub

    feedback = check_code("write-head", my_head)
    assert feedback.pending and repr(feedback) == "Замените ... в теле функции своим кодом."
    assert "✘" not in feedback._repr_html_()
    assert not EXERCISE_BOOK.attempted("write-head")


# --- the time limit -----------------------------------------------------------------------

def endless(*args):
    while True:
        pass


def endless_and_stubborn(*args):
    while True:
        try:
            time.sleep(0.01)
        except Exception:
            pass


def slow(*args):
    total = 0
    for i in range(10**10):
        total += i
    return total


@pytest.mark.slow
def test_an_endless_loop_is_stopped_and_its_line_named():
    started = time.monotonic()
    feedback = check_code("write-head", endless)
    assert time.monotonic() - started < code_check.TIME_LIMIT + 1
    assert feedback.misconception == "timeout" and "дольше 3 с" in feedback.message
    assert feedback.message.endswith("вашего кода: while True:")


ONE = Case("one", (np.ones(2),), (np.ones(2),))


@pytest.mark.parametrize("fn", [endless, endless_and_stubborn, slow])
def test_on_the_main_thread_the_timer_stops_pure_python_loops(fn):
    started = time.monotonic()
    finding = code_check.run_cases(fn, [ONE], seconds=0.2)
    assert finding.problem == "timeout" and finding.case is ONE
    assert time.monotonic() - started < 1.5


@pytest.mark.slow
def test_the_timer_leaves_someone_elses_alarm_in_place():
    fired = []

    def theirs(*_):
        fired.append(True)

    previous = signal.signal(signal.SIGALRM, theirs)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.6)
        assert code_check.run_cases(endless, [ONE], seconds=0.1).problem == "timeout"
        assert signal.getsignal(signal.SIGALRM) is theirs and not fired
        time.sleep(1)
        assert fired, "the earlier alarm still fires"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@pytest.mark.parametrize("fn", [endless, slow])
def test_off_the_main_thread_a_loop_is_stopped_in_its_thread(fn):
    findings = []
    caller = threading.Thread(target=lambda: findings.append(code_check.run_cases(fn, [ONE], seconds=0.2)))
    started = time.monotonic()
    caller.start()
    caller.join(5)
    assert findings and findings[0].problem == "timeout"
    assert time.monotonic() - started < 2
    assert not [t for t in threading.enumerate() if t.name == "learner-code"], "the loop's thread has stopped"


# --- the contract beside the other exercises ----------------------------------------------

def test_attempts_count_and_the_solution_opens_only_after_one():
    assert not EXERCISE_BOOK.reveal("write-head").shown
    check_code("write-head", missing_scale)
    rows = {i: (count, right) for i, count, right in EXERCISE_BOOK.progress().rows}
    assert rows["write-head"] == (1, False) and rows["write-backward"] == (0, False)
    solution = EXERCISE_BOOK.reveal("write-head")
    assert solution.shown and "def closed_form_head(q: np.ndarray, k: np.ndarray, v: np.ndarray)" in solution.message
    assert "def array_softmax(" in solution.message and "def attention_weights(" in solution.message
    check_code("write-backward", closed_form_backward)
    assert "def closed_form_backward(q: np.ndarray" in EXERCISE_BOOK.reveal("write-backward").message


def test_feedback_speaks_english(english):
    for exercise_id, fn in (("write-head", transposed_scores), ("write-head", undefined_name),
                            ("write-head", forgets_return), ("write-backward", closed_form_backward)):
        feedback = check_code(exercise_id, fn)
        assert not CYRILLIC.search(repr(feedback) + EXERCISE_BOOK.reveal(exercise_id).message), feedback.message
    assert "The scores are K Qᵀ" in check_code("write-head", transposed_scores).message


# --- the bug hunt ------------------------------------------------------------------------------

def test_the_buggy_head_normalises_columns_and_keeps_its_shape():
    run = evidence().worked
    weights, output = buggy_head(run.query, run.key, run.value)
    assert np.allclose(weights.sum(axis=1), 1) and not np.allclose(weights.sum(axis=2), 1)
    assert output.shape == run.output.shape


@pytest.mark.parametrize("answer, misconception, words", [
    ("c", None, "суммы столбцов — [1,1]"),
    ("a", "shape-reveals-axis", "формы [1,2,2]"),
    ("b", "negative-weights", "exp положительна"),
    ("d", "symmetry-hides-axis", "суммы её строк — [1.013317,0.986683]"),
])
def test_the_bug_hunt_names_each_misconception(answer, misconception, words):
    feedback = EXERCISE_BOOK.check("bug-hunt", answer)
    assert feedback.correct == (answer == "c") and feedback.misconception == misconception
    assert words in feedback.message, feedback.message


# --- the search names slips written as a learner writes them; else the first stage that differs ----------------

def _divided_by(divisor_of):
    return lambda q, k, v: softmax(q @ k.swapaxes(1, 2) / divisor_of(q, k, v)) @ v


SEARCHED_HEADS = [
    (_divided_by(lambda q, k, v: np.sqrt(q.shape[1])), "width-from-tokens", "q.shape[1] (или len(q[0])) — это T"),
    (_divided_by(lambda q, k, v: np.sqrt(v.shape[2])), "width-from-values", "v.shape[-1] — это d_v"),
    (_divided_by(lambda q, k, v: 3.0), "departs-raw-scores", "Её числа — значение «оценки QKᵀ», умноженное на 0.3333"),
    (lambda q, k, v: softmax(q @ k.swapaxes(1, 2)) / np.sqrt(q.shape[-1]) @ v, "scale-after-softmax",
     "1/√d_k применяется после softmax"),
    (lambda q, k, v: (lambda s: s / s.sum(-1, keepdims=True))(scores(q, k)) @ v, "no-exponential",
     "Экспоненты нет"),
    (lambda q, k, v: softmax(scores(q, k)) @ k, "mixed-keys", "Веса смешивают ключи"),
    (lambda q, k, v: softmax(scores(q, k)).swapaxes(1, 2) @ v, "transposed-weights", "смешиваются матрицей Aᵀ"),
    (lambda q, k, v: softmax(q @ k.reshape(-1, q.shape[-1]).T / np.sqrt(q.shape[-1])) @ v.reshape(-1, v.shape[-1]),
     "batch-leak", "Пакет сплющен"),
    (lambda q, k, v: np.full(q.shape[:2] + (q.shape[1],), 1 / q.shape[1]) @ v, "uniform-weights",
     "Все ключи получают одинаковый вес"),
    (lambda q, k, v: softmax(scores(q, k)) ** 2 @ v, "departs-output", "веса A (строка"),
    (lambda q, k, v: softmax(scores(q, k)) @ v + 1, "departs-output", "веса A (строка"),
    (lambda q, k, v: softmax(k @ q.swapaxes(1, 2) / q.shape[-1]) @ v, "scale-by-dk+transposed-scores",
     "Оценки делятся на d_k, а не на √d_k: разброс скалярного произведения растёт как √d_k, а не как d_k.\n"
     "Оценки — это K Qᵀ"),
]


@pytest.mark.parametrize("fn, misconception, words", SEARCHED_HEADS, ids=[m for _, m, _ in SEARCHED_HEADS])
def test_the_search_names_the_slip_or_the_line_where_the_numbers_part(fn, misconception, words):
    feedback = check_code("write-head", fn)
    assert not feedback.correct and feedback.misconception == misconception, feedback.message
    assert words in feedback.message, feedback.message


def test_a_head_in_float32_is_right_with_a_note_of_its_precision():
    def float32_head(q, k, v):
        q, k, v = (x.astype(np.float32) for x in (q, k, v))
        return softmax(q @ k.swapaxes(1, 2) / np.float32(np.sqrt(q.shape[-1]))) @ v

    feedback = check_code("write-head", float32_head)
    assert feedback.correct and "float32" in feedback.message and "e-0" in feedback.message


def test_a_backward_in_float32_is_right():
    feedback = check_code("write-backward", lambda *x: backward(*(a.astype(np.float32) for a in x)))
    assert feedback.correct and "float32" in feedback.message


def test_a_backward_whose_rounding_stands_where_the_gradient_is_zero_is_right():
    """A one-token head's Q̄ and K̄ are exactly 0; a right backward computes them as rounding (about 5e-17), which
    is no difference; a gradient off by 1e-9 where it should be 0 is one."""
    def rounded(q, k, v, g):
        dq, dk, dv = backward(q, k, v, g)
        return (dq + 5e-17 if q.shape[1] == 1 else dq), (dk - 5e-17 if q.shape[1] == 1 else dk), dv

    def off(q, k, v, g):
        dq, dk, dv = backward(q, k, v, g)
        return (dq + 1e-9 if q.shape[1] == 1 else dq), dk, dv

    def float32_rounded(q, k, v, g):
        dq, dk, dv = (x.astype(np.float32) for x in backward(q, k, v, g))
        return (dq + np.float32(3e-7) if q.shape[1] == 1 else dq), dk, dv

    assert check_code("write-backward", rounded).correct
    assert check_code("write-backward", float32_rounded).correct, "float32 rounds at 1e-7"
    assert not check_code("write-backward", off).correct


@pytest.mark.parametrize("dtype, off", [(np.float64, 1e-5), (np.float32, 1e-3)])
def test_a_backward_off_by_more_than_its_format_rounds_is_refused(dtype, off):
    def off_backward(*x):
        return tuple(g.astype(dtype) * dtype(1 + off) for g in backward(*x))

    assert not check_code("write-backward", off_backward).correct


@pytest.mark.parametrize("fn, misconception, words", [
    (lambda q, k, v, g: (*backward(q, k, v, g)[:2], softmax(scores(q, k)) @ g), "dv-not-transposed",
     "V̄ считается через A, а не Aᵀ"),
    (lambda q, k, v, g: tuple(-x for x in backward(q, k, v, g)[:2]) + backward(q, k, v, g)[2:],
     "departs-query-gradient", "Её числа — значение «градиент запросов Q̄ = S̄K/√d_k», умноженное на -1."),
    (lambda q, k, v, g: (backward(q, k, v, g)[0] * np.sqrt(q.shape[-1]) / q.shape[-1], *backward(q, k, v, g)[1:]),
     "departs-query-gradient", "Её числа — значение «градиент запросов Q̄ = S̄K/√d_k», умноженное на 0.5."),
])
def test_the_backward_search_names_the_slip_or_the_line_where_the_numbers_part(fn, misconception, words):
    feedback = check_code("write-backward", fn)
    assert feedback.misconception == misconception and words in feedback.message, feedback.message


def test_a_function_that_hands_the_work_to_the_engine_is_judged_but_not_counted():
    """The engine's head (directly or through a helper of the learner's) is right and said to be the engine's; the
    attempt is kept as computed, so it moves no mastery; a head in numpy is not said to be the engine's."""
    from llm_from_scratch.engine import scaled_dot_product_self_attention

    def engine_head(q, k, v):
        return scaled_dot_product_self_attention(q, k, v).output.data

    def through_a_helper(q, k, v):
        return engine_head(q, k, v)

    engine_said = EXERCISE_BOOK.strings.text("feedback.engine_code")
    for fn in (engine_head, through_a_helper):
        feedback = check_code("write-head", fn)
        assert feedback.correct and feedback.note == engine_said
        assert EXERCISE_BOOK.records()["write-head"]["attempts"][-1].get("computed")
    feedback = check_code("write-head", lambda q, k, v: closed_form_head(q, k, v) + 0 * np.sum(q))
    assert feedback.correct and engine_said in feedback.note, "closed_form_head is the engine's too"
    own = check_code("write-head", lambda q, k, v: softmax(scores(q, k)) @ v)
    assert own.correct and not own.note and not EXERCISE_BOOK.records()["write-head"]["attempts"][-1].get("computed")
