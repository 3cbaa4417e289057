"""Benchmark: peak memory of an unbounded capture (`--trace-all`): CLIP FLOAT32 of 2^24 elements at
memory detail on the default adapter, every row kept, then each export written with every event
(the `--trace-all` table in docs/TRACES.md). Peak resident set per stage from /proc/self/status
VmHWM, reset before each stage through /proc/self/clear_refs (Linux); the emulator's own peak
without a trace is measured first, in the same process, for comparison.

    .venv/bin/python bench/bench_trace_memory.py [--log2 24] [--detail memory] [--out DIR]
"""
import argparse
import hashlib
import os
import sys
import tempfile
import time

from dmlemu.tools.operators import OperatorRun, execute, random_inputs
from dmlemu.traces import save_chrome_json, save_pftrace, save_trace
from bench_timing import _peak_memory, _reset_peak_memory   # bench/ is on the path when run as a script


def _mib(field="VmHWM"):
    """A /proc/self/status figure in MiB (VmHWM: the peak since the last reset); -1 where there is none."""
    if field == "VmHWM":
        return _peak_memory() >> 20
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) >> 10
    return -1


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--log2", type=int, default=24)
    parser.add_argument("--detail", default="memory")
    parser.add_argument("--out", default=None, metavar="DIR")
    parser.add_argument("--no-baseline", action="store_true", help="skip the run without a trace")
    args = parser.parse_args()
    out = args.out or tempfile.mkdtemp(prefix="dmlemu-trace-memory-")
    run = OperatorRun("CLIP", "FLOAT32", (1 << args.log2,), min_value=-1.0, max_value=1.0)
    inputs = random_inputs(run, 0)
    if not args.no_baseline:
        _reset_peak_memory()
        start = time.perf_counter()
        execute(run, inputs)
        print(f"run, no trace: {time.perf_counter() - start:.1f} s, peak {_mib()} MiB", flush=True)
    _reset_peak_memory()
    start = time.perf_counter()
    trace = execute(run, inputs, trace=args.detail, trace_max_rows=sys.maxsize).trace
    t = trace.tables
    print(f"run, --trace-all: {time.perf_counter() - start:.1f} s, peak {_mib()} MiB, "
          f"after {_mib('VmRSS')} MiB; rows {len(t['wave_groups'])} / {len(t['segments'])} / {len(t['memory'])}",
          flush=True)
    for suffix, save in ((".npz", save_trace), (".pftrace", save_pftrace),
                         (".json", lambda tr, p: save_chrome_json(tr, p, max_events=sys.maxsize))):
        path = os.path.join(out, f"clip-2^{args.log2}-{args.detail}-all{suffix}")
        _reset_peak_memory()
        start = time.perf_counter()
        save(trace, path)
        with open(path, "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()[:16]
        print(f"{suffix}: {os.path.getsize(path) / 1e6:.1f} MB, {time.perf_counter() - start:.1f} s, "
              f"peak {_mib()} MiB, sha256 {digest}", flush=True)
        os.remove(path)
    if args.out is None:
        os.rmdir(out)


if __name__ == "__main__":
    main()
