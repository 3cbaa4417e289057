"""The assembler and the disassembler on hostile input (dmlemu.isa.assembler, dmlemu.isa.disassembler and
`dmlemu asm` / `dmlemu disasm`): an AssemblyError / ValueError naming the file and line, one
`dmlemu: error:` line and exit status 2 from the command, never Python's own errors (RecursionError,
UnicodeDecodeError, MemoryError) and never unbounded reading or memory: sources are UTF-8 regular
files, at most MAX_SOURCE_BYTES with their includes, includes at most MAX_INCLUDE_DEPTH deep, `.if`
at most MAX_IF_DEPTH deep, lines at most MAX_LINE_CHARS after substitution; binaries at most
MAX_BINARY_BYTES. Whatever assembles also decodes (the decoder's operand rules apply to both).
"""
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dmlemu.isa import assembler
from dmlemu.isa import opcodes as op
from dmlemu.isa.assembler import (
    MAX_EXPRESSION_CHARS, MAX_IF_DEPTH, MAX_INCLUDE_DEPTH, MAX_LINE_CHARS, MAX_SOURCE_BYTES, AssemblyError,
    assemble, assemble_file,
)
from dmlemu.isa.encoding import decode
from dmlemu.tools.asm import MAX_BINARY_BYTES
from cli_runner import cli
from operator_cases import ACCEPTED, REFUSED, outcome


def asm_error(tmp_path, source, name="k.s"):
    """The one error line of `dmlemu asm` on `source` (text or bytes)."""
    path = tmp_path / name
    path.write_bytes(source if isinstance(source, bytes) else source.encode())
    status, out, err = cli("asm", path)
    lines = err.strip().splitlines()
    assert status == 2 and len(lines) == 1 and lines[0].startswith("dmlemu: error: "), (status, out, err)
    assert out == "" and "Traceback" not in err
    return lines[0][len("dmlemu: error: "):].replace(str(tmp_path) + os.sep, "")


# ---- pinned sentences -------------------------------------------------------------------------------------
@pytest.mark.parametrize("number", ["1e400", "-1e999", "1" * 400 + ".0", "infinity", "-Infinity"])
def test_numbers_past_the_float_range_are_errors_not_infinity(tmp_path, number):
    value = float(number)
    assert asm_error(tmp_path, f"v_add_f32 v1, v2, {number}\ns_endpgm\n") == (
        f"k.s:1: v_add_f32 operand {number!r} is outside the range of a float (it would be {value}); "
        f"write inf, -inf or nan for those values")


@pytest.mark.parametrize("number, mnemonic, kind, largest", [
    ("1e39", "v_add_f32", "f32", "3.4028234663852886e+38"), ("-3.4028236e38", "v_add_f32", "f32", "3.4028234663852886e+38"),
    ("1e39", "v_add_f16", "f16", "65504.0"), ("70000", "v_add_f16", "f16", "65504.0")])
def test_a_finite_literal_past_its_operands_float_range_is_an_error(tmp_path, number, mnemonic, kind, largest):
    sentence = (f"{mnemonic}: {float(number) if '.' in number or 'e' in number else int(number)!r} is outside the "
                f"range of {kind} (its largest finite magnitude is {largest}); write inf or -inf for an infinite literal")
    assert asm_error(tmp_path, f"{mnemonic} v1, {number}, v2\ns_endpgm\n") == f"k.s:1: {sentence}"
    with pytest.raises(AssemblyError) as info:
        assemble(f"{mnemonic} v1, {number}, v2\ns_endpgm\n")
    assert str(info.value) == f"<source>:1: {sentence}"


def test_the_largest_finite_literals_still_assemble():
    dwords = assemble("v_add_f32 v1, 3.4028234663852886e38, v2\nv_add_f16 v1, -65504, v2\ns_endpgm")
    assert 0x7F7FFFFF in list(dwords) and 0xFBFF in list(dwords)


def test_inf_and_nan_are_written_as_words_and_become_literals():
    """Found by these tests: `inf` and `nan` raised OverflowError / an int() message (inline_code_for)."""
    dwords = assemble("v_add_f32 v1, v2, inf\nv_add_f32 v1, v2, -inf\nv_add_f32 v1, v2, nan\n"
                      "v_add_f16 v1, v2, inf\nv_add_f64 v[2:3], v[2:3], -inf\ns_endpgm")
    assert [dwords[i] for i in (2, 5, 8, 11, 14)] == [0x7F800000, 0xFF800000, 0x7FC00000, 0x7C00, 0xFFF00000]


def test_non_utf8_text(tmp_path):
    assert asm_error(tmp_path, b"s_nop 0\n\xff\xfe\n") == "k.s:2: byte 0xff at offset 8 is not UTF-8 text; sources are UTF-8"
    (tmp_path / "bad.inc").write_bytes(b"\x80")
    assert asm_error(tmp_path, '.include "bad.inc"\n') == "bad.inc:1: byte 0x80 at offset 0 is not UTF-8 text; sources are UTF-8"


