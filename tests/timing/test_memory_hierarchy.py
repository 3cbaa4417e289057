"""The memory hierarchy of the timing model: coalescing, caches with capacity and state, and
timing that never depends on how the functional model batches its work (docs/FIDELITY.md)."""
import dataclasses
import json
import types

import numpy as np
import pytest

from dmlemu.direct_run import DirectRun
from dmlemu.d3d12 import inspect
from dmlemu.errors import HResultError
from dmlemu.gpu import Gpu
from dmlemu.timing.caches import TRAFFIC_FIELDS
from dmlemu.isa.assembler import assemble
from dmlemu.isa.program import Program
from dmlemu.kernels.driver import TensorSpec
from dmlemu.presets import RTX_3070, RX_6800_XT, RX_7900_XTX, TEACHING
from dmlemu.timing.caches import DispatchTraffic, SetAssociativeCache, _any_per_row, _stable_order
from dmlemu.timing.kernel_path import ALU, SMEM, WAIT, PathCost
from dmlemu.tools.fidelity import layout_strides
from dmlemu.traces import capture
from dmlemu.traces.chrome import to_chrome

SIDE = 1024


def copy_run(gpu, layout="packed", data_type="FLOAT32", item=4, side=SIDE):
    """A FLOAT32 IDENTITY of side x side elements whose input has the layout's strides."""
    strides = layout_strides(layout, side)
    n = side * side
    in_bytes = n * item * (2 if layout == "stride2" else 1)
    source = TensorSpec(data_type, (side, side), strides, in_bytes)
    out = TensorSpec(data_type, (side, side), None, n * item)
    return DirectRun(gpu, "ELEMENT_WISE_IDENTITY", [source, out], [np.zeros(in_bytes, np.uint8), np.zeros(n * item, np.uint8)])


def seconds(preset, layout="packed", **args):
    gpu = Gpu(preset)
    return copy_run(gpu, layout, **args).dispatch().cycles / preset.clock_hz


@pytest.mark.parametrize("layout", ["packed", "transposed", "broadcast"])
def test_timing_never_depends_on_the_functional_batch(layout):
    results = []
    for batch_lanes in (1 << 10, 1 << 14, 1 << 17):
        gpu = Gpu(RX_7900_XTX)
        gpu.dispatcher.batch_lanes = batch_lanes
        run = copy_run(gpu, layout, side=512)
        with capture(gpu, "memory") as cap:
            stats = run.dispatch()
        trace_json = json.dumps(to_chrome(cap.trace), sort_keys=True)
        results.append((stats.cycles, stats.timing.traffic.totals, trace_json))
    assert results[0] == results[1] == results[2]


@pytest.mark.parametrize("preset", [RX_7900_XTX, RX_6800_XT, RTX_3070], ids=lambda p: p.key)
def test_access_patterns_cost_what_real_gpus_charge(preset):
    """The access-pattern bounds, from published measurements. The transposed read's lower bound is 1.2 here:
    the 2.5-20 of the issue comes from naive transposes, whose uncoalesced side is the write, and no published
    transposed *read* of these GPUs was found. The AMD presets met 2.5 and the RTX 3070 2.0 only while a
    fitted per-CU miss queue (44, 30 and 82 sectors) capped every uncoalesced request; with miss queues sized
    from hardware (presets.py) a 1024 x 1024 transposed read costs its tag lookups, L2 traffic and DRAM row
    activations: 1.9x, 1.35x and 1.24x. The measured H200 (2.84x at 2048^2) holds the h200 preset
    (test_preset_h200.py) and its 8192^2 growth is the row buffers' (test_dram_rows.py). RDNA's shader array
    L1 (cu_caches.py: 128/256 KB per array) now serves the sectors that neighbouring columns' workgroups share,
    which went to the L2 before: the RX 6800 XT preset's transposed read is then its tag lookups and DRAM
    rows, 1.16x (RX 7900 XTX 1.24x, RTX 3070 1.24x), so the lower bound here is 1.1 (still no published
    transposed read of an RDNA GPU found)."""
    packed = seconds(preset)
    assert 1.1 <= seconds(preset, "transposed") / packed <= 20
    assert 1.3 <= seconds(preset, "stride2") / packed <= 2.5
    # Reads hit the L2, a write-only stream: real GPUs <= 0.75 (a general-path kernel: its address
    # arithmetic hides under memory only because a SIMD's slot groups overlap, test_simd.py).
    big = seconds(preset, side=2048)      # these need fixed costs to be small
    assert seconds(preset, "broadcast", side=2048) / big <= 0.75
    assert 0.4 <= seconds(preset, data_type="FLOAT16", item=2, side=2048) / big <= 0.65
    assert 1.7 <= seconds(preset, data_type="FLOAT64", item=8, side=2048) / big <= 2.3


