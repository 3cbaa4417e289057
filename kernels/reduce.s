; =============================================================================================
; reduce.s: DML_OPERATOR_REDUCE. One workgroup of L threads per output element, L = ${LANES}
; (64 to 1024, from the element count N alone: kernels/reduce_ops.lanes_for), whatever the wave
; width (L = 64 is 2 waves of 32, 1 of 64, 4 of 16 ...): the order of every operation is the one
; docs/NUMERICS.md ("Reductions") fixes, so the result does not depend on the adapter.
;
;   1. the workgroup id g is the output element; its coordinates over the kept dimensions give
;      the input offset of its first element (v2) and its output offset (v3);
;   2. thread t reduces the elements k = t, t + L, t + 2L, ... (k: the index over the reduced
;      dimensions, the last reduced dimension fastest) in ascending order into v10, starting
;      from the function's identity (${IDENTITY}); the step is reduce_functions.inc's block
;      `.if FUNCTION == "<function>"`;
;   3. a fixed binary tree through LDS: v10[t] = v10[t] (op) v10[t + s] for s = L/2, ..., 2, 1,
;      threads t < s only, an s_barrier between levels;
;      ARGMAX / ARGMIN carry (value, index) pairs: the better value wins, the smaller index on a tie;
;   4. thread 0 finishes (AVERAGE: one correctly rounded divide by the count; L2: sqrt; LOG_SUM:
;      log2 then times ln 2), narrows
;      (FLOAT16) and stores.
;
; Above CHUNK = ${CHUNK} elements (the functions of reduce_ops.CHUNKED) the operator is one
; dispatch of this source's STAGE 1 with ONE_DISPATCH, followed in the program by its STAGE 2:
;   STAGE 1: workgroup w = output * G + g (G = PARAM4, its division magic PARAM5 .. PARAM7) runs
;      steps 2 and 3 over chunk g of its output, k = gC + t, gC + t + L, ... below min((g + 1)C, N),
;      and stores the tree's result unfinished (FLOAT32 / INT32 / UINT32) at element w of the
;      temporary resource (descriptor slot 2), then counts it (step 5);
;   STAGE 2: what the output's last chunk's workgroup goes on with once all G are counted: a plain
;      REDUCE of the output's G partials (slot 2, packed (outputs, G)) by L = 256 threads, the tree's
;      operation alone per element (f was applied in stage 1), then step 4 as above.
; A linear reduced dimension (one record) is read four elements a step (k, k + L, k + 2L, k + 3L loaded
; together, then combined in that order: reduce_pass.inc), the same order as one at a time.
;
; Constant buffer (kernels/constant_buffer.py; kernels/reduce_ops.py packs it):
;   RECORD_COUNT        kept-dimension records (0 when every dimension is reduced), innermost first:
;                       size, division magic, stride of the input (T0), stride of the output (T1)
;   PARAM0              reduced-dimension records, right after the kept ones (innermost first; T0 only)
;   PARAM1              N, the elements each output reduces
;   PARAM2              N as FLOAT32 (AVERAGE's divisor)
; =============================================================================================
    s_load_dwordx4 s[8:11], s[0:1], ${DESC_T0}      ; the input's buffer descriptor
    s_load_dwordx4 s[12:15], s[0:1], ${DESC_T1}     ; the output's
    s_load_dwordx4 s[44:47], s[2:3], ${CB_PARAM0}   ; R, N, N as FLOAT32, (unused)
    s_load_dword s26, s[2:3], ${CB_RECORD_COUNT}    ; kept records
    s_waitcnt 0
    s_mov_b64 s[40:41], exec             ; every thread of the workgroup (restored after each branch)
    s_sub_u32 s49, s45, 1                ; N - 1 (AxisDirection DECREASING counts indices from the back)
    s_cmp_gt_u32 s26, ${CB_MAX_RECORDS}  ; counts outside the record array (bytes never initialized)
    s_cbranch_scc1 done                  ; end the workgroup, as a bounded loop would
    s_cmp_gt_u32 s44, ${CB_MAX_RECORDS}
    s_cbranch_scc1 done

; ---- 1. this output's offsets: peel the workgroup id over the kept dimensions ----------------------
    v_mov_b32 v2, 0                      ; input element offset of the output's first element
    v_mov_b32 v3, 0                      ; output element offset
    v_mov_b32 v6, s4                     ; the part of the output index still to decompose
.if STAGE == 1
    s_load_dwordx4 s[56:59], s[2:3], ${CB_PARAM4}   ; G (chunks per output), its division magic
    s_waitcnt 0
    v_mul_hi_u32 v7, v6, s57             ; workgroup w = output * G + chunk g
    v_sub_u32 v8, v6, v7
    v_lshr_b32 v8, v8, s58
    v_add_u32 v7, v7, v8
    v_lshr_b32 v7, v7, s59
    v_mul_lo_u32 v8, v7, s56
    v_sub_u32 v8, v6, v8                 ; g
    v_mov_b32 v6, v7                     ; the output index
.if ONE_DISPATCH
    v_mov_b32 v24, v7                    ; (kept for the count at the end)
    v_mov_b32 v25, v8
.endif
    v_mul_lo_u32 v26, v8, ${CHUNK}       ; the chunk's first k = g C ...
    v_add_u32 v27, v26, ${CHUNK}
    v_min_u32 v27, v27, s45              ; ... and its end, min((g + 1) C, N)
.endif
.set KEPT_THIRD, 0
.include "kept_offsets.inc"              ; every dimension reduced (no record): one output, at offset 0
    s_mov_b32 s48, s36                   ; the reduced records follow the kept ones
.if STAGE == 1
    v_mov_b32 v3, s4                     ; the partial's place in the temporary resource: w
.endif

; ---- 2. each thread: elements t, t + L, ... in ascending order (reduce_pass.inc) ------------------
; ---- 3. the fixed tree through LDS: (t, t + L/2), then (t, t + L/4), ... (reduce_tree.inc) ---------
.set PASS, 1
.if FUNCTION == "LOG_SUM_EXP"
.set IDENTITY, 0x7FC00000                ; LOG_SUM_EXP's first pass: the maximum M (maxNum)
.set COMBINE, v_max_f32
.endif
.include "reduce_pass.inc"
.include "reduce_tree.inc"
.if FUNCTION == "LOG_SUM_EXP"
    ds_write_b32 v5, v10, 0              ; thread 0 puts M at LDS 0 ...
    s_mov_b64 exec, s[40:41]
    s_barrier
    v_mov_b32 v17, 0
    ds_read_b32 v16, v17, 0              ; ... and every thread reads it into v16
    s_barrier                            ; before the second tree writes LDS 0 again
.set PASS, 2
.set IDENTITY, 0x80000000                ; the second pass: the sum of 2^((x - M) log2 e) from -0
.set COMBINE, v_add_f32
.include "reduce_pass.inc"
.include "reduce_tree.inc"
.endif

; ---- 4. thread 0: finish, narrow, store -------------------------------------------------------------
.if FINISH_DIVIDE
    v_div_f32 v10, v10, s46              ; AVERAGE: one correctly rounded divide by N (as FLOAT32)
.endif
.if FINISH_SQRT
    v_sqrt_f32 v10, v10                  ; L2: correctly rounded
.endif
.if FINISH_LOG
    v_log_f32 v10, v10                   ; LOG_SUM: log2 correctly rounded, then times ln 2 (FLOAT32),
    v_mul_f32 v10, v10, ${LN2_F32}       ; rounded again
.endif
.if FINISH_LSE
    v_log_f32 v10, v10                   ; LOG_SUM_EXP: log2(S) * ln 2 + M, each step rounded
    v_mul_f32 v10, v10, ${LN2_F32}
    v_add_f32 v10, v10, v16
    v_sub_f32 v12, v16, v16              ; NaN unless M is finite ...
    v_cmp_u_f32 vcc, v12, v12
    v_cndmask_b32 v10, v10, v16, vcc     ; ... and then the result is M (+-inf, or NaN)
.endif
.if NARROW_F16
    v_cvt_f16_f32 v10, v10               ; FLOAT16: rounded once, to nearest even
.endif
    v_lshl_b32 v3, v3, ${SHIFT_OUT}
.if ARG
.if DECREASING
    v_sub_u32 v12, s49, v13              ; the index counted from the front again
.else
    v_mov_b32 v12, v13
.endif
    v_cmp_eq_u32 vcc, 0xFFFFFFFF, v13    ; every element NaN: index 0
    v_cndmask_b32 v10, v12, 0, vcc
    v_mov_b32 v11, 0                     ; the high dword of a 64-bit index
.endif
.if IS_PAIR
    buffer_store_dwordx2 ${STORE_REG}, v3, s[12:15], 0
.else
    buffer_store_${STORE} v10, v3, s[12:15], 0
.endif
.if ONE_DISPATCH
; ---- 5. ONE_DISPATCH (stage 1 in one dispatch): the last chunk's workgroup reduces the partials --------
; Thread 0 counts its stored partial in its output's counter (a dword of the constant buffer, at
; ${COUNTERS}: zero when the operator is compiled or initialized, and zero again after every
; execution). The workgroup of the output's last chunk, g = G - 1, waits until all G are counted (the
; others were launched before it), sets the counter back to 0 and becomes stage 2's workgroup for its
; output: the program that follows this one (reduce_ops.py appends stage 2's), with its constants
; (${STAGE2_CONSTANTS} bytes on), s4 the output and EXEC its ${COMBINE_LANES} threads. The order of
; every operation is the two dispatches' (docs/NUMERICS.md, "Reductions").
    s_waitcnt 0                          ; the partial is in memory before it is counted
    s_add_u32 s60, s2, ${COUNTERS}       ; the counters' descriptor: base (a carry into the high dword) ...
    s_mov_b32 s61, s3
    s_cbranch_scc0 counters_based
    s_add_u32 s61, s61, 1
counters_based:
    s_mov_b32 s62, ${COUNTER_BYTES}      ; ... size, valid and writable
    s_mov_b32 s63, 1
    v_lshl_b32 v20, v24, 2               ; this output's counter
    v_mov_b32 v21, 1
    buffer_atomic_add v21, v20, s[60:63], 0
    s_mov_b64 exec, s[40:41]
    v_readfirstlane_b32 s64, v25         ; g
    s_sub_u32 s65, s56, 1
    s_cmp_eq_u32 s64, s65
    s_cbranch_scc1 last_chunk
.endif
done:
    s_endpgm
.if ONE_DISPATCH
last_chunk:
    v_mov_b32 v23, 0
count_wait:
    v_cmp_eq_u32 vcc, 0, v0              ; thread 0 reads the count and puts it at LDS 0 ...
    s_and_b64 exec, exec, vcc
    buffer_load_dword v22, v20, s[60:63], 0
    s_waitcnt 0
    ds_write_b32 v23, v22, 0
    s_mov_b64 exec, s[40:41]
    s_barrier
    ds_read_b32 v22, v23, 0              ; ... every thread reads it
    s_waitcnt 0
    s_barrier                            ; before LDS 0 is written again
    v_readfirstlane_b32 s64, v22
    s_cmp_lg_u32 s64, s56                ; fewer than G partials counted: read again
    s_cbranch_scc1 count_wait
    v_cmp_eq_u32 vcc, 0, v0              ; thread 0 sets the counter back to 0 for the next execution
    s_and_b64 exec, exec, vcc
    buffer_store_dword v23, v20, s[60:63], 0
    v_readfirstlane_b32 s4, v24          ; stage 2's launch: the output as its workgroup id, ...
    s_add_u32 s2, s2, ${STAGE2_CONSTANTS}   ; ... its constants ...
    s_cbranch_scc0 stage2_based
    s_add_u32 s3, s3, 1
stage2_based:
    s_mov_b64 exec, s[40:41]             ; ... and its threads
    v_cmp_gt_u32 vcc, ${COMBINE_LANES}, v0
    s_and_b64 exec, exec, vcc
    s_waitcnt 0
.endif
