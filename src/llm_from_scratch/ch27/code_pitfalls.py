"""What a learner's line of code does that its numbers alone cannot say, read from its syntax and the arrays its names
held: ``x ** 1/2`` (a power of 1, then a division), ``.T`` on an array of three axes, ``np.dot`` on one, the queries
transposed times the keys (QᵀK). ``ch27.code_lines`` asks it of the line where the numbers part, of a line that set a
number that line read, and of the line that raised; each pitfall is a catalogue key and its fields.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

import numpy as np


def pitfalls(line: str, held: Callable[[str], np.ndarray | None],
             value_of: Callable[[str], str | None]) -> tuple[tuple[str, dict[str, object]], ...]:
    """The pitfalls of one line: ``held(name)`` is the array a name held when it ran, ``value_of(name)`` the head's
    value it was (``ch27.code_lines.AFTER``'s name), if any."""
    try:
        tree = ast.parse(line)
    except SyntaxError:
        return ()

    def array(node) -> np.ndarray | None:
        return held(node.id) if isinstance(node, ast.Name) else None

    found: list[tuple[str, dict[str, object]]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow) and isinstance(node.right, ast.Constant) \
                and node.right.value == 1:
            found.append(("code.found.power", {"base": ast.unparse(node.left)}))
        elif isinstance(node, ast.Attribute) and node.attr == "T" and (x := array(node.value)) is not None \
                and x.ndim >= 3:
            found.append(("code.found.dot-t", {"name": node.value.id, "axes": x.ndim}))
        elif isinstance(node, ast.Call) and ast.unparse(node.func) in ("np.dot", "numpy.dot") \
                and any((x := array(a)) is not None and x.ndim >= 3 for a in node.args):
            found.append(("code.found.dot", {}))
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult) \
                and _named(_turned(node.left), value_of) == "query" and _named(node.right, value_of) == "key":
            found.append(("code.found.queries-turned", {"text": ast.unparse(node)}))
    return tuple(found)


def _turned(node: ast.AST) -> ast.AST | None:
    """What ``x.T``, ``x.transpose(…)``, ``x.swapaxes(…)``, ``np.swapaxes(x, …)`` or ``np.transpose(x, …)`` turns."""
    if isinstance(node, ast.Attribute) and node.attr == "T":
        return node.value
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("transpose",
                                                                                               "swapaxes"):
        if isinstance(node.func.value, ast.Name) and node.func.value.id in ("np", "numpy"):
            return node.args[0] if node.args else None
        return node.func.value
    return None


def _named(node: ast.AST | None, value_of: Callable[[str], str | None]) -> str | None:
    """The head's value a name of the line (or a batch element of one, ``q[b]``) holds, if any."""
    if isinstance(node, ast.Subscript):
        node = node.value
    return value_of(node.id) if isinstance(node, ast.Name) else None
