"""The compute shader binary: a dmlemu program with a small header, what CreateComputePipelineState
takes as D3D12_SHADER_BYTECODE.

A shader source is a kernel source (isa/assembler.py syntax) with a few directives at its top level
that say how it is launched and which resources it reads, as HLSL's [numthreads] and register()
bindings do:

    .numthreads 64, 1, 1            threads per group, X, Y, Z (Y and Z default to 1)
    .srv t0                         a shader-resource view (read through a buffer descriptor)
    .uav u0                         an unordered-access view (read and written through a descriptor)
    .cbv b1                         a constant buffer read through a descriptor
    .root_constants b0, 2           2 constants of register b0, handed to the kernel in SGPRs
    .lds 4352                       bytes of LDS each thread group owns (HLSL groupshared); default 0
    (each binding may end with `, space1` for register space 1; the default is space 0)

The directives are read before the preprocessor runs, so they may not sit inside .if blocks or
included files. Every .srv/.uav/.cbv binding gets one 32-byte slot of the launch's binding table, in
the order the source declares them; the assembler symbol SLOT_<REGISTER> (SLOT_T0, SLOT_U0, SLOT_B1)
is that slot's byte offset. Root constants are not in the table: they arrive in s5 .. s20, the
bindings' values one after another in declaration order; RC_<REGISTER> (RC_B0) is the number of the
first SGPR of a binding (5 for the first). The full launch ABI is docs/KERNEL_ABI.md.

Container layout (little-endian dwords):

    dword 0        magic 'DMCS' (0x53434D44)
    dword 1        version (2; version 1, which has no dword 17, is read as 0 bytes of LDS)
    dwords 2 .. 4  numthreads X, Y, Z
    dword 5        VGPRs the program uses (v0 .. v<n-1>)
    dword 6        SGPRs the program uses (s0 .. s<n-1>)
    dword 7        number of bindings N
    dword 8        number of program dwords M
    dwords 9 .. 16 the shader's name, UTF-8, zero-padded to 32 bytes
    dword 17       bytes of LDS each thread group owns (the .lds directive; a multiple of 4, at most
                   MAX_LDS_BYTES; whether the adapter has that much is CreateComputePipelineState's check)
    then N bindings of 4 dwords: kind (0 SRV, 1 UAV, 2 CBV, 3 root constants), register, space,
                   count (root constants: how many 32-bit values; else 0)
    then M program dwords

`parse_shader_binary` reads untrusted bytes and raises ShaderBinaryError, one sentence naming the
field, its value and the rule, for anything else; `assemble_shader` builds one from source text.
"""
import re
from dataclasses import dataclass

from dmlemu.isa.assembler import AssemblyError, assemble
from dmlemu.isa.encoding import decode
from dmlemu.isa.operands import NUM_SGPRS, NUM_VGPRS

__all__ = ["ShaderBinding", "ShaderBinary", "ShaderBinaryError", "parse_shader_binary", "assemble_shader",
           "is_shader_source", "is_shader_binary", "registers_used", "MAGIC", "SRV", "UAV", "CBV", "ROOT_CONSTANTS",
           "KIND_NAMES", "ROOT_CONSTANT_FIRST_SGPR", "MAX_ROOT_CONSTANTS", "GROUP_ID_SGPR", "ABI_SGPRS",
           "TABLE_SLOT_BYTES", "MAX_LDS_BYTES"]

