; =============================================================================================
; window.s: the sliding-window operators, one thread per output element looping over the taps of
; its window: DML_OPERATOR_CONVOLUTION (WINDOW_OP "CONVOLUTION") and the poolings AVERAGE_POOLING(1)
; ("AVERAGE"), MAX_POOLING ("MAX") and LP_POOLING(1) ("LP": acc + |x| for P 1; acc + x x, then
; the square root, for P 2). The order of every operation is
; docs/NUMERICS.md's "Convolution" and "Pooling", whatever the wave width or the workgroup size.
;
; Launch (kernels/window_ops.py): ceil(elements / 64) workgroups of 64 threads; thread v1
; (prologue.inc) computes output element v1 = (((n K + k) OD + od) OH + oh) OW + ow; with TILE_K 4
; (a convolution whose K / G is a multiple of 4) it computes output channels k .. k + 3, k = 4 kt, of
; v1 = (((n K/4 + kt) OD + od) OH + oh) OW + ow: one x load serves four fmas, each accumulator in
; the order below. One to three
; spatial dimensions are always three here: the driver gives a missing one size 1, window 1.
;
;   acc = -0
;   for c in 0 .. C/G - 1 (the channels of k's group g = k / (K / G)), ascending
;     for (t_d, t_h, t_w) in the window, row-major ascending
;       i = o * Strides - StartPadding + t * Dilations     (per dimension)
;       if every i is inside the input:                   (a padded tap is skipped: no fma(0, w, acc))
;         acc = fma(x[n, g C/G + c, i], w[k, c, t], acc)  (FLOAT16 widened first, exactly)
;   acc = acc + bias[k]                                   (HAS_BIAS: one rounded add)
;
; BACKWARD (the transposed convolution; the filter { C, K/G, .. }): the same loops, but tap t reads
; the input at i = (o + StartPadding - t Dilations) / Strides, where that division is exact and i
; inside the input (a multiply-high by the stride's division magic, then q Strides == num), and the
; filter at (g C/G + c, k - g K/G, t).
;   the FusedActivation's own body (HAS_ACT), then FLOAT16 rounds once, and the store.
;
; A pooling is the same loops with one channel per group (K = C = G) and no filter: each tap inside
; the input takes acc = acc + x ("AVERAGE", acc from -0; the count of such taps in v31) or
; acc = max(acc, x) ("MAX": maxNum, acc from NaN, its identity); AVERAGE then divides once, by the
; count (INCLUDE_PADDING 0) or by the window's size (INCLUDE_PADDING 1, PARAM1 as FLOAT32). Integer
; MAX (INT8 .. UINT64) takes the integer maximum (${MAX}) from the type's least value; PAIR: the
; 64-bit types, in register pairs (ACC v[16:17], X v[28:29]).
;
; HAS_INDICES (MAX_POOLING1 / 2's OutputIndicesTensor, UINT32 or INDEX_PAIR UINT64): v34 holds the flat
; input index of the maximum, from all ones ("no element"); a tap inside the input takes it where v34
; is still all ones (the first such tap) or where maxNum(acc, x) differs from acc bit for bit (so the
; first of equal values stays, a NaN never replaces a number, +0 replaces -0). The tap's flat index
; is ((n C + c) ID + id) IH + ih) IW + iw over the input's Sizes: v36 (n C + c) ID IH IW, then + id
; IH IW (v51), + ih IW (v52), + iw; after the loops v34 is stored at the indices tensor's offset v35
; (UINT64: the high dword all ones for "no element", else 0). docs/NUMERICS.md, "Pooling".
;
; CONVOLUTION mode (the filter flipped along every spatial dimension) costs nothing here: the driver
; gives negative filter strides along the window and the flipped origin as the filter's base.
; Offsets are in elements, computed modulo 2^32 (a tap left of the input wraps; only taps inside
; the input are loaded, and their offsets are exact). Unsigned compares test 0 <= i < size at once.
;
; Constant buffer (kernels/constant_buffer.py's fields; window_ops.py packs them, `RECORD_USE`
; there is the table of what each record field holds):
;   record 0, 1, 2   OW, OH, OD: size, division magic, x stride, -, -, output stride
;   record 3         K: size, division magic, x channel stride, w K stride, bias K stride, output stride
;   record 4         K / G: size, division magic, x N stride, w channel stride, x group step, output N stride
;   record 5, 6, 7   W, H, D window: input size, window size, stride, dilation, start padding,
;                    x tap step (dilation x stride), w tap step, -
;   PARAM0 C / G     PARAM1 the filter's base (the flipped origin in CONVOLUTION mode); AVERAGE: the
;                    window's size as FLOAT32
;   PARAM2 ..        the FusedActivation's attributes (P_<NAME>)
;   HAS_INDICES      record 0, 1, 2 field 5: the indices' stride W, H, D; record 3 field 5 its K
;                    stride, field 6 ID IH IW; record 4 field 5 its N stride; record 6, 7 field 7: IW,
;                    IH IW (a pooling leaves these fields free)
; =============================================================================================
.include "prologue.inc"                  ; v1 = this thread's output element; EXEC: lanes with one
    s_load_dwordx4 s[8:11], s[0:1], ${DESC_T0}      ; x
.if WINDOW_OP == "CONVOLUTION"
    s_load_dwordx4 s[12:15], s[0:1], ${DESC_T1}     ; w
.endif
.if HAS_BIAS
    s_load_dwordx4 s[16:19], s[0:1], ${DESC_T2}     ; bias
.endif
.if HAS_INDICES
    s_load_dwordx4 s[16:19], s[0:1], ${DESC_T2}     ; OutputIndicesTensor (a pooling has no bias)
.endif
    s_load_dwordx4 s[20:23], s[0:1], ${DESC_OUT}    ; the output
    s_load_dwordx8 s[24:31], s[2:3], ${CB_CONV_W}   ; OW, magic, shift1, shift2, x_w, -, -, out_w
    s_load_dwordx8 s[32:39], s[2:3], ${CB_CONV_H}   ; OH ..
    s_load_dwordx8 s[40:47], s[2:3], ${CB_CONV_D}   ; OD ..
    s_load_dwordx8 s[48:55], s[2:3], ${CB_CONV_K}   ; K, magic, shift1, shift2, x_c, w_k, bias_k, out_k
    s_load_dwordx8 s[56:63], s[2:3], ${CB_CONV_GROUP}   ; K/G, magic, shift1, shift2, x_n, w_c, x group, out_n
    s_load_dwordx8 s[64:71], s[2:3], ${CB_CONV_WINDOW_W}   ; IW, KW, stride, dilation, pad, x tap, w tap, -
    s_load_dwordx8 s[72:79], s[2:3], ${CB_CONV_WINDOW_H}
    s_load_dwordx8 s[80:87], s[2:3], ${CB_CONV_WINDOW_D}
    s_load_dwordx2 s[88:89], s[2:3], ${CB_PARAM0}   ; C/G, the filter's base
    s_waitcnt 0
    s_mov_b64 s[90:91], exec             ; the lanes with an output element

; ---- the output element's coordinates: ow, oh, od, k, n (Granlund-Montgomery, as address.inc) ------
    v_mul_hi_u32 v2, v1, s25
    v_sub_u32 v3, v1, v2
    v_lshr_b32 v3, v3, s26
    v_add_u32 v2, v2, v3
    v_lshr_b32 v2, v2, s27               ; q = index / OW
    v_mul_lo_u32 v3, v2, s24
    v_sub_u32 v4, v1, v3                 ; ow
    v_mul_hi_u32 v3, v2, s33
    v_sub_u32 v9, v2, v3
    v_lshr_b32 v9, v9, s34
    v_add_u32 v3, v3, v9
    v_lshr_b32 v3, v3, s35               ; q' = q / OH
    v_mul_lo_u32 v9, v3, s32
    v_sub_u32 v5, v2, v9                 ; oh
    v_mul_hi_u32 v2, v3, s41
    v_sub_u32 v9, v3, v2
    v_lshr_b32 v9, v9, s42
    v_add_u32 v2, v2, v9
    v_lshr_b32 v2, v2, s43               ; q'' = q' / OD
    v_mul_lo_u32 v9, v2, s40
    v_sub_u32 v6, v3, v9                 ; od
    v_mul_hi_u32 v3, v2, s49
    v_sub_u32 v9, v2, v3
    v_lshr_b32 v9, v9, s50
    v_add_u32 v3, v3, v9
    v_lshr_b32 v8, v3, s51               ; n = q'' / K
    v_mul_lo_u32 v9, v8, s48
    v_sub_u32 v7, v2, v9                 ; k (TILE_K 4: the tile's number)
.if TILE_K == 4
    v_lshl_b32 v7, v7, 2                 ; k = 4 x the tile: its first output channel
.endif
    v_mul_hi_u32 v3, v7, s57
    v_sub_u32 v9, v7, v3
    v_lshr_b32 v9, v9, s58
    v_add_u32 v3, v3, v9
    v_lshr_b32 v9, v3, s59               ; g = k / (K / G)

; ---- offsets: the output element, the input window's first tap, the filter's row of k -------------
    v_mul_lo_u32 v10, v4, s31
    v_mad_u32 v10, v5, s39, v10
    v_mad_u32 v10, v6, s47, v10
    v_mad_u32 v10, v7, s55, v10
    v_mad_u32 v10, v8, s63, v10          ; out[n, k, od, oh, ow]
.if HAS_INDICES
    v_mul_lo_u32 v35, v4, s29
    v_mad_u32 v35, v5, s37, v35
    v_mad_u32 v35, v6, s45, v35
    v_mad_u32 v35, v7, s53, v35
    v_mad_u32 v35, v8, s61, v35          ; indices[n, k, od, oh, ow]
    v_mul_lo_u32 v36, v2, s54            ; (n C + c) ID IH IW: the flat index of x[n, c, 0, 0, 0]
    v_mov_b32 v34, -1                    ; no element yet
.endif
    v_mul_lo_u32 v11, v8, s60
    v_mad_u32 v11, v9, s62, v11          ; x[n, g C/G, 0, 0, 0]
.if BACKWARD
    v_add_u32 v13, v4, s68               ; the tap t = 0's numerator o + pad, per dimension
    v_add_u32 v14, v5, s76
    v_add_u32 v15, v6, s84
.else
    v_mul_lo_u32 v13, v4, s66
    v_sub_u32 v13, v13, s68              ; iw0 = ow stride - pad (modulo 2^32)
    v_mul_lo_u32 v14, v5, s74
    v_sub_u32 v14, v14, s76              ; ih0
    v_mul_lo_u32 v15, v6, s82
    v_sub_u32 v15, v15, s84              ; id0
    v_mad_u32 v11, v13, s28, v11
    v_mad_u32 v11, v14, s36, v11
    v_mad_u32 v11, v15, s44, v11         ; x at the window's first tap (modulo 2^32)
.endif
    v_mov_b32 v12, s89                   ; the filter's base
    v_mad_u32 v12, v7, s53, v12          ; w[k, 0, first tap]: plus k's row
.if BACKWARD
    v_mad_u32 v12, v9, s71, v12          ; w[g C/G, k - g K/G, first tap] (BACKWARD: the filter is { C, K/G, .. })
.endif
.if WINDOW_OP == "MAX"
    v_mov_b32 v16, ${MAX_IDENTITY}       ; acc = NaN, the identity of maxNum (integers: the least value)
.if PAIR
    v_mov_b32 v17, ${MAX_IDENTITY_HIGH}  ; its high dword
.endif
.else
    v_mov_b32 v16, ${ACC_ZERO}            ; acc = -0
.endif
    v_mov_b32 v31, 0                     ; AVERAGE: the taps inside the input
.if TILE_K == 4
    v_mov_b32 v40, ${ACC_ZERO}            ; the tile's accumulators of k + 1, k + 2, k + 3
    v_mov_b32 v41, ${ACC_ZERO}
    v_mov_b32 v42, ${ACC_ZERO}
    s_lshl_b32 s102, s53, ${SHIFT_IN}       ; the filter's K stride in bytes
.endif
; ---- CONVOLUTION_INTEGER (INTEGER): the zero points, loaded once: the input's (one value) in v106, the
; filter's of k .. k + 3 (one value, or one per output channel: its K stride in the bias's slot) in v107 ..
.if INTEGER
    v_mov_b32 v106, 0
    v_mov_b32 v107, 0
    v_mov_b32 v108, 0
    v_mov_b32 v109, 0
    v_mov_b32 v110, 0
.if HAS_XZP
    s_load_dwordx4 s[16:19], s[0:1], ${DESC_XZP}   ; InputZeroPointTensor (no bias in these variants)
    s_waitcnt 0
    buffer_load_${LOAD_X} v106, v106, s[16:19], 0
    s_waitcnt 0
.endif
.if HAS_WZP
    s_load_dwordx4 s[16:19], s[0:1], ${DESC_WZP}   ; FilterZeroPointTensor
    s_waitcnt 0
    v_mul_lo_u32 v111, v7, s54           ; k's filter zero point
    buffer_load_${LOAD_W} v107, v111, s[16:19], 0
.if TILE_K == 4
    v_add_u32 v111, v111, s54
    buffer_load_${LOAD_W} v108, v111, s[16:19], 0
    v_add_u32 v111, v111, s54
    buffer_load_${LOAD_W} v109, v111, s[16:19], 0
    v_add_u32 v111, v111, s54
    buffer_load_${LOAD_W} v110, v111, s[16:19], 0
.endif
    s_waitcnt 0
.endif
.endif
; ---- QUANTIZED_LINEAR_CONVOLUTION (QLINEAR): the requantization's operands, loaded once: the input's and the
; output's scale (v120, v121) and zero point (v122, as FLOAT32), the filter's scale (v112 ..) and the INT32 bias
; (v116 ..) of k .. k + 3 (one value, or one per output channel: their K strides in the K record's wide slots)
.if QLINEAR
    s_load_dwordx4 s[96:99], s[2:3], ${CB_CONV_K_WIDE}   ; -, WScale's K stride, the bias's, -
    s_load_dwordx4 s[16:19], s[0:1], ${DESC_XSCALE}
    s_waitcnt 0
    v_mov_b32 v111, 0
    buffer_load_dword v120, v111, s[16:19], 0     ; InputScale
    s_waitcnt 0
    s_load_dwordx4 s[16:19], s[0:1], ${DESC_OSCALE}
    s_waitcnt 0
    buffer_load_dword v121, v111, s[16:19], 0     ; OutputScale
    v_mov_b32 v122, 0
.if HAS_OZP
    s_waitcnt 0
    s_load_dwordx4 s[16:19], s[0:1], ${DESC_OZP}
    s_waitcnt 0
    buffer_load_${LOAD_OUT} v122, v111, s[16:19], 0   ; OutputZeroPoint
.endif
    s_waitcnt 0
    v_cvt_f32_i32 v122, v122             ; exact
    s_load_dwordx4 s[16:19], s[0:1], ${DESC_WSCALE}
    s_waitcnt 0
    v_mul_lo_u32 v111, v7, s97           ; WScale[k]
    v_lshl_b32 v123, v111, 2
    buffer_load_dword v112, v123, s[16:19], 0
.if TILE_K == 4
    v_add_u32 v111, v111, s97
    v_lshl_b32 v123, v111, 2
    buffer_load_dword v113, v123, s[16:19], 0
    v_add_u32 v111, v111, s97
    v_lshl_b32 v123, v111, 2
    buffer_load_dword v114, v123, s[16:19], 0
    v_add_u32 v111, v111, s97
    v_lshl_b32 v123, v111, 2
    buffer_load_dword v115, v123, s[16:19], 0
.endif
    s_waitcnt 0
    v_mov_b32 v116, 0
    v_mov_b32 v117, 0
    v_mov_b32 v118, 0
    v_mov_b32 v119, 0
.if HAS_QBIAS
    s_load_dwordx4 s[16:19], s[0:1], ${DESC_QBIAS}
    s_waitcnt 0
    v_mul_lo_u32 v111, v7, s98           ; bias[k]
    v_lshl_b32 v123, v111, 2
    buffer_load_dword v116, v123, s[16:19], 0
.if TILE_K == 4
    v_add_u32 v111, v111, s98
    v_lshl_b32 v123, v111, 2
    buffer_load_dword v117, v123, s[16:19], 0
    v_add_u32 v111, v111, s98
    v_lshl_b32 v123, v111, 2
    buffer_load_dword v118, v123, s[16:19], 0
    v_add_u32 v111, v111, s98
    v_lshl_b32 v123, v111, 2
    buffer_load_dword v119, v123, s[16:19], 0
.endif
    s_waitcnt 0
.endif
.endif
    s_mov_b32 s92, s88                   ; channels left: C/G

; ---- the taps: channel, then depth, height, width, each ascending ----------------------------------
channel:
    v_mov_b32 v19, v15                   ; id = id0
    v_mov_b32 v20, v11                   ; x at (c, t_d = 0, 0, 0)
    v_mov_b32 v21, v12                   ; w at (c, 0, 0, 0)
    s_mov_b32 s93, s81                   ; t_d left: KD
tap_d:
    s_mov_b64 exec, s[90:91]
.if BACKWARD
    v_mul_hi_u32 v32, v19, s45
    v_sub_u32 v33, v19, v32
    v_lshr_b32 v33, v33, s46
    v_add_u32 v32, v32, v33
    v_lshr_b32 v32, v32, s85              ; q = num / stride (its division magic)
    v_mul_lo_u32 v33, v32, s82
    v_cmp_eq_u32 vcc, v33, v19            ; num = q stride: the tap reads input coordinate q
    s_and_b64 s[96:97], exec, vcc
    v_cmp_gt_u32 vcc, s80, v32            ; q < ID (a negative num divides to a huge q)
    s_and_b64 s[96:97], s[96:97], vcc
    s_mov_b64 exec, s[96:97]
    s_cbranch_execz next_d
    v_mad_u32 v20, v32, s44, v11          ; x at q
.else
    v_cmp_gt_u32 vcc, s80, v19           ; 0 <= id < ID
    s_and_b64 s[96:97], exec, vcc
    s_and_b64 exec, exec, vcc
    s_cbranch_execz next_d               ; no lane has this depth inside the input
.endif
.if HAS_INDICES
    v_mad_u32 v51, v19, s87, v36         ; the flat index at (id, 0, 0)
.endif
    v_mov_b32 v22, v14                   ; ih = ih0
    v_mov_b32 v23, v20
    v_mov_b32 v24, v21
    s_mov_b32 s94, s73                   ; t_h left: KH
tap_h:
    s_mov_b64 exec, s[96:97]
.if BACKWARD
    v_mul_hi_u32 v32, v22, s37
    v_sub_u32 v33, v22, v32
    v_lshr_b32 v33, v33, s38
    v_add_u32 v32, v32, v33
    v_lshr_b32 v32, v32, s77              ; q = num / stride (its division magic)
    v_mul_lo_u32 v33, v32, s74
    v_cmp_eq_u32 vcc, v33, v22            ; num = q stride: the tap reads input coordinate q
    s_and_b64 s[98:99], exec, vcc
    v_cmp_gt_u32 vcc, s72, v32            ; q < IH (a negative num divides to a huge q)
    s_and_b64 s[98:99], s[98:99], vcc
    s_mov_b64 exec, s[98:99]
    s_cbranch_execz next_h
    v_mad_u32 v23, v32, s36, v20          ; x at q
.else
    v_cmp_gt_u32 vcc, s72, v22           ; 0 <= ih < IH
    s_and_b64 s[98:99], exec, vcc
    s_and_b64 exec, exec, vcc
    s_cbranch_execz next_h
.endif
.if HAS_INDICES
    v_mad_u32 v52, v22, s79, v51         ; the flat index at (id, ih, 0)
.endif
    v_mov_b32 v25, v13                   ; iw = iw0
    v_mov_b32 v26, v23
    v_mov_b32 v27, v24
    s_mov_b32 s95, s65                   ; t_w left: KW
.if PAIRED
; FORWARD convolution: two taps a trip (t and t + 1 along W), each under its own EXEC mask, both taps'
; loads in flight before one s_waitcnt; tap t's fmas run before tap t + 1's, so each accumulator still
; sees its taps in ascending order. With one tap left, the second mask is empty.
tap_w:
    s_mov_b64 exec, s[98:99]
    v_cmp_gt_u32 vcc, s64, v25           ; tap t: 0 <= iw < IW
    s_and_b64 s[100:101], exec, vcc
    v_add_u32 v43, v25, s67
    v_cmp_gt_u32 vcc, s64, v43           ; tap t + 1: 0 <= iw + dilation < IW
    s_and_b64 s[104:105], exec, vcc
    s_cmp_gt_u32 s95, 1
    s_cbranch_scc1 two_taps
    s_mov_b64 s[104:105], 0              ; the last tap of the row has no second
two_taps:
    s_or_b64 exec, s[100:101], s[104:105]
    s_cbranch_execz next_w               ; both taps in the padding: skipped
    s_mov_b64 exec, s[100:101]
    v_lshl_b32 v30, v26, ${SHIFT_IN}
    buffer_load_${LOAD_X} v28, v30, s[8:11], 0      ; x of tap t
    v_lshl_b32 v30, v27, ${SHIFT_IN}
    buffer_load_${LOAD_W} v29, v30, s[12:15], 0     ; w of tap t
.if TILE_K == 4
    v_add_u32 v30, v30, s102
    buffer_load_${LOAD_W} v37, v30, s[12:15], 0     ; w of k + 1
    v_add_u32 v30, v30, s102
    buffer_load_${LOAD_W} v38, v30, s[12:15], 0     ; w of k + 2
    v_add_u32 v30, v30, s102
    buffer_load_${LOAD_W} v39, v30, s[12:15], 0     ; w of k + 3
.endif
    s_mov_b64 exec, s[104:105]
    v_add_u32 v44, v26, s69
    v_lshl_b32 v44, v44, ${SHIFT_IN}
    buffer_load_${LOAD_X} v46, v44, s[8:11], 0      ; x of tap t + 1
    v_add_u32 v44, v27, s70
    v_lshl_b32 v44, v44, ${SHIFT_IN}
    buffer_load_${LOAD_W} v47, v44, s[12:15], 0     ; w of tap t + 1
.if TILE_K == 4
    v_add_u32 v44, v44, s102
    buffer_load_${LOAD_W} v48, v44, s[12:15], 0     ; w of k + 1
    v_add_u32 v44, v44, s102
    buffer_load_${LOAD_W} v49, v44, s[12:15], 0     ; w of k + 2
    v_add_u32 v44, v44, s102
    buffer_load_${LOAD_W} v50, v44, s[12:15], 0     ; w of k + 3
.endif
    s_waitcnt 0
    s_mov_b64 exec, s[100:101]
.if WIDEN_F16
    v_cvt_f32_f16 v28, v28               ; FLOAT16 widened, exactly
    v_cvt_f32_f16 v29, v29
.if TILE_K == 4
    v_cvt_f32_f16 v37, v37
    v_cvt_f32_f16 v38, v38
    v_cvt_f32_f16 v39, v39
.endif
.endif
.if INTEGER
    v_sub_u32 v28, v28, v106           ; x - XZP, exact
    v_sub_u32 v29, v29, v107           ; w - WZP
.if TILE_K == 4
    v_sub_u32 v37, v37, v108
    v_sub_u32 v38, v38, v109
    v_sub_u32 v39, v39, v110
.endif
.endif
    ${MAC} v16, v28, v29, v16         ; tap t: acc = fma(x, w, acc), rounded once
.if TILE_K == 4
    ${MAC} v40, v28, v37, v40
    ${MAC} v41, v28, v38, v41
    ${MAC} v42, v28, v39, v42
.endif
    s_mov_b64 exec, s[104:105]
.if WIDEN_F16
    v_cvt_f32_f16 v46, v46
    v_cvt_f32_f16 v47, v47
.if TILE_K == 4
    v_cvt_f32_f16 v48, v48
    v_cvt_f32_f16 v49, v49
    v_cvt_f32_f16 v50, v50
.endif
.endif
.if INTEGER
    v_sub_u32 v46, v46, v106           ; x - XZP, exact
    v_sub_u32 v47, v47, v107           ; w - WZP
.if TILE_K == 4
    v_sub_u32 v48, v48, v108
    v_sub_u32 v49, v49, v109
    v_sub_u32 v50, v50, v110
.endif
.endif
    ${MAC} v16, v46, v47, v16         ; tap t + 1
.if TILE_K == 4
    ${MAC} v40, v46, v48, v40
    ${MAC} v41, v46, v49, v41
    ${MAC} v42, v46, v50, v42
.endif
next_w:
    s_mov_b64 exec, s[90:91]
    v_add_u32 v25, v25, s67              ; two taps on: iw += 2 dilation, x and w two taps on
    v_add_u32 v25, v25, s67
    v_add_u32 v26, v26, s69
    v_add_u32 v26, v26, s69
    v_add_u32 v27, v27, s70
    v_add_u32 v27, v27, s70
    s_cmp_le_u32 s95, 2
    s_cbranch_scc1 next_h                ; the row's taps are done
    s_sub_u32 s95, s95, 2
    s_branch tap_w
.else
tap_w:
    s_mov_b64 exec, s[98:99]
.if BACKWARD
    v_mul_hi_u32 v32, v25, s29
    v_sub_u32 v33, v25, v32
    v_lshr_b32 v33, v33, s30
    v_add_u32 v32, v32, v33
    v_lshr_b32 v32, v32, s69              ; q = num / stride (its division magic)
    v_mul_lo_u32 v33, v32, s66
    v_cmp_eq_u32 vcc, v33, v25            ; num = q stride: the tap reads input coordinate q
    s_and_b64 s[100:101], exec, vcc
    v_cmp_gt_u32 vcc, s64, v32            ; q < IW (a negative num divides to a huge q)
    s_and_b64 s[100:101], s[100:101], vcc
    s_mov_b64 exec, s[100:101]
    s_cbranch_execz next_w
    v_mad_u32 v26, v32, s28, v23          ; x at q
.else
    v_cmp_gt_u32 vcc, s64, v25           ; 0 <= iw < IW
    s_and_b64 exec, exec, vcc
    s_cbranch_execz next_w               ; a padded tap: skipped, no fma(0, w, acc)
.endif
    v_lshl_b32 v30, v26, ${SHIFT_IN}
    buffer_load_${LOAD_X} ${X_REG}, v30, s[8:11], 0      ; x
.if WINDOW_OP == "CONVOLUTION"
    v_lshl_b32 v30, v27, ${SHIFT_IN}
    buffer_load_${LOAD_W} v29, v30, s[12:15], 0     ; w
.if TILE_K == 4
    v_add_u32 v30, v30, s102
    buffer_load_${LOAD_W} v37, v30, s[12:15], 0     ; w of k + 1
    v_add_u32 v30, v30, s102
    buffer_load_${LOAD_W} v38, v30, s[12:15], 0     ; w of k + 2
    v_add_u32 v30, v30, s102
    buffer_load_${LOAD_W} v39, v30, s[12:15], 0     ; w of k + 3
.endif
.endif
    s_waitcnt 0
.if WIDEN_F16
    v_cvt_f32_f16 v28, v28               ; FLOAT16 widened, exactly
.endif
.if WINDOW_OP == "CONVOLUTION"
.if WIDEN_F16
    v_cvt_f32_f16 v29, v29
.if TILE_K == 4
    v_cvt_f32_f16 v37, v37
    v_cvt_f32_f16 v38, v38
    v_cvt_f32_f16 v39, v39
.endif
.endif
.if INTEGER
    v_sub_u32 v28, v28, v106           ; x - XZP, exact
    v_sub_u32 v29, v29, v107           ; w - WZP
.if TILE_K == 4
    v_sub_u32 v37, v37, v108
    v_sub_u32 v38, v38, v109
    v_sub_u32 v39, v39, v110
.endif
.endif
    ${MAC} v16, v28, v29, v16         ; acc = fma(x, w, acc), rounded once
.if TILE_K == 4
    ${MAC} v40, v28, v37, v40         ; the same x for the tile's other output channels
    ${MAC} v41, v28, v38, v41
    ${MAC} v42, v28, v39, v42
.endif
.endif
.if WINDOW_OP == "AVERAGE"
    v_add_f32 v16, v16, v28              ; acc = acc + x, rounded once
    v_add_u32 v31, v31, 1                ; one more tap inside the input
.endif
.if WINDOW_OP == "LP"
.if LP_P == 1
    v_and_b32 v28, v28, 0x7FFFFFFF       ; |x|
.else
    v_mul_f32 v28, v28, v28              ; x x, rounded once
.endif
    v_add_f32 v16, v16, v28              ; acc = acc + |x| (x x), rounded once
.endif
.if WINDOW_OP == "MAX"
.if HAS_INDICES
    ${MAX} ${NEW_REG}, ${ACC_REG}, ${X_REG}   ; maxNum(acc, x) (integers: the maximum)
    ${CMP_NE} vcc, ${NEW_REG}, ${ACC_REG}     ; it differs from acc bit for bit
    s_mov_b64 s[102:103], vcc
    v_cmp_eq_u32 vcc, v34, -1            ; or this is the first tap inside the input
    s_or_b64 vcc, vcc, s[102:103]
    v_add_u32 v53, v52, v25              ; the tap's flat index
    v_cndmask_b32 v34, v34, v53, vcc     ; the tap is taken
    v_mov_b32 v16, v54                   ; acc = maxNum(acc, x)
.if PAIR
    v_mov_b32 v17, v55
.endif
.else
    ${MAX} ${ACC_REG}, ${ACC_REG}, ${X_REG}   ; acc = maxNum(acc, x) (integers: the maximum)
.endif
.endif
next_w:
    s_mov_b64 exec, s[90:91]
.if BACKWARD
    v_sub_u32 v25, v25, s67              ; num -= dilation
.else
    v_add_u32 v25, v25, s67              ; iw += dilation
    v_add_u32 v26, v26, s69              ; x: the next tap along W
.endif
    v_add_u32 v27, v27, s70              ; w: the next tap along W
    s_sub_u32 s95, s95, 1
    s_cmp_lg_u32 s95, 0
    s_cbranch_scc1 tap_w
.endif
next_h:
    s_mov_b64 exec, s[90:91]
.if BACKWARD
    v_sub_u32 v22, v22, s75
.else
    v_add_u32 v22, v22, s75
    v_add_u32 v23, v23, s77
.endif
    v_add_u32 v24, v24, s78
    s_sub_u32 s94, s94, 1
    s_cmp_lg_u32 s94, 0
    s_cbranch_scc1 tap_h
next_d:
    s_mov_b64 exec, s[90:91]
.if BACKWARD
    v_sub_u32 v19, v19, s83
.else
    v_add_u32 v19, v19, s83
    v_add_u32 v20, v20, s85
.endif
    v_add_u32 v21, v21, s86
    s_sub_u32 s93, s93, 1
    s_cmp_lg_u32 s93, 0
    s_cbranch_scc1 tap_d
    v_add_u32 v11, v11, s52              ; the next channel of the group
    v_add_u32 v12, v12, s61
    s_sub_u32 s92, s92, 1
    s_cmp_lg_u32 s92, 0
    s_cbranch_scc1 channel
    s_mov_b64 exec, s[90:91]
.if HAS_INDICES
.if INDEX_PAIR
    v_cmp_eq_u32 vcc, v34, -1
    v_cndmask_b32 v57, 0, -1, vcc        ; the high dword: all ones for "no element", else 0
    v_mov_b32 v56, v34
    v_lshl_b32 v30, v35, 3
    buffer_store_dwordx2 v[56:57], v30, s[16:19], 0   ; the maximum's flat index (UINT64)
.else
    v_lshl_b32 v30, v35, 2
    buffer_store_dword v34, v30, s[16:19], 0          ; the maximum's flat index (UINT32)
.endif
.endif

.if WINDOW_OP == "LP"
.if LP_P == 2
    v_sqrt_f32 v16, v16                  ; LP_POOLING P 2: the square root, correctly rounded
.endif
.endif
; ---- the divide (AVERAGE); per output channel of the tile: the bias, the FusedActivation, the store --
.if WINDOW_OP == "AVERAGE"
.if INCLUDE_PADDING
    v_mov_b32 v29, s89                   ; the window's size, as FLOAT32
.else
    v_cvt_f32_u32 v29, v31               ; the taps inside the input (exact: below 2^24)
.endif
    v_div_f32 v16, v16, v29              ; one correctly rounded divide (0 taps: -0 / 0 = NaN)
.endif
; The activation operator's own body (element_wise_bodies.inc) runs on v10, as gemm.s runs it: the body
; may use v10 .. v99 and the attribute registers s44 .. s51 (P_<NAME>), so the results wait in v100 ..
; v103 and the offsets in v104, v105, s93 .. s95; one output channel per trip, v100 .. v103 moving down.
; QUANTIZED_LINEAR_CONVOLUTION: each exact sum plus its bias, requantized (docs/NUMERICS.md)
.if QLINEAR
    v_add_u32 v16, v16, v116          ; + bias[k + 0], exact (modulo 2^32)
    v_cvt_f32_i32 v16, v16             ; rounded once
    v_mul_f32 v111, v120, v112          ; InputScale * FilterScale[k + 0], rounded
    v_mul_f32 v16, v16, v111
    v_div_f32 v16, v16, v121           ; / OutputScale, correctly rounded
    v_rndne_f32 v16, v16
    v_add_f32 v16, v16, v122           ; + OutputZeroPoint
    v_cvt_${OUT_SAT}_f32 v16, v16        ; saturate, NaN -> 0
.if TILE_K == 4
    v_add_u32 v40, v40, v117          ; + bias[k + 1], exact (modulo 2^32)
    v_cvt_f32_i32 v40, v40             ; rounded once
    v_mul_f32 v111, v120, v113          ; InputScale * FilterScale[k + 1], rounded
    v_mul_f32 v40, v40, v111
    v_div_f32 v40, v40, v121           ; / OutputScale, correctly rounded
    v_rndne_f32 v40, v40
    v_add_f32 v40, v40, v122           ; + OutputZeroPoint
    v_cvt_${OUT_SAT}_f32 v40, v40        ; saturate, NaN -> 0
    v_add_u32 v41, v41, v118          ; + bias[k + 2], exact (modulo 2^32)
    v_cvt_f32_i32 v41, v41             ; rounded once
    v_mul_f32 v111, v120, v114          ; InputScale * FilterScale[k + 2], rounded
    v_mul_f32 v41, v41, v111
    v_div_f32 v41, v41, v121           ; / OutputScale, correctly rounded
    v_rndne_f32 v41, v41
    v_add_f32 v41, v41, v122           ; + OutputZeroPoint
    v_cvt_${OUT_SAT}_f32 v41, v41        ; saturate, NaN -> 0
    v_add_u32 v42, v42, v119          ; + bias[k + 3], exact (modulo 2^32)
    v_cvt_f32_i32 v42, v42             ; rounded once
    v_mul_f32 v111, v120, v115          ; InputScale * FilterScale[k + 3], rounded
    v_mul_f32 v42, v42, v111
    v_div_f32 v42, v42, v121           ; / OutputScale, correctly rounded
    v_rndne_f32 v42, v42
    v_add_f32 v42, v42, v122           ; + OutputZeroPoint
    v_cvt_${OUT_SAT}_f32 v42, v42        ; saturate, NaN -> 0
.endif
.endif
    v_mov_b32 v100, v16
.if PAIR
    v_mov_b32 v101, v17                  ; the 64-bit maximum's high dword (TILE_K is 1)
.endif
.if TILE_K == 4
    v_mov_b32 v101, v40
    v_mov_b32 v102, v41
    v_mov_b32 v103, v42
.endif
    v_mov_b32 v104, v10                  ; out[n, k, o]
    v_mul_lo_u32 v105, v7, s54           ; bias[k]
    s_mov_b32 s94, s54                   ; the bias's K stride
    s_mov_b32 s95, s55                   ; the output's K stride
    s_mov_b32 s93, ${TILE_K}             ; output channels left
.if HAS_ACT
    s_load_dwordx4 s[44:47], s[2:3], ${CB_PARAM2}   ; the activation's attributes
    s_waitcnt 0
.endif
store_next:
    s_mov_b64 exec, s[90:91]
    v_mov_b32 v10, v100
.if PAIR
    v_mov_b32 v11, v101
.endif
.if HAS_BIAS
    v_lshl_b32 v30, v105, ${SHIFT}
    buffer_load_${LOAD} v29, v30, s[16:19], 0     ; bias[k]
    s_waitcnt 0
.if WIDEN_F16
    v_cvt_f32_f16 v29, v29
.endif
    v_add_f32 v10, v10, v29              ; acc + bias, rounded once
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
    v_lshl_b32 v30, v104, ${SHIFT}
    buffer_store_${STORE} ${STORE_REG}, v30, s[20:23], 0
    v_add_u32 v104, v104, s95            ; the next output channel of the tile
    v_add_u32 v105, v105, s94
    v_mov_b32 v100, v101
    v_mov_b32 v101, v102
    v_mov_b32 v102, v103
    s_sub_u32 s93, s93, 1
    s_cmp_lg_u32 s93, 0
    s_cbranch_scc1 store_next
done:
    s_endpgm
