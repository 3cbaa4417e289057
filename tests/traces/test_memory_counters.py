"""Memory hierarchy counters in traces and tools: per dispatch and per memory instruction (L2 and
Infinity Cache requests, hits, hit rates, bytes, coalescing efficiency), their CSV and .npz forms,
Chrome counter tracks, and the cache traffic `dmlemu step` shows for the stepped wave.

The figures are checked against what the sector arithmetic says: on the RX 7900 XTX (wave32,
64-byte sectors, 128-byte lines) a packed FLOAT32 wave reads 128 bytes = 2 sectors = 1 line.
"""
import csv
import io
import json
import zipfile
from contextlib import redirect_stdout

import numpy as np
import pytest

from dmlemu.convenience import run_operator
from dmlemu.direct_run import DirectRun
from dmlemu.directml import (
    DML_BUFFER_TENSOR_DESC, DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC, DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DESC,
    DML_TENSOR_TYPE_BUFFER,
)
from dmlemu.gpu import Gpu
from dmlemu.kernels.driver import TensorSpec
from dmlemu.presets import RTX_3070, RX_7900_XTX, TEACHING
from dmlemu.tools.cli import main
from dmlemu.tools.operators import OperatorRun, random_inputs
from dmlemu.tools.stepper import WaveStepper, format_traffic
from dmlemu.traces import capture, load_trace, save_dispatch_csv, save_table_csv, save_trace, to_chrome
from dmlemu.traces.recorder import TABLES

SIDE = 256
N = SIDE * SIDE
SIZES = [1, 1, SIDE, SIDE]
NEW_SUMMARY_KEYS = ["l2_requests", "l2_lines", "l2_hits", "l2_misses", "l2_hit_rate", "l2_bytes",
                    "ic_requests", "ic_hits", "ic_misses", "ic_hit_rate", "ic_bytes", "ic_write_bytes",
                    "dram_read_bytes", "dram_write_bytes", "dram_turnarounds", "coalescing_efficiency"]


def tensor(strides=None, total=4 * N):
    return DML_TENSOR_DESC(Type=DML_TENSOR_TYPE_BUFFER, Desc=DML_BUFFER_TENSOR_DESC(
        DataType=DML_TENSOR_DATA_TYPE_FLOAT32, Sizes=SIZES, Strides=strides, TotalTensorSizeInBytes=total))


def identity(input_tensor, adapter="rx7900xtx", trace="dispatch"):
    """A FLOAT32 IDENTITY of SIZES through the mirror: (output, trace)."""
    x = np.arange(N, dtype=np.float32).reshape(SIZES)
    desc = DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC(InputTensor=input_tensor, OutputTensor=tensor())
    [y], t = run_operator(desc, [x], adapter=adapter, trace=trace)
    return y, t


def load_and_store(trace):
    rows = trace.instruction_summary()
    [load] = [r for r in rows if not r["write"]]
    [store] = [r for r in rows if r["write"]]
    return load, store


def direct_identity(gpu, strides=None):
    """The same IDENTITY straight on a Gpu (no mirror), to dispatch it repeatedly on one device."""
    spec_in = TensorSpec("FLOAT32", (SIDE, SIDE), strides, 4 * N)
    spec_out = TensorSpec("FLOAT32", (SIDE, SIDE), None, 4 * N)
    return DirectRun(gpu, "ELEMENT_WISE_IDENTITY", [spec_in, spec_out],
                     [np.zeros(4 * N, np.uint8), np.zeros(4 * N, np.uint8)])


# ---- per dispatch and per instruction ---------------------------------------------------------------
def identity_twice():
    """The trace (detail "dispatch") of the same packed IDENTITY dispatched twice on one RX 7900 XTX."""
    gpu = Gpu(RX_7900_XTX)
    run = direct_identity(gpu)
    with capture(gpu, "dispatch") as cap:
        run.dispatch()
        run.dispatch()
    return cap.trace


