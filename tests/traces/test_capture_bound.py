"""A capture's memory is bounded however many dispatches it records (traces/recorder.py, issue 30).

Past its row limit a capture used to keep growing: every dispatch kept its own disassembly listing in
`programs` (~2 KB for a 20-instruction kernel), and wave groups past the limit were folded into one summary
per (dispatch, CU, SIMD), a new key per dispatch. Now a listing is kept for the dispatches the `dispatches`
table keeps, one per program (shared), and summaries stop at max_rows too (counted in `dropped`).
"""
import gc
import tracemalloc

import numpy as np
import pytest

from dmlemu.gpu import Gpu
from dmlemu.presets import RX_7900_XTX, TEACHING
from dmlemu.traces import capture
from loop_kernels import kernel, launch, looped

TRIP = """
    buffer_load_dword v2, v1, s[8:11], 0
    s_waitcnt 0
    v_add_u32 v3, v3, v2
    v_add_u32 v1, v1, s23
"""


def _sum_launch(gpu, groups=4, group=64, trips=4):
    launch_, src, _ = launch(gpu, kernel(looped(TRIP, trips), group, groups * group * 4), "sum", groups, group,
                             groups * group * 4 * trips)
    return launch_


@pytest.mark.parametrize("preset, timing, detail", [(RX_7900_XTX, True, "wave"), (RX_7900_XTX, False, "dispatch"),
                                                    (TEACHING, True, "dispatch")], ids=lambda v: getattr(v, "key", v))
def test_a_capture_past_its_row_limit_stops_growing(preset, timing, detail):
    gpu = Gpu(preset, timing=timing)
    first = _sum_launch(gpu)
    second = _sum_launch(gpu)          # another program: its own listing
    cap = capture(gpu, detail=detail, max_rows=20)
    with cap:
        for i in range(30):
            gpu.dispatch(first if i % 2 else second)
        gc.collect()
        tracemalloc.start()
        before = tracemalloc.take_snapshot()
        for i in range(100):
            gpu.dispatch(first if i % 2 else second)
        gc.collect()
        after = tracemalloc.take_snapshot()
        tracemalloc.stop()
    grown = sum(stat.size_diff for stat in after.compare_to(before, "filename")
                if "recorder.py" in stat.traceback[0].filename or "capture.py" in stat.traceback[0].filename)
    assert grown <= 100 * 16, grown           # was 1.7 KB (dispatch detail) to 3.8 KB (wave detail) a dispatch
    trace = cap.trace
    assert sorted(trace.programs) == list(range(20))
    assert trace.programs[0] is trace.programs[2] and trace.programs[1] is trace.programs[3]
    assert trace.programs[0][0] == "sum" and any("buffer_load_dword" in line for line in trace.programs[0][1])
    assert len(trace.tables["dispatches"]) == 20 and trace.dropped["dispatches"] == 110
    if detail == "wave":
        assert len(trace.tables["wave_summary"]) == 20 and trace.dropped["wave_summary"] > 0
        assert any("wave_summary" in note for note in trace.folded())


def test_listings_of_a_capture_within_its_limit_are_whole():
    gpu = Gpu(TEACHING)
    run = _sum_launch(gpu)
    with capture(gpu, detail="instruction") as cap:
        for _ in range(3):
            gpu.dispatch(run)
    trace = cap.trace
    assert sorted(trace.programs) == [0, 1, 2] and not trace.folded()
    name, lines = trace.programs[1]
    assert name == "sum" and len(lines) == len(run.program)
    assert np.array_equal(trace.tables["dispatches"]["id"], [0, 1, 2])
