"""A kernel's control-flow path as the SIMD times it: steps derived from the ISA table (timing).

One PathCost per distinct path of a dispatch (most dispatches have one or two). The path's
instructions are cut into steps, each read from the opcode table by `kind` and `unit` (never by
mnemonic), with the issue and latency cycles the table gives:

    ALU step   a run of ALU, compare, branch and s_nop instructions: the cohort clock moves by
               max(waves * issue * passes, latency) per instruction (waves interleave, so a
               dependent latency hides behind the other waves); a VALU instruction's issue is its
               rate class's cycles on the preset (fp64, int32_mul, ...: valu_rate_cycles) or the
               table's; s_nop idles imm + 1 cycles. Of those cycles only the issue (waves x issue per
               instruction: `issue`) holds the SIMD's issue port; the rest are the cohort's dependency
               stalls, which the SIMD's other slot group fills (simd.py)
    SMEM step  a scalar load: data returns the table's SMEM latency (scaled by the preset's
               smem_latency_percent) later
    WAIT step  s_waitcnt imm: wait until at most imm loads of the wave are outstanding
    VMEM step  a buffer load, store or atomic: one issue pass per wave, then the memory hierarchy
               (is_write: LOAD, STORE, ATOMIC or ATOMIC_RETURN; atomics also pass the L2's atomic units)
    LDS step   an LDS read, write or atomic (ds_*), or an LDS-crossbar permute (ds_swizzle / ds_permute /
               ds_bpermute): one issue pass per wave, then the CU's LDS pipe for the cohort's
               bank-conflict passes (a permute: one pass per wave), then `lds_latency` to the data; reads
               and atomics with return count as outstanding loads for s_waitcnt (GCN's lgkmcnt)
    BARRIER    s_barrier: the cohort's waves wait for its workgroups' last wave, then `barrier_cycles`

Dual issue (RDNA3, preset.valu_dual_issue): the rule modelled is VOPD's. Two consecutive VALU
instructions of a wave issue together, as one V_DUAL_* instruction a compiler would have formed, when
the first may be VOPD's OpX and the second its OpY (the opcode table's `dual_issue`: FP32 add, sub,
mul, min, max, FMA as FMAC, v_mov_b32; OpY also v_add_u32), the second neither reads nor writes the
first's destination, their destinations are one even and one odd VGPR, and their first and second
vector sources are not in the same VGPR bank (register mod 4) unless they are the same register
(AMD "RDNA3" Instruction Set Architecture Reference Guide, 2023, section VOPD). The pair costs one
instruction's issue and latency. A wave64 instruction that may dual issue takes one pass on a 32-lane
SIMD instead of two (RDNA3 issues both halves together: Chips and Cheese, "Microbenchmarking AMD's
RDNA 3 Graphics Architecture", 2023; VOPD's OpX operations, not the OpY-only integer ones).
Literal-constant limits of VOPD are not checked (an estimate).

Schedules are compiled per cohort size and cached, so a cohort walks a tuple of named records.
"""
from typing import NamedTuple

from dmlemu.dispatch_record import access_slot
from dmlemu.isa import opcodes as op
from dmlemu.isa.operands import VGPR_BASE

ALU, SMEM, WAIT, VMEM, LDS, BARRIER = range(6)   # step kinds
LOAD, STORE, ATOMIC, ATOMIC_RETURN = range(4)     # a VMEM or LDS step's is_write field
PERMUTE_SLOT = -1                                 # an LDS step with no LdsRows: one pass per wave
LDS_KINDS = ("lds_load", "lds_store", "lds_atomic", "lds_permute")
COOPERATIVE_KINDS = LDS_KINDS + ("barrier",)      # a kernel with any keeps each workgroup on one CU


def cooperative(program, lds_bytes=0):
    """Whether a kernel's workgroups cooperate (LDS or s_barrier): then the timing model keeps each
    workgroup's waves together (workgroup_dispatcher.py, simd.py)."""
    return lds_bytes > 0 or any(r.entry.kind in COOPERATIVE_KINDS for r in program.records)


def issue_cycles_per_wave(entry, passes, rate_cycles):
    """Issue cycles one wave spends on its SIMD's issue port for one execution of the instruction whose
    opcode-table entry is `entry`: a VALU instruction its rate class's cycles on the preset (or the table's)
    per pass, a vector memory instruction one issue per pass, the rest the table's issue cycles; s_waitcnt
    and s_endpgm none. `passes`: passes of a wave over its SIMD (wave64 on 32 lanes: 2); `rate_cycles`:
    preset.rate_cycles(). PathCost charges this; the trace's per-instruction issue cycles read it."""
    kind = entry.kind
    if kind in ("wait", "end"):
        return 0
    if kind in ("load", "store", "atomic") or kind in LDS_KINDS:
        return entry.issue_cycles * passes
    if entry.unit == op.VALU:
        return rate_cycles.get(entry.rate_class, entry.issue_cycles) * passes
    return entry.issue_cycles


def dual_issue(first, second):
    """Whether instruction record `second` issues together with `first`, just before it, under
    VOPD's pairing rule (see the banner)."""
    if first.entry.dual_issue != "xy" or not second.entry.dual_issue:
        return False
    for record in (first, second):
        operands = record.operands
        if operands[0].code < VGPR_BASE:
            return False
        if len(operands) == 4 and operands[3].code != operands[0].code:   # an FMA pairs only as FMAC
            return False
    d1, d2 = first.operands[0].code, second.operands[0].code
    if (d1 - d2) % 2 == 0:                     # one even, one odd destination
        return False
    if any(o.code == d1 for o in second.operands[1:]) or any(o.code == d2 for o in first.operands[1:]):
        return False                           # dependent (or anti-dependent): not one instruction
    for a, b in zip(first.operands[1:3], second.operands[1:3]):
        if a.code >= VGPR_BASE and b.code >= VGPR_BASE and a.code != b.code and (a.code - b.code) % 4 == 0:
            return False                       # the same VGPR bank, different registers
    return True


