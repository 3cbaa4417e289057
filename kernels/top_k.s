; =============================================================================================
; top_k.s: DML_OPERATOR_TOP_K and TOP_K1. One workgroup of L = ${LANES} threads per sequence (an
; output row along Axis), whatever the wave width; K selection passes, each a bounded arg-best over
; the N elements of the sequence (docs/NUMERICS.md, "Top-K"):
;
;   0. the workgroup id g is the sequence; its coordinates over the other (kept) dimensions give
;      the offsets of its first element in the input (v2), the values (v3) and the indices (v4);
;   1. every element k becomes an unsigned order key (top_k_key.inc): FLOAT16 widened exactly,
;      FLOAT32 by its bits with -0 made +0, the sign folded so that unsigned order is numeric
;      order, every NaN the largest key; signed integers with the sign bit flipped; unsigned
;      integers as they are (64-bit types: a key pair);
;   2. pass j (j = 0 .. K - 1): thread t looks at k = t, t + L, ... and keeps the best (key, k)
;      among those that come after the previous pass's pick (prev key, prev index) in the order
;      "better key first, then the smaller index" (pass 0: every element), the better key being
;      the larger (DECREASING: the largest K first) or the smaller (INCREASING);
;   3. a fixed tree through LDS (s = L/2, .., 1, an s_barrier per level) leaves the pick in LDS
;      slot 0; every thread reads it as the new (prev key, prev index);
;   4. thread 0 reloads the picked element's bits from the input and stores them and the index
;      (UINT64: a zero high dword) at position j of the two outputs.
; The order is total ((key, index) pairs are distinct), so the pick of every pass is the same in
; any order of combining: the result does not depend on the adapter or the wave width. The work
; is K passes of N / L elements per thread: bounded for any K <= N.
;
; Constant buffer (kernels/top_k_ops.py packs it):
;   RECORD_COUNT   kept-dimension records, innermost first: size, division magic, the stride of
;                  the input (T0), of the values (T1), of the indices (T2); 0 records: one sequence
;   PARAM0 .. 4    N (the size along Axis), K, the stride along Axis of the input, the values and
;                  the indices (elements)
; =============================================================================================
    s_load_dwordx4 s[8:11], s[0:1], ${DESC_T0}      ; InputTensor
    s_load_dwordx4 s[12:15], s[0:1], ${DESC_T1}     ; OutputValueTensor
    s_load_dwordx4 s[16:19], s[0:1], ${DESC_T2}     ; OutputIndexTensor
    s_load_dwordx8 s[44:51], s[2:3], ${CB_PARAM0}   ; N, K, the three strides along Axis
    s_load_dword s26, s[2:3], ${CB_RECORD_COUNT}    ; kept records
    s_waitcnt 0
    s_mov_b64 s[40:41], exec             ; every thread of the workgroup (restored after each branch)
    s_cmp_gt_u32 s26, ${CB_MAX_RECORDS}  ; a count outside the record array (bytes never initialized)
    s_cbranch_scc1 done                  ; ends the workgroup, as a bounded loop would
    s_cmp_gt_u32 s45, s44                ; K past N, or K = 0 (never from a validated desc): no pass
    s_cbranch_scc1 done
    s_cmp_eq_u32 s45, 0
    s_cbranch_scc1 done

; ---- 0. this sequence's offsets: peel the workgroup id over the kept dimensions ----------------------
    v_mov_b32 v2, 0                      ; input element offset of the sequence's element 0
    v_mov_b32 v3, 0                      ; values' element offset of position 0
    v_mov_b32 v4, 0                      ; indices' element offset of position 0
    v_mov_b32 v6, s4                     ; the part of the sequence index still to decompose
.set KEPT_THIRD, 1
.include "kept_offsets.inc"
    v_lshl_b32 v5, v0, ${KEY_SHIFT}      ; this thread's key in LDS (a dword; 64-bit keys two)
    v_lshl_b32 v15, v0, 2
    v_add_u32 v15, v15, ${LDS_INDEX}     ; this thread's index dword, after the L keys
.if IS_WIDE
    v_mov_b32 v16, ${START_LO}           ; pass 0's "previous pick": every element comes after it
    v_mov_b32 v17, ${START_LO}
.else
    v_mov_b32 v16, ${START_LO}
.endif
    v_mov_b32 v18, 0xFFFFFFFF            ; index -1 (compared signed: every k is larger)
    s_mov_b32 s50, 0                     ; j, the pass

