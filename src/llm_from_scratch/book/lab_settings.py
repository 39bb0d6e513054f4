"""What the chapters' JupyterLab needs from its environment, written into that environment only.

jupyter_server's kernel websocket leaves Nagle's algorithm on (tornado's default): a small message that
follows another one still unacknowledged waits for the browser's delayed ACK, about 40 ms on Linux. Every
move of a slider or a vector is such a message, so each took some 40 ms more than the kernel needed (a
message's bare round trip through the server: 43 ms, with TCP_NODELAY 5 ms). And JupyterLab asks a
newcomer whether to fetch Jupyter's news, which needs the network. ``python -m llm_from_scratch.book.lab_settings``
writes both settings under ``sys.prefix`` (the Makefile does it when it makes an environment), never into
the user's own Jupyter settings.
"""

from __future__ import annotations

import json
import pathlib
import sys

from jupyter_server.services.kernels.connection.channels import ZMQChannelsWebsocketConnection

# written out: run as ``python -m``, this module's __name__ is __main__, which the server cannot import
CONNECTION = "llm_from_scratch.book.lab_settings.PromptKernelConnection"


class PromptKernelConnection(ZMQChannelsWebsocketConnection):
    """The kernel websocket with TCP_NODELAY: each message leaves when it is written."""

    def connect(self):
        self.websocket_handler.set_nodelay(True)
        return super().connect()


def settings() -> dict[pathlib.Path, dict]:
    """Each settings file, relative to the environment's prefix, and what it must hold. The server reads its
    options from one file (its ``.d`` folder holds only which extensions are on); JupyterLab's overrides
    folder takes one file per package."""
    return {
        pathlib.Path("etc/jupyter/jupyter_server_config.json"): {
            "ServerApp": {"kernel_websocket_connection_class": CONNECTION}},
        pathlib.Path("share/jupyter/lab/settings/overrides.d/llm-from-scratch.json"): {
            "@jupyterlab/apputils-extension:notification": {"fetchNews": "false", "checkForUpdates": False}},
    }


def _merged(old: dict, new: dict) -> dict:
    """``old`` with ``new``'s keys set, section by section (what else a file holds stays)."""
    return {**old, **{section: {**old.get(section, {}), **values} for section, values in new.items()}}


def install(prefix: pathlib.Path) -> list[pathlib.Path]:
    """Write the settings under ``prefix``, keeping whatever else their files hold; returns the files written."""
    written = []
    for relative, content in settings().items():
        path = prefix / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        old = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
        path.write_text(json.dumps(_merged(old, content), indent=2) + "\n", encoding="utf-8")
        written.append(path)
    return written


def main() -> None:
    for path in install(pathlib.Path(sys.prefix)):
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
