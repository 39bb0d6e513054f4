"""The lasting progress store: shared by kernels, safe when broken, unwritable or written at once."""

import json
import os
import pathlib
import re
import subprocess
import sys
import textwrap
import time

import platformdirs
import pytest
from support.records import record, results

from llm_from_scratch import Tensor
from llm_from_scratch.book import progress as lasting
from llm_from_scratch.book.clock import PINNED
from llm_from_scratch.book.progress import VERSION
from llm_from_scratch.book.state import STATE
from llm_from_scratch.book.summary import _aligned
from llm_from_scratch.ch27.exercises import (
    EXERCISE_BOOK,
    NOTEBOOKS,
    check,
    mastery,
    progress,
    reset_progress,
    reveal,
)

attempted = EXERCISE_BOOK.attempted
TOTAL = len(EXERCISE_BOOK.exercises)  # the chapter's own exercises, code ones included


def store_file() -> pathlib.Path:
    return pathlib.Path(os.environ[lasting.ENV])


def restart_kernel():
    """What a kernel restart forgets: every store object (the file stays)."""
    STATE.stores.clear()


def rows():
    return {i: (count, right) for i, count, right in progress().rows}


def ATTEMPT(correct, variant=0, hinted=False, day=PINNED):
    """An attempt as the store keeps it, made on ``day`` (the tests' pinned one; None: a store older than days)."""
    return {"variant": variant, "correct": correct, "hinted": hinted, **({"day": day} if day else {})}


def test_attempts_last_across_a_kernel_restart():
    check("scores", [[0, 6], [6, -4]])
    check("weights", [0.5, 0.5])
    restart_kernel()
    assert rows()["scores"] == (1, True) and rows()["weights"] == (1, False)
    assert attempted("weights") and reveal("weights").shown
    data = json.loads(store_file().read_text(encoding="utf-8"))
    assert data == {"format": lasting.FORMAT, "version": VERSION, "learner": {"id": "stored-notebooks", "name": ""},
                    "chapters": {"ch27": {"scores": {"attempts": [ATTEMPT(True)], "hints": {}},
                                          "weights": {"attempts": [ATTEMPT(False)], "hints": {}}}}}


