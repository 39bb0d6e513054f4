"""The benchmarks still run (tiny sizes; PyTorch joins only where the bench extra is installed)."""

import pathlib
import re
import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow  # every test runs a benchmark script in a process of its own

ROOT = pathlib.Path(__file__).resolve().parents[1]


def run(*args: str) -> str:
    result = subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout


def test_the_benchmark_writes_its_table_its_limits_and_its_plot(tmp_path):
    out = run("benchmarks/bench_head.py", "--tokens", "16", "32", "--repeats", "1", "--settle", "0",
              "--out", str(tmp_path))
    assert "Machine limit" in out and "| 16 | engine |" in out and "| 32 | tiled |" in out
    assert "engine: 6 products, 3 exp per score" in out, "how each limit is derived is printed"
    assert "T = 32: 0.2 MiB, 3.0 B x T x T matrices" in out, "the recorded graph's memory: QKᵀ, S and A"
    table = (tmp_path / "head.md").read_text(encoding="utf-8")
    assert "× limit" in table and "Targets" in table
    assert (tmp_path / "head.svg").read_text(encoding="utf-8").startswith("<?xml")


def test_the_profile_names_every_primitive():
    out = run("benchmarks/profile_head.py", "--batch", "1", "--tokens", "8", "--runs", "1")
    for part in ("matmul forward", "matmul backward", "log_softmax backward", "exp forward", "mul backward"):
        assert part in out


def test_the_check_benchmark_times_the_first_check_in_a_fresh_kernel():
    out = run("benchmarks/bench_checks.py", "--runs", "1")
    assert "first check of a 2×2 answer" in out and "a first wrong head" in out and "a later wrong backward" in out


def test_the_enter_benchmark_counts_a_snapshot_and_one_read_modify_write_per_answer():
    """One Enter: the store read once for the snapshot the judge reads, then read and written once under the lock
    to record the attempt; two holds of the lock in all."""
    lines = run("benchmarks/bench_enter.py").splitlines()
    header, rows = lines[0].split(), [line.split() for line in lines[1:]]
    assert header[-6:] == ["store", "reads", "store", "writes", "locks", "taken"] and len(rows) == 2
    assert all(row[-3:] == ["2", "1", "2"] and int(row[-7]) > 0 for row in rows), lines



def test_the_paths_benchmark_follows_three_flows_through_the_files_they_enter():
    lines = run("benchmarks/bench_paths.py").splitlines()
    flows = [line for line in lines if not line.startswith("  ")]
    assert [line.split(":")[0] for line in flows] == [
        "chapter27, an answer typed in a form", "chapter27, check_code of write-head",
        "chapter27, review() with four items due"], lines
    assert all(re.search(r"\d+ hops, \d+ returns to a file already left", line) for line in flows), lines
    assert "book/exercises.py ×" in lines[1], "each file entered is named with how often"
