"""The SIMD executor: runs a decoded kernel over batches of waves, lane arrays at a time.

One executor serves all compute units: it is the functional model, with no notion of time (the
timing model charges the opcode table's units and cycles from the counts recorded here). Waves in
a batch share a program counter; a branch that some waves take and others do not splits the batch
into two, each continuing on its own path, so control flow stays exact while uniform code (the
common case) runs as one NumPy operation per instruction for the whole batch.

An EXEC that is a block of lanes (the first n lanes of every k-th wave, or the first j waves of every k:
what the levels of an LDS tree and "thread 0 of every workgroup" leave) is found once per EXEC
(`_exec_region`); LDS accesses, lane-wise vector instructions, stores and atomics then touch those
lanes only, as strided views, instead of every lane under a mask.

Decode once: a kernel arrives as an isa.program.Program (decoded and validated when it was built);
`bind` pairs each of its instruction records with this executor's handler once per Program, so
the inner loop does no parsing and no string work.
"""
import time
import weakref

import numpy as np

from dmlemu.isa import opcodes as op
from dmlemu.isa.operands import EXEC_LO, VCC_LO, VGPR_BASE
from dmlemu.dispatch_record import access_slot
from dmlemu.isa.program import KernelFault, Program  # noqa: F401 (Program: also importable from here)

from dmlemu.functional import atomics
from dmlemu.functional.buffer_descriptor import READ_ONLY, unpack_buffer_descriptor
from dmlemu.functional.image_descriptor import IMAGE_DWORDS, texel_offsets, unpack_image_descriptor
from dmlemu.functional.texel_formats import FORMATS as TEXEL_FORMATS, decode as decode_texels, encode as encode_texels
from dmlemu.functional.local_data_share import ALL_ONES as _LDS_ALL_ONES, WORD as _LDS_WORD
from dmlemu.functional.wave import Ramp, Rows, broadcast, pack_mask

MAX_INSTRUCTIONS_PER_WAVE = 1 << 20


class Watchdog:
    """A dispatch's timeout (docs/RELIABILITY.md, "GPU timeout"): the host seconds it may take in the
    executor (`deadline`, in CPU seconds of the thread that runs it: time.thread_time, so that a loaded
    machine, where the dispatch waits for a core, does not remove a device whose kernel is working) and
    the wave-instructions it may issue (`budget`: what the modelled GPU could not issue within Windows'
    2-second timeout, Dispatcher.watchdog). Either one past ends the dispatch with a KernelFault, which
    removes the device (DXGI_ERROR_DEVICE_HUNG)."""

    __slots__ = ("deadline", "budget", "issued", "seconds")

    def __init__(self, seconds, budget):
        self.seconds = seconds
        self.deadline = time.thread_time() + seconds
        self.budget = budget
        self.issued = 0          # wave-instructions so far in the dispatch

    def check(self, name, pc, executed):
        """KernelFault when a limit is past (called every few hundred instructions of a path)."""
        where = "between batches" if pc is None else f"at instruction {pc}, {executed} instructions into a path"
        if self.issued > self.budget:
            raise KernelFault(f"{name}: the dispatch issued more than {self.budget:.0f} wave-instructions, more than "
                              f"the modelled GPU can issue in Windows' 2-second GPU timeout (TDR); it was {where}")
        if time.thread_time() > self.deadline:
            raise KernelFault(f"{name}: the dispatch ran past the emulator's limit of {self.seconds:g} s of host time "
                              f"(CPU seconds) per dispatch (DMLEMU_DISPATCH_SECONDS); it was {where}, after {self.issued} "
                              f"wave-instructions")
_MASK_CODES = (EXEC_LO, VCC_LO)


class ExecutionStats:
    """What a dispatch did, counted per wave and per byte (inputs to the timing model)."""

    __slots__ = ("waves", "workgroups", "wave_instructions", "unit_instructions", "instruction_waves",
                 "bytes_read", "bytes_written", "oob_reads", "oob_writes",
                 "lds_bytes_read", "lds_bytes_written", "lds_oob_reads", "lds_oob_writes", "lds_unwritten_reads",
                 "lds_unwritten_first_pc", "barriers", "readonly_writes", "readonly_first_pc",
                 "cycles", "start_cycle", "name", "elements", "memory_bytes", "record", "timing")

    def __init__(self, program_length, name="", record=None):
        self.waves = 0
        self.workgroups = 0
        self.wave_instructions = 0
        self.unit_instructions = {u: 0 for u in op.UNITS}
        self.instruction_waves = np.zeros(program_length, dtype=np.int64)  # per instruction index
        self.bytes_read = 0
        self.bytes_written = 0
        self.oob_reads = 0
        self.oob_writes = 0
        self.lds_bytes_read = 0        # LDS traffic of the lanes (ds_* instructions)
        self.lds_bytes_written = 0
        self.lds_oob_reads = 0         # LDS lanes past the workgroup's allocation: read 0 / not written
        self.lds_oob_writes = 0
        self.lds_unwritten_reads = 0   # LDS reads of bytes never written in the workgroup (the debug layer reports)
        self.lds_unwritten_first_pc = None
        self.barriers = 0              # workgroup barriers released (s_barrier: all live waves arrived)
        self.readonly_writes = 0       # store / atomic lanes through a read-only (SRV, CBV) descriptor: dropped
        self.readonly_first_pc = None
        self.cycles = 0
        self.start_cycle = 0
        self.name = name
        self.elements = 0
        self.memory_bytes = np.zeros(program_length, dtype=np.int64)  # useful bytes per instruction
        # For the timing model (None when it is off): paths and per-wave sectors, see dispatch_record.
        self.record = record
        self.timing = None         # filled by the timing model: a DispatchTiming


class _Context:
    """Per-run access to memory and counters for the handlers.

    `share`: loads may hand registers read-only views of memory instead of copies (`run`; see
    _load and _detach). `step` (teaching tools, which compare register objects between
    instructions) always copies.
    """

    __slots__ = ("memory", "stats", "pc", "slot", "share", "lds", "resolved", "lds_memo")

    def __init__(self, memory, stats, share=False, lds=None):
        self.memory = memory
        self.stats = stats
        self.pc = 0
        self.slot = 0       # the memory instruction's access slot (dispatch_record.access_slot)
        self.share = share
        self.lds = lds      # the batch's workgroups' LocalDataShare (None: the kernel declares none)
        self.resolved = {}  # descriptor dwords -> _resolve's answer (no allocation comes or goes in a run)
        self.lds_memo = {}  # LDS lanes of address arrays, whether the LDS is all written (_lds_array_lanes, _lds_words)


def _record_access(ctx, batch, is_write, va, index, item_size, use, first):
    """Tell the timing model which bytes every wave touched (dispatch_record.DispatchRecord).

    Only when the timing model is on. `first`: the batch's lanes read consecutive elements from
    `first` on (every lane active); `use`: the lanes that accessed (None: all).
    """
    record = ctx.stats.record
    if record is None or record.overflow is not None:   # off, or past its budget (it records nothing more)
        return
    waves = batch.wave_index.reshape(-1)
    if first is not None and int(waves[-1]) - int(waves[0]) == waves.size - 1:
        record.add_contiguous(ctx.slot, is_write, int(waves[0]), waves.size, va + first * item_size,
                              batch.width * item_size)
        return
    if index is None:   # a run (_lane_run): lane k of the batch accesses element first + k
        index = np.arange(first, first + waves.size * batch.width, dtype=np.int64).reshape(waves.size, batch.width)
    index = np.broadcast_to(np.asarray(index), (batch.waves, batch.width))
    addresses = np.int64(va) + index.astype(np.int64) * item_size
    record.add_lanes(ctx.slot, is_write, waves, addresses, use)


# ---- handlers: one per `kind` of the opcode table (not per opcode) ------------------------------
def _alu(ctx, batch, entry, operands):
    types = entry.types
    if types[0] == "b64" and all(o.code in _MASK_CODES for o in operands):
        # Mask arithmetic (s_and_b64 exec, exec, vcc ...): the bitwise semantics apply to the
        # bool lane arrays directly, skipping a pack to and unpack from 64-bit integers.
        value = entry.semantics(*[batch.read(o, "mask") for o in operands[1:]])
        if operands[0].code == EXEC_LO:
            batch.set_exec(value)
        else:
            batch.vcc = broadcast(value, (batch.waves, batch.width))
        return
    if types[0] == "b64" and entry.mnemonic in _PAIR_MASK_OPS and _mask_pair_alu(batch, entry, operands):
        return
    if not batch.exec_full and entry.operands[0] == op.VDST and not entry.sets_scc and \
            all(t in _REGION_TYPES for t in types):
        region = _exec_region(batch)
        if region is not None:
            _alu_region(batch, entry, operands, region)
            return
    sources = [batch.read(o, t) for o, t in zip(operands[1:], types[1:])]
    value = entry.semantics(*sources)
    if entry.sets_scc:
        value, scc = value
        batch.scc = np.asarray(scc).reshape(-1, 1)
    batch.write(operands[0], types[0], value, masked=entry.operands[0] == op.VDST)


_REGION_TYPES = frozenset(("b32", "u32", "i32", "f32"))     # 32-bit lanes: _alu_region's registers

# Scalar 64-bit bitwise instructions whose result on packed lane masks (bit i = lane i, the bits above the wave
# width 0) is the packing of the same operation on the bool lanes, upper bits 0 again (s_not_b64 is not: it sets
# them).
_PAIR_MASK_OPS = frozenset(("s_mov_b64", "s_and_b64", "s_or_b64", "s_andn2_b64"))


def _pair_mask(batch, operand):
    """The bool lanes a 64-bit operand holds when they are known without unpacking: EXEC or VCC, or an SGPR pair
    that _mask_pair_alu wrote with a mask and that still holds those very two dwords (registers are never changed
    in place); else None."""
    code = operand.code
    if code in _MASK_CODES:
        return batch.read(operand, "mask")
    known = batch.pair_masks.get(code)
    if known is not None and known[0] is batch.sgpr[code] and known[1] is batch.sgpr[code + 1]:
        return known[2]
    return None


