"""The vector plane: the worked example as geometry, every number the engine's."""

import math
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.oracle import softmax

from llm_from_scratch.ch27.plane import LIMIT, NAMES, VectorPlane, default_vectors, plane_figure, plane_state, plane_svg

coordinate = st.floats(-LIMIT, LIMIT, allow_nan=False).map(lambda x: round(x, 1))


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.sampled_from(NAMES), st.tuples(coordinate, coordinate)))
def test_the_planes_numbers_are_the_engines_for_any_positions(moves):
    plane = VectorPlane()
    for name, (x, y) in moves.items():
        plane.move(name, x, y)
    vectors = {**default_vectors(), **moves}
    q, k, v = (np.array([vectors[f"{r}{i}"] for i in (0, 1)]) for r in "qkv")
    weights = softmax(q @ k.T / math.sqrt(2))
    np.testing.assert_allclose(plane.weights, weights, atol=1e-12)
    np.testing.assert_allclose(plane.state.outputs, weights @ v, atol=1e-12)
    for i, row in enumerate(plane.state.weights):  # an output is on the segment between the values
        np.testing.assert_allclose(plane.state.outputs[i], row[0] * v[0] + row[1] * v[1], atol=1e-12)


def test_the_default_state_is_the_worked_example():
    plane = VectorPlane()
    assert plane.weights[0, 1] == pytest.approx(0.985834, abs=1e-6)
    plane.move("k1", 3, 0)
    assert plane.weights[0, 0] == pytest.approx(0.5), "k₁ = k₀: q₀ weighs them equally"
    plane.reset()
    assert plane.weights[0, 1] == pytest.approx(0.985834, abs=1e-6)


def test_a_tip_stays_inside_the_planes_and_a_wrong_move_is_told_in_the_learners_language():
    plane = VectorPlane()
    plane.move("v0", 100, -100)
    assert plane.state.vectors["v0"] == (LIMIT, -LIMIT)
    with pytest.raises(ValueError, match="Вектора «k2» на плоскости нет"):
        plane.move("k2", 0, 0)
    with pytest.raises(ValueError, match="Координаты q₀ должны быть конечными"):
        plane.move("q0", float("nan"), 0)


def test_a_move_from_the_browser_is_drawn_and_answered(monkeypatch):
    plane = VectorPlane()
    sent = []
    monkeypatch.setattr(plane, "send", sent.append)
    plane._on_message(plane, {"move": "k1", "x": 3, "y": 0}, [])
    assert sent == [{"done": True}], "the browser may send the next position"
    assert plane.weights[0, 0] == pytest.approx(0.5) and "k₁ = (3, 0)" in plane.description
    assert plane.positions["k1"] == [3.0, 0.0], "the range inputs follow the move"
    assert "0.500, 0.500" in plane.announce
    plane._on_message(plane, {"select": "q0"}, [])
    assert "перпендикуляры от q₀" in plane.svg


def test_static_and_live_draw_the_same_svg_and_the_text_alternative_has_every_number():
    plane = VectorPlane()
    static = plane_figure(plane.state)
    assert static.svg == plane.svg == plane_svg(plane_state(default_vectors()))
    for name in ("q₀ = (0, 3)", "k₁ = (-1, 2)", "v₀ = (3, -3)", "q₀: 0.014, 0.986", "o₀ = (1.03, 2.92)"):
        assert name in static.table, name
    assert static._repr_html_().startswith("<img alt=")


def test_the_tips_are_for_the_pointer_and_the_range_inputs_for_the_keyboard():
    """The figure is one image (its tips take a pointer, not the focus); the keyboard and screen readers move the
    vectors with native range inputs, x and y for each, described by the instructions."""
    plane = VectorPlane()
    tips = re.findall(r'<circle class="plane-tip"[^>]*>', plane.svg)
    assert len(tips) == len(NAMES) and not any("tabindex" in t or "role=" in t for t in tips)
    script = plane._esm
    assert 'type: "range"' in script and "aria-describedby" in script and "aria-roledescription" not in script
    assert set(plane.positions) == set(NAMES) and "стрелками сдвигают на 0.5" in plane.keys_label


