"""Programs are validated when they are loaded (dmlemu.isa.program.Program, through
dmlemu.isa.encoding.decode_one), so execution never meets a word it cannot run.

Bad words are rejected with a KernelFault sentence naming the program, the dword and the rule: an
unknown opcode, an operand code that names nothing, a register range past the register file, an
operand of the wrong kind, set bits in unused fields, a missing dword, a branch that does not land
on an instruction, a program that does not end. The disassembler applies the same rules (ValueError).
A property test builds random words from the opcode table: whatever Program accepts runs to its end or
stops at the instruction watchdog (KernelFault) and never raises anything else; whatever the
disassembler accepts assembles back to the same words.
"""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dmlemu.functional import executor
from dmlemu.isa.program import KernelFault, Program
from dmlemu.functional.wave_dispatcher import KernelLaunch
from dmlemu.gpu import Gpu
from dmlemu.isa import opcodes as op
from dmlemu.isa.assembler import assemble
from dmlemu.isa.disassembler import disassemble
from dmlemu.isa.encoding import IMM_BITS, OPCODE_BITS, SLOT_BITS, decode, layout
from dmlemu.isa.operands import LITERAL, NUM_SGPRS, NUM_VGPRS, VGPR_BASE, operand_problem
from dmlemu.presets import TEACHING
from operator_cases import ACCEPTED, REFUSED, outcome

END = assemble("s_endpgm")


def word(mnemonic, *slots, imm=0, literal=None):
    """The dwords of one instruction with raw operand codes in its slots (no checks)."""
    entry = op.BY_MNEMONIC[mnemonic]
    value = entry.opcode << OPCODE_BITS[0] | (imm << IMM_BITS[0])
    for i, code in enumerate(slots):
        value |= code << SLOT_BITS[i][0]
    out = [value & 0xFFFFFFFF, value >> 32]
    return out + ([literal] if literal is not None else [])


def fault(dwords):
    with pytest.raises(KernelFault) as info:
        Program(dwords, "bad")
    return str(info.value)


# ---- pinned sentences -------------------------------------------------------------------------------------
def test_an_unknown_opcode_is_rejected():
    assert fault([0x3FF, 0] + END) == "bad: unknown opcode 0x3ff at dword 0"


def test_an_operand_code_that_names_nothing_is_rejected():
    assert fault(word("s_mov_b32", 110, 128) + END) == (
        "bad: s_mov_b32 at dword 0, operand 1 (sdst): operand code 110 names no register or constant")
    assert fault(word("v_mov_b32", VGPR_BASE + 1, 250) + END) == (
        "bad: v_mov_b32 at dword 0, operand 2 (vsrc): operand code 250 names no register or constant")


def test_register_ranges_past_the_register_file_are_rejected():
    assert fault(word("v_mov_b64", VGPR_BASE + 255, 128) + END) == (
        "bad: v_mov_b64 at dword 0, operand 1 (vdst): operand code 511 names v[255:256]; there are 256 vector "
        "registers, v0 to v255")
    assert fault(word("s_load_dwordx4", 104, 0, 128) + END) == (
        "bad: s_load_dwordx4 at dword 0, operand 1 (sdst): operand code 104 names s[104:107]; there are 106 scalar "
        "registers, s0 to s105")
    assert "operand code 700 names v444" in fault(word("v_mov_b32", 700, 128) + END)   # 10-bit codes reach 1023
    assert "(scc) cannot hold a 2-dword value" in fault(word("s_mov_b64", 253, 128) + END)


def test_operands_of_the_wrong_kind_are_rejected():
    assert fault(word("v_mov_b32", 5, 128) + END).endswith("operand 1 (vdst): operand code 5 is not a vector register")
    assert fault(word("s_mov_b32", 130, 128) + END).endswith("operand 1 (sdst): operand code 130 is not a scalar register")
    assert fault(word("s_mov_b32", 5, VGPR_BASE) + END).endswith("operand 2 (ssrc): operand code 256 is a vector register")


def test_set_bits_outside_the_fields_and_missing_dwords_are_rejected():
    assert fault(word("s_endpgm", 5)) == (
        "bad: s_endpgm at dword 0 has bits set outside its fields (0x0000000000001400); unused fields must be 0")
    assert fault(word("v_mov_b32", VGPR_BASE, LITERAL)) == "bad: missing literal dword after instruction at dword 0"
    assert fault(END[:1]) == "bad: truncated instruction at dword 0: an instruction is 2 dwords, the program has 1"


