"""One vocabulary of the head's stages (ch27/stages.py): keyed by the engine's STAGES, and every part of the chapter
that names a stage or a step (figures, given values, sections, the mistake library, the code slips) names it from
the table, so a new step is added once."""

import re
from pathlib import Path

from llm_from_scratch.book.slips import ANSWER, WRITTEN
from llm_from_scratch.ch27 import code_slips, figures, mistakes
from llm_from_scratch.ch27.evidence import evidence
from llm_from_scratch.ch27.given import of_run
from llm_from_scratch.ch27.stages import BACKWARD, BY_CELL, BY_NAME, FORWARD, HANDING_IN, STEPS
from llm_from_scratch.ch27.strings import STRINGS
from llm_from_scratch.engine.attention import STAGES

BOOK_STEPS = {ANSWER, WRITTEN}
EXERCISES = Path(mistakes.__file__).parent / "exercises"


def _libraries():
    return [value for name, value in vars(mistakes).items() if name.endswith("_MISTAKES")]


def test_the_forward_stages_are_the_engines_in_order_and_every_name_is_one_stage_or_step():
    assert tuple(stage.name for stage in FORWARD) == tuple(STAGES)
    names = [stage.name for stage in (*FORWARD, *BACKWARD)]
    assert len(set(names)) == len(names) and len(set(STEPS)) == len(STEPS), "a name means one stage, a step one step"
    assert not set(HANDING_IN) & set(STEPS)


def test_every_step_a_slip_changes_is_a_step_of_the_table():
    steps = set(STEPS) | set(HANDING_IN) | BOOK_STEPS
    for library in _libraries():
        for slip in library:
            assert set(slip.steps) <= steps, (slip.id, set(slip.steps) - steps)
    for search in (code_slips.HEAD_SEARCH, code_slips.BACKWARD_SEARCH):
        assert set(search.right) <= steps, set(search.right) - steps  # the slips' steps are the right ones'
    assert mistakes.MAKING == tuple(step for step in STEPS if step in mistakes.MAKING), "in the order the head takes"
    computed = set(mistakes.MAKING) | set(HANDING_IN)  # the steps Asked computes: a stage's step it does not is
    for slip in mistakes.HEAD_MISTAKES:  # refused, never taken for the right answer
        assert set(slip.steps) <= computed, (slip.id, set(slip.steps) - computed)


def test_every_stage_an_exercise_asks_or_a_slip_hands_in_is_a_stage_of_the_table():
    exponentials = {"exp-raw-scores", "exp-scaled-scores"}  # a stage's scores exponentiated, handed in for them
    for confusion in mistakes.CONFUSIONS.values():
        for asked, given in confusion.items():
            assert asked in BY_NAME and set(given) <= set(BY_NAME) | exponentials, (asked, given)
    source = "".join(path.read_text(encoding="utf-8") for path in EXERCISES.glob("*.py"))
    asked = re.findall(r"Asked\([^)]*?\"([a-z-]+)\"", source)
    assert asked and set(asked) <= set(BY_NAME), asked


def test_figures_given_values_and_sections_read_their_names_from_the_table():
    for stage in (*FORWARD, *BACKWARD):
        if stage.role:
            assert stage.role in figures.ROLES and figures.role_named(stage.name) == stage.role
        if stage.words:
            assert all(stage.words in STRINGS.strings[lang] for lang in STRINGS.strings)
    assert figures.role_named("scores") == "raw-scores" and figures.role_named("scaled") == "scaled-scores"
    assert set(BY_CELL) <= set(of_run(evidence().worked))
