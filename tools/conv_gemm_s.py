"""Writes kernels/conv_gemm.s, the implicit-GEMM convolution, unrolled.

The kernel is straight-line code (four gathered rows of A, up to 16 filter columns of B, 16 fmas per k, 16 stores per
thread) that the assembler has no macros for; this script is its one source: the register plan (rows' origins
v60 .. v71, filter columns v136 .. v151, loads v36 .. v39 and v120 .. v135, acc v100 .. v115; the WMMA loop's byte
origins v192 .. v195 and columns v196 .. v211, second-half loads v72 .. v75 and v152 .. v167, fragments v[80:95],
v[40:47], v[168:191]) and the two loops (the fmas, `.if VALU_LOOP`; the WMMA steps, `.if WMMA`; both and the interior
vote, `.if SPLIT`) are written once here.
tests/directml/test_convolution_wmma.py checks that the committed file is what this writes.

    .venv/bin/python -m dmlemu.tools.conv_gemm_s        # rewrites kernels/conv_gemm.s
"""
import os

from dmlemu.kernels.conv_gemm_ops import WMMA_K_TILE as WMMA_K, WMMA_ROW_BYTES as ROW   # WMMA: k a tile, LDS row bytes

B_COLUMNS = 16      # filter columns a thread may gather (B_LOADS <= 256 / 16)
WMMA_ROWS_REG = 192     # WMMA: the four rows' window origins in x (bytes), v192 .. v195
WMMA_COLUMNS_REG = 196  # ... and the filter columns (bytes), v196 .. v211
TARGET = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "kernels", "conv_gemm.s")
HEADER = """; =============================================================================================
; conv_gemm.s: DML_OPERATOR_CONVOLUTION (FORWARD, 1 or 2 spatial dimensions) as an implicit GEMM.
; The GEMM view of group g (docs/NUMERICS.md, "Convolution"; kernels/conv_gemm_ops.py picks this kernel):
;   rows    m = (n OH + oh) OW + ow           M = N OH OW (a 1-D convolution has OH = 1)
;   columns j = the output channel inside g  Ng = K / G
;   k       k = (c KH + kh) KW + kw          Kg = C/G KH KW: channel, kernel row, kernel column
; A[m][k] = x[n, g C/G + c, oh Sh - Ph + kh Dh, ow Sw - Pw + kw Dw] (the im2col address rule; no
; im2col copy is ever made: the tile is gathered from x into LDS) and B[k][j] = w[g Ng + j, c, kh, kw],
; so k ascending IS the convolution's order: channel, kernel row, kernel column, each ascending.
;
; Launch: a grid of workgroups (X, Y, Z) = (ceil(Ng / 64), ceil(M / BLOCK_M), G) of 16 x BLOCK_M / 4
; threads (BLOCK_M a multiple of 4 from 16 to 64: conv_gemm_ops.block_rows); s4, s5, s6 the
; group's X, Y, Z, v1 = tx, v2 = ty (docs/KERNEL_ABI.md). Group (X, Y, g) computes the BLOCK_M x 64
; block of rows m0 = BLOCK_M Y .., columns n0 = 64 X ..; thread (tx, ty) the 4 x 4 register tile of rows
; m0 + 4 ty + i and columns n0 + 4 tx + j, acc[i][j] = v(100 + 4 i + j), as gemm.s does:
;
;   1. K goes in tiles of 16: thread (tx, ty) gathers A[m0 + ty + q BLOCK_M / 4][k0 + tx] (q = 0 ..
;      3) and B[k0 + tx][n0 + ty + q BLOCK_M / 4] (q < B_LOADS = ceil(256 / BLOCK_M), inside the
;      block's 64 columns): one k = k0 + tx, split once into (c, kh, kw) by division magic, serves
;      all its loads; it writes them to AsT[k][m] and Bs[k][n] in LDS (FLOAT16 widened, exact).
;      A tap in the padding (PADDED: the desc has padding) is not loaded: its A element is the
;      marker SKIP, a NaN no loaded value can be, because every loaded NaN is made the canonical
;      NaN first (a NaN x gives the canonical NaN through the fma anyway);
;   2. s_barrier; for each k of the tile, ascending (exactly min(16, k left) of them: never a k >=
;      Kg), two ds_read_b128 give a[0..3] = AsT[k][4 ty ..] and b[0..3] = Bs[k][4 tx ..] and each
;      row i takes acc[i][j] = fma(a[i], b[j], acc[i][j]) under the EXEC mask a[i] != SKIP: a padded
;      tap is skipped, never fma(0, w, acc), which would turn a -0 sum into +0 or a NaN weight into
;      NaN (docs/NUMERICS.md, "Convolution", step 2);
;   3. s_barrier before the next tile overwrites LDS. Software pipelining: the loads of tile t + 1
;      are issued before tile t's fmas (s_waitcnt INFLIGHT in the k loop lets them stay in flight),
;      then waited for, written to LDS and published by a second s_barrier;
;   4. per element (16, one at a time): acc + bias[k] (HAS_BIAS, one rounding), the FusedActivation's
;      own body (HAS_ACT, element_wise_bodies.inc, on v10 in FLOAT32), FLOAT16 rounds once, and the
;      store under the element's mask (m < M, j < Ng).
; acc starts at -0. Offsets are elements modulo 2^32 (a tap left of the input wraps; unsigned
; compares test 0 <= i < size at once; only taps inside the input are loaded).
;
; Constant buffer (RECORDS; conv_gemm_ops.RECORD_USE is the table):
;   record 0  OW, magic, shift1, shift2, Sw, Dw, Pw, IW     record 1  OH, .., Sh, Dh, Ph, IH
;   record 2  KH KW, magic, shift1, shift2, M, Kg, Ng, C/G  record 3  KW, magic, shift1, shift2
;   record 4  x strides N, C, H, W; w strides K, C, H, W (negative along the window in CONVOLUTION
;             mode: the filter flipped)
;   record 5  output strides N, K, H, W; the bias's K stride; the filter's base element
;   PARAM0 .. the FusedActivation's attributes (P_<NAME>)
; LDS: AsT[16][BLOCK_M] at 0, Bs[16][64] at B_BASE = 64 BLOCK_M (FLOAT32).
;
; The WMMA variant (WMMA: FLOAT16 without padding on a wave32 GPU with matrix units; conv_gemm_ops.
; uses_matrix_units; BLOCK_M a multiple of 16) keeps the launch, the rows and the stores and
; changes steps 1 to 3 (docs/NUMERICS.md, "Convolution", "On matrix units"):
;   1. K goes in tiles of 32 (WMMA_K_TILE): thread (tx, ty) gathers k0 + tx and k0 + tx + 16 (two
;      splits, both halves' loads in flight), FLOAT16 as loaded, into As[m][k] at 0 and BsT[n][k]
;      at H_BS (80-byte rows: 32 k and 8 halves of padding). No padding: every tap is inside the
;      input, so one mask, k < Kg, serves all its loads (A = -0 and B = +0 outside it: a product
;      -0 adds nothing); a row past M reads row M - 1, a column past Ng column Ng - 1 (never stored).
;      Addresses are in bytes: the rows' window origins (v68 ..), the filter columns (v136 ..);
;   2. wave w (v0 / 32; lane l) owns D's fragments of rows 16 (w / 2) .., columns 32 (w mod 2) +
;      16 g .. (g = 0, 1: acc v[100:107], v[108:115], from -0): per 16-k step it reads one A and two
;      B fragments (lanes 16 .. 31 the same addresses as 0 .. 15) and issues two
;      v_wmma_f32_16x16x16_f16 whose C is the accumulator: k ascending, one fma each;
;   3. after the last tile D goes through LDS (FLOAT32 Cs[BLOCK_M][64] over the tiles) into the
;      4 x 4 blocks acc[i][j] that step 4 stores.
; Its SPLIT form (a padded desc: conv_gemm_ops.uses_matrix_units's "interior") holds both loops: a
; block whose rows' windows all lie inside the input (ih0 < LIM_H and iw0 < LIM_W, unsigned; record
; 3; rows past M do not count), voted through one LDS word at FLAG, runs the WMMA loop, any other
; block the fmas, which skip its padded taps.
; ============================================================================================="""


