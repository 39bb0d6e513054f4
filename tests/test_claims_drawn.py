"""Claims checked on edits drawn from a grammar: a learner's changes to the cells of 02, 03, 05, 07 and 08 (the
scale, its chain, pre-scaled Q or K, the operand order and every spelling of the transpose, the softmax's axis, a
plain numpy A, other sizes of Q, K and V, 05's keys, only V changed, backward twice), each notebook's code run in one
namespace per edit in this process, both editions. Every claim the page then makes is read back from the shown text
with the edition's own templates and checked here with numpy:

* a figure titled with the head's formula shows the head's stage on the cells' Q, K, V; a formula in a title or a
  note evaluates (a small evaluator of the chapter's notation, below) to the numbers shown;
* "not the head's", "on its own inputs it is the head's", a divisor, a chain in all, the raw scores themselves, an
  axis, a part or a transpose, "Inputs changed", a gradient n times the head's: each is computed;
* a widget that says it computes as the cells do gives the cells' weights with the divisor and axis it names.

The slow tier runs every edit; the quick tier a sample that has each kind of claim at least once.
"""

import ast
import contextlib
import io
import itertools
import json
import math
import re
import sys
import types
from html import unescape

import numpy as np
import pytest
from support import tiered
from test_given import notebook_path

import llm_from_scratch.ch27.given as given_module
import llm_from_scratch.ch27.reader as reader
from llm_from_scratch.book.text import set_language
from llm_from_scratch.ch27 import figures
from llm_from_scratch.ch27.strings import STRINGS

TOLERANCE = 1e-9


# --- the chapter's notation, evaluated here -------------------------------------------------------------------------

TOKEN = re.compile(r"\s*(softmax|log_softmax|exp|sum|axis=|√\d+|-?\d+(?:\.\d+)?(?:e[-+]?\d+)?|"
                   r"[A-Za-z](?:\d|_\w+)?[₀-₉]*|ᵀ|·|/|\+|−|\(|\)|,|\.transpose|\^)")


