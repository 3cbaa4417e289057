"""The `dmlemu` command, end to end: every subcommand as a user runs it (a subprocess), its output
and the files it writes; plus the libraries behind `step` and the progress bar, in-process."""
import io
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from cli_runner import cli
from dmlemu import golden
from dmlemu.presets import PRESETS
from dmlemu.kernels.driver import SOURCES, build_program
from dmlemu.tools.asm import assemble_source, disassemble_bytes, to_bytes
from dmlemu.tools.operators import OperatorRun, golden_outputs, random_inputs, same_bits
from dmlemu.tools.progress import Progress
from dmlemu.tools.stepper import WaveStepper, format_footer, format_step

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def dmlemu(*args, cwd=ROOT, stdin=None):
    """Run `dmlemu ARGS` as a user would (python -m dmlemu, the console script's target)."""
    return subprocess.run([sys.executable, "-m", "dmlemu", *map(str, args)], cwd=cwd,
                          input=stdin, capture_output=True, text=True, timeout=300)


def ok(result):
    assert result.returncode == 0, f"exit {result.returncode}\nstdout:\n{result.stdout}\nstderr:\n{result.stderr}"
    assert "Traceback" not in result.stderr
    return result.stdout


# ---- demo -----------------------------------------------------------------------------------------
def test_demo_prints_checks_and_writes_trace_and_plots(tmp_path):
    result = dmlemu("demo", "--out", "demo-out", cwd=tmp_path)
    out = ok(result)
    assert result.stderr == ""   # stderr is a pipe here: no progress bar
    folder = tmp_path / "demo-out"
    for name in ("ELEMENT_WISE_THRESHOLD", "ELEMENT_WISE_CLIP", "ELEMENT_WISE_IF", "InputTensor:",
                 "ConditionTensor:", "OutputTensor:", "ConditionTensor.Strides {0, 1}"):
        assert name in out
    assert out.count("bit-exact against dmlemu.golden: yes") == 5
    assert "ELEMENT_WISE_ADD FLOAT32 Sizes {2, 4}, BTensor.Strides {0, 1}" in out
    assert "All outputs bit-exact." in out
    # The per-dispatch summary: cycles, time, bandwidth and % of peak, one row per dispatch.
    header = next(line for line in out.splitlines() if "cycles" in line and "% peak" in line)
    assert "time us" in header and "GB/s" in header
    assert out.count("element_wise_") >= 4
    # The output folder is named on stdout, with the files it holds.
    assert f"to demo-out{os.sep}:" in out
    files = sorted(os.listdir(folder))
    assert {"trace.json", "trace.npz", "dispatches.csv"} <= set(files)
    pngs = [f for f in files if f.endswith(".png")]
    assert pngs, files
    for name in files:   # fixed names, no timestamps
        assert not any(ch.isdigit() for ch in name), name
        assert name in out
    for png in pngs:
        assert (folder / png).read_bytes()[:8] == PNG_MAGIC
    events = json.loads((folder / "trace.json").read_text())
    events = events["traceEvents"] if isinstance(events, dict) else events
    assert any("clip" in str(e.get("name", "")).lower() for e in events)
    assert (folder / "dispatches.csv").read_text().count("\n") >= 6   # header + 5 dispatches


# ---- run ------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def clip_run(tmp_path_factory):
    """`dmlemu run CLIP ...` once, with every output format; shared by the run and trace tests."""
    folder = tmp_path_factory.mktemp("run")
    result = dmlemu("run", "CLIP", "--dtype", "FLOAT16", "--sizes", 2, 3, 4, "--scale", 2, "--bias", 0.5,
                    "--min", -1, "--max", 1, "--seed", 7, "--output", folder / "y.npy",
                    "--trace", folder / "t.json", folder / "t.npz", folder / "t.csv", "--plots", folder / "plots")
    return folder, result


