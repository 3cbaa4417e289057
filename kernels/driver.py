"""Operator microkernels: the driver side that turns an operator desc into a kernel launch.

The kernels themselves are assembly sources in this folder: one skeleton (element_wise_head.inc, a
body, element_wise_tail.inc) for every operator of the table kernels/element_wise_ops.py; clip.s,
identity.s, threshold.s and if.s spell their bodies out, element_wise.s takes its body from
element_wise_bodies.inc. `compile_operator` picks the variant (the tensors' data types, packed or
strided, ScaleBias, half precision, the FusedActivation) by assembling the operator's source with
symbols (load/store widths, compute type, registers, the type's instructions, and the offsets of what
the kernel reads: descriptor table slots `${DESC_T0}` .. and constant buffer fields `${CB_...}`; the
table row decides them, no operator is named here), merges tensor dimensions that
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

from dmlemu.data_types import BY_NAME, DataType
from dmlemu.functional.buffer_descriptor import DESCRIPTOR_SIZE
from dmlemu.functional.wave_dispatcher import KernelLaunch
from dmlemu.isa.program import Program
from dmlemu.isa.assembler import assemble_file
from dmlemu.kernels.constant_buffer import LAYOUT, PARAM_FIELDS, copy_symbols, f32_bits
from dmlemu.kernels.element_wise_ops import FUSABLE, OPERATORS
from dmlemu.kernels.element_wise_math import symbols as math_symbols
from dmlemu.kernels import address
from dmlemu.kernels import (data_movement_ops, fill_ops, gather_ops, gemm_ops, nonzero_ops, normalization_ops,
                            random_ops, reduce_ops, resample_ops, scan_ops, softmax_ops, window_ops)
from dmlemu.kernels import top_k_ops
from dmlemu.kernels import attention_ops

# The kernel families besides the element-wise table, each a module with an OPERATORS table of rows and its own
# compiler (compile_operator below hands a desc to the family whose table names the operator).
FAMILIES = (reduce_ops, gemm_ops, softmax_ops, scan_ops, normalization_ops, data_movement_ops, window_ops, gather_ops,
            resample_ops, fill_ops, nonzero_ops, random_ops) + (top_k_ops,)
FAMILIES = FAMILIES + (attention_ops,)

KERNEL_DIR = os.path.dirname(os.path.abspath(__file__))
# The sources of the operators with a listing of their own (the tools' `asm --variant` reads this);
# every other operator of the table is element_wise.s with its body from element_wise_bodies.inc.
SOURCES = {name: row.source for name, row in OPERATORS.items() if row.source != "element_wise.s"}


class NoKernel(NotImplementedError):
    """A validated operator desc that no kernel variant serves (yet): its data types, its FusedActivation.
    The mirror answers E_NOTIMPL with the sentence."""


MAX_TENSORS = 9      # QUANTIZED_LINEAR_ADD: 8 inputs and the output


def has_kernel(operator):
    """Whether a microkernel exists for `operator` (its name without DML_OPERATOR_, e.g. ELEMENT_WISE_ADD).
    CreateOperator answers E_NOTIMPL for a validated operator this is False for."""
    return operator in OPERATORS or any(operator in family.OPERATORS for family in FAMILIES)


@dataclass(frozen=True, kw_only=True)
class DataTypeVariant:
    """How one DirectML data type (a row of dmlemu.data_types) is loaded, computed and stored by the kernels."""
    data_type: DataType
    load: str
    store: str
    compute: str          # type suffix of v_min/v_max (after widening)
    bound_cvt: str        # instruction casting a FLOAT32 bound to the compute register, or none

    @property
    def size(self):
        return self.data_type.itemsize

    @property
    def pair(self):
        """64-bit: values live in register pairs."""
        return self.data_type.is_64bit

    @property
    def is_float(self):
        return self.data_type.is_float

    @property
    def is_signed(self):
        return self.data_type.kind == "signed"


def _variant(name, **fields):
    return DataTypeVariant(data_type=BY_NAME[name], **fields)


VARIANTS = {v.data_type.name: v for v in (
    _variant("FLOAT32", load="dword",   store="dword",   compute="f32", bound_cvt="none"),
    _variant("FLOAT16", load="ushort",  store="short",   compute="f32", bound_cvt="v_cvt_f16_f32"),
    _variant("FLOAT64", load="dwordx2", store="dwordx2", compute="f64", bound_cvt="none"),
    _variant("INT32",   load="dword",   store="dword",   compute="i32", bound_cvt="v_cvt_i32_f32"),
    _variant("UINT32",  load="dword",   store="dword",   compute="u32", bound_cvt="v_cvt_u32_f32"),
    _variant("INT16",   load="sshort",  store="short",   compute="i32", bound_cvt="v_cvt_i16_f32"),
    _variant("UINT16",  load="ushort",  store="short",   compute="u32", bound_cvt="v_cvt_u16_f32"),
    _variant("INT8",    load="sbyte",   store="byte",    compute="i32", bound_cvt="v_cvt_i8_f32"),
    _variant("UINT8",   load="ubyte",   store="byte",    compute="u32", bound_cvt="v_cvt_u8_f32"),
    _variant("INT64",   load="dwordx2", store="dwordx2", compute="i64", bound_cvt="v_cvt_i64_f32"),
    _variant("UINT64",  load="dwordx2", store="dwordx2", compute="u64", bound_cvt="v_cvt_u64_f32"),
)}


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


def tensor_types(operator, data_type, output_type=None):
    """The data type of each tensor (binding order) when the operator's deciding tensor has `data_type`:
    IF's condition is UINT8, comparisons write UINT8, every other tensor has `data_type`; an operator with
    `type_combos` takes its first tuple with `data_type` (and `output_type`, where given)."""
    op = OPERATORS[operator]
    if op.type_combos:
        for combo in op.type_combos:
            if combo[op.type_tensor] == data_type and output_type in (None, combo[-1]):
                return combo
        raise NoKernel(f"dmlemu's kernel for {operator} has no variant with {data_type} and {output_type}")
    types = [data_type] * len(op.tensors)
    if op.type_tensor == 1:
        types[0] = "UINT8"
    if op.output == "u32":
        types[-1] = op.output_types[0]
    return tuple(types)


def _narrow_clamp(target):
    """(lowest or None for unsigned, highest) of a narrow integer type."""
    info = np.iinfo(VARIANTS[target].data_type.dtype)
    return (int(info.min) if info.min else None), int(info.max)


def cast_steps(source, target):
    """The instructions of CAST from `source` to `target` (data type names), after the head has loaded the
    input into v10 (v[10:11] for 64-bit types; FLOAT16 widened to f32) and before the store of v10
    (v[10:11]): [(mnemonic, destination, source operands)]. Narrow integers are stored by their low bits."""
    x = "v[10:11]" if VARIANTS[source].pair else "v10"
    y = "v[10:11]" if VARIANTS[target].pair else "v10"
    kind = VARIANTS[source].compute     # FLOAT16 sources are widened to f32 by the head
    if source == target or (source == "FLOAT16" and target == "FLOAT32"):
        return []
    if kind in ("f32", "f64"):
        if target == "FLOAT16":
            return [(f"v_cvt_f16_{kind}", y, x)]
        if target in ("FLOAT32", "FLOAT64"):
            return [(f"v_cvt_{VARIANTS[target].compute}_{kind}", y, x)]
        if kind == "f32" or target in ("INT32", "UINT32", "INT64", "UINT64"):
            name = {"INT8": "i8", "UINT8": "u8", "INT16": "i16", "UINT16": "u16"}.get(target, VARIANTS[target].compute)
            return [(f"v_cvt_{name}_{kind}", y, x)]
        low, high = _narrow_clamp(target)   # f64 -> a narrow integer: saturate to 32 bits, then to the type
        wide = "i32" if low is not None else "u32"
        steps = [(f"v_cvt_{wide}_f64", y, x), (f"v_min_{wide}", y, f"{y}, {high}")]
        if low is not None:
            steps.append(("v_max_i32", y, f"{y}, {low}"))
        return steps
    # integer sources
    if target in ("FLOAT16", "FLOAT32"):
        steps = [(f"v_cvt_f32_{kind}", "v10", x)]   # FLOAT16: f32 first; exact below 2^24, inf above 65519
        return steps + ([("v_cvt_f16_f32", "v10", "v10")] if target == "FLOAT16" else [])
    if target == "FLOAT64":
        return [(f"v_cvt_f64_{kind}", y, x)]
    if VARIANTS[target].pair and not VARIANTS[source].pair:
        return [("v_cvt_i64_i32" if kind == "i32" else "v_cvt_u64_u32", y, x)]   # extend by the source's sign
    if VARIANTS[source].pair and not VARIANTS[target].pair:
        return [("v_cvt_u32_u64", y, x)]   # the low 32 bits
    return []


def _activation_row(activation):
    """The table row of a FusedActivation (a name like ACTIVATION_RELU), or None."""
    if activation is None:
        return None
    if activation not in OPERATORS or not activation.startswith("ACTIVATION_"):
        raise ValueError(f"FusedActivation {activation} has no kernel body")
    return OPERATORS[activation]


def _param_slots(op, act, types, compute):
    """[(symbol, first dword, dwords, encoding)] of every attribute packed into PARAM0.., the operator's
    then its FusedActivation's."""
    slots, at = [], 0
    for row in (op, act):
        if row is None:
            continue
        for name, encoding in row.params:
            width = 2 if encoding == "tensor" and compute in ("f64", "i64", "u64") else 1
            slots.append((f"P_{name.upper()}", at, width, encoding))
            at += width
    if at > len(PARAM_FIELDS):
        raise ValueError(f"{op.name} needs {at} attribute dwords; the constant buffer has {len(PARAM_FIELDS)}")
    return slots