; ---- 2. pass j: each thread's best (key, k) after the previous pick ---------------------------------
next_pass:
.if IS_WIDE
    v_mov_b32 v10, ${WORST_LO}           ; the worst key, no index yet (larger than every index)
    v_mov_b32 v11, ${WORST_LO}
.else
    v_mov_b32 v10, ${WORST_LO}
.endif
    v_mov_b32 v13, 0xFFFFFFFF
    v_mov_b32 v7, v0                     ; k = t
next_element:
    v_cmp_gt_u32 vcc, s44, v7            ; threads with k < N go on
    s_and_b64 exec, exec, vcc
    s_cbranch_execz elements_done
    s_mov_b64 s[56:57], exec
    v_mad_u32 v8, v7, s46, v2            ; the input's element k
    v_lshl_b32 v8, v8, ${SHIFT_IN}
    buffer_load_${LOAD} ${X}, v8, s[8:11], 0
    s_waitcnt 0
.include "top_k_key.inc"
    ${CMP_WORSE} vcc, ${X}, ${PREV}      ; after the previous pick: a worse key ...
    s_mov_b64 s[52:53], vcc
    ${CMP_EQ} vcc, ${X}, ${PREV}         ; ... or the same key at a larger index
    s_mov_b64 s[54:55], vcc
    v_cmp_gt_i32 vcc, v7, v18
    s_and_b64 vcc, vcc, s[54:55]
    s_or_b64 vcc, vcc, s[52:53]
    s_and_b64 exec, exec, vcc
    v_mov_b32 v14, v7
.include "top_k_combine.inc"
    s_mov_b64 exec, s[56:57]
    v_add_u32 v7, v7, ${LANES}
    s_branch next_element
elements_done:
    s_mov_b64 exec, s[40:41]

; ---- 3. the fixed tree through LDS: (t, t + s) for s = L/2, .., 1; the pick ends in slot 0 ------------
    ds_write_${DS} v5, ${ACC}, 0
    ds_write_b32 v15, v13, 0
    s_barrier
    s_mov_b32 s37, ${HALF_LANES}
tree_level:
    v_cmp_gt_u32 vcc, s37, v0            ; threads t < s combine with thread t + s
    s_and_b64 exec, exec, vcc
    s_lshl_b32 s38, s37, ${KEY_SHIFT}
    v_add_u32 v9, v5, s38
    ds_read_${DS} ${X}, v9, 0
    s_lshl_b32 s39, s37, 2
    v_add_u32 v12, v15, s39
    ds_read_b32 v14, v12, 0
    s_waitcnt 0
.include "top_k_combine.inc"
    ds_write_${DS} v5, ${ACC}, 0
    ds_write_b32 v15, v13, 0
    s_mov_b64 exec, s[40:41]             ; no wave leaves: each one meets every s_barrier
    s_barrier
    s_lshr_b32 s37, s37, 1
    s_cmp_lg_u32 s37, 0
    s_cbranch_scc1 tree_level
    v_mov_b32 v9, 0
    ds_read_${DS} ${PREV}, v9, 0         ; every thread: the pick is the next pass's previous one
    ds_read_b32 v18, v9, ${LDS_INDEX}
    s_waitcnt 0
    s_barrier                            ; before the next pass writes slot 0 again

; ---- 4. thread 0: the picked element's bits and its index at position j ------------------------------
    v_cmp_eq_u32 vcc, 0, v0
    s_and_b64 exec, exec, vcc
    v_mad_u32 v8, v18, s46, v2           ; the picked element in the input
    v_lshl_b32 v8, v8, ${SHIFT_IN}
    buffer_load_${LOAD} ${RAW}, v8, s[8:11], 0
    v_mov_b32 v9, s50
    v_mad_u32 v8, v9, s47, v3            ; position j of the values
    v_lshl_b32 v8, v8, ${SHIFT_IN}
    v_mad_u32 v9, v9, s48, v4            ; position j of the indices
    v_lshl_b32 v9, v9, ${SHIFT_INDEX}
    s_waitcnt 0
    buffer_store_${STORE} ${RAW}, v8, s[12:15], 0
.if INDEX_PAIR
    v_mov_b32 v19, 0                     ; UINT64: the high dword
    buffer_store_dwordx2 v[18:19], v9, s[16:19], 0
.else
    buffer_store_dword v18, v9, s[16:19], 0
.endif
    s_mov_b64 exec, s[40:41]
    s_add_u32 s50, s50, 1
    s_cmp_lt_u32 s50, s45
    s_cbranch_scc1 next_pass
done:
    s_endpgm
