"""Every question before its answer, and Russian written in its own words.

1. Walking each edition in reading order — every notebook, every cell, prose, the code's comments and
   outputs, folded ones included, and what each earlier exercise says once it is attempted (its explanation,
   hints and the feedback of its options) — no computed exercise's answer appears as numbers before the
   exercise is asked. The answer counts as shown where its numbers stand in a row, each printed to at least
   two decimals unless it is whole: the whole answer anywhere in a text, or one of its rows on one line. A
   row of whole numbers, or of zeros and ones only, occurs everywhere (shapes, indices) and says nothing
   alone; choice questions are judged by a read-through instead.
2. No sentence of the Russian edition — its prose, its code's comments, what its cells print, and every
   string the package prints in Russian — follows a sentence of the source (tests/data/source, a copy of
   the chapter's source text): no run of five word stems (the first five letters of each word of three letters or
   more) is shared.
"""

import pathlib
import re

import numpy as np
import pytest
from support.notebooks import comments, exercises_asked, load, outputs_text, shown_lines

from llm_from_scratch.book.chapters import Chapter, chapters
from llm_from_scratch.book.declare import OPTIONS
from llm_from_scratch.book.text import LANGUAGES, set_language
from llm_from_scratch.ch27.evidence import evidence
from llm_from_scratch.ch27.exercises import EXERCISE_BOOK, EXERCISES
from llm_from_scratch.ch27.strings import text

ROOT = pathlib.Path(__file__).resolve().parents[1]
CH27 = next(c for c in chapters(ROOT) if c.name == "chapter27")
SOURCE = ROOT / "tests" / "data" / "source" / "ch27-self-attention.ru.txt"
SHARED_SOURCE = ROOT.parent / "shared" / "source" / SOURCE.name  # where the book keeps it, when it is at hand
NUMBER = re.compile(r"(?<![\w.#])[-−]?\d+(?:\.\d+)?(?!\w)")
TAG = re.compile(r"<[^>]*>")
# (exercise, the text that shows the run): why it may stand before the question
SHOWN_ON_PURPOSE = {
    ("output-shape", "03_shapes.ipynb"): "the question gives V's shape, [4, 7, 5]: O takes B and T from the inputs "
                                         "and d_v from V, which is what it asks the learner to see",
}
LAST_ROW_UNMASKED = ("the last query sees every key under a causal mask, so its row is the second example's unmasked "
                     "row, worked by hand in 03 (and shown again in 07's row by row S̄ and 08's trace): the question "
                     "asks whether the learner sees that")
SHOWN_ON_PURPOSE |= {("causal-rows", name): LAST_ROW_UNMASKED
                     for name in ("03_shapes.ipynb", "07_gradients.ipynb", "08_trace.ipynb")}


def _numbers(text: str) -> list[list[tuple[str, float]]]:
    """The numbers of each line of ``text``, as printed and as values."""
    return [[(m[0], float(m[0].replace("−", "-"))) for m in NUMBER.finditer(line)]
            for line in TAG.sub(" ", text).splitlines()]


def _shows(printed: list[tuple[str, float]], run: list[float]) -> str | None:
    """The printed numbers that state ``run`` in order, or None."""
    for start in range(len(printed) - len(run) + 1):
        window = printed[start:start + len(run)]
        if all(_states(text, value, x) for (text, value), x in zip(window, run)):
            return " ".join(text for text, _ in window)
    return None


def _states(text: str, value: float, x: float) -> bool:
    decimals = len(text.split(".")[1]) if "." in text else 0
    if x != round(x) and decimals < 2:
        return False  # "0.0" says nothing of 0.014166
    return abs(value - x) <= (0.5 * 10 ** -decimals if decimals else 0) + 1e-12


