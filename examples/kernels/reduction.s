; =============================================================================================
; reduction.s: the sum of n FLOAT32 values, one partial sum per thread group of 256, in a fixed order.
;
; Group g sums a[t] = x[g*256 + t] (0.0 past n) for t = 0 .. 255 as a tree that halves:
;     for s = 128, 64, ..., 1:  a[t] = a[t] + a[t + s]  for every t < s
; and writes a[0] to partial[g]. The order is fixed, so NumPy (examples/reduction.py) computes the
; same additions and gets the same bits; FLOAT32 addition is not associative, so another order (a
; loop, numpy.sum's pairwise blocks) may differ in the last bits.
;
; Two phases, chosen by symbols examples/reduction.py sets from the adapter's wave width W:
;   LDS_<s> = 1: step s goes through LDS: each thread t < s reads a[t + s] from LDS, adds, writes
;       a[t]; an s_barrier between steps, since a[t + s] was written by another wave. The runner sets
;       it for s >= W (CROSS_LANE) or for every s (LDS only).
;   XOR_<m> = 1: step m < W stays in registers: when a[0 .. W-1] are the lanes of wave 0, lane l
;       reads lane l xor m (v_mov_b32_xor, a butterfly) and adds. For l < m, l xor m = l + m: the
;       same addition as the LDS step, with no LDS traffic and no barrier (log2(W) steps).
;
; Dispatch(ceil(n / 256), 1, 1) groups; partial has one FLOAT32 per group.
; =============================================================================================
.numthreads 256
.lds 1024                            ; a[0 .. 255] (HLSL: groupshared float a[256])
.root_constants b0, 1                ; s5 = n
.srv t0                              ; x (n FLOAT32)
.uav u0                              ; partial (one FLOAT32 per group)
    s_load_dwordx4 s[8:11], s[0:1], ${SLOT_T0}
    s_load_dwordx4 s[12:15], s[0:1], ${SLOT_U0}
    s_lshl_b32 s24, s21, 8               ; g * 256
    v_add_u32 v4, s24, v0                ; i = g*256 + t
    v_lshl_b32 v5, v4, 2
    v_mov_b32 v6, 0                      ; 0.0 for threads past n
    s_mov_b64 s[16:17], exec             ; the group's lanes
    v_cmp_gt_u32 vcc, s5, v4
    s_and_b64 exec, exec, vcc            ; threads with i < n ...
    s_waitcnt 0
    buffer_load_dword v6, v5, s[8:11], 0     ; ... load x[i]
    s_mov_b64 exec, s[16:17]
    v_lshl_b32 v7, v0, 2                 ; LDS byte address of a[t]
    s_waitcnt 0
    ds_write_b32 v7, v6, 0               ; a[t] = x[i]; v6 keeps a[t] in the thread's register
    s_barrier
.if LDS_128
    v_cmp_gt_u32 vcc, 128, v0            ; threads t < 128 ...
    s_and_b64 exec, s[16:17], vcc
    ds_read_b32 v8, v7, 512              ; ... read a[t + 128]
    s_waitcnt 0
    v_add_f32 v6, v6, v8                 ; a[t] + a[t + 128]
    ds_write_b32 v7, v6, 0               ; a[t] = the sum
    s_mov_b64 exec, s[16:17]
    s_barrier                            ; every wave (also those with no thread left) waits
.endif
.if LDS_64
    v_cmp_gt_u32 vcc, 64, v0            ; threads t < 64 ...
    s_and_b64 exec, s[16:17], vcc
    ds_read_b32 v8, v7, 256              ; ... read a[t + 64]
    s_waitcnt 0
    v_add_f32 v6, v6, v8                 ; a[t] + a[t + 64]
    ds_write_b32 v7, v6, 0               ; a[t] = the sum
    s_mov_b64 exec, s[16:17]
    s_barrier                            ; every wave (also those with no thread left) waits
.endif
.if LDS_32
    v_cmp_gt_u32 vcc, 32, v0            ; threads t < 32 ...
    s_and_b64 exec, s[16:17], vcc
    ds_read_b32 v8, v7, 128              ; ... read a[t + 32]
    s_waitcnt 0
    v_add_f32 v6, v6, v8                 ; a[t] + a[t + 32]
    ds_write_b32 v7, v6, 0               ; a[t] = the sum
    s_mov_b64 exec, s[16:17]
    s_barrier                            ; every wave (also those with no thread left) waits
.endif
.if LDS_16
    v_cmp_gt_u32 vcc, 16, v0            ; threads t < 16 ...
    s_and_b64 exec, s[16:17], vcc
    ds_read_b32 v8, v7, 64              ; ... read a[t + 16]
    s_waitcnt 0
    v_add_f32 v6, v6, v8                 ; a[t] + a[t + 16]
    ds_write_b32 v7, v6, 0               ; a[t] = the sum
    s_mov_b64 exec, s[16:17]
    s_barrier                            ; every wave (also those with no thread left) waits
.endif
.if LDS_8
    v_cmp_gt_u32 vcc, 8, v0            ; threads t < 8 ...
    s_and_b64 exec, s[16:17], vcc
    ds_read_b32 v8, v7, 32              ; ... read a[t + 8]
    s_waitcnt 0
    v_add_f32 v6, v6, v8                 ; a[t] + a[t + 8]
    ds_write_b32 v7, v6, 0               ; a[t] = the sum
    s_mov_b64 exec, s[16:17]
    s_barrier                            ; every wave (also those with no thread left) waits
.endif
.if LDS_4
    v_cmp_gt_u32 vcc, 4, v0            ; threads t < 4 ...
    s_and_b64 exec, s[16:17], vcc
    ds_read_b32 v8, v7, 16              ; ... read a[t + 4]
    s_waitcnt 0
    v_add_f32 v6, v6, v8                 ; a[t] + a[t + 4]
    ds_write_b32 v7, v6, 0               ; a[t] = the sum
    s_mov_b64 exec, s[16:17]
    s_barrier                            ; every wave (also those with no thread left) waits
.endif
.if LDS_2
    v_cmp_gt_u32 vcc, 2, v0            ; threads t < 2 ...
    s_and_b64 exec, s[16:17], vcc
    ds_read_b32 v8, v7, 8              ; ... read a[t + 2]
    s_waitcnt 0
    v_add_f32 v6, v6, v8                 ; a[t] + a[t + 2]
    ds_write_b32 v7, v6, 0               ; a[t] = the sum
    s_mov_b64 exec, s[16:17]
    s_barrier                            ; every wave (also those with no thread left) waits
.endif
.if LDS_1
    v_cmp_gt_u32 vcc, 1, v0            ; threads t < 1 ...
    s_and_b64 exec, s[16:17], vcc
    ds_read_b32 v8, v7, 4              ; ... read a[t + 1]
    s_waitcnt 0
    v_add_f32 v6, v6, v8                 ; a[t] + a[t + 1]
    ds_write_b32 v7, v6, 0               ; a[t] = the sum
    s_mov_b64 exec, s[16:17]
    s_barrier                            ; every wave (also those with no thread left) waits
.endif
.if XOR_32
    v_mov_b32_xor v9, v6, 32             ; lane l reads lane l xor 32
    v_add_f32 v6, v6, v9
.endif
.if XOR_16
    v_mov_b32_xor v9, v6, 16             ; lane l reads lane l xor 16
    v_add_f32 v6, v6, v9
.endif
.if XOR_8
    v_mov_b32_xor v9, v6, 8             ; lane l reads lane l xor 8
    v_add_f32 v6, v6, v9
.endif
.if XOR_4
    v_mov_b32_xor v9, v6, 4             ; lane l reads lane l xor 4
    v_add_f32 v6, v6, v9
.endif
.if XOR_2
    v_mov_b32_xor v9, v6, 2             ; lane l reads lane l xor 2
    v_add_f32 v6, v6, v9
.endif
.if XOR_1
    v_mov_b32_xor v9, v6, 1             ; lane l reads lane l xor 1
    v_add_f32 v6, v6, v9
.endif
    v_cmp_eq_u32 vcc, 0, v0              ; thread 0 holds the group's sum
    s_and_b64 exec, s[16:17], vcc
    s_lshl_b32 s26, s21, 2
    v_mov_b32 v10, s26                   ; partial[g]'s byte offset
    buffer_store_dword v6, v10, s[12:15], 0
    s_endpgm
