"""Waves: the register state of SIMD waves, held for many waves at once.

A wave is `width` lanes that execute one instruction stream under an EXEC mask. The emulator keeps
a *batch* of W waves that share a program counter in one `WaveBatch`, so one NumPy operation
executes an instruction for every lane of every wave in the batch:

    vector register  array of uint32, shape broadcastable to (W, width)   one value per lane
    scalar register  array of uint32, shape (W, 1) or (1, 1)              one value per wave
    EXEC, VCC        bool arrays (W, width);  SCC  bool (W, 1)

Registers that hold the same value for every wave or lane keep a compact shape ((1, 1) or (W, 1))
and NumPy broadcasting widens them only when needed: a kernel's uniform constants cost nothing per
lane. 64-bit values live in register pairs (low dword first); 16-bit values in the low half of a
32-bit register, zero-extended when written. An unwritten register reads as 0.
Speed trick: a vector register written with a 16-bit value keeps it as a uint16 array, which
means the same as the zero-extended uint32 (it is widened only when read as 32 bits); this saves
two full passes per FLOAT16 element in the FP16 kernels.
"""
import numpy as np

from dmlemu.isa.constants import constant_value
from dmlemu.isa.opcodes import TYPES
from dmlemu.isa.operands import EXEC_HI, EXEC_LO, NUM_SGPRS, NUM_VGPRS, SCC, VCC_HI, VCC_LO, VGPR_BASE

_ZERO = np.zeros((1, 1), dtype=np.uint32)
_MASK32 = np.uint64(0xFFFFFFFF)
_SHIFT32 = np.uint64(32)


def pack_mask(mask, waves):
    """Bool lanes (W, L) -> uint64 per wave (W, 1), lane i in bit i."""
    mask = np.broadcast_to(mask, (waves, mask.shape[1]))
    packed = np.packbits(mask, axis=1, bitorder="little")
    padded = np.zeros((waves, 8), dtype=np.uint8)
    padded[:, :min(8, packed.shape[1])] = packed[:, :8]
    return padded.view("<u8").reshape(waves, 1).astype(np.uint64)


def unpack_mask(bits, waves, width):
    """uint64 per wave -> bool lanes (W, L)."""
    b = np.broadcast_to(np.asarray(bits, dtype=np.uint64).reshape(-1, 1), (waves, 1))
    as_bytes = np.ascontiguousarray(b.astype("<u8")).view(np.uint8).reshape(waves, 8)
    return np.unpackbits(as_bytes, axis=1, bitorder="little")[:, :width].astype(bool)


