"""README's command table (tools/docs.command_table, the `commands` block of `dmlemu readme`): every
subcommand of the parser, its help line and every option, so the table cannot lag the parser."""
import argparse
import os

from dmlemu.tools.cli import build_parser, main
from dmlemu.tools.docs import command_table, readme_blocks, render_block

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_every_subcommand_and_option_is_in_the_table():
    parser = build_parser()
    table = command_table(parser)
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    rows = {line.split("|")[1].strip(): line for line in table.splitlines() if line.startswith("| `dmlemu ")}
    assert list(rows) == [f"`dmlemu {name}`" for name in sub.choices]
    for name, command in sub.choices.items():
        row = rows[f"`dmlemu {name}`"]
        for action in command._actions:
            if action.option_strings and not isinstance(action, argparse._HelpAction) and \
                    action.help != argparse.SUPPRESS:
                assert f"`{max(action.option_strings, key=len)}`" in row, (name, action.option_strings)
    for name in ("report", "sweep", "graph", "compare", "onnx", "step"):
        assert f"| `dmlemu {name}` |" in table


def test_the_readme_block_is_the_table():
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        blocks = dict(readme_blocks(f.read()))
    assert blocks["commands"] == render_block("commands", main)
