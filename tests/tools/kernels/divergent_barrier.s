; Waves 0 and 1 of a 16-thread workgroup (waves of 8) wait at different s_barrier instructions: a hang.
.numthreads 16, 1, 1
.lds 64
.uav u0
    s_get_wave_id s30
    s_cmp_eq_u32 s30, 1
    s_cbranch_scc1 other
    s_barrier
    s_endpgm
other:
    s_barrier
    s_endpgm
