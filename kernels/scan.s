; =============================================================================================
; scan.s: DML_OPERATOR_CUMULATIVE_SUMMATION and CUMULATIVE_PRODUCT: one thread per line (the
; elements that share every coordinate but Axis), which walks its line in AxisDirection order and
; writes the running tally: a sequential scan, the order docs/NUMERICS.md's "Cumulative scans"
; fixes. ${COMBINE} adds or multiplies in the compute type ${CT} (FLOAT16 in FLOAT32, rounded once
; at each store; integers wrap); the tally starts at ${IDENTITY} (an inclusive float sum at -0,
; so that the first output is the first element; an exclusive one at +0, its first output).
;   EXCLUSIVE: each output is the tally before its element (HasExclusiveSum / HasExclusiveProduct).
;
; Constant buffer (kernels/constant_buffer.py; kernels/scan_ops.py packs it):
;   ELEMENTS, WORKGROUP_SIZE  the lines and the threads per workgroup (prologue.inc)
;   RECORD_COUNT        the other dimensions' records, innermost first (size, division magic, the
;                       input's stride T0, the output's T1); 0 when Axis is the only one
;   PARAM0              the line's length n
;   PARAM1, PARAM2      the input's first element (from the line's start, in elements) and step (in
;                       bytes) (AxisDirection DECREASING: (n - 1) stride and -stride, two's complement)
;   PARAM3, PARAM4      the same for the output
; =============================================================================================
.include "prologue.inc"
    s_load_dwordx4 s[8:11], s[0:1], ${DESC_T0}      ; the input's buffer descriptor
    s_load_dwordx4 s[12:15], s[0:1], ${DESC_T1}     ; the output's
    s_load_dwordx4 s[44:47], s[2:3], ${CB_PARAM0}   ; n, input start, input step, output start
    s_load_dword s48, s[2:3], ${CB_PARAM4}          ; output step
    s_load_dword s26, s[2:3], ${CB_RECORD_COUNT}
    s_waitcnt 0
    s_cmp_gt_u32 s26, ${CB_MAX_RECORDS}  ; counts outside the record array (bytes never initialized)
    s_cbranch_scc1 done

; ---- this line's first element: peel the line index v1 over the other dimensions --------------------
    v_mov_b32 v2, s45                    ; input element offset: the start along the axis ...
    v_mov_b32 v3, s47                    ; ... and the output's
    v_mov_b32 v6, v1
.set KEPT_THIRD, 0
.include "kept_offsets.inc"

; ---- the scan: n elements in AxisDirection order ---------------------------------------------------
.if IS_WIDE
    v_mov_b32 v18, ${IDENTITY_LO}        ; INT64 / UINT64: the tally in the pair v[18:19]
    v_mov_b32 v19, ${IDENTITY_HI}
.else
    v_mov_b32 v10, ${IDENTITY}
.endif
    v_lshl_b32 v8, v2, ${SHIFT_IN}       ; element -> byte offsets, once: the steps are in bytes
    v_lshl_b32 v9, v3, ${SHIFT_IN}
    s_mov_b32 s50, s44                   ; elements left (n >= 1: every size is at least 1)
next_element:
    buffer_load_${LOAD} ${X}, v8, s[8:11], 0
    s_waitcnt 0
.if WIDEN_F16
    v_cvt_f32_f16 v11, v11               ; FLOAT16 computes in FLOAT32 (exact widening)
.endif
.if EXCLUSIVE
.include "scan_store.inc"                ; the tally before this element ...
    ${COMBINE} ${ACC}, ${ACC}, ${X}      ; ... then the element joins it
.else
    ${COMBINE} ${ACC}, ${ACC}, ${X}      ; the element joins the tally, which is stored
.include "scan_store.inc"
.endif
    v_add_u32 v8, v8, s46                ; the next element along the axis (two's complement steps)
    v_add_u32 v9, v9, s48
    s_sub_u32 s50, s50, 1
    s_cmp_lg_u32 s50, 0
    s_cbranch_scc1 next_element
done:
    s_endpgm
