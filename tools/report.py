"""`dmlemu report TRACE.npz -o report.html`: one self-contained HTML page a performance engineer can
open anywhere (a browser from a file, an e-mail attachment): no server, no network, no script. The
styles are inline CSS, the charts inline SVG, the plots PNG files embedded as base64 data URLs.

What it holds, in order (the focused dispatch is the timed one with the most cycles, or --dispatch N):

    summary          the trace (adapter, detail, dispatches, modelled time) and one row per dispatch
                     (traces/trace.py's summary(); names whole, wrapped), with each dispatch's verdict
                     line (traces/verdict.py)
    speed of light   the focused dispatch's shares of time per unit (DRAM, L2, Infinity Cache, LDS where used, issue,
                     waiting, empty) as bars against the verdict's BOUND, and its occupancy limiter
    memory chart     the focused dispatch's traffic per level, drawn as Nsight Compute's memory workload
                     chart: the kernel's wave memory instructions and lane bytes, the coalescer (the CU's
                     vector cache front end: L0/L1, which the model does not keep data in), the L2
                     (requests, hits, misses), the Infinity Cache where the adapter has one (lookups,
                     hits, write-backs taken) and DRAM (reads, write-backs, % of peak); then the same
                     figures for every timed dispatch as a table
    hotspots         the focused dispatch's hottest instructions (traces/listing.py: issue plus stall
                     cycles), hottest first
    plots            the roofline and the other plots of traces/plots.py (plot_all)

Everything is read from the trace's columns; nothing is recomputed from names.
"""
import base64
import html
import os
import tempfile

from dmlemu.tools.operators import UsageError

__all__ = ["report_html", "write_report", "HOTSPOTS"]

HOTSPOTS = 15          # instructions in the hotspot table

_CSS = """
body { font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 24px; color: #1b1b1b;
       max-width: 1400px; }
h1 { font-size: 22px; margin-bottom: 4px; } h2 { font-size: 18px; margin-top: 32px; border-bottom: 1px solid #ccc; }
p.meta { color: #555; margin-top: 0; }
table { border-collapse: collapse; font-size: 12px; margin: 8px 0; }
th, td { border: 1px solid #ddd; padding: 3px 6px; text-align: right; vertical-align: top; }
th { background: #f2f4f7; } td.name, th.name { text-align: left; max-width: 320px; overflow-wrap: anywhere; }
td.code { text-align: left; font-family: Consolas, Menlo, monospace; white-space: pre; }
tr.focus td { background: #fff6d6; }
ul.verdicts { font-size: 12px; font-family: Consolas, Menlo, monospace; padding-left: 18px; }
ul.verdicts li { margin: 3px 0; overflow-wrap: anywhere; }
.bar { display: inline-block; height: 10px; background: #1f77b4; vertical-align: middle; }
.bar.hot { background: #d62728; } .bar.stall { background: #ff7f0e; }
.sol td.label { text-align: left; width: 200px; } .sol td.track { width: 420px; text-align: left; }
.track-box { position: relative; height: 14px; background: #eef1f5; width: 400px; }
.track-box .fill { position: absolute; left: 0; top: 0; bottom: 0; background: #1f77b4; }
.track-box .fill.limiter { background: #d62728; }
.track-box .mark { position: absolute; top: -2px; bottom: -2px; width: 2px; background: #333; }
img.plot { max-width: 100%; border: 1px solid #ddd; margin: 6px 0 18px 0; }
.note { color: #555; font-size: 12px; }
"""


# ---- small helpers -------------------------------------------------------------------------------------
def _e(value):
    return html.escape(str(value), quote=True)


def _num(value):
    return f"{value:,}" if isinstance(value, int) else f"{value:,.2f}"


def _pct(fraction, requests=1):
    return f"{100.0 * fraction:.1f} %" if requests else "no requests"


