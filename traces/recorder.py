"""The trace recorder: what the GPU did and when, kept as structured columns.

A recorder is attached to a GPU only while a capture is active (traces.capture); otherwise the
GPU's `recorder` is None and every hook in the timing model is skipped (tracing that is off costs
one `is not None` test per cohort). Detail levels, each including the ones before it:

    dispatch      one row per dispatch, copy and submission; counters over time; one row per
                  memory instruction of each timed dispatch (its traffic at each cache level)
    wave          + one row per wave group: waves that ran together on one SIMD (start, end, CU, SIMD)
    instruction   + one row per instruction segment of a wave group (instruction range, start, end)
    memory        + one row per memory request (bytes, DRAM bytes, issue and completion)

Rows are bounded: each table keeps at most `max_rows` rows. Past that, wave groups are folded
into a per-(dispatch, CU, SIMD) summary (table `wave_summary`: waves, groups, first start, last
end); instruction segments, memory requests and counter buckets are not kept (their count is
in `dropped`). The counters are computed from every row, kept or not. The trace lists the tables
concerned in `aggregated`. Time is in GPU cycles throughout; the recorder never reads a wall clock,
so the same program gives a byte-identical trace.

Tables and their columns are declared once, in traces/schema.py; every row is made by column name
(`TABLES[name].row(...)`), never by position. Storage: rows arrive as tuples (in the table's column
order, which schema.py's row functions give) and are packed into NumPy chunks of about CHUNK_BYTES
each, so a table costs its column bytes, not Python objects. Once a table's packed chunks pass `spill_bytes`
(SPILL_BYTES per table by default; None: never), they are written to a file in a temporary folder
(under `spill_dir`, default the system's) and every later chunk goes there too. `finish()` maps
each such file back as a read-only-on-disk NumPy array (np.memmap, copy on write) and removes the
file and the folder at once (the mapping stays valid; where the system refuses to delete a mapped
file, the folder is removed when the recorder or the table is garbage-collected). Memory for an
unbounded capture (`--trace-all`) then stays bounded: the tuples of one chunk per table, plus the
pages of the mapped tables the exports touch, which the system can drop. The tables hold the same
bytes whichever way they were kept.

Memory hierarchy counters come from the timing model's cache accounting (stats.timing.traffic,
timing/caches.py), read once at the end of each timed dispatch, so they cost nothing while the
dispatch runs. Units are sectors (`preset.sector_bytes`) except `l2_lines` (tag lookups: distinct
cache lines per wave instruction). Per dispatch (table `dispatches`):

    cu_hits             sectors the CU-side caches served (its CU's L0, its shader array's L1:
                        timing/cu_caches.py), after each wave's coalescer merged its lanes
    l2_requests         sector requests to the L2: the coalesced sectors less cu_hits
    l2_lines            distinct cache lines those requests fall in (tag lookups)
    l2_hits             requests found in the L2 (a write hit: the sector was already resident)
    ic_requests         Infinity Cache lookups: the L2's read misses (0 without an Infinity Cache)
    ic_hits             lookups found in the Infinity Cache
    dram_read_sectors   sectors read from DRAM (read misses of the last cache level)
    dram_write_sectors  dirty sectors written back to DRAM by evictions during the dispatch
    ic_write_sectors    dirty L2 sectors written back into the Infinity Cache during the dispatch
    hazards             hazards the dispatch made with earlier work of its ExecuteCommandLists call that
                        no barrier ordered (emulator/d3d12/hazards.py); table `hazards` has one row each:
                        the dispatch id (-1 for a copy), kind, both operations, the resource and bytes

What the units were busy with (table `dispatches`, schema.BUSY; zero for an untimed dispatch), read by
traces/verdict.py:

    <class>_issue_cycles  the issue cycles of the dispatch's instructions on its SIMDs' issue ports, per
                        VALU rate class (full, fp64, int64, int32_mul, conversion, transcendental) and
                        `other` (SALU, scalar loads, branches, vector memory issue): each executed
                        instruction's issue cycles per wave (kernel_path.issue_cycles_per_wave, the
                        rule the timing model charges) times the waves that executed it
    simd_busy_cycles    the issue ports' booked cycles (timing: DispatchTiming.simd_busy_cycles), which
                        also hold the dependent latency a cohort's other waves could not hide
    occupied_simd_cycles  SIMD-cycles with at least one wave resident (the union of each SIMD's wave
                        groups' lifetimes, summed over SIMDs)
    dram_busy_cycles    cycles the DRAM server was transferring the dispatch's bytes (refresh included;
                        timing: DispatchTiming.dram_busy_cycles)
    lds_passes          LDS bank-conflict passes the CUs' LDS pipes served (each moves lds_banks dwords in
                        lds_banks x 4 / lds_bytes_per_cycle cycles; timing: DispatchTiming.lds_passes)

Table `instructions` has one row per instruction of each dispatch: the waves that executed it (each
trip of a loop counted) and its issue cycles (waves x issue_cycles_per_wave).

Table `mem_instructions` has the same quantities per memory instruction (pc) of each timed
dispatch, with the bytes its lanes asked for (`useful_bytes`), the sectors its CU's L0 and shader
array's L1 served (`cu_hits`: they never reach the L2) and the coalescing efficiency
(useful bytes / (sectors x sector_bytes)). The `counters` table splits L2 and Infinity Cache
hits and misses over time: each wave group's hits are spread evenly over its lifetime.
"""
import os
import shutil
import tempfile
import weakref
from array import array

