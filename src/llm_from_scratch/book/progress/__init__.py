"""Progress that lasts: every checked attempt and every hint, in one JSON file shared by all notebooks and kernels.

The file is ``progress.json`` in the user's data directory (``platformdirs``: on
JupyterHub or Binder that lies in each user's own home), or the path given by the
environment variable ``LLM_FROM_SCRATCH_PROGRESS``. It holds the learner (a random id made
the first time, and a display name they may add) and, by chapter and exercise, every
attempt in order (on which variant, right or not, after a hint on that variant or not, whether
it was a tensor the engine computed rather than a number worked out by hand, whether it was
judged on the learner's own values, a cell above changed, rather than on the exercise's, the day it was made
(``book.clock``), how sure the learner said they were (1 a guess, 2 probably right, 3 sure; none if not said) and,
for an answer given in review in place of another exercise, which one) and the hints taken on each variant::

    {"format": "llm-from-scratch-progress", "version": 6, "learner": {"id": "5f0c2a9e71d4", "name": ""},
     "chapters": {"ch27": {"scores": {"attempts": [{"variant": 0, "correct": false, "hinted": false,
                                                    "day": "2026-12-03", "sure": 3},
                                                   {"variant": 0, "correct": true, "hinted": true,
                                                    "computed": true, "day": "2026-12-03"}],
                                      "hints": {"0": 1}}}}}

``LLM_FROM_SCRATCH_LEARNER`` fixes the id (tests and the notebooks' runs, so that the variants
they show stay the same). A file of an earlier version (1: only the results, ``{"scores":
[false, true]}``; 2: ``{"attempts": [false, true], "hints": 1}``) is read as variant 0, and one of
version 3 to 5 as it is (no attempt of version 3 was computed, none before 5 was on the learner's own
values, none before 6 has a day or a confidence: spaced review holds its misses due at once); each is upgraded in
place, under the lock, the next time anything is written.

For a teacher with a class, ``python -m llm_from_scratch.book.progress export FILE... --csv``
merges learners' files into one table (``book.export``): learner, skill, attempts, attempts on the
learner's own values, first-attempt successes, hints, mastered, attempts said with a confidence, the share right
at each level and the next day due for review.

Every read and every write holds the store's lock file (``filelock``, as pip and tox use: on every
OS), and a write reads the file again under it, changes it and replaces it atomically, so kernels
writing at once lose no attempt, a reader never sees half a file, and no reader holds the file open
while it is replaced (which Windows refuses). The lock is held only for that: an answer reads a
``snapshot``, is judged with no lock held, and is then written in one read-modify-write
(``transact``). Each process makes its own lock object, so a process forked from one that used the
store (a teacher grading with ``multiprocessing``) takes the lock as its own.
A file that is not such a store (corrupt, or someone else's) is moved aside as a backup and a fresh
store begins; a location that cannot be read or written, or a lock held by another kernel for longer
than LOCK_WAIT, keeps progress in this kernel's memory. Either event leaves a ``StoreNotice`` for
the learner.
"""

from __future__ import annotations

import contextlib
import copy
import json
import os
import secrets
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

import platformdirs
from filelock import FileLock, Timeout

from ..clock import today
from ..state import STATE

ENV = "LLM_FROM_SCRATCH_PROGRESS"
LEARNER_ENV = "LLM_FROM_SCRATCH_LEARNER"
FORMAT = "llm-from-scratch-progress"
VERSION = 6
SURE_LEVELS = (1, 2, 3)  # a guess, probably right, sure
OPTIONAL = {"computed", "own", "day", "sure", "for"}  # what an attempt says only when it holds
LOCK_WAIT = 60  # seconds to wait for another kernel's lock; then progress is kept in this kernel's memory, told

Chapters = dict[str, dict[str, dict]]  # chapter -> exercise id -> {"attempts": [attempt, ...], "hints": {variant: n}}


@dataclass(frozen=True)
class Attempt:
    variant: int
    correct: bool
    hinted: bool  # a hint on this variant was taken before it
    computed: bool = False  # the answer was a tensor the engine computed, not numbers worked out by hand
    own: bool = False  # judged on the learner's own values (a cell above changed), not on the exercise's
    day: date | None = None  # the day it was made (None: a store older than days)
    sure: int | None = None  # how sure the learner said they were: SURE_LEVELS, or None if they did not say
    stands_for: str = ""  # in review, the exercise it was asked in place of ("" if none)


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


