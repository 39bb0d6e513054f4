"""What one Enter in an exercise's answer box costs: the functions it passes through, the store's opens.

An exercise form of every chapter (``enter_forms()`` in its module of benchmarks/hooks/: a numbers exercise and a
choice) is made in this process on a fresh progress store; then one answer is submitted as Enter submits it
(``AnswerBox.submit``) and everything the kernel does for it is counted with ``sys.setprofile``: Python functions
called (distinct and calls; "ours" are the package's), the store file's reads and writes (an atomic replace), and
the store's lock taken (an answer reads a snapshot under the lock, is judged with no lock held, then is recorded in
one locked read-modify-write: two reads, one write, two locks).

    python benchmarks/bench_enter.py
"""

from __future__ import annotations

import builtins
import collections
import io
import os
import pathlib
import sys
import tempfile

from hooks import hooks_of

from llm_from_scratch.book.chapters import chapters

ROOT = pathlib.Path(__file__).resolve().parents[1]


def count_enter(form, answer: str, store_file: pathlib.Path) -> dict[str, int]:
    """Submit ``answer`` in ``form`` once, as Enter does, and count what it took."""
    calls: collections.Counter = collections.Counter()
    files = collections.Counter()
    real_open, real_replace = io.open, os.replace

    def counting_open(file, mode="r", *args, **kwargs):
        if isinstance(file, (str, os.PathLike)):
            files["store reads"] += pathlib.Path(os.fspath(file)) == store_file
        return real_open(file, mode, *args, **kwargs)

    def counting_replace(source, target, *args, **kwargs):
        files["store writes"] += pathlib.Path(os.fspath(target)) == store_file
        return real_replace(source, target, *args, **kwargs)

    def profile(frame, event, _arg):
        if event == "call":
            code = frame.f_code
            calls[(code.co_filename, code.co_firstlineno, code.co_name)] += 1

    builtins.open = io.open = counting_open
    os.replace = counting_replace
    sys.setprofile(profile)
    try:
        form.answer.submit(answer)
    finally:
        sys.setprofile(None)
        builtins.open = io.open = real_open
        os.replace = real_replace
    ours = [n for (file, *_), n in calls.items() if "llm_from_scratch" in file]
    return {"functions": len(calls), "calls": sum(calls.values()), "ours": len(ours), "our calls": sum(ours),
            "store reads": files["store reads"], "store writes": files["store writes"],
            "locks taken": sum(n for (file, _, name), n in calls.items() if "filelock" in file and name == "acquire")}


def main() -> None:
    columns = ("functions", "calls", "ours", "our calls", "store reads", "store writes", "locks taken")
    print(f"{'chapter':<11}{'exercise':<14}{'answer':<20}" + "".join(f"{c:>13}" for c in columns))
    for chapter in chapters(ROOT):
        hooks = hooks_of(chapter)
        if hooks is None:
            continue
        with tempfile.TemporaryDirectory() as folder:
            store_file = pathlib.Path(folder) / "progress.json"
            os.environ["LLM_FROM_SCRATCH_PROGRESS"] = str(store_file)
            for exercise_id, make, answer in hooks.enter_forms():
                form = make()
                form.answer.submit(answer)  # the first answer makes the store; the one measured finds it there
                counted = count_enter(form, answer, store_file)
                print(f"{chapter.name:<11}{exercise_id:<14}{answer:<20}"
                      + "".join(f"{counted[c]:>13}" for c in columns))


if __name__ == "__main__":
    main()
