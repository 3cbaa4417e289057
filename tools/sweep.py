"""`dmlemu sweep`: a grid of timed runs (operators x data types x sizes x layouts x adapters x preset
overrides), each point one task on a Dask cluster, gathered into one tidy table and summary plots.

A point is one dispatch of an operator's kernel on a fresh emulated GPU (dmlemu.direct_run, as
tools/fidelity.py measures), its input a side x side tensor read with a layout's strides
(fidelity.layout_strides: packed, transposed, broadcast, stride2), captured at detail 'dispatch'.
Its row comes from the trace's summary(): cycles, time, bytes per cache level, hit rates, coalescing,
bandwidth and % of the (overridden) preset's DRAM peak. A point depends on nothing but its own
fields, so a run on any number of workers gives the rows a serial run gives, in the grid's order.

`sweep --graph FILE.json` and `sweep --onnx MODEL.onnx` sweep a whole workload instead: a point is the
graph (tools/graph_view.execute_graph) or the model (dmlemu.onnx.execute, seeded inputs) on one adapter
x override combination, on a fresh device, captured at detail 'dispatch'; its row sums the timed
dispatches (tools/compare.totals: time and bytes summed, rates of the summed requests, bandwidth over
the summed time) and says how many there were. The workload is read and checked (loaded, converted)
once before any point runs.

Overrides replace preset fields (dataclasses.replace), e.g. compute_units=48,96 or
dram_bytes_per_second=480G,960G; every adapter x override combination is checked by
presets.preset_problem before anything runs. Dask (`pip install 'dmlemu[sweep]'`) runs the points:
a local cluster of `workers` processes on 127.0.0.1, or an existing scheduler; run_serial runs them
in this process.
"""
import csv
import dataclasses
import itertools
import math
import os
import re

import numpy as np

from dmlemu.tools.fidelity import LAYOUTS, layout_tensor
from dmlemu.tools.operators import UsageError

__all__ = ["SweepPoint", "WorkloadPoint", "build_workload_grid",
           "parse_override", "what_if", "parse_size", "build_grid", "run_point",
           "run_serial", "run_dask", "dask_available", "check_heatmap_axes", "COLUMNS", "write_csv", "read_csv", "format_table", "plot_sweep"]

# A sweep runs any operator `dmlemu run` runs (every one with a kernel), with the attributes `dmlemu run`
# defaults to (tools/operators.py: CLIP -1..1, THRESHOLD 0, ...); its inputs take the layout's strides.
# Preset fields a sweep may not override: names and identities, and what the functional model reads.
_FIXED_FIELDS = ("key", "description", "vendor_id", "device_id", "sources", "wave_width", "native_fp16",
                 "supports_64bit", "max_feature_level", "uma", "valu_rate_cycles")