def test_run_operator_summary_carries_the_memory_counters_of_a_packed_cold_read():
    y, trace = identity(tensor())
    assert np.array_equal(y.reshape(-1), np.arange(N, dtype=np.float32))
    [s] = trace.summary()
    keys = list(s)
    at = keys.index(NEW_SUMMARY_KEYS[0])
    assert keys[at:at + len(NEW_SUMMARY_KEYS)] == NEW_SUMMARY_KEYS     # then the verdict (test_verdict.py)
    waves = N // 32
    # Every wave reads 2 sectors (1 line) and writes 2 sectors (1 line); nothing was in the caches.
    assert (s["l2_requests"], s["l2_lines"], s["l2_hits"], s["l2_misses"]) == (4 * waves, 2 * waves, 0, 4 * waves)
    assert s["l2_hit_rate"] == 0.0 and s["l2_bytes"] == 2 * 4 * N
    # The read misses go to the Infinity Cache (cold too), then to DRAM; the writes stay in the L2.
    assert (s["ic_requests"], s["ic_hits"], s["ic_misses"], s["ic_hit_rate"]) == (2 * waves, 0, 2 * waves, 0.0)
    assert s["dram_read_bytes"] == 4 * N and s["dram_write_bytes"] == 0
    assert s["coalescing_efficiency"] == 1.0
    load, store = load_and_store(trace)
    assert load["instruction"].startswith("buffer_load_dword") and store["instruction"].startswith("buffer_store")
    for row in (load, store):
        assert row["waves"] == waves and row["useful_bytes"] == 4 * N and row["coalescing_efficiency"] == 1.0
        assert row["sectors_per_wave"] == 2.0 and row["lines_per_wave"] == 1.0 and row["l2_hit_rate"] == 0.0
    assert "L2 hit%" in trace.format_summary() and "coal.%" in trace.format_summary()


def test_a_broadcast_input_hits_the_l2():
    _, trace = identity(tensor(strides=[0, 0, 0, 1], total=4 * SIDE))
    load, store = load_and_store(trace)
    # All waves read the same 1 KB (16 sectors): only the first touch of each sector misses the L2, and
    # the CU-side caches (each CU's L0, each shader array's L1) serve most re-reads before the L2 sees them.
    assert load["l2_misses"] == 16 and load["l2_hit_rate"] == 1 - 16 / load["l2_requests"] > 0.9
    assert load["cu_hits"] > 10 * load["l2_requests"]
    assert store["l2_hit_rate"] == 0.0
    [s] = trace.summary()
    assert s["l2_hit_rate"] == (load["l2_hits"] + store["l2_hits"]) / s["l2_requests"]
    assert s["cu_hits"] == load["cu_hits"] + store["cu_hits"] and store["cu_hits"] == 0   # stores go to the L2
    assert s["dram_read_bytes"] == 4 * SIDE


