"""The worked example as geometry: q and k as arrows in one plane, v in another, moved by hand.

With d_k = d_v = 2 every query, key and value is an arrow. A score is the dot product q·k (the
selected query's projection onto each key is drawn), a row of weights says which keys a query
points towards, and an output lies on the segment between the two values, at the point its
weights give (a mixture whose weights sum to 1). ``plane_svg`` draws one state; the static
figure a notebook stores and the live ``VectorPlane`` both show its SVG, so they cannot
disagree. Every number is the engine's, computed when a vector moves.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from html import escape
from pathlib import Path

import anywidget
import numpy as np
import traitlets
from IPython.display import HTML, display

from ..book.figures import Figure
from ..book.formatting import num, places, trimmed
from ..book.text import language
from ..book.tolerances import FLOAT_NOISE
from ..book.widgets import LiveWidget, NotDrawn, esm, lang_div, snapshot
from .evidence import HeadRun, run_head
from .examples import worked_arrays
from .reader import cells_stages, stages_note
from .stages import Stages
from .strings import text

PLANE_ASSETS = Path(__file__).with_name("assets")  # the live plane's JavaScript and CSS

NAMES = ("q0", "q1", "k0", "k1", "v0", "v1")
LIMIT = 6.0  # the planes show −6 … 6 on each axis (room for q₀ twice as long); a tip never leaves them
SIZE = 240  # pixels of one plane
UNIT = SIZE / (2 * LIMIT)
SUBSCRIPTS = str.maketrans("01", "₀₁")
TARGET = 12  # pixels: the radius a pointer can take a tip by (24 across, WCAG 2.5.8), around a disc of 7
PLANES = {"qk": 10, "v": 510}  # the left edge of each plane in the figure
TOP = 30  # pixels above the planes
WIDTH, HEIGHT = 760, 300
FIRST_SELECTED = "q1"  # the query whose projections show first: both of q₁'s are seen (q₀'s onto k₀ is 0)


def default_vectors(query: object = None, key: object = None, value: object = None) -> dict[str, tuple[float, float]]:
    """The rows of Q, K and V (Tensors or arrays of two rows of two, a batch axis of one allowed), the worked
    example's where one is not given: q₀ = (0, 3), q₁ = (2, −1), k₀ = (3, 0), …"""
    worked = (x[0] for x in worked_arrays())
    rows = {}
    for letter, given, default in zip("qkv", (query, key, value), worked):
        matrix = default if given is None else np.asarray(getattr(given, "data", given), dtype=np.float64)
        matrix = matrix[0] if matrix.ndim == 3 and matrix.shape[0] == 1 else matrix
        if matrix.shape != (2, 2):
            raise ValueError(text("plane.two_by_two", name=letter.upper(), shape=list(np.shape(given))))
        if not (np.isfinite(matrix).all() and (np.abs(matrix) <= LIMIT).all()):  # 3e200, inf, nan: off the plane
            raise ValueError(text("plane.outside", name=letter.upper(), limit=trimmed(LIMIT),
                                  value=trimmed(matrix.flat[np.argmax(~(np.abs(matrix) <= LIMIT))])))
        rows[letter] = matrix
    return {name: tuple(float(c) for c in rows[name[0]][int(name[1])]) for name in NAMES}


CHAPTERS = Stages(math.sqrt(2))  # the head's stages at d_k = 2: the scores divided by √2, a softmax along rows


@dataclass(frozen=True)
class PlaneState:
    """The head on the plane's vectors as they stand; ``origin``, the vectors its moves started from (where the plane
    opened, or the worked example, after the button that returns to it)."""

    vectors: dict[str, tuple[float, float]]
    run: HeadRun
    stages: Stages = CHAPTERS
    origin: dict[str, tuple[float, float]] | None = None

    @property
    def started(self) -> dict[str, tuple[float, float]]:
        return self.origin or default_vectors()

    @property
    def scores(self) -> np.ndarray:
        return self.run.head.raw_scores.data[0]

    @property
    def scaled(self) -> np.ndarray:
        return self.run.head.scaled_scores.data[0]

    @property
    def weights(self) -> np.ndarray:
        return self.run.weights[0]

    @property
    def outputs(self) -> np.ndarray:
        return self.run.output[0]


