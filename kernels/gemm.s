; =============================================================================================
; gemm.s: DML_OPERATOR_GEMM. Output = Alpha * (A x B) + Beta * C, for every batch of the leading
; dimensions; the order of every operation is docs/NUMERICS.md's "GEMM", whatever the wave width.
;
; Launch (kernels/gemm_ops.py): a grid of workgroups (X, Y, Z) = (ceil(N / 64), ceil(M / 64), batches)
; of 16 x 16 threads; s4, s5, s6 are the group's X, Y, Z, v0 the thread id, v1 = tx, v2 = ty
; (docs/KERNEL_ABI.md). Group (X, Y, Z) computes the 64 x 64 block of batch Z's output at rows
; m0 = 64 Y .., columns n0 = 64 X ..; thread (tx, ty) its 4 x 4 block at rows m0 + 4 ty + i and
; columns n0 + 4 tx + j (i, j = 0 .. 3), 16 accumulators acc[i][j] = v(48 + 4 i + j), as
; examples/kernels/sgemm_regtile.s does, with any strides, transposes and edges:
;
;   1. K goes in tiles of 16: the 256 threads copy a 64 x 16 tile of A and a 16 x 64 tile of B into
;      LDS, 4 elements each (FLOAT16 widened to FLOAT32, exact). A is stored transposed, AsT[k][m],
;      so that a thread's 4 rows are 4 neighbouring dwords. An element outside the matrices
;      (m >= M, n >= N, k >= K) is written as 0 and not loaded;
;   2. s_barrier; for each k of the tile (16, unrolled, the reads of k + 1 in flight during k's
;      fmas; or K mod 16 in the last tile, one at a time: never a k >= K, so no fma(0, b, acc) is
;      added, which would turn a -0 sum into +0) two ds_read_b128 give a[0..3] = AsT[k][4 ty ..]
;      and b[0..3] = Bs[k][4 tx ..], and 16 v_fma_f32 take acc[i][j] = fma(a[i], b[j], acc[i][j]):
;      every accumulator sees k ascending;
;   3. s_barrier before the next tile overwrites LDS;
;   4. acc = Alpha * acc (one rounding); with C, acc = fma(Beta, C[m][n], acc); FLOAT16 rounds once;
;      each of the 16 elements inside the output (m < M, n < N) is stored under its own EXEC mask;
;   5. with a FusedActivation (HAS_ACT), the activation's body runs on each element before step 4's
;      rounding and store, in FLOAT32, as element_wise_tail.inc runs it.
;
; Software pipelining (every variant): the loads of tile t + 1 are issued before tile t's multiply
; (which then reads LDS, 2.), so every s_waitcnt of an unrolled tile counts them; after s_barrier the
; loaded tile goes into LDS; the last tile (1 .. 16 k, nothing loaded behind it) runs one k at a time.
; WIDE (gemm_ops.uses_wide: the float GEMM without a FusedActivation on the VALU, where its grid gives
; every CU a workgroup): 128 x 64 blocks (m0 = 128 Y), two 4 x 4 accumulator blocks per thread (rows
; m0 + 4 ty + i and m0 + 64 + 4 ty + i), its own loop (see its block below); step 4 runs twice.
; WMMA (gemm_ops.uses_matrix_units: FLOAT16 on a wave32 preset with matrix units): gemm_wmma.inc's
; loop instead of steps 1 to 3, workgroups of 16 x 8 threads on 128 x 64 blocks (m0 = 128 Y); step 4
; runs once per wave's 32 x 64 part, each staged through LDS into the 4 x 4 blocks it stores.
; The addresses are element offsets from per-dimension strides: TransA and TransB only swap the
; strides the driver gives for (m, k) and (k, n), so a transposed operand costs nothing here.
; acc starts at -0 (the identity of addition: a sum of -0 products stays -0).
;
; Constant buffer (kernels/constant_buffer.py's RECORDS and PARAM fields; gemm_ops.py packs them):
;   record 0  the inner batch dimension: size, division magic, strides of A, B, C, the output
;   record 1  the outer batch dimension: size, (unused), strides of A, B, C, the output
;   record 2  M: size, -, strides A_m, 0, C_m, out_m     record 3  N: size, -, 0, B_n, C_n, out_n
;   record 4  K: size, -, A_k, B_k, 0, 0                  PARAM0, PARAM1: Alpha, Beta (FLOAT32)
; LDS: AsT[16][64] at 0, Bs[16][64] at 4096 (FLOAT32).
; =============================================================================================
    s_load_dwordx4 s[8:11], s[0:1], ${DESC_T0}      ; A's buffer descriptor
    s_load_dwordx4 s[12:15], s[0:1], ${DESC_T1}     ; B's
.if HAS_C
    s_load_dwordx4 s[16:19], s[0:1], ${DESC_T2}     ; C's
.endif
    s_load_dwordx4 s[20:23], s[0:1], ${DESC_T3}     ; the output's
    s_load_dwordx8 s[24:31], s[2:3], ${CB_GEMM_BATCH_INNER}       ; D1, magic, shift1, shift2, strides A, B, C, out
    s_load_dwordx8 s[32:39], s[2:3], ${CB_GEMM_BATCH_OUTER}       ; D0, -, -, -, strides A, B, C, out
    s_load_dwordx8 s[40:47], s[2:3], ${CB_GEMM_M}       ; M, -, -, -, A_m, 0, C_m, out_m
    s_load_dwordx8 s[48:55], s[2:3], ${CB_GEMM_N}       ; N, -, -, -, 0, B_n, C_n, out_n
    s_load_dwordx8 s[56:63], s[2:3], ${CB_GEMM_K}       ; K, -, -, -, A_k, B_k, 0, 0
    s_load_dwordx2 s[64:65], s[2:3], ${CB_PARAM0}   ; Alpha, Beta
    s_waitcnt 0
    s_mov_b64 s[66:67], exec             ; every thread of the workgroup

; ---- the batch: Z = b0 * D1 + b1 (Granlund-Montgomery, as address.inc), its element offsets --------
    v_mov_b32 v6, s6
    v_mul_hi_u32 v7, v6, s25
    v_sub_u32 v8, v6, v7
    v_lshr_b32 v8, v8, s26
    v_add_u32 v7, v7, v8
    v_lshr_b32 v7, v7, s27               ; b0 = Z / D1
    v_mul_lo_u32 v8, v7, s24
    v_sub_u32 v8, v6, v8                 ; b1 = Z - b0 * D1
    v_mul_lo_u32 v10, v8, s28
    v_mad_u32 v10, v7, s36, v10          ; A's batch offset
    v_mul_lo_u32 v11, v8, s29
    v_mad_u32 v11, v7, s37, v11          ; B's
    v_mul_lo_u32 v12, v8, s30
    v_mad_u32 v12, v7, s38, v12          ; C's
    v_mul_lo_u32 v13, v8, s31
    v_mad_u32 v13, v7, s39, v13          ; the output's

; ---- where this thread loads A and B from, and where it puts them in LDS ---------------------------
.if WIDE or WMMA
    s_lshl_b32 s68, s5, 7                ; m0 = 128 Y
.else
    s_lshl_b32 s68, s5, 6                ; m0 = 64 Y
.endif
    s_lshl_b32 s69, s4, 6                ; n0 = 64 X
    v_add_u32 v14, s68, v2               ; m0 + ty: the row of A it copies (+ 16 j)
    v_mad_u32 v16, v14, s44, v10
    v_mad_u32 v16, v1, s60, v16          ; A[m0 + ty][tx] (tile 0, j = 0)
    v_lshr_b32 v5, v0, 6                 ; kk = v0 / 64: the row of B it copies (+ 4 j)
    v_and_b32 v4, v0, 63
    v_add_u32 v15, s69, v4               ; n0 + v0 % 64: the column of B it copies
    v_mad_u32 v17, v15, s53, v11
    v_mad_u32 v17, v5, s61, v17          ; B[kk][n0 + v0 % 64] (tile 0, j = 0)
    s_lshl_b32 s34, s44, 4               ; 16 A_m: A's next j
    s_lshl_b32 s35, s61, 2               ; 4 B_k: B's next j
    s_lshl_b32 s36, s60, 4               ; 16 A_k: A's next tile
    s_lshl_b32 s37, s61, 4               ; 16 B_k: B's next tile
    v_mov_b32 v6, v14
    v_cmp_gt_u32 vcc, s40, v6
    s_mov_b64 s[24:25], vcc         ; A row m0 + ty + 0 < M
    v_add_u32 v6, v14, 16
    v_cmp_gt_u32 vcc, s40, v6
    s_mov_b64 s[26:27], vcc         ; A row m0 + ty + 16 < M
    v_add_u32 v6, v14, 32
    v_cmp_gt_u32 vcc, s40, v6
    s_mov_b64 s[28:29], vcc         ; A row m0 + ty + 32 < M
    v_add_u32 v6, v14, 48
    v_cmp_gt_u32 vcc, s40, v6
    s_mov_b64 s[30:31], vcc         ; A row m0 + ty + 48 < M
    v_cmp_gt_u32 vcc, s48, v15
    s_mov_b64 s[32:33], vcc              ; B column < N
    v_add_u32 v34, v5, 0                  ; kk + 0
    v_add_u32 v35, v5, 4                  ; kk + 4
    v_add_u32 v36, v5, 8                  ; kk + 8
    v_add_u32 v37, v5, 12                  ; kk + 12
    v_lshl_b32 v32, v1, 8
    v_lshl_b32 v33, v2, 2
    v_add_u32 v32, v32, v33              ; &AsT[tx][ty] = 256 tx + 4 ty (j: + 64 j)
    v_lshl_b32 v33, v0, 2                ; &Bs[kk][v0 % 64] - 4096 = 4 v0 (j: + 1024 j)
    v_lshl_b32 v38, v2, 4                ; 16 ty: &AsT[0][4 ty]
    v_lshl_b32 v39, v1, 4                ; 16 tx: &Bs[0][4 tx] - 4096
    v_mov_b32 v48, ${ACC_ZERO}           ; acc[0][0] = -0 (0: integer)
    v_mov_b32 v49, ${ACC_ZERO}           ; acc[0][1] = -0 (0: integer)
    v_mov_b32 v50, ${ACC_ZERO}           ; acc[0][2] = -0 (0: integer)
    v_mov_b32 v51, ${ACC_ZERO}           ; acc[0][3] = -0 (0: integer)
    v_mov_b32 v52, ${ACC_ZERO}           ; acc[1][0] = -0 (0: integer)
    v_mov_b32 v53, ${ACC_ZERO}           ; acc[1][1] = -0 (0: integer)
    v_mov_b32 v54, ${ACC_ZERO}           ; acc[1][2] = -0 (0: integer)
    v_mov_b32 v55, ${ACC_ZERO}           ; acc[1][3] = -0 (0: integer)
    v_mov_b32 v56, ${ACC_ZERO}           ; acc[2][0] = -0 (0: integer)
    v_mov_b32 v57, ${ACC_ZERO}           ; acc[2][1] = -0 (0: integer)
    v_mov_b32 v58, ${ACC_ZERO}           ; acc[2][2] = -0 (0: integer)
    v_mov_b32 v59, ${ACC_ZERO}           ; acc[2][3] = -0 (0: integer)
    v_mov_b32 v60, ${ACC_ZERO}           ; acc[3][0] = -0 (0: integer)
    v_mov_b32 v61, ${ACC_ZERO}           ; acc[3][1] = -0 (0: integer)
    v_mov_b32 v62, ${ACC_ZERO}           ; acc[3][2] = -0 (0: integer)
    v_mov_b32 v63, ${ACC_ZERO}           ; acc[3][3] = -0 (0: integer)
    s_mov_b32 s38, s56                   ; k left: K
.if WIDE
; ---- WIDE: the second block's accumulators
    v_mov_b32 v72, ${ACC_ZERO}           ; acc1[0][0] = -0
    v_mov_b32 v73, ${ACC_ZERO}           ; acc1[0][1] = -0
    v_mov_b32 v74, ${ACC_ZERO}           ; acc1[0][2] = -0
    v_mov_b32 v75, ${ACC_ZERO}           ; acc1[0][3] = -0
    v_mov_b32 v76, ${ACC_ZERO}           ; acc1[1][0] = -0
    v_mov_b32 v77, ${ACC_ZERO}           ; acc1[1][1] = -0
    v_mov_b32 v78, ${ACC_ZERO}           ; acc1[1][2] = -0
    v_mov_b32 v79, ${ACC_ZERO}           ; acc1[1][3] = -0
    v_mov_b32 v80, ${ACC_ZERO}           ; acc1[2][0] = -0
    v_mov_b32 v81, ${ACC_ZERO}           ; acc1[2][1] = -0
    v_mov_b32 v82, ${ACC_ZERO}           ; acc1[2][2] = -0
    v_mov_b32 v83, ${ACC_ZERO}           ; acc1[2][3] = -0
    v_mov_b32 v84, ${ACC_ZERO}           ; acc1[3][0] = -0
    v_mov_b32 v85, ${ACC_ZERO}           ; acc1[3][1] = -0
    v_mov_b32 v86, ${ACC_ZERO}           ; acc1[3][2] = -0
    v_mov_b32 v87, ${ACC_ZERO}           ; acc1[3][3] = -0
    s_mov_b32 s41, 0                     ; step 4 runs for the first 64 rows, then for the second
.endif
.if WMMA
.include "gemm_wmma.inc"              ; the WMMA variant's loop; it ends at step 4
.endif

.if WIDE
; ---- WIDE (FLOAT32 / FLOAT16 widened, no FusedActivation, no integer): the group's block is 128 x 64 (rows
; m0 = 128 Y ..), thread (tx, ty) computes two 4 x 4 blocks, rows m0 + 4 ty + i (acc v48 ..) and m0 + 64 + 4 ty + i
; (acc1 = v72 ..), columns n0 + 4 tx + j: per k three ds_read_b128 feed 32 fmas, which VOPD pairs (acc[i][j],
; acc[i][j + 1]: one even, one odd destination, the same a, b in neighbouring banks). It copies A's rows
; m0 + 8 ty .. + 7 at k0 + tx, written as two ds_write_b128 into AsT[16][128] at 0, rows 528 bytes apart (4 dwords
; of padding: the 16 tx of a wave spread over the banks), and B as the narrow kernel does into Bs[16][64] at 8448.
; Addresses are in bytes. The next tile's 12 loads are issued before this tile's fmas (software pipelining), so
; every s_waitcnt of the unrolled tile counts them; B's per-k masks only on the last tile. An element outside
; the matrices is not loaded and its LDS slot holds whatever it held: a row past M or a column past N only
; reaches accumulators that are never stored, a k past K is never read.
    v_mul_lo_u32 v6, v2, 7
    v_mad_u32 v16, v6, s44, v16          ; A[m0 + 8 ty][tx] (tile 0, r = 0)
    v_add_u32 v14, v14, v6               ; m0 + 8 ty
    v_add_u32 v6, v14, 0
    v_cmp_gt_u32 vcc, s40, v6
    s_mov_b64 s[24:25], vcc         ; A row m0 + 8 ty + 0 < M
    v_add_u32 v6, v14, 1
    v_cmp_gt_u32 vcc, s40, v6
    s_mov_b64 s[26:27], vcc         ; A row m0 + 8 ty + 1 < M
    v_add_u32 v6, v14, 2
    v_cmp_gt_u32 vcc, s40, v6
    s_mov_b64 s[28:29], vcc         ; A row m0 + 8 ty + 2 < M
    v_add_u32 v6, v14, 3
    v_cmp_gt_u32 vcc, s40, v6
    s_mov_b64 s[30:31], vcc         ; A row m0 + 8 ty + 3 < M
    v_add_u32 v6, v14, 4
    v_cmp_gt_u32 vcc, s40, v6
    s_mov_b64 s[88:89], vcc         ; A row m0 + 8 ty + 4 < M
    v_add_u32 v6, v14, 5
    v_cmp_gt_u32 vcc, s40, v6
    s_mov_b64 s[90:91], vcc         ; A row m0 + 8 ty + 5 < M
    v_add_u32 v6, v14, 6
    v_cmp_gt_u32 vcc, s40, v6
    s_mov_b64 s[92:93], vcc         ; A row m0 + 8 ty + 6 < M
    v_add_u32 v6, v14, 7
    v_cmp_gt_u32 vcc, s40, v6
    s_mov_b64 s[94:95], vcc         ; A row m0 + 8 ty + 7 < M
    v_lshl_b32 v16, v16, ${SHIFT_IN}      ; bytes from here on
    v_lshl_b32 v17, v17, ${SHIFT_IN}
    s_lshl_b32 s34, s44, ${SHIFT_IN}      ; A's next row
    s_lshl_b32 s35, s35, ${SHIFT_IN}      ; B's next 4 k
    s_lshl_b32 s36, s36, ${SHIFT_IN}      ; A's next tile
    s_lshl_b32 s37, s37, ${SHIFT_IN}      ; B's next tile
    v_lshl_b32 v32, v1, 4
    v_lshl_b32 v6, v1, 9
    v_add_u32 v32, v32, v6
    v_lshl_b32 v6, v2, 5
    v_add_u32 v32, v32, v6               ; &AsT[tx][8 ty] = 528 tx + 32 ty
    s_mov_b32 s39, 1                     ; the first tile: nothing in LDS yet
wide_tile:
    v_add_u32 v25, v16, s34
    v_add_u32 v26, v25, s34
    v_add_u32 v27, v26, s34
    v_add_u32 v28, v27, s34
    v_add_u32 v29, v28, s34
    v_add_u32 v30, v29, s34
    v_add_u32 v31, v30, s34
    s_cmp_lt_u32 s38, 16
    s_cbranch_scc1 wide_edge_loads       ; the last tile, short of 16 k: the k masks
    s_mov_b64 exec, s[24:25]
    buffer_load_${LOAD_A} v20, v16, s[8:11], 0      ; A[m0 + 8 ty + 0][k0 + tx]
    s_mov_b64 exec, s[26:27]
    buffer_load_${LOAD_A} v21, v25, s[8:11], 0      ; A[m0 + 8 ty + 1][k0 + tx]
    s_mov_b64 exec, s[28:29]
    buffer_load_${LOAD_A} v22, v26, s[8:11], 0      ; A[m0 + 8 ty + 2][k0 + tx]
    s_mov_b64 exec, s[30:31]
    buffer_load_${LOAD_A} v23, v27, s[8:11], 0      ; A[m0 + 8 ty + 3][k0 + tx]
    s_mov_b64 exec, s[88:89]
    buffer_load_${LOAD_A} v8, v28, s[8:11], 0      ; A[m0 + 8 ty + 4][k0 + tx]
    s_mov_b64 exec, s[90:91]
    buffer_load_${LOAD_A} v9, v29, s[8:11], 0      ; A[m0 + 8 ty + 5][k0 + tx]
    s_mov_b64 exec, s[92:93]
    buffer_load_${LOAD_A} v10, v30, s[8:11], 0      ; A[m0 + 8 ty + 6][k0 + tx]
    s_mov_b64 exec, s[94:95]
    buffer_load_${LOAD_A} v11, v31, s[8:11], 0      ; A[m0 + 8 ty + 7][k0 + tx]
    s_mov_b64 exec, s[66:67]             ; B's addresses in every lane
    v_add_u32 v25, v17, s35
    v_add_u32 v26, v25, s35
    v_add_u32 v27, v26, s35
    s_mov_b64 exec, s[32:33]             ; B column < N
    buffer_load_${LOAD_B} v88, v17, s[12:15], 0     ; B[k0 + kk + 0][n]
    buffer_load_${LOAD_B} v89, v25, s[12:15], 0     ; B[k0 + kk + 4][n]
    buffer_load_${LOAD_B} v90, v26, s[12:15], 0     ; B[k0 + kk + 8][n]
    buffer_load_${LOAD_B} v91, v27, s[12:15], 0     ; B[k0 + kk + 12][n]
    s_branch wide_loaded
