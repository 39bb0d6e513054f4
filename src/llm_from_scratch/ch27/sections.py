"""Chapter 27's sections, each described once as data (``book.blocks``), every number computed.

The report (text), the trace (HTML), notebook cells and the head editor all
render these descriptions; ``render_report`` and ``render_trace`` assemble them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from html import escape

import numpy as np

from ..book.blocks import (
    Group,
    Matrix,
    Note,
    Section,
    Table,
    Value,
    Verdict,
    legend,
    to_folded_html,
    to_html,
    to_text,
)
from ..book.formatting import below, labels, matrix, num, places, shape, trimmed, vector
from ..book.text import language
from ..book.tolerances import DIFFERENCES_NOISE, FLOAT_NOISE
from ..engine import Tensor
from ..engine.attention import INPUT_NAMES, SelfAttentionError, SelfAttentionForward
from ..engine.closed_form import closed_form_backward
from ..engine.gradcheck import GradCheckReport, check_gradients, replayed
from .evidence import (
    HeadRun,
    HistoryEvidence,
    LearnerEvidence,
    closed_form_difference,
    evidence,
    exponentials,
    row_sum_deviation,
    run_head,
)
from .figures import rows_of
from .reader import cells_stages, chapter_loss, softmax_step, stages_note
from .reader import leaves as inputs_of
from .stages import BY_NAME
from .strings import text

TEXT_WIDTH = 96  # a long sentence in a text output wraps here: a notebook column holds about 115 characters
ROLE_CAPTIONS = {"query": "role.query", "key": "role.key", "value": "role.value"}
# by the error's kind: why the head refused, and what was wrong in words (the error's details are its fields);
# then the words for each operand and for each stage that can fail
REFUSALS = {"input-rank": ("error.input-rank", "refusal.input-rank"),
            "batch-mismatch": ("error.batch-mismatch", "refusal.batch-mismatch"),
            "token-mismatch": ("error.token-mismatch", "refusal.token-mismatch"),
            "empty-token-axis": ("error.empty-token-axis", "refusal.empty-token-axis"),
            "query-key-width-mismatch": ("error.query-key-width-mismatch", "refusal.query-key-width-mismatch"),
            "empty-feature-width": ("error.empty-feature-width", "refusal.empty-feature-width"),
            "non-finite-input": ("error.non-finite-input", "refusal.non-finite-input"),
            "stage-failure": ("error.stage-failure", "refusal.stage-failure")}
OPERANDS = {"query": "refusal.operand.query", "key": "refusal.operand.key", "value": "refusal.operand.value"}
HISTORY_NAMES = {"decoder-state": "history.name.decoder-state", "encoder-annotation": "history.name.encoder-annotation",
                 "hidden-position": "history.name.hidden-position"}
HISTORY_STAGES = {"recurrent-fixed-context": "history.recurrent-fixed-context",
                  "additive-encoder-decoder-alignment": "history.additive-encoder-decoder-alignment",
                  "scaled-dot-product-self-attention": "history.scaled-dot-product-self-attention"}


def _yes_no(label: str, flag: bool) -> Verdict:
    return Verdict(label, flag, text("yes") if flag else text("no"))


def _gradcheck_verdict(report: GradCheckReport) -> Verdict:
    return Verdict(text("gradcheck"), report.passed,
                   text("gradcheck.passed") if report.passed else text("gradcheck.failed"),
                   text("gradcheck.detail", error=below(report.max_error, DIFFERENCES_NOISE)))


def _replay_verdict(ev: LearnerEvidence) -> Verdict:
    return Verdict(text("replay"), ev.replay_bitwise,
                   text("replay.bitwise") if ev.replay_bitwise else text("replay.differs"))


def _score_matrix(name: str, scores: np.ndarray, caption: str = "") -> Matrix:
    tokens = scores.shape[1]
    return Matrix(name, scores[0], labels("q", tokens), labels("k", tokens), caption, scores.shape)


# --- the forward pass ------------------------------------------------------------------

def inputs(run: HeadRun) -> Section:
    parts = []
    for name, role, tensor, prefix in (("Q", "query", run.query, "q"), ("K", "key", run.key, "k"),
                                       ("V", "value", run.value, "v")):
        columns = tuple(str(j) for j in range(tensor.shape[2]))
        parts.append(Group((Matrix(name, tensor[0], labels(prefix, tensor.shape[1]), columns,
                                   text(ROLE_CAPTIONS[role]), tensor.shape),), role))
    return Section(text("section.inputs"), tuple(parts))


def scores(run: HeadRun) -> Section:
    return Section(text("section.scores"), (
        Group((_score_matrix("QKᵀ", run.head.raw_scores.data, text("trace.raw")),), "score"),))


def _divisor(run: HeadRun) -> float | None:
    """The number ``run``'s scores were divided by, where it is not the head's √d_k (a widget following a cell's
    own divisor); None for the head's."""
    head = run.head
    divisor = 1 / head.scale
    return None if abs(divisor - math.sqrt(head.key_width)) <= FLOAT_NOISE else divisor


