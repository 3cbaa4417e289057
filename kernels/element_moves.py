"""The buffer instructions that move one tensor element, by data type: the one rule every kernel family reads.

An element of 1, 2, 4 or 8 bytes (the data-type table, dmlemu.data_types) loads with buffer_load_ubyte, _ushort,
_dword or _dwordx2 and stores with buffer_store_byte, _short, _dword or _dwordx2; its byte offset is its index
shifted left by log2 of its size. A kernel that computes with a signed integer of 1 or 2 bytes loads it
sign-extended (_sbyte, _sshort); FLOAT16 loads as its bits (_ushort) and is widened by v_cvt_f32_f16. A kernel
that only moves elements asks for the bits (`extend=False`). Each family passes its own list of types: the
tables below hold those types only, so a family's `type in _LOAD` still says which types it serves.
"""
from dmlemu.data_types import BY_NAME, SIGNED

LOAD_OF_SIZE = {1: "ubyte", 2: "ushort", 4: "dword", 8: "dwordx2"}     # the bits of an element of each size
STORE_OF_SIZE = {1: "byte", 2: "short", 4: "dword", 8: "dwordx2"}


def load_suffixes(types, extend=True):
    """{type: buffer_load_ suffix}; signed 1- and 2-byte integers sign-extended where `extend`."""
    out = {}
    for name in types:
        suffix = LOAD_OF_SIZE[BY_NAME[name].itemsize]
        out[name] = "s" + suffix[1:] if extend and BY_NAME[name].kind == SIGNED and suffix[0] == "u" else suffix
    return out


def store_suffixes(types):
    """{type: buffer_store_ suffix}."""
    return {name: STORE_OF_SIZE[BY_NAME[name].itemsize] for name in types}


def sizes(types):
    """{type: bytes of an element}."""
    return {name: BY_NAME[name].itemsize for name in types}


def shifts(types):
    """{type: log2 of the bytes of an element} (an index shifted left by it is the element's byte offset)."""
    return {name: BY_NAME[name].itemsize.bit_length() - 1 for name in types}
