"""Operator microkernels: the driver side that turns an operator desc into a kernel launch.

The kernels themselves are assembly sources in this folder, one per operator (identity.s,
threshold.s, clip.s, if.s, with the shared prologue.inc, address.inc and scale_bias.inc).
`compile_operator` picks the data-type variant by assembling the operator's one source with symbols
(load/store width, compute type, registers, and the offsets of what the kernel reads: descriptor
table slots `${DESC_T0}` .. and constant buffer fields `${CB_...}`), merges tensor dimensions that
are contiguous in every tensor, precomputes division constants for the general addressing path, and
packs the constant buffer by field name. The constant buffer's layout is one table,
kernels/constant_buffer.py, read by both the packer and (through the symbols) the kernel sources.
Assembled programs are cached: a variant is assembled and decoded once per process.

The constant buffer is what DirectML calls precomputed data: it is packed once, at CompileOperator,
and lives in the operator's persistent resource, where the initializer's dispatch copies it with
initialize.s (`copy_launch`); `CompiledKernel.launch` takes the address the kernel reads it at (the
persistent resource's), so an execution sees exactly the bytes initialization left there.
"""
import functools
import os
from dataclasses import dataclass

import numpy as np

from dmlemu.directml.operators import TENSOR_NAMES   # the DirectML desc's tensor fields, in binding order
from dmlemu.functional.buffer_descriptor import DESCRIPTOR_SIZE
from dmlemu.functional.wave_dispatcher import KernelLaunch
from dmlemu.functional.executor import Program
from dmlemu.isa.assembler import assemble_file
from dmlemu.kernels.constant_buffer import LAYOUT, copy_symbols

KERNEL_DIR = os.path.dirname(os.path.abspath(__file__))
SOURCES = {
    "ELEMENT_WISE_IDENTITY": "identity.s",
    "ELEMENT_WISE_THRESHOLD": "threshold.s",
    "ELEMENT_WISE_CLIP": "clip.s",
    "ELEMENT_WISE_IF": "if.s",
}


def has_kernel(operator):
    """Whether a microkernel exists for `operator` (its name without DML_OPERATOR_, e.g. ELEMENT_WISE_ADD).
    CreateOperator answers E_NOTIMPL for a validated operator this is False for."""
    return operator in SOURCES


@dataclass(frozen=True, kw_only=True)
class DataTypeVariant:
    """How one DirectML data type is loaded, computed and stored by the kernels."""
    size: int
    load: str
    store: str
    compute: str          # type suffix of v_min/v_max (after widening)
    bound_cvt: str        # instruction casting a FLOAT32 bound to the compute register, or none
    pair: bool            # 64-bit: values live in register pairs
    is_float: bool


VARIANTS = {
    "FLOAT32": DataTypeVariant(size=4, load="dword",   store="dword",   compute="f32", bound_cvt="none",
                               pair=False, is_float=True),
    "FLOAT16": DataTypeVariant(size=2, load="ushort",  store="short",   compute="f32", bound_cvt="v_cvt_f16_f32",
                               pair=False, is_float=True),
    "FLOAT64": DataTypeVariant(size=8, load="dwordx2", store="dwordx2", compute="f64", bound_cvt="none",
                               pair=True,  is_float=True),
    "INT32":   DataTypeVariant(size=4, load="dword",   store="dword",   compute="i32", bound_cvt="v_cvt_i32_f32",
                               pair=False, is_float=False),
    "UINT32":  DataTypeVariant(size=4, load="dword",   store="dword",   compute="u32", bound_cvt="v_cvt_u32_f32",
                               pair=False, is_float=False),
    "INT16":   DataTypeVariant(size=2, load="sshort",  store="short",   compute="i32", bound_cvt="v_cvt_i16_f32",
                               pair=False, is_float=False),
    "UINT16":  DataTypeVariant(size=2, load="ushort",  store="short",   compute="u32", bound_cvt="v_cvt_u16_f32",
                               pair=False, is_float=False),
    "INT8":    DataTypeVariant(size=1, load="sbyte",   store="byte",    compute="i32", bound_cvt="v_cvt_i8_f32",
                               pair=False, is_float=False),
    "UINT8":   DataTypeVariant(size=1, load="ubyte",   store="byte",    compute="u32", bound_cvt="v_cvt_u8_f32",
                               pair=False, is_float=False),
    "INT64":   DataTypeVariant(size=8, load="dwordx2", store="dwordx2", compute="i64", bound_cvt="v_cvt_i64_f32",
                               pair=True,  is_float=False),
    "UINT64":  DataTypeVariant(size=8, load="dwordx2", store="dwordx2", compute="u64", bound_cvt="v_cvt_u64_f32",
                               pair=True,  is_float=False),
}


