"""Where each concern lives: the reading engine plain, speed beside it, tooling out of the wheel, each
string's key written where it is used, one softmax."""

import ast
import pathlib
import re
import shutil
import subprocess
import sys
import zipfile

import pytest

from llm_from_scratch.book.text import BOOK_STRINGS
from llm_from_scratch.ch27 import code_lines
from llm_from_scratch.ch27.code_slips import BACKWARD_SEARCH, HEAD_SEARCH
from llm_from_scratch.ch27.exercises import EXERCISE_BOOK
from llm_from_scratch.ch27.strings import STRINGS

ROOT = pathlib.Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "llm_from_scratch"
ENGINE = sorted((PACKAGE / "engine").glob("*.py"))
SCREEN = 45  # lines: a function longer than this is not read on one screen
SPEED = {"threading", "concurrent", "multiprocessing", "threadpoolctl", "llm_from_scratch.fast"}
TOOLING = {"playwright", "axe_playwright_python", "pytest", "nbval", "nbclient", "nbformat"}


def tree(path: pathlib.Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


def imported(module: ast.Module, package: str) -> set[str]:
    """Every module a file imports, relative imports resolved against ``package``."""
    found = set()
    for node in ast.walk(module):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
            found.add(".".join([*base, *([node.module] if node.module else [])]))
    return found


@pytest.mark.parametrize("path", ENGINE, ids=lambda p: p.name)
def test_the_engine_imports_no_speed_machinery(path):
    names = imported(tree(path), "llm_from_scratch.engine")
    assert not {n for n in names for speed in SPEED if n == speed or n.startswith(speed + ".")}, names


@pytest.mark.parametrize("path", ENGINE, ids=lambda p: p.name)
def test_every_engine_function_fits_on_a_screen_and_writes_into_no_array(path):
    for node in ast.walk(tree(path)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            length = node.end_lineno - node.lineno + 1
            assert length <= SCREEN, f"{node.name} is {length} lines"
        assert not isinstance(node, ast.AugAssign), f"line {node.lineno}: an in-place update"
        if isinstance(node, ast.Call):
            assert "out" not in {k.arg for k in node.keywords}, f"line {node.lineno}: a result written into out="


def test_the_head_is_its_six_steps_written_as_the_formula():
    """The head reads as a cell does: ``query @ key.transpose(1, 2)``, ``* scale``, ``.log_softmax(2)``, ``.exp()``,
    ``@ value``, one statement per stage (so a failure names its stage), and no primitive called by its module."""
    head = next(node for node in ast.walk(tree(PACKAGE / "engine" / "attention.py"))
                if isinstance(node, ast.FunctionDef) and node.name == "scaled_dot_product_self_attention")
    assert not [n for n in ast.walk(head) if isinstance(n, ast.Lambda)]
    stages = [w for w in ast.walk(head) if isinstance(w, ast.With)]
    inside = [n for w in stages for n in ast.walk(w)]
    operators = sorted(type(n.op).__name__ for n in inside if isinstance(n, ast.BinOp))
    methods = sorted(n.func.attr for n in inside if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute))
    assert operators == ["MatMult", "MatMult", "Mult"] and methods == ["exp", "log_softmax", "transpose"]
    assert [w.items[0].context_expr.args[0].value for w in stages] == [
        "raw-scores", "scaled-scores", "row-log-softmax", "probabilities", "value-mixture"]
    assert all(len(w.body) == 1 for w in stages)


@pytest.mark.slow
def test_a_wheel_holds_the_package_and_no_tooling(tmp_path):
    project = tmp_path / "project"  # a copy, so the build leaves nothing in the checkout
    shutil.copytree(ROOT, project, ignore=shutil.ignore_patterns(".git", ".venv*", "artifacts", "build", "*.egg-info",
                                                                 "__pycache__", ".hypothesis", "chapter*"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(tmp_path), str(project)],
                   check=True, capture_output=True)
    [wheel] = tmp_path.glob("*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        modules = {name: archive.read(name).decode("utf-8") for name in names if name.endswith(".py")}
    assert "llm_from_scratch/engine/attention.py" in modules and "llm_from_scratch/fast/tiled.py" in modules
    assert not [n for n in names if n.startswith(("tools/", "tests/")) or n.endswith((".cfg", "conftest.py"))]
    for name, source in modules.items():
        package = name.removesuffix(".py").replace("/", ".").removesuffix(".__init__")
        found = imported(ast.parse(source), package.rsplit(".", 1)[0] if not name.endswith("__init__.py")
                         else package)
        assert not {n.split(".")[0] for n in found} & TOOLING, f"{name} imports {found & TOOLING}"


def _literals() -> set[str]:
    """Every string constant in the package's code, the catalogues left out."""
    found = set()
    for path in PACKAGE.rglob("*.py"):
        if "catalogues" not in path.parts:
            found |= {n.value for n in ast.walk(tree(path)) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
    return found


def _derived(key: str) -> bool:
    """A key made from a name rather than written out: a notebook's title (notebook.<stem>, from the notebooks
    its exercises name), an exercise's string (ex.<id>.<field>, from its block), a code slip's hint
    (hint.<id>, from the Slip("<id>", …) of ch27/code_slips.py) or a value's words (code-value.<name>, from the
    values ch27/code_lines.py reads a learner's lines as)."""
    stems = {n.stem for n in EXERCISE_BOOK.notebooks}
    slips = {slip.id for search in (HEAD_SEARCH, BACKWARD_SEARCH) for slip in search.slips}
    kind, _, name = key.partition(".")
    return (key.removeprefix("notebook.") in stems or key.split(".")[:2] in (["ex", i] for i in EXERCISE_BOOK.exercises)
            or (kind == "hint" and name in slips) or (kind == "code-value" and name in code_lines.AFTER))


@pytest.mark.parametrize("catalogue", [BOOK_STRINGS, STRINGS], ids=["book", "ch27"])
def test_every_catalogue_key_is_written_out_where_it_is_used_or_derived(catalogue):
    """grep finds where each string is used, or it is derived from a name grep finds: no other key is assembled
    from pieces."""
    missing = sorted(key for key in set(catalogue.strings["ru"]) - _literals() if not _derived(key))
    assert not missing, f"{len(missing)} keys never written out in the code: {missing[:20]}"


def test_no_exercise_key_is_written_out_by_hand():
    """An exercise's strings are named by its id and their field (own("wrong") in its judge): no ex.<id>.…
    literal stands in the package, and every exercise string belongs to an exercise of the book."""
    written = sorted(s for s in _literals() if re.fullmatch(r"ex\.[a-z-]+\.[\w-]+", s))
    assert not written, written
    assert all(_derived(key) for key in EXERCISE_BOOK.strings.strings["ru"] if key.startswith("ex."))


# softmax-like code that is not the package's softmax, each with its reason
NOT_THE_SOFTMAX = {
    "buggy_head": "the bug hunt's head, shown to the learner: its softmax is the bug",
    "_forward_rows": "the tiled head's online softmax: FlashAttention's algorithm, not a softmax of a whole row",
    "_weighed": "the mistake library's weighings done wrong on purpose (a sigmoid, the whole matrix normalized)",
    "_rest": "the mistake library's stages after the scores, the exponentials among them (a stage a learner gives)",
}


def test_the_package_has_one_softmax():
    """A function that exponentiates and divides by a sum is a softmax: only closed_form.array_softmax is one
    (Tensor.softmax records its steps through the primitives)."""
    found = []
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(tree(path)):
            if isinstance(node, ast.FunctionDef):
                source = ast.unparse(node)
                divides = any(isinstance(n, ast.BinOp) and isinstance(n.op, ast.Div) for n in ast.walk(node)) or (
                    "np.divide" in source)
                if "np.exp(" in source and divides:
                    found.append(node.name)
    assert sorted(found) == sorted(["array_softmax", *NOT_THE_SOFTMAX]), found


MAX_LINES = 600
CYRILLIC_LINE = re.compile("[а-яА-ЯёЁ]")
CYRILLIC_LINES = 15  # the answer reader's Russian words (answers.py) and a few docstrings that quote the page
# names the code retired, each with what took its place: none may come back (a string literal is written quoted)
RETIRED = {
    r"\bdef hand_inputs\(\)|\bworked_inputs\b": "examples.hand_arrays / worked_arrays (hand_inputs is a section)",
    r"\bclass Instance\b|\bev\.instance\b|\bself\.instance\.": "evidence.Draw, ev.draw (an instance is what slips are "
                                                               "computed on)",
    r"\binstance=\"|exercise\.instance\b": "Exercise.example",
    r"^NOTEBOOKS = \"": "chapters.NOTEBOOK_FILES (NOTEBOOKS are the records of what each notebook asks)",
    r"\"raw\"|\"exp_raw\"|\"exp_scaled\"|Asked\([^)]*\"scaled\"\)|\"scaled\": \(": "the stage names raw-scores, "
                                                                                 "scaled-scores (the engine's)",
    r"\b(Mistake|Step|Reading)\(\"|\bSTAGE_NAMES\b|\bROLE_STAGES\b|code_slips\.toml": "book.slips.Slip (one for "
        "answers and code), ch27.stages (one table of stages), catalogues/<language>/slips.toml",
    r"^text = BOOK_STRINGS": "book_text (text is the chapter's catalogue)",
    r"def softmax\(x: np\.ndarray": "closed_form.array_softmax (Tensor.softmax is the method)",
    r"def controls\(|def enter_forms\(": "benchmarks/hooks/",
    r"^(MIB|BYTE_UNITS) = (?!.*#)": "fast/cost.py declares them once",
    r"strings=\{|gives_away=\{": "the catalogues (catalogues/<language>/<notebook>.toml)",
}


def test_no_source_file_is_over_600_lines():
    long = {path.relative_to(PACKAGE).as_posix(): n for path in PACKAGE.rglob("*.py")
            if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert not long, long


def test_the_package_writes_hardly_any_russian_itself():
    """Every Russian text lives in the catalogues; Python holds at most the answer reader's words."""
    found = [f"{path.relative_to(PACKAGE).as_posix()}:{i}" for path in PACKAGE.rglob("*.py")
             for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if CYRILLIC_LINE.search(line)]
    assert len(found) <= CYRILLIC_LINES, found


def test_no_retired_spelling_comes_back():
    found = [f"{path.relative_to(PACKAGE.parent).as_posix()}: {pattern} (now {now})"
             for path in [*PACKAGE.rglob("*.py"), *(PACKAGE.parents[1] / "benchmarks").rglob("*.py")]
             for pattern, now in RETIRED.items()
             if re.search(pattern, path.read_text(encoding="utf-8"), re.M)
             and not (pattern.startswith(r"^(MIB") and path.name == "cost.py")
             and not (pattern.startswith("def controls") and "hooks" in path.parts)]
    assert not found, "\n".join(found)


MOST_METHODS = 20  # a class with more does more than one job: split it


def test_no_class_in_the_package_has_more_than_twenty_methods():
    """Every class stays small enough to read as one job (functions and properties defined in it, dunders too)."""
    crowded = []
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(tree(path)):
            if isinstance(node, ast.ClassDef):
                methods = [n for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
                if len(methods) > MOST_METHODS:
                    crowded.append(f"{path.relative_to(PACKAGE)}:{node.name} ({len(methods)})")
    assert not crowded, crowded


def test_one_slip_type_and_one_search():
    """Answers and code name their slips with one Slip and search them with one function (book/slips.py)."""
    defined = {path.relative_to(PACKAGE).as_posix(): {n.name for n in ast.walk(tree(path))
                                                       if isinstance(n, (ast.ClassDef, ast.FunctionDef))}
               for path in PACKAGE.rglob("*.py")}
    assert [path for path, names in defined.items() if "Slip" in names] == ["book/slips.py"]
    assert [path for path, names in defined.items() if "hypotheses" in names] == ["book/slips.py"]
    assert all(search.slips and search.slips[0].__class__.__module__.endswith("book.slips")
               for search in (HEAD_SEARCH, BACKWARD_SEARCH))


def test_every_catalogue_key_the_package_writes_out_is_in_the_catalogue():
    """A string literal shaped like a key of a catalogue's tables (figure.…, read.…) names a string that exists, so
    removing a string without its use fails here, not in a learner's kernel (file names aside)."""
    keys = set(STRINGS.strings["ru"]) | set(BOOK_STRINGS.strings["ru"])
    tables = {key.split(".")[0] for key in keys if "." in key}
    missing = sorted(value for value in _literals()
                     if re.fullmatch(r"[a-z_]+(\.[a-z0-9_-]+)+", value) and value.split(".")[0] in tables
                     and value not in keys and not value.endswith((".json", ".css", ".js")))
    assert not missing, missing
