"""Bit-identity check of the timing model: record what a set of runs gives, compare after a change.

Speed work on the timing model (emulator/timing/) must not move a single cycle. This script runs
a fixed set of dispatches (packed, transposed, broadcast, stride-2 and general-path 8-D padded
layouts; FLOAT16, FLOAT32, FLOAT64; the teaching, RX 7900 XTX, RTX 3070 and Iris Xe presets; wave64
on 32-lane SIMDs; a starved miss queue; one slot group; dependent and independent dispatch chains;
with and without traces at every detail) and keeps, per run: every dispatch's cycles, its timing
counters and cache traffic, the GPU clocks, and the SHA-256 of the trace as .npz and as Chrome JSON
(and of each trace table).

    .venv/bin/python bench/timing_identity.py record golden.json   # before the change
    .venv/bin/python bench/timing_identity.py check golden.json    # after: exit 1 on any difference
    .venv/bin/python bench/timing_identity.py check golden.json --only clip16   # a subset (name filter)

The committed baseline is bench/timing_identity_baseline.json (the default file: `check` alone
compares with it). Run the check under both drivers of the timing units (DMLEMU_TIMING_ENGINE=simpy
for the reference order) and, for the interpreted build, with DMLEMU_TIMING_PHYSICS=interpreted.

A change to the trace exporters changes the trace bytes but not the timing: `record --timing-from DIR`
records with the timing model of DIR (`timing/*.py` and `dispatch_record.py`, e.g. from `git show HEAD:...`) and
everything else of the checkout.

tests/timing/test_timing.py pins the cycles of a fast subset.
"""
import argparse
import dataclasses
import hashlib
import importlib.util
import json
import os
import sys
import tempfile

import numpy as np


def _timing_from(directory):
    """Import dmlemu.timing and dmlemu.dispatch_record from `directory` instead of the checkout."""
    import dmlemu.timing
    dmlemu.timing.__path__ = [os.path.join(directory, "timing")]
    path = os.path.join(directory, "dispatch_record.py")
    spec = importlib.util.spec_from_file_location("dmlemu.dispatch_record", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["dmlemu.dispatch_record"] = module
    spec.loader.exec_module(module)


if __name__ == "__main__" and "--timing-from" in sys.argv:
    _timing_from(sys.argv[sys.argv.index("--timing-from") + 1])

import dmlemu.timing.simd as simd_module  # noqa: E402  (after --timing-from)
from dmlemu.direct_run import DirectRun  # noqa: E402
from dmlemu.gpu import Gpu  # noqa: E402
from dmlemu.kernels.driver import TensorSpec  # noqa: E402
from dmlemu.presets import IRIS_XE, RTX_3070, RX_7900_XTX, TEACHING  # noqa: E402
from dmlemu.tools.fidelity import layout_strides  # noqa: E402
from dmlemu.traces import capture  # noqa: E402
from dmlemu.traces.chrome import to_chrome  # noqa: E402
from dmlemu.traces.io import save_trace  # noqa: E402

BASELINE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "timing_identity_baseline.json")
ITEM = {"FLOAT16": 2, "FLOAT32": 4, "FLOAT64": 8}
PADDED = (4, 4, 4, 4, 4, 2, 4, 64)        # 8-D, 2^16 elements


def _layout_run(gpu, layout, data_type="FLOAT32", side=256, operator="ELEMENT_WISE_IDENTITY"):
    item = ITEM[data_type]
    n = side * side
    in_bytes = n * item * (2 if layout == "stride2" else 1)
    rng = np.random.default_rng(side)
    source = TensorSpec(data_type, (side, side), layout_strides(layout, side), in_bytes)
    out = TensorSpec(data_type, (side, side), None, n * item)
    args = dict(min_value=-1.0, max_value=1.0) if operator == "ELEMENT_WISE_CLIP" else {}
    return DirectRun(gpu, operator, [source, out], [rng.integers(0, 255, in_bytes, dtype=np.uint8),
                                                    np.zeros(n * item, np.uint8)], **args)


def _padded_run(gpu):
    """CLIP FLOAT32 over PADDED whose innermost row is padded by one element: the general path."""
    n = int(np.prod(PADDED))
    strides, acc = [], 1
    for i, s in enumerate(reversed(PADDED)):
        strides.append(acc)
        acc *= s + 1 if i == 0 else s
    source = TensorSpec("FLOAT32", PADDED, tuple(reversed(strides)), acc * 4)
    out = TensorSpec("FLOAT32", PADDED, None, n * 4)
    return DirectRun(gpu, "ELEMENT_WISE_CLIP", [source, out], [np.zeros(acc * 4, np.uint8), np.zeros(n * 4, np.uint8)],
                     min_value=-1.0, max_value=1.0)


