"""The tiers' own bookkeeping: the quick tier's list of tests to mark slow is by CPU time, so a loaded machine,
which stretches every test's wall time, lists none that are quick."""

import time
from types import SimpleNamespace

import conftest


def spent_in(work) -> float:
    """The CPU seconds the tiers' hook records for a test that does ``work``."""
    item = SimpleNamespace(user_properties=[])
    hook = conftest.pytest_runtest_call(item)
    next(hook)
    work()
    try:
        hook.send(None)
    except StopIteration:
        pass
    [(name, seconds)] = item.user_properties
    assert name == "cpu_seconds"
    return seconds


def busy(seconds: float) -> None:
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass


def test_a_test_that_waits_costs_no_cpu_and_one_that_computes_costs_its_time():
    assert spent_in(lambda: time.sleep(0.3)) < 0.1
    assert abs(spent_in(lambda: busy(0.3)) - 0.3) < 0.05  # os.times counts in clock ticks (10 ms)


def test_the_summary_lists_quick_tests_by_cpu_not_wall_time():
    def report(name: str, cpu: float, wall: float, *marks: str) -> SimpleNamespace:
        return SimpleNamespace(when="call", nodeid=name, duration=wall, user_properties=[("cpu_seconds", cpu)],
                               keywords={mark: 1 for mark in marks})

    lines = []
    reporter = SimpleNamespace(stats={"passed": [report("loaded", 0.2, 9.0), report("computes", 1.5, 1.6),
                                                 report("slow one", 5.0, 5.0, "slow")]},
                               section=lambda title: lines.append(title), write_line=lines.append)
    conftest.pytest_terminal_summary(reporter)
    assert lines[:2] == ["quick tests over 1 s of CPU: mark them slow (or make them quicker)",
                         "  1.50 s of CPU (1.60 s of wall time)  computes"]
