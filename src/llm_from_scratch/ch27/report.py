"""The chapter's plain-text report: the whole worked example, computed, six decimals."""

from __future__ import annotations

import numpy as np

from ..gradcheck import GradCheckReport
from .evidence import LearnerEvidence
from .formatting import num, shape, table, vector
from .text import text


def labels(prefix: str, count: int) -> list[str]:
    return [f"{prefix}_{i}" for i in range(count)]


def _heading(key: str) -> list[str]:
    title = text(key)
    return ["", title, "-" * len(title)]


def _matrix(name: str, role_key: str | None, matrix: np.ndarray, rows: str, columns: list[str],
            full_shape) -> list[str]:
    lines = [f"{name}  ({text(role_key)})" if role_key else name]
    lines += table(matrix, labels(rows, len(matrix)), columns).splitlines()
    lines.append(f"{text('shape')}: {shape(full_shape)}")
    return lines


def _gradcheck_lines(report: GradCheckReport) -> list[str]:
    verdict = text("gradcheck.passed") if report.passed else text("gradcheck.failed")
    counts = "+".join(str(report.count(name)) for name in ("query", "key", "value"))
    return [
        f"{text('gradcheck')}: {verdict}",
        f"{text('coordinates')}: {counts}",
        f"{text('step')}: {report.step:g}; {text('tolerance')}: {report.tolerance:g}; "
        f"max |analytic − numeric| = {report.max_error:.3e}",
    ]


def render_report(evidence: LearnerEvidence | None = None) -> str:
    """The full report as text, identical byte for byte from run to run."""
    ev = evidence or LearnerEvidence()
    run = ev.worked.run
    head = run.head
    tokens = run.query.shape[1]
    feature_columns = [str(j) for j in range(run.query.shape[2])]
    key_columns = labels("k", tokens)

    out = [text("title")]
    out += _heading("section.inputs")
    for name, role, matrix, prefix in (("Q", "role.query", run.query, "q"), ("K", "role.key", run.key, "k"),
                                       ("V", "role.value", run.value, "v")):
        out += _matrix(name, role, matrix[0], prefix, feature_columns, matrix.shape)

    out += _heading("section.scores")
    out += _matrix("QKᵀ", None, head.raw_scores.data[0], "q", key_columns, head.raw_scores.shape)
    out += _heading("section.scaled")
    out += _matrix("S = QKᵀ/√d_k", None, head.scaled_scores.data[0], "q", key_columns, head.scaled_scores.shape)
    out.append(f"{text('scale')} = {num(head.scale)}  (d_k = {head.key_width}, d_v = {head.value_width})")

    out += _heading("section.softmax")
    for i, row in enumerate(run.weights[0]):
        out.append(f"A_{i},: = {vector(row)}   {text('row_sum')} = {num(row.sum())}   "
                   f"{text('normalization_axis')}: {text('axis.key')}")

    out += _heading("section.mixture")
    for i, terms in enumerate(run.weighted_terms[0]):
        out.append(f"o_{i}: {text('terms')} " + " + ".join(vector(t) for t in terms)
                   + f" = {vector(run.output[0, i])}")

    out += _heading("section.backward")
    for name, grad in (("Ō", run.upstream), ("Q̄", run.grad_query), ("K̄", run.grad_key), ("V̄", run.grad_value)):
        out.append(f"{name} = {vector(grad)}")
    out.append(f"{text('loss')} = {num(run.loss)}")

    out += _heading("section.shapes")
    together = ev.batch.together
    out.append(f"Q, K, V: {shape(together.query.shape)}; A: {shape(together.weights.shape)}; "
               f"O: {shape(together.output.shape)}")
    out.append(f"{text('batch_independent') if ev.batch.independent else text('batch_dependent')} "
               f"(max |Δ| = {ev.batch.max_difference:.1e})")
    for key, case in (("empty_batch", ev.empty_batch), ("narrow_values", ev.narrow_values)):
        out.append(f"{text(key)}: Q {shape(case.query_shape)}, K {shape(case.key_shape)}, "
                   f"V {shape(case.value_shape)} → A {shape(case.weights_shape)}, O {shape(case.output_shape)}")

    single = ev.single_token
    out += _heading("section.single")
    out.append(f"A = {vector(single.weights)}; O = {vector(single.output)}")
    out.append(f"Q̄ = {vector(single.grad_query)} ({text('zero_grad_query')}: "
               f"{text('yes') if not single.grad_query.any() else text('no')})")
    out.append(f"K̄ = {vector(single.grad_key)} ({text('zero_grad_key')}: "
               f"{text('yes') if not single.grad_key.any() else text('no')})")

    out += _heading("section.properties")
    out.append(f"{text('identical_keys')}: " + "; ".join(vector(r) for r in ev.identical_keys.weights[0]))
    perm = ev.permutation
    out.append(f"{text('permutation', order=list(perm.order))} {perm.max_difference:.1e}")

    out += _heading("section.visibility")
    out.append(f"{text('all_keys_visible')}; d_k = {head.key_width}, d_v = {head.value_width}")

    out += _heading("section.rejected")
    for rejected in ev.rejected:
        error = rejected.error
        out.append(f"{text('rejected')} · {text('kind')}: {error.kind} · {text('error.' + error.kind)} "
                   f"· {text('offending')}: {error.offending()}")

    out += _heading("section.checks")
    out.append(f"{text('row_sum_deviation')}: {ev.worked.row_sum_deviation:.1e}")
    out += _gradcheck_lines(ev.worked.gradcheck)
    out.append(f"{text('closed_form')}: {ev.worked.max_closed_form_difference:.1e}")
    out.append(f"{text('replay')}: {text('replay.bitwise') if ev.replay_bitwise else text('replay.differs')}")

    out += _heading("section.scale_example")
    scale = ev.scale
    out.append(f"{text('unscaled_weight')}: {num(scale.unscaled[0])}")
    out.append(f"{text('scaled_weight')}: {num(scale.scaled[0])}")

    out += _heading("section.history")
    for i, stage in enumerate(ev.history.stages, start=1):
        out.append(f"{i}. {text('history.' + stage)}")
    hist = ev.history
    out.append(f"{text('history.encoder_decoder')}: "
               f"{text('yes') if hist.queries_and_keys_from_different_sequences else text('no')}")
    out.append(f"{text('history.self')}: "
               f"{text('yes') if hist.queries_and_keys_from_one_sequence else text('no')}")
    return "\n".join(out) + "\n"
