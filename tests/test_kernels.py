"""Every kernel the notebook and browser tiers start talks over IPC, so none can collide on a port with another
started beside it; one that does not start is reported as the environment's failure (tools/kernels.py)."""

from __future__ import annotations

import json
import pathlib
import re
import sys
import threading
import time
import urllib.request
from types import SimpleNamespace

import nbformat
import nbval.kernel
import pytest
from support import ROOT
from support.notebooks import execute

from tools import kernels, pytest_plugin

SOCKET_PATH_LIMIT = 107  # bytes in a Unix socket's path (sun_path less its terminating zero)
# every place a test or a maintainer's tool may start a kernel: each passes one of tools/kernels.py's managers
KERNEL_STARTS = re.compile(r"\b(NotebookClient|KernelManager|RunningKernel|start_new_kernel)\(")
STARTERS = {"tools/kernels.py", "tools/notebooks.py", "tests/support/notebooks.py", "tests/test_kernels.py"}


def over_ipc(connection: dict) -> dict:
    """A kernel's connection info, checked: IPC, and sockets whose paths a Unix socket can hold."""
    assert connection["transport"] == "ipc", connection
    longest = f"{connection['ip']}-{max(connection[k] for k in connection if k.endswith('_port'))}"
    assert len(longest.encode()) <= SOCKET_PATH_LIMIT, longest
    return connection


def test_every_kernel_start_in_the_tests_and_tools_passes_an_ipc_manager():
    """A kernel started anywhere else would be on TCP again: only the helpers below start kernels, and each names
    one of the IPC managers."""
    starts = {str(path.relative_to(ROOT)) for folder in ("tests", "tools") for path in (ROOT / folder).rglob("*.py")
              if KERNEL_STARTS.search(path.read_text(encoding="utf-8"))}
    assert starts <= STARTERS, starts - STARTERS
    for name in STARTERS - {"tools/kernels.py", "tests/test_kernels.py"}:
        assert "IPCKernelManager" in (ROOT / name).read_text(encoding="utf-8"), name


def test_a_kernel_that_did_not_start_is_reported_as_the_environment_failing():
    with pytest.raises(kernels.KernelDidNotStart) as failure:
        raise kernels.KernelDidNotStart("/tmp/k1/kernel-1.json", "Kernel died before replying to kernel_info")
    hook = pytest_plugin.pytest_runtest_makereport(SimpleNamespace(nodeid="chapter27/02.ipynb::Cell 0"),
                                                   SimpleNamespace(excinfo=failure))
    next(hook)
    with pytest.raises(StopIteration) as done:
        hook.send(SimpleNamespace(longrepr="a traceback"))
    assert done.value.value.longrepr == ("ENVIRONMENT FAILURE, not this test's: chapter27/02.ipynb::Cell 0: the kernel "
                                         "of /tmp/k1/kernel-1.json did not start (Kernel died before replying to "
                                         "kernel_info)")


@pytest.mark.notebook
def test_nbval_kernels_talk_over_ipc_and_two_started_at_once_both_answer():
    """nbval makes its manager from the name the book's plugin points at the IPC manager; two kernels started at
    the same instant each answer kernel_info (RunningKernel waits for the reply) on sockets of their own."""
    started, barrier = {}, threading.Barrier(2)

    def start(index: int) -> None:
        barrier.wait()
        kernel = nbval.kernel.RunningKernel("python3")
        try:
            started[index] = over_ipc(json.loads(pathlib.Path(kernel.km.connection_file).read_text()))
            assert kernel.km.is_alive()
        finally:
            kernel.stop()

    threads = [threading.Thread(target=start, args=(index,)) for index in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert sorted(started) == [0, 1]
    assert started[0]["ip"] != started[1]["ip"]


@pytest.mark.notebook
def test_a_notebook_run_by_the_tests_has_a_kernel_over_ipc(tmp_path):
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "from ipykernel.connect import get_connection_file\nprint(open(get_connection_file()).read())")])
    execute(notebook, tmp_path)  # the file is gone with the kernel: the kernel prints it
    over_ipc(json.loads(notebook.cells[0].outputs[0]["text"]))


@pytest.mark.notebook
def test_a_kernel_that_dies_at_start_raises_the_environment_failure_naming_it(tmp_path, monkeypatch):
    spec = tmp_path / "kernels" / "dies"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({"argv": [sys.executable, "-c", "raise SystemExit(3)"],
                                                  "display_name": "dies", "language": "python"}))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path))
    with pytest.raises(kernels.KernelDidNotStart, match=r"the kernel of /tmp/k\w+/kernel-[-\w]+\.json did not start"):
        nbval.kernel.start_new_kernel(kernel_name="dies", startup_timeout=30)


@pytest.mark.browser
@pytest.mark.slow
def test_jupyterlab_kernels_talk_over_ipc(tmp_path, monkeypatch):
    """A kernel JupyterLab starts for a notebook has its connection file in the server's short directory, over IPC."""
    from support.browser import jupyterlab

    runtime = pathlib.Path(kernels.short_runtime_dir())
    monkeypatch.setattr(kernels, "short_runtime_dir", lambda: str(runtime))
    served = tmp_path / "served"
    served.mkdir()
    with jupyterlab(served, tmp_path / "home") as (url, token):
        request = urllib.request.Request(f"{url}/api/kernels?token={token}", data=b"{}", method="POST")
        kernel = json.loads(urllib.request.urlopen(request, timeout=30).read())["id"]
        connection_file, deadline = runtime / f"kernel-{kernel}.json", time.monotonic() + 30
        while not connection_file.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        over_ipc(json.loads(connection_file.read_text()))