_SUFFIXES = {"": 1, "k": 10 ** 3, "M": 10 ** 6, "G": 10 ** 9, "T": 10 ** 12,
             "Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30}
MAX_SIDE = 1 << 13     # 2^26 elements: the largest tensor of docs/FIDELITY.md


@dataclasses.dataclass(frozen=True)
class SweepPoint:
    """One point of the grid. overrides: ((preset field, value), ...) in the order given."""
    adapter: str
    operator: str
    dtype: str
    elements: int
    layout: str
    overrides: tuple = ()

    def preset(self):
        from dmlemu.presets import preset_by_key
        return dataclasses.replace(preset_by_key(self.adapter), **dict(self.overrides))


@dataclasses.dataclass(frozen=True)
class WorkloadPoint:
    """One point of `sweep --graph` / `sweep --onnx`: kind 'graph' or 'onnx', the file's path, the adapter
    and ((preset field, value), ...)."""
    adapter: str
    kind: str
    path: str
    overrides: tuple = ()

    def preset(self):
        from dmlemu.presets import preset_by_key
        return dataclasses.replace(preset_by_key(self.adapter), **dict(self.overrides))


# ---- the grid -----------------------------------------------------------------------------------------
def _integer(text, what):
    m = re.fullmatch(r"\s*(\d+)\s*(|k|M|G|T|Ki|Mi|Gi)\s*", text)
    if not m:
        raise UsageError(f"{what} {text!r} is not a whole number (suffixes k, M, G, T = 10^3..10^12; "
                         f"Ki, Mi, Gi = 2^10..2^30)")
    return int(m.group(1)) * _SUFFIXES[m.group(2)]


def parse_override(text):
    """'FIELD=V1,V2' -> (field, (values...)); UsageError naming the field or value otherwise."""
    from dmlemu.presets import AdapterPreset
    fields = [f.name for f in dataclasses.fields(AdapterPreset) if f.type is int and f.name not in _FIXED_FIELDS]
    field, sep, values = str(text).partition("=")
    field = field.strip()
    if not sep or not values.strip():
        raise UsageError(f"--set {text!r} must be FIELD=VALUE[,VALUE...], e.g. compute_units=48,96")
    if field not in fields:
        raise UsageError(f"--set {field!r} is not a preset field a sweep can change; these can: {', '.join(fields)}")
    parsed = tuple(_integer(v, f"--set {field} value") for v in values.split(","))
    if len(set(parsed)) != len(parsed):
        raise UsageError(f"--set {field} lists a value twice: {values}")
    return field, parsed


def what_if(preset, texts):
    """`preset` with the `--set FIELD=V` assignments `texts` applied (the fields and values `dmlemu sweep --set`
    takes, one value each), checked as a sweep checks it (presets.preset_problem); UsageError with the sentence
    otherwise. The preset keeps its key; its description (the adapter's name in headers and DXGI_ADAPTER_DESC)
    says what changed."""
    from dmlemu.presets import preset_problem
    changes = {}
    for text in texts or ():
        field, values = parse_override(text)
        if len(values) != 1:
            raise UsageError(f"--set {text!r} gives {len(values)} values; here it takes one (dmlemu sweep --set "
                             "sweeps several)")
        if field in changes:
            raise UsageError(f"--set {field} is given twice")
        changes[field] = values[0]
    if not changes:
        return preset
    shown = ", ".join(f"{f}={v}" for f, v in changes.items())
    changed = dataclasses.replace(preset, **changes)
    problem = preset_problem(changed)
    if problem:
        raise UsageError(f"adapter {preset.key} with {shown}: {problem}")
    return dataclasses.replace(changed, description=f"{preset.description} with {shown}")


def parse_size(text):
    """An element count (suffixes as in --set, or 2^N) that is a square: the tensor is side x side."""
    text = str(text)
    m = re.fullmatch(r"\s*2\^(\d+)\s*", text)
    n = (1 << int(m.group(1))) if m and int(m.group(1)) < 64 else _integer(text, "--sizes value")
    side = math.isqrt(n)
    if n < 1 or side * side != n:
        raise UsageError(f"--sizes {text}: a sweep tensor is side x side elements (its layouts transpose and "
                         f"stride it), so a size must be a square number such as 4096, 65536 or 2^20; "
                         f"{n} is not")
    if side > MAX_SIDE:
        raise UsageError(f"--sizes {text}: {n} elements is more than a sweep runs ({MAX_SIDE * MAX_SIDE}, 2^26)")
    return n


MAX_POINTS = 1000       # the default bound on a grid's points (--max-points): a point costs seconds to minutes


def build_grid(adapters, operators, dtypes, sizes, layouts, overrides=(), max_points=MAX_POINTS):
    """Every point of the cross product, in a fixed order (adapter, overrides, operator, dtype,
    layout, size: the last varies fastest), each checked before any runs: the adapter, the
    operator, the data type, the layout, the overridden preset (presets.preset_problem) and the
    operator desc (CreateOperator and CompileOperator on the adapter, as `dmlemu run` checks).
    Points the adapter or DirectML refuse (64-bit tensors on Iris Xe, CLIP on FLOAT64) are left
    out: returns (points, texts saying which were skipped and why). A grid of more than `max_points` points
    (counted before any is checked) is refused with a sentence naming the count and --max-points."""
    from dmlemu.errors import HResultError
    from dmlemu.presets import preset_problem
    from dmlemu.tools.operators import OperatorRun, parse_data_type, parse_operator, preset_for, validate
    count = math.prod([len(adapters), len(operators), len(dtypes), len(sizes), len(layouts),
                       *[len(values) for _, values in overrides]])
    if count > max_points:
        raise UsageError(f"the sweep's grid has {count:,} points (adapters x operators x dtypes x sizes x layouts x "
                         f"--set values); --max-points allows {max_points:,}: raise it or sweep fewer values")
    presets = [preset_for(a) for a in adapters]
    operators = [parse_operator(o) for o in operators]
    dtypes = [parse_data_type(t) for t in dtypes]
    for layout in layouts:
        if layout not in LAYOUTS:
            raise UsageError(f"layout {layout!r} is not one of {', '.join(LAYOUTS)}")
    for name, values in (("adapters", [p.key for p in presets]), ("operators", operators), ("dtypes", dtypes),
                         ("sizes", sizes), ("layouts", layouts), ("--set fields", [f for f, _ in overrides])):
        if len(set(values)) != len(values):
            raise UsageError(f"the sweep's {name} list a value twice: {' '.join(map(str, values))}")
    combos = [tuple(zip([f for f, _ in overrides], values)) for values in itertools.product(*[v for _, v in overrides])]
    points, skipped, checked = [], {}, {}
    for preset in presets:
        for combo in combos:
            problem = preset_problem(dataclasses.replace(preset, **dict(combo)))
            if problem:
                shown = ", ".join(f"{f}={v}" for f, v in combo)
                raise UsageError(f"adapter {preset.key} with {shown}: {problem}")
            for operator, dtype, layout, n in itertools.product(operators, dtypes, layouts, sizes):
                if dtype.endswith("64") and not preset.supports_64bit:
                    group = (preset.key, operator, dtype, "the adapter has no 64-bit tensors")
                    skipped[group] = skipped.get(group, 0) + 1
                    continue
                key = (preset.key, operator, dtype, layout, n)
                if key not in checked:
                    side = math.isqrt(n)
                    try:
                        validate(_operator_run(operator, dtype, layout, side), preset.key)
                        checked[key] = None
                    except (HResultError, UsageError) as e:   # CLIP has no FLOAT64: DirectML refuses the
                        checked[key] = (preset.key, operator, dtype, " ".join(str(e).split()))  # desc; CAST
                        # needs an output type a sweep does not choose
                if checked[key] is None:
                    points.append(SweepPoint(preset.key, operator, dtype, n, layout, combo))
                else:
                    skipped[checked[key]] = skipped.get(checked[key], 0) + 1
    return points, [f"{count} point{'s' if count > 1 else ''} of {a} {o} {t}: {why}"
                    for (a, o, t, why), count in skipped.items()]


def build_workload_grid(kind, path, adapters, overrides=(), max_points=MAX_POINTS):
    """The points of `sweep --graph PATH` (kind 'graph') or `sweep --onnx PATH` (kind 'onnx'): every adapter x
    override combination, in build_grid's order, each overridden preset checked (presets.preset_problem).
    The file is read and checked once here (the graph loaded and compiled on the first adapter, the model
    converted): UsageError with its sentence before any point runs."""
    from dmlemu.presets import preset_problem
    from dmlemu.tools.operators import preset_for
    count = math.prod([len(adapters), *[len(values) for _, values in overrides]])
    if count > max_points:
        raise UsageError(f"the sweep's grid has {count:,} points (adapters x --set values); --max-points allows "
                         f"{max_points:,}: raise it or sweep fewer values")
    presets = [preset_for(a) for a in adapters]
    if len({p.key for p in presets}) != len(presets):
        raise UsageError(f"the sweep's adapters list a value twice: {' '.join(p.key for p in presets)}")
    if kind == "graph":
        from dmlemu.tools.graph_view import compile_graph, load_graph
        compile_graph(load_graph(path), presets[0])
    else:
        from dmlemu.onnx import ConversionError, convert
        try:
            convert(path)
        except ConversionError as e:
            raise UsageError(str(e)) from None
    combos = [tuple(zip([f for f, _ in overrides], values)) for values in itertools.product(*[v for _, v in overrides])]
    points = []
    for preset in presets:
        for combo in combos:
            problem = preset_problem(dataclasses.replace(preset, **dict(combo)))
            if problem:
                shown = ", ".join(f"{f}={v}" for f, v in combo)
                raise UsageError(f"adapter {preset.key} with {shown}: {problem}")
            points.append(WorkloadPoint(preset.key, kind, str(path), combo))
    return points


def _workload_trace(point):
    """The dispatch-level trace of one WorkloadPoint's run on a fresh device."""
    preset = point.preset()
    if point.kind == "graph":
        from dmlemu.tools.graph_view import execute_graph, load_graph
        return execute_graph(load_graph(point.path), adapter=preset, trace="dispatch")[2]
    import onnx
    from dmlemu.onnx import execute, models
    return execute(point.path, models.inputs(onnx.load(point.path)), adapter=preset).trace


def _operator_run(operator, dtype, layout, side):
    """The OperatorRun of one point: a side x side tensor, every input read with the layout's strides
    (a one-element tensor such as a quantization scale stays packed), the output packed."""
    from dmlemu.tools.operators import OperatorRun
    spec, _ = layout_tensor(layout, "UINT8", side)
    run = OperatorRun(operator, dtype, (side, side))
    if not run.element_wise:     # GEMM, REDUCE, ...: each tensor has Sizes of its own (tools/operators.py)
        if layout != "packed":
            raise UsageError(f"layout {layout}: {run.name}'s tensors have Sizes of their own, and a sweep lays out "
                             f"only an element-wise operator's tensors; sweep it with --layouts packed")
        return run
    strides = [None if sizes != run.sizes else spec.strides for sizes in run.tensor_sizes()[:-1]] + [None]
    return OperatorRun(operator, dtype, (side, side), strides=strides)


# ---- one point ----------------------------------------------------------------------------------------
COLUMNS = ("adapter", "operator", "dtype", "elements", "layout")   # then the overrides, then RESULTS
# l2_request_bytes and ic_lookup_bytes: what the L2 and Infinity Cache were asked for (not l2_bytes, the preset's
# L2 capacity, which a sweep may vary as a column of its own)
RESULTS = ("cycles", "time_us", "bytes_read", "bytes_written", "l2_request_bytes", "ic_lookup_bytes",
           "dram_read_bytes", "dram_write_bytes", "l2_hit_rate", "ic_hit_rate", "coalescing", "gbps", "pct_peak",
           "requested_gbps")


WORKLOAD_COLUMNS = ("adapter", "workload", "dispatches")   # a workload point's columns before the overrides


def run_point(point):
    """The row of one point (a dict: COLUMNS, the override fields, RESULTS), from a fresh GPU; a WorkloadPoint's
    row has WORKLOAD_COLUMNS instead of COLUMNS."""
    if isinstance(point, WorkloadPoint):
        return _workload_row(point)
    from dmlemu.direct_run import DirectRun
    from dmlemu.gpu import Gpu
    from dmlemu.traces.capture import capture
    preset = point.preset()
    from dmlemu.data_types import DATA_TYPES
    from dmlemu.kernels.driver import TensorSpec
    from dmlemu.tools.operators import bound_specs, operator_info
    side = math.isqrt(point.elements)
    operator = _operator_run(point.operator, point.dtype, point.layout, side)
    info = operator_info(operator, preset)
    specs, buffers = [], []
    if not operator.element_wise:     # every tensor packed at its own Sizes, a left-out optional one None
        specs, buffers = bound_specs(operator)
    output = len(operator.tensor_types()) - 1
    for index, (dtype, sizes) in enumerate(zip(operator.tensor_types(), operator.tensor_sizes())
                                           if operator.element_wise else ()):
        if sizes != operator.sizes:        # a one-element tensor (a quantization scale or zero point)
            spec = TensorSpec(dtype, sizes, None, np.dtype(DATA_TYPES[dtype]).itemsize)
            size = spec.total_bytes
        else:
            spec, size = layout_tensor("packed" if index == output else point.layout, dtype, side)
        specs.append(spec)
        buffers.append(np.zeros(size, np.uint8))
    gpu = Gpu(preset)
    run = DirectRun(gpu, operator.schema.name, specs, buffers, attributes=info.attributes,
                    scale_bias=info.scale_bias)
    with capture(gpu, detail="dispatch") as cap:
        run.dispatch()
    run.free()
    s = cap.trace.summary()[0]
    row = {"adapter": point.adapter, "operator": point.operator, "dtype": point.dtype, "elements": point.elements,
           "layout": point.layout, **dict(point.overrides)}
    row.update(cycles=s["cycles"], time_us=s["seconds"] * 1e6, bytes_read=s["bytes_read"],
               bytes_written=s["bytes_written"], l2_request_bytes=s["l2_bytes"], ic_lookup_bytes=s["ic_bytes"],
               dram_read_bytes=s["dram_read_bytes"], dram_write_bytes=s["dram_write_bytes"],
               l2_hit_rate=s["l2_hit_rate"], ic_hit_rate=s["ic_hit_rate"], coalescing=s["coalescing_efficiency"],
               gbps=s["bandwidth_bytes_per_second"] / 1e9, pct_peak=s["percent_of_peak"],
               requested_gbps=s["requested_bytes_per_second"] / 1e9)
    return row


def _workload_row(point):
    from dmlemu.tools.compare import totals
    t = totals(_workload_trace(point))
    row = {"adapter": point.adapter, "workload": os.path.basename(point.path), "dispatches": t["dispatches"],
           **dict(point.overrides)}
    row.update(cycles=t["cycles"], time_us=t["time_us"], bytes_read=t["bytes_read"], bytes_written=t["bytes_written"],
               l2_request_bytes=t["l2_bytes"], ic_lookup_bytes=t["ic_bytes"], dram_read_bytes=t["dram_read_bytes"],
               dram_write_bytes=t["dram_write_bytes"], l2_hit_rate=t["l2_hit_rate"] or 0.0,
               ic_hit_rate=t["ic_hit_rate"] or 0.0, coalescing=t["coalescing"] or 0.0, gbps=t["gbps"],
               pct_peak=t["pct_peak"], requested_gbps=t["requested_gbps"])
    return row


def run_serial(points, progress=None):
    """The rows of `points`, one after another in this process."""
    rows = []
    for point in points:
        rows.append(run_point(point))
        if progress is not None:
            progress.advance(_label(point))
    return rows


def dask_available():
    """Whether dask.distributed can be imported (the `sweep` extra)."""
    import importlib.util
    return importlib.util.find_spec("dask") is not None and importlib.util.find_spec("distributed") is not None


def run_dask(points, workers=2, scheduler=None, progress=None):
    """The rows of `points`, each a task on a Dask cluster: `scheduler` (an address) or a local cluster
    of `workers` single-threaded processes on 127.0.0.1 (closed afterwards). Rows come back in the
    points' order, whatever order the tasks finish in."""
    import logging
    try:
        from dask.distributed import Client, LocalCluster, as_completed
    except ImportError:
        raise UsageError("dmlemu sweep runs its points on Dask, which is not installed: "
                         "pip install 'dmlemu[sweep]' (or --serial to run them in this process)") from None
    cluster = None
    if scheduler is None:
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                               dashboard_address=None, silence_logs=logging.ERROR)
        client = Client(cluster)
    else:
        try:
            client = Client(scheduler, timeout=10)
        except (OSError, TimeoutError, ValueError) as e:
            raise UsageError(f"cannot reach the Dask scheduler at {scheduler}: {' '.join(str(e).split())[:160]}") \
                from None
    try:
        futures = client.map(run_point, points, pure=False)
        index = {f.key: i for i, f in enumerate(futures)}
        rows = [None] * len(points)
        for future in as_completed(futures):
            i = index[future.key]
            rows[i] = future.result()
            if progress is not None:
                progress.advance(_label(points[i]))
        return rows
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def _label(point):
    if isinstance(point, WorkloadPoint):
        return f"{point.adapter} {os.path.basename(point.path)} " + " ".join(f"{f}={v}" for f, v in point.overrides)
    return f"{point.adapter} {point.operator} {point.dtype} {point.elements} {point.layout}"


