; =============================================================================================
; gather.s: DML_OPERATOR_GATHER, GATHER_ELEMENTS, GATHER_ND, GATHER_ND1. One thread per output
; element, whatever the operator (kernels/gather_ops.py turns each page's shape rule into the
; same records, through dmlemu.directml.gather_shapes):
;
;   1. prologue.inc + address.inc: the output element's coordinates, peeled over the output's
;      dimension records, give three offsets at once: v2 = the input element before the
;      gathered coordinates are added (tensor 0: stride 0 along the dimensions the indices
;      walk), v3 = the first component of its index tuple (tensor 1), v4 = the output (tensor 2);
;   2. PARAM0 = m tuple records follow the output's records (m = 1 for GATHER and
;      GATHER_ELEMENTS): size and stride of the input dimension component j names, and the
;      component's element offset in the indices; per component:
;        i = indices[v3 + offset_j]                  (${INDEX_TYPE}: 32 or 64 bits)
;        signed types: i < 0 -> i + size              (the pages: -1 is the last element)
;        0 <= i < size: v2 += i * stride; else the element is out of range (v9 = 1) and i = 0
;   3. load the input element and store it; an element with a component out of range stores 0
;      (docs/NUMERICS.md, "Gathers"): no read or write ever leaves the bound resources.
; The data moves as bits (${DATA_BYTES} bytes an element): every data type is one variant per size.
; DML_OPERATOR_ONE_HOT is the same walk (ONE_HOT): tensor 0 is ValuesTensor (stride 0: the OffValue), tensor 3
; counts the coordinate along Axis (v5), and the one component adds the OnValue's offset where the index
; equals that coordinate; an index out of range matches nothing (the page: "ignored").
; DML_OPERATOR_REVERSE_SUBSEQUENCES too (REVERSE): the component reads the subsequence's length L from
; SequenceLengthsTensor and reads the input at L - 1 - c where the coordinate c along Axis is below L
; (reverse_length.inc).
; =============================================================================================
.include "prologue.inc"
.include "address.inc"                   ; v2 input, v3 indices, v4 output (bytes); s36: next record
    s_load_dwordx4 s[8:11], s[0:1], ${DESC_DATA}  ; InputTensor (ONE_HOT: ValuesTensor)
    s_load_dwordx4 s[12:15], s[0:1], ${DESC_INDICES}   ; IndicesTensor
    s_load_dwordx4 s[16:19], s[0:1], ${DESC_OUT}  ; OutputTensor
    s_load_dword s44, s[2:3], ${CB_PARAM0}        ; m, the tuple records
    s_waitcnt 0
    s_sub_u32 s37, s44, 1                ; m from 1 to CB_MAX_RECORDS only (bytes never initialized
    s_cmp_ge_u32 s37, ${CB_MAX_RECORDS}  ; end the wave, as a bounded loop would)
    s_cbranch_scc1 done
    v_mov_b32 v9, 0                      ; 0 while every component is in range
    v_mov_b32 v16, 0                     ; a 64-bit zero
    v_mov_b32 v17, 0
component:
    s_cmp_ge_u32 s36, ${RECORDS_END}     ; never past the record array
    s_cbranch_scc1 done
    s_load_dwordx8 s[28:35], s[2:3], s36 ; size, -, -, -, input stride, component offset in indices
    s_waitcnt 0
    v_lshl_b32 v13, s33, ${SHIFT_T1}
    v_add_u32 v13, v3, v13               ; this component's byte offset in IndicesTensor
.if REVERSE
.include "reverse_length.inc"            ; v12 = the source coordinate along Axis
.else
.set INDEX_ADDR, v13
.set INDEX_SIZE, s28
.include "index_resolve.inc"             ; v10 = i (negative: + size); VCC = in range
.endif
.if REVERSE
.else
.if ONE_HOT
    v_cndmask_b32 v10, -1, v10, vcc      ; out of range: matches no coordinate ("ignored")
    v_cmp_eq_u32 vcc, v10, v5            ; the element's coordinate along Axis (tensor 3)
    v_cndmask_b32 v12, 0, s32, vcc       ; the OnValue's offset in ValuesTensor, else the OffValue's (0)
.else
    v_cndmask_b32 v12, 1, 0, vcc         ; 1 where out of range
    v_or_b32 v9, v9, v12
    v_cndmask_b32 v10, 0, v10, vcc       ; out of range: coordinate 0 (the read stays in the tensor)
    v_mul_lo_u32 v12, v10, s32           ; i * stride
.endif
.endif
    v_lshl_b32 v12, v12, ${SHIFT_T0}
    v_add_u32 v2, v2, v12                ; input offset += i * stride
    s_add_u32 s36, s36, ${CB_RECORD_BYTES}
    s_sub_u32 s44, s44, 1
    s_cmp_lg_u32 s44, 0
    s_cbranch_scc1 component             ; uniform loop: every wave takes the same trips
    buffer_load_${LOAD} ${DATA}, v2, s[8:11], 0
    s_waitcnt 0
    v_cmp_eq_u32 vcc, v9, 0
    v_cndmask_b32 v20, 0, v20, vcc       ; an element out of range stores 0
.if DATA_PAIR
    v_cndmask_b32 v21, 0, v21, vcc
.endif
    buffer_store_${STORE} ${DATA}, v4, s[16:19], 0
done:
    s_endpgm
