"""Chapter 27's worked example, computed by its evidence, against the source's figures to 1e-6."""

import numpy as np
import pytest

from llm_from_scratch.ch27.evidence import gradcheck_head, run_head
from llm_from_scratch.ch27.examples import worked_arrays
from llm_from_scratch.engine.closed_form import closed_form_backward

# The source's figures (ch27-self-attention.ru.txt), to six decimals.
SOURCE = {
    "raw": [[0, 6], [6, -4]],
    "scaled": [[0, 4.242641], [4.242641, -2.828427]],
    "weights": [[0.014166, 0.985834], [0.999151, 0.000849]],
    "output": [[1.028332, 2.915004], [2.998303, -2.994908]],
    "terms": [[[0.042498, -0.042498], [0.985834, 2.957502]], [[2.997454, -2.997454], [0.000849, 0.002546]]],
    "grad_query": [[0.079000, -0.039500], [-0.014389, 0.007195]],
    "grad_key": [[-0.007195, 0.062847], [0.007195, -0.062847]],
    "grad_value": [[0.014166, 0.999151], [0.985834, 0.000849]],
}


@pytest.fixture(scope="module")
def worked():
    return run_head(*worked_arrays(), upstream=np.eye(2)[None])


def close(actual, expected):
    np.testing.assert_allclose(np.asarray(actual)[0], expected, atol=1e-6, rtol=0)


def test_worked_example_forward_matches_the_source(worked):
    head = worked.head
    close(head.raw_scores.data, SOURCE["raw"])
    close(head.dot_products.data, SOURCE["raw"])
    close(head.scaled_scores.data, SOURCE["scaled"])
    close(head.weights.data, SOURCE["weights"])
    close(head.probabilities.data, SOURCE["weights"])
    close(head.output.data, SOURCE["output"])
    close(worked.weighted_terms, SOURCE["terms"])
    assert head.scale == pytest.approx(0.707107, abs=1e-6)
    assert (head.key_width, head.value_width) == (2, 2)


def test_worked_example_backward_matches_the_source(worked):
    assert worked.loss == pytest.approx(-1.966576, abs=1e-6)
    close(worked.grad_query, SOURCE["grad_query"])
    close(worked.grad_key, SOURCE["grad_key"])
    close(worked.grad_value, SOURCE["grad_value"])


def test_closed_form_and_central_differences_agree_with_autodiff(worked):
    for autodiff, closed in zip((worked.grad_query, worked.grad_key, worked.grad_value),
                                closed_form_backward(worked.query, worked.key, worked.value, worked.upstream)):
        np.testing.assert_allclose(autodiff, closed, atol=1e-12)
    report = gradcheck_head(worked)
    assert report.passed and len(report.coordinates) == 12 and report.tolerance == 2e-6
