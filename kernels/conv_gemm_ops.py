"""The implicit-GEMM convolution: DML_OPERATOR_CONVOLUTION as a tiled matrix product on kernels/conv_gemm.s.

A FORWARD convolution of one or two spatial dimensions is, per group g, the GEMM out[m][j] = sum over k of
A[m][k] B[k][j] with rows m = (n OH + oh) OW + ow (M = N OH OW), columns j the group's output channels (Ng = K / G)
and k = (c KH + kh) KW + kw (Kg = C/G KH KW); A[m][k] is the input at the im2col address (n, g C/G + c,
oh Sh - Ph + kh Dh, ow Sw - Pw + kw Dw) and B[k][j] the filter at (g Ng + j, c, kh, kw). No im2col matrix is ever
made: each workgroup gathers its 64 x 16 tile of A from the input into LDS through that address rule, and the
16 x 64 tile of B from the filter, then multiplies them as kernels/gemm.s does (16 x 16 threads, a 4 x 4 register
tile each, K in tiles of 16). Because k ascending is (channel, kernel row, kernel column) ascending, every
accumulator sees docs/NUMERICS.md's "Convolution" order: the same bits as the direct kernel (kernels/window.s) and
the golden model (dmlemu.golden.convolution). A tap in the padding is marked in LDS and skipped under the EXEC
mask, never fma(0, w, acc); the bias is one rounded add; the FusedActivation runs the activation operator's own
body; FLOAT16 is widened and rounds once at the store.

Which kernel a CONVOLUTION runs (kernels/window_ops.compile_window asks `uses_implicit_gemm`), as DirectML picks
a shader per desc:
  * a plain 1 x 1 convolution (strides 1, no padding, one group, C >= window_ops.GEMM_MIN_CHANNELS): gemm.s
    itself (window_ops.gemm_path, program convolution_gemm_..);
  * else FORWARD, one or two spatial dimensions, Kg = C/G KH KW >= MIN_REDUCTION (the sum is long enough to
    fill K tiles) and Ng = K/G >= MIN_CHANNELS (a 64-wide column block is at least a quarter used): this
    implicit GEMM (program convolution_implicit_gemm_..), e.g. every 3 x 3 convolution of 8 or more channels
    into 16 or more;
  * a depthwise convolution (GroupCount = C = K, 1-D or 2-D, FORWARD): kernels/conv_depthwise.s
    (kernels/conv_depthwise_ops.py's `uses_depthwise`, program convolution_depthwise_..);
  * everything else on the direct kernel (convolution_direct_.., convolution_backward_direct_..): other
    small-group convolutions (Kg = KH KW, Ng of a few channels: nothing to reuse across a tile), tiny ones, three
    spatial dimensions and BACKWARD (the transposed convolution's taps are a scatter, not one im2col rule).

On matrix units (`uses_matrix_units`, the one rule, docs/NUMERICS.md, "Convolution", "On matrix units": FLOAT16, a
preset where gemm.s's FLOAT16 GEMM runs WMMA, and no padding, so no tap is ever in the padding) the kernel is
conv_gemm.s's WMMA variant (program convolution_implicit_gemm_float16_wmma_..): BLOCK_M a multiple of 16, K in FLOAT16
LDS tiles of WMMA_K_TILE = 32 (As[m][k], BsT[n][k], WMMA_ROW_BYTES a row), each wave's two 16 x 16 fragments of D
through two v_wmma_f32_16x16x16_f16 a 16-k step, D through LDS into the 4 x 4 blocks that the VALU variant's step 4
stores; rows past M and columns past Ng are clamped (read, never stored), k past Kg are A = -0 and B = +0 (a product
-0 adds nothing). It also takes the plain 1 x 1 convolutions its rule accepts (`takes_plain_one_by_one`): its block
follows the grid where gemm.s's WMMA block is 128 x 64. A padded desc whose BLOCK_M is a multiple of 16 runs the
SPLIT variant (convolution_implicit_gemm_float16_wmma_interior_..): each workgroup votes whether every window of its
rows lies inside the input (record 3's LIM_H and LIM_W) and runs the WMMA loop if so, the fmas (padded taps skipped)
if not. The same bits as every other convolution kernel.
tools/conv_gemm_s.py writes kernels/conv_gemm.s (both variants).

The constant buffer's eight RECORDS hold what `RECORD_USE` says (the assembler symbol CB_CONV_GEMM_<record> is
each record's offset); PARAM0 .. the FusedActivation's attributes. CONVOLUTION mode gives the filter negative
strides along the window and the flipped origin as its base (as window_ops does), so the kernel never knows the
mode.
"""
import functools
import os

