; =============================================================================================
; ELEMENT_WISE_IF      y = a if condition != 0 else b
;
; Pure data movement: the selected element's bits are copied (NaN payloads, -0 preserved).
; Tensor 0 is ConditionTensor (UINT8, loaded into v9), 1 is ATensor (${A}), 2 is BTensor (${B}),
; 3 is OutputTensor.
; =============================================================================================
.include "element_wise_head.inc"   ; condition byte in v9, a in ${A}, b in ${B}
    v_cmp_ne_u32 vcc, 0, v9              ; VCC = lanes whose condition is non-zero
    v_cndmask_${SEL} ${A}, ${B}, ${A}, vcc   ; VCC ? a : b
.include "element_wise_tail.inc"
