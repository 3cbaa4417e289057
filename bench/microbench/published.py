"""Published measurements the microbenchmarks are compared with: one table, one row per figure.

Each row: the preset, the benchmark and its point (the names bench/microbench/benchmarks.py gives
them), the value and unit, the GPU it was measured on, the source (a result file with its path, an
article's URL, a vendor sheet) and whether that GPU is a sibling of the preset's (the same chip or
family, another board: the bar is then 30 % instead of 25 %). A point with no row prints NOT FOUND:
no figure here is estimated or derived by this project.

Sources:
- te42kyfo/gpu-benches (GitHub) result files, RX 6900 XT (Navi 21, the RX 6800 XT's chip with 80
  instead of 72 CUs, 2.25 vs 2.57 GHz peak clock in the run, the same 512 GB/s GDDR6 and 128 MB
  Infinity Cache): gpu-latency/rx6900xt.txt (columns: steps, clock MHz, set in kB, ns x steps / 1e6,
  cycles per load: the ns per load is the last column over 2.57 GHz), gpu-l2-cache/rx6900xt.txt (whole-GPU
  read bandwidth, 512 kB per block), gpu-stream/RX6900XT.txt ("init" = a store stream, "read" = a read
  stream, by block size N) and gpu-stream/h200.txt. gpu-stream/main.cu (read_kernel): one thread per
  8-byte element of a 1 GiB buffer, each reading its element once (one load in flight per thread), a grid
  of 2^27 / N blocks, at most 2 blocks of N threads resident per SM or CU (measureKernels(kernels,
  blockSize, 2), held there by a shared-memory spoiler); the suite's occupancy benchmark runs that kernel.
- This project's H200 (bench/gpu_calibration/results/h200_microbench.md and .json: measured 2026-11-27
  with bench/gpu_calibration/measure_microbench.py; the same GPU as the h200 preset, so not a sibling).
- Chips and Cheese, "Latency Testing is Hard (RDNA 3 Power Saving)", 2023-06-14: RX 7900 XTX vector
  Infinity Cache latency 150.3 ns in the card's higher power state.
- Vendor figures for FMA peaks, as emulator/presets.py cites them: TechPowerUp GPU Database (RX 7900 XTX
  61.39 TFLOPS FP32 with dual issue, 1.919 FP64; RX 6800 XT 20.74 FP32, 1.296 FP64; RTX 3070 20.31 FP32,
  0.317 FP64), AMD's RX 6800 XT sheet (41.47 TFLOPS FP16), NVIDIA's GA102 whitepaper (RTX 3070 20.3 TFLOPS
  FP16 non-tensor).
- Not a row: AMD's RX 7900 XTX FP16 figure, 122.8 TFLOPS, is a peak, not a measurement: 96 CUs x 512 FLOP
  per clock x 2.5 GHz, the WMMA rate (AMD GPUOpen's WMMA article, as emulator/presets.py cites it), or
  packed FP16 with dual issue counted. The packed FMA v_pk_fma_f16 that the suite's FP16 kernel runs cannot
  dual issue: the RDNA3 ISA guide's VOPD OpX and OpY lists have no packed FP16 operation (isa/opcodes.py),
  so its peak is 61.4 TFLOPS (96 CUs x 2 SIMD32 x 32 lanes x 2 FMAs x 2 FLOP x 2.5 GHz). A measured
  packed-FP16 FMA rate of this card (Chips and Cheese's RDNA3 articles, te42kyfo/gpu-benches, which has no
  RDNA3 result file): NOT FOUND, so the point prints NOT FOUND. It was compared with 122.8 (0.46) before.
"""
from typing import NamedTuple


class Published(NamedTuple):
    preset: str
    benchmark: str        # chase, read, store, fma, occupancy, host
    point: str            # the point's name in benchmarks.py (a set size, a type, waves per SIMD, a copy)
    value: float
    unit: str             # ns, GB/s, TFLOP/s
    gpu: str              # the GPU measured
    source: str
    sibling: bool


RX6900XT = "RX 6900 XT"
TE42 = "te42kyfo/gpu-benches "
OWN_H200 = "bench/gpu_calibration/results/h200_microbench.md"
H200 = "H200"

