; =============================================================================================
; normalization.s: DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION1 (and MEAN_VARIANCE_NORMALIZATION,
; whose CrossChannel names the axes; and LP_NORMALIZATION: pass 1 sums |x| or x * x, the norm
; S1 or sqrt(S1) raised to Epsilon where below it, and pass 3 is y = x / norm). Output = FusedActivation(Scale * (Input - Mean) /
; sqrt(Variance + Epsilon) + Bias) for every group of elements that share their coordinates
; outside Axes; the order of every operation is docs/NUMERICS.md's "Normalization".
;
; Launch (kernels/normalization_ops.py): one workgroup of L threads per group, as the reductions
; (kernels/reduce.s): L = 64 .. 1024 from N, the elements of a group, whatever the wave width.
;   1. the workgroup id, peeled over the kept dimensions, gives the group's first element's
;      offset in the input, Scale, Bias and output (v100 .. v103; Scale and Bias broadcast by
;      stride 0 where their size is 1);
;   2. pass 1 (normalization_pass.inc): thread t sums x[k] for k = t, t + L, ... from -0, then the
;      reductions' fixed tree through LDS (reduce_tree.inc); thread 0 hands the sum S1 to every
;      thread through LDS 0, and each thread takes mean = S1 / N (one correctly rounded divide);
;   3. pass 2 (NormalizeVariance): the same for S2 = the sum of (x - mean)^2; var = S2 / N,
;      den = sqrt(var + Epsilon), each step rounded (v_sqrt_f32: correctly rounded);
;   4. pass 3: each element y = (x - mean) / den * Scale + Bias, each step rounded, then the
;      FusedActivation's own body (element_wise_bodies.inc), FLOAT16 narrowed once, stored.
; With CACHE, pass 1 keeps x in LDS and passes 2 and 3 read it there: the input is read from
; memory once. LDS: the tree's L dwords at 0, then (CACHE) N dwords at ${LDS_CACHE}.
;
; Constant buffer (kernels/constant_buffer.py; kernels/normalization_ops.py packs it):
;   RECORD_COUNT        kept-dimension records, innermost first: size, division magic, strides of
;                       the input (T0), Scale (T1), Bias (T2) and output (T3)
;   PARAM0              R, the reduced-dimension records right after the kept ones
;   PARAM1, PARAM2      N, and N as FLOAT32 (the divisor)
;   PARAM3              Epsilon (FLOAT32)
;   PARAM4 ..           the FusedActivation's attributes
; =============================================================================================
    s_load_dwordx4 s[8:11], s[0:1], ${DESC_T0}      ; the input's buffer descriptor
.if HAS_SCALE
    s_load_dwordx4 s[12:15], s[0:1], ${DESC_T1}     ; Scale's
.endif
.if HAS_BIAS
    s_load_dwordx4 s[16:19], s[0:1], ${DESC_T2}     ; Bias's
.endif
    s_load_dwordx4 s[20:23], s[0:1], ${DESC_T3}     ; the output's
.if TRAINING
    s_load_dwordx4 s[80:83], s[0:1], ${DESC_MEAN}   ; BATCH_NORMALIZATION_TRAINING: OutputMean's
    s_load_dwordx4 s[84:87], s[0:1], ${DESC_VAR}    ; OutputVariance's
.endif
.if HAS_ADD
    s_load_dwordx4 s[72:75], s[0:1], ${DESC_ADD}    ; FusedAdd's
.endif
    s_load_dwordx4 s[56:59], s[2:3], ${CB_PARAM0}   ; R, N, N as FLOAT32, Epsilon
    s_load_dword s26, s[2:3], ${CB_RECORD_COUNT}    ; kept records
    s_waitcnt 0
    s_mov_b64 s[40:41], exec             ; every thread of the workgroup (restored after each branch)
    s_cmp_gt_u32 s26, ${CB_MAX_RECORDS}  ; counts outside the record array (bytes never initialized)
    s_cbranch_scc1 done                  ; end the workgroup, as a bounded loop would
    s_cmp_gt_u32 s56, ${CB_MAX_RECORDS}
    s_cbranch_scc1 done

