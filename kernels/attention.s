; =============================================================================================
; attention.s: DML_OPERATOR_MULTIHEAD_ATTENTION with Query, Key and Value separate or stacked (the
; driver gives each its descriptor, first element and strides), an optional Bias, an optional
; RelativePositionBias, optional PastKey / PastValue and an optional KEY_SEQUENCE_LENGTH,
; KEY_SEQUENCE_END_START or BOOLEAN mask.
; The order of every operation is docs/NUMERICS.md's "Multi-head attention", whatever the wave width.
;
; Launch (kernels/attention_ops.py): a grid of workgroups (X, Y, Z) = (sequenceLength, HeadCount,
; batchSize) of L threads, L as the reductions pick it from the keys' count T; s4, s5, s6
; are the group's X = i (the query row), Y = h (the head), Z = b (the batch); v0 the thread id.
;   A. the query row q[d] = Query[b, i, h D + d] (+ Bias, rounded) into LDS (threads d = t, t + L ..);
;   B. the threads score the keys j (the past ones, then the new ones), each: from -0, fma(q[d], k[j, d], acc) for d ascending (k
;      with its Bias added, rounded), then Scale * acc (one rounding), then + the
;      RelativePositionBias[b, h, i, j] (rounded), then + MaskFilterValue (rounded) where j >= Mask[b]
;      (KEY_SEQUENCE_LENGTH), j >= end[b] or j < start[b] (KEY_SEQUENCE_END_START) or Mask[b,
;      (h,) i, j] is 0 (BOOLEAN); each score into LDS, and maxNum of them into v10;
;   C. M by the reductions' LDS tree (reduce_tree.inc); S = the sum of e^(s - M) (math_exp.inc) in
;      the reductions' SUM order, as softmax.s computes a row;
;   D. p[j] = e^(s[j] - M) / S (one correctly rounded divide) replaces s[j] in LDS;
;   E. thread t computes output columns e = t, t + L ..: from -0, fma(p[j], v[j, e], acc) for j
;      ascending (v with its Bias added, rounded); FLOAT16 rounds once at the store.
; Offsets are in elements from the strides the driver gives.
;
; Constant buffer (kernels/constant_buffer.py's RECORDS and PARAM fields; attention_ops.py packs them):
;   record 0  the batch: -, -, -, -, strides of Query, Key, Value, Output
;   record 1  the sequence: -, -, -, -, strides of Query, Key, Value, Output (Key, Value: along j)
;   record 2  D, Dv, hiddenSize, T (= Lp + Skv: every key), the column strides of Query, Key, Value, Output
;   record 3  BOOLEAN: the Mask's strides along b, h, i, j (0 along h for a 3-dimensional one); the
;             Bias's stride; KEY_SEQUENCE_LENGTH, KEY_SEQUENCE_END_START: the Mask's stride along b,
;             then (END_START) the element of the first start; 0
;   record 4  -, -, -, -, the RelativePositionBias's strides along b, h, i, j
;   record 5  the query's, key's and value's first element (their slot of a stacked tensor: 0, 1, 2
;             times its stride along the stack), -, the head strides of Query, Key, Value, Output
;             (D times the column stride for a [batch, sequence, hidden] tensor)
;   record 6  (past keys) Lp, -, -, -, the PastKey's strides along b, h, j, d
;   record 7  (past keys) Lp, -, -, -, the PastValue's strides along b, h, j, d
;             (record 0 is read at the start only: 6, then 7, reuse its registers)
;   PARAM0, PARAM1: Scale, MaskFilterValue (FLOAT32)
; LDS: the tree at 0 (4 L bytes), q at ${LDS_Q} (4 D bytes), the scores at ${LDS_S} (4 T bytes).
; With PastKey / PastValue (HAS_PAST), keys and values j < Lp come from them, the others from Key /
; Value at row j - Lp; the Bias is added to the new ones only.
; =============================================================================================
    s_load_dwordx4 s[8:11], s[0:1], ${DESC_Q}       ; the Query's buffer descriptor
    s_load_dwordx4 s[12:15], s[0:1], ${DESC_K}      ; the Key's
    s_load_dwordx4 s[16:19], s[0:1], ${DESC_V}      ; the Value's
