"""The dmlemu instruction set: one opcode table and everything derived from it."""
from .assembler import AssemblyError, assemble, assemble_file, parse
from .disassembler import disassemble
from .encoding import Instruction, decode, encode
from .opcodes import BY_MNEMONIC, BY_OPCODE, TABLE, Opcode

__all__ = ["AssemblyError", "assemble", "assemble_file", "parse", "disassemble", "Instruction",
           "decode", "encode", "BY_MNEMONIC", "BY_OPCODE", "TABLE", "Opcode"]
