"""The normalization operators' table and compilers: MEAN_VARIANCE_NORMALIZATION(1), LP_NORMALIZATION and
LOCAL_RESPONSE_NORMALIZATION as kernel launches (BATCH_NORMALIZATION, whose statistics are given, is an
element-wise row of kernels/element_wise_ops.py).

A mean-variance normalization is a reduction followed by an element-wise step over the same elements:
kernels/normalization.s runs one workgroup of L threads per group (the elements that share their coordinates
outside the normalized axes), L from the group's size as the reductions choose it (`reduce_ops.lanes_for`), and
reuses the reductions' LDS tree (kernels/reduce_tree.inc) for both sums. One `NormalizationOperator` row per
operator says, by name:

  tensors     the desc's tensor fields in binding order, the output last
  source      the kernel source
  types       the data types it serves (FLOAT16 is widened and works in FLOAT32)
  params      the desc's attributes the compiler reads, (field, kind) (the registry checks that the schema has
              them)
  optional    the binding indices of the tensors the desc may leave out (Scale, Bias)

The driver hands the kernel each tensor's strides per dimension (Scale and Bias: stride 0 where their size is 1,
DirectML's broadcast), split into kept and normalized dimensions, each merged where contiguous in every tensor.
With enough LDS (the preset's `lds_max_bytes_per_workgroup`, 16 KiB without a preset) the first pass keeps the
group's elements in LDS and the input is read from memory once; the result is the same bits either way. The
order of every operation is docs/NUMERICS.md's "Normalization"; the golden model (dmlemu.golden.normalization)
follows the same description, independently. A FusedActivation runs the activation operator's own body, as in
kernels/gemm_ops.py, its attributes at PARAM4 ... BATCH_NORMALIZATION_TRAINING is MVN over the dimensions where
Scale's size is 1, with FusedAdd and the statistics stored (tensors 4 .. 6 in WIDE_RECORDS). LP_NORMALIZATION is
the same kernel with one pass (the sum of
|x| or x * x) and no mean. LOCAL_RESPONSE_NORMALIZATION is element-shaped instead: kernels/lrn.s, one thread per
element summing its window, raised to Beta by ELEMENT_WISE_CONSTANT_POW's own body (`compile_lrn`).
"""
import functools
import os
from dataclasses import dataclass

import numpy as np

from dmlemu.isa.assembler import assemble_file
from dmlemu.isa.program import Program
from dmlemu.kernels.constant_buffer import LAYOUT, f32_bits
from dmlemu.kernels.element_wise_ops import FUSABLE, OPERATORS as ELEMENT_WISE_ROWS
from dmlemu.kernels.reduce_ops import lanes_for
from dmlemu.kernels.element_moves import load_suffixes, shifts, store_suffixes

KERNEL_DIR = os.path.dirname(os.path.abspath(__file__))
DEFAULT_LDS_LIMIT = 16384      # bytes of LDS a workgroup may take when no preset says (the smallest preset's)
_FLOATS = ("FLOAT32", "FLOAT16")
_LOAD, _STORE, _SHIFT = load_suffixes(_FLOATS), store_suffixes(_FLOATS), shifts(_FLOATS)
MAX_ACTIVATION_PARAMS = 4      # PARAM4 .. PARAM7


@dataclass(frozen=True, kw_only=True)
class NormalizationOperator:
    """One operator of the normalization family (see the module docstring for each field)."""
    name: str
    tensors: tuple
    types: tuple
    source: str = "normalization.s"
    params: tuple = ()
    scale_bias: bool = False
    bounds: tuple = ()
    optional: tuple = ()
    family: str = "normalization"