wide_edge_loads:
    v_cmp_gt_u32 vcc, s38, v1            ; tx < k left
    s_mov_b64 s[70:71], vcc
    s_and_b64 exec, s[70:71], s[24:25]
    buffer_load_${LOAD_A} v20, v16, s[8:11], 0      ; A[m0 + 8 ty + 0][k0 + tx]
    s_and_b64 exec, s[70:71], s[26:27]
    buffer_load_${LOAD_A} v21, v25, s[8:11], 0      ; A[m0 + 8 ty + 1][k0 + tx]
    s_and_b64 exec, s[70:71], s[28:29]
    buffer_load_${LOAD_A} v22, v26, s[8:11], 0      ; A[m0 + 8 ty + 2][k0 + tx]
    s_and_b64 exec, s[70:71], s[30:31]
    buffer_load_${LOAD_A} v23, v27, s[8:11], 0      ; A[m0 + 8 ty + 3][k0 + tx]
    s_and_b64 exec, s[70:71], s[88:89]
    buffer_load_${LOAD_A} v8, v28, s[8:11], 0      ; A[m0 + 8 ty + 4][k0 + tx]
    s_and_b64 exec, s[70:71], s[90:91]
    buffer_load_${LOAD_A} v9, v29, s[8:11], 0      ; A[m0 + 8 ty + 5][k0 + tx]
    s_and_b64 exec, s[70:71], s[92:93]
    buffer_load_${LOAD_A} v10, v30, s[8:11], 0      ; A[m0 + 8 ty + 6][k0 + tx]
    s_and_b64 exec, s[70:71], s[94:95]
    buffer_load_${LOAD_A} v11, v31, s[8:11], 0      ; A[m0 + 8 ty + 7][k0 + tx]
    s_mov_b64 exec, s[66:67]             ; B's addresses in every lane
    v_add_u32 v25, v17, s35
    v_add_u32 v26, v25, s35
    v_add_u32 v27, v26, s35
    v_cmp_gt_u32 vcc, s38, v34            ; kk + 0 < k left
    s_and_b64 exec, vcc, s[32:33]
    buffer_load_${LOAD_B} v88, v17, s[12:15], 0     ; B[k0 + kk + 0][n]
    v_cmp_gt_u32 vcc, s38, v35            ; kk + 4 < k left
    s_and_b64 exec, vcc, s[32:33]
    buffer_load_${LOAD_B} v89, v25, s[12:15], 0     ; B[k0 + kk + 4][n]
    v_cmp_gt_u32 vcc, s38, v36            ; kk + 8 < k left
    s_and_b64 exec, vcc, s[32:33]
    buffer_load_${LOAD_B} v90, v26, s[12:15], 0     ; B[k0 + kk + 8][n]
    v_cmp_gt_u32 vcc, s38, v37            ; kk + 12 < k left
    s_and_b64 exec, vcc, s[32:33]
    buffer_load_${LOAD_B} v91, v27, s[12:15], 0     ; B[k0 + kk + 12][n]
