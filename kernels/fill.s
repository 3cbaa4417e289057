; =============================================================================================
; fill.s: DML_OPERATOR_FILL_VALUE_CONSTANT, FILL_VALUE_SEQUENCE and DIAGONAL_MATRIX. One thread per output element
; k (its row-major index over the output's Sizes, whatever the strides):
;   CONSTANT   y = Value (the tensor type's bits, PARAM0 .. 1)
;   SEQUENCE   y = ValueStart + k * ValueDelta (docs/NUMERICS.md, "Fills"): floats in FLOAT32, k
;              converted to FLOAT32 (rounded from 2^24), a rounded multiply then a rounded add,
;              FLOAT16 rounded once at the end; integers in 32 bits, wrapping, stored by their low bits
;   DIAGONAL   (DML_OPERATOR_DIAGONAL_MATRIX) y = Value where row + Offset == column, else 0: "tensors"
;              1 and 2 count the column (last dimension) and the row (the one before) into v3, v4
;   DIAGONAL1  (DML_OPERATOR_DIAGONAL_MATRIX1) y = Value where (End >= Begin) ^ (x - y >= Begin) ^
;              (x - y < End), else the input's element (tensor 3, v5; slot ${DESC_IN}) or 0; PARAM0 .. 1 =
;              Value's bits, PARAM2 = DiagonalFillBegin, PARAM3 = DiagonalFillEnd, PARAM4 = (End >= Begin);
;              the output is slot ${DESC_T0} (1: it binds after the optional input)
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
.if DIAGONAL1
    s_load_dword s48, s[2:3], ${CB_PARAM4}        ; (End >= Begin) as 0 or 1
.if HAS_INPUT
    s_load_dwordx4 s[16:19], s[0:1], ${DESC_IN}   ; InputTensor (tensor 3 of address.inc: v5)
.endif
    s_waitcnt 0
    v_sub_u32 v12, v3, v4                ; topX = x - y (two's complement)
    v_cmp_ge_i32 vcc, v12, s46           ; topX >= DiagonalFillBegin
    v_cndmask_b32 v13, 0, 1, vcc
    v_cmp_lt_i32 vcc, v12, s47           ; topX < DiagonalFillEnd
    v_cndmask_b32 v14, 0, 1, vcc
    v_xor_b32 v13, v13, v14
    v_xor_b32 v13, v13, s48
.if HAS_INPUT
    buffer_load_${LOAD} ${STORE_REG}, v5, s[16:19], 0   ; the input's element, as bits
    s_waitcnt 0
.else
    v_mov_b32 v10, 0                     ; no input: 0 (all bits clear)
    v_mov_b32 v11, 0
.endif
    v_cmp_ne_u32 vcc, 0, v13             ; useValue: the page's three-way exclusive or
    v_cndmask_b32 v10, v10, s44, vcc     ; Value's bits (PARAM0, and PARAM1: a 64-bit type's high dword)
.if IS_PAIR
    v_cndmask_b32 v11, v11, s45, vcc
.endif
.else
    v_mov_b32 v10, s44                   ; the constant's bits
.endif
.endif
.endif
    buffer_store_${STORE} ${STORE_REG}, v2, s[8:11], 0
done:
    s_endpgm
