"""The depthwise convolution: DML_OPERATOR_CONVOLUTION with one filter per channel on kernels/conv_depthwise_row.s
(3 x 3 filters) or kernels/conv_depthwise.s (the others).

A FORWARD convolution of one or two spatial dimensions whose GroupCount is its input and output channel count
(C = K = G: channel multiplier 1, the filter { C, 1, KH, KW }) does 9 multiply-adds per output for a 3 x 3 window:
nothing to reuse across channels, so a GEMM's tiles would stay empty and the direct kernel (kernels/window.s,
a load pair per tap) is bound by its own instruction issue. conv_depthwise.s does what GPU libraries do: a
workgroup of 16 x 4 threads takes a 16 x 16 tile of one channel's output plane, loads the input tile with its halo
once into LDS (one coalesced load per element, a padded element marked SKIP), the channel's KH x KW weights after
it, and each thread computes four output pixels (rows ty, ty + 4, ty + 8, ty + 12 of the tile) from LDS: each input
element is read from memory once per tile, every output written once. The order of every accumulator is
docs/NUMERICS.md's "Convolution" for one channel (kernel row, kernel column ascending; a padded tap skipped, never
fma(0, w, acc)), so the bits are those of the direct kernel and of the golden model (dmlemu.golden.convolution).

Which descs run it (`uses_depthwise`, asked by kernels/window_ops.compile_window after the GEMM and implicit-GEMM
paths): FORWARD, FLOAT32 or FLOAT16, one or two spatial dimensions, GroupCount = C = K (a channel multiplier of 1;
other multipliers stay on the direct kernel), an input tile at most MAX_TILE_WIDTH elements wide (15 Sw + (KW - 1)
Dw + 1) and, with the weights, at most MAX_LDS_BYTES of LDS, at most THREADS taps, Strides H at most MAX_STRIDE_H
and N C at most MAX_GROUPS_Z (the group grid's Z). Any strides, dilations,
padding, bias, FusedActivation and both modes (CONVOLUTION gives the filter negative strides along the window and
the flipped origin as its base, as window_ops does: the kernel never knows the mode). The program is named
convolution_depthwise_<type>[_sh<Strides H> above 1][_no_bias][_<activation>].

The 3 x 3 filters MobileNets are made of (`uses_row`: two spatial dimensions, a 3 x 3 filter, Strides H 1 or 2, any
Strides W, dilations 1, x and the output packed along W, the group grid's X at most MAX_GROUPS_X) run
conv_depthwise_row.s first, written as libraries write a memory-bound depthwise kernel: one thread per output column
and strip of ROW_PIXELS rows (8; 4 for Strides H 2), adjacent lanes on adjacent columns (each wave's load and store
one contiguous run), the thread's (P - 1) Sh + 3 input rows by 3 columns each loaded once into registers, the 9
weights loaded once (FLOAT32 with adjacent taps: two scalar loads): on the H200 preset, 1 x 128 x 56 x 56, 38 lane
issue cycles an output (9 of them its multiply-adds) where the LDS tile kernel issues 175. `row_block` splits the
plane: the interior block (every tap of every pixel inside the input) is handed out first and its waves run without
masks, every load in flight at once; the border's waves run under EXEC masks (a padded tap skipped). Its program is
convolution_depthwise_row_<type>[_sh2][_no_bias][_<activation>]; its constant buffer holds `ROW_RECORD_USE`
(CB_DWR_<record>). tools/conv_depthwise_row_s.py writes conv_depthwise_row.s and conv_depthwise_row_stores.inc (one
block per row of ROW_PIXELS).

The constant buffer's RECORDS hold what `RECORD_USE` says (the assembler symbol CB_DW_<record> is each record's
offset); PARAM0 .. the FusedActivation's attributes.
"""
import functools
import os

from dmlemu.isa.assembler import assemble_file
from dmlemu.isa.program import Program
from dmlemu.kernels.constant_buffer import LAYOUT, f32_bits
# The implicit GEMM's padded-element marker (a NaN no canonicalized load is), memory widths and record fields.
from dmlemu.kernels.conv_gemm_ops import SKIP, _FIELDS, _LOAD, _SHIFT, _STORE, _strides
from dmlemu.kernels.element_wise_ops import FUSABLE, OPERATORS as ELEMENT_WISE_ROWS

