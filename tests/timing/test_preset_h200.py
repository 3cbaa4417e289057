"""The h200 preset (emulator/presets.py) against this project's measurements of a real NVIDIA H200
(bench/gpu_calibration/results/, docs/REAL_GPU_CHECKS.md; bench/h200_check.py prints the whole table)."""
import json
import os

import pytest

from dmlemu.dxgi import CreateDXGIFactory1
from dmlemu.functional.wave_dispatcher import KernelLaunch
from dmlemu.gpu import Gpu
from dmlemu.presets import H200, PRESETS, TEACHING, preset_by_key, preset_problem
from dmlemu.tools.microbench import chain_program

RESULTS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "bench", "gpu_calibration",
                       "results", "h200_rates.json")


def chain_cycles(preset, rate_class, length=256, fill=8):
    """bench/bench_rates.py's experiment: one dispatch of a `length`-instruction chain of one rate class
    (tools/microbench.py), enough waves to fill every SIMD's slots `fill` times over."""
    program = chain_program(rate_class, length)
    waves = preset.compute_units * preset.simds_per_cu * preset.waves_per_simd * fill
    launch = KernelLaunch(program, num_workgroups=-(-waves // (preset.workgroup_size // preset.wave_width)),
                          workgroup_size=preset.workgroup_size, name=program.name, vgprs_used=10, sgprs_used=4)
    return Gpu(preset).dispatch(launch).cycles


def test_the_h200_preset_builds_and_is_listed():
    assert preset_problem(H200) is None
    assert preset_by_key("h200") is H200 and preset_by_key("teaching") is TEACHING
    factory = CreateDXGIFactory1()
    descriptions = [factory.EnumAdapters1(i).GetDesc1().Description for i in range(len(PRESETS))]
    assert descriptions.count(H200.description) == 1          # DXGI lists it, once
    assert descriptions[4] == TEACHING.description            # the teaching adapter keeps its DXGI index
    gpu = Gpu(H200)
    assert gpu.preset is H200
    # The figures the brief pins: 132 SMs of 4 processing blocks, warp 32, 64 warps and 64K registers
    # per SM (compute capability 9.0), 32-byte sectors of 128-byte lines, 60 MiB of L2, 4.8 TB/s.
    assert (H200.compute_units, H200.simds_per_cu, H200.wave_width) == (132, 4, 32)
    assert H200.simds_per_cu * H200.waves_per_simd == 64
    assert H200.simds_per_cu * H200.vgprs_per_simd_lane * H200.simd_lanes == 64 * 1024
    assert (H200.sector_bytes, H200.line_bytes, H200.l2_bytes) == (32, 128, 62_914_560)
    assert H200.dram_bytes_per_second == 4_800_000_000_000 and H200.clock_hz == 1_980_000_000
    assert H200.rate_cycles()["fp64"] == 2 and H200.rate_cycles()["transcendental"] == 8


def test_fp64_and_transcendental_rates_are_near_the_measured_h200():
    """Measured (Triton, latency hidden): FP64 FMA 1.83x and exp2 6.9x the FP32 FMA chain's time. The
    model issues FP64 at half and transcendentals at an eighth of the FP32 rate (CUDA guide, cc 9.0),
    diluted by the dispatch's launch and tail; the real FP32 chain reaches 85 % of its peak, the real
    FP64 and exp2 chains 92-98 %, so the measured ratios sit a little under 2 and 8. Bounds: 15 %."""
    with open(RESULTS, encoding="utf-8") as f:
        measured = json.load(f)["rates"]
    full = chain_cycles(H200, "full")
    fp64, transcendental = chain_cycles(H200, "fp64") / full, chain_cycles(H200, "transcendental") / full
    assert fp64 == pytest.approx(measured["fp64_over_fp32_time"], rel=0.15)
    assert transcendental == pytest.approx(measured["exp2_mul_over_fma_f32_time"], rel=0.15)
    # And the model's ratios are the rate classes', not the measurement's: never above 2 and 8.
    assert fp64 <= 2 and transcendental <= 8


def test_a_transposed_read_costs_what_the_measured_h200_charged():
    """Measured on the real H200 (bench/gpu_calibration/results/h200_access_patterns_2048.json): a FLOAT32
    2048 x 2048 packed copy took 13.26 us and the copy whose input is read transposed 2.84x that. The
    packed copy's time is held to 15 % of the measured one (12.2 us of dispatch here; 9.0 us, 0.68x,
    before a workgroup's start and end held its slots: the preset's workgroup_slot_cycles). The
    transposed one costs the L1TEX tag stage's 4 lines per clock (presets.L1TEX_TAGS: 32 lines per wave
    load take 8 clocks; with 1 line per clock it was 6.3x): 1.88x here (2.55x before, against the faster
    packed copy), held to at least 1.7x. Its absolute time is 0.65x the measured 37.7 us, as it was
    before (the ratio met the old 15 % bound only because the packed copy was too fast): what a real
    H200 spends beyond it is not modelled (docs/FIDELITY.md)."""
    import numpy as np
    from dmlemu.direct_run import DirectRun
    from dmlemu.kernels.driver import TensorSpec
    with open(os.path.join(os.path.dirname(RESULTS), "h200_access_patterns_2048.json"), encoding="utf-8") as f:
        measured = json.load(f)
    side = 2048
    cycles = []
    for strides in (None, (1, side)):
        source = TensorSpec("FLOAT32", (side, side), strides, side * side * 4)
        out = TensorSpec("FLOAT32", (side, side), None, side * side * 4)
        run = DirectRun(Gpu(H200), "ELEMENT_WISE_IDENTITY", [source, out],
                        [np.zeros(side * side * 4, np.uint8), np.zeros(side * side * 4, np.uint8)])
        cycles.append(run.dispatch().cycles)
    assert cycles[0] / H200.clock_hz * 1e6 == pytest.approx(measured["copy_f32_us"], rel=0.15)
    assert 1.7 <= cycles[1] / cycles[0] < measured["ratios_to_packed"]["transposed"]
