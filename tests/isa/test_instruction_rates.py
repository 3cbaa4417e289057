"""Instruction rates from the ISA table (rate classes, isa/opcodes.py) and the presets
(valu_rate_cycles, emulator/presets.py): FP64, 32-bit integer multiply, 64-bit integer,
conversions and transcendentals issue at their class's rate; everything else at the table's one cycle per pass."""
import dataclasses

import numpy as np
import pytest

from dmlemu.direct_run import DirectRun
from dmlemu.errors import HResultError
from dmlemu.gpu import Gpu
from dmlemu.isa import opcodes as op
from dmlemu.kernels.driver import TensorSpec
from dmlemu.presets import IRIS_XE, RTX_3070, RX_6800_XT, RX_7900_XTX
from dmlemu.timing.kernel_path import PathCost
from dmlemu.tools.microbench import CHAINS, chain_program

def chain_cycles(preset, rate_class, waves=16, length=64):
    """Cycles a cohort of `waves` waves takes through `length` instructions of one class."""
    program = chain_program(rate_class, length)
    cost = PathCost(program, range(len(program)), 1, 100, preset.rate_cycles())
    steps, busy = cost.schedule(waves)
    assert busy == sum(s.cycles for s in steps)
    return busy


def test_every_valu_entry_has_a_known_class_and_the_types_decide_it():
    assert {e.rate_class for e in op.TABLE} == set(op.RATE_CLASSES)
    for e in op.TABLE:
        if e.unit != op.VALU:
            assert e.rate_class == "full", e.mnemonic
        elif "f64" in e.types:
            assert e.rate_class == "fp64", e.mnemonic
    assert op.BY_MNEMONIC["v_mul_hi_u32"].rate_class == "int32_mul"
    assert op.BY_MNEMONIC["v_mad_u32_u24"].rate_class == "full"      # the 24-bit multiplier is full rate


@pytest.mark.parametrize("preset", [RX_7900_XTX, RX_6800_XT, RTX_3070, IRIS_XE], ids=lambda p: p.key)
def test_each_class_issues_at_its_preset_rate(preset):
    full = chain_cycles(preset, "full")
    rates = preset.rate_cycles()
    for rate_class in CHAINS:
        assert chain_cycles(preset, rate_class) == full * rates.get(rate_class, 1), rate_class


def test_fp64_on_the_rtx_3070_runs_at_a_64th_of_fp32():
    """The CUDA guide's compute capability 8.6 table: 2 FP64 results per clock per SM against 128 FP32."""
    assert chain_cycles(RTX_3070, "fp64") == 64 * chain_cycles(RTX_3070, "full")
    assert chain_cycles(RX_7900_XTX, "fp64") == 16 * chain_cycles(RX_7900_XTX, "full")


def test_transcendentals_run_at_a_quarter_on_rdna_and_an_eighth_on_the_rtx_3070():
    """AMD RDNA: a quarter-rate transcendental unit; CUDA guide, compute capability 8.6: 16 SFU results
    per clock per SM against 128 FP32. Every f16/f32 exp, log, rcp, rsq, sqrt, sin and cos is in the class;
    the f64 ones are FP64 and the fused multiply-add is full rate."""
    for name in ("exp", "log", "rcp", "rsq", "sqrt", "sin", "cos"):
        for t in ("f16", "f32"):
            assert op.BY_MNEMONIC[f"v_{name}_{t}"].rate_class == "transcendental"
    assert op.BY_MNEMONIC["v_rcp_f64"].rate_class == "fp64" and op.BY_MNEMONIC["v_fma_f32"].rate_class == "full"
    for preset in (RX_7900_XTX, RX_6800_XT):
        assert chain_cycles(preset, "transcendental") == 4 * chain_cycles(preset, "full")
    assert chain_cycles(RTX_3070, "transcendental") == 8 * chain_cycles(RTX_3070, "full")


def test_a_general_path_clip_pays_the_integer_multiply_rate():
    """The general addressing path divides with v_mul_hi_u32 / v_mul_lo_u32 (quarter rate on the
    RX 7900 XTX preset): an ALU-heavy broadcast CLIP takes longer than it would at full rate."""
    def cycles(preset):
        side = 512
        source = TensorSpec("FLOAT32", (side, side), (0, 1), side * 4)
        out = TensorSpec("FLOAT32", (side, side), None, side * side * 4)
        run = DirectRun(Gpu(preset), "ELEMENT_WISE_CLIP", [source, out],
                        [np.zeros(side * 4, np.uint8), np.zeros(side * side * 4, np.uint8)],
                        min_value=-1.0, max_value=1.0)
        return run.dispatch().cycles
    at_full_rate = dataclasses.replace(RX_7900_XTX, valu_rate_cycles=())
    assert cycles(RX_7900_XTX) > 1.05 * cycles(at_full_rate)


@pytest.mark.parametrize("bad", [(("fp64", 0),), (("full", 2),), (("quantum", 2),), ("fp64",)])
def test_a_preset_with_an_impossible_rate_is_refused(bad):
    with pytest.raises(HResultError, match="valu_rate_cycles"):
        Gpu(dataclasses.replace(RX_7900_XTX, key="custom", valu_rate_cycles=bad))
