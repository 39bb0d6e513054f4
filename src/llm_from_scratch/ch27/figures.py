"""Heatmaps of a head's matrices, titled and framed by role: the learner's own values or a run's."""

from __future__ import annotations

import numpy as np

from ..book.figures import Figure, heatmap
from ..book.formatting import labels
from ..book.sections import Section
from ..engine import Tensor
from .evidence import HeadRun
from .strings import text

# role -> (title key, frame, row prefix, row axis key, column axis key); a gradient is framed as what it is the
# gradient of, since its rows and columns are the same positions and features
ROLES = {
    "query": ("role.query", "query", "q", "figure.axis.query_rows", "figure.axis.features"),
    "key": ("role.key", "key", "k", "figure.axis.key_rows", "figure.axis.features"),
    "value": ("role.value", "value", "v", "figure.axis.value_rows", "figure.axis.features"),
    "scores": ("figure.raw", "score", "q", "figure.axis.query_rows", "figure.axis.key_columns"),
    "scaled": ("figure.scaled", "score", "q", "figure.axis.query_rows", "figure.axis.key_columns"),
    "weights": ("figure.weights", "weight", "q", "figure.axis.query_rows", "figure.axis.key_columns"),
    "output": ("figure.output", "value", "o", "figure.axis.query_rows", "figure.axis.value_features"),
    "grad-output": ("figure.grad_output", "value", "o", "figure.axis.query_rows", "figure.axis.value_features"),
    "grad-value": ("figure.grad_value", "value", "v", "figure.axis.value_rows", "figure.axis.features"),
    "grad-weights": ("figure.grad_weights", "weight", "q", "figure.axis.query_rows", "figure.axis.key_columns"),
    "grad-scores": ("figure.grad_scores", "score", "q", "figure.axis.query_rows", "figure.axis.key_columns"),
    "grad-query": ("figure.grad_query", "query", "q", "figure.axis.query_rows", "figure.axis.features"),
    "grad-key": ("figure.grad_key", "key", "k", "figure.axis.key_rows", "figure.axis.features"),
}


def matrices(value: object) -> list[np.ndarray]:
    """A Tensor's or an array's matrices: itself if 2-D, a row if 1-D, each batch element if 3-D; else a
    ValueError in the edition's language."""
    data = value.data if isinstance(value, Tensor) else np.asarray(value, dtype=np.float64)
    if data.ndim == 1:
        data = data[None]
    if data.ndim == 2:
        data = data[None]
    if data.ndim != 3 or 0 in data.shape:
        raise ValueError(text("show.not_a_matrix", shape=list(np.shape(data))))
    return list(data)


def matrix_figures(value: object, role: str | None = None) -> list[Figure]:
    """Heatmaps of ``value`` (a Tensor or an array) in ``role``, one per batch element; the weights' rows show
    their sums, and their colours run from 0 to 1. Without a role: rows and columns by number, unframed."""
    if role is not None and role not in ROLES:
        raise ValueError(text("show.unknown_role", role=role, known=", ".join(ROLES)))
    found = matrices(value)
    figures = []
    for b, matrix in enumerate(found):
        rows, columns = (tuple(str(i) for i in range(n)) for n in matrix.shape)
        if role is None:
            title, frame, row_axis, column_axis = text("show.matrix", shape=list(matrix.shape)), None, "", ""
        else:
            title_key, frame, row_prefix, row_key, column_key = ROLES[role]
            title, row_axis, column_axis = text(title_key), text(row_key), text(column_key)
            rows = labels(row_prefix, matrix.shape[0])
            columns = labels("k", matrix.shape[1]) if column_key == "figure.axis.key_columns" else columns
        weights = role == "weights"
        figures.append(heatmap(matrix, rows, columns, title if len(found) == 1 else f"{title} · b = {b}", row_axis,
                               column_axis, role=frame, row_sums=weights, value_range=(0.0, 1.0) if weights else None))
    return figures


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


def head_figure(run: HeadRun, role: str) -> Figure:
    """A heatmap of one matrix of a head run (batch element 0)."""
    matrix = {"query": run.query, "key": run.key, "value": run.value, "scores": run.head.raw_scores.data,
              "scaled": run.head.scaled_scores.data, "weights": run.weights, "output": run.output}[role][0]
    return matrix_figures(matrix, role)[0]
