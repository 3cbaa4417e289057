"""DRAM banks and row buffers (emulator/timing/dram_rows.py, memory_system.py): packed streams hit open
rows, scattered sectors open a row each, the activation budget and the row-hit latency are charged, and
the preset figures behind them come from their sources."""
import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from dmlemu.presets import H200, IRIS_XE, PRESETS, RTX_3070, RX_6800_XT, TEACHING, preset_problem
from dmlemu.timing.caches import _stable_order
from dmlemu.timing.dram_rows import DramRows as _DramRows
from dmlemu.timing.memory_system import MemorySystem

BANKED = [p for p in PRESETS if p.dram_channels]


def DramRows(preset):     # noqa: N802 (the class, with the caches' sort)
    return _DramRows(preset, _stable_order)


@pytest.mark.parametrize("preset", BANKED, ids=lambda p: p.key)
def test_a_packed_stream_opens_a_row_per_row_of_each_channel(preset):
    rows = DramRows(preset)
    sectors = np.arange(1 << 16, dtype=np.int64)          # 64 Ki consecutive sectors
    misses = rows.misses(sectors)
    per_row = preset.dram_row_bytes // preset.sector_bytes
    # One activation per row of each channel, plus at most one per bank for the rows split at the start.
    assert misses.sum() <= sectors.size // per_row + preset.dram_channels * preset.dram_banks_per_channel
    assert misses.sum() >= sectors.size // per_row // 2
    assert rows.activations == misses.sum()


@pytest.mark.parametrize("preset", BANKED, ids=lambda p: p.key)
def test_scattered_sectors_open_a_row_each(preset):
    """A column of a large row-major matrix: every sector in its own row, far more rows than banks."""
    rows = DramRows(preset)
    stride = 1 << 20                                        # 1 MiB apart: a new row every time
    sectors = np.arange(4096, dtype=np.int64) * (stride // preset.sector_bytes)
    first = rows.misses(sectors)
    assert first.all()
    again = rows.misses(sectors)      # 4096 rows through the banks: each bank has moved on
    banks = preset.dram_channels * preset.dram_banks_per_channel
    assert again.sum() >= sectors.size - banks


def test_the_open_rows_carry_over_and_a_closed_bank_misses():
    rows = DramRows(H200)
    sectors = np.array([5, 6, 7], dtype=np.int64)        # one 256-byte unit: one channel, one row
    assert rows.misses(sectors).tolist() == [True, False, False]
    assert rows.misses(sectors).tolist() == [False, False, False]     # still open
    assert rows.misses(np.zeros(0, dtype=np.int64)).size == 0


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(0, 1 << 30), min_size=1, max_size=300), st.integers(1, 7))
def test_the_bank_state_is_what_one_read_at_a_time_gives(sectors, cut):
    """Vectorised per stream or read by read, in pieces, the same row misses."""
    sectors = np.array(sectors, dtype=np.int64)
    whole = DramRows(RX_6800_XT).misses(sectors)
    one = DramRows(RX_6800_XT)
    assert np.concatenate([one.misses(sectors[i:i + 1]) for i in range(sectors.size)]).tolist() == whole.tolist()
    pieces = DramRows(RX_6800_XT)
    parts = np.array_split(sectors, cut)
    assert np.concatenate([pieces.misses(p) for p in parts]).tolist() == whole.tolist()


def test_activations_take_their_budget_and_row_hits_wait_less():
    preset = RTX_3070
    memory = MemorySystem(preset)
    hit = memory.request(0, 64, 0, 64, False, 0, 64, 0, 0)
    memory = MemorySystem(preset)
    miss = memory.request(0, 64, 0, 64, False, 0, 64, 0, 1)
    assert miss - hit == preset.dram_row_miss_cycles() > 0
    # 1,000 activations at once: the last read's data waits for the activation server.
    memory = MemorySystem(preset)
    many = memory.request(0, 64, 0, 64, False, 0, 64, 0, 1000)
    budget = -(-1000 * preset.clock_hz // preset.dram_activations_per_second())
    assert many == budget + preset.dram_latency_cycles
    # Without banks (TEACHING): every read pays dram_latency_cycles, activations are ignored.
    memory = MemorySystem(TEACHING)
    assert memory.activation is None
    assert memory.request(0, 32, 0, 32, False, 0, 32, 0, 5) == memory.request(100, 32, 0, 32, False, 0, 32, 0, 0) - 100


def test_the_activation_rate_is_the_tightest_of_the_timings():
    # H200: 48 channels / tRRD 1.932 ns = 24.8 G/s (tRC / 16 banks: 1.006 ns, not the limit).
    assert H200.dram_activations_per_second() == 48 * 10**12 // 1932 // 1000 * 1000
    # Iris Xe: tFAW 30 ns / 4 = 7.5 ns = tRRD: 8 channels / 7.5 ns.
    assert IRIS_XE.dram_activations_per_second() == 8 * 10**12 // 7500 // 1000 * 1000
    assert TEACHING.dram_activations_per_second() == 0 and TEACHING.dram_row_miss_cycles() == 0


def test_a_preset_whose_row_miss_outlasts_its_dram_latency_is_refused():
    bad = dataclasses.replace(H200, dram_latency_cycles=10)
    assert "tRP + tRCD" in preset_problem(bad)
    assert "dram_row_bytes is 0" in preset_problem(dataclasses.replace(H200, dram_row_bytes=0))
    assert preset_problem(H200) is None


def test_row_misses_make_a_transposed_read_cost_more_on_h200():
    """A transposed 2048 x 2048 FLOAT32 read on the h200 preset: its DRAM reads open a row each, so with
    banks it costs more against the packed copy than without them (1.79x against 1.63x, and the transposed
    copy itself 1.08x; it was 2.30x against 1.96x before the workgroups' start and end held their slots
    (workgroup_slot_cycles), which both copies pay alike: the packed one is now 13.7 us, the real H200's 13.3;
    the real transposed one 2.84x, and 3.59x at 8192^2)."""
    from dmlemu.tools.fidelity import copy_seconds

    def times(preset):
        return copy_seconds(preset, "transposed")[0], copy_seconds(preset)[0]
    transposed, packed = times(H200)
    flat_transposed, flat_packed = times(dataclasses.replace(H200, dram_channels=0))
    assert transposed / packed > 1.05 * (flat_transposed / flat_packed)
    assert transposed > 1.05 * flat_transposed


def test_a_transposed_read_on_h200_opens_a_row_per_dram_read():
    """What bounds the h200 transposed read (docs/FIDELITY.md): every sector of a transposed
    column lies in another DRAM row and a 2048 x 2048 FLOAT32 column's 2,048 rows outnumber the preset's 768
    banks, so nearly every DRAM read opens a row (497,970 of 524,288), where the packed copy opens one per
    2 KiB row of each channel (about 1 in 64 reads); the reads each hit the L2 seven times after the first
    (a 32-byte sector holds 8 FLOAT32 of a row, read by 8 consecutive output rows)."""
    from dmlemu.tools.fidelity import copy_seconds
    _, transposed = copy_seconds(H200, "transposed")
    _, packed = copy_seconds(H200)
    t, p = transposed.timing.traffic.totals, packed.timing.traffic.totals
    assert t["dram_reads"] == p["dram_reads"] == 2048 * 2048 * 4 // 32
    assert t["dram_activations"] >= 0.9 * t["dram_reads"]
    assert p["dram_activations"] <= p["dram_reads"] // 60      # 8,256: one per 64 reads, and the first rows
    assert t["l2_hits"] == 7 * t["dram_reads"]
