"""`dmlemu compare A B` (tools/compare.py): saved traces and run specs side by side, and its plot."""
import pytest

from cli_runner import cli
from dmlemu.tools.cli import run_spec_trace
from dmlemu.tools.compare import load_side, totals

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
PACKED = "IDENTITY --sizes 64 64"
TRANSPOSED = "IDENTITY --sizes 64 64 --strides 1 64"


def _row(out, label):
    line = next(line for line in out.splitlines() if line.startswith(label))
    return line[len(label):].split()


def test_packed_against_transposed_from_a_trace_and_a_spec(tmp_path):
    status, _, err = cli("run", *PACKED.split(), "--trace", tmp_path / "packed.npz")
    assert status == 0, err
    status, out, err = cli("compare", tmp_path / "packed.npz", TRANSPOSED, "--plots", tmp_path / "plots")
    assert status == 0, err
    a, b = load_side(tmp_path / "packed.npz"), load_side(TRANSPOSED, "B", run_spec_trace)
    assert out.startswith(f"A: packed.npz  ({a.totals['dispatches']} timed dispatch(es) on AMD Radeon RX 7900 XTX "
                          f"(emulated))\nB: {TRANSPOSED}  ({b.totals['dispatches']} timed dispatch(es)")
    # the same bytes asked for; the transposed read touches many more sectors, so coalescing falls
    assert _row(out, "bytes read") == [f"{a.totals['bytes_read']:,}"] * 2 + ["1.00x"]
    ratio = b.totals["l2_bytes"] / a.totals["l2_bytes"]
    assert ratio > 2 and _row(out, "L2 bytes (requests)")[-1] == f"{ratio:.2f}x"
    coalescing = _row(out, "coalescing efficiency")
    assert float(coalescing[1].rstrip("%")) < float(coalescing[0].rstrip("%"))
    assert coalescing[2:] == [f"{100 * (b.totals['coalescing'] - a.totals['coalescing']):+.1f}", "pt"]
    assert _row(out, "time (us)")[-1] == f"{b.totals['time_us'] / a.totals['time_us']:.2f}x"
    assert "element_wise_identity_float32_packed" in out
    assert f"wrote {tmp_path / 'plots' / 'compare.png'}" in out
    assert open(tmp_path / "plots" / "compare.png", "rb").read(8) == PNG_SIGNATURE


def test_totals_sum_the_timed_dispatches(tmp_path):
    side = load_side("CLIP --sizes 32 32 --adapter teaching", "A", run_spec_trace)
    summary = [s for s in side.trace.summary() if s["timed"]]
    t = totals(side.trace)
    assert t["dispatches"] == len(summary) and t["cycles"] == sum(s["cycles"] for s in summary)
    assert t["l2_hit_rate"] == sum(s["l2_hits"] for s in summary) / sum(s["l2_requests"] for s in summary)
    assert t["ic_hit_rate"] is None      # the teaching GPU has no Infinity Cache: '-' in the table
    assert t["pct_peak"] == pytest.approx(100 * t["gbps"] * 1e9 / side.trace.preset.dram_bytes_per_second)


def test_two_adapters_side_by_side():
    status, out, err = cli("compare", "IDENTITY --sizes 1024 --adapter teaching", "run IDENTITY --sizes 1024 "
                           "--adapter rtx3070")
    assert status == 0, err
    assert "on dmlemu Teaching GPU (2 CUs, wave8))" in out and "on NVIDIA GeForce RTX 3070 (emulated))" in out
    assert _row(out, "IC hit rate") == ["-", "-", "-"]


@pytest.mark.parametrize("a, message", [
    ("IDENTITY --sizes", "A 'IDENTITY --sizes' is neither a .npz trace nor a run spec (the arguments of "
                         "`dmlemu run`, e.g. 'CLIP --sizes 1024 1024'): argument --sizes: expected at least one"),
    ("CLIP --sizes 4 --bogus", "unrecognized arguments: --bogus"),
    ("CLIP --sizes 4 'x", "is neither a .npz trace nor a run spec (No closing quotation)"),
    ("missing.npz", "missing.npz: no such file"),
    ("CLIP --sizes 0", "Sizes"),
])
def test_bad_sides_are_one_error_line(a, message):
    status, out, err = cli("compare", a, "IDENTITY --sizes 4")
    assert status == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and err.startswith("dmlemu: error: ") and message in err, err


def test_a_graph_fused_against_unfused_from_two_saved_traces(tmp_path):
    """`dmlemu graph --no-fuse --trace` and `dmlemu graph --trace` of the built-in example, compared: one fused
    dispatch against five, the intermediates' bytes gone, the same DRAM reads of the graph's inputs."""
    for name, flags in (("unfused.npz", ("--no-fuse",)), ("fused.npz", ())):
        status, out, err = cli("graph", *flags, "--trace", tmp_path / name)
        assert status == 0 and f"wrote {tmp_path / name}" in out, err
    status, out, err = cli("compare", tmp_path / "unfused.npz", tmp_path / "fused.npz")
    assert status == 0, err
    a, b = load_side(tmp_path / "unfused.npz"), load_side(tmp_path / "fused.npz")
    assert (a.totals["dispatches"], b.totals["dispatches"]) == (5, 1)
    assert _row(out, "dispatches") == ["5", "1", "0.20x"]
    assert b.totals["bytes_read"] * 5 == a.totals["bytes_read"]          # x once instead of once per node
    assert b.totals["time_us"] < 0.5 * a.totals["time_us"]
    assert "scale+floor+relu+clip+select: fused_id" in out   # the fused dispatch by its nodes (cut to the column)
