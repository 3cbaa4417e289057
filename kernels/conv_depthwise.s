; =============================================================================================
; conv_depthwise.s: DML_OPERATOR_CONVOLUTION FORWARD, depthwise (GroupCount = C = K: one filter of
; KH x KW per channel), one or two spatial dimensions, as GPU libraries write it: a workgroup takes
; a 16 x 16 tile of one channel's output plane, loads the input tile with its halo once into LDS,
; and each thread computes four output pixels from it (kernels/conv_depthwise_ops.py picks it).
;
; Launch: a grid of workgroups (X, Y, Z) = (ceil(OW / 16), ceil(OH / 16), N C) of 16 x 4 threads;
; s4, s5, s6 the group's X, Y, Z (Z = n C + k), v1 = tx, v2 = ty (docs/KERNEL_ABI.md). Group
; (X, Y, Z) computes out[n, k, oh0 .. oh0 + 15, ow0 .. ow0 + 15], ow0 = 16 X, oh0 = 16 Y; thread
; (tx, ty) the pixels (oh0 + ty + 4 j, ow0 + tx), j = 0 .. 3:
;
;   1. the input tile, rows ih0 = oh0 Sh - Ph .. and columns iw0 = ow0 Sw - Pw .. (IH_T x IW_T:
;      15 S + (K - 1) D + 1 per dimension), goes to LDS T[r][c] at 4 (64 r + c) (a row pitch of 64
;      elements, so pixel j's offset J_STEP<j> = 4 j 4 Sh 64 is an immediate): thread t = 16 ty + tx
;      takes c = t mod IW_T and rows r = t / IW_T + p ROWS, p = 0, 1, .. (ROWS = 64 / IW_T rows a
;      pass), one load a pass, three passes' loads in flight together (a trip); a tap in the padding
;      is not loaded: its element is the marker SKIP, a
;      NaN no loaded value can be (every loaded NaN is made the canonical NaN first; FLOAT16 widened
;      exactly). Threads t < KH KW load the channel's filter tap t = kh KW + kw into W[t] after the
;      tile at 4 64 IH_T (CONVOLUTION mode: negative filter strides and the flipped origin, so the kernel never
;      knows the mode). s_barrier.
;   2. acc_j = -0; for kh, then kw, ascending: w = W[kh KW + kw] (one LDS read for the wave), and
;      for each j, x = T[(ty + 4 j) Sh + kh Dh][tx Sw + kw Dw]; acc_j = fma(x, w, acc_j) where x is
;      not SKIP (v_cndmask keeps acc_j otherwise: a padded tap is skipped, never fma(0, w, acc)):
;      docs/NUMERICS.md's "Convolution" order for one channel.
;   3. per j, under the pixel's mask (oh < OH, ow < OW): acc + bias[k] (HAS_BIAS, one rounding), the
;      FusedActivation's own body (HAS_ACT, element_wise_bodies.inc on v10 in FLOAT32), FLOAT16
;      rounds once, the store.
; Offsets are elements modulo 2^32 (a tap left of the input wraps; unsigned compares test 0 <= i <
; size at once; only taps inside the input are loaded).
;
; Constant buffer (RECORDS; conv_depthwise_ops.RECORD_USE is the table):
;   record 0  IW_T, IH_T, ROWS, IW_T magic, shift1, shift2, KW, KH
;   record 1  IW, IH, Sw, Sh, Dw, Dh, Pw, Ph
;   record 2  OW, OH, C, C magic, shift1, shift2, trips = ceil(IH_T / ROWS / 3), -
;   record 3  x strides N, C, H, W; w stride K, w tap step H, w tap step W, w base
;   record 4  output strides N, C, H, W; bias stride C; W's LDS byte 4 64 IH_T; a pass's LDS bytes
;             4 64 ROWS; -
;   record 5  KW, magic, shift1, shift2, KH KW, a kernel row's LDS bytes 4 64 Dh, -, a kernel
;             column's 4 Dw
;   PARAM0 .. the FusedActivation's attributes (P_<NAME>)
; =============================================================================================
    s_load_dwordx4 s[8:11], s[0:1], ${DESC_X}       ; x's buffer descriptor
    s_load_dwordx4 s[12:15], s[0:1], ${DESC_W}      ; w's
.if HAS_BIAS
    s_load_dwordx4 s[16:19], s[0:1], ${DESC_BIAS}   ; the bias's
.endif
    s_load_dwordx4 s[20:23], s[0:1], ${DESC_OUT}    ; the output's
    s_load_dwordx8 s[24:31], s[2:3], ${CB_DW_TILE}    ; IW_T, IH_T, ROWS, magic, shift1, shift2, KW, KH
    s_load_dwordx8 s[32:39], s[2:3], ${CB_DW_IN}      ; IW, IH, Sw, Sh, Dw, Dh, Pw, Ph
    s_load_dwordx8 s[56:63], s[2:3], ${CB_DW_OUT}     ; OW, OH, C, magic, shift1, shift2, passes, -
    s_load_dwordx8 s[64:71], s[2:3], ${CB_DW_X}       ; x N, C, H, W; w K, w tap H, w tap W, w base
    s_load_dwordx8 s[72:79], s[2:3], ${CB_DW_STRIDES} ; out N, C, H, W; bias C; W's LDS byte; pass bytes
    s_load_dwordx8 s[80:87], s[2:3], ${CB_DW_KW}      ; KW, magic, shift1, shift2, taps, row, j, column bytes
    s_waitcnt 0
    s_mov_b64 s[90:91], exec             ; every thread of the workgroup
; ---- n = Z / C, k = Z - n C (one division for the wave), the tile's origins ---------------------------
.include "depthwise_channel.inc"             ; s92 n, s93 k, s94 x[n, k, 0, 0]
    s_lshl_b32 s95, s4, 4                ; ow0 = 16 X
    s_lshl_b32 s96, s5, 4                ; oh0 = 16 Y
    s_mul_i32 s97, s95, s34
    s_sub_u32 s97, s97, s38              ; iw0 = ow0 Sw - Pw (modulo 2^32)
    s_mul_i32 s98, s96, s35
    s_sub_u32 s98, s98, s39              ; ih0 = oh0 Sh - Ph
    s_mul_i32 s104, s26, s66             ; a pass's x step: ROWS x stride H
    s_mov_b32 s99, s62                   ; passes left
    v_mov_b32 v17, ${SKIP}               ; the padded tap's marker
; ---- 1. the channel's filter: thread t < KH KW loads tap t = kh KW + kw (written to W[t] after the tile) ---
    v_lshl_b32 v3, v2, 4
    v_add_u32 v3, v3, v1                 ; t = 16 ty + tx
    v_cmp_gt_u32 vcc, s84, v3
    s_and_b64 s[42:43], s[90:91], vcc
    s_mov_b64 exec, s[42:43]
    v_mul_hi_u32 v4, v3, s81
    v_sub_u32 v5, v3, v4
    v_lshr_b32 v5, v5, s82
    v_add_u32 v4, v4, v5
    v_lshr_b32 v4, v4, s83               ; kh = t / KW
    v_mul_lo_u32 v5, v4, s80
    v_sub_u32 v5, v3, v5                 ; kw
    s_mul_i32 s88, s93, s68
    s_add_u32 s88, s88, s71              ; w base + k w_K
    v_mad_u32 v6, v4, s69, s88
    v_mad_u32 v6, v5, s70, v6            ; w[k, 0, kh, kw] (flipped in CONVOLUTION mode)
    v_lshl_b32 v6, v6, ${SHIFT_IN}
    buffer_load_${LOAD} v41, v6, s[12:15], 0
    s_mov_b64 exec, s[90:91]
; ---- the input tile: thread t takes column c = t mod IW_T, rows t / IW_T + p ROWS; three passes a trip, their
; loads in flight together (a pass's lanes: r < ROWS and r < IH_T; its loaded lanes: also inside the input) ----
    v_mul_hi_u32 v4, v3, s27
    v_sub_u32 v5, v3, v4
    v_lshr_b32 v5, v5, s28
    v_add_u32 v4, v4, v5
    v_lshr_b32 v4, v4, s29               ; r = t / IW_T
    v_mul_lo_u32 v5, v4, s24
    v_sub_u32 v5, v3, v5                 ; c = t - r IW_T
    v_cmp_gt_u32 vcc, s26, v4
    s_and_b64 s[100:101], exec, vcc      ; r < ROWS: a thread of the pass
    v_add_u32 v6, s97, v5                ; iw = iw0 + c
    v_cmp_gt_u32 vcc, s32, v6
    s_and_b64 s[102:103], s[100:101], vcc   ; and its column inside the input
    v_add_u32 v7, s98, v4                ; ih = ih0 + r
    v_mul_lo_u32 v8, v7, s66
    v_mad_u32 v8, v6, s67, v8
    v_add_u32 v8, v8, s94                ; x[n, k, ih, iw] (modulo 2^32)
    v_lshl_b32 v9, v4, 8
    v_lshl_b32 v10, v5, 2
    v_add_u32 v9, v9, v10                ; T[r][c] = 4 (64 r + c)
tile_trip:
    v_cmp_gt_u32 vcc, s25, v4
    s_and_b64 s[52:53], s[100:101], vcc   ; pass 0: r < IH_T, an element of the tile
    s_mov_b64 exec, s[52:53]
    v_mov_b32 v40, v17                   ; SKIP unless loaded
    v_cmp_gt_u32 vcc, s33, v7
    s_and_b64 s[44:45], s[102:103], vcc
    s_and_b64 s[44:45], s[44:45], s[52:53]   ; and inside the input
    s_mov_b64 exec, s[44:45]
    v_lshl_b32 v30, v8, ${SHIFT_IN}
    buffer_load_${LOAD} v40, v30, s[8:11], 0
    s_mov_b64 exec, s[90:91]
    v_add_u32 v4, v4, s26                ; the next pass: ROWS rows on
    v_add_u32 v7, v7, s26
    v_add_u32 v8, v8, s104
    v_cmp_gt_u32 vcc, s25, v4
    s_and_b64 s[54:55], s[100:101], vcc   ; pass 1: r < IH_T, an element of the tile
    s_mov_b64 exec, s[54:55]
    v_mov_b32 v42, v17                   ; SKIP unless loaded
    v_cmp_gt_u32 vcc, s33, v7
    s_and_b64 s[46:47], s[102:103], vcc
    s_and_b64 s[46:47], s[46:47], s[54:55]   ; and inside the input
    s_mov_b64 exec, s[46:47]
    v_lshl_b32 v30, v8, ${SHIFT_IN}
    buffer_load_${LOAD} v42, v30, s[8:11], 0
    s_mov_b64 exec, s[90:91]
    v_add_u32 v4, v4, s26                ; the next pass: ROWS rows on
    v_add_u32 v7, v7, s26
    v_add_u32 v8, v8, s104
    v_cmp_gt_u32 vcc, s25, v4
    s_and_b64 s[40:41], s[100:101], vcc   ; pass 2: r < IH_T, an element of the tile
    s_mov_b64 exec, s[40:41]
    v_mov_b32 v44, v17                   ; SKIP unless loaded
    v_cmp_gt_u32 vcc, s33, v7
    s_and_b64 s[48:49], s[102:103], vcc
    s_and_b64 s[48:49], s[48:49], s[40:41]   ; and inside the input
    s_mov_b64 exec, s[48:49]
    v_lshl_b32 v30, v8, ${SHIFT_IN}
    buffer_load_${LOAD} v44, v30, s[8:11], 0
    s_mov_b64 exec, s[90:91]
    v_add_u32 v4, v4, s26                ; the next pass: ROWS rows on
    v_add_u32 v7, v7, s26
    v_add_u32 v8, v8, s104
    s_waitcnt 0
    v_mov_b32 v10, v9
    s_mov_b64 exec, s[44:45]
.if WIDEN_F16
    v_cvt_f32_f16 v40, v40               ; FLOAT16 widened, exactly
.endif
    v_cmp_u_f32 vcc, v40, v40
    v_cndmask_b32 v40, v40, 0x7FC00000, vcc   ; a NaN x: the canonical NaN (never SKIP)
    s_mov_b64 exec, s[52:53]
    ds_write_b32 v10, v40, 0              ; T[r][c] of pass 0
    v_add_u32 v10, v10, s78
    s_mov_b64 exec, s[46:47]
.if WIDEN_F16
    v_cvt_f32_f16 v42, v42               ; FLOAT16 widened, exactly
.endif
    v_cmp_u_f32 vcc, v42, v42
    v_cndmask_b32 v42, v42, 0x7FC00000, vcc   ; a NaN x: the canonical NaN (never SKIP)
    s_mov_b64 exec, s[54:55]
    ds_write_b32 v10, v42, 0              ; T[r][c] of pass 1
    v_add_u32 v10, v10, s78
    s_mov_b64 exec, s[48:49]
.if WIDEN_F16
    v_cvt_f32_f16 v44, v44               ; FLOAT16 widened, exactly
.endif
    v_cmp_u_f32 vcc, v44, v44
    v_cndmask_b32 v44, v44, 0x7FC00000, vcc   ; a NaN x: the canonical NaN (never SKIP)
    s_mov_b64 exec, s[40:41]
    ds_write_b32 v10, v44, 0              ; T[r][c] of pass 2
    v_add_u32 v10, v10, s78
    s_mov_b64 exec, s[90:91]
    v_mov_b32 v9, v10
    s_sub_u32 s99, s99, 1
    s_cmp_lg_u32 s99, 0
    s_cbranch_scc1 tile_trip
    s_mov_b64 exec, s[42:43]
.if WIDEN_F16
    v_cvt_f32_f16 v41, v41
.endif
    v_lshl_b32 v6, v3, 2
    v_add_u32 v6, v6, s77
    ds_write_b32 v6, v41, 0              ; W[t]
    s_mov_b64 exec, s[90:91]
    s_barrier
; ---- 2. the taps: kernel row, then kernel column, ascending; four pixels a thread ---------------------
    v_mul_lo_u32 v12, v2, s35
    v_lshl_b32 v12, v12, 6
    v_mad_u32 v12, v1, s34, v12
    v_lshl_b32 v12, v12, 2               ; &T[ty Sh][tx Sw]: pixel j = 0's first tap (pixel j: + j J_STEP)
    v_mov_b32 v16, s77                   ; &W[0]
    v_mov_b32 ${ACC0}, 0x80000000           ; acc_j = -0
    v_mov_b32 ${ACC1}, 0x80000000
    v_mov_b32 ${ACC2}, 0x80000000
    v_mov_b32 ${ACC3}, 0x80000000
    s_mov_b32 s88, s31                   ; kernel rows left: KH
    s_mov_b32 s89, 0                     ; the row's LDS offset
tap_h:
    s_mov_b32 s54, s30                  ; kernel columns left: KW
    s_mov_b32 s55, s89                  ; the tap's LDS offset
tap_w:
    v_add_u32 v20, v12, s55
    ds_read_b32 v24, v16, 0              ; w
    ds_read_b32 v25, v20, 0              ; x of pixel 0
    ds_read_b32 v26, v20, ${J_STEP1}     ; pixel 1: 4 Sh rows on
    ds_read_b32 v27, v20, ${J_STEP2}
    ds_read_b32 v28, v20, ${J_STEP3}
    s_waitcnt 0
    v_cmp_ne_u32 vcc, v25, v17           ; not in the padding
    v_fma_f32 v29, v25, v24, ${ACC0}
    v_cndmask_b32 ${ACC0}, ${ACC0}, v29, vcc   ; acc = fma(x, w, acc), rounded once; a padded tap: acc
    v_cmp_ne_u32 vcc, v26, v17
    v_fma_f32 v29, v26, v24, ${ACC1}
    v_cndmask_b32 ${ACC1}, ${ACC1}, v29, vcc
    v_cmp_ne_u32 vcc, v27, v17
    v_fma_f32 v29, v27, v24, ${ACC2}
    v_cndmask_b32 ${ACC2}, ${ACC2}, v29, vcc
    v_cmp_ne_u32 vcc, v28, v17
    v_fma_f32 v29, v28, v24, ${ACC3}
    v_cndmask_b32 ${ACC3}, ${ACC3}, v29, vcc
    v_add_u32 v16, v16, 4                ; the next tap's weight
    s_add_u32 s55, s55, s87            ; Dw columns on
    s_sub_u32 s54, s54, 1
    s_cmp_lg_u32 s54, 0
    s_cbranch_scc1 tap_w
    s_add_u32 s89, s89, s85              ; Dh rows on
    s_sub_u32 s88, s88, 1
    s_cmp_lg_u32 s88, 0
    s_cbranch_scc1 tap_h

; ---- 3. per pixel j: bias, the FusedActivation, narrow, store under its mask ------------------------
; The activation's body may use v10 .. v99, s38, s39 and s44 .. s51 (P_<NAME>): what the stores need
; stays in ACC0 .. BIAS_V (v100 .. v107 with HAS_ACT, else v50 .. v57), s40 .. s43 and s52 .. s105; acc_0 is ACC0 and the accumulators move down by one a trip.
    v_add_u32 ${OW_V}, s95, v1              ; ow = ow0 + tx
    v_add_u32 ${OH_V}, s96, v2              ; oh = oh0 + ty
    s_mul_i32 s40, s92, s72
    s_mul_i32 s88, s93, s73
    s_add_u32 s40, s40, s88            ; out[n, k, 0, 0]
    s_lshl_b32 s41, s74, 2              ; four rows of the output
    v_mul_lo_u32 ${OUT_V}, ${OH_V}, s74
    v_mad_u32 ${OUT_V}, ${OW_V}, s75, ${OUT_V}
    v_add_u32 ${OUT_V}, ${OUT_V}, s40           ; out[n, k, oh, ow]
    s_mov_b32 s42, s56                  ; OW
    s_mov_b32 s43, s57                  ; OH
    v_mov_b32 ${BIAS_V}, 0
.if HAS_BIAS
    s_mul_i32 s88, s93, s76
    v_mov_b32 v30, s88
    v_lshl_b32 v30, v30, ${SHIFT_IN}
    buffer_load_${LOAD} ${BIAS_V}, v30, s[16:19], 0   ; bias[k]
    s_waitcnt 0
.if WIDEN_F16
    v_cvt_f32_f16 ${BIAS_V}, ${BIAS_V}
.endif
.endif
.if HAS_ACT
    s_load_dwordx4 s[44:47], s[2:3], ${CB_PARAM0}   ; the activation's attributes (P_<NAME>)
    s_waitcnt 0
.endif
    s_mov_b32 s55, 4                    ; pixels left
pixel:
    s_mov_b64 exec, s[90:91]
    v_mov_b32 v10, ${ACC0}
.if HAS_BIAS
    v_add_f32 v10, v10, ${BIAS_V}             ; acc + bias, rounded once
.endif
.if HAS_ACT
.include "element_wise_bodies.inc"       ; BODY: the activation's
.if CANONICALIZE
    v_mul_f32 v10, v10, 1.0              ; a selected NaN becomes the canonical NaN
.endif
    s_mov_b64 exec, s[90:91]
.endif
.if NARROW_F16
    v_cvt_f16_f32 v10, v10               ; FLOAT16: rounded once, to nearest even
.endif
    v_cmp_gt_u32 vcc, s42, ${OW_V}
    s_and_b64 exec, exec, vcc            ; ow < OW
    v_cmp_gt_u32 vcc, s43, ${OH_V}
    s_and_b64 exec, exec, vcc            ; oh < OH
    v_lshl_b32 v30, ${OUT_V}, ${SHIFT_IN}
    buffer_store_${STORE} v10, v30, s[20:23], 0
    s_mov_b64 exec, s[90:91]
    v_add_u32 ${OH_V}, ${OH_V}, 4              ; the next pixel: four rows down
    v_add_u32 ${OUT_V}, ${OUT_V}, s41
    v_mov_b32 ${ACC0}, ${ACC1}
    v_mov_b32 ${ACC1}, ${ACC2}
    v_mov_b32 ${ACC2}, ${ACC3}
    s_sub_u32 s55, s55, 1
    s_cmp_lg_u32 s55, 0
    s_cbranch_scc1 pixel
    s_endpgm
