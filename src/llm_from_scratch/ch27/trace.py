"""The chapter's diagram as HTML: the whole computation, every number computed.

Roles are carried by border styles and by captions, never by colour alone:
query solid, key dashed, value double, score dotted, probability double.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

import numpy as np

from .evidence import HeadRun, LearnerEvidence
from .formatting import NOISE, below, num, shape, vector
from .text import text

BORDERS = {
    "query": "2px solid #000",
    "key": "2px dashed #000",
    "value": "4px double #000",
    "score": "2px dotted #000",
    "probability": "4px double #000",
}
ROLES = ("query", "key", "value", "score", "probability")


@dataclass(frozen=True)
class Trace:
    html: str

    def _repr_html_(self) -> str:
        return self.html

    def __repr__(self) -> str:
        return text("trace.title")


def _box(role: str, body: str, caption: str = "") -> str:
    head = f'<div style="font-style:italic;margin-bottom:4px">{escape(caption)}</div>' if caption else ""
    return (f'<div role="group" aria-label="{escape(text("trace.role." + role))}" '
            f'style="border:{BORDERS[role]};padding:6px 8px;margin:6px;display:inline-block;vertical-align:top">'
            f"{head}{body}</div>")


def _matrix(name: str, matrix: np.ndarray, row_prefix: str, columns: list[str]) -> str:
    head = "".join(f'<th scope="col" style="padding:2px 8px">{escape(c)}</th>' for c in columns)
    rows = "".join(
        f'<tr><th scope="row" style="padding:2px 8px">{row_prefix}<sub>{i}</sub></th>'
        + "".join(f'<td style="padding:2px 8px;text-align:right;font-family:monospace">{num(x)}</td>' for x in row)
        + "</tr>"
        for i, row in enumerate(matrix)
    )
    return (f'<table style="border-collapse:collapse"><caption style="font-weight:bold">{name}</caption>'
            f"<thead><tr><th></th>{head}</tr></thead><tbody>{rows}</tbody></table>")


def _section(key: str, body: str) -> str:
    return f'<section style="margin:10px 0"><h4 style="margin:4px 0">{escape(text(key))}</h4>{body}</section>'


def _mono(value: str) -> str:
    return f'<code style="font-family:monospace">{escape(value)}</code>'


def forward_html(run: HeadRun) -> str:
    """Inputs, scores, probability rows and value mixtures of one run (batch element 0)."""
    head = run.head
    tokens, width = run.query.shape[1], run.query.shape[2]
    features = [str(j) for j in range(width)]
    value_features = [str(j) for j in range(run.value.shape[2])]
    keys = [f"k_{j}" for j in range(tokens)]

    inputs = "".join(
        _box(role, _matrix(name, matrix[0], prefix, cols) + f"<div>{text('shape')}: {_mono(shape(matrix.shape))}</div>",
             text(f"role.{role}"))
        for role, name, matrix, prefix, cols in (
            ("query", "Q", run.query, "q", features), ("key", "K", run.key, "k", features),
            ("value", "V", run.value, "v", value_features))
    )
    scores = _box("score", _matrix("QKᵀ", head.raw_scores.data[0], "q", keys), text("trace.raw"))
    scaled = _box("score", _matrix("S = QKᵀ/√d_k", head.scaled_scores.data[0], "q", keys)
                  + f"<div>{text('scale')} = {_mono(num(head.scale))} (d_k = {head.key_width})</div>"
                  + f"<div>{text('shape')}: {_mono(shape(head.scaled_scores.shape))}</div>", text("trace.scaled"))
    rows = "".join(
        _box("probability",
             f"<div>A<sub>{i},:</sub> = {_mono(vector(row))}</div>"
             f"<div>{text('row_sum')}: {_mono(num(row.sum()))}</div>"
             f"<div>{text('normalization_axis')}: {escape(text('axis.key'))}</div>",
             f"q_{i}")
        for i, row in enumerate(run.weights[0])
    )
    mixtures = "".join(
        _box("value",
             f"<div>{text('trace.weights_of', query=f'q_{i}')}: {_mono(vector(run.weights[0, i]))}</div>"
             f"<div>{text('terms')}: " + " + ".join(_mono(vector(t)) for t in terms) + "</div>"
             f"<div><strong>o<sub>{i}</sub> = {_mono(vector(run.output[0, i]))}</strong></div>",
             f"o_{i}")
        for i, terms in enumerate(run.weighted_terms[0])
    )
    return (_section("section.inputs", inputs) + _section("section.scores", scores + scaled)
            + _section("section.softmax", rows) + _section("section.mixture", mixtures))


def _rows(pairs: list[tuple[str, str]]) -> str:
    body = "".join(f'<tr><th scope="row" style="text-align:left;padding:2px 8px">{escape(k)}</th>'
                   f'<td style="padding:2px 8px">{v}</td></tr>' for k, v in pairs)
    return f"<table>{body}</table>"


def render_trace(run: HeadRun | None = None, evidence: LearnerEvidence | None = None) -> Trace:
    """The full trace: ``run`` defaults to the worked example with upstream dO = I."""
    ev = evidence or LearnerEvidence()
    run = run or ev.worked.run
    worked = ev.worked
    legend = "".join(_box(role, escape(text(f"figure.frame.{role}"))) for role in ROLES)

    backward = _rows([(name, _mono(vector(g))) for name, g in (
        ("Ō", worked.run.upstream), ("Q̄", worked.run.grad_query), ("K̄", worked.run.grad_key),
        ("V̄", worked.run.grad_value))] + [(text("loss"), _mono(num(worked.run.loss)))])
    batch = ev.batch
    shapes = _rows([
        ("Q, K, V", _mono(shape(batch.together.query.shape))),
        ("A", _mono(shape(batch.together.weights.shape))),
        ("O", _mono(shape(batch.together.output.shape))),
        (text("batch_independent") if batch.independent else text("batch_dependent"),
         _mono(f"max |Δ| {below(batch.max_difference, NOISE)}")),
        (text("empty_batch"), _mono(f"V {shape(ev.empty_batch.value_shape)} → A {shape(ev.empty_batch.weights_shape)}, "
                                    f"O {shape(ev.empty_batch.output_shape)}")),
        (text("narrow_values"), _mono(f"V {shape(ev.narrow_values.value_shape)} → "
                                      f"O {shape(ev.narrow_values.output_shape)}")),
    ])
    single = ev.single_token
    single_html = _rows([("A", _mono(vector(single.weights))), ("O", _mono(vector(single.output))),
                         ("Q̄", _mono(vector(single.grad_query))), ("K̄", _mono(vector(single.grad_key)))])
    visibility = f"<p>{escape(text('all_keys_visible'))}; d_k = {run.head.key_width}, d_v = {run.head.value_width}</p>"
    rejected = "".join(
        f"<li><strong>{escape(text('rejected'))}</strong> · {escape(text('kind'))}: {_mono(r.error.kind)} · "
        f"{escape(text('error.' + r.error.kind))} · {escape(text('offending'))}: {_mono(r.error.offending())}</li>"
        for r in ev.rejected
    )
    report = worked.gradcheck
    checks = _rows([
        (text("row_sum_deviation"), _mono(below(worked.row_sum_deviation, NOISE))),
        (text("gradcheck"), escape(text("gradcheck.passed") if report.passed else text("gradcheck.failed"))),
        (text("coordinates"), _mono("+".join(str(report.count(n)) for n in ("query", "key", "value")))),
        (text("tolerance"), _mono(f"{report.tolerance:g}")),
        (text("replay"), escape(text("replay.bitwise") if ev.replay_bitwise else text("replay.differs"))),
    ])
    timeline = "".join(f"<li>{escape(text('history.' + stage))}</li>" for stage in ev.history.stages)

    html = (
        f'<div lang="ru" style="font-family:sans-serif;line-height:1.4">'
        f"<h3>{escape(text('trace.title'))}</h3><p>{escape(text('trace.legend'))}</p>{legend}"
        + forward_html(run)
        + _section("section.backward", backward)
        + _section("section.shapes", shapes)
        + _section("section.single", single_html)
        + _section("section.visibility", visibility)
        + _section("section.rejected", f"<ul>{rejected}</ul>")
        + _section("section.checks", checks)
        + _section("section.history", f"<ol>{timeline}</ol>")
        + "</div>"
    )
    return Trace(html)
