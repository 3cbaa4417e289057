"""The top-K operators' table and compiler: DML_OPERATOR_TOP_K and TOP_K1 as one kernel, kernels/top_k.s.

One workgroup of L threads per sequence (the elements along Axis of one output row), L from the sequence's length N
as the reductions choose it (kernels/reduce_ops.lanes_for: 64 to 1024, whatever the wave width), and K selection
passes over the sequence, each an arg-best of (key, index) pairs through an LDS tree (docs/NUMERICS.md, "Top-K").
LDS: the L keys (4 or 8 bytes each) and the L indices. One `TopKOperator` row per operator says, by name:

  tensors     the desc's tensor fields in binding order
  source      the kernel source
  params      the desc's attributes the compiler reads, (field, kind) (the registry checks that the schema has them)
  direction   the AxisDirection of an operator without the field (TOP_K: DECREASING, the largest first)

Every data type the pages list is served (the 64-bit integers as key pairs), with UINT32 or UINT64 indices.
"""
import functools
import os
from dataclasses import dataclass

import numpy as np

from dmlemu.isa.assembler import assemble_file
from dmlemu.isa.program import Program
from dmlemu.kernels.constant_buffer import LAYOUT
from dmlemu.kernels.reduce_ops import _LOAD, _SIZE, _STORE, lanes_for   # the reductions' loads, stores, sizes

KERNEL_DIR = os.path.dirname(os.path.abspath(__file__))
# How an element becomes its unsigned order key (kernels/top_k_key.inc)
_KEY_KIND = {"FLOAT32": "F32", "FLOAT16": "F16", "INT32": "I32", "INT16": "I32", "INT8": "I32", "UINT32": "U32",
             "UINT16": "U32", "UINT8": "U32", "INT64": "I64", "UINT64": "U64"}
INDEX_TYPES = ("UINT32", "UINT64")
DECREASING = 1          # DML_AXIS_DIRECTION_DECREASING: the largest K, largest first


@dataclass(frozen=True, kw_only=True)
class TopKOperator:
    """One operator of the top-K family (see the module docstring for each field)."""
    name: str
    params: tuple
    direction: int = None
    tensors: tuple = ("InputTensor", "OutputValueTensor", "OutputIndexTensor")
    source: str = "top_k.s"
    scale_bias: bool = False
    bounds: tuple = ()
    optional: tuple = ()
    family: str = "top_k"


OPERATORS = {row.name: row for row in (
    TopKOperator(name="TOP_K", params=(("Axis", "u32"), ("K", "u32")), direction=DECREASING),
    TopKOperator(name="TOP_K1", params=(("Axis", "u32"), ("K", "u32"), ("AxisDirection", "enum"))),
)}


def variant_symbols(data_type, index_type, decreasing, lanes, layout=LAYOUT):
    """The assembler symbols of one variant of top_k.s."""
    wide = _SIZE[data_type] == 8
    unsigned = "u64" if wide else "u32"
    return {
        "LANES": lanes, "HALF_LANES": lanes // 2, "IS_WIDE": int(wide), "KEY_KIND": _KEY_KIND[data_type],
        "IS_FLOAT": int(data_type in ("FLOAT32", "FLOAT16")), "KEY_SHIFT": 3 if wide else 2,
        "LDS_INDEX": (8 if wide else 4) * lanes, "DS": "b64" if wide else "b32", "SEL": "b64" if wide else "b32",
        "ACC": "v[10:11]" if wide else "v10", "X": "v[20:21]" if wide else "v11",
        "PREV": "v[16:17]" if wide else "v16", "RAW": "v[22:23]" if wide else "v22",
        # the better key is the larger (DECREASING) or the smaller; the worst key starts each pass, and the
        # first pass's "previous pick" is the best key at index -1, so that every element comes after it
        "CMP_BETTER": f"v_cmp_{'gt' if decreasing else 'lt'}_{unsigned}",
        "CMP_WORSE": f"v_cmp_{'lt' if decreasing else 'gt'}_{unsigned}", "CMP_EQ": f"v_cmp_eq_{unsigned}",
        "WORST_LO": 0 if decreasing else 0xFFFFFFFF, "START_LO": 0xFFFFFFFF if decreasing else 0,
        "LOAD": _LOAD[data_type], "STORE": _STORE[data_type], "SHIFT_IN": _SIZE[data_type].bit_length() - 1,
        "SHIFT_INDEX": _SIZE[index_type].bit_length() - 1, "INDEX_PAIR": int(index_type == "UINT64"),
        "DESC_T0": 0, "DESC_T1": 32, "DESC_T2": 64, **layout.symbols()}


