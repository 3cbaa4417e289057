; =============================================================================================
; fma_f16.s: FP16 FMA throughput with packed FLOAT16 (v_pk_fma_f16: two FLOAT16 FMAs per lane, one on each
; half of the registers, as RDNA's V_PK_FMA_F16 and NVIDIA's HFMA2). Every thread runs `trips` trips of 32
; v_pk_fma_f16 on 8 independent accumulators, so consecutive FMAs never wait on each other and the time is
; the issue rate. One v_pk_fma_f16 is 2 FMAs = 4 FLOP per lane. The accumulators are stored only if the
; first equals a value the inputs never give, so nothing is written. Root constant: s5 = trips.
; Dispatch(groups, 1, 1).
; =============================================================================================
.numthreads 256, 1, 1
.root_constants b0, 1
.uav u0                              ; the sink, never written

    s_load_dwordx4 s[12:15], s[0:1], ${SLOT_U0}
    v_mov_b32 v1, 0x3C003C00               ; 1.0 in both halves
    v_mov_b32 v2, 0x3C003C00
    v_mov_b32 v3, 0x3C003C00
    v_mov_b32 v4, 0x3C003C00
    v_mov_b32 v8, 0
    v_mov_b32 v9, 0
    v_mov_b32 v10, 0
    v_mov_b32 v11, 0
    v_mov_b32 v12, 0
    v_mov_b32 v13, 0
    v_mov_b32 v14, 0
    v_mov_b32 v15, 0
    s_mov_b32 s26, s5                    ; trips left
    s_cmp_eq_u32 s26, 0
    s_cbranch_scc1 done
trip:
    v_pk_fma_f16 v8, v1, v2, v8
    v_pk_fma_f16 v9, v3, v4, v9
    v_pk_fma_f16 v10, v1, v2, v10
    v_pk_fma_f16 v11, v3, v4, v11
    v_pk_fma_f16 v12, v1, v2, v12
    v_pk_fma_f16 v13, v3, v4, v13
    v_pk_fma_f16 v14, v1, v2, v14
    v_pk_fma_f16 v15, v3, v4, v15
    v_pk_fma_f16 v8, v1, v2, v8
    v_pk_fma_f16 v9, v3, v4, v9
    v_pk_fma_f16 v10, v1, v2, v10
    v_pk_fma_f16 v11, v3, v4, v11
    v_pk_fma_f16 v12, v1, v2, v12
    v_pk_fma_f16 v13, v3, v4, v13
    v_pk_fma_f16 v14, v1, v2, v14
    v_pk_fma_f16 v15, v3, v4, v15
    v_pk_fma_f16 v8, v1, v2, v8
    v_pk_fma_f16 v9, v3, v4, v9
    v_pk_fma_f16 v10, v1, v2, v10
    v_pk_fma_f16 v11, v3, v4, v11
    v_pk_fma_f16 v12, v1, v2, v12
    v_pk_fma_f16 v13, v3, v4, v13
    v_pk_fma_f16 v14, v1, v2, v14
    v_pk_fma_f16 v15, v3, v4, v15
    v_pk_fma_f16 v8, v1, v2, v8
    v_pk_fma_f16 v9, v3, v4, v9
    v_pk_fma_f16 v10, v1, v2, v10
    v_pk_fma_f16 v11, v3, v4, v11
    v_pk_fma_f16 v12, v1, v2, v12
    v_pk_fma_f16 v13, v3, v4, v13
    v_pk_fma_f16 v14, v1, v2, v14
    v_pk_fma_f16 v15, v3, v4, v15
    s_sub_u32 s26, s26, 1
    s_cmp_lg_u32 s26, 0
    s_cbranch_scc1 trip
done:
    v_cmp_eq_u32 vcc, 0x5EED5EED, v8     ; never true
    s_and_b64 exec, exec, vcc
    s_cbranch_execz end
    s_waitcnt 0
    v_lshl_b32 v3, v0, 2
    buffer_store_dword v8, v3, s[12:15], 0
end:
    s_endpgm
