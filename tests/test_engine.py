"""The Tensor and its primitives: forward values, backward rules, refusals."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from llm_from_scratch import Tensor
from llm_from_scratch.engine import functions as F
from llm_from_scratch.engine.gradcheck import check_gradients


def test_tensor_is_float64_and_copies_nothing_it_need_not():
    data = np.arange(6.0).reshape(2, 3)[:, ::2]  # a float64 view: wrapped as it is
    t = Tensor(data)
    assert t.data is data and t.shape == (2, 2) and t.grad is None
    for other in (np.arange(4, dtype=np.int32), np.arange(4, dtype=np.float32), np.ones(4, dtype=bool)):
        converted = Tensor(other).data
        assert converted.dtype == np.float64 and not np.shares_memory(converted, other)
        np.testing.assert_array_equal(converted, other)
    assert Tensor([[1, 2], [3, 4]]).data.dtype == np.float64


@pytest.mark.parametrize(
    "bad, error, words",
    [
        ("abc", TypeError, "text"),
        ([["a", "b"]], TypeError, "real numbers"),
        ([1 + 2j], TypeError, "complex"),
        ([object()], TypeError, "real numbers"),
        ([[1, 2], [3]], ValueError, "rectangular"),
        (None, TypeError, "real numbers"),
    ],
)
def test_non_numeric_input_is_refused_with_a_clear_message(bad, error, words):
    with pytest.raises(error, match=words):
        Tensor(bad)


def test_gradients_accumulate_across_backward_calls():
    x = Tensor([1.0, 2.0], requires_grad=True)
    F.reduce_sum(F.mul(x, 3.0)).backward()
    F.reduce_sum(F.mul(x, 3.0)).backward()
    np.testing.assert_array_equal(x.grad, [6.0, 6.0])


def test_a_tensor_used_twice_receives_both_gradients():
    x = Tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    F.reduce_sum(F.matmul(x, x)).backward()
    expected = np.ones((2, 2)) @ x.data.T + x.data.T @ np.ones((2, 2))
    np.testing.assert_allclose(x.grad, expected)


def test_backward_refuses_a_wrong_upstream_shape():
    x = Tensor(np.ones((2, 3)), requires_grad=True)
    with pytest.raises(ValueError, match=r"upstream gradient has shape \[3, 2\]"):
        F.exp(x).backward(np.ones((3, 2)))


def test_backward_does_not_write_into_the_callers_upstream():
    x = Tensor(np.ones((2, 2)), requires_grad=True)
    upstream = np.full((2, 2), 2.0)
    F.exp(x).backward(upstream)
    np.testing.assert_array_equal(upstream, np.full((2, 2), 2.0))


def test_matmul_reports_mismatched_inner_sizes():
    with pytest.raises(ValueError, match="inner sizes differ"):
        F.matmul(Tensor(np.ones((1, 2, 3))), Tensor(np.ones((1, 2, 3))))


def test_log_softmax_is_stable_for_huge_scores():
    out = F.log_softmax(Tensor([[1e300, 0.0, -1e300]]), axis=1).data
    assert np.isfinite(out[0, :2]).all()
    np.testing.assert_allclose(np.exp(out).sum(), 1.0)


def test_add_broadcasts_and_refuses_shapes_that_do_not():
    a = Tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    b = Tensor([[1.0, 2.0, 3.0]], requires_grad=True)
    np.testing.assert_array_equal(F.add(a, b).data, a.data + b.data)
    np.testing.assert_array_equal(F.add(a, 1.5).data, a.data + 1.5)
    F.reduce_sum(F.add(a, b)).backward()
    np.testing.assert_array_equal(a.grad, np.ones((2, 3)))
    np.testing.assert_array_equal(b.grad, [[2.0, 2.0, 2.0]])
    with pytest.raises(ValueError, match=r"add operands do not broadcast: \[2, 3\] \+ \[2\]"):
        F.add(a, Tensor([1.0, 2.0]))


def test_mul_unbroadcasts_to_each_operand():
    a = Tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    b = Tensor([[1.0, 2.0, 3.0]], requires_grad=True)
    F.reduce_sum(F.mul(a, b)).backward()
    np.testing.assert_array_equal(a.grad, np.broadcast_to(b.data, (2, 3)))
    np.testing.assert_array_equal(b.grad, a.data.sum(axis=0, keepdims=True))


def _check(build, *inputs):
    """Compare every primitive-built gradient with central differences for L = sum(out * w)."""
    rng = np.random.default_rng(0)
    tensors = [Tensor(x, requires_grad=True) for x in inputs]
    out = build(*tensors)
    weights = rng.normal(size=out.shape)
    out.backward(weights)

    def loss(xs):
        return float(np.sum(build(*(Tensor(x) for x in xs)).data * weights))

    names = [f"x{i}" for i in range(len(inputs))]
    report = check_gradients(loss, [t.data for t in tensors], [t.grad for t in tensors], names, tolerance=1e-5)
    assert report.passed, report.max_error


small = st.floats(-3, 3, allow_nan=False)


@settings(max_examples=25, deadline=None)
@given(arrays(np.float64, (2, 3, 4), elements=small), arrays(np.float64, (2, 4, 2), elements=small))
def test_matmul_gradient_matches_central_differences(a, b):
    _check(F.matmul, a, b)


@settings(max_examples=25, deadline=None)
@given(arrays(np.float64, (2, 3, 4), elements=small))
def test_transpose_exp_sum_gradients_match_central_differences(x):
    _check(lambda t: F.exp(F.transpose(t, 1, 2)), x)
    _check(lambda t: F.reduce_sum(t, axis=1), x)


@settings(max_examples=25, deadline=None)
@given(arrays(np.float64, (3, 4), elements=small), arrays(np.float64, (1, 4), elements=small))
def test_add_mul_and_log_softmax_gradients_match_central_differences(a, b):
    _check(F.add, a, b)
    _check(F.mul, a, b)
    _check(lambda t: F.log_softmax(t, axis=1), a)
    _check(lambda t: F.log_softmax(t, axis=0), a)


def test_log_softmax_along_a_middle_axis_and_its_gradient():
    rng = np.random.default_rng(3)
    x = Tensor(rng.standard_normal((3, 5, 4)), requires_grad=True)
    out = F.log_softmax(x, axis=1)
    np.testing.assert_allclose(np.exp(out.data).sum(axis=1), 1.0)
    upstream = rng.standard_normal((3, 5, 4))
    out.backward(upstream)
    softmax = np.exp(out.data)
    np.testing.assert_allclose(x.grad, upstream - softmax * upstream.sum(axis=1, keepdims=True), rtol=1e-12)


def test_each_operator_and_method_is_a_primitive_or_a_step_composed_of_them():
    aliases = {"__matmul__": F.matmul, "matmul": F.matmul, "__rmatmul__": F.rmatmul, "__add__": F.add,
               "__radd__": F.add, "add": F.add, "__mul__": F.mul, "__rmul__": F.mul, "mul": F.mul, "__neg__": F.neg,
               "__sub__": F.sub, "__rsub__": F.rsub, "__truediv__": F.div, "__rtruediv__": F.rdiv,
               "__pow__": F.power, "__getitem__": F.index, "transpose": F.transpose, "exp": F.exp,
               "log_softmax": F.log_softmax, "softmax": F.softmax, "sum": F.reduce_sum}
    assert {name: getattr(Tensor, name) for name in aliases} == aliases
    assert Tensor.mT.fget is F.last_two_swapped


def test_the_worked_example_written_as_its_formula_gives_the_sources_numbers():
    q = Tensor([[[0, 3], [2, -1]]], requires_grad=True)
    k = Tensor([[[3, 0], [-1, 2]]], requires_grad=True)
    v = Tensor([[[3, -3], [1, 3]]], requires_grad=True)
    scores = q @ k.transpose(1, 2)
    scaled = scores / np.sqrt(2)
    weights = scaled.softmax(2)
    output = weights @ v
    np.testing.assert_array_equal(scores.data, [[[0, 6], [6, -4]]])
    np.testing.assert_allclose(scaled.data, [[[0, 4.242641], [4.242641, -2.828427]]], atol=1e-6)
    np.testing.assert_allclose(weights.data, [[[0.014166, 0.985834], [0.999151, 0.000849]]], atol=1e-6)
    np.testing.assert_allclose(output.data, [[[1.028332, 2.915004], [2.998303, -2.994908]]], atol=1e-6)
    assert [t.op for t in (scores, scaled, weights, output)] == ["matmul", "div", "softmax", "matmul"]


def test_the_graph_is_recorded_with_no_input_requiring_a_gradient():
    """02's cells on plain Tensors: O and A read back to Q, K and V, with the softmax's axis and the divisor."""
    Q, K, V = Tensor([[[0, 3], [2, -1]]]), Tensor([[[3, 0], [-1, 2]]]), Tensor([[[3, -3], [1, 3]]])
    scores = Q @ K.transpose(1, 2)
    S = scores / math.sqrt(2)
    A = S.softmax(2)
    output = A @ V
    assert output.op == "matmul" and output.inputs == (A, V)
    assert A.op == "softmax" and A.params == {"axis": 2} and A.inputs == (S,)
    assert S.op == "div" and S.params == {"divisor": math.sqrt(2)} and S.inputs == (scores,)
    assert scores.op == "matmul" and scores.inputs[0] is Q
    transposed = scores.inputs[1]
    assert transposed.op == "transpose" and transposed.params == {"axes": (1, 2)} and transposed.inputs == (K,)
    assert all(t.inputs == () and t.op == "input" for t in (Q, K, V))
    assert not any(t.requires_grad or t.parents for t in (scores, transposed, S, A, output)), "nothing to differentiate"
    by_factor = scores * (1 / math.sqrt(2))
    assert by_factor.op == "mul" and by_factor.inputs[1].data == 1 / math.sqrt(2), "a factor is an input of mul"


def test_operators_with_numbers_and_arrays_on_either_side():
    x = Tensor([[1.0, -2.0]], requires_grad=True)
    for result, expected in ((x + 1, [[2, -1]]), (1 + x, [[2, -1]]), (x - 1, [[0, -3]]), (1 - x, [[0, 3]]),
                             (2 * x, [[2, -4]]), (x * 2, [[2, -4]]), (x / 2, [[0.5, -1]]), (-x, [[-1, 2]]),
                             (np.eye(1) @ x, [[1, -2]]), (x @ np.ones((2, 1)), [[-1]])):
        assert isinstance(result, Tensor) and result.requires_grad
        np.testing.assert_array_equal(result.data, expected)
    (x - 3 * x).sum().backward()
    np.testing.assert_array_equal(x.grad, [[-2, -2]])


@pytest.mark.parametrize("divisor, error", [("2", TypeError), (0, ZeroDivisionError), (np.ones(3), ValueError)])
def test_a_tensor_is_not_divided_by_text_by_0_or_by_an_array_it_does_not_broadcast_with(divisor, error):
    with pytest.raises(error, match="numbers, got text|divided by 0|div operands do not broadcast"):
        Tensor([1.0, 2.0]) / divisor


@settings(max_examples=25, deadline=None)
@given(arrays(np.float64, (2, 3, 4), elements=small), arrays(np.float64, (2, 3, 1), elements=st.floats(0.5, 3)))
def test_the_operators_a_learner_reaches_for_match_numpy_and_central_differences(x, positive):
    """Indexing and slices, .mT, ** by a number, / by a tensor with broadcasting, a number divided by a tensor."""
    t, p = Tensor(x), Tensor(positive)
    for got, numpy_gives in ((t[0, 1], x[0, 1]), (t[:, 1:, ::2], x[:, 1:, ::2]), (t[[0, 0, 1]], x[[0, 0, 1]]),
                             (t.mT, np.swapaxes(x, -1, -2)), (t ** 2, x ** 2), (p ** -0.5, positive ** -0.5),
                             (t / p, x / positive), (2 / p, 2 / positive), (x / p, x / positive)):
        assert isinstance(got, Tensor)
        np.testing.assert_allclose(got.data, numpy_gives, rtol=1e-12)
    _check(lambda a: a[0, 1], x)
    _check(lambda a: a[[0, 0, 1], 1:], x)  # an entry taken twice gets both gradients
    _check(lambda a: a.mT, x)
    _check(lambda a: a ** 3, x)
    _check(lambda a: a ** -1.5, positive)
    _check(lambda a, b: a / b, x, positive)
    _check(lambda b: 2 / b, positive)


def test_a_softmax_written_by_hand_is_the_engines_and_is_recorded_as_a_division():
    S = Tensor([[[0.0, 6.0], [6.0, -4.0]]], requires_grad=True)
    e = S.exp()
    by_hand = e / e.sum(2, keepdims=True)
    np.testing.assert_allclose(by_hand.data, S.softmax(2).data, rtol=1e-12)
    assert by_hand.op == "div" and by_hand.params == {} and by_hand.inputs[0] is e
    assert (S / 2).params == {"divisor": 2.0}


@pytest.mark.parametrize("build, error", [(lambda t: t ** Tensor([2.0]), TypeError), (lambda t: t[3], IndexError),
                                          (lambda t: Tensor([1.0]).mT, ValueError)])
def test_the_new_operators_refuse_what_they_cannot_read_in_one_line(build, error):
    with pytest.raises(error, match="plain number|does not fit a tensor of shape|rank two or more"):
        build(Tensor([[1.0, 2.0]]))


def test_softmax_is_exp_of_log_softmax_and_its_rows_sum_to_one():
    scores = Tensor([[0.0, 6.0], [6.0, -4.0]], requires_grad=True)
    weights = scores.softmax(1)
    assert weights.op == "softmax" and weights.params == {"axis": 1} and weights.inputs == (scores,)
    assert weights.parents[0].op == "log_softmax", "composed of log_softmax and exp, differentiated through them"
    np.testing.assert_allclose(weights.data.sum(axis=1), 1.0)
    np.testing.assert_allclose(scores.softmax(0).data.sum(axis=0), 1.0)


def test_a_kept_intermediate_gradient_is_the_engines_own_and_accumulates_like_an_inputs():
    s = Tensor([[0.5, -1.0, 2.0]], requires_grad=True)
    a = s.softmax(1).retain_grad()
    upstream = np.array([[1.0, 0.0, -1.0]])
    a.backward(upstream)
    np.testing.assert_array_equal(a.grad, upstream)
    assert a.grad is not upstream
    p = a.data
    np.testing.assert_allclose(s.grad, p * (upstream - (p * upstream).sum()))  # the softmax Jacobian
    first = s.grad.copy()
    a.backward(upstream)
    np.testing.assert_allclose(s.grad, 2 * first)
    np.testing.assert_allclose(a.grad, 2 * upstream)
    s.grad = a.grad = None  # starting again, as the gradient cell does
    a.backward(upstream)
    np.testing.assert_allclose(s.grad, first)


def test_a_tensor_shows_its_numbers_and_how_it_was_made():
    shown = repr(Tensor([[0.0, 6.0]], requires_grad=True) * 0.5)
    assert shown == "Tensor([[0., 3.]], op='mul', requires_grad=True)"
    assert repr(Tensor([1.0])) == "Tensor([1.], op='input')"


def test_numpy_reads_a_tensor_and_a_copy_is_its_own():
    t = Tensor([[1.0, 2.0]])
    assert np.asarray(t) is t.data
    copied = np.array(t)
    copied[0, 0] = 9.0
    assert t.data[0, 0] == 1.0 and np.asarray(t, dtype=np.float32).dtype == np.float32