def labels_of(svg: str) -> list[tuple[float, float, str]]:
    """Each label on a halo: where it stands and what it says."""
    return [(float(x), float(y), words) for x, y, words in
            re.findall(r'<text x="([\d.]+)" y="([\d.]+)"[^>]*paint-order="stroke">([^<]*)</text>', svg)]


def test_every_label_stands_clear_of_the_tips_in_the_worked_example():
    svg = VectorPlane().svg
    labels = labels_of(svg)
    assert sorted(w.split()[0] for _, _, w in labels) == sorted(["q₀", "q₁", "k₀", "k₁", "v₀", "v₁", "o₀", "o₁"])
    tips = [(float(x), float(y)) for x, y in re.findall(r'class="plane-tip"[^>]*cx="([\d.]+)" cy="([\d.]+)"', svg)]
    for x, y, words in labels:  # a label's start is at least its offset from every tip
        assert all(abs(x - tx) >= 9 or abs(y - 4 - ty) >= 9 for tx, ty in tips), words
    assert len({(x, y) for x, y, _ in labels}) == len(labels)


def test_the_outputs_show_inside_the_values_tips_they_almost_are():
    """o₀ ≈ v₁ and o₁ ≈ v₀ in the worked example: each output's mark sits inside that value's ring (radius 7)."""
    svg = VectorPlane().svg
    tip = {n: (float(x), float(y)) for n, x, y in
           re.findall(r'data-name="(v\d)"[^>]*cx="([\d.]+)" cy="([\d.]+)"', svg)}
    disc = re.search(r'<circle cx="([\d.]+)" cy="([\d.]+)" r="4.5" fill="#000"/>', svg)
    square = re.search(r'<rect x="([\d.]+)" y="([\d.]+)" width="8" height="8" fill="#000"/>', svg)
    o0, o1 = (float(disc[1]), float(disc[2])), (float(square[1]) + 4, float(square[2]) + 4)
    assert math.dist(o0, tip["v1"]) + 4.5 < 7 and math.dist(o1, tip["v0"]) + 4 < 7


def test_a_foot_outside_the_plane_is_not_drawn_and_its_perpendicular_stops_at_the_edge():
    vectors = {**default_vectors(), "q1": (6.0, 6.0), "k0": (0.866, 0.5)}  # the foot lies at about (7.1, 4.1)
    svg = plane_svg(plane_state(vectors), "q1")
    feet = re.findall(r'<rect x="[\d.]+" y="[\d.]+" width="6" height="6"', svg)
    assert len(feet) == 1, "k₁'s foot only"
    drops = re.findall(r'<line x1="([\d.]+)" y1="([\d.]+)" x2="([\d.]+)" y2="([\d.]+)" stroke="#000" '
                       r'stroke-width="1.5" stroke-dasharray="4 3"/>', svg)
    assert all(10 <= float(x) <= 250 and 30 <= float(y) <= 270 for d in drops for x, y in (d[:2], d[2:])), drops


def test_the_figure_is_the_same_bytes_every_time():
    assert plane_svg(plane_state(default_vectors()), "q1") == plane_svg(plane_state(default_vectors()), "q1")


# --- the challenges ------------------------------------------------------------------------

def moved(**vectors) -> dict:
    return {**default_vectors(), **vectors}


