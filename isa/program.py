"""A decoded kernel: `Program`, one per kernel, its dwords read once into named instruction records.

Each instruction becomes an `InstructionRecord` (pc, dword address, size, opcode-table entry,
operands, branch target as an instruction index). The words are validated here, so that nothing
that runs or times a program meets a bad one. Whatever executes, times, traces or steps a kernel
reads these records by name; none of them decodes dwords again, and nothing here knows how an
instruction executes.
"""
from dataclasses import dataclass

import numpy as np

from dmlemu.isa import opcodes as op
from dmlemu.isa.encoding import Instruction, decode, format_instruction

__all__ = ["KernelFault", "InstructionRecord", "Program"]


class KernelFault(Exception):
    """The kernel did something the hardware cannot finish (a hang or an invalid program)."""


@dataclass(frozen=True, slots=True)
class InstructionRecord:
    """One instruction of a Program."""
    pc: int                 # instruction index: the program counter of the executor and the timing model
    address: int            # dword offset of the instruction in the program
    size: int               # dwords: 2, or 3 with a literal
    entry: op.Opcode        # the opcode table's row
    operands: tuple         # Operand (registers, constants, literals) or int (imm14: offset, count)
    target: int | None      # a branch's target instruction index; None for every other instruction

    @property
    def instruction(self):
        """The isa.encoding.Instruction (what format_instruction and encode take)."""
        return Instruction(self.entry, self.operands, self.size)

    @property
    def text(self):
        """Assembly text, branch targets as labels L<address> (what the disassembler prints)."""
        return format_instruction(self.instruction, self.address)


class Program:
    """A decoded kernel: `records`, one InstructionRecord per instruction (indexed by pc), its
    `dwords` and `name`. Read-only once built.

    Validated once here: KernelFault, a sentence naming the program and the dword, for dwords that
    are not 32-bit values, an unknown opcode, an operand code that names no register or constant,
    a register range past the register file, an operand of the wrong kind, a truncated instruction
    (isa.encoding.decode_one), a branch to anything but the start of an instruction, or a last
    instruction that is not s_endpgm or a branch.
    """

    __slots__ = ("dwords", "records", "name", "__weakref__")

    def __init__(self, dwords, name="kernel"):
        try:
            words = tuple(_dword(d) for d in dwords)
        except (TypeError, ValueError, OverflowError) as error:
            raise KernelFault(f"{name}: {error}") from None
        try:
            decoded = decode(words)
        except ValueError as error:
            raise KernelFault(f"{name}: {error}") from None
        index_of = {address: pc for pc, (address, _) in enumerate(decoded)}
        records = []
        for pc, (address, inst) in enumerate(decoded):
            target = None
            for kind, value in zip(inst.opcode.operands, inst.operands):
                if kind == op.LABEL:
                    t = address + inst.dwords + value
                    if t not in index_of:
                        raise KernelFault(f"{name}: branch at dword {address} targets dword {t}, "
                                          f"which is not the start of an instruction (the program has "
                                          f"{len(words)} dwords)")
                    target = index_of[t]
            records.append(InstructionRecord(pc, address, inst.dwords, inst.opcode, inst.operands, target))
        if not records or records[-1].entry.kind not in ("end", "branch"):
            raise KernelFault(f"{name}: the program must end with s_endpgm or a branch")
        object.__setattr__(self, "dwords", words)
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "records", tuple(records))

    def __setattr__(self, attribute, value):
        raise AttributeError(f"a Program is read-only (setting {attribute})")

    def __reduce__(self):
        return Program, (self.dwords, self.name)

    def __len__(self):
        return len(self.records)

    def __repr__(self):
        return f"Program({self.name!r}, {len(self.records)} instructions, {len(self.dwords)} dwords)"


def _dword(value):
    """A program word as an int in 0 .. 2**32 - 1 (ValueError naming it otherwise)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"program word {value!r} is not an integer")
    value = int(value)
    if not 0 <= value <= 0xFFFFFFFF:
        raise ValueError(f"program word {value} is not a 32-bit dword (0 to 0xFFFFFFFF)")
    return value
