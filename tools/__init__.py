"""Maintainers' tools, beside the package and never installed with it: the notebook runner
(``python -m tools.notebooks``, ``make notebooks``), the pytest plugin and nbval's sanitize file, the kernels they start
(over IPC), and ``find-python``, the Python make and CI use."""