; ---- 1. the group's offsets: peel the workgroup id over the kept dimensions -------------------------
    v_mov_b32 v100, 0                    ; input
    v_mov_b32 v101, 0                    ; Scale
    v_mov_b32 v102, 0                    ; Bias
    v_mov_b32 v103, 0                    ; output
    v_mov_b32 v116, 0                    ; FusedAdd (TRAINING: WIDE_RECORDS' T4)
    v_mov_b32 v117, 0                    ; OutputMean (T5)
    v_mov_b32 v118, 0                    ; OutputVariance (T6)
    v_mov_b32 v112, s4                   ; the part of the group index still to decompose
    s_mov_b32 s36, ${CB_RECORDS}
    s_cmp_eq_u32 s26, 0
    s_cbranch_scc1 kept_done             ; every dimension normalized together: one group
kept_dim:
    s_load_dwordx8 s[28:35], s[2:3], s36 ; size, magic, shift1, shift2, strides of the four tensors
    s_waitcnt 0
    v_mul_hi_u32 v113, v112, s29         ; q = index / size (Granlund-Montgomery, as address.inc)
    v_sub_u32 v109, v112, v113
    v_lshr_b32 v109, v109, s30
    v_add_u32 v113, v113, v109
    v_lshr_b32 v113, v113, s31
    v_mul_lo_u32 v109, v113, s28
    v_sub_u32 v109, v112, v109           ; coordinate = index - q * size
    v_mad_u32 v100, v109, s32, v100
    v_mad_u32 v101, v109, s33, v101
    v_mad_u32 v102, v109, s34, v102
    v_mad_u32 v103, v109, s35, v103
.if TRAINING
    s_add_u32 s38, s36, ${WIDE_DELTA}    ; the record's strides of tensors 4 .. (WIDE_RECORDS)
    s_load_dwordx8 s[88:95], s[2:3], s38
    s_waitcnt 0
    v_mad_u32 v116, v109, s88, v116
    v_mad_u32 v117, v109, s89, v117
    v_mad_u32 v118, v109, s90, v118
.endif
    v_mov_b32 v112, v113
    s_add_u32 s36, s36, ${CB_RECORD_BYTES}
    s_sub_u32 s26, s26, 1
    s_cmp_lg_u32 s26, 0
    s_cbranch_scc1 kept_dim
kept_done:
    s_mov_b32 s60, s36                   ; the reduced records follow the kept ones
.if INNER_LINEAR
    s_load_dwordx8 s[64:71], s[2:3], s60 ; one reduced record: its strides, loaded once
.if TRAINING
    s_add_u32 s38, s60, ${WIDE_DELTA}
    s_load_dwordx8 s[96:103], s[2:3], s38   ; and its strides of tensors 4 ..
.endif
    s_waitcnt 0
.endif

; ---- 2. pass 1 and the tree: S1; mean = S1 / N in every thread --------------------------------------
.set PASS, 1
.include "normalization_pass.inc"
.include "reduce_tree.inc"
    ds_write_b32 v5, v10, 0              ; thread 0 puts S1 at LDS 0 ...
    s_mov_b64 exec, s[40:41]
    s_barrier
    v_mov_b32 v109, 0
    ds_read_b32 v110, v109, 0            ; ... and every thread reads it
    s_barrier                            ; before the next tree writes LDS 0 again
.if CENTER
    v_div_f32 v110, v110, s58            ; mean = S1 / N, correctly rounded
.else
.if TERM == "SQUARE"
    v_sqrt_f32 v111, v110                ; LP_NORMALIZATION P = 2: the norm sqrt(S1), correctly rounded
.else
    v_mov_b32 v111, v110                 ; P = 1: the norm S1
.endif
    v_mov_b32 v109, s59
    v_cmp_lt_f32 vcc, v111, v109         ; a norm below Epsilon becomes Epsilon (a NaN norm stays NaN)
    v_cndmask_b32 v111, v111, v109, vcc
.endif

; ---- 3. pass 2 and the tree: S2; den = sqrt(S2 / N + Epsilon) ------------------------------------------
.if NORMALIZE_VARIANCE
.set PASS, 2
.include "normalization_pass.inc"
.include "reduce_tree.inc"
    ds_write_b32 v5, v10, 0
    s_mov_b64 exec, s[40:41]
    s_barrier
    v_mov_b32 v109, 0
    ds_read_b32 v111, v109, 0
    v_div_f32 v111, v111, s58            ; var = S2 / N
.if TRAINING
    v_cmp_eq_u32 vcc, 0, v0              ; thread 0 stores the group's mean and variance
    s_and_b64 exec, exec, vcc
    v_mov_b32 v10, v110
.if NARROW_F16
    v_cvt_f16_f32 v10, v10
.endif
    v_lshl_b32 v109, v117, ${SHIFT}
    buffer_store_${STORE} v10, v109, s[80:83], 0
    v_mov_b32 v10, v111                  ; the variance before Epsilon
.if NARROW_F16
    v_cvt_f16_f32 v10, v10
.endif
    v_lshl_b32 v109, v118, ${SHIFT}
    buffer_store_${STORE} v10, v109, s[84:87], 0
    s_mov_b64 exec, s[40:41]
.endif
    v_add_f32 v111, v111, s59            ; + Epsilon
    v_sqrt_f32 v111, v111                ; den, correctly rounded
.endif

; ---- 4. pass 3: normalize, scale, bias, activate, store -----------------------------------------------
.if HAS_ACT
    s_load_dwordx4 s[44:47], s[2:3], ${CB_PARAM4}   ; the activation's attributes (P_<NAME>)
    s_waitcnt 0
.endif
.set PASS, 3
.include "normalization_pass.inc"
done:
    s_endpgm
