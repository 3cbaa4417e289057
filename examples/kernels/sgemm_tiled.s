; =============================================================================================
; sgemm_tiled.s: C = A x B (N x N FLOAT32) with 16 x 16 tiles of A and B in LDS.
;
; Group (bx, by) computes the 16 x 16 block of C at (by*16, bx*16), one element per thread, as
; sgemm_naive.s does, but K goes in tiles of 16: for tile t the group's 256 threads copy
;     As[ty][tx] = A[by*16 + ty][t*16 + tx]     Bs[ty][tx] = B[t*16 + ty][bx*16 + tx]
; into LDS (each thread one element of each, coalesced), s_barrier, and then every thread runs 16
; fused multiply-adds from LDS: acc = fma(As[ty][k], Bs[k][tx], acc), k = 0 .. 15, and s_barrier
; again before the next tile overwrites the tiles. Each global element is loaded once per group
; instead of 16 times. The order of the fmas is the naive kernel's: ascending k.
;
; LDS banks: a wave of 32 lanes is two rows ty of 16 threads. As[ty][k] is one dword per row (16
; lanes read the same dword: a broadcast) and Bs[k][tx] 16 neighbouring dwords: one pass each.
;
; Dispatch(N / 16, N / 16, 1); N a multiple of 16.
; =============================================================================================
.numthreads 16, 16, 1
.lds 2048                            ; As: bytes 0 .. 1023, Bs: bytes 1024 .. 2047 (16 x 16 FLOAT32 each)
.root_constants b0, 1                ; s5 = N
.srv t0                              ; A
.srv t1                              ; B
.uav u0                              ; C
    s_load_dwordx4 s[8:11], s[0:1], ${SLOT_T0}
    s_load_dwordx4 s[12:15], s[0:1], ${SLOT_T1}
    s_load_dwordx4 s[16:19], s[0:1], ${SLOT_U0}
    s_lshl_b32 s24, s21, 4               ; bx * 16
    s_lshl_b32 s25, s22, 4               ; by * 16
    v_add_u32 v4, s25, v2                ; row
    v_add_u32 v5, s24, v1                ; col
    v_mad_u32 v6, v4, s5, v1             ; row * N + tx
    v_lshl_b32 v6, v6, 2                 ; &A[row][t*16 + tx] for t = 0
    v_mad_u32 v7, v2, s5, v5             ; ty * N + col
    v_lshl_b32 v7, v7, 2                 ; &B[t*16 + ty][col] for t = 0
    s_lshl_b32 s26, s5, 6                ; N * 64: 16 rows of B, the next tile
    v_lshl_b32 v12, v0, 2                ; ty*64 + tx*4: As[ty][tx] and (+1024) Bs[ty][tx]
    v_lshl_b32 v13, v2, 6                ; ty * 64: As[ty][0]
    v_lshl_b32 v14, v1, 2                ; tx * 4: Bs[0][tx] - 1024
    v_mov_b32 v8, 0                      ; acc = 0.0
    s_lshr_b32 s27, s5, 4                ; tiles left: N / 16
    s_waitcnt 0
tile:
    buffer_load_dword v9, v6, s[8:11], 0     ; A[row][t*16 + tx]
    buffer_load_dword v10, v7, s[12:15], 0   ; B[t*16 + ty][col]
    s_waitcnt 0
    ds_write_b32 v12, v9, 0              ; As[ty][tx]
    ds_write_b32 v12, v10, 1024          ; Bs[ty][tx]
    s_barrier                            ; both tiles complete
    v_mov_b32 v15, v13                   ; &As[ty][k], k = 0
    v_mov_b32 v16, v14                   ; &Bs[k][tx] - 1024, k = 0
    s_mov_b32 s28, 16                    ; k trips left in this tile
k:
    ds_read_b32 v17, v15, 0              ; As[ty][k] (a broadcast to the row's 16 lanes)
    ds_read_b32 v18, v16, 1024           ; Bs[k][tx]
    s_waitcnt 0
    v_fma_f32 v8, v17, v18, v8           ; acc = As[ty][k] * Bs[k][tx] + acc
    v_add_u32 v15, v15, 4                ; next k: one dword along a row of As
    v_add_u32 v16, v16, 64               ; one row down Bs
    s_sub_u32 s28, s28, 1
    s_cmp_lg_u32 s28, 0
    s_cbranch_scc1 k
    s_barrier                            ; every wave is done with the tiles before they are overwritten
    v_add_u32 v6, v6, 64                 ; A: 16 columns on
    v_add_u32 v7, v7, s26                ; B: 16 rows down
    s_sub_u32 s27, s27, 1
    s_cmp_lg_u32 s27, 0
    s_cbranch_scc1 tile
    v_mad_u32 v11, v4, s5, v5            ; row * N + col
    v_lshl_b32 v11, v11, 2
    buffer_store_dword v8, v11, s[16:19], 0
    s_endpgm