def test_branches_must_land_on_an_instruction():
    for offset, target in ((100, 102), (-3, -1), (1, 3)):   # past the end, before the start, inside s_endpgm
        assert fault(word("s_branch", imm=offset & 0x3FFF) + END) == (
            f"bad: branch at dword 0 targets dword {target}, which is not the start of an instruction "
            f"(the program has 4 dwords)")
        with pytest.raises(ValueError, match=f"branches to dword {target}, which is not the start of an instruction"):
            disassemble(word("s_branch", imm=offset & 0x3FFF) + END)


def test_words_that_are_not_dwords_and_programs_that_do_not_end_are_rejected():
    assert fault([-1, 0]) == "bad: program word -1 is not a 32-bit dword (0 to 0xFFFFFFFF)"
    assert fault([1 << 32, 0]) == "bad: program word 4294967296 is not a 32-bit dword (0 to 0xFFFFFFFF)"
    assert fault([1.5, 0]) == "bad: program word 1.5 is not an integer"
    assert fault(["s_endpgm"]) == "bad: program word 's_endpgm' is not an integer"
    assert fault([]) == "bad: the program must end with s_endpgm or a branch"
    assert fault(assemble("s_nop 0")) == "bad: the program must end with s_endpgm or a branch"


def test_a_branch_to_the_end_of_the_program_disassembles_to_a_trailing_label():
    dwords = assemble("s_cbranch_scc1 done\ns_endpgm\ndone:")
    text = disassemble(dwords)
    assert text.rstrip().endswith("L4:") and assemble(text) == dwords


def test_operand_problem_accepts_exactly_what_exists():
    assert operand_problem(NUM_SGPRS - 1, 1) is None and operand_problem(NUM_SGPRS - 2, 2) is None
    assert operand_problem(VGPR_BASE + NUM_VGPRS - 1, 1) is None
    assert operand_problem(106, 2) is None and operand_problem(126, 2) is None   # vcc, exec
    assert operand_problem(107, 2) is not None                                    # vcc_hi has no pair
    for code in (128, 192, 193, 208, 240, 247, 253, 255):
        assert operand_problem(code, 1) is None, code
    for code in (108, 125, 209, 239, 248, 252, 254):
        assert operand_problem(code, 1) == f"operand code {code} names no register or constant", code


def test_the_watchdog_stops_a_wave_that_never_ends(monkeypatch):
    """The watchdog (MAX_INSTRUCTIONS_PER_WAVE, 2**20; tests/functional/test_executor.py runs it at full length)."""
    assert executor.MAX_INSTRUCTIONS_PER_WAVE == 1 << 20
    monkeypatch.setattr(executor, "MAX_INSTRUCTIONS_PER_WAVE", 1000)
    gpu = Gpu(TEACHING, wave_width=4)
    program = Program(assemble("top:\n s_branch top\n"), "spin")
    with pytest.raises(KernelFault, match="spin: a wave executed more than 1000 instructions without ending"):
        gpu.dispatch(KernelLaunch(program, 1, 4, ()))


# ---- random words from the opcode table -------------------------------------------------------------------
_ANY_CODE = st.one_of(st.integers(0, 1023), st.sampled_from([104, 105, 106, 107, 126, 127, 192, 193, 208, 240, 247,
                                                             253, 255, 510, 511, 512]))


def _valid_code(kind, width):
    """Codes a well-formed program may have in a slot of this kind and width."""
    vgprs = st.integers(VGPR_BASE, VGPR_BASE + NUM_VGPRS - width)
    sgprs = st.integers(0, NUM_SGPRS - width)
    specials = st.sampled_from([106, 107, 126, 127, 253] if width == 1 else [106, 126])
    constants = st.one_of(st.integers(128, 208), st.integers(240, 247), st.just(LITERAL))
    return {op.VDST: vgprs, op.VREG: vgprs, op.SREG: sgprs, op.VCCO: st.just(106),
            op.SDST: st.one_of(sgprs, specials), op.SSRC: st.one_of(sgprs, specials, constants),
            op.VSRC: st.one_of(vgprs, sgprs, specials, constants)}[kind]


