"""Reading a learner's answer: parsed, never evaluated, and never failing but with AnswerFormatError.

Numbers may come as a number, a (nested) list or tuple, a numpy array, or text written as learners
write it: "[4, 7, 5]", "4 7 5", "(4, 7, 5)", a shape as "4×7×5", "4x7x5", "4х7х5" (Cyrillic х) or
"4 × 7 × 5"; a matrix as "[[0, 6], [6, -4]]", one row per line, or with ";" between rows
("0 6; 6 -4"); percentages ("1.4%" is 0.014); a trailing comma after a number, a row or a matrix.

Each number may be written as a simple expression: fractions ("1/2"), roots ("√2", "1/√2", "sqrt(2)",
"2√2"), Euler's number ("e", "2e", "e^2", "exp(2)"; "1e-3" and "1e3" stay scientific notation, "2e+1" is
2·e + 1, as in "1/(2e+1)"), products ("×", "·", "*") and quotients, powers ("^", "**") and parentheses,
inside which sums and differences may stand ("e^2/(1 + e^2)"). An expression is read by a small grammar
over numbers and these symbols, never evaluated as code; ÷, ⁄, ½, superscript powers (e⁻², 2²) and a
Cyrillic е are read as they are meant. Outside parentheses a space or a sign starts the next number, as
before ("0.5 -0.5" is two numbers; "1 - 1/2", with spaces on both sides, is one); numbers side by side with
nothing between ("e2", "2(1 + e)", "1/2%") are refused, never split. Braces stand for brackets
({{1, 0}, {0, 1}}). In a shape (``read_shape``) ×, · and commas separate axes. Names in front are read past:
"[B, T, d_v] = [4, 7, 5]", "B=4, T=7, d_v=5", "o_1 = [0.5, 0.2]", "1/√d_k = 1/8", "Ā = [[3, 1], [-3, 3]]".
A typed answer remembers how many decimals it was typed with (``Typed``), so a judge can tell what it can
tell apart.
Length, count and nesting are bounded before anything is parsed, so any value is read (or refused) at
once. A refusal is an AnswerFormatError whose sentence, in the learner's language, says what was read
and what form is expected.

A decimal comma is read where it cannot be a separator: in a lone number ("0,5" is 0.5), where
the numbers are already set apart by ";" or spaces ("0,5 0,5", "[0,014, 0,986]") but not right after an
operator ("[1/2,1/3, 1/6]" is three numbers), and in a number an operator follows or a root holds ("0,5/2",
"√0,5"). Otherwise a comma
separates numbers ("[0,5]" is [0, 5]), except where a number after a comma starts with a zero and
another digit, as a decimal part does ("[0,01,0,99]"): that is refused as ambiguous, with both readings.
A ";" separates rows when every part it makes holds two numbers or more; otherwise it separates numbers
("[0,014; 0,986]" is one row).
"""

from __future__ import annotations

import math
import numbers
import re

import numpy as np

from ..engine import Tensor
from .text import book_text

LARGEST_PLAUSIBLE = 1e6
MAX_TEXT = 10_000  # characters of a typed answer (a 4,301-digit number still gets its own message)
MAX_NUMBERS = 1_000  # numbers in one answer
MAX_DEPTH = 4  # levels of brackets or nested lists

NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE]-?\d+)?"  # 1e-3 and 1e3; "2e+1" is 2·e + 1
_SHAPE_TIMES = re.compile(r"\s*[×xXхХ*·]\s*")  # 4×7×5: a shape's axes
# what learners type for the same signs: minus and dashes, ÷, Cyrillic е for e, superscript powers (e⁻², 2²),
# vulgar fractions (½), braces for brackets ({{1, 0}, {0, 1}})
_NOTATION = str.maketrans({"−": "-", "–": "-", "÷": "/", "⁄": "/", "е": "e", "½": "(1/2)", "⅓": "(1/3)",
                           "⅔": "(2/3)", "¼": "(1/4)", "¾": "(3/4)", "{": "[", "}": "]"})
