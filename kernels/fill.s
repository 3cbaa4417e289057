; =============================================================================================
; fill.s: DML_OPERATOR_FILL_VALUE_CONSTANT, FILL_VALUE_SEQUENCE and DIAGONAL_MATRIX. One thread per output element
; k (its row-major index over the output's Sizes, whatever the strides):
;   CONSTANT   y = Value (the tensor type's bits, PARAM0 .. 1)
;   SEQUENCE   y = ValueStart + k * ValueDelta (docs/NUMERICS.md, "Fills"): floats in FLOAT32, k
;              converted to FLOAT32 (rounded from 2^24), a rounded multiply then a rounded add,
;              FLOAT16 rounded once at the end; integers in 32 bits, wrapping, stored by their low bits
;   DIAGONAL   (DML_OPERATOR_DIAGONAL_MATRIX) y = Value where row + Offset == column, else 0: "tensors"
;              1 and 2 count the column (last dimension) and the row (the one before) into v3, v4
; PARAM0 = Value / ValueStart (the type's bits), PARAM1 = Offset, PARAM2 = ValueDelta (FLOAT16: widened to
; FLOAT32 bits by the driver).
; The addressing is address.inc's general path with the output as tensor 0 (tensor 1: stride 0).
; =============================================================================================
.include "prologue.inc"
.include "address.inc"                   ; v2: the output's byte offset
    s_load_dwordx4 s[8:11], s[0:1], ${DESC_T0}    ; OutputTensor
    s_load_dwordx4 s[44:47], s[2:3], ${CB_PARAM0} ; value (or start), -, delta, -
    s_waitcnt 0
.if SEQUENCE
.if IS_FLOAT
    v_cvt_f32_u32 v10, v1                ; k
    v_mul_f32 v10, v10, s46              ; k * delta
    v_add_f32 v10, v10, s44              ; + start
.if NARROW_F16
    v_cvt_f16_f32 v10, v10               ; FLOAT16: rounded once, to nearest even
.endif
.else
    v_mul_lo_u32 v10, v1, s46            ; k * delta, wrapping
    v_add_u32 v10, v10, s44              ; + start
.endif
.else
.if DIAGONAL
    v_add_u32 v12, v4, s45               ; y + Offset (two's complement, wrapping)
    v_cmp_eq_u32 vcc, v12, v3            ; == x: on the diagonal
    v_cndmask_b32 v10, 0, s44, vcc       ; Value there, 0 elsewhere
.else
    v_mov_b32 v10, s44                   ; the constant's bits
.endif
.endif
    buffer_store_${STORE} v10, v2, s[8:11], 0
done:
    s_endpgm
