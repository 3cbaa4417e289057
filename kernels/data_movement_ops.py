"""The data movement operators' table and compiler: each desc as one launch of kernels/copy_region.s.

Every operator here moves bits and computes nothing, so one kernel serves them all: a lane per element of
an iteration domain, whose dimension records (kernels/constant_buffer.py, walked by kernels/address.inc with
the division magic of kernels/driver.py) give each element's offset in the input and in the output. The
compiler's whole job is to express the operator as such a domain (`plan`):

  SLICE, SLICE1     the output's dimensions; the input's strides times the window strides (SLICE1's negative
                    strides as two's complement), the window's first element as the input's base (PARAM0)
  TILE              each dimension split in two, (repeat, element): the repeat's input stride 0
  DEPTH_TO_SPACE    {N, C', H, b, W, b} in the output's order, the input's strides per Order (DCR or CRD)
  SPACE_TO_DEPTH    {N, C, H', b, W', b} in the input's order, the output's strides per Order
  PADDING(1)        the output's dimensions with PAD: per dimension the fold of PaddingMode (address.inc)

Neighbouring dimensions contiguous in both tensors merge, size-1 dimensions drop; a domain that still needs
more than the constant buffer's 8 records (TILE of high rank) is `NoKernel`. One `DataMovementOperator` row
per operator names the desc's tensors and attributes (the registry checks them against the schema). The data
types are those the schema allows (8-, 16-, 32- and 64-bit elements, FLOAT64 included): a copy of bits
serves every one. The numeric rule (none: every output is one input element's bits, or the padding value) is
docs/NUMERICS.md's "Data movement"; dmlemu.golden.data_movement is the independent oracle.
"""
import functools
import os
from dataclasses import dataclass

import numpy as np

from dmlemu.data_types import BY_NAME
from dmlemu.isa.assembler import assemble_file
from dmlemu.isa.program import Program
from dmlemu.kernels.constant_buffer import LAYOUT, f32_bits
from dmlemu.kernels.element_moves import LOAD_OF_SIZE, STORE_OF_SIZE, sizes

KERNEL_DIR = os.path.dirname(os.path.abspath(__file__))
SOURCE = "copy_region.s"
_SIZE = sizes(("FLOAT64", "FLOAT32", "FLOAT16", "INT64", "INT32", "INT16", "INT8", "UINT64", "UINT32", "UINT16", "UINT8"))
_LOAD, _STORE = LOAD_OF_SIZE, STORE_OF_SIZE      # by element size: bits only, no sign extension needed
PADDING_MODES = ("CONSTANT", "EDGE", "REFLECTION", "SYMMETRIC", "WRAP")   # DML_PADDING_MODE values
_KERNEL_MODE = {"CONSTANT": "CONSTANT", "EDGE": "EDGE", "REFLECTION": "FOLD", "SYMMETRIC": "FOLD", "WRAP": "FOLD"}


@dataclass(frozen=True, kw_only=True)
class DataMovementOperator:
    """One operator of the data movement family: the desc's tensor fields in binding order (the output last) and
    the attributes the compiler reads, (field, kind)."""
    name: str
    tensors: tuple = ("InputTensor", "OutputTensor")
    params: tuple = ()
    source: str = SOURCE
    scale_bias: bool = False
    bounds: tuple = ()
    optional: tuple = ()
    family: str = "data_movement"


OPERATORS = {row.name: row for row in (
    DataMovementOperator(name="SLICE", params=(("Offsets", "uints"), ("Sizes", "uints"), ("Strides", "uints"))),
    DataMovementOperator(name="SLICE1", params=(("InputWindowOffsets", "uints"), ("InputWindowSizes", "uints"),
                                                ("InputWindowStrides", "ints"))),
    DataMovementOperator(name="TILE", params=(("Repeats", "uints"),)),
    DataMovementOperator(name="PADDING", params=(("PaddingMode", "enum"), ("PaddingValue", "f32"),
                                                 ("StartPadding", "uints"), ("EndPadding", "uints"))),
    DataMovementOperator(name="PADDING1", params=(("PaddingMode", "enum"), ("PaddingValue", "tensor"),
                                                  ("StartPadding", "uints"), ("EndPadding", "uints"))),
    DataMovementOperator(name="JOIN", tensors=("InputTensors", "OutputTensor"), params=(("Axis", "u32"),)),
    DataMovementOperator(name="SPLIT", tensors=("InputTensor", "OutputTensors"), params=(("Axis", "u32"),)),
    *(DataMovementOperator(name=name, params=(("BlockSize", "u32"),) + order) for name, order in (
        ("DEPTH_TO_SPACE", ()), ("SPACE_TO_DEPTH", ()), ("DEPTH_TO_SPACE1", (("Order", "enum"),)),
        ("SPACE_TO_DEPTH1", (("Order", "enum"),)))),
)}


