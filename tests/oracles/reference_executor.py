"""A slow, obviously-correct reference executor: one wave at a time, one lane at a time.

It shares nothing with the fast executor (emulator/functional/executor.py, emulator/functional/wave.py) except the
opcode table's semantics functions, which it calls on one-element arrays per lane. Registers are
plain Python ints, control flow is followed wave by wave, memory is read and written byte by byte
through descriptors. The fast executor must agree with it bit for bit on every kernel and on
random instruction sequences.
"""
import numpy as np

from dmlemu.functional.buffer_descriptor import unpack_buffer_descriptor
from dmlemu.isa import opcodes as op
from dmlemu.isa.constants import constant_value
from dmlemu.isa.encoding import decode
from dmlemu.isa.operands import EXEC_HI, EXEC_LO, SCC, VCC_HI, VCC_LO

M32 = 0xFFFFFFFF


class RefWave:
    def __init__(self, width):
        self.width = width
        self.s = {}
        self.v = {}
        self.exec = [True] * width
        self.vcc = [False] * width
        self.scc = False

    def vget(self, r, lane):
        return self.v.get(r, [0] * self.width)[lane]

    def vset(self, r, lane, value):
        self.v.setdefault(r, [0] * self.width)[lane] = value & M32

    @staticmethod
    def pack(lanes):
        return sum(1 << i for i, on in enumerate(lanes) if on)

    def unpack(self, bits):
        return [bool((bits >> i) & 1) for i in range(self.width)]

    # 32-bit dword of a register code, for a lane (vector) or the wave (scalar)
    def dword(self, code, lane):
        if code >= 256:
            return self.vget(code - 256, lane)
        if code < 106:
            return self.s.get(code, 0)
        if code in (VCC_LO, VCC_HI):
            bits = self.pack(self.vcc)
            return (bits >> 32) & M32 if code == VCC_HI else bits & M32
        if code in (EXEC_LO, EXEC_HI):
            bits = self.pack(self.exec)
            return (bits >> 32) & M32 if code == EXEC_HI else bits & M32
        if code == SCC:
            return int(self.scc)
        raise AssertionError(code)

    def set_dword(self, code, lane, value):
        value &= M32
        if code >= 256:
            self.vset(code - 256, lane, value)
        elif code < 106:
            self.s[code] = value
        elif code in (VCC_LO, VCC_HI, EXEC_LO, EXEC_HI):
            lanes = self.vcc if code in (VCC_LO, VCC_HI) else self.exec
            bits = self.pack(lanes)
            if code in (VCC_LO, EXEC_LO):
                bits = (bits & ~M32) | value
            else:
                bits = (bits & M32) | (value << 32)
            new = self.unpack(bits)
            if code in (VCC_LO, VCC_HI):
                self.vcc = new
            else:
                self.exec = new
        elif code == SCC:
            self.scc = bool(value)
        else:
            raise AssertionError(code)


def _typed(bits, type_name):
    dtype, dwords = op.TYPES[type_name]
    if np.dtype(dtype).itemsize == 2:
        return np.array([[bits & 0xFFFF]], dtype=np.uint16).view(dtype)
    if dwords == 2:
        return np.array([[bits]], dtype=np.uint64).view(dtype)
    return np.array([[bits & M32]], dtype=np.uint32).view(dtype)


def _bits(value, type_name):
    dtype, dwords = op.TYPES[type_name]
    a = np.asarray(value).astype(dtype).reshape(-1)[:1]
    if np.dtype(dtype).itemsize == 2:
        return int(a.view(np.uint16)[0])
    if dwords == 2:
        return int(a.view(np.uint64)[0])
    return int(a.view(np.uint32)[0])


def read(w, operand, type_name, lane):
    if type_name == "mask":
        lanes = w.vcc if operand.code == VCC_LO else w.exec
        return np.array([[lanes[lane]]])
    if not operand.is_register:
        return np.array(constant_value(operand, type_name)).reshape(1, 1)
    dwords = op.TYPES[type_name][1]
    bits = w.dword(operand.code, lane)
    if dwords == 2:
        bits |= w.dword(operand.code + 1, lane) << 32
    return _typed(bits, type_name)


