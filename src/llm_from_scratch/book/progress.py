"""Progress that lasts: every checked attempt and every hint, in one JSON file shared by all notebooks and kernels.

The file is ``progress.json`` in the user's data directory (``platformdirs``: on
JupyterHub or Binder that lies in each user's own home), or the path given by the
environment variable ``LLM_FROM_SCRATCH_PROGRESS``. It holds the learner (a random id made
the first time, and a display name they may add) and, by chapter and exercise, every
attempt in order (on which variant, right or not, after a hint on that variant or not, and
whether it was a tensor the engine computed rather than a number worked out by hand) and the
hints taken on each variant::

    {"format": "llm-from-scratch-progress", "version": 4, "learner": {"id": "5f0c2a9e71d4", "name": ""},
     "chapters": {"ch27": {"scores": {"attempts": [{"variant": 0, "correct": false, "hinted": false},
                                                   {"variant": 0, "correct": true, "hinted": true,
                                                    "computed": true}],
                                      "hints": {"0": 1}}}}}

``LLM_FROM_SCRATCH_LEARNER`` fixes the id (tests and the notebooks' runs, so that the variants
they show stay the same). A file of an earlier version (1: only the results, ``{"scores":
[false, true]}``; 2: ``{"attempts": [false, true], "hints": 1}``) is read as variant 0, and one of
version 3 as it is (its attempts were all worked out by hand); each is upgraded in place, under the
lock, the next time anything is written.

For a teacher with a class, ``python -m llm_from_scratch.book.progress export FILE... --csv``
merges learners' files into one table: learner, skill, attempts, first-attempt successes,
hints, mastered.

A write holds a lock file (``fcntl.flock``), reads the file again, adds to it and
replaces it atomically, so kernels writing at once lose no attempt and a reader
never sees half a file. A file that is not such a store (corrupt, or someone
else's) is moved aside as a backup and a fresh store begins; a location that
cannot be read or written keeps progress in this kernel's memory. Either event
leaves a ``StoreNotice`` for the learner.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import csv
import json
import os
import secrets
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

import platformdirs

from .text import LANGUAGES, set_language, text

try:
    import fcntl
except ImportError:  # Windows: each write is still an atomic replace, but writers are not serialized
    fcntl = None

ENV = "LLM_FROM_SCRATCH_PROGRESS"
LEARNER_ENV = "LLM_FROM_SCRATCH_LEARNER"
FORMAT = "llm-from-scratch-progress"
VERSION = 4

Chapters = dict[str, dict[str, dict]]  # chapter -> exercise id -> {"attempts": [attempt, ...], "hints": {variant: n}}


@dataclass(frozen=True)
class Attempt:
    variant: int
    correct: bool
    hinted: bool  # a hint on this variant was taken before it
    computed: bool = False  # the answer was a tensor the engine computed, not numbers worked out by hand


@dataclass(frozen=True)
class Learner:
    id: str
    name: str = ""


@dataclass(frozen=True)
class StoreNotice:
    """Something the learner must be told about the store: catalogue string ``key`` with ``fields``."""

    key: str
    fields: dict[str, str] = field(default_factory=dict)


def path() -> Path:
    """Where progress is kept now: ``$LLM_FROM_SCRATCH_PROGRESS``, or the user's data directory."""
    override = os.environ.get(ENV)
    if override:
        return Path(override).expanduser().absolute()
    return Path(platformdirs.user_data_dir("llm-from-scratch", appauthor=False)) / "progress.json"


def _count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _results(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(r, bool) for r in value)


def _record_v2(value: object) -> bool:
    return isinstance(value, dict) and _results(value.get("attempts")) and _count(value.get("hints"))


def _attempt(value: object) -> bool:
    return (isinstance(value, dict) and set(value) - {"computed"} == {"variant", "correct", "hinted"}
            and _count(value["variant"]) and isinstance(value["correct"], bool) and isinstance(value["hinted"], bool)
            and isinstance(value.get("computed", False), bool))


def _record(value: object) -> bool:
    """One exercise's record in versions 3 and 4: its attempts (a version 4 attempt may say it was computed) and
    the hints taken on each variant."""
    return (isinstance(value, dict) and isinstance(value.get("attempts"), list)
            and all(map(_attempt, value["attempts"]))
            and isinstance(value.get("hints"), dict)
            and all(k.isdigit() and _count(n) for k, n in value["hints"].items()))


def _learner(value: object) -> bool:
    return (isinstance(value, dict) and isinstance(value.get("id"), str) and bool(value["id"])
            and isinstance(value.get("name"), str))


def _chapters_in(data: object, version: int, valid: Callable[[object], bool]) -> Chapters | None:
    if not (isinstance(data, dict) and data.get("format") == FORMAT and data.get("version") == version
            and isinstance(data.get("chapters"), dict)):
        return None
    chapters = data["chapters"]
    ok = all(isinstance(exercises, dict) and all(map(valid, exercises.values())) for exercises in chapters.values())
    return chapters if ok else None