def _setup(e):
    e("""    s_load_dwordx4 s[8:11], s[0:1], ${DESC_X}       ; x's buffer descriptor
    s_load_dwordx4 s[12:15], s[0:1], ${DESC_W}      ; w's
.if HAS_BIAS
    s_load_dwordx4 s[16:19], s[0:1], ${DESC_BIAS}   ; the bias's
.endif
    s_load_dwordx4 s[20:23], s[0:1], ${DESC_OUT}    ; the output's
    s_load_dwordx8 s[24:31], s[2:3], ${CB_CONV_GEMM_OW}      ; OW, magic, shift1, shift2, Sw, Dw, Pw, IW
    s_load_dwordx8 s[32:39], s[2:3], ${CB_CONV_GEMM_OH}      ; OH, magic, shift1, shift2, Sh, Dh, Ph, IH
    s_load_dwordx8 s[40:47], s[2:3], ${CB_CONV_GEMM_TAPS}    ; KH KW, magic, shift1, shift2, M, Kg, Ng, C/G
    s_load_dwordx8 s[48:55], s[2:3], ${CB_CONV_GEMM_KW}      ; KW, magic, shift1, shift2
    s_load_dwordx8 s[56:63], s[2:3], ${CB_CONV_GEMM_STRIDES} ; x N, C, H, W; w K, C, H, W
    s_load_dwordx8 s[64:71], s[2:3], ${CB_CONV_GEMM_OUT}     ; out N, K, H, W; bias K; w base
    s_waitcnt 0
    s_mov_b64 s[72:73], exec             ; every thread of the workgroup
    s_mul_i32 s74, s5, ${BLOCK_M}            ; m0 = BLOCK_M Y
    s_lshl_b32 s75, s4, 6                ; n0 = 64 X
    s_mov_b32 s76, s45                   ; k left: Kg
    s_mov_b32 s81, 0                     ; k0
    s_mul_i32 s77, s6, s47
    s_mul_i32 s77, s77, s57              ; g C/G x_C: the group's first input channel
    s_mul_i32 s78, s6, s46               ; g Ng: the group's first output channel
    s_mov_b32 s80, ${SKIP}               ; the padded tap's marker""")