def evaluate(formula: str, names: dict[str, np.ndarray]) -> np.ndarray:
    """The value of a formula as the reader writes it (QKᵀ/1.414, (Q/1.414)·Kᵀ, softmax(S, axis=0)·V, X + M),
    with ``names`` for its symbols."""
    tokens = [t for t in TOKEN.findall(formula) if t.strip()]
    assert "".join(tokens).replace(" ", "") == formula.replace(" ", ""), f"unread formula: {formula}"
    at = 0

    def peek():
        return tokens[at] if at < len(tokens) else None

    def take(expected=None):
        nonlocal at
        token = tokens[at]
        assert expected is None or token == expected, (formula, token, expected)
        at += 1
        return token

    def product(a, b):
        a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
        return a * b if a.ndim == 0 or b.ndim == 0 else a @ b

    def atom():
        token = take()
        if token == "(":
            value = total()
            take(")")
        elif token == "−":
            value = -atom()
        elif token in ("softmax", "log_softmax", "exp", "sum"):
            take("(")
            inner, axis = total(), None
            if peek() == ",":
                take(",")
                take("axis=")
                axis = int(take())
            take(")")
            if token == "exp":
                value = np.exp(inner)
            elif token == "sum":
                value = inner.sum(axis=axis)
            else:
                shifted = inner - inner.max(axis=-1 if axis is None else axis, keepdims=True)
                e = np.exp(shifted)
                value = e / e.sum(axis=-1 if axis is None else axis, keepdims=True)
                value = np.log(value) if token == "log_softmax" else value
        elif re.fullmatch(r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?", token):
            value = np.float64(token)
        elif token.startswith("√"):
            value = np.float64(math.sqrt(int(token[1:])))
        else:
            value = names[token]
        while peek() in ("ᵀ", ".transpose", "^"):
            if take() == "ᵀ":
                value = np.swapaxes(value, -1, -2)
            else:
                raise AssertionError(f"not read here: {formula}")
        return value

    def term():
        value = atom()
        while peek() is not None and peek() not in ("+", "−", ")", ","):
            token = peek()
            if token == "·":
                take()
                value = product(value, atom())
            elif token == "/":
                take()
                value = value / atom()
            else:  # two symbols side by side: a matrix product
                value = product(value, atom())
        return value

    def total():
        value = term()
        while peek() in ("+", "−"):
            value = value + term() if take() == "+" else value - term()
        return value

    result = total()
    assert at == len(tokens), f"unread rest of {formula}"
    return result


def test_the_evaluator_reads_the_notation_it_checks_with():
    q, k = np.array([[[1.0, 2], [3, 4]]]), np.array([[[0.5, 1], [2, 0]]])
    names = {"Q": q, "K": k}
    assert np.allclose(evaluate("(Q/1.414)·Kᵀ", names), q / 1.414 @ np.swapaxes(k, 1, 2))
    assert np.allclose(evaluate("QKᵀ/2·3", names), q @ np.swapaxes(k, 1, 2) / 2 * 3)
    assert np.allclose(evaluate("softmax(QKᵀ, axis=1)", names).sum(axis=1), 1.0)


# --- the oracle: the head in numpy ----------------------------------------------------------------------------------

def head(q, k, v, axis=-1, divisor=None):
    raw = q @ np.swapaxes(k, -1, -2)
    scaled = raw / (math.sqrt(q.shape[-1]) if divisor is None else divisor)
    e = np.exp(scaled - scaled.max(axis=axis, keepdims=True))
    weights = e / e.sum(axis=axis, keepdims=True)
    return {"raw-scores": raw, "scaled-scores": scaled, "probabilities": weights, "value-mixture": weights @ v}


def gradients(q, k, v, upstream):
    """Q̄, K̄, V̄ and Ā of L = ⟨O, Ō⟩ for the head, by the chapter's formulas in numpy."""
    stages = head(q, k, v)
    a, root = stages["probabilities"], math.sqrt(q.shape[-1])
    grad_a = upstream @ np.swapaxes(v, -1, -2)
    grad_s = a * (grad_a - (a * grad_a).sum(axis=-1, keepdims=True))
    return {"Q": grad_s @ k / root, "K": np.swapaxes(grad_s, -1, -2) @ q / root,
            "V": np.swapaxes(a, -1, -2) @ upstream, "A": grad_a}


def close(a, b) -> bool:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a.shape == b.shape and bool(np.allclose(a, b, rtol=1e-9, atol=TOLERANCE))


# --- the grammar of edits ---------------------------------------------------------------------------------------------

SCORES = ["Q @ K.transpose(1, 2)", "K @ Q.transpose(1, 2)", "Q @ K.mT", "Q @ K.transpose(2, 1)",
          "Q @ K.transpose(-1, -2)", "(Q / math.sqrt(d_k)) @ K.transpose(1, 2)", "Q @ (K * 2).mT"]
SCALES = ["scores / math.sqrt(d_k)", "scores / d_k", "scores / 2", "scores * 2", "scores / math.sqrt(d_k) / 0.5",
          "scores / math.sqrt(d_k) * 2", "scores", "scores / 1.414", "scores * (1 / math.sqrt(d_k))"]
WEIGHTS = ["S.softmax(2)", "S.softmax(1)", "S.softmax(0)", "S.softmax(-1)", "Tensor(S.softmax(2).data)",
           "(S * 1000).softmax(2)"]
SAME_KEYS = ["K[:, [0] * K.shape[1]]", "K[:, [1] * K.shape[1]]", "K", "K * 2", "K[:, ::-1]", "Q"]  # 05's keys
SIZES = [(2, 2), (1, 2), (3, 2), (4, 3), (2, 1), (3, 3)]  # T, d_k (d_v = d_k + 1 where the size is not the chapter's)
LANGS = ["ru", "en"]
# no cell of an edit prints a RuntimeWarning: the package's own arithmetic on ±∞ and NaN is silenced where it computes
pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")


def inputs_cell(tokens: int, width: int, seed: int) -> str:
    """The inputs cell's three lines for Q, K, V of these sizes, in whole numbers (the chapter's where 2 × 2)."""
    if (tokens, width) == (2, 2):
        return "Q = Tensor([[[0, 3], [2, -1]]])\nK = Tensor([[[3, 0], [-1, 2]]])\nV = Tensor([[[3, -3], [1, 3]]])"
    rng = np.random.default_rng(seed)
    q, k = (rng.integers(-3, 4, size=(1, tokens, width)).tolist() for _ in range(2))
    v = rng.integers(-3, 4, size=(1, tokens, width + 1)).tolist()
    return f"Q = Tensor({q})\nK = Tensor({k})\nV = Tensor({v})"


def drawn_edits() -> list[tuple[str, str, str, tuple[int, int], str]]:
    """Every combination of the 02 grammar (scores, scale, weights) on the chapter's sizes, and a spread of them on
    the other sizes: (lang, scores, scale, size, weights)."""
    rng = np.random.default_rng(27)
    chapter = list(itertools.product(SCORES, SCALES, WEIGHTS))
    others = [chapter[i] for i in rng.choice(len(chapter), size=40, replace=False)]
    edits = [(s, c, (2, 2), w) for s, c, w in chapter] + [(s, c, SIZES[1 + i % 5], w) for i, (s, c, w) in
                                                            enumerate(others)]
    return [(lang, *edit) for edit in edits for lang in LANGS]


EDITS = drawn_edits()
QUICK = {("en", "(Q / math.sqrt(d_k)) @ K.transpose(1, 2)", "scores / math.sqrt(d_k)", (2, 2), "S.softmax(2)"),
         ("ru", "Q @ K.transpose(1, 2)", "scores / math.sqrt(d_k) / 0.5", (2, 2), "S.softmax(2)"),
         ("en", "K @ Q.transpose(1, 2)", "scores / 2", (2, 2), "S.softmax(0)"),
         ("ru", "Q @ K.mT", "scores", (2, 2), "S.softmax(1)"),
         ("ru", "Q @ K.transpose(-1, -2)", "scores / math.sqrt(d_k)", (2, 2), "S.softmax(0)"),
         ("en", "Q @ K.transpose(1, 2)", "scores * 2", (3, 2), "Tensor(S.softmax(2).data)"),
         ("en", "Q @ (K * 2).mT", "scores / d_k", (2, 2), "(S * 1000).softmax(2)")}


# --- running a notebook's code in this process ---------------------------------------------------------------------

def code_of(lang: str, stem: str) -> list[str]:
    notebook = json.loads(notebook_path(lang, stem).read_text(encoding="utf-8"))
    return ["".join(cell["source"]) for cell in notebook["cells"] if cell["cell_type"] == "code"]


class Page:
    """What the cells showed: every displayed bundle's text, the printed text, and each figure's value, role and
    title as ``matrix_figures`` made them."""

    def __init__(self) -> None:
        self.texts: list[str] = []
        self.figures: list[tuple[object, str, str]] = []
        self.error: Exception | None = None  # what stopped the run, if a cell raised

    @property
    def text(self) -> str:
        return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", " ".join(self.texts))))


def run_cells(cells: list[str], monkeypatch) -> tuple[dict, Page]:
    """The cells run in order in one namespace, as a kernel runs them, with what they display kept."""
    namespace: dict = {"__name__": "__main__"}
    page = Page()
    monkeypatch.setattr(reader, "notebook_namespace", lambda: namespace)
    monkeypatch.setattr(given_module, "notebook_namespace", lambda: namespace)

    def displayed(*objects, **_):
        for shown in objects:
            if isinstance(shown, dict):
                page.texts += [str(shown.get("text/html", "")), str(shown.get("text/plain", ""))]
            else:
                page.texts.append(str(getattr(shown, "data", "")))

    for name, module in list(sys.modules.items()):
        if name.startswith("llm_from_scratch") and callable(getattr(module, "display", None)) and not isinstance(
                module.display, types.ModuleType):
            monkeypatch.setattr(module, "display", displayed)
    original = figures.title_of

    def titled(value, role, namespace_=None):
        title = original(value, role, namespace_)
        page.figures.append((value, figures.role_named(role), title))
        return title

    monkeypatch.setattr(figures, "title_of", titled)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        for cell in cells:
            tree = ast.parse(cell)
            last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
            try:
                exec(compile(tree, "<cell>", "exec"), namespace)
                if last is not None:  # a cell's last expression is shown, as a kernel shows it
                    result = eval(compile(ast.Expression(last.value), "<cell>", "eval"), namespace)
                    shown = getattr(result, "_repr_html_", None)
                    page.texts.append(shown() if callable(shown) and shown() else repr(result))
            except Exception as error:  # Run All stops at a cell that raises, as here
                page.error = error
                break
    page.texts.append(printed.getvalue())
    return namespace, page


# --- reading the claims back ------------------------------------------------------------------------------------

def template(lang: str, key: str) -> re.Pattern:
    """The catalogue string ``key`` as a pattern, each {field} a group."""
    parts = re.split(r"\{(\w+)\}", STRINGS.strings[lang][key])
    seen: set[str] = set()
    pattern = ""
    for i, part in enumerate(parts):
        if i % 2 == 0:
            pattern += re.escape(part)
        else:  # a field said twice must say the same both times
            pattern += rf"(?P={part})" if part in seen else rf"(?P<{part}>(?:(?!\.\s).)+?)"
            seen.add(part)
    return re.compile(pattern.removesuffix(r"\.") + r"(?=\.(?:\s|$)|$)")  # a field runs to its sentence's end


def found(lang: str, key: str, text: str) -> list[dict[str, str]]:
    return [m.groupdict() for m in template(lang, key).finditer(text)]


def number(text: str) -> float:
    return float(text.replace("−", "-"))


STAGE_ROLES = {"raw-scores": "raw-scores", "scaled-scores": "scaled-scores", "weights": "probabilities",
               "output": "value-mixture"}


def check_page(lang: str, namespace: dict, page: Page) -> int:
    """Every claim the page makes, checked; how many were checked."""
    q, k, v = (np.asarray(namespace[n].data, dtype=float) for n in "QKV")
    oracle = head(q, k, v)
    arrays = {name: np.asarray(getattr(x, "data", x), dtype=float) for name, x in namespace.items()
              if type(x).__name__ == "Tensor"}
    checked = 0
    for value, role, title in page.figures:
        if role not in STAGE_ROLES:
            continue
        numbers = np.asarray(getattr(value, "data", value), dtype=float)
        stage = oracle[STAGE_ROLES[role]]
        chapter_title = STRINGS.text_in(lang, figures.ROLES[role].title, of="S")
        if title == chapter_title:  # the head's stage on the cells' Q, K, V, or on keys they named otherwise (05)
            keys = [k] + [a for n, a in arrays.items() if n.startswith("K_") and a.shape == k.shape]
            assert any(close(numbers, head(q, key, v)[STAGE_ROLES[role]]) for key in keys), (title, numbers, stage)
            checked += 1
            continue
        for claim in found(lang, "figure.computed", title):
            assert close(evaluate(claim["formula"], arrays), numbers), (title, numbers)
            assert not close(numbers, stage), f"titled not the head's, yet it is: {title}"
            checked += 1
    text = page.text
    for claim in found(lang, "read.formula", text):
        if claim["name"] in arrays:
            assert close(evaluate(claim["formula"], arrays), arrays[claim["name"]]), claim
            checked += 1
    for claim in found(lang, "read.divided", text):
        assert abs(number(claim["root"]) - math.sqrt(q.shape[-1])) < 1e-4, claim
        assert "S" not in arrays or close(arrays["S"], oracle["raw-scores"] / number(claim["divisor"])), claim
        checked += 1
    for claim in found(lang, "read.in_all", text):
        assert abs(number(claim["scale"]) - 1 / math.sqrt(q.shape[-1])) < 1e-4, claim
        checked += 1
    for claim in found(lang, "read.axis", text):
        assert close(arrays["A"], head(q, k, v, axis=int(claim["axis"]))["probabilities"]), claim
        checked += 1
    for claim in found(lang, "read.unscaled", text):
        assert abs(number(claim["root"]) - math.sqrt(q.shape[-1])) < 1e-4, claim
        checked += 1
    upstream = np.asarray(getattr(namespace.get("O_bar"), "data", 0.0), dtype=float)
    for claim in found(lang, "read.accumulated", text):  # a fold's gradient, n times the head's
        times, grads = int(claim["times"]), gradients(q, k, v, upstream)
        assert any(getattr(namespace.get(n), "grad", None) is not None and close(namespace[n].grad, times * grads[n])
                   for n in grads), claim
        checked += 1
    for claim in found(lang, "gradient.accumulated", text):  # every .grad, n times one backward of the cells' L
        times, kept = int(claim["times"]), {n: namespace[n].grad for n in "QKV"}
        for n in "QKV":
            namespace[n].grad = None
        namespace["L"].backward()
        assert all(close(kept[n], times * namespace[n].grad) for n in "QKV"), claim
        checked += 1
    for claim in found(lang, "scale_cells", text):
        follows = found(lang, "stages.follows", text)
        assert follows and all(abs(float(evaluate(f["divided"].removeprefix("÷").strip(), {}))
                                   - number(claim["divisor"])) < 1e-3 for f in follows), claim
        checked += 1
    for claim in found(lang, "stages.follows", text):
        divisor = float(evaluate(claim["divided"].removeprefix("÷").strip(), {}))
        axis = {STRINGS.text_in(lang, key): axis for axis, key in reader.AXES.items()}[claim["along"]]
        assert np.allclose(arrays["A"], head(q, k, v, axis=axis, divisor=divisor)["probabilities"], atol=1e-3), claim
        checked += 1
    return checked


def edited(stem: str, lang: str, scores: str, scale: str, size: tuple[int, int] | None, weights: str,
           extra: str = "") -> list[str]:
    """The notebook's code cells with the grammar's choices in place of the chapter's (the inputs only where
    ``size`` is given), challenges left out (they judge moves on the plane, no claim of the cells'); ``extra`` is
    what 07's and 08's edits add: "twice" (backward run twice in its cell), "v" (only V changed), "follow" (08's
    editor and trace given the cells' A)."""
    cells = []
    for cell in code_of(lang, stem):
        if "challenge(" in cell:
            continue
        if size is not None:
            cell = re.sub(r"Q = Tensor\(.*\)\nK = Tensor\(.*\)\nV = Tensor\(.*\)", inputs_cell(*size, seed=len(cells)),
                          cell)
        cell = cell.replace("scores = Q @ K.transpose(1, 2)", f"scores = {scores}", 1)
        cell = cell.replace("S = scores / math.sqrt(d_k)", f"S = {scale}", 1)
        cell = cell.replace("S = Q @ K.transpose(1, 2) / math.sqrt(d_k)", f"scores = {scores}\nS = {scale}", 1)
        cell = cell.replace("A = S.softmax(2)", f"A = {weights}", 1)
        if 'check("weights"' in cell:  # 02's answer, computed from the learner's own S
            cell = cell.replace("answer = ...", "answer = np.exp(s) / np.exp(s).sum()", 1)
        if extra == "twice":
            cell = cell.replace("L.backward()", "L.backward()\nL.backward()", 1)
        if extra == "v":
            cell = cell.replace("V = Tensor([[[3, -3], [1, 3]]], requires_grad=True)",
                                "V = Tensor([[[3, -3], [2, 3]]], requires_grad=True)", 1)
        if stem == "05_history" and extra:
            cell = cell.replace("K_same = K[:, [0] * K.shape[1]]", f"K_same = {extra}", 1)
        if extra == "follow":
            cell = cell.replace("render_trace(Q, K, V)", f"import math\nscores = {scores}\nS = {scale}\nA = {weights}\n"
                                                         "HeadEditor(Q, K, V, A).show()\nrender_trace(Q, K, V, A)", 1)
        cells.append(cell)
    return cells


def notebook_edits() -> list[tuple]:
    """02's edits on every size; 03's on the second example; 07's with backward once or twice, and V changed or not;
    08's editor and trace given the cells' A: (stem, lang, scores, scale, size, weights, extra)."""
    rng = np.random.default_rng(28)
    grammar = list(itertools.product(SCORES, SCALES, WEIGHTS))
    sample = [grammar[i] for i in rng.choice(len(grammar), size=60, replace=False)]
    found = [("02_scores_softmax_mixture", lang, *edit[1:], "") for edit in EDITS for lang in (edit[0],)]
    found += [("03_shapes", lang, s, c, None, w, "") for s, c, w in sample[:30] for lang in LANGS]
    found += [("07_gradients", lang, s, c, None, w, extra) for (s, c, w), extra in
              zip(sample[30:45], itertools.cycle(["twice", "v", ""])) for lang in LANGS]
    found += [("08_trace", lang, s, c, None, w, "follow") for s, c, w in sample[45:] for lang in LANGS]
    found += [("05_history", lang, "", "", size, "", keys) for keys in SAME_KEYS for size in ((2, 2), (3, 2))
              for lang in LANGS]
    return found + sorted(QUICK_EDITS - set(found), key=edit_id)  # the quick tier's, wherever the draw missed them


QUICK_EDITS = {("02_scores_softmax_mixture", *edit, "") for edit in QUICK} | {
    ("03_shapes", "ru", "K @ Q.transpose(1, 2)", "scores / math.sqrt(d_k)", None, "S.softmax(2)", ""),
    ("07_gradients", "en", "Q @ K.transpose(1, 2)", "scores / math.sqrt(d_k)", None, "S.softmax(2)", "twice"),
    ("08_trace", "ru", "Q @ K.mT", "scores / 3", None, "S.softmax(1)", "follow"),
    ("05_history", "en", "", "", (3, 2), "", "K[:, [1] * K.shape[1]]")}


def edit_id(edit: tuple) -> str:
    stem, lang, scores, scale, size, weights, extra = edit
    return f"{stem[:2]}-{lang}-{scores}-{scale}-{size}-{weights}-{extra}"


NOTEBOOK_EDITS = notebook_edits()


@pytest.mark.parametrize("stem, lang, scores, scale, size, weights, extra",
                         tiered(NOTEBOOK_EDITS, QUICK_EDITS, edit_id))
def test_every_claim_a_page_makes_on_a_drawn_edit_is_true(stem, lang, scores, scale, size, weights, extra,
                                                          monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    try:
        namespace, page = run_cells(edited(stem, lang, scores, scale, size, weights, extra), monkeypatch)
    finally:
        set_language("ru")
    check_page(lang, namespace, page)
    assert "Traceback" not in page.text
    if page.error is not None:  # a refusal the learner can act on, in the edition's language: no crash from inside
        assert type(page.error).__name__ in ("ValueError", "SelfAttentionError"), repr(page.error)
        assert lang == "en" or re.search("[а-яА-Я]", str(page.error)), repr(page.error)


@pytest.mark.slow
def test_the_quick_sample_makes_each_kind_of_claim(monkeypatch, tmp_path):
    """The sample the quick tier runs checks a chapter's title, a formula, a divisor, a chain in all, an axis, a
    widget following the cells and a gradient accumulated, at least once each."""
    monkeypatch.chdir(tmp_path)
    kinds = set()
    claims = ("read.formula", "read.divided", "read.in_all", "read.axis", "stages.follows", "figure.computed",
              "read.accumulated")
    for edit in sorted(QUICK_EDITS, key=edit_id):
        namespace, page = run_cells(edited(*edit), monkeypatch)
        set_language("ru")
        lang = edit[1]
        titles = " ".join(title for *_, title in page.figures)
        kinds |= {key for key in claims if found(lang, key, page.text + " " + titles)}
        assert check_page(lang, namespace, page) > 0
    assert kinds == set(claims)