_SUPERSCRIPT = re.compile("[⁻⁺⁰¹²³⁴⁵⁶⁷⁸⁹]+")
_SUPERSCRIPT_DIGITS = str.maketrans("⁻⁺⁰¹²³⁴⁵⁶⁷⁸⁹", "-+0123456789")
_WORDS = re.compile(r"sqrt|exp|pi")  # the words an expression may hold; e, √ and π are single characters
_ALLOWED_TEXT = re.compile(r"[\s\d.,;eE+\-\[\]()%/*×·^√π]*")
_NAMES_BEFORE = re.compile(r"^([^=]*[^\W\d][^=]*)=(.*)$", re.S)  # one "=" with a name (Ā, S̄, d_v) on its left
_NAME_AT = re.compile(r"(?:(?<=^)|(?<=[\s,;\[(]))[^\s,;=\[\]()]*[^\W\d][^\s,;=\[\]()]*\s*=\s*")
MAX_EXPRESSION_DEPTH = 20  # parentheses, roots and powers within one number
MAX_EXPRESSION_TOKENS = 200  # look-aheads while reading one number: about twice its symbols
_LONE_DECIMAL = re.compile(r"[-+]?\d+,\d+%?")
# a semicolon, or numbers apart by spaces (after an expression's ")", e or π: by spaces alone)
_SET_APART = re.compile(r";|(?<=[\d.%]),?[ \t]+(?=[-+\d.])|(?<=[)eπ])[ \t]+(?=[-+\d.])")
# not beside a number that has its decimal point, nor right after an operator ("1/2,1/3": the comma separates)
_DECIMAL_COMMA = re.compile(r"(?<![\d./×·*^√])(\d+),(\d+)(?![\d.])")
# an expression's decimal comma: before an operator ("0,5/2"), or under a root ("√0,5"; not "√64,1/8")
_ROOT_COMMA = re.compile(r"(?<=√)(\d+),(\d+)(?![\d./×·*^])")
_OPERAND_COMMA = re.compile(r"(?<![\d./×·*^√])(\d+),(\d+)(?=\s*[/×·*^])|" + _ROOT_COMMA.pattern)
_SPACES_TO_PLAIN = str.maketrans({"\u00a0": " ", "\u2009": " ", "\u202f": " ", "\u2007": " "})
_AMBIGUOUS_COMMA = re.compile(r",0\d")  # "0,01,0,99": is ",01" a separator and 1, or a decimal part?
_JOINED = re.compile(r"\s*(\*\*|[*/×·^])\s*|\s+([-+])\s+")  # spaces around a product's or a sum's sign
_ITEMS = re.compile(r"[^\s,]+")  # what stands apart in a row: a number or an expression


def _count(part: str) -> int:
    """How many numbers ``part`` holds, an expression ("1 / 2", "e^2/(1 + e^2)") counting as one."""
    joined = _JOINED.sub(lambda m: m[1] or m[2], part)
    depth, outside = 0, []
    for char in joined:  # what parentheses hold belongs to one expression
        depth += char == "("
        outside.append(char if depth == 0 else "x")
        depth -= char == ")" and depth > 0
    return len(_ITEMS.findall("".join(outside)))
# a bracket's rows (an expression's parentheses may stand inside them), or a parenthesis's; possessive: linear
_INNERMOST = re.compile(r"(\[)((?:[^\[\]()]|\([^()\[\],;]*\))*+)(\])|(\()([^\[\]()]*+)(\))")
_TOKEN = re.compile(rf"\s*(?:(?P<number>{NUMBER})(?P<percent>%)?|(?P<open>[\[(])|(?P<close>[\])])"
                    r"|(?P<separator>[,;]))\s*")


class AnswerFormatError(ValueError):
    """The answer could not be read as the expected form; the message says why. ``pending``: no answer was given
    yet (the ... a notebook leaves for it), so the message is a prompt, not a verdict."""

    def __init__(self, message: str, pending: bool = False) -> None:
        super().__init__(message)
        self.pending = pending


def _refuse(key: str, form: str, pending: bool = False, **fields: object) -> AnswerFormatError:
    return AnswerFormatError(book_text(key, form=form, **fields), pending)


