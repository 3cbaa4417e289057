"""Traces: capture at each detail level, Chrome JSON / CSV / .npz export, plots, determinism, bounds.

The captures are small CLIP FLOAT16 runs, on the teaching GPU where many wave groups are wanted
cheaply and on the default preset where the real layout (96 CUs x 2 SIMDs) matters.
"""
import csv
import json
import os
import time
from collections import Counter

import numpy as np
import pytest

from dmlemu.convenience import run_operator
from dmlemu.direct_run import DirectRun
from dmlemu.directml import (
    DML_BUFFER_TENSOR_DESC, DML_ELEMENT_WISE_CLIP_OPERATOR_DESC, DML_TENSOR_DATA_TYPE_FLOAT16, DML_TENSOR_DESC,
    DML_TENSOR_TYPE_BUFFER,
)
from dmlemu.gpu import Gpu
from dmlemu.presets import DEFAULT_PRESET, TEACHING
from dmlemu.kernels.driver import TensorSpec
from dmlemu.traces import (
    DETAILS, capture, load_trace, save_chrome_json, save_dispatch_csv, save_table_csv, save_trace, to_chrome,
)
from dmlemu.traces import tracks
from dmlemu.traces.plots import plot_all

CLIP_ARGS = dict(min_value=-1.0, max_value=1.0, scale_bias=(2.0, 0.5))
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def clip_input(n, seed=0):
    return (np.random.default_rng(seed).standard_normal(n) * 3).astype(np.float16)


def direct_clip(gpu, n, detail=None, max_rows=None):
    """CLIP FP16 straight on a Gpu: (output bytes, stats, trace or None)."""
    x = clip_input(n)
    spec = TensorSpec("FLOAT16", (n,), None, x.nbytes)
    run = DirectRun(gpu, "ELEMENT_WISE_CLIP", [spec, spec], [x.view(np.uint8), np.zeros(x.nbytes, np.uint8)],
                    **CLIP_ARGS)
    if detail is None:
        stats = run.dispatch()
        trace = None
    else:
        kwargs = {} if max_rows is None else {"max_rows": max_rows}
        with capture(gpu, detail=detail, **kwargs) as cap:
            stats = run.dispatch()
        trace = cap.trace
    return run.output_bytes()[:x.nbytes].copy(), stats, trace


def mirror_clip(n, adapter=None, trace=None):
    t = DML_TENSOR_DESC(Type=DML_TENSOR_TYPE_BUFFER, Desc=DML_BUFFER_TENSOR_DESC(
        DataType=DML_TENSOR_DATA_TYPE_FLOAT16, Sizes=[n], TotalTensorSizeInBytes=2 * n))
    desc = DML_ELEMENT_WISE_CLIP_OPERATOR_DESC(InputTensor=t, OutputTensor=t, Min=-1.0, Max=1.0)
    return run_operator(desc, [clip_input(n)], adapter=adapter, trace=trace)


@pytest.fixture(scope="module")
def teaching_memory_trace():
    """A memory-detail capture of a 4096-element CLIP on the teaching GPU (~170 wave groups)."""
    _, trace = mirror_clip(4096, adapter="teaching", trace="memory")
    return trace


# ---- capture ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("detail", DETAILS)
def test_capture_table_sizes_follow_the_detail_level(detail):
    _, stats, trace = direct_clip(Gpu(DEFAULT_PRESET), 4096, detail)
    level = DETAILS.index(detail)
    t = trace.tables
    assert len(t["dispatches"]) == 1 and len(t["counters"]) > 0
    assert (len(t["wave_groups"]) > 0) == (level >= 1)
    assert (len(t["segments"]) > 0) == (level >= 2)
    assert (len(t["memory"]) > 0) == (level >= 3)
    assert trace.aggregated == []
    d = t["dispatches"][0]
    assert int(d["waves"]) == stats.waves == 4096 // DEFAULT_PRESET.wave_width
    if level >= 1:
        assert int(t["wave_groups"]["waves"].sum()) == stats.waves
        assert (t["wave_groups"]["end"] > t["wave_groups"]["start"]).all()
    if level >= 3:
        m = t["memory"]
        assert int(m["bytes"][m["write"]].sum()) == int(d["bytes_written"]) == 2 * 4096
        assert int(m["bytes"][~m["write"]].sum()) == int(d["bytes_read"]) == 2 * 4096
        assert (m["complete"] >= m["issue"]).all()
    # The counters spread the dispatch's DRAM bytes over time without losing one.
    c = t["counters"]
    assert int(c["dram_read_bytes"].sum() + c["dram_write_bytes"].sum()) == int(d["dram_bytes"])
    assert c["start"][0] == d["start"] and c["end"][-1] == d["end"]


