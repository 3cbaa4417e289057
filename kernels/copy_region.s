; =============================================================================================
; copy_region.s: the data movement operators' kernel (SLICE, SLICE1, TILE, DEPTH_TO_SPACE,
; SPACE_TO_DEPTH, PADDING; kernels/data_movement_ops.py turns each desc into this launch).
;
; One lane per element of the iteration domain (ELEMENTS, at most 8 merged dimension records).
; address.inc walks the records and gives the element's offset in tensor 0, the input (v2), and
; in tensor 1, the output (v3): the driver chose the records' strides so that every operator is a
; strided copy (a slice's window strides, a tile's stride-0 repeats, the block permutations of
; depth/space), or, with PAD, the padding's per-dimension fold. The input's base (PARAM0, in
; bytes: a slice's first element) is added; a constant padding cell reads element 0 and stores
; the value (PARAM2, PARAM3: the value's bits in the tensor's type). Bits move untouched: 8-,
; 16-, 32- and 64-bit elements load and store as they are, never converted.
; Tensor 0 is InputTensor, tensor 1 is OutputTensor.
; JOIN and SPLIT (PARTS: the number of parts, 1 to 7) address every tensor at once: the inputs
; then the output (JOIN) or the input then the outputs (SPLIT), plus a last column of strides
; that is 1 along the axis and 0 elsewhere, whose "offset" is the axis coordinate (${COORD});
; copy_parts.inc then loads (stores) each part under EXEC masked to its lanes: one dispatch.
; =============================================================================================
.include "prologue.inc"              ; v1 = this lane's element index; lanes past the end off
.include "address.inc"               ; v2 = input byte offset, v3 = output byte offset
.if PARTS
.include "copy_parts.inc"            ; JOIN, SPLIT: one part after another, masked by EXEC
.else
    s_load_dwordx4 s[8:11], s[0:1], ${DESC_T0}    ; buffer descriptor of the input
    s_load_dwordx4 s[12:15], s[0:1], ${DESC_T1}   ; and of the output
    s_load_dwordx4 s[44:47], s[2:3], ${CB_PARAM0} ; input base (bytes), unused, value low, value high
    s_waitcnt 0
    v_add_u32 v2, v2, s44                ; the first element read (a slice's offsets)
.if PAD_MODE == "CONSTANT"
    v_cmp_ne_u32 vcc, v27, 0             ; a padding cell: read element 0 (inside any input) ...
    v_cndmask_b32 v2, v2, 0, vcc
.endif
    buffer_load_${LOAD} ${X}, v2, s[8:11], 0
    s_waitcnt 0
.if PAD_MODE == "CONSTANT"
    v_cndmask_${SEL} ${X}, ${X}, ${VALUE}, vcc    ; ... and store the value instead
.endif
    buffer_store_${STORE} ${X}, v3, s[12:15], 0
.endif
done:
    s_endpgm
