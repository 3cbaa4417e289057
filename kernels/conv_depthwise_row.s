; =============================================================================================
; conv_depthwise_row.s: DML_OPERATOR_CONVOLUTION FORWARD, depthwise (GroupCount = C = K: one 3 x 3
; filter per channel), two spatial dimensions, Strides H of 1 or 2 (SH), any Strides W,
; Dilations of 1, x and the output packed along W, as GPU libraries write a depthwise convolution:
; each thread computes P output pixels of one column (P = 8 for SH 1, 4 for SH 2) from registers,
; adjacent lanes take adjacent columns (every load and store of a wave is one contiguous run), no
; LDS and no barrier (kernels/conv_depthwise_ops.py picks it and computes the constants below).
;
; Launch: a grid of workgroups (X, 1, Z) = (ceil(STRIPS OW / 64), 1, N C) of 64 threads, STRIPS =
; ceil(OH / P); s4 the group's X, s6 its Z = n C + k, v1 the thread's id (docs/KERNEL_ABI.md).
; A wave with no thread t < STRIPS OW ends at once. Thread t = 64 X + v1 (t < STRIPS OW) computes
; out[n, k, oh0 .. oh0 + P - 1, ow], oh0 = P strip.
; Its (strip, ow), the interior first, as libraries split the border from the bulk:
;   the interior block, strips R_LO .. R_LO + NRI - 1 x columns S_LO .. S_LO + NI - 1 (every tap of
;   every pixel inside the input, every pixel inside the output), takes t < BLOCK = NRI NI:
;   strip = R_LO + t / NI, ow = S_LO + t mod NI;
;   the border takes the rest, u = t - BLOCK: first the strips outside R_LO .. R_LO + NRI - 1,
;   whole (u < FULL = (STRIPS - NRI) OW: r = u / OW, strip = r or r + NRI), then the interior
;   strips' border columns (v = u - FULL: strip = R_LO + v / NE, e = v mod NE, ow = e or e + NI;
;   NE = OW - NI).
; The thread's window is ROWS = (P - 1) SH + 3 input rows ih0 + r (ih0 = oh0 Sh - Ph) by 3 columns
; iw0 + kw (iw0 = ow Sw - Pw; column kw's byte offset is the load's immediate COL<kw>): each input
; element it needs is loaded once, the channel's 9 weights once (SMEM_W, FLOAT32 with the 9 taps
; adjacent: two scalar loads into s96 .. s104, W<kh><kw> naming each tap's register; else one vector
; load a tap at a uniform address into v11 .. v19; CONVOLUTION mode: negative filter strides and
; the flipped origin, so the kernel never knows the mode). Input row r feeds acc_j for kh = r - SH j
; in 0 .. 2: going through the rows ascending and in each the columns ascending, acc_j =
; fma(x[r][kw], w[kh][kw], acc_j) is rounded once per tap in kernel row, then kernel column order:
; docs/NUMERICS.md's "Convolution" for one channel, the bits of the direct kernel and of the golden
; model.
; A wave whose live lanes are all in the block takes the fast path: every load issued at once, then
; row by row as it arrives (s_waitcnt counting down), no masks. Any other wave takes the masked path:
; column kw's loads and multiply-adds run under EXEC = R<r> and M<kw> (R<r>: 0 <= ih0 + r < IH;
; M<kw>: 0 <= iw0 + kw < IW; one unsigned compare each): a padded element is never read and a padded
; tap's lane is outside EXEC, skipped, never fma(0, w, acc).
; Then per pixel j (conv_depthwise_row_store.inc, oh0 + j < OH): acc + bias[k] (HAS_BIAS, one
; rounding), the FusedActivation's own body (HAS_ACT, element_wise_bodies.inc on v10 in FLOAT32),
; FLOAT16 rounds once, the store.
; Per pixel the fast path issues 3 ROWS / P loads (3.75 for SH 1), 9 multiply-adds (the first of
; each accumulator from -0) and about 12 instructions of setup, addresses and store; on the H200
; preset the 1 x 128 x 56 x 56 layer averages 38 lane issue cycles an output, border included, where
; the LDS tile kernel (conv_depthwise.s) takes 175: a streaming kernel's count.
;
; Constant buffer (RECORDS; conv_depthwise_ops.ROW_RECORD_USE is the table):
;   record 0  OW, magic, shift1, shift2, STRIPS OW, row bytes of the output, of x, of w (each a
;             stride H << SHIFT_IN; w's the tap step)
;   record 1  IW, IH, Sw, Sh, w's column bytes (tap step W << SHIFT_IN), the lowest tap's offset, Pw, Ph
;   record 2  OW, OH, C, C magic, shift1, shift2, BLOCK, FULL
;   record 3  x strides N, C, H, W; w stride K, w tap step H, w tap step W, w base
;   record 4  output strides N, C, H, W; bias stride C; R_LO, S_LO, NRI
;   record 5  NI, magic, shift1, shift2, NE, magic, shift1, shift2 (a divisor of 0: 1's)
;   PARAM0 .. the FusedActivation's attributes (P_<NAME>)
; Scalars: s[90:91] the live lanes, s92 n, s93 k, s94 x[n, k, 0, 0], s95 the path (0 fast), s96
; out[n, k, 0, 0] (then SMEM_W's weights in s96 .. s104), s89 w[k, 0, 0, 0]; the masked path's
; M<kw> in s[40:45] and R<r> in s[46:55] and, once the setup has read them, the records' s[64:73].
;
; Written by tools/conv_depthwise_row_s.py, its one source (edit that, then run it): the input rows
; and pixels every Strides H has come once, a stride's further ones and its multiply-adds under
; `.if SH == <Strides H>`; x[ih0 + r][iw0 + kw] lives in v(20 + 3 r + kw), w[kh][kw] in W<kh><kw>.
; =============================================================================================
    s_load_dwordx4 s[8:11], s[0:1], ${DESC_X}       ; x's buffer descriptor
    s_load_dwordx4 s[12:15], s[0:1], ${DESC_W}      ; w's
.if HAS_BIAS
    s_load_dwordx4 s[16:19], s[0:1], ${DESC_BIAS}   ; the bias's
.endif
    s_load_dwordx4 s[20:23], s[0:1], ${DESC_OUT}    ; the output's
    s_load_dwordx8 s[24:31], s[2:3], ${CB_DWR_GRID}   ; OW, magic, shift1, shift2, STRIPS OW, row bytes: out, x, w
    s_load_dwordx8 s[32:39], s[2:3], ${CB_DWR_IN}     ; IW, IH, Sw, Sh, w column bytes, -, Pw, Ph
    s_load_dwordx8 s[56:63], s[2:3], ${CB_DWR_OUT}    ; OW, OH, C, magic, shift1, shift2, BLOCK, FULL
    s_load_dwordx8 s[64:71], s[2:3], ${CB_DWR_X}      ; x N, C, H, W; w K, w tap H, w tap W, w base
    s_load_dwordx8 s[72:79], s[2:3], ${CB_DWR_STRIDES} ; out N, C, H, W; bias C; R_LO, S_LO, NRI
    s_load_dwordx8 s[80:87], s[2:3], ${CB_DWR_BLOCK}   ; NI, magic, shift1, shift2, NE, magic, shift1, shift2
    s_waitcnt 0
; ---- n = Z / C, k = Z - n C (one division for the wave); the channel's bases -------------------------
.include "depthwise_channel.inc"             ; s92 n, s93 k, s94 x[n, k, 0, 0]
    s_mul_i32 s89, s93, s68
    s_add_u32 s89, s89, s71              ; w[k, 0, 0, 0]: w base + k w_K (flipped in CONVOLUTION mode)
    s_mul_i32 s96, s92, s72
    s_mul_i32 s88, s93, s73
    s_add_u32 s96, s96, s88              ; out[n, k, 0, 0]
    v_mov_b32 ${BIAS_V}, 0
.if HAS_BIAS
    s_mul_i32 s88, s93, s76
    s_lshl_b32 s88, s88, ${SHIFT_IN}
    v_mov_b32 v3, s88
    buffer_load_${LOAD} ${BIAS_V}, v3, s[16:19], 0   ; bias[k]
.endif
; ---- the lane's (strip, ow): the interior block first, then the border ---------------------------------
    s_lshl_b32 s88, s4, 6
    v_add_u32 v3, v1, s88                ; t = 64 X + tid
    v_cmp_gt_u32 vcc, s28, v3
    s_and_b64 s[90:91], exec, vcc        ; the live lanes: t < STRIPS OW
    s_mov_b64 exec, s[90:91]
    s_cbranch_execz done                 ; a wave past the plane's end
    v_mul_hi_u32 v4, v3, s81
    v_sub_u32 v5, v3, v4
    v_lshr_b32 v5, v5, s82
    v_add_u32 v4, v4, v5
    v_lshr_b32 v4, v4, s83               ; t / NI
    v_mul_lo_u32 v5, v4, s80
    v_sub_u32 v5, v3, v5                 ; t mod NI
    v_add_u32 v4, v4, s77                ; strip = R_LO + t / NI
    v_add_u32 v5, v5, s78                ; ow = S_LO + t mod NI
    s_mov_b32 s95, 0                     ; the fast path
    v_cmp_gt_u32 vcc, s62, v3            ; t < BLOCK
    s_andn2_b64 vcc, s[90:91], vcc
    s_cbranch_vccz mapped                ; every live lane in the block
    s_mov_b32 s95, 1                     ; the masked path
    s_mov_b64 s[98:99], vcc              ; the border's lanes
    v_sub_u32 v6, v3, s62             ; u = t - BLOCK
    v_mul_hi_u32 v7, v6, s25
    v_sub_u32 v8, v6, v7
    v_lshr_b32 v8, v8, s26
    v_add_u32 v7, v7, v8
    v_lshr_b32 v7, v7, s27               ; r = u / OW
    v_mul_lo_u32 v8, v7, s24
    v_sub_u32 v8, v6, v8                 ; u mod OW
    v_cmp_gt_u32 vcc, s77, v7
    v_add_u32 v9, v7, s79
    v_cndmask_b32 v7, v9, v7, vcc        ; strip = r below R_LO, else r + NRI
    v_sub_u32 v6, v6, s63             ; v = u - FULL
    v_mul_hi_u32 v9, v6, s85
    v_sub_u32 v10, v6, v9
    v_lshr_b32 v10, v10, s86
    v_add_u32 v9, v9, v10
    v_lshr_b32 v9, v9, s87               ; v / NE
    v_mul_lo_u32 v10, v9, s84
    v_sub_u32 v10, v6, v10               ; e = v mod NE
    v_add_u32 v9, v9, s77                ; strip = R_LO + v / NE
    v_cmp_gt_u32 vcc, s78, v10
    v_add_u32 v6, v10, s80
    v_cndmask_b32 v10, v6, v10, vcc      ; ow = e below S_LO, else e + NI
    v_sub_u32 v6, v3, s62
    v_cmp_gt_u32 vcc, s63, v6            ; u < FULL: a row outside the interior rows
    v_cndmask_b32 v9, v9, v7, vcc
    v_cndmask_b32 v10, v10, v8, vcc
    s_mov_b64 vcc, s[98:99]
    v_cndmask_b32 v4, v4, v9, vcc        ; the border's lanes take the border's (strip, ow)
    v_cndmask_b32 v5, v5, v10, vcc
mapped:
    v_mov_b32 ${OW_V}, v5                ; ow
    v_lshl_b32 ${OH_V}, v4, ${P_SHIFT}   ; oh0 = P strip
    v_mul_lo_u32 v6, v5, s34
    v_sub_u32 v6, v6, s38                ; iw0 = ow Sw - Pw (modulo 2^32)
    v_mul_lo_u32 v7, ${OH_V}, s35
    v_sub_u32 v7, v7, s39                ; ih0 = oh0 Sh - Ph
    v_mul_lo_u32 v8, v7, s66
    v_add_u32 v8, v8, v6
    v_add_u32 v8, v8, s94
    v_lshl_b32 v8, v8, ${SHIFT_IN}       ; &x[n, k, ih0, iw0] in bytes (modulo 2^32)
    v_mul_lo_u32 ${OUT_V}, ${OH_V}, s74
    v_add_u32 ${OUT_V}, ${OUT_V}, v5
    v_add_u32 ${OUT_V}, ${OUT_V}, s96
    v_lshl_b32 ${OUT_V}, ${OUT_V}, ${SHIFT_IN}   ; &out[n, k, oh0, ow] in bytes (output packed along W)
; ---- the channel's 9 weights: SMEM_W (FLOAT32, the 9 taps adjacent) two scalar loads into s96 .. s104 (s37:
; the lowest tap's offset from w[k, 0, 0, 0], -8 when flipped), else one vector load a tap (uniform addresses) --
.if SMEM_W
    s_add_u32 s84, s89, s37
    s_lshl_b32 s84, s84, 2
    s_load_dwordx8 s[96:103], s[12:13], s84   ; the filter's taps in address order
    s_add_u32 s84, s84, 32
    s_load_dword s104, s[12:13], s84
.else
    s_lshl_b32 s84, s89, ${SHIFT_IN}
    v_mov_b32 v3, s84
    buffer_load_${LOAD} v11, v3, s[12:15], 0     ; w[k, 0, 0, 0]
    v_add_u32 v3, v3, s36
    buffer_load_${LOAD} v12, v3, s[12:15], 0     ; w[k, 0, 0, 1]
    v_add_u32 v3, v3, s36
    buffer_load_${LOAD} v13, v3, s[12:15], 0     ; w[k, 0, 0, 2]
    s_add_u32 s84, s84, s31
    v_mov_b32 v3, s84
    buffer_load_${LOAD} v14, v3, s[12:15], 0     ; w[k, 0, 1, 0]
    v_add_u32 v3, v3, s36
    buffer_load_${LOAD} v15, v3, s[12:15], 0
    v_add_u32 v3, v3, s36
    buffer_load_${LOAD} v16, v3, s[12:15], 0
    s_add_u32 s84, s84, s31
    v_mov_b32 v3, s84
    buffer_load_${LOAD} v17, v3, s[12:15], 0     ; w[k, 0, 2, 0]
    v_add_u32 v3, v3, s36
    buffer_load_${LOAD} v18, v3, s[12:15], 0
    v_add_u32 v3, v3, s36
    buffer_load_${LOAD} v19, v3, s[12:15], 0
.endif
    s_cmp_eq_u32 s95, 0
    s_cbranch_scc1 fast
; ---- the masked path: the masks, every load under its own, then the multiply-adds under theirs ----------
    v_mov_b32 ${ACC0}, 0x80000000        ; acc_j = -0
    v_mov_b32 ${ACC1}, 0x80000000
    v_mov_b32 ${ACC2}, 0x80000000
    v_mov_b32 ${ACC3}, 0x80000000
.if SH == 1
    v_mov_b32 ${ACC4}, 0x80000000
    v_mov_b32 ${ACC5}, 0x80000000
    v_mov_b32 ${ACC6}, 0x80000000
    v_mov_b32 ${ACC7}, 0x80000000
.endif
    v_cmp_gt_u32 vcc, s32, v6
    s_and_b64 s[40:41], s[90:91], vcc    ; M0: column iw0 inside the input
    v_add_u32 v9, v6, 1
    v_cmp_gt_u32 vcc, s32, v9
    s_and_b64 s[42:43], s[90:91], vcc    ; M1
    v_add_u32 v9, v6, 2
    v_cmp_gt_u32 vcc, s32, v9
    s_and_b64 s[44:45], s[90:91], vcc    ; M2
    v_cmp_gt_u32 vcc, s33, v7
    s_and_b64 s[46:47], s[90:91], vcc    ; R0: input row ih0 + 0 inside the input
    v_add_u32 v7, v7, 1
    v_cmp_gt_u32 vcc, s33, v7
    s_and_b64 s[48:49], s[90:91], vcc    ; R1: input row ih0 + 1 inside the input
    v_add_u32 v7, v7, 1
    v_cmp_gt_u32 vcc, s33, v7
    s_and_b64 s[50:51], s[90:91], vcc    ; R2: input row ih0 + 2 inside the input
    v_add_u32 v7, v7, 1
    v_cmp_gt_u32 vcc, s33, v7
    s_and_b64 s[52:53], s[90:91], vcc    ; R3: input row ih0 + 3 inside the input
    v_add_u32 v7, v7, 1
    v_cmp_gt_u32 vcc, s33, v7
    s_and_b64 s[54:55], s[90:91], vcc    ; R4: input row ih0 + 4 inside the input
    v_add_u32 v7, v7, 1
    v_cmp_gt_u32 vcc, s33, v7
    s_and_b64 s[64:65], s[90:91], vcc    ; R5: input row ih0 + 5 inside the input
    v_add_u32 v7, v7, 1
    v_cmp_gt_u32 vcc, s33, v7
    s_and_b64 s[66:67], s[90:91], vcc    ; R6: input row ih0 + 6 inside the input
    v_add_u32 v7, v7, 1
    v_cmp_gt_u32 vcc, s33, v7
    s_and_b64 s[68:69], s[90:91], vcc    ; R7: input row ih0 + 7 inside the input
    v_add_u32 v7, v7, 1
    v_cmp_gt_u32 vcc, s33, v7
    s_and_b64 s[70:71], s[90:91], vcc    ; R8: input row ih0 + 8 inside the input
.if SH == 1
    v_add_u32 v7, v7, 1
    v_cmp_gt_u32 vcc, s33, v7
    s_and_b64 s[72:73], s[90:91], vcc    ; R9: input row ih0 + 9 inside the input
.endif
    s_and_b64 exec, s[46:47], s[40:41]
    buffer_load_${LOAD} v20, v8, s[8:11], 0
    s_and_b64 exec, s[46:47], s[42:43]
    buffer_load_${LOAD} v21, v8, s[8:11], ${COL1}
    s_and_b64 exec, s[46:47], s[44:45]
    buffer_load_${LOAD} v22, v8, s[8:11], ${COL2}
    s_mov_b64 exec, s[90:91]
    v_add_u32 v8, v8, s30                ; input row 1
    s_and_b64 exec, s[48:49], s[40:41]
    buffer_load_${LOAD} v23, v8, s[8:11], 0
    s_and_b64 exec, s[48:49], s[42:43]
    buffer_load_${LOAD} v24, v8, s[8:11], ${COL1}
    s_and_b64 exec, s[48:49], s[44:45]
    buffer_load_${LOAD} v25, v8, s[8:11], ${COL2}
    s_mov_b64 exec, s[90:91]
    v_add_u32 v8, v8, s30                ; input row 2
    s_and_b64 exec, s[50:51], s[40:41]
    buffer_load_${LOAD} v26, v8, s[8:11], 0
    s_and_b64 exec, s[50:51], s[42:43]
    buffer_load_${LOAD} v27, v8, s[8:11], ${COL1}
    s_and_b64 exec, s[50:51], s[44:45]
    buffer_load_${LOAD} v28, v8, s[8:11], ${COL2}
    s_mov_b64 exec, s[90:91]
    v_add_u32 v8, v8, s30                ; input row 3
    s_and_b64 exec, s[52:53], s[40:41]
    buffer_load_${LOAD} v29, v8, s[8:11], 0
    s_and_b64 exec, s[52:53], s[42:43]
    buffer_load_${LOAD} v30, v8, s[8:11], ${COL1}
    s_and_b64 exec, s[52:53], s[44:45]
    buffer_load_${LOAD} v31, v8, s[8:11], ${COL2}
    s_mov_b64 exec, s[90:91]
    v_add_u32 v8, v8, s30                ; input row 4
    s_and_b64 exec, s[54:55], s[40:41]
    buffer_load_${LOAD} v32, v8, s[8:11], 0
    s_and_b64 exec, s[54:55], s[42:43]
    buffer_load_${LOAD} v33, v8, s[8:11], ${COL1}
    s_and_b64 exec, s[54:55], s[44:45]
    buffer_load_${LOAD} v34, v8, s[8:11], ${COL2}
    s_mov_b64 exec, s[90:91]
    v_add_u32 v8, v8, s30                ; input row 5
    s_and_b64 exec, s[64:65], s[40:41]
    buffer_load_${LOAD} v35, v8, s[8:11], 0
    s_and_b64 exec, s[64:65], s[42:43]
    buffer_load_${LOAD} v36, v8, s[8:11], ${COL1}
    s_and_b64 exec, s[64:65], s[44:45]
    buffer_load_${LOAD} v37, v8, s[8:11], ${COL2}
    s_mov_b64 exec, s[90:91]
    v_add_u32 v8, v8, s30                ; input row 6
    s_and_b64 exec, s[66:67], s[40:41]
    buffer_load_${LOAD} v38, v8, s[8:11], 0
    s_and_b64 exec, s[66:67], s[42:43]
    buffer_load_${LOAD} v39, v8, s[8:11], ${COL1}
    s_and_b64 exec, s[66:67], s[44:45]
    buffer_load_${LOAD} v40, v8, s[8:11], ${COL2}
    s_mov_b64 exec, s[90:91]
    v_add_u32 v8, v8, s30                ; input row 7
    s_and_b64 exec, s[68:69], s[40:41]
    buffer_load_${LOAD} v41, v8, s[8:11], 0
    s_and_b64 exec, s[68:69], s[42:43]
    buffer_load_${LOAD} v42, v8, s[8:11], ${COL1}
    s_and_b64 exec, s[68:69], s[44:45]
    buffer_load_${LOAD} v43, v8, s[8:11], ${COL2}
    s_mov_b64 exec, s[90:91]
    v_add_u32 v8, v8, s30                ; input row 8
    s_and_b64 exec, s[70:71], s[40:41]
    buffer_load_${LOAD} v44, v8, s[8:11], 0
    s_and_b64 exec, s[70:71], s[42:43]
    buffer_load_${LOAD} v45, v8, s[8:11], ${COL1}
    s_and_b64 exec, s[70:71], s[44:45]
    buffer_load_${LOAD} v46, v8, s[8:11], ${COL2}
.if SH == 1
    s_mov_b64 exec, s[90:91]
    v_add_u32 v8, v8, s30                ; input row 9
    s_and_b64 exec, s[72:73], s[40:41]
    buffer_load_${LOAD} v47, v8, s[8:11], 0
    s_and_b64 exec, s[72:73], s[42:43]
    buffer_load_${LOAD} v48, v8, s[8:11], ${COL1}
    s_and_b64 exec, s[72:73], s[44:45]
    buffer_load_${LOAD} v49, v8, s[8:11], ${COL2}
.endif
    s_waitcnt 0
.if WIDEN_F16
    s_mov_b64 exec, s[90:91]
    v_cvt_f32_f16 v11, v11               ; FLOAT16 widened, exactly
    v_cvt_f32_f16 v12, v12
    v_cvt_f32_f16 v13, v13
    v_cvt_f32_f16 v14, v14
    v_cvt_f32_f16 v15, v15
    v_cvt_f32_f16 v16, v16
    v_cvt_f32_f16 v17, v17
    v_cvt_f32_f16 v18, v18
    v_cvt_f32_f16 v19, v19
    v_cvt_f32_f16 v20, v20
    v_cvt_f32_f16 v21, v21
    v_cvt_f32_f16 v22, v22
    v_cvt_f32_f16 v23, v23
    v_cvt_f32_f16 v24, v24
    v_cvt_f32_f16 v25, v25
    v_cvt_f32_f16 v26, v26
    v_cvt_f32_f16 v27, v27
    v_cvt_f32_f16 v28, v28
    v_cvt_f32_f16 v29, v29
    v_cvt_f32_f16 v30, v30
    v_cvt_f32_f16 v31, v31
    v_cvt_f32_f16 v32, v32
    v_cvt_f32_f16 v33, v33
    v_cvt_f32_f16 v34, v34
    v_cvt_f32_f16 v35, v35
    v_cvt_f32_f16 v36, v36
    v_cvt_f32_f16 v37, v37
    v_cvt_f32_f16 v38, v38
    v_cvt_f32_f16 v39, v39
    v_cvt_f32_f16 v40, v40
    v_cvt_f32_f16 v41, v41
    v_cvt_f32_f16 v42, v42
    v_cvt_f32_f16 v43, v43
    v_cvt_f32_f16 v44, v44
    v_cvt_f32_f16 v45, v45
    v_cvt_f32_f16 v46, v46
.if SH == 1
    v_cvt_f32_f16 v47, v47
    v_cvt_f32_f16 v48, v48
    v_cvt_f32_f16 v49, v49
.endif
.endif
.if SH == 1
    s_and_b64 exec, s[46:47], s[40:41]
    v_fma_f32 ${ACC0}, v20, ${W00}, ${ACC0}   ; j 0 kh 0 kw 0
    s_and_b64 exec, s[46:47], s[42:43]
    v_fma_f32 ${ACC0}, v21, ${W01}, ${ACC0}   ; j 0 kh 0 kw 1
    s_and_b64 exec, s[46:47], s[44:45]
    v_fma_f32 ${ACC0}, v22, ${W02}, ${ACC0}   ; j 0 kh 0 kw 2
    s_and_b64 exec, s[48:49], s[40:41]
    v_fma_f32 ${ACC0}, v23, ${W10}, ${ACC0}   ; j 0 kh 1 kw 0
    v_fma_f32 ${ACC1}, v23, ${W00}, ${ACC1}   ; j 1 kh 0 kw 0
    s_and_b64 exec, s[48:49], s[42:43]
    v_fma_f32 ${ACC0}, v24, ${W11}, ${ACC0}   ; j 0 kh 1 kw 1
    v_fma_f32 ${ACC1}, v24, ${W01}, ${ACC1}   ; j 1 kh 0 kw 1
    s_and_b64 exec, s[48:49], s[44:45]
    v_fma_f32 ${ACC0}, v25, ${W12}, ${ACC0}   ; j 0 kh 1 kw 2
    v_fma_f32 ${ACC1}, v25, ${W02}, ${ACC1}   ; j 1 kh 0 kw 2
    s_and_b64 exec, s[50:51], s[40:41]
    v_fma_f32 ${ACC0}, v26, ${W20}, ${ACC0}   ; j 0 kh 2 kw 0
    v_fma_f32 ${ACC1}, v26, ${W10}, ${ACC1}   ; j 1 kh 1 kw 0
    v_fma_f32 ${ACC2}, v26, ${W00}, ${ACC2}   ; j 2 kh 0 kw 0
    s_and_b64 exec, s[50:51], s[42:43]
    v_fma_f32 ${ACC0}, v27, ${W21}, ${ACC0}   ; j 0 kh 2 kw 1
    v_fma_f32 ${ACC1}, v27, ${W11}, ${ACC1}   ; j 1 kh 1 kw 1
    v_fma_f32 ${ACC2}, v27, ${W01}, ${ACC2}   ; j 2 kh 0 kw 1
    s_and_b64 exec, s[50:51], s[44:45]
    v_fma_f32 ${ACC0}, v28, ${W22}, ${ACC0}   ; j 0 kh 2 kw 2
    v_fma_f32 ${ACC1}, v28, ${W12}, ${ACC1}   ; j 1 kh 1 kw 2
    v_fma_f32 ${ACC2}, v28, ${W02}, ${ACC2}   ; j 2 kh 0 kw 2
    s_and_b64 exec, s[52:53], s[40:41]
    v_fma_f32 ${ACC1}, v29, ${W20}, ${ACC1}   ; j 1 kh 2 kw 0
    v_fma_f32 ${ACC2}, v29, ${W10}, ${ACC2}   ; j 2 kh 1 kw 0
    v_fma_f32 ${ACC3}, v29, ${W00}, ${ACC3}   ; j 3 kh 0 kw 0
    s_and_b64 exec, s[52:53], s[42:43]
    v_fma_f32 ${ACC1}, v30, ${W21}, ${ACC1}   ; j 1 kh 2 kw 1
    v_fma_f32 ${ACC2}, v30, ${W11}, ${ACC2}   ; j 2 kh 1 kw 1
    v_fma_f32 ${ACC3}, v30, ${W01}, ${ACC3}   ; j 3 kh 0 kw 1
    s_and_b64 exec, s[52:53], s[44:45]
    v_fma_f32 ${ACC1}, v31, ${W22}, ${ACC1}   ; j 1 kh 2 kw 2
    v_fma_f32 ${ACC2}, v31, ${W12}, ${ACC2}   ; j 2 kh 1 kw 2
    v_fma_f32 ${ACC3}, v31, ${W02}, ${ACC3}   ; j 3 kh 0 kw 2
    s_and_b64 exec, s[54:55], s[40:41]
    v_fma_f32 ${ACC2}, v32, ${W20}, ${ACC2}   ; j 2 kh 2 kw 0
    v_fma_f32 ${ACC3}, v32, ${W10}, ${ACC3}   ; j 3 kh 1 kw 0
    v_fma_f32 ${ACC4}, v32, ${W00}, ${ACC4}   ; j 4 kh 0 kw 0
    s_and_b64 exec, s[54:55], s[42:43]
    v_fma_f32 ${ACC2}, v33, ${W21}, ${ACC2}   ; j 2 kh 2 kw 1
    v_fma_f32 ${ACC3}, v33, ${W11}, ${ACC3}   ; j 3 kh 1 kw 1
    v_fma_f32 ${ACC4}, v33, ${W01}, ${ACC4}   ; j 4 kh 0 kw 1
    s_and_b64 exec, s[54:55], s[44:45]
    v_fma_f32 ${ACC2}, v34, ${W22}, ${ACC2}   ; j 2 kh 2 kw 2
    v_fma_f32 ${ACC3}, v34, ${W12}, ${ACC3}   ; j 3 kh 1 kw 2
    v_fma_f32 ${ACC4}, v34, ${W02}, ${ACC4}   ; j 4 kh 0 kw 2
    s_and_b64 exec, s[64:65], s[40:41]
    v_fma_f32 ${ACC3}, v35, ${W20}, ${ACC3}   ; j 3 kh 2 kw 0
    v_fma_f32 ${ACC4}, v35, ${W10}, ${ACC4}   ; j 4 kh 1 kw 0
    v_fma_f32 ${ACC5}, v35, ${W00}, ${ACC5}   ; j 5 kh 0 kw 0
    s_and_b64 exec, s[64:65], s[42:43]
    v_fma_f32 ${ACC3}, v36, ${W21}, ${ACC3}   ; j 3 kh 2 kw 1
    v_fma_f32 ${ACC4}, v36, ${W11}, ${ACC4}   ; j 4 kh 1 kw 1
    v_fma_f32 ${ACC5}, v36, ${W01}, ${ACC5}   ; j 5 kh 0 kw 1
    s_and_b64 exec, s[64:65], s[44:45]
    v_fma_f32 ${ACC3}, v37, ${W22}, ${ACC3}   ; j 3 kh 2 kw 2
    v_fma_f32 ${ACC4}, v37, ${W12}, ${ACC4}   ; j 4 kh 1 kw 2
    v_fma_f32 ${ACC5}, v37, ${W02}, ${ACC5}   ; j 5 kh 0 kw 2
    s_and_b64 exec, s[66:67], s[40:41]
    v_fma_f32 ${ACC4}, v38, ${W20}, ${ACC4}   ; j 4 kh 2 kw 0
    v_fma_f32 ${ACC5}, v38, ${W10}, ${ACC5}   ; j 5 kh 1 kw 0
    v_fma_f32 ${ACC6}, v38, ${W00}, ${ACC6}   ; j 6 kh 0 kw 0
    s_and_b64 exec, s[66:67], s[42:43]
    v_fma_f32 ${ACC4}, v39, ${W21}, ${ACC4}   ; j 4 kh 2 kw 1
    v_fma_f32 ${ACC5}, v39, ${W11}, ${ACC5}   ; j 5 kh 1 kw 1
    v_fma_f32 ${ACC6}, v39, ${W01}, ${ACC6}   ; j 6 kh 0 kw 1
    s_and_b64 exec, s[66:67], s[44:45]
    v_fma_f32 ${ACC4}, v40, ${W22}, ${ACC4}   ; j 4 kh 2 kw 2
    v_fma_f32 ${ACC5}, v40, ${W12}, ${ACC5}   ; j 5 kh 1 kw 2
    v_fma_f32 ${ACC6}, v40, ${W02}, ${ACC6}   ; j 6 kh 0 kw 2
    s_and_b64 exec, s[68:69], s[40:41]
    v_fma_f32 ${ACC5}, v41, ${W20}, ${ACC5}   ; j 5 kh 2 kw 0
    v_fma_f32 ${ACC6}, v41, ${W10}, ${ACC6}   ; j 6 kh 1 kw 0
    v_fma_f32 ${ACC7}, v41, ${W00}, ${ACC7}   ; j 7 kh 0 kw 0
    s_and_b64 exec, s[68:69], s[42:43]
    v_fma_f32 ${ACC5}, v42, ${W21}, ${ACC5}   ; j 5 kh 2 kw 1
    v_fma_f32 ${ACC6}, v42, ${W11}, ${ACC6}   ; j 6 kh 1 kw 1
    v_fma_f32 ${ACC7}, v42, ${W01}, ${ACC7}   ; j 7 kh 0 kw 1
    s_and_b64 exec, s[68:69], s[44:45]
    v_fma_f32 ${ACC5}, v43, ${W22}, ${ACC5}   ; j 5 kh 2 kw 2
    v_fma_f32 ${ACC6}, v43, ${W12}, ${ACC6}   ; j 6 kh 1 kw 2
    v_fma_f32 ${ACC7}, v43, ${W02}, ${ACC7}   ; j 7 kh 0 kw 2
    s_and_b64 exec, s[70:71], s[40:41]
    v_fma_f32 ${ACC6}, v44, ${W20}, ${ACC6}   ; j 6 kh 2 kw 0
    v_fma_f32 ${ACC7}, v44, ${W10}, ${ACC7}   ; j 7 kh 1 kw 0
    s_and_b64 exec, s[70:71], s[42:43]
    v_fma_f32 ${ACC6}, v45, ${W21}, ${ACC6}   ; j 6 kh 2 kw 1
    v_fma_f32 ${ACC7}, v45, ${W11}, ${ACC7}   ; j 7 kh 1 kw 1
    s_and_b64 exec, s[70:71], s[44:45]
    v_fma_f32 ${ACC6}, v46, ${W22}, ${ACC6}   ; j 6 kh 2 kw 2
    v_fma_f32 ${ACC7}, v46, ${W12}, ${ACC7}   ; j 7 kh 1 kw 2
    s_and_b64 exec, s[72:73], s[40:41]
    v_fma_f32 ${ACC7}, v47, ${W20}, ${ACC7}   ; j 7 kh 2 kw 0
    s_and_b64 exec, s[72:73], s[42:43]
    v_fma_f32 ${ACC7}, v48, ${W21}, ${ACC7}   ; j 7 kh 2 kw 1
    s_and_b64 exec, s[72:73], s[44:45]
    v_fma_f32 ${ACC7}, v49, ${W22}, ${ACC7}   ; j 7 kh 2 kw 2
.endif
.if SH == 2
    s_and_b64 exec, s[46:47], s[40:41]
    v_fma_f32 ${ACC0}, v20, ${W00}, ${ACC0}   ; j 0 kh 0 kw 0
    s_and_b64 exec, s[46:47], s[42:43]
    v_fma_f32 ${ACC0}, v21, ${W01}, ${ACC0}   ; j 0 kh 0 kw 1
    s_and_b64 exec, s[46:47], s[44:45]
    v_fma_f32 ${ACC0}, v22, ${W02}, ${ACC0}   ; j 0 kh 0 kw 2
    s_and_b64 exec, s[48:49], s[40:41]
    v_fma_f32 ${ACC0}, v23, ${W10}, ${ACC0}   ; j 0 kh 1 kw 0
    s_and_b64 exec, s[48:49], s[42:43]
    v_fma_f32 ${ACC0}, v24, ${W11}, ${ACC0}   ; j 0 kh 1 kw 1
    s_and_b64 exec, s[48:49], s[44:45]
    v_fma_f32 ${ACC0}, v25, ${W12}, ${ACC0}   ; j 0 kh 1 kw 2
    s_and_b64 exec, s[50:51], s[40:41]
    v_fma_f32 ${ACC0}, v26, ${W20}, ${ACC0}   ; j 0 kh 2 kw 0
    v_fma_f32 ${ACC1}, v26, ${W00}, ${ACC1}   ; j 1 kh 0 kw 0
    s_and_b64 exec, s[50:51], s[42:43]
    v_fma_f32 ${ACC0}, v27, ${W21}, ${ACC0}   ; j 0 kh 2 kw 1
    v_fma_f32 ${ACC1}, v27, ${W01}, ${ACC1}   ; j 1 kh 0 kw 1
    s_and_b64 exec, s[50:51], s[44:45]
    v_fma_f32 ${ACC0}, v28, ${W22}, ${ACC0}   ; j 0 kh 2 kw 2
    v_fma_f32 ${ACC1}, v28, ${W02}, ${ACC1}   ; j 1 kh 0 kw 2
    s_and_b64 exec, s[52:53], s[40:41]
    v_fma_f32 ${ACC1}, v29, ${W10}, ${ACC1}   ; j 1 kh 1 kw 0
    s_and_b64 exec, s[52:53], s[42:43]
    v_fma_f32 ${ACC1}, v30, ${W11}, ${ACC1}   ; j 1 kh 1 kw 1
    s_and_b64 exec, s[52:53], s[44:45]
    v_fma_f32 ${ACC1}, v31, ${W12}, ${ACC1}   ; j 1 kh 1 kw 2
    s_and_b64 exec, s[54:55], s[40:41]
    v_fma_f32 ${ACC1}, v32, ${W20}, ${ACC1}   ; j 1 kh 2 kw 0
    v_fma_f32 ${ACC2}, v32, ${W00}, ${ACC2}   ; j 2 kh 0 kw 0
    s_and_b64 exec, s[54:55], s[42:43]
    v_fma_f32 ${ACC1}, v33, ${W21}, ${ACC1}   ; j 1 kh 2 kw 1
    v_fma_f32 ${ACC2}, v33, ${W01}, ${ACC2}   ; j 2 kh 0 kw 1
    s_and_b64 exec, s[54:55], s[44:45]
    v_fma_f32 ${ACC1}, v34, ${W22}, ${ACC1}   ; j 1 kh 2 kw 2
    v_fma_f32 ${ACC2}, v34, ${W02}, ${ACC2}   ; j 2 kh 0 kw 2
    s_and_b64 exec, s[64:65], s[40:41]
    v_fma_f32 ${ACC2}, v35, ${W10}, ${ACC2}   ; j 2 kh 1 kw 0
    s_and_b64 exec, s[64:65], s[42:43]
    v_fma_f32 ${ACC2}, v36, ${W11}, ${ACC2}   ; j 2 kh 1 kw 1
    s_and_b64 exec, s[64:65], s[44:45]
    v_fma_f32 ${ACC2}, v37, ${W12}, ${ACC2}   ; j 2 kh 1 kw 2
    s_and_b64 exec, s[66:67], s[40:41]
    v_fma_f32 ${ACC2}, v38, ${W20}, ${ACC2}   ; j 2 kh 2 kw 0
    v_fma_f32 ${ACC3}, v38, ${W00}, ${ACC3}   ; j 3 kh 0 kw 0
    s_and_b64 exec, s[66:67], s[42:43]
    v_fma_f32 ${ACC2}, v39, ${W21}, ${ACC2}   ; j 2 kh 2 kw 1
    v_fma_f32 ${ACC3}, v39, ${W01}, ${ACC3}   ; j 3 kh 0 kw 1
    s_and_b64 exec, s[66:67], s[44:45]
    v_fma_f32 ${ACC2}, v40, ${W22}, ${ACC2}   ; j 2 kh 2 kw 2
    v_fma_f32 ${ACC3}, v40, ${W02}, ${ACC3}   ; j 3 kh 0 kw 2
    s_and_b64 exec, s[68:69], s[40:41]
    v_fma_f32 ${ACC3}, v41, ${W10}, ${ACC3}   ; j 3 kh 1 kw 0
    s_and_b64 exec, s[68:69], s[42:43]
    v_fma_f32 ${ACC3}, v42, ${W11}, ${ACC3}   ; j 3 kh 1 kw 1
    s_and_b64 exec, s[68:69], s[44:45]
    v_fma_f32 ${ACC3}, v43, ${W12}, ${ACC3}   ; j 3 kh 1 kw 2
    s_and_b64 exec, s[70:71], s[40:41]
    v_fma_f32 ${ACC3}, v44, ${W20}, ${ACC3}   ; j 3 kh 2 kw 0
    s_and_b64 exec, s[70:71], s[42:43]
    v_fma_f32 ${ACC3}, v45, ${W21}, ${ACC3}   ; j 3 kh 2 kw 1
    s_and_b64 exec, s[70:71], s[44:45]
    v_fma_f32 ${ACC3}, v46, ${W22}, ${ACC3}   ; j 3 kh 2 kw 2
.endif
    s_branch stores
; ---- the fast path: every tap inside, every pixel stored; the rows as they arrive ------------------------
fast:
    buffer_load_${LOAD} v20, v8, s[8:11], 0
    buffer_load_${LOAD} v21, v8, s[8:11], ${COL1}
    buffer_load_${LOAD} v22, v8, s[8:11], ${COL2}
    v_add_u32 v8, v8, s30                ; input row 1
    buffer_load_${LOAD} v23, v8, s[8:11], 0
    buffer_load_${LOAD} v24, v8, s[8:11], ${COL1}
    buffer_load_${LOAD} v25, v8, s[8:11], ${COL2}
    v_add_u32 v8, v8, s30                ; input row 2
    buffer_load_${LOAD} v26, v8, s[8:11], 0
    buffer_load_${LOAD} v27, v8, s[8:11], ${COL1}
    buffer_load_${LOAD} v28, v8, s[8:11], ${COL2}
    v_add_u32 v8, v8, s30                ; input row 3
    buffer_load_${LOAD} v29, v8, s[8:11], 0
    buffer_load_${LOAD} v30, v8, s[8:11], ${COL1}
    buffer_load_${LOAD} v31, v8, s[8:11], ${COL2}
    v_add_u32 v8, v8, s30                ; input row 4
    buffer_load_${LOAD} v32, v8, s[8:11], 0
    buffer_load_${LOAD} v33, v8, s[8:11], ${COL1}
    buffer_load_${LOAD} v34, v8, s[8:11], ${COL2}
    v_add_u32 v8, v8, s30                ; input row 5
    buffer_load_${LOAD} v35, v8, s[8:11], 0
    buffer_load_${LOAD} v36, v8, s[8:11], ${COL1}
    buffer_load_${LOAD} v37, v8, s[8:11], ${COL2}
    v_add_u32 v8, v8, s30                ; input row 6
    buffer_load_${LOAD} v38, v8, s[8:11], 0
    buffer_load_${LOAD} v39, v8, s[8:11], ${COL1}
    buffer_load_${LOAD} v40, v8, s[8:11], ${COL2}
    v_add_u32 v8, v8, s30                ; input row 7
    buffer_load_${LOAD} v41, v8, s[8:11], 0
    buffer_load_${LOAD} v42, v8, s[8:11], ${COL1}
    buffer_load_${LOAD} v43, v8, s[8:11], ${COL2}
    v_add_u32 v8, v8, s30                ; input row 8
    buffer_load_${LOAD} v44, v8, s[8:11], 0
    buffer_load_${LOAD} v45, v8, s[8:11], ${COL1}
    buffer_load_${LOAD} v46, v8, s[8:11], ${COL2}
.if SH == 1
    v_add_u32 v8, v8, s30                ; input row 9
    buffer_load_${LOAD} v47, v8, s[8:11], 0
    buffer_load_${LOAD} v48, v8, s[8:11], ${COL1}
    buffer_load_${LOAD} v49, v8, s[8:11], ${COL2}
.endif
.if SH == 1
    s_waitcnt 27                  ; input row 0 arrived
.if WIDEN_F16
    v_cvt_f32_f16 v11, v11   ; the weights
    v_cvt_f32_f16 v12, v12
    v_cvt_f32_f16 v13, v13
    v_cvt_f32_f16 v14, v14
    v_cvt_f32_f16 v15, v15
    v_cvt_f32_f16 v16, v16
    v_cvt_f32_f16 v17, v17
    v_cvt_f32_f16 v18, v18
    v_cvt_f32_f16 v19, v19
    v_cvt_f32_f16 v20, v20
    v_cvt_f32_f16 v21, v21
    v_cvt_f32_f16 v22, v22
.endif
    v_fma_f32 ${ACC0}, v20, ${W00}, 0x80000000   ; j 0 kh 0 kw 0 from -0
    v_fma_f32 ${ACC0}, v21, ${W01}, ${ACC0}   ; j 0 kh 0 kw 1
    v_fma_f32 ${ACC0}, v22, ${W02}, ${ACC0}   ; j 0 kh 0 kw 2
    s_waitcnt 24                  ; input row 1 arrived
.if WIDEN_F16
    v_cvt_f32_f16 v23, v23
    v_cvt_f32_f16 v24, v24
    v_cvt_f32_f16 v25, v25
.endif
    v_fma_f32 ${ACC0}, v23, ${W10}, ${ACC0}   ; j 0 kh 1 kw 0
    v_fma_f32 ${ACC1}, v23, ${W00}, 0x80000000   ; j 1 kh 0 kw 0 from -0
    v_fma_f32 ${ACC0}, v24, ${W11}, ${ACC0}   ; j 0 kh 1 kw 1
    v_fma_f32 ${ACC1}, v24, ${W01}, ${ACC1}   ; j 1 kh 0 kw 1
    v_fma_f32 ${ACC0}, v25, ${W12}, ${ACC0}   ; j 0 kh 1 kw 2
    v_fma_f32 ${ACC1}, v25, ${W02}, ${ACC1}   ; j 1 kh 0 kw 2
    s_waitcnt 21                  ; input row 2 arrived
.if WIDEN_F16
    v_cvt_f32_f16 v26, v26
    v_cvt_f32_f16 v27, v27
    v_cvt_f32_f16 v28, v28
.endif
    v_fma_f32 ${ACC0}, v26, ${W20}, ${ACC0}   ; j 0 kh 2 kw 0
    v_fma_f32 ${ACC1}, v26, ${W10}, ${ACC1}   ; j 1 kh 1 kw 0
    v_fma_f32 ${ACC2}, v26, ${W00}, 0x80000000   ; j 2 kh 0 kw 0 from -0
    v_fma_f32 ${ACC0}, v27, ${W21}, ${ACC0}   ; j 0 kh 2 kw 1
    v_fma_f32 ${ACC1}, v27, ${W11}, ${ACC1}   ; j 1 kh 1 kw 1
    v_fma_f32 ${ACC2}, v27, ${W01}, ${ACC2}   ; j 2 kh 0 kw 1
    v_fma_f32 ${ACC0}, v28, ${W22}, ${ACC0}   ; j 0 kh 2 kw 2
    v_fma_f32 ${ACC1}, v28, ${W12}, ${ACC1}   ; j 1 kh 1 kw 2
    v_fma_f32 ${ACC2}, v28, ${W02}, ${ACC2}   ; j 2 kh 0 kw 2
    s_waitcnt 18                  ; input row 3 arrived
.if WIDEN_F16
    v_cvt_f32_f16 v29, v29
    v_cvt_f32_f16 v30, v30
    v_cvt_f32_f16 v31, v31
.endif
    v_fma_f32 ${ACC1}, v29, ${W20}, ${ACC1}   ; j 1 kh 2 kw 0
    v_fma_f32 ${ACC2}, v29, ${W10}, ${ACC2}   ; j 2 kh 1 kw 0
    v_fma_f32 ${ACC3}, v29, ${W00}, 0x80000000   ; j 3 kh 0 kw 0 from -0
    v_fma_f32 ${ACC1}, v30, ${W21}, ${ACC1}   ; j 1 kh 2 kw 1
    v_fma_f32 ${ACC2}, v30, ${W11}, ${ACC2}   ; j 2 kh 1 kw 1
    v_fma_f32 ${ACC3}, v30, ${W01}, ${ACC3}   ; j 3 kh 0 kw 1
    v_fma_f32 ${ACC1}, v31, ${W22}, ${ACC1}   ; j 1 kh 2 kw 2
    v_fma_f32 ${ACC2}, v31, ${W12}, ${ACC2}   ; j 2 kh 1 kw 2
    v_fma_f32 ${ACC3}, v31, ${W02}, ${ACC3}   ; j 3 kh 0 kw 2
    s_waitcnt 15                  ; input row 4 arrived
.if WIDEN_F16
    v_cvt_f32_f16 v32, v32
    v_cvt_f32_f16 v33, v33
    v_cvt_f32_f16 v34, v34
.endif
    v_fma_f32 ${ACC2}, v32, ${W20}, ${ACC2}   ; j 2 kh 2 kw 0
    v_fma_f32 ${ACC3}, v32, ${W10}, ${ACC3}   ; j 3 kh 1 kw 0
    v_fma_f32 ${ACC4}, v32, ${W00}, 0x80000000   ; j 4 kh 0 kw 0 from -0
    v_fma_f32 ${ACC2}, v33, ${W21}, ${ACC2}   ; j 2 kh 2 kw 1
    v_fma_f32 ${ACC3}, v33, ${W11}, ${ACC3}   ; j 3 kh 1 kw 1
    v_fma_f32 ${ACC4}, v33, ${W01}, ${ACC4}   ; j 4 kh 0 kw 1
    v_fma_f32 ${ACC2}, v34, ${W22}, ${ACC2}   ; j 2 kh 2 kw 2
    v_fma_f32 ${ACC3}, v34, ${W12}, ${ACC3}   ; j 3 kh 1 kw 2
    v_fma_f32 ${ACC4}, v34, ${W02}, ${ACC4}   ; j 4 kh 0 kw 2
    s_waitcnt 12                  ; input row 5 arrived
.if WIDEN_F16
    v_cvt_f32_f16 v35, v35
    v_cvt_f32_f16 v36, v36
    v_cvt_f32_f16 v37, v37
.endif
    v_fma_f32 ${ACC3}, v35, ${W20}, ${ACC3}   ; j 3 kh 2 kw 0
    v_fma_f32 ${ACC4}, v35, ${W10}, ${ACC4}   ; j 4 kh 1 kw 0
    v_fma_f32 ${ACC5}, v35, ${W00}, 0x80000000   ; j 5 kh 0 kw 0 from -0
    v_fma_f32 ${ACC3}, v36, ${W21}, ${ACC3}   ; j 3 kh 2 kw 1
    v_fma_f32 ${ACC4}, v36, ${W11}, ${ACC4}   ; j 4 kh 1 kw 1
    v_fma_f32 ${ACC5}, v36, ${W01}, ${ACC5}   ; j 5 kh 0 kw 1
    v_fma_f32 ${ACC3}, v37, ${W22}, ${ACC3}   ; j 3 kh 2 kw 2
    v_fma_f32 ${ACC4}, v37, ${W12}, ${ACC4}   ; j 4 kh 1 kw 2
    v_fma_f32 ${ACC5}, v37, ${W02}, ${ACC5}   ; j 5 kh 0 kw 2
    s_waitcnt 9                  ; input row 6 arrived
.if WIDEN_F16
    v_cvt_f32_f16 v38, v38
    v_cvt_f32_f16 v39, v39
    v_cvt_f32_f16 v40, v40
.endif
    v_fma_f32 ${ACC4}, v38, ${W20}, ${ACC4}   ; j 4 kh 2 kw 0
    v_fma_f32 ${ACC5}, v38, ${W10}, ${ACC5}   ; j 5 kh 1 kw 0
    v_fma_f32 ${ACC6}, v38, ${W00}, 0x80000000   ; j 6 kh 0 kw 0 from -0
    v_fma_f32 ${ACC4}, v39, ${W21}, ${ACC4}   ; j 4 kh 2 kw 1
    v_fma_f32 ${ACC5}, v39, ${W11}, ${ACC5}   ; j 5 kh 1 kw 1
    v_fma_f32 ${ACC6}, v39, ${W01}, ${ACC6}   ; j 6 kh 0 kw 1
    v_fma_f32 ${ACC4}, v40, ${W22}, ${ACC4}   ; j 4 kh 2 kw 2
    v_fma_f32 ${ACC5}, v40, ${W12}, ${ACC5}   ; j 5 kh 1 kw 2
    v_fma_f32 ${ACC6}, v40, ${W02}, ${ACC6}   ; j 6 kh 0 kw 2
    s_waitcnt 6                  ; input row 7 arrived
.if WIDEN_F16
    v_cvt_f32_f16 v41, v41
    v_cvt_f32_f16 v42, v42
    v_cvt_f32_f16 v43, v43
.endif
    v_fma_f32 ${ACC5}, v41, ${W20}, ${ACC5}   ; j 5 kh 2 kw 0
    v_fma_f32 ${ACC6}, v41, ${W10}, ${ACC6}   ; j 6 kh 1 kw 0
    v_fma_f32 ${ACC7}, v41, ${W00}, 0x80000000   ; j 7 kh 0 kw 0 from -0
    v_fma_f32 ${ACC5}, v42, ${W21}, ${ACC5}   ; j 5 kh 2 kw 1
    v_fma_f32 ${ACC6}, v42, ${W11}, ${ACC6}   ; j 6 kh 1 kw 1
    v_fma_f32 ${ACC7}, v42, ${W01}, ${ACC7}   ; j 7 kh 0 kw 1
    v_fma_f32 ${ACC5}, v43, ${W22}, ${ACC5}   ; j 5 kh 2 kw 2
    v_fma_f32 ${ACC6}, v43, ${W12}, ${ACC6}   ; j 6 kh 1 kw 2
    v_fma_f32 ${ACC7}, v43, ${W02}, ${ACC7}   ; j 7 kh 0 kw 2
    s_waitcnt 3                  ; input row 8 arrived
.if WIDEN_F16
    v_cvt_f32_f16 v44, v44
    v_cvt_f32_f16 v45, v45
    v_cvt_f32_f16 v46, v46
.endif
    v_fma_f32 ${ACC6}, v44, ${W20}, ${ACC6}   ; j 6 kh 2 kw 0
    v_fma_f32 ${ACC7}, v44, ${W10}, ${ACC7}   ; j 7 kh 1 kw 0
    v_fma_f32 ${ACC6}, v45, ${W21}, ${ACC6}   ; j 6 kh 2 kw 1
    v_fma_f32 ${ACC7}, v45, ${W11}, ${ACC7}   ; j 7 kh 1 kw 1
    v_fma_f32 ${ACC6}, v46, ${W22}, ${ACC6}   ; j 6 kh 2 kw 2
    v_fma_f32 ${ACC7}, v46, ${W12}, ${ACC7}   ; j 7 kh 1 kw 2
    s_waitcnt 0                  ; input row 9 arrived
.if WIDEN_F16
    v_cvt_f32_f16 v47, v47
    v_cvt_f32_f16 v48, v48
    v_cvt_f32_f16 v49, v49
.endif
    v_fma_f32 ${ACC7}, v47, ${W20}, ${ACC7}   ; j 7 kh 2 kw 0
    v_fma_f32 ${ACC7}, v48, ${W21}, ${ACC7}   ; j 7 kh 2 kw 1
    v_fma_f32 ${ACC7}, v49, ${W22}, ${ACC7}   ; j 7 kh 2 kw 2
.endif
.if SH == 2
    s_waitcnt 24                  ; input row 0 arrived
.if WIDEN_F16
    v_cvt_f32_f16 v11, v11   ; the weights
    v_cvt_f32_f16 v12, v12
    v_cvt_f32_f16 v13, v13
    v_cvt_f32_f16 v14, v14
    v_cvt_f32_f16 v15, v15
    v_cvt_f32_f16 v16, v16
    v_cvt_f32_f16 v17, v17
    v_cvt_f32_f16 v18, v18
    v_cvt_f32_f16 v19, v19
    v_cvt_f32_f16 v20, v20
    v_cvt_f32_f16 v21, v21
    v_cvt_f32_f16 v22, v22
.endif
    v_fma_f32 ${ACC0}, v20, ${W00}, 0x80000000   ; j 0 kh 0 kw 0 from -0
    v_fma_f32 ${ACC0}, v21, ${W01}, ${ACC0}   ; j 0 kh 0 kw 1
    v_fma_f32 ${ACC0}, v22, ${W02}, ${ACC0}   ; j 0 kh 0 kw 2
    s_waitcnt 21                  ; input row 1 arrived
.if WIDEN_F16
    v_cvt_f32_f16 v23, v23
    v_cvt_f32_f16 v24, v24
    v_cvt_f32_f16 v25, v25
.endif
    v_fma_f32 ${ACC0}, v23, ${W10}, ${ACC0}   ; j 0 kh 1 kw 0
    v_fma_f32 ${ACC0}, v24, ${W11}, ${ACC0}   ; j 0 kh 1 kw 1
    v_fma_f32 ${ACC0}, v25, ${W12}, ${ACC0}   ; j 0 kh 1 kw 2
    s_waitcnt 18                  ; input row 2 arrived
.if WIDEN_F16
    v_cvt_f32_f16 v26, v26
    v_cvt_f32_f16 v27, v27
    v_cvt_f32_f16 v28, v28
.endif
    v_fma_f32 ${ACC0}, v26, ${W20}, ${ACC0}   ; j 0 kh 2 kw 0
    v_fma_f32 ${ACC1}, v26, ${W00}, 0x80000000   ; j 1 kh 0 kw 0 from -0
    v_fma_f32 ${ACC0}, v27, ${W21}, ${ACC0}   ; j 0 kh 2 kw 1
    v_fma_f32 ${ACC1}, v27, ${W01}, ${ACC1}   ; j 1 kh 0 kw 1
    v_fma_f32 ${ACC0}, v28, ${W22}, ${ACC0}   ; j 0 kh 2 kw 2
    v_fma_f32 ${ACC1}, v28, ${W02}, ${ACC1}   ; j 1 kh 0 kw 2
    s_waitcnt 15                  ; input row 3 arrived
.if WIDEN_F16
    v_cvt_f32_f16 v29, v29
    v_cvt_f32_f16 v30, v30
    v_cvt_f32_f16 v31, v31
.endif
    v_fma_f32 ${ACC1}, v29, ${W10}, ${ACC1}   ; j 1 kh 1 kw 0
    v_fma_f32 ${ACC1}, v30, ${W11}, ${ACC1}   ; j 1 kh 1 kw 1
    v_fma_f32 ${ACC1}, v31, ${W12}, ${ACC1}   ; j 1 kh 1 kw 2
    s_waitcnt 12                  ; input row 4 arrived
.if WIDEN_F16
    v_cvt_f32_f16 v32, v32
    v_cvt_f32_f16 v33, v33
    v_cvt_f32_f16 v34, v34
.endif
    v_fma_f32 ${ACC1}, v32, ${W20}, ${ACC1}   ; j 1 kh 2 kw 0
    v_fma_f32 ${ACC2}, v32, ${W00}, 0x80000000   ; j 2 kh 0 kw 0 from -0
    v_fma_f32 ${ACC1}, v33, ${W21}, ${ACC1}   ; j 1 kh 2 kw 1
    v_fma_f32 ${ACC2}, v33, ${W01}, ${ACC2}   ; j 2 kh 0 kw 1
    v_fma_f32 ${ACC1}, v34, ${W22}, ${ACC1}   ; j 1 kh 2 kw 2
    v_fma_f32 ${ACC2}, v34, ${W02}, ${ACC2}   ; j 2 kh 0 kw 2
    s_waitcnt 9                  ; input row 5 arrived
.if WIDEN_F16
    v_cvt_f32_f16 v35, v35
    v_cvt_f32_f16 v36, v36
    v_cvt_f32_f16 v37, v37
.endif
    v_fma_f32 ${ACC2}, v35, ${W10}, ${ACC2}   ; j 2 kh 1 kw 0
    v_fma_f32 ${ACC2}, v36, ${W11}, ${ACC2}   ; j 2 kh 1 kw 1
    v_fma_f32 ${ACC2}, v37, ${W12}, ${ACC2}   ; j 2 kh 1 kw 2
    s_waitcnt 6                  ; input row 6 arrived
.if WIDEN_F16
    v_cvt_f32_f16 v38, v38
    v_cvt_f32_f16 v39, v39
    v_cvt_f32_f16 v40, v40
.endif
    v_fma_f32 ${ACC2}, v38, ${W20}, ${ACC2}   ; j 2 kh 2 kw 0
    v_fma_f32 ${ACC3}, v38, ${W00}, 0x80000000   ; j 3 kh 0 kw 0 from -0
    v_fma_f32 ${ACC2}, v39, ${W21}, ${ACC2}   ; j 2 kh 2 kw 1
    v_fma_f32 ${ACC3}, v39, ${W01}, ${ACC3}   ; j 3 kh 0 kw 1
    v_fma_f32 ${ACC2}, v40, ${W22}, ${ACC2}   ; j 2 kh 2 kw 2
    v_fma_f32 ${ACC3}, v40, ${W02}, ${ACC3}   ; j 3 kh 0 kw 2
    s_waitcnt 3                  ; input row 7 arrived
.if WIDEN_F16
    v_cvt_f32_f16 v41, v41
    v_cvt_f32_f16 v42, v42
    v_cvt_f32_f16 v43, v43
.endif
    v_fma_f32 ${ACC3}, v41, ${W10}, ${ACC3}   ; j 3 kh 1 kw 0
    v_fma_f32 ${ACC3}, v42, ${W11}, ${ACC3}   ; j 3 kh 1 kw 1
    v_fma_f32 ${ACC3}, v43, ${W12}, ${ACC3}   ; j 3 kh 1 kw 2
    s_waitcnt 0                  ; input row 8 arrived
.if WIDEN_F16
    v_cvt_f32_f16 v44, v44
    v_cvt_f32_f16 v45, v45
    v_cvt_f32_f16 v46, v46
.endif
    v_fma_f32 ${ACC3}, v44, ${W20}, ${ACC3}   ; j 3 kh 2 kw 0
    v_fma_f32 ${ACC3}, v45, ${W21}, ${ACC3}   ; j 3 kh 2 kw 1
    v_fma_f32 ${ACC3}, v46, ${W22}, ${ACC3}   ; j 3 kh 2 kw 2
.endif
    s_branch fast_stores

; ---- per pixel j: bias, the FusedActivation, narrow, store (the masked path: under its mask) ------------
; The activation's body may use v10 .. v99, s38, s39 and s44 .. s51 (P_<NAME>): what the stores need
; stays in ACC0 .. BIAS_V (v100 .. v111 with HAS_ACT, else after the window) and s[90:91], s29, s57.
.set MASKED, 1
stores:
.include "conv_depthwise_row_stores.inc"
.set MASKED, 0
fast_stores:
.include "conv_depthwise_row_stores.inc"
done:
    s_endpgm
