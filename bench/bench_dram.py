"""Benchmark: DRAM pointer-chase latency and read bandwidth by working set (the DRAM and miss-queue figures).

1. Pointer chase: one wave follows a chain of pointers (every lane the same address, so one sector per
   step) whose nodes lie 1 MiB + a random multiple of 256 bytes apart, each touched once: every step misses
   every cache and goes to DRAM. Cycles per step = the difference of two chains (T and 2T steps) / T,
   printed in ns next to the published pointer-chase figure of that GPU or a sibling.
2. Read bandwidth: every CU full of waves reading a working set (8-byte loads, 4 per loop trip then
   s_waitcnt), once per dispatch, three dispatches on one device; the rate is the difference of the third
   dispatch's time for sets of S and 2S bytes, so launch and drain cancel. A set in the Infinity Cache (AMD) or the L2 shows that
   level's bandwidth, a set larger than every cache DRAM's.

    .venv/bin/python bench/bench_dram.py [--presets rx6800xt,h200] [--chase-only] [--bandwidth-only]

Published figures: pointer-chase DRAM latency: H200 345 ns (this project's H200,
bench/gpu_calibration/results/h200_microbench.md, 72 MiB-4 GiB sets); RX 6800 XT and RX 7900 XTX: see
emulator/presets.py (the preset's DRAM latency source). Read bandwidth: RX 6900 XT Infinity Cache ~1.95 TB/s
(as quoted in issue 23; a sibling of the RX 6800 XT preset), H200 L2 9.0-10.2 TB/s and DRAM 4.71-4.87 TB/s (this
project's H200).
"""
import argparse
import random
import time

import numpy as np

from dmlemu.functional.buffer_descriptor import write_buffer_descriptor
from dmlemu.functional.wave_dispatcher import KernelLaunch
from dmlemu.gpu import Gpu
from dmlemu.isa.assembler import assemble
from dmlemu.isa.program import Program
from dmlemu.presets import preset_by_key

GROUP = 256            # threads per workgroup (read bandwidth)
UNROLL = 4             # loads per loop trip
CHASE_PUBLISHED = {"h200": (345e-9, "this project's H200, h200_microbench.md"),
                   "rx6800xt": (None, ""), "rx7900xtx": (None, ""), "rtx3070": (None, "")}


def _launch(gpu, source, name, groups, group, buf, vgprs=8):
    table = gpu.memory.allocate(64, "table")
    write_buffer_descriptor(table.data, 0, buf.gpu_va, buf.size)
    launch = KernelLaunch(Program(assemble(source), name), groups, group,
                          (table.gpu_va & 0xFFFFFFFF, table.gpu_va >> 32), vgprs_used=vgprs, sgprs_used=24)
    return gpu.dispatch(launch).cycles


CHASE = ("    s_load_dwordx4 s[8:11], s[0:1], 0\n    s_waitcnt 0\n    v_mov_b32 v1, 0\n    s_mov_b32 s22, {steps}\n"
         "loop:\n    buffer_load_dword v1, v1, s[8:11], 0\n    s_waitcnt 0\n"
         "    s_sub_u32 s22, s22, 1\n    s_cmp_lg_u32 s22, 0\n    s_cbranch_scc1 loop\n    s_endpgm\n")


