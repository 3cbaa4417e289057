"""`dmlemu sweep --graph FILE.json` and `dmlemu sweep --onnx MODEL.onnx` (tools/sweep.py): a whole workload per
adapter and --set combination, its timed dispatches summed as `dmlemu compare` sums them."""
import csv
import json

import pytest

from cli_runner import cli
from dmlemu.tools.compare import totals
from dmlemu.tools.graph_view import EXAMPLE, execute_graph
from dmlemu.tools.sweep import WorkloadPoint, run_point
from dmlemu.tools.operators import preset_for

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def graph_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("sweep") / "example.json"
    path.write_text(json.dumps(EXAMPLE))
    return path


def test_a_graph_sweep_halves_the_bandwidth(graph_file, tmp_path):
    status, out, err = cli("sweep", "--graph", graph_file, "--serial", "--set", "dram_bytes_per_second=480G,960G",
                           "--out", tmp_path)
    assert status == 0, err
    rows = list(csv.DictReader(open(tmp_path / "results.csv")))
    assert list(rows[0])[:4] == ["adapter", "workload", "dispatches", "dram_bytes_per_second"]
    assert [r["dram_bytes_per_second"] for r in rows] == ["480000000000", "960000000000"]
    assert {r["workload"] for r in rows} == {"example.json"} and {r["dispatches"] for r in rows} == {"1"}
    slow, fast = (int(r["cycles"]) for r in rows)
    assert slow > fast
    # a point is the graph's own run: its row is what `dmlemu compare` sums from the same run's trace
    preset = preset_for(None)
    trace = execute_graph(EXAMPLE, adapter=preset, trace="dispatch")[2]
    assert int(rows[1]["cycles"]) == totals(trace)["cycles"]
    assert (tmp_path / "workload.png").read_bytes()[:8] == PNG_SIGNATURE
    assert f"wrote {tmp_path / 'workload.png'}" in out


def test_an_onnx_sweep_runs_the_model_on_each_adapter(tmp_path):
    onnx = pytest.importorskip("onnx")
    from dmlemu.onnx import models
    path = tmp_path / "mlp.onnx"
    onnx.save(models.gemm_mlp(), str(path))
    row = run_point(WorkloadPoint("rtx3070", "onnx", str(path)))
    assert row["workload"] == "mlp.onnx" and row["dispatches"] == 3 and row["cycles"] > 0
    status, out, err = cli("sweep", "--onnx", path, "--serial", "--adapters", "rx7900xtx", "rtx3070", "--out",
                           tmp_path, "--no-plots")
    assert status == 0, err
    rows = list(csv.DictReader(open(tmp_path / "results.csv")))
    assert [r["adapter"] for r in rows] == ["rx7900xtx", "rtx3070"]
    assert int(rows[1]["cycles"]) == row["cycles"]


@pytest.mark.parametrize("argv, message", [
    (["--sizes", "64"], "--sizes chooses operator points; a --graph or --onnx sweep runs the whole workload"),
    (["--onnx", "x.onnx"], "--graph and --onnx each give the workload to sweep; give one"),
    (["--set", "compute_units=0"], "adapter rx7900xtx with compute_units=0: "),
])
def test_bad_workload_sweeps_are_one_error_line(graph_file, tmp_path, argv, message):
    status, out, err = cli("sweep", "--graph", graph_file, "--serial", "--out", tmp_path, *argv)
    assert status == 2 and out == "" and message in err and err.count("\n") == 1


def test_a_graph_file_that_is_not_a_graph_is_refused_before_any_point(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]")
    status, out, err = cli("sweep", "--graph", bad, "--serial", "--out", tmp_path / "out")
    assert status == 2 and out == "" and err.startswith("dmlemu: error: ") and err.count("\n") == 1
    assert not (tmp_path / "out").exists()
