; =============================================================================================
; sgemm_regtile.s: C = A x B (N x N FLOAT32), LDS tiles and a 4 x 4 block of C per thread.
;
; Group (bx, by) of 16 x 16 threads computes the 64 x 64 block of C at (by*64, bx*64); thread (tx, ty)
; owns the 4 x 4 block at rows by*64 + ty*4 + i and columns bx*64 + tx*4 + j (i, j = 0 .. 3), 16
; accumulators in v32 .. v47 (acc[i][j] = v(32 + 4i + j)). K goes in tiles of 16:
;   1. the 256 threads copy a 64 x 16 tile of A and a 16 x 64 tile of B into LDS, 4 elements each
;      (coalesced loads); A is stored transposed, AsT[k][m], so that a thread's 4 rows are 4
;      neighbouring dwords;
;   2. s_barrier; for k = 0 .. 15 each thread reads a[0..3] = AsT[k][ty*4 .. ty*4+3] and
;      b[0..3] = Bs[k][tx*4 .. tx*4+3] with two ds_read_b128 and does 16 v_fma_f32: 2 LDS reads per
;      16 multiply-adds, where sgemm_tiled.s needs 2 per 1;
;   3. s_barrier before the next tile overwrites LDS.
; Each accumulator sees k in ascending order, the naive kernel's order, so the bits are the same.
;
; LDS banks: the transposed store AsT[tx][ty + 16j] puts the 16 lanes of a row ty 64 dwords apart,
; all in one bank (16 passes per store; padding the row to 68 dwords, as the transpose does with 33,
; is an exercise: it must keep the 16-byte alignment of the ds_read_b128).
;
; Dispatch(N / 64, N / 64, 1); N a multiple of 64.
; =============================================================================================
.numthreads 16, 16, 1
.lds 8192                            ; AsT[16][64] at 0, Bs[16][64] at 4096
.root_constants b0, 1                ; s5 = N
.srv t0                              ; A
.srv t1                              ; B
.uav u0                              ; C
    s_load_dwordx4 s[8:11], s[0:1], ${SLOT_T0}
    s_load_dwordx4 s[12:15], s[0:1], ${SLOT_T1}
    s_load_dwordx4 s[16:19], s[0:1], ${SLOT_U0}
    s_lshl_b32 s24, s21, 6               ; bx * 64: the block's first column
    s_lshl_b32 s25, s22, 6               ; by * 64: the block's first row
    s_lshl_b32 s29, s5, 6                ; N * 64 bytes: 16 rows
    s_lshl_b32 s30, s5, 4                ; N * 16 bytes: 4 rows
    s_lshl_b32 s31, s5, 2                ; N * 4 bytes: 1 row
; where this thread loads A from: A[by*64 + ty + 16j][t*16 + tx], j = 0 .. 3
    v_add_u32 v4, s25, v2
    v_mad_u32 v6, v4, s5, v1
    v_lshl_b32 v6, v6, 2                 ; &A[by*64 + ty][tx] (tile 0, j = 0)
; where it loads B from: B[t*16 + (v0 >> 6) + 4j][bx*64 + (v0 & 63)]
    v_lshr_b32 v4, v0, 6
    v_and_b32 v5, v0, 63
    v_add_u32 v5, s24, v5
    v_mad_u32 v7, v4, s5, v5
    v_lshl_b32 v7, v7, 2                 ; &B[v0 >> 6][bx*64 + (v0 & 63)] (tile 0, j = 0)
; where it stores them in LDS
    v_lshl_b32 v8, v1, 8
    v_lshl_b32 v9, v2, 2
    v_add_u32 v8, v8, v9                 ; &AsT[tx][ty] = tx*256 + ty*4 (j: + 64 j)
    v_lshl_b32 v9, v0, 2                 ; &Bs[0][0] + 4 v0 - 4096 (j: + 1024 j)
; where it reads them: AsT[k][ty*4] and Bs[k][tx*4]
    v_lshl_b32 v10, v2, 4                ; ty * 16
    v_lshl_b32 v11, v1, 4                ; tx * 16
    v_mov_b32 v32, 0
    v_mov_b32 v33, 0
    v_mov_b32 v34, 0
    v_mov_b32 v35, 0
    v_mov_b32 v36, 0
    v_mov_b32 v37, 0
    v_mov_b32 v38, 0
    v_mov_b32 v39, 0
    v_mov_b32 v40, 0
    v_mov_b32 v41, 0
    v_mov_b32 v42, 0
    v_mov_b32 v43, 0
    v_mov_b32 v44, 0
    v_mov_b32 v45, 0
    v_mov_b32 v46, 0
    v_mov_b32 v47, 0
    s_lshr_b32 s27, s5, 4                ; tiles left: N / 16
    s_waitcnt 0
