; =============================================================================================
; store.s: store-stream bandwidth over a working set of 2^k bytes, whole GPU.
; Each thread group of 256 threads stores one 8 KiB block per trip (4 buffer_store_dwordx2 per
; thread, 2 KiB apart, each wave's lanes on consecutive 8-byte elements: whole lines), then moves on
; by `stride` bytes, wrapping inside the set (offsets AND mask). Nothing is read.
; Root constants: s5 = trips, s6 = stride (bytes), s7 = mask (set size - 1).
; Dispatch(groups, 1, 1): group g starts at block g.
; =============================================================================================
.numthreads 256, 1, 1
.root_constants b0, 3
.uav u0                              ; the working set
    s_load_dwordx4 s[12:15], s[0:1], ${SLOT_U0}
    s_waitcnt 0
    s_mul_i32 s24, s21, 8192             ; this group's first block
    v_lshl_b32 v1, v0, 3                 ; thread * 8 bytes
    v_add_u32 v1, s24, v1                ; the thread's offset, before wrapping
    v_mov_b32 v4, v0                     ; the stored value: the thread's index, then 0
    v_mov_b32 v5, 0
    s_mov_b32 s26, s5                    ; trips left
    s_cmp_eq_u32 s26, 0
    s_cbranch_scc1 done
trip:
    v_and_b32 v2, s7, v1                 ; wrapped into the set
    buffer_store_dwordx2 v[4:5], v2, s[12:15], 0
    buffer_store_dwordx2 v[4:5], v2, s[12:15], 2048
    buffer_store_dwordx2 v[4:5], v2, s[12:15], 4096
    buffer_store_dwordx2 v[4:5], v2, s[12:15], 6144
    v_add_u32 v1, s6, v1                 ; the next block
    s_sub_u32 s26, s26, 1
    s_cmp_lg_u32 s26, 0
    s_cbranch_scc1 trip
done:
    s_endpgm
