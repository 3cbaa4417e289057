"""The trace recorder: what the GPU did and when, kept as structured columns.

A recorder is attached to a GPU only while a capture is active (traces.capture); otherwise the
GPU's `recorder` is None and every hook in the timing model is skipped (tracing that is off costs
one `is not None` test per cohort). Detail levels, each including the ones before it:

    dispatch      one row per dispatch, copy and submission; counters over time
    wave          + one row per wave group: waves that ran together on one SIMD (start, end, CU, SIMD)
    instruction   + one row per instruction segment of a wave group (instruction range, start, end)
    memory        + one row per memory request (bytes, DRAM bytes, issue and completion)

Rows are bounded: each table keeps at most `max_rows` rows; past that, rows are no longer kept
one by one but folded into the per-dispatch counters and a per-(CU, SIMD) summary, and the trace
says so (`aggregated`). Time is in GPU cycles throughout; the recorder never reads a wall clock,
so the same program gives a byte-identical trace.
"""
import numpy as np

DETAILS = ("dispatch", "wave", "instruction", "memory")
DEFAULT_MAX_ROWS = 200_000
COUNTER_BUCKETS = 256

TABLES = {
    "dispatches": [("id", "i8"), ("name", "U64"), ("start", "i8"), ("end", "i8"), ("waves", "i8"),
                   ("workgroups", "i8"), ("elements", "i8"), ("bytes_read", "i8"), ("bytes_written", "i8"),
                   ("dram_bytes", "i8"), ("wave_instructions", "i8"), ("vgprs", "i4"), ("waves_per_simd", "i4"),
                   ("oob_reads", "i8"), ("oob_writes", "i8"), ("timed", "?")],
    "wave_groups": [("dispatch", "i8"), ("cu", "i4"), ("simd", "i4"), ("first_wave", "i8"), ("waves", "i4"),
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
        self.programs = {}        # dispatch id -> (program name, disassembly lines)
        self._dispatch = -1
        self._vgprs = 0
        self._dram = []           # (start, end, bytes, write) of the current dispatch
        self._busy = []           # (start, end, waves) of wave groups of the current dispatch
        self._alu = []            # (start, end) of ALU segments of the current dispatch

    # ---- bounded append --------------------------------------------------------------------------
    def _add(self, table, row):
        rows = self.rows[table]
        if len(rows) < self.max_rows:
            rows.append(row)
        else:
            self.aggregated.add(table)

    # ---- hooks called by the GPU and the timing model -------------------------------------------
    def submission(self, cycle):
        self._add("submissions", (cycle,))

    def copy(self, start, end, num_bytes, dst, src):
        self._add("copies", (start, end, num_bytes, dst[:64], src[:64]))

    def begin_dispatch(self, launch, stats, start):
        self._dispatch += 1
        self._dram, self._busy, self._alu = [], [], []
        self._vgprs = launch.vgprs_used
        if self._dispatch not in self.programs:
            from isa.disassembler import format_instruction
            self.programs[self._dispatch] = (launch.program.name,
                                             [format_instruction(r_inst) for r_inst in _instructions(launch.program)])

    def wave_group(self, cu, simd, first_wave, waves, start, end):
        self._busy.append((start, end, waves))
        if self.level >= 1:
            self._add("wave_groups", (self._dispatch, cu, simd, first_wave, waves, start, end))

    def segment(self, cu, simd, first_wave, waves, pc_first, pc_last, start, end):
        self._alu.append((start, end))
        if self.level >= 2:
            self._add("segments", (self._dispatch, cu, simd, first_wave, waves, pc_first, pc_last, start, end))

    def memory(self, cu, simd, pc, issue, complete, num_bytes, dram_bytes, write):
        if self.level >= 3:
            self._add("memory", (self._dispatch, cu, simd, pc, issue, complete, num_bytes, dram_bytes, write))

    def dram(self, start, end, num_bytes, write):
        self._dram.append((start, end, num_bytes, write))

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
                self._vgprs, waves_per_simd, stats.oob_reads, stats.oob_writes, timed)

    def _counters(self, start, end):
        """Bucket DRAM bytes, resident waves and ALU busy time of the dispatch over its duration."""
        span = max(1, end - start)
        buckets = min(COUNTER_BUCKETS, span)
        edges = start + (np.arange(buckets + 1, dtype=np.int64) * span) // buckets
        read = np.zeros(buckets, dtype=np.int64)
        write = np.zeros(buckets, dtype=np.int64)
        if self._dram:
            d = np.array(self._dram, dtype=np.int64)
            _spread(d[:, 0], d[:, 1], d[:, 2] * (d[:, 3] == 0), edges, read)
            _spread(d[:, 0], d[:, 1], d[:, 2] * (d[:, 3] == 1), edges, write)
        resident = np.zeros(buckets, dtype=np.float64)
        if self._busy:
            b = np.array(self._busy, dtype=np.int64)
            _overlap(b[:, 0], b[:, 1], b[:, 2].astype(np.float64), edges, resident)
        alu = np.zeros(buckets, dtype=np.float64)
        if self._alu:
            a = np.array(self._alu, dtype=np.int64)
            _overlap(a[:, 0], a[:, 1], np.ones(len(a)), edges, alu)
        simds = self.preset.compute_units * self.preset.simds_per_cu
        widths = np.diff(edges).astype(np.float64)
        for i in range(buckets):
            self._add("counters", (self._dispatch, int(edges[i]), int(edges[i + 1]), int(read[i]), int(write[i]),
                                   resident[i] / widths[i], alu[i] / widths[i] / simds))

    def finish(self):
        from .trace import Trace
        tables = {name: np.array(rows, dtype=TABLES[name]) if rows else np.zeros(0, dtype=TABLES[name])
                  for name, rows in self.rows.items()}
        return Trace(tables, self.preset, self.wave_width, self.detail, sorted(self.aggregated), self.programs)


def _instructions(program):
    from isa.encoding import decode
    return [inst for _, inst in decode(program.dwords)]


def _overlap(starts, ends, weights, edges, out):
    """Add weight x (overlap of [start, end) with each bucket) to out, vectorised over rows."""
    lo = np.maximum(starts[:, None], edges[None, :-1])
    hi = np.minimum(ends[:, None], edges[None, 1:])
    out += ((hi - lo).clip(min=0) * weights[:, None]).sum(axis=0) if len(starts) < 4096 else \
        _overlap_chunked(starts, ends, weights, edges)


def _overlap_chunked(starts, ends, weights, edges):
    total = np.zeros(len(edges) - 1)
    for i in range(0, len(starts), 4096):
        lo = np.maximum(starts[i:i + 4096, None], edges[None, :-1])
        hi = np.minimum(ends[i:i + 4096, None], edges[None, 1:])
        total += ((hi - lo).clip(min=0) * weights[i:i + 4096, None]).sum(axis=0)
    return total


def _spread(starts, ends, amounts, edges, out):
    """Spread each amount uniformly over [start, end) into integer bucket totals (exact sum)."""
    dur = np.maximum(ends - starts, 1)
    share = np.zeros(len(edges) - 1)
    for i in range(0, len(starts), 4096):
        s, e, a, d = starts[i:i + 4096], ends[i:i + 4096], amounts[i:i + 4096], dur[i:i + 4096]
        lo = np.maximum(s[:, None], edges[None, :-1])
        hi = np.minimum(np.maximum(e, s + 1)[:, None], edges[None, 1:])
        share += ((hi - lo).clip(min=0) * (a / d)[:, None]).sum(axis=0)
    whole = np.floor(share).astype(np.int64)
    # Hand the rounding remainder to the largest fractions so the bucket sum is exact.
    remainder = int(amounts.sum()) - int(whole.sum())
    if remainder > 0:
        order = np.argsort(-(share - whole), kind="stable")[:remainder]
        whole[order] += 1
    out += whole
