"""Generates docs/ISA.md from the opcode table, so the reference can never drift from the code."""
from dmlemu.isa import opcodes as op
from dmlemu.isa import encoding, operands

HEADER = """# The dmlemu instruction set

Generated from `isa/opcodes.py` by `dmlemu isa-doc` (or `make isa-doc`); do not edit by hand.
A test fails when this file is stale.

dmlemu kernels run on a small vector ISA in the style of AMD GCN/RDNA: scalar (`s_`) instructions
run once per wave, vector (`v_`) instructions once per active lane, under the EXEC mask. 64-bit
values live in register pairs. See README.md for how a wave executes.
"""


def _encoding_section():
    lines = ["## Encoding", "", "Every instruction is one 64-bit word, plus one 32-bit literal dword when an "
             "operand uses code 255.", "", "| field | bits |", "|---|---|"]
    for name, (start, width) in encoding.FIELDS.items():
        lines.append(f"| {name} | {start}..{start + width - 1} |")
    lines += ["", "Register and constant operands fill slot0..slot3 in assembly order; a label or immediate "
              "goes to imm14 (branch offsets are signed dwords from the next instruction).", "",
              "### Operand codes", "", "```", operands.__doc__.split("\n\n", 1)[1].strip(), "```", ""]
    return lines


def generate():
    lines = [HEADER]
    lines += _encoding_section()
    lines += ["## Instructions", "",
              f"{len(op.TABLE)} instructions. Cycles: issue / latency, as the timing model charges them; a VALU "
              "instruction's issue cycles are those of its rate class on the adapter preset "
              "(`valu_rate_cycles`; \"full\" is the table's figure).", ""]
    for unit in op.UNITS:
        entries = sorted((e for e in op.TABLE if e.unit == unit), key=lambda e: e.opcode)
        if not entries:
            continue
        lines += [f"### {unit}", "", "| opcode | mnemonic | format | operands | types | cycles | rate class | description |",
                  "|---|---|---|---|---|---|---|---|"]
        for e in entries:
            ops = ", ".join(e.operands) or "-"
            types = ", ".join(t or "-" for t in e.types) or "-"
            lines.append(f"| 0x{e.opcode:03x} | `{e.mnemonic}` | {e.fmt} | {ops} | {types} | "
                         f"{e.issue_cycles} / {e.latency_cycles} | {e.rate_class} | {e.doc} |")
        lines.append("")
    return "\n".join(lines)
