"""Compute units and their SIMDs: where waves issue instructions and wait for memory (timing).

`preset.compute_units` per GPU, each with `preset.simds_per_cu` SIMDs. A SIMD holds up to
`occupancy` resident waves (wave slots, limited by the kernel's vector registers) and issues one
instruction per cycle from any of them; a wave wider than the SIMD takes several passes
(wave64 on a 32-lane SIMD: 2). Each SIMD runs as one simpy process over *cohorts*: it takes as
many waves as it has free slots from the workgroup dispatcher, runs them through the kernel's
instruction path together, and takes the next cohort when they end. Inside a cohort:

    ALU (vector, scalar, branch)   max(waves * issue cycles * passes, latency) per instruction:
                                   waves interleave, so dependent latency hides behind the others
    s_load                         data returns scalar_latency_cycles later
    buffer_load / buffer_store     one issue pass per wave, then the cohort's lines go through the
                                   CU memory pipeline, which keeps at most
                                   max_lines_in_flight_per_cu lines outstanding (shared by the CU's
                                   SIMDs), to the memory system
    s_waitcnt                      waits until the cohort's loads (and scalar loads) have returned
    s_endpgm                       the cohort ends; stores may still be in flight

This is the representation that avoids one Python process per wave: a 16M-element dispatch is a
few thousand cohorts per SIMD, each a handful of simpy events.
"""
import heapq

from dmlemu.isa import opcodes as op

_VECTOR_UNITS = (op.VALU,)


class PathCost:
    """A control-flow path of a kernel, cut into segments the SIMD times as a whole.

    Segments: ("alu", ((issue, latency), ...), first pc, last pc), ("smem", pc),
    ("load" | "store", pc), ("wait", pc). Instruction indices let traces name what ran when.
    """

    def __init__(self, program, path, passes):
        self.segments = []
        alu, first = [], None

        def flush(last):
            nonlocal alu, first
            if alu:
                self.segments.append(("alu", tuple(alu), first, last))
            alu, first = [], None

        previous = None
        for pc in path:
            entry = program.records[pc][1]
            kind = entry.kind
            if kind in ("load", "store"):
                flush(previous)
                self.segments.append((kind, pc))
            elif kind == "smem":
                if first is None:
                    first = pc
                alu.append((entry.issue_cycles, 1))
                flush(pc)
                self.segments.append(("smem", pc))
            elif kind == "nop" and entry.mnemonic == "s_waitcnt":
                flush(previous)
                self.segments.append(("wait", pc))
            elif kind == "end":
                break
            else:
                if first is None:
                    first = pc
                p = passes if entry.unit in _VECTOR_UNITS else 1
                alu.append((entry.issue_cycles * p, entry.latency_cycles))
            previous = pc
        flush(previous)
        self._alu_cache = {}
        self._schedules = {}

    def schedule(self, waves, passes, scalar_latency):
        """The path for a cohort of `waves`, compiled to a tuple of steps (cached per size):
        ("t", cycles, first pc, last pc) an ALU segment moves the cohort clock; ("s", latency) a
        scalar load returns after latency; ("w",) s_waitcnt; ("m", pc, issue cycles, is_write) a
        vector memory instruction. Also the busy cycles the cohort charges its SIMD."""
        key = (waves, passes, scalar_latency)
        cached = self._schedules.get(key)
        if cached is not None:
            return cached
        steps, busy = [], 0
        for segment in self.segments:
            kind = segment[0]
            if kind == "alu":
                cycles = self.alu_cycles(segment[1], waves)
                busy += cycles
                steps.append(("t", cycles, segment[2], segment[3]))
            elif kind == "smem":
                steps.append(("s", scalar_latency))
            elif kind == "wait":
                steps.append(("w",))
            else:
                issue = waves * passes
                busy += issue
                steps.append(("m", segment[1], issue, kind == "store"))
        cached = (tuple(steps), busy)
        self._schedules[key] = cached
        return cached

    def alu_cycles(self, costs, waves):
        key = (costs, waves)
        cycles = self._alu_cache.get(key)
        if cycles is None:
            cycles = sum(max(waves * issue, latency) for issue, latency in costs)
            self._alu_cache[key] = cycles
        return cycles


