; =============================================================================================
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
; =============================================================================================
    s_load_dwordx4 s[8:11], s[0:1], ${DESC_X}       ; x's buffer descriptor
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
    s_mov_b32 s80, ${SKIP}               ; the padded tap's marker
; ---- the four rows this thread gathers, m = m0 + ty + q BLOCK_M / 4: their window origin and x offset -------
    v_add_u32 v20, s74, v2
    v_add_u32 v20, v20, ${A_ROW0}             ; m = m0 + ty + 0 BLOCK_M / 4
    v_cmp_gt_u32 vcc, s44, v20
    s_mov_b64 s[82:83], vcc        ; m < M
    v_mul_hi_u32 v21, v20, s25
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
    v_sub_u32 v24, v21, v24              ; oh
    v_mul_lo_u32 v60, v24, s36
    v_sub_u32 v60, v60, s38          ; ih0 = oh Sh - Ph
    v_mul_lo_u32 v64, v22, s28
    v_sub_u32 v64, v64, s30          ; iw0 = ow Sw - Pw
    v_mad_u32 v68, v23, s56, s77         ; n x_N + g C/G x_C
.if WMMA
    v_sub_u32 v25, s44, 1                ; M - 1
    v_min_u32 v20, v20, v25              ; WMMA: a row past M reads row M - 1 (never stored)
    v_mul_hi_u32 v21, v20, s25
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
    v_sub_u32 v24, v21, v24              ; oh
    v_mul_lo_u32 v24, v24, s36
    v_sub_u32 v24, v24, s38              ; ih0 = oh Sh - Ph
    v_mul_lo_u32 v22, v22, s28
    v_sub_u32 v22, v22, s30              ; iw0 = ow Sw - Pw
    v_mad_u32 v192, v23, s56, s77
    v_mad_u32 v192, v24, s58, v192
    v_mad_u32 v192, v22, s59, v192
    v_lshl_b32 v192, v192, ${SHIFT_IN}     ; its window origin in x, in bytes
.endif
    v_add_u32 v20, s74, v2
    v_add_u32 v20, v20, ${A_ROW1}             ; m = m0 + ty + 1 BLOCK_M / 4
    v_cmp_gt_u32 vcc, s44, v20
    s_mov_b64 s[84:85], vcc        ; m < M
    v_mul_hi_u32 v21, v20, s25
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
    v_sub_u32 v24, v21, v24              ; oh
    v_mul_lo_u32 v61, v24, s36
    v_sub_u32 v61, v61, s38          ; ih0 = oh Sh - Ph
    v_mul_lo_u32 v65, v22, s28
    v_sub_u32 v65, v65, s30          ; iw0 = ow Sw - Pw
    v_mad_u32 v69, v23, s56, s77         ; n x_N + g C/G x_C
.if WMMA
    v_min_u32 v20, v20, v25              ; WMMA: a row past M reads row M - 1 (never stored)
    v_mul_hi_u32 v21, v20, s25
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
    v_sub_u32 v24, v21, v24              ; oh
    v_mul_lo_u32 v24, v24, s36
    v_sub_u32 v24, v24, s38              ; ih0 = oh Sh - Ph
    v_mul_lo_u32 v22, v22, s28
    v_sub_u32 v22, v22, s30              ; iw0 = ow Sw - Pw
    v_mad_u32 v193, v23, s56, s77
    v_mad_u32 v193, v24, s58, v193
    v_mad_u32 v193, v22, s59, v193
    v_lshl_b32 v193, v193, ${SHIFT_IN}     ; its window origin in x, in bytes
.endif
    v_add_u32 v20, s74, v2
    v_add_u32 v20, v20, ${A_ROW2}             ; m = m0 + ty + 2 BLOCK_M / 4
    v_cmp_gt_u32 vcc, s44, v20
    s_mov_b64 s[86:87], vcc        ; m < M
    v_mul_hi_u32 v21, v20, s25
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
    v_sub_u32 v24, v21, v24              ; oh
    v_mul_lo_u32 v62, v24, s36
    v_sub_u32 v62, v62, s38          ; ih0 = oh Sh - Ph
    v_mul_lo_u32 v66, v22, s28
    v_sub_u32 v66, v66, s30          ; iw0 = ow Sw - Pw
    v_mad_u32 v70, v23, s56, s77         ; n x_N + g C/G x_C
.if WMMA
    v_min_u32 v20, v20, v25              ; WMMA: a row past M reads row M - 1 (never stored)
    v_mul_hi_u32 v21, v20, s25
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
    v_sub_u32 v24, v21, v24              ; oh
    v_mul_lo_u32 v24, v24, s36
    v_sub_u32 v24, v24, s38              ; ih0 = oh Sh - Ph
    v_mul_lo_u32 v22, v22, s28
    v_sub_u32 v22, v22, s30              ; iw0 = ow Sw - Pw
    v_mad_u32 v194, v23, s56, s77
    v_mad_u32 v194, v24, s58, v194
    v_mad_u32 v194, v22, s59, v194
    v_lshl_b32 v194, v194, ${SHIFT_IN}     ; its window origin in x, in bytes
.endif
    v_add_u32 v20, s74, v2
    v_add_u32 v20, v20, ${A_ROW3}             ; m = m0 + ty + 3 BLOCK_M / 4
    v_cmp_gt_u32 vcc, s44, v20
    s_mov_b64 s[88:89], vcc        ; m < M
    v_mul_hi_u32 v21, v20, s25
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
    v_sub_u32 v24, v21, v24              ; oh
    v_mul_lo_u32 v63, v24, s36
    v_sub_u32 v63, v63, s38          ; ih0 = oh Sh - Ph
    v_mul_lo_u32 v67, v22, s28
    v_sub_u32 v67, v67, s30          ; iw0 = ow Sw - Pw
    v_mad_u32 v71, v23, s56, s77         ; n x_N + g C/G x_C
.if WMMA
    v_min_u32 v20, v20, v25              ; WMMA: a row past M reads row M - 1 (never stored)
    v_mul_hi_u32 v21, v20, s25
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
    v_sub_u32 v24, v21, v24              ; oh
    v_mul_lo_u32 v24, v24, s36
    v_sub_u32 v24, v24, s38              ; ih0 = oh Sh - Ph
    v_mul_lo_u32 v22, v22, s28
    v_sub_u32 v22, v22, s30              ; iw0 = ow Sw - Pw
    v_mad_u32 v195, v23, s56, s77
    v_mad_u32 v195, v24, s58, v195
    v_mad_u32 v195, v22, s59, v195
    v_lshl_b32 v195, v195, ${SHIFT_IN}     ; its window origin in x, in bytes
.endif
; ---- the filter rows (output channels g Ng + n0 + ty + q BLOCK_M / 4, q < B_LOADS) it gathers ---------
    v_add_u32 v35, s75, v2               ; n0 + ty
    v_add_u32 v20, v35, s78
.if WMMA
    v_sub_u32 v25, s46, 1                ; Ng - 1
.endif
    v_add_u32 v21, v20, ${B_COL0}
    v_mad_u32 v136, v21, s60, s69        ; w base + (g Ng + n0 + ty + 0 BLOCK_M / 4) w_K
.if WMMA
    v_add_u32 v21, v35, ${B_COL0}
    v_min_u32 v21, v21, v25              ; WMMA: a column past Ng reads column Ng - 1 (never stored)
    v_add_u32 v21, v21, s78
    v_mad_u32 v196, v21, s60, s69
    v_lshl_b32 v196, v196, ${SHIFT_IN}     ; in bytes
.endif
    v_add_u32 v21, v20, ${B_COL1}
    v_mad_u32 v137, v21, s60, s69        ; w base + (g Ng + n0 + ty + 1 BLOCK_M / 4) w_K
.if WMMA
    v_add_u32 v21, v35, ${B_COL1}
    v_min_u32 v21, v21, v25              ; WMMA: a column past Ng reads column Ng - 1 (never stored)
    v_add_u32 v21, v21, s78
    v_mad_u32 v197, v21, s60, s69
    v_lshl_b32 v197, v197, ${SHIFT_IN}     ; in bytes
.endif
    v_add_u32 v21, v20, ${B_COL2}
    v_mad_u32 v138, v21, s60, s69        ; w base + (g Ng + n0 + ty + 2 BLOCK_M / 4) w_K
.if WMMA
    v_add_u32 v21, v35, ${B_COL2}
    v_min_u32 v21, v21, v25              ; WMMA: a column past Ng reads column Ng - 1 (never stored)
    v_add_u32 v21, v21, s78
    v_mad_u32 v198, v21, s60, s69
    v_lshl_b32 v198, v198, ${SHIFT_IN}     ; in bytes
.endif
    v_add_u32 v21, v20, ${B_COL3}
    v_mad_u32 v139, v21, s60, s69        ; w base + (g Ng + n0 + ty + 3 BLOCK_M / 4) w_K
.if WMMA
    v_add_u32 v21, v35, ${B_COL3}
    v_min_u32 v21, v21, v25              ; WMMA: a column past Ng reads column Ng - 1 (never stored)
    v_add_u32 v21, v21, s78
    v_mad_u32 v199, v21, s60, s69
    v_lshl_b32 v199, v199, ${SHIFT_IN}     ; in bytes
.endif
.if B_LOAD4
    v_add_u32 v21, v20, ${B_COL4}
    v_mad_u32 v140, v21, s60, s69        ; w base + (g Ng + n0 + ty + 4 BLOCK_M / 4) w_K
.if WMMA
    v_add_u32 v21, v35, ${B_COL4}
    v_min_u32 v21, v21, v25              ; WMMA: a column past Ng reads column Ng - 1 (never stored)
    v_add_u32 v21, v21, s78
    v_mad_u32 v200, v21, s60, s69
    v_lshl_b32 v200, v200, ${SHIFT_IN}     ; in bytes
.endif
.endif
.if B_LOAD5
    v_add_u32 v21, v20, ${B_COL5}
    v_mad_u32 v141, v21, s60, s69        ; w base + (g Ng + n0 + ty + 5 BLOCK_M / 4) w_K
.if WMMA
    v_add_u32 v21, v35, ${B_COL5}
    v_min_u32 v21, v21, v25              ; WMMA: a column past Ng reads column Ng - 1 (never stored)
    v_add_u32 v21, v21, s78
    v_mad_u32 v201, v21, s60, s69
    v_lshl_b32 v201, v201, ${SHIFT_IN}     ; in bytes
.endif
.endif
.if B_LOAD6
    v_add_u32 v21, v20, ${B_COL6}
    v_mad_u32 v142, v21, s60, s69        ; w base + (g Ng + n0 + ty + 6 BLOCK_M / 4) w_K
.if WMMA
    v_add_u32 v21, v35, ${B_COL6}
    v_min_u32 v21, v21, v25              ; WMMA: a column past Ng reads column Ng - 1 (never stored)
    v_add_u32 v21, v21, s78
    v_mad_u32 v202, v21, s60, s69
    v_lshl_b32 v202, v202, ${SHIFT_IN}     ; in bytes
.endif
.endif
.if B_LOAD7
    v_add_u32 v21, v20, ${B_COL7}
    v_mad_u32 v143, v21, s60, s69        ; w base + (g Ng + n0 + ty + 7 BLOCK_M / 4) w_K
.if WMMA
    v_add_u32 v21, v35, ${B_COL7}
    v_min_u32 v21, v21, v25              ; WMMA: a column past Ng reads column Ng - 1 (never stored)
    v_add_u32 v21, v21, s78
    v_mad_u32 v203, v21, s60, s69
    v_lshl_b32 v203, v203, ${SHIFT_IN}     ; in bytes
.endif
.endif
.if B_LOAD8
    v_add_u32 v21, v20, ${B_COL8}
    v_mad_u32 v144, v21, s60, s69        ; w base + (g Ng + n0 + ty + 8 BLOCK_M / 4) w_K
.if WMMA
    v_add_u32 v21, v35, ${B_COL8}
    v_min_u32 v21, v21, v25              ; WMMA: a column past Ng reads column Ng - 1 (never stored)
    v_add_u32 v21, v21, s78
    v_mad_u32 v204, v21, s60, s69
    v_lshl_b32 v204, v204, ${SHIFT_IN}     ; in bytes
.endif
.endif
.if B_LOAD9
    v_add_u32 v21, v20, ${B_COL9}
    v_mad_u32 v145, v21, s60, s69        ; w base + (g Ng + n0 + ty + 9 BLOCK_M / 4) w_K
.if WMMA
    v_add_u32 v21, v35, ${B_COL9}
    v_min_u32 v21, v21, v25              ; WMMA: a column past Ng reads column Ng - 1 (never stored)
    v_add_u32 v21, v21, s78
    v_mad_u32 v205, v21, s60, s69
    v_lshl_b32 v205, v205, ${SHIFT_IN}     ; in bytes
.endif
.endif
.if B_LOAD10
    v_add_u32 v21, v20, ${B_COL10}
    v_mad_u32 v146, v21, s60, s69        ; w base + (g Ng + n0 + ty + 10 BLOCK_M / 4) w_K
.if WMMA
    v_add_u32 v21, v35, ${B_COL10}
    v_min_u32 v21, v21, v25              ; WMMA: a column past Ng reads column Ng - 1 (never stored)
    v_add_u32 v21, v21, s78
    v_mad_u32 v206, v21, s60, s69
    v_lshl_b32 v206, v206, ${SHIFT_IN}     ; in bytes
.endif
.endif
.if B_LOAD11
    v_add_u32 v21, v20, ${B_COL11}
    v_mad_u32 v147, v21, s60, s69        ; w base + (g Ng + n0 + ty + 11 BLOCK_M / 4) w_K
.if WMMA
    v_add_u32 v21, v35, ${B_COL11}
    v_min_u32 v21, v21, v25              ; WMMA: a column past Ng reads column Ng - 1 (never stored)
    v_add_u32 v21, v21, s78
    v_mad_u32 v207, v21, s60, s69
    v_lshl_b32 v207, v207, ${SHIFT_IN}     ; in bytes
.endif
.endif
.if B_LOAD12
    v_add_u32 v21, v20, ${B_COL12}
    v_mad_u32 v148, v21, s60, s69        ; w base + (g Ng + n0 + ty + 12 BLOCK_M / 4) w_K
.if WMMA
    v_add_u32 v21, v35, ${B_COL12}
    v_min_u32 v21, v21, v25              ; WMMA: a column past Ng reads column Ng - 1 (never stored)
    v_add_u32 v21, v21, s78
    v_mad_u32 v208, v21, s60, s69
    v_lshl_b32 v208, v208, ${SHIFT_IN}     ; in bytes
.endif
.endif
.if B_LOAD13
    v_add_u32 v21, v20, ${B_COL13}
    v_mad_u32 v149, v21, s60, s69        ; w base + (g Ng + n0 + ty + 13 BLOCK_M / 4) w_K
.if WMMA
    v_add_u32 v21, v35, ${B_COL13}
    v_min_u32 v21, v21, v25              ; WMMA: a column past Ng reads column Ng - 1 (never stored)
    v_add_u32 v21, v21, s78
    v_mad_u32 v209, v21, s60, s69
    v_lshl_b32 v209, v209, ${SHIFT_IN}     ; in bytes
.endif
.endif
.if B_LOAD14
    v_add_u32 v21, v20, ${B_COL14}
    v_mad_u32 v150, v21, s60, s69        ; w base + (g Ng + n0 + ty + 14 BLOCK_M / 4) w_K
.if WMMA
    v_add_u32 v21, v35, ${B_COL14}
    v_min_u32 v21, v21, v25              ; WMMA: a column past Ng reads column Ng - 1 (never stored)
    v_add_u32 v21, v21, s78
    v_mad_u32 v210, v21, s60, s69
    v_lshl_b32 v210, v210, ${SHIFT_IN}     ; in bytes
.endif
.endif
.if B_LOAD15
    v_add_u32 v21, v20, ${B_COL15}
    v_mad_u32 v151, v21, s60, s69        ; w base + (g Ng + n0 + ty + 15 BLOCK_M / 4) w_K
.if WMMA
    v_add_u32 v21, v35, ${B_COL15}
    v_min_u32 v21, v21, v25              ; WMMA: a column past Ng reads column Ng - 1 (never stored)
    v_add_u32 v21, v21, s78
    v_mad_u32 v211, v21, s60, s69
    v_lshl_b32 v211, v211, ${SHIFT_IN}     ; in bytes
.endif
.endif
    v_mul_lo_u32 v32, v1, ${A_ROW_BYTES}
    v_lshl_b32 v33, v2, 2
    v_add_u32 v32, v32, v33              ; &AsT[tx][ty] = 4 BLOCK_M tx + 4 ty (q: + q BLOCK_M)
    v_lshl_b32 v34, v1, 8
    v_add_u32 v33, v34, v33              ; &Bs[tx][ty] - B_BASE = 256 tx + 4 ty
