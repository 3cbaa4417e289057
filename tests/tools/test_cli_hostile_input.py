"""`dmlemu run` (and `dmlemu trace`) on hostile arguments: one line, `dmlemu: error: <sentence>`, exit
status 2 (or argparse's usage error, also 2), never a traceback, and nothing made or read before the
arguments are known to be good: a run that would need 32 GiB is refused before an input exists.

Pinned sentences for each hostile input, then a property test drawing argument lists from
hostile tokens (sizes and strides past UINT, negative or huge seeds, bad feature levels, flags, files
that are devices, directories, text, archives or lie about their size). The CLI runs in-process here
(`dmlemu.tools.cli.main`) so that the property test is fast; two subprocess runs check the real command.
"""
import io
import os
import resource
import subprocess
import sys
import time

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dmlemu.functional.device_memory import default_budget
from dmlemu.presets import DEFAULT_PRESET
from cli_runner import cli
from operator_cases import ACCEPTED, REFUSED, outcome

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LEVELS = "1_0, 2_0, 2_1, 3_0, 3_1, 4_0, 4_1, 5_0, 5_1, 5_2, 6_0, 6_1, 6_2, 6_3, 6_4"


def error_line(*argv):
    """The one `dmlemu: error:` line of a failing command (asserting there is exactly one, status 2)."""
    status, out, err = cli(*argv)
    lines = err.strip().splitlines()
    assert status == 2 and len(lines) == 1 and lines[0].startswith("dmlemu: error: "), (status, out, err)
    assert out == "" and "Traceback" not in err
    return lines[0]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Hostile --input files, and a folder for outputs."""
    d = tmp_path_factory.mktemp("hostile")
    (d / "empty.npy").write_bytes(b"")
    (d / "text.npy").write_text("not an array\n")
    np.save(d / "good16.npy", np.arange(16, dtype=np.float32))
    np.save(d / "int.npy", np.arange(16, dtype=np.int32))
    np.savez(d / "archive.npz", a=np.arange(16, dtype=np.float32))
    np.save(d / "objects.npy", np.array([1, "x"], dtype=object), allow_pickle=True)
    header = io.BytesIO()    # a .npy header declaring 10**12 float32 elements, followed by 64 bytes
    np.lib.format.write_array_header_1_0(header, {"descr": "<f4", "fortran_order": False, "shape": (10 ** 12,)})
    (d / "liar.npy").write_bytes(header.getvalue() + bytes(64))
    np.save(d / "big.npy", np.zeros(1 << 19, dtype=np.float32))    # 2 MiB, far more than 16 elements need
    (d / "cut.npy").write_bytes((d / "good16.npy").read_bytes()[:100])
    (d / "folder").mkdir()
    return d


# ---- pinned: the hostile inputs -----------------------------------------------------------------------------
def test_negative_sizes():
    assert error_line("run", "CLIP", "--sizes", -4, 4) == (
        "dmlemu: error: --sizes -4 4: Sizes[0] is -4; a DirectML Sizes value is a UINT (0 to 4294967295)")


def test_sizes_needing_32_gib_are_refused_before_any_input_is_made():
    budget = default_budget(DEFAULT_PRESET.dedicated_video_memory)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.perf_counter()
    line = error_line("run", "CLIP", "--sizes", 65535, 65535, "--dtype", "UINT8")
    assert time.perf_counter() - start < 5
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 256 * 1024   # KiB: no 4 GiB input made
    assert line == (
        f"dmlemu: error: ELEMENT_WISE_CLIP UINT8 Sizes {{65535, 65535}}, Min -1, Max 1 needs 17179344912 bytes of GPU "
        f"memory (its tensors' 8589672456 bytes twice: UPLOAD and DEFAULT buffers for the inputs, DEFAULT and "
        f"READBACK for the output); the rx7900xtx adapter's budget is {budget} bytes (its memory, at most 50% of "
        f"the host's RAM)")


def test_strides_past_uint_and_strides_needing_more_than_the_budget():
    assert error_line("run", "CLIP", "--sizes", 4, 4, "--strides", 10 ** 20, 1) == (
        "dmlemu: error: --strides 100000000000000000000 1: Strides[0] is 100000000000000000000; a DirectML Strides "
        "value is a UINT (0 to 4294967295)")
    assert error_line("run", "CLIP", "--sizes", 2, 2, "--strides", 2 ** 32 - 1, 1) == (
        "dmlemu: error: InputTensor.TotalTensorSizeInBytes is 4; its Sizes and Strides need at least 17179869188 "
        "bytes (DMLCalcBufferTensorSize). (E_INVALIDARG)")
    assert "needs 17179869200 bytes of GPU memory" in error_line(
        "run", "CLIP", "--sizes", 2, 2, "--strides", 2 ** 30 - 1, 1, "--adapter", "teaching")


def test_a_negative_seed():
    assert error_line("run", "CLIP", "--sizes", 4, "--seed", -1) == (
        "dmlemu: error: --seed is -1; a seed must be a non-negative integer")


@pytest.mark.parametrize("level", ["99", "0xZZ", "0x", "", "6_5", "DML_FEATURE_LEVEL_0_9"])
def test_bad_feature_levels(level):
    assert error_line("run", "CLIP", "--sizes", 4, "--feature-level", level) == (
        f"dmlemu: error: feature level {level!r} is not a DML_FEATURE_LEVEL; known: {LEVELS}")


@pytest.mark.parametrize("name, message", [
    ("/dev/null", "/dev/null is not a regular file; --input takes .npy files"),
    ("/dev/zero", "/dev/zero is not a regular file; --input takes .npy files"),
    ("folder", "Is a directory: {d}/folder"),
    ("missing.npy", "No such file or directory: {d}/missing.npy"),
    ("empty.npy", "cannot read {d}/empty.npy: it is not a .npy array (EOF: reading magic string, expected 8 bytes "
                  "got 0)"),
    ("text.npy", "cannot read {d}/text.npy: it is not a .npy array (the magic string is not correct; expected "
                 "b'\\x93NUMPY', got b'not an')"),
    ("objects.npy", "cannot read {d}/objects.npy: it holds Python objects (dtype object); only plain arrays are read"),
    ("archive.npz", "cannot read {d}/archive.npz: it is a .npz archive, not a .npy array"),
    ("liar.npy", "cannot read {d}/liar.npy: its header declares 4000000000000 bytes of data (shape (1000000000000,), "
                 "dtype float32) but it holds 64"),
    ("cut.npy", "cannot read {d}/cut.npy: it is not a .npy array (EOF: reading array header, expected 118 bytes "
                "got 90)"),
    ("big.npy", "{d}/big.npy is 2097280 bytes; InputTensor (FLOAT32, 16 elements) needs a .npy file of at most "
                "1048640 bytes"),
    ("int.npy", "InputTensor is FLOAT32; {d}/int.npy holds int32, not float32"),
])
def test_bad_input_files(files, name, message):
    path = name if name.startswith("/") else files / name
    line = error_line("run", "CLIP", "--sizes", 4, 4, "--input", path)
    assert line.startswith("dmlemu: error: " + message.format(d=files)), line


def test_a_good_input_file_still_runs(files):
    status, out, err = cli("run", "CLIP", "--sizes", 4, 4, "--input", files / "good16.npy")
    assert status == 0 and "bit-exact against dmlemu.golden: yes" in out and err == ""


def test_outputs_into_a_missing_folder_are_refused_before_the_run(files):
    assert error_line("run", "CLIP", "--sizes", 4, "--output", files / "nowhere" / "y.npy") == (
        f"dmlemu: error: cannot write {files}/nowhere/y.npy: the folder {files}/nowhere does not exist")


def test_the_real_command_gives_one_line_for_the_32_gib_run():
    """A subprocess, as a user runs it: one line, status 2, quickly, and a small peak RSS."""
    start = time.perf_counter()
    # VmHWM: the peak RSS of this program (ru_maxrss would include the forking pytest's).
    result = subprocess.run([sys.executable, "-c", "import sys\nfrom dmlemu.tools.cli import main\n"
                             "status = main(sys.argv[1:])\n"
                             "print(next(l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM')))\n"
                             "sys.exit(status)",
                             "run", "CLIP", "--sizes", "65535", "65535", "--dtype", "UINT8"],
                            cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and time.perf_counter() - start < 30
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("dmlemu: error: ELEMENT_WISE_CLIP UINT8")
    assert int(result.stdout) < 512 * 1024   # KiB


# ---- generated argument lists -------------------------------------------------------------------------------
def mostly(valid, hostile):
    """Values that are usually good (9 in 10), so that each list carries one or two hostile tokens and
    reaches the checks behind the first."""
    return st.sampled_from([valid] * 9 + [hostile]).flatmap(lambda strategy: strategy)


_SIZES = mostly(st.integers(1, 4), st.sampled_from([0, -1, -4, 65535, 2 ** 31, 2 ** 32 - 1, 2 ** 32, 2 ** 40,
                                                    10 ** 30, -(2 ** 64)]))
_STRIDES = mostly(st.integers(0, 6), st.sampled_from([-1, 2 ** 31, 2 ** 32 - 1, 2 ** 32, 10 ** 30]))
_SEEDS = mostly(st.integers(0, 2 ** 64), st.one_of(st.integers(-(2 ** 70), -1), st.just(2 ** 200)))
_OPTION_VALUES = {
    "--dtype": mostly(st.sampled_from(["FLOAT32", "float16", "UINT8", "INT64", "FLOAT64", "INT8", "uint16"]),
                      st.sampled_from(["UINT4", "BOOL", "", "DML_TENSOR_DATA_TYPE_UNKNOWN"])),
    "--feature-level": mostly(st.sampled_from(["5_0", "6_4", "1_0", "2_1", "0x5000", "DML_FEATURE_LEVEL_3_0", "4.1"]),
                              st.sampled_from(["9_9", "0xZZ", "0x", "", "abc", "0x0", "-1"])),
    "--flags": mostly(st.sampled_from(["half-precision", "descriptors-volatile,disable-meta-commands", "none",
                                       "DML_EXECUTION_FLAG_NONE"]), st.sampled_from(["bogus", ",", "|", "0x7"])),
    "--adapter": mostly(st.sampled_from(["teaching", "irisxe", "rtx3070", "rx6800xt"]), st.sampled_from(["nosuch", ""])),
    "--min": mostly(st.sampled_from(["0", "-1.5", "-0"]), st.sampled_from(["nan", "inf", "-inf", "1e400", "abc",
                                                                          "0x10"])),
    "--max": mostly(st.sampled_from(["1", "2.5"]), st.sampled_from(["nan", "inf", "1e400", "-1e39"])),
    "--scale": mostly(st.sampled_from(["2", "0.5"]), st.sampled_from(["0", "1e-45", "nan"])),
    "--bias": mostly(st.sampled_from(["1", "-0.25"]), st.sampled_from(["inf", "1e39"])),
    "--trace-detail": mostly(st.sampled_from(["wave", "dispatch"]), st.just("bogus")),
    "--output-dtype": mostly(st.sampled_from(["UINT8", "FLOAT16", "int32", "UINT32"]),
                             st.sampled_from(["BOOL", "", "UINT4"])),
    "--attr": mostly(st.sampled_from(["Min=0.5", "Max=2", "Alpha=0.1", "RoundingMode=TOWARD_ZERO",
                                      "InfinityMode=1", "MinMaxDataType=FLOAT32"]),
                     st.sampled_from(["Alpha", "=1", "Min=abc", "RoundingMode=9", "Max=1e400", "Foo=1", "Min=",
                                      "MinMaxDataType=UNKNOWN", "Max=-1"])),
    "--fused": mostly(st.sampled_from(["RELU", "leaky_relu", "IDENTITY"]), st.sampled_from(["SOFTMAX", "", "EXP"])),
    "--fused-attr": mostly(st.sampled_from(["Alpha=0.5"]), st.sampled_from(["Alpha", "Beta=x", "=0"])),
    "--input-sizes": mostly(st.sampled_from(["B=1", "A=1,1", "ATensor=1", "Condition=1"]),
                            st.sampled_from(["B", "B=", "B=0", "B=-1", "Z=1", "B=1,2,3,4,5,6,7,8,9", "B=x"])),
}
_INPUTS = ["/dev/null", "/dev/zero", "folder", "missing.npy", "empty.npy", "text.npy", "objects.npy", "archive.npz",
           "liar.npy", "cut.npy", "big.npy", "int.npy", "good16.npy"]


@st.composite
def run_arguments(draw):
    operator = draw(mostly(st.sampled_from(["CLIP", "clip", "IF", "IDENTITY", "THRESHOLD",
                                            "DML_OPERATOR_ELEMENT_WISE_CLIP", "add", "ADD1", "CLIP1",
                                            "LOGICAL_GREATER_THAN", "ROUND", "cast", "ACTIVATION_IDENTITY",
                                            "LEAKY_RELU", "SHRINK", "IS_INFINITY", "BIT_SHIFT_LEFT"]),
                           st.sampled_from(["FOO", "", "EXP", "ELEMENT_WISE_", "DML_OPERATOR_"])))
    args = ["run", operator, "--sizes"] + draw(st.lists(_SIZES, min_size=1, max_size=3))
    for _ in range(draw(st.sampled_from([0, 0, 0, 1, 2]))):
        args += ["--strides"] + draw(st.lists(_STRIDES, min_size=1, max_size=3))
    if draw(st.booleans()):
        args += ["--seed", draw(_SEEDS)]
    for option, values in _OPTION_VALUES.items():
        if draw(st.integers(0, 5)) == 0:
            args += [option, draw(values)]
    if draw(st.integers(0, 5)) == 0:
        args += ["--input"] + draw(st.lists(st.sampled_from(_INPUTS), min_size=1, max_size=3))
    if draw(st.integers(0, 7)) == 0:
        args += ["--output", draw(st.sampled_from(["out.npy", "nowhere/out.npy", "out"]))]
    if draw(st.integers(0, 7)) == 0:
        args += ["--trace", draw(st.sampled_from(["t.json", "t.csv", "t.npz", "t.txt", "t"]))]
    return args


@settings(max_examples=250, suppress_health_check=[HealthCheck.too_slow])
@given(argv=run_arguments())
def test_hostile_run_arguments_give_one_line_or_run(files, argv):
    argv = [str(files / a) if isinstance(a, str) and (a in _INPUTS[2:] or a.startswith(("out", "nowhere", "t.")))
            else a for a in argv]
    status, out, err = cli(*argv)
    assert "Traceback" not in err
    if status == 0:
        assert "bit-exact against dmlemu.golden: yes" in out and err == ""
        outcome(ACCEPTED)
        return
    assert status == 2, (argv, status, out, err)
    outcome(REFUSED)
    lines = err.strip().splitlines()
    if lines and lines[-1].startswith("dmlemu run: error: "):   # argparse: usage, then its error line
        assert lines[0].startswith("usage: dmlemu run") and out == ""
        return
    assert len(lines) == 1 and lines[0].startswith("dmlemu: error: "), (argv, err)
    assert out == ""


# ---- dmlemu trace -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("content, message", [
    (b"", "is not a dmlemu trace: it is not a .npz (zip) file, or it is truncated"),
    (b"hello\n", "is not a dmlemu trace: it is not a .npz (zip) file, or it is truncated"),
    (b"PK\x03\x04" + bytes(100), "is not a dmlemu trace: it is not a .npz (zip) file, or it is truncated"),
])
def test_dmlemu_trace_on_files_that_are_not_traces(tmp_path, content, message):
    path = tmp_path / "bad.npz"
    path.write_bytes(content)
    assert error_line("trace", path) == f"dmlemu: error: {path} {message}"
    assert error_line("trace", tmp_path) == f"dmlemu: error: {tmp_path}: dmlemu reads traces saved as .npz " \
                                            f"(`dmlemu run ... --trace run.npz`); JSON and CSV are exports"


@pytest.mark.parametrize("argv, sentence", [
    (("step", "--sizes", "-4", "4"), "Sizes[0] is -4; a DirectML Sizes value is a UINT"),
    (("step", "--sizes", "65535", "65535", "--dtype", "UINT8"), "bytes of GPU memory"),
    (("step", "--seed", "-1"), "--seed is -1; a seed must be a non-negative integer"),
])
def test_step_checks_its_arguments_before_it_makes_anything(argv, sentence):
    assert sentence in error_line(*argv)
