"""The native Perfetto export (traces/pftrace.py): parsed back with the perfetto package's protobuf
classes and checked against the recorder's tables: track order, nesting, counts, counters and their
units, flows, trace notes for what was folded, deterministic bytes; and the command line around it."""
import json
import sys

import numpy as np
import pytest

from cli_runner import cli
from dmlemu.convenience import run_operator
from dmlemu.directml import DML_ELEMENT_WISE_CLIP_OPERATOR_DESC, DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DESC, \
    DML_BUFFER_TENSOR_DESC, DML_TENSOR_TYPE_BUFFER
from dmlemu.traces import save_pftrace, to_chrome
from dmlemu.traces.pftrace import INSTALL_HINT, PerfettoMissing

pb = pytest.importorskip("perfetto.protos.perfetto.trace.perfetto_trace_pb2")

BEGIN, END, COUNTER = 1, 2, 4


def clip(n, adapter, detail, max_rows=None):
    t = DML_TENSOR_DESC(Type=DML_TENSOR_TYPE_BUFFER, Desc=DML_BUFFER_TENSOR_DESC(
        DataType=DML_TENSOR_DATA_TYPE_FLOAT32, Sizes=[n], TotalTensorSizeInBytes=4 * n))
    x = np.linspace(-3, 3, n, dtype=np.float32)
    _, trace = run_operator(DML_ELEMENT_WISE_CLIP_OPERATOR_DESC(InputTensor=t, OutputTensor=t, Min=-1, Max=1), [x],
                            adapter=adapter, trace=detail, trace_max_rows=max_rows)
    return trace


@pytest.fixture(scope="module")
def default_trace():
    """Memory detail on the default adapter (96 CUs): more CUs than one digit, several lanes."""
    return clip(8192, None, "memory")


@pytest.fixture(scope="module")
def folded_trace():
    """The teaching GPU with a recorder limit of 40 rows: wave groups, segments, memory, counters folded."""
    return clip(4096, "teaching", "memory", max_rows=40)


class Parsed:
    """A .pftrace read with the protobuf classes: tracks by uuid and the events in file order."""

    def __init__(self, data):
        trace = pb.Trace.FromString(data)
        self.tracks = {}
        self.events = []          # (ts, type, track, name, annotations, flow_ids, terminating_flow_ids, value)
        names, keys = {}, {}
        for p in trace.packet:
            for e in p.interned_data.event_names:
                names[e.iid] = e.name
            for e in p.interned_data.debug_annotation_names:
                keys[e.iid] = e.name
            if p.HasField("track_descriptor"):
                self.tracks[p.track_descriptor.uuid] = p.track_descriptor
            if p.HasField("track_event"):
                e = p.track_event
                args = {}
                for a in e.debug_annotations:
                    kind = a.WhichOneof("value")
                    args[keys[a.name_iid]] = getattr(a, kind)
                self.events.append((p.timestamp, e.type, e.track_uuid, names.get(e.name_iid), args, list(e.flow_ids),
                                    list(e.terminating_flow_ids), e.double_counter_value))

    def children(self, uuid):
        """Names of a track's children in their explicit order."""
        kids = [t for t in self.tracks.values() if t.parent_uuid == uuid]
        return [t.name for t in sorted(kids, key=lambda t: t.sibling_order_rank)]

    def uuid(self, name, parent=None):
        (uuid,) = [u for u, t in self.tracks.items() if t.name == name and (parent is None or t.parent_uuid == parent)]
        return uuid

    def under(self, uuid):
        """uuid and every track below it."""
        out = {uuid}
        for u, t in self.tracks.items():
            if t.parent_uuid == uuid:
                out |= self.under(u)
        return out

    def slices(self):
        """Every slice: (track, depth, start, end, name, args, flow_ids, terminating_flow_ids), the nesting
        checked on the way (an end closes the innermost open slice of its track)."""
        open_, out = {}, []
        for ts, kind, track, name, args, flows, ends, _ in self.events:
            if kind == BEGIN:
                open_.setdefault(track, []).append((ts, name, args, flows, ends))
            elif kind == END:
                start, name, args, flows, ends = open_[track].pop()
                assert ts >= start
                out.append((track, len(open_[track]), start, ts, name, args, flows, ends))
        assert all(not stack for stack in open_.values())
        return out