KERNEL_DIR = os.path.dirname(os.path.abspath(__file__))
SOURCE = "conv_depthwise.s"
TILE = 16                 # a workgroup's output tile: TILE x TILE pixels of one channel
THREADS = 64              # 16 x 4 threads, four pixels each (rows 4 apart)
MAX_TILE_WIDTH = THREADS  # the input tile's width: one column a thread in a load pass
PITCH = 64                # the LDS tile's row pitch in elements (its widest row: MAX_TILE_WIDTH)
PASSES_A_TRIP = 3         # load passes whose loads are in flight together
MAX_STRIDE_H = 4          # pixel j's LDS offset j 4 Sh PITCH 4 bytes is a ds_read immediate (below 16,384)
MAX_LDS_BYTES = 16384     # the input tile and the weights (FLOAT32): the least LDS a preset gives a workgroup
MAX_GROUPS_Z = 65535      # the group grid's Z (N C): D3D12_CS_DISPATCH_MAX_THREAD_GROUPS_PER_DIMENSION

# What each record of RECORDS holds for conv_depthwise.s, field by field in _FIELDS order (one table of the fact)
RECORD_USE = (
    ("TILE", ("IW_T", "IH_T", "ROWS = 64 / IW_T", "IW_T magic", "IW_T shift1", "IW_T shift2", "KW", "KH")),
    ("IN", ("IW", "IH", "stride W", "stride H", "dilation W", "dilation H", "start padding W", "start padding H")),
    ("OUT", ("OW", "OH", "C", "C magic", "C shift1", "C shift2", "trips = ceil(IH_T / ROWS / 3)", "-")),
    ("X", ("x stride N", "x stride C", "x stride H", "x stride W", "w stride K", "w tap step H", "w tap step W",
           "w base")),
    ("STRIDES", ("output stride N", "output stride C", "output stride H", "output stride W", "bias stride C",
                 "W's LDS byte = 4 PITCH IH_T", "a pass's LDS bytes = 4 PITCH ROWS", "-")),
    ("KW", ("KW", "KW magic", "KW shift1", "KW shift2", "KH KW", "a kernel row's LDS bytes = 4 PITCH Dh", "-",
            "a kernel column's LDS bytes = 4 Dw")),
)


# conv_depthwise_row.s: P output pixels of one column a thread, from registers (its banner)
ROW_SOURCE = "conv_depthwise_row.s"
ROW_PIXELS = {1: 8, 2: 4}  # Strides H it is written for -> P, the output rows a thread
ROW_THREADS = 64          # threads a workgroup, one dimension
ROW_WINDOW = (3, 3)       # the filter it is written for (its taps unrolled), Dilations 1
MAX_GROUPS_X = 65535      # the group grid's X: ceil(STRIPS OW / 64)

# What each record of RECORDS holds for conv_depthwise_row.s, field by field in _FIELDS order
ROW_RECORD_USE = (
    ("GRID", ("OW", "OW magic", "OW shift1", "OW shift2", "STRIPS OW", "output stride H << SHIFT_IN",
              "x stride H << SHIFT_IN", "w tap step H << SHIFT_IN")),
    ("IN", ("IW", "IH", "stride W", "stride H", "w tap step W << SHIFT_IN", "the lowest tap's offset (-8 flipped)",
            "start padding W", "start padding H")),
    ("OUT", ("OW", "OH", "C", "C magic", "C shift1", "C shift2", "BLOCK = NRI NI", "FULL = (STRIPS - NRI) OW")),
    ("X", ("x stride N", "x stride C", "x stride H", "x stride W", "w stride K", "w tap step H", "w tap step W",
           "w base")),
    ("STRIDES", ("output stride N", "output stride C", "output stride H", "output stride W", "bias stride C",
                 "R_LO", "S_LO", "NRI")),
    ("BLOCK", ("NI", "NI magic", "NI shift1", "NI shift2", "NE = OW - NI", "NE magic", "NE shift1", "NE shift2")),
)


