"""`dmlemu sweep` (tools/sweep.py): the grid, its checks, one point's row, Dask against serial, plots."""
import csv

import pytest

from cli_runner import cli
from dmlemu.presets import RX_7900_XTX
from dmlemu.tools import sweep
from dmlemu.tools.sweep import SweepPoint, build_grid, parse_override, parse_size, run_point, run_serial

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def test_a_two_worker_dask_cluster_gives_the_serial_rows(tmp_path):
    pytest.importorskip("distributed")
    status, out, err = cli("sweep", "--workers", "2", "--adapters", "teaching", "rx7900xtx", "--sizes", "64", "256",
                           "1024", "--out", tmp_path, "--no-plots")
    assert status == 0, err
    assert "6 points on a local Dask cluster of 2 workers" in out
    points, skipped = build_grid(["teaching", "rx7900xtx"], ["IDENTITY"], ["FLOAT32"], [64, 256, 1024], ["packed"])
    assert skipped == [] and len(points) == 6
    serial = sweep.write_csv(run_serial(points), tmp_path / "serial.csv")
    assert open(tmp_path / "results.csv").read() == open(serial).read()
    rows = list(csv.DictReader(open(serial)))
    assert [(r["adapter"], r["elements"]) for r in rows] == [(a, n) for a in ("teaching", "rx7900xtx")
                                                             for n in ("64", "256", "1024")]


def test_a_point_reads_its_trace_and_honours_the_overrides():
    base = run_point(SweepPoint("rx7900xtx", "IDENTITY", "FLOAT32", 65536, "packed"))
    half = run_point(SweepPoint("rx7900xtx", "IDENTITY", "FLOAT32", 65536, "packed",
                                (("compute_units", 48), ("dram_bytes_per_second", 480 * 10 ** 9))))
    assert half["compute_units"] == 48 and half["dram_bytes_per_second"] == 480 * 10 ** 9
    assert base["bytes_read"] == base["bytes_written"] == 65536 * 4
    assert base["l2_request_bytes"] >= base["bytes_read"] + base["bytes_written"] and base["coalescing"] == 1.0
    assert half["cycles"] > base["cycles"]
    for row, peak in ((base, RX_7900_XTX.dram_bytes_per_second), (half, 480e9)):
        assert row["time_us"] == pytest.approx(row["cycles"] / RX_7900_XTX.clock_hz * 1e6)
        assert row["requested_gbps"] == pytest.approx(2 * 65536 * 4 / row["time_us"] / 1e3)
        assert row["gbps"] <= row["requested_gbps"] * 1.01    # cold input read, output mostly left in the L2
        assert row["pct_peak"] == pytest.approx(100 * row["gbps"] * 1e9 / peak)
    transposed = run_point(SweepPoint("rx7900xtx", "IDENTITY", "FLOAT32", 65536, "transposed"))
    # Each lane's sector serves one element; the CU-side caches catch the neighbours' re-reads of it, so the
    # L2 still sees more requests than for the packed read, though fewer than the coalescer asked for.
    assert transposed["coalescing"] < 0.5 and transposed["l2_request_bytes"] > base["l2_request_bytes"]


def test_any_operator_with_a_kernel_sweeps_with_its_own_tensor_types():
    points, skipped = build_grid(["rx7900xtx"], ["add", "LOGICAL_GREATER_THAN", "cast"], ["FLOAT32"], [4096],
                                 ["broadcast"])
    assert [p.operator for p in points] == ["ADD", "LOGICAL_GREATER_THAN"]
    assert len(skipped) == 1 and "CAST" in skipped[0] and "--output-dtype" in skipped[0]
    add, greater = (run_point(p) for p in points)
    # Both inputs are broadcast rows (64 distinct elements each); the comparison stores UINT8.
    assert add["bytes_read"] == greater["bytes_read"] == 2 * 4096 * 4
    assert add["bytes_written"] == 4096 * 4 and greater["bytes_written"] == 4096
    # The rows are re-read: the CU-side caches (L0 per CU, L1 per shader array) serve re-reads (fewer
    # L2 request bytes than bytes read); the L2 hits some of what reaches it (another shader array's
    # first reads of the same rows).
    assert add["l2_request_bytes"] < add["bytes_read"] and add["l2_hit_rate"] > 0


def test_the_grid_skips_what_the_adapter_or_directml_refuses():
    points, skipped = build_grid(["irisxe", "teaching"], ["IDENTITY", "CLIP"], ["FLOAT64"], [64], ["packed"],
                                 [("compute_units", (1, 2))])
    assert [(p.adapter, p.operator, p.overrides) for p in points] == [
        ("teaching", "IDENTITY", (("compute_units", 1),)), ("teaching", "IDENTITY", (("compute_units", 2),))]
    assert skipped[:2] == [f"2 points of irisxe {o} FLOAT64: the adapter has no 64-bit tensors" for o in ("IDENTITY", "CLIP")]
    assert skipped[2].startswith("2 points of teaching CLIP FLOAT64: InputTensor.DataType is "
                                 "DML_TENSOR_DATA_TYPE_FLOAT64")


