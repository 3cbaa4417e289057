"""One track layout (traces/tracks.py) for both exports: neither writer names a track, nor imports the
other's private names; the Chrome JSON and the .pftrace show the same tracks in the same order."""
import ast
import json
import pathlib

import numpy as np
import pytest

from dmlemu.convenience import run_operator
from dmlemu.directml import (DML_BUFFER_TENSOR_DESC, DML_ELEMENT_WISE_CLIP_OPERATOR_DESC, DML_TENSOR_DATA_TYPE_FLOAT32,
                             DML_TENSOR_DESC, DML_TENSOR_TYPE_BUFFER)
from dmlemu.presets import RX_7900_XTX, TEACHING
from dmlemu.traces import save_chrome_json, tracks

TRACES = pathlib.Path(__file__).resolve().parent.parent.parent / "traces"
WRITERS = ("chrome.py", "pftrace.py")


def _strings(path):
    """Every string constant of a module outside docstrings, f-strings' literal parts included."""
    tree = ast.parse(path.read_text())
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef)) and node.body \
                and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant):
            docstrings.add(id(node.body[0].value))
    return [n.value for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docstrings]


@pytest.mark.parametrize("writer", WRITERS)
def test_no_writer_names_a_track_of_its_own(writer):
    static = [tracks.NOTES, tracks.COMMAND_PROCESSOR, tracks.DISPATCHES, tracks.COPY_ENGINE, tracks.MEMORY,
              tracks.REQUESTS, tracks.IN_FLIGHT, tracks.DRAM_IN_FLIGHT] + [c.track for c in tracks.COUNTERS]
    names = {t.name for t in static} | {c.json_event for c in tracks.COUNTERS}
    starts = ("GPU: ", "CU ", "SIMD ", "Trace note")          # the literal parts of f"CU {cu}" and the like
    parts = (" / group ", " folded waves", "(overlapping", "gpu.cu[", "].simd[")
    found = [s for s in _strings(TRACES / writer)
             if s in names or s.startswith(starts) or any(m in s for m in parts)]
    assert found == [], f"{writer} spells track names itself: {found}"


