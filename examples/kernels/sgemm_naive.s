; =============================================================================================
; sgemm_naive.s: C = A x B for N x N FLOAT32 matrices (row-major), one thread per element of C.
;
; Thread (tx, ty) of group (bx, by) computes C[row][col], row = by*16 + ty, col = bx*16 + tx:
;     acc = 0.0;  for k = 0 .. N-1:  acc = fma(A[row][k], B[k][col], acc)
; with v_fma_f32 (the product and the sum rounded once) in ascending k, the order the two other
; SGEMM kernels keep too, so all three give the same bits as examples/sgemm.py's reference. Every
; multiply-add loads both operands from global memory: 2 N loads per element of C, and the 16
; threads of a row of the group load the same A[row][k] again and again.
;
; Launch ABI (docs/KERNEL_ABI.md): s21, s22 = bx, by; v1, v2 = tx, ty. Dispatch(N / 16, N / 16, 1).
; =============================================================================================
.numthreads 16, 16, 1
.root_constants b0, 1                ; s5 = N
.srv t0                              ; A (N x N FLOAT32)
.srv t1                              ; B (N x N FLOAT32)
.uav u0                              ; C (N x N FLOAT32)
    s_load_dwordx4 s[8:11], s[0:1], ${SLOT_T0}
    s_load_dwordx4 s[12:15], s[0:1], ${SLOT_T1}
    s_load_dwordx4 s[16:19], s[0:1], ${SLOT_U0}
    s_lshl_b32 s24, s21, 4               ; bx * 16
    s_lshl_b32 s25, s22, 4               ; by * 16
    v_add_u32 v4, s25, v2                ; row
    v_add_u32 v5, s24, v1                ; col
    v_mul_lo_u32 v6, v4, s5
    v_lshl_b32 v6, v6, 2                 ; &A[row][0] (bytes)
    v_lshl_b32 v7, v5, 2                 ; &B[0][col]
    s_lshl_b32 s26, s5, 2                ; N * 4: from B[k][col] to B[k+1][col]
    v_mov_b32 v8, 0                      ; acc = 0.0
    s_mov_b32 s27, s5                    ; k trips left
    s_waitcnt 0
kloop:
    buffer_load_dword v9, v6, s[8:11], 0     ; A[row][k]
    buffer_load_dword v10, v7, s[12:15], 0   ; B[k][col]
    s_waitcnt 0
    v_fma_f32 v8, v9, v10, v8            ; acc = A[row][k] * B[k][col] + acc, rounded once
    v_add_u32 v6, v6, 4
    v_add_u32 v7, v7, s26
    s_sub_u32 s27, s27, 1
    s_cmp_lg_u32 s27, 0
    s_cbranch_scc1 kloop
    v_mad_u32 v11, v4, s5, v5            ; row * N + col
    v_lshl_b32 v11, v11, 2
    buffer_store_dword v8, v11, s[16:19], 0
    s_endpgm