.if WMMA
    v_mul_lo_u32 v12, v2, 80
    v_lshl_b32 v34, v1, 1
    v_add_u32 v12, v12, v34              ; &As[ty][tx] = 80 ty + 2 tx (q: + q BLOCK_M / 4 rows; BsT: + H_BS)
    v_lshr_b32 v34, v0, 5                ; w: the wave
    v_lshr_b32 v18, v34, 1
    v_lshl_b32 v18, v18, 4               ; 16 (w / 2): its fragment row
    v_and_b32 v19, v0, 15                ; l mod 16: the row (column) this lane holds
    v_add_u32 v18, v18, v19
    v_mul_lo_u32 v18, v18, 80            ; &As[16 (w / 2) + l mod 16][0]
    v_and_b32 v34, v34, 1
    v_lshl_b32 v34, v34, 5               ; 32 (w mod 2): its first fragment column
    v_add_u32 v19, v19, v34
    v_mul_lo_u32 v19, v19, 80            ; &BsT[32 (w mod 2) + l mod 16][0] - H_BS (fragment g: + 1280 g)
.endif
    v_mov_b32 v100, 0x80000000       ; acc[0][0] = -0
    v_mov_b32 v101, 0x80000000       ; acc[0][1] = -0
    v_mov_b32 v102, 0x80000000       ; acc[0][2] = -0
    v_mov_b32 v103, 0x80000000       ; acc[0][3] = -0
    v_mov_b32 v104, 0x80000000       ; acc[1][0] = -0
    v_mov_b32 v105, 0x80000000       ; acc[1][1] = -0
    v_mov_b32 v106, 0x80000000       ; acc[1][2] = -0
    v_mov_b32 v107, 0x80000000       ; acc[1][3] = -0
    v_mov_b32 v108, 0x80000000       ; acc[2][0] = -0
    v_mov_b32 v109, 0x80000000       ; acc[2][1] = -0
    v_mov_b32 v110, 0x80000000       ; acc[2][2] = -0
    v_mov_b32 v111, 0x80000000       ; acc[2][3] = -0
    v_mov_b32 v112, 0x80000000       ; acc[3][0] = -0
    v_mov_b32 v113, 0x80000000       ; acc[3][1] = -0
    v_mov_b32 v114, 0x80000000       ; acc[3][2] = -0
    v_mov_b32 v115, 0x80000000       ; acc[3][3] = -0
.if SPLIT
; ---- SPLIT: a block whose windows all lie inside the input runs the WMMA loop, else the fmas ----------------
    s_mov_b64 s[98:99], s[72:73]         ; the lanes whose rows are inside so far
    v_cmp_gt_u32 vcc, s52, v60
    s_mov_b64 s[100:101], vcc
    v_cmp_gt_u32 vcc, s53, v64
    s_and_b64 s[100:101], s[100:101], vcc   ; row 0's window inside the input
    s_not_b64 vcc, s[82:83]
    s_or_b64 s[100:101], s[100:101], vcc    ; or past M
    s_and_b64 s[98:99], s[98:99], s[100:101]
    v_cmp_gt_u32 vcc, s52, v61
    s_mov_b64 s[100:101], vcc
    v_cmp_gt_u32 vcc, s53, v65
    s_and_b64 s[100:101], s[100:101], vcc   ; row 1's window inside the input
    s_not_b64 vcc, s[84:85]
    s_or_b64 s[100:101], s[100:101], vcc    ; or past M
    s_and_b64 s[98:99], s[98:99], s[100:101]
    v_cmp_gt_u32 vcc, s52, v62
    s_mov_b64 s[100:101], vcc
    v_cmp_gt_u32 vcc, s53, v66
    s_and_b64 s[100:101], s[100:101], vcc   ; row 2's window inside the input
    s_not_b64 vcc, s[86:87]
    s_or_b64 s[100:101], s[100:101], vcc    ; or past M
    s_and_b64 s[98:99], s[98:99], s[100:101]
    v_cmp_gt_u32 vcc, s52, v63
    s_mov_b64 s[100:101], vcc
    v_cmp_gt_u32 vcc, s53, v67
    s_and_b64 s[100:101], s[100:101], vcc   ; row 3's window inside the input
    s_not_b64 vcc, s[88:89]
    s_or_b64 s[100:101], s[100:101], vcc    ; or past M
    s_and_b64 s[98:99], s[98:99], s[100:101]
    v_mov_b32 v21, ${FLAG}               ; the vote's word in LDS
    v_mov_b32 v20, 1
    v_cmp_eq_u32 vcc, 0, v0
    s_mov_b64 exec, vcc
    ds_write_b32 v21, v20, 0             ; thread 0: inside (1)
    s_mov_b64 exec, s[72:73]
    s_barrier
    s_not_b64 s[100:101], s[98:99]
    s_and_b64 exec, s[100:101], s[72:73]
    v_mov_b32 v20, 0
    ds_write_b32 v21, v20, 0             ; a thread with a row that touches the padding: 0
    s_mov_b64 exec, s[72:73]
    s_barrier
    ds_read_b32 v20, v21, 0
    s_waitcnt 0
    v_cmp_eq_u32 vcc, 1, v20
    s_cbranch_vccz valu_start            ; the block touches the padding: the fmas skip its padded taps
.endif
.if WMMA
; ---- WMMA: 1. gather tile 0 (32 k); per tile: the next tile's loads, 2. this tile's WMMAs, 3. LDS --------
    v_add_u32 v20, s81, v1               ; k = k0 + tx
    v_cmp_gt_u32 vcc, s45, v20
    s_mov_b64 s[98:99], vcc              ; k < Kg
    v_mul_hi_u32 v21, v20, s41
    v_sub_u32 v22, v20, v21
    v_lshr_b32 v22, v22, s42
    v_add_u32 v21, v21, v22
    v_lshr_b32 v21, v21, s43             ; c = k / (KH KW)
    v_mul_lo_u32 v22, v21, s40
    v_sub_u32 v22, v20, v22              ; r = kh KW + kw
    v_mul_hi_u32 v23, v22, s49
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
    v_mul_lo_u32 v24, v24, s29           ; kw Dw
    v_mad_u32 v26, v23, s58, v26
    v_mad_u32 v26, v24, s59, v26
    v_lshl_b32 v26, v26, ${SHIFT_IN}     ; c x_C + kh Dh x_H + kw Dw x_W, in bytes
    v_lshl_b32 v27, v27, ${SHIFT_IN}     ; c w_C + kh w_H + kw w_W, in bytes
    v_mov_b32 v36, ${A_ZERO}
    v_mov_b32 v37, ${A_ZERO}
    v_mov_b32 v38, ${A_ZERO}
    v_mov_b32 v39, ${A_ZERO}
    v_mov_b32 v120, 0
    v_mov_b32 v121, 0
    v_mov_b32 v122, 0
    v_mov_b32 v123, 0
.if B_LOAD4
    v_mov_b32 v124, 0
.endif
.if B_LOAD5
    v_mov_b32 v125, 0
.endif
.if B_LOAD6
    v_mov_b32 v126, 0
.endif
.if B_LOAD7
    v_mov_b32 v127, 0
.endif
.if B_LOAD8
    v_mov_b32 v128, 0
.endif
.if B_LOAD9
    v_mov_b32 v129, 0
.endif
.if B_LOAD10
    v_mov_b32 v130, 0
.endif
.if B_LOAD11
    v_mov_b32 v131, 0
.endif
.if B_LOAD12
    v_mov_b32 v132, 0
.endif
.if B_LOAD13
    v_mov_b32 v133, 0
.endif
.if B_LOAD14
    v_mov_b32 v134, 0
.endif
.if B_LOAD15
    v_mov_b32 v135, 0
.endif
    s_mov_b64 exec, s[98:99]             ; k < Kg: else A = -0, B = +0
    v_add_u32 v30, v192, v26
    buffer_load_${LOAD} v36, v30, s[8:11], 0    ; A[m0 + ty + 0 BLOCK_M / 4][k]
    v_add_u32 v30, v193, v26
    buffer_load_${LOAD} v37, v30, s[8:11], 0    ; A[m0 + ty + 1 BLOCK_M / 4][k]
    v_add_u32 v30, v194, v26
    buffer_load_${LOAD} v38, v30, s[8:11], 0    ; A[m0 + ty + 2 BLOCK_M / 4][k]
    v_add_u32 v30, v195, v26
    buffer_load_${LOAD} v39, v30, s[8:11], 0    ; A[m0 + ty + 3 BLOCK_M / 4][k]
    v_add_u32 v30, v196, v27
    buffer_load_${LOAD} v120, v30, s[12:15], 0   ; B[k][n0 + ty + 0 BLOCK_M / 4]
    v_add_u32 v30, v197, v27
    buffer_load_${LOAD} v121, v30, s[12:15], 0   ; B[k][n0 + ty + 1 BLOCK_M / 4]
    v_add_u32 v30, v198, v27
    buffer_load_${LOAD} v122, v30, s[12:15], 0   ; B[k][n0 + ty + 2 BLOCK_M / 4]
    v_add_u32 v30, v199, v27
    buffer_load_${LOAD} v123, v30, s[12:15], 0   ; B[k][n0 + ty + 3 BLOCK_M / 4]
.if B_LOAD4
    v_add_u32 v30, v200, v27
    buffer_load_${LOAD} v124, v30, s[12:15], 0   ; B[k][n0 + ty + 4 BLOCK_M / 4]
.endif
.if B_LOAD5
    v_add_u32 v30, v201, v27
    buffer_load_${LOAD} v125, v30, s[12:15], 0   ; B[k][n0 + ty + 5 BLOCK_M / 4]
.endif
.if B_LOAD6
    v_add_u32 v30, v202, v27
    buffer_load_${LOAD} v126, v30, s[12:15], 0   ; B[k][n0 + ty + 6 BLOCK_M / 4]
.endif
.if B_LOAD7
    v_add_u32 v30, v203, v27
    buffer_load_${LOAD} v127, v30, s[12:15], 0   ; B[k][n0 + ty + 7 BLOCK_M / 4]
.endif
.if B_LOAD8
    v_add_u32 v30, v204, v27
    buffer_load_${LOAD} v128, v30, s[12:15], 0   ; B[k][n0 + ty + 8 BLOCK_M / 4]
.endif
.if B_LOAD9
    v_add_u32 v30, v205, v27
    buffer_load_${LOAD} v129, v30, s[12:15], 0   ; B[k][n0 + ty + 9 BLOCK_M / 4]
.endif
.if B_LOAD10
    v_add_u32 v30, v206, v27
    buffer_load_${LOAD} v130, v30, s[12:15], 0   ; B[k][n0 + ty + 10 BLOCK_M / 4]
.endif
.if B_LOAD11
    v_add_u32 v30, v207, v27
    buffer_load_${LOAD} v131, v30, s[12:15], 0   ; B[k][n0 + ty + 11 BLOCK_M / 4]
.endif
.if B_LOAD12
    v_add_u32 v30, v208, v27
    buffer_load_${LOAD} v132, v30, s[12:15], 0   ; B[k][n0 + ty + 12 BLOCK_M / 4]
.endif
.if B_LOAD13
    v_add_u32 v30, v209, v27
    buffer_load_${LOAD} v133, v30, s[12:15], 0   ; B[k][n0 + ty + 13 BLOCK_M / 4]
.endif
.if B_LOAD14
    v_add_u32 v30, v210, v27
    buffer_load_${LOAD} v134, v30, s[12:15], 0   ; B[k][n0 + ty + 14 BLOCK_M / 4]
.endif
.if B_LOAD15
    v_add_u32 v30, v211, v27
    buffer_load_${LOAD} v135, v30, s[12:15], 0   ; B[k][n0 + ty + 15 BLOCK_M / 4]
.endif
    s_mov_b64 exec, s[72:73]
    v_add_u32 v20, s81, v1               ; k = k0 + tx + 16
    v_add_u32 v20, v20, 16
    v_cmp_gt_u32 vcc, s45, v20
    s_mov_b64 s[100:101], vcc              ; k < Kg
    v_mul_hi_u32 v21, v20, s41
    v_sub_u32 v22, v20, v21
    v_lshr_b32 v22, v22, s42
    v_add_u32 v21, v21, v22
    v_lshr_b32 v21, v21, s43             ; c = k / (KH KW)
    v_mul_lo_u32 v22, v21, s40
    v_sub_u32 v22, v20, v22              ; r = kh KW + kw
    v_mul_hi_u32 v23, v22, s49
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
    v_mul_lo_u32 v24, v24, s29           ; kw Dw
    v_mad_u32 v16, v23, s58, v26
    v_mad_u32 v16, v24, s59, v16
    v_lshl_b32 v16, v16, ${SHIFT_IN}     ; c x_C + kh Dh x_H + kw Dw x_W, in bytes
    v_lshl_b32 v17, v27, ${SHIFT_IN}     ; c w_C + kh w_H + kw w_W, in bytes
    v_mov_b32 v72, ${A_ZERO}
    v_mov_b32 v73, ${A_ZERO}
    v_mov_b32 v74, ${A_ZERO}
    v_mov_b32 v75, ${A_ZERO}
    v_mov_b32 v152, 0
    v_mov_b32 v153, 0
    v_mov_b32 v154, 0
    v_mov_b32 v155, 0
.if B_LOAD4
    v_mov_b32 v156, 0
.endif
.if B_LOAD5
    v_mov_b32 v157, 0
.endif
.if B_LOAD6
    v_mov_b32 v158, 0
.endif
.if B_LOAD7
    v_mov_b32 v159, 0
.endif
.if B_LOAD8
    v_mov_b32 v160, 0
.endif
.if B_LOAD9
    v_mov_b32 v161, 0
.endif
.if B_LOAD10
    v_mov_b32 v162, 0
.endif
.if B_LOAD11
    v_mov_b32 v163, 0
.endif
.if B_LOAD12
    v_mov_b32 v164, 0
.endif
.if B_LOAD13
    v_mov_b32 v165, 0
.endif
.if B_LOAD14
    v_mov_b32 v166, 0
.endif
.if B_LOAD15
    v_mov_b32 v167, 0
.endif
    s_mov_b64 exec, s[100:101]             ; k < Kg: else A = -0, B = +0
    v_add_u32 v30, v192, v16
    buffer_load_${LOAD} v72, v30, s[8:11], 0    ; A[m0 + ty + 0 BLOCK_M / 4][k]
    v_add_u32 v30, v193, v16
    buffer_load_${LOAD} v73, v30, s[8:11], 0    ; A[m0 + ty + 1 BLOCK_M / 4][k]
    v_add_u32 v30, v194, v16
    buffer_load_${LOAD} v74, v30, s[8:11], 0    ; A[m0 + ty + 2 BLOCK_M / 4][k]
    v_add_u32 v30, v195, v16
    buffer_load_${LOAD} v75, v30, s[8:11], 0    ; A[m0 + ty + 3 BLOCK_M / 4][k]
    v_add_u32 v30, v196, v17
    buffer_load_${LOAD} v152, v30, s[12:15], 0   ; B[k][n0 + ty + 0 BLOCK_M / 4]
    v_add_u32 v30, v197, v17
    buffer_load_${LOAD} v153, v30, s[12:15], 0   ; B[k][n0 + ty + 1 BLOCK_M / 4]
    v_add_u32 v30, v198, v17
    buffer_load_${LOAD} v154, v30, s[12:15], 0   ; B[k][n0 + ty + 2 BLOCK_M / 4]
    v_add_u32 v30, v199, v17
    buffer_load_${LOAD} v155, v30, s[12:15], 0   ; B[k][n0 + ty + 3 BLOCK_M / 4]
.if B_LOAD4
    v_add_u32 v30, v200, v17
    buffer_load_${LOAD} v156, v30, s[12:15], 0   ; B[k][n0 + ty + 4 BLOCK_M / 4]
.endif
.if B_LOAD5
    v_add_u32 v30, v201, v17
    buffer_load_${LOAD} v157, v30, s[12:15], 0   ; B[k][n0 + ty + 5 BLOCK_M / 4]
.endif
.if B_LOAD6
    v_add_u32 v30, v202, v17
    buffer_load_${LOAD} v158, v30, s[12:15], 0   ; B[k][n0 + ty + 6 BLOCK_M / 4]
.endif
.if B_LOAD7
    v_add_u32 v30, v203, v17
    buffer_load_${LOAD} v159, v30, s[12:15], 0   ; B[k][n0 + ty + 7 BLOCK_M / 4]
.endif
.if B_LOAD8
    v_add_u32 v30, v204, v17
    buffer_load_${LOAD} v160, v30, s[12:15], 0   ; B[k][n0 + ty + 8 BLOCK_M / 4]
.endif
.if B_LOAD9
    v_add_u32 v30, v205, v17
    buffer_load_${LOAD} v161, v30, s[12:15], 0   ; B[k][n0 + ty + 9 BLOCK_M / 4]
.endif
.if B_LOAD10
    v_add_u32 v30, v206, v17
    buffer_load_${LOAD} v162, v30, s[12:15], 0   ; B[k][n0 + ty + 10 BLOCK_M / 4]
