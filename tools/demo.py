"""`dmlemu demo`: four DirectML operators on the default adapter, checked and traced.

Runs ELEMENT_WISE_THRESHOLD, CLIP (FLOAT16 with a ScaleBias), IF (with a broadcast condition) and ADD
(a row added to every row: NumPy-style broadcasting, which DirectML does through stride 0) on small
tensors through the DirectML mirror, on one device (dmlemu.convenience.Session) inside one trace capture,
then one larger CLIP so that the timing model has something to show (bandwidth and occupancy). Prints every small tensor, checks every output bit for bit against dmlemu.golden,
prints the per-dispatch summary, and writes into the output folder (fixed names, no timestamps):

    trace.json       Chrome Trace Event JSON (Perfetto, chrome://tracing)
    trace.pftrace    the same as a native Perfetto trace, the one to open in https://ui.perfetto.dev: its
                     tracks come in a fixed order, the GPU's first (when the optional perfetto package
                     is installed: pip install 'dmlemu[perfetto]'; `make demo` installs it)
    trace.npz        the trace's columns: `dmlemu trace OUT/trace.npz` summarises or converts it
    dispatches.csv   one row per dispatch
    *.png            the plots (traces.plots)
"""
import os
import sys
from dataclasses import dataclass, field

import numpy as np

from dmlemu.convenience import Session
from dmlemu.tools.operators import OperatorRun, describe, format_array, golden_outputs, operator_desc, preset_for, same_bits, \
    tensor_names
from dmlemu.tools.progress import Progress
from dmlemu.tools import tracefiles

__all__ = ["DEFAULT_OUT", "DemoCase", "demo_cases", "run_demo"]

DEFAULT_OUT = "dmlemu-demo-out"
BIG_ELEMENTS = 1 << 20


@dataclass
class DemoCase:
    title: str
    run: OperatorRun
    inputs: list
    show: bool = True          # print the tensors (small ones only)
    outputs: list = field(default_factory=list)
    ok: bool = False


def demo_cases():
    """The demo's operator runs and their inputs (fixed values; the big one seeded)."""
    nan, inf = float("nan"), float("inf")
    threshold = OperatorRun("THRESHOLD", "FLOAT32", (2, 4), min_value=0.0)
    clip = OperatorRun("CLIP", "FLOAT16", (2, 4), scale=2.0, bias=0.5, min_value=-1.0, max_value=1.0)
    # IF: the condition has strides {0, 1}: one row of 4 bytes serves both rows (a broadcast).
    if_ = OperatorRun("IF", "FLOAT32", (2, 4), strides=[(0, 1), None, None, None])
    # ADD: BTensor has sizes {1, 4} broadcast to {2, 4}, i.e. Strides {0, 1}: one row in memory serves both.
    add = OperatorRun("ADD", "FLOAT32", (2, 4), input_sizes={"BTensor": (1, 4)})
    big = OperatorRun("CLIP", "FLOAT16", (BIG_ELEMENTS,), scale=2.0, bias=0.5, min_value=-1.0, max_value=1.0)
    rng = np.random.default_rng(2024)
    return [
        DemoCase("THRESHOLD: y = max(x, Min); a NaN gives Min", threshold,
                 [np.array([[-2.0, -0.5, -0.0, 0.0], [0.5, 2.0, nan, -inf]], dtype=np.float32)]),
        DemoCase("CLIP on FLOAT16: y = clip(x * 2 + 0.5, -1, 1), computed in FLOAT32, rounded once", clip,
                 [np.array([[-3.0, -1.0, -0.25, 0.0], [0.2, 0.3, nan, inf]], dtype=np.float16)]),
        DemoCase("IF: y = A where the condition is non-zero, else B; one condition row broadcast to both", if_,
                 [np.array([[1, 0, 1, 0], [1, 0, 1, 0]], dtype=np.uint8),
                  np.arange(1, 9, dtype=np.float32).reshape(2, 4),
                  -np.arange(1, 9, dtype=np.float32).reshape(2, 4)]),
        DemoCase("ADD: y = A + B, with B one row broadcast to both rows (stride 0); NaN in, NaN out", add,
                 [np.array([[1.0, 2.0, 3.0, 4.0], [-1.0, -0.0, nan, 100.0]], dtype=np.float32),
                  np.array([[0.5, -0.0, 10.0, -inf]] * 2, dtype=np.float32)]),
        DemoCase(f"CLIP on {BIG_ELEMENTS:,} FLOAT16 elements, to show the timing model at work", big,
                 [(rng.standard_normal(BIG_ELEMENTS) * 2).astype(np.float16)], show=False),
    ]