from dmlemu.isa.assembler import assemble_file
from dmlemu.isa.program import Program
from dmlemu.kernels import gemm_ops
from dmlemu.kernels.constant_buffer import LAYOUT, f32_bits
from dmlemu.kernels.element_wise_ops import FUSABLE, OPERATORS as ELEMENT_WISE_ROWS
from dmlemu.kernels.element_moves import load_suffixes, shifts, store_suffixes

KERNEL_DIR = os.path.dirname(os.path.abspath(__file__))
SOURCE = "conv_gemm.s"
THREADS = 16              # 16 x BLOCK_M / 4 threads per workgroup
BLOCK = 64                # a workgroup's block: BLOCK_M rows (output positions) x 64 columns (output channels)
BLOCK_ROWS = (64, 32, 16) # BLOCK_M, largest first (the fill rule's; the one-per-SIMD rule takes any multiple of 4
                          # from 16 to 64): `block_rows` picks one per desc
FILL_WORKGROUPS = 2048    # block_rows takes the largest BLOCK_M whose grid has at least this many workgroups
K_TILE = 16               # the reduction goes in tiles of 16 (channel, kernel row, kernel column) steps
MIN_REDUCTION = 64        # Kg = C/G KH KW at least this: otherwise the direct kernel
MIN_CHANNELS = 16         # Ng = K/G at least this: otherwise the direct kernel
SKIP = 0x7FA00001         # a padded tap's A element in LDS: a NaN that no loaded (canonicalized) value is
WMMA_K_TILE = 32          # the WMMA variant's reduction goes in tiles of 32 k (two WMMA steps), in FLOAT16 LDS rows of
WMMA_ROW_BYTES = 80       # ... 32 k and 8 halves of padding (As[BLOCK_M][40], BsT[64][40])
WMMA_ROWS = 16            # ... whose BLOCK_M is a multiple of 16 (whole fragments of 16 rows)
_FLOATS = ("FLOAT32", "FLOAT16")
_LOAD, _STORE, _SHIFT = load_suffixes(_FLOATS), store_suffixes(_FLOATS), shifts(_FLOATS)
_FIELDS = ("SIZE", "MAGIC", "SHIFT1", "SHIFT2", "STRIDE_T0", "STRIDE_T1", "STRIDE_T2", "STRIDE_T3")

# What each record of RECORDS holds for conv_gemm.s, field by field in _FIELDS order (one table of the fact)
RECORD_USE = (
    ("OW", ("OW", "OW magic", "OW shift1", "OW shift2", "stride W", "dilation W", "start padding W", "IW")),
    ("OH", ("OH", "OH magic", "OH shift1", "OH shift2", "stride H", "dilation H", "start padding H", "IH")),
    ("TAPS", ("KH KW", "KH KW magic", "KH KW shift1", "KH KW shift2", "M = N OH OW", "Kg = C/G KH KW",
              "Ng = K/G", "C/G")),
    ("KW", ("KW", "KW magic", "KW shift1", "KW shift2", "LIM_H = IH - (KH - 1) Dh, at least 0",
            "LIM_W = IW - (KW - 1) Dw, at least 0", "-", "-")),     # LIM: the interior test (ih0 < LIM_H, iw0 < LIM_W)
    ("STRIDES", ("x stride N", "x stride C", "x stride H", "x stride W", "w stride K", "w stride C",
                 "w tap step H", "w tap step W")),
    ("OUT", ("output stride N", "output stride K", "output stride H", "output stride W", "bias stride K",
             "w base", "-", "-")),
)


