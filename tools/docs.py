"""Generated documentation: docs/ISA.md and the generated blocks of README.md.

docs/ISA.md is written whole by isa.docgen.generate(). README.md is written by hand except for
blocks between markers, which are regenerated from the code so that they cannot drift:

    <!-- BEGIN file kernels/clip.s -->        a file of the repository, in a fenced code block
    <!-- BEGIN command step -->               the stdout of `dmlemu step` (any subcommand and arguments)
    <!-- BEGIN isa-summary -->                the instruction table summary (isa.opcodes)
    <!-- BEGIN operators -->                  the DirectML operators dmlemu validates, by feature level
    <!-- BEGIN commands -->                   every `dmlemu` command with what it does and its options,
                                              from the command line's own parser
    ...
    <!-- END -->

`dmlemu readme` rewrites the blocks, `dmlemu readme --check` (and tests/package/test_readme.py) fails when
one is stale. Commands run in-process (the caller passes the command line's `main`), from the repository root.
"""
import contextlib
import io
import os
import re
import shlex

__all__ = ["ROOT", "ISA_DOC", "README", "checkout_root", "isa_doc_text", "write_isa_doc", "isa_doc_is_current",
           "isa_summary", "operator_table", "command_table", "render_block", "update_readme", "readme_blocks"]

# In a checkout (the editable install of `make test`) tools/ sits in the repository root, next to
# docs/ and README.md. An installed wheel has dmlemu/tools/ in site-packages and no docs at all.
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ISA_DOC = os.path.join(ROOT, "docs", "ISA.md")
README = os.path.join(ROOT, "README.md")


def checkout_root(command):
    """The repository root when dmlemu runs from a checkout; a UsageError naming `command` otherwise."""
    if os.path.isfile(os.path.join(ROOT, "pyproject.toml")) and os.path.isfile(README):
        return ROOT
    from dmlemu.tools.operators import UsageError
    raise UsageError(f"`dmlemu {command}` regenerates files of a dmlemu checkout, and this dmlemu is installed "
                     f"in {ROOT} without one; run it in a clone of the repository (or `make {command}` there)")

_BLOCK = re.compile(r"(<!-- BEGIN (?P<spec>[^>]*?) -->\n)(?P<body>.*?)(<!-- END -->)", re.S)
_FENCE_LANG = {".s": "asm", ".inc": "asm", ".py": "python", ".md": "markdown", ".toml": "toml", "Makefile": "make"}


# ---- docs/ISA.md ----------------------------------------------------------------------------------
def isa_doc_text():
    """The ISA reference: the opcode table's sections, then the buffer descriptor layout that the
    memory instructions read (defined by the functional model, so the ISA package does not import it)."""
    from dmlemu.functional import buffer_descriptor
    from dmlemu.isa.docgen import generate
    abi = ["", "## The kernel ABI", "",
           "What a kernel finds when it starts (which SGPRs hold the binding table's address, the group counts, the root",
           "constants and the group id; which VGPRs hold the thread ids; how EXEC is set) and the compute-shader",
           "directives (`.numthreads`, `.srv`, `.uav`, `.cbv`, `.root_constants`) are in",
           "[KERNEL_ABI.md](KERNEL_ABI.md); the DirectML kernels' own ABI (their constant buffer) is in",
           "kernels/constant_buffer.py.", ""]
    return generate() + "\n".join(["", "## Buffer descriptors", "", "```", buffer_descriptor.__doc__.strip(), "```"] + abi)


def write_isa_doc(path=ISA_DOC):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(isa_doc_text())
    return path


def isa_doc_is_current(path=ISA_DOC):
    if not os.path.exists(path):
        return False
    with open(path, encoding="utf-8") as f:
        return f.read() == isa_doc_text()


# ---- README blocks -------------------------------------------------------------------------------
def isa_summary():
    """A Markdown table: each execution unit, its instruction count and every mnemonic."""
    from dmlemu.isa import opcodes as op
    lines = ["| unit | runs | count | instructions |", "|---|---|---|---|"]
    runs = {"SALU": "once per wave", "VALU": "once per active lane", "SMEM": "once per wave",
            "VMEM": "once per active lane", "BRANCH": "once per wave", "LDS": "once per active lane"}
    for unit in op.UNITS:
        entries = sorted((e for e in op.TABLE if e.unit == unit), key=lambda e: e.opcode)
        names = " ".join(f"`{e.mnemonic}`" for e in entries)
        lines.append(f"| {unit} | {runs.get(unit, '')} | {len(entries)} | {names} |")
    lines.append("")
    lines.append(f"{len(op.TABLE)} instructions in all. Every operand, type, encoding and cycle count is in "
                 f"[docs/ISA.md](docs/ISA.md), generated from the same table.")
    return "\n".join(lines)


def _level_text(level):
    return f"{level >> 12}.{(level >> 8) & 0xF}"