MAGIC = 0x53434D44          # b"DMCS" read as a little-endian dword
VERSION = 2
VERSIONS = (1, 2)               # version 1: no LDS dword (the header is one dword shorter)
HEADER_DWORDS = 18
HEADER_DWORDS_V1 = 17
NAME_BYTES = 32
SRV, UAV, CBV, ROOT_CONSTANTS = 0, 1, 2, 3          # SRV .. CBV: D3D12_DESCRIPTOR_RANGE_TYPE's values
KIND_NAMES = {SRV: "SRV", UAV: "UAV", CBV: "CBV", ROOT_CONSTANTS: "root constants"}
REGISTER_LETTER = {SRV: "t", UAV: "u", CBV: "b", ROOT_CONSTANTS: "b"}
TABLE_SLOT_BYTES = 32           # one buffer descriptor slot (functional/buffer_descriptor.DESCRIPTOR_SIZE)
ROOT_CONSTANT_FIRST_SGPR = 5    # the launch ABI: s[0:1] binding table, s2..s4 group counts, s5..s20 constants
MAX_ROOT_CONSTANTS = 16
GROUP_ID_SGPR = ROOT_CONSTANT_FIRST_SGPR + MAX_ROOT_CONSTANTS    # s21..s23: this group's X, Y, Z
ABI_SGPRS = GROUP_ID_SGPR + 3   # SGPRs the launch fills: every compute shader occupies at least these
MAX_BINDINGS = 64
MAX_PROGRAM_DWORDS = 1 << 20
MAX_THREADS = 1024              # D3D12_CS_THREAD_GROUP_MAX_THREADS_PER_GROUP
MAX_NUMTHREADS = (1024, 1024, 64)   # D3D12_CS_THREAD_GROUP_MAX_X / _Y / _Z
# The container's own bound on .lds (a sanity bound on untrusted bytes, far above any GPU's LDS);
# the API's limit, D3D12_CS_TGSM_REGISTER_COUNT dwords = 32 KiB, is checked by CreateComputePipelineState.
MAX_LDS_BYTES = 1 << 20


class ShaderBinaryError(ValueError):
    """Bytes that are not a valid compute shader binary; the message is one sentence."""


@dataclass(frozen=True)
class ShaderBinding:
    """One resource the shader reads: kind (SRV, UAV, CBV, ROOT_CONSTANTS), register, space, count."""
    kind: int
    register: int
    space: int = 0
    count: int = 0

    @property
    def name(self):
        """HLSL's spelling: t0, u1, b0, with ', space1' when the space is not 0."""
        text = f"{REGISTER_LETTER[self.kind]}{self.register}"
        return text if self.space == 0 else f"{text}, space{self.space}"

    @property
    def symbol(self):
        """The register as a symbol suffix: T0, U1, B0 (space 1: U1_SPACE1)."""
        text = f"{REGISTER_LETTER[self.kind]}{self.register}".upper()
        return text if self.space == 0 else f"{text}_SPACE{self.space}"


@dataclass(frozen=True)
class ShaderBinary:
    """A parsed compute shader: launch shape, register use, bindings and program dwords."""
    numthreads: tuple
    vgprs: int
    sgprs: int
    bindings: tuple
    program: tuple
    name: str = "shader"
    lds_bytes: int = 0

    @property
    def table_bindings(self):
        """The bindings with a binding-table slot (SRV, UAV, CBV), in slot order."""
        return tuple(b for b in self.bindings if b.kind != ROOT_CONSTANTS)

    @property
    def constant_bindings(self):
        return tuple(b for b in self.bindings if b.kind == ROOT_CONSTANTS)

    @property
    def threads_per_group(self):
        x, y, z = self.numthreads
        return x * y * z

    def to_bytes(self):
        name = self.name.encode("utf-8")[:NAME_BYTES].ljust(NAME_BYTES, b"\0")
        words = [MAGIC, VERSION, *self.numthreads, self.vgprs, self.sgprs, len(self.bindings), len(self.program)]
        words += [int.from_bytes(name[i:i + 4], "little") for i in range(0, NAME_BYTES, 4)]
        words.append(self.lds_bytes)
        for b in self.bindings:
            words += [b.kind, b.register, b.space, b.count]
        words += list(self.program)
        return b"".join(w.to_bytes(4, "little") for w in words)


def is_shader_binary(data):
    """True when bytes start with the container's magic."""
    return len(data) >= 4 and int.from_bytes(bytes(data[:4]), "little") == MAGIC


def registers_used(dwords):
    """(VGPRs, SGPRs) a program's instructions name: one past the highest register of each file."""
    vgprs = sgprs = 0
    for _, inst in decode(dwords):
        for operand in inst.operands:
            if not hasattr(operand, "code"):
                continue
            if operand.is_vgpr:
                vgprs = max(vgprs, operand.index + operand.dwords)
            elif operand.is_sgpr:
                sgprs = max(sgprs, operand.index + operand.dwords)
    return vgprs, sgprs


