"""The trace recorder: what the GPU did and when, kept as structured columns.

A recorder is attached to a GPU only while a capture is active (traces.capture); otherwise the
GPU's `recorder` is None and every hook in the timing model is skipped (tracing that is off costs
one `is not None` test per cohort). Detail levels, each including the ones before it:

    dispatch      one row per dispatch, copy and submission; counters over time
    wave          + one row per wave group: waves that ran together on one SIMD (start, end, CU, SIMD)
    instruction   + one row per instruction segment of a wave group (instruction range, start, end)
    memory        + one row per memory request (bytes, DRAM bytes, issue and completion)

Rows are bounded: each table keeps at most `max_rows` rows. Past that, wave groups are folded
into a per-(dispatch, CU, SIMD) summary (table `wave_summary`: waves, groups, first start, last
end); instruction segments, memory requests and counter buckets are no longer kept (their count is
in `dropped`). The counters are computed from every row, kept or not. The trace lists the tables
concerned in `aggregated`. Time is in GPU cycles throughout; the recorder never reads a wall clock,
so the same program gives a byte-identical trace.
"""
import itertools

import numpy as np

DETAILS = ("dispatch", "wave", "instruction", "memory")
DEFAULT_MAX_ROWS = 200_000
COUNTER_BUCKETS = 256

TABLES = {
    "dispatches": [("id", "i8"), ("name", "U64"), ("start", "i8"), ("end", "i8"), ("waves", "i8"),
                   ("workgroups", "i8"), ("elements", "i8"), ("bytes_read", "i8"), ("bytes_written", "i8"),
                   ("dram_bytes", "i8"), ("wave_instructions", "i8"), ("valu_instructions", "i8"),
                   ("vgprs", "i4"), ("waves_per_simd", "i4"),
                   ("oob_reads", "i8"), ("oob_writes", "i8"), ("timed", "?")],
    "wave_groups": [("dispatch", "i8"), ("cu", "i4"), ("simd", "i4"), ("first_wave", "i8"), ("waves", "i4"),
                    ("start", "i8"), ("end", "i8")],
    "wave_summary": [("dispatch", "i8"), ("cu", "i4"), ("simd", "i4"), ("waves", "i8"), ("groups", "i8"),
                     ("start", "i8"), ("end", "i8")],
    "segments": [("dispatch", "i8"), ("cu", "i4"), ("simd", "i4"), ("first_wave", "i8"), ("waves", "i4"),
                 ("pc_first", "i4"), ("pc_last", "i4"), ("start", "i8"), ("end", "i8")],
    "memory": [("dispatch", "i8"), ("cu", "i4"), ("simd", "i4"), ("pc", "i4"), ("issue", "i8"),
               ("complete", "i8"), ("bytes", "i8"), ("dram_bytes", "i8"), ("write", "?")],
    "copies": [("start", "i8"), ("end", "i8"), ("bytes", "i8"), ("dst", "U64"), ("src", "U64")],
    "submissions": [("cycle", "i8")],
    "counters": [("dispatch", "i8"), ("start", "i8"), ("end", "i8"), ("dram_read_bytes", "i8"),
                 ("dram_write_bytes", "i8"), ("resident_waves", "f8"), ("alu_busy", "f8")],
}