@pytest.mark.slow
def test_another_kernel_sees_this_ones_attempts_and_the_reverse():
    check("output-shape", [4, 7, 7])
    other_kernel = textwrap.dedent("""
        from llm_from_scratch.ch27.exercises import check, progress
        check("first-look", [1, 0])
        print(dict((i, c) for i, c, _ in progress().rows)["output-shape"])
    """)
    result = subprocess.run([sys.executable, "-c", other_kernel], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "1"
    assert rows()["first-look"] == (1, True)


def test_unreadable_answers_are_not_recorded():
    check("scores", "[1, 2")
    assert not store_file().exists() and rows()["scores"] == (0, False)


def test_one_answer_reads_then_judges_with_no_lock_then_writes_and_sets_the_forms_feedback_once(monkeypatch):
    """Enter runs judge → store → presenter: the store is read once under its lock (a snapshot), the answer is
    judged with no lock held, and written in one locked read-modify-write; the form shows the returned feedback."""
    from llm_from_scratch.book.widgets import ExerciseForm

    form = ExerciseForm(EXERCISE_BOOK, "row-normalization")
    form.answer.submit("a")  # the store exists from here on
    STATE.stores.clear()  # a kernel that has not read it yet
    events, shown = [], []
    real_read, real_replace, real_judge = pathlib.Path.read_bytes, os.replace, EXERCISE_BOOK.judge.judge

    def read(path):
        if path == store_file():
            events.append(("read", lasting.store().lock.is_locked))
        return real_read(path)

    def replace(source, target):
        if pathlib.Path(target) == store_file():
            events.append(("write", lasting.store().lock.is_locked))
        return real_replace(source, target)

    def judge(*args):
        events.append(("judge", lasting.store().lock.is_locked))
        return real_judge(*args)

    monkeypatch.setattr(pathlib.Path, "read_bytes", read)
    monkeypatch.setattr(os, "replace", replace)
    monkeypatch.setattr(EXERCISE_BOOK.judge, "judge", judge)
    form.feedback.observe(lambda change: shown.append(change["new"]), names="value")
    form.answer.submit("c")
    assert events == [("read", True), ("judge", False), ("read", True), ("write", True)], (
        "a snapshot read under the lock, the judge with no lock, then one locked read-modify-write")
    assert not lasting.store().lock.is_locked, "the lock is let go"
    assert len(shown) == 1 and "✔" in shown[0], "the form's feedback is set once"
    assert [a["correct"] for a in lasting.store().records("ch27")["row-normalization"]["attempts"]] == [False, True]


def test_an_answer_is_judged_again_when_what_its_verdict_read_changed_before_it_was_written(monkeypatch):
    """Another kernel answers a variant of the same family while this answer is judged: the verdict read which
    variants the learner had seen (a judge names an answer made on one of them), so it is judged again on the fresh
    records before it is written, and both attempts are kept."""
    real_verdict, verdicts = EXERCISE_BOOK.judge.verdict, []

    def verdict(exercise, answer, variant, read, values=None):
        found = real_verdict(exercise, answer, variant, read, values)
        verdicts.append(type(found).__name__)
        if len(verdicts) == 1:  # meanwhile, another kernel answers a variant of the same family
            record(lasting.Store(store_file()), "ch27", "weights-by-hand", False, 3)
        return found

    monkeypatch.setattr(EXERCISE_BOOK.judge, "verdict", verdict)
    right = EXERCISE_BOOK["scores-by-hand"].expected(EXERCISE_BOOK.examples.evidence())
    assert check("scores-by-hand", right.tolist()).correct
    assert verdicts == ["Judgement", "Judgement"], "judged again on the records the other kernel wrote"
    attempts = lasting.store().records("ch27")
    assert len(attempts["scores-by-hand"]["attempts"]) == 1 and len(attempts["weights-by-hand"]["attempts"]) == 1


def test_a_check_in_code_is_recorded_and_ids_of_no_exercise_are_listed():
    check("row-normalization", "a")
    check("row-normalization", "c")
    record(lasting.store(), "ch27", "code-softmax", True)  # an exercise the chapter no longer has
    assert rows()["row-normalization"] == (2, True)
    assert list(rows())[-1] == "code-softmax" and rows()["code-softmax"] == (1, True)


def summary_blocks() -> list[list[list[str]]]:
    """The exercises' part of the summary, block by block (a notebook's heading and rows; the chapter's total),
    each line split into its cells."""
    shown = repr(progress()).splitlines()
    part = "\n".join(shown[1:shown.index(EXERCISE_BOOK.strings.text("progress.skills_header"))]).strip("\n")
    return [[re.split(r"\s{2,}", line) for line in block.splitlines()] for block in part.split("\n\n")]


def test_the_summary_lists_exercises_by_notebook_with_totals_per_notebook_and_for_the_chapter():
    assert len(summary_blocks()) == len(NOTEBOOKS) + 1, "no other exercises: no group for them"
    check("scores", [[0, 6], [6, -4]])
    record(lasting.store(), "ch27", "first-look", False)
    record(lasting.store(), "ch27", "first-look", False)
    record(lasting.store(), "ch27", "write-backward", False)
    record(lasting.store(), "ch27", "write-backward", True)
    record(lasting.store(), "ch27", "renamed-exercise", True)  # recorded by an earlier version of the chapter
    blocks = summary_blocks()
    assert blocks[0] == [["01 · Что учтёт каждый запрос"],
                         ["какому значению каждый запрос даст больший вес", "есть попытки, пока неверно",
                          "(попыток: 2)"],
                         ["оценки QKᵀ", "верно", "(попыток: 1)"],
                         ["итого", "верно 1 из 2; есть попытки, пока неверно: 1", "(попыток: 3)"]]
    assert blocks[6][0] == ["07 · Градиенты"] and blocks[6][-2:] == [
        ["обратный проход своими руками", "верно", "(попыток: 2)"],
        ["итого", "верно 1 из 5; есть попытки, пока неверно: 0", "(попыток: 2)"]]
    for notebook, block in zip(NOTEBOOKS, blocks):
        assert [row[0] for row in block[1:]] == [*(EXERCISE_BOOK.title(i) for i in notebook.asks), "итого"]
    assert blocks[-2:] == [[["Упражнения, которых нет в тетрадях главы"], ["renamed-exercise", "верно", "(попыток: 1)"],
                            ["итого", "верно 1 из 1; есть попытки, пока неверно: 0", "(попыток: 1)"]],
                           [["итого по главе", f"верно 2 из {TOTAL}; есть попытки, пока неверно: 1",
                             "(попыток: 5)"]]], \
        "the chapter's total counts the chapter's own exercises"
    assert [i for i, _, _ in progress().rows] == [*(i for n in NOTEBOOKS for i in n.asks), "renamed-exercise"]


def test_the_summary_by_notebook_speaks_english(english):
    check("scores", [[0, 6], [6, -4]])
    record(lasting.store(), "ch27", "first-look", False)
    blocks = summary_blocks()
    assert blocks[0][0] == ["01 · What each query attends to"]
    assert blocks[0][-1] == ["total", "1 of 2 right, 1 tried but not right yet", "(attempts: 2)"]
    assert blocks[-1] == [["chapter total", f"1 of {TOTAL} right, 1 tried but not right yet", "(attempts: 2)"]]


def test_columns_line_up_by_what_the_screen_shows():
    """A combining mark takes no column and a wide character two; a heading and a blank line widen no column."""
    assert _aligned([("東京", "a", "1"), ("V̄", "bb", "2"), ("a heading wider than the table",), (), ("x", "c", "3")]) \
        == ["東京  a   1", "V̄     bb  2", "a heading wider than the table", "", "x     c   3"]


def test_reset_forgets_this_chapter_only():
    check("scores", [[0, 6], [6, -4]])
    record(lasting.store(), "ch28", "mask", True)
    after = reset_progress()
    assert all(count == 0 for _, count, _ in after.rows)
    assert not attempted("scores") and not reveal("scores").shown
    assert results(lasting.store(), "ch28") == {"mask": [True]}


def test_the_path_comes_from_the_environment_or_the_users_own_data_directory(monkeypatch, tmp_path):
    assert lasting.path() == store_file()
    monkeypatch.delenv(lasting.ENV)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    default = lasting.path()
    assert default == pathlib.Path(platformdirs.user_data_dir("llm-from-scratch", appauthor=False)) / "progress.json"
    assert default.is_relative_to(tmp_path), "each user's home holds their own progress (JupyterHub, Binder)"


@pytest.mark.parametrize("content", [b"{not json", b"", b"\xff\xfe garbage", json.dumps({"cells": []}).encode(),
                                     json.dumps({"format": lasting.FORMAT, "version": 1,
                                                 "chapters": {"ch27": {"scores": ["yes"]}}}).encode(),
                                     json.dumps({"format": lasting.FORMAT, "version": 5, "chapters": {}}).encode(),
                                     json.dumps({"format": lasting.FORMAT, "version": 3, "chapters": {}}).encode(),
                                     b"[" * 100_000],
                         ids=["corrupt", "empty", "binary", "foreign", "wrong-types", "other-version", "no-learner",
                              "deep"])
def test_a_corrupt_or_foreign_file_is_kept_as_a_backup_and_a_fresh_store_starts(content):
    file = store_file()
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_bytes(content)
    feedback = check("scores", [[0, 6], [6, -4]])
    backups = list(file.parent.glob("progress.backup-*.json"))
    assert len(backups) == 1 and backups[0].read_bytes() == content, "nothing is lost"
    assert "не удалось прочитать" in feedback.note and str(backups[0]) in feedback.note
    assert "не удалось прочитать" in repr(feedback)
    assert rows()["scores"] == (1, True)
    assert "не удалось прочитать" not in repr(progress()), "the note is told once"


def test_a_broken_file_found_by_progress_is_told_there_in_the_learners_language(english):
    store_file().parent.mkdir(parents=True, exist_ok=True)
    store_file().write_text("{")
    shown = repr(progress())
    assert "could not be read" in shown and "starts afresh" in shown
    assert not store_file().exists() and len(list(store_file().parent.glob("progress.backup-*.json"))) == 1


@pytest.mark.parametrize("blocker", ["file-as-folder", "folder-as-file"])
def test_an_unwritable_location_keeps_progress_in_memory_with_a_note(blocker, monkeypatch, tmp_path):
    if blocker == "file-as-folder":  # the store's folder is a file: nothing can be created in it
        (tmp_path / "occupied").write_text("a file")
        file = tmp_path / "occupied" / "progress.json"
    else:  # the store's path is a folder: it can be neither read nor replaced
        file = tmp_path / "progress.json"
        file.mkdir()
    monkeypatch.setenv(lasting.ENV, str(file))
    first = check("scores", [[0, 6], [6, -4]])
    assert "только в этом ядре" in first.note and str(file) in first.note
    second = check("weights", [0.5, 0.5])
    assert second.note == "", "the note is told once per kernel"
    assert rows()["scores"] == (1, True) and rows()["weights"] == (1, False)
    assert reveal("scores").shown
    assert "только в этом ядре" in repr(progress()), "the summary keeps saying it"
    restart_kernel()
    assert rows()["scores"] == (0, False), "memory does not outlive the kernel"


def test_a_lock_held_too_long_by_another_kernel_keeps_progress_in_memory_with_a_note(monkeypatch):
    from filelock import FileLock

    check("weights", [0.5, 0.5])
    monkeypatch.setattr(lasting, "LOCK_WAIT", 0.2)
    restart_kernel()
    with FileLock(store_file().with_name("progress.json.lock")):  # another kernel, stuck while it holds the lock
        feedback = check("scores", [[0, 6], [6, -4]])
    assert feedback.correct and "Другое ядро занимает файл прогресса" in feedback.note
    assert str(store_file()) in feedback.note and "0.2 с" in feedback.note
    assert rows()["scores"] == (1, True), "the attempt is kept in this kernel"
    assert "scores" not in json.loads(store_file().read_text())["chapters"]["ch27"], "the file was not touched"


def test_no_temporary_file_is_left_behind():
    for _ in range(5):
        check("scores", [[0, 6], [6, -4]])
    assert sorted(p.name for p in store_file().parent.iterdir()) == ["progress.json", "progress.json.lock"]


WRITER = textwrap.dedent("""
    import pathlib, sys, time
    from llm_from_scratch.book.progress import add_attempt, store
    print("ready", flush=True)
    while not pathlib.Path(sys.argv[3]).exists():
        time.sleep(0.001)
    print(time.monotonic(), flush=True)
    for i in range(int(sys.argv[1])):
        store().transact(lambda data, i=i: add_attempt(data, "ch27", sys.argv[2], i % 2 == 0))
    print(time.monotonic(), flush=True)
""")


@pytest.mark.slow
def test_two_kernels_writing_at_once_lose_no_attempt(tmp_path):
    count, go = 500, tmp_path / "go"
    writers = [subprocess.Popen([sys.executable, "-c", WRITER, str(count), name, str(go)], stdout=subprocess.PIPE,
                                text=True) for name in ("first-look", "scores")]
    assert [w.stdout.readline().strip() for w in writers] == ["ready", "ready"]
    go.touch()  # both start writing now
    spans = [tuple(map(float, w.communicate(timeout=120)[0].split())) for w in writers]
    assert all(w.returncode == 0 for w in writers)
    (start_a, end_a), (start_b, end_b) = spans
    assert start_a < end_b and start_b < end_a, "the two writers ran at the same time"
    chapters = json.loads(store_file().read_text())["chapters"]["ch27"]
    assert len(chapters["first-look"]["attempts"]) == len(chapters["scores"]["attempts"]) == count
    assert [a["correct"] for a in chapters["scores"]["attempts"]] == [i % 2 == 0 for i in range(count)], "in order"


V1_FILE = pathlib.Path(__file__).with_name("data") / "progress-v1.json"  # written by the store of version 1


def test_a_version_1_file_is_read_and_upgraded_in_place_nothing_lost():
    file = store_file()
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_bytes(V1_FILE.read_bytes())
    assert rows()["scores"] == (2, True) and rows()["weights"] == (1, False)
    assert not list(file.parent.glob("progress.backup-*")), "an older store is not corrupt"
    check("weights", [0.014166, 0.985834])
    data = json.loads(file.read_text(encoding="utf-8"))
    assert data["version"] == VERSION
    assert data["chapters"]["ch28"] == {"mask": {"attempts": [ATTEMPT(True, day=None)], "hints": {}}}
    assert data["chapters"]["ch27"]["weights"] == {"attempts": [ATTEMPT(False, day=None), ATTEMPT(True)], "hints": {}}
    assert data["chapters"]["ch27"]["scores"] == {"attempts": [ATTEMPT(False, day=None), ATTEMPT(True, day=None)],
                                                  "hints": {}}
    assert data["learner"]["id"], "the upgrade gives the learner an id"


V2_FILE = pathlib.Path(__file__).with_name("data") / "progress-v2.json"  # written by the store of version 2


def test_a_version_2_file_is_upgraded_with_its_hints_and_the_first_attempt_counts_as_unhinted():
    file = store_file()
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_bytes(V2_FILE.read_bytes())
    assert rows()["scores"] == (2, True) and rows()["weights"] == (1, True)
    check("output-shape", [4, 7, 5])
    data = json.loads(file.read_text(encoding="utf-8"))
    assert not list(file.parent.glob("progress.backup-*"))
    assert data["chapters"]["ch27"]["scores"] == {"attempts": [ATTEMPT(False, day=None),
                                                               ATTEMPT(True, hinted=True, day=None)],
                                                  "hints": {"0": 1}}
    assert data["chapters"]["ch27"]["weights"] == {"attempts": [ATTEMPT(True, day=None)], "hints": {}}
    assert data["chapters"]["ch28"] == {"mask": {"attempts": [ATTEMPT(True, day=None)], "hints": {}}}


def test_a_version_3_file_is_read_as_it_is_and_written_as_the_current_version():
    file = store_file()
    file.parent.mkdir(parents=True, exist_ok=True)
    chapters = {"ch27": {"scores": {"attempts": [ATTEMPT(True, day=None)], "hints": {}}}}
    file.write_text(json.dumps({"format": lasting.FORMAT, "version": 3, "learner": {"id": "earlier", "name": ""},
                                "chapters": chapters}), encoding="utf-8")
    assert rows()["scores"] == (1, True)
    check("weights", [0.5, 0.5])
    data = json.loads(file.read_text(encoding="utf-8"))
    assert data["version"] == VERSION and data["learner"]["id"] == "earlier"
    assert data["chapters"]["ch27"]["scores"] == chapters["ch27"]["scores"]


def test_a_tensor_the_engine_computed_is_judged_and_kept_but_counts_for_no_skill():
    q = Tensor([[[0.0, 3.0], [2.0, -1.0]]], requires_grad=True)
    k = Tensor([[[3.0, 0.0], [-1.0, 2.0]]])
    feedback = check("scores", q @ k.transpose(1, 2))
    assert feedback.correct and "посчитал движок" in feedback.note
    [attempt] = json.loads(store_file().read_text(encoding="utf-8"))["chapters"]["ch27"]["scores"]["attempts"]
    assert attempt == {**ATTEMPT(True), "computed": True}
    skill = mastery()["skill.dot-products"]
    assert skill.attempts == 1 and skill.first_right == 0
    typed = check("scores", Tensor([[[0.0, 6.0], [6.0, -4.0]]]))  # a tensor written out: numbers from a hand
    assert typed.correct and "посчитал движок" not in typed.note


def test_a_new_store_gives_the_learner_an_id_before_any_attempt():
    assert EXERCISE_BOOK.learner().id
    data = json.loads(store_file().read_text(encoding="utf-8"))
    assert data["version"] == VERSION and data["chapters"] == {} and data["learner"]["id"] == EXERCISE_BOOK.learner().id


SLOW_HEAD = textwrap.dedent("""
    import pathlib, sys, time
    import numpy as np
    from llm_from_scratch.ch27.exercises import check_code
    started = pathlib.Path(sys.argv[1])

    def my_head(q, k, v):
        if not started.exists():  # the judge's first call: the other process answers meanwhile
            started.touch()
            time.sleep(2.5)
        s = q @ np.swapaxes(k, 1, 2) / np.sqrt(q.shape[-1])
        e = np.exp(s - s.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True) @ v

    print(check_code("write-head", my_head).correct, flush=True)
""")


@pytest.mark.slow
def test_an_answer_is_not_held_up_by_another_process_judging_a_slow_head(tmp_path):
    """The lock is held only to read and to write: while one kernel judges a head that sleeps 2.5 s, another
    kernel's answer comes back at once, and both are recorded."""
    started = tmp_path / "started"
    judging = subprocess.Popen([sys.executable, "-c", SLOW_HEAD, str(started)], stdout=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not started.exists():
        assert time.monotonic() < deadline and judging.poll() is None, "the slow head was never called"
        time.sleep(0.01)
    begun = time.monotonic()
    feedback = check("row-normalization", "a")
    waited = time.monotonic() - begun
    assert judging.communicate(timeout=60)[0].strip() == "True"
    assert waited < 1.5, f"the answer waited {waited:.2f} s for the other process's judge"
    assert feedback.readable
    recorded = json.loads(store_file().read_text())["chapters"]["ch27"]
    assert len(recorded["row-normalization"]["attempts"]) == len(recorded["write-head"]["attempts"]) == 1


FORKED = textwrap.dedent("""
    import multiprocessing, sys
    from llm_from_scratch.book.progress import add_attempt, store
    from llm_from_scratch.ch27.exercises import check

    def answer(_):
        return check("row-normalization", "a").message

    if __name__ == "__main__":
        check("scores", [[0, 6], [6, -4]])  # this process has used the store and its lock
        with multiprocessing.get_context("fork").Pool(2) as pool:
            said = pool.map(answer, range(2))
        print(len(said), all(said), flush=True)
        print(len(store().records("ch27")["row-normalization"]["attempts"]), flush=True)
""")


@pytest.mark.slow
def test_a_process_forked_after_the_store_was_used_answers(tmp_path):
    """A teacher grading with multiprocessing: each forked child takes the store's lock as its own."""
    script = tmp_path / "grade.py"
    script.write_text(FORKED)
    result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.split() == ["2", "True", "2"], result.stdout + result.stderr[-2000:]


def test_reset_progress_reaches_a_notebook_through_its_one_import():
    """README tells learners reset_progress() starts the chapter over: the notebooks' one import brings it."""
    cell: dict = {}
    exec("from llm_from_scratch.ch27.notebook import *", cell)
    check("scores", [[0, 6], [6, -4]])
    assert attempted("scores")
    cell["reset_progress"]()
    assert not attempted("scores")


STORES = pathlib.Path(__file__).parent / "data" / "stores"  # each written by the commit of its version (written_by.py)


@pytest.mark.parametrize("version", [1, 2, 3, 4, 5])
def test_a_store_written_by_each_earlier_version_is_read_by_the_one_migration_and_written_back_as_6(version,
                                                                                                      tmp_path):
    raw = (STORES / f"progress-v{version}.json").read_bytes()
    assert json.loads(raw)["version"] == version
    data = lasting.parse(raw)
    records = data["chapters"]["ch27"]
    results = {i: [a.correct for a in lasting.attempts_of(r)] for i, r in records.items()}
    assert results["scores"][:2] == [False, True] and results["first-look"] == [False]
    scores = lasting.attempts_of(records["scores"])
    assert all(a.variant == 0 and a.day is None and a.sure is None for a in scores), "none had days nor confidence"
    assert scores[1].hinted == (version >= 2), "a hint before the right answer, where the version kept hints"
    assert (data["learner"] is None) == (version < 3)
    if version >= 3:
        assert data["learner"].name == "Ира" and records["weights-by-hand"]["attempts"][0]["variant"] == 2
    if version >= 4:
        assert lasting.attempts_of(records["weights"])[0].computed
    if version >= 5:
        assert scores[-1].own, "an answer on the learner's own values, kept apart"
    file = tmp_path / "progress.json"
    file.write_bytes(raw)
    moved = lasting.Store(file)
    record(moved, "ch27", "scores", True)
    written = json.loads(file.read_bytes())
    assert written["version"] == lasting.VERSION and written["learner"]["id"]
    assert written["chapters"]["ch27"]["scores"]["attempts"][:len(scores)] == records["scores"]["attempts"]
