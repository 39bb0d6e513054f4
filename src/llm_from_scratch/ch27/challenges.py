"""Challenges on the vector plane (02): a prediction first, then a move that the engine judges from the plane.

Each challenge is two exercises: a choice that predicts what the move needs or does, and the move itself, an
exercise of kind "state" whose answer is the plane (``check("plane-equal", plane)``, or the form's button under
it). The move is judged only after its prediction was answered, on the engine's numbers for the plane as it
stands; a state that misses says what is missing, in numbers.
"""

from __future__ import annotations

import math

import numpy as np

from ..book.answers import AnswerFormatError
from ..book.exercises import Exercise, Judgement, choice_exercise, own, right, wrong
from ..book.formatting import num, trimmed, vector
from .plane import NAMES, PlaneState, VectorPlane, coordinates, default_vectors, plane_state, subscripted
from .strings import text

EQUAL_WEIGHTS = 0.025  # each weight this close to 1/2 (scaled scores 0.1 apart): the 0.5 grid lands exactly
NEAR_SCORES = 1.0  # scores closer than this: a near miss, told as one (not as a misconception)
STRONG_WEIGHT = 0.9  # what q₁ must give k₁
POSITION = 0.05  # a tip this close to a named point is on it (Shift moves by 0.1)
PARALLEL_DEGREES = 8.0  # an arrow this close in angle to another points along it


def read_plane(answer: object, form: str) -> PlaneState:
    """The plane's state: a VectorPlane, its ``state``, or the six vectors by name."""
    if isinstance(answer, VectorPlane):
        return answer.state
    if isinstance(answer, PlaneState):
        return answer
    if isinstance(answer, dict) and set(answer) == set(NAMES):
        try:
            return plane_state({n: (float(answer[n][0]), float(answer[n][1])) for n in NAMES})
        except (TypeError, ValueError, IndexError):
            pass
    raise AnswerFormatError(text("challenge.form", form=form))


def _moved(state: PlaneState) -> list[str]:
    """The vectors away from the worked example (by more than a tip one can see move)."""
    start = default_vectors()
    return [n for n in NAMES if not np.allclose(state.vectors[n], start[n], atol=POSITION, rtol=0)]


def _only(state: PlaneState, vector: str) -> Judgement | None:
    """A wrong judgement if other vectors moved or this one did not; None if only ``vector`` moved."""
    moved = _moved(state)
    others = [n for n in moved if n != vector]
    if others:
        moved_to = ", ".join(f"{subscripted(n)} = {coordinates(state.vectors[n])}" for n in others)
        return wrong(None, "challenge.others", moved=moved_to, name=subscripted(vector), reset=text("plane.reset"))
    if vector not in moved:
        return wrong(None, "challenge.unmoved", name=subscripted(vector), at=coordinates(state.vectors[vector]))
    return None


def _angle(a, b) -> float:
    """Degrees between two arrows (180 when one has no length)."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    lengths = np.hypot(*a) * np.hypot(*b)
    return 180.0 if lengths == 0 else math.degrees(math.acos(float(np.clip(a @ b / lengths, -1, 1))))


def _row(state: PlaneState, i: int) -> dict[str, str]:
    return {"s0": num(state.scores[i, 0], 2), "s1": num(state.scores[i, 1], 2),
            "w0": num(state.weights[i, 0], 3), "w1": num(state.weights[i, 1], 3)}


def _start() -> PlaneState:
    return plane_state(default_vectors())


# --- 1: equal weights ----------------------------------------------------------------------

def _equal(state: PlaneState, expected, ev) -> Judgement:
    missing = _only(state, "k1")
    if missing:
        return missing
    fields = {**_row(state, 0), "k1": coordinates(state.vectors["k1"])}
    if abs(state.weights[0, 0] - 0.5) <= EQUAL_WEIGHTS:
        return right(own("right"), **fields)
    if abs(state.scores[0, 1] - state.scores[0, 0]) < NEAR_SCORES:
        return wrong(None, own("near"), **fields)
    k0, k1 = (np.hypot(*state.vectors[k]) for k in ("k0", "k1"))
    if abs(k1 - k0) <= POSITION:
        return wrong("equal-length", own("length"), length=trimmed(k0), **fields)
    return wrong(None, own("missing"), **fields)


def _equal_facts(expected, ev) -> dict[str, str]:
    start = _start()
    s0 = trimmed(start.scores[0, 0])  # q₀·k₀, which the hint names too
    return {"answer": own("answer", k0=coordinates(start.vectors["k0"]),
                           q0=coordinates(start.vectors["q0"]), s0=num(start.scores[0, 0], 2)), "s0": s0}


# --- 2: a strong weight --------------------------------------------------------------------

def _gap(state: PlaneState) -> float:
    """q₁'s scaled score for k₁ minus that for k₀: a row of two weights depends on this alone."""
    return float(state.scaled[1, 1] - state.scaled[1, 0])


