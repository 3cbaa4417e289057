"""Adapter presets: the emulated GPUs a program can pick, each one DXGI adapter.

A preset holds what the functional model needs (wave width, memory size, native FP16, 64-bit
support, feature level) and the figures the timing model uses (clock, compute units, SIMDs,
DRAM bandwidth). Public sources are cited beside each real GPU's figures.
"""
from dataclasses import dataclass, field

GiB = 1 << 30


@dataclass(frozen=True)
class AdapterPreset:
    key: str                       # short name used on the command line
    description: str               # DXGI_ADAPTER_DESC1.Description
    vendor_id: int
    device_id: int
    dedicated_video_memory: int    # bytes; the device memory budget
    compute_units: int
    simds_per_cu: int
    wave_width: int                # lanes per wave (32 or 64, narrow for teaching)
    workgroup_size: int            # threads per workgroup the DirectML kernels use
    clock_hz: int                  # shader clock; also the timestamp frequency
    dram_bytes_per_second: int
    dram_latency_cycles: int
    launch_cycles: int             # command processor cost of one dispatch
    native_fp16: bool = True       # honours DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION
    supports_64bit: bool = True    # INT64/UINT64/FLOAT64 tensors (DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT)
    max_feature_level: int = 0x6400
    waves_per_simd: int = 16       # wave slots per SIMD
    vgprs_per_simd_lane: int = 512  # vector register file depth (occupancy limit)
    simd_lanes: int = 32           # lanes a SIMD executes per cycle (wave64 on SIMD32: 2 passes)
    line_bytes: int = 64           # memory request granularity (L2 line sector / DRAM burst)
    max_lines_in_flight_per_cu: int = 64  # outstanding vector memory lines per CU
    l2_bytes_per_cycle: int = 2048  # L2 hit bandwidth, whole GPU
    l2_latency_cycles: int = 300
    scalar_latency_cycles: int = 60  # scalar cache hit (kernel constants, descriptors)
    refresh_interval_cycles: int = 0  # DRAM refresh: every interval the DRAM stalls ...
    refresh_cycles: int = 0           # ... for this many cycles (0: no refresh modelled)
    submit_cycles: int = 2000      # command processor cost of one ExecuteCommandLists
    flush_cycles: int = 2000       # end of a dispatch: wait for idle, write back caches, signal
    workgroup_launch_cycles: int = 1  # the workgroup dispatcher starts one workgroup per this many cycles
    copy_bytes_per_cycle: int = 0  # copy engine limit (0: DRAM bound)
    sources: tuple = field(default_factory=tuple)


TEACHING = AdapterPreset(
    key="teaching",
    description="dmlemu Teaching GPU (2 CUs, wave8)",
    vendor_id=0x1414, device_id=0xD001,
    dedicated_video_memory=1 * GiB,
    compute_units=2, simds_per_cu=1, wave_width=8, workgroup_size=16,
    clock_hz=100_000_000, dram_bytes_per_second=1_600_000_000, dram_latency_cycles=20,
    launch_cycles=50, waves_per_simd=4, vgprs_per_simd_lane=48, simd_lanes=4,
    line_bytes=32, max_lines_in_flight_per_cu=8, l2_bytes_per_cycle=32, l2_latency_cycles=8,
    scalar_latency_cycles=4, submit_cycles=20, flush_cycles=20, workgroup_launch_cycles=2,
    sources=("Invented for teaching: small enough that a whole trace can be read.",),
)

RX_7900_XTX = AdapterPreset(
    key="rx7900xtx",
    description="AMD Radeon RX 7900 XTX (emulated)",
    vendor_id=0x1002, device_id=0x744C,
    dedicated_video_memory=24 * GiB,
    compute_units=96, simds_per_cu=2, wave_width=32, workgroup_size=256,
    clock_hz=2_500_000_000, dram_bytes_per_second=960_000_000_000, dram_latency_cycles=750,
    launch_cycles=5_000, vgprs_per_simd_lane=1536, max_lines_in_flight_per_cu=44,
    l2_bytes_per_cycle=2048, l2_latency_cycles=250, scalar_latency_cycles=50,
    refresh_interval_cycles=9_750, refresh_cycles=300, submit_cycles=12_500, flush_cycles=3_750,
    sources=(
        "AMD product page, Radeon RX 7900 XTX: 96 CUs, 2.5 GHz boost, 24 GB GDDR6, 960 GB/s.",
        "AMD RDNA3 ISA reference guide: 2 SIMD32 per CU, wave32 native, 16 wave slots per SIMD, "
        "1536 VGPRs per lane per SIMD in wave32.",
        "Estimates, not vendor figures: DRAM latency ~300 ns and L2 ~100 ns (order of public pointer-chasing "
        "microbenchmarks), GDDR6 refresh every 3.9 us for ~120 ns, 44 vector memory lines in flight per CU, "
        "~2 us dispatch launch and ~1.5 us end-of-dispatch flush.",
    ),
)