def _found(lines: list[list[tuple[str, float]]], expected) -> str | None:
    """Where ``lines`` state the answer: all of it in a row, or one of its rows on one line (a row ending in
    zeros, as a causal mask leaves it, by its entries before them)."""
    answer = np.asarray(expected, dtype=float)
    if set(answer.ravel()) <= {0.0, 1.0}:
        return None
    whole = _shows([number for line in lines for number in line], answer.ravel().tolist())
    rows = [] if answer.ndim != 2 or np.array_equal(answer, np.round(answer)) else answer.tolist()
    rows = [row[:len(np.trim_zeros(row, "b"))] for row in rows]  # a causal row's visible part
    rows = [row for row in rows if len(row) >= 2 and not set(row) <= {0.0, 1.0}]
    return whole or next((shown for row in rows for line in lines if (shown := _shows(line, row))), None)


def _reading(lang: str, chapter: Chapter = CH27):
    """(notebook name, cell index, cell) of an edition, in reading order."""
    for path in chapter.notebooks(lang):
        for index, cell in enumerate(load(path).cells):
            yield path.name, index, cell


def said_after_an_attempt(exercise, ev, lang: str) -> str:
    """What an exercise tells a learner once attempted: its explanation, its hints and its options' feedback."""
    facts = {**exercise.inputs(ev), **exercise.facts(exercise.expected(ev), ev)}
    keys = [exercise.explain, *exercise.hints,
            *(exercise.key(name) for name in exercise.fields if exercise.options
              and (name in OPTIONS or name == "right" or name.startswith("why_")))]
    said = [EXERCISE_BOOK.present.said(exercise, key, facts, lang) for key in keys]
    if exercise.kind == "state":  # a move's answer is words, not its expected
        said.append(EXERCISE_BOOK.present.said(exercise, "reveal.answer", {"answer": facts["answer"]}, lang))
    return "\n".join(said)


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_no_answer_stands_before_its_question(lang):
    set_language(lang)
    ev, seen, found = evidence(), [], []
    for name, index, cell in _reading(lang):
        asked = [EXERCISES[i] for i in exercises_asked(cell.source)] if cell.cell_type == "code" else []
        for exercise in asked:
            if exercise.kind == "numbers":
                for where, lines in seen:
                    shown = _found(lines, exercise.expected(ev))
                    if shown and (exercise.id, where[0]) not in SHOWN_ON_PURPOSE:
                        found.append(f"{exercise.id} stands in {where[0]} {where[1]}: {shown}")
        text = cell.source if cell.cell_type == "markdown" else f"{comments(cell.source)}\n{outputs_text(cell)}"
        seen.append(((name, f"cell {index}"), _numbers(text)))
        for exercise in asked:
            said = said_after_an_attempt(exercise, ev, lang)
            seen.append(((name, f"after {exercise.id} is attempted"), _numbers(said)))
    assert not found, "\n".join(found)


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_the_output_that_answers_a_question_is_folded(lang):
    """Below a question, until the next question or a cell that opens with a heading (a heading further down a
    cell is on the same screen), an output that states its answer is collapsed: the learner answers with the
    answer out of sight."""
    ev, open_question, found = evidence(), None, []
    for name, index, cell in _reading(lang):
        asked = [EXERCISES[i] for i in exercises_asked(cell.source)] if cell.cell_type == "code" else []
        if asked or index == 0 or (cell.cell_type == "markdown" and cell.source.startswith("#")):
            open_question = next((e for e in asked if e.kind == "numbers"), None)
        elif open_question and cell.cell_type == "code":
            on_screen = "\n".join(line for output in cell.get("outputs", []) for line in shown_lines(output))
            shown = _found(_numbers(on_screen), open_question.expected(ev))
            if shown:
                found.append(f"{name} cell {index} shows the answer to {open_question.id}, unfolded: {shown}")
    assert not found, "\n".join(found)


