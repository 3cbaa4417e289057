"""Chrome Trace Event Format export: a Trace as JSON that opens in Perfetto and chrome://tracing.

Layout: the tracks of traces/tracks.py (their names, and their order as each process's and thread's
sort index), as processes and threads in one JSON object (traceEvents, displayTimeUnit, otherData):

    process, pid 1              the device: named tracks.JSON_DEVICE_PROCESS ("Gpu", so that Perfetto
                                lists it first), labelled tracks.device (its preset)
        thread, tid 2           tracks.NOTES: what was folded or left out to stay bounded (i), if any
        thread, tid 3           tracks.COMMAND_PROCESSOR: submissions (X); barriers (X) with their phases
        thread, tid 10 + lane   tracks.DISPATCHES, a thread per overlap lane: dispatches (X), inside each
                                timed one its "launch" (X)
        thread, tid 1010        tracks.COPY_ENGINE: copies (X)
        thread, tid 1011        tracks.HOST_LINK: host-memory transfers (X), if any
        counters (C)            tracks.counters(preset), spelt as Counter.json_event / json_arg
    process, pid 100 + CU       tracks.compute_unit, one per compute unit that ran work
        thread per slot group   tracks.slot: wave groups (X, cat "wave"); instruction segments
                                (X, cat "instruction") nested inside them; memory requests as async
                                events (b/e pairs, cat "memory", one process-local id2 each, so viewers
                                file them under their CU): issue to completion

Time: "ts" and "dur" are microseconds, taken from integer GPU cycles through the preset's clock and
snapped down to whole nanoseconds (Perfetto's resolution) before the division by 1000, so a child's
end never passes its parent's after Perfetto rounds; exact cycles are in the args. Thread ids are
unique across processes (Perfetto keys threads by tid), and within a process they rise in the
layout's order, the order Perfetto lists threads in (it ignores thread_sort_index; the sort indices
are written for chrome://tracing, which reads them). What Perfetto's UI does with this file, and
what a JSON trace cannot make it do, is in docs/TRACES.md and tracks.JSON_DEVICE_PROCESS.

Counters are per time bucket of each timed dispatch (recorder.COUNTER_BUCKETS) and drop to zero
between dispatches. A cache hit rate is the bucket's hits over its requests in % (0 in a bucket with
no request); each wave group's requests are spread evenly over its lifetime (traces/recorder.py),
so the curve shows when the hits happened to within a wave group. The dispatch's own figures (hit
rates, coalescing efficiency, ...) are in its event's args (Trace.summary()).

Bounded size: at most `max_events` events. The device's events come first (a quarter of the room;
past that only the first dispatches), then the counters (half of what is left; past that buckets
are merged), then every wave group; the room left goes to the earliest instruction segments, then
the earliest memory requests (full detail over a window at the start). If the wave groups alone do
not fit, segments and requests are left out and each SIMD's consecutive wave groups are merged k
at a time into one event (args.groups = k). Every such step, and every table the recorder itself
truncated (trace.aggregated, Trace.folded()), is named in otherData.notes and as an instant event
"trace note" on a thread of its own, "Trace notes", listed first.

Deterministic: the same trace gives the same bytes (keys sorted, no wall clock, ids from row order).
Streamed: the device's events and the counters are made first; wave groups, instruction segments
and memory requests (the bulk) are made a block at a time as they are written, merged in file order
from their sort keys (NumPy columns, about 24 bytes an event), and save_chrome_json encodes and
writes WRITE_CHUNK_EVENTS events at a time: the same bytes as one json.dumps of to_chrome's dict,
without the whole list of events or the whole text in memory. to_chrome itself returns every event.
"""
import heapq
import itertools
import json

import numpy as np

from dmlemu.timing.physics import collector_paused
from dmlemu.traces import tracks
from dmlemu.traces.schema import TABLES, columns
from dmlemu.traces.tracks import Clock, lanes, segment_name, slot_tracks, unit_name