def variant_symbols(operator, data_type, packed, scale_bias, half, layout=LAYOUT, *, wide=False, types=None,
                    activation=None, absent=()):
    """The assembler symbols that select one variant of an operator's kernel source.

    `operator` is the operator's name without DML_OPERATOR_ (ELEMENT_WISE_CLIP), `data_type` a
    DirectML data type name (FLOAT16) of the tensor that decides the variant (the first input; IF's
    ATensor); `types` the data type of every tensor when they differ otherwise than `tensor_types`
    says (CAST); `packed`: every tensor dense and in the same order; `scale_bias`: the desc has a
    ScaleBias; `half`: FLOAT16 computed in FLOAT16; `wide`: a size or a stride of the general path
    needs more than 24 bits (32-bit multiply-adds); `activation`: the FusedActivation's name
    (ACTIVATION_RELU) or None; `absent`: the binding indices of optional tensors the desc left out (the
    variant loads nothing for them; ABSENT_T<i> tells the body). Every variant also gets the byte offsets the
    kernel reads at: DESC_T0 .. (descriptor table slot of each tensor) and one CB_<FIELD> per field of the
    constant buffer `layout`, and each tensor's data type name TYPE_T<i> (OUT_TYPE: the output's).
    """
    op = OPERATORS[operator]
    act = _activation_row(activation)
    types = tuple(types) if types is not None else tensor_types(operator, data_type)
    main = types[op.type_tensor]
    v = VARIANTS[main]
    n = len(types)
    half = bool(half) and main == "FLOAT16" and op.output != "any"
    moves_bits = (op.bits == "always" or (op.bits == "without_scale_bias" and not scale_bias)
                  or (op.bits == "cast" and types[0] == types[-1]))
    widen = main == "FLOAT16" and not half and not moves_bits
    compute = "f16" if half else v.compute
    reg_of = lambda t: (lambda r: f"v[{r}:{r + 1}]") if VARIANTS[t].pair else (lambda r: f"v{r}")
    reg = reg_of(main)
    if n > MAX_TENSORS:
        raise ValueError(f"{operator} has {n} tensors; the skeleton addresses at most {MAX_TENSORS}")
    input_register = lambda i: 10 + 2 * i if i < 3 else 34 + 2 * (i - 3)   # v10, v12, v14, then v34 ..
    inputs = [reg_of(t)(input_register(i)) for i, t in enumerate(types[:-1])]
    if op.type_tensor == 1:                   # IF: the condition byte in v9, a and b in v10, v12
        inputs = ["v9"] + [reg_of(t)(10 + 2 * i) for i, t in enumerate(types[1:-1])]
    x = inputs[op.type_tensor]
    shifts = [VARIANTS[t].size.bit_length() - 1 for t in types]
    t_base = 12 + 2 * n if op.bounds and v.bound_cvt != "none" and n > 2 else 16   # temporaries after LO, HI
    body = {"DIVIDE": "FLOAT_DIVIDE" if v.is_float else "INTEGER_DIVIDE",
            "MODULUS": "FLOAT_MODULUS" if v.is_float else "INTEGER_DIVIDE",
            "POW": "POW" if v.is_float else "INTEGER_POW"}.get(op.body, op.body)
    float_bits = {"f16": (0x8000, 0x7FFF, 0x3C00, 0xBC00)}.get(compute, (0x80000000, 0x7FFFFFFF, 0x3F800000,
                                                                          0xBF800000))
    raw_f16 = main == "FLOAT16" and moves_bits       # ABS, NEGATE without ScaleBias: the stored bits
    width = 64 if v.pair else 32
    symbols = {
        "BODY": body, "PACKED": int(packed), **address.DEFAULTS, "SCALE_BIAS": int(scale_bias), "HALF": int(half),
        "WIDEN_F16": int(widen), "LOAD": v.load, "STORE": VARIANTS[types[-1]].store, "CT": compute,
        "BOUND_CVT": v.bound_cvt, "SHIFT_DATA": shifts[-1],
        "X": x, "A": x, "B": reg(12) if op.type_tensor == 1 else (inputs[1] if len(inputs) > 1 else reg(12)),
        "C": inputs[2] if len(inputs) > 2 else reg(14), "SEL": "b64" if v.pair else "b32",
        "LO": "s38" if v.bound_cvt == "none" else reg(8 + 2 * n),     # after the inputs: v12 for CLIP
        "HI": "s39" if v.bound_cvt == "none" else reg(10 + 2 * n),
        "T0": reg(t_base), "T1": reg(t_base + 2), "T2": reg(t_base + 4), "T3": reg(t_base + 6),
        "IS_FLOAT": int(v.is_float), "IS_SIGNED": int(v.is_signed), "IS_PAIR": int(v.pair),
        "BITS": 8 * v.size,
        **{f"HAS_T{t}": int(n > t) for t in range(2, MAX_TENSORS)},
        **{f"INPUTS_{k}": int(n - 1 >= k and k - 1 not in absent) for k in range(2, MAX_TENSORS)},
        **{f"ABSENT_T{t}": int(t in absent) for t in range(MAX_TENSORS)},
        **{f"TYPE_T{t}": types[t] if t < n else "none" for t in range(MAX_TENSORS)}, "OUT_TYPE": types[-1],
        "LOAD_MIN_BIAS": int(op.scale_bias or bool(op.bounds)),
        "CVT_MIN": int("Min" in op.bounds and v.bound_cvt != "none"),
        "CVT_MAX": int("Max" in op.bounds and v.bound_cvt != "none"),
        "WIDEN_MIN": int("Min" in op.bounds and widen), "WIDEN_MAX": int("Max" in op.bounds and widen),
        "NARROW_F16": int(types[-1] == "FLOAT16" and widen and op.output == "same"),
        "Y": x if op.output == "same" else reg_of(types[-1])(10) if op.output == "any" else "v10",
        "ACTIVATION": activation if act is not None else "none",
        "MAD_OFFSET": "v_mad_u32" if wide else "v_mad_u32_u24",
        "OUT_IS_FLOAT": int(VARIANTS[types[-1]].is_float), "OUT_BITS": 8 * VARIANTS[types[-1]].size,
        "OUT_IS_SIGNED": int(VARIANTS[types[-1]].is_signed), "OUT_CT": VARIANTS[types[-1]].compute,
        "ADD": f"v_add_{compute}" if v.is_float else f"v_add_u{width}",
        "SUB": f"v_sub_{compute}" if v.is_float else f"v_sub_u{width}",
        "MUL": f"v_mul_{compute}" if v.is_float else f"v_mul_lo_u{width}",
        "BAND": f"v_and_b{width}", "BOR": f"v_or_b{width}", "BXOR": f"v_xor_b{width}", "BNOT": f"v_not_b{width}",
        "SHL": f"v_lshl_b{width}",
        "SHR": f"v_ashr_i{width}" if v.is_signed else f"v_lshr_b{width}",
        "WIDTH": width, "WIDTH_M1": width - 1, "UCT": f"u{width}", "B_LO": "v12",
        "TYPE_MASK": {1: 0xFF, 2: 0xFFFF}.get(v.size, 0),
        "RAW_SIGN_REG": "v11" if main == "FLOAT64" else "v10",
        "RAW_SIGN": 0x8000 if raw_f16 else float_bits[0], "RAW_MAG": 0x7FFF if raw_f16 else float_bits[1],
        "CT_SIGN": float_bits[0], "CT_MAG": float_bits[1], "CT_ONE": float_bits[2], "CT_MINUS_ONE": float_bits[3],
        "CANONICALIZE": int(v.is_float and (op.canonical or (act is not None and act.canonical))),
        "CMP": "eq", "LOGIC": "and", "DIVISION": "quotient", "FMOD_TRIPS": 2 if main == "FLOAT16" else 11,
    }
    steps = cast_steps(types[0], types[-1]) if op.output == "any" else []
    for k in range(3):
        mnemonic, dst, src = steps[k] if k < len(steps) else ("none", "v10", "v10")
        symbols.update({f"CAST{k + 1}": mnemonic, f"CAST{k + 1}_D": dst, f"CAST{k + 1}_S": src})
    for i, t in enumerate(types[:-1]):
        symbols[f"IN{i}"] = inputs[i]
        symbols[f"LOAD_T{i}"] = VARIANTS[t].load
        symbols[f"WIDEN_IN{i}"] = int(t == "FLOAT16" and widen)
    for i in range(len(types) - 1, MAX_TENSORS - 1):
        symbols[f"WIDEN_IN{i}"] = 0
    # Tensor offsets: the general path keeps one register per tensor (v2 ..); the packed path one per
    # element size (the output's in v2; 1-byte inputs of another size read v1, the index itself).
    extra = {}
    for i, shift in enumerate(shifts):
        symbols[f"SHIFT_T{i}"] = shift
        symbols[f"DESC_T{i}"] = i * DESCRIPTOR_SIZE   # one table slot per tensor, in binding order
        if not packed:
            symbols[f"OFF_T{i}"] = f"v{2 + i}" if i < 4 else f"v{24 + i}"   # tensors 4 .. 8: v28 .. v32
        elif shift == 0 and i < op.type_tensor:   # IF's condition byte: the index is its offset
            symbols[f"OFF_T{i}"] = "v1"
        elif shift == shifts[-1]:
            symbols[f"OFF_T{i}"] = "v2"
        elif shift == 0:
            symbols[f"OFF_T{i}"] = "v1"
        else:
            symbols[f"OFF_T{i}"] = extra.setdefault(shift, f"v{3 + len(extra)}")
    for k in (1, 2):
        group = list(extra.items())[k - 1] if len(extra) >= k else None
        symbols[f"PACKED_X{k}"] = int(group is not None)
        symbols[f"PACKED_X{k}_SHIFT"], symbols[f"PACKED_X{k}_REG"] = group if group else (0, "v3")
    if len(extra) > 2:
        raise ValueError(f"{operator}: more than three element sizes in one operator")
    symbols["OFF_OUT"] = symbols[f"OFF_T{n - 1}"]
    first = 8 + 4 * (n - 1) if n <= 4 else 64 + 4 * (n - 5)
    symbols["DESC_OUT"] = f"s[{first}:{first + 3}]"
    # Attributes: PARAM dwords in s44 ..; FLOAT ones cast to the compute type into v24, v26, ..
    slots = _param_slots(op, act, types, compute)
    symbols["LOAD_PARAMS"] = int(bool(slots))
    converted = 0
    for k in range(4):
        symbols[f"P{k}_CVT"], symbols[f"P{k}"], symbols[f"P{k}_SGPR"] = "none", "v24", "s44"
    for name, at, width, encoding in slots:
        sgpr = f"s{44 + at}" if width == 1 else f"s[{44 + at}:{45 + at}]"
        if encoding == "f32" and compute != "f32":
            # FLOAT16 (half) and FLOAT64 round or widen; integers truncate and saturate to the tensor's type
            cvt = {"f16": "v_cvt_f16_f32", "f64": "v_cvt_f64_f32"}.get(compute, v.bound_cvt)
            if cvt == "none":
                raise ValueError(f"{operator}: a FLOAT attribute cannot be cast to {compute}")
            target = reg(24 + 2 * converted)
            symbols.update({f"P{converted}_CVT": cvt, f"P{converted}": target, f"P{converted}_SGPR": sgpr})
            converted += 1
            symbols[name] = target
        else:
            symbols[name] = sgpr
    if "P_MIN" in symbols:                     # CLIP1, CLIP_GRAD1: typed bounds, already in the tensor's type
        symbols["LO"], symbols["HI"] = symbols["P_MIN"], symbols["P_MAX"]
    symbols.update(math_symbols(compute))     # ${K_<NAME>}: the transcendental bodies' constants
    symbols.update(op.symbols)
    if act is not None:
        symbols.update(act.symbols)
    symbols.update(layout.symbols())
    return symbols


