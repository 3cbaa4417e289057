"""The disassembler: program dwords -> assembly text that the assembler accepts again.

Branch targets become labels `L<address>`; literals print as hexadecimal bit patterns so that the
round trip is exact for every type.
"""
from dmlemu.isa import opcodes as op
from dmlemu.isa.encoding import decode, format_instruction


def disassemble(dwords, with_addresses=False):
    """Assembly text for program dwords; ValueError (a sentence naming the dword) for words that
    do not decode (isa.encoding.decode_one) or a branch into the middle of an instruction or past
    the end."""
    decoded = decode(dwords)
    starts = {address for address, _ in decoded}
    targets = set()
    for address, inst in decoded:
        for kind, value in zip(inst.opcode.operands, inst.operands):
            if kind == op.LABEL:
                target = address + inst.dwords + value
                if target not in starts and target != len(dwords):
                    raise ValueError(f"{inst.opcode.mnemonic} at dword {address} branches to dword {target}, "
                                     f"which is not the start of an instruction (the program has "
                                     f"{len(dwords)} dwords)")
                targets.add(target)
    labels = {t: f"L{t}" for t in targets}
    lines = []
    for address, inst in decoded:
        if address in labels:
            lines.append(f"{labels[address]}:")
        text = format_instruction(inst, address, labels)
        lines.append((f"    {text:<48}; {address:04x}" if with_addresses else f"    {text}"))
    if len(dwords) in labels:   # a branch to the end of the program
        lines.append(f"{labels[len(dwords)]}:")
    return "\n".join(lines) + "\n"