def write(w, operand, type_name, value, lane):
    bits = _bits(value, type_name)
    w.set_dword(operand.code, lane, bits & M32)
    if op.TYPES[type_name][1] == 2:
        w.set_dword(operand.code + 1, lane, bits >> 32)


class RefStats:
    def __init__(self):
        self.oob_reads = 0
        self.oob_writes = 0
        self.instructions = 0


def _descriptor(w, code):
    return unpack_buffer_descriptor([w.s.get(code + i, 0) for i in range(4)])


def _range(memory, va, size, valid):
    if not valid or size == 0:
        return None, 0
    allocation, offset = memory.resolve(va)
    if allocation is None:
        return None, 0
    return (allocation, offset), min(size, allocation.size - offset)


END, BARRIER = "end", "barrier"


def run_wave(program, w, memory, stats, wave_id, workgroup_id, limit=100000):
    """One wave from pc 0 to s_endpgm (a kernel without barriers)."""
    decoded = decode(program)
    index_of = {a: i for i, (a, _) in enumerate(decoded)}
    pc, steps = 0, 0
    while pc not in (END, BARRIER):
        steps += 1
        assert steps < limit, "reference wave did not end"
        pc = step(decoded, index_of, w, pc, memory, stats, wave_id, workgroup_id, None)
        assert pc != BARRIER, "run_wave: a kernel with barriers runs with run_launch"


