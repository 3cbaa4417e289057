"""Benchmark: instruction rates, one microbenchmark kernel per rate class on each preset.

Each kernel is a chain of 256 instructions of one class (v_mad_f32 for full rate, v_mad_f64,
v_mul_lo_u32, v_min_u64, v_cvt_i32_f32, v_exp_f32 for the transcendental unit) run by enough waves to fill every SIMD's slots eight times
over, with the timing model on. The table shows the dispatch's cycles and their ratio to the
full-rate chain: the preset's valu_rate_cycles for that class (e.g. FP64 at 1/64 on the RTX 3070,
1/16 on the RDNA presets; v_exp_f32 at 1/4 on the RDNA presets, 1/8 on the RTX 3070), diluted only by
the launch and the tail.

    .venv/bin/python bench/bench_rates.py
"""
import time

from dmlemu.functional.wave_dispatcher import KernelLaunch
from dmlemu.gpu import Gpu
from dmlemu.presets import IRIS_XE, RTX_3070, RX_6800_XT, RX_7900_XTX
from dmlemu.tools.microbench import CHAINS, chain_program

LENGTH = 256


def chain_cycles(preset, rate_class):
    program = chain_program(rate_class, LENGTH)
    gpu = Gpu(preset)
    waves = preset.compute_units * preset.simds_per_cu * preset.waves_per_simd * 8
    per_group = preset.workgroup_size // preset.wave_width
    launch = KernelLaunch(program, num_workgroups=-(-waves // per_group), workgroup_size=preset.workgroup_size,
                          name=program.name, vgprs_used=10, sgprs_used=4)
    return gpu.dispatch(launch).cycles


def main():
    start = time.perf_counter()
    classes = list(CHAINS)
    print(f"{'preset':<10} " + " ".join(f"{c:>17}" for c in classes))
    for preset in (RX_7900_XTX, RX_6800_XT, RTX_3070, IRIS_XE):
        full = chain_cycles(preset, "full")
        cells = []
        for c in classes:
            cycles = chain_cycles(preset, c)
            cells.append(f"{cycles:>9} ({cycles / full:5.1f}x)")
        print(f"{preset.key:<10} " + " ".join(cells))
    print(f"({time.perf_counter() - start:.1f} s)")


if __name__ == "__main__":
    main()
