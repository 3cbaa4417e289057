"""Benchmark: trace sizes and write times of the Chrome JSON and the native Perfetto (.pftrace)
exports, per detail level, for CLIP FLOAT32 at 2^16, 2^20 and 2^24 elements on the default adapter
(the table in docs/TRACES.md). Each size and detail is run once (`dmlemu run` does the same:
execute with trace=detail); the recorder keeps its default row limit, so the tables and the events
are bounded and what was folded is listed. Needs the perfetto extra.

    .venv/bin/python bench/bench_trace_formats.py [--sizes 16 20 24] [--out DIR]
"""
import argparse
import os
import tempfile
import time

from dmlemu.tools.operators import OperatorRun, execute, random_inputs
from dmlemu.traces import save_chrome_json, save_pftrace
from dmlemu.traces.recorder import DETAILS


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", nargs="+", type=int, default=[16, 20, 24], metavar="LOG2")
    parser.add_argument("--out", default=None, metavar="DIR", help="keep the files here (default: a temporary folder)")
    args = parser.parse_args()
    out = args.out or tempfile.mkdtemp(prefix="dmlemu-trace-formats-")
    os.makedirs(out, exist_ok=True)
    print("| elements | detail | rows kept (waves / segments / memory) | folded | Chrome JSON | write s "
          "| .pftrace | write s |")
    print("|---|---|---|---|---|---|---|---|")
    for log2 in args.sizes:
        run = OperatorRun("CLIP", "FLOAT32", (1 << log2,), min_value=-1.0, max_value=1.0)
        inputs = random_inputs(run, 0)
        for detail in DETAILS:
            trace = execute(run, inputs, trace=detail).trace
            cells = []
            for suffix, save in ((".json", save_chrome_json), (".pftrace", save_pftrace)):
                path = os.path.join(out, f"clip-2^{log2}-{detail}{suffix}")
                start = time.perf_counter()
                save(trace, path)
                cells += [f"{os.path.getsize(path) / 1e6:.2f} MB", f"{time.perf_counter() - start:.2f}"]
            t = trace.tables
            rows = f"{len(t['wave_groups'])} / {len(t['segments'])} / {len(t['memory'])}"
            print(f"| 2^{log2} | {detail} | {rows} | {', '.join(trace.aggregated) or '-'} | {' | '.join(cells)} |",
                  flush=True)


if __name__ == "__main__":
    main()
