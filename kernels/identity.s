; =============================================================================================
; ELEMENT_WISE_IDENTITY      y = g(x)      g(x) = x * Scale + Bias (optional, float types only)
;
; Without ScaleBias this is a copy of bits (any layout change is done by the strides): the body
; is empty and nothing is widened. With it, FLOAT16 widens to f32 (or stays f16 with HALF) and
; rounds once at the end. Tensor 0 is InputTensor, tensor 1 is OutputTensor.
; =============================================================================================
.include "element_wise_head.inc"   ; x = g(input) in ${X}
.include "element_wise_tail.inc"   ; round to FLOAT16 (only after a ScaleBias), store
