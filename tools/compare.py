"""`dmlemu compare A B`: two runs side by side, for a performance engineer comparing a layout, a data
type or an adapter against another.

A and B are each a saved trace (.npz, from `dmlemu run ... --trace FILE.npz`) or a run spec, the
arguments of `dmlemu run` in one word ('CLIP --sizes 2048 2048 --strides 1 2048 --adapter rtx3070'),
which is checked as `dmlemu run` checks it and run through the mirror with a wave-level trace.
The comparison reads each trace's summary() (its columns): over the timed dispatches, time,
bandwidth and % of the adapter's DRAM peak, bytes at each cache level (L2 requests, Infinity Cache
lookups, DRAM reads and write-backs), hit rates, coalescing efficiency, waves and occupancy, with B/A
for quantities and B - A (percentage points) for rates; then dispatch by dispatch, paired in order.
"""
import dataclasses
import os

from dmlemu.tools.operators import UsageError

__all__ = ["Side", "Comparison", "load_side", "totals", "compare", "format_comparison", "plot_comparison"]


@dataclasses.dataclass
class Side:
    """One run of a comparison: its label (file name or spec), trace and totals()."""
    label: str
    trace: object
    totals: dict


@dataclasses.dataclass
class Comparison:
    a: Side
    b: Side


def load_side(text, name="A", run_spec=None):
    """A Side from a .npz path, or from a run spec through `run_spec(text, name)` (the command line's
    runner: it parses and checks the spec as `dmlemu run` does and returns the run's trace);
    UsageError (one sentence naming A or B) otherwise."""
    text = str(text)
    if text.lower().endswith(".npz") or run_spec is None:
        from dmlemu.tools.tracefiles import load
        trace = load(text)
        return Side(os.path.basename(text), trace, totals(trace))
    trace = run_spec(text, name)
    return Side(text, trace, totals(trace))


# ---- figures ------------------------------------------------------------------------------------------
# (label, totals key, kind): "count" and "bytes" compare as B/A, "rate" (a fraction) as B - A in points.
METRICS = (
    ("dispatches", "dispatches", "count"),
    ("time (us)", "time_us", "time"),
    ("cycles", "cycles", "count"),
    ("bytes read", "bytes_read", "bytes"),
    ("bytes written", "bytes_written", "bytes"),
    ("bandwidth (GB/s)", "gbps", "time"),
    ("% of DRAM peak", "pct_peak", "points"),
    ("L2 bytes (requests)", "l2_bytes", "bytes"),
    ("L2 hit rate", "l2_hit_rate", "rate"),
    ("IC bytes (lookups)", "ic_bytes", "bytes"),
    ("IC hit rate", "ic_hit_rate", "rate"),
    ("DRAM read bytes", "dram_read_bytes", "bytes"),
    ("DRAM write-back bytes", "dram_write_bytes", "bytes"),
    ("coalescing efficiency", "coalescing", "rate"),
    ("waves", "waves", "count"),
    ("occupancy", "occupancy", "rate"),
)
_SUMMED = ("cycles", "seconds", "bytes_read", "bytes_written", "l2_requests", "l2_hits", "ic_requests", "ic_hits",
           "l2_bytes", "ic_bytes", "dram_read_bytes", "dram_write_bytes", "waves")


def totals(trace):
    """The trace's timed dispatches together (all of them if none was timed): sums of time and bytes,
    hit rates and coalescing of the summed requests, bandwidth over the summed time, occupancy
    weighted by time. Keys: METRICS' and the sums."""
    rows = trace.summary()
    timed = [s for s in rows if s["timed"]] or rows
    t = {key: sum(s[key] for s in timed) for key in _SUMMED}
    moved = t["bytes_read"] + t["bytes_written"]
    seconds = t["seconds"]
    t.update(
        dispatches=len(timed), time_us=seconds * 1e6,
        gbps=moved / seconds / 1e9 if seconds else 0.0,
        pct_peak=100.0 * moved / seconds / trace.preset.dram_bytes_per_second if seconds else 0.0,
        l2_hit_rate=t["l2_hits"] / t["l2_requests"] if t["l2_requests"] else None,
        ic_hit_rate=t["ic_hits"] / t["ic_requests"] if t["ic_requests"] else None,
        coalescing=moved / t["l2_bytes"] if t["l2_bytes"] else None,
        occupancy=sum(s["occupancy"] * s["seconds"] for s in timed) / seconds if seconds else 0.0,
        adapter=trace.preset.description)
    return t


