"""Buffer atomics in the timing model: served at the L2's atomic units (one per slice, one operation per
cycle each), lanes on one dword serialised (emulator/timing/memory_system.py, simd.py)."""
import dataclasses

import pytest

from dmlemu.presets import RTX_3070, RX_7900_XTX
from dmlemu.tools import lds_microbench as mb


@pytest.mark.parametrize("preset", [RX_7900_XTX, RTX_3070])
def test_one_address_atomics_run_at_one_per_cycle_and_distinct_ones_much_faster(preset):
    one = mb.atomics(preset, one_address=True)
    distinct = mb.atomics(preset, one_address=False)
    assert one == pytest.approx(1.0, rel=0.02)          # every lane of every wave queues at one unit
    assert distinct > 50 * one


def test_atomic_operations_count_sectors_and_serialised_lanes():
    preset = RX_7900_XTX                                 # 64-byte sectors: a wave32's dwords are 2 sectors
    group, groups = 256, 4
    waves = groups * group // preset.wave_width
    distinct = mb.run(preset, mb.atomic_source(1, False, group), groups, group, buffer_bytes=groups * group * 4)
    one = mb.run(preset, mb.atomic_source(1, True, group), groups, group, buffer_bytes=groups * group * 4)
    assert distinct.timing.atomic_operations == waves * mb.UNROLL * 2
    assert one.timing.atomic_operations == waves * mb.UNROLL * 32
    assert one.cycles > distinct.cycles


def test_more_atomic_units_speed_distinct_atomics_and_not_one_address():
    # 4 units (64 lane atomics per cycle at 16 dwords per sector) bind below the CUs' miss queues
    # (44 sectors per CU over the L2 latency: about 270 lane atomics per cycle on this preset).
    preset = dataclasses.replace(RX_7900_XTX, l2_atomics_per_cycle=4)
    wider = dataclasses.replace(preset, l2_atomics_per_cycle=2 * preset.l2_atomics_per_cycle)
    assert mb.atomics(wider, one_address=False) > 1.5 * mb.atomics(preset, one_address=False)
    assert mb.atomics(wider, one_address=True) == pytest.approx(mb.atomics(preset, one_address=True), rel=0.01)


def test_an_atomic_with_return_is_an_outstanding_load():
    preset = RX_7900_XTX
    body = "    buffer_atomic_add_rtn v4, v3, v1, s[8:11], 0\n    s_waitcnt 0\n"
    setup = "    s_load_dwordx4 s[8:11], s[0:1], 0\n    s_waitcnt 0\n    v_lshl_b32 v1, v0, 2\n    v_mov_b32 v3, 1\n"
    waited = setup + mb.looped(body, 2) + "    s_endpgm\n"
    unwaited = setup + mb.looped(body.replace("    s_waitcnt 0\n", ""), 2) + "    s_endpgm\n"
    a = mb.run(preset, waited, 1, 32, buffer_bytes=128).cycles
    b = mb.run(preset, unwaited, 1, 32, buffer_bytes=128).cycles
    assert a > b + 2 * mb.UNROLL * preset.l2_latency_cycles // 2
