"""Learning that lasts: confidence with each answer, spaced review on a set clock, interleaving, calibration."""

import datetime
import json
import os
import pathlib
import re
import sys
from unittest import mock

import numpy as np
import pytest
from support.notebooks import sanitized

from llm_from_scratch.book import progress as lasting
from llm_from_scratch.book import widgets as book_widgets
from llm_from_scratch.book.clock import PINNED, TODAY_ENV, today
from llm_from_scratch.book.mastery import Served
from llm_from_scratch.book.progress import Attempt
from llm_from_scratch.book.review import Due, calibration, due, interleaved, queue
from llm_from_scratch.ch27 import evidence as chapter_evidence
from llm_from_scratch.ch27.exercises import EXERCISE_BOOK, check, mastery, progress, review, variant
from llm_from_scratch.ch27.variants import VARIANTS
from llm_from_scratch.engine.closed_form import array_softmax
from tools.lock import LOCK
from tools.pytest_plugin import drift

ROOT = pathlib.Path(__file__).resolve().parents[1]
DAY0 = datetime.date.fromisoformat(PINNED)
CHOICE = "row-normalization"  # a choice without variants, right answer "c"
RIGHT_CHOICE, WRONG_CHOICE = "c", "a"


def on(monkeypatch, days: int) -> datetime.date:
    """Set the clock ``days`` after the tests' pinned day."""
    day = DAY0 + datetime.timedelta(days)
    monkeypatch.setenv(TODAY_ENV, day.isoformat())
    return day


def stand_in(exercise_id: str) -> str:
    """What review asks in place of ``exercise_id`` on the store as it is now."""
    return EXERCISE_BOOK.review.stand_in(exercise_id, EXERCISE_BOOK.records())


def next_variant(exercise_id: str) -> int:
    return EXERCISE_BOOK.next_variant(exercise_id)


def queued() -> dict[str, datetime.date]:
    now, later = EXERCISE_BOOK.review_queue()
    return {item.exercise_id: item.day for item in [*now, *later]}


def test_the_clock_is_the_local_date_unless_pinned(monkeypatch):
    monkeypatch.delenv(TODAY_ENV)
    assert today() == datetime.date.today()
    monkeypatch.setenv(TODAY_ENV, "2031-02-03")
    assert today() == datetime.date(2031, 2, 3)


def test_the_test_session_and_its_kernels_are_on_the_pinned_day():
    assert os.environ[TODAY_ENV] == PINNED


def test_a_miss_is_due_the_next_day_then_a_week_later_then_leaves(monkeypatch):
    on(monkeypatch, 0)
    assert not check(CHOICE, WRONG_CHOICE, sure=3).correct
    assert queued() == {CHOICE: DAY0 + datetime.timedelta(1)}
    assert EXERCISE_BOOK.review_queue()[0] == [], "nothing is due on the day of the miss"
    on(monkeypatch, 1)
    assert [i.exercise_id for i in EXERCISE_BOOK.review_queue()[0]] == [CHOICE]
    assert check(CHOICE, RIGHT_CHOICE).correct
    assert queued() == {CHOICE: DAY0 + datetime.timedelta(8)}
    on(monkeypatch, 5)
    assert check(CHOICE, RIGHT_CHOICE).correct, "right before it is due"
    assert queued() == {CHOICE: DAY0 + datetime.timedelta(8)}, "a right answer before the day moves nothing"
    on(monkeypatch, 8)
    assert check(CHOICE, RIGHT_CHOICE).correct
    assert queued() == {}


def test_a_miss_at_the_second_review_starts_again_from_the_next_day(monkeypatch):
    for days, answer in ((0, WRONG_CHOICE), (1, RIGHT_CHOICE), (8, WRONG_CHOICE)):
        on(monkeypatch, days)
        check(CHOICE, answer)
    assert queued() == {CHOICE: DAY0 + datetime.timedelta(9)}
    on(monkeypatch, 9)
    check(CHOICE, RIGHT_CHOICE)
    assert queued() == {CHOICE: DAY0 + datetime.timedelta(16)}


def test_a_miss_then_a_right_retry_on_the_same_day_is_still_due_the_next_day(monkeypatch):
    on(monkeypatch, 0)
    check(CHOICE, WRONG_CHOICE)
    assert check(CHOICE, RIGHT_CHOICE).correct
    assert queued() == {CHOICE: DAY0 + datetime.timedelta(1)}