.endif
.if B_LOAD11
    v_add_u32 v30, v207, v17
    buffer_load_${LOAD} v163, v30, s[12:15], 0   ; B[k][n0 + ty + 11 BLOCK_M / 4]
.endif
.if B_LOAD12
    v_add_u32 v30, v208, v17
    buffer_load_${LOAD} v164, v30, s[12:15], 0   ; B[k][n0 + ty + 12 BLOCK_M / 4]
.endif
.if B_LOAD13
    v_add_u32 v30, v209, v17
    buffer_load_${LOAD} v165, v30, s[12:15], 0   ; B[k][n0 + ty + 13 BLOCK_M / 4]
.endif
.if B_LOAD14
    v_add_u32 v30, v210, v17
    buffer_load_${LOAD} v166, v30, s[12:15], 0   ; B[k][n0 + ty + 14 BLOCK_M / 4]
.endif
.if B_LOAD15
    v_add_u32 v30, v211, v17
    buffer_load_${LOAD} v167, v30, s[12:15], 0   ; B[k][n0 + ty + 15 BLOCK_M / 4]
.endif
    s_mov_b64 exec, s[72:73]
    s_waitcnt 0
    ds_write_b16 v12, v36, ${H_A_OFF0}        ; As[ty + 0 BLOCK_M / 4][tx + 0]
    ds_write_b16 v12, v37, ${H_A_OFF1}        ; As[ty + 1 BLOCK_M / 4][tx + 0]
    ds_write_b16 v12, v38, ${H_A_OFF2}        ; As[ty + 2 BLOCK_M / 4][tx + 0]
    ds_write_b16 v12, v39, ${H_A_OFF3}        ; As[ty + 3 BLOCK_M / 4][tx + 0]
.if B_EDGE0
    v_add_u32 v31, v2, ${B_COL0}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b16 v12, v120, ${H_B_OFF0}       ; BsT[ty + 0 BLOCK_M / 4][tx + 0]
.if B_EDGE0
    s_mov_b64 exec, s[72:73]
.endif
.if B_EDGE1
    v_add_u32 v31, v2, ${B_COL1}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b16 v12, v121, ${H_B_OFF1}       ; BsT[ty + 1 BLOCK_M / 4][tx + 0]
.if B_EDGE1
    s_mov_b64 exec, s[72:73]
.endif
.if B_EDGE2
    v_add_u32 v31, v2, ${B_COL2}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b16 v12, v122, ${H_B_OFF2}       ; BsT[ty + 2 BLOCK_M / 4][tx + 0]
.if B_EDGE2
    s_mov_b64 exec, s[72:73]
.endif
.if B_EDGE3
    v_add_u32 v31, v2, ${B_COL3}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b16 v12, v123, ${H_B_OFF3}       ; BsT[ty + 3 BLOCK_M / 4][tx + 0]
.if B_EDGE3
    s_mov_b64 exec, s[72:73]
.endif
.if B_LOAD4
.if B_EDGE4
    v_add_u32 v31, v2, ${B_COL4}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b16 v12, v124, ${H_B_OFF4}       ; BsT[ty + 4 BLOCK_M / 4][tx + 0]
.if B_EDGE4
    s_mov_b64 exec, s[72:73]
.endif
.endif
.if B_LOAD5
.if B_EDGE5
    v_add_u32 v31, v2, ${B_COL5}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b16 v12, v125, ${H_B_OFF5}       ; BsT[ty + 5 BLOCK_M / 4][tx + 0]
.if B_EDGE5
    s_mov_b64 exec, s[72:73]
.endif
.endif
.if B_LOAD6
.if B_EDGE6
    v_add_u32 v31, v2, ${B_COL6}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b16 v12, v126, ${H_B_OFF6}       ; BsT[ty + 6 BLOCK_M / 4][tx + 0]
.if B_EDGE6
    s_mov_b64 exec, s[72:73]
.endif
.endif
.if B_LOAD7
.if B_EDGE7
    v_add_u32 v31, v2, ${B_COL7}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b16 v12, v127, ${H_B_OFF7}       ; BsT[ty + 7 BLOCK_M / 4][tx + 0]
.if B_EDGE7
    s_mov_b64 exec, s[72:73]
.endif
.endif
.if B_LOAD8
.if B_EDGE8
    v_add_u32 v31, v2, ${B_COL8}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b16 v12, v128, ${H_B_OFF8}       ; BsT[ty + 8 BLOCK_M / 4][tx + 0]
.if B_EDGE8
    s_mov_b64 exec, s[72:73]
.endif
.endif
.if B_LOAD9
.if B_EDGE9
    v_add_u32 v31, v2, ${B_COL9}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b16 v12, v129, ${H_B_OFF9}       ; BsT[ty + 9 BLOCK_M / 4][tx + 0]
.if B_EDGE9
    s_mov_b64 exec, s[72:73]
.endif
.endif
.if B_LOAD10
.if B_EDGE10
    v_add_u32 v31, v2, ${B_COL10}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b16 v12, v130, ${H_B_OFF10}       ; BsT[ty + 10 BLOCK_M / 4][tx + 0]
.if B_EDGE10
    s_mov_b64 exec, s[72:73]
.endif
.endif
.if B_LOAD11
.if B_EDGE11
    v_add_u32 v31, v2, ${B_COL11}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b16 v12, v131, ${H_B_OFF11}       ; BsT[ty + 11 BLOCK_M / 4][tx + 0]
.if B_EDGE11
    s_mov_b64 exec, s[72:73]
.endif
.endif
.if B_LOAD12
.if B_EDGE12
    v_add_u32 v31, v2, ${B_COL12}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b16 v12, v132, ${H_B_OFF12}       ; BsT[ty + 12 BLOCK_M / 4][tx + 0]
.if B_EDGE12
    s_mov_b64 exec, s[72:73]
.endif
.endif
.if B_LOAD13
.if B_EDGE13
    v_add_u32 v31, v2, ${B_COL13}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b16 v12, v133, ${H_B_OFF13}       ; BsT[ty + 13 BLOCK_M / 4][tx + 0]
.if B_EDGE13
    s_mov_b64 exec, s[72:73]
.endif
.endif
.if B_LOAD14
.if B_EDGE14
    v_add_u32 v31, v2, ${B_COL14}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b16 v12, v134, ${H_B_OFF14}       ; BsT[ty + 14 BLOCK_M / 4][tx + 0]
.if B_EDGE14
    s_mov_b64 exec, s[72:73]
.endif
.endif
.if B_LOAD15
.if B_EDGE15
    v_add_u32 v31, v2, ${B_COL15}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b16 v12, v135, ${H_B_OFF15}       ; BsT[ty + 15 BLOCK_M / 4][tx + 0]
.if B_EDGE15
    s_mov_b64 exec, s[72:73]
.endif
.endif
    ds_write_b16 v12, v72, ${H_A_OFF0_HI}        ; As[ty + 0 BLOCK_M / 4][tx + 16]
    ds_write_b16 v12, v73, ${H_A_OFF1_HI}        ; As[ty + 1 BLOCK_M / 4][tx + 16]
    ds_write_b16 v12, v74, ${H_A_OFF2_HI}        ; As[ty + 2 BLOCK_M / 4][tx + 16]
    ds_write_b16 v12, v75, ${H_A_OFF3_HI}        ; As[ty + 3 BLOCK_M / 4][tx + 16]
.if B_EDGE0
    v_add_u32 v31, v2, ${B_COL0}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b16 v12, v152, ${H_B_OFF0_HI}       ; BsT[ty + 0 BLOCK_M / 4][tx + 16]
.if B_EDGE0
    s_mov_b64 exec, s[72:73]
.endif
.if B_EDGE1
    v_add_u32 v31, v2, ${B_COL1}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b16 v12, v153, ${H_B_OFF1_HI}       ; BsT[ty + 1 BLOCK_M / 4][tx + 16]
.if B_EDGE1
    s_mov_b64 exec, s[72:73]
.endif
.if B_EDGE2
    v_add_u32 v31, v2, ${B_COL2}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b16 v12, v154, ${H_B_OFF2_HI}       ; BsT[ty + 2 BLOCK_M / 4][tx + 16]
.if B_EDGE2
    s_mov_b64 exec, s[72:73]
.endif
.if B_EDGE3
    v_add_u32 v31, v2, ${B_COL3}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b16 v12, v155, ${H_B_OFF3_HI}       ; BsT[ty + 3 BLOCK_M / 4][tx + 16]
.if B_EDGE3
    s_mov_b64 exec, s[72:73]
.endif
.if B_LOAD4
.if B_EDGE4
    v_add_u32 v31, v2, ${B_COL4}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b16 v12, v156, ${H_B_OFF4_HI}       ; BsT[ty + 4 BLOCK_M / 4][tx + 16]
.if B_EDGE4
    s_mov_b64 exec, s[72:73]
.endif
.endif
.if B_LOAD5
.if B_EDGE5
    v_add_u32 v31, v2, ${B_COL5}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b16 v12, v157, ${H_B_OFF5_HI}       ; BsT[ty + 5 BLOCK_M / 4][tx + 16]
.if B_EDGE5
    s_mov_b64 exec, s[72:73]
.endif
.endif
.if B_LOAD6
.if B_EDGE6
    v_add_u32 v31, v2, ${B_COL6}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b16 v12, v158, ${H_B_OFF6_HI}       ; BsT[ty + 6 BLOCK_M / 4][tx + 16]
.if B_EDGE6
    s_mov_b64 exec, s[72:73]
.endif
.endif
.if B_LOAD7
.if B_EDGE7
    v_add_u32 v31, v2, ${B_COL7}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b16 v12, v159, ${H_B_OFF7_HI}       ; BsT[ty + 7 BLOCK_M / 4][tx + 16]
.if B_EDGE7
    s_mov_b64 exec, s[72:73]
.endif
.endif
.if B_LOAD8
.if B_EDGE8
    v_add_u32 v31, v2, ${B_COL8}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b16 v12, v160, ${H_B_OFF8_HI}       ; BsT[ty + 8 BLOCK_M / 4][tx + 16]
.if B_EDGE8
    s_mov_b64 exec, s[72:73]
.endif
.endif
.if B_LOAD9
.if B_EDGE9
    v_add_u32 v31, v2, ${B_COL9}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b16 v12, v161, ${H_B_OFF9_HI}       ; BsT[ty + 9 BLOCK_M / 4][tx + 16]
.if B_EDGE9
    s_mov_b64 exec, s[72:73]
.endif
.endif
.if B_LOAD10
.if B_EDGE10
    v_add_u32 v31, v2, ${B_COL10}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b16 v12, v162, ${H_B_OFF10_HI}       ; BsT[ty + 10 BLOCK_M / 4][tx + 16]
.if B_EDGE10
    s_mov_b64 exec, s[72:73]
.endif
.endif
.if B_LOAD11
.if B_EDGE11
    v_add_u32 v31, v2, ${B_COL11}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b16 v12, v163, ${H_B_OFF11_HI}       ; BsT[ty + 11 BLOCK_M / 4][tx + 16]
.if B_EDGE11
    s_mov_b64 exec, s[72:73]
.endif
.endif
.if B_LOAD12
.if B_EDGE12
    v_add_u32 v31, v2, ${B_COL12}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b16 v12, v164, ${H_B_OFF12_HI}       ; BsT[ty + 12 BLOCK_M / 4][tx + 16]
.if B_EDGE12
    s_mov_b64 exec, s[72:73]
.endif
.endif
.if B_LOAD13
.if B_EDGE13
    v_add_u32 v31, v2, ${B_COL13}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b16 v12, v165, ${H_B_OFF13_HI}       ; BsT[ty + 13 BLOCK_M / 4][tx + 16]
.if B_EDGE13
    s_mov_b64 exec, s[72:73]
.endif
.endif
.if B_LOAD14
.if B_EDGE14
    v_add_u32 v31, v2, ${B_COL14}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b16 v12, v166, ${H_B_OFF14_HI}       ; BsT[ty + 14 BLOCK_M / 4][tx + 16]
.if B_EDGE14
    s_mov_b64 exec, s[72:73]
.endif
.endif
.if B_LOAD15
.if B_EDGE15
    v_add_u32 v31, v2, ${B_COL15}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b16 v12, v167, ${H_B_OFF15_HI}       ; BsT[ty + 15 BLOCK_M / 4][tx + 16]
.if B_EDGE15
    s_mov_b64 exec, s[72:73]
.endif
.endif
    s_barrier                            ; tile 0 complete
wmma_tile:
    s_cmp_le_u32 s76, 32
    s_cbranch_scc1 wmma_last             ; no tile behind this one
    s_add_u32 s81, s81, 32               ; the next tile's k0
    v_add_u32 v20, s81, v1               ; k = k0 + tx
    v_cmp_gt_u32 vcc, s45, v20
    s_mov_b64 s[98:99], vcc              ; k < Kg
    v_mul_hi_u32 v21, v20, s41
    v_sub_u32 v22, v20, v21
    v_lshr_b32 v22, v22, s42
    v_add_u32 v21, v21, v22
    v_lshr_b32 v21, v21, s43             ; c = k / (KH KW)
    v_mul_lo_u32 v22, v21, s40
    v_sub_u32 v22, v20, v22              ; r = kh KW + kw
    v_mul_hi_u32 v23, v22, s49
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
    v_mul_lo_u32 v24, v24, s29           ; kw Dw
    v_mad_u32 v26, v23, s58, v26
    v_mad_u32 v26, v24, s59, v26
    v_lshl_b32 v26, v26, ${SHIFT_IN}     ; c x_C + kh Dh x_H + kw Dw x_W, in bytes
    v_lshl_b32 v27, v27, ${SHIFT_IN}     ; c w_C + kh w_H + kw w_W, in bytes
    v_mov_b32 v36, ${A_ZERO}
    v_mov_b32 v37, ${A_ZERO}
    v_mov_b32 v38, ${A_ZERO}
    v_mov_b32 v39, ${A_ZERO}
    v_mov_b32 v120, 0
    v_mov_b32 v121, 0
    v_mov_b32 v122, 0
    v_mov_b32 v123, 0
.if B_LOAD4
    v_mov_b32 v124, 0
.endif
.if B_LOAD5
    v_mov_b32 v125, 0
.endif
.if B_LOAD6
    v_mov_b32 v126, 0
.endif
.if B_LOAD7
    v_mov_b32 v127, 0
.endif
.if B_LOAD8
    v_mov_b32 v128, 0
.endif
.if B_LOAD9
    v_mov_b32 v129, 0
.endif
.if B_LOAD10
    v_mov_b32 v130, 0
.endif
.if B_LOAD11
    v_mov_b32 v131, 0
.endif
.if B_LOAD12
    v_mov_b32 v132, 0
.endif
.if B_LOAD13
    v_mov_b32 v133, 0
.endif
.if B_LOAD14
    v_mov_b32 v134, 0
.endif
.if B_LOAD15
    v_mov_b32 v135, 0
.endif
    s_mov_b64 exec, s[98:99]             ; k < Kg: else A = -0, B = +0
    v_add_u32 v30, v192, v26
    buffer_load_${LOAD} v36, v30, s[8:11], 0    ; A[m0 + ty + 0 BLOCK_M / 4][k]
    v_add_u32 v30, v193, v26
    buffer_load_${LOAD} v37, v30, s[8:11], 0    ; A[m0 + ty + 1 BLOCK_M / 4][k]
    v_add_u32 v30, v194, v26
    buffer_load_${LOAD} v38, v30, s[8:11], 0    ; A[m0 + ty + 2 BLOCK_M / 4][k]
    v_add_u32 v30, v195, v26
    buffer_load_${LOAD} v39, v30, s[8:11], 0    ; A[m0 + ty + 3 BLOCK_M / 4][k]
    v_add_u32 v30, v196, v27
    buffer_load_${LOAD} v120, v30, s[12:15], 0   ; B[k][n0 + ty + 0 BLOCK_M / 4]
    v_add_u32 v30, v197, v27
    buffer_load_${LOAD} v121, v30, s[12:15], 0   ; B[k][n0 + ty + 1 BLOCK_M / 4]
    v_add_u32 v30, v198, v27
    buffer_load_${LOAD} v122, v30, s[12:15], 0   ; B[k][n0 + ty + 2 BLOCK_M / 4]
    v_add_u32 v30, v199, v27
    buffer_load_${LOAD} v123, v30, s[12:15], 0   ; B[k][n0 + ty + 3 BLOCK_M / 4]
.if B_LOAD4
    v_add_u32 v30, v200, v27
    buffer_load_${LOAD} v124, v30, s[12:15], 0   ; B[k][n0 + ty + 4 BLOCK_M / 4]
.endif
.if B_LOAD5
    v_add_u32 v30, v201, v27
    buffer_load_${LOAD} v125, v30, s[12:15], 0   ; B[k][n0 + ty + 5 BLOCK_M / 4]
.endif
.if B_LOAD6
    v_add_u32 v30, v202, v27
    buffer_load_${LOAD} v126, v30, s[12:15], 0   ; B[k][n0 + ty + 6 BLOCK_M / 4]
