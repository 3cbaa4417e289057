"""Native Perfetto export: a Trace as a protobuf trace of TrackEvent packets (.pftrace).

Written with the `perfetto` package's trace builder and protobuf classes (an optional extra:
`pip install 'dmlemu[perfetto]'`); without it, save_pftrace raises PerfettoMissing, an ImportError
whose sentence says what to install. The Chrome JSON export (traces/chrome.py) needs nothing.

Layout: the tree of traces/tracks.py, one TrackDescriptor per track and overlap lane. Every parent
orders its children explicitly (child_ordering EXPLICIT, sibling_order_rank = Track.order(lane)), so
Perfetto shows them in the layout's order whatever their names. What goes where:

    GPU: <preset description>
        Trace note: <table> folded  a lane of tracks.NOTES per folded table: one slice over the whole
                                    trace saying what is missing (Trace.folded())
        Command processor           submissions; barriers with wait for idle, flush, L2 write-back
        Dispatches                  dispatches with their "launch" nested; a flow from each dispatch
                                    to its first wave group on every CU
        Copy engine                 copies
        DRAM read bandwidth, ...    the device counters, each with its unit (CounterDescriptor)
        CU 00, CU 01, ...           the compute units that ran work; inside each:
            SIMD 0 / group 0, ...   wave groups, their instruction segments nested inside them
            SIMD 0 folded waves     wave groups past the recorder's row limit: one slice per
                                    dispatch (table wave_summary)
            Memory requests         memory requests issue to completion on "requests" lane tracks,
                                    named "<instruction>: L2" (no DRAM bytes) or ": DRAM"
            Requests in flight      counters (count): the CU's memory requests in flight, and
            DRAM requests in flight   those of them that went to DRAM

Nothing is left out here: every row the trace holds is an event (a slice of zero nanoseconds
included). Time: packet timestamps are GPU cycles through the preset's clock, snapped down to
whole nanoseconds (tracks.Clock), so a child never ends after its parent; exact cycles are in
each event's debug annotations. Names of events and annotations are interned. Packets are
written in timestamp order, a chunk at a time (the events come from one generator per track,
merged), so memory holds the trace's tables and one chunk, not the whole file. The wave groups,
their instruction segments and the memory requests become slices only as their track's generator
reaches them (from NumPy index arrays, _lazy_slices), so a trace with every row kept costs its
tables and a few index arrays, not one Python object per event.

Deterministic: the same trace gives the same bytes (track ids and intern ids from a fixed order,
no wall clock).
"""
import heapq
import itertools
from operator import itemgetter

import numpy as np

from dmlemu.traces import tracks
from dmlemu.traces.schema import columns
from dmlemu.traces.tracks import Clock, lanes, segment_name, slot_tracks, unit_name

__all__ = ["save_pftrace", "require_perfetto", "PerfettoMissing", "INSTALL_HINT"]

INSTALL_HINT = "pip install 'dmlemu[perfetto]'"
CHUNK_PACKETS = 4096          # packets serialised and written at a time
_SEQUENCE = 1                 # trusted_packet_sequence_id of every packet (one writer)
_BEGIN, _END, _INSTANT, _COUNTER = 1, 2, 3, 4   # TrackEvent.Type values
_CLEARED, _NEEDS_STATE = 1, 2                  # TracePacket.SequenceFlags values
_EXPLICIT = 3                                  # TrackDescriptor.ChildTracksOrdering.EXPLICIT
_UNIT_COUNT = 2                                # CounterDescriptor.Unit.UNIT_COUNT
_BLOCK = 4096                 # rows turned into Python values at a time by the lazy streams


class PerfettoMissing(ImportError):
    """The optional `perfetto` package is not installed."""


def require_perfetto():
    """The perfetto package's TraceProtoBuilder class; PerfettoMissing (a sentence) without it."""
    try:
        from perfetto.trace_builder.proto_builder import TraceProtoBuilder
    except ImportError:
        raise PerfettoMissing(f"writing a .pftrace (native Perfetto trace) needs the perfetto package: "
                              f"{INSTALL_HINT} (or write .json, Chrome trace JSON, which Perfetto also opens)") from None
    return TraceProtoBuilder


def save_pftrace(trace, path):
    """Write `trace` to `path` as a native Perfetto trace (see the module banner); returns the path."""
    builder_class = require_perfetto()
    export = _Export(trace)
    with open(path, "wb") as f:
        _Writer(builder_class, f).write(export.descriptors(), export.events())
    return path


