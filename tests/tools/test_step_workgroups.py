"""`dmlemu step` on kernels whose workgroups cooperate (tools/stepper.py): under each ds_* instruction
the lanes' LDS addresses and banks, the bank-conflict passes and the bytes written; at s_barrier who
has arrived; `--workgroup N` steps every wave of a workgroup round-robin, barrier to barrier. Pinned
on the printed text of tests/tools/kernels/lds_mirror.s (16 threads, waves of 8, 1024 bytes of LDS)."""
import dataclasses
import os
import re

import numpy as np
import pytest

from dmlemu.tools.stepper import KernelStepper, format_step

from cli_runner import cli

HERE = os.path.dirname(os.path.abspath(__file__))
KERNEL = os.path.join(HERE, "kernels", "lds_mirror.s")
ARGS = ("step", "--kernel", KERNEL, "--buffer", "u0=uint32:16:zeros")


def without_cycles(text):
    """`text` with the step lines' cycle column taken out: the pinned text stays that of the functional
    step, whatever cycles the timing model gives (tests/tools/test_step_commands.py checks the column)."""
    return re.sub(r"(?m)^((?:  [\d#]| \d\d|\d{3})  [ \w]{4})  [ \w-]{6}(?=  )", r"\1", text)


def steps_text(*extra):
    status, out, err = cli(*ARGS, *extra)
    assert status == 0, err
    return without_cycles(out[out.index("  #  addr"):])


def block(text, start):
    """The lines of one step: from the line starting with `start` to the next step."""
    lines = text.splitlines()
    i = next(k for k, line in enumerate(lines) if line.startswith(start))
    j = next((k for k in range(i + 1, len(lines)) if lines[k][:3].strip().isdigit() or lines[k].startswith("--")
              or lines[k].startswith("The ")), len(lines))
    return "\n".join(lines[i:j])


def test_a_conflicting_lds_read_shows_addresses_banks_and_passes():
    text = steps_text("--wave", "0")
    assert block(text, " 11    20  ds_read_b32 v9, v8, 0") == """\
 11    20  ds_read_b32 v9, v8, 0                             11111111
           lane          0     1     2     3     4     5     6     7
           lds addr      0   128   256   384   512   640   768   896
           bank          0     0     0     0     0     0     0     0
           v9            0     0     0     0     0     0     0     0
           LDS: 8 lanes x 4 B; dword d is in bank d mod 8
           bank conflicts: 8 passes: bank 0 serves 8 different dwords, one per pass (bytes 0 128 256 384 512 640 ... +2)
           7 lanes read LDS bytes no wave of this workgroup has written yet (a missing s_barrier?)"""


def test_an_lds_write_shows_the_bytes_written_and_no_conflict():
    text = steps_text("--wave", "1")
    assert block(text, "  4     6  ds_write_b32 v4, v5, 0") == """\
  4     6  ds_write_b32 v4, v5, 0                            11111111
           lane          0     1     2     3     4     5     6     7
           lds addr     32    36    40    44    48    52    56    60
           bank          0     1     2     3     4     5     6     7
           LDS: 8 lanes x 4 B; dword d is in bank d mod 8
           bank conflicts: none: 1 pass (no bank serves two different dwords)
           LDS bytes written: 32 (bytes 32 .. 63 of 1024); 8 of them changed value"""


def test_one_wave_at_a_barrier_lets_the_others_run_unseen_and_reads_their_lds():
    text = steps_text("--wave", "1")
    assert block(text, "  5     8  s_barrier") == """\
  5     8  s_barrier                                         11111111
           barrier: wave 1 waits; wave 0 of workgroup 0 now runs unseen to the next s_barrier or the end \
(--workgroup 0 shows them); then it opens"""
    # after the barrier wave 1 reads dwords 7 .. 0, which wave 0 wrote (3t) while unseen
    assert "           v7           21    18    15    12     9     6     3     0" in block(text, "  8    14  ds_read_b32")
    assert "wave 0 of workgroup 0" in text and "-- wave" not in text
    assert text.rstrip().splitlines()[-3] == "The wave ended after 15 instructions."
    assert text.rstrip().splitlines()[-1] == ("divergence: 11 vector instructions, 88 of 88 lane slots active "
                                              "(SIMD efficiency 100.0 %)")