wide_loaded:
    s_mov_b64 exec, s[66:67]
    s_cmp_eq_u32 s39, 1
    s_cbranch_scc1 wide_store            ; the first tile: nothing to multiply yet
    ds_read_b128 v[40:43], v38, 0      ; a[0..3] = A[m0 + 4 ty .. + 3][k0 + 0]
    ds_read_b128 v[44:47], v38, 256      ; a[4..7] = A[m0 + 64 + 4 ty .. + 3][..]
    ds_read_b128 v[64:67], v39, 8448      ; b[0..3] = B[..][n0 + 4 tx .. + 3]
    ds_read_b128 v[24:27], v38, 528      ; a[0..3] = A[m0 + 4 ty .. + 3][k0 + 1]
    ds_read_b128 v[28:31], v38, 784      ; a[4..7] = A[m0 + 64 + 4 ty .. + 3][..]
    ds_read_b128 v[68:71], v39, 8704      ; b[0..3] = B[..][n0 + 4 tx .. + 3]
    s_waitcnt 15                         ; k0 + 0's three reads have landed (12 loads in flight)
    ${MAC} v48, v40, v64, v48        ; acc[0][0], k0 + 0
    ${MAC} v49, v40, v65, v49        ; acc[0][1], k0 + 0
    ${MAC} v50, v40, v66, v50        ; acc[0][2], k0 + 0
    ${MAC} v51, v40, v67, v51        ; acc[0][3], k0 + 0
    ${MAC} v52, v41, v64, v52        ; acc[1][0], k0 + 0
    ${MAC} v53, v41, v65, v53        ; acc[1][1], k0 + 0
    ${MAC} v54, v41, v66, v54        ; acc[1][2], k0 + 0
    ${MAC} v55, v41, v67, v55        ; acc[1][3], k0 + 0
    ${MAC} v56, v42, v64, v56        ; acc[2][0], k0 + 0
    ${MAC} v57, v42, v65, v57        ; acc[2][1], k0 + 0
    ${MAC} v58, v42, v66, v58        ; acc[2][2], k0 + 0
    ${MAC} v59, v42, v67, v59        ; acc[2][3], k0 + 0
    ${MAC} v60, v43, v64, v60        ; acc[3][0], k0 + 0
    ${MAC} v61, v43, v65, v61        ; acc[3][1], k0 + 0
    ${MAC} v62, v43, v66, v62        ; acc[3][2], k0 + 0
    ${MAC} v63, v43, v67, v63        ; acc[3][3], k0 + 0
    ${MAC} v72, v44, v64, v72        ; acc1[0][0], k0 + 0
    ${MAC} v73, v44, v65, v73        ; acc1[0][1], k0 + 0
    ${MAC} v74, v44, v66, v74        ; acc1[0][2], k0 + 0
    ${MAC} v75, v44, v67, v75        ; acc1[0][3], k0 + 0
    ${MAC} v76, v45, v64, v76        ; acc1[1][0], k0 + 0
    ${MAC} v77, v45, v65, v77        ; acc1[1][1], k0 + 0
    ${MAC} v78, v45, v66, v78        ; acc1[1][2], k0 + 0
    ${MAC} v79, v45, v67, v79        ; acc1[1][3], k0 + 0
    ${MAC} v80, v46, v64, v80        ; acc1[2][0], k0 + 0
    ${MAC} v81, v46, v65, v81        ; acc1[2][1], k0 + 0
    ${MAC} v82, v46, v66, v82        ; acc1[2][2], k0 + 0
    ${MAC} v83, v46, v67, v83        ; acc1[2][3], k0 + 0
    ${MAC} v84, v47, v64, v84        ; acc1[3][0], k0 + 0
    ${MAC} v85, v47, v65, v85        ; acc1[3][1], k0 + 0
    ${MAC} v86, v47, v66, v86        ; acc1[3][2], k0 + 0
    ${MAC} v87, v47, v67, v87        ; acc1[3][3], k0 + 0
    ds_read_b128 v[40:43], v38, 1056      ; a[0..3] = A[m0 + 4 ty .. + 3][k0 + 2]
    ds_read_b128 v[44:47], v38, 1312      ; a[4..7] = A[m0 + 64 + 4 ty .. + 3][..]
    ds_read_b128 v[64:67], v39, 8960      ; b[0..3] = B[..][n0 + 4 tx .. + 3]
    s_waitcnt 15                         ; k0 + 1's three reads have landed (12 loads in flight)
    ${MAC} v48, v24, v68, v48        ; acc[0][0], k0 + 1
    ${MAC} v49, v24, v69, v49        ; acc[0][1], k0 + 1
    ${MAC} v50, v24, v70, v50        ; acc[0][2], k0 + 1
    ${MAC} v51, v24, v71, v51        ; acc[0][3], k0 + 1
    ${MAC} v52, v25, v68, v52        ; acc[1][0], k0 + 1
    ${MAC} v53, v25, v69, v53        ; acc[1][1], k0 + 1
    ${MAC} v54, v25, v70, v54        ; acc[1][2], k0 + 1
    ${MAC} v55, v25, v71, v55        ; acc[1][3], k0 + 1
    ${MAC} v56, v26, v68, v56        ; acc[2][0], k0 + 1
    ${MAC} v57, v26, v69, v57        ; acc[2][1], k0 + 1
    ${MAC} v58, v26, v70, v58        ; acc[2][2], k0 + 1
    ${MAC} v59, v26, v71, v59        ; acc[2][3], k0 + 1
    ${MAC} v60, v27, v68, v60        ; acc[3][0], k0 + 1
    ${MAC} v61, v27, v69, v61        ; acc[3][1], k0 + 1
    ${MAC} v62, v27, v70, v62        ; acc[3][2], k0 + 1
    ${MAC} v63, v27, v71, v63        ; acc[3][3], k0 + 1
    ${MAC} v72, v28, v68, v72        ; acc1[0][0], k0 + 1
    ${MAC} v73, v28, v69, v73        ; acc1[0][1], k0 + 1
    ${MAC} v74, v28, v70, v74        ; acc1[0][2], k0 + 1
    ${MAC} v75, v28, v71, v75        ; acc1[0][3], k0 + 1
    ${MAC} v76, v29, v68, v76        ; acc1[1][0], k0 + 1
    ${MAC} v77, v29, v69, v77        ; acc1[1][1], k0 + 1
    ${MAC} v78, v29, v70, v78        ; acc1[1][2], k0 + 1
    ${MAC} v79, v29, v71, v79        ; acc1[1][3], k0 + 1
    ${MAC} v80, v30, v68, v80        ; acc1[2][0], k0 + 1
    ${MAC} v81, v30, v69, v81        ; acc1[2][1], k0 + 1
    ${MAC} v82, v30, v70, v82        ; acc1[2][2], k0 + 1
    ${MAC} v83, v30, v71, v83        ; acc1[2][3], k0 + 1
    ${MAC} v84, v31, v68, v84        ; acc1[3][0], k0 + 1
    ${MAC} v85, v31, v69, v85        ; acc1[3][1], k0 + 1
    ${MAC} v86, v31, v70, v86        ; acc1[3][2], k0 + 1
    ${MAC} v87, v31, v71, v87        ; acc1[3][3], k0 + 1
    ds_read_b128 v[24:27], v38, 1584      ; a[0..3] = A[m0 + 4 ty .. + 3][k0 + 3]
    ds_read_b128 v[28:31], v38, 1840      ; a[4..7] = A[m0 + 64 + 4 ty .. + 3][..]
    ds_read_b128 v[68:71], v39, 9216      ; b[0..3] = B[..][n0 + 4 tx .. + 3]
    s_waitcnt 15                         ; k0 + 2's three reads have landed (12 loads in flight)
    ${MAC} v48, v40, v64, v48        ; acc[0][0], k0 + 2
    ${MAC} v49, v40, v65, v49        ; acc[0][1], k0 + 2
    ${MAC} v50, v40, v66, v50        ; acc[0][2], k0 + 2
    ${MAC} v51, v40, v67, v51        ; acc[0][3], k0 + 2
    ${MAC} v52, v41, v64, v52        ; acc[1][0], k0 + 2
    ${MAC} v53, v41, v65, v53        ; acc[1][1], k0 + 2
    ${MAC} v54, v41, v66, v54        ; acc[1][2], k0 + 2
    ${MAC} v55, v41, v67, v55        ; acc[1][3], k0 + 2
    ${MAC} v56, v42, v64, v56        ; acc[2][0], k0 + 2
    ${MAC} v57, v42, v65, v57        ; acc[2][1], k0 + 2
    ${MAC} v58, v42, v66, v58        ; acc[2][2], k0 + 2
    ${MAC} v59, v42, v67, v59        ; acc[2][3], k0 + 2
    ${MAC} v60, v43, v64, v60        ; acc[3][0], k0 + 2
    ${MAC} v61, v43, v65, v61        ; acc[3][1], k0 + 2
    ${MAC} v62, v43, v66, v62        ; acc[3][2], k0 + 2
    ${MAC} v63, v43, v67, v63        ; acc[3][3], k0 + 2
    ${MAC} v72, v44, v64, v72        ; acc1[0][0], k0 + 2
    ${MAC} v73, v44, v65, v73        ; acc1[0][1], k0 + 2
    ${MAC} v74, v44, v66, v74        ; acc1[0][2], k0 + 2
    ${MAC} v75, v44, v67, v75        ; acc1[0][3], k0 + 2
    ${MAC} v76, v45, v64, v76        ; acc1[1][0], k0 + 2
    ${MAC} v77, v45, v65, v77        ; acc1[1][1], k0 + 2
    ${MAC} v78, v45, v66, v78        ; acc1[1][2], k0 + 2
    ${MAC} v79, v45, v67, v79        ; acc1[1][3], k0 + 2
    ${MAC} v80, v46, v64, v80        ; acc1[2][0], k0 + 2
    ${MAC} v81, v46, v65, v81        ; acc1[2][1], k0 + 2
    ${MAC} v82, v46, v66, v82        ; acc1[2][2], k0 + 2
    ${MAC} v83, v46, v67, v83        ; acc1[2][3], k0 + 2
    ${MAC} v84, v47, v64, v84        ; acc1[3][0], k0 + 2
    ${MAC} v85, v47, v65, v85        ; acc1[3][1], k0 + 2
    ${MAC} v86, v47, v66, v86        ; acc1[3][2], k0 + 2
    ${MAC} v87, v47, v67, v87        ; acc1[3][3], k0 + 2
    ds_read_b128 v[40:43], v38, 2112      ; a[0..3] = A[m0 + 4 ty .. + 3][k0 + 4]
    ds_read_b128 v[44:47], v38, 2368      ; a[4..7] = A[m0 + 64 + 4 ty .. + 3][..]
    ds_read_b128 v[64:67], v39, 9472      ; b[0..3] = B[..][n0 + 4 tx .. + 3]
    s_waitcnt 15                         ; k0 + 3's three reads have landed (12 loads in flight)
    ${MAC} v48, v24, v68, v48        ; acc[0][0], k0 + 3
    ${MAC} v49, v24, v69, v49        ; acc[0][1], k0 + 3
    ${MAC} v50, v24, v70, v50        ; acc[0][2], k0 + 3
    ${MAC} v51, v24, v71, v51        ; acc[0][3], k0 + 3
    ${MAC} v52, v25, v68, v52        ; acc[1][0], k0 + 3
    ${MAC} v53, v25, v69, v53        ; acc[1][1], k0 + 3
    ${MAC} v54, v25, v70, v54        ; acc[1][2], k0 + 3
    ${MAC} v55, v25, v71, v55        ; acc[1][3], k0 + 3
    ${MAC} v56, v26, v68, v56        ; acc[2][0], k0 + 3
    ${MAC} v57, v26, v69, v57        ; acc[2][1], k0 + 3
    ${MAC} v58, v26, v70, v58        ; acc[2][2], k0 + 3
    ${MAC} v59, v26, v71, v59        ; acc[2][3], k0 + 3
    ${MAC} v60, v27, v68, v60        ; acc[3][0], k0 + 3
    ${MAC} v61, v27, v69, v61        ; acc[3][1], k0 + 3
    ${MAC} v62, v27, v70, v62        ; acc[3][2], k0 + 3
    ${MAC} v63, v27, v71, v63        ; acc[3][3], k0 + 3
    ${MAC} v72, v28, v68, v72        ; acc1[0][0], k0 + 3
    ${MAC} v73, v28, v69, v73        ; acc1[0][1], k0 + 3
    ${MAC} v74, v28, v70, v74        ; acc1[0][2], k0 + 3
    ${MAC} v75, v28, v71, v75        ; acc1[0][3], k0 + 3
    ${MAC} v76, v29, v68, v76        ; acc1[1][0], k0 + 3
    ${MAC} v77, v29, v69, v77        ; acc1[1][1], k0 + 3
    ${MAC} v78, v29, v70, v78        ; acc1[1][2], k0 + 3
    ${MAC} v79, v29, v71, v79        ; acc1[1][3], k0 + 3
    ${MAC} v80, v30, v68, v80        ; acc1[2][0], k0 + 3
    ${MAC} v81, v30, v69, v81        ; acc1[2][1], k0 + 3
    ${MAC} v82, v30, v70, v82        ; acc1[2][2], k0 + 3
    ${MAC} v83, v30, v71, v83        ; acc1[2][3], k0 + 3
    ${MAC} v84, v31, v68, v84        ; acc1[3][0], k0 + 3
    ${MAC} v85, v31, v69, v85        ; acc1[3][1], k0 + 3
    ${MAC} v86, v31, v70, v86        ; acc1[3][2], k0 + 3
    ${MAC} v87, v31, v71, v87        ; acc1[3][3], k0 + 3
    ds_read_b128 v[24:27], v38, 2640      ; a[0..3] = A[m0 + 4 ty .. + 3][k0 + 5]
    ds_read_b128 v[28:31], v38, 2896      ; a[4..7] = A[m0 + 64 + 4 ty .. + 3][..]
    ds_read_b128 v[68:71], v39, 9728      ; b[0..3] = B[..][n0 + 4 tx .. + 3]
    s_waitcnt 15                         ; k0 + 4's three reads have landed (12 loads in flight)
    ${MAC} v48, v40, v64, v48        ; acc[0][0], k0 + 4
    ${MAC} v49, v40, v65, v49        ; acc[0][1], k0 + 4
    ${MAC} v50, v40, v66, v50        ; acc[0][2], k0 + 4
    ${MAC} v51, v40, v67, v51        ; acc[0][3], k0 + 4
    ${MAC} v52, v41, v64, v52        ; acc[1][0], k0 + 4
    ${MAC} v53, v41, v65, v53        ; acc[1][1], k0 + 4
    ${MAC} v54, v41, v66, v54        ; acc[1][2], k0 + 4
    ${MAC} v55, v41, v67, v55        ; acc[1][3], k0 + 4
    ${MAC} v56, v42, v64, v56        ; acc[2][0], k0 + 4
    ${MAC} v57, v42, v65, v57        ; acc[2][1], k0 + 4
    ${MAC} v58, v42, v66, v58        ; acc[2][2], k0 + 4
    ${MAC} v59, v42, v67, v59        ; acc[2][3], k0 + 4
    ${MAC} v60, v43, v64, v60        ; acc[3][0], k0 + 4
    ${MAC} v61, v43, v65, v61        ; acc[3][1], k0 + 4
    ${MAC} v62, v43, v66, v62        ; acc[3][2], k0 + 4
    ${MAC} v63, v43, v67, v63        ; acc[3][3], k0 + 4
    ${MAC} v72, v44, v64, v72        ; acc1[0][0], k0 + 4
    ${MAC} v73, v44, v65, v73        ; acc1[0][1], k0 + 4
    ${MAC} v74, v44, v66, v74        ; acc1[0][2], k0 + 4
    ${MAC} v75, v44, v67, v75        ; acc1[0][3], k0 + 4
    ${MAC} v76, v45, v64, v76        ; acc1[1][0], k0 + 4
    ${MAC} v77, v45, v65, v77        ; acc1[1][1], k0 + 4
    ${MAC} v78, v45, v66, v78        ; acc1[1][2], k0 + 4
    ${MAC} v79, v45, v67, v79        ; acc1[1][3], k0 + 4
    ${MAC} v80, v46, v64, v80        ; acc1[2][0], k0 + 4
    ${MAC} v81, v46, v65, v81        ; acc1[2][1], k0 + 4
    ${MAC} v82, v46, v66, v82        ; acc1[2][2], k0 + 4
    ${MAC} v83, v46, v67, v83        ; acc1[2][3], k0 + 4
    ${MAC} v84, v47, v64, v84        ; acc1[3][0], k0 + 4
    ${MAC} v85, v47, v65, v85        ; acc1[3][1], k0 + 4
    ${MAC} v86, v47, v66, v86        ; acc1[3][2], k0 + 4
    ${MAC} v87, v47, v67, v87        ; acc1[3][3], k0 + 4
    ds_read_b128 v[40:43], v38, 3168      ; a[0..3] = A[m0 + 4 ty .. + 3][k0 + 6]
    ds_read_b128 v[44:47], v38, 3424      ; a[4..7] = A[m0 + 64 + 4 ty .. + 3][..]
    ds_read_b128 v[64:67], v39, 9984      ; b[0..3] = B[..][n0 + 4 tx .. + 3]
    s_waitcnt 15                         ; k0 + 5's three reads have landed (12 loads in flight)
    ${MAC} v48, v24, v68, v48        ; acc[0][0], k0 + 5
    ${MAC} v49, v24, v69, v49        ; acc[0][1], k0 + 5
    ${MAC} v50, v24, v70, v50        ; acc[0][2], k0 + 5
    ${MAC} v51, v24, v71, v51        ; acc[0][3], k0 + 5
    ${MAC} v52, v25, v68, v52        ; acc[1][0], k0 + 5
    ${MAC} v53, v25, v69, v53        ; acc[1][1], k0 + 5
    ${MAC} v54, v25, v70, v54        ; acc[1][2], k0 + 5
    ${MAC} v55, v25, v71, v55        ; acc[1][3], k0 + 5
    ${MAC} v56, v26, v68, v56        ; acc[2][0], k0 + 5
    ${MAC} v57, v26, v69, v57        ; acc[2][1], k0 + 5
    ${MAC} v58, v26, v70, v58        ; acc[2][2], k0 + 5
    ${MAC} v59, v26, v71, v59        ; acc[2][3], k0 + 5
    ${MAC} v60, v27, v68, v60        ; acc[3][0], k0 + 5
    ${MAC} v61, v27, v69, v61        ; acc[3][1], k0 + 5
    ${MAC} v62, v27, v70, v62        ; acc[3][2], k0 + 5
    ${MAC} v63, v27, v71, v63        ; acc[3][3], k0 + 5
    ${MAC} v72, v28, v68, v72        ; acc1[0][0], k0 + 5
    ${MAC} v73, v28, v69, v73        ; acc1[0][1], k0 + 5
    ${MAC} v74, v28, v70, v74        ; acc1[0][2], k0 + 5
    ${MAC} v75, v28, v71, v75        ; acc1[0][3], k0 + 5
    ${MAC} v76, v29, v68, v76        ; acc1[1][0], k0 + 5
    ${MAC} v77, v29, v69, v77        ; acc1[1][1], k0 + 5
    ${MAC} v78, v29, v70, v78        ; acc1[1][2], k0 + 5
    ${MAC} v79, v29, v71, v79        ; acc1[1][3], k0 + 5
    ${MAC} v80, v30, v68, v80        ; acc1[2][0], k0 + 5
    ${MAC} v81, v30, v69, v81        ; acc1[2][1], k0 + 5
    ${MAC} v82, v30, v70, v82        ; acc1[2][2], k0 + 5
    ${MAC} v83, v30, v71, v83        ; acc1[2][3], k0 + 5
    ${MAC} v84, v31, v68, v84        ; acc1[3][0], k0 + 5
    ${MAC} v85, v31, v69, v85        ; acc1[3][1], k0 + 5
    ${MAC} v86, v31, v70, v86        ; acc1[3][2], k0 + 5
    ${MAC} v87, v31, v71, v87        ; acc1[3][3], k0 + 5
    ds_read_b128 v[24:27], v38, 3696      ; a[0..3] = A[m0 + 4 ty .. + 3][k0 + 7]
    ds_read_b128 v[28:31], v38, 3952      ; a[4..7] = A[m0 + 64 + 4 ty .. + 3][..]
    ds_read_b128 v[68:71], v39, 10240      ; b[0..3] = B[..][n0 + 4 tx .. + 3]
    s_waitcnt 15                         ; k0 + 6's three reads have landed (12 loads in flight)
    ${MAC} v48, v40, v64, v48        ; acc[0][0], k0 + 6
    ${MAC} v49, v40, v65, v49        ; acc[0][1], k0 + 6
    ${MAC} v50, v40, v66, v50        ; acc[0][2], k0 + 6
    ${MAC} v51, v40, v67, v51        ; acc[0][3], k0 + 6
    ${MAC} v52, v41, v64, v52        ; acc[1][0], k0 + 6
    ${MAC} v53, v41, v65, v53        ; acc[1][1], k0 + 6
    ${MAC} v54, v41, v66, v54        ; acc[1][2], k0 + 6
    ${MAC} v55, v41, v67, v55        ; acc[1][3], k0 + 6
    ${MAC} v56, v42, v64, v56        ; acc[2][0], k0 + 6
    ${MAC} v57, v42, v65, v57        ; acc[2][1], k0 + 6
    ${MAC} v58, v42, v66, v58        ; acc[2][2], k0 + 6
    ${MAC} v59, v42, v67, v59        ; acc[2][3], k0 + 6
    ${MAC} v60, v43, v64, v60        ; acc[3][0], k0 + 6
    ${MAC} v61, v43, v65, v61        ; acc[3][1], k0 + 6
    ${MAC} v62, v43, v66, v62        ; acc[3][2], k0 + 6
    ${MAC} v63, v43, v67, v63        ; acc[3][3], k0 + 6
    ${MAC} v72, v44, v64, v72        ; acc1[0][0], k0 + 6
    ${MAC} v73, v44, v65, v73        ; acc1[0][1], k0 + 6
    ${MAC} v74, v44, v66, v74        ; acc1[0][2], k0 + 6
    ${MAC} v75, v44, v67, v75        ; acc1[0][3], k0 + 6
    ${MAC} v76, v45, v64, v76        ; acc1[1][0], k0 + 6
    ${MAC} v77, v45, v65, v77        ; acc1[1][1], k0 + 6
    ${MAC} v78, v45, v66, v78        ; acc1[1][2], k0 + 6
    ${MAC} v79, v45, v67, v79        ; acc1[1][3], k0 + 6
    ${MAC} v80, v46, v64, v80        ; acc1[2][0], k0 + 6
    ${MAC} v81, v46, v65, v81        ; acc1[2][1], k0 + 6
    ${MAC} v82, v46, v66, v82        ; acc1[2][2], k0 + 6
    ${MAC} v83, v46, v67, v83        ; acc1[2][3], k0 + 6
    ${MAC} v84, v47, v64, v84        ; acc1[3][0], k0 + 6
    ${MAC} v85, v47, v65, v85        ; acc1[3][1], k0 + 6
    ${MAC} v86, v47, v66, v86        ; acc1[3][2], k0 + 6
    ${MAC} v87, v47, v67, v87        ; acc1[3][3], k0 + 6
    ds_read_b128 v[40:43], v38, 4224      ; a[0..3] = A[m0 + 4 ty .. + 3][k0 + 8]
    ds_read_b128 v[44:47], v38, 4480      ; a[4..7] = A[m0 + 64 + 4 ty .. + 3][..]
    ds_read_b128 v[64:67], v39, 10496      ; b[0..3] = B[..][n0 + 4 tx .. + 3]
    s_waitcnt 15                         ; k0 + 7's three reads have landed (12 loads in flight)
    ${MAC} v48, v24, v68, v48        ; acc[0][0], k0 + 7
    ${MAC} v49, v24, v69, v49        ; acc[0][1], k0 + 7
    ${MAC} v50, v24, v70, v50        ; acc[0][2], k0 + 7
    ${MAC} v51, v24, v71, v51        ; acc[0][3], k0 + 7
    ${MAC} v52, v25, v68, v52        ; acc[1][0], k0 + 7
    ${MAC} v53, v25, v69, v53        ; acc[1][1], k0 + 7
    ${MAC} v54, v25, v70, v54        ; acc[1][2], k0 + 7
    ${MAC} v55, v25, v71, v55        ; acc[1][3], k0 + 7
    ${MAC} v56, v26, v68, v56        ; acc[2][0], k0 + 7
    ${MAC} v57, v26, v69, v57        ; acc[2][1], k0 + 7
    ${MAC} v58, v26, v70, v58        ; acc[2][2], k0 + 7
    ${MAC} v59, v26, v71, v59        ; acc[2][3], k0 + 7
    ${MAC} v60, v27, v68, v60        ; acc[3][0], k0 + 7
    ${MAC} v61, v27, v69, v61        ; acc[3][1], k0 + 7
    ${MAC} v62, v27, v70, v62        ; acc[3][2], k0 + 7
    ${MAC} v63, v27, v71, v63        ; acc[3][3], k0 + 7
    ${MAC} v72, v28, v68, v72        ; acc1[0][0], k0 + 7
    ${MAC} v73, v28, v69, v73        ; acc1[0][1], k0 + 7
    ${MAC} v74, v28, v70, v74        ; acc1[0][2], k0 + 7
    ${MAC} v75, v28, v71, v75        ; acc1[0][3], k0 + 7
    ${MAC} v76, v29, v68, v76        ; acc1[1][0], k0 + 7
    ${MAC} v77, v29, v69, v77        ; acc1[1][1], k0 + 7
    ${MAC} v78, v29, v70, v78        ; acc1[1][2], k0 + 7
    ${MAC} v79, v29, v71, v79        ; acc1[1][3], k0 + 7
    ${MAC} v80, v30, v68, v80        ; acc1[2][0], k0 + 7
    ${MAC} v81, v30, v69, v81        ; acc1[2][1], k0 + 7
    ${MAC} v82, v30, v70, v82        ; acc1[2][2], k0 + 7
    ${MAC} v83, v30, v71, v83        ; acc1[2][3], k0 + 7
    ${MAC} v84, v31, v68, v84        ; acc1[3][0], k0 + 7
    ${MAC} v85, v31, v69, v85        ; acc1[3][1], k0 + 7
    ${MAC} v86, v31, v70, v86        ; acc1[3][2], k0 + 7
    ${MAC} v87, v31, v71, v87        ; acc1[3][3], k0 + 7
    ds_read_b128 v[24:27], v38, 4752      ; a[0..3] = A[m0 + 4 ty .. + 3][k0 + 9]
    ds_read_b128 v[28:31], v38, 5008      ; a[4..7] = A[m0 + 64 + 4 ty .. + 3][..]
    ds_read_b128 v[68:71], v39, 10752      ; b[0..3] = B[..][n0 + 4 tx .. + 3]
    s_waitcnt 15                         ; k0 + 8's three reads have landed (12 loads in flight)
    ${MAC} v48, v40, v64, v48        ; acc[0][0], k0 + 8
    ${MAC} v49, v40, v65, v49        ; acc[0][1], k0 + 8
    ${MAC} v50, v40, v66, v50        ; acc[0][2], k0 + 8
    ${MAC} v51, v40, v67, v51        ; acc[0][3], k0 + 8
    ${MAC} v52, v41, v64, v52        ; acc[1][0], k0 + 8
    ${MAC} v53, v41, v65, v53        ; acc[1][1], k0 + 8
    ${MAC} v54, v41, v66, v54        ; acc[1][2], k0 + 8
    ${MAC} v55, v41, v67, v55        ; acc[1][3], k0 + 8
    ${MAC} v56, v42, v64, v56        ; acc[2][0], k0 + 8
    ${MAC} v57, v42, v65, v57        ; acc[2][1], k0 + 8
    ${MAC} v58, v42, v66, v58        ; acc[2][2], k0 + 8
    ${MAC} v59, v42, v67, v59        ; acc[2][3], k0 + 8
    ${MAC} v60, v43, v64, v60        ; acc[3][0], k0 + 8
    ${MAC} v61, v43, v65, v61        ; acc[3][1], k0 + 8
    ${MAC} v62, v43, v66, v62        ; acc[3][2], k0 + 8
    ${MAC} v63, v43, v67, v63        ; acc[3][3], k0 + 8
    ${MAC} v72, v44, v64, v72        ; acc1[0][0], k0 + 8
    ${MAC} v73, v44, v65, v73        ; acc1[0][1], k0 + 8
    ${MAC} v74, v44, v66, v74        ; acc1[0][2], k0 + 8
    ${MAC} v75, v44, v67, v75        ; acc1[0][3], k0 + 8
    ${MAC} v76, v45, v64, v76        ; acc1[1][0], k0 + 8
    ${MAC} v77, v45, v65, v77        ; acc1[1][1], k0 + 8
    ${MAC} v78, v45, v66, v78        ; acc1[1][2], k0 + 8
    ${MAC} v79, v45, v67, v79        ; acc1[1][3], k0 + 8
    ${MAC} v80, v46, v64, v80        ; acc1[2][0], k0 + 8
    ${MAC} v81, v46, v65, v81        ; acc1[2][1], k0 + 8
    ${MAC} v82, v46, v66, v82        ; acc1[2][2], k0 + 8
    ${MAC} v83, v46, v67, v83        ; acc1[2][3], k0 + 8
    ${MAC} v84, v47, v64, v84        ; acc1[3][0], k0 + 8
    ${MAC} v85, v47, v65, v85        ; acc1[3][1], k0 + 8
    ${MAC} v86, v47, v66, v86        ; acc1[3][2], k0 + 8
    ${MAC} v87, v47, v67, v87        ; acc1[3][3], k0 + 8
    ds_read_b128 v[40:43], v38, 5280      ; a[0..3] = A[m0 + 4 ty .. + 3][k0 + 10]
    ds_read_b128 v[44:47], v38, 5536      ; a[4..7] = A[m0 + 64 + 4 ty .. + 3][..]
    ds_read_b128 v[64:67], v39, 11008      ; b[0..3] = B[..][n0 + 4 tx .. + 3]
    s_waitcnt 15                         ; k0 + 9's three reads have landed (12 loads in flight)
    ${MAC} v48, v24, v68, v48        ; acc[0][0], k0 + 9
    ${MAC} v49, v24, v69, v49        ; acc[0][1], k0 + 9
    ${MAC} v50, v24, v70, v50        ; acc[0][2], k0 + 9
    ${MAC} v51, v24, v71, v51        ; acc[0][3], k0 + 9
    ${MAC} v52, v25, v68, v52        ; acc[1][0], k0 + 9
    ${MAC} v53, v25, v69, v53        ; acc[1][1], k0 + 9
    ${MAC} v54, v25, v70, v54        ; acc[1][2], k0 + 9
    ${MAC} v55, v25, v71, v55        ; acc[1][3], k0 + 9
    ${MAC} v56, v26, v68, v56        ; acc[2][0], k0 + 9
    ${MAC} v57, v26, v69, v57        ; acc[2][1], k0 + 9
    ${MAC} v58, v26, v70, v58        ; acc[2][2], k0 + 9
    ${MAC} v59, v26, v71, v59        ; acc[2][3], k0 + 9
    ${MAC} v60, v27, v68, v60        ; acc[3][0], k0 + 9
    ${MAC} v61, v27, v69, v61        ; acc[3][1], k0 + 9
    ${MAC} v62, v27, v70, v62        ; acc[3][2], k0 + 9
    ${MAC} v63, v27, v71, v63        ; acc[3][3], k0 + 9
    ${MAC} v72, v28, v68, v72        ; acc1[0][0], k0 + 9
    ${MAC} v73, v28, v69, v73        ; acc1[0][1], k0 + 9
    ${MAC} v74, v28, v70, v74        ; acc1[0][2], k0 + 9
    ${MAC} v75, v28, v71, v75        ; acc1[0][3], k0 + 9
    ${MAC} v76, v29, v68, v76        ; acc1[1][0], k0 + 9
    ${MAC} v77, v29, v69, v77        ; acc1[1][1], k0 + 9
    ${MAC} v78, v29, v70, v78        ; acc1[1][2], k0 + 9
    ${MAC} v79, v29, v71, v79        ; acc1[1][3], k0 + 9
    ${MAC} v80, v30, v68, v80        ; acc1[2][0], k0 + 9
    ${MAC} v81, v30, v69, v81        ; acc1[2][1], k0 + 9
    ${MAC} v82, v30, v70, v82        ; acc1[2][2], k0 + 9
    ${MAC} v83, v30, v71, v83        ; acc1[2][3], k0 + 9
    ${MAC} v84, v31, v68, v84        ; acc1[3][0], k0 + 9
    ${MAC} v85, v31, v69, v85        ; acc1[3][1], k0 + 9
    ${MAC} v86, v31, v70, v86        ; acc1[3][2], k0 + 9
    ${MAC} v87, v31, v71, v87        ; acc1[3][3], k0 + 9
    ds_read_b128 v[24:27], v38, 5808      ; a[0..3] = A[m0 + 4 ty .. + 3][k0 + 11]
    ds_read_b128 v[28:31], v38, 6064      ; a[4..7] = A[m0 + 64 + 4 ty .. + 3][..]
    ds_read_b128 v[68:71], v39, 11264      ; b[0..3] = B[..][n0 + 4 tx .. + 3]
    s_waitcnt 15                         ; k0 + 10's three reads have landed (12 loads in flight)
    ${MAC} v48, v40, v64, v48        ; acc[0][0], k0 + 10
    ${MAC} v49, v40, v65, v49        ; acc[0][1], k0 + 10
    ${MAC} v50, v40, v66, v50        ; acc[0][2], k0 + 10
    ${MAC} v51, v40, v67, v51        ; acc[0][3], k0 + 10
    ${MAC} v52, v41, v64, v52        ; acc[1][0], k0 + 10
    ${MAC} v53, v41, v65, v53        ; acc[1][1], k0 + 10
    ${MAC} v54, v41, v66, v54        ; acc[1][2], k0 + 10
    ${MAC} v55, v41, v67, v55        ; acc[1][3], k0 + 10
    ${MAC} v56, v42, v64, v56        ; acc[2][0], k0 + 10
    ${MAC} v57, v42, v65, v57        ; acc[2][1], k0 + 10
    ${MAC} v58, v42, v66, v58        ; acc[2][2], k0 + 10
    ${MAC} v59, v42, v67, v59        ; acc[2][3], k0 + 10
    ${MAC} v60, v43, v64, v60        ; acc[3][0], k0 + 10
    ${MAC} v61, v43, v65, v61        ; acc[3][1], k0 + 10
    ${MAC} v62, v43, v66, v62        ; acc[3][2], k0 + 10
    ${MAC} v63, v43, v67, v63        ; acc[3][3], k0 + 10
    ${MAC} v72, v44, v64, v72        ; acc1[0][0], k0 + 10
    ${MAC} v73, v44, v65, v73        ; acc1[0][1], k0 + 10
    ${MAC} v74, v44, v66, v74        ; acc1[0][2], k0 + 10
    ${MAC} v75, v44, v67, v75        ; acc1[0][3], k0 + 10
    ${MAC} v76, v45, v64, v76        ; acc1[1][0], k0 + 10
    ${MAC} v77, v45, v65, v77        ; acc1[1][1], k0 + 10
    ${MAC} v78, v45, v66, v78        ; acc1[1][2], k0 + 10
    ${MAC} v79, v45, v67, v79        ; acc1[1][3], k0 + 10
    ${MAC} v80, v46, v64, v80        ; acc1[2][0], k0 + 10
    ${MAC} v81, v46, v65, v81        ; acc1[2][1], k0 + 10
    ${MAC} v82, v46, v66, v82        ; acc1[2][2], k0 + 10
    ${MAC} v83, v46, v67, v83        ; acc1[2][3], k0 + 10
    ${MAC} v84, v47, v64, v84        ; acc1[3][0], k0 + 10
    ${MAC} v85, v47, v65, v85        ; acc1[3][1], k0 + 10
    ${MAC} v86, v47, v66, v86        ; acc1[3][2], k0 + 10
    ${MAC} v87, v47, v67, v87        ; acc1[3][3], k0 + 10
    ds_read_b128 v[40:43], v38, 6336      ; a[0..3] = A[m0 + 4 ty .. + 3][k0 + 12]
    ds_read_b128 v[44:47], v38, 6592      ; a[4..7] = A[m0 + 64 + 4 ty .. + 3][..]
    ds_read_b128 v[64:67], v39, 11520      ; b[0..3] = B[..][n0 + 4 tx .. + 3]
    s_waitcnt 15                         ; k0 + 11's three reads have landed (12 loads in flight)
    ${MAC} v48, v24, v68, v48        ; acc[0][0], k0 + 11
    ${MAC} v49, v24, v69, v49        ; acc[0][1], k0 + 11
    ${MAC} v50, v24, v70, v50        ; acc[0][2], k0 + 11
    ${MAC} v51, v24, v71, v51        ; acc[0][3], k0 + 11
    ${MAC} v52, v25, v68, v52        ; acc[1][0], k0 + 11
    ${MAC} v53, v25, v69, v53        ; acc[1][1], k0 + 11
    ${MAC} v54, v25, v70, v54        ; acc[1][2], k0 + 11
    ${MAC} v55, v25, v71, v55        ; acc[1][3], k0 + 11
    ${MAC} v56, v26, v68, v56        ; acc[2][0], k0 + 11
    ${MAC} v57, v26, v69, v57        ; acc[2][1], k0 + 11
    ${MAC} v58, v26, v70, v58        ; acc[2][2], k0 + 11
    ${MAC} v59, v26, v71, v59        ; acc[2][3], k0 + 11
    ${MAC} v60, v27, v68, v60        ; acc[3][0], k0 + 11
    ${MAC} v61, v27, v69, v61        ; acc[3][1], k0 + 11
    ${MAC} v62, v27, v70, v62        ; acc[3][2], k0 + 11
    ${MAC} v63, v27, v71, v63        ; acc[3][3], k0 + 11
    ${MAC} v72, v28, v68, v72        ; acc1[0][0], k0 + 11
    ${MAC} v73, v28, v69, v73        ; acc1[0][1], k0 + 11
    ${MAC} v74, v28, v70, v74        ; acc1[0][2], k0 + 11
    ${MAC} v75, v28, v71, v75        ; acc1[0][3], k0 + 11
    ${MAC} v76, v29, v68, v76        ; acc1[1][0], k0 + 11
    ${MAC} v77, v29, v69, v77        ; acc1[1][1], k0 + 11
    ${MAC} v78, v29, v70, v78        ; acc1[1][2], k0 + 11
    ${MAC} v79, v29, v71, v79        ; acc1[1][3], k0 + 11
    ${MAC} v80, v30, v68, v80        ; acc1[2][0], k0 + 11
    ${MAC} v81, v30, v69, v81        ; acc1[2][1], k0 + 11
    ${MAC} v82, v30, v70, v82        ; acc1[2][2], k0 + 11
    ${MAC} v83, v30, v71, v83        ; acc1[2][3], k0 + 11
    ${MAC} v84, v31, v68, v84        ; acc1[3][0], k0 + 11
    ${MAC} v85, v31, v69, v85        ; acc1[3][1], k0 + 11
    ${MAC} v86, v31, v70, v86        ; acc1[3][2], k0 + 11
    ${MAC} v87, v31, v71, v87        ; acc1[3][3], k0 + 11
    ds_read_b128 v[24:27], v38, 6864      ; a[0..3] = A[m0 + 4 ty .. + 3][k0 + 13]
    ds_read_b128 v[28:31], v38, 7120      ; a[4..7] = A[m0 + 64 + 4 ty .. + 3][..]
    ds_read_b128 v[68:71], v39, 11776      ; b[0..3] = B[..][n0 + 4 tx .. + 3]
    s_waitcnt 15                         ; k0 + 12's three reads have landed (12 loads in flight)
    ${MAC} v48, v40, v64, v48        ; acc[0][0], k0 + 12
    ${MAC} v49, v40, v65, v49        ; acc[0][1], k0 + 12
    ${MAC} v50, v40, v66, v50        ; acc[0][2], k0 + 12
    ${MAC} v51, v40, v67, v51        ; acc[0][3], k0 + 12
    ${MAC} v52, v41, v64, v52        ; acc[1][0], k0 + 12
    ${MAC} v53, v41, v65, v53        ; acc[1][1], k0 + 12
    ${MAC} v54, v41, v66, v54        ; acc[1][2], k0 + 12
    ${MAC} v55, v41, v67, v55        ; acc[1][3], k0 + 12
    ${MAC} v56, v42, v64, v56        ; acc[2][0], k0 + 12
    ${MAC} v57, v42, v65, v57        ; acc[2][1], k0 + 12
    ${MAC} v58, v42, v66, v58        ; acc[2][2], k0 + 12
    ${MAC} v59, v42, v67, v59        ; acc[2][3], k0 + 12
    ${MAC} v60, v43, v64, v60        ; acc[3][0], k0 + 12
    ${MAC} v61, v43, v65, v61        ; acc[3][1], k0 + 12
    ${MAC} v62, v43, v66, v62        ; acc[3][2], k0 + 12
    ${MAC} v63, v43, v67, v63        ; acc[3][3], k0 + 12
    ${MAC} v72, v44, v64, v72        ; acc1[0][0], k0 + 12
    ${MAC} v73, v44, v65, v73        ; acc1[0][1], k0 + 12
    ${MAC} v74, v44, v66, v74        ; acc1[0][2], k0 + 12
    ${MAC} v75, v44, v67, v75        ; acc1[0][3], k0 + 12
    ${MAC} v76, v45, v64, v76        ; acc1[1][0], k0 + 12
    ${MAC} v77, v45, v65, v77        ; acc1[1][1], k0 + 12
    ${MAC} v78, v45, v66, v78        ; acc1[1][2], k0 + 12
    ${MAC} v79, v45, v67, v79        ; acc1[1][3], k0 + 12
    ${MAC} v80, v46, v64, v80        ; acc1[2][0], k0 + 12
    ${MAC} v81, v46, v65, v81        ; acc1[2][1], k0 + 12
    ${MAC} v82, v46, v66, v82        ; acc1[2][2], k0 + 12
    ${MAC} v83, v46, v67, v83        ; acc1[2][3], k0 + 12
    ${MAC} v84, v47, v64, v84        ; acc1[3][0], k0 + 12
    ${MAC} v85, v47, v65, v85        ; acc1[3][1], k0 + 12
    ${MAC} v86, v47, v66, v86        ; acc1[3][2], k0 + 12
    ${MAC} v87, v47, v67, v87        ; acc1[3][3], k0 + 12
    ds_read_b128 v[40:43], v38, 7392      ; a[0..3] = A[m0 + 4 ty .. + 3][k0 + 14]
    ds_read_b128 v[44:47], v38, 7648      ; a[4..7] = A[m0 + 64 + 4 ty .. + 3][..]
    ds_read_b128 v[64:67], v39, 12032      ; b[0..3] = B[..][n0 + 4 tx .. + 3]
    s_waitcnt 15                         ; k0 + 13's three reads have landed (12 loads in flight)
    ${MAC} v48, v24, v68, v48        ; acc[0][0], k0 + 13
    ${MAC} v49, v24, v69, v49        ; acc[0][1], k0 + 13
    ${MAC} v50, v24, v70, v50        ; acc[0][2], k0 + 13
    ${MAC} v51, v24, v71, v51        ; acc[0][3], k0 + 13
    ${MAC} v52, v25, v68, v52        ; acc[1][0], k0 + 13
    ${MAC} v53, v25, v69, v53        ; acc[1][1], k0 + 13
    ${MAC} v54, v25, v70, v54        ; acc[1][2], k0 + 13
    ${MAC} v55, v25, v71, v55        ; acc[1][3], k0 + 13
    ${MAC} v56, v26, v68, v56        ; acc[2][0], k0 + 13
    ${MAC} v57, v26, v69, v57        ; acc[2][1], k0 + 13
    ${MAC} v58, v26, v70, v58        ; acc[2][2], k0 + 13
    ${MAC} v59, v26, v71, v59        ; acc[2][3], k0 + 13
    ${MAC} v60, v27, v68, v60        ; acc[3][0], k0 + 13
    ${MAC} v61, v27, v69, v61        ; acc[3][1], k0 + 13
    ${MAC} v62, v27, v70, v62        ; acc[3][2], k0 + 13
    ${MAC} v63, v27, v71, v63        ; acc[3][3], k0 + 13
    ${MAC} v72, v28, v68, v72        ; acc1[0][0], k0 + 13
    ${MAC} v73, v28, v69, v73        ; acc1[0][1], k0 + 13
    ${MAC} v74, v28, v70, v74        ; acc1[0][2], k0 + 13
    ${MAC} v75, v28, v71, v75        ; acc1[0][3], k0 + 13
    ${MAC} v76, v29, v68, v76        ; acc1[1][0], k0 + 13
    ${MAC} v77, v29, v69, v77        ; acc1[1][1], k0 + 13
    ${MAC} v78, v29, v70, v78        ; acc1[1][2], k0 + 13
    ${MAC} v79, v29, v71, v79        ; acc1[1][3], k0 + 13
    ${MAC} v80, v30, v68, v80        ; acc1[2][0], k0 + 13
    ${MAC} v81, v30, v69, v81        ; acc1[2][1], k0 + 13
    ${MAC} v82, v30, v70, v82        ; acc1[2][2], k0 + 13
    ${MAC} v83, v30, v71, v83        ; acc1[2][3], k0 + 13
    ${MAC} v84, v31, v68, v84        ; acc1[3][0], k0 + 13
    ${MAC} v85, v31, v69, v85        ; acc1[3][1], k0 + 13
    ${MAC} v86, v31, v70, v86        ; acc1[3][2], k0 + 13
    ${MAC} v87, v31, v71, v87        ; acc1[3][3], k0 + 13
    ds_read_b128 v[24:27], v38, 7920      ; a[0..3] = A[m0 + 4 ty .. + 3][k0 + 15]
    ds_read_b128 v[28:31], v38, 8176      ; a[4..7] = A[m0 + 64 + 4 ty .. + 3][..]
    ds_read_b128 v[68:71], v39, 12288      ; b[0..3] = B[..][n0 + 4 tx .. + 3]
    s_waitcnt 15                         ; k0 + 14's three reads have landed (12 loads in flight)
    ${MAC} v48, v40, v64, v48        ; acc[0][0], k0 + 14
    ${MAC} v49, v40, v65, v49        ; acc[0][1], k0 + 14
    ${MAC} v50, v40, v66, v50        ; acc[0][2], k0 + 14
    ${MAC} v51, v40, v67, v51        ; acc[0][3], k0 + 14
    ${MAC} v52, v41, v64, v52        ; acc[1][0], k0 + 14
    ${MAC} v53, v41, v65, v53        ; acc[1][1], k0 + 14
    ${MAC} v54, v41, v66, v54        ; acc[1][2], k0 + 14
    ${MAC} v55, v41, v67, v55        ; acc[1][3], k0 + 14
    ${MAC} v56, v42, v64, v56        ; acc[2][0], k0 + 14
    ${MAC} v57, v42, v65, v57        ; acc[2][1], k0 + 14
    ${MAC} v58, v42, v66, v58        ; acc[2][2], k0 + 14
    ${MAC} v59, v42, v67, v59        ; acc[2][3], k0 + 14
    ${MAC} v60, v43, v64, v60        ; acc[3][0], k0 + 14
    ${MAC} v61, v43, v65, v61        ; acc[3][1], k0 + 14
    ${MAC} v62, v43, v66, v62        ; acc[3][2], k0 + 14
    ${MAC} v63, v43, v67, v63        ; acc[3][3], k0 + 14
    ${MAC} v72, v44, v64, v72        ; acc1[0][0], k0 + 14
    ${MAC} v73, v44, v65, v73        ; acc1[0][1], k0 + 14
    ${MAC} v74, v44, v66, v74        ; acc1[0][2], k0 + 14
    ${MAC} v75, v44, v67, v75        ; acc1[0][3], k0 + 14
    ${MAC} v76, v45, v64, v76        ; acc1[1][0], k0 + 14
    ${MAC} v77, v45, v65, v77        ; acc1[1][1], k0 + 14
    ${MAC} v78, v45, v66, v78        ; acc1[1][2], k0 + 14
    ${MAC} v79, v45, v67, v79        ; acc1[1][3], k0 + 14
    ${MAC} v80, v46, v64, v80        ; acc1[2][0], k0 + 14
    ${MAC} v81, v46, v65, v81        ; acc1[2][1], k0 + 14
    ${MAC} v82, v46, v66, v82        ; acc1[2][2], k0 + 14
    ${MAC} v83, v46, v67, v83        ; acc1[2][3], k0 + 14
    ${MAC} v84, v47, v64, v84        ; acc1[3][0], k0 + 14
    ${MAC} v85, v47, v65, v85        ; acc1[3][1], k0 + 14
    ${MAC} v86, v47, v66, v86        ; acc1[3][2], k0 + 14
    ${MAC} v87, v47, v67, v87        ; acc1[3][3], k0 + 14
    s_waitcnt 12                         ; k0 + 15's reads have landed (the 12 loads may not have)
    ${MAC} v48, v24, v68, v48        ; acc[0][0], k0 + 15
    ${MAC} v49, v24, v69, v49        ; acc[0][1], k0 + 15
    ${MAC} v50, v24, v70, v50        ; acc[0][2], k0 + 15
    ${MAC} v51, v24, v71, v51        ; acc[0][3], k0 + 15
    ${MAC} v52, v25, v68, v52        ; acc[1][0], k0 + 15
    ${MAC} v53, v25, v69, v53        ; acc[1][1], k0 + 15
    ${MAC} v54, v25, v70, v54        ; acc[1][2], k0 + 15
    ${MAC} v55, v25, v71, v55        ; acc[1][3], k0 + 15
    ${MAC} v56, v26, v68, v56        ; acc[2][0], k0 + 15
    ${MAC} v57, v26, v69, v57        ; acc[2][1], k0 + 15
    ${MAC} v58, v26, v70, v58        ; acc[2][2], k0 + 15
    ${MAC} v59, v26, v71, v59        ; acc[2][3], k0 + 15
    ${MAC} v60, v27, v68, v60        ; acc[3][0], k0 + 15
    ${MAC} v61, v27, v69, v61        ; acc[3][1], k0 + 15
    ${MAC} v62, v27, v70, v62        ; acc[3][2], k0 + 15
    ${MAC} v63, v27, v71, v63        ; acc[3][3], k0 + 15
    ${MAC} v72, v28, v68, v72        ; acc1[0][0], k0 + 15
    ${MAC} v73, v28, v69, v73        ; acc1[0][1], k0 + 15
    ${MAC} v74, v28, v70, v74        ; acc1[0][2], k0 + 15
    ${MAC} v75, v28, v71, v75        ; acc1[0][3], k0 + 15
    ${MAC} v76, v29, v68, v76        ; acc1[1][0], k0 + 15
    ${MAC} v77, v29, v69, v77        ; acc1[1][1], k0 + 15
    ${MAC} v78, v29, v70, v78        ; acc1[1][2], k0 + 15
    ${MAC} v79, v29, v71, v79        ; acc1[1][3], k0 + 15
    ${MAC} v80, v30, v68, v80        ; acc1[2][0], k0 + 15
    ${MAC} v81, v30, v69, v81        ; acc1[2][1], k0 + 15
    ${MAC} v82, v30, v70, v82        ; acc1[2][2], k0 + 15
    ${MAC} v83, v30, v71, v83        ; acc1[2][3], k0 + 15
    ${MAC} v84, v31, v68, v84        ; acc1[3][0], k0 + 15
    ${MAC} v85, v31, v69, v85        ; acc1[3][1], k0 + 15
    ${MAC} v86, v31, v70, v86        ; acc1[3][2], k0 + 15
    ${MAC} v87, v31, v71, v87        ; acc1[3][3], k0 + 15
    s_barrier                            ; every wave is done with the tiles in LDS
