; =============================================================================================
; The element-wise kernel: one source for every element-wise and activation operator that has
; no listing of its own (clip.s, identity.s, threshold.s, if.s).
;
;   element_wise_head.inc     prologue, addressing, descriptors, constants, loads, widening,
;                             ScaleBias
;   element_wise_bodies.inc   the operator's body, chosen by ${BODY} (the operator's name)
;   element_wise_tail.inc     the FusedActivation's body, narrowing, store
;
; kernels/element_wise_ops.py is the table: per operator its tensors, data types, attributes
; and the symbols its body reads; kernels/driver.py assembles this file once per variant.
; =============================================================================================
.include "element_wise_head.inc"
.include "element_wise_bodies.inc"
.include "element_wise_quantize.inc"
.include "element_wise_tail.inc"
