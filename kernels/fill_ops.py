"""The fills' table and compiler: FILL_VALUE_CONSTANT, FILL_VALUE_SEQUENCE, DIAGONAL_MATRIX and DIAGONAL_MATRIX1 as
one kernel, fill.s.

One thread per output element; the element's offset is address.inc's (the output as tensor 0, merged dimension
records and division magic as every element-wise kernel has them). One `FillOperator` row per operator says:

  tensors     the desc's tensor fields (the output only; DIAGONAL_MATRIX1: the optional input first)
  source      the kernel source
  params      the desc's attributes the compiler reads, (field, kind) (the registry checks that the schema has them)
  sequence    whether the value steps by ValueDelta per element (docs/NUMERICS.md, "Fills")
  diagonal    DIAGONAL_MATRIX: Value on one diagonal (Offset)
  diagonal1   DIAGONAL_MATRIX1: Value on a band of diagonals, else the optional input's element (tensor 3 of
              address.inc) or 0; every type of its page, 64-bit ones as register pairs
"""
import functools
import os
from dataclasses import dataclass

import numpy as np

from dmlemu.data_types import BY_NAME
from dmlemu.isa.assembler import assemble_file
from dmlemu.isa.program import Program
from dmlemu.kernels import address
from dmlemu.kernels.constant_buffer import LAYOUT
from dmlemu.kernels.element_moves import load_suffixes, store_suffixes

KERNEL_DIR = os.path.dirname(os.path.abspath(__file__))
_STORE = store_suffixes(("FLOAT32", "FLOAT16", "INT32", "UINT32", "INT16", "UINT16", "INT8", "UINT8"))


@dataclass(frozen=True, kw_only=True)
class FillOperator:
    """One operator of the fill family (see the module docstring for each field)."""
    name: str
    params: tuple
    sequence: bool = False
    diagonal: bool = False
    diagonal1: bool = False   # DIAGONAL_MATRIX1: an optional input, a band of Value (docs/NUMERICS.md, "Fills")
    tensors: tuple = ("OutputTensor",)
    source: str = "fill.s"
    scale_bias: bool = False
    bounds: tuple = ()
    optional: tuple = ()
    family: str = "fill"


OPERATORS = {row.name: row for row in (
    FillOperator(name="FILL_VALUE_CONSTANT", params=(("ValueDataType", "enum"), ("Value", "tensor"))),
    FillOperator(name="FILL_VALUE_SEQUENCE", params=(("ValueDataType", "enum"), ("ValueStart", "tensor"),
                                                     ("ValueDelta", "tensor")), sequence=True),
    FillOperator(name="DIAGONAL_MATRIX", params=(("Offset", "i32"), ("Value", "f32")), diagonal=True),
    FillOperator(name="DIAGONAL_MATRIX1", params=(("ValueDataType", "enum"), ("Value", "tensor"),
                                                  ("DiagonalFillBegin", "i32"), ("DiagonalFillEnd", "i32")),
                 diagonal1=True, tensors=("InputTensor", "OutputTensor"), optional=(0,)),
)}


def variant_symbols(data_type, sequence, wide, layout=LAYOUT, diagonal=False):
    """The assembler symbols of one variant of fill.s."""
    shift = BY_NAME[data_type].itemsize.bit_length() - 1
    return {"PACKED": 0, "PACKED_X1": 0, "PACKED_X2": 0, "SHIFT_DATA": shift, "SHIFT_T0": shift, "SHIFT_T1": 0,
            "SHIFT_T2": 0, **{f"HAS_T{t}": int(t == 2 and diagonal) for t in range(2, 9)},
            "MAD_OFFSET": "v_mad_u32" if wide else "v_mad_u32_u24", "DIAGONAL": int(diagonal),
            "DESC_T0": 0, "SEQUENCE": int(sequence), "IS_FLOAT": int(data_type.startswith("FLOAT")),
            "NARROW_F16": int(data_type == "FLOAT16" and sequence), "STORE": _STORE[data_type], **address.DEFAULTS,
            "DIAGONAL1": 0, "HAS_INPUT": 0, "STORE_REG": "v10", "IS_PAIR": 0, "DESC_IN": 0, "SHIFT_T3": 0,
            **layout.symbols()}