def parse_shader_binary(data):
    """A ShaderBinary from untrusted bytes; ShaderBinaryError (a sentence) when they are not one.

    Checks the container only (magic, version, sizes, limits, bindings); whether the program dwords
    decode, and whether the program stays inside its declared registers, is checked by the caller
    that decodes it (CreateComputePipelineState)."""
    data = bytes(data)
    if len(data) < HEADER_DWORDS_V1 * 4:
        raise ShaderBinaryError(f"the bytecode is {len(data)} bytes; a compute shader binary has a "
                                f"{HEADER_DWORDS_V1 * 4}-byte header at least")
    if len(data) % 4:
        raise ShaderBinaryError(f"the bytecode is {len(data)} bytes; a compute shader binary is whole dwords")
    words = [int.from_bytes(data[i:i + 4], "little") for i in range(0, HEADER_DWORDS_V1 * 4, 4)]
    if words[0] != MAGIC:
        raise ShaderBinaryError(f"the bytecode starts with 0x{words[0]:08X}; a dmlemu compute shader starts with "
                                f"the magic 0x{MAGIC:08X} ('DMCS', what `dmlemu asm` writes for a source with "
                                ".numthreads)")
    if words[1] not in VERSIONS:
        raise ShaderBinaryError(f"the header's version is {words[1]}; this emulator reads versions "
                                f"{' and '.join(map(str, VERSIONS))}")
    header_dwords, lds_bytes = HEADER_DWORDS_V1, 0
    if words[1] >= 2:
        header_dwords = HEADER_DWORDS
        if len(data) < header_dwords * 4:
            raise ShaderBinaryError(f"the bytecode is {len(data)} bytes; a version {words[1]} compute shader "
                                    f"binary has a {header_dwords * 4}-byte header")
        lds_bytes = int.from_bytes(data[HEADER_DWORDS_V1 * 4:header_dwords * 4], "little")
        _check_lds(lds_bytes, ShaderBinaryError, "the header's LDS size")
    numthreads = tuple(words[2:5])
    for axis, value, limit in zip("XYZ", numthreads, MAX_NUMTHREADS):
        if not 1 <= value <= limit:
            raise ShaderBinaryError(f"numthreads {axis} is {value}; it must be 1 to {limit}")
    total = numthreads[0] * numthreads[1] * numthreads[2]
    if total > MAX_THREADS:
        raise ShaderBinaryError(f"numthreads {numthreads[0]} x {numthreads[1]} x {numthreads[2]} is {total} threads; "
                                f"a thread group has at most {MAX_THREADS}")
    vgprs, sgprs, count, length = words[5:9]
    if not vgprs <= NUM_VGPRS:
        raise ShaderBinaryError(f"the header declares {vgprs} VGPRs; there are {NUM_VGPRS}")
    if not sgprs <= NUM_SGPRS:
        raise ShaderBinaryError(f"the header declares {sgprs} SGPRs; there are {NUM_SGPRS}")
    if count > MAX_BINDINGS:
        raise ShaderBinaryError(f"the header declares {count} bindings; a shader has at most {MAX_BINDINGS}")
    if not 1 <= length <= MAX_PROGRAM_DWORDS:
        raise ShaderBinaryError(f"the header declares {length} program dwords; a program has 1 to "
                                f"{MAX_PROGRAM_DWORDS}")
    expected = (header_dwords + 4 * count + length) * 4
    if len(data) != expected:
        raise ShaderBinaryError(f"the bytecode is {len(data)} bytes, but its header ({count} bindings, {length} "
                                f"program dwords) makes it {expected} bytes ({'truncated' if len(data) < expected else 'extra bytes at the end'})")
    raw_name = data[9 * 4:17 * 4].rstrip(b"\0")
    try:
        name = raw_name.decode("utf-8")
    except UnicodeDecodeError:
        raise ShaderBinaryError("the header's name is not UTF-8 text") from None
    if not name.isprintable():
        raise ShaderBinaryError(f"the header's name {name!r} has characters that are not printable")
    bindings, seen, constants = [], {}, 0
    base = header_dwords * 4
    for i in range(count):
        kind, register, space, number = (int.from_bytes(data[base + 16 * i + 4 * k:base + 16 * i + 4 * k + 4], "little")
                                         for k in range(4))
        if kind not in KIND_NAMES:
            raise ShaderBinaryError(f"binding {i} has kind {kind}; it must be 0 (SRV), 1 (UAV), 2 (CBV) or 3 "
                                    "(root constants)")
        binding = ShaderBinding(kind, register, space, number)
        if kind == ROOT_CONSTANTS:
            if number == 0:
                raise ShaderBinaryError(f"binding {i} ({binding.name}) is root constants of 0 values; it needs "
                                        "at least 1")
            constants += number
        elif number:
            raise ShaderBinaryError(f"binding {i} ({binding.name}) is a {KIND_NAMES[kind]} with count {number}; only "
                                    "root constants have a count")
        key = (REGISTER_LETTER[kind], register, space)
        if key in seen:
            raise ShaderBinaryError(f"binding {i} ({binding.name}) repeats binding {seen[key]}; each register is "
                                    "bound once")
        seen[key] = i
        bindings.append(binding)
    if constants > MAX_ROOT_CONSTANTS:
        raise ShaderBinaryError(f"the bindings declare {constants} root constants; the launch has "
                                f"{MAX_ROOT_CONSTANTS} SGPRs for them (s{ROOT_CONSTANT_FIRST_SGPR} to "
                                f"s{ROOT_CONSTANT_FIRST_SGPR + MAX_ROOT_CONSTANTS - 1})")
    start = base + 16 * count
    program = tuple(int.from_bytes(data[start + 4 * k:start + 4 * k + 4], "little") for k in range(length))
    return ShaderBinary(numthreads, vgprs, sgprs, tuple(bindings), program, name or "shader", lds_bytes)