@dataclass(frozen=True)
class CopyPlan:
    """An operator as a strided copy: the domain's dimensions outermost first, each (size, input stride,
    output stride) in elements; the input's base element; and, for PADDING, per dimension (bias, last input
    coordinate, period, fold base) and the mode."""
    dims: tuple
    base: int = 0
    pad: tuple = ()
    mode: str = "none"


def _strides(tensor, packed_strides):
    strides = tensor.strides if tensor.strides is not None else packed_strides(tuple(tensor.sizes))
    return tuple(int(s) for s in strides)


def plan(operator, source, target, attributes, packed_strides):
    """The CopyPlan of a validated desc (`source`, `target`: the tensors; attributes by C field name)."""
    ins, outs = tuple(int(s) for s in source.sizes), tuple(int(s) for s in target.sizes)
    si, so = _strides(source, packed_strides), _strides(target, packed_strides)
    if operator == "SLICE":
        offsets, steps = attributes["Offsets"], attributes["Strides"]
        return CopyPlan(dims=tuple((n, a * t, b) for n, a, t, b in zip(outs, si, steps, so)),
                        base=sum(o * a for o, a in zip(offsets, si)))
    if operator == "SLICE1":
        offsets, sizes = attributes["InputWindowOffsets"], attributes["InputWindowSizes"]
        steps = attributes["InputWindowStrides"]
        starts = [o + (s - 1 if t < 0 else 0) for o, s, t in zip(offsets, sizes, steps)]
        return CopyPlan(dims=tuple((n, a * t, b) for n, a, t, b in zip(outs, si, steps, so)),
                        base=sum(c * a for c, a in zip(starts, si)))
    if operator == "TILE":
        dims = []
        for n, r, a, b in zip(ins, attributes["Repeats"], si, so):
            dims += [(int(r), 0, n * b), (n, a, b)]
        return CopyPlan(dims=tuple(dims))
    if operator.startswith(("DEPTH_TO_SPACE", "SPACE_TO_DEPTH")):
        k = int(attributes["BlockSize"])
        dcr = int(attributes.get("Order") or 0) == 0            # DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW
        to_space = operator.startswith("DEPTH_TO_SPACE")
        # the "space" tensor {N, C, H, W} is split {N, C, H', k, W', k}; the "depth" tensor's channel is
        # (i * k + j) * C + c (DCR) or c * k * k + i * k + j (CRD)
        space, depth = (target, source) if to_space else (source, target)
        sp, dp = (so, si) if to_space else (si, so)
        n, c, h, w = (int(s) for s in space.sizes)
        cs = dp[1]
        channel = (cs, k * c * cs, c * cs) if dcr else (k * k * cs, k * cs, cs)     # strides of c, i, j
        sizes = (n, c, h // k, k, w // k, k)
        space_strides = (sp[0], sp[1], k * sp[2], sp[2], k * sp[3], sp[3])
        depth_strides = (dp[0], channel[0], dp[2], channel[1], dp[3], channel[2])
        pairs = zip(depth_strides, space_strides) if to_space else zip(space_strides, depth_strides)
        return CopyPlan(dims=tuple((s, a, b) for s, (a, b) in zip(sizes, pairs)))
    # PADDING, PADDING1
    mode = PADDING_MODES[int(attributes["PaddingMode"])]
    dims, pad = [], []
    for n, start, m, a, b in zip(ins, attributes["StartPadding"], outs, si, so):
        period = {"REFLECTION": max(2 * (n - 1), 1), "SYMMETRIC": 2 * n, "WRAP": n}.get(mode, 1)
        base = {"REFLECTION": period, "SYMMETRIC": 2 * n - 1}.get(mode, 0)
        # CONSTANT, EDGE: c = coordinate - start (two's complement); the folds add whole periods to stay >= 0
        bias = -start if mode in ("CONSTANT", "EDGE") else -(-start // period) * period - start
        dims.append((m, a, b))
        pad.append((bias, n - 1, period, base))
    return CopyPlan(dims=tuple(dims), pad=tuple(pad), mode=mode)


def merge(plan_):
    """The plan's dimensions with size-1 ones dropped and neighbours contiguous in every stride column merged
    (not for PADDING, whose dimensions each fold on their own); at least one."""
    columns = len(plan_.dims[0]) - 1 if plan_.dims else 2
    if getattr(plan_, "pad", ()):
        kept = [(d, p) for d, p in zip(plan_.dims, plan_.pad) if d[0] != 1]
        return [d for d, _ in kept] or [(1, 0, 0)], [p for _, p in kept] or [(0, 0, 1, 0)]
    merged = []
    for size, *strides in plan_.dims:
        if size == 1:
            continue
        if merged and all(o == i * size for o, i in zip(merged[-1][1:], strides)):
            merged[-1] = (merged[-1][0] * size, *strides)
        else:
            merged.append((size, *strides))
    return merged or [(1,) + (0,) * columns], []


MAX_PARTS = 7     # JOIN's inputs, SPLIT's outputs in one dispatch: address.inc's 9 tensors, the axis column one


@dataclass(frozen=True)
class PartsPlan:
    """JOIN or SPLIT as one walk over the whole (JOIN's output, SPLIT's input): the dimensions outermost first,
    each (size, stride of every tensor in binding order, then 1 along the axis and 0 elsewhere: the axis
    coordinate); each part's first coordinate along the axis (the kernel takes it times the part's stride along
    the axis off the part's offset)."""
    dims: tuple
    starts: tuple


def plan_parts(operator, tensors, attributes, packed_strides):
    """The PartsPlan of a validated JOIN or SPLIT desc."""
    join = operator == "JOIN"
    whole = tensors[-1] if join else tensors[0]
    parts = tensors[:-1] if join else tensors[1:]
    axis = int(attributes["Axis"])
    strides = [_strides(t, packed_strides) for t in tensors]
    dims = tuple((int(n), *(st[d] for st in strides), int(d == axis)) for d, n in enumerate(whole.sizes))
    starts = tuple(int(x) for x in np.cumsum([0] + [int(p.sizes[axis]) for p in parts])[:-1])
    return PartsPlan(dims=dims, starts=starts)


def _offset_register(t):
    return f"v{2 + t}" if t < 4 else f"v{24 + t}"        # address.inc: tensors 4 .. 8 in v28 .. v32


def _descriptor_registers(t):
    first = 8 + 4 * t if t < 4 else 64 + 4 * (t - 4)
    return f"s[{first}:{first + 3}]"


def parts_symbols(join, parts):
    """The symbols of JOIN / SPLIT's part blocks (copy_parts.inc): the tensors in binding order, the axis
    coordinate's column last."""
    tensors = parts + 1
    whole = parts if join else 0
    part_tensor = (lambda k: k) if join else (lambda k: k + 1)
    symbols = {"PARTS": parts, "JOIN": int(join), "COORD": _offset_register(tensors),
               "WHOLE_OFF": _offset_register(whole), "WHOLE_DESC": _descriptor_registers(whole),
               **{f"HAS_T{t}": int(t <= tensors) for t in range(2, 9)},
               **{f"LOAD_T{t}": int(t < tensors) for t in range(2, 8)},
               **{f"DESC_T{t}": 32 * t for t in range(tensors)},
               **{f"HAS_PART{k}": int(k < parts) for k in range(1, MAX_PARTS)}}
    for k in range(MAX_PARTS):
        t = part_tensor(min(k, parts - 1))
        symbols.update({f"PART{k}_OFF": _offset_register(t), f"PART{k}_DESC": _descriptor_registers(t),
                        f"PART{k}_HI": int(k < parts - 1), f"PART{k}_START": f"s{44 + max(k - 1, 0)}",
                        f"PART{k}_NEXT": f"s{44 + min(k, MAX_PARTS - 2)}",       # PARAM k - 1, PARAM k
                        f"PART{k}_STRIDE": f"s{32 + t}" if t < 4 else f"s{56 + t - 4}"})   # the axis's record
    return symbols


def variant_symbols(data_type, mode, wide, layout=LAYOUT, parts=0, join=False):
    """The assembler symbols of one variant of copy_region.s: the element size of `data_type`, the padding mode
    ("none" for the strided copies) and whether a size or stride needs 32-bit multiply-adds."""
    size = _SIZE[data_type]
    pair = size == 8
    kernel_mode = _KERNEL_MODE.get(mode, "none")
    return {"PACKED": 0, "PAD": int(kernel_mode != "none"), "PAD_MODE": kernel_mode,
            **{f"HAS_T{t}": 0 for t in range(2, 9)}, "MAD_OFFSET": "v_mad_u32" if wide else "v_mad_u32_u24",
            "SHIFT_T0": size.bit_length() - 1, "SHIFT_T1": size.bit_length() - 1, "SHIFT_DATA": size.bit_length() - 1,
            "PACKED_X1": 0, "PACKED_X2": 0, "PACKED_X1_REG": "v3", "PACKED_X2_REG": "v3", "PACKED_X1_SHIFT": 0,
            "PACKED_X2_SHIFT": 0, "DESC_T0": 0, "DESC_T1": 32, "LOAD": _LOAD[size], "STORE": _STORE[size],
            "X": "v[10:11]" if pair else "v10", "SEL": "b64" if pair else "b32",
            "VALUE": "s[46:47]" if pair else "s46", "PARTS": 0, "JOIN": 0,
            **({f"SHIFT_T{t}": size.bit_length() - 1 for t in range(parts + 1)} if parts else {}),
            **({f"SHIFT_T{parts + 1}": 0} if parts else {}),                 # the axis coordinate, in elements
            **(parts_symbols(join, parts) if parts else {}), **layout.symbols()}


@functools.lru_cache(maxsize=None)
def build_program(operator, data_type, mode, wide, layout=LAYOUT, parts=0):
    """Assemble and decode one variant of copy_region.s (cached); its name says the operator's way (JOIN and
    SPLIT: one dispatch over the whole, each part under its EXEC mask: `_x<parts>_masked`)."""
    symbols = variant_symbols(data_type, mode, wide, layout, parts, operator == "JOIN")
    dwords = assemble_file(os.path.join(KERNEL_DIR, SOURCE), symbols)
    way = f"pad_{mode.lower()}" if mode != "none" else f"x{parts}_masked" if parts else "strided"
    return Program(dwords, f"copy_region_{operator.lower()}_{way}_{_SIZE[data_type] * 8}bit{'_wide' if wide else ''}")


def padding_value_bits(operator, attributes, data_type):
    """The padding value's bits in the tensor's type, as an unsigned integer: PADDING1's DML_SCALAR_UNION as it is;
    PADDING's FLOAT rounded to FLOAT32, then to FLOAT16 (nearest even) or truncated and saturated to an integer
    type (NaN: 0), as DirectML casts a FLOAT bound."""
    dtype = BY_NAME[data_type].dtype
    value = attributes.get("PaddingValue")
    if value is None:
        return 0
    if operator == "PADDING1":
        held = np.asarray(value)
        cast = held.astype(dtype) if held.dtype != dtype else held
    else:
        wide = float(np.float32(value))
        if dtype.kind == "f":
            with np.errstate(over="ignore"):
                cast = np.asarray(np.float32(wide)).astype(dtype)
        else:
            info = np.iinfo(dtype)
            whole = 0 if np.isnan(wide) else int(info.min) if wide <= info.min else (
                int(info.max) if wide >= float(info.max) + 1.0 else int(np.trunc(wide)))
            cast = np.asarray(whole).astype(dtype)
    return int(cast.reshape(1).view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[dtype.itemsize])[0])


def compile_data_movement(operator, tensors, attributes, layout, no_kernel, division_magic, packed_strides,
                          workgroup_size):
    """(program, constant buffer bytes, elements) of a validated desc; kernels/driver.py wraps them in a
    CompiledKernel. `no_kernel` is the NoKernel class to raise."""
    if operator in ("JOIN", "SPLIT"):
        return _compile_parts(operator, tensors, attributes, layout, no_kernel, division_magic, packed_strides,
                              workgroup_size)
    source, target = tensors
    if source.data_type not in _SIZE:
        raise no_kernel(f"dmlemu's kernel for {operator} has no variant for {source.data_type}")
    copy = plan(operator, source, target, attributes, packed_strides)
    dims, pad = merge(copy)
    if len(dims) > layout.max_records:
        raise no_kernel(f"dmlemu's kernel for {operator} holds {layout.max_records} dimension records; this desc "
                        f"needs {len(dims)} after merging (a tile of every dimension of a high-rank tensor)")
    elements = int(np.prod([d[0] for d in dims], dtype=np.int64))
    wide = any(s < 0 or s >= 1 << 24 for _, a, b in dims for s in (a, b)) or max(d[0] for d in dims) > 1 << 24
    records = []
    for k, (size, a, b) in reversed(list(enumerate(dims))):     # innermost first
        magic, shift1, shift2 = division_magic(size)
        record = {"SIZE": size, "MAGIC": magic, "SHIFT1": shift1, "SHIFT2": shift2,
                  "STRIDE_T0": a & 0xFFFFFFFF, "STRIDE_T1": b & 0xFFFFFFFF}
        if pad:
            bias, last, period, fold = pad[k]
            p_magic, p_shift1, p_shift2 = division_magic(period)
            record.update({"STRIDE_T2": bias & 0xFFFFFFFF, "STRIDE_T3": last, "STRIDE_T4": period,
                           "STRIDE_T5": p_magic, "STRIDE_T6": p_shift1, "STRIDE_T7": p_shift2, "STRIDE_T8": fold})
        records.append(record)
    size = _SIZE[source.data_type]
    value = padding_value_bits(operator, attributes, source.data_type) if copy.mode == "CONSTANT" else 0
    values = {"ELEMENTS": elements, "WORKGROUP_SIZE": workgroup_size, "RECORD_COUNT": len(dims),
              "PARAM0": (copy.base * size) & 0xFFFFFFFF, "PARAM2": value & 0xFFFFFFFF, "PARAM3": value >> 32}
    constants = layout.pack(values, records, params=True, wide=bool(pad))
    return build_program(operator, source.data_type, copy.mode, wide, layout), constants, elements


def _compile_parts(operator, tensors, attributes, layout, no_kernel, division_magic, packed_strides, workgroup_size):
    """JOIN and SPLIT: one launch over the whole, the parts' first coordinates in PARAM0 .. 5, the axis's record
    offsets in PARAM6, PARAM7."""
    parts = len(tensors) - 1
    if parts > MAX_PARTS:
        raise no_kernel(f"dmlemu's kernel for {operator} addresses at most {MAX_PARTS} "
                        f"{'inputs' if operator == 'JOIN' else 'outputs'} in its one dispatch, not {parts}")
    data_type = tensors[0].data_type
    size = _SIZE[data_type]
    copy = plan_parts(operator, tensors, attributes, packed_strides)
    dims, _ = merge(copy)
    if len(dims) > layout.max_records:
        raise no_kernel(f"dmlemu's kernel for {operator} holds {layout.max_records} dimension records, not "
                        f"{len(dims)}")
    elements = int(np.prod([d[0] for d in dims], dtype=np.int64))
    wide = any(s < 0 or s >= 1 << 24 for d in dims for s in d[1:]) or max(d[0] for d in dims) > 1 << 24
    records = []
    for size_, *strides in reversed(dims):
        magic, shift1, shift2 = division_magic(size_)
        records.append({"SIZE": size_, "MAGIC": magic, "SHIFT1": shift1, "SHIFT2": shift2,
                        **{f"STRIDE_T{t}": s & 0xFFFFFFFF for t, s in enumerate(strides)}})
    # the axis's record (its coordinate column is 1; none when the axis has size 1: one part, no base), counted
    # innermost first as the records are packed
    axis = [r for r, d in enumerate(dims) if d[-1] == 1]
    record = len(dims) - 1 - axis[0] if axis else 0
    values = {"ELEMENTS": elements, "WORKGROUP_SIZE": workgroup_size, "RECORD_COUNT": len(dims),
              **{f"PARAM{k - 1}": copy.starts[k] for k in range(1, parts)},
              "PARAM6": layout.field("RECORDS").offset + record * layout.record_bytes,
              "PARAM7": layout.field("WIDE_RECORDS").offset + record * layout.record_bytes}
    constants = layout.pack(values, records, params=True, wide=parts + 2 > 4)
    return build_program(operator, data_type, "none", wide, layout, parts), constants, elements


__all__ = ["OPERATORS", "MAX_PARTS", "PartsPlan", "plan_parts", "parts_symbols", "DataMovementOperator", "CopyPlan",
           "PADDING_MODES", "plan", "merge", "variant_symbols", "build_program", "padding_value_bits",
           "compile_data_movement"]