NEAR_WHOLE = 24  # an answer this short is quoted whole where it cannot be read; a longer one around the spot


def _unread(form: str, text: str, at: int, why: str) -> AnswerFormatError:
    """A refusal that quotes where the reading stopped (``at`` in ``text``) and says why (catalogue key ``why``)."""
    start, end = max(at - 8, 0), at + 12
    near = (text.strip() if len(text.strip()) <= NEAR_WHOLE else
            "…" * (start > 0) + text[start:end].strip() + "…" * (end < len(text)))
    return _refuse("answer.malformed", form, near=near, why=book_text(why))


def _number_token(token: str, percent: bool, form: str) -> float:
    value = float(token)  # a decimal string too large for float64 becomes inf
    if value in (float("inf"), float("-inf")):
        raise _refuse("answer.beyond_float64", form)
    return value / 100 if percent else value


def _rows(part: str) -> str | None:
    """``part`` as bracketed rows when ";" separates parts of two numbers or more each, else None."""
    parts = part.split(";")
    if len(parts) > 1 and all(_count(p) >= 2 for p in parts):
        return " ".join(f"[{p.strip()}]" for p in parts)
    return None


_LIST_PARENTHESES = re.compile(r"\([^(),;]*+[,;][^()]*+\)")  # (0, 6): a list, not a number's (1 + e)


def _as_rows(cleaned: str) -> str:
    """Rows written with ";" or one per line, as bracketed rows the parser reads as a matrix; parentheses that
    only hold an expression ("1/(1 + e)", "sqrt(2)") do not make them a list."""
    if "[" not in cleaned and not _LIST_PARENTHESES.search(cleaned):
        lines = [line for line in cleaned.splitlines() if line.strip()]
        if len(lines) > 1 and any(_count(line) >= 2 for line in lines):
            return "[" + " ".join(f"[{line.strip().strip(';,')}]" for line in lines) + "]"
        rows = _rows(cleaned)
        return f"[{rows}]" if rows else cleaned

    def innermost(match: re.Match) -> str:
        opening, inside, closing = match.group(1, 2, 3) if match[1] else match.group(4, 5, 6)
        rows = _rows(inside) if ";" in inside else None
        return f"{opening}{rows}{closing}" if rows else match[0]

    return _INNERMOST.sub(innermost, cleaned)


def _past_names(typed: str) -> str:
    """The answer without the names written in front of it: "[B, T, d_v] = [4, 7, 5]", "B=4, T=7, d_v=5"."""
    one = _NAMES_BEFORE.match(typed) if typed.count("=") == 1 else None
    return one[2].strip() if one else _NAME_AT.sub(" ", typed)  # "B=4,T=7": the comma stays a separator


def _cleaned(answer: str, form: str, shape: bool = False) -> str:
    """The typed text with its notations made plain: signs, names in front, shapes, decimal commas, rows."""
    if len(answer) > MAX_TEXT:
        raise _refuse("answer.too_long", form, limit=MAX_TEXT)
    cleaned = str.strip(answer).translate(_SPACES_TO_PLAIN).translate(_NOTATION)
    cleaned = _SPACED_PERCENT.sub("%", cleaned)  # "1,4 %": the space Russian typography puts before a percent sign
    cleaned = _SUPERSCRIPT.sub(lambda m: f"^({m[0].translate(_SUPERSCRIPT_DIGITS)})", cleaned)
    if not cleaned:
        raise _refuse("answer.blank", form)
    if "=" in cleaned:
        cleaned = _past_names(cleaned)
    if shape:  # axes are whole numbers: × and a comma only separate them
        cleaned = _SHAPE_TIMES.sub(" ", cleaned).replace(",", " ")
    symbols = _WORDS.sub("", cleaned)
    if not _ALLOWED_TEXT.fullmatch(symbols):
        found = "".join(dict.fromkeys(c for c in symbols if not _ALLOWED_TEXT.fullmatch(c)))[:12]
        raise _refuse("answer.words", form, found=found)
    # a line is a row, if there are several. Where any number has a decimal point, or where nothing sets numbers
    # apart but commas and a comma beside an operator stands beside other commas ("1/2,1/2 … 4/√64,1/2"), every
    # comma separates.
    operands = len(_OPERAND_COMMA.findall(cleaned))
    separating = "." in cleaned or (operands and cleaned.count(",") > operands and not _SET_APART.search(cleaned))
    lines = cleaned.splitlines() if separating else [_decimal_commas(line, form) for line in cleaned.splitlines()]
    return _as_rows("\n".join(lines))


