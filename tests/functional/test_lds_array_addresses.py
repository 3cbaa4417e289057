"""LDS reads through an address register that holds an array, as a tiled GEMM's unrolled loop reads its tiles.

executor._lds_array_lanes remembers such a register's lanes (their byte indices into the batch's LDS) and
reads it again at each instruction's offset; from the fourth read on, _unwritten_reads looks at the
register's distinct addresses before every lane's. Each kernel here is run by the fast executor and by the
per-lane reference (tests/oracles/reference_executor.py) and must agree bit for bit and counter for counter
(LDS reads past the allocation, reads of bytes never written): reads in range, a read whose last lanes run
past the workgroup's LDS, reads of bytes never written after several clean ones, an address register
written again between reads, and 8- and 16-byte accesses through one register. With the timing model on, the
bank passes each LDS slot records (found once per register, _record_lds) must be the general path's.
"""
import numpy as np
import pytest

from dmlemu.functional import executor
from test_workgroups import _data, check_both

GROUP = 96
LANES = "_lds_array_lanes"      # the executor's remembered-lanes lookup, patched to watch or bypass it
WRITTEN = GROUP * 16            # the bytes every workgroup writes (thread t its 16 bytes at 16 t)

# v8 = 16 t (a Ramp); v9 = 16 (t mod 8) + 128 (t / 32 mod 2): an array (v_and has no Ramp rule), eight
# lanes on one address, as a GEMM's lanes share a row of A.
SOURCE = """
    v_lshl_b32 v8, v0, 4
    v_xor_b32 v4, v3, 0x5a5a5a5a
    v_add_u32 v5, v3, v1
    v_mov_b32 v6, v1
    ds_write_b128 v8, v[3:6], 0
    s_barrier
    v_and_b32 v9, v0, 7
    v_lshl_b32 v9, v9, 4
    v_lshr_b32 v10, v0, 5
    v_and_b32 v10, v10, 1
    v_lshl_b32 v10, v10, 7
    v_add_u32 v9, v9, v10
    ds_read_b128 v[20:23], v9, 0
    ds_read_b128 v[24:27], v9, 16
    ds_read_b128 v[28:31], v9, 48
    ds_read_b128 v[32:35], v9, {far}
    ds_read_b128 v[36:39], v9, {unwritten}
    ds_read_b64 v[40:41], v9, 8
    ds_read_b64 v[42:43], v9, 24
    ds_read_b64 v[44:45], v9, 40
    ds_read_b64 v[46:47], v9, 56
    ds_read_b64 v[48:49], v9, {far}
    v_xor_b32 v9, v9, 16
    ds_read_b128 v[50:53], v9, 32
    v_lshl_b32 v14, v2, 4
    {stores}
    s_endpgm
"""


def _source(far, unwritten):
    registers = [20, 21, 22, 23, 24, 27, 28, 30, 32, 35, 36, 39, 40, 41, 43, 45, 47, 48, 49, 50, 53]
    # Each lane keeps the xor of what it read, as two dwords: a register's value at every lane counts.
    folds = []
    for k, reg in enumerate(registers[2:]):
        folds.append(f"v_xor_b32 v{20 + k % 2}, v{20 + k % 2}, v{reg}")
    stores = "\n    ".join(folds + ["buffer_store_dword v20, v14, s[12:15], 0",
                                    "buffer_store_dword v21, v14, s[12:15], 4"])
    return SOURCE.format(far=far, unwritten=unwritten, stores=stores)