_MVN_TENSORS = ("InputTensor", "ScaleTensor", "BiasTensor", "OutputTensor")
OPERATORS = {row.name: row for row in (
    NormalizationOperator(name="MEAN_VARIANCE_NORMALIZATION1", tensors=_MVN_TENSORS, types=("FLOAT32", "FLOAT16"),
                          params=(("Axes", "axes"), ("NormalizeVariance", "bool"), ("Epsilon", "f32")),
                          optional=(1, 2)),
    # MVN1 with UseMean (FALSE: the mean taken as +0, so d = x) and UseVariance (NormalizeVariance)
    NormalizationOperator(name="MEAN_VARIANCE_NORMALIZATION2", tensors=_MVN_TENSORS, types=("FLOAT32", "FLOAT16"),
                          params=(("Axes", "axes"), ("UseMean", "bool"), ("UseVariance", "bool"), ("Epsilon", "f32")),
                          optional=(1, 2)),
    NormalizationOperator(name="MEAN_VARIANCE_NORMALIZATION", tensors=_MVN_TENSORS, types=("FLOAT32", "FLOAT16"),
                          params=(("CrossChannel", "bool"), ("NormalizeVariance", "bool"), ("Epsilon", "f32")),
                          optional=(1, 2)),
    # MVN over the dimensions where Scale's size is 1, + FusedAdd; the mean and variance also stored (TRAINING)
    NormalizationOperator(name="BATCH_NORMALIZATION_TRAINING", tensors=(
        "InputTensor", "ScaleTensor", "BiasTensor", "FusedAddTensor", "OutputTensor", "OutputMeanTensor",
        "OutputVarianceTensor"), types=("FLOAT32", "FLOAT16"), params=(("Epsilon", "f32"),), optional=(3,)),
    # y = x / max(the Lp norm along Axis, Epsilon): one pass of |x| (P = 1) or x * x (P = 2), no mean
    NormalizationOperator(name="LP_NORMALIZATION", tensors=("InputTensor", "OutputTensor"),
                          types=("FLOAT32", "FLOAT16"), params=(("Axis", "u32"), ("Epsilon", "f32"), ("P", "u32"))),
    # x / (Bias + Alpha / LocalSize * the window's sum of x * x)^Beta: one thread per element (kernels/lrn.s)
    NormalizationOperator(name="LOCAL_RESPONSE_NORMALIZATION", tensors=("InputTensor", "OutputTensor"),
                          types=("FLOAT32", "FLOAT16"), source="lrn.s",
                          params=(("CrossChannel", "bool"), ("LocalSize", "u32"), ("Alpha", "f32"), ("Beta", "f32"),
                                  ("Bias", "f32"))),
)}


def normalized_axes(operator, attributes):
    """The axes a desc normalizes across: MVN1's Axes; MVN's {C, H, W} (CrossChannel TRUE) or {H, W}."""
    if operator == "MEAN_VARIANCE_NORMALIZATION":
        return {1, 2, 3} if int(attributes.get("CrossChannel") or 0) else {2, 3}
    if operator == "LP_NORMALIZATION":
        return {int(attributes.get("Axis") or 0)}
    if operator == "BATCH_NORMALIZATION_TRAINING":     # the dimensions where ScaleTensor's size is 1
        return {d for d, size in enumerate(attributes["_scale_sizes"]) if int(size) == 1}
    return {int(a) for a in attributes.get("Axes") or ()}


def split_dimensions(sizes, axes, strides_per_tensor):
    """(kept records, normalized records): each a list of (size, (stride per tensor)), innermost first, after
    dropping size-1 dimensions and merging neighbours contiguous in every tensor. The index a list decomposes
    counts its dimensions in row-major order (the last fastest), as the reductions' do."""
    def merged(dims):
        out = []
        for size, strides in dims:
            if size == 1:
                continue
            if out and all(o == s * size for o, s in zip(out[-1][1], strides)):
                out[-1] = (out[-1][0] * size, strides)
            else:
                out.append((size, strides))
        return out[::-1]
    per_dim = [tuple(st[d] for st in strides_per_tensor) for d in range(len(sizes))]
    kept = [(s, per_dim[d]) for d, s in enumerate(sizes) if d not in axes]
    normalized = [(s, per_dim[d]) for d, s in enumerate(sizes) if d in axes]
    return merged(kept), merged(normalized)