def variant_name(operator, data_type, packed, scale_bias, half, wide=False, types=None, activation=None, absent=()):
    """The program name of one variant, e.g. element_wise_clip_float16_packed_sb."""
    to = ""
    if types is not None and tuple(types) != tensor_types(operator, data_type):
        to = "_to_" + types[-1].lower()
        if OPERATORS[operator].type_combos:   # types varying apart: every tensor's (f32, u8, ..)
            to = "_" + "_".join(_SHORT_TYPE[t] for t in types)
    to += "".join(f"_no_t{i}" for i in absent)
    act = "" if activation is None else "_" + activation.lower()
    return (f"{operator.lower()}_{data_type.lower()}{to}{'_packed' if packed else ''}"
            f"{'_sb' if scale_bias else ''}{'_half' if half else ''}{'_wide' if wide else ''}{act}")


_SHORT_TYPE = {"FLOAT32": "f32", "FLOAT16": "f16", "FLOAT64": "f64", "INT64": "i64", "INT32": "i32", "INT16": "i16",
               "INT8": "i8", "UINT64": "u64", "UINT32": "u32", "UINT16": "u16", "UINT8": "u8"}


@functools.lru_cache(maxsize=None)
def build_program(operator, data_type, packed, scale_bias, half, layout=LAYOUT, wide=False, types=None,
                  activation=None, absent=()):
    """Assemble and decode one variant of an operator's kernel (cached)."""
    symbols = variant_symbols(operator, data_type, packed, scale_bias, half, layout, wide=wide, types=types,
                              activation=activation, absent=absent)
    path = os.path.join(KERNEL_DIR, OPERATORS[operator].source)
    dwords = assemble_file(path, symbols)
    return Program(dwords, variant_name(operator, data_type, packed, scale_bias, half, wide, types, activation,
                                        absent))