def test_sizes_and_overrides_parse_with_suffixes():
    assert parse_size("2^20") == 1 << 20 and parse_size("4096") == 4096
    assert parse_override("l2_bytes=4Mi,8Mi") == ("l2_bytes", (4 << 20, 8 << 20))
    assert parse_override("dram_bytes_per_second=480G") == ("dram_bytes_per_second", (480 * 10 ** 9,))


@pytest.mark.parametrize("argv, message", [
    (["--sizes", "2048"], "--sizes 2048: a sweep tensor is side x side elements"),
    (["--set", "wave_width=8"], "--set 'wave_width' is not a preset field a sweep can change; these can: "),
    (["--set", "compute_units=4x"], "--set compute_units value '4x' is not a whole number"),
    (["--set", "l2_bytes=1000", "--adapters", "teaching"],
     "adapter teaching with l2_bytes=1000: l2_bytes is 1000; it must be a multiple of line_bytes x l2_ways"),
    (["--layouts", "diagonal"], "layout 'diagonal' is not one of packed, transposed, broadcast, stride2"),
    (["--adapters", "teaching", "--dtypes", "FLOAT64", "--operators", "CLIP"], "every point of the sweep was skipped"),
    (["--serial", "--scheduler", "tcp://127.0.0.1:1"], "--serial runs the points in this process"),
    (["--heatmap", "elements", "elements"], "--heatmap needs two different columns"),
    (["--set", "compute_units=" + ",".join(map(str, range(1, 1002)))],
     "the sweep's grid has 3,003 points (adapters x operators x dtypes x sizes x layouts x --set values); "
     "--max-points allows 1,000: raise it or sweep fewer values"),
    (["--sizes", "4096", "16384", "--max-points", "1"], "the sweep's grid has 2 points"),
    (["--max-points", "0"], "--max-points is 0; it must be at least 1"),
])
def test_bad_sweeps_are_one_error_line(argv, message, tmp_path):
    status, out, err = cli("sweep", "--serial" if "--scheduler" not in argv else "--workers", *(
        [] if "--scheduler" not in argv else ["1"]), *argv, "--out", tmp_path)
    assert status == 2
    line = err.strip().splitlines()[-1]
    assert line.startswith("dmlemu: error: ") and message in line, err


def test_without_dask_the_sweep_says_what_to_install(monkeypatch, tmp_path):
    monkeypatch.setattr(sweep, "dask_available", lambda: False)
    status, _, err = cli("sweep", "--out", tmp_path)
    assert status == 2
    assert err.strip() == ("dmlemu: error: dmlemu sweep runs its points on Dask, which is not installed: "
                           "pip install 'dmlemu[sweep]' (or --serial to run them in this process)")


def test_sweep_plots_are_deterministic_pngs(tmp_path):
    status, out, err = cli("sweep", "--serial", "--adapters", "teaching", "--sizes", "64", "256", "--layouts",
                           "packed", "stride2", "--set", "compute_units=1,2", "--out", tmp_path / "a")
    assert status == 0, err
    assert "wrote " + str(tmp_path / "a" / "heatmap.png") in out
    first = [open(tmp_path / "a" / name, "rb").read() for name in ("efficiency.png", "heatmap.png")]
    assert all(data[:8] == PNG_SIGNATURE and len(data) > 10000 for data in first)
    rows = sweep.read_csv(tmp_path / "a" / "results.csv")
    assert sweep.plot_sweep(rows, tmp_path / "b") == [str(tmp_path / "b" / n) for n in ("efficiency.png",
                                                                                         "heatmap.png")]
    assert [open(tmp_path / "b" / n, "rb").read() for n in ("efficiency.png", "heatmap.png")] == first


def test_a_swept_l2_capacity_keeps_its_own_column_beside_the_l2_request_bytes(tmp_path):
    status, out, err = cli("sweep", "--serial", "--no-plots", "--adapters", "teaching", "--sizes", "4096",
                           "--set", "l2_bytes=64Ki,128Ki", "--out", tmp_path)
    assert status == 0, err
    rows = sweep.read_csv(tmp_path / "results.csv")
    assert [r["l2_bytes"] for r in rows] == [64 << 10, 128 << 10]
    assert all(r["l2_request_bytes"] >= 4096 * 4 for r in rows)