def variant_symbols(data_type, has_scale, has_bias, normalize_variance, inner_linear, lanes, cache, layout=LAYOUT,
                    activation=None, activation_symbols=None, lp=0, training=False, has_add=False, zero_mean=False):
    """The assembler symbols of one variant of normalization.s (`zero_mean`: MVN2's UseMean FALSE); with `activation` (ACTIVATION_RELU ...), those the
    element-wise driver gives that activation's own kernel in FLOAT32 (`activation_symbols`: its variant_symbols,
    handed in by kernels/driver.py), under normalization.s's own."""
    base = {} if activation is None else dict(activation_symbols(activation, "FLOAT32", True, False, False, layout))
    return {**base, "HAS_ACT": int(activation is not None), "ACTIVATION": activation or "none",
            "CANONICALIZE": base.get("CANONICALIZE", 0),
            "HAS_SCALE": int(has_scale), "HAS_BIAS": int(has_bias), "NORMALIZE_VARIANCE": int(normalize_variance),
            "ZERO_MEAN": int(zero_mean),
            "CENTER": int(not lp), "DIVIDE": int(bool(lp) or normalize_variance),
            "TERM": {0: "X", 1: "ABS", 2: "SQUARE"}[lp],
            "INNER_LINEAR": int(inner_linear), "CACHE": int(cache), "LANES": lanes, "LDS_CACHE": 4 * lanes,
            "LOAD": _LOAD[data_type], "STORE": _STORE[data_type], "SHIFT": _SHIFT[data_type],
            "WIDEN_F16": int(data_type == "FLOAT16"), "NARROW_F16": int(data_type == "FLOAT16"),
            "DESC_T0": 0, "DESC_T1": 32, "DESC_T2": 64, "DESC_T3": 32 if lp else 128 if training else 96,
            # BATCH_NORMALIZATION_TRAINING: FusedAdd at slot 3, the output at 4, OutputMean 5, OutputVariance 6
            "TRAINING": int(training), "HAS_ADD": int(has_add), "DESC_ADD": 96, "DESC_MEAN": 160, "DESC_VAR": 192,
            "WIDE_DELTA": layout.field("WIDE_RECORDS").offset - layout.field("RECORDS").offset,
            # the reductions' tree (reduce_tree.inc, reduce_level.inc, reduce_combine.inc): FLOAT32 sums
            "ACC": "v10", "X": "v11", "DS": "b32", "LDS_SHIFT": 2, "ARG": 0, "COMBINE": "v_add_f32",
            "LDS_INDEX": 4 * lanes, "CMP_BETTER": "none", "CMP_EQ": "none",
            **{f"OFF_{1 << j}": 4 << j for j in range(10)},
            **{f"LEVEL_{1 << j}": int(lanes > 1 << j) for j in range(1, 10)}, **layout.symbols()}


@functools.lru_cache(maxsize=None)
def build_program(data_type, has_scale, has_bias, normalize_variance, inner_linear, lanes, cache, layout=LAYOUT,
                  activation=None, activation_symbols=None, lp=0, training=False, has_add=False, zero_mean=False):
    """Assemble and decode one variant of normalization.s (cached); `lp`: LP_NORMALIZATION's P (0: MVN);
    `training`: BATCH_NORMALIZATION_TRAINING (stores the mean and variance), `has_add`: its FusedAdd; `zero_mean`:
    MEAN_VARIANCE_NORMALIZATION2's UseMean FALSE."""
    symbols = variant_symbols(data_type, has_scale, has_bias, normalize_variance, inner_linear, lanes, cache, layout,
                              activation, activation_symbols, lp, training, has_add, zero_mean)
    dwords = assemble_file(os.path.join(KERNEL_DIR, "normalization.s"), symbols)
    name = (f"{f'lp{lp}' if lp else 'mvn'}_{data_type.lower()}_x{lanes}{'_scale' if has_scale else ''}{'_bias' if has_bias else ''}"
            f"{'_zero_mean' if zero_mean else ''}{'' if normalize_variance else '_mean_only'}{'_linear' if inner_linear else ''}"
            f"{'_cached' if cache else ''}{'_training' if training else ''}{'_add' if has_add else ''}"
            f"{'' if activation is None else '_' + activation.lower()}")
    return Program(dwords, name)


