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
from dmlemu.isa.operands import (
    INLINE_FLOATS, LITERAL, NUM_SGPRS, SPECIAL_NAMES, VCC_LO, VGPR_BASE, Operand, format_operand, operand_problem,
)

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
    """Decode the instruction starting at dwords[index]; returns an Instruction.

    Untrusted words are checked: ValueError, a sentence naming the dword, for an unknown opcode, an
    operand code that names no register or constant, a register range past its register file, an
    operand of the wrong kind for its slot (a constant as a destination, a scalar where a vector
    register belongs, ...), set bits in fields the instruction does not use, or a missing dword.
    """
    if index + 1 >= len(dwords):
        raise ValueError(f"truncated instruction at dword {index}: an instruction is 2 dwords, "
                         f"the program has {len(dwords)}")
    word = int(dwords[index]) | (int(dwords[index + 1]) << 32)
    code = _get(word, OPCODE_BITS)
    entry = op.BY_OPCODE.get(code)
    if entry is None:
        raise ValueError(f"unknown opcode 0x{code:03x} at dword {index}")
    operands, size, used = [], 2, _mask(OPCODE_BITS)
    for position, ((place, slot), kind, width) in enumerate(zip(layout(entry), entry.operands, entry.widths)):
        if place == "imm":
            used |= _mask(IMM_BITS)
            value = _get(word, IMM_BITS)
            if kind == op.LABEL and value > IMM_MAX:
                value -= 1 << 14
            operands.append(value)
        else:
            used |= _mask(SLOT_BITS[slot])
            c = _get(word, SLOT_BITS[slot])
            problem = slot_problem(entry, position, c)
            if problem:
                raise ValueError(f"{entry.mnemonic} at dword {index}, operand {position + 1} ({kind}): {problem}")
            literal = None
            if c == LITERAL:
                if index + 2 >= len(dwords):
                    raise ValueError(f"missing literal dword after instruction at dword {index}")
                literal = int(dwords[index + 2])
                size = 3
            operands.append(Operand(c, width, literal))
    if word & ~used:
        raise ValueError(f"{entry.mnemonic} at dword {index} has bits set outside its fields "
                         f"(0x{word & ~used:016x}); unused fields must be 0")
    return Instruction(entry, tuple(operands), size)


def _mask(bits):
    start, width = bits
    return ((1 << width) - 1) << start


def slot_problem(entry, position, code):
    """Why operand code `code` cannot be operand `position` of `entry`, as a clause; None when it can.
    The one rule set of the decoder and the assembler (which checks what it encodes with it too)."""
    kind, type_name = entry.operands[position], entry.types[position]
    problem = operand_problem(code, entry.widths[position]) or _kind_problem(code, kind, type_name)
    if problem is None and entry.kind == "smem" and position == 0 and code >= NUM_SGPRS:
        problem = f"operand code {code} is not a scalar register range; a scalar load writes s registers only"
    return problem


def _kind_problem(code, kind, type_name):
    """Why an operand code (already known to exist) is wrong for an operand kind and type, or None."""
    is_vgpr = code >= VGPR_BASE
    is_register = is_vgpr or code < NUM_SGPRS or code in SPECIAL_NAMES
    if kind in (op.VDST, op.VREG) and not is_vgpr:
        return f"operand code {code} is not a vector register"
    if kind == op.SDST and (is_vgpr or not is_register):
        return f"operand code {code} is not a scalar register"
    if kind == op.SREG and code >= NUM_SGPRS:
        return f"operand code {code} is not a scalar register range"
    if kind == op.SSRC and is_vgpr:
        return f"operand code {code} is a vector register"
    if kind == op.VCCO and code != VCC_LO:
        return f"operand code {code} is not vcc"
    if code in INLINE_FLOATS and type_name not in op.FLOAT_TYPES:
        return f"operand code {code} is the inline float constant {INLINE_FLOATS[code]}; a {type_name} operand " \
               f"takes integer constants only"
    return None


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