def scale_value(run: HeadRun) -> Value:
    head, divisor = run.head, _divisor(run)
    label = text("scale") if divisor is None else text("scale_cells", divisor=trimmed(divisor, 4))
    return Value(label, f"{num(head.scale)}  (d_k = {head.key_width}, d_v = {head.value_width})")


def scaled(run: HeadRun) -> Section:
    divisor = _divisor(run)
    label = "S = QKᵀ/√d_k" if divisor is None else f"S = QKᵀ/{trimmed(divisor, 3)}"
    caption = text("trace.scaled") if divisor is None else text("trace.scaled_cells", divisor=trimmed(divisor, 4))
    return Section(text("section.scaled"), (
        Group((_score_matrix(label, run.head.scaled_scores.data, caption), scale_value(run)), "score"),))


# what a softmax normalizes over, by its axis in a [B, T, T] tensor
AXIS_NAMES = {0: "axis.batch", 1: "axis.query", 2: "axis.key"}


def softmax_rows(run: HeadRun) -> Section:
    """Each row of the weights with its sum, and the axis the softmax ran along (the head's, or a cell's own)."""
    axis = softmax_step(run.head.weights)[0]
    title = text("section.softmax") if axis == 2 else text("section.softmax_axis", axis=axis)
    return Section(title, tuple(
        Group((Value(f"A_{i},:", vector(row)), Value(text("row_sum"), num(row.sum())),
               Value(text("normalization_axis"), text(AXIS_NAMES[axis]), ": ")), "weight", f"q_{i}")
        for i, row in enumerate(run.weights[0])))


def mixture(run: HeadRun) -> Section:
    return mixture_of(run.weights, run.value, run.output)


def mixture_of(weights: object, value: object, output: object) -> Section:
    """Each output row as the sum of value rows times its weights (batch element 0): A, V and O as the cells
    computed them (Tensors or arrays); the terms A_ij·v_j are written out, the sum is O's own row."""
    row_name = "k" if rows_of(weights) == "K" else "q"  # K·Qᵀ's weights have the keys for rows
    weights, value, output = (np.asarray(getattr(x, "data", x))[0] for x in (weights, value, output))
    groups = []
    for i, row in enumerate(weights):
        weighted = " + ".join(f"{num(a, places(row))}·{vector(v)}" for a, v in zip(row, value))  # as the row is
        groups.append(Group((Value(text("trace.weights_of", query=f"{row_name}_{i}"), vector(row)),
                             Value(text("terms"), weighted),
                             Value(text("terms.computed"), " + ".join(vector(a * v) for a, v in zip(row, value))),
                             Value(f"o_{i}", vector(output[i]))), "value", f"o_{i}"))
    return Section(text("section.mixture"), tuple(groups))


def contributions(weights: object, value: object) -> Section:
    """A weight beside what it actually adds (batch element 0 of a cell's A and V): ‖A_ij v_j‖ also depends on
    the size of the value row."""
    weights, value = _matrix(weights), _matrix(value)
    tokens = len(weights)
    sizes = weights * np.linalg.norm(value, axis=-1)  # ‖A_ij v_j‖ = A_ij ‖v_j‖, since A_ij ≥ 0
    return Section(text("section.contributions"), (
        Matrix("A", weights, labels("q", tokens), labels("k", tokens), text("contributions.weights")),
        Matrix("‖A_ij v_j‖", sizes, labels("q", tokens), labels("k", tokens), text("contributions.sizes"))))


def forward(run: HeadRun) -> tuple[Section, ...]:
    """Inputs, scores, weight rows and value mixtures of one run (batch element 0)."""
    return inputs(run), scores(run), scaled(run), softmax_rows(run), mixture(run)