def _split_m(e):
    """m (v20) into m / OW (v21), ow (v22), n (v23), oh (v24) by division magic."""
    e("""    v_mul_hi_u32 v21, v20, s25
    v_sub_u32 v22, v20, v21
    v_lshr_b32 v22, v22, s26
    v_add_u32 v21, v21, v22
    v_lshr_b32 v21, v21, s27             ; m / OW
    v_mul_lo_u32 v22, v21, s24
    v_sub_u32 v22, v20, v22              ; ow = m - (m / OW) OW
    v_mul_hi_u32 v23, v21, s33
    v_sub_u32 v24, v21, v23
    v_lshr_b32 v24, v24, s34
    v_add_u32 v23, v23, v24
    v_lshr_b32 v23, v23, s35             ; n = (m / OW) / OH
    v_mul_lo_u32 v24, v23, s32
    v_sub_u32 v24, v21, v24              ; oh""")


def _rows(e):
    e("; ---- the four rows this thread gathers, m = m0 + ty + q BLOCK_M / 4: their window origin and x offset -------")
    for q in range(4):
        e("    v_add_u32 v20, s74, v2")
        e(f"    v_add_u32 v20, v20, ${{A_ROW{q}}}             ; m = m0 + ty + {q} BLOCK_M / 4")
        e("    v_cmp_gt_u32 vcc, s44, v20")
        e(f"    s_mov_b64 s[{82 + 2 * q}:{83 + 2 * q}], vcc        ; m < M")
        _split_m(e)
        e(f"    v_mul_lo_u32 v{60 + q}, v24, s36")
        e(f"    v_sub_u32 v{60 + q}, v{60 + q}, s38          ; ih0 = oh Sh - Ph")
        e(f"    v_mul_lo_u32 v{64 + q}, v22, s28")
        e(f"    v_sub_u32 v{64 + q}, v{64 + q}, s30          ; iw0 = ow Sw - Pw")
        e(f"    v_mad_u32 v{68 + q}, v23, s56, s77         ; n x_N + g C/G x_C")
        e(".if WMMA")
        if q == 0:
            e("    v_sub_u32 v25, s44, 1                ; M - 1")
        e("    v_min_u32 v20, v20, v25              ; WMMA: a row past M reads row M - 1 (never stored)")
        _split_m(e)
        e("    v_mul_lo_u32 v24, v24, s36")
        e("    v_sub_u32 v24, v24, s38              ; ih0 = oh Sh - Ph")
        e("    v_mul_lo_u32 v22, v22, s28")
        e("    v_sub_u32 v22, v22, s30              ; iw0 = ow Sw - Pw")
        e(f"    v_mad_u32 v{WMMA_ROWS_REG + q}, v23, s56, s77")
        e(f"    v_mad_u32 v{WMMA_ROWS_REG + q}, v24, s58, v{WMMA_ROWS_REG + q}")
        e(f"    v_mad_u32 v{WMMA_ROWS_REG + q}, v22, s59, v{WMMA_ROWS_REG + q}")
        e(f"    v_lshl_b32 v{WMMA_ROWS_REG + q}, v{WMMA_ROWS_REG + q}, ${{SHIFT_IN}}     ; its window origin in x, in bytes")
        e(".endif")


def _filter_rows(e):
    e("; ---- the filter rows (output channels g Ng + n0 + ty + q BLOCK_M / 4, q < B_LOADS) it gathers ---------")
    e("    v_add_u32 v35, s75, v2               ; n0 + ty")
    e("    v_add_u32 v20, v35, s78")
    e(".if WMMA")
    e("    v_sub_u32 v25, s46, 1                ; Ng - 1")
    e(".endif")
    for q in range(B_COLUMNS):
        if q >= 4:
            e(f".if B_LOAD{q}")
        e(f"    v_add_u32 v21, v20, ${{B_COL{q}}}")
        e(f"    v_mad_u32 v{136 + q}, v21, s60, s69        ; w base + (g Ng + n0 + ty + {q} BLOCK_M / 4) w_K")
        e(".if WMMA")
        e(f"    v_add_u32 v21, v35, ${{B_COL{q}}}")
        e("    v_min_u32 v21, v21, v25              ; WMMA: a column past Ng reads column Ng - 1 (never stored)")
        e("    v_add_u32 v21, v21, s78")
        e(f"    v_mad_u32 v{WMMA_COLUMNS_REG + q}, v21, s60, s69")
        e(f"    v_lshl_b32 v{WMMA_COLUMNS_REG + q}, v{WMMA_COLUMNS_REG + q}, ${{SHIFT_IN}}     ; in bytes")
        e(".endif")
        if q >= 4:
            e(".endif")


def _lds_and_acc(e):
    e("""    v_mul_lo_u32 v32, v1, ${A_ROW_BYTES}
    v_lshl_b32 v33, v2, 2
    v_add_u32 v32, v32, v33              ; &AsT[tx][ty] = 4 BLOCK_M tx + 4 ty (q: + q BLOCK_M)
    v_lshl_b32 v34, v1, 8
    v_add_u32 v33, v34, v33              ; &Bs[tx][ty] - B_BASE = 256 tx + 4 ty""")
    e(".if WMMA")
    e(f"    v_mul_lo_u32 v12, v2, {ROW}")
    e("    v_lshl_b32 v34, v1, 1")
    e(f"    v_add_u32 v12, v12, v34              ; &As[ty][tx] = {ROW} ty + 2 tx (q: + q BLOCK_M / 4 rows; BsT: + H_BS)")
    e("    v_lshr_b32 v34, v0, 5                ; w: the wave")
    e("    v_lshr_b32 v18, v34, 1")
    e("    v_lshl_b32 v18, v18, 4               ; 16 (w / 2): its fragment row")
    e("    v_and_b32 v19, v0, 15                ; l mod 16: the row (column) this lane holds")
    e("    v_add_u32 v18, v18, v19")
    e(f"    v_mul_lo_u32 v18, v18, {ROW}            ; &As[16 (w / 2) + l mod 16][0]")
    e("    v_and_b32 v34, v34, 1")
    e("    v_lshl_b32 v34, v34, 5               ; 32 (w mod 2): its first fragment column")
    e("    v_add_u32 v19, v19, v34")
    e(f"    v_mul_lo_u32 v19, v19, {ROW}            ; &BsT[32 (w mod 2) + l mod 16][0] - H_BS (fragment g: + {16 * ROW} g)")
    e(".endif")
    for i in range(4):
        for j in range(4):
            e(f"    v_mov_b32 v{100 + 4 * i + j}, 0x80000000       ; acc[{i}][{j}] = -0")


