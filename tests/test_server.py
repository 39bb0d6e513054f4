"""The settings the project writes into its own environment for JupyterLab."""

import importlib
import json

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


def test_the_former_module_name_still_writes_and_finds_the_connection(tmp_path):
    """``python -m llm_from_scratch.book.server`` (an older Makefile's command) and settings written under that name
    keep working."""
    import subprocess
    import sys

    from llm_from_scratch.book import server as former
    assert former.PromptKernelConnection is server.PromptKernelConnection
    run = subprocess.run([sys.executable, "-c", "import sys, runpy; sys.prefix = sys.argv[1]; "
                          "runpy.run_module('llm_from_scratch.book.server', run_name='__main__')", str(tmp_path)],
                         capture_output=True, text=True, timeout=60, check=True)
    assert "jupyter_server_config.json" in run.stdout
