"""Plots that focus (traces/plots.py): the longest dispatch by default or --dispatch N, the others named in a
note, initializer dispatches folded into one group, legends outside the data, a roofline with a roof per
level, hit-rate plots that tell 'no requests' from 0 %. The figures are inspected before they are saved."""
import matplotlib
import pytest

matplotlib.use("Agg")

from cli_runner import cli  # noqa: E402
from dmlemu.tools import tracefiles  # noqa: E402
from dmlemu.traces import plots  # noqa: E402

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def demo_trace(tmp_path_factory):
    """Five dispatches on the RX 7900 XTX preset: four tiny ones and a 2^20-element CLIP (the demo's)."""
    folder = tmp_path_factory.mktemp("focus")
    status, _, err = cli("demo", "--out", folder, "--no-plots")
    assert status == 0, err
    return tracefiles.load(folder / "trace.npz")


@pytest.fixture
def figures(monkeypatch):
    """The figures the plot functions make, instead of their files."""
    made = []
    monkeypatch.setattr(plots, "_save", lambda fig, path: made.append(fig) or path)
    return made


def _texts(fig):
    return [t.get_text() for ax in fig.axes for t in ax.texts] + [t.get_text() for t in fig.texts]


def test_the_plots_focus_on_the_longest_dispatch_and_name_the_others(demo_trace, figures):
    assert plots.focus_dispatch(demo_trace) == 4
    with pytest.raises(ValueError, match="dispatch 9 is not in this trace"):
        plots.focus_dispatch(demo_trace, 9)
    plots.plot_wave_timeline(demo_trace, "x.png", 4)
    fig = figures[-1]
    assert fig.axes[0].get_title().startswith("Wave groups per SIMD: #4 element_wise_clip_float16_packed_sb")
    note = " ".join(" ".join(_texts(fig)).split())
    assert all(f"#{d} " in note for d in range(4)) and "#4 " not in note
    # one dispatch's groups are each drawn, coloured by launch order (a colour bar, no legend over the data)
    assert fig.axes[0].get_legend() is None and len(fig.axes) == 2
    plots.plot_bandwidth(demo_trace, "x.png", 4)
    mine = next(s for s in demo_trace.summary() if s["dispatch"] == 4)
    assert f"#4: {mine['bandwidth_bytes_per_second'] / 1e9:.1f} GB/s" in figures[-1].axes[0].get_title()
    assert figures[-1].axes[0].get_legend() is None and figures[-1].legends     # the legend outside the axes


def test_the_roofline_has_a_roof_per_level_and_draws_dispatches_without_dram_bytes(demo_trace, figures):
    assert [name for name, _ in plots.roofs(demo_trace)] == ["DRAM", "L2", "Infinity Cache"]
    plots.plot_roofline(demo_trace, "x.png")
    fig = figures[-1]
    labels = [t.get_text() for legend in fig.legends for t in legend.get_texts()]
    assert [label.split(" roof")[0] for label in labels[:3]] == ["DRAM", "L2", "Infinity Cache"]
    assert labels[0] == "DRAM roof 960 GB/s"
    # dispatch 1 moved no DRAM byte (its input was in the caches): it is drawn at its L2 and IC points
    assert demo_trace.summary()[1]["dram_bytes"] == 0
    assert any(label.startswith("#1 element_wise_clip") for label in labels)
    assert any("(focus)" in label and label.startswith("#4 ") for label in labels)


def test_hit_rates_tell_no_requests_from_zero(demo_trace, figures):
    plots.plot_caches(demo_trace, "x.png")
    texts = _texts(figures[-1])
    rows = [s for s in demo_trace.summary() if s["timed"]]
    zero_l2 = sum(1 for s in rows if s["l2_requests"] and s["l2_hits"] == 0)
    zero_ic = sum(1 for s in rows if s["ic_requests"] and s["ic_hits"] == 0)
    no_ic = sum(1 for s in rows if not s["ic_requests"])
    assert texts.count("0 %") == zero_l2 + zero_ic and zero_l2 > 0
    assert texts.count("no req.") == no_ic


def test_initializer_dispatches_fold_into_one_group():
    row = {"dispatch": 0, "kernel": "dml_initialize_copy", "l2_requests": 4, "l2_hits": 1, "ic_requests": 3,
           "ic_hits": 0, "bytes_read": 64, "bytes_written": 64, "cycles": 10, "timed": True}
    rows = [row, dict(row, dispatch=1), dict(row, dispatch=2, kernel="gemm_float32"), dict(row, dispatch=3)]
    folded = plots._fold_initializers(rows)
    assert [r["kernel"] for r in folded] == ["3 initializer dispatches", "gemm_float32"]
    assert folded[0]["l2_requests"] == 12 and folded[0]["l2_hit_rate"] == 0.25


def test_trace_plots_take_a_dispatch(tmp_path):
    path = tmp_path / "g.npz"
    assert cli("graph", "--no-fuse", "--trace", path)[0] == 0
    status, out, err = cli("trace", path, "--plots", tmp_path / "p", "--dispatch", "2")
    assert status == 0, err
    assert (tmp_path / "p" / "wave_timeline.png").read_bytes()[:8] == PNG_SIGNATURE
    status, out, err = cli("trace", path, "--plots", tmp_path / "q", "--dispatch", "7")
    assert status == 2 and err.startswith("dmlemu: error: --dispatch 7: dispatch 7 is not in this trace")
    assert not (tmp_path / "q").exists()
