; =============================================================================================
; random.s: DML_OPERATOR_RANDOM_GENERATOR, DML_RANDOM_GENERATOR_TYPE_PHILOX_4X32_10. One thread per
; output element k (row-major over the output's Sizes), docs/NUMERICS.md "Random numbers":
;   block b = k / 4: the counter (InputStateTensor elements 0 .. 3, element 0 the lowest 32 bits)
;   plus b as a 128-bit sum; Philox 4x32-10 of it under the key (elements 4, 5): ten rounds of
;     (c0, c1, c2, c3) = (hi(M1 c2) ^ c1 ^ k0, lo(M1 c2), hi(M0 c0) ^ c3 ^ k1, lo(M0 c0)),
;   the key bumped by (W0, W1) after each; the element is word k % 4 of the result.
; With an OutputStateTensor (HAS_STATE) the threads k = 0 .. 5 also write the next state: the counter
; plus ceil(count / 4) (PARAM0), then the key unchanged. PARAM1 = the output's element count.
; The output's offset is address.inc's (tensor 0: the output).
; =============================================================================================
.include "prologue.inc"
.include "address.inc"                   ; v2: the output's byte offset
    s_load_dwordx4 s[8:11], s[0:1], ${DESC_T0}    ; InputStateTensor
    s_load_dwordx4 s[12:15], s[0:1], ${DESC_T1}   ; OutputTensor
.if HAS_STATE
    s_load_dwordx4 s[16:19], s[0:1], ${DESC_T2}   ; OutputStateTensor
.endif
    s_load_dwordx4 s[44:47], s[2:3], ${CB_PARAM0} ; the counter's increment, the output's count
    s_waitcnt 0
    v_mov_b32 v6, 0
    buffer_load_dwordx2 v[10:11], v6, s[8:11], 0  ; counter words 0, 1
    buffer_load_dwordx2 v[12:13], v6, s[8:11], 8  ; counter words 2, 3
    buffer_load_dwordx2 v[14:15], v6, s[8:11], 16 ; key words 0, 1
    s_waitcnt 0
    v_mov_b32 v28, v14                   ; the key, kept for the next state
    v_mov_b32 v29, v15
    v_lshr_b32 v16, v1, 2                ; the block b = k / 4
    v_mov_b32 v17, 0
    v_add_u64 v[18:19], v[10:11], v[16:17]   ; the low 64 bits of counter + b
    v_cmp_lt_u64 vcc, v[18:19], v[16:17]     ; their carry
    v_cndmask_b32 v20, 0, 1, vcc
    v_mov_b32 v21, 0
    v_add_u64 v[22:23], v[12:13], v[20:21]   ; the high 64 bits
    s_mov_b32 s40, 10
round:
    v_mul_hi_u32 v24, v18, 0xD2511F53    ; hi(M0 c0)
    v_mul_lo_u32 v25, v18, 0xD2511F53    ; lo(M0 c0)
    v_mul_hi_u32 v26, v22, 0xCD9E8D57    ; hi(M1 c2)
    v_mul_lo_u32 v27, v22, 0xCD9E8D57    ; lo(M1 c2)
    v_xor_b32 v18, v26, v19
    v_xor_b32 v18, v18, v14              ; c0 = hi(M1 c2) ^ c1 ^ k0
    v_mov_b32 v19, v27                   ; c1 = lo(M1 c2)
    v_xor_b32 v22, v24, v23
    v_xor_b32 v22, v22, v15              ; c2 = hi(M0 c0) ^ c3 ^ k1
    v_mov_b32 v23, v25                   ; c3 = lo(M0 c0)
    v_add_u32 v14, v14, 0x9E3779B9       ; the key's bump
    v_add_u32 v15, v15, 0xBB67AE85
    s_sub_u32 s40, s40, 1
    s_cmp_lg_u32 s40, 0
    s_cbranch_scc1 round
    v_and_b32 v6, v1, 3                  ; word k % 4
    v_mov_b32 v9, v18
    v_cmp_eq_u32 vcc, v6, 1
    v_cndmask_b32 v9, v9, v19, vcc
    v_cmp_eq_u32 vcc, v6, 2
    v_cndmask_b32 v9, v9, v22, vcc
    v_cmp_eq_u32 vcc, v6, 3
    v_cndmask_b32 v9, v9, v23, vcc
    s_mov_b64 s[40:41], exec
    v_cmp_gt_u32 vcc, s45, v1            ; k below the output's count (6 threads run for the state)
    s_and_b64 exec, exec, vcc
    buffer_store_dword v9, v2, s[12:15], 0
    s_mov_b64 exec, s[40:41]
.if HAS_STATE
    v_mov_b32 v16, s44                   ; the counter's increment, ceil(count / 4)
    v_add_u64 v[18:19], v[10:11], v[16:17]
    v_cmp_lt_u64 vcc, v[18:19], v[16:17]
    v_cndmask_b32 v20, 0, 1, vcc
    v_add_u64 v[22:23], v[12:13], v[20:21]
    v_mov_b32 v9, v18                    ; state word k: counter 0 .. 3, key 4, 5
    v_cmp_eq_u32 vcc, v1, 1
    v_cndmask_b32 v9, v9, v19, vcc
    v_cmp_eq_u32 vcc, v1, 2
    v_cndmask_b32 v9, v9, v22, vcc
    v_cmp_eq_u32 vcc, v1, 3
    v_cndmask_b32 v9, v9, v23, vcc
    v_cmp_eq_u32 vcc, v1, 4
    v_cndmask_b32 v9, v9, v28, vcc
    v_cmp_eq_u32 vcc, v1, 5
    v_cndmask_b32 v9, v9, v29, vcc
    v_cmp_gt_u32 vcc, 6, v1
    s_and_b64 exec, exec, vcc
    v_lshl_b32 v6, v1, 2
    buffer_store_dword v9, v6, s[16:19], 0
.endif
done:
    s_endpgm
