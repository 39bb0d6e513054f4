"""The lock, read in one place: which exact version each package has on a given Python and platform.

``requirements/lock.txt`` is universal (``uv pip compile --universal``): one file for every Python of
the supported range, a pin carrying an environment marker where a package differs, or is needed only
somewhere (``overrides==7.7.0 ; python_full_version < '3.12'``). ``requirements/lowest.txt`` holds each
dependency at pyproject's lower bound, for the oldest Python of the range, which CI runs it on.

    python -m tools.lock environment 3.13   writes environment.yml: the lock as it is on Linux and that Python
"""

from __future__ import annotations

import pathlib
import re
import sys

from packaging.markers import Marker

ROOT = pathlib.Path(__file__).resolve().parents[1]
LOCK = "requirements/lock.txt"
LOWEST = "requirements/lowest.txt"
SUPPORTED = ("3.11", "3.12", "3.13")  # the Pythons CI proves; the Makefile refuses any other
CONDA_PYTHON = SUPPORTED[-1]  # conda cannot read markers: environment.yml pins one Python, the newest
PIN = re.compile(r"^([A-Za-z0-9._-]+)==([^\s;]+)(?:\s*;\s*(.+))?$", re.M)


def linux(python: str) -> dict[str, str]:
    """The marker environment of CPython ``python`` ("3.13") on Linux on this machine's processor."""
    import platform

    return {"python_version": python, "python_full_version": f"{python}.0", "sys_platform": "linux",
            "platform_system": "Linux", "os_name": "posix", "implementation_name": "cpython",
            "platform_python_implementation": "CPython", "platform_machine": platform.machine()}


def pins(path: pathlib.Path, environment: dict[str, str] | None = None) -> dict[str, str]:
    """Package name (lower case) -> version, for the pins whose markers hold in ``environment``
    (this interpreter's, when None)."""
    found = {}
    for name, version, marker in PIN.findall(path.read_text(encoding="utf-8")):
        if not marker or Marker(marker).evaluate(environment):
            found[name.lower()] = version
    return found


def environment_yml(python: str = CONDA_PYTHON) -> str:
    """environment.yml: its header kept, then the lock's pins for Linux and ``python``, then the package."""
    current = (ROOT / "environment.yml").read_text(encoding="utf-8")
    header = current[: current.index("  - pip:\n") + len("  - pip:\n")]
    header = re.sub(r"^  - python=\S+$", f"  - python={python}", header, flags=re.M)
    locked = sorted(pins(ROOT / LOCK, linux(python)).items())
    listed = "".join(f"      - {name}=={version}\n" for name, version in locked)
    return header + listed + "      - -e .\n"


if __name__ == "__main__":
    if sys.argv[1:2] != ["environment"]:
        raise SystemExit(__doc__)
    (ROOT / "environment.yml").write_text(environment_yml(*sys.argv[2:3]), encoding="utf-8")
