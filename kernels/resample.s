; =============================================================================================
; resample.s: DML_OPERATOR_RESAMPLE, RESAMPLE1, RESAMPLE2 on 4 dimensions (a tensor of fewer is
; padded in front with dimensions of size 1, Scale 1, offsets 0). One thread per output element.
;
;   1. prologue.inc + address.inc: the element's four output coordinates and its output offset at
;      once: the records are the output's dimensions (size-1 ones dropped), and "tensors" 0 .. 3
;      have stride 1 along dimension 0 .. 3 and 0 elsewhere, so their offsets v2 .. v5 ARE the
;      coordinates (shift 0); tensor 4 is the output (v28, its strides in WIDE_RECORDS);
;   2. per dimension d, resample_dim.inc with the record at CB_DIM_RECORD_d = CB_RECORDS + (4 + d) records:
;        size S, Scale, InputPixelOffset, OutputPixelOffset (FLOAT32 bits in the record's MAGIC,
;        SHIFT1, SHIFT2 dwords), the input's stride (STRIDE_T0)
;      the coordinate map x = ((o - b) / Scale) - a and the neighbour(s) and weights;
;   3. NEAREST_NEIGHBOR: load the one element and store its bits;
;      LINEAR: load the 16 corners, lerp the last dimension first (docs/NUMERICS.md,
;      "Resampling"), narrow FLOAT16 once, store.
; =============================================================================================
.include "prologue.inc"
.include "address.inc"                   ; v2 .. v5: coordinates; v28: output byte offset
    s_load_dwordx4 s[8:11], s[0:1], ${DESC_T0}    ; InputTensor
    s_load_dwordx4 s[12:15], s[0:1], ${DESC_T1}   ; OutputTensor
    s_waitcnt 0
    v_mov_b32 v9, 0                      ; NEAREST_NEIGHBOR: the input element offset
