; =============================================================================================
; chase.s: pointer-chase latency. One thread follows a cycle of byte offsets through u0: each load's
; address is the value the previous load returned, so the loads cannot overlap; the time per load
; is the latency of the level that holds the working set.
; Root constants: s5 = the offset to start at, s6 = trips (each trip 8 dependent loads).
; The last offset reached goes to u1[0], so the next dispatch continues the cycle where this one stopped.
; Dispatch(1, 1, 1).
; =============================================================================================
.numthreads 1, 1, 1
.root_constants b0, 2
.uav u0                              ; the nodes: each dword at a node's offset holds the next node's offset
.uav u1                              ; where the chase stopped
    s_load_dwordx4 s[8:11], s[0:1], ${SLOT_U0}
    s_load_dwordx4 s[12:15], s[0:1], ${SLOT_U1}
    s_waitcnt 0
    v_mov_b32 v4, s5                     ; the first node
    s_mov_b32 s16, s6                    ; trips left
    s_cmp_eq_u32 s16, 0
    s_cbranch_scc1 done
loop:
    buffer_load_dword v4, v4, s[8:11], 0 ; the next node's offset
    s_waitcnt 0
    buffer_load_dword v4, v4, s[8:11], 0 ; the next node's offset
    s_waitcnt 0
    buffer_load_dword v4, v4, s[8:11], 0 ; the next node's offset
    s_waitcnt 0
    buffer_load_dword v4, v4, s[8:11], 0 ; the next node's offset
    s_waitcnt 0
    buffer_load_dword v4, v4, s[8:11], 0 ; the next node's offset
    s_waitcnt 0
    buffer_load_dword v4, v4, s[8:11], 0 ; the next node's offset
    s_waitcnt 0
    buffer_load_dword v4, v4, s[8:11], 0 ; the next node's offset
    s_waitcnt 0
    buffer_load_dword v4, v4, s[8:11], 0 ; the next node's offset
    s_waitcnt 0
    s_sub_u32 s16, s16, 1
    s_cmp_lg_u32 s16, 0
    s_cbranch_scc1 loop
done:
    v_mov_b32 v5, 0
    buffer_store_dword v4, v5, s[12:15], 0
    s_endpgm