def _strong(state: PlaneState, expected, ev) -> Judgement:
    missing = _only(state, "q1")
    if missing:
        return missing
    q1 = state.vectors["q1"]
    fields = {**_row(state, 1), "q1": coordinates(q1), "o1": coordinates(state.outputs[1]),
              "v1": coordinates(state.vectors["v1"]), "gap": num(_gap(state), 2), "length": trimmed(np.hypot(*q1)),
              "need": num(math.log(STRONG_WEIGHT / (1 - STRONG_WEIGHT)), 2), "goal": num(STRONG_WEIGHT, 1)}
    if state.weights[1, 1] >= STRONG_WEIGHT:
        return right(own("right"), **fields)
    if _angle(q1, state.vectors["v1"]) <= PARALLEL_DEGREES:
        return wrong("aims-at-value", own("value"), **fields)
    if _angle(q1, state.vectors["k1"]) <= PARALLEL_DEGREES:
        return wrong("length-irrelevant", own("short"), **fields)
    return wrong(None, own("missing"), **fields)


def _strong_facts(expected, ev) -> dict[str, str]:
    start = _start()
    aimed = plane_state({**start.vectors, "q1": start.vectors["k1"]})  # q₁ pointed at k₁, as long as k₁
    need = math.log(STRONG_WEIGHT / (1 - STRONG_WEIGHT))  # the scaled gap a weight of 0.9 needs, which hints name
    return {"need": num(need, 1), "need_raw": num(math.sqrt(2) * need, 1),
            "answer": own("answer", need=num(need, 2),
                           k1=coordinates(start.vectors["k1"]), w1=num(aimed.weights[1, 1], 3),
                           goal=num(STRONG_WEIGHT, 1))}


# --- 3: a query twice as long -------------------------------------------------------------

def _long(state: PlaneState, expected, ev) -> Judgement:
    missing = _only(state, "q0")
    if missing:
        return missing
    start, q0 = _start(), np.array(state.vectors["q0"])
    original = np.hypot(*start.vectors["q0"])
    along = np.array(start.vectors["q0"]) / original  # the original direction, length 1
    fields = {**_row(state, 0), "q0": coordinates(q0), "start": coordinates(start.vectors["q0"]),
              "before": vector(start.weights[0], 3), "after": vector(state.weights[0], 4),
              "b0": num(start.scores[0, 0], 2), "b1": num(start.scores[0, 1], 2), "length": trimmed(np.hypot(*q0)),
              "original": trimmed(original), "target": trimmed(2 * original)}
    if np.allclose(q0, 2 * np.array(start.vectors["q0"]), atol=POSITION, rtol=0):
        return right(own("right"), **fields)
    if not q0.any():
        return wrong(None, own("zero"), **fields)
    if np.hypot(*(q0 - (q0 @ along) * along)) > POSITION:  # off the original line
        return wrong(None, own("turned"), **fields)
    if q0 @ along < 0:
        return wrong(None, own("reversed"), **fields)
    return wrong(None, own("length"), **fields)


def _long_facts(expected, ev) -> dict[str, str]:
    start = _start()
    doubled = plane_state({**start.vectors, "q0": tuple(2 * c for c in start.vectors["q0"])})
    return {"answer": own("answer", target=coordinates(doubled.vectors["q0"]),
                           before=vector(start.weights[0], 3), after=vector(doubled.weights[0], 4))}


