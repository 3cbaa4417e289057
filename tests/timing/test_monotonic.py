"""More of a resource never makes a dispatch slower (emulator/timing/): DRAM bandwidth, L2 bandwidth,
compute units; and the mechanisms that used to break that rule: DRAM refresh windows at fixed times
(memory_system.py), a CU's requests overtaking the ones in its wait queue (compute_unit.py), a small
grid packed onto a few SIMDs (workgroup_dispatcher.py); with the write back-pressure, RDNA3 dual issue
and small-grid spread they stand beside."""
import dataclasses

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from dmlemu.direct_run import DirectRun
from dmlemu.functional.wave_dispatcher import KernelLaunch
from dmlemu.gpu import Gpu
from dmlemu.isa.assembler import assemble
from dmlemu.isa.program import Program
from dmlemu.kernels.driver import TensorSpec
from dmlemu.presets import H200, IRIS_XE, RTX_3070, RX_6800_XT, RX_7900_XTX, TEACHING
from dmlemu.timing.kernel_path import PathCost
from dmlemu.timing.memory_system import FifoServer

OPERATORS = ("ELEMENT_WISE_IDENTITY", "ACTIVATION_SIGMOID", "ELEMENT_WISE_CLIP")
RESOURCES = ("dram_bytes_per_second", "l2_bytes_per_cycle", "compute_units")


def dispatch_cycles(preset, operator, dtype, n):
    x = np.random.default_rng(n).standard_normal(n).astype(dtype)
    spec = TensorSpec("FLOAT16" if dtype == np.float16 else "FLOAT32", (n,), None, x.nbytes)
    run = DirectRun(Gpu(preset), operator, [spec, spec], [x.view(np.uint8), np.zeros(x.nbytes, np.uint8)])
    return run.dispatch().cycles


@settings(max_examples=12, deadline=None, derandomize=True)
@given(preset=st.sampled_from((TEACHING, RX_6800_XT, RTX_3070, H200, RX_7900_XTX, IRIS_XE)),
       operator=st.sampled_from(OPERATORS), dtype=st.sampled_from((np.float16, np.float32)),
       log2=st.integers(6, 14), resource=st.sampled_from(RESOURCES), percent=st.sampled_from((110, 125, 200)))