def test_a_right_answer_the_engine_computed_does_not_move_the_review_and_one_after_a_hint_does():
    """A hint stays with a question without variants for good: if it held the review, the question would never
    leave."""
    missed = Attempt(0, False, False, day=DAY0)
    computed = Attempt(0, True, False, computed=True, day=DAY0 + datetime.timedelta(2))
    assert due("x", [missed, computed]) == Due("x", DAY0 + datetime.timedelta(1), 1, False)
    hinted = Attempt(0, True, True, day=DAY0 + datetime.timedelta(2))
    assert due("x", [missed, hinted]) == Due("x", DAY0 + datetime.timedelta(9), 2, False)


def test_a_review_answer_on_a_fresh_variant_counts_for_mastery(monkeypatch):
    exercise = "identical-keys"  # varies; its skills are row-softmax and properties
    on(monkeypatch, 0)
    tokens = variant(exercise, 0)["query"].shape[1]
    missed = check(exercise, [1.0] + [0.0] * (tokens - 1))
    assert missed.readable and not missed.correct
    on(monkeypatch, 1)
    n = next_variant(exercise)
    assert n >= 1
    inputs = variant(exercise, n)
    weights = array_softmax(inputs["query"][0] @ inputs["key"][0].T / inputs["query"].shape[-1] ** 0.5)
    before = mastery()["skill.properties"].first_right
    assert check(exercise, weights.tolist(), n).correct
    assert mastery()["skill.properties"].first_right == before + 1
    assert queued() == {exercise: DAY0 + datetime.timedelta(8)}


def test_a_sibling_asked_in_review_moves_the_review_of_the_exercise_it_stands_for(monkeypatch):
    on(monkeypatch, 0)
    check("why-root-dk", "b")
    on(monkeypatch, 1)
    sibling = stand_in("why-root-dk")
    assert sibling != "why-root-dk" and EXERCISE_BOOK[sibling].skills[0] == "skill.scaling"
    assert EXERCISE_BOOK[sibling].varies, "a sibling with fresh variants comes first"
    n = next_variant(sibling)
    inputs = variant(sibling, n)
    weights = array_softmax(inputs["query"][0] @ inputs["key"][0].T / inputs["query"].shape[-1] ** 0.5)
    before = mastery()["skill.scaling"].first_right
    assert EXERCISE_BOOK.check(sibling, weights.tolist(), n, review_of="why-root-dk").correct
    assert "why-root-dk" not in queued() or queued()["why-root-dk"] == DAY0 + datetime.timedelta(8)
    assert queued()["why-root-dk"] == DAY0 + datetime.timedelta(8)
    assert mastery()["skill.scaling"].first_right == before + 1, "a review answer counts for mastery"


def test_attempts_on_the_learners_own_values_are_not_scheduled(monkeypatch):
    on(monkeypatch, 0)
    q = np.array([[[1.0, 0.0], [0.0, 1.0]]])
    feedback = check("scores", [[9, 9], [9, 9]], Q=q, K=q)
    assert not feedback.correct and "отдельно" in feedback.message
    assert queued() == {}


def test_an_older_store_is_read_and_its_misses_are_due_at_once(monkeypatch):
    path = pathlib.Path(os.environ[lasting.ENV])
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"format": lasting.FORMAT, "version": 5, "learner": {"id": "old", "name": ""},
                                "chapters": {"ch27": {CHOICE: {"attempts": [
                                    {"variant": 0, "correct": False, "hinted": False},
                                    {"variant": 0, "correct": True, "hinted": False}], "hints": {}}}}}),
                    encoding="utf-8")
    on(monkeypatch, 0)
    now, _ = EXERCISE_BOOK.review_queue()
    assert [i.exercise_id for i in now] == [CHOICE]
    assert "вопросов на сегодня — 1" in repr(progress())


def test_a_confident_miss_is_told_once_per_exercise_and_day(monkeypatch):
    on(monkeypatch, 0)
    first = check(CHOICE, WRONG_CHOICE, sure=3)
    assert "завтра" in first.note
    assert "завтра" not in check(CHOICE, "c", sure=3).note, "once a day"
    assert "завтра" not in check("bug-hunt", "a", sure=2).note, "only when sure"
    on(monkeypatch, 1)
    assert "завтра" in check(CHOICE, WRONG_CHOICE, sure=3).note, "again on another day"
    [*_, last] = json.loads(pathlib.Path(os.environ[lasting.ENV]).read_text("utf-8"))["chapters"]["ch27"][CHOICE][
        "attempts"]
    assert last == {"variant": 0, "correct": False, "hinted": False, "day": "2026-01-06", "sure": 3}


