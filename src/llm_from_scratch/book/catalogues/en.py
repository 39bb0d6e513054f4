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
    "widget.snapshot": "A snapshot at the default values, saved with the notebook: it shows without a kernel. Once "
        "the cell has run, the live widget works in its place.",
    "figure.table_summary": "The figure's numbers as a table",
    "widget.exercise.title": "Exercise: {title}.",
    "widget.exercise.choose": "option",
    "widget.exercise.options": "options of the exercise “{title}”",
    "widget.exercise.letters": "{letters} or {last}",
    "widget.exercise.answer": "answer",
    "widget.exercise.form": "Answer format",
    "widget.exercise.check": "Check",
    "widget.exercise.hint": "Hint",
    "widget.exercise.in_code": "Or answer in code: in the cell below, write your answer in place of the three dots "
                               "and run it. The answer is saved with the notebook.",
    "widget.exercise.new_example": "New example",
    "widget.exercise.own_values": "A cell above changed, so this answer is judged on your values: {values}.",
    "widget.exercise.variant": "New example {n}.",
    "widget.exercise.reveal": "Show answer",
    "widget.exercise.repr": "Answer field of the exercise “{title}”: “Check”, “Hint”, “Show answer” (needs a "
        "running kernel)",
    "answer.missing": "Replace ... with your answer — {form}.",
    "answer.blank": "The answer is empty. Expected: {form}.",
    "answer.words": "The answer contains words or stray characters ({found}); only numbers are expected: {form}.",
    "answer.ambiguous_comma": "“{typed}” can be read two ways — the commas as separators or as decimal commas: "
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
    "answer.long_expression": "One number is written as too long an expression: over {limit} symbols. Work it out, "
        "or write it shorter. Expected: {form}.",
    "answer.too_deep": "The brackets are nested too deeply: over {limit} levels. Expected: {form}.",
    "answer.choice_missing": "Pick one option — {letters}.",
    "answer.choice_form": "The answer is one option letter: {letters}.",
    "status.right": "You answered this question before (attempts: {attempts}), and one of them was right.",
    "status.tried": "You answered this question before (attempts: {attempts}), but none was right yet.",
    "feedback.correct": "Correct.",
    "feedback.wrong": "Not yet.",
    "mis.percent-for-fraction": "Those look like percentages without the % sign: 100 times the fractions asked for. "
        "Write fractions (0.25, not 25), or add the sign.",
    "mis.truncated": "The digits past the last one you kept were cut off, not rounded: round to the nearest (0.987 to "
        "two decimals is 0.99, not 0.98), or keep more decimals.",
    "mis.rounded-coarsely": "Rounded too coarsely, to one decimal: keep as many decimals as the question asks for, "
        "and at least two.",
    "mis.sign-lost": "One number has the wrong sign. Check the signs against your working.",
    "mis.negated": "Every sign is flipped, as if the whole answer were multiplied by −1. Check what is subtracted "
        "from what.",
    "mis.two-slips": "Two slips at once. 1) {first} 2) {second}",
    "feedback.right": "Your answer matches what the engine computes.",
    "feedback.right_rounded": "Within rounding; the exact value is {exact}.",
    "feedback.partial": "Right for {right}; wrong for {wrong}.",
    "hint.locked": "Hints open after a first attempt: try an answer of your own first.",
    "hint.step": "Hint {step} of {steps}: {hint}",
    "hint.first_row": "on the worked example the answer's first row is {first}.",
    "reveal.locked": "Give your own answer first, even a wrong one: the answer opens after an attempt.",
    "reveal.answer": "Answer: {answer}.",
    "progress.note.backup": "The progress file {path} could not be read: it is kept as {backup}, and progress "
        "starts afresh.",
    "progress.note.locked": "Another kernel has held the progress file {path} for more than {seconds} s: progress "
        "is kept in this kernel only from now on and is lost when the kernel restarts.",
    "progress.note.memory": "Progress cannot be saved in {path} ({reason}): it is kept in this kernel only and "
        "is lost when the kernel restarts. The environment variable LLM_FROM_SCRATCH_PROGRESS "
        "sets another path.",
    "progress.header": "The chapter's exercises by notebook, with attempts from every notebook and kernel:",
    "progress.right": "right",
    "progress.tried": "tried, not right yet",
    "progress.open": "not checked",
    "export.description": "Learners' progress: one table of skills for a teacher.",
    "export.help": "merge learners' progress files into one table",
    "export.csv": "write the table as CSV",
    "export.language": "the language of the skills' names",
    "export.not_a_store": "it is not a progress file",
    "export.skipped": "{path}: could not be read ({reason}) and was skipped; the file is unchanged.",
    "export.unknown_chapter": "{path}: chapter {chapter} is unknown to this installation and was skipped.",
    "progress.attempts": "(attempts: {attempts})",
    "progress.notebook": "{number} · {title}",
    "progress.other": "Exercises not in the chapter's notebooks",
    "progress.count": "{right} of {total} right, {tried} tried but not right yet",
    "progress.total": "total",
    "progress.chapter_total": "chapter total",
    "progress.skills_header": "Skills (mastered once enough answers right at the first attempt without hints are "
        "counted; for questions with fresh examples only the fresh examples count):",
    "progress.skill_row": "{state}: {first_right} of {required} counted (attempts: {attempts}, hints: {hints})",
    "progress.mastered": "mastered",
    "progress.not_mastered": "not mastered",
    "exercise.predict_first": "Predict first: answer the question “{title}” above, then move and check.",
    "exercise.unknown_near": "There is no exercise {id!r}. Did you mean {near!r}? All exercises: {known}.",
    "exercise.unknown": "There is no exercise {id!r}; there are: {known}.",
    "exercise.not_code": "{id!r} is not a code exercise: answer it with check({id!r}, answer).",
    "variant.invalid": "A variant's number is a whole number, 0 or more: {variant} is not.",
    "variant.none": "The exercise “{title}” has one variant, 0: it has no fresh examples.",
    "code.stub": "Replace the ... in the function's body with your code.",
    "code.not-callable": "A function is needed, but this is {returned}. Pass the function's name without "
        "parentheses: the function itself, not what it returns.",
    "code.right": "{function} matches the engine in all {count} cases, the hidden ones included.",
    "code.right_precision": "{function} matches the engine in all {count} cases, the hidden ones included, to "
        "{error} of the largest entry: float32 and other formats less precise than float64 behave this way.",
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
    "given.right": "That is the answer for your values. {difference} This attempt is kept apart from the exercise's "
                   "own and does not count towards any skill.",
    "given.exercises_answer": "That is the answer on the exercise's own inputs, but your values changed. "
                              "{difference} Compute the answer from yours; this attempt is kept apart and does not "
                              "count towards any skill.",
    "given.wrong": "Not the answer for your values. {difference} Compute it from your cells' {names} as the "
                   "question asks; this attempt is kept apart and does not count towards any skill.",
    "given.form": "For your values the answer is an array of shape {shape}.",
    "given.names": "check(\"{id}\", answer, …) reads {names} by name; it was given {given}.",
    "given.none": "check(\"{id}\", answer) reads no values besides the answer; it was given {given}.",
    "given.variant": "A variant has inputs of its own: check(\"{id}\", answer, variant={variant}) takes no values "
                     "from your cells.",
    "given.unfit": "{names}: their shapes do not make this exercise's answer.",
    "given.rank": "Pass the whole {name}, the rank-{rank} tensor your cells computed, not a row of it such as "
                  "{name}.data[0, 0].",
    "given.not_numbers": "{name} must hold finite numbers: pass the tensor your cells computed.",
    "progress.own": "(attempts on your own values: {own})",
    "feedback.computed": "This answer is a tensor the engine computed, not numbers worked out by hand: it is "
                         "judged, but it does not count towards mastering a skill.",
    "figure.alt": "Every number in the figure is also in the text table below it.",
    "figure.live": "The figure follows the slider; the main numbers are in the lines under it.",
    "folded.summary": "Answer hidden: open it once you have answered the question above.",
}
