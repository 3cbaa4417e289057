"""The disassembler: program dwords -> assembly text that the assembler accepts again.

Branch targets become labels `L<address>`; literals print as hexadecimal bit patterns so that the
round trip is exact for every type.
"""
from dmlemu.isa import opcodes as op
from dmlemu.isa.encoding import decode, format_instruction


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