@pytest.mark.parametrize("sure", [0, 4, "3", True, 2.5, [3], pytest.param(np.array([3]), id="array")])
def test_a_confidence_that_is_no_level_is_refused_in_words_and_nothing_is_kept(sure):
    feedback = check(CHOICE, RIGHT_CHOICE, sure=sure)
    assert not feedback.readable and "1 (наугад)" in feedback.message
    assert EXERCISE_BOOK.attempted(CHOICE) is False


def test_review_mixes_skills_and_puts_confident_misses_first():
    def item(exercise_id, confident=False, day=0):
        return Due(exercise_id, DAY0 + datetime.timedelta(day), 1, confident)

    skills = {"a1": "A", "a2": "A", "a3": "A", "b1": "B", "b2": "B", "c1": "C"}
    order = interleaved([item("a1"), item("a2"), item("a3", confident=True), item("b1"), item("b2"), item("c1")],
                        skills)
    names = [i.exercise_id for i in order]
    assert names[0] == "a3", "the skill with most due, its confident miss first"
    assert all(skills[x] != skills[y] for x, y in zip(names, names[1:])), names
    assert sorted(names) == sorted(skills)


def test_the_chapters_review_interleaves_two_skills_with_two_items_each(monkeypatch):
    on(monkeypatch, 0)
    for exercise, answer in (("row-normalization", "a"), ("bug-hunt", "a"), ("why-root-dk", "b"),
                             ("head-width", [1, 1])):
        assert not check(exercise, answer).correct
    on(monkeypatch, 1)
    now, _ = EXERCISE_BOOK.review_queue()
    skills = [EXERCISE_BOOK[i.exercise_id].skills[0] for i in now]
    assert sorted(skills) == ["skill.row-softmax"] * 2 + ["skill.scaling"] * 2
    assert all(a != b for a, b in zip(skills, skills[1:])), skills


def shown_text(call) -> str:
    """What review() shows, as text: its HTML paragraphs and the forms' titles."""
    said = []
    with mock.patch.object(book_widgets, "display", side_effect=lambda x, **_: said.append(x)), \
            mock.patch.object(book_widgets.ExerciseForm, "show", lambda form, snapshot=None: said.append(form)):
        call()
    return "\n".join(re.sub("<[^>]+>", "", x.data) if hasattr(x, "data") else f"[form {x.exercise.id}]"
                     for x in said)


def test_review_says_plainly_when_nothing_is_due_and_when_the_next_is(monkeypatch):
    on(monkeypatch, 0)
    assert "Сегодня повторять нечего. Повторений пока не запланировано" in shown_text(review)
    check(CHOICE, WRONG_CHOICE)
    assert "Сегодня повторять нечего. Следующее повторение — 2026-01-06 (вопросов: 1)" in shown_text(review)
    on(monkeypatch, 1)
    said = shown_text(review)
    assert "К повторению сегодня вопросов: 1" in said and "«суммы столбцов A»" in said
    assert "[form identical-keys]" in said, said  # a sibling of row-softmax with fresh variants


def test_calibration_is_the_share_right_at_each_level():
    attempts = [Attempt(0, True, False, sure=3), Attempt(0, False, False, sure=3), Attempt(0, True, False, sure=1),
                Attempt(0, True, False), Attempt(0, False, False, own=True, sure=2)]
    found = calibration(attempts)
    assert found.said == {1: 1, 2: 0, 3: 2} and found.share(3) == 0.5 and found.share(2) is None


def test_progress_draws_mastery_review_and_calibration(monkeypatch):
    on(monkeypatch, 0)
    check(CHOICE, WRONG_CHOICE, sure=3)
    check("bug-hunt", "c", sure=3)
    summary = progress()
    bundle = summary._repr_mimebundle_()
    assert bundle["text/plain"] == repr(summary) and "<details>" in bundle["text/html"]
    assert "верно 1 из 2" in summary.figure.table and "2026-01-06" in summary.figure.table
    assert "<svg" in bundle["image/svg+xml"] and "Уверенность" in bundle["image/svg+xml"]
    # hatch patterns are named by the order they are first used in, not by a hash each matplotlib writes its own way
    used = re.findall(r"fill: url\(#([^)]+)\)", bundle["image/svg+xml"])
    defined = re.findall(r'<pattern id="([^"]+)"', bundle["image/svg+xml"])
    assert used and sorted(set(used)) == sorted(defined) == [f"hatch{n}" for n in range(1, len(defined) + 1)]


def test_queue_reads_only_known_exercises_and_in_the_books_order():
    records = {"b": {"attempts": [{"variant": 0, "correct": False, "hinted": False, "day": PINNED}], "hints": {}},
               "a": {"attempts": [{"variant": 0, "correct": False, "hinted": False, "day": PINNED}], "hints": {}},
               "gone": {"attempts": [{"variant": 0, "correct": False, "hinted": False}], "hints": {}}}
    served = [Served("a", ("skill.x",), False, False), Served("b", ("skill.y",), False, False)]
    assert [i.exercise_id for i in queue(served, records)] == ["a", "b"]