wide_store:
    s_mov_b32 s39, 0
    s_waitcnt 0                          ; the loaded tile has landed
.if WIDEN_F16
    v_cvt_f32_f16 v20, v20
    v_cvt_f32_f16 v21, v21
    v_cvt_f32_f16 v22, v22
    v_cvt_f32_f16 v23, v23
    v_cvt_f32_f16 v8, v8
    v_cvt_f32_f16 v9, v9
    v_cvt_f32_f16 v10, v10
    v_cvt_f32_f16 v11, v11
    v_cvt_f32_f16 v88, v88
    v_cvt_f32_f16 v89, v89
    v_cvt_f32_f16 v90, v90
    v_cvt_f32_f16 v91, v91
.endif
    ds_write_b128 v32, v[20:23], 0       ; AsT[tx][8 ty .. + 3]
    ds_write_b128 v32, v[8:11], 16       ; AsT[tx][8 ty + 4 .. + 7]
    ds_write_b32 v33, v88, 8448            ; Bs[kk + 0][v0 % 64]
    ds_write_b32 v33, v89, 9472            ; Bs[kk + 4][v0 % 64]
    ds_write_b32 v33, v90, 10496            ; Bs[kk + 8][v0 % 64]
    ds_write_b32 v33, v91, 11520            ; Bs[kk + 12][v0 % 64]
    s_barrier                            ; both tiles complete
    v_add_u32 v16, v16, s36              ; A: 16 k on
    v_add_u32 v17, v17, s37              ; B: 16 k on
    s_cmp_le_u32 s38, 16
    s_cbranch_scc1 wide_last
    s_sub_u32 s38, s38, 16
    s_branch wide_tile                   ; load the next tile, multiply this one
wide_last:                               ; the last tile (1 .. 16 k, nothing loaded behind it): one k at a time
    s_mov_b32 s39, s38                   ; k in this tile
    s_cmp_eq_u32 s39, 0
    s_cbranch_scc1 finish                ; K = 0: no product
    v_mov_b32 v18, v38                   ; &AsT[k][4 ty], k = 0
    v_mov_b32 v19, v39                   ; &Bs[k][4 tx] - Bs
wide_k:
    ds_read_b128 v[40:43], v18, 0      ; a[0..3] = A[m0 + 4 ty .. + 3][k]
    ds_read_b128 v[44:47], v18, 256      ; a[4..7] = A[m0 + 64 + 4 ty .. + 3][..]
    ds_read_b128 v[64:67], v19, 8448      ; b[0..3] = B[..][n0 + 4 tx .. + 3]
    s_waitcnt 0
    ${MAC} v48, v40, v64, v48        ; acc[0][0], k
    ${MAC} v49, v40, v65, v49        ; acc[0][1], k
    ${MAC} v50, v40, v66, v50        ; acc[0][2], k
    ${MAC} v51, v40, v67, v51        ; acc[0][3], k
    ${MAC} v52, v41, v64, v52        ; acc[1][0], k
    ${MAC} v53, v41, v65, v53        ; acc[1][1], k
    ${MAC} v54, v41, v66, v54        ; acc[1][2], k
    ${MAC} v55, v41, v67, v55        ; acc[1][3], k
    ${MAC} v56, v42, v64, v56        ; acc[2][0], k
    ${MAC} v57, v42, v65, v57        ; acc[2][1], k
    ${MAC} v58, v42, v66, v58        ; acc[2][2], k
    ${MAC} v59, v42, v67, v59        ; acc[2][3], k
    ${MAC} v60, v43, v64, v60        ; acc[3][0], k
    ${MAC} v61, v43, v65, v61        ; acc[3][1], k
    ${MAC} v62, v43, v66, v62        ; acc[3][2], k
    ${MAC} v63, v43, v67, v63        ; acc[3][3], k
    ${MAC} v72, v44, v64, v72        ; acc1[0][0], k
    ${MAC} v73, v44, v65, v73        ; acc1[0][1], k
    ${MAC} v74, v44, v66, v74        ; acc1[0][2], k
    ${MAC} v75, v44, v67, v75        ; acc1[0][3], k
    ${MAC} v76, v45, v64, v76        ; acc1[1][0], k
    ${MAC} v77, v45, v65, v77        ; acc1[1][1], k
    ${MAC} v78, v45, v66, v78        ; acc1[1][2], k
    ${MAC} v79, v45, v67, v79        ; acc1[1][3], k
    ${MAC} v80, v46, v64, v80        ; acc1[2][0], k
    ${MAC} v81, v46, v65, v81        ; acc1[2][1], k
    ${MAC} v82, v46, v66, v82        ; acc1[2][2], k
    ${MAC} v83, v46, v67, v83        ; acc1[2][3], k
    ${MAC} v84, v47, v64, v84        ; acc1[3][0], k
    ${MAC} v85, v47, v65, v85        ; acc1[3][1], k
    ${MAC} v86, v47, v66, v86        ; acc1[3][2], k
    ${MAC} v87, v47, v67, v87        ; acc1[3][3], k
    v_add_u32 v18, v18, 528              ; next k: one row of AsT
    v_add_u32 v19, v19, 256              ; one row of Bs
    s_sub_u32 s39, s39, 1
    s_cmp_lg_u32 s39, 0
    s_cbranch_scc1 wide_k
    s_branch finish
.endif
; ---- 1. one tile of A and B into LDS --------------------------------------------------------------
.if not WMMA
; ---- the integer variants (INTEGER): the zero points of the rows and the column this thread copies -------
; (AZeroPointTensor {1,1,1,1} or {1,1,M,1}, BZeroPointTensor {1,1,1,1} or {1,1,1,N}: stride 0 or their
; stride along m / n, from the wide records of M and N); a row past M or a column past N keeps 0.
.if INTEGER
    s_load_dwordx8 s[88:95], s[2:3], ${CB_GEMM_M_WIDE}   ; strides along m of AZP, -, AScale, -, OutScale, OutZP
    s_load_dwordx8 s[96:103], s[2:3], ${CB_GEMM_N_WIDE}  ; strides along n of -, BZP, -, BScale
    s_waitcnt 0
    v_mov_b32 v72, 0
    v_mov_b32 v73, 0
    v_mov_b32 v74, 0
    v_mov_b32 v75, 0
    v_mov_b32 v76, 0