.endif
.if B_LOAD7
    v_add_u32 v30, v203, v27
    buffer_load_${LOAD} v127, v30, s[12:15], 0   ; B[k][n0 + ty + 7 BLOCK_M / 4]
.endif
.if B_LOAD8
    v_add_u32 v30, v204, v27
    buffer_load_${LOAD} v128, v30, s[12:15], 0   ; B[k][n0 + ty + 8 BLOCK_M / 4]
.endif
.if B_LOAD9
    v_add_u32 v30, v205, v27
    buffer_load_${LOAD} v129, v30, s[12:15], 0   ; B[k][n0 + ty + 9 BLOCK_M / 4]
.endif
.if B_LOAD10
    v_add_u32 v30, v206, v27
    buffer_load_${LOAD} v130, v30, s[12:15], 0   ; B[k][n0 + ty + 10 BLOCK_M / 4]
.endif
.if B_LOAD11
    v_add_u32 v30, v207, v27
    buffer_load_${LOAD} v131, v30, s[12:15], 0   ; B[k][n0 + ty + 11 BLOCK_M / 4]
.endif
.if B_LOAD12
    v_add_u32 v30, v208, v27
    buffer_load_${LOAD} v132, v30, s[12:15], 0   ; B[k][n0 + ty + 12 BLOCK_M / 4]
.endif
.if B_LOAD13
    v_add_u32 v30, v209, v27
    buffer_load_${LOAD} v133, v30, s[12:15], 0   ; B[k][n0 + ty + 13 BLOCK_M / 4]
.endif
.if B_LOAD14
    v_add_u32 v30, v210, v27
    buffer_load_${LOAD} v134, v30, s[12:15], 0   ; B[k][n0 + ty + 14 BLOCK_M / 4]
.endif
.if B_LOAD15
    v_add_u32 v30, v211, v27
    buffer_load_${LOAD} v135, v30, s[12:15], 0   ; B[k][n0 + ty + 15 BLOCK_M / 4]
.endif
    s_mov_b64 exec, s[72:73]
    v_add_u32 v20, s81, v1               ; k = k0 + tx + 16
    v_add_u32 v20, v20, 16
    v_cmp_gt_u32 vcc, s45, v20
    s_mov_b64 s[100:101], vcc              ; k < Kg
    v_mul_hi_u32 v21, v20, s41
    v_sub_u32 v22, v20, v21
    v_lshr_b32 v22, v22, s42
    v_add_u32 v21, v21, v22
    v_lshr_b32 v21, v21, s43             ; c = k / (KH KW)
    v_mul_lo_u32 v22, v21, s40
    v_sub_u32 v22, v20, v22              ; r = kh KW + kw
    v_mul_hi_u32 v23, v22, s49
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
    v_mul_lo_u32 v24, v24, s29           ; kw Dw
    v_mad_u32 v16, v23, s58, v26
    v_mad_u32 v16, v24, s59, v16
    v_lshl_b32 v16, v16, ${SHIFT_IN}     ; c x_C + kh Dh x_H + kw Dw x_W, in bytes
    v_lshl_b32 v17, v27, ${SHIFT_IN}     ; c w_C + kh w_H + kw w_W, in bytes
    v_mov_b32 v72, ${A_ZERO}
    v_mov_b32 v73, ${A_ZERO}
    v_mov_b32 v74, ${A_ZERO}
    v_mov_b32 v75, ${A_ZERO}
    v_mov_b32 v152, 0
    v_mov_b32 v153, 0
    v_mov_b32 v154, 0
    v_mov_b32 v155, 0
.if B_LOAD4
    v_mov_b32 v156, 0
.endif
.if B_LOAD5
    v_mov_b32 v157, 0
.endif
.if B_LOAD6
    v_mov_b32 v158, 0
.endif
.if B_LOAD7
    v_mov_b32 v159, 0
.endif
.if B_LOAD8
    v_mov_b32 v160, 0
.endif
.if B_LOAD9
    v_mov_b32 v161, 0
.endif
.if B_LOAD10
    v_mov_b32 v162, 0
.endif
.if B_LOAD11
    v_mov_b32 v163, 0
.endif
.if B_LOAD12
    v_mov_b32 v164, 0
.endif
.if B_LOAD13
    v_mov_b32 v165, 0
.endif
.if B_LOAD14
    v_mov_b32 v166, 0
.endif
.if B_LOAD15
    v_mov_b32 v167, 0
.endif
    s_mov_b64 exec, s[100:101]             ; k < Kg: else A = -0, B = +0
    v_add_u32 v30, v192, v16
    buffer_load_${LOAD} v72, v30, s[8:11], 0    ; A[m0 + ty + 0 BLOCK_M / 4][k]
    v_add_u32 v30, v193, v16
    buffer_load_${LOAD} v73, v30, s[8:11], 0    ; A[m0 + ty + 1 BLOCK_M / 4][k]
    v_add_u32 v30, v194, v16
    buffer_load_${LOAD} v74, v30, s[8:11], 0    ; A[m0 + ty + 2 BLOCK_M / 4][k]
    v_add_u32 v30, v195, v16
    buffer_load_${LOAD} v75, v30, s[8:11], 0    ; A[m0 + ty + 3 BLOCK_M / 4][k]
    v_add_u32 v30, v196, v17
    buffer_load_${LOAD} v152, v30, s[12:15], 0   ; B[k][n0 + ty + 0 BLOCK_M / 4]
    v_add_u32 v30, v197, v17
    buffer_load_${LOAD} v153, v30, s[12:15], 0   ; B[k][n0 + ty + 1 BLOCK_M / 4]
    v_add_u32 v30, v198, v17
    buffer_load_${LOAD} v154, v30, s[12:15], 0   ; B[k][n0 + ty + 2 BLOCK_M / 4]
    v_add_u32 v30, v199, v17
    buffer_load_${LOAD} v155, v30, s[12:15], 0   ; B[k][n0 + ty + 3 BLOCK_M / 4]
.if B_LOAD4
    v_add_u32 v30, v200, v17
    buffer_load_${LOAD} v156, v30, s[12:15], 0   ; B[k][n0 + ty + 4 BLOCK_M / 4]
.endif
.if B_LOAD5
    v_add_u32 v30, v201, v17
    buffer_load_${LOAD} v157, v30, s[12:15], 0   ; B[k][n0 + ty + 5 BLOCK_M / 4]
.endif
.if B_LOAD6
    v_add_u32 v30, v202, v17
    buffer_load_${LOAD} v158, v30, s[12:15], 0   ; B[k][n0 + ty + 6 BLOCK_M / 4]
.endif
.if B_LOAD7
    v_add_u32 v30, v203, v17
    buffer_load_${LOAD} v159, v30, s[12:15], 0   ; B[k][n0 + ty + 7 BLOCK_M / 4]
.endif
.if B_LOAD8
    v_add_u32 v30, v204, v17
    buffer_load_${LOAD} v160, v30, s[12:15], 0   ; B[k][n0 + ty + 8 BLOCK_M / 4]
.endif
.if B_LOAD9
    v_add_u32 v30, v205, v17
    buffer_load_${LOAD} v161, v30, s[12:15], 0   ; B[k][n0 + ty + 9 BLOCK_M / 4]
.endif
.if B_LOAD10
    v_add_u32 v30, v206, v17
    buffer_load_${LOAD} v162, v30, s[12:15], 0   ; B[k][n0 + ty + 10 BLOCK_M / 4]
.endif
.if B_LOAD11
    v_add_u32 v30, v207, v17
    buffer_load_${LOAD} v163, v30, s[12:15], 0   ; B[k][n0 + ty + 11 BLOCK_M / 4]
.endif
.if B_LOAD12
    v_add_u32 v30, v208, v17
    buffer_load_${LOAD} v164, v30, s[12:15], 0   ; B[k][n0 + ty + 12 BLOCK_M / 4]
.endif
.if B_LOAD13
    v_add_u32 v30, v209, v17
    buffer_load_${LOAD} v165, v30, s[12:15], 0   ; B[k][n0 + ty + 13 BLOCK_M / 4]
.endif
.if B_LOAD14
    v_add_u32 v30, v210, v17
    buffer_load_${LOAD} v166, v30, s[12:15], 0   ; B[k][n0 + ty + 14 BLOCK_M / 4]
.endif
.if B_LOAD15
    v_add_u32 v30, v211, v17
    buffer_load_${LOAD} v167, v30, s[12:15], 0   ; B[k][n0 + ty + 15 BLOCK_M / 4]
.endif
    s_mov_b64 exec, s[72:73]
    ds_read_b128 v[80:83], v18, 0        ; A fragment: k0 + 0 .. + 7
    ds_read_b128 v[84:87], v18, 16       ; .. + 15
    ds_read_b128 v[88:91], v19, ${H_BS}  ; B fragment 0
    ds_read_b128 v[92:95], v19, ${H_BS16}
    ds_read_b128 v[40:43], v19, ${H_BS_G1}  ; B fragment 1 (16 columns on)
    ds_read_b128 v[44:47], v19, ${H_BS_G1_16}
    ds_read_b128 v[168:171], v18, 32        ; A fragment: k0 + 16 .. + 7
    ds_read_b128 v[172:175], v18, 48       ; .. + 15
    ds_read_b128 v[176:179], v19, ${H_BS32}  ; B fragment 0
    ds_read_b128 v[180:183], v19, ${H_BS48}
    ds_read_b128 v[184:187], v19, ${H_BS_G1_32}  ; B fragment 1 (16 columns on)
    ds_read_b128 v[188:191], v19, ${H_BS_G1_48}
    s_waitcnt ${W_INFLIGHT6}                     ; step 0's six fragment reads have landed
    v_wmma_f32_16x16x16_f16 v[100:107], v[80:87], v[88:95], v[100:107]   ; D(0), k0 + 0 .. ascending
    v_wmma_f32_16x16x16_f16 v[108:115], v[80:87], v[40:47], v[108:115]   ; D(1)
    s_waitcnt ${W_INFLIGHT}                     ; step 1's six fragment reads have landed
    v_wmma_f32_16x16x16_f16 v[100:107], v[168:175], v[176:183], v[100:107]   ; D(0), k0 + 16 .. ascending
    v_wmma_f32_16x16x16_f16 v[108:115], v[168:175], v[184:191], v[108:115]   ; D(1)
    s_barrier                            ; 3. every wave is done with this tile in LDS
    s_waitcnt 0                          ; the next tile's loads have landed
    ds_write_b16 v12, v36, ${H_A_OFF0}        ; As[ty + 0 BLOCK_M / 4][tx + 0]
    ds_write_b16 v12, v37, ${H_A_OFF1}        ; As[ty + 1 BLOCK_M / 4][tx + 0]
    ds_write_b16 v12, v38, ${H_A_OFF2}        ; As[ty + 2 BLOCK_M / 4][tx + 0]
    ds_write_b16 v12, v39, ${H_A_OFF3}        ; As[ty + 3 BLOCK_M / 4][tx + 0]
.if B_EDGE0
    v_add_u32 v31, v2, ${B_COL0}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b16 v12, v120, ${H_B_OFF0}       ; BsT[ty + 0 BLOCK_M / 4][tx + 0]
.if B_EDGE0
    s_mov_b64 exec, s[72:73]
.endif
.if B_EDGE1
    v_add_u32 v31, v2, ${B_COL1}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b16 v12, v121, ${H_B_OFF1}       ; BsT[ty + 1 BLOCK_M / 4][tx + 0]
.if B_EDGE1
    s_mov_b64 exec, s[72:73]
.endif
.if B_EDGE2
    v_add_u32 v31, v2, ${B_COL2}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b16 v12, v122, ${H_B_OFF2}       ; BsT[ty + 2 BLOCK_M / 4][tx + 0]
.if B_EDGE2
    s_mov_b64 exec, s[72:73]
.endif
.if B_EDGE3
    v_add_u32 v31, v2, ${B_COL3}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b16 v12, v123, ${H_B_OFF3}       ; BsT[ty + 3 BLOCK_M / 4][tx + 0]
.if B_EDGE3
    s_mov_b64 exec, s[72:73]
.endif
.if B_LOAD4
.if B_EDGE4
    v_add_u32 v31, v2, ${B_COL4}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b16 v12, v124, ${H_B_OFF4}       ; BsT[ty + 4 BLOCK_M / 4][tx + 0]
.if B_EDGE4
    s_mov_b64 exec, s[72:73]
.endif
.endif
.if B_LOAD5
.if B_EDGE5
    v_add_u32 v31, v2, ${B_COL5}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b16 v12, v125, ${H_B_OFF5}       ; BsT[ty + 5 BLOCK_M / 4][tx + 0]
.if B_EDGE5
    s_mov_b64 exec, s[72:73]
.endif
.endif
.if B_LOAD6
.if B_EDGE6
    v_add_u32 v31, v2, ${B_COL6}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b16 v12, v126, ${H_B_OFF6}       ; BsT[ty + 6 BLOCK_M / 4][tx + 0]
.if B_EDGE6
    s_mov_b64 exec, s[72:73]
.endif
.endif
.if B_LOAD7
.if B_EDGE7
    v_add_u32 v31, v2, ${B_COL7}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b16 v12, v127, ${H_B_OFF7}       ; BsT[ty + 7 BLOCK_M / 4][tx + 0]
.if B_EDGE7
    s_mov_b64 exec, s[72:73]
.endif
.endif
.if B_LOAD8
.if B_EDGE8
    v_add_u32 v31, v2, ${B_COL8}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b16 v12, v128, ${H_B_OFF8}       ; BsT[ty + 8 BLOCK_M / 4][tx + 0]
.if B_EDGE8
    s_mov_b64 exec, s[72:73]
.endif
.endif
.if B_LOAD9
.if B_EDGE9
    v_add_u32 v31, v2, ${B_COL9}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b16 v12, v129, ${H_B_OFF9}       ; BsT[ty + 9 BLOCK_M / 4][tx + 0]
.if B_EDGE9
    s_mov_b64 exec, s[72:73]
.endif
.endif
.if B_LOAD10
.if B_EDGE10
    v_add_u32 v31, v2, ${B_COL10}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b16 v12, v130, ${H_B_OFF10}       ; BsT[ty + 10 BLOCK_M / 4][tx + 0]
.if B_EDGE10
    s_mov_b64 exec, s[72:73]
.endif
.endif
.if B_LOAD11
.if B_EDGE11
    v_add_u32 v31, v2, ${B_COL11}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b16 v12, v131, ${H_B_OFF11}       ; BsT[ty + 11 BLOCK_M / 4][tx + 0]
.if B_EDGE11
    s_mov_b64 exec, s[72:73]
.endif
.endif
.if B_LOAD12
.if B_EDGE12
    v_add_u32 v31, v2, ${B_COL12}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b16 v12, v132, ${H_B_OFF12}       ; BsT[ty + 12 BLOCK_M / 4][tx + 0]
.if B_EDGE12
    s_mov_b64 exec, s[72:73]
.endif
.endif
.if B_LOAD13
.if B_EDGE13
    v_add_u32 v31, v2, ${B_COL13}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b16 v12, v133, ${H_B_OFF13}       ; BsT[ty + 13 BLOCK_M / 4][tx + 0]
.if B_EDGE13
    s_mov_b64 exec, s[72:73]
.endif
.endif
.if B_LOAD14
.if B_EDGE14
    v_add_u32 v31, v2, ${B_COL14}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b16 v12, v134, ${H_B_OFF14}       ; BsT[ty + 14 BLOCK_M / 4][tx + 0]
.if B_EDGE14
    s_mov_b64 exec, s[72:73]
.endif
.endif
.if B_LOAD15
.if B_EDGE15
    v_add_u32 v31, v2, ${B_COL15}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b16 v12, v135, ${H_B_OFF15}       ; BsT[ty + 15 BLOCK_M / 4][tx + 0]
.if B_EDGE15
    s_mov_b64 exec, s[72:73]
.endif
.endif
    ds_write_b16 v12, v72, ${H_A_OFF0_HI}        ; As[ty + 0 BLOCK_M / 4][tx + 16]
    ds_write_b16 v12, v73, ${H_A_OFF1_HI}        ; As[ty + 1 BLOCK_M / 4][tx + 16]
    ds_write_b16 v12, v74, ${H_A_OFF2_HI}        ; As[ty + 2 BLOCK_M / 4][tx + 16]
    ds_write_b16 v12, v75, ${H_A_OFF3_HI}        ; As[ty + 3 BLOCK_M / 4][tx + 16]
.if B_EDGE0
    v_add_u32 v31, v2, ${B_COL0}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b16 v12, v152, ${H_B_OFF0_HI}       ; BsT[ty + 0 BLOCK_M / 4][tx + 16]
.if B_EDGE0
    s_mov_b64 exec, s[72:73]
.endif
.if B_EDGE1
    v_add_u32 v31, v2, ${B_COL1}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b16 v12, v153, ${H_B_OFF1_HI}       ; BsT[ty + 1 BLOCK_M / 4][tx + 16]
.if B_EDGE1
    s_mov_b64 exec, s[72:73]
