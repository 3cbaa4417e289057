; =============================================================================================
; transpose_naive.s: out = in^T for an N x N FLOAT32 matrix (row-major), one element per thread.
;
; A thread group of 32 x 32 threads owns the 32 x 32 tile at (row by*32, column bx*32) of `in`.
; Thread (tx, ty) reads in[by*32 + ty][bx*32 + tx]: the 32 lanes of a wave read 32 neighbouring
; dwords of one row (one coalesced 128-byte request). It writes the value to
; out[bx*32 + tx][by*32 + ty]: the same 32 lanes now write 32 different rows, N * 4 bytes apart,
; so every lane's dword is its own memory request. transpose_tiled.s fixes the writes with LDS.
; With the symbol COPY = 1 it writes out[row][col] instead: a packed copy of the same bytes, the
; bound a transpose aims at.
;
; Launch ABI (docs/KERNEL_ABI.md): s21, s22 = SV_GroupID.x, .y (bx, by); v1, v2 = SV_GroupThreadID
; .x, .y (tx, ty). Dispatch(N / 32, N / 32, 1); N a multiple of 32 (examples/transpose.py).
; =============================================================================================
.numthreads 32, 32, 1
.root_constants b0, 1                ; s5 = N
.srv t0                              ; in  (N x N FLOAT32)
.uav u0                              ; out (N x N FLOAT32)
    s_load_dwordx4 s[8:11], s[0:1], ${SLOT_T0}    ; buffer descriptor of in
    s_load_dwordx4 s[12:15], s[0:1], ${SLOT_U0}   ; buffer descriptor of out
    s_lshl_b32 s24, s21, 5               ; bx * 32: the tile's first column
    s_lshl_b32 s25, s22, 5               ; by * 32: the tile's first row
    v_add_u32 v4, s25, v2                ; row = by*32 + ty
    v_add_u32 v5, s24, v1                ; col = bx*32 + tx
    v_mad_u32 v6, v4, s5, v5             ; row * N + col
    v_lshl_b32 v6, v6, 2                 ; its byte offset
    s_waitcnt 0
    buffer_load_dword v7, v6, s[8:11], 0     ; in[row][col]: a wave reads one row segment
.if COPY
    s_waitcnt 0
    buffer_store_dword v7, v6, s[12:15], 0   ; COPY: out[row][col], a packed copy (the bound a transpose aims at)
.else
    v_mad_u32 v8, v5, s5, v4             ; col * N + row
    v_lshl_b32 v8, v8, 2
    s_waitcnt 0
    buffer_store_dword v7, v8, s[12:15], 0   ; out[col][row]: a wave writes 32 rows, one dword each
.endif
    s_endpgm
