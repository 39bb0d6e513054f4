"""The chapter's plain-text report: the whole worked example, computed, six decimals."""

from __future__ import annotations

import numpy as np

from ..gradcheck import GradCheckReport
from .evidence import HeadRun, LearnerEvidence, ShapeCase, WorkedExample
from .formatting import FD_NOISE, NOISE, below, num, shape, table, vector
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
        f"max |analytic − numeric| {below(report.max_error, FD_NOISE)}",
    ]


def inputs_section(run: HeadRun) -> list[str]:
    columns = [str(j) for j in range(run.query.shape[2])]
    value_columns = [str(j) for j in range(run.value.shape[2])]
    out = []
    for name, role, matrix, prefix, cols in (("Q", "role.query", run.query, "q", columns),
                                             ("K", "role.key", run.key, "k", columns),
                                             ("V", "role.value", run.value, "v", value_columns)):
        out += _matrix(name, role, matrix[0], prefix, cols, matrix.shape)
    return out


def dot_products_section(run: HeadRun) -> list[str]:
    return [f"q_{i}·Kᵀ = {vector(row, 0)}" for i, row in enumerate(run.head.raw_scores.data[0])]


def scores_section(run: HeadRun) -> list[str]:
    head = run.head
    keys = labels("k", run.query.shape[1])
    return _matrix("QKᵀ", None, head.raw_scores.data[0], "q", keys, head.raw_scores.shape)


def scaled_section(run: HeadRun) -> list[str]:
    head = run.head
    keys = labels("k", run.query.shape[1])
    return _matrix("S = QKᵀ/√d_k", None, head.scaled_scores.data[0], "q", keys, head.scaled_scores.shape) + [
        f"{text('scale')} = {num(head.scale)}  (d_k = {head.key_width}, d_v = {head.value_width})"]


def softmax_section(run: HeadRun) -> list[str]:
    return [f"A_{i},: = {vector(row)}   {text('row_sum')} = {num(row.sum())}   "
            f"{text('normalization_axis')}: {text('axis.key')}" for i, row in enumerate(run.weights[0])]


def mixture_section(run: HeadRun) -> list[str]:
    out = []
    for i, terms in enumerate(run.weighted_terms[0]):
        weighted = " + ".join(f"{num(a)}·{vector(v, 0)}" for a, v in zip(run.weights[0, i], run.value[0]))
        out.append(f"o_{i} = {weighted}")
        out.append("    = " + " + ".join(vector(t) for t in terms) + f" = {vector(run.output[0, i])}")
    return out


def backward_section(run: HeadRun) -> list[str]:
    out = [f"{name} = {vector(grad)}" for name, grad in (
        ("Ō", run.upstream), ("Q̄", run.grad_query), ("K̄", run.grad_key), ("V̄", run.grad_value))]
    return out + [f"{text('loss')} = ⟨O, Ō⟩ = {num(run.loss)}"]


def shapes_section(ev: LearnerEvidence) -> list[str]:
    together = ev.batch.together
    out = [f"Q, K, V: {shape(together.query.shape)}; A: {shape(together.weights.shape)}; "
           f"O: {shape(together.output.shape)}",
           f"{text('batch_independent') if ev.batch.independent else text('batch_dependent')} "
           f"(max |Δ| {below(ev.batch.max_difference, NOISE)})"]
    for key, case in (("empty_batch", ev.empty_batch), ("narrow_values", ev.narrow_values)):
        out.append(f"{text(key)}: Q {shape(case.query_shape)}, K {shape(case.key_shape)}, "
                   f"V {shape(case.value_shape)} → A {shape(case.weights_shape)}, O {shape(case.output_shape)}")
    return out


def _yes_no(flag: bool) -> str:
    return text("yes") if flag else text("no")


def single_section(ev: LearnerEvidence) -> list[str]:
    single = ev.single_token
    return [f"A = {vector(single.weights)}; O = {vector(single.output)}",
            f"Q̄ = {vector(single.grad_query)} ({text('zero_grad_query')}: {_yes_no(not single.grad_query.any())})",
            f"K̄ = {vector(single.grad_key)} ({text('zero_grad_key')}: {_yes_no(not single.grad_key.any())})"]


def properties_section(ev: LearnerEvidence) -> list[str]:
    perm = ev.permutation
    return [f"{text('identical_keys')}: " + "; ".join(vector(r) for r in ev.identical_keys.weights[0]),
            f"{text('permutation', order=list(perm.order))} {below(perm.max_difference, NOISE)}",
            f"{text('replay')}: {text('replay.bitwise') if ev.replay_bitwise else text('replay.differs')}"]


def rejected_section(ev: LearnerEvidence) -> list[str]:
    return [f"{text('rejected')} · {text('kind')}: {r.error.kind} · {text('error.' + r.error.kind)} "
            f"· {text('offending')}: {r.error.offending()}" for r in ev.rejected]


def checks_section(ev: LearnerEvidence) -> list[str]:
    return [f"{text('row_sum_deviation')}: {below(ev.worked.row_sum_deviation, NOISE)}",
            *_gradcheck_lines(ev.worked.gradcheck),
            f"{text('closed_form')}: {below(ev.worked.max_closed_form_difference, NOISE)}",
            f"{text('replay')}: {text('replay.bitwise') if ev.replay_bitwise else text('replay.differs')}"]