tile:
    v_add_u32 v12, v6, s29               ; A rows + 16, + 32, + 48
    v_add_u32 v13, v12, s29
    v_add_u32 v14, v13, s29
    v_add_u32 v15, v7, s30               ; B rows + 4, + 8, + 12
    v_add_u32 v16, v15, s30
    v_add_u32 v17, v16, s30
    buffer_load_dword v20, v6, s[8:11], 0
    buffer_load_dword v21, v12, s[8:11], 0
    buffer_load_dword v22, v13, s[8:11], 0
    buffer_load_dword v23, v14, s[8:11], 0
    buffer_load_dword v24, v7, s[12:15], 0
    buffer_load_dword v25, v15, s[12:15], 0
    buffer_load_dword v26, v16, s[12:15], 0
    buffer_load_dword v27, v17, s[12:15], 0
    s_waitcnt 0
    ds_write_b32 v8, v20, 0              ; AsT[tx][ty]
    ds_write_b32 v8, v21, 64             ; AsT[tx][ty + 16]
    ds_write_b32 v8, v22, 128
    ds_write_b32 v8, v23, 192
    ds_write_b32 v9, v24, 4096           ; Bs[v0 >> 6][v0 & 63]
    ds_write_b32 v9, v25, 5120           ; Bs[(v0 >> 6) + 4][v0 & 63]
    ds_write_b32 v9, v26, 6144
    ds_write_b32 v9, v27, 7168
    s_barrier                            ; both tiles complete
    v_mov_b32 v18, v10                   ; &AsT[k][ty*4], k = 0
    v_mov_b32 v19, v11                   ; &Bs[k][tx*4] - 4096, k = 0
    s_mov_b32 s28, 16                    ; k trips left in this tile
k:
    ds_read_b128 v[24:27], v18, 0        ; a[0..3] = A rows ty*4 .. ty*4+3 at k
    ds_read_b128 v[28:31], v19, 4096     ; b[0..3] = B columns tx*4 .. tx*4+3 at k
    s_waitcnt 0
    v_fma_f32 v32, v24, v28, v32        ; acc[0][0] += a[0] * b[0]
    v_fma_f32 v33, v24, v29, v33        ; acc[0][1] += a[0] * b[1]
    v_fma_f32 v34, v24, v30, v34        ; acc[0][2] += a[0] * b[2]
    v_fma_f32 v35, v24, v31, v35        ; acc[0][3] += a[0] * b[3]
    v_fma_f32 v36, v25, v28, v36        ; acc[1][0] += a[1] * b[0]
    v_fma_f32 v37, v25, v29, v37        ; acc[1][1] += a[1] * b[1]
    v_fma_f32 v38, v25, v30, v38        ; acc[1][2] += a[1] * b[2]
    v_fma_f32 v39, v25, v31, v39        ; acc[1][3] += a[1] * b[3]
    v_fma_f32 v40, v26, v28, v40        ; acc[2][0] += a[2] * b[0]
    v_fma_f32 v41, v26, v29, v41        ; acc[2][1] += a[2] * b[1]
    v_fma_f32 v42, v26, v30, v42        ; acc[2][2] += a[2] * b[2]
    v_fma_f32 v43, v26, v31, v43        ; acc[2][3] += a[2] * b[3]
    v_fma_f32 v44, v27, v28, v44        ; acc[3][0] += a[3] * b[0]
    v_fma_f32 v45, v27, v29, v45        ; acc[3][1] += a[3] * b[1]
    v_fma_f32 v46, v27, v30, v46        ; acc[3][2] += a[3] * b[2]
    v_fma_f32 v47, v27, v31, v47        ; acc[3][3] += a[3] * b[3]
    v_add_u32 v18, v18, 256              ; next k: one row of AsT
    v_add_u32 v19, v19, 256              ; one row of Bs
    s_sub_u32 s28, s28, 1
    s_cmp_lg_u32 s28, 0
    s_cbranch_scc1 k
    s_barrier                            ; every wave is done with the tiles
    v_add_u32 v6, v6, 64                 ; A: 16 columns on
    v_add_u32 v7, v7, s29                ; B: 16 rows down
    s_sub_u32 s27, s27, 1
    s_cmp_lg_u32 s27, 0
    s_cbranch_scc1 tile
; C[by*64 + ty*4 + i][bx*64 + tx*4 .. + 3]
    v_lshl_b32 v4, v2, 2
    v_add_u32 v4, s25, v4                ; row = by*64 + ty*4
    v_lshl_b32 v5, v1, 2
    v_add_u32 v5, s24, v5                ; col = bx*64 + tx*4
    v_mad_u32 v19, v4, s5, v5
    v_lshl_b32 v19, v19, 2
    buffer_store_dwordx2 v[32:33], v19, s[16:19], 0   ; C[row + 0][col .. col + 1]
    buffer_store_dwordx2 v[34:35], v19, s[16:19], 8   ; C[row + 0][col + 2 .. col + 3]
    v_add_u32 v19, v19, s31
    buffer_store_dwordx2 v[36:37], v19, s[16:19], 0   ; C[row + 1][col .. col + 1]
    buffer_store_dwordx2 v[38:39], v19, s[16:19], 8   ; C[row + 1][col + 2 .. col + 3]
    v_add_u32 v19, v19, s31
    buffer_store_dwordx2 v[40:41], v19, s[16:19], 0   ; C[row + 2][col .. col + 1]
    buffer_store_dwordx2 v[42:43], v19, s[16:19], 8   ; C[row + 2][col + 2 .. col + 3]
    v_add_u32 v19, v19, s31
    buffer_store_dwordx2 v[44:45], v19, s[16:19], 0   ; C[row + 3][col .. col + 1]
    buffer_store_dwordx2 v[46:47], v19, s[16:19], 8   ; C[row + 3][col + 2 .. col + 3]
    s_endpgm