JUDGED = [  # (challenge, the plane's vectors, right, what the message says)
    ("plane-equal", moved(k1=(-2, 0)), True, "0.500 и 0.500"),
    ("plane-equal", moved(k1=(3, 0.01)), True, "важна эта проекция"),
    ("plane-equal", moved(k1=(4.5, 0.1)), False, "Почти: q₀·k₁ = 0.30, а нужно 0.00"),
    ("plane-equal", moved(k1=(3, 0.1)), False, "Почти"),
    ("plane-equal", moved(k1=(4.5, 1.5)), False, "оценки q₀·k₀ = 0.00 и q₀·k₁ = 4.50 не равны"),
    ("plane-equal", moved(k1=(0, 3)), False, "той же длины"),
    ("plane-equal", moved(), False, "k₁ всё ещё в исходной точке (-1, 2)"),
    ("plane-equal", moved(k1=(-2, 0), q1=(0, 0)), False, "а сдвинуты и другие: q₁ = (0, 0)"),
    ("plane-equal", moved(k1=(-2, 0), k0=(3.001, 0)), True, "0.500"),  # a move no one can see is no move
    ("plane-strong", moved(q1=(-1, 2)), True, "вес k₁ — 0.997"),
    ("plane-strong", moved(q1=(-0.5, 0.5)), False, "0.893, а нужно не меньше 0.9"),
    ("plane-strong", moved(q1=(1, 3)), False, "значения в оценки не входят"),
    ("plane-strong", moved(q1=(-0.2, 0.4)), False, "направлен на k₁, но короток (длина 0.45)"),
    ("plane-strong", moved(q1=(-1, 2), k1=(0, 0)), False, "другие: k₁ = (0, 0)"),
    ("plane-long", moved(q0=(0, 6)), True, "[0.0002,0.9998] вместо [0.014,0.986]"),
    ("plane-long", moved(q0=(0, 4.5)), False, "сейчас 4.5, а нужна ровно 6 — вдвое больше исходной 3"),
    ("plane-long", moved(q0=(0, 1.5)), False, "сейчас 1.5"),
    ("plane-long", moved(q0=(0.1, 6)), False, "отклонился от исходного направления (0, 3)"),
    ("plane-long", moved(q0=(1, 6)), False, "отклонился"),
    ("plane-long", moved(q0=(0, -6)), False, "в обратную сторону"),
    ("plane-long", moved(q0=(0, 0)), False, "нулевой вектор"),
    ("plane-long", moved(q0=(0, 6), v0=(0, 0)), False, "другие: v₀ = (0, 0)"),
]


@pytest.mark.parametrize("challenge, vectors, right, words", JUDGED, ids=lambda x: x if isinstance(x, str) else None)
def test_each_challenge_accepts_what_meets_it_and_names_what_is_missing(challenge, vectors, right, words):
    from llm_from_scratch.ch27.exercises import check

    check(f"{challenge}-prediction", "a")
    feedback = check(challenge, vectors)
    assert feedback.correct is right and words in feedback.message, feedback.message


def test_a_move_is_judged_only_after_its_prediction_and_from_the_plane_itself():
    from llm_from_scratch.ch27.exercises import EXERCISE_BOOK, check, reveal

    attempted = EXERCISE_BOOK.attempted

    plane = VectorPlane()
    plane.move("k1", 2, 0)
    first = check("plane-equal", plane)
    assert not first.correct and "Сначала предскажите" in first.message and not attempted("plane-equal")
    assert check("plane-equal-prediction", "c").correct
    assert check("plane-equal", plane).correct and attempted("plane-equal")
    assert "прямой через k₀ = (3, 0), перпендикулярной q₀ = (0, 3)" in reveal("plane-equal").message
    unread = check("plane-equal", [[1, 2]])
    assert not unread.readable and "плоскость векторов" in unread.message


def test_the_challenge_forms_check_the_plane_as_it_stands():
    from llm_from_scratch.book.widgets import ExerciseForm
    from llm_from_scratch.ch27.exercises import EXERCISE_BOOK

    plane = VectorPlane()
    prediction = ExerciseForm(EXERCISE_BOOK, "plane-long-prediction")
    move = ExerciseForm(EXERCISE_BOOK, "plane-long", source=plane)
    assert move.answer is None and "Проверить" not in move.static_html().split("<p>")[0]
    assert "Сначала предскажите" in move.submit().message
    prediction.answer.value = "c"
    assert prediction.submit().correct
    plane.move("q0", 0, 6)
    assert move.submit().correct and "✔" in move.feedback.value
    plane.reset()
    assert not move.submit().correct, "the form reads the plane at the click, not when it was made"