def _bytes(n):
    for factor, unit in ((1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")):
        if n >= factor:
            return f"{n / factor:.2f} {unit}"
    return f"{n:,} B"


def _table(head, rows, classes=None, row_classes=None):
    """An HTML table; head: column titles; rows: lists of cell texts (escaped here); classes: a CSS class
    per column (or None)."""
    classes = classes or [""] * len(head)
    out = ["<table><tr>" + "".join(f'<th class="{c}">{_e(h)}</th>' for h, c in zip(head, classes)) + "</tr>"]
    for i, row in enumerate(rows):
        rc = f' class="{row_classes[i]}"' if row_classes and row_classes[i] else ""
        out.append(f"<tr{rc}>" + "".join(f'<td class="{c}">{_e(v)}</td>' for v, c in zip(row, classes)) + "</tr>")
    out.append("</table>")
    return "\n".join(out)


# ---- sections ------------------------------------------------------------------------------------------
def _summary_section(trace, rows, focus):
    from dmlemu.traces.verdict import format_verdict, verdict
    preset = trace.preset
    head = ["#", "dispatch", "timed", "cycles", "time us", "read B", "written B", "DRAM GB/s", "% peak",
            "waves", "occupancy", "L2 hit", "IC hit", "coalescing", "limited by"]
    classes = ["", "name"] + [""] * 12 + ["name"]
    cells = []
    for s in rows:
        cells.append([s["dispatch"], s["kernel"], "yes" if s["timed"] else "no", _num(s["cycles"]),
                      f"{s['seconds'] * 1e6:.2f}", _num(s["bytes_read"]), _num(s["bytes_written"]),
                      f"{s['bandwidth_bytes_per_second'] / 1e9:.1f}", f"{s['percent_of_peak']:.1f}",
                      _num(s["waves"]), f"{s['occupancy']:.2f}", _pct(s["l2_hit_rate"], s["l2_requests"]),
                      _pct(s["ic_hit_rate"], s["ic_requests"]) if preset.infinity_cache_bytes else "no IC",
                      _pct(s["coalescing_efficiency"], s["l2_requests"]),
                      (f"{s['limiter']}, {s['limiter_share']:.0%}" if s["limiter"] else "-")])
    marks = ["focus" if s["dispatch"] == focus else "" for s in rows]
    lines = [format_verdict(verdict(d, preset), d, preset) for d in trace.dispatches]
    return ("<h2>Summary and verdicts</h2>\n" + _table(head, cells, classes, marks) +
            '<p class="note">The highlighted row is the focused dispatch (the sections below). Verdicts '
            "(traces/verdict.py): the unit that limited each dispatch and the share of its time it explains, "
            "the other units' shares, the occupancy and what limited it.</p>\n"
            '<ul class="verdicts">' + "".join(f"<li>{_e(line)}</li>" for line in lines) + "</ul>")


def _speed_of_light(trace, row):
    from dmlemu.traces.verdict import BOUND, verdict
    preset = trace.preset
    v = verdict(row, preset)
    title = f"<h2>Speed of light: dispatch #{int(row['id'])}</h2>\n"
    if not v.limiter:
        return title + f"<p>{_e(v.note or 'no verdict')}</p>"
    labels = [("dram", "DRAM bandwidth"), ("l2", "L2 bandwidth")]
    if preset.infinity_cache_bytes:
        labels.append(("ic", "Infinity Cache bandwidth"))
    if v.shares["lds"]:
        labels.append(("lds", "LDS bandwidth"))
    labels += [("issue", "issue (SIMD issue ports)"), ("latency", "waiting (resident, no issue)"),
               ("idle", "empty (no wave resident)")]
    key_of = {"DRAM bandwidth": "dram", "L2 bandwidth": "l2", "Infinity Cache bandwidth": "ic",
              "LDS bandwidth": "lds",
              "latency at this occupancy": "latency", "launch / too few waves": "idle"}
    limiter_key = key_of.get(v.limiter, "issue")
    out = [title, f"<p><b>{_e(v.limiter)}</b>: {v.share:.0%} of {int(row['end']) - int(row['start']):,} cycles. "
                  f"Occupancy {v.occupancy} of {preset.waves_per_simd} waves per SIMD, limited by "
                  f"<b>{_e(v.occupancy_limiter)}</b>.</p>", '<table class="sol">']
    for key, label in labels:
        share = v.shares[key]
        fill = "fill limiter" if key == limiter_key else "fill"
        out.append(f'<tr><td class="label">{_e(label)}</td><td class="track"><div class="track-box">'
                   f'<div class="{fill}" style="width:{100 * share:.1f}%"></div>'
                   f'<div class="mark" style="left:{100 * BOUND:.0f}%"></div></div></td>'
                   f"<td>{100 * share:.1f} %</td></tr>")
    out.append("</table>")
    out.append(f'<p class="note">Shares of the dispatch\'s time each unit was busy (traces/verdict.py). The line '
               f"at {BOUND:.0%}: a throughput unit busy at least that long is the limiter; when none is, the "
               "larger of waiting and empty is. Red: the limiter.</p>")
    return "\n".join(out)


def _level_figures(trace, row):
    """The memory chart's figures of one dispatches row (sectors turned into bytes)."""
    sector = int(trace.preset.sector_bytes)
    m = trace.tables["mem_instructions"]
    m = m[m["dispatch"] == int(row["id"])]
    reads, writes = m[~m["write"]], m[m["write"]]
    f = {
        "wave_reads": int(reads["waves"].sum()), "wave_writes": int(writes["waves"].sum()),
        "have_instructions": bool(len(m)),
        "lane_read_bytes": int(row["bytes_read"]), "lane_write_bytes": int(row["bytes_written"]),
        "l2_requests": int(row["l2_requests"]), "l2_lines": int(row["l2_lines"]), "l2_hits": int(row["l2_hits"]),
        "read_sectors": int(reads["sectors"].sum()), "write_sectors": int(writes["sectors"].sum()),
        "ic_requests": int(row["ic_requests"]), "ic_hits": int(row["ic_hits"]),
        "ic_write_sectors": int(row["ic_write_sectors"]),
        "dram_read_sectors": int(row["dram_read_sectors"]), "dram_write_sectors": int(row["dram_write_sectors"]),
        "sector": sector,
    }
    f["l2_misses"] = f["l2_requests"] - f["l2_hits"]
    return f


def _svg_box(x, y, w, h, title, lines, color):
    out = [f'<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="6" fill="{color}" stroke="#555"/>',
           f'<text x="{x + w / 2}" y="{y + 20}" text-anchor="middle" font-weight="bold" font-size="13">'
           f'{_e(title)}</text>']
    for i, line in enumerate(lines):
        out.append(f'<text x="{x + 8}" y="{y + 42 + 16 * i}" font-size="11">{_e(line)}</text>')
    return out


def _svg_arrow(x0, x1, y, label_top, label_bottom, backwards=False):
    a, b = (x1, x0) if backwards else (x0, x1)
    head = -8 if not backwards else 8
    out = [f'<line x1="{a}" y1="{y}" x2="{b}" y2="{y}" stroke="#333" stroke-width="2"/>',
           f'<polygon points="{b},{y} {b + head},{y - 5} {b + head},{y + 5}" fill="#333"/>']
    mid = (x0 + x1) / 2
    if label_top:
        out.append(f'<text x="{mid}" y="{y - 7}" text-anchor="middle" font-size="10">{_e(label_top)}</text>')
    if label_bottom:
        out.append(f'<text x="{mid}" y="{y + 15}" text-anchor="middle" font-size="10">{_e(label_bottom)}</text>')
    return out


def memory_chart_svg(trace, row):
    """Nsight Compute's memory workload chart for one dispatch, as an SVG element (text)."""
    preset = trace.preset
    f = _level_figures(trace, row)
    sector = f["sector"]
    has_ic = bool(preset.infinity_cache_bytes)
    seconds = (int(row["end"]) - int(row["start"])) / preset.clock_hz
    dram_bytes = (f["dram_read_sectors"] + f["dram_write_sectors"]) * sector
    boxes = [
        ("Kernel", ["wave memory instructions:",
                    f"  {f['wave_reads']:,} reads, {f['wave_writes']:,} writes" if f["have_instructions"]
                    else "  - (not in this trace)",
                    f"lane bytes read {_bytes(f['lane_read_bytes'])}",
                    f"lane bytes written {_bytes(f['lane_write_bytes'])}"],
         "#e8f0fb"),
        ("L0/L1 (coalescer)", [f"sectors out {f['l2_requests']:,}",
                               f"  of {sector} B: {_bytes(f['l2_requests'] * sector)}",
                               f"cache lines {f['l2_lines']:,}",
                               "coalescing " + _pct((f["lane_read_bytes"] + f["lane_write_bytes"]) /
                                                    (f["l2_requests"] * sector) if f["l2_requests"] else 0,
                                                    f["l2_requests"]),
                               "no data kept (model)"], "#eef7ee"),
        ("L2", [f"requests {f['l2_requests']:,}", f"hits {f['l2_hits']:,}", f"misses {f['l2_misses']:,}",
                "hit rate " + _pct(f["l2_hits"] / f["l2_requests"] if f["l2_requests"] else 0, f["l2_requests"]),
                f"capacity {_bytes(preset.l2_bytes)}"], "#fdf3e3"),
    ]
    if has_ic:
        boxes.append(("Infinity Cache", [f"lookups {f['ic_requests']:,}", f"hits {f['ic_hits']:,}",
                                         "hit rate " + _pct(f["ic_hits"] / f["ic_requests"] if f["ic_requests"] else 0,
                                                            f["ic_requests"]),
                                         f"write-backs in {f['ic_write_sectors']:,}",
                                         f"capacity {_bytes(preset.infinity_cache_bytes)}"], "#f6ecf8"))
    boxes.append(("DRAM", [f"read {_bytes(f['dram_read_sectors'] * sector)}",
                           f"written back {_bytes(f['dram_write_sectors'] * sector)}",
                           f"{dram_bytes / seconds / 1e9:.1f} GB/s" if seconds else "untimed",
                           (f"{100 * dram_bytes / seconds / preset.dram_bytes_per_second:.1f} % of peak"
                            if seconds else ""),
                           f"peak {preset.dram_bytes_per_second / 1e9:g} GB/s"], "#fbe9e9"))
    w, h, gap, y = 170, 130, 80, 40
    width = len(boxes) * w + (len(boxes) - 1) * gap + 20
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{h + 70}" '
           f'viewBox="0 0 {width} {h + 70}" role="img" aria-label="memory chart">',
           '<style>text { font-family: Helvetica, Arial, sans-serif; fill: #1b1b1b; }</style>']
    xs = [10 + i * (w + gap) for i in range(len(boxes))]
    for x, (title, lines, color) in zip(xs, boxes):
        out += _svg_box(x, y, w, h, title, lines, color)
    links = [  # (forward: read requests or data asked, backward: what comes back or goes down)
        (f"{f['wave_reads'] + f['wave_writes']:,} wave req." if f["have_instructions"] else "wave requests",
         _bytes(f["lane_read_bytes"] + f["lane_write_bytes"])),
        (f"{f['read_sectors']:,} rd sectors" if f["have_instructions"] else f"{f['l2_requests']:,} sectors",
         f"{f['write_sectors']:,} wr sectors" if f["have_instructions"] else ""),
    ]
    if has_ic:
        links.append((f"{f['ic_requests']:,} lookups", f"{f['ic_write_sectors']:,} write-backs"))
        links.append((f"{f['dram_read_sectors']:,} rd sectors", f"{f['dram_write_sectors']:,} wr sectors"))
    else:
        links.append((f"{f['dram_read_sectors']:,} rd sectors", f"{f['dram_write_sectors']:,} wr sectors"))
    for i, (top, bottom) in enumerate(links):
        out += _svg_arrow(xs[i] + w + 4, xs[i + 1] - 4, y + h / 2, top, bottom)
    out.append(f'<text x="10" y="{y + h + 26}" font-size="11">Sectors are {sector} bytes. Arrows: requests and '
               "sectors passed down a level (reads above, writes and write-backs below the arrow).</text>")
    out.append("</svg>")
    return "\n".join(out)


def _memory_section(trace, row, rows):
    preset = trace.preset
    out = [f"<h2>Memory chart: dispatch #{int(row['id'])}</h2>", memory_chart_svg(trace, row)]
    head = ["#", "dispatch", "lane B", "L2 requests", "L2 hits", "L2 hit", "IC lookups", "IC hits", "IC hit",
            "DRAM read B", "DRAM write-back B", "% DRAM peak", "coalescing"]
    cells = []
    for s in rows:
        if not s["timed"]:
            continue
        cells.append([s["dispatch"], s["kernel"], _num(s["bytes_read"] + s["bytes_written"]), _num(s["l2_requests"]),
                      _num(s["l2_hits"]), _pct(s["l2_hit_rate"], s["l2_requests"]),
                      _num(s["ic_requests"]) if preset.infinity_cache_bytes else "no IC",
                      _num(s["ic_hits"]) if preset.infinity_cache_bytes else "-",
                      _pct(s["ic_hit_rate"], s["ic_requests"]) if preset.infinity_cache_bytes else "-",
                      _num(s["dram_read_bytes"]), _num(s["dram_write_bytes"]), f"{s['percent_of_peak']:.1f}",
                      _pct(s["coalescing_efficiency"], s["l2_requests"])])
    out.append("<p>Every timed dispatch, level by level ('no requests' where a level saw none, which is not a "
               "0 % hit rate):</p>")
    out.append(_table(head, cells, ["", "name"] + [""] * 11) if cells else "<p>No timed dispatch.</p>")
    return "\n".join(out)


def _hotspot_section(trace, dispatch):
    from dmlemu.traces.listing import STALL_DETAILS, instruction_rows
    rows = instruction_rows(trace, dispatch)
    out = [f"<h2>Instruction hotspots: dispatch #{dispatch}</h2>"]
    if not rows:
        return out[0] + "\n<p>This trace holds no kernel listing for the dispatch.</p>"
    cost = [(r["issue"] or 0) + (r["stall"] or 0) for r in rows]
    order = sorted(range(len(rows)), key=lambda i: (-cost[i], i))[:HOTSPOTS]
    top = max(cost) or 1
    body = ["<table><tr><th>pc</th><th>waves</th><th>issue</th><th>stall</th><th>issue + stall</th><th>sect/req</th>"
            "<th>L2 hit</th><th>IC hit</th><th>coal.</th><th class=\"name\">instruction</th></tr>"]

    def cell(v, spec=","):
        return "-" if v is None else format(v, spec)

    def rate(v):
        return "-" if v is None else f"{100 * v:.1f} %"
    for i in order:
        r = rows[i]
        bar_issue = 160 * (r["issue"] or 0) / top
        bar_stall = 160 * (r["stall"] or 0) / top
        body.append(f"<tr><td>{r['pc']}</td><td>{cell(r['waves'])}</td><td>{cell(r['issue'])}</td>"
                    f"<td>{cell(r['stall'])}</td><td class=\"name\">"
                    f"<span class=\"bar\" style=\"width:{bar_issue:.0f}px\"></span>"
                    f"<span class=\"bar stall\" style=\"width:{bar_stall:.0f}px\"></span> {cost[i]:,}</td>"
                    f"<td>{cell(r['sectors_per_request'], '.2f')}</td><td>{rate(r['l2_hit_rate'])}</td>"
                    f"<td>{rate(r['ic_hit_rate'])}</td><td>{rate(r['coalescing'])}</td>"
                    f"<td class=\"code\">{_e(r['instruction'])}</td></tr>")
    body.append("</table>")
    out += body
    note = ("issue: waves x issue cycles per wave (blue); stall: cycles the wave groups waited there (orange), "
            "summed over the groups (traces/listing.py).")
    if trace.detail not in STALL_DETAILS:
        note += (f" This trace (detail '{trace.detail}') has no instruction segments, so no stall cycles: capture "
                 "with `dmlemu run ... --trace-detail instruction --trace FILE.npz`.")
    out.append(f'<p class="note">{_e(note)} The {len(order)} hottest of {len(rows)} instructions.</p>')
    return "\n".join(out)


_PLOT_TITLES = {"roofline.png": "Roofline", "wave_timeline.png": "Wave groups per SIMD",
                "bandwidth.png": "DRAM bandwidth over time", "occupancy.png": "Occupancy over time",
                "caches.png": "Hit rates and coalescing per dispatch"}


def _plots_section(trace, dispatch):
    import matplotlib
    matplotlib.use("Agg")
    from dmlemu.traces import plots
    out = ["<h2>Plots</h2>"]
    with tempfile.TemporaryDirectory(prefix="dmlemu-report-") as folder:
        paths = plots.plot_all(trace, folder, dispatch=dispatch)
        order = sorted(paths, key=lambda p: 0 if os.path.basename(p) == "roofline.png" else 1)
        for path in order:
            name = os.path.basename(path)
            with open(path, "rb") as f:
                data = base64.b64encode(f.read()).decode("ascii")
            title = _PLOT_TITLES.get(name, name)
            out.append(f"<h3>{_e(title)}</h3>")
            out.append(f'<img class="plot" alt="{_e(title)}" src="data:image/png;base64,{data}">')
    return "\n".join(out)


# ---- the page ------------------------------------------------------------------------------------------
def report_html(trace, source="trace", dispatch=None, plots=True):
    """The report page of `trace` (source: the file name shown); dispatch: the focused dispatch (None:
    the timed one with the most cycles); UsageError for a dispatch the trace does not hold."""
    from dmlemu.traces.listing import default_dispatch
    ids = [int(i) for i in trace.dispatches["id"]]
    if not ids:
        raise UsageError(f"{source} holds no dispatch: there is nothing to report")
    if dispatch is None:
        dispatch = default_dispatch(trace)
    elif dispatch not in ids:
        raise UsageError(f"--dispatch {dispatch}: {source} holds dispatches {ids[0]} to {ids[-1]}")
    row = trace.dispatches[ids.index(dispatch)]
    rows = trace.summary()
    timed = [s for s in rows if s["timed"]]
    total_us = sum(s["seconds"] for s in timed) * 1e6
    p = trace.preset
    parts = [
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        '<link rel="icon" href="data:,">',
        f"<title>dmlemu report: {_e(source)}</title>", f"<style>{_CSS}</style></head><body>",
        f"<h1>dmlemu report: {_e(source)}</h1>",
        f'<p class="meta">{_e(p.description)}: {p.compute_units} CUs x {p.simds_per_cu} SIMDs, '
        f"{p.clock_hz / 1e9:g} GHz, DRAM {p.dram_bytes_per_second / 1e9:g} GB/s, L2 {_bytes(p.l2_bytes)}"
        + (f", Infinity Cache {_bytes(p.infinity_cache_bytes)}" if p.infinity_cache_bytes else "") +
        f". {len(ids)} dispatch(es), {len(timed)} timed, {total_us:,.2f} us of modelled dispatch time; "
        f"trace detail '{_e(trace.detail)}', wave width {trace.wave_width}. Focused: dispatch #{dispatch} "
        f"{_e(str(row['name']))}.</p>",
        _summary_section(trace, rows, dispatch),
        _speed_of_light(trace, row),
        _memory_section(trace, row, rows),
        _hotspot_section(trace, dispatch),
    ]
    if plots:
        parts.append(_plots_section(trace, dispatch))
    parts.append('<p class="note">Written by <code>dmlemu report</code> (tools/report.py). Everything in this page is '
                 "modelled by dmlemu's timing model, not measured on a GPU (docs/FIDELITY.md).</p>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def write_report(trace, path, source=None, dispatch=None, plots=True):
    """Write the report of `trace` to `path` (one HTML file); returns path."""
    text = report_html(trace, source or os.path.basename(str(path)), dispatch, plots)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return path
