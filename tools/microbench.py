"""Microbenchmark kernels: one chain of instructions per rate class of the ISA table.

Read by bench/bench_rates.py (a dispatch per class on each preset) and tests/isa/test_instruction_rates.py
(the path cost of each chain). Each chain repeats one instruction of its class over a few registers,
so its time is the class's issue rate, not a dependency's latency.
"""
from dmlemu.isa.program import Program
from dmlemu.isa.assembler import assemble

CHAINS = {
    "full": "v_mad_f32 v2, v4, v6, v8",
    "fp64": "v_mad_f64 v[2:3], v[4:5], v[6:7], v[8:9]",
    "int32_mul": "v_mul_lo_u32 v2, v4, v6",
    "int64": "v_min_u64 v[2:3], v[4:5], v[6:7]",
    "conversion": "v_cvt_i32_f32 v2, v4",
    "transcendental": "v_exp_f32 v2, v4",
    "packed_f16": "v_pk_fma_f16 v2, v4, v6, v8",
}


def chain_program(rate_class, length):
    """A program of `length` instructions of one rate class, then s_endpgm."""
    return Program(assemble("\n".join([CHAINS[rate_class]] * length + ["s_endpgm"])), f"chain_{rate_class}")