def test_capture_of_a_mirror_run_has_copies_and_submissions(teaching_memory_trace):
    t = teaching_memory_trace.tables
    assert len(t["copies"]) == 2 and len(t["submissions"]) >= 1 and len(t["dispatches"]) == 1
    assert teaching_memory_trace.programs[0][0] == str(t["dispatches"][0]["name"])


def test_summary_bandwidth_is_bytes_over_seconds(teaching_memory_trace):
    trace = teaching_memory_trace
    summary = trace.summary()
    assert len(summary) == 1            # the CLIP dispatch
    for s in summary:
        assert s["seconds"] == s["cycles"] / TEACHING.clock_hz
        assert s["requested_bytes_per_second"] == (s["bytes_read"] + s["bytes_written"]) / s["seconds"]
        assert s["bandwidth_bytes_per_second"] == s["dram_bytes"] / s["seconds"]      # real DRAM traffic
        assert s["percent_of_peak"] == 100.0 * s["bandwidth_bytes_per_second"] / TEACHING.dram_bytes_per_second


def test_run_operator_with_trace_returns_the_outputs_and_a_one_dispatch_trace():
    [plain] = mirror_clip(1000)
    [traced], trace = mirror_clip(1000, trace="wave")
    assert np.array_equal(plain.view(np.uint16), traced.view(np.uint16))
    assert len(trace.dispatches) == 1 and trace.detail == "wave" and len(trace.wave_groups) > 0
    assert trace.preset is DEFAULT_PRESET


def test_run_operator_with_an_unknown_trace_detail_raises():
    with pytest.raises(ValueError, match="trace detail 'waves' is not one of dispatch, wave, instruction, memory"):
        mirror_clip(16, trace="waves")


# ---- functional results never depend on timing or tracing ------------------------------------------
def test_timing_off_gives_bit_identical_outputs():
    timed, _, _ = direct_clip(Gpu(DEFAULT_PRESET, timing=True), 5000)
    untimed, _, trace = direct_clip(Gpu(DEFAULT_PRESET, timing=False), 5000, "memory")
    assert np.array_equal(timed, untimed)
    # An untimed dispatch is still one row, marked untimed, with no wave detail.
    assert len(trace.dispatches) == 1 and not trace.dispatches["timed"][0] and len(trace.wave_groups) == 0
    doc = to_chrome(trace)
    assert [e["name"] for e in doc["traceEvents"] if e.get("cat") == "dispatch"] == \
        [f"{trace.dispatches['name'][0]} #0"]


def test_tracing_does_not_change_outputs_or_cycles():
    gpu_off, gpu_on = Gpu(DEFAULT_PRESET), Gpu(DEFAULT_PRESET)
    out_off, stats_off, _ = direct_clip(gpu_off, 20000)
    out_on, stats_on, trace = direct_clip(gpu_on, 20000, "memory")
    assert np.array_equal(out_off, out_on)
    assert stats_off.cycles == stats_on.cycles and gpu_off.clock_cycles == gpu_on.clock_cycles
    d = trace.dispatches[0]
    assert int(d["end"] - d["start"]) == stats_on.cycles


