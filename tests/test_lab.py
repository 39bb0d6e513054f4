"""The notebooks are a lab: the head is computed in their own cells, from inputs they write out.

- each inputs cell writes out the examples' inputs (``ch27/examples.py``) exactly;
- the cells' stages are bitwise what ``evidence.py`` computes, so one computation has two readers;
- with inputs of other sizes written into every inputs cell, each notebook of 01–08 still runs top to bottom,
  every table ``show`` and ``show_folded`` print outside forms is the tests' own oracle's on the new inputs, and a
  fold that answers an exercise says under it what changed.
"""

import ast
import contextlib
import html
import io
import itertools
import pathlib
import re

import nbformat
import numpy as np
import pytest
from support.notebooks import code_cells, execute, figure_table, load, outputs_text
from support.oracle import head, head_gradients, softmax

from llm_from_scratch.book.chapters import chapters
from llm_from_scratch.ch27.evidence import evidence
from llm_from_scratch.ch27.examples import (
    HAND_KEY,
    HAND_QUERY,
    HAND_VALUE,
    NO_MATCH_KEY,
    NO_MATCH_QUERY,
    NO_MATCH_VALUE,
    WIDTH_ONE_QUERY,
    WIDTH_TWO_QUERY,
    WORKED_KEY,
    WORKED_QUERY,
    WORKED_VALUE,
)
from llm_from_scratch.ch27.exercises import EXERCISES
from llm_from_scratch.ch27.figures import ROLES
from llm_from_scratch.ch27.strings import STRINGS

ROOT = pathlib.Path(__file__).resolve().parents[1]
CH27 = next(c for c in chapters(ROOT) if c.name == "chapter27")
WORKED, HAND = (WORKED_QUERY, WORKED_KEY, WORKED_VALUE), (HAND_QUERY, HAND_KEY, HAND_VALUE)
# the notebooks that write out an example's inputs, and which: one per inputs cell, in reading order
INPUTS = {"01_predict": (WORKED,), "02_scores_softmax_mixture": (WORKED,), "03_shapes": (WORKED, HAND),
          "07_gradients": (WORKED,), "08_trace": (HAND,)}
# of those, the ones whose cells compute the head's stages (08's inputs feed its trace only)
LAB = {stem: examples for stem, examples in INPUTS.items() if stem != "08_trace"}
WIDGETS = ("exercise(", "challenge(", "VectorPlane(", "HeadEditor(", "render_trace(", "check(")


def lab_notebooks() -> list[pathlib.Path]:
    return [path for path in CH27.notebooks() if path.stem in LAB]


def is_inputs_cell(source: str) -> bool:
    return bool(re.search(r"^Q = Tensor\(", source, re.M))


def inputs_cells(notebook) -> list[nbformat.NotebookNode]:
    return [c for c in code_cells(notebook) if is_inputs_cell(c.source)]


def written_inputs(source: str) -> dict[str, object]:
    """Q, K and V as the cell writes them: the literal given to each Tensor(...)."""
    found = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and node.targets[0].id in "QKV":
            found[node.targets[0].id] = ast.literal_eval(node.value.args[0])
    return found


@pytest.mark.parametrize("path", [p for p in CH27.notebooks() if p.stem in INPUTS],
                         ids=lambda p: f"{p.parent.name}/{p.name}")
def test_each_inputs_cell_writes_out_its_example(path):
    cells = inputs_cells(load(path))
    assert len(cells) == len(INPUTS[path.stem])
    for cell, example in zip(cells, INPUTS[path.stem]):
        written = written_inputs(cell.source)
        assert {name: np.array(value, dtype=float).tolist() for name, value in written.items()} == {
            name: [list(map(list, rows))] for name, rows in zip("QKV", example)}


def run_stages(path: pathlib.Path) -> dict[str, object]:
    """Run a notebook's computing cells in this process (its widgets and exercises left out, show silenced) and
    return what they defined."""
    return run_stages_of(path, lambda source: not any(call in source for call in WIDGETS))


def run_stages_of(path: pathlib.Path, computes) -> dict[str, object]:
    """Run the code cells of a notebook whose source ``computes`` says yes to, its first cell (the imports)
    always, with show silenced; return what they defined."""
    return run_sections_of(path, computes)[-1]


def run_sections_of(path: pathlib.Path, computes) -> list[dict[str, object]]:
    """As run_stages_of, but what was defined at the end of each example's section (from one inputs cell to the
    next), in order."""
    namespace: dict[str, object] = {}
    sections = []
    for index, cell in enumerate(code_cells(load(path))):
        if index and not computes(cell.source):
            continue
        if is_inputs_cell(cell.source) and "Q" in namespace:
            sections.append(dict(namespace))
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile(cell.source, str(path), "exec"), namespace)
        namespace["show"] = namespace["show_folded"] = lambda *parts, **options: None
    return [*sections, namespace]


