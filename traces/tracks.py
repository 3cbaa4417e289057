"""The track layout of the trace exports: which tracks exist, their names, parents, order and lanes.

Both writers, the Chrome JSON (traces/chrome.py) and the native Perfetto trace (traces/pftrace.py),
take every track's name and place from here, and its time axis (Clock); neither names, orders or
nests a track itself. The tree, in order (rank: the place among siblings; `Track.order(lane)`, the
number a format sorts by, is rank x LANES + lane):

    GPU: <preset description>       device(preset)             rank 0
        Trace notes                 NOTES                      rank 0     what was folded to stay bounded;
                                                                          a lane per folded table,
                                                                          note_lane(table)
        Command processor           COMMAND_PROCESSOR          rank 1     submissions, barriers
        Dispatches                  DISPATCHES                 rank 10    a lane per overlap
        Copy engine                 COPY_ENGINE                rank 200   copies
        Host link (PCIe)            HOST_LINK                  rank 201   host-memory transfers (only when
                                                                          there are any)
        DRAM read bandwidth, ...    COUNTERS (counters(preset)) ranks 300.. device counters
        CU 00, CU 01, ...           compute_unit(cu, count)    rank 1000 + cu
            SIMD 0 / group 0, ...   slot(track)                rank track = simd x GROUP_TRACKS + group:
                                                                          wave groups, segments nested
            SIMD 0 folded waves     folded_waves(simd)         rank 5000 + 100 x simd
            Memory requests         MEMORY                     rank 10000
                requests            REQUESTS                   rank 0     a lane per overlap
            Requests in flight      IN_FLIGHT                  rank 10001 counters (count)
            DRAM requests in flight DRAM_IN_FLIGHT             rank 10002

Lanes: where slices of one track overlap (dispatches that run together, memory requests in flight
together), `lanes(starts, ends)` gives each the first lane free at its start; lane k > 0 is a track
of its own, `Track.lane_name(k)`: "<name> (overlapping, k + 1)", placed right after lane k - 1.

What a format cannot express it leaves out, never reorders: the Chrome JSON has processes and
threads only, so the device and each CU are processes (sorted by their `order()`) and their tracks
threads (JSON_DEVICE_PROCESS: what Perfetto's UI makes of them); its notes are instants on the
one NOTES thread (they do not overlap); its memory requests are async events on their slot group's
thread (the viewer lays them out); it has no folded-waves or in-flight tracks. Its counters are
process counters, which Perfetto's JSON import titles "<event> <argument>": Counter.json_event and
json_arg spell each counter so that the title reads as the .pftrace's name and unit do (the two
DRAM bandwidths share one event, "DRAM bandwidth").

Also here, as both formats show them the same way: slot group unit names (`unit_name`:
gpu.cu[3].simd[1].group[0]), instruction segment names (`segment_name`), kernel names
(`kernel_name`) and the counters' values (`counter_values`).
"""
import dataclasses

import numpy as np

__all__ = ["GROUP_TRACKS", "LANES", "Track", "Counter", "Clock", "device", "JSON_DEVICE_PROCESS", "NOTES", "note_lane",
           "COMMAND_PROCESSOR",
           "DISPATCHES", "COPY_ENGINE", "HOST_LINK", "COUNTERS", "counters", "compute_unit", "slot", "folded_waves", "MEMORY",
           "REQUESTS", "IN_FLIGHT", "DRAM_IN_FLIGHT", "slot_tracks", "unit_name", "lanes", "segment_name",
           "kernel_name", "counter_values"]

GROUP_TRACKS = 16     # slot tracks per SIMD: track = simd x GROUP_TRACKS + group
LANES = 1000          # lanes a track may have before its order number reaches the next rank's
_SEGMENT_NAME_INSTRUCTIONS = 3   # longer segments are named by their first two instructions


