"""English: strings every chapter shares (feedback, answers, forms, frames)."""

STRINGS: dict[str, str] = {
    "shape": "Shape",
    "yes": "yes",
    "no": "no",
    "frame.name.query": "query",
    "frame.name.key": "key",
    "frame.name.value": "value",
    "frame.name.score": "score",
    "frame.name.weight": "weight",
    "figure.frame.query": "thin solid frame — queries",
    "figure.frame.key": "dashed frame — keys",
    "figure.frame.value": "double frame — values",
    "figure.frame.score": "dotted frame — scores",
    "figure.frame.weight": "thick solid frame — attention weights",
    "figure.mark": "dotted vertical line — the chosen value {label}",
    "widget.snapshot": "A snapshot at the default values, saved with the notebook. The live widget below "
        "needs a running kernel.",
    "widget.exercise.title": "Exercise: {title}.",
    "widget.exercise.choose": "option",
    "widget.exercise.options": "options of the exercise “{title}”",
    "widget.exercise.letters": "{letters} or {last}",
    "widget.exercise.answer": "answer",
    "widget.exercise.form": "Answer format",
    "widget.exercise.check": "Check",
    "widget.exercise.hint": "Hint",
    "widget.exercise.reveal": "Show answer",
    "widget.exercise.repr": "Answer field of the exercise “{title}”: “Check”, “Hint”, “Show answer” (needs a "
        "running kernel)",
    "answer.missing": "Replace ... with your answer — {form}.",
    "answer.blank": "The answer is empty. Expected: {form}.",
    "answer.words": "The answer contains words or stray characters ({found}); only numbers are expected: {form}.",
    "answer.ambiguous_comma": "«{typed}» can be read two ways — the commas as separators or as decimal commas: "
        "{readings}. Write decimals with a point, or separate numbers with semicolons. Expected: {form}.",
    "answer.read_as": "Read: {numbers} (shape {shape}).",
    "answer.malformed": "Could not read that: check the brackets and commas (use a decimal point). Expected: {form}.",
    "answer.not_numbers": "The answer must be made of numbers. Expected: {form}.",
    "answer.non_finite": "NaN and infinity will not do: every number in the answer must be finite. Expected: {form}.",
    "answer.too_large": "Numbers that large (over a million in magnitude) do not occur here. Expected: {form}.",
    "answer.beyond_float64": "That number does not even fit in a float64 (whose limit is about 1.8·10³⁰⁸), and "
        "the numbers here are under a million. Expected: {form}.",
    "answer.too_long": "The answer is too long: over {limit} characters. Expected: {form}.",
    "answer.too_many": "The answer has too many numbers: over {limit}. Expected: {form}.",
    "answer.too_deep": "The brackets are nested too deeply: over {limit} levels. Expected: {form}.",
    "answer.choice_missing": "Pick one option — {letters}.",
    "answer.choice_form": "The answer is one option letter: {letters}.",
    "feedback.correct": "Correct.",
    "feedback.wrong": "Not yet.",
    "feedback.right": "Your answer matches what the engine just computed.",
    "feedback.right_rounded": "Right, as rounded; the exact value is {exact}.",
    "feedback.partial": "Right for {right}; wrong for {wrong}.",
    "hint.locked": "Hints open after a first attempt: try an answer of your own first.",
    "hint.step": "Hint {step} of {steps}: {hint}",
    "hint.first_number": "the answer's first number is {first}.",
    "hint.first_row": "on the worked example the answer's first row is {first}.",
    "reveal.locked": "Give your own answer first, even a wrong one: the answer opens after an attempt.",
    "reveal.answer": "Answer: {answer}.",
    "progress.note.backup": "The progress file {path} could not be read: it is kept as {backup}, and progress "
        "starts afresh.",
    "progress.note.memory": "Progress cannot be saved in {path} ({reason}): it is kept in this kernel only and "
        "is lost when the kernel restarts. The environment variable LLM_FROM_SCRATCH_PROGRESS "
        "sets another path.",
    "progress.header": "The chapter's exercises checked in any notebook and any kernel:",
    "progress.right": "right",
    "progress.tried": "tried, not right yet",
    "progress.open": "not checked",
    "progress.attempts": "attempts",
    "code.stub": "Replace the ... in the function's body with your code.",
    "code.not-callable": "A function is needed, but this is {returned}. Pass the function's name without "
        "parentheses: the function itself, not what it returns.",
    "code.right": "{function} matches the engine in all {count} cases, the hidden ones included.",
    "code.right_precision": "{function} matches the engine in all {count} cases, the hidden ones included, to "
        "{error} of the largest entry: float32 and other formats less precise than float64 compute so.",
    "code.raised": "{function} raised an exception {case} — {error}.",
    "code.raised_at": "{function} raised an exception {case} — {error}. Line {lineno} of your code: {line}",
    "code.timeout": "{function} ran longer than {seconds} s {case} and was stopped. Milliseconds are enough here: "
        "is there a loop that never ends?",
    "code.timeout_at": "{function} ran longer than {seconds} s {case} and was stopped. Milliseconds are enough "
        "here: is there a loop that never ends? It stopped at line {lineno} of your code: {line}",
    "code.unreadable": "{function} returned {returned} {case}; it should return {expected}.",
    "code.sized": "a {kind} of length {length}",
    "code.wrong-shape": "{function} returned shape {shapes} {case}; it should return {expected}.",
    "code.mutated": "The result is right, but {function} changes its inputs in place: {arguments} (seen {case}). "
        "Write x = x / c, not x /= c: the caller does not expect its arrays to change.",
    "code.not-finite": "{function} returned nan or inf {case}, although the inputs are finite and so is the "
        "engine's result.",
    "code.differs": "The numbers {case} differ from the engine's: {outputs} (largest difference {difference}). "
        "Check the code against the formulas step by step.",
    "figure.alt": "Every number in the figure is printed as a text table right below it.",
    "folded.summary": "Answer hidden: open it once you have answered the question above.",
}