def test_more_of_a_resource_never_makes_a_small_dispatch_slower(preset, operator, dtype, log2, resource, percent):
    if preset is IRIS_XE and dtype == np.float16 and operator == "ACTIVATION_SIGMOID":
        dtype = np.float32
    more = dataclasses.replace(preset, **{resource: getattr(preset, resource) * percent // 100})
    n = 1 << log2
    assert dispatch_cycles(more, operator, dtype, n) <= dispatch_cycles(preset, operator, dtype, n)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(start=st.integers(0, 100_000), first=st.integers(1, 50_000), more=st.integers(0, 50_000),
       later=st.integers(0, 5_000))
def test_refresh_windows_never_end_a_transfer_earlier_for_a_later_start_or_more_bytes(start, first, more, later):
    """A transfer that starts later or moves more bytes never ends earlier; one that starts inside a
    refresh window waits for its end."""
    def end(at, num_bytes):
        server = FifoServer(1_000, 7_000, refresh_interval=900, refresh_cycles=40)
        return server.serve(at, num_bytes)
    s0, e0 = end(start, first)
    assert end(start + later, first)[1] >= e0 and end(start, first + more)[1] >= e0
    if start >= 900 and start % 900 < 40:
        assert s0 == start - start % 900 + 40


def test_a_store_stream_waits_for_the_write_queue():
    """Write back-pressure: with the write queue bounded, a store stream larger than the L2 takes
    about as long as DRAM needs for its write-backs; unbounded, it runs at L2 speed."""
    source = ("    s_load_dwordx4 s[8:11], s[0:1], 0\n    s_waitcnt 0\n    s_get_workgroup_id s20\n"
              "    s_mul_i32 s21, s20, 128\n    v_add_u32 v1, s21, v0\n    v_lshl_b32 v1, v1, 2\n"
              "    v_mov_b32 v2, 0\n" + "".join(f"    buffer_store_dword v2, v1, s[8:11], {k * 64}\n" for k in range(8))
              + "    s_endpgm\n")

    def cycles(preset):
        from dmlemu.functional.buffer_descriptor import write_buffer_descriptor
        gpu = Gpu(preset)
        buf = gpu.memory.allocate(64 * 16 * 8 * 4, "buffer")      # 32 KiB: 8x the teaching L2
        table = gpu.memory.allocate(64, "table")
        write_buffer_descriptor(table.data, 0, buf.gpu_va, buf.size)
        launch = KernelLaunch(Program(assemble(source), "stores"), 64, 16,
                              (table.gpu_va & 0xFFFFFFFF, table.gpu_va >> 32))
        stats = gpu.dispatch(launch)
        return stats.cycles, stats.timing.dram_bytes

    bounded, dram_bytes = cycles(TEACHING)
    unbounded, _ = cycles(dataclasses.replace(TEACHING, dram_write_queue_bytes=0))
    assert dram_bytes > 0 and bounded > unbounded
    # The write-backs (all but the L2's capacity) at DRAM's rate bound the bounded run from below.
    assert bounded >= (dram_bytes * TEACHING.clock_hz) // TEACHING.dram_bytes_per_second


def test_a_small_grid_spreads_over_the_simds():
    """144 one-wave workgroups on the RX 6800 XT preset (144 SIMDs) run one wave per SIMD: far faster
    than 1,152, which fill every SIMD with 8 (beyond the workgroup slot time, workgroup_slot_cycles, that
    each SIMD's first hand-out waits in both)."""
    program = Program(assemble("\n".join(["    v_mad_f32 v2, v4, v6, v8"] * 64 + ["    s_endpgm", ""])), "alu")

    def cycles(groups):
        launch = KernelLaunch(program, groups, RX_6800_XT.wave_width, (0, 0), vgprs_used=10, sgprs_used=4)
        return Gpu(RX_6800_XT).dispatch(launch).cycles - RX_6800_XT.launch_cycles - RX_6800_XT.workgroup_slot_cycles

    assert 3 * cycles(144) < cycles(1152)


def test_vopd_pairs_independent_fp32_instructions_on_rdna3():
    """RX 7900 XTX (valu_dual_issue): FMACs on alternating even/odd accumulators with sources in
    different banks pair; a dependent pair, two even destinations or same-bank sources do not."""
    def issue(text, dual=True, passes=1):
        program = Program(assemble(text + "\n    s_endpgm\n"), "k")
        steps, busy = PathCost(program, range(len(program.records)), passes, 100, RX_7900_XTX.rate_cycles(),
                               dual=dual).schedule(8)
        return sum(s.issue for s in steps)

    pair = "    v_fma_f32 v8, v1, v2, v8\n    v_fma_f32 v9, v3, v4, v9"
    assert issue(pair) == 8 and issue(pair, dual=False) == 16
    assert issue("    v_fma_f32 v8, v1, v2, v8\n    v_fma_f32 v10, v3, v4, v10") == 16      # both even
    assert issue("    v_fma_f32 v8, v1, v2, v8\n    v_fma_f32 v9, v8, v4, v9") == 16       # dependent
    assert issue("    v_fma_f32 v8, v1, v2, v8\n    v_fma_f32 v9, v5, v4, v9") == 16       # src0 bank 1 twice
    assert issue("    v_fma_f32 v8, v1, v2, v7\n    v_fma_f32 v9, v3, v4, v9") == 16       # not FMAC
    assert issue("    v_add_u32 v8, v1, v2\n    v_add_f32 v9, v3, v4") == 16                # add_u32: OpY only
    assert issue("    v_add_f32 v9, v3, v4\n    v_add_u32 v8, v1, v2") == 8
    assert issue(pair, passes=2) == 16        # wave64: both halves of each at once, no VOPD pairs