# --- backward, shapes, properties, checks -----------------------------------------------

def backward(run: HeadRun) -> Section:
    values = [Value(name, matrix(_matrix(grad))) for name, grad in (
        ("Ō", run.upstream), ("Q̄", run.grad_query), ("K̄", run.grad_key), ("V̄", run.grad_value))]
    return Section(text("section.backward"), (*values, Value(f"{text('loss')} = ⟨O, Ō⟩", num(run.loss))))


def _features(matrix: np.ndarray) -> tuple[str, ...]:
    return tuple(str(j) for j in range(matrix.shape[-1]))


def score_gradient(weights: object, grad_weights: object, grad_scores: object) -> Section:
    """S̄ row by row, as a hand computes it (batch element 0 of the cell's A, Ā and S̄): the row's ⟨a, ā⟩, then
    a ⊙ (ā − ⟨a, ā⟩), which sums to 0."""
    weights, grad_weights, grad_scores = (_matrix(x) for x in (weights, grad_weights, grad_scores))
    groups = tuple(Group((Value("a", vector(a)), Value("ā", vector(grad_a)), Value("⟨a, ā⟩", num(a @ grad_a)),
                          Value(f"S̄_{i},:", vector(grad_s)), Value(text("backward.row_sum"), num(grad_s.sum()))),
                         "score", f"q_{i}")
                   for i, (a, grad_a, grad_s) in enumerate(zip(weights, grad_weights, grad_scores)))
    return Section(text("section.score_gradient"), groups)


def _matrix(x: object) -> np.ndarray:
    """Batch element 0 of a Tensor or an array."""
    return np.asarray(getattr(x, "data", x))[0]


def gradient_check(loss: object, **leaves: object) -> Section:
    """The gradients a cell's ``loss.backward()`` left in ``.grad`` of ``leaves`` (by their names in the cells:
    ``gradient_check(L, Q=Q, K=K, V=V)``) beside central differences of the same loss, replayed along its own
    recorded graph with one coordinate moved; and beside the chapter's formulas where ``loss`` is the chapter's
    head with L = ⟨O, Ō⟩. Gradients that are a whole multiple of the differences are told that backward adds."""
    if not isinstance(loss, Tensor) or loss.data.size != 1:
        raise ValueError(text("gradient.not_a_loss"))
    for name, leaf in leaves.items():
        if not (isinstance(leaf, Tensor) and leaf.requires_grad and any(x is leaf for x in inputs_of(loss))):
            raise ValueError(text("gradient.not_in_graph", name=name))
        if leaf.grad is None:
            raise ValueError(text("gradient.not_run", name=name))
    names, tensors = list(leaves), list(leaves.values())
    grads = [leaf.grad for leaf in tensors]
    report = check_gradients(lambda xs: float(replayed(loss, dict(zip(tensors, xs))).sum()),
                             [leaf.data for leaf in tensors], grads, names)
    upstream = chapter_loss(loss, *(leaves.get(n) for n in "QKV")) if set(leaves) == set("QKV") else None
    closed = (dict(zip("QKV", closed_form_backward(*(leaves[n].data for n in "QKV"), upstream.data)))
              if upstream is not None else None)
    rows = tuple((f"{c.input_name}[{','.join(map(str, c.index))}]", num(c.analytic),
                  *([num(closed[c.input_name][c.index])] if closed else []), num(c.numeric),
                  below(c.error, DIFFERENCES_NOISE)) for c in report.coordinates)
    header = ("", text("gradient.engine"), *([text("gradient.closed")] if closed else []), text("gradient.numeric"),
              "|Δ|")
    verdict = Verdict(text("gradient.verdict", step=f"{report.step:g}", tolerance=f"{report.tolerance:g}",
                           count=len(report.coordinates)), report.passed,
                      text("gradcheck.passed") if report.passed else text("gradcheck.failed"),
                      f"max |Δ| {below(report.max_error, DIFFERENCES_NOISE)}")
    times = None if report.passed else whole_multiple(report)
    said = (Note(text("gradient.accumulated", times=times), TEXT_WIDTH),) if times else ()
    title = text("section.gradient_table") if closed else text("section.gradient_table_own")
    return Section(title, (Table(header, rows), verdict, *said))


