"""Chapter 27's explorers: the score factor, d_k, and editable Q/K/V.

Built on ``book.widgets``: each explorer recomputes with the engine, and its
``show()`` prints a snapshot of the default state before the live widget.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from html import escape

import ipywidgets as w
import numpy as np
from IPython.display import HTML, display

from ..book.blocks import Section, Value, to_text
from ..book.figures import Figure, Panel, heatmap, line_panels
from ..book.formatting import labels, num, trimmed, vector
from ..book.widgets import (
    LABEL_STYLE,
    Explorer,
    LiveWidget,
    NotDrawn,
    Slider,
    figure_html,
    lang_div,
    mark_changes,
    snapshot,
)
from ..engine import SelfAttentionError, scaled_dot_product_self_attention
from ..engine.closed_form import array_softmax
from . import sections
from .evidence import HeadRun, evidence, random_query_key, run_head
from .examples import RANDOM_BATCH, RANDOM_SEED, RANDOM_TOKENS, worked_arrays
from .reader import cells_stages, stages_note
from .sections import forward, html_block
from .strings import text

# --- scale -----------------------------------------------------------------------------

@dataclass(frozen=True)
class ScaleState:
    factor: float
    weights: np.ndarray  # [T, T]
    output: np.ndarray  # [T, d_v]
    pair_weight: float  # first weight of array_softmax(factor * [1, 0])


class ScaleExplorer(Explorer):
    """A factor from 0 to 2 multiplies the worked example's raw scores before softmax."""

    def __init__(self) -> None:
        ev = evidence()
        self.run = ev.worked
        self.key_width = self.run.head.key_width
        self.pair_scores = ev.fixed.scale.scores
        self.default = 1.0 / math.sqrt(self.key_width)
        # factors 0 to 2 in steps of 0.05, and 1/sqrt(d_k) itself: a float slider would snap it to 0.70 in
        # the browser, so the live widget would open on other weights than the chapter's
        factors = sorted({round(0.05 * i, 2) for i in range(41)} | {self.default})
        self.slider = Slider(options=[(num(f, 3), f) for f in factors], value=self.default,
                             description=text("widget.scale.slider"))
        self.to_default = w.Button(description=text("widget.scale.to_default", value=num(self.default, 3)))
        self.to_one = w.Button(description=text("widget.scale.to_one"))
        self.to_default.on_click(lambda _: setattr(self.slider, "value", self.default))
        self.to_one.on_click(lambda _: setattr(self.slider, "value", 1.0))
        self.figure = w.HTML()
        self.numbers = w.HTML()
        self.state = self.draw_every_position()

    def state_for(self, factor: float) -> ScaleState:
        weights = array_softmax(factor * self.run.head.raw_scores.data)
        output = weights @ self.run.value
        first = float(array_softmax(factor * np.array(self.pair_scores))[0])
        return ScaleState(float(factor), weights[0], output[0], first)

    def render(self, state: ScaleState) -> tuple[Figure, str]:
        tokens = state.weights.shape[0]
        title = text("widget.scale.title", factor=num(state.factor, 3))
        figure = heatmap(state.weights, labels("q", tokens), labels("k", tokens),
                         title, text("figure.axis.query_rows"), text("figure.axis.key_columns"), role="weight",
                         row_sums=True, value_range=(0.0, 1.0))
        numbers = Section(title, (
            *(Value(f"A_{i},:", vector(row)) for i, row in enumerate(state.weights)),
            *(Value(f"o_{i}", vector(row)) for i, row in enumerate(state.output)),
            Value(text("widget.scale.pair", factor=num(state.factor, 3)), num(state.pair_weight))))
        return figure, to_text(numbers)

    def show(self) -> None:
        """Whose inputs it runs on (not the cells'), the default state for readers without a kernel, the slider."""
        display(HTML(lang_div(f"<p>{escape(text('widget.scale.own_inputs'))}</p>")))
        snapshot(list(self.render(self.state_for(self.default))))
        display(LiveWidget([w.HBox([self.slider, self.to_default, self.to_one]), self.figure, self.numbers],
                           text("widget.scale.repr")))


# --- d_k -------------------------------------------------------------------------------

