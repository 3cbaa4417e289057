"""What `dmlemu onnx` prints after a run: the per-layer table and the comparison with ONNX Runtime.

The per-layer table has one row per layer: the ONNX node(s) a dispatch ran (a fused dispatch runs
several; consecutive dispatches of the same nodes share a row), the DML operators, the dispatches,
their modelled time (each dispatch's own cycles, from the command processor reading it to its last
store, at the preset's clock), its share of the total, and what bound it (traces.verdict.bound_of,
the longest dispatch's word). The rows add up to the total; dispatches with no barrier between
them overlap on the GPU, so the span from the first start to the last end is printed beside it.
"""
import dataclasses

import numpy as np

__all__ = ["Layer", "layers", "format_layers", "compare_onnxruntime", "format_comparison"]


@dataclasses.dataclass
class Layer:
    onnx_nodes: tuple
    operators: tuple
    dispatches: int
    cycles: int
    bound: str


def layers(result):
    """The Layers of a ModelRun, in dispatch order."""
    from dmlemu.traces.verdict import bound_of
    rows = result.trace.dispatches
    out, longest = [], []
    for d in result.dispatches:
        row = rows[d.row]
        cycles = int(row["end"]) - int(row["start"])
        bound = bound_of(row, result.preset)
        if out and out[-1].onnx_nodes == d.onnx_nodes:
            layer = out[-1]
            layer.dispatches += 1
            layer.cycles += cycles
            layer.operators = tuple(dict.fromkeys(layer.operators + d.operators))
            if cycles > longest[-1]:
                layer.bound, longest[-1] = bound, cycles
        else:
            out.append(Layer(d.onnx_nodes, d.operators, 1, cycles, bound))
            longest.append(cycles)
    return out


def _span(result):
    rows = result.trace.dispatches
    if not len(rows):
        return 0
    return int(rows["end"].max()) - int(rows["start"].min())


def format_layers(result, timed=True):
    """The per-layer table as text, with its total line."""
    table = layers(result)
    clock = result.preset.clock_hz
    total = sum(layer.cycles for layer in table)
    header = ("layer (ONNX nodes)", "DML operators", "dispatches", "time us", "share", "bound")
    body = [("+".join(layer.onnx_nodes), ", ".join(layer.operators), str(layer.dispatches),
             f"{layer.cycles / clock * 1e6:.2f}", f"{layer.cycles / total:.1%}" if total else "-",
             layer.bound or "-") for layer in table]
    body.append(("total", "", str(sum(layer.dispatches for layer in table)), f"{total / clock * 1e6:.2f}",
                 "100.0%" if total else "-", ""))
    widths = [min(48, max(len(r[i]) for r in [header] + body)) for i in range(len(header))]

    def line(cells):
        parts = []
        for i, cell in enumerate(cells):
            cell = cell if len(cell) <= widths[i] else cell[:widths[i] - 3] + "..."
            parts.append(cell.rjust(widths[i]) if i in (2, 3, 4) else cell.ljust(widths[i]))
        return "  ".join(parts).rstrip()
    lines = [line(header), line(["-" * w for w in widths])] + [line(r) for r in body[:-1]] + \
        [line(["-" * w for w in widths]), line(body[-1])]
    what = "modelled" if timed else "estimated (emulation only, --no-timing)"
    lines.append(f"time: each dispatch's own {what} cycles at {clock / 1e6:.0f} MHz, adding up to the total; "
                 f"dispatches without a barrier between them overlap, first start to last end is "
                 f"{_span(result) / clock * 1e6:.2f} us")
    return "\n".join(lines)


def compare_onnxruntime(model, feeds, outputs):
    """ONNX Runtime's CPU provider on the same inputs: {output: (max abs difference, that over the largest
    |reference| value, top-1 equal or None)}."""
    import onnxruntime
    from dmlemu.onnx.importer import load_model
    model = load_model(model)
    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    expected = session.run(list(outputs), feeds)
    out = {}
    for (name, got), want in zip(outputs.items(), expected):
        got64, want64 = np.asarray(got, np.float64), np.asarray(want, np.float64)
        both_nan = np.isnan(got64) & np.isnan(want64)
        diff = np.where(both_nan, 0.0, np.abs(got64 - want64))
        largest = float(np.nanmax(np.abs(want64))) if want64.size else 0.0
        worst = float(np.nanmax(diff)) if diff.size else 0.0
        top1 = None
        if got64.ndim >= 2 and got64.shape[-1] > 1 and np.asarray(got).dtype.kind == "f":
            top1 = bool(np.array_equal(np.argmax(got64, -1), np.argmax(want64, -1)))
        out[name] = (worst, worst / largest if largest else worst, top1)
    return out


def format_comparison(differences):
    import onnxruntime
    lines = [f"against ONNX Runtime {onnxruntime.__version__} (CPUExecutionProvider), per output:"]
    for name, (absolute, relative, top1) in differences.items():
        extra = "" if top1 is None else f", top-1 {'the same' if top1 else 'DIFFERS'}"
        lines.append(f"  {name}: max abs difference {absolute:.3g}, relative to the largest |value| "
                     f"{relative:.3g}{extra}")
    return "\n".join(lines)
