"""`dmlemu compare A B`: two runs side by side, for a performance engineer comparing a layout, a data
type or an adapter against another.

A and B are each a saved trace (.npz, from `dmlemu run ... --trace FILE.npz`) or a run spec, the
arguments of `dmlemu run` in one word ('CLIP --sizes 2048 2048 --strides 1 2048 --adapter rtx3070'),
which is checked as `dmlemu run` checks it and run through the mirror with a wave-level trace.
The comparison reads each trace's summary() (its columns): over the timed dispatches, time,
bandwidth and % of the adapter's DRAM peak, bytes at each cache level (L2 requests, Infinity Cache
lookups, DRAM reads and write-backs), hit rates, coalescing efficiency, waves and occupancy, with B/A
for quantities and B - A (percentage points) for rates; then dispatch by dispatch, matched by name
(match_dispatches), with each side's verdict (traces/verdict.py) and the dispatches left unmatched.

Matching, in this order, each step over the dispatches the steps before left:
    name        the same full name (a graph dispatch is named `node+node: kernel`), in order
    graph nodes dispatches that ran the same graph nodes: a fused dispatch against the unfused
                dispatches of its nodes is one row (times summed, rates of the summed requests)
    kernel      the same kernel name (the part after `node: `), in order
    only one    the one dispatch left on each side, when exactly one is (two runs of one operator
                whose kernel variants differ, e.g. packed against transposed)
Names are printed whole, wrapped to their column.
"""
import dataclasses
import os

from dmlemu.tools.operators import UsageError
from dmlemu.traces.trace import wrap_name

__all__ = ["Side", "Comparison", "Match", "load_side", "totals", "compare", "match_dispatches", "format_comparison",
           "plot_comparison"]


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
    ("DRAM bandwidth (GB/s)", "gbps", "time"),
    ("requested bandwidth (GB/s)", "requested_gbps", "time"),
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
           "l2_bytes", "ic_bytes", "dram_read_bytes", "dram_write_bytes", "dram_bytes", "waves")


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
        gbps=t["dram_bytes"] / seconds / 1e9 if seconds else 0.0,
        requested_gbps=moved / seconds / 1e9 if seconds else 0.0,
        pct_peak=100.0 * t["dram_bytes"] / seconds / trace.preset.dram_bytes_per_second if seconds else 0.0,
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


@dataclasses.dataclass
class Match:
    """A row of the dispatch table: the summaries (Trace.summary() rows) of A's and B's dispatches it puts
    side by side (either may be empty: unmatched) and `how` they matched (see the module banner)."""
    a: list
    b: list
    how: str


def _parts(name):
    """(graph nodes, kernel) of a dispatch name: `n1+n2: kernel` -> (('n1', 'n2'), 'kernel')."""
    nodes, sep, kernel = name.partition(": ")
    if not sep or " " in nodes:
        return (), name
    return tuple(n for n in nodes.split("+") if n), kernel


def match_dispatches(sa, sb):
    """Match A's dispatches (summary rows) with B's by name (see the module banner): a list of Match,
    in A's order (B's unmatched ones after)."""
    left_a, left_b = list(range(len(sa))), list(range(len(sb)))
    rows = []

    def pair(key, how):
        for i in list(left_a):
            j = next((j for j in left_b if key(sb[j]) is not None and key(sb[j]) == key(sa[i])), None)
            if j is not None and key(sa[i]) is not None:
                rows.append(([i], [j], how))
                left_a.remove(i)
                left_b.remove(j)

    pair(lambda s: s["kernel"], "name")
    # graph nodes: connected groups of dispatches that share a node
    nodes_a = {i: set(_parts(sa[i]["kernel"])[0]) for i in left_a}
    nodes_b = {j: set(_parts(sb[j]["kernel"])[0]) for j in left_b}
    for j in list(left_b):
        if j not in left_b or not nodes_b[j]:
            continue
        group_a, group_b, nodes = set(), {j}, set(nodes_b[j])
        grown = True
        while grown:
            grown = False
            for i in left_a:
                if i not in group_a and nodes_a[i] & nodes:
                    group_a.add(i)
                    nodes |= nodes_a[i]
                    grown = True
            for k in left_b:
                if k not in group_b and nodes_b[k] & nodes:
                    group_b.add(k)
                    nodes |= nodes_b[k]
                    grown = True
        if group_a:
            rows.append((sorted(group_a), sorted(group_b), "graph nodes"))
            left_a[:] = [i for i in left_a if i not in group_a]
            left_b[:] = [k for k in left_b if k not in group_b]
    pair(lambda s: _parts(s["kernel"])[1], "kernel")
    if len(left_a) == 1 and len(left_b) == 1:
        rows.append((list(left_a), list(left_b), "only one"))
        left_a, left_b = [], []
    rows += [([i], [], "unmatched") for i in left_a] + [([], [j], "unmatched") for j in left_b]
    rows.sort(key=lambda r: (r[0][0] if r[0] else len(sa), r[1][0] if r[1] else -1))
    return [Match([sa[i] for i in a], [sb[j] for j in b], how) for a, b, how in rows]


