"""The cumulative scans' table and compiler: CUMULATIVE_SUMMATION and CUMULATIVE_PRODUCT as a kernel launch.

One thread per line (the elements that share every coordinate but Axis) walks its line in AxisDirection order and
writes the running tally (kernels/scan.s): a sequential scan, so the order of accumulation is the one the page
describes, with no choice left. The launch has one thread per line in workgroups of `WORKGROUP_SIZE`. One
`ScanOperator` row per operator says, by name:

  tensors     the desc's tensor fields in binding order, the output last
  combine     per compute type the instruction that adds the element to the tally (reduce_ops' tables: floats
              rounded, integers wrapping)
  identity    per compute type the tally before the first element (a float sum: -0 inclusive, +0 exclusive)
  params      the desc's attributes the compiler reads, (field, kind)

The order of every operation is docs/NUMERICS.md's "Cumulative scans"; the golden model (dmlemu.golden.scan)
follows the same description, independently.
"""
import functools
import os
from dataclasses import dataclass

import numpy as np

from dmlemu.isa.assembler import assemble_file
from dmlemu.isa.program import Program
from dmlemu.kernels import reduce_ops
from dmlemu.kernels.constant_buffer import LAYOUT

KERNEL_DIR = os.path.dirname(os.path.abspath(__file__))
WORKGROUP_SIZE = 64
TYPES = ("FLOAT32", "FLOAT16", "INT64", "INT32", "UINT64", "UINT32")
# The tally before the first element, by compute type and HasExclusive*: an inclusive float sum starts at -0
# (-0 + x is x for every x), an exclusive one at +0 (its first output, as the page's examples write it).
_SUM_IDENTITY = {"f32": (0x80000000, 0x00000000), "i32": (0, 0), "u32": (0, 0), "i64": (0, 0), "u64": (0, 0)}
_PRODUCT_IDENTITY = {"f32": (0x3F800000,) * 2, "i32": (1, 1), "u32": (1, 1), "i64": (1, 1), "u64": (1, 1)}


@dataclass(frozen=True, kw_only=True)
class ScanOperator:
    """One cumulative scan (see the module docstring for each field)."""
    name: str
    tensors: tuple
    combine: dict
    identity: dict
    exclusive: str
    source: str = "scan.s"
    params: tuple = ()
    types: tuple = TYPES
    scale_bias: bool = False
    bounds: tuple = ()
    optional: tuple = ()
    family: str = "scan"


OPERATORS = {row.name: row for row in (
    ScanOperator(name="CUMULATIVE_SUMMATION", tensors=("InputTensor", "OutputTensor"), combine=reduce_ops._ADD,
                 identity=_SUM_IDENTITY, exclusive="HasExclusiveSum",
                 params=(("Axis", "axis"), ("AxisDirection", "enum"), ("HasExclusiveSum", "bool"))),
    ScanOperator(name="CUMULATIVE_PRODUCT", tensors=("InputTensor", "OutputTensor"), combine=reduce_ops._MUL,
                 identity=_PRODUCT_IDENTITY, exclusive="HasExclusiveProduct",
                 params=(("Axis", "axis"), ("AxisDirection", "enum"), ("HasExclusiveProduct", "bool"))),
)}


def variant_symbols(operator, data_type, exclusive, layout=LAYOUT):
    """The assembler symbols of one variant of scan.s."""
    row = OPERATORS[operator]
    compute = reduce_ops._COMPUTE[data_type]
    wide = compute in ("i64", "u64")
    identity = row.identity[compute][int(bool(exclusive))]
    return {"COMBINE": row.combine[compute], "CT": compute, "IS_WIDE": int(wide),
            "ACC": "v[18:19]" if wide else "v10", "X": "v[20:21]" if wide else "v11",
            "IDENTITY": identity, "IDENTITY_LO": identity & 0xFFFFFFFF, "IDENTITY_HI": identity >> 32 if wide else 0,
            "EXCLUSIVE": int(bool(exclusive)), "LOAD": reduce_ops._LOAD[data_type],
            "STORE": reduce_ops._STORE[data_type], "SHIFT_IN": reduce_ops._SIZE[data_type].bit_length() - 1,
            "WIDEN_F16": int(data_type == "FLOAT16"), "NARROW_F16": int(data_type == "FLOAT16"),
            "DESC_T0": 0, "DESC_T1": 32, **layout.symbols()}


@functools.lru_cache(maxsize=None)
def build_program(operator, data_type, exclusive, layout=LAYOUT):
    """Assemble and decode one variant of scan.s (cached)."""
    dwords = assemble_file(os.path.join(KERNEL_DIR, "scan.s"), variant_symbols(operator, data_type, exclusive, layout))
    name = operator.lower().replace("cumulative_", "cum")
    return Program(dwords, f"{name}_{data_type.lower()}{'_exclusive' if exclusive else ''}")


def compile_scan(operator, tensors, attributes, layout, no_kernel, division_magic, packed_strides):
    """(program, constant buffer bytes, lines, threads per workgroup) of a validated desc; kernels/driver.py wraps
    them in a CompiledKernel. `no_kernel` is the NoKernel class to raise."""
    row = OPERATORS[operator]
    source, target = tensors
    if source.data_type not in row.types or target.data_type != source.data_type:
        raise no_kernel(f"dmlemu's kernel for {operator} serves {', '.join(row.types)}, not {source.data_type} to "
                        f"{target.data_type}")
    sizes = tuple(int(s) for s in source.sizes)
    axis = int(attributes["Axis"])
    decreasing = int(attributes.get("AxisDirection") or 0) == 1      # DML_AXIS_DIRECTION_DECREASING
    exclusive = bool(attributes.get(row.exclusive))
    in_strides = source.strides if source.strides is not None else packed_strides(sizes)
    out_strides = target.strides if target.strides is not None else packed_strides(sizes)
    kept, _ = reduce_ops.split_dimensions(sizes, {axis}, in_strides, out_strides, reduced_output=True)
    count, si, so = sizes[axis], int(in_strides[axis]), int(out_strides[axis])
    lines = int(np.prod([s for d, s in enumerate(sizes) if d != axis], dtype=np.int64))
    records = []
    for size, sti, sto in kept:
        magic, shift1, shift2 = division_magic(size)
        records.append({"SIZE": size, "MAGIC": magic, "SHIFT1": shift1, "SHIFT2": shift2,
                        "STRIDE_T0": sti & 0xFFFFFFFF, "STRIDE_T1": sto & 0xFFFFFFFF})
    size = reduce_ops._SIZE[source.data_type]
    if decreasing:      # from the last element backwards: start (n - 1) stride (elements), step -stride (bytes)
        start_in, step_in, start_out, step_out = (count - 1) * si, -si * size, (count - 1) * so, -so * size
    else:
        start_in, step_in, start_out, step_out = 0, si * size, 0, so * size
    values = {"ELEMENTS": lines, "WORKGROUP_SIZE": WORKGROUP_SIZE, "RECORD_COUNT": len(kept),
              "PARAM0": count, **{f"PARAM{i}": v & 0xFFFFFFFF for i, v in
                                  enumerate((start_in, step_in, start_out, step_out), 1)}}
    constants = layout.pack(values, records, params=True, wide=False)
    return build_program(operator, source.data_type, exclusive, layout), constants, lines, WORKGROUP_SIZE


__all__ = ["OPERATORS", "ScanOperator", "WORKGROUP_SIZE", "build_program", "compile_scan", "variant_symbols"]