def test_every_challenge_is_in_02_after_the_plane_in_both_editions():
    from support.notebooks import code_cells, exercises_asked, load

    from llm_from_scratch.book.chapters import chapters

    ch27 = next(c for c in chapters() if c.name == "chapter27")
    for lang in ("ru", "en"):
        path = next(p for p in ch27.notebooks(lang) if p.name.startswith("02_"))
        sources = [c.source for c in code_cells(load(path))]
        plane = next(i for i, source in enumerate(sources) if source.startswith("plane = VectorPlane(Q, K, V, A)"))
        asked = [i for s in sources[plane:] for i in exercises_asked(s)]
        # a longer query is sharper (plane-long) before the task that uses it (plane-strong)
        assert asked == ["plane-equal-prediction", "plane-equal", "plane-long-prediction", "plane-long",
                         "plane-strong-prediction", "plane-strong"]


@settings(max_examples=40, deadline=None)
@given(st.dictionaries(st.sampled_from(NAMES), st.tuples(coordinate, coordinate)))
def test_every_label_stays_inside_its_plane_wherever_the_vectors_go(moves):
    svg = plane_svg(plane_state({**default_vectors(), **moves}))
    for x, y, words in labels_of(svg):
        plane = 510 if words[0] in "vo" else 10
        width = 7.8 * len(words)
        start = {"start": x, "end": x - width, "middle": x - width / 2}[
            re.search(rf'x="{x:.1f}" y="{y:.1f}" font-size="13" text-anchor="(\w+)"', svg)[1]]
        assert plane - 0.1 <= start and start + width <= plane + 240 + 0.1 and 30 <= y - 11 and y + 3 <= 270.1, words


def test_a_plane_opens_on_the_cells_vectors_and_returns_to_them():
    from llm_from_scratch import Tensor

    q = Tensor([[[0.0, 3.0], [2.0, -1.0]]]) * 2
    plane = VectorPlane(q, None, np.array([[3.0, -3.0], [1.0, 3.0]]))
    assert plane.state.vectors["q0"] == (0.0, 6.0) and plane.state.vectors["k0"] == (3.0, 0.0)
    assert plane.reset_label == "Вернуть входы из ячейки"
    plane.move("q0", 1.0, 1.0)
    assert plane.reset().vectors["q0"] == (0.0, 6.0)
    assert VectorPlane().reset_label == "Вернуть разобранный пример"



def test_a_plane_of_inputs_it_cannot_draw_says_so_when_shown_and_challenged_and_raises_nothing(capsys):
    from llm_from_scratch.ch27.exercises import challenge

    shown = []
    plane = VectorPlane(np.zeros((1, 3, 4)))
    said = "На плоскости помещаются только две строки по две координаты, а у Q форма [1, 3, 4]."
    assert repr(plane) == said
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("llm_from_scratch.book.widgets.display", lambda html: shown.append(html.data))
        plane.show()
        challenge("plane-equal", plane)
    assert len(shown) == 2 and all(said in html for html in shown)


def cells_weights(divide, axis=2):
    """A as 02's cells compute it on the worked example, the scores divided as ``divide`` says."""
    from llm_from_scratch import Tensor

    Q, K = Tensor([[[0, 3], [2, -1]]]), Tensor([[[3, 0], [-1, 2]]])
    return divide(Q @ K.transpose(1, 2)).softmax(axis)


def test_a_plane_given_the_cells_weights_computes_as_they_do_and_says_so():
    plane = VectorPlane(None, None, None, cells_weights(lambda scores: scores / 2))
    np.testing.assert_allclose(plane.weights[0], [0.047426, 0.952574], atol=1e-6)
    assert plane.note == "Плоскость считает так же, как ваши ячейки: оценки ÷ 2, softmax по каждой строке."
    assert "÷ 2 → 0.00, 3.00" in plane.svg
    plane.move("k1", 3, 0)
    plane.reset()
    np.testing.assert_allclose(plane.weights[0], [0.047426, 0.952574], atol=1e-6, err_msg="reset keeps the stages")
    columns = VectorPlane(None, None, None, cells_weights(lambda scores: scores / math.sqrt(2), axis=1))
    np.testing.assert_allclose(columns.weights.sum(axis=0), [1, 1])
    assert "по каждому столбцу" in columns.note and "Веса (сумма столбца — 1)" in columns.svg
    assert "Веса (сумма строки — 1)" in plane.svg
    assert VectorPlane(None, None, None, cells_weights(lambda scores: scores / math.sqrt(2))).note == ""


