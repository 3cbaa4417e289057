"""The sliding-window operators' table and compiler: CONVOLUTION and the poolings as kernel launches.

A convolution or a pooling is neither element-wise nor a reduction: kernels/window.s gives each output element one
thread, which loops over the taps of its window (input channels of its group, then the window's depth, height and
width, each ascending) and skips the taps that fall in the padding; the launch is ceil(elements / 64) workgroups
of 64 threads. One to three spatial dimensions run the same three loops: a missing dimension has size 1 and a
window of 1. A pooling is a depthwise window without a filter: one channel per group (K = C = G), and the tap
adds (AVERAGE) or takes the maxNum (MAX) instead of the fused multiply-add. One `WindowOperator` row per operator
says, by name:

  tensors     the desc's tensor fields in binding order, the output last
  window_op   what a tap does: "CONVOLUTION" (fma with the filter), "AVERAGE", "MAX" or "LP" (P 1: + |x|;
              P 2: + x x, then the square root) (kernels/window.s's `.if WINDOW_OP == ..` blocks)
  source      the kernel source (the program name says the operator and the path: convolution_direct_..)
  types       the data types it serves (FLOAT16 is widened and accumulates in FLOAT32)
  params      the desc's attributes the compiler reads, (field, kind) (the registry checks that the schema has
              them)

The constant buffer reuses kernels/constant_buffer.py's RECORDS: eight records of eight dwords, whose fields
(SIZE, MAGIC, SHIFT1, SHIFT2, STRIDE_T0 .. STRIDE_T3) this kernel reads with the meanings of `RECORD_USE`, the one
table of what each holds; PARAM0 is C / G, PARAM1 the filter's base element (AVERAGE: the window's size as
FLOAT32), PARAM2 .. the FusedActivation's attributes. A convolution whose K / G is a multiple of TILE_K gives each
thread TILE_K output channels (program .._k4_..): one input load per tap serves TILE_K fmas. Strides are elements; the filter's strides along the window are negative in CONVOLUTION mode (the
filter flipped) and its base the flipped origin, so the kernel never knows the mode. The order of every
operation is docs/NUMERICS.md's "Convolution"; the golden model (dmlemu.golden.convolution) follows the same
description, independently. A FusedActivation runs the activation operator's own body (the block
`.if BODY == "<activation>"` of kernels/element_wise_bodies.inc, assembled with the symbols the element-wise driver
gives that activation in FLOAT32), as GEMM's does. The poolings' order is docs/NUMERICS.md's "Pooling"
(dmlemu.golden.pooling).

DML_CONVOLUTION_DIRECTION_BACKWARD (the transposed convolution) runs the same loops with the BACKWARD symbol: a tap
reads the input where (o + StartPadding - t Dilations) / Strides is whole and inside it (convolution_backward_..).

The GEMM path: a convolution of a 1 x 1 window, strides 1, no padding, one group, at least GEMM_MIN_CHANNELS
input channels and spatial dimensions that merge into one in the input and the output (any packed NCHW tensor) is
a matrix product per batch, out[n, p, k] = sum over c of x[n, p, c] w[c, k] (p the spatial position), and runs
kernels/gemm.s (`gemm_path`: the strides of that view, no tensor is copied); its program is named
convolution_gemm_... . Its order is the same as the direct kernel's, so the bits are too: acc from -0, one fma per
channel ascending; Alpha 1 (exact); the bias as C with Beta 1, fma(1, bias, acc) = acc + bias rounded once; the
FusedActivation; one rounding to FLOAT16 (docs/NUMERICS.md, "Convolution").

The implicit-GEMM path: a FORWARD convolution of one or two spatial dimensions with enough channels
(kernels/conv_gemm_ops.py's `uses_implicit_gemm`, asked after `gemm_path`) runs kernels/conv_gemm.s, the im2col tiles
gathered into LDS and multiplied in the same order (program convolution_implicit_gemm_..).

Matrix units (FLOAT16 on a preset whose FLOAT16 GEMM runs WMMA: conv_gemm_ops.uses_matrix_units): the implicit
GEMM runs its WMMA variant without padding (with padding, on the blocks whose windows miss it) and also takes the plain
1 x 1 convolutions its rule accepts
(conv_gemm_ops.takes_plain_one_by_one); the GEMM path runs gemm.s's WMMA variant (the preset is handed to
gemm_ops.compile_gemm only there). The same bits (docs/NUMERICS.md, "Convolution", "On matrix units").

The depthwise path: a FORWARD convolution of one or two spatial dimensions with GroupCount = C = K (a channel
multiplier of 1; kernels/conv_depthwise_ops.py's `uses_depthwise`, asked after the implicit GEMM) runs
kernels/conv_depthwise.s: a 16 x 16 tile of one channel's output plane a workgroup, its input tile and halo loaded
once into LDS, four pixels a thread, in the same order (program convolution_depthwise_..); a 3 x 3 filter with Strides
H 1 or 2 and dilations 1, packed along W, runs kernels/conv_depthwise_row.s instead (eight pixels of one column a
thread from registers, program convolution_depthwise_row_..). Other channel multipliers,
three spatial dimensions and BACKWARD stay on the direct kernel.
"""
import functools
import os
from dataclasses import dataclass, replace