def _split_k(e, k, mask):
    """k (a VGPR) into c, kh, kw: c x_C in v26, c w_C + kh w_H + kw w_W in v27, kh Dh in v23, kw Dw in v24; `mask`
    (an SGPR pair) k < Kg."""
    e(f"    v_cmp_gt_u32 vcc, s45, {k}")
    e(f"    s_mov_b64 {mask}, vcc              ; k < Kg")
    e(f"    v_mul_hi_u32 v21, {k}, s41")
    e(f"    v_sub_u32 v22, {k}, v21")
    e("""    v_lshr_b32 v22, v22, s42
    v_add_u32 v21, v21, v22
    v_lshr_b32 v21, v21, s43             ; c = k / (KH KW)
    v_mul_lo_u32 v22, v21, s40""")
    e(f"    v_sub_u32 v22, {k}, v22              ; r = kh KW + kw")
    e("""    v_mul_hi_u32 v23, v22, s49
    v_sub_u32 v24, v22, v23
    v_lshr_b32 v24, v24, s50
    v_add_u32 v23, v23, v24
    v_lshr_b32 v23, v23, s51             ; kh = r / KW
    v_mul_lo_u32 v24, v23, s48
    v_sub_u32 v24, v22, v24              ; kw
    v_mul_lo_u32 v26, v21, s57           ; c x_C
    v_mul_lo_u32 v27, v21, s61
    v_mad_u32 v27, v23, s62, v27
    v_mad_u32 v27, v24, s63, v27         ; c w_C + kh w_H + kw w_W
    v_mul_lo_u32 v23, v23, s37           ; kh Dh
    v_mul_lo_u32 v24, v24, s29           ; kw Dw""")


# WMMA: half h of a 32-k tile (k = k0 + tx + 16 h): its k < Kg mask, x and w offsets, A and B load registers
HALVES = (("s[98:99]", "v26", "v27", 36, 120), ("s[100:101]", "v16", "v17", 72, 152))


def _gather_wmma(e):
    """WMMA: split k0 + tx and k0 + tx + 16 and issue their loads (no padding: every tap inside the input; rows past M
    and columns past Ng clamped; one mask, k < Kg, outside which A = -0 and B = +0)."""
    for h, (mask, x_off, w_off, a_reg, b_reg) in enumerate(HALVES):
        e(f"    v_add_u32 v20, s81, v1               ; k = k0 + tx{' + 16' if h else ''}")
        if h:
            e("    v_add_u32 v20, v20, 16")
        _split_k(e, "v20", mask)
        e(f"    v_mad_u32 {x_off}, v23, s58, v26")
        e(f"    v_mad_u32 {x_off}, v24, s59, {x_off}")
        e(f"    v_lshl_b32 {x_off}, {x_off}, ${{SHIFT_IN}}     ; c x_C + kh Dh x_H + kw Dw x_W, in bytes")
        e(f"    v_lshl_b32 {w_off}, v27, ${{SHIFT_IN}}     ; c w_C + kh w_H + kw w_W, in bytes")
        for q in range(4):
            e(f"    v_mov_b32 v{a_reg + q}, ${{A_ZERO}}")
        for q in range(B_COLUMNS):
            if q >= 4:
                e(f".if B_LOAD{q}")
            e(f"    v_mov_b32 v{b_reg + q}, 0")
            if q >= 4:
                e(".endif")
        e(f"    s_mov_b64 exec, {mask}             ; k < Kg: else A = -0, B = +0")
        for q in range(4):
            e(f"    v_add_u32 v30, v{WMMA_ROWS_REG + q}, {x_off}")
            e(f"    buffer_load_${{LOAD}} v{a_reg + q}, v30, s[8:11], 0    ; A[m0 + ty + {q} BLOCK_M / 4][k]")
        for q in range(B_COLUMNS):
            if q >= 4:
                e(f".if B_LOAD{q}")
            e(f"    v_add_u32 v30, v{WMMA_COLUMNS_REG + q}, {w_off}")
            e(f"    buffer_load_${{LOAD}} v{b_reg + q}, v30, s[12:15], 0   ; B[k][n0 + ty + {q} BLOCK_M / 4]")
            if q >= 4:
                e(".endif")
        e("    s_mov_b64 exec, s[72:73]")


