"""Explorers and exercise forms, driven without a browser: numbers, not pixels."""

import math
import re

import numpy as np
import pytest
from support.oracle import head, softmax
from support.records import record

from llm_from_scratch.book.progress import store
from llm_from_scratch.book.widgets import CHANGED_STYLE, CHOICE_CLASS, ExerciseForm, mark_changes
from llm_from_scratch.ch27.examples import worked_arrays
from llm_from_scratch.ch27.exercises import EXERCISE_BOOK
from llm_from_scratch.ch27.strings import text
from llm_from_scratch.ch27.widgets import HeadEditor, ScaleExplorer, WidthExplorer, softmax_jacobian_norm


@pytest.fixture(scope="module")
def scale():
    return ScaleExplorer()


@pytest.mark.slow
@pytest.mark.parametrize("factor", [0.0, 0.35, 1 / math.sqrt(2), 1.0, 2.0])
def test_scale_state_is_softmax_of_the_factor_times_the_scores(scale, factor):
    state = scale.state_for(factor)
    q, k, v = (x[0] for x in worked_arrays())
    expected = softmax(factor * (q @ k.T))
    np.testing.assert_allclose(state.weights, expected, atol=1e-12)
    np.testing.assert_allclose(state.output, expected @ v, atol=1e-12)
    assert state.pair_weight == pytest.approx(math.exp(factor) / (math.exp(factor) + 1), abs=1e-12)


@pytest.mark.slow
def test_scale_sources_figures_at_its_marks(scale):
    assert scale.state_for(1 / math.sqrt(2)).pair_weight == pytest.approx(0.669762, abs=1e-6)
    assert scale.state_for(1.0).pair_weight == pytest.approx(0.731059, abs=1e-6)
    np.testing.assert_allclose(scale.state_for(0.0).weights, 0.5)


@pytest.mark.slow
def test_the_scale_slider_opens_on_the_chapters_weights():
    """Exactly 1/sqrt(d_k) is one of the slider's positions, so the browser cannot snap it to 0.71."""
    explorer = ScaleExplorer()
    assert explorer.slider.value == 1 / math.sqrt(2) and explorer.slider.label == "0.707"
    assert "A_0,: = [0.014166,0.985834]" in explorer.numbers.value
    neighbours = [value for _, value in explorer.slider.options]
    assert neighbours[neighbours.index(1 / math.sqrt(2)) + 1] == 0.75


def test_moving_the_scale_slider_updates_figure_and_numbers(scale):
    before = (scale.figure.value, scale.numbers.value)
    scale.slider.value = 1.5
    assert scale.state.factor == 1.5
    assert scale.figure.value != before[0] and scale.numbers.value != before[1]
    assert "softmax(1.500 · QKᵀ)" in scale.figure.value
    scale.to_one.click()
    assert scale.slider.value == 1.0 and "0.731059" in scale.numbers.value
    scale.to_default.click()
    assert scale.slider.value == 1 / math.sqrt(2) and "0.014166,0.985834" in scale.numbers.value


@pytest.fixture(scope="module")
def width():
    return WidthExplorer()


@pytest.mark.slow
@pytest.mark.parametrize("key_width", [1, 8, 64, 1024])
def test_width_state_follows_the_variance_argument(width, key_width):
    state = width.state_for(key_width)
    assert state.variance_raw == pytest.approx(key_width, rel=0.15)
    assert state.variance_scaled == pytest.approx(1.0, rel=0.15)
    assert state.variance_scaled == pytest.approx(state.variance_raw / key_width, rel=1e-9)
    if key_width >= 8:
        assert state.max_weight_raw > state.max_weight_scaled and state.entropy_raw < state.entropy_scaled
    assert 0 < state.entropy_raw <= math.log(width.tokens) + 1e-12


@pytest.mark.slow
def test_moving_the_width_slider_shows_that_widths_row(width):
    before = width.figure.value
    assert text("widget.width.row_title", key_width=64) in before
    width.slider.value = 1024
    assert width.state.key_width == 1024 and "d_k = 1024" in width.numbers.value
    assert width.figure.value != before and text("widget.width.row_title", key_width=1024) in width.figure.value
    row = width.state
    assert row.row_raw[0] > 0.99 and row.row_scaled[0] < 0.5, "unscaled the row is one-hot, scaled it is not"
    np.testing.assert_allclose([row.row_raw.sum(), row.row_scaled.sum()], 1.0)
    assert list(row.row_raw) == sorted(row.row_raw, reverse=True)