from dmlemu.isa.assembler import assemble_file
from dmlemu.isa.program import Program
from dmlemu.kernels import gemm_ops
from dmlemu.kernels import conv_gemm_ops
from dmlemu.kernels import conv_depthwise_ops
from dmlemu.kernels.conv_gemm_ops import _strides
from dmlemu.kernels.constant_buffer import LAYOUT, f32_bits
from dmlemu.kernels.element_wise_ops import FUSABLE, OPERATORS as ELEMENT_WISE_ROWS
from dmlemu.kernels.element_moves import load_suffixes, shifts, store_suffixes

KERNEL_DIR = os.path.dirname(os.path.abspath(__file__))
THREADS = 64              # threads per workgroup: one output element each
TILE_K = 4                # a convolution whose K / G is a multiple of this computes TILE_K output channels a thread
GEMM_MIN_CHANNELS = 16    # a 1 x 1 convolution of at least this many input channels per group runs gemm.s
_TYPES = ("FLOAT32", "FLOAT16", "INT8", "UINT8", "INT16", "UINT16", "INT32", "UINT32", "INT64", "UINT64")
_LOAD, _STORE, _SHIFT = load_suffixes(_TYPES), store_suffixes(_TYPES), shifts(_TYPES)
# MAX: the instruction and its identity (low dword, high dword) per data type (maxNum from NaN; integers from the
# type's least value, loaded sign- or zero-extended, stored by their low bytes; the 64-bit types in register pairs)
_MAX = {"FLOAT32": ("v_max_f32", 0x7FC00000, 0), "FLOAT16": ("v_max_f32", 0x7FC00000, 0),
        "INT8": ("v_max_i32", 0xFFFFFF80, 0), "UINT8": ("v_max_u32", 0, 0), "INT16": ("v_max_i32", 0xFFFF8000, 0),
        "UINT16": ("v_max_u32", 0, 0), "INT32": ("v_max_i32", 0x80000000, 0), "UINT32": ("v_max_u32", 0, 0),
        "INT64": ("v_max_i64", 0, 0x80000000), "UINT64": ("v_max_u64", 0, 0)}
_PAIR = ("INT64", "UINT64")
_INTEGERS = ("INT64", "INT32", "INT16", "INT8", "UINT64", "UINT32", "UINT16", "UINT8")

# What each field of the eight RECORDS holds for window.s (record name: fields in record order). The
# assembler symbol CB_CONV_<record> is the record's offset; `_records` packs them by these names.
RECORD_USE = (      # "FORWARD field / BACKWARD field" where the directions differ
    ("W", ("OW", "OW magic", "OW shift1", "OW shift2", "x stride W",
           "- (MAX indices: indices stride W) / stride W magic", "- / stride W shift1", "output stride W")),
    ("H", ("OH", "OH magic", "OH shift1", "OH shift2", "x stride H",
           "- (MAX indices: indices stride H) / stride H magic", "- / stride H shift1", "output stride H")),
    ("D", ("OD", "OD magic", "OD shift1", "OD shift2", "x stride D",
           "- (MAX indices: indices stride D) / stride D magic", "- / stride D shift1", "output stride D")),
    ("K", ("K", "K magic", "K shift1", "K shift2", "x stride C",
           "w stride K (MAX indices: indices stride K) / w stride K/G", "bias stride K (MAX indices: ID IH IW; CONVOLUTION_INTEGER: filter zero point stride K)",
           "output stride K")),
    ("GROUP", ("K/G", "K/G magic", "K/G shift1", "K/G shift2", "x stride N",
               "w stride C (MAX indices: indices stride N) / w stride C (dim 0)", "x group step",
               "output stride N")),
    ("WINDOW_W", ("IW", "KW", "stride W", "dilation W", "start padding W", "x tap step W / stride W shift2",
                  "w tap step W", "- / w group step (C/G w_0 - K/G w_1)")),
    ("WINDOW_H", ("IH", "KH", "stride H", "dilation H", "start padding H", "x tap step H / stride H shift2",
                  "w tap step H", "- (MAX indices: IW)")),
    ("WINDOW_D", ("ID", "KD", "stride D", "dilation D", "start padding D", "x tap step D / stride D shift2",
                  "w tap step D", "- (MAX indices: IH IW)")),
)
# The requantization symbols of QUANTIZED_LINEAR_CONVOLUTION, off in every other variant
_NO_QLINEAR = {"QLINEAR": 0, "HAS_QBIAS": 0, "HAS_OZP": 0, "LOAD_OUT": "dword", "OUT_SAT": "i8", "DESC_XSCALE": 0,
               "DESC_WSCALE": 0, "DESC_QBIAS": 0, "DESC_OSCALE": 0, "DESC_OZP": 0}
