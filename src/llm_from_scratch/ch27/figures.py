"""Heatmaps of a head's matrices, titled and framed by role: the learner's own values or a run's.

A role's title states its formula (``A = softmax(S) along rows``) only where the tensor's recorded graph is that
formula; otherwise it says what the graph does compute (the softmax along columns, the scores divided by 2), and a
plain array, which records nothing, gets the role's name alone. Weights whose rows do not sum to 1 say so under
the map.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

import numpy as np

from ..book.blocks import Section
from ..book.figures import Figure, heatmap
from ..book.formatting import labels
from ..engine import Tensor
from .reader import (
    INPUT_NAME,
    Reading,
    names_of,
    notebook_namespace,
    numbers,
    parts,
    read,
    same,
    softmax_step,
)
from .stages import BY_NAME, BY_ROLE
from .strings import text


@dataclass(frozen=True)
class Role:
    """How a matrix in one role is drawn: its title, its frame, what its rows and columns are (a prefix such as
    "q" numbers them q_0, q_1, …; "" by number; "Σ" a sum) and the axes' titles (catalogue keys)."""

    title: str
    frame: str | None  # None: no role's frame
    rows: str
    columns: str
    row_axis: str
    column_axis: str
    row_sums: bool = False  # each row's sum printed beside it


QUERY_ROWS, KEY_ROWS, VALUE_ROWS = "figure.axis.query_rows", "figure.axis.key_rows", "figure.axis.value_rows"
QUERY_COLUMNS = "figure.axis.query_columns"
KEY_COLUMNS, FEATURES = "figure.axis.key_columns", "figure.axis.features"
VALUE_FEATURES, SUM = "figure.axis.value_features", "figure.axis.sum"
# A gradient is framed as what it is the gradient of: its rows and columns are the same positions and features.
ROLES = {
    "query": Role("role.query", "query", "q", "", QUERY_ROWS, FEATURES),
    "key": Role("role.key", "key", "k", "", KEY_ROWS, FEATURES),
    "value": Role("role.value", "value", "v", "", VALUE_ROWS, FEATURES),
    "raw-scores": Role("figure.raw", "score", "q", "k", QUERY_ROWS, KEY_COLUMNS),
    "scaled-scores": Role("figure.scaled", "score", "q", "k", QUERY_ROWS, KEY_COLUMNS),
    "exponentials": Role("figure.exponentials", "score", "q", "k", QUERY_ROWS, KEY_COLUMNS, row_sums=True),
    "weights": Role("figure.weights", "weight", "q", "k", QUERY_ROWS, KEY_COLUMNS, row_sums=True),
    "row-sums": Role("figure.row_sums", "weight", "Σ", "q", SUM, QUERY_COLUMNS),
    "column-sums": Role("figure.column_sums", "weight", "Σ", "k", SUM, KEY_COLUMNS),
    "output": Role("figure.output", "value", "o", "", QUERY_ROWS, VALUE_FEATURES),
    "grad-output": Role("figure.grad_output", "value", "o", "", QUERY_ROWS, VALUE_FEATURES),
    "grad-value": Role("figure.grad_value", "value", "v", "", VALUE_ROWS, FEATURES),
    "grad-weights": Role("figure.grad_weights", "weight", "q", "k", QUERY_ROWS, KEY_COLUMNS),
    "grad-scores": Role("figure.grad_scores", "score", "q", "k", QUERY_ROWS, KEY_COLUMNS),
    "grad-query": Role("figure.grad_query", "query", "q", "", QUERY_ROWS, FEATURES),
    "grad-key": Role("figure.grad_key", "key", "k", "", KEY_ROWS, FEATURES),
}

# the names a cell may also give a stage's role: the score stages' short names from before they took the engine's,
# and every stage's own name (show(A, "probabilities") is show(A, "weights"))
ROLE_ALIASES = {"scores": "raw-scores", "scaled": "scaled-scores",
                **{name: stage.role for name, stage in BY_NAME.items() if stage.role and stage.role != name}}


def role_named(role: str) -> str:
    """The role a name given to ``show`` means: itself, or the role an alias (or a stage's name) stands for."""
    return ROLE_ALIASES.get(role, role)


