"""Random graphs that reuse tensors get exact gradients; backward changes no array it is given."""

import gc
import subprocess
import sys
import weakref

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from llm_from_scratch import Tensor
from llm_from_scratch.engine import functions as F
from llm_from_scratch.engine.gradcheck import central_difference

LIMIT = 8.0  # no value in a graph exceeds this, so central differences stay accurate

# Every rank-3 shape with axes in {1, 2} x {1, 3} x {1, 3}: any two broadcast together.
shapes = st.tuples(st.sampled_from([1, 2]), st.sampled_from([1, 3]), st.sampled_from([1, 3]))


STEPS = {  # name -> f(earlier tensors, x, argument): the step applied to x
    "transpose": lambda t, x: F.transpose(x, 1, 2),
    "exp": lambda t, x: F.exp(x),
    "log_softmax": lambda t, x, axis: F.log_softmax(x, axis),
    "sum": lambda t, x, axis: F.reduce_sum(x, axis=axis, keepdims=True),
    "add": lambda t, x, j: F.add(x, t[j]),
    "add_number": lambda t, x, c: F.add(x, c),
    "mul": lambda t, x, j: F.mul(x, t[j]),
    "mul_number": lambda t, x, c: F.mul(x, c),
    "matmul": lambda t, x, j: F.matmul(x, t[j]),
    "matmul_transposed": lambda t, x, j: F.matmul(x, F.transpose(t[j], 1, 2)),  # x @ xᵀ when j is x
}


def _steps_on(i: int, j: int, shapes: list[tuple[int, ...]]) -> list[tuple]:
    """Every step on tensor i (and j, possibly the same tensor) that their shapes allow."""
    a, b = shapes[i], shapes[j]
    steps = [("transpose", i), ("exp", i), ("add", i, j), ("add_number", i, 0.5), ("mul", i, j),
             ("mul_number", i, -1.5)]
    steps += [("log_softmax", i, axis) for axis in range(3)] + [("sum", i, axis) for axis in (0, 1, 2, None)]
    if a[2] == b[1]:
        steps.append(("matmul", i, j))
    if a[2] == b[2]:
        steps.append(("matmul_transposed", i, j))
    return steps


@st.composite
def graphs(draw):
    """Leaves in [-1, 1] and up to 8 steps, each on one or two earlier tensors (often one tensor twice).

    A step is drawn among those whose result stays within LIMIT.
    """
    leaves = [draw(arrays(np.float64, draw(shapes), elements=st.floats(-1, 1))) for _ in range(draw(st.integers(1, 3)))]
    tensors = [Tensor(x) for x in leaves]
    steps = []
    for _ in range(draw(st.integers(1, 8))):
        i = draw(st.integers(0, len(tensors) - 1))
        j = draw(st.one_of(st.just(i), st.integers(0, len(tensors) - 1)))
        results = {step: _apply(step, tensors) for step in _steps_on(i, j, [t.shape for t in tensors])}
        step = draw(st.sampled_from([step for step, out in results.items() if np.abs(out.data).max() <= LIMIT]))
        steps.append(step)
        tensors.append(results[step])
    return leaves, steps


def _apply(step: tuple, tensors: list[Tensor]) -> Tensor:
    name, i, *argument = step
    return STEPS[name](tensors, tensors[i], *argument)


def _run(leaves: list[Tensor], steps: list[tuple]) -> list[Tensor]:
    """The result of every step, in order."""
    tensors = list(leaves)
    for step in steps:
        tensors.append(_apply(step, tensors))
    return tensors[len(leaves):]


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(graph=graphs(), seed=st.integers(0, 2**16))
def test_every_leaf_gradient_of_a_graph_with_reuse_matches_central_differences(graph, seed):
    """L = sum over steps of <result, weights>: one backward call per step result, accumulated in the leaves."""
    inputs, steps = graph
    leaves = [Tensor(x, requires_grad=True) for x in inputs]
    results = _run(leaves, steps)
    rng = np.random.default_rng(seed)
    weights = [rng.uniform(-1, 1, out.shape) for out in results]
    for out, w in zip(results, weights):
        out.backward(w)

    def loss(xs):
        return float(sum(np.sum(out.data * w) for out, w in zip(_run([Tensor(x) for x in xs], steps), weights)))

    for which, leaf in enumerate(leaves):
        analytic = leaf.grad if leaf.grad is not None else np.zeros(leaf.shape)
        numeric = np.array([central_difference(loss, inputs, which, index) for index in np.ndindex(*leaf.shape)])
        np.testing.assert_allclose(analytic, numeric.reshape(leaf.shape), rtol=1e-5, atol=1e-6,
                                   err_msg=f"leaf {which} of {steps}")