def compare(a, b):
    return Comparison(a, b)


def _value(value, kind):
    if value is None:
        return "-"
    if kind == "rate":
        return f"{100 * value:.1f}%"
    if kind == "points":
        return f"{value:.1f}%"
    if kind == "time":
        return f"{value:,.2f}"
    return f"{value:,}"


def _change(a, b, kind):
    """B against A: a ratio for quantities, a difference in percentage points for rates."""
    if a is None or b is None:
        return "-"
    if kind in ("rate", "points"):
        scale = 100 if kind == "rate" else 1
        return f"{scale * (b - a):+.1f} pt"
    if a == 0:
        return "-" if b == 0 else "new"
    return f"{b / a:.2f}x"


def format_comparison(c):
    """The comparison as text: the two runs, the totals table, the dispatches paired in order."""
    ta, tb = c.a.totals, c.b.totals
    lines = [f"A: {c.a.label}  ({ta['dispatches']} timed dispatch(es) on {ta['adapter']})",
             f"B: {c.b.label}  ({tb['dispatches']} timed dispatch(es) on {tb['adapter']})", ""]
    width = max(len(m[0]) for m in METRICS)
    lines.append(f"{'':<{width}} {'A':>16} {'B':>16} {'B vs A':>10}")
    for label, key, kind in METRICS:
        lines.append(f"{label:<{width}} {_value(ta[key], kind):>16} {_value(tb[key], kind):>16} "
                     f"{_change(ta[key], tb[key], kind):>10}")
    lines += ["", "B vs A: a ratio for quantities, the difference in percentage points (pt) for rates; "
                  "'-' where a level had no request.", ""]
    sa, sb = c.a.trace.summary(), c.b.trace.summary()
    lines.append(f"{'#':>3} {'kernel A':<38} {'kernel B':<38} {'A us':>9} {'B us':>9} {'B/A':>6} "
                 f"{'L2 hit A':>8} {'L2 hit B':>8} {'coal. A':>7} {'coal. B':>7}")
    for i in range(max(len(sa), len(sb))):
        da = sa[i] if i < len(sa) else None
        db = sb[i] if i < len(sb) else None
        lines.append(f"{i:>3} {(da['kernel'] if da else '-')[:38]:<38} {(db['kernel'] if db else '-')[:38]:<38} "
                     f"{_us(da):>9} {_us(db):>9} "
                     f"{_change(da['seconds'], db['seconds'], 'time') if da and db else '-':>6} "
                     f"{_rate(da, 'l2_hit_rate', 'l2_requests'):>8} {_rate(db, 'l2_hit_rate', 'l2_requests'):>8} "
                     f"{_rate(da, 'coalescing_efficiency', 'l2_requests'):>7} "
                     f"{_rate(db, 'coalescing_efficiency', 'l2_requests'):>7}")
    return "\n".join(lines)


def _us(s):
    return f"{s['seconds'] * 1e6:.2f}" if s else "-"


def _rate(s, key, requests):
    return f"{100 * s[key]:.1f}%" if s and s[requests] else "-"


def plot_comparison(c, folder):
    """compare.png in `folder` (traces.plots.plot_comparison); returns its path in a list."""
    from dmlemu.traces.plots import plot_comparison as plot
    os.makedirs(folder, exist_ok=True)
    return [str(plot(c.a, c.b, os.path.join(folder, "compare.png")))]