def _move(exercise_id: str, **declared) -> Exercise:
    """A move on the plane: its answer is the plane, judged once its prediction was answered."""
    return Exercise(exercise_id, "state", expected=lambda ev: None, read=read_plane,
                    after=f"{exercise_id}-prediction", **declared)


CHALLENGES = (
    choice_exercise(
        "plane-equal-prediction",
        notebook="02_scores_softmax_mixture", instance="worked",
        skills=("skill.dot-products",),
        correct="c",
        misconceptions={"a": "equal-needs-identical", "b": "equal-length", "d": "perpendicular-zero-weight"},
        gives_away={
            "ru": (r"вес\w* (строки )?равны,? когда равны (ее )?оценки", r"равн\w+ оценк\w+ да\w+ равн\w+ вес"),
            "en": (r"weights are equal when (its|the) scores are", r"equal scores give equal weights"),
        },
        strings={
            "ru": {
                "title": "где k₁ уравняет веса q₀",
                "prompt": "Задача: сдвинуть только k₁ так, чтобы q₀ дал обоим ключам равные веса. Сначала "
                    "предскажите: куда для этого можно поставить k₁?",
                "a": "Только в точку k₀: k₁ должен совпасть с k₀.",
                "b": "Куда угодно на расстоянии |k₀| от начала координат: важна длина ключа.",
                "c": "Куда угодно, где q₀·k₁ = q₀·k₀.",
                "d": "Никуда: k₀ перпендикулярен q₀, и его вес до половины не поднять.",
                "right": "Softmax строки видит только её оценки, а не сами ключи. Осталось найти, где q₀·k₁ "
                    "совпадает с q₀·k₀, — таких точек много.",
                "why_a": "k₁ = k₀ подходит, но это не единственная точка: softmax видит только оценки, а одну и ту же "
                    "оценку q₀·k дают многие ключи.",
                "why_b": "Одной длины ключа мало: оценка q₀·k — это проекция k на направление q₀, умноженная на длину "
                    "q₀. Ключ той же длины, повёрнутый к q₀, получит больший вес.",
                "why_d": "Перпендикулярный ключ получает оценку 0, но не вес 0: вес зависит от того, как оценка "
                    "соотносится с другими оценками строки, а их можно уравнять, двигая k₁.",
                "explain": "Веса строки зависят только от её оценок: годится любой k₁, которому q₀ даёт ту же оценку, "
                    "что и k₀.",
                "hint_stage": "Что softmax получает на вход — ключи или оценки?",
                "hint_formula": "softmax(s₀, s₁) зависит только от разности s₁ − s₀. При какой разности веса "
                    "сравняются?",
            },
            "en": {
                "title": "where k₁ must go to equalize q₀'s weights",
                "prompt": "The task: move only k₁ so that q₀ gives both keys equal weights. Predict first: where can "
                    "k₁ go for that?",
                "a": "Only onto k₀: k₁ has to coincide with k₀.",
                "b": "Anywhere at the distance |k₀| from the origin: the key's length is what counts.",
                "c": "Anywhere q₀·k₁ = q₀·k₀.",
                "d": "Nowhere: k₀ is perpendicular to q₀, and its weight cannot rise to one half.",
                "right": "A row's softmax sees only its scores, not the keys themselves. What is left is to find "
                    "where q₀·k₁ equals q₀·k₀; there are many such points.",
                "why_a": "k₁ = k₀ works, but it is not the only point: softmax sees only the scores, and many keys "
                    "give the same score q₀·k.",
                "why_b": "A key's length alone is not enough: the score q₀·k is k's projection onto q₀'s direction "
                    "times q₀'s length. A key of the same length, turned towards q₀, gets a larger weight.",
                "why_d": "A perpendicular key gets a score of 0, not a weight of 0: a weight depends on how its score "
                    "compares with the row's other scores, and moving k₁ can make them equal.",
                "explain": "A row's weights depend on its scores alone: any k₁ to which q₀ gives the same score as to "
                    "k₀ will do.",
                "hint_stage": "What does softmax take in: the keys or the scores?",
                "hint_formula": "softmax(s₀, s₁) depends only on the difference s₁ − s₀. At which difference do the "
                    "weights become level?",
            },
        },
    ),
    _move(
        "plane-equal",
        notebook="02_scores_softmax_mixture", instance="worked",
        skills=("skill.dot-products",),
        judge=_equal,
        facts=_equal_facts,
        gives_away={
            "ru": (r"прям\w+ через k0",),
            "en": (r"line through k0",),
        },
        strings={
            "ru": {
                "title": "k₁, уравнявший веса q₀",
                "prompt": "Теперь сдвиньте на плоскости выше только k₁ — так, чтобы у q₀ оба веса стали по 0.5, — и "
                    "нажмите «Проверить».",
                "form": "check(\"plane-equal\", plane), где plane — плоскость выше",
                "right": "Получилось: q₀·k₀ = {s0} и q₀·k₁ = {s1}, поэтому веса {w0} и {w1}. Ключ k₁ = {k1} "
                    "проецируется на направление q₀ туда же, куда k₀: важна эта проекция, одной длины k₁ мало.",
                "length": "k₁ теперь той же длины, что и k₀ ({length}), но веса {w0} и {w1}, потому что оценки {s0} и "
                    "{s1} разные. Оценка — это проекция ключа на q₀, умноженная на длину q₀, а не длина ключа.",
                "missing": "Веса q₀ пока {w0} и {w1}: оценки q₀·k₀ = {s0} и q₀·k₁ = {s1} не равны. Softmax даёт "
                    "поровну, только когда оценки строки совпадают.",
                "near": "Почти: q₀·k₁ = {s1}, а нужно {s0}, как у q₀·k₀ (веса пока {w0} и {w1}). Без Shift кончик "
                    "встаёт на сетку с шагом 0.5 — так k₁ ляжет на нужную прямую точно.",
                "answer": "подходит любая точка на прямой через k₀ = {k0}, перпендикулярной q₀ = {q0} (здесь это "
                    "прямая самого k₀): там q₀·k₁ = q₀·k₀ = {s0}",
                "explain": "Равные веса — это равные оценки, а оценка q₀·k зависит только от проекции k на "
                    "направление q₀.",
                "hint_stage": "Сравните две оценки строки q₀ на рисунке: что нужно сделать с q₀·k₁?",
                "hint_formula": "Оценка q₀·k₁ должна стать равной q₀·k₀ = {s0}. k₀ перпендикулярен q₀ — где ещё ключ "
                    "даёт с q₀ оценку 0?",
            },
            "en": {
                "title": "move k₁ to equalize q₀'s weights",
                "prompt": "Now move only k₁ on the plane above, so that q₀'s two weights become 0.5 each, and press "
                    "“Check”.",
                "form": "check(\"plane-equal\", plane), where plane is the plane above",
                "right": "Done: q₀·k₀ = {s0} and q₀·k₁ = {s1}, so the weights are {w0} and {w1}. The key k₁ = {k1} "
                    "projects onto q₀'s direction where k₀ does: that projection is what counts, not k₁'s length "
                    "alone.",
                "length": "k₁ now has the same length as k₀ ({length}), yet the weights are {w0} and {w1}, because "
                    "the scores {s0} and {s1} differ. A score is the key's projection onto q₀ times q₀'s length, not "
                    "the key's length.",
                "missing": "q₀'s weights are {w0} and {w1} so far: the scores q₀·k₀ = {s0} and q₀·k₁ = {s1} are not "
                    "equal. Softmax splits evenly only when a row's scores are the same.",
                "near": "Almost: q₀·k₁ = {s1}, and it should be {s0}, like q₀·k₀ (the weights are {w0} and {w1} so "
                    "far). Without Shift the tip snaps to a grid of 0.5, which puts k₁ exactly on the line.",
                "answer": "any point on the line through k₀ = {k0} perpendicular to q₀ = {q0} (here the line of k₀ "
                    "itself): there q₀·k₁ = q₀·k₀ = {s0}",
                "explain": "Equal weights are equal scores, and the score q₀·k depends only on k's projection onto "
                    "q₀'s direction.",
                "hint_stage": "Compare the two scores of q₀'s row in the figure: what must happen to q₀·k₁?",
                "hint_formula": "The score q₀·k₁ must become equal to q₀·k₀ = {s0}. k₀ is perpendicular to q₀: where "
                    "else does a key give a score of 0 with q₀?",
            },
        },
    ),
    choice_exercise(
        "plane-long-prediction",
        notebook="02_scores_softmax_mixture", instance="worked",
        skills=("skill.scaling",),
        correct="c",
        misconceptions={"a": "length-cancels", "b": "weights-scale", "d": "longer-divides-more"},
        gives_away={
            "ru": (
                r"(длинн\w+|удлин\w+) (запрос\w*|q0|q1|q)\W.{0,80}(резч|низк\w+ температур)",
                r"удлинени\w+ q.{0,40}увеличива\w+.{0,20}разност",
            ),
            "en": (
                r"(longer|lengthen\w*) (query|q0|q1|q)\W.{0,80}(sharper|low\w* temperature)",
                r"making q\d? longer widens",
            ),
        },
        strings={
            "ru": {
                "title": "что сделает с весами вдвое более длинный q₀",
                "prompt": "Задача: сделать q₀ вдвое длиннее, не поворачивая его и ничего больше не двигая. Сначала "
                    "предскажите: что станет со строкой весов q₀?",
                "a": "Ничего: веса зависят только от направлений, длина в softmax сократится.",
                "b": "Оба веса вырастут вдвое.",
                "c": "Строка станет резче: больший вес подойдёт ближе к 1, меньший — к 0.",
                "d": "Строка станет ровнее: у более длинного вектора больше делитель √d_k.",
                "right": "Если q₀ вдвое длиннее, вдвое больше и обе его оценки, и их разность, а чем больше "
                    "разность, тем ближе softmax к выбору одного ключа.",
                "why_a": "Длина не сокращается: softmax не делит оценки на длину запроса. Если q₀ вдвое длиннее, "
                    "вдвое больше и его оценки, и их разность.",
                "why_b": "Веса строки всегда дают в сумме 1, поэтому вырасти оба не могут: удвоенные оценки "
                    "перераспределяют вес, а не умножают его.",
                "why_d": "√d_k зависит от ширины векторов (здесь их ширина 2), а не от их длины: делитель остаётся "
                    "√2, а оценки растут.",
                "explain": "Длина запроса умножает все его оценки, а с ними и разности оценок: чем длиннее запрос, "
                    "тем резче его строка весов.",
                "hint_stage": "Что происходит с оценками q₀·k₀ и q₀·k₁, когда q₀ удваивается?",
                "hint_formula": "softmax(2s) и softmax(s) — одинаковые ли это строки? Сравните разность оценок.",
            },
            "en": {
                "title": "what a q₀ twice as long does to its weights",
                "prompt": "The task: make q₀ twice as long without turning it or moving anything else. Predict first: "
                    "what happens to q₀'s row of weights?",
                "a": "Nothing: weights depend only on directions, and the length cancels in softmax.",
                "b": "Both weights double.",
                "c": "The row gets sharper: the larger weight comes closer to 1, the smaller to 0.",
                "d": "The row gets flatter: a longer vector has a larger divisor √d_k.",
                "right": "A q₀ twice as long doubles both its scores and their difference, and the larger the "
                    "difference, the closer softmax comes to picking one key.",
                "why_a": "The length does not cancel: softmax does not divide the scores by the query's length. A q₀ "
                    "twice as long has twice the scores and twice their difference.",
                "why_b": "A row's weights always sum to 1, so both cannot grow: doubled scores redistribute the "
                    "weight, they do not multiply it.",
                "why_d": "√d_k depends on the vectors' width (2 here), not on their length: the divisor stays √2 "
                    "while the scores grow.",
                "explain": "A query's length multiplies all its scores, and their differences with them: the longer "
                    "the query, the sharper its row of weights.",
                "hint_stage": "What happens to the scores q₀·k₀ and q₀·k₁ when q₀ doubles?",
                "hint_formula": "Are softmax(2s) and softmax(s) the same row? Compare the difference of the scores.",
            },
        },
    ),
    _move(
        "plane-long",
        notebook="02_scores_softmax_mixture", instance="worked",
        skills=("skill.scaling",),
        judge=_long,
        facts=_long_facts,
        gives_away={
            "ru": (r"вдвое длиннее q0.{0,60}резч",),
            "en": (r"q0 twice as long.{0,60}sharper",),
        },
        strings={
            "ru": {
                "title": "q₀ вдвое длиннее",
                "prompt": "Теперь удвойте на плоскости выше длину q₀, не поворачивая его, и нажмите «Проверить». "
                    "Следите за его строкой весов.",
                "form": "check(\"plane-long\", plane), где plane — плоскость выше",
                "right": "Получилось: q₀ = {q0}, оценки {s0} и {s1} вместо {b0} и {b1}, строка весов {after} вместо "
                    "{before}. Запрос вдвое длиннее — и разность его оценок вдвое больше, так что softmax ещё ближе к "
                    "выбору одного ключа.",
                "turned": "q₀ = {q0} отклонился от исходного направления {start}: меняйте только его ненулевую "
                    "координату.",
                "length": "Длина q₀ = {q0} сейчас {length}, а нужна ровно {target} — вдвое больше исходной {original}.",
                "reversed": "q₀ = {q0} смотрит в обратную сторону: длина может быть верной, но направление должно "
                    "остаться как у {start}.",
                "zero": "q₀ = (0, 0) — нулевой вектор, у него нет направления: обе его оценки 0, и веса поровну.",
                "answer": "q₀ = {target}; строка весов становится {after} вместо {before}",
                "explain": "Удвоенный запрос удваивает свои оценки, и строка весов становится резче.",
                "hint_stage": "Направление q₀ должно остаться тем же: меняйте только его ненулевую координату (y).",
                "hint_formula": "Вдвое длиннее — это 2·q₀: каждая координата удваивается.",
            },
            "en": {
                "title": "q₀ twice as long",
                "prompt": "Now double q₀'s length on the plane above without turning it, and press “Check”. Watch its "
                    "row of weights.",
                "form": "check(\"plane-long\", plane), where plane is the plane above",
                "right": "Done: q₀ = {q0}, the scores are {s0} and {s1} instead of {b0} and {b1}, the row of weights "
                    "{after} instead of {before}. A query twice as long has twice the difference of scores, so "
                    "softmax comes even closer to picking one key.",
                "turned": "q₀ = {q0} has left the original direction {start}: change only its nonzero coordinate.",
                "length": "q₀ = {q0} is {length} long now, and it should be exactly {target}: twice the original "
                    "{original}.",
                "reversed": "q₀ = {q0} points the opposite way: its length may be right, but its direction must stay "
                    "that of {start}.",
                "zero": "q₀ = (0, 0) is the zero vector and has no direction: both its scores are 0 and its weights "
                    "equal.",
                "answer": "q₀ = {target}; the row of weights becomes {after} instead of {before}",
                "explain": "A query doubled doubles its scores, and its row of weights gets sharper.",
                "hint_stage": "q₀'s direction must stay the same: change only its nonzero coordinate (y).",
                "hint_formula": "Twice as long is 2·q₀: each coordinate doubles.",
            },
        },
    ),
    choice_exercise(
        "plane-strong-prediction",
        notebook="02_scores_softmax_mixture", instance="worked",
        skills=("skill.row-softmax",),
        correct="b",
        misconceptions={"a": "aims-at-value", "c": "length-irrelevant", "d": "keys-only"},
        gives_away={
            "ru": (r"(сдвиг|поворот|удлин)\w* q1.{0,60}(вес|разност)",),
            "en": (r"(moving|turning|lengthening|making) q1.{0,60}(weight|difference)",),
        },
        strings={
            "ru": {
                "title": "что нужно q₁, чтобы отдать k₁ вес 0.9",
                "prompt": "Задача: сдвинуть только q₁ так, чтобы не меньше 0.9 его веса досталось k₁ (и выход o₁ "
                    "подошёл к v₁). Сначала предскажите: что для этого нужно?",
                "a": "Повернуть q₁ к v₁: выход тянется к тому значению, в сторону которого смотрит запрос.",
                "b": "Добиться, чтобы q₁·k₁ превысила q₁·k₀ с запасом: веса решает разность оценок.",
                "c": "Направить q₁ точно на k₁, а длина запроса на веса не влияет.",
                "d": "Одним q₁ этого не сделать: веса меняются, только когда двигаются ключи.",
                "right": "В строке из двух весов всё решает разность масштабированных оценок (q₁·k₁ − q₁·k₀)/√2: "
                    "поверните q₁ от k₀ к k₁ и, если не хватит, удлините его.",
                "why_a": "Запрос сравнивается только с ключами, значения в оценки не входят. Куда сдвинется o₁, "
                    "решают веса, а веса — оценки q₁·k.",
                "why_c": "Длина влияет: она умножает обе оценки строки, а с ними и их разность. Короткий q₁, "
                    "направленный на k₁, может не дотянуть до 0.9, длинный дотянет.",
                "why_d": "Оценка q₁·k зависит от обоих векторов, поэтому q₁ меняет свою строку весов так же, как её "
                    "меняли бы ключи.",
                "explain": "В строке из двух весов вес k₁ растёт с разностью оценок q₁·k₁ − q₁·k₀; её меняют и "
                    "направление, и длина q₁.",
                "hint_stage": "Значения участвуют в оценках или только в смеси?",
                "hint_formula": "Для двух масштабированных оценок s₀, s₁ softmax даёт второму весу 1/(1 + e^(s₀ − "
                    "s₁)): он зависит только от разности s₁ − s₀.",
            },
            "en": {
                "title": "what q₁ needs to give k₁ a weight of 0.9",
                "prompt": "The task: move only q₁ so that at least 0.9 of its weight goes to k₁ (and the output o₁ "
                    "comes close to v₁). Predict first: what does that need?",
                "a": "Turn q₁ towards v₁: an output is drawn to the value that its query points at.",
                "b": "Make q₁·k₁ exceed q₁·k₀ by a wide margin: the difference of scores decides.",
                "c": "Point q₁ straight at k₁; a query's length does not affect the weights.",
                "d": "q₁ alone cannot do it: weights change only when the keys move.",
                "right": "In a row of two weights the difference of scaled scores (q₁·k₁ − q₁·k₀)/√2 decides "
                    "everything: turn q₁ from k₀ towards k₁ and, if that is not enough, make it longer.",
                "why_a": "A query is compared with keys only; values take no part in the scores. Where o₁ moves is "
                    "decided by the weights, and the weights by the scores q₁·k.",
                "why_c": "Length counts: it multiplies both scores of the row, and their difference with them. A "
                    "short q₁ pointed at k₁ may fall short of 0.9; a long one gets there.",
                "why_d": "The score q₁·k depends on both vectors, so q₁ changes its row of weights just as moving the "
                    "keys would.",
                "explain": "In a row of two weights, k₁'s weight grows with the difference of scores q₁·k₁ − q₁·k₀, "
                    "which both q₁'s direction and its length change.",
                "hint_stage": "Do the values take part in the scores, or only in the mixture?",
                "hint_formula": "For two scaled scores s₀, s₁ softmax gives the second weight 1/(1 + e^(s₀ − s₁)): it "
                    "depends only on the difference s₁ − s₀.",
            },
        },
    ),
    _move(
        "plane-strong",
        notebook="02_scores_softmax_mixture", instance="worked",
        skills=("skill.row-softmax",),
        judge=_strong,
        facts=_strong_facts,
        gives_away={
            "ru": (r"поверн\w+ q1 от k0 к k1",),
            "en": (r"turn q1 from k0 towards k1",),
        },
        strings={
            "ru": {
                "title": "q₁, отдавший k₁ не меньше 0.9",
                "prompt": "Теперь сдвиньте на плоскости выше только q₁ — так, чтобы вес A₁₁ стал не меньше 0.9, — и "
                    "нажмите «Проверить».",
                "form": "check(\"plane-strong\", plane), где plane — плоскость выше",
                "right": "Получилось: при q₁ = {q1} оценки {s0} и {s1}, вес k₁ — {w1}, и выход o₁ = {o1} подошёл к v₁ "
                    "= {v1}.",
                "value": "q₁ смотрит туда же, куда v₁, но значения в оценки не входят: k₁ получает вес {w1}. Вес "
                    "определяется разностью масштабированных оценок (q₁·k₁ − q₁·k₀)/√2 = {gap}, а для веса {goal} она "
                    "должна быть не меньше ln 9 ≈ {need}.",
                "missing": "q₁ отдаёт k₁ вес {w1}, а нужно не меньше {goal}. Разность масштабированных оценок (q₁·k₁ "
                    "− q₁·k₀)/√2 сейчас {gap}, а нужно не меньше ln 9 ≈ {need}.",
                "short": "q₁ направлен на k₁, но короток (длина {length}): k₁ получает только {w1}. Длина умножает "
                    "разность оценок — удлините q₁, пока (q₁·k₁ − q₁·k₀)/√2 = {gap} не дойдёт до ln 9 ≈ {need}.",
                "answer": "подходит любой q₁, у которого (q₁·k₁ − q₁·k₀)/√2 ≥ ln 9 ≈ {need}: например, q₁, "
                    "направленный прямо на k₁ и той же длины, q₁ = {k1}, отдаёт k₁ вес {w1} (нужно не меньше {goal})",
                "explain": "Вес k₁ в строке q₁ определяется разностью масштабированных оценок (q₁·k₁ − q₁·k₀)/√2, а "
                    "вес 0.9 — разностью ln 9.",
                "hint_stage": "Следите на рисунке за двумя оценками строки q₁: какая должна стать больше?",
                "hint_formula": "Весу 0.9 нужна разность масштабированных оценок ln 9 ≈ {need}, то есть q₁·k₁ − q₁·k₀ "
                    "≥ √2·ln 9 ≈ {need_raw}. Поверните q₁ к k₁ и, если не хватит, удлините.",
            },
            "en": {
                "title": "q₁ that gives k₁ at least 0.9",
                "prompt": "Now move only q₁ on the plane above, so that the weight A₁₁ becomes at least 0.9, and "
                    "press “Check”.",
                "form": "check(\"plane-strong\", plane), where plane is the plane above",
                "right": "Done: with q₁ = {q1} the scores are {s0} and {s1}, k₁'s weight is {w1}, and the output o₁ = "
                    "{o1} has come close to v₁ = {v1}.",
                "value": "q₁ points where v₁ does, but values take no part in the scores: k₁ gets a weight of {w1}. "
                    "The weight follows the difference of scaled scores (q₁·k₁ − q₁·k₀)/√2 = {gap}, and a weight of "
                    "{goal} needs at least ln 9 ≈ {need}.",
                "missing": "q₁ gives k₁ a weight of {w1}, and it needs at least {goal}. The difference of scaled "
                    "scores (q₁·k₁ − q₁·k₀)/√2 is {gap} now; it needs at least ln 9 ≈ {need}.",
                "short": "q₁ points at k₁ but is short (length {length}): k₁ gets only {w1}. Length multiplies the "
                    "difference of scores: make q₁ longer until (q₁·k₁ − q₁·k₀)/√2 = {gap} reaches ln 9 ≈ {need}.",
                "answer": "any q₁ with (q₁·k₁ − q₁·k₀)/√2 ≥ ln 9 ≈ {need}: for example q₁ pointed straight at k₁ and "
                    "of the same length, q₁ = {k1}, gives k₁ a weight of {w1} (at least {goal} needed)",
                "explain": "k₁'s weight in q₁'s row is set by the difference of scaled scores (q₁·k₁ − q₁·k₀)/√2, and "
                    "a weight of 0.9 by a difference of ln 9.",
                "hint_stage": "Watch the two scores of q₁'s row in the figure: which must become the larger?",
                "hint_formula": "A weight of 0.9 needs a difference of scaled scores of ln 9 ≈ {need}, that is q₁·k₁ "
                    "− q₁·k₀ ≥ √2·ln 9 ≈ {need_raw}. Turn q₁ towards k₁ and, if that is not enough, make it longer.",
            },
        },
    ),
)
