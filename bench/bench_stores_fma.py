"""Benchmark: store streams against DRAM (write back-pressure) and FP32 FMA throughput (RDNA3 dual issue).

1. Store stream: every wave stores 8-byte elements (buffer_store_dwordx2) over a buffer larger than the
   preset's caches, in a loop of 8 stores a trip. The steady-state rate is the difference of two runs
   (total bytes S and 2S: the first stores that fill the L2 without evicting, the launch and the drain
   cancel), printed next to the published store-stream figure of that GPU or a sibling.
2. FP32 FMA throughput: enough waves to fill every SIMD eight times over, each running 256 v_fma_f32 in
   FMAC form on 8 independent accumulators whose registers meet VOPD's pairing rule
   (timing/kernel_path.py), against the vendor's peak.

    .venv/bin/python bench/bench_stores_fma.py [--presets rx6800xt,h200] [--fma-only] [--stores-only]

Published figures (store stream, steady state): H200 3.89 TB/s (te42kyfo/gpu-benches, gpu-stream/h200.txt,
"init" kernel) and 4.30 TB/s (this project's H200, bench/gpu_calibration/results/h200_microbench.md);
RX 6900 XT ~500 GB/s (te42kyfo/gpu-benches gpu-stream, as quoted in issue 23; a sibling of the RX 6800 XT
preset: the same Navi 21 with the same 512 GB/s GDDR6). Others: NOT FOUND. FP32 peaks: vendor sheets
(TechPowerUp GPU Database: RX 7900 XTX 61.39 TFLOPS with dual issue; RX 6800 XT 20.74; RTX 3070 20.31).
"""
import argparse
import time

from dmlemu.functional.buffer_descriptor import write_buffer_descriptor
from dmlemu.functional.wave_dispatcher import KernelLaunch
from dmlemu.gpu import Gpu
from dmlemu.isa.assembler import assemble
from dmlemu.isa.program import Program
from dmlemu.presets import preset_by_key

GROUP = 256            # threads per workgroup
UNROLL = 8             # stores per loop trip
STORE_PUBLISHED = {"h200": (3.89e12, "te42kyfo/gpu-benches gpu-stream/h200.txt 'init'"),
                   "rx6800xt": (500e9, "RX 6900 XT (sibling) gpu-stream store, issue 23")}
FMA_PEAK = {"rx7900xtx": 61.39e12, "rx6800xt": 20.74e12, "rtx3070": 20.31e12, "h200": 66.9e12}


def store_source(trips, wave_width):
    """Each workgroup stores trips x UNROLL x GROUP elements of 8 bytes, contiguous, its own chunk."""
    chunk = trips * UNROLL * GROUP * 8
    body = "".join(f"    buffer_store_dwordx2 v[2:3], v1, s[8:11], {k * GROUP * 8}\n" for k in range(UNROLL))
    return ("    s_load_dwordx4 s[8:11], s[0:1], 0\n    s_waitcnt 0\n    s_get_workgroup_id s20\n"
            f"    s_mul_i32 s21, s20, {chunk}\n    v_lshl_b32 v1, v0, 3\n    v_add_u32 v1, s21, v1\n"
            "    v_mov_b32 v2, 0\n    v_mov_b32 v3, 0\n"
            f"    s_mov_b32 s22, {trips}\nloop:\n" + body +
            f"    v_add_u32 v1, {UNROLL * GROUP * 8}, v1\n"
            "    s_sub_u32 s22, s22, 1\n    s_cmp_lg_u32 s22, 0\n    s_cbranch_scc1 loop\n    s_endpgm\n")


def store_cycles(preset, total_bytes, trips=16):
    gpu = Gpu(preset)
    groups = total_bytes // (trips * UNROLL * GROUP * 8)
    buf = gpu.memory.allocate(groups * trips * UNROLL * GROUP * 8, "buffer")
    table = gpu.memory.allocate(64, "table")
    write_buffer_descriptor(table.data, 0, buf.gpu_va, buf.size)
    launch = KernelLaunch(Program(assemble(store_source(trips, preset.wave_width)), "store_stream"), groups, GROUP,
                          (table.gpu_va & 0xFFFFFFFF, table.gpu_va >> 32), vgprs_used=8, sgprs_used=24)
    stats = gpu.dispatch(launch)
    return stats.cycles, groups * trips * UNROLL * GROUP * 8


def store_rate(preset):
    """Steady-state store bytes per second: runs of S and 2S bytes differenced (S: 2x the caches)."""
    caches = preset.l2_bytes + preset.infinity_cache_bytes
    size = 1 << max(24, (2 * caches - 1).bit_length())
    c1, b1 = store_cycles(preset, size)
    c2, b2 = store_cycles(preset, 2 * size)
    return (b2 - b1) / ((c2 - c1) / preset.clock_hz), size


FMA_LENGTH = 256


def fma_source():
    """FMA_LENGTH v_fma_f32 in FMAC form over accumulators v8..v15 (sources v1..v4): consecutive ones are
    independent, their destinations alternate even and odd and their sources sit in different banks."""
    lines = ["    v_mov_b32 v1, 0x3F800000", "    v_mov_b32 v2, 0x3F800000", "    v_mov_b32 v3, 0x3F800000",
             "    v_mov_b32 v4, 0x3F800000"]
    for i in range(FMA_LENGTH):
        acc = 8 + i % 8
        a, b = (1, 2) if acc % 2 == 0 else (3, 4)
        lines.append(f"    v_fma_f32 v{acc}, v{a}, v{b}, v{acc}")
    return "\n".join(lines + ["    s_endpgm", ""])


def fma_rate(preset):
    gpu = Gpu(preset)
    waves = preset.compute_units * preset.simds_per_cu * preset.waves_per_simd * 8
    per_group = GROUP // preset.wave_width
    groups = -(-waves // per_group)
    launch = KernelLaunch(Program(assemble(fma_source()), "fma"), groups, GROUP, (0, 0), vgprs_used=16,
                          sgprs_used=4)
    stats = gpu.dispatch(launch)
    flops = groups * GROUP * FMA_LENGTH * 2
    return flops / ((stats.cycles - preset.launch_cycles) / preset.clock_hz)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--presets", default="rx7900xtx,rx6800xt,rtx3070,h200")
    parser.add_argument("--fma-only", action="store_true")
    parser.add_argument("--stores-only", action="store_true")
    args = parser.parse_args()
    start = time.perf_counter()
    for key in args.presets.split(","):
        preset = preset_by_key(key)
        if not args.fma_only:
            rate, size = store_rate(preset)
            published = STORE_PUBLISHED.get(key)
            ref = (f"published {published[0] / 1e9:,.0f} GB/s ({published[1]}), ratio {rate / published[0]:.2f}"
                   if published else "published: NOT FOUND")
            print(f"{key:<10} store stream {rate / 1e9:8,.0f} GB/s ({size >> 20} / {2 * size >> 20} MiB; DRAM peak "
                  f"{preset.dram_bytes_per_second / 1e9:,.0f}); {ref}", flush=True)
        if not args.stores_only:
            rate = fma_rate(preset)
            peak = FMA_PEAK.get(key)
            ref = f"vendor {peak / 1e12:.2f} TFLOP/s, ratio {rate / peak:.2f}" if peak else "vendor: NOT FOUND"
            print(f"{key:<10} FP32 FMA {rate / 1e12:6.2f} TFLOP/s; {ref}", flush=True)
    print(f"({time.perf_counter() - start:.1f} s)")


if __name__ == "__main__":
    main()
