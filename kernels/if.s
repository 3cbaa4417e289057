; =============================================================================================
; ELEMENT_WISE_IF      y = a if condition != 0 else b
;
; Pure data movement: the selected element's bits are copied (NaN payloads, -0 preserved).
; Tensor 0 is ConditionTensor (UINT8), 1 is ATensor, 2 is BTensor, 3 is OutputTensor.
; =============================================================================================
.set TENSORS, 4
.include "prologue.inc"
.include "address.inc"
    s_load_dwordx4 s[8:11], s[0:1], ${DESC_T0}    ; ConditionTensor
    s_load_dwordx4 s[12:15], s[0:1], ${DESC_T1}   ; ATensor
    s_load_dwordx4 s[16:19], s[0:1], ${DESC_T2}   ; BTensor
    s_load_dwordx4 s[20:23], s[0:1], ${DESC_T3}   ; OutputTensor
    s_waitcnt 0
    buffer_load_ubyte v9, ${OFF_T0}, s[8:11], 0        ; condition byte
    buffer_load_${LOAD} ${A}, ${OFF_T1}, s[12:15], 0   ; a
    buffer_load_${LOAD} ${B}, ${OFF_T2}, s[16:19], 0   ; b
    s_waitcnt 0
    v_cmp_ne_u32 vcc, 0, v9              ; VCC = lanes whose condition is non-zero
    v_cndmask_${SEL} ${A}, ${B}, ${A}, vcc   ; VCC ? a : b
    buffer_store_${STORE} ${A}, ${OFF_T3}, s[20:23], 0
done:
    s_endpgm
