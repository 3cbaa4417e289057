; =============================================================================================
; ELEMENT_WISE_CLIP      y = max(Min, min(g(x), Max))      g(x) = x * Scale + Bias (optional)
;
; Every element-wise kernel is the same three parts: element_wise_head.inc (find the element,
; address every tensor, load the inputs, widen FLOAT16, apply the ScaleBias), the operator's
; body (here, two instructions), and element_wise_tail.inc (narrow to FLOAT16, store). The
; driver assembles this one source for every data type with symbols that pick the load and
; store width (${LOAD_T0}/${STORE}), the compute type (${CT}) and the registers (64-bit types
; use register pairs). Tensor 0 is InputTensor, tensor 1 is OutputTensor.
;   FLOAT16, default: widen to f32, compute in f32, round to f16 once at the end (WIDEN_IN0).
;   FLOAT16, DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION: every step in f16 (HALF).
;   Integers: Min and Max are truncated and saturated to the tensor type; x stays an integer.
; The other operators' bodies are in element_wise_bodies.inc (kernels/element_wise_ops.py
; lists them); this one is spelled out here as the example to read.
; =============================================================================================
.include "element_wise_head.inc"   ; x = g(input) in ${X}; Min in ${LO} and Max in ${HI}, cast
    v_min_${CT} ${X}, ${X}, ${HI}        ; min(x, Max): a NaN x yields Max
    v_max_${CT} ${X}, ${LO}, ${X}        ; max(Min, .): Min wins when Min > Max
.include "element_wise_tail.inc"   ; round to FLOAT16 (if widened), store