.if HAS_BIAS
    s_load_dwordx4 s[20:23], s[0:1], ${DESC_BIAS}   ; the Bias's
.endif
.if HAS_MASK or MASK_BOOLEAN or MASK_END_START
    s_load_dwordx4 s[24:27], s[0:1], ${DESC_MASK}   ; the Mask's
.endif
    s_load_dwordx4 s[28:31], s[0:1], ${DESC_OUT}    ; the Output's
.if HAS_RPB
    s_load_dwordx4 s[44:47], s[0:1], ${DESC_RPB}    ; the RelativePositionBias's
    s_load_dwordx8 s[96:103], s[2:3], ${CB_ATT_RPB}     ; -, -, -, -, R_b, R_h, R_i, R_j
.endif
    s_load_dwordx8 s[32:39], s[2:3], ${CB_ATT_BATCH}    ; -, -, -, -, Q_b, K_b, V_b, O_b
    s_load_dwordx8 s[48:55], s[2:3], ${CB_ATT_SEQUENCE} ; -, -, -, -, Q_s, K_s, V_s, O_s
    s_load_dwordx8 s[56:63], s[2:3], ${CB_ATT_COLUMN}   ; D, Dv, hidden, Skv, Q_c, K_c, V_c, O_c
    s_load_dwordx8 s[64:71], s[2:3], ${CB_ATT_EXTRA}    ; M_b, M_h, M_i, M_j, Bias stride, Mask stride, 0, 0
    s_load_dwordx8 s[88:95], s[2:3], ${CB_ATT_HEAD}     ; Q_o, K_o, V_o, -, Q_h, K_h, V_h, O_h
    s_load_dwordx2 s[72:73], s[2:3], ${CB_PARAM0}   ; Scale, MaskFilterValue
    s_waitcnt 0
    s_mov_b64 s[40:41], exec             ; every thread of the workgroup (restored after each branch)

; ---- this workgroup's element offsets -----------------------------------------------------------------
    s_mul_i32 s74, s5, s56               ; h D: the head's first query / key column
    s_mul_i32 s75, s5, s57               ; h Dv: its first value / output column
    s_mul_i32 s76, s6, s36
    s_mul_i32 s87, s4, s52
    s_add_u32 s76, s76, s87
    s_mul_i32 s87, s5, s92
    s_add_u32 s76, s76, s87
    s_add_u32 s76, s76, s88              ; Query[b, i, h, 0] (+ its slot of a stacked tensor)
    s_mul_i32 s77, s6, s37
    s_mul_i32 s87, s5, s93
    s_add_u32 s77, s77, s87
    s_add_u32 s77, s77, s89              ; Key[b, 0, h, 0]
    s_mul_i32 s78, s6, s38
    s_mul_i32 s87, s5, s94
    s_add_u32 s78, s78, s87
    s_add_u32 s78, s78, s90              ; Value[b, 0, h, 0]
    s_mul_i32 s79, s6, s39
    s_mul_i32 s87, s4, s55
    s_add_u32 s79, s79, s87
    s_mul_i32 s87, s5, s95
    s_add_u32 s79, s79, s87              ; Output[b, i, h Dv]
    s_add_u32 s82, s58, s74              ; hidden + h D: the Key's first bias element
    s_mul_i32 s82, s82, s68
    s_add_u32 s84, s58, s58
    s_add_u32 s84, s84, s75              ; 2 hidden + h Dv: the Value's
.if HAS_RPB
    s_mul_i32 s85, s6, s100              ; RelativePositionBias[b, h, i, 0]
    s_mul_i32 s87, s5, s101
    s_add_u32 s85, s85, s87
    s_mul_i32 s87, s4, s102
    s_add_u32 s85, s85, s87
