"""Stepping one wave through a kernel, instruction by instruction: the library behind `dmlemu step`.

For learners. The operator's kernel is compiled and launched as for a real dispatch (descriptor
table, constant buffer, tensors in device memory; dmlemu.direct_run, without the API mirror's
validation), then ONE wave of it runs on the fast executor's own handlers
(`dmlemu.functional.executor.step` on a `WaveBatch` of one wave): no third executor. Between instructions
the wave's registers are compared, and each `Step` records the instruction text, the EXEC mask it
ran under and every register it changed, lane by lane. `format_step` draws a step as a small
terminal table; narrow waves (8 lanes by default) fit a screen.

Values print by the type the instruction gives them: floats as floats, u/i types in decimal, raw
b32/b64 bits in decimal below 2^20 and in hexadecimal above (addresses, descriptors, bit patterns);
buffer loads print as the tensor's element type.

A user's compute shader steps the same way (`KernelStepper`, `dmlemu step --kernel FILE.s`): its
source is assembled into a compute shader binary, given buffers and root constants, and launched
under the kernel ABI of docs/KERNEL_ABI.md (emulator/d3d12/pipeline_state.ComputeShader.launch).

The memory hierarchy: under each buffer load and store, what the wave asked of the caches (a
`WaveTraffic`): the bytes its lanes asked for, the distinct sectors and cache lines the coalescer
made of them (the first line addresses in hex), and how many of those sectors hit the L2, hit
the Infinity Cache (presets that have one) or went to DRAM. These come from a timed run of the
same dispatch on a fresh GPU of the same preset and wave width (`timed_stats()`, run on first
use): the caches see the dispatch's waves in order, so earlier waves warm them for later ones.
The functional step itself never depends on it.

Workgroups that cooperate (docs/WORKGROUPS.md): the stepped wave's workgroup gets its LDS
(`KernelLaunch.lds_bytes`, a LocalDataShare), and under each ds_* instruction the stepper shows
each lane's LDS byte address and bank (dword d is in bank d mod B, B = the preset's `lds_banks`, 32
when it says none), the bank-conflict passes (the most distinct dwords one bank must serve; lanes
reading the same dword share it, a broadcast), the LDS bytes the instruction changed, and lanes that
read LDS bytes no wave of the workgroup has written yet. The executor returns at an s_barrier
without waiting; the stepper does the waiting:
  - one wave (`--wave N`): when it reaches an s_barrier, the other waves of its workgroup run unseen
    (in wave order), each to its next barrier or its end, so that what they write to LDS before the
    barrier is there; then the barrier opens and the stepped wave goes on;
  - a whole workgroup (`--workgroup N`, `workgroup_steps()`): every wave is shown, in issue order:
    round-robin in wave order, each wave running to its next s_barrier or its end, then the next
    wave; when every wave that has not ended has arrived, the barrier opens and the round starts
    again from the first wave. At each s_barrier the step says which waves have arrived.

Operators that are not element-wise (GEMM, REDUCE, the poolings, ...: tools/operators.py builds their
descs too) have no lane-to-element map: the header prints the inputs whole, and the footer checks every
output of the whole dispatch, run functionally on a fresh GPU (`whole_outputs`), against dmlemu.golden.
"""
from dataclasses import dataclass, field

import numpy as np

from dmlemu import golden
from dmlemu.data_types import DATA_TYPES
from dmlemu.direct_run import DirectRun
from dmlemu.dispatch_record import bank_passes
from dmlemu.functional.executor import ExecutionStats, step
from dmlemu.functional.local_data_share import LocalDataShare
from dmlemu.isa.program import KernelFault
from dmlemu.gpu import Gpu
from dmlemu.isa import opcodes as op
from dmlemu.isa.operands import EXEC_LO, NUM_SGPRS, VCC_LO, format_operand
from dmlemu.timing.caches import TRAFFIC_FIELDS

from dmlemu.tools.operators import (UsageError, bound_specs, describe, format_array, golden_outputs, operator_info,
                                    parse_data_type, preset_for, same_bits, validate)

__all__ = ["Change", "Step", "WaveTraffic", "LdsAccess", "WaveStepper", "lane_string", "format_step", "format_header", "format_footer"]

_FLOAT_TYPES = {"f16": np.float16, "f32": np.float32, "f64": np.float64}


def lane_string(mask):
    """A lane mask as '11111100' (lane 0 first)."""
    return "".join("1" if b else "0" for b in np.asarray(mask).reshape(-1))


@dataclass
class Change:
    """One register (or register group) an instruction changed."""
    name: str
    lanes: list | None = None     # vector registers: one text per lane ('-' where EXEC was off)
    value: str | None = None      # scalar registers and masks: one text


@dataclass
class WaveTraffic:
    """What one buffer load or store of the stepped wave asked of the memory hierarchy."""
    write: bool
    lanes: int                    # lanes that ran the instruction (EXEC)
    element_bytes: int            # bytes each lane asks for
    sectors: int                  # distinct sectors the wave's lanes touched (requests to the L2)
    line_addresses: list          # byte addresses of the distinct cache lines, ascending
    sector_bytes: int
    line_bytes: int
    l2_hits: int                  # sectors found in the L2 (for a store: already resident)
    ic_hits: int                  # sectors that missed the L2 and hit the Infinity Cache
    dram_reads: int               # sectors read from DRAM
    infinity_cache: bool          # the preset has an Infinity Cache
    executions: int = 1           # times the wave ran this instruction (the counts cover them all)
    shown_at: int | None = None   # a repeat: the step number whose lines show the counts
    l0_hits: int = 0              # sectors its CU's L0 served (no L2 trip: timing/cu_caches.py)
    l1_hits: int = 0              # sectors its shader array's L1 served (RDNA; no L2 trip either)


@dataclass
class LdsAccess:
    """What one ds_* instruction of a wave did to its workgroup's LDS."""
    write: bool                   # a store or an atomic (the LDS may change)
    lanes: int                    # lanes that accessed LDS (EXEC and inside the workgroup's LDS)
    access_bytes: int             # bytes per lane
    banks: int                    # LDS banks (the preset's lds_banks)
    passes: int                   # bank-conflict passes: the most distinct dwords one bank serves
    busiest_bank: int | None      # a bank that needs `passes` passes (None: no lane accessed)
    busiest_dwords: list          # the distinct dword addresses that bank serves
    distinct_dwords: int          # distinct dwords the lanes accessed (ceil(this / banks): the fewest passes)
    broadcast_lanes: int          # lanes that read or wrote a dword another lane also accessed
    written_bytes: int = 0        # stores and atomics: distinct LDS bytes the lanes wrote
    written_range: tuple | None = None   # (first, last) byte written
    changed_bytes: int = 0        # LDS bytes whose value the instruction changed
    changed_range: tuple | None = None   # (first, last) changed byte
    unwritten_lanes: int = 0      # lanes that read LDS bytes no wave of the workgroup had written
    out_of_range: int = 0         # active lanes past the workgroup's LDS (reads give 0, writes dropped)
    lds_bytes: int = 0            # the workgroup's LDS size


