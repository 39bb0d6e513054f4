"""A teacher's table: learners' progress files merged into one CSV that a spreadsheet reads as data only."""

import csv
import io
import json
import os
import pathlib
import subprocess
import sys
import textwrap

import pytest
from support.records import record

from llm_from_scratch.book import export
from llm_from_scratch.book import progress as lasting
from llm_from_scratch.book.progress import Store
from llm_from_scratch.book.state import STATE
from llm_from_scratch.ch27.exercises import EXERCISE_BOOK, check

HOSTILE = ['=HYPERLINK("http://example.invalid","click")', "+1+2", "-2+3", "@SUM(A1:A9)", "\t=1+1", "\r=1+1"]


def store_named(path, name: str):
    store = Store(path)
    record(store, "ch27", "recurrent-vs-self", True)
    store.name(name)
    return path


@pytest.mark.parametrize("name", HOSTILE, ids=["equals", "plus", "minus", "at", "tab", "carriage-return"])
def test_a_name_that_would_start_a_formula_is_exported_as_text(tmp_path, capsys, name):
    file = store_named(tmp_path / "progress.json", name)
    assert export.main(["export", str(file), "--csv"]) == 0
    rows = list(csv.reader(io.StringIO(capsys.readouterr().out)))
    assert len(rows) > 1
    for row in rows:
        for cell in row:
            assert not cell.startswith(("=", "+", "-", "@", "\t", "\r")), cell
    written = {row[1] for row in rows[1:]}
    assert written == {"'" + name.lstrip("\t\r")}, "the name is kept, behind an apostrophe"


def test_a_name_is_read_as_data_bounded_and_without_control_characters(tmp_path, capsys):
    file = store_named(tmp_path / "progress.json", "Ира\x00\x1b[31m" + "я" * 500)
    export.main(["export", str(file), "--csv"])
    names = {row["name"] for row in csv.DictReader(io.StringIO(capsys.readouterr().out))}
    assert names == {("Ира[31m" + "я" * 500)[:export.LONGEST_NAME]}


def test_ordinary_names_and_numbers_are_unchanged(tmp_path, capsys):
    file = store_named(tmp_path / "progress.json", "Маша О'Нил")
    export.main(["export", str(file), "--csv", "--language", "en"])
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    history = next(r for r in rows if r["skill"] == "history")
    assert history["name"] == "Маша О'Нил" and history["skill_name"] == "attention's history"
    assert history["attempts"] == "1" and history["mastered"] == "1"


def test_the_export_merges_stores_into_one_csv_and_names_the_corrupt_one(tmp_path, monkeypatch, capsys):
    for name, learner_id, right in (("jovyan-1", "id-one", True), ("jovyan-2", "id-two", False)):
        home = tmp_path / name / "jovyan"  # every home has the same user name: the id tells learners apart
        home.mkdir(parents=True)
        monkeypatch.setenv(lasting.ENV, str(home / "progress.json"))
        monkeypatch.setenv(lasting.LEARNER_ENV, learner_id)
        STATE.stores.clear()
        check("recurrent-vs-self", "b" if right else "a")
    EXERCISE_BOOK.set_name("Ира")
    corrupt = tmp_path / "jovyan-3" / "progress.json"
    corrupt.parent.mkdir()
    corrupt.write_bytes(b"{not json")
    files = [str(tmp_path / n / "jovyan" / "progress.json") for n in ("jovyan-1", "jovyan-2")] + [str(corrupt)]
    assert export.main(["export", *files, "--csv"]) == 0
    out, err = capsys.readouterr()
    rows = list(csv.DictReader(io.StringIO(out)))
    assert str(corrupt) in err and "пропущен" in err
    assert corrupt.read_bytes() == b"{not json", "nothing is lost"
    history = {r["learner"]: r for r in rows if r["skill"] == "history"}
    assert history["id-one"]["mastered"] == "1" and history["id-two"]["mastered"] == "0"
    assert history["id-two"]["name"] == "Ира" and history["id-one"]["skill_name"] == "история внимания"
    assert {r["learner"] for r in rows} == {"id-one", "id-two"}
    assert list(rows[0]) == list(export.EXPORT_COLUMNS)
    assert json.loads(pathlib.Path(files[0]).read_text())["learner"]["id"] == "id-one"


@pytest.mark.slow
def test_the_export_runs_in_a_fresh_process_and_finds_the_chapter_by_its_entry_point(tmp_path):
    store = tmp_path / "progress.json"
    learner = textwrap.dedent("""
        from llm_from_scratch.ch27.exercises import check
        check("recurrent-vs-self", "b")
    """)
    environment = {**os.environ, lasting.ENV: str(store), lasting.LEARNER_ENV: "id-fresh"}
    subprocess.run([sys.executable, "-c", learner], env=environment, check=True)
    result = subprocess.run([sys.executable, "-m", "llm_from_scratch.book.progress", "export", str(store), "--csv",
                             "--language", "en"], env=environment, capture_output=True, text=True, check=True)
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    history = [r for r in rows if r["skill"] == "history"]
    assert history == [{**history[0], "learner": "id-fresh", "chapter": "ch27", "mastered": "1"}]
    assert history[0]["skill_name"] == "attention's history" and result.stderr == ""



def test_a_tab_between_names_is_a_space_and_text_reordering_characters_are_dropped(tmp_path, capsys):
    file = store_named(tmp_path / "progress.json", "Иван\tПетров\u202e\u2066вонаВ")
    export.main(["export", str(file), "--csv"])
    names = {row["name"] for row in csv.DictReader(io.StringIO(capsys.readouterr().out))}
    assert names == {"Иван ПетроввонаВ"}


@pytest.mark.parametrize("lang, said", [("ru", "такого файла нет"), ("en", "there is no such file")])
def test_a_file_that_cannot_be_read_is_said_in_the_exports_language(tmp_path, capsys, lang, said):
    assert export.main(["export", str(tmp_path / "missing.json"), "--csv", "--language", lang]) == 1
    assert f"({said})" in capsys.readouterr().err
