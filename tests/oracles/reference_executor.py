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


def run_wave(program, w, memory, stats, wave_id, workgroup_id, limit=100000):
    decoded = decode(program)
    index_of = {a: i for i, (a, _) in enumerate(decoded)}
    pc = 0
    steps = 0
    while True:
        steps += 1
        assert steps < limit, "reference wave did not end"
        address, inst = decoded[pc]
        entry, ops = inst.opcode, inst.operands
        stats.instructions += 1
        kind = entry.kind
        if kind == "end":
            return
        if kind in ("idle", "wait"):
            pc += 1
            continue
        if kind == "branch":
            m = entry.mnemonic
            taken = {
                "s_branch": True, "s_cbranch_scc0": not w.scc, "s_cbranch_scc1": w.scc,
                "s_cbranch_vccz": not any(w.vcc), "s_cbranch_vccnz": any(w.vcc),
                "s_cbranch_execz": not any(w.exec), "s_cbranch_execnz": any(w.exec),
            }[m]
            pc = index_of[address + inst.dwords + ops[0]] if taken else pc + 1
            continue
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
        else:
            raise AssertionError(kind)
        pc += 1


def run_launch(launch, memory, width):
    """Run a KernelLaunch wave by wave with the reference executor."""
    with np.errstate(all="ignore"):
        return _run_launch(launch, memory, width)


def _run_launch(launch, memory, width):
    stats = RefStats()
    per_group = -(-launch.workgroup_size // width)
    for wave in range(launch.num_workgroups * per_group):
        group, in_group = divmod(wave, per_group)
        w = RefWave(width)
        for i, value in enumerate(launch.user_sgprs):
            w.s[i] = value & M32
        w.s[len(launch.user_sgprs)] = group
        for lane in range(width):
            thread = in_group * width + lane
            w.vset(0, lane, thread)
            w.exec[lane] = thread < launch.workgroup_size
        run_wave(launch.program.dwords, w, memory, stats, in_group, group)
    return stats
