"""The softmax family's table and compiler: ACTIVATION_SOFTMAX, LOG_SOFTMAX, HARDMAX and their `1` forms.

A softmax is a reduction then an element-wise pass over the same row: one workgroup of L threads normalizes one
row (kernels/softmax.s), L from the row's length as the reduction family picks it (`reduce_ops.lanes_for`: 64 to
1024), with 4 L bytes of LDS for the tree (8 L for HARDMAX's (value, index) pairs). Its first pass is the reduction
family's MAX step and tree (reduce_functions.inc, reduce_tree.inc, with reduce_ops' symbols; HARDMAX: its own
step, hardmax_step.inc, then ARGMAX's tree), its second the sum of e^(x - M) in the same order, its third writes
each element. HARDMAX over FLOAT32 rows of stride 1 with even row offsets (`pairs_apply`) reads and writes two
elements a load (kernels/softmax_pairs.inc): a zero fill, then thread 0's 1. One `SoftmaxOperator` row per
operator says, by name:

  tensors     the desc's tensor fields in binding order, the output last
  kind        SOFTMAX, LOG_SOFTMAX or HARDMAX (the `.if KIND == ...` blocks of kernels/softmax_pass.inc)
  params      the desc's attributes the compiler reads, (field, kind): the `1` forms' Axes; the original forms
              normalize the last dimension (their validation allows an effective rank of at most 2)

The order of every operation is docs/NUMERICS.md's "Softmax, log-softmax, hardmax"; the golden model
(dmlemu.golden.softmax) follows the same description, independently.
"""
import functools
import os
from dataclasses import dataclass

import numpy as np

from dmlemu.isa.assembler import assemble_file
from dmlemu.isa.program import Program
from dmlemu.kernels import reduce_ops
from dmlemu.kernels.constant_buffer import LAYOUT
from dmlemu.kernels.element_wise_math import symbols as math_symbols

KERNEL_DIR = os.path.dirname(os.path.abspath(__file__))
IMM_LIMIT = reduce_ops.IMM_LIMIT     # a buffer access's immediate byte offset
FLOATS = ("FLOAT32", "FLOAT16")
_ONE = {"FLOAT32": 0x3F800000, "FLOAT16": 0x3C00}      # HARDMAX's 1, stored as raw bits


@dataclass(frozen=True, kw_only=True)
class SoftmaxOperator:
    """One operator of the softmax family (see the module docstring for each field)."""
    name: str
    tensors: tuple
    kind: str
    source: str = "softmax.s"
    params: tuple = ()
    types: tuple = FLOATS
    scale_bias: bool = False
    bounds: tuple = ()
    optional: tuple = ()
    family: str = "softmax"


OPERATORS = {row.name: row for row in (
    *(SoftmaxOperator(name="ACTIVATION_" + kind, tensors=("InputTensor", "OutputTensor"), kind=kind)
      for kind in ("SOFTMAX", "LOG_SOFTMAX", "HARDMAX")),
    *(SoftmaxOperator(name="ACTIVATION_" + kind + "1", tensors=("InputTensor", "OutputTensor"), kind=kind,
                      params=(("Axes", "axes"),))
      for kind in ("SOFTMAX", "LOG_SOFTMAX", "HARDMAX")),
)}


def variant_symbols(kind, data_type, inner_linear, lanes, layout=LAYOUT, pairs=False):
    """The assembler symbols of one variant of softmax.s: the reduction family's (its MAX or, for HARDMAX, ARGMAX
    function: identity, tree operation, LDS layout), the transcendental constants, and the kind's own; `pairs`:
    HARDMAX's passes two FLOAT32 elements a load (kernels/softmax_pairs.inc; `pairs_apply` says when)."""
    first = "ARGMAX" if kind == "HARDMAX" else "MAX"
    symbols = reduce_ops.variant_symbols(first, data_type, data_type, inner_linear, lanes, layout)
    symbols.update(math_symbols("f32"))
    symbols.update({"KIND": kind, "ONE": f"0x{_ONE[data_type]:X}", "CT_SIGN": "0x80000000", "EXP_HALVED": 0})
    # softmax_pairs.inc: unit u is elements 2u, 2u + 1; a trip takes units u, u + L, u + 2L, u + 3L (keys 2L apart)
    symbols.update({"PAIRS": int(pairs), "PAIR_STEP": 2 * lanes, "PAIR_STEP2": 4 * lanes, "PAIR_LAST": 6 * lanes,
                    "QUAD_STEP": 8 * lanes, "PAIR_BYTES": 8 * lanes, "IMM_PAIRS": int(24 * lanes <= IMM_LIMIT),
                    **{f"IMM_PAIR_{j}": 8 * j * lanes for j in (1, 2, 3)}})
    return symbols