RX_6800_XT = AdapterPreset(
    key="rx6800xt",
    description="AMD Radeon RX 6800 XT (emulated)",
    vendor_id=0x1002, device_id=0x73BF,
    dedicated_video_memory=16 * GiB,
    compute_units=72, simds_per_cu=2, wave_width=32, workgroup_size=256,
    clock_hz=2_250_000_000, dram_bytes_per_second=512_000_000_000, dram_latency_cycles=650,
    launch_cycles=4_500, vgprs_per_simd_lane=1024, max_lines_in_flight_per_cu=30,
    l2_bytes_per_cycle=2048, l2_latency_cycles=220, scalar_latency_cycles=50,
    refresh_interval_cycles=8_775, refresh_cycles=270, submit_cycles=11_250, flush_cycles=3_375,
    sources=(
        "AMD product page, Radeon RX 6800 XT: 72 CUs, 2.25 GHz boost, 16 GB GDDR6, 512 GB/s.",
        "AMD RDNA2 ISA reference guide: 2 SIMD32 per CU, wave32, 16 wave slots per SIMD.",
        "Estimates: DRAM latency ~290 ns, refresh 3.9 us / 120 ns, 30 lines in flight per CU; the 128 MB "
        "Infinity Cache is not modelled (streaming kernels miss it).",
    ),
)

RTX_3070 = AdapterPreset(
    key="rtx3070",
    description="NVIDIA GeForce RTX 3070 (emulated)",
    vendor_id=0x10DE, device_id=0x2484,
    dedicated_video_memory=8 * GiB,
    compute_units=46, simds_per_cu=4, wave_width=32, workgroup_size=256,
    clock_hz=1_725_000_000, dram_bytes_per_second=448_000_000_000, dram_latency_cycles=500,
    launch_cycles=3_500, waves_per_simd=12, vgprs_per_simd_lane=512, max_lines_in_flight_per_cu=41,
    l2_bytes_per_cycle=1536, l2_latency_cycles=200, scalar_latency_cycles=40,
    refresh_interval_cycles=6_727, refresh_cycles=207, submit_cycles=8_625, flush_cycles=2_600,
    sources=(
        "NVIDIA Ampere GA102/GA104 whitepaper: RTX 3070 has 46 SMs, 4 processing blocks each, warp 32.",
        "NVIDIA product page, GeForce RTX 3070: 1.725 GHz boost, 8 GB GDDR6, 448 GB/s.",
        "CUDA occupancy tables for compute capability 8.6: 48 warps and 64K 32-bit registers per SM "
        "(12 warps, 512 registers per lane per processing block).",
        "Estimates: DRAM latency ~290 ns, refresh 3.9 us / 120 ns, 41 lines in flight per SM.",
    ),
)

IRIS_XE = AdapterPreset(
    key="irisxe",
    description="Intel Iris Xe Graphics (emulated)",
    vendor_id=0x8086, device_id=0x9A49,
    dedicated_video_memory=2 * GiB,
    compute_units=96, simds_per_cu=1, wave_width=16, workgroup_size=64,
    clock_hz=1_350_000_000, dram_bytes_per_second=68_000_000_000, dram_latency_cycles=400,
    launch_cycles=8_100, waves_per_simd=7, supports_64bit=False, simd_lanes=8, vgprs_per_simd_lane=1024,
    max_lines_in_flight_per_cu=4, l2_bytes_per_cycle=512, l2_latency_cycles=180, scalar_latency_cycles=40,
    refresh_interval_cycles=5_265, refresh_cycles=243, submit_cycles=6_750, flush_cycles=4_050,
    sources=(
        "Intel Xe-LP (Tiger Lake) graphics: 96 EUs, up to 1.35 GHz, SIMD8 EUs with 7 threads each; "
        "compute kernels run as SIMD16 threads (wave16, 2 passes on a SIMD8 EU).",
        "Estimates: LPDDR4x latency ~300 ns, refresh 3.9 us / 180 ns, 4 lines in flight per EU, ~6 us "
        "dispatch launch and ~3 us flush (an integrated GPU behind a shared-memory driver path).",
        "Shared LPDDR4x-4266, 128-bit: about 68 GB/s.",
        "Xe-LP lacks native 64-bit integer and FP64 arithmetic.",
    ),
)

PRESETS = (RX_7900_XTX, RX_6800_XT, RTX_3070, IRIS_XE, TEACHING)
DEFAULT_PRESET = RX_7900_XTX


def preset_by_key(key):
    for preset in PRESETS:
        if preset.key == key:
            return preset
    raise KeyError(f"no adapter preset named {key!r}; known: {', '.join(p.key for p in PRESETS)}")