def plane_state(vectors: dict[str, tuple[float, float]], stages: Stages = CHAPTERS,
                origin: dict[str, tuple[float, float]] | None = None) -> PlaneState:
    """The engine's head on the vectors as they stand, with ``stages`` (a cell's divisor and softmax axis), moved
    from ``origin`` (the worked example unless given)."""
    q, k, v = ([[vectors[f"{role}{i}"] for i in (0, 1)]] for role in "qkv")
    return PlaneState(dict(vectors), run_head(q, k, v, stages=stages), stages, dict(origin or default_vectors()))


def same_vectors(a: dict[str, tuple[float, float]], b: dict[str, tuple[float, float]]) -> bool:
    return all(np.allclose(a[n], b[n], atol=FLOAT_NOISE, rtol=0) for n in NAMES)


# the plane's title and its text alternative, by whose vectors it shows
WHOSE = {"worked": ("plane.title.worked", "plane.alt.worked"), "given": ("plane.title.given", "plane.alt.given"),
         "moved": ("plane.title.moved", "plane.alt.moved")}


def whose(state: PlaneState, given: dict[str, tuple[float, float]]) -> tuple[str, str]:
    """Whose vectors the plane shows, by their values (the worked example's, the cell's ``given``, or moved): the
    keys of its title and of its text alternative."""
    if same_vectors(state.vectors, default_vectors()):
        return WHOSE["worked"]
    return WHOSE["given" if same_vectors(state.vectors, given) else "moved"]


def divided_by(stages: Stages) -> str:
    """How the plane writes the scale: ÷ √2, or the cells' own divisor."""
    return "÷ √2" if abs(stages.divisor - CHAPTERS.divisor) <= FLOAT_NOISE else f"÷ {trimmed(stages.divisor, 3)}"


def subscripted(vector: str) -> str:
    """A vector's name as the chapter writes it: "q1" is q₁."""
    return vector[0] + vector[1].translate(SUBSCRIPTS)


def coordinates(point) -> str:
    """(3, 0), (0.00, 4.50), (1.03, 2.92): whole numbers as they are, else both coordinates to two decimals."""
    decimals = places(point, 2)
    return "(" + ", ".join(num(c, decimals) for c in point) + ")"


def weights_said(state: PlaneState) -> str:
    """Each query's row of weights, as the live region announces it."""
    rows = "; ".join(f"{subscripted(f'q{i}')}: {num(row[0], 3)}, {num(row[1], 3)}"
                     for i, row in enumerate(state.weights))
    return text("plane.weights", rows=rows)


# --- drawing ---------------------------------------------------------------------------

CHARACTER = 7.8  # pixels one character of a 13 px label takes, about (DejaVu Sans)
Box = tuple[float, float, float, float]  # left, top, right, bottom in pixels


def _point(plane: str, x: float, y: float) -> tuple[float, float]:
    """Pixels of the plane point (x, y)."""
    left = PLANES[plane]
    return left + SIZE / 2 + x * UNIT, TOP + SIZE / 2 - y * UNIT


def _inside(point) -> bool:
    return bool(np.all(np.abs(point) <= LIMIT + 1e-9))