.endif
.if MASK_BOOLEAN
    s_mul_i32 s86, s6, s64               ; Mask[b, h, i, 0]
    s_mul_i32 s87, s5, s65
    s_add_u32 s86, s86, s87
    s_mul_i32 s87, s4, s66
    s_add_u32 s86, s86, s87
.endif
.if HAS_MASK or MASK_END_START
    v_mov_b32 v20, s6                    ; Mask[b], the key sequence length (END_START: the end; signed)
    v_mul_lo_u32 v20, v20, s69
.if MASK_END_START
    v_add_u32 v24, v20, s70              ; the start, after the batchSize ends
    v_lshl_b32 v24, v24, 2
    buffer_load_dword v24, v24, s[24:27], 0
.endif
    v_lshl_b32 v20, v20, 2
    buffer_load_dword v20, v20, s[24:27], 0
    s_waitcnt 0
.endif

; ---- A. the query row into LDS -------------------------------------------------------------------------
    v_mov_b32 v7, v0                     ; d = t
query_next:
    v_cmp_gt_u32 vcc, s56, v7            ; threads with d < D go on
    s_and_b64 exec, exec, vcc
    s_cbranch_execz query_done
    v_mul_lo_u32 v8, v7, s60
    v_add_u32 v8, v8, s76
    v_lshl_b32 v8, v8, ${SHIFT}
    buffer_load_${LOAD} v11, v8, s[8:11], 0
    s_waitcnt 0
.if WIDEN_F16
    v_cvt_f32_f16 v11, v11               ; FLOAT16 computes in FLOAT32 (exact widening)
.endif
.if HAS_BIAS
    v_add_u32 v9, v7, s74                ; Bias[h D + d]
    v_mul_lo_u32 v9, v9, s68
    v_lshl_b32 v9, v9, ${SHIFT}
    buffer_load_${LOAD} v12, v9, s[20:23], 0
    s_waitcnt 0
.if WIDEN_F16
    v_cvt_f32_f16 v12, v12
.endif
    v_add_f32 v11, v11, v12              ; q + bias, rounded
.endif
    v_lshl_b32 v9, v7, 2
    ds_write_b32 v9, v11, ${LDS_Q}
    v_add_u32 v7, v7, ${LANES}
    s_branch query_next
query_done:
    s_mov_b64 exec, s[40:41]
    s_barrier