@functools.lru_cache(maxsize=None)
def build_program(data_type, sequence, wide, layout=LAYOUT, diagonal=False):
    """Assemble and decode one variant of fill.s (cached)."""
    dwords = assemble_file(os.path.join(KERNEL_DIR, "fill.s"),
                           variant_symbols(data_type, sequence, wide, layout, diagonal))
    kind = "diagonal" if diagonal else "sequence" if sequence else "constant"
    return Program(dwords, f"fill_{kind}_{data_type.lower()}{'_wide' if wide else ''}")


_STORE_64 = store_suffixes(("FLOAT64", "INT64", "UINT64"))
_LOAD_BITS = load_suffixes((*_STORE, *_STORE_64), extend=False)


@functools.lru_cache(maxsize=None)
def build_diagonal1_program(data_type, has_input, wide, layout=LAYOUT):
    """Assemble and decode one variant of fill.s for DIAGONAL_MATRIX1 (cached): the output is tensor 0 of
    address.inc, the column and row counters tensors 1 and 2, the input (when the desc has one) tensor 3."""
    size = BY_NAME[data_type].itemsize
    shift, pair = size.bit_length() - 1, size == 8
    symbols = {**variant_symbols("UINT8", False, wide, layout, diagonal=False),
               "SHIFT_DATA": shift, "SHIFT_T0": shift, "SHIFT_T3": shift, "DIAGONAL1": 1,
               "HAS_INPUT": int(has_input), **{f"HAS_T{t}": int(t == 2 or (t == 3 and has_input)) for t in range(2, 9)},
               "STORE": {**_STORE, **_STORE_64}[data_type], "LOAD": _LOAD_BITS[data_type],
               "STORE_REG": "v[10:11]" if pair else "v10", "IS_PAIR": int(pair), "DESC_T0": 32, "DESC_IN": 0}
    dwords = assemble_file(os.path.join(KERNEL_DIR, "fill.s"), symbols)
    return Program(dwords, f"fill_diagonal1_{data_type.lower()}{'_input' if has_input else ''}"
                           f"{'_wide' if wide else ''}")


def _compile_diagonal1(tensors, attributes, layout, division_magic, packed_strides, merge_dimensions,
                       workgroup_size):
    """(program, constant buffer bytes, output elements) of a validated DIAGONAL_MATRIX1 desc."""
    source, target = tensors
    sizes = tuple(int(s) for s in target.sizes)
    strides = tuple(target.strides) if target.strides is not None else packed_strides(sizes)
    walk = [strides, [int(d == len(sizes) - 1) for d in range(len(sizes))],
            [int(d == len(sizes) - 2) for d in range(len(sizes))]]
    if source is not None:
        walk.append(tuple(source.strides) if source.strides is not None else packed_strides(sizes))
    merged_sizes, merged = merge_dimensions(sizes, walk)
    records = []
    for d in reversed(range(len(merged_sizes))):
        magic, shift1, shift2 = division_magic(merged_sizes[d])
        records.append({"SIZE": merged_sizes[d], "MAGIC": magic, "SHIFT1": shift1, "SHIFT2": shift2,
                        **{f"STRIDE_T{t}": merged[t][d] & 0xFFFFFFFF for t in range(len(walk))}})
    bits = np.asarray(attributes["Value"]).tobytes().ljust(8, b"\0")      # the type's bits, low dword first
    low, high = np.frombuffer(bits[:8], np.uint32)
    begin, end = int(attributes["DiagonalFillBegin"]), int(attributes["DiagonalFillEnd"])
    values = {"ELEMENTS": int(np.prod(sizes, dtype=np.int64)), "WORKGROUP_SIZE": workgroup_size,
              "RECORD_COUNT": len(merged_sizes), "PARAM0": int(low), "PARAM1": int(high),
              "PARAM2": begin & 0xFFFFFFFF, "PARAM3": end & 0xFFFFFFFF, "PARAM4": int(end >= begin)}
    wide = max(merged_sizes) >= 1 << 24 or any(s >= 1 << 24 for t in (0, 3) if t < len(walk) for s in merged[t])
    constants = layout.pack(values, records, params=True, wide=False)
    return (build_diagonal1_program(target.data_type, source is not None, wide, layout), constants,
            values["ELEMENTS"])


