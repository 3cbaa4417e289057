; =============================================================================================
; stream_store.s: gpu-stream's init kernel (te42kyfo/gpu-benches gpu-stream/main.cu, init_kernel): every
; thread of the grid stores one 8-byte element, A[tidx] = 0.23, and nothing waits for it: a group's waves
; end as soon as their store is issued, so the rate of this kernel at small groups is the rate at which
; groups start and end (bench/microbench/benchmarks.py, occupancy_store_gbs; emulator/presets.py,
; workgroup_slot_cycles). Residency as stream_read.s: the kernel touches v${VTOP}. Assembler symbols:
; GROUP (threads per group, gpu-stream's block size), VTOP. Dispatch(elements / GROUP, 1, 1).
; =============================================================================================
.numthreads ${GROUP}, 1, 1
.uav u0                              ; the buffer (a fresh DEFAULT buffer)
    s_load_dwordx4 s[16:19], s[0:1], ${SLOT_U0}
    v_mov_b32 v${VTOP}, 0                ; the register-file "spoiler": VTOP + 1 VGPRs in use
    s_mul_i32 s24, s21, ${GROUP}         ; this group's first element
    v_add_u32 v1, s24, v0                ; tidx
    v_lshl_b32 v2, v1, 3                 ; its byte offset
    v_mov_b32 v4, 0xD70A3D71             ; 0.23 as a double: low dword
    v_mov_b32 v5, 0x3FCD70A3             ; high dword
    s_waitcnt 0
    buffer_store_dwordx2 v[4:5], v2, s[16:19], 0
    s_endpgm