@dataclass(frozen=True)
class TensorSpec:
    """A tensor as the kernel sees it: data type name, sizes, strides (elements) or None, bytes."""
    data_type: str
    sizes: tuple
    strides: tuple | None = None
    total_bytes: int = 0


def packed_strides(sizes):
    strides, step = [], 1
    for s in reversed(sizes):
        strides.append(step)
        step *= s
    return tuple(reversed(strides))


def merge_dimensions(sizes, strides_per_tensor):
    """Drop size-1 dimensions and merge neighbours contiguous in every tensor.

    Returns (sizes, [strides per tensor]) outermost first; at least one dimension.
    """
    dims = [(s, [st[i] for st in strides_per_tensor]) for i, s in enumerate(sizes) if s != 1]
    merged = []
    for size, strides in dims:
        if merged:
            outer_size, outer_strides = merged[-1]
            if all(o == i * size for o, i in zip(outer_strides, strides)):
                merged[-1] = (outer_size * size, strides)
                continue
        merged.append((size, strides))
    if not merged:
        merged = [(1, [0] * len(strides_per_tensor))]
    return [m[0] for m in merged], [[m[1][t] for m in merged] for t in range(len(strides_per_tensor))]


def division_magic(d):
    """(magic, shift1, shift2) so that n // d == (t + ((n - t) >> shift1)) >> shift2 with
    t = (n * magic) >> 32, for every 32-bit n (Granlund and Montgomery, 1994)."""
    if not 1 <= d < 1 << 32:
        raise ValueError(f"divisor {d} out of range")
    l = (d - 1).bit_length()  # ceil(log2(d))
    magic = ((1 << 32) * ((1 << l) - d)) // d + 1
    return magic & 0xFFFFFFFF, min(l, 1), max(l - 1, 0)


def variant_symbols(operator, data_type, packed, scale_bias, half, layout=LAYOUT, *, wide=False):
    """The assembler symbols that select one variant of an operator's kernel source.

    `operator` is the operator's name without DML_OPERATOR_ (ELEMENT_WISE_CLIP), `data_type` a
    DirectML data type name (FLOAT16); `packed`: every tensor dense and in the same order;
    `scale_bias`: the desc has a ScaleBias; `half`: FLOAT16 computed in FLOAT16; `wide`: a size or a
    stride of the general path needs more than 24 bits (32-bit multiply-adds). Every variant
    also gets the byte offsets the kernel reads at: DESC_T0 .. DESC_T3 (descriptor table slot of
    tensor 0 .. 3) and one CB_<FIELD> per field of the constant buffer `layout`.
    """
    v = VARIANTS[data_type]
    widen = data_type == "FLOAT16" and not half
    compute = "f16" if (data_type == "FLOAT16" and half) else v.compute
    reg = (lambda n: f"v[{n}:{n + 1}]") if v.pair else (lambda n: f"v{n}")
    tensors = 4 if operator == "ELEMENT_WISE_IF" else 2
    shift = v.size.bit_length() - 1
    symbols = {
        "PACKED": int(packed), "SCALE_BIAS": int(scale_bias), "HALF": int(half and data_type == "FLOAT16"),
        "WIDEN_F16": int(widen), "LOAD": v.load, "STORE": v.store, "CT": compute,
        "BOUND_CVT": v.bound_cvt, "SHIFT_DATA": shift,
        "X": reg(10), "A": reg(10), "B": reg(12), "SEL": "b64" if v.pair else "b32",
        "LO": "s38" if v.bound_cvt == "none" else reg(12),
        "HI": "s39" if v.bound_cvt == "none" else reg(14),
    }
    if tensors == 2:
        symbols.update(SHIFT_T0=shift, SHIFT_T1=shift)
        offs = ("v2", "v2") if packed else ("v2", "v3")
    else:
        symbols.update(SHIFT_T0=0, SHIFT_T1=shift, SHIFT_T2=shift, SHIFT_T3=shift)
        offs = ("v1", "v2", "v2", "v2") if packed else ("v2", "v3", "v4", "v5")
    for i, o in enumerate(offs):
        symbols[f"OFF_T{i}"] = o
        symbols[f"DESC_T{i}"] = i * DESCRIPTOR_SIZE   # one table slot per tensor, in binding order
    symbols["MAD_OFFSET"] = "v_mad_u32" if wide else "v_mad_u32_u24"
    symbols.update(layout.symbols())
    return symbols


