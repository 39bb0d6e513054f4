"""Accessibility without a browser: contrast of heatmap numbers, text alternatives, names, language, focus.

The browser test (tests/test_browser.py) runs axe-core over the rendered outputs and
walks the keyboard path; these check the same promises at their source.
"""

import math
import re
from html import escape

import matplotlib
import numpy as np
import pytest
from support.browser import blocking

from llm_from_scratch.book.declare import OPTIONS
from llm_from_scratch.book.figures import (
    COLORMAP,
    Panel,
    contrast_ratio,
    heatmap,
    line_panels,
    relative_luminance,
    text_colour,
)
from llm_from_scratch.book.text import book_text, set_language
from llm_from_scratch.book.widgets import (
    ASSETS,
    LIVE_CLASS,
    ExerciseForm,
    LiveWidget,
    Slider,
    _LiveMark,
    figure_html,
    pre,
)
from llm_from_scratch.ch27.exercises import EXERCISE_BOOK
from llm_from_scratch.ch27.widgets import KEY_WIDTHS, ScaleExplorer, WidthExplorer

WCAG_TEXT = 4.5  # WCAG 2 AA, 1.4.3: normal-size text
WCAG_GRAPHICS = 3.0  # WCAG 2.1 AA, 1.4.11: user-interface components and graphical objects


def hex_colour(value: str) -> tuple[float, float, float]:
    return tuple(int(value[i:i + 2], 16) / 255 for i in (1, 3, 5))


# --- contrast ----------------------------------------------------------------------------

def test_wcag_luminance_and_contrast_have_their_known_values():
    assert relative_luminance((0, 0, 0)) == 0 and relative_luminance((1, 1, 1)) == pytest.approx(1)
    assert contrast_ratio((0, 0, 0), (1, 1, 1)) == pytest.approx(21)
    assert contrast_ratio((1, 1, 1), (0, 0, 0)) == pytest.approx(21), "the order does not matter"
    assert contrast_ratio((0.3, 0.6, 0.9), (0.3, 0.6, 0.9)) == 1
    assert contrast_ratio(hex_colour("#767676"), (1, 1, 1)) == pytest.approx(4.54, abs=0.01)  # the AA grey


def test_every_colour_of_the_colormap_takes_a_number_at_4_5_to_1_or_more():
    """Over the whole colormap (each of its entries and 10001 shades between), black or white text, as the
    heatmap chooses it, contrasts at least 4.5:1 with its cell."""
    colormap = matplotlib.colormaps[COLORMAP]
    colours = [colormap(i) for i in range(colormap.N)] + [colormap(s) for s in np.linspace(0, 1, 10001)]
    worst = min(contrast_ratio(c, (0, 0, 0) if text_colour(c) == "black" else (1, 1, 1)) for c in colours)
    assert worst >= WCAG_TEXT, f"the worst number contrasts {worst:.2f}:1"


def test_the_colormap_keeps_its_order_in_greyscale():
    """cividis grows lighter from one end to the other, so a greyscale print keeps the order of the values."""
    colormap = matplotlib.colormaps[COLORMAP]
    luminance = [relative_luminance(colormap(i)) for i in range(colormap.N)]
    assert all(a < b for a, b in zip(luminance, luminance[1:]))


@pytest.mark.parametrize("value_range", [None, (0.0, 1.0), (-5.0, 5.0)])
def test_every_number_drawn_in_a_heatmap_cell_contrasts_with_its_cell(value_range):
    """Read back from the SVG: each cell's fill and the colour of the number drawn in it."""
    rng = np.random.default_rng(16)
    matrix = np.concatenate([np.linspace(-5, 5, 24), rng.uniform(-5, 5, 12)]).reshape(6, 6)
    if value_range == (0.0, 1.0):
        matrix = (matrix + 5) / 10
    labels = [f"x_{i}" for i in range(6)]
    svg = heatmap(matrix, labels, labels, "t", "rows", "columns", value_range=value_range).svg
    cells = [fill for fill, stroke in re.findall(r'style="fill: (#[0-9a-f]{6}); stroke: (#[0-9a-f]{6})', svg)
             if fill == stroke]
    styles = re.findall(r'<text style="([^"]*)"[^>]*>-?\d+\.\d+</text>', svg)
    numbers = [re.search(r"fill: (#[0-9a-f]{6})", style)[1] if "fill:" in style else "#000000" for style in styles]
    assert len(cells) == len(numbers) == matrix.size
    ratios = [contrast_ratio(hex_colour(cell), hex_colour(number)) for cell, number in zip(cells, numbers)]
    assert min(ratios) >= WCAG_TEXT, min(ratios)
    assert {"#000000", "#ffffff"} == set(numbers), "dark cells take white numbers, light cells black ones"