def scale_example_section(ev: LearnerEvidence) -> list[str]:
    scale = ev.scale
    scores = vector(scale.scores, 0)
    return [f"{text('unscaled_weight', scores=scores)}: {num(scale.unscaled[0])}",
            f"{text('scaled_weight', scores=scores, key_width=scale.key_width)}: {num(scale.scaled[0])}"]


def history_section(ev: LearnerEvidence) -> list[str]:
    hist = ev.history
    out = [f"{i}. {text('history.' + stage)}" for i, stage in enumerate(hist.stages, start=1)]
    return out + [f"{text('history.encoder_decoder')}: {_yes_no(hist.queries_and_keys_from_different_sequences)}",
                  f"{text('history.self')}: {_yes_no(hist.queries_and_keys_from_one_sequence)}"]


def pairs_section(ev: LearnerEvidence) -> list[str]:
    """Every (query, key) pair each kind of attention scores."""
    hist = ev.history
    out = [text("history.pairs.alignment")]
    out += [f"  {query} → {key}" for query, key in hist.encoder_decoder]
    out.append(text("history.pairs.self"))
    out += [f"  {query} → {key}" for query, key in hist.self_attention]
    return out


def composition_section(run: HeadRun) -> list[str]:
    """The primitives behind the output, walked back from O to the inputs."""
    ops, node = [], run.head.output.node
    while node.parents:
        ops.append(node.op)
        parents = [p for p in node.parents if p is not None]
        node = next((p for p in parents if p.parents), parents[0])
    ops.append(node.op)
    return [" ← ".join(ops), text("composition.read")]


def gradient_table_section(worked: WorkedExample) -> list[str]:
    """The 12 checked coordinates: autodiff, closed form, central difference, error."""
    run = worked.run
    autodiff = {"query": run.grad_query, "key": run.grad_key, "value": run.grad_value}
    closed = dict(zip(autodiff, worked.closed_form))
    header = f"{'':<14}{'autodiff':>12}{text('gradient.closed'):>12}{text('gradient.numeric'):>12}{'|Δ|':>11}"
    out = [header]
    for c in worked.gradcheck.coordinates:
        index = tuple(c.index)
        label = f"{c.input_name}{list(index)}"
        out.append(f"{label:<14}{num(c.analytic):>12}{num(closed[c.input_name][index]):>12}"
                   f"{num(c.numeric):>12}{below(c.error, FD_NOISE):>11}")
    report = worked.gradcheck
    out.append(text("gradient.verdict", step=f"{report.step:g}", tolerance=f"{report.tolerance:g}",
                    count=len(report.coordinates), worst=below(report.max_error, FD_NOISE),
                    verdict=text("gradcheck.passed") if report.passed else text("gradcheck.failed")))
    return out


def sums_section(run: HeadRun) -> list[str]:
    """Row sums against column sums of A: only the rows are normalized."""
    weights = run.weights[0]
    return [f"{text('sums.rows')} {vector(weights.sum(axis=1))}",
            f"{text('sums.columns')} {vector(weights.sum(axis=0))}"]


def record_section(run: HeadRun) -> list[str]:
    """The inspectable record's tensors and numbers."""
    head = run.head
    out = [text("record.field", name=name, shape=shape(getattr(head, name).shape))
           for name in ("raw_scores", "scaled_scores", "weights", "output")]
    return out + [text("record.numbers", scale=num(head.scale), key_width=head.key_width,
                       value_width=head.value_width)]


def future_section(run: HeadRun) -> list[str]:
    """What an unmasked head lets the first query see of a later position."""
    return [text("future.weight", weight=num(run.weights[0, 0, 1]))]


def output_shape_section(case: ShapeCase) -> list[str]:
    return [f"A: {shape(case.weights_shape)}   O: {shape(case.output_shape)}"]


def show(lines: list[str]) -> None:
    """Print a section in a notebook cell."""
    print("\n".join(lines))


def render_report(evidence: LearnerEvidence | None = None) -> str:
    """The full report as text, identical byte for byte from run to run."""
    ev = evidence or LearnerEvidence()
    run = ev.worked.run
    out = [text("title")]
    for heading, lines in (
        ("section.inputs", inputs_section(run)),
        ("section.scores", scores_section(run)),
        ("section.scaled", scaled_section(run)),
        ("section.softmax", softmax_section(run)),
        ("section.mixture", mixture_section(run)),
        ("section.backward", backward_section(run)),
        ("section.shapes", shapes_section(ev)),
        ("section.single", single_section(ev)),
        ("section.properties", properties_section(ev)),
        ("section.visibility", [f"{text('all_keys_visible')}; d_k = {run.head.key_width}, "
                                f"d_v = {run.head.value_width}"]),
        ("section.rejected", rejected_section(ev)),
        ("section.checks", checks_section(ev)),
        ("section.scale_example", scale_example_section(ev)),
        ("section.history", history_section(ev) + pairs_section(ev)),
    ):
        out += _heading(heading) + lines
    return "\n".join(out) + "\n"