KEY_WIDTHS = tuple(2**i for i in range(11))  # 1 .. 1024


@dataclass(frozen=True)
class WidthState:
    key_width: int
    variance_raw: float
    variance_scaled: float
    max_weight_raw: float  # mean over rows of the largest softmax weight, no scale
    max_weight_scaled: float
    entropy_raw: float  # mean row entropy in nats
    entropy_scaled: float
    jacobian_raw: float  # mean over rows of the softmax Jacobian's size, see softmax_jacobian_norm
    jacobian_scaled: float
    row_raw: np.ndarray  # the first query's weights, largest first, without the scale
    row_scaled: np.ndarray


class WidthExplorer(Explorer):
    """Random q, k with zero-mean unit-variance components: what d_k does with and without the scale. The first
    query's row of weights at the chosen d_k (it changes with the slider), above the four averages over every d_k
    (they do not). Every d_k is computed when the explorer is made and each row drawn then, the averages once, so
    a step only shows what is drawn (drawing the averages takes some 200 ms)."""

    batch, tokens, seed = RANDOM_BATCH, RANDOM_TOKENS, RANDOM_SEED

    def __init__(self) -> None:
        self.curves = [self.measure(d) for d in KEY_WIDTHS]
        self.averages = self.draw_averages()
        self.slider = Slider(options=list(KEY_WIDTHS), value=64, description=text("widget.width.slider"))
        self.figure = w.HTML()
        self.numbers = w.HTML()
        self.state = self.draw_every_position()

    def measure(self, key_width: int) -> WidthState:
        q, k = random_query_key(key_width)
        head = scaled_dot_product_self_attention(q, k, k)  # keys double as values: only scores matter here
        raw, scaled, weights = head.raw_scores.data, head.scaled_scores.data, head.weights.data
        unscaled_weights = array_softmax(raw)
        return WidthState(key_width, float(raw.var()), float(scaled.var()),
                          float(unscaled_weights.max(axis=-1).mean()), float(weights.max(axis=-1).mean()),
                          _mean_entropy(unscaled_weights), _mean_entropy(weights),
                          float(softmax_jacobian_norm(unscaled_weights).mean()),
                          float(softmax_jacobian_norm(weights).mean()),
                          np.sort(unscaled_weights[0, 0])[::-1], np.sort(weights[0, 0])[::-1])

    def state_for(self, key_width: int) -> WidthState:
        return self.curves[KEY_WIDTHS.index(key_width)]

    def render(self, state: WidthState) -> tuple[Figure, str]:
        """The first query's row at the state's d_k, and its numbers."""
        ranks = [str(j) for j in range(1, self.tokens + 1)]
        row = line_panels(ranks, text("widget.width.rank"), [
            Panel(text("widget.width.row_title", key_width=state.key_width), text("widget.width.row_weight"),
                  {text("widget.width.raw"): state.row_raw, text("widget.width.scaled"): state.row_scaled})])
        return row, self.numbers_for(state)

    def draw_averages(self) -> Figure:
        curves = self.curves

        def series(raw: list[float], scaled: list[float]) -> dict[str, np.ndarray]:
            return {text("widget.width.raw"): np.array(raw), text("widget.width.scaled"): np.array(scaled)}

        return line_panels([str(d) for d in KEY_WIDTHS], "d_k", [
            Panel(text("widget.width.var_title"), text("widget.width.variance"),
                  series([c.variance_raw for c in curves], [c.variance_scaled for c in curves]), log2_y=True),
            Panel(text("widget.width.max_title", tokens=self.tokens), text("widget.width.max_weight"),
                  series([c.max_weight_raw for c in curves], [c.max_weight_scaled for c in curves])),
            Panel(text("widget.width.entropy_title", uniform=num(math.log(self.tokens), 3)),
                  text("widget.width.entropy"),
                  series([c.entropy_raw for c in curves], [c.entropy_scaled for c in curves])),
            Panel(text("widget.width.jacobian_title"), text("widget.width.jacobian"),
                  series([c.jacobian_raw for c in curves], [c.jacobian_scaled for c in curves])),
        ], columns=2)

    def numbers_for(self, state: WidthState) -> str:
        return text("widget.width.numbers", key_width=state.key_width, raw=num(state.variance_raw, 3),
                    scaled=num(state.variance_scaled, 3), max_raw=num(state.max_weight_raw, 3),
                    max_scaled=num(state.max_weight_scaled, 3), entropy_raw=num(state.entropy_raw, 3),
                    entropy_scaled=num(state.entropy_scaled, 3), uniform=num(math.log(self.tokens), 3),
                    jacobian_raw=num(state.jacobian_raw, 4), jacobian_scaled=num(state.jacobian_scaled, 4))

    def show(self) -> None:
        """Whose inputs it runs on (its own), the slider right above the row it changes; the averages under them,
        drawn once."""
        display(HTML(lang_div(f"<p>{escape(text('widget.width.own_inputs'))}</p>")))
        snapshot([*self.render(self.state_for(64)), self.averages])
        display(LiveWidget([self.slider, self.figure, self.numbers, w.HTML(figure_html(self.averages))],
                           text("widget.width.repr")))