@st.composite
def instruction_words(draw):
    """One instruction: mostly operands its kinds allow (so many programs pass and run), sometimes any code."""
    entry = draw(st.sampled_from(op.TABLE))
    slots = []
    for (place, _), kind, width in zip(layout(entry), entry.operands, entry.widths):
        if place == "slot":
            slots.append(draw(_ANY_CODE if draw(st.integers(0, 9)) == 0 else _valid_code(kind, width)))
    imm = 0
    if op.LABEL in entry.operands:
        imm = draw(st.integers(-8, 8)) & ((1 << 14) - 1)
    elif op.IMM in entry.operands:
        imm = draw(st.integers(0, 64))
    if draw(st.integers(0, 20)) == 0:
        imm |= draw(st.integers(0, (1 << 14) - 1))   # sometimes garbage in imm14, used or not
    literal = draw(st.integers(0, 0xFFFFFFFF)) if LITERAL in slots else None
    return word(entry.mnemonic, *slots, imm=imm, literal=literal)


@st.composite
def programs(draw):
    body = draw(st.lists(instruction_words(), min_size=0, max_size=6))
    dwords = [d for inst in body for d in inst] + END
    if draw(st.integers(0, 9)) == 0:   # sometimes a stray word or a cut
        at = draw(st.integers(0, len(dwords)))
        dwords = dwords[:at] + draw(st.lists(st.integers(0, 0xFFFFFFFF), max_size=2)) + dwords[at:]
    return dwords


@pytest.fixture(scope="module")
def gpu():
    g = Gpu(TEACHING, wave_width=4, timing=False)
    table = g.memory.allocate(256, "table")
    return g, table


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(dwords=programs())
def test_random_programs_are_rejected_or_run_to_an_end(dwords, gpu, monkeypatch):
    """Nothing Program accepts makes the executor raise anything but the watchdog's KernelFault."""
    monkeypatch.setattr(executor, "MAX_INSTRUCTIONS_PER_WAVE", 500)   # the watchdog, cheaper
    g, table = gpu
    try:
        program = Program(dwords, "random")
    except KernelFault as error:
        assert str(error).startswith("random: ")
        outcome(REFUSED)
        return
    try:
        g.dispatch(KernelLaunch(program, 2, 6, (table.gpu_va & 0xFFFFFFFF, table.gpu_va >> 32)))
        outcome(ACCEPTED)
    except KernelFault as error:
        assert "executed more than 500 instructions" in str(error) or "disagree" in str(error), str(error)
        outcome(REFUSED)


@settings(max_examples=400)
@given(dwords=programs())
def test_random_words_disassemble_to_text_that_assembles_back_or_are_rejected(dwords):
    try:
        text = disassemble(dwords)
    except ValueError as error:
        assert " at dword " in str(error) or "truncated" in str(error) or "missing literal" in str(error), str(error)
        with pytest.raises(ValueError):
            decode(dwords) and disassemble(dwords)
        outcome(REFUSED)
        return
    outcome(ACCEPTED)
    assert assemble(text) == [int(d) for d in dwords], text


@pytest.mark.parametrize("entry", op.TABLE, ids=lambda e: e.mnemonic)
def test_every_opcode_with_valid_operands_still_decodes(entry):
    """The checks reject nothing the assembler makes (every opcode, registers at the file's ends)."""
    texts = []
    for kind, type_name in zip(entry.operands, entry.types):
        width = op.TYPES[type_name][1] if type_name else 1
        if kind in (op.VDST, op.VREG):
            texts.append(f"v{NUM_VGPRS - 1}" if width == 1 else f"v[{NUM_VGPRS - width}:{NUM_VGPRS - 1}]")
        elif kind in (op.SDST, op.SREG, op.SSRC):
            texts.append(f"s{NUM_SGPRS - 1}" if width == 1 else f"s[{NUM_SGPRS - width}:{NUM_SGPRS - 1}]")
        elif kind == op.VCCO:
            texts.append("vcc")
        elif kind == op.LABEL:
            texts.append("here")
        elif kind == op.IMM:
            texts.append("16383")
        else:
            texts.append("-16")
    dwords = assemble(f"here:\n{entry.mnemonic} {', '.join(texts)}\ns_endpgm\n")
    assert len(Program(dwords, entry.mnemonic)) == 2
    assert np.array_equal(assemble(disassemble(dwords)), dwords)
