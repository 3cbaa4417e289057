"""Benchmark: DML_OPERATOR_GEMM FLOAT32 (kernels/gemm.s) in the functional model and in the timing model.

For each size n (an n x n x n product, no C, Alpha 1) it prints:
  * the functional model's time for one dispatch with the timing model off (the kernel compiled beforehand, as
    bench_element_wise.py does) and its cost per multiply-add (ns/MAC; target: <= 5 ns), in wall time
    and in the process's CPU time (which a machine shared with other work moves much less);
  * with --timing, the wall time of the same dispatch with the timing model on (target for 1024^3: <= 30 s),
    the modelled cycles and the modelled TFLOP/s on the preset against its FP32 peak (target for 2048^3: 35-65 %
    of it): compute units x SIMDs x wave width x 2 FLOP x clock (one v_fma_f32 per lane per cycle), doubled where
    the preset models RDNA3's VOPD dual issue (the RX 7900 XTX: AMD's 61.4 TFLOP/s); the vendor's figure is printed
    beside it.
The golden model checks the smaller sizes bit for bit (--check up to that n). With --ulp it tabulates instead the
error of GEMM's result (the golden model's, which the kernel matches bit for bit) in ULPs of the output type at
the exact value (float64 sums of the exact float64 products), against WebNN's conformance tolerance for gemm and
matmul (2 K ULP). Normal data cancels (the exact value is small next to its terms, so its ULP is small): the last
column measures the error in ULPs of sum |a b| instead.

    .venv/bin/python bench/bench_gemm.py [--sizes 256 1024] [--timing] [--width 32] [--check 256] [--ulp]
                                         [--type FLOAT16] [--adapter rtx3070]

--type FLOAT16 runs a FLOAT16 GEMM: on a preset with matrix units (the default RX 7900 XTX) and wave32, gemm.s's WMMA
variant (v_wmma_f32_16x16x16_f16, gemm_wmma.inc); the modelled TFLOP/s is then also given against the preset's
matrix peak (compute units x matrix_fp16_flops_per_cycle_per_cu x clock) and the kernel's name is printed; target:
2x the FLOAT32 rate. --adapter picks the preset.

The kernels: the float GEMM without a FusedActivation on the VALU runs gemm.s's WIDE variant where its grid fills
the compute units (gemm_ops.uses_wide: 128 x 64 blocks, two 4 x 4 accumulator blocks per thread, every fma in a VOPD
pair, which needs its two sources in different VGPR banks and one even, one odd destination; the next tile's loads
in flight), else 64 x 64 blocks, 4 x 4 accumulators per thread, K in LDS tiles of 16, whole tiles unrolled with the
next k's reads in flight. The WMMA loop: 128 x 64 blocks per 4-wave workgroup, 8 WMMA per wave per 16 k, 32-k LDS
tiles, A two k a load. The executor runs float32 FMAs on the CPU's FMA3 (isa/fma_compiled.pyx, the same bits),
same-shape operands straight to the compiled kernel, v_wmma's 16 k steps as 3-D blocks of outer products, and LDS
reads through an address register holding an array reusing its lanes, their unwritten check and their bank passes
(executor._lds_array_lanes).

Measured (2-core VM shared with other work, wave32; the wall times move by tens of percent with the machine's
load, the cycles do not):
  functional model, timing off (2026-11-28, load average 5 to 10, CPU time of the dispatch, median of 3 runs):
  1024^3  FLOAT32 rx7900xtx 1.72 ns/MAC; FLOAT16 (WMMA) rx7900xtx 1.63; FLOAT32 rx6800xt 1.68; FLOAT16 (VALU
          fmas) rx6800xt 1.83. Wall time at that load: FLOAT32 rx7900xtx 4.3 ns/MAC (one run each of the others:
          3.9 to 4.8 ns/MAC)
  2048^3  FLOAT32 rx7900xtx (one run): 1.78 ns/MAC of CPU time (4.7 ns/MAC wall, load 8.5)
  timing on, RX 7900 XTX unless named (2026-11-28, load average about 1 to 2, one run each):
  1024^3  FLOAT32 3.3 s wall, 201,435 cycles, 26.65 TFLOP/s = 43.4 % of the 61.4 TFLOP/s FP32 peak; FLOAT16
          (WMMA) 2.7 s wall, 99,295 cycles, 2.03x the FLOAT32 rate; rtx3070 FLOAT32 340,149, FLOAT16 173,073
          (1.97x); h200 FLOAT32 205,623, FLOAT16 49,357 (4.17x)
  2048^3  FLOAT32 23.3 s wall, 1,494,863 cycles, 28.73 TFLOP/s = 46.8 % of the FP32 peak (verdict `VALU issue,
          100 %`); FLOAT16 18.8 s wall, 532,982 cycles, 80.58 TFLOP/s = 65.6 % of the 122.9 TFLOP/s matrix peak,
          2.80x the FLOAT32 rate (verdict `matrix issue, 87 %`); functional 2048^3 FLOAT32 1.83 ns/MAC of CPU time
  256^3   (an older run, load average about 2 to 3, on a timing model without VOPD dual issue) timing off 0.23 s,
          13.7 ns/MAC (16 workgroups: the executor's per-instruction cost dominates); timing on 0.47 s wall,
          110,711 cycles, 0.76 TFLOP/s modelled (16 workgroups on 96 CUs)
Runs past the executor's 300 s per dispatch need DMLEMU_DISPATCH_SECONDS raised on a loaded machine.
"""
import argparse
import contextlib
import time