# ---- the table ----------------------------------------------------------------------------------------
def columns_of(rows):
    """The table's columns: COLUMNS (WORKLOAD_COLUMNS for a workload sweep), the override fields (in the rows'
    order), RESULTS."""
    first = rows[0] if rows else {}
    head = WORKLOAD_COLUMNS if "workload" in first else COLUMNS
    extra = [k for k in first if k not in head and k not in RESULTS]
    return list(head) + extra + list(RESULTS)


def write_csv(rows, path):
    """results.csv: one row per point; floats as Python's repr (exact, deterministic)."""
    columns = columns_of(rows)
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(columns)
        for row in rows:
            w.writerow([repr(row[c]) if isinstance(row[c], float) else row[c] for c in columns])
    return str(path)


def read_csv(path):
    """The rows of a results.csv, numbers as int or float."""
    with open(path, newline="", encoding="utf-8") as f:
        return [{k: _number(v) for k, v in row.items()} for row in csv.DictReader(f)]


def _number(text):
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def format_table(rows):
    """The rows as a text table for the terminal (the CSV has every column)."""
    columns = columns_of(rows)
    shown = [c for c in columns if c not in ("bytes_read", "bytes_written", "ic_lookup_bytes", "dram_write_bytes")]
    cells = [[_cell(row[c], c) for c in shown] for row in rows]
    widths = [max(len(c), *(len(r[i]) for r in cells)) for i, c in enumerate(shown)]
    lines = [" ".join(c.rjust(w) for c, w in zip(shown, widths))]
    lines += [" ".join(v.rjust(w) for v, w in zip(r, widths)) for r in cells]
    return "\n".join(lines)