# cells (their ids without the edition's prefix) that follow a fold unfolded, and why they give nothing away
OPEN_AFTER_A_FOLD = {
    "02-13": "points to the row sums on the folded map and to 27.3's first question",
    "02-15": "reads the output printed under the fold, and gives none of the weights step 3 asked for",
    "03-hand-10": "opens the next step of the hand computation",
    "03-hand-17": "opens the next step of the hand computation",
    "07-second-after": "says what the question did not ask: the rows of S̄ below the first",
}
OPENS_WHAT_FOLLOWS = re.compile(r"#|\*\*(Try it|Попробуйте)")


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_the_prose_right_below_a_fold_is_folded_too(lang):
    """The text right after a folded answer is on the same screen: where it explains the answer it is folded as
    well (a ``<details>`` of its own first); else it opens a section or a try-it, or is named above with why."""
    found = []
    for notebook in CH27.notebooks(lang):
        cells = load(notebook).cells
        for cell, after in zip(cells, cells[1:]):
            if cell.cell_type != "code" or "show_folded(" not in cell.source or after.cell_type != "markdown":
                continue
            opening = after.source.startswith("<details>") or OPENS_WHAT_FOLLOWS.match(after.source)
            if not opening and after.get("id", "").split("-", 1)[1] not in OPEN_AFTER_A_FOLD:
                found.append(f"{notebook.name} {after.get('id')}: {after.source[:80]}")
    assert not found, "\n".join(found)


def plain(text: str) -> str:
    """A text as the exercises' give-away phrases read it: tags and TeX's markup gone (``\\bar{V}`` is V̄,
    ``^\\top`` is ᵀ, ``\\sqrt{d_k}`` is √dk), lower case, subscripts and underscores dropped (q_0, q₀ and q_{0}
    are q0), ё as е, one space between words."""
    text = TAG.sub(" ", text)
    text = re.sub(r"\^\{?\\(?:top|mathsf\{?T\}?)\}?", "ᵀ", text)
    text = re.sub(r"\\bar\{?(\w)\}?", "\\1\u0304", text)
    text = re.sub(r"\\sqrt\{?", "√", text)
    text = re.sub(r"\\([a-zA-Z]+)", r" \1 ", text)
    text = text.lower().replace("ё", "е").replace("−", "-").replace("**", "")
    text = text.translate(str.maketrans("₀₁₂₃₄₅₆₇₈₉", "0123456789", "_{}$`"))
    return " ".join(text.split())


def asked_in(exercise, ev, lang: str) -> str:
    """What the cell that asks an exercise says before any answer: its title and its prompt."""
    facts = exercise.inputs(ev)
    said = EXERCISE_BOOK.present.said
    return "\n".join(said(exercise, exercise.key(name), facts, lang) for name in ("title", "prompt"))


def given_away(lang: str, chapter: Chapter = CH27) -> list[str]:
    """Where, walking an edition in reading order, a phrase an exercise declares would give it away
    (``Exercise.gives_away``) stands before the learner answers it: in prose, code comments or outputs above the
    cell that asks it (earlier exercises' options included), in what an earlier exercise says once attempted
    (its hints, feedback and explanation: a review question must not be settled by an earlier one's feedback),
    or in its own title and prompt."""
    ev, said, found = evidence(), [], []
    for name, index, cell in _reading(lang, chapter):
        asked = [EXERCISES[i] for i in exercises_asked(cell.source)] if cell.cell_type == "code" else []
        for exercise in asked:
            before = [*said, (f"its own prompt ({name} cell {index})", plain(asked_in(exercise, ev, lang)))]
            for pattern in exercise.gives_away[lang]:
                found += [f"{exercise.id} ({name} cell {index}) is given away in {where}: “{m[0]}”"
                          for where, text in before if (m := re.search(pattern, text))]
        text = cell.source if cell.cell_type == "markdown" else f"{comments(cell.source)}\n{outputs_text(cell)}"
        said.append((f"{name} cell {index}", plain(text)))
        said += [(f"what {e.id} says once attempted", plain(said_after_an_attempt(e, ev, lang))) for e in asked]
    return found