.endif
.if B_EDGE2
    v_add_u32 v31, v2, ${B_COL2}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b16 v12, v154, ${H_B_OFF2_HI}       ; BsT[ty + 2 BLOCK_M / 4][tx + 16]
.if B_EDGE2
    s_mov_b64 exec, s[72:73]
.endif
.if B_EDGE3
    v_add_u32 v31, v2, ${B_COL3}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b16 v12, v155, ${H_B_OFF3_HI}       ; BsT[ty + 3 BLOCK_M / 4][tx + 16]
.if B_EDGE3
    s_mov_b64 exec, s[72:73]
.endif
.if B_LOAD4
.if B_EDGE4
    v_add_u32 v31, v2, ${B_COL4}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b16 v12, v156, ${H_B_OFF4_HI}       ; BsT[ty + 4 BLOCK_M / 4][tx + 16]
.if B_EDGE4
    s_mov_b64 exec, s[72:73]
.endif
.endif
.if B_LOAD5
.if B_EDGE5
    v_add_u32 v31, v2, ${B_COL5}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b16 v12, v157, ${H_B_OFF5_HI}       ; BsT[ty + 5 BLOCK_M / 4][tx + 16]
.if B_EDGE5
    s_mov_b64 exec, s[72:73]
.endif
.endif
.if B_LOAD6
.if B_EDGE6
    v_add_u32 v31, v2, ${B_COL6}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b16 v12, v158, ${H_B_OFF6_HI}       ; BsT[ty + 6 BLOCK_M / 4][tx + 16]
.if B_EDGE6
    s_mov_b64 exec, s[72:73]
.endif
.endif
.if B_LOAD7
.if B_EDGE7
    v_add_u32 v31, v2, ${B_COL7}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b16 v12, v159, ${H_B_OFF7_HI}       ; BsT[ty + 7 BLOCK_M / 4][tx + 16]
.if B_EDGE7
    s_mov_b64 exec, s[72:73]
.endif
.endif
.if B_LOAD8
.if B_EDGE8
    v_add_u32 v31, v2, ${B_COL8}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b16 v12, v160, ${H_B_OFF8_HI}       ; BsT[ty + 8 BLOCK_M / 4][tx + 16]
.if B_EDGE8
    s_mov_b64 exec, s[72:73]
.endif
.endif
.if B_LOAD9
.if B_EDGE9
    v_add_u32 v31, v2, ${B_COL9}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b16 v12, v161, ${H_B_OFF9_HI}       ; BsT[ty + 9 BLOCK_M / 4][tx + 16]
.if B_EDGE9
    s_mov_b64 exec, s[72:73]
.endif
.endif
.if B_LOAD10
.if B_EDGE10
    v_add_u32 v31, v2, ${B_COL10}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b16 v12, v162, ${H_B_OFF10_HI}       ; BsT[ty + 10 BLOCK_M / 4][tx + 16]
.if B_EDGE10
    s_mov_b64 exec, s[72:73]
.endif
.endif
.if B_LOAD11
.if B_EDGE11
    v_add_u32 v31, v2, ${B_COL11}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b16 v12, v163, ${H_B_OFF11_HI}       ; BsT[ty + 11 BLOCK_M / 4][tx + 16]
.if B_EDGE11
    s_mov_b64 exec, s[72:73]
.endif
.endif
.if B_LOAD12
.if B_EDGE12
    v_add_u32 v31, v2, ${B_COL12}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b16 v12, v164, ${H_B_OFF12_HI}       ; BsT[ty + 12 BLOCK_M / 4][tx + 16]
.if B_EDGE12
    s_mov_b64 exec, s[72:73]
.endif
.endif
.if B_LOAD13
.if B_EDGE13
    v_add_u32 v31, v2, ${B_COL13}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b16 v12, v165, ${H_B_OFF13_HI}       ; BsT[ty + 13 BLOCK_M / 4][tx + 16]
.if B_EDGE13
    s_mov_b64 exec, s[72:73]
.endif
.endif
.if B_LOAD14
.if B_EDGE14
    v_add_u32 v31, v2, ${B_COL14}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b16 v12, v166, ${H_B_OFF14_HI}       ; BsT[ty + 14 BLOCK_M / 4][tx + 16]
.if B_EDGE14
    s_mov_b64 exec, s[72:73]
.endif
.endif
.if B_LOAD15
.if B_EDGE15
    v_add_u32 v31, v2, ${B_COL15}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b16 v12, v167, ${H_B_OFF15_HI}       ; BsT[ty + 15 BLOCK_M / 4][tx + 16]
.if B_EDGE15
    s_mov_b64 exec, s[72:73]
.endif
.endif
    s_barrier                            ; the next tile complete
    s_sub_u32 s76, s76, 32
    s_branch wmma_tile
wmma_last:
    ds_read_b128 v[80:83], v18, 0        ; A fragment: k0 + 0 .. + 7
    ds_read_b128 v[84:87], v18, 16       ; .. + 15
    ds_read_b128 v[88:91], v19, ${H_BS}  ; B fragment 0
    ds_read_b128 v[92:95], v19, ${H_BS16}
    ds_read_b128 v[40:43], v19, ${H_BS_G1}  ; B fragment 1 (16 columns on)
    ds_read_b128 v[44:47], v19, ${H_BS_G1_16}
    ds_read_b128 v[168:171], v18, 32        ; A fragment: k0 + 16 .. + 7
    ds_read_b128 v[172:175], v18, 48       ; .. + 15
    ds_read_b128 v[176:179], v19, ${H_BS32}  ; B fragment 0
    ds_read_b128 v[180:183], v19, ${H_BS48}
    ds_read_b128 v[184:187], v19, ${H_BS_G1_32}  ; B fragment 1 (16 columns on)
    ds_read_b128 v[188:191], v19, ${H_BS_G1_48}
    s_waitcnt 6                     ; step 0's six fragment reads have landed
    v_wmma_f32_16x16x16_f16 v[100:107], v[80:87], v[88:95], v[100:107]   ; D(0), k0 + 0 .. ascending
    v_wmma_f32_16x16x16_f16 v[108:115], v[80:87], v[40:47], v[108:115]   ; D(1)
    s_waitcnt 0                     ; step 1's six fragment reads have landed
    v_wmma_f32_16x16x16_f16 v[100:107], v[168:175], v[176:183], v[100:107]   ; D(0), k0 + 16 .. ascending
    v_wmma_f32_16x16x16_f16 v[108:115], v[168:175], v[184:191], v[108:115]   ; D(1)
    s_barrier                            ; every wave is done with the tiles: Cs may overwrite them
    v_lshr_b32 v34, v0, 5                ; w
    v_lshr_b32 v18, v34, 1
    v_lshl_b32 v18, v18, 4               ; 16 (w / 2)
    v_lshr_b32 v19, v0, 4
    v_and_b32 v19, v19, 1                ; l / 16
    v_add_u32 v18, v18, v19              ; D's row 16 (w / 2) + l / 16 (+ 2 i)
    v_and_b32 v34, v34, 1
    v_lshl_b32 v34, v34, 5
    v_and_b32 v19, v0, 15
    v_add_u32 v19, v19, v34              ; its column 32 (w mod 2) + l mod 16 (+ 16 g)
    v_lshl_b32 v18, v18, 6
    v_add_u32 v18, v18, v19
    v_lshl_b32 v18, v18, 2               ; &Cs[row][column]
    ds_write_b32 v18, v100, 0            ; D(0)
    ds_write_b32 v18, v101, 512
    ds_write_b32 v18, v102, 1024
    ds_write_b32 v18, v103, 1536
    ds_write_b32 v18, v104, 2048
    ds_write_b32 v18, v105, 2560
    ds_write_b32 v18, v106, 3072
    ds_write_b32 v18, v107, 3584
    ds_write_b32 v18, v108, 64            ; D(1)
    ds_write_b32 v18, v109, 576
    ds_write_b32 v18, v110, 1088
    ds_write_b32 v18, v111, 1600
    ds_write_b32 v18, v112, 2112
    ds_write_b32 v18, v113, 2624
    ds_write_b32 v18, v114, 3136
    ds_write_b32 v18, v115, 3648
    s_barrier                            ; the block in Cs
    v_lshl_b32 v18, v2, 10
    v_lshl_b32 v19, v1, 4
    v_add_u32 v18, v18, v19              ; &Cs[4 ty][4 tx]
    ds_read_b128 v[100:103], v18, 0        ; acc[0][0 .. 3]
    ds_read_b128 v[104:107], v18, 256        ; acc[1][0 .. 3]
    ds_read_b128 v[108:111], v18, 512        ; acc[2][0 .. 3]
    ds_read_b128 v[112:115], v18, 768        ; acc[3][0 .. 3]
    s_waitcnt 0
.if VALU_LOOP
    s_branch finish
.endif
.endif
.if VALU_LOOP
valu_start:

; ---- 1. gather tile 0 (k0 = 0) into LDS; then per tile: issue the next tile's loads (k0 + 16), multiply
; this one (2.), and only then wait for them, write them to LDS and go on (their latency under the fmas) ----
    v_add_u32 v20, s81, v1               ; k
    v_cmp_gt_u32 vcc, s45, v20
    s_mov_b64 s[98:99], vcc              ; k < Kg
    v_mul_hi_u32 v21, v20, s41
    v_sub_u32 v22, v20, v21
    v_lshr_b32 v22, v22, s42
    v_add_u32 v21, v21, v22
    v_lshr_b32 v21, v21, s43             ; c = k / (KH KW)
    v_mul_lo_u32 v22, v21, s40
    v_sub_u32 v22, v20, v22              ; r = kh KW + kw
    v_mul_hi_u32 v23, v22, s49
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
    v_mul_lo_u32 v24, v24, s29           ; kw Dw
    v_add_u32 v28, v60, v23              ; ih
    v_add_u32 v29, v64, v24              ; iw
    v_mov_b32 v36, 0
    v_cmp_gt_u32 vcc, s39, v28
    s_and_b64 s[100:101], vcc, s[98:99]
    v_cmp_gt_u32 vcc, s31, v29
    s_and_b64 s[100:101], s[100:101], vcc
    s_and_b64 s[100:101], s[100:101], s[82:83]   ; inside the input, k < Kg, m < M
    s_mov_b64 vcc, s[100:101]
    v_cndmask_b32 v76, s80, 0, vcc       ; SKIP where not loaded, else 0
    v_mad_u32 v30, v28, s58, v68
    v_mad_u32 v30, v29, s59, v30
    v_add_u32 v30, v30, v26
    v_lshl_b32 v30, v30, ${SHIFT_IN}
    s_mov_b64 exec, s[100:101]
    buffer_load_${LOAD} v36, v30, s[8:11], 0    ; A[m0 + ty + 0 BLOCK_M / 4][k]
    s_mov_b64 exec, s[72:73]
    v_add_u32 v28, v61, v23              ; ih
    v_add_u32 v29, v65, v24              ; iw
    v_mov_b32 v37, 0
    v_cmp_gt_u32 vcc, s39, v28
    s_and_b64 s[100:101], vcc, s[98:99]
    v_cmp_gt_u32 vcc, s31, v29
    s_and_b64 s[100:101], s[100:101], vcc
    s_and_b64 s[100:101], s[100:101], s[84:85]   ; inside the input, k < Kg, m < M
    s_mov_b64 vcc, s[100:101]
    v_cndmask_b32 v77, s80, 0, vcc       ; SKIP where not loaded, else 0
    v_mad_u32 v30, v28, s58, v69
    v_mad_u32 v30, v29, s59, v30
    v_add_u32 v30, v30, v26
    v_lshl_b32 v30, v30, ${SHIFT_IN}
    s_mov_b64 exec, s[100:101]
    buffer_load_${LOAD} v37, v30, s[8:11], 0    ; A[m0 + ty + 1 BLOCK_M / 4][k]
    s_mov_b64 exec, s[72:73]
    v_add_u32 v28, v62, v23              ; ih
    v_add_u32 v29, v66, v24              ; iw
    v_mov_b32 v38, 0
    v_cmp_gt_u32 vcc, s39, v28
    s_and_b64 s[100:101], vcc, s[98:99]
    v_cmp_gt_u32 vcc, s31, v29
    s_and_b64 s[100:101], s[100:101], vcc
    s_and_b64 s[100:101], s[100:101], s[86:87]   ; inside the input, k < Kg, m < M
    s_mov_b64 vcc, s[100:101]
    v_cndmask_b32 v78, s80, 0, vcc       ; SKIP where not loaded, else 0
    v_mad_u32 v30, v28, s58, v70
    v_mad_u32 v30, v29, s59, v30
    v_add_u32 v30, v30, v26
    v_lshl_b32 v30, v30, ${SHIFT_IN}
    s_mov_b64 exec, s[100:101]
    buffer_load_${LOAD} v38, v30, s[8:11], 0    ; A[m0 + ty + 2 BLOCK_M / 4][k]
    s_mov_b64 exec, s[72:73]
    v_add_u32 v28, v63, v23              ; ih
    v_add_u32 v29, v67, v24              ; iw
    v_mov_b32 v39, 0
    v_cmp_gt_u32 vcc, s39, v28
    s_and_b64 s[100:101], vcc, s[98:99]
    v_cmp_gt_u32 vcc, s31, v29
    s_and_b64 s[100:101], s[100:101], vcc
    s_and_b64 s[100:101], s[100:101], s[88:89]   ; inside the input, k < Kg, m < M
    s_mov_b64 vcc, s[100:101]
    v_cndmask_b32 v79, s80, 0, vcc       ; SKIP where not loaded, else 0
    v_mad_u32 v30, v28, s58, v71
    v_mad_u32 v30, v29, s59, v30
    v_add_u32 v30, v30, v26
    v_lshl_b32 v30, v30, ${SHIFT_IN}
    s_mov_b64 exec, s[100:101]
    buffer_load_${LOAD} v39, v30, s[8:11], 0    ; A[m0 + ty + 3 BLOCK_M / 4][k]
    s_mov_b64 exec, s[72:73]
    v_add_u32 v30, v35, ${B_COL0}
    v_cmp_gt_u32 vcc, s46, v30
    s_and_b64 exec, vcc, s[98:99]        ; column < Ng, k < Kg
.if B_EDGE0
    v_add_u32 v31, v2, ${B_COL0}
    v_cmp_gt_u32 vcc, 64, v31
    s_and_b64 exec, exec, vcc            ; inside the block's 64 columns
.endif
    v_add_u32 v30, v136, v27
    v_lshl_b32 v30, v30, ${SHIFT_IN}
    buffer_load_${LOAD} v120, v30, s[12:15], 0   ; B[k][n0 + ty + 0 BLOCK_M / 4]
    s_mov_b64 exec, s[72:73]
    v_add_u32 v30, v35, ${B_COL1}
    v_cmp_gt_u32 vcc, s46, v30
    s_and_b64 exec, vcc, s[98:99]        ; column < Ng, k < Kg
.if B_EDGE1
    v_add_u32 v31, v2, ${B_COL1}
    v_cmp_gt_u32 vcc, 64, v31
    s_and_b64 exec, exec, vcc            ; inside the block's 64 columns
.endif
    v_add_u32 v30, v137, v27
    v_lshl_b32 v30, v30, ${SHIFT_IN}
    buffer_load_${LOAD} v121, v30, s[12:15], 0   ; B[k][n0 + ty + 1 BLOCK_M / 4]
    s_mov_b64 exec, s[72:73]
    v_add_u32 v30, v35, ${B_COL2}
    v_cmp_gt_u32 vcc, s46, v30
    s_and_b64 exec, vcc, s[98:99]        ; column < Ng, k < Kg
.if B_EDGE2
    v_add_u32 v31, v2, ${B_COL2}
    v_cmp_gt_u32 vcc, 64, v31
    s_and_b64 exec, exec, vcc            ; inside the block's 64 columns
.endif
    v_add_u32 v30, v138, v27
    v_lshl_b32 v30, v30, ${SHIFT_IN}
    buffer_load_${LOAD} v122, v30, s[12:15], 0   ; B[k][n0 + ty + 2 BLOCK_M / 4]
    s_mov_b64 exec, s[72:73]
    v_add_u32 v30, v35, ${B_COL3}
    v_cmp_gt_u32 vcc, s46, v30
    s_and_b64 exec, vcc, s[98:99]        ; column < Ng, k < Kg
.if B_EDGE3
    v_add_u32 v31, v2, ${B_COL3}
    v_cmp_gt_u32 vcc, 64, v31
    s_and_b64 exec, exec, vcc            ; inside the block's 64 columns
.endif
    v_add_u32 v30, v139, v27
    v_lshl_b32 v30, v30, ${SHIFT_IN}
    buffer_load_${LOAD} v123, v30, s[12:15], 0   ; B[k][n0 + ty + 3 BLOCK_M / 4]
    s_mov_b64 exec, s[72:73]
.if B_LOAD4
    v_add_u32 v30, v35, ${B_COL4}
    v_cmp_gt_u32 vcc, s46, v30
    s_and_b64 exec, vcc, s[98:99]        ; column < Ng, k < Kg