@pytest.mark.parametrize("width", [32, 16])
@pytest.mark.parametrize("far, unwritten, lds_bytes", [
    (WRITTEN - 256, 64, WRITTEN),                 # every read in range and written
    (WRITTEN - 200, 64, WRITTEN),                 # the `far` reads: their last lanes past the LDS (read 0)
    (WRITTEN - 256, WRITTEN + 64, WRITTEN + 512),  # one read of bytes never written, after four clean ones
])
def test_array_addressed_lds_reads_agree_with_the_reference(monkeypatch, width, far, unwritten, lds_bytes):
    calls = []
    original = getattr(executor, LANES)

    def spy(*args):
        lanes = original(*args)
        calls.append(lanes is not None and lanes.distinct is not None)
        return lanes

    monkeypatch.setattr(executor, LANES, spy)
    out, stats = check_both(_source(far, unwritten), _data(3 * GROUP), groups=3, group=GROUP,
                            lds_bytes=lds_bytes, width=width)
    monkeypatch.undo()
    assert any(calls), "no read took the distinct addresses' path"
    expect_oob = far + 128 + 7 * 16 > lds_bytes - 16
    assert (stats.lds_oob_reads > 0) == expect_oob
    assert (stats.lds_unwritten_reads > 0) == (unwritten >= WRITTEN)
    assert out[:3 * GROUP * 2].any()


NARROW = """
    v_lshl_b32 v8, v0, 4
    ds_write_b128 v8, v[3:6], 0
    s_barrier
    v_and_b32 v9, v0, 7
    v_lshl_b32 v9, v9, 4
    ds_read_b128 v[20:23], v9, 0
    ds_read_b128 v[24:27], v9, 16
    ds_read_b128 v[28:31], v9, 48
    ds_read_b128 v[32:35], v9, 64
    ds_read_u16 v36, v9, 2
    ds_read_u16 v37, v9, 4
    ds_read_u8 v38, v9, 3
    v_lshl_b32 v10, v9, 3
    ds_read_b128 v[40:43], v10, 0
    ds_read_b128 v[44:47], v10, 16
    ds_read_b128 v[48:51], v10, 32
    ds_read_b128 v[52:55], v10, 48
    v_xor_b32 v20, v20, v41
    v_xor_b32 v20, v20, v46
    v_xor_b32 v20, v20, v55
    v_xor_b32 v20, v20, v27
    v_xor_b32 v20, v20, v29
    v_xor_b32 v20, v20, v34
    v_xor_b32 v20, v20, v36
    v_xor_b32 v20, v20, v37
    v_xor_b32 v20, v20, v38
    v_lshl_b32 v14, v2, 2
    buffer_store_dword v20, v14, s[12:15], 0
    s_endpgm
"""


@pytest.mark.parametrize("width", [32, 16])
def test_the_timing_record_gets_the_same_bank_passes_from_the_remembered_lanes(monkeypatch, width):
    """With the timing model on, _record_lds hands the record one address register's bank passes, found once, at
    every offset of whole dwords (ds_read_u16 at offset 2 and ds_read_u8 at 3 take the per-lane route): every LDS
    slot's passes, the cycles and the output are those of the general path (_lds_array_lanes off). v9's eight
    addresses are 16 bytes apart, v10's 128 (fewer banks, more passes)."""
    from dmlemu.gpu import Gpu
    from dmlemu.presets import TEACHING
    from test_workgroups import _setup

    def run():
        gpu = Gpu(TEACHING, wave_width=width, timing=True)
        launch, dst = _setup(gpu, NARROW, 3, GROUP, WRITTEN, _data(3 * GROUP), 3 * GROUP * 4)
        stats = gpu.dispatch(launch)
        passes = {slot: rows.passes.copy() for slot, rows in stats.record.lds.items()}
        return dst.data.view(np.uint32).copy(), stats.cycles, passes

    fast = run()
    monkeypatch.setattr(executor, LANES, lambda *args: None)   # every read takes the general path
    general = run()
    monkeypatch.undo()
    assert np.array_equal(fast[0], general[0]) and fast[1] == general[1]
    assert fast[2].keys() == general[2].keys() and len(fast[2]) >= 8
    for slot in fast[2]:
        assert np.array_equal(fast[2][slot], general[2][slot]), slot
    assert len({int(p.max()) for p in fast[2].values()}) >= 2      # the registers' passes differ