.set COORD, v2
.set CB_DIM_RECORD, ${CB_DIM_RECORD_0}
.set A, v33
.set B, v37
.set W, v41
.set U, v45
.set F, v49
.include "resample_dim.inc"
.set COORD, v3
.set CB_DIM_RECORD, ${CB_DIM_RECORD_1}
.set A, v34
.set B, v38
.set W, v42
.set U, v46
.set F, v50
.include "resample_dim.inc"
.set COORD, v4
.set CB_DIM_RECORD, ${CB_DIM_RECORD_2}
.set A, v35
.set B, v39
.set W, v43
.set U, v47
.set F, v51
.include "resample_dim.inc"
.set COORD, v5
.set CB_DIM_RECORD, ${CB_DIM_RECORD_3}
.set A, v36
.set B, v40
.set W, v44
.set U, v48
.set F, v52
.include "resample_dim.inc"
.if LINEAR
; ---- LINEAR: the 16 corners (dimension 0's choice the most significant bit of c), loaded into v56 + c ----
    v_add_u32 v12, v33, v34
    v_add_u32 v12, v12, v35
    v_add_u32 v12, v12, v36
    v_lshl_b32 v12, v12, ${SHIFT_IN}
    buffer_load_${LOAD} v56, v12, s[8:11], 0        ; corner 0
    v_add_u32 v12, v33, v34
    v_add_u32 v12, v12, v35
    v_add_u32 v12, v12, v40
    v_lshl_b32 v12, v12, ${SHIFT_IN}
    buffer_load_${LOAD} v57, v12, s[8:11], 0        ; corner 1
    v_add_u32 v12, v33, v34
    v_add_u32 v12, v12, v39
    v_add_u32 v12, v12, v36
    v_lshl_b32 v12, v12, ${SHIFT_IN}
    buffer_load_${LOAD} v58, v12, s[8:11], 0        ; corner 2
    v_add_u32 v12, v33, v34
    v_add_u32 v12, v12, v39
    v_add_u32 v12, v12, v40
    v_lshl_b32 v12, v12, ${SHIFT_IN}
    buffer_load_${LOAD} v59, v12, s[8:11], 0        ; corner 3
    v_add_u32 v12, v33, v38
    v_add_u32 v12, v12, v35
    v_add_u32 v12, v12, v36
    v_lshl_b32 v12, v12, ${SHIFT_IN}
    buffer_load_${LOAD} v60, v12, s[8:11], 0        ; corner 4
    v_add_u32 v12, v33, v38
    v_add_u32 v12, v12, v35
    v_add_u32 v12, v12, v40
    v_lshl_b32 v12, v12, ${SHIFT_IN}
    buffer_load_${LOAD} v61, v12, s[8:11], 0        ; corner 5
    v_add_u32 v12, v33, v38
    v_add_u32 v12, v12, v39
    v_add_u32 v12, v12, v36
    v_lshl_b32 v12, v12, ${SHIFT_IN}
    buffer_load_${LOAD} v62, v12, s[8:11], 0        ; corner 6
    v_add_u32 v12, v33, v38
    v_add_u32 v12, v12, v39
    v_add_u32 v12, v12, v40
    v_lshl_b32 v12, v12, ${SHIFT_IN}
    buffer_load_${LOAD} v63, v12, s[8:11], 0        ; corner 7
    v_add_u32 v12, v37, v34
    v_add_u32 v12, v12, v35
    v_add_u32 v12, v12, v36
    v_lshl_b32 v12, v12, ${SHIFT_IN}
    buffer_load_${LOAD} v64, v12, s[8:11], 0        ; corner 8
    v_add_u32 v12, v37, v34
    v_add_u32 v12, v12, v35
    v_add_u32 v12, v12, v40
    v_lshl_b32 v12, v12, ${SHIFT_IN}
    buffer_load_${LOAD} v65, v12, s[8:11], 0        ; corner 9
    v_add_u32 v12, v37, v34
    v_add_u32 v12, v12, v39
    v_add_u32 v12, v12, v36
    v_lshl_b32 v12, v12, ${SHIFT_IN}
    buffer_load_${LOAD} v66, v12, s[8:11], 0        ; corner 10
    v_add_u32 v12, v37, v34
    v_add_u32 v12, v12, v39
    v_add_u32 v12, v12, v40
    v_lshl_b32 v12, v12, ${SHIFT_IN}
    buffer_load_${LOAD} v67, v12, s[8:11], 0        ; corner 11
    v_add_u32 v12, v37, v38
    v_add_u32 v12, v12, v35
    v_add_u32 v12, v12, v36
    v_lshl_b32 v12, v12, ${SHIFT_IN}
    buffer_load_${LOAD} v68, v12, s[8:11], 0        ; corner 12
    v_add_u32 v12, v37, v38
    v_add_u32 v12, v12, v35
    v_add_u32 v12, v12, v40
    v_lshl_b32 v12, v12, ${SHIFT_IN}
    buffer_load_${LOAD} v69, v12, s[8:11], 0        ; corner 13
    v_add_u32 v12, v37, v38
    v_add_u32 v12, v12, v39
    v_add_u32 v12, v12, v36
    v_lshl_b32 v12, v12, ${SHIFT_IN}
    buffer_load_${LOAD} v70, v12, s[8:11], 0        ; corner 14
    v_add_u32 v12, v37, v38
    v_add_u32 v12, v12, v39
    v_add_u32 v12, v12, v40
    v_lshl_b32 v12, v12, ${SHIFT_IN}
    buffer_load_${LOAD} v71, v12, s[8:11], 0        ; corner 15
    s_waitcnt 0
.if WIDEN_F16
    v_cvt_f32_f16 v56, v56
    v_cvt_f32_f16 v57, v57
    v_cvt_f32_f16 v58, v58
    v_cvt_f32_f16 v59, v59
    v_cvt_f32_f16 v60, v60
    v_cvt_f32_f16 v61, v61
    v_cvt_f32_f16 v62, v62
    v_cvt_f32_f16 v63, v63
    v_cvt_f32_f16 v64, v64
    v_cvt_f32_f16 v65, v65
    v_cvt_f32_f16 v66, v66
    v_cvt_f32_f16 v67, v67
    v_cvt_f32_f16 v68, v68
    v_cvt_f32_f16 v69, v69
    v_cvt_f32_f16 v70, v70
    v_cvt_f32_f16 v71, v71
.endif
; ---- the lerps, the last dimension first: r = p * u + q * w, or p where the dimension is single ----
    v_cmp_ne_u32 vcc, v52, 0           ; dimension 3: w = 0 or one neighbour
    v_mul_f32 v12, v56, v48
    v_mul_f32 v13, v57, v44
    v_add_f32 v12, v12, v13
    v_cndmask_b32 v56, v12, v56, vcc
    v_mul_f32 v12, v58, v48
    v_mul_f32 v13, v59, v44
    v_add_f32 v12, v12, v13
    v_cndmask_b32 v57, v12, v58, vcc
    v_mul_f32 v12, v60, v48
    v_mul_f32 v13, v61, v44
    v_add_f32 v12, v12, v13
    v_cndmask_b32 v58, v12, v60, vcc
    v_mul_f32 v12, v62, v48
    v_mul_f32 v13, v63, v44
    v_add_f32 v12, v12, v13
    v_cndmask_b32 v59, v12, v62, vcc
    v_mul_f32 v12, v64, v48
    v_mul_f32 v13, v65, v44
    v_add_f32 v12, v12, v13
    v_cndmask_b32 v60, v12, v64, vcc
    v_mul_f32 v12, v66, v48
    v_mul_f32 v13, v67, v44
    v_add_f32 v12, v12, v13
    v_cndmask_b32 v61, v12, v66, vcc
    v_mul_f32 v12, v68, v48
    v_mul_f32 v13, v69, v44
    v_add_f32 v12, v12, v13
    v_cndmask_b32 v62, v12, v68, vcc
    v_mul_f32 v12, v70, v48
    v_mul_f32 v13, v71, v44
    v_add_f32 v12, v12, v13
    v_cndmask_b32 v63, v12, v70, vcc
    v_cmp_ne_u32 vcc, v51, 0           ; dimension 2: w = 0 or one neighbour
    v_mul_f32 v12, v56, v47
    v_mul_f32 v13, v57, v43
    v_add_f32 v12, v12, v13
    v_cndmask_b32 v56, v12, v56, vcc
    v_mul_f32 v12, v58, v47
    v_mul_f32 v13, v59, v43
    v_add_f32 v12, v12, v13
    v_cndmask_b32 v57, v12, v58, vcc
    v_mul_f32 v12, v60, v47
    v_mul_f32 v13, v61, v43
    v_add_f32 v12, v12, v13
    v_cndmask_b32 v58, v12, v60, vcc
    v_mul_f32 v12, v62, v47
    v_mul_f32 v13, v63, v43
    v_add_f32 v12, v12, v13
    v_cndmask_b32 v59, v12, v62, vcc
    v_cmp_ne_u32 vcc, v50, 0           ; dimension 1: w = 0 or one neighbour
    v_mul_f32 v12, v56, v46
    v_mul_f32 v13, v57, v42
    v_add_f32 v12, v12, v13
    v_cndmask_b32 v56, v12, v56, vcc
    v_mul_f32 v12, v58, v46
    v_mul_f32 v13, v59, v42
    v_add_f32 v12, v12, v13
    v_cndmask_b32 v57, v12, v58, vcc
    v_cmp_ne_u32 vcc, v49, 0           ; dimension 0: w = 0 or one neighbour
    v_mul_f32 v12, v56, v45
    v_mul_f32 v13, v57, v41
    v_add_f32 v12, v12, v13
    v_cndmask_b32 v56, v12, v56, vcc
.if NARROW_F16
    v_cvt_f16_f32 v56, v56               ; FLOAT16: rounded once, to nearest even
.endif
.else
    v_lshl_b32 v9, v9, ${SHIFT_IN}
    buffer_load_${LOAD} v56, v9, s[8:11], 0   ; NEAREST_NEIGHBOR: the element's bits
    s_waitcnt 0
.endif
    buffer_store_${STORE} v56, v28, s[12:15], 0
done:
    s_endpgm