def _gather(e):
    """Split this thread's k = k0 + tx and issue its loads of A (four rows) and B (B_LOADS columns)."""
    e("    v_add_u32 v20, s81, v1               ; k")
    _split_k(e, "v20", "s[98:99]")
    for q in range(4):
        e(f"    v_add_u32 v28, v{60 + q}, v23              ; ih")
        e(f"    v_add_u32 v29, v{64 + q}, v24              ; iw")
        e(f"    v_mov_b32 v{36 + q}, 0")
        e("    v_cmp_gt_u32 vcc, s39, v28")
        e("    s_and_b64 s[100:101], vcc, s[98:99]")
        e("    v_cmp_gt_u32 vcc, s31, v29")
        e("    s_and_b64 s[100:101], s[100:101], vcc")
        e(f"    s_and_b64 s[100:101], s[100:101], s[{82 + 2 * q}:{83 + 2 * q}]   ; inside the input, k < Kg, m < M")
        e("    s_mov_b64 vcc, s[100:101]")
        e(f"    v_cndmask_b32 v{76 + q}, s80, 0, vcc       ; SKIP where not loaded, else 0")
        e(f"    v_mad_u32 v30, v28, s58, v{68 + q}")
        e("    v_mad_u32 v30, v29, s59, v30")
        e("    v_add_u32 v30, v30, v26")
        e("    v_lshl_b32 v30, v30, ${SHIFT_IN}")
        e("    s_mov_b64 exec, s[100:101]")
        e(f"    buffer_load_${{LOAD}} v{36 + q}, v30, s[8:11], 0    ; A[m0 + ty + {q} BLOCK_M / 4][k]")
        e("    s_mov_b64 exec, s[72:73]")
    for q in range(B_COLUMNS):
        if q >= 4:
            e(f".if B_LOAD{q}")
        e(f"    v_add_u32 v30, v35, ${{B_COL{q}}}")
        e("    v_cmp_gt_u32 vcc, s46, v30")
        e("    s_and_b64 exec, vcc, s[98:99]        ; column < Ng, k < Kg")
        e(f".if B_EDGE{q}")
        e(f"    v_add_u32 v31, v2, ${{B_COL{q}}}")
        e("    v_cmp_gt_u32 vcc, 64, v31")
        e("    s_and_b64 exec, exec, vcc            ; inside the block's 64 columns")
        e(".endif")
        e(f"    v_add_u32 v30, v{136 + q}, v27")
        e("    v_lshl_b32 v30, v30, ${SHIFT_IN}")
        e(f"    buffer_load_${{LOAD}} v{120 + q}, v30, s[12:15], 0   ; B[k][n0 + ty + {q} BLOCK_M / 4]")
        e("    s_mov_b64 exec, s[72:73]")
        if q >= 4:
            e(".endif")


def _write_lds_wmma(e):
    """WMMA: the loaded tile into LDS, FLOAT16 as loaded, into As[m][k] and BsT[n][k]."""
    for h, (_, _, _, a_reg, b_reg) in enumerate(HALVES):
        hi = "_HI" if h else ""
        for q in range(4):
            e(f"    ds_write_b16 v12, v{a_reg + q}, ${{H_A_OFF{q}{hi}}}        ; As[ty + {q} BLOCK_M / 4][tx + {16 * h}]")
        for q in range(B_COLUMNS):
            if q >= 4:
                e(f".if B_LOAD{q}")
            e(f".if B_EDGE{q}")
            e(f"    v_add_u32 v31, v2, ${{B_COL{q}}}")
            e("    v_cmp_gt_u32 vcc, 64, v31")
            e("    s_mov_b64 exec, vcc                  ; inside the block's 64 columns")
            e(".endif")
            e(f"    ds_write_b16 v12, v{b_reg + q}, ${{H_B_OFF{q}{hi}}}       ; BsT[ty + {q} BLOCK_M / 4][tx + {16 * h}]")
            e(f".if B_EDGE{q}")
            e("    s_mov_b64 exec, s[72:73]")
            e(".endif")
            if q >= 4:
                e(".endif")


def _write_lds(e):
    """The loaded tile into LDS: A widened (FLOAT16), NaNs canonical and SKIP where not loaded (PADDED); B widened."""
    for q in range(4):
        e(".if WIDEN_F16")
        e(f"    v_cvt_f32_f16 v{36 + q}, v{36 + q}")
        e(".endif")
        e(".if PADDED")
        e(f"    v_cmp_u_f32 vcc, v{36 + q}, v{36 + q}")
        e(f"    v_cndmask_b32 v{36 + q}, v{36 + q}, 0x7FC00000, vcc   ; a NaN x: the canonical NaN (never SKIP)")
        e(f"    v_or_b32 v{36 + q}, v{36 + q}, v{76 + q}       ; not loaded (0): SKIP")
        e(".endif")
        e(f"    ds_write_b32 v32, v{36 + q}, ${{A_OFF{q}}}        ; AsT[tx][ty + {q} BLOCK_M / 4]")
    for q in range(B_COLUMNS):
        if q >= 4:
            e(f".if B_LOAD{q}")
        e(".if WIDEN_F16")
        e(f"    v_cvt_f32_f16 v{120 + q}, v{120 + q}")
        e(".endif")
        e(f".if B_EDGE{q}")
        e(f"    v_add_u32 v31, v2, ${{B_COL{q}}}")
        e("    v_cmp_gt_u32 vcc, 64, v31")
        e("    s_mov_b64 exec, vcc                  ; inside the block's 64 columns")
        e(".endif")
        e(f"    ds_write_b32 v33, v{120 + q}, ${{B_OFF{q}}}       ; Bs[tx][ty + {q} BLOCK_M / 4]")
        e(f".if B_EDGE{q}")
        e("    s_mov_b64 exec, s[72:73]")
        e(".endif")
        if q >= 4:
            e(".endif")