def _clipped(start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """The end of the segment from ``start`` (inside the plane) towards ``end``, where it leaves the plane."""
    step, reach = end - start, 1.0
    for axis in (0, 1):
        if step[axis]:
            bound = LIMIT if step[axis] > 0 else -LIMIT
            reach = min(reach, (bound - start[axis]) / step[axis])
    return start + reach * step


def _grid(plane: str) -> list[str]:
    left, parts = PLANES[plane], []
    for step in range(-int(LIMIT), int(LIMIT) + 1):
        shade = "#555" if step == 0 else "#ddd"
        for a, b in (((step, -LIMIT), (step, LIMIT)), ((-LIMIT, step), (LIMIT, step))):
            (x0, y0), (x1, y1) = _point(plane, *a), _point(plane, *b)
            parts.append(f'<line x1="{x0:.1f}" y1="{y0:.1f}" x2="{x1:.1f}" y2="{y1:.1f}" stroke="{shade}"/>')
    parts.append(f'<rect x="{left}" y="{TOP}" width="{SIZE}" height="{SIZE}" fill="none" stroke="#000"/>')
    return parts


def _label(words: str, x: float, y: float, plane: str, taken: list[Box]) -> str:
    """A label beside the point (x, y) in pixels, where it stays inside its plane and clear of what is already
    drawn there (``taken``, which it joins), on a white halo so a line under it never hides it."""
    width, left = CHARACTER * len(words), PLANES[plane]
    spots = ((11, -9, "start"), (-11, -9, "end"), (11, 20, "start"), (-11, 20, "end"), (0, -14, "middle"),
             (0, 26, "middle"))

    def box(dx: float, dy: float, anchor: str) -> Box:
        start = x + dx - {"start": 0, "end": width, "middle": width / 2}[anchor]
        return start, y + dy - 11, start + width, y + dy + 3

    def inside(b: Box) -> Box:
        """The box moved into the plane, as little as it takes."""
        shift_x = max(left - b[0], 0) - max(b[2] - left - SIZE, 0)
        shift_y = max(TOP - b[1], 0) - max(b[3] - TOP - SIZE, 0)
        return b[0] + shift_x, b[1] + shift_y, b[2] + shift_x, b[3] + shift_y

    def overlap(b: Box) -> float:
        return sum(max(0.0, min(b[2], t[2]) - max(b[0], t[0])) * max(0.0, min(b[3], t[3]) - max(b[1], t[1]))
                   for t in taken)

    # the first spot that sits clear inside the plane; else the one, moved inside, that covers the least
    placed = [(spot, inside(box(*spot))) for spot in spots]
    clear = [(spot, b) for spot, b in placed if b == box(*spot) and not overlap(b)]
    (dx, dy, anchor), b = clear[0] if clear else min(placed, key=lambda p: overlap(p[1]))
    taken.append(b)
    start = {"start": b[0], "end": b[2], "middle": (b[0] + b[2]) / 2}[anchor]
    return (f'<text x="{start:.1f}" y="{b[3] - 3:.1f}" font-size="13" text-anchor="{anchor}" stroke="#fff" '
            f'stroke-width="4" stroke-linejoin="round" paint-order="stroke">{escape(words)}</text>')


def _arrow(plane: str, vector: str, point, style: str) -> list[str]:
    """An arrow from the origin to the tip, in its role's line style, with a tip a pointer can take hold of."""
    ox, oy = _point(plane, 0, 0)
    tx, ty = _point(plane, *point)
    line = f'x1="{ox:.1f}" y1="{oy:.1f}" x2="{tx:.1f}" y2="{ty:.1f}"'
    drawn = {"solid": [f'<line {line} stroke="#000" stroke-width="2"/>'],
             "dashed": [f'<line {line} stroke="#000" stroke-width="2" stroke-dasharray="7 4"/>'],
             "double": [f'<line {line} stroke="#000" stroke-width="5"/>',
                        f'<line {line} stroke="#fff" stroke-width="2"/>']}[style]
    return [*drawn,
            f'<circle cx="{tx:.1f}" cy="{ty:.1f}" r="7" fill="#fff" stroke="#000" stroke-width="2"/>',
            f'<circle class="plane-tip" data-name="{vector}" data-plane="{plane}" data-x="{point[0]:g}" '
            f'data-y="{point[1]:g}" cx="{tx:.1f}" cy="{ty:.1f}" r="{TARGET}" fill="transparent"/>']


def _projections(state: PlaneState, query: str) -> list[str]:
    """The line of each key (dotted, through the origin) and the selected query's perpendicular to it
    (dashed finely), with its foot (a small square) where the foot lies inside the plane."""
    q = np.array(state.vectors[query])
    parts = []
    for key in ("k0", "k1"):
        k = np.array(state.vectors[key])
        if not k.any():
            continue
        (ax, ay), (bx, by) = (_point("qk", *_clipped(np.zeros(2), sign * 10 * LIMIT * k / np.hypot(*k)))
                              for sign in (-1, 1))
        parts.append(f'<line x1="{ax:.1f}" y1="{ay:.1f}" x2="{bx:.1f}" y2="{by:.1f}" stroke="#888" '
                     f'stroke-width="1" stroke-dasharray="1 3"/>')
        foot = (q @ k) / (k @ k) * k
        (qx, qy), (fx, fy) = _point("qk", *q), _point("qk", *_clipped(q, foot))
        parts.append(f'<line x1="{qx:.1f}" y1="{qy:.1f}" x2="{fx:.1f}" y2="{fy:.1f}" stroke="#000" '
                     f'stroke-width="1.5" stroke-dasharray="4 3"/>')
        if _inside(foot):
            parts.append(f'<rect x="{fx - 3:.1f}" y="{fy - 3:.1f}" width="6" height="6" fill="#000"/>')
    return parts


BARS = {2: "plane.bars", 1: "plane.bars_columns"}  # the weights' heading by the axis the softmax runs along


def _numbers(state: PlaneState) -> list[str]:
    """Scores, scaled scores and each row of weights as bars with their values."""
    left, parts, y = 262, [], 44
    parts.append(f'<text x="{left}" y="{y}" font-size="13" font-weight="bold">{escape(text("plane.scores"))}</text>')
    for i in (0, 1):
        q = subscripted(f"q{i}")
        y += 17
        parts.append(f'<text x="{left}" y="{y}" font-size="12">{q}·k₀, {q}·k₁ = {num(state.scores[i, 0], 2)}, '
                     f'{num(state.scores[i, 1], 2)}</text>')
        y += 16
        parts.append(f'<text x="{left + 12}" y="{y}" font-size="12">'
                     f'{divided_by(state.stages)} → {num(state.scaled[i, 0], 2)}, '
                     f'{num(state.scaled[i, 1], 2)}</text>')
    y += 26
    bars = text(BARS.get(state.stages.axis, "plane.bars_batch"))  # what the cells' softmax makes sum to 1
    parts.append(f'<text x="{left}" y="{y}" font-size="13" font-weight="bold">{escape(bars)}</text>')
    for i in (0, 1):
        for j in (0, 1):
            y += 19
            weight = state.weights[i, j]
            parts.append(f'<text x="{left}" y="{y}" font-size="12">A{subscripted(f"q{i}")[1]}{subscripted(f"k{j}")[1]}'
                         f'</text>')
            parts.append(f'<rect x="{left + 34}" y="{y - 11}" width="120" height="12" fill="#fff" stroke="#777"/>')
            parts.append(f'<rect x="{left + 34}" y="{y - 11}" width="{120 * weight:.1f}" height="12" fill="#333"/>')
            parts.append(f'<text x="{left + 160}" y="{y}" font-size="12">{num(weight, 3)}</text>')
        y += 6
    return parts


def _output_mark(i: int, x: float, y: float) -> str:
    """o₀ a disc, o₁ a square: both fit inside a value's tip, so an output on a value shows as a mark in its ring."""
    if i == 0:
        return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="4.5" fill="#000"/>'
    return f'<rect x="{x - 4:.1f}" y="{y - 4:.1f}" width="8" height="8" fill="#000"/>'


def _mixture(state: PlaneState) -> list[str]:
    """The segment between the values and each output on it."""
    (ax, ay), (bx, by) = (_point("v", *state.vectors[v]) for v in ("v0", "v1"))
    parts = [f'<line x1="{ax:.1f}" y1="{ay:.1f}" x2="{bx:.1f}" y2="{by:.1f}" stroke="#777" stroke-width="1.5" '
             f'stroke-dasharray="1 3"/>']
    for i, output in enumerate(state.outputs):
        parts.append(_output_mark(i, *_point("v", *np.clip(output, -LIMIT, LIMIT))))
    return parts


def _labels(state: PlaneState) -> list[str]:
    """Every vector's name and every output's name and coordinates, each placed clear of the others."""
    ends = {name: ("v" if name[0] == "v" else "qk", _point("v" if name[0] == "v" else "qk", *state.vectors[name]))
            for name in NAMES}
    outputs = [_point("v", *np.clip(o, -LIMIT, LIMIT)) for o in state.outputs]
    taken = [(x - 9, y - 9, x + 9, y + 9) for _, (x, y) in ends.values()] + [(x - 6, y - 6, x + 6, y + 6)
                                                                             for x, y in outputs]
    parts = [_label(subscripted(name), *ends[name][1], ends[name][0], taken) for name in NAMES]
    return parts + [_label(f"{subscripted(f'o{i}')} {coordinates(o)}", *outputs[i], "v", taken)
                    for i, o in enumerate(state.outputs)]


def plane_svg(state: PlaneState, selected: str = FIRST_SELECTED) -> str:
    """One state of the two planes and the numbers between them, as SVG (the same for the static figure and
    the live plane)."""
    styles = {"q": "solid", "k": "dashed", "v": "double"}
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" '
             f'height="{HEIGHT}" font-family="DejaVu Sans, sans-serif">',
             f'<text x="{PLANES["qk"]}" y="20" font-size="13">{escape(text("plane.qk_title"))}</text>',
             f'<text x="{PLANES["v"]}" y="20" font-size="13">{escape(text("plane.v_title"))}</text>',
             f'<text x="{PLANES["qk"]}" y="{HEIGHT - 8}" font-size="12">'
             f'{escape(text("plane.projections", name=subscripted(selected)))}</text>',
             *_grid("qk"), *_grid("v"), *_projections(state, selected), *_numbers(state)]
    for vector in NAMES:
        parts += _arrow("v" if vector[0] == "v" else "qk", vector, state.vectors[vector], styles[vector[0]])
    parts += ['<g pointer-events="none">', *_mixture(state), *_labels(state), "</g>"]  # never in a drag's way
    return "".join(parts) + "</svg>"


