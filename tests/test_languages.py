"""A language is data: a throwaway third one, made of data files only, is chosen, shows an exercise, judges,
hints and reveals in it, and what the package says in it comes from its files alone."""

import re
import shutil
import subprocess
import sys
import textwrap
import tomllib

import pytest
from support import ROOT

FIELD = re.compile(r"(\{[^{}]*\})")
WORD = re.compile(r"[A-Za-z]{4,}")
MARKUP = re.compile(r"<[^>]*>")
ERROR_CODE = re.compile(r"\b[a-z0-9]+(?:-[a-z0-9]+)+\b")  # an error's kind (input-rank): an identifier, not words
# English words a text may hold in any language: names in code and formulas the strings quote
CODE_WORDS = {"softmax", "numpy", "check", "hint", "reveal", "float", "float64", "None", "True", "False", "nan", "inf",
              "sqrt", "self", "attention", "head", "Tensor", "einsum", "Jupyter", "JupyterLab"}


def pseudo(text: str) -> str:
    """A pseudo-translation: every letter outside a {field} turned into its fullwidth form, so a word the code
    wrote itself stands out in plain Latin."""
    return "".join(part if FIELD.fullmatch(part) else
                   "".join(chr(ord(c) + 0xFEE0) if c.isascii() and c.isalpha() else c for c in part)
                   for part in FIELD.split(text))


def toml_text(table: dict) -> str:
    """A catalogue file's text: each key quoted, each value a TOML string or list of strings."""
    def value(v):
        return ("[" + ", ".join(map(quoted, v)) + "]") if isinstance(v, list) else quoted(v)

    def quoted(s):
        return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'

    lines = []
    for key, v in table.items():
        if isinstance(v, dict):
            lines += [f"[{quoted(key)}]", *(f"{quoted(k)} = {value(x)}" for k, x in v.items())]
        else:
            lines.append(f"{quoted(key)} = {value(v)}")
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def third_language(tmp_path_factory):
    """A copy of the package with a language "xx" added as data files only: the English files pseudo-translated."""
    place = tmp_path_factory.mktemp("third-language")
    package = place / "llm_from_scratch"
    shutil.copytree(ROOT / "src" / "llm_from_scratch", package, ignore=shutil.ignore_patterns("__pycache__"))
    for english in package.glob("*/catalogues/en"):
        (english.parent / "xx").mkdir()
        for path in english.glob("*.toml"):
            table = tomllib.loads(path.read_text(encoding="utf-8"))
            translated = {k: {f: pseudo(s) if isinstance(s, str) else s for f, s in v.items()}
                          if isinstance(v, dict) else pseudo(v) for k, v in table.items()}
            (english.parent / "xx" / path.name).write_text(toml_text(translated), encoding="utf-8")
    return place


SAY = textwrap.dedent("""
    import numpy as np
    from llm_from_scratch.book.text import LANGUAGES, set_language
    from llm_from_scratch.book.widgets import ExerciseForm
    from llm_from_scratch.ch27 import exercises
    from llm_from_scratch.ch27.sections import render_report

    print(LANGUAGES)
    set_language("xx")
    book = exercises.EXERCISE_BOOK
    print(ExerciseForm(book, "output-shape").static_html())
    print(repr(exercises.check("output-shape", [4, 7, 3])))
    print(repr(exercises.check("output-shape", "[4, 7")))
    print(repr(exercises.hint("output-shape")))
    print(repr(exercises.reveal("output-shape")))
    print(repr(exercises.check("row-normalization", "b")))
    print(repr(exercises.progress()))
    print(render_report())
    try:
        set_language("de")
    except ValueError as refused:
        print(refused)
""")


@pytest.mark.slow
def test_a_third_language_made_of_data_files_shows_an_exercise_and_speaks_only_its_files(third_language, tmp_path):
    run = subprocess.run([sys.executable, "-c", SAY], capture_output=True, text=True, timeout=120, check=False,
                         env={"PYTHONPATH": str(third_language), "PATH": "", "LLM_FROM_SCRATCH_PROGRESS":
                              str(tmp_path / "progress.json"), "MPLBACKEND": "Agg", "HOME": str(tmp_path)})
    assert run.returncode == 0, run.stderr
    said = run.stdout
    assert said.startswith("('ru', 'en', 'xx')")
    assert pseudo("the output O") in said, "the exercise's prompt, in the third language"
    assert pseudo("Chapter 27") in said, "the report's title"
    read = ERROR_CODE.sub(" ", MARKUP.sub(" ", said.split("\n", 1)[1]))
    english = {word for word in WORD.findall(read) if word not in CODE_WORDS}
    assert not english, f"words the package wrote itself, not from the catalogues: {sorted(english)}"
