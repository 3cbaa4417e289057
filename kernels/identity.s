; =============================================================================================
; ELEMENT_WISE_IDENTITY      y = g(x)      g(x) = x * Scale + Bias (optional, float types only)
;
; Without ScaleBias this is a copy of bits (any layout change is done by the strides). With it,
; FLOAT16 widens to f32 (or stays f16 with HALF) and rounds once at the end.
; Tensor 0 is InputTensor, tensor 1 is OutputTensor.
; =============================================================================================
.set TENSORS, 2
.include "prologue.inc"
.include "address.inc"
    s_load_dwordx4 s[8:11], s[0:1], ${DESC_T0}    ; buffer descriptor of InputTensor
    s_load_dwordx4 s[12:15], s[0:1], ${DESC_T1}   ; buffer descriptor of OutputTensor
    s_load_dwordx4 s[38:41], s[2:3], ${CB_MIN}    ; (unused), (unused), Scale, Bias
    s_waitcnt 0
    buffer_load_${LOAD} ${X}, ${OFF_T0}, s[8:11], 0
    s_waitcnt 0
.if SCALE_BIAS and WIDEN_F16
    v_cvt_f32_f16 ${X}, ${X}             ; exact widening (only needed for arithmetic)
.endif
.include "scale_bias.inc"         ; x = x * Scale + Bias (if the desc has a ScaleBias)
.if SCALE_BIAS and WIDEN_F16
    v_cvt_f16_f32 ${X}, ${X}             ; round to nearest even, once
.endif
    buffer_store_${STORE} ${X}, ${OFF_T1}, s[12:15], 0
done:
    s_endpgm
