"""Custom adapter presets are checked when a GPU is built from them: a preset field of the wrong
type or outside its range is E_INVALIDARG with a sentence naming the field, before anything is allocated;
a preset that passes builds a GPU that runs a dispatch, timed, bit-exact.
"""
import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dmlemu.direct_run import DirectRun
from dmlemu.errors import E_INVALIDARG, HResultError, short_repr
from dmlemu.functional.device_memory import OutOfDeviceMemory
from dmlemu.gpu import Gpu
from dmlemu.isa.program import KernelFault
from dmlemu.kernels.driver import TensorSpec
from dmlemu.presets import FIELD_LIMITS, PRESETS, TEACHING, AdapterPreset, preset_problem
from operator_cases import ACCEPTED, REFUSED, garbage, outcome, scaled

FIELDS = [f.name for f in dataclasses.fields(AdapterPreset)]
INT_FIELDS = [f.name for f in dataclasses.fields(AdapterPreset) if f.type is int]


def _copy_runs(preset):
    """Build a GPU from `preset` and copy 100 FLOAT32 elements with the timing model on."""
    gpu = Gpu(preset)
    x = np.arange(100, dtype=np.float32)
    spec = TensorSpec("FLOAT32", (100,), None, x.nbytes)
    run = DirectRun(gpu, "ELEMENT_WISE_IDENTITY", [spec, spec], [x.view(np.uint8), np.zeros(x.nbytes, np.uint8)])
    stats = run.dispatch()
    assert np.array_equal(run.output_bytes().view(np.float32), x) and stats.cycles > 0


def _rejected_or_runs(preset, field):
    try:
        _copy_runs(preset)
    except OutOfDeviceMemory:
        assert preset.dedicated_video_memory < 800      # the two 400-byte tensors do not fit: a valid refusal
        outcome(REFUSED)
        return None
    except KernelFault as fault:
        # A GPU so slow that even this copy cannot issue within Windows' 2-second timeout (clock_hz 1):
        # the dispatch times out, as on Windows (docs/RELIABILITY.md, "GPU timeout").
        assert "2-second GPU timeout (TDR)" in str(fault), str(fault)
        assert preset.clock_hz * preset.compute_units * preset.simds_per_cu < 10 ** 6
        outcome(REFUSED)
        return None
    except HResultError as error:
        outcome(REFUSED)
        assert error.hresult == E_INVALIDARG
        assert error.message.startswith(f"adapter preset {short_repr(preset.key)}: "), error.message
        assert len(error.message) < 300 and "\n" not in error.message
        return error.message
    outcome(ACCEPTED)
    return None


@settings(max_examples=scaled(120), deadline=None)
@given(field=st.sampled_from(FIELDS), value=garbage)
def test_a_hostile_value_in_any_field_is_refused_with_a_sentence_or_runs(field, value):
    message = _rejected_or_runs(dataclasses.replace(TEACHING, **{field: value}), field)
    if message is None:
        assert preset_problem(dataclasses.replace(TEACHING, **{field: value})) is None


@settings(max_examples=scaled(120), deadline=None)
@given(field=st.sampled_from(INT_FIELDS),
       value=st.one_of(st.integers(-2, 70), st.sampled_from([1 << 20, 1 << 31, 1 << 40, 1 << 63, 10 ** 30])))
def test_an_integer_field_at_or_past_its_bounds_is_refused_or_runs(field, value):
    message = _rejected_or_runs(dataclasses.replace(TEACHING, **{field: value}), field)
    if value > FIELD_LIMITS.get(field, 1 << 62) or value < 0:
        assert message is not None and field in message


@pytest.mark.parametrize("changes, sentence", [
    ({"compute_units": 10 ** 9}, "compute_units is 1000000000; it must be at most 1024"),
    ({"wave_width": 3}, "wave_width is 3; it must be 4, 8, 16, 32 or 64"),
    ({"simds_per_cu": 0}, "simds_per_cu is 0; it must be a positive integer"),
    ({"clock_hz": np.int64(100)}, "clock_hz is np.int64(100); it must be a non-negative integer"),
    ({"launch_cycles": True}, "launch_cycles is True; it must be a non-negative integer"),
    ({"dram_latency_cycles": 2.5}, "dram_latency_cycles is 2.5; it must be a non-negative integer"),
    ({"native_fp16": 1}, "native_fp16 is 1; it must be a bool"),
    ({"description": None}, "description is None; it must be a text"),
    ({"sources": ("ok", 3)}, "sources is ('ok', 3); it must be a tuple of texts"),
    ({"valu_rate_cycles": (("fp64", 0),)}, "valu_rate_cycles has ('fp64', 0); each entry must be (rate class, "
                                           "cycles from 1 to 65536) with a class of "),
    ({"l2_bytes": 1 << 30, "sector_bytes": 1, "line_bytes": 1}, "l2_bytes is 1073741824; with sector_bytes 1 that is "
                                                                "more than 4194304 sectors, the most a modelled "
                                                                "cache holds"),
    ({"dram_bytes_per_second": "x" * 100}, "dram_bytes_per_second is 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
                                           "xxxxxxxx...; it must be a non-negative integer"),
])
def test_a_bad_field_is_named_in_one_sentence(changes, sentence):
    with pytest.raises(HResultError) as error:
        Gpu(dataclasses.replace(TEACHING, **changes))
    assert error.value.hresult == E_INVALIDARG
    assert error.value.message.startswith("adapter preset 'teaching': " + sentence)


def test_not_a_preset_is_refused():
    with pytest.raises(HResultError) as error:
        Gpu("rx7900xtx")
    assert error.value.message == "adapter preset 'rx7900xtx': it is a str, not an AdapterPreset"


@pytest.mark.parametrize("preset", PRESETS, ids=lambda p: p.key)
def test_every_shipped_preset_passes(preset):
    assert preset_problem(preset) is None


def test_a_miss_queue_of_one_sector_still_runs():
    """Found by the property test above: a CU that keeps one sector in flight split a blocked request into
    pieces of two and waited forever for room (IndexError)."""
    _copy_runs(dataclasses.replace(TEACHING, max_lines_in_flight_per_cu=1))
