; =============================================================================================
; unpooling.s: DML_OPERATOR_MAX_UNPOOLING. One thread per output element; no element is written by
; two threads, so the result does not depend on the order of waves (docs/NUMERICS.md, "Pooling"):
;
;   o = this thread's output element, row-major over the output's Sizes (= its flat index)
;   y = 0
;   for (n, c, h, w) over the input's Sizes, row-major ascending (a uniform loop: every lane reads
;   the same input element and index):
;     where indices[n, c, h, w] == o: y = x[n, c, h, w]   (an index past the output never equals o;
;                                                         of several equal indices the last wins)
;   store y (the bits as loaded: NaN payloads, -0 kept)
;
; Launch (kernels/window_ops.py compile_unpooling): ceil(elements / 64) workgroups of 64 threads.
; Cost: every thread reads every input element (the desc says nothing of a window, and an index may
; name any output element), so a launch takes N_out x N_in lane-steps.
;
; Constant buffer (records of kernels/constant_buffer.py, `UNPOOLING_RECORD_USE` in window_ops.py):
;   record 0, 1, 2, 3   W, H, C, N: output size, its division magic (shift1, shift2), the output's
;                       stride, the input's size, the input's stride, the indices' stride
; DATA_LOAD / DATA_STORE: the element's size class; PAIR: 8-byte elements (v[20:21]); INDEX_PAIR:
; UINT64 indices (a match needs the high dword 0).
; =============================================================================================
.include "prologue.inc"                  ; v1 = this thread's output element; EXEC: lanes with one
    s_load_dwordx4 s[8:11], s[0:1], ${DESC_T0}      ; InputTensor
    s_load_dwordx4 s[12:15], s[0:1], ${DESC_T1}     ; IndicesTensor
    s_load_dwordx4 s[16:19], s[0:1], ${DESC_T2}     ; OutputTensor
    s_load_dwordx8 s[24:31], s[2:3], ${CB_UNPOOL_W} ; OW, magic, shift1, shift2, out_w, IW, x_w, i_w
    s_load_dwordx8 s[32:39], s[2:3], ${CB_UNPOOL_H}
    s_load_dwordx8 s[40:47], s[2:3], ${CB_UNPOOL_C}
    s_load_dwordx8 s[48:55], s[2:3], ${CB_UNPOOL_N}
    s_waitcnt 0

; ---- the output element's offset: ow, oh, oc, on (Granlund-Montgomery, as address.inc) --------------
    v_mul_hi_u32 v2, v1, s25
    v_sub_u32 v3, v1, v2
    v_lshr_b32 v3, v3, s26
    v_add_u32 v2, v2, v3
    v_lshr_b32 v2, v2, s27               ; q = o / OW
    v_mul_lo_u32 v3, v2, s24
    v_sub_u32 v4, v1, v3                 ; ow
    v_mul_lo_u32 v10, v4, s28            ; out offset: ow
    v_mul_hi_u32 v3, v2, s33
    v_sub_u32 v5, v2, v3
    v_lshr_b32 v5, v5, s34
    v_add_u32 v3, v3, v5
    v_lshr_b32 v3, v3, s35               ; q' = q / OH
    v_mul_lo_u32 v5, v3, s32
    v_sub_u32 v4, v2, v5                 ; oh
    v_mad_u32 v10, v4, s36, v10
    v_mul_hi_u32 v2, v3, s41
    v_sub_u32 v5, v3, v2
    v_lshr_b32 v5, v5, s42
    v_add_u32 v2, v2, v5
    v_lshr_b32 v2, v2, s43               ; on = q' / OC
    v_mul_lo_u32 v5, v2, s40
    v_sub_u32 v4, v3, v5                 ; oc
    v_mad_u32 v10, v4, s44, v10
    v_mad_u32 v10, v2, s52, v10          ; out[on, oc, oh, ow]
    v_lshl_b32 v10, v10, ${SHIFT}
    v_mov_b32 v40, v1                    ; o, and (INDEX_PAIR) a high dword 0: the 64-bit o
    v_mov_b32 v41, 0
    v_mov_b32 v20, 0                     ; y = 0 (a zero of every type)
    v_mov_b32 v21, 0

; ---- every input element, row-major: n, c, h, w ascending ----------------------------------------
    s_mov_b32 s60, 0                     ; x offset of (n, 0, 0, 0), elements
    s_mov_b32 s61, 0                     ; indices offset of (n, 0, 0, 0)
    s_mov_b32 s56, s53                   ; n left: IN
loop_n:
    s_mov_b32 s62, s60
    s_mov_b32 s63, s61
    s_mov_b32 s57, s45                   ; c left: IC
loop_c:
    s_mov_b32 s64, s62
    s_mov_b32 s65, s63
    s_mov_b32 s58, s37                   ; h left: IH
loop_h:
    s_mov_b32 s66, s64
    s_mov_b32 s67, s65
    s_mov_b32 s59, s29                   ; w left: IW
loop_w:
    s_lshl_b32 s68, s66, ${SHIFT}
    v_mov_b32 v11, s68
    buffer_load_${LOAD} ${X_REG}, v11, s[8:11], 0          ; x[n, c, h, w] (every lane the same)
    s_lshl_b32 s69, s67, ${INDEX_SHIFT}
    v_mov_b32 v12, s69
    buffer_load_${INDEX_LOAD} ${INDEX_REG}, v12, s[12:15], 0 ; its index
    s_waitcnt 0
    ${INDEX_CMP} vcc, ${INDEX_REG}, ${O_REG}               ; it names this output element
    v_cndmask_b32 v20, v20, v22, vcc     ; y = x (the last match wins)
.if PAIR
    v_cndmask_b32 v21, v21, v23, vcc
.endif
    s_add_u32 s66, s66, s30              ; the next w
    s_add_u32 s67, s67, s31
    s_sub_u32 s59, s59, 1
    s_cmp_lg_u32 s59, 0
    s_cbranch_scc1 loop_w
    s_add_u32 s64, s64, s38              ; the next h
    s_add_u32 s65, s65, s39
    s_sub_u32 s58, s58, 1
    s_cmp_lg_u32 s58, 0
    s_cbranch_scc1 loop_h
    s_add_u32 s62, s62, s46              ; the next c
    s_add_u32 s63, s63, s47
    s_sub_u32 s57, s57, 1
    s_cmp_lg_u32 s57, 0
    s_cbranch_scc1 loop_c
    s_add_u32 s60, s60, s54              ; the next n
    s_add_u32 s61, s61, s55
    s_sub_u32 s56, s56, 1
    s_cmp_lg_u32 s56, 0
    s_cbranch_scc1 loop_n

    buffer_store_${STORE} ${Y_REG}, v10, s[16:19], 0
done:
    s_endpgm
