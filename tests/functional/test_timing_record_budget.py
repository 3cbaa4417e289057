"""The timing record's host memory is bounded (dispatch_record.py, docs/RELIABILITY.md "Timing records").

A dispatch's timing record grows with the work (a slot per loop trip, a row per wave): VGG-19's convolutions
and fully-connected layers made the host run out of memory. The record keeps each wave's distinct sectors (not
its lanes' addresses), counts what it holds, and past its budget (DMLEMU_TIMING_RECORD_BYTES, default 512 MiB)
drops it: the dispatch runs bit-exact, its time is the timing-off estimate, a RuntimeWarning says why and what
to raise, and the trace marks the dispatch untimed.
"""
import warnings

import numpy as np
import pytest

from dmlemu import dispatch_record
from dmlemu.gpu import Gpu
from dmlemu.presets import RX_7900_XTX
from dmlemu.traces import capture
from loop_kernels import kernel, launch, looped

TRIP = """
    buffer_load_dword v2, v1, s[8:11], 0
    s_waitcnt 0
    v_add_u32 v3, v3, v2
    v_add_u32 v1, v1, s23
"""


def run(gpu, trips=64, groups=8, group=64):
    threads = groups * group
    launch_, src, dst = launch(gpu, kernel(looped(TRIP, trips), group, threads * 4), "sum", groups, group,
                               threads * 4 * trips)
    src.data[:] = np.random.default_rng(trips).integers(0, 256, src.size, dtype=np.uint8)
    with capture(gpu, detail="dispatch") as cap:
        stats = gpu.dispatch(launch_)
    expected = src.data.view(np.uint32).reshape(trips, threads).sum(axis=0, dtype=np.uint32)
    assert np.array_equal(dst.data.view(np.uint32), expected)
    return stats, cap.trace


def test_the_record_keeps_each_waves_distinct_sectors_not_its_lanes():
    gpu = Gpu(RX_7900_XTX)
    stats, _ = run(gpu)
    record = stats.record
    slots = len(record.finish())
    assert slots == 64 + 1                         # a slot per trip's load, and the store
    lane_bytes = stats.waves * slots * gpu.wave_width * 8
    sectors = sum(int(rows.sectors.size) for rows in record.accesses.values())
    # A coalesced dword load of a wave: wave_width * 4 / sector_bytes sectors, each 8 bytes, plus its wave id and
    # count; a quarter of the lanes' addresses the record used to hold.
    assert sectors == stats.waves * slots * gpu.wave_width * 4 // RX_7900_XTX.sector_bytes
    assert record.held_bytes <= lane_bytes / 4
    assert record.overflow is None and stats.timing is not None


def test_a_record_past_its_budget_gives_an_estimate_a_warning_and_an_untimed_trace_row(monkeypatch):
    timed, timed_trace = run(Gpu(RX_7900_XTX))
    monkeypatch.setenv("DMLEMU_TIMING_RECORD_BYTES", "4096")
    gpu = Gpu(RX_7900_XTX)
    with pytest.warns(RuntimeWarning) as caught:
        stats, trace = run(gpu)         # bit-exact (checked in run)
    sentence = str(caught[0].message)
    assert "sum: the timing record of its 16 waves passed 4096 bytes" in sentence
    assert "DMLEMU_TIMING_RECORD_BYTES" in sentence and "estimate" in sentence
    assert stats.record is None and stats.timing is None
    untimed = Gpu(RX_7900_XTX)
    untimed.timing = False                # emulation-only mode: the same first-order estimate
    estimate, _ = run(untimed)
    assert stats.cycles == estimate.cycles and stats.cycles != timed.cycles
    assert stats.wave_instructions == timed.wave_instructions
    row = trace.tables["dispatches"]
    assert list(row["timed"]) == [False] and list(timed_trace.tables["dispatches"]["timed"]) == [True]
    # The GPU goes on timing the next dispatch that fits.
    monkeypatch.setenv("DMLEMU_TIMING_RECORD_BYTES", str(1 << 30))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        again, _ = run(gpu)
    assert again.timing is not None


def test_lane_accesses_are_kept_as_distinct_sectors_per_wave():
    record = dispatch_record.DispatchRecord(4, 32, 32, 4)
    broadcast = np.full((4, 32), 4096, dtype=np.int64)
    scattered = np.arange(128, dtype=np.int64).reshape(4, 32)[:, ::-1] * 4096     # a sector per lane, descending
    record.add_lanes(0, False, np.arange(4), broadcast, None)
    record.add_lanes(1, False, np.arange(4), scattered, np.arange(32) % 2 == 0)      # half the lanes active
    held = record.held_bytes
    rows = record.finish()
    assert list(rows[0].counts()) == [1] * 4 and list(rows[0].sectors) == [128] * 4
    assert list(rows[1].counts()) == [16] * 4
    expected = sorted(int(a) // 32 for a in scattered[0][np.arange(32) % 2 == 0])
    assert list(rows[1].sectors[:16]) == expected
    # What it held: the sectors (1 + 16 per wave), a wave id and a count per wave and part, not 32 addresses a wave.
    assert held - (record.wave_path.nbytes + record.useful_bytes.nbytes) == \
        2 * dispatch_record._PART_BYTES + 8 * (4 * 17) + 2 * 2 * 8 * 4


def test_a_record_past_its_budget_holds_nothing_more():
    record = dispatch_record.DispatchRecord(4, 8, 32, 10, budget_bytes=1000, name="k")
    addresses = np.arange(32, dtype=np.int64).reshape(4, 8) * 4096
    record.add_lanes(0, False, np.arange(4), addresses, None)
    assert record.overflow is None and record.held_bytes < 1000
    for slot in range(1, 10):
        record.add_lanes(slot, False, np.arange(4), addresses, None)
        record.add_contiguous(slot, True, 0, 4, 0, 32)
    assert record.overflow.startswith("k: the timing record of its 4 waves passed 1000 bytes")
    assert record.finish() == {} and record.held_bytes == record.wave_path.nbytes + record.useful_bytes.nbytes


@pytest.mark.parametrize("text, budget", [("", 512 << 20), ("4096", 4096), ("0x1000", 4096), ("-5", 512 << 20),
                                          ("0", 512 << 20), ("lots", 512 << 20), (" 77 ", 77)])
def test_the_budget_comes_from_the_environment_or_the_default(monkeypatch, text, budget):
    monkeypatch.setenv("DMLEMU_TIMING_RECORD_BYTES", text)
    assert dispatch_record.record_budget_bytes() == budget

