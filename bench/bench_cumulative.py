"""Benchmark: CUMULATIVE_SUMMATION over 2^22 FLOAT32 against the golden NumPy model, in the same process.

Two shapes: lines of 4096 along the last axis (1024 lines: 16 workgroups of 64 threads, each thread walking 4096
elements) and lines of 1024 along the first axis (4096 lines). For each, the functional model's time for one
dispatch (timing model off, the kernel compiled beforehand), the golden model's time (one ufunc.accumulate) and
their ratio; every output is checked bit for bit against the golden model.

    .venv/bin/python bench/bench_cumulative.py [--repeat 3] [--width 32] [--operator SUMMATION]

Measured (2-core VM shared with other jobs, wave32, best of 2; noisy): last axis 1469 ms against 151 ms (10x; the
golden model has measured 91 to 430 ms here), first axis 1042 ms against 181 ms (6x): about 9 instructions per
element per wave, paid by the executor per wave. One thread per line is the page's sequential order; a 1-D tensor is one line
and so one thread, whose time grows with its length (a parallel scan would reorder the float additions).
"""
import argparse

import numpy as np

from dmlemu import golden
from dmlemu.direct_run import DirectRun
from dmlemu.gpu import Gpu
from dmlemu.kernels.driver import TensorSpec
from dmlemu.presets import RX_7900_XTX

from bench_softmax import best_of


def bench(shape, axis, operator, width, repeat):
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    attributes = {"Axis": axis, "AxisDirection": 0,
                  ("HasExclusiveSum" if operator == "SUMMATION" else "HasExclusiveProduct"): False}
    gpu = Gpu(RX_7900_XTX, wave_width=width, timing=False)
    specs = [TensorSpec("FLOAT32", x.shape, None, x.nbytes)] * 2
    run = DirectRun(gpu, "CUMULATIVE_" + operator, specs,
                    [x.view(np.uint8).reshape(-1), np.zeros(x.nbytes, np.uint8)], attributes=attributes)
    kernel_s, _ = best_of(repeat, run.dispatch)
    got = run.output_bytes(1)[:x.nbytes].view(np.float32).reshape(shape)
    golden_s, expected = best_of(repeat, lambda: golden.run("CUMULATIVE_" + operator, [x], attributes))
    assert np.array_equal(got.view(np.uint32), expected.view(np.uint32)), "kernel and golden model differ"
    run.free()
    return kernel_s, golden_s


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--width", type=int, default=32)
    parser.add_argument("--operator", default="SUMMATION", choices=("SUMMATION", "PRODUCT"))
    args = parser.parse_args()
    print(f"CUMULATIVE_{args.operator} FLOAT32, 2^22 elements, wave{args.width}, best of {args.repeat}")
    for name, shape, axis in (("last axis", (1024, 4096), 1), ("first axis", (4096, 1024), 0)):
        kernel_s, golden_s = bench(shape, axis, args.operator, args.width, args.repeat)
        print(f"  {name:10} {str(shape):>12} kernel {kernel_s * 1e3:8.1f} ms  golden {golden_s * 1e3:7.1f} ms  "
              f"{kernel_s / golden_s:5.1f}x")


if __name__ == "__main__":
    main()
