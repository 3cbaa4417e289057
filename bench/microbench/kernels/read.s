; =============================================================================================
; read.s: read bandwidth over a working set of 2^k bytes, whole GPU.
; Each thread group of GROUP threads (an assembler symbol) reads one block of GROUP x 32 bytes per trip
; (4 buffer_load_dwordx2 per thread, GROUP x 8 bytes apart, each wave's lanes on consecutive 8-byte
; elements: every load whole lines),
; then moves on by `stride` bytes, wrapping inside the set (offsets AND mask), so any number of
; groups and trips reads the same set over and over. The loaded values are XORed together and
; stored only if they equal a value the zeroed set never gives, so nothing is written, yet no load
; is dead. Root constants: s5 = trips, s6 = stride (bytes), s7 = mask (set size - 1).
; Dispatch(groups, 1, 1): group g starts at block g. The set is at least one block.
; =============================================================================================
.numthreads ${GROUP}, 1, 1
.root_constants b0, 3
.srv t0                              ; the working set (a DEFAULT buffer, or an UPLOAD one)
.uav u0                              ; the sink, never written
    s_load_dwordx4 s[12:15], s[0:1], ${SLOT_T0}
    s_load_dwordx4 s[16:19], s[0:1], ${SLOT_U0}
    s_waitcnt 0
    s_mul_i32 s24, s21, ${BLOCK}            ; this group's first block
    v_lshl_b32 v1, v0, 3                 ; thread * 8 bytes
    v_add_u32 v1, s24, v1                ; the thread's offset, before wrapping
    v_mov_b32 v20, 0                     ; XOR of everything read
    v_mov_b32 v21, 0
    s_mov_b32 s26, s5                    ; trips left
    s_cmp_eq_u32 s26, 0
    s_cbranch_scc1 done
trip:
    v_and_b32 v2, s7, v1                 ; wrapped into the set
    buffer_load_dwordx2 v[4:5], v2, s[12:15], 0
    buffer_load_dwordx2 v[6:7], v2, s[12:15], ${GROUP8}
    buffer_load_dwordx2 v[8:9], v2, s[12:15], ${GROUP16}
    buffer_load_dwordx2 v[10:11], v2, s[12:15], ${GROUP24}
    v_add_u32 v1, s6, v1                 ; the next block
    s_waitcnt 0
    v_xor_b32 v20, v20, v4
    v_xor_b32 v21, v21, v5
    v_xor_b32 v20, v20, v6
    v_xor_b32 v21, v21, v7
    v_xor_b32 v20, v20, v8
    v_xor_b32 v21, v21, v9
    v_xor_b32 v20, v20, v10
    v_xor_b32 v21, v21, v11
    s_sub_u32 s26, s26, 1
    s_cmp_lg_u32 s26, 0
    s_cbranch_scc1 trip
done:
    v_xor_b32 v20, v20, v21
    v_cmp_eq_u32 vcc, 0x5EED5EED, v20    ; never true on the zeroed set
    s_and_b64 exec, exec, vcc
    s_cbranch_execz end
    v_lshl_b32 v3, v0, 2
    buffer_store_dword v20, v3, s[16:19], 0
end:
    s_endpgm
