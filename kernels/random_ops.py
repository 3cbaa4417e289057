"""RANDOM_GENERATOR's table row and compiler: Philox 4x32-10 as kernels/random.s, one thread per output element.

The stream is the page's: the 128-bit counter of InputStateTensor (elements 0 .. 3, element 0 the lowest 32 bits)
plus k / 4 gives output element k's block, word k % 4 of its Philox 4x32-10 result under the 64-bit key (elements
4, 5); an OutputStateTensor gets the counter plus ceil(count / 4) and the key (docs/NUMERICS.md, "Random numbers").
"""
import functools
import os
from dataclasses import dataclass

import numpy as np

from dmlemu.isa.assembler import assemble_file
from dmlemu.isa.program import Program
from dmlemu.kernels import address
from dmlemu.kernels.constant_buffer import LAYOUT

KERNEL_DIR = os.path.dirname(os.path.abspath(__file__))


@dataclass(frozen=True, kw_only=True)
class RandomOperator:
    """The operator's row (the registry's fields: tensors, source, params)."""
    name: str
    tensors: tuple = ("InputStateTensor", "OutputTensor", "OutputStateTensor")
    source: str = "random.s"
    params: tuple = (("Type", "enum"),)
    scale_bias: bool = False
    bounds: tuple = ()
    optional: tuple = (2,)
    family: str = "random"


OPERATORS = {"RANDOM_GENERATOR": RandomOperator(name="RANDOM_GENERATOR")}


def variant_symbols(has_state, wide, layout=LAYOUT):
    return {"PACKED": 0, "PACKED_X1": 0, "PACKED_X2": 0, "SHIFT_DATA": 2, "SHIFT_T0": 2, "SHIFT_T1": 0,
            **{f"HAS_T{t}": 0 for t in range(2, 9)}, "MAD_OFFSET": "v_mad_u32" if wide else "v_mad_u32_u24",
            "DESC_T0": 0, "DESC_T1": 32, "DESC_T2": 64, "HAS_STATE": int(has_state), **address.DEFAULTS, **layout.symbols()}


@functools.lru_cache(maxsize=None)
def build_program(has_state, wide, layout=LAYOUT):
    """Assemble and decode one variant of random.s (cached)."""
    dwords = assemble_file(os.path.join(KERNEL_DIR, "random.s"), variant_symbols(has_state, wide, layout))
    return Program(dwords, f"random_philox{'_state' if has_state else ''}{'_wide' if wide else ''}")


def compile_random(operator, tensors, attributes, layout, no_kernel, division_magic, packed_strides, merge_dimensions,
                   workgroup_size):
    """(program, constant buffer bytes, threads) of a validated RANDOM_GENERATOR desc."""
    _, target, state = tensors
    sizes = tuple(int(s) for s in target.sizes)
    strides = tuple(target.strides) if target.strides is not None else packed_strides(sizes)
    merged_sizes, merged = merge_dimensions(sizes, [strides, [0] * len(sizes)])
    records = []
    for d in reversed(range(len(merged_sizes))):
        magic, shift1, shift2 = division_magic(merged_sizes[d])
        records.append({"SIZE": merged_sizes[d], "MAGIC": magic, "SHIFT1": shift1, "SHIFT2": shift2,
                        "STRIDE_T0": merged[0][d] & 0xFFFFFFFF})
    count = int(np.prod(sizes, dtype=np.int64))
    threads = max(count, 6) if state is not None else count
    values = {"ELEMENTS": threads, "WORKGROUP_SIZE": workgroup_size, "RECORD_COUNT": len(merged_sizes),
              "PARAM0": -(-count // 4), "PARAM1": count}
    wide = max(merged_sizes) >= 1 << 24 or any(s >= 1 << 24 for s in merged[0])
    constants = layout.pack(values, records, params=True, wide=False)
    return build_program(state is not None, wide, layout), constants, threads


__all__ = ["OPERATORS", "RandomOperator", "build_program", "compile_random", "variant_symbols"]