def whole_multiple(report: GradCheckReport) -> int | None:
    """n ≥ 2 where every gradient is n times the differences (backward run n times without clearing), else None."""
    ratios = [c.analytic / c.numeric for c in report.coordinates if abs(c.numeric) > 1e-4]
    if not ratios:
        return None
    n = round(ratios[0])
    return n if n >= 2 and all(abs(r - n) <= 1e-3 * n for r in ratios) else None


def shapes(ev: LearnerEvidence) -> Section:
    together = ev.fixed.batch.together
    parts = [Value("Q, K, V", shape(together.query.shape)), Value("A", shape(together.weights.shape)),
             Value("O", shape(together.output.shape)),
             Verdict(text("batch"), ev.fixed.batch.independent,
                     text("batch_independent") if ev.fixed.batch.independent else text("batch_dependent"),
                     f"max |Δ| {below(ev.fixed.batch.max_difference, FLOAT_NOISE)}")]
    for key, case in (("empty_batch", ev.fixed.empty_batch), ("narrow_values", ev.fixed.narrow_values)):
        parts.append(Value(text(key), f"Q {shape(case.query_shape)}, K {shape(case.key_shape)}, "
                                      f"V {shape(case.value_shape)} → A {shape(case.weights_shape)}, "
                                      f"O {shape(case.output_shape)}", ": "))
    return Section(text("section.shapes"), tuple(parts))


def output_shape(weights: object, output: object) -> Section:
    """The shapes of A and O as a cell's head gave them (anything with a ``.shape``)."""
    return Section(text("section.output_shape"), (Value("A", shape(weights.shape)), Value("O", shape(output.shape))))


def sums(run: HeadRun) -> Section:
    """Row sums against column sums of A: only the rows are normalized."""
    weights = run.weights[0]
    return Section(text("section.sums"), (Value(text("sums.rows"), vector(weights.sum(axis=1))),
                                          Value(text("sums.columns"), vector(weights.sum(axis=0)))))


def single(ev: LearnerEvidence) -> Section:
    run = ev.single_token
    return Section(text("section.single"), (
        Value("A", vector(run.weights)), Value("O", vector(run.output)),
        Value("Q̄", vector(run.grad_query)), _yes_no(text("zero_grad_query"), not run.grad_query.any()),
        Value("K̄", vector(run.grad_key)), _yes_no(text("zero_grad_key"), not run.grad_key.any())))


def properties(ev: LearnerEvidence) -> Section:
    perm = ev.fixed.permutation
    return Section(text("section.properties"), (
        Value(text("identical_keys"), "; ".join(vector(r) for r in ev.identical_keys.weights[0]), ": "),
        Value(text("permutation", order=list(perm.order)), below(perm.max_difference, FLOAT_NOISE), ": "),
        _replay_verdict(ev)))


def explain(error: SelfAttentionError) -> str:
    """Why the head refused, in the learner's language."""
    return text(REFUSALS[error.kind][0])


def _detail(name: str, value: object) -> str:
    if name == "operand":
        return text(OPERANDS[value])
    if name == "stage":
        return text(BY_NAME[value].words)
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else "∞" if value > 0 else "-∞"
    return str(value)


def offending(error: SelfAttentionError) -> str:
    """What was wrong, in the learner's words, with the numbers the head gave: «у запросов ранг 2»."""
    return text(REFUSALS[error.kind][1], **{name: _detail(name, value) for name, value in error.details.items()})


def _refusal(error: SelfAttentionError) -> Group:
    return Group((Value(text("why"), explain(error), ": "), Value(text("offending"), offending(error), ": ")),
                 caption=f"{text('kind')}: {error.kind}")


def rejected(ev: LearnerEvidence) -> Section:
    return refusals([r.error for r in ev.fixed.rejected])


def refusals(errors: list[SelfAttentionError]) -> Section:
    """Why each input was refused and what in it broke the rule, as the engine's errors say."""
    return Section(text("section.rejected"), tuple(_refusal(error) for error in errors))


def error(error: SelfAttentionError) -> Section:
    """One refusal: its stable kind, why in words, and the numbers behind it."""
    return Section(text("section.error"), (_refusal(error),))


ROW_SUM_BOUND = 1e-12  # the report's row-sum check: every row of A sums to 1 within this