def test_a_transposed_read_coalesces_badly():
    _, trace = identity(tensor(strides=[N, N, 1, SIDE]))
    load, store = load_and_store(trace)
    # Each lane reads 4 bytes from its own 64-byte sector and 128-byte line.
    assert load["coalescing_efficiency"] == 4 / 64 and load["sectors_per_wave"] == load["lines_per_wave"] == 32
    assert store["coalescing_efficiency"] == 1.0
    [s] = trace.summary()
    assert s["coalescing_efficiency"] == 2 * 4 * N / ((32 + 2) * (N // 32) * 64) < 0.25


def test_the_caches_persist_across_dispatches_on_one_device():
    trace = identity_twice()
    first, second = trace.summary()
    assert first["l2_hit_rate"] == 0.0 and second["l2_hit_rate"] == 1.0
    assert second["ic_requests"] == 0 and second["dram_read_bytes"] == 0
    # The counters split the same hits and misses over time, without losing one.
    c = trace.counters
    for s in (first, second):
        mine = c[c["dispatch"] == s["dispatch"]]
        assert int(mine["l2_hits"].sum()) == s["l2_hits"] and int(mine["l2_misses"].sum()) == s["l2_misses"]
        assert int(mine["ic_hits"].sum()) == s["ic_hits"] and int(mine["ic_misses"].sum()) == s["ic_misses"]


def test_mem_instructions_are_recorded_at_every_detail_level_for_timed_dispatches_only():
    for detail in ("dispatch", "memory"):
        gpu = Gpu(TEACHING)
        with capture(gpu, detail) as cap:
            direct_identity(gpu).dispatch()
        m = cap.trace.mem_instructions
        assert len(m) == 2 and sorted(m["write"].tolist()) == [False, True]
        assert int(m["sectors"].sum()) == cap.trace.summary()[0]["l2_requests"] > 0
    gpu = Gpu(TEACHING, timing=False)
    with capture(gpu, "memory") as cap:
        direct_identity(gpu).dispatch()
    assert len(cap.trace.mem_instructions) == 0
    [s] = cap.trace.summary()
    assert s["l2_requests"] == s["ic_requests"] == 0 and s["l2_hit_rate"] == s["coalescing_efficiency"] == 0.0
    assert cap.trace.format_summary().splitlines()[1].split()[-3:] == ["-", "-", "-"]


# ---- exports ---------------------------------------------------------------------------------------
def test_csv_has_the_new_columns_and_is_byte_identical(tmp_path):
    outputs = []
    for i in range(2):
        _, trace = identity(tensor(strides=[N, N, 1, SIDE]), trace="wave")
        folder = tmp_path / str(i)
        folder.mkdir()
        files = [save_dispatch_csv(trace, folder / "d.csv"), save_table_csv(trace, "mem_instructions", folder / "m.csv"),
                 save_table_csv(trace, "counters", folder / "c.csv")]
        outputs.append([f.read_bytes() for f in files])
    assert outputs[0] == outputs[1]
    with open(tmp_path / "0" / "d.csv", newline="") as f:
        [row] = list(csv.DictReader(f))
    assert set(NEW_SUMMARY_KEYS) <= set(row) and float(row["coalescing_efficiency"]) < 0.25
    with open(tmp_path / "0" / "m.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == [name for name, _ in TABLES["mem_instructions"]] and len(rows) == 2
    assert rows[0]["instruction"].startswith("buffer_load_dword") and rows[0]["coalescing"] == "0.0625"


def test_chrome_json_has_cache_hit_rate_counter_tracks():
    trace = identity_twice()
    doc = to_chrome(trace)
    assert json.dumps(doc, sort_keys=True) == json.dumps(to_chrome(trace), sort_keys=True)
    counters = [e for e in doc["traceEvents"] if e["ph"] == "C"]
    l2 = [e["args"]["(%)"] for e in counters if e["name"] == "L2 hit rate"]
    ic = [e["args"]["(%)"] for e in counters if e["name"] == "Infinity Cache hit rate"]
    assert l2 and ic and all(0.0 <= v <= 100.0 for v in l2 + ic)
    assert max(l2) == 100.0 and l2[-1] == 0.0          # the second dispatch hits; zero after the last
    dispatches = [e for e in doc["traceEvents"] if e.get("cat") == "dispatch" and "#" in e["name"]]
    assert [e["args"]["l2_hit_rate"] for e in dispatches] == [0.0, 1.0]
    # No Infinity Cache on the RTX 3070: no track for it.
    gpu = Gpu(RTX_3070)
    with capture(gpu, "dispatch") as cap:
        direct_identity(gpu).dispatch()
    names = {e["name"] for e in to_chrome(cap.trace)["traceEvents"] if e["ph"] == "C"}
    assert "L2 hit rate" in names and "Infinity Cache hit rate" not in names


def test_npz_round_trip_and_files_saved_before_the_counters(tmp_path):
    _, trace = identity(tensor(), trace="dispatch")
    path = save_trace(trace, tmp_path / "t.npz")
    loaded = load_trace(path)
    assert loaded.summary() == trace.summary() and loaded.instruction_summary() == trace.instruction_summary()
    # An older file: dispatches and counters without the new columns, no mem_instructions table.
    new = {"dispatches": ["l2_requests", "l2_lines", "l2_hits", "ic_requests", "ic_hits", "dram_read_sectors",
                          "dram_write_sectors", "ic_write_sectors"],
           "counters": ["l2_hits", "l2_misses", "ic_hits", "ic_misses"]}
    old = tmp_path / "old.npz"
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(old, "w") as dst:
        for info in src.infolist():
            name = info.filename[:-4]
            if name == "mem_instructions":
                continue
            data = src.read(info)
            if name in new:
                array = np.load(io.BytesIO(data), allow_pickle=False)
                array = array[[n for n in array.dtype.names if n not in new[name]]]
                buffer = io.BytesIO()
                np.save(buffer, np.ascontiguousarray(np.array(array.tolist(), dtype=[
                    (n, array.dtype[n]) for n in array.dtype.names])), allow_pickle=False)
                data = buffer.getvalue()
            dst.writestr(info.filename, data)
    back = load_trace(old)
    [s] = back.summary()
    assert s["cycles"] == trace.summary()[0]["cycles"] and s["l2_requests"] == 0 and s["l2_hit_rate"] == 0.0
    assert len(back.mem_instructions) == 0 and int(back.counters["l2_hits"].sum()) == 0
    # A column of another type is still an error, naming the table.
    bad = tmp_path / "bad.npz"
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(bad, "w") as dst:
        for info in src.infolist():
            data = src.read(info)
            if info.filename == "submissions.npy":
                buffer = io.BytesIO()
                np.save(buffer, np.zeros(1, dtype=[("cycle", "f8")]), allow_pickle=False)
                data = buffer.getvalue()
            dst.writestr(info.filename, data)
    with pytest.raises(ValueError, match=r"table submissions has columns \[\('cycle', '<f8'\)\]; expected"):
        load_trace(bad)


# ---- dmlemu step --------------------------------------------------------------------------------------
def test_step_shows_lines_sectors_and_cache_hits_of_buffer_instructions():
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["step"]) == 0
    lines = out.getvalue().splitlines()
    load = next(i for i, line in enumerate(lines) if "buffer_load_ushort" in line)
    store = next(i for i, line in enumerate(lines) if "buffer_store_short" in line)
    # Teaching GPU: 32-byte sectors and lines; 6 lanes x 2 bytes fit one sector.
    assert lines[load + 3].strip() == "coalescer: 6 lanes x 2 B = 12 B -> 1 sector of 32 B in 1 line of 32 B"
    assert lines[load + 4].strip().startswith("lines at 0x")
    assert lines[load + 5].strip() == "caches: 0 of 1 sector hit the L2, 1 read from DRAM"
    assert lines[store + 3].strip().startswith("coalescer: 6 lanes x 2 B = 12 B -> 1 sector")
    assert lines[store + 5].strip().startswith("caches: 1 sector written into the L2 (0 already there)")


def test_stepped_wave_traffic_matches_the_timed_dispatch():
    # Wave 5 of a transposed FLOAT32 IDENTITY on the RX 7900 XTX: 32 lines, all already in its CU's L0
    # (waves 1 .. 4 of its workgroup read the same sectors just before); the store writes 2 fresh sectors of 1 line.
    run = OperatorRun("IDENTITY", "FLOAT32", (64, 64), strides=[(1, 64), (64, 1)])
    stepper = WaveStepper(run, random_inputs(run, 0), width=32, wave=5, adapter="rx7900xtx")
    traffic = [s.traffic for s in stepper.steps() if s.traffic is not None]
    load, store = traffic
    assert not load.write and store.write
    assert (load.sectors, len(load.line_addresses), load.l0_hits, load.l2_hits, load.ic_hits, load.dram_reads) == \
        (32, 32, 32, 0, 0, 0)
    assert (store.sectors, len(store.line_addresses), store.l2_hits) == (2, 1, 0)
    text = format_traffic(load)
    assert text[0] == "coalescer: 32 lanes x 4 B = 128 B -> 32 sectors of 64 B in 32 lines of 128 B"
    assert text[1].endswith("... (+28 more)") and len(text[1].split()) == 2 + 4 + 3
    assert text[2] == "caches: 32 of 32 sectors hit the L0, 0 the L2, 0 the Infinity Cache, 0 read from DRAM"
    stats = stepper.timed_stats()
    rows = stats.record.finish()
    for t, pc in zip(traffic, sorted(rows)):
        sectors = rows[pc].sectors[rows[pc].offsets[5]:rows[pc].offsets[6]]
        assert t.line_addresses == sorted({int(s) * 64 // 128 * 128 for s in sectors})
