"""The verdict per dispatch (traces/verdict.py) on kernels built to be each kind of bound, the busy
columns it reads (traces/recorder.py), and where it is printed.

Each kernel is pinned to its limiter, with the limiter's share of the time in (0, 1]: a 2^22-element
FLOAT32 IDENTITY (DRAM), loops of v_exp_f32 and v_fma_f64 (transcendental and FP64 issue), a
256-element IDENTITY (launch / too few waves), a second read of a 32 MiB working set that the h200's
60 MB L2 holds (L2), and SIGMOID FLOAT16 at 2^20 on the RX 7900 XTX preset, which is neither issue- nor
memory-bound there: its 97 VGPRs leave 14 waves per SIMD, and its SIMDs sit with waves resident but
nothing to issue (latency at this occupancy); loops of independent v_fma_f32 (VALU issue) and of
v_wmma_f32_16x16x16_f16 (matrix issue).
"""
import csv
import dataclasses


from dmlemu.gpu import Gpu
from dmlemu.isa.assembler import assemble
from dmlemu.isa.program import Program
from dmlemu.presets import H200, RX_7900_XTX
from dmlemu.timing.kernel_path import PathCost
from dmlemu.traces import capture
from dmlemu.traces.csv_export import save_dispatch_csv
from dmlemu.timing.kernel_path import issue_cycles_per_wave
from dmlemu.traces.schema import ISSUE
from dmlemu.traces.verdict import LIMITERS
from loop_kernels import kernel, launch, looped

from tests.cli_runner import cli

BODIES = {
    # `n` loads `stride` bytes apart (n buffers' worth), then back to the first
    "reads": lambda n: "".join("    buffer_load_dword v2, v1, s[8:11], 0\n    v_add_u32 v1, v1, s23\n"
                               for _ in range(n)) + "    s_waitcnt 0\n    v_add_u32 v3, v3, v2\n    v_mov_b32 v1, v4\n",
    "exp": lambda n: "    v_exp_f32 v3, v3\n" * n,
    "fp64": lambda n: "    v_fma_f64 v[6:7], v[6:7], v[6:7], v[6:7]\n" * n,
    # independent FP32 FMAs on four chains, and wave matrix multiplies on two accumulators
    "fma": lambda n: "".join(f"    v_fma_f32 v{10 + i % 4}, v{10 + i % 4}, v3, v3\n" for i in range(n)),
    "wmma": lambda n: "".join(f"    v_wmma_f32_16x16x16_f16 v[{24 + 8 * (i % 2)}:{31 + 8 * (i % 2)}], v[40:47], v[48:55], "
                              f"v[{24 + 8 * (i % 2)}:{31 + 8 * (i % 2)}]\n" for i in range(n)),
}


def kernel_source(kind, n, trips, group, stride):
    return kernel(looped(BODIES[kind](n), trips), group, stride)


def run_kernel(preset, kind, n, trips, groups, group=256, repeat=1, detail="dispatch"):
    """A trace of `repeat` dispatches (a barrier after each) of the kernel on one fresh GPU."""
    gpu = Gpu(preset)
    threads = groups * group
    launch_, _, _ = launch(gpu, kernel_source(kind, n, trips, group, threads * 4), f"{kind}_kernel", groups, group,
                           threads * 4 * (n if kind == "reads" else 1))
    with capture(gpu, detail=detail) as cap:
        for _ in range(repeat):
            gpu.dispatch(launch_)
            gpu.barrier()
    return cap.trace


def run_operator_trace(operator, dtype, elements, adapter, detail="dispatch"):
    from dmlemu.tools.operators import OperatorRun, execute, random_inputs
    run = OperatorRun(operator, dtype, (elements,))
    return execute(run, random_inputs(run, 0), adapter=adapter, trace=detail).trace


def verdict_of(trace, dispatch=0):
    s = trace.summary()[dispatch]
    assert s["limiter"] in LIMITERS and 0.0 < s["limiter_share"] <= 1.0, s
    return s


def test_a_big_identity_is_dram_bound():
    s = verdict_of(run_operator_trace("IDENTITY", "FLOAT32", 1 << 22, "rx7900xtx"))
    assert s["limiter"] == "DRAM bandwidth" and s["limiter_share"] > 0.8
    assert s["occupancy_limiter"] == "wave slots"