@pytest.mark.parametrize("path", lab_notebooks(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_the_cells_give_bitwise_what_the_evidence_gives(path):
    sections = run_sections_of(path, lambda source: not any(call in source for call in WIDGETS))
    assert len(sections) == len(LAB[path.stem])
    for found, example in zip(sections, LAB[path.stem]):
        same_stages(found, evidence().hand if example is HAND else evidence().worked)


def same_stages(found: dict[str, object], run) -> None:
    stages = {"scores": run.head.raw_scores.data, "S": run.head.scaled_scores.data, "A": run.weights, "O": run.output}
    compared = {name: found[name].data for name in stages if name in found}
    if found["Q"].grad is not None:  # the notebook ran the backward pass: every gradient, kept ones included
        stages |= {"Q̄": run.grad_query, "K̄": run.grad_key, "V̄": run.grad_value, "Ā": run.head.weights.grad,
                   "S̄": run.head.scaled_scores.grad}
        compared |= {"Q̄": found["Q"].grad, "K̄": found["K"].grad, "V̄": found["V"].grad, "Ā": found["A"].grad,
                     "S̄": found["S"].grad}
    assert compared, "the notebook computes no stage"
    for name, value in compared.items():
        assert value.tobytes() == stages[name].tobytes(), name


def shown_title(svg: str) -> str:
    return html.unescape(re.search(r"<title>(.*?)</title>", svg, re.S).group(1))


def table_numbers(table: str) -> np.ndarray:
    """A figure's text table as numbers: each row's values after its label, a row's sum left out."""
    rows = [line.split("Σ =")[0].split()[1:] for line in table.splitlines()[1:]]
    return np.array(rows, dtype=float)


# other sizes than the chapter's: T = 4 tokens, d_k = 3, d_v = 5
OTHER_SIZES = {"Q": (4, 3), "K": (4, 3), "V": (4, 5)}


def written_literals(source: str) -> list[tuple[str, str]]:
    """Each input a cell writes as a literal (Q, K, V, Q2, K2, V2 = Tensor([...], ...)): its name and the literal."""
    found = []
    for node in ast.parse(source).body:
        if (isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id in ("Q", "K", "V", "Q2", "K2", "V2") and isinstance(node.value, ast.Call)
                and getattr(node.value.func, "id", "") == "Tensor"):
            with contextlib.suppress(ValueError):
                ast.literal_eval(node.value.args[0])
                found.append((node.targets[0].id, ast.get_source_segment(source, node.value.args[0])))
    return found


def with_other_sizes(notebook: nbformat.NotebookNode, rng: np.random.Generator) -> list[dict[str, np.ndarray]]:
    """Write random integers of OTHER_SIZES into every inputs cell of ``notebook`` (in place); the input sets
    written, in order (Q, K, V and Q2, K2, V2 are two sets)."""
    sets: list[dict[str, np.ndarray]] = []
    for cell in code_cells(notebook):
        for name, literal in written_literals(cell.source):
            value = rng.integers(-3, 4, size=(1, *OTHER_SIZES[name[0]])).astype(float)
            cell.source = cell.source.replace(f"{name} = Tensor({literal}", f"{name} = Tensor({value.tolist()}", 1)
            if not sets or name in sets[-1] or any(written[1:] != name[1:] for written in sets[-1]):
                sets.append({})
            sets[-1][name] = value
    return [{name[0]: value for name, value in inputs.items()} for inputs in sets]


def oracle_of(q: np.ndarray, k: np.ndarray, v: np.ndarray, upstream: np.ndarray) -> dict[str, np.ndarray]:
    """Every role a figure may draw, on one set of inputs and the gradient L = ⟨O, upstream⟩."""
    scores = q @ k.transpose(0, 2, 1)
    scaled = scores / np.sqrt(q.shape[-1])
    weights, output = head(q, k, v)
    grad_q, grad_k, grad_v = head_gradients(q, k, v, upstream)
    grad_weights = upstream @ v.transpose(0, 2, 1)
    grad_scaled = weights * (grad_weights - (weights * grad_weights).sum(-1, keepdims=True))
    return {"query": q, "key": k, "value": v, "raw-scores": scores, "scaled-scores": scaled,
            "exponentials": np.exp(scaled),
            "weights": weights, "output": output, "row-sums": weights.sum(2), "column-sums": weights.sum(1),
            "grad-output": upstream, "grad-query": grad_q, "grad-key": grad_k, "grad-value": grad_v,
            "grad-weights": grad_weights, "grad-scores": grad_scaled}


def candidates(sets: list[dict[str, np.ndarray]]) -> dict[str, list[np.ndarray]]:
    """What each role may show in a notebook given ``sets``: each set's oracle, with either Ō the cells write (ones
    on the diagonal; a one at (0, 0)); 03's buggy head's sums (its softmax runs along the queries); 06's single
    token, whose cell writes inputs of its own; 05's weights with every key the first; 06's output with the first two
    positions swapped in every input."""
    from llm_from_scratch.ch27.evidence import single_token_inputs

    found: dict[str, list[np.ndarray]] = {}
    for inputs in sets:
        q, k, v = inputs["Q"], inputs["K"], inputs["V"]
        one_hot = np.zeros(v.shape)
        one_hot[0, 0, 0] = 1
        bug = softmax(q @ k.transpose(0, 2, 1) / np.sqrt(q.shape[-1]), axis=1)
        for upstream in (np.eye(*v.shape[1:])[None], one_hot):
            for role, value in oracle_of(q, k, v, upstream).items():
                found.setdefault(role, []).append(value[0])
        found["row-sums"].append(bug.sum(2)[0])
        found["column-sums"].append(bug.sum(1)[0])
        found["weights"].append(head(q, k[:, [0] * k.shape[1]], v)[0][0])
        order = [1, 0, *range(2, q.shape[1])]
        found["output"].append(head(q[:, order], k[:, order], v[:, order])[1][0])
    single = single_token_inputs()
    for role, value in oracle_of(*single, np.ones(single[2].shape)).items():
        found[role].append(value[0])
    return found


def role_titles(lang: str) -> dict[str, str]:
    """A figure's title -> its role: the role's formula (the weights as the softmax of S) or its name alone."""
    from llm_from_scratch.ch27.figures import NAMED_ONLY

    titles = {STRINGS.text_in(lang, ROLES[role].title, of="S"): role for role in ROLES}
    return titles | {STRINGS.text_in(lang, key): role for role, key in NAMED_ONLY.items()}


@pytest.mark.notebook
@pytest.mark.parametrize("path", [p for p in CH27.notebooks() if p.stem < "09" and any(
    written_literals(cell.source) for cell in code_cells(load(p)))], ids=lambda p: f"{p.parent.name}/{p.name}")
def test_inputs_of_other_sizes_flow_through_every_cell_and_every_shown_table(path):
    """Random inputs with T = 4, d_k = 3, d_v = 5 written into every inputs cell: the notebook runs top to bottom
    in a fresh kernel without a traceback or a warning, every figure's table (shown, or folded) is the oracle's for
    its role on the new inputs, every fold that answers an exercise says under it what changed, and 07's gradient
    check passes on the learner's graph."""
    lang = "en" if path.parent.name == "en" else "ru"
    notebook = load(path)
    sets = with_other_sizes(notebook, np.random.default_rng(27))
    execute(notebook, path.parent)
    oracle, titles = candidates(sets), role_titles(lang)
    changed = (STRINGS.text_in(lang, "given.cells_changed"), *(
        STRINGS.text_in(lang, "given.inputs_changed", names=", ".join(names))
        for count in (1, 2, 3) for names in itertools.combinations("QKV", count)))
    compared, folds, notes = [], 0, 0
    for cell in code_cells(notebook):
        assert not [o for o in cell.outputs if o.get("name") == "stderr"], cell.source
        if any(call in cell.source for call in WIDGETS):
            continue
        for output in cell.outputs:
            data = output.get("data", {})
            if "image/svg+xml" in data:
                role = titles[shown_title("".join(data["image/svg+xml"]))]
                shown = table_numbers(figure_table(data))
                assert any(value.size == shown.size and np.allclose(shown, value.reshape(shown.shape), atol=5e-7)
                           for value in oracle[role]), (role, cell.source)
                compared.append(role)
            if 'role="note"' in "".join(data.get("text/html", "")):
                notes += 1
                said = " ".join("".join(data["text/plain"]).split())
                assert said.endswith(changed), said  # what changed, and no slip: the cells compute the head
        # a fold that answers on inputs its own cell writes (06's single token, 03's tensors of zeros of the
        # question's shapes) shows the chapter's answer
        folds += 'answers="' in cell.source and not any(made in cell.source for made in ("Tensor(", "np.zeros("))
    assert notes == folds, "every fold that answers for the chapter's inputs says under it what changed"
    if path.stem == "07_gradients":
        check = next(cell for cell in code_cells(notebook) if "gradient_check(" in cell.source)
        assert STRINGS.text_in(lang, "gradcheck.passed") in outputs_text(check)
    assert len(compared) >= len(sets), compared


def test_a_notebooks_numbers_come_from_its_cells_not_from_the_package():
    from llm_from_scratch.ch27 import notebook

    assert "ev" not in notebook.__all__ and not hasattr(notebook, "ev")
    uses = [path.name for path in CH27.notebooks() for cell in code_cells(load(path))
            if re.search(r"\bev\b|evidence\(", cell.source)]
    assert not uses, uses


def test_the_learners_head_may_return_the_engines_tensor():
    from llm_from_scratch.ch27.exercises import check_code
    from llm_from_scratch.ch27.notebook import scaled_dot_product_self_attention

    feedback = check_code("write-head", lambda q, k, v: scaled_dot_product_self_attention(q, k, v).output)
    assert feedback.correct, feedback.message
    wrong = check_code("write-head", lambda q, k, v: scaled_dot_product_self_attention(q, k, k).output)
    assert not wrong.correct


def test_the_editor_opens_on_the_cells_inputs_and_returns_to_them():
    from llm_from_scratch import Tensor
    from llm_from_scratch.ch27.widgets import HeadEditor

    q = Tensor([[[0.0, 6.0], [4.0, -2.0]]])
    editor = HeadEditor(q)
    assert editor.fields[("Q", 0, 1)].value == "6" and editor.fields[("K", 0, 0)].value == "3"
    np.testing.assert_array_equal(editor.run.head.raw_scores.data, (q @ Tensor(WORKED_KEY).transpose(0, 1)).data)
    editor.fields[("Q", 0, 1)].value = "1"
    editor.restore()
    assert editor.fields[("Q", 0, 1)].value == "6"


def test_the_trace_follows_a_cells_inputs():
    from llm_from_scratch import Tensor
    from llm_from_scratch.ch27.sections import render_trace

    q, k, v = (np.array([m], dtype=float) for m in WORKED)
    weights, output = head(2 * q, k, v)
    given = render_trace(Tensor(2 * q), k, v).html
    assert all(f"{x:.6f}" in given for x in output.ravel()) and f"{weights[0, 0, 1]:.6f}" in given
    assert f"{head(q, k, v)[1][0, 0, 0]:.6f}" not in given and "1.028332" in render_trace().html


def test_running_the_gradient_cell_again_gives_the_same_gradients():
    path = next(p for p in lab_notebooks() if p.stem == "07_gradients")
    found = run_stages(path)
    [cell] = [c for c in code_cells(load(path)) if "L.backward()" in c.source]
    first = {name: found[name].grad.copy() for name in "QKVAS"}
    exec(compile(cell.source, str(path), "exec"), found)
    assert all(np.array_equal(found[name].grad, first[name]) for name in "QKVAS")
    without_clearing = cell.source.replace("t.grad = None", "pass")
    exec(compile(without_clearing, str(path), "exec"), found)
    np.testing.assert_allclose(found["Q"].grad, 2 * first["Q"], err_msg="backward adds: the try-it's lesson")


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_the_reviews_two_new_questions_compute_in_cells_what_their_judges_read(lang):
    """10 asks about a head of width 1 and a query no key matches on inputs its own cells write out; the cells
    give bitwise the weights the judges' explanations quote."""
    path = next(p for p in CH27.notebooks(lang) if p.stem == "10_exercises")
    namespace = run_stages_of(path, lambda source: re.search(r"^[QKVAS][0-9] = ", source, re.M))
    ev = evidence()
    written = {"Q1": WIDTH_ONE_QUERY, "K1": WIDTH_ONE_QUERY, "Q2": WIDTH_TWO_QUERY, "Q3": NO_MATCH_QUERY,
               "K3": NO_MATCH_KEY, "V3": NO_MATCH_VALUE}
    for name, rows in written.items():
        assert namespace[name].data.tolist() == [list(map(list, rows))], name
    for name, run in (("A1", ev.fixed.width_one), ("A2", ev.fixed.width_two), ("A3", ev.fixed.no_match)):
        assert np.array_equal(namespace[name].data, run.weights), name


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_the_step_through_softmax_is_computed_in_a_cell_on_the_second_example(lang):
    """07 asks for one row of the second example's S̄ with L = o_00; its cell writes the second example out and
    gives bitwise the row the judge expects."""
    path = next(p for p in CH27.notebooks(lang) if p.stem == "07_gradients")
    namespace = run_stages_of(path, lambda source: re.search(r"^[QKVAS]2 = ", source, re.M))
    for name, rows in zip(("Q2", "K2", "V2"), HAND):
        assert namespace[name].data.tolist() == [list(map(list, rows))], name
    assert np.array_equal(namespace["S2"].grad[0, 0], EXERCISES["score-gradient"].expected(evidence()))