_RECORD_FIELDS = ("SIZE", "MAGIC", "SHIFT1", "SHIFT2", "STRIDE_T0", "STRIDE_T1", "STRIDE_T2", "STRIDE_T3")


@dataclass(frozen=True, kw_only=True)
class WindowOperator:
    """One operator of the sliding-window family (see the module docstring for each field)."""
    name: str
    tensors: tuple
    types: tuple
    window_op: str
    source: str = "window.s"
    params: tuple = ()
    scale_bias: bool = False
    bounds: tuple = ()
    optional: tuple = ()
    family: str = "window"
    roles: tuple = (("X", 0), ("W", 1), ("BIAS", 2), ("OUT", 3))   # (operand, binding index)
    integer: bool = False


_POOLING = (("Strides", "uints"), ("WindowSize", "uints"), ("StartPadding", "uints"), ("EndPadding", "uints"))
OPERATORS = {row.name: row for row in (
    WindowOperator(name="CONVOLUTION", tensors=("InputTensor", "FilterTensor", "BiasTensor", "OutputTensor"),
                   types=("FLOAT32", "FLOAT16"), window_op="CONVOLUTION",
                   params=(("Mode", "enum"), ("Direction", "enum"), ("Strides", "uints"), ("Dilations", "uints"),
                           ("StartPadding", "uints"), ("EndPadding", "uints"), ("OutputPadding", "uints"),
                           ("GroupCount", "u32")),
                   optional=(2,)),
    WindowOperator(name="CONVOLUTION_INTEGER", tensors=("InputTensor", "InputZeroPointTensor", "FilterTensor",
                                                        "FilterZeroPointTensor", "OutputTensor"),
                   types=("INT32",), window_op="CONVOLUTION", optional=(1, 3), integer=True,
                   params=(("Strides", "uints"), ("Dilations", "uints"), ("StartPadding", "uints"),
                           ("EndPadding", "uints"), ("GroupCount", "u32")),
                   roles=(("X", 0), ("XZP", 1), ("W", 2), ("WZP", 3), ("OUT", 4))),
    WindowOperator(name="QUANTIZED_LINEAR_CONVOLUTION",
                   tensors=("InputTensor", "InputScaleTensor", "InputZeroPointTensor", "FilterTensor",
                            "FilterScaleTensor", "FilterZeroPointTensor", "BiasTensor", "OutputScaleTensor",
                            "OutputZeroPointTensor", "OutputTensor"),
                   types=("INT8", "UINT8"), window_op="CONVOLUTION", optional=(2, 5, 6, 8), integer=True,
                   params=(("Strides", "uints"), ("Dilations", "uints"), ("StartPadding", "uints"),
                           ("EndPadding", "uints"), ("GroupCount", "u32")),
                   roles=(("X", 0), ("XSCALE", 1), ("XZP", 2), ("W", 3), ("WSCALE", 4), ("WZP", 5), ("QBIAS", 6),
                          ("OSCALE", 7), ("OZP", 8), ("OUT", 9))),
    WindowOperator(name="AVERAGE_POOLING", tensors=("InputTensor", "OutputTensor"), types=("FLOAT32", "FLOAT16"),
                   window_op="AVERAGE", params=_POOLING + (("IncludePadding", "bool"),)),
    WindowOperator(name="AVERAGE_POOLING1", tensors=("InputTensor", "OutputTensor"), types=("FLOAT32", "FLOAT16"),
                   window_op="AVERAGE", params=_POOLING + (("Dilations", "uints"), ("IncludePadding", "bool"))),
    WindowOperator(name="LP_POOLING", tensors=("InputTensor", "OutputTensor"), types=("FLOAT32", "FLOAT16"),
                   window_op="LP", params=_POOLING + (("P", "u32"),)),
    WindowOperator(name="LP_POOLING1", tensors=("InputTensor", "OutputTensor"), types=("FLOAT32", "FLOAT16"),
                   window_op="LP", params=_POOLING + (("Dilations", "uints"), ("P", "u32"))),
    WindowOperator(name="MAX_POOLING", tensors=("InputTensor", "OutputTensor"),
                   types=("FLOAT32", "FLOAT16", "INT8", "UINT8"),
                   window_op="MAX", params=_POOLING),
    # MAX_POOLING1 / 2: MAX with the optional OutputIndicesTensor (HAS_INDICES; UINT32 or UINT64)
    WindowOperator(name="MAX_POOLING1", tensors=("InputTensor", "OutputTensor", "OutputIndicesTensor"),
                   types=("FLOAT32", "FLOAT16") + _INTEGERS, window_op="MAX", params=_POOLING, optional=(2,)),
    WindowOperator(name="MAX_POOLING2", tensors=("InputTensor", "OutputTensor", "OutputIndicesTensor"),
                   types=("FLOAT32", "FLOAT16") + _INTEGERS, window_op="MAX",
                   params=_POOLING + (("Dilations", "uints"),), optional=(2,)),
    # MAX_UNPOOLING: no window in its desc; kernels/unpooling.s (compile_unpooling)
    WindowOperator(name="MAX_UNPOOLING", tensors=("InputTensor", "IndicesTensor", "OutputTensor"),
                   types=("FLOAT32", "FLOAT16") + _INTEGERS, window_op="UNPOOL", source="unpooling.s"),
)}