def test_a_loop_of_exponentials_is_transcendental_issue_bound():
    s = verdict_of(run_kernel(RX_7900_XTX, "exp", 16, 16, 2048))
    assert s["limiter"] == "transcendental issue" and s["limiter_share"] > 0.8
    assert s["dram_share"] < 0.05


def test_a_loop_of_fp64_fmas_is_fp64_issue_bound():
    s = verdict_of(run_kernel(RX_7900_XTX, "fp64", 16, 8, 2048))
    assert s["limiter"] == "FP64 issue" and s["limiter_share"] > 0.8


def test_a_loop_of_fp32_fmas_is_valu_issue_bound():
    s = verdict_of(run_kernel(RX_7900_XTX, "fma", 32, 32, 2048))
    assert s["limiter"] == "VALU issue" and s["limiter_share"] > 0.8
    assert s["dram_share"] < 0.05


def test_a_loop_of_wave_matrix_multiplies_is_matrix_issue_bound():
    s = verdict_of(run_kernel(RX_7900_XTX, "wmma", 16, 16, 384, group=64))
    assert s["limiter"] == "matrix issue" and s["limiter_share"] > 0.8


def test_a_loop_of_conflicting_lds_reads_is_lds_bound():
    """Every lane of a wave reads a dword 128 bytes past its neighbour's: all in one bank, so each ds_read_b32
    takes one bank-conflict pass per lane (docs/WORKGROUPS.md); the CU's LDS pipe, not the issue ports, sets
    the pace, and `dmlemu onnx`'s one word for it is memory."""
    from dmlemu.traces.verdict import bound_of
    gpu = Gpu(RX_7900_XTX)
    groups, group = 1024, 256
    body = "    v_lshl_b32 v6, v0, 7\n" + looped("".join(f"    ds_read_b32 v{10 + i % 4}, v6, 0\n" for i in range(16))
                                                 + "    s_waitcnt 0\n", 16)
    base, _, _ = launch(gpu, kernel(body, group, 4), "lds_kernel", groups, group, groups * group * 4)
    lds_launch = dataclasses.replace(base, lds_bytes=group * 128)
    with capture(gpu) as cap:
        gpu.dispatch(lds_launch)
        gpu.barrier()
    s = verdict_of(cap.trace)
    assert s["limiter"] == "LDS bandwidth" and s["limiter_share"] > 0.8, s
    assert s["issue_share"] < 0.5 and s["dram_share"] < 0.05
    row = cap.trace.dispatches[0]
    # 16 trips x 16 reads x 8 waves per workgroup x 1024 workgroups, 32 passes each (wave32: 32 lanes, one bank)
    assert int(row["lds_passes"]) == 16 * 16 * 8 * groups * 32
    assert bound_of(row, RX_7900_XTX) == "memory"
    line = str(cap.trace.format_verdicts()).splitlines()[0]
    assert "LDS bandwidth" in line and ", LDS " in line, line


def test_a_tiny_dispatch_is_launch_bound_with_too_few_waves():
    s = verdict_of(run_operator_trace("IDENTITY", "FLOAT32", 256, "rx7900xtx"))
    assert s["limiter"] == "launch / too few waves" and s["limiter_share"] > 0.9
    assert s["occupancy_limiter"] == "dispatch size"


def test_a_second_read_of_an_l2_resident_working_set_is_l2_bound_on_a_big_l2():
    # 24 MiB read, twice: the h200 L2 is 60 MB, its near partition 30 (a larger set comes back from the far
    # partition, whose extra latency the miss queues do not hide: docs/DEVIATIONS.md). It was 16 MiB (2048
    # groups of 8 loads per thread): since a workgroup holds its slots while it starts and ends (the preset's
    # workgroup_slot_cycles) that dispatch is as much launch as L2 (shares 0.50 and 0.47); 1024 groups of 24
    # loads keep the L2 the limiter (0.56).
    trace = run_kernel(H200, "reads", 24, 1, 1024, repeat=2)
    first, second = verdict_of(trace, 0), verdict_of(trace, 1)
    assert first["limiter"] == "DRAM bandwidth"
    assert second["limiter"] == "L2 bandwidth" and second["limiter_share"] >= 0.5 and second["dram_share"] < 0.05