def variant_name(operator, data_type, packed, scale_bias, half, wide=False):
    """The program name of one variant, e.g. element_wise_clip_float16_packed_sb."""
    return (f"{operator.lower()}_{data_type.lower()}{'_packed' if packed else ''}"
            f"{'_sb' if scale_bias else ''}{'_half' if half else ''}{'_wide' if wide else ''}")


@functools.lru_cache(maxsize=None)
def build_program(operator, data_type, packed, scale_bias, half, layout=LAYOUT, wide=False):
    """Assemble and decode one variant of an operator's kernel (cached)."""
    symbols = variant_symbols(operator, data_type, packed, scale_bias, half, layout, wide=wide)
    path = os.path.join(KERNEL_DIR, SOURCES[operator])
    dwords = assemble_file(path, symbols)
    return Program(dwords, variant_name(operator, data_type, packed, scale_bias, half, wide))


def registers_used(program):
    """(VGPRs, SGPRs) a program touches: the occupancy inputs of the timing model."""
    vmax, smax = 1, 5
    for _, entry, operands, _ in program.records:
        for o, w in zip(operands, entry.widths):
            if hasattr(o, "code") and o.is_register:
                if o.is_vgpr:
                    vmax = max(vmax, o.index + w)
                elif o.is_sgpr:
                    smax = max(smax, o.index + w)
    return vmax, smax