def test_editing_q_k_v_updates_scores_weights_and_outputs():
    editor = HeadEditor()
    editor.fields[("Q", 0, 0)].value = "1"
    editor.fields[("V", 1, 1)].value = "−2"  # a typographic minus reads as one
    q, k, v = worked_arrays()
    q[0, 0, 0], v[0, 1, 1] = 1.0, -2.0
    weights, output = head(q, k, v)
    np.testing.assert_allclose(editor.run.weights, weights, atol=1e-12)
    np.testing.assert_allclose(editor.run.output, output, atol=1e-12)
    np.testing.assert_allclose(editor.run.head.raw_scores.data, q @ np.swapaxes(k, 1, 2))
    editor.reset.click()
    np.testing.assert_array_equal(np.concatenate(editor.current()), np.concatenate(worked_arrays()))


def test_the_editor_shows_no_second_copy_of_its_inputs():
    """The fields are Q, K and V: the trace under them starts at the scores."""
    view = HeadEditor().view.value
    assert text("section.scores") in view and text("section.inputs") not in view


def test_an_edit_marks_the_numbers_it_changed_and_no_other():
    editor = HeadEditor()
    editor.fields[("Q", 0, 0)].value = "1"  # q_0 = (1, 3): its scores go 0, 6 -> 3, 5; q_1's stay 6, -4
    view = editor.view.value
    assert text("widget.editor.changed", count=view.count("<mark")) in view
    raw = view[view.index("QKᵀ"):view.index(text("section.scaled"))]
    q0, q1 = raw.split("q_0</th>")[1].split("q_1</th>")
    assert re.findall(r"<mark[^>]*>([^<]+)</mark>", q0) == ["3", "5"]
    assert "<mark" not in q1
    editor.fields[("Q", 0, 0)].value = "1,0"  # a decimal comma: the same number, so nothing changes
    assert "<mark" not in editor.view.value and text("widget.editor.unchanged") in editor.view.value


def test_marking_compares_numbers_place_by_place_and_gives_up_on_another_layout():
    assert mark_changes("<td>1</td><td>2.5</td>", "<td>1</td><td>3.5</td>") == (
        f'<td>1</td><td><mark style="{CHANGED_STYLE}">3.5</mark></td>', 1)
    assert mark_changes("<p>a 1</p>", "<p>b 2</p>") == ("<p>b 2</p>", 0)


@pytest.mark.parametrize("typed, key", [("abc", "widget.editor.unreadable"), ("  ", "widget.editor.blank"),
                                        ("1 2", "widget.editor.unreadable")])
def test_an_entry_that_is_not_a_number_is_told_beside_its_field(typed, key):
    editor = HeadEditor()
    before = editor.run
    editor.fields[("K", 1, 0)].value = typed
    assert text(key, typed=typed).split(":")[0] in editor.notes[("K", 1, 0)].value
    assert all(not note.value for where, note in editor.notes.items() if where != ("K", 1, 0))
    assert editor.run is before and text("widget.editor.kept") in editor.view.value
    editor.fields[("K", 1, 0)].value = "-1"
    assert not editor.notes[("K", 1, 0)].value and text("widget.editor.kept") not in editor.view.value


def test_the_editor_explains_an_overflow_and_recovers():
    editor = HeadEditor()
    good = editor.shown
    editor.fields[("Q", 0, 0)].value = "1e200"
    assert editor.error is None, "3e200 is still a float64"
    editor.fields[("K", 0, 0)].value = "1e200"  # q_0·k_0 = 1e400 overflows: a forward stage fails
    assert editor.error is not None and editor.error.kind == "stage-failure"
    assert "сбой на этапе «оценки QKᵀ до масштабирования»" in editor.view.value and "Traceback" not in editor.view.value
    editor.fields[("K", 1, 1)].value = "5"  # later edits still answer
    assert "сбой на этапе" in editor.view.value
    editor.reset.click()
    assert editor.error is None and editor.shown == good
    np.testing.assert_array_equal(np.concatenate(editor.current()), np.concatenate(worked_arrays()))


def test_huge_but_finite_numbers_print_in_exponent_form():
    editor = HeadEditor()
    editor.fields[("V", 0, 0)].value = "1e150"
    assert "1.000000e+150" in editor.view.value and "0" * 30 not in editor.view.value