# ---- Chrome trace JSON ------------------------------------------------------------------------------
def check_chrome(doc):
    """Structural checks of a Chrome Trace Event document; returns the events."""
    events = doc["traceEvents"]
    assert doc["displayTimeUnit"] in ("ms", "ns")
    for e in events:
        assert isinstance(e["name"], str) and isinstance(e["pid"], int) and e["ph"] in "XCbeMi"
        if e["ph"] != "M":
            assert isinstance(e["ts"], float) and e["ts"] >= 0 and isinstance(e["tid"], int)
        if e["ph"] == "X":
            assert e["dur"] >= 0 and isinstance(e["cat"], str)
        if e["ph"] == "C":
            assert e["args"] and all(isinstance(v, float) for v in e["args"].values())
        if e["ph"] in "be":      # process-local ids: viewers file requests under their CU
            assert e["cat"] == "memory" and isinstance(e["id2"]["local"], int) and "id" not in e
    # Async requests: exactly one begin and one end per id, the end not before the begin.
    begins = {e["id2"]["local"]: e for e in events if e["ph"] == "b"}
    ends = {e["id2"]["local"]: e for e in events if e["ph"] == "e"}
    assert len(begins) == sum(e["ph"] == "b" for e in events) and begins.keys() == ends.keys()
    for i, b in begins.items():
        assert ends[i]["ts"] >= b["ts"] and ends[i]["name"] == b["name"] and ends[i]["pid"] == b["pid"]
    # Complete events nest properly on each thread (in Perfetto's whole nanoseconds).
    by_thread = {}
    for e in events:
        if e["ph"] == "X":
            start = round(e["ts"] * 1000)
            by_thread.setdefault((e["pid"], e["tid"]), []).append((start, -round(e["dur"] * 1000)))
    for slices in by_thread.values():
        stack = []
        for start, neg_dur in sorted(slices):
            end = start - neg_dur
            while stack and stack[-1] <= start:
                stack.pop()
            assert not stack or end <= stack[-1], "a slice ends after its parent"
            stack.append(end)
    # Instruction segments lie inside a wave group of their SIMD.
    waves = {}
    for e in events:
        if e.get("cat") == "wave":
            waves.setdefault((e["pid"], e["tid"]), []).append((e["ts"], e["ts"] + e["dur"]))
    for e in events:
        if e.get("cat") == "instruction":
            assert any(s <= e["ts"] and e["ts"] + e["dur"] <= end + 1e-9
                       for s, end in waves[(e["pid"], e["tid"])]), f"segment {e} is in no wave group"
    return events


def names_of(events, kind):
    return {(e["pid"], e.get("tid")): e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == kind}


def test_chrome_json_layout(teaching_memory_trace, tmp_path):
    trace = teaching_memory_trace
    path = save_chrome_json(trace, tmp_path / "t.json")
    with open(path) as f:
        doc = json.load(f)
    events = check_chrome(doc)
    processes = names_of(events, "process_name")
    assert processes[(1, None)] == tracks.JSON_DEVICE_PROCESS     # Perfetto lists a process named "Gpu" first
    labels = [e["args"]["labels"] for e in events if e["ph"] == "M" and e["name"] == "process_labels"]
    assert labels == [f"GPU: {TEACHING.description}"]
    assert {name for name in processes.values() if name.startswith("CU ")} == {"CU 0", "CU 1"}
    threads = set(names_of(events, "thread_name").values())
    assert {"Command processor", "Copy engine", "SIMD 0 / group 0"} <= threads
    kinds = Counter(e["ph"] for e in events)
    t = trace.tables
    assert kinds["b"] == kinds["e"] == len(t["memory"])
    cats = Counter(e.get("cat") for e in events if e["ph"] == "X")
    assert cats["wave"] == len(t["wave_groups"]) and cats["instruction"] == len(t["segments"])
    assert cats["copy"] == 2 and cats["submission"] == len(t["submissions"])
    counters = {e["name"]: e["args"] for e in events if e["ph"] == "C"}
    # Perfetto names each track "<name> <argument>": "DRAM bandwidth read (GB/s)", "Resident waves".
    assert set(counters["DRAM bandwidth"]) == {"read (GB/s)", "write (GB/s)"}
    assert set(counters["Resident"]) == {"waves"} and set(counters["Occupancy"]) == {"(%)"}
    assert set(counters["ALU busy"]) == {"(%)"}
    assert sum(e["args"]["waves"] for e in events if e.get("cat") == "wave") == 4096 // TEACHING.wave_width
    segment = next(e for e in events if e.get("cat") == "instruction" and e["args"]["pc_first"] == 0)
    assert segment["name"] == trace.programs[0][1][0]
    wave = next(e for e in events if e.get("cat") == "wave")
    assert wave["args"]["unit"].startswith("gpu.cu[") and " waves " in wave["name"]
    assert doc["otherData"]["detail"] == "memory" and doc["otherData"]["notes"] == []
    assert doc["otherData"]["programs"]["0"]["instructions"] == trace.programs[0][1]


def test_chrome_time_is_cycles_through_the_clock(teaching_memory_trace):
    doc = to_chrome(teaching_memory_trace)
    d = teaching_memory_trace.dispatches[0]
    [event] = [e for e in doc["traceEvents"] if e.get("cat") == "dispatch" and e["name"].endswith("#0")]
    ns_per_cycle = 1e9 / TEACHING.clock_hz       # 10 ns: exact on the teaching GPU
    assert event["ts"] == int(d["start"]) * ns_per_cycle / 1000
    assert event["dur"] == int(d["end"] - d["start"]) * ns_per_cycle / 1000
    assert event["args"]["cycles"] == int(d["end"] - d["start"])