def pairs_apply(kind, data_type, kept, reduced):
    """Whether HARDMAX reads and writes its rows two elements at a time (kernels/softmax_pairs.inc): FLOAT32, one
    normalized dimension of stride 1 in input and output, and every kept stride even, so that each row starts
    on an 8-byte boundary (a binding's offset is a multiple of 16) and every pair is an aligned dwordx2."""
    return (kind == "HARDMAX" and data_type == "FLOAT32" and len(reduced) == 1 and reduced[0][1:] == (1, 1)
            and all(si % 2 == 0 and so % 2 == 0 for _, si, so in kept))


@functools.lru_cache(maxsize=None)
def build_program(kind, data_type, inner_linear, lanes, layout=LAYOUT, pairs=False):
    """Assemble and decode one variant of softmax.s (cached)."""
    dwords = assemble_file(os.path.join(KERNEL_DIR, "softmax.s"),
                           variant_symbols(kind, data_type, inner_linear, lanes, layout, pairs))
    return Program(dwords, f"{kind.lower()}_{data_type.lower()}_x{lanes}{'_linear' if inner_linear else ''}"
                           f"{'_pairs' if pairs else ''}")


def compile_softmax(operator, tensors, attributes, layout, no_kernel, division_magic, packed_strides):
    """(program, constant buffer bytes, rows, threads per workgroup, LDS bytes) of a validated desc of the family;
    kernels/driver.py wraps them in a CompiledKernel. `no_kernel` is the NoKernel class to raise."""
    row = OPERATORS[operator]
    source, target = tensors
    if source.data_type not in row.types or target.data_type != source.data_type:
        raise no_kernel(f"dmlemu's kernel for {operator} serves {', '.join(row.types)}, not {source.data_type} to "
                        f"{target.data_type}")
    sizes = tuple(int(s) for s in source.sizes)
    axes = {int(a) for a in attributes["Axes"]} if row.params else {len(sizes) - 1}
    in_strides = source.strides if source.strides is not None else packed_strides(sizes)
    out_strides = target.strides if target.strides is not None else packed_strides(sizes)
    kept, reduced = reduce_ops.split_dimensions(sizes, axes, in_strides, out_strides, reduced_output=True)
    if len(kept) + len(reduced) > layout.max_records:
        raise no_kernel(f"dmlemu's kernel for {operator} holds {layout.max_records} dimension records, not "
                        f"{len(kept) + len(reduced)}")
    rows = int(np.prod([s for d, s in enumerate(sizes) if d not in axes], dtype=np.int64))
    count = int(np.prod([sizes[d] for d in axes], dtype=np.int64))
    records = []
    for size, si, so in kept + (reduced or [(1, 0, 0)]):
        magic, shift1, shift2 = division_magic(size)
        records.append({"SIZE": size, "MAGIC": magic, "SHIFT1": shift1, "SHIFT2": shift2,
                        "STRIDE_T0": si & 0xFFFFFFFF, "STRIDE_T1": so & 0xFFFFFFFF})
    lanes = reduce_ops.lanes_for(count)
    values = {"ELEMENTS": rows, "WORKGROUP_SIZE": lanes, "RECORD_COUNT": len(kept),
              "PARAM0": max(1, len(reduced)), "PARAM1": count}
    constants = layout.pack(values, records, params=True, wide=False)
    program = build_program(row.kind, source.data_type, len(reduced) <= 1, lanes, layout,
                            pairs_apply(row.kind, source.data_type, kept, reduced))
    return program, constants, rows, lanes, (8 if row.kind == "HARDMAX" else 4) * lanes


__all__ = ["OPERATORS", "SoftmaxOperator", "build_program", "compile_softmax", "pairs_apply", "variant_symbols"]
