"""Operands: how registers and constants are named in assembly and numbered in the encoding.

Every operand field of an instruction word is 10 bits (see encoding.py). Its value selects:

    0 .. 105     s0 .. s105          scalar registers (32-bit, one per wave)
    106, 107     vcc_lo, vcc_hi      the vector condition code, as two 32-bit halves
    126, 127     exec_lo, exec_hi    the EXEC mask, as two 32-bit halves
    128 .. 192   0 .. 64             inline integer constants
    193 .. 208   -1 .. -16           inline integer constants
    240 .. 247   0.5 -0.5 1.0 -1.0 2.0 -2.0 4.0 -4.0   inline float constants (float operands only)
    253          scc                 the scalar condition code
    255          literal             a 32-bit literal dword follows the instruction
    256 .. 511   v0 .. v255          vector registers (32-bit, one per lane)

Inline constants take the operand's type: `1` read as f32 is 1.0, read as i64 is 1. A literal gives
the low 32 bits of a 32-bit operand, the low 16 bits of a 16-bit one, is zero- or sign-extended
for 64-bit integers and is the high dword of an f64 (as on AMD GCN).
64-bit operands name register pairs, `s[4:5]` or `v[2:3]`; a 32-bit operand names one register.
"""
import re
from dataclasses import dataclass

NUM_SGPRS = 106
NUM_VGPRS = 256
VCC_LO, VCC_HI = 106, 107
EXEC_LO, EXEC_HI = 126, 127
INLINE_INT_ZERO = 128
INLINE_INT_MAX = 64
INLINE_NEG_BASE = 192          # 193 = -1 ... 208 = -16
INLINE_FLOATS = {240: 0.5, 241: -0.5, 242: 1.0, 243: -1.0, 244: 2.0, 245: -2.0, 246: 4.0, 247: -4.0}
SCC = 253
LITERAL = 255
VGPR_BASE = 256

SPECIAL_NAMES = {VCC_LO: "vcc_lo", VCC_HI: "vcc_hi", EXEC_LO: "exec_lo", EXEC_HI: "exec_hi", SCC: "scc"}
SPECIAL_PAIRS = {VCC_LO: "vcc", EXEC_LO: "exec"}


@dataclass(frozen=True)
class Operand:
    """A decoded operand: its 10-bit code, how many dwords it spans, and a literal if it has one."""
    code: int
    dwords: int = 1
    literal: int | None = None

    @property
    def is_vgpr(self):
        return self.code >= VGPR_BASE

    @property
    def is_sgpr(self):
        return self.code < NUM_SGPRS

    @property
    def is_register(self):
        return self.is_vgpr or self.is_sgpr or self.code in SPECIAL_NAMES

    @property
    def is_inline(self):
        return INLINE_INT_ZERO <= self.code <= INLINE_NEG_BASE + 16 or self.code in INLINE_FLOATS

    @property
    def index(self):
        """Register number within its file."""
        return self.code - VGPR_BASE if self.is_vgpr else self.code


def operand_problem(code, dwords):
    """None when operand code `code` spanning `dwords` dwords names something that exists, else the
    reason as a clause (for decoders of untrusted binaries; the assembler never produces such codes)."""
    if code >= VGPR_BASE:
        first, last = code - VGPR_BASE, code - VGPR_BASE + dwords - 1
        if last >= NUM_VGPRS:
            named = f"v{first}" if dwords == 1 else f"v[{first}:{last}]"
            return f"operand code {code} names {named}; there are {NUM_VGPRS} vector registers, v0 to v{NUM_VGPRS - 1}"
        return None
    if code < NUM_SGPRS:
        last = code + dwords - 1
        if last >= NUM_SGPRS:
            return (f"operand code {code} names s[{code}:{last}]; there are {NUM_SGPRS} scalar registers, "
                    f"s0 to s{NUM_SGPRS - 1}")
        return None
    if code in SPECIAL_NAMES:
        if dwords == 1 or (dwords == 2 and code in SPECIAL_PAIRS):
            return None
        return f"operand code {code} ({SPECIAL_NAMES[code]}) cannot hold a {dwords}-dword value"
    if code == LITERAL or INLINE_INT_ZERO <= code <= INLINE_NEG_BASE + 16 or code in INLINE_FLOATS:
        return None
    return f"operand code {code} names no register or constant"


