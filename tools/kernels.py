"""Kernels that cannot collide: every kernel the tests and ``python -m tools.notebooks`` start talks over IPC.

Over TCP, jupyter_client picks free ports, closes them and hands them to the kernel, which binds them a moment
later; two kernels started side by side (two cores, pytest-xdist) can pick the same port in between, and one dies
("Address already in use"). IPC sockets are files named after each kernel's own connection file, so two kernels
never share one. A Unix socket's path holds at most 107 bytes, so the connection files stand in a short temporary
directory (``RUNTIME_ENV``, /tmp/k… by default), not in a test's deep tmp_path.

A kernel that still does not start raises ``KernelDidNotStart``, an ``EnvironmentFailure``, which the book's pytest
plugin reports as a failure of the environment, naming the test and the kernel, not as the test's assertion.
"""

from __future__ import annotations

import os
import tempfile
import uuid

from jupyter_client import AsyncKernelManager, KernelManager
from jupyter_client.asynchronous import AsyncKernelClient
from jupyter_client.blocking import BlockingKernelClient
from jupyter_core.paths import jupyter_runtime_dir
from traitlets import default

RUNTIME_ENV = "JUPYTER_RUNTIME_DIR"
# what a JupyterLab server the tests start is given, so its kernels are started as these are
SERVER_OPTIONS = ("--KernelManager.transport=ipc",)


def short_runtime_dir() -> str:
    """A fresh directory for connection files and IPC sockets, short enough for a socket's path."""
    return tempfile.mkdtemp(prefix="k", dir="/tmp")


class EnvironmentFailure(RuntimeError):
    """What the machine failed to do for a test (a kernel or a server that did not start), not what it tested."""


class KernelDidNotStart(EnvironmentFailure):
    """A kernel that died or did not answer before its first reply."""

    def __init__(self, kernel: str, cause: BaseException | str) -> None:
        super().__init__(f"the kernel of {kernel} did not start ({cause})")


class _BlockingClient(BlockingKernelClient):
    def wait_for_ready(self, timeout: float | None = None) -> None:
        try:
            super().wait_for_ready(timeout)
        except RuntimeError as error:
            raise KernelDidNotStart(self.connection_file, error) from error


class _AsyncClient(AsyncKernelClient):
    async def wait_for_ready(self, timeout: float | None = None) -> None:
        try:
            await super().wait_for_ready(timeout)
        except RuntimeError as error:
            raise KernelDidNotStart(self.connection_file, error) from error


class _OverIPC:
    """What both managers share: IPC transport, and a connection file of the kernel's own in the runtime directory
    (its sockets are named after it: ``<file's stem>-ipc-1`` …)."""

    @default("transport")
    def _transport_default(self) -> str:
        return "ipc"

    @default("connection_file")
    def _connection_file_default(self) -> str:
        runtime = jupyter_runtime_dir()
        os.makedirs(runtime, exist_ok=True)
        return os.path.join(runtime, f"kernel-{uuid.uuid4()}.json")


class IPCKernelManager(_OverIPC, KernelManager):
    """A blocking kernel manager over IPC (nbval's kind)."""

    @default("client_class")
    def _client_class_default(self) -> str:
        return f"{__name__}._BlockingClient"


class AsyncIPCKernelManager(_OverIPC, AsyncKernelManager):
    """An asynchronous kernel manager over IPC (nbclient's kind)."""

    @default("client_class")
    def _client_class_default(self) -> str:
        return f"{__name__}._AsyncClient"