def _clip16_run(gpu, n):
    x = (np.random.default_rng(n).standard_normal(n) * 3).astype(np.float16)
    spec = TensorSpec("FLOAT16", (n,), None, x.nbytes)
    return DirectRun(gpu, "ELEMENT_WISE_CLIP", [spec, spec], [x.view(np.uint8), np.zeros(x.nbytes, np.uint8)],
                     min_value=-1.0, max_value=1.0, scale_bias=(2.0, 0.5))


def _identity_run(gpu, n):
    x = np.arange(n, dtype=np.float32)
    spec = TensorSpec("FLOAT32", (n,), None, x.nbytes)
    return DirectRun(gpu, "ELEMENT_WISE_IDENTITY", [spec, spec], [x.view(np.uint8), np.zeros(x.nbytes, np.uint8)])


def _dispatch_facts(stats):
    t = stats.timing
    return {"cycles": int(stats.cycles), "start": int(stats.start_cycle), "t_start": int(t.start_cycle),
            "t_end": int(t.end_cycle), "waves_per_simd": int(t.waves_per_simd), "dram_bytes": int(t.dram_bytes),
            "dram_busy": int(t.dram_busy_cycles), "turnarounds": int(t.dram_turnarounds),
            "simd_busy": int(t.simd_busy_cycles), "simds": int(t.simds),
            "totals": {k: int(v) for k, v in t.traffic.totals.items()},
            "per_instruction": {str(pc): {k: int(v) for k, v in d.items()}
                                for pc, d in sorted(t.traffic.per_instruction.items())}}


def _sha(data):
    return hashlib.sha256(data).hexdigest()


def _trace_facts(trace):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "t.npz")
        save_trace(trace, path)
        with open(path, "rb") as f:
            npz = _sha(f.read())
    chrome = _sha(json.dumps(to_chrome(trace), sort_keys=True, separators=(",", ":")).encode())
    tables = {name: _sha(np.ascontiguousarray(a).tobytes()) for name, a in sorted(trace.tables.items())}
    return {"npz": npz, "chrome": chrome, "tables": tables, "summary": repr(trace.summary())}


def run_case(name, preset, build, detail=None, chain="dependent", repeats=1, gpu_args=None, groups=None,
             max_rows=None):
    """Dispatch `repeats` times (dependent: DirectRun.dispatch, a barrier after each; independent:
    no barrier in between, a releasing barrier at the end) and collect the facts."""
    saved = simd_module.ISSUE_GROUPS
    if groups is not None:
        simd_module.ISSUE_GROUPS = groups
    try:
        gpu = Gpu(preset, **(gpu_args or {}))
        run = build(gpu)
        cap = None
        if detail is not None:
            cap = capture(gpu, detail, **({"max_rows": max_rows} if max_rows else {}))
            cap.begin()
        dispatches = []
        for _ in range(repeats):
            if chain == "dependent":
                stats = run.dispatch()
            else:
                stats = gpu.dispatch(run.launch())
            dispatches.append(_dispatch_facts(stats))
        gpu.barrier(release=True)
        facts = {"dispatches": dispatches, "clock": int(gpu.clock_cycles), "idle": int(gpu.idle_cycle)}
        if cap is not None:
            facts["trace"] = _trace_facts(cap.end())
        return facts
    finally:
        simd_module.ISSUE_GROUPS = saved


