"""A kernel's control-flow path as the SIMD times it: steps derived from the ISA table (timing).

One PathCost per distinct path of a dispatch (most dispatches have one or two). The path's
instructions are cut into steps, each read from the opcode table by `kind` and `unit` (never by
mnemonic), with the issue and latency cycles the table gives:

    ALU step   a run of ALU, compare, branch and s_nop instructions: the cohort clock moves by
               max(waves * issue * passes, latency) per instruction (waves interleave, so a
               dependent latency hides behind the other waves); a VALU instruction's issue is its
               rate class's cycles on the preset (fp64, int32_mul, ...: valu_rate_cycles) or the
               table's; s_nop idles imm + 1 cycles
    SMEM step  a scalar load: data returns the table's SMEM latency (scaled by the preset's
               smem_latency_percent) later
    WAIT step  s_waitcnt imm: wait until at most imm loads of the wave are outstanding
    VMEM step  a buffer load or store: one issue pass per wave, then the memory hierarchy

Schedules are compiled per cohort size and cached, so a cohort walks a tuple of named records.
"""
from typing import NamedTuple

from dmlemu.dispatch_record import access_slot
from dmlemu.isa import opcodes as op

ALU, SMEM, WAIT, VMEM = range(4)   # step kinds, in the order the SIMD tests them


def issue_cycles_per_wave(entry, passes, rate_cycles):
    """Issue cycles one wave spends on its SIMD's issue port for one execution of the instruction whose
    opcode-table entry is `entry`: a VALU instruction its rate class's cycles on the preset (or the table's)
    per pass, a vector memory instruction one issue per pass, the rest the table's issue cycles; s_waitcnt
    and s_endpgm none. `passes`: passes of a wave over its SIMD (wave64 on 32 lanes: 2); `rate_cycles`:
    preset.rate_cycles(). PathCost charges this; the trace's per-instruction issue cycles read it."""
    kind = entry.kind
    if kind in ("wait", "end"):
        return 0
    if kind in ("load", "store", "atomic"):
        return entry.issue_cycles * passes
    if entry.unit == op.VALU:
        return rate_cycles.get(entry.rate_class, entry.issue_cycles) * passes
    return entry.issue_cycles


class Step(NamedTuple):
    """One step of a compiled schedule (see the module banner)."""
    kind: int            # ALU, SMEM, WAIT or VMEM
    cycles: int          # ALU: cycles; SMEM: latency; WAIT: loads allowed outstanding; VMEM: issue
    first_pc: int        # first instruction of the step
    last_pc: int         # last instruction (ALU runs span several)
    is_write: bool = False
    latency: int = 0     # VMEM: pipeline latency to the cache front end
    slot: int = 0        # VMEM: the access slot whose sectors it moves (the instruction's k-th run on
                         # the path: dispatch_record.access_slot), so each trip of a loop is charged its own


class PathCost:
    """A control-flow path of a kernel, cut into the steps the SIMD times as a whole."""

    def __init__(self, program, path, passes, smem_latency_percent, rate_cycles=None):
        rates = rate_cycles or {}
        self._segments = []      # ("alu", ((issue, latency), ...), first, last) or a ready Step
        alu, first = [], None
        previous = None

        def flush(last):
            nonlocal alu, first
            if alu:
                self._segments.append(("alu", tuple(alu), first, last))
            alu, first = [], None

        visits = {}              # pc -> memory instruction runs so far on the path
        for pc in path:
            instruction = program.records[pc]
            entry, operands = instruction.entry, instruction.operands
            kind = entry.kind
            if kind in ("load", "store", "atomic"):
                flush(previous)
                visit = visits.get(pc, 0)
                visits[pc] = visit + 1
                self._segments.append(Step(VMEM, issue_cycles_per_wave(entry, passes, rates), pc, pc, kind != "load",
                                           entry.latency_cycles, access_slot(pc, visit, len(program.records))))
            elif kind == "smem":
                flush(previous)
                self._segments.append(("alu", ((issue_cycles_per_wave(entry, passes, rates), 1),), pc, pc))
                self._segments.append(Step(SMEM, entry.latency_cycles * smem_latency_percent // 100, pc, pc))
            elif kind == "wait":
                flush(previous)
                self._segments.append(Step(WAIT, int(operands[0]), pc, pc))
            elif kind == "end":
                break
            else:
                if first is None:
                    first = pc
                issue = issue_cycles_per_wave(entry, passes, rates)
                if kind == "idle":
                    # The wave idles imm + 1 cycles; the cohort's other waves may issue meanwhile.
                    alu.append((issue, int(operands[0]) + 1))
                else:
                    alu.append((issue, entry.latency_cycles))
            previous = pc
        flush(previous)
        self._schedules = {}

    def schedule(self, waves):
        """The steps for a cohort of `waves` waves (cached per size) and the busy cycles the cohort
        charges its SIMD."""
        cached = self._schedules.get(waves)
        if cached is not None:
            return cached
        steps, busy = [], 0
        for segment in self._segments:
            if isinstance(segment, Step):
                if segment.kind == VMEM:
                    segment = segment._replace(cycles=segment.cycles * waves)
                    busy += segment.cycles
                steps.append(segment)
            else:
                _, costs, first, last = segment
                cycles = sum(max(waves * issue, latency) for issue, latency in costs)
                busy += cycles
                steps.append(Step(ALU, cycles, first, last))
        cached = (tuple(steps), busy)
        self._schedules[waves] = cached
        return cached