.if B_EDGE4
    v_add_u32 v31, v2, ${B_COL4}
    v_cmp_gt_u32 vcc, 64, v31
    s_and_b64 exec, exec, vcc            ; inside the block's 64 columns
.endif
    v_add_u32 v30, v140, v27
    v_lshl_b32 v30, v30, ${SHIFT_IN}
    buffer_load_${LOAD} v124, v30, s[12:15], 0   ; B[k][n0 + ty + 4 BLOCK_M / 4]
    s_mov_b64 exec, s[72:73]
.endif
.if B_LOAD5
    v_add_u32 v30, v35, ${B_COL5}
    v_cmp_gt_u32 vcc, s46, v30
    s_and_b64 exec, vcc, s[98:99]        ; column < Ng, k < Kg
.if B_EDGE5
    v_add_u32 v31, v2, ${B_COL5}
    v_cmp_gt_u32 vcc, 64, v31
    s_and_b64 exec, exec, vcc            ; inside the block's 64 columns
.endif
    v_add_u32 v30, v141, v27
    v_lshl_b32 v30, v30, ${SHIFT_IN}
    buffer_load_${LOAD} v125, v30, s[12:15], 0   ; B[k][n0 + ty + 5 BLOCK_M / 4]
    s_mov_b64 exec, s[72:73]
.endif
.if B_LOAD6
    v_add_u32 v30, v35, ${B_COL6}
    v_cmp_gt_u32 vcc, s46, v30
    s_and_b64 exec, vcc, s[98:99]        ; column < Ng, k < Kg
.if B_EDGE6
    v_add_u32 v31, v2, ${B_COL6}
    v_cmp_gt_u32 vcc, 64, v31
    s_and_b64 exec, exec, vcc            ; inside the block's 64 columns
.endif
    v_add_u32 v30, v142, v27
    v_lshl_b32 v30, v30, ${SHIFT_IN}
    buffer_load_${LOAD} v126, v30, s[12:15], 0   ; B[k][n0 + ty + 6 BLOCK_M / 4]
    s_mov_b64 exec, s[72:73]
.endif
.if B_LOAD7
    v_add_u32 v30, v35, ${B_COL7}
    v_cmp_gt_u32 vcc, s46, v30
    s_and_b64 exec, vcc, s[98:99]        ; column < Ng, k < Kg
.if B_EDGE7
    v_add_u32 v31, v2, ${B_COL7}
    v_cmp_gt_u32 vcc, 64, v31
    s_and_b64 exec, exec, vcc            ; inside the block's 64 columns
.endif
    v_add_u32 v30, v143, v27
    v_lshl_b32 v30, v30, ${SHIFT_IN}
    buffer_load_${LOAD} v127, v30, s[12:15], 0   ; B[k][n0 + ty + 7 BLOCK_M / 4]
    s_mov_b64 exec, s[72:73]
.endif
.if B_LOAD8
    v_add_u32 v30, v35, ${B_COL8}
    v_cmp_gt_u32 vcc, s46, v30
    s_and_b64 exec, vcc, s[98:99]        ; column < Ng, k < Kg
.if B_EDGE8
    v_add_u32 v31, v2, ${B_COL8}
    v_cmp_gt_u32 vcc, 64, v31
    s_and_b64 exec, exec, vcc            ; inside the block's 64 columns
.endif
    v_add_u32 v30, v144, v27
    v_lshl_b32 v30, v30, ${SHIFT_IN}
    buffer_load_${LOAD} v128, v30, s[12:15], 0   ; B[k][n0 + ty + 8 BLOCK_M / 4]
    s_mov_b64 exec, s[72:73]
.endif
.if B_LOAD9
    v_add_u32 v30, v35, ${B_COL9}
    v_cmp_gt_u32 vcc, s46, v30
    s_and_b64 exec, vcc, s[98:99]        ; column < Ng, k < Kg
.if B_EDGE9
    v_add_u32 v31, v2, ${B_COL9}
    v_cmp_gt_u32 vcc, 64, v31
    s_and_b64 exec, exec, vcc            ; inside the block's 64 columns
.endif
    v_add_u32 v30, v145, v27
    v_lshl_b32 v30, v30, ${SHIFT_IN}
    buffer_load_${LOAD} v129, v30, s[12:15], 0   ; B[k][n0 + ty + 9 BLOCK_M / 4]
    s_mov_b64 exec, s[72:73]
.endif
.if B_LOAD10
    v_add_u32 v30, v35, ${B_COL10}
    v_cmp_gt_u32 vcc, s46, v30
    s_and_b64 exec, vcc, s[98:99]        ; column < Ng, k < Kg
.if B_EDGE10
    v_add_u32 v31, v2, ${B_COL10}
    v_cmp_gt_u32 vcc, 64, v31
    s_and_b64 exec, exec, vcc            ; inside the block's 64 columns
.endif
    v_add_u32 v30, v146, v27
    v_lshl_b32 v30, v30, ${SHIFT_IN}
    buffer_load_${LOAD} v130, v30, s[12:15], 0   ; B[k][n0 + ty + 10 BLOCK_M / 4]
    s_mov_b64 exec, s[72:73]
.endif
.if B_LOAD11
    v_add_u32 v30, v35, ${B_COL11}
    v_cmp_gt_u32 vcc, s46, v30
    s_and_b64 exec, vcc, s[98:99]        ; column < Ng, k < Kg
.if B_EDGE11
    v_add_u32 v31, v2, ${B_COL11}
    v_cmp_gt_u32 vcc, 64, v31
    s_and_b64 exec, exec, vcc            ; inside the block's 64 columns
.endif
    v_add_u32 v30, v147, v27
    v_lshl_b32 v30, v30, ${SHIFT_IN}
    buffer_load_${LOAD} v131, v30, s[12:15], 0   ; B[k][n0 + ty + 11 BLOCK_M / 4]
    s_mov_b64 exec, s[72:73]
.endif
.if B_LOAD12
    v_add_u32 v30, v35, ${B_COL12}
    v_cmp_gt_u32 vcc, s46, v30
    s_and_b64 exec, vcc, s[98:99]        ; column < Ng, k < Kg
.if B_EDGE12
    v_add_u32 v31, v2, ${B_COL12}
    v_cmp_gt_u32 vcc, 64, v31
    s_and_b64 exec, exec, vcc            ; inside the block's 64 columns
.endif
    v_add_u32 v30, v148, v27
    v_lshl_b32 v30, v30, ${SHIFT_IN}
    buffer_load_${LOAD} v132, v30, s[12:15], 0   ; B[k][n0 + ty + 12 BLOCK_M / 4]
    s_mov_b64 exec, s[72:73]
.endif
.if B_LOAD13
    v_add_u32 v30, v35, ${B_COL13}
    v_cmp_gt_u32 vcc, s46, v30
    s_and_b64 exec, vcc, s[98:99]        ; column < Ng, k < Kg
.if B_EDGE13
    v_add_u32 v31, v2, ${B_COL13}
    v_cmp_gt_u32 vcc, 64, v31
    s_and_b64 exec, exec, vcc            ; inside the block's 64 columns
.endif
    v_add_u32 v30, v149, v27
    v_lshl_b32 v30, v30, ${SHIFT_IN}
    buffer_load_${LOAD} v133, v30, s[12:15], 0   ; B[k][n0 + ty + 13 BLOCK_M / 4]
    s_mov_b64 exec, s[72:73]
.endif
.if B_LOAD14
    v_add_u32 v30, v35, ${B_COL14}
    v_cmp_gt_u32 vcc, s46, v30
    s_and_b64 exec, vcc, s[98:99]        ; column < Ng, k < Kg
.if B_EDGE14
    v_add_u32 v31, v2, ${B_COL14}
    v_cmp_gt_u32 vcc, 64, v31
    s_and_b64 exec, exec, vcc            ; inside the block's 64 columns
.endif
    v_add_u32 v30, v150, v27
    v_lshl_b32 v30, v30, ${SHIFT_IN}
    buffer_load_${LOAD} v134, v30, s[12:15], 0   ; B[k][n0 + ty + 14 BLOCK_M / 4]
    s_mov_b64 exec, s[72:73]
.endif
.if B_LOAD15
    v_add_u32 v30, v35, ${B_COL15}
    v_cmp_gt_u32 vcc, s46, v30
    s_and_b64 exec, vcc, s[98:99]        ; column < Ng, k < Kg
.if B_EDGE15
    v_add_u32 v31, v2, ${B_COL15}
    v_cmp_gt_u32 vcc, 64, v31
    s_and_b64 exec, exec, vcc            ; inside the block's 64 columns
.endif
    v_add_u32 v30, v151, v27
    v_lshl_b32 v30, v30, ${SHIFT_IN}
    buffer_load_${LOAD} v135, v30, s[12:15], 0   ; B[k][n0 + ty + 15 BLOCK_M / 4]
    s_mov_b64 exec, s[72:73]
.endif
    s_waitcnt 0
.if WIDEN_F16
    v_cvt_f32_f16 v36, v36
.endif
.if PADDED
    v_cmp_u_f32 vcc, v36, v36
    v_cndmask_b32 v36, v36, 0x7FC00000, vcc   ; a NaN x: the canonical NaN (never SKIP)
    v_or_b32 v36, v36, v76       ; not loaded (0): SKIP
.endif
    ds_write_b32 v32, v36, ${A_OFF0}        ; AsT[tx][ty + 0 BLOCK_M / 4]
.if WIDEN_F16
    v_cvt_f32_f16 v37, v37
.endif
.if PADDED
    v_cmp_u_f32 vcc, v37, v37
    v_cndmask_b32 v37, v37, 0x7FC00000, vcc   ; a NaN x: the canonical NaN (never SKIP)
    v_or_b32 v37, v37, v77       ; not loaded (0): SKIP
.endif
    ds_write_b32 v32, v37, ${A_OFF1}        ; AsT[tx][ty + 1 BLOCK_M / 4]
.if WIDEN_F16
    v_cvt_f32_f16 v38, v38
.endif
.if PADDED
    v_cmp_u_f32 vcc, v38, v38
    v_cndmask_b32 v38, v38, 0x7FC00000, vcc   ; a NaN x: the canonical NaN (never SKIP)
    v_or_b32 v38, v38, v78       ; not loaded (0): SKIP
.endif
    ds_write_b32 v32, v38, ${A_OFF2}        ; AsT[tx][ty + 2 BLOCK_M / 4]
.if WIDEN_F16
    v_cvt_f32_f16 v39, v39
.endif
.if PADDED
    v_cmp_u_f32 vcc, v39, v39
    v_cndmask_b32 v39, v39, 0x7FC00000, vcc   ; a NaN x: the canonical NaN (never SKIP)
    v_or_b32 v39, v39, v79       ; not loaded (0): SKIP
.endif
    ds_write_b32 v32, v39, ${A_OFF3}        ; AsT[tx][ty + 3 BLOCK_M / 4]
.if WIDEN_F16
    v_cvt_f32_f16 v120, v120
.endif
.if B_EDGE0
    v_add_u32 v31, v2, ${B_COL0}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b32 v33, v120, ${B_OFF0}       ; Bs[tx][ty + 0 BLOCK_M / 4]
.if B_EDGE0
    s_mov_b64 exec, s[72:73]
.endif
.if WIDEN_F16
    v_cvt_f32_f16 v121, v121
.endif
.if B_EDGE1
    v_add_u32 v31, v2, ${B_COL1}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b32 v33, v121, ${B_OFF1}       ; Bs[tx][ty + 1 BLOCK_M / 4]
.if B_EDGE1
    s_mov_b64 exec, s[72:73]
.endif
.if WIDEN_F16
    v_cvt_f32_f16 v122, v122
.endif
.if B_EDGE2
    v_add_u32 v31, v2, ${B_COL2}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b32 v33, v122, ${B_OFF2}       ; Bs[tx][ty + 2 BLOCK_M / 4]
.if B_EDGE2
    s_mov_b64 exec, s[72:73]
.endif
.if WIDEN_F16
    v_cvt_f32_f16 v123, v123
.endif
.if B_EDGE3
    v_add_u32 v31, v2, ${B_COL3}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b32 v33, v123, ${B_OFF3}       ; Bs[tx][ty + 3 BLOCK_M / 4]
.if B_EDGE3
    s_mov_b64 exec, s[72:73]
.endif
.if B_LOAD4
.if WIDEN_F16
    v_cvt_f32_f16 v124, v124
.endif
.if B_EDGE4
    v_add_u32 v31, v2, ${B_COL4}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b32 v33, v124, ${B_OFF4}       ; Bs[tx][ty + 4 BLOCK_M / 4]
.if B_EDGE4
    s_mov_b64 exec, s[72:73]
.endif
.endif
.if B_LOAD5
.if WIDEN_F16
    v_cvt_f32_f16 v125, v125
.endif
.if B_EDGE5
    v_add_u32 v31, v2, ${B_COL5}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b32 v33, v125, ${B_OFF5}       ; Bs[tx][ty + 5 BLOCK_M / 4]
.if B_EDGE5
    s_mov_b64 exec, s[72:73]
.endif
.endif
.if B_LOAD6
.if WIDEN_F16
    v_cvt_f32_f16 v126, v126
.endif
.if B_EDGE6
    v_add_u32 v31, v2, ${B_COL6}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b32 v33, v126, ${B_OFF6}       ; Bs[tx][ty + 6 BLOCK_M / 4]
.if B_EDGE6
    s_mov_b64 exec, s[72:73]
.endif
.endif
.if B_LOAD7
.if WIDEN_F16
    v_cvt_f32_f16 v127, v127
.endif
.if B_EDGE7
    v_add_u32 v31, v2, ${B_COL7}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b32 v33, v127, ${B_OFF7}       ; Bs[tx][ty + 7 BLOCK_M / 4]
.if B_EDGE7
    s_mov_b64 exec, s[72:73]
.endif
.endif
.if B_LOAD8
.if WIDEN_F16
    v_cvt_f32_f16 v128, v128
.endif
.if B_EDGE8
    v_add_u32 v31, v2, ${B_COL8}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b32 v33, v128, ${B_OFF8}       ; Bs[tx][ty + 8 BLOCK_M / 4]
.if B_EDGE8
    s_mov_b64 exec, s[72:73]
.endif
.endif
.if B_LOAD9
.if WIDEN_F16
    v_cvt_f32_f16 v129, v129
.endif
.if B_EDGE9
    v_add_u32 v31, v2, ${B_COL9}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b32 v33, v129, ${B_OFF9}       ; Bs[tx][ty + 9 BLOCK_M / 4]
.if B_EDGE9
    s_mov_b64 exec, s[72:73]
.endif
.endif
.if B_LOAD10
.if WIDEN_F16
    v_cvt_f32_f16 v130, v130
.endif
.if B_EDGE10
    v_add_u32 v31, v2, ${B_COL10}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b32 v33, v130, ${B_OFF10}       ; Bs[tx][ty + 10 BLOCK_M / 4]
.if B_EDGE10
    s_mov_b64 exec, s[72:73]
.endif
.endif
.if B_LOAD11
.if WIDEN_F16
    v_cvt_f32_f16 v131, v131
.endif
.if B_EDGE11
    v_add_u32 v31, v2, ${B_COL11}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b32 v33, v131, ${B_OFF11}       ; Bs[tx][ty + 11 BLOCK_M / 4]
.if B_EDGE11
    s_mov_b64 exec, s[72:73]
.endif
.endif
.if B_LOAD12
.if WIDEN_F16
    v_cvt_f32_f16 v132, v132
.endif
.if B_EDGE12
    v_add_u32 v31, v2, ${B_COL12}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b32 v33, v132, ${B_OFF12}       ; Bs[tx][ty + 12 BLOCK_M / 4]
.if B_EDGE12
    s_mov_b64 exec, s[72:73]
.endif
.endif
.if B_LOAD13
.if WIDEN_F16
    v_cvt_f32_f16 v133, v133
.endif
.if B_EDGE13
    v_add_u32 v31, v2, ${B_COL13}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b32 v33, v133, ${B_OFF13}       ; Bs[tx][ty + 13 BLOCK_M / 4]
.if B_EDGE13
    s_mov_b64 exec, s[72:73]
.endif
.endif
.if B_LOAD14
.if WIDEN_F16
    v_cvt_f32_f16 v134, v134
.endif
.if B_EDGE14
    v_add_u32 v31, v2, ${B_COL14}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b32 v33, v134, ${B_OFF14}       ; Bs[tx][ty + 14 BLOCK_M / 4]
.if B_EDGE14
    s_mov_b64 exec, s[72:73]
.endif
.endif
.if B_LOAD15
.if WIDEN_F16
    v_cvt_f32_f16 v135, v135
.endif
.if B_EDGE15
    v_add_u32 v31, v2, ${B_COL15}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b32 v33, v135, ${B_OFF15}       ; Bs[tx][ty + 15 BLOCK_M / 4]
.if B_EDGE15
    s_mov_b64 exec, s[72:73]
.endif
.endif
    s_barrier                            ; tile 0 complete
