"""Plots of a Trace (PNG, matplotlib's Agg canvas; nothing is ever shown on screen).

    plot_wave_timeline   wave groups per CU and SIMD as horizontal bars over time
    plot_bandwidth       DRAM read / write bandwidth over time against the preset's peak
    plot_occupancy       resident waves (% of the wave slots) and ALU busy (%) over time
    plot_roofline        each dispatch as a point: lane-ops per DRAM byte vs lane-ops per second,
                         under the bandwidth roof and the compute roof
    plot_all             the four into one folder

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

__all__ = ["plot_wave_timeline", "plot_bandwidth", "plot_occupancy", "plot_roofline", "plot_all"]

DPI = 100
_WIDTH_PX = 1200          # the timeline merges wave groups closer together than one of these pixels
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
def plot_wave_timeline(trace, path):
    """Wave groups on each (CU, SIMD) as bars over time, one colour per dispatch; returns path."""
    p = trace.preset
    waves = trace.tables["wave_groups"]
    rows_total = p.compute_units * p.simds_per_cu
    fig = _figure(12, max(4.0, min(12.0, 2.0 + rows_total * 0.05)))
    ax = fig.add_subplot()
    if not len(waves):
        _empty(ax, f"no wave groups in this trace (detail {trace.detail!r}; capture with detail='wave' or more)")
        ax.set_title(f"Wave groups per SIMD: {p.description}")
        return _save(fig, path)
    row = waves["cu"].astype(np.int64) * p.simds_per_cu + waves["simd"]
    span = max(1, int(waves["end"].max() - waves["start"].min()))
    bars = _merge_bars(row, waves["dispatch"].astype(np.int64), waves["start"], waves["end"], span / _WIDTH_PX)
    b_row, b_dispatch, b_start, b_end = bars
    axis = _BusyTime(trace)
    x0, x1 = axis.x(b_start), axis.x(b_end)
    x1 = np.maximum(x1, x0 + (axis.x(waves["end"].max()) - axis.x(waves["start"].min())) / (4 * _WIDTH_PX))
    verts = np.stack([np.stack([x0, b_row - 0.4], 1), np.stack([x1, b_row - 0.4], 1),
                      np.stack([x1, b_row + 0.4], 1), np.stack([x0, b_row + 0.4], 1)], axis=1)
    dispatches = np.unique(b_dispatch)
    color_of = {int(d): _COLORS[i % len(_COLORS)] for i, d in enumerate(dispatches)}
    ax.add_collection(PolyCollection(verts, facecolors=[color_of[int(d)] for d in b_dispatch], linewidths=0))
    for d in dispatches[:len(_COLORS)]:
        ax.plot([], [], color=color_of[int(d)], linewidth=6, label=f"#{int(d)} {_kernel(trace, int(d))[:40]}")
    ax.set_xlim(axis.x(waves["start"].min()), axis.x(waves["end"].max()))
    ax.set_ylim(rows_total - 0.5, -0.5)
    step = max(1, -(-p.compute_units // 24))
    ax.set_yticks(np.arange(0, p.compute_units, step) * p.simds_per_cu)
    ax.set_yticklabels([f"CU {c}" for c in range(0, p.compute_units, step)], fontsize=7)
    axis.decorate(ax)
    ax.set_ylabel(f"CU and SIMD ({p.simds_per_cu} SIMD{'s' if p.simds_per_cu > 1 else ''} per CU)")
    merged = "" if len(b_row) == len(waves) else f"; {len(waves)} groups drawn as {len(b_row)} bars"
    ax.set_title(f"Wave groups per SIMD: {p.description}{merged}", fontsize=10)
    ax.legend(loc="upper right", fontsize=7)
    return _save(fig, path)


def _merge_bars(row, dispatch, start, end, gap):
    """Join each row's consecutive wave groups of one dispatch that are less than `gap` cycles apart."""
    order = np.lexsort((start, dispatch, row))
    row, dispatch, start, end = row[order], dispatch[order], start[order], end[order]
    new = np.r_[True, (row[1:] != row[:-1]) | (dispatch[1:] != dispatch[:-1]) | (start[1:] - end[:-1] > gap)]
    at = np.flatnonzero(new)
    return row[at], dispatch[at], start[at], np.maximum.reduceat(end, at)


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


