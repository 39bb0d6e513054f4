"""Progress that lasts: every checked attempt and every hint, in one JSON file shared by all notebooks and kernels.

The file is ``progress.json`` in the user's data directory (``platformdirs``: on
JupyterHub or Binder that lies in each user's own home), or the path given by the
environment variable ``LLM_FROM_SCRATCH_PROGRESS``. It holds, by chapter and exercise,
the result of every attempt in order and how many hints were taken::

    {"format": "llm-from-scratch-progress", "version": 2,
     "chapters": {"ch27": {"scores": {"attempts": [false, true], "hints": 1}}}}

A file of an earlier version (1: only the attempts, ``{"scores": [false, true]}``) is read
and upgraded in place, under the lock, the next time anything is written.

A write holds a lock file (``fcntl.flock``), reads the file again, adds to it and
replaces it atomically, so kernels writing at once lose no attempt and a reader
never sees half a file. A file that is not such a store (corrupt, or someone
else's) is moved aside as a backup and a fresh store begins; a location that
cannot be read or written keeps progress in this kernel's memory. Either event
leaves a ``StoreNotice`` for the learner.
"""

from __future__ import annotations

import contextlib
import copy
import json
import os
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import platformdirs

try:
    import fcntl
except ImportError:  # Windows: each write is still an atomic replace, but writers are not serialized
    fcntl = None

ENV = "LLM_FROM_SCRATCH_PROGRESS"
FORMAT = "llm-from-scratch-progress"
VERSION = 2

Chapters = dict[str, dict[str, dict]]  # chapter -> exercise id -> {"attempts": [bool, ...], "hints": int}


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


def _results(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(r, bool) for r in value)


def _record(value: object) -> bool:
    """One exercise's record in version 2: its attempts and its hints."""
    return (isinstance(value, dict) and _results(value.get("attempts")) and isinstance(value.get("hints"), int)
            and not isinstance(value.get("hints"), bool) and value["hints"] >= 0)


def _chapters_in(data: object, version: int, valid: Callable[[object], bool]) -> Chapters | None:
    if not (isinstance(data, dict) and data.get("format") == FORMAT and data.get("version") == version
            and isinstance(data.get("chapters"), dict)):
        return None
    chapters = data["chapters"]
    ok = all(isinstance(exercises, dict) and all(map(valid, exercises.values())) for exercises in chapters.values())
    return chapters if ok else None


def _parse(raw: bytes) -> Chapters | None:
    """The chapters of a store file (a version-1 file upgraded), or None when the bytes are not one."""
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        return None
    old = _chapters_in(data, 1, _results)
    if old is not None:
        return {chapter: {i: {"attempts": results, "hints": 0} for i, results in exercises.items()}
                for chapter, exercises in old.items()}
    return _chapters_in(data, VERSION, _record)


@contextlib.contextmanager
def _locked(file: Path) -> Iterator[None]:
    with open(file.with_name(file.name + ".lock"), "a") as lock:
        if fcntl:
            fcntl.flock(lock, fcntl.LOCK_EX)  # released when the lock file is closed
        yield


def _replace(file: Path, chapters: Chapters) -> None:
    """Write the store beside ``file`` and move it into place in one step."""
    text = json.dumps({"format": FORMAT, "version": VERSION, "chapters": chapters}, ensure_ascii=False, indent=1)
    handle, temporary = tempfile.mkstemp(dir=file.parent, prefix=file.name, suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(temporary, file)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def _of(chapters: Chapters, chapter: str, exercise_id: str) -> dict:
    return chapters.setdefault(chapter, {}).setdefault(exercise_id, {"attempts": [], "hints": 0})


class Store:
    """The attempts kept at one path, or in memory when that path cannot be used."""

    def __init__(self, file: Path) -> None:
        self.path = file
        self.memory: Chapters | None = None  # set once the file cannot be used
        self.known: Chapters = {}  # the last chapters read from the file
        self.notices: list[StoreNotice] = []  # not yet shown to the learner
        self.memory_notice: StoreNotice | None = None  # why progress is kept in memory, while it is

    def records(self, chapter: str) -> dict[str, dict]:
        """Each exercise of ``chapter``: the results of its attempts and its hints, from every kernel."""
        if self.memory is None:
            try:
                return self._load().get(chapter, {})
            except OSError as error:
                self._keep_in_memory(error)
        return self.memory.get(chapter, {})

    def attempts(self, chapter: str) -> dict[str, list[bool]]:
        """Results of every attempt at each exercise of ``chapter``, from every kernel."""
        return {i: record["attempts"] for i, record in self.records(chapter).items()}

    def hints(self, chapter: str) -> dict[str, int]:
        """How many hints each exercise of ``chapter`` has given."""
        return {i: record["hints"] for i, record in self.records(chapter).items()}

    def record(self, chapter: str, exercise_id: str, correct: bool) -> None:
        self._update(lambda chapters: _of(chapters, chapter, exercise_id)["attempts"].append(correct))

    def record_hint(self, chapter: str, exercise_id: str) -> None:
        def one_more(chapters: Chapters) -> None:
            _of(chapters, chapter, exercise_id)["hints"] += 1

        self._update(one_more)

    def reset(self, chapter: str) -> None:
        """Forget every attempt at ``chapter``'s exercises."""
        self._update(lambda chapters: chapters.pop(chapter, None))

    def take_notices(self) -> list[StoreNotice]:
        notices, self.notices = self.notices, []
        return notices

    def _update(self, change: Callable[[Chapters], object]) -> None:
        if self.memory is None:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                with _locked(self.path):
                    chapters = self._load(locked=True)
                    change(chapters)
                    _replace(self.path, chapters)
                return
            except OSError as error:
                self._keep_in_memory(error)
        change(self.memory)

    def _load(self, locked: bool = False) -> Chapters:
        """The file's chapters; a file that is not a store is moved aside (under the lock) first."""
        try:
            chapters = _parse(self.path.read_bytes())
        except FileNotFoundError:
            chapters = {}
        if chapters is None:
            if not locked:
                with _locked(self.path):
                    return self._load(locked=True)
            self._back_up()
            chapters = {}
        self.known = copy.deepcopy(chapters)
        return chapters

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
