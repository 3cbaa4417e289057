; =============================================================================================
; gemm.s: DML_OPERATOR_GEMM. Output = Alpha * (A x B) + Beta * C, for every batch of the leading
; dimensions; the order of every operation is docs/NUMERICS.md's "GEMM", whatever the wave width.
;
; Launch (kernels/gemm_ops.py): a grid of workgroups (X, Y, Z) = (ceil(N / 16), ceil(M / 16), batches)
; of 16 x 16 threads; s4, s5, s6 are the group's X, Y, Z, v1 = tx, v2 = ty (docs/KERNEL_ABI.md).
; Thread (tx, ty) of group (X, Y, Z) computes the output element at row m = 16 Y + ty, column
; n = 16 X + tx of batch Z, as sgemm_tiled.s does, with any strides, transposes and edges:
;
;   1. K goes in tiles of 16: the 256 threads copy As[ty][tx] = A[m][k0 + tx] and
;      Bs[ty][tx] = B[k0 + ty][n] into LDS (FLOAT16 widened to FLOAT32, exact); a thread whose
;      element is outside the matrix (m >= M, n >= N, k >= K) writes 0 and loads nothing;
;   2. s_barrier; a whole tile runs 16 fused multiply-adds unrolled, acc = fma(As[ty][k], Bs[k][tx],
;      acc) for k ascending; the last tile of K mod 16 elements runs exactly that many, one at a
;      time, so that no fma(0, b, acc) is ever added (it would turn a -0 sum into +0);
;   3. s_barrier before the next tile overwrites LDS;
;   4. acc = Alpha * acc (one rounding); with C, acc = fma(Beta, C[m][n], acc); FLOAT16 rounds once;
;      threads with m < M and n < N store.
;
; The addresses of A, B, C and the output are element offsets from per-dimension strides: TransA
; and TransB only swap the strides the driver gives for (m, k) and (k, n), so a transposed operand
; costs nothing here. acc starts at -0 (the identity of addition: a sum of -0 products stays -0).
;
; Constant buffer (kernels/constant_buffer.py's RECORDS and PARAM fields; gemm_ops.py packs them):
;   record 0  the inner batch dimension: size, division magic, strides of A, B, C, the output
;   record 1  the outer batch dimension: size, (unused), strides of A, B, C, the output
;   record 2  M: size, -, strides A_m, 0, C_m, out_m     record 3  N: size, -, 0, B_n, C_n, out_n
;   record 4  K: size, -, A_k, B_k, 0, 0                  PARAM0, PARAM1: Alpha, Beta (FLOAT32)
; =============================================================================================
    s_load_dwordx4 s[8:11], s[0:1], ${DESC_T0}      ; A's buffer descriptor
    s_load_dwordx4 s[12:15], s[0:1], ${DESC_T1}     ; B's
.if HAS_C
    s_load_dwordx4 s[16:19], s[0:1], ${DESC_T2}     ; C's
.endif
    s_load_dwordx4 s[20:23], s[0:1], ${DESC_T3}     ; the output's
    s_load_dwordx8 s[24:31], s[2:3], ${REC_0}       ; D1, magic, shift1, shift2, strides A, B, C, out
    s_load_dwordx8 s[32:39], s[2:3], ${REC_1}       ; D0, -, -, -, strides A, B, C, out
    s_load_dwordx8 s[40:47], s[2:3], ${REC_M}       ; M, -, -, -, A_m, 0, C_m, out_m
    s_load_dwordx8 s[48:55], s[2:3], ${REC_N}       ; N, -, -, -, 0, B_n, C_n, out_n
    s_load_dwordx8 s[56:63], s[2:3], ${REC_K}       ; K, -, -, -, A_k, B_k, 0, 0
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

; ---- this thread's row and column, where it loads A and B from, where it puts them in LDS ---------
    s_lshl_b32 s68, s5, 4                ; m0 = 16 Y
    s_lshl_b32 s69, s4, 4                ; n0 = 16 X
    v_add_u32 v14, s68, v2               ; m = m0 + ty
    v_add_u32 v15, s69, v1               ; n = n0 + tx
    v_mad_u32 v16, v14, s44, v10
    v_mad_u32 v16, v1, s60, v16          ; A[m][tx]: the element this thread copies (k0 = 0)
    v_mad_u32 v17, v15, s53, v11
    v_mad_u32 v17, v2, s61, v17          ; B[ty][n]
    s_lshl_b32 s70, s60, 4               ; 16 A_k: A's next tile
    s_lshl_b32 s71, s61, 4               ; 16 B_k: B's next tile
    v_cmp_gt_u32 vcc, s40, v14
    s_mov_b64 s[72:73], vcc              ; m < M
    v_cmp_gt_u32 vcc, s48, v15
    s_mov_b64 s[74:75], vcc              ; n < N
    v_lshl_b32 v18, v0, 2                ; ty * 64 + tx * 4: As[ty][tx] (and + 1024: Bs[ty][tx])
    v_lshl_b32 v19, v2, 6                ; ty * 64: As[ty][0]
    v_lshl_b32 v20, v1, 2                ; tx * 4: Bs[0][tx] - 1024
    v_mov_b32 v21, 0x80000000            ; acc = -0
    s_mov_b32 s76, s56                   ; k left: K

; ---- 1. one tile of A and B into LDS --------------------------------------------------------------
tile:
    v_mov_b32 v22, 0
    v_mov_b32 v23, 0
    v_cmp_gt_u32 vcc, s76, v1            ; tx < k left
    s_and_b64 exec, vcc, s[72:73]        ; ... and m < M: load A[m][k0 + tx]
    v_lshl_b32 v24, v16, ${SHIFT}
    buffer_load_${LOAD} v22, v24, s[8:11], 0
    s_mov_b64 exec, s[66:67]
    v_cmp_gt_u32 vcc, s76, v2            ; ty < k left
    s_and_b64 exec, vcc, s[74:75]        ; ... and n < N: load B[k0 + ty][n]
    v_lshl_b32 v25, v17, ${SHIFT}
    buffer_load_${LOAD} v23, v25, s[12:15], 0
    s_mov_b64 exec, s[66:67]
    s_waitcnt 0
.if WIDEN_F16
    v_cvt_f32_f16 v22, v22               ; FLOAT16: exact in FLOAT32
    v_cvt_f32_f16 v23, v23
.endif
    ds_write_b32 v18, v22, 0             ; As[ty][tx]
    ds_write_b32 v18, v23, 1024          ; Bs[ty][tx]
    s_barrier                            ; both tiles complete
    s_cmp_lt_u32 s76, 16
    s_cbranch_scc1 partial               ; the last tile of K mod 16

; ---- 2. a whole tile: 16 fmas, unrolled ----------------------------------------------------------
    ds_read_b128 v[32:35], v19, 0        ; As[ty][0 .. 3]
    ds_read_b128 v[36:39], v19, 16       ; As[ty][4 .. 7]
    ds_read_b128 v[40:43], v19, 32       ; As[ty][8 .. 11]
    ds_read_b128 v[44:47], v19, 48       ; As[ty][12 .. 15]
    ds_read_b32 v48, v20, 1024  ; Bs[0][tx]
    ds_read_b32 v49, v20, 1088  ; Bs[1][tx]
    ds_read_b32 v50, v20, 1152  ; Bs[2][tx]
    ds_read_b32 v51, v20, 1216  ; Bs[3][tx]
    ds_read_b32 v52, v20, 1280  ; Bs[4][tx]
    ds_read_b32 v53, v20, 1344  ; Bs[5][tx]
    ds_read_b32 v54, v20, 1408  ; Bs[6][tx]
    ds_read_b32 v55, v20, 1472  ; Bs[7][tx]
    ds_read_b32 v56, v20, 1536  ; Bs[8][tx]
    ds_read_b32 v57, v20, 1600  ; Bs[9][tx]
    ds_read_b32 v58, v20, 1664  ; Bs[10][tx]
    ds_read_b32 v59, v20, 1728  ; Bs[11][tx]
    ds_read_b32 v60, v20, 1792  ; Bs[12][tx]
    ds_read_b32 v61, v20, 1856  ; Bs[13][tx]
    ds_read_b32 v62, v20, 1920  ; Bs[14][tx]
    ds_read_b32 v63, v20, 1984  ; Bs[15][tx]
    s_waitcnt 0
    v_fma_f32 v21, v32, v48, v21        ; k0 + 0
    v_fma_f32 v21, v33, v49, v21        ; k0 + 1
    v_fma_f32 v21, v34, v50, v21        ; k0 + 2
    v_fma_f32 v21, v35, v51, v21        ; k0 + 3
    v_fma_f32 v21, v36, v52, v21        ; k0 + 4
    v_fma_f32 v21, v37, v53, v21        ; k0 + 5
    v_fma_f32 v21, v38, v54, v21        ; k0 + 6
    v_fma_f32 v21, v39, v55, v21        ; k0 + 7
    v_fma_f32 v21, v40, v56, v21        ; k0 + 8
    v_fma_f32 v21, v41, v57, v21        ; k0 + 9
    v_fma_f32 v21, v42, v58, v21        ; k0 + 10
    v_fma_f32 v21, v43, v59, v21        ; k0 + 11
    v_fma_f32 v21, v44, v60, v21        ; k0 + 12
    v_fma_f32 v21, v45, v61, v21        ; k0 + 13
    v_fma_f32 v21, v46, v62, v21        ; k0 + 14
    v_fma_f32 v21, v47, v63, v21        ; k0 + 15
    s_barrier                            ; 3. every wave is done with the tiles
    v_add_u32 v16, v16, s70              ; A: 16 k on
    v_add_u32 v17, v17, s71              ; B: 16 k on
    s_sub_u32 s76, s76, 16
    s_cmp_lg_u32 s76, 0
    s_cbranch_scc1 tile
    s_branch finish

; ---- 2'. the last tile: exactly K mod 16 fmas ------------------------------------------------------
partial:
    v_mov_b32 v26, v19                   ; &As[ty][k]
    v_mov_b32 v27, v20                   ; &Bs[k][tx] - 1024
one_k:
    ds_read_b32 v28, v26, 0
    ds_read_b32 v29, v27, 1024
    s_waitcnt 0
    v_fma_f32 v21, v28, v29, v21         ; acc = fma(A[m][k], B[k][n], acc)
    v_add_u32 v26, v26, 4
    v_add_u32 v27, v27, 64
    s_sub_u32 s76, s76, 1
    s_cmp_lg_u32 s76, 0
    s_cbranch_scc1 one_k

; ---- 4. Alpha, Beta * C, narrow, store -------------------------------------------------------------
finish:
    v_mul_f32 v21, v21, s64              ; Alpha * acc, rounded once
    s_and_b64 exec, s[72:73], s[74:75]   ; m < M and n < N
    s_cbranch_execz done
.if HAS_C
    v_mad_u32 v30, v14, s46, v12
    v_mad_u32 v30, v15, s54, v30         ; C[m][n]
    v_lshl_b32 v30, v30, ${SHIFT}
    buffer_load_${LOAD} v31, v30, s[16:19], 0
    s_waitcnt 0
.if WIDEN_F16
    v_cvt_f32_f16 v31, v31
.endif
    v_fma_f32 v21, s65, v31, v21         ; fma(Beta, C, Alpha * acc): one rounding
.endif
.if NARROW_F16
    v_cvt_f16_f32 v21, v21               ; FLOAT16: rounded once, to nearest even
.endif
    v_mad_u32 v30, v14, s47, v13
    v_mad_u32 v30, v15, s55, v30         ; out[m][n]
    v_lshl_b32 v30, v30, ${SHIFT}
    buffer_store_${STORE} v21, v30, s[20:23], 0
done:
    s_endpgm