import numpy as np

from dmlemu.errors import short_repr
from dmlemu.isa import opcodes as op
from dmlemu.timing.kernel_path import issue_cycles_per_wave
from dmlemu.traces.schema import BUSY, ISSUE, TABLES, TRAFFIC


DETAILS = ("dispatch", "wave", "instruction", "memory")
DISPATCH, WAVE, INSTRUCTION, MEMORY = range(len(DETAILS))   # detail levels, as `level` compares them
DEFAULT_MAX_ROWS = 200_000
CHUNK_BYTES = 1 << 20          # rows are packed into NumPy chunks of about this many bytes
SPILL_BYTES = 16 << 20         # a table's packed bytes past which its chunks go to a file (per table)
COUNTER_BUCKETS = 256
MAX_NAME = 1024                # characters of a dispatch name kept (the column widens past 64 only when needed)

_NO_TRAFFIC = dict.fromkeys(TRAFFIC, 0)    # an untimed dispatch's memory hierarchy columns
_NO_BUSY = dict.fromkeys(BUSY, 0)          # ... and busy columns
_OTHER = len(op.RATE_CLASSES)              # issue class index of what is not VALU (ISSUE's last column)


class TraceRecorder:
    """Collects rows from the GPU's hooks; `finish()` returns a traces.Trace."""

    def __init__(self, preset, wave_width, detail="wave", max_rows=DEFAULT_MAX_ROWS, spill_bytes=SPILL_BYTES,
                 spill_dir=None):
        if not isinstance(detail, str) or detail not in DETAILS:
            raise ValueError(f"trace detail {short_repr(detail)} is not one of {', '.join(DETAILS)}")
        if spill_bytes is not None and (isinstance(spill_bytes, bool) or not isinstance(spill_bytes, int)
                                        or spill_bytes < 1):
            raise ValueError(f"spill_bytes is {short_repr(spill_bytes)}; it must be a whole number of bytes, at "
                             f"least 1 (or None: never spill)")
        if spill_dir is not None and not os.path.isdir(spill_dir):
            raise ValueError(f"spill_dir is {short_repr(spill_dir)}; it must be an existing folder (or None: the "
                             f"system's temporary folder)")
        self.preset = preset
        self.wave_width = wave_width
        self.level = DETAILS.index(detail)
        self.keeps_segments = self.level >= INSTRUCTION    # read once per cohort by the SIMDs
        self.keeps_memory = self.level >= MEMORY
        self.detail = detail
        self.max_rows = max_rows
        self.tables = {name: _Table(name, max_rows, spill_bytes, self._spill_folder) for name in TABLES}
        # The tables written per wave group, instruction segment and memory request, and their row makers
        # (schema.py: every column by keyword), looked up once here rather than in every hook call.
        self._wave_groups, self._segments, self._memory = (self.tables[n] for n in ("wave_groups", "segments",
                                                                                     "memory"))
        self._wave_group_row = TABLES["wave_groups"].row
        self._segment_row = TABLES["segments"].row
        self._memory_row = TABLES["memory"].row
        self.spill_dir = spill_dir
        self.spill_folder = None  # the temporary folder of spilled tables, once one spilled
        self.aggregated = set()
        self.dropped = {}         # table -> rows not kept past max_rows
        self._summary = {}        # (dispatch, cu, simd) -> [waves, groups, start, end] past max_rows
        self.programs = {}        # dispatch id -> (program name, disassembly lines), for the first max_rows dispatches
        self._listings = {}       # id(program) -> (program, its programs entry), shared by its dispatches
        self._dispatch = -1
        self._vgprs = 0
        self._lds_bytes = 0
        self._program = None      # the current dispatch's Program (its instructions' issue costs)
        self._dram = array("q")   # (start, end, bytes, write) of the current dispatch, flat: 4 ints a transfer
        self._host = []           # (start, end, bytes, to host) on the host link, of the current dispatch
        self._busy = []           # (start, end, waves, ALU cycles, first wave, SIMD) of the current dispatch's groups
        #                           (scratch for the counters, not a table: _counters reads it by these names)
        self._busy_blocks = []    # ... the same rows as (k, 6) int64 arrays, from wave_groups (see _busy_rows)
        self._hazards = 0         # hazards noted for the dispatch about to start (its `hazards` column)

    # ---- bounded append --------------------------------------------------------------------------
    def _add(self, table, row):
        """Keep `row` in `table` unless it holds max_rows rows already; False (and counted) then."""
        if self.tables[table].add(row):
            return True
        self._drop(table)
        return False

    def _drop(self, table, rows=1):
        """Count `rows` rows of `table` not kept past max_rows."""
        self.aggregated.add(table)
        self.dropped[table] = self.dropped.get(table, 0) + rows

    # ---- hooks called by the GPU and the timing model -------------------------------------------
    def submission(self, cycle):
        self._add("submissions", TABLES["submissions"].row(cycle=cycle))

    def barrier(self, start, idle, flushed, end, release):
        """A barrier reached at `start`: the GPU idle at `idle`, flushed at `flushed`, the L2 written
        back (a release) at `end`."""
        self._add("barriers", TABLES["barriers"].row(start=start, idle=idle, flushed=flushed, end=end, release=release))

    def hazard(self, kind, operation, earlier, resource, start, end, dispatch=True):
        """A hazard (d3d12/hazards.py) the next operation makes: counted in the next dispatch's row when
        that operation is a dispatch (dispatch id -1 in table `hazards` otherwise)."""
        self._add("hazards", TABLES["hazards"].row(
            dispatch=self._dispatch + 1 if dispatch else -1, kind=kind[:20], operation=operation[:96],
            earlier=earlier[:96], resource=resource[:64], start=start, end=end))
        self._hazards += bool(dispatch)

    def copy(self, start, end, num_bytes, dst, src):
        self._add("copies", TABLES["copies"].row(start=start, end=end, bytes=num_bytes, dst=dst[:64], src=src[:64]))

    def begin_dispatch(self, launch, stats, start):
        self._dispatch += 1
        self._dram, self._busy, self._host = array("q"), [], []
        self._busy_blocks = []
        self._vgprs = launch.vgprs_used
        self._lds_bytes = launch.lds_bytes
        self._program = launch.program
        if self._dispatch not in self.programs and self._dispatch < self.max_rows:
            # Bounded: a listing only for the dispatches the `dispatches` table can keep, and one listing per
            # program, shared by the dispatches that ran it (each used to hold its own copy: ~2 KB a dispatch).
            program = launch.program
            known = self._listings.get(id(program))
            if known is None or known[0] is not program:
                from dmlemu.isa.encoding import format_instruction
                known = self._listings[id(program)] = (program, (program.name, [
                    format_instruction(r_inst) for r_inst in _instructions(program)]))
            self.programs[self._dispatch] = known[1]

    def wave_group(self, cu, simd, group, first_wave, waves, start, end, alu_cycles=0):
        self._busy.append((start, end, waves, alu_cycles, first_wave, cu * self.preset.simds_per_cu + simd))
        if self.level >= WAVE:
            t = self._wave_groups
            if t.count < t.limit:          # _Table.add, inlined in the hooks called per cohort or request
                t.count += 1
                t.pending.append(self._wave_group_row(dispatch=self._dispatch, cu=cu, simd=simd, group=group,
                                                      first_wave=first_wave, waves=waves, start=start, end=end))
                if len(t.pending) == t.chunk_rows:
                    t.pack()
            else:
                self._drop("wave_groups")
                self._summarize(cu, simd, waves, start, end)

    def _summarize(self, cu, simd, waves, start, end):
        """Fold a wave group past max_rows into its (dispatch, CU, SIMD) summary; past max_rows summaries too,
        only counted (table wave_summary in `dropped`), so a capture's memory stays bounded however long it runs."""
        key = (self._dispatch, cu, simd)
        s = self._summary.get(key)
        if s is None:
            if len(self._summary) >= self.max_rows:
                self._drop("wave_summary")
                return
            self._summary[key] = [waves, 1, start, end]
        else:
            s[0] += waves
            s[1] += 1
            s[3] = max(s[3], end)

    def wave_groups(self, cu, simd, group, first_wave, waves, start, end, alu_cycles):
        """wave_group for many cohorts at once: equal-length sequences of ints (or int arrays), in the
        order the cohorts ended (the slot groups hand a dispatch's rows over at its end). The same
        table rows, row limit, summary and counters' input as one wave_group call per cohort.

        Speed: NumPy throughout; the kept rows go into the table as packed chunks (_Table.add_rows),
        not as a tuple per row."""
        n = len(start)
        if not n:
            return
        per_cu = self.preset.simds_per_cu
        columns = [np.asarray(c, dtype=np.int64) for c in (cu, simd, group, first_wave, waves, start, end, alu_cycles)]
        cu, simd, group, first_wave, waves, start, end, alu_cycles = columns
        self._busy_rows()              # (the single rows before these, in order)
        self._busy_blocks.append(np.stack([start, end, waves, alu_cycles, first_wave, cu * per_cu + simd], axis=1))
        if self.level < WAVE:
            return
        table = self._wave_groups
        kept = max(0, min(n, table.limit - table.count))
        if kept:
            rows = np.empty(kept, dtype=table.dtype)
            rows["dispatch"] = self._dispatch
            for name, column in zip(("cu", "simd", "group", "first_wave", "waves", "start", "end"),
                                    (cu, simd, group, first_wave, waves, start, end)):
                rows[name] = column[:kept]
            table.add_rows(rows)
        if kept < n:                       # past max_rows: counted and folded as wave_group does
            self._drop("wave_groups", n - kept)
            for k in range(kept, n):
                self._summarize(int(cu[k]), int(simd[k]), int(waves[k]), int(start[k]), int(end[k]))

    def _busy_rows(self):
        """The current dispatch's wave-group rows for the counters (self._busy's columns), as one (k, 6)
        int64 array in the order they came; the single rows wave_group appended are folded in."""
        if self._busy:
            self._busy_blocks.append(np.array(self._busy, dtype=np.int64).reshape(-1, 6))
            self._busy = []
        if len(self._busy_blocks) > 1:
            self._busy_blocks = [np.concatenate(self._busy_blocks)]
        return self._busy_blocks[0] if self._busy_blocks else np.zeros((0, 6), dtype=np.int64)

    def segment(self, cu, simd, group, first_wave, waves, pc_first, pc_last, start, end):
        if self.keeps_segments:
            t = self._segments
            if t.count < t.limit:          # _Table.add, inlined (see wave_group); no row made past the limit
                t.count += 1
                t.pending.append(self._segment_row(dispatch=self._dispatch, cu=cu, simd=simd, group=group,
                                                   first_wave=first_wave, waves=waves, pc_first=pc_first,
                                                   pc_last=pc_last, start=start, end=end))
                if len(t.pending) == t.chunk_rows:
                    t.pack()
            else:
                self._drop("segments")

    def memory(self, cu, simd, group, pc, issue, complete, num_bytes, dram_bytes, write):
        if self.keeps_memory:
            t = self._memory
            if t.count < t.limit:          # _Table.add, inlined (see wave_group); no row made past the limit
                t.count += 1
                t.pending.append(self._memory_row(dispatch=self._dispatch, cu=cu, simd=simd, group=group, pc=pc,
                                                  issue=issue, complete=complete, bytes=num_bytes,
                                                  dram_bytes=dram_bytes, write=write))
                if len(t.pending) == t.chunk_rows:
                    t.pack()
            else:
                self._drop("memory")

    def host_transfer(self, start, end, num_bytes, to_host):
        """A copy's transfer on the host link (memory_system.HostLink): a row of table host_link."""
        self._add("host_link", TABLES["host_link"].row(start=start, end=end, bytes=num_bytes, to_host=bool(to_host),
                                                       dispatch=-1))

    def host_log(self):
        """The list the memory system appends a kernel's host-link transfers (start, end, bytes, to host) to."""
        return self._host

    def dram_log(self):
        """The flat 64-bit array the memory system extends with (start, end, bytes, write) for this dispatch.

        Speed: one C call a transfer and 32 bytes kept, no tuple per transfer alive until the dispatch
        ends (about 130,000 of them for 2^24 elements), and NumPy reads it as a buffer (_counters)."""
        return self._dram

    def end_dispatch(self, stats, end):
        timing = stats.timing
        totals = timing.traffic.totals
        has_ic = bool(self.preset.infinity_cache_bytes)
        traffic = {"cu_hits": totals["l0_hits"] + totals["l1_hits"],
                   "l2_requests": totals["sectors"] - totals["l0_hits"] - totals["l1_hits"], "l2_lines": totals["lines"], "l2_hits": totals["l2_hits"],
                   "ic_requests": totals["ic_hits"] + totals["dram_reads"] if has_ic else 0,
                   "ic_hits": totals["ic_hits"], "dram_read_sectors": totals["dram_reads"],
                   "dram_write_sectors": totals["dram_writes"], "ic_write_sectors": totals["ic_writes"],
                   "dram_turnarounds": timing.dram_turnarounds}
        issue = self._instructions(stats)
        busy = {**dict(zip(ISSUE, issue)), "simd_busy_cycles": timing.simd_busy_cycles,
                "occupied_simd_cycles": self._occupied(), "dram_busy_cycles": timing.dram_busy_cycles}
        self._add("dispatches", self._dispatch_row(stats, stats.start_cycle if stats.start_cycle else timing.start_cycle,
                                                   end, timing.dram_bytes, timing.waves_per_simd, True, traffic, busy,
                                                   timing.barrier_wait_cycles, timing.lds_passes))
        self._mem_instructions(stats, timing)
        self._counters(timing.start_cycle, end, timing.traffic)
        for to_host in (False, True):   # the dispatch's host-memory requests: one row per direction
            mine = [h for h in self._host if bool(h[3]) == to_host]
            if mine:
                self._add("host_link", TABLES["host_link"].row(
                    start=min(h[0] for h in mine), end=max(h[1] for h in mine), bytes=sum(h[2] for h in mine),
                    to_host=to_host, dispatch=self._dispatch))
        self._host = []

    def untimed_dispatch(self, launch, stats, start, end):
        self.begin_dispatch(launch, stats, start)
        self._add("dispatches", self._dispatch_row(stats, start, end, stats.bytes_read + stats.bytes_written, 0, False,
                                                   _NO_TRAFFIC, _NO_BUSY))

    def _dispatch_name(self, name):
        """A dispatch's name whole (up to MAX_NAME characters): the column is U64 (schema.py) and widens, for
        this trace, to the next multiple of 64 characters a longer name needs (a fused graph dispatch names
        every node it runs), so that a trace whose names fit keeps its bytes."""
        name = name[:MAX_NAME]
        table = self.tables["dispatches"]
        if len(name) > table.dtype["name"].itemsize // 4:
            table.widen("name", -(-len(name) // 64) * 64)
        return name

    def _dispatch_row(self, stats, start, end, dram_bytes, waves_per_simd, timed, traffic, busy, barrier_wait_cycles=0,
                      lds_passes=0):
        """The dispatch's row; `traffic`, `busy`: its memory hierarchy and busy columns by name (schema.TRAFFIC,
        schema.BUSY); `barrier_wait_cycles`: wave-cycles its waves spent at s_barrier; `lds_passes`: the
        bank-conflict passes the CUs' LDS pipes served for it (timing/compute_unit.py)."""
        hazards, self._hazards = self._hazards, 0
        return TABLES["dispatches"].row(
            id=self._dispatch, name=self._dispatch_name(stats.name), start=start, end=end, waves=stats.waves,
            workgroups=stats.workgroups, elements=stats.elements, bytes_read=stats.bytes_read,
            bytes_written=stats.bytes_written, dram_bytes=dram_bytes, wave_instructions=stats.wave_instructions,
            valu_instructions=stats.unit_instructions.get("VALU", 0), vgprs=self._vgprs,
            waves_per_simd=waves_per_simd, oob_reads=stats.oob_reads, oob_writes=stats.oob_writes, timed=timed,
            **traffic, hazards=hazards, **busy, lds_bytes=self._lds_bytes, barrier_wait_cycles=barrier_wait_cycles,
            lds_passes=lds_passes)

    def _instructions(self, stats):
        """One `instructions` row per instruction of the timed dispatch; returns its issue cycles per
        class (schema.ISSUE's order)."""
        program, waves = self._program, stats.instruction_waves
        passes = max(1, -(-self.wave_width // self.preset.simd_lanes))
        rates = self.preset.rate_cycles()
        per_class = [0] * len(ISSUE)
        row = TABLES["instructions"].row
        for pc, record in enumerate(program.records):
            n = int(waves[pc]) if pc < len(waves) else 0
            entry = record.entry
            cycles = n * issue_cycles_per_wave(entry, passes, rates)
            per_class[op.RATE_CLASSES.index(entry.rate_class) if entry.unit == op.VALU else _OTHER] += cycles
            self._add("instructions", row(dispatch=self._dispatch, pc=pc, waves=n, issue_cycles=cycles))
        return per_class

    def _occupied(self):
        """SIMD-cycles of the dispatch with at least one wave resident: per SIMD, the union of its wave
        groups' lifetimes (sorted by SIMD and start; a SIMD's groups offset past every earlier SIMD's, so
        one running maximum of the ends serves them all)."""
        b = self._busy_rows()
        if not b.size:
            return 0
        start, end, unit = b[:, 0], b[:, 1], b[:, 5]
        offset = (int(end.max()) - int(start.min()) + 1) * unit - int(start.min())
        start, end = start + offset, end + offset
        order = np.lexsort((start, unit))
        start, end = start[order], end[order]
        reach = np.maximum.accumulate(end)
        before = np.concatenate([[start[0]], reach[:-1]])
        return int(np.maximum(end - np.maximum(start, before), 0).sum())

    def _mem_instructions(self, stats, timing):
        """One row per vector memory instruction of the dispatch: its traffic at each level."""
        rows = stats.record.finish()
        texts = self.programs.get(self._dispatch, ("", []))[1]
        sector_bytes = timing.sector_bytes
        for pc, t in sorted(timing.traffic.per_instruction.items()):
            useful = int(stats.memory_bytes[pc])
            requested = t["sectors"] * sector_bytes
            self._add("mem_instructions", TABLES["mem_instructions"].row(
                dispatch=self._dispatch, pc=pc, instruction=texts[pc][:64] if 0 <= pc < len(texts) else "",
                write=bool(rows[pc].is_write), waves=int(stats.instruction_waves[pc]), useful_bytes=useful,
                sectors=t["sectors"], lines=t["lines"], cu_hits=t["l0_hits"] + t["l1_hits"], l2_hits=t["l2_hits"], ic_hits=t["ic_hits"],
                dram_reads=t["dram_reads"], dram_writes=t["dram_writes"], ic_writes=t["ic_writes"],
                coalescing=useful / requested if requested else 0.0))

    def _counters(self, start, end, traffic):
        """Bucket DRAM bytes, resident waves, ALU busy time and cache hits and misses of the dispatch
        over its duration.

        Each quantity is the integral of a sum of interval functions, evaluated at the bucket
        edges with sorted prefix sums (see _integral): O(rows log rows), whatever the bucket count.
        A wave group's cache hits and misses (from the traffic's prefix sums over its wave range)
        are spread evenly over its lifetime, like its resident waves.
        """
        span = max(1, end - start)
        buckets = min(COUNTER_BUCKETS, span)
        edges = start + (np.arange(buckets + 1, dtype=np.int64) * span) // buckets
        widths = np.diff(edges).astype(np.float64)
        read = np.zeros(buckets, dtype=np.int64)
        write = np.zeros(buckets, dtype=np.int64)
        if self._dram:
            # The DRAM log's entries, 4 ints each as the memory system extends it: (start, end, bytes, write).
            d_start, d_end, d_bytes, d_write = np.frombuffer(self._dram, dtype=np.int64).reshape(-1, 4).T
            for out, flag in ((read, 0), (write, 1)):
                mine = d_write == flag
                if mine.any():
                    s, e, nbytes = d_start[mine], d_end[mine], d_bytes[mine]
                    # bytes flow uniformly over [start, end): rate = bytes / duration
                    dur = np.maximum(e - s, 1).astype(np.float64)
                    share = np.diff(_integral(s, s + dur, nbytes / dur, edges))
                    out += _exact_integers(share, int(nbytes.sum()))
        resident = np.zeros(buckets)
        alu = np.zeros(buckets)
        levels = [np.zeros(buckets, dtype=np.int64) for _ in range(4)]   # L2 hits, misses; IC hits, misses
        busy = self._busy_rows()
        if busy.size:
            # The wave groups' rows, as wave_group and wave_groups keep them (_busy_rows).
            b_start, b_end, b_waves, b_alu, b_first, _ = busy.T
            resident = np.diff(_integral(b_start, b_end, b_waves.astype(np.float64), edges)) / widths
            dur = np.maximum(b_end - b_start, 1).astype(np.float64)
            # A cohort's issue cycles are spread evenly over its span. Where two slot groups' cohorts
            # overlap in a short bucket that can exceed the port's capacity a little (the port itself is
            # never booked twice: timing/simd.py IssuePort), so the share is capped at the SIMDs' 100 %.
            alu = np.diff(_integral(b_start, b_end, b_alu / dur, edges)) / widths
            for out, per_group in zip(levels, self._group_levels(traffic, b_first, b_waves)):
                if per_group.any():
                    share = np.diff(_integral(b_start, b_start + dur, per_group / dur, edges))
                    out += _exact_integers(share, int(per_group.sum()))
        simds = self.preset.compute_units * self.preset.simds_per_cu
        l2_hits, l2_misses, ic_hits, ic_misses = levels
        row = TABLES["counters"].row
        for i in range(buckets):
            self._add("counters", row(dispatch=self._dispatch, start=int(edges[i]), end=int(edges[i + 1]),
                                      dram_read_bytes=int(read[i]), dram_write_bytes=int(write[i]),
                                      resident_waves=float(resident[i]), alu_busy=min(float(alu[i]) / simds, 1.0),
                                      l2_hits=int(l2_hits[i]), l2_misses=int(l2_misses[i]), ic_hits=int(ic_hits[i]),
                                      ic_misses=int(ic_misses[i])))

    def _group_levels(self, traffic, first, waves):
        """Per wave group (waves first .. first + waves - 1): L2 hits, L2 misses, Infinity Cache hits,
        Infinity Cache misses, over all its memory instructions."""
        if not traffic.per_wave:
            return [np.zeros(first.size, dtype=np.int64)] * 4
        names = ("sectors", "l2_hits", "ic_hits", "dram_reads", "l0_hits", "l1_hits")
        per = dict(zip(names, traffic.range_sums(names, first, waves)))
        l2_misses = per["sectors"] - per["l0_hits"] - per["l1_hits"] - per["l2_hits"]   # CU-side hits never reach the L2
        if not self.preset.infinity_cache_bytes:
            zero = np.zeros(first.size, dtype=np.int64)
            return [per["l2_hits"], l2_misses, zero, zero]
        return [per["l2_hits"], l2_misses, per["ic_hits"], per["dram_reads"]]

    def _spill_folder(self):
        """The temporary folder spilled tables go to (created on first use; removed by finish())."""
        if self.spill_folder is None:
            self.spill_folder = tempfile.mkdtemp(prefix="dmlemu-trace-", dir=self.spill_dir)
            self._cleanup = weakref.finalize(self, shutil.rmtree, self.spill_folder, True)
        return self.spill_folder

    def finish(self):
        from dmlemu.traces.trace import Trace
        self._listings = {}
        summary = self.tables["wave_summary"]
        summary.pending = [TABLES["wave_summary"].row(dispatch=d, cu=cu, simd=simd, waves=waves, groups=groups,
                                                      start=start, end=end)
                           for (d, cu, simd), (waves, groups, start, end) in sorted(self._summary.items())]
        summary.count = len(summary.pending)
        tables = {name: t.finish() for name, t in self.tables.items()}
        if self.spill_folder is not None:
            try:
                os.rmdir(self.spill_folder)
                self._cleanup.detach()
            except OSError:      # a mapped file the system would not delete (Windows): removed on collection
                for table in tables.values():
                    if isinstance(table, np.memmap):
                        weakref.finalize(table, shutil.rmtree, self.spill_folder, True)
        return Trace(tables, self.preset, self.wave_width, self.detail, sorted(self.aggregated), self.programs,
                     dict(self.dropped))


class _Table:
    """One table's rows: tuples waiting to be packed (`pending`), then packed NumPy chunks in memory
    or, past `spill_bytes`, appended to a file (see the module banner)."""

    def __init__(self, name, limit, spill_bytes, folder):
        self.name = name
        self.limit = limit                # rows kept at most (the recorder's max_rows)
        self.dtype = TABLES[name].dtype
        self.spill_bytes = spill_bytes
        self.folder = folder              # callable: the spill folder
        limit = CHUNK_BYTES if spill_bytes is None else min(CHUNK_BYTES, spill_bytes)
        self.chunk_rows = max(1, limit // self.dtype.itemsize)
        self.count = 0                    # rows kept so far
        self.pending = []                 # rows not packed yet (tuples)
        self.chunks = []                  # packed chunks in memory
        self.packed_bytes = 0
        self.file = None                  # the spill file, once the table spilled
        self.path = None

    def add(self, row):
        """Keep `row` (a tuple in column order) unless `limit` rows are kept already; False then."""
        if self.count < self.limit:
            self.count += 1
            self.pending.append(row)
            if len(self.pending) == self.chunk_rows:
                self.pack()
            return True
        return False

    def pack(self):
        chunk = np.array(self.pending, dtype=self.dtype)
        self.pending = []
        self._keep(chunk)

    def add_rows(self, rows):
        """Keep `rows` (a structured array of this table's dtype; the caller keeps them within `limit`) after
        the rows kept before: the same table as adding them one by one, packed in chunks of chunk_rows."""
        if self.pending:
            self.pack()
        for lo in range(0, len(rows), self.chunk_rows):
            self._keep(rows[lo:lo + self.chunk_rows])
        self.count += len(rows)

    def _keep(self, chunk):
        """A packed chunk: kept in memory, or appended to the spill file once the table spilled."""
        if self.file is not None:
            chunk.tofile(self.file)
            return
        self.chunks.append(chunk)
        self.packed_bytes += chunk.nbytes
        if self.spill_bytes is not None and self.packed_bytes > self.spill_bytes:
            self.path = os.path.join(self.folder(), self.name + ".bin")
            self.file = open(self.path, "wb")
            for c in self.chunks:
                c.tofile(self.file)
            self.chunks, self.packed_bytes = [], 0

    def widen(self, column, chars):
        """Let the string column `column` hold `chars` characters from now on: rows packed so far (in
        memory or in the spill file) are converted, field by field."""
        dtype = np.dtype([(n, f"<U{chars}" if n == column else self.dtype.fields[n][0]) for n in self.dtype.names])
        self.chunks = [c.astype(dtype) for c in self.chunks]
        self.packed_bytes = sum(c.nbytes for c in self.chunks)
        if self.file is not None:
            self.file.close()
            rows = np.fromfile(self.path, dtype=self.dtype).astype(dtype)
            self.file = open(self.path, "wb")
            rows.tofile(self.file)
        self.dtype = dtype

    def finish(self):
        """The whole table: an array in memory, or the spill file mapped (and the file removed)."""
        if self.pending:
            self.pack()
        if self.file is None:
            if not self.chunks:
                return np.zeros(0, dtype=self.dtype)
            table = self.chunks[0] if len(self.chunks) == 1 else np.concatenate(self.chunks)
            self.chunks = []
            return table
        self.file.close()
        table = np.memmap(self.path, dtype=self.dtype, mode="c", shape=(self.count,))
        try:
            os.remove(self.path)     # the mapping keeps the data
        except OSError:
            pass
        self.file = None
        return table


def _instructions(program):
    return [r.instruction for r in program.records]


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
