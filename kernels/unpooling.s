; =============================================================================================
; unpooling.s: DML_OPERATOR_MAX_UNPOOLING. One workgroup of 64 threads walks the output, then the
; input in chunks of 64 elements, so that the order of writes is the order the rule fixes
; (docs/NUMERICS.md, "Pooling"):
;
;   1. zero fill: thread t writes 0 to output elements t, t + 64, .. (row-major over the output's
;      Sizes, placed at its strides); s_barrier.
;   2. for each chunk of 64 input elements, row-major over the input's Sizes, ascending:
;        thread t takes element e = chunk + t: its index i (UINT64: the high dword must be 0) names
;        output element i when i < the output's element count, else none (-1);
;        each thread's target goes to LDS slot t, and its stamp e + 1 to the hash slot of its target
;        (target mod HASH_SLOTS) with ds_max_u32; s_barrier; a thread whose hash slot holds a later
;        stamp reads that thread's target: the same one, it steps aside (of duplicates the last input
;        element wins); another one (a collision), it raises the flag (slot 64); s_barrier; a raised
;        flag makes every thread decide by a 64-step LDS scan of the chunk's targets instead;
;        s_barrier; the others store x at the target's offset. The next chunk's barriers order its
;        writes after these, so a later chunk overwrites an earlier one. Stamps grow from chunk to
;        chunk, so the hash slots never need clearing (they start at 0).
;
; Launch (kernels/window_ops.py compile_unpooling): one workgroup of 64 threads (any wave width: the
; barriers, not the waves, order the chunks), LDS for 64 targets, the flag and HASH_SLOTS stamps.
; Work: N_out / 64 + N_in / 64 trips; a chunk whose targets collide (targets 1024 apart or more,
; sharing a hash) a 64-step uniform LDS scan more.
;
; Constant buffer (records of kernels/constant_buffer.py, `UNPOOLING_RECORD_USE` in window_ops.py):
;   records 0 .. 3   the output's W, H, C, N: size, division magic, shift1, shift2, its stride
;   records 4 .. 7   the input's W, H, C, N: size, division magic, shift1, shift2, x's stride, the indices'
;   PARAM0           the output's element count     PARAM1   the input's element count
; unpooling_offset.inc turns a flat index into offsets with whichever four records sit in s[24:55].
; DATA_LOAD / DATA_STORE: the element's size class; PAIR: 8-byte elements (v[22:23]); INDEX_PAIR:
; UINT64 indices.
; =============================================================================================
.include "prologue.inc"                  ; v1 = this thread's number (one workgroup of 64)
    s_load_dwordx4 s[8:11], s[0:1], ${DESC_T0}      ; InputTensor
    s_load_dwordx4 s[12:15], s[0:1], ${DESC_T1}     ; IndicesTensor
    s_load_dwordx4 s[16:19], s[0:1], ${DESC_T2}     ; OutputTensor
    s_load_dwordx2 s[20:21], s[2:3], ${CB_PARAM0}   ; N_out, N_in
    s_mov_b64 s[88:89], exec             ; every thread

; ---- 1. zero fill --------------------------------------------------------------------------------------
    s_load_dwordx8 s[24:31], s[2:3], ${CB_UNPOOL_OUT_W}
    s_load_dwordx8 s[32:39], s[2:3], ${CB_UNPOOL_OUT_H}
    s_load_dwordx8 s[40:47], s[2:3], ${CB_UNPOOL_OUT_C}
    s_load_dwordx8 s[48:55], s[2:3], ${CB_UNPOOL_OUT_N}
    s_waitcnt 0
    v_mov_b32 v20, 0                     ; a zero of every type (a pair for 8-byte elements)
    v_mov_b32 v21, 0
    s_mov_b32 s90, 0                     ; the first output element of this trip
fill:
    s_mov_b64 exec, s[88:89]
    v_add_u32 v2, s90, v1
    v_cmp_gt_u32 vcc, s20, v2            ; e < N_out
    s_and_b64 exec, exec, vcc
.set FLAT, v2
.set OFFSET, v10
.set TWO_OFFSETS, 0
.include "unpooling_offset.inc"
    v_lshl_b32 v10, v10, ${SHIFT}
    buffer_store_${STORE} ${ZERO_REG}, v10, s[16:19], 0
    s_add_u32 s90, s90, 64
    s_cmp_gt_u32 s20, s90
    s_cbranch_scc1 fill
    s_mov_b64 exec, s[88:89]
    v_lshl_b32 v32, v1, 2
    v_add_u32 v32, v32, ${HASH_BASE}     ; the hash slots, 64 a trip: 0
    s_mov_b32 s90, 0
clear:
    ds_write_b32 v32, v20, 0
    v_add_u32 v32, v32, 256
    s_add_u32 s90, s90, 64
    s_cmp_lg_u32 s90, ${HASH_SLOTS}
    s_cbranch_scc1 clear
    s_barrier                            ; every zero lands before any value
    v_lshl_b32 v30, v1, 2                ; this thread's LDS slot
    v_mov_b32 v31, 256                   ; the flag's slot

; ---- 2. the input, 64 elements a chunk ---------------------------------------------------------------
    s_mov_b32 s91, 0                     ; the chunk's first input element
chunk:
    s_mov_b64 exec, s[88:89]
    v_mov_b32 v26, -1                    ; the target: none yet
    v_add_u32 v3, s91, v1                ; e = chunk + t
    v_cmp_gt_u32 vcc, s21, v3            ; e < N_in
    s_and_b64 exec, exec, vcc
    s_cbranch_execz publish
    s_load_dwordx8 s[24:31], s[2:3], ${CB_UNPOOL_IN_W}
    s_load_dwordx8 s[32:39], s[2:3], ${CB_UNPOOL_IN_H}
    s_load_dwordx8 s[40:47], s[2:3], ${CB_UNPOOL_IN_C}
    s_load_dwordx8 s[48:55], s[2:3], ${CB_UNPOOL_IN_N}
    s_waitcnt 0