class Step(NamedTuple):
    """One step of a compiled schedule (see the module banner)."""
    kind: int            # ALU, SMEM, WAIT, VMEM, LDS or BARRIER
    cycles: int          # ALU: cycles; SMEM: latency; WAIT: loads allowed outstanding; VMEM, LDS: issue;
                         # BARRIER: the barrier's cycles
    first_pc: int        # first instruction of the step
    last_pc: int         # last instruction (ALU runs span several)
    is_write: int = LOAD  # VMEM, LDS: LOAD, STORE, ATOMIC or ATOMIC_RETURN
    latency: int = 0     # VMEM: pipeline latency to the cache front end; LDS: to the data
    slot: int = 0        # VMEM, LDS: the access slot whose sectors (bank passes) it moves (the
                         # instruction's k-th run on the path: dispatch_record.access_slot), so each trip
                         # of a loop is charged its own; an LDS permute: PERMUTE_SLOT
    issue: int = 0       # ALU: the cycles of `cycles` that hold the issue port (the rest are stalls)


def access_places(path_costs):
    """Each vector memory access slot's first place in any of `path_costs` (PathCosts of one dispatch's paths): the
    order the caches take a wave's slots in (caches.execution_order)."""
    places = {}
    for cost in path_costs:
        for slot, place in cost.access_places.items():
            if place < places.get(slot, place + 1):
                places[slot] = place
    return places


class PathCost:
    """A control-flow path of a kernel, cut into the steps the SIMD times as a whole."""

    def __init__(self, program, path, passes, smem_latency_percent, rate_cycles=None, lds_latency=0,
                 barrier_cycles=0, dual=False):
        rates = rate_cycles or {}
        # The path cut at its memory, scalar, wait and barrier instructions: ("alu", ((issue, latency), ...), first pc,
        # last pc) for an ALU run, else a ready Step (schedule reads them; so does the per-wave reference oracle).
        self.segments = []
        alu, first = [], None
        previous = None

        def flush(last):
            nonlocal alu, first
            if alu:
                self.segments.append(("alu", tuple(alu), first, last))
            alu, first = [], None

        visits = {}              # pc -> memory instruction runs so far on the path
        # Each vector memory access slot's first place in the path (an index into it): access_places.
        self.access_places = {}
        paired = None            # dual issue: the last ALU instruction of the run, while it may lead a pair
        for place, pc in enumerate(path):
            instruction = program.records[pc]
            entry, operands = instruction.entry, instruction.operands
            kind = entry.kind
            if kind in ("load", "store", "atomic") or kind in LDS_KINDS:
                flush(previous)
                visit = visits.get(pc, 0)
                visits[pc] = visit + 1
                slot = access_slot(pc, visit, len(program.records))
                if kind in ("load", "lds_load", "lds_permute"):
                    access = LOAD
                elif kind in ("store", "lds_store"):
                    access = STORE
                else:
                    access = ATOMIC_RETURN if entry.returns else ATOMIC
                if kind in LDS_KINDS:
                    self.segments.append(Step(LDS, issue_cycles_per_wave(entry, passes, rates), pc, pc, access,
                                               lds_latency, PERMUTE_SLOT if kind == "lds_permute" else slot))
                else:
                    self.access_places.setdefault(slot, place)
                    self.segments.append(Step(VMEM, issue_cycles_per_wave(entry, passes, rates), pc, pc, access,
                                               entry.latency_cycles, slot))
            elif kind == "barrier":
                flush(previous)
                self.segments.append(Step(BARRIER, barrier_cycles, pc, pc))
            elif kind == "smem":
                flush(previous)
                self.segments.append(("alu", ((issue_cycles_per_wave(entry, passes, rates), 1),), pc, pc))
                self.segments.append(Step(SMEM, entry.latency_cycles * smem_latency_percent // 100, pc, pc))
            elif kind == "wait":
                flush(previous)
                self.segments.append(Step(WAIT, int(operands[0]), pc, pc))
            elif kind == "end":
                break
            else:
                if first is None:
                    first = pc
                issue = issue_cycles_per_wave(entry, passes, rates)
                if dual and entry.dual_issue and entry.unit == op.VALU:
                    if passes > 1:                 # VOPD is wave32 only; a wave64 FP32 (or move) op
                        if entry.dual_issue == "xy":   # issues both halves at once
                            issue = issue_cycles_per_wave(entry, 1, rates)
                    elif paired is not None and previous == paired.pc and dual_issue(paired, instruction):
                        paired = None              # issues with the one before: no cycles of its own
                        previous = pc
                        continue
                    else:
                        paired = instruction
                else:
                    paired = None
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
        for segment in self.segments:
            if isinstance(segment, Step):
                if segment.kind == VMEM or segment.kind == LDS:
                    segment = segment._replace(cycles=segment.cycles * waves)
                    busy += segment.cycles
                steps.append(segment)
            else:
                _, costs, first, last = segment
                cycles = sum(max(waves * issue, latency) for issue, latency in costs)
                busy += cycles
                steps.append(Step(ALU, cycles, first, last, issue=sum(waves * issue for issue, _ in costs)))
        cached = (tuple(steps), busy)
        self._schedules[waves] = cached
        return cached