def cases():
    """(name, keyword arguments of run_case)."""
    out = []
    for preset in (TEACHING, RX_7900_XTX, RTX_3070, IRIS_XE):
        k = preset.key
        out.append((f"packed-{k}", dict(preset=preset, build=lambda g: _layout_run(g, "packed"))))
        out.append((f"packed-{k}-memory", dict(preset=preset, build=lambda g: _layout_run(g, "packed"),
                                               detail="memory")))
        out.append((f"transposed-{k}-instruction", dict(preset=preset, build=lambda g: _layout_run(g, "transposed"),
                                                        detail="instruction")))
        out.append((f"padded-{k}-memory", dict(preset=preset, build=_padded_run, detail="memory")))
        out.append((f"tail-{k}", dict(preset=preset, build=lambda g: _identity_run(g, 100_003), detail="wave")))
    for layout in ("broadcast", "stride2"):
        for preset in (RX_7900_XTX, RTX_3070):
            out.append((f"{layout}-{preset.key}-memory",
                        dict(preset=preset, build=lambda g, lay=layout: _layout_run(g, lay), detail="memory")))
    for dt in ("FLOAT16", "FLOAT64"):
        for layout in ("packed", "transposed"):
            out.append((f"{dt}-{layout}-rx7900xtx-memory",
                        dict(preset=RX_7900_XTX, build=lambda g, d=dt, lay=layout: _layout_run(g, lay, d),
                             detail="memory")))
    out.append(("clip16-rx7900xtx-wave", dict(preset=RX_7900_XTX, build=lambda g: _clip16_run(g, 1 << 20),
                                              detail="wave")))
    out.append(("clip16-rx7900xtx", dict(preset=RX_7900_XTX, build=lambda g: _clip16_run(g, 1 << 20))))
    out.append(("clip16-irisxe-memory", dict(preset=IRIS_XE, build=lambda g: _clip16_run(g, 1 << 18),
                                             detail="memory")))
    out.append(("clip-transposed-rtx3070-memory",
                dict(preset=RTX_3070, build=lambda g: _layout_run(g, "transposed", operator="ELEMENT_WISE_CLIP"),
                     detail="memory")))
    out.append(("wave64-rx7900xtx-memory", dict(preset=RX_7900_XTX, build=lambda g: _layout_run(g, "transposed"),
                                                detail="memory", gpu_args={"wave_width": 64})))
    starved = dataclasses.replace(RX_7900_XTX, max_lines_in_flight_per_cu=8)
    out.append(("starved-rx7900xtx-memory", dict(preset=starved, build=lambda g: _layout_run(g, "transposed"),
                                                 detail="memory")))
    out.append(("starved-packed-rx7900xtx", dict(preset=starved, build=lambda g: _identity_run(g, 1 << 18),
                                                 detail="memory")))
    tiny_queue = dataclasses.replace(TEACHING, max_lines_in_flight_per_cu=3)
    out.append(("tinyqueue-teaching-memory", dict(preset=tiny_queue, build=lambda g: _layout_run(g, "stride2", side=64),
                                                  detail="memory")))
    out.append(("groups1-padded-rx7900xtx", dict(preset=RX_7900_XTX, build=_padded_run, detail="instruction",
                                                 groups=1)))
    out.append(("groups3-padded-rtx3070", dict(preset=RTX_3070, build=_padded_run, detail="instruction", groups=3)))
    for preset in (RX_7900_XTX, TEACHING):
        for chain in ("dependent", "independent"):
            out.append((f"chain-{chain}-{preset.key}-instruction",
                        dict(preset=preset, build=lambda g: _layout_run(g, "packed", side=128), detail="instruction",
                             chain=chain, repeats=4)))
            out.append((f"chain-{chain}-{preset.key}", dict(preset=preset, build=lambda g: _identity_run(g, 1 << 16),
                                                              chain=chain, repeats=3)))
    out.append(("rowcap-rx7900xtx-memory", dict(preset=RX_7900_XTX, build=lambda g: _clip16_run(g, 1 << 18),
                                                 detail="memory", max_rows=500)))
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=("record", "check"))
    parser.add_argument("path", nargs="?", default=BASELINE,
                        help="the facts file (default: bench/timing_identity_baseline.json)")
    parser.add_argument("--only", default="", help="run only cases whose name contains this")
    parser.add_argument("--timing-from", default=None, help="record with the timing model in this directory")
    args = parser.parse_args(argv)
    results = {}
    for name, kwargs in cases():
        if args.only and args.only not in name:
            continue
        results[name] = run_case(name, **kwargs)
        print(name, [d["cycles"] for d in results[name]["dispatches"]], flush=True)
    if args.mode == "record":
        with open(args.path, "w") as f:
            json.dump(results, f, indent=1, sort_keys=True)
        print(f"recorded {len(results)} runs in {args.path}")
        return 0
    with open(args.path) as f:
        golden = json.load(f)
    bad = []
    for name, facts in results.items():
        if golden.get(name) != json.loads(json.dumps(facts)):
            bad.append(name)
            g = golden.get(name)
            if g is not None:
                for key in facts:
                    if json.loads(json.dumps(facts[key])) != g.get(key):
                        print(f"  {name}: {key} differs")
    print(f"{len(results) - len(bad)} of {len(results)} runs identical" + (f"; DIFFERENT: {bad}" if bad else ""))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
