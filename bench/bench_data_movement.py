"""Benchmark: the data movement kernels (copy_region.s) against a NumPy copy, and their modelled DRAM bandwidth.

For each operator, a FLOAT32 case of 2^22 output elements by default: the kernel's functional time on the
emulated GPU (timing model off), the golden model's NumPy indexing (which is a NumPy copy of the same
elements) in the same process, their ratio; with --timing, the same dispatch with the timing model on the
RX 7900 XTX preset: modelled cycles, bytes read and written (each input element read once, each output
element written once) over the modelled time, as a percentage of the preset's DRAM bandwidth.
Every run is checked bit for bit against the golden model.

    .venv/bin/python bench/bench_data_movement.py [--log2 22] [--timing] [--repeat 2] [--only SLICE1 JOIN]
"""
import argparse
import time

import numpy as np

from dmlemu import golden
from dmlemu.direct_run import DirectRun
from dmlemu.gpu import Gpu
from dmlemu.kernels.driver import TensorSpec
from dmlemu.presets import RX_7900_XTX


def cases(log2n):
    """(name, input shapes, output shapes, attributes, golden attributes) with 2^log2n output elements."""
    rows = 1 << (log2n // 2)
    cols = 1 << (log2n - log2n // 2)
    half = cols // 2
    return [
        ("SLICE1", [(rows, 2 * cols)], [(rows, cols)],
         {"InputWindowOffsets": (0, 0), "InputWindowSizes": (rows, 2 * cols), "InputWindowStrides": (-1, 2)}, {}),
        ("TILE", [(rows // 2, cols)], [(rows, cols)], {"Repeats": (2, 1)}, {}),
        ("PADDING", [(rows - 4, cols - 4)], [(rows, cols)],
         {"PaddingMode": 2, "PaddingValue": 0.0, "StartPadding": (2, 2), "EndPadding": (2, 2)}, {}),
        ("JOIN", [(rows, half), (rows, half)], [(rows, cols)], {"Axis": 1}, {}),
        ("SPLIT", [(rows, cols)], [(rows, half), (rows, half)], {"Axis": 1}, {"OutputSizes": (half, half)}),
        ("DEPTH_TO_SPACE", [(1, 16, rows // 4, cols // 4)], [(1, 1, rows, cols)], {"BlockSize": 4}, {}),
    ]


def best_of(fn, repeat):
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def measure(name, ins, outs, attributes, extra, timing, repeat):
    rng = np.random.default_rng(len(name))
    xs = [rng.standard_normal(s).astype(np.float32) for s in ins]
    zeros = [np.zeros(s, np.float32) for s in outs]
    specs = [TensorSpec("FLOAT32", a.shape, None, a.nbytes) for a in xs + zeros]
    gpu = Gpu(RX_7900_XTX, timing=timing)
    run = DirectRun(gpu, name, specs, [a.view(np.uint8).reshape(-1) for a in xs + zeros], attributes=attributes)
    stats = None
    if timing:
        start = time.perf_counter()
        stats = run.dispatch()
        seconds = time.perf_counter() - start
    else:
        seconds = best_of(run.dispatch, repeat)
    reference = best_of(lambda: golden.run(name, xs, dict(attributes, **extra)), repeat)
    expected = golden.run(name, xs, dict(attributes, **extra))
    expected = expected if isinstance(expected, tuple) else (expected,)
    for k, e in enumerate(expected):
        got = run.output_bytes(len(xs) + k)[:e.nbytes].view(np.float32).reshape(e.shape)
        assert np.array_equal(got.view(np.uint32), e.view(np.uint32)), f"{name}: kernel and golden model differ"
    run.free()
    moved = sum(a.nbytes for a in xs) + sum(e.nbytes for e in expected)
    return seconds, reference, moved, stats


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--log2", type=int, default=22, help="log2 of the output's element count")
    parser.add_argument("--timing", action="store_true", help="also model the dispatch's time (RX 7900 XTX)")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--only", nargs="+", default=None, help="operators to run")
    args = parser.parse_args(argv)
    p = RX_7900_XTX
    peak = p.dram_bytes_per_second
    print(f"data movement, FLOAT32, 2^{args.log2} output elements, {p.description} (DRAM {peak / 1e9:.0f} GB/s)")
    print(f"{'operator':>15} {'kernel s':>9} {'numpy s':>8} {'ratio':>7}" + (
        f" {'cycles':>10} {'GB/s':>7} {'% DRAM':>7}" if args.timing else ""))
    rows = []
    for name, ins, outs, attributes, extra in cases(args.log2):
        if args.only and name not in args.only:
            continue
        seconds, reference, moved, stats = measure(name, ins, outs, attributes, extra, args.timing, args.repeat)
        line = f"{name:>15} {seconds:>9.3f} {reference:>8.4f} {seconds / reference:>6.0f}x"
        if stats is not None:
            rate = moved / (stats.cycles / p.clock_hz)
            line += f" {stats.cycles:>10} {rate / 1e9:>7.1f} {100 * rate / peak:>6.1f}%"
        print(line)
        rows.append((name, seconds, reference, stats))
    return rows


if __name__ == "__main__":
    main()