@dataclasses.dataclass(frozen=True)
class Track:
    """A track: its name, its rank among its siblings, and for a counter track its unit ("count",
    "%", "GB/s"; None for a track of slices)."""
    name: str
    rank: int
    unit: str = None

    def order(self, lane=0):
        """The number formats sort by: lanes of a track stay together, in lane order."""
        return self.rank * LANES + lane

    def lane_name(self, lane):
        return self.name if lane == 0 else f"{self.name} (overlapping, {lane + 1})"


@dataclasses.dataclass(frozen=True)
class Counter:
    """A device counter: `key` into counter_values(), its track, and its Chrome JSON spelling."""
    key: str
    track: Track
    json_event: str
    json_arg: str


def device(preset):
    return Track(f"GPU: {preset.description}", 0)


# The Chrome JSON's name for the device process. Perfetto's UI (plugin dev.perfetto.ProcessThreadGroups,
# checked in v52) ignores process_sort_index: it lists a JSON trace's processes by a fixed rank of
# Chrome's own process names first ("Browser", then "Gpu", then "Renderer", then every other name),
# then by slice count (most first), then by name; so a device process named after its preset came
# after all the busier CUs. Named "Gpu", it comes first; the preset is its process label. The UI
# titles a process "<name> <pid>" and a thread "<name> <tid>": ids a JSON trace cannot drop (the
# .pftrace's tracks carry their names alone). It lists a process's threads by tid, the writer's
# tids follow the layout's order. The CUs come in slice-count order there (busiest first), which
# no JSON field changes; the .pftrace orders them explicitly.
JSON_DEVICE_PROCESS = "Gpu"
NOTES = Track("Trace notes (what was folded to stay bounded)", 0)
COMMAND_PROCESSOR = Track("Command processor", 1)
DISPATCHES = Track("Dispatches", 10)
COPY_ENGINE = Track("Copy engine", 200)
HOST_LINK = Track("Host link (PCIe)", 201)
COUNTERS = (
    Counter("read", Track("DRAM read bandwidth", 300, "GB/s"), "DRAM bandwidth", "read (GB/s)"),
    Counter("write", Track("DRAM write bandwidth", 301, "GB/s"), "DRAM bandwidth", "write (GB/s)"),
    Counter("resident", Track("Resident waves", 302, "count"), "Resident", "waves"),
    Counter("occupancy", Track("Occupancy", 303, "%"), "Occupancy", "(%)"),
    Counter("alu", Track("ALU busy", 304, "%"), "ALU busy", "(%)"),
    Counter("l2", Track("L2 hit rate", 305, "%"), "L2 hit rate", "(%)"),
    Counter("ic", Track("Infinity Cache hit rate", 306, "%"), "Infinity Cache hit rate", "(%)"),
)
MEMORY = Track("Memory requests", 10_000)
REQUESTS = Track("requests", 0)
IN_FLIGHT = Track("Requests in flight", 10_001, "count")
DRAM_IN_FLIGHT = Track("DRAM requests in flight", 10_002, "count")


def note_lane(table):
    """The name of the notes lane of a table the recorder folded (a format with a lane per note)."""
    return f"Trace note: {table} folded"


def counters(preset):
    """The device counters a trace of `preset` has (the Infinity Cache hit rate only with one)."""
    return tuple(c for c in COUNTERS if c.key != "ic" or preset.infinity_cache_bytes)


def compute_unit(cu, compute_units):
    # Zero-padded ("CU 07"): viewers that order by name list them in CU order too.
    return Track(f"CU {cu:0{len(str(compute_units - 1))}d}", 1000 + cu)


def slot(track):
    return Track(f"SIMD {track // GROUP_TRACKS} / group {track % GROUP_TRACKS}", track)


def folded_waves(simd):
    return Track(f"SIMD {simd} folded waves", 5000 + 100 * simd)


def slot_tracks(table):
    """The slot track of each row of a table with simd and group columns (int64 array)."""
    return table["simd"].astype(np.int64) * GROUP_TRACKS + table["group"]


