"""The benchmark and the profile still run (tiny sizes; PyTorch joins only where the bench extra is installed)."""

import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]


def run(*args: str) -> str:
    result = subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout


def test_the_benchmark_writes_its_table_and_plot(tmp_path):
    out = run("benchmarks/bench_head.py", "--tokens", "16", "--batches", "1", "--repeats", "1",
              "--settle", "0", "--tiled-tokens", "24", "--blocks", "8", "16", "--out", str(tmp_path))
    assert "Machine limit" in out and "| 1 | 16 | forward+backward |" in out
    assert "| tiled, block 8 |" in out and "| tiled, block 16 |" in out
    table = (tmp_path / "head.md").read_text(encoding="utf-8")
    assert "engine/closed form" in table and "Peak memory" in table and "Targets" in table
    assert (tmp_path / "head.svg").read_text(encoding="utf-8").startswith("<?xml")


def test_the_profile_names_every_primitive():
    out = run("benchmarks/profile_head.py", "--batch", "1", "--tokens", "8", "--runs", "1")
    for part in ("matmul forward", "matmul backward", "log_softmax backward", "exp forward", "mul backward"):
        assert part in out
