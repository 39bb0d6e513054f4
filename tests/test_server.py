"""The settings the project writes into its own environment for JupyterLab."""

import importlib
import json
import subprocess
import sys

import pytest

from llm_from_scratch.book import lab_settings as server


def test_the_settings_go_under_the_prefix_and_keep_what_their_files_held(tmp_path):
    config = tmp_path / "etc/jupyter/jupyter_server_config.json"
    config.parent.mkdir(parents=True)
    config.write_text(json.dumps({"ServerApp": {"port": 9999}, "LabApp": {"x": 1}}))
    written = server.install(tmp_path)
    assert sorted(p.relative_to(tmp_path).as_posix() for p in written) == [
        "etc/jupyter/jupyter_server_config.json", "share/jupyter/lab/settings/overrides.d/llm-from-scratch.json"]
    held = json.loads(config.read_text())
    assert held["ServerApp"]["port"] == 9999 and held["LabApp"] == {"x": 1}, "what else the file held stays"
    named = held["ServerApp"]["kernel_websocket_connection_class"]
    module, _, name = named.rpartition(".")
    assert getattr(importlib.import_module(module), name) is server.PromptKernelConnection
    lab = json.loads(written[1].read_text())
    assert lab["@jupyterlab/apputils-extension:notification"]["fetchNews"] == "false"
    assert server.install(tmp_path) == written and json.loads(config.read_text()) == held, "twice is once"


def test_the_kernel_connection_sends_at_once(monkeypatch):
    calls = []

    class Handler:
        def set_nodelay(self, value):
            calls.append(value)

    connection = server.PromptKernelConnection.__new__(server.PromptKernelConnection)
    monkeypatch.setattr(server.ZMQChannelsWebsocketConnection, "connect", lambda self: "connected")
    monkeypatch.setattr(server.PromptKernelConnection, "websocket_handler", Handler(), raising=False)
    assert connection.connect() == "connected" and calls == [True]



@pytest.mark.parametrize("module", ["llm_from_scratch.book.lab_settings", "llm_from_scratch.book.server"])
def test_run_as_a_module_it_writes_a_connection_the_server_can_import(module, tmp_path):
    """What the Makefile runs (``python -m …lab_settings``), and an older Makefile's command (``…server``), write
    settings whose class the server imports: run so, a module's ``__name__`` is ``__main__``."""
    run = subprocess.run([sys.executable, "-c", "import sys, runpy; sys.prefix = sys.argv[1]; "
                          f"runpy.run_module({module!r}, run_name='__main__')", str(tmp_path)],
                         capture_output=True, text=True, timeout=60, check=True)
    assert "jupyter_server_config.json" in run.stdout
    named = json.loads((tmp_path / "etc/jupyter/jupyter_server_config.json").read_text())["ServerApp"][
        "kernel_websocket_connection_class"]
    module_name, _, name = named.rpartition(".")
    assert getattr(importlib.import_module(module_name), name) is server.PromptKernelConnection