@pytest.mark.parametrize("writer", WRITERS)
def test_no_writer_imports_another_writers_names(writer):
    tree = ast.parse((TRACES / writer).read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("dmlemu.traces"):
            assert node.module not in {"dmlemu.traces.chrome", "dmlemu.traces.pftrace"}, (writer, node.module)
            assert not any(a.name.startswith("_") for a in node.names), (writer, node.module)


def test_orders_keep_lanes_together_and_ranks_apart():
    assert tracks.DISPATCHES.order(0) < tracks.DISPATCHES.order(tracks.LANES - 1) < tracks.COPY_ENGINE.order()
    assert tracks.DISPATCHES.lane_name(0) == "Dispatches"
    assert tracks.DISPATCHES.lane_name(2) == "Dispatches (overlapping, 3)"
    order = [tracks.NOTES, tracks.COMMAND_PROCESSOR, tracks.DISPATCHES, tracks.COPY_ENGINE,
             *(c.track for c in tracks.COUNTERS), tracks.compute_unit(0, 96), tracks.compute_unit(95, 96)]
    assert [t.order() for t in order] == sorted(t.order() for t in order)
    assert tracks.compute_unit(7, 96).name == "CU 07" and tracks.compute_unit(7, 8).name == "CU 7"
    assert tracks.slot(2 * tracks.GROUP_TRACKS + 1).name == "SIMD 2 / group 1"
    assert tracks.unit_name(3, 1 * tracks.GROUP_TRACKS) == "gpu.cu[3].simd[1].group[0]"
    # The largest order a track can have stays an int32 (TrackDescriptor.sibling_order_rank).
    assert tracks.compute_unit(RX_7900_XTX.compute_units * 100, 1).order(tracks.LANES - 1) < 2 ** 31
    assert [c.key for c in tracks.counters(TEACHING)] == ["read", "write", "resident", "occupancy", "alu", "l2"]
    assert [c.key for c in tracks.counters(RX_7900_XTX)][-1] == "ic"


def test_lanes_put_each_slice_on_the_first_lane_free_at_its_start():
    starts, ends = np.array([0, 1, 2, 5, 5, 6]), np.array([4, 3, 6, 7, 6, 9])
    assert tracks.lanes(starts, ends) == [0, 1, 2, 0, 1, 1]


def _clip_trace(n, adapter, detail, max_rows=None):
    t = DML_TENSOR_DESC(Type=DML_TENSOR_TYPE_BUFFER, Desc=DML_BUFFER_TENSOR_DESC(
        DataType=DML_TENSOR_DATA_TYPE_FLOAT32, Sizes=[n], TotalTensorSizeInBytes=4 * n))
    x = np.linspace(-3, 3, n, dtype=np.float32)
    _, trace = run_operator(DML_ELEMENT_WISE_CLIP_OPERATOR_DESC(InputTensor=t, OutputTensor=t, Min=-1, Max=1), [x],
                            adapter=adapter, trace=detail, trace_max_rows=max_rows)
    return trace


@pytest.mark.parametrize("adapter, max_rows", [("rx7900xtx", None), ("teaching", 40)])
def test_the_json_and_the_pftrace_show_the_same_tracks_in_the_same_order(adapter, max_rows, tmp_path):
    pytest.importorskip("perfetto.protos.perfetto.trace.perfetto_trace_pb2")
    from test_pftrace import Parsed
    from dmlemu.traces import save_pftrace
    trace = _clip_trace(8192, adapter, "memory", max_rows)
    with open(save_chrome_json(trace, tmp_path / "t.json")) as f:
        events = json.load(f)["traceEvents"]
    p = Parsed(open(save_pftrace(trace, str(tmp_path / "t.pftrace")), "rb").read())

    def json_names(kind, pid=None):
        """Process (pid None) or thread names of the JSON, by their sort index."""
        names = {(e["pid"], e.get("tid")): e["args"]["name"] for e in events if e["name"] == kind + "_name"}
        order = {(e["pid"], e.get("tid")): e["args"]["sort_index"] for e in events if e["name"] == kind + "_sort_index"}
        assert names.keys() == order.keys()
        return [names[k] for k in sorted(names, key=order.get) if pid is None or k[0] == pid]

    (root,) = [u for u, t in p.tracks.items() if not t.parent_uuid]
    tree = p.children(root)
    processes = json_names("process")
    assert processes[0] == tracks.JSON_DEVICE_PROCESS and p.tracks[root].name == tracks.device(trace.preset).name
    assert processes[1:] == [n for n in tree if n.startswith("CU ")]
    threads = json_names("thread", pid=1)
    # Notes: one thread of instants in the JSON; a lane per folded table in the .pftrace, first in both.
    notes = [tracks.note_lane(table) for table in trace.aggregated]
    assert tree[:len(notes)] == notes and bool(notes) == bool(max_rows)
    # (The JSON alone also notes what it leaves out itself: instruction segments under a nanosecond,
    # which one-wave cohorts of a small grid spread over the SIMDs make; the .pftrace keeps them.)
    json_notes = any(e["name"] == "trace note" for e in events)
    assert threads[:1] == [tracks.NOTES.name] if notes or json_notes else tracks.NOTES.name not in threads
    assert json_notes or not notes
    threads = threads[1:] if notes or json_notes else threads
    assert threads == [n for n in tree if n in set(threads)]
    # The host link's track only where the run crossed it (the rx7900xtx run uploads its input over PCIe;
    # the teaching preset has no link).
    host = ["Host link (PCIe)"] if len(trace.tables["host_link"]) else []
    assert host == (["Host link (PCIe)"] if adapter == "rx7900xtx" else [])
    assert threads == ["Command processor", "Dispatches", "Copy engine"] + host
    cu_pids = {e["args"]["name"]: e["pid"] for e in events if e["name"] == "process_name" and e["pid"] != 1}
    for cu in processes[1:]:
        slots = [n for n in p.children(p.uuid(cu, root)) if " / group " in n and "overlapping" not in n]
        assert json_names("thread", pid=cu_pids[cu]) == slots
    # The device counters: the .pftrace's tracks and the JSON's "<event> <argument>" titles, one per counter.
    shown = tracks.counters(trace.preset)
    assert [n for n in tree if n in {c.track.name for c in shown}] == [c.track.name for c in shown]
    titles = {f"{e['name']} {arg}" for e in events if e["ph"] == "C" for arg in e["args"]}
    assert titles == {f"{c.json_event} {c.json_arg}" for c in shown}
