; The stepper tests' small LDS kernel (tests/tools/test_step_workgroups.py): 16 threads on waves of 8.
; Each thread writes 3t to LDS dword t; after the barrier it reads its mirror, dword 15 - t (one
; pass), then dword 32 (t mod 8) (8 different dwords of bank 0: 8 passes on 32 banks), adds its
; mirror to dword 16 + t, and stores the mirror to out[t].
.numthreads 16
.lds 1024
.uav u0
    s_load_dwordx4 s[8:11], s[0:1], ${SLOT_U0}
    v_lshl_b32 v4, v0, 2
    v_mul_lo_u32 v5, v0, 3
    ds_write_b32 v4, v5, 0
    s_barrier
    v_sub_u32 v6, 15, v0
    v_lshl_b32 v6, v6, 2
    ds_read_b32 v7, v6, 0
    v_and_b32 v8, v0, 7
    v_lshl_b32 v8, v8, 7
    ds_read_b32 v9, v8, 0
    ds_add_u32 v4, v7, 64
    s_waitcnt 0
    buffer_store_dword v7, v4, s[8:11], 0
    s_endpgm
