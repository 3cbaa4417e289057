; =============================================================================================
; scatter_nd.s: DML_OPERATOR_SCATTER_ND. One thread per output element (no element is written by
; two threads, so the result does not depend on the order of waves):
;
;   1. prologue.inc + address.inc over the output's records: v2 = the element in InputTensor,
;      v3 = its trailing (slice) part in UpdatesTensor, v4 = the output, v5 = its key: the
;      row-major number of its first m coordinates (the ones an index tuple names);
;   2. y = InputTensor's element; then for each index tuple k = 0 .. Q-1 in ascending order
;      (PARAM2 = Q): peel k over the PARAM0 candidate records (IndicesTensor's and
;      UpdatesTensor's strides of the tuple dimensions), read its m components (PARAM1 component
;      records after them: size, key weight, element offset of the component) through
;      index_resolve.inc; where every component is in range and the tuple's key is v5,
;      y = UpdatesTensor's element of tuple k: the last tuple that names the element wins;
;   3. store y (docs/NUMERICS.md, "Gathers").
; =============================================================================================
.include "prologue.inc"
.include "address.inc"                   ; v2 input, v3 updates (slice), v4 output, v5 key
    s_load_dwordx4 s[8:11], s[0:1], ${DESC_T0}    ; InputTensor
    s_load_dwordx4 s[12:15], s[0:1], ${DESC_T1}   ; IndicesTensor
    s_load_dwordx4 s[16:19], s[0:1], ${DESC_T2}   ; UpdatesTensor
    s_load_dwordx4 s[20:23], s[0:1], ${DESC_T3}   ; OutputTensor
    s_load_dwordx4 s[44:47], s[2:3], ${CB_PARAM0} ; candidate records, m, Q, -
    s_waitcnt 0
    buffer_load_${LOAD} ${DATA}, v2, s[8:11], 0   ; the input's element
    v_mov_b32 v16, 0                     ; a 64-bit zero
    v_mov_b32 v17, 0
    s_mov_b32 s48, s36                   ; the candidate records follow the output's
    s_mov_b32 s40, 0                     ; k
    s_cmp_eq_u32 s46, 0
    s_cbranch_scc1 store
tuple:
    v_mov_b32 v6, s40                    ; k, to peel
    v_mov_b32 v18, 0                     ; the tuple's element offset in IndicesTensor
    v_mov_b32 v19, 0                     ; its element offset in UpdatesTensor
    s_mov_b32 s49, s48
    s_mov_b32 s26, s44
    s_cmp_eq_u32 s26, 0
    s_cbranch_scc1 peeled
peel:
    s_cmp_ge_u32 s49, ${RECORDS_END}     ; never past the record array
    s_cbranch_scc1 done
    s_load_dwordx8 s[28:35], s[2:3], s49 ; size, magic, shift1, shift2, indices stride, updates stride
    s_waitcnt 0
    v_mul_hi_u32 v7, v6, s29             ; q = k / size (Granlund-Montgomery, as address.inc)
    v_sub_u32 v8, v6, v7
    v_lshr_b32 v8, v8, s30
    v_add_u32 v7, v7, v8
    v_lshr_b32 v7, v7, s31
    v_mul_lo_u32 v8, v7, s28
    v_sub_u32 v8, v6, v8                 ; coordinate = k - q * size
    v_mad_u32 v18, v8, s32, v18
    v_mad_u32 v19, v8, s33, v19
    v_mov_b32 v6, v7
    s_add_u32 s49, s49, ${CB_RECORD_BYTES}
    s_sub_u32 s26, s26, 1
    s_cmp_lg_u32 s26, 0
    s_cbranch_scc1 peel
peeled:
    v_mov_b32 v9, 0                      ; the tuple's key
    v_mov_b32 v22, 0                     ; 1: a component out of range
    s_mov_b32 s39, s45
component:
    s_cmp_ge_u32 s49, ${RECORDS_END}
    s_cbranch_scc1 done
    s_load_dwordx8 s[28:35], s[2:3], s49 ; size, -, -, -, key weight, component offset
    s_waitcnt 0
    v_add_u32 v13, v18, s33
    v_lshl_b32 v13, v13, ${SHIFT_IDX}    ; this component's byte offset in IndicesTensor
.set INDEX_ADDR, v13
.set INDEX_SIZE, s28
.include "index_resolve.inc"             ; v10 = i (negative: + size); VCC = in range
    v_cndmask_b32 v12, 1, 0, vcc
    v_or_b32 v22, v22, v12
    v_mad_u32 v9, v10, s32, v9           ; key += i * weight
    s_add_u32 s49, s49, ${CB_RECORD_BYTES}
    s_sub_u32 s39, s39, 1
    s_cmp_lg_u32 s39, 0
    s_cbranch_scc1 component
    v_lshl_b32 v13, v19, ${SHIFT_DATA}
    v_add_u32 v13, v13, v3               ; the update: tuple k's slice, this element's place in it
    buffer_load_${LOAD} ${UPDATE}, v13, s[16:19], 0
    s_waitcnt 0
    v_cmp_ne_u32 vcc, v22, 0
    v_cndmask_b32 v9, v9, -1, vcc        ; a component out of range: the tuple names nothing
    v_cmp_eq_u32 vcc, v9, v5             ; the tuple names this element
    v_cndmask_b32 v20, v20, v24, vcc
.if DATA_PAIR
    v_cndmask_b32 v21, v21, v25, vcc
.endif
    s_add_u32 s40, s40, 1
    s_cmp_lt_u32 s40, s46
    s_cbranch_scc1 tuple                 ; uniform loop: every wave takes the same trips
store:
    buffer_store_${STORE} ${DATA}, v4, s[20:23], 0
done:
    s_endpgm
