"""Constant operands: the value an inline constant or a literal dword has for an operand type.

Shared by the assembler (number text -> operand code / literal) and both executors (operand ->
NumPy value). Rules (also in operands.py): inline constants take the operand's type; a decimal
number given for a float operand is that float value; a hexadecimal number is a raw bit pattern;
for f64 operands a literal is the high dword; 64-bit integer literals are zero-extended (u64, b64)
or sign-extended (i64).
"""
import struct

import numpy as np

from dmlemu.isa.opcodes import FLOAT_TYPES, TYPES
from dmlemu.isa.operands import LITERAL, Operand, inline_code_for, inline_value


def constant_value(operand, type_name):
    """NumPy scalar of the operand's type for an inline constant or literal operand."""
    dtype = np.dtype(TYPES[type_name][0])
    if operand.code == LITERAL:
        bits = operand.literal & 0xFFFFFFFF
        if type_name == "f64":
            return np.array(bits << 32, dtype=np.uint64).view(np.float64)[()]
        if type_name == "i64":
            return np.int64(bits - (1 << 32) if bits & 0x80000000 else bits)
        if dtype.itemsize == 8:
            return dtype.type(bits)
        if dtype.itemsize == 2:
            return np.array(bits & 0xFFFF, dtype=np.uint16).view(dtype)[()]
        return np.array(bits, dtype=np.uint32).view(dtype)[()]
    value = inline_value(operand.code)
    if type_name in FLOAT_TYPES:
        return dtype.type(value)
    if isinstance(value, float):
        # A float inline constant read as an integer gives its float32 bit pattern.
        return dtype.type(np.array(value, dtype=np.float32).view(np.uint32)) if dtype.itemsize >= 4 else dtype.type(0)
    return np.array(value, dtype=np.int64).astype(dtype)[()]  # -16..64, wraps into unsigned types


def encode_number(text_value, type_name, is_hex):
    """Operand for a number written in assembly, given the operand type (inline when possible)."""
    is_float = type_name in FLOAT_TYPES
    value = text_value
    if not is_hex:
        code = inline_code_for(value, is_float)
        if code is not None:
            return Operand(code, TYPES[type_name][1])
    if is_hex:
        bits = value
        if not 0 <= bits < 1 << 32:
            raise ValueError(f"literal 0x{bits:x} does not fit in 32 bits")
        return Operand(LITERAL, TYPES[type_name][1], bits)
    if is_float:
        if type_name == "f32":
            try:
                bits = struct.unpack("<I", struct.pack("<f", value))[0]
            except OverflowError:      # a finite number past the float32 range (1e39)
                raise ValueError(f"{value!r} is outside the range of f32 (its largest finite magnitude is "
                                 f"{float(np.finfo(np.float32).max)!r}); write inf or -inf for an infinite "
                                 "literal") from None
            if not np.isnan(value) and float(np.float32(value)) != float(value):
                raise ValueError(f"{value!r} is not exactly representable as f32")
        elif type_name == "f16":
            largest = float(np.finfo(np.float16).max)
            if abs(value) > largest and abs(value) != float("inf"):
                raise ValueError(f"{value!r} is outside the range of f16 (its largest finite magnitude is "
                                 f"{largest!r}); write inf or -inf for an infinite literal")
            h = np.float16(value)
            if not np.isnan(value) and float(h) != float(value):
                raise ValueError(f"{value!r} is not exactly representable as f16")
            bits = int(np.array(h).view(np.uint16))
        else:
            full = struct.unpack("<Q", struct.pack("<d", value))[0]
            if full & 0xFFFFFFFF:
                raise ValueError(f"{value!r} needs more than the high dword of an f64 literal")
            bits = full >> 32
        return Operand(LITERAL, TYPES[type_name][1], bits)
    if isinstance(value, float):
        raise ValueError(f"{value!r} is a float but the operand is {type_name}")
    lo = -(1 << 31)
    hi = (1 << 32) - 1
    if type_name in ("i64",):
        hi = (1 << 31) - 1
    if type_name in ("u64", "b64") and value < 0:
        raise ValueError(f"{value} is negative but the operand is {type_name}")
    if not lo <= value <= hi:
        raise ValueError(f"{value} does not fit in a 32-bit literal for a {type_name} operand")
    return Operand(LITERAL, TYPES[type_name][1], value & 0xFFFFFFFF)
