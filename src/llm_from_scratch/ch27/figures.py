"""Heatmaps of the stages of one head run, titled and framed by role."""

from __future__ import annotations

from ..book.figures import Figure, heatmap
from ..book.formatting import labels
from .evidence import HeadRun
from .strings import text

# stage -> (title key, frame role, row prefix, row axis key, column axis key)
HEAD_STAGES = {
    "query": ("role.query", "query", "q", "figure.axis.query_rows", "figure.axis.features"),
    "key": ("role.key", "key", "k", "figure.axis.key_rows", "figure.axis.features"),
    "value": ("role.value", "value", "v", "figure.axis.value_rows", "figure.axis.features"),
    "raw": ("figure.raw", "score", "q", "figure.axis.query_rows", "figure.axis.key_columns"),
    "scaled": ("figure.scaled", "score", "q", "figure.axis.query_rows", "figure.axis.key_columns"),
    "weights": ("figure.weights", "weight", "q", "figure.axis.query_rows", "figure.axis.key_columns"),
    "output": ("figure.output", "value", "o", "figure.axis.query_rows", "figure.axis.value_features"),
}


def head_figure(run: HeadRun, stage: str) -> Figure:
    """A heatmap of one stage of a head run (batch element 0); the weights' rows show their sums."""
    title, role, row_prefix, row_axis, column_axis = HEAD_STAGES[stage]
    matrix = {"query": run.query, "key": run.key, "value": run.value, "raw": run.head.raw_scores.data,
              "scaled": run.head.scaled_scores.data, "weights": run.weights, "output": run.output}[stage][0]
    by_key = column_axis == "figure.axis.key_columns"
    columns = labels("k", matrix.shape[1]) if by_key else tuple(str(j) for j in range(matrix.shape[1]))
    weights = stage == "weights"
    return heatmap(matrix, labels(row_prefix, matrix.shape[0]), columns, text(title), text(row_axis),
                   text(column_axis), role=role, row_sums=weights, value_range=(0.0, 1.0) if weights else None)