def parse(trace, tmp_path, name="t.pftrace"):
    path = tmp_path / name
    save_pftrace(trace, str(path))
    return Parsed(path.read_bytes()), path.read_bytes()


def test_tracks_are_device_first_then_the_cus_in_numeric_order(default_trace, tmp_path):
    p, _ = parse(default_trace, tmp_path)
    (root,) = [u for u, t in p.tracks.items() if not t.parent_uuid]
    assert p.tracks[root].name == f"GPU: {default_trace.preset.description}"
    names = p.children(root)
    cus = sorted(set(default_trace.tables["wave_groups"]["cu"].tolist()))
    assert len(cus) > 10
    # The run uploads its input from an UPLOAD heap over PCIe: the host link's track follows the copy engine's.
    assert len(default_trace.tables["host_link"]) > 0
    assert names == ["Command processor", "Dispatches", "Copy engine", "Host link (PCIe)", "DRAM read bandwidth",
                     "DRAM write bandwidth",
                     "Resident waves", "Occupancy", "ALU busy", "L2 hit rate", "Infinity Cache hit rate"] + \
        [f"CU {cu:02d}" for cu in cus]
    assert all(t.child_ordering == pb.TrackDescriptor.EXPLICIT for t in p.tracks.values())
    ranks = [(t.parent_uuid, t.sibling_order_rank) for t in p.tracks.values()]
    assert len(set(ranks)) == len(ranks)      # no two siblings share a place
    inside = p.children(p.uuid(f"CU {cus[0]:02d}"))
    assert inside[0] == "SIMD 0 / group 0" and inside[-3:] == ["Memory requests", "Requests in flight",
                                                                "DRAM requests in flight"]
    simds = [n for n in inside if n.startswith("SIMD ")]
    assert simds == sorted(simds, key=lambda n: (int(n.split()[1]), int(n.split()[-1])))


def test_every_row_is_a_slice_nested_where_it_belongs(default_trace, tmp_path):
    p, _ = parse(default_trace, tmp_path)
    t = default_trace.tables
    timestamps = [e[0] for e in p.events]
    assert timestamps == sorted(timestamps)
    slices = p.slices()
    cu_tracks = {u: p.tracks[u] for u in p.tracks if p.tracks[u].name.startswith("SIMD ")}
    waves = [s for s in slices if s[0] in cu_tracks and s[1] == 0]
    segments = [s for s in slices if s[0] in cu_tracks and s[1] == 1]
    assert len(waves) == len(t["wave_groups"]) and len(segments) == len(t["segments"])
    assert not [s for s in slices if s[0] in cu_tracks and s[1] > 1]
    assert sorted((a["dispatch"], a["first_wave"], a["waves"], a["start_cycle"], a["end_cycle"])
                  for *_, a, _, _ in waves) == sorted(
        (int(r["dispatch"]), int(r["first_wave"]), int(r["waves"]), int(r["start"]), int(r["end"]))
        for r in t["wave_groups"])
    # Each segment lies inside the wave group that ran it (same track, same first wave).
    by_track = {}
    for w in waves:
        by_track.setdefault(w[0], []).append(w)
    for track, _, start, end, _, args, _, _ in segments:
        (parent,) = [w for w in by_track[track] if w[2] <= start and end <= w[3] and w[5]["first_wave"] ==
                     args["first_wave"]]
    memory = [s for s in slices if p.tracks[s[0]].name.startswith("requests")]
    assert len(memory) == len(t["memory"])
    for track, depth, _, _, name, args, _, _ in memory:
        cu = int(p.tracks[p.tracks[p.tracks[track].parent_uuid].parent_uuid].name.split()[1])
        assert depth == 0 and args["unit"].startswith(f"gpu.cu[{cu}].")
        assert name.endswith(": DRAM" if args["dram_bytes"] else ": L2")
    assert len([s for s in slices if p.tracks[s[0]].name == "Copy engine"]) == len(t["copies"])
    dispatches = [s for s in slices if p.tracks[s[0]].name == "Dispatches" and s[1] == 0]
    assert [s[4] for s in dispatches] == [f"{d['name']} #{d['id']}" for d in t["dispatches"]]


