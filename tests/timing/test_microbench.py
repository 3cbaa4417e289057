"""The GPU microbenchmark suite (bench/microbench/): one small run of each kind on the RTX 3070 preset,
through the suite's own code (its D3D12 host program and kernels), with the figures held to what the
preset's own numbers allow (not to the published measurements: docs/FIDELITY.md's Microbenchmarks
section reports those). Then the suite's table, its Markdown and the section it writes into a file."""
import os
import sys

import pytest

BENCH = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "bench")
if BENCH not in sys.path:
    sys.path.insert(0, BENCH)

from microbench import benchmarks, published, suite  # noqa: E402
from microbench.rig import BenchRig  # noqa: E402
from dmlemu.presets import RTX_3070  # noqa: E402

P = RTX_3070
KiB, MiB = 1 << 10, 1 << 20


@pytest.fixture
def rig():
    return BenchRig(P.key)


def test_the_rig_runs_on_the_named_adapter(rig):
    assert rig.clock_hz == P.clock_hz


def test_a_chase_hits_the_cache_and_a_larger_set_reaches_dram(rig):
    """8 KiB (walked first, so cached) against 8 MiB (twice the 4 MiB L2, chased cold): the cached chase
    is at least the L2's latency and below DRAM's; the cold one at least DRAM's latency."""
    cached = benchmarks.chase_ns(rig, P, 8 * KiB, steps=64)
    cold = benchmarks.chase_ns(BenchRig(P.key), P, 8 * MiB, steps=64)
    ns = 1e9 / P.clock_hz
    assert 0 < cached < cold
    assert cold >= P.dram_latency_cycles * ns
    assert cached < P.dram_latency_cycles * ns


def test_read_bandwidth_is_faster_from_the_cache_than_from_dram(rig):
    cached = benchmarks.read_gbs(rig, P, 256 * KiB)
    dram = benchmarks.read_gbs(BenchRig(P.key), P, 16 * MiB)
    peak = P.dram_bytes_per_second / 1e9
    assert 0.3 * peak < dram <= 1.02 * peak
    assert cached > dram


def test_a_store_stream_larger_than_the_caches_runs_between_dram_and_l2_speed(rig):
    """An 8 MiB store stream (twice the L2): at least near DRAM's rate, at most the L2's (the issue's bar,
    DRAM's rate, is the suite's comparison, not this test's)."""
    rate = benchmarks.store_gbs(rig, P, 8 * MiB)
    assert 0.3 * P.dram_bytes_per_second / 1e9 < rate <= P.l2_bytes_per_cycle * P.clock_hz / 1e9


@pytest.mark.parametrize("data_type, cycles_per_wave", [("FP32", 1), ("FP64", 64)])
def test_fma_throughput_is_the_issue_rate(rig, data_type, cycles_per_wave):
    """Every SIMD issues one FMA per wave per cycle (FP64: the preset's 64 cycles): the peak is
    CUs x SIMDs x 32 lanes x 2 FLOP x clock / cycles; the kernel reaches at least 80 % of it."""
    peak = P.compute_units * P.simds_per_cu * P.wave_width * 2 * P.clock_hz / cycles_per_wave / 1e12
    rate = benchmarks.fma_tflops(rig, P, data_type)
    assert 0.8 * peak <= rate <= 1.001 * peak


def test_occupancy_points_read_at_most_at_dram_speed(rig):
    rates = [benchmarks.occupancy_gbs(rig, P, block, nbytes=2 * MiB) for block in (128, 512)]
    # Differencing the 2 and 4 MiB runs cancels launch and drain, not all of the ramp's overlap: at these
    # small sizes the difference may read a few per cent above the DRAM's rate (2 %: 458 of 448 GB/s).
    assert all(0 < r <= 1.05 * P.dram_bytes_per_second / 1e9 for r in rates)
    assert rates[0] < rates[1]


@pytest.mark.parametrize("which", ["UPLOAD -> DEFAULT", "DEFAULT -> READBACK", "kernel reads UPLOAD"])
def test_host_traffic_runs_at_most_at_the_links_rate(rig, which):
    rate = benchmarks.host_gbs(rig, P, which, nbytes=4 * MiB)
    link = P.host_link_bytes_per_second / 1e9
    assert 0.5 * link < rate <= link


