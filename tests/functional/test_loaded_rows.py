"""Loads whose waves read rows of memory that no (W, width) view expresses (wave.Rows: each workgroup a row, the
rows further apart than a workgroup's lanes, as a reduction's chunks are): element-wise instructions on them
(with uniforms, another such load, a Ramp, per-wave and per-lane registers), copy on write when a store changes
the memory they were loaded from, divergent branches that split the batch; the fast executor against the slow
per-lane reference executor, bit for bit."""
import numpy as np
import pytest

from dmlemu.functional.buffer_descriptor import write_buffer_descriptor
from dmlemu.functional.wave_dispatcher import KernelLaunch
from dmlemu.gpu import Gpu
from dmlemu.isa.assembler import assemble
from dmlemu.isa.program import Program
from dmlemu.presets import TEACHING
from reference_executor import run_launch

GROUP = 64     # threads a workgroup
ROW = 100      # elements between the workgroups' rows (> GROUP: the rows are apart)


def rows_program(store_first, diverge):
    lines = [
        "s_mov_b64 s[30:31], exec", "s_load_dwordx4 s[20:23], s[0:1], 0", "s_load_dwordx4 s[24:27], s[0:1], 16",
        "s_waitcnt 0", f"s_mul_i32 s28, s4, {ROW}", "v_add_u32 v2, s28, v0", "v_lshl_b32 v2, v2, 2",
        "buffer_load_dword v3, v2, s[24:27], 0", "buffer_load_dword v4, v2, s[24:27], 8", "s_waitcnt 0",
        "v_add_f32 v5, v3, v4",              # a row load and another of the same layout
        "v_add_f32 v6, v3, 0x3f800000",      # and a uniform
        "v_add_u32 v7, v3, v0",              # and a Ramp (thread ids)
        "v_xor_b32 v8, v4, s28",             # and one value per wave
        "v_max_f32 v9, v5, v3",              # and a per-lane register
    ]
    if store_first:    # the loaded rows change in memory; v3 and v4 keep what they loaded
        lines += ["buffer_store_dword v5, v2, s[24:27], 0", "buffer_store_dword v7, v2, s[24:27], 4"]
    if diverge:        # the batch splits: each side keeps the loaded lanes of its waves
        lines += ["s_cmp_lt_u32 s4, 1", "s_cbranch_scc1 skip", "v_sub_f32 v10, v4, v3", "skip:"]
    lines += ["v_mul_f32 v11, v3, v4", "s_mul_i32 s29, s4, 16", f"s_mul_i32 s29, s4, {GROUP}", "v_add_u32 v12, s29, v0",
              "v_lshl_b32 v12, v12, 6"]
    for r in range(3, 12):
        lines.append(f"buffer_store_dword v{r}, v12, s[20:23], {4 * r}")
    lines.append("s_endpgm")
    return "\n".join(lines)


@pytest.mark.parametrize("width", [16, 32, 64])
@pytest.mark.parametrize("store_first", [False, True])
@pytest.mark.parametrize("diverge", [False, True])
@pytest.mark.parametrize("batch_lanes", [128, 1 << 16])
def test_row_loads_match_reference(width, store_first, diverge, batch_lanes):
    groups = 6
    program = Program(assemble(rows_program(store_first, diverge)), "rows")
    rng = np.random.default_rng(width + 2 * store_first + 4 * diverge)
    source = rng.integers(0, 1 << 32, ROW * groups + GROUP + 4, dtype=np.uint64).astype(np.uint32)
    source[::7] = 0x7FC00001          # NaN payloads, infinities and zeros among the values
    source[3::11] = 0xFF800000
    source[5::13] = 0x80000000
    runs = []
    for _ in range(2):
        gpu = Gpu(TEACHING, wave_width=width)
        gpu.dispatcher.batch_lanes = batch_lanes
        out = gpu.memory.allocate(64 * groups * GROUP, "out")
        src = gpu.memory.allocate(source.nbytes, "src")
        src.data[:] = source.view(np.uint8)
        table = gpu.memory.allocate(32, "table")
        write_buffer_descriptor(table.data, 0, out.gpu_va, out.size)
        write_buffer_descriptor(table.data, 16, src.gpu_va, src.size)
        launch = KernelLaunch(program, groups, GROUP, (table.gpu_va & 0xFFFFFFFF, table.gpu_va >> 32, 0, 0))
        runs.append((gpu, out, src, launch))
    (fast_gpu, fast_out, fast_src, launch), (ref_gpu, ref_out, ref_src, ref_launch) = runs
    fast_gpu.dispatch(launch)
    run_launch(ref_launch, ref_gpu.memory, width)
    assert np.array_equal(fast_out.data, ref_out.data)
    assert np.array_equal(fast_src.data, ref_src.data)


def test_rows_rule_is_the_lanes_ufunc():
    """Rows' ufunc rule against the same ufunc on the copied lanes, for its operand kinds."""
    from dmlemu.functional.wave import Ramp, Rows

    memory = np.random.default_rng(3).random(4 * 300).astype(np.float32)
    rows = np.ndarray((4, 64), np.float32, memory, 0, (300 * 4, 4))
    rows.flags.writeable = False
    loaded = Rows(rows, (8, 32))
    lanes = rows.reshape(8, 32)
    other = np.random.default_rng(4).random((8, 32)).astype(np.float32)
    for operand in (np.float32(2.5), np.full((1, 1), 3, np.float32), other, Rows(rows, (8, 32)), other[:, :1],
                    np.asfortranarray(other)):
        plain = operand.values() if isinstance(operand, Rows) else operand
        for ufunc in (np.add, np.multiply, np.maximum, np.greater):
            assert np.array_equal(ufunc(loaded, operand), ufunc(lanes, plain))
            assert np.array_equal(ufunc(operand, loaded), ufunc(plain, lanes))
    ramp = Ramp(np.arange(8, dtype=np.uint32).reshape(8, 1), np.ones((1, 1), np.uint32), 32)
    bits = loaded.view(np.uint32)
    assert isinstance(bits, Rows)
    assert np.array_equal(bits + ramp, lanes.view(np.uint32) + ramp.values())
    assert np.array_equal(ramp + bits, ramp.values() + lanes.view(np.uint32))
    for keep in (np.arange(8) % 3 == 0, np.ones(8, bool), np.zeros(8, bool)):
        assert np.array_equal(Rows(rows, (8, 32))[keep], lanes[keep])     # some waves, without the copy of all
    assert np.array_equal(np.asarray(loaded), lanes) and not loaded.values().flags.writeable
