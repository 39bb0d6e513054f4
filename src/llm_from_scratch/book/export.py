"""A teacher's table: learners' progress files merged into one CSV, one row per learner, chapter and skill.

    python -m llm_from_scratch.book.progress export FILE... --csv [--language en]

Every text cell is written so that a spreadsheet reads it as text, never as a formula (CSV injection, as OWASP
advises): a learner's name and id come from a file the learner wrote, so they are read as data: a tab or a line
break becomes a space, other control characters and those that reorder text are removed, their length is bounded,
and a cell that would begin with ``=``, ``+``, ``-`` or ``@`` gets a leading apostrophe.

Chapters make their exercises known through the entry point group ``llm_from_scratch.chapters`` (pyproject:
``ch27 = "llm_from_scratch.ch27.exercises:EXERCISE_BOOK"``), so a chapter installed beside this one is found
without being named here.
"""

from __future__ import annotations

import argparse
import csv
import sys
import unicodedata
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path
from typing import TextIO

from .clock import today
from .mastery import mastery
from .progress import SURE_LEVELS, Learner, attempts_of, parse
from .review import ReviewPolicy, calibration, queue
from .text import LANGUAGES, Catalogue, book_text, set_language

CHAPTERS = "llm_from_scratch.chapters"  # the entry point group: chapter name -> its ExerciseBook
EXPORT_COLUMNS = ("learner", "name", "chapter", "skill", "skill_name", "attempts", "attempts_on_own_values",
                  "first_attempt_right", "hints", "mastered", "attempts_with_confidence", "right_share_guess",
                  "right_share_probably", "right_share_sure", "next_due")
# what a spreadsheet may read as the start of a formula (OWASP also names a tab and a carriage return: they are
# control characters, removed before this is looked at)
FORMULA_STARTS = ("=", "+", "-", "@")
LONGEST_NAME = 100  # characters of a learner's name or id kept in the table
OS_ERRORS = {FileNotFoundError: "export.os.missing", PermissionError: "export.os.permission",
             IsADirectoryError: "export.os.directory"}


# the characters that reorder text (the right-to-left override among them): a name could show as another's
BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def as_data(value: str, longest: int | None = None) -> str:
    """A text as a spreadsheet must read it: a tab or a line break made a space (two names stay two words), other
    control characters and those that reorder text removed, at most ``longest`` characters, and an apostrophe
    before a first character that would start a formula."""
    spaced = "".join(" " if char in "\t\n\r\v\f" else char for char in value)
    cleaned = "".join(char for char in spaced
                      if unicodedata.category(char) != "Cc" and char not in BIDI_CONTROLS).strip()[:longest]
    return "'" + cleaned if cleaned.startswith(FORMULA_STARTS) else cleaned


def row_as_data(row: tuple[object, ...]) -> tuple[object, ...]:
    """A table row with every text cell neutralized (numbers stay numbers)."""
    return tuple(as_data(cell) if isinstance(cell, str) else cell for cell in row)


def installed_chapters() -> dict[str, EntryPoint]:
    """Each installed chapter's name and the entry point that loads its exercise book."""
    return {point.name: point for point in entry_points(group=CHAPTERS)}


def chapter_mastery(review: ReviewPolicy, strings: Catalogue, records: dict[str, dict]) -> list[tuple[object, ...]]:
    """A chapter's skills as a teacher's table reads them: skill, its name, attempts, attempts on the learner's own
    values (a cell above changed), first-attempt successes without hints, hints, mastered; then the attempts said
    with a confidence, the share of them right at each level (1 guess, 2 probably right, 3 sure; empty where
    none) and the day the next of its exercises is due for review (today for one overdue; empty if none is)."""
    served = review.served
    due_days = {item.exercise_id: max(item.day, today()) for item in queue(served, records)}
    rows = []
    for m in mastery(served, records).values():
        ids = [e.id for e in served if m.skill in e.skills]
        rated = calibration(a for i in ids if i in records for a in attempts_of(records[i]))
        shares = [f"{share:.3f}" if (share := rated.share(level)) is not None else "" for level in SURE_LEVELS]
        next_due = min((due_days[i] for i in ids if i in due_days), default=None)
        rows.append((m.skill.removeprefix("skill."), strings.text(m.skill), m.attempts, m.own, m.first_right,
                     m.hints, int(m.mastered), sum(rated.said.values()), *shares,
                     next_due.isoformat() if next_due else ""))
    return rows


def export(files: list[Path], out: TextIO, complain: TextIO) -> int:
    """Write one CSV row per learner, chapter and skill of every store file; a file that cannot be read is named
    on ``complain`` and skipped (it is never changed). Returns how many files were skipped."""
    books = installed_chapters()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(EXPORT_COLUMNS)
    skipped = 0
    for file in files:
        try:
            data = parse(file.read_bytes())
            reason = book_text("export.not_a_store")
        except OSError as error:  # said in the export's language, not the system's
            data, reason = None, book_text(OS_ERRORS.get(type(error), "export.os.other"))
        if data is None:
            skipped += 1
            print(book_text("export.skipped", path=str(file), reason=reason), file=complain)
            continue
        learner = data["learner"] or Learner(str(file.absolute()))  # a store older than ids: its path tells it apart
        who = (as_data(learner.id, LONGEST_NAME), as_data(learner.name, LONGEST_NAME))
        for chapter, records in sorted(data["chapters"].items()):
            if chapter not in books:
                print(book_text("export.unknown_chapter", path=str(file), chapter=chapter), file=complain)
                continue
            book = books[chapter].load()
            rows = chapter_mastery(book.review, book.strings, records)
            writer.writerows(row_as_data((*who, chapter, *row)) for row in rows)
    return skipped


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m llm_from_scratch.book.progress",
                                     description=book_text("export.description"))
    commands = parser.add_subparsers(dest="command", required=True)
    command = commands.add_parser("export", help=book_text("export.help"))
    command.add_argument("files", nargs="+", type=Path, metavar="FILE")
    command.add_argument("--csv", action="store_true", required=True, help=book_text("export.csv"))
    command.add_argument("--language", choices=LANGUAGES, default=LANGUAGES[0], help=book_text("export.language"))
    args = parser.parse_args(argv)
    set_language(args.language)
    skipped = export(args.files, sys.stdout, sys.stderr)
    return 1 if skipped == len(args.files) else 0
