; =============================================================================================
; scatter.s: DML_OPERATOR_SCATTER_ELEMENTS. One thread per output element (no element is written
; by two threads, so the result does not depend on the order of waves):
;
;   1. prologue.inc + address.inc: the element's offsets in InputTensor (v2), in IndicesTensor
;      and UpdatesTensor at coordinate 0 along Axis (v3, v4: their Axis stride is 0 in the
;      records), in OutputTensor (v5), and its coordinate c along Axis (v28: "tensor" 4 has
;      stride 1 along Axis, 0 elsewhere);
;   2. y = InputTensor's element; then for t = 0 .. K-1 (K = IndicesTensor.Sizes[Axis], PARAM0),
;      in ascending t: i = indices[.., t, ..] resolved as a gather index against the output's
;      size along Axis (PARAM3; docs/NUMERICS.md, "Gathers"); where i == c, y = updates[.., t, ..]:
;      the last update that targets the element wins ("only the last write takes effect"); an
;      index out of range targets nothing;
;   3. store y.
; PARAM1, PARAM2: the byte steps of IndicesTensor and UpdatesTensor along Axis.
; =============================================================================================
.include "prologue.inc"
.include "address.inc"                   ; v2 input, v3 indices, v4 updates, v5 output; v28 = c
    s_load_dwordx4 s[8:11], s[0:1], ${DESC_T0}    ; InputTensor
    s_load_dwordx4 s[12:15], s[0:1], ${DESC_T1}   ; IndicesTensor
    s_load_dwordx4 s[16:19], s[0:1], ${DESC_T2}   ; UpdatesTensor
    s_load_dwordx4 s[20:23], s[0:1], ${DESC_T3}   ; OutputTensor
    s_load_dwordx4 s[44:47], s[2:3], ${CB_PARAM0} ; K, indices step, updates step, S
    s_waitcnt 0
    buffer_load_${LOAD} ${DATA}, v2, s[8:11], 0   ; the input's element
    v_mov_b32 v16, 0                     ; a 64-bit zero
    v_mov_b32 v17, 0
    s_mov_b32 s40, s44
    s_cmp_eq_u32 s40, 0
    s_cbranch_scc1 store
candidate:
    buffer_load_${LOAD} ${UPDATE}, v4, s[16:19], 0   ; this candidate's update
.set INDEX_ADDR, v3
.set INDEX_SIZE, s47
.include "index_resolve.inc"             ; v10 = i (negative: + S); VCC = in range
    v_cndmask_b32 v10, -1, v10, vcc      ; out of range: targets nothing
    v_cmp_eq_u32 vcc, v10, v28           ; i == c: this update writes the element
    v_cndmask_b32 v20, v20, v24, vcc
.if DATA_PAIR
    v_cndmask_b32 v21, v21, v25, vcc
.endif
    v_add_u32 v3, v3, s45                ; the next t
    v_add_u32 v4, v4, s46
    s_sub_u32 s40, s40, 1
    s_cmp_lg_u32 s40, 0
    s_cbranch_scc1 candidate             ; uniform loop: every wave takes the same trips
store:
    buffer_store_${STORE} ${DATA}, v5, s[20:23], 0
done:
    s_endpgm
