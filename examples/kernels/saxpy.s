; =============================================================================================
; saxpy.s: y = a * x + y over n FLOAT32 elements, a compute shader for D3D12 Dispatch.
;
; Assemble with `dmlemu asm examples/kernels/saxpy.s -o saxpy.cso`; the .numthreads and binding
; directives below go into the binary's header (isa/shader_binary.py). Launch ABI
; (docs/KERNEL_ABI.md): s[0:1] binding table, s2..s4 group counts, s5.. root constants,
; s21..s23 SV_GroupID, v0 SV_GroupIndex, v1..v3 SV_GroupThreadID.
; Dispatch(ceil(n / 64), 1, 1) groups.
; =============================================================================================
.numthreads 64, 1, 1
.root_constants b0, 2                ; s5 = n (UINT), s6 = a (FLOAT32 bits)
.srv t0                              ; x: binding table slot 0 (${SLOT_T0})
.uav u0                              ; y: binding table slot 1 (${SLOT_U0})
    s_mul_i32 s24, s21, 64               ; first thread of this group: SV_GroupID.x * 64
    v_add_u32 v4, s24, v0                ; i = SV_DispatchThreadID.x
    v_cmp_gt_u32 vcc, s5, v4             ; lanes with i < n ...
    s_and_b64 exec, exec, vcc            ; ... keep running; the others are switched off
    s_cbranch_execz done                 ; a wave past the end has nothing to do
    s_load_dwordx4 s[8:11], s[0:1], ${SLOT_T0}    ; buffer descriptor of x
    s_load_dwordx4 s[12:15], s[0:1], ${SLOT_U0}   ; buffer descriptor of y
    s_waitcnt 0
    v_lshl_b32 v5, v4, 2                 ; byte offset of element i
    buffer_load_dword v6, v5, s[8:11], 0     ; x[i]
    buffer_load_dword v7, v5, s[12:15], 0    ; y[i]
    s_waitcnt 0
    v_mad_f32 v7, s6, v6, v7             ; a * x[i] + y[i], the product and the sum each rounded
    buffer_store_dword v7, v5, s[12:15], 0
done:
    s_endpgm
