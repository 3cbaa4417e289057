"""LDS, barrier and atomic microbenchmarks per preset: the table of docs/FIDELITY.md's section on
workgroups that cooperate (tools/fidelity.py writes it with the rest of that file).

    .venv/bin/python bench/bench_lds.py               # every preset
    .venv/bin/python bench/bench_lds.py --preset rx7900xtx

The kernels and what each measures: dmlemu.tools.lds_microbench (tools/lds_microbench.py).
"""
import argparse
import sys

from dmlemu.presets import PRESETS, preset_by_key
from dmlemu.tools.lds_microbench import render, table


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default=None)
    args = parser.parse_args(argv)
    presets = [preset_by_key(args.preset)] if args.preset else list(PRESETS)
    print(render(table(presets)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