def _mask_pair_alu(batch, entry, operands):
    """Mask arithmetic that involves SGPR pairs (s_mov_b64 s[40:41], exec ... s_mov_b64 exec, s[40:41]; s_and_b64
    vcc, vcc, s[52:53]): when every source's lanes are known (_pair_mask), the operation on the bool lanes, as
    _alu's EXEC / VCC path; an SGPR pair destination gets the packed dwords (what the uint64 operation gives) and
    remembers the lanes. Returns False (nothing done) when a source's lanes are not known."""
    sources = []
    for operand in operands[1:]:
        lanes = _pair_mask(batch, operand)
        if lanes is None:
            return False
        sources.append(lanes)
    value = entry.semantics(*sources)
    code = operands[0].code
    if code == EXEC_LO:
        batch.set_exec(value)
    elif code == VCC_LO:
        batch.vcc = broadcast(value, (batch.waves, batch.width))
    else:
        batch.write(operands[0], "b64", pack_mask(value, batch.waves, batch.width), masked=False)
        if operands[0].is_sgpr and code + 1 < len(batch.sgpr):
            batch.pair_masks[code] = (batch.sgpr[code], batch.sgpr[code + 1], value)
    return True


def _alu_region(batch, entry, operands, region):
    """A lane-wise vector instruction under an EXEC that is a _Region: the operation on the region's lanes only,
    the other lanes keeping the destination's values (what the masked write of every lane's result gives, bit
    for bit, without computing the inactive lanes: an LDS tree's levels)."""
    shape = (batch.waves, batch.width)
    sources = [region.take(batch.read(o, t), shape) for o, t in zip(operands[1:], entry.types[1:])]
    dtype = op.TYPES[entry.types[0]][0]
    value = np.asarray(entry.semantics(*sources)).astype(dtype, copy=False)
    merged = np.empty(shape, dtype=dtype)
    merged[...] = batch.read(operands[0], entry.types[0])
    region.view(merged)[...] = value
    batch.write(operands[0], entry.types[0], merged, masked=False)


def _vcmp(ctx, batch, entry, operands):
    a = batch.read(operands[1], entry.types[1])
    b = batch.read(operands[2], entry.types[2])
    result = entry.semantics(a, b)
    # Inactive lanes read as 0 in VCC; with every lane active the result is VCC as it is (it may be
    # one value per wave, (W, 1), when an operand is a Ramp).
    batch.vcc = result if batch.exec_full else result & batch.exec


def _scmp(ctx, batch, entry, operands):
    a = batch.read(operands[0], entry.types[0])
    b = batch.read(operands[1], entry.types[1])
    batch.scc = np.asarray(entry.semantics(a, b)).reshape(-1, 1)


def _ctx(ctx, batch, entry, operands):
    batch.write(operands[0], entry.types[0], entry.semantics(batch), masked=entry.operands[0] == op.VDST)


def _nop(ctx, batch, entry, operands):
    pass


def _smem(ctx, batch, entry, operands):
    n = entry.mem_dwords
    offset = batch.read(operands[2], "u32")
    if operands[1].is_sgpr:
        lo, hi = batch._dword(operands[1].code), batch._dword(operands[1].code + 1)
        if lo.size == 1 and hi.size == 1 and offset.size == 1:
            # Hot path: a uniform address (kernel constants, descriptor tables), formed in Python
            # integers (mod 2^64, as below): one read for every wave.
            address = ((int(hi.flat[0]) << 32 | int(lo.flat[0])) + int(offset.flat[0])) & 0xFFFFFFFFFFFFFFFF
            values = _read_dwords(ctx, address, n).reshape(n, 1, 1)
            for i in range(n):
                batch.sgpr[operands[0].code + i] = values[i]
            return
    base = batch.read(operands[1], "b64")
    address = (base + offset.astype(np.uint64)).reshape(-1)
    if address.size == 1:
        # Uniform address (kernel constants, descriptor tables): one read for every wave.
        values = _read_dwords(ctx, int(address[0]), n)
        for i in range(n):
            batch.sgpr[operands[0].code + i] = values[i:i + 1].reshape(1, 1)
        return
    unique = np.unique(address)
    rows = np.zeros((unique.size, n), dtype=np.uint32)
    for k, a in enumerate(unique):
        rows[k] = _read_dwords(ctx, int(a), n)
    if unique.size == 1:
        values = rows[0].reshape(n, 1, 1)
    else:
        which = np.searchsorted(unique, address)
        values = rows[which].T.reshape(n, -1, 1)
    for i in range(n):
        batch.sgpr[operands[0].code + i] = values[i]


def _read_dwords(ctx, address, n):
    allocation, offset = ctx.memory.resolve(address)
    out = np.zeros(n, dtype=np.uint32)
    if allocation is None:
        ctx.stats.oob_reads += n
        return out
    available = max(0, min(n * 4, allocation.size - offset))
    raw = allocation.data[offset:offset + available]
    out.view(np.uint8)[:available] = raw
    if available < n * 4:
        ctx.stats.oob_reads += n - available // 4
    return out


def _resolve(ctx, descriptor_dwords):
    """(bytes view of the described range, usable size, GPU VA) for one descriptor; (None, 0, 0) if
    invalid. Found once per run of a batch (the loads of a loop name one descriptor again and again)."""
    key = tuple(descriptor_dwords)
    found = ctx.resolved.get(key)
    if found is None:
        found = ctx.resolved[key] = _resolve_found(ctx, descriptor_dwords)
    return found


def _resolve_found(ctx, descriptor_dwords):
    va, size, valid = unpack_buffer_descriptor(descriptor_dwords)
    if not valid or size == 0:
        return None, 0, 0
    allocation, offset = ctx.memory.resolve(va)
    if allocation is None:
        return None, 0, 0
    size = min(size, allocation.size - offset)
    return allocation.data[offset:offset + size], size, va


def _descriptor_groups(batch, operand, dwords=4):
    """Yield (wave selector or None, the `dwords` descriptor dwords) for each distinct descriptor (a buffer's
    4, an image's IMAGE_DWORDS)."""
    regs = [batch._dword(operand.code + i) for i in range(dwords)]
    if all(r.shape[0] == 1 for r in regs):
        yield None, [int(r.flat[0]) for r in regs]
        return
    table = np.concatenate([np.broadcast_to(r, (batch.waves, 1)) for r in regs], axis=1)
    unique, inverse = np.unique(table, axis=0, return_inverse=True)
    for k, row in enumerate(unique):
        yield inverse.reshape(-1) == k, [int(x) for x in row]


def _lane_run(batch, operands, item_size):
    """(first, index, rows, runs) for a buffer access. `first`: the element index of the first lane when
    the batch's lanes access consecutive elements (lane order, wave after wave) and every lane is active,
    else None. Decided on a Ramp's columns when the offset register is one (the packed kernels' case);
    else on the indices (`index`: None, or the indices when they were computed). `rows`: on a Ramp
    whose every wave reads consecutive elements, each wave's first element (W,) int64, else None; then
    `runs` is (run starts, run length, their even spacing or None): the waves joined into runs as
    _joined_runs joins them (_window_rows' arguments), else None."""
    if not batch.exec_full:
        return None, None, None, None
    offset = batch.read(operands[1], "u32")
    if isinstance(offset, Ramp):
        # Every wave's start first (the whole run is contiguous exactly when those starts are one
        # wave apart, Ramp.element_run's case), then the batch's.
        shift = item_size.bit_length() - 1
        rows = offset.wave_starts(operands[3], shift)
        if rows is not None:
            if rows.size != batch.waves:
                rows = np.broadcast_to(rows, (batch.waves,))
            # What depends on the starts' differences only: once per Ramp when the bases and the offset
            # are whole elements (the loads of an unrolled loop share it), else once per offset.
            key = ("layout", shift, rows.size, batch.width)
            if operands[3] & (item_size - 1) or not offset.aligned(shift):
                key += (operands[3],)
            contiguous, m, step = offset.memo(key, lambda: _wave_layout(rows, batch.width))
            runs = (rows[::m], m * batch.width, step)
            if contiguous:
                return int(rows[0]), None, rows, runs
            return None, None, rows, runs
    index = _element_indices(batch, operands, item_size)
    return _contiguous_start(index, (batch.waves, batch.width)), index, None, None


def _wave_layout(rows, width):
    """(contiguous, m, step) for waves whose lanes read `width` consecutive elements from `rows` (W,):
    whether the waves follow one another (W > 1, one run), the waves _joined_runs joins into a run (m),
    and the elements between one run's start and the next when they are evenly spaced (None otherwise,
    or with one run). It depends only on the differences of `rows`."""
    waves = rows.size
    if waves < 2:
        return False, 1, None
    follows = rows[1:] - rows[:-1] == width
    breaks = np.flatnonzero(~follows) + 1
    joinable = int(np.gcd.reduce(breaks, initial=waves)) if breaks.size else waves
    m = next((m for m in (16, 8, 4, 2) if joinable % m == 0), 1)
    starts, step = rows[::m], None
    if starts.size > 1:
        step = int(starts[1] - starts[0])
        if not (starts[1:] - starts[:-1] == step).all():
            step = None
    return not breaks.size, m, step


def _wave_runs(index, count):
    """For element indices held as a (waves, width) array: (each run's first element, run length) when
    every wave's lanes index consecutive elements below `count`, the waves joined into runs of m waves
    (m the largest power of two up to 16 dividing the waves for which each run continues wave after
    wave); else None. The same elements as the gather, in the same places."""
    waves, width = index.shape
    first = index[:, 0]
    if not (index[:, -1] - first == width - 1).all() or not (np.diff(index, axis=1) == 1).all():
        return None
    if int(first.max()) + width > count:
        return None
    return _joined_runs(first.astype(np.intp), width)


def _joined_runs(first, width):
    """(run starts, run length) for waves whose lanes read `width` consecutive elements from `first` (W,):
    m waves in a row joined into one run where each starts where the one before ends (m the largest power of
    two up to 16 dividing W for which that holds throughout), as one window copy of m * width costs less
    than m copies of width. The waves where a run breaks (wave i does not start where i - 1 ends) must all
    be multiples of m: m divides the gcd of W and those waves."""
    waves = first.size
    if waves < 2:
        return first, width
    breaks = np.flatnonzero(first[1:] - first[:-1] != width) + 1
    joinable = int(np.gcd.reduce(breaks, initial=waves)) if breaks.size else waves
    for m in (16, 8, 4, 2):
        if joinable % m == 0:
            return first[::m], m * width
    return first, width