def test_deeply_nested_if_blocks_and_expressions(tmp_path):
    depth = MAX_IF_DEPTH + 1
    assert asm_error(tmp_path, ".if 1\n" * depth + "s_endpgm\n" + ".endif\n" * depth) == (
        f"k.s:{depth}: .if blocks nest more than {MAX_IF_DEPTH} deep")
    assert len(assemble(".if 1\n" * MAX_IF_DEPTH + "s_endpgm\n" + ".endif\n" * MAX_IF_DEPTH)) == 2
    assert asm_error(tmp_path, ".if " + "not " * 200 + "1\n.endif\n") == "k.s:1: .if expression nests more than 100 deep"
    assert asm_error(tmp_path, ".if " + "(" * 300 + "1" + ")" * 300 + "\n.endif\n").startswith(
        "k.s:1: .if expression '((((((((((")   # Python's parser refuses 200+ parentheses: not valid
    long = "1 and " * 200 + "1"
    assert asm_error(tmp_path, f".if {long}\n.endif\n") == (
        f"k.s:1: .if expression is {len(long)} characters long; the limit is {MAX_EXPRESSION_CHARS}")
    assert asm_error(tmp_path, ".if X == \x00\n.endif\n").startswith("k.s:1: .if ")


def test_include_of_a_device_a_folder_nothing_and_itself(tmp_path):
    assert asm_error(tmp_path, '.include "/dev/zero"\n') == "k.s:1: /dev/zero is not a regular file; a source must be a text file"
    assert asm_error(tmp_path, '.include "/dev/stdin"\n').startswith("k.s:1: /dev/stdin is not a regular file")
    assert asm_error(tmp_path, '.include "/"\n') == "k.s:1: cannot include /: Is a directory"
    assert asm_error(tmp_path, '.include ""\n') == 'k.s:1: .include needs a file name: .include "file"'
    assert asm_error(tmp_path, '.include "missing.inc"\n') == "k.s:1: cannot include missing.inc: No such file or directory"
    assert asm_error(tmp_path, '.include "k.s"\n') == (
        f"k.s:1: .include nested too deeply (more than {MAX_INCLUDE_DEPTH} levels)")


def test_includes_share_one_byte_budget(tmp_path, monkeypatch):
    assert MAX_SOURCE_BYTES == 16 << 20
    monkeypatch.setattr(assembler, "MAX_SOURCE_BYTES", 100_000)   # the same rule, quicker to reach
    (tmp_path / "big.inc").write_text(("s_nop 0\n" * 1000))          # 8,000 bytes
    line = asm_error(tmp_path, '.include "big.inc"\n' * 20)
    assert line == "k.s:13: big.inc goes past the 100000-byte limit on the source text of one assembly (includes together)"
    (tmp_path / "top.s").write_text("s_nop 0\n" * 20_000)           # 160,000 bytes: the top file alone
    assert asm_error(tmp_path, (tmp_path / "top.s").read_text(), name="top.s") == (
        "top.s goes past the 100000-byte limit on the source text of one assembly (includes together)")


def test_substitution_cannot_grow_a_line_without_limit(tmp_path):
    doubling = ".set A, x\n" + ".set A, ${A}${A}\n" * 40
    assert asm_error(tmp_path, doubling) == (
        f"k.s:15: the line is 16392 characters long after ${{NAME}} substitution; the limit is {MAX_LINE_CHARS}")
    assert asm_error(tmp_path, "s_nop " + "0" * MAX_LINE_CHARS + "\n") == (
        f"k.s:1: the line is {MAX_LINE_CHARS + 6} characters long; the limit is {MAX_LINE_CHARS}")


def test_a_missing_file_and_a_folder(tmp_path):
    assert cli("asm", tmp_path / "missing.s")[2] == f"dmlemu: error: No such file or directory: {tmp_path}/missing.s\n"
    assert cli("asm", tmp_path)[2] == f"dmlemu: error: Is a directory: {tmp_path}\n"
    assert cli("asm", "/dev/zero")[2] == "dmlemu: error: /dev/zero is not a regular file; a source must be a text file\n"


def test_operands_the_decoder_would_refuse_are_refused_by_the_assembler(tmp_path):
    assert asm_error(tmp_path, "s_load_dword vcc_lo, s[0:1], 0\ns_endpgm\n") == (
        "k.s:1: s_load_dword operand 1 (sdst): operand code 106 is not a scalar register range; a scalar load writes "
        "s registers only")
    assert asm_error(tmp_path, "s_waitcnt 99999999999999999999\n") == (
        "k.s:1: s_waitcnt: immediate 99999999999999999999 is out of range 0..16383")


def test_assemble_file_reads_through_the_same_checks(tmp_path):
    (tmp_path / "z.s").write_bytes(b"\xc3\x28")
    with pytest.raises(AssemblyError, match="byte 0xc3 at offset 0 is not UTF-8 text"):
        assemble_file(tmp_path / "z.s")


# ---- the disassembler ---------------------------------------------------------------------------------------
def disasm_error(tmp_path, data):
    path = tmp_path / "k.bin"
    path.write_bytes(data)
    status, out, err = cli("disasm", path)
    lines = err.strip().splitlines()
    assert status == 2 and len(lines) == 1 and lines[0].startswith("dmlemu: error: "), (status, out, err)
    return lines[0][len("dmlemu: error: "):].replace(str(tmp_path) + os.sep, "")


