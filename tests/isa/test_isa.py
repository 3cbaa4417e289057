"""The opcode table and everything derived from it: encoding, assembler, disassembler, docs."""
import os

import numpy as np
import pytest

from dmlemu.isa import opcodes as op
from dmlemu.isa import numerics as nm
from dmlemu.isa.assembler import AssemblyError, assemble, parse
from dmlemu.isa.disassembler import disassemble
from dmlemu.tools.docs import isa_doc_text
from dmlemu.isa.encoding import FIELDS, decode, encode, layout

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def sample_operand(kind, type_name, position):
    width = op.TYPES[type_name][1] if type_name else 1
    if kind == op.VDST:
        return "v3" if width == 1 else ("v[16:23]" if width == 8 else "v[4:5]")
    if kind == op.VREG:
        return ("v7" if position == 0 else "v2") if width == 1 else {2: "v[8:9]", 4: "v[8:11]",
                                                                      8: ("v[24:31]", "v[32:39]", "v[40:47]")[position % 3]}[width]
    if kind == op.SDST:
        return {1: "s6", 2: "s[6:7]", 4: "s[8:11]", 8: "s[16:23]"}[width]
    if kind == op.SREG:
        return {2: "s[0:1]", 4: "s[8:11]", 8: "s[16:23]"}[width]
    if kind == op.VCCO:
        return "vcc"
    if kind == op.LABEL:
        return "target"
    if kind == op.IMM:
        return "12"
    if kind == op.SSRC:
        return "s10" if width == 1 else "s[10:11]"
    # VSRC: vary between a VGPR, an SGPR and a constant by position
    if width == 2:
        return ("v[12:13]", "s[14:15]", "3")[position % 3]
    return ("v12", "s14", "-7")[position % 3]


def sample_text(entry):
    ops = [sample_operand(k, t, i) for i, (k, t) in enumerate(zip(entry.operands, entry.types))]
    return f"target:\n    {entry.mnemonic} {', '.join(ops)}\n"


@pytest.mark.parametrize("entry", op.TABLE, ids=lambda e: e.mnemonic)
def test_round_trip_every_opcode(entry):
    dwords = assemble(sample_text(entry))
    decoded = decode(dwords)
    assert len(decoded) == 1 and decoded[0][1].opcode is entry
    text = disassemble(dwords)
    assert assemble(text) == dwords
    assert encode(decoded[0][1]) == dwords


def test_round_trip_literals_of_every_type():
    src = ("v_add_f32 v1, v2, 1.5\nv_add_f16 v1, v2, 0.1875\nv_add_f64 v[2:3], v[4:5], 1.5\n"
           "v_add_u32 v1, v2, 123456\nv_min_i64 v[2:3], v[2:3], -1000\ns_add_u32 s1, s2, 0xdeadbeef\n")
    dwords = assemble(src)
    assert assemble(disassemble(dwords)) == dwords


def test_opcodes_and_mnemonics_are_unique():
    assert len({e.opcode for e in op.TABLE}) == len(op.TABLE)
    assert len({e.mnemonic for e in op.TABLE}) == len(op.TABLE)
    assert all(0 <= e.opcode < 1 << FIELDS["opcode"][1] for e in op.TABLE)


def test_encoding_fields_never_overlap():
    used = 0
    for name, (start, width) in FIELDS.items():
        bits = ((1 << width) - 1) << start
        assert used & bits == 0, f"field {name} overlaps another"
        used |= bits
    assert used < 1 << 64
    for entry in op.TABLE:
        slots = [s for place, s in layout(entry) if place == "slot"]
        assert slots == list(range(len(slots)))
        assert sum(1 for place, _ in layout(entry) if place == "imm") <= 1


def test_every_entry_is_complete():
    for e in op.TABLE:
        assert e.doc and e.unit in op.UNITS and e.fmt in op.FORMATS
        assert e.issue_cycles >= 1 and e.latency_cycles >= 1
        if e.kind in ("alu", "vcmp", "scmp", "ctx", "branch"):
            assert callable(e.semantics), e.mnemonic


def test_isa_doc_is_not_stale():
    with open(os.path.join(ROOT, "docs", "ISA.md"), encoding="utf-8") as f:
        assert f.read() == isa_doc_text(), "docs/ISA.md is stale: run `make isa-doc`"


@pytest.mark.parametrize("source, message", [
    ("v_frobnicate v1, v2", "<source>:1: unknown instruction v_frobnicate"),
    ("v_add_f32 v1, v2", "<source>:1: v_add_f32 takes 3 operand(s) (vdst, vsrc, vsrc), got 2"),
    ("v_add_f32 s1, v2, v3", "<source>:1: v_add_f32 operand s1 is not allowed as a vdst operand"),
    ("v_add_f64 v1, v[2:3], v[4:5]", "<source>:1: v_add_f64 operand v1 spans 1 dword(s); a f64 operand needs 2"),
    ("s_branch nowhere\ns_endpgm", "<source>:1: s_branch jumps to undefined label nowhere"),
    ("v_mov_b32 v300, 0", "<source>:1: v_mov_b32: v300: there are 256 vector registers, v0 to v255"),
    ("v_add_f32 v1, v2, 0.1", "<source>:1: v_add_f32: 0.1 is not exactly representable as f32"),
    (".if UNDEFINED\n.endif", "<source>:1: .if uses undefined symbol UNDEFINED"),
    ("v_add_u32 v1, 100000, 200000", "<source>:1: v_add_u32 uses two different literals; only one fits"),
])
def test_assembler_errors_are_sentences(source, message):
    with pytest.raises(AssemblyError) as e:
        parse(source)
    assert str(e.value) == message


