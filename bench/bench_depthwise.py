"""Benchmark: the depthwise convolution (kernels/conv_depthwise_row.s, conv_depthwise.s, window.s) in the timing model.

Target: a 3 x 3 convolution is compute-bound and a depthwise one memory-bound, and the summary says which. FLOAT32,
56 x 56, a 3 x 3 filter per channel, padding 1, GroupCount = C, through DirectRun with the timing model on, on the
RX 7900 XTX and H200 presets (their own wave widths), for two layers:
  mobilenet  1 x 128 x 56 x 56 (MobileNet v1's 56 x 56 depthwise layer, 1.6 MB in and out): on either GPU a dispatch
             this small is bound by its launch, as a plain copy of the same bytes is (below);
  large      8 x 384 x 56 x 56 (38.5 MB in and out; --batch / --channels change it): big enough that the launch is a
             small part and, on the H200, more than its 60 MB L2 holds, so the output goes to DRAM within the dispatch.
For each it prints the program the driver picked, the modelled cycles and time, the DRAM bytes and their share of
the DRAM peak over that time, whether the output is the golden model's bit for bit, the trace's verdict line
(traces/verdict.py, the summary `dmlemu run --trace` prints) and its one word (verdict.bound_of: memory, compute,
latency, launch). --tile runs the LDS tile kernel (conv_depthwise.s), --direct the direct kernel (window.s); --dense
adds the dense 3 x 3 layer the target compares with (C = K = 64, GroupCount 1, 1 x 64 x 56 x 56: the implicit GEMM,
kernels/conv_gemm.s).

    .venv/bin/python bench/bench_depthwise.py [--tile | --direct] [--dense] [--batch 8] [--channels 384]

Measured (one run each; the cycles do not depend on the machine's load). The column kernel (default):
  RX 7900 XTX  mobilenet   11,448 cycles =   4.58 us, DRAM 36.5 % of peak: "launch / too few waves, 57%" (DRAM 37%)
               large      254,740 cycles = 101.90 us, DRAM 75.1 % of peak: "DRAM bandwidth, 96%" (issue 24%): memory
  H200         mobilenet    5,995 cycles =   3.03 us, DRAM 11.0 %: "launch / too few waves, 70%" (DRAM 13%)
               large       40,015 cycles =  20.21 us, DRAM 45.4 %: "DRAM bandwidth, 62%" (issue 52%, L2 55%): memory
  dense 3 x 3 (--dense): RX 7900 XTX 1 x 64 102,941 cycles "VALU issue, 76%" and 8 x 64 578,936 cycles "VALU issue,
               92%": compute; H200 1 x 64 103,766 cycles "launch / too few waves, 64%" (392 waves for 528 SIMDs) and
               8 x 64 200,798 cycles "VALU issue, 83%": compute once the grid fills the GPU.
(The H200 figures include the workgroup slot time, presets.py's workgroup_slot_cycles.)
The LDS tile kernel (--tile) on the same layers: RX 7900 XTX 22,539 cycles "VALU issue, 53%" and 335,725 cycles
"VALU issue, 86%" (DRAM 76%, 57.1 % of peak); H200 9,744 cycles "launch / too few waves, 39%" and 128,434 cycles
"VALU issue, 78%" (DRAM 69%, 14.4 % of peak): the large layer bound by its own instruction issue (about 175 lane
issue cycles an output against the column kernel's 38: H200, the MobileNet layer). An ELEMENT_WISE_IDENTITY of 1 x
128 x 56 x 56 FLOAT32 takes 10,416 cycles on the RX 7900 XTX (DRAM 40 %, "launch / too few waves, 54 %") and 5,271
on the H200 ("launch / too few waves, 66 %"): no kernel moving those bytes is DRAM-bound there, the 5,000-cycle (RX
7900 XTX) and 3,000-cycle (H200) launch alone being about as long as the DRAM's 1.6 MB.
"""
import argparse
import time

import numpy as np

