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


# --- the check pipeline's rooms ---------------------------------------------------------------------------------

BOOK = f"{PACKAGE}.book"


def test_the_store_is_a_leaf_that_imports_only_the_clock_and_the_kernels_state():
    """progress/ reads and writes; the summary, its picture and the teacher's export read a snapshot of it and live
    apart (its __main__ is only the export's command line)."""
    assert graph()[f"{BOOK}.progress"] == {f"{BOOK}.clock", f"{BOOK}.state"}
    assert sorted(p.name for p in (SRC / PACKAGE / "book" / "progress").glob("*.py")) == ["__init__.py", "__main__.py"]


def test_the_steps_of_a_check_call_each_other_in_one_direction():
    """declare → draw → judge → record → present: no step imports a later one, and none imports the front
    (exercises), the notebooks' functions (lab) or a widget."""
    order = ["declare", "draw", "judge", "record", "present"]
    edges = graph()
    for i, step in enumerate(order):
        later = {f"{BOOK}.{name}" for name in order[i + 1:]} | {f"{BOOK}.{name}" for name in
                                                                ("exercises", "lab", "widgets")}
        assert not edges[f"{BOOK}.{step}"] & later, (step, edges[f"{BOOK}.{step}"] & later)


def _module_functions() -> list[tuple[pathlib.Path, ast.FunctionDef]]:
    return [(path, node) for path in sorted((SRC / PACKAGE).rglob("*.py"))
            for node in ast.parse(path.read_text(encoding="utf-8")).body if isinstance(node, ast.FunctionDef)]


def test_no_module_level_function_takes_the_whole_book():
    takers = [f"{path.name}:{node.name}" for path, node in _module_functions()
              for argument in node.args.args + node.args.kwonlyargs
              if argument.arg == "book" or "ExerciseBook" in ast.unparse(argument.annotation or ast.Constant(""))]
    assert not takers, takers


def test_one_check_and_one_check_code_the_notebooks_and_the_tests_share():
    from llm_from_scratch.ch27 import exercises, notebook

    defined = [f"{path.name}:{node.name}" for path, node in _module_functions() if node.name in ("check", "check_code")]
    assert not defined, f"check and check_code are the Lab's, bound once in the chapter's exercises: {defined}"
    assert notebook.check is exercises.check and notebook.check_code is exercises.check_code


def test_the_chapter_defines_no_review_policy():
    """What is due, what stands in and what is practised is the book's (book/review.py): the chapter only names
    the notebook whose practice review is."""
    edges = graph()
    assert not any(f"{BOOK}.review" in imports for name, imports in edges.items() if name.startswith(f"{PACKAGE}.ch27"))
    words = ("stand_in", "practice_for", "next_variant")
    found = [f"{path.name}:{node.name}" for path, node in _module_functions()
             if "ch27" in path.parts and any(word in ast.unparse(node) for word in words)]
    assert not found, found


def test_exercise_declarations_name_every_function_they_hold():
    """An exercise's expected answer, judge, facts and inputs are functions at module level (or a factory's named
    ones), so go-to-definition reaches each: no lambda stands in a chapter's exercise modules."""
    found = [f"{path.name}:{node.lineno}" for path in sorted((SRC / PACKAGE).glob("ch*/exercises/*.py"))
             for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
             if isinstance(node, ast.Lambda) and path.name != "__init__.py"]
    assert not found, found


def test_no_attribute_is_looked_up_by_a_computed_name_in_the_book_or_the_chapter():
    """getattr only with a written-out name (a default for what may lack it): an example, a field or a stage is
    reached by a name a reader can follow."""
    found = [f"{path.name}:{node.lineno}" for path in sorted((SRC / PACKAGE).rglob("*.py"))
             if {"book", "ch27"} & set(path.parts)
             for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
             if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr"
             and not (len(node.args) > 1 and isinstance(node.args[1], ast.Constant))]
    assert not found, found