def _decimal_commas(line: str, form: str) -> str:
    """Commas as decimal commas where they cannot separate numbers; refused where both readings are possible."""
    if _LONE_DECIMAL.fullmatch(line.strip()) or _SET_APART.search(line):
        return _DECIMAL_COMMA.sub(r"\1.\2", _ROOT_COMMA.sub(r"\1.\2", line))
    line = _OPERAND_COMMA.sub(lambda m: f"{m[1] or m[3]}.{m[2] or m[4]}", line)
    if _AMBIGUOUS_COMMA.search(line):
        raise _refuse("answer.ambiguous_comma", form, typed=line[:40], readings=_two_readings(line))
    return line


def _two_readings(cleaned: str) -> str:
    """How a list like "[0,01,0,99]" reads with its commas as separators, and as decimal commas."""
    parts = cleaned.strip("[]() ").split(",")
    if len(parts) % 2 or not all(p.strip().lstrip("-+").isdigit() for p in parts):
        return f"«{cleaned[:40]}»"
    as_separators = ", ".join(f"{int(p)}" for p in parts)
    as_decimals = ", ".join(f"{a.strip()}.{b.strip()}" for a, b in zip(parts[::2], parts[1::2]))
    return f"[{as_separators}] / [{as_decimals}]"


def _quotient(a: float, b: float) -> float:
    """a / b, and a number divided by 0 is infinite (0/0 is nan): refused later as not finite."""
    if b:
        return a / b
    return math.copysign(math.inf, a) if a else math.nan


class _NotAnExpression(Exception):
    """What stands here is no expression (a list's parenthesis, say): the caller reads it otherwise."""


_EXPRESSION_TOKEN = re.compile(r"(?P<number>(?:\d+\.?\d*|\.\d+)(?:[eE]-?\d+)?)(?P<percent>%)?"
                               r"|(?P<name>sqrt|exp|pi|√|π|e)|(?P<op>\*\*|[*×·/^+\-])|(?P<open>\()|(?P<close>\))")
_PRODUCT = {"*", "×", "·", "/"}
_PERCENTAGE = re.compile(NUMBER + "%")
_SPACED_PERCENT = re.compile(r"(?<=[\d.])[ \t]+%")
_SPACES = re.compile(r"\s*")
_CLOSE_OR_END = re.compile(r"\s*(?:[\])]|$)")
_IMPLICIT = ("√", "sqrt", "exp", "π", "pi", "e")  # 2√2, 2e: a number right before these multiplies them


