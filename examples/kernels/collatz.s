; =============================================================================================
; collatz.s: steps[i] = how many Collatz steps take x[i] to 1 (at most `limit`), a kernel whose
; lanes diverge: each lane leaves the loop after its own number of trips, and inside the loop odd
; and even values take different sides of an if/else. Both are done with the EXEC mask, as GPU
; compilers do: the loop runs while any lane is still active, and the if/else runs both sides, each
; under the mask of the lanes that take it.
;
;     x = x[i]; steps = 0
;     while x > 1 and steps < limit:
;         if x is odd: x = 3 * x + 1 (mod 2^32)   else: x = x / 2
;         steps += 1
;     steps[i] = steps
; Dispatch(ceil(n / 64), 1, 1) groups.
; =============================================================================================
.numthreads 64
.root_constants b0, 2                ; s5 = n, s6 = limit
.srv t0                              ; x (UINT32)
.uav u0                              ; steps (UINT32)
    s_mul_i32 s24, s21, 64               ; first thread of this group
    v_add_u32 v4, s24, v0                ; i = SV_DispatchThreadID.x
    v_cmp_gt_u32 vcc, s5, v4             ; lanes with i < n
    s_and_b64 exec, exec, vcc
    s_cbranch_execz done
    s_load_dwordx4 s[8:11], s[0:1], ${SLOT_T0}
    s_load_dwordx4 s[12:15], s[0:1], ${SLOT_U0}
    s_waitcnt 0
    v_lshl_b32 v5, v4, 2                 ; byte offset of element i
    buffer_load_dword v6, v5, s[8:11], 0     ; x
    v_mov_b32 v7, 0                      ; steps
    s_mov_b64 s[16:17], exec             ; the lanes with an element: restored before the store
    s_waitcnt 0
loop:
    v_cmp_gt_u32 vcc, v6, 1              ; lanes still going: x > 1 ...
    s_and_b64 exec, exec, vcc
    v_cmp_gt_u32 vcc, s6, v7             ; ... and steps < limit
    s_and_b64 exec, exec, vcc            ; a lane that stops stays off for the rest of the loop
    s_cbranch_execz store                ; every lane has finished
    s_mov_b64 s[18:19], exec             ; if/else: save the loop's lanes
    v_and_b32 v8, v6, 1
    v_cmp_eq_u32 vcc, v8, 1              ; VCC = the odd lanes
    s_and_b64 exec, exec, vcc            ; then-side: odd lanes only
    v_mad_u32 v6, v6, 3, 1               ; x = 3 * x + 1
    s_andn2_b64 exec, s[18:19], vcc      ; else-side: the even lanes
    v_lshr_b32 v6, v6, 1                 ; x = x / 2
    s_mov_b64 exec, s[18:19]             ; end if: the loop's lanes again
    v_add_u32 v7, v7, 1                  ; steps += 1
    s_branch loop
store:
    s_mov_b64 exec, s[16:17]
    buffer_store_dword v7, v5, s[12:15], 0
done:
    s_endpgm