def row_block(geometry):
    """The interior block of conv_depthwise_row.s (its banner): (R_LO, NRI, S_LO, NI) for `geometry`, a dict
    of OH, OW, IH, IW, Sh, Sw, Ph, Pw (a 3 x 3 filter, dilations 1): the strips of P output rows whose every
    input row is inside the input and every pixel inside the output, and the output columns whose three input
    columns are inside the input."""
    g, kh, kw = geometry, ROW_WINDOW[0], ROW_WINDOW[1]
    p = ROW_PIXELS[g["Sh"]]
    r_lo = -(-g["Ph"] // (p * g["Sh"]))
    r_hi = min((g["IH"] - 1 + g["Ph"] - (p - 1) * g["Sh"] - (kh - 1)) // (p * g["Sh"]) + 1, (g["OH"] - p) // p + 1)
    s_lo = -(-g["Pw"] // g["Sw"])
    s_hi = min((g["IW"] - kw + g["Pw"]) // g["Sw"] + 1, g["OW"])
    rows, columns = max(0, r_hi - r_lo), max(0, s_hi - s_lo)
    return (r_lo if rows else 0, rows, s_lo if columns else 0, columns)


def _two(attributes, name, fill, spatial):
    """A spatial attribute as (H, W); one spatial dimension has H of 1 (stride, dilation) or 0 (padding)."""
    values = tuple(int(v) for v in (attributes.get(name) or (fill,) * spatial))
    return ((fill,) if spatial == 1 else ()) + values


def tile_shape(w_sizes, attributes, spatial):
    """The input tile (IH_T, IW_T) a 16 x 16 output tile reads."""
    (sh, sw), (dh, dw) = _two(attributes, "Strides", 1, spatial), _two(attributes, "Dilations", 1, spatial)
    kh, kw = (1,) + tuple(w_sizes[2:]) if spatial == 1 else tuple(w_sizes[2:])
    height = 1 if spatial == 1 else (TILE - 1) * sh + (kh - 1) * dh + 1
    return height, (TILE - 1) * sw + (kw - 1) * dw + 1


def uses_depthwise(tensors, attributes):
    """Whether a validated CONVOLUTION desc (x, w, bias, out) runs conv_depthwise.s (the module docstring's rule)."""
    x, w, _, out = tensors
    spatial = len(x.sizes) - 2
    if int(attributes.get("Direction") or 0) != 0 or spatial not in (1, 2) or out.data_type not in _LOAD:
        return False
    groups, c, k = int(attributes.get("GroupCount") or 1), int(x.sizes[1]), int(w.sizes[0])
    if not groups == c == k or int(w.sizes[1]) != 1 or int(x.sizes[0]) * c > MAX_GROUPS_Z:
        return False
    if uses_row(tensors, attributes):
        return True
    taps = 1
    for size in w.sizes[2:]:
        taps *= int(size)
    height, width = tile_shape(w.sizes, attributes, spatial)
    stride_h = _two(attributes, "Strides", 1, spatial)[0]
    return (width <= MAX_TILE_WIDTH and taps <= THREADS and stride_h <= MAX_STRIDE_H
            and lds_bytes(height, taps) <= MAX_LDS_BYTES)


def _packed_w(spec):
    """Whether a tensor's elements along W (its last dimension) are adjacent: stride 1, or W of 1."""
    return spec.strides is None or int(spec.sizes[-1]) == 1 or int(spec.strides[-1]) == 1


def uses_row(tensors, attributes):
    """Whether a depthwise desc (the module docstring's rule) runs conv_depthwise_row.s: two spatial dimensions,
    a 3 x 3 filter, Strides H in ROW_PIXELS, Dilations 1, x and the output packed along W, the group grid's X in
    range."""
    x, w, _, out = tensors
    if int(attributes.get("Direction") or 0) != 0 or len(x.sizes) != 4 or out.data_type not in _LOAD:
        return False
    groups, c, k = int(attributes.get("GroupCount") or 1), int(x.sizes[1]), int(w.sizes[0])
    if not groups == c == k or int(w.sizes[1]) != 1 or int(x.sizes[0]) * c > MAX_GROUPS_Z:
        return False
    sh = _two(attributes, "Strides", 1, 2)[0]
    if tuple(int(v) for v in w.sizes[2:]) != ROW_WINDOW or sh not in ROW_PIXELS:
        return False
    strips = -(-int(out.sizes[2]) // ROW_PIXELS[sh])
    return (_two(attributes, "Dilations", 1, 2) == (1, 1) and _packed_w(x) and _packed_w(out)
            and -(-strips * int(out.sizes[3]) // ROW_THREADS) <= MAX_GROUPS_X)


def lds_bytes(height, taps):
    """The LDS of a workgroup: the tile T[IH_T][PITCH] and the weights W[KH KW], FLOAT32."""
    return 4 * (PITCH * height + taps)


def variant_symbols(data_type, has_bias, layout=LAYOUT, activation=None, activation_symbols=None, stride_h=1):
    """The assembler symbols of one variant of conv_depthwise.s; with `activation`, those the element-wise driver
    gives that activation's own kernel in FLOAT32 (`activation_symbols`), under this kernel's own; `stride_h` (Sh)
    sets pixel j's LDS offset J_STEP<j>. Without an activation the values the stores need live in v50 .. v57 (the
    body may use v10 .. v99, so with one they live in v100 .. v107): fewer VGPRs, more waves a SIMD."""
    saved = 100 if activation is not None else 50
    records, step = layout.field("RECORDS").offset, layout.record_bytes
    base = {} if activation is None else dict(activation_symbols(activation, "FLOAT32", True, False, False, layout))
    return {**base, "HAS_ACT": int(activation is not None), "HAS_BIAS": int(has_bias), "LOAD": _LOAD[data_type],
            "STORE": _STORE[data_type], "SHIFT_IN": _SHIFT[data_type], "WIDEN_F16": int(data_type == "FLOAT16"),
            "NARROW_F16": int(data_type == "FLOAT16"), "SKIP": hex(SKIP),
            **{f"J_STEP{j}": 4 * j * 4 * stride_h * PITCH for j in range(1, 4)},
            **{name: f"v{saved + i}" for i, name in enumerate(("ACC0", "ACC1", "ACC2", "ACC3", "OW_V", "OH_V",
                                                                "OUT_V", "BIAS_V"))},
            "DESC_X": 0, "DESC_W": 32, "DESC_BIAS": 64, "DESC_OUT": 96,
            **{f"CB_DW_{name}": records + i * step for i, (name, _) in enumerate(RECORD_USE)},
            **layout.symbols()}


@functools.lru_cache(maxsize=None)
def build_program(data_type, has_bias, layout=LAYOUT, activation=None, activation_symbols=None, stride_h=1):
    """Assemble and decode one variant of conv_depthwise.s (cached)."""
    if not 1 <= stride_h <= MAX_STRIDE_H:
        raise ValueError(f"conv_depthwise.s serves Strides H from 1 to {MAX_STRIDE_H}, not {stride_h}")
    symbols = variant_symbols(data_type, has_bias, layout, activation, activation_symbols, stride_h)
    dwords = assemble_file(os.path.join(KERNEL_DIR, SOURCE), symbols)
    act = "" if activation is None else "_" + activation.lower()
    return Program(dwords, f"convolution_depthwise_{data_type.lower()}{f'_sh{stride_h}' if stride_h > 1 else ''}"
                           f"{'' if has_bias else '_no_bias'}{act}")


def row_variant_symbols(data_type, has_bias, layout=LAYOUT, activation=None, activation_symbols=None, stride_h=1,
                        weights=None):
    """The assembler symbols of one variant of conv_depthwise_row.s: variant_symbols' (the same memory widths and
    activation), SH (`stride_h`) and P_SHIFT (log2 P), the column byte offsets COL1, COL2, the registers of
    the stores' values after the window's (v100 .. with an activation, whose body may use v10 .. v99), and
    W<kh><kw>, the register of each weight: with `weights` "packed" or "flipped" (FLOAT32, the filter's 9 taps
    adjacent, in tap order or reversed: SMEM_W) the scalar loads' s96 .. s104, else v11 .. v19."""
    smem = weights in ("packed", "flipped")
    taps = {f"W{kh}{kw}": (f"s{96 + (8 - 3 * kh - kw if weights == 'flipped' else 3 * kh + kw)}" if smem
                           else f"v{11 + 3 * kh + kw}") for kh in range(3) for kw in range(3)}
    records, step = layout.field("RECORDS").offset, layout.record_bytes
    size, pixels = 1 << _SHIFT[data_type], ROW_PIXELS[stride_h]
    saved = 100 if activation is not None else 20 + ROW_WINDOW[1] * ((pixels - 1) * stride_h + ROW_WINDOW[0])
    names = tuple(f"ACC{j}" for j in range(pixels)) + ("OW_V", "OH_V", "OUT_V", "BIAS_V")
    return {**variant_symbols(data_type, has_bias, layout, activation, activation_symbols), "SH": stride_h,
            "P_SHIFT": pixels.bit_length() - 1, "COL1": size, "COL2": 2 * size, "SMEM_W": int(smem), **taps,
            **{name: f"v{saved + i}" for i, name in enumerate(names)},
            **{f"CB_DWR_{name}": records + i * step for i, (name, _) in enumerate(ROW_RECORD_USE)}}


@functools.lru_cache(maxsize=None)
def build_row_program(data_type, has_bias, layout=LAYOUT, activation=None, activation_symbols=None, stride_h=1,
                      weights=None):
    """Assemble and decode one variant of conv_depthwise_row.s (cached); `weights` as row_variant_symbols."""
    if stride_h not in ROW_PIXELS:
        raise ValueError(f"conv_depthwise_row.s serves Strides H {tuple(ROW_PIXELS)}, not {stride_h}")
    symbols = row_variant_symbols(data_type, has_bias, layout, activation, activation_symbols, stride_h, weights)
    dwords = assemble_file(os.path.join(KERNEL_DIR, ROW_SOURCE), symbols)
    act = "" if activation is None else "_" + activation.lower()
    return Program(dwords, f"convolution_depthwise_row_{data_type.lower()}{f'_sh{stride_h}' if stride_h > 1 else ''}"
                           f"{'' if has_bias else '_no_bias'}{act}")


def compile_depthwise(tensors, attributes, layout, no_kernel, division_magic, packed_strides, activation_of,
                      activation_symbols):
    """(program, constant buffer bytes, elements, threads per workgroup, workgroups, group grid, thread grid, LDS
    bytes) of a validated CONVOLUTION desc that `uses_depthwise` accepts (window_ops.compile_window's tuple)."""
    x, w, bias, out = tensors
    activation, activation_attributes = activation_of(attributes)
    if activation is not None and activation not in FUSABLE:
        raise no_kernel(f"dmlemu has no fused kernel body for the FusedActivation {activation}")
    act_params = [] if activation is None else list(ELEMENT_WISE_ROWS[activation].params)
    if len(act_params) > 4 or any(encoding != "f32" for _, encoding in act_params):
        raise no_kernel(f"dmlemu's kernel for CONVOLUTION cannot fuse {activation}'s attributes")
    spatial = len(x.sizes) - 2
    x_sizes, x_strides = _strides(x, packed_strides)
    w_sizes, w_strides = _strides(w, packed_strides)
    o_sizes, o_strides = _strides(out, packed_strides)
    if spatial == 1:             # one spatial dimension: H of size 1, a window of 1
        x_sizes, x_strides = x_sizes[:2] + (1,) + x_sizes[2:], x_strides[:2] + (0,) + x_strides[2:]
        w_sizes, w_strides = w_sizes[:2] + (1,) + w_sizes[2:], w_strides[:2] + (0,) + w_strides[2:]
        o_sizes, o_strides = o_sizes[:2] + (1,) + o_sizes[2:], o_strides[:2] + (0,) + o_strides[2:]
    (sh, sw), (dh, dw) = _two(attributes, "Strides", 1, spatial), _two(attributes, "Dilations", 1, spatial)
    ph, pw = _two(attributes, "StartPadding", 0, spatial)
    n, c, ih, iw = x_sizes
    _, _, kh, kw = w_sizes
    oh, ow = o_sizes[2:]
    u32 = lambda v: int(v) & 0xFFFFFFFF
    record = lambda *values: {name: u32(v) for name, v in zip(_FIELDS, values)}
    flip = int(attributes.get("Mode", 1)) == 0        # DML_CONVOLUTION_MODE_CONVOLUTION: the filter flipped
    w_h, w_w = (-w_strides[2], -w_strides[3]) if flip else (w_strides[2], w_strides[3])
    w_base = ((kh - 1) * w_strides[2] + (kw - 1) * w_strides[3]) if flip else 0
    bias_c = 0 if bias is None else _strides(bias, packed_strides)[1][1]
    params = {}
    for i, (name, _) in enumerate(act_params):
        if activation_attributes.get(name) is None:
            raise ValueError(f"{activation} needs its attribute {name}")
        params[f"PARAM{i}"] = f32_bits(float(activation_attributes[name]))
    if uses_row(tensors, attributes):
        shift, pixels = _SHIFT[out.data_type], ROW_PIXELS[sh]
        strips = -(-oh // pixels)
        r_lo, nri, s_lo, ni = row_block(dict(OH=oh, OW=ow, IH=ih, IW=iw, Sh=sh, Sw=sw, Ph=ph, Pw=pw))
        records = [record(ow, *division_magic(ow), strips * ow, o_strides[2] << shift, x_strides[2] << shift,
                          w_h << shift),
                   record(iw, ih, sw, sh, w_w << shift, -8 if flip else 0, pw, ph),
                   record(ow, oh, c, *division_magic(c), nri * ni, (strips - nri) * ow),
                   record(*x_strides, w_strides[0], w_h, w_w, w_base),
                   record(*o_strides, bias_c, r_lo, s_lo, nri),
                   record(ni, *division_magic(max(1, ni)), ow - ni, *division_magic(max(1, ow - ni)))]
        group_grid = (-(-strips * ow // ROW_THREADS), 1, n * c)
        values = {"ELEMENTS": n * c * oh * ow, "WORKGROUP_SIZE": ROW_THREADS, "RECORD_COUNT": len(records), **params}
        constants = layout.pack(values, records, params=True, wide=False)
        adjacent = out.data_type == "FLOAT32" and (w_h, w_w) == ((-3, -1) if flip else (3, 1))
        program = build_row_program(out.data_type, bias is not None, layout, activation,
                                    activation_symbols if activation is not None else None, sh,
                                    ("flipped" if flip else "packed") if adjacent else None)
        return (program, constants, n * c * oh * ow, ROW_THREADS, group_grid[0] * n * c, group_grid,
                (ROW_THREADS, 1, 1), 0)
    height, width = tile_shape(tensors[1].sizes, attributes, spatial)
    rows = THREADS // width
    records = [record(width, height, rows, *division_magic(width), kw, kh),
               record(iw, ih, sw, sh, dw, dh, pw, ph),
               record(ow, oh, c, *division_magic(c), -(-height // (rows * PASSES_A_TRIP)), 0),
               record(*x_strides, w_strides[0], w_h, w_w, w_base),
               record(*o_strides, bias_c, 4 * PITCH * height, 4 * PITCH * rows, 0),
               record(kw, *division_magic(kw), kh * kw, 4 * PITCH * dh, 0, 4 * dw)]
    group_grid = (-(-ow // TILE), -(-oh // TILE), n * c)
    values = {"ELEMENTS": n * c * oh * ow, "WORKGROUP_SIZE": THREADS, "RECORD_COUNT": len(records), **params}
    constants = layout.pack(values, records, params=True, wide=False)
    program = build_program(out.data_type, bias is not None, layout, activation,
                            activation_symbols if activation is not None else None, sh)
    return (program, constants, n * c * oh * ow, THREADS, group_grid[0] * group_grid[1] * group_grid[2], group_grid,
            (TILE, THREADS // TILE, 1), lds_bytes(height, kh * kw))


__all__ = ["TILE", "THREADS", "MAX_GROUPS_Z", "MAX_TILE_WIDTH", "MAX_LDS_BYTES", "PITCH", "PASSES_A_TRIP", "MAX_STRIDE_H", "lds_bytes", "SKIP", "RECORD_USE", "tile_shape",
           "uses_depthwise", "variant_symbols", "build_program", "compile_depthwise", "ROW_SOURCE", "ROW_PIXELS",
           "ROW_THREADS", "ROW_WINDOW", "MAX_GROUPS_X", "ROW_RECORD_USE", "row_block", "uses_row",
           "row_variant_symbols", "build_row_program"]