def _upgraded(results: list[bool], hints: int) -> dict:
    """A record of version 1 or 2 as version 3: every attempt on variant 0. Hints open only after an attempt,
    so the first attempt was made without one; whether a later one came after a hint is not known, so it did."""
    attempts = [{"variant": 0, "correct": r, "hinted": i > 0 and hints > 0} for i, r in enumerate(results)]
    return {"attempts": attempts, "hints": {"0": hints} if hints else {}}


def parse(raw: bytes) -> dict | None:
    """A store file's {"learner": Learner or None, "chapters": ...} (an older version upgraded), or None when
    the bytes are not a store."""
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        return None
    old = _chapters_in(data, 1, _results)
    if old is not None:
        return {"learner": None, "chapters": {c: {i: _upgraded(r, 0) for i, r in exercises.items()}
                                              for c, exercises in old.items()}}
    older = _chapters_in(data, 2, _record_v2)
    if older is not None:
        return {"learner": None, "chapters": {c: {i: _upgraded(r["attempts"], r["hints"]) for i, r in exercises.items()}
                                              for c, exercises in older.items()}}
    chapters = _chapters_in(data, VERSION, _record)
    if chapters is None:  # version 3 differs only in that no attempt says it was computed
        chapters = _chapters_in(data, 3, _record)
    if chapters is None or not _learner(data.get("learner")):
        return None
    return {"learner": Learner(data["learner"]["id"], data["learner"]["name"]), "chapters": chapters}


@contextlib.contextmanager
def _locked(file: Path) -> Iterator[None]:
    with open(file.with_name(file.name + ".lock"), "a") as lock:
        if fcntl:
            fcntl.flock(lock, fcntl.LOCK_EX)  # released when the lock file is closed
        yield


def _new_learner() -> Learner:
    return Learner(os.environ.get(LEARNER_ENV) or secrets.token_hex(6))


