"""Does more DRAM bandwidth ever make a dispatch slower? SIGMOID FLOAT16 on the RX 7900 XTX preset at DRAM
bandwidths from 480 to 1200 GB/s, with the SIMDs' slot groups as configured (2) or in lock step (1).

    .venv/bin/python bench/bandwidth_monotonicity.py [--log2 20] [--groups 2]

Prints the dispatch's cycles per bandwidth and whether they ever rise. With one slot group per SIMD the
time falls or stays as bandwidth grows; with two slot groups sharing a SIMD's issue port it does not
(2^20 elements: 21,227 cycles at 480 GB/s, 23,561 at 600; 2^22: 66,524 at 720, 75,669 at 840): slower
memory staggers the two groups' cohorts so one computes while the other waits, faster memory returns one
group's load just as the other's cohort ends, and the returning group's ALU run, booked on the port when
its load left, holds the port while the other's next cohort waits to send its first load (the two then
stay in that phase). DRAM busy cycles fall as they should; refresh, turnaround, the write queue and the
miss-queue limit are not the cause (each removed, the rise stays); docs/DEVIATIONS.md. On the DRAM side no
transfer starts inside a refresh window for free and no CU's request overtakes its wait queue;
tests/timing/test_monotonic.py holds the rule for small dispatches.
"""
import argparse
import dataclasses

import numpy as np

import dmlemu.timing.simd as simd_module
from dmlemu.direct_run import DirectRun
from dmlemu.gpu import Gpu
from dmlemu.kernels.driver import TensorSpec
from dmlemu.presets import RX_7900_XTX


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--log2", type=int, default=20, help="elements: 2^LOG2 (default 20)")
    parser.add_argument("--groups", type=int, default=simd_module.ISSUE_GROUPS, help="slot groups per SIMD")
    args = parser.parse_args()
    simd_module.ISSUE_GROUPS = args.groups
    n = 1 << args.log2
    x = np.random.default_rng(0).standard_normal(n).astype(np.float16)
    spec = TensorSpec("FLOAT16", (n,), None, x.nbytes)
    previous, rises = None, []
    print(f"SIGMOID FLOAT16 2^{args.log2}, RX 7900 XTX, {args.groups} slot group(s) per SIMD")
    print("  GB/s    cycles   DRAM busy")
    for gbs in (480, 600, 720, 840, 960, 1200):
        preset = dataclasses.replace(RX_7900_XTX, dram_bytes_per_second=gbs * 10**9)
        stats = DirectRun(Gpu(preset), "ACTIVATION_SIGMOID", [spec, spec],
                          [x.view(np.uint8), np.zeros(x.nbytes, np.uint8)]).dispatch()
        print(f"  {gbs:4d}  {stats.cycles:8d}  {stats.timing.dram_busy_cycles:10d}")
        if previous is not None and stats.cycles > previous[1]:
            rises.append(f"{previous[0]} -> {gbs} GB/s: {previous[1]} -> {stats.cycles} cycles")
        previous = (gbs, stats.cycles)
    print("never slower with more bandwidth" if not rises else "SLOWER with more bandwidth: " + "; ".join(rises))


if __name__ == "__main__":
    main()