class _Writer:
    """Packets into chunks of the library's TraceProtoBuilder; each chunk's serialised Trace is appended
    to the file (a concatenation of Trace messages is one Trace: `packet` is a repeated field)."""

    def __init__(self, builder_class, f):
        self.builder_class = builder_class
        self.f = f
        self.names = {}       # event name -> iid
        self.keys = {}        # debug annotation name -> iid

    def write(self, descriptors, events):
        builder = self.builder_class()
        first = builder.add_packet()
        first.trusted_packet_sequence_id = _SEQUENCE
        first.sequence_flags = _CLEARED
        for uuid, parent, name, rank, counter_unit in descriptors:
            d = builder.add_packet()
            d.trusted_packet_sequence_id = _SEQUENCE
            t = d.track_descriptor
            t.uuid = uuid
            t.name = name
            t.child_ordering = _EXPLICIT
            if parent:
                t.parent_uuid = parent
                t.sibling_order_rank = rank
            if counter_unit is not None:
                if counter_unit == "count":
                    t.counter.unit = _UNIT_COUNT
                else:
                    t.counter.unit_name = counter_unit
        count = 0
        for ns, kind, track, name, args, flows_out, flows_in in events:
            p = builder.add_packet()
            p.timestamp = ns
            p.trusted_packet_sequence_id = _SEQUENCE
            p.sequence_flags = _NEEDS_STATE
            e = p.track_event
            e.type = kind
            e.track_uuid = track
            if kind == _COUNTER:
                e.double_counter_value = args
            else:
                if name is not None:
                    e.name_iid = self._iid(self.names, name, p.interned_data.event_names)
                if args:
                    for key, value in args:
                        a = e.debug_annotations.add()
                        a.name_iid = self._iid(self.keys, key, p.interned_data.debug_annotation_names)
                        if isinstance(value, bool):
                            a.bool_value = value
                        elif isinstance(value, int):
                            a.int_value = value
                        elif isinstance(value, float):
                            a.double_value = value
                        else:
                            a.string_value = str(value)
                if flows_out:
                    e.flow_ids.extend(flows_out)
                if flows_in:
                    e.terminating_flow_ids.extend(flows_in)
            count += 1
            if count == CHUNK_PACKETS:
                self.f.write(builder.serialize())
                builder, count = self.builder_class(), 0
        self.f.write(builder.serialize())

    @staticmethod
    def _iid(table, text, interned):
        iid = table.get(text)
        if iid is None:
            iid = table[text] = len(table) + 1
            entry = interned.add()
            entry.iid = iid
            entry.name = text
        return iid