def row_sums_check(weights: object) -> Section:
    """The report's row-sum check on a cell's weights: how far any row sums from 1, and whether within 10⁻¹²."""
    deviation = float(np.max(np.abs(np.asarray(getattr(weights, "data", weights)).sum(axis=-1) - 1.0)))
    return Section(text("section.row_sums_check"), (
        Value(text("row_sum_deviation"), below(deviation, ROW_SUM_BOUND), ": "),
        _yes_no(text("row_sums_within"), deviation <= ROW_SUM_BOUND)))


def checks(ev: LearnerEvidence) -> Section:
    report = ev.worked_gradcheck
    return Section(text("section.checks"), (
        Value(text("row_sum_deviation"), below(row_sum_deviation(ev.worked), FLOAT_NOISE), ": "),
        _gradcheck_verdict(report),
        Value(text("coordinates"), "+".join(str(report.count(name)) for name in INPUT_NAMES), ": "),
        Value(text("step"), f"{report.step:g}", ": "), Value(text("tolerance"), f"{report.tolerance:g}", ": "),
        Value(text("closed_form"), below(closed_form_difference(ev.worked), FLOAT_NOISE), ": ")))


def record(head: SelfAttentionForward) -> Section:
    """The inspectable record's tensors and numbers."""
    tensors = {"raw_scores": head.raw_scores, "scaled_scores": head.scaled_scores, "weights": head.weights,
               "output": head.output}
    fields = [Value(name, text("record.shape", shape=shape(tensor.shape)), ": ") for name, tensor in tensors.items()]
    return Section(text("section.record"), (*fields, Value("scale", num(head.scale)),
                                            Value("key_width", str(head.key_width)),
                                            Value("value_width", str(head.value_width))))


def composition(output: object) -> Section:
    """The primitives behind ``output`` (a Tensor the engine computed), walked back from it to the inputs."""
    ops, tensor = [], output
    while tensor.parents:
        ops.append(tensor.op)
        tensor = next((p for p in tensor.parents if p.parents), tensor.parents[0])
    ops.append(text("composition.leaf"))  # a tensor made from data, not by an operation
    return Section(text("section.composition"), (Note(" ← ".join(ops)), Note(text("composition.read"))))


def _later(weights: object) -> tuple[Note, ...]:
    notes = []
    for i, row in enumerate(_matrix(weights)):
        later = row[i + 1:]
        keys = ", ".join(f"k_{j}" for j in range(i + 1, len(row)))
        notes.append(Note(text("future.later", query=f"q_{i}", keys=keys, weights=vector(later),
                               total=num(later.sum())) if later.size else text("future.none", query=f"q_{i}")))
    return tuple(notes)


def future(worked: object, hand: object) -> Section:
    """How much weight each query of the unmasked head gives to later positions, the ones a causal mask hides:
    the weights A of the worked example and of the second one, as cells computed them."""
    return Section(text("section.future"), (Group(_later(worked), caption=text("future.worked")),
                                            Group(_later(hand), caption=text("future.hand"))))


# --- the second example, worked by hand ---------------------------------------------------

def hand_inputs(ev: LearnerEvidence) -> Section:
    """Q, K, V of the second example: what the learner computes from (d_k is the width of Q and K)."""
    return Section(text("section.hand_inputs"), inputs(ev.hand).parts)


def hand_scores(ev: LearnerEvidence) -> Section:
    run = ev.hand
    return Section(text("section.hand_scores"), (*scores(run).parts, *scaled(run).parts))


def hand_weights(ev: LearnerEvidence) -> Section:
    """Each row's softmax as a hand computes it: scaled scores, their exponentials, the sum, the weights."""
    run = ev.hand
    groups = []
    for i, (row, weights) in enumerate(zip(run.head.scaled_scores.data[0], run.weights[0])):
        exps = exponentials(row)
        groups.append(Group((Value(f"S_{i},:", vector(row)), Value(text("hand.exponentials"), vector(exps)),
                             Value(text("hand.exp_sum"), num(exps.sum())), Value(f"A_{i},:", vector(weights))),
                            "weight", f"q_{i}"))
    return Section(text("section.hand_weights"), tuple(groups))


def hand_output(ev: LearnerEvidence) -> Section:
    return Section(text("section.hand_output"), mixture(ev.hand).parts)


def hand_example(ev: LearnerEvidence) -> tuple[Section, ...]:
    """The second example from its inputs to its output."""
    return hand_inputs(ev), hand_scores(ev), hand_weights(ev), hand_output(ev)


