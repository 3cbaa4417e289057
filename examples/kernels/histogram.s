; =============================================================================================
; histogram.s: bins[v] += 1 for every value v of an array, 256 bins of UINT32, with atomics.
;
; Many threads add to the same few bins at once; an atomic read-modify-write makes each addition
; whole. Two ways, chosen by the symbol PRIVATE (examples/histogram.py assembles both):
;   PRIVATE 0: every value is one buffer_atomic_add on the global bins, served at the L2;
;   PRIVATE 1: each thread group keeps its own histogram in LDS (ds_add_u32, on-chip), and at the
;              end adds its 256 counts to the global bins: one buffer_atomic_add per bin per group.
; The symbol ELEMENT_BYTES says what a value is: 1, a UINT8 (buffer_load_ubyte; bin = value) or 4, a
; UINT32 (buffer_load_dword; bin = value & 255).
;
; Group g of 256 threads takes values g*256*T .. (g+1)*256*T - 1, T = s6 values per thread: on trip
; k thread t reads value g*256*T + k*256 + t, so a wave reads neighbouring values (coalesced).
; Dispatch(ceil(n / (256 * T)), 1, 1); `bins` (256 UINT32) starts zeroed.
; =============================================================================================
.numthreads 256
.lds 1024                            ; 256 bins x 4 bytes (HLSL: groupshared uint bins[256])
.root_constants b0, 2                ; s5 = n (values), s6 = T (values per thread)
.srv t0                              ; values (UINT8 or UINT32)
.uav u0                              ; bins (256 UINT32)
    s_load_dwordx4 s[8:11], s[0:1], ${SLOT_T0}
    s_load_dwordx4 s[12:15], s[0:1], ${SLOT_U0}
    v_lshl_b32 v4, v0, 2                 ; thread t's bin: byte 4t of the LDS bins and of `bins`
    v_mov_b32 v7, 1                      ; what an atomic adds
.if PRIVATE
    v_mov_b32 v5, 0
    ds_write_b32 v4, v5, 0               ; LDS bins[t] = 0
    s_barrier                            ; every bin is zero before any wave adds to one
.endif
    s_mul_i32 s24, s21, s6               ; g * T
    s_lshl_b32 s24, s24, 8               ; g * T * 256: the group's first value
    v_add_u32 v6, s24, v0                ; i = the thread's first value
    s_mov_b64 s[16:17], exec             ; the group's lanes
    s_mov_b32 s18, s6                    ; trips left
    s_waitcnt 0
loop:
    v_cmp_gt_u32 vcc, s5, v6             ; lanes with i < n ...
    s_and_b64 exec, s[16:17], vcc        ; ... run this trip
.if ELEMENT_BYTES == 1
    buffer_load_ubyte v8, v6, s[8:11], 0     ; value (0 .. 255)
.else
    v_lshl_b32 v9, v6, 2
    buffer_load_dword v8, v9, s[8:11], 0
.endif
    s_waitcnt 0
.if ELEMENT_BYTES != 1
    v_and_b32 v8, v8, 255                ; bin = value & 255
.endif
    v_lshl_b32 v8, v8, 2                 ; the bin's byte address
.if PRIVATE
    ds_add_u32 v8, v7, 0                 ; LDS bins[value] += 1, atomically within the group
.else
    buffer_atomic_add v7, v8, s[12:15], 0    ; bins[value] += 1 at the L2
.endif
    s_mov_b64 exec, s[16:17]
    v_add_u32 v6, v6, 256                ; the next trip's value
    s_sub_u32 s18, s18, 1
    s_cmp_lg_u32 s18, 0
    s_cbranch_scc1 loop
.if PRIVATE
    s_barrier                            ; every wave has added its values
    ds_read_b32 v9, v4, 0                ; this group's count of bin t
    s_waitcnt 0
    buffer_atomic_add v9, v4, s[12:15], 0    ; bins[t] += it
.endif
    s_endpgm
