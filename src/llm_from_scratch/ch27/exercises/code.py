"""How chapter 27 judges a function the learner writes: the head (06) and its backward (07), declared there.

``write-head`` checks ``my_head(q, k, v) -> O`` against the engine's forward and
``write-backward`` checks ``my_backward(q, k, v, upstream) -> (dq, dk, dv)`` against its
autodiff, on the worked example, the second example and hidden cases (``book.code_check`` runs
them); float32 and other precisions are right, with a note. Where the function is wrong, a search
(``code_slips``) names the slip, or the two, that turn the right computation into exactly what the function gave
on every probe, and only when nothing else fits; otherwise the first stage that differs. The solutions
``reveal`` shows are the engine's closed form.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import replace

import numpy as np

from ...book import code_check
from ...book.answers import AnswerFormatError
from ...book.code_check import Case, Finding
from ...book.code_search import Search
from ...book.declare import Exercise
from ...book.formatting import shape, vector
from ...book.slips import Slip
from ...book.tolerances import FLOAT_NOISE
from ...book.verdicts import Judgement, Phrase, own, right, wrong
from .. import code_lines, code_slips
from ..evidence import HeadRun, LearnerEvidence, run_head
from ..strings import text

SEED = 27
RANDOM_SHAPES = ((2, 3, 4, 5), (3, 4, 3, 2))  # B, T, d_k, d_v of the hidden random cases
SINGLE_TOKEN_SHAPE = (2, 1, 3, 4)
# Scaled scores reach about 850 in the first query's row, so exp overflows unless the row's
# maximum is subtracted, and stay near 4 in the second, so subtracting the maximum of the whole
# matrix instead of each row's makes that row underflow to 0/0.
LARGE_QUERY = ((40.0, 10.0), (0.1, 0.2), (-30.0, 30.0))
LARGE_KEY = ((30.0, 0.0), (0.0, 30.0), (20.0, -20.0))
LARGE_VALUE = ((1.0, -2.0, 0.5), (3.0, 0.0, -1.0), (-1.0, 2.0, 2.0))

# Problems of book.code_check that every code exercise names the same way:
# problem -> (misconception id, message key, message key when the line of the learner's code is known)
PROBLEMS = {
    "raised": ("raised", "code.raised", "code.raised_at"),
    "timeout": ("timeout", "code.timeout", "code.timeout_at"),
    "unreadable": ("wrong-shape", "code.unreadable", "code.unreadable"),
    "wrong-shape": ("wrong-shape", "code.wrong-shape", "code.wrong-shape"),
    "mutated": ("mutates-input", "code.mutated", "code.mutated"),
    "not-finite": ("not-finite", "code.not-finite", "code.not-finite"),
    "differs": (None, "code.differs", "code.differs"),
}
NOT_AN_ATTEMPT = {"stub": "code.stub", "not-callable": "code.not-callable"}


def head_case(name: str, run: HeadRun) -> Case:
    return Case(name, (run.query, run.key, run.value), (run.output,))


def backward_case(name: str, run: HeadRun) -> Case:
    return Case(name, (run.query, run.key, run.value, run.upstream), (run.grad_query, run.grad_key, run.grad_value))


# --- the cases -------------------------------------------------------------------------------

def _runs(ev: LearnerEvidence) -> list[tuple[str, str, HeadRun]]:
    """Every case's kind, name and the engine's forward and backward on it, in the order they are tried."""
    rng = np.random.default_rng(SEED if ev.draw.case_seed is None else ev.draw.case_seed)

    def drawn(batch, tokens, key_width, value_width):
        q, k = rng.normal(size=(2, batch, tokens, key_width))
        return run_head(q, k, *rng.normal(size=(2, batch, tokens, value_width)))

    large = run_head(*(np.array([m]) for m in (LARGE_QUERY, LARGE_KEY, LARGE_VALUE)), rng.normal(size=(1, 3, 3)))
    return [
        ("worked", text("code.case.worked"), ev.worked),
        ("second", text("code.case.second"), ev.hand),
        *(("random", text("code.case.random", batch=b, tokens=t, key_width=dk, value_width=dv), drawn(b, t, dk, dv))
          for b, t, dk, dv in RANDOM_SHAPES),
        ("single", text("code.case.single"), drawn(*SINGLE_TOKEN_SHAPE)),
        ("large", text("code.case.large"), large),
    ]


# --- judging -------------------------------------------------------------------------------

def _read_function(fn: object, form: str) -> object:
    """A function is its own answer: nothing to read."""
    return fn


def code_exercise(exercise_id: str, *, notebook: str, example: Callable[[LearnerEvidence], HeadRun],
                  skills: tuple[str, ...],
                  case_of: Callable[[str, HeadRun], Case], search: Search,
                  stage: Callable[[Callable, Finding], tuple[str, dict] | None],
                  arguments: tuple[str, ...], outputs: tuple[str, ...], solution: tuple[Callable, ...]) -> Exercise:
    """A code exercise: the cases say whether the learner's function is right; where it is not, ``search`` names
    the slips the probes prove (each said in its words with ``hint.<id>``), else ``stage`` the first stage
    that differs (its string's key and fields). Its strings name the shapes it returns ("expected") and what its
    answer is ("answer")."""
    def judge(fn: object, expected: object, ev: LearnerEvidence) -> Judgement:
        cases = [replace(case_of(name, run), kind=kind) for kind, name, run in _runs(ev)]
        finding = code_check.run_cases(fn, cases)
        if finding.problem in NOT_AN_ATTEMPT:
            raise AnswerFormatError(text(NOT_AN_ATTEMPT[finding.problem], **finding.fields),
                                    pending=finding.problem == "stub")
        function = code_check.name_of(fn)
        if finding.problem is None:
            if finding.fields["precision"] > FLOAT_NOISE:
                return right("code.right_precision", function=function, count=finding.fields["count"],
                             error=f"{finding.fields['precision']:.0e}")
            return right("code.right", function=function, count=finding.fields["count"])
        fields = {"function": function, "case": finding.case.name}
        if finding.problem in ("raised", "wrong-shape", "not-finite", "differs", "unreadable", "mutated"):
            candidates = search.candidates(fn) if finding.problem != "mutated" else []
            read = code_lines.read_wrong(fn, cases, len(outputs))
            if read is not None:
                case, reading = read
                said = _by_lines(candidates, search, case, reading, {**fields, "case": case.name}, finding,
                                 arguments, outputs)
                if said:
                    return said
            elif len(candidates) == 1:
                return _named(candidates[0], fields, None, None, Phrase("code.found.none"))
            found = stage(fn, finding) if finding.problem not in ("unreadable", "mutated") else None
            if found:
                key, measured = found
                return wrong(key.replace("code-stage.", "stage-"), "code.first_stage", **fields,
                             stage=Phrase(key, measured))
        misconception, key, key_at_line = PROBLEMS[finding.problem]
        return wrong(misconception, key_at_line if "line" in finding.fields else key, **fields,
                     **_details(finding, arguments, outputs))

    def reference(ev: LearnerEvidence) -> Callable:
        """The expected answer: the solution's last function, the one the learner writes."""
        return solution[-1]

    def facts(expected: object, ev: LearnerEvidence) -> dict[str, str]:
        first = case_of("", ev.worked).expected[0][0, 0]  # the first row of the first output on the worked example
        return {"answer": own("answer"), "solution": "\n\n".join(inspect.getsource(f).strip() for f in solution),
                "first": vector(first)}

    return Exercise(exercise_id, "code", notebook, example, reference, judge, facts, read=_read_function,
                    skills=skills, varies="code")


def _by_lines(candidates: list[tuple[Slip, ...]], search: Search, case: Case, reading: code_lines.Reading,
              fields: dict[str, object], finding: Finding, arguments: tuple[str, ...],
              outputs: tuple[str, ...]) -> Judgement | None:
    """What the traced lines show: the slips where they agree with the lines, else the line where the numbers part
    and what it read and made, else a buffer filled in part, an output returned in another's place, the buffer an
    exception was raised writing into; with any argument a line changed in place."""
    departure, misplaced, unfilled, traced = reading.departure, reading.misplaced, reading.unfilled, reading.trace
    also = _also(reading, outputs)
    if finding.problem == "mutated" and reading.changed:
        return wrong("mutates-input", "code.mutated_line", mutated=Phrase("code.mutated", {
            **fields, "arguments": ", ".join(arguments[i] for i in finding.fields["arguments"])}),
            line=_changed(reading.changed))
    if finding.problem == "unreadable" and traced.returned_at is not None:
        lineno, returned = traced.returned_at
        ends = "code.line_returns" if returned.startswith("return") else "code.line_ends"  # no return statement
        return wrong("wrong-shape", "code.unreadable_line", unreadable=Phrase("code.unreadable", {
            **fields, "case": finding.case.name, **_details(finding, arguments, outputs)}), line=Phrase(ends, {
                "lineno": lineno, "line": _shown(returned)}))
    if departure is not None and departure.returned_as is not None:  # a value on the way, returned as an output
        wanted = code_lines.OUTPUTS[len(outputs)][departure.returned_as]
        line = Phrase("code.line_returned_as", {"lineno": departure.made.lineno, "line": _shown(departure.made.line),
                                                "wanted": _value(wanted)})
    elif departure is not None and departure.made.held:  # an array a local holds, returned
        line = Phrase("code.line_returned", {"lineno": departure.made.lineno, "line": _shown(departure.made.line),
                                             "name": departure.made.held})
    elif departure is not None:
        line = _line("code.line", departure.made)
    elif misplaced is not None:
        line = Phrase("code.line_returns", {"lineno": misplaced.made.lineno, "line": _shown(misplaced.made.line)})
    elif unfilled is not None:
        line = _line("code.line_made", unfilled.written_at)
    elif traced.raised_at is not None:
        line = Phrase("code.line_raised", {"lineno": traced.raised_at[0], "line": _shown(traced.raised_at[1])})
    else:
        return None
    agreeing = [slips for slips in candidates if code_slips.agrees(slips, search, case.args, reading)]
    if len(agreeing) > 1:  # neither the probes nor the line tell them apart: both are offered
        return wrong("+".join(sorted(slip.id for slip in agreeing[0] + agreeing[1])), "code.either", **fields,
                     first=_said_slips(agreeing[0]), second=_said_slips(agreeing[1]), line=line, also=also)
    if agreeing:
        slips, said = agreeing[0], []
        if departure is not None and departure.read:
            said.append(Phrase("code.reads", {"values": _listed(departure.read)}))
        said += _relations(departure) if departure is not None else []
        never = code_slips.never_made(slips, search, case.args, reading) if traced.raised is None else None
        if never:
            value, before, lineno = never
            said.append(Phrase("code.never", {"value": _value(value), "before": _value(before), "lineno": lineno}))
        return _named(slips, fields, line, _sentences(said, lead=False) if said else None, also)
    if departure is not None:
        read = tuple(name for name, _ in departure.read)
        expected = code_lines.following(read, len(outputs))
        if departure.made.frame == 0 and departure.made.name.startswith(code_lines.RETURNED):  # what it returns
            expected = code_lines.OUTPUTS[len(outputs)][int(departure.made.name.split()[1]):][:1]
        if departure.returned_as is not None:
            said = Phrase("code.reads", {"values": _listed(departure.read)}) if read else Phrase("code.found.none")
            expected = code_lines.OUTPUTS[len(outputs)][departure.returned_as:][:1]
        elif not read and departure.made.name.startswith(code_lines.RETURNED):
            said = Phrase("code.returns_nothing", {"wanted": _value(expected[0])})
        elif not read:
            said = Phrase("code.read_nothing", {"next": _listed((), expected)})
        elif expected and not set(expected) & set(read):
            said = Phrase("code.read", {"values": _listed(departure.read), "next": _listed((), expected)})
        else:
            said, expected = Phrase("code.read_final", {"values": _listed(departure.read)}), expected or read[-1:]
        return wrong(f"departs-{expected[0]}", "code.departs", **fields, line=line, read=said,
                     found=_sentences(_relations(departure) + _gap(expected, reading)), also=also)
    if unfilled is not None:
        loop = Phrase("code.loop", {"lineno": unfilled.loop[0], "line": _shown(unfilled.loop[1])}) \
            if unfilled.loop else Phrase("code.found.none")
        if unfilled.returned_in_loop:
            loop = Phrase("code.found.join", {"first": loop, "second": Phrase("code.return_in_loop", {
                "lineno": unfilled.returned_in_loop[0], "line": _shown(unfilled.returned_in_loop[1])})})
        return wrong("unfilled", "code.unfilled", **fields, line=line, loop=loop, made_at=unfilled.made_at,
                     wanted=_value(code_lines.OUTPUTS[len(outputs)][unfilled.position]),
                     elements=", ".join(map(str, unfilled.elements)), batch=unfilled.batch, also=also)
    if misplaced is not None:
        return wrong(f"returns-{misplaced.value}", "code.misplaced", **fields, line=line,
                     made=_line("code.line_made", misplaced.maker), value=_value(misplaced.value),
                     wanted=_value(code_lines.OUTPUTS[len(outputs)][misplaced.position]), also=also)
    if reading.raised_pitfalls and traced.raised is not None:
        return wrong("raised", "code.raised_pitfall", **fields, error=code_check.error_text(traced.raised), line=line,
                     found=_sentences([Phrase(key, said) for key, said in reading.raised_pitfalls],
                                      lead=False), also=also)
    if reading.buffer is not None and traced.raised is not None:
        name, lineno, shape_made, alike = reading.buffer
        alike_said = Phrase("code.shaped_like", {"argument": arguments[alike]}) if alike is not None \
            else Phrase("code.found.none")
        return wrong("buffer-shape", "code.raised_into", **fields, error=code_check.error_text(traced.raised),
                     line=line, name=name, lineno=lineno, shape=shape_made, alike=alike_said, also=also)
    return None


LINE_SHOWN = 90  # characters of a learner's line that a message quotes


def _value(name: str) -> Phrase:
    """A value of the head in words."""
    return Phrase(f"code-value.{name}")


def _shown(line: str) -> str:
    return line if len(line) <= LINE_SHOWN else line[:LINE_SHOWN] + "…"


def _line(key: str, made) -> Phrase:
    return Phrase(key, {"lineno": made.lineno, "line": _shown(made.line)})


def _changed(changed: tuple[str, int, str]) -> Phrase:
    name, lineno, line = changed
    return Phrase("code.changed", {"name": name, "lineno": lineno, "line": _shown(line)})


def _listed(read: tuple[tuple[str, int], ...], names: tuple[str, ...] = ()) -> Phrase:
    """Values named in words ("a", "a and b", "a, b and c"), each read one with the line that made it (the
    arguments without)."""
    words = [Phrase("code.value_at", {"value": _value(name), "lineno": line})
             if name not in code_lines.INPUTS else _value(name) for name, line in read]
    words += [_value(name) for name in names]
    said = words[0]
    for i, word in enumerate(words[1:], start=2):
        said = Phrase("code.and" if i == len(words) else "code.comma", {"first": said, "second": word})
    return said


def _sentences(said: list[Phrase], lead: bool = True) -> Phrase:
    """Sentences one after another; with ``lead``, after a space (nothing where there are none)."""
    if not said:
        return Phrase("code.found.none")
    sentence = said[0]
    for phrase in said[1:]:
        sentence = Phrase("code.found.then", {"first": sentence, "second": phrase})
    return Phrase("code.lead", {"text": sentence}) if lead else sentence


def _found(departure: code_lines.Departure) -> Phrase:
    """The checked relations the departing numbers are in, each a sentence after a space (none: an empty phrase)."""
    return _sentences(_relations(departure))


def _relations(departure: code_lines.Departure) -> list[Phrase]:
    """Each checked relation the departing numbers are in, as a sentence."""
    said = []
    data = departure.made.value
    if not np.all(np.isfinite(data)):
        said.append(Phrase("code.found.not-finite", {"count": int(np.sum(~np.isfinite(data))), "size": data.size}))
    if departure.seen.transposed:
        said.append(Phrase("code.found.transposed", {"value": _value(departure.seen.name)}))
    for name, element, lineno in departure.partial:
        said.append(Phrase("code.found.element", {"value": _value(name), "element": element, "lineno": lineno}))
    if departure.multiple:
        name, factor = departure.multiple
        said.append(Phrase("code.found.multiple", {"value": _value(name), "factor": f"{factor:.4g}"}))
        said += [Phrase("code.found.number", {"name": n, "value": f"{x:g}", "lineno": line})
                 for n, x, line in departure.numbers if _factor_of(factor, x)]
    if departure.normalised:
        said.append(Phrase("code.found.normalised", {"value": _value(departure.normalised)}))
    if departure.integer is not None:
        name, lineno = departure.integer
        said.append(Phrase("code.found.integer", {"name": name, "lineno": lineno}))
    if data.ndim >= 2 and data.shape[-1] == data.shape[-2] and np.all(np.isfinite(data)) \
            and np.allclose(data.sum(axis=-2), 1) and not np.allclose(data.sum(axis=-1), 1):
        said.append(Phrase("code.found.columns"))
    if departure.part:
        part, made_of = departure.part
        said.append(Phrase("code.found.part", {"part": _shown(part), "values": _listed((), made_of)}))
    said += [Phrase(key, fields) for key, fields in departure.pitfalls]
    said += [Phrase("code.found.turned", {"name": name, "value": _value(value), "lineno": lineno})
             for name, value, lineno in departure.turned]
    said += [Phrase("code.found.other", {"name": name, "lineno": lineno}) for name, lineno in departure.others]
    return said


def _gap(expected: tuple[str, ...], reading: code_lines.Reading) -> list[Phrase]:
    """A stage before the expected ones that no array of the lines is, where the one before it is, and the numbers
    the line that made that one read (checked: ``code_lines.gap``)."""
    found = code_lines.gap(expected, reading) if reading.trace.raised is None else None
    if found is None:
        return []
    missing, before, maker, numbers = found
    return [Phrase("code.never", {"value": _value(missing), "before": _value(before), "lineno": maker.lineno}),
            *(Phrase("code.line_reads_number", {"lineno": maker.lineno, "name": name, "value": f"{value:g}",
                                                "set": line}) for name, value, line in numbers)]


def _factor_of(factor: float, number: float) -> bool:
    """Whether a factor is a number read, or its root, or one over either (the scale a line applied)."""
    return number > 0 and any(np.isclose(abs(factor), number ** power) for power in (-1, -0.5, 0.5, 1))


def _also(reading: code_lines.Reading, outputs: tuple[str, ...]) -> Phrase:
    """What else the lines show: another returned output that parts where it is made, an argument changed."""
    said = [Phrase("code.also", {"wanted": _value(code_lines.OUTPUTS[len(outputs)][position]),
                                 "line": _line("code.line_made", departure.made), "found": _found(departure)})
            for position, departure in reading.also]
    if reading.changed:
        said.append(Phrase("code.also_changed", {"line": _changed(reading.changed)}))
    joined = Phrase("code.found.none")
    for phrase in said:
        joined = Phrase("code.found.join", {"first": joined, "second": phrase})
    return joined


def _said_slips(slips: tuple[Slip, ...]) -> Phrase:
    """A hypothesis's slips in their words, one or two."""
    said = [Phrase(slip.message) for slip in slips]
    return said[0] if len(said) == 1 else Phrase("code.found.then", {"first": said[0], "second": said[1]})


def _named(slips: tuple[Slip, ...], fields: dict[str, object], line: Phrase | None, found: Phrase | None,
           also: Phrase) -> Judgement:
    """The slip the search proved, or the two, each with where to look (the line, where the trace agrees, and what
    it shows there)."""
    hints = [Phrase(f"hint.{slip.id}") for slip in slips]
    hint = hints[0] if len(hints) == 1 else Phrase("code.found.then", {"first": hints[0], "second": hints[1]})
    where = hint if line is None else Phrase("code.where", {"line": line, "hint": hint}) if found is None else \
        Phrase("code.where_found", {"line": line, "found": found, "hint": hint})
    if len(slips) == 1:
        return wrong(slips[0].id, "code.named", **fields, slip=Phrase(slips[0].message), where=where, also=also)
    return wrong("+".join(slip.id for slip in slips), "code.named_two", **fields, first=Phrase(slips[0].message),
                 second=Phrase(slips[1].message), where=where, also=also)


def _details(finding: Finding, arguments: tuple[str, ...], outputs: tuple[str, ...]) -> dict[str, object]:
    """A generic problem's fields, in this exercise's words."""
    f, problem = finding.fields, finding.problem
    if problem in ("raised", "timeout", "not-finite"):
        return dict(f)
    if problem == "mutated":
        return {"arguments": ", ".join(arguments[i] for i in f["arguments"])}
    if problem == "differs":
        return {"outputs": ", ".join(outputs[i] for i in f["outputs"]), "difference": f"{f['difference']:.3g}"}
    expected = own("expected", shapes=", ".join(shape(e.shape) for e in finding.case.expected))
    if problem == "unreadable":
        returned = text("code.sized", kind=f["returned"], length=f["length"]) if "length" in f else f["returned"]
        return {"returned": returned, "expected": expected}
    return {"shapes": ", ".join(shape(s) for s in f["shapes"]), "expected": expected}
