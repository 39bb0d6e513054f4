"""07's gradient check is given the learner's loss: central differences of their own recorded graph beside the
``.grad`` their backward left, and the chapter's formulas only where the loss is the chapter's."""

import math
import pathlib

import numpy as np
import pytest
from support.notebooks import outputs_of, run_edited

from llm_from_scratch import Tensor
from llm_from_scratch.book.blocks import to_text
from llm_from_scratch.ch27.notebook import scaled_dot_product_self_attention, sections
from llm_from_scratch.ch27.strings import STRINGS

ROOT = pathlib.Path(__file__).resolve().parents[1]
FORMULAS = "формулы, L = ⟨O, Ō⟩"


def inputs():
    return (Tensor([[[0, 3], [2, -1]]], requires_grad=True), Tensor([[[3, 0], [-1, 2]]], requires_grad=True),
            Tensor([[[3, -3], [1, 3]]], requires_grad=True))


def head(axis=2):
    """07's cells: the forward pass, written as the chapter writes it, the softmax along ``axis``."""
    Q, K, V = inputs()
    out = (Q @ K.transpose(1, 2) / math.sqrt(2)).softmax(axis) @ V
    return Q, K, V, out


def checked(loss, Q, K, V) -> str:
    return to_text(sections.gradient_check(loss, Q=Q, K=K, V=V))


def test_the_chapters_loss_is_checked_against_the_formulas_too():
    Q, K, V, out = head()
    L = (out * Tensor(np.eye(2)[None])).sum()
    L.backward()
    shown = checked(L, Q, K, V)
    assert FORMULAS in shown and "✔" in shown and "✘" not in shown
    Q, K, V = inputs()
    engine = scaled_dot_product_self_attention(Q, K, V)  # the engine's own head: a factor, exp of log_softmax
    engine_loss = (engine.output * np.eye(2)[None]).sum()
    engine_loss.backward()
    assert FORMULAS in checked(engine_loss, Q, K, V)


@pytest.mark.parametrize("axis, loss", [(1, lambda out: (out * np.eye(2)[None]).sum()),
                                        (2, lambda out: (out * out).sum()), (2, lambda out: (out[0, 1] ** 3).sum())],
                         ids=["softmax-1", "own-loss", "indexed"])
def test_another_head_or_loss_is_checked_on_its_own_graph_without_the_formulas(axis, loss):
    Q, K, V, out = head(axis)
    L = loss(out)
    L.backward()
    shown = checked(L, Q, K, V)
    assert FORMULAS not in shown and "✔" in shown and "✘" not in shown, shown


def test_gradients_left_by_two_backward_runs_fail_and_are_told_that_backward_adds():
    Q, K, V, out = head()
    L = (out * out).sum()
    L.backward()
    L.backward()
    shown = checked(L, Q, K, V)
    assert "✘" in shown and STRINGS.text_in("ru", "gradient.accumulated", times=2) in " ".join(shown.split())


@pytest.mark.parametrize("given, key", [("out", "gradient.not_a_loss"), ("unrun", "gradient.not_run"),
                                        ("stranger", "gradient.not_in_graph")])
def test_what_the_check_cannot_read_is_told_in_one_sentence(given, key):
    Q, K, V, out = head()
    L = (out * out).sum()
    if given != "unrun":
        L.backward()
    loss, leaves = (out, {"Q": Q}) if given == "out" else (L, {"Q": Q})
    if given == "stranger":
        leaves = {"Q": Tensor([[[1.0]]], requires_grad=True)}
    with pytest.raises(ValueError) as error:
        sections.gradient_check(loss, **leaves)
    assert str(error.value) == STRINGS.text_in("ru", key, name="Q")


# --- in 07, each in a fresh kernel -------------------------------------------------------------------------------

CHECK = "show(sections.gradient_check(L, Q=Q, K=K, V=V))"


def run_07(lang: str, edits: dict[str, tuple[str, str]], twice: str = "") -> str:
    path = ROOT / "chapter27" / ("en" if lang == "en" else "") / "07_gradients.ipynb"
    return outputs_of(run_edited(path, edits, twice), CHECK)


@pytest.mark.notebook
@pytest.mark.parametrize("lang", ["ru", "en"])
@pytest.mark.parametrize("edit", [("A = S.softmax(2)", "A = S.softmax(1)"),
                                  ("L = (O * O_bar).sum()", "L = (O * O).sum()")], ids=["softmax-1", "own-loss"])
def test_07s_check_passes_on_another_head_and_on_a_loss_of_ones_own(lang, edit):
    shown = run_07(lang, {"edit": edit})
    assert "✔" in shown and "✘" not in shown and STRINGS.text_in(lang, "gradient.closed") not in shown, shown


@pytest.mark.notebook
@pytest.mark.parametrize("lang", ["ru", "en"])
def test_07s_check_fails_and_says_backward_adds_when_the_gradient_cell_runs_twice_without_clearing(lang):
    shown = run_07(lang, {"clear": ("t.grad = None", "pass")}, twice="L.backward()")
    assert "✘" in shown and STRINGS.text_in(lang, "gradient.accumulated", times=2) in " ".join(shown.split()), shown
