"""Benchmark: DML_OPERATOR_CONVOLUTION FLOAT32 (kernels/conv_gemm.s, window.s) in the functional and timing models.

Three convolutions of a ResNet-like layer on the RX 7900 XTX preset (N = 1, 56 x 56):
  dense      3 x 3, padding 1, C = K = 64, GroupCount 1 (64 x 9 = 576 multiply-adds per output element): the
             implicit-GEMM path (kernels/conv_gemm.s); with --direct the direct kernel (kernels/window.s)
  depthwise  3 x 3, padding 1, C = K = 64, GroupCount 64 (9 multiply-adds per output element)
  pointwise  1 x 1, C = K = 64 (64 multiply-adds per output element): the GEMM path (kernels/gemm.s)
For each it prints:
  * the functional model's time for one dispatch with the timing model off (the kernel compiled beforehand) and its
    cost per multiply-add (ns/MAC, counting every tap of every window, padded ones too: N K OH OW C/G KH KW);
  * with --timing, the modelled time, TFLOP/s against the preset's single-issue FP32 peak (compute units x SIMDs x
    wave width x 2 FLOP x clock), the DRAM traffic and its share of the DRAM peak over the modelled time, and the
    SIMDs' issue share (the timing model's busy cycles over SIMDs x cycles): compute-bound where the issue share
    is at least half, memory-bound where the DRAM share is, latency-bound where neither is (waves waiting on
    their loads, as the direct kernel's one load pair per tap does).
The golden model checks the result bit for bit (--no-check skips it).

    .venv/bin/python bench/bench_convolution.py [--timing] [--size 56] [--channels 64] [--width 32] [--no-check]
                                                [--direct]

Measured (2-core VM shared with other work, load average about 10, wave32; the wall times move by tens of percent
with the machine's load, the cycles do not):
  dense 3x3    default (convolution_implicit_gemm_float32_m20_no_bias: BLOCK_M 20, 157 workgroups for 192 SIMDs)
               timing off 4.67 s / 5.27 s (two alternating runs), 40 / 46 ns/MAC; timing on (mirror, `dispatch`
               trace verdict): 103,004 cycles, 5.61 TFLOP/s = 18.3 % of the single-issue peak, "VALU issue, 76 %"
               (compute-bound); FLOAT16 105,369 cycles, VALU issue 76 %. With N = 4: 292,357 cycles, 7.91 TFLOP/s =
               25.7 %, VALU issue 91 %.
  dense 3x3    --direct (convolution_direct_float32_k4_no_bias: four output channels a thread, paired taps) timing
               off 9.41 s / 10.51 s (the same two alternating runs), 81 / 91 ns/MAC; timing on 910,415 cycles =
               364 us, 0.64 TFLOP/s modelled = 2.1 % of the 30.7 TFLOP/s single-issue peak; DRAM 0.95 MB = 0.3 % of
               its peak, SIMD issue 23.6 %: latency-bound (every tap pair waits for its loads; 1,568 waves, 8 a SIMD)
  depthwise    (convolution_direct_float32_no_bias, window.s) timing off 0.90 s, 501 ns/MAC; 39,577 cycles = 15.8 us,
               0.23 TFLOP/s; DRAM 5.3 %, SIMD issue 38.5 %: latency-bound (9 taps a thread, nothing to reuse). The
               driver runs this layer on its own kernel (conv_depthwise_row.s; bench/bench_depthwise.py has its
               figures): this row is the direct kernel's.
  pointwise    (convolution_gemm_float32_no_bias) timing off 0.74 s, 57 ns/MAC; 104,414 cycles = 41.8 us, 0.62
               TFLOP/s; DRAM 2.0 %, SIMD issue 3.4 %: latency-bound (49 workgroups of 64 x 64 on 96 CUs)
The --direct timing-on, depthwise and pointwise figures come from an older set of runs (same VM and load, one run
each) than the default dense row's.
"""
import argparse
import time

import numpy as np

from dmlemu import golden
from dmlemu.direct_run import DirectRun
from dmlemu.gpu import Gpu
from dmlemu.kernels import conv_gemm_ops
from dmlemu.kernels.driver import TensorSpec
from dmlemu.presets import RX_7900_XTX