def plane_description(state: PlaneState, given: dict[str, tuple[float, float]]) -> str:
    """The figure's text alternative: whose vectors (``whose``), every vector, the scores and the weights."""
    vectors = ", ".join(f"{subscripted(n)} = {coordinates(state.vectors[n])}" for n in NAMES)
    outputs = ", ".join(f"{subscripted(f'o{i}')} = {coordinates(o)}" for i, o in enumerate(state.outputs))
    return text(whose(state, given)[1], vectors=vectors, weights=weights_said(state), outputs=outputs)


def plane_figure(state: PlaneState, selected: str = FIRST_SELECTED, given: dict | None = None) -> Figure:
    """One state of the planes as the chapter's figures are: the SVG, its title (whose vectors, by value) and its
    text alternative beneath it (what a reader without a kernel sees; nbval compares both by what they show)."""
    given = given or default_vectors()
    return Figure(plane_svg(state, selected), text(whose(state, given)[0]),
                  plane_description(state, given))


# --- the live plane ----------------------------------------------------------------------

PLANE_CLASS = "llm-plane"
STEP, FINE = 0.5, 0.1  # a pointer's and an arrow key's step, and Shift's finer one


class NotOnThePlane(NotDrawn):
    """What ``VectorPlane`` gives for inputs it cannot draw (the plane holds two rows of two)."""


