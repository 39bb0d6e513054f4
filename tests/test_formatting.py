"""Numbers as a person writes them: a vector or matrix whose entries are all whole prints without decimals,
any other with the same decimals in every entry, wherever the chapter shows one."""

import re

import numpy as np

from llm_from_scratch.book.blocks import to_html, to_text
from llm_from_scratch.book.figures import Panel, line_panels
from llm_from_scratch.book.formatting import matrix, powers_of_two, table, vector
from llm_from_scratch.ch27.evidence import LearnerEvidence
from llm_from_scratch.ch27.figures import matrix_figures
from llm_from_scratch.ch27.sections import inputs, scores, softmax_rows


def test_a_whole_vector_or_matrix_prints_without_decimals():
    assert vector([0.0, 3.0, -1.0]) == "[0,3,-1]"
    assert matrix([[0.0, 3.0], [2.0, -1.0]]) == "[[0,3], [2,-1]]"
    assert vector([2.0 + 1e-14, -1e-13]) == "[2,0]", "float noise is whole, and zero has no sign"


def test_any_other_keeps_the_decimals_in_every_entry():
    assert vector([1.0, 0.985834]) == "[1.000000,0.985834]"
    assert matrix([[1.0, 0.0], [0.5, 0.5]], 3) == "[[1.000,0.000], [0.500,0.500]]", "decided for the whole matrix"
    assert vector([1.0, np.nan]) == "[1,NaN]", "no number is not a decimal: it does not decide the places"
    assert vector([1e12, 2.0]) == "[1.000000e+12,2.000000]", "a number too large to write out is not whole"


def test_a_table_is_decided_as_a_whole():
    assert table([[0.0, 6.0], [6.0, -4.0]], ["q_0", "q_1"], ["k_0", "k_1"]).splitlines() == [
        "     k_0  k_1", "q_0    0    6", "q_1    6   -4"]
    assert table([[1.0, 0.25]], ["a"], ["x", "y"]).splitlines()[1] == "a  1.000000  0.250000"


def test_the_worked_example_shows_whole_matrices_without_decimals():
    run = LearnerEvidence().worked
    shown = to_text(inputs(run), scores(run), softmax_rows(run))
    assert "  q_0   0   3\n  q_1   2  -1" in shown and "  q_0    0    6\n  q_1    6   -4" in shown
    assert "A_0,: = [0.014166,0.985834]" in shown
    html = to_html(inputs(run))
    assert ">-1</td>" in html and ".000000" not in html


def test_figures_label_their_cells_and_tables_the_same_way():
    run = LearnerEvidence().worked
    [raw], [weights] = matrix_figures(run.head.raw_scores, "scores"), matrix_figures(run.weights, "weights")
    cells = re.compile(r">(-?\d+(?:\.\d+)?)</text>")
    assert cells.findall(raw.svg) == ["0", "6", "6", "-4"] and "q_1    6   -4" in raw.table
    found = cells.findall(weights.svg)
    assert len(found) == 4 and all(re.fullmatch(r"\d\.\d{6}", cell) for cell in found), found
    series = {"count": np.array([2.0, 4.0]), "mean": np.array([1.0, 1.5])}
    plot = line_panels(["1", "2"], "x", [Panel("p", "y", series)])
    assert plot.table.splitlines()[1:] == ["x  count  mean", "1  2  1.0000", "2  4  1.5000"]


def test_powers_of_two_are_written_as_numbers_while_short_else_all_with_a_raised_exponent():
    assert powers_of_two([-3, -1, 0, 1, 6, 12, 16]) == ["0.125", "0.5", "1", "2", "64", "4096", "65536"]
    assert powers_of_two([-6, -4, 0, 8]) == ["2⁻⁶", "2⁻⁴", "2⁰", "2⁸"], "one long tick: every tick a power"
    assert powers_of_two([20]) == ["2²⁰"]


def test_a_log_scale_names_its_ticks_by_their_values_not_as_code():
    svg = line_panels(["1", "2"], "x", [Panel("t", "y", {"a": np.array([0.125, 512.0])}, log2_y=True)]).svg
    ticks = re.findall(r">([^<>]+)</text>", svg)
    assert {"0.25", "1", "256"} <= set(ticks) and not any("^" in tick for tick in ticks), ticks