# What stood above its question in the notebooks of commit 0b0a4b9 (run given_away on them to see all of it):
# each must still be found by the phrases its exercise declares.
LEAKS_ONCE_FOUND = [
    ("plane-long-prediction", "ru", "b) Нужно, чтобы оценка q₁·k₁ превысила q₁·k₀ с запасом: важна разность оценок, а "
                                    "удлинение q₁ увеличивает положительную разность."),
    ("plane-long-prediction", "en", "b) The score q₁·k₁ must exceed q₁·k₀ by a wide margin: the difference of scores "
                                    "counts, and making q₁ longer widens a positive difference."),
    ("output-shape", "ru", "| $d_v$ | ширина значений, а с ней и выхода |"),
    ("output-shape", "en", "| $d_v$ | the width of the values, and so of the output |"),
    ("output-shape", "en", r"A\in\mathbb{R}^{B\times T\times T},\quad O\in\mathbb{R}^{B\times T\times d_v}."),
    ("why-root-dk", "ru", "дисперсия суммы равна $d_k$. После деления на $\\sqrt{d_k}$ дисперсия входа softmax равна 1 "
                          "при любой\nширине."),
    ("why-root-dk", "en", "variance is $d_k$. After dividing by $\\sqrt{d_k}$, the variance of softmax's input is 1 at "
                          "any width."),
    ("recurrent-vs-self", "ru", "Декодер на\nкаждом шаге сам собирает себе контекст."),
    ("recurrent-vs-self", "en", "At every step the\ndecoder gathers its own context."),
    ("identical-keys", "ru", "c) Куда угодно, где q₀·k₁ = q₀·k₀: веса строки равны, когда равны её оценки."),
    ("identical-keys", "en", "a) Only onto k₀: only identical keys get equal weights."),
    ("small-query-gradients", "ru", "Через якобиан\nградиент по весам проходит к оценкам, а через них — к $Q$ и $K$, "
                                    "поэтому до них доходит всё\nменьше."),
    ("small-query-gradients", "en", "Through the Jacobian the gradient of the weights passes to the scores, and "
                                    "through them to $Q$ and\n$K$, so less and less reaches them."),
    ("small-query-gradients", "ru", "норма якобиана softmax ‖diag(a) − aaᵀ‖ для строки q_0 = 0.0279"),
    ("small-query-gradients", "en", "norm of the softmax Jacobian ‖diag(a) − aaᵀ‖ for row q_0 = 0.0279"),
    ("future-access", "ru", "маски нет: каждому запросу видны все позиции ключей; d_k = 2, d_v = 2"),
    ("future-access", "en", "no mask: every query sees every key position; d_k = 2, d_v = 2"),
    # issue 43's review questions: a prompt that named the cause, a sentence of 01, a plane task's feedback
    ("one-hot-gradient", "ru", "Умножим Q разобранного примера на 4: в каждой строке A весь вес окажется у одного "
                               "ключа (с точностью до шести знаков), а градиент Q̄ (при Ō = I) станет почти нулевым."),
    ("one-hot-gradient", "en", "Multiply the worked example's Q by 4: in every row of A all the weight goes to one key "
                               "(to six decimals), and the gradient Q̄ (with Ō = I) becomes nearly zero."),
    ("no-matching-key", "ru", "Отрицательная оценка ещё не\nозначает веса, близкого к нулю: важно, насколько она "
                              "меньше соседней."),
    ("no-matching-key", "en", "A negative score does not yet mean a\nweight near zero: what counts is how much smaller "
                              "it is than its neighbour."),
    ("identical-keys", "ru", "Да. Softmax строки видит только её оценки, и две равные оценки дают по 1/2."),
    ("identical-keys", "en", "Yes. A row's softmax sees only its scores, and two equal scores give 1/2 each."),
]


@pytest.mark.parametrize("exercise_id, lang, text", LEAKS_ONCE_FOUND)
def test_the_phrases_find_the_leaks_once_found(exercise_id, lang, text):
    assert any(re.search(pattern, plain(text)) for pattern in EXERCISES[exercise_id].gives_away[lang])


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_no_exercise_is_offered_above_the_cell_that_asks_it(lang):
    """An exercise's form (review()'s practice included) stands nowhere above the cell that asks it: the
    prose before that cell introduces what it needs (10 once offered head-width, d_model = 768 and h = 16,
    above the section that introduces d_model and h)."""
    set_language(lang)
    forms = {}  # an exercise's form as its output names it: the words up to its title
    for e in EXERCISE_BOOK.exercises.values():
        title = EXERCISE_BOOK.title(e.id)
        said = text("widget.exercise.repr", title=title)
        forms[e.id] = said[:said.index(title) + len(title)]
    asked, found = set(), []
    for name, index, cell in _reading(lang):
        if cell.cell_type != "code":
            continue
        shown = outputs_text(cell)
        found += [f"{exercise_id} is offered in {name} cell {index}, above the cell that asks it"
                  for exercise_id, form in forms.items() if exercise_id not in asked and form in shown
                  and exercise_id not in exercises_asked(cell.source)]
        asked |= set(exercises_asked(cell.source))
    assert not found, "\n".join(found)