def test_run_writes_npy_equal_to_golden(clip_run):
    folder, result = clip_run
    out = ok(result)
    run = OperatorRun("CLIP", "FLOAT16", (2, 3, 4), scale=2.0, bias=0.5, min_value=-1.0, max_value=1.0)
    [x] = random_inputs(run, 7)
    y = np.load(folder / "y.npy")
    expected = golden.clip(x, -1.0, 1.0, (2.0, 0.5))
    assert y.dtype == np.float16 and y.shape == (2, 3, 4)
    assert same_bits(y, expected)
    assert "ELEMENT_WISE_CLIP FLOAT16 Sizes {2, 3, 4}, ScaleBias (2, 0.5), Min -1, Max 1" in out
    assert "inputs: random, seed 7" in out
    assert "bit-exact against dmlemu.golden: yes" in out
    assert "element_wise_clip_float16_packed_sb" in out and "% peak" in out
    for name in ("y.npy", "t.json", "t.npz", "t.csv"):
        assert f"wrote {folder / name}" in out
    assert json.loads((folder / "t.json").read_text())
    assert any(p.endswith(".png") for p in os.listdir(folder / "plots"))


def test_run_reads_npy_inputs_with_a_broadcast_condition(tmp_path):
    condition = np.array([[1, 0, 0, 1]], dtype=np.uint8).repeat(3, axis=0)
    a = np.arange(12, dtype=np.int32).reshape(3, 4)
    b = -a
    for name, array in (("c", condition), ("a", a), ("b", b)):
        np.save(tmp_path / f"{name}.npy", array)
    out = ok(dmlemu("run", "IF", "--dtype", "INT32", "--sizes", 3, 4, "--strides", 0, 1, "--strides", 4, 1,
                    "--strides", 4, 1, "--strides", 4, 1, "--input", "c.npy", "a.npy", "b.npy",
                    "--output", "y.npy", cwd=tmp_path))
    assert "ConditionTensor.Strides {0, 1}" in out and "inputs: c.npy, a.npy, b.npy" in out
    assert same_bits(np.load(tmp_path / "y.npy"), golden.if_(condition, a, b))


def test_run_half_precision_flag_on_another_adapter(tmp_path):
    out = ok(dmlemu("run", "IDENTITY", "--dtype", "FLOAT16", "--sizes", 5, "--scale", 0.1, "--bias", 0.3,
                    "--flags", "half-precision", "--adapter", "rtx3070", "--feature-level", "5_0",
                    "--seed", 3, "--output", "y.npy", cwd=tmp_path))
    assert "flags DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION" in out
    assert "NVIDIA GeForce RTX 3070" in out
    run = OperatorRun("IDENTITY", "FLOAT16", (5,), scale=0.1, bias=0.3)
    [x] = random_inputs(run, 3)
    assert same_bits(np.load(tmp_path / "y.npy"), golden.identity(x, (0.1, 0.3), half_precision=True))


@pytest.mark.parametrize("args, message", [
    (("run", "CLIP", "--dtype", "FLOAT16", "--sizes", 2, 0),
     "dmlemu: error: InputTensor.Sizes[1] is 0; sizes must be non-zero. (E_INVALIDARG)"),
    (("run", "CLIP", "--dtype", "INT64", "--sizes", 4, "--adapter", "irisxe"),
     "(E_INVALIDARG)"),
    (("run", "IDENTITY", "--sizes", 4, "--min", 1),
     "dmlemu: error: ELEMENT_WISE_IDENTITY has no Min; --min applies to THRESHOLD, CLIP, CLIP1, CLIP_GRAD, CLIP_GRAD1"),
    (("run", "CLIP", "--sizes", 4, "--adapter", "nosuchgpu"),
     "dmlemu: error: no adapter preset named 'nosuchgpu'"),
    (("run", "CLIP", "--sizes", 4, "--feature-level", "9_9"),
     "dmlemu: error: feature level '9_9' is not a DML_FEATURE_LEVEL"),
])
def test_bad_arguments_give_one_line_and_exit_code_2(args, message):
    result = dmlemu(*args)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("dmlemu: error: ")
    assert message in lines[0]
    assert result.stdout == ""


def test_usage_errors_from_argparse_exit_2():
    result = dmlemu("run", "CLIP", "--dtype", "FLOAT16")   # --sizes is required
    assert result.returncode == 2 and "--sizes" in result.stderr and "Traceback" not in result.stderr


