"""Chapter 27's code exercises: the learner writes the head and its backward; and a bug hunt.

``write-head`` checks ``my_head(q, k, v) -> O`` against the engine's forward and
``write-backward`` checks ``my_backward(q, k, v, upstream) -> (dq, dk, dv)`` against its
autodiff, on the worked example, the second example and hidden cases (``book.code_check`` runs
them); float32 and other precisions are right, with a note. Where the function is wrong, probes
(``code_probes``) read the wrong stage from its own outputs and name the number they found. The
solutions ``reveal`` shows are the engine's closed form. ``bug-hunt`` hands over ``buggy_head`` and
asks which property of its output betrays the bug.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable

import numpy as np

from ..book import code_check
from ..book.answers import AnswerFormatError
from ..book.code_check import Case, Finding
from ..book.exercises import Exercise, Judgement, choice_exercise, own, right, wrong
from ..book.formatting import shape, vector
from ..book.tolerances import FLOAT_NOISE
from ..engine.closed_form import attention_weights, closed_form_backward, closed_form_head, softmax
from .code_probes import diagnose_backward, diagnose_head
from .evidence import HeadRun, LearnerEvidence, run_head
from .strings import text

SEED = 27
RANDOM_SHAPES = ((2, 3, 4, 5), (3, 4, 3, 2))  # B, T, d_k, d_v of the hidden random cases
SINGLE_TOKEN_SHAPE = (2, 1, 3, 4)
# Scaled scores reach about 850 in the first query's row, so exp overflows unless the row's
# maximum is subtracted, and stay near 4 in the second, so subtracting the maximum of the whole
# matrix instead of each row's makes that row underflow to 0/0.
LARGE_QUERY = ((40.0, 10.0), (0.1, 0.2), (-30.0, 30.0))
LARGE_KEY = ((30.0, 0.0), (0.0, 30.0), (20.0, -20.0))
LARGE_VALUE = ((1.0, -2.0, 0.5), (3.0, 0.0, -1.0), (-1.0, 2.0, 2.0))

# Problems of book.code_check that every code exercise names the same way:
# problem -> (misconception id, message key, message key when the line of the learner's code is known)
PROBLEMS = {
    "raised": ("raised", "code.raised", "code.raised_at"),
    "timeout": ("timeout", "code.timeout", "code.timeout_at"),
    "unreadable": ("wrong-shape", "code.unreadable", "code.unreadable"),
    "wrong-shape": ("wrong-shape", "code.wrong-shape", "code.wrong-shape"),
    "mutated": ("mutates-input", "code.mutated", "code.mutated"),
    "not-finite": ("not-finite", "code.not-finite", "code.not-finite"),
    "differs": (None, "code.differs", "code.differs"),
}
NOT_AN_ATTEMPT = {"stub": "code.stub", "not-callable": "code.not-callable"}


def buggy_head(q, k, v):
    s = q @ k.swapaxes(1, 2) / np.sqrt(q.shape[-1])
    a = np.exp(s - s.max(axis=1, keepdims=True))
    a = a / a.sum(axis=1, keepdims=True)
    return a, a @ v


def _head_case(name: str, run: HeadRun) -> Case:
    return Case(name, (run.query, run.key, run.value), (run.output,))


def _backward_case(name: str, run: HeadRun) -> Case:
    return Case(name, (run.query, run.key, run.value, run.upstream), (run.grad_query, run.grad_key, run.grad_value))


# --- the cases -------------------------------------------------------------------------------

def _runs(ev: LearnerEvidence) -> list[tuple[str, HeadRun]]:
    """Every case's name and the engine's forward and backward on it, in the order they are tried."""
    rng = np.random.default_rng(SEED if ev.instance.case_seed is None else ev.instance.case_seed)

    def drawn(batch, tokens, key_width, value_width):
        q, k = rng.normal(size=(2, batch, tokens, key_width))
        return run_head(q, k, *rng.normal(size=(2, batch, tokens, value_width)))

    large = run_head(*(np.array([m]) for m in (LARGE_QUERY, LARGE_KEY, LARGE_VALUE)), rng.normal(size=(1, 3, 3)))
    return [
        (text("code.case.worked"), ev.worked),
        (text("code.case.second"), ev.hand),
        *((text("code.case.random", batch=b, tokens=t, key_width=dk, value_width=dv), drawn(b, t, dk, dv))
          for b, t, dk, dv in RANDOM_SHAPES),
        (text("code.case.single"), drawn(*SINGLE_TOKEN_SHAPE)),
        (text("code.case.large"), large),
    ]


# --- judging -------------------------------------------------------------------------------

def _code_exercise(exercise_id: str, *, notebook: str, instance: str, strings: dict[str, dict[str, str]],
                   skills: tuple[str, ...], case_of: Callable[[str, HeadRun], Case], probe: Callable,
                   arguments: tuple[str, ...], outputs: tuple[str, ...], solution: tuple[Callable, ...],
                   gives_away: dict[str, tuple[str, ...]]) -> Exercise:
    """A code exercise: the cases say whether the learner's function is right; where it is not, ``probe``
    reads the stage that is wrong from the function's own outputs on inputs made to expose it (its message is
    the exercise's string named by the misconception). Its strings name the shapes it returns ("expected")
    and what its answer is ("answer")."""
    def judge(fn: object, expected: object, ev: LearnerEvidence) -> Judgement:
        finding = code_check.run_cases(fn, [case_of(name, run) for name, run in _runs(ev)])
        if finding.problem in NOT_AN_ATTEMPT:
            raise AnswerFormatError(text(NOT_AN_ATTEMPT[finding.problem], **finding.fields),
                                    pending=finding.problem == "stub")
        function = code_check.name_of(fn)
        if finding.problem is None:
            if finding.fields["precision"] > FLOAT_NOISE:
                return right("code.right_precision", function=function, count=finding.fields["count"],
                             error=f"{finding.fields['precision']:.0e}")
            return right("code.right", function=function, count=finding.fields["count"])
        fields = {"function": function, "case": finding.case.name}
        if finding.problem in ("wrong-shape", "not-finite", "differs"):
            found = probe(fn)
            if found:
                misconception, measured = found  # the exercise names each misconception in its own words
                return wrong(misconception, own(misconception), **fields, **measured)
        misconception, key, key_at_line = PROBLEMS[finding.problem]
        return wrong(misconception, key_at_line if "line" in finding.fields else key, **fields,
                     **_details(finding, arguments, outputs))

    def facts(expected: object, ev: LearnerEvidence) -> dict[str, str]:
        first = case_of("", ev.worked).expected[0][0, 0]  # the first row of the first output on the worked example
        return {"answer": own("answer"), "solution": "\n\n".join(inspect.getsource(f).strip() for f in solution),
                "first": vector(first)}

    return Exercise(exercise_id, "code", notebook, instance, strings, lambda ev: solution[-1], judge, facts,
                    read=lambda fn, form: fn, skills=skills, varies="code", gives_away=gives_away)


def _details(finding: Finding, arguments: tuple[str, ...], outputs: tuple[str, ...]) -> dict[str, object]:
    """A generic problem's fields, in this exercise's words."""
    f, problem = finding.fields, finding.problem
    if problem in ("raised", "timeout", "not-finite"):
        return dict(f)
    if problem == "mutated":
        return {"arguments": ", ".join(arguments[i] for i in f["arguments"])}
    if problem == "differs":
        return {"outputs": ", ".join(outputs[i] for i in f["outputs"]), "difference": f"{f['difference']:.3g}"}
    expected = own("expected", shapes=", ".join(shape(e.shape) for e in finding.case.expected))
    if problem == "unreadable":
        returned = text("code.sized", kind=f["returned"], length=f["length"]) if "length" in f else f["returned"]
        return {"returned": returned, "expected": expected}
    return {"shapes": ", ".join(shape(s) for s in f["shapes"]), "expected": expected}


WRITE_HEAD = _code_exercise(
    "write-head",
    notebook="06_head_from_primitives", instance="worked",
    skills=("skill.row-softmax", "skill.mixing"),
    case_of=_head_case,
    probe=diagnose_head,
    arguments=("q", "k", "v"),
    outputs=("O",),
    solution=(softmax, attention_weights, closed_form_head),
    gives_away={
        "ru": (r"s\.max\((axis ?= ?)?(-1|2)",),
        "en": (r"s\.max\((axis ?= ?)?(-1|2)",),
    },
    strings={
        "ru": {
            "title": "голова своими руками",
            "missing-scale": "Оценки не масштабированы: {probe} ваши веса получаются из оценок, поделённых на "
                "{found}, то есть ни на что. Голова делит их на √d_k = {right}: без этого при большой ширине d_k и "
                "независимых компонентах со средним 0 и дисперсией 1 почти весь вес строки обычно достаётся одному "
                "ключу (27.4).",
            "scale-by-dk": "Оценки поделены на d_k: {probe} ваши веса получаются из оценок, поделённых на {found} = "
                "d_k. Голова делит на √d_k = {right}: при независимых компонентах со средним 0 и дисперсией 1 "
                "дисперсия скалярного произведения растёт как d_k, а его разброс — как √d_k.",
            "scale-by-root-t": "Оценки поделены на √T: {probe} ваши веса получаются из оценок, поделённых на {found} "
                "= √T (T = {tokens}). Масштаб зависит от ширины запросов и ключей: голова делит на √d_k = {right}.",
            "scale-by-root-dv": "Оценки поделены на √d_v: {probe} ваши веса получаются из оценок, поделённых на "
                "{found} = √d_v (d_v = {value_width}). Масштаб зависит от ширины запросов и ключей: голова делит на "
                "√d_k = {right}.",
            "scale-other": "Оценки поделены не на тот множитель: {probe} ваши веса получаются из оценок, поделённых "
                "на {found}. Голова делит на √d_k = {right}.",
            "softmax-axis": "Softmax нормирует не ту ось: {probe} в сумме 1 дают столбцы ваших весов ({column_sums}), "
                "а не строки ({row_sums}). Строка A — один запрос, и её веса по ключам дают 1: нормируйте последнюю "
                "ось (axis=-1).",
            "transposed-scores": "Оценки транспонированы: {probe} ваши веса — softmax строк K Qᵀ, а не Q Kᵀ. Строка i "
                "матрицы оценок — запрос q_i, столбец j — ключ k_j: S = Q Kᵀ / √d_k.",
            "returns-weights": "Функция возвращает веса A, а не выход O: {probe} она вернула массив формы {shape}, "
                "[B, T, T]. Верните смесь значений A @ v формы [B, T, d_v].",
            "mixed-keys": "Веса смешивают ключи, а не значения: {probe} выход имеет форму {shape} — ширину ключей "
                "d_k, а не значений d_v. Верните A @ v.",
            "no-exponential": "Экспоненты нет: {probe} ваши веса — оценки, поделённые на сумму строки. Такие веса "
                "бывают отрицательными; softmax сначала берёт e^s, потом делит на сумму строки.",
            "exponentials-not-normalized": "Экспоненты не поделены на их сумму: {probe} строки ваших весов дают в "
                "сумме {row_sums}, а должны давать 1. Разделите e^s на сумму своей строки.",
            "scale-after-softmax": "Множитель 1/√d_k применён после softmax: {probe} строки ваших весов дают в сумме "
                "{found}, то есть 1/√d_k. Делите оценки до softmax — тогда строки весов дают 1.",
            "hard-attention": "Весь вес отдан наибольшей оценке строки: {probe} ваши веса — нули и единицы. Softmax "
                "даёт каждому ключу долю e^s / Σ e^s, а в строке из двух и более ключей она в точной "
                "арифметике не бывает ни 0, ни 1.",
            "uniform-weights": "Веса поровну: {probe} каждый ключ получает 1/T, хотя оценки строки различаются. Веса "
                "берутся из оценок: softmax(Q Kᵀ / √d_k).",
            "transposed-weights": "Значения смешаны весами Aᵀ: {probe} ваш выход — Aᵀ·V. Строка o_i берёт веса из "
                "своей строки A_i,: — O = A·V.",
            "batch-leak": "Элементы пакета видят ключи друг друга: на пакете из двух элементов с разными ключами "
                "выход первого запроса первого элемента — {together}, а у того же элемента в одиночку — {alone}. "
                "Считайте оценки внутри каждого элемента: q @ k.swapaxes(1, 2), а не по всему пакету сразу.",
            "no-max-shift": "exp переполнился: {probe} в вашем выходе появились nan или inf, хотя у головы всё "
                "конечно. Вычтите из каждой строки оценок её максимум перед exp: softmax от этого не меняется.",
            "expected": "массив O формы {shapes}",
            "answer": "O = softmax(QKᵀ/√d_k)·V, softmax вдоль последней оси (по ключам)",
            "explain": "Одно из верных решений, только numpy:\n\n{solution}\n\nВычитание максимума строки не меняет "
                "softmax (множитель e^(−max) сокращается), но не даёт exp переполниться на больших оценках.",
            "hint_stage": "Этапы по порядку: оценки q @ kᵀ, масштаб 1/√d_k, softmax по последней оси, смесь с v.",
            "hint_formula": "Оценки: умножьте q на k с переставленными двумя последними осями (swapaxes(1, 2)) и "
                "разделите на √d_k. Softmax: вычтите максимум строки (keepdims=True сохраняет ось длины 1, и "
                "numpy растянет её вдоль строки — это broadcasting), возьмите экспоненту и поделите на сумму строки. "
                "Дальше — ещё одно произведение.",
        },
        "en": {
            "title": "the head, written yourself",
            "missing-scale": "The scores are not scaled: {probe} your weights come from scores divided by {found}, "
                "that is, by nothing. The head divides them by √d_k = {right}: without it, for a wide d_k and "
                "independent components with mean 0 and variance 1, nearly all of a row's weight tends to go to one "
                "key (27.4).",
            "scale-by-dk": "The scores are divided by d_k: {probe} your weights come from scores divided by {found} = "
                "d_k. The head divides by √d_k = {right}: for independent components with mean 0 and "
                "variance 1, a dot product's variance grows like d_k, its spread like √d_k.",
            "scale-by-root-t": "The scores are divided by √T: {probe} your weights come from scores divided by "
                "{found} = √T (T = {tokens}). The scale follows the width of the queries and keys: the head divides "
                "by √d_k = {right}.",
            "scale-by-root-dv": "The scores are divided by √d_v: {probe} your weights come from scores divided by "
                "{found} = √d_v (d_v = {value_width}). The scale follows the width of the queries and keys: the head "
                "divides by √d_k = {right}.",
            "scale-other": "The scores are divided by the wrong number: {probe} your weights come from scores divided "
                "by {found}. The head divides by √d_k = {right}.",
            "softmax-axis": "The softmax normalizes the wrong axis: {probe} the columns of your weights sum to 1 "
                "({column_sums}), not the rows ({row_sums}). A row of A is one query, whose weights over the keys sum "
                "to 1: normalize the last axis (axis=-1).",
            "transposed-scores": "The scores are transposed: {probe} your weights are the softmax of the rows of K "
                "Qᵀ, not Q Kᵀ. Row i of the scores is query q_i and column j is key k_j: S = Q Kᵀ / √d_k.",
            "returns-weights": "The function returns the weights A, not the output O: {probe} it returned an array of "
                "shape {shape}, [B, T, T]. Return the mixture of values A @ v, of shape [B, T, d_v].",
            "mixed-keys": "The weights mix the keys, not the values: {probe} the output has shape {shape}, the keys' "
                "width d_k rather than the values' d_v. Return A @ v.",
            "no-exponential": "There is no exponential: {probe} your weights are the scores divided by their row's "
                "sum. Such weights can be negative; softmax takes e^s first, then divides by the row's sum.",
            "exponentials-not-normalized": "The exponentials are not divided by their sum: {probe} the rows of your "
                "weights sum to {row_sums}, not 1. Divide each e^s by the sum of its row.",
            "scale-after-softmax": "The factor 1/√d_k is applied after the softmax: {probe} the rows of your weights "
                "sum to {found}, which is 1/√d_k. Divide the scores before the softmax, and the rows of weights sum "
                "to 1.",
            "hard-attention": "All the weight goes to a row's largest score: {probe} your weights are zeros and ones. "
                "Softmax gives every key its share e^s / Σ e^s, which in a row of two or more keys is never 0 or 1 in "
                "exact arithmetic.",
            "uniform-weights": "The weights are equal: {probe} every key gets 1/T although the row's scores differ. "
                "The weights come from the scores: softmax(Q Kᵀ / √d_k).",
            "transposed-weights": "The values are mixed with Aᵀ: {probe} your output is Aᵀ·V. Row o_i takes its "
                "weights from its own row A_i,: — O = A·V.",
            "batch-leak": "The batch elements see each other's keys: on a batch of two elements with different keys, "
                "the first element's first output row is {together}, while the same element alone gives {alone}. "
                "Compute the scores within each element, q @ k.swapaxes(1, 2), not across the whole batch.",
            "no-max-shift": "exp overflowed: {probe} your output holds nan or inf where the head's is finite. "
                "Subtract each row's maximum from its scores before exp: the softmax does not change.",
            "expected": "an array O of shape {shapes}",
            "answer": "O = softmax(QKᵀ/√d_k)·V, the softmax along the last axis (over keys)",
            "explain": "One right solution, numpy only:\n\n{solution}\n\nSubtracting each row's maximum does not "
                "change the softmax (the factor e^(−max) cancels), but it keeps exp from overflowing on large scores.",
            "hint_stage": "The stages in order: the scores q @ kᵀ, the scale 1/√d_k, a softmax along the last axis, "
                "the mixture with v.",
            "hint_formula": "The scores: q times k transposed over its last two axes (swapaxes(1, 2)), divided by "
                "√d_k. The softmax: subtract each row's maximum (keepdims=True keeps the axis for broadcasting), "
                "exponentiate, divide by the row's sum. Then one more product.",
        },
    },
)
WRITE_BACKWARD = _code_exercise(
    "write-backward",
    notebook="07_gradients", instance="worked",
    skills=("skill.gradients",),
    case_of=_backward_case,
    probe=diagnose_backward,
    arguments=("q", "k", "v", "upstream"),
    outputs=("dq", "dk", "dv"),
    solution=(softmax, attention_weights, closed_form_backward),
    gives_away={
        "ru": (r"grad\w* ?= ?a ?\* ?\(", r"a ?\* ?\(g\w* ?- ?\(a ?\* ?g"),
        "en": (r"grad\w* ?= ?a ?\* ?\(", r"a ?\* ?\(g\w* ?- ?\(a ?\* ?g"),
    },
    strings={
        "ru": {
            "title": "обратный проход своими руками",
            "dv-not-transposed": "V̄ посчитан с A, а не с Aᵀ: {probe} ваш dv равен A·Ō. Значение v_j получает "
                "градиент от всех запросов, которые на него смотрели: V̄ = Aᵀ·Ō.",
            "missing-scale": "{grad} не поделён на √d_k: {probe} ваш {grad} равен произведению со S̄, поделённому на "
                "{found}, то есть ни на что. Множитель 1/√d_k стоит в S = QKᵀ/√d_k и входит в оба градиента: Q̄ = "
                "S̄·K/√d_k, K̄ = S̄ᵀ·Q/√d_k (√d_k = {right}).",
            "scale-by-dk": "{grad} поделён на d_k: {probe} ваш {grad} равен произведению со S̄, поделённому на "
                "{found} = d_k. Делить нужно на √d_k = {right}, как в S = QKᵀ/√d_k.",
            "scale-other": "{grad} поделён не на тот множитель: {probe} ваш {grad} равен произведению со S̄, "
                "поделённому на {found}. Делить нужно на √d_k = {right}.",
            "softmax-jacobian": "Потерян член с суммой по строке: {probe} ваш {grad} получен из S̄ = A ⊙ Ā. Каждый "
                "вес строки зависит от всех её оценок, поэтому S̄ = A ⊙ (Ā − rowsum(A ⊙ Ā)).",
            "transposed-grad": "S̄ и S̄ᵀ перепутаны: {probe} ваш {grad} получен с транспонированной S̄. Строки S̄ — "
                "запросы, столбцы — ключи: Q̄ = S̄·K/√d_k, K̄ = S̄ᵀ·Q/√d_k.",
            "no-max-shift": "exp переполнился при пересчёте A: {probe} в ваших градиентах появились nan или inf, хотя "
                "у движка всё конечно. Вычтите из каждой строки оценок её максимум перед exp.",
            "expected": "кортеж (dq, dk, dv) из массивов форм {shapes}",
            "answer": "V̄ = Aᵀ·Ō, Ā = Ō·Vᵀ, S̄ = A ⊙ (Ā − rowsum(A ⊙ Ā)), Q̄ = S̄·K/√d_k, K̄ = S̄ᵀ·Q/√d_k",
            "explain": "Одно из верных решений, только numpy: сначала пересчитать прямой проход, затем формулы главы "
                "от выхода к входам:\n\n{solution}",
            "hint_stage": "Идите назад: V̄ и Ā из O = A·V, затем S̄ через softmax, затем Q̄ и K̄ из S = QKᵀ/√d_k.",
            "hint_formula": "V̄ = Aᵀ·Ō и Ā = Ō·Vᵀ. Через softmax — строка за строкой: для каждой строки S̄ нужно "
                "одно число ⟨a, ā⟩ — сумма произведений её строки A и строки Ā. Затем назад через S = QKᵀ/√d_k: Q̄ "
                "и K̄ — это S̄ (или S̄ᵀ), умноженный на другой вход и на масштаб.",
        },
        "en": {
            "title": "the backward pass, written yourself",
            "dv-not-transposed": "V̄ is computed with A, not Aᵀ: {probe} your dv equals A·Ō. A value v_j receives "
                "gradient from every query that looked at it: V̄ = Aᵀ·Ō.",
            "missing-scale": "{grad} is not divided by √d_k: {probe} your {grad} is the product with S̄ divided by "
                "{found}, that is, by nothing. The factor 1/√d_k sits in S = QKᵀ/√d_k and enters both gradients: Q̄ = "
                "S̄·K/√d_k, K̄ = S̄ᵀ·Q/√d_k (√d_k = {right}).",
            "scale-by-dk": "{grad} is divided by d_k: {probe} your {grad} is the product with S̄ divided by {found} = "
                "d_k. Divide by √d_k = {right}, as in S = QKᵀ/√d_k.",
            "scale-other": "{grad} is divided by the wrong number: {probe} your {grad} is the product with S̄ divided "
                "by {found}. Divide by √d_k = {right}.",
            "softmax-jacobian": "The row-sum term is missing: {probe} your {grad} comes from S̄ = A ⊙ Ā. Every weight "
                "in a row depends on all of the row's scores, so S̄ = A ⊙ (Ā − rowsum(A ⊙ Ā)).",
            "transposed-grad": "S̄ and S̄ᵀ are swapped: {probe} your {grad} comes from the transposed S̄. The rows of "
                "S̄ are queries and its columns keys: Q̄ = S̄·K/√d_k, K̄ = S̄ᵀ·Q/√d_k.",
            "no-max-shift": "exp overflowed when recomputing A: {probe} your gradients hold nan or inf where the "
                "engine's are finite. Subtract each row's maximum from its scores before exp.",
            "expected": "a tuple (dq, dk, dv) of arrays of shapes {shapes}",
            "answer": "V̄ = Aᵀ·Ō, Ā = Ō·Vᵀ, S̄ = A ⊙ (Ā − rowsum(A ⊙ Ā)), Q̄ = S̄·K/√d_k, K̄ = S̄ᵀ·Q/√d_k",
            "explain": "One right solution, numpy only: recompute the forward pass, then apply the chapter's formulas "
                "from the output back to the inputs:\n\n{solution}",
            "hint_stage": "Go backwards: V̄ and Ā from O = A·V, then S̄ through the softmax, then Q̄ and K̄ from S = "
                "QKᵀ/√d_k.",
            "hint_formula": "V̄ = Aᵀ·Ō and Ā = Ō·Vᵀ. Through the softmax, row by row: each row of S̄ needs one "
                "number, ⟨a, ā⟩, the sum of its row of A times its row of Ā. Then back through S = QKᵀ/√d_k: Q̄ and "
                "K̄ are S̄ (or S̄ᵀ) times the other input and the scale.",
        },
    },
)
CODE_EXERCISES = (WRITE_HEAD, WRITE_BACKWARD)


def _bug_facts(ev: LearnerEvidence) -> dict[str, str]:
    run = ev.worked
    weights, output = buggy_head(run.query, run.key, run.value)
    return {"row_sums": vector(weights[0].sum(axis=1)), "column_sums": vector(weights[0].sum(axis=0)),
            "shape": shape(output.shape)}


BUG_HUNT = choice_exercise(
    "bug-hunt",
    notebook="03_shapes", instance="worked",
    correct="c",
    facts=_bug_facts,
    skills=("skill.row-softmax",),
    misconceptions={"a": "shape-reveals-axis", "b": "negative-weights", "d": "symmetry-hides-axis"},
    gives_away={
        "ru": (r"(softmax|нормир\w*) по оси (запросов|1)", r"столбцы (дают|в сумме дают) 1"),
        "en": (r"(softmax|normali[sz]\w*) (over|along) (the )?(query axis|axis 1)", r"columns sum to 1"),
    },
    strings={
        "ru": {
            "title": "что выдаёт ошибку в голове",
            "prompt": "В buggy_head одна ошибка; функция возвращает веса A и выход O. Какое свойство её результата на "
                "разобранном примере выдаёт ошибку?",
            "a": "O имеет форму [B, T, T], а не [B, T, d_v].",
            "b": "В A появляются отрицательные веса.",
            "c": "Строки A больше не дают в сумме 1, а столбцы дают.",
            "d": "Никакое: на разобранном примере QKᵀ симметрична, и ошибка там не видна.",
            "right": "Softmax здесь нормирует ось запросов (axis=1): суммы строк A — {row_sums}, а суммы столбцов — "
                "{column_sums}. В верной голове наоборот: каждая строка — распределение одного запроса по ключам.",
            "why_a": "Форма не меняется: нормировка по другой оси делит на другие суммы, но O по-прежнему формы "
                "{shape}.",
            "why_b": "exp положительна, по какой оси ни нормируй, так что все веса остаются между 0 и 1.",
            "why_d": "Симметрия прячет K Qᵀ, но не ось softmax: при симметричной S ошибочная A — это "
                "транспонированная верная, и суммы её строк — {row_sums}.",
            "explain": "Softmax идёт по оси запросов (axis=1), а не ключей: A.sum(axis=-1) = {row_sums}, "
                "A.sum(axis=-2) = {column_sums}. Исправьте ось — и голова станет верной; такую вы напишете сами в "
                "27.6.",
            "hint_stage": "Посмотрите, по какой оси buggy_head берёт максимум и сумму.",
            "hint_formula": "axis=1 — ось запросов: в сумме 1 окажутся столбцы A. Сравните суммы строк и столбцов.",
        },
        "en": {
            "title": "what gives a buggy head away",
            "prompt": "buggy_head has one bug; it returns the weights A and the output O. Which property of its "
                "result on the worked example betrays the bug?",
            "a": "O has shape [B, T, T] instead of [B, T, d_v].",
            "b": "Some weights in A are negative.",
            "c": "The rows of A no longer sum to 1, but its columns do.",
            "d": "None: on the worked example QKᵀ is symmetric, so the bug does not show there.",
            "right": "The softmax here normalizes the query axis (axis=1): the rows of A sum to {row_sums} and its "
                "columns to {column_sums}. In a correct head it is the other way round: each row is one query's "
                "distribution over the keys.",
            "why_a": "The shape does not change: normalizing another axis divides by other sums, but O still has "
                "shape {shape}.",
            "why_b": "exp is positive whichever axis is normalized, so every weight stays between 0 and 1.",
            "why_d": "Symmetry hides K Qᵀ, not the softmax axis: with a symmetric S the buggy A is the transpose of "
                "the correct one, and its rows sum to {row_sums}.",
            "explain": "The softmax runs over the query axis (axis=1), not the keys: A.sum(axis=-1) = {row_sums}, "
                "A.sum(axis=-2) = {column_sums}. Fix the axis and the head is right; you will write one yourself in "
                "27.6.",
            "hint_stage": "Look at the axis along which buggy_head takes the maximum and the sum.",
            "hint_formula": "axis=1 is the axis of queries: it is the columns of A that sum to 1. Compare the row "
                "sums with the column sums.",
        },
    },
)