def run_once(preset, size, channels, groups, timing, width, check, window=3):
    rng = np.random.default_rng(size + groups)
    x = rng.standard_normal((1, channels, size, size)).astype(np.float32)
    w = rng.standard_normal((channels, channels // groups, window, window)).astype(np.float32)
    out = np.zeros((1, channels, size, size), np.float32)
    pad = (window // 2,) * 2
    attributes = {"Mode": 1, "Direction": 0, "Strides": (1, 1), "Dilations": (1, 1), "StartPadding": pad,
                  "EndPadding": pad, "OutputPadding": (0, 0), "GroupCount": groups}
    seconds, stats, name = dispatch(Gpu(preset, wave_width=width, timing=timing), x, w, out, attributes, check)
    macs = channels * size * size * (channels // groups) * window * window
    return seconds, stats, macs, name


def dispatch(gpu, x, w, out, attributes, check):
    """(wall seconds, dispatch stats, program name) of one CONVOLUTION of x and w (no bias) into a tensor shaped and
    typed as `out` on `gpu`; with `check`, its output is compared bit for bit with the golden model's."""
    spec = lambda a: TensorSpec(a.dtype.name.upper(), a.shape, None, a.nbytes)
    raw = lambda a: a.view(np.uint8).reshape(-1)
    run = DirectRun(gpu, "CONVOLUTION", [spec(x), spec(w), None, spec(out)],
                    [raw(x), raw(w), np.zeros(4, np.uint8), raw(out)], attributes=attributes)
    start = time.perf_counter()
    stats = run.dispatch()
    seconds = time.perf_counter() - start
    got = run.output_bytes(3)[:out.nbytes].view(out.dtype).reshape(out.shape)
    if check:
        expected = golden.run("CONVOLUTION", [x, w, None], attributes)
        bits = np.dtype(f"u{out.itemsize}")
        assert np.array_equal(got.view(bits), expected.view(bits)), "kernel and golden model differ"
    name = run.kernel.program.name
    run.free()
    return seconds, stats, name


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timing", action="store_true", help="also run with the timing model on")
    parser.add_argument("--size", type=int, default=56)
    parser.add_argument("--channels", type=int, default=64)
    parser.add_argument("--width", type=int, default=None)
    parser.add_argument("--no-check", action="store_true")
    parser.add_argument("--direct", action="store_true", help="every convolution on the direct kernel (window.s)")
    args = parser.parse_args()
    if args.direct:      # no desc passes the implicit GEMM's channel rule: the driver's choice before conv_gemm.s
        conv_gemm_ops.MIN_CHANNELS = 1 << 30
    p = RX_7900_XTX
    width = args.width or p.wave_width
    peak = p.compute_units * p.simds_per_cu * p.wave_width * 2 * p.clock_hz / 1e12
    print(f"CONVOLUTION FLOAT32, {args.size} x {args.size}, C = K = {args.channels}, on "
          f"{p.description}, wave{width}; FP32 peak {peak:.1f} TFLOP/s, DRAM {p.dram_bytes_per_second / 1e9:.0f} GB/s")
    for label, groups, window in (("dense", 1, 3), ("depthwise", args.channels, 3), ("pointwise", 1, 1)):
        seconds, _, macs, name = run_once(p, args.size, args.channels, groups, False, width, not args.no_check, window)
        print(f"  {label:9s} functional (timing off): {seconds:8.2f} s  {seconds / macs * 1e9:7.2f} ns/MAC "
              f"({macs} MACs, {name})")
        if args.timing:
            seconds, stats, macs, _ = run_once(p, args.size, args.channels, groups, True, width, False, window)
            modelled = stats.cycles / p.clock_hz
            tflops = 2 * macs / modelled / 1e12
            t = stats.timing
            dram_share = t.dram_bytes / modelled / p.dram_bytes_per_second
            issue_share = t.simd_busy_cycles / (t.simds * stats.cycles)
            bound = ("compute-bound" if issue_share >= 0.5 else "memory-bound" if dram_share >= 0.5 else
                     f"latency-bound (neither unit busy half the time; the larger share: "
                     f"{'SIMD issue' if issue_share >= dram_share else 'DRAM'})")
            print(f"  {label:9s} with timing: {seconds:8.2f} s wall, {stats.cycles} cycles = {modelled * 1e6:8.1f} us, "
                  f"{tflops:6.3f} TFLOP/s modelled = {100 * tflops / peak:5.1f} % of peak; DRAM {t.dram_bytes} bytes "
                  f"= {100 * dram_share:5.1f} % of peak bandwidth; SIMD issue {100 * issue_share:5.1f} %: {bound}")


if __name__ == "__main__":
    main()
