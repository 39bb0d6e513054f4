"""The package's imports form no cycle: every import of src/ is read, those inside functions and under ``if`` too."""

import ast
import pathlib

import pytest

SRC = pathlib.Path(__file__).resolve().parents[1] / "src"
PACKAGE = "llm_from_scratch"


def module_name(path: pathlib.Path) -> str:
    parts = path.relative_to(SRC).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, pathlib.Path]:
    return {module_name(path): path for path in sorted((SRC / PACKAGE).rglob("*.py"))}


def imported(name: str, path: pathlib.Path, known: set[str]) -> set[str]:
    """The package's modules that the module ``name`` (at ``path``) imports, anywhere in its code: for
    ``from .a import b`` the module a, or a.b alone when b is a module."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
            origin = ".".join([*base, *([node.module] if node.module else [])])
            submodules = [f"{origin}.{alias.name}" for alias in node.names if f"{origin}.{alias.name}" in known]
            targets = submodules if len(submodules) == len(node.names) else [origin, *submodules]
        else:
            continue
        found |= {target for target in targets if target in known}
    return found - {name}


def graph() -> dict[str, set[str]]:
    found = modules()
    return {name: imported(name, path, set(found)) for name, path in found.items()}


def cycle(edges: dict[str, set[str]]) -> list[str]:
    """One import cycle as a path that ends where it starts, or [] when there is none (depth-first search)."""
    state: dict[str, str] = {}
    path: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = "open"
        path.append(node)
        for target in sorted(edges[node]):
            if state.get(target) == "open":
                return path[path.index(target):] + [target]
            if target not in state:
                found = visit(target)
                if found:
                    return found
        state[node] = "done"
        path.pop()
        return []

    for node in sorted(edges):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return []


def test_the_package_has_no_import_cycle():
    edges = graph()
    assert len(edges) > 40 and edges[f"{PACKAGE}.book.export"] >= {f"{PACKAGE}.book.progress",
                                                                   f"{PACKAGE}.book.mastery"}
    found = cycle(edges)
    assert not found, "an import cycle: " + " → ".join(found)


@pytest.mark.parametrize("source, expected", [
    ("def late():\n    from .b import thing\n", {"p.b"}),  # inside a function
    ("if __name__ == '__main__':\n    from . import b\n", {"p.b"}),  # under an if
    ("import p.b as other\n", {"p.b"}),
    ("from ..q import c\n", {"q.c"}),
    ("from ..q import c, d\n", {"q", "q.c"}),  # d is a name in q
])
def test_the_walk_finds_imports_wherever_they_stand(tmp_path, source, expected):
    path = tmp_path / "a.py"
    path.write_text(source)
    assert imported("p.a", path, {"p", "p.a", "p.b", "q", "q.c"}) == expected


def test_a_cycle_is_found_and_named():
    assert cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert cycle({"a": {"b"}, "b": set()}) == []
