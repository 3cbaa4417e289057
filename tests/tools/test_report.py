"""`dmlemu report TRACE -o report.html` (tools/report.py): one self-contained HTML page, checked as text and
loaded in headless Chromium (skipped where the `chromium` package is absent)."""
import html
import re

import pytest

from cli_runner import cli
from dmlemu.tools import tracefiles
from dmlemu.traces.verdict import format_verdict, verdict

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def sigmoid_trace(tmp_path_factory):
    """A one-dispatch trace with instruction segments (stall cycles) on an adapter with an Infinity Cache."""
    path = tmp_path_factory.mktemp("report") / "sigmoid.npz"
    status, _, err = cli("run", "SIGMOID", "--dtype", "FLOAT16", "--sizes", "16384", "--adapter", "rx7900xtx",
                         "--trace-detail", "instruction", "--trace", path)
    assert status == 0, err
    return path


@pytest.fixture(scope="module")
def graph_trace(tmp_path_factory):
    """Five dispatches: the built-in example graph, one dispatch per node, on an adapter without an Infinity
    Cache."""
    path = tmp_path_factory.mktemp("report") / "graph.npz"
    status, _, err = cli("graph", "--no-fuse", "--adapter", "rtx3070", "--trace", path)
    assert status == 0, err
    return path


def _page(path):
    return open(path, encoding="utf-8").read()


def test_report_holds_every_section_and_nothing_from_outside(sigmoid_trace, tmp_path):
    out_path = tmp_path / "report.html"
    status, out, err = cli("report", sigmoid_trace, "-o", out_path)
    assert status == 0, err
    assert out == f"wrote {out_path} (self-contained: open it in any browser, no network needed)\n"
    page = _page(out_path)
    for heading in ("Summary and verdicts", "Speed of light: dispatch #0", "Memory chart: dispatch #0",
                    "Instruction hotspots: dispatch #0", "Plots", "Roofline"):
        assert f">{heading}<" in page
    trace = tracefiles.load(sigmoid_trace)
    row = trace.dispatches[0]
    assert html.escape(format_verdict(verdict(row, trace.preset), row, trace.preset)) in page
    # the memory chart's figures are the trace's counters
    assert f"requests {int(row['l2_requests']):,}<" in page and f"lookups {int(row['ic_requests']):,}<" in page
    assert ">Infinity Cache<" in page and ">L0/L1 (coalescer)<" in page and ">DRAM<" in page
    # self-contained: every image is a data URL; no script, stylesheet or link leaves the file
    sources = re.findall(r'(?:src|href)="([^"]*)"', page)
    assert sources and all(s.startswith("data:") for s in sources)
    assert len([s for s in sources if s.startswith("data:image/png;base64,iVBORw0KGgo")]) == 5
    assert "<script" not in page and "@import" not in page
    assert not re.search(r"https?://(?!www\.w3\.org/2000/svg)", page)


def test_the_hotspots_put_the_longest_stall_first(sigmoid_trace, tmp_path):
    from dmlemu.traces.listing import instruction_rows
    cli("report", sigmoid_trace, "-o", tmp_path / "r.html", "--no-plots")
    page = _page(tmp_path / "r.html")
    rows = instruction_rows(tracefiles.load(sigmoid_trace), 0)
    hottest = max(rows, key=lambda r: ((r["issue"] or 0) + (r["stall"] or 0), -r["pc"]))
    section = page.split(">Instruction hotspots")[1]
    first = re.search(r"<tr><td>(\d+)</td>", section)
    assert int(first.group(1)) == hottest["pc"] and hottest["stall"] > 0
    assert ">Plots<" not in page     # --no-plots


def test_focus_and_no_requests(graph_trace, tmp_path):
    out_path = tmp_path / "r.html"
    status, _, err = cli("report", graph_trace, "-o", out_path, "--dispatch", "3", "--no-plots")
    assert status == 0, err
    page = _page(out_path)
    assert ">Memory chart: dispatch #3<" in page and ">Instruction hotspots: dispatch #3<" in page
    assert '<tr class="focus"><td class="">3</td>' in page
    # no Infinity Cache on this adapter: the table says so instead of a 0 % hit rate, the chart has no box
    assert not tracefiles.load(graph_trace).preset.infinity_cache_bytes
    assert "no IC" in page and ">Infinity Cache<" not in page and "IC 0.0 %" not in page


@pytest.mark.parametrize("argv, message", [
    (["--dispatch", "9"], "--dispatch 9: graph.npz holds dispatches 0 to 4"),
    (["-o", "report.txt"], "the report is one HTML file"),
])
def test_bad_arguments_are_one_sentence(graph_trace, tmp_path, argv, message):
    args = ["report", graph_trace, "-o", tmp_path / "r.html", *argv]
    if argv[0] == "-o":
        args = ["report", graph_trace, "-o", tmp_path / argv[1]]
    status, out, err = cli(*args)
    assert status == 2 and out == "" and err.startswith("dmlemu: error: ") and message in err
    assert err.count("\n") == 1


def test_chromium_loads_the_report_without_a_console_error(sigmoid_trace, tmp_path):
    import headless_chromium
    if headless_chromium.CHROMIUM is None:
        pytest.skip("no chromium (Debian package `chromium`) on this machine")
    # the check can fail: a page that logs an error and asks the network is caught
    bad = tmp_path / "bad.html"
    bad.write_text('<html><body><script>console.error("boom")</script><img src="http://example.invalid/x.png">'
                   "</body></html>")
    seen = headless_chromium.load(bad.as_uri())
    assert seen["console"] == [("error", "boom")] and seen["log"]
    report = tmp_path / "report.html"
    assert cli("report", sigmoid_trace, "-o", report)[0] == 0
    shot = tmp_path / "report.png"
    seen = headless_chromium.load(report.as_uri(), screenshot=shot)
    assert seen["console"] == [] and seen["exceptions"] == [] and seen["log"] == []
    assert all(url == report.as_uri() or url.startswith("data:") for url in seen["requests"])
    data = shot.read_bytes()
    assert data[:8] == PNG_SIGNATURE and len(data) > 50_000