def test_chrome_export_is_bounded(teaching_memory_trace):
    trace = teaching_memory_trace
    full = to_chrome(trace)
    assert len(full["traceEvents"]) > 3000
    doc = to_chrome(trace, max_events=250)
    events = check_chrome(doc)
    assert len(events) <= 250
    notes = doc["otherData"]["notes"]
    assert any(n.startswith(f"{len(trace.segments)} instruction segments and {len(trace.memory)} memory "
                            f"requests left out") for n in notes)
    assert any(n.startswith("wave groups merged up to ") for n in notes)
    assert [e["args"]["note"] for e in events if e["ph"] == "i"] == notes
    waves = [e for e in events if e.get("cat") == "wave"]
    assert any(e["args"].get("groups", 1) > 1 for e in waves)
    assert sum(e["args"].get("groups", 1) for e in waves) == len(trace.wave_groups)
    assert sum(e["args"]["waves"] for e in waves) == 4096 // TEACHING.wave_width


def test_chrome_export_keeps_the_earliest_detail_that_fits(teaching_memory_trace):
    trace = teaching_memory_trace
    doc = to_chrome(trace, max_events=2000)
    events = check_chrome(doc)
    assert len(events) <= 2000
    waves = [e for e in events if e.get("cat") == "wave"]
    segments = [e for e in events if e.get("cat") == "instruction"]
    assert len(waves) == len(trace.wave_groups) and 0 < len(segments) < len(trace.segments)
    assert not any(e["ph"] == "b" for e in events)
    assert f"only the earliest {len(segments)} of {len(trace.segments)} instruction segments" in \
        " ".join(doc["otherData"]["notes"])
    last_kept = max(e["ts"] for e in segments) * 1000 * TEACHING.clock_hz / 1e9     # cycles
    dropped = np.sort(trace.segments["start"])[len(segments):]
    assert dropped.min() >= round(last_kept)


def test_chrome_export_reflects_recorder_aggregation():
    _, _, trace = direct_clip(Gpu(TEACHING), 4096, "instruction", max_rows=50)
    assert trace.aggregated == ["counters", "segments", "wave_groups"]
    assert len(trace.wave_groups) == 50 and len(trace.segments) == 50
    doc = to_chrome(trace, max_events=1000)
    events = check_chrome(doc)
    assert len(events) <= 1000
    assert doc["otherData"]["aggregated"] == trace.aggregated
    notes = doc["otherData"]["notes"]
    assert any(n.startswith("the recorder kept only the first 50 rows of wave_groups") for n in notes)


def test_chrome_export_needs_room_for_the_names():
    _, _, trace = direct_clip(Gpu(DEFAULT_PRESET), 256, "wave")
    with pytest.raises(ValueError, match=r"max_events is 100; a trace of AMD Radeon RX 7900 XTX \(emulated\) needs "
                                         r"at least 662 \(598 for process and thread names and notes, 64 for "
                                         r"events\)"):
        to_chrome(trace, max_events=100)


# ---- determinism -----------------------------------------------------------------------------------
def test_exports_are_byte_identical_across_five_fresh_runs(tmp_path):
    outputs = []
    for i in range(5):
        [_], trace = mirror_clip(3000, adapter="teaching", trace="memory")
        folder = tmp_path / str(i)
        folder.mkdir()
        files = [save_chrome_json(trace, folder / "t.json"), save_dispatch_csv(trace, folder / "d.csv"),
                 save_table_csv(trace, "wave_groups", folder / "w.csv"),
                 save_table_csv(trace, "memory", folder / "m.csv"), save_trace(trace, folder / "t.npz")]
        outputs.append([f.read_bytes() for f in files])
    assert all(o == outputs[0] for o in outputs[1:])


