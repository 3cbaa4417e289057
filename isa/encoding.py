"""Binary encoding: how one instruction becomes 64-bit words, and back.

Every instruction is one 64-bit word (two little-endian dwords), followed by one 32-bit literal
dword when an operand uses the literal code 255. Fields of the word:

    bits  0..9    opcode (10 bits; unique across the whole table)
    bits 10..19   operand slot 0 (10-bit operand code, see operands.py)
    bits 20..29   operand slot 1
    bits 30..39   operand slot 2
    bits 40..49   operand slot 3
    bits 50..63   imm14: a branch offset (signed, in dwords from the next instruction) or an
                  unsigned immediate (memory offset in bytes, wait count)

Register and constant operands fill slots 0, 1, 2, 3 in assembly order; a LABEL or IMM operand
goes to imm14. Each format uses the slots its operand kinds need and leaves the rest zero; the
format name (SOP1, VOP2, MUBUF, ...) is documentation of the operand shape, not extra bits.
"""
from dataclasses import dataclass

from dmlemu.isa import opcodes as op
from dmlemu.isa.operands import LITERAL, Operand, format_operand

OPCODE_BITS = (0, 10)
SLOT_BITS = ((10, 10), (20, 10), (30, 10), (40, 10))
IMM_BITS = (50, 14)
FIELDS = {"opcode": OPCODE_BITS, "slot0": SLOT_BITS[0], "slot1": SLOT_BITS[1],
          "slot2": SLOT_BITS[2], "slot3": SLOT_BITS[3], "imm14": IMM_BITS}
IMM_MIN, IMM_MAX = -(1 << 13), (1 << 13) - 1
UIMM_MAX = (1 << 14) - 1


@dataclass(frozen=True)
class Instruction:
    """One decoded instruction: its table entry, operands (Operand or int immediates), size."""
    opcode: op.Opcode
    operands: tuple
    dwords: int

    def __str__(self):
        return format_instruction(self)


def layout(entry):
    """For each operand of an entry: ('slot', i) or ('imm', None)."""
    places, slot = [], 0
    for kind in entry.operands:
        if kind in (op.LABEL, op.IMM):
            places.append(("imm", None))
        else:
            places.append(("slot", slot))
            slot += 1
    if slot > len(SLOT_BITS):
        raise ValueError(f"{entry.mnemonic} needs {slot} operand slots; the encoding has {len(SLOT_BITS)}")
    return tuple(places)


def _put(word, bits, value):
    start, width = bits
    if not 0 <= value < 1 << width:
        raise ValueError(f"value {value} does not fit in {width} bits")
    return word | (value << start)


def _get(word, bits):
    start, width = bits
    return (word >> start) & ((1 << width) - 1)


def encode(instruction):
    """The dwords of one instruction (a list of ints)."""
    entry = instruction.opcode
    word = _put(0, OPCODE_BITS, entry.opcode)
    literal = None
    for (place, slot), kind, value in zip(layout(entry), entry.operands, instruction.operands):
        if place == "imm":
            if kind == op.LABEL:
                if not IMM_MIN <= value <= IMM_MAX:
                    raise ValueError(f"branch offset {value} dwords is out of range {IMM_MIN}..{IMM_MAX}")
                value &= UIMM_MAX
            elif not 0 <= value <= UIMM_MAX:
                raise ValueError(f"immediate {value} is out of range 0..{UIMM_MAX}")
            word = _put(word, IMM_BITS, value)
        else:
            word = _put(word, SLOT_BITS[slot], value.code)
            if value.code == LITERAL:
                literal = value.literal
    dwords = [word & 0xFFFFFFFF, word >> 32]
    if literal is not None:
        dwords.append(literal & 0xFFFFFFFF)
    return dwords


def decode_one(dwords, index):
    """Decode the instruction starting at dwords[index]; returns an Instruction."""
    if index + 1 >= len(dwords):
        raise ValueError(f"truncated instruction at dword {index}")
    word = int(dwords[index]) | (int(dwords[index + 1]) << 32)
    code = _get(word, OPCODE_BITS)
    entry = op.BY_OPCODE.get(code)
    if entry is None:
        raise ValueError(f"unknown opcode 0x{code:03x} at dword {index}")
    operands, size = [], 2
    for (place, slot), kind, width in zip(layout(entry), entry.operands, entry.widths):
        if place == "imm":
            value = _get(word, IMM_BITS)
            if kind == op.LABEL and value > IMM_MAX:
                value -= 1 << 14
            operands.append(value)
        else:
            c = _get(word, SLOT_BITS[slot])
            literal = None
            if c == LITERAL:
                if index + 2 >= len(dwords):
                    raise ValueError(f"missing literal dword after instruction at dword {index}")
                literal = int(dwords[index + 2])
                size = 3
            operands.append(Operand(c, width, literal))
    return Instruction(entry, tuple(operands), size)


def decode(dwords):
    """Decode a whole program: list of (dword address, Instruction)."""
    out, i = [], 0
    while i < len(dwords):
        inst = decode_one(dwords, i)
        out.append((i, inst))
        i += inst.dwords
    return out


# ---- text: what the disassembler prints and the assembler reads back ------------------------------
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