def test_truncated_and_garbage_binaries(tmp_path):
    assert disasm_error(tmp_path, bytes(17)) == "k.bin: a program binary is whole little-endian dwords; this one has 17 bytes"
    assert disasm_error(tmp_path, bytes(4)) == (
        "k.bin: truncated instruction at dword 0: an instruction is 2 dwords, the program has 1")
    assert disasm_error(tmp_path, b"\xff\x03\x00\x00" + bytes(4)) == "k.bin: unknown opcode 0x3ff at dword 0"
    big = tmp_path / "big.bin"
    with open(big, "wb") as f:
        f.truncate(MAX_BINARY_BYTES + 4)   # sparse: costs no disk
    assert cli("disasm", big)[2] == (f"dmlemu: error: {big} is larger than {MAX_BINARY_BYTES} bytes, the limit on a "
                                     f"program binary\n")
    assert cli("disasm", "/dev/zero")[2] == "dmlemu: error: /dev/zero is not a regular file; a program binary must be a file\n"


# ---- generated sources and binaries -------------------------------------------------------------------------
_OPERANDS = st.sampled_from([
    "v0", "v255", "v256", "v[254:255]", "v[255:256]", "s0", "s105", "s106", "s[0:1]", "s[104:107]", "s[8:11]",
    "s[3:2]", "vcc", "vcc_lo", "exec", "exec_hi", "scc", "0", "64", "65", "-16", "-17", "1e400", "-1e400", "nan",
    "inf", "infinity", "1.5", "0.1", "0x1ffffffff", "0xffffffff", "99999999999999999999999", "label", "nowhere",
    "${X}", "${UNDEFINED}", "X", "", "[", "]", "s[", "v[1:", "\x00", "é",
])
_MNEMONICS = st.one_of(st.sampled_from([e.mnemonic for e in op.TABLE]), st.sampled_from(["v_frob", "", "S_ENDPGM"]))
_DIRECTIVES = st.sampled_from([
    ".if X", ".if not X", ".if X == 1 and (Y != 2)", ".if", ".if (", ".if UNDEFINED", ".if X +", ".else", ".endif",
    ".set X, 1", ".set Y, ${X}${X}", ".set X, ${X}${X}", ".set", '.include "/dev/zero"', '.include "missing.inc"',
    '.include "k.s"', '.include "ok.inc"', '.include ""', ".frob", "${X}", "${UNDEFINED}", "label:", "label: label:",
    "x: y:", ";", "// comment",
])


@st.composite
def sources(draw):
    lines = []
    for _ in range(draw(st.integers(0, 12))):
        if draw(st.booleans()):
            lines.append(draw(_DIRECTIVES))
        else:
            mnemonic = draw(_MNEMONICS)
            operands = draw(st.lists(_OPERANDS, max_size=4))
            lines.append(f"{mnemonic} {', '.join(operands)}")
    if draw(st.booleans()):
        lines.append("s_endpgm")
    text = "\n".join(lines)
    if draw(st.integers(0, 9)) == 0:
        text += draw(st.text(max_size=40))
    data = text.encode("utf-8", "surrogatepass")
    if draw(st.integers(0, 9)) == 0:
        data += draw(st.binary(max_size=8))
    return data


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    d = tmp_path_factory.mktemp("asm")
    (d / "ok.inc").write_text(".set Y, 2\ns_nop 0\n")
    return d


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(data=sources())
def test_hostile_sources_give_one_line_or_a_program_that_decodes(folder, data):
    path = folder / "k.s"
    path.write_bytes(data)
    status, out, err = cli("asm", path, "-D", "X=1")
    assert "Traceback" not in err
    if status == 0:
        outcome(ACCEPTED)
        return
    lines = err.strip().splitlines()
    assert status == 2 and len(lines) == 1 and lines[0].startswith("dmlemu: error: "), (data, status, err)
    outcome(REFUSED)


@settings(max_examples=300)
@given(data=sources())
def test_the_assembler_raises_only_assembly_errors_and_its_output_decodes(data):
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return
    try:
        dwords = assemble(text, {"X": 1})
    except AssemblyError:
        outcome(REFUSED)
        return
    outcome(ACCEPTED)
    decode(dwords)   # whatever assembles is a program the executor can load (or only misses its end)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.one_of(st.binary(max_size=64),
                      st.lists(st.sampled_from([e.opcode for e in op.TABLE]), max_size=8).map(
                          lambda codes: b"".join(c.to_bytes(4, "little") + bytes(4) for c in codes))))
def test_hostile_binaries_give_one_line_or_a_listing(folder, data):
    path = folder / "k.bin"
    path.write_bytes(data)
    status, out, err = cli("disasm", path)
    assert "Traceback" not in err
    if status == 0:
        assert err == ""
        outcome(ACCEPTED)
        return
    lines = err.strip().splitlines()
    assert status == 2 and len(lines) == 1 and lines[0].startswith("dmlemu: error: "), (data, status, err)
    outcome(REFUSED)