# ---- asm / disasm ---------------------------------------------------------------------------------
def test_asm_disasm_round_trip_equals_the_kernel(tmp_path):
    ok(dmlemu("asm", "kernels/clip.s", "--variant", "CLIP:FLOAT16:packed:sb", "-o", tmp_path / "clip.bin"))
    binary = (tmp_path / "clip.bin").read_bytes()
    kernel = build_program("ELEMENT_WISE_CLIP", "FLOAT16", True, True, False)
    assert binary == to_bytes(kernel.dwords)
    assert np.frombuffer(binary, dtype="<u4").tolist() == list(kernel.dwords)   # little-endian dwords
    text = ok(dmlemu("disasm", tmp_path / "clip.bin"))
    assert "v_mul_f32" in text and "buffer_store_short" in text and "s_endpgm" in text
    (tmp_path / "clip.s").write_text(text)
    ok(dmlemu("asm", tmp_path / "clip.s", "-o", tmp_path / "again.bin"))
    assert (tmp_path / "again.bin").read_bytes() == binary


def test_asm_prints_dwords_and_listing_without_output_file():
    out = ok(dmlemu("asm", "kernels/if.s", "--variant", "IF:FLOAT32", "-D", "UNUSED=1"))
    kernel = build_program("ELEMENT_WISE_IF", "FLOAT32", False, False, False)
    assert f"{kernel.dwords[0]:08x}" in out.splitlines()[0]
    assert "v_cndmask_b32" in out


def test_asm_of_a_kernel_source_without_variant_says_what_to_add():
    result = dmlemu("asm", "kernels/clip.s")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.startswith("dmlemu: error: ") and "--variant CLIP:FLOAT16:packed" in result.stderr


def test_asm_defines_symbols(tmp_path):
    source = tmp_path / "k.s"
    source.write_text(".if WIDE\n    v_mov_b64 v[0:1], 0\n.else\n    v_mov_b32 v0, ${VALUE}\n.endif\n    s_endpgm\n")
    out = ok(dmlemu("asm", source, "-D", "WIDE=0", "-D", "VALUE=7"))
    assert "v_mov_b32 v0, 7" in out


@pytest.mark.parametrize("operator", sorted(SOURCES))
def test_every_kernel_variant_round_trips_through_binary(operator):
    short = operator.replace("ELEMENT_WISE_", "")
    for data_type, packed, sb in (("FLOAT16", True, True), ("FLOAT32", False, False), ("INT64", False, False),
                                  ("UINT8", True, False)):
        if sb and operator == "ELEMENT_WISE_IF":
            continue
        variant = f"{short}:{data_type}" + (":packed" if packed else "") + (":sb" if sb else "")
        path = os.path.join(ROOT, "kernels", SOURCES[operator])
        dwords = assemble_source(path, variant)
        assert tuple(dwords) == build_program(operator, data_type, packed, sb, False).dwords
        from dmlemu.isa.assembler import assemble
        assert assemble(disassemble_bytes(to_bytes(dwords))) == dwords


# ---- isa-doc --------------------------------------------------------------------------------------
def test_isa_doc_check_passes_and_detects_staleness(tmp_path):
    assert "is up to date" in ok(dmlemu("isa-doc", "--check"))
    stale = tmp_path / "ISA.md"
    stale.write_text("# old\n")
    result = dmlemu("isa-doc", "--check", "--path", stale)
    assert result.returncode == 1 and "stale" in result.stderr
    ok(dmlemu("isa-doc", "--path", stale))
    with open(os.path.join(ROOT, "docs", "ISA.md"), encoding="utf-8") as f:
        assert stale.read_text() == f.read()
    ok(dmlemu("isa-doc", "--check", "--path", stale))


# ---- readme -------------------------------------------------------------------------------------
def test_readme_check_passes_and_detects_staleness(tmp_path):
    assert "up to date" in ok(dmlemu("readme", "--check"))
    stale = tmp_path / "README.md"
    stale.write_text("# x\n<!-- BEGIN file kernels/if.s -->\nold\n<!-- END -->\n")
    result = dmlemu("readme", "--check", "--path", stale)
    assert result.returncode == 1 and "stale" in result.stderr
    ok(dmlemu("readme", "--path", stale))
    with open(os.path.join(ROOT, "kernels", "if.s"), encoding="utf-8") as f:
        assert stale.read_text() == f"# x\n<!-- BEGIN file kernels/if.s -->\n```asm\n{f.read()}```\n<!-- END -->\n"


