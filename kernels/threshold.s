; =============================================================================================
; ELEMENT_WISE_THRESHOLD     y = max(g(x), Min)      g(x) = x * Scale + Bias (optional)
;
; Same structure as clip.s with one bound: elements below Min (and NaN) become Min.
; Tensor 0 is InputTensor, tensor 1 is OutputTensor.
; =============================================================================================
.set TENSORS, 2
.include "prologue.inc"
.include "address.inc"
    s_load_dwordx4 s[8:11], s[0:1], ${DESC_T0}    ; buffer descriptor of InputTensor
    s_load_dwordx4 s[12:15], s[0:1], ${DESC_T1}   ; buffer descriptor of OutputTensor
    s_load_dwordx4 s[38:41], s[2:3], ${CB_MIN}    ; Min, (unused), Scale, Bias: FLOAT32 bit patterns
    s_waitcnt 0
    buffer_load_${LOAD} ${X}, ${OFF_T0}, s[8:11], 0
.if BOUND_CVT != "none"
    ${BOUND_CVT} ${LO}, s38              ; cast Min to the tensor's type
.endif
.if WIDEN_F16
    v_cvt_f32_f16 ${LO}, ${LO}
.endif
    s_waitcnt 0
.if WIDEN_F16
    v_cvt_f32_f16 ${X}, ${X}
.endif
.include "scale_bias.inc"         ; x = x * Scale + Bias (if the desc has a ScaleBias)
    v_max_${CT} ${X}, ${X}, ${LO}        ; max(x, Min): a NaN x yields Min
.if WIDEN_F16
    v_cvt_f16_f32 ${X}, ${X}
.endif
    buffer_store_${STORE} ${X}, ${OFF_T1}, s[12:15], 0
done:
    s_endpgm
