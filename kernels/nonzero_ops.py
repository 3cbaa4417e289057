"""NONZERO_COORDINATES' table row and compiler: one workgroup of LANES threads scans the input (kernels/nonzero.s).

The coordinates go out in ascending element index, so the rows need a prefix sum over the whole input: one
workgroup walks it chunk by chunk, an LDS scan per chunk (docs/WORKGROUPS.md's barriers), whatever the wave width.
The input's dimension records (size-1 dimensions dropped, never merged: each record is one coordinate) carry the
input's stride (STRIDE_T0) and the byte offset of the coordinate's column in a row (STRIDE_T1).
"""
import functools
import os
from dataclasses import dataclass

import numpy as np

from dmlemu.isa.assembler import assemble_file
from dmlemu.isa.program import Program
from dmlemu.kernels import address
from dmlemu.kernels.constant_buffer import LAYOUT
from dmlemu.kernels.element_moves import load_suffixes, sizes

KERNEL_DIR = os.path.dirname(os.path.abspath(__file__))
LANES = 256          # threads of the one workgroup (8 scan levels)
_TYPES = ("FLOAT32", "FLOAT16", "INT32", "UINT32", "INT16", "UINT16", "INT8", "UINT8")
_LOAD, _SIZE = load_suffixes(_TYPES), sizes(_TYPES)


@dataclass(frozen=True, kw_only=True)
class NonzeroOperator:
    """The operator's row (the registry's fields: tensors, source, params)."""
    name: str
    tensors: tuple = ("InputTensor", "OutputCountTensor", "OutputCoordinatesTensor")
    source: str = "nonzero.s"
    params: tuple = ()
    scale_bias: bool = False
    bounds: tuple = ()
    optional: tuple = ()
    family: str = "nonzero"


OPERATORS = {"NONZERO_COORDINATES": NonzeroOperator(name="NONZERO_COORDINATES")}


def variant_symbols(data_type, layout=LAYOUT):
    return {"LANES": LANES, "DESC_T0": 0, "DESC_T1": 32, "DESC_T2": 64, "LOAD": _LOAD[data_type],
            "SHIFT_IN": _SIZE[data_type].bit_length() - 1, "WIDEN_F16": int(data_type == "FLOAT16"),
            "IS_FLOAT": int(data_type.startswith("FLOAT")), **address.DEFAULTS, **layout.symbols()}


@functools.lru_cache(maxsize=None)
def build_program(data_type, layout=LAYOUT):
    """Assemble and decode one variant of nonzero.s (cached)."""
    dwords = assemble_file(os.path.join(KERNEL_DIR, "nonzero.s"), variant_symbols(data_type, layout))
    return Program(dwords, f"nonzero_coordinates_{data_type.lower()}")


def compile_nonzero(operator, tensors, attributes, layout, no_kernel, division_magic, packed_strides):
    """(program, constant buffer bytes, threads, LDS bytes) of a validated NONZERO_COORDINATES desc."""
    source, count, coordinates = tensors
    if source.data_type not in _LOAD:
        raise no_kernel(f"dmlemu's kernel for {operator} has no {source.data_type} variant")
    sizes = tuple(int(s) for s in source.sizes)
    strides = tuple(source.strides) if source.strides is not None else packed_strides(sizes)
    rank = len(sizes)
    out_strides = (tuple(coordinates.strides) if coordinates.strides is not None
                   else packed_strides(tuple(coordinates.sizes)))
    columns = int(coordinates.sizes[-1])
    records = []
    for d in reversed(range(rank)):            # innermost first; a size-1 dimension's coordinate is 0
        if sizes[d] == 1:
            continue
        magic, shift1, shift2 = division_magic(sizes[d])
        column = d - (rank - columns)         # validated: only the last N dimensions have sizes above 1
        records.append({"SIZE": sizes[d], "MAGIC": magic, "SHIFT1": shift1, "SHIFT2": shift2,
                        "STRIDE_T0": strides[d] & 0xFFFFFFFF, "STRIDE_T1": (column * out_strides[-1] * 4) & 0xFFFFFFFF})
    elements = int(np.prod(sizes, dtype=np.int64))
    values = {"ELEMENTS": LANES, "WORKGROUP_SIZE": LANES, "RECORD_COUNT": len(records), "PARAM0": elements,
              "PARAM1": columns, "PARAM2": (out_strides[-2] * 4) & 0xFFFFFFFF, "PARAM3": (out_strides[-1] * 4) & 0xFFFFFFFF}
    constants = layout.pack(values, records, params=True, wide=False)
    return build_program(source.data_type, layout), constants, LANES, 4 * LANES


__all__ = ["LANES", "OPERATORS", "NonzeroOperator", "build_program", "compile_nonzero", "variant_symbols"]
