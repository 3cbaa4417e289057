; =============================================================================================
; ELEMENT_WISE_THRESHOLD     y = max(g(x), Min)      g(x) = x * Scale + Bias (optional)
;
; Same structure as clip.s with one bound: elements below Min (and NaN) become Min.
; Tensor 0 is InputTensor, tensor 1 is OutputTensor.
; =============================================================================================
.include "element_wise_head.inc"   ; x = g(input) in ${X}; Min in ${LO}, cast
    v_max_${CT} ${X}, ${X}, ${LO}        ; max(x, Min): a NaN x yields Min
.include "element_wise_tail.inc"