.endif
.if HAS_AZP
    s_load_dwordx4 s[16:19], s[0:1], ${DESC_AZP}  ; AZeroPointTensor's descriptor (no C in these variants)
    s_waitcnt 0
    v_mul_lo_u32 v100, v14, s88          ; AZP[m0 + ty] (+ 16 j)
    s_lshl_b32 s104, s88, 4              ; 16 rows on
    v_add_u32 v101, v100, s104
    v_add_u32 v102, v101, s104
    v_add_u32 v103, v102, s104
    s_mov_b64 exec, s[24:25]
    buffer_load_${LOAD_A} v72, v100, s[16:19], 0
    s_mov_b64 exec, s[26:27]
    buffer_load_${LOAD_A} v73, v101, s[16:19], 0
    s_mov_b64 exec, s[28:29]
    buffer_load_${LOAD_A} v74, v102, s[16:19], 0
    s_mov_b64 exec, s[30:31]
    buffer_load_${LOAD_A} v75, v103, s[16:19], 0
    s_mov_b64 exec, s[66:67]
    s_waitcnt 0
.endif
.if HAS_BZP
    s_load_dwordx4 s[16:19], s[0:1], ${DESC_BZP}  ; BZeroPointTensor's descriptor
    s_waitcnt 0
    v_mul_lo_u32 v100, v15, s97          ; BZP[n0 + v0 % 64]
    s_mov_b64 exec, s[32:33]
    buffer_load_${LOAD_B} v76, v100, s[16:19], 0
    s_mov_b64 exec, s[66:67]
    s_waitcnt 0
.endif
    s_mov_b32 s39, 1                     ; the first tile: nothing in LDS yet
tile:
    v_cmp_gt_u32 vcc, s38, v1            ; tx < k left
    s_mov_b64 s[70:71], vcc
    v_add_u32 v25, v16, s34
    v_add_u32 v26, v25, s34
    v_add_u32 v27, v26, s34
    v_lshl_b32 v28, v16, ${SHIFT_IN}
    v_lshl_b32 v29, v25, ${SHIFT_IN}
    v_lshl_b32 v30, v26, ${SHIFT_IN}
    v_lshl_b32 v31, v27, ${SHIFT_IN}
    v_mov_b32 v20, ${A_PAD}
    v_mov_b32 v21, ${A_PAD}
    v_mov_b32 v22, ${A_PAD}
    v_mov_b32 v23, ${A_PAD}
    s_and_b64 exec, s[70:71], s[24:25]
    buffer_load_${LOAD_A} v20, v28, s[8:11], 0      ; A[m0 + ty + 0][k0 + tx]
    s_and_b64 exec, s[70:71], s[26:27]
    buffer_load_${LOAD_A} v21, v29, s[8:11], 0      ; A[m0 + ty + 16][k0 + tx]
    s_and_b64 exec, s[70:71], s[28:29]
    buffer_load_${LOAD_A} v22, v30, s[8:11], 0      ; A[m0 + ty + 32][k0 + tx]
    s_and_b64 exec, s[70:71], s[30:31]
    buffer_load_${LOAD_A} v23, v31, s[8:11], 0      ; A[m0 + ty + 48][k0 + tx]
    s_mov_b64 exec, s[66:67]
    v_add_u32 v25, v17, s35
    v_add_u32 v26, v25, s35
    v_add_u32 v27, v26, s35
    v_lshl_b32 v28, v17, ${SHIFT_IN}
    v_lshl_b32 v29, v25, ${SHIFT_IN}
    v_lshl_b32 v30, v26, ${SHIFT_IN}
    v_lshl_b32 v31, v27, ${SHIFT_IN}
    v_mov_b32 v88, 0
    v_mov_b32 v89, 0
    v_mov_b32 v90, 0
    v_mov_b32 v91, 0
    v_cmp_gt_u32 vcc, s38, v34            ; kk + 0 < k left
    s_and_b64 exec, vcc, s[32:33]
    buffer_load_${LOAD_B} v88, v28, s[12:15], 0     ; B[k0 + kk + 0][n]
    s_mov_b64 exec, s[66:67]
    v_cmp_gt_u32 vcc, s38, v35            ; kk + 4 < k left
    s_and_b64 exec, vcc, s[32:33]
    buffer_load_${LOAD_B} v89, v29, s[12:15], 0     ; B[k0 + kk + 4][n]
    s_mov_b64 exec, s[66:67]
    v_cmp_gt_u32 vcc, s38, v36            ; kk + 8 < k left
    s_and_b64 exec, vcc, s[32:33]
    buffer_load_${LOAD_B} v90, v30, s[12:15], 0     ; B[k0 + kk + 8][n]
    s_mov_b64 exec, s[66:67]
    v_cmp_gt_u32 vcc, s38, v37            ; kk + 12 < k left
    s_and_b64 exec, vcc, s[32:33]
    buffer_load_${LOAD_B} v91, v31, s[12:15], 0     ; B[k0 + kk + 12][n]
    s_mov_b64 exec, s[66:67]
; ---- 2. the tile in LDS (the one before those loads, which stay in flight: every s_waitcnt below counts
; them): 16 k unrolled, the LDS reads of k + 1 in flight while k's fmas run (it is always a whole tile) ----
    s_cmp_eq_u32 s39, 1
    s_cbranch_scc1 valu_store            ; the first tile: nothing to multiply yet
    ds_read_b128 v[40:43], v38, 0        ; a[0..3] = A[m0 + 4 ty .. + 3][k0]
    ds_read_b128 v[44:47], v39, 4096     ; b[0..3] = B[k0][n0 + 4 tx .. + 3]
    ds_read_b128 v[64:67], v38, 256      ; k0 + 1: a
    ds_read_b128 v[68:71], v39, 4352     ; b
    s_waitcnt 10                         ; k0 + 0's two reads have landed (8 loads in flight)
    ${MAC} v48, v40, v44, v48        ; acc[0][0], k0 + 0
    ${MAC} v49, v40, v45, v49        ; acc[0][1], k0 + 0
    ${MAC} v50, v40, v46, v50        ; acc[0][2], k0 + 0
    ${MAC} v51, v40, v47, v51        ; acc[0][3], k0 + 0
    ${MAC} v52, v41, v44, v52        ; acc[1][0], k0 + 0
    ${MAC} v53, v41, v45, v53        ; acc[1][1], k0 + 0
    ${MAC} v54, v41, v46, v54        ; acc[1][2], k0 + 0
    ${MAC} v55, v41, v47, v55        ; acc[1][3], k0 + 0
    ${MAC} v56, v42, v44, v56        ; acc[2][0], k0 + 0
    ${MAC} v57, v42, v45, v57        ; acc[2][1], k0 + 0
    ${MAC} v58, v42, v46, v58        ; acc[2][2], k0 + 0
    ${MAC} v59, v42, v47, v59        ; acc[2][3], k0 + 0
    ${MAC} v60, v43, v44, v60        ; acc[3][0], k0 + 0
    ${MAC} v61, v43, v45, v61        ; acc[3][1], k0 + 0
    ${MAC} v62, v43, v46, v62        ; acc[3][2], k0 + 0
    ${MAC} v63, v43, v47, v63        ; acc[3][3], k0 + 0
    ds_read_b128 v[40:43], v38, 512      ; k0 + 2: a
    ds_read_b128 v[44:47], v39, 4608     ; b
    s_waitcnt 10                         ; k0 + 1's two reads have landed (8 loads in flight)
    ${MAC} v48, v64, v68, v48        ; acc[0][0], k0 + 1
    ${MAC} v49, v64, v69, v49        ; acc[0][1], k0 + 1
    ${MAC} v50, v64, v70, v50        ; acc[0][2], k0 + 1
    ${MAC} v51, v64, v71, v51        ; acc[0][3], k0 + 1
    ${MAC} v52, v65, v68, v52        ; acc[1][0], k0 + 1
    ${MAC} v53, v65, v69, v53        ; acc[1][1], k0 + 1
    ${MAC} v54, v65, v70, v54        ; acc[1][2], k0 + 1
    ${MAC} v55, v65, v71, v55        ; acc[1][3], k0 + 1
    ${MAC} v56, v66, v68, v56        ; acc[2][0], k0 + 1
    ${MAC} v57, v66, v69, v57        ; acc[2][1], k0 + 1
    ${MAC} v58, v66, v70, v58        ; acc[2][2], k0 + 1
    ${MAC} v59, v66, v71, v59        ; acc[2][3], k0 + 1
    ${MAC} v60, v67, v68, v60        ; acc[3][0], k0 + 1
    ${MAC} v61, v67, v69, v61        ; acc[3][1], k0 + 1
    ${MAC} v62, v67, v70, v62        ; acc[3][2], k0 + 1
    ${MAC} v63, v67, v71, v63        ; acc[3][3], k0 + 1
    ds_read_b128 v[64:67], v38, 768      ; k0 + 3: a
    ds_read_b128 v[68:71], v39, 4864     ; b
    s_waitcnt 10                         ; k0 + 2's two reads have landed (8 loads in flight)
    ${MAC} v48, v40, v44, v48        ; acc[0][0], k0 + 2
    ${MAC} v49, v40, v45, v49        ; acc[0][1], k0 + 2
    ${MAC} v50, v40, v46, v50        ; acc[0][2], k0 + 2
    ${MAC} v51, v40, v47, v51        ; acc[0][3], k0 + 2
    ${MAC} v52, v41, v44, v52        ; acc[1][0], k0 + 2
    ${MAC} v53, v41, v45, v53        ; acc[1][1], k0 + 2
    ${MAC} v54, v41, v46, v54        ; acc[1][2], k0 + 2
    ${MAC} v55, v41, v47, v55        ; acc[1][3], k0 + 2
    ${MAC} v56, v42, v44, v56        ; acc[2][0], k0 + 2
    ${MAC} v57, v42, v45, v57        ; acc[2][1], k0 + 2
    ${MAC} v58, v42, v46, v58        ; acc[2][2], k0 + 2
    ${MAC} v59, v42, v47, v59        ; acc[2][3], k0 + 2
    ${MAC} v60, v43, v44, v60        ; acc[3][0], k0 + 2
    ${MAC} v61, v43, v45, v61        ; acc[3][1], k0 + 2
    ${MAC} v62, v43, v46, v62        ; acc[3][2], k0 + 2
    ${MAC} v63, v43, v47, v63        ; acc[3][3], k0 + 2
    ds_read_b128 v[40:43], v38, 1024      ; k0 + 4: a
    ds_read_b128 v[44:47], v39, 5120     ; b
    s_waitcnt 10                         ; k0 + 3's two reads have landed (8 loads in flight)
    ${MAC} v48, v64, v68, v48        ; acc[0][0], k0 + 3
    ${MAC} v49, v64, v69, v49        ; acc[0][1], k0 + 3
    ${MAC} v50, v64, v70, v50        ; acc[0][2], k0 + 3
    ${MAC} v51, v64, v71, v51        ; acc[0][3], k0 + 3
    ${MAC} v52, v65, v68, v52        ; acc[1][0], k0 + 3
    ${MAC} v53, v65, v69, v53        ; acc[1][1], k0 + 3
    ${MAC} v54, v65, v70, v54        ; acc[1][2], k0 + 3
    ${MAC} v55, v65, v71, v55        ; acc[1][3], k0 + 3
    ${MAC} v56, v66, v68, v56        ; acc[2][0], k0 + 3
    ${MAC} v57, v66, v69, v57        ; acc[2][1], k0 + 3
    ${MAC} v58, v66, v70, v58        ; acc[2][2], k0 + 3
    ${MAC} v59, v66, v71, v59        ; acc[2][3], k0 + 3
    ${MAC} v60, v67, v68, v60        ; acc[3][0], k0 + 3
    ${MAC} v61, v67, v69, v61        ; acc[3][1], k0 + 3
    ${MAC} v62, v67, v70, v62        ; acc[3][2], k0 + 3
    ${MAC} v63, v67, v71, v63        ; acc[3][3], k0 + 3
    ds_read_b128 v[64:67], v38, 1280      ; k0 + 5: a
    ds_read_b128 v[68:71], v39, 5376     ; b
    s_waitcnt 10                         ; k0 + 4's two reads have landed (8 loads in flight)
    ${MAC} v48, v40, v44, v48        ; acc[0][0], k0 + 4
    ${MAC} v49, v40, v45, v49        ; acc[0][1], k0 + 4
    ${MAC} v50, v40, v46, v50        ; acc[0][2], k0 + 4
    ${MAC} v51, v40, v47, v51        ; acc[0][3], k0 + 4
    ${MAC} v52, v41, v44, v52        ; acc[1][0], k0 + 4
    ${MAC} v53, v41, v45, v53        ; acc[1][1], k0 + 4
    ${MAC} v54, v41, v46, v54        ; acc[1][2], k0 + 4
    ${MAC} v55, v41, v47, v55        ; acc[1][3], k0 + 4
    ${MAC} v56, v42, v44, v56        ; acc[2][0], k0 + 4
    ${MAC} v57, v42, v45, v57        ; acc[2][1], k0 + 4
    ${MAC} v58, v42, v46, v58        ; acc[2][2], k0 + 4
    ${MAC} v59, v42, v47, v59        ; acc[2][3], k0 + 4
    ${MAC} v60, v43, v44, v60        ; acc[3][0], k0 + 4
    ${MAC} v61, v43, v45, v61        ; acc[3][1], k0 + 4
    ${MAC} v62, v43, v46, v62        ; acc[3][2], k0 + 4
    ${MAC} v63, v43, v47, v63        ; acc[3][3], k0 + 4
    ds_read_b128 v[40:43], v38, 1536      ; k0 + 6: a
    ds_read_b128 v[44:47], v39, 5632     ; b
    s_waitcnt 10                         ; k0 + 5's two reads have landed (8 loads in flight)
    ${MAC} v48, v64, v68, v48        ; acc[0][0], k0 + 5
    ${MAC} v49, v64, v69, v49        ; acc[0][1], k0 + 5
    ${MAC} v50, v64, v70, v50        ; acc[0][2], k0 + 5
    ${MAC} v51, v64, v71, v51        ; acc[0][3], k0 + 5
    ${MAC} v52, v65, v68, v52        ; acc[1][0], k0 + 5
    ${MAC} v53, v65, v69, v53        ; acc[1][1], k0 + 5
    ${MAC} v54, v65, v70, v54        ; acc[1][2], k0 + 5
    ${MAC} v55, v65, v71, v55        ; acc[1][3], k0 + 5
    ${MAC} v56, v66, v68, v56        ; acc[2][0], k0 + 5
    ${MAC} v57, v66, v69, v57        ; acc[2][1], k0 + 5
    ${MAC} v58, v66, v70, v58        ; acc[2][2], k0 + 5
    ${MAC} v59, v66, v71, v59        ; acc[2][3], k0 + 5
    ${MAC} v60, v67, v68, v60        ; acc[3][0], k0 + 5
    ${MAC} v61, v67, v69, v61        ; acc[3][1], k0 + 5
    ${MAC} v62, v67, v70, v62        ; acc[3][2], k0 + 5
    ${MAC} v63, v67, v71, v63        ; acc[3][3], k0 + 5
    ds_read_b128 v[64:67], v38, 1792      ; k0 + 7: a
    ds_read_b128 v[68:71], v39, 5888     ; b
    s_waitcnt 10                         ; k0 + 6's two reads have landed (8 loads in flight)
    ${MAC} v48, v40, v44, v48        ; acc[0][0], k0 + 6
    ${MAC} v49, v40, v45, v49        ; acc[0][1], k0 + 6
    ${MAC} v50, v40, v46, v50        ; acc[0][2], k0 + 6
    ${MAC} v51, v40, v47, v51        ; acc[0][3], k0 + 6
    ${MAC} v52, v41, v44, v52        ; acc[1][0], k0 + 6
    ${MAC} v53, v41, v45, v53        ; acc[1][1], k0 + 6
    ${MAC} v54, v41, v46, v54        ; acc[1][2], k0 + 6
    ${MAC} v55, v41, v47, v55        ; acc[1][3], k0 + 6
    ${MAC} v56, v42, v44, v56        ; acc[2][0], k0 + 6
    ${MAC} v57, v42, v45, v57        ; acc[2][1], k0 + 6
    ${MAC} v58, v42, v46, v58        ; acc[2][2], k0 + 6
    ${MAC} v59, v42, v47, v59        ; acc[2][3], k0 + 6
    ${MAC} v60, v43, v44, v60        ; acc[3][0], k0 + 6
    ${MAC} v61, v43, v45, v61        ; acc[3][1], k0 + 6
    ${MAC} v62, v43, v46, v62        ; acc[3][2], k0 + 6
    ${MAC} v63, v43, v47, v63        ; acc[3][3], k0 + 6
    ds_read_b128 v[40:43], v38, 2048      ; k0 + 8: a
    ds_read_b128 v[44:47], v39, 6144     ; b
    s_waitcnt 10                         ; k0 + 7's two reads have landed (8 loads in flight)
    ${MAC} v48, v64, v68, v48        ; acc[0][0], k0 + 7
    ${MAC} v49, v64, v69, v49        ; acc[0][1], k0 + 7
    ${MAC} v50, v64, v70, v50        ; acc[0][2], k0 + 7
    ${MAC} v51, v64, v71, v51        ; acc[0][3], k0 + 7
    ${MAC} v52, v65, v68, v52        ; acc[1][0], k0 + 7
    ${MAC} v53, v65, v69, v53        ; acc[1][1], k0 + 7
    ${MAC} v54, v65, v70, v54        ; acc[1][2], k0 + 7
    ${MAC} v55, v65, v71, v55        ; acc[1][3], k0 + 7
    ${MAC} v56, v66, v68, v56        ; acc[2][0], k0 + 7
    ${MAC} v57, v66, v69, v57        ; acc[2][1], k0 + 7
    ${MAC} v58, v66, v70, v58        ; acc[2][2], k0 + 7
    ${MAC} v59, v66, v71, v59        ; acc[2][3], k0 + 7
    ${MAC} v60, v67, v68, v60        ; acc[3][0], k0 + 7
    ${MAC} v61, v67, v69, v61        ; acc[3][1], k0 + 7
    ${MAC} v62, v67, v70, v62        ; acc[3][2], k0 + 7
    ${MAC} v63, v67, v71, v63        ; acc[3][3], k0 + 7
    ds_read_b128 v[64:67], v38, 2304      ; k0 + 9: a
    ds_read_b128 v[68:71], v39, 6400     ; b
    s_waitcnt 10                         ; k0 + 8's two reads have landed (8 loads in flight)
    ${MAC} v48, v40, v44, v48        ; acc[0][0], k0 + 8
    ${MAC} v49, v40, v45, v49        ; acc[0][1], k0 + 8
    ${MAC} v50, v40, v46, v50        ; acc[0][2], k0 + 8
    ${MAC} v51, v40, v47, v51        ; acc[0][3], k0 + 8
    ${MAC} v52, v41, v44, v52        ; acc[1][0], k0 + 8
    ${MAC} v53, v41, v45, v53        ; acc[1][1], k0 + 8
    ${MAC} v54, v41, v46, v54        ; acc[1][2], k0 + 8
    ${MAC} v55, v41, v47, v55        ; acc[1][3], k0 + 8
    ${MAC} v56, v42, v44, v56        ; acc[2][0], k0 + 8
    ${MAC} v57, v42, v45, v57        ; acc[2][1], k0 + 8
    ${MAC} v58, v42, v46, v58        ; acc[2][2], k0 + 8
    ${MAC} v59, v42, v47, v59        ; acc[2][3], k0 + 8
    ${MAC} v60, v43, v44, v60        ; acc[3][0], k0 + 8
    ${MAC} v61, v43, v45, v61        ; acc[3][1], k0 + 8
    ${MAC} v62, v43, v46, v62        ; acc[3][2], k0 + 8
    ${MAC} v63, v43, v47, v63        ; acc[3][3], k0 + 8
    ds_read_b128 v[40:43], v38, 2560      ; k0 + 10: a
    ds_read_b128 v[44:47], v39, 6656     ; b
    s_waitcnt 10                         ; k0 + 9's two reads have landed (8 loads in flight)
    ${MAC} v48, v64, v68, v48        ; acc[0][0], k0 + 9
    ${MAC} v49, v64, v69, v49        ; acc[0][1], k0 + 9
    ${MAC} v50, v64, v70, v50        ; acc[0][2], k0 + 9
    ${MAC} v51, v64, v71, v51        ; acc[0][3], k0 + 9
    ${MAC} v52, v65, v68, v52        ; acc[1][0], k0 + 9
    ${MAC} v53, v65, v69, v53        ; acc[1][1], k0 + 9
    ${MAC} v54, v65, v70, v54        ; acc[1][2], k0 + 9
    ${MAC} v55, v65, v71, v55        ; acc[1][3], k0 + 9
    ${MAC} v56, v66, v68, v56        ; acc[2][0], k0 + 9
    ${MAC} v57, v66, v69, v57        ; acc[2][1], k0 + 9
    ${MAC} v58, v66, v70, v58        ; acc[2][2], k0 + 9
    ${MAC} v59, v66, v71, v59        ; acc[2][3], k0 + 9
    ${MAC} v60, v67, v68, v60        ; acc[3][0], k0 + 9
    ${MAC} v61, v67, v69, v61        ; acc[3][1], k0 + 9
    ${MAC} v62, v67, v70, v62        ; acc[3][2], k0 + 9
    ${MAC} v63, v67, v71, v63        ; acc[3][3], k0 + 9
    ds_read_b128 v[64:67], v38, 2816      ; k0 + 11: a
    ds_read_b128 v[68:71], v39, 6912     ; b
    s_waitcnt 10                         ; k0 + 10's two reads have landed (8 loads in flight)
    ${MAC} v48, v40, v44, v48        ; acc[0][0], k0 + 10
    ${MAC} v49, v40, v45, v49        ; acc[0][1], k0 + 10
    ${MAC} v50, v40, v46, v50        ; acc[0][2], k0 + 10
    ${MAC} v51, v40, v47, v51        ; acc[0][3], k0 + 10
    ${MAC} v52, v41, v44, v52        ; acc[1][0], k0 + 10
    ${MAC} v53, v41, v45, v53        ; acc[1][1], k0 + 10
    ${MAC} v54, v41, v46, v54        ; acc[1][2], k0 + 10
    ${MAC} v55, v41, v47, v55        ; acc[1][3], k0 + 10
    ${MAC} v56, v42, v44, v56        ; acc[2][0], k0 + 10
    ${MAC} v57, v42, v45, v57        ; acc[2][1], k0 + 10
    ${MAC} v58, v42, v46, v58        ; acc[2][2], k0 + 10
    ${MAC} v59, v42, v47, v59        ; acc[2][3], k0 + 10
    ${MAC} v60, v43, v44, v60        ; acc[3][0], k0 + 10
    ${MAC} v61, v43, v45, v61        ; acc[3][1], k0 + 10
    ${MAC} v62, v43, v46, v62        ; acc[3][2], k0 + 10
    ${MAC} v63, v43, v47, v63        ; acc[3][3], k0 + 10
    ds_read_b128 v[40:43], v38, 3072      ; k0 + 12: a
    ds_read_b128 v[44:47], v39, 7168     ; b
    s_waitcnt 10                         ; k0 + 11's two reads have landed (8 loads in flight)
    ${MAC} v48, v64, v68, v48        ; acc[0][0], k0 + 11
    ${MAC} v49, v64, v69, v49        ; acc[0][1], k0 + 11
    ${MAC} v50, v64, v70, v50        ; acc[0][2], k0 + 11
    ${MAC} v51, v64, v71, v51        ; acc[0][3], k0 + 11
    ${MAC} v52, v65, v68, v52        ; acc[1][0], k0 + 11
    ${MAC} v53, v65, v69, v53        ; acc[1][1], k0 + 11
    ${MAC} v54, v65, v70, v54        ; acc[1][2], k0 + 11
    ${MAC} v55, v65, v71, v55        ; acc[1][3], k0 + 11
    ${MAC} v56, v66, v68, v56        ; acc[2][0], k0 + 11
    ${MAC} v57, v66, v69, v57        ; acc[2][1], k0 + 11
    ${MAC} v58, v66, v70, v58        ; acc[2][2], k0 + 11
    ${MAC} v59, v66, v71, v59        ; acc[2][3], k0 + 11
    ${MAC} v60, v67, v68, v60        ; acc[3][0], k0 + 11
    ${MAC} v61, v67, v69, v61        ; acc[3][1], k0 + 11
    ${MAC} v62, v67, v70, v62        ; acc[3][2], k0 + 11
    ${MAC} v63, v67, v71, v63        ; acc[3][3], k0 + 11
    ds_read_b128 v[64:67], v38, 3328      ; k0 + 13: a
    ds_read_b128 v[68:71], v39, 7424     ; b
    s_waitcnt 10                         ; k0 + 12's two reads have landed (8 loads in flight)
    ${MAC} v48, v40, v44, v48        ; acc[0][0], k0 + 12
    ${MAC} v49, v40, v45, v49        ; acc[0][1], k0 + 12
    ${MAC} v50, v40, v46, v50        ; acc[0][2], k0 + 12
    ${MAC} v51, v40, v47, v51        ; acc[0][3], k0 + 12
    ${MAC} v52, v41, v44, v52        ; acc[1][0], k0 + 12
    ${MAC} v53, v41, v45, v53        ; acc[1][1], k0 + 12
    ${MAC} v54, v41, v46, v54        ; acc[1][2], k0 + 12
    ${MAC} v55, v41, v47, v55        ; acc[1][3], k0 + 12
    ${MAC} v56, v42, v44, v56        ; acc[2][0], k0 + 12
    ${MAC} v57, v42, v45, v57        ; acc[2][1], k0 + 12
    ${MAC} v58, v42, v46, v58        ; acc[2][2], k0 + 12
    ${MAC} v59, v42, v47, v59        ; acc[2][3], k0 + 12
    ${MAC} v60, v43, v44, v60        ; acc[3][0], k0 + 12
    ${MAC} v61, v43, v45, v61        ; acc[3][1], k0 + 12
    ${MAC} v62, v43, v46, v62        ; acc[3][2], k0 + 12
    ${MAC} v63, v43, v47, v63        ; acc[3][3], k0 + 12
    ds_read_b128 v[40:43], v38, 3584      ; k0 + 14: a
    ds_read_b128 v[44:47], v39, 7680     ; b
    s_waitcnt 10                         ; k0 + 13's two reads have landed (8 loads in flight)
    ${MAC} v48, v64, v68, v48        ; acc[0][0], k0 + 13
    ${MAC} v49, v64, v69, v49        ; acc[0][1], k0 + 13
    ${MAC} v50, v64, v70, v50        ; acc[0][2], k0 + 13
    ${MAC} v51, v64, v71, v51        ; acc[0][3], k0 + 13
    ${MAC} v52, v65, v68, v52        ; acc[1][0], k0 + 13
    ${MAC} v53, v65, v69, v53        ; acc[1][1], k0 + 13
    ${MAC} v54, v65, v70, v54        ; acc[1][2], k0 + 13
    ${MAC} v55, v65, v71, v55        ; acc[1][3], k0 + 13
    ${MAC} v56, v66, v68, v56        ; acc[2][0], k0 + 13
    ${MAC} v57, v66, v69, v57        ; acc[2][1], k0 + 13
    ${MAC} v58, v66, v70, v58        ; acc[2][2], k0 + 13
    ${MAC} v59, v66, v71, v59        ; acc[2][3], k0 + 13
    ${MAC} v60, v67, v68, v60        ; acc[3][0], k0 + 13
    ${MAC} v61, v67, v69, v61        ; acc[3][1], k0 + 13
    ${MAC} v62, v67, v70, v62        ; acc[3][2], k0 + 13
    ${MAC} v63, v67, v71, v63        ; acc[3][3], k0 + 13
    ds_read_b128 v[64:67], v38, 3840      ; k0 + 15: a
    ds_read_b128 v[68:71], v39, 7936     ; b
    s_waitcnt 10                         ; k0 + 14's two reads have landed (8 loads in flight)
    ${MAC} v48, v40, v44, v48        ; acc[0][0], k0 + 14
    ${MAC} v49, v40, v45, v49        ; acc[0][1], k0 + 14
    ${MAC} v50, v40, v46, v50        ; acc[0][2], k0 + 14
    ${MAC} v51, v40, v47, v51        ; acc[0][3], k0 + 14
    ${MAC} v52, v41, v44, v52        ; acc[1][0], k0 + 14
    ${MAC} v53, v41, v45, v53        ; acc[1][1], k0 + 14
    ${MAC} v54, v41, v46, v54        ; acc[1][2], k0 + 14
    ${MAC} v55, v41, v47, v55        ; acc[1][3], k0 + 14
    ${MAC} v56, v42, v44, v56        ; acc[2][0], k0 + 14
    ${MAC} v57, v42, v45, v57        ; acc[2][1], k0 + 14
    ${MAC} v58, v42, v46, v58        ; acc[2][2], k0 + 14
    ${MAC} v59, v42, v47, v59        ; acc[2][3], k0 + 14
    ${MAC} v60, v43, v44, v60        ; acc[3][0], k0 + 14
    ${MAC} v61, v43, v45, v61        ; acc[3][1], k0 + 14
    ${MAC} v62, v43, v46, v62        ; acc[3][2], k0 + 14
    ${MAC} v63, v43, v47, v63        ; acc[3][3], k0 + 14
    s_waitcnt 8                          ; k0 + 15's reads have landed (the 8 loads may not have)
    ${MAC} v48, v64, v68, v48        ; acc[0][0], k0 + 15
    ${MAC} v49, v64, v69, v49        ; acc[0][1], k0 + 15
    ${MAC} v50, v64, v70, v50        ; acc[0][2], k0 + 15
    ${MAC} v51, v64, v71, v51        ; acc[0][3], k0 + 15
    ${MAC} v52, v65, v68, v52        ; acc[1][0], k0 + 15
    ${MAC} v53, v65, v69, v53        ; acc[1][1], k0 + 15
    ${MAC} v54, v65, v70, v54        ; acc[1][2], k0 + 15
    ${MAC} v55, v65, v71, v55        ; acc[1][3], k0 + 15
    ${MAC} v56, v66, v68, v56        ; acc[2][0], k0 + 15
    ${MAC} v57, v66, v69, v57        ; acc[2][1], k0 + 15
    ${MAC} v58, v66, v70, v58        ; acc[2][2], k0 + 15
    ${MAC} v59, v66, v71, v59        ; acc[2][3], k0 + 15
    ${MAC} v60, v67, v68, v60        ; acc[3][0], k0 + 15
    ${MAC} v61, v67, v69, v61        ; acc[3][1], k0 + 15
    ${MAC} v62, v67, v70, v62        ; acc[3][2], k0 + 15
    ${MAC} v63, v67, v71, v63        ; acc[3][3], k0 + 15
    s_barrier                            ; 3. every wave is done with the tiles in LDS