def _day(value: object) -> bool:
    try:
        return isinstance(value, str) and date.fromisoformat(value).isoformat() == value
    except ValueError:
        return False


def _attempt(value: object) -> bool:
    return (isinstance(value, dict) and set(value) - OPTIONAL == {"variant", "correct", "hinted"}
            and _count(value["variant"]) and isinstance(value["correct"], bool) and isinstance(value["hinted"], bool)
            and isinstance(value.get("computed", False), bool) and isinstance(value.get("own", False), bool)
            and ("day" not in value or _day(value["day"])) and value.get("sure", 1) in SURE_LEVELS
            and not isinstance(value.get("sure"), bool) and isinstance(value.get("for", ""), str))


def _record(value: object) -> bool:
    """One exercise's record in versions 3 to 6: its attempts (one of version 4 may say it was computed, one of
    version 5 also that it was on the learner's own values, one of 6 its day, confidence and the exercise it stood
    for) and the hints taken on each variant."""
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


def _migrated(data: object) -> tuple[Chapters, bool] | None:
    """The chapters of a store of any version as version 6 holds them, and whether the version keeps a learner;
    None when ``data`` is no store. The one migration: version 1 kept only each exercise's results
    (``{"scores": [false, true]}``) and 2 its hints as a count (``{"attempts": [false, true], "hints": 1}``), both
    read as attempts on variant 0 (``_upgraded``); versions 3 to 5 are 6 with less said (no attempt of 3 was
    computed, none before 5 was on the learner's own values, none before 6 has a day, a confidence or the exercise
    it stood for), so they are read as they are."""
    old = _chapters_in(data, 1, _results)
    if old is not None:
        return {c: {i: _upgraded(r, 0) for i, r in exercises.items()} for c, exercises in old.items()}, False
    older = _chapters_in(data, 2, _record_v2)
    if older is not None:
        return {c: {i: _upgraded(r["attempts"], r["hints"]) for i, r in exercises.items()}
                for c, exercises in older.items()}, False
    chapters = next((found for version in (VERSION, 5, 4, 3) if (found := _chapters_in(data, version, _record))
                     is not None), None)
    return (chapters, True) if chapters is not None else None


def parse(raw: bytes) -> dict | None:
    """A store file's {"learner": Learner or None, "chapters": ...} (an older version migrated), or None when
    the bytes are not a store."""
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        return None
    migrated = _migrated(data)
    if migrated is None:
        return None
    chapters, keeps_learner = migrated
    if not keeps_learner:
        return {"learner": None, "chapters": chapters}
    if not _learner(data.get("learner")):
        return None
    return {"learner": Learner(data["learner"]["id"], data["learner"]["name"]), "chapters": chapters}


def learner_of(data: dict) -> Learner:
    """The learner of a store being changed in ``Store.transact``, made (a random id) if it has none yet."""
    if data["learner"] is None:
        data["learner"] = Learner(os.environ.get(LEARNER_ENV) or secrets.token_hex(6))
    return data["learner"]


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


def add_attempt(data: dict, chapter: str, exercise_id: str, correct: bool, variant: int = 0,
                computed: bool = False, own: bool = False, sure: int | None = None, stands_for: str = "") -> None:
    """Add one attempt, made today, to ``data`` (a store being changed in ``Store.transact``); it is hinted when a
    hint on its variant came before it."""
    record = _of(data, chapter, exercise_id)
    hinted = record["hints"].get(str(variant), 0) > 0
    said = {"computed": computed, "own": own, "sure": int(sure) if sure else None, "for": stands_for}
    record["attempts"].append({"variant": int(variant), "correct": bool(correct), "hinted": hinted,
                               "day": today().isoformat(), **{k: v for k, v in said.items() if v}})


def attempts_of(record: dict) -> list[Attempt]:
    return [Attempt(a["variant"], a["correct"], a["hinted"], a.get("computed", False), a.get("own", False),
                    date.fromisoformat(a["day"]) if "day" in a else None, a.get("sure"), a.get("for", ""))
            for a in record["attempts"]]