def test_coalescing_counts_lines_and_sectors():
    gpu = Gpu(RX_7900_XTX)
    packed = copy_run(gpu).dispatch().timing.traffic.per_instruction
    gpu = Gpu(RX_7900_XTX)
    transposed = copy_run(gpu, "transposed").dispatch().timing.traffic.per_instruction
    waves = SIDE * SIDE // 32
    load_pc = min(packed)        # the load comes before the store
    # wave32 FLOAT32 packed: 128 bytes = one 128-byte line = two 64-byte sectors per wave.
    assert packed[load_pc]["lines"] == waves and packed[load_pc]["sectors"] == 2 * waves
    # Transposed: every lane its own line.
    assert transposed[min(transposed)]["lines"] == 32 * waves


def test_cache_contents_persist_across_dispatches():
    """A second identical copy finds its input in the Infinity Cache: fewer DRAM reads."""
    gpu = Gpu(RX_6800_XT)
    run = copy_run(gpu)
    first = run.dispatch().timing.traffic.totals
    second = run.dispatch().timing.traffic.totals
    assert first["dram_reads"] == SIDE * SIDE * 4 // 64
    assert second["dram_reads"] == 0 and second["ic_hits"] + second["l2_hits"] == first["dram_reads"]


@pytest.mark.parametrize("preset, low, high", [(RX_6800_XT, 1.5, 99), (RX_7900_XTX, 1.5, 99), (RTX_3070, 0, 1.0)],
                         ids=lambda p: getattr(p, "key", ""))
def test_repeating_a_16_mib_copy(preset, low, high):
    """The same 16 MiB copied 4 times: the Infinity Cache holds it (above DRAM peak); a 4 MB L2
    does not (DRAM-bound)."""
    gpu = Gpu(preset)
    run = copy_run(gpu, side=2048)
    for _ in range(4):
        stats = run.dispatch()
    rate = (stats.bytes_read + stats.bytes_written) / (stats.cycles / preset.clock_hz)
    assert low <= rate / preset.dram_bytes_per_second <= high


def test_set_associative_cache_hits_what_fits_and_writes_back_dirty_sectors():
    cache = SetAssociativeCache("test", capacity_bytes=64 * 64, sector_bytes=64, ways=4)
    sectors = np.arange(32, dtype=np.int64)
    hits, evicted = cache.access(sectors, np.ones(32, dtype=bool))
    assert not hits.any() and evicted.size == 0
    hits, _ = cache.access(sectors, np.zeros(32, dtype=bool))
    assert int(hits.sum()) == 32       # 32 sectors in 64 sectors' room: every one survives hashing into sets
    _, evicted = cache.access(np.arange(1000, 1400, dtype=np.int64), np.zeros(400, dtype=bool))
    assert sorted(evicted.tolist()) == list(range(32))   # 400 clean sectors push out every dirty one
    assert cache.write_back().size == 0


def test_an_impossible_cache_geometry_is_rejected_with_the_field_named():
    bad = dataclasses.replace(RX_7900_XTX, l2_bytes=1000)
    with pytest.raises(HResultError) as error:
        Gpu(bad)
    assert "l2_bytes is 1000; it must be a multiple of line_bytes x l2_ways (128 x 16)" in error.value.message
    with pytest.raises(HResultError, match="infinity_cache_bytes_per_second is 0"):
        Gpu(dataclasses.replace(RX_7900_XTX, infinity_cache_bytes_per_second=0))
    with pytest.raises(HResultError) as error:
        Gpu(dataclasses.replace(RX_7900_XTX, dram_write_batch_bytes=0))
    assert ("dram_write_batch_bytes is 0 while dram_turnaround_cycles is 26; a preset with a read/write "
            "turnaround needs the write batch it follows") in error.value.message
    with pytest.raises(HResultError) as error:
        Gpu(dataclasses.replace(RX_7900_XTX, dram_turnaround_cycles=-1))
    assert "dram_turnaround_cycles is -1; it must be a non-negative integer" in error.value.message


# ---- the ISA table is the only source of instruction timing -------------------------------------
def _path_cost(source, percent=100):
    program = Program(assemble(source))
    return program, PathCost(program, range(len(program)), 1, percent)


def test_s_nop_idles_its_count_plus_one():
    _, short = _path_cost("s_nop 0\ns_endpgm")
    _, long = _path_cost("s_nop 500\ns_endpgm")
    assert short.schedule(1)[0][0].cycles == 1 and long.schedule(1)[0][0].cycles == 501


def test_s_waitcnt_carries_its_count():
    _, cost = _path_cost("s_load_dword s4, s[2:3], 0\ns_waitcnt 3\ns_endpgm")
    kinds = [(s.kind, s.cycles) for s in cost.schedule(1)[0]]
    assert kinds == [(ALU, 1), (SMEM, 100), (WAIT, 3)]


def test_a_table_latency_change_moves_the_cycles(monkeypatch):
    program, cost = _path_cost("s_load_dword s4, s[2:3], 0\ns_waitcnt 0\ns_endpgm", percent=50)
    assert cost.schedule(1)[0][1].cycles == 50
    first = program.records[0]
    slower = dataclasses.replace(first, entry=dataclasses.replace(first.entry, latency_cycles=300))
    changed = types.SimpleNamespace(records=(slower,) + program.records[1:])
    assert PathCost(changed, range(len(program)), 1, 50).schedule(1)[0][1].cycles == 150


