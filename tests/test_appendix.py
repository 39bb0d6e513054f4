"""Appendix 27.11: the tables of counts, the measured heads and the tile-size explorer."""

import pytest

from llm_from_scratch.book.blocks import to_text
from llm_from_scratch.ch27.appendix import (
    BLOCK_SIZES,
    BlockSizeExplorer,
    cost_table,
    doubling_table,
    measure_heads,
    measurement_figure,
)


def test_the_tables_say_what_doubling_does(english):
    lines = to_text(cost_table(8, [16, 2048], 64, 64)).splitlines()
    assert "2,147,483,648" in lines[-1] and "256 MiB" in lines[-1] and "776 MiB" in lines[-1]
    rows = {line.split()[0]: line.split()[1:] for line in to_text(doubling_table(8, 512, 64, 64)).splitlines()[3:]}
    # QKᵀ, AV, forward+backward, one [B,T,T], record, inputs
    assert rows["B"] == ["×2"] * 6
    assert rows["T"] == ["×4", "×4", "×4", "×4", "×3.92", "×2"]
    assert rows["d_k"] == ["×2", "×1", "×1.5", "×1", "×1", "×1.667"]
    assert rows["d_v"] == ["×1", "×2", "×1.5", "×1", "×1.04", "×1.333"]


@pytest.mark.slow
def test_the_measurement_covers_every_length_and_draws_both_panels():
    measured = measure_heads([8, 16, 64], batch=1, width=4, repeats=1)
    assert measured.tokens == [8, 16, 64] and {"head", "tiled"} <= set(measured.ms)
    assert all(x > 0 for values in [*measured.ms.values(), *measured.peak_mib.values()] for x in values)
    head, tiled = measured.peak_mib["head"], measured.peak_mib["tiled"]
    assert head[2] / head[1] > tiled[2] / tiled[1], "the head's memory grows faster with T than the tiled head's"
    figure = measurement_figure(measured)
    assert figure.svg.startswith("<?xml") and len(figure.table.split("\n\n")) == 2


@pytest.mark.slow
def test_the_tile_size_explorer_measures_every_block_and_marks_the_chosen_one():
    explorer = BlockSizeExplorer(tokens=64, batch=1, width=4)
    assert [c.block_size for c in explorer.curves] == list(BLOCK_SIZES)
    assert explorer.curves[0].ms > 0 and explorer.curves[0].peak_mib > 0
    before = explorer.figure.value
    explorer.slider.value = 32
    assert explorer.state.block_size == 32 and "32:" in explorer.numbers.value
    assert explorer.figure.value != before