def _names(prefix: str, count: int) -> tuple[str, ...]:
    if prefix == "Σ":
        return ("Σ",) * count
    return labels(prefix, count) if prefix else tuple(str(i) for i in range(count))


def matrices(value: object) -> list[np.ndarray]:
    """A Tensor's or an array's matrices: itself if 2-D, a row if 1-D, each batch element if 3-D; else a
    ValueError in the edition's language."""
    if value is None:
        raise ValueError(text("show.none"))
    data = value.data if isinstance(value, Tensor) else np.asarray(value, dtype=np.float64)
    if data.ndim == 1:
        data = data[None]
    if data.ndim == 2:
        data = data[None]
    if data.ndim != 3 or 0 in data.shape:
        raise ValueError(text("show.not_a_matrix", shape=list(np.shape(data))))
    return list(data)


def title_of(value: object, role: str, namespace: Mapping[str, object] | None = None) -> str:
    """The title of ``value`` drawn in ``role``: the role's formula where its numbers are that stage of the head on
    the inputs the cells named (``reader.read``: Q, K, V, Ō, found in ``namespace``, the notebook's variables by
    default); else the formula its graph records, and that it is not the head's where its own inputs are known; the
    role's name alone for numbers no step of the engine computed."""
    role = role_named(role)
    key = ROLES[role].title
    if role not in NAMED_ONLY:
        return text(key)
    reading = read(value, namespace=namespace)
    if _is_stage(reading, role):
        return text(key, of="S")
    name = text(NAMED_ONLY[role])
    if reading.formula is None:
        return name
    return text("figure.computed" if reading.comparable else "figure.unread", name=name, formula=reading.formula)


def _is_stage(reading: Reading, role: str) -> bool:
    """The numbers read are the stage of the head ``role`` draws, on the inputs they were compared with."""
    stage = BY_ROLE.get(role)
    if stage is not None:
        return reading.equals(stage.name)
    found = numbers(reading.value)
    for inputs in reading.inputs:
        run = inputs.run
        if run is None:
            continue
        if role == "grad-output":
            derived = inputs.upstream
        else:
            derived = {"exponentials": np.exp(run.head.scaled_scores.data), "row-sums": run.weights.sum(axis=-1),
                       "column-sums": run.weights.sum(axis=-2)}[role]
        if derived is not None and found.size == derived.size and same(found.reshape(derived.shape), derived):
            return True
    return False


# a role whose title states how it is computed -> its name alone, for a value computed otherwise
NAMED_ONLY = {"raw-scores": "figure.raw_name", "scaled-scores": "figure.scaled_name", "weights": "figure.weights_name",
              "output": "figure.output_name", "exponentials": "figure.exponentials_name",
              "row-sums": "figure.row_sums_name", "column-sums": "figure.column_sums_name",
              "grad-output": "figure.grad_output_name", "grad-value": "figure.grad_value_name",
              "grad-weights": "figure.grad_weights_name", "grad-scores": "figure.grad_scores_name",
              "grad-query": "figure.grad_query_name", "grad-key": "figure.grad_key_name"}


def _weights_note(matrix: np.ndarray, normalized: np.ndarray | None) -> str:
    """Under weights: the rows that have none because the softmax's input (``normalized``, where the graph records
    it) is −∞ throughout them; that the rows are not a row's weights, where some finite row does not sum to 1 (or
    holds a negative entry)."""
    empty = np.isnan(matrix).all(axis=1)
    masked = empty & (np.isneginf(normalized).all(axis=1) if normalized is not None else False)
    rows_said = ", ".join(f"q_{i}" for i in np.flatnonzero(masked))
    notes = [text("figure.no_weights", rows=rows_said)] if masked.any() else []
    rows = matrix[~empty]
    if not (np.all(rows >= 0) and np.allclose(rows.sum(axis=1), 1.0, rtol=0.0, atol=1e-6)):
        notes.append(text("figure.rows_not_one"))
    return "\n".join(notes)


def _normalized(value: object, batch: int) -> np.ndarray | None:
    """What the softmax at the end of ``value``'s graph normalized along the keys, batch element ``batch``; None
    where the graph records no such softmax."""
    step = softmax_step(value)
    return step[1].data[batch] if step is not None and step[0] == 2 else None