# What each field of the eight RECORDS holds for unpooling.s (CB_UNPOOL_<record> is the record's offset): the
# output's dimensions, then the input's, innermost first.
UNPOOLING_RECORD_USE = tuple(
    (f"OUT_{name}", (f"O{name}", f"O{name} magic", f"O{name} shift1", f"O{name} shift2", f"output stride {name}", "-",
                     "-", "-")) for name in ("W", "H", "C", "N")) + tuple(
    (f"IN_{name}", (f"I{name}", f"I{name} magic", f"I{name} shift1", f"I{name} shift2", f"x stride {name}",
                    f"indices stride {name}", "-", "-")) for name in ("W", "H", "C", "N"))
UNPOOLING_THREADS = 64       # MAX_UNPOOLING: one workgroup, a chunk of 64 input elements a trip
UNPOOLING_HASH_SLOTS = 1024  # its LDS table of stamps that finds a chunk's duplicate targets (4 KiB)
_DATA_BYTES = {"FLOAT32": 4, "FLOAT16": 2, "INT8": 1, "UINT8": 1, "INT16": 2, "UINT16": 2, "INT32": 4, "UINT32": 4,
               "INT64": 8, "UINT64": 8}
_BY_BYTES = {1: ("ubyte", "byte", 0), 2: ("ushort", "short", 1), 4: ("dword", "dword", 2), 8: ("dwordx2", "dwordx2", 3)}


def variant_symbols(data_type, has_bias, layout=LAYOUT, activation=None, activation_symbols=None,
                    window_op="CONVOLUTION", include_padding=False, backward=False, tile=1, lp=0, indices=None,
                    integer=None):
    """The assembler symbols of one variant of window.s; with `activation` (ACTIVATION_RELU ...), those
    the element-wise driver gives that activation's own kernel in FLOAT32 (`activation_symbols`: its
    variant_symbols, handed in by kernels/driver.py), under this kernel's own; `indices`: the data type of a MAX
    pooling's OutputIndicesTensor (UINT32, UINT64) or None. `integer`: CONVOLUTION_INTEGER's
    (input type, filter type, roles, zero points given); `data_type` is then the output's (INT32)."""
    records = layout.field("RECORDS").offset
    if integer is None:
        kind = {"INTEGER": 0, "HAS_XZP": 0, "HAS_WZP": 0, "MAC": "v_fma_f32", "ACC_ZERO": "0x80000000",
                "LOAD_X": _LOAD[data_type], "LOAD_W": _LOAD[data_type], "SHIFT_IN": _SHIFT[data_type], "DESC_XZP": 0,
                "DESC_WZP": 0, **_NO_QLINEAR}
        desc = {"DESC_T0": 0, "DESC_T1": 32, "DESC_T2": 64, "DESC_OUT": 96 if window_op == "CONVOLUTION" else 32}
        load, store, shift = _LOAD[data_type], _STORE[data_type], _SHIFT[data_type]
    else:
        x_type, w_type, roles, given = integer
        roles = dict(roles)
        kind = {"INTEGER": 1, "HAS_XZP": int("XZP" in given), "HAS_WZP": int("WZP" in given), "MAC": "v_mad_u32",
                "ACC_ZERO": 0, "LOAD_X": _LOAD[x_type], "LOAD_W": _LOAD[w_type], "SHIFT_IN": 0,
                "DESC_XZP": 32 * roles["XZP"], "DESC_WZP": 32 * roles["WZP"], **_NO_QLINEAR}
        desc = {"DESC_T0": 32 * roles["X"], "DESC_T1": 32 * roles["W"], "DESC_T2": 0, "DESC_OUT": 32 * roles["OUT"]}
        load, store, shift = "dword", "dword", 2      # the INT32 output
        if "OSCALE" in roles:                          # QUANTIZED_LINEAR_CONVOLUTION: INT8 / UINT8 requantized
            kind.update({"QLINEAR": 1, "HAS_QBIAS": int("QBIAS" in given), "HAS_OZP": int("OZP" in given),
                         "LOAD_OUT": _LOAD[data_type], "OUT_SAT": "i8" if data_type == "INT8" else "u8",
                         **{f"DESC_{role}": 32 * roles[role] for role in ("XSCALE", "WSCALE", "QBIAS", "OSCALE",
                                                                          "OZP")}})
            load, store, shift = _LOAD[data_type], _STORE[data_type], _SHIFT[data_type]
        data_type = "FLOAT32"                          # for the float-only symbols below (unused by INTEGER)
    step = layout.record_bytes
    base = {} if activation is None else dict(activation_symbols(activation, "FLOAT32", True, False, False, layout))
    return {**base, **kind, **desc, "HAS_ACT": int(activation is not None), "HAS_BIAS": int(has_bias), "LOAD": load,
            "STORE": store, "SHIFT": shift, "WIDEN_F16": int(data_type == "FLOAT16"),
            "NARROW_F16": int(data_type == "FLOAT16"), "WINDOW_OP": window_op,
            "INCLUDE_PADDING": int(include_padding), "BACKWARD": int(backward), "TILE_K": tile, "LP_P": lp,
            "PAIRED": int(window_op == "CONVOLUTION" and not backward),
            "CB_CONV_K_WIDE": layout.field("WIDE_RECORDS").offset + 3 * step,
            "MAX": _MAX[data_type][0], "MAX_IDENTITY": _MAX[data_type][1], "MAX_IDENTITY_HIGH": _MAX[data_type][2],
            "PAIR": int(data_type in _PAIR), "HAS_INDICES": int(indices is not None),
            "INDEX_PAIR": int(indices == "UINT64"),
            "ACC_REG": "v[16:17]" if data_type in _PAIR else "v16", "X_REG": "v[28:29]" if data_type in _PAIR else "v28",
            "NEW_REG": "v[54:55]" if data_type in _PAIR else "v54",
            "STORE_REG": "v[10:11]" if data_type in _PAIR else "v10",
            "CMP_NE": "v_cmp_ne_u64" if data_type in _PAIR else "v_cmp_ne_u32",
            **{f"CB_CONV_{name}": records + i * step for i, (name, _) in enumerate(RECORD_USE)}, **layout.symbols()}


