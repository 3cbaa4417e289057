"""Plots of a Trace (PNG, matplotlib's Agg canvas; nothing is ever shown on screen).

    plot_wave_timeline   wave groups per CU and SIMD as horizontal bars over time (one dispatch: coloured
                         by launch order)
    plot_bandwidth       DRAM read / write bandwidth over time (a smoothed area) against the preset's peak
    plot_occupancy       resident waves (% of the wave slots) and ALU busy (%) over time
    plot_roofline        a hierarchical roofline: each dispatch at lane-ops per byte of DRAM, L2 and
                         Infinity Cache vs lane-ops per second, under the DRAM, L2, Infinity Cache and
                         (when used) LDS roofs and the compute roof
    plot_caches          L2 and Infinity Cache hit rates and coalescing efficiency per dispatch
                         ('no req.' where a level had no request, told from a real 0 %)

Plots focus: plot_all draws the timeline of one dispatch (the longest timed one, or the one asked for)
and names the others in a note; the roofline draws the longest MAX_POINTS dispatches and names the rest;
initializer dispatches (kernels/initialize.s) are folded into one group; legends sit outside the data.
    plot_all             the five into one folder
    plot_comparison      two runs side by side (`dmlemu compare`)
    plot_sweep_*         a sweep's efficiency against size and its heat map (`dmlemu sweep`), a workload
                         sweep's time per point (`dmlemu sweep --graph` / `--onnx`)

The plots read the trace's columns, never text. Big traces stay fast and readable: wave groups
closer together than a pixel are drawn as one bar, and the time plots shorten the idle gaps between
dispatches (to 3 % of the busy time each, marked with dotted lines; tick labels stay real times), so
a capture of small dispatches and one big one is not mostly white. Output is deterministic for the
same trace (fixed size and DPI, no "Software" or date metadata in the PNG).
"""
import os

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import PolyCollection
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter

__all__ = ["plot_wave_timeline", "plot_bandwidth", "plot_occupancy", "plot_roofline", "plot_caches", "plot_all",
           "plot_comparison",
           "plot_sweep_efficiency", "plot_sweep_heatmap", "plot_sweep_workload"]

DPI = 100
_WIDTH_PX = 1200          # the timeline merges wave groups closer together than one of these pixels
_MAX_BARS = 20000         # ... except one dispatch's groups, each drawn, up to this many
_COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
           "#bcbd22", "#17becf")


def _figure(width=12, height=6):
    fig = Figure(figsize=(width, height), dpi=DPI)
    FigureCanvasAgg(fig)
    return fig


def _save(fig, path):
    fig.savefig(path, dpi=DPI, metadata={"Software": None})
    return path


def _us(trace, cycles):
    return np.asarray(cycles, dtype=np.float64) * 1e6 / trace.preset.clock_hz


def _empty(ax, message):
    ax.text(0.5, 0.5, message, ha="center", va="center", transform=ax.transAxes)
    ax.set_xticks([])
    ax.set_yticks([])


class _BusyTime:
    """The time axis of the time plots: real GPU time inside dispatches, idle gaps between them
    shortened to `gap_share` of the busy time each. x(cycles) gives plot coordinates (us)."""

    def __init__(self, trace, gap_share=0.03):
        d = trace.tables["dispatches"]
        self.trace = trace
        spans = sorted(zip(d["start"].tolist(), d["end"].tolist()))
        windows = []
        for start, end in spans:
            if windows and start <= windows[-1][1]:
                windows[-1][1] = max(windows[-1][1], end)
            else:
                windows.append([start, end])
        busy = sum(end - start for start, end in windows)
        self.gap = max(1, int(busy * gap_share))
        real, plotted, self.cuts = [], [], []
        x = 0
        for i, (start, end) in enumerate(windows):
            if i:
                idle = start - windows[i - 1][1]
                shortened = min(idle, self.gap)
                if shortened < idle:
                    self.cuts.append(x + shortened / 2)
                x += shortened
            real += [start, end]
            plotted += [x, x + end - start]
            x += end - start
        self.real = np.array(real or [0, 1], dtype=np.float64)
        self.plotted = np.array(plotted or [0, 1], dtype=np.float64)
        self.offset = self.real[0]

    def x(self, cycles):
        """Plot coordinate (us) of GPU cycles (outside the dispatches: at the nearest edge's slope)."""
        c = np.asarray(cycles, dtype=np.float64)
        inside = np.interp(c, self.real, self.plotted)
        before, after = c < self.real[0], c > self.real[-1]
        inside = np.where(before, self.plotted[0] - (self.real[0] - c), inside)
        inside = np.where(after, self.plotted[-1] + (c - self.real[-1]), inside)
        return (inside + self.offset) * 1e6 / self.trace.preset.clock_hz

    def decorate(self, ax):
        """Real-time tick labels, dotted lines where idle time was cut out, the axis label."""
        scale = self.trace.preset.clock_hz / 1e6

        def label(x, _):
            cycles = x * scale - self.offset
            real = np.interp(cycles, self.plotted, self.real) if self.real[-1] > self.real[0] else cycles + self.offset
            return f"{real / scale:.4g}"
        ax.xaxis.set_major_formatter(FuncFormatter(label))
        for cut in self.cuts:
            ax.axvline((cut + self.offset) / scale, color="#999999", linestyle=":", linewidth=0.8)
        shortened = f"; {len(self.cuts)} idle gap{'s' if len(self.cuts) != 1 else ''} shortened (dotted)" \
            if self.cuts else ""
        ax.set_xlabel(f"time (us){shortened}")