__all__ = ["to_chrome", "save_chrome_json", "DEFAULT_MAX_EVENTS"]

DEFAULT_MAX_EVENTS = 200_000
WRITE_CHUNK_EVENTS = 20_000   # events encoded and written at a time by save_chrome_json
DEVICE_PID = 1
# Thread ids in the layout's order: Perfetto lists a process's threads by tid (tracks.JSON_DEVICE_PROCESS).
# None is the pid: Perfetto calls the thread whose tid is its pid "main thread" and lists it first.
NOTES_TID = 2         # "Trace notes": what was folded or left out to stay bounded (first, when there is any)
CP_TID = 3
DISPATCH_TID = 10      # dispatch lanes: 10, 11, ... (overlapping dispatches get their own lane)
COPY_TID = DISPATCH_TID + tracks.LANES
HOST_LINK_TID = COPY_TID + 1     # tracks.HOST_LINK, only in a trace with host-link transfers
CU_PID_BASE = 100
_NOTES = 16                      # room kept for the "trace note" events
_BLOCK = 4096                    # rows made into events at a time by the lazy sources


def _cu_pid(cu):
    return CU_PID_BASE + cu


def _simd_tid(cu, track):
    return (CU_PID_BASE + cu) * 1000 + track


def to_chrome(trace, max_events=DEFAULT_MAX_EVENTS):
    """The trace as a Chrome Trace Event Format dict (see the module banner for the layout)."""
    with collector_paused():
        other, events = _Export(trace, max_events).prepare()
        return {"traceEvents": list(events), "displayTimeUnit": "ns", "otherData": other}


def save_chrome_json(trace, path, max_events=DEFAULT_MAX_EVENTS, notes=None):
    """Write to_chrome(trace) to `path` as compact JSON (keys sorted); returns the path. `notes`, a
    list, receives the trace notes (what was folded or left out to stay bounded)."""
    encode = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=True, check_circular=False).encode
    with collector_paused():
        other, events = _Export(trace, max_events).prepare()
        if notes is not None:
            notes.extend(other["notes"])
        # The same bytes as json.dumps of to_chrome's dict (keys sorted: displayTimeUnit, otherData,
        # traceEvents), the events made and encoded WRITE_CHUNK_EVENTS at a time: one encoder call per
        # chunk (per-event calls cost twice as much), so neither the events nor the text are all in memory.
        with open(path, "w", encoding="ascii", newline="\n") as f:
            f.write('{"displayTimeUnit":"ns","otherData":' + encode(other) + ',"traceEvents":[')
            sep = ""
            while True:
                chunk = list(itertools.islice(events, WRITE_CHUNK_EVENTS))
                if not chunk:
                    break
                f.write(sep + encode(chunk)[1:-1])
                sep = ","
            f.write("]}\n")
    return path


