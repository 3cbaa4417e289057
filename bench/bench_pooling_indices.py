"""Benchmark: MAX_POOLING1 with its OutputIndicesTensor against MAX_POOLING, and MAX_UNPOOLING, in the functional
and timing models.

A ResNet-stem-sized max pooling (FLOAT32 { 1, C, S, S }, 3 x 3 window, stride 2, padding 1) without and with UINT32
indices (kernels/window.s, HAS_INDICES), and the MAX_UNPOOLING of a 2 x 2 stride-2 pooling's values and indices back
to { 1, C, S, S } (kernels/unpooling.s: one workgroup). For each: the functional model's time for one dispatch
(timing model off, the kernel compiled beforehand), the golden model's time, and with --timing the modelled cycles
on the default preset. Every output is checked bit for bit against the golden model.

    .venv/bin/python bench/bench_pooling_indices.py [--size 112] [--channels 16] [--width 32] [--timing]

Measured (2-core VM shared with seven other jobs, wave32, default preset, --size 112 --channels 16 --timing):
  MAX_POOLING            timing off 0.06 s (golden 0.012 s); 21,166 cycles modelled
  MAX_POOLING1 + indices timing off 0.07 s (golden 0.014 s); 22,153 cycles modelled (+5 %: the index bookkeeping
                         per tap and the second store)
  MAX_UNPOOLING          timing off 4.6 s (golden 0.004 s); 1,666,551 cycles modelled: one workgroup walks 200,704
                         outputs and 50,176 inputs, 64 a trip, three barriers a trip: the price of the row-major
                         order that decides duplicate indices (79x MAX_POOLING's cycles)
"""
import argparse
import time

import numpy as np

from dmlemu import golden
from dmlemu.direct_run import DirectRun
from dmlemu.gpu import Gpu
from dmlemu.kernels.driver import TensorSpec
from dmlemu.presets import DEFAULT_PRESET


def dispatch(operator, arrays, types, attributes, width, timing, output, expected):
    """(seconds, stats) of one dispatch, its output (tensor `output`) checked against `expected`."""
    gpu = Gpu(DEFAULT_PRESET, wave_width=width, timing=timing)
    specs = [TensorSpec(t, a.shape, None, a.nbytes) for t, a in zip(types, arrays)]
    run = DirectRun(gpu, operator, specs, [a.view(np.uint8).reshape(-1) for a in arrays], attributes=attributes)
    start = time.perf_counter()
    stats = run.dispatch()
    seconds = time.perf_counter() - start
    got = run.output_bytes(output)[:expected.nbytes].view(expected.dtype).reshape(expected.shape)
    assert np.array_equal(got, expected) or np.array_equal(got.view(np.uint8), expected.view(np.uint8)), operator
    run.free()
    return seconds, stats


def timed(fn):
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=112)
    parser.add_argument("--channels", type=int, default=16)
    parser.add_argument("--width", type=int, default=32)
    parser.add_argument("--timing", action="store_true", help="also run with the timing model on")
    args = parser.parse_args()
    rng = np.random.default_rng(1)
    x = rng.standard_normal((1, args.channels, args.size, args.size)).astype(np.float32)
    pool = dict(WindowSize=[3, 3], Strides=[2, 2], StartPadding=[1, 1], EndPadding=[1, 1])
    golden_s, (values, indices) = timed(lambda: golden.run("MAX_POOLING1", [x], pool))
    indices = indices.astype(np.uint32)
    cases = [("MAX_POOLING", [x, values * 0], ["FLOAT32"] * 2, pool, 1, values,
              lambda: golden.run("MAX_POOLING", [x], pool)),
             ("MAX_POOLING1", [x, values * 0, indices * 0], ["FLOAT32", "FLOAT32", "UINT32"], pool, 2, indices,
              lambda: golden.run("MAX_POOLING1", [x], pool))]
    half = dict(WindowSize=[2, 2], Strides=[2, 2], StartPadding=[0, 0], EndPadding=[0, 0])
    small, where = golden.run("MAX_POOLING1", [x], half)
    where = where.astype(np.uint32)
    back = golden.run("MAX_UNPOOLING", [small, where], {}, output_sizes=x.shape)
    cases.append(("MAX_UNPOOLING", [small, where, np.zeros_like(x)], ["FLOAT32", "UINT32", "FLOAT32"], {}, 2, back,
                  lambda: golden.run("MAX_UNPOOLING", [small, where], {}, output_sizes=x.shape)))
    for operator, arrays, types, attributes, output, expected, reference in cases:
        seconds, _ = dispatch(operator, arrays, types, attributes, args.width, False, output, expected)
        golden_s, _ = timed(reference)
        line = f"{operator:14s} timing off {seconds:7.2f} s (golden {golden_s:6.3f} s)"
        if args.timing:
            _, stats = dispatch(operator, arrays, types, attributes, args.width, True, output, expected)
            line += f"; {stats.cycles:,} cycles modelled"
        print(line)


if __name__ == "__main__":
    main()