def test_preprocessor_conditionals_and_substitution():
    src = ".set T, f32\n.if A == 1\nv_add_${T} v1, v1, v1\n.else\nv_mul_${T} v1, v1, v1\n.endif\ns_endpgm\n"
    a = parse(src, {"A": 1})
    b = parse(src, {"A": 0})
    assert a[0].opcode.mnemonic == "v_add_f32" and b[0].opcode.mnemonic == "v_mul_f32"


def test_branch_offsets_resolve_backwards_and_forwards():
    program = parse("top:\ns_nop 0\ns_cbranch_scc1 top\ns_branch end\nend:\ns_endpgm")
    assert program[1].operands[0] == -4  # back over itself and s_nop
    assert program[2].operands[0] == 0


# ---- semantics spot checks (the kernels' bit-exactness is tested against the golden model) ----
def f32(*values):
    return np.array(values, dtype=np.float32).reshape(1, -1)


def bits(a):
    return a.view(np.uint32 if a.dtype == np.float32 else np.uint16)


def test_min_max_signed_zero_and_nan():
    a, b = f32(-0.0, 0.0, np.nan, 1.0, np.nan), f32(0.0, -0.0, 2.0, np.nan, np.nan)
    assert bits(nm.min_num(a, b)).tolist() == [[0x80000000, 0x80000000, 0x40000000, 0x3F800000, 0x7FC00000]]
    assert bits(nm.max_num(a, b)).tolist() == [[0, 0, 0x40000000, 0x3F800000, 0x7FC00000]]


def test_min_with_uniform_zero_bound_orders_signed_zeros():
    a = f32(0.0, -0.0, -1.0, np.nan)
    assert bits(nm.min_num(a, f32(-0.0))).tolist() == [[0x80000000, 0x80000000, 0xBF800000, 0x80000000]]
    assert bits(nm.max_num(a, f32(-0.0))).tolist() == [[0, 0x80000000, 0x80000000, 0x80000000]]


def test_arithmetic_nan_is_canonical():
    inf = f32(np.inf)
    mul = op.BY_MNEMONIC["v_mul_f32"].semantics
    with np.errstate(invalid="ignore"):    # as the executor runs semantics: inf x 0 is a NaN, not a warning
        assert bits(mul(inf, f32(0.0))).tolist() == [[0x7FC00000]]  # x86 would give 0xFFC00000
    neg_nan = np.array([[0xFFC01234]], dtype=np.uint32).view(np.float32)
    assert bits(op.BY_MNEMONIC["v_add_f32"].semantics(neg_nan, f32(1.0))).tolist() == [[0x7FC00000]]


def test_f16_arithmetic_rounds_once():
    add = op.BY_MNEMONIC["v_add_f16"].semantics
    a = np.array([[65504.0]], dtype=np.float16)
    b = np.array([[2.0 ** -24]], dtype=np.float16)
    assert add(a, b).view(np.uint16).tolist() == [[0x7BFF]]
    assert add(np.array([[1.0]], np.float16), np.array([[2.0 ** -11]], np.float16)).view(np.uint16).tolist() == [[0x3C00]]


@pytest.mark.parametrize("mnemonic, dtype", [("v_cvt_i8_f32", np.int8), ("v_cvt_u8_f32", np.uint8),
                                             ("v_cvt_i16_f32", np.int16), ("v_cvt_u16_f32", np.uint16),
                                             ("v_cvt_i32_f32", np.int32), ("v_cvt_u32_f32", np.uint32),
                                             ("v_cvt_i64_f32", np.int64), ("v_cvt_u64_f32", np.uint64)])
def test_float_to_int_truncates_saturates_and_zeroes_nan(mnemonic, dtype):
    info = np.iinfo(dtype)
    values = f32(np.nan, np.inf, -np.inf, 1.9, -1.9, 2.0 ** 63, 2.0 ** 64, -(2.0 ** 63), 300.5, -300.5, 3e9)
    got = op.BY_MNEMONIC[mnemonic].semantics(values).reshape(-1)
    expect = []
    for v in values.reshape(-1).tolist():
        if v != v:
            expect.append(0)
        elif v == float("inf"):
            expect.append(info.max)
        elif v == float("-inf"):
            expect.append(info.min)
        else:
            expect.append(min(max(int(v), info.min), info.max))
    assert [int(x) for x in got.astype(dtype)] == expect
