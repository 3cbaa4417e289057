; =============================================================================================
; softmax.s: DML_OPERATOR_ACTIVATION_SOFTMAX, LOG_SOFTMAX, HARDMAX (and their `1` forms): one
; workgroup of L threads normalizes one row (the elements that share the kept coordinates; k
; numbers them row-major over the normalized axes). ${KIND} picks the operator. The order of every
; operation is docs/NUMERICS.md's "Softmax, log-softmax, hardmax":
;   1. the kept coordinates of workgroup s4 give the row's first input (v2) and output (v3) offsets
;      (kept_offsets.inc, the peel of reduce.s);
;   2. M = maxNum of the row, the threads then the LDS tree of the reduction family
;      (reduce_functions.inc, reduce_tree.inc); every thread reads M from LDS. HARDMAX: the first
;      index of the maximum: each thread's first unit that holds its maximum (hardmax_step.inc: one
;      compare a unit), then ARGMAX's (value, key) tree; with PAIRS (FLOAT32 rows of stride 1, two
;      elements a load: softmax_pairs.inc) thread 0 keeps the result for step 4;
;   3. (SOFTMAX, LOG_SOFTMAX) S = the sum of e^(x - M) (math_exp.inc, element-wise EXP's e^x) in the
;      same threads-then-tree order from -0; every thread reads S (LOG_SOFTMAX: ln S, math_log.inc);
;   4. every element again: SOFTMAX e^(x - M) / S (one correctly rounded divide), LOG_SOFTMAX
;      (x - M) - ln S, HARDMAX 1 at the index and 0 elsewhere (PAIRS: zeros, then after a barrier
;      thread 0 finds the first maximum in its pair and stores the 1); FLOAT16 narrows once at the store.
; The row is read two or three times (HARDMAX: once); the second and third reads of a row that fits
; the caches hit them (the timing model's L2), so DRAM sees it about once.
;
; Constant buffer (kernels/constant_buffer.py; kernels/softmax_ops.py packs it):
;   RECORD_COUNT        kept-dimension records, innermost first (size, division magic, the input's
;                       stride T0, the output's T1)
;   PARAM0              normalized-dimension records after them (innermost first; T0 and T1)
;   PARAM1              N, the elements of a row
; =============================================================================================
    s_load_dwordx4 s[8:11], s[0:1], ${DESC_T0}      ; the input's buffer descriptor
    s_load_dwordx4 s[12:15], s[0:1], ${DESC_T1}     ; the output's
    s_load_dwordx4 s[44:47], s[2:3], ${CB_PARAM0}   ; R, N, (unused), (unused)
    s_load_dword s26, s[2:3], ${CB_RECORD_COUNT}    ; kept records
    s_waitcnt 0
    s_mov_b64 s[40:41], exec             ; every thread of the workgroup (restored after each branch)
    s_sub_u32 s49, s45, 1                ; N - 1 (reduce_index.inc's, unused: AxisDirection INCREASING)
    s_cmp_gt_u32 s26, ${CB_MAX_RECORDS}  ; counts outside the record array (bytes never initialized)
    s_cbranch_scc1 done                  ; end the workgroup, as a bounded loop would
    s_cmp_gt_u32 s44, ${CB_MAX_RECORDS}
    s_cbranch_scc1 done

; ---- 1. this row's offsets: peel the workgroup id over the kept dimensions ------------------------
    v_mov_b32 v2, 0
    v_mov_b32 v3, 0
    v_mov_b32 v6, s4
.set KEPT_THIRD, 0
.include "kept_offsets.inc"              ; every dimension normalized (no record): one row, at offset 0
    s_mov_b32 s48, s36                   ; the normalized records follow the kept ones

; ---- 2. M (HARDMAX: its first index): the threads, then the fixed tree --------------------------------
.if ARG
    v_mov_b32 v10, 0x7FC00000            ; HARDMAX: no best yet (NaN) and no key (hardmax_step.inc)
    v_mov_b32 v13, 0xFFFFFFFF
.else
    v_mov_b32 v10, ${IDENTITY}           ; maxNum's identity NaN
.endif
.set PASS, 1
.if PAIRS
.include "softmax_pairs.inc"
.else
.include "softmax_pass.inc"
.endif
.if ARG
    v_cmp_u_f32 vcc, v10, v10            ; a thread that met NaN alone (or nothing) enters the tree with
    v_cndmask_b32 v10, v10, ${IDENTITY}, vcc   ; ARGMAX's identity: -inf and no index
    v_cndmask_b32 v13, v13, 0xFFFFFFFF, vcc
.endif
.include "reduce_tree.inc"
.if PAIRS
    v_mov_b32 v16, 0                     ; EXEC = thread 0, whose v10, v13 hold M and the key of the unit (a
                                         ; pair) that holds the first M; every element NaN: index 0 (as ARGMAX)
    v_cmp_ne_u32 vcc, 0xFFFFFFFF, v13
    s_and_b64 exec, exec, vcc
    v_add_u32 v8, v13, v2
    v_lshl_b32 v8, v8, 2
    buffer_load_dword v11, v8, s[8:11], 0
    s_waitcnt 0
    v_cmp_eq_f32 vcc, v11, v10           ; the unit's first element, unless that one is not M (-0 == +0:
    v_add_u32 v9, v13, 1                 ; the first of them); thread 0 keeps the index in v16 for step 4
    v_cndmask_b32 v16, v9, v13, vcc
    s_mov_b64 exec, s[40:41]
.else
    ds_write_b32 v5, v10, 0              ; thread 0 puts M at LDS 0 (HARDMAX: the index at LDS 4) ...
.if ARG
    ds_write_b32 v5, v13, 4
.endif
    s_mov_b64 exec, s[40:41]
    s_barrier
    v_mov_b32 v17, 0
.endif
.if ARG
.if PAIRS == 0
    ds_read_b32 v16, v17, 4              ; ... and every thread reads it into v16
    v_cmp_eq_u32 vcc, 0xFFFFFFFF, v16    ; every element NaN: index 0 (as ARGMAX)
    v_cndmask_b32 v16, v16, 0, vcc
.endif
    v_mov_b32 v18, 0                     ; the output's 0 and 1, as raw bits
    v_mov_b32 v19, ${ONE}
.else
    ds_read_b32 v16, v17, 0
    s_barrier                            ; before the second tree writes LDS 0 again

; ---- 3. S = the sum of e^(x - M) in the same order -------------------------------------------------
    v_mov_b32 v10, 0x80000000            ; from -0, the identity of addition
.set PASS, 2
.include "softmax_pass.inc"
.set COMBINE, v_add_f32
.include "reduce_tree.inc"
    ds_write_b32 v5, v10, 0              ; thread 0 puts S at LDS 0 ...
    s_mov_b64 exec, s[40:41]
    s_barrier
    v_mov_b32 v17, 0
    ds_read_b32 v19, v17, 0              ; ... and every thread reads it into v19
.if KIND == "LOG_SOFTMAX"
    v_mov_b32 v50, v19
.include "math_log.inc"
    v_mov_b32 v19, v51                   ; ln S (element-wise LOG's sequence)
.endif
.endif

; ---- 4. every element: the output ----------------------------------------------------------------
.set PASS, 3
.if PAIRS
    v_mov_b32 v22, 0                     ; HARDMAX, pairs: every element 0 ...
    v_mov_b32 v23, 0
.include "softmax_pairs.inc"
    s_waitcnt 0                          ; ... the zeros written, every wave past them ...
    s_barrier
    v_cmp_eq_u32 vcc, 0, v0              ; ... then thread 0 stores the 1 at the first maximum (v16)
    s_and_b64 exec, exec, vcc
    v_add_u32 v17, v16, v3
    v_lshl_b32 v17, v17, 2
    buffer_store_dword v19, v17, s[12:15], 0
.else
.include "softmax_pass.inc"
.endif
done:
    s_endpgm