def _check_lds(value, error, what):
    """The rule on an LDS size: whole dwords, 0 to MAX_LDS_BYTES; `error` (a sentence) otherwise."""
    if not 0 <= value <= MAX_LDS_BYTES:
        raise error(f"{what} is {value} bytes; it must be 0 to {MAX_LDS_BYTES} (CreateComputePipelineState then "
                    "checks it against D3D12's 32 KiB of groupshared memory)")
    if value % 4:
        raise error(f"{what} is {value} bytes; it must be a multiple of 4 (LDS is allocated in dwords)")


# ---- building from source ------------------------------------------------------------------------
_DIRECTIVES = (".numthreads", ".srv", ".uav", ".cbv", ".root_constants", ".lds")
_KIND_OF = {".srv": SRV, ".uav": UAV, ".cbv": CBV, ".root_constants": ROOT_CONSTANTS}
_REGISTER = re.compile(r"^([tub])(\d+)$", re.IGNORECASE)
_SPACE = re.compile(r"^space(\d+)$", re.IGNORECASE)


def _code(line):
    for marker in (";", "//"):
        line = line.split(marker, 1)[0]
    return line.strip()


def is_shader_source(text):
    """True when a source has a top-level .numthreads directive (it is a compute shader)."""
    return any(_code(line).split(None, 1)[:1] == [".numthreads"] for line in text.splitlines())


def _uint(text, where, what, low=0, high=0xFFFFFFFF):
    try:
        value = int(text.strip(), 0)
    except ValueError:
        raise AssemblyError(f"{where}: {what} is {text.strip()!r}; it must be an integer") from None
    if not low <= value <= high:
        raise AssemblyError(f"{where}: {what} is {value}; it must be {low} to {high}")
    return value


def _binding(word, fields, where):
    kind = _KIND_OF[word]
    wanted = 2 if kind == ROOT_CONSTANTS else 1
    usage = f"{word} b0, COUNT[, spaceN]" if kind == ROOT_CONSTANTS else \
        f"{word} {REGISTER_LETTER[kind]}0[, spaceN]"
    if not wanted <= len(fields) <= wanted + 1 or not fields[0]:
        raise AssemblyError(f"{where}: {word} takes {usage}")
    m = _REGISTER.match(fields[0])
    if not m or m.group(1).lower() != REGISTER_LETTER[kind]:
        raise AssemblyError(f"{where}: {word} binds a {REGISTER_LETTER[kind]} register "
                            f"({REGISTER_LETTER[kind]}0, {REGISTER_LETTER[kind]}1, ...), not {fields[0]!r}")
    register = _uint(m.group(2), where, "the register number")
    count = _uint(fields[1], where, "the number of root constants", 1, MAX_ROOT_CONSTANTS) \
        if kind == ROOT_CONSTANTS else 0
    space = 0
    if len(fields) > wanted:
        s = _SPACE.match(fields[wanted])
        if not s:
            raise AssemblyError(f"{where}: {fields[wanted]!r} is not a register space; write space0, space1, ...")
        space = _uint(s.group(1), where, "the register space")
    return ShaderBinding(kind, register, space, count)