def unit_name(cu, track):
    """The hierarchical name of a slot group: gpu.cu[3].simd[1].group[0]."""
    return f"gpu.cu[{cu}].simd[{track // GROUP_TRACKS}].group[{track % GROUP_TRACKS}]"


def lanes(starts, ends):
    """A lane per slice, in the given order, so that no two slices on one lane overlap: the first
    lane free at its start (lane 0 first)."""
    lane_ends, out = [], []
    for start, end in zip(starts.tolist(), ends.tolist()):
        for k, lane_end in enumerate(lane_ends):
            if lane_end <= start:
                break
        else:
            k = len(lane_ends)
            lane_ends.append(0)
        lane_ends[k] = end
        out.append(k)
    return out


class Clock:
    """The time axis of every track: cycles -> whole nanoseconds (floor, exact integer arithmetic),
    so a child never ends after its parent once a viewer rounds; us() for the JSON's microseconds."""

    def __init__(self, clock_hz):
        self.hz = int(clock_hz)

    def ns(self, cycles):
        c = np.asarray(cycles, dtype=np.int64)
        # Split so that cycles * 10**9 never overflows int64.
        return (c // self.hz) * 1_000_000_000 + (c % self.hz) * 1_000_000_000 // self.hz

    @staticmethod
    def us(ns):
        return (np.asarray(ns, dtype=np.float64) / 1000.0).tolist()


def kernel_name(programs, dispatch):
    """The kernel a dispatch ran (trace.programs), or "dispatch <id>" when the trace lacks it."""
    return programs[dispatch][0] if dispatch in programs else f"dispatch {dispatch}"


def segment_name(lines, first, last):
    """An instruction segment's name: its instructions (pc first..last of `lines`), the first two
    and a count past three; "pc a-b" without the program's text."""
    texts = lines[first:last + 1] if lines else []
    if not texts:
        return f"pc {first}-{last}"
    if len(texts) <= _SEGMENT_NAME_INSTRUCTIONS:
        return "; ".join(texts)
    return f"{texts[0]}; {texts[1]}; ... (+{len(texts) - 2} more)"


def counter_values(trace, c):
    """The device counters' values over counters rows `c`, one per row, by Counter.key: DRAM read and
    write bandwidth (GB/s), resident waves, occupancy, ALU busy, L2 and (None without one) Infinity
    Cache hit rate (%); rounded to 3 decimals."""
    p = trace.preset
    slots = {int(d): int(w) for d, w in zip(trace.tables["dispatches"]["id"].tolist(),
                                            trace.tables["dispatches"]["waves_per_simd"].tolist())}
    simds = p.compute_units * p.simds_per_cu
    seconds = np.maximum((c["end"] - c["start"]).astype(np.float64), 1) / p.clock_hz
    capacity = np.array([simds * max(1, slots.get(int(d), 1)) for d in c["dispatch"]], dtype=np.float64)
    return {"read": np.round(c["dram_read_bytes"] / seconds / 1e9, 3).tolist(),
            "write": np.round(c["dram_write_bytes"] / seconds / 1e9, 3).tolist(),
            "resident": np.round(c["resident_waves"], 3).tolist(),
            "occupancy": np.round(100.0 * c["resident_waves"] / capacity, 3).tolist(),
            "alu": np.round(100.0 * c["alu_busy"], 3).tolist(),
            "l2": _hit_percent(c["l2_hits"], c["l2_misses"]),
            "ic": _hit_percent(c["ic_hits"], c["ic_misses"]) if p.infinity_cache_bytes else None}


def _hit_percent(hits, misses):
    """Per bucket: hits / (hits + misses) in %, rounded to 3 decimals; 0.0 where there was no request."""
    requests = (hits + misses).astype(np.float64)
    return np.round(100.0 * hits / np.maximum(requests, 1.0), 3).tolist()