_FIND = object()


def _strided(array, start, shape, steps):
    """array[start:] seen with `shape`, `steps` elements apart along each axis: np.lib.stride_tricks.as_strided
    without its Python cost (several microseconds a call) where `array` is 1-D and contiguous (every caller's
    case: a buffer's or the LDS's typed view) and the view lies inside it, as its callers check."""
    if array.ndim == 1 and array.flags.c_contiguous:
        item = array.itemsize
        return np.ndarray(shape, array.dtype, array, start * item, tuple(step * item for step in steps))
    return np.lib.stride_tricks.as_strided(array[start:], shape, tuple(step * array.itemsize for step in steps))


def _window_rows(ctx, batch, typed, starts, length, step=_FIND):
    """The runs typed[start:start + length] as rows: where the starts are evenly spaced (a reduction's
    workgroups, one row apart) a strided view of memory, read-only and shared as the contiguous path's
    slice is (copy on write, `_detach`); else one window copy. `step`: the starts' spacing when the caller
    knows it (None: not evenly spaced)."""
    if starts.size > 1 and ctx.share:
        if step is _FIND:
            step = int(starts[1] - starts[0])
            if not (np.diff(starts) == step).all():
                step = None
        if step is not None and step >= length:
            view = _strided(typed, int(starts[0]), (starts.size, length), (step, 1))
            view.flags.writeable = False
            batch.views = True
            return view
    return np.lib.stride_tricks.sliding_window_view(typed, length)[starts]


def _rows_lanes(rows, shape):
    """_window_rows' rows as a (W, width) register: a view of them where one expresses the lanes (one run, or
    contiguous runs), else a Rows (a strided view of memory: element-wise instructions read it without a copy
    first, wave.Rows), else (rows already copied) the rows reshaped."""
    if rows.shape == shape or rows.flags.c_contiguous or rows.flags.writeable:
        return rows.reshape(shape)
    return Rows(rows, shape)


def _wave_rows(index, waves, count):
    """For element indices held as a Ramp: each wave's first element (W,) when every wave's lanes index
    consecutive elements (step 1, no wrap) and all of them are below `count`; else None."""
    step = index.step
    if not (step.size == 1 and int(step.flat[0]) == 1) and not (step == 1).all():
        return None
    if index.wraps():
        return None
    rows = np.broadcast_to(index.base, (waves, 1)).reshape(-1)
    if int(rows.max()) + index.width > count:
        return None
    return rows.astype(np.intp)


def _element_indices(batch, operands, item_size):
    offset = batch.read(operands[1], "u32")
    if operands[3]:
        offset = offset + np.uint32(operands[3])
    # Natural alignment: the address bits below the element size are ignored.
    shift = item_size.bit_length() - 1
    return offset >> np.uint32(shift) if shift else offset


def _contiguous_start(index, shape):
    """The first index when the lanes' indices are consecutive (lane order), else None.

    Packed tensors give every lane of every wave the next element, so a slice copy replaces the
    gather or scatter (what a memory coalescer does). On a Ramp (the prologue's element index and
    byte offsets, wave.py) the test looks at one base and step per wave; on an array it costs a
    compare pass.
    """
    if isinstance(index, Ramp):
        return index.contiguous_start(shape[0])
    flat = np.broadcast_to(index, shape).reshape(-1)
    first = int(flat[0])
    if int(flat[-1]) - first != flat.size - 1:
        return None
    if flat.size > 1 and not (np.diff(flat) == 1).all():
        return None
    return first


def _load(ctx, batch, entry, operands):
    dtype = np.dtype(op.MEM_TYPES[entry.mem_type])
    shape = (batch.waves, batch.width)
    first, index, rows, runs = _lane_run(batch, operands, dtype.itemsize)
    result = None
    for selector, dwords in _descriptor_groups(batch, operands[2]):
        data, size, va = _resolve(ctx, dwords)
        count = size // dtype.itemsize
        if selector is None and first is not None and first + batch.waves * batch.width <= count:
            # Hottest path (packed tensors): every lane active, the lanes' elements consecutive and
            # in range, found on the Ramp's columns or by one compare pass: a slice of memory.
            # In `run` the register is that slice itself, read-only, not a copy: copy on write,
            # a store first copies every register that overlaps what it writes (_detach).
            typed = data[:count * dtype.itemsize].view(dtype)
            result = typed[first:first + batch.waves * batch.width].reshape(shape)
            if ctx.share:
                result.flags.writeable = False
                batch.views = True
            else:
                result = result.copy()
            n_active = result.size
            _record_access(ctx, batch, False, va, index, dtype.itemsize, None, first)
            ctx.stats.bytes_read += n_active * dtype.itemsize
            ctx.stats.memory_bytes[ctx.pc] += n_active * dtype.itemsize
            continue
        if selector is None and rows is not None and count >= batch.width and int(rows.max()) + batch.width <= count:
            # Hot path: every wave's lanes read consecutive elements (each wave coalesced, the waves
            # anywhere), found on the offsets' Ramp columns: whole rows of a sliding window.
            typed = data[:count * dtype.itemsize].view(dtype)
            result = _rows_lanes(_window_rows(ctx, batch, typed, *runs), shape)
            if ctx.stats.record is not None:
                index = _element_indices(batch, operands, dtype.itemsize)
                _record_access(ctx, batch, False, va, index, dtype.itemsize, None, None)
            ctx.stats.bytes_read += result.size * dtype.itemsize
            ctx.stats.memory_bytes[ctx.pc] += result.size * dtype.itemsize
            continue
        if index is None:
            index = _element_indices(batch, operands, dtype.itemsize)
        if selector is None and isinstance(index, Ramp) and count >= batch.width:
            rows = _wave_rows(index, batch.waves, count) if batch.exec_full else None
            if rows is not None:
                # Hot path: every wave's lanes read consecutive elements (each wave coalesced, the
                # waves anywhere): whole rows of a sliding window, not a per-lane gather.
                typed = data[:count * dtype.itemsize].view(dtype)
                result = _window_rows(ctx, batch, typed, *_joined_runs(rows, batch.width)).reshape(shape)
                _record_access(ctx, batch, False, va, index, dtype.itemsize, None, None)
                ctx.stats.bytes_read += result.size * dtype.itemsize
                ctx.stats.memory_bytes[ctx.pc] += result.size * dtype.itemsize
                continue
        index = np.broadcast_to(index, shape)
        if selector is None and batch.exec_full and count:
            runs = _wave_runs(index, count)
            if runs is not None:
                # Hot path: every wave's lanes read consecutive elements, as computed indices (a
                # reduction's k * stride): runs of whole waves, one window copy each, not a gather.
                typed = data[:count * dtype.itemsize].view(dtype)
                result = _window_rows(ctx, batch, typed, *runs).reshape(shape)
                _record_access(ctx, batch, False, va, index, dtype.itemsize, None, None)
                ctx.stats.bytes_read += result.size * dtype.itemsize
                ctx.stats.memory_bytes[ctx.pc] += result.size * dtype.itemsize
                continue
        if result is None:
            result = np.zeros(shape, dtype=dtype)
        active = batch.exec if selector is None else (batch.exec & selector[:, None])
        valid = index < np.uint32(count) if count < (1 << 32) else np.ones_like(index, dtype=bool)
        if selector is None and batch.exec_full and valid.all():
            # Hot path: every lane active and in range: one gather.
            typed = data[:count * dtype.itemsize].view(dtype)
            result = typed.take(index)
            n_active = index.size
            _record_access(ctx, batch, False, va, index, dtype.itemsize, None, None)
        else:
            use = active & valid
            n_active = int(active.sum())
            ctx.stats.oob_reads += n_active - int(use.sum())
            if count:
                gathered = data[:count * dtype.itemsize].view(dtype).take(np.where(use, index, 0))
                result = np.where(use, gathered, result)
                _record_access(ctx, batch, False, va, index, dtype.itemsize, use, None)
        ctx.stats.bytes_read += n_active * dtype.itemsize
        ctx.stats.memory_bytes[ctx.pc] += n_active * dtype.itemsize
    if dtype.itemsize == 2 and not entry.sign_extend:
        batch.write(operands[0], "u16", result, masked=True)   # kept as uint16, see wave.py
    elif dtype.itemsize < 4:
        wide = np.int32 if entry.sign_extend else np.uint32
        batch.write(operands[0], "b32", result.astype(wide).view(np.uint32), masked=True)
    else:
        batch.write(operands[0], entry.types[0], result.view(op.TYPES[entry.types[0]][0]), masked=True)


def _detach(batch, region):
    """Copy on write: give every register that may share memory with `region` (about to be stored
    to) its own copy, so that it keeps the values it was loaded with. Only registers can hold such
    views (loads in `run`, and what instructions made of them without computing: moves, bit
    views); np.may_share_memory compares bounds only, so it errs towards copying. A view whose memory belongs
    to another array that owns its memory (another allocation, a computed register's broadcast) cannot share
    `region`'s and is passed over without the bounds test (_memory_owner)."""
    owner = _memory_owner(region)
    for bank in (batch.vgpr, batch.sgpr):
        for i in [i for i, value in enumerate(bank)
                  if (type(value) is np.ndarray and value.base is not None) or type(value) is Rows]:
            value = bank[i]
            if type(value) is Rows:      # rows of memory: their lanes copied (Rows.values is a copy)
                if np.may_share_memory(value.rows, region):
                    bank[i] = value.values()
                continue
            other = _memory_owner(value)
            if (other is owner or other is None or owner is None) and np.may_share_memory(value, region):
                bank[i] = value.copy()


def _memory_owner(array):
    """The ndarray that owns `array`'s memory (following .base), or None when the memory belongs to an object that
    is not an ndarray (a buffer that other arrays may wrap too)."""
    while isinstance(array.base, np.ndarray):
        array = array.base
    return array if array.base is None else None


