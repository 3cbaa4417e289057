; =============================================================================================
; nonzero.s: DML_OPERATOR_NONZERO_COORDINATES. One workgroup of ${LANES} threads walks the input in
; chunks of ${LANES} elements, in ascending element index (docs/NUMERICS.md, "Gathers"):
;
;   1. thread t takes element e = chunk + t: its offset (peeling e over the input's dimension
;      records, innermost first, as address.inc does) and flag = (e < count and x != 0; -0 is zero,
;      NaN is not);
;   2. an inclusive scan of the flags through LDS (Hillis-Steele: at level s, add thread t - s's
;      sum; an s_barrier between writes and reads), so a flagged element's row is
;      base + (its scan - 1); the chunk's total is thread ${LANES}-1's scan;
;   3. each flagged thread zeroes its row's N columns, then peels e again and writes each
;      coordinate of the last N dimensions (a record's STRIDE_T1: its column's byte offset);
;   4. base += total; at the end thread 0 stores the count.
; Rows past the count are not written (the page: "undefined").
; PARAM0 = element count, PARAM1 = N (columns), PARAM2 = row stride, PARAM3 = column stride (bytes).
; =============================================================================================
    s_load_dwordx4 s[8:11], s[0:1], ${DESC_T0}    ; InputTensor
    s_load_dwordx4 s[12:15], s[0:1], ${DESC_T1}   ; OutputCountTensor
    s_load_dwordx4 s[16:19], s[0:1], ${DESC_T2}   ; OutputCoordinatesTensor
    s_load_dwordx4 s[44:47], s[2:3], ${CB_PARAM0} ; count, N, row stride, column stride
    s_load_dword s48, s[2:3], ${CB_RECORD_COUNT}  ; the input's records
    s_waitcnt 0
    s_cmp_gt_u32 s48, ${CB_MAX_RECORDS}           ; bytes never initialized: end, as a bounded loop would
    s_cbranch_scc1 done
    s_mov_b64 s[40:41], exec
    v_lshl_b32 v5, v0, 2                 ; this thread's LDS byte address
    v_mov_b32 v20, 0                     ; base: the non-zero elements before this chunk
    s_mov_b32 s42, 0                     ; the chunk's first element
chunk:
    v_add_u32 v1, s42, v0                ; e
    v_mov_b32 v2, 0
    v_mov_b32 v6, v1
    s_mov_b32 s36, ${CB_RECORDS}
    s_mov_b32 s26, s48
    s_cmp_eq_u32 s26, 0
    s_cbranch_scc1 located
locate:
    s_load_dwordx8 s[28:35], s[2:3], s36 ; size, magic, shift1, shift2, input stride, column offset
    s_waitcnt 0
    v_mul_hi_u32 v7, v6, s29             ; q = e / size (Granlund-Montgomery, as address.inc)
    v_sub_u32 v8, v6, v7
    v_lshr_b32 v8, v8, s30
    v_add_u32 v7, v7, v8
    v_lshr_b32 v7, v7, s31
    v_mul_lo_u32 v8, v7, s28
    v_sub_u32 v8, v6, v8                 ; coordinate
    v_mad_u32 v2, v8, s32, v2            ; input offset += coordinate * stride
    v_mov_b32 v6, v7
    s_add_u32 s36, s36, ${CB_RECORD_BYTES}
    s_sub_u32 s26, s26, 1
    s_cmp_lg_u32 s26, 0
    s_cbranch_scc1 locate
located:
    v_lshl_b32 v2, v2, ${SHIFT_IN}
    buffer_load_${LOAD} v10, v2, s[8:11], 0
    s_waitcnt 0
.if WIDEN_F16
    v_cvt_f32_f16 v10, v10
.endif
.if IS_FLOAT
    v_cmp_ne_f32 vcc, v10, 0             ; -0 == 0; NaN != 0
.else
    v_cmp_ne_u32 vcc, v10, 0