class ComputeUnit:
    """One compute unit: its SIMDs and the memory pipeline they share."""

    def __init__(self, index, preset, memory_system):
        self.index = index
        self.memory = memory_system
        self.capacity = preset.max_lines_in_flight_per_cu
        # A blocked request waits for a quarter of the pipeline to retire (docs/DEVIATIONS.md).
        self.chunk = max(2, self.capacity // 4)
        self.line_bytes = preset.line_bytes
        self.in_flight = []        # heap of (completion cycle, lines)
        self.lines_in_flight = 0

    def retire(self, now):
        heap = self.in_flight
        while heap and heap[0][0] <= now:
            self.lines_in_flight -= heapq.heappop(heap)[1]

    def try_issue(self, now, dram_bytes, l2_bytes, is_write):
        """Send a request at once if the pipeline has room: its completion cycle, else None."""
        lines = max(1, -(-(dram_bytes + l2_bytes) // self.line_bytes))
        heap = self.in_flight
        while heap and heap[0][0] <= now:
            self.lines_in_flight -= heapq.heappop(heap)[1]
        if self.lines_in_flight + lines > self.capacity:
            return None
        return self.send(now, dram_bytes, l2_bytes, is_write, lines)

    def send(self, now, dram_bytes, l2_bytes, is_write, lines):
        """Put `lines` lines of a request in flight now; returns their completion cycle."""
        done = self.memory.request(now, dram_bytes, l2_bytes, is_write)
        heapq.heappush(self.in_flight, (done, lines))
        self.lines_in_flight += lines
        return done

    def time_until_free(self, needed):
        """Cycle at which at least `needed` more lines will have retired."""
        freed = 0
        for done, n in sorted(self.in_flight):
            freed += n
            if freed >= needed:
                return done
        return self.in_flight[-1][0]


class Simd:
    """One SIMD of a compute unit: a simpy process that runs cohorts of resident waves."""

    def __init__(self, cu, index, slots, dispatch):
        self.cu = cu
        self.index = index
        self.slots = slots
        self.dispatch = dispatch      # the DispatchSimulation this SIMD works for
        self.busy_cycles = 0
        self.last_store = 0

    def run(self, env):
        d = self.dispatch
        recorder = d.recorder
        while True:
            work = d.take_waves(env.now, self.slots)
            if work is None:
                return
            start_at, first, count = work
            if start_at > env.now:
                yield env.timeout(start_at - env.now)
            for path_id, path_first, waves in d.split_by_path(first, count):
                begin, busy = env.now, self.busy_cycles
                yield from self._run_cohort(env, d, d.path_costs[path_id], waves, path_first)
                if recorder is not None:
                    recorder.wave_group(self.cu.index, self.index, path_first, waves, begin, env.now,
                                        self.busy_cycles - busy)

    def _run_cohort(self, env, d, cost, waves, first_wave):
        """Time one cohort of `waves` waves through one path.

        Speed trick: the cohort keeps its own clock `t` and yields to simpy only when it must
        meet the rest of the GPU at the right time: right before each memory request (the CU
        pipeline and the DRAM are shared) and when it ends. ALU runs, scalar-load latency and
        s_waitcnt only move `t`, so a cohort costs about one simpy event per memory instruction
        however many instructions the kernel has.
        """
        steps, busy = cost.schedule(waves, d.passes, d.scalar_latency)
        self.busy_cycles += busy
        recorder = d.recorder
        segments = recorder is not None and recorder.level >= 2
        memory = recorder is not None and recorder.level >= 3
        cu = self.cu
        t = pending = env.now
        for step in steps:
            op = step[0]
            if op == "t":
                if segments:
                    recorder.segment(cu.index, self.index, first_wave, waves, step[2], step[3], t, t + step[1])
                t += step[1]
            elif op == "s":
                if t + step[1] > pending:
                    pending = t + step[1]
            elif op == "w":
                if pending > t:
                    t = pending
            else:
                pc, issue, is_write = step[1], step[2], step[3]
                t += issue
                yield env.timeout(t - env.now)
                total, dram_bytes = d.cohort_bytes(pc, waves)
                l2_bytes = total - dram_bytes if total > dram_bytes else 0
                done = cu.try_issue(t, dram_bytes, l2_bytes, is_write)
                if done is None:
                    # The CU pipeline is full: send the request in chunks as lines retire.
                    lines = max(1, -(-(dram_bytes + l2_bytes) // cu.line_bytes))
                    sent, done = 0, t
                    while sent < lines:
                        now = env.now
                        cu.retire(now)
                        free = cu.capacity - cu.lines_in_flight
                        want = min(lines - sent, cu.chunk)
                        if free < want:
                            yield env.timeout(cu.time_until_free(want - free) - now)
                            continue
                        n = min(free, lines - sent)
                        piece = cu.send(now, dram_bytes * (sent + n) // lines - dram_bytes * sent // lines,
                                        l2_bytes * (sent + n) // lines - l2_bytes * sent // lines, is_write, n)
                        done = max(done, piece)
                        sent += n
                if segments:
                    recorder.segment(cu.index, self.index, first_wave, waves, pc, pc, t - issue, t)
                if memory:
                    recorder.memory(cu.index, self.index, pc, t, done, total, dram_bytes, is_write)
                t = env.now
                if is_write:
                    if done > self.last_store:
                        self.last_store = done
                elif done > pending:
                    pending = done
        if t > env.now:
            yield env.timeout(t - env.now)
