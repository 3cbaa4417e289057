"""traces.verdict.bound_of: the one word `dmlemu onnx`'s per-layer table prints for what bound a dispatch,
read from the verdict's limiter (a bandwidth: memory; issue: compute; waves waiting: latency; SIMDs empty:
launch; untimed: ''), on dispatch rows built to land on each."""
import pytest

from dmlemu.presets import RX_7900_XTX
from dmlemu.traces.schema import ISSUE
from dmlemu.traces.verdict import BOUNDS, bound_of, verdict

CYCLES = 100_000
SIMDS = RX_7900_XTX.compute_units * RX_7900_XTX.simds_per_cu


def row(**fields):
    base = {"id": 0, "name": "d", "start": 0, "end": CYCLES, "timed": True, "waves": 10_000, "waves_per_simd": 16,
            "occupied_simd_cycles": CYCLES * SIMDS, "dram_busy_cycles": 0, "dram_turnarounds": 0, "l2_requests": 0,
            "ic_hits": 0, "ic_write_sectors": 0, "lds_bytes": 0, "workgroups": 100, "barrier_wait_cycles": 0,
            "lds_passes": 0, "vgprs": 32, **dict.fromkeys(ISSUE, 0)}
    base.update(fields)
    return base


@pytest.mark.parametrize("fields, bound", [
    ({"dram_busy_cycles": int(0.9 * CYCLES)}, "memory"),
    ({ISSUE[0]: int(0.8 * CYCLES * SIMDS)}, "compute"),
    # the LDS pipes of every CU busy 90 % of the time (a pass holds one for banks x 4 / bytes per cycle cycles)
    ({"lds_passes": int(0.9 * CYCLES * RX_7900_XTX.compute_units * RX_7900_XTX.lds_bytes_per_cycle
                        // (4 * RX_7900_XTX.lds_banks))}, "memory"),
    ({}, "latency"),                                                     # resident waves, nothing issued
    ({"occupied_simd_cycles": int(0.1 * CYCLES * SIMDS)}, "launch"),    # SIMDs empty most of the time
    ({"timed": False}, ""),
])
def test_bound_of_names_the_verdicts_limiter_in_one_word(fields, bound):
    r = row(**fields)
    assert bound_of(r, RX_7900_XTX) == bound
    assert bound == "" or bound in BOUNDS
    assert bool(verdict(r, RX_7900_XTX).limiter) == bool(bound)