valu_store:
    s_mov_b32 s39, 0
    s_waitcnt 0                          ; the loaded tile has landed
.if WIDEN_F16
    v_cvt_f32_f16 v20, v20
    v_cvt_f32_f16 v21, v21
    v_cvt_f32_f16 v22, v22
    v_cvt_f32_f16 v23, v23
    v_cvt_f32_f16 v88, v88
    v_cvt_f32_f16 v89, v89
    v_cvt_f32_f16 v90, v90
    v_cvt_f32_f16 v91, v91
.endif
.if HAS_AZP
    v_sub_u32 v20, v20, v72              ; A - AZP, exact (8-bit values in 32 bits)
    v_sub_u32 v21, v21, v73
    v_sub_u32 v22, v22, v74
    v_sub_u32 v23, v23, v75
.endif
.if HAS_BZP
    v_sub_u32 v88, v88, v76              ; B - BZP, exact
    v_sub_u32 v89, v89, v76
    v_sub_u32 v90, v90, v76
    v_sub_u32 v91, v91, v76
.endif
    ds_write_b32 v32, v20, 0              ; AsT[tx][ty + 0]
    ds_write_b32 v32, v21, 64              ; AsT[tx][ty + 16]
    ds_write_b32 v32, v22, 128              ; AsT[tx][ty + 32]
    ds_write_b32 v32, v23, 192              ; AsT[tx][ty + 48]
    ds_write_b32 v33, v88, 4096            ; Bs[kk + 0][v0 % 64]
    ds_write_b32 v33, v89, 5120            ; Bs[kk + 4][v0 % 64]
    ds_write_b32 v33, v90, 6144            ; Bs[kk + 8][v0 % 64]
    ds_write_b32 v33, v91, 7168            ; Bs[kk + 12][v0 % 64]
    s_barrier                            ; both tiles complete
    v_add_u32 v16, v16, s36              ; A: 16 k on
    v_add_u32 v17, v17, s37              ; B: 16 k on
    s_cmp_le_u32 s38, 16
    s_cbranch_scc1 valu_last
    s_sub_u32 s38, s38, 16
    s_branch tile                        ; load the next tile, multiply this one

; ---- 2'. the last tile (1 .. 16 k, nothing loaded behind it): exactly its k, one at a time ---------------
valu_last:
    s_mov_b32 s39, s38                   ; k in this tile
    s_cmp_eq_u32 s39, 0
    s_cbranch_scc1 finish                ; K = 0: no product
    v_mov_b32 v18, v38                   ; &AsT[k][4 ty], k = 0
    v_mov_b32 v19, v39                   ; &Bs[k][4 tx] - 4096
k:
    ds_read_b128 v[40:43], v18, 0        ; a[0..3] = A[m0 + 4 ty .. + 3][k]
    ds_read_b128 v[44:47], v19, 4096     ; b[0..3] = B[k][n0 + 4 tx .. + 3]
    s_waitcnt 0
    ${MAC} v48, v40, v44, v48        ; acc[0][0] = fma(a[0], b[0], acc[0][0])
    ${MAC} v49, v40, v45, v49        ; acc[0][1] = fma(a[0], b[1], acc[0][1])
    ${MAC} v50, v40, v46, v50        ; acc[0][2] = fma(a[0], b[2], acc[0][2])
    ${MAC} v51, v40, v47, v51        ; acc[0][3] = fma(a[0], b[3], acc[0][3])
    ${MAC} v52, v41, v44, v52        ; acc[1][0] = fma(a[1], b[0], acc[1][0])
    ${MAC} v53, v41, v45, v53        ; acc[1][1] = fma(a[1], b[1], acc[1][1])
    ${MAC} v54, v41, v46, v54        ; acc[1][2] = fma(a[1], b[2], acc[1][2])
    ${MAC} v55, v41, v47, v55        ; acc[1][3] = fma(a[1], b[3], acc[1][3])
    ${MAC} v56, v42, v44, v56        ; acc[2][0] = fma(a[2], b[0], acc[2][0])
    ${MAC} v57, v42, v45, v57        ; acc[2][1] = fma(a[2], b[1], acc[2][1])
    ${MAC} v58, v42, v46, v58        ; acc[2][2] = fma(a[2], b[2], acc[2][2])
    ${MAC} v59, v42, v47, v59        ; acc[2][3] = fma(a[2], b[3], acc[2][3])
    ${MAC} v60, v43, v44, v60        ; acc[3][0] = fma(a[3], b[0], acc[3][0])
    ${MAC} v61, v43, v45, v61        ; acc[3][1] = fma(a[3], b[1], acc[3][1])
    ${MAC} v62, v43, v46, v62        ; acc[3][2] = fma(a[3], b[2], acc[3][2])
    ${MAC} v63, v43, v47, v63        ; acc[3][3] = fma(a[3], b[3], acc[3][3])
    v_add_u32 v18, v18, 256              ; next k: one row of AsT
    v_add_u32 v19, v19, 256              ; one row of Bs
    s_sub_u32 s39, s39, 1
    s_cmp_lg_u32 s39, 0
    s_cbranch_scc1 k
.endif

; ---- 4. Alpha, Beta * C, narrow, store: 16 elements, each under its own mask -----------------------
finish:
.if not INTEGER
    v_mul_f32 v48, v48, s64              ; Alpha * acc, rounded once
    v_mul_f32 v49, v49, s64              ; Alpha * acc, rounded once
    v_mul_f32 v50, v50, s64              ; Alpha * acc, rounded once
    v_mul_f32 v51, v51, s64              ; Alpha * acc, rounded once
    v_mul_f32 v52, v52, s64              ; Alpha * acc, rounded once
    v_mul_f32 v53, v53, s64              ; Alpha * acc, rounded once
    v_mul_f32 v54, v54, s64              ; Alpha * acc, rounded once
    v_mul_f32 v55, v55, s64              ; Alpha * acc, rounded once
    v_mul_f32 v56, v56, s64              ; Alpha * acc, rounded once
    v_mul_f32 v57, v57, s64              ; Alpha * acc, rounded once
    v_mul_f32 v58, v58, s64              ; Alpha * acc, rounded once
    v_mul_f32 v59, v59, s64              ; Alpha * acc, rounded once
    v_mul_f32 v60, v60, s64              ; Alpha * acc, rounded once
    v_mul_f32 v61, v61, s64              ; Alpha * acc, rounded once
    v_mul_f32 v62, v62, s64              ; Alpha * acc, rounded once
    v_mul_f32 v63, v63, s64              ; Alpha * acc, rounded once
.endif
    v_lshl_b32 v6, v2, 2
    v_add_u32 v14, s68, v6               ; m = m0 + 4 ty (+ i)
    v_lshl_b32 v6, v1, 2
    v_add_u32 v15, s69, v6               ; n = n0 + 4 tx (+ j)
    v_add_u32 v6, v14, 0
    v_cmp_gt_u32 vcc, s40, v6
    s_mov_b64 s[72:73], vcc         ; m + 0 < M
    v_add_u32 v6, v14, 1
    v_cmp_gt_u32 vcc, s40, v6
    s_mov_b64 s[74:75], vcc         ; m + 1 < M
    v_add_u32 v6, v14, 2
    v_cmp_gt_u32 vcc, s40, v6
    s_mov_b64 s[76:77], vcc         ; m + 2 < M
    v_add_u32 v6, v14, 3
    v_cmp_gt_u32 vcc, s40, v6
    s_mov_b64 s[78:79], vcc         ; m + 3 < M
    v_add_u32 v6, v15, 0
    v_cmp_gt_u32 vcc, s48, v6
    s_mov_b64 s[80:81], vcc         ; n + 0 < N
    v_add_u32 v6, v15, 1
    v_cmp_gt_u32 vcc, s48, v6
    s_mov_b64 s[82:83], vcc         ; n + 1 < N
    v_add_u32 v6, v15, 2
    v_cmp_gt_u32 vcc, s48, v6
    s_mov_b64 s[84:85], vcc         ; n + 2 < N
    v_add_u32 v6, v15, 3
    v_cmp_gt_u32 vcc, s48, v6
    s_mov_b64 s[86:87], vcc         ; n + 3 < N
    v_mad_u32 v16, v14, s47, v13
    v_mad_u32 v16, v15, s55, v16         ; out[m][n]
    v_mad_u32 v17, v14, s46, v12
    v_mad_u32 v17, v15, s54, v17         ; C[m][n]