def _strides(spec, packed_strides):
    """(sizes, strides) of a tensor spec, packed strides where it has none (window_ops and the depthwise
    kernel use this one too)."""
    sizes = tuple(int(s) for s in spec.sizes)
    strides = tuple(int(s) for s in (spec.strides if spec.strides is not None else packed_strides(sizes)))
    # a dimension of size 1 has only coordinate 0: its stride never matters (0 keeps the offsets small)
    return sizes, tuple(0 if size == 1 else stride for size, stride in zip(sizes, strides))


def uses_implicit_gemm(tensors, attributes):
    """Whether a validated CONVOLUTION desc (x, w, bias, out) runs conv_gemm.s (the module docstring's rule; the
    1 x 1 GEMM path is asked first)."""
    x, w, _, out = tensors
    if int(attributes.get("Direction") or 0) != 0 or len(x.sizes) not in (3, 4):
        return False
    if out.data_type not in _LOAD:
        return False
    groups = int(attributes.get("GroupCount") or 1)
    taps = 1
    for size in w.sizes[2:]:
        taps *= int(size)
    return int(w.sizes[1]) * taps >= MIN_REDUCTION and int(w.sizes[0]) // groups >= MIN_CHANNELS


def takes_plain_one_by_one(tensors, attributes, preset):
    """Whether a plain 1 x 1 convolution (window_ops.gemm_path's) runs here rather than on gemm.s: on matrix units
    (`uses_matrix_units`, no padding) where `uses_implicit_gemm` accepts it, because this kernel's WMMA block follows
    the grid (block_rows) where gemm.s's WMMA block is 128 x 64 (bench/bench_conv_wmma.py: 1.2x to 2.1x fewer
    modelled cycles on the RX 7900 XTX, 56 x 56 .. 112 x 112, 64 and 256 channels)."""
    return uses_matrix_units(preset, tensors[3].data_type, False) is not None and uses_implicit_gemm(tensors, attributes)