def plot_bandwidth(trace, path):
    """DRAM read, write and total bandwidth over time (GB/s) against the preset's peak; returns path."""
    p = trace.preset
    c = trace.tables["counters"]
    fig = _figure(12, 5)
    ax = fig.add_subplot()
    peak = p.dram_bytes_per_second / 1e9
    if not len(c):
        _empty(ax, "no counters in this trace (no timed dispatch)")
    else:
        seconds = np.maximum(c["end"] - c["start"], 1) / p.clock_hz
        read = c["dram_read_bytes"] / seconds / 1e9
        write = c["dram_write_bytes"] / seconds / 1e9
        axis = _BusyTime(trace)
        edges, total = _counter_steps(trace, read + write, axis)
        ax.stairs(total, edges, fill=True, color="#cccccc", label="total")
        for values, label, color in ((read, "read", _COLORS[0]), (write, "write", _COLORS[1])):
            edges, steps = _counter_steps(trace, values, axis)
            ax.stairs(steps, edges, label=label, color=color, linewidth=1.0)
        ax.axhline(peak, color=_COLORS[3], linestyle="--", label=f"peak {peak:g} GB/s")
        ax.set_ylim(0, peak * 1.15)
        axis.decorate(ax)
        ax.set_ylabel("DRAM bandwidth (GB/s)")
        ax.legend(loc="upper right", fontsize=8)
    summary = trace.summary()
    moved = sum(s["bytes_read"] + s["bytes_written"] for s in summary)
    busy = sum(s["seconds"] for s in summary)
    achieved = f"; dispatches average {moved / busy / 1e9:.1f} GB/s" if busy else ""
    ax.set_title(f"DRAM bandwidth: {p.description}{achieved}", fontsize=10)
    return _save(fig, path)


def plot_occupancy(trace, path):
    """Resident waves as % of the GPU's wave slots, and ALU busy %, over time; returns path."""
    p = trace.preset
    c = trace.tables["counters"]
    fig = _figure(12, 5)
    ax = fig.add_subplot()
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
        ax.legend(loc="upper right", fontsize=8)
    ax.set_title(f"Occupancy: {p.description}", fontsize=10)
    return _save(fig, path)


# ---- roofline ----------------------------------------------------------------------------------------
def plot_roofline(trace, path):
    """Each dispatch at (lane-ops per DRAM byte, lane-ops per second) under the roofs; returns path."""
    p = trace.preset
    bandwidth = float(p.dram_bytes_per_second)
    compute = float(p.compute_units * p.simds_per_cu * p.simd_lanes * p.clock_hz)
    fig = _figure(9, 6)
    ax = fig.add_subplot()
    points = {}     # dispatches of one kernel at the same spot share a point and a label
    for s in trace.summary():
        ops = s["valu_instructions"] * trace.wave_width  # vector ALU lane operations
        if s["dram_bytes"] > 0 and s["seconds"] > 0 and ops > 0:
            x, y = ops / s["dram_bytes"], ops / s["seconds"]
            key = (s["kernel"], float(f"{x:.3g}"), float(f"{y:.3g}"))
            points.setdefault(key, (x, y, []))[2].append(s["dispatch"])
    points = [(x, y, f"#{', #'.join(map(str, ids))} {kernel[:40]}") for (kernel, _, _), (x, y, ids) in points.items()]
    ridge = compute / bandwidth
    intensities = [x for x, _, _ in points] + [ridge]
    lo, hi = min(intensities) / 10, max(intensities) * 10
    x = np.geomspace(lo, hi, 256)
    ax.plot(x, np.minimum(compute, x * bandwidth), color="black", linewidth=1.5)
    ax.text(lo * 1.2, lo * bandwidth * 1.4, f"DRAM {bandwidth / 1e9:g} GB/s", fontsize=8)
    ax.text(hi / 1.2, compute * 1.15, f"compute {_si(compute)} lane-ops/s", fontsize=8, ha="right")
    for i, (xi, yi, label) in enumerate(points):
        ax.plot([xi], [yi], "o", color=_COLORS[i % len(_COLORS)])
        ax.annotate(label, (xi, yi), textcoords="offset points", xytext=(5, -10 if i % 2 else 5), fontsize=7)
    if not points:
        ax.text(0.5, 0.5, "no timed dispatch that moved DRAM bytes", ha="center", transform=ax.transAxes)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_ylim(min([y for _, y, _ in points] + [lo * bandwidth]) / 3, compute * 3)
    ax.set_xlabel("arithmetic intensity (lane-ops per DRAM byte)")
    ax.set_ylabel("lane-ops per second")
    fig.text(0.01, 0.01, "lane-ops: vector ALU wave instructions x wave width (lanes masked off by EXEC "
             "count too)", fontsize=7)
    ax.set_title(f"Roofline: {p.description}", fontsize=10)
    ax.grid(True, which="major", linewidth=0.3)
    return _save(fig, path)


def _si(value):
    """1.536e13 -> '15.4 T', 8e8 -> '800 M'."""
    for factor, prefix in ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if value >= factor:
            return f"{value / factor:.3g} {prefix}"
    return f"{value:.3g}"


def plot_all(trace, folder):
    """wave_timeline.png, bandwidth.png, occupancy.png and roofline.png in `folder`; returns their paths."""
    os.makedirs(folder, exist_ok=True)
    return [plot(trace, os.path.join(folder, name)) for plot, name in (
        (plot_wave_timeline, "wave_timeline.png"), (plot_bandwidth, "bandwidth.png"),
        (plot_occupancy, "occupancy.png"), (plot_roofline, "roofline.png"))]