def _store(ctx, batch, entry, operands):
    dtype = np.dtype(op.MEM_TYPES[entry.mem_type])
    if dtype.itemsize == 2:
        value = batch.read(operands[0], "u16")
    else:
        value = batch.read(operands[0], entry.types[0])
    shape = (batch.waves, batch.width)
    wide = np.broadcast_to(value, shape)    # for 1-byte elements: the 32-bit values, see below
    if dtype.itemsize == 1:
        step = 4 // dtype.itemsize
        value = value.view(dtype)[..., ::step]
    else:
        value = value.view(dtype)
    first, index, rows, _ = _lane_run(batch, operands, dtype.itemsize)
    value = broadcast(value, shape)
    region = None
    if not batch.exec_full and ctx.stats.record is None and dtype.itemsize > 1:
        region = _exec_region(batch)
    for selector, dwords in _descriptor_groups(batch, operands[2]):
        if dwords[3] & READ_ONLY:
            _read_only(ctx, batch, selector)
            continue
        data, size, va = _resolve(ctx, dwords)
        count = size // dtype.itemsize
        target = data[:count * dtype.itemsize].view(dtype) if count else None
        if batch.views and target is not None:
            _detach(batch, target)
        if selector is None and region is not None:
            # EXEC a block of lanes (thread 0 of every workgroup, ...): those lanes' indices and values only,
            # in lane order (the later lane's value stays where two write one element).
            lanes = region.lanes(shape)
            at = broadcast(region.take(_element_indices(batch, operands, dtype.itemsize), shape), lanes)
            use = at < np.uint32(count) if count < (1 << 32) else np.ones(lanes, dtype=bool)
            n_use = int(np.count_nonzero(use))
            ctx.stats.oob_writes += at.size - n_use
            if n_use:
                target[at[use]] = broadcast(region.take(value, shape), lanes)[use]
            ctx.stats.bytes_written += at.size * dtype.itemsize
            ctx.stats.memory_bytes[ctx.pc] += at.size * dtype.itemsize
            continue
        if selector is None and first is not None and first + value.size <= count:
            # Hottest path (packed tensors): every lane active, the lanes' elements consecutive and
            # in range (a Ramp's columns or one compare pass tell): one slice copy. Bytes are cast
            # from the 32-bit values (C truncation keeps the low byte, the strided view's byte on
            # this little-endian layout): a cast loop runs about 5x faster than a stride-4 gather.
            if dtype.itemsize == 1:
                np.copyto(target[first:first + value.size], wide.reshape(-1), casting="unsafe")
            else:
                target[first:first + value.size] = value.reshape(-1)
            n_active = value.size
            _record_access(ctx, batch, True, va, index, dtype.itemsize, None, first)
            ctx.stats.bytes_written += n_active * dtype.itemsize
            ctx.stats.memory_bytes[ctx.pc] += n_active * dtype.itemsize
            continue
        if (selector is None and rows is not None and ctx.stats.record is None and dtype.itemsize > 1
                and _store_rows(target, rows, value, batch.width, count)):
            # Hot path: every wave's lanes write consecutive elements, the waves' runs evenly spaced
            # and apart (found on the offsets' Ramp columns): one strided window of memory.
            ctx.stats.bytes_written += value.size * dtype.itemsize
            ctx.stats.memory_bytes[ctx.pc] += value.size * dtype.itemsize
            continue
        if index is None:
            index = _element_indices(batch, operands, dtype.itemsize)
        index = np.broadcast_to(index, shape)
        active = batch.exec if selector is None else (batch.exec & selector[:, None])
        valid = index < np.uint32(count) if count < (1 << 32) else np.ones_like(index, dtype=bool)
        if selector is None and batch.exec_full and valid.all():
            # Hot path: every lane active and in range, one scatter (lane order: last write wins).
            target[index.reshape(-1)] = value.reshape(-1)
            n_active = index.size
            _record_access(ctx, batch, True, va, index, dtype.itemsize, None, None)
        else:
            use = active & valid
            n_active = int(active.sum())
            n_use = int(use.sum())
            ctx.stats.oob_writes += n_active - n_use
            if n_use:
                target[index[use]] = value[use]
                _record_access(ctx, batch, True, va, index, dtype.itemsize, use, None)
        ctx.stats.bytes_written += n_active * dtype.itemsize
        ctx.stats.memory_bytes[ctx.pc] += n_active * dtype.itemsize


def _store_rows(target, rows, value, width, count):
    """Store `value` (W, width) where wave w's lanes write elements rows[w] .. rows[w] + width - 1 when the
    waves' runs (joined as for loads, _joined_runs) are evenly spaced, do not overlap (so the lane order
    of the writes does not matter) and lie inside `count` elements: one assignment to a strided view of
    `target`. Returns whether it stored (else nothing was written)."""
    if count < width or int(rows.max()) + width > count:
        return False
    starts, length = _joined_runs(rows.astype(np.intp), width)
    if starts.size > 1:
        step = int(starts[1] - starts[0])
        if step < length or not (starts[1:] - starts[:-1] == step).all():
            return False
    else:
        step = length
    window = _strided(target, int(starts[0]), (starts.size, length), (step, 1))
    window[...] = value.reshape(starts.size, length)
    return True