import numpy as np

from dmlemu import golden
from dmlemu.direct_run import DirectRun
from dmlemu.gpu import Gpu
from dmlemu.kernels.driver import TensorSpec
from dmlemu.presets import DEFAULT_PRESET, preset_by_key
from dmlemu.traces import capture
from dmlemu.traces.verdict import format_verdict, verdict

VENDOR_PEAK_TFLOPS = {"rx7900xtx": 61.4}     # AMD product page (dual-issue FP32)


def run_once(n, timing, width, check, type_name="FLOAT32", preset=DEFAULT_PRESET):
    dtype = np.float16 if type_name == "FLOAT16" else np.float32
    size = np.dtype(dtype).itemsize
    rng = np.random.default_rng(n)
    a = rng.standard_normal((n, n)).astype(dtype)
    b = rng.standard_normal((n, n)).astype(dtype)
    gpu = Gpu(preset, wave_width=width, timing=timing)
    spec = TensorSpec(type_name, (n, n), None, size * n * n)
    run = DirectRun(gpu, "GEMM", [spec, spec, None, spec],
                    [a.view(np.uint8).reshape(-1), b.view(np.uint8).reshape(-1), np.zeros(4, np.uint8),
                     np.zeros(size * n * n, np.uint8)],
                    attributes={"TransA": 0, "TransB": 0, "Alpha": 1.0, "Beta": 0.0})
    start, cpu_start = time.perf_counter(), time.process_time()
    with capture(gpu, detail="dispatch") if timing else contextlib.nullcontext() as cap:
        stats = run.dispatch()
    seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - cpu_start
    line = ""
    if timing:         # what bound it: the trace's verdict (traces/verdict.py)
        row = cap.trace.tables["dispatches"][0]
        line = format_verdict(verdict(row, preset), row, preset)
    got = run.output_bytes(3)[:size * n * n].view(dtype).reshape(n, n)
    if n <= check:
        expected = golden.run("GEMM", [a, b, None], {"Alpha": 1.0, "Beta": 0.0})
        assert np.array_equal(got.view(np.uint8), expected.view(np.uint8)), "kernel and golden model differ"
    name = run.kernel.program.name
    run.free()
    return seconds, stats, name, line, cpu_seconds