@functools.lru_cache(maxsize=None)
def build_program(data_type, has_bias, layout=LAYOUT, activation=None, activation_symbols=None, operator="CONVOLUTION",
                  include_padding=False, backward=False, tile=1, lp=0, indices=None, integer=None):
    """Assemble and decode one variant of window.s (cached)."""
    row = OPERATORS[operator]
    symbols = variant_symbols(data_type, has_bias, layout, activation, activation_symbols, row.window_op,
                              include_padding, backward, tile, lp, indices, integer)
    dwords = assemble_file(os.path.join(KERNEL_DIR, row.source), symbols)
    act = "" if activation is None else "_" + activation.lower()
    if integer is not None:
        zero_points = "".join(f"_{role.lower()}" for role in ("XZP", "WZP") if role in integer[3])
        name = (f"convolution_integer_direct_{integer[0].lower()}_{integer[1].lower()}{'_k4' if tile == 4 else ''}"
                f"{zero_points}")
    elif row.window_op == "CONVOLUTION":
        name = (f"convolution_{'backward_' if backward else ''}direct_{data_type.lower()}"
                f"{'_k4' if tile == 4 else ''}{'' if has_bias else '_no_bias'}{act}")
    else:
        name = (f"{operator.lower()}_{data_type.lower()}{'_include_padding' if include_padding else ''}"
                f"{f'_p{lp}' if lp else ''}{f'_indices_{indices.lower()}' if indices else ''}")
    return Program(dwords, name)


@functools.lru_cache(maxsize=None)
def build_unpooling_program(data_bytes, index_type, layout=LAYOUT):
    """Assemble and decode one variant of unpooling.s (cached): the element's size in bytes, the indices' type."""
    load, store, shift = _BY_BYTES[data_bytes]
    pair, index_pair = data_bytes == 8, index_type == "UINT64"
    records, step = layout.field("RECORDS").offset, layout.record_bytes
    symbols = {"LOAD": load, "STORE": store, "SHIFT": shift, "PAIR": int(pair), "INDEX_PAIR": int(index_pair),
               "X_REG": "v[22:23]" if pair else "v22", "ZERO_REG": "v[20:21]" if pair else "v20",
               "INDEX_LOAD": "dwordx2" if index_pair else "dword", "INDEX_SHIFT": 3 if index_pair else 2,
               "INDEX_REG": "v[24:25]" if index_pair else "v24", "DESC_T0": 0, "DESC_T1": 32,
               "HASH_SLOTS": UNPOOLING_HASH_SLOTS, "HASH_MASK": UNPOOLING_HASH_SLOTS - 1,
               "HASH_BASE": 4 * (UNPOOLING_THREADS + 1),
               "DESC_T2": 64, **{f"CB_UNPOOL_{name}": records + i * step
                                 for i, (name, _) in enumerate(UNPOOLING_RECORD_USE)}, **layout.symbols()}
    dwords = assemble_file(os.path.join(KERNEL_DIR, "unpooling.s"), symbols)
    return Program(dwords, f"max_unpooling_x{data_bytes}_{index_type.lower()}")