@dataclass
class Step:
    number: int                   # 1 for the first instruction the wave executed
    address: int                  # dword address of the instruction
    text: str                     # its assembly text
    exec_mask: str                # the EXEC mask it executed under
    changes: list = field(default_factory=list)
    ended: bool = False           # s_endpgm
    traffic: WaveTraffic | None = None   # buffer loads and stores: what the wave asked of the caches
    wave: int = 0                 # the wave that executed it (a dispatch-wide wave index)
    lds: LdsAccess | None = None  # ds_* instructions: addresses, banks, conflicts, bytes changed
    barrier: str | None = None    # s_barrier: which waves of the workgroup have arrived
    banner: str | None = None     # a line before the step: a wave of the workgroup starts a run
    cycle: int | None = None      # when it issued in the timed run, cycles after the dispatch started (_WaveClock)


def _format_value(value, type_name):
    if type_name in _FLOAT_TYPES:
        v = _FLOAT_TYPES[type_name](value)
        return "nan" if np.isnan(v) else str(v)
    if type_name and type_name[0] in "ui":
        return str(int(value))
    v = int(value)
    return str(v) if v < (1 << 20) else f"0x{v:x}"


class WaveStepper:
    """One wave of an operator's kernel, ready to run instruction by instruction."""

    def __init__(self, run, inputs, *, width=8, wave=0, adapter="teaching"):
        self.run = run
        self.inputs = inputs
        self.preset = preset_for(adapter)
        validate(run, self.preset.key)   # the mirror's own checks first: the same errors as the API
        self.width = width
        self.gpu = Gpu(self.preset, wave_width=width, timing=False)
        self._timed = None
        self.specs, self._buffers = bound_specs(run, inputs)   # binding order; a tensor left out: None
        self.direct = self._direct_run(self.gpu)
        self.launch = self.direct.launch()
        per_group = self._pick_wave(wave)
        self.first_element = self.workgroup * self.launch.workgroup_size + (wave % per_group) * width
        self._instruction_texts()
        self.element_type = DATA_TYPES[run.data_type]

    def _direct_run(self, gpu):
        run = self.run
        info = operator_info(run, self.preset)   # the attributes as CreateOperator validates them
        scale_bias = None if info.scale_bias is None else tuple(float(v) for v in info.scale_bias)
        return DirectRun(gpu, run.name, self.specs, self._buffers, attributes=info.attributes,
                         scale_bias=scale_bias, half_precision=run.half_precision(self.preset))

    def _pick_wave(self, wave):
        """Choose the stepped wave of `self.launch` and form its batch; returns waves per workgroup."""
        self.program = self.launch.program
        per_group = self.gpu.dispatcher.waves_per_workgroup(self.launch.workgroup_size)
        self.total_waves = self.launch.num_workgroups * per_group
        if not 0 <= wave < self.total_waves:
            raise UsageError(f"wave {wave} does not exist: the dispatch has {self.total_waves} waves "
                             f"(0 to {self.total_waves - 1}) of {self.width} lanes")
        self.wave = wave
        self.workgroup = wave // per_group
        self.batch = self.gpu.dispatcher.form_batch(self.launch, wave, 1)
        return per_group

    def _instruction_texts(self):
        """The program's instruction texts, branch targets as labels L<addr> (both steppers)."""
        self.texts = [r.text for r in self.program.records]

    # ---- running ------------------------------------------------------------------------------
    def steps(self):
        """Yield one Step per instruction the stepped wave executes, until s_endpgm (at an s_barrier,
        the other waves of its workgroup run unseen to theirs)."""
        return self._run(all_waves=False)

    def workgroup_steps(self):
        """Yield one Step per instruction of every wave of the stepped wave's workgroup, in issue order:
        round-robin, each wave to its next s_barrier or its end (the module banner)."""
        return self._run(all_waves=True)

    def select_workgroup(self, workgroup):
        """Step workgroup `workgroup` (workgroup_steps() shows all its waves): its first wave is picked."""
        per_group = self.gpu.dispatcher.waves_per_workgroup(self.launch.workgroup_size)
        if not 0 <= workgroup < self.launch.num_workgroups:
            raise UsageError(f"workgroup {workgroup} does not exist: the dispatch has "
                             f"{_plural(self.launch.num_workgroups, 'workgroup')} (0 to {self.launch.num_workgroups - 1})")
        self._pick_wave(workgroup * per_group)

    def workgroup_waves(self):
        """The dispatch-wide indices of the waves of the stepped wave's workgroup."""
        per_group = self.gpu.dispatcher.waves_per_workgroup(self.launch.workgroup_size)
        return list(range(self.workgroup * per_group, (self.workgroup + 1) * per_group))

    def _run(self, all_waves):
        self.all_waves = all_waves
        self.__dict__.pop("_clocks", None)
        stats = ExecutionStats(len(self.program), self.program.name)
        size = self.launch.lds_bytes
        self.lds = LocalDataShare(size, self.workgroup, 1) if size else None
        group = self.workgroup_waves()
        order = group if all_waves else [self.wave] + [w for w in group if w != self.wave]
        batches, pcs = {self.wave: self.batch}, {}
        live, arrived, counter, shown = list(order), [], [0], {}
        stepped, main_batch = self.wave, self.batch
        try:
            while live:
                for w in list(live):
                    if w in arrived:
                        continue
                    if w not in batches:
                        batches[w] = self.gpu.dispatcher.form_batch(self.launch, w, 1)
                    visible = all_waves or w == stepped
                    self.batch, self.wave = batches[w], w
                    first = True
                    while True:
                        pc = pcs.get(w, 0)
                        entry = self.program.records[pc].entry
                        s, next_pc = self._execute(stats, pc, counter, shown, visible)
                        if entry.kind == "barrier":
                            arrived.append(w)
                            waiting = [v for v in live if v not in arrived]
                            if s is not None:
                                s.barrier = _barrier_text(w, arrived, waiting, group, live, all_waves, self.workgroup)
                        if next_pc is None:
                            live.remove(w)
                        else:
                            pcs[w] = next_pc
                        if visible:
                            if all_waves and first:
                                s.banner = (f"-- wave {w} (wave {group.index(w)} of workgroup {self.workgroup}) runs "
                                            f"to its next s_barrier or its end --")
                            first = False
                            yield s
                        if next_pc is None or entry.kind == "barrier":
                            break
                    if not all_waves and w == stepped and next_pc is None:
                        return
                if arrived:
                    self._check_one_barrier(arrived, pcs, group)
                    stats.barriers += 1
                arrived.clear()
        finally:
            self.batch, self.wave = main_batch, stepped

    def _check_one_barrier(self, arrived, pcs, group):
        """KernelFault when the arrived waves wait at different s_barrier instructions (a divergent
        barrier: a GPU hangs; the executor removes the device with the same sentence)."""
        at = {}
        for w in arrived:
            at.setdefault(pcs[w] - 1, []).append(group.index(w))
        if len(at) > 1:
            (first, a), (second, b) = sorted(at.items())[:2]
            text = lambda waves: (f"waves {', '.join(map(str, waves))} wait" if len(waves) > 1 else f"wave {waves[0]} waits")
            raise KernelFault(f"{self.program.name}: divergent barrier: in workgroup {self.workgroup}, {text(a)} at the "
                              f"s_barrier at instruction {first} while {text(b)} at the s_barrier at instruction "
                              f"{second}; every live wave of a workgroup must reach the same barrier")

    def _execute(self, stats, pc, counter, shown, visible):
        """Execute the instruction at `pc` for self.batch (wave self.wave); (Step, next pc)."""
        batch = self.batch
        if visible:
            counter[0] += 1
        number = counter[0]
        instruction = self.program.records[pc]
        entry, operands = instruction.entry, instruction.operands
        before = (list(batch.sgpr), list(batch.vgpr), batch.exec, batch.vcc, batch.scc)
        exec_mask = lane_string(batch.exec)
        stored = self._stored(entry, operands) if visible and entry.kind == "store" else None
        traffic = None
        if visible and entry.kind in ("load", "store"):
            traffic = self.wave_traffic(pc, exec_mask.count("1"), np.dtype(op.MEM_TYPES[entry.mem_type]).itemsize)
            key = (self.wave, pc)
            if traffic is not None and key in shown:
                traffic.shown_at = shown[key]
            shown.setdefault(key, number)
        lds_before = None
        if visible and entry.kind in _LDS_KINDS:
            lds_before = (None if self.lds is None else self.lds.data.copy(), stats.lds_unwritten_reads)
            access = self._lds_access(entry, operands)
        next_pc = step(self.program, batch, self.gpu.memory, stats, pc, self.lds)
        if not visible:
            return None, next_pc
        changes = self._changes(entry, operands, before)
        if stored is not None:
            changes.append(stored)
        s = Step(number, instruction.address, self.texts[pc], exec_mask, changes, next_pc is None, traffic, self.wave)
        s.cycle = self.cycle_of(self.wave, pc)
        if lds_before is not None:
            access, rows = access
            data, unwritten = lds_before
            if data is not None and access.write:
                diff = np.flatnonzero(data != self.lds.data)
                access.changed_bytes = int(diff.size)
                access.changed_range = (int(diff[0]), int(diff[-1])) if diff.size else None
            access.unwritten_lanes = stats.lds_unwritten_reads - unwritten
            s.lds = access
            s.changes = rows + s.changes
        return s, next_pc

    def _lds_access(self, entry, operands):
        """(LdsAccess without the after-effects, [Change rows 'lds addr' and 'bank']) of a ds_* instruction
        about to run for self.batch."""
        batch, width = self.batch, self.width
        if entry.kind == "lds_load":
            address, size, write = operands[1], np.dtype(op.MEM_TYPES[entry.mem_type]).itemsize * entry.mem_dwords, False
        elif entry.kind == "lds_store":
            address, size, write = operands[0], np.dtype(op.MEM_TYPES[entry.mem_type]).itemsize * entry.mem_dwords, True
        else:
            address, size, write = (operands[1] if entry.returns else operands[0]), 4, True
        offset = int(operands[-1])
        addresses = np.broadcast_to(np.asarray(batch.read(address, "u32"), dtype=np.int64),
                                    (1, width)).reshape(-1) + offset
        aligned = addresses & ~np.int64(size - 1)
        active = np.broadcast_to(batch.exec, (1, width)).reshape(-1).astype(bool)
        lds_size = self.launch.lds_bytes
        use = active & (aligned + size <= lds_size)
        banks = int(getattr(self.preset, "lds_banks", 32))
        per_lane = max(1, size // 4)
        dwords = (aligned >> 2)[:, None] + np.arange(per_lane, dtype=np.int64)
        dwords = np.where(use[:, None], dwords, -1)
        live = dwords[dwords >= 0]
        passes = int(bank_passes(dwords.reshape(1, -1), banks)[0]) if live.size else 0
        busiest, busiest_dwords = None, []
        if live.size:
            distinct = np.unique(live)
            per_bank = np.bincount(distinct % banks, minlength=banks)
            busiest = int(np.argmax(per_bank))
            busiest_dwords = [int(d) for d in distinct[distinct % banks == busiest]]
        _, counts = np.unique(live, return_counts=True)
        broadcast = int(counts[counts > 1].sum()) if size <= 4 else 0
        access = LdsAccess(write, int(use.sum()), size, banks, passes, busiest, busiest_dwords,
                           int(np.unique(live).size), broadcast,
                           out_of_range=int((active & ~use).sum()), lds_bytes=lds_size)
        if write and use.any():
            written = np.unique(aligned[use][:, None] + np.arange(size, dtype=np.int64))
            access.written_bytes, access.written_range = int(written.size), (int(written[0]), int(written[-1]))
        rows = [Change("lds addr", [str(int(a)) if u else ("oob" if act else "-")
                                    for a, u, act in zip(aligned, use, active)]),
                Change("bank", [str(int(a >> 2) % banks) if u else "-" for a, u in zip(aligned, use)])]
        return access, rows

    # ---- the memory hierarchy (a timed run of the same dispatch) ------------------------------------
    def timed_stats(self):
        """The ExecutionStats of the whole dispatch run with the timing model on a fresh GPU of the
        same preset and wave width (same memory layout, so the same addresses); run once."""
        if self._timed is None:
            from dmlemu.traces.capture import capture
            gpu = Gpu(self.preset, wave_width=self.width, timing=True)
            with capture(gpu, detail="instruction") as cap:
                self._timed = self._direct_run(gpu).dispatch()
            self.timed_trace = cap.trace
        return self._timed

    def cycle_of(self, wave, pc):
        """The cycle at which `wave` issued instruction `pc` in the timed run (its next execution of it:
        call in execution order); None where the trace has no segment for it (_WaveClock)."""
        clocks = self.__dict__.setdefault("_clocks", {})
        if wave not in clocks:
            self.timed_stats()
            clocks[wave] = _WaveClock(self.timed_trace, wave)
        return clocks[wave].at(pc)

    def wave_traffic(self, pc, lanes, element_bytes):
        """The stepped wave's WaveTraffic at instruction `pc` (None: not a vector memory instruction)."""
        stats = self.timed_stats()
        rows = stats.record.finish().get(pc)
        if rows is None:
            return None
        w, preset = self.wave, self.preset
        sectors = rows.sectors[rows.offsets[w]:rows.offsets[w + 1]]
        per_line = max(1, preset.line_bytes // preset.sector_bytes)
        lines = np.unique(sectors // per_line) * preset.line_bytes
        counts = dict(zip(TRAFFIC_FIELDS, stats.timing.traffic.cohort(pc, w, 1)))
        paths = {path_id: path for path, path_id in stats.record.paths.items()}
        executions = paths[int(stats.record.wave_path[w])].count(pc)
        return WaveTraffic(bool(rows.is_write), lanes, element_bytes, int(np.unique(sectors).size),
                           [int(a) for a in lines], preset.sector_bytes, preset.line_bytes, counts["l2_hits"],
                           counts["ic_hits"], counts["dram_reads"], bool(preset.infinity_cache_bytes),
                           max(1, executions), l0_hits=counts["l0_hits"], l1_hits=counts["l1_hits"])

    def _output_indices(self):
        """The binding indices of the outputs the run binds."""
        return [self.run.binding.index(f) for f in self.run.output_fields]

    def output(self):
        """The (first) output tensor as the device memory holds it now (only this wave has run)."""
        return self._gathered(self.direct, self._output_indices()[0])

    def whole_outputs(self):
        """Every output after the whole dispatch (every wave, every stage) ran functionally on a fresh GPU."""
        direct = self._direct_run(Gpu(self.preset, wave_width=self.width, timing=False))
        direct.dispatch()
        return [self._gathered(direct, index) for index in self._output_indices()]

    def _gathered(self, direct, index):
        """Tensor `index` (binding order) as `direct`'s device memory holds it."""
        spec = self.specs[index]
        return golden.gather(direct.output_bytes(index), 0, DATA_TYPES[spec.data_type], spec.sizes, spec.strides)

    def wave_elements(self):
        """Logical element indices this wave is responsible for (element-wise kernels: one per lane; other
        kernels have no such map: none)."""
        if not self.run.element_wise:
            return np.arange(0)
        count = int(np.prod(self.run.sizes))
        return np.arange(self.first_element, min(count, self.first_element + self.width))

    def expected(self, every=False):
        """The golden model's (first) output, or every output."""
        inputs = [np.asarray(a).reshape(s) for a, s in zip(self.inputs, self.run.tensor_sizes())]
        outputs = golden_outputs(self.run, inputs, self.preset)
        return outputs if every else outputs[0]

    # ---- what changed ---------------------------------------------------------------------------
    def _lanes(self, value, type_name, active):
        values = np.broadcast_to(np.asarray(value), (1, self.width)).reshape(-1)
        return [_format_value(v, type_name) if a else "-" for v, a in zip(values, active)]

    def _memory_type(self, entry):
        """How to print a loaded or stored element: as the tensor's type when the sizes match."""
        size = np.dtype(op.MEM_TYPES[entry.mem_type]).itemsize
        if self.element_type.itemsize == size:
            return _type_of(np.zeros(0, self.element_type))
        return entry.mem_type

    def _stored(self, entry, operands):
        """What a store writes, lane by lane, as the memory element's type."""
        size = np.dtype(op.MEM_TYPES[entry.mem_type]).itemsize
        read_type = {1: "u32", 2: "u16", 4: "u32", 8: "u64"}[size]
        bits = np.asarray(self.batch.read(operands[0], read_type)).astype(
            {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[size])   # the low bytes, as stored
        if self.element_type.itemsize == size:
            value, type_name = bits.view(self.element_type), _type_of(np.zeros(0, self.element_type))
        else:
            value, type_name = bits, entry.mem_type
        active = np.broadcast_to(self.batch.exec, (1, self.width)).reshape(-1)
        return Change("memory", self._lanes(value, type_name, active))

    def _changes(self, entry, operands, before):
        sgpr0, vgpr0, exec0, vcc0, scc0 = before
        batch = self.batch
        active = np.broadcast_to(exec0, (1, self.width)).reshape(-1)
        changed_s = {i for i in range(NUM_SGPRS) if batch.sgpr[i] is not sgpr0[i]}
        changed_v = {i for i in range(len(batch.vgpr)) if batch.vgpr[i] is not vgpr0[i]}
        changes = []
        dest = operands[0] if (entry.operands and entry.operands[0] in (op.VDST, op.SDST, op.VREG)
                               and entry.kind not in ("store",)) else None
        if dest is not None and dest.code not in (EXEC_LO, VCC_LO) and (dest.is_vgpr or dest.is_sgpr):
            n = dest.dwords
            type_name = entry.types[0]
            if entry.kind in ("load", "lds_load") and (entry.kind == "load" or entry.mem_dwords == 1):
                type_name = self._memory_type(entry)
                if type_name not in _FLOAT_TYPES and n == 1:
                    type_name = "i32" if entry.sign_extend else "u32"
            if dest.is_vgpr:
                index = dest.code - 256
                covered = set(range(index, index + n))
                if covered & changed_v:
                    if type_name in op.TYPES and op.TYPES[type_name][1] == n <= 2:
                        value = batch.read(dest, type_name)
                        changes.append(Change(format_operand(dest), self._lanes(value, type_name, active)))
                    else:
                        # dwords of a wide LDS load print as the kernel's 4-byte element type (f32 for FLOAT32)
                        word = _type_of(np.zeros(0, self.element_type)) if (
                            entry.kind == "lds_load" and self.element_type.itemsize == 4) else "b32"
                        for i in sorted(covered):
                            bits = np.asarray(batch.vgpr[i])
                            value = bits.view(np.float32) if word == "f32" else bits
                            changes.append(Change(f"v{i}", self._lanes(value, word, active)))
                changed_v -= covered
            else:
                covered = set(range(dest.code, dest.code + n))
                saves_exec = n == 2 and any(getattr(o, "code", None) == EXEC_LO for o in operands[1:])
                if covered & changed_s and saves_exec:
                    # EXEC saved in SGPRs (s_mov_b64 s[40:41], exec): a lane mask, so lane bits, lane 0 first
                    bits = int(np.asarray(batch.read(dest, "b64")).reshape(-1)[0])
                    lanes = lane_string([(bits >> lane) & 1 for lane in range(self.width)])
                    changes.append(Change(format_operand(dest),
                                          value=f"{lanes}  (EXEC saved: lane bits, lane 0 first)"))
                elif covered & changed_s:
                    if n <= 2 and type_name in op.TYPES and op.TYPES[type_name][1] == n:
                        value = np.asarray(batch.read(dest, type_name)).reshape(-1)[0]
                        changes.append(Change(format_operand(dest), value=_format_value(value, type_name)))
                    else:
                        words = [_format_value(np.asarray(batch.sgpr[i]).reshape(-1)[0], "b32")
                                 for i in sorted(covered)]
                        changes.append(Change(format_operand(dest), value=" ".join(words)))
                changed_s -= covered
        for i in sorted(changed_v):
            changes.append(Change(f"v{i}", self._lanes(batch.vgpr[i], "b32", active)))
        for i in sorted(changed_s):
            changes.append(Change(f"s{i}", value=_format_value(np.asarray(batch.sgpr[i]).reshape(-1)[0], "b32")))
        if batch.vcc is not vcc0 and not np.array_equal(np.broadcast_to(batch.vcc, (1, self.width)),
                                                         np.broadcast_to(vcc0, (1, self.width))):
            changes.append(Change("vcc", value=lane_string(np.broadcast_to(batch.vcc, (1, self.width)))))
        elif entry.kind == "vcmp":
            changes.append(Change("vcc", value=lane_string(np.broadcast_to(batch.vcc, (1, self.width)))))
        if batch.exec is not exec0 and not np.array_equal(batch.exec, exec0):
            changes.append(Change("exec", value=lane_string(batch.exec)))
        if batch.scc is not scc0:
            changes.append(Change("scc", value=str(int(np.asarray(batch.scc).reshape(-1)[0]))))
        return changes


class _WaveClock:
    """The cycles at which one wave issued its instructions in a timed run, read from the trace's
    `segments` table (captured at detail 'instruction'): the segments of the wave group holding the
    wave, in time order, each a run of instructions pc_first..pc_last issued from `start` to `end`; an
    instruction's cycle is its share of its segment's span (start + span x its place in the run / the
    run's length), relative to the dispatch's start. Instructions are matched to segments in execution
    order (a loop's second trip takes the next segment that holds the pc); an instruction no segment
    holds (a scalar load, a branch, an s_waitcnt: they record none) has no cycle."""

    LOOKAHEAD = 8      # segments searched past the current one for the next pc

    def __init__(self, trace, wave):
        s = trace.tables["segments"]
        mine = s[(s["first_wave"] <= wave) & (wave < s["first_wave"] + s["waves"])]
        mine = mine[np.argsort(mine["start"], kind="stable")]
        origin = int(trace.dispatches["start"][0]) if len(trace.dispatches) else 0
        self.segments = [(int(a), int(b), int(t0) - origin, int(t1) - origin)
                         for a, b, t0, t1 in zip(mine["pc_first"], mine["pc_last"], mine["start"], mine["end"])]
        self.cursor, self.last_pc = 0, -1

    def at(self, pc):
        for k in range(self.cursor, min(self.cursor + self.LOOKAHEAD, len(self.segments))):
            first, last, start, end = self.segments[k]
            if first <= pc <= last and not (k == self.cursor and pc <= self.last_pc):
                self.cursor, self.last_pc = k, pc
                return start + (end - start) * (pc - first) // (last - first + 1)
        return None


def register_text(stepper, name):
    """`p REG` in `dmlemu step --interactive`: the stepped wave's register now, as one line: v3 (lane by lane,
    as b32 bits in decimal below 2^20, else hex; EXEC-off lanes too), s24, s[8:11], exec, vcc (lane bits),
    scc; UsageError (a sentence) for a name that is no register."""
    import re
    batch, width = stepper.batch, stepper.width
    text = name.strip().lower()
    if text in ("exec", "vcc"):
        mask = batch.exec if text == "exec" else batch.vcc
        return f"{text} = {lane_string(np.broadcast_to(mask, (1, width)))}  (lane 0 first)"
    if text == "scc":
        return f"scc = {int(np.asarray(batch.scc).reshape(-1)[0])}"
    m = re.fullmatch(r"([sv])(\d+)|([sv])\[(\d+):(\d+)\]", text)
    if not m:
        raise UsageError(f"p {name}: give a register: v3, s24, s[8:11], exec, vcc or scc")
    kind = m.group(1) or m.group(3)
    first = int(m.group(2) or m.group(4))
    last = int(m.group(2) or m.group(5))
    limit = NUM_SGPRS if kind == "s" else len(batch.vgpr)
    if not first <= last < limit:
        raise UsageError(f"p {name}: the wave has {kind}0 to {kind}{limit - 1}")
    if kind == "s":
        words = ["unwritten" if batch.sgpr[i] is None else
                 _format_value(np.asarray(batch.sgpr[i]).reshape(-1)[0], "b32") for i in range(first, last + 1)]
        return f"{text} = {' '.join(words)}"
    lines = []
    for i in range(first, last + 1):
        if batch.vgpr[i] is None:
            lines.append(f"v{i} = unwritten (the kernel has not set it yet)")
            continue
        lanes = np.broadcast_to(np.asarray(batch.vgpr[i]), (1, width)).reshape(-1)
        lines.append(f"v{i} = " + " ".join(_format_value(v, "b32") for v in lanes) + "  (b32 bits, lane 0 first)")
    return "\n  ".join(lines)


def divergence_summary(steps, width):
    """The end-of-wave divergence summary of `steps` (the Steps shown): over the vector instructions
    (VALU, vector memory, LDS), the lane slots EXEC kept on against width x instructions (SIMD
    efficiency), and the instructions that ran with lanes off. '' without a vector instruction."""
    vector = [s for s in steps if _unit(s.text) in (op.VALU, op.VMEM, op.LDS)]
    if not vector:
        return ""
    active = sum(s.exec_mask.count("1") for s in vector)
    partial = [s for s in vector if s.exec_mask.count("1") < width]
    text = (f"divergence: {_plural(len(vector), 'vector instruction')}, {active} of {len(vector) * width} lane "
            f"slots active (SIMD efficiency {100 * active / (len(vector) * width):.1f} %)")
    if partial:
        counts = sorted({s.exec_mask.count("1") for s in partial})
        first = partial[0]
        text += (f"\n  {len(partial)} ran with lanes off ({', '.join(map(str, counts))} of {width} active); the first: "
                 f"#{first.number} {first.text.split(' ', 1)[0]}")
    return text


def _unit(text):
    entry = op.BY_MNEMONIC.get(text.split(" ", 1)[0]) if text else None
    return entry.unit if entry is not None else None


# ---- text -----------------------------------------------------------------------------------------
TEXT_WIDTH = 48


def format_header(stepper):
    run, launch = stepper.run, stepper.launch
    lines = [
        f"dmlemu step: {describe(run)}",
        f"kernel {stepper.program.name} ({len(stepper.program)} instructions) on {stepper.preset.description}",
        f"{_plural(launch.num_workgroups, 'workgroup')} of {launch.workgroup_size} threads = "
        f"{_plural(stepper.total_waves, 'wave')} of {stepper.width} lanes",
        f"stepping wave {stepper.wave} (workgroup {stepper.workgroup}): {_elements_text(stepper)}",
    ]
    for name, array in zip(run.input_fields, stepper.inputs):
        if not run.element_wise:
            lines.append(f"{name}: {format_array(array)}".replace("\n", "\n" + " " * (len(name) + 2)))
            continue
        flat = np.asarray(array).reshape(-1)[stepper.wave_elements()]
        lines.append(f"{name} of these elements: {' '.join(_format_value(v, _type_of(flat)) for v in flat)}")
    return "\n".join(lines + _legend())


def _legend():
    """The lines under a header that explain the columns (both steppers)."""
    return [
        "addr: the instruction's address in dwords (branch targets L<addr> use it). EXEC: the lanes",
        "the instruction runs for (1) or skips (0), lane 0 first. Below it, the registers it changed;",
        "vector results show '-' for skipped lanes, which keep their old value. 'memory' is what a",
        "store wrote. Under buffer loads and stores: the bytes the lanes asked for, the sectors and",
        "cache lines the coalescer made of them, and where those sectors were found (L2, Infinity",
        "Cache, DRAM), from a timed run of the whole dispatch on a fresh GPU in which the waves before",
        "this one ran first and warmed the caches. cycle: when the wave issued the instruction in that",
        "timed run, in cycles after the dispatch started (a jump between two lines is time the wave",
        "waited: for memory, or for the issue port another wave held). An s_waitcnt shows 'wait': it",
        "issues nothing; the time it held the wave is the jump from the line above to the line below.",
        "'-': an instruction the timed run gives no cycle of its own (s_endpgm, say).",
        "",
        f"{'#':>3}  {'addr':>4}  {'cycle':>6}  {'instruction':<{TEXT_WIDTH}}  EXEC",
    ]


def _plural(n, word):
    return f"{n} {word}" + ("" if n == 1 else "s")


def _elements_text(stepper):
    if not stepper.run.element_wise:
        return (f"its {stepper.width} lanes work on {stepper.run.name}'s tensors as the kernel shares them out "
                f"(not one output element per lane)")
    elements = stepper.wave_elements()
    if not elements.size:
        return "no element (past the end of the tensor)"
    text = f"lanes 0 to {elements.size - 1} take elements {elements[0]} to {elements[-1]}"
    if elements.size < stepper.width:
        text += f"; lanes {elements.size} to {stepper.width - 1} have none"
    return text


def _type_of(array):
    """The ISA type name of an array's dtype (f16, i8, u32, ...)."""
    dtype = np.asarray(array).dtype
    return {"f": "f", "i": "i", "u": "u"}[dtype.kind] + str(dtype.itemsize * 8)


def format_step(s, width=8):
    """A Step as lines of text: the instruction, its EXEC mask, then what it changed."""
    lines = [s.banner] if s.banner else []
    cycle = str(s.cycle) if s.cycle is not None else "wait" if s.text.startswith("s_waitcnt") else "-"
    lines.append(f"{s.number:>3}  {s.address:>4}  {cycle:>6}  {s.text:<{TEXT_WIDTH}}  {s.exec_mask}")
    vectors = [c for c in s.changes if c.lanes is not None]
    scalars = [c for c in s.changes if c.lanes is None]
    for c in scalars:
        lines.append(f"{'':11}{c.name} = {c.value}")
    if vectors:
        cell = max(6, max(len(t) for c in vectors for t in c.lanes) + 1)
        label = max(6, max(len(c.name) for c in vectors) + 1)
        lines.append(f"{'':11}{'lane':<{label}}" + "".join(f"{i:>{cell}}" for i in range(len(vectors[0].lanes))))
        for c in vectors:
            lines.append(f"{'':11}{c.name:<{label}}" + "".join(f"{t:>{cell}}" for t in c.lanes))
    if s.traffic is not None:
        lines += [f"{'':11}{text}" for text in format_traffic(s.traffic)]
    if s.lds is not None:
        lines += [f"{'':11}{text}" for text in format_lds(s.lds)]
    if s.barrier is not None:
        lines.append(f"{'':11}{s.barrier}")
    return "\n".join(lines)


_LDS_KINDS = ("lds_load", "lds_store", "lds_atomic")
_SHOWN_DWORDS = 6     # dword addresses printed for the busiest bank


def format_lds(a):
    """An LdsAccess as short lines: lanes and bytes, bank-conflict passes, what changed."""
    if not a.lanes:
        text = "LDS: no lane accessed it"
        return [text + (f" ({_plural(a.out_of_range, 'active lane')} past the workgroup's {a.lds_bytes} bytes of "
                        "LDS: reads give 0, writes are dropped)" if a.out_of_range else "")]
    out = [f"LDS: {_plural(a.lanes, 'lane')} x {a.access_bytes} B; dword d is in bank d mod {a.banks}"]
    fewest = -(-a.distinct_dwords // a.banks)
    if a.passes <= fewest:
        text = f"bank conflicts: none: {a.passes} {'pass' if a.passes == 1 else 'passes'}" + (
            " (no bank serves two different dwords)" if a.passes == 1 else
            f" ({a.distinct_dwords} different dwords over {a.banks} banks need {a.passes})")
    else:
        shown = " ".join(str(4 * d) for d in a.busiest_dwords[:_SHOWN_DWORDS])
        more = len(a.busiest_dwords) - _SHOWN_DWORDS
        text = (f"bank conflicts: {a.passes} passes: bank {a.busiest_bank} serves {len(a.busiest_dwords)} different "
                f"dwords, one per pass (bytes {shown}{f' ... +{more}' if more > 0 else ''})")
    out.append(text)
    if a.broadcast_lanes:
        out.append(f"broadcast: {a.broadcast_lanes} lanes share dwords with other lanes (one access each, free)")
    if a.write and a.written_range is not None:
        first, last = a.written_range
        changed = f"{a.changed_bytes} of them changed value" if a.changed_bytes else "none of them changed value"
        out.append(f"LDS bytes written: {a.written_bytes} (bytes {first} .. {last} of {a.lds_bytes}); {changed}")
    if a.unwritten_lanes:
        out.append(f"{_plural(a.unwritten_lanes, 'lane')} read LDS bytes no wave of this workgroup has written yet "
                   "(a missing s_barrier?)")
    if a.out_of_range:
        out.append(f"{_plural(a.out_of_range, 'active lane')} past the workgroup's {a.lds_bytes} bytes of LDS: "
                   "reads give 0, writes are dropped")
    return out


def _waves(waves):
    """Wave numbers as short text: '0, 1, 2, 5' -> '0 to 2, 5'."""
    runs, out = [], []
    for w in sorted(waves):
        if runs and w == runs[-1][1] + 1:
            runs[-1][1] = w
        else:
            runs.append([w, w])
    for a, b in runs:
        out.append(str(a) if a == b else f"{a}, {b}" if b == a + 1 else f"{a} to {b}")
    return ", ".join(out)


def _barrier_text(wave, arrived, waiting, group, live, all_waves, workgroup):
    """What an s_barrier step says: who has arrived, who is awaited, whether it opens."""
    ended = [w for w in group if w not in live]
    gone = f"; waves {_waves(ended)} ended and no longer count" if ended else ""
    if not waiting:
        return f"barrier: all waves of workgroup {workgroup} still running have arrived ({_waves(arrived)}){gone}: it opens"
    if all_waves:
        return f"barrier: arrived {_waves(arrived)}; waiting for {_waves(waiting)}{gone}"
    return (f"barrier: wave {wave} waits; {'wave' if len(waiting) == 1 else 'waves'} {_waves(waiting)} of workgroup "
            f"{workgroup} now {'runs' if len(waiting) == 1 else 'run'} unseen to the next s_barrier or the end (--workgroup {workgroup} shows them){gone}; then it opens")


_SHOWN_LINES = 4      # line addresses printed per instruction


def format_traffic(t):
    """A WaveTraffic as short lines: coalescer, line addresses, caches."""
    if t.shown_at is not None:
        return [f"cache traffic: counted at step {t.shown_at} (all {t.executions} executions together)"]
    asked = t.lanes * t.element_bytes
    out = [f"coalescer: {_plural(t.lanes, 'lane')} x {t.element_bytes} B = {asked} B -> "
           f"{_plural(t.sectors, 'sector')} of {t.sector_bytes} B in {_plural(len(t.line_addresses), 'line')} "
           f"of {t.line_bytes} B"]
    if t.line_addresses:
        shown = " ".join(f"0x{a:x}" for a in t.line_addresses[:_SHOWN_LINES])
        more = len(t.line_addresses) - _SHOWN_LINES
        out.append(f"lines at {shown}" + (f" ... (+{more} more)" if more > 0 else ""))
    if t.write:
        out.append(f"caches: {_plural(t.sectors, 'sector')} written into the L2 ({t.l2_hits} already there), "
                   f"to reach DRAM when evicted")
    else:
        text = f"caches: {t.l2_hits} of {_plural(t.sectors, 'sector')} hit the L2"
        if t.l0_hits or t.l1_hits:
            l1 = f", {t.l1_hits} the L1" if t.l1_hits else ""
            text = f"caches: {t.l0_hits} of {_plural(t.sectors, 'sector')} hit the L0{l1}, {t.l2_hits} the L2"
        if t.infinity_cache:
            text += f", {t.ic_hits} the Infinity Cache"
        out.append(f"{text}, {t.dram_reads} read from DRAM")
    if t.executions > 1:
        out.append(f"(these counts cover the wave's {t.executions} executions of this instruction)")
    return out


def format_footer(stepper, executed):
    out = stepper.output().reshape(-1)
    expected = stepper.expected().reshape(-1)
    elements = stepper.wave_elements()
    lines = [_ended_text(stepper, executed)]
    if not stepper.run.element_wise:
        for name, got, want in zip(stepper.run.output_fields, stepper.whole_outputs(), stepper.expected(every=True)):
            verdict = "bit-exact against dmlemu.golden" if same_bits(got, want) else "DIFFERS from dmlemu.golden"
            lines.append(f"{name} after the whole dispatch (every wave, run on a fresh GPU): "
                         f"{format_array(got)}  ({verdict})".replace("\n", " "))
    elif elements.size:
        got, want = out[elements], expected[elements]
        verdict = "bit-exact against dmlemu.golden" if same_bits(got, want) else \
            f"DIFFERS from dmlemu.golden: {want}"
        lines.append(f"OutputTensor of its elements: {' '.join(_format_value(v, _type_of(got)) for v in got)}"
                     f"  ({verdict})")
    else:
        lines.append("It had no element to process: the prologue switched every lane off.")
    return "\n".join(lines)


# ---- a user's compute shader (`dmlemu step --kernel`) -------------------------------------------------
_MAX_STEP_BUFFER_BYTES = 64 << 20     # one --buffer: enough for any kernel a learner steps


def parse_constant(text):
    """A root constant from the command line as its 32 bits: 7, 0x10, -1 (int32) or 2.5 (FLOAT32)."""
    t = text.strip()
    try:
        value = int(t, 0)
    except ValueError:
        try:
            return int(np.array(np.float32(float(t))).view(np.uint32))
        except ValueError:
            raise UsageError(f"root constant {text!r} is not a number; give an integer (7, 0x10, -1) or a "
                             "float (2.5)") from None
    if not -(1 << 31) <= value < 1 << 32:
        raise UsageError(f"root constant {text!r} does not fit in 32 bits")
    return value & 0xFFFFFFFF


def parse_buffer(text, rng):
    """'u0=float32:1000' (random values), 'u0=uint32:16:zeros' or 'u0=FILE.npy' -> (register, array)."""
    import os
    register, sep, spec = text.partition("=")
    register = register.strip().lower()
    if not sep or not register or register[0] not in "tub" or not register[1:].isdigit():
        raise UsageError(f"--buffer {text!r} must be REGISTER=DTYPE:COUNT[:zeros] or REGISTER=FILE.npy, e.g. "
                         "u0=float32:1000")
    if spec.lower().endswith(".npy"):
        if not os.path.isfile(spec):
            raise UsageError(f"--buffer {text!r}: {spec} is not a file")
        if os.path.getsize(spec) > _MAX_STEP_BUFFER_BYTES:
            raise UsageError(f"--buffer {text!r}: {spec} is larger than {_MAX_STEP_BUFFER_BYTES} bytes")
        try:
            array = np.load(spec, allow_pickle=False)
        except (ValueError, OSError) as error:
            raise UsageError(f"--buffer {text!r}: {spec} is not a .npy array ({error})") from None
        return register, np.ascontiguousarray(array).reshape(-1)
    parts = spec.split(":")
    if len(parts) not in (2, 3) or (len(parts) == 3 and parts[2].lower() != "zeros"):
        raise UsageError(f"--buffer {text!r} must be REGISTER=DTYPE:COUNT[:zeros] or REGISTER=FILE.npy")
    try:
        dtype = DATA_TYPES[parse_data_type(parts[0])]
    except UsageError as error:
        raise UsageError(f"--buffer {text!r}: {error}") from None
    if not parts[1].strip().isdigit() or not 1 <= int(parts[1]) * dtype.itemsize <= _MAX_STEP_BUFFER_BYTES:
        raise UsageError(f"--buffer {text!r}: COUNT must be a whole number of elements from 1 to "
                         f"{_MAX_STEP_BUFFER_BYTES // dtype.itemsize}")
    count = int(parts[1])
    if len(parts) == 3:
        return register, np.zeros(count, dtype)
    if dtype.kind == "f":
        return register, rng.uniform(-4, 4, count).astype(dtype)
    info = np.iinfo(dtype)
    return register, rng.integers(max(info.min, -100), min(info.max, 100), count, endpoint=True).astype(dtype)


class KernelStepper(WaveStepper):
    """One wave of a user's compute shader source, launched as Dispatch(*groups) would launch it.

    `buffers`: {register text ('t0', 'u0', 'b1'): NumPy array} for every SRV/UAV/CBV the shader
    declares; `constants`: the root constants' 32-bit values, all of them, in declaration order.
    Each buffer gets its own allocation and binding-table slot (the ABI of docs/KERNEL_ABI.md)."""

    def __init__(self, source_path, *, groups=(1, 1, 1), constants=(), buffers=None, width=8, wave=0,
                 adapter="teaching", defines=None):
        from dmlemu.d3d12.pipeline_state import load_compute_shader
        from dmlemu.isa.assembler import read_source
        from dmlemu.isa.shader_binary import assemble_shader
        from dmlemu.tools.asm import parse_defines
        self.preset = preset_for(adapter)
        self.width = width
        binary = assemble_shader(read_source(source_path), parse_defines(defines), source_path)
        self.shader = load_compute_shader(binary.to_bytes())
        self.source_path = source_path
        groups = tuple(groups) + (1,) * (3 - len(groups))
        if len(groups) != 3 or not all(1 <= g <= 65535 for g in groups):
            raise UsageError(f"--groups {' '.join(map(str, groups))}: give 1 to 3 group counts, each 1 to 65535")
        self.groups = groups
        wanted = sum(b.count for b in binary.constant_bindings)
        if len(constants) != wanted:
            names = ", ".join(f"{b.name} ({b.count})" for b in binary.constant_bindings) or "none"
            raise UsageError(f"the kernel reads {wanted} root constants ({names}); --constants gave {len(constants)}")
        self.constants = tuple(constants)
        buffers = dict(buffers or {})
        self.arrays = []
        for b in binary.table_bindings:
            key = b.name.replace(", space", "_space")
            if key not in buffers:
                raise UsageError(f"the kernel reads {b.name}; give it a buffer with --buffer {key}=DTYPE:COUNT")
            self.arrays.append((b, buffers.pop(key)))
        if buffers:
            raise UsageError(f"the kernel declares no {', '.join(sorted(buffers))}; its bindings are "
                             f"{', '.join(b.name for b in binary.bindings) or 'none'}")
        self.gpu = Gpu(self.preset, wave_width=width, timing=False)
        self._timed = None
        self.launch, self.allocations = self._setup(self.gpu)
        self._pick_wave(wave)
        self._instruction_texts()
        writable = [a for b, a in self.arrays if b.kind == 1] or [a for _, a in self.arrays] or [np.zeros(0, np.uint32)]
        self.element_type = writable[0].dtype

    def _setup(self, gpu):
        from dmlemu.functional.buffer_descriptor import DESCRIPTOR_SIZE, write_buffer_descriptor
        allocations = []
        for i, (binding, array) in enumerate(self.arrays):
            raw = array.view(np.uint8).reshape(-1)
            allocation = gpu.memory.allocate(max(4, raw.size), binding.name)
            allocation.data[:raw.size] = raw
            allocations.append(allocation)
        table = gpu.memory.allocate(DESCRIPTOR_SIZE * max(1, len(self.arrays)), "binding table")
        for i, ((_, array), allocation) in enumerate(zip(self.arrays, allocations)):
            write_buffer_descriptor(table.data, i * DESCRIPTOR_SIZE, allocation.gpu_va, array.nbytes)
        return self.shader.launch(table.gpu_va, self.constants, self.groups), allocations

    def timed_stats(self):
        if self._timed is None:
            from dmlemu.traces.capture import capture
            gpu = Gpu(self.preset, wave_width=self.width, timing=True)
            launch, _ = self._setup(gpu)
            with capture(gpu, detail="instruction") as cap:
                self._timed = gpu.dispatch(launch)
            self.timed_trace = cap.trace
        return self._timed

    def buffer(self, binding_name):
        """A bound buffer as device memory holds it now (only the stepped wave has run)."""
        for (b, array), allocation in zip(self.arrays, self.allocations):
            if b.name == binding_name:
                return allocation.data[:array.nbytes].view(array.dtype)
        raise KeyError(binding_name)



def format_kernel_header(stepper):
    s, launch = stepper.shader, stepper.launch
    x, y, z = stepper.groups
    tx, ty, tz = s.numthreads
    lines = [
        f"dmlemu step: {stepper.source_path}, Dispatch({x}, {y}, {z}) of numthreads ({tx}, {ty}, {tz})",
        f"kernel {s.name} ({len(stepper.program)} instructions) on {stepper.preset.description}",
        f"{_plural(launch.num_workgroups, 'workgroup')} of {launch.workgroup_size} threads = "
        f"{_plural(stepper.total_waves, 'wave')} of {stepper.width} lanes",
        f"stepping wave {stepper.wave} (workgroup {stepper.workgroup})",
    ]
    if stepper.constants:
        lines.append("root constants (s5 ..): " + " ".join(f"0x{c:08x}" for c in stepper.constants))
    for slot, (b, array) in enumerate(stepper.arrays):
        head = " ".join(_format_value(v, _type_of(array)) for v in array[:8])
        lines.append(f"{b.name} (binding table slot {slot}): {array.size} x {array.dtype}: {head}"
                     + (" ..." if array.size > 8 else ""))
    return "\n".join(lines + _legend())


def _ended_text(stepper, executed):
    if getattr(stepper, "all_waves", False):
        return (f"The {_plural(len(stepper.workgroup_waves()), 'wave')} of workgroup {stepper.workgroup} ended after "
                f"{executed} instructions in all.")
    return f"The wave ended after {executed} instructions."


def format_kernel_footer(stepper, executed):
    lines = [_ended_text(stepper, executed)]
    for b, array in stepper.arrays:
        if b.kind == 1:   # a UAV: what the kernel may have written
            now = stepper.buffer(b.name)
            head = " ".join(_format_value(v, _type_of(now)) for v in now[:8])
            changed = int(np.count_nonzero(now.view(np.uint8) != array.view(np.uint8).reshape(-1)))
            whose = f"workgroup {stepper.workgroup}" if getattr(stepper, "all_waves", False) else "this wave"
            lines.append(f"{b.name} after {whose}: {head}" + (" ..." if now.size > 8 else "")
                         + f"  ({changed} bytes changed)")
    return "\n".join(lines)


__all__ += ["KernelStepper", "format_kernel_header", "format_kernel_footer", "parse_constant", "parse_buffer",
            "divergence_summary", "register_text"]