def _wmma(e, last):
    """One tile's 32 k through two steps of two v_wmma_f32_16x16x16_f16 per wave (k0 .., then k0 + 16 ..): D(g) +=
    A(rows 16 (w / 2) ..) x B(columns 32 (w mod 2) + 16 g ..); k past Kg hold A = -0 and B = +0 (a product -0: adds
    nothing). Both steps' fragments are read first; `last`: no loads in flight behind them."""
    sets = (("v[80:87]", "v[88:95]", "v[40:47]"), ("v[168:175]", "v[176:183]", "v[184:191]"))
    for step, (a, b0, b1) in enumerate(sets):
        lo = lambda r: int(r[2:r.index(":")])
        hi = "32" if step else ""
        e(f"    ds_read_b128 v[{lo(a)}:{lo(a) + 3}], v18, {32 * step}        ; A fragment: k0 + {16 * step} .. + 7")
        e(f"    ds_read_b128 v[{lo(a) + 4}:{lo(a) + 7}], v18, {32 * step + 16}       ; .. + 15")
        e(f"    ds_read_b128 v[{lo(b0)}:{lo(b0) + 3}], v19, ${{H_BS{hi}}}  ; B fragment 0")
        e(f"    ds_read_b128 v[{lo(b0) + 4}:{lo(b0) + 7}], v19, ${{H_BS{'48' if step else '16'}}}")
        e(f"    ds_read_b128 v[{lo(b1)}:{lo(b1) + 3}], v19, ${{H_BS_G1{'_32' if step else ''}}}  ; B fragment 1 (16 columns on)")
        e(f"    ds_read_b128 v[{lo(b1) + 4}:{lo(b1) + 7}], v19, ${{H_BS_G1_{'48' if step else '16'}}}")
    for step, (a, b0, b1) in enumerate(sets):
        wait = ("6" if step == 0 else "0") if last else ("${W_INFLIGHT6}" if step == 0 else "${W_INFLIGHT}")
        e(f"    s_waitcnt {wait}                     ; step {step}'s six fragment reads have landed")
        e(f"    v_wmma_f32_16x16x16_f16 v[100:107], {a}, {b0}, v[100:107]   ; D(0), k0 + {16 * step} .. ascending")
        e(f"    v_wmma_f32_16x16x16_f16 v[108:115], {a}, {b1}, v[108:115]   ; D(1)")


def _fmas(e, label, wait):
    """One tile's k, ascending, 16 fmas each under the rows' SKIP masks; `wait`: the loads that may stay in flight."""
    e("    v_lshl_b32 v18, v2, 4                ; &AsT[0][4 ty]")
    e("    v_lshl_b32 v19, v1, 4                ; &Bs[0][4 tx] - B_BASE")
    e("    s_mov_b32 s100, s79")
    e(f"{label}:")
    e("    ds_read_b128 v[40:43], v18, 0        ; a[0..3] = A[m0 + 4 ty .. + 3][k]")
    e("    ds_read_b128 v[44:47], v19, ${B_BASE}   ; b[0..3] = B[k][n0 + 4 tx .. + 3]")
    e(f"    s_waitcnt {wait}")
    for i in range(4):
        e(".if PADDED")
        e(f"    v_cmp_ne_u32 vcc, s80, v{40 + i}")
        e(f"    s_mov_b64 exec, vcc                  ; row {i}'s tap inside the input")
        e(".endif")
        for j in range(4):
            acc = 100 + 4 * i + j
            e(f"    v_fma_f32 v{acc}, v{40 + i}, v{44 + j}, v{acc}   ; acc[{i}][{j}] = fma(a[{i}], b[{j}], acc[{i}][{j}])")
        e(".if PADDED")
        e("    s_mov_b64 exec, s[72:73]")
        e(".endif")
    e("""    v_add_u32 v18, v18, ${A_ROW_BYTES}          ; next k: one row of AsT
    v_add_u32 v19, v19, 256              ; one row of Bs
    s_sub_u32 s100, s100, 1
    s_cmp_lg_u32 s100, 0""")
    e(f"    s_cbranch_scc1 {label}")