def test_teaching_preset_still_times_small_kernels():
    gpu = Gpu(TEACHING)
    stats = copy_run(gpu, side=16).dispatch()
    assert stats.timing.traffic.totals["sectors"] > 0 and stats.cycles > TEACHING.launch_cycles


def test_a_release_writes_the_l2_back_and_charges_its_bytes():
    """A transition out of UAV use (or the end of a submission) writes the dirty L2 sectors back:
    the clock moves by their bytes at the next level's bandwidth plus its latency, and the L2 is clean."""
    for preset in (RX_7900_XTX, RTX_3070):
        gpu = Gpu(preset)
        copy_run(gpu, side=256).dispatch()         # 256 KiB written: all of it still dirty in the L2
        l2 = gpu.command_processor.caches.l2
        dirty = l2.dirty_sectors()
        assert dirty == 256 * 256 * 4 // preset.sector_bytes
        before = gpu.clock_cycles
        cycles = gpu.barrier(release=True)
        # Through the Infinity Cache (written through) into DRAM: the slower level bounds it.
        dram = -(-dirty * preset.sector_bytes * preset.clock_hz // preset.dram_bytes_per_second)
        assert cycles == dram + preset.dram_latency_cycles
        assert gpu.clock_cycles == before + cycles
        assert l2.dirty_sectors() == 0 and gpu.barrier(release=True) == 0


def test_a_copy_makes_the_l2_copies_of_its_destination_stale():
    gpu = Gpu(RX_7900_XTX)
    run = copy_run(gpu, side=256)
    run.dispatch()
    out = run.allocations[-1]
    caches = gpu.command_processor.caches
    resident = caches.l2.resident_sectors()
    gpu.copy_buffer(out, 0, run.allocations[0], 0, 4096)
    assert caches.l2.resident_sectors() == resident - 4096 // RX_7900_XTX.sector_bytes


def test_a_submission_ends_with_a_clean_l2():
    """Through the D3D12 mirror: ExecuteCommandLists releases at its end, and the transition of the
    output to COPY_SOURCE releases before the readback copy."""
    from dmlemu.convenience import Session
    from dmlemu.directml import (DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC, DML_TENSOR_DATA_TYPE_FLOAT32,
                                 DML_BUFFER_TENSOR_DESC, DML_TENSOR_DESC, DML_TENSOR_TYPE_BUFFER)
    session = Session("rx7900xtx")
    tensor = DML_TENSOR_DESC(Type=DML_TENSOR_TYPE_BUFFER, Desc=DML_BUFFER_TENSOR_DESC(
        DataType=DML_TENSOR_DATA_TYPE_FLOAT32, DimensionCount=4, Sizes=[1, 1, 64, 64], Strides=None,
        TotalTensorSizeInBytes=64 * 64 * 4))
    x = np.arange(64 * 64, dtype=np.float32).reshape(1, 1, 64, 64)
    (y,) = session.run(DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC(InputTensor=tensor, OutputTensor=tensor), [x])
    assert np.array_equal(y, x)
    assert inspect(session.device).gpu.command_processor.caches.l2.dirty_sectors() == 0


def test_cohort_traffic_is_the_sum_over_its_waves_however_it_is_read():
    """DispatchTraffic.cohort answers aligned cohorts a block at a time and other ranges one by
    one; both are the plain sum of the per-wave table, as are range_sums (the recorder's)."""
    rng = np.random.default_rng(3)
    for waves in (1, 9, 8 * DispatchTraffic.BLOCK + 5):
        table = rng.integers(0, 5, (len(TRAFFIC_FIELDS), waves)).astype(np.uint8)
        traffic = DispatchTraffic({4: table}, {}, {})
        for _ in range(500):
            count = int(rng.integers(1, 17))
            first = int(rng.integers(0, waves))
            if rng.random() < 0.8:
                first -= first % count
            count = min(count, waves - first)
            assert list(traffic.cohort(4, first, count)) == table[:, first:first + count].sum(axis=1).tolist()
        assert list(traffic.cohort(5, 0, 1)) == [0] * len(TRAFFIC_FIELDS)   # no memory instruction at pc 5
        first = rng.integers(0, waves, 20)
        count = np.minimum(rng.integers(1, 9, 20), waves - first)
        sums = traffic.range_sums(("sectors", "dram_reads"), first, count)
        assert sums[1].tolist() == [int(table[4, f:f + c].sum()) for f, c in zip(first, count)]


def test_the_cache_chunks_fast_helpers_give_numpys_answers():
    rng = np.random.default_rng(5)
    for bound in (2, 6144, 1 << 16, 98304, 1 << 32, 1 << 40):
        keys = rng.integers(0, bound, 5000)
        assert (_stable_order(keys, bound) == np.argsort(keys, kind="stable")).all()
    for ways in (4, 8, 12, 16, 32):
        match = rng.random((300, ways)) < 0.05
        assert (_any_per_row(match) == match.any(axis=1)).all()
