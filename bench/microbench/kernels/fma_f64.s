; =============================================================================================
; fma_f64.s: FP64 FMA throughput. Every thread runs `trips` trips of 32 v_fma_f64 on 8 independent
; accumulators, so consecutive FMAs never wait on each other and the time is the issue rate.
; Each accumulator is a 64-bit register pair.
; One FMA is 2 FLOP per lane. The accumulators are stored only if the first equals a value
; the inputs never give, so nothing is written. Root constant: s5 = trips. Dispatch(groups, 1, 1).
; =============================================================================================
.numthreads 256, 1, 1
.root_constants b0, 1
.uav u0                              ; the sink, never written

    s_load_dwordx4 s[12:15], s[0:1], ${SLOT_U0}
    v_mov_b32 v2, 0
    v_mov_b32 v3, 0x3FF00000
    v_mov_b32 v4, 0
    v_mov_b32 v5, 0x3FF00000
    v_mov_b32 v8, 0
    v_mov_b32 v9, 0
    v_mov_b32 v10, 0
    v_mov_b32 v11, 0
    v_mov_b32 v12, 0
    v_mov_b32 v13, 0
    v_mov_b32 v14, 0
    v_mov_b32 v15, 0
    v_mov_b32 v16, 0
    v_mov_b32 v17, 0
    v_mov_b32 v18, 0
    v_mov_b32 v19, 0
    v_mov_b32 v20, 0
    v_mov_b32 v21, 0
    v_mov_b32 v22, 0
    v_mov_b32 v23, 0
    s_mov_b32 s26, s5                    ; trips left
    s_cmp_eq_u32 s26, 0
    s_cbranch_scc1 done
trip:
    v_fma_f64 v[8:9], v[2:3], v[4:5], v[8:9]
    v_fma_f64 v[10:11], v[2:3], v[4:5], v[10:11]
    v_fma_f64 v[12:13], v[2:3], v[4:5], v[12:13]
    v_fma_f64 v[14:15], v[2:3], v[4:5], v[14:15]
    v_fma_f64 v[16:17], v[2:3], v[4:5], v[16:17]
    v_fma_f64 v[18:19], v[2:3], v[4:5], v[18:19]
    v_fma_f64 v[20:21], v[2:3], v[4:5], v[20:21]
    v_fma_f64 v[22:23], v[2:3], v[4:5], v[22:23]
    v_fma_f64 v[8:9], v[2:3], v[4:5], v[8:9]
    v_fma_f64 v[10:11], v[2:3], v[4:5], v[10:11]
    v_fma_f64 v[12:13], v[2:3], v[4:5], v[12:13]
    v_fma_f64 v[14:15], v[2:3], v[4:5], v[14:15]
    v_fma_f64 v[16:17], v[2:3], v[4:5], v[16:17]
    v_fma_f64 v[18:19], v[2:3], v[4:5], v[18:19]
    v_fma_f64 v[20:21], v[2:3], v[4:5], v[20:21]
    v_fma_f64 v[22:23], v[2:3], v[4:5], v[22:23]
    v_fma_f64 v[8:9], v[2:3], v[4:5], v[8:9]
    v_fma_f64 v[10:11], v[2:3], v[4:5], v[10:11]
    v_fma_f64 v[12:13], v[2:3], v[4:5], v[12:13]
    v_fma_f64 v[14:15], v[2:3], v[4:5], v[14:15]
    v_fma_f64 v[16:17], v[2:3], v[4:5], v[16:17]
    v_fma_f64 v[18:19], v[2:3], v[4:5], v[18:19]
    v_fma_f64 v[20:21], v[2:3], v[4:5], v[20:21]
    v_fma_f64 v[22:23], v[2:3], v[4:5], v[22:23]
    v_fma_f64 v[8:9], v[2:3], v[4:5], v[8:9]
    v_fma_f64 v[10:11], v[2:3], v[4:5], v[10:11]
    v_fma_f64 v[12:13], v[2:3], v[4:5], v[12:13]
    v_fma_f64 v[14:15], v[2:3], v[4:5], v[14:15]
    v_fma_f64 v[16:17], v[2:3], v[4:5], v[16:17]
    v_fma_f64 v[18:19], v[2:3], v[4:5], v[18:19]
    v_fma_f64 v[20:21], v[2:3], v[4:5], v[20:21]
    v_fma_f64 v[22:23], v[2:3], v[4:5], v[22:23]
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
