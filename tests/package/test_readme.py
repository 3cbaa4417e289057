"""README.md is documentation that runs: its generated blocks (the ISA summary, the kernel listing,
the example programs, the `dmlemu step` transcript, the adapter table) must equal what the code
produces now, and every command it shows must be one the tools accept."""
import os
import re
import shlex

import pytest

from dmlemu.tools.cli import build_parser
from dmlemu.tools.cli import main
from dmlemu.tools.docs import README, ROOT, readme_blocks, render_block, update_readme


@pytest.fixture(scope="module")
def readme():
    with open(README, encoding="utf-8") as f:
        return f.read()


def fenced(text, lang):
    return re.findall(rf"```{lang}\n(.*?)```", text, re.S)


def test_generated_blocks_are_current(readme):
    assert update_readme(readme, main) == readme, "README.md is stale: run `dmlemu readme` (or `make readme`)"


def test_the_expected_blocks_are_there(readme):
    specs = [spec for spec, _ in readme_blocks(readme)]
    for spec in ("isa-summary", "command step", "file kernels/clip.s", "file examples/hello_directml_identity.py",
                 "file examples/threshold.py", "file examples/inspect_state.py"):
        assert spec in specs


def test_kernel_listing_is_the_file(readme):
    with open(os.path.join(ROOT, "kernels", "clip.s"), encoding="utf-8") as f:
        source = f.read()
    assert f"```asm\n{source}```" in readme


@pytest.mark.parametrize("path", ["examples/hello_directml_identity.py", "examples/threshold.py",
                                  "examples/capture_trace.py"])
def test_example_listings_are_the_files(readme, path):
    # The files themselves are run by tests/package/test_examples.py.
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        assert f"```python\n{f.read()}```" in readme


def test_step_transcript_shows_exec_and_lanes(readme):
    body = dict(readme_blocks(readme))["command step"]
    assert body == render_block("command step", main)
    assert "exec = 11111100" in body and "vcc = 11111100" in body and "lane " in body


def test_isa_summary_names_every_instruction(readme):
    from dmlemu.isa.opcodes import TABLE
    body = dict(readme_blocks(readme))["isa-summary"]
    for entry in TABLE:
        assert f"`{entry.mnemonic}`" in body
    assert "docs/ISA.md" in body


def shell_lines(readme):
    return [line.strip() for block in fenced(readme, "sh") for line in block.splitlines() if line.strip()]


def test_every_shell_command_is_accepted(readme):
    parser = build_parser()
    with open(os.path.join(ROOT, "Makefile"), encoding="utf-8") as f:
        targets = set(re.findall(r"^([\w-]+):", f.read(), re.M))
    commands = shell_lines(readme)
    assert {"make demo", "make test"} <= set(commands)   # the two commands that set up a fresh machine
    for command in commands:
        words = shlex.split(command)
        if words[0] == "make":
            assert set(words[1:]) <= targets, command
        elif words[0] == "dmlemu":
            parser.parse_args(words[1:])   # raises SystemExit on a bad command line
        elif words[0] == "python":
            assert os.path.exists(os.path.join(ROOT, words[1])), command
        else:
            pytest.fail(f"README shell line {command!r} is neither make, dmlemu nor python")


FAILING_COMMAND = "dmlemu run CLIP --dtype FLOAT16 --sizes 2 0"   # the README shows its error


def test_every_dmlemu_command_runs(readme, tmp_path, monkeypatch, capsys):
    """The README's `dmlemu` lines, in order, in a scratch folder (in-process: dmlemu.tools.cli.main).
    The one the README shows failing must fail with its one-line error and status 2."""
    from dmlemu.tools import cli
    assert FAILING_COMMAND in shell_lines(readme)
    monkeypatch.chdir(tmp_path)
    for command in shell_lines(readme):
        words = shlex.split(command)
        if words[0] != "dmlemu":
            continue
        args = [os.path.join(ROOT, w) if w.startswith("kernels/") else w for w in words[1:]]
        code = cli.main(args)
        captured = capsys.readouterr()
        if command == FAILING_COMMAND:
            assert code == 2 and captured.err.strip() in readme.replace("\n", " "), command
        else:
            assert code in (0, None), f"{command}\n{captured.out}\n{captured.err}"


def test_quick_start_is_two_commands(readme):
    quick = readme.split("## Quick start", 1)[1].split("##", 1)[0]
    assert fenced(quick, "sh")[0].split() == ["make", "demo", "make", "test"]


def test_sections_come_in_the_order_a_newcomer_reads_them(readme):
    order = ["## Quick start", "## What dmlemu is for", "## Architecture", "## The instruction set",
             "## How a wave executes", "## A kernel", "## Prototyping DirectML code", "## Performance analysis",
             "## What is modelled and what is not", "## Running tests and benchmarks", "## Dependencies"]
    positions = [readme.index(heading) for heading in order]
    assert positions == sorted(positions)


def test_links_and_images_exist(readme):
    for target in re.findall(r"\]\(([^)#]+)\)", readme):
        if target.startswith("http"):
            continue
        assert os.path.exists(os.path.join(ROOT, target)), target
    assert re.findall(r"!\[[^\]]*\]\(docs/images/\w+\.png\)", readme)