def test_a_dispatch_flows_to_its_first_wave_group_on_every_cu(default_trace, tmp_path):
    p, _ = parse(default_trace, tmp_path)
    slices = p.slices()
    targets = {}
    for track, _, start, _, _, args, _, ends in slices:
        for flow in ends:
            cu = int(p.tracks[p.tracks[track].parent_uuid].name.split()[1])
            targets[flow] = (args["dispatch"], cu, start)
    waves = default_trace.tables["wave_groups"]
    flowing = [(args, flows) for _, _, _, _, _, args, flows, _ in slices if flows]
    assert sorted(args["dispatch"] for args, _ in flowing) == sorted(set(waves["dispatch"].tolist()))   # each once
    for args, flows in flowing:
        d = args["dispatch"]
        cus = sorted(set(waves["cu"][waves["dispatch"] == d].tolist()))
        assert sorted(targets[f][1] for f in flows) == cus and {targets[f][0] for f in flows} == {d}
        for f in flows:
            rows = waves[(waves["dispatch"] == d) & (waves["cu"] == targets[f][1])]
            assert targets[f][2] == int(rows["start"].min()) * 10 ** 9 // default_trace.preset.clock_hz


def test_counters_carry_units_and_the_chrome_values(default_trace, tmp_path):
    p, _ = parse(default_trace, tmp_path)
    unit = {t.name: (t.counter.unit, t.counter.unit_name) for t in p.tracks.values() if t.HasField("counter")}
    count = pb.CounterDescriptor.UNIT_COUNT
    assert unit["Resident waves"] == (count, "") and unit["Requests in flight"] == (count, "")
    assert unit["Occupancy"][1] == unit["L2 hit rate"][1] == "%" and unit["DRAM read bandwidth"][1] == "GB/s"
    events = to_chrome(default_trace)["traceEvents"]
    for name, chrome_name, arg in (("Occupancy", "Occupancy", "(%)"), ("DRAM read bandwidth", "DRAM bandwidth",
                                                                     "read (GB/s)")):
        mine = [v for _, kind, track, *_, v in p.events if kind == COUNTER and track == p.uuid(name)]
        theirs = [e["args"][arg] for e in events if e["ph"] == "C" and e["name"] == chrome_name]
        assert mine == theirs and len(mine) >= len(default_trace.tables["counters"])
    # A CU's requests in flight go up at each issue and down at each completion.
    slices = [s for s in p.slices() if p.tracks[s[0]].name.startswith("requests")]
    cu_node = p.tracks[p.tracks[slices[0][0]].parent_uuid].parent_uuid
    lanes = p.under(p.uuid("Memory requests", cu_node))
    spans = [(s[2], s[3]) for s in slices if s[0] in lanes]
    flight = p.uuid("Requests in flight", cu_node)
    for ts, kind, track, *_, value in p.events:
        if track == flight:
            assert value == sum(a <= ts < z for a, z in spans)


def test_same_trace_same_bytes(tmp_path):
    first, second = clip(2048, "teaching", "memory"), clip(2048, "teaching", "memory")
    assert parse(first, tmp_path, "a.pftrace")[1] == parse(second, tmp_path, "b.pftrace")[1]


