; =============================================================================================
; conv_depthwise_row.s: DML_OPERATOR_CONVOLUTION FORWARD, depthwise (GroupCount = C = K: one filter
; of KH x 3 per channel), one or two spatial dimensions, Strides W of 1 or 2 (SW), Dilations W of 1,
; x and the output packed along W, as GPU libraries write a depthwise convolution: each thread
; computes four adjacent output pixels of one row from registers, no LDS and no barrier
; (kernels/conv_depthwise_ops.py picks it).
;
; Launch: a grid of workgroups (X, 1, Z) = (ceil(OH SEGS / 64), 1, N C) of 64 threads, SEGS =
; ceil(OW / 4); s4 the group's X, s6 its Z = n C + k, v1 the thread's id (docs/KERNEL_ABI.md).
; Thread t = 64 X + v1 of the plane (t < OH SEGS) computes out[n, k, oh, ow0 .. ow0 + 3], oh = t /
; SEGS, ow0 = 4 (t - oh SEGS): a wave's lanes walk a row's segments, then the next row's.
;
;   1. per lane, once: the window's first column iw0 = ow0 SW - Pw and the mask M<c> of its columns
;      c = 0 .. COLUMNS - 1 (COLUMNS = 3 SW + 3: 6, or 9 for SW 2) inside the input (0 <= iw0 + c <
;      IW, one unsigned compare); the row's byte address (x[n, k, ih, iw0], modulo 2^32).
;   2. per kernel row kh, ascending (ih = oh Sh - Ph + kh Dh): R = the lanes whose ih is inside the
;      input (a wave with none skips the row); the row's three weights w[k, 0, kh, 0 .. 2] (uniform
;      addresses: one load for the wave each; CONVOLUTION mode: negative filter strides and the
;      flipped origin, so the kernel never knows the mode); each column c loaded once, under R and
;      M<c> (its byte offset is the load's immediate: x packed along W), so a padded element is never
;      read; then, column by column ascending under EXEC = R and M<c>, the multiply-adds that use
;      column c: acc_j = fma(x_c, w_kw, acc_j) for c = SW j + kw. A padded tap's lane is outside
;      EXEC: it is skipped, never fma(0, w, acc). Column order is kw ascending for every j:
;      docs/NUMERICS.md's "Convolution" for one channel (kernel row, kernel column ascending), the
;      bits of the direct kernel and of the golden model.
;   3. per pixel j (ow = ow0 + j < OW): acc + bias[k] (HAS_BIAS, one rounding), the FusedActivation's
;      own body (HAS_ACT, element_wise_bodies.inc on v10 in FLOAT32), FLOAT16 rounds once, the store.
; Per output pixel a thread issues 2 + 2 SW loads over the 3 kernel rows' windows, 9 multiply-adds
; and 0.75 + 0.75 SW EXEC moves per kernel row: the instruction count of a streaming kernel.
;
; Constant buffer (RECORDS; conv_depthwise_ops.ROW_RECORD_USE is the table):
;   record 0  SEGS, magic, shift1, shift2, OH SEGS, KH, a kernel row's x bytes (Dh x stride H
;             << SHIFT_IN), a kernel row's w step (w tap step H)
;   record 1  IW, IH, Sw, Sh, a w tap step W in bytes, Dh, Pw, Ph
;   record 2  OW, OH, C, C magic, shift1, shift2, -, -
;   record 3  x strides N, C, H, W; w stride K, w tap step H, w tap step W, w base
;   record 4  output strides N, C, H, W; bias stride C; -, -, -
;   PARAM0 .. the FusedActivation's attributes (P_<NAME>)
; =============================================================================================
    s_load_dwordx4 s[8:11], s[0:1], ${DESC_X}       ; x's buffer descriptor
    s_load_dwordx4 s[12:15], s[0:1], ${DESC_W}      ; w's
.if HAS_BIAS
    s_load_dwordx4 s[16:19], s[0:1], ${DESC_BIAS}   ; the bias's
.endif
    s_load_dwordx4 s[20:23], s[0:1], ${DESC_OUT}    ; the output's
    s_load_dwordx8 s[24:31], s[2:3], ${CB_DWR_ROW}    ; SEGS, magic, shift1, shift2, OH SEGS, KH, row bytes, w row
    s_load_dwordx8 s[32:39], s[2:3], ${CB_DWR_IN}     ; IW, IH, Sw, Sh, w column bytes, Dh, Pw, Ph
    s_load_dwordx8 s[56:63], s[2:3], ${CB_DWR_OUT}    ; OW, OH, C, magic, shift1, shift2, -, -
    s_load_dwordx8 s[64:71], s[2:3], ${CB_DWR_X}      ; x N, C, H, W; w K, w tap H, w tap W, w base
    s_load_dwordx8 s[72:79], s[2:3], ${CB_DWR_STRIDES} ; out N, C, H, W; bias C
    s_waitcnt 0