def run_demo(out_dir=DEFAULT_OUT, adapter=None, stream=None, plots=True):
    """Run the demo; returns (all bit-exact, list of files written)."""
    from dmlemu.traces import capture
    stream = stream or sys.stdout
    preset = preset_for(adapter)
    cases = demo_cases()
    print(f"dmlemu demo: DirectML operators through the API mirror on {preset.description}", file=stream)
    print("(adapter presets: `dmlemu adapters`; every output is compared bit for bit with dmlemu.golden)",
          file=stream)
    session = Session(preset.key, debug=True)
    # Work first (the progress bar, on a terminal only, has stderr to itself), then the report.
    with Progress(len(cases) + 2, "dmlemu demo") as bar:
        with capture(session.device, detail="instruction") as cap:
            for case in cases:
                bar.advance(case.run.operator, steps=0)
                case.outputs = session.run(operator_desc(case.run), case.inputs, case.run.flags)
                expected = golden_outputs(case.run, case.inputs, preset)
                case.ok = all(same_bits(o, e) for o, e in zip(case.outputs, expected))
                bar.advance()
        trace = cap.trace
        bar.advance("writing the trace", steps=0)
        os.makedirs(out_dir, exist_ok=True)
        from dmlemu.traces.pftrace import PerfettoMissing, require_perfetto
        try:
            require_perfetto()
            names, skipped = ("trace.json", "trace.pftrace", "trace.npz", "dispatches.csv"), None
        except PerfettoMissing as e:
            names, skipped = ("trace.json", "trace.npz", "dispatches.csv"), str(e)
        files = [tracefiles.save(trace, os.path.join(out_dir, name)) for name in names]
        bar.advance("plotting" if plots else "done")
        if plots:
            files += tracefiles.plot(trace, out_dir)
        bar.advance("done")

    for number, case in enumerate(cases, 1):
        print(f"\n{number}. {case.title}", file=stream)
        print(f"   {describe(case.run)}", file=stream)
        if case.show:
            names = tensor_names(case.run.operator)
            width = max(len(n) for n in names) + 2
            for name, array in zip(names, case.inputs + case.outputs):
                text = format_array(array).replace("\n", "\n" + " " * (3 + width))
                print(f"   {name + ':':<{width}}{text}", file=stream)
        print(f"   bit-exact against dmlemu.golden: {'yes' if case.ok else 'NO'}", file=stream)
    print(f"\nPer-dispatch summary ({preset.description}: clock {preset.clock_hz / 1e9:g} GHz, "
          f"peak DRAM {preset.dram_bytes_per_second / 1e9:g} GB/s)", file=stream)
    print(trace.format_summary(), file=stream)
    ok = all(case.ok for case in cases)
    print(f"\nWrote {len(files)} files to {out_dir}{os.sep}:", file=stream)
    for path in files:
        print(f"  {os.path.relpath(path, out_dir)}", file=stream)
    if skipped:
        print(f"  (no trace.pftrace: {skipped})", file=stream)
    shown = "trace.json" if skipped else "trace.pftrace"    # the native trace keeps the GPU's tracks first, in order
    print(f"Open {os.path.join(out_dir, shown)} in https://ui.perfetto.dev to see every wave on the "
          f"timeline; `dmlemu trace {os.path.join(out_dir, 'trace.npz')}` summarises it again and `dmlemu report "
          f"{os.path.join(out_dir, 'trace.npz')} -o report.html` writes one HTML page of it.", file=stream)
    print("All outputs bit-exact." if ok else "SOME OUTPUTS DIFFER FROM dmlemu.golden.", file=stream)
    return ok, files