def compile_normalization(operator, tensors, attributes, layout, no_kernel, division_magic, packed_strides,
                          activation_of, activation_symbols, preset=None):
    """(program, constant buffer bytes, groups, threads per workgroup, LDS bytes) of a validated desc;
    kernels/driver.py wraps them in a CompiledKernel. `no_kernel` is the NoKernel class to raise; `activation_of`
    and `activation_symbols` are the driver's."""
    row = OPERATORS[operator]
    if len(tensors) == 2:           # LP_NORMALIZATION: no Scale, no Bias
        tensors = (tensors[0], None, None, tensors[1])
    training = operator == "BATCH_NORMALIZATION_TRAINING"
    extra = ()
    if training:                    # (input, scale, bias, output) in records' T0 .. T3, the rest in WIDE_RECORDS
        source, scale, bias, add, target, mean, variance = tensors
        extra = (add, mean, variance)
        attributes = dict(attributes, _scale_sizes=tuple(scale.sizes))
    else:
        source, scale, bias, target = tensors
    if source.data_type not in row.types:
        raise no_kernel(f"dmlemu's kernel for {operator} serves {', '.join(row.types)}, not {source.data_type}")
    activation, activation_attributes = activation_of(attributes)
    if activation is not None and activation not in FUSABLE:
        raise no_kernel(f"dmlemu has no fused kernel body for the FusedActivation {activation}")
    act_params = [] if activation is None else list(ELEMENT_WISE_ROWS[activation].params)
    if len(act_params) > MAX_ACTIVATION_PARAMS or any(encoding != "f32" for _, encoding in act_params):
        raise no_kernel(f"dmlemu's kernel for {operator} cannot fuse {activation}'s attributes")
    sizes = tuple(int(s) for s in source.sizes)

    def strides_of(spec):
        if spec is None:
            return (0,) * len(sizes)
        own = spec.strides if spec.strides is not None else packed_strides(tuple(int(s) for s in spec.sizes))
        return tuple(0 if int(size) == 1 else int(st) for size, st in zip(spec.sizes, own))
    axes = normalized_axes(operator, attributes)
    kept, normalized = split_dimensions(sizes, axes, [strides_of(t) for t in (source, scale, bias, target, *extra)])
    if len(kept) + max(1, len(normalized)) > layout.max_records:
        raise no_kernel(f"dmlemu's kernel for {operator} holds {layout.max_records} dimension records, not "
                        f"{len(kept) + len(normalized)}")
    groups = int(np.prod([s for d, s in enumerate(sizes) if d not in axes], dtype=np.int64))
    count = int(np.prod([sizes[d] for d in axes], dtype=np.int64))
    records = []
    for size, strides in kept + (normalized or [(1, (0,) * (4 + len(extra)))]):
        magic, shift1, shift2 = division_magic(size)
        record = {"SIZE": size, "MAGIC": magic, "SHIFT1": shift1, "SHIFT2": shift2}
        record.update({f"STRIDE_T{t}": s & 0xFFFFFFFF for t, s in enumerate(strides)})
        records.append(record)
    lanes = lanes_for(count)
    limit = getattr(preset, "lds_max_bytes_per_workgroup", None) or DEFAULT_LDS_LIMIT
    cache = 4 * lanes + 4 * count <= limit
    epsilon = attributes.get("Epsilon")
    values = {"ELEMENTS": groups, "WORKGROUP_SIZE": lanes, "RECORD_COUNT": len(kept),
              "PARAM0": max(1, len(normalized)), "PARAM1": count, "PARAM2": f32_bits(float(np.float32(count))),
              "PARAM3": f32_bits(float(0.0 if epsilon is None else epsilon))}
    for i, (name, _) in enumerate(act_params):
        if activation_attributes.get(name) is None:
            raise ValueError(f"{activation} needs its attribute {name}")
        values[f"PARAM{4 + i}"] = f32_bits(float(activation_attributes[name]))
    constants = layout.pack(values, records, params=True, wide=training)
    lp = int(attributes.get("P") or 0) if operator == "LP_NORMALIZATION" else 0
    if operator == "LP_NORMALIZATION" and lp not in (1, 2):
        raise ValueError(f"LP_NORMALIZATION's P is {lp}, not 1 or 2")
    normalize_variance = not lp and bool(int(attributes.get("NormalizeVariance", 1) or 0))
    zero_mean = False
    if operator == "MEAN_VARIANCE_NORMALIZATION2":
        normalize_variance = bool(int(attributes.get("UseVariance") or 0))
        zero_mean = not int(attributes.get("UseMean") or 0)
    program = build_program(source.data_type, scale is not None, bias is not None, normalize_variance,
                            len(normalized) <= 1, lanes, cache, layout, activation,
                            activation_symbols if activation is not None else None, lp, training,
                            training and extra[0] is not None, zero_mean)
    return program, constants, groups, lanes, 4 * lanes + (4 * count if cache else 0)


