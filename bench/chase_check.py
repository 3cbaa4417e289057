"""Pointer-chase latency by working set, per preset: the modelled latency of one wave's dependent loads
at L0/L1-, L2-, Infinity-Cache- and DRAM-sized working sets, next to published pointer-chase figures.

    .venv/bin/python bench/chase_check.py                  # every preset with a published figure
    .venv/bin/python bench/chase_check.py --preset rx6800xt

The kernel (assembly, launched with KernelLaunch on a timed Gpu, as dmlemu.tools.lds_microbench does):
one wave whose lanes all read the same dword, `buffer_load_dword v2, v2` then `s_waitcnt 0`, the loaded
value being the byte offset of the next node (nodes at 64-byte slots). Every figure is the difference
of two runs with T and 2T loop trips (launch and drain cancel), per load, in the preset's cycles and in
ns. Three kinds of chase, by working set:

    cyclic    (up to half the L2) a random cycle over min(set / 64 B, 16384) slots; the first (cold) lap
              is in both runs, so the difference is laps in steady state
    ordered   (up to twice the largest cache) a dispatch first reads every sector of the set, then the
              chase visits random slots in address order, once, where more than each cache smaller
              than the set was streamed since them: the reuse distance of a cyclic chase's steady state
    cold      (larger sets) a sparse dispatch touches one slot per 64 KiB first (the TLBs see every
              page), then the chase visits random slots once, in random order: data from DRAM, and
              translations that hit the shared TLB as often as its reach covers the set

Published figures: docs/FIDELITY.md's pointer-chase section says where each comes from; a level
without one says NOT FOUND.
"""
import argparse
import sys

import numpy as np

from dmlemu.functional.buffer_descriptor import write_buffer_descriptor
from dmlemu.functional.wave_dispatcher import KernelLaunch
from dmlemu.gpu import Gpu
from dmlemu.isa.assembler import assemble
from dmlemu.isa.program import Program
from dmlemu.presets import PRESETS, preset_by_key

KiB, MiB, GiB = 1 << 10, 1 << 20, 1 << 30
UNROLL = 8
SLOT = 64


def chase_source(trips):
    return ("    s_load_dwordx4 s[8:11], s[0:1], 0\n    s_waitcnt 0\n    v_mov_b32 v2, 0\n"
            f"    s_mov_b32 s22, {trips}\nloop:\n" + "    buffer_load_dword v2, v2, s[8:11], 0\n    s_waitcnt 0\n" * UNROLL
            + "    s_sub_u32 s22, s22, 1\n    s_cmp_lg_u32 s22, 0\n    s_cbranch_scc1 loop\n    s_endpgm\n")


# One lane per `stride` bytes of the set loads a dword: the warm-up dispatch.
WARM_SOURCE = ("    s_load_dwordx4 s[8:11], s[0:1], 0\n    s_waitcnt 0\n    s_get_workgroup_id s20\n"
               "    s_mul_i32 s21, s20, {group}\n    v_add_u32 v1, s21, v0\n    v_mul_lo_u32 v1, v1, {stride}\n"
               "    buffer_load_dword v3, v1, s[8:11], 0\n    s_waitcnt 0\n    s_endpgm\n")


def kind(preset, working_set):
    if working_set <= preset.l2_bytes // 2:
        return "cyclic"
    if working_set <= 2 * max(preset.infinity_cache_bytes, preset.l2_bytes):
        return "ordered"
    return "cold"


def nodes(preset, working_set, loads, seed=1):
    """The slot offsets the chase visits, node 0 first (see the banner)."""
    rng = np.random.default_rng(seed)
    slots = working_set // SLOT
    how = kind(preset, working_set)
    if how == "cyclic":
        count = min(slots, CYCLIC_NODES)
        picks = rng.choice(slots, size=count, replace=False) if count < slots else rng.permutation(slots)
        picks = picks[picks != 0]
    else:
        # Ordered: the nodes lie where the warm-up's traffic since them exceeds every cache smaller than
        # the set (the reuse distance of a cyclic chase's steady state); cold: anywhere.
        smaller = [c for c in (preset.l2_bytes // (2 if preset.l2_far_latency_cycles else 1), preset.l2_bytes,
                               preset.infinity_cache_bytes) if c < working_set]
        span = working_set - (max(smaller) if how == "ordered" and smaller else 0)
        stride = span // SLOT // loads
        picks = np.arange(1, loads) * stride + rng.integers(0, stride, size=loads - 1)
        if how == "cold":
            picks = rng.permutation(picks)
    return np.concatenate([[0], picks]).astype(np.int64) * SLOT