def test_what_was_folded_is_on_a_track_of_its_own_in_both_formats(folded_trace, tmp_path):
    notes = folded_trace.folded()
    assert folded_trace.aggregated == ["counters", "memory", "segments", "wave_groups"] and len(notes) == 4
    assert any("folded into 2 per-SIMD summaries" in n for n in notes)
    p, _ = parse(folded_trace, tmp_path)
    (root,) = [u for u, t in p.tracks.items() if not t.parent_uuid]
    assert p.children(root)[:5] == [f"Trace note: {name} folded" for name in folded_trace.aggregated] + [
        "Command processor"]
    ranks = [(t.parent_uuid, t.sibling_order_rank) for t in p.tracks.values()]
    assert len(set(ranks)) == len(ranks)
    assert [s[4] for s in sorted(p.slices(), key=lambda s: p.tracks[s[0]].sibling_order_rank)
            if p.tracks[s[0]].name.startswith("Trace note:")] == notes
    summary = folded_trace.tables["wave_summary"]
    folded = [s for s in p.slices() if p.tracks[s[0]].name.endswith("folded waves")]
    assert sorted((a["waves"], a["groups"]) for *_, a, _, _ in folded) == sorted(
        zip(summary["waves"].tolist(), summary["groups"].tolist()))
    assert len([s for s in p.slices() if p.tracks[s[0]].name.startswith("SIMD ") and s[1] == 0
                and "folded" not in p.tracks[s[0]].name]) == 40
    doc = to_chrome(folded_trace)
    names = {e["tid"]: e["args"]["name"] for e in doc["traceEvents"] if e["name"] == "thread_name"}
    instants = [e for e in doc["traceEvents"] if e["ph"] == "i"]
    assert {names[e["tid"]] for e in instants} == {"Trace notes (what was folded to stay bounded)"}
    assert [e["args"]["note"] for e in instants] == doc["otherData"]["notes"] and notes == doc["otherData"]["notes"]


def test_cli_run_writes_pftrace_and_says_in_one_line_what_was_folded(tmp_path):
    out, npz = tmp_path / "run.pftrace", tmp_path / "run.npz"
    status, stdout, stderr = cli("run", "CLIP", "--sizes", "4096", "--adapter", "teaching", "--trace-detail",
                                 "memory", "--trace-max-rows", "40", "--trace", out, npz)
    assert status == 0, stderr
    notes = [line for line in stdout.splitlines() if line.startswith("note:")]
    assert notes == [line for line in stdout.splitlines() if "folded" in line]
    assert len(notes) == 1 and "--trace-all keeps every row and event" in notes[0]
    assert "the recorder left out" in notes[0] and "folded" in notes[0] and "wave groups" in notes[0]
    assert Parsed(out.read_bytes()).children(1)[0].startswith("Trace note: ")
    again = tmp_path / "again.pftrace"
    status, stdout, _ = cli("trace", npz, "--to-pftrace", again)
    assert status == 0 and again.read_bytes() == out.read_bytes()
    assert len([line for line in stdout.splitlines() if line.startswith("note:")]) == 1


def test_cli_run_trace_all_keeps_every_row(tmp_path):
    npz, js = tmp_path / "all.npz", tmp_path / "all.json"
    status, stdout, stderr = cli("run", "CLIP", "--sizes", "4096", "--adapter", "teaching", "--trace-detail",
                                 "memory", "--trace-all", "--trace", npz, js, tmp_path / "all.pftrace")
    assert status == 0, stderr
    assert "note:" not in stdout
    status, stdout, _ = cli("trace", npz)
    assert status == 0 and "past their row limit" not in stdout
    assert json.loads(js.read_text())["otherData"]["notes"] == []


@pytest.mark.parametrize("argv, message", [
    (["--trace-max-rows", "0"], "dmlemu: error: --trace-max-rows is 0; it must be at least 1 (or --trace-all)"),
])
def test_cli_bad_trace_limits_are_one_error_line(tmp_path, argv, message):
    status, stdout, stderr = cli("run", "CLIP", "--sizes", "16", "--trace", tmp_path / "x.json", *argv)
    assert status == 2 and stderr.splitlines() == [message] and stdout == ""


def test_without_the_perfetto_package_asking_for_pftrace_is_one_clear_error(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "perfetto.trace_builder.proto_builder", None)
    out = tmp_path / "x.pftrace"
    status, stdout, stderr = cli("run", "CLIP", "--sizes", "16", "--trace", out)
    assert status == 2 and stdout == "" and not out.exists()
    assert stderr.splitlines() == [f"dmlemu: error: cannot write {out}: writing a .pftrace (native Perfetto trace) "
                                   f"needs the perfetto package: {INSTALL_HINT} (or write .json, Chrome trace JSON, "
                                   f"which Perfetto also opens)"]
    with pytest.raises(PerfettoMissing, match=r"pip install 'dmlemu\[perfetto\]'"):
        save_pftrace(clip(16, "teaching", "dispatch"), str(out))