def compile_unpooling(tensors, layout, division_magic, packed_strides):
    """(program, constant buffer bytes, threads, threads per workgroup, workgroups, (), (), LDS bytes) of a validated
    MAX_UNPOOLING desc (unpooling.s: one workgroup zero-fills the output, then scatters the input 64 elements a
    trip in row-major order, the last of duplicate indices winning)."""
    x, indices, out = tensors
    x_sizes, x_strides = _strides(x, packed_strides)
    _, i_strides = _strides(indices, packed_strides)
    o_sizes, o_strides = _strides(out, packed_strides)
    u32 = lambda v: int(v) & 0xFFFFFFFF
    records = [{name: u32(v) for name, v in zip(_RECORD_FIELDS, (o_sizes[d], *division_magic(o_sizes[d]),
                                                                 o_strides[d], 0, 0, 0))} for d in (3, 2, 1, 0)]
    records += [{name: u32(v) for name, v in zip(_RECORD_FIELDS, (x_sizes[d], *division_magic(x_sizes[d]),
                                                                  x_strides[d], i_strides[d], 0, 0))}
                for d in (3, 2, 1, 0)]
    count = lambda sizes: sizes[0] * sizes[1] * sizes[2] * sizes[3]
    values = {"ELEMENTS": UNPOOLING_THREADS, "WORKGROUP_SIZE": UNPOOLING_THREADS, "RECORD_COUNT": len(records),
              "PARAM0": count(o_sizes), "PARAM1": count(x_sizes)}
    constants = layout.pack(values, records, params=True, wide=False)
    program = build_unpooling_program(_DATA_BYTES[out.data_type], indices.data_type, layout)
    return (program, constants, UNPOOLING_THREADS, UNPOOLING_THREADS, 1, (), (),
            4 * (UNPOOLING_THREADS + 1 + UNPOOLING_HASH_SLOTS))


def _three(values, fill):
    """A spatial tuple of 1 to 3 values as (W, H, D), the missing outer ones `fill`."""
    values = tuple(int(v) for v in values)[::-1]
    return values + (fill,) * (3 - len(values))


def _merged_spatial(sizes, strides):
    """The one (size, stride) the spatial dimensions merge into, or None where they do not (a dimension's stride is
    not the next one's stride times its size; dimensions of size 1 do not count)."""
    dims = [(size, stride) for size, stride in zip(sizes[2:], strides[2:]) if size != 1]
    if not dims:
        return 1, 0
    for (outer, outer_stride), (inner, inner_stride) in zip(dims, dims[1:]):
        if outer_stride != inner_stride * inner:
            return None
    total = 1
    for size, _ in dims:
        total *= size
    return total, dims[-1][1]


def gemm_path(tensors, attributes, packed_strides):
    """The TensorSpecs (A, B, C, output) of the GEMM that computes a validated CONVOLUTION desc, or None where the
    desc is no plain 1 x 1 convolution (see the module docstring)."""
    x, w, bias, out = tensors
    spatial = len(x.sizes) - 2
    if (int(attributes.get("Direction") or 0) != 0 or int(attributes.get("GroupCount") or 1) != 1
            or any(int(s) != 1 for s in w.sizes[2:]) or any(int(s) != 1 for s in attributes.get("Strides") or ())
            or any(int(p) for p in (attributes.get("StartPadding") or ()) + (attributes.get("EndPadding") or ()))
            or int(x.sizes[1]) < GEMM_MIN_CHANNELS):
        return None
    x_sizes, x_strides = _strides(x, packed_strides)
    w_sizes, w_strides = _strides(w, packed_strides)
    o_sizes, o_strides = _strides(out, packed_strides)
    x_plane, o_plane = _merged_spatial(x_sizes, x_strides), _merged_spatial(o_sizes, o_strides)
    if x_plane is None or o_plane is None or spatial < 0:
        return None
    (n, c), k, p = x_sizes[:2], w_sizes[0], x_plane[0]
    spec = lambda t, sizes, strides: replace(t, sizes=sizes, strides=strides)     # the same buffer, another view
    a = spec(x, (n, p, c), (x_strides[0], x_plane[1], x_strides[1]))          # A[n][p][c] = x[n, c, p]
    b = spec(w, (n, c, k), (0, w_strides[1], w_strides[0]))                   # B[n][c][k] = w[k, c]
    bias_spec = None if bias is None else spec(bias, (n, p, k), (0, 0, _strides(bias, packed_strides)[1][1]))
    o = spec(out, (n, p, k), (o_strides[0], o_plane[1], o_strides[1]))        # out[n][p][k] = out[n, k, p]
    return a, b, bias_spec, o


@functools.lru_cache(maxsize=None)
def _named(program, name):
    """The same program under the name that says which path a convolution took."""
    return Program(program.dwords, name)