def assemble_shader(text, symbols=None, filename="<source>", name=None):
    """Assemble a compute shader source (see the module banner) into a ShaderBinary.

    AssemblyError, naming the file and line, for a bad directive, a directive inside .if, a missing
    .numthreads, a register bound twice, or anything the assembler refuses."""
    numthreads, bindings, lines, depth, seen, lds_bytes, lds_line = None, [], [], 0, {}, 0, None
    for number, raw in enumerate(text.splitlines(), 1):
        where = f"{filename}:{number}"
        line = _code(raw)
        word = line.split(None, 1)[0] if line else ""
        if word == ".if":
            depth += 1
        elif word == ".endif":
            depth = max(0, depth - 1)
        if word not in _DIRECTIVES:
            lines.append(raw)
            continue
        lines.append("")              # keep the line numbers of the rest
        if depth:
            raise AssemblyError(f"{where}: {word} may not be inside an .if block; shader directives are read "
                                "before the preprocessor")
        fields = [f.strip() for f in line[len(word):].split(",")] if line[len(word):].strip() else []
        if word == ".numthreads":
            if numthreads is not None:
                raise AssemblyError(f"{where}: .numthreads is given twice")
            if not 1 <= len(fields) <= 3:
                raise AssemblyError(f"{where}: .numthreads takes X[, Y[, Z]]")
            values = [_uint(f, where, f"numthreads {axis}", 1, limit)
                      for f, axis, limit in zip(fields, "XYZ", MAX_NUMTHREADS)]
            numthreads = tuple(values + [1] * (3 - len(values)))
            total = numthreads[0] * numthreads[1] * numthreads[2]
            if total > MAX_THREADS:
                raise AssemblyError(f"{where}: .numthreads {', '.join(map(str, numthreads))} is {total} threads; a "
                                    f"thread group has at most {MAX_THREADS}")
            continue
        if word == ".lds":
            if lds_line is not None:
                raise AssemblyError(f"{where}: .lds is given twice (first at line {lds_line})")
            if len(fields) != 1 or not fields[0]:
                raise AssemblyError(f"{where}: .lds takes BYTES (the thread group's LDS, HLSL groupshared)")
            try:
                lds_bytes = int(fields[0], 0)
            except ValueError:
                raise AssemblyError(f"{where}: the LDS size is {fields[0]!r}; it must be an integer") from None
            _check_lds(lds_bytes, AssemblyError, f"{where}: the LDS size")
            lds_line = number
            continue
        binding = _binding(word, fields, where)
        key = (REGISTER_LETTER[binding.kind], binding.register, binding.space)
        if key in seen:
            raise AssemblyError(f"{where}: {binding.name} is already bound at line {seen[key]}")
        seen[key] = number
        if len(bindings) >= MAX_BINDINGS:
            raise AssemblyError(f"{where}: a shader has at most {MAX_BINDINGS} bindings")
        bindings.append(binding)
    if numthreads is None:
        raise AssemblyError(f"{filename}: a compute shader needs a .numthreads directive (threads per group)")
    constants = sum(b.count for b in bindings if b.kind == ROOT_CONSTANTS)
    if constants > MAX_ROOT_CONSTANTS:
        raise AssemblyError(f"{filename}: the bindings declare {constants} root constants; the launch has "
                            f"{MAX_ROOT_CONSTANTS} SGPRs for them")
    symbols = dict(symbols or {})
    slot, sgpr = 0, ROOT_CONSTANT_FIRST_SGPR
    for b in bindings:
        if b.kind == ROOT_CONSTANTS:
            symbols.setdefault(f"RC_{b.symbol}", sgpr)
            sgpr += b.count
        else:
            symbols.setdefault(f"SLOT_{b.symbol}", slot * TABLE_SLOT_BYTES)
            slot += 1
    program = assemble("\n".join(lines), symbols, filename)
    if not program:
        raise AssemblyError(f"{filename}: the shader has no instructions")
    vgprs, sgprs = registers_used(program)
    if name is None:
        base = re.split(r"[\\/]", filename)[-1]
        name = base.rsplit(".", 1)[0] if "." in base else base
    name = name.encode("utf-8")[:NAME_BYTES].decode("utf-8", "ignore") or "shader"
    return ShaderBinary(numthreads, vgprs, sgprs, tuple(bindings), tuple(program), name, lds_bytes)