def softmax_jacobian_norm(weights: np.ndarray) -> np.ndarray:
    """‖diag(a) − a aᵀ‖ (Frobenius) for every row a of weights: how much a row's weights move when its
    scores move. It is 0 for a one-hot row and goes to 0 as a row saturates, so a saturated row passes almost no
    gradient back to its scores, hence to Q and K; an even row is not its largest: a uniform row of 16 gives 0.242,
    a row split evenly between two keys 0.5.

    ‖J‖² = Σ_i (a_i − a_i²)² + Σ_{i≠j} a_i² a_j² = Σ a² − 2 Σ a³ + (Σ a²)².
    """
    squares = (weights**2).sum(axis=-1)
    return np.sqrt(np.maximum(squares - 2 * (weights**3).sum(axis=-1) + squares**2, 0.0))


def _mean_entropy(weights: np.ndarray) -> float:
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(weights > 0, -weights * np.log(weights), 0.0)
    return float(terms.sum(axis=-1).mean())


# --- editable Q, K, V ------------------------------------------------------------------

EDITOR_TITLES = {"Q": "widget.editor.Q", "K": "widget.editor.K", "V": "widget.editor.V"}


def _one_batch(matrix: object) -> np.ndarray:
    """A [T, d] matrix, or a Tensor or array of shape [1, T, d], as a [1, T, d] array of its own."""
    array = np.array(matrix, dtype=np.float64)
    return array if array.ndim == 3 else array[None]


def _editor_inputs(query: object, key: object, value: object) -> dict[str, np.ndarray]:
    """Q, K and V as the editor holds them, the worked example's where one is not given."""
    return {name: _one_batch(default if x is None else x)
            for name, x, default in zip("QKV", (query, key, value), worked_arrays())}