def _float_value(value, data_type):
    """A FLOAT attribute in the tensor's type (DIAGONAL_MATRIX's Value): rounded to FLOAT32, then FLOAT16 to
    nearest even, integers truncated toward zero and saturated, NaN -> 0 (the rule of CLIP's bounds)."""
    value32 = np.float32(value)
    if data_type.startswith("FLOAT"):
        return _dword(value32, data_type, False)
    info = np.iinfo(BY_NAME[data_type].dtype)
    if np.isnan(value32):
        return 0
    return int(min(max(np.trunc(np.float64(value32)), info.min), info.max)) & 0xFFFFFFFF


def _dword(value, data_type, widen):
    """A DML_SCALAR_UNION's value as the kernel's dword: integers in two's complement (sign- or zero-extended),
    floats by their bits (FLOAT16 widened to FLOAT32 where `widen`)."""
    value = np.asarray(value).astype(BY_NAME[data_type].dtype)
    if data_type == "FLOAT16" and widen:
        value = value.astype(np.float32)
    if value.dtype.kind == "f":
        return int(value.reshape(1).view({2: np.uint16, 4: np.uint32}[value.dtype.itemsize])[0])
    return int(value) & 0xFFFFFFFF


def compile_fill(operator, tensors, attributes, layout, no_kernel, division_magic, packed_strides, merge_dimensions,
                 workgroup_size):
    """(program, constant buffer bytes, output elements) of a validated fill desc."""
    row = OPERATORS[operator]
    if row.diagonal1:
        return _compile_diagonal1(tensors, attributes, layout, division_magic, packed_strides, merge_dimensions,
                                  workgroup_size)
    (target,) = tensors
    if target.data_type not in _STORE:
        raise no_kernel(f"dmlemu's kernel for {operator} has no {target.data_type} variant")
    sizes = tuple(int(s) for s in target.sizes)
    strides = tuple(target.strides) if target.strides is not None else packed_strides(sizes)
    walk = [strides, [0] * len(sizes)]
    if row.diagonal:         # "tensors" 1 and 2 count the column and the row (the last two dimensions)
        walk = [strides, [int(d == len(sizes) - 1) for d in range(len(sizes))],
                [int(d == len(sizes) - 2) for d in range(len(sizes))]]
    merged_sizes, merged = merge_dimensions(sizes, walk)
    records = []
    for d in reversed(range(len(merged_sizes))):
        magic, shift1, shift2 = division_magic(merged_sizes[d])
        records.append({"SIZE": merged_sizes[d], "MAGIC": magic, "SHIFT1": shift1, "SHIFT2": shift2,
                        **{f"STRIDE_T{t}": merged[t][d] & 0xFFFFFFFF for t in range(len(walk))}})
    elements = int(np.prod(sizes, dtype=np.int64))
    if row.diagonal:
        first = _float_value(attributes["Value"], target.data_type)
    else:
        first = _dword(attributes["ValueStart"] if row.sequence else attributes["Value"], target.data_type,
                       row.sequence)
    values = {"ELEMENTS": elements, "WORKGROUP_SIZE": workgroup_size, "RECORD_COUNT": len(merged_sizes),
              "PARAM0": first, "PARAM1": int(attributes.get("Offset", 0)) & 0xFFFFFFFF}
    if row.sequence:
        values["PARAM2"] = _dword(attributes["ValueDelta"], target.data_type, True)
    wide = max(merged_sizes) >= 1 << 24 or any(s >= 1 << 24 for s in merged[0])
    constants = layout.pack(values, records, params=True, wide=False)
    return build_program(target.data_type, row.sequence, wide, layout, row.diagonal), constants, elements


__all__ = ["OPERATORS", "FillOperator", "build_program", "compile_fill", "variant_symbols"]