def test_add_of_two_branches_of_one_tensor_gives_the_sum_of_their_gradients():
    x = Tensor([0.5, 1.0], requires_grad=True)
    F.reduce_sum(F.add(F.exp(x), F.mul(x, 2))).backward()
    np.testing.assert_allclose(x.grad, np.exp([0.5, 1.0]) + 2)  # [3.65, 4.72]


def test_backward_writes_into_no_array_it_is_given():
    """Rules compute new arrays: the upstream, every forward value and every gradient a rule received are unchanged."""
    x = Tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    received = []

    def keep(grad):
        received.append((grad, grad.copy()))
        return (grad,)

    branches = [Tensor.from_op(x.data.copy(), (x,), keep, "keep") for _ in range(2)]
    out = F.log_softmax(F.mul(F.add(*branches), F.exp(branches[0])), axis=1)
    values = [(t.data, t.data.copy()) for t in (x, *branches, out)]
    upstream = np.ones((2, 3))
    out.backward(upstream)
    np.testing.assert_array_equal(upstream, np.ones((2, 3)))
    for array, before in values + received:
        np.testing.assert_array_equal(array, before)


def test_an_inputs_gradient_is_an_array_of_its_own():
    """A learner may zero or scale .grad in place: nothing else in the graph, and not the caller's upstream, sees it."""
    x, y = Tensor(np.ones(3), requires_grad=True), Tensor(np.ones(3), requires_grad=True)
    upstream = np.arange(3.0)
    F.add(x, y).backward(upstream)  # add hands the same gradient to both inputs
    x.grad *= 0
    np.testing.assert_array_equal(y.grad, upstream)
    np.testing.assert_array_equal(upstream, np.arange(3.0))
    z = Tensor(np.ones((2, 3)), requires_grad=True)
    F.reduce_sum(z).backward()  # sum's rule hands back a read-only broadcast view
    z.grad[0, 0] = 5.0
    assert z.grad.flags.writeable and z.grad.sum() == 10.0


def test_a_broken_rule_raises_even_under_python_O():
    script = """
import numpy as np
from llm_from_scratch import Tensor
from llm_from_scratch.engine.tensor import BackwardRuleError
print(__debug__)
x = Tensor(np.ones((2, 3)), requires_grad=True)
for rule in (lambda g: (g, g), lambda g: (g.T,), lambda g: (g.astype(np.float32),), lambda g: g.sum()):
    try:
        Tensor.from_op(x.data * 2, (x,), rule, "broken").backward(np.ones((2, 3)))
    except BackwardRuleError as error:
        print(error)
"""
    result = subprocess.run([sys.executable, "-O", "-c", script], capture_output=True, text=True, check=True)
    lines = result.stdout.splitlines()
    assert lines == [
        "False",
        "broken backward (result shape [2, 3]) returned 2 gradients; it must return a tuple of 1, one per input",
        "broken backward (result shape [2, 3]) gave a float64 array of shape [3, 2] for input 0; "
        "it must be a float64 array of that input's shape [2, 3]",
        "broken backward (result shape [2, 3]) gave a float32 array of shape [2, 3] for input 0; "
        "it must be a float64 array of that input's shape [2, 3]",
        "broken backward (result shape [2, 3]) returned a float64; it must return a tuple of 1, one per input",
    ], result.stderr


def test_a_forward_pass_without_gradients_keeps_what_it_read_and_no_backward():
    """With no input that needs a gradient a result records what it read (a judge reads the formula back from it),
    but no parents and no rule; its intermediates live as long as it does, and go with it."""
    doubled = F.mul(Tensor(np.ones((2, 3))), 2.0)
    alive = weakref.ref(doubled)
    total = F.reduce_sum(F.exp(doubled))
    del doubled
    gc.collect()
    assert alive() is not None and total.inputs[0].inputs[0] is alive()
    assert total.parents == () and total.backward_rule is None and not total.requires_grad
    del total
    gc.collect()
    assert alive() is None
