"""The resampling operators' table and compiler: RESAMPLE, RESAMPLE1, RESAMPLE2 and UPSAMPLE_2D as one kernel.

One thread per output element. address.inc peels the output index over the output's dimension records, and the
records' strides make "tensors" 0 .. 3 count the coordinates of dimensions 0 .. 3 (stride 1 along their own
dimension, 0 elsewhere) while tensor 4 is the output: the coordinates and the output offset come from the one
loop every element-wise kernel runs. Each dimension's constants (input size, Scale, InputPixelOffset,
OutputPixelOffset as FLOAT32 bits, input stride) are a record at index 4 + d of the same array. A tensor of
fewer than 4 dimensions is padded in front (size 1, Scale 1, offsets 0: the coordinate map is the identity
there). One `ResampleOperator` row per operator says:

  tensors     the desc's tensor fields in binding order, the output last
  source      the kernel source
  params      the desc's attributes the compiler reads, (field, kind) (the registry checks that the schema has them)
  offsets     the pixel offsets of an operator whose desc has none (RESAMPLE: 0.5 and -0.5, the RESAMPLE1 page)

A variant is the data type (FLOAT32, FLOAT16), the interpolation mode and the rounding direction. The order of
every operation is docs/NUMERICS.md's "Resampling"; the golden model (dmlemu.golden.resample) follows the text.
"""
import functools
import os
from dataclasses import dataclass

import numpy as np

from dmlemu.isa.assembler import assemble_file
from dmlemu.isa.program import Program
from dmlemu.kernels import address
from dmlemu.kernels.constant_buffer import LAYOUT, f32_bits

KERNEL_DIR = os.path.dirname(os.path.abspath(__file__))
RANK = 4                 # the kernel's dimensions (the pages: "supported up to 4 dimensions")
TYPES = ("FLOAT32", "FLOAT16")


@dataclass(frozen=True, kw_only=True)
class ResampleOperator:
    """One operator of the resampling family (see the module docstring for each field)."""
    name: str
    params: tuple
    tensors: tuple = ("InputTensor", "OutputTensor")
    source: str = "resample.s"
    offsets: tuple = None
    scale_bias: bool = False
    bounds: tuple = ()
    optional: tuple = ()
    family: str = "resample"


_ARRAYS = (("Scales", "f32[]"), ("InputPixelOffsets", "f32[]"), ("OutputPixelOffsets", "f32[]"))
OPERATORS = {row.name: row for row in (
    ResampleOperator(name="RESAMPLE", params=(("InterpolationMode", "enum"), ("Scales", "f32[]")), offsets=(0.5, -0.5)),
    # UPSAMPLE_2D: RESAMPLE with Scales {1, 1, Height, Width} (docs/DEVIATIONS.md: dmlemu's reading)
    ResampleOperator(name="UPSAMPLE_2D", params=(("ScaleSize", "size2d"), ("InterpolationMode", "enum")),
                     offsets=(0.5, -0.5)),
    ResampleOperator(name="RESAMPLE1", params=(("InterpolationMode", "enum"),) + _ARRAYS),
    ResampleOperator(name="RESAMPLE2", params=(("InterpolationMode", "enum"), ("RoundingDirection", "enum")) + _ARRAYS),
)}


def variant_symbols(data_type, linear, decreasing, wide, layout=LAYOUT):
    """The assembler symbols of one variant of resample.s."""
    half = data_type == "FLOAT16"
    first = layout.field("RECORDS").offset
    return {
        "PACKED": 0, "PACKED_X1": 0, "PACKED_X2": 0, "SHIFT_DATA": 1 if half else 2,
        **{f"HAS_T{t}": int(t <= 4) for t in range(2, 9)}, **{f"SHIFT_T{t}": 0 for t in range(4)},
        "SHIFT_T4": 1 if half else 2, "MAD_OFFSET": "v_mad_u32" if wide else "v_mad_u32_u24",
        "DESC_T0": 0, "DESC_T1": 32, **{f"CB_DIM_RECORD_{d}": first + (RANK + d) * layout.record_bytes for d in range(RANK)},
        "LINEAR": int(linear), "DECREASING": int(decreasing), "WIDEN_F16": int(half and linear),
        "NARROW_F16": int(half and linear), "LOAD": "ushort" if half else "dword", "STORE": "short" if half else "dword",
        "SHIFT_IN": 1 if half else 2, **address.DEFAULTS, **layout.symbols()}