class _Expression:
    """One number written as an expression, read from ``text`` at a position by a small grammar (never
    evaluated as code). Outside parentheses only products, quotients and powers join numbers, with spaces
    around their signs; inside them, sums and differences too, and spaces anywhere."""

    def __init__(self, text: str, form: str) -> None:
        self.text, self.form = text, form

    def read(self, position: int) -> tuple[float, int]:
        """The value of the expression that starts at ``position``, and where it ends. What follows it with
        nothing between must start something else: a space, a separator, a bracket or a sign ("e2" and
        "2(1 + e)" are refused, never read as two numbers); a percentage stands alone ("1/2%" is refused)."""
        self.tokens, self.percent = 0, False
        try:
            value, end = self._spaced_sum(position)
        except OverflowError:
            raise _refuse("answer.beyond_float64", self.form) from None
        if end < len(self.text) and not (self.text[end].isspace() or self.text[end] in ",;])-+"):
            raise _unread(self.form, self.text, end, "answer.why.joined")
        if self.percent and not _PERCENTAGE.fullmatch(self.text, position, end):
            raise _unread(self.form, self.text, position, "answer.why.percent")
        return value, end

    def _token(self, position: int, spaces: bool) -> tuple[str | None, re.Match | None, int]:
        self.tokens += 1
        if self.tokens > MAX_EXPRESSION_TOKENS:  # no learner writes one number this long: stop before it costs
            raise _refuse("answer.long_expression", self.form, limit=MAX_EXPRESSION_TOKENS // 2)
        start = position
        if spaces:
            while start < len(self.text) and self.text[start].isspace():
                start += 1
        match = _EXPRESSION_TOKEN.match(self.text, start)
        return (match.lastgroup if match.lastgroup != "percent" else "number") if match else None, match, start

    def _term(self, position: int, depth: int) -> tuple[float, int]:
        value, end = self._signed(position, depth)
        while True:
            kind, match, start = self._token(end, spaces=True)
            if kind != "op" or match[0] not in _PRODUCT:
                return value, end
            right, end = self._signed(self.skip(match.end()), depth)
            value = _quotient(value, right) if match[0] == "/" else value * right

    def _spaced_sum(self, position: int) -> tuple[float, int]:
        """Outside parentheses: terms joined by + or − with a space on both sides ("1 - 1/2") or on neither
        ("1-0.014"); "0.5 -0.5", a space before the sign only, is two numbers."""
        value, end = self._term(position, depth=0)
        while True:
            kind, match, start = self._token(end, spaces=True)
            if not (kind == "op" and match[0] in "+-" and match.end() < len(self.text)):
                return value, end
            spaced_after = self.text[match.end()].isspace()
            if (start > end) != spaced_after:  # a space on one side only: the sign of the next number
                return value, end
            right, end = self._term(self.skip(match.end()), depth=0)
            value = value + right if match[0] == "+" else value - right

    def _sum(self, position: int, depth: int) -> tuple[float, int]:
        value, end = self._term(self.skip(position), depth)
        while True:
            kind, match, start = self._token(end, spaces=True)
            if kind != "op" or match[0] not in "+-":
                return value, end
            right, end = self._term(self.skip(match.end()), depth)
            value = value + right if match[0] == "+" else value - right

    def _signed(self, position: int, depth: int) -> tuple[float, int]:
        self._bounded(depth)
        kind, match, _ = self._token(position, spaces=False)
        if kind == "op" and match[0] in "+-":
            value, end = self._signed(match.end(), depth + 1)
            return (-value if match[0] == "-" else value), end
        base, end = self._atom(position, depth)
        kind, match, start = self._token(end, spaces=True)
        if kind == "op" and match[0] in ("^", "**"):
            power, end = self._signed(self.skip(match.end()), depth + 1)
            try:
                return math.pow(base, power), end
            except ValueError:  # a negative number to a fractional power
                return math.nan, end
        return base, end

    def _atom(self, position: int, depth: int) -> tuple[float, int]:
        self._bounded(depth)
        kind, match, _ = self._token(position, spaces=False)
        if kind == "number":
            value = _number_token(match["number"], bool(match["percent"]), self.form)
            self.percent = self.percent or bool(match["percent"])
            follows = self._token(match.end(), spaces=False)
            if follows[0] == "name" and follows[1][0] in _IMPLICIT:
                factor, end = self._atom(match.end(), depth + 1)
                return value * factor, end
            return value, match.end()
        if kind == "name":
            name = match[0]
            if name in ("e", "π", "pi"):
                return (math.e if name == "e" else math.pi), match.end()
            if name == "√":
                value, end = self._atom(self.skip(match.end()), depth + 1)
                return (math.sqrt(value) if value >= 0 else math.nan), end
            opened = self._token(match.end(), spaces=True)
            if opened[0] != "open":
                raise _unread(self.form, self.text, match.start(), "answer.why.parentheses")  # sqrt 2
            value, end = self._closed(opened[1].end(), depth + 1)
            if name == "exp":
                return math.exp(value), end
            return (math.sqrt(value) if value >= 0 else math.nan), end
        if kind == "open":
            return self._closed(match.end(), depth + 1)
        raise _NotAnExpression

    def _closed(self, position: int, depth: int) -> tuple[float, int]:
        """A sum up to its closing parenthesis; anything else inside (a comma: a list) is no expression."""
        value, end = self._sum(position, depth)
        kind, match, _ = self._token(end, spaces=True)
        if kind != "close":
            raise _NotAnExpression
        return value, match.end()

    def _bounded(self, depth: int) -> None:
        if depth > MAX_EXPRESSION_DEPTH:
            raise _refuse("answer.too_deep", self.form, limit=MAX_EXPRESSION_DEPTH)

    def skip(self, position: int) -> int:
        while position < len(self.text) and self.text[position].isspace():
            position += 1
        return position


def _why_no_number(text: str, at: int) -> str:
    """Why no number could be read at ``at``: a sign with a space after it and none before (in "1- 0.5": a
    difference or two numbers?), a sign with nothing after it, or whatever else stands there."""
    if text[at:at + 1] in ("+", "-"):
        if not text[at + 1:].strip():
            return "answer.why.dangling_sign"
        if text[at + 1:at + 2].isspace():
            return "answer.why.lone_sign"
    return "answer.why.unread"


def _from_text(answer: str, form: str, shape: bool = False) -> list:
    """The numbers of a typed answer (a plain str) as nested lists (the outer list holds what was typed)."""
    cleaned = _cleaned(answer, form, shape)
    expression = _Expression(cleaned, form)
    stack: list[list] = [[]]
    previous, position, count = "open", 0, 0
    while position < len(cleaned):
        match = _TOKEN.match(cleaned, position)
        kind = match.lastgroup if match else None
        start = expression.skip(position)
        if kind in ("number", "percent", "open", None) and start < len(cleaned):
            try:
                value, end = expression.read(start)
                kind = "number"
            except _NotAnExpression:
                value = None
        if kind == "separator" and previous != "open" and _CLOSE_OR_END.match(cleaned, match.end()):
            previous, position = "trailing", match.end()  # a comma after the last number, row or matrix
            continue
        if kind is None:
            raise _unread(form, cleaned, start, _why_no_number(cleaned, start))
        if kind == "separator" and previous in ("open", "separator"):
            raise _unread(form, cleaned, start, "answer.why.empty")
        if kind == "close" and (previous == "separator" or len(stack) == 1):
            raise _unread(form, cleaned, start, "answer.why.extra_close")
        if kind == "open":
            if len(stack) > MAX_DEPTH:
                raise _refuse("answer.too_deep", form, limit=MAX_DEPTH)
            stack[-1].append([])
            stack.append(stack[-1][-1])
        elif kind == "close":
            stack.pop()
        elif kind == "number":
            count += 1
            if count > MAX_NUMBERS:
                raise _refuse("answer.too_many", form, limit=MAX_NUMBERS)
            stack[-1].append(value)
            match = _SPACES.match(cleaned, end)
        previous, position = kind, match.end()
    if len(stack) > 1:
        raise _unread(form, cleaned, len(cleaned), "answer.why.unclosed")
    typed = stack[0]
    return typed[0] if len(typed) == 1 and isinstance(typed[0], list) else typed


def _from_value(answer: object, form: str) -> object:
    """A Python value as nested lists of floats, walked within the bounds."""
    count = 0

    def walk(value: object, depth: int) -> object:
        nonlocal count
        if isinstance(value, np.ndarray):
            if value.ndim + depth > MAX_DEPTH:
                raise _refuse("answer.too_deep", form, limit=MAX_DEPTH)
            if value.size + count > MAX_NUMBERS:
                raise _refuse("answer.too_many", form, limit=MAX_NUMBERS)
            if value.dtype.kind not in "iufO":
                raise _refuse("answer.not_numbers", form)
            value = value.tolist()
        if isinstance(value, (list, tuple)):
            if depth == MAX_DEPTH:
                raise _refuse("answer.too_deep", form, limit=MAX_DEPTH)
            count += len(value)
            if count > MAX_NUMBERS:
                raise _refuse("answer.too_many", form, limit=MAX_NUMBERS)
            return [walk(item, depth + 1) for item in value]
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
            raise _refuse("answer.not_numbers", form)
        try:
            return float(value)
        except OverflowError:
            raise _refuse("answer.beyond_float64", form) from None

    return walk(answer, 0)


def _flat(value: object) -> list[object]:
    if isinstance(value, list):
        return [item for part in value for item in _flat(part)]
    return [value]


def read_numbers(answer: object, form: str, flatten: bool = False, shape: bool = False) -> np.ndarray:
    """The answer as a float array, or AnswerFormatError naming the expected ``form``.

    With ``flatten`` nested parts of different lengths, such as [1, [5, -2]], are read in order; with ``shape``
    a × between whole numbers separates axes (4×7×5) rather than multiplying them.
    """
    if answer is None or answer is Ellipsis:
        raise _refuse("answer.missing", form, pending=True)
    if issubclass(type(answer), Tensor):  # a cell's result (type(): an answer may lie in __class__)
        answer = answer.data
    if type(answer) is np.ndarray and answer.ndim == 3 and answer.shape[0] == 1:  # the engine's batch of one: V.grad
        answer = answer[0]
    try:
        nested = _from_text(str.__str__(answer), form, shape) if isinstance(answer, str) else _from_value(answer, form)
        array = np.array(_flat(nested) if flatten else nested, dtype=np.float64)
    except AnswerFormatError:
        raise
    except Exception:  # ragged lists, or a value whose own methods fail: not numbers either way
        raise _refuse("answer.not_numbers", form) from None
    if array.size == 0:
        raise _refuse("answer.blank", form)
    if not np.isfinite(array).all():
        raise _refuse("answer.non_finite", form)
    if np.abs(array).max() > LARGEST_PLAUSIBLE:
        raise _refuse("answer.too_large", form)
    if isinstance(answer, str):
        array = array.view(Typed)
        array.decimals = _decimals(str.__str__(answer))
    return array


class Typed(np.ndarray):
    """The numbers of a typed answer, knowing how precisely they were typed: ``decimals`` is the most digits any
    of them has after its decimal point (two more for a percentage), so "0.020" tells 0.0198 from 0.0164."""

    decimals: int | None = None

    def __array_finalize__(self, obj: object) -> None:  # a view of the answer (a row of it) was typed alike
        self.decimals = getattr(obj, "decimals", None)


_TYPED_DECIMALS = re.compile(r"\d[.,](\d+)(\s*%)?")


def _decimals(typed: str) -> int:
    return max((len(digits) + (2 if percent else 0) for digits, percent in _TYPED_DECIMALS.findall(typed)), default=0)


def read_shape(answer: object, form: str) -> np.ndarray:
    """A shape's axes: read_numbers, with "4×7×5" three axes."""
    return read_numbers(answer, form, shape=True)


def read_choice(answer: object, options: tuple[str, ...]) -> str:
    """One option letter (Latin a-d, or Cyrillic а-г and the look-alike с, any case), alone or as learners mark it:
    "c)", "c.", "(c)", "[c]", "C"; or AnswerFormatError."""
    letters = ", ".join(options)
    if answer is None or answer is Ellipsis:
        raise AnswerFormatError(book_text("answer.choice_missing", letters=letters), pending=True)
    try:
        typed = str.__str__(answer) if isinstance(answer, str) else None
    except Exception:  # a value whose own methods fail is not a letter either
        typed = None
    if typed is None or len(typed) > 20:
        raise AnswerFormatError(book_text("answer.choice_form", letters=letters))
    letter = typed.strip().lower().strip("()[]. ").translate(str.maketrans("абвгс", "abcdc"))
    if not letter:
        raise AnswerFormatError(book_text("answer.choice_missing", letters=letters))
    if letter not in options:
        raise AnswerFormatError(book_text("answer.choice_form", letters=letters))
    return letter