class CompiledKernel:
    """A kernel ready to launch: program, constant buffer bytes, descriptor count, grid."""

    def __init__(self, operator, program, constants, descriptor_count, elements, workgroup_size):
        self.operator = operator
        self.program = program
        self.constants = constants
        self.descriptor_count = descriptor_count
        self.elements = elements
        self.workgroup_size = workgroup_size
        self.vgprs_used, self.sgprs_used = registers_used(program)

    def launch(self, descriptor_table_va, constants_va):
        """The KernelLaunch: s[0:1] = the descriptor table, s[2:3] = where the constant buffer is read
        (the persistent resource holding it, or any copy of `constants`)."""
        return KernelLaunch(
            program=self.program,
            num_workgroups=-(-self.elements // self.workgroup_size),
            workgroup_size=self.workgroup_size,
            user_sgprs=(descriptor_table_va & 0xFFFFFFFF, descriptor_table_va >> 32,
                        constants_va & 0xFFFFFFFF, constants_va >> 32),
            name=self.program.name, elements=self.elements,
            vgprs_used=self.vgprs_used, sgprs_used=self.sgprs_used)


def compile_operator(operator, tensors, *, min_value=None, max_value=None, scale_bias=None,
                     half_precision=False, preset=None, workgroup_size=None, layout=LAYOUT):
    """Build the kernel for a validated operator desc (tensors in binding order).

    `layout` is the constant buffer layout (kernels/constant_buffer.py); the packer and the
    assembled kernel both follow it. Only tests pass another one.
    """
    if operator not in SOURCES:
        raise ValueError(f"no microkernel for {operator}")
    names = TENSOR_NAMES[operator]
    if len(tensors) != len(names):
        raise ValueError(f"{operator} takes {len(names)} tensors, got {len(tensors)}")
    data = tensors[-1]
    if data.data_type not in VARIANTS:
        raise ValueError(f"no kernel variant for {data.data_type}")
    if scale_bias is not None and not VARIANTS[data.data_type].is_float:
        raise ValueError(f"ScaleBias is not supported for {data.data_type}")
    sizes = tuple(int(s) for s in data.sizes)
    elements = int(np.prod(sizes, dtype=np.int64))
    strides = [tuple(t.strides) if t.strides is not None else packed_strides(t.sizes) for t in tensors]
    merged_sizes, merged_strides = merge_dimensions(sizes, strides)
    packed = len(merged_sizes) == 1 and all(s[0] == 1 for s in merged_strides)
    half = bool(half_precision) and data.data_type == "FLOAT16"
    # 24-bit multiply-adds place the element when every coordinate (< its size) and stride fits 24 bits.
    wide = not packed and (max(merged_sizes) > 1 << 24
                           or any(s >= 1 << 24 for strides_t in merged_strides for s in strides_t))
    program = build_program(operator, data.data_type, packed, scale_bias is not None, half, layout, wide)

    if workgroup_size is None:
        workgroup_size = preset.workgroup_size if preset is not None else 256
    scale, bias = scale_bias if scale_bias is not None else (1.0, 0.0)
    values = {
        "ELEMENTS": elements,
        "WORKGROUP_SIZE": workgroup_size,
        "RECORD_COUNT": len(merged_sizes),
        "MIN": 0.0 if min_value is None else min_value,
        "MAX": 0.0 if max_value is None else max_value,
        "SCALE": scale,
        "BIAS": bias,
    }
    records = []
    for d in reversed(range(len(merged_sizes))):  # innermost first
        magic, shift1, shift2 = division_magic(merged_sizes[d])
        record = {"SIZE": merged_sizes[d], "MAGIC": magic, "SHIFT1": shift1, "SHIFT2": shift2}
        for t in range(len(tensors)):
            record[f"STRIDE_T{t}"] = merged_strides[t][d] & 0xFFFFFFFF   # two's complement
        records.append(record)
    constants = layout.pack(values, records)
    return CompiledKernel(operator, program, constants, len(tensors), elements, workgroup_size)


COPY_SOURCE = "initialize.s"


@functools.lru_cache(maxsize=None)
def build_copy_program():
    """Assemble and decode kernels/initialize.s, the initializer's copy into a persistent resource (cached)."""
    symbols = dict(copy_symbols(), DESC_PERSISTENT=0, DESC_SOURCE=0)
    return Program(assemble_file(os.path.join(KERNEL_DIR, COPY_SOURCE), symbols), "dml_initialize_copy")


def copy_launch(table_va, constants_va, dwords, workgroup_size, name):
    """The KernelLaunch of one initializer copy of `dwords` dwords (kernels/initialize.s): `table_va` is
    the initializer's descriptor range of the operator (slot 0: the persistent resource), `constants_va`
    the copy's constants (constant_buffer.pack_copy)."""
    program = build_copy_program()
    vgprs, sgprs = registers_used(program)
    return KernelLaunch(
        program=program, num_workgroups=max(1, -(-dwords // workgroup_size)), workgroup_size=workgroup_size,
        user_sgprs=(table_va & 0xFFFFFFFF, table_va >> 32, constants_va & 0xFFFFFFFF, constants_va >> 32),
        name=name, elements=dwords, vgprs_used=vgprs, sgprs_used=sgprs)


__all__ = ["has_kernel", "TensorSpec", "DataTypeVariant", "CompiledKernel", "compile_operator", "build_program", "variant_symbols",
           "variant_name", "merge_dimensions", "division_magic", "packed_strides", "VARIANTS", "SOURCES",
           "build_copy_program", "copy_launch"]