; ---- n = Z / C, k = Z - n C (one division for the wave) ------------------------------------------------
    v_mov_b32 v3, s6
    v_mul_hi_u32 v4, v3, s59
    v_sub_u32 v5, v3, v4
    v_lshr_b32 v5, v5, s60
    v_add_u32 v4, v4, v5
    v_lshr_b32 v4, v4, s61               ; n = Z / C
    v_readfirstlane_b32 s92, v4
    s_mul_i32 s93, s92, s58
    s_sub_u32 s93, s6, s93               ; k = Z - n C
    s_mul_i32 s94, s92, s64
    s_mul_i32 s88, s93, s65
    s_add_u32 s94, s94, s88              ; x[n, k, 0, 0]
; ---- 1. the lane's row and segment, its window's column masks ------------------------------------------
    s_lshl_b32 s88, s4, 6
    v_add_u32 v3, v1, s88                ; t = 64 X + tid
    v_cmp_gt_u32 vcc, s28, v3
    s_and_b64 s[90:91], exec, vcc        ; the live lanes: t < OH SEGS
    s_mov_b64 exec, s[90:91]
    v_mul_hi_u32 v4, v3, s25
    v_sub_u32 v5, v3, v4
    v_lshr_b32 v5, v5, s26
    v_add_u32 v4, v4, v5
    v_lshr_b32 v4, v4, s27               ; oh = t / SEGS
    v_mul_lo_u32 v5, v4, s24
    v_sub_u32 v5, v3, v5                 ; the segment
    v_lshl_b32 ${OW_V}, v5, 2            ; ow0 = 4 segment
    v_mov_b32 ${OH_V}, v4
    v_mul_lo_u32 v6, ${OW_V}, s34
    v_sub_u32 v6, v6, s38                ; iw0 = ow0 Sw - Pw (modulo 2^32)
    v_mul_lo_u32 v7, v4, s35
    v_sub_u32 v7, v7, s39                ; ih = oh Sh - Ph: kernel row 0's
    v_mul_lo_u32 v8, v7, s66
    v_add_u32 v8, v8, v6
    v_add_u32 v8, v8, s94
    v_lshl_b32 v8, v8, ${SHIFT_IN}       ; &x[n, k, ih, iw0] in bytes (modulo 2^32)
    v_cmp_gt_u32 vcc, s32, v6
    s_and_b64 s[40:41], s[90:91], vcc    ; M0: column 0 inside the input
    v_add_u32 v9, v6, 1
    v_cmp_gt_u32 vcc, s32, v9
    s_and_b64 s[42:43], s[90:91], vcc    ; M1
    v_add_u32 v9, v6, 2
    v_cmp_gt_u32 vcc, s32, v9
    s_and_b64 s[44:45], s[90:91], vcc    ; M2
    v_add_u32 v9, v6, 3
    v_cmp_gt_u32 vcc, s32, v9
    s_and_b64 s[46:47], s[90:91], vcc    ; M3
    v_add_u32 v9, v6, 4
    v_cmp_gt_u32 vcc, s32, v9
    s_and_b64 s[48:49], s[90:91], vcc    ; M4
    v_add_u32 v9, v6, 5
    v_cmp_gt_u32 vcc, s32, v9
    s_and_b64 s[50:51], s[90:91], vcc    ; M5
.if SW == 2
    v_add_u32 v9, v6, 6
    v_cmp_gt_u32 vcc, s32, v9
    s_and_b64 s[52:53], s[90:91], vcc    ; M6
    v_add_u32 v9, v6, 7
    v_cmp_gt_u32 vcc, s32, v9
    s_and_b64 s[54:55], s[90:91], vcc    ; M7
    v_add_u32 v9, v6, 8
    v_cmp_gt_u32 vcc, s32, v9
    s_and_b64 s[80:81], s[90:91], vcc    ; M8
.endif
    s_mul_i32 s89, s93, s68
    s_add_u32 s89, s89, s71              ; w[k, 0, 0, 0]: w base + k w_K (flipped in CONVOLUTION mode)
    v_mov_b32 ${ACC0}, 0x80000000        ; acc_j = -0
    v_mov_b32 ${ACC1}, 0x80000000
    v_mov_b32 ${ACC2}, 0x80000000
    v_mov_b32 ${ACC3}, 0x80000000
    s_mov_b32 s88, s29                   ; kernel rows left: KH