def inline_value(code):
    """The Python number an inline constant code stands for."""
    if INLINE_INT_ZERO <= code <= INLINE_INT_ZERO + INLINE_INT_MAX:
        return code - INLINE_INT_ZERO
    if INLINE_NEG_BASE < code <= INLINE_NEG_BASE + 16:
        return INLINE_NEG_BASE - code
    return INLINE_FLOATS[code]


def format_operand(operand):
    """Assembly text of an operand (registers and inline constants; literals by the caller)."""
    code, n = operand.code, operand.dwords
    if operand.is_vgpr:
        i = code - VGPR_BASE
        return f"v{i}" if n == 1 else f"v[{i}:{i + n - 1}]"
    if operand.is_sgpr:
        return f"s{code}" if n == 1 else f"s[{code}:{code + n - 1}]"
    if code in SPECIAL_NAMES:
        if n == 2 and code in SPECIAL_PAIRS:
            return SPECIAL_PAIRS[code]
        return SPECIAL_NAMES[code]
    if operand.is_inline:
        return repr(inline_value(code)) if code in INLINE_FLOATS else str(inline_value(code))
    raise ValueError(f"operand code {code} has no text form")


_RANGE = re.compile(r"^([sv])\[(\d+):(\d+)\]$")
_SINGLE = re.compile(r"^([sv])(\d+)$")


def parse_register(text):
    """(code, dwords) for register text such as v3, s[4:7], vcc, exec_lo; None if not a register."""
    text = text.strip().lower()
    m = _SINGLE.match(text)
    if m:
        kind, i = m.group(1), int(m.group(2))
        return _register_code(kind, i, text), 1
    m = _RANGE.match(text)
    if m:
        kind, lo, hi = m.group(1), int(m.group(2)), int(m.group(3))
        if hi < lo:
            raise ValueError(f"register range {text} runs backwards")
        code = _register_code(kind, lo, text)
        _register_code(kind, hi, text)
        return code, hi - lo + 1
    for code, name in SPECIAL_NAMES.items():
        if text == name:
            return code, 1
    for code, name in SPECIAL_PAIRS.items():
        if text == name:
            return code, 2
    return None


def _register_code(kind, index, text):
    if kind == "v":
        if index >= NUM_VGPRS:
            raise ValueError(f"{text}: there are {NUM_VGPRS} vector registers, v0 to v{NUM_VGPRS - 1}")
        return VGPR_BASE + index
    if index >= NUM_SGPRS:
        raise ValueError(f"{text}: there are {NUM_SGPRS} scalar registers, s0 to s{NUM_SGPRS - 1}")
    return index


def inline_code_for(value, is_float_type):
    """The inline constant code for a number, or None when it needs a literal."""
    if isinstance(value, int) and not isinstance(value, bool):
        if 0 <= value <= INLINE_INT_MAX:
            return INLINE_INT_ZERO + value
        if -16 <= value <= -1:
            return INLINE_NEG_BASE - value
        return None
    if is_float_type:
        if value != value or value in (float("inf"), float("-inf")):
            return None   # inf and nan are literals (int() of them would raise)
        for code, f in INLINE_FLOATS.items():
            if f == value and str(value) != "-0.0":
                return code
        if value == int(value) and 0 <= value <= INLINE_INT_MAX and str(value) != "-0.0":
            return INLINE_INT_ZERO + int(value)
        if value == int(value) and -16 <= value <= -1:
            return INLINE_NEG_BASE - int(value)
    return None