def test_values_that_differ_only_by_rounding_take_one_colour():
    """Row sums of 1 and 1 − 2⁻⁵³ (which one comes out depends on numpy's order of summing) print as 1 and 1:
    they are drawn in one colour, not at the colormap's two ends; a real difference still spans it."""
    def fills(matrix):
        svg = heatmap(np.array(matrix), ["a", "b"], ["c"], "t", "r", "c", role=None).svg
        return [fill for fill, stroke in re.findall(r'style="fill: (#[0-9a-f]{6}); stroke: (#[0-9a-f]{6})', svg)
                if fill == stroke]
    assert len(set(fills([[1.0], [1.0 - 2**-53]]))) == 1
    assert len(set(fills([[1.0], [0.999]]))) == 2


def test_frames_lines_and_the_focus_ring_contrast_at_3_to_1_or_more_with_white():
    svg = heatmap(np.eye(2), ["a", "b"], ["c", "d"], "t", "r", "c", role="key").svg
    strokes = set(re.findall(r"stroke: (#[0-9a-f]{6})", svg)) - set(re.findall(r"fill: (#[0-9a-f]{6})", svg))
    assert strokes == {"#000000"}, "the frame is black"
    ring = re.search(r"outline: 2px solid (#[0-9a-f]{6})", (ASSETS / "live.css").read_text())[1]
    assert contrast_ratio(hex_colour(ring), (1, 1, 1)) >= WCAG_GRAPHICS
    plot = line_panels(["1", "2"], "x", [Panel("p", "y", {"a": np.array([1.0, 2.0])})], mark=1).svg
    for grey in re.findall(r"stroke: (#[0-9a-f]{6})", plot):
        if grey not in ("#cccccc", "#ffffff"):  # the grid is a faint guide, not information
            assert contrast_ratio(hex_colour(grey), (1, 1, 1)) >= WCAG_GRAPHICS, grey


# --- text alternatives -------------------------------------------------------------------

@pytest.fixture(params=["ru", "en"])
def lang(request):
    set_language(request.param)
    yield request.param
    set_language("ru")


def test_a_figure_is_an_image_with_its_alternative_in_the_learners_language(lang):
    figure = heatmap(np.eye(2), ["a", "b"], ["c", "d"], "The title", "r", "c")
    svg = figure.described_svg()
    assert re.search(r"<svg[^>]*>\s*<title>The title</title><desc>[^<]+</desc>", svg)
    html = figure._repr_html_()
    assert re.match(rf'<img alt="The title\. [^"]+" src="data:image/svg\+xml;base64,[^"]+" lang="{lang}">$', html)


@pytest.mark.slow
def test_the_live_widgets_figures_are_described_too(lang):
    width = WidthExplorer()
    for explorer in (ScaleExplorer(), width):
        assert '<div role="img" aria-label="' in explorer.figure.value
        assert "<title>" in explorer.figure.value and "<desc>" in explorer.figure.value
    for figure in (width.render(width.state_for(64))[0], width.averages):
        assert f'aria-label="{escape(figure.title)}. {escape(book_text("figure.live"))}"' in figure_html(figure)
        assert book_text("figure.alt") not in figure_html(figure), "no table stands beside a live figure"


@pytest.mark.slow
def test_a_figure_drawn_inline_styles_nothing_outside_itself():
    """matplotlib's rule for every element ("*") is gone: inline in a live widget it restyled the whole page on
    each step; its line joins and caps are the figure root's attributes, inherited by the figure alone."""
    for figure in (heatmap(np.eye(2), ["a", "b"], ["c", "d"], "T", "r", "c"), WidthExplorer().averages):
        assert "<style" not in figure.svg
        assert re.search(r'<svg stroke-linejoin="round" stroke-linecap="butt" ', figure.svg)