def test_workgroup_mode_steps_every_wave_round_robin_barrier_to_barrier():
    text = steps_text("--workgroup", "0")
    banners = [(k, line) for k, line in enumerate(text.splitlines()) if line.startswith("--")]
    assert [line for _, line in banners] == [
        "-- wave 0 (wave 0 of workgroup 0) runs to its next s_barrier or its end --",
        "-- wave 1 (wave 1 of workgroup 0) runs to its next s_barrier or its end --",
        "-- wave 0 (wave 0 of workgroup 0) runs to its next s_barrier or its end --",
        "-- wave 1 (wave 1 of workgroup 0) runs to its next s_barrier or its end --"]
    assert block(text, "  5     8  s_barrier").splitlines()[1] == "           barrier: arrived 0; waiting for 1"
    assert block(text, " 10     8  s_barrier").splitlines()[1] == (
        "           barrier: all waves of workgroup 0 still running have arrived (0, 1): it opens")
    assert text.rstrip().splitlines()[-3:] == [
        "The 2 waves of workgroup 0 ended after 30 instructions in all.",
        "u0 after workgroup 0: 45 42 39 36 33 30 27 24 ...  (15 bytes changed)",
        "divergence: 22 vector instructions, 176 of 176 lane slots active (SIMD efficiency 100.0 %)"]


def test_workgroup_mode_writes_what_the_dispatch_writes():
    stepper = KernelStepper(KERNEL, buffers={"u0": np.zeros(16, np.uint32)})
    stepper.select_workgroup(0)
    list(stepper.workgroup_steps())
    assert list(stepper.buffer("u0")) == [3 * (15 - t) for t in range(16)]


def test_the_preset_lds_banks_field_sets_the_banks():
    stepper = KernelStepper(KERNEL, buffers={"u0": np.zeros(16, np.uint32)})
    stepper.preset = dataclasses.replace(stepper.preset, lds_banks=4)
    write = next(s for s in stepper.steps() if s.text.startswith("ds_write_b32"))
    text = without_cycles(format_step(write))
    assert "dword d is in bank d mod 4" in text
    assert "bank conflicts: none: 2 passes (8 different dwords over 4 banks need 2)" in text
    assert [c.lanes for c in write.changes if c.name == "bank"] == [[str(t % 4) for t in range(8)]]


@pytest.mark.parametrize("argv, message", [
    (("--workgroup", "2"), "workgroup 2 does not exist: the dispatch has 1 workgroup (0 to 0)"),
    (("--workgroup", "0", "--wave", "1"), "--wave and --workgroup both choose what to step; give one"),
])
def test_workgroup_argument_errors(argv, message):
    status, out, err = cli(*ARGS, *argv)
    assert status == 2 and message in err


def test_an_operator_kernel_steps_as_before_with_and_without_workgroup():
    status, out, err = cli("step", "--operator", "CLIP", "--sizes", "6")
    assert status == 0 and "barrier" not in out and "LDS" not in out.split("  #  addr")[1]
    status, out, err = cli("step", "--operator", "CLIP", "--sizes", "6", "--workgroup", "0")
    assert status == 0 and "-- wave 0 (wave 0 of workgroup 0)" in out


def test_the_commands_of_docs_workgroups_run():
    """docs/WORKGROUPS.md is documentation that runs: its `dmlemu` lines (from the repository root)
    exit 0, and its `python` lines name programs that exist (tests/package/test_examples.py runs them)."""
    import re
    import shlex
    root = os.path.dirname(os.path.dirname(HERE))
    with open(os.path.join(root, "docs", "WORKGROUPS.md"), encoding="utf-8") as f:
        text = f.read()
    lines = [line.strip() for block in re.findall(r"```sh\n(.*?)```", text, re.S) for line in block.splitlines()
             if line.strip()]
    assert len(lines) >= 8
    for line in lines:
        words = shlex.split(line)
        if words[0] == "python":
            assert os.path.isfile(os.path.join(root, words[1])), line
            continue
        assert words[0] == "dmlemu", line
        status, out, err = cli(*[os.path.join(root, w) if w.startswith(("examples/", "tests/")) else w
                                 for w in words[1:]])
        assert status == 0, f"{line}\n{err}"


def test_docs_workgroups_shows_what_the_stepper_prints():
    root = os.path.dirname(os.path.dirname(HERE))
    with open(os.path.join(root, "docs", "WORKGROUPS.md"), encoding="utf-8") as f:
        text = f.read()
    status, out, _ = cli("step", "--kernel", os.path.join(root, "examples", "kernels", "transpose_tiled.s"),
                         "-D", "STRIDE=32", "--constants", "32", "--buffer", "t0=float32:1024",
                         "--buffer", "u0=float32:1024:zeros")
    shown = block(without_cycles(out[out.index("  #  addr"):]), " 18    34  ds_read_b32")
    assert shown in without_cycles(text)


@pytest.mark.parametrize("extra", [(), ("--workgroup", "0")])
def test_a_divergent_barrier_stops_the_stepper_with_the_executors_sentence(extra):
    status, out, err = cli("step", "--kernel", os.path.join(HERE, "kernels", "divergent_barrier.s"),
                           "--buffer", "u0=uint32:16:zeros", *extra)
    assert status == 2
    assert err.strip() == ("dmlemu: error: divergent_barrier: divergent barrier: in workgroup 0, wave 0 waits at the "
                           "s_barrier at instruction 3 while wave 1 waits at the s_barrier at instruction 5; every live "
                           "wave of a workgroup must reach the same barrier")