# ---- workgroup instructions: LDS, atomics, cross-lane ------------------------------------------------
class _LdsLanes:
    """Where an LDS instruction's lanes go: `flat` byte indices (W, width) into the batch's
    LocalDataShare, `use` the lanes that access (active and in range; None: every lane), their
    counts, and the byte addresses the kernel formed (for the timing record).

    Fast forms (_lds_ramp_lanes, the timing model off): `lanes` the used lanes' positions in the
    flattened (W, width) lanes (lane order) with `used_flat` their byte indices, instead of `use`
    and `flat`; `run` the first access (in units of the access size) when the used waves, every
    k-th wave from one on (`waves_used`, a slice of the batch's waves; None: all of them), use their
    lanes 0 .. n-1 (`shape` (waves used, n): every lane, or the same first n lanes, as the levels of
    an LDS tree leave EXEC) and each wave's accesses are consecutive, the waves `wave_step` accesses
    apart and their runs disjoint: a slice of the LDS (`wave_step` n: one run) or a strided view of it
    instead of a gather."""

    __slots__ = ("flat", "use", "active", "n_active", "n_use", "addresses", "lanes", "used_flat", "run", "access",
                 "wave_step", "shape", "waves_used", "group", "distinct", "passes")

    def __init__(self):
        self.lanes = None
        self.distinct = None     # _lds_array_lanes: (the distinct flat indices before the offset, the offset)
        self.passes = None       # _lds_array_lanes: [the register's byte addresses, their bank passes or None]
        self.run = None
        self.waves_used = None
        self.group = 1           # the run form's rows: this many consecutive waves each (_Region's group)

    def whole(self, shape):
        """Whether the run form covers every lane of the batch's (W, width) lanes."""
        return self.waves_used is None and self.group == 1 and self.shape == shape

    def regrouped(self, array):
        """A (W, width) array as the run form's rows: (W / group, group * width), a view when it is contiguous."""
        if self.group == 1:
            return array
        return array.reshape(array.shape[0] // self.group, array.shape[1] * self.group)

    def run_lanes(self):
        """The run form's lanes as an index of the batch's (W, width) lanes."""
        return (slice(None) if self.waves_used is None else self.waves_used), slice(0, self.shape[1])

    def run_view(self, array):
        """The `run` form's (W, width) view of `array` (a view of the LDS bytes in units of the access)."""
        waves, width = self.shape
        if self.wave_step == width:
            return array[self.run:self.run + waves * width].reshape(self.shape)
        return _strided(array, self.run, self.shape, (self.wave_step, 1))

    def at(self, shift):
        """The used lanes' indices in units of 2^shift bytes, lane order (flattened)."""
        if self.run is not None:
            waves, width = self.shape
            flat = ((np.arange(waves, dtype=np.int64) * self.wave_step + self.run)[:, None]
                    + np.arange(width, dtype=np.int64)).reshape(-1) * self.access
        elif self.lanes is not None:
            flat = self.used_flat
        else:
            flat = self.flat.reshape(-1) if self.use is None else self.flat[self.use]
        return flat >> shift if shift else flat

    def spread(self, values, shape, dtype):
        """A (W, width) array with `values` (one per used lane, lane order) in the used lanes, 0 elsewhere."""
        if self.lanes is not None:
            out = np.zeros(shape[0] * shape[1], dtype=dtype)
            out[self.lanes] = values
            return out.reshape(shape)
        if self.run is not None and not self.whole(shape):
            out = np.zeros(shape, dtype=dtype)
            self.regrouped(out)[self.run_lanes()] = values.reshape(self.shape)
            return out
        if self.use is None:
            return values.reshape(shape)
        out = np.zeros(shape, dtype=dtype)
        out[self.use] = values
        return out

    def pick(self, values, shape):
        """The used lanes of a (W, width)-broadcastable array, lane order."""
        values = broadcast(values, shape)
        if self.lanes is not None:
            if values.flags.c_contiguous:
                return values.reshape(-1)[self.lanes]
            return values[self.lanes // shape[1], self.lanes % shape[1]]
        if self.run is not None and not self.whole(shape):
            return self.regrouped(values)[self.run_lanes()].reshape(-1)
        return values.reshape(-1) if self.use is None else values[self.use]


def _lds_ramp_lanes(ctx, batch, address, offset, access_bytes):
    """The _LdsLanes of an LDS instruction whose address register is a Ramp (thread id times the
    access size, the LDS trees' case) that steps one access a lane, every address aligned and every
    lane's access inside its workgroup's LDS, with the timing model off; None otherwise (then
    _lds_lanes forms every lane's address). O(W) plus the used lanes: the per-wave start of each
    wave's accesses, from the Ramp's columns."""
    lds = ctx.lds
    if (lds is None or ctx.stats.record is not None or not isinstance(address, Ramp) or access_bytes > 8
            or address.step.size != 1 or int(address.step.flat[0]) != access_bytes or address.wraps()):
        return None
    # Found once per EXEC and workgroups for this address Ramp (an LDS tree's level reads and writes through
    # one Ramp under one EXEC; its levels share the Ramp): the memo holds the EXEC and workgroup arrays it was
    # found for, and answers only for those very objects (registers and masks are never changed in place).
    memo = address.memo(("lds lanes", offset, access_bytes, lds.first_group, lds.size), dict)
    found = memo.get(id(batch.exec_compact))
    if found is not None and found[0] is batch.exec_compact and found[1] is batch.workgroup:
        return found[2]
    lanes = _lds_ramp_lanes_found(batch, address, offset, access_bytes, lds)
    if len(memo) >= _LDS_MEMO:
        memo.clear()       # a loop under ever new EXECs: bounded (each entry holds its EXEC array)
    memo[id(batch.exec_compact)] = (batch.exec_compact, batch.workgroup, lanes)
    return lanes


_LDS_MEMO = 16      # EXECs an address Ramp remembers LDS lanes for (an LDS tree has at most 10 levels)


def _lds_ramp_lanes_found(batch, address, offset, access_bytes, lds):
    """_lds_ramp_lanes's answer, found (not remembered)."""
    width, waves = batch.width, batch.waves
    base = address.base.reshape(-1).astype(np.int64)
    if offset:
        base += offset
    if (base & (access_bytes - 1)).any():
        return None
    if base.size != waves:
        base = np.broadcast_to(base, (waves,))
    lanes = _LdsLanes()
    lanes.access = access_bytes
    lanes.use = None
    ramp = np.arange(width, dtype=np.int64) * access_bytes
    slot = batch.workgroup.reshape(-1).astype(np.int64) - lds.first_group
    if batch.exec_full:
        if int(base.max()) + access_bytes * width > lds.size:
            return None        # some lane past its workgroup's LDS
        if _lds_run(lanes, base, slot, lds.size, access_bytes, width):
            return lanes
        starts = base + slot * lds.size
        lanes.n_active = lanes.n_use = waves * width
        positions = np.arange(waves * width)
        used_flat = (starts[:, None] + ramp).reshape(-1)
    else:
        compact = batch.exec_compact
        region = _exec_region(batch)
        if region is not None and region.group == 1:
            lanes.waves_used, n = region.rows, region.n
            pick = slice(None) if lanes.waves_used is None else lanes.waves_used
            if int(base[pick].max()) + access_bytes * n <= lds.size and \
                    _lds_run(lanes, base[pick], slot[pick], lds.size, access_bytes, n):
                return lanes
            lanes.waves_used = None
        elif region is not None:
            # The first j waves of every k: one run per k waves when those j waves' accesses follow one
            # another in one workgroup's LDS (thread ids times the access size).
            k, n = region.group, region.n
            bases, slots = base.reshape(-1, k), slot.reshape(-1, k)
            j = n // width
            if ((slots == slots[:, :1]).all() and int(bases[:, 0].max()) + access_bytes * n <= lds.size
                    and (bases[:, :j] == bases[:, :1] + np.arange(j) * (width * access_bytes)).all()
                    and _lds_run(lanes, bases[:, 0], slots[:, 0], lds.size, access_bytes, n)):
                lanes.group = k
                return lanes
        if compact.shape == (waves, 1):
            used = np.flatnonzero(compact.reshape(-1))
            if used.size and int(base[used].max()) + access_bytes * width > lds.size:
                return None
            positions = (used[:, None] * width + np.arange(width)).reshape(-1)
            used_flat = ((base[used] + slot[used] * lds.size)[:, None] + ramp).reshape(-1)
        else:
            positions = np.flatnonzero(batch.exec)
            shift = width.bit_length() - 1        # widths are powers of two
            wave, lane = positions >> shift, positions & (width - 1)
            local = base[wave] + lane * access_bytes
            if positions.size and int(local.max()) + access_bytes > lds.size:
                return None
            used_flat = local + slot[wave] * lds.size
    lanes.lanes, lanes.used_flat = positions, used_flat
    lanes.n_active = lanes.n_use = positions.size
    return lanes


class _Region:
    """EXEC as a block of lanes: the batch's (W, width) lanes seen as W / group rows of group * width lanes
    (`group` consecutive waves a row), EXEC is lanes 0 .. n-1 of the rows `rows` (a slice; None: every row) and
    no other lane. The levels of an LDS tree leave EXEC so: the first n lanes of every k-th wave (group 1), or
    the first j waves of every group of k (group k, n = j * width)."""

    __slots__ = ("group", "rows", "n")

    def __init__(self, group, rows, n):
        self.group, self.rows, self.n = group, rows, n

    def lanes(self, shape):
        """The region's shape (rows, n) in a batch of (W, width) lanes."""
        rows = shape[0] // self.group
        return (rows if self.rows is None else len(range(*self.rows.indices(rows))), self.n)

    def view(self, array):
        """The region's lanes of a (W, width) array: a view when the array is contiguous (else a copy)."""
        if self.group != 1:
            array = array.reshape(array.shape[0] // self.group, array.shape[1] * self.group)
        return array[slice(None) if self.rows is None else self.rows, :self.n]

    def take(self, value, shape):
        """An operand's values on the region's lanes, broadcastable to the region's shape: a uniform stays one
        value, a Ramp's first n lanes come from its columns (group 1), anything else is viewed (view)."""
        if isinstance(value, Ramp):
            if self.group == 1:
                pick = (lambda c: c if c.shape[0] == 1 or self.rows is None else c[self.rows])
                return Ramp(pick(value.base), pick(value.step), self.n).values()
            value = value.values()
        value = np.asarray(value)
        if value.size == 1:
            return value.reshape(1, 1)
        if self.group == 1 and value.shape[1] == 1:
            return value if self.rows is None or value.shape[0] == 1 else value[self.rows]
        return self.view(broadcast(value, shape))


def _exec_region(batch):
    """The _Region that EXEC is, found once per EXEC (batch.exec_region), or None (EXEC is no such block, or
    has no lane, or every lane)."""
    region = batch.exec_region
    if region is None:
        region = False
        if not batch.exec_full:
            used = _exec_used(batch)
            if used is not None:
                region = _Region(1, used[0], used[1])
            else:
                blocks = _exec_blocks(batch)
                if blocks is not None:
                    region = _Region(blocks[0], None, blocks[1] * batch.width)
        batch.exec_region = region
    return region or None


def _exec_blocks(batch):
    """(k, j) when EXEC is one value per wave and holds, of every k consecutive waves of the batch from the
    first, the first j (0 < j < k) and no other wave; else None. O(W)."""
    compact, count = batch.exec_compact, batch.waves
    if compact.shape != (count, 1):
        return None
    column = compact.reshape(-1)
    off = np.flatnonzero(~column)
    if not off.size or not column[0]:
        return None
    j = int(off[0])
    on = np.flatnonzero(column[j:])
    k = j + int(on[0]) if on.size else count
    if count % k or not (column.reshape(-1, k) == (np.arange(k) < j)).all():
        return None
    return k, j


def _exec_used(batch):
    """(waves, n) when EXEC holds the lanes 0 .. n-1 of the waves j, j + k, j + 2k, ... (`waves` that
    slice of the batch's waves, None for all of them) and no other lane; else None (no lane at all
    included). O(W) when EXEC is one value per wave, else a pass over its lanes."""
    compact, count = batch.exec_compact, batch.waves
    if compact.shape == (count, 1):
        mask, column, n = None, compact.reshape(-1), batch.width
    else:
        mask = batch.exec
        column, n = mask[:, 0], None
    used = np.flatnonzero(column)
    if not used.size:
        return None
    first, k = int(used[0]), int(used[1] - used[0]) if used.size > 1 else 1
    if used.size > 1 and not (used[1:] - used[:-1] == k).all():
        return None
    waves = slice(first, first + k * (used.size - 1) + 1, k)
    if mask is not None:
        rows = mask[waves]
        row = rows[0]
        n = int(np.count_nonzero(row))
        if not row[:n].all() or not (rows == row).all() or int(np.count_nonzero(mask)) != used.size * n:
            return None
    return (None if used.size == count else waves), n


def _lds_run(lanes, base, slot, size, access_bytes, used):
    """Make `lanes` the run form (see _LdsLanes) for waves whose lanes 0 .. used-1 access from their
    workgroup's LDS byte `base` (W,) on, when the waves' starts are evenly spaced and their runs apart
    (then the order of the lanes' writes does not matter); returns whether it did. The caller has checked
    that every access lies inside its workgroup's `size` bytes."""
    starts = base + slot * size
    waves, run_bytes = starts.size, used * access_bytes
    step = int(starts[1] - starts[0]) if waves > 1 else run_bytes
    if step < run_bytes or step % access_bytes or (waves > 1 and not (starts[1:] - starts[:-1] == step).all()):
        return False
    lanes.run, lanes.wave_step, lanes.shape = int(starts[0]) // access_bytes, step // access_bytes, (waves, used)
    lanes.n_active = lanes.n_use = waves * used
    return True


def _lds_lanes(ctx, batch, address_operand, offset, access_bytes):
    """The _LdsLanes of an LDS instruction (counts nothing)."""
    address = batch.read(address_operand, "u32")
    fast = _lds_ramp_lanes(ctx, batch, address, offset, access_bytes)
    if fast is not None:
        return fast
    fast = _lds_array_lanes(ctx, batch, address_operand, address, offset, access_bytes)
    if fast is not None:
        return fast
    lanes = _LdsLanes()
    shape = (batch.waves, batch.width)
    addresses = np.asarray(address).astype(np.int64)
    if offset:
        addresses += offset
    lanes.addresses = addresses = np.broadcast_to(addresses, shape)
    active = batch.exec
    lanes.n_active = active.size if batch.exec_full else int(np.count_nonzero(active))
    lds = ctx.lds
    if lds is None:
        lanes.flat, lanes.use, lanes.n_use = np.zeros(shape, dtype=np.int64), np.zeros(shape, dtype=bool), 0
        return lanes
    lanes.flat, in_range = lds.flat_addresses(batch.workgroup, addresses, access_bytes)
    if batch.exec_full and in_range.all():
        lanes.use, lanes.n_use = None, lanes.n_active
    else:
        lanes.use = np.broadcast_to(active & in_range, shape)
        lanes.n_use = int(np.count_nonzero(lanes.use))
    return lanes


def _record_lds(ctx, batch, lanes, access_bytes, is_write):
    record = ctx.stats.record
    if record is not None and lanes.passes is not None:
        # _lds_array_lanes: the address register's bank-conflict passes, found once. An offset of whole dwords
        # renames the banks (dword d + o is in bank (d + o) mod banks, a bijection) and keeps which lanes share a
        # dword, so each bank's count of distinct dwords is permuted and their maximum, the passes, unchanged.
        held = lanes.passes
        if held[1] is None:
            held[1] = record.lds_passes(held[0], np.ones(held[0].shape, dtype=bool), access_bytes)
        record.add_lds_passes(ctx.slot, is_write, batch.wave_index.reshape(-1), held[1], access_bytes)
        return
    if record is not None:
        use = np.ones((batch.waves, batch.width), dtype=bool) if lanes.use is None else lanes.use
        record.add_lds(ctx.slot, is_write, batch.wave_index.reshape(-1), lanes.addresses, use, access_bytes)


def _lds_access_bytes(entry):
    return np.dtype(op.MEM_TYPES[entry.mem_type]).itemsize * entry.mem_dwords


def _note_unwritten(ctx, count):
    if count:
        stats = ctx.stats
        stats.lds_unwritten_reads += count
        if stats.lds_unwritten_first_pc is None:
            stats.lds_unwritten_first_pc = ctx.pc


def _lds_load(ctx, batch, entry, operands):
    size = _lds_access_bytes(entry)
    lanes = _lds_lanes(ctx, batch, operands[1], operands[2], size)
    stats, lds, shape = ctx.stats, ctx.lds, (batch.waves, batch.width)
    stats.lds_oob_reads += lanes.n_active - lanes.n_use
    stats.lds_bytes_read += lanes.n_active * size
    _record_lds(ctx, batch, lanes, size, False)
    if entry.mem_dwords == 1:
        dtype = np.dtype(op.MEM_TYPES[entry.mem_type])
        if lanes.run is not None:
            # Every lane, each wave's accesses consecutive: a slice or strided view of the LDS, copied
            # (LDS changes later).
            _note_unwritten(ctx, lds.unwritten_count(lanes.run_view(lds.written.view(_LDS_WORD[size])), size))
            result = lanes.run_view(lds.data.view(dtype)).copy()
            if not lanes.whole(shape):
                # Some waves' first n lanes: those lanes of the register change, the others keep their
                # values (EXEC is exactly those lanes, so the write needs no mask).
                if dtype.itemsize < 4:
                    result = result.astype(np.int32 if entry.sign_extend else np.uint32).view(np.uint32)
                merged = np.array(broadcast(np.asarray(batch.read(operands[0], "b32")), shape))
                lanes.regrouped(merged)[lanes.run_lanes()] = result
                batch.write(operands[0], "b32", merged, masked=False)
                return
        elif lanes.n_use:
            at = lanes.at(0)
            _note_unwritten(ctx, lds.unwritten(at, size))
            shift = dtype.itemsize.bit_length() - 1
            result = lanes.spread(lds.data.view(dtype)[at >> shift if shift else at], shape, dtype)
        else:
            result = np.zeros(shape, dtype=dtype)
        if dtype.itemsize < 4:
            wide = np.int32 if entry.sign_extend else np.uint32
            result = result.astype(wide).view(np.uint32)
        batch.write(operands[0], "b32", result, masked=True)
        return
    if lanes.n_use:
        words = _lds_words(ctx, lanes, entry.mem_dwords, size, shape)
    else:
        words = [np.zeros(shape, dtype=np.uint32) for _ in range(entry.mem_dwords)]
    if entry.mem_dwords == 2:
        batch.write(operands[0], "b64", (words[1].astype(np.uint64) << np.uint64(32)) | words[0], masked=True)
    else:
        batch.write(operands[0], entry.types[0], words, masked=True)


def _lds_store(ctx, batch, entry, operands):
    size = _lds_access_bytes(entry)
    lanes = _lds_lanes(ctx, batch, operands[0], operands[2], size)
    stats = ctx.stats
    stats.lds_oob_writes += lanes.n_active - lanes.n_use
    stats.lds_bytes_written += lanes.n_active * size
    _record_lds(ctx, batch, lanes, size, True)
    if not lanes.n_use:
        return
    lds, shape = ctx.lds, (batch.waves, batch.width)
    if lanes.run is not None and entry.mem_dwords == 1:
        # Every lane, each wave's accesses consecutive: one slice or strided view of the LDS.
        dtype = np.dtype(op.MEM_TYPES[entry.mem_type])
        value = broadcast(np.asarray(batch.read(operands[1], "b32"), dtype=np.uint32), shape)
        np.copyto(lanes.run_view(lds.data.view(dtype)), lanes.regrouped(value)[lanes.run_lanes()],
                  casting="unsafe")   # the low bits
        lanes.run_view(lds.written.view(_LDS_WORD[size]))[...] = _LDS_ALL_ONES[size]
        return
    at = lanes.at(0)
    # Lanes in (wave, lane) order: where two lanes write one address the later lane's value stays.
    if entry.mem_dwords == 1:
        dtype = np.dtype(op.MEM_TYPES[entry.mem_type])
        value = lanes.pick(np.asarray(batch.read(operands[1], "b32"), dtype=np.uint32), shape)
        shift = dtype.itemsize.bit_length() - 1
        lds.data.view(dtype)[at >> shift if shift else at] = value.astype(dtype, copy=False)   # the low bits
    else:
        if entry.mem_dwords == 2:
            pair = batch.read(operands[1], "b64").view(np.uint64)
            words = ((pair & np.uint64(0xFFFFFFFF)).astype(np.uint32), (pair >> np.uint64(32)).astype(np.uint32))
        else:
            words = batch.read(operands[1], entry.types[1])
        view, first = lds.data.view(np.uint32), at >> 2
        for i, word in enumerate(words):
            view[first + i] = lanes.pick(word, shape)
    lds.mark_written(at, size)


def _lds_array_lanes(ctx, batch, operand, address, offset, access_bytes):
    """The _LdsLanes of an LDS instruction whose address is a vector register holding an array (a tiled kernel's
    per-lane addresses, formed once before its loop and read by every unrolled ds_read of the loop at its own
    offset), every lane active and every access inside its workgroup's LDS; None otherwise (then _lds_lanes forms
    every lane's address). The lanes' aligned byte indices into the batch's LDS (LocalDataShare.flat_addresses)
    are found once per register array, workgroups and access size, and remembered for the run (a register's
    array is never changed in place; the memo holds the very objects it was found for); each instruction then
    adds its offset, a whole number of accesses, and checks the highest address against the LDS's size. From
    the register's fourth such access on, `distinct` lets _unwritten_reads look at its distinct addresses only."""
    lds = ctx.lds
    if lds is None or not batch.exec_full or not operand.is_vgpr or offset % access_bytes:
        return None
    register = batch.vgpr[operand.code - VGPR_BASE]
    if type(register) is not np.ndarray or register.dtype != np.uint32:
        return None
    memo = ctx.lds_memo
    found = memo.get((operand.code, access_bytes))
    if found is None or found[0] is not register or found[1] is not batch.workgroup or found[2] is not lds:
        addresses = np.broadcast_to(np.asarray(address).astype(np.int64), (batch.waves, batch.width))
        flat, _ = lds.flat_addresses(batch.workgroup, addresses, access_bytes)
        flat.flags.writeable = False        # shared by every instruction that reads through this register
        top = int(addresses.max()) & ~(access_bytes - 1)
        found = memo[(operand.code, access_bytes)] = (register, batch.workgroup, lds, flat, top, [0], [addresses, None])
    flat, top, distinct = found[3], found[4], found[5]
    if top + offset > lds.size - access_bytes:
        return None                          # some lane past its workgroup's LDS: _lds_lanes counts it
    lanes = _LdsLanes()
    lanes.flat = flat + offset if offset else flat
    lanes.use = None
    lanes.n_active = lanes.n_use = flat.size
    distinct[0] += 1
    if distinct[0] >= 4:
        if len(distinct) == 1:
            distinct.append(np.unique(flat))
        lanes.distinct = (distinct[1], offset)
    if ctx.stats.record is not None:
        if offset % 4 == 0:
            lanes.passes = found[6]      # the same passes at every offset of whole dwords (_record_lds)
        else:
            lanes.addresses = np.broadcast_to(np.asarray(address).astype(np.int64) + offset, flat.shape)
    return lanes


def _lds_words(ctx, lanes, dwords, access_bytes, shape):
    """The `dwords` dword arrays (each `shape`) that a multi-dword LDS read of `lanes` (some used) gives: a
    gather per dword (from a view that starts at that dword, so no index is added to), 0 in the lanes not used;
    its reads of bytes never written counted (_unwritten_reads)."""
    lds = ctx.lds
    at = lanes.at(0)
    _note_unwritten(ctx, _unwritten_reads(ctx, lanes, at, access_bytes))
    view, first = lds.data.view(np.uint32), at >> 2
    return [lanes.spread(view[i:].take(first), shape, np.uint32) for i in range(dwords)]


def _unwritten_reads(ctx, lanes, at, access_bytes):
    """LocalDataShare.unwritten(at, access_bytes) for the batch's LDS: on the lanes' distinct addresses first
    where _lds_array_lanes found them (a GEMM's lanes read a few addresses each: a row of A, a column of B), the
    count on every lane only when some of those read bytes never written."""
    if lanes.distinct is not None:
        distinct, offset = lanes.distinct
        if not ctx.lds.unwritten(distinct + offset if offset else distinct, access_bytes):
            return 0
    return ctx.lds.unwritten(at, access_bytes)


def _lds_atomic(ctx, batch, entry, operands):
    returns = entry.returns
    sources = operands[1:] if returns else operands
    lanes = _lds_lanes(ctx, batch, sources[0], sources[-1], 4)
    stats, shape = ctx.stats, (batch.waves, batch.width)
    stats.lds_oob_writes += lanes.n_active - lanes.n_use
    stats.lds_bytes_read += lanes.n_active * 4
    stats.lds_bytes_written += lanes.n_active * 4
    _record_lds(ctx, batch, lanes, 4, True)
    types = entry.types[1:] if returns else entry.types
    data = [lanes.pick(np.asarray(batch.read(o, t)).view(np.uint32), shape)
            for o, t in zip(sources[1:-1], types[1:-1])]
    old = None
    if lanes.n_use:
        compare, value = (data[0], data[1]) if len(data) == 2 else (None, data[0])
        at = lanes.at(0)
        # The first lane on a dword reads it; the later ones read what the earlier wrote.
        _note_unwritten(ctx, ctx.lds.unwritten(at, 4, distinct=True))
        ctx.lds.mark_written(at, 4)
        old = atomics.apply(ctx.lds.data.view(np.uint32), at >> 2, value, compare, entry.name_of_operation, returns)
    if returns:
        result = lanes.spread(old, shape, np.uint32) if old is not None else np.zeros(shape, dtype=np.uint32)
        batch.write(operands[0], "b32", result, masked=True)


def _lds_permute(ctx, batch, entry, operands):
    sources = [batch.read(o, t) for o, t in zip(operands[1:], entry.types[1:])]
    batch.write(operands[0], "b32", entry.semantics(batch.exec, *sources), masked=True)


def _lane(ctx, batch, entry, operands):
    destination = operands[0]
    old = batch.read(destination, "b32") if entry.operands[0] == op.VDST else None
    sources = [o if kind == op.IMM else batch.read(o, t)
               for o, kind, t in zip(operands[1:], entry.operands[1:], entry.types[1:])]
    value = entry.semantics(batch.exec, old, *sources)
    # readlane / readfirstlane write a scalar; writelane writes its lane whatever EXEC says; the
    # DPP-style moves write the active lanes.
    batch.write(destination, "b32", value, masked=entry.operands[0] == op.VDST and entry.mnemonic != "v_writelane_b32")


def _matrix(ctx, batch, entry, operands):
    # A wave matrix instruction (isa/matrix.py): reads its fragments' 8 dwords each, writes every lane.
    fragments = [batch.read(o, t) for o, t in zip(operands[1:], entry.types[1:])]
    value = entry.semantics(batch.exec, None, *fragments)
    batch.write(operands[0], entry.types[0], value, masked=False)


def _atomic(ctx, batch, entry, operands):
    returns = entry.returns
    sources = operands[1:] if returns else operands
    shape = (batch.waves, batch.width)
    data_type = entry.types[1] if returns else entry.types[0]
    raw = batch.read(sources[0], data_type)
    if data_type == "b64":       # cmpswap: the pair's low dword is the new value, the high the compare value
        pair = np.broadcast_to(np.asarray(raw).view(np.uint64), shape)
        value = (pair & np.uint64(0xFFFFFFFF)).astype(np.uint32)
        compare = (pair >> np.uint64(32)).astype(np.uint32)
    else:
        value, compare = broadcast(np.asarray(raw).view(np.uint32), shape), None
    address_operands = sources[1:]        # (vaddr, descriptor, imm): the layout of a buffer load's
    result = np.zeros(shape, dtype=np.uint32) if returns else None
    lane_index = _element_indices(batch, (None,) + tuple(address_operands), 4)
    region = _exec_region(batch) if not batch.exec_full and ctx.stats.record is None else None
    index = None if region is not None else np.broadcast_to(lane_index, shape)
    for selector, dwords in _descriptor_groups(batch, address_operands[1]):
        if dwords[3] & READ_ONLY:
            _read_only(ctx, batch, selector)
            continue
        data, size, va = _resolve(ctx, dwords)
        count = size // 4
        if selector is None and region is not None:
            _atomic_region(ctx, batch, entry, region, data[:count * 4], lane_index, value, compare, result)
            continue
        if index is None:
            index = np.broadcast_to(lane_index, shape)
        active = batch.exec if selector is None else (batch.exec & selector[:, None])
        valid = index.astype(np.int64) < count
        use = active & valid
        n_active, n_use = int(np.count_nonzero(active)), int(np.count_nonzero(use))
        ctx.stats.oob_writes += n_active - n_use
        ctx.stats.bytes_read += n_active * 4
        ctx.stats.bytes_written += n_active * 4
        ctx.stats.memory_bytes[ctx.pc] += n_active * 4
        if not n_use:
            continue
        if batch.views:
            _detach(batch, data[:count * 4])
        at = index[use].astype(np.int64)
        old = atomics.apply(data[:count * 4].view(np.uint32), at, value[use],
                            None if compare is None else compare[use], entry.name_of_operation, returns)
        if returns:
            result[use] = old
        record = ctx.stats.record
        if record is not None:
            record.add_atomic(ctx.slot, batch.wave_index.reshape(-1),
                              np.int64(va) + index.astype(np.int64) * 4, use)
    if returns:
        batch.write(operands[0], "b32", result, masked=True)


def _atomic_region(ctx, batch, entry, region, data, lane_index, value, compare, result):
    """_atomic's lanes when EXEC is a _Region (thread 0 of every workgroup counting its partial, ...): the
    region's lanes only, in lane order (atomics.apply), the other lanes' results 0 as _atomic leaves them."""
    shape = (batch.waves, batch.width)
    lanes = region.lanes(shape)
    at = broadcast(region.take(lane_index, shape), lanes).astype(np.int64)
    use = at < data.size // 4
    n_use = int(np.count_nonzero(use))
    stats = ctx.stats
    stats.oob_writes += at.size - n_use
    stats.bytes_read += at.size * 4
    stats.bytes_written += at.size * 4
    stats.memory_bytes[ctx.pc] += at.size * 4
    if not n_use:
        return
    if batch.views:
        _detach(batch, data)
    pick = lambda x: broadcast(region.take(x, shape), lanes)[use]
    old = atomics.apply(data.view(np.uint32), at[use], pick(value), None if compare is None else pick(compare),
                        entry.name_of_operation, entry.returns)
    if entry.returns:
        lanes_old = np.zeros(lanes, dtype=np.uint32)
        lanes_old[use] = old
        region.view(result)[...] = lanes_old


def _read_only(ctx, batch, selector):
    """A store or atomic through a read-only (SRV or CBV) descriptor: nothing is written; its active
    lanes are counted (the D3D12 debug layer reports them, as GPU-based validation does)."""
    active = batch.exec if selector is None else (batch.exec & selector[:, None])
    lanes = int(np.count_nonzero(active))
    ctx.stats.readonly_writes += lanes
    if lanes and ctx.stats.readonly_first_pc is None:
        ctx.stats.readonly_first_pc = ctx.pc


# ---- image memory: image_load / image_store through a typed texture view ------------------------------
def _image_groups(batch, operand):
    """Yield (wave selector or None, 8 descriptor dwords) for each distinct image descriptor."""
    return _descriptor_groups(batch, operand, IMAGE_DWORDS)


def _image_lanes(ctx, batch, address_operand, selector, dwords):
    """For one descriptor's lanes: (active (W, width), texel format, bytes of the view or None, byte offsets
    and in-range flags of the active lanes, in lane order)."""
    shape = (batch.waves, batch.width)
    active = batch.exec if selector is None else (batch.exec & selector[:, None])
    active = np.broadcast_to(active, shape)
    view = unpack_image_descriptor(dwords)
    fmt = TEXEL_FORMATS.get(view.format) if view is not None else None
    data, size, _ = _resolve(ctx, dwords[:4]) if fmt is not None else (None, 0, 0)
    if data is None:
        return active, fmt, None, None, None, view
    address = [np.broadcast_to(np.asarray(a), shape)[active] for a in batch.read(address_operand, "b128")]
    offsets, ok = texel_offsets(view, fmt.texel_bytes, *address)
    ok &= offsets + fmt.texel_bytes <= size
    return active, fmt, data, offsets, ok, view


def _record_texels(ctx, batch, is_write, view, active, offsets, ok):
    """The timing record of an image access: each used lane's texel address."""
    if ctx.stats.record is None:
        return
    shape = (batch.waves, batch.width)
    where, use = np.zeros(shape, dtype=np.int64), np.zeros(shape, dtype=bool)
    where[active], use[active] = offsets, ok
    _record_access(ctx, batch, is_write, view.va, where, 1, use, None)


def _image_load(ctx, batch, entry, operands):
    shape = (batch.waves, batch.width)
    result = np.zeros((4,) + shape, dtype=np.uint32)
    stats = ctx.stats
    for selector, dwords in _image_groups(batch, operands[2]):
        active, fmt, data, offsets, ok, view = _image_lanes(ctx, batch, operands[1], selector, dwords)
        n_active = int(np.count_nonzero(active))
        if data is None:
            stats.oob_reads += n_active
            continue
        n_use = int(np.count_nonzero(ok))
        stats.oob_reads += n_active - n_use
        values = np.zeros((4, n_active), dtype=np.uint32)
        if n_use:
            texels = data[offsets[ok, None] + np.arange(fmt.texel_bytes)]
            values[:, ok] = decode_texels(fmt, texels)
            _record_texels(ctx, batch, False, view, active, offsets, ok)
        result[:, active] = values
        stats.bytes_read += n_use * fmt.texel_bytes
        stats.memory_bytes[ctx.pc] += n_use * fmt.texel_bytes
    batch.write(operands[0], "b128", list(result), masked=True)


def _image_store(ctx, batch, entry, operands):
    shape = (batch.waves, batch.width)
    words = [np.broadcast_to(np.asarray(w, dtype=np.uint32), shape) for w in batch.read(operands[0], "b128")]
    stats = ctx.stats
    for selector, dwords in _image_groups(batch, operands[2]):
        if dwords[3] & READ_ONLY:
            _read_only(ctx, batch, selector)
            continue
        active, fmt, data, offsets, ok, view = _image_lanes(ctx, batch, operands[1], selector, dwords)
        n_active = int(np.count_nonzero(active))
        if data is None or fmt.kind == "UNORM_SRGB":    # sRGB has no stores (no UAV has it): a forged descriptor
            stats.oob_writes += n_active
            continue
        n_use = int(np.count_nonzero(ok))
        stats.oob_writes += n_active - n_use
        if n_use:
            if batch.views:
                _detach(batch, data)
            value = np.stack([w[active][ok] for w in words])
            # Lanes in (wave, lane) order: where two lanes write one texel the later lane's value stays.
            data[offsets[ok, None] + np.arange(fmt.texel_bytes)] = encode_texels(fmt, value)
            _record_texels(ctx, batch, True, view, active, offsets, ok)
        stats.bytes_written += n_use * fmt.texel_bytes
        stats.memory_bytes[ctx.pc] += n_use * fmt.texel_bytes


_IMAGE_HANDLERS = {"load": _image_load, "store": _image_store}


_HANDLERS = {"alu": _alu, "vcmp": _vcmp, "scmp": _scmp, "ctx": _ctx, "idle": _nop, "wait": _nop, "smem": _smem,
             "load": _load, "store": _store, "branch": None, "end": None, "barrier": None, "lane": _lane,
             "lds_load": _lds_load, "lds_store": _lds_store, "lds_atomic": _lds_atomic, "lds_permute": _lds_permute,
             "atomic": _atomic, "matrix": _matrix}
# Instructions whose executions are recorded per access slot for the timing model.
_SLOTTED = frozenset(("load", "store", "atomic", "lds_load", "lds_store", "lds_atomic"))


_BOUND = weakref.WeakKeyDictionary()   # Program -> its bound records (bind)


def bind(program):
    """The executor's view of a Program: per pc, (handler, opcode entry, operands, branch target
    index), built from the Program's records once per Program and kept while the Program lives."""
    bound = _BOUND.get(program)
    if bound is None:
        bound = tuple(((_IMAGE_HANDLERS if r.entry.image else _HANDLERS)[r.entry.kind], r.entry, r.operands, r.target)
                      for r in program.records)
        _BOUND[program] = bound
    return bound


def run(program, batch, memory, stats, lds=None, watchdog=None):
    """Execute `program` (an isa.program.Program) for every wave of `batch` until all reach s_endpgm.

    The batch holds whole workgroups; `lds` is their LocalDataShare (None: the kernel declares no LDS);
    `watchdog` the dispatch's Watchdog (None: only MAX_INSTRUCTIONS_PER_WAVE bounds it).
    """
    records = bind(program)
    ctx = _Context(memory, stats, share=True, lds=lds)
    # Waves per instruction counted in a Python list and added to the stats once at the end (a
    # NumPy element update per instruction costs more than the list's).
    per_instruction = [0] * len(records)
    record = stats.record
    work = [(0, batch, 0, [], {})]
    try:
        _run(records, program.name, ctx, per_instruction, record, work, watchdog)
    finally:
        counts = stats.instruction_waves
        counts += np.array(per_instruction, dtype=np.int64)
        unit_counts = stats.unit_instructions
        for pc, waves in enumerate(per_instruction):
            if waves:
                unit_counts[program.records[pc].entry.unit] += waves
        stats.wave_instructions = int(counts.sum())


def _run(records, name, ctx, per_instruction, record, work, watchdog):
    """Run the work list's paths (pc, waves, instructions executed, path so far, memory visits).

    A path runs until s_endpgm or an s_barrier; there it is parked. When no path can run, every
    parked path has arrived at a barrier and every other wave of its workgroup has arrived too or
    ended (waves that ended no longer count, as on AMD hardware): the barrier is released and the
    parked paths go on, in the order they arrived. The order is that of a depth-first walk of the
    batch's branch decisions, which for each workgroup does not depend on the other workgroups in
    the batch (so neither LDS contents nor atomic results depend on the batch size).
    """
    program_length = len(records)
    parked = []
    with np.errstate(all="ignore"):
        while True:
            while work:
                pc, b, executed, path, visits = work.pop()
                waves = b.waves
                while True:
                    handler, entry, operands, target = records[pc]
                    per_instruction[pc] += waves
                    if record is not None:
                        path.append(pc)
                    executed += 1
                    if executed > MAX_INSTRUCTIONS_PER_WAVE:
                        raise KernelFault(_endless(name, b, parked))
                    if not executed & 255 and watchdog is not None:
                        watchdog.issued += 256 * waves
                        watchdog.check(name, pc, executed)
                    kind = entry.kind
                    if kind == "end":
                        if record is not None:
                            record.add_path(path, b.wave_index.reshape(-1))
                        break
                    if kind == "branch":
                        taken = np.asarray(entry.semantics(b)).reshape(-1)
                        if taken.size == 1 or taken.all() or not taken.any():
                            pc = target if taken[0] else pc + 1
                            continue
                        # Divergent branch across waves: split the batch, follow both paths. A side
                        # that goes straight to s_endpgm ends there, its registers never copied.
                        if records[target][1].kind == "end" or records[pc + 1][1].kind == "end":
                            ends = taken if records[target][1].kind == "end" else ~taken
                            _end_waves(b, ends, target if ends is taken else pc + 1, per_instruction, record, path)
                            if ends is taken:
                                b, pc = b.select(~taken), pc + 1
                            else:
                                b, pc = b.select(taken), target
                            waves = b.waves
                            executed += 1
                            continue
                        work.append((target, b.select(taken), executed, list(path), dict(visits)))
                        b = b.select(~taken)
                        waves = b.waves
                        pc += 1
                        continue
                    if kind == "barrier":
                        parked.append((pc, b, executed, path, visits))
                        break
                    ctx.pc = pc
                    if record is not None and kind in _SLOTTED:
                        # The k-th execution of this memory instruction by these waves (a loop's trips
                        # are charged apart: dispatch_record.access_slot).
                        visit = visits.get(pc, 0)
                        visits[pc] = visit + 1
                        ctx.slot = access_slot(pc, visit, program_length)
                    handler(ctx, b, entry, operands)
                    pc += 1
            if not parked:
                return
            ctx.stats.barriers += _check_barrier(name, parked)
            work = [(pc + 1, b, executed, path, visits) for pc, b, executed, path, visits in reversed(parked)]
            parked = []


def _end_waves(batch, ends, end_pc, per_instruction, record, path):
    """The waves of `batch` where `ends` (W,) is true execute the s_endpgm at `end_pc`: counted, and their path
    recorded for the timing model, as _run's own end does."""
    per_instruction[end_pc] += int(np.count_nonzero(ends))
    if record is not None:
        record.add_path(path + [end_pc], batch.wave_index.reshape(-1)[ends])


def _waves_text(batch, group):
    """'waves 0, 2 wait' / 'wave 1 waits': the waves (numbered in their workgroup) of `batch` in `group`."""
    mine = batch.workgroup.reshape(-1) == group
    waves = np.broadcast_to(batch.wave_in_group.reshape(-1), mine.shape)[mine].tolist()
    shown = ", ".join(str(w) for w in waves[:8]) + (", ..." if len(waves) > 8 else "")
    return f"waves {shown} wait" if len(waves) > 1 else f"wave {shown} waits"


def _check_barrier(name, parked):
    """KernelFault when the waves of one workgroup wait at different s_barrier instructions: on a GPU
    they would wait for each other forever (HLSL forbids a barrier in divergent control flow). Returns
    the number of workgroups the barrier releases."""
    if len(parked) == 1:
        return _distinct_count(parked[0][1].workgroup)
    groups = [np.unique(b.workgroup) for _, b, *_ in parked]
    everyone = np.concatenate(groups)
    pcs = np.concatenate([np.full(g.size, pc) for (pc, *_), g in zip(parked, groups)])
    order = np.argsort(everyone, kind="stable")
    if not ((everyone[order][1:] == everyone[order][:-1]) & (pcs[order][1:] != pcs[order][:-1])).any():
        return int(np.unique(everyone).size)      # no workgroup waits at two barriers
    where = {}
    for pc, b, *_ in parked:
        for group in np.unique(b.workgroup).tolist():
            first = where.setdefault(group, (pc, b))
            if first[0] != pc:
                raise KernelFault(
                    f"{name}: divergent barrier: in workgroup {group}, {_waves_text(first[1], group)} at the "
                    f"s_barrier at instruction {first[0]} while {_waves_text(b, group)} at the s_barrier at "
                    f"instruction {pc}; every live wave of a workgroup must reach the same barrier")
    return len(where)


def _distinct_count(values):
    """How many distinct values a batch's (W, 1) column holds: O(W) when it is non-decreasing (the
    dispatcher forms waves in workgroup order, and a split keeps that order), else np.unique."""
    flat = values.reshape(-1)
    if flat.size > 1 and (flat[1:] >= flat[:-1]).all():
        return 1 + int(np.count_nonzero(flat[1:] != flat[:-1]))
    return int(np.unique(flat).size)


def _endless(name, batch, parked):
    text = f"{name}: a wave executed more than {MAX_INSTRUCTIONS_PER_WAVE} instructions without ending"
    for group in np.unique(batch.workgroup).tolist():
        for pc, b, *_ in parked:
            if (b.workgroup.reshape(-1) == group).any():
                return (f"{name}: in workgroup {group}, {_waves_text(batch, group).rsplit(' ', 1)[0]} executed more "
                        f"than {MAX_INSTRUCTIONS_PER_WAVE} instructions without ending, while "
                        f"{_waves_text(b, group)} at the s_barrier at instruction {pc} for them")
    return text


def step(program, batch, memory, stats, pc, lds=None):
    """Execute the one instruction at `pc` for `batch`; returns the next pc, or None after s_endpgm.

    For teaching tools (`dmlemu step`), which look at the registers between instructions; `run` is
    the fast path and does not use it. Same handlers and counters as `run`; the waves of the batch
    must agree on every branch (a batch of one wave always does).
    """
    handler, entry, operands, target = bind(program)[pc]
    stats.instruction_waves[pc] += batch.waves
    stats.unit_instructions[entry.unit] += batch.waves
    stats.wave_instructions += batch.waves
    if entry.kind == "end":
        return None
    if entry.kind == "branch":
        taken = np.asarray(entry.semantics(batch)).reshape(-1)
        if taken.size > 1 and taken.any() and not taken.all():
            raise KernelFault(f"{program.name}: the waves of the batch disagree on the branch at instruction "
                              f"{pc}; step one wave at a time")
        return target if taken[0] else pc + 1
    if entry.kind == "barrier":      # the caller steps the workgroup's waves to it (tools/stepper.py)
        return pc + 1
    ctx = _Context(memory, stats, lds=lds)
    ctx.pc = ctx.slot = pc
    with np.errstate(all="ignore"):
        handler(ctx, batch, entry, operands)
    return pc + 1