PUBLISHED = (
    # ---- pointer-chase latency, ns per load -----------------------------------------------------------------
    Published("rx6800xt", "chase", "8 KiB", 28.4, "ns", RX6900XT, TE42 + "gpu-latency/rx6900xt.txt (9 kB)", True),
    Published("rx6800xt", "chase", "64 KiB", 43.6, "ns", RX6900XT, TE42 + "gpu-latency/rx6900xt.txt (62 kB)", True),
    Published("rx6800xt", "chase", "2 MiB", 81.9, "ns", RX6900XT, TE42 + "gpu-latency/rx6900xt.txt (2016 kB)", True),
    Published("rx6800xt", "chase", "32 MiB", 155.9, "ns", RX6900XT, TE42 + "gpu-latency/rx6900xt.txt (32129 kB)",
              True),
    Published("rx6800xt", "chase", "332 MiB", 666.5, "ns", RX6900XT,
              TE42 + "gpu-latency/rx6900xt.txt (340388 kB: 1712.9 cycles at 2.57 GHz)", True),
    Published("rx7900xtx", "chase", "32 MiB", 150.3, "ns", "RX 7900 XTX",
              "chipsandcheese.com/2023/06/14/latency-testing-is-hard-rdna-3-power-saving (vector Infinity Cache)",
              False),
    Published("h200", "chase", "8 KiB", 16.2, "ns", H200, OWN_H200 + " (chase, 8 KiB)", False),
    Published("h200", "chase", "16 MiB", 141.5, "ns", H200, OWN_H200 + " (chase, 16 MiB)", False),
    Published("h200", "chase", "48 MiB", 265.1, "ns", H200, OWN_H200 + " (chase, 48 MiB: the far L2 partition)", False),
    Published("h200", "chase", "256 MiB", 345.0, "ns", H200, OWN_H200 + " (chase, 256 MiB)", False),
    Published("h200", "chase", "1 GiB", 346.2, "ns", H200, OWN_H200 + " (chase, 1 GiB)", False),
    # ---- read bandwidth against the working set, GB/s ------------------------------------------------------
    Published("rx6800xt", "read", "2 MiB", 5163.8, "GB/s", RX6900XT, TE42 + "gpu-l2-cache/rx6900xt.txt (2048 kB)",
              True),
    Published("rx6800xt", "read", "16 MiB", 1998.7, "GB/s", RX6900XT,
              TE42 + "gpu-l2-cache/rx6900xt.txt (16896 kB)", True),
    Published("rx6800xt", "read", "64 MiB", 1931.9, "GB/s", RX6900XT,
              TE42 + "gpu-l2-cache/rx6900xt.txt (63488 kB)", True),
    Published("rx6800xt", "read", "256 MiB", 501.5, "GB/s", RX6900XT,
              TE42 + "gpu-l2-cache/rx6900xt.txt (256000 kB)", True),
    Published("rx6800xt", "read", "1 GiB", 475.8, "GB/s", RX6900XT,
              TE42 + "gpu-l2-cache/rx6900xt.txt (1064448 kB)", True),
    Published("h200", "read", "256 KiB", 30576, "GB/s", H200, OWN_H200 + " (readbw, independent walks)", False),
    Published("h200", "read", "2 MiB", 13604, "GB/s", H200, OWN_H200 + " (readbw, independent walks)", False),
    Published("h200", "read", "16 MiB", 9336, "GB/s", H200, OWN_H200 + " (readbw, independent walks)", False),
    Published("h200", "read", "48 MiB", 9042, "GB/s", H200, OWN_H200 + " (readbw, independent walks: the far L2 "
              "partition)", False),
    Published("h200", "read", "64 MiB", 7672, "GB/s", H200, OWN_H200 + " (readbw, independent walks)", False),
    Published("h200", "read", "256 MiB", 5379, "GB/s", H200, OWN_H200 + " (readbw, independent walks)", False),
    Published("h200", "read", "1 GiB", 4874, "GB/s", H200, OWN_H200 + " (readbw, independent walks)", False),
    # ---- store stream, GB/s ----------------------------------------------------------------------------------
    Published("rx6800xt", "store", "stream", 499, "GB/s", RX6900XT,
              TE42 + "gpu-stream/RX6900XT.txt ('init', block size 1024)", True),
    Published("h200", "store", "stream", 4300, "GB/s", H200, OWN_H200 + " (store stream, 2 GiB)", False),
    # ---- FMA throughput, TFLOP/s -----------------------------------------------------------------------------
    Published("rx7900xtx", "fma", "FP32", 61.39, "TFLOP/s", "RX 7900 XTX",
              "TechPowerUp GPU Database (dual issue counted), as in emulator/presets.py", False),
    Published("rx7900xtx", "fma", "FP64", 1.919, "TFLOP/s", "RX 7900 XTX",
              "TechPowerUp GPU Database, as in emulator/presets.py", False),
    # rx7900xtx FP16: NOT FOUND (a measured packed-FP16 FMA rate; AMD's 122.8 TFLOPS is a peak: see the banner).
    Published("rx6800xt", "fma", "FP32", 20.74, "TFLOP/s", "RX 6800 XT",
              "TechPowerUp GPU Database, as in emulator/presets.py", False),
    Published("rx6800xt", "fma", "FP64", 1.296, "TFLOP/s", "RX 6800 XT",
              "TechPowerUp GPU Database, as in emulator/presets.py", False),
    Published("rx6800xt", "fma", "FP16", 41.47, "TFLOP/s", "RX 6800 XT",
              "AMD RX 6800 XT specifications (packed FP16)", False),
    Published("rtx3070", "fma", "FP32", 20.31, "TFLOP/s", "RTX 3070",
              "TechPowerUp GPU Database, as in emulator/presets.py", False),
    Published("rtx3070", "fma", "FP64", 0.317, "TFLOP/s", "RTX 3070",
              "TechPowerUp GPU Database, as in emulator/presets.py", False),
    Published("rtx3070", "fma", "FP16", 20.3, "TFLOP/s", "RTX 3070",
              "NVIDIA Ampere GA102 whitepaper (FP16 non-tensor)", False),
    Published("h200", "fma", "FP32", 65.1, "TFLOP/s", H200, OWN_H200 + " (FFMA)", False),
    Published("h200", "fma", "FP64", 33.2, "TFLOP/s", H200, OWN_H200 + " (DFMA)", False),
    Published("h200", "fma", "FP16", 131.5, "TFLOP/s", H200, OWN_H200 + " (HFMA2, packed half2)", False),
    # ---- occupancy sweep: gpu-stream's read kernel against its block size, GB/s ------------------------------
    Published("rx6800xt", "occupancy", "block 128", 398, "GB/s", RX6900XT,
              TE42 + "gpu-stream/RX6900XT.txt ('read', block size 128)", True),
    Published("rx6800xt", "occupancy", "block 256", 505, "GB/s", RX6900XT,
              TE42 + "gpu-stream/RX6900XT.txt ('read', block size 256)", True),
    Published("rx6800xt", "occupancy", "block 512", 503, "GB/s", RX6900XT,
              TE42 + "gpu-stream/RX6900XT.txt ('read', block size 512)", True),
    Published("rx6800xt", "occupancy", "block 1024", 502, "GB/s", RX6900XT,
              TE42 + "gpu-stream/RX6900XT.txt ('read', block size 1024)", True),
    Published("h200", "occupancy", "block 128", 485, "GB/s", H200, TE42 + "gpu-stream/h200.txt ('read', block size 128)",
              False),
    Published("h200", "occupancy", "block 256", 935, "GB/s", H200, TE42 + "gpu-stream/h200.txt ('read', block size 256)",
              False),
    Published("h200", "occupancy", "block 512", 1707, "GB/s", H200,
              TE42 + "gpu-stream/h200.txt ('read', block size 512)", False),
    Published("h200", "occupancy", "block 1024", 2756, "GB/s", H200,
              TE42 + "gpu-stream/h200.txt ('read', block size 1024)", False),
    # ---- host copies and a kernel reading an UPLOAD buffer, GB/s --------------------------------------------------
    Published("h200", "host", "UPLOAD -> DEFAULT", 55.1, "GB/s", H200, OWN_H200 + " (pinned H2D, 256 MiB)", False),
    Published("h200", "host", "DEFAULT -> READBACK", 55.2, "GB/s", H200, OWN_H200 + " (pinned D2H, 256 MiB)", False),
    Published("h200", "host", "kernel reads UPLOAD", 51.2, "GB/s", H200,
              OWN_H200 + " (zero-copy kernel read of mapped pinned memory)", False),
)


def lookup(preset, benchmark, point):
    """The Published row of that point, or None (NOT FOUND)."""
    for row in PUBLISHED:
        if (row.preset, row.benchmark, row.point) == (preset, benchmark, point):
            return row
    return None


def bar(row):
    """The relative error allowed: 25 %, 30 % against a sibling."""
    return 0.30 if row.sibling else 0.25