def test_the_stream_kernel_holds_two_groups_per_cu_by_its_registers():
    """gpu-stream keeps 2 blocks of N threads per SM: the kernel's VGPRs leave room for that many waves."""
    from dmlemu.presets import H200, RX_6800_XT
    from dmlemu.timing.command_processor import occupancy
    for preset, block, waves in ((H200, 128, 2), (H200, 1024, 16), (P, 256, 4), (RX_6800_XT, 128, 4),
                                 (RX_6800_XT, 1024, 16)):
        assert benchmarks.stream_waves_per_simd(preset, block) == waves
        assert occupancy(preset, benchmarks.stream_vgprs(preset, block)) == waves, (preset.key, block)


def test_every_published_row_names_a_point_of_its_preset():
    """A row that no benchmark point matches would never be compared: each names a real point."""
    from dmlemu.presets import preset_by_key
    for row in published.PUBLISHED:
        names = {(p.benchmark, p.point) for p in benchmarks.points(preset_by_key(row.preset), long=True)}
        assert (row.benchmark, row.point) in names, row
        assert row.unit == next(p.unit for p in benchmarks.points(preset_by_key(row.preset), long=True)
                                if (p.benchmark, p.point) == (row.benchmark, row.point))


def test_the_suite_table_and_the_fidelity_section(tmp_path):
    rows = suite.run([P.key], {"fma"})
    assert [r.point.point for r in rows] == ["FP32", "FP64", "FP16"]
    assert all(r.verdict in ("PASS", "FAIL") and r.ratio > 0 for r in rows)
    assert rows[0].verdict == "PASS"       # the preset's FP32 peak is the vendor's figure
    markdown = suite.render_markdown(rows)
    assert markdown.count("\n") == len(rows) + 1 and "TechPowerUp" in markdown
    path = tmp_path / "FIDELITY.md"
    path.write_text("# Fidelity\n\n## Before\n\ntext\n", encoding="utf-8")
    suite.write_fidelity(str(path), rows, 1.0)
    once = path.read_text(encoding="utf-8")
    suite.write_fidelity(str(path), rows, 1.0)
    assert path.read_text(encoding="utf-8") == once        # the section is replaced, not appended again
    assert once.startswith("# Fidelity\n\n## Before\n\ntext\n") and suite.SECTION in once


def test_bench_fidelity_keeps_the_microbenchmarks_section(tmp_path):
    """bench/fidelity.py rewrites docs/FIDELITY.md from its own runs and keeps the section the suite wrote."""
    from dmlemu.tools.fidelity import MICROBENCH_SECTION, _kept_section
    assert MICROBENCH_SECTION == suite.SECTION
    path = tmp_path / "FIDELITY.md"
    path.write_text("# F\n\n## A\n\na\n\n## Microbenchmarks\n\n| t |\n\n## Z\n\nz\n", encoding="utf-8")
    assert _kept_section(str(path), MICROBENCH_SECTION) == "\n## Microbenchmarks\n\n| t |\n"
    assert _kept_section(str(tmp_path / "missing.md"), MICROBENCH_SECTION) == ""


def test_chase_check_is_the_suites_chase_with_cycles():
    """bench/chase_check.py runs the suite's chase (one pointer-chase kernel) and reads published.py."""
    import chase_check
    from dmlemu.presets import H200
    [(key, size, cycles, ns, ref)] = chase_check.table([H200], [8 * KiB])
    assert (key, size) == ("h200", 8 * KiB)
    assert ns == benchmarks.chase_ns(BenchRig(H200.key), H200, 8 * KiB)
    assert cycles == ns * H200.clock_hz / 1e9 and ref == published.lookup("h200", "chase", "8 KiB")
    assert f"| h200 | 8 KiB | {cycles:.0f} |" in chase_check.render([(key, size, cycles, ns, ref)])


def test_h200_short_workgroups_turn_over_at_the_measured_rate():
    """gpu-stream's init kernel (one store per thread) at 128-thread groups, 2 per SM: a real H200 stores
    1163 GB/s (te42kyfo/gpu-benches gpu-stream/h200.txt, 'init'), the rate its groups start and end; the
    h200 preset's workgroup_slot_cycles is derived from it (emulator/presets.py), so the model is within
    5 % of it at gpu-stream's residency (2 groups of 128 threads per SM)."""
    from dmlemu.presets import H200
    assert benchmarks.stream_waves_per_simd(H200, 128) * H200.simds_per_cu * H200.wave_width == 2 * 128
    rate = benchmarks.occupancy_store_gbs(BenchRig(H200.key), H200, 128)
    assert abs(rate / 1163 - 1) <= 0.05, rate