def block_rows(m, ng, groups, simds=None):
    """BLOCK_M for a GEMM view of M rows, Ng columns and G groups on a device of `simds` SIMDs (None: unknown), as
    a library picks a tile shape by size, each thread keeping its 4 x 4 tile (a workgroup with LDS and barriers runs
    on one SIMD): a grid that a block of at most 64 rows fits into one workgroup per SIMD takes the smallest such
    BLOCK_M (a multiple of 4, at least 16: every SIMD at most one workgroup, so none finishes a second one while
    the others idle); else the largest of BLOCK_ROWS whose grid has at least FILL_WORKGROUPS workgroups, else the
    smallest."""
    blocks = -(-ng // BLOCK) * groups
    if simds:
        for rows in range(BLOCK_ROWS[-1], BLOCK_ROWS[0] + 1, 4):
            if -(-m // rows) * blocks <= simds:
                return rows
    for rows in BLOCK_ROWS:
        if -(-m // rows) * blocks >= FILL_WORKGROUPS:
            return rows
    return BLOCK_ROWS[-1]


def lds_bytes(rows, wmma=False, split=False):
    """The LDS of a workgroup of BLOCK_M `rows`: AsT[16][rows] and Bs[16][64], FLOAT32; WMMA: As[rows][40] and
    BsT[64][40] FLOAT16, or the FLOAT32 block Cs[rows][64] that the epilogue puts over them, the larger; `split`
    (both loops): the largest of the three and the interior vote's word after them (`flag_offset`)."""
    if split:
        return flag_offset(rows) + 4
    if wmma:
        return max((rows + BLOCK) * WMMA_ROW_BYTES, rows * BLOCK * 4)
    return K_TILE * (rows + BLOCK) * 4


def flag_offset(rows):
    """The split kernel's interior vote: one dword of LDS after every tile either loop lays out."""
    return max(lds_bytes(rows), lds_bytes(rows, True))


def uses_matrix_units(preset, data_type, padded, rows=WMMA_ROWS):
    """Which blocks of an implicit-GEMM convolution run v_wmma_f32_16x16x16_f16 (the one rule; docs/NUMERICS.md,
    "Convolution", "On matrix units"): where gemm.s's FLOAT16 GEMM does (kernels/gemm_ops.uses_matrix_units: FLOAT16,
    a wave32 preset with matrix units), "all" of them for a desc without padding (conv_gemm.s's WMMA variant; BLOCK_M
    rounded up to a multiple of 16); with padding, where the BLOCK_M `rows` that block_rows picks is a multiple of 16
    (else rounding it up would cost more than the matrix units give: bench/bench_conv_wmma.py), "interior": a block
    every window of whose rows lies inside the input (the SPLIT variant tests each block as it starts and runs the
    fmas, skipping padded taps, on the others), because a matrix instruction cannot skip a tap in the padding. None:
    every block on the fmas."""
    if not gemm_ops.uses_matrix_units(preset, data_type):
        return None
    if not padded:
        return "all"
    return "interior" if rows % WMMA_ROWS == 0 else None


def variant_symbols(data_type, has_bias, padded, layout=LAYOUT, activation=None, activation_symbols=None, rows=64,
                    wmma=None):
    """The assembler symbols of one variant of conv_gemm.s (BLOCK_M `rows`); with `activation`, those the
    element-wise driver gives that activation's own kernel in FLOAT32 (`activation_symbols`), under this kernel's
    own."""
    records, step = layout.field("RECORDS").offset, layout.record_bytes
    base = {} if activation is None else dict(activation_symbols(activation, "FLOAT32", True, False, False, layout))
    quarter = rows // 4          # the thread grid's height: rows apart of a thread's gathered A rows / B columns
    loads = -(-BLOCK // quarter)   # B loads a thread (the last one's columns may pass the block's 64: masked)
    block = {"BLOCK_M": rows, "A_ROW_BYTES": 4 * rows, "B_BASE": 4 * K_TILE * rows, "B_LOADS": loads,
             "INFLIGHT": 4 + loads,    # the next tile's loads while this tile's fmas run
             **{f"A_ROW{q}": q * quarter for q in range(4)},
             **{f"A_OFF{q}": 4 * q * quarter for q in range(4)},
             **{f"B_LOAD{q}": int(q < loads) for q in range(4 * BLOCK // BLOCK_ROWS[-1])},
             **{f"B_EDGE{q}": int(q * quarter + quarter > BLOCK) for q in range(4 * BLOCK // BLOCK_ROWS[-1])},
             **{f"B_COL{q}": q * quarter for q in range(4 * BLOCK // BLOCK_ROWS[-1])},
             **{f"B_OFF{q}": 4 * K_TILE * rows + 4 * q * quarter for q in range(4 * BLOCK // BLOCK_ROWS[-1])}}
    h_bs = rows * WMMA_ROW_BYTES                 # the WMMA variant's FLOAT16 tiles: BsT after As[rows][24]
    h_g1 = h_bs + 16 * WMMA_ROW_BYTES            # B's second fragment: 16 columns on
    block.update({"WMMA": int(wmma is not None), "VALU_LOOP": int(wmma != "all"), "SPLIT": int(wmma == "interior"),
                  "FLAG": flag_offset(rows), "A_ZERO": 0x8000,    # WMMA: A past Kg is -0 (a product -0)
                  "W_INFLIGHT": 2 * (4 + loads), "W_INFLIGHT6": 2 * (4 + loads) + 6,   # a WMMA tile's loads in flight
                  **{f"H_BS{o or ''}": h_bs + o for o in (0, 16, 32, 48)},
                  **{f"H_BS_G1{'_' + str(o) if o else ''}": h_g1 + o for o in (0, 16, 32, 48)},
                  **{f"H_A_OFF{q}{hi}": q * quarter * WMMA_ROW_BYTES + o for q in range(4) for hi, o in (("", 0), ("_HI", 32))},
                  **{f"H_B_OFF{q}{hi}": h_bs + q * quarter * WMMA_ROW_BYTES + o
                     for q in range(4 * BLOCK // BLOCK_ROWS[-1]) for hi, o in (("", 0), ("_HI", 32))}})
    return {**base, **block, "HAS_ACT": int(activation is not None), "HAS_BIAS": int(has_bias), "PADDED": int(padded),
            "LOAD": _LOAD[data_type], "STORE": _STORE[data_type], "SHIFT_IN": _SHIFT[data_type],
            "WIDEN_F16": int(data_type == "FLOAT16"), "NARROW_F16": int(data_type == "FLOAT16"), "SKIP": hex(SKIP),
            "DESC_X": 0, "DESC_W": 32, "DESC_BIAS": 64, "DESC_OUT": 96,
            **{f"CB_CONV_GEMM_{name}": records + i * step for i, (name, _) in enumerate(RECORD_USE)},
            **layout.symbols()}


@functools.lru_cache(maxsize=None)
def build_program(data_type, has_bias, padded, layout=LAYOUT, activation=None, activation_symbols=None, rows=64,
                  wmma=None):
    """Assemble and decode one variant of conv_gemm.s (cached); `wmma` None (the fmas), "all" or "interior" (the
    blocks `uses_matrix_units` names)."""
    if rows % 4 or not BLOCK_ROWS[-1] <= rows <= BLOCK_ROWS[0]:
        raise ValueError(f"conv_gemm.s's BLOCK_M is a multiple of 4 from {BLOCK_ROWS[-1]} to {BLOCK_ROWS[0]}, not {rows}")
    if wmma is not None and (data_type != "FLOAT16" or padded != (wmma == "interior") or rows % WMMA_ROWS):
        raise ValueError(f"conv_gemm.s's WMMA variants serve FLOAT16 ('all' without padding, 'interior' with it) and a "
                         f"BLOCK_M that is a multiple of {WMMA_ROWS}, not {wmma!r} for {data_type}"
                         f"{' with' if padded else ' without'} padding, BLOCK_M {rows}")
    symbols = variant_symbols(data_type, has_bias, padded, layout, activation, activation_symbols, rows, wmma)
    dwords = assemble_file(os.path.join(KERNEL_DIR, SOURCE), symbols)
    act = "" if activation is None else "_" + activation.lower()
    kind = {None: "", "all": "_wmma", "interior": "_wmma_interior"}[wmma]
    return Program(dwords, f"convolution_implicit_gemm_{data_type.lower()}{kind}_m{rows}"
                           f"{'' if has_bias else '_no_bias'}"
                           f"{'' if padded else '_unpadded'}{act}")


def compile_conv_gemm(tensors, attributes, layout, no_kernel, division_magic, packed_strides, activation_of,
                      activation_symbols, preset=None):
    """(program, constant buffer bytes, elements, threads per workgroup, workgroups, group grid, thread grid, LDS
    bytes) of a validated CONVOLUTION desc that `uses_implicit_gemm` accepts (window_ops.compile_window's tuple);
    `preset` (the adapter's, or None) sizes the block (block_rows)."""
    x, w, bias, out = tensors
    activation, activation_attributes = activation_of(attributes)
    if activation is not None and activation not in FUSABLE:
        raise no_kernel(f"dmlemu has no fused kernel body for the FusedActivation {activation}")
    act_params = [] if activation is None else list(ELEMENT_WISE_ROWS[activation].params)
    if len(act_params) > 4 or any(encoding != "f32" for _, encoding in act_params):
        raise no_kernel(f"dmlemu's kernel for CONVOLUTION cannot fuse {activation}'s attributes")
    x_sizes, x_strides = _strides(x, packed_strides)
    w_sizes, w_strides = _strides(w, packed_strides)
    o_sizes, o_strides = _strides(out, packed_strides)
    if len(x_sizes) == 3:        # one spatial dimension: H of size 1, a window of 1
        x_sizes, x_strides = x_sizes[:2] + (1,) + x_sizes[2:], x_strides[:2] + (0,) + x_strides[2:]
        w_sizes, w_strides = w_sizes[:2] + (1,) + w_sizes[2:], w_strides[:2] + (0,) + w_strides[2:]
        o_sizes, o_strides = o_sizes[:2] + (1,) + o_sizes[2:], o_strides[:2] + (0,) + o_strides[2:]
    spatial = len(tensors[0].sizes) - 2
    two = lambda name, fill: (((fill,) if spatial == 1 else ())
                              + tuple(int(v) for v in (attributes.get(name) or (fill,) * spatial)))
    (sh, sw), (dh, dw), (ph, pw) = two("Strides", 1), two("Dilations", 1), two("StartPadding", 0)
    end = two("EndPadding", 0)
    groups = int(attributes.get("GroupCount") or 1)
    n, c, ih, iw = x_sizes
    k, c_group, kh, kw = w_sizes
    oh, ow = o_sizes[2:]
    ng, taps = k // groups, kh * kw
    m, kg = n * oh * ow, c_group * taps
    flip = int(attributes.get("Mode", 1)) == 0        # DML_CONVOLUTION_MODE_CONVOLUTION: the filter flipped
    w_h, w_w = (-w_strides[2], -w_strides[3]) if flip else (w_strides[2], w_strides[3])
    w_base = ((kh - 1) * w_strides[2] + (kw - 1) * w_strides[3]) if flip else 0
    padded = any((ph, pw) + end)
    bias_k = 0 if bias is None else _strides(bias, packed_strides)[1][1]
    u32 = lambda v: int(v) & 0xFFFFFFFF
    record = lambda *values: {name: u32(v) for name, v in zip(_FIELDS, values)}
    records = [record(ow, *division_magic(ow), sw, dw, pw, iw), record(oh, *division_magic(oh), sh, dh, ph, ih),
               record(taps, *division_magic(taps), m, kg, ng, c_group),
               record(kw, *division_magic(kw), max(ih - (kh - 1) * dh, 0), max(iw - (kw - 1) * dw, 0)),
               record(*x_strides, w_strides[0], w_strides[1], w_h, w_w),
               record(*o_strides, bias_k, w_base)]
    rows = block_rows(m, ng, groups, None if preset is None else preset.compute_units * preset.simds_per_cu)
    wmma = uses_matrix_units(preset, out.data_type, padded, rows)
    if wmma is not None:     # whole fragments: BLOCK_M a multiple of 16 (16 .. 64, as BLOCK_ROWS)
        rows = -(-rows // WMMA_ROWS) * WMMA_ROWS
    group_grid = (-(-ng // BLOCK), -(-m // rows), groups)
    workgroups = group_grid[0] * group_grid[1] * group_grid[2]
    values = {"ELEMENTS": n * k * oh * ow, "WORKGROUP_SIZE": THREADS * rows // 4, "RECORD_COUNT": len(records)}
    for i, (name, _) in enumerate(act_params):
        if activation_attributes.get(name) is None:
            raise ValueError(f"{activation} needs its attribute {name}")
        values[f"PARAM{i}"] = f32_bits(float(activation_attributes[name]))
    constants = layout.pack(values, records, params=True, wide=False)
    program = build_program(out.data_type, bias is not None, padded, layout, activation,
                            activation_symbols if activation is not None else None, rows, wmma)
    return (program, constants, n * k * oh * ow, THREADS * rows // 4, workgroups, group_grid, (THREADS, rows // 4, 1),
            lds_bytes(rows, wmma is not None, wmma == "interior"))


__all__ = ["THREADS", "BLOCK", "BLOCK_ROWS", "FILL_WORKGROUPS", "K_TILE", "block_rows", "lds_bytes", "MIN_REDUCTION", "MIN_CHANNELS", "SKIP", "RECORD_USE",
           "uses_implicit_gemm", "uses_matrix_units", "takes_plain_one_by_one", "WMMA_ROW_BYTES", "WMMA_ROWS", "WMMA_K_TILE", "flag_offset", "variant_symbols", "build_program", "compile_conv_gemm"]