# --- names, language, focus, feedback --------------------------------------------------------

def test_a_slider_is_a_named_native_range_whose_value_text_is_its_label(lang):
    slider = Slider(options=[("0.500", 0.5), ("1/√2", 1 / math.sqrt(2)), ("1.000", 1.0)], value=1 / math.sqrt(2),
                    description="factor")
    assert (slider.index, slider.label, slider.labels) == (1, "1/√2", ["0.500", "1/√2", "1.000"])
    assert (slider.description, slider.lang) == ("factor", lang)
    seen = []
    slider.observe(lambda change: seen.append(change["new"]), names="value")
    slider.index = 2  # what the browser sends when an arrow key moves the input
    assert slider.value == 1.0 and seen == [1.0]
    slider.value = 0.5  # what a button does in the kernel
    assert slider.index == 0 and seen == [1.0, 0.5]
    slider.value = 0.25  # none of its steps: said in one line (tests/test_widgets.py), and the slider stays
    assert slider.value == 0.5 and seen == [1.0, 0.5]
    assert Slider(options=[1, 2, 4], value=4).labels == ["1", "2", "4"]
    for needed in ('type: "range"', "label.htmlFor = id", "aria-valuetext", "stopPropagation", '"ArrowLeft"',
                   '"Home"', '"PageUp"'):
        assert needed in Slider._esm, needed


@pytest.mark.slow
def test_the_explorers_sliders_keep_the_chapters_values(lang):
    scale, width = ScaleExplorer(), WidthExplorer()
    assert isinstance(scale.slider, Slider) and isinstance(width.slider, Slider)
    assert scale.slider.label == "0.707" and width.slider.labels == [str(d) for d in KEY_WIDTHS]


def test_a_live_widget_is_marked_with_the_learners_language_and_shows_focus(lang):
    live = LiveWidget([], "a widget")
    [mark] = [c for c in live.children if isinstance(c, _LiveMark)]
    assert mark.lang == lang and LIVE_CLASS in live._dom_classes
    css = str(mark._css)
    assert f".{LIVE_CLASS}" in css and "outline: 2px solid" in css and ":focus" in css
    assert mark.live_class == LIVE_CLASS, "the module finds the widget by the class the kernel gave it"
    assert repr(live) == "a widget"


@pytest.mark.parametrize("exercise_id", [e for e in EXERCISE_BOOK.exercises if EXERCISE_BOOK[e].kind == "choice"])
def test_a_choice_list_is_named(exercise_id):
    form = ExerciseForm(EXERCISE_BOOK, exercise_id)
    assert EXERCISE_BOOK.title(exercise_id) in form.choices.tooltip
    assert form.choices.description == "", "the name is the tooltip, which ipywidgets writes as the list's title"
    assert [value for _, value in form.choices.options] == list(OPTIONS)


def test_feedback_and_solutions_are_status_regions_in_the_learners_language(lang):
    feedback = EXERCISE_BOOK.check("output-shape", "[4, 7, 5]")._repr_html_()
    solution = EXERCISE_BOOK.reveal("output-shape")._repr_html_()
    for html in (feedback, solution):
        assert html.startswith(f'<div role="status" lang="{lang}"'), html[:80]


def test_widget_numbers_wrap_between_words_only():
    assert "word-break:normal" in pre("d_k = 64: 61.022") and "white-space:pre-wrap" in pre("x")


def test_only_serious_and_critical_violations_block():
    def violation(impact):
        return {"id": f"rule-{impact}", "impact": impact, "nodes": [{"target": ["#x"], "failureSummary": "Fix it"}]}

    result = {"violations": [violation(i) for i in ("minor", "moderate", "serious", "critical")]}
    assert [line.split()[1] for line in blocking(result)] == ["rule-serious", "rule-critical"]


def test_a_title_breaks_between_words_never_inside_an_expression_or_parentheses():
    from llm_from_scratch.book.figures import wrap_title

    lines = wrap_title("Время прямого+обратного прохода, мс (B = 1, d = 64)", 40).splitlines()
    assert lines == ["Время прямого+обратного прохода, мс", "(B = 1, d = 64)"]
    assert wrap_title("a = 1 b = 2", 5).splitlines() == ["a = 1", "b = 2"]