def ulp_table():
    """The error of GEMM in ULPs of the output type, M = N = 32, K from 16 to 4096, 3 seeds each."""
    print("| type | K | data | max ULP | mean ULP | max ULP / (2 K) | max error in ULPs of sum |a b| |")
    print("|---|---|---|---|---|---|---|")
    for type_name, dtype in (("FLOAT32", np.float32), ("FLOAT16", np.float16)):
        for k in (16, 256, 4096):
            for data in ("normal", "uniform [0, 1)"):
                worst, total, count, scaled = 0.0, 0.0, 0, 0.0
                for seed in range(3):
                    rng = np.random.default_rng(seed)
                    draw = (lambda s: rng.standard_normal(s)) if data == "normal" else (lambda s: rng.random(s))
                    a, b = draw((32, k)).astype(dtype), draw((k, 32)).astype(dtype)
                    got = golden.run("GEMM", [a, b, None], {"Alpha": 1.0, "Beta": 0.0}).astype(np.float64)
                    exact = a.astype(np.float64) @ b.astype(np.float64)
                    ulp = np.spacing(np.abs(exact).astype(dtype)).astype(np.float64)
                    err = np.abs(got - exact) / ulp
                    magnitude = np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64))
                    scaled = max(scaled, float((np.abs(got - exact) / np.spacing(magnitude.astype(dtype))).max()))
                    worst, total, count = max(worst, float(err.max())), total + float(err.sum()), count + err.size
                print(f"| {type_name} | {k} | {data} | {worst:.2f} | {total / count:.2f} | {worst / (2 * k):.2g} | {scaled:.2f} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[256, 1024])
    parser.add_argument("--timing", action="store_true", help="also run with the timing model on")
    parser.add_argument("--width", type=int, default=None)
    parser.add_argument("--check", type=int, default=256, help="check against the golden model up to this n")
    parser.add_argument("--ulp", action="store_true", help="tabulate the error in ULPs instead")
    parser.add_argument("--type", default="FLOAT32", choices=("FLOAT32", "FLOAT16"), help="the tensors' data type")
    parser.add_argument("--adapter", default=DEFAULT_PRESET.key, help="the adapter preset's key (rtx3070, h200, ...)")
    args = parser.parse_args()
    if args.ulp:
        ulp_table()
        return
    p = preset_by_key(args.adapter)
    width = args.width or p.wave_width
    single = p.compute_units * p.simds_per_cu * p.wave_width * 2 * p.clock_hz / 1e12
    peak = single * (2 if p.valu_dual_issue else 1)      # the preset's VOPD dual issue: two FMAs per lane per cycle
    matrix_peak = p.compute_units * getattr(p, "matrix_fp16_flops_per_cycle_per_cu", 0) * p.clock_hz / 1e12
    print(f"GEMM {args.type} on {p.description}, wave{width}; modelled FP32 peak {peak:.1f} TFLOP/s ({single:.1f} single "
          f"issue{', doubled by VOPD dual issue' if p.valu_dual_issue else ''}; vendor: "
          f"{VENDOR_PEAK_TFLOPS.get(p.key, float('nan'))}); matrix FP16 peak {matrix_peak:.1f} TFLOP/s")
    for n in args.sizes:
        macs = n ** 3
        seconds, _, name, _, cpu = run_once(n, False, width, args.check, args.type, p)
        print(f"  {n}^3 functional (timing off, {name}): {seconds:8.2f} s  {seconds / macs * 1e9:6.2f} ns/MAC; "
              f"CPU time {cpu:6.2f} s  {cpu / macs * 1e9:6.2f} ns/MAC")
        if args.timing:
            seconds, stats, name, line, cpu = run_once(n, True, width, 0, args.type, p)
            tflops = 2 * macs / (stats.cycles / p.clock_hz) / 1e12
            matrix = f"; {100 * tflops / matrix_peak:5.1f} % of the matrix peak" if "wmma" in name else ""
            print(f"  {n}^3 with timing ({name}): {seconds:8.2f} s wall ({cpu:.2f} s CPU), {stats.cycles} cycles, {tflops:6.2f} TFLOP/s "
                  f"modelled = {100 * tflops / peak:5.1f} % of {peak:.1f} "
                  f"({100 * tflops / VENDOR_PEAK_TFLOPS.get(p.key, float('nan')):5.1f} % of the vendor's){matrix}")
            print(f"    {line}")


if __name__ == "__main__":
    main()