def _fragments_to_tiles(e):
    """WMMA: each wave's two D fragments through LDS (FLOAT32 Cs[BLOCK_M][64] over the tiles) into the 4 x 4 blocks
    acc[i][j] = v(100 + 4 i + j) of rows m0 + 4 ty + i, columns n0 + 4 tx + j that step 4 stores."""
    e("    s_barrier                            ; every wave is done with the tiles: Cs may overwrite them")
    e("    v_lshr_b32 v34, v0, 5                ; w")
    e("    v_lshr_b32 v18, v34, 1")
    e("    v_lshl_b32 v18, v18, 4               ; 16 (w / 2)")
    e("    v_lshr_b32 v19, v0, 4")
    e("    v_and_b32 v19, v19, 1                ; l / 16")
    e("    v_add_u32 v18, v18, v19              ; D's row 16 (w / 2) + l / 16 (+ 2 i)")
    e("    v_and_b32 v34, v34, 1")
    e("    v_lshl_b32 v34, v34, 5")
    e("    v_and_b32 v19, v0, 15")
    e("    v_add_u32 v19, v19, v34              ; its column 32 (w mod 2) + l mod 16 (+ 16 g)")
    e("    v_lshl_b32 v18, v18, 6")
    e("    v_add_u32 v18, v18, v19")
    e("    v_lshl_b32 v18, v18, 2               ; &Cs[row][column]")
    for g in range(2):
        for i in range(8):
            e(f"    ds_write_b32 v18, v{100 + 8 * g + i}, {64 * g + 512 * i}" + (f"            ; D({g})" if i == 0 else ""))
    e("    s_barrier                            ; the block in Cs")
    e("    v_lshl_b32 v18, v2, 10")
    e("    v_lshl_b32 v19, v1, 4")
    e("    v_add_u32 v18, v18, v19              ; &Cs[4 ty][4 tx]")
    for i in range(4):
        e(f"    ds_read_b128 v[{100 + 4 * i}:{103 + 4 * i}], v18, {256 * i}        ; acc[{i}][0 .. 3]")
    e("    s_waitcnt 0")


def _finish(e):
    e("""
; ---- 4. per element e = 4 i + j: bias, the FusedActivation, narrow, store under its mask ----------------
; The activation's body may use v10 .. v99, s38, s39 and s44 .. s51 (P_<NAME>): what the stores need
; moves to v116 .. v119 and s88 .. s95 first; acc[0][0] is v100 and the accumulators move down by one a trip.
finish:
    s_mov_b32 s88, s44                   ; M
    s_mov_b32 s89, s46                   ; Ng
.if HAS_ACT
    s_load_dwordx4 s[44:47], s[2:3], ${CB_PARAM0}   ; the activation's attributes (P_<NAME>)
    s_waitcnt 0
.endif
    v_lshl_b32 v116, v2, 2
    v_add_u32 v116, s74, v116            ; m0 + 4 ty
    v_lshl_b32 v117, v1, 2
    v_add_u32 v117, s75, v117            ; n0 + 4 tx
    s_mov_b32 s91, 0                     ; e
element:
    s_lshr_b32 s92, s91, 2               ; i
    s_and_b32 s93, s91, 3                ; j
    v_add_u32 v118, s92, v116            ; m
    v_add_u32 v119, s93, v117            ; j
    v_cmp_gt_u32 vcc, s88, v118
    s_mov_b64 s[94:95], vcc
    v_cmp_gt_u32 vcc, s89, v119
    s_and_b64 s[94:95], s[94:95], vcc    ; inside the output
    v_mul_hi_u32 v21, v118, s25
    v_sub_u32 v22, v118, v21
    v_lshr_b32 v22, v22, s26
    v_add_u32 v21, v21, v22
    v_lshr_b32 v21, v21, s27             ; m / OW
    v_mul_lo_u32 v22, v21, s24
    v_sub_u32 v22, v118, v22             ; ow
    v_mul_hi_u32 v23, v21, s33
    v_sub_u32 v24, v21, v23
    v_lshr_b32 v24, v24, s34
    v_add_u32 v23, v23, v24
    v_lshr_b32 v23, v23, s35             ; n
    v_mul_lo_u32 v24, v23, s32
    v_sub_u32 v24, v21, v24              ; oh
    v_mul_lo_u32 v120, v23, s64
    v_mad_u32 v120, v24, s66, v120
    v_mad_u32 v120, v22, s67, v120
    v_add_u32 v121, v119, s78            ; the output channel g Ng + j
    v_mad_u32 v120, v121, s65, v120      ; out[n, g Ng + j, oh, ow]
    v_mov_b32 v10, v100
.if HAS_BIAS
    v_mul_lo_u32 v21, v121, s68
    v_lshl_b32 v21, v21, ${SHIFT_IN}
    v_mov_b32 v20, 0
    s_mov_b64 exec, s[94:95]
    buffer_load_${LOAD} v20, v21, s[16:19], 0       ; bias[g Ng + j]
    s_waitcnt 0
    s_mov_b64 exec, s[72:73]
.if WIDEN_F16
    v_cvt_f32_f16 v20, v20
.endif
    v_add_f32 v10, v10, v20              ; acc + bias, rounded once
.endif
.if HAS_ACT
.include "element_wise_bodies.inc"       ; BODY: the activation's
.if CANONICALIZE
    v_mul_f32 v10, v10, 1.0              ; a selected NaN becomes the canonical NaN
.endif
.endif
.if NARROW_F16
    v_cvt_f16_f32 v10, v10               ; FLOAT16: rounded once, to nearest even
.endif
    v_lshl_b32 v120, v120, ${SHIFT_IN}
    s_mov_b64 exec, s[94:95]
    buffer_store_${STORE} v10, v120, s[20:23], 0
    s_mov_b64 exec, s[72:73]""")
    for r in range(100, 115):
        e(f"    v_mov_b32 v{r}, v{r + 1}")
    e("""    s_add_u32 s91, s91, 1
    s_cmp_lt_u32 s91, 16
    s_cbranch_scc1 element
    s_endpgm""")