def test_a_form_with_an_answer_cell_below_says_so_and_a_challenges_form_does_not():
    below = ExerciseForm(EXERCISE_BOOK, "output-shape", answer_cell_below=True).static_html()
    assert "Или ответьте кодом: впишите ответ в ячейку ниже" in below
    assert "ответьте кодом" not in ExerciseForm(EXERCISE_BOOK, "plane-equal-prediction").static_html()


def test_the_form_gives_hints_after_an_attempt():
    form = ExerciseForm(EXERCISE_BOOK, "output-shape")
    assert form.hint_button.disabled
    form.answer.value = "[4, 7, 7]"
    form.submit()
    assert not form.hint_button.disabled
    form.hint_button.click()
    assert "Подсказка 1 из 3" in form.hint_text.value and 'role="status"' in form.hint_text.value


def test_exercise_form_wrong_then_right_then_reveal():
    form = ExerciseForm(EXERCISE_BOOK, "output-shape")
    assert form.reveal_button.disabled
    form.answer.value = "[4, 7, 7]"
    form.submit()
    assert "[B, T, T]" in form.feedback.value and "✘" in form.feedback.value
    assert not form.reveal_button.disabled
    form.answer.value = "4 7 5"
    form.submit()
    assert "✔" in form.feedback.value
    form.reveal_button.click()
    assert "Ответ: [4,7,5]." in form.solution.value


def test_choice_form_and_an_unreadable_answer():
    form = ExerciseForm(EXERCISE_BOOK, "future-access")
    assert [value for _, value in form.choices.options] == ["a", "b", "c", "d"]
    assert CHOICE_CLASS in form.choices._dom_classes, "its options may wrap without overlapping"
    assert form.choices.tabbable is False, "the keyboard goes to the answer box, which keeps its keys"
    form.submit()  # nothing chosen yet
    assert "выберите" in form.feedback.value.lower() and form.reveal_button.disabled
    form.choices.value = "d"  # a click on option d
    assert form.answer.value == "d"
    form.submit()
    assert "без маски" in form.feedback.value


def test_the_softmax_jacobian_norm_is_the_frobenius_norm_of_diag_a_minus_aat():
    rows = softmax(np.random.default_rng(3).normal(size=(5, 7)) * 3)
    explicit = [np.linalg.norm(np.diag(a) - np.outer(a, a)) for a in rows]
    np.testing.assert_allclose(softmax_jacobian_norm(rows), explicit, atol=1e-12)
    assert softmax_jacobian_norm(np.eye(4))[0] == 0.0
    assert softmax_jacobian_norm(np.full(16, 1 / 16)) == pytest.approx(math.sqrt(1 / 16 - 1 / 256))


def test_without_the_scale_large_d_k_saturates_rows_and_starves_the_gradient(width):
    small, large = width.state_for(1), width.state_for(1024)
    assert small.jacobian_raw == pytest.approx(small.jacobian_scaled)
    assert large.jacobian_raw < large.jacobian_scaled / 4
    assert "‖diag(a) − aaᵀ‖" in width.numbers_for(large)


NOTEBOOK_COLUMN_PX = 964  # JupyterLab's notebook column at a 1400 px window with the file browser open


def test_the_width_figure_shows_four_panels_and_fits_a_notebook_column(width):
    figure = width.averages
    points = float(re.search(r'<svg[^>]*\swidth="([\d.]+)pt"', figure.svg)[1])
    assert points * 4 / 3 <= NOTEBOOK_COLUMN_PX, f"{points * 4 / 3:.0f} px wide"
    for key in ("var_title", "max_title", "entropy_title", "jacobian_title"):
        title = text(f"widget.width.{key}", tokens=width.tokens, uniform="")
        assert title.split("(")[0].strip() in figure.svg, key
    assert text("widget.width.jacobian_title") in figure.title


def test_a_letter_typed_in_a_choice_box_selects_its_option():
    form = ExerciseForm(EXERCISE_BOOK, "permutation")
    form.answer.value = "Г"
    assert form.choices.value == "d"
    form.answer.value = "x"
    assert form.choices.value is None
    form.answer.value = "d"
    press_enter(form)
    assert "✔" in form.feedback.value


def press_enter(form):
    """What the browser sends when Enter is pressed in the text box: the text it holds."""
    form.answer._handle_custom_msg({"event": "submit", "value": form.answer.value}, [])