def registers_used(program):
    """(VGPRs, SGPRs) a program touches: the occupancy inputs of the timing model."""
    vmax, smax = 1, 5
    for r in program.records:
        for o, w in zip(r.operands, r.entry.widths):
            if hasattr(o, "code") and o.is_register:
                if o.is_vgpr:
                    vmax = max(vmax, o.index + w)
                elif o.is_sgpr:
                    smax = max(smax, o.index + w)
    return vmax, smax


class CompiledKernel:
    """A kernel ready to launch: program, constant buffer bytes, descriptor count, grid.

    A kernel of two dispatches (a REDUCE split into chunks: kernels/reduce_ops.py) has a `stage` (the second
    dispatch's program, where its constants start in `constants`, its grid) and `temporary_bytes`, the
    DirectML temporary resource the first writes and the second reads; its descriptor table has one more
    slot, the temporary resource's, after the tensors. `launches` gives both, to run in order with a UAV
    barrier between them."""

    def __init__(self, operator, program, constants, descriptor_count, elements, workgroup_size, *,
                 workgroups=None, lds_bytes=0, group_grid=(), thread_grid=(), stage=None, temporary_bytes=0):
        self.operator = operator
        self.stage = stage
        self.temporary_bytes = temporary_bytes
        descriptor_count += 1 if temporary_bytes else 0
        self.workgroups = -(-elements // workgroup_size) if workgroups is None else workgroups
        self.lds_bytes = lds_bytes          # LDS per workgroup (the reductions' tree, GEMM's tiles)
        # A grid launch (GEMM): the groups' (X, Y, Z) and the threads' (X, Y, Z) in a group, as a compute shader's
        # Dispatch and numthreads give them (s4 .. s6 and v1 .. v3 at the start; wave_dispatcher.py).
        self.group_grid, self.thread_grid = tuple(group_grid), tuple(thread_grid)
        self.program = program
        self.constants = constants
        self.descriptor_count = descriptor_count
        self.elements = elements
        self.workgroup_size = workgroup_size
        self.vgprs_used, self.sgprs_used = registers_used(program)
        self.stage_registers = None if stage is None else registers_used(stage.program)   # once, not per launch

    def launch(self, descriptor_table_va, constants_va):
        """The KernelLaunch: s[0:1] = the descriptor table, s[2:3] = where the constant buffer is read
        (the persistent resource holding it, or any copy of `constants`)."""
        return KernelLaunch(
            program=self.program,
            num_workgroups=self.workgroups,
            workgroup_size=self.workgroup_size,
            user_sgprs=(descriptor_table_va & 0xFFFFFFFF, descriptor_table_va >> 32,
                        constants_va & 0xFFFFFFFF, constants_va >> 32),
            name=self.program.name, elements=self.elements,
            vgprs_used=self.vgprs_used, sgprs_used=self.sgprs_used, lds_bytes=self.lds_bytes,
            group_grid=self.group_grid, thread_grid=self.thread_grid)

    def launches(self, descriptor_table_va, constants_va):
        """Every KernelLaunch of one execution, in order (a UAV barrier between two): `launch`'s, then the
        second stage's, if any, reading its constants at its offset in the same buffer."""
        first = self.launch(descriptor_table_va, constants_va)
        if self.stage is None:
            return [first]
        stage = self.stage
        va = constants_va + stage.constants_offset
        vgprs, sgprs = self.stage_registers
        return [first, KernelLaunch(
            program=stage.program, num_workgroups=stage.workgroups, workgroup_size=stage.lanes,
            user_sgprs=(descriptor_table_va & 0xFFFFFFFF, descriptor_table_va >> 32, va & 0xFFFFFFFF, va >> 32),
            name=stage.program.name, elements=stage.workgroups, vgprs_used=vgprs, sgprs_used=sgprs,
            lds_bytes=stage.lds_bytes)]


def activation_of(attributes):
    """(name, attributes) of the desc's FusedActivation (a validation.FusedActivation, a (name, dict) pair,
    or None)."""
    fused = attributes.get("FusedActivation")
    if fused is None:
        return None, {}
    if isinstance(fused, tuple):
        name, fields = fused
    else:
        name, fields = fused.name, fused.attributes
    name = str(name)
    if name.startswith("DML_OPERATOR_"):
        name = name[len("DML_OPERATOR_"):]
    return name, dict(fields or {})


def _param_dwords(value, encoding, compute):
    """The PARAM dwords of one attribute: FLOAT32 bits, an integer, or a DML_SCALAR_UNION's value in the
    compute register's bits (8- and 16-bit integers extended to 32 bits, FLOAT16 widened to FLOAT32 unless
    computed in f16, 64-bit types in two dwords, low first)."""
    if encoding == "f32":
        return [f32_bits(value)]
    if encoding == "u32":
        return [int(value) & 0xFFFFFFFF]
    if encoding == "infinity_class":   # DML_IS_INFINITY_MODE -> v_cmp_class bits: 2 -inf, 9 +inf
        return [{0: 0x204, 1: 0x200, 2: 0x004}[int(value)]]
    value = np.asarray(value)
    register = {"f32": np.float32, "f16": np.float16, "f64": np.float64, "i32": np.int32, "u32": np.uint32,
                "i64": np.int64, "u64": np.uint64}[compute]
    if value.dtype.kind == "f" and np.dtype(register).kind != "f":
        raise ValueError(f"a {value.dtype} attribute cannot be a {compute} operand")
    if value.dtype.kind in "iu" and np.dtype(register).kind in "iu":
        word = int(value) & ((1 << (8 * np.dtype(register).itemsize)) - 1)   # two's complement, extended
    else:
        word = int(value.astype(register).reshape(1).view({2: np.uint16, 4: np.uint32, 8: np.uint64}[
            np.dtype(register).itemsize])[0])
    return [word & 0xFFFFFFFF] + ([word >> 32] if np.dtype(register).itemsize == 8 else [])


def compile_operator(operator, tensors, *, attributes=None, scale_bias=None, half_precision=False, preset=None,
                     workgroup_size=None, layout=LAYOUT, min_value=None, max_value=None):
    """Build the kernel for a validated operator desc (tensors in binding order).

    `attributes` is the desc's validated non-tensor fields by C name (validation.OperatorInfo.attributes:
    FLOAT fields, enums, DML_SCALAR_UNION values, FusedActivation); `min_value` / `max_value` are the older
    spelling of {"Min": .., "Max": ..}. `layout` is the constant buffer layout (kernels/constant_buffer.py);
    the packer and the assembled kernel both follow it. Only tests pass another one.
    """
    if operator in reduce_ops.OPERATORS:      # the reduction family: one workgroup per output (or per chunk of it)
        r = reduce_ops.compile_reduction(operator, tensors, dict(attributes or {}), layout, NoKernel, division_magic,
                                         packed_strides)
        return CompiledKernel(operator, r.program, r.constants, len(tensors), r.workgroups, r.lanes,
                              workgroups=r.workgroups, lds_bytes=r.lds_bytes, stage=r.stage,
                              temporary_bytes=r.temporary_bytes)
    if operator in top_k_ops.OPERATORS:       # top-K: one workgroup per sequence, K selection passes
        program, constants, sequences, lanes, lds_bytes = top_k_ops.compile_top_k(
            operator, tensors, dict(attributes or {}), layout, NoKernel, division_magic, packed_strides,
            merge_dimensions)
        return CompiledKernel(operator, program, constants, len(tensors), sequences, lanes, workgroups=sequences,
                              lds_bytes=lds_bytes)
    if operator in attention_ops.OPERATORS:   # attention: one workgroup per (query row, head, batch)
        program, constants, group_grid, thread_grid, lds_bytes = attention_ops.compile_attention(
            operator, tensors, dict(attributes or {}), layout, NoKernel, packed_strides, preset)
        groups = group_grid[0] * group_grid[1] * group_grid[2]
        output = tensors[attention_ops.OPERATORS[operator].tensors.index("OutputTensor")]
        elements = int(np.prod([int(s) for s in output.sizes], dtype=np.int64))
        return CompiledKernel(operator, program, constants, len(tensors), elements, thread_grid[0], workgroups=groups,
                              lds_bytes=lds_bytes, group_grid=group_grid, thread_grid=thread_grid)
    if operator in softmax_ops.OPERATORS:     # the softmax family: one workgroup per row (a reduction, then the row)
        program, constants, rows, lanes, lds_bytes = softmax_ops.compile_softmax(
            operator, tensors, dict(attributes or {}), layout, NoKernel, division_magic, packed_strides)
        return CompiledKernel(operator, program, constants, len(tensors), rows, lanes, workgroups=rows,
                              lds_bytes=lds_bytes)
    if operator in scan_ops.OPERATORS:        # the cumulative scans: one thread per line along the axis
        program, constants, lines, threads = scan_ops.compile_scan(
            operator, tensors, dict(attributes or {}), layout, NoKernel, division_magic, packed_strides)
        return CompiledKernel(operator, program, constants, len(tensors), lines, threads)
    if operator in gemm_ops.OPERATORS:        # matrix multiplication: a grid of 16 x 16 output blocks
        program, constants, group_grid, thread_grid, lds_bytes = gemm_ops.compile_gemm(
            operator, tensors, dict(attributes or {}), layout, NoKernel, division_magic, packed_strides, activation_of,
            variant_symbols, preset)
        groups = group_grid[0] * group_grid[1] * group_grid[2]
        threads = thread_grid[0] * thread_grid[1] * thread_grid[2]
        elements = int(np.prod([int(s) for s in tensors[-1].sizes], dtype=np.int64))
        return CompiledKernel(operator, program, constants, len(tensors), elements, threads, workgroups=groups,
                              lds_bytes=lds_bytes, group_grid=group_grid, thread_grid=thread_grid)
    if operator == "LOCAL_RESPONSE_NORMALIZATION":    # one thread per element, a window of the input each
        size = preset.workgroup_size if preset is not None else 256
        pow_symbols = tuple(sorted(variant_symbols("ELEMENT_WISE_CONSTANT_POW", "FLOAT32", True, False, False,
                                                   layout).items()))
        program, constants, elements = normalization_ops.compile_lrn(
            tensors, dict(attributes or {}), layout, NoKernel, division_magic, packed_strides, pow_symbols, size)
        return CompiledKernel(operator, program, constants, len(tensors), elements, size)
    if operator in normalization_ops.OPERATORS:   # a reduction, then an element-wise step: a workgroup per group
        program, constants, groups, lanes, lds_bytes = normalization_ops.compile_normalization(
            operator, tensors, dict(attributes or {}), layout, NoKernel, division_magic, packed_strides, activation_of,
            variant_symbols, preset)
        output = tensors[normalization_ops.OPERATORS[operator].tensors.index("OutputTensor")]
        elements = int(np.prod([int(s) for s in output.sizes], dtype=np.int64))
        return CompiledKernel(operator, program, constants, len(tensors), elements, lanes, workgroups=groups,
                              lds_bytes=lds_bytes)
    if operator in data_movement_ops.OPERATORS:    # a strided copy (or padding fold): copy_region.s
        if workgroup_size is None:
            workgroup_size = preset.workgroup_size if preset is not None else 256
        program, constants, elements = data_movement_ops.compile_data_movement(
            operator, tensors, dict(attributes or {}), layout, NoKernel, division_magic, packed_strides,
            workgroup_size)
        return CompiledKernel(operator, program, constants, len(tensors), elements, workgroup_size)
    if operator in window_ops.OPERATORS:   # convolution, pooling: one thread per output element, looping over taps
        program, constants, elements, threads, groups, group_grid, thread_grid, lds_bytes = window_ops.compile_window(
            operator, tensors, dict(attributes or {}), layout, NoKernel, division_magic, packed_strides,
            activation_of, variant_symbols, preset=preset)
        return CompiledKernel(operator, program, constants, len(tensors), elements, threads, workgroups=groups,
                              lds_bytes=lds_bytes, group_grid=group_grid, thread_grid=thread_grid)
    if operator in gather_ops.OPERATORS:      # the gathers: one thread per output element, index tuples
        size = workgroup_size or (preset.workgroup_size if preset is not None else 256)
        program, constants, elements = gather_ops.compile_gather(
            operator, tensors, dict(attributes or {}), layout, NoKernel, division_magic, packed_strides,
            merge_dimensions, size)
        return CompiledKernel(operator, program, constants, len(tensors), elements, size)
    if operator in random_ops.OPERATORS:      # Philox 4x32-10: one thread per output element
        size = workgroup_size or (preset.workgroup_size if preset is not None else 256)
        program, constants, threads = random_ops.compile_random(
            operator, tensors, dict(attributes or {}), layout, NoKernel, division_magic, packed_strides,
            merge_dimensions, size)
        return CompiledKernel(operator, program, constants, len(tensors), threads, size)
    if operator in nonzero_ops.OPERATORS:     # one workgroup scans the input chunk by chunk (LDS prefix sums)
        program, constants, lanes, lds_bytes = nonzero_ops.compile_nonzero(
            operator, tensors, dict(attributes or {}), layout, NoKernel, division_magic, packed_strides)
        return CompiledKernel(operator, program, constants, len(tensors), lanes, lanes, workgroups=1,
                              lds_bytes=lds_bytes)
    if operator in fill_ops.OPERATORS:        # fills: one thread per output element, no input
        size = workgroup_size or (preset.workgroup_size if preset is not None else 256)
        program, constants, elements = fill_ops.compile_fill(
            operator, tensors, dict(attributes or {}), layout, NoKernel, division_magic, packed_strides,
            merge_dimensions, size)
        return CompiledKernel(operator, program, constants, len(tensors), elements, size)
    if operator in resample_ops.OPERATORS:    # resampling: one thread per output element, 1 or 16 corners
        size = workgroup_size or (preset.workgroup_size if preset is not None else 256)
        program, constants, elements = resample_ops.compile_resample(
            operator, tensors, dict(attributes or {}), layout, NoKernel, division_magic, packed_strides, size)
        return CompiledKernel(operator, program, constants, len(tensors), elements, size)
    if operator not in OPERATORS:
        raise NoKernel(f"dmlemu has no microkernel for {operator}")
    op = OPERATORS[operator]
    attributes = dict(attributes or {})
    if min_value is not None:
        attributes["Min"] = min_value
    if max_value is not None:
        attributes["Max"] = max_value
    if len(tensors) != len(op.tensors):
        raise ValueError(f"{operator} takes {len(op.tensors)} tensors, got {len(tensors)}")
    # Optional tensors the desc left out (None): the variant reads nothing for them; they take the data type
    # their combination implies and the output's layout (so that they never change the addressing path).
    absent = tuple(i for i, t in enumerate(tensors) if t is None)
    for i in absent:
        if i not in op.optional:
            raise ValueError(f"{operator}'s tensor {i} ({op.tensors[i]}) is None; only optional tensors may be")
    given = tuple(None if t is None else t.data_type for t in tensors)
    for t in given:
        if t is not None and t not in VARIANTS:
            raise ValueError(f"no kernel variant for {t}")
    if op.type_combos:
        combos = [c for c in op.type_combos if all(g in (None, c[i]) for i, g in enumerate(given))]
        if not combos:
            raise NoKernel(f"dmlemu's kernel for {operator} has no variant for the data types "
                           f"{', '.join(str(g) for g in given)}")
        types = combos[0]
    else:
        types = given
    data_type = types[op.type_tensor]
    if data_type not in op.types:
        raise NoKernel(f"dmlemu's kernel for {operator} serves {', '.join(op.types)}, not {data_type}")
    if op.output in ("any", "u32") and types[-1] not in op.output_types:
        raise NoKernel(f"dmlemu's kernel for {operator} has no {data_type} to {types[-1]} variant")
    expected = tensor_types(operator, data_type)
    if not op.type_combos and (types[:-1] != expected[:-1] or (op.output == "same" and types[-1] != expected[-1])):
        # a valid desc no variant serves (POW with an ExponentTensor of another type): E_NOTIMPL, not E_INVALIDARG
        raise NoKernel(f"dmlemu's kernel for {operator} has no variant for the data types {', '.join(types)}")
    if scale_bias is not None and (not op.scale_bias or not VARIANTS[data_type].is_float):
        raise ValueError(f"ScaleBias is not supported for {data_type}" if op.scale_bias
                         else f"{operator} has no ScaleBias")
    activation, activation_attributes = activation_of(attributes) if op.activation else (None, {})
    if activation is not None and not VARIANTS[data_type].is_float:
        raise ValueError(f"a FusedActivation needs a FLOAT16 or FLOAT32 output, not {data_type}")
    if activation is not None and activation not in FUSABLE:
        raise NoKernel(f"dmlemu has no fused kernel body for the FusedActivation {activation}")
    data = tensors[-1]
    sizes = tuple(int(s) for s in data.sizes)
    elements = int(np.prod(sizes, dtype=np.int64))
    own = [data if t is None else t for t in tensors]
    # A dimension of size 1 where the output's is larger (QUANTIZED_LINEAR_ADD's one-element scales and zero
    # points) is broadcast: stride 0 (its only coordinate is 0, so this changes no address).
    strides = [tuple(0 if size == 1 else st for size, st in zip(t.sizes, t.strides if t.strides is not None
                                                                    else packed_strides(t.sizes)))
               for t in own]
    merged_sizes, merged_strides = merge_dimensions(sizes, strides)
    packed = len(merged_sizes) == 1 and all(s[0] == 1 for s in merged_strides)
    half = bool(half_precision) and data_type == "FLOAT16"
    # 24-bit multiply-adds place the element when every coordinate (< its size) and stride fits 24 bits.
    wide = not packed and (max(merged_sizes) > 1 << 24
                           or any(s >= 1 << 24 for strides_t in merged_strides for s in strides_t))
    variant_types = None if types == tensor_types(operator, data_type) else types
    program = build_program(operator, data_type, packed, scale_bias is not None, half, layout, wide,
                            variant_types, activation, absent)

    if workgroup_size is None:
        workgroup_size = preset.workgroup_size if preset is not None else 256
    scale, bias = scale_bias if scale_bias is not None else (1.0, 0.0)
    values = {
        "ELEMENTS": elements,
        "WORKGROUP_SIZE": workgroup_size,
        "RECORD_COUNT": len(merged_sizes),
        "MIN": float(attributes["Min"]) if "Min" in op.bounds and attributes.get("Min") is not None else 0.0,
        "MAX": float(attributes["Max"]) if "Max" in op.bounds and attributes.get("Max") is not None else 0.0,
        "SCALE": scale,
        "BIAS": bias,
    }
    compute = "f16" if half else VARIANTS[data_type].compute
    dwords = []
    for row, fields in ((op, attributes), (_activation_row(activation), activation_attributes)):
        for name, encoding in (row.params if row is not None else ()):
            if fields.get(name) is None:
                raise ValueError(f"{row.name} needs its attribute {name}")
            dwords += _param_dwords(fields[name], encoding, compute)
    values.update({PARAM_FIELDS[i]: word for i, word in enumerate(dwords)})
    records = []
    for d in reversed(range(len(merged_sizes))):  # innermost first
        magic, shift1, shift2 = division_magic(merged_sizes[d])
        record = {"SIZE": merged_sizes[d], "MAGIC": magic, "SHIFT1": shift1, "SHIFT2": shift2}
        for t in range(len(tensors)):
            record[f"STRIDE_T{t}"] = merged_strides[t][d] & 0xFFFFFFFF   # two's complement
        records.append(record)
    constants = layout.pack(values, records, params=bool(dwords), wide=len(tensors) > 4)
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


__all__ = ["has_kernel", "activation_of", "NoKernel", "MAX_TENSORS", "tensor_types", "cast_steps", "TensorSpec", "DataTypeVariant", "CompiledKernel", "compile_operator", "build_program", "variant_symbols",
           "variant_name", "merge_dimensions", "division_magic", "packed_strides", "VARIANTS", "SOURCES",
           "build_copy_program", "copy_launch"]
