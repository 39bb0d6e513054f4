"""The one owner of the book's state in unit tests (``book.state.STATE``, fresh for each test) and of the tiers.

No test, kernel or server started by the tests touches the learner's own progress: the session
(nbval's kernels, subprocesses) gets a temporary store from the book's plugin (tools/pytest_plugin.py),
each test module its own (JupyterLab servers live as long as a module), and each test a fresh one.
"""

import os

import pytest
from support import stable_id
from support.browser import MEASURED

from llm_from_scratch.book.progress import ENV
from llm_from_scratch.book.state import STATE
from llm_from_scratch.book.text import set_language

QUICK_LIMIT = 1.0  # seconds of CPU: a quick test that takes longer belongs in the slow tier
TIERS = ("notebook", "browser", "slow")


def pytest_configure(config):
    config.addinivalue_line("markers", "applies_to(predicate): a test over the notebook fixture runs only on the "
                            "notebooks for which predicate(chapter, lang, path) holds; the others are not collected")


def pytest_make_parametrize_id(config, val, argname):
    """A parameter's id without a memory address, so that every process collects the same ids."""
    return stable_id(val) if " at 0x" in repr(val) else None


def pytest_collection_modifyitems(config, items):
    """nbval's cells are in the notebook tier. A browser test starts only on the notebooks it applies to (the rest
    are deselected, not skipped); the fixture's parameters stay the same for every test, so pytest still runs each
    notebook's tests together."""
    dropped = []
    for item in items:
        if ".ipynb::" in item.nodeid:
            item.add_marker("notebook")
        marker = item.get_closest_marker("applies_to")
        callspec = getattr(item, "callspec", None)
        if marker and callspec and "notebook" in callspec.params and not marker.args[0](*callspec.params["notebook"]):
            dropped.append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = [item for item in items if item not in set(dropped)]


def cpu_seconds() -> float:
    """The CPU time this process and the children it waited for have used: what a test costs, whatever else the
    machine is running (wall time grows with load, and a loaded machine would list tests that are quick)."""
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    """Each test's CPU time, in its report (a worker's reaches the run's summary with it)."""
    start = cpu_seconds()
    try:
        return (yield)
    finally:
        item.user_properties.append(("cpu_seconds", cpu_seconds() - start))


def pytest_terminal_summary(terminalreporter):
    """The step times the browser tests measured, at the end of the run, where CI's log shows them; and any test of
    the quick tier that used more than QUICK_LIMIT of CPU, which belongs in the slow tier."""
    late = []
    for report in terminalreporter.stats.get("passed", []) + terminalreporter.stats.get("failed", []):
        cpu = dict(report.user_properties).get("cpu_seconds", 0.0)
        if report.when == "call" and cpu > QUICK_LIMIT and not any(tier in report.keywords for tier in TIERS):
            late.append((cpu, report))
    if late:
        terminalreporter.section(f"quick tests over {QUICK_LIMIT:g} s of CPU: mark them slow (or make them quicker)")
        for cpu, report in sorted(late, key=lambda pair: -pair[0]):
            terminalreporter.write_line(f"{cpu:6.2f} s of CPU ({report.duration:.2f} s of wall time)  {report.nodeid}")
    if MEASURED:
        terminalreporter.section("step times measured in the browser")
        for line in MEASURED:
            terminalreporter.write_line(line)


@pytest.fixture(scope="module", autouse=True)
def module_progress(tmp_path_factory):
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(ENV, str(tmp_path_factory.mktemp("progress") / "progress.json"))
        yield


@pytest.fixture(autouse=True)
def fresh_book_state(tmp_path_factory, monkeypatch):
    """Every test starts as a fresh kernel would (the book's first language, no store opened, no form shown) with
    an empty progress store of its own."""
    monkeypatch.setenv(ENV, str(tmp_path_factory.mktemp("progress") / "progress.json"))
    STATE.clear()
    yield
    STATE.clear()


@pytest.fixture
def english():
    set_language("en")