from dmlemu import golden
from dmlemu.direct_run import DirectRun
from dmlemu.gpu import Gpu
from dmlemu.kernels import conv_depthwise_ops
from dmlemu.kernels.driver import TensorSpec
from dmlemu.presets import H200, RX_7900_XTX
from dmlemu.traces import capture
from dmlemu.traces.verdict import bound_of


def run_once(preset, size, channels, batch=1, groups=None):
    """(program name, stats, wall seconds, bit-exact, verdict line, bound word) of one 3 x 3 convolution, padding 1,
    GroupCount `groups` (default: `channels`, depthwise)."""
    groups = channels if groups is None else groups
    rng = np.random.default_rng(size + channels + batch)
    x = rng.standard_normal((batch, channels, size, size)).astype(np.float32)
    w = rng.standard_normal((channels, channels // groups, 3, 3)).astype(np.float32)
    out = np.zeros((batch, channels, size, size), np.float32)
    attributes = {"Mode": 1, "Direction": 0, "Strides": (1, 1), "Dilations": (1, 1), "StartPadding": (1, 1),
                  "EndPadding": (1, 1), "OutputPadding": (0, 0), "GroupCount": groups}
    gpu = Gpu(preset, timing=True)
    spec = lambda a: TensorSpec("FLOAT32", a.shape, None, a.nbytes)
    raw = lambda a: a.view(np.uint8).reshape(-1)
    run = DirectRun(gpu, "CONVOLUTION", [spec(x), spec(w), None, spec(out)],
                    [raw(x), raw(w), np.zeros(4, np.uint8), raw(out)], attributes=attributes)
    start = time.perf_counter()
    with capture(gpu) as cap:
        stats = run.dispatch()
    seconds = time.perf_counter() - start
    got = run.output_bytes(3)[:out.nbytes].view(np.uint32)
    same = np.array_equal(got, golden.run("CONVOLUTION", [x, w, None], attributes).view(np.uint32).reshape(-1))
    name = run.kernel.program.name
    run.free()
    return (name, stats, seconds, same, cap.trace.format_verdicts().strip(),
            bound_of(cap.trace.dispatches[0], preset))


def report(preset, label, result):
    name, stats, seconds, same, verdict, bound = result
    modelled = stats.cycles / preset.clock_hz
    dram = stats.timing.dram_bytes
    print(f"{preset.description} {label}: {name}, {stats.cycles:,} cycles = {modelled * 1e6:.2f} us, DRAM {dram:,} "
          f"bytes = {100 * dram / modelled / preset.dram_bytes_per_second:.1f} % of peak; bit-exact {same}; "
          f"{bound}; wall {seconds:.2f} s")
    print("  " + verdict)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    path = parser.add_mutually_exclusive_group()
    path.add_argument("--tile", action="store_true", help="the LDS tile kernel (conv_depthwise.s)")
    path.add_argument("--direct", action="store_true", help="the direct kernel (window.s), the path before both")
    parser.add_argument("--dense", action="store_true",
                        help="also the dense 3 x 3 layer, C = K = 64 (implicit GEMM), at batch 1 and --batch")
    parser.add_argument("--size", type=int, default=56)
    parser.add_argument("--batch", type=int, default=8, help="the large layer's batch")
    parser.add_argument("--channels", type=int, default=384, help="the large layer's channels")
    args = parser.parse_args()
    if args.tile or args.direct:     # the driver's choice before the column kernel (and before the tile kernel)
        conv_depthwise_ops.uses_row = lambda tensors, attributes: False
    if args.direct:
        conv_depthwise_ops.MAX_TILE_WIDTH = 0
    for preset in (RX_7900_XTX, H200):
        report(preset, "mobilenet 1 x 128", run_once(preset, args.size, 128))
        report(preset, f"large {args.batch} x {args.channels}", run_once(preset, args.size, args.channels, args.batch))
        if args.dense:
            for batch in (1, args.batch):
                report(preset, f"dense 3 x 3, {batch} x 64", run_once(preset, args.size, 64, batch, groups=1))


if __name__ == "__main__":
    main()