class _Export:
    def __init__(self, trace, max_events):
        self.trace = trace
        self.preset = trace.preset
        self.clock = Clock(trace.preset.clock_hz)
        self.max_events = int(max_events)
        self.notes = []
        self.timed = []        # (start ns, -dur ns, order, event) for X / C / b / e / i events
        self.order = 0
        self.cus = set()       # CU indices that have events
        self.simds = set()     # (CU, SIMD) that have events
        self.dispatch_lanes = set()   # dispatch lanes that have events
        self.lazy = []         # (starts, -durations, orders, make): events made as they are written

    # ---- assembly ---------------------------------------------------------------------------------
    def prepare(self):
        """(otherData, an iterator of the events in file order). The device's events and the counters
        are made here; wave groups, instruction segments and memory requests, the bulk, are made as
        the iterator reaches them (_lazy), so they are never all in memory at once."""
        t = self.trace
        self.notes.extend(t.folded())
        # Names: 6 for the device, 2 per CU and 2 per SIMD at most; and room for the notes (13 at most).
        metadata_budget = 6 + 2 * self.preset.compute_units * (1 + self.preset.simds_per_cu) + _NOTES
        budget = self.max_events - metadata_budget
        if budget < 64:
            raise ValueError(f"max_events is {self.max_events}; a trace of {self.preset.description} needs at "
                             f"least {metadata_budget + 64} ({metadata_budget} for process and thread names and "
                             f"notes, 64 for events)")
        budget -= self._command_processor(budget // 4)
        budget -= self._counters(budget // 2)
        self._waves(budget)
        assert len(self.notes) <= _NOTES
        first = min([e[0] for e in self.timed] + [int(src[0].min()) for src in self.lazy if len(src[0])], default=0)
        for note in self.notes:
            self._add(first, 0, {"ph": "i", "s": "t", "name": "trace note", "cat": "note", "pid": DEVICE_PID,
                                 "tid": NOTES_TID, "ts": first / 1000.0, "args": {"note": note}})
        self.timed.sort(key=lambda e: e[:3])
        # Every sort key (start, -duration, order) is distinct, so merging the sorted sources gives the
        # order one sort of every event would.
        merged = heapq.merge(self.timed, *(_lazy_events(*src) for src in self.lazy), key=lambda e: e[:3])
        return self._other_data(), itertools.chain(self._metadata(), (e[3] for e in merged))

    def _lazy(self, starts, durations, make):
        """Events made later, a block at a time: start and duration (ns) of each, in order; make(rows)
        gives the events of those positions. They take the next order numbers, as _add would."""
        starts = np.asarray(starts, dtype=np.int64)
        orders = np.arange(self.order, self.order + len(starts), dtype=np.int64)
        self.order += len(starts)
        self.lazy.append((starts, -np.asarray(durations, dtype=np.int64), orders, make))

    def _add(self, start_ns, dur_ns, event):
        self.timed.append((start_ns, -dur_ns, self.order, event))
        self.order += 1

    def _metadata(self):
        """Names and sort indices of the processes and threads: the layout's (traces/tracks.py)."""
        p = self.preset
        gpu = tracks.device(p)
        # Named tracks.JSON_DEVICE_PROCESS so that Perfetto lists it first; the layout's name is its label.
        events = [_meta("process_name", DEVICE_PID, None, name=tracks.JSON_DEVICE_PROCESS),
                  _meta("process_labels", DEVICE_PID, None, labels=gpu.name),
                  _meta("process_sort_index", DEVICE_PID, None, sort_index=gpu.order())]
        threads = [(tracks.COMMAND_PROCESSOR, 0, CP_TID), (tracks.COPY_ENGINE, 0, COPY_TID)]
        if len(self.trace.tables.get("host_link", ())):
            threads.append((tracks.HOST_LINK, 0, HOST_LINK_TID))
        if self.notes:   # within the room kept for notes (_NOTES)
            threads.append((tracks.NOTES, 0, NOTES_TID))
        threads += [(tracks.DISPATCHES, lane, DISPATCH_TID + lane) for lane in sorted(self.dispatch_lanes)]
        for track, lane, tid in threads:
            events += [_meta("thread_name", DEVICE_PID, tid, name=track.lane_name(lane)),
                       _meta("thread_sort_index", DEVICE_PID, tid, sort_index=track.order(lane))]
        for cu in sorted(self.cus):
            unit = tracks.compute_unit(cu, p.compute_units)
            events += [_meta("process_name", _cu_pid(cu), None, name=unit.name),
                       _meta("process_sort_index", _cu_pid(cu), None, sort_index=unit.order())]
        for cu, track in sorted(self.simds):
            slot = tracks.slot(track)
            events += [_meta("thread_name", _cu_pid(cu), _simd_tid(cu, track), name=slot.name),
                       _meta("thread_sort_index", _cu_pid(cu), _simd_tid(cu, track), sort_index=slot.order())]
        return events

    def _other_data(self):
        t, p = self.trace, self.preset
        return {
            "generator": "dmlemu traces.chrome",
            "preset": p.key, "description": p.description, "clock_hz": int(p.clock_hz),
            "wave_width": int(t.wave_width), "detail": t.detail, "aggregated": list(t.aggregated),
            "max_events": self.max_events, "notes": list(self.notes),
            "time": "ts/dur in microseconds from GPU cycles at clock_hz, snapped down to whole nanoseconds",
            "programs": {str(k): {"kernel": name, "instructions": list(lines)}
                         for k, (name, lines) in sorted(t.programs.items())},
        }

    # ---- command processor and copy engine ---------------------------------------------------------
    def _command_processor(self, budget):
        """Submissions, barriers (wait for idle, flush, L2 write-back), dispatches (launch inside; a lane
        per overlap) and copies; returns events used."""
        t, p, clock = self.trace, self.preset, self.clock
        subs, disps, copies = t.tables["submissions"], t.tables["dispatches"], t.tables["copies"]
        barriers = t.tables.get("barriers")
        if barriers is None:     # a trace saved before barriers were recorded
            barriers = np.zeros(0, dtype=TABLES["barriers"].dtype)
        host = t.tables.get("host_link")
        if host is None:     # a trace saved before the host link was recorded
            host = np.zeros(0, dtype=TABLES["host_link"].dtype)
        need = len(subs) + len(copies) + len(host) + len(disps) + int(disps["timed"].sum()) + 4 * len(barriers)
        if need > budget:
            # Keep the beginning: half the budget for dispatches (3 events each), a quarter each for
            # submissions and copies up to the last dispatch kept.
            disps = disps[:max(1, budget // 6)]
            horizon = int(disps["end"].max()) if len(disps) else 0
            subs = subs[subs["cycle"] <= horizon][:budget // 8]
            copies = copies[copies["start"] <= horizon][:budget // 8]
            host = host[host["start"] <= horizon][:budget // 16]
            barriers = barriers[barriers["start"] <= horizon][:budget // 16]
            self.notes.append(f"only the first {len(disps)} of {len(t.tables['dispatches'])} dispatches, "
                              f"{len(subs)} submissions and {len(copies)} copies are on the device "
                              f"(limit {self.max_events} events)")
        used = 0
        ends = clock.ns(subs["cycle"])
        starts = clock.ns(np.maximum(subs["cycle"] - p.submit_cycles, 0))
        for s, e, cycle in zip(starts.tolist(), ends.tolist(), subs["cycle"].tolist()):
            self._x(s, e, DEVICE_PID, CP_TID, "ExecuteCommandLists", "submission", {"end_cycle": cycle})
            used += 1
        summary = {s["dispatch"]: s for s in t.summary()}
        for d, lane in zip(disps, lanes(disps["start"], disps["end"])):
            start, end = int(d["start"]), int(d["end"])
            s = summary[int(d["id"])]
            args = dict(s)
            tid = DISPATCH_TID + lane
            self.dispatch_lanes.add(lane)
            ns = clock.ns([start, end, min(end, start + p.launch_cycles)]).tolist()
            self._x(ns[0], ns[1], DEVICE_PID, tid, f"{d['name']} #{int(d['id'])}", "dispatch", args)
            used += 1
            if bool(d["timed"]):
                self._x(ns[0], ns[2], DEVICE_PID, tid, "launch", "dispatch", {"cycles": int(p.launch_cycles)})
                used += 1
        for start, idle, flushed, end, release in zip(*columns(barriers, ("start", "idle", "flushed", "end",
                                                                         "release"))):
            ns = clock.ns([start, idle, flushed, end]).tolist()
            self._x(ns[0], ns[3], DEVICE_PID, CP_TID, "barrier (release)" if release else "barrier", "barrier",
                    {"start_cycle": start, "idle_cycle": idle, "end_cycle": end, "release": bool(release)})
            for (a, z), name in zip(((ns[0], ns[1]), (ns[1], ns[2]), (ns[2], ns[3])),
                                    ("wait for idle", "flush", "L2 write-back")):
                if z > a:
                    self._x(a, z, DEVICE_PID, CP_TID, name, "barrier", {})
                    used += 1
            used += 1
        cs, ce = clock.ns(copies["start"]).tolist(), clock.ns(copies["end"]).tolist()
        for s, e, start, end, nbytes, dst, src in zip(cs, ce, *columns(copies, ("start", "end", "bytes", "dst",
                                                                               "src"))):
            self._x(s, e, DEVICE_PID, COPY_TID, f"copy {nbytes} B", "copy",
                    {"bytes": nbytes, "dst": dst, "src": src, "start_cycle": start, "end_cycle": end})
            used += 1
        hs, he = clock.ns(host["start"]).tolist(), clock.ns(host["end"]).tolist()
        for s, e, start, end, nbytes, to_host, dispatch in zip(hs, he, *columns(host, ("start", "end", "bytes",
                                                                                    "to_host", "dispatch"))):
            self._x(s, e, DEVICE_PID, HOST_LINK_TID, _host_link_name(nbytes, to_host, dispatch), "host link",
                    {"bytes": nbytes, "to_host": bool(to_host), "dispatch": dispatch, "start_cycle": start,
                     "end_cycle": end})
            used += 1
        return used

    def _x(self, start_ns, end_ns, pid, tid, name, cat, args):
        self._add(start_ns, end_ns - start_ns, {"ph": "X", "name": name, "cat": cat, "pid": pid, "tid": tid,
                                                "ts": start_ns / 1000.0, "dur": (end_ns - start_ns) / 1000.0,
                                                "args": args})

    # ---- counters -------------------------------------------------------------------------------------
    def _counters(self, budget):
        """C events from the counters table (merging buckets if needed); returns events used."""
        t, p, clock = self.trace, self.preset, self.clock
        c = t.tables["counters"]
        c = c[np.lexsort((c["start"], c["dispatch"]))]
        if not len(c):
            return 0
        shown = tracks.counters(p)
        events = list(dict.fromkeys(c.json_event for c in shown))   # a C event each, in the layout's order
        per_row = len(events)
        first_of = np.flatnonzero(np.r_[True, c["dispatch"][1:] != c["dispatch"][:-1]])
        sizes = np.diff(np.r_[first_of, len(c)])
        merge = 1
        # Events: per_row per (merged) bucket, and at most per_row more per dispatch (back to zero).
        while per_row * int((-(-sizes // merge)).sum() + len(sizes)) > budget:
            if merge >= sizes.max():
                self.notes.append(f"counters left out: {len(sizes)} dispatches do not fit "
                                  f"(limit {self.max_events} events)")
                return 0
            merge *= 2
        if merge > 1:
            c = _merge_counters(c, merge)
            self.notes.append(f"counter buckets merged {merge} at a time (limit {self.max_events} events)")
        v = tracks.counter_values(t, c)
        values = [(c.json_event, c.json_arg, v[c.key]) for c in shown]
        starts, ends = clock.ns(c["start"]).tolist(), clock.ns(c["end"]).tolist()
        used = 0
        for i in range(len(c)):
            self._counter(starts[i], events, [(event, arg, value[i]) for event, arg, value in values])
            used += per_row
            # Back to zero where the next bucket does not start right away (between dispatches).
            if i + 1 == len(c) or starts[i + 1] > ends[i]:
                self._counter(ends[i], events, [(event, arg, 0.0) for event, arg, _ in values])
                used += per_row
        return used

    def _counter(self, ns, events, values):
        """One C event per counter event name at `ns`; values: (event, argument, value) in layout order.
        Perfetto titles a JSON counter track "<event name> <argument>" (tracks.Counter)."""
        ts = ns / 1000.0
        for name in events:
            args = {arg: value for event, arg, value in values if event == name}
            self._add(ns, 0, {"ph": "C", "name": name, "pid": DEVICE_PID, "tid": CP_TID, "ts": ts, "args": args})

    # ---- compute units: wave groups, instruction segments, memory requests ----------------------------
    def _waves(self, budget):
        t = self.trace
        waves, segments, memory = t.tables["wave_groups"], t.tables["segments"], t.tables["memory"]
        w = len(waves)
        limit = f"limit {self.max_events} events"
        if w > budget:
            if len(segments) or len(memory):
                self.notes.append(f"{len(segments)} instruction segments and {len(memory)} memory requests "
                                  f"left out ({limit})")
            merged = _merge_wave_groups(waves, budget)
            if merged is None:
                self.notes.append(f"{w} wave groups left out: not even one event per SIMD and dispatch fits ({limit})")
            else:
                k, rows = merged
                self.notes.append(f"wave groups merged up to {k} at a time per SIMD ({w} groups in "
                                  f"{len(rows[0])} events; {limit})")
                self._wave_events(*rows)
            return
        if w:
            self._wave_events(waves["dispatch"], waves["cu"], slot_tracks(waves), waves["first_wave"], waves["waves"],
                              waves["start"], waves["end"], np.ones(w, dtype=np.int64), waves["end"] - waves["start"])
        # What room is left goes to the earliest segments, then the earliest memory requests (2 events
        # each): full detail over a window at the start rather than none at all.
        room = budget - w
        segments = self._earliest(segments, "start", room, "instruction segments")
        self._segment_events(segments)
        memory = self._earliest(memory, "issue", (room - len(segments)) // 2, "memory requests")
        self._memory_events(memory)

    def _earliest(self, table, column, room, what):
        if len(table) <= room:
            return table
        room = max(0, room)
        if room == 0:
            self.notes.append(f"{len(table)} {what} left out (limit {self.max_events} events)")
            return table[:0]
        keep = np.sort(np.argsort(table[column], kind="stable")[:room])
        until = self.clock.us(self.clock.ns(table[column][keep].max()))
        self.notes.append(f"only the earliest {room} of {len(table)} {what} are in this trace (to {until} us) "
                          f"(limit {self.max_events} events)")
        return table[keep]

    def _wave_events(self, dispatch, cu, simd, first, count, start, end, groups, busy):
        clock = self.clock
        s_ns, e_ns = clock.ns(start), clock.ns(end)
        self.cus.update(np.unique(cu).tolist())
        self.simds.update(zip(*np.unique(np.stack([np.asarray(cu, dtype=np.int64), np.asarray(simd, dtype=np.int64)]),
                                         axis=1).tolist()) if len(cu) else ())
        arrays = (dispatch, cu, simd, first, count, start, end, groups, busy, s_ns, e_ns)

        def make(rows):
            programs = self.trace.programs
            for d, c, s, f, n, start_c, end_c, k, b, s_n, e_n in zip(*(np.asarray(a)[rows].tolist() for a in arrays)):
                kernel = tracks.kernel_name(programs, d)
                args = {"dispatch": d, "first_wave": f, "waves": n, "unit": unit_name(c, s),
                        "start_cycle": start_c, "end_cycle": end_c}
                if k == 1:
                    name = f"{kernel} waves {f}-{f + n - 1}"
                else:
                    # Merged groups: a SIMD's waves are not consecutive (groups go round the CUs).
                    args["groups"], args["busy_cycles"] = k, b
                    name = f"{kernel} {k} groups, {n} waves"
                yield _x_event(s_n, e_n, _cu_pid(c), _simd_tid(c, s), name, "wave", args)
        self._lazy(s_ns, e_ns - s_ns, make)

    def _segment_events(self, segments):
        clock = self.clock
        s_ns, e_ns = clock.ns(segments["start"]), clock.ns(segments["end"])
        # Shorter than Perfetto's nanosecond: it would draw as an instant, misplaced; left out.
        zero = (e_ns == s_ns) & (segments["end"] > segments["start"])
        if zero.any():
            keep = ~zero
            segments, s_ns, e_ns = segments[keep], s_ns[keep], e_ns[keep]
        slots = slot_tracks(segments)
        self.cus.update(np.unique(segments["cu"]).tolist())
        self.simds.update((c, s) for c, s in set(zip(segments["cu"].tolist(), slots.tolist())))
        names = {}

        def make(rows):
            programs = self.trace.programs
            for d, c, f, n, pc0, pc1, start_c, end_c, s, s_n, e_n in zip(
                    *columns(segments, ("dispatch", "cu", "first_wave", "waves", "pc_first", "pc_last", "start",
                                        "end"), rows),
                    slots[rows].tolist(), s_ns[rows].tolist(), e_ns[rows].tolist()):
                key = (d, pc0, pc1)
                name = names.get(key)
                if name is None:
                    name = names[key] = segment_name(programs.get(d, ("", []))[1], pc0, pc1)
                yield _x_event(s_n, e_n, _cu_pid(c), _simd_tid(c, s), name, "instruction",
                               {"pc_first": pc0, "pc_last": pc1, "first_wave": f, "waves": n, "cycles": end_c - start_c})
        self._lazy(s_ns, e_ns - s_ns, make)
        if zero.any():
            self.notes.append(f"{int(zero.sum())} instruction segments shorter than a nanosecond left out (they round "
                              f"to zero duration); the trace's segments table has them")

    def _memory_events(self, memory):
        clock = self.clock
        i_ns, c_ns = clock.ns(memory["issue"]), clock.ns(memory["complete"])
        slots = slot_tracks(memory)
        self.cus.update(np.unique(memory["cu"]).tolist())
        self.simds.update(set(zip(memory["cu"].tolist(), slots.tolist())))
        # Two events per request, b then e (positions 2 x row and 2 x row + 1).
        starts = np.stack([i_ns, c_ns], axis=1).reshape(-1)
        durations = np.stack([c_ns - i_ns, np.zeros_like(c_ns)], axis=1).reshape(-1)

        def make(positions):
            programs = self.trace.programs
            rows = positions // 2
            for p, d, c, pc, issue, complete, nbytes, dram, write, s, a, b in zip(
                    positions.tolist(), *columns(memory, ("dispatch", "cu", "pc", "issue", "complete", "bytes",
                                                          "dram_bytes", "write"), rows),
                    slots[rows].tolist(), i_ns[rows].tolist(), c_ns[rows].tolist()):
                row_id = p // 2
                lines = programs.get(d, ("", []))[1]
                text = lines[pc] if 0 <= pc < len(lines) else ("store" if write else "load")
                name = text.split(" ", 1)[0]
                pid, tid = _cu_pid(c), _simd_tid(c, s)
                if p % 2 == 0:
                    yield {"ph": "b", "name": name, "cat": "memory", "id2": {"local": row_id}, "pid": pid, "tid": tid,
                           "ts": a / 1000.0, "args": {
                               "instruction": text, "pc": pc, "bytes": nbytes, "dram_bytes": dram,
                               "write": bool(write), "dispatch": d, "unit": unit_name(c, s),
                               "issue_cycle": issue, "complete_cycle": complete}}
                else:
                    # Sort key (time, -duration, order): this end comes after every begin at the same time
                    # that has a positive duration, and after its own begin.
                    yield {"ph": "e", "name": name, "cat": "memory", "id2": {"local": row_id}, "pid": pid, "tid": tid,
                           "ts": b / 1000.0}
        self._lazy(starts, durations, make)


def _lazy_events(starts, negative_durations, orders, make):
    """A lazy source's (start, -duration, order, event) in sort order, made a block at a time."""
    order = np.lexsort((orders, negative_durations, starts))
    for lo in range(0, len(order), _BLOCK):
        rows = order[lo:lo + _BLOCK]
        yield from zip(starts[rows].tolist(), negative_durations[rows].tolist(), orders[rows].tolist(), make(rows))


def _x_event(start_ns, end_ns, pid, tid, name, cat, args):
    return {"ph": "X", "name": name, "cat": cat, "pid": pid, "tid": tid, "ts": start_ns / 1000.0,
            "dur": (end_ns - start_ns) / 1000.0, "args": args}


def _meta(kind, pid, tid, **args):
    event = {"ph": "M", "name": kind, "pid": pid, "args": args}
    if tid is not None:
        event["tid"] = tid
    return event


def _merge_counters(c, merge):
    """Merge `merge` consecutive buckets of each dispatch: bytes add, rates average over time."""
    new_dispatch = np.r_[True, c["dispatch"][1:] != c["dispatch"][:-1]]
    first_of = np.flatnonzero(new_dispatch)
    rank = np.arange(len(c)) - np.repeat(first_of, np.diff(np.r_[first_of, len(c)]))
    boundary = new_dispatch | (rank % merge == 0)
    at = np.flatnonzero(boundary)
    widths = (c["end"] - c["start"]).astype(np.float64)
    out = np.zeros(len(at), dtype=c.dtype)
    out["dispatch"] = c["dispatch"][at]
    out["start"] = c["start"][at]
    out["end"] = np.maximum.reduceat(c["end"], at)
    out["dram_read_bytes"] = np.add.reduceat(c["dram_read_bytes"], at)
    out["dram_write_bytes"] = np.add.reduceat(c["dram_write_bytes"], at)
    total = np.maximum(np.add.reduceat(widths, at), 1.0)
    out["resident_waves"] = np.add.reduceat(c["resident_waves"] * widths, at) / total
    out["alu_busy"] = np.add.reduceat(c["alu_busy"] * widths, at) / total
    for name in ("l2_hits", "l2_misses", "ic_hits", "ic_misses"):
        out[name] = np.add.reduceat(c[name], at)
    return out


def _merge_wave_groups(waves, budget):
    """Merge each (dispatch, CU, track)'s consecutive wave groups k at a time, with the smallest k
    that fits `budget` events; None when even one event per (dispatch, CU, track) does not fit."""
    slots = slot_tracks(waves)
    order = np.lexsort((waves["start"], slots, waves["cu"], waves["dispatch"]))
    w, slots = waves[order], slots[order]
    key = np.r_[True, (w["dispatch"][1:] != w["dispatch"][:-1]) | (w["cu"][1:] != w["cu"][:-1])
                | (slots[1:] != slots[:-1])]
    first_of = np.flatnonzero(key)
    sizes = np.diff(np.r_[first_of, len(w)])
    if len(first_of) > budget:
        return None

    def events(k):
        return int((-(-sizes // k)).sum())

    lo, hi = 1, int(sizes.max())
    while lo < hi:                    # smallest k with events(k) <= budget (events is non-increasing)
        mid = (lo + hi) // 2
        if events(mid) <= budget:
            hi = mid
        else:
            lo = mid + 1
    k = lo
    rank = np.arange(len(w)) - np.repeat(first_of, sizes)
    at = np.flatnonzero(key | (rank % k == 0))
    count = np.diff(np.r_[at, len(w)])
    rows = (w["dispatch"][at].astype(np.int64), w["cu"][at].astype(np.int64), slots[at],
            w["first_wave"][at].astype(np.int64),
            np.add.reduceat(w["waves"].astype(np.int64), at),
            w["start"][at].astype(np.int64), np.maximum.reduceat(w["end"], at).astype(np.int64),
            count.astype(np.int64), np.add.reduceat(w["end"] - w["start"], at).astype(np.int64))
    return k, rows


def _host_link_name(num_bytes, to_host, dispatch):
    """A host-link slice's name: its direction, bytes, and whose (a copy's or a dispatch's)."""
    direction = "to host" if to_host else "to device"
    return f"{direction} {num_bytes} B" + ("" if dispatch < 0 else f" (dispatch {dispatch})")