; ---- 2. the kernel rows ----------------------------------------------------------------------------------
kernel_row:
    s_mov_b64 exec, s[90:91]
    v_cmp_gt_u32 vcc, s33, v7
    s_and_b64 s[86:87], s[90:91], vcc    ; R: 0 <= ih < IH
    s_mov_b64 exec, s[86:87]
    s_cbranch_execz next_row             ; no lane of the wave reads this kernel row
    s_lshl_b32 s84, s89, ${SHIFT_IN}
    v_mov_b32 v23, s84
    buffer_load_${LOAD} v11, v23, s[12:15], 0   ; w[k, 0, kh, 0]
    v_add_u32 v23, v23, s36
    buffer_load_${LOAD} v12, v23, s[12:15], 0   ; w[k, 0, kh, 1]
    v_add_u32 v23, v23, s36
    buffer_load_${LOAD} v13, v23, s[12:15], 0   ; w[k, 0, kh, 2]
    s_and_b64 exec, s[86:87], s[40:41]
    buffer_load_${LOAD} v14, v8, s[8:11], 0                 ; column 0
    s_and_b64 exec, s[86:87], s[42:43]
    buffer_load_${LOAD} v15, v8, s[8:11], ${COL1}           ; column 1: its byte offset
    s_and_b64 exec, s[86:87], s[44:45]
    buffer_load_${LOAD} v16, v8, s[8:11], ${COL2}
    s_and_b64 exec, s[86:87], s[46:47]
    buffer_load_${LOAD} v17, v8, s[8:11], ${COL3}
    s_and_b64 exec, s[86:87], s[48:49]
    buffer_load_${LOAD} v18, v8, s[8:11], ${COL4}
    s_and_b64 exec, s[86:87], s[50:51]
    buffer_load_${LOAD} v19, v8, s[8:11], ${COL5}
.if SW == 2
    s_and_b64 exec, s[86:87], s[52:53]
    buffer_load_${LOAD} v20, v8, s[8:11], ${COL6}
    s_and_b64 exec, s[86:87], s[54:55]
    buffer_load_${LOAD} v21, v8, s[8:11], ${COL7}
    s_and_b64 exec, s[86:87], s[80:81]
    buffer_load_${LOAD} v22, v8, s[8:11], ${COL8}
.endif
    s_waitcnt 0
.if WIDEN_F16
    s_mov_b64 exec, s[86:87]
    v_cvt_f32_f16 v11, v11               ; FLOAT16 widened, exactly
    v_cvt_f32_f16 v12, v12
    v_cvt_f32_f16 v13, v13
    v_cvt_f32_f16 v14, v14
    v_cvt_f32_f16 v15, v15
    v_cvt_f32_f16 v16, v16
    v_cvt_f32_f16 v17, v17
    v_cvt_f32_f16 v18, v18
    v_cvt_f32_f16 v19, v19
.if SW == 2
    v_cvt_f32_f16 v20, v20
    v_cvt_f32_f16 v21, v21
    v_cvt_f32_f16 v22, v22
.endif
.endif
; column by column: acc_j = fma(x_c, w_kw, acc_j), rounded once, for c = SW j + kw, under R and M<c>
.if SW == 1
    s_and_b64 exec, s[86:87], s[40:41]
    v_fma_f32 ${ACC0}, v14, v11, ${ACC0}  ; c 0: j 0 kw 0
    s_and_b64 exec, s[86:87], s[42:43]
    v_fma_f32 ${ACC0}, v15, v12, ${ACC0}  ; c 1: j 0 kw 1
    v_fma_f32 ${ACC1}, v15, v11, ${ACC1}  ;      j 1 kw 0
    s_and_b64 exec, s[86:87], s[44:45]
    v_fma_f32 ${ACC0}, v16, v13, ${ACC0}  ; c 2: j 0 kw 2
    v_fma_f32 ${ACC1}, v16, v12, ${ACC1}
    v_fma_f32 ${ACC2}, v16, v11, ${ACC2}
    s_and_b64 exec, s[86:87], s[46:47]
    v_fma_f32 ${ACC1}, v17, v13, ${ACC1}  ; c 3: j 1 kw 2
    v_fma_f32 ${ACC2}, v17, v12, ${ACC2}
    v_fma_f32 ${ACC3}, v17, v11, ${ACC3}
    s_and_b64 exec, s[86:87], s[48:49]
    v_fma_f32 ${ACC2}, v18, v13, ${ACC2}  ; c 4: j 2 kw 2
    v_fma_f32 ${ACC3}, v18, v12, ${ACC3}
    s_and_b64 exec, s[86:87], s[50:51]
    v_fma_f32 ${ACC3}, v19, v13, ${ACC3}  ; c 5: j 3 kw 2