def chase_cycles(preset, steps, seed=1):
    """Cycles of a chain of `steps` dependent loads, each to a node no cache holds."""
    rng = random.Random(seed)
    offsets = [0]
    for _ in range(steps):
        offsets.append(offsets[-1] + (1 << 20) + 256 * rng.randrange(1, 4096))
    gpu = Gpu(preset)
    buf = gpu.memory.allocate(offsets[-1] + 256, "chain")
    words = buf.data.view(np.uint32)
    for a, b in zip(offsets, offsets[1:]):
        words[a // 4] = b
    return _launch(gpu, CHASE.format(steps=steps), "chase", 1, preset.wave_width, buf)


def chase_latency(preset, steps=64):
    """Seconds per dependent DRAM load (the chains of `steps` and 2 x steps differenced)."""
    c1 = chase_cycles(preset, steps)
    c2 = chase_cycles(preset, 2 * steps)
    return (c2 - c1) / steps / preset.clock_hz


def read_source(groups, trips, passes):
    stride = groups * GROUP * 8 * UNROLL
    loads = "".join(f"    buffer_load_dwordx2 v[{4 + 2 * k}:{5 + 2 * k}], v2, s[8:11], {k * GROUP * 8}\n"
                    for k in range(UNROLL))
    return ("    s_load_dwordx4 s[8:11], s[0:1], 0\n    s_waitcnt 0\n    s_get_workgroup_id s20\n"
            f"    s_mul_i32 s21, s20, {GROUP * 8 * UNROLL}\n    v_lshl_b32 v1, v0, 3\n    v_add_u32 v1, s21, v1\n"
            f"    s_mov_b32 s23, {passes}\nouter:\n    v_mov_b32 v2, v1\n    s_mov_b32 s22, {trips}\ninner:\n"
            + loads + "    s_waitcnt 0\n"
            f"    v_add_u32 v2, {stride}, v2\n"
            "    s_sub_u32 s22, s22, 1\n    s_cmp_lg_u32 s22, 0\n    s_cbranch_scc1 inner\n"
            "    s_sub_u32 s23, s23, 1\n    s_cmp_lg_u32 s23, 0\n    s_cbranch_scc1 outer\n    s_endpgm\n")


def read_cycles(preset, trips, groups, repeats=3):
    """Cycles of the last of `repeats` dispatches that each read the whole set once, on one device (the
    caches keep what the earlier ones brought in: a set that fits a cache is read from it)."""
    size = trips * groups * GROUP * 8 * UNROLL
    gpu = Gpu(preset)
    buf = gpu.memory.allocate(size, "set")
    for _ in range(repeats):
        gpu.barrier()           # one after another (without it the next dispatch overlaps this one's tail)
        cycles = _launch(gpu, read_source(groups, trips, 1), "read_set", groups, GROUP, buf, vgprs=12)
    return cycles


def read_rate(preset, set_bytes):
    """Steady read bytes per second over a working set of about set_bytes, read once per dispatch after two
    dispatches that read it too: the difference of sets of S and 2S bytes, so launch and drain cancel.
    (Within one dispatch the caches see each wave's accesses together, so a set is re-read by separate
    dispatches: emulator/timing/caches.py.) Returns (rate, S)."""
    groups = preset.compute_units * 4
    per_trip = groups * GROUP * 8 * UNROLL
    trips = max(1, round(set_bytes / per_trip))
    c1 = read_cycles(preset, trips, groups)
    c2 = read_cycles(preset, 2 * trips, groups)
    return trips * per_trip / ((c2 - c1) / preset.clock_hz), trips * per_trip


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--presets", default="rx7900xtx,rx6800xt,rtx3070,h200")
    parser.add_argument("--chase-only", action="store_true")
    parser.add_argument("--bandwidth-only", action="store_true")
    parser.add_argument("--sets", default="", help="working sets in MiB (default: per preset)")
    args = parser.parse_args()
    start = time.perf_counter()
    for key in args.presets.split(","):
        preset = preset_by_key(key)
        if not args.bandwidth_only:
            seconds = chase_latency(preset)
            print(f"{key:<10} DRAM pointer chase {seconds * 1e9:6.1f} ns "
                  f"({seconds * preset.clock_hz:.0f} cycles)", flush=True)
        if not args.chase_only:
            caches = preset.l2_bytes + preset.infinity_cache_bytes
            sets = ([int(s) << 20 for s in args.sets.split(",")] if args.sets else
                    [preset.l2_bytes // 4] + ([preset.infinity_cache_bytes // 4] if preset.infinity_cache_bytes else [])
                    + [2 * caches])
            for s in sets:
                rate, size = read_rate(preset, s)
                print(f"{key:<10} read {size / 2**20:7.1f} / {2 * size / 2**20:7.1f} MiB {rate / 1e9:8,.0f} GB/s "
                      f"({rate / preset.dram_bytes_per_second:.2f}x DRAM peak)", flush=True)
    print(f"({time.perf_counter() - start:.1f} s)")


if __name__ == "__main__":
    main()
