; =============================================================================================
; stream_read.s: gpu-stream's read kernel (te42kyfo/gpu-benches gpu-stream/main.cu, read_kernel): every
; thread of the grid reads one 8-byte element, B[tidx], once, and stores it only if it equals a value the
; zeroed buffer never holds; the grid covers the buffer, one thread per element, so each thread has one
; 8-byte load in flight and the stream's bytes in flight are set by how many threads are resident.
; gpu-stream holds that to 2 blocks per SM with a shared-memory "spoiler"; here the register file does it:
; the kernel touches v${VTOP}, so it uses VTOP + 1 VGPRs, which leaves room for the resident waves per SIMD
; the host asked for (bench/microbench/benchmarks.py, stream_vgprs). Assembler symbols: GROUP (threads per
; group, gpu-stream's block size), VTOP. Dispatch(elements / GROUP, 1, 1).
; =============================================================================================
.numthreads ${GROUP}, 1, 1
.srv t0                              ; the buffer (a fresh DEFAULT buffer)
.uav u0                              ; the sink, never written
    s_load_dwordx4 s[12:15], s[0:1], ${SLOT_T0}
    s_load_dwordx4 s[16:19], s[0:1], ${SLOT_U0}
    v_mov_b32 v${VTOP}, 0                ; the register-file "spoiler": VTOP + 1 VGPRs in use
    s_mul_i32 s24, s21, ${GROUP}         ; this group's first element
    v_add_u32 v1, s24, v0                ; tidx
    v_lshl_b32 v2, v1, 3                 ; its byte offset
    s_waitcnt 0
    buffer_load_dwordx2 v[4:5], v2, s[12:15], 0
    s_waitcnt 0
    v_xor_b32 v4, v4, v5
    v_cmp_eq_u32 vcc, 0x5EED5EED, v4     ; never true on the zeroed buffer
    s_and_b64 exec, exec, vcc
    s_cbranch_execz end
    buffer_store_dword v4, v2, s[16:19], 0
end:
    s_endpgm
