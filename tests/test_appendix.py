"""Appendix 27.11: the tables of counts and the measured engine."""

from llm_from_scratch.book.sections import to_text
from llm_from_scratch.ch27.appendix import cost_table, doubling_table, measure_engine, measurement_figure


def test_the_tables_say_what_doubling_does(english):
    lines = to_text(cost_table(8, [16, 2048], 64, 64)).splitlines()
    assert "2,147,483,648" in lines[-1] and "256 MiB" in lines[-1] and "776 MiB" in lines[-1]
    rows = {line.split()[0]: line.split()[1:] for line in to_text(doubling_table(8, 512, 64, 64)).splitlines()[3:]}
    # QKᵀ, AV, forward+backward, one [B,T,T], record, inputs
    assert rows["B"] == ["×2"] * 6
    assert rows["T"] == ["×4", "×4", "×4", "×4", "×3.92", "×2"]
    assert rows["d_k"] == ["×2", "×1", "×1.5", "×1", "×1", "×1.667"]
    assert rows["d_v"] == ["×1", "×2", "×1.5", "×1", "×1.04", "×1.333"]


def test_the_measurement_covers_every_length_and_draws_both_panels():
    measured = measure_engine([8, 16], batch=1, width=4, repeats=1)
    assert measured.tokens == [8, 16]
    assert all(x > 0 for x in measured.forward_ms + measured.forward_backward_ms + measured.peak_mib)
    assert measured.peak_mib[1] > measured.peak_mib[0]
    figure = measurement_figure(measured)
    assert figure.svg.startswith("<?xml") and len(figure.table.split("\n\n")) == 2
