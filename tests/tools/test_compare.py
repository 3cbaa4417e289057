"""`dmlemu compare A B` (tools/compare.py): saved traces and run specs side by side, and its plot."""
import pytest

from cli_runner import cli
from dmlemu.tools.cli import run_spec_trace
from dmlemu.tools.compare import NAME_WIDTH, load_side, match_dispatches, totals
from dmlemu.traces.trace import wrap_name

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
    # one row: the fused dispatch against the five dispatches of its nodes, by graph node, names whole
    row = next(i for i, line in enumerate(out.splitlines()) if line.endswith("graph nodes"))
    lines = out.splitlines()[row:row + 10]
    b_side = "".join(line[NAME_WIDTH + 1:2 * NAME_WIDTH + 1].strip() for line in lines[:3])
    assert b_side.replace(" ", "") == "#0scale+floor+relu+clip+select:fused_identity_threshold_activation_relu_clip_if"
    assert "#4 select: element_wise_if_float32_" in out and "every dispatch matched" in out
    ratio = b.totals["time_us"] / a.totals["time_us"]
    assert f"{ratio:.2f}x" in lines[0].split()              # the five summed against the fused one


def _summary(dispatch, name, us=1.0):
    return {"dispatch": dispatch, "kernel": name, "seconds": us * 1e-6, "cycles": int(us * 1000)}


def test_dispatches_match_by_name_then_graph_nodes_then_kernel():
    a = [_summary(0, "init: initialize"), _summary(1, "x: element_wise_add_float32_packed"),
         _summary(2, "y: activation_relu_float32_packed"), _summary(3, "z: element_wise_clip_float32_packed"),
         _summary(4, "lonely_kernel")]
    b = [_summary(0, "init: initialize"), _summary(1, "x+y: fused_add_relu"),
         _summary(2, "w: element_wise_clip_float32_packed"), _summary(3, "other_kernel"),
         _summary(4, "another")]
    rows = [([s["dispatch"] for s in m.a], [s["dispatch"] for s in m.b], m.how) for m in match_dispatches(a, b)]
    assert rows == [([0], [0], "name"), ([1, 2], [1], "graph nodes"), ([3], [2], "kernel"),
                    ([4], [], "unmatched"), ([], [3], "unmatched"), ([], [4], "unmatched")]
    # the one dispatch left on each side pairs, whatever its name
    assert [m.how for m in match_dispatches(a[4:], b[3:4])] == ["only one"]
    # repeated names pair in order
    twice = [_summary(0, "k"), _summary(1, "k")]
    assert [([s["dispatch"] for s in m.a], [s["dispatch"] for s in m.b]) for m in match_dispatches(twice, twice)] == \
        [([0], [0]), ([1], [1])]


@pytest.mark.parametrize("name", ["short", "scale+floor+relu+clip+select: fused_identity_threshold_activation_relu_clip_if",
                                  "x" * 100, "#12 a_b_c_d_e_f_g_h_i_j_k_l_m_n_o_p_q_r_s_t_u_v_w_x_y_z"])
def test_names_wrap_whole(name):
    for width in (NAME_WIDTH, 36, 7):
        lines = wrap_name(name, width)
        assert "".join(lines) == name and all(len(line) <= width for line in lines)


def test_unmatched_dispatches_are_named(tmp_path):
    status, _, err = cli("graph", "--no-fuse", "--trace", tmp_path / "unfused.npz")
    assert status == 0, err
    status, out, err = cli("compare", tmp_path / "unfused.npz", "IDENTITY --sizes 64 64")
    assert status == 0, err
    assert out.splitlines()[-1] == ("unmatched: A #0, #1, #2, #3, #4; B #0 (no dispatch of the other run has its "
                                    "name, graph nodes or kernel)")
