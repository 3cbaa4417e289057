"""`dmlemu onnx MODEL.onnx`: outputs, the per-layer table adding up to the total, ONNX Runtime's
difference, a trace; errors as one `dmlemu: error:` line with exit status 2."""
import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

from cli_runner import cli  # noqa: E402
from dmlemu.onnx import models  # noqa: E402


@pytest.fixture(scope="module")
def mlp_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("onnx") / "mlp.onnx"
    onnx.save(models.gemm_mlp(), str(path))
    return path


def test_a_model_file_runs_with_a_per_layer_table_and_onnxruntime_difference(mlp_file, tmp_path):
    trace = tmp_path / "run.csv"
    status, out, err = cli("onnx", mlp_file, "--compare-onnxruntime", "--check-golden", "--trace", trace)
    assert status == 0, err
    lines = out.splitlines()
    assert lines[1] == "inputs: random (seed 0): x"
    assert "bit-exact against dmlemu.golden (the DML nodes one by one): yes" in lines
    header = next(i for i, line in enumerate(lines) if line.startswith("layer (ONNX nodes)"))
    rows = lines[header + 2:header + 5]
    assert [r.split()[0] for r in rows] == ["gemm0+act0", "gemm1+act1", "mean"]
    total = next(line for line in lines if line.startswith("total"))
    times = [float(r.split()[-3]) for r in rows]
    assert abs(sum(times) - float(total.split()[2])) < 0.02       # the rows add up to the total
    assert all(r.split()[-1] in ("memory", "compute", "latency", "launch") for r in rows)
    assert any(line.startswith("  y: max abs difference ") for line in lines)
    assert "gemm0+act0" in trace.read_text() and out.rstrip().endswith(f"wrote {trace}")


def test_given_inputs_are_used(mlp_file, tmp_path):
    x = np.ones((8, 64), np.float32)
    np.save(tmp_path / "x.npy", x)
    status, out, err = cli("onnx", mlp_file, "--input", f"x={tmp_path / 'x.npy'}", "--no-timing")
    assert status == 0, err
    assert out.splitlines()[1] == f"inputs: x={tmp_path / 'x.npy'}"
    assert "estimated (emulation only, --no-timing)" in out


@pytest.mark.parametrize("argv, sentence", [
    (["--input", "nope=x.npy"], 'dmlemu: error: --input nope=x.npy: the model has no input "nope" (its inputs: x)'),
    (["--input", "x"], "dmlemu: error: --input x: write it NAME=FILE.npy"),
    (["--trace", "t.txt"], "dmlemu: error: trace file t.txt must end in .json, .pftrace, .npz, .csv"),
    (["--adapter", "nope"], "dmlemu: error: "),
    (["--set", "compute_units=0"], "dmlemu: error: adapter rx7900xtx with compute_units=0: "),
])
def test_usage_errors_are_one_line(mlp_file, argv, sentence):
    status, out, err = cli("onnx", mlp_file, *argv)
    assert status == 2 and out == ""
    assert err.startswith(sentence) and err.count("\n") == 1


def test_a_model_that_does_not_convert_is_one_error_line(tmp_path):
    from onnx import TensorProto, helper
    path = tmp_path / "det.onnx"
    node = helper.make_node("Det", ["x"], ["y"], name="det")
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, 4, 4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 1])])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))
    status, out, err = cli("onnx", path)
    assert status == 2 and out == ""
    assert err.startswith('dmlemu: error: node "det" (Det) cannot be converted: the operator Det has no '
                          'converter') and err.count("\n") == 1


def test_a_file_that_is_no_model_is_one_error_line(tmp_path):
    path = tmp_path / "bad.onnx"
    path.write_bytes(b"\x00not a model\xff" * 3)
    status, out, err = cli("onnx", path)
    assert status == 2 and err.startswith(f"dmlemu: error: cannot read {path} as an ONNX model") and err.count("\n") == 1


def test_set_runs_the_model_on_the_adapter_with_that_field_changed(mlp_file):
    """What-if on a model: the header names the change, and one compute unit instead of 96 costs modelled time."""
    def total(out):
        return float(next(line for line in out.splitlines() if line.startswith("total")).split()[2])
    status, base, err = cli("onnx", mlp_file, "--adapter", "rx7900xtx")
    assert status == 0, err
    status, slow, err = cli("onnx", mlp_file, "--adapter", "rx7900xtx", "--set", "compute_units=1")
    assert status == 0, err
    assert slow.splitlines()[0].endswith("on AMD Radeon RX 7900 XTX (emulated) with compute_units=1")
    assert total(slow) > total(base)