class VectorPlane(anywidget.AnyWidget):
    """The rows of Q, K and V as arrows to move (``VectorPlane(Q, K, V, A)``; the worked example's by default),
    the head computed with the stages the cells' A was (its divisor, its softmax's axis; the chapter's without A):
    ``move("k1", x, y)`` moves a tip, ``weights`` is the engine's weight matrix now, ``reset()`` returns to where
    the plane opened, ``reset(worked=True)`` to the worked example. A plane shown after this one replaces it
    (``replaced``): its challenges judge the plane on the page. The browser draws the SVG the kernel sends; a drag
    sends only its latest position while a reply is pending."""

    _esm = esm(PLANE_ASSETS / "plane.js")
    _css = PLANE_ASSETS / "plane.css"
    css_class = traitlets.Unicode(PLANE_CLASS).tag(sync=True)
    geometry = traitlets.Dict({"limit": LIMIT, "unit": UNIT, "size": SIZE, "top": TOP, "planes": PLANES,
                               "names": list(NAMES), "step": STEP, "fine": FINE}).tag(sync=True)
    svg = traitlets.Unicode("").tag(sync=True)
    announce = traitlets.Unicode("").tag(sync=True)
    description = traitlets.Unicode("").tag(sync=True)
    reset_label = traitlets.Unicode("").tag(sync=True)
    worked_label = traitlets.Unicode("").tag(sync=True)  # a second button, when the plane opened on other vectors
    keys_label = traitlets.Unicode("").tag(sync=True)
    positions = traitlets.Dict().tag(sync=True)  # each vector's [x, y], for the range inputs
    lang = traitlets.Unicode("").tag(sync=True)
    shown: VectorPlane | None = None  # the plane shown last in this kernel

    def __new__(cls, query: object = None, key: object = None, value: object = None, weights: object = None,
                **kwargs):
        try:
            default_vectors(query, key, value)
        except ValueError as error:  # not two rows of two, or off the plane: an object that says so, no traceback
            return NotOnThePlane(str(error))
        return super().__new__(cls, **kwargs)

    def __init__(self, query: object = None, key: object = None, value: object = None, weights: object = None,
                 **kwargs) -> None:
        self.start = default_vectors(query, key, value)  # where the plane opens and what its button returns to
        worked = same_vectors(self.start, default_vectors())
        super().__init__(lang=language(), reset_label=text("plane.reset" if worked else "plane.reset_given"),
                         worked_label="" if worked else text("plane.reset"), keys_label=text("plane.keys"), **kwargs)
        self.selected = FIRST_SELECTED
        self.replaced = False
        # the cells' A: how they computed it from the vectors the plane opens with, checked on their numbers
        self.stages = self._cells_stages(weights) if weights is not None else None
        self.state = plane_state(self.start, self.stages or CHAPTERS, self.start)
        self.note = stages_note("stages.plane", self.stages, weights, self.state.weights[0], 2)
        self._draw()
        self.on_msg(self._on_message)

    @property
    def weights(self) -> np.ndarray:
        return self.state.weights

    def _cells_stages(self, weights: object) -> Stages | None:
        q, k, v = (np.array([[self.start[f"{role}{i}"] for i in (0, 1)]]) for role in "qkv")
        return cells_stages(weights, q, k, v)

    def move(self, vector: str, x: float, y: float) -> PlaneState:
        """Move a tip to (x, y), kept inside the planes; every number follows from the engine."""
        if vector not in NAMES:
            raise ValueError(text("plane.unknown", name=vector, names=", ".join(NAMES)))
        if not (math.isfinite(x) and math.isfinite(y)):
            raise ValueError(text("plane.not_finite", name=subscripted(vector)))
        point = (min(max(float(x), -LIMIT), LIMIT), min(max(float(y), -LIMIT), LIMIT))
        self.state = plane_state({**self.state.vectors, vector: point}, self.state.stages, self.state.origin)
        if vector[0] == "q":
            self.selected = vector
        self._draw()
        return self.state

    def reset(self, worked: bool = False) -> PlaneState:
        """Back to where the plane opened, or to the worked example's vectors; moves count from there."""
        origin = default_vectors() if worked else self.start
        self.state = plane_state(origin, self.state.stages, origin)
        self._draw()
        return self.state

    def show(self) -> None:
        """What the plane computes, where the cells it follows are not the chapter's; the state it opens in as a
        static image (for readers without a kernel), then the live plane. It replaces the plane shown before."""
        if VectorPlane.shown is not None and VectorPlane.shown is not self:
            VectorPlane.shown.replaced = True
        VectorPlane.shown = self
        if self.note:
            display(HTML(lang_div(f"<p>{escape(self.note)}</p>")))
        at = None if same_vectors(self.start, default_vectors()) else text("plane.snapshot_given")
        snapshot([plane_figure(self.state, self.selected, self.start)], at)
        display(LiveWidget([self], text("plane.repr")))

    def __repr__(self) -> str:
        return text("plane.repr")

    def _draw(self) -> None:
        with self.hold_sync():  # one message to the browser, not one per trait
            self.description = plane_description(self.state, self.start)
            self.svg = plane_svg(self.state, self.selected)
            self.positions = {name: list(point) for name, point in self.state.vectors.items()}
            self.announce = weights_said(self.state)

    def _on_message(self, _widget, content, _buffers) -> None:
        if not isinstance(content, dict):
            return
        if "move" in content:
            try:
                self.move(str(content["move"]), float(content["x"]), float(content["y"]))
            finally:
                self.send({"done": True})
        elif content.get("select") in ("q0", "q1") and content["select"] != self.selected:
            self.selected = content["select"]
            self._draw()
        elif content.get("reset"):
            self.reset(worked=content["reset"] == "worked")
