; =============================================================================================
; transpose_tiled.s: out = in^T for an N x N FLOAT32 matrix through a 32 x 32 tile in LDS.
;
; Thread (tx, ty) of group (bx, by) reads in[by*32 + ty][bx*32 + tx] as the naive kernel does
; (coalesced) and writes it to the LDS tile at tile[ty][tx]. After s_barrier every value of the
; tile is in LDS, so the thread can read tile[tx][ty], which is in[by*32 + tx][bx*32 + ty], and
; write it to out[bx*32 + ty][by*32 + tx]: now the 32 lanes of a wave write 32 neighbouring dwords
; of one row of `out`, one coalesced request instead of 32.
;
; Bank conflicts. LDS has 32 banks, one dword wide: dword d lives in bank d mod 32. A tile row is
; STRIDE dwords. Reading the column tile[tx][ty] (tx = lane) touches dwords tx*STRIDE + ty:
;   STRIDE 32: all in bank ty, 32 different dwords -> the bank serves them one by one (32 passes);
;   STRIDE 33: bank (tx + ty) mod 32, a different bank per lane -> one pass.
; The +1 dword of padding per row costs 32 dwords of LDS and removes the conflict. The symbol
; STRIDE (examples/transpose.py passes 32 or 33) is the row pitch in dwords.
;
; Launch ABI (docs/KERNEL_ABI.md): s21, s22 = bx, by; v1, v2 = tx, ty. Dispatch(N / 32, N / 32, 1).
; =============================================================================================
.numthreads 32, 32, 1
.lds 4224                            ; 32 rows x 33 dwords x 4 bytes (HLSL: groupshared float tile[32][33])
.root_constants b0, 1                ; s5 = N
.srv t0                              ; in
.uav u0                              ; out
    s_load_dwordx4 s[8:11], s[0:1], ${SLOT_T0}
    s_load_dwordx4 s[12:15], s[0:1], ${SLOT_U0}
    s_lshl_b32 s24, s21, 5               ; bx * 32
    s_lshl_b32 s25, s22, 5               ; by * 32
    v_add_u32 v4, s25, v2                ; row = by*32 + ty
    v_add_u32 v5, s24, v1                ; col = bx*32 + tx
    v_mad_u32 v6, v4, s5, v5             ; row * N + col
    v_lshl_b32 v6, v6, 2
    s_waitcnt 0
    buffer_load_dword v7, v6, s[8:11], 0     ; in[row][col], coalesced
    v_mad_u32 v9, v2, ${STRIDE}, v1      ; ty * STRIDE + tx: tile[ty][tx]
    v_lshl_b32 v9, v9, 2                 ; its LDS byte address
    s_waitcnt 0
    ds_write_b32 v9, v7, 0               ; tile[ty][tx] = in[row][col]
    s_barrier                            ; every wave of the group has written its part of the tile
    v_mad_u32 v10, v1, ${STRIDE}, v2     ; tx * STRIDE + ty: tile[tx][ty], a column of the tile
    v_lshl_b32 v10, v10, 2
    ds_read_b32 v11, v10, 0              ; = in[by*32 + tx][bx*32 + ty]
    v_add_u32 v12, s24, v2               ; out row = bx*32 + ty
    v_add_u32 v13, s25, v1               ; out col = by*32 + tx
    v_mad_u32 v14, v12, s5, v13
    v_lshl_b32 v14, v14, 2
    s_waitcnt 0
    buffer_store_dword v11, v14, s[12:15], 0 ; out[bx*32 + ty][by*32 + tx], coalesced
    s_endpgm