def operator_table():
    """A Markdown table of every operator with a schema (dmlemu.directml.operators.SCHEMAS): the
    feature level that introduced it, the data types its tensors accept at DML_FEATURE_LEVEL_6_4
    (inputs, then the output's when they differ) and whether a microkernel runs it
    (dmlemu.kernels.driver.has_kernel; without one, CreateOperator validates the desc and answers
    E_NOTIMPL)."""
    from dmlemu.directml.enums import DML_FEATURE_LEVEL_6_4
    from dmlemu.directml.operators import SCHEMAS
    from dmlemu.kernels.driver import has_kernel

    def types(roles, row):
        seen = {}
        for role in roles:
            for name in row.tensors[role.field].data_types:
                seen[name] = None
        return tuple(seen)

    schemas = sorted(SCHEMAS.values(), key=lambda s: (s.introduced_at, s.type))
    lines = ["| operator | introduced at | data types at DML_FEATURE_LEVEL_6_4 | kernel |", "|---|---|---|---|"]
    for schema in schemas:
        row = schema.support_at(DML_FEATURE_LEVEL_6_4)
        inputs, outputs = types(schema.inputs, row), types(schema.outputs, row)
        text = ", ".join(inputs)
        if set(outputs) != set(inputs):
            text += " &rarr; " + ", ".join(outputs)
        lines.append(f"| `{schema.name}` | {_level_text(schema.introduced_at)} | {text} | "
                     f"{'yes' if has_kernel(schema.name) else 'no'} |")
    kernels = sum(has_kernel(s.name) for s in schemas)
    lines.append("")
    lines.append(f"{len(schemas)} operators validated, {kernels} with a kernel. The tables per feature level "
                 f"(dimension counts, data types per tensor, optional tensors, attribute rules) are "
                 f"`dmlemu.directml.operators.SCHEMAS`, transcribed from each operator's DirectML page.")
    return "\n".join(lines)


def command_table(parser):
    """A Markdown table of every subcommand of `parser` (the command line's argparse parser): its name, its
    help line and its options (positional arguments by metavar), in the parser's order."""
    import argparse
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    lines = ["| command | what it does | arguments and options |", "|---|---|---|"]
    for choice in sub._choices_actions:
        command = sub.choices[choice.dest]
        words = []
        for action in command._actions:
            if isinstance(action, argparse._HelpAction) or action.help == argparse.SUPPRESS:
                continue
            if action.option_strings:
                words.append(f"`{max(action.option_strings, key=len)}`")
            else:
                words.append(f"`{action.metavar or action.dest}`")
        help_text = " ".join(str(choice.help).split()).replace("|", "\\|")
        lines.append(f"| `dmlemu {choice.dest}` | {help_text} | {' '.join(words)} |")
    lines.append("")
    lines.append("`dmlemu COMMAND --help` describes every argument. This table is generated from the command "
                 "line's parser (tools/cli.py) by `dmlemu readme`.")
    return "\n".join(lines)


def _fence(text, lang=""):
    if not text.endswith("\n"):
        text += "\n"
    return f"```{lang}\n{text}```\n"


def _run_command(main, args):
    out = io.StringIO()
    cwd = os.getcwd()
    try:
        os.chdir(ROOT)
        with contextlib.redirect_stdout(out):
            code = main(args)
    finally:
        os.chdir(cwd)
    if code not in (0, None):
        raise RuntimeError(f"`dmlemu {' '.join(args)}` exited with {code} while generating README.md")
    return out.getvalue()


def render_block(spec, main):
    """The generated text of one block, from its BEGIN spec; `main` runs a `dmlemu` command line
    (dmlemu.tools.cli.main, passed in so that this module and the command line do not import each
    other)."""
    kind, _, rest = spec.strip().partition(" ")
    if kind == "file":
        path = rest.strip()
        with open(os.path.join(ROOT, path), encoding="utf-8") as f:
            text = f.read()
        name = os.path.basename(path)
        return _fence(text, _FENCE_LANG.get(os.path.splitext(name)[1], _FENCE_LANG.get(name, "")))
    if kind == "command":
        args = shlex.split(rest)
        return _fence(f"$ dmlemu {rest.strip()}\n" + _run_command(main, args), "text")
    if kind == "isa-summary":
        return isa_summary() + "\n"
    if kind == "operators":
        return operator_table() + "\n"
    if kind == "commands":
        import sys
        return command_table(sys.modules[main.__module__].build_parser()) + "\n"
    raise ValueError(f"README block kind {kind!r} is not one of file, command, isa-summary, operators, commands")


def readme_blocks(text):
    """(spec, body) of every generated block in README text."""
    return [(m.group("spec"), m.group("body")) for m in _BLOCK.finditer(text)]


def update_readme(text, main):
    """README text with every generated block rendered again (`main`: see render_block)."""
    return _BLOCK.sub(lambda m: m.group(1) + render_block(m.group("spec"), main) + m.group(4), text)