def step(decoded, index_of, w, pc, memory, stats, wave_id, workgroup_id, lds):
    """Execute the instruction at pc for wave w; the next pc, END after s_endpgm, or BARRIER at an
    s_barrier (the caller continues the wave at pc + 1 once the workgroup has arrived)."""
    address, inst = decoded[pc]
    entry, ops = inst.opcode, inst.operands
    stats.instructions += 1
    kind = entry.kind
    if kind == "end":
        return END
    if kind == "barrier":
        return BARRIER
    if kind in ("idle", "wait"):
        return pc + 1
    if kind == "branch":
        m = entry.mnemonic
        taken = {
            "s_branch": True, "s_cbranch_scc0": not w.scc, "s_cbranch_scc1": w.scc,
            "s_cbranch_vccz": not any(w.vcc), "s_cbranch_vccnz": any(w.vcc),
            "s_cbranch_execz": not any(w.exec), "s_cbranch_execnz": any(w.exec),
        }[m]
        return index_of[address + inst.dwords + ops[0]] if taken else pc + 1
    vector_dst = entry.operands and entry.operands[0] == op.VDST
    if kind == "alu" and entry.unit == op.VALU:
        for lane in range(w.width):
            if w.exec[lane]:
                srcs = [read(w, o, t, lane) for o, t in zip(ops[1:], entry.types[1:])]
                write(w, ops[0], entry.types[0], entry.semantics(*srcs), lane)
    elif kind == "alu":
        t0 = entry.types[0]
        srcs = []
        for o, t in zip(ops[1:], entry.types[1:]):
            if t == "b64" and o.code in (VCC_LO, EXEC_LO):
                lanes = w.vcc if o.code == VCC_LO else w.exec
                srcs.append(np.array([[w.pack(lanes)]], dtype=np.uint64))
            else:
                srcs.append(read(w, o, t, 0))
        value = entry.semantics(*srcs)
        if entry.sets_scc:
            value, scc = value
            w.scc = bool(np.asarray(scc).reshape(-1)[0])
        if t0 == "b64" and ops[0].code in (VCC_LO, EXEC_LO):
            lanes = w.unpack(_bits(value, "b64"))
            if ops[0].code == VCC_LO:
                w.vcc = lanes
            else:
                w.exec = lanes
        else:
            write(w, ops[0], t0, value, 0)
    elif kind == "vcmp":
        w.vcc = [bool(w.exec[lane] and np.asarray(entry.semantics(read(w, ops[1], entry.types[1], lane),
                                                                    read(w, ops[2], entry.types[2], lane))).reshape(-1)[0])
                 for lane in range(w.width)]
    elif kind == "scmp":
        w.scc = bool(np.asarray(entry.semantics(read(w, ops[0], entry.types[0], 0),
                                                read(w, ops[1], entry.types[1], 0))).reshape(-1)[0])
    elif kind == "ctx":
        for lane in range(w.width if vector_dst else 1):
            if not vector_dst or w.exec[lane]:
                value = {"v_lane_id": lane, "s_get_wave_id": wave_id,
                         "s_get_workgroup_id": workgroup_id}[entry.mnemonic]
                write(w, ops[0], entry.types[0], np.uint32(value), lane)
    elif kind == "smem":
        base = w.dword(ops[1].code, 0) | (w.dword(ops[1].code + 1, 0) << 32)
        offset = _bits(read(w, ops[2], "u32", 0), "u32")
        for i in range(entry.mem_dwords):
            va = base + offset + 4 * i
            allocation, off = memory.resolve(va)
            value = 0
            if allocation is not None and off + 4 <= allocation.size:
                value = int.from_bytes(bytes(allocation.data[off:off + 4]), "little")
            elif allocation is None or off + 4 > allocation.size:
                stats.oob_reads += 1
            w.s[ops[0].code + i] = value
    elif entry.image:
        _image(w, entry, ops, memory, stats)
    elif kind in ("load", "store"):
        dtype = np.dtype(op.MEM_TYPES[entry.mem_type])
        size = dtype.itemsize
        target, limit_bytes = _range(memory, *_descriptor(w, ops[2].code))
        for lane in range(w.width):
            if not w.exec[lane]:
                continue
            byte = (w.vget(ops[1].index, lane) + ops[3]) & M32
            element = byte // size
            ok = target is not None and (element + 1) * size <= limit_bytes
            if kind == "load":
                bits = 0
                if ok:
                    allocation, base = target
                    start = base + element * size
                    bits = int.from_bytes(bytes(allocation.data[start:start + size]), "little")
                else:
                    stats.oob_reads += 1
                if entry.sign_extend and bits >> (8 * size - 1):
                    bits -= 1 << (8 * size)
                if size == 8:
                    w.vset(ops[0].index, lane, bits & M32)
                    w.vset(ops[0].index + 1, lane, bits >> 32)
                else:
                    w.vset(ops[0].index, lane, bits & M32)
            else:
                bits = w.vget(ops[0].index, lane)
                if size == 8:
                    bits |= w.vget(ops[0].index + 1, lane) << 32
                bits &= (1 << (8 * size)) - 1
                if ok:
                    allocation, base = target
                    start = base + element * size
                    allocation.data[start:start + size] = np.frombuffer(bits.to_bytes(size, "little"), np.uint8)
                else:
                    stats.oob_writes += 1
    elif kind == "lane":
        _cross_lane(w, entry, ops)
    elif kind in ("lds_load", "lds_store", "lds_atomic"):
        _lds(w, entry, ops, lds, stats)
    elif kind == "lds_permute":
        _permute(w, entry, ops)
    elif kind == "atomic":
        _buffer_atomic(w, entry, ops, memory, stats)
    elif kind == "matrix":
        _matrix(w, ops)
    else:
        raise AssertionError(kind)
    return pc + 1




# ---- workgroup instructions, lane by lane ---------------------------------------------------------
def _lane_value(w, operand, lane):
    return w.dword(operand.code, lane) if operand.is_register else _bits(read(w, operand, "b32", 0), "b32")