# ---- CSV and .npz -----------------------------------------------------------------------------------
def test_dispatch_csv_matches_the_summary(teaching_memory_trace, tmp_path):
    trace = teaching_memory_trace
    with open(save_dispatch_csv(trace, tmp_path / "d.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    [s] = trace.summary()
    [row] = rows
    assert list(row) == list(s)
    assert int(row["cycles"]) == s["cycles"] and row["kernel"] == s["kernel"]
    assert float(row["bandwidth_bytes_per_second"]) == s["bandwidth_bytes_per_second"]
    assert row["timed"] == "1"


def test_table_csv_has_every_row(teaching_memory_trace, tmp_path):
    trace = teaching_memory_trace
    assert {"dispatches", "wave_groups", "memory", "mem_instructions"} <= set(trace.tables)   # memory detail
    for name in trace.tables:
        with open(save_table_csv(trace, name, tmp_path / f"{name}.csv"), newline="") as f:
            rows = list(csv.reader(f))
        assert tuple(rows[0]) == trace.tables[name].dtype.names and len(rows) == len(trace.tables[name]) + 1
    with pytest.raises(ValueError, match="trace has no table named 'waves'; its tables are barriers, copies, counters, "):
        save_table_csv(trace, "waves", tmp_path / "x.csv")


def test_saved_trace_loads_back_the_same(teaching_memory_trace, tmp_path):
    trace = teaching_memory_trace
    loaded = load_trace(save_trace(trace, tmp_path / "t.npz"))
    assert loaded.preset == trace.preset and loaded.detail == trace.detail
    assert loaded.programs == trace.programs and loaded.aggregated == trace.aggregated
    for name, table in trace.tables.items():
        assert np.array_equal(loaded.tables[name], table)
    assert json.dumps(to_chrome(loaded), sort_keys=True) == json.dumps(to_chrome(trace), sort_keys=True)


# ---- plots -------------------------------------------------------------------------------------------
def test_plots_write_png_files(teaching_memory_trace, tmp_path):
    paths = plot_all(teaching_memory_trace, tmp_path / "plots")
    assert [p.rsplit("/", 1)[-1] for p in map(str, paths)] == \
        ["wave_timeline.png", "bandwidth.png", "occupancy.png", "roofline.png", "caches.png"]
    first = []
    for p in paths:
        data = open(p, "rb").read()
        assert data[:8] == PNG_SIGNATURE and len(data) > 1024
        first.append(data)
    again = [open(p, "rb").read() for p in plot_all(teaching_memory_trace, tmp_path / "again")]
    assert again == first


def test_plots_of_a_dispatch_level_trace(tmp_path):
    _, _, trace = direct_clip(Gpu(DEFAULT_PRESET, timing=False), 256, "dispatch")
    paths = plot_all(trace, tmp_path)
    assert sorted(os.path.basename(p) for p in paths) == [
        "bandwidth.png", "caches.png", "occupancy.png", "roofline.png", "wave_timeline.png"]
    for p in paths:
        data = open(p, "rb").read()
        assert data[:8] == PNG_SIGNATURE and len(data) > 1024


# ---- performance (bench: pytest -m benchmark) -----------------------------------------------------------
@pytest.mark.benchmark
def test_export_and_plots_of_a_16m_element_clip_are_fast(tmp_path):
    _, _, trace = direct_clip(Gpu(DEFAULT_PRESET), 1 << 24, "wave")
    assert len(trace.wave_groups) > 30000
    start = time.perf_counter()
    save_chrome_json(trace, tmp_path / "t.json")
    save_dispatch_csv(trace, tmp_path / "d.csv")
    exported = time.perf_counter() - start
    plot_all(trace, tmp_path)
    plotted = time.perf_counter() - start - exported
    print(f"export {exported:.2f} s, plots {plotted:.2f} s")
    assert exported < 5 and plotted < 5


def test_sub_nanosecond_segments_are_left_out_with_a_note():
    """Perfetto keeps whole nanoseconds: a segment that rounds to zero duration would draw as an
    instant beside its wave; it is left out and counted in a note (the table keeps it)."""
    import numpy as np
    from dmlemu.direct_run import DirectRun
    from dmlemu.gpu import Gpu
    from dmlemu.kernels.driver import TensorSpec
    from dmlemu.presets import RX_7900_XTX
    from dmlemu.traces import capture
    from dmlemu.traces.chrome import to_chrome
    gpu = Gpu(RX_7900_XTX)
    n = 4096 + 32           # the last wave runs alone: its 1-cycle memory issue is 0.4 ns
    spec = TensorSpec("FLOAT32", (n,), None, n * 4)
    run = DirectRun(gpu, "ELEMENT_WISE_IDENTITY", [spec, spec], [np.zeros(n * 4, np.uint8)] * 2)
    with capture(gpu, "instruction") as cap:
        run.dispatch()
    data = to_chrome(cap.trace)
    shown = [e for e in data["traceEvents"] if e.get("cat") == "instruction"]
    assert shown and all(e["dur"] > 0 for e in shown)
    (note,) = [n for n in data["otherData"]["notes"] if "shorter than a nanosecond" in n]
    assert len(shown) + int(note.split()[0]) == len(cap.trace.segments)


@pytest.mark.parametrize("preset", [TEACHING, DEFAULT_PRESET], ids=lambda p: p.key)
def test_alu_busy_counts_each_cohort_once_and_never_exceeds_the_simds(preset):
    """The ALU busy counter spreads each cohort's own issue cycles over its span. It once took the SIMD's running
    count across the cohort, so the other slot group's cycles counted twice (203 % on the teaching adapter)."""
    n = 1 << 12
    x = np.ones(n, np.float16)
    gpu = Gpu(preset)
    spec = TensorSpec("FLOAT16", (n,), None, x.nbytes)
    run = DirectRun(gpu, "ELEMENT_WISE_CLIP", [spec, spec], [x.view(np.uint8), np.zeros(x.nbytes, np.uint8)],
                    min_value=0.0, max_value=1.0)
    with capture(gpu, "wave") as cap:
        stats = run.dispatch()
    c = cap.trace.counters
    assert 0 < c["alu_busy"].max() <= 1.0
    simds = preset.compute_units * preset.simds_per_cu
    charged = float((c["alu_busy"] * (c["end"] - c["start"])).sum()) * simds
    assert 0.97 * stats.timing.simd_busy_cycles <= charged <= stats.timing.simd_busy_cycles + 1


# ---- spilling large tables to disk (unbounded captures) -----------------------------------------------
def test_a_capture_spilled_to_disk_writes_the_same_files_and_leaves_no_temporary_file(tmp_path):
    """A tiny spill threshold sends every table to a file, mapped back at the end: the .npz, the Chrome
    JSON and the .pftrace are byte-identical to those of the in-memory capture, and the spill folder is gone."""
    from dmlemu.traces import save_pftrace
    from dmlemu.traces.pftrace import PerfettoMissing
    x = clip_input(8192)
    spec = TensorSpec("FLOAT16", (8192,), None, x.nbytes)
    spill = tmp_path / "spill"
    spill.mkdir()
    files = {}
    for how, kwargs in (("memory", {"spill_bytes": None}), ("disk", {"spill_bytes": 1, "spill_dir": str(spill)})):
        gpu = Gpu(TEACHING)
        run = DirectRun(gpu, "ELEMENT_WISE_CLIP", [spec, spec], [x.view(np.uint8), np.zeros(x.nbytes, np.uint8)],
                        **CLIP_ARGS)
        with capture(gpu, detail="memory", max_rows=10**9, **kwargs) as cap:
            run.dispatch()
            assert (cap.recorder.spill_folder is not None) == (how == "disk")
            if how == "disk":
                assert sorted(p.name for p in spill.iterdir()) == [cap.recorder.spill_folder.rsplit("/", 1)[-1]]
        mapped = {name for name, t in cap.trace.tables.items() if isinstance(t, np.memmap)}
        assert mapped == (set() if how == "memory" else {n for n, t in cap.trace.tables.items() if len(t)})
        assert len(cap.trace.tables["segments"]) > 1000 and len(cap.trace.tables["memory"]) > 100
        files[how] = [save_trace(cap.trace, tmp_path / f"{how}.npz").read_bytes(),
                      save_chrome_json(cap.trace, tmp_path / f"{how}.json", max_events=10**9).read_bytes()]
        try:
            files[how].append(save_pftrace(cap.trace, tmp_path / f"{how}.pftrace").read_bytes())
        except PerfettoMissing:
            pass
        assert list(spill.iterdir()) == []     # the spill files and their folder are removed at the end
    assert files["disk"] == files["memory"]
    # The streamed JSON writer gives the bytes of one json.dumps of to_chrome's dict.
    whole = json.dumps(to_chrome(cap.trace, max_events=10**9), sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    assert files["disk"][1] == (whole + "\n").encode("ascii")
    assert load_trace(tmp_path / "disk.npz").tables["segments"].tobytes() == cap.trace.tables["segments"].tobytes()


def test_a_bad_spill_threshold_or_folder_is_one_sentence():
    with pytest.raises(ValueError, match=r"^spill_bytes is 0; it must be a whole number of bytes, at least 1 "
                                         r"\(or None: never spill\)$"):
        capture(Gpu(TEACHING), detail="wave", spill_bytes=0)
    with pytest.raises(ValueError, match=r"^spill_dir is '/no/such/folder'; it must be an existing folder \(or None: "
                                         r"the system's temporary folder\)$"):
        capture(Gpu(TEACHING), detail="wave", spill_dir="/no/such/folder")
