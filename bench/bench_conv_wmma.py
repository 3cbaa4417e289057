"""Benchmark: FLOAT16 convolution on matrix units (WMMA) against the VALU's fmas, modelled on the RX 7900 XTX.

Two FLOAT16 convolutions of a ResNet-like layer (N = 1, 56 x 56 input, C = K = 64, no padding, no bias):
  pointwise  1 x 1 (64 multiply-adds per output element): on matrix units the implicit GEMM's WMMA variant
             (conv_gemm_ops.takes_plain_one_by_one; also run on gemm.s's WMMA variant, the GEMM path's), else the GEMM
             path on gemm.s's VALU kernel
  dense      3 x 3, valid padding (54 x 54 output, 576 multiply-adds per output element): the implicit GEMM,
             conv_gemm.s's WMMA variant (or its fma loop)
  padded     3 x 3, padding 1 (56 x 56 output), N = 1 and N = 4: the split variant where BLOCK_M allows (the blocks
             whose windows miss the padding on WMMA, the border on the fmas), else the fma loop
each run with the timing model on: as the driver picks (WMMA on this preset) and with every kernel on the VALU
(kernels/gemm_ops.uses_matrix_units answering False, as on a preset without matrix units). It prints the program, the
modelled cycles and time, TFLOP/s against the preset's FP16 matrix peak, and the speed-up; every result is compared
with the golden model bit for bit (--no-check skips it).

    .venv/bin/python bench/bench_conv_wmma.py [--size 56] [--channels 64] [--no-check]

Measured (2-core VM; modelled cycles, which do not depend on the machine's load):
  C = K = 64   pointwise VALU convolution_gemm_float16_no_bias 27,520 cycles = 11.0 us; WMMA
               convolution_implicit_gemm_float16_wmma_m32_no_bias_unpadded 17,286 cycles = 6.9 us: 1.59x (on gemm.s's
               WMMA variant: 24,672 cycles, 1.12x)
               dense 3x3 VALU convolution_implicit_gemm_float16_m16_no_bias_unpadded 78,136 cycles = 31.3 us, 6.9
               TFLOP/s; WMMA convolution_implicit_gemm_float16_wmma_m16_no_bias_unpadded 36,260 cycles = 14.5 us, 14.8
               TFLOP/s = 12.1 % of the matrix peak: 2.15x
               padded 3x3 (padding 1): BLOCK_M 20, no multiple of 16, so the fmas either way (105,166 cycles; forcing
               the split variant at BLOCK_M 32 gave 113,586: slower); N = 4: VALU m16 300,597 cycles, WMMA on the
               inside blocks (convolution_implicit_gemm_float16_wmma_interior_m16_no_bias) 266,041: 1.13x (the border
               blocks, about a third of them, on the fmas)
  C = K = 128  (--channels 128; no padded row: measured without the split variant) pointwise VALU 41,399 cycles,
               WMMA 26,348: 1.57x (gemm.s's WMMA: 37,634); dense 3x3 VALU 177,612 cycles, WMMA 70,899 (30.3 TFLOP/s =
               24.7 % of the matrix peak): 2.51x
The 3 x 3 on WMMA is bound by its gather (each 32-k tile's im2col loads and LDS writes between two barriers; 183
workgroups of 2 waves, one a SIMD), not by the matrix unit.
"""
import argparse

import numpy as np

from dmlemu.gpu import Gpu
from dmlemu.kernels import conv_gemm_ops, gemm_ops
from dmlemu.presets import RX_7900_XTX

from bench_convolution import dispatch   # bench/ is on the path when run as a script


def run_once(preset, size, channels, window, check, pad=0, batch=1):
    """(wall seconds, dispatch stats, multiply-adds, program name) of one timed FLOAT16 convolution."""
    rng = np.random.default_rng(size + window)
    x = rng.standard_normal((batch, channels, size, size)).astype(np.float16)
    w = (rng.standard_normal((channels, channels, window, window)) / (channels * window)).astype(np.float16)
    out_size = size + 2 * pad - window + 1
    out = np.zeros((batch, channels, out_size, out_size), np.float16)
    attributes = {"Mode": 1, "Direction": 0, "Strides": (1, 1), "Dilations": (1, 1), "StartPadding": (pad, pad),
                  "EndPadding": (pad, pad), "OutputPadding": (0, 0), "GroupCount": 1}
    seconds, stats, name = dispatch(Gpu(preset, timing=True), x, w, out, attributes, check)
    return seconds, stats, batch * channels * out_size * out_size * channels * window * window, name


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=56)
    parser.add_argument("--channels", type=int, default=64)
    parser.add_argument("--no-check", action="store_true")
    args = parser.parse_args()
    p = RX_7900_XTX
    peak = p.compute_units * p.matrix_fp16_flops_per_cycle_per_cu * p.clock_hz / 1e12
    print(f"CONVOLUTION FLOAT16, {args.size} x {args.size}, C = K = {args.channels}, no padding, on {p.description}; "
          f"FP16 matrix peak {peak:.1f} TFLOP/s")
    matrix_rule, one_by_one = gemm_ops.uses_matrix_units, conv_gemm_ops.takes_plain_one_by_one
    for label, window, pad, batch in (("pointwise", 1, 0, 1), ("dense", 3, 0, 1), ("padded", 3, 1, 1),
                                      ("padded N=4", 3, 1, 4)):
        cycles = {}
        for kind in ("VALU", "WMMA") + (("WMMA on gemm.s",) if window == 1 else ()):
            if kind == "VALU":
                gemm_ops.uses_matrix_units = lambda preset, data_type: False
            if kind == "WMMA on gemm.s":
                conv_gemm_ops.takes_plain_one_by_one = lambda tensors, attributes, preset: False
            try:
                seconds, stats, macs, name = run_once(p, args.size, args.channels, window, not args.no_check, pad, batch)
            finally:
                gemm_ops.uses_matrix_units, conv_gemm_ops.takes_plain_one_by_one = matrix_rule, one_by_one
            modelled = stats.cycles / p.clock_hz
            cycles[kind] = stats.cycles
            print(f"  {label:9s} {kind}: {name}: {stats.cycles} cycles = {modelled * 1e6:7.1f} us modelled, "
                  f"{2 * macs / modelled / 1e12:6.2f} TFLOP/s = {100 * 2 * macs / modelled / 1e12 / peak:5.1f} % of the "
                  f"matrix peak ({seconds:.1f} s wall)")
        print(f"  {label:9s} WMMA over VALU: {cycles['VALU'] / cycles['WMMA']:.2f}x")


if __name__ == "__main__":
    main()
