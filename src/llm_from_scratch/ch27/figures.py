"""Heatmaps of the stages of one head run, titled and framed by role."""

from __future__ import annotations

from ..book.figures import Figure, heatmap
from .evidence import HeadRun
from .strings import text

# stage -> (title key, frame role, row prefix, row axis, column axis, row sums)
HEAD_STAGES = {
    "query": ("role.query", "query", "q", "query_rows", "features", False),
    "key": ("role.key", "key", "k", "key_rows", "features", False),
    "value": ("role.value", "value", "v", "value_rows", "features", False),
    "raw": ("figure.raw", "score", "q", "query_rows", "key_columns", False),
    "scaled": ("figure.scaled", "score", "q", "query_rows", "key_columns", False),
    "weights": ("figure.weights", "probability", "q", "query_rows", "key_columns", True),
    "output": ("figure.output", "value", "o", "query_rows", "value_features", False),
}


def head_figure(run: HeadRun, stage: str) -> Figure:
    """A heatmap of one stage of a head run (batch element 0)."""
    title_key, role, row_prefix, row_axis, column_axis, sums = HEAD_STAGES[stage]
    matrix = {"query": run.query, "key": run.key, "value": run.value, "raw": run.head.raw_scores.data,
              "scaled": run.head.scaled_scores.data, "weights": run.weights, "output": run.output}[stage][0]
    rows = [f"{row_prefix}_{i}" for i in range(matrix.shape[0])]
    columns = [f"k_{j}" if column_axis == "key_columns" else str(j) for j in range(matrix.shape[1])]
    value_range = (0.0, 1.0) if stage == "weights" else None
    return heatmap(matrix, rows, columns, text(title_key), text(f"figure.axis.{row_axis}"),
                   text(f"figure.axis.{column_axis}"), role=role, row_sums=sums, value_range=value_range)