def test_a_plane_that_cannot_follow_the_cells_keeps_the_chapters_head_and_gives_both_rows():
    from llm_from_scratch import Tensor

    e = (Tensor([[[0, 3], [2, -1]]]) @ Tensor([[[3, 0], [-1, 2]]]).transpose(1, 2)).exp()
    plane = VectorPlane(None, None, None, e / e.sum(2, keepdims=True))  # a softmax by hand, of unscaled scores
    assert plane.note == ("Ваши ячейки считают A так, как плоскость повторить не может, поэтому здесь показана голова "
                          "главы: её первая строка весов [0.014, 0.986], ваша — [0.002, 0.998].")


def test_a_challenge_judges_the_head_the_plane_computes():
    from llm_from_scratch.ch27.exercises import check

    check("plane-strong-prediction", "a")
    chapters, halved = VectorPlane(), VectorPlane(None, None, None, cells_weights(lambda scores: scores / 2))
    for plane in (chapters, halved):
        plane.move("q1", -0.5, 0.75)  # (q₁·k₁ − q₁·k₀) = 3.5: 0.922 after ÷ √2, 0.852 after ÷ 2
    assert check("plane-strong", chapters).correct and not check("plane-strong", halved).correct


def test_the_editor_given_the_cells_weights_computes_as_they_do():
    from llm_from_scratch.ch27.widgets import HeadEditor

    editor = HeadEditor(None, None, None, cells_weights(lambda scores: scores / 2))
    np.testing.assert_allclose(editor.run.weights[0, 0], [0.047426, 0.952574], atol=1e-6)
    assert editor.note == "Редактор считает так же, как ваши ячейки: оценки ÷ 2, softmax по каждой строке."
    editor.fields[("Q", 0, 0)].value = "1"
    assert abs(editor.run.weights[0, 0].sum() - 1) < 1e-12 and editor.run.head.scale == 0.5


def _challenged(plane, challenge: str, prediction: str):
    """Answer a challenge's prediction, then check its move on ``plane``: the feedback, and whether it was stored."""
    from llm_from_scratch.ch27.exercises import EXERCISE_BOOK, check

    check(f"{challenge}-prediction", prediction)
    return check(challenge, plane), EXERCISE_BOOK.attempted(challenge)


def test_a_plane_on_the_cells_own_vectors_says_whose_they_are_by_value():
    from llm_from_scratch import Tensor

    plane = VectorPlane(Tensor([[[0, 0], [-2, 1]]]))
    assert "Векторы из ваших ячеек" in plane_figure(plane.state, given=plane.start).title
    assert plane.description.startswith("Плоскость векторов из ваших ячеек")
    assert (plane.reset_label, plane.worked_label) == ("Вернуть входы из ячейки", "Вернуть разобранный пример")
    plane.move("k1", 2, 0)
    assert plane.description.startswith("Плоскость передвинутых векторов")
    plane.reset(worked=True)
    assert plane.description.startswith("Плоскость векторов разобранного примера"), "by value, not by the button"
    same = VectorPlane(Tensor([[[0.0, 3.0], [2.0, -1.0]]]))  # the worked example's queries typed in: the worked
    assert same.worked_label == "" and "разобранного примера" in plane_figure(same.state, given=same.start).title


def test_a_challenge_that_does_not_fit_the_cells_vectors_says_why_in_one_line_and_stores_nothing():
    from llm_from_scratch import Tensor

    plane = VectorPlane(Tensor([[[0, 0], [-2, 1]]]))  # q₀ = 0: every key gets the same score
    plane.move("k1", 2, 0)
    feedback, stored = _challenged(plane, "plane-equal", "c")
    assert not feedback.readable and not stored, feedback.message
    assert feedback.message == ("Эта задача не подходит для этой плоскости: q₀ = (0, 0) даёт "
                                "всем ключам одну и ту же оценку, где бы ключи ни стояли. Нажмите «Вернуть "
                                "разобранный пример» под плоскостью: задача поставлена для разобранного примера.")
    feedback, stored = _challenged(plane, "plane-long", "c")
    assert not feedback.readable and not stored and "сдвигать нечего" in feedback.message
    plane.reset(worked=True)  # the button the refusal names: the task as the chapter sets it
    plane.move("k1", 3, 0)
    feedback, stored = _challenged(plane, "plane-equal", "c")
    assert feedback.correct and stored


