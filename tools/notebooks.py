"""Re-execute notebooks in place, deterministically.

    python -m tools.notebooks [folder or notebook ...]   (from the project's root; make notebooks: every chapter)

No timing metadata, no Python version and no widget state are stored, and widget model ids (random
on every run, not guarded by nbval) are replaced by stable ones, so re-running an
unchanged notebook changes no byte at all. Cell metadata (such as a collapsed
output) is kept as it is. Kernels keep exercise progress in a fresh temporary
store of the tests' fixed learner, on the tests' fixed day, so no one's own progress reaches a stored notebook
and the variants and review it shows are always the same. Kernels talk over IPC (tools/kernels.py).
"""

from __future__ import annotations

import os
import pathlib
import shutil
import sys
import tempfile
from unittest import mock

import nbformat
from nbclient import NotebookClient

from llm_from_scratch.book.chapters import NOTEBOOK_FILES, chapters
from llm_from_scratch.book.clock import PINNED, TODAY_ENV
from llm_from_scratch.book.progress import ENV as PROGRESS_ENV
from llm_from_scratch.book.progress import LEARNER_ENV

from .kernels import RUNTIME_ENV, AsyncIPCKernelManager, short_runtime_dir
from .pytest_plugin import LEARNER


def execute(path: pathlib.Path) -> None:
    notebook = nbformat.read(path, as_version=4)
    runtime = short_runtime_dir()
    try:
        with (tempfile.TemporaryDirectory(prefix="llm-from-scratch-progress-") as store,
              mock.patch.dict(os.environ, {PROGRESS_ENV: os.path.join(store, "progress.json"), LEARNER_ENV: LEARNER,
                                          TODAY_ENV: PINNED, RUNTIME_ENV: runtime})):
            _run(notebook, path)
    finally:
        shutil.rmtree(runtime, ignore_errors=True)
    nbformat.write(notebook, path)


def _run(notebook: nbformat.NotebookNode, path: pathlib.Path) -> None:
    client = NotebookClient(notebook, timeout=600, kernel_name="python3", record_timing=False,
                            kernel_manager_class=AsyncIPCKernelManager,
                            store_widget_state=False, resources={"metadata": {"path": str(path.parent)}})
    client.execute()
    notebook.metadata.pop("widgets", None)
    notebook.metadata.get("language_info", {}).pop("version", None)  # the same bytes whichever Python ran it
    widget = "application/vnd.jupyter.widget-view+json"
    for index, cell in enumerate(notebook.cells):
        for number, output in enumerate(cell.get("outputs", [])):
            if widget in output.get("data", {}):
                output["data"][widget]["model_id"] = f"{path.stem}-cell{index}-output{number}"


def main(places: list[str]) -> None:
    paths = ([p for place in map(pathlib.Path, places)
              for p in ([place] if place.is_file() else sorted(place.rglob(NOTEBOOK_FILES)))] if places
             else [p for chapter in chapters() for p in chapter.notebooks()])
    for path in paths:
        if ".ipynb_checkpoints" in path.parts:
            continue
        print(f"executing {path}", flush=True)
        execute(path)


if __name__ == "__main__":
    main(sys.argv[1:])