class WaveBatch:
    """W waves executing together: registers, masks and ids (see the module banner)."""

    __slots__ = ("waves", "width", "sgpr", "vgpr", "exec", "exec_full", "vcc", "scc",
                 "wave_index", "workgroup", "wave_in_group")

    def __init__(self, waves, width):
        self.waves = waves
        self.width = width
        self.sgpr = [None] * NUM_SGPRS
        self.vgpr = [None] * NUM_VGPRS
        self.exec = np.ones((waves, width), dtype=bool)
        self.exec_full = True
        self.vcc = np.zeros((1, 1), dtype=bool)
        self.scc = np.zeros((1, 1), dtype=bool)
        self.wave_index = None     # (W, 1) uint32: wave number in the dispatch
        self.workgroup = None      # (W, 1) uint32
        self.wave_in_group = None  # (W, 1) uint32

    # ---- masks ------------------------------------------------------------------------------
    def set_exec(self, mask):
        self.exec = np.broadcast_to(mask, (self.waves, self.width))
        self.exec_full = bool(self.exec.all())

    def exec_any(self):
        return self.exec.any(axis=1, keepdims=True)

    def ones(self):
        return np.ones((self.waves, 1), dtype=bool)

    # ---- context values for v_lane_id / s_get_wave_id / s_get_workgroup_id -------------------
    def lane_id(self):
        return np.arange(self.width, dtype=np.uint32).reshape(1, self.width)

    def wave_id(self):
        return self.wave_in_group

    def workgroup_id(self):
        return self.workgroup

    # ---- splitting at divergent branches --------------------------------------------------------
    def select(self, keep):
        """A new batch holding the waves where `keep` (W,) is true."""
        out = WaveBatch(int(keep.sum()), self.width)

        def pick(a):
            if a is None or a.shape[0] == 1:
                return a
            return a[keep]
        out.sgpr = [pick(a) for a in self.sgpr]
        out.vgpr = [pick(a) for a in self.vgpr]
        out.exec = self.exec[keep]
        out.exec_full = bool(out.exec.all())
        out.vcc, out.scc = pick(self.vcc), pick(self.scc)
        out.wave_index, out.workgroup, out.wave_in_group = (
            pick(self.wave_index), pick(self.workgroup), pick(self.wave_in_group))
        return out

    # ---- operand access -----------------------------------------------------------------------
    def _dword(self, code):
        """The raw uint32 array of one 32-bit register or special half."""
        if code >= VGPR_BASE:
            v = self.vgpr[code - VGPR_BASE]
            if v is None:
                return _ZERO
            # A register written with a 16-bit value keeps it as uint16 (zero-extended meaning).
            return v.astype(np.uint32) if v.dtype == np.uint16 else v
        if code < NUM_SGPRS:
            v = self.sgpr[code]
            return _ZERO if v is None else v
        if code in (VCC_LO, VCC_HI, EXEC_LO, EXEC_HI):
            mask = self.vcc if code in (VCC_LO, VCC_HI) else self.exec
            bits = pack_mask(mask, self.waves)
            return ((bits >> _SHIFT32) if code in (VCC_HI, EXEC_HI) else (bits & _MASK32)).astype(np.uint32)
        if code == SCC:
            return self.scc.astype(np.uint32)
        raise ValueError(f"operand code {code} is not a register")

    def read(self, operand, type_name):
        """The operand's value as a NumPy array of the type (at least 2-D, broadcastable)."""
        if type_name == "mask":
            return self.vcc if operand.code == VCC_LO else self.exec
        if not operand.is_register:
            return np.array(constant_value(operand, type_name)).reshape(1, 1)
        dtype, dwords = TYPES[type_name]
        code = operand.code
        if dwords == 1:
            if np.dtype(dtype).itemsize == 2:
                if code >= VGPR_BASE and self.vgpr[code - VGPR_BASE] is not None and self.vgpr[code - VGPR_BASE].dtype == np.uint16:
                    return self.vgpr[code - VGPR_BASE].view(dtype)
                return self._dword(code).view(np.uint16)[..., ::2].view(dtype)
            return self._dword(code).view(dtype)
        if dwords == 2 and code in (VCC_LO, EXEC_LO):
            return pack_mask(self.vcc if code == VCC_LO else self.exec, self.waves).view(dtype)
        if dwords == 2:
            lo, hi = self._dword(code), self._dword(code + 1)
            return ((hi.astype(np.uint64) << _SHIFT32) | lo.astype(np.uint64)).view(dtype)
        return [self._dword(code + i) for i in range(dwords)]

    def write(self, operand, type_name, value, masked):
        """Write a result; vector writes keep inactive lanes when `masked`."""
        dtype, dwords = TYPES[type_name]
        value = np.asarray(value)
        if value.ndim < 2:
            value = value.reshape((1,) * (2 - value.ndim) + value.shape)
        code = operand.code
        if dwords == 2 and code in (VCC_LO, EXEC_LO):
            mask = unpack_mask(value.astype(dtype).view(np.uint64), self.waves, self.width)
            if code == EXEC_LO:
                self.set_exec(mask)
            else:
                self.vcc = mask
            return
        if dwords == 1:
            if np.dtype(dtype).itemsize == 2:
                # 16-bit results stay uint16 in vector registers (read back zero-extended);
                # scalar registers always hold uint32.
                raw16 = value.astype(dtype, copy=False).view(np.uint16)
                raws = (raw16 if code >= VGPR_BASE else raw16.astype(np.uint32),)
            else:
                raws = (value.astype(dtype, copy=False).view(np.uint32),)
        elif dwords == 2:
            bits = value.astype(dtype, copy=False).view(np.uint64)
            raws = ((bits & _MASK32).astype(np.uint32), (bits >> _SHIFT32).astype(np.uint32))
        else:
            raws = tuple(np.asarray(v, dtype=np.uint32) for v in value)
        for i, raw in enumerate(raws):
            self._write_dword(code + i, raw, masked)

    def _write_dword(self, code, raw, masked):
        if code >= VGPR_BASE:
            if masked and not self.exec_full:
                old = self.vgpr[code - VGPR_BASE]
                raw = np.where(self.exec, raw, _ZERO if old is None else old)
            self.vgpr[code - VGPR_BASE] = raw
        elif code < NUM_SGPRS:
            self.sgpr[code] = raw
        elif code in (VCC_LO, VCC_HI, EXEC_LO, EXEC_HI):
            lo_code = VCC_LO if code in (VCC_LO, VCC_HI) else EXEC_LO
            bits = pack_mask(self.vcc if lo_code == VCC_LO else self.exec, self.waves)
            raw64 = raw.astype(np.uint64)
            if code == lo_code:
                bits = (bits & (_MASK32 << _SHIFT32)) | raw64
            else:
                bits = (bits & _MASK32) | (raw64 << _SHIFT32)
            mask = unpack_mask(bits, self.waves, self.width)
            if lo_code == EXEC_LO:
                self.set_exec(mask)
            else:
                self.vcc = mask
        elif code == SCC:
            self.scc = raw != 0
        else:
            raise ValueError(f"operand code {code} cannot be written")