# ---- step -----------------------------------------------------------------------------------------
def test_step_shows_exec_and_the_registers_each_instruction_changes():
    out = ok(dmlemu("step"))
    lines = out.splitlines()
    assert "ELEMENT_WISE_CLIP FLOAT16 Sizes {2, 3}" in out
    # The prologue masks off lanes 6 and 7 of the 8-lane wave.
    cmp_line = next(i for i, line in enumerate(lines) if "v_cmp_gt_u32 vcc" in line)
    assert lines[cmp_line].rstrip().endswith("11111111")
    assert lines[cmp_line + 1].strip() == "vcc = 11111100"
    and_line = next(i for i, line in enumerate(lines) if "s_and_b64 exec, exec, vcc" in line)
    assert lines[and_line + 1].strip() == "exec = 11111100"
    assert lines[and_line + 2].rstrip().endswith("11111100")   # the next instruction runs under it
    # A vector register, lane by lane, with '-' for the lanes EXEC switched off.
    lane_header = next(line for line in lines if line.strip().startswith("lane"))
    assert lane_header.split()[1:] == [str(i) for i in range(8)]
    v1 = next(line for line in lines if line.strip().startswith("v1 "))
    assert v1.split()[1:] == [str(i) for i in range(8)]
    memory = next(line for line in lines if line.strip().startswith("memory"))
    assert memory.split()[-2:] == ["-", "-"]
    assert "s24 = 6" in out
    assert "bit-exact against dmlemu.golden" in out
    assert max(len(line) for line in lines) <= 100   # fits a terminal


def test_step_interactive_waits_for_enter_and_quits():
    result = dmlemu("step", "--interactive", stdin="\n\nq\n")
    out = ok(result)
    assert out.count("[Enter] next instruction") == 3
    assert "stopped." in out and "The wave ended" not in out
    finished = ok(dmlemu("step", "--interactive", stdin="\nc\n"))
    assert finished.count("[Enter] next instruction") == 2 and "The wave ended" in finished


def test_step_other_operators_and_widths():
    out = ok(dmlemu("step", "--operator", "IF", "--dtype", "FLOAT32", "--sizes", 2, 3, "--strides", 0, 1,
                    "--strides", 3, 1, "--strides", 3, 1, "--strides", 3, 1, "--width", 4, "--wave", 1))
    assert "v_mul_hi_u32" in out   # the general (strided) addressing loop
    assert "v_cndmask_b32" in out and "bit-exact against dmlemu.golden" in out
    result = dmlemu("step", "--wave", 9)
    assert result.returncode == 2 and "wave 9 does not exist" in result.stderr
    result = dmlemu("step", "--operator", "THRESHOLD", "--dtype", "FLOAT64")   # the API's own check
    assert result.returncode == 2 and result.stderr.strip().endswith("(E_INVALIDARG)")


@pytest.mark.parametrize("operator, data_type, kwargs", [
    ("CLIP", "FLOAT16", dict(scale=2.0, bias=0.5)),
    ("CLIP", "INT8", dict(min_value=-3.5, max_value=40.0)),
    ("THRESHOLD", "FLOAT32", dict(min_value=0.5)),
    ("IDENTITY", "FLOAT64", dict()),
    ("THRESHOLD", "UINT16", dict(strides=(1, 3))),
    ("IDENTITY", "FLOAT16", dict(scale=0.1, bias=0.3, flags=1)),
    ("IF", "INT64", dict(strides=[(0, 1), None, (1, 3), None])),
])
def test_a_stepped_wave_computes_what_the_golden_model_says(operator, data_type, kwargs):
    run = OperatorRun(operator, data_type, (3, 5), **kwargs)
    inputs = random_inputs(run, 11)
    for wave in (0, 1):
        stepper = WaveStepper(run, inputs, width=8, wave=wave)
        steps = list(stepper.steps())
        assert steps[-1].ended and steps[-1].text == "s_endpgm"
        elements = stepper.wave_elements()
        expected = golden_outputs(run, inputs, stepper.preset)[0].reshape(-1)[elements]
        assert same_bits(stepper.output().reshape(-1)[elements], expected)
        assert "bit-exact against dmlemu.golden" in format_footer(stepper, len(steps))
        for s in steps:
            assert len(s.exec_mask) == 8 and set(s.exec_mask) <= {"0", "1"}
            assert format_step(s).startswith(f"{s.number:>3}")


