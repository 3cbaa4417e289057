; =============================================================================================
; lrn.s: DML_OPERATOR_LOCAL_RESPONSE_NORMALIZATION on { N, C, H, W } tensors. Output = Input /
; (Bias + (Alpha / LocalSize) * S)^Beta, S the sum of Input^2 over the element's window; the order
; of every operation is docs/NUMERICS.md's "Normalization".
;
; Launch (kernels/normalization_ops.py): one thread per output element, workgroups of the
; preset's size (as the element-wise kernels); thread i peels i over W, H, C, N into its
; coordinates and offsets, then
;   1. S from -0: CROSS_CHANNEL, j = max(0, c - lo) .. min(C - 1, c + hi) ascending; otherwise
;      the rows h' = max(0, h - lo) .. min(H - 1, h + hi) ascending, in each the columns w' the
;      same way: S = S + x * x, the product and the sum each rounded;
;   2. base = Bias + (Alpha / LocalSize) * S, the multiply and the add each rounded (never fused);
;   3. base^Beta: ELEMENT_WISE_CONSTANT_POW's own body (element_wise_math.inc, BODY "POW");
;   4. y = x / base^Beta, one correctly rounded divide; FLOAT16 narrowed once; stored.
;
; Constant buffer (kernels/constant_buffer.py; kernels/normalization_ops.py packs it):
;   ELEMENTS, WORKGROUP_SIZE  the output's elements, threads per workgroup
;   RECORDS 0 .. 3      W, H, C, N: size, division magic, strides of the input (T0), output (T1)
;   PARAM0              Beta (FLOAT32: the POW body's P_EXPONENT, in s44)
;   PARAM1, PARAM2      Alpha / LocalSize (rounded to FLOAT32), Bias (FLOAT32)
;   PARAM3, PARAM4      lo = (LocalSize - 1) / 2 rounded down, hi = LocalSize - 1 - lo
; =============================================================================================
    s_load_dwordx4 s[8:11], s[0:1], ${DESC_T0}      ; the input's buffer descriptor
    s_load_dwordx4 s[12:15], s[0:1], ${DESC_T1}     ; the output's
    s_load_dwordx4 s[56:59], s[2:3], ${CB_PARAM1}   ; Alpha / LocalSize, Bias, lo, hi
    s_load_dword s60, s[2:3], ${CB_ELEMENTS}
    s_load_dword s61, s[2:3], ${CB_WORKGROUP_SIZE}
    s_load_dwordx8 s[64:71], s[2:3], ${CB_LRN_W}    ; size, magic, shift1, shift2, input stride, output stride
    s_load_dwordx8 s[72:79], s[2:3], ${CB_LRN_H}
    s_load_dwordx8 s[80:87], s[2:3], ${CB_LRN_C}
    s_load_dwordx8 s[88:95], s[2:3], ${CB_LRN_N}
    s_waitcnt 0
    v_mov_b32 v100, s4
    v_mad_u32 v100, v100, s61, v0        ; i = workgroup * size + thread
    v_cmp_gt_u32 vcc, s60, v100          ; threads past the last element do nothing
    s_and_b64 exec, exec, vcc
    s_cbranch_execz done
    s_mov_b64 s[40:41], exec             ; the threads with an element (restored after each loop)

; ---- the element's coordinates and offsets (Granlund-Montgomery, as address.inc) ---------------------
.set COORD, v101
.set R_SIZE, s64
.set R_MAGIC, s65
.set R_SHIFT1, s66
.set R_SHIFT2, s67
.set R_IN, s68
.set R_OUT, s69
    v_mov_b32 v105, 0                    ; input offset
    v_mov_b32 v106, 0                    ; output offset
.include "lrn_peel.inc"                  ; w -> v101
.set COORD, v102
.set R_SIZE, s72
.set R_MAGIC, s73
.set R_SHIFT1, s74
.set R_SHIFT2, s75
.set R_IN, s76
.set R_OUT, s77
.include "lrn_peel.inc"                  ; h -> v102
.set COORD, v103
.set R_SIZE, s80
.set R_MAGIC, s81
.set R_SHIFT1, s82
.set R_SHIFT2, s83
.set R_IN, s84
.set R_OUT, s85
.include "lrn_peel.inc"                  ; c -> v103
.set COORD, v104
.set R_SIZE, s88
.set R_MAGIC, s89
.set R_SHIFT1, s90
.set R_SHIFT2, s91
.set R_IN, s92
.set R_OUT, s93
.include "lrn_peel.inc"                  ; n -> v104

; ---- 1. S over the window, ascending -----------------------------------------------------------------
    v_mov_b32 v110, 0x80000000           ; S = -0
.if CROSS_CHANNEL
    s_sub_u32 s96, s80, 1                ; C - 1
    v_sub_u32 v107, v103, s58            ; c - lo, at least 0 (as a signed number)
    v_max_i32 v107, v107, 0
    v_add_u32 v108, v103, s59            ; c + hi, at most C - 1
    v_min_u32 v108, v108, s96
    v_mul_lo_u32 v109, v103, s84
    v_sub_u32 v109, v105, v109           ; the input offset of channel 0
    v_mov_b32 v111, v107                 ; j
channel_next:
    v_cmp_ge_u32 vcc, v108, v111         ; j <= the last channel
    s_and_b64 exec, exec, vcc
    s_cbranch_execz channel_done
    v_mad_u32 v112, v111, s84, v109
    v_lshl_b32 v112, v112, ${SHIFT}
    buffer_load_${LOAD} v113, v112, s[8:11], 0
    s_waitcnt 0
.if WIDEN_F16
    v_cvt_f32_f16 v113, v113
.endif
    v_mul_f32 v113, v113, v113           ; x * x, rounded, then added
    v_add_f32 v110, v110, v113
    v_add_u32 v111, v111, 1
    s_branch channel_next
channel_done:
    s_mov_b64 exec, s[40:41]
.else
    s_sub_u32 s96, s72, 1                ; H - 1
    s_sub_u32 s97, s64, 1                ; W - 1
    v_sub_u32 v107, v102, s58            ; the first row: max(0, h - lo)
    v_max_i32 v107, v107, 0
    v_add_u32 v108, v102, s59            ; the last: min(H - 1, h + hi)
    v_min_u32 v108, v108, s96
    v_sub_u32 v114, v101, s58            ; the first column: max(0, w - lo)
    v_max_i32 v114, v114, 0
    v_add_u32 v115, v101, s59            ; the last: min(W - 1, w + hi)
    v_min_u32 v115, v115, s97
    v_mul_lo_u32 v109, v102, s76
    v_sub_u32 v109, v105, v109
    v_mul_lo_u32 v112, v101, s68
    v_sub_u32 v109, v109, v112           ; the input offset of (h, w) = (0, 0)
    v_mov_b32 v111, v107                 ; h'
row_next:
    v_cmp_ge_u32 vcc, v108, v111
    s_and_b64 exec, exec, vcc
    s_cbranch_execz row_done
    s_mov_b64 s[42:43], exec             ; the threads with this row
    v_mad_u32 v116, v111, s76, v109      ; the row's offset
    v_mov_b32 v117, v114                 ; w'
column_next:
    v_cmp_ge_u32 vcc, v115, v117
    s_and_b64 exec, exec, vcc
    s_cbranch_execz column_done
    v_mad_u32 v112, v117, s68, v116
    v_lshl_b32 v112, v112, ${SHIFT}
    buffer_load_${LOAD} v113, v112, s[8:11], 0
    s_waitcnt 0
.if WIDEN_F16
    v_cvt_f32_f16 v113, v113
.endif
    v_mul_f32 v113, v113, v113
    v_add_f32 v110, v110, v113
    v_add_u32 v117, v117, 1
    s_branch column_next
column_done:
    s_mov_b64 exec, s[42:43]
    v_add_u32 v111, v111, 1
    s_branch row_next
row_done:
    s_mov_b64 exec, s[40:41]
.endif

; ---- 2 .. 4. base, base^Beta, x / it ------------------------------------------------------------------
    v_mul_f32 v110, v110, s56            ; (Alpha / LocalSize) * S, rounded
    v_add_f32 v10, v110, s57             ; + Bias, rounded
    s_load_dword s44, s[2:3], ${CB_PARAM0}   ; Beta: the POW body's exponent
    s_waitcnt 0
.set X, v10
.set BODY, POW
.include "element_wise_bodies.inc"       ; ELEMENT_WISE_CONSTANT_POW's body: v10 = base^Beta
    v_lshl_b32 v112, v105, ${SHIFT}
    buffer_load_${LOAD} v113, v112, s[8:11], 0
    s_waitcnt 0
.if WIDEN_F16
    v_cvt_f32_f16 v113, v113
.endif
    v_div_f32 v10, v113, v10             ; x / base^Beta, one correctly rounded divide
.if NARROW_F16
    v_cvt_f16_f32 v10, v10               ; FLOAT16: rounded once, to nearest even
.endif
    v_lshl_b32 v112, v106, ${SHIFT}
    buffer_store_${STORE} v10, v112, s[12:15], 0
done:
    s_endpgm
