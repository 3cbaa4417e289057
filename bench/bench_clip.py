"""Benchmark: the CLIP FLOAT16 microkernel with ScaleBias against the golden NumPy model.

Prints, for each size, the microkernel's time on the emulated GPU (wave64 by default, functional
model only: the timing model is off, see bench_timing.py for its cost), the golden model's time
measured in the same process, their ratio, and the peak extra
memory of the dispatch (tracemalloc) as a multiple of the input + output bytes.

    .venv/bin/python bench/bench_clip.py [--sizes 16 20 24] [--width 64] [--repeat 3]
"""
import argparse
import time
import tracemalloc

import numpy as np


from dmlemu import golden
from dmlemu.direct_run import DirectRun
from dmlemu.gpu import Gpu
from dmlemu.presets import DEFAULT_PRESET
from dmlemu.kernels.driver import TensorSpec

ARGS = dict(min_value=-1.0, max_value=1.0, scale_bias=(2.0, 0.5))


def best_of(fn, repeat):
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def measure(log2n, width, repeat):
    n = 1 << log2n
    x = (np.random.default_rng(log2n).standard_normal(n) * 3).astype(np.float16)
    gpu = Gpu(DEFAULT_PRESET, wave_width=width, timing=False)
    spec = TensorSpec("FLOAT16", (n,), None, x.nbytes)
    run = DirectRun(gpu, "ELEMENT_WISE_CLIP", [spec, spec], [x.view(np.uint8), np.zeros(x.nbytes, np.uint8)], **ARGS)
    kernel = best_of(run.dispatch, repeat)
    gold = best_of(lambda: golden.clip(x, ARGS["min_value"], ARGS["max_value"], ARGS["scale_bias"]), repeat)
    expected = golden.clip(x, ARGS["min_value"], ARGS["max_value"], ARGS["scale_bias"])
    assert np.array_equal(run.output_bytes()[:x.nbytes], expected.view(np.uint8)), "output differs from golden"
    tracemalloc.start()
    run.dispatch()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return n, kernel, gold, peak / (2 * x.nbytes)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[16, 18, 20, 22, 24], help="log2 element counts")
    parser.add_argument("--width", type=int, default=64)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    print(f"CLIP FLOAT16 with ScaleBias, wave{args.width}, best of {args.repeat}")
    print(f"{'elements':>10} {'kernel s':>9} {'golden s':>9} {'ratio':>6} {'ns/elem':>8} {'peak mem':>9}")
    rows = []
    for log2n in args.sizes:
        n, kernel, gold, mem = measure(log2n, args.width, args.repeat)
        rows.append((n, kernel, gold))
        print(f"{n:>10} {kernel:>9.4f} {gold:>9.4f} {kernel / gold:>5.2f}x {kernel / n * 1e9:>8.2f} {mem:>8.2f}x")
    if len(rows) > 1:
        (n0, k0, _), (n1, k1, _) = rows[0], rows[-1]
        print(f"growth: {n1 // n0}x the elements took {k1 / k0:.1f}x the time")
    return rows


if __name__ == "__main__":
    main()