def _interior(e):
    """SPLIT: whether every window of the block's rows (past M: none) lies inside the input (ih0 < IH - (KH - 1) Dh
    and iw0 < IW - (KW - 1) Dw, unsigned: record 3's LIM_H, LIM_W), voted through LDS at FLAG; a block that touches
    the padding goes to the fmas (valu_start)."""
    e("; ---- SPLIT: a block whose windows all lie inside the input runs the WMMA loop, else the fmas ----------------")
    e("    s_mov_b64 s[98:99], s[72:73]         ; the lanes whose rows are inside so far")
    for q in range(4):
        e(f"    v_cmp_gt_u32 vcc, s52, v{60 + q}")
        e("    s_mov_b64 s[100:101], vcc")
        e(f"    v_cmp_gt_u32 vcc, s53, v{64 + q}")
        e(f"    s_and_b64 s[100:101], s[100:101], vcc   ; row {q}'s window inside the input")
        e(f"    s_not_b64 vcc, s[{82 + 2 * q}:{83 + 2 * q}]")
        e(f"    s_or_b64 s[100:101], s[100:101], vcc    ; or past M")
        e("    s_and_b64 s[98:99], s[98:99], s[100:101]")
    e("    v_mov_b32 v21, ${FLAG}               ; the vote's word in LDS")
    e("    v_mov_b32 v20, 1")
    e("    v_cmp_eq_u32 vcc, 0, v0")
    e("    s_mov_b64 exec, vcc")
    e("    ds_write_b32 v21, v20, 0             ; thread 0: inside (1)")
    e("    s_mov_b64 exec, s[72:73]")
    e("    s_barrier")
    e("    s_not_b64 s[100:101], s[98:99]")
    e("    s_and_b64 exec, s[100:101], s[72:73]")
    e("    v_mov_b32 v20, 0")
    e("    ds_write_b32 v21, v20, 0             ; a thread with a row that touches the padding: 0")
    e("    s_mov_b64 exec, s[72:73]")
    e("    s_barrier")
    e("    ds_read_b32 v20, v21, 0")
    e("    s_waitcnt 0")
    e("    v_cmp_eq_u32 vcc, 1, v20")
    e("    s_cbranch_vccz valu_start            ; the block touches the padding: the fmas skip its padded taps")


def _wmma_loop(e):
    """WMMA: tile 0 into LDS, then per 32-k tile the next tile's loads, this tile's WMMAs, the loaded tile into LDS;
    then D into the 4 x 4 blocks."""
    e("; ---- WMMA: 1. gather tile 0 (32 k); per tile: the next tile's loads, 2. this tile's WMMAs, 3. LDS --------")
    _gather_wmma(e)
    e("    s_waitcnt 0")
    _write_lds_wmma(e)
    e("    s_barrier                            ; tile 0 complete")
    e("wmma_tile:")
    e(f"    s_cmp_le_u32 s76, {WMMA_K}")
    e("    s_cbranch_scc1 wmma_last             ; no tile behind this one")
    e(f"    s_add_u32 s81, s81, {WMMA_K}               ; the next tile's k0")
    _gather_wmma(e)
    _wmma(e, False)
    e("    s_barrier                            ; 3. every wave is done with this tile in LDS")
    e("    s_waitcnt 0                          ; the next tile's loads have landed")
    _write_lds_wmma(e)
    e("    s_barrier                            ; the next tile complete")
    e(f"    s_sub_u32 s76, s76, {WMMA_K}")
    e("    s_branch wmma_tile")
    e("wmma_last:")
    _wmma(e, True)
    _fragments_to_tiles(e)


def source():
    """The text of kernels/conv_gemm.s."""
    lines = []
    e = lines.append
    e(HEADER)
    _setup(e)
    _rows(e)
    _filter_rows(e)
    _lds_and_acc(e)
    e(".if SPLIT")
    _interior(e)
    e(".endif")
    e(".if WMMA")
    _wmma_loop(e)
    e(".if VALU_LOOP")
    e("    s_branch finish")
    e(".endif")
    e(".endif")
    e(".if VALU_LOOP")
    e("valu_start:")
    e("")
    e("; ---- 1. gather tile 0 (k0 = 0) into LDS; then per tile: issue the next tile's loads (k0 + 16), multiply")
    e("; this one (2.), and only then wait for them, write them to LDS and go on (their latency under the fmas) ----")
    _gather(e)
    e("    s_waitcnt 0")
    _write_lds(e)
    e("    s_barrier                            ; tile 0 complete")
    e("tile:")
    e("    s_mov_b32 s79, 16")
    e("    s_cmp_le_u32 s76, 16")
    e("    s_cbranch_scc1 last_tile             ; no tile behind this one")
    e("    s_add_u32 s81, s81, 16               ; the next tile's k0")
    _gather(e)
    e("; ---- 2. this tile's 16 k, ascending: 16 fmas each, row i under the mask a[i] != SKIP (the next tile's loads")
    e(";      in flight: INFLIGHT of them)")
    _fmas(e, "k_next", "${INFLIGHT}")
    e("    s_barrier                            ; 3. every wave is done with this tile in LDS")
    e("    s_waitcnt 0                          ; the next tile's loads have landed")
    _write_lds(e)
    e("    s_barrier                            ; the next tile complete")
    e("    s_sub_u32 s76, s76, 16")
    e("    s_branch tile")
    e("last_tile:")
    e("    s_mov_b32 s79, s76                   ; the last tile: exactly its k")
    _fmas(e, "k_last", "0")
    e(".endif")
    _finish(e)
    return "\n".join(lines) + "\n"


def main():
    with open(TARGET, "w", encoding="utf-8") as f:
        f.write(source())


if __name__ == "__main__":
    main()
