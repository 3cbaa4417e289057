"""Benchmark: ACTIVATION_SOFTMAX1 over 2^22 FLOAT32 against the golden NumPy model, and its modelled DRAM reads.

Functional cost: rows of 4096 (2^10 rows of 2^12 by default, the last axis normalized: one workgroup of 64
threads per row, each thread 64 elements per pass), the functional model's time for one dispatch (timing model
off, the kernel compiled beforehand, as bench_reduce.py does), the golden model's time (dmlemu.golden.run) and
their ratio; target: at most 5x. Every output is checked bit for bit against the golden model.
Memory: the same rows on the RX 7900 XTX preset with the timing model on (fewer rows: 64 x 4096, 1 MiB): the bytes
the dispatch reads from DRAM over the input's bytes. The kernel reads each row twice more after the max pass (the
sum and the output pass); target: a row of 4096 comes from DRAM once or twice, the L2 serving the
rest.

    .venv/bin/python bench/bench_softmax.py [--log2 22] [--row 4096] [--repeat 3] [--width 32] [--kind SOFTMAX]

Measured (2-core VM shared with other jobs, wave32, so the times are noisy): SOFTMAX 1505 ms against the golden
model's 996 ms (1.5x; both spend most of it in the exponential's numerics.exp2); HARDMAX, the median CPU time of 7
(`--kind HARDMAX --repeat 7`; its rows run kernels/softmax_pairs.inc, two elements a load), 38.5 ms against the
golden model's 13.9 ms (2.7x to 3.1x over several runs); DRAM reads 1.00 x the input's bytes for SOFTMAX,
LOG_SOFTMAX and HARDMAX (the second and third reads of each 16 KiB row hit the L2); with 1024 rows (16 MiB,
`dram(4096, "SOFTMAX", 32, rows=1024)`) still 1.00 x, all DRAM traffic 1.81 x (the output's write-backs).
"""
import argparse
import time

import numpy as np

from dmlemu import golden
from dmlemu.direct_run import DirectRun
from dmlemu.gpu import Gpu
from dmlemu.kernels.driver import TensorSpec
from dmlemu.presets import RX_7900_XTX


def best_of(repeat, fn):
    """(the best wall time, the last result) of `repeat` calls."""
    best, _, result = best_and_median(repeat, fn)
    return best, result


def best_and_median(repeat, fn):
    """(the best wall time, the median CPU time of the process, the last result) of `repeat` calls."""
    best, cpu = float("inf"), []
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        result = fn()
        best = min(best, time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return best, sorted(cpu)[len(cpu) // 2], result


def direct_run(x, kind, width, timing):
    gpu = Gpu(RX_7900_XTX, wave_width=width, timing=timing)
    specs = [TensorSpec("FLOAT32", x.shape, None, x.nbytes)] * 2
    return DirectRun(gpu, f"ACTIVATION_{kind}1", specs, [x.view(np.uint8).reshape(-1), np.zeros(x.nbytes, np.uint8)],
                     attributes={"Axes": (x.ndim - 1,)})


def functional(log2, row, kind, width, repeat):
    x = np.random.default_rng(1).standard_normal(((1 << log2) // row, row)).astype(np.float32) * 4
    run = direct_run(x, kind, width, timing=False)
    kernel_s, kernel_cpu, _ = best_and_median(repeat, run.dispatch)
    got = run.output_bytes(1)[:x.nbytes].view(np.float32).reshape(x.shape)
    golden_s, golden_cpu, expected = best_and_median(
        repeat, lambda: golden.run(f"ACTIVATION_{kind}1", [x], {"Axes": (1,)}))
    assert np.array_equal(got.view(np.uint32), expected.view(np.uint32)), "kernel and golden model differ"
    run.free()
    return x.shape, kernel_s, golden_s, kernel_cpu, golden_cpu


def dram(row, kind, width, rows=64):
    x = np.random.default_rng(2).standard_normal((rows, row)).astype(np.float32)
    run = direct_run(x, kind, width, timing=True)
    stats = run.dispatch()
    read = int(stats.timing.traffic.totals["dram_reads"]) * RX_7900_XTX.sector_bytes
    run.free()
    return x.nbytes, read, stats.timing.dram_bytes, stats.cycles


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--log2", type=int, default=22)
    parser.add_argument("--row", type=int, default=4096)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--width", type=int, default=32)
    parser.add_argument("--kind", default="SOFTMAX", choices=("SOFTMAX", "LOG_SOFTMAX", "HARDMAX"))
    args = parser.parse_args()
    shape, kernel_s, golden_s, kernel_cpu, golden_cpu = functional(args.log2, args.row, args.kind, args.width,
                                                                   args.repeat)
    ratio = kernel_s / golden_s
    print(f"ACTIVATION_{args.kind}1 FLOAT32, 2^{args.log2} elements {shape}, wave{args.width}, best of {args.repeat}")
    print(f"  functional {kernel_s * 1e3:.1f} ms, golden {golden_s * 1e3:.1f} ms: {ratio:.1f}x "
          f"(target <= 5x: {'ok' if ratio <= 5 else 'MISSED'})")
    print(f"  median CPU time of {args.repeat}: functional {kernel_cpu * 1e3:.1f} ms, golden "
          f"{golden_cpu * 1e3:.1f} ms: {kernel_cpu / golden_cpu:.1f}x")
    nbytes, read, moved, cycles = dram(args.row, args.kind, args.width)
    print(f"  {RX_7900_XTX.key}, 64 rows of {args.row}: DRAM reads {read} bytes = {read / nbytes:.2f} x the input's "
          f"{nbytes} (all DRAM traffic {moved} bytes; {cycles} cycles)")


if __name__ == "__main__":
    main()