def test_a_challenge_that_fits_the_cells_vectors_is_judged_on_them():
    from llm_from_scratch import Tensor

    plane = VectorPlane(Tensor([[[1, 1], [0, 1]]]))  # q₀·k₀ = 3, q₀·k₁ = 1: unequal, and k₁ can make them equal
    plane.move("k1", 3, 0)
    feedback, stored = _challenged(plane, "plane-equal", "c")
    assert feedback.correct and stored and "q₀·k₀ = 3.00 и q₀·k₁ = 3.00" in feedback.message, feedback.message
    plane.reset()
    plane.move("q0", 2, 2)  # twice (1, 1), counted from where this plane opened, not from the worked example
    feedback, stored = _challenged(plane, "plane-long", "c")
    assert feedback.correct and stored and "q₀ = (2, 2)" in feedback.message, feedback.message
    plane.reset()
    plane.move("q0", 2, 3)  # another vector moved: said, with the button that returns to the cell's inputs
    feedback, stored = _challenged(plane, "plane-strong", "b")
    assert not feedback.readable and not stored and "«Вернуть входы из ячейки»" in feedback.message


def test_a_plane_shown_again_replaces_the_one_its_forms_were_made_for():
    from llm_from_scratch.ch27.exercises import check

    first, second = VectorPlane(), VectorPlane()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("llm_from_scratch.ch27.plane.display", lambda *_, **__: None)
        patch.setattr("llm_from_scratch.book.widgets.display", lambda *_, **__: None)
        first.show()
        second.show()
    first.move("k1", 3, 0)
    check("plane-equal-prediction", "c")
    replaced = check("plane-equal", first)
    assert not replaced.readable and "заменена" in replaced.message
    second.move("k1", 3, 0)
    assert check("plane-equal", second).correct


def test_the_strong_weights_feedback_writes_the_divisor_the_plane_computed_with():
    plane = VectorPlane(None, None, None, cells_weights(lambda scores: scores / 2))
    plane.move("q1", 1, 1)
    feedback, _ = _challenged(plane, "plane-strong", "b")
    assert "(q₁·k₁ − q₁·k₀)/2 " in feedback.message and "/√2" not in feedback.message, feedback.message


def test_coordinates_of_outputs_keep_two_decimals_beside_each_other():
    from llm_from_scratch.ch27.plane import coordinates

    assert coordinates((3.0, -2.9912)) == "(3.00, -2.99)" and coordinates((3.0, 0.0)) == "(3, 0)"


def test_inputs_off_the_plane_are_refused_in_one_line():
    for huge in (3e200, np.inf):
        plane = VectorPlane(np.array([[huge, 0.0], [0.0, 1.0]]))
        assert "координаты только от −6 до 6" in repr(plane), repr(plane)


def test_a_plane_whose_softmax_runs_along_another_axis_refuses_every_task_by_that_axis():
    columns = VectorPlane(None, None, None, cells_weights(lambda scores: scores / math.sqrt(2), axis=1))
    columns.move("k1", 3, 0)
    feedback, stored = _challenged(columns, "plane-equal", "c")
    assert not feedback.readable and not stored
    assert "как ваши ячейки, — по каждому столбцу, по запросам, — а задача спрашивает о строке весов." in (
        feedback.message), feedback.message
    assert "Вернуть разобранный пример" not in feedback.message, "that button keeps the cells' softmax: no help"


def test_a_plane_whose_softmax_runs_over_the_batch_heads_its_bars_so():
    batch = VectorPlane(None, None, None, cells_weights(lambda scores: scores / math.sqrt(2), axis=0))
    assert "Веса (softmax по пакету)" in batch.svg and "сумма" not in batch.svg.split("Веса")[1][:30]