tile:
    s_mov_b32 s79, 16
    s_cmp_le_u32 s76, 16
    s_cbranch_scc1 last_tile             ; no tile behind this one
    s_add_u32 s81, s81, 16               ; the next tile's k0
    v_add_u32 v20, s81, v1               ; k
    v_cmp_gt_u32 vcc, s45, v20
    s_mov_b64 s[98:99], vcc              ; k < Kg
    v_mul_hi_u32 v21, v20, s41
    v_sub_u32 v22, v20, v21
    v_lshr_b32 v22, v22, s42
    v_add_u32 v21, v21, v22
    v_lshr_b32 v21, v21, s43             ; c = k / (KH KW)
    v_mul_lo_u32 v22, v21, s40
    v_sub_u32 v22, v20, v22              ; r = kh KW + kw
    v_mul_hi_u32 v23, v22, s49
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
    v_mul_lo_u32 v24, v24, s29           ; kw Dw
    v_add_u32 v28, v60, v23              ; ih
    v_add_u32 v29, v64, v24              ; iw
    v_mov_b32 v36, 0
    v_cmp_gt_u32 vcc, s39, v28
    s_and_b64 s[100:101], vcc, s[98:99]
    v_cmp_gt_u32 vcc, s31, v29
    s_and_b64 s[100:101], s[100:101], vcc
    s_and_b64 s[100:101], s[100:101], s[82:83]   ; inside the input, k < Kg, m < M
    s_mov_b64 vcc, s[100:101]
    v_cndmask_b32 v76, s80, 0, vcc       ; SKIP where not loaded, else 0
    v_mad_u32 v30, v28, s58, v68
    v_mad_u32 v30, v29, s59, v30
    v_add_u32 v30, v30, v26
    v_lshl_b32 v30, v30, ${SHIFT_IN}
    s_mov_b64 exec, s[100:101]
    buffer_load_${LOAD} v36, v30, s[8:11], 0    ; A[m0 + ty + 0 BLOCK_M / 4][k]
    s_mov_b64 exec, s[72:73]
    v_add_u32 v28, v61, v23              ; ih
    v_add_u32 v29, v65, v24              ; iw
    v_mov_b32 v37, 0
    v_cmp_gt_u32 vcc, s39, v28
    s_and_b64 s[100:101], vcc, s[98:99]
    v_cmp_gt_u32 vcc, s31, v29
    s_and_b64 s[100:101], s[100:101], vcc
    s_and_b64 s[100:101], s[100:101], s[84:85]   ; inside the input, k < Kg, m < M
    s_mov_b64 vcc, s[100:101]
    v_cndmask_b32 v77, s80, 0, vcc       ; SKIP where not loaded, else 0
    v_mad_u32 v30, v28, s58, v69
    v_mad_u32 v30, v29, s59, v30
    v_add_u32 v30, v30, v26
    v_lshl_b32 v30, v30, ${SHIFT_IN}
    s_mov_b64 exec, s[100:101]
    buffer_load_${LOAD} v37, v30, s[8:11], 0    ; A[m0 + ty + 1 BLOCK_M / 4][k]
    s_mov_b64 exec, s[72:73]
    v_add_u32 v28, v62, v23              ; ih
    v_add_u32 v29, v66, v24              ; iw
    v_mov_b32 v38, 0
    v_cmp_gt_u32 vcc, s39, v28
    s_and_b64 s[100:101], vcc, s[98:99]
    v_cmp_gt_u32 vcc, s31, v29
    s_and_b64 s[100:101], s[100:101], vcc
    s_and_b64 s[100:101], s[100:101], s[86:87]   ; inside the input, k < Kg, m < M
    s_mov_b64 vcc, s[100:101]
    v_cndmask_b32 v78, s80, 0, vcc       ; SKIP where not loaded, else 0
    v_mad_u32 v30, v28, s58, v70
    v_mad_u32 v30, v29, s59, v30
    v_add_u32 v30, v30, v26
    v_lshl_b32 v30, v30, ${SHIFT_IN}
    s_mov_b64 exec, s[100:101]
    buffer_load_${LOAD} v38, v30, s[8:11], 0    ; A[m0 + ty + 2 BLOCK_M / 4][k]
    s_mov_b64 exec, s[72:73]
    v_add_u32 v28, v63, v23              ; ih
    v_add_u32 v29, v67, v24              ; iw
    v_mov_b32 v39, 0
    v_cmp_gt_u32 vcc, s39, v28
    s_and_b64 s[100:101], vcc, s[98:99]
    v_cmp_gt_u32 vcc, s31, v29
    s_and_b64 s[100:101], s[100:101], vcc
    s_and_b64 s[100:101], s[100:101], s[88:89]   ; inside the input, k < Kg, m < M
    s_mov_b64 vcc, s[100:101]
    v_cndmask_b32 v79, s80, 0, vcc       ; SKIP where not loaded, else 0
    v_mad_u32 v30, v28, s58, v71
    v_mad_u32 v30, v29, s59, v30
    v_add_u32 v30, v30, v26
    v_lshl_b32 v30, v30, ${SHIFT_IN}
    s_mov_b64 exec, s[100:101]
    buffer_load_${LOAD} v39, v30, s[8:11], 0    ; A[m0 + ty + 3 BLOCK_M / 4][k]
    s_mov_b64 exec, s[72:73]
    v_add_u32 v30, v35, ${B_COL0}
    v_cmp_gt_u32 vcc, s46, v30
    s_and_b64 exec, vcc, s[98:99]        ; column < Ng, k < Kg
.if B_EDGE0
    v_add_u32 v31, v2, ${B_COL0}
    v_cmp_gt_u32 vcc, 64, v31
    s_and_b64 exec, exec, vcc            ; inside the block's 64 columns
.endif
    v_add_u32 v30, v136, v27
    v_lshl_b32 v30, v30, ${SHIFT_IN}
    buffer_load_${LOAD} v120, v30, s[12:15], 0   ; B[k][n0 + ty + 0 BLOCK_M / 4]
    s_mov_b64 exec, s[72:73]
    v_add_u32 v30, v35, ${B_COL1}
    v_cmp_gt_u32 vcc, s46, v30
    s_and_b64 exec, vcc, s[98:99]        ; column < Ng, k < Kg
.if B_EDGE1
    v_add_u32 v31, v2, ${B_COL1}
    v_cmp_gt_u32 vcc, 64, v31
    s_and_b64 exec, exec, vcc            ; inside the block's 64 columns
.endif
    v_add_u32 v30, v137, v27
    v_lshl_b32 v30, v30, ${SHIFT_IN}
    buffer_load_${LOAD} v121, v30, s[12:15], 0   ; B[k][n0 + ty + 1 BLOCK_M / 4]
    s_mov_b64 exec, s[72:73]
    v_add_u32 v30, v35, ${B_COL2}
    v_cmp_gt_u32 vcc, s46, v30
    s_and_b64 exec, vcc, s[98:99]        ; column < Ng, k < Kg
.if B_EDGE2
    v_add_u32 v31, v2, ${B_COL2}
    v_cmp_gt_u32 vcc, 64, v31
    s_and_b64 exec, exec, vcc            ; inside the block's 64 columns
.endif
    v_add_u32 v30, v138, v27
    v_lshl_b32 v30, v30, ${SHIFT_IN}
    buffer_load_${LOAD} v122, v30, s[12:15], 0   ; B[k][n0 + ty + 2 BLOCK_M / 4]
    s_mov_b64 exec, s[72:73]
    v_add_u32 v30, v35, ${B_COL3}
    v_cmp_gt_u32 vcc, s46, v30
    s_and_b64 exec, vcc, s[98:99]        ; column < Ng, k < Kg
.if B_EDGE3
    v_add_u32 v31, v2, ${B_COL3}
    v_cmp_gt_u32 vcc, 64, v31
    s_and_b64 exec, exec, vcc            ; inside the block's 64 columns
.endif
    v_add_u32 v30, v139, v27
    v_lshl_b32 v30, v30, ${SHIFT_IN}
    buffer_load_${LOAD} v123, v30, s[12:15], 0   ; B[k][n0 + ty + 3 BLOCK_M / 4]
    s_mov_b64 exec, s[72:73]
.if B_LOAD4
    v_add_u32 v30, v35, ${B_COL4}
    v_cmp_gt_u32 vcc, s46, v30
    s_and_b64 exec, vcc, s[98:99]        ; column < Ng, k < Kg
.if B_EDGE4
    v_add_u32 v31, v2, ${B_COL4}
    v_cmp_gt_u32 vcc, 64, v31
    s_and_b64 exec, exec, vcc            ; inside the block's 64 columns
.endif
    v_add_u32 v30, v140, v27
    v_lshl_b32 v30, v30, ${SHIFT_IN}
    buffer_load_${LOAD} v124, v30, s[12:15], 0   ; B[k][n0 + ty + 4 BLOCK_M / 4]
    s_mov_b64 exec, s[72:73]
.endif
.if B_LOAD5
    v_add_u32 v30, v35, ${B_COL5}
    v_cmp_gt_u32 vcc, s46, v30
    s_and_b64 exec, vcc, s[98:99]        ; column < Ng, k < Kg
.if B_EDGE5
    v_add_u32 v31, v2, ${B_COL5}
    v_cmp_gt_u32 vcc, 64, v31
    s_and_b64 exec, exec, vcc            ; inside the block's 64 columns
.endif
    v_add_u32 v30, v141, v27
    v_lshl_b32 v30, v30, ${SHIFT_IN}
    buffer_load_${LOAD} v125, v30, s[12:15], 0   ; B[k][n0 + ty + 5 BLOCK_M / 4]
    s_mov_b64 exec, s[72:73]
.endif
.if B_LOAD6
    v_add_u32 v30, v35, ${B_COL6}
    v_cmp_gt_u32 vcc, s46, v30
    s_and_b64 exec, vcc, s[98:99]        ; column < Ng, k < Kg
.if B_EDGE6
    v_add_u32 v31, v2, ${B_COL6}
    v_cmp_gt_u32 vcc, 64, v31
    s_and_b64 exec, exec, vcc            ; inside the block's 64 columns
.endif
    v_add_u32 v30, v142, v27
    v_lshl_b32 v30, v30, ${SHIFT_IN}
    buffer_load_${LOAD} v126, v30, s[12:15], 0   ; B[k][n0 + ty + 6 BLOCK_M / 4]
    s_mov_b64 exec, s[72:73]
.endif
.if B_LOAD7
    v_add_u32 v30, v35, ${B_COL7}
    v_cmp_gt_u32 vcc, s46, v30
    s_and_b64 exec, vcc, s[98:99]        ; column < Ng, k < Kg
.if B_EDGE7
    v_add_u32 v31, v2, ${B_COL7}
    v_cmp_gt_u32 vcc, 64, v31
    s_and_b64 exec, exec, vcc            ; inside the block's 64 columns
.endif
    v_add_u32 v30, v143, v27
    v_lshl_b32 v30, v30, ${SHIFT_IN}
    buffer_load_${LOAD} v127, v30, s[12:15], 0   ; B[k][n0 + ty + 7 BLOCK_M / 4]
    s_mov_b64 exec, s[72:73]
.endif
.if B_LOAD8
    v_add_u32 v30, v35, ${B_COL8}
    v_cmp_gt_u32 vcc, s46, v30
    s_and_b64 exec, vcc, s[98:99]        ; column < Ng, k < Kg
.if B_EDGE8
    v_add_u32 v31, v2, ${B_COL8}
    v_cmp_gt_u32 vcc, 64, v31
    s_and_b64 exec, exec, vcc            ; inside the block's 64 columns
.endif
    v_add_u32 v30, v144, v27
    v_lshl_b32 v30, v30, ${SHIFT_IN}
    buffer_load_${LOAD} v128, v30, s[12:15], 0   ; B[k][n0 + ty + 8 BLOCK_M / 4]
    s_mov_b64 exec, s[72:73]
.endif
.if B_LOAD9
    v_add_u32 v30, v35, ${B_COL9}
    v_cmp_gt_u32 vcc, s46, v30
    s_and_b64 exec, vcc, s[98:99]        ; column < Ng, k < Kg
.if B_EDGE9
    v_add_u32 v31, v2, ${B_COL9}
    v_cmp_gt_u32 vcc, 64, v31
    s_and_b64 exec, exec, vcc            ; inside the block's 64 columns
.endif
    v_add_u32 v30, v145, v27
    v_lshl_b32 v30, v30, ${SHIFT_IN}
    buffer_load_${LOAD} v129, v30, s[12:15], 0   ; B[k][n0 + ty + 9 BLOCK_M / 4]
    s_mov_b64 exec, s[72:73]
.endif
.if B_LOAD10
    v_add_u32 v30, v35, ${B_COL10}
    v_cmp_gt_u32 vcc, s46, v30
    s_and_b64 exec, vcc, s[98:99]        ; column < Ng, k < Kg
.if B_EDGE10
    v_add_u32 v31, v2, ${B_COL10}
    v_cmp_gt_u32 vcc, 64, v31
    s_and_b64 exec, exec, vcc            ; inside the block's 64 columns
.endif
    v_add_u32 v30, v146, v27
    v_lshl_b32 v30, v30, ${SHIFT_IN}
    buffer_load_${LOAD} v130, v30, s[12:15], 0   ; B[k][n0 + ty + 10 BLOCK_M / 4]
    s_mov_b64 exec, s[72:73]
.endif
.if B_LOAD11
    v_add_u32 v30, v35, ${B_COL11}
    v_cmp_gt_u32 vcc, s46, v30
    s_and_b64 exec, vcc, s[98:99]        ; column < Ng, k < Kg
.if B_EDGE11
    v_add_u32 v31, v2, ${B_COL11}
    v_cmp_gt_u32 vcc, 64, v31
    s_and_b64 exec, exec, vcc            ; inside the block's 64 columns
.endif
    v_add_u32 v30, v147, v27
    v_lshl_b32 v30, v30, ${SHIFT_IN}
    buffer_load_${LOAD} v131, v30, s[12:15], 0   ; B[k][n0 + ty + 11 BLOCK_M / 4]
    s_mov_b64 exec, s[72:73]
.endif
.if B_LOAD12
    v_add_u32 v30, v35, ${B_COL12}
    v_cmp_gt_u32 vcc, s46, v30
    s_and_b64 exec, vcc, s[98:99]        ; column < Ng, k < Kg
.if B_EDGE12
    v_add_u32 v31, v2, ${B_COL12}
    v_cmp_gt_u32 vcc, 64, v31
    s_and_b64 exec, exec, vcc            ; inside the block's 64 columns
.endif
    v_add_u32 v30, v148, v27
    v_lshl_b32 v30, v30, ${SHIFT_IN}
    buffer_load_${LOAD} v132, v30, s[12:15], 0   ; B[k][n0 + ty + 12 BLOCK_M / 4]
    s_mov_b64 exec, s[72:73]
.endif
.if B_LOAD13
    v_add_u32 v30, v35, ${B_COL13}
    v_cmp_gt_u32 vcc, s46, v30
    s_and_b64 exec, vcc, s[98:99]        ; column < Ng, k < Kg
.if B_EDGE13
    v_add_u32 v31, v2, ${B_COL13}
    v_cmp_gt_u32 vcc, 64, v31
    s_and_b64 exec, exec, vcc            ; inside the block's 64 columns
.endif
    v_add_u32 v30, v149, v27
    v_lshl_b32 v30, v30, ${SHIFT_IN}
    buffer_load_${LOAD} v133, v30, s[12:15], 0   ; B[k][n0 + ty + 13 BLOCK_M / 4]
    s_mov_b64 exec, s[72:73]
.endif
.if B_LOAD14
    v_add_u32 v30, v35, ${B_COL14}
    v_cmp_gt_u32 vcc, s46, v30
    s_and_b64 exec, vcc, s[98:99]        ; column < Ng, k < Kg
.if B_EDGE14
    v_add_u32 v31, v2, ${B_COL14}
    v_cmp_gt_u32 vcc, 64, v31
    s_and_b64 exec, exec, vcc            ; inside the block's 64 columns
.endif
    v_add_u32 v30, v150, v27
    v_lshl_b32 v30, v30, ${SHIFT_IN}
    buffer_load_${LOAD} v134, v30, s[12:15], 0   ; B[k][n0 + ty + 14 BLOCK_M / 4]
    s_mov_b64 exec, s[72:73]
.endif
.if B_LOAD15
    v_add_u32 v30, v35, ${B_COL15}
    v_cmp_gt_u32 vcc, s46, v30
    s_and_b64 exec, vcc, s[98:99]        ; column < Ng, k < Kg
.if B_EDGE15
    v_add_u32 v31, v2, ${B_COL15}
    v_cmp_gt_u32 vcc, 64, v31
    s_and_b64 exec, exec, vcc            ; inside the block's 64 columns
.endif
    v_add_u32 v30, v151, v27
    v_lshl_b32 v30, v30, ${SHIFT_IN}
    buffer_load_${LOAD} v135, v30, s[12:15], 0   ; B[k][n0 + ty + 15 BLOCK_M / 4]
    s_mov_b64 exec, s[72:73]