def _kernel(trace, dispatch):
    return trace.programs[dispatch][0] if dispatch in trace.programs else f"dispatch {dispatch}"


# ---- wave timeline -----------------------------------------------------------------------------------
def plot_wave_timeline(trace, path, dispatch=None):
    """Wave groups on each (CU, SIMD) as bars over time. With `dispatch` (plot_all passes the focused one)
    only that dispatch's groups, coloured by their first wave (the launch order) and the other dispatches
    named in a note; without, every dispatch in its own colour. Returns path."""
    p = trace.preset
    waves = trace.tables["wave_groups"]
    rows_total = p.compute_units * p.simds_per_cu
    fig = _figure(12, max(4.0, min(12.0, 2.0 + rows_total * 0.05)))
    ax = fig.add_axes([0.08, 0.12, 0.74, 0.8])
    others = []
    if dispatch is not None and len(waves):
        names = {int(d["id"]): str(d["name"]) for d in trace.tables["dispatches"]}
        others = [f"#{d} {names[d]}" for d in sorted(set(int(i) for i in waves["dispatch"])) if d != dispatch]
        waves = waves[waves["dispatch"] == dispatch]
    if not len(waves):
        _empty(ax, f"no wave groups in this trace (detail {trace.detail!r}; capture with detail='wave' or more)")
        ax.set_title(f"Wave groups per SIMD: {p.description}")
        return _save(fig, path)
    row = waves["cu"].astype(np.int64) * p.simds_per_cu + waves["simd"]
    span = max(1, int(waves["end"].max() - waves["start"].min()))
    # one dispatch: each group its own bar (its colour is its launch order) unless there are very many
    gap = None if dispatch is not None and len(waves) <= _MAX_BARS else span / _WIDTH_PX
    bars = _merge_bars(row, waves["dispatch"].astype(np.int64), waves["start"], waves["end"], gap,
                       waves["first_wave"].astype(np.int64))
    b_row, b_dispatch, b_start, b_end, b_wave = bars
    axis = _BusyTime(trace)
    x0, x1 = axis.x(b_start), axis.x(b_end)
    x1 = np.maximum(x1, x0 + (axis.x(waves["end"].max()) - axis.x(waves["start"].min())) / (4 * _WIDTH_PX))
    verts = np.stack([np.stack([x0, b_row - 0.4], 1), np.stack([x1, b_row - 0.4], 1),
                      np.stack([x1, b_row + 0.4], 1), np.stack([x0, b_row + 0.4], 1)], axis=1)
    if dispatch is not None:
        collection = PolyCollection(verts, array=b_wave.astype(np.float64), cmap="viridis", linewidths=0)
        ax.add_collection(collection)
        bar = fig.colorbar(collection, cax=fig.add_axes([0.84, 0.12, 0.015, 0.8]))
        bar.set_label("first wave of the group (launch order)", fontsize=8)
        title = f"Wave groups per SIMD: #{dispatch} {_kernel(trace, dispatch)}"
    else:
        dispatches = np.unique(b_dispatch)
        color_of = {int(d): _COLORS[i % len(_COLORS)] for i, d in enumerate(dispatches)}
        ax.add_collection(PolyCollection(verts, facecolors=[color_of[int(d)] for d in b_dispatch], linewidths=0))
        for d in dispatches[:len(_COLORS)]:
            ax.plot([], [], color=color_of[int(d)], linewidth=6, label=f"#{int(d)} {_kernel(trace, int(d))}")
        fig.legend(loc="upper left", bbox_to_anchor=(0.83, 0.92), fontsize=7, frameon=False)
        title = f"Wave groups per SIMD: {p.description}"
    ax.set_xlim(axis.x(waves["start"].min()), axis.x(waves["end"].max()))
    ax.set_ylim(rows_total - 0.5, -0.5)
    step = max(1, -(-p.compute_units // 24))
    ax.set_yticks(np.arange(0, p.compute_units, step) * p.simds_per_cu)
    ax.set_yticklabels([f"CU {c}" for c in range(0, p.compute_units, step)], fontsize=7)
    axis.decorate(ax)
    ax.set_ylabel(f"CU and SIMD ({p.simds_per_cu} SIMD{'s' if p.simds_per_cu > 1 else ''} per CU)")
    merged = "" if len(b_row) == len(waves) else f"; {len(waves)} groups drawn as {len(b_row)} bars"
    ax.set_title(f"{title}{merged}", fontsize=10)
    _left_out_note(fig, others, "other dispatches, not drawn (--dispatch N draws one)")
    return _save(fig, path)


def _merge_bars(row, dispatch, start, end, gap, first_wave=None):
    """Join each row's consecutive wave groups of one dispatch that are less than `gap` cycles apart
    (a joined bar keeps its first group's first wave); gap None: join none."""
    first_wave = np.zeros_like(row) if first_wave is None else first_wave
    order = np.lexsort((start, dispatch, row))
    row, dispatch, start, end, first_wave = row[order], dispatch[order], start[order], end[order], first_wave[order]
    if gap is None:           # every group its own bar
        return row, dispatch, start, end, first_wave
    new = np.r_[True, (row[1:] != row[:-1]) | (dispatch[1:] != dispatch[:-1]) | (start[1:] - end[:-1] > gap)]
    at = np.flatnonzero(new)
    return row[at], dispatch[at], start[at], np.maximum.reduceat(end, at), first_wave[at]


# ---- counters over time -----------------------------------------------------------------------------
def _counter_steps(trace, values, axis=None):
    """(edges, values) of the counters in time order, with zero-valued steps over the gaps between
    dispatches, for Axes.stairs; values: the per-row values (same order as the counters table);
    edges on `axis` (a _BusyTime) when given, else in real microseconds."""
    c = trace.tables["counters"]
    order = np.argsort(c["start"], kind="stable")
    start, end, values = c["start"][order], c["end"][order], np.asarray(values, dtype=np.float64)[order]
    gap = np.flatnonzero(start[1:] > end[:-1])
    edges = np.insert(start, gap + 1, end[gap])
    values = np.insert(values, gap + 1, 0.0)
    edges = np.r_[edges, end[-1]]
    return (axis.x(edges) if axis is not None else _us(trace, edges)), values


def plot_bandwidth(trace, path, dispatch=None):
    """DRAM read, write and total bandwidth over time (GB/s) against the preset's peak; the title gives the
    focused dispatch's own bandwidth (`dispatch`, default the longest) beside the average; returns path."""
    p = trace.preset
    c = trace.tables["counters"]
    fig = _figure(12, 5)
    ax = fig.add_axes([0.07, 0.12, 0.72, 0.78])
    peak = p.dram_bytes_per_second / 1e9
    if not len(c):
        _empty(ax, "no counters in this trace (no timed dispatch)")
    else:
        seconds = np.maximum(c["end"] - c["start"], 1) / p.clock_hz
        axis = _BusyTime(trace)
        edges, total = _counter_steps(trace, (c["dram_read_bytes"] + c["dram_write_bytes"]) / seconds / 1e9, axis)
        ax.stairs(total, edges, color="#888888", linewidth=0.5, alpha=0.6, label="read + write, per bucket")
        windows = set()
        for j, (_, real_edges, read, write, window) in enumerate(_smoothed_bandwidth(trace)):
            _area(ax, axis.x(real_edges), read, write, (_COLORS[0], _COLORS[1]), "smoothed " if j == 0 else None)
            windows.add(window)
        ax.axhline(peak, color=_COLORS[3], linestyle="--", label=f"peak {peak:g} GB/s")
        if windows:
            ax.text(0.01, 0.97, f"smoothed: moving average over {max(windows)} of each dispatch's counter buckets",
                    transform=ax.transAxes, fontsize=7, va="top")
        ax.set_ylim(0, peak * 1.15)
        axis.decorate(ax)
        ax.set_ylabel("DRAM bandwidth (GB/s)")
        fig.legend(loc="upper left", bbox_to_anchor=(0.8, 0.9), fontsize=8, frameon=False)
    summary = trace.summary()
    dram = sum(s["dram_bytes"] for s in summary)
    busy = sum(s["seconds"] for s in summary)
    focus = focus_dispatch(trace, dispatch)
    mine = next((s for s in summary if s["dispatch"] == focus), None)
    achieved = (f"#{focus}: {mine['bandwidth_bytes_per_second'] / 1e9:.1f} GB/s ({mine['percent_of_peak']:.0f} % of "
                f"peak)" if mine else "")
    if busy and len(summary) > 1:
        achieved += f"; all {len(summary)} dispatches together {dram / busy / 1e9:.1f} GB/s"
    ax.set_title(f"DRAM bandwidth: {p.description}" + (f"; {achieved}" if achieved else ""), fontsize=10)
    return _save(fig, path)


def plot_occupancy(trace, path):
    """Resident waves as % of the GPU's wave slots, and ALU busy %, over time; returns path."""
    p = trace.preset
    c = trace.tables["counters"]
    fig = _figure(12, 5)
    ax = fig.add_axes([0.07, 0.12, 0.72, 0.78])
    if not len(c):
        _empty(ax, "no counters in this trace (no timed dispatch)")
    else:
        slots = {int(d["id"]): max(1, int(d["waves_per_simd"])) for d in trace.tables["dispatches"]}
        capacity = np.array([p.compute_units * p.simds_per_cu * slots.get(int(d), 1) for d in c["dispatch"]],
                            dtype=np.float64)
        axis = _BusyTime(trace)
        edges, occupancy = _counter_steps(trace, 100.0 * c["resident_waves"] / capacity, axis)
        ax.stairs(occupancy, edges, label="resident waves (% of wave slots)", color=_COLORS[0])
        edges, alu = _counter_steps(trace, 100.0 * c["alu_busy"], axis)
        ax.stairs(alu, edges, label="ALU busy (% of SIMDs)", color=_COLORS[2])
        ax.set_ylim(0, 115)
        axis.decorate(ax)
        ax.set_ylabel("%")
        fig.legend(loc="upper left", bbox_to_anchor=(0.8, 0.9), fontsize=8, frameon=False)
    ax.set_title(f"Occupancy: {p.description}", fontsize=10)
    return _save(fig, path)


# ---- focus: the dispatch that matters, initializers folded, what was left out ------------------------
MAX_POINTS = 8         # dispatches the roofline draws (the longest, the focused one always)


def focus_dispatch(trace, dispatch=None):
    """The dispatch the plots focus on: `dispatch` (checked: ValueError naming the trace's ids) or the
    timed one with the most cycles (traces/listing.py's default_dispatch); None for a trace without one."""
    from dmlemu.traces.listing import default_dispatch
    ids = [int(i) for i in trace.tables["dispatches"]["id"]]
    if dispatch is None:
        return default_dispatch(trace)
    if int(dispatch) not in ids:
        raise ValueError(f"dispatch {dispatch} is not in this trace (it holds {', '.join(map(str, ids)) or 'none'})")
    return int(dispatch)


def is_initializer(name):
    """Whether a dispatch is an operator initializer's copy (kernels/initialize.s: dml_initialize_copy)."""
    return "initialize" in str(name)


def _left_out_note(fig, items, what="left out"):
    """A line at the bottom of the figure naming the dispatches a plot does not draw (whole names)."""
    if items:
        import textwrap
        text = textwrap.fill(f"{what}: " + "; ".join(items), 190)
        fig.text(0.01, 0.005, text, fontsize=7, va="bottom")


# ---- roofline ----------------------------------------------------------------------------------------
def roofs(trace):
    """(name, bytes per second) of each bandwidth roof: DRAM, L2, Infinity Cache (adapters that have one),
    LDS (all CUs; only when a dispatch of the trace used LDS)."""
    p = trace.preset
    out = [("DRAM", float(p.dram_bytes_per_second)), ("L2", float(p.l2_bytes_per_cycle * p.clock_hz))]
    if p.infinity_cache_bytes and p.infinity_cache_bytes_per_second:
        out.append(("Infinity Cache", float(p.infinity_cache_bytes_per_second)))
    if int(np.sum(trace.tables["dispatches"]["lds_bytes"])) > 0:
        out.append(("LDS", float(p.lds_bytes_per_cycle * p.compute_units * p.clock_hz)))
    return out


_LEVEL_MARKERS = {"DRAM": "o", "L2": "s", "Infinity Cache": "^"}
_ROOF_STYLES = {"DRAM": "-", "L2": "--", "Infinity Cache": "-.", "LDS": ":"}


def plot_roofline(trace, path, dispatch=None):
    """A hierarchical roofline: the compute roof and a bandwidth roof per level (DRAM, L2, Infinity Cache,
    LDS where used), and on a preset with matrix units their roof (FLOAT16 multiply-adds, as the dispatches' matrix
    instructions count); each timed dispatch at its lane-ops per second, once per level at its lane-ops per
    byte of that level (circle DRAM, square L2, triangle Infinity Cache), the points of one dispatch joined.
    The MAX_POINTS longest dispatches (the focused one always); the rest, and dispatches with no vector ALU
    work or no bytes, are named in a note. Returns path."""
    p = trace.preset
    sector = int(p.sector_bytes)
    compute = float(p.compute_units * p.simds_per_cu * p.simd_lanes * p.clock_hz)
    # Matrix units (RDNA3 WMMA, tensor cores): their roof in the same lane-ops (one multiply-add each), and each
    # matrix instruction a dispatch issued counted as its 16 x 16 x 16 multiply-adds (its issue cycles over the
    # preset's cycles per instruction), not as one lane-op per lane.
    matrix = float(p.compute_units * p.matrix_fp16_flops_per_cycle_per_cu // 2 * p.clock_hz)
    rate = p.rate_cycles().get("matrix")
    products = {}
    if rate and "matrix_issue_cycles" in trace.dispatches.dtype.names:
        products = {int(d["id"]): int(d["matrix_issue_cycles"]) // rate for d in trace.dispatches}
    focus = focus_dispatch(trace, dispatch)
    fig = _figure(12, 6.5)
    ax = fig.add_axes([0.08, 0.14, 0.56, 0.78])
    drawn, skipped = [], []
    for s in trace.summary():
        ops = s["valu_instructions"] * trace.wave_width  # vector ALU lane operations
        ops += products.get(s["dispatch"], 0) * (16 ** 3 - trace.wave_width)   # a matrix instruction's multiply-adds
        name = f"#{s['dispatch']} {s['kernel']}"
        if not s["timed"] or s["seconds"] <= 0:
            continue
        levels = [("DRAM", s["dram_bytes"]), ("L2", s["l2_requests"] * sector)]
        if p.infinity_cache_bytes:
            levels.append(("Infinity Cache", s["ic_requests"] * sector))
        levels = [(level, b) for level, b in levels if b > 0]
        if ops <= 0 or not levels:
            skipped.append(f"{name} ({'no vector ALU work' if ops <= 0 else 'no bytes at any level'})")
            continue
        drawn.append((s, ops, levels, name))
    drawn.sort(key=lambda t: (t[0]["dispatch"] != focus, -t[0]["cycles"]))
    for s, _, _, name in drawn[MAX_POINTS:]:
        skipped.append(f"{name} (beyond the {MAX_POINTS} longest)")
    drawn = sorted(drawn[:MAX_POINTS], key=lambda t: t[0]["dispatch"])
    roof_list = roofs(trace)
    xs = [ops / b for _, ops, levels, _ in drawn for _, b in levels] + [compute / bw for _, bw in roof_list]
    xs += [matrix / bw for _, bw in roof_list[:1] if matrix]
    lo, hi = min(xs) / 10, max(xs) * 10
    x = np.geomspace(lo, hi, 256)
    for name, bandwidth in roof_list:
        ax.plot(x, np.minimum(compute, x * bandwidth), color="black", linewidth=1.2, linestyle=_ROOF_STYLES[name],
                label=f"{name} roof {bandwidth / 1e9:,.4g} GB/s")
    ax.axhline(compute, color="#444444", linewidth=0.6)
    ax.text(hi / 1.2, compute * 1.15, f"compute {_si(compute)} lane-ops/s", fontsize=8, ha="right")
    ys = [compute]
    if matrix:
        ax.plot(x, np.minimum(matrix, x * roof_list[0][1]), color="#7a1fa2", linewidth=1.2, linestyle="--",
                label=f"matrix roof (FLOAT16 on the matrix units) {_si(matrix)} multiply-adds/s")
        ax.text(hi / 1.2, matrix * 1.15, f"matrix {_si(matrix)} lane-ops/s", fontsize=8, ha="right", color="#7a1fa2")
        ys.append(matrix)
    for i, (s, ops, levels, name) in enumerate(drawn):
        y = ops / s["seconds"]
        ys.append(y)
        color = _COLORS[i % len(_COLORS)]
        points = [(ops / b, level) for level, b in levels]
        ax.plot([px for px, _ in points], [y] * len(points), color=color, linewidth=0.8, alpha=0.6)
        dram_roof = min(compute, (ops / s["dram_bytes"]) * p.dram_bytes_per_second) if s["dram_bytes"] else None
        share = f", {100 * y / dram_roof:.2g} % of the DRAM roof" if dram_roof else ""
        focus_mark = " (focus)" if s["dispatch"] == focus else ""
        ax.plot([], [], color=color, linewidth=6, label=f"{name}{focus_mark}{share}")
        for px, level in points:
            ax.plot([px], [y], _LEVEL_MARKERS[level], color=color, markersize=7)
        ax.annotate(f"#{s['dispatch']}", (points[0][0], y), textcoords="offset points", xytext=(6, 6), fontsize=8,
                    color=color)
    if not drawn:
        ax.text(0.5, 0.5, "no timed dispatch with vector ALU work and bytes", ha="center", transform=ax.transAxes)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_ylim(min(ys + [lo * roof_list[0][1]]) / 3, max(compute, matrix) * 3)
    ax.set_xlabel("arithmetic intensity (lane-ops per byte at each level)")
    ax.set_ylabel("lane-ops per second")
    ax.grid(True, which="major", linewidth=0.3)
    ax.set_title(f"Roofline: {p.description}", fontsize=10)
    import textwrap
    from matplotlib.lines import Line2D
    handles, labels = ax.get_legend_handles_labels()
    labels = [textwrap.fill(label, 52) for label in labels]
    handles += [Line2D([], [], marker=m, color="#555555", linestyle="none") for m in _LEVEL_MARKERS.values()]
    labels += [f"point at {level} bytes" for level in _LEVEL_MARKERS if level != "Infinity Cache" or
               p.infinity_cache_bytes]
    handles = handles[:len(labels)]
    fig.legend(handles, labels, loc="upper left", bbox_to_anchor=(0.66, 0.93), fontsize=7, frameon=False)
    fig.text(0.66, 0.16, "lane-ops: vector ALU wave instructions x wave width\n(lanes masked off by EXEC count "
             "too)" + ("; a matrix instruction: its\n16 x 16 x 16 multiply-adds" if matrix else ""), fontsize=7)
    _left_out_note(fig, skipped, "not drawn")
    return _save(fig, path)


# ---- cache hit rates and coalescing per dispatch ----------------------------------------------------
def _fold_initializers(rows):
    """Summary rows with every initializer dispatch (is_initializer) folded into one row named for them."""
    inits = [r for r in rows if is_initializer(r["kernel"])]
    if len(inits) < 2:
        return rows
    folded = dict(inits[0])
    for key in ("l2_requests", "l2_hits", "ic_requests", "ic_hits", "bytes_read", "bytes_written", "cycles"):
        folded[key] = sum(r[key] for r in inits)
    folded["l2_hit_rate"] = folded["l2_hits"] / folded["l2_requests"] if folded["l2_requests"] else 0.0
    folded["ic_hit_rate"] = folded["ic_hits"] / folded["ic_requests"] if folded["ic_requests"] else 0.0
    useful = folded["bytes_read"] + folded["bytes_written"]
    folded["coalescing_efficiency"] = useful / (folded["l2_requests"] * 64) if folded["l2_requests"] else 0.0
    folded["kernel"] = f"{len(inits)} initializer dispatches"
    folded["dispatch"] = "+".join(str(r["dispatch"]) for r in inits[:3]) + ("..." if len(inits) > 3 else "")
    out, placed = [], False
    for r in rows:
        if is_initializer(r["kernel"]):
            if not placed:
                out.append(folded)
                placed = True
        else:
            out.append(r)
    return out


def plot_caches(trace, path):
    """Per timed dispatch (initializer dispatches folded into one group): L2 hit rate, Infinity Cache hit rate
    (adapters that have one) and coalescing efficiency (%), as grouped bars; a level with no request is
    marked 'no req.' and a real 0 % is marked '0 %', so the two are told apart; returns path."""
    p = trace.preset
    timed = _fold_initializers([s for s in trace.summary() if s["timed"]])
    for r in timed:        # a folded row's coalescing in the preset's sector
        if "initializer" in str(r["kernel"]) and r["l2_requests"]:
            r["coalescing_efficiency"] = (r["bytes_read"] + r["bytes_written"]) / (r["l2_requests"] * p.sector_bytes)
    fig = _figure(12, 5)
    ax = fig.add_axes([0.07, 0.3, 0.9, 0.56])
    series = [("L2 hit rate", "l2_hit_rate", "l2_requests"), ("coalescing efficiency", "coalescing_efficiency",
                                                                "l2_requests")]
    if p.infinity_cache_bytes:
        series.insert(1, ("Infinity Cache hit rate", "ic_hit_rate", "ic_requests"))
    if not timed:
        _empty(ax, "no timed dispatch in this trace")
    else:
        index = np.arange(len(timed))
        width = 0.8 / len(series)
        for k, (label, key, requests) in enumerate(series):
            values = [100.0 * s[key] if s[requests] else np.nan for s in timed]
            x = index + (k - (len(series) - 1) / 2) * width
            ax.bar(x, values, width, color=_COLORS[k], label=label)
            for xi, v, s in zip(x, values, timed):
                if not s[requests]:
                    ax.text(xi, 2, "no req.", rotation=90, ha="center", va="bottom", fontsize=6, color="#777777",
                            style="italic")
                elif v == 0:
                    ax.text(xi, 1, "0 %", rotation=90, ha="center", va="bottom", fontsize=6, color=_COLORS[k])
        step = max(1, -(-len(timed) // 24))
        ax.set_xticks(index[::step])
        import textwrap
        ax.set_xticklabels([textwrap.fill(f"#{s['dispatch']} {s['kernel']}", 28) for s in timed[::step]], fontsize=7,
                           rotation=20 if len(timed) > 4 else 0, ha="right" if len(timed) > 4 else "center")
        ax.set_ylim(0, 105)
        ax.set_ylabel("%")
        fig.legend(loc="upper center", bbox_to_anchor=(0.5, 0.93), fontsize=8, ncol=len(series), frameon=False)
        ax.grid(True, axis="y", linewidth=0.3)
    fig.suptitle(f"Cache hit rates and coalescing efficiency per dispatch: {p.description}", fontsize=10)
    return _save(fig, path)


def _si(value):
    """1.536e13 -> '15.4 T', 8e8 -> '800 M'."""
    for factor, prefix in ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if value >= factor:
            return f"{value / factor:.3g} {prefix}"
    return f"{value:.3g}"


def plot_all(trace, folder, dispatch=None):
    """wave_timeline.png, bandwidth.png, occupancy.png, roofline.png and caches.png in `folder`; returns
    their paths. dispatch: the dispatch they focus on (None: the timed one with the most cycles): the timeline
    draws only it (the others named in a note), the bandwidth title gives its own figure, the roofline always
    draws it."""
    os.makedirs(folder, exist_ok=True)
    focus = focus_dispatch(trace, dispatch)
    return [
        plot_wave_timeline(trace, os.path.join(folder, "wave_timeline.png"), focus),
        plot_bandwidth(trace, os.path.join(folder, "bandwidth.png"), focus),
        plot_occupancy(trace, os.path.join(folder, "occupancy.png")),
        plot_roofline(trace, os.path.join(folder, "roofline.png"), focus),
        plot_caches(trace, os.path.join(folder, "caches.png")),
    ]


# ---- sweeps (tools/sweep.py): one row per point ------------------------------------------------------
_SWEEP_AXES = ("adapter", "operator", "dtype", "elements", "layout")
_RESULT_COLUMNS = ("cycles", "time_us", "bytes_read", "bytes_written", "l2_request_bytes", "ic_lookup_bytes",
                   "l2_bytes", "ic_bytes", "dram_read_bytes",
                   "dram_write_bytes", "l2_hit_rate", "ic_hit_rate", "coalescing", "gbps", "pct_peak",
                   "requested_gbps")
_STYLES = ("-", "--", ":", "-.")
_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")


def _parameters(rows):
    """The grid's columns of the rows (everything but the results), in their order."""
    return [c for c in rows[0] if c not in _RESULT_COLUMNS] if rows else []


def _unique(rows, column):
    seen = []
    for r in rows:
        if r[column] not in seen:
            seen.append(r[column])
    return seen


def plot_sweep_efficiency(rows, path):
    """% of DRAM peak against elements (log scale): one colour per adapter, one line style and marker
    per combination of the other swept parameters; returns path."""
    fig = _figure(11, 6)
    ax = fig.add_subplot()
    others = [c for c in _parameters(rows) if c not in ("adapter", "elements") and len(_unique(rows, c)) > 1]
    adapters = _unique(rows, "adapter")
    combos = sorted({tuple(r[c] for c in others) for r in rows}, key=lambda k: [str(v) for v in k])
    for ai, adapter in enumerate(adapters):
        for ci, combo in enumerate(combos):
            line = sorted((r["elements"], r["pct_peak"]) for r in rows
                          if r["adapter"] == adapter and tuple(r[c] for c in others) == combo)
            if not line:
                continue
            x, y = zip(*line)
            label = " ".join([adapter] + [f"{c}={v}" if c not in _SWEEP_AXES else str(v) for c, v in zip(others, combo)])
            ax.plot(x, y, color=_COLORS[ai % len(_COLORS)], linestyle=_STYLES[ci % len(_STYLES)],
                    marker=_MARKERS[ci % len(_MARKERS)], markersize=5, label=label)
    ax.set_xscale("log", base=2)
    ax.set_ylim(0, max([105.0] + [1.05 * r["pct_peak"] for r in rows]))
    ax.axhline(100, color="#999999", linestyle=":", linewidth=0.8)
    ax.set_xlabel("elements per tensor (log scale)")
    ax.set_ylabel("% of the adapter's DRAM peak (DRAM bytes moved / time)")
    ax.grid(True, which="major", linewidth=0.3)
    if rows:
        ax.legend(loc="upper left", fontsize=7, ncol=1 + len(adapters) * len(combos) // 12)
    ax.set_title(f"Sweep: efficiency against size ({len(rows)} points)", fontsize=10)
    return _save(fig, path)


def plot_sweep_heatmap(rows, path, x, y):
    """% of DRAM peak over two parameters `x` and `y`, one panel per adapter (unless one of them is
    the adapter); the other swept parameters are held at their first value (named in the title);
    returns path."""
    fixed = {c: _unique(rows, c)[0] for c in _parameters(rows)
             if c not in (x, y, "adapter") and len(_unique(rows, c)) > 1}
    rows = [r for r in rows if all(r[c] == v for c, v in fixed.items())]
    panels = [None] if "adapter" in (x, y) else _unique(rows, "adapter")
    fig = _figure(min(18, 1.5 + 5 * len(panels)), 5)
    xs, ys = _ordered(rows, x), _ordered(rows, y)
    image = None
    for i, adapter in enumerate(panels):
        ax = fig.add_subplot(1, len(panels), i + 1)
        grid = np.full((len(ys), len(xs)), np.nan)
        for r in rows:
            if adapter is None or r["adapter"] == adapter:
                grid[ys.index(r[y]), xs.index(r[x])] = r["pct_peak"]
        image = ax.imshow(grid, cmap="viridis", vmin=0, vmax=100, aspect="auto", origin="lower")
        for (yi, xi), value in np.ndenumerate(grid):
            if not np.isnan(value):
                ax.text(xi, yi, f"{value:.0f}", ha="center", va="center", fontsize=8,
                        color="white" if value < 60 else "black")
        ax.set_xticks(range(len(xs)))
        ax.set_xticklabels([str(v) for v in xs], fontsize=7, rotation=30 if len(xs) > 4 else 0)
        ax.set_yticks(range(len(ys)))
        ax.set_yticklabels([str(v) for v in ys], fontsize=7)
        ax.set_xlabel(x)
        if i == 0:
            ax.set_ylabel(y)
        if adapter is not None:
            ax.set_title(adapter, fontsize=9)
    if image is not None:
        fig.colorbar(image, ax=fig.axes, label="% of DRAM peak", fraction=0.04)
    held = "; held at " + ", ".join(f"{c}={v}" for c, v in fixed.items()) if fixed else ""
    fig.suptitle(f"Sweep: % of DRAM peak over {x} and {y}{held}", fontsize=10)
    return _save(fig, path)


def plot_sweep_workload(rows, path):
    """A workload sweep (`sweep --graph` / `--onnx`): the modelled time of each point as a horizontal bar,
    labelled with its adapter and --set values, annotated with its % of DRAM peak; returns path."""
    fields = [c for c in _parameters(rows) if c not in ("adapter", "workload", "dispatches")]
    labels = [" ".join([str(r["adapter"])] + [f"{c}={r[c]}" for c in fields]) for r in rows]
    height = max(3.0, 1.4 + 0.35 * len(rows))
    fig = _figure(12, height)
    ax = fig.add_subplot()
    times = [r["time_us"] for r in rows]
    index = np.arange(len(rows))
    ax.barh(index, times, color=_COLORS[0])
    for i, r in enumerate(rows):
        ax.text(times[i], i, f"  {times[i]:,.2f} us, {r['pct_peak']:.0f} % of DRAM peak", va="center", fontsize=8)
    ax.set_yticks(index)
    ax.set_yticklabels(labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, max(times or [1]) * 1.45)
    ax.set_xlabel("modelled time of the timed dispatches (us)")
    names = ", ".join(str(w) for w in _unique(rows, "workload")) if rows else ""
    ax.set_title(f"Sweep of {names}: {rows[0]['dispatches'] if rows else 0} dispatches per point", fontsize=10)
    fig.subplots_adjust(left=min(0.5, 0.03 + 0.0065 * max(map(len, labels or [""]))), bottom=0.6 / height,
                        top=1 - 0.45 / height, right=0.97)
    return _save(fig, path)


def _ordered(rows, column):
    """A column's values: numbers in numeric order, texts in the grid's order."""
    values = _unique(rows, column)
    return sorted(values) if all(isinstance(v, (int, float)) for v in values) else values


# ---- two runs side by side (tools/compare.py) --------------------------------------------------------
def _smoothed_bandwidth(trace, window_share=0.12):
    """Per dispatch with counters: (dispatch, x edges in real cycles, read GB/s, write GB/s), each
    bucket's rate averaged with its neighbours over `window_share` of the dispatch's buckets (a
    centred moving average that never crosses into another dispatch)."""
    c = trace.tables["counters"]
    out = []
    for d in np.unique(c["dispatch"]):
        rows = c[c["dispatch"] == d]
        rows = rows[np.argsort(rows["start"], kind="stable")]
        seconds = np.maximum(rows["end"] - rows["start"], 1) / trace.preset.clock_hz
        window = max(1, int(round(len(rows) * window_share)) | 1)
        kernel = np.ones(window)
        count = np.convolve(np.ones(len(rows)), kernel, mode="same")
        rates = [np.convolve(rows[name] / seconds / 1e9, kernel, mode="same") / count
                 for name in ("dram_read_bytes", "dram_write_bytes")]
        edges = np.r_[rows["start"], rows["end"][-1]]
        out.append((int(d), edges, rates[0], rates[1], window))
    return out


def _area(ax, x_edges, read, write, colors, label=""):
    """A stacked area (read, then write on top) over bucket midpoints, closed at the edges."""
    mids = (x_edges[:-1] + x_edges[1:]) / 2
    x = np.r_[x_edges[0], mids, x_edges[-1]]
    read = np.r_[read[0], read, read[-1]]
    total = read + np.r_[write[0], write, write[-1]]
    ax.fill_between(x, 0, read, color=colors[0], alpha=0.55, linewidth=0, label=f"{label}read" if label is not None
                    else None)
    ax.fill_between(x, read, total, color=colors[1], alpha=0.55, linewidth=0,
                    label=f"{label}write" if label is not None else None)


def plot_comparison(a, b, path):
    """Two runs side by side: time per dispatch, bytes per cache level, hit rates and coalescing (each
    with B against A), and DRAM bandwidth over time of both. `a` and `b` carry .label, .trace and
    .totals (tools.compare.totals of the trace's summary); returns path."""
    fig = _figure(14, 9)
    axes = fig.subplots(2, 2)
    names = ("A", "B")
    colors = (_COLORS[0], _COLORS[1])
    # time per dispatch, paired in order
    ax = axes[0][0]
    sa, sb = a.trace.summary(), b.trace.summary()
    count = max(len(sa), len(sb))
    index = np.arange(count)
    for k, (s, name) in enumerate(((sa, "A"), (sb, "B"))):
        times = [s[i]["seconds"] * 1e6 if i < len(s) else 0.0 for i in range(count)]
        ax.bar(index + (k - 0.5) * 0.4, times, 0.4, color=colors[k], label=name)
    ax.set_xticks(index)
    ax.set_xticklabels([f"#{i} {(sb[i] if i < len(sb) else sa[i])['kernel'][:22]}" for i in index],
                       fontsize=7, rotation=15 if count > 2 else 0, ha="right" if count > 2 else "center")
    ax.set_ylabel("time (us)")
    ax.set_title(f"time per dispatch; all timed: A {a.totals['time_us']:.2f} us, B {b.totals['time_us']:.2f} us "
                 f"({_ratio(a.totals['time_us'], b.totals['time_us'])})", fontsize=9)
    ax.legend(fontsize=8)
    # bytes per cache level
    ax = axes[0][1]
    levels = (("L2 requests", "l2_bytes"), ("IC lookups", "ic_bytes"), ("DRAM read", "dram_read_bytes"),
              ("DRAM write-back", "dram_write_bytes"))
    _paired_bars(ax, [label for label, _ in levels], [[side.totals[key] / 1e6 for _, key in levels] for side in (a, b)],
                 colors, names, lambda va, vb: _ratio(va, vb))
    ax.set_ylabel("MB (10^6 bytes), all timed dispatches")
    ax.set_title("bytes at each cache level (B vs A above each pair)", fontsize=9)
    # rates
    ax = axes[1][0]
    rates = (("L2 hit rate", "l2_hit_rate", 100), ("IC hit rate", "ic_hit_rate", 100),
             ("coalescing", "coalescing", 100), ("% of DRAM peak", "pct_peak", 1), ("occupancy", "occupancy", 100))
    values = [[(side.totals[key] or 0.0) * scale for _, key, scale in rates] for side in (a, b)]
    _paired_bars(ax, [label for label, _, _ in rates], values, colors, names, lambda va, vb: f"{vb - va:+.1f} pt")
    ax.set_ylim(0, 118)
    ax.set_ylabel("%")
    ax.set_title("hit rates, coalescing efficiency, bandwidth and occupancy (B - A in points)", fontsize=9)
    # DRAM bandwidth over time, each run from its first dispatch's start
    ax = axes[1][1]
    for k, side in enumerate((a, b)):
        trace = side.trace
        d = trace.tables["dispatches"]
        origin = int(d["start"].min()) if len(d) else 0
        for j, (_, edges, read, write, _) in enumerate(_smoothed_bandwidth(trace)):
            x = (edges - origin) * 1e6 / trace.preset.clock_hz
            total = read + write
            mids = (x[:-1] + x[1:]) / 2
            ax.fill_between(np.r_[x[0], mids, x[-1]], 0, np.r_[total[0], total, total[-1]], color=colors[k],
                            alpha=0.35, linewidth=0, label=f"{names[k]} read + write" if j == 0 else None)
        peak = trace.preset.dram_bytes_per_second / 1e9
        ax.axhline(peak, color=colors[k], linestyle="--", linewidth=1,
                   label=f"{names[k]} peak {peak:g} GB/s")
    ax.set_xlabel("time from the run's first dispatch (us), idle gaps included")
    ax.set_ylabel("DRAM bandwidth (GB/s), smoothed")
    ax.set_ylim(0, max(a.trace.preset.dram_bytes_per_second, b.trace.preset.dram_bytes_per_second) / 1e9 * 1.2)
    ax.legend(fontsize=7, loc="upper right")
    ax.set_title("DRAM bandwidth over time", fontsize=9)
    fig.suptitle(f"A: {a.label[:70]} ({a.trace.preset.key})\nB: {b.label[:70]} ({b.trace.preset.key})", fontsize=10)
    fig.subplots_adjust(hspace=0.38, wspace=0.22, top=0.88, bottom=0.09, left=0.06, right=0.98)
    return _save(fig, path)


def _ratio(a, b):
    if not a:
        return "-" if not b else "new"
    return f"B/A {b / a:.2f}x"


def _paired_bars(ax, labels, values, colors, names, annotate):
    """Bars of A and B side by side for each label, `annotate(a, b)` written above each pair."""
    index = np.arange(len(labels))
    top = max([v for side in values for v in side] + [1e-9])
    for k, side in enumerate(values):
        ax.bar(index + (k - 0.5) * 0.4, side, 0.4, color=colors[k], label=names[k])
    for i in index:
        va, vb = values[0][i], values[1][i]
        ax.text(i, max(va, vb) + top * 0.02, annotate(va, vb), ha="center", va="bottom", fontsize=7)
    ax.set_xticks(index)
    ax.set_xticklabels(labels, fontsize=8)
    ax.set_ylim(0, max(ax.get_ylim()[1], top * 1.15))
    ax.legend(fontsize=8, loc="upper right")
