"""`dmlemu step` for learners (tools/stepper.py, tools/cli.py): the interactive commands (p REG, b ADDR|LABEL,
w N, c, q, ?; anything else answers with the help line), the cycle column from the timed run, the
end-of-wave divergence summary, EXEC saved in SGPRs as lane bits, and --trace for --kernel runs."""
import io
import os

import numpy as np
import pytest

from cli_runner import cli
from dmlemu.tools.cli import STEP_HELP
from dmlemu.tools.operators import OperatorRun, random_inputs
from dmlemu.tools.stepper import KernelStepper, WaveStepper, divergence_summary, format_step

HERE = os.path.dirname(os.path.abspath(__file__))
SAVE_EXEC = os.path.join(HERE, "kernels", "save_exec.s")


def interactive(monkeypatch, answers, *argv):
    monkeypatch.setattr("sys.stdin", io.StringIO("".join(a + "\n" for a in answers)))
    status, out, err = cli("step", "--interactive", *argv)
    assert status == 0, err
    return out


def test_p_prints_registers_and_unknown_input_answers_with_the_help(monkeypatch):
    out = interactive(monkeypatch, ["p v0", "p exec", "p s[2:3]", "p v999", "zzz", "?", "q"])
    assert "  v0 = 0 1 2 3 4 5 6 7  (b32 bits, lane 0 first)" in out
    assert "  exec = 11111111  (lane 0 first)" in out
    assert "p v999: the wave has v0 to v" in out
    assert out.count(f"  {STEP_HELP}") == 2          # 'zzz' and '?': the help, and no instruction stepped
    assert " 2     2 " not in out and "stopped." in out
    s23 = out.split("  s[2:3] = ")[1].splitlines()[0].split()
    assert len(s23) == 2 and all(w.startswith("0x") or w.isdigit() for w in s23)


def test_a_breakpoint_stops_continue_there(monkeypatch):
    out = interactive(monkeypatch, ["b 31", "b L30", "b", "c", "q"])
    assert "b 31: no instruction starts at address 31 (the addr column lists them)" in out
    assert "breakpoint at 30: v_cvt_f16_f32 v14, s39" in out and "breakpoints: 30" in out
    lines = out.splitlines()
    stop = lines.index("  breakpoint at 30")
    assert lines[stop - 3].startswith(" 16    30 ")        # the instruction at 30 ran (with its lanes)
    assert "v_cvt_f32_f16 v12, v12" not in out and "stopped." in out and "The wave ended" not in out


def test_w_restarts_on_another_wave_and_c_runs_to_the_end(monkeypatch):
    out = interactive(monkeypatch, ["w 5", "w x", "w 1", "c"])
    assert "wave 5 does not exist: the dispatch has 2 waves (0 to 1)" in out
    assert "w x: give a wave number (0 to 1)" in out
    assert "-- restarting on wave 1 --" in out and "stepping wave 1 (workgroup 0)" in out
    assert "The wave ended after" in out


def test_the_cycle_column_shows_the_wait_for_a_load():
    run = OperatorRun("CLIP", "FLOAT16", (2, 3))
    steps = list(WaveStepper(run, random_inputs(run, 0)).steps())
    cycles = [s.cycle for s in steps if s.cycle is not None]
    assert cycles == sorted(cycles) and len(cycles) >= len(steps) - 5
    assert all(s.cycle is None for s in steps if s.text.startswith("s_waitcnt"))   # no segment of their own
    # the use of the loaded value waits for it: a larger jump than between two VALU instructions
    load = next(i for i, s in enumerate(steps) if s.text.startswith("buffer_load"))
    use = next(i for i in range(load + 1, len(steps)) if "v10" in steps[i].text and steps[i].cycle is not None)
    before = steps[use - 1].cycle if steps[use - 1].cycle is not None else steps[use - 2].cycle
    valu = [b.cycle - a.cycle for a, b in zip(steps[load + 1:use - 1], steps[load + 2:use - 1])
            if a.cycle is not None and b.cycle is not None]
    assert steps[use].cycle - before > 3 * max(valu)
    # printed: an s_waitcnt's cycle column says "wait", the end of the program "-", the others their cycle
    for s in steps:
        column = format_step(s).splitlines()[0].split()[2]
        mnemonic = s.text.split()[0]
        expected = "wait" if mnemonic == "s_waitcnt" else "-" if s.cycle is None else str(s.cycle)
        assert column == expected and (mnemonic != "s_endpgm" or column == "-")


def test_the_divergence_summary_and_saved_exec():
    stepper = KernelStepper(SAVE_EXEC, buffers={"u0": np.zeros(8, np.uint32)})
    steps = list(stepper.steps())
    saved = [c.value for s in steps for c in s.changes if c.name in ("s[20:21]", "s[22:23]")]
    assert saved == ["11111111  (EXEC saved: lane bits, lane 0 first)",
                     "00011111  (EXEC saved: lane bits, lane 0 first)"]
    assert divergence_summary(steps, 8) == ("divergence: 4 vector instructions, 29 of 32 lane slots active (SIMD "
                                            "efficiency 90.6 %)\n  1 ran with lanes off (5 of 8 active); the "
                                            "first: #7 v_add_u32")


def test_step_kernel_writes_the_timed_trace(tmp_path):
    path = tmp_path / "step.npz"
    status, out, err = cli("step", "--kernel", SAVE_EXEC, "--buffer", "u0=uint32:8:zeros", "--trace", path)
    assert status == 0, err
    assert f"wrote {path} (the whole dispatch, timed on a fresh GPU" in out
    status, listing, err = cli("trace", path, "--instructions")
    assert status == 0, err and "s_mov_b64 s[22:23], exec" in listing
    assert "stall" in listing and "need the instruction segments" not in listing


@pytest.mark.parametrize("argv, message", [
    (["--trace", "x.json"], "--trace x.json: the stepped dispatch's trace is a .npz file"),
    (["--trace", "/nonexistent/dir/x.npz"], "cannot write /nonexistent/dir/x.npz: the folder"),
])
def test_bad_step_traces_are_one_line(argv, message):
    status, out, err = cli("step", *argv)
    assert status == 2 and out == "" and message in err and err.count("\n") == 1


def test_step_takes_the_operator_as_run_does_or_as_an_option():
    positional = cli("step", "relu", "--sizes", 4, 4)
    option = cli("step", "--operator", "relu", "--sizes", 4, 4)
    assert positional[0] == 0 and positional == option
    assert positional[1].startswith("dmlemu step: ACTIVATION_RELU")
    status, out, err = cli("step", "relu", "--operator", "sigmoid", "--sizes", 4, 4)
    assert status == 2 and out == ""
    assert err == "dmlemu: error: OPERATOR relu and --operator sigmoid name two operators; give one\n"
