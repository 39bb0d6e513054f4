"""The chapter's evidence, and the text report that prints it."""

import subprocess
import sys

import numpy as np
import pytest

from llm_from_scratch.ch27.evidence import LearnerEvidence, history
from llm_from_scratch.ch27.sections import offending, render_report


@pytest.fixture(scope="module")
def evidence():
    return LearnerEvidence()


def test_edge_cases(evidence):
    single = evidence.single_token
    np.testing.assert_array_equal(single.weights, [[[1.0]]])
    np.testing.assert_array_equal(single.output, [[[5.0, -2.0]]])
    assert not single.grad_query.any() and not single.grad_key.any()
    np.testing.assert_allclose(evidence.identical_keys.weights, 0.5, atol=1e-15)
    assert evidence.permutation.max_difference < 1e-12
    assert evidence.batch.independent and evidence.batch.together.query.shape == (2, 2, 2)
    assert (evidence.empty_batch.weights_shape, evidence.empty_batch.output_shape) == ((0, 2, 2), (0, 2, 3))
    assert evidence.narrow_values.output_shape == (1, 2, 1)
    assert evidence.replay_bitwise


def test_rejected_inputs_are_the_sources_five_and_three_more(evidence):
    found = [(r.error.kind, offending(r.error)) for r in evidence.rejected]
    assert found == [
        ("input-rank", "operand=query|rank=2"),
        ("batch-mismatch", "query=1|key=2|value=1"),
        ("token-mismatch", "query=2|key=3|value=2"),
        ("empty-token-axis", "tokens=0"),
        ("query-key-width-mismatch", "query=2|key=3"),
        ("empty-feature-width", "operand=value|width=0"),
        ("non-finite-input", "operand=query|index=[0, 1, 0]|value=nan"),
        ("stage-failure", "stage=raw-scores"),
    ]


def test_history_pairs_queries_and_keys_as_the_source_says():
    h = history()
    assert h.queries_and_keys_from_different_sequences and h.queries_and_keys_from_one_sequence
    assert h.encoder_decoder[1] == ("decoder-state-0", "encoder-annotation-1")
    assert len(h.self_attention) == 4
    assert h.stages == ("recurrent-fixed-context", "additive-encoder-decoder-alignment",
                        "scaled-dot-product-self-attention")


def test_report_carries_the_sources_figures():
    report = render_report()
    for figure in ["0.000000   6.000000", "4.242641  -2.828427", "0.707107",
                   "A_0,: = [0.014166,0.985834]", "A_1,: = [0.999151,0.000849]",
                   "[0.042498,-0.042498] + [0.985834,2.957502]", "o_0 = [1.028332,2.915004]",
                   "[2.997454,-2.997454] + [0.000849,0.002546]", "o_1 = [2.998303,-2.994908]",
                   "Q̄ = [0.079000,-0.039500,-0.014389,0.007195]",
                   "K̄ = [-0.007195,0.062847,0.007195,-0.062847]",
                   "V̄ = [0.014166,0.999151,0.985834,0.000849]", "L = ⟨O, Ō⟩ = -1.966576",
                   "4+4+4", "0.731059", "0.669762", "A = [1.000000]", "O = [5.000000,-2.000000]",
                   "Q, K, V = [2,2,2]", "A = [2,2,2]", "O = [2,2,2]", "V [0,2,3] → A [0,2,2], O [0,2,3]",
                   "V [1,2,1] → A [1,2,2], O [1,2,1]", "побитово совпадает", "пройдена"]:
        assert figure in report, figure
    rejected = report.split("Отклонённые входы")[1].split("\n\n")[0]
    kinds = [line.split(": ")[1] for line in rejected.splitlines() if line.startswith("вид ошибки: ")]
    assert kinds == [r.error.kind for r in LearnerEvidence().rejected]
    assert "Этап: оценки QKᵀ до масштабирования." in rejected, "a failed stage is named in the learner's language"
    assert report.count("побитово совпадает") == 1, "each fact is stated once"
    assert "-0.000000" not in report


def test_report_is_byte_identical_from_run_to_run_and_runs_as_a_module():
    runs = [subprocess.run([sys.executable, "-m", "llm_from_scratch.ch27"], capture_output=True, check=True).stdout
            for _ in range(2)]
    assert runs[0] == runs[1] == render_report().encode()


def test_a_contribution_is_the_weight_times_the_length_of_its_value_row(evidence):
    from llm_from_scratch.book.sections import to_text
    from llm_from_scratch.ch27.sections import contributions

    run = evidence.identical_keys  # equal weights 0.5, value rows of different lengths
    section = to_text(contributions(run))
    lengths = np.linalg.norm(run.value[0], axis=1)
    assert f"{0.5 * lengths[0]:.6f}" in section and f"{0.5 * lengths[1]:.6f}" in section
    assert lengths[0] != lengths[1], "equal weights, unequal contributions"