def test_the_check_judges_the_text_sent_with_the_click_even_before_the_boxs_value_arrives():
    """The browser sends the box's text with Enter or the click; its value may come later, and then clears
    nothing (the feedback is about that very text)."""
    form = ExerciseForm(EXERCISE_BOOK, "output-shape")
    form.answer.value = "[4, 7"  # the last value the kernel has had, mid-typing
    form.answer._handle_custom_msg({"event": "submit", "value": "[4, 7, 5]"}, [])
    assert "✔" in form.feedback.value
    form.answer.value = "[4, 7, 5]"  # the late value
    assert "✔" in form.feedback.value
    form.answer.value = "[4, 7, 5]0"  # typing on: the feedback goes
    assert form.feedback.value == ""


def test_enter_in_the_answer_box_checks():
    form = ExerciseForm(EXERCISE_BOOK, "output-shape")
    form.answer.value = "4 7 5"
    press_enter(form)
    assert "✔" in form.feedback.value and not form.reveal_button.disabled


def test_feedback_never_stays_beside_a_newer_answer():
    form = ExerciseForm(EXERCISE_BOOK, "output-shape")
    form.answer.value = "4 7 5"
    form.submit()
    assert "✔" in form.feedback.value
    form.answer.value = "4 7 3"
    assert form.feedback.value == ""
    press_enter(form)
    assert "✘" in form.feedback.value and "d_v" in form.feedback.value
    choice = ExerciseForm(EXERCISE_BOOK, "permutation")
    choice.answer.value = "d"
    choice.submit()
    choice.answer.value = "a"
    assert choice.feedback.value == ""


def test_a_form_opens_its_answer_after_an_attempt_made_anywhere():
    record(store(), "ch27", "scores", False)  # in another notebook, or before a kernel restart
    form = ExerciseForm(EXERCISE_BOOK, "scores")
    assert not form.reveal_button.disabled
    form.reveal_button.click()
    assert "Ответ: [[0,6], [6,-4]]." in form.solution.value


def test_a_folded_answer_is_closed_html_with_its_text_whole():
    from llm_from_scratch.book.display import folded_html
    from llm_from_scratch.ch27 import sections
    from llm_from_scratch.ch27.evidence import LearnerEvidence
    from llm_from_scratch.ch27.figures import matrix_figures

    run = LearnerEvidence().worked
    html = folded_html(matrix_figures(run.weights, "weights")[0], sections.softmax_rows(run))
    assert html.startswith('<details class="llm-folded" lang="ru"><summary>') and "<details open" not in html
    assert "0.985834" in html and "<img alt=" in html


def test_the_output_heatmap_names_its_columns_value_features_not_key_positions():
    from llm_from_scratch.ch27.evidence import LearnerEvidence
    from llm_from_scratch.ch27.figures import matrix_figures

    run = LearnerEvidence().worked
    output, weights = matrix_figures(run.output, "output")[0].svg, matrix_figures(run.weights, "weights")[0].svg
    assert text("figure.axis.value_features") in output and text("figure.axis.key_columns") not in output
    assert text("figure.axis.key_columns") in weights


# --- practice: a fresh example in the form, and 10's review from mastery --------------------

def right_shape(n):
    given = EXERCISE_BOOK.variant("output-shape", n)
    return f"{given['query_shape'][0]} {given['query_shape'][1]} {given['value_shape'][2]}"


def test_new_example_puts_the_next_variant_above_the_box_and_judges_on_it():
    form = ExerciseForm(EXERCISE_BOOK, "output-shape")
    form.answer.value = "4 7 5"
    form.submit()
    assert form.new_example() == 1 and form.answer.value == "" and form.feedback.value == ""
    shapes = EXERCISE_BOOK.variant("output-shape", 1)["query_shape"]
    assert "×".join(map(str, shapes)) in form.given.value and "Новый пример 1" in form.given.value
    assert form.reveal_button.disabled and form.hint_button.disabled, "nothing was tried on this example yet"
    form.answer.value = "4 7 5"  # variant 0's answer is no longer right
    form.submit()
    assert "✘" in form.feedback.value and not form.reveal_button.disabled
    form.answer.value = right_shape(1)
    form.submit()
    assert "✔" in form.feedback.value and EXERCISE_BOOK.attempted("output-shape", 1)
    assert form.new_example() == 2
    assert ExerciseForm(EXERCISE_BOOK, "permutation").new_button is None, "a question without variants has none"


def review_text(monkeypatch):
    """What review() displays, its HTML parts joined."""
    from llm_from_scratch.book import widgets as book_widgets
    from llm_from_scratch.ch27.exercises import review

    shown = []
    monkeypatch.setattr(book_widgets, "display", shown.append)
    review()
    return " ".join(part.data for part in shown if hasattr(part, "data"))