def matrix_figures(value: object, role: str | None = None) -> list[Figure]:
    """Heatmaps of ``value`` (a Tensor or an array) in ``role``, one per batch element, titled by what its graph
    computed (``title_of``); the weights' colours run from 0 to 1. Without a role: rows and columns by number,
    unframed."""
    role = role if role is None else role_named(role)
    if role is not None and role not in ROLES:
        raise ValueError(text("show.unknown_role", role=role, known=", ".join(ROLES)))
    drawn = _oriented(ROLES.get(role, Role("show.matrix", None, "", "", "", "")), value)
    found = matrices(value)
    figures = []
    for b, matrix in enumerate(found):
        title = title_of(value, role) if role else text(drawn.title, shape=list(matrix.shape))
        figures.append(heatmap(
            matrix, _names(drawn.rows, matrix.shape[0]), _names(drawn.columns, matrix.shape[1]),
            title if len(found) == 1 else f"{title} · b = {b}", drawn.row_axis and text(drawn.row_axis),
            drawn.column_axis and text(drawn.column_axis), role=drawn.frame, row_sums=drawn.row_sums,
            value_range=(0.0, 1.0) if role == "weights" else None,
            note=_weights_note(matrix, _normalized(value, b)) if role == "weights" else ""))
    return figures


# steps whose result has the rows of their first operand of the same shape (a softmax along any axis included)
ROWS_KEPT = frozenset({"softmax", "log_softmax", "exp", "div", "mul", "add", "sub", "neg", "pow"})


def rows_of(value: object, namespace: Mapping[str, object] | None = None) -> str | None:
    """Whose rows a matrix the cells computed has, read down its graph: "Q", "K" or "V" where they are the rows of
    the cells' queries, keys or values (a product has the rows of its left side; a softmax, an exp or a scale those
    of what it takes), None where the graph does not say (a transpose, an unnamed input, no Tensor)."""
    if not isinstance(value, Tensor):
        return None
    names = names_of(notebook_namespace() if namespace is None else namespace)
    tensor: Tensor | None = value
    for _ in range(len(parts(value)) + 1):
        found = INPUT_NAME.fullmatch(names.get(id(tensor), ""))
        if found:
            return found.group(1).upper()
        if tensor.op == "matmul":
            tensor = tensor.inputs[0]
        elif tensor.op in ROWS_KEPT:
            tensor = next((t for t in tensor.inputs if t.shape == tensor.shape), None)
        else:
            return None
        if tensor is None:
            return None
    return None


def _oriented(drawn: Role, value: object) -> Role:
    """``drawn`` with its rows and columns as the numbers have them: keys for rows (and queries for columns) where
    the graph computed them from K·Qᵀ (anything of it: its exponentials, a softmax of it, its mixture of values),
    or, for a queries-by-keys matrix whose graph does not say, where its numbers are a stage of the head transposed.
    A softmax down the columns of QKᵀ keeps the queries for rows, even where its numbers happen to equal the head's
    weights transposed (a symmetric S)."""
    rows = rows_of(value)
    if drawn.rows == "o":  # an output's rows are its weights' rows
        return replace(drawn, row_axis=KEY_ROWS) if rows == "K" else drawn
    if (drawn.rows, drawn.columns) != ("q", "k"):
        return drawn
    if rows is None:
        found = read(value).match()
        rows = "K" if found is not None and found.transposed else "Q"
    if rows != "K":
        return drawn
    return replace(drawn, rows="k", columns="q", row_axis=KEY_ROWS, column_axis=QUERY_COLUMNS)


def as_shown(parts: tuple[object, ...]) -> list[object]:
    """``show``'s parts with every Tensor or array turned into its figures; a string right after one is its role
    (``show(A, "weights")``). Sections and figures pass as they are."""
    shown: list[object] = []
    for i, part in enumerate(parts):
        if isinstance(part, str):
            if i == 0 or isinstance(parts[i - 1], (str, Section, Figure)):
                raise ValueError(text("show.role_alone", role=part))
        elif isinstance(part, (Section, Figure)):
            shown.append(part)
        else:
            role = parts[i + 1] if i + 1 < len(parts) and isinstance(parts[i + 1], str) else None
            shown.extend(matrix_figures(part, role))
    return shown