# ---- trace ----------------------------------------------------------------------------------------
def test_trace_summarises_converts_and_plots_a_saved_file(clip_run, tmp_path):
    folder, result = clip_run
    ok(result)
    out = ok(dmlemu("trace", folder / "t.npz"))
    assert "1 dispatch(es)" in out and "element_wise_clip_float16_packed_sb" in out and "% peak" in out
    out = ok(dmlemu("trace", folder / "t.npz", "--summary", "--to-json", tmp_path / "x.json",
                    "--to-csv", tmp_path / "x.csv", "--plots", tmp_path / "plots"))
    assert "element_wise_clip_float16_packed_sb" in out
    assert json.loads((tmp_path / "x.json").read_text())
    assert "element_wise_clip_float16_packed_sb" in (tmp_path / "x.csv").read_text()
    pngs = [p for p in os.listdir(tmp_path / "plots") if p.endswith(".png")]
    assert pngs and all(f"wrote {tmp_path / 'plots' / p}" in out for p in pngs)
    bad = dmlemu("trace", folder / "t.json")
    assert bad.returncode == 2 and bad.stderr.startswith("dmlemu: error: ") and "Traceback" not in bad.stderr


# ---- adapters -------------------------------------------------------------------------------------
def test_adapters_lists_every_preset_with_figures_and_sources():
    out = ok(dmlemu("adapters"))
    header = out.splitlines()[0]
    for column in ("CUs", "SIMDs/CU", "wave", "clock GHz", "memory GiB", "DRAM GB/s", "FP16", "64-bit", "max level"):
        assert column in header
    for preset in PRESETS:
        row = next(line for line in out.splitlines() if line.split()[1:2] == [preset.key])
        assert str(preset.compute_units) in row.split() and str(preset.wave_width) in row.split()
        assert f"{preset.key}: {preset.description}" in out
        for source in preset.sources:
            assert source in out
    assert ok(dmlemu("adapters", "--no-sources")).count("\n") < out.count("\n")


# ---- progress bar and the console script ---------------------------------------------------------
class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_progress_bar_draws_only_on_a_terminal():
    quiet = io.StringIO()
    with Progress(3, "x", stream=quiet) as bar:
        bar.advance("one")
    assert quiet.getvalue() == ""
    tty = _Terminal()
    with Progress(3, "x", stream=tty) as bar:
        bar.advance("one")
    assert "[##########" in tty.getvalue() and "1/3" in tty.getvalue()


def test_commands_write_nothing_to_stderr_when_it_is_not_a_terminal():
    result = dmlemu("run", "THRESHOLD", "--sizes", 3)
    ok(result)
    assert result.stderr == ""