NAME_WIDTH = 40


def _names(rows):
    """Each dispatch of a side as `#N name`, wrapped whole (wrap_name)."""
    lines = []
    for s in rows:
        lines += [line.rstrip() for line in wrap_name(f"#{s['dispatch']} {s['kernel']}", NAME_WIDTH)]
    return lines or ["-"]


def _group(rows):
    """The figures of a side's dispatches together: seconds summed, rates of the summed requests."""
    if not rows:
        return None
    requests = sum(s["l2_requests"] for s in rows)
    l2_bytes = sum(s["l2_bytes"] for s in rows)
    return {"seconds": sum(s["seconds"] for s in rows), "l2_requests": requests,
            "l2_hit_rate": sum(s["l2_hits"] for s in rows) / requests if requests else 0.0,
            "coalescing_efficiency": (sum(s["bytes_read"] + s["bytes_written"] for s in rows) / l2_bytes
                                      if l2_bytes else 0.0)}


def _limiter(rows):
    """The verdict of a side's longest dispatch, in a few words."""
    if not rows:
        return "-"
    s = max(rows, key=lambda r: r["cycles"])
    if not s["limiter"]:
        return "no verdict"
    return f"{s['limiter']} {s['limiter_share']:.0%}" + (f" (#{s['dispatch']}, the longest)" if len(rows) > 1 else "")


def format_comparison(c):
    """The comparison as text: the two runs, the totals table, the dispatches matched by name."""
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
    matches = match_dispatches(c.a.trace.summary(), c.b.trace.summary())
    w = NAME_WIDTH
    lines.append(f"{'dispatch A':<{w}} {'dispatch B':<{w}} {'A us':>9} {'B us':>9} {'B/A':>6} "
                 f"{'L2 hit A':>8} {'L2 hit B':>8} {'coal. A':>7} {'coal. B':>7}  matched by")
    for m in matches:
        da, db = _group(m.a), _group(m.b)
        names_a, names_b = _names(m.a), _names(m.b)
        lines.append(f"{names_a[0]:<{w}} {names_b[0]:<{w}} {_us(da):>9} {_us(db):>9} "
                     f"{_change(da['seconds'], db['seconds'], 'time') if da and db else '-':>6} "
                     f"{_rate(da, 'l2_hit_rate', 'l2_requests'):>8} {_rate(db, 'l2_hit_rate', 'l2_requests'):>8} "
                     f"{_rate(da, 'coalescing_efficiency', 'l2_requests'):>7} "
                     f"{_rate(db, 'coalescing_efficiency', 'l2_requests'):>7}  {m.how}")
        for k in range(1, max(len(names_a), len(names_b))):
            lines.append(f"{names_a[k] if k < len(names_a) else '':<{w}} {names_b[k] if k < len(names_b) else ''}"
                         .rstrip())
        lines.append(f"{'':<4}limited by: A {_limiter(m.a)}; B {_limiter(m.b)}")
    unmatched_a = [f"#{s['dispatch']}" for m in matches if not m.b for s in m.a]
    unmatched_b = [f"#{s['dispatch']}" for m in matches if not m.a for s in m.b]
    if unmatched_a or unmatched_b:
        lines.append("unmatched: " + "; ".join(
            part for part in (f"A {', '.join(unmatched_a)}" if unmatched_a else "",
                              f"B {', '.join(unmatched_b)}" if unmatched_b else "") if part)
            + " (no dispatch of the other run has its name, graph nodes or kernel)")
    else:
        lines.append("every dispatch matched (how: the last column)")
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