def _replace(file: Path, data: dict) -> None:
    """Write the store beside ``file`` and move it into place in one step."""
    learner = data["learner"]
    text = json.dumps({"format": FORMAT, "version": VERSION, "learner": {"id": learner.id, "name": learner.name},
                       "chapters": data["chapters"]}, ensure_ascii=False, indent=1)
    handle, temporary = tempfile.mkstemp(dir=file.parent, prefix=file.name, suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(temporary, file)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def _of(data: dict, chapter: str, exercise_id: str) -> dict:
    return data["chapters"].setdefault(chapter, {}).setdefault(exercise_id, {"attempts": [], "hints": {}})


def attempts_of(record: dict) -> list[Attempt]:
    return [Attempt(a["variant"], a["correct"], a["hinted"], a.get("computed", False)) for a in record["attempts"]]


class Store:
    """The attempts kept at one path, or in memory when that path cannot be used."""

    def __init__(self, file: Path) -> None:
        self.path = file
        self.memory: dict | None = None  # set once the file cannot be used
        self.known: dict = {"learner": None, "chapters": {}}  # the last store read from the file
        self.notices: list[StoreNotice] = []  # not yet shown to the learner
        self.memory_notice: StoreNotice | None = None  # why progress is kept in memory, while it is

    def records(self, chapter: str) -> dict[str, dict]:
        """Each exercise of ``chapter``: its attempts and the hints on each variant, from every kernel."""
        return self._read()["chapters"].get(chapter, {})

    def attempts(self, chapter: str) -> dict[str, list[bool]]:
        """Results of every attempt at each exercise of ``chapter`` (any variant), from every kernel."""
        return {i: [a["correct"] for a in record["attempts"]] for i, record in self.records(chapter).items()}

    def hints(self, chapter: str, exercise_id: str, variant: int = 0) -> int:
        """How many hints the exercise has given on ``variant``."""
        return self.records(chapter).get(exercise_id, {}).get("hints", {}).get(str(variant), 0)

    def learner(self) -> Learner:
        """Who this store belongs to; the first call on a new store makes the learner's id and writes it."""
        learner = self._read()["learner"]
        if learner is None:
            self._update(lambda data: None)
            learner = self._read()["learner"]
        return learner

    def name(self, name: str) -> Learner:
        """Give the learner a display name (for a teacher's table)."""
        self._update(lambda data: data.update(learner=Learner(data["learner"].id, str(name).strip())))
        return self.learner()

    def record(self, chapter: str, exercise_id: str, correct: bool, variant: int = 0, computed: bool = False) -> None:
        def add(data: dict) -> None:
            record = _of(data, chapter, exercise_id)
            hinted = record["hints"].get(str(variant), 0) > 0
            attempt = {"variant": variant, "correct": bool(correct), "hinted": hinted}
            record["attempts"].append({**attempt, "computed": True} if computed else attempt)

        self._update(add)

    def record_hint(self, chapter: str, exercise_id: str, variant: int = 0) -> None:
        def one_more(data: dict) -> None:
            hints = _of(data, chapter, exercise_id)["hints"]
            hints[str(variant)] = hints.get(str(variant), 0) + 1

        self._update(one_more)

    def reset(self, chapter: str) -> None:
        """Forget every attempt at ``chapter``'s exercises."""
        self._update(lambda data: data["chapters"].pop(chapter, None))

    def take_notices(self) -> list[StoreNotice]:
        notices, self.notices = self.notices, []
        return notices

    def _read(self) -> dict:
        if self.memory is None:
            try:
                return self._load()
            except OSError as error:
                self._keep_in_memory(error)
        return self.memory

    def _update(self, change: Callable[[dict], object]) -> None:
        if self.memory is None:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                with _locked(self.path):
                    data = self._load(locked=True)
                    if data["learner"] is None:
                        data["learner"] = _new_learner()
                    change(data)
                    _replace(self.path, data)
                return
            except OSError as error:
                self._keep_in_memory(error)
        if self.memory["learner"] is None:
            self.memory["learner"] = _new_learner()
        change(self.memory)

    def _load(self, locked: bool = False) -> dict:
        """The file's store; a file that is not a store is moved aside (under the lock) first."""
        try:
            data = parse(self.path.read_bytes())
        except FileNotFoundError:
            data = {"learner": None, "chapters": {}}
        if data is None:
            if not locked:
                with _locked(self.path):
                    return self._load(locked=True)
            self._back_up()
            data = {"learner": None, "chapters": {}}
        self.known = copy.deepcopy(data)
        return data

    def _back_up(self) -> None:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        backup = self.path.with_name(f"{self.path.stem}.backup-{stamp}{self.path.suffix}")
        number = 1
        while backup.exists():
            number += 1
            backup = self.path.with_name(f"{self.path.stem}.backup-{stamp}-{number}{self.path.suffix}")
        os.replace(self.path, backup)
        self.notices.append(StoreNotice("progress.note.backup", {"path": str(self.path), "backup": str(backup)}))

    def _keep_in_memory(self, error: OSError) -> None:
        self.memory = self.known
        self.memory_notice = StoreNotice("progress.note.memory",
                                {"path": str(self.path), "reason": error.strerror or type(error).__name__})
        self.notices.append(self.memory_notice)


_stores: dict[Path, Store] = {}


def store() -> Store:
    """The store at ``path()``, one per path for the life of the kernel."""
    file = path()
    if file not in _stores:
        _stores[file] = Store(file)
    return _stores[file]


# --- a teacher's table: python -m llm_from_scratch.book.progress export FILE... --csv --------------

EXPORT_COLUMNS = ("learner", "name", "chapter", "skill", "skill_name", "attempts", "first_attempt_right", "hints",
                  "mastered")


def export(files: list[Path], out: TextIO, complain: TextIO) -> int:
    """Write one CSV row per learner, chapter and skill of every store file; a file that cannot be read is named
    on ``complain`` and skipped (it is never changed). Returns how many files were skipped."""
    from .mastery import chapter_mastery

    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(EXPORT_COLUMNS)
    skipped = 0
    for file in files:
        try:
            data = parse(file.read_bytes())
            reason = text("export.not_a_store")
        except OSError as error:
            data, reason = None, error.strerror or type(error).__name__
        if data is None:
            skipped += 1
            print(text("export.skipped", path=str(file), reason=reason), file=complain)
            continue
        learner = data["learner"] or Learner(str(file.absolute()))  # a store older than ids: its path tells it apart
        for chapter, records in sorted(data["chapters"].items()):
            try:
                rows = chapter_mastery(chapter, records)
            except ModuleNotFoundError:
                print(text("export.unknown_chapter", path=str(file), chapter=chapter), file=complain)
                continue
            writer.writerows((learner.id, learner.name, chapter, *row) for row in rows)
    return skipped


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m llm_from_scratch.book.progress",
                                     description=text("export.description"))
    commands = parser.add_subparsers(dest="command", required=True)
    command = commands.add_parser("export", help=text("export.help"))
    command.add_argument("files", nargs="+", type=Path, metavar="FILE")
    command.add_argument("--csv", action="store_true", required=True, help=text("export.csv"))
    command.add_argument("--language", choices=LANGUAGES, default=LANGUAGES[0], help=text("export.language"))
    args = parser.parse_args(argv)
    set_language(args.language)
    skipped = export(args.files, sys.stdout, sys.stderr)
    return 1 if skipped == len(args.files) else 0


if __name__ == "__main__":
    sys.exit(main())
