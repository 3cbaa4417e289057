"""Assembling kernel sources to binaries and back: the library behind `dmlemu asm` and `dmlemu disasm`.

A binary is the program's dwords, little-endian, nothing else (the same words the executor decodes);
a compute shader source (one with .numthreads, isa/shader_binary.py) becomes the compute shader
binary instead: a header, then those dwords (what CreateComputePipelineState takes).
The sources in kernels/ serve many data types, so they need symbols: `parse_variant` turns
'CLIP:FLOAT16[:packed][:sb][:half]' into the symbol set kernels.build_program uses
(kernels.variant_symbols); `-D NAME=VALUE` symbols are added on top.
"""
import os
import stat

import numpy as np

from dmlemu.isa.assembler import assemble, read_source
from dmlemu.isa.disassembler import disassemble
from dmlemu.isa.shader_binary import (CBV, ROOT_CONSTANTS, SRV, UAV, assemble_shader, is_shader_binary, is_shader_source,
                                      parse_shader_binary)
from dmlemu.kernels.driver import KERNEL_DIR, SOURCES, VARIANTS, variant_symbols

from dmlemu.tools.operators import OPERATORS, UsageError, parse_data_type, parse_operator

__all__ = ["parse_variant", "parse_defines", "assemble_source", "read_binary", "to_bytes", "from_bytes",
           "disassemble_bytes", "kernel_source", "MAX_BINARY_BYTES", "assemble_shader_source", "describe_shader"]

_VARIANT_FLAGS = ("packed", "sb", "half")


def parse_variant(text):
    """'CLIP:FLOAT16:packed:sb' -> (operator name, data type, packed, scale_bias, half)."""
    parts = [p.strip() for p in text.split(":")]
    if len(parts) < 2:
        raise UsageError(f"variant {text!r} must be OPERATOR:DTYPE[:packed][:sb][:half], e.g. CLIP:FLOAT16:packed")
    operator = OPERATORS[parse_operator(parts[0])]
    data_type = parse_data_type(parts[1])
    if data_type not in VARIANTS:
        raise UsageError(f"the kernels have no {data_type} variant")
    flags = [p.lower() for p in parts[2:]]
    for f in flags:
        if f not in _VARIANT_FLAGS:
            raise UsageError(f"variant flag {f!r} is not one of {', '.join(_VARIANT_FLAGS)}")
    return operator, data_type, "packed" in flags, "sb" in flags, "half" in flags


def parse_defines(items):
    """['NAME=VALUE', ...] -> {NAME: int or text}."""
    symbols = {}
    for item in items or ():
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise UsageError(f"-D {item!r} must be NAME=VALUE")
        value = value.strip()
        try:
            symbols[name.strip()] = int(value, 0)
        except ValueError:
            symbols[name.strip()] = value
    return symbols


def kernel_source(operator):
    """Path of an operator's kernel source ('CLIP' or 'ELEMENT_WISE_CLIP')."""
    return os.path.join(KERNEL_DIR, SOURCES[OPERATORS[parse_operator(operator)]])


def assemble_source(path, variant=None, defines=None):
    """Assemble a source file with a variant's symbols and -D symbols; returns the dwords.

    The file must be UTF-8 text within the assembler's limits (isa.assembler.read_source)."""
    symbols = variant_symbols(*parse_variant(variant)) if variant else {}
    symbols.update(parse_defines(defines))
    return assemble(read_source(path), symbols, path)


# A program binary larger than this is refused before it is read (1 Mi dwords: far more than any
# kernel; branch offsets reach only 8 Ki dwords).
MAX_BINARY_BYTES = 4 << 20


def read_binary(path):
    """The bytes of a program binary: a regular file of at most MAX_BINARY_BYTES (UsageError
    otherwise; OSError, such as a missing file, passes through)."""
    with open(path, "rb") as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            raise UsageError(f"{path} is not a regular file; a program binary must be a file")
        data = f.read(MAX_BINARY_BYTES + 1)
    if len(data) > MAX_BINARY_BYTES:
        raise UsageError(f"{path} is larger than {MAX_BINARY_BYTES} bytes, the limit on a program binary")
    return data


def to_bytes(dwords):
    return np.asarray(dwords, dtype="<u4").tobytes()


def from_bytes(data):
    if len(data) % 4:
        raise UsageError(f"a program binary is whole little-endian dwords; this one has {len(data)} bytes")
    return [int(d) for d in np.frombuffer(data, dtype="<u4")]


def disassemble_bytes(data, with_addresses=False):
    """A binary's text: a compute shader's header as comments and its program, or a bare program's."""
    if is_shader_binary(data):
        return describe_shader(parse_shader_binary(data), with_addresses)
    return disassemble(from_bytes(data), with_addresses=with_addresses)


def assemble_shader_source(path, defines=None):
    """A ShaderBinary when the source is a compute shader (a top-level .numthreads), else None."""
    text = read_source(path)
    if not is_shader_source(text):
        return None
    return assemble_shader(text, parse_defines(defines), path)


def describe_shader(shader, with_addresses=True):
    """A compute shader binary as text the assembler accepts again: its directives, then its program."""
    lines = [f"; compute shader {shader.name}: {shader.vgprs} VGPRs, {shader.sgprs} SGPRs",
             f".numthreads {', '.join(map(str, shader.numthreads))}"]
    for b in shader.bindings:
        directive = {SRV: ".srv", UAV: ".uav", CBV: ".cbv", ROOT_CONSTANTS: ".root_constants"}[b.kind]
        count = f", {b.count}" if b.kind == ROOT_CONSTANTS else ""
        space = f", space{b.space}" if b.space else ""
        lines.append(f"{directive} {b.name.split(',')[0]}{count}{space}")
    if shader.lds_bytes:
        lines.append(f".lds {shader.lds_bytes}")
    return "\n".join(lines) + "\n" + disassemble(list(shader.program), with_addresses=with_addresses)
