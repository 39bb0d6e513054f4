"""Re-execute the chapter's notebooks in place, deterministically.

    python -m llm_from_scratch.ch27.notebooks [folder ...]   (make notebooks)

No timing metadata and no widget state are stored, and widget model ids (random
on every run, not guarded by nbval) are replaced by stable ones, so re-running an
unchanged notebook changes no byte at all.
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
    widget = "application/vnd.jupyter.widget-view+json"
    for index, cell in enumerate(notebook.cells):
        for number, output in enumerate(cell.get("outputs", [])):
            if widget in output.get("data", {}):
                output["data"][widget]["model_id"] = f"{path.stem}-cell{index}-output{number}"
    nbformat.write(notebook, path)


def main(folders: list[str]) -> None:
    for folder in folders or ["chapter27"]:
        for path in notebooks(pathlib.Path(folder)):
            print(f"executing {path}", flush=True)
            execute(path)


if __name__ == "__main__":
    main(sys.argv[1:])