.else
    s_and_b64 exec, s[86:87], s[40:41]
    v_fma_f32 ${ACC0}, v14, v11, ${ACC0}  ; c 0: j 0 kw 0
    s_and_b64 exec, s[86:87], s[42:43]
    v_fma_f32 ${ACC0}, v15, v12, ${ACC0}  ; c 1: j 0 kw 1
    s_and_b64 exec, s[86:87], s[44:45]
    v_fma_f32 ${ACC0}, v16, v13, ${ACC0}  ; c 2: j 0 kw 2
    v_fma_f32 ${ACC1}, v16, v11, ${ACC1}  ;      j 1 kw 0
    s_and_b64 exec, s[86:87], s[46:47]
    v_fma_f32 ${ACC1}, v17, v12, ${ACC1}  ; c 3: j 1 kw 1
    s_and_b64 exec, s[86:87], s[48:49]
    v_fma_f32 ${ACC1}, v18, v13, ${ACC1}  ; c 4: j 1 kw 2
    v_fma_f32 ${ACC2}, v18, v11, ${ACC2}  ;      j 2 kw 0
    s_and_b64 exec, s[86:87], s[50:51]
    v_fma_f32 ${ACC2}, v19, v12, ${ACC2}  ; c 5: j 2 kw 1
    s_and_b64 exec, s[86:87], s[52:53]
    v_fma_f32 ${ACC2}, v20, v13, ${ACC2}  ; c 6: j 2 kw 2
    v_fma_f32 ${ACC3}, v20, v11, ${ACC3}  ;      j 3 kw 0
    s_and_b64 exec, s[86:87], s[54:55]
    v_fma_f32 ${ACC3}, v21, v12, ${ACC3}  ; c 7: j 3 kw 1
    s_and_b64 exec, s[86:87], s[80:81]
    v_fma_f32 ${ACC3}, v22, v13, ${ACC3}  ; c 8: j 3 kw 2
.endif
next_row:
    s_mov_b64 exec, s[90:91]
    v_add_u32 v8, v8, s30                ; Dh rows on
    v_add_u32 v7, v7, s37
    s_add_u32 s89, s89, s31              ; the filter's next row
    s_sub_u32 s88, s88, 1
    s_cmp_lg_u32 s88, 0
    s_cbranch_scc1 kernel_row

; ---- 3. per pixel j: bias, the FusedActivation, narrow, store under its mask ------------------------
; The activation's body may use v10 .. v99, s38, s39 and s44 .. s51 (P_<NAME>): what the stores need
; stays in ACC0 .. BIAS_V (v100 .. v107 with HAS_ACT, else v24 .. v31), s[90:91] and s52 .. s105;
; acc_0 is ACC0 and the accumulators move down by one a pixel.
    s_mul_i32 s84, s92, s72
    s_mul_i32 s88, s93, s73
    s_add_u32 s84, s84, s88              ; out[n, k, 0, 0]
    v_mul_lo_u32 ${OUT_V}, ${OH_V}, s74
    v_add_u32 ${OUT_V}, ${OUT_V}, ${OW_V}
    v_add_u32 ${OUT_V}, ${OUT_V}, s84
    v_lshl_b32 ${OUT_V}, ${OUT_V}, ${SHIFT_IN}   ; &out[n, k, oh, ow0] in bytes (output packed along W)
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
    s_mov_b32 s85, 4                     ; pixels left
pixel:
    s_mov_b64 exec, s[90:91]
    v_mov_b32 v10, ${ACC0}
.if HAS_BIAS
    v_add_f32 v10, v10, ${BIAS_V}        ; acc + bias, rounded once
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
    v_cmp_gt_u32 vcc, s56, ${OW_V}
    s_and_b64 exec, s[90:91], vcc        ; ow < OW (oh < OH: a live lane's)
    buffer_store_${STORE} v10, ${OUT_V}, s[20:23], 0
    s_mov_b64 exec, s[90:91]
    v_add_u32 ${OW_V}, ${OW_V}, 1        ; the next pixel: one column on
    v_add_u32 ${OUT_V}, ${OUT_V}, ${ELEMENT_BYTES}
    v_mov_b32 ${ACC0}, ${ACC1}
    v_mov_b32 ${ACC1}, ${ACC2}
    v_mov_b32 ${ACC2}, ${ACC3}
    s_sub_u32 s85, s85, 1
    s_cmp_lg_u32 s85, 0
    s_cbranch_scc1 pixel
    s_endpgm
