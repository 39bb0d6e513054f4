"""Number and shape formatting shared by the report, the trace, tables and exercises."""

from __future__ import annotations

import numpy as np

from .tolerances import FLOAT_NOISE

DECIMALS = 6
EXPONENT_FROM = 1e9  # from here on a number prints in exponent form, so it never runs to hundreds of digits


def num(x: float, decimals: int = DECIMALS) -> str:
    """Fixed decimals (exponent form from 1e9 on); a value that rounds to zero prints without a minus sign; an infinity
    as ∞ or −∞ (a masked score), not a number as NaN."""
    if not np.isfinite(float(x)):
        return "NaN" if np.isnan(float(x)) else ("∞" if float(x) > 0 else "−∞")
    if abs(float(x)) >= EXPONENT_FROM:
        return f"{float(x):.{decimals}e}"
    text = f"{float(x):.{decimals}f}"
    return text[1:] if text.startswith("-") and float(text) == 0.0 else text


NO_NUMBER = "—"  # a table's cell where no number exists (NaN): its note says why


def cell(x: float, decimals: int = DECIMALS) -> str:
    """A table's or a heatmap's cell: ``num``, or — where no number exists."""
    return NO_NUMBER if np.isnan(float(x)) else num(x, decimals)


def trimmed(x: float, decimals: int = 2) -> str:
    """At most ``decimals`` decimals, as a person writes a number: 3, 4.5, 2.92."""
    text = num(x, decimals)
    return text.rstrip("0").rstrip(".") if "." in text and "e" not in text else text


def places(values, decimals: int = DECIMALS) -> int:
    """How many decimals every entry of a vector or matrix prints with: none when all are whole (up to float64
    rounding, and small enough to write out), else ``decimals`` for all, so 1 never stands beside 0.985834."""
    values = np.asarray(values, dtype=np.float64)
    values = values[np.isfinite(values)]  # −∞ (a masked score) and NaN print as words, not by decimals
    whole = np.all((np.abs(values) < EXPONENT_FROM) & (np.abs(values - np.round(values)) < FLOAT_NOISE))
    return 0 if whole else decimals


def _row(values, decimals: int) -> str:
    return "[" + ",".join(num(x, decimals) for x in np.ravel(values)) + "]"


def vector(values, decimals: int = DECIMALS) -> str:
    """[a,b,...] with the decimals ``places`` gives: [3,-3], [0.014166,0.985834]."""
    return _row(values, places(values, decimals))


SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def powers_of_two(exponents) -> list[str]:
    """2 to each of ``exponents`` as a person writes them, all alike: the numbers themselves while each is short
    (0.125, 1, 4096), else every one as a power with a raised exponent (2⁻¹⁰, 2⁰, 2²⁰)."""
    written = [f"{2.0 ** int(k):.10f}".rstrip("0").rstrip(".") for k in exponents]
    if all(len(w) <= 6 for w in written):
        return written
    return ["2" + str(int(k)).translate(SUPERSCRIPT) for k in exponents]


def below(x: float, bound: float) -> str:
    """Rounding noise shown as a bound ("< 1e-12"), so stored outputs do not depend on the last bits
    of a platform's arithmetic; a value at or above the bound is printed as it is."""
    return f"< {bound:.0e}" if abs(x) < bound else f"{x:.1e}"


def matrix(rows, decimals: int = DECIMALS) -> str:
    """[[a,b], [c,d]]: a matrix row by row, every entry with the same decimals (``places``)."""
    decimals = places(rows, decimals)
    return "[" + ", ".join(_row(row, decimals) for row in np.asarray(rows)) + "]"


def shape(dims) -> str:
    return "[" + ",".join(str(int(n)) for n in dims) + "]"


def table(rows, row_labels, column_labels, decimals: int = DECIMALS) -> str:
    """A plain-text table with right-aligned numbers, all with the same decimals (``places``): the text
    alternative of a heatmap."""
    decimals = places(rows, decimals)
    cells = [[cell(x, decimals) for x in row] for row in np.asarray(rows)]
    width = max([len(c) for r in cells for c in r] + [len(c) for c in column_labels])
    label_width = max(len(r) for r in row_labels)
    lines = [" " * label_width + "  " + "  ".join(c.rjust(width) for c in column_labels)]
    for label, row in zip(row_labels, cells):
        lines.append(label.ljust(label_width) + "  " + "  ".join(c.rjust(width) for c in row))
    return "\n".join(lines)


def labels(prefix: str, count: int) -> tuple[str, ...]:
    """Row names such as q_0, q_1, …: one per row."""
    return tuple(f"{prefix}_{i}" for i in range(count))