def test_the_numbers_find_a_causal_row_once_printed():
    """01 printed softmax of the rows [0, 1] above the causal rows of 09, whose second row they are."""
    printed = "Tensor([[0.450166, 0.549834],\n        [0.268941, 0.731059]], op='exp')"
    assert _found(_numbers(printed), EXERCISES["causal-rows"].expected(evidence()))


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_no_phrase_gives_a_question_away(lang):
    set_language(lang)
    found = given_away(lang)
    assert not found, "\n".join(found)


def test_every_exercise_declares_what_would_give_it_away():
    for exercise in EXERCISE_BOOK.exercises.values():
        assert set(exercise.gives_away) == set(LANGUAGES), exercise.id
        for lang, patterns in exercise.gives_away.items():
            assert patterns, f"{exercise.id} declares no phrase in {lang}"
            for pattern in patterns:
                assert re.compile(pattern).pattern == pattern and plain(pattern) is not None


# --- the Russian edition's own words ----------------------------------------------------------------------

WORD = re.compile(r"[а-яё]{3,}")
RUN = 5  # stems in a row that a sentence may not share with the source


def stems(text: str) -> list[str]:
    return [word[:5] for word in WORD.findall(text.lower().replace("ё", "е"))]


def _source_runs() -> set[tuple[str, ...]]:
    words = stems(SOURCE.read_text(encoding="utf-8"))
    return {tuple(words[i:i + RUN]) for i in range(len(words) - RUN + 1)}


def copied(text: str, source: set[tuple[str, ...]]) -> list[str]:
    """The sentences of ``text`` that share a run of RUN stems with the source."""
    sentences = re.split(r"(?<=[.!?:;])\s+|\n\s*\n|\s—\s", TAG.sub(" ", text))
    return [" ".join(s.split()) for s in sentences
            if any(tuple(stems(s)[i:i + RUN]) in source for i in range(len(stems(s)) - RUN + 1))]


def test_the_source_is_the_books():
    """The copy the tests read is the chapter's source; where the book's own copy is at hand, they agree."""
    assert SOURCE.is_file(), "the source text the copy check reads is part of the project"
    if SHARED_SOURCE.is_file():
        assert SOURCE.read_bytes() == SHARED_SOURCE.read_bytes()


@pytest.mark.parametrize("sentence", [
    "Базовая рекуррентная модель энкодера–декодера может пропускать всё исходное предложение через один вектор "
    "фиксированного размера и опираться на него на каждом шаге декодера.",
    "Сначала прочитайте строку вероятностей вдоль позиций ключей, затем проследите, как она превращается во "
    "взвешенные слагаемые значений.",
    "Позиционная информация, несколько голов, выходная проекция, остаточные связи и кэширование появятся в "
    "следующих главах.",
])
def test_the_check_finds_sentences_that_follow_the_source(sentence):
    """Sentences the chapter once had, close copies of the source with their words inflected: each is found."""
    assert copied(sentence, _source_runs()) == [sentence]


def test_no_russian_sentence_follows_the_source():
    source, found = _source_runs(), []
    for name, index, cell in _reading("ru"):
        text = cell.source if cell.cell_type == "markdown" else f"{comments(cell.source)}\n{outputs_text(cell)}"
        found += [f"{name} cell {index}: {sentence}" for sentence in copied(text, source)]
    catalogue = EXERCISE_BOOK.strings  # the exercises' strings, then the chapter's, then the book's
    while catalogue:
        for key, value in catalogue.strings["ru"].items():
            found += [f"the string {key}: {sentence}" for sentence in copied(value, source)]
        catalogue = catalogue.parent
    assert not found, f"{len(found)} sentences follow the source:\n" + "\n".join(found)
