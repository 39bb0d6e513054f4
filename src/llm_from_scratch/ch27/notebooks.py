"""Re-execute the chapter's notebooks in place, deterministically.

    python -m llm_from_scratch.ch27.notebooks [folder ...]   (make notebooks)

No timing metadata and no widget state are stored, so re-running changes no byte
that nbval guards.
"""

from __future__ import annotations

import pathlib
import sys

import nbformat
from nbclient import NotebookClient


def notebooks(folder: pathlib.Path) -> list[pathlib.Path]:
    return sorted(p for p in folder.rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)


def execute(path: pathlib.Path) -> None:
    notebook = nbformat.read(path, as_version=4)
    client = NotebookClient(notebook, timeout=600, kernel_name="python3", record_timing=False,
                            store_widget_state=False, resources={"metadata": {"path": str(path.parent)}})
    client.execute()
    notebook.metadata.pop("widgets", None)
    nbformat.write(notebook, path)


def main(folders: list[str]) -> None:
    for folder in folders or ["chapter27"]:
        for path in notebooks(pathlib.Path(folder)):
            print(f"executing {path}", flush=True)
            execute(path)


if __name__ == "__main__":
    main(sys.argv[1:])