def _cross_lane(w, entry, ops):
    m, width = entry.mnemonic, w.width
    if m == "v_readlane_b32":
        lane = _bits(read(w, ops[2], "u32", 0), "u32") % width
        w.set_dword(ops[0].code, 0, _lane_value(w, ops[1], lane))
        return
    if m == "v_readfirstlane_b32":
        lane = next((i for i in range(width) if w.exec[i]), 0)
        w.set_dword(ops[0].code, 0, _lane_value(w, ops[1], lane))
        return
    if m == "v_writelane_b32":
        lane = _bits(read(w, ops[2], "u32", 0), "u32") % width
        w.set_dword(ops[0].code, lane, _bits(read(w, ops[1], "b32", 0), "b32"))
        return
    source = [_lane_value(w, ops[1], lane) for lane in range(width)]
    result = []
    for lane in range(width):
        if m == "v_mov_b32_row_shr":
            src = lane - ops[2]
            result.append(source[src] if lane % 16 >= ops[2] else 0)
        elif m == "v_mov_b32_row_mirror":
            result.append(source[(lane // 16) * 16 + 15 - lane % 16] if width >= 16 else source[width - 1 - lane])
        elif m == "v_mov_b32_xor":
            result.append(source[lane ^ (ops[2] % width)])
        elif m == "v_mov_b32_bcast":
            result.append(source[ops[2] % width])
        else:
            raise AssertionError(m)
    for lane in range(width):
        if w.exec[lane]:
            w.set_dword(ops[0].code, lane, result[lane])


def _permute(w, entry, ops):
    m, width = entry.mnemonic, w.width
    result = [0] * width
    if m == "ds_swizzle_b32":
        pattern = _bits(read(w, ops[2], "u32", 0), "u32")
        for lane in range(width):
            if pattern >> 15 & 1:
                src = (lane & ~3) | ((pattern >> (2 * (lane & 3))) & 3)
            else:
                within = (((lane & 31) & (pattern & 31)) | ((pattern >> 5) & 31)) ^ ((pattern >> 10) & 31)
                src = (lane & ~31) | (within & 31)
            src %= width
            result[lane] = w.vget(ops[1].index, src) if w.exec[src] else 0
    elif m == "ds_bpermute_b32":
        for lane in range(width):
            src = (w.vget(ops[1].index, lane) >> 2) % width
            result[lane] = w.vget(ops[2].index, src) if w.exec[src] else 0
    elif m == "ds_permute_b32":
        for lane in range(width):          # ascending: the highest sender to a lane wins
            if w.exec[lane]:
                result[(w.vget(ops[1].index, lane) >> 2) % width] = w.vget(ops[2].index, lane)
    for lane in range(width):
        if w.exec[lane]:
            w.vset(ops[0].index, lane, result[lane])


_ACCESS_BYTES = {"u8": 1, "i8": 1, "u16": 2, "i16": 2, "u32": 4}


def _matrix(w, ops):
    """v_wmma_f32_16x16x16_f16 element by element (isa/matrix.py's layout; its per-element loop, wmma_reference):
    per 32 lanes, A's row m and B's column n from lane m (n) < 16, C's (m, n) from VGPR m // 2 of lane
    16 (m % 2) + n."""
    from dmlemu.isa.matrix import wmma_reference
    d, a, b, c = (o.code for o in ops)
    for base in range(0, w.width, 32):
        def half(code, lane, k):
            return (w.dword(code + k // 2, base + lane) >> (16 * (k % 2))) & 0xFFFF
        am = np.array([[half(a, m, k) for k in range(16)] for m in range(16)], dtype=np.uint16).view(np.float16)
        bm = np.array([[half(b, n, k) for n in range(16)] for k in range(16)], dtype=np.uint16).view(np.float16)
        cm = np.array([[w.dword(c + m // 2, base + 16 * (m % 2) + n) for n in range(16)] for m in range(16)],
                      dtype=np.uint32).view(np.float32)
        dm = wmma_reference(am, bm, cm).view(np.uint32)
        for m in range(16):
            for n in range(16):
                w.set_dword(d + m // 2, base + 16 * (m % 2) + n, int(dm[m, n]))


def _rmw(entry, old, data, compare):
    """The table's operation on one dword (its semantics on one-element arrays)."""
    value_type = op.ATOMIC_BY_NAME[entry.name_of_operation][0]
    typed = lambda bits: _typed(bits, value_type)
    args = (typed(old), typed(data)) + (() if compare is None else (typed(compare),))
    return _bits(entry.semantics(*args), value_type)


class RefLds:
    """One workgroup's LDS: bytes and which were written."""

    def __init__(self, size):
        self.size = size
        self.data = bytearray(size)
        self.written = bytearray(size)
        self.oob_reads = self.oob_writes = self.unwritten = 0


def _lds(w, entry, ops, lds, stats):
    kind = entry.kind
    size = _ACCESS_BYTES[entry.mem_type] * entry.mem_dwords
    returns = kind == "lds_atomic" and entry.returns
    address_op = ops[1] if (kind == "lds_load" or returns) else ops[0]
    offset = ops[-1]
    limit = lds.size if lds is not None else 0
    for lane in range(w.width):
        if not w.exec[lane]:
            continue
        a = (w.vget(address_op.index, lane) + offset) & ~(size - 1)
        ok = a + size <= limit
        if kind == "lds_load":
            bits = 0
            if ok:
                bits = int.from_bytes(bytes(lds.data[a:a + size]), "little")
                lds.unwritten += not all(lds.written[a:a + size])
            else:
                lds.oob_reads += 1
            if entry.sign_extend and bits >> (8 * size - 1):
                bits -= 1 << (8 * size)
            for i in range(max(1, size // 4)):
                w.vset(ops[0].index + i, lane, (bits >> (32 * i)) & M32)
        elif kind == "lds_store":
            bits = 0
            for i in range(max(1, size // 4)):
                bits |= w.vget(ops[1].index + i, lane) << (32 * i)
            bits &= (1 << (8 * size)) - 1
            if ok:
                lds.data[a:a + size] = bits.to_bytes(size, "little")
                lds.written[a:a + size] = b"\x01" * size
            else:
                lds.oob_writes += 1
        else:
            sources = ops[2:-1] if returns else ops[1:-1]
            values = [w.vget(o.index, lane) for o in sources]
            compare, data = (values[0], values[1]) if len(values) == 2 else (None, values[0])
            old = 0
            if ok:
                old = int.from_bytes(bytes(lds.data[a:a + 4]), "little")
                lds.unwritten += not all(lds.written[a:a + 4])
                lds.data[a:a + 4] = _rmw(entry, old, data, compare).to_bytes(4, "little")
                lds.written[a:a + 4] = b"\x01" * 4
            else:
                lds.oob_writes += 1
            if returns:
                w.vset(ops[0].index, lane, old)


def _buffer_atomic(w, entry, ops, memory, stats):
    returns = entry.returns
    data_op, address_op, descriptor_op, offset = (ops[1:] if returns else ops)
    target, limit_bytes = _range(memory, *_descriptor(w, descriptor_op.code))
    for lane in range(w.width):
        if not w.exec[lane]:
            continue
        element = ((w.vget(address_op.index, lane) + offset) & M32) // 4
        data = w.vget(data_op.index, lane)
        compare = w.vget(data_op.index + 1, lane) if entry.types[1 if returns else 0] == "b64" else None
        old = 0
        if target is not None and (element + 1) * 4 <= limit_bytes:
            allocation, base = target
            start = base + element * 4
            old = int.from_bytes(bytes(allocation.data[start:start + 4]), "little")
            new = _rmw(entry, old, data, compare)
            allocation.data[start:start + 4] = np.frombuffer(new.to_bytes(4, "little"), np.uint8)
        else:
            stats.oob_writes += 1
        if returns:
            w.vset(ops[0].index, lane, old)


# ---- image_load / image_store, lane by lane --------------------------------------------------------------
# The image descriptor and the conversions as docs/TEXTURES.md ("Image loads and stores") and
# emulator/functional/texel_formats.py write them down, rebuilt here from the text with Python integers
# and one-element float32 operations (nothing shared with the fast executor but the DXGI names).
def _texel_layout(fmt):
    """(kind, bytes per texel, [(bit offset, bits) or None for R, G, B, A]) of a DXGI format, or None."""
    from dmlemu.dxgi import DXGI_FORMAT
    try:
        name = DXGI_FORMAT(fmt).name[len("DXGI_FORMAT_"):]
    except ValueError:
        return None
    layout, _, kind = name.partition("_")
    if kind not in ("FLOAT", "UNORM", "SNORM", "UINT", "SINT", "UNORM_SRGB"):
        return None
    channels, offset = [None] * 4, 0
    for letter, bits in _layout_parts(layout):
        index = {"R": 0, "G": 1, "B": 2, "A": 3, "D": 0}.get(letter)
        if index is not None:
            channels[index] = (offset, bits)
        offset += bits
    return kind, offset // 8, channels


def _layout_parts(layout):
    parts, i = [], 0
    while i < len(layout):
        j = i + 1
        while j < len(layout) and layout[j].isdigit():
            j += 1
        parts.append((layout[i], int(layout[i + 1:j])))
        i = j
    return parts


def _f32_bits(x):
    return int(np.array([x], dtype=np.float32).view(np.uint32)[0])


def _srgb(code):
    from decimal import Decimal, localcontext
    with localcontext() as ctx:
        ctx.prec = 40
        c = Decimal(code) / Decimal(255)
        v = c / Decimal("12.92") if c <= Decimal("0.04045") else ((c + Decimal("0.055")) / Decimal("1.055")) ** Decimal("2.4")
    return _f32_bits(float(v))


def _load_channel(kind, raw, bits, component):
    if kind == "UNORM_SRGB" and component == 3:
        kind = "UNORM"                                  # sRGB is for colour: alpha stays linear
    if kind == "FLOAT":
        return raw if bits == 32 else _f32_bits(np.array([raw], dtype=np.uint16).view(np.float16)[0])
    if kind == "UNORM":
        return _f32_bits(np.float32(raw) / np.float32((1 << bits) - 1))
    if kind == "UNORM_SRGB":
        return _srgb(raw)
    signed = raw - (1 << bits) if raw >> (bits - 1) else raw
    if kind == "SNORM":
        top = (1 << (bits - 1)) - 1
        return _f32_bits(np.float32(max(signed, -top)) / np.float32(top))
    return raw if kind == "UINT" else signed & M32


def _store_channel(kind, word, bits):
    if kind == "FLOAT":
        if bits == 32:
            return word
        f = np.array([word], dtype=np.uint32).view(np.float32)[0]
        return 0x7E00 if np.isnan(f) else int(np.array([f], dtype=np.float16).view(np.uint16)[0])
    if kind in ("UNORM", "SNORM"):
        f = float(np.array([word], dtype=np.uint32).view(np.float32)[0])
        if f != f:
            f = 0.0
        top = (1 << bits) - 1 if kind == "UNORM" else (1 << (bits - 1)) - 1
        f = min(max(f, 0.0 if kind == "UNORM" else -1.0), 1.0)
        return round(f * top) & ((1 << bits) - 1)      # Python's round: to nearest even, exact product
    if kind == "UINT":
        return min(word, (1 << bits) - 1)
    signed = word - (1 << 32) if word >> 31 else word
    return min(max(signed, -(1 << (bits - 1))), (1 << (bits - 1)) - 1) & ((1 << bits) - 1)


def _image_texel(words, fmt_bytes, x, y, z, mip):
    """Byte offset of (x, y, z, mip) in an image descriptor's view, or None when out of range."""
    width, height = (words[5] & 0x3FFF) + 1, ((words[5] >> 14) & 0x3FFF) + 1
    mips, pitch_units, dimension = (words[5] >> 28) + 1, words[6] & 0xFFFFFF, (words[6] >> 24) & 7
    first, count = (words[7] >> 4) & 0xFFF, (words[7] >> 16) & 0xFFF
    if mip >= mips:
        return None
    three_d = dimension == 4
    slice_ = {1: y, 3: z}.get(dimension, 0)
    row = y if dimension in (2, 3, 4) else 0
    depth = z if three_d else 0
    full_depth = first + count if three_d else 1
    offset = 0
    for m in range(mip + 1):
        w, h, d = max(1, width >> m), max(1, height >> m), max(1, full_depth >> m)
        pitch = (w * fmt_bytes + 255) // 256 * 256
        if m == mip:
            break
        end = offset + pitch * (h * d - 1) + w * fmt_bytes
        offset = (end + 511) // 512 * 512
    if x >= w or row >= h:
        return None
    if three_d:
        if depth >= max(1, count >> mip):
            return None
        return offset + (first + depth) * pitch * h + row * pitch + x * fmt_bytes
    if slice_ >= count:
        return None
    return offset + slice_ * pitch_units * 512 + row * pitch + x * fmt_bytes


def _image(w, entry, ops, memory, stats):
    data_op, address_op, desc_op = ops
    words = [w.s.get(desc_op.code + i, 0) for i in range(8)]
    va, size, valid = unpack_buffer_descriptor(words[:4])
    layout = _texel_layout(words[4]) if valid and words[7] & (1 << 30) and (words[6] >> 24) & 7 <= 4 else None
    if entry.kind == "store" and layout is not None and layout[0] == "UNORM_SRGB":
        layout = None           # no store to an sRGB format (no typed UAV has one): dropped, out of range
    target, limit = _range(memory, va, size, valid) if layout else (None, 0)
    store = entry.kind == "store"
    for lane in range(w.width):
        if not w.exec[lane]:
            continue
        if store and words[3] & 2:
            stats.readonly_writes = getattr(stats, "readonly_writes", 0) + 1
            continue
        at = None
        if target is not None:
            kind, nbytes, channels = layout
            at = _image_texel(words, nbytes, *(w.vget(address_op.index + i, lane) for i in range(4)))
            if at is not None and at + nbytes > limit:
                at = None
        if at is None:
            if store:
                stats.oob_writes += 1
            else:
                stats.oob_reads += 1
                for i in range(4):
                    w.vset(data_op.index + i, lane, 0)
            continue
        allocation, base = target
        start = base + at
        if store:
            texel = 0
            for i, channel in enumerate(channels):
                if channel is not None:
                    texel |= _store_channel(kind, w.vget(data_op.index + i, lane), channel[1]) << channel[0]
            allocation.data[start:start + nbytes] = np.frombuffer(texel.to_bytes(nbytes, "little"), np.uint8)
        else:
            texel = int.from_bytes(bytes(allocation.data[start:start + nbytes]), "little")
            for i, channel in enumerate(channels):
                if channel is None:
                    value = (1 if kind in ("UINT", "SINT") else 0x3F800000) if i == 3 else 0
                else:
                    value = _load_channel(kind, (texel >> channel[0]) & ((1 << channel[1]) - 1), channel[1], i)
                w.vset(data_op.index + i, lane, value)


def run_launch(launch, memory, width):
    """Run a KernelLaunch wave by wave with the reference executor."""
    with np.errstate(all="ignore"):
        return _run_launch(launch, memory, width)


def _run_launch(launch, memory, width):
    """Workgroup after workgroup (ascending); inside one, the schedule docs/NUMERICS.md ("The order of
    waves") writes down: waves that made the same branch decisions move as a group, one instruction
    at a time for each of its waves in wave order; where a group's waves disagree on a branch it
    splits, the waves that fall through first; a group at an s_barrier waits until no group can
    run, then every waiting group goes on in the order it arrived (all must wait at one barrier)."""
    stats = RefStats()
    stats.lds = []
    per_group = -(-launch.workgroup_size // width)
    decoded = decode(launch.program.dwords)
    index_of = {a: i for i, (a, _) in enumerate(decoded)}
    for group in range(launch.num_workgroups):
        lds = RefLds(launch.lds_bytes)
        waves = []
        for in_group in range(per_group):
            w = RefWave(width)
            for i, value in enumerate(launch.user_sgprs):
                w.s[i] = value & M32
            w.s[len(launch.user_sgprs)] = group
            for lane in range(width):
                thread = in_group * width + lane
                w.vset(0, lane, thread)
                w.exec[lane] = thread < launch.workgroup_size
            waves.append((in_group, w))
        stack, parked = [(0, waves)], []
        while True:
            while stack:
                pc, members = stack.pop()
                while True:
                    entry = decoded[pc][1].opcode
                    if entry.kind == "branch":
                        nexts = [step(decoded, index_of, w, pc, memory, stats, i, group, lds) for i, w in members]
                        fall = [m for m, n in zip(members, nexts) if n == pc + 1]
                        jump = [m for m, n in zip(members, nexts) if n != pc + 1]
                        if fall and jump:
                            stack.append((next(n for n in nexts if n != pc + 1), jump))
                            members, pc = fall, pc + 1
                        else:
                            pc = nexts[0]
                        continue
                    results = [step(decoded, index_of, w, pc, memory, stats, i, group, lds) for i, w in members]
                    if results[0] == END:
                        break
                    if results[0] == BARRIER:
                        parked.append((pc, members))
                        break
                    pc = results[0]
            if not parked:
                break
            assert len({pc for pc, _ in parked}) == 1, "divergent barrier"
            stack = [(pc + 1, members) for pc, members in reversed(parked)]
            parked = []
        if lds is not None:
            stats.lds.append(lds)
    return stats
