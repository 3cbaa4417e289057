"""The dmlemu instruction set: one opcode table and everything derived from it."""
from dmlemu.isa.assembler import AssemblyError, assemble, assemble_file, parse
from dmlemu.isa.disassembler import disassemble
from dmlemu.isa.encoding import Instruction, decode, encode
from dmlemu.isa.opcodes import BY_MNEMONIC, BY_OPCODE, TABLE, Opcode
from dmlemu.isa.program import InstructionRecord, KernelFault, Program

__all__ = ["AssemblyError", "assemble", "assemble_file", "parse", "disassemble", "Instruction",
           "decode", "encode", "BY_MNEMONIC", "BY_OPCODE", "TABLE", "Opcode", "InstructionRecord", "KernelFault",
           "Program"]