def test_sigmoid_float16_is_latency_bound_at_its_vgpr_limited_occupancy():
    s = verdict_of(run_operator_trace("SIGMOID", "FLOAT16", 1 << 20, "rx7900xtx"))
    assert s["limiter"] == "latency at this occupancy"
    assert s["occupancy_limiter"] == "VGPRs" and s["waves_per_simd"] == 14
    assert max(s["dram_share"], s["l2_share"], s["ic_share"], s["issue_share"]) < 0.5


def test_issue_cycles_per_wave_is_the_rule_path_cost_charges():
    """A cohort large enough to hide every latency is charged waves x the per-wave issue cycles of its path."""
    source = kernel_source("exp", 4, 3, 256, 1024).replace("loop:", "loop:\n" + BODIES["fp64"](2) + "    s_nop 0\n")
    program = Program(assemble(source), "k")
    path = list(range(len(program.records)))
    for preset, passes in ((RX_7900_XTX, 1), (RX_7900_XTX, 2), (H200, 1)):
        rates = preset.rate_cycles()
        _, busy = PathCost(program, path, passes, preset.smem_latency_percent, rates).schedule(64)
        assert busy == 64 * sum(issue_cycles_per_wave(r.entry, passes, rates) for r in program.records)


def test_the_busy_columns_add_up():
    trace = run_kernel(RX_7900_XTX, "exp", 4, 2, 64)
    d = trace.dispatches[0]
    ins = trace.instructions[trace.instructions["dispatch"] == 0]
    assert int(sum(int(d[n]) for n in ISSUE)) == int(ins["issue_cycles"].sum()) > 0
    assert int(d["transcendental_issue_cycles"]) == 4 * 2 * int(d["waves"]) * RX_7900_XTX.rate_cycles()["transcendental"]
    assert int(d["simd_busy_cycles"]) >= int(ins["issue_cycles"].sum())
    simds = RX_7900_XTX.compute_units * RX_7900_XTX.simds_per_cu
    assert 0 < int(d["occupied_simd_cycles"]) <= (int(d["end"]) - int(d["start"])) * simds
    # every instruction of the program has its row, with the waves that ran it (the loop's body twice each)
    assert len(ins) == len(trace.programs[0][1])
    body = [i for i, text in enumerate(trace.programs[0][1]) if text.startswith("v_exp_f32")]
    assert set(ins["waves"][body].tolist()) == {2 * int(d["waves"])}


def test_an_old_trace_without_the_busy_columns_has_no_verdict(tmp_path):
    trace = run_operator_trace("IDENTITY", "FLOAT32", 4096, "teaching")
    for name in ("occupied_simd_cycles",):
        trace.dispatches[name] = 0
    s = trace.summary()[0]
    assert s["limiter"] == "" and s["limiter_share"] == 0.0
    assert "recorded before the busy counters" in trace.format_verdicts()


def test_the_csv_carries_the_verdict(tmp_path):
    trace = run_operator_trace("IDENTITY", "FLOAT32", 256, "rx7900xtx")
    rows = list(csv.DictReader(open(save_dispatch_csv(trace, tmp_path / "d.csv"), encoding="utf-8")))
    assert rows[0]["limiter"] == "launch / too few waves" and 0 < float(rows[0]["limiter_share"]) <= 1
    assert rows[0]["occupancy_limiter"] == "dispatch size"
    assert {"dram_share", "l2_share", "ic_share", "issue_share", "latency_share", "idle_share"} <= set(rows[0])


def test_run_and_trace_summary_print_one_verdict_line_per_dispatch(tmp_path):
    path = tmp_path / "t.npz"
    code, out, _ = cli(*["run", "IDENTITY", "--sizes", "256", "--adapter", "rx7900xtx", "--trace", str(path)])
    assert code == 0
    line = "#0 element_wise_identity_float32_packed: launch / too few waves, 99% of "
    assert line in out and "limited by dispatch size (8 waves for 192 SIMDs)" in out
    code, out, _ = cli(*["trace", str(path), "--summary"])
    assert code == 0 and line in out