class HeadEditor:
    """A field for every entry of Q, K and V (``HeadEditor(Q, K, V)``, the worked example's by default; with the
    cells' A too, ``HeadEditor(Q, K, V, A)``, the head computed with its stages), and
    below them the head's forward pass on them (scores, scaled scores, weight rows, mixtures: the fields are the
    inputs). After an edit the numbers that changed are marked; an entry that is not one number is told beside
    its field, and what the last inputs read whole gave stays."""

    def __new__(cls, query: object = None, key: object = None, value: object = None, weights: object = None):
        try:
            run_head(*_editor_inputs(query, key, value).values())
        except SelfAttentionError as error:  # inputs the head refuses (3e200 overflows): one sentence, no traceback
            return NotDrawn(sections.explain(error))
        return super().__new__(cls)

    def __init__(self, query: object = None, key: object = None, value: object = None,
                 weights: object = None) -> None:
        self.inputs = _editor_inputs(query, key, value)
        # how the cells computed A from these inputs, checked on its numbers
        self.stages = cells_stages(weights, *self.inputs.values()) if weights is not None else None
        self.fields: dict[tuple[str, int, int], w.Text] = {}
        self.notes: dict[tuple[str, int, int], w.HTML] = {}
        grids = []
        for name, matrix in self.inputs.items():
            cells = []
            for (i, j), value in np.ndenumerate(matrix[0]):
                field = w.Text(value=trimmed(value), description=f"{name}[{i},{j}]", continuous_update=False,
                               style=LABEL_STYLE, layout=w.Layout(width="9em"))
                field.observe(lambda change: self.update(), names="value")
                self.fields[(name, i, j)], self.notes[(name, i, j)] = field, w.HTML(layout=w.Layout(width="9em"))
                cells.append(w.VBox([field, self.notes[(name, i, j)]]))
            grids.append(w.VBox([w.HTML(f"<strong>{escape(text(EDITOR_TITLES[name]))}</strong>"),
                                 w.GridBox(cells, layout=w.Layout(
                                     grid_template_columns=f"repeat({matrix.shape[-1]}, 10em)"))]))
        self.controls = w.HBox(grids)
        self.reset = w.Button(description=text("widget.editor.reset"), layout=w.Layout(width="auto"))
        self.reset.on_click(lambda _: self.restore())
        self.view = w.HTML()
        self.restoring = False
        self.error: SelfAttentionError | None = None
        self.run = run_head(*self.inputs.values(), stages=self.stages)
        self.note = stages_note("stages.editor", self.stages, weights, self.run.weights[0, 0],
                                self.inputs["Q"].shape[-1])
        self.shown = self.render(self.run)
        self.view.value = self.shown

    def restore(self) -> None:
        """Put every field back to the inputs the editor was made with, then recompute once."""
        self.restoring = True
        try:
            for (name, i, j), field in self.fields.items():
                field.value = trimmed(self.inputs[name][0, i, j])
        finally:
            self.restoring = False
        self.update()

    def read(self, key: tuple[str, int, int]) -> float | None:
        """The field's number (a decimal comma and a typographic minus are read too; nan and inf are numbers the
        head itself refuses), or None with a note beside the field."""
        typed = self.fields[key].value
        try:
            number = float(typed.strip().replace(",", ".").replace("−", "-"))
        except ValueError:
            number = None
        else:
            self.notes[key].value = ""
            return number
        said = text("widget.editor.blank") if not typed.strip() else text("widget.editor.unreadable", typed=typed[:20])
        self.notes[key].value = lang_div(f'<small role="status" style="display:block;line-height:1.3">'
                                         f"{escape(said)}</small>")
        return None

    def current(self) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """Q, K, V as the fields say, or None when a field cannot be read (each such field is told)."""
        arrays = [np.zeros_like(m) for m in self.inputs.values()]
        readable = True
        for key in self.fields:
            number = self.read(key)
            readable = readable and number is not None
            if number is not None:
                arrays["QKV".index(key[0])][0, key[1], key[2]] = number
        return tuple(arrays) if readable else None

    def render(self, run: HeadRun) -> str:
        return html_block(*forward(run)[1:])

    def update(self) -> HeadRun:
        """Recompute from the fields, marking what changed; a refused or unreadable input is explained and the
        last good run kept."""
        if self.restoring:
            return self.run
        inputs = self.current()
        if inputs is None:
            self.view.value = lang_div(f"<p><strong>{escape(text('widget.editor.kept'))}</strong></p>") + self.shown
            return self.run
        try:
            self.run, self.error = run_head(*inputs, stages=self.stages), None
        except SelfAttentionError as error:
            self.error = error
            self.view.value = html_block(sections.error(error))
            return self.run
        drawn = self.render(self.run)
        marked, changed = mark_changes(self.shown, drawn)
        self.shown = drawn
        said = text("widget.editor.changed", count=changed) if changed else text("widget.editor.unchanged")
        self.view.value = lang_div(f"<p>{escape(said)}</p>") + marked
        return self.run

    def show(self) -> None:
        if self.note:
            display(HTML(lang_div(f"<p>{escape(self.note)}</p>")))
        worked = all(np.array_equal(mine, chapters)
                     for mine, chapters in zip(self.inputs.values(), _editor_inputs(None, None, None).values()))
        snapshot(list(forward(run_head(*self.inputs.values(), stages=self.stages))),
                 None if worked else text("widget.editor.snapshot_given"))
        display(LiveWidget([self.controls, w.HBox([self.reset]), self.view], text("widget.editor.repr")))