.endif
; ---- 2. this tile's 16 k, ascending: 16 fmas each, row i under the mask a[i] != SKIP (the next tile's loads
;      in flight: INFLIGHT of them)
    v_lshl_b32 v18, v2, 4                ; &AsT[0][4 ty]
    v_lshl_b32 v19, v1, 4                ; &Bs[0][4 tx] - B_BASE
    s_mov_b32 s100, s79
k_next:
    ds_read_b128 v[40:43], v18, 0        ; a[0..3] = A[m0 + 4 ty .. + 3][k]
    ds_read_b128 v[44:47], v19, ${B_BASE}   ; b[0..3] = B[k][n0 + 4 tx .. + 3]
    s_waitcnt ${INFLIGHT}
.if PADDED
    v_cmp_ne_u32 vcc, s80, v40
    s_mov_b64 exec, vcc                  ; row 0's tap inside the input
.endif
    v_fma_f32 v100, v40, v44, v100   ; acc[0][0] = fma(a[0], b[0], acc[0][0])
    v_fma_f32 v101, v40, v45, v101   ; acc[0][1] = fma(a[0], b[1], acc[0][1])
    v_fma_f32 v102, v40, v46, v102   ; acc[0][2] = fma(a[0], b[2], acc[0][2])
    v_fma_f32 v103, v40, v47, v103   ; acc[0][3] = fma(a[0], b[3], acc[0][3])
.if PADDED
    s_mov_b64 exec, s[72:73]
.endif
.if PADDED
    v_cmp_ne_u32 vcc, s80, v41
    s_mov_b64 exec, vcc                  ; row 1's tap inside the input
.endif
    v_fma_f32 v104, v41, v44, v104   ; acc[1][0] = fma(a[1], b[0], acc[1][0])
    v_fma_f32 v105, v41, v45, v105   ; acc[1][1] = fma(a[1], b[1], acc[1][1])
    v_fma_f32 v106, v41, v46, v106   ; acc[1][2] = fma(a[1], b[2], acc[1][2])
    v_fma_f32 v107, v41, v47, v107   ; acc[1][3] = fma(a[1], b[3], acc[1][3])
.if PADDED
    s_mov_b64 exec, s[72:73]
.endif
.if PADDED
    v_cmp_ne_u32 vcc, s80, v42
    s_mov_b64 exec, vcc                  ; row 2's tap inside the input
.endif
    v_fma_f32 v108, v42, v44, v108   ; acc[2][0] = fma(a[2], b[0], acc[2][0])
    v_fma_f32 v109, v42, v45, v109   ; acc[2][1] = fma(a[2], b[1], acc[2][1])
    v_fma_f32 v110, v42, v46, v110   ; acc[2][2] = fma(a[2], b[2], acc[2][2])
    v_fma_f32 v111, v42, v47, v111   ; acc[2][3] = fma(a[2], b[3], acc[2][3])
.if PADDED
    s_mov_b64 exec, s[72:73]
.endif
.if PADDED
    v_cmp_ne_u32 vcc, s80, v43
    s_mov_b64 exec, vcc                  ; row 3's tap inside the input
.endif
    v_fma_f32 v112, v43, v44, v112   ; acc[3][0] = fma(a[3], b[0], acc[3][0])
    v_fma_f32 v113, v43, v45, v113   ; acc[3][1] = fma(a[3], b[1], acc[3][1])
    v_fma_f32 v114, v43, v46, v114   ; acc[3][2] = fma(a[3], b[2], acc[3][2])
    v_fma_f32 v115, v43, v47, v115   ; acc[3][3] = fma(a[3], b[3], acc[3][3])
.if PADDED
    s_mov_b64 exec, s[72:73]
.endif
    v_add_u32 v18, v18, ${A_ROW_BYTES}          ; next k: one row of AsT
    v_add_u32 v19, v19, 256              ; one row of Bs
    s_sub_u32 s100, s100, 1
    s_cmp_lg_u32 s100, 0
    s_cbranch_scc1 k_next
    s_barrier                            ; 3. every wave is done with this tile in LDS
    s_waitcnt 0                          ; the next tile's loads have landed
.if WIDEN_F16
    v_cvt_f32_f16 v36, v36
.endif
.if PADDED
    v_cmp_u_f32 vcc, v36, v36
    v_cndmask_b32 v36, v36, 0x7FC00000, vcc   ; a NaN x: the canonical NaN (never SKIP)
    v_or_b32 v36, v36, v76       ; not loaded (0): SKIP
.endif
    ds_write_b32 v32, v36, ${A_OFF0}        ; AsT[tx][ty + 0 BLOCK_M / 4]
.if WIDEN_F16
    v_cvt_f32_f16 v37, v37
.endif
.if PADDED
    v_cmp_u_f32 vcc, v37, v37
    v_cndmask_b32 v37, v37, 0x7FC00000, vcc   ; a NaN x: the canonical NaN (never SKIP)
    v_or_b32 v37, v37, v77       ; not loaded (0): SKIP
.endif
    ds_write_b32 v32, v37, ${A_OFF1}        ; AsT[tx][ty + 1 BLOCK_M / 4]
.if WIDEN_F16
    v_cvt_f32_f16 v38, v38
.endif
.if PADDED
    v_cmp_u_f32 vcc, v38, v38
    v_cndmask_b32 v38, v38, 0x7FC00000, vcc   ; a NaN x: the canonical NaN (never SKIP)
    v_or_b32 v38, v38, v78       ; not loaded (0): SKIP
.endif
    ds_write_b32 v32, v38, ${A_OFF2}        ; AsT[tx][ty + 2 BLOCK_M / 4]
.if WIDEN_F16
    v_cvt_f32_f16 v39, v39
.endif
.if PADDED
    v_cmp_u_f32 vcc, v39, v39
    v_cndmask_b32 v39, v39, 0x7FC00000, vcc   ; a NaN x: the canonical NaN (never SKIP)
    v_or_b32 v39, v39, v79       ; not loaded (0): SKIP
.endif
    ds_write_b32 v32, v39, ${A_OFF3}        ; AsT[tx][ty + 3 BLOCK_M / 4]
.if WIDEN_F16
    v_cvt_f32_f16 v120, v120
.endif
.if B_EDGE0
    v_add_u32 v31, v2, ${B_COL0}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b32 v33, v120, ${B_OFF0}       ; Bs[tx][ty + 0 BLOCK_M / 4]
.if B_EDGE0
    s_mov_b64 exec, s[72:73]
.endif
.if WIDEN_F16
    v_cvt_f32_f16 v121, v121
.endif
.if B_EDGE1
    v_add_u32 v31, v2, ${B_COL1}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b32 v33, v121, ${B_OFF1}       ; Bs[tx][ty + 1 BLOCK_M / 4]
.if B_EDGE1
    s_mov_b64 exec, s[72:73]
.endif
.if WIDEN_F16
    v_cvt_f32_f16 v122, v122
.endif
.if B_EDGE2
    v_add_u32 v31, v2, ${B_COL2}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b32 v33, v122, ${B_OFF2}       ; Bs[tx][ty + 2 BLOCK_M / 4]
.if B_EDGE2
    s_mov_b64 exec, s[72:73]
.endif
.if WIDEN_F16
    v_cvt_f32_f16 v123, v123
.endif
.if B_EDGE3
    v_add_u32 v31, v2, ${B_COL3}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b32 v33, v123, ${B_OFF3}       ; Bs[tx][ty + 3 BLOCK_M / 4]
.if B_EDGE3
    s_mov_b64 exec, s[72:73]
.endif
.if B_LOAD4
.if WIDEN_F16
    v_cvt_f32_f16 v124, v124
.endif
.if B_EDGE4
    v_add_u32 v31, v2, ${B_COL4}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b32 v33, v124, ${B_OFF4}       ; Bs[tx][ty + 4 BLOCK_M / 4]
.if B_EDGE4
    s_mov_b64 exec, s[72:73]
.endif
.endif
.if B_LOAD5
.if WIDEN_F16
    v_cvt_f32_f16 v125, v125
.endif
.if B_EDGE5
    v_add_u32 v31, v2, ${B_COL5}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b32 v33, v125, ${B_OFF5}       ; Bs[tx][ty + 5 BLOCK_M / 4]
.if B_EDGE5
    s_mov_b64 exec, s[72:73]
.endif
.endif
.if B_LOAD6
.if WIDEN_F16
    v_cvt_f32_f16 v126, v126
.endif
.if B_EDGE6
    v_add_u32 v31, v2, ${B_COL6}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b32 v33, v126, ${B_OFF6}       ; Bs[tx][ty + 6 BLOCK_M / 4]
.if B_EDGE6
    s_mov_b64 exec, s[72:73]
.endif
.endif
.if B_LOAD7
.if WIDEN_F16
    v_cvt_f32_f16 v127, v127
.endif
.if B_EDGE7
    v_add_u32 v31, v2, ${B_COL7}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b32 v33, v127, ${B_OFF7}       ; Bs[tx][ty + 7 BLOCK_M / 4]
.if B_EDGE7
    s_mov_b64 exec, s[72:73]
.endif
.endif
.if B_LOAD8
.if WIDEN_F16
    v_cvt_f32_f16 v128, v128
.endif
.if B_EDGE8
    v_add_u32 v31, v2, ${B_COL8}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b32 v33, v128, ${B_OFF8}       ; Bs[tx][ty + 8 BLOCK_M / 4]
.if B_EDGE8
    s_mov_b64 exec, s[72:73]
.endif
.endif
.if B_LOAD9
.if WIDEN_F16
    v_cvt_f32_f16 v129, v129
.endif
.if B_EDGE9
    v_add_u32 v31, v2, ${B_COL9}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b32 v33, v129, ${B_OFF9}       ; Bs[tx][ty + 9 BLOCK_M / 4]
.if B_EDGE9
    s_mov_b64 exec, s[72:73]
.endif
.endif
.if B_LOAD10
.if WIDEN_F16
    v_cvt_f32_f16 v130, v130
.endif
.if B_EDGE10
    v_add_u32 v31, v2, ${B_COL10}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b32 v33, v130, ${B_OFF10}       ; Bs[tx][ty + 10 BLOCK_M / 4]
.if B_EDGE10
    s_mov_b64 exec, s[72:73]
.endif
.endif
.if B_LOAD11
.if WIDEN_F16
    v_cvt_f32_f16 v131, v131
.endif
.if B_EDGE11
    v_add_u32 v31, v2, ${B_COL11}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b32 v33, v131, ${B_OFF11}       ; Bs[tx][ty + 11 BLOCK_M / 4]
.if B_EDGE11
    s_mov_b64 exec, s[72:73]
.endif
.endif
.if B_LOAD12
.if WIDEN_F16
    v_cvt_f32_f16 v132, v132
.endif
.if B_EDGE12
    v_add_u32 v31, v2, ${B_COL12}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b32 v33, v132, ${B_OFF12}       ; Bs[tx][ty + 12 BLOCK_M / 4]
.if B_EDGE12
    s_mov_b64 exec, s[72:73]
.endif
.endif
.if B_LOAD13
.if WIDEN_F16
    v_cvt_f32_f16 v133, v133
.endif
.if B_EDGE13
    v_add_u32 v31, v2, ${B_COL13}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b32 v33, v133, ${B_OFF13}       ; Bs[tx][ty + 13 BLOCK_M / 4]
.if B_EDGE13
    s_mov_b64 exec, s[72:73]
.endif
.endif
.if B_LOAD14
.if WIDEN_F16
    v_cvt_f32_f16 v134, v134
.endif
.if B_EDGE14
    v_add_u32 v31, v2, ${B_COL14}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b32 v33, v134, ${B_OFF14}       ; Bs[tx][ty + 14 BLOCK_M / 4]
.if B_EDGE14
    s_mov_b64 exec, s[72:73]
.endif
.endif
.if B_LOAD15
.if WIDEN_F16
    v_cvt_f32_f16 v135, v135
.endif
.if B_EDGE15
    v_add_u32 v31, v2, ${B_COL15}
    v_cmp_gt_u32 vcc, 64, v31
    s_mov_b64 exec, vcc                  ; inside the block's 64 columns
.endif
    ds_write_b32 v33, v135, ${B_OFF15}       ; Bs[tx][ty + 15 BLOCK_M / 4]
.if B_EDGE15
    s_mov_b64 exec, s[72:73]
.endif
.endif
    s_barrier                            ; the next tile complete
    s_sub_u32 s76, s76, 16
    s_branch tile
last_tile:
    s_mov_b32 s79, s76                   ; the last tile: exactly its k
    v_lshl_b32 v18, v2, 4                ; &AsT[0][4 ty]
    v_lshl_b32 v19, v1, 4                ; &Bs[0][4 tx] - B_BASE
    s_mov_b32 s100, s79
k_last:
    ds_read_b128 v[40:43], v18, 0        ; a[0..3] = A[m0 + 4 ty .. + 3][k]
    ds_read_b128 v[44:47], v19, ${B_BASE}   ; b[0..3] = B[k][n0 + 4 tx .. + 3]
    s_waitcnt 0
.if PADDED
    v_cmp_ne_u32 vcc, s80, v40
    s_mov_b64 exec, vcc                  ; row 0's tap inside the input
.endif
    v_fma_f32 v100, v40, v44, v100   ; acc[0][0] = fma(a[0], b[0], acc[0][0])
    v_fma_f32 v101, v40, v45, v101   ; acc[0][1] = fma(a[0], b[1], acc[0][1])
    v_fma_f32 v102, v40, v46, v102   ; acc[0][2] = fma(a[0], b[2], acc[0][2])
    v_fma_f32 v103, v40, v47, v103   ; acc[0][3] = fma(a[0], b[3], acc[0][3])
.if PADDED
    s_mov_b64 exec, s[72:73]
.endif
.if PADDED
    v_cmp_ne_u32 vcc, s80, v41
    s_mov_b64 exec, vcc                  ; row 1's tap inside the input
.endif
    v_fma_f32 v104, v41, v44, v104   ; acc[1][0] = fma(a[1], b[0], acc[1][0])
    v_fma_f32 v105, v41, v45, v105   ; acc[1][1] = fma(a[1], b[1], acc[1][1])
    v_fma_f32 v106, v41, v46, v106   ; acc[1][2] = fma(a[1], b[2], acc[1][2])
    v_fma_f32 v107, v41, v47, v107   ; acc[1][3] = fma(a[1], b[3], acc[1][3])
.if PADDED
    s_mov_b64 exec, s[72:73]
.endif
.if PADDED
    v_cmp_ne_u32 vcc, s80, v42
    s_mov_b64 exec, vcc                  ; row 2's tap inside the input
.endif
    v_fma_f32 v108, v42, v44, v108   ; acc[2][0] = fma(a[2], b[0], acc[2][0])
    v_fma_f32 v109, v42, v45, v109   ; acc[2][1] = fma(a[2], b[1], acc[2][1])
    v_fma_f32 v110, v42, v46, v110   ; acc[2][2] = fma(a[2], b[2], acc[2][2])
    v_fma_f32 v111, v42, v47, v111   ; acc[2][3] = fma(a[2], b[3], acc[2][3])
.if PADDED
    s_mov_b64 exec, s[72:73]
.endif
.if PADDED
    v_cmp_ne_u32 vcc, s80, v43
    s_mov_b64 exec, vcc                  ; row 3's tap inside the input
.endif
    v_fma_f32 v112, v43, v44, v112   ; acc[3][0] = fma(a[3], b[0], acc[3][0])
    v_fma_f32 v113, v43, v45, v113   ; acc[3][1] = fma(a[3], b[1], acc[3][1])
    v_fma_f32 v114, v43, v46, v114   ; acc[3][2] = fma(a[3], b[2], acc[3][2])
    v_fma_f32 v115, v43, v47, v115   ; acc[3][3] = fma(a[3], b[3], acc[3][3])
.if PADDED
    s_mov_b64 exec, s[72:73]
.endif
    v_add_u32 v18, v18, ${A_ROW_BYTES}          ; next k: one row of AsT
    v_add_u32 v19, v19, 256              ; one row of Bs
    s_sub_u32 s100, s100, 1
    s_cmp_lg_u32 s100, 0
    s_cbranch_scc1 k_last
.endif

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
    s_mov_b64 exec, s[72:73]
    v_mov_b32 v100, v101
    v_mov_b32 v101, v102
    v_mov_b32 v102, v103
    v_mov_b32 v103, v104
    v_mov_b32 v104, v105
    v_mov_b32 v105, v106
    v_mov_b32 v106, v107
    v_mov_b32 v107, v108
    v_mov_b32 v108, v109
    v_mov_b32 v109, v110
    v_mov_b32 v110, v111
    v_mov_b32 v111, v112
    v_mov_b32 v112, v113
    v_mov_b32 v113, v114
    v_mov_b32 v114, v115
    s_add_u32 s91, s91, 1
    s_cmp_lt_u32 s91, 16
    s_cbranch_scc1 element
    s_endpgm
