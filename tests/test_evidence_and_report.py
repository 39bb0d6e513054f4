"""The chapter's evidence, and the text report that prints it."""

import inspect
import itertools
import re
import subprocess
import sys

import numpy as np
import pytest

from llm_from_scratch.book.text import LANGUAGES, set_language
from llm_from_scratch.ch27.evidence import LearnerEvidence, attention_history
from llm_from_scratch.ch27.sections import REFUSALS, offending, render_report
from llm_from_scratch.engine import attention
from llm_from_scratch.engine.attention import SelfAttentionError


@pytest.fixture(scope="module")
def evidence():
    return LearnerEvidence()


def test_edge_cases(evidence):
    single = evidence.single_token
    np.testing.assert_array_equal(single.weights, [[[1.0]]])
    np.testing.assert_array_equal(single.output, [[[5.0, -2.0]]])
    assert not single.grad_query.any() and not single.grad_key.any()
    np.testing.assert_allclose(evidence.identical_keys.weights, 0.5, atol=1e-15)
    assert evidence.fixed.permutation.max_difference < 1e-12
    assert evidence.fixed.batch.independent and evidence.fixed.batch.together.query.shape == (2, 2, 2)
    assert (evidence.fixed.empty_batch.weights_shape, evidence.fixed.empty_batch.output_shape) == ((0, 2, 2), (0, 2, 3))
    assert evidence.fixed.narrow_values.output_shape == (1, 2, 1)
    assert evidence.replay_bitwise


def test_rejected_inputs_are_the_sources_five_and_three_more(evidence):
    found = [(r.error.kind, offending(r.error)) for r in evidence.fixed.rejected]
    assert found == [
        ("input-rank", "у запросов ранг 2"),
        ("batch-mismatch", "размер пакета у запросов 1, у ключей 2, у значений 1"),
        ("token-mismatch", "число токенов: у запросов 2, у ключей 3, у значений 2"),
        ("empty-token-axis", "число токенов — 0"),
        ("query-key-width-mismatch", "ширина d_k у запросов 2, у ключей 3"),
        ("empty-feature-width", "у значений ширина признаков 0"),
        ("non-finite-input", "у запросов элемент [0, 1, 0] — NaN"),
        ("stage-failure", "сбой на этапе «оценки QKᵀ до масштабирования»"),
    ]


def _refusals() -> list[SelfAttentionError]:
    """One refusal of every kind the head raises (the evidence's), a failed stage for every stage, and every
    non-finite number, each in every operand."""
    refusals = [r.error for r in LearnerEvidence().fixed.rejected]
    refusals += [SelfAttentionError("stage-failure", "", stage=stage) for stage in attention.STAGES]
    for name, bad in itertools.product(attention.INPUT_NAMES, (np.nan, np.inf, -np.inf)):
        inputs = [np.ones((1, 2, 2)) for _ in attention.INPUT_NAMES]
        inputs[attention.INPUT_NAMES.index(name)][0, 1, 0] = bad
        with pytest.raises(SelfAttentionError) as refused:
            attention.scaled_dot_product_self_attention(*inputs)
        refusals.append(refused.value)
    return refusals


def test_the_evidence_refuses_every_kind_the_engine_raises():
    """The engine's kinds are its hyphenated string literals other than its stage names."""
    raised = set(re.findall(r'"([a-z]+(?:-[a-z]+)+)"', inspect.getsource(attention))) - set(attention.STAGES)
    assert raised == set(REFUSALS) == {error.kind for error in _refusals()}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_refusal_says_what_was_wrong_in_words(lang):
    set_language(lang)
    for error in _refusals():
        said = offending(error)
        assert not re.search(r"[=|]|\w-\w|\b(?:query|key|value|operand|stage|nan|inf)\b", said), said
        assert bool(re.search("[а-яё]", said)) == (lang == "ru"), said
        assert all(str(value) in said for value in error.details.values() if isinstance(value, (int, list))), said


def test_history_pairs_queries_and_keys_as_the_source_says():
    h = attention_history()
    assert h.queries_and_keys_from_different_sequences and h.queries_and_keys_from_one_sequence
    assert h.encoder_decoder[1] == ("decoder-state-0", "encoder-annotation-1")
    assert len(h.self_attention) == 4
    assert h.stages == ("recurrent-fixed-context", "additive-encoder-decoder-alignment",
                        "scaled-dot-product-self-attention")


def test_report_carries_the_sources_figures():
    report = render_report()
    for figure in ["q_0    0    6", "4.242641  -2.828427", "0.707107",
                   "A_0,: = [0.014166,0.985834]", "A_1,: = [0.999151,0.000849]",
                   "[0.042498,-0.042498] + [0.985834,2.957502]", "o_0 = [1.028332,2.915004]",
                   "[2.997454,-2.997454] + [0.000849,0.002546]", "o_1 = [2.998303,-2.994908]",
                   "Q̄ = [[0.079000,-0.039500], [-0.014389,0.007195]]",
                   "K̄ = [[-0.007195,0.062847], [0.007195,-0.062847]]",
                   "V̄ = [[0.014166,0.999151], [0.985834,0.000849]]", "L = ⟨O, Ō⟩ = -1.966576",
                   "4+4+4", "0.731059", "0.669762", "A = [1]", "O = [5,-2]",
                   "Q, K, V = [2,2,2]", "A = [2,2,2]", "O = [2,2,2]", "V [0,2,3] → A [0,2,2], O [0,2,3]",
                   "V [1,2,1] → A [1,2,2], O [1,2,1]", "побитово совпадает", "пройдена"]:
        assert figure in report, figure
    rejected = report.split("Отклонённые входы")[1].split("\n\n")[0]
    kinds = [line.split(": ")[1] for line in rejected.splitlines() if line.startswith("код ошибки: ")]
    assert kinds == [r.error.kind for r in LearnerEvidence().fixed.rejected]
    assert "сбой на этапе «оценки QKᵀ до масштабирования»" in rejected, "a failed stage is named in the learner's words"
    assert report.count("побитово совпадает") == 1, "each fact is stated once"
    assert "-0.000000" not in report


@pytest.mark.slow  # runs the report as a module in a second Python: about 2 s
def test_report_is_byte_identical_from_run_to_run_and_runs_as_a_module():
    runs = [subprocess.run([sys.executable, "-m", "llm_from_scratch.ch27"], capture_output=True, check=True).stdout
            for _ in range(2)]
    assert runs[0] == runs[1] == render_report().encode()


def test_a_contribution_is_the_weight_times_the_length_of_its_value_row(evidence):
    from llm_from_scratch.book.blocks import to_text
    from llm_from_scratch.ch27.sections import contributions

    run = evidence.identical_keys  # equal weights 0.5, value rows of different lengths
    section = to_text(contributions(run.head.weights, run.value))
    lengths = np.linalg.norm(run.value[0], axis=1)
    assert f"{0.5 * lengths[0]:.6f}" in section and f"{0.5 * lengths[1]:.6f}" in section
    assert lengths[0] != lengths[1], "equal weights, unequal contributions"