.set FLAT, v3
.set OFFSET, v11
.set OFFSET2, v12
.set TWO_OFFSETS, 1
.include "unpooling_offset.inc"          ; v11: x's offset, v12: the index's
    v_lshl_b32 v11, v11, ${SHIFT}
    buffer_load_${LOAD} ${X_REG}, v11, s[8:11], 0       ; x[e]
    v_lshl_b32 v12, v12, ${INDEX_SHIFT}
    buffer_load_${INDEX_LOAD} ${INDEX_REG}, v12, s[12:15], 0   ; its index
    s_waitcnt 0
    v_cmp_gt_u32 vcc, s20, v24           ; i < N_out
.if INDEX_PAIR
    s_mov_b64 s[92:93], vcc
    v_cmp_eq_u32 vcc, v25, 0             ; and no high dword
    s_and_b64 vcc, vcc, s[92:93]
.endif
    v_cndmask_b32 v26, -1, v24, vcc      ; the target, or none
publish:
    s_mov_b64 exec, s[88:89]
    ds_write_b32 v30, v26, 0             ; LDS[t] = the target
    v_mov_b32 v27, 0                     ; a later thread names the same target (and the flag's zero)
    v_cmp_eq_u32 vcc, v1, 0
    s_and_b64 exec, exec, vcc
    ds_write_b32 v31, v27, 0             ; thread 0: the flag = 0
    s_mov_b64 exec, s[88:89]
    v_add_u32 v33, s91, v1
    v_add_u32 v33, v33, 1                ; this thread's stamp: e + 1 (greater than any earlier chunk's)
    v_and_b32 v32, v26, ${HASH_MASK}
    v_lshl_b32 v32, v32, 2
    v_add_u32 v32, v32, ${HASH_BASE}     ; its target's hash slot
    v_cmp_ne_u32 vcc, v26, -1
    s_and_b64 exec, exec, vcc            ; the threads with a target
    s_mov_b64 s[98:99], exec
    ds_max_u32 v32, v33, 0               ; the slot keeps the chunk's last stamp of its hash
    s_mov_b64 exec, s[88:89]
    s_barrier
    s_mov_b64 exec, s[98:99]
    s_cbranch_execz hashed
    ds_read_b32 v29, v32, 0              ; the last stamp of this hash
    s_waitcnt 0
    v_cmp_ne_u32 vcc, v29, v33           ; a later thread has this hash ..
    s_and_b64 exec, exec, vcc
    s_cbranch_execz hashed
    v_sub_u32 v28, v29, s91
    v_sub_u32 v28, v28, 1
    v_lshl_b32 v28, v28, 2
    ds_read_b32 v28, v28, 0              ; .. its target
    s_waitcnt 0
    v_cmp_eq_u32 vcc, v28, v26           ; the same target: this write is overwritten
    v_cndmask_b32 v27, v27, 1, vcc
    s_andn2_b64 exec, exec, vcc          ; another target of the same hash: the scan decides
    v_mov_b32 v28, 1
    ds_write_b32 v31, v28, 0             ; the flag = 1
hashed:
    s_mov_b64 exec, s[88:89]
    s_barrier
    ds_read_b32 v29, v31, 0              ; the flag (one address: a broadcast)
    s_waitcnt 0
    v_cmp_ne_u32 vcc, v29, 0
    s_cbranch_vccz scanned               ; no two targets of this chunk share a hash
    v_mov_b32 v27, 0                     ; the scan decides for every thread
    s_mov_b32 s94, 0                     ; j
    s_mov_b32 s95, 0                     ; its LDS address
scan:
    v_mov_b32 v28, s95
    ds_read_b32 v29, v28, 0              ; LDS[j] (one address: a broadcast)
    s_waitcnt 0
    v_cmp_eq_u32 vcc, v29, v26
    s_mov_b64 s[96:97], vcc
    v_cmp_gt_u32 vcc, s94, v1            ; j > t
    s_and_b64 vcc, vcc, s[96:97]
    v_cndmask_b32 v27, v27, 1, vcc
    s_add_u32 s94, s94, 1
    s_add_u32 s95, s95, 4
    s_cmp_lg_u32 s94, 64
    s_cbranch_scc1 scan
scanned:
    s_barrier                            ; every read of LDS before the next chunk writes it
    v_cmp_ne_u32 vcc, v26, -1            ; a target
    s_and_b64 exec, exec, vcc
    v_cmp_eq_u32 vcc, v27, 0             ; that no later thread names
    s_and_b64 exec, exec, vcc
    s_cbranch_execz next_chunk
    s_load_dwordx8 s[24:31], s[2:3], ${CB_UNPOOL_OUT_W}
    s_load_dwordx8 s[32:39], s[2:3], ${CB_UNPOOL_OUT_H}
    s_load_dwordx8 s[40:47], s[2:3], ${CB_UNPOOL_OUT_C}
    s_load_dwordx8 s[48:55], s[2:3], ${CB_UNPOOL_OUT_N}
    s_waitcnt 0
.set FLAT, v26
.set OFFSET, v10
.set TWO_OFFSETS, 0
.include "unpooling_offset.inc"
    v_lshl_b32 v10, v10, ${SHIFT}
    buffer_store_${STORE} ${X_REG}, v10, s[16:19], 0     ; out[i] = x
next_chunk:
    s_add_u32 s91, s91, 64
    s_cmp_gt_u32 s21, s91
    s_cbranch_scc1 chunk
done:
    s_endpgm