.endif
    v_cndmask_b32 v10, 0, 1, vcc
    v_cmp_gt_u32 vcc, s44, v1            ; e < count
    v_cndmask_b32 v10, 0, v10, vcc       ; the flag
    v_mov_b32 v11, v10
    ds_write_b32 v5, v11, 0              ; level 1: every thread's running sum ...
    s_barrier
    v_sub_u32 v12, v5, 4
    ds_read_b32 v13, v12, 0              ; ... plus thread t - 1's (past LDS for t < 1: reads 0)
    s_waitcnt 0
    v_add_u32 v11, v11, v13
    s_barrier
    ds_write_b32 v5, v11, 0              ; level 2: every thread's running sum ...
    s_barrier
    v_sub_u32 v12, v5, 8
    ds_read_b32 v13, v12, 0              ; ... plus thread t - 2's (past LDS for t < 2: reads 0)
    s_waitcnt 0
    v_add_u32 v11, v11, v13
    s_barrier
    ds_write_b32 v5, v11, 0              ; level 4: every thread's running sum ...
    s_barrier
    v_sub_u32 v12, v5, 16
    ds_read_b32 v13, v12, 0              ; ... plus thread t - 4's (past LDS for t < 4: reads 0)
    s_waitcnt 0
    v_add_u32 v11, v11, v13
    s_barrier
    ds_write_b32 v5, v11, 0              ; level 8: every thread's running sum ...
    s_barrier
    v_sub_u32 v12, v5, 32
    ds_read_b32 v13, v12, 0              ; ... plus thread t - 8's (past LDS for t < 8: reads 0)
    s_waitcnt 0
    v_add_u32 v11, v11, v13
    s_barrier
    ds_write_b32 v5, v11, 0              ; level 16: every thread's running sum ...
    s_barrier
    v_sub_u32 v12, v5, 64
    ds_read_b32 v13, v12, 0              ; ... plus thread t - 16's (past LDS for t < 16: reads 0)
    s_waitcnt 0
    v_add_u32 v11, v11, v13
    s_barrier
    ds_write_b32 v5, v11, 0              ; level 32: every thread's running sum ...
    s_barrier
    v_sub_u32 v12, v5, 128
    ds_read_b32 v13, v12, 0              ; ... plus thread t - 32's (past LDS for t < 32: reads 0)
    s_waitcnt 0
    v_add_u32 v11, v11, v13
    s_barrier
    ds_write_b32 v5, v11, 0              ; level 64: every thread's running sum ...
    s_barrier
    v_sub_u32 v12, v5, 256
    ds_read_b32 v13, v12, 0              ; ... plus thread t - 64's (past LDS for t < 64: reads 0)
    s_waitcnt 0
    v_add_u32 v11, v11, v13
    s_barrier
    ds_write_b32 v5, v11, 0              ; level 128: every thread's running sum ...
    s_barrier
    v_sub_u32 v12, v5, 512
    ds_read_b32 v13, v12, 0              ; ... plus thread t - 128's (past LDS for t < 128: reads 0)
    s_waitcnt 0
    v_add_u32 v11, v11, v13
    s_barrier
    ds_write_b32 v5, v11, 0
    s_barrier
    v_mov_b32 v12, 1020
    ds_read_b32 v14, v12, 0              ; the chunk's total: the last thread's scan
    s_waitcnt 0
    s_barrier                            ; before the next chunk writes LDS again
    v_add_u32 v15, v20, v11
    v_sub_u32 v15, v15, v10              ; this element's row
    v_cmp_ne_u32 vcc, v10, 0
    s_and_b64 exec, exec, vcc            ; flagged threads only
    s_cbranch_execz written
    v_mul_lo_u32 v16, v15, s46           ; the row's byte offset
    v_mov_b32 v17, 0
    v_mov_b32 v18, v16
    s_mov_b32 s27, s45
zero:
    buffer_store_dword v17, v18, s[16:19], 0   ; every column 0 first (size-1 dimensions have no record)
    v_add_u32 v18, v18, s47
    s_sub_u32 s27, s27, 1
    s_cmp_lg_u32 s27, 0
    s_cbranch_scc1 zero
    v_mov_b32 v6, v1
    s_mov_b32 s36, ${CB_RECORDS}
    s_mov_b32 s26, s48
    s_cmp_eq_u32 s26, 0
    s_cbranch_scc1 written
coordinate:
    s_load_dwordx8 s[28:35], s[2:3], s36
    s_waitcnt 0
    v_mul_hi_u32 v7, v6, s29
    v_sub_u32 v8, v6, v7
    v_lshr_b32 v8, v8, s30
    v_add_u32 v7, v7, v8
    v_lshr_b32 v7, v7, s31
    v_mul_lo_u32 v8, v7, s28
    v_sub_u32 v8, v6, v8                 ; coordinate
    v_add_u32 v18, v16, s33              ; its column
    buffer_store_dword v8, v18, s[16:19], 0
    v_mov_b32 v6, v7
    s_add_u32 s36, s36, ${CB_RECORD_BYTES}
    s_sub_u32 s26, s26, 1
    s_cmp_lg_u32 s26, 0
    s_cbranch_scc1 coordinate
written:
    s_mov_b64 exec, s[40:41]
    v_add_u32 v20, v20, v14              ; base += the chunk's total
    s_add_u32 s42, s42, ${LANES}
    s_cmp_lt_u32 s42, s44
    s_cbranch_scc1 chunk
    v_cmp_eq_u32 vcc, v0, 0
    s_and_b64 exec, exec, vcc
    v_mov_b32 v12, 0
    buffer_store_dword v20, v12, s[12:15], 0   ; the count (a one-element tensor)
done:
    s_endpgm