@functools.lru_cache(maxsize=None)
def build_program(data_type, index_type, decreasing, lanes, layout=LAYOUT):
    """Assemble and decode one variant of top_k.s (cached)."""
    dwords = assemble_file(os.path.join(KERNEL_DIR, "top_k.s"),
                           variant_symbols(data_type, index_type, decreasing, lanes, layout))
    return Program(dwords, f"top_k_{data_type.lower()}_{index_type.lower()}_x{lanes}"
                           f"{'_largest' if decreasing else '_smallest'}")


def compile_top_k(operator, tensors, attributes, layout, no_kernel, division_magic, packed_strides, merge_dimensions):
    """(program, constant buffer bytes, sequences, threads per workgroup, LDS bytes) of a validated TOP_K / TOP_K1
    desc; kernels/driver.py wraps them in a CompiledKernel with one workgroup per sequence."""
    row = OPERATORS[operator]
    source, values, indices = tensors
    if source.data_type not in _LOAD or values.data_type != source.data_type or indices.data_type not in INDEX_TYPES:
        raise no_kernel(f"dmlemu's kernel for {operator} has no {source.data_type} to {values.data_type} and "
                        f"{indices.data_type} variant")
    direction = row.direction if row.direction is not None else int(attributes.get("AxisDirection", DECREASING))
    axis, k = int(attributes["Axis"]), int(attributes["K"])
    sizes = tuple(int(s) for s in source.sizes)
    strides = [tuple(t.strides) if t.strides is not None else packed_strides(tuple(int(s) for s in t.sizes))
               for t in (source, values, indices)]
    kept = [d for d in range(len(sizes)) if d != axis]
    merged_sizes, merged = merge_dimensions([sizes[d] for d in kept], [[st[d] for d in kept] for st in strides])
    records = []
    for d in reversed(range(len(merged_sizes))):     # innermost first
        if merged_sizes[d] == 1:
            continue
        magic, shift1, shift2 = division_magic(merged_sizes[d])
        records.append({"SIZE": merged_sizes[d], "MAGIC": magic, "SHIFT1": shift1, "SHIFT2": shift2,
                        **{f"STRIDE_T{t}": merged[t][d] & 0xFFFFFFFF for t in range(3)}})
    sequences = int(np.prod([sizes[d] for d in kept], dtype=np.int64))
    count = sizes[axis]
    lanes = lanes_for(count)
    params = {f"PARAM{i}": value & 0xFFFFFFFF for i, value in enumerate(
        (count, k, strides[0][axis], strides[1][axis], strides[2][axis]))}
    constants = layout.pack({"ELEMENTS": sequences, "WORKGROUP_SIZE": lanes, "RECORD_COUNT": len(records), **params},
                            records, params=True, wide=False)
    program = build_program(source.data_type, indices.data_type, direction == DECREASING, lanes, layout)
    key_bytes = 8 if _SIZE[source.data_type] == 8 else 4
    return program, constants, sequences, lanes, (key_bytes + 4) * lanes


__all__ = ["OPERATORS", "TopKOperator", "INDEX_TYPES", "build_program", "compile_top_k", "variant_symbols"]