def test_the_form_sends_the_level_chosen_with_the_answer_and_asks_again_for_the_next():
    form = book_widgets.ExerciseForm(EXERCISE_BOOK, CHOICE)
    assert form.answer.sure_labels == ["1 · наугад", "2 · скорее верно", "3 · уверенно"]
    form.answer._on_message(form.answer, {"event": "submit", "value": WRONG_CHOICE, "sure": 3}, [])
    assert "завтра" in form.feedback.value and form.answer.sure == 0
    form.answer.sure = 1
    form.submit(RIGHT_CHOICE)
    form.submit(RIGHT_CHOICE)  # no level chosen this time
    attempts = json.loads(pathlib.Path(os.environ[lasting.ENV]).read_text("utf-8"))["chapters"]["ch27"][CHOICE][
        "attempts"]
    assert [a.get("sure") for a in attempts] == [3, 1, None]


def test_the_teachers_table_has_confidence_shares_and_the_next_due_day(monkeypatch):
    import csv
    import io

    from llm_from_scratch.book.export import export

    on(monkeypatch, 0)
    check(CHOICE, WRONG_CHOICE, sure=3)
    check("bug-hunt", "c", sure=3)
    check("identical-keys", [0.5, 0.5], sure=1)
    out = io.StringIO()
    assert export([pathlib.Path(os.environ[lasting.ENV])], out, io.StringIO()) == 0
    rows = {row["skill"]: row for row in csv.DictReader(io.StringIO(out.getvalue()))}
    softmax = rows["row-softmax"]
    assert (softmax["attempts_with_confidence"], softmax["right_share_guess"], softmax["right_share_probably"],
            softmax["right_share_sure"]) == ("3", "1.000", "", "0.500")
    assert softmax["next_due"] == "2026-01-06" and rows["history"]["next_due"] == ""
    on(monkeypatch, 30)
    out = io.StringIO()
    export([pathlib.Path(os.environ[lasting.ENV])], out, io.StringIO())
    overdue = {row["skill"]: row for row in csv.DictReader(io.StringIO(out.getvalue()))}["row-softmax"]
    assert overdue["next_due"] == "2026-02-04", "an overdue review is due today"


@pytest.fixture(scope="module")
def outputs_on_another_date(tmp_path_factory) -> tuple[list, list, str]:
    """The outputs of 10 as stored; as ``make notebooks`` executes a copy with the clock set to a far date (10's
    review and its summary read the clock); and the day the copy's kernel read, printed by a cell added at its end."""
    import nbformat

    from tools.notebooks import execute

    stored = ROOT / "chapter27" / "10_exercises.ipynb"
    copy = tmp_path_factory.mktemp("far-date") / stored.name
    notebook = nbformat.read(stored, as_version=4)
    notebook.cells.append(nbformat.v4.new_code_cell("from llm_from_scratch.book.clock import today\nprint(today())"))
    nbformat.write(notebook, copy)
    with mock.patch.dict(os.environ, {TODAY_ENV: "2031-07-01"}):
        execute(copy)
    *executed, day = [cell.get("outputs") for cell in nbformat.read(copy, as_version=4).cells]
    return [cell.get("outputs") for cell in nbformat.read(stored, as_version=4).cells], executed, day[0]["text"]


@pytest.mark.slow
def test_a_stored_notebook_executes_on_another_date_to_what_nbval_finds_unchanged(outputs_on_another_date):
    """Under any library versions pyproject allows, as nbval compares (figures by what a reader sees)."""
    stored, executed, day = outputs_on_another_date
    assert day == f"{PINNED}\n" and sanitized(stored) == sanitized(executed)


@pytest.mark.slow
@pytest.mark.skipif(bool(drift(ROOT / LOCK)), reason="byte for byte only with the versions that made the outputs")
def test_a_stored_notebook_executes_on_another_date_to_the_same_bytes(outputs_on_another_date):
    stored, executed, _ = outputs_on_another_date
    assert stored == executed


def test_a_confidence_given_as_a_numpy_integer_is_kept_as_a_number():
    assert check(CHOICE, WRONG_CHOICE, sure=np.int64(3)).readable
    [attempt] = json.loads(pathlib.Path(os.environ[lasting.ENV]).read_text("utf-8"))["chapters"]["ch27"][CHOICE][
        "attempts"]
    assert attempt["sure"] == 3


