"""The disassembler: program dwords -> assembly text that the assembler accepts again.

Branch targets become labels `L<address>`; literals print as hexadecimal bit patterns so that the
round trip is exact for every type.
"""
from . import opcodes as op
from .encoding import decode
from .operands import LITERAL, format_operand


def format_operand_text(operand, kind):
    if operand.code == LITERAL:
        return f"0x{operand.literal:x}"
    return format_operand(operand)


def format_instruction(inst, address=None, labels=None):
    entry = inst.opcode
    parts = []
    for kind, value in zip(entry.operands, inst.operands):
        if kind == op.LABEL:
            target = None if address is None else address + inst.dwords + value
            parts.append(labels.get(target, f"L{target}") if labels and target in labels else
                         (f"L{target}" if target is not None else f"{value:+d}"))
        elif kind == op.IMM:
            parts.append(str(value))
        else:
            parts.append(format_operand_text(value, kind))
    return entry.mnemonic + (" " + ", ".join(parts) if parts else "")


def disassemble(dwords, with_addresses=False):
    """Assembly text for program dwords."""
    decoded = decode(dwords)
    targets = set()
    for address, inst in decoded:
        for kind, value in zip(inst.opcode.operands, inst.operands):
            if kind == op.LABEL:
                targets.add(address + inst.dwords + value)
    labels = {t: f"L{t}" for t in targets}
    lines = []
    for address, inst in decoded:
        if address in labels:
            lines.append(f"{labels[address]}:")
        text = format_instruction(inst, address, labels)
        lines.append((f"    {text:<48}; {address:04x}" if with_addresses else f"    {text}"))
    return "\n".join(lines) + "\n"