@functools.lru_cache(maxsize=None)
def build_program(data_type, linear, decreasing, wide, layout=LAYOUT):
    """Assemble and decode one variant of resample.s (cached)."""
    dwords = assemble_file(os.path.join(KERNEL_DIR, "resample.s"),
                           variant_symbols(data_type, linear, decreasing, wide, layout))
    return Program(dwords, f"resample_{'linear' if linear else 'nearest'}_{data_type.lower()}"
                           f"{'_down' if decreasing else ''}{'_wide' if wide else ''}")


def compile_resample(operator, tensors, attributes, layout, no_kernel, division_magic, packed_strides,
                     workgroup_size):
    """(program, constant buffer bytes, output elements) of a validated resampling desc; kernels/driver.py wraps
    them in a CompiledKernel."""
    row = OPERATORS[operator]
    source, target = tensors
    if source.data_type not in TYPES or len(source.sizes) > RANK:
        raise no_kernel(f"dmlemu's kernel for {operator} serves {', '.join(TYPES)} of at most {RANK} dimensions, "
                        f"not {source.data_type} of {len(source.sizes)}")
    rank = len(source.sizes)
    pad = RANK - rank
    in_sizes = (1,) * pad + tuple(int(s) for s in source.sizes)
    out_sizes = (1,) * pad + tuple(int(s) for s in target.sizes)
    in_strides = (0,) * pad + tuple(source.strides if source.strides is not None else packed_strides(source.sizes))
    out_strides = (0,) * pad + tuple(target.strides if target.strides is not None else packed_strides(target.sizes))
    if "ScaleSize" in attributes:                # UPSAMPLE_2D: (Height, Width) on the last two dimensions
        attributes = dict(attributes, Scales=(1.0,) * (rank - 2) + tuple(float(s) for s in attributes["ScaleSize"]))
    scales = (1.0,) * pad + tuple(float(s) for s in attributes["Scales"])
    if row.offsets is not None:
        a, b = (0.0,) * pad + (row.offsets[0],) * rank, (0.0,) * pad + (row.offsets[1],) * rank
    else:
        a = (0.0,) * pad + tuple(float(v) for v in attributes["InputPixelOffsets"])
        b = (0.0,) * pad + tuple(float(v) for v in attributes["OutputPixelOffsets"])
    records = []
    for d in reversed(range(RANK)):              # the output's dimensions, innermost first; size 1 dropped
        if out_sizes[d] == 1:
            continue
        magic, shift1, shift2 = division_magic(out_sizes[d])
        records.append({"SIZE": out_sizes[d], "MAGIC": magic, "SHIFT1": shift1, "SHIFT2": shift2,
                        f"STRIDE_T{d}": 1, "STRIDE_T4": out_strides[d] & 0xFFFFFFFF})
    count = max(1, len(records))
    if not records:
        records.append({"SIZE": 1, "MAGIC": division_magic(1)[0]})
    records += [{}] * (RANK - len(records))
    for d in range(RANK):
        records.append({"SIZE": in_sizes[d], "MAGIC": f32_bits(scales[d]), "SHIFT1": f32_bits(a[d]),
                        "SHIFT2": f32_bits(b[d]), "STRIDE_T0": in_strides[d] & 0xFFFFFFFF})
    elements = int(np.prod(out_sizes, dtype=np.int64))
    wide = max(out_sizes) >= 1 << 24 or any(s >= 1 << 24 for s in out_strides)
    values = {"ELEMENTS": elements, "WORKGROUP_SIZE": workgroup_size, "RECORD_COUNT": count}
    constants = layout.pack(values, records, params=False, wide=True)
    linear = int(attributes["InterpolationMode"]) == 1
    decreasing = int(attributes.get("RoundingDirection") or 0) == 1
    return build_program(source.data_type, linear, decreasing, wide, layout), constants, elements


__all__ = ["OPERATORS", "RANK", "ResampleOperator", "TYPES", "build_program", "compile_resample", "variant_symbols"]