class Store:
    """The attempts kept at one path, or in memory when that path cannot be used."""

    def __init__(self, file: Path) -> None:
        self.path = file
        self._lock: tuple[int, FileLock] | None = None  # the process that made it, and the lock
        self.memory: dict | None = None  # set once the file cannot be used
        self.known: dict = {"learner": None, "chapters": {}}  # the last store read from the file
        self.notices: list[StoreNotice] = []  # not yet shown to the learner
        self.memory_notice: StoreNotice | None = None  # why progress is kept in memory, while it is

    @property
    def lock(self) -> FileLock:
        """This process's lock on the store (a lock object made before a fork is the parent's, and refuses the
        child); waiting longer than LOCK_WAIT raises ``Timeout``, an OSError."""
        if self._lock is None or self._lock[0] != os.getpid():
            self._lock = (os.getpid(), FileLock(self.path.with_name(self.path.name + ".lock"), timeout=LOCK_WAIT))
        return self._lock[1]

    def snapshot(self) -> dict:
        """A copy of the whole store as it is now (``{"learner": Learner or None, "chapters": …}``), read under the
        lock; what is done with it holds no lock."""
        return copy.deepcopy(self._read())

    def records(self, chapter: str) -> dict[str, dict]:
        """Each exercise of ``chapter``: its attempts and the hints on each variant, from every kernel."""
        return self._read()["chapters"].get(chapter, {})

    def hints(self, chapter: str, exercise_id: str, variant: int = 0) -> int:
        """How many hints the exercise has given on ``variant``."""
        return self.records(chapter).get(exercise_id, {}).get("hints", {}).get(str(variant), 0)

    def learner(self) -> Learner:
        """Who this store belongs to; the first call on a new store makes the learner's id and writes it."""
        learner = self._read()["learner"]
        return learner if learner is not None else self.transact(learner_of)

    def name(self, name: str) -> Learner:
        """Give the learner a display name (for a teacher's table)."""
        def rename(data: dict) -> Learner:
            data["learner"] = Learner(learner_of(data).id, str(name).strip())
            return data["learner"]

        return self.transact(rename)

    def record_hint(self, chapter: str, exercise_id: str, variant: int = 0) -> None:
        def one_more(data: dict) -> None:
            hints = _of(data, chapter, exercise_id)["hints"]
            hints[str(variant)] = hints.get(str(variant), 0) + 1

        self.transact(one_more)

    def reset(self, chapter: str) -> None:
        """Forget every attempt at ``chapter``'s exercises."""
        self.transact(lambda data: data["chapters"].pop(chapter, None))

    def take_notices(self) -> list[StoreNotice]:
        notices, self.notices = self.notices, []
        return notices

    def transact(self, change: Callable[[dict], object]) -> object:
        """Read the store under the lock, let ``change`` change it (``{"learner": Learner or None, "chapters":
        …}``), write it if it changed (with a learner, made now if it has none), and return what ``change``
        returned. Nothing else reads the file meanwhile."""
        if self.memory is None:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                with self.lock:
                    data = self._load()
                    result = change(data)
                    if data != self.known:
                        learner_of(data)
                        _replace(self.path, data)
                        self.known = copy.deepcopy(data)
                return result
            except OSError as error:
                self._keep_in_memory(error)
        result = change(self.memory)
        learner_of(self.memory)
        return result

    def _read(self) -> dict:
        if self.memory is None:
            if not self.path.parent.is_dir():  # nothing was ever stored here (or nothing can be: a write says so)
                return {"learner": None, "chapters": {}}
            try:
                with self.lock:
                    return self._load()
            except OSError as error:
                self._keep_in_memory(error)
        return self.memory

    def _load(self) -> dict:
        """The file's store (read under the lock); a file that is not a store is moved aside first."""
        try:
            data = parse(self.path.read_bytes())
        except FileNotFoundError:
            data = {"learner": None, "chapters": {}}
        if data is None:
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
        if isinstance(error, Timeout):
            waited = {"path": str(self.path), "seconds": f"{self.lock.timeout:g}"}
            self.memory_notice = StoreNotice("progress.note.locked", waited)
        else:
            self.memory_notice = StoreNotice("progress.note.memory",
                                             {"path": str(self.path), "reason": error.strerror or type(error).__name__})
        self.notices.append(self.memory_notice)


def store() -> Store:
    """The store at ``path()``, one per path for the life of the kernel (kept in ``STATE.stores``)."""
    file = path()
    if file not in STATE.stores:
        STATE.stores[file] = Store(file)
    return STATE.stores[file]
