"""Benchmark: GATHER of 2^22 FLOAT32 output elements against NumPy (np.take) and the golden model.

Two cases by default: rows (an embedding lookup: a table of 2^12 rows of 2^10 floats, 2^12 INT32 row indices,
Axis 0, IndexDimensions 1: 2^22 output elements) and elements (GATHER_ELEMENTS along the last axis of a
2^11 x 2^11 table by 2^22 random INT32 indices). For each, the functional model's time for one dispatch (timing
model off, the kernel compiled beforehand, as bench_reduce.py does), NumPy's (np.take / np.take_along_axis, the
operation alone), the golden model's (dmlemu.golden.run, with the out-of-range rule) and the ratios. Every output
is checked bit for bit against the golden model.

    .venv/bin/python bench/bench_gather.py [--log2 22] [--repeat 3] [--width 32]

Measured (2-core VM shared with other jobs, wave32, best of 2): rows 939 ms against NumPy's 10.6 ms (88x) and the
golden model's 17.8 ms (53x); elements 915 ms against NumPy's 58 ms (16x) and the golden model's 261 ms (3.5x).
Where the time goes: every element runs address.inc's loop over its records plus one component trip (about 60
instructions a lane) and three gathered loads (index, element; ndarray.take over 2^17 lanes each), where NumPy
copies whole rows.
"""
import argparse
import time

import numpy as np

from dmlemu import golden
from dmlemu.direct_run import DirectRun
from dmlemu.gpu import Gpu
from dmlemu.kernels.driver import TensorSpec
from dmlemu.presets import DEFAULT_PRESET


def best_of(repeat, fn):
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def bench(name, table_shape, idx, attributes, numpy_fn, width, repeat):
    rng = np.random.default_rng(1)
    x = rng.standard_normal(table_shape).astype(np.float32)
    expected = golden.run(name, [x, idx], attributes)
    gpu = Gpu(DEFAULT_PRESET, wave_width=width, timing=False)
    specs = [TensorSpec("FLOAT32", x.shape, None, x.nbytes), TensorSpec("INT32", idx.shape, None, idx.nbytes),
             TensorSpec("FLOAT32", expected.shape, None, expected.nbytes)]
    run = DirectRun(gpu, name, specs, [x.view(np.uint8).reshape(-1), idx.view(np.uint8).reshape(-1),
                                       np.zeros(expected.nbytes, np.uint8)], attributes=attributes)
    kernel_s, _ = best_of(repeat, run.dispatch)
    got = run.output_bytes(2)[:expected.nbytes].view(np.float32).reshape(expected.shape)
    assert np.array_equal(got.view(np.uint32), expected.view(np.uint32)), "kernel and golden model differ"
    run.free()
    golden_s, _ = best_of(repeat, lambda: golden.run(name, [x, idx], attributes))
    numpy_s, _ = best_of(repeat, lambda: numpy_fn(x, idx))
    return kernel_s, numpy_s, golden_s


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--log2", type=int, default=22)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--width", type=int, default=32)
    args = parser.parse_args()
    rng = np.random.default_rng(2)
    rows, width = 1 << (args.log2 - 10), 1 << 10
    half = args.log2 // 2
    cases = [
        ("rows", "GATHER", (rows, width), rng.integers(0, rows, (1, rows)).astype(np.int32),
         {"Axis": 0, "IndexDimensions": 1}, lambda x, i: np.take(x, i[0], axis=0)),
        ("elements", "GATHER_ELEMENTS", (1 << half, 1 << (args.log2 - half)),
         rng.integers(0, 1 << (args.log2 - half), (1 << half, 1 << (args.log2 - half))).astype(np.int32),
         {"Axis": 1}, lambda x, i: np.take_along_axis(x, i, axis=1)),
    ]
    print(f"GATHER FLOAT32 by INT32 indices, 2^{args.log2} output elements, wave{args.width}, best of {args.repeat}")
    print(f"{'case':9} {'kernel ms':>10} {'numpy ms':>9} {'golden ms':>10} {'x numpy':>8} {'x golden':>9}")
    for label, name, shape, idx, attributes, numpy_fn in cases:
        kernel_s, numpy_s, golden_s = bench(name, shape, idx, attributes, numpy_fn, args.width, args.repeat)
        print(f"{label:9} {kernel_s * 1e3:10.1f} {numpy_s * 1e3:9.1f} {golden_s * 1e3:10.1f} "
              f"{kernel_s / numpy_s:8.1f} {kernel_s / golden_s:9.1f}")


if __name__ == "__main__":
    main()
