"""isa.program.Program: a kernel decoded once into named instruction records.

The records carry what the executor, the timing model, the trace recorder and the stepper need (pc,
dword address, size, opcode-table entry, operands, branch target); the Program is read-only, and once
it is built nothing decodes the kernel's dwords again (a dispatch with the timing model and an
instruction trace, and a stepped wave, run with the decoder made to raise).
"""
import dataclasses
import os
import pickle

import numpy as np
import pytest

from dmlemu.direct_run import DirectRun
from dmlemu.functional import executor
from dmlemu.gpu import Gpu
from dmlemu.isa import encoding, opcodes as op
from dmlemu.isa.assembler import assemble
from dmlemu.isa.disassembler import disassemble
from dmlemu.isa.program import InstructionRecord, KernelFault, Program
from dmlemu.kernels.driver import TensorSpec
from dmlemu.presets import TEACHING
from dmlemu.traces import capture

SOURCE = """
    s_mov_b32 s4, 0x12345678
    v_mov_b32 v1, 1
top:
    s_add_u32 s5, s5, 1
    s_cmp_lt_u32 s5, 3
    s_cbranch_scc1 top
    s_waitcnt 0
    s_endpgm
"""


def test_records_name_every_field():
    program = Program(assemble(SOURCE), "sample")
    assert program.name == "sample" and len(program) == 7
    assert all(type(r) is InstructionRecord for r in program.records)
    assert [r.pc for r in program.records] == list(range(7))
    assert [r.entry.mnemonic for r in program.records] == ["s_mov_b32", "v_mov_b32", "s_add_u32", "s_cmp_lt_u32",
                                                            "s_cbranch_scc1", "s_waitcnt", "s_endpgm"]
    assert all(r.entry is op.BY_MNEMONIC[r.entry.mnemonic] for r in program.records)
    # the literal 0x12345678 makes the first instruction 3 dwords; 1 is an inline constant
    assert [r.size for r in program.records] == [3, 2, 2, 2, 2, 2, 2]
    assert [r.address for r in program.records] == [0, 3, 5, 7, 9, 11, 13]
    assert program.records[0].operands[1].literal == 0x12345678
    assert [r.target for r in program.records] == [None, None, None, None, 2, None, None]
    assert program.records[5].operands == (0,)
    assert program.dwords == tuple(assemble(SOURCE))


def test_records_give_back_the_instructions_and_their_text():
    dwords = assemble(SOURCE)
    program = Program(dwords)
    assert [w for r in program.records for w in encoding.encode(r.instruction)] == list(dwords)
    assert [r.instruction for r in program.records] == [inst for _, inst in encoding.decode(dwords)]
    listing = [line.strip() for line in disassemble(dwords).splitlines() if not line.endswith(":")]
    assert [r.text for r in program.records] == listing


def test_a_program_is_read_only():
    program = Program(assemble(SOURCE))
    with pytest.raises(AttributeError):
        program.records = ()
    with pytest.raises(AttributeError):
        program.name = "other"
    with pytest.raises(dataclasses.FrozenInstanceError):
        program.records[0].target = 1
    assert isinstance(program.records, tuple)
    copy = pickle.loads(pickle.dumps(program))
    assert copy.records == program.records and copy.name == program.name


def test_bad_words_are_a_kernel_fault_from_the_isa():
    assert executor.KernelFault is KernelFault     # the executor raises the same class for a hang
    with pytest.raises(KernelFault, match="bad: the program must end with s_endpgm or a branch"):
        Program(assemble("s_nop 0\n"), "bad")
    with pytest.raises(KernelFault, match="bad: program word -1 is not a 32-bit dword"):
        Program([-1, 0], "bad")


def test_the_executor_binds_each_program_once():
    program = Program(assemble(SOURCE))
    bound = executor.bind(program)
    assert executor.bind(program) is bound
    assert [b[1:] for b in bound] == [(r.entry, r.operands, r.target) for r in program.records]
    assert [b[0] for b in bound] == [executor._HANDLERS[r.entry.kind] for r in program.records]


@pytest.fixture
def no_decoding(monkeypatch):
    """From here on, decoding any instruction raises."""
    def refuse(dwords, index):
        raise AssertionError(f"dword {index} decoded again")
    return lambda: monkeypatch.setattr(encoding, "decode_one", refuse)


def test_nothing_decodes_again_after_the_program_is_built(no_decoding):
    n = 1000
    x = np.arange(n, dtype=np.float32)
    spec = TensorSpec("FLOAT32", (n,), None, x.nbytes)
    gpu = Gpu(TEACHING, wave_width=8)
    run = DirectRun(gpu, "ELEMENT_WISE_IDENTITY", [spec, spec], [x.view(np.uint8), np.zeros(x.nbytes, np.uint8)])
    no_decoding()
    with capture(gpu, "instruction") as cap:
        stats = run.dispatch()
    assert np.array_equal(run.output_bytes()[:x.nbytes].view(np.float32), x)
    assert stats.timing is not None and len(cap.trace.segments) > 0
    ((name, texts),) = cap.trace.programs.values()
    program = run.launch().program
    assert name == program.name
    assert texts == [encoding.format_instruction(r.instruction) for r in program.records]


def test_a_stepped_wave_decodes_nothing_again(no_decoding):
    from dmlemu.tools.operators import OperatorRun, random_inputs
    from dmlemu.tools.stepper import WaveStepper
    run = OperatorRun("CLIP", "FLOAT32", (3, 5), min_value=-0.5, max_value=0.5)
    inputs = random_inputs(run, 1)
    WaveStepper(run, inputs, width=8).timed_stats()     # the kernel is built (and cached) here
    no_decoding()
    stepper = WaveStepper(run, inputs, width=8, wave=1)
    steps = list(stepper.steps())
    assert steps[-1].ended and steps[-1].text == "s_endpgm"
    records = {r.address: r for r in stepper.program.records}
    assert all(s.text == records[s.address].text for s in steps)
