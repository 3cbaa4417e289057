"""Benchmark: DML_OPERATOR_GEMM FLOAT32 (kernels/gemm.s) in the functional model and in the timing model.

For each size n (an n x n x n product, no C, Alpha 1) it prints:
  * the functional model's time for one dispatch with the timing model off (the kernel compiled beforehand, as
    bench_element_wise.py does) and its cost per multiply-add (ns/MAC; the issue's target: <= 5 ns);
  * with --timing, the wall time of the same dispatch with the timing model on (target for 1024^3: <= 30 s),
    the modelled cycles and the modelled TFLOP/s on the preset against its FP32 peak
    (compute units x SIMDs x wave width x 2 FLOP x clock: one v_fma_f32 per lane per cycle; AMD's 61.4 TFLOP/s
    for the RX 7900 XTX counts RDNA3's dual issue, which the preset does not model, so both are printed).
The golden model checks the smaller sizes bit for bit (--check up to that n).

    .venv/bin/python bench/bench_gemm.py [--sizes 256 1024] [--timing] [--width 32] [--check 256]
"""
import argparse
import time

import numpy as np

from dmlemu import golden
from dmlemu.direct_run import DirectRun
from dmlemu.gpu import Gpu
from dmlemu.kernels.driver import TensorSpec
from dmlemu.presets import DEFAULT_PRESET

VENDOR_PEAK_TFLOPS = {"rx7900xtx": 61.4}     # AMD product page (dual-issue FP32)


def run_once(n, timing, width, check):
    rng = np.random.default_rng(n)
    a = rng.standard_normal((n, n)).astype(np.float32)
    b = rng.standard_normal((n, n)).astype(np.float32)
    gpu = Gpu(DEFAULT_PRESET, wave_width=width, timing=timing)
    spec = TensorSpec("FLOAT32", (n, n), None, 4 * n * n)
    run = DirectRun(gpu, "GEMM", [spec, spec, None, spec],
                    [a.view(np.uint8).reshape(-1), b.view(np.uint8).reshape(-1), np.zeros(4, np.uint8),
                     np.zeros(4 * n * n, np.uint8)],
                    attributes={"TransA": 0, "TransB": 0, "Alpha": 1.0, "Beta": 0.0})
    start = time.perf_counter()
    stats = run.dispatch()
    seconds = time.perf_counter() - start
    got = run.output_bytes(3)[:4 * n * n].view(np.float32).reshape(n, n)
    if n <= check:
        expected = golden.run("GEMM", [a, b, None], {"Alpha": 1.0, "Beta": 0.0})
        assert np.array_equal(got.view(np.uint32), expected.view(np.uint32)), "kernel and golden model differ"
    run.free()
    return seconds, stats


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[256, 1024])
    parser.add_argument("--timing", action="store_true", help="also run with the timing model on")
    parser.add_argument("--width", type=int, default=None)
    parser.add_argument("--check", type=int, default=256, help="check against the golden model up to this n")
    args = parser.parse_args()
    p = DEFAULT_PRESET
    width = args.width or p.wave_width
    peak = p.compute_units * p.simds_per_cu * p.wave_width * 2 * p.clock_hz / 1e12
    print(f"GEMM FLOAT32 on {p.description}, wave{width}; FP32 peak {peak:.1f} TFLOP/s (one FMA per lane per "
          f"cycle; vendor: {VENDOR_PEAK_TFLOPS.get(p.key, float('nan'))} with dual issue)")
    for n in args.sizes:
        macs = n ** 3
        seconds, _ = run_once(n, False, width, args.check)
        print(f"  {n}^3 functional (timing off): {seconds:8.2f} s  {seconds / macs * 1e9:6.2f} ns/MAC")
        if args.timing:
            seconds, stats = run_once(n, True, width, 0)
            tflops = 2 * macs / (stats.cycles / p.clock_hz) / 1e12
            print(f"  {n}^3 with timing: {seconds:8.2f} s wall, {stats.cycles} cycles, {tflops:6.2f} TFLOP/s modelled "
                  f"= {100 * tflops / peak:5.1f} % of {peak:.1f} "
                  f"({100 * tflops / VENDOR_PEAK_TFLOPS.get(p.key, float('nan')):5.1f} % of the vendor's)")


if __name__ == "__main__":
    main()