def chase_cycles(preset, working_set, order, trips, warm_stride):
    """Cycles of the chase dispatch on a fresh Gpu, after the warm-up dispatch when warm_stride is set."""
    gpu = Gpu(preset)
    buf = gpu.memory.allocate(working_set, "chase")
    table = gpu.memory.allocate(64, "table")
    write_buffer_descriptor(table.data, 0, buf.gpu_va, buf.size)
    words = buf.data.view(np.uint32)
    words[order // 4] = np.roll(order, -1).astype(np.uint32)       # each node holds the next's offset
    user = (table.gpu_va & 0xFFFFFFFF, table.gpu_va >> 32)
    if warm_stride:
        group = preset.workgroup_size
        lanes = working_set // warm_stride
        source = WARM_SOURCE.format(group=group, stride=warm_stride)
        gpu.dispatch(KernelLaunch(Program(assemble(source), "warm"), -(-lanes // group), group, user))
    launch = KernelLaunch(Program(assemble(chase_source(trips)), "chase"), 1, preset.wave_width, user)
    return gpu.dispatch(launch).cycles


def latency_cycles(preset, working_set, passes=64):
    """Cycles per dependent load at a working set (see the banner)."""
    how = kind(preset, working_set)
    if how == "cyclic":
        order = nodes(preset, working_set, 0)
        trips = -(-len(order) // UNROLL)          # one lap per T: the first (cold) lap is in both runs
        warm = 0
    else:
        trips = passes // UNROLL
        order = nodes(preset, working_set, 2 * trips * UNROLL + 2)
        warm = preset.sector_bytes if how == "ordered" else 64 * KiB
    one = chase_cycles(preset, working_set, order, trips, warm)
    two = chase_cycles(preset, working_set, order, 2 * trips, warm)
    return (two - one) / (trips * UNROLL)


CYCLIC_NODES = 16384
SIZES = (4 * KiB, 64 * KiB, 1 * MiB, 16 * MiB, 48 * MiB, 1 * GiB)
TE42_RX6900XT = "te42kyfo/gpu-benches gpu-latency/rx6900xt.txt (RX 6900 XT at 2.57 GHz, 64-B stride random chase)"
H200_OWN = "this project's H200 (bench/gpu_calibration/results/h200_microbench.md)"
# Published pointer-chase latencies: preset -> {working set: (value, unit, source)}; "cycles" compare in
# cycles (on-chip levels scale with the clock: a sibling at another clock), "ns" in ns (DRAM).
PUBLISHED = {
    "rx6800xt": {
        4 * KiB: (73.1, "cycles", TE42_RX6900XT + ", 4 KiB (sibling: Navi 21)"),
        64 * KiB: (110, "cycles", TE42_RX6900XT + ", 62-77 kB: 108-112 cycles (the 128 KB L1)"),
        1 * MiB: (207, "cycles", TE42_RX6900XT + ", 1029 kB"),
        16 * MiB: (389, "cycles", TE42_RX6900XT + ", 16482 kB"),
        48 * MiB: (405, "cycles", TE42_RX6900XT + ", 47045 kB"),
        1 * GiB: (743, "ns", TE42_RX6900XT + ", 926711 kB: 1910 cycles"),
    },
    "rx7900xtx": {
        48 * MiB: (150.3, "ns", "Chips and Cheese, 'Latency Testing is Hard (RDNA 3 Power Saving)', 2023: vector "
                               "Infinity Cache latency, higher power state"),
    },
    "h200": {
        4 * KiB: (33.5, "cycles", H200_OWN + ": L1 hit 32.1-34.9 cycles"),
        64 * KiB: (33.5, "cycles", H200_OWN + ": L1 hit 32.1-34.9 cycles (4-192 KiB)"),
        1 * MiB: (280, "cycles", H200_OWN + ": L2 near 279-281 cycles (320 KiB - 24 MiB)"),
        16 * MiB: (280, "cycles", H200_OWN + ": L2 near 279-281 cycles"),
        48 * MiB: (523, "cycles", H200_OWN + ": L2 far 521-525 cycles (36-52 MiB)"),
        1 * GiB: (345.5, "ns", H200_OWN + ": HBM3e 343.8-347.5 ns (72 MiB - 4 GiB)"),
    },
}


def table(presets, sizes=SIZES):
    """Rows (preset, working set, modelled cycles, modelled ns, published or None, unit, source, ratio)."""
    rows = []
    for preset in presets:
        for size in sizes:
            cycles = latency_cycles(preset, size)
            ns = cycles / preset.clock_hz * 1e9
            value, unit, source = PUBLISHED.get(preset.key, {}).get(size, (None, "", "NOT FOUND"))
            ratio = None if value is None else (cycles if unit == "cycles" else ns) / value
            rows.append((preset.key, size, cycles, ns, value, unit, source, ratio))
    return rows


def label(size):
    return f"{size // GiB} GiB" if size >= GiB else f"{size // MiB} MiB" if size >= MiB else f"{size // KiB} KiB"


def render(rows):
    lines = ["| preset | working set | modelled cycles | modelled ns | published | ratio | source |",
             "|---|---:|---:|---:|---:|---:|---|"]
    for key, size, cycles, ns, value, unit, source, ratio in rows:
        published = "NOT FOUND" if value is None else f"{value:g} {unit}"
        lines.append(f"| {key} | {label(size)} | {cycles:.0f} | {ns:.1f} | {published} | "
                     f"{'' if ratio is None else f'{ratio:.2f}'} | {source} |")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default=None)
    parser.add_argument("--sizes", default=None, help="working sets in KiB, comma separated")
    args = parser.parse_args(argv)
    presets = [preset_by_key(args.preset)] if args.preset else [p for p in PRESETS if p.key != "teaching"]
    sizes = tuple(int(s) * KiB for s in args.sizes.split(",")) if args.sizes else SIZES
    print(render(table(presets, sizes)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
