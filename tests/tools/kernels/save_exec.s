; The stepper tests' divergence kernel (tests/tools/test_step_commands.py): 8 threads on one wave of 8.
; Lanes 0 to 2 switch off (v0 < 3); EXEC is saved in s[20:21] before and in s[22:23] inside, and restored
; after, so the stepper prints the saved masks as lane bits and the divergence summary counts the partial
; instructions.
.numthreads 8
.uav u0
    s_load_dwordx4 s[8:11], s[0:1], ${SLOT_U0}
    v_lshl_b32 v4, v0, 2
    s_mov_b64 s[20:21], exec
    v_cmp_gt_u32 vcc, 3, v0
    s_andn2_b64 exec, exec, vcc
    s_mov_b64 s[22:23], exec
    v_add_u32 v5, v0, 100
    s_mov_b64 exec, s[20:21]
    s_waitcnt 0
    buffer_store_dword v5, v4, s[8:11], 0
    s_endpgm