; ---- QUANTIZED_LINEAR_MATRIX_MULTIPLY (QLINEAR): requantize the 16 exact sums ----------------------
; rows m + i and columns n + j clamped into the matrices (an element past M or N is computed, never
; stored); per element: float(acc) (rounded once) * (AScale[m] * BScale[n] (rounded)), rounded; / OutScale[m],
; correctly rounded; round half to even; + OutZP[m] (exact); saturate to INT8 / UINT8, NaN -> 0.
.if QLINEAR
    s_sub_u32 s104, s40, 1               ; M - 1
    s_sub_u32 s105, s48, 1               ; N - 1
    v_add_u32 v100, v14, 0
    v_min_u32 v100, v100, s104        ; row m + 0, clamped
    v_add_u32 v101, v14, 1
    v_min_u32 v101, v101, s104        ; row m + 1, clamped
    v_add_u32 v102, v14, 2
    v_min_u32 v102, v102, s104        ; row m + 2, clamped
    v_add_u32 v103, v14, 3
    v_min_u32 v103, v103, s104        ; row m + 3, clamped
    v_add_u32 v104, v15, 0
    v_min_u32 v104, v104, s105        ; column n + 0, clamped
    v_add_u32 v105, v15, 1
    v_min_u32 v105, v105, s105        ; column n + 1, clamped
    v_add_u32 v106, v15, 2
    v_min_u32 v106, v106, s105        ; column n + 2, clamped
    v_add_u32 v107, v15, 3
    v_min_u32 v107, v107, s105        ; column n + 3, clamped
    s_load_dwordx4 s[16:19], s[0:1], ${DESC_ASCALE}   ; AScale's descriptor
    s_waitcnt 0
    v_mul_lo_u32 v108, v100, s90
    v_lshl_b32 v108, v108, ${SHIFT_SCALE}
    buffer_load_${LOAD_SCALE} v77, v108, s[16:19], 0   ; AScale[m + 0]
    v_mul_lo_u32 v108, v101, s90
    v_lshl_b32 v108, v108, ${SHIFT_SCALE}
    buffer_load_${LOAD_SCALE} v78, v108, s[16:19], 0   ; AScale[m + 1]
    v_mul_lo_u32 v108, v102, s90
    v_lshl_b32 v108, v108, ${SHIFT_SCALE}
    buffer_load_${LOAD_SCALE} v79, v108, s[16:19], 0   ; AScale[m + 2]
    v_mul_lo_u32 v108, v103, s90
    v_lshl_b32 v108, v108, ${SHIFT_SCALE}
    buffer_load_${LOAD_SCALE} v80, v108, s[16:19], 0   ; AScale[m + 3]
    s_waitcnt 0
.if WIDEN_SCALE
    v_cvt_f32_f16 v77, v77     ; FLOAT16 scale, widened exactly
    v_cvt_f32_f16 v78, v78     ; FLOAT16 scale, widened exactly
    v_cvt_f32_f16 v79, v79     ; FLOAT16 scale, widened exactly
    v_cvt_f32_f16 v80, v80     ; FLOAT16 scale, widened exactly
.endif
    s_load_dwordx4 s[16:19], s[0:1], ${DESC_BSCALE}   ; BScale's descriptor
    s_waitcnt 0
    v_mul_lo_u32 v108, v104, s99
    v_lshl_b32 v108, v108, ${SHIFT_SCALE}
    buffer_load_${LOAD_SCALE} v89, v108, s[16:19], 0   ; BScale[n + 0]
    v_mul_lo_u32 v108, v105, s99
    v_lshl_b32 v108, v108, ${SHIFT_SCALE}
    buffer_load_${LOAD_SCALE} v90, v108, s[16:19], 0   ; BScale[n + 1]
    v_mul_lo_u32 v108, v106, s99
    v_lshl_b32 v108, v108, ${SHIFT_SCALE}
    buffer_load_${LOAD_SCALE} v91, v108, s[16:19], 0   ; BScale[n + 2]
    v_mul_lo_u32 v108, v107, s99
    v_lshl_b32 v108, v108, ${SHIFT_SCALE}
    buffer_load_${LOAD_SCALE} v92, v108, s[16:19], 0   ; BScale[n + 3]
    s_waitcnt 0
.if WIDEN_SCALE
    v_cvt_f32_f16 v89, v89     ; FLOAT16 scale, widened exactly
    v_cvt_f32_f16 v90, v90     ; FLOAT16 scale, widened exactly
    v_cvt_f32_f16 v91, v91     ; FLOAT16 scale, widened exactly
    v_cvt_f32_f16 v92, v92     ; FLOAT16 scale, widened exactly
.endif
.if TO_FLOAT
.if HAS_FBIAS
    s_load_dwordx4 s[16:19], s[0:1], ${DESC_BIAS}   ; BiasTensor's descriptor
    s_waitcnt 0
    v_mul_lo_u32 v108, v104, s102
    v_lshl_b32 v108, v108, ${SHIFT_SCALE}
    buffer_load_${LOAD_SCALE} v93, v108, s[16:19], 0   ; Bias[n + 0]
    v_mul_lo_u32 v108, v105, s102
    v_lshl_b32 v108, v108, ${SHIFT_SCALE}
    buffer_load_${LOAD_SCALE} v94, v108, s[16:19], 0   ; Bias[n + 1]
    v_mul_lo_u32 v108, v106, s102
    v_lshl_b32 v108, v108, ${SHIFT_SCALE}
    buffer_load_${LOAD_SCALE} v95, v108, s[16:19], 0   ; Bias[n + 2]
    v_mul_lo_u32 v108, v107, s102
    v_lshl_b32 v108, v108, ${SHIFT_SCALE}
    buffer_load_${LOAD_SCALE} v96, v108, s[16:19], 0   ; Bias[n + 3]
    s_waitcnt 0
.if WIDEN_SCALE
    v_cvt_f32_f16 v93, v93
    v_cvt_f32_f16 v94, v94
    v_cvt_f32_f16 v95, v95
    v_cvt_f32_f16 v96, v96
.endif
.endif
.else
    s_load_dwordx4 s[16:19], s[0:1], ${DESC_OSCALE}   ; OutScale's descriptor
    s_waitcnt 0
    v_mul_lo_u32 v108, v100, s92
    v_lshl_b32 v108, v108, 2
    buffer_load_dword v81, v108, s[16:19], 0   ; OutScale[m + 0]
    v_mul_lo_u32 v108, v101, s92
    v_lshl_b32 v108, v108, 2
    buffer_load_dword v82, v108, s[16:19], 0   ; OutScale[m + 1]
    v_mul_lo_u32 v108, v102, s92
    v_lshl_b32 v108, v108, 2
    buffer_load_dword v83, v108, s[16:19], 0   ; OutScale[m + 2]
    v_mul_lo_u32 v108, v103, s92
    v_lshl_b32 v108, v108, 2
    buffer_load_dword v84, v108, s[16:19], 0   ; OutScale[m + 3]
    s_waitcnt 0
.if HAS_OZP
    s_load_dwordx4 s[16:19], s[0:1], ${DESC_OZP}   ; OutZP's descriptor
    s_waitcnt 0
    v_mul_lo_u32 v108, v100, s93
    buffer_load_${LOAD_OUT} v85, v108, s[16:19], 0   ; OutZP[m + 0]
    v_mul_lo_u32 v108, v101, s93
    buffer_load_${LOAD_OUT} v86, v108, s[16:19], 0   ; OutZP[m + 1]
    v_mul_lo_u32 v108, v102, s93
    buffer_load_${LOAD_OUT} v87, v108, s[16:19], 0   ; OutZP[m + 2]
    v_mul_lo_u32 v108, v103, s93
    buffer_load_${LOAD_OUT} v88, v108, s[16:19], 0   ; OutZP[m + 3]
    s_waitcnt 0
    v_cvt_f32_i32 v85, v85        ; OutZP, exact
    v_cvt_f32_i32 v86, v86        ; OutZP, exact
    v_cvt_f32_i32 v87, v87        ; OutZP, exact
    v_cvt_f32_i32 v88, v88        ; OutZP, exact
.else
    v_mov_b32 v85, 0
    v_mov_b32 v86, 0
    v_mov_b32 v87, 0
    v_mov_b32 v88, 0
.endif
.endif
.if TO_FLOAT
    v_cvt_f32_i32 v48, v48              ; acc[0][0], rounded once
    v_mul_f32 v108, v77, v89        ; AScale * BScale, rounded
    v_mul_f32 v48, v48, v108              ; rounded once
.if HAS_FBIAS
    v_add_f32 v48, v48, v93        ; + Bias[n], rounded once
.endif
.else
    v_cvt_f32_i32 v48, v48              ; acc[0][0], rounded once
    v_mul_f32 v108, v77, v89        ; AScale * BScale, rounded
    v_mul_f32 v48, v48, v108
    v_div_f32 v48, v48, v81        ; / OutScale, correctly rounded
    v_rndne_f32 v48, v48
    v_add_f32 v48, v48, v85        ; + OutZP
    v_cvt_${OUT_SAT}_f32 v48, v48       ; saturate, NaN -> 0
.endif
.if TO_FLOAT
    v_cvt_f32_i32 v49, v49              ; acc[0][1], rounded once
    v_mul_f32 v108, v77, v90        ; AScale * BScale, rounded
    v_mul_f32 v49, v49, v108              ; rounded once
.if HAS_FBIAS
    v_add_f32 v49, v49, v94        ; + Bias[n], rounded once
.endif
.else
    v_cvt_f32_i32 v49, v49              ; acc[0][1], rounded once
    v_mul_f32 v108, v77, v90        ; AScale * BScale, rounded
    v_mul_f32 v49, v49, v108
    v_div_f32 v49, v49, v81        ; / OutScale, correctly rounded
    v_rndne_f32 v49, v49
    v_add_f32 v49, v49, v85        ; + OutZP
    v_cvt_${OUT_SAT}_f32 v49, v49       ; saturate, NaN -> 0
.endif
.if TO_FLOAT
    v_cvt_f32_i32 v50, v50              ; acc[0][2], rounded once
    v_mul_f32 v108, v77, v91        ; AScale * BScale, rounded
    v_mul_f32 v50, v50, v108              ; rounded once
.if HAS_FBIAS
    v_add_f32 v50, v50, v95        ; + Bias[n], rounded once
.endif
.else
    v_cvt_f32_i32 v50, v50              ; acc[0][2], rounded once
    v_mul_f32 v108, v77, v91        ; AScale * BScale, rounded
    v_mul_f32 v50, v50, v108
    v_div_f32 v50, v50, v81        ; / OutScale, correctly rounded
    v_rndne_f32 v50, v50
    v_add_f32 v50, v50, v85        ; + OutZP
    v_cvt_${OUT_SAT}_f32 v50, v50       ; saturate, NaN -> 0
.endif
.if TO_FLOAT
    v_cvt_f32_i32 v51, v51              ; acc[0][3], rounded once
    v_mul_f32 v108, v77, v92        ; AScale * BScale, rounded
    v_mul_f32 v51, v51, v108              ; rounded once
.if HAS_FBIAS
    v_add_f32 v51, v51, v96        ; + Bias[n], rounded once
.endif
.else
    v_cvt_f32_i32 v51, v51              ; acc[0][3], rounded once
    v_mul_f32 v108, v77, v92        ; AScale * BScale, rounded
    v_mul_f32 v51, v51, v108
    v_div_f32 v51, v51, v81        ; / OutScale, correctly rounded
    v_rndne_f32 v51, v51
    v_add_f32 v51, v51, v85        ; + OutZP
    v_cvt_${OUT_SAT}_f32 v51, v51       ; saturate, NaN -> 0
.endif
.if TO_FLOAT
    v_cvt_f32_i32 v52, v52              ; acc[1][0], rounded once
    v_mul_f32 v108, v78, v89        ; AScale * BScale, rounded
    v_mul_f32 v52, v52, v108              ; rounded once
.if HAS_FBIAS
    v_add_f32 v52, v52, v93        ; + Bias[n], rounded once
.endif
.else
    v_cvt_f32_i32 v52, v52              ; acc[1][0], rounded once
    v_mul_f32 v108, v78, v89        ; AScale * BScale, rounded
    v_mul_f32 v52, v52, v108
    v_div_f32 v52, v52, v82        ; / OutScale, correctly rounded
    v_rndne_f32 v52, v52
    v_add_f32 v52, v52, v86        ; + OutZP
    v_cvt_${OUT_SAT}_f32 v52, v52       ; saturate, NaN -> 0
.endif
.if TO_FLOAT
    v_cvt_f32_i32 v53, v53              ; acc[1][1], rounded once
    v_mul_f32 v108, v78, v90        ; AScale * BScale, rounded
    v_mul_f32 v53, v53, v108              ; rounded once
.if HAS_FBIAS
    v_add_f32 v53, v53, v94        ; + Bias[n], rounded once
.endif
.else
    v_cvt_f32_i32 v53, v53              ; acc[1][1], rounded once
    v_mul_f32 v108, v78, v90        ; AScale * BScale, rounded
    v_mul_f32 v53, v53, v108
    v_div_f32 v53, v53, v82        ; / OutScale, correctly rounded
    v_rndne_f32 v53, v53
    v_add_f32 v53, v53, v86        ; + OutZP
    v_cvt_${OUT_SAT}_f32 v53, v53       ; saturate, NaN -> 0
.endif
.if TO_FLOAT
    v_cvt_f32_i32 v54, v54              ; acc[1][2], rounded once
    v_mul_f32 v108, v78, v91        ; AScale * BScale, rounded
    v_mul_f32 v54, v54, v108              ; rounded once
.if HAS_FBIAS
    v_add_f32 v54, v54, v95        ; + Bias[n], rounded once
.endif
.else
    v_cvt_f32_i32 v54, v54              ; acc[1][2], rounded once
    v_mul_f32 v108, v78, v91        ; AScale * BScale, rounded
    v_mul_f32 v54, v54, v108
    v_div_f32 v54, v54, v82        ; / OutScale, correctly rounded
    v_rndne_f32 v54, v54
    v_add_f32 v54, v54, v86        ; + OutZP
    v_cvt_${OUT_SAT}_f32 v54, v54       ; saturate, NaN -> 0
.endif
.if TO_FLOAT
    v_cvt_f32_i32 v55, v55              ; acc[1][3], rounded once
    v_mul_f32 v108, v78, v92        ; AScale * BScale, rounded
    v_mul_f32 v55, v55, v108              ; rounded once
.if HAS_FBIAS
    v_add_f32 v55, v55, v96        ; + Bias[n], rounded once
.endif
.else
    v_cvt_f32_i32 v55, v55              ; acc[1][3], rounded once
    v_mul_f32 v108, v78, v92        ; AScale * BScale, rounded
    v_mul_f32 v55, v55, v108
    v_div_f32 v55, v55, v82        ; / OutScale, correctly rounded
    v_rndne_f32 v55, v55
    v_add_f32 v55, v55, v86        ; + OutZP
    v_cvt_${OUT_SAT}_f32 v55, v55       ; saturate, NaN -> 0
.endif
.if TO_FLOAT
    v_cvt_f32_i32 v56, v56              ; acc[2][0], rounded once
    v_mul_f32 v108, v79, v89        ; AScale * BScale, rounded
    v_mul_f32 v56, v56, v108              ; rounded once
.if HAS_FBIAS
    v_add_f32 v56, v56, v93        ; + Bias[n], rounded once
.endif
.else
    v_cvt_f32_i32 v56, v56              ; acc[2][0], rounded once
    v_mul_f32 v108, v79, v89        ; AScale * BScale, rounded
    v_mul_f32 v56, v56, v108
    v_div_f32 v56, v56, v83        ; / OutScale, correctly rounded
    v_rndne_f32 v56, v56
    v_add_f32 v56, v56, v87        ; + OutZP
    v_cvt_${OUT_SAT}_f32 v56, v56       ; saturate, NaN -> 0
.endif
.if TO_FLOAT
    v_cvt_f32_i32 v57, v57              ; acc[2][1], rounded once
    v_mul_f32 v108, v79, v90        ; AScale * BScale, rounded
    v_mul_f32 v57, v57, v108              ; rounded once
.if HAS_FBIAS
    v_add_f32 v57, v57, v94        ; + Bias[n], rounded once
.endif
.else
    v_cvt_f32_i32 v57, v57              ; acc[2][1], rounded once
    v_mul_f32 v108, v79, v90        ; AScale * BScale, rounded
    v_mul_f32 v57, v57, v108
    v_div_f32 v57, v57, v83        ; / OutScale, correctly rounded
    v_rndne_f32 v57, v57
    v_add_f32 v57, v57, v87        ; + OutZP
    v_cvt_${OUT_SAT}_f32 v57, v57       ; saturate, NaN -> 0
.endif
.if TO_FLOAT
    v_cvt_f32_i32 v58, v58              ; acc[2][2], rounded once
    v_mul_f32 v108, v79, v91        ; AScale * BScale, rounded
    v_mul_f32 v58, v58, v108              ; rounded once
.if HAS_FBIAS
    v_add_f32 v58, v58, v95        ; + Bias[n], rounded once
.endif
.else
    v_cvt_f32_i32 v58, v58              ; acc[2][2], rounded once
    v_mul_f32 v108, v79, v91        ; AScale * BScale, rounded
    v_mul_f32 v58, v58, v108
    v_div_f32 v58, v58, v83        ; / OutScale, correctly rounded
    v_rndne_f32 v58, v58
    v_add_f32 v58, v58, v87        ; + OutZP
    v_cvt_${OUT_SAT}_f32 v58, v58       ; saturate, NaN -> 0
.endif
.if TO_FLOAT
    v_cvt_f32_i32 v59, v59              ; acc[2][3], rounded once
    v_mul_f32 v108, v79, v92        ; AScale * BScale, rounded
    v_mul_f32 v59, v59, v108              ; rounded once
.if HAS_FBIAS
    v_add_f32 v59, v59, v96        ; + Bias[n], rounded once
.endif
.else
    v_cvt_f32_i32 v59, v59              ; acc[2][3], rounded once
    v_mul_f32 v108, v79, v92        ; AScale * BScale, rounded
    v_mul_f32 v59, v59, v108
    v_div_f32 v59, v59, v83        ; / OutScale, correctly rounded
    v_rndne_f32 v59, v59
    v_add_f32 v59, v59, v87        ; + OutZP
    v_cvt_${OUT_SAT}_f32 v59, v59       ; saturate, NaN -> 0
.endif
.if TO_FLOAT
    v_cvt_f32_i32 v60, v60              ; acc[3][0], rounded once
    v_mul_f32 v108, v80, v89        ; AScale * BScale, rounded
    v_mul_f32 v60, v60, v108              ; rounded once
.if HAS_FBIAS
    v_add_f32 v60, v60, v93        ; + Bias[n], rounded once
.endif
.else
    v_cvt_f32_i32 v60, v60              ; acc[3][0], rounded once
    v_mul_f32 v108, v80, v89        ; AScale * BScale, rounded
    v_mul_f32 v60, v60, v108
    v_div_f32 v60, v60, v84        ; / OutScale, correctly rounded
    v_rndne_f32 v60, v60
    v_add_f32 v60, v60, v88        ; + OutZP
    v_cvt_${OUT_SAT}_f32 v60, v60       ; saturate, NaN -> 0
.endif
.if TO_FLOAT
    v_cvt_f32_i32 v61, v61              ; acc[3][1], rounded once
    v_mul_f32 v108, v80, v90        ; AScale * BScale, rounded
    v_mul_f32 v61, v61, v108              ; rounded once
.if HAS_FBIAS
    v_add_f32 v61, v61, v94        ; + Bias[n], rounded once
.endif
.else
    v_cvt_f32_i32 v61, v61              ; acc[3][1], rounded once
    v_mul_f32 v108, v80, v90        ; AScale * BScale, rounded
    v_mul_f32 v61, v61, v108
    v_div_f32 v61, v61, v84        ; / OutScale, correctly rounded
    v_rndne_f32 v61, v61
    v_add_f32 v61, v61, v88        ; + OutZP
    v_cvt_${OUT_SAT}_f32 v61, v61       ; saturate, NaN -> 0
.endif
.if TO_FLOAT
    v_cvt_f32_i32 v62, v62              ; acc[3][2], rounded once
    v_mul_f32 v108, v80, v91        ; AScale * BScale, rounded
    v_mul_f32 v62, v62, v108              ; rounded once
.if HAS_FBIAS
    v_add_f32 v62, v62, v95        ; + Bias[n], rounded once
.endif
.else
    v_cvt_f32_i32 v62, v62              ; acc[3][2], rounded once
    v_mul_f32 v108, v80, v91        ; AScale * BScale, rounded
    v_mul_f32 v62, v62, v108
    v_div_f32 v62, v62, v84        ; / OutScale, correctly rounded
    v_rndne_f32 v62, v62
    v_add_f32 v62, v62, v88        ; + OutZP
    v_cvt_${OUT_SAT}_f32 v62, v62       ; saturate, NaN -> 0
.endif
.if TO_FLOAT
    v_cvt_f32_i32 v63, v63              ; acc[3][3], rounded once
    v_mul_f32 v108, v80, v92        ; AScale * BScale, rounded
    v_mul_f32 v63, v63, v108              ; rounded once
.if HAS_FBIAS
    v_add_f32 v63, v63, v96        ; + Bias[n], rounded once