# --- the scale example and history -------------------------------------------------------

def scale_example(ev: LearnerEvidence) -> Section:
    example = ev.fixed.scale
    scores_text = vector(example.scores)
    return Section(text("section.scale_example"), (
        Value(text("unscaled_weight", scores=scores_text), num(example.unscaled[0]), ": "),
        Value(text("scaled_weight", scores=scores_text, key_width=example.key_width), num(example.scaled[0]), ": ")))


def history(hist: HistoryEvidence) -> Section:
    stages = [Note(f"{i}. {text(HISTORY_STAGES[stage])}", TEXT_WIDTH) for i, stage in enumerate(hist.stages, start=1)]
    return Section(text("section.history"), (
        *stages,
        _yes_no(text("history.encoder_decoder"), hist.queries_and_keys_from_different_sequences),
        _yes_no(text("history.self"), hist.queries_and_keys_from_one_sequence)))


def _said(name: str) -> str:
    """A history name such as decoder-state-0 in the learner's words: «состояние декодера 0»."""
    kind, index = name.rsplit("-", 1)
    return text(HISTORY_NAMES[kind], index=index)


def pairs(hist: HistoryEvidence) -> Section:
    """Every (query, key) pair each kind of attention scores."""
    return Section(text("section.pairs"), tuple(
        Group(tuple(Note(f"{_said(q)} → {_said(k)}") for q, k in found), caption=text(caption))
        for found, caption in ((hist.encoder_decoder, "history.pairs.alignment"),
                               (hist.self_attention, "history.pairs.self"))))


# --- the whole chapter -----------------------------------------------------------------

def chapter_sections(ev: LearnerEvidence) -> tuple[Section, ...]:
    """Everything the chapter computes, in the source's order: the report and the trace."""
    run = ev.worked
    return (*forward(run), backward(run), shapes(ev), single(ev), properties(ev), rejected(ev),
            checks(ev), scale_example(ev), history(ev.fixed.history), pairs(ev.fixed.history), *hand_example(ev))


def render_report(ev: LearnerEvidence | None = None) -> str:
    """The chapter as text, identical byte for byte from run to run."""
    title = text("title")
    return f"{title}\n{'=' * len(title)}\n\n{to_text(*chapter_sections(ev or evidence()))}\n"


@dataclass(frozen=True)
class Trace:
    """The chapter's diagram as HTML; its plain-text form is its title."""

    html: str

    def _repr_html_(self) -> str:
        return self.html

    def __repr__(self) -> str:
        return text("trace.title")


def html_block(*sections: Section) -> str:
    """Sections as HTML, marked with the learner's language."""
    return f'<div lang="{language()}" style="font-family:sans-serif;line-height:1.4">{to_html(*sections)}</div>'


def render_trace(query: object = None, key: object = None, value: object = None, weights: object = None) -> Trace:
    """The full trace of the worked example (upstream dO = I), each section folded under its title; given Q, K
    and V (a cell's), the trace of their run instead: its forward and backward pass. Given the cells' A too, the
    trace computes as they did where their A shows how (``reader.cells_stages``), and says which it follows; inputs
    the head refuses are said in the learner's words."""
    ev = evidence()
    note = ""
    if query is None:
        parts = chapter_sections(ev)
    else:
        q, k, v = (np.asarray(getattr(x, "data", x), dtype=np.float64) for x in (query, key, value))
        try:
            stages = cells_stages(weights, q, k, v) if weights is not None else None
            upstream = np.eye(q.shape[1], v.shape[2])[None].repeat(len(q), axis=0) if q.ndim == v.ndim == 3 else None
            run = run_head(q, k, v, upstream=upstream, stages=stages)
        except SelfAttentionError as refused:
            parts = (error(refused),)
        else:
            parts = (*forward(run), backward(run))
            note = stages_note("stages.trace", stages, weights, run.weights[0, 0], q.shape[-1])
    said = f"<p>{escape(note)}</p>" if note else ""
    return Trace(f'<div lang="{language()}" style="font-family:sans-serif;line-height:1.4">'
                 f"<h3>{escape(text('trace.title'))}</h3>{said}<p>{escape(text('trace.legend'))}</p>{legend()}"
                 f"<p>{escape(text('trace.folded'))}</p>{to_folded_html(*parts)}</div>")
