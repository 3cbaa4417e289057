"""The runnable programs in examples/: each runs from the repository root, exits 0 and checks its own
result bit for bit against dmlemu.golden (they are also shown in README.md)."""
import glob
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _is_program(path):
    """A program (it has a __main__ block); examples/compute_rig.py is a module the others import."""
    with open(path, encoding="utf-8") as f:
        return 'if __name__ == "__main__":' in f.read()


EXAMPLES = sorted(os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "examples", "*.py"))
                  if _is_program(p))
# The workgroup examples' default sizes take seconds each; the suite runs them smaller (the sizes they
# take as an argument; tests/d3d12/test_workgroup_examples.py checks them at more sizes and adapters).
SMALL = {"transpose.py": ["128"], "histogram.py": ["20000"], "reduction.py": ["70000"], "sgemm.py": ["64"]}


def run_example(path):
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    args = SMALL.get(os.path.basename(path), [])
    result = subprocess.run([sys.executable, path, *args], cwd=ROOT, env=env, capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, f"{path} exited {result.returncode}\n{result.stdout}\n{result.stderr}"
    return result.stdout


def test_the_required_examples_exist():
    for name in ("hello_directml_identity.py", "threshold.py", "if_broadcast.py", "pydirectml_device.py"):
        assert os.path.join("examples", name) in EXAMPLES


@pytest.mark.parametrize("path", EXAMPLES)
def test_example_runs_and_is_bit_exact(path):
    if os.path.basename(path).startswith("onnx_"):   # the `onnx` extra (tests/package/test_graph_examples.py runs them too)
        pytest.importorskip("onnx")
        pytest.importorskip("onnxruntime")
    out = run_example(path)
    assert "bit-exact against dmlemu.golden" in out


def test_hello_directml_identity_prints_like_the_sample():
    lines = run_example(os.path.join("examples", "hello_directml_identity.py")).splitlines()
    # Microsoft's HelloDirectML: 24 values of 1.618 in, the same 24 values out (printed with 4 decimals).
    assert lines[0] == "input tensor: " + " ".join(["1.6180"] * 24)
    assert lines[1] == "output tensor: " + " ".join(["1.6180"] * 24)


def test_if_broadcast_uses_a_stride_0_condition():
    with open(os.path.join(ROOT, "examples", "if_broadcast.py"), encoding="utf-8") as f:
        source = f.read()
    assert "[0, 4, 1]" in source and "DML_OPERATOR_ELEMENT_WISE_IF" in source
    out = run_example(os.path.join("examples", "if_broadcast.py"))
    assert "nan" in out and "-0." in out