def lrn_window(local_size):
    """(lo, hi): LOCAL_RESPONSE_NORMALIZATION's window of an element at c is c - lo .. c + hi, clipped to the
    tensor (LocalSize - 1 split with the smaller half before, as ONNX LRN's floor / ceil)."""
    lo = (int(local_size) - 1) // 2
    return lo, int(local_size) - 1 - lo


@functools.lru_cache(maxsize=None)
def build_lrn_program(data_type, cross_channel, layout=LAYOUT, pow_symbols=None):
    """Assemble and decode one variant of lrn.s (cached); `pow_symbols`: the element-wise driver's symbols of
    ELEMENT_WISE_CONSTANT_POW in FLOAT32 (its body raises the base to Beta)."""
    records = layout.field("RECORDS").offset
    step = layout.record_bytes
    symbols = {**dict(pow_symbols), "CROSS_CHANNEL": int(cross_channel), "LOAD": _LOAD[data_type], "STORE": _STORE[data_type],
               "SHIFT": _SHIFT[data_type], "WIDEN_F16": int(data_type == "FLOAT16"),
               "NARROW_F16": int(data_type == "FLOAT16"), "DESC_T0": 0, "DESC_T1": 32,
               "CB_LRN_W": records, "CB_LRN_H": records + step, "CB_LRN_C": records + 2 * step,
               "CB_LRN_N": records + 3 * step, **layout.symbols()}
    dwords = assemble_file(os.path.join(KERNEL_DIR, OPERATORS["LOCAL_RESPONSE_NORMALIZATION"].source), symbols)
    return Program(dwords, f"lrn_{data_type.lower()}_{'cross_channel' if cross_channel else 'spatial'}")


def compile_lrn(tensors, attributes, layout, no_kernel, division_magic, packed_strides, pow_symbols,
                workgroup_size):
    """(program, constant buffer bytes, elements) of a validated LOCAL_RESPONSE_NORMALIZATION desc."""
    source, target = tensors
    row = OPERATORS["LOCAL_RESPONSE_NORMALIZATION"]
    if source.data_type not in row.types:
        raise no_kernel(f"dmlemu's kernel for {row.name} serves {', '.join(row.types)}, not {source.data_type}")
    sizes = tuple(int(s) for s in source.sizes)
    if len(sizes) != 4:
        raise no_kernel(f"dmlemu's kernel for {row.name} serves 4 dimensions, not {len(sizes)}")
    strides = [tuple(int(v) for v in (t.strides if t.strides is not None else packed_strides(sizes)))
               for t in (source, target)]
    records = []
    for d in (3, 2, 1, 0):            # W, H, C, N: innermost first
        magic, shift1, shift2 = division_magic(sizes[d])
        records.append({"SIZE": sizes[d], "MAGIC": magic, "SHIFT1": shift1, "SHIFT2": shift2,
                        "STRIDE_T0": strides[0][d] & 0xFFFFFFFF, "STRIDE_T1": strides[1][d] & 0xFFFFFFFF})
    elements = int(np.prod(sizes, dtype=np.int64))
    local_size = int(attributes["LocalSize"])
    lo, hi = lrn_window(local_size)
    with np.errstate(all="ignore"):
        ratio = np.float32(attributes["Alpha"]) / np.float32(local_size)     # one correctly rounded FLOAT32 divide
    values = {"ELEMENTS": elements, "WORKGROUP_SIZE": workgroup_size, "RECORD_COUNT": 4,
              "PARAM0": f32_bits(float(attributes["Beta"])), "PARAM1": f32_bits(float(ratio)),
              "PARAM2": f32_bits(float(attributes["Bias"])), "PARAM3": lo, "PARAM4": hi}
    constants = layout.pack(values, records, params=True, wide=False)
    program = build_lrn_program(source.data_type, bool(int(attributes.get("CrossChannel") or 0)), layout,
                                pow_symbols)
    return program, constants, elements


__all__ = ["OPERATORS", "NormalizationOperator", "build_lrn_program", "build_program", "compile_lrn",
           "compile_normalization", "lrn_window", "normalized_axes", "split_dimensions", "variant_symbols"]