def _cell(value, column):
    if column in ("l2_hit_rate", "ic_hit_rate", "coalescing"):
        return f"{100 * value:.1f}%"
    if isinstance(value, float):
        return f"{value:.2f}" if column != "pct_peak" else f"{value:.1f}"
    return str(value)


# ---- plots --------------------------------------------------------------------------------------------
AXES = ("adapter", "operator", "dtype", "elements", "layout")


def swept(rows):
    """The columns that take more than one value, in table order."""
    return [c for c in columns_of(rows)[:len(columns_of(rows)) - len(RESULTS)] if len({r[c] for r in rows}) > 1]


def check_heatmap_axes(axes, override_fields):
    """--heatmap X Y: two different columns of the grid (AXES or a --set field)."""
    known = list(AXES) + list(override_fields)
    for axis in axes:
        if axis not in known:
            raise UsageError(f"--heatmap {axis!r} is not a column of this sweep; its columns: {', '.join(known)}")
    if axes[0] == axes[1]:
        raise UsageError(f"--heatmap needs two different columns; {axes[0]!r} was given twice")


def plot_sweep(rows, folder, heatmap=None):
    """efficiency.png (% of DRAM peak against elements, a line per adapter and other swept value) and,
    when two parameters are swept, heatmap.png (% of peak over `heatmap`'s two columns; by default the
    swept overrides first, then the other swept columns besides adapter). Returns the paths."""
    from dmlemu.traces.plots import plot_sweep_efficiency, plot_sweep_heatmap, plot_sweep_workload
    os.makedirs(folder, exist_ok=True)
    if rows and "workload" in rows[0]:
        paths = [plot_sweep_workload(rows, os.path.join(folder, "workload.png"))]
        swept_fields = [c for c in swept(rows) if c not in WORKLOAD_COLUMNS]
        axes = heatmap or (swept_fields[:2] if len(swept_fields) >= 2 else None)
        if axes:
            paths.append(plot_sweep_heatmap(rows, os.path.join(folder, "heatmap.png"), *axes))
        return paths
    paths = [plot_sweep_efficiency(rows, os.path.join(folder, "efficiency.png"))]
    if heatmap is None:
        overrides = [c for c in swept(rows) if c not in AXES]
        candidates = overrides + [c for c in swept(rows) if c in AXES and c != "adapter"]
        heatmap = candidates[:2] if len(candidates) >= 2 else None
    if heatmap:
        paths.append(plot_sweep_heatmap(rows, os.path.join(folder, "heatmap.png"), *heatmap))
    return paths