def test_the_review_offers_exactly_the_skills_not_mastered(tmp_path, monkeypatch):
    import json

    from llm_from_scratch.book import progress as lasting

    def counted(n):
        return {"variant": n, "correct": True, "hinted": False}

    prepared = {"format": lasting.FORMAT, "version": 3, "learner": {"id": "stored-notebooks", "name": ""},
                "chapters": {"ch27": {"output-shape": {"attempts": [counted(1), counted(2)], "hints": {}},
                                      "recurrent-vs-self": {"attempts": [counted(0)], "hints": {}}}}}
    store = tmp_path / "progress.json"
    store.write_text(json.dumps(prepared))
    monkeypatch.setenv(lasting.ENV, str(store))
    shown = review_text(monkeypatch)
    names = {m.skill: text(m.skill) for m in EXERCISE_BOOK.mastery().values()}
    offered = {skill for skill, name in names.items() if f"«{name}»" in shown}
    assert offered == set(names) - {"skill.shapes", "skill.history"}
    assert "Новый пример 1" in shown and "форма выхода" not in shown


def test_a_learner_who_mastered_everything_is_told_so(monkeypatch):
    everything = {m.skill: m for m in EXERCISE_BOOK.mastery().values()}
    from llm_from_scratch.book import review

    monkeypatch.setattr(review, "mastery", lambda served, records: {
        s: type(m)(**{**m.__dict__, "mastered": True}) for s, m in everything.items()})
    assert text("review.all_mastered") in review_text(monkeypatch)


def test_the_review_offers_its_own_questions_once_met_and_no_form_twice(tmp_path, monkeypatch):
    """head-width is 10's own: offered as practice only once attempted (its prompt would stand above the prose
    that introduces d_model and h); no exercise is offered twice."""
    from llm_from_scratch.book import progress as lasting

    monkeypatch.setenv(lasting.ENV, str(tmp_path / "progress.json"))
    form = text("widget.exercise.repr", title=EXERCISE_BOOK.title("head-width"))
    shown = review_text(monkeypatch)
    assert form not in shown
    titles = [EXERCISE_BOOK.title(e) for e in EXERCISE_BOOK.exercises]
    assert all(shown.count(text("widget.exercise.repr", title=t)) <= 1 for t in titles)
    def practice_for(skills, taken):
        return EXERCISE_BOOK.review.practice_for(skills, EXERCISE_BOOK.records(), taken)

    scaling = ["skill.scaling"]  # weights-by-hand and head-width serve it; weights-by-hand taken by review
    assert practice_for(scaling, taken={"weights-by-hand"}) == {"skill.scaling": "weights-by-hand"}
    EXERCISE_BOOK.check("head-width", [1, 1])
    assert practice_for(scaling, taken={"weights-by-hand"}) == {"skill.scaling": "head-width"}


def test_a_slider_set_from_code_off_its_steps_says_so_in_the_learners_language_and_stays():
    from llm_from_scratch.book.widgets import Slider

    shown = []
    slider = Slider([0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0], 1.0, "scale")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("llm_from_scratch.book.widgets.display", lambda html: shown.append(html.data))
        slider.value = 0.7
        slider.index = 99
    assert (slider.value, slider.index) == (1.0, 2)
    assert "0.7 нет среди делений этого ползунка (0.0, 0.5, 1.0, …, 3.0): он остаётся на 1.0." in shown[0]
    assert "У этого ползунка нет деления с номером 99; он остаётся на 1.0." in shown[1] and len(shown) == 2
    slider.value = 2.5
    assert slider.index == 5


@pytest.mark.parametrize("lang, note", [("ru", "Нужно работающее ядро"), ("en", "Needs a running kernel")])
def test_a_widgets_plain_text_says_it_needs_a_kernel_before_ipywidgets_cuts_it(lang, note):
    """ipywidgets cuts a widget's plain text at 110 characters: the note comes first, so it is never cut off."""
    from llm_from_scratch.book.text import BOOK_STRINGS
    from llm_from_scratch.ch27.strings import STRINGS

    reprs = {key: catalogue.text_in(lang, key, title="the first query's weights" * 2)
             for catalogue in (BOOK_STRINGS, STRINGS) for key in catalogue.strings[lang] if key.endswith(".repr")}
    assert len(reprs) >= 6
    assert all(said[:110].startswith(note) for said in reprs.values()), reprs
