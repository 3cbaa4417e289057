; =============================================================================================
; ELEMENT_WISE_CLIP      y = max(Min, min(g(x), Max))      g(x) = x * Scale + Bias (optional)
;
; One source for every data type: the driver assembles it with symbols that pick the load and
; store width (${LOAD}/${STORE}), the compute type (${CT}) and the registers (64-bit types use
; register pairs). Tensor 0 is InputTensor, tensor 1 is OutputTensor.
;   FLOAT16, default: widen to f32, compute in f32, round to f16 once at the end (WIDEN_F16).
;   FLOAT16, DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION: every step in f16 (HALF).
;   Integers: Min and Max are truncated and saturated to the tensor type; x stays an integer.
; =============================================================================================
.set TENSORS, 2
.include "prologue.inc"
.include "address.inc"
    s_load_dwordx4 s[8:11], s[0:1], ${DESC_T0}    ; buffer descriptor of InputTensor (table slot 0)
    s_load_dwordx4 s[12:15], s[0:1], ${DESC_T1}   ; buffer descriptor of OutputTensor (table slot 1)
    s_load_dwordx4 s[38:41], s[2:3], ${CB_MIN}    ; Min, Max, Scale, Bias: FLOAT32 bit patterns
    s_waitcnt 0
    buffer_load_${LOAD} ${X}, ${OFF_T0}, s[8:11], 0   ; x, one element per lane
.if BOUND_CVT != "none"
    ${BOUND_CVT} ${LO}, s38              ; cast Min and Max to the tensor's type
    ${BOUND_CVT} ${HI}, s39
.endif
.if WIDEN_F16
    v_cvt_f32_f16 ${LO}, ${LO}           ; the FLOAT16-rounded bounds, compared in f32
    v_cvt_f32_f16 ${HI}, ${HI}
.endif
    s_waitcnt 0                          ; wait for x
.if WIDEN_F16
    v_cvt_f32_f16 ${X}, ${X}             ; exact widening
.endif
.include "scale_bias.inc"         ; x = x * Scale + Bias (if the desc has a ScaleBias)
    v_min_${CT} ${X}, ${X}, ${HI}        ; min(x, Max): a NaN x yields Max
    v_max_${CT} ${X}, ${LO}, ${X}        ; max(Min, .): Min wins when Min > Max
.if WIDEN_F16
    v_cvt_f16_f32 ${X}, ${X}             ; round to nearest even, once
.endif
    buffer_store_${STORE} ${X}, ${OFF_T1}, s[12:15], 0
done:
    s_endpgm
