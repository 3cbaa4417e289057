"""Pointer-chase latency by working set, per preset, in cycles and ns: the microbenchmark suite's chase
(bench/microbench/benchmarks.py chase_ns, kernel bench/microbench/kernels/chase.s, through the D3D12
mirror), printed with each preset's cycles beside the ns, next to the suite's published figures.

    .venv/bin/python bench/chase_check.py                       # the suite's presets and sets
    .venv/bin/python bench/chase_check.py --preset rx6800xt --sizes 4,64,1024
    .venv/bin/python bench/chase_check.py --long                # also the sets above 512 MiB (h200's 1 GiB)

A thin caller: how the chase walks a set (cached sets warmed first, larger ones chased cold) is the suite's
(benchmarks.py's banner), the published figures are bench/microbench/published.py's (a set with no row
there says NOT FOUND), and `suite.py --benchmarks chase` prints the same points with PASS / FAIL.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from microbench import benchmarks, published, suite  # noqa: E402
from microbench.rig import BenchRig  # noqa: E402
from dmlemu.presets import preset_by_key  # noqa: E402

KiB = 1 << 10


def table(presets, sizes=None, long=False):
    """Rows (preset, working set, modelled cycles, modelled ns, the Published row or None)."""
    rows = []
    for preset in presets:
        sets = sizes or [s for s in benchmarks.chase_sets(preset) if long or s <= benchmarks.LONG_BYTES]
        for size in sets:
            ns = benchmarks.chase_ns(BenchRig(preset.key), preset, size)     # a fresh device per set
            rows.append((preset.key, size, ns * preset.clock_hz / 1e9, ns,
                         published.lookup(preset.key, "chase", benchmarks.label(size))))
    return rows


def render(rows):
    lines = ["| preset | working set | modelled cycles | modelled ns | published | ratio | source |",
             "|---|---:|---:|---:|---:|---:|---|"]
    for key, size, cycles, ns, ref in rows:
        shown = "NOT FOUND" if ref is None else f"{ref.value:g} {ref.unit}" + (" (sibling)" if ref.sibling else "")
        ratio = "" if ref is None else f"{ns / ref.value:.2f}"
        lines.append(f"| {key} | {benchmarks.label(size)} | {cycles:.0f} | {ns:.1f} | {shown} | {ratio} | "
                     f"{'NOT FOUND' if ref is None else ref.source} |")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default=None)
    parser.add_argument("--sizes", default=None, help="working sets in KiB, comma separated (default: the suite's)")
    parser.add_argument("--long", action="store_true", help="also the suite's sets above 512 MiB")
    args = parser.parse_args(argv)
    presets = [preset_by_key(key) for key in ([args.preset] if args.preset else suite.PRESETS)]
    sizes = [int(s) * KiB for s in args.sizes.split(",")] if args.sizes else None
    print(render(table(presets, sizes, args.long)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