; ---- B. the scores s[j] and their maxNum -------------------------------------------------------------
; A phase is a run of keys from one tensor: with past keys, first j < Lp from PastKey (no Bias),
; then j = Lp .. T-1 from Key (row j - Lp); which thread scores which key changes nothing (each
; score is one thread's, into LDS at j; maxNum takes any order).
    v_mov_b32 v10, ${IDENTITY}           ; maxNum's identity (NaN)
.if HAS_PAST
    s_load_dwordx8 s[32:39], s[2:3], ${CB_ATT_PAST_KEY} ; Lp, -, -, -, PK_b, PK_h, PK_j, PK_d
    s_load_dwordx4 s[12:15], s[0:1], ${DESC_PAST_K}     ; the PastKey's buffer descriptor, for now
    s_waitcnt 0
    s_mul_i32 s104, s6, s36
    s_mul_i32 s87, s5, s37
    s_add_u32 s104, s104, s87            ; PastKey[b, h, 0, 0]
    s_mov_b32 s88, 1                     ; the past phase
    s_mov_b32 s34, s32                   ; its keys: j < Lp
    s_mov_b32 s35, s38                   ; along j
    s_mov_b32 s91, s39                   ; along d
    s_mov_b32 s105, 0                    ; its first key
.else
    s_mov_b32 s88, 0                     ; the new keys' phase
    s_mov_b32 s34, s59                   ; j < T
    s_mov_b32 s35, s53                   ; along j
    s_mov_b32 s91, s61                   ; along d
    s_mov_b32 s104, s77                  ; Key[b, 0, h, 0]
    s_mov_b32 s105, 0
.endif
score_phase:
    v_add_u32 v7, v0, s105               ; j = the phase's first key + t
score_next:
    v_cmp_gt_u32 vcc, s34, v7            ; threads with j inside the phase go on
    s_and_b64 exec, exec, vcc
    s_cbranch_execz score_done
    v_sub_u32 v8, v7, s105               ; the row of j in the phase's tensor
    v_mul_lo_u32 v8, v8, s35
    v_add_u32 v8, v8, s104               ; its first element
    v_mov_b32 v13, 0x80000000            ; acc = -0
    v_mov_b32 v9, 0                      ; 4 d: q[d] in LDS
    s_mov_b32 s80, s56                   ; d left
    s_mov_b32 s83, s82                   ; the Key's bias element of d = 0
dot_next:
    s_cmp_eq_u32 s80, 0
    s_cbranch_scc1 dot_done
    ds_read_b32 v14, v9, ${LDS_Q}        ; q[d], the same for every thread
    v_lshl_b32 v22, v8, ${SHIFT}
    buffer_load_${LOAD} v11, v22, s[12:15], 0
    s_waitcnt 0
.if WIDEN_F16
    v_cvt_f32_f16 v11, v11
.endif
.if HAS_BIAS
    s_cmp_lg_u32 s88, 0                  ; the past keys take no Bias
    s_cbranch_scc1 key_biased
    v_mov_b32 v21, s83
    v_lshl_b32 v21, v21, ${SHIFT}
    buffer_load_${LOAD} v12, v21, s[20:23], 0
    s_waitcnt 0
.if WIDEN_F16
    v_cvt_f32_f16 v12, v12
.endif
    v_add_f32 v11, v11, v12              ; k + bias, rounded
    s_add_u32 s83, s83, s68
key_biased:
.endif
    v_fma_f32 v13, v14, v11, v13         ; acc = fma(q[d], k[j, d], acc): d ascending
    v_add_u32 v8, v8, s91
    v_add_u32 v9, v9, 4
    s_sub_u32 s80, s80, 1
    s_branch dot_next
dot_done:
    v_mul_f32 v13, v13, s72              ; Scale * acc, rounded once
.if HAS_RPB
    v_mul_lo_u32 v21, v7, s103           ; + RelativePositionBias[b, h, i, j], rounded
    v_add_u32 v21, v21, s85
    v_lshl_b32 v21, v21, ${SHIFT}
    buffer_load_${LOAD} v12, v21, s[44:47], 0
    s_waitcnt 0
.if WIDEN_F16
    v_cvt_f32_f16 v12, v12
.endif
    v_add_f32 v13, v13, v12
.endif
.if MASK_END_START
    v_cmp_ge_i32 vcc, v7, v20            ; j >= end or j < start: + MaskFilterValue, rounded
    s_mov_b64 s[42:43], vcc
    v_cmp_lt_i32 vcc, v7, v24
    s_or_b64 vcc, vcc, s[42:43]
    v_add_f32 v12, v13, s73
    v_cndmask_b32 v13, v13, v12, vcc
.endif
.if MASK_BOOLEAN
    v_mul_lo_u32 v21, v7, s67            ; Mask[b, h, i, j] = 0: + MaskFilterValue, rounded
    v_add_u32 v21, v21, s86
    v_lshl_b32 v21, v21, 2
    buffer_load_dword v12, v21, s[24:27], 0
    s_waitcnt 0
    v_cmp_eq_u32 vcc, 0, v12
    v_add_f32 v12, v13, s73
    v_cndmask_b32 v13, v13, v12, vcc
.endif
.if HAS_MASK
    v_cmp_ge_i32 vcc, v7, v20            ; j >= Mask[b]: + MaskFilterValue, rounded
    v_add_f32 v12, v13, s73
    v_cndmask_b32 v13, v13, v12, vcc
.endif
    v_lshl_b32 v22, v7, 2
    ds_write_b32 v22, v13, ${LDS_S}
    v_max_f32 v10, v10, v13              ; maxNum (a NaN score is skipped)
    v_add_u32 v7, v7, ${LANES}
    s_branch score_next
score_done:
    s_mov_b64 exec, s[40:41]
.if HAS_PAST
    s_cmp_eq_u32 s88, 0
    s_cbranch_scc1 scores_done
    s_load_dwordx4 s[12:15], s[0:1], ${DESC_K}      ; the new keys: Key again
    s_waitcnt 0
    s_mov_b32 s88, 0
    s_mov_b32 s34, s59                   ; Lp <= j < T
    s_mov_b32 s35, s53
    s_mov_b32 s91, s61
    s_mov_b32 s104, s77
    s_mov_b32 s105, s32                  ; row j - Lp
    s_branch score_phase
scores_done:
.endif

; ---- C. M, then S = the sum of e^(s - M), as softmax.s ------------------------------------------------
.include "reduce_tree.inc"
    ds_write_b32 v5, v10, 0              ; thread 0 puts M at LDS 0 ...
    s_mov_b64 exec, s[40:41]
    s_barrier
    v_mov_b32 v17, 0
    ds_read_b32 v16, v17, 0              ; ... and every thread reads it into v16
    s_waitcnt 0
    s_barrier                            ; before the second tree writes LDS 0 again
    v_mov_b32 v10, 0x80000000            ; from -0, the identity of addition
    v_mov_b32 v7, v0
sum_next:
    v_cmp_gt_u32 vcc, s59, v7
    s_and_b64 exec, exec, vcc
    s_cbranch_execz sum_done
    v_lshl_b32 v22, v7, 2
    ds_read_b32 v11, v22, ${LDS_S}
    s_waitcnt 0
    v_sub_f32 v40, v11, v16              ; s - M, rounded
.include "math_exp.inc"
    v_add_f32 v10, v10, v41              ; + e^(s - M), rounded
    v_add_u32 v7, v7, ${LANES}
    s_branch sum_next
sum_done:
    s_mov_b64 exec, s[40:41]
.set COMBINE, v_add_f32
.include "reduce_tree.inc"
    ds_write_b32 v5, v10, 0              ; thread 0 puts S at LDS 0 ...
    s_mov_b64 exec, s[40:41]
    s_barrier
    v_mov_b32 v17, 0
    ds_read_b32 v19, v17, 0              ; ... and every thread reads it into v19
    s_waitcnt 0

; ---- D. p[j] = e^(s[j] - M) / S in place ---------------------------------------------------------------
    v_mov_b32 v7, v0
prob_next:
    v_cmp_gt_u32 vcc, s59, v7
    s_and_b64 exec, exec, vcc
    s_cbranch_execz prob_done
    v_lshl_b32 v22, v7, 2
    ds_read_b32 v11, v22, ${LDS_S}
    s_waitcnt 0
    v_sub_f32 v40, v11, v16              ; e^(s - M) exactly as in C ...
.include "math_exp.inc"
    v_div_f32 v10, v41, v19              ; ... over S: one correctly rounded divide
    ds_write_b32 v22, v10, ${LDS_S}
    v_add_u32 v7, v7, ${LANES}
    s_branch prob_next
prob_done:
    s_mov_b64 exec, s[40:41]
    s_barrier                            ; every p[j] is in LDS

; ---- E. the output columns: the sum of p[j] v[j, e] ----------------------------------------------------
.if HAS_PAST
    s_load_dwordx8 s[32:39], s[2:3], ${CB_ATT_PAST_VALUE} ; Lp, -, -, -, PV_b, PV_h, PV_j, PV_d
    s_waitcnt 0
    s_mul_i32 s104, s6, s36
    s_mul_i32 s87, s5, s37
    s_add_u32 s104, s104, s87            ; PastValue[b, h, 0, 0]
.endif
    v_mov_b32 v7, v0                     ; e = t
out_next:
    v_cmp_gt_u32 vcc, s57, v7            ; threads with e < Dv go on
    s_and_b64 exec, exec, vcc
    s_cbranch_execz out_done
    v_mul_lo_u32 v8, v7, s62
    v_add_u32 v8, v8, s78                ; Value[b, 0, h Dv + e]
.if HAS_BIAS
    v_add_u32 v21, v7, s84               ; Bias[2 hidden + h Dv + e]
    v_mul_lo_u32 v21, v21, s68
    v_lshl_b32 v21, v21, ${SHIFT}
    buffer_load_${LOAD} v23, v21, s[20:23], 0
    s_waitcnt 0
.if WIDEN_F16
    v_cvt_f32_f16 v23, v23
.endif
.endif
    v_mov_b32 v13, 0x80000000            ; acc = -0
    v_mov_b32 v9, 0                      ; 4 j: p[j] in LDS
.if HAS_PAST
    s_load_dwordx4 s[16:19], s[0:1], ${DESC_PAST_V}     ; j < Lp: PastValue[b, h, j, e]
    s_waitcnt 0
    v_mul_lo_u32 v25, v7, s39
    v_add_u32 v25, v25, s104
    s_mov_b32 s80, s32
past_next:
    s_cmp_eq_u32 s80, 0
    s_cbranch_scc1 past_done
    ds_read_b32 v14, v9, ${LDS_S}        ; p[j]
    v_lshl_b32 v22, v25, ${SHIFT}
    buffer_load_${LOAD} v11, v22, s[16:19], 0
    s_waitcnt 0
.if WIDEN_F16
    v_cvt_f32_f16 v11, v11
.endif
    v_fma_f32 v13, v14, v11, v13         ; acc = fma(p[j], v[j, e], acc): j ascending
    v_add_u32 v25, v25, s38
    v_add_u32 v9, v9, 4
    s_sub_u32 s80, s80, 1
    s_branch past_next
past_done:
    s_load_dwordx4 s[16:19], s[0:1], ${DESC_V}      ; then Value[b, j - Lp, h, e]
    s_waitcnt 0
    s_sub_u32 s80, s59, s32              ; the new keys left
.else
    s_mov_b32 s80, s59                   ; j left
.endif
weigh_next:
    s_cmp_eq_u32 s80, 0
    s_cbranch_scc1 weigh_done
    ds_read_b32 v14, v9, ${LDS_S}        ; p[j], the same for every thread
    v_lshl_b32 v22, v8, ${SHIFT}
    buffer_load_${LOAD} v11, v22, s[16:19], 0
    s_waitcnt 0
.if WIDEN_F16
    v_cvt_f32_f16 v11, v11
.endif
.if HAS_BIAS
    v_add_f32 v11, v11, v23              ; v + bias, rounded
.endif
    v_fma_f32 v13, v14, v11, v13         ; acc = fma(p[j], v[j, e], acc): j ascending
    v_add_u32 v8, v8, s54
    v_add_u32 v9, v9, 4
    s_sub_u32 s80, s80, 1
    s_branch weigh_next
weigh_done:
.if NARROW_F16
    v_cvt_f16_f32 v13, v13               ; FLOAT16: rounded once, to nearest even
.endif
    v_mul_lo_u32 v22, v7, s63
    v_add_u32 v22, v22, s79
    v_lshl_b32 v22, v22, ${SHIFT}
    buffer_store_${STORE} v13, v22, s[28:31], 0
    v_add_u32 v7, v7, ${LANES}
    s_branch out_next
out_done:
    s_mov_b64 exec, s[40:41]
    s_endpgm