class TraceRecorder:
    """Collects rows from the GPU's hooks; `finish()` returns a traces.Trace."""

    def __init__(self, preset, wave_width, detail="wave", max_rows=DEFAULT_MAX_ROWS):
        if detail not in DETAILS:
            raise ValueError(f"trace detail {detail!r} is not one of {', '.join(DETAILS)}")
        self.preset = preset
        self.wave_width = wave_width
        self.level = DETAILS.index(detail)
        self.detail = detail
        self.max_rows = max_rows
        self.rows = {name: [] for name in TABLES}
        self.aggregated = set()
        self.dropped = {}         # table -> rows not kept past max_rows
        self._summary = {}        # (dispatch, cu, simd) -> [waves, groups, start, end] past max_rows
        self.programs = {}        # dispatch id -> (program name, disassembly lines)
        self._dispatch = -1
        self._vgprs = 0
        self._dram = []           # (start, end, bytes, write) of the current dispatch
        self._busy = []           # (start, end, waves, ALU cycles) of wave groups of the current dispatch

    # ---- bounded append --------------------------------------------------------------------------
    def _add(self, table, row):
        rows = self.rows[table]
        if len(rows) < self.max_rows:
            rows.append(row)
            return True
        self.aggregated.add(table)
        self.dropped[table] = self.dropped.get(table, 0) + 1
        return False

    # ---- hooks called by the GPU and the timing model -------------------------------------------
    def submission(self, cycle):
        self._add("submissions", (cycle,))

    def copy(self, start, end, num_bytes, dst, src):
        self._add("copies", (start, end, num_bytes, dst[:64], src[:64]))

    def begin_dispatch(self, launch, stats, start):
        self._dispatch += 1
        self._dram, self._busy = [], []
        self._vgprs = launch.vgprs_used
        if self._dispatch not in self.programs:
            from dmlemu.isa.encoding import format_instruction
            self.programs[self._dispatch] = (launch.program.name,
                                             [format_instruction(r_inst) for r_inst in _instructions(launch.program)])

    def wave_group(self, cu, simd, first_wave, waves, start, end, alu_cycles=0):
        self._busy.append((start, end, waves, alu_cycles))
        if self.level >= 1 and not self._add("wave_groups", (self._dispatch, cu, simd, first_wave, waves, start, end)):
            key = (self._dispatch, cu, simd)
            s = self._summary.get(key)
            if s is None:
                self._summary[key] = [waves, 1, start, end]
            else:
                s[0] += waves
                s[1] += 1
                s[3] = max(s[3], end)

    def segment(self, cu, simd, first_wave, waves, pc_first, pc_last, start, end):
        if self.level >= 2:
            self._add("segments", (self._dispatch, cu, simd, first_wave, waves, pc_first, pc_last, start, end))

    def memory(self, cu, simd, pc, issue, complete, num_bytes, dram_bytes, write):
        if self.level >= 3:
            self._add("memory", (self._dispatch, cu, simd, pc, issue, complete, num_bytes, dram_bytes, write))

    def dram(self, start, end, num_bytes, write):
        self._dram.append((start, end, num_bytes, write))

    def dram_log(self):
        """The list the memory system appends (start, end, bytes, write) to for this dispatch."""
        return self._dram

    def end_dispatch(self, stats, end):
        timing = stats.timing
        self._add("dispatches", self._dispatch_row(stats, stats.start_cycle if stats.start_cycle else timing.start_cycle,
                                                   end, timing.dram_bytes, timing.waves_per_simd, True))
        self._counters(timing.start_cycle, end)

    def untimed_dispatch(self, launch, stats, start, end):
        self.begin_dispatch(launch, stats, start)
        self._add("dispatches", self._dispatch_row(stats, start, end, stats.bytes_read + stats.bytes_written, 0, False))

    def _dispatch_row(self, stats, start, end, dram_bytes, waves_per_simd, timed):
        return (self._dispatch, stats.name[:64], start, end, stats.waves, stats.workgroups, stats.elements,
                stats.bytes_read, stats.bytes_written, dram_bytes, stats.wave_instructions,
                stats.unit_instructions.get("VALU", 0),
                self._vgprs, waves_per_simd, stats.oob_reads, stats.oob_writes, timed)

    def _counters(self, start, end):
        """Bucket DRAM bytes, resident waves and ALU busy time of the dispatch over its duration.

        Each quantity is the integral of a sum of interval functions, evaluated at the bucket
        edges with sorted prefix sums (see _integral): O(rows log rows), whatever the bucket count.
        """
        span = max(1, end - start)
        buckets = min(COUNTER_BUCKETS, span)
        edges = start + (np.arange(buckets + 1, dtype=np.int64) * span) // buckets
        widths = np.diff(edges).astype(np.float64)
        read = np.zeros(buckets, dtype=np.int64)
        write = np.zeros(buckets, dtype=np.int64)
        if self._dram:
            d = np.fromiter(itertools.chain.from_iterable(self._dram), dtype=np.int64,
                            count=4 * len(self._dram)).reshape(-1, 4)
            for out, flag in ((read, 0), (write, 1)):
                rows = d[d[:, 3] == flag]
                if len(rows):
                    # bytes flow uniformly over [start, end): rate = bytes / duration
                    dur = np.maximum(rows[:, 1] - rows[:, 0], 1).astype(np.float64)
                    share = np.diff(_integral(rows[:, 0], rows[:, 0] + dur, rows[:, 2] / dur, edges))
                    out += _exact_integers(share, int(rows[:, 2].sum()))
        resident = np.zeros(buckets)
        alu = np.zeros(buckets)
        if self._busy:
            b = np.fromiter(itertools.chain.from_iterable(self._busy), dtype=np.int64,
                            count=4 * len(self._busy)).reshape(-1, 4)
            resident = np.diff(_integral(b[:, 0], b[:, 1], b[:, 2].astype(np.float64), edges)) / widths
            dur = np.maximum(b[:, 1] - b[:, 0], 1).astype(np.float64)
            alu = np.diff(_integral(b[:, 0], b[:, 1], b[:, 3] / dur, edges)) / widths
        simds = self.preset.compute_units * self.preset.simds_per_cu
        for i in range(buckets):
            self._add("counters", (self._dispatch, int(edges[i]), int(edges[i + 1]), int(read[i]), int(write[i]),
                                   float(resident[i]), float(alu[i]) / simds))

    def finish(self):
        from dmlemu.traces.trace import Trace
        self.rows["wave_summary"] = [(*key, *value) for key, value in sorted(self._summary.items())]
        tables = {name: np.array(rows, dtype=TABLES[name]) if rows else np.zeros(0, dtype=TABLES[name])
                  for name, rows in self.rows.items()}
        return Trace(tables, self.preset, self.wave_width, self.detail, sorted(self.aggregated), self.programs)


def _instructions(program):
    from dmlemu.isa.encoding import decode
    return [inst for _, inst in decode(program.dwords)]


def _integral(starts, ends, weights, edges):
    """For each edge E: the sum over rows of weight x |[start, end) intersected with (-inf, E)|.

    sum_w min(E, end) - sum_w min(E, start), and sum_w min(E, x) over sorted x is the prefix sum
    of w*x below E plus E times the weight at or above E.
    """
    def total(x):
        order = np.argsort(x, kind="stable")
        xs, ws = x[order].astype(np.float64), weights[order]
        below_wx = np.concatenate([[0.0], np.cumsum(ws * xs)])
        below_w = np.concatenate([[0.0], np.cumsum(ws)])
        k = np.searchsorted(xs, edges, side="left")
        return below_wx[k] + edges * (below_w[-1] - below_w[k])
    return total(np.asarray(ends, dtype=np.float64)) - total(np.asarray(starts, dtype=np.float64))


def _exact_integers(share, total):
    """Round bucket shares to integers whose sum is exactly `total` (largest remainders)."""
    share = np.maximum(share, 0.0)
    whole = np.floor(share).astype(np.int64)
    remainder = total - int(whole.sum())
    if remainder > 0:
        order = np.argsort(-(share - whole), kind="stable")[:remainder]
        whole[order] += 1
    return whole