def test_console_script_is_installed():
    script = os.path.join(os.path.dirname(sys.executable), "dmlemu")
    if not os.path.exists(script):
        pytest.skip("dmlemu console script not installed in this environment")
    result = subprocess.run([script, "adapters", "--no-sources"], cwd=ROOT, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0 and "rx7900xtx" in result.stdout


def test_graph_source_listing_names_nodes_by_index_whatever_their_names(tmp_path):
    """Node names are data: `dmlemu graph --source` heads the fused kernel by node indices and its stages
    by `node <index>`; a name holding a newline and s_endpgm never reaches a source line."""
    names = ["a\ns_endpgm", "b\n.if 0", "c ${X} ; s_endpgm"]
    spec = {"dtype": "FLOAT32", "sizes": [64], "inputs": ["x"],
            "nodes": [{"name": names[0], "op": "IDENTITY", "inputs": ["x"], "scale": 2, "bias": 1},
                      {"name": names[1], "op": "relu", "inputs": [names[0]]},
                      {"name": names[2], "op": "CLIP", "inputs": [names[1]], "attrs": {"Min": 0, "Max": 6}}],
            "outputs": [names[2]]}
    path = tmp_path / "g.json"
    path.write_text(json.dumps(spec))
    status, out, err = cli("graph", path, "--source")
    assert status == 0, err
    listing = out[out.index("; ==== dispatch 1"):]
    assert listing.startswith("; ==== dispatch 1 (nodes 0, 1, 2): the fused kernel\n")
    assert [line for line in listing.splitlines() if line.startswith("; ---- stage")] == [
        "; ---- stage 1: node 0, ELEMENT_WISE_IDENTITY", "; ---- stage 2: node 1, ACTIVATION_RELU",
        "; ---- stage 3: node 2, ELEMENT_WISE_CLIP"]
    assert [line.strip() for line in listing.splitlines()].count("s_endpgm") == 1 and ".if 0" not in listing


@pytest.mark.parametrize("content, sentence", [
    ("[" * 100_000 + "]" * 100_000, "nests arrays or objects deeper than the JSON reader goes"),
    ('{"inputs": ["x"], "sizes": [' + "9" * 5000 + ']}', "holds a number the JSON reader refuses"),
    ('{"a": 1}'.encode("utf-16"), "is not UTF-8 text (byte 0xff at offset 0)"),
    ("[1, 2", "is not JSON"),
])
def test_graph_files_that_are_not_graphs_end_in_one_sentence(tmp_path, content, sentence):
    path = tmp_path / "g.json"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    status, out, err = cli("graph", path)
    assert status == 2 and out == "" and err.count("\n") == 1 and err.startswith("dmlemu: error: the graph file ")
    assert sentence in err


def test_an_endless_graph_file_is_read_only_up_to_its_limit():
    status, _, err = cli("graph", "/dev/zero")
    assert status == 2 and err == ("dmlemu: error: the graph file /dev/zero holds more than 67108864 bytes; a graph "
                                   "file holds at most that\n")


def _cycles(out):
    """The cycles column of `dmlemu run`'s dispatch table (its first dispatch)."""
    lines = out.splitlines()
    header = next(i for i, line in enumerate(lines) if line.lstrip().startswith("# kernel"))
    return int(lines[header + 1].split()[2])


def test_run_with_set_is_the_adapter_with_that_field_changed_and_says_so():
    base = cli("run", "ADD", "--sizes", 1 << 20, "--adapter", "rx7900xtx")
    half = cli("run", "ADD", "--sizes", 1 << 20, "--adapter", "rx7900xtx", "--set", "dram_bytes_per_second=480G")
    assert base[0] == half[0] == 0
    assert half[1].splitlines()[0].endswith("on AMD Radeon RX 7900 XTX (emulated) with "
                                            "dram_bytes_per_second=480000000000")
    assert _cycles(half[1]) > 1.5 * _cycles(base[1])      # a DRAM-bound ADD: half the bandwidth, ~twice the time


@pytest.mark.parametrize("argv, sentence", [
    (["run", "ADD", "--sizes", 64, "--set", "dram_bytes_per_second=1,2"],
     "--set 'dram_bytes_per_second=1,2' gives 2 values; here it takes one (dmlemu sweep --set sweeps several)"),
    (["graph", "--set", "wave_width=8"], "--set 'wave_width' is not a preset field a sweep can change"),
    (["step", "--operator", "ADD", "--sizes", 8, "--set", "compute_units=0"], "adapter teaching with compute_units=0: "),
    (["run", "ADD", "--sizes", 64, "--set", "compute_units=2", "--set", "compute_units=3"],
     "--set compute_units is given twice"),
])
def test_a_bad_set_is_one_sentence_before_anything_runs(argv, sentence):
    status, out, err = cli(*argv)
    assert status == 2 and err.count("\n") == 1 and err.startswith("dmlemu: error: ") and sentence in err, err


def test_compare_runs_a_spec_with_set_and_graph_takes_set_too(tmp_path):
    status, out, err = cli("compare", "ADD --sizes 262144 --adapter rx7900xtx",
                           "ADD --sizes 262144 --adapter rx7900xtx --set compute_units=6")
    assert status == 0, err
    assert "on AMD Radeon RX 7900 XTX (emulated) with compute_units=6" in out.splitlines()[1]
    ratio = float(next(line for line in out.splitlines() if line.startswith("cycles")).split()[-1].rstrip("x"))
    assert ratio > 4           # 6 of 96 CUs: the waves queue on the few
    status, out, err = cli("graph", "--set", "compute_units=1", "--adapter", "teaching", "--trace", tmp_path / "g.npz")
    assert status == 0, err