def compile_window(operator, tensors, attributes, layout, no_kernel, division_magic, packed_strides, activation_of,
                   activation_symbols, preset=None):
    """(program, constant buffer bytes, elements, threads per workgroup, workgroups, group grid, thread grid, LDS
    bytes) of a validated CONVOLUTION or pooling desc (the grids are () but for the GEMM path's launch; a direct
    kernel's thread computes TILE_K elements where the desc allows); kernels/driver.py wraps them in a
    CompiledKernel. `no_kernel` is the NoKernel class to raise; `activation_of`
    and `activation_symbols` are the driver's (the FusedActivation's name and attributes; an element-wise kernel's
    symbols)."""
    row = OPERATORS[operator]
    if row.window_op == "UNPOOL":
        if tensors[-1].data_type not in row.types:
            raise no_kernel(f"dmlemu's kernel for {operator} serves {', '.join(row.types)}, not {tensors[-1].data_type}")
        return compile_unpooling(tensors, layout, division_magic, packed_strides)
    convolution = row.window_op == "CONVOLUTION"
    indices = None
    integer = wzp = None
    if row.integer:      # CONVOLUTION_INTEGER: the operands by role; the zero points' data go to the kernel apart
        roles = dict(row.roles)
        x, w, bias, out = tensors[roles["X"]], tensors[roles["W"]], None, tensors[roles["OUT"]]
        given = tuple(role for role in ("XZP", "WZP", "QBIAS", "OZP") if role in roles and tensors[roles[role]] is not None)
        integer = (x.data_type, w.data_type, row.roles, given)
        wzp = tensors[roles["WZP"]]
    elif convolution:
        x, w, bias, out = tensors
    else:        # a pooling: (x, out) or MAX_POOLING1 / 2's (x, out, indices or None)
        (x, out), w, bias = tensors[:2], None, None
        indices = tensors[2] if len(tensors) > 2 else None
    if out.data_type not in row.types:
        raise no_kernel(f"dmlemu's kernel for {operator} serves {', '.join(row.types)}, not {out.data_type}")
    backward = convolution and int(attributes.get("Direction") or 0) == 1   # the transposed convolution
    lp = int(attributes.get("P") or 0) if row.window_op == "LP" else 0
    if row.window_op == "LP" and lp not in (1, 2):
        raise no_kernel(f"dmlemu's kernel for {operator} serves P 1 and 2, not {lp}")
    gemm = gemm_path(tensors, attributes, packed_strides) if convolution and not row.integer else None
    if gemm is not None and conv_gemm_ops.takes_plain_one_by_one(tensors, attributes, preset):
        gemm = None              # on matrix units the implicit GEMM's WMMA variant serves it faster
    if gemm is not None:         # a 1 x 1 convolution: a matrix product per batch on gemm.s
        program, constants, group_grid, thread_grid, lds_bytes = gemm_ops.compile_gemm(
            "GEMM", gemm, {"TransA": 0, "TransB": 0, "Alpha": 1.0, "Beta": 1.0,
                           "FusedActivation": attributes.get("FusedActivation")},
            layout, no_kernel, division_magic, packed_strides, activation_of, activation_symbols,
            # FLOAT16 on matrix units: gemm.s's WMMA variant (no tap is padded: the same bits); else the VALU kernels
            preset if gemm_ops.uses_matrix_units(preset, out.data_type) else None)
        elements = 1
        for size in out.sizes:
            elements *= int(size)
        name = "convolution_gemm_" + program.name.removeprefix("gemm_").replace("_no_c", "_no_bias")
        return (_named(program, name), constants, elements, thread_grid[0] * thread_grid[1] * thread_grid[2],
                group_grid[0] * group_grid[1] * group_grid[2], group_grid, thread_grid, lds_bytes)
    if convolution and not row.integer and conv_gemm_ops.uses_implicit_gemm(tensors, attributes):
        return conv_gemm_ops.compile_conv_gemm(tensors, attributes, layout, no_kernel, division_magic,
                                               packed_strides, activation_of, activation_symbols, preset)
    if convolution and not row.integer and conv_depthwise_ops.uses_depthwise(tensors, attributes):
        return conv_depthwise_ops.compile_depthwise(tensors, attributes, layout, no_kernel, division_magic,
                                                    packed_strides, activation_of, activation_symbols)
    activation, activation_attributes = activation_of(attributes)
    if activation is not None and activation not in FUSABLE:
        raise no_kernel(f"dmlemu has no fused kernel body for the FusedActivation {activation}")
    act_params = [] if activation is None else list(ELEMENT_WISE_ROWS[activation].params)
    if len(act_params) > 4 or any(encoding != "f32" for _, encoding in act_params):
        raise no_kernel(f"dmlemu's kernel for {operator} cannot fuse {activation}'s attributes")
    x_sizes, x_strides = _strides(x, packed_strides)
    o_sizes, o_strides = _strides(out, packed_strides)
    spatial = len(x_sizes) - 2
    n, c = x_sizes[:2]
    if convolution:
        w_sizes, w_strides = _strides(w, packed_strides)
        groups = int(attributes.get("GroupCount") or 1)
        k, window = (w_sizes[1] * groups if backward else w_sizes[0]), w_sizes[2:]
    else:        # a pooling: a depthwise window without a filter (K = C = G)
        w_sizes, w_strides = (c, 1) + (1,) * spatial, (0,) * (2 + spatial)
        groups, k, window = c, c, tuple(attributes["WindowSize"])
    count = lambda name, fill: attributes.get(name) if attributes.get(name) is not None else (fill,) * spatial
    strides, dilations = _three(count("Strides", 1), 1), _three(count("Dilations", 1), 1)
    start = _three(count("StartPadding", 0), 0)
    c_group, k_group = c // groups, k // groups
    in_size, window, o_size = _three(x_sizes[2:], 1), _three(window, 1), _three(o_sizes[2:], 1)
    xs, ws, os_ = _three(x_strides[2:], 0), _three(w_strides[2:], 0), _three(o_strides[2:], 0)
    flip = convolution and int(attributes.get("Mode", 1)) == 0     # DML_CONVOLUTION_MODE_CONVOLUTION: flipped
    w_tap = tuple(-s if flip else s for s in ws)
    w_base = sum((window[d] - 1) * ws[d] for d in range(3)) if flip else 0
    u32 = lambda v: int(v) & 0xFFFFFFFF

    def record(*values):
        return {name: u32(v) for name, v in zip(_RECORD_FIELDS, values)}
    # BACKWARD: the filter's K/G stride plays w_k's part and its C stride w_c's; each stride's division magic takes
    # the slots FORWARD leaves free (RECORD_USE); the group's filter offset is corrected by `group_w`.
    w_k, w_c = (w_strides[1], w_strides[0]) if backward else (w_strides[0], w_strides[1])
    magic = [division_magic(strides[d]) if backward else (0, 0, 0) for d in range(3)]
    group_w = c_group * w_strides[0] - k_group * w_strides[1] if backward else 0
    # MAX indices: the indices tensor's strides and the input's packed (flat-index) strides, in fields a pooling
    # leaves free (RECORD_USE): field 5 of the W, H, D, K and GROUP records, field 6 of K, field 7 of WINDOW_H / _D
    spare = [(m[0], m[1]) for m in magic]            # fields 5 and 6 of the W, H, D records
    if indices is not None:
        _, i_strides = _strides(indices, packed_strides)
        spare = [(stride, 0) for stride in _three(i_strides[2:], 0)]
        w_k, w_c = i_strides[1], i_strides[0]
    records = [record(o_size[d], *division_magic(o_size[d]), xs[d], *spare[d], os_[d]) for d in range(3)]
    tile = TILE_K if convolution and k_group % TILE_K == 0 else 1    # output channels per thread
    plane = in_size[0] * in_size[1] * in_size[2]
    bias_k = plane if indices is not None else 0 if bias is None else _strides(bias, packed_strides)[1][1]
    if wzp is not None:     # CONVOLUTION_INTEGER: the filter zero point's K stride takes the bias's slot
        bias_k = _strides(wzp, packed_strides)[1][1]
    records.append(record(k // tile, *division_magic(k // tile), x_strides[1], w_k, bias_k, o_strides[1]))
    wide = row.integer and "OSCALE" in dict(row.roles)
    if wide:        # QUANTIZED_LINEAR_CONVOLUTION: the filter scale's and the bias's K strides (wide slots 5, 6)
        roles = dict(row.roles)
        channel_stride = lambda t: 0 if t is None else _strides(t, packed_strides)[1][1]
        records[-1]["STRIDE_T5"] = u32(channel_stride(tensors[roles["WSCALE"]]))
        records[-1]["STRIDE_T6"] = u32(channel_stride(tensors[roles["QBIAS"]]))
    records.append(record(k_group, *division_magic(k_group), x_strides[0], w_c, c_group * x_strides[1],
                          o_strides[0]))
    flat_steps = (group_w, in_size[0], in_size[0] * in_size[1]) if indices is not None else (group_w, 0, 0)
    records += [record(in_size[d], window[d], strides[d], dilations[d], start[d],
                       magic[d][2] if backward else dilations[d] * xs[d], w_tap[d], flat_steps[d])
                for d in range(3)]
    elements = n * k * o_size[0] * o_size[1] * o_size[2]
    threads = elements // tile
    include_padding = bool(attributes.get("IncludePadding"))
    second = f32_bits(float(window[0] * window[1] * window[2])) if row.window_op == "AVERAGE" else u32(w_base)
    values = {"ELEMENTS": threads, "WORKGROUP_SIZE": THREADS, "RECORD_COUNT": len(records),
              "PARAM0": c_group, "PARAM1": second}
    for i, (name, _) in enumerate(act_params):
        if activation_attributes.get(name) is None:
            raise ValueError(f"{activation} needs its attribute {name}")
        values[f"PARAM{2 + i}"] = f32_bits(float(activation_attributes[name]))
    constants = layout.pack(values, records, params=True, wide=wide)
    program = build_program(out.data_type, bias is not None, layout, activation,
                            activation_symbols if activation is not None else None, operator,
                            include_padding and row.window_op == "AVERAGE", backward, tile, lp,
                            None if indices is None else indices.data_type, integer)
    return program, constants, elements, THREADS, -(-threads // THREADS), (), (), 0


__all__ = ["THREADS", "GEMM_MIN_CHANNELS", "OPERATORS", "gemm_path", "RECORD_USE", "WindowOperator", "build_program", "compile_window",
           "variant_symbols", "UNPOOLING_RECORD_USE", "UNPOOLING_THREADS", "build_unpooling_program",
           "compile_unpooling"]
