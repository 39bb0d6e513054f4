"""The project's root conftest: it loads the book's pytest plugin (tools/pytest_plugin.py) for every run,
a plain ``pytest --nbval`` from here as well as ``pytest --nbval ROOT`` from another directory."""

pytest_plugins = ["tools.pytest_plugin"]
