"""The way the running code takes through the package's files on three flows a maintainer follows.

For each flow of every chapter (``flows()`` in its module of benchmarks/hooks/: an answer typed in a form, a code
check, review with four items due) it is prepared, then run once under ``sys.setprofile``, and what it took is
printed: the package's files the running code entered, in the order first entered, each with how many times it was
(``--way``: every hop in order), the hops
(each time the running code moves from one of the package's files to another) and, of those, the returns to a
file already left; the store file's opens and its lock's, and the head's runs (``run_head``). The files are
followed on the flow's spine: a call that enters a file more than ``--depth`` files deep (calls within one file are
one step) is counted in the file that called it, so leaves (a string's lookup, a number's formatting) do not bury
the way.

    python benchmarks/bench_paths.py [--depth 3]
"""

from __future__ import annotations

import argparse
import os
import pathlib
import sys
import tempfile

from hooks import hooks_of

from llm_from_scratch.book.chapters import chapters

ROOT = pathlib.Path(__file__).resolve().parents[1]
PACKAGE = pathlib.Path(__import__("llm_from_scratch").__file__).parent


def trace(run, store_file: pathlib.Path, depth: int) -> dict:
    """Run ``run()`` once and return the files entered on its spine, its hops, its returns, the store's and its
    lock's opens and the head's runs."""
    stack: list[tuple[str, int, str]] = []  # the package's frames now running: file, files deep, file counted in
    way: list[str] = []
    counts = {"store opens": 0, "lock opens": 0, "head runs": 0}
    lock_file = pathlib.Path(f"{store_file}.lock")

    def audit(event, args):  # every open, by open() or os.open (the lock's), raises this event
        if event == "open" and counting and isinstance(args[0], (str, os.PathLike)):
            opened = pathlib.Path(os.fspath(args[0]))
            counts["store opens"] += opened == store_file
            counts["lock opens"] += opened == lock_file

    def profile(frame, event, _arg):
        file = frame.f_code.co_filename
        if not file.startswith(str(PACKAGE)):
            return
        if event == "call":
            counts["head runs"] += frame.f_code.co_name == "run_head"
            parent_file, level, shown = stack[-1] if stack else (None, 0, None)
            level += file != parent_file
            stack.append((file, level, file if level <= depth else shown))
        elif event == "return" and stack:
            stack.pop()
        else:
            return
        now = stack[-1][2] if stack else None
        if now is not None and (not way or way[-1] != now):
            way.append(now)

    counting = True
    sys.addaudithook(audit)  # an audit hook stays for the process: ``counting`` turns it off
    sys.setprofile(profile)
    try:
        run()
    finally:
        sys.setprofile(None)
        counting = False
    returns = sum(way[i] in way[:i - 1] for i in range(1, len(way)))
    return {"way": [str(pathlib.Path(f).relative_to(PACKAGE)) for f in way], "hops": max(len(way) - 1, 0),
            "returns": returns, **counts}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--depth", type=int, default=3, help="how many files deep the spine is followed")
    parser.add_argument("--way", action="store_true", help="print every hop, not only each file's entries")
    arguments = parser.parse_args()
    depth = arguments.depth
    for chapter in chapters(ROOT):
        hooks = hooks_of(chapter)
        if hooks is None:
            continue
        for name, prepare in hooks.flows():
            with tempfile.TemporaryDirectory() as folder:
                store_file = pathlib.Path(folder) / "progress.json"
                os.environ["LLM_FROM_SCRATCH_PROGRESS"] = str(store_file)
                run = prepare()
                found = trace(run, store_file, depth)
            entered = {f: found["way"].count(f) for f in found["way"]}
            print(f"{chapter.name}, {name}: {found['hops']} hops, {found['returns']} returns to a file already left, "
                  f"{len(entered)} files, the most entered {max(entered.values(), default=0)} times; "
                  f"store opened {found['store opens']} times, its lock {found['lock opens']}; "
                  f"the head run {found['head runs']} times")
            print("  " + " → ".join(found["way"] if arguments.way else (f"{f} ×{n}" for f, n in entered.items())))


if __name__ == "__main__":
    main()
