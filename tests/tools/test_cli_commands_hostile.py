"""Every `dmlemu` command on hostile argument lists: exit 0 (or 1 for a `--check` that finds a
stale file), or status 2 with argparse's usage error or exactly one `dmlemu: error:` line; never a traceback,
never a write outside the folder the arguments name.

The tokens are the command's own options (read from its parser, so options added later are fuzzed too) mixed
with hostile values: negative, huge and non-numeric numbers, empty and non-ASCII text, and paths to files that
are empty, text, truncated, binary, a device, a folder or missing. The CLI runs in-process (tests/cli_runner.py)
inside a temporary working folder; `isa-doc` and `readme` always get `--check` and a `--path` there, so the
repository's own files are never rewritten. `demo` and `run` do real work per example, so they get fewer.
"""
import os
import threading

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dmlemu.tools.cli import build_parser
from cli_runner import cli
from operator_cases import ACCEPTED, REFUSED, outcome, scaled


def _subcommands():
    parser = build_parser()
    action = next(a for a in parser._actions if a.dest == "command")
    return {name: sub for name, sub in action.choices.items()}


SUBCOMMANDS = _subcommands()
OPTIONS = {name: sorted(o for a in sub._actions for o in a.option_strings if o not in ("-h", "--help"))
           for name, sub in SUBCOMMANDS.items()}
FILES = ["empty.bin", "text.s", "cut.npz", "binary.bin", "good.npy", "folder", "missing.npz", "/dev/null"]
VALUES = st.one_of(
    st.sampled_from(["-1", "0", "1", "7", "65535", "4294967296", "1e400", "nan", "-0x10", "", "é", "\x00x", "a=b",
                     "X=1", "FLOAT16", "CLIP", "IF", "teaching", "rx7900xtx", "5_0", "9_9", "wave", "memory"]),
    st.integers(-(1 << 70), 1 << 70).map(str),
    st.text(max_size=6),
    st.sampled_from(FILES),
)


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    d = tmp_path_factory.mktemp("cli_hostile")
    (d / "empty.bin").write_bytes(b"")
    (d / "text.s").write_text("v_mov_b32 v0, 1\ns_endpgm\n")
    (d / "cut.npz").write_bytes(b"PK\x03\x04" + bytes(20))
    (d / "binary.bin").write_bytes(bytes(range(256)) * 4)
    np.save(d / "good.npy", np.arange(6, dtype=np.float32))
    (d / "folder").mkdir()
    (d / "ISA.md").write_text("# stale\n")
    (d / "README.md").write_text("# stale\n")
    return d


def _argv(draw, command):
    tokens = draw(st.lists(st.one_of(st.sampled_from(OPTIONS[command] or ["--x"]), VALUES), max_size=6))
    positional = {"asm": ["text.s", "binary.bin", "folder", "missing.npz"], "disasm": ["binary.bin", "empty.bin",
                  "text.s"], "trace": ["cut.npz", "empty.bin", "missing.npz", "folder"]}.get(command)
    argv = [command] + ([draw(st.sampled_from(positional))] if positional and draw(st.booleans()) else []) + tokens
    if command in ("isa-doc", "readme"):
        argv += ["--check", "--path", "ISA.md" if command == "isa-doc" else "README.md"]
    if command == "demo":
        argv += ["--no-plots", "--out", "demo-out"]
    if command == "sweep":     # in-process: a Dask cluster per example would be slow (tests/tools/test_sweep.py runs one)
        argv += ["--serial", "--no-plots"]
    return argv


def _check(folder, argv):
    before = set(os.listdir(folder))
    threads = threading.active_count()
    cwd = os.getcwd()
    os.chdir(folder)
    try:
        status, out, err = cli(*argv)
    finally:
        os.chdir(cwd)
    assert "Traceback" not in err, (argv, err)
    assert threading.active_count() == threads, (argv, "a thread was left running")
    made = set(os.listdir(folder)) - before
    assert all(not os.path.isabs(m) for m in made)
    if status == 0 or (status == 1 and "--check" in argv):
        outcome(ACCEPTED)
        return
    assert status == 2, (argv, status, out, err)
    lines = err.strip().splitlines()
    if len(lines) > 1:    # argparse's own form: the usage, then one error line
        assert lines[0].startswith("usage: dmlemu") and lines[-1].startswith(("dmlemu: error: ",
                                                                             f"dmlemu {argv[0]}: error: ")), (argv, err)
    else:
        assert len(lines) == 1 and lines[0].startswith("dmlemu: error: "), (argv, err)
    outcome(REFUSED)


SLOW = ["run", "step", "demo", "compare", "sweep"]     # each example runs kernels
QUICK = sorted(set(SUBCOMMANDS) - set(SLOW))


def _fuzz(commands, examples):
    """A property test drawing one of `commands` and a hostile argument list for it."""
    @settings(max_examples=scaled(examples), deadline=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
    @given(data=st.data())
    def test(folder, data):
        _check(folder, _argv(data.draw, data.draw(st.sampled_from(commands))))
    return test


test_hostile_arguments_to_every_quick_command = _fuzz(QUICK, 200)
test_hostile_arguments_to_the_commands_that_run_kernels = _fuzz(SLOW, 40)


def test_every_command_is_fuzzed():
    assert set(QUICK) | set(SLOW) == set(SUBCOMMANDS)


@pytest.mark.parametrize("argv", [("asm", "\x00x"), ("disasm", "a\x00.bin")])
def test_a_file_name_with_a_nul_character_is_one_line(argv):
    """open() refuses such a path with ValueError before the file system sees it (found by the long census)."""
    status, out, err = cli(*argv)
    assert (status, out) == (2, "")
    assert err == "dmlemu: error: a file name given contains a NUL character (\\x00), which no file name can hold\n"


@pytest.mark.parametrize("name", ["a\x00b.npz", "a\x01b.npz", "a\x1bb.npz"])
def test_a_control_character_in_a_trace_file_name_is_printed_as_its_escape(name):
    """`dmlemu trace` names the missing file in its sentence: the name's control characters come out escaped, so
    the one line stays one visible line and no terminal control sequence reaches the user's terminal."""
    status, out, err = cli("trace", name)
    assert (status, out) == (2, "")
    escaped = repr(name)[1:-1]
    assert err == f"dmlemu: error: {escaped}: no such file\n"