class _Export:
    def __init__(self, trace):
        self.trace = trace
        self.preset = trace.preset
        self.clock = Clock(trace.preset.clock_hz)
        self.tracks = []          # (uuid, parent uuid, name, sibling_order_rank, counter unit or None)
        self.streams = []         # one generator of events per track, each in timestamp order
        self.root = self._track(0, tracks.device(self.preset))
        self.flows = {}           # (dispatch, cu) -> flow id: dispatch -> its first wave group on the CU
        self.segment_names = {}   # (dispatch, first pc, last pc) -> segment slice name
        self._build()

    def descriptors(self):
        return self.tracks

    def events(self):
        # Each stream is in timestamp order and valid on its own (a child's end before its parent's);
        # merge keeps the streams' order for equal timestamps, so the whole is in timestamp order.
        return heapq.merge(*self.streams, key=itemgetter(0))

    def _track(self, parent, track, lane=0, name=None):
        """A new track: lane `lane` of the layout's `track` (traces/tracks.py), named `name` if given;
        its sibling_order_rank is track.order(lane) (int32: orders stay below 2,000,000,000)."""
        uuid = len(self.tracks) + 1
        self.tracks.append((uuid, parent, track.lane_name(lane) if name is None else name, track.order(lane),
                            track.unit))
        return uuid

    # ---- slices on tracks, a lane track per overlap ---------------------------------------------------
    def _slices(self, parent, track, tops):
        """The layout's `track` under `parent`, a lane track per overlap (tracks.lanes). tops: (start ns,
        end ns, name, args, flows out, flows in, children) sorted by start; children: (start ns, end ns,
        name, args) in order, inside their top slice."""
        if not tops:
            return
        lane_of = lanes(np.array([t[0] for t in tops], dtype=np.int64), np.array([t[1] for t in tops], dtype=np.int64))
        for lane in range(max(lane_of) + 1):
            uuid = self._track(parent, track, lane)
            mine = [t for t, k in zip(tops, lane_of) if k == lane] if lane or max(lane_of) else tops
            self.streams.append(_slice_events(uuid, mine))

    def _counter(self, parent, track, times, values):
        uuid = self._track(parent, track)
        self.streams.append(zip(times, itertools.repeat(_COUNTER), itertools.repeat(uuid), itertools.repeat(None),
                                values, itertools.repeat(None), itertools.repeat(None)))

    # ---- the tree -----------------------------------------------------------------------------------------
    def _build(self):
        t, clock = self.trace, self.clock
        notes = t.folded()
        if notes:   # a track per folded table, first of all: one slice over the whole trace saying what is missing
            first, last = self._span()
            for lane, (table, note) in enumerate(zip(t.aggregated, notes)):
                uuid = self._track(self.root, tracks.NOTES, lane, tracks.note_lane(table))
                self.streams.append(_slice_events(uuid, [(first, last, note, [("note", note)], None, None, ())]))
        self._command_processor()
        self._dispatches()
        copies = t.tables["copies"]
        cs, ce = clock.ns(copies["start"]).tolist(), clock.ns(copies["end"]).tolist()
        self._slices(self.root, tracks.COPY_ENGINE, sorted(
            (s, e, f"copy {nbytes} B", [("bytes", nbytes), ("dst", dst), ("src", src), ("start_cycle", start),
                                        ("end_cycle", end)], None, None, ())
            for s, e, start, end, nbytes, dst, src in zip(cs, ce, *columns(copies, ("start", "end", "bytes", "dst",
                                                                                    "src")))))
        host = t.tables.get("host_link")
        if host is not None and len(host):
            hs, he = clock.ns(host["start"]).tolist(), clock.ns(host["end"]).tolist()
            self._slices(self.root, tracks.HOST_LINK, sorted(
                (s, e, f"{'to host' if to_host else 'to device'} {nbytes} B"
                 + ("" if dispatch < 0 else f" (dispatch {dispatch})"),
                 [("bytes", nbytes), ("to_host", bool(to_host)), ("dispatch", dispatch), ("start_cycle", start),
                  ("end_cycle", end)], None, None, ())
                for s, e, start, end, nbytes, to_host, dispatch in zip(
                    hs, he, *columns(host, ("start", "end", "bytes", "to_host", "dispatch")))))
        self._device_counters()
        self._compute_units()

    def _span(self):
        """First and last nanosecond of the trace's events."""
        t = self.trace.tables
        points = [t["submissions"]["cycle"], t["dispatches"]["start"], t["dispatches"]["end"],
                  t["copies"]["start"], t["copies"]["end"], t["wave_groups"]["start"], t["wave_groups"]["end"]]
        points = np.concatenate([np.asarray(p, dtype=np.int64) for p in points])
        if not len(points):
            return 0, 0
        ns = self.clock.ns([points.min(), points.max()]).tolist()
        return ns[0], ns[1]

    def _command_processor(self):
        t, p, clock = self.trace, self.preset, self.clock
        subs = t.tables["submissions"]["cycle"]
        tops = [(s, e, "ExecuteCommandLists", [("end_cycle", c)], None, None, ())
                for s, e, c in zip(clock.ns(np.maximum(subs - p.submit_cycles, 0)).tolist(), clock.ns(subs).tolist(),
                                   subs.tolist())]
        for start, idle, flushed, end, release in zip(*columns(t.tables["barriers"], ("start", "idle", "flushed",
                                                                                     "end", "release"))):
            ns = clock.ns([start, idle, flushed, end]).tolist()
            children = [(a, z, name, None) for (a, z), name in zip(
                ((ns[0], ns[1]), (ns[1], ns[2]), (ns[2], ns[3])), ("wait for idle", "flush", "L2 write-back")) if z > a]
            tops.append((ns[0], ns[3], "barrier (release)" if release else "barrier",
                         [("start_cycle", start), ("idle_cycle", idle), ("end_cycle", end), ("release", bool(release))],
                         None, None, children))
        self._slices(self.root, tracks.COMMAND_PROCESSOR, sorted(tops, key=itemgetter(0, 1)))

    def _dispatches(self):
        t, p, clock = self.trace, self.preset, self.clock
        waves = t.tables["wave_groups"]
        ids = sorted(set(zip(waves["dispatch"].tolist(), waves["cu"].tolist())))
        self.flows = {key: n + 1 for n, key in enumerate(ids)}
        out = {}
        for d, cu in ids:
            out.setdefault(d, []).append(self.flows[(d, cu)])
        summary = {s["dispatch"]: s for s in t.summary()}
        tops = []
        for d in t.tables["dispatches"]:
            start, end, did = int(d["start"]), int(d["end"]), int(d["id"])
            ns = clock.ns([start, end, min(end, start + p.launch_cycles)]).tolist()
            children = [(ns[0], ns[2], "launch", [("cycles", int(p.launch_cycles))])] if bool(d["timed"]) else []
            tops.append((ns[0], ns[1], f"{d['name']} #{did}", list(summary[did].items()), out.get(did), None,
                         children))
        self._slices(self.root, tracks.DISPATCHES, sorted(tops, key=itemgetter(0)))

    def _device_counters(self):
        t, clock = self.trace, self.clock
        c = t.tables["counters"]
        c = c[np.lexsort((c["start"], c["dispatch"]))]
        if not len(c):
            return
        v = tracks.counter_values(t, c)
        starts, ends = clock.ns(c["start"]).tolist(), clock.ns(c["end"]).tolist()
        # Back to zero where the next bucket does not start right away (between dispatches).
        gaps = [i for i in range(len(c)) if i + 1 == len(c) or starts[i + 1] > ends[i]]
        times = sorted([(s, 0, i) for i, s in enumerate(starts)] + [(ends[i], 1, i) for i in gaps])
        for counter in tracks.counters(self.preset):
            values = v[counter.key]
            self._counter(self.root, counter.track, [ts for ts, _, _ in times],
                          [0.0 if zero else float(values[i]) for _, zero, i in times])

    # ---- compute units --------------------------------------------------------------------------------------
    def _compute_units(self):
        t, clock = self.trace, self.clock
        waves, segments, memory, summary = (t.tables[n] for n in ("wave_groups", "segments", "memory", "wave_summary"))
        per_cu = {}
        for name, table in (("waves", waves), ("segments", segments), ("memory", memory), ("summary", summary)):
            cus = table["cu"]
            order = np.argsort(cus, kind="stable")
            bounds = np.flatnonzero(np.r_[True, cus[order][1:] != cus[order][:-1], True]) if len(table) else []
            for a, b in zip(bounds[:-1], bounds[1:]):
                per_cu.setdefault(int(cus[order[a]]), {})[name] = table[order[a:b]]
        for cu in sorted(per_cu):
            tables = per_cu[cu]
            empty = {n: t.tables[m][:0] for n, m in (("waves", "wave_groups"), ("segments", "segments"),
                                                     ("memory", "memory"), ("summary", "wave_summary"))}
            tables = {**empty, **tables}
            node = self._track(self.root, tracks.compute_unit(cu, self.preset.compute_units))
            self._simds(node, cu, tables["waves"], tables["segments"])
            s = tables["summary"]
            for simd in sorted(set(s["simd"].tolist())):
                rows = s[s["simd"] == simd]
                rows = rows[np.argsort(rows["start"], kind="stable")]
                ns_s, ns_e = clock.ns(rows["start"]).tolist(), clock.ns(rows["end"]).tolist()
                self._slices(node, tracks.folded_waves(simd), [
                    (a, z, f"{self._kernel(d)}: {n} waves in {g} groups (folded)",
                     [("dispatch", d), ("waves", n), ("groups", g), ("start_cycle", sc), ("end_cycle", ec)],
                     None, None, ())
                    for a, z, d, n, g, sc, ec in zip(ns_s, ns_e, *columns(rows, ("dispatch", "waves", "groups",
                                                                                 "start", "end")))])
            self._memory(node, cu, tables["memory"])

    def _kernel(self, d):
        return tracks.kernel_name(self.trace.programs, d)

    def _simds(self, node, cu, waves, segments):
        """A track per (SIMD, slot group): wave groups, each with its instruction segments nested.

        The slices are made as the packets are written (_lazy_tops), from index arrays: a wave group
        with its segments at a time, so memory holds the tables, not one object per event."""
        clock = self.clock
        seg_tracks = slot_tracks(segments)
        seg_a, seg_z = clock.ns(segments["start"]), clock.ns(segments["end"])
        # Segments by (dispatch, track, first wave), each group by start (ties in row order).
        s_order = np.lexsort((seg_a, segments["first_wave"], seg_tracks, segments["dispatch"]))
        keys = np.stack([segments["dispatch"].astype(np.int64), seg_tracks, segments["first_wave"].astype(np.int64)])
        k = keys[:, s_order]
        bounds = np.flatnonzero(np.r_[True, (k[:, 1:] != k[:, :-1]).any(axis=0), True]) if len(segments) else []
        groups = {tuple(key): (lo, hi) for key, lo, hi in zip(k[:, bounds[:-1]].T.tolist(), bounds[:-1], bounds[1:])}
        wave_tracks = slot_tracks(waves)
        order = np.argsort(waves["start"], kind="stable")
        s_ns, e_ns = clock.ns(waves["start"]), clock.ns(waves["end"])
        items, claims, flows = {}, {}, {}
        first_on_cu = set()
        for i, d, track, f in zip(order.tolist(), waves["dispatch"][order].tolist(), wave_tracks[order].tolist(),
                                  waves["first_wave"][order].tolist()):
            if d not in first_on_cu:
                first_on_cu.add(d)
                flows[i] = [self.flows[(d, cu)]]
            span = groups.pop((d, track, f), None)
            if span is not None:
                claims[i] = span
            items.setdefault(track, []).append(i)
        # Segments whose wave group was not kept: after the wave groups, in the order they came.
        for (d, track, f), (lo, hi) in sorted(groups.items(), key=lambda g: s_order[g[1][0]:g[1][1]].min()):
            items.setdefault(track, []).extend(-1 - r for r in np.sort(s_order[lo:hi]).tolist())
        context = (cu, waves, segments, s_order, seg_a, seg_z, s_ns, e_ns, claims, flows)
        for track in sorted(items):
            it = np.array(items[track], dtype=np.int64)
            starts = np.where(it >= 0, s_ns[np.maximum(it, 0)], seg_a[np.maximum(-1 - it, 0)] if len(segments) else 0)
            ends = np.where(it >= 0, e_ns[np.maximum(it, 0)], seg_z[np.maximum(-1 - it, 0)] if len(segments) else 0)
            by_start = np.argsort(starts, kind="stable")
            self._lazy_slices(node, tracks.slot(track), it[by_start], starts[by_start], ends[by_start],
                              lambda rows, track=track: self._wave_tops(context, track, rows))

    def _lazy_slices(self, parent, track, items, starts, ends, tops):
        """_slices, with the top slices made as they are written: tops(items of a lane) yields them."""
        if not len(items):
            return
        lane_of = np.array(lanes(starts, ends), dtype=np.int64)
        for lane in range(int(lane_of.max()) + 1):
            uuid = self._track(parent, track, lane)
            self.streams.append(_slice_events(uuid, tops(items[lane_of == lane])))

    def _wave_tops(self, context, track, items):
        """The top slices of `items` (a wave group's row, or -1 - row of a segment whose wave group was
        not kept), with their segments nested, made _BLOCK items at a time: each block reads its
        columns by name once."""
        cu, waves, segments, s_order, seg_a, seg_z, s_ns, e_ns, claims, flows = context
        unit = unit_name(cu, track)
        names = ("dispatch", "first_wave", "waves", "start", "end")
        for lo in range(0, len(items), _BLOCK):
            block = items[lo:lo + _BLOCK].tolist()
            # Columns of the block's wave groups (a segment's item, negative, reads a row it ignores).
            values = columns(waves, names, np.maximum(block, 0)) if len(waves) else [[None] * len(block)] * len(names)
            # The segments of the whole block, read at once: item i's are children(bounds[i], bounds[i + 1]).
            rows, bounds = [], [0]
            if len(segments):
                for it in block:
                    span = claims.get(it) if it >= 0 else None
                    rows += [-1 - it] if it < 0 else [] if span is None else s_order[span[0]:span[1]].tolist()
                    bounds.append(len(rows))
            children = self._segment_children(segments, seg_a, seg_z, np.array(rows, dtype=np.int64))
            for i, (it, d, f, n, sc, ec) in enumerate(zip(block, *values)):
                mine = children(bounds[i], bounds[i + 1]) if rows else ()
                if it < 0:      # a segment whose wave group was not kept
                    a, z, name, args = mine[0]
                    yield a, z, name, args, None, None, ()
                    continue
                yield (int(s_ns[it]), int(e_ns[it]), f"{self._kernel(d)} waves {f}-{f + n - 1}",
                       [("dispatch", d), ("first_wave", f), ("waves", n), ("unit", unit),
                        ("start_cycle", sc), ("end_cycle", ec)], None, flows.get(it), mine or ())

    def _segment_children(self, segments, seg_a, seg_z, rows):
        """children(lo, hi): the child slices of segment rows rows[lo:hi], made when asked (their columns
        are read here, once), so a block holds its segments' values, not every child slice."""
        programs, names = self.trace.programs, self.segment_names
        values = columns(segments, ("dispatch", "first_wave", "waves", "pc_first", "pc_last", "start", "end"), rows)
        values = list(zip(*values, seg_a[rows].tolist(), seg_z[rows].tolist()))

        def children(lo, hi):
            out = []
            for d, f, n, pc0, pc1, sc, ec, a, z in values[lo:hi]:
                name = names.get((d, pc0, pc1))
                if name is None:
                    name = names[(d, pc0, pc1)] = segment_name(programs.get(d, ("", []))[1], pc0, pc1)
                out.append((a, z, name, [("pc_first", pc0), ("pc_last", pc1), ("first_wave", f), ("waves", n),
                                         ("cycles", ec - sc), ("start_cycle", sc)]))
            return out
        return children

    def _memory(self, node, cu, memory):
        """Memory requests on lane tracks under a "Memory requests" group, and two in-flight counters."""
        if not len(memory):
            return
        clock = self.clock
        memory = memory[np.argsort(memory["issue"], kind="stable")]
        issue, complete = clock.ns(memory["issue"]), clock.ns(memory["complete"])
        slots = slot_tracks(memory)
        group = self._track(node, tracks.MEMORY)
        self._lazy_slices(group, tracks.REQUESTS, np.arange(len(memory)), issue, complete,
                          lambda rows: self._memory_tops(cu, memory, issue, complete, slots, rows))
        for track, rows in ((tracks.IN_FLIGHT, np.ones(len(memory), dtype=bool)),
                            (tracks.DRAM_IN_FLIGHT, memory["dram_bytes"] > 0)):
            times, values = _in_flight(issue[rows], complete[rows])
            self._counter(node, track, times, values)

    def _memory_tops(self, cu, memory, issue, complete, slots, rows):
        programs = self.trace.programs
        for lo in range(0, len(rows), _BLOCK):
            block = rows[lo:lo + _BLOCK]
            for d, pc, ic, cc, nbytes, dram, write, a, z, track in zip(
                    *columns(memory, ("dispatch", "pc", "issue", "complete", "bytes", "dram_bytes", "write"), block),
                    issue[block].tolist(), complete[block].tolist(), slots[block].tolist()):
                lines = programs.get(d, ("", []))[1]
                text = lines[pc] if 0 <= pc < len(lines) else ("store" if write else "load")
                yield (a, z, f"{text.split(' ', 1)[0]}: {'DRAM' if dram else 'L2'}",
                       [("instruction", text), ("pc", pc), ("bytes", nbytes), ("dram_bytes", dram),
                        ("write", bool(write)), ("dispatch", d), ("unit", unit_name(cu, track)),
                        ("issue_cycle", ic), ("complete_cycle", cc)], None, None, ())


def _slice_events(uuid, tops):
    for start, end, name, args, flows_out, flows_in, children in tops:
        yield start, _BEGIN, uuid, name, args, flows_out, flows_in
        for c_start, c_end, c_name, c_args in children:
            yield c_start, _BEGIN, uuid, c_name, c_args, None, None
            yield c_end, _END, uuid, None, None, None, None
        yield end, _END, uuid, None, None, None, None


def _in_flight(issue, complete):
    """(times, values): how many intervals [issue, complete) are open from each time on (one value per
    distinct time, in order)."""
    if not len(issue):
        return [], []
    times = np.concatenate([issue, complete])
    delta = np.concatenate([np.ones(len(issue), dtype=np.int64), -np.ones(len(complete), dtype=np.int64)])
    order = np.argsort(times, kind="stable")
    times, level = times[order], np.cumsum(delta[order])
    last = np.r_[times[1:] != times[:-1], True]       # the level after every change at that time
    return times[last].tolist(), level[last].astype(np.float64).tolist()