def test_review_asks_only_what_a_form_in_10_can_ask_alone(monkeypatch):
    """A question that reads its notebook's cells (numbers without variants, a move on the plane, code) is pointed
    back to; a sibling is never a prediction that a move on the plane follows."""
    on(monkeypatch, 0)
    for exercise, answer in (("weights", [0.9, 0.1]), ("bug-hunt", "a"), ("value-gradient", [[1, 0], [0, 1]])):
        assert check(exercise, answer).readable
    followed = {e.after for e in EXERCISE_BOOK.exercises.values() if e.after}
    for exercise in EXERCISE_BOOK.exercises:
        assert stand_in(exercise) not in followed - {exercise}, exercise
    assert stand_in("weights") == "weights", "a question with fresh variants comes back as itself"
    assert EXERCISE_BOOK[stand_in("bug-hunt")].varies, "a choice comes back as a sibling with fresh variants"
    on(monkeypatch, 1)
    said = shown_text(review)
    assert "[form value-gradient]" in said and "[form weights]" in said
    assert said.count("[form identical-keys]") <= 1 or "Новый пример 2" not in said


def test_a_question_without_a_sibling_or_variants_that_reads_its_cells_is_pointed_back_to(monkeypatch):
    on(monkeypatch, 0)
    assert check("temperature-limits", [[1, 0, 0], [0.3, 0.3, 0.3]]).readable
    # as if it had no sibling
    monkeypatch.setattr(EXERCISE_BOOK.review, "stand_in", lambda exercise_id, records, taken=(): exercise_id)
    on(monkeypatch, 1)
    said = shown_text(review)
    assert "вернитесь к нему там" in said and "[form temperature-limits]" not in said


def test_the_text_summary_says_how_often_each_confidence_was_right(monkeypatch):
    on(monkeypatch, 0)
    check(CHOICE, WRONG_CHOICE, sure=3)
    check(CHOICE, RIGHT_CHOICE, sure=3)
    assert "3 · уверенно — верно 1 из 2" in repr(progress()) and "1 · наугад — ответов нет" in repr(progress())


def test_a_plane_prediction_with_no_sibling_left_is_pointed_back_to_the_plane(monkeypatch):
    on(monkeypatch, 0)
    assert check("plane-equal-prediction", "a").readable
    # as if it had no sibling
    monkeypatch.setattr(EXERCISE_BOOK.review, "stand_in", lambda exercise_id, records, taken=(): exercise_id)
    on(monkeypatch, 1)
    said = shown_text(review)
    assert "на плоскости векторов" in said and "[form plane-equal-prediction]" not in said


OPENED: list[str] = []  # the paths opened while a test listens (an audit hook stays for the process)
sys.addaudithook(lambda event, args: OPENED.append(os.fsdecode(args[0]))
                 if event in ("open", "os.rename") and OPENED and isinstance(args[0], (str, bytes, os.PathLike))
                 else None)


def test_review_of_four_items_reads_the_store_once_and_runs_the_head_at_most_once_per_form(monkeypatch):
    """From cleared caches, as in a new kernel: one read of the store under one lock, no write, and each form's
    variant drawn and its head run once, whatever of it the form shows (prompt, answer's form, status)."""
    on(monkeypatch, 0)
    for exercise, answer in (("row-normalization", "a"), ("bug-hunt", "a"), ("why-root-dk", "b"),
                             ("head-width", [1, 1])):
        assert not check(exercise, answer).correct
    on(monkeypatch, 1)
    chapter_evidence.evidence.cache_clear()
    VARIANTS.clear()
    runs, forms = [], []
    real_run, real_show = chapter_evidence.run_head, book_widgets.ExerciseForm.show
    monkeypatch.setattr(chapter_evidence, "run_head", lambda *a, **k: runs.append(1) or real_run(*a, **k))
    monkeypatch.setattr(book_widgets.ExerciseForm, "show", lambda form, snapshot=None: forms.append(form) or
                        real_show(form, snapshot))
    monkeypatch.setattr(book_widgets, "display", lambda *_, **__: None)
    store_file = str(lasting.path())
    OPENED.append("listening")
    try:
        review()
    finally:
        opened = OPENED[1:]
        OPENED.clear()
    assert len(forms) >= 4, "four due, each in a form or pointed back, and practice"
    assert opened.count(store_file) == 1, "one read"
    assert opened.count(store_file + ".lock") == 1, "one lock"
    assert not [p for p in opened if p.startswith(store_file + ".") and p.endswith(".tmp")], "no write"
    assert 0 < len(runs) <= len(forms), (len(runs), len(forms))
