"""Benchmark: MEAN_VARIANCE_NORMALIZATION1 (a LayerNorm) over 2^22 elements against the golden NumPy model.

Rows of --width elements (4096 by default: 1024 rows of 4096 FLOAT32, one workgroup of 64 threads per row), the
last axis normalized, Scale and Bias {1, width}. Prints the functional model's time for one dispatch (timing model
off, the kernel compiled beforehand, as bench_reduce.py does), the golden model's time (dmlemu.golden.run) and
their ratio; then, with the timing model on, the modelled DRAM bytes of one dispatch on the preset (RX 7900 XTX by
default) over the input's bytes: 2 plus a little is the floor (the input read once, the output written once, Scale
and Bias once from DRAM). Every output is checked bit for bit against the golden model.

    .venv/bin/python bench/bench_normalization.py [--log2 22] [--width 4096] [--repeat 3] [--wave 32]
        [--type FLOAT32] [--adapter KEY] [--no-timing] [--lds-limit BYTES] [--ulp]

Measured (2-core VM shared with other jobs, wave32; DRAM bytes from the timing model on the RX 7900 XTX preset):

    FLOAT32 1024 x 4096, LDS cache     functional 1414 ms, golden 183 ms: 7.7x; DRAM 1.818 x the input's bytes
    FLOAT16 1024 x 4096, LDS cache     functional 1773 ms, golden 721 ms: 2.5x; DRAM 1.639 x the input's bytes

    FLOAT32 1024 x 4096, --lds-limit 16384 (no LDS cache: three reads of each row)
                                       functional  857 ms; DRAM 1.818 x; 255,648 modelled cycles against 422,660

(DRAM below 2: the 16 MiB input and output fit the preset's 96 MB Infinity Cache, so part of the output's
write-back is still there when the dispatch ends.) Without the LDS cache the second and third reads of a 16 KiB
row hit L2, so DRAM traffic is the same, and the dispatch is faster in the model: the cache's 16.6 KB of LDS per
workgroup allows 3 workgroups per compute unit instead of 16, and occupancy hides less latency. The cache saves
memory reads (L2 traffic), not DRAM bytes, at this width.
"""
import argparse
import dataclasses
import time

import numpy as np

from dmlemu import golden
from dmlemu.direct_run import DirectRun
from dmlemu.gpu import Gpu
from dmlemu.kernels.driver import TensorSpec
from dmlemu.presets import PRESETS, RX_7900_XTX


def best_of(repeat, fn):
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def make_run(preset, wave, timing, x, scale, bias, type_name):
    gpu = Gpu(preset, wave_width=wave, timing=timing)
    spec = lambda a: TensorSpec(type_name, a.shape, None, a.nbytes)
    raw = lambda a: a.view(np.uint8).reshape(-1)
    return DirectRun(gpu, "MEAN_VARIANCE_NORMALIZATION1", [spec(x), spec(scale), spec(bias), spec(x)],
                     [raw(x), raw(scale), raw(bias), np.zeros(x.nbytes, np.uint8)],
                     attributes={"Axes": (1,), "NormalizeVariance": 1, "Epsilon": np.float32(1e-5)})


def ulp_table(seeds=3, rows=64):
    """The golden model's LayerNorm error (the kernel's bits: the tests hold them equal) against float64, in ULPs
    of 1.0 of the output type (the outputs are of order 1; near 0 the exact value's own ULP is meaningless): data
    N(10, 3^2), Epsilon 1e-5, no Scale or Bias."""
    print(f"{'type':8} {'width':>6} {'max ULP(1)':>11} {'mean ULP(1)':>12}")
    for dtype in (np.float32, np.float16):
        for width in (64, 1024, 4096):
            worst, means = 0.0, []
            for seed in range(seeds):
                x = (np.random.default_rng(seed).standard_normal((rows, width)) * 3 + 10).astype(dtype)
                y = golden.run("MEAN_VARIANCE_NORMALIZATION1", [x, None, None],
                               {"Axes": (1,), "NormalizeVariance": 1, "Epsilon": np.float32(1e-5)})
                wide = x.astype(np.float64)
                centred = wide - wide.mean(axis=1, keepdims=True)
                exact = centred / np.sqrt((centred ** 2).mean(axis=1, keepdims=True) + float(np.float32(1e-5)))
                error = np.abs(y.astype(np.float64) - exact) / float(np.spacing(dtype(1.0)))
                worst, means = max(worst, float(error.max())), means + [float(error.mean())]
            print(f"{np.dtype(dtype).name:8} {width:6d} {worst:11.2f} {np.mean(means):12.2f}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--log2", type=int, default=22)
    parser.add_argument("--width", type=int, default=4096)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--wave", type=int, default=32)
    parser.add_argument("--type", default="FLOAT32", choices=["FLOAT32", "FLOAT16"])
    parser.add_argument("--adapter", default=None, help="a preset key (default: the RX 7900 XTX)")
    parser.add_argument("--no-timing", action="store_true", help="skip the timing model's DRAM bytes")
    parser.add_argument("--lds-limit", type=int, default=None,
                        help="the preset's LDS bytes per workgroup (16384: too few to keep a row, three reads)")
    parser.add_argument("--ulp", action="store_true", help="print the error table against float64 and stop")
    args = parser.parse_args(argv)
    if args.ulp:
        return ulp_table()
    preset = next((p for p in PRESETS if p.key == args.adapter), RX_7900_XTX) if args.adapter else RX_7900_XTX
    if args.lds_limit is not None:
        preset = dataclasses.replace(preset, lds_max_bytes_per_workgroup=args.lds_limit)
    dtype = {"FLOAT32": np.float32, "FLOAT16": np.float16}[args.type]
    rows = (1 << args.log2) // args.width
    rng = np.random.default_rng(1)
    x = (rng.standard_normal((rows, args.width)) * 2 + 1).astype(dtype)
    scale, bias = (rng.standard_normal((1, args.width)).astype(dtype) for _ in range(2))
    attributes = {"Axes": (1,), "NormalizeVariance": 1, "Epsilon": np.float32(1e-5)}

    run = make_run(preset, args.wave, False, x, scale, bias, args.type)
    kernel_s, _ = best_of(args.repeat, run.dispatch)
    got = run.output_bytes(3)[:x.nbytes].view(dtype).reshape(x.shape)
    golden_s, expected = best_of(args.repeat, lambda: golden.run("MEAN_VARIANCE_NORMALIZATION1", [x, scale, bias],
                                                                 attributes))
    assert np.array_equal(got.view(np.uint8), np.asarray(expected).view(np.uint8)), "kernel and golden model differ"
    print(f"MVN1 {args.type} {rows} x {args.width} (2^{args.log2} elements), axis 1, wave{args.wave}, "
          f"kernel {run.kernel.program.name}, best of {args.repeat}")
    print(f"  functional {kernel_s * 1e3:9.1f} ms   golden {golden_s * 1e3:8.1f} ms   ratio {kernel_s / golden_s:6.1f}x")
    run.free()
    if not args.no_timing:
        run = make_run(preset, args.wave, True, x, scale, bias, args.type)
        stats = run.dispatch()
        dram = int(stats.timing.dram_bytes)
        print(f"  modelled on {preset.key}: {stats.cycles} cycles, DRAM {dram} bytes = "
              f"{dram / x.nbytes:.3f} x the input's {x.nbytes} bytes (floor: 2 + {2 * scale.nbytes / x.nbytes:.4f})")
        run.free()


if __name__ == "__main__":
    main()
