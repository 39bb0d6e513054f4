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
    with pytest.raises(ValueError, match="конечными"):
        plane.move("q0", float("nan"), 0)


def test_a_move_from_the_browser_is_drawn_and_answered(monkeypatch):
    plane = VectorPlane()
    sent = []
    monkeypatch.setattr(plane, "send", sent.append)
    plane._on_message(plane, {"move": "k1", "x": 3, "y": 0}, [])
    assert sent == [{"done": True}], "the browser may send the next position"
    assert plane.weights[0, 0] == pytest.approx(0.5) and "k₁ = (3, 0)" in plane.svg
    assert "0.500, 0.500" in plane.announce
    plane._on_message(plane, {"select": "q1"}, [])
    assert "перпендикуляр от q₁" in plane.svg


def test_static_and_live_draw_the_same_svg_and_the_text_alternative_has_every_number():
    plane = VectorPlane()
    static = plane_figure(plane.state)
    assert static.svg == plane.svg == plane_svg(plane_state(default_vectors()))
    for name in ("q₀ = (0, 3)", "k₁ = (-1, 2)", "v₀ = (3, -3)", "q₀: 0.014, 0.986", "o₀ = (1.03, 2.92)"):
        assert name in static.table, name
    assert static._repr_html_().startswith("<img alt=")


def test_every_tip_is_reachable_and_named_with_its_coordinates():
    svg = VectorPlane().svg
    tips = re.findall(r'<circle class="plane-tip"[^>]*>', svg)
    assert len(tips) == len(NAMES)
    for tip in tips:
        assert 'tabindex="0"' in tip and 'role="button"' in tip and re.search(r'aria-label="[qkv]. = \(', tip)


def test_the_figure_is_the_same_bytes_every_time():
    assert plane_svg(plane_state(default_vectors()), "q1") == plane_svg(plane_state(default_vectors()), "q1")