.endif
.else
    v_cvt_f32_i32 v63, v63              ; acc[3][3], rounded once
    v_mul_f32 v108, v80, v92        ; AScale * BScale, rounded
    v_mul_f32 v63, v63, v108
    v_div_f32 v63, v63, v84        ; / OutScale, correctly rounded
    v_rndne_f32 v63, v63
    v_add_f32 v63, v63, v88        ; + OutZP
    v_cvt_${OUT_SAT}_f32 v63, v63       ; saturate, NaN -> 0
.endif
.endif
    v_mov_b32 v18, v16
    v_mov_b32 v19, v17
    s_and_b64 exec, s[72:73], s[80:81]    ; element [0][0] inside the output
    s_cbranch_execz skip_00
.if HAS_C
    v_lshl_b32 v20, v19, ${SHIFT}
    buffer_load_${LOAD} v21, v20, s[16:19], 0
    s_waitcnt 0
.if WIDEN_F16
    v_cvt_f32_f16 v21, v21
.endif
    v_fma_f32 v48, s65, v21, v48       ; fma(Beta, C, Alpha * acc): one rounding
.endif
.if not HAS_ACT
.if NARROW_F16
    v_cvt_f16_f32 v48, v48             ; FLOAT16: rounded once, to nearest even
.endif
    v_lshl_b32 v20, v18, ${SHIFT}
    buffer_store_${STORE} v48, v20, s[20:23], 0
.endif
skip_00:
    s_mov_b64 exec, s[66:67]
    v_add_u32 v18, v18, s55
    v_add_u32 v19, v19, s54
    s_and_b64 exec, s[72:73], s[82:83]    ; element [0][1] inside the output
    s_cbranch_execz skip_01
.if HAS_C
    v_lshl_b32 v20, v19, ${SHIFT}
    buffer_load_${LOAD} v21, v20, s[16:19], 0
    s_waitcnt 0
.if WIDEN_F16
    v_cvt_f32_f16 v21, v21
.endif
    v_fma_f32 v49, s65, v21, v49       ; fma(Beta, C, Alpha * acc): one rounding
.endif
.if not HAS_ACT
.if NARROW_F16
    v_cvt_f16_f32 v49, v49             ; FLOAT16: rounded once, to nearest even
.endif
    v_lshl_b32 v20, v18, ${SHIFT}
    buffer_store_${STORE} v49, v20, s[20:23], 0
.endif
skip_01:
    s_mov_b64 exec, s[66:67]
    v_add_u32 v18, v18, s55
    v_add_u32 v19, v19, s54
    s_and_b64 exec, s[72:73], s[84:85]    ; element [0][2] inside the output
    s_cbranch_execz skip_02
.if HAS_C
    v_lshl_b32 v20, v19, ${SHIFT}
    buffer_load_${LOAD} v21, v20, s[16:19], 0
    s_waitcnt 0
.if WIDEN_F16
    v_cvt_f32_f16 v21, v21
.endif
    v_fma_f32 v50, s65, v21, v50       ; fma(Beta, C, Alpha * acc): one rounding
.endif
.if not HAS_ACT
.if NARROW_F16
    v_cvt_f16_f32 v50, v50             ; FLOAT16: rounded once, to nearest even
.endif
    v_lshl_b32 v20, v18, ${SHIFT}
    buffer_store_${STORE} v50, v20, s[20:23], 0
.endif
skip_02:
    s_mov_b64 exec, s[66:67]
    v_add_u32 v18, v18, s55
    v_add_u32 v19, v19, s54
    s_and_b64 exec, s[72:73], s[86:87]    ; element [0][3] inside the output
    s_cbranch_execz skip_03
.if HAS_C
    v_lshl_b32 v20, v19, ${SHIFT}
    buffer_load_${LOAD} v21, v20, s[16:19], 0
    s_waitcnt 0
.if WIDEN_F16
    v_cvt_f32_f16 v21, v21
.endif
    v_fma_f32 v51, s65, v21, v51       ; fma(Beta, C, Alpha * acc): one rounding
.endif
.if not HAS_ACT
.if NARROW_F16
    v_cvt_f16_f32 v51, v51             ; FLOAT16: rounded once, to nearest even
.endif
    v_lshl_b32 v20, v18, ${SHIFT}
    buffer_store_${STORE} v51, v20, s[20:23], 0
.endif
skip_03:
    s_mov_b64 exec, s[66:67]
    v_add_u32 v16, v16, s47               ; the next row
    v_add_u32 v17, v17, s46
    v_mov_b32 v18, v16
    v_mov_b32 v19, v17
    s_and_b64 exec, s[74:75], s[80:81]    ; element [1][0] inside the output
    s_cbranch_execz skip_10
.if HAS_C
    v_lshl_b32 v20, v19, ${SHIFT}
    buffer_load_${LOAD} v21, v20, s[16:19], 0
    s_waitcnt 0
.if WIDEN_F16
    v_cvt_f32_f16 v21, v21
.endif
    v_fma_f32 v52, s65, v21, v52       ; fma(Beta, C, Alpha * acc): one rounding
.endif
.if not HAS_ACT
.if NARROW_F16
    v_cvt_f16_f32 v52, v52             ; FLOAT16: rounded once, to nearest even
.endif
    v_lshl_b32 v20, v18, ${SHIFT}
    buffer_store_${STORE} v52, v20, s[20:23], 0
.endif
skip_10:
    s_mov_b64 exec, s[66:67]
    v_add_u32 v18, v18, s55
    v_add_u32 v19, v19, s54
    s_and_b64 exec, s[74:75], s[82:83]    ; element [1][1] inside the output
    s_cbranch_execz skip_11
.if HAS_C
    v_lshl_b32 v20, v19, ${SHIFT}
    buffer_load_${LOAD} v21, v20, s[16:19], 0
    s_waitcnt 0
.if WIDEN_F16
    v_cvt_f32_f16 v21, v21
.endif
    v_fma_f32 v53, s65, v21, v53       ; fma(Beta, C, Alpha * acc): one rounding
.endif
.if not HAS_ACT
.if NARROW_F16
    v_cvt_f16_f32 v53, v53             ; FLOAT16: rounded once, to nearest even
.endif
    v_lshl_b32 v20, v18, ${SHIFT}
    buffer_store_${STORE} v53, v20, s[20:23], 0
.endif
skip_11:
    s_mov_b64 exec, s[66:67]
    v_add_u32 v18, v18, s55
    v_add_u32 v19, v19, s54
    s_and_b64 exec, s[74:75], s[84:85]    ; element [1][2] inside the output
    s_cbranch_execz skip_12
.if HAS_C
    v_lshl_b32 v20, v19, ${SHIFT}
    buffer_load_${LOAD} v21, v20, s[16:19], 0
    s_waitcnt 0
.if WIDEN_F16
    v_cvt_f32_f16 v21, v21
.endif
    v_fma_f32 v54, s65, v21, v54       ; fma(Beta, C, Alpha * acc): one rounding
.endif
.if not HAS_ACT
.if NARROW_F16
    v_cvt_f16_f32 v54, v54             ; FLOAT16: rounded once, to nearest even
.endif
    v_lshl_b32 v20, v18, ${SHIFT}
    buffer_store_${STORE} v54, v20, s[20:23], 0
.endif
skip_12:
    s_mov_b64 exec, s[66:67]
    v_add_u32 v18, v18, s55
    v_add_u32 v19, v19, s54
    s_and_b64 exec, s[74:75], s[86:87]    ; element [1][3] inside the output
    s_cbranch_execz skip_13
.if HAS_C
    v_lshl_b32 v20, v19, ${SHIFT}
    buffer_load_${LOAD} v21, v20, s[16:19], 0
    s_waitcnt 0
.if WIDEN_F16
    v_cvt_f32_f16 v21, v21
.endif
    v_fma_f32 v55, s65, v21, v55       ; fma(Beta, C, Alpha * acc): one rounding
.endif
.if not HAS_ACT
.if NARROW_F16
    v_cvt_f16_f32 v55, v55             ; FLOAT16: rounded once, to nearest even
.endif
    v_lshl_b32 v20, v18, ${SHIFT}
    buffer_store_${STORE} v55, v20, s[20:23], 0
.endif
skip_13:
    s_mov_b64 exec, s[66:67]
    v_add_u32 v16, v16, s47               ; the next row
    v_add_u32 v17, v17, s46
    v_mov_b32 v18, v16
    v_mov_b32 v19, v17
    s_and_b64 exec, s[76:77], s[80:81]    ; element [2][0] inside the output
    s_cbranch_execz skip_20
.if HAS_C
    v_lshl_b32 v20, v19, ${SHIFT}
    buffer_load_${LOAD} v21, v20, s[16:19], 0
    s_waitcnt 0
.if WIDEN_F16
    v_cvt_f32_f16 v21, v21
.endif
    v_fma_f32 v56, s65, v21, v56       ; fma(Beta, C, Alpha * acc): one rounding
.endif
.if not HAS_ACT
.if NARROW_F16
    v_cvt_f16_f32 v56, v56             ; FLOAT16: rounded once, to nearest even
.endif
    v_lshl_b32 v20, v18, ${SHIFT}
    buffer_store_${STORE} v56, v20, s[20:23], 0
.endif
skip_20:
    s_mov_b64 exec, s[66:67]
    v_add_u32 v18, v18, s55
    v_add_u32 v19, v19, s54
    s_and_b64 exec, s[76:77], s[82:83]    ; element [2][1] inside the output
    s_cbranch_execz skip_21
.if HAS_C
    v_lshl_b32 v20, v19, ${SHIFT}
    buffer_load_${LOAD} v21, v20, s[16:19], 0
    s_waitcnt 0
.if WIDEN_F16
    v_cvt_f32_f16 v21, v21
.endif
    v_fma_f32 v57, s65, v21, v57       ; fma(Beta, C, Alpha * acc): one rounding
.endif
.if not HAS_ACT
.if NARROW_F16
    v_cvt_f16_f32 v57, v57             ; FLOAT16: rounded once, to nearest even
.endif
    v_lshl_b32 v20, v18, ${SHIFT}
    buffer_store_${STORE} v57, v20, s[20:23], 0
.endif
skip_21:
    s_mov_b64 exec, s[66:67]
    v_add_u32 v18, v18, s55
    v_add_u32 v19, v19, s54
    s_and_b64 exec, s[76:77], s[84:85]    ; element [2][2] inside the output
    s_cbranch_execz skip_22
.if HAS_C
    v_lshl_b32 v20, v19, ${SHIFT}
    buffer_load_${LOAD} v21, v20, s[16:19], 0
    s_waitcnt 0
.if WIDEN_F16
    v_cvt_f32_f16 v21, v21
.endif
    v_fma_f32 v58, s65, v21, v58       ; fma(Beta, C, Alpha * acc): one rounding
.endif
.if not HAS_ACT
.if NARROW_F16
    v_cvt_f16_f32 v58, v58             ; FLOAT16: rounded once, to nearest even
.endif
    v_lshl_b32 v20, v18, ${SHIFT}
    buffer_store_${STORE} v58, v20, s[20:23], 0
.endif
skip_22:
    s_mov_b64 exec, s[66:67]
    v_add_u32 v18, v18, s55
    v_add_u32 v19, v19, s54
    s_and_b64 exec, s[76:77], s[86:87]    ; element [2][3] inside the output
    s_cbranch_execz skip_23
.if HAS_C
    v_lshl_b32 v20, v19, ${SHIFT}
    buffer_load_${LOAD} v21, v20, s[16:19], 0
    s_waitcnt 0
.if WIDEN_F16
    v_cvt_f32_f16 v21, v21
.endif
    v_fma_f32 v59, s65, v21, v59       ; fma(Beta, C, Alpha * acc): one rounding
.endif
.if not HAS_ACT
.if NARROW_F16
    v_cvt_f16_f32 v59, v59             ; FLOAT16: rounded once, to nearest even
.endif
    v_lshl_b32 v20, v18, ${SHIFT}
    buffer_store_${STORE} v59, v20, s[20:23], 0
.endif
skip_23:
    s_mov_b64 exec, s[66:67]
    v_add_u32 v16, v16, s47               ; the next row
    v_add_u32 v17, v17, s46
    v_mov_b32 v18, v16
    v_mov_b32 v19, v17
    s_and_b64 exec, s[78:79], s[80:81]    ; element [3][0] inside the output
    s_cbranch_execz skip_30
.if HAS_C
    v_lshl_b32 v20, v19, ${SHIFT}
    buffer_load_${LOAD} v21, v20, s[16:19], 0
    s_waitcnt 0
.if WIDEN_F16
    v_cvt_f32_f16 v21, v21
.endif
    v_fma_f32 v60, s65, v21, v60       ; fma(Beta, C, Alpha * acc): one rounding
.endif
.if not HAS_ACT
.if NARROW_F16
    v_cvt_f16_f32 v60, v60             ; FLOAT16: rounded once, to nearest even
.endif
    v_lshl_b32 v20, v18, ${SHIFT}
    buffer_store_${STORE} v60, v20, s[20:23], 0
.endif
skip_30:
    s_mov_b64 exec, s[66:67]
    v_add_u32 v18, v18, s55
    v_add_u32 v19, v19, s54
    s_and_b64 exec, s[78:79], s[82:83]    ; element [3][1] inside the output
    s_cbranch_execz skip_31
.if HAS_C
    v_lshl_b32 v20, v19, ${SHIFT}
    buffer_load_${LOAD} v21, v20, s[16:19], 0
    s_waitcnt 0
.if WIDEN_F16
    v_cvt_f32_f16 v21, v21
.endif
    v_fma_f32 v61, s65, v21, v61       ; fma(Beta, C, Alpha * acc): one rounding
.endif
.if not HAS_ACT
.if NARROW_F16
    v_cvt_f16_f32 v61, v61             ; FLOAT16: rounded once, to nearest even
.endif
    v_lshl_b32 v20, v18, ${SHIFT}
    buffer_store_${STORE} v61, v20, s[20:23], 0
.endif
skip_31:
    s_mov_b64 exec, s[66:67]
    v_add_u32 v18, v18, s55
    v_add_u32 v19, v19, s54
    s_and_b64 exec, s[78:79], s[84:85]    ; element [3][2] inside the output
    s_cbranch_execz skip_32
.if HAS_C
    v_lshl_b32 v20, v19, ${SHIFT}
    buffer_load_${LOAD} v21, v20, s[16:19], 0
    s_waitcnt 0
.if WIDEN_F16
    v_cvt_f32_f16 v21, v21
.endif
    v_fma_f32 v62, s65, v21, v62       ; fma(Beta, C, Alpha * acc): one rounding
.endif
.if not HAS_ACT
.if NARROW_F16
    v_cvt_f16_f32 v62, v62             ; FLOAT16: rounded once, to nearest even
.endif
    v_lshl_b32 v20, v18, ${SHIFT}
    buffer_store_${STORE} v62, v20, s[20:23], 0
.endif
skip_32:
    s_mov_b64 exec, s[66:67]
    v_add_u32 v18, v18, s55
    v_add_u32 v19, v19, s54
    s_and_b64 exec, s[78:79], s[86:87]    ; element [3][3] inside the output
    s_cbranch_execz skip_33
.if HAS_C
    v_lshl_b32 v20, v19, ${SHIFT}
    buffer_load_${LOAD} v21, v20, s[16:19], 0
    s_waitcnt 0
.if WIDEN_F16
    v_cvt_f32_f16 v21, v21
.endif
    v_fma_f32 v63, s65, v21, v63       ; fma(Beta, C, Alpha * acc): one rounding
.endif
.if not HAS_ACT
.if NARROW_F16
    v_cvt_f16_f32 v63, v63             ; FLOAT16: rounded once, to nearest even
.endif
    v_lshl_b32 v20, v18, ${SHIFT}
    buffer_store_${STORE} v63, v20, s[20:23], 0
.endif
skip_33:
    s_mov_b64 exec, s[66:67]
.if HAS_ACT
; ---- 5. the FusedActivation: the activation operator's own body (element_wise_bodies.inc) on v10 -----
; The body may use v10 .. v99 and the attribute registers s44 .. s51 (P_<NAME>), so the 16 results move
; to v100 .. v115 and what the stores need to v116 .. v118 and s88 .. s90; then one element at a time:
; v10 = v100, the body, narrow, store under the element's mask, and v100 .. v115 move down by one.
    v_mad_u32 v116, v14, s47, v13
    v_mad_u32 v116, v15, s55, v116       ; out[m][n]
    v_mov_b32 v117, v14                  ; m
    v_mov_b32 v118, v15                  ; n
    s_mov_b32 s88, s47                   ; out_m
    s_mov_b32 s89, s55                   ; out_n
    s_mov_b32 s90, s48                   ; N
    v_mov_b32 v100, v48
    v_mov_b32 v101, v49
    v_mov_b32 v102, v50
    v_mov_b32 v103, v51
    v_mov_b32 v104, v52
    v_mov_b32 v105, v53
    v_mov_b32 v106, v54
    v_mov_b32 v107, v55
    v_mov_b32 v108, v56
    v_mov_b32 v109, v57
    v_mov_b32 v110, v58
    v_mov_b32 v111, v59
    v_mov_b32 v112, v60
    v_mov_b32 v113, v61
    v_mov_b32 v114, v62
    v_mov_b32 v115, v63
    s_load_dwordx4 s[44:47], s[2:3], ${CB_PARAM2}   ; the activation's attributes (P_<NAME>)
    s_waitcnt 0
    s_mov_b32 s91, 0                     ; e = 4 i + j: the element
act_next:
    s_lshr_b32 s92, s91, 2               ; i
    s_and_b32 s93, s91, 3                ; j
    v_mov_b32 v10, v100
.include "element_wise_bodies.inc"       ; BODY: the activation's
.if CANONICALIZE
    v_mul_f32 v10, v10, 1.0              ; a selected NaN becomes the canonical NaN
.endif
.if NARROW_F16
    v_cvt_f16_f32 v10, v10               ; FLOAT16: rounded once, to nearest even
.endif
    v_add_u32 v119, s92, v117
    v_cmp_gt_u32 vcc, s40, v119          ; m + i < M
    s_and_b64 exec, exec, vcc
    v_add_u32 v119, s93, v118
    v_cmp_gt_u32 vcc, s90, v119          ; n + j < N
    s_and_b64 exec, exec, vcc
    s_mul_i32 s94, s92, s88
    s_mul_i32 s95, s93, s89
    s_add_u32 s94, s94, s95
    v_add_u32 v119, s94, v116            ; out[m + i][n + j]
    v_lshl_b32 v119, v119, ${SHIFT}
    buffer_store_${STORE} v10, v119, s[20:23], 0
    s_mov_b64 exec, s[66:67]
    v_mov_b32 v100, v101
    v_mov_b32 v101, v102
    v_mov_b32 v102, v103
    v_mov_b32 v103, v104
    v_mov_b32 v104, v105
    v_mov_b32 v105, v106
    v_mov_b32 v106, v107
    v_mov_b32 v107, v108
    v_mov_b32 v108, v109
    v_mov_b32 v109, v110
    v_mov_b32 v110, v111
    v_mov_b32 v111, v112
    v_mov_b32 v112, v113
    v_mov_b32 v113, v114
    v_mov_b32 v114, v115
    s_add_u32 s91, s91, 1
    s_cmp_lt_u32 s91, 16
    s_cbranch_scc1 act_next
.endif
.if WIDE
    s_cmp_eq_u32 s41, 1
    s_cbranch_scc1 wide_end              ; both halves stored
    s_mov_b32 s41, 1
    s_add_u32 s68, s68, 64               ; the second 64 rows: acc1 through the same step 4
    v_mov_b32 v48, v72
    v_mov_b32 v49, v73
    v_mov_b32 v50, v74
    v_mov_b32 v51, v75
    v_mov_b32 v52, v76
    v_mov_b32 v53, v77
    v_mov_b32 v54, v78
    v_mov_b32 v55, v79
    v_mov_b32 v56, v80
    v_mov_b32 v57, v81
    v_mov_b32 v58, v82
    v_mov_b32 v59, v83
    v_mov_b32 v60, v84
    v_mov_b32 v61, v85
    v_mov_b32 v62, v86
    v_mov_b32 v63, v87
    s_branch finish
wide_end:
.endif
.if WMMA
    s_add_u32 s97, s97, 1
    s_cmp_lt_u32 s97, 4
    s_cbranch_scc1 wmma_part             ; the next wave's 32 x 64 part through the same step 4
.endif
    s_endpgm
