"""Adapter presets: the emulated GPUs a program can pick, each one DXGI adapter.

A preset holds what the functional model needs (wave width, memory size, native FP16, 64-bit
support, feature level) and the figures the timing model uses (clock, compute units, SIMDs,
DRAM bandwidth). Public sources are cited beside each real GPU's figures.
"""
import dataclasses
from dataclasses import dataclass, field

from dmlemu.errors import short_repr

GiB = 1 << 30


def pcie_raw_bytes_per_second(generation, lanes):
    """A PCIe link's raw data rate per direction in bytes per second: the generation's transfer rate
    (PCI-SIG base specifications: 3.0 8 GT/s, 4.0 16 GT/s, 5.0 32 GT/s per lane) x lanes x the
    128b/130b encoding, / 8 bits (4.0 x16: 31.5 GB/s)."""
    transfers_per_second = {3: 8_000_000_000, 4: 16_000_000_000, 5: 32_000_000_000}[generation]
    return transfers_per_second * lanes * 128 // 130 // 8


PCIE4_X16_SOURCE = (
    "Host link: PCIe 4.0 x16 (the card's interface: vendor product page), 16 GT/s x 16 lanes with 128b/130b "
    "encoding = 31.5 GB/s per direction raw (PCI-SIG PCI Express Base Specification 4.0). Efficiency 830 per "
    "mille: measured copy-engine transfers over PCIe 4.0 x16 reach 23.9-26.4 GB/s host-to-device and "
    "26.3-27.1 GB/s device-to-host (NVIDIA nvbandwidth, host_to_device_memcpy_ce / device_to_host_memcpy_ce "
    "on eight RTX 4090s, github.com/NVIDIA/nvbandwidth issue #15, 2024): 26.2 GB/s = 83 % of raw, a sibling "
    "measurement (another GPU on the same link; no measurement of this card found). Latency 1 us for a read "
    "of host memory: an estimate (the order of PCIe DMA read round trips measured with pcie-bench, "
    "Neugebauer et al., 'Understanding PCIe performance for end host networking', SIGCOMM 2018, plus the "
    "GPU's own path); a measured GPU figure: NOT FOUND.")


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
    uma: bool = False              # integrated GPU: one memory with the CPU (D3D12_FEATURE_DATA_ARCHITECTURE.UMA)
    software: bool = False         # a software adapter (WARP): DXGI_ADAPTER_FLAG_SOFTWARE in its DXGI_ADAPTER_DESC1
    waves_per_simd: int = 16       # wave slots per SIMD
    vgprs_per_simd_lane: int = 512  # vector register file depth (occupancy limit)
    simd_lanes: int = 32           # lanes a SIMD executes per cycle (wave64 on SIMD32: 2 passes)
    # Issue cycles per wave pass of each VALU rate class of the ISA table that is slower than one
    # (("fp64", 16), ...); classes left out issue at the table's figure. See isa/opcodes.py.
    valu_rate_cycles: tuple = ()
    # RDNA3 dual issue of FP32 (VOPD): two independent VALU instructions that meet VOPD's pairing rule
    # issue as one (timing/kernel_path.py); wave64 issues both halves of such an instruction at once.
    valu_dual_issue: bool = False
    # Matrix units (RDNA3 WMMA, NVIDIA tensor cores): dense FLOAT16 FLOP (FP32 accumulate) per cycle per compute
    # unit of the wave matrix instructions; 0: none (the FLOAT16 GEMM uses the VALU kernel). It sets the issue
    # cycles of the ISA table's "matrix" rate class: 16 x 16 x 16 x 2 FLOP per instruction on one SIMD.
    matrix_fp16_flops_per_cycle_per_cu: int = 0
    # The memory hierarchy (timing/caches.py). A wave memory instruction's coalescer turns its lanes'
    # addresses into distinct sectors; each distinct line costs the CU's cache front end one tag
    # lookup; sectors are what moves between the caches and DRAM.
    line_bytes: int = 128          # cache line: the tag a lookup compares
    sector_bytes: int = 64         # transfer granularity: what a request moves (<= line_bytes)
    lookups_per_cycle_per_cu: int = 1  # tag lookups the CU's vector cache front end does per cycle
    max_lines_in_flight_per_cu: int = 64  # outstanding vector memory sectors per CU (miss queue)
    l2_bytes: int = 4 << 20        # L2 capacity, whole GPU
    l2_ways: int = 16
    l2_bytes_per_cycle: int = 2048  # L2 bandwidth, whole GPU
    l2_latency_cycles: int = 300
    infinity_cache_bytes: int = 0  # memory-side last-level cache (AMD Infinity Cache); 0: none
    infinity_cache_ways: int = 16
    infinity_cache_bytes_per_second: int = 0
    infinity_cache_latency_cycles: int = 0
    # The CUs' own vector cache (timing/caches.py): RDNA's L0, NVIDIA's L1 (the L1TEX data cache as
    # configured for compute), Xe-LP's subslice L1. l0_bytes per cache (0: none), shared by
    # l0_cus_per_cache compute units; l0_latency_cycles from the tag lookup to the data of a hit (no
    # L2 trip); l0_write_allocate: a store that misses allocates the sector (NVIDIA's lazy
    # fetch-on-read) or not (write-through, no-allocate). Invalidated at every dispatch's end.
    l0_bytes: int = 0
    l0_cus_per_cache: int = 1
    l0_latency_cycles: int = 0
    l0_write_allocate: bool = False
    # The shader array's L1 (RDNA's GL1: timing/cu_caches.py): l1_bytes per cache (0: none), shared by
    # l1_cus_per_cache compute units (a multiple of l0_cus_per_cache), read-only (stores pass it to the L2);
    # l1_latency_cycles from the tag lookup to the data of a hit. And the CU-side caches' data path:
    # l0_bytes_per_cycle, the bytes per cycle one L0 returns to its CUs (0: no bound beyond the tag lookups).
    # Both invalidated at every dispatch's end, as the L0.
    l1_bytes: int = 0
    l1_cus_per_cache: int = 1
    l1_latency_cycles: int = 0
    l0_bytes_per_cycle: int = 0
    # GH100's two L2 partitions (timing/caches.py): the near partition keeps a copy of the most recently
    # used half of the L2's capacity; an L2 hit it does not hold comes from the far partition and takes
    # l2_far_latency_cycles instead of l2_latency_cycles. 0: one L2.
    l2_far_latency_cycles: int = 0
    # Address translation (timing/caches.py): pages of tlb_page_bytes (0: no TLB modelled); a TLB per
    # CU of tlb_l1_entries and one shared TLB of tlb_l2_entries (their reach: entries x page); a
    # request with an L1 TLB miss waits tlb_l1_miss_cycles more (the shared TLB's hit), one that also
    # misses the shared TLB tlb_walk_cycles more (the page walk).
    tlb_page_bytes: int = 0
    tlb_l1_entries: int = 0
    tlb_l2_entries: int = 0
    tlb_l1_miss_cycles: int = 0
    tlb_walk_cycles: int = 0
    smem_latency_percent: int = 60  # scalar cache hit: the ISA table's SMEM latency scaled by this (%)
    refresh_interval_cycles: int = 0  # DRAM refresh: every interval the DRAM stalls ...
    refresh_cycles: int = 0           # ... for this many cycles (0: no refresh modelled)
    # DRAM read/write turnaround (timing/memory_system.py): the memory controllers hold writes in
    # their write queues and drain them in batches of dram_write_batch_bytes (all channels together);
    # a drain that follows reads leaves the data bus idle for dram_turnaround_cycles (read-to-write
    # plus write-to-read). 0: no turnaround modelled.
    dram_write_batch_bytes: int = 0
    dram_turnaround_cycles: int = 0
    # Write back-pressure (timing/memory_system.py): the write queues hold this many bytes of L2
    # write-backs (all channels together); a write-back that finds them full waits for room. 0: no bound.
    dram_write_queue_bytes: int = 0
    # DRAM banks and row buffers (timing/dram_rows.py, memory_system.py): channels, banks per channel, the
    # row (page) a bank keeps open, the bytes of one channel interleave unit; and the DRAM's timings in
    # picoseconds: activate to read (tRCD), precharge (tRP), activate to activate in one bank (tRC), in one
    # channel (tRRD), four activations per channel (tFAW; 0: no such limit). A row miss waits tRP + tRCD more
    # than a hit (dram_latency_cycles is a row miss's: what a pointer chase measures) and takes an activation
    # slot; activations are served at min(channels / tRRD, 4 x channels / tFAW, channels x banks / tRC) per
    # second. dram_channels 0: no banks modelled (every request pays dram_latency_cycles, no activation limit).
    dram_channels: int = 0
    dram_banks_per_channel: int = 16
    dram_row_bytes: int = 2048
    dram_interleave_bytes: int = 256
    dram_trcd_ps: int = 0
    dram_trp_ps: int = 0
    dram_trc_ps: int = 0
    dram_trrd_ps: int = 0
    dram_tfaw_ps: int = 0
    submit_cycles: int = 2000      # command processor cost of one ExecuteCommandLists
    flush_cycles: int = 2000       # end of a dispatch: wait for idle, invalidate CU caches, signal
    workgroup_launch_cycles: int = 1  # the workgroup dispatcher starts one workgroup per this many cycles
    workgroup_launchers: int = 1   # ... on each of this many launchers working in parallel (shader engines / GPCs)
    # A workgroup's start and end on its CU (wave creation, slot release) hold its wave slots this many cycles
    # beyond its waves' instructions (timing/workgroup_dispatcher.py). 0: not modelled.
    workgroup_slot_cycles: int = 0
    # The memory side's idle state (RDNA's Infinity Fabric clocks down when few requests are outstanding:
    # presets.py's RDNA2 source): a dispatch of fewer waves than dram_channels (a lone pointer chase) runs with
    # the memory side idle and its DRAM reads take dram_lone_latency_cycles (a row miss's, as
    # dram_latency_cycles, which is then the latency of a memory side kept busy). 0: one state.
    dram_lone_latency_cycles: int = 0
    copy_bytes_per_cycle: int = 0  # copy engine limit (0: DRAM bound)
    # Workgroups that cooperate (timing/compute_unit.py's LDS pipe, timing/simd.py's barriers): the LDS
    # of one compute unit (on RDNA: one CU's half of its WGP's LDS, the CU mode), the most one workgroup
    # may declare, its banks (dword d is in bank d mod lds_banks: DispatchRecord.lds), the bytes its
    # banks move per cycle (a bank-conflict pass moves lds_banks dwords) and the latency of a read's
    # data; an s_barrier's cycles once the workgroup's last wave has arrived; and the L2's atomic
    # units: read-modify-write operations per cycle, whole GPU (one per sector an atomic touches, and
    # one more per extra lane on one dword: same-address lanes serialise), one unit per L2 slice.
    lds_bytes_per_cu: int = 65536
    lds_max_bytes_per_workgroup: int = 65536
    lds_banks: int = 32
    lds_bytes_per_cycle: int = 128
    lds_latency_cycles: int = 32
    barrier_cycles: int = 16
    l2_atomics_per_cycle: int = 16
    # The host link (timing/memory_system.py's HostLink): on a discrete GPU (uma False) UPLOAD and
    # READBACK heaps (and CUSTOM heaps in MEMORY_POOL_L0) are host memory behind PCIe. The link's raw rate
    # per direction (the PCIe generation's transfer rate x lanes x 128b/130b encoding: pcie_raw_bytes_per_second),
    # the fraction of it that measured transfers reach (efficiency, in per mille: protocol overheads,
    # read requests, flow control) and the round trip of a read of host memory. 0 bytes per second: no link
    # (UMA: host heaps are the device's own memory).
    host_link_bytes_per_second: int = 0
    host_link_efficiency_permille: int = 1000
    host_link_latency_cycles: int = 0
    sources: tuple = field(default_factory=tuple)

    def host_link_effective_bytes_per_second(self):
        """The host link's modelled rate per direction: raw x efficiency, in whole MB/s (0: no link). The
        rounding (under 1e-4 of the rate) keeps the link's byte-time rates small: a rate that shares
        only a factor of 2 with the clock would count ~10^10 units a cycle and leave the compiled
        build's 64-bit range (timing/physics.py)."""
        return self.host_link_bytes_per_second * self.host_link_efficiency_permille // 1000 // 10**6 * 10**6

    def dram_activations_per_second(self):
        """Row activations the whole DRAM serves per second (0: no banks modelled), in whole thousands per
        second (the rounding keeps the activation server's byte-time rates small: timing/physics.py)."""
        if not self.dram_channels:
            return 0
        spacing_ps = max(self.dram_trrd_ps, -(-self.dram_tfaw_ps // 4),
                         -(-self.dram_trc_ps // max(1, self.dram_banks_per_channel)), 1)
        return self.dram_channels * 10**12 // spacing_ps // 1000 * 1000

    def dram_row_miss_cycles(self):
        """Core cycles a row miss waits beyond a row hit: precharge and activate (tRP + tRCD), rounded up."""
        if not self.dram_channels:
            return 0
        return -(-(self.dram_trp_ps + self.dram_trcd_ps) * self.clock_hz // 10**12)

    def rate_cycles(self):
        """{rate class: issue cycles per wave pass} of the classes this preset slows down (with matrix units: the
        "matrix" class, one 16 x 16 x 16 product's 8192 FLOP at the CU's rate shared by its SIMDs)."""
        rates = dict(self.valu_rate_cycles)
        if self.matrix_fp16_flops_per_cycle_per_cu:
            rates["matrix"] = max(1, 2 * 16 ** 3 * self.simds_per_cu // self.matrix_fp16_flops_per_cycle_per_cu)
        return rates


TEACHING = AdapterPreset(
    key="teaching",
    description="dmlemu Teaching GPU (2 CUs, wave8)",
    vendor_id=0x1414, device_id=0xD001,
    dedicated_video_memory=1 * GiB,
    compute_units=2, simds_per_cu=1, wave_width=8, workgroup_size=16,
    clock_hz=100_000_000, dram_bytes_per_second=1_600_000_000, dram_latency_cycles=20,
    launch_cycles=50, waves_per_simd=4, vgprs_per_simd_lane=48, simd_lanes=4,
    line_bytes=32, sector_bytes=32, max_lines_in_flight_per_cu=8, l2_bytes=4096, l2_ways=4,
    l2_bytes_per_cycle=32, l2_latency_cycles=8, dram_write_queue_bytes=256,
    smem_latency_percent=4, submit_cycles=20, flush_cycles=20, workgroup_launch_cycles=2,
    lds_bytes_per_cu=16384, lds_max_bytes_per_workgroup=16384, lds_banks=8, lds_bytes_per_cycle=32,
    lds_latency_cycles=4, barrier_cycles=2, l2_atomics_per_cycle=1,
    sources=("Invented for teaching: small enough that a whole trace can be read (LDS: 16 KiB per CU, enough for "
             "a padded 32 x 33 FLOAT32 transpose tile; one bank per lane of a wave, 8, so that a wave's consecutive "
             "dwords take one pass and stride 2 two, as a 32-bank LDS does for wave32; 4 cycles of latency, a "
             "2-cycle barrier, one L2 atomic per cycle, a DRAM write queue of 8 sectors).",),
)

# The GDDR6 presets' read/write turnaround and write batches (one source for three presets).
GDDR6_TURNAROUND = (
    "GDDR6 read/write turnaround, from GPGPU-Sim's DRAM model (gpu-sim.cc: tRTW = CL + BL/ratio + 2 - WL, "
    "tWTR = WL + BL/ratio + CDLR, in command clocks) with the GDDR6 timings of Accel-Sim's SM86_RTX3070 "
    "config (CL=24, WL=8, CDLR=10, BL=16, command clock 3.5 GHz, data:command ratio 4): a burst holds the "
    "bus 4 command clocks, so a read-write-read round trip idles it (22-4)+(22-4) = 36 clocks = 10.3 ns. "
    "Write batches: GPGPU-Sim's separate DRAM write queue as Accel-Sim configures it (64:56:32, drained "
    "from the high to the low watermark: 24 bursts of 32 bytes = 768 bytes per 16-bit GDDR6 channel). "
    "Write queue (back-pressure): the same setting's 64 entries of one 32-byte burst = 2,048 bytes per channel. "
    "Estimates: that these simulator settings hold for this GPU's controllers; timings constant in ns.")


# DRAM banks and row buffers of the GDDR6 presets (one source for three presets: timing/dram_rows.py).
GDDR6_BANKS = dict(dram_banks_per_channel=16, dram_row_bytes=2048, dram_interleave_bytes=256,
                   dram_trcd_ps=6857, dram_trp_ps=6857, dram_trc_ps=22286, dram_trrd_ps=3429, dram_tfaw_ps=0)
GDDR6_BANKS_SOURCE = (
    "GDDR6 banks and row buffers: Accel-Sim's SM86_RTX3070 gpgpusim.config (accel-sim/gpgpu-sim_distribution, "
    "configs/tested-cfgs/SM86_RTX3070): -gpgpu_dram_timing_opt nbk=16:RRD=12:RCD=24:RAS=55:RP=24:RC=78 in "
    "command clocks of 3.5 GHz (tRRD 3.43 ns, tRCD 6.86 ns, tRP 6.86 ns, tRC 22.3 ns), 16 banks per 16-bit "
    "channel (-gpgpu_n_mem 16, -gpgpu_dram_buswidth 2 on a 256-bit bus), -gpgpu_mem_addr_mapping "
    "dramid@8;...RRRR.RBBBCCCC.BCCSSSSS (256-byte channel interleave, 11 column bits: 2 KiB rows, 4 bank bits). "
    "The config gives no tFAW (GPGPU-Sim models none): 0. Estimates: that these timings (constant in ns) hold for "
    "this card's GDDR6, and the simplified mapping of timing/dram_rows.py (hashed channel, bank above the "
    "column bits).")

# The LDS, barrier and L2 atomic figures of the two RDNA presets (RDNA2 and RDNA3 share the LDS design).
RDNA_LDS = dict(lds_bytes_per_cu=65536, lds_max_bytes_per_workgroup=65536, lds_banks=32, lds_bytes_per_cycle=128,
                lds_latency_cycles=32, barrier_cycles=16, l2_atomics_per_cycle=16)
RDNA_LDS_SOURCE = (
    "LDS: AMD 'RDNA Architecture' whitepaper (2019) and the RDNA2/RDNA3 ISA reference guides: 128 KB of LDS "
    "per WGP (two CUs), a workgroup allocates up to 64 KB; in CU mode each CU uses its own 64 KB half, built "
    "of 32 banks of dwords (64 per WGP) that serve 128 bytes per clock. The model's compute unit is a CU in "
    "CU mode (lds_bytes_per_cu = 64 KiB, 32 banks, 128 bytes per cycle). Estimates, not vendor figures: LDS "
    "load-to-use latency 32 cycles (about 13 ns at 2.5 GHz, the order of tens of cycles that Chips and Cheese's "
    "RDNA 2/3 microbenchmark articles report; the exact figure was not in the excerpts available to this "
    "preset's author), an s_barrier 16 cycles after the last wave arrives, and one L2 atomic per L2 channel per "
    "clock: 16 channels (l2_bytes_per_cycle 2048 / 128-byte lines; the RDNA whitepaper gives each L2 channel "
    "128 bytes per clock).")


# Address translation on the RDNA presets (one source for both; the walk's time is per preset, in ns).
RDNA_TLB = dict(tlb_page_bytes=2 << 20, tlb_l1_entries=32, tlb_l2_entries=128, tlb_l1_miss_cycles=40)
TE42_RX6900XT = ("te42kyfo/gpu-benches, gpu-latency/rx6900xt.txt: a one-wave random pointer chase (64-byte stride) "
                 "on an RX 6900 XT (Navi 21, as the RX 6800 XT) at 2.57 GHz, cycles per load by working set")
RDNA_CU_CACHES_SOURCE = (
    "CU caches (timing/caches.py): the vector L0, 16 KB per CU on RDNA2 (AMD 'RDNA Architecture' whitepaper: "
    "16 KB L0 per CU, 128-byte lines; RDNA3 doubles it to 32 KB: AMD RDNA3 launch material), written through "
    "without allocating on a store (an estimate: AMD documents the L0 as a write-through cache; no allocate "
    "policy found). Hit latency: " + TE42_RX6900XT + ": 73.1 cycles up to 15 kB, which the model's one-wave chase "
    "meets with 46 cycles after the 24-cycle VMEM pipeline and the tag lookup (l0_latency_cycles 46; RDNA3 the "
    "same cycles, an estimate: no RDNA3 figure found). L2 hit: the same file's 200-215 cycles from 300 kB to "
    "3.9 MB: 183 cycles after the pipeline on the RX 6800 XT (RX 7900 XTX: its estimate kept). The L1 per shader "
    "array (timing/cu_caches.py; AMD 'RDNA Architecture' whitepaper: a 128 KB graphics L1 shared by the CUs of "
    "a shader array, read-only, between the L0s and the L2; RDNA3 doubles it to 256 KB: AMD RDNA3 launch "
    "material, 'L1 cache 256 KB per shader array'): Navi 21 has 4 shader engines of 2 arrays, 8 arrays, so the "
    "RX 6800 XT's 72 CUs are 9 per array (l1_cus_per_cache 9); Navi 31 has 6 engines of 2 arrays, 12 for 96 CUs "
    "(8 per array). Its hit latency: the same file's plateau of 108-112 cycles from 44 to 118 kB (43.6 ns at "
    "62 kB) less the 27 cycles of pipeline and lookup: l1_latency_cycles 83 (RDNA3: the same cycles, an "
    "estimate). The L0s' data path: 128 bytes per clock per CU (AMD RDNA whitepaper: the L0 returns 128 bytes, "
    "one line, per clock), l0_bytes_per_cycle. "
    "Address translation: 2 MiB pages (an estimate: amdgpu maps VRAM in 2 MiB fragments where it can), an L1 "
    "TLB of 32 entries per CU (64 MiB reach; estimate: the same file's Infinity Cache plateau is flat to 62 MB) "
    "and a shared TLB of 128 entries (256 MiB reach), 40 cycles for an L1 TLB miss (estimate: the file's 125 MB "
    "point, 426 cycles against the 400-cycle plateau) and a walk of 230 ns (518 cycles at 2.25 GHz, 575 at "
    "2.5 GHz): the file's growth beyond the Infinity Cache, 1471 cycles at 206 MB to 1958 at 1.5 GB (572 -> 762 "
    "ns), is what a walk of ~230 ns on the share of pages beyond 256 MiB of reach gives (derived from that one "
    "curve: the split between DRAM latency and walk is an estimate).")

RX_7900_XTX = AdapterPreset(
    key="rx7900xtx",
    description="AMD Radeon RX 7900 XTX (emulated)",
    vendor_id=0x1002, device_id=0x744C,
    dedicated_video_memory=24 * GiB,
    compute_units=96, simds_per_cu=2, wave_width=32, workgroup_size=256,
    clock_hz=2_500_000_000, dram_bytes_per_second=960_000_000_000, dram_latency_cycles=750,
    launch_cycles=5_000, vgprs_per_simd_lane=1536, max_lines_in_flight_per_cu=512,
    l2_bytes=6 << 20, l2_bytes_per_cycle=2048, l2_latency_cycles=250, smem_latency_percent=50,
    infinity_cache_bytes=96 << 20, infinity_cache_bytes_per_second=5_300_000_000_000,
    infinity_cache_latency_cycles=376,
    l0_bytes=32 << 10, l0_latency_cycles=46, **RDNA_TLB, tlb_walk_cycles=575,
    l1_bytes=256 << 10, l1_cus_per_cache=8, l1_latency_cycles=83, l0_bytes_per_cycle=128,
    refresh_interval_cycles=9_750, refresh_cycles=300, submit_cycles=12_500, flush_cycles=3_750,
    dram_write_batch_bytes=24 * 768, dram_turnaround_cycles=26, dram_write_queue_bytes=24 * 2048,
    dram_channels=24, **GDDR6_BANKS,
    **RDNA_LDS,
    # transcendental: AMD "RDNA Architecture" whitepaper (2019), Vector ALUs: transcendental instructions (exp,
    # log, rcp, rsq, sqrt, sin, cos) run on a separate quarter-rate unit beside each SIMD32: 4 cycles per pass.
    valu_rate_cycles=(("fp64", 16), ("int32_mul", 4), ("int64", 2), ("transcendental", 4)),
    valu_dual_issue=True,
    # WMMA: AMD GPUOpen, "How to accelerate AI applications on RDNA 3 using WMMA" (2023): 512 FP16 FLOP per clock
    # per CU on the RX 7900 XTX; "a single WMMA instruction coordinates 32 clocks". 96 x 512 x 2.5 GHz = 122.9 TFLOPS.
    matrix_fp16_flops_per_cycle_per_cu=512,
    host_link_bytes_per_second=pcie_raw_bytes_per_second(4, 16), host_link_efficiency_permille=830,
    host_link_latency_cycles=2500,
    sources=(
        PCIE4_X16_SOURCE,
        RDNA_LDS_SOURCE,
        RDNA_CU_CACHES_SOURCE,
        "AMD product page, Radeon RX 7900 XTX: 96 CUs, 2.5 GHz boost, 24 GB GDDR6, 960 GB/s.",
        "Matrix units (WMMA): AMD GPUOpen, 'How to accelerate AI applications on RDNA 3 using WMMA' (Vasishta, "
        "2023): the RX 7900 XTX does 512 FP16 FLOP per clock per CU with WMMA ('a single WMMA instruction coordinates "
        "32 clocks'); 96 CUs x 512 x 2.5 GHz = 122.9 TFLOPS, AMD's 122.8 TFLOPS FP16 spec-sheet figure: "
        "matrix_fp16_flops_per_cycle_per_cu = 512, 32 cycles per v_wmma_f32_16x16x16_f16 per SIMD32.",
        "AMD RDNA3 ISA reference guide: 2 SIMD32 per CU, wave32 native, 16 wave slots per SIMD, "
        "1536 VGPRs per lane per SIMD in wave32.",
        "DRAM latency: a published DRAM pointer chase of this card: NOT FOUND; kept at the estimate of ~300 ns "
        "(750 cycles). The RDNA2 sibling's measured round trip (" + TE42_RX6900XT + ": 572.4 ns at its 206,295 kB "
        "set, the RX 6800 XT preset's source) would give 1364 cycles here, but it is another die (Navi 31's "
        "memory controllers sit on separate MCDs) and with it this preset's FLOAT16 copy (one 64-byte sector "
        "per wave load) falls latency bound at 0.70x the FLOAT32 copy, outside the 0.4-0.65x real GPUs show "
        "(docs/FIDELITY.md): not adopted without a measurement of this card. "
        "Estimates, not vendor figures: L2 ~100 ns (order of public pointer-chasing "
        "microbenchmarks), GDDR6 refresh every 3.9 us "
        "for ~120 ns, ~2 us dispatch launch and ~1.5 us end-of-dispatch flush.",
        "Miss queue: 512 sectors of 64 bytes in flight per CU = 32 KiB, the CU's L0 vector cache (RDNA3: 32 KB "
        "per CU, twice RDNA2's 16 KB; AMD RDNA3 launch material, Chips and Cheese 'Microbenchmarking AMD's RDNA 3 "
        "Graphics Architecture', 2023): a miss reserves the L0 line its data returns into, so the L0's lines "
        "bound the misses outstanding. A published count of RDNA L0 miss slots: NOT FOUND; this bound is an "
        "estimate, not fitted to a measured rate.",
        "384-bit GDDR6 = 24 16-bit channels. " + GDDR6_BANKS_SOURCE,
        "AMD product page and RDNA3 launch material: 6 MB L2, 96 MB second-generation Infinity Cache, "
        "'up to 5.3 TB/s' Infinity Cache peak bandwidth. AMD RDNA whitepaper: 128-byte cache lines in the "
        "L0, L1 and L2, the L0 returns 128 bytes (one line) per clock, 16-way L2.",
        "Chips and Cheese, 'Latency Testing is Hard (RDNA 3 Power Saving)' (2023-06-14): RX 7900 XTX vector "
        "Infinity Cache latency 150.3 ns with the card in its higher power state (376 cycles at 2.5 GHz).",
        "Estimates: 64-byte request sectors, 16-way Infinity Cache.",
        "TechPowerUp GPU Database, RX 7900 XTX: FP32 61.39 TFLOPS counting RDNA3 dual issue, FP64 1.919 TFLOPS "
        "(1:32): FP64 issues at 1/16 of single-issue FP32, 16 cycles per wave32. The 61.39 TFLOPS = 96 CUs x 2 SIMD32 "
        "x 32 lanes x 2 (dual issue) x 2 flops x 2.5 GHz: dual issue as VOPD pairs (AMD RDNA3 ISA reference guide, "
        "VOPD; Chips and Cheese, 'Microbenchmarking AMD's RDNA 3 Graphics Architecture', 2023: wave32 code "
        "reaches it only where the compiler forms VOPD pairs), valu_dual_issue.",
        "Estimates: 32-bit integer multiply at quarter rate (4 cycles, as on GCN/RDNA), 64-bit integer "
        "compares and min/max as two 32-bit instructions (2 cycles), conversions at full rate.",
        "384-bit GDDR6 = 24 16-bit channels; 10.3 ns of turnaround = 26 cycles at 2.5 GHz. " + GDDR6_TURNAROUND,
    ),
)

RX_6800_XT = AdapterPreset(
    key="rx6800xt",
    description="AMD Radeon RX 6800 XT (emulated)",
    vendor_id=0x1002, device_id=0x73BF,
    dedicated_video_memory=16 * GiB,
    compute_units=72, simds_per_cu=2, wave_width=32, workgroup_size=256,
    clock_hz=2_250_000_000, dram_bytes_per_second=512_000_000_000, dram_latency_cycles=442,
    dram_lone_latency_cycles=1221, workgroup_slot_cycles=481,
    launch_cycles=4_500, vgprs_per_simd_lane=1024, max_lines_in_flight_per_cu=256,
    l2_bytes=4 << 20, l2_bytes_per_cycle=2048, l2_latency_cycles=183, smem_latency_percent=50,
    infinity_cache_bytes=128 << 20, infinity_cache_bytes_per_second=1_990_000_000_000,
    infinity_cache_latency_cycles=380,
    l0_bytes=16 << 10, l0_latency_cycles=46, **RDNA_TLB, tlb_walk_cycles=518,
    l1_bytes=128 << 10, l1_cus_per_cache=9, l1_latency_cycles=83, l0_bytes_per_cycle=128,
    refresh_interval_cycles=8_775, refresh_cycles=270, submit_cycles=11_250, flush_cycles=3_375,
    dram_write_batch_bytes=16 * 768, dram_turnaround_cycles=23, dram_write_queue_bytes=16 * 2048,
    dram_channels=16, **GDDR6_BANKS,
    **RDNA_LDS,
    # transcendental: AMD "RDNA Architecture" whitepaper (2019), Vector ALUs: transcendental instructions (exp,
    # log, rcp, rsq, sqrt, sin, cos) run on a separate quarter-rate unit beside each SIMD32: 4 cycles per pass.
    valu_rate_cycles=(("fp64", 16), ("int32_mul", 4), ("int64", 2), ("transcendental", 4)),
    host_link_bytes_per_second=pcie_raw_bytes_per_second(4, 16), host_link_efficiency_permille=830,
    host_link_latency_cycles=2250,
    sources=(
        PCIE4_X16_SOURCE,
        RDNA_LDS_SOURCE,
        RDNA_CU_CACHES_SOURCE,
        "AMD product page, Radeon RX 6800 XT: 72 CUs, 2.25 GHz boost, 16 GB GDDR6, 512 GB/s.",
        "AMD RDNA2 ISA reference guide: 2 SIMD32 per CU, wave32, 16 wave slots per SIMD (Chips and Cheese, "
        "'AMD's RDNA 2: Shooting for the Top': each SIMD tracks up to 16 wavefronts, 20 on RDNA 1).",
        "DRAM latency of a lone request (dram_lone_latency_cycles, the memory side idle): " + TE42_RX6900XT +
        ": its first set beyond the 128 MB Infinity Cache and within the "
        "shared TLB's 256 MiB reach, 206,295 kB, takes 1471.1 cycles at 2.57 GHz = 572.4 ns per load (the "
        "Infinity Cache miss and the GDDR6 round trip; a sibling's measurement); at 2.25 GHz that is 1288 cycles, "
        "less the model's 27 cycles of pipeline and tag lookup and its 40-cycle L1 TLB miss: 1221 cycles (a row "
        "miss's: a chase opens a row per load). The file's larger sets add page walks (timing/caches.py "
        "TLBs). Estimate: refresh 3.9 us / 120 ns.",
        "DRAM latency of a busy memory side (dram_latency_cycles): Chips and Cheese, 'Measuring GPU Memory "
        "Latency' (2021-04-16): 'a 6900 XT with GDDR6 takes 226 ns' for a round trip to memory (an OpenCL pointer "
        "chase; a sibling's measurement); 226 ns = 509 cycles at 2.25 GHz, less the same 27 + 40: 442 cycles (a "
        "row miss's). Two lone chases of one GPU that differ 2.5x measured two states of its memory side: AMD "
        "clocks the Infinity Fabric (between the L2 and the Infinity Cache and memory controllers) by demand "
        "(AMD RDNA2 launch material: the Infinity Cache runs at fabric speeds of up to 1.94 GHz, raised "
        "opportunistically), and Chips and Cheese, 'Latency Testing is Hard (RDNA 3 Power Saving)' (2023-06-14), "
        "found RDNA3 lowering the fabric clock 'when there aren't a lot of outstanding requests' (RX 7900 XTX "
        "vector Infinity Cache latency 199 -> 150.3 ns in the higher state; the RX 7600's VRAM latency jumps in "
        "the lower one) while the shader-clock caches (L0, L1, L2) keep theirs. The two RDNA2 chases fit that: "
        "their L2 (shader clock) roughly agrees (te42kyfo's RX 6900 XT 54 ns beyond its L0, Chips and Cheese's "
        "RX 6800 XT ~66 ns), their Infinity Cache (fabric) does not (74 ns beyond the L2 in te42kyfo's file, "
        "'about 20 ns' in Chips and Cheese's). A stream keeps it busy: the "
        "sibling's own gpu-stream/RX6900XT.txt 'read' column turns its 160 resident blocks (40 WGPs x 4 "
        "blocks of 32 KiB LDS spoiler in 128 KiB) over every 394-421 ns at blocks of 32-128 threads, launch "
        "included, at up to 80 % of DRAM peak: less than the lone chase's 572 ns, which a loaded memory "
        "side cannot be without a faster state. Which dispatches find it idle: fewer waves than DRAM "
        "channels (at most one request per channel in flight; timing/command_processor.py), an estimate: "
        "AMD publishes no threshold. The Infinity Cache latency keeps the lone chase's figure (its busy "
        "state: Chips and Cheese's RX 6800 XT 'about 20 ns over a L2 hit', not adopted here: the cache-"
        "resident reads are bandwidth bound).",
        "Workgroup start and end (workgroup_slot_cycles 481, derived as the h200 preset's): te42kyfo/gpu-benches "
        "gpu-stream/RX6900XT.txt, 'init' column (one 8-byte store per thread, nothing waits for it): 186 and "
        "361 GB/s at blocks of 32 and 64 threads (96 and up: DRAM bound), 727 and 705 M blocks/s; with 160 "
        "resident blocks (above) each lives 220-227 ns; 226.9 ns (block 64) = 511 cycles at 2.25 GHz (the time "
        "carried over, an assumption: the card's clock during gpu-stream is not in the file), less the init "
        "kernel's own ~30 cycles in this model: 481. Checked, not fitted: the 'read' column at 128-thread "
        "blocks (the suite's occupancy point) then lands at 0.82x (0.64x if every read paid the lone "
        "chase's latency), each block living 451 ns against the sibling's 412 ns (the init blocks' time "
        "includes their stores' acknowledgement, which a read block does not wait for).",
        "Miss queue: 256 sectors of 64 bytes in flight per CU = 16 KiB, the CU's L0 vector cache (AMD RDNA "
        "whitepaper: 16 KB L0 per CU, 128-byte lines): a miss reserves the L0 line its data returns into, so the "
        "L0's lines bound the misses outstanding. A published count of RDNA L0 miss slots: NOT FOUND; this bound "
        "is an estimate, not fitted to a measured rate.",
        "256-bit GDDR6 = 16 16-bit channels. " + GDDR6_BANKS_SOURCE,
        "AMD RDNA2 product pages and whitepaper: 4 MB L2 with 128-byte lines (16-way), 128 MB Infinity Cache "
        "with 'up to 1.99 TB/s' peak bandwidth (AMD's figure for Navi 21).",
        "Estimates: 64-byte request sectors, 16-way Infinity Cache, Infinity Cache latency ~170 ns.",
        "TechPowerUp GPU Database, RX 6800 XT: FP32 20.74 TFLOPS, FP64 1.296 TFLOPS (1:16): 16 cycles per wave32.",
        "Estimates: 32-bit integer multiply at quarter rate (4 cycles), 64-bit integer compares and min/max "
        "as two 32-bit instructions (2 cycles), conversions at full rate.",
        "256-bit GDDR6 = 16 16-bit channels; 10.3 ns of turnaround = 23 cycles at 2.25 GHz. " + GDDR6_TURNAROUND,
    ),
)

# NVIDIA's L1TEX tag stage (one source for the two NVIDIA presets' lookups_per_cycle_per_cu).
L1TEX_TAGS = (
    "L1TEX tag stage: 'On GV100+ the L1TEX tag stage can resolve 4 sets x 4 sectors per cycle' (Greg Smith, "
    "NVIDIA, NVIDIA Developer Forums: 'How does the LSU execute load/store instructions in the Ampere "
    "architecture', 2023, and 'Understanding L1/TEX cache sectors/req', 2024): up to 4 distinct 128-byte lines "
    "looked up per clock per SM (lookups_per_cycle_per_cu = 4), so a warp whose 32 lanes touch 32 lines takes "
    "8 clocks in the tag stage. Checked against this project's real H200: a transposed 2048 x 2048 read "
    "measured 2.84x the packed copy; the h200 preset gives 2.7x with 4 lookups per clock (6.3x with 1).")


# Address translation on the NVIDIA presets (one source for both: the L1 TLB; the shared TLB per preset).
NVIDIA_TLB = dict(tlb_page_bytes=2 << 20, tlb_l1_entries=16, tlb_l1_miss_cycles=16, tlb_walk_cycles=500)
NVIDIA_CU_CACHES_SOURCE = (
    "CU caches (timing/caches.py): the SM's L1 data cache as configured for compute, written through with "
    "stores allocating (Accel-Sim's L1D policy 'L:T:m:L': write-through, allocate on miss, lazy fetch on read). "
    "Address translation: 2 MiB pages, an L1 TLB of 32 MiB reach (16 entries) and a shared TLB of 8 GiB reach "
    "on the RTX 3070 (Jia et al., 'Dissecting the NVIDIA Volta GPU Architecture via Microbenchmarking', 2018, "
    "and 'Dissecting the NVIDIA Turing T4 GPU via Microbenchmarking', 2019: 2 MiB pages, L1 TLB coverage 32 MB, "
    "L2 TLB coverage 8 GB; Ampere taken as Turing, an estimate) and of 32 GiB on the H200 (this project's H200, "
    "bench/gpu_calibration/results/h200_microbench.md: a chase of one node per 2 MiB page shows no step larger "
    "than ~8 ns up to a 32 GiB span); an L1 TLB miss 16 cycles (that ~8 ns step); a walk 500 cycles (an "
    "estimate: no measured figure found). The L1's data path (l0_bytes_per_cycle, timing/cu_caches.py): 128 "
    "bytes per clock per SM, the width of the SRAM that L1 and shared memory share (NVIDIA Volta/Ampere/Hopper "
    "whitepapers: one combined L1 data cache and shared memory per SM; CUDA C++ Programming Guide: shared "
    "memory's 32 banks of 32 bits each serve one access per clock = 128 bytes per clock). Checked, not fitted: "
    "this project's H200 reads a 256 KiB set at 30.6 TB/s (h200_microbench.md, readbw) = 117 bytes per clock "
    "per SM at 1.98 GHz.")

RTX_3070 = AdapterPreset(
    key="rtx3070",
    description="NVIDIA GeForce RTX 3070 (emulated)",
    vendor_id=0x10DE, device_id=0x2484,
    dedicated_video_memory=8 * GiB,
    compute_units=46, simds_per_cu=4, wave_width=32, workgroup_size=256,
    clock_hz=1_725_000_000, dram_bytes_per_second=448_000_000_000, dram_latency_cycles=500,
    launch_cycles=3_500, waves_per_simd=12, vgprs_per_simd_lane=512, max_lines_in_flight_per_cu=384,
    sector_bytes=32, l2_bytes=4 << 20, l2_bytes_per_cycle=1536, l2_latency_cycles=200, smem_latency_percent=40,
    l0_bytes=128 << 10, l0_latency_cycles=13, l0_write_allocate=True, l0_bytes_per_cycle=128, **NVIDIA_TLB,
    tlb_l2_entries=4096,
    refresh_interval_cycles=6_727, refresh_cycles=207, submit_cycles=8_625, flush_cycles=2_600,
    dram_write_batch_bytes=16 * 768, dram_turnaround_cycles=18, dram_write_queue_bytes=16 * 2048, lookups_per_cycle_per_cu=4,
    dram_channels=16, **GDDR6_BANKS,
    lds_bytes_per_cu=102_400, lds_max_bytes_per_workgroup=49_152, lds_banks=32, lds_bytes_per_cycle=128,
    lds_latency_cycles=29, barrier_cycles=20, l2_atomics_per_cycle=32,
    # transcendental: CUDA C++ Programming Guide, arithmetic instruction throughput, compute capability 8.6:
    # 16 results per clock per SM for rcp, rsqrt, log2, exp2, sin, cos (the SFUs) against 128 FP32: 8 cycles.
    # packed_f16 (v_pk_fma_f16, HFMA2): NVIDIA Ampere GA102 whitepaper, GA10x "FP16 (non-Tensor)" peak equal to
    # FP32 (RTX 3070: 20.3 TFLOPS both; TechPowerUp GPU Database 20.31 FP16 and FP32): two FP16 FMAs per lane
    # every second cycle, 2 cycles per wave pass.
    valu_rate_cycles=(("fp64", 64), ("int32_mul", 2), ("conversion", 8), ("int64", 2), ("transcendental", 8),
                      ("packed_f16", 2)),
    # Tensor cores: NVIDIA Ampere GA102 whitepaper, RTX 3070: 40.6 dense FP16 TFLOPS with FP32 accumulate (GeForce:
    # half the FP16-accumulate rate) = 46 SMs x 512 FLOP x 1.725 GHz. The rate of the same 16 x 16 x 16 product.
    matrix_fp16_flops_per_cycle_per_cu=512,
    host_link_bytes_per_second=pcie_raw_bytes_per_second(4, 16), host_link_efficiency_permille=830,
    host_link_latency_cycles=1725,
    sources=(
        PCIE4_X16_SOURCE,
        NVIDIA_CU_CACHES_SOURCE + " RTX 3070: 128 KiB of L1 (Accel-Sim SM86_RTX3070 gpgpusim.config: "
        "-gpgpu_unified_l1d_size 128 with an adaptive carve-out, which leaves a kernel without shared memory "
        "all of it; -gpgpu_cache:dl1 S:4:128:256,L:T:m:L:L), hit latency -gpgpu_l1_latency 39 taken as the "
        "load-to-use time: 13 cycles after the model's 24-cycle VMEM pipeline and tag lookup.",
        "Shared memory (LDS): Accel-Sim configs/tested-cfgs/SM86_RTX3070/gpgpusim.config: -gpgpu_shmem_size "
        "102400 (100 KiB per SM), -gpgpu_shmem_per_block 49152 (48 KiB per block, CUDA's default; opt-in "
        "allows 99 KiB), -gpgpu_smem_latency 29, -gpgpu_shmem_num_banks 32 (CUDA C++ Programming Guide, "
        "compute capability 8.x shared memory: 32 banks of 32 bits, each one access per clock: 128 bytes per "
        "clock per SM). Atomics: one per L2 slice per clock, an estimate; that config has 16 memory "
        "partitions of 2 sub-partitions = 32 L2 slices. Estimate: __syncthreads 20 cycles after the last warp "
        "arrives.",
        "NVIDIA Ampere GA102/GA104 whitepaper: RTX 3070 has 46 SMs, 4 processing blocks each, warp 32.",
        "NVIDIA product page, GeForce RTX 3070: 1.725 GHz boost, 8 GB GDDR6, 448 GB/s.",
        "CUDA occupancy tables for compute capability 8.6: 48 warps and 64K 32-bit registers per SM "
        "(12 warps, 512 registers per lane per processing block).",
        "Estimates: DRAM latency ~290 ns, refresh 3.9 us / 120 ns. Accel-Sim's SM86_RTX3070 config puts an L1 "
        "miss that goes to DRAM at 39 + 187 + 254 = 480 core cycles (-gpgpu_l1_latency, -gpgpu_l2_rop_latency, "
        "-dram_latency): 278 ns; a published pointer chase of this card: NOT FOUND.",
        "Miss queue: 384 sectors of 32 bytes in flight per SM: the L1 MSHRs of Accel-Sim's SM86_RTX3070 config "
        "(-gpgpu_cache:dl1 S:4:128:256,L:T:m:L:L,A:384:48: 384 entries), taken as 384 outstanding sectors. "
        "Not fitted to a measured rate.",
        GDDR6_BANKS_SOURCE,
        "NVIDIA GA104 (Ampere) whitepaper: 4 MB L2. CUDA C++ Best Practices Guide: global memory is accessed "
        "in 32-byte sectors of 128-byte cache lines.",
        L1TEX_TAGS,
        "CUDA C++ Programming Guide, throughput of native arithmetic instructions, compute capability 8.6 "
        "(results per clock per SM): FP32 128, FP64 2, 32-bit integer multiply 64, type conversions 16. Per "
        "processing block and warp: FP64 64 cycles, integer multiply 2, conversions 8. NVIDIA GA102 whitepaper: "
        "GA10x FP64 rate is 1/64 of FP32 (TechPowerUp GPU Database, RTX 3070: 20.31 TFLOPS FP32, 317 GFLOPS FP64).",
        "Estimate: 64-bit integer compares and min/max as two 32-bit instructions (2 cycles).",
        "256-bit GDDR6 = 16 16-bit channels; 10.3 ns of turnaround = 18 cycles at 1.725 GHz. " + GDDR6_TURNAROUND,
    ),
)

IRIS_XE = AdapterPreset(
    key="irisxe",
    description="Intel Iris Xe Graphics (emulated)",
    vendor_id=0x8086, device_id=0x9A49,
    dedicated_video_memory=2 * GiB,
    compute_units=96, simds_per_cu=1, wave_width=16, workgroup_size=64,
    clock_hz=1_350_000_000, dram_bytes_per_second=68_000_000_000, dram_latency_cycles=400,
    launch_cycles=8_100, waves_per_simd=7, supports_64bit=False, uma=True, simd_lanes=8, vgprs_per_simd_lane=1024,
    max_lines_in_flight_per_cu=4, line_bytes=64, sector_bytes=64, l2_bytes=3840 << 10, l2_ways=16,
    l2_bytes_per_cycle=512, l2_latency_cycles=180, smem_latency_percent=40,
    l0_bytes=64 << 10, l0_cus_per_cache=16, l0_latency_cycles=40,
    refresh_interval_cycles=5_265, refresh_cycles=243, submit_cycles=6_750, flush_cycles=4_050,
    dram_write_batch_bytes=8 * 768, dram_turnaround_cycles=27, dram_write_queue_bytes=8 * 2048,
    dram_channels=8, dram_banks_per_channel=8, dram_row_bytes=2048, dram_interleave_bytes=256,
    dram_trcd_ps=18_000, dram_trp_ps=18_000, dram_trc_ps=60_000, dram_trrd_ps=7_500, dram_tfaw_ps=30_000,
    lds_bytes_per_cu=65536, lds_max_bytes_per_workgroup=65536, lds_banks=16, lds_bytes_per_cycle=64,
    lds_latency_cycles=30, barrier_cycles=20, l2_atomics_per_cycle=8,
    # transcendental: an estimate, not a vendor figure: the EU's extended-math unit taken at quarter rate.
    valu_rate_cycles=(("int32_mul", 4), ("transcendental", 4)),
    sources=(
        "CU caches (timing/caches.py): one L1 per subslice of 16 EUs (l0_cus_per_cache 16), 64 KiB, written "
        "through without allocating on a store, 40 cycles after the VMEM pipeline: estimates (Xe-LP's L1 data "
        "cache and its latency: NOT FOUND as published figures). No TLB modelled (NOT FOUND).",
        "Estimates for shared local memory: Xe-LP has 64 KB of SLM per subslice of 16 EUs; the model's "
        "compute unit is one EU, so a workgroup may take 64 KiB (lds_bytes_per_cu = 64 KiB, which overstates "
        "how many workgroups fit), 16 banks of dwords (64 bytes per clock), ~30 cycles of latency, 20-cycle "
        "barriers, 8 L2 (L3) atomics per clock.",
        "Intel Xe-LP (Tiger Lake) graphics: 96 EUs, up to 1.35 GHz, SIMD8 EUs with 7 threads each; "
        "compute kernels run as SIMD16 threads (wave16, 2 passes on a SIMD8 EU).",
        "Estimates: LPDDR4x latency ~300 ns, refresh 3.9 us / 180 ns, 4 lines in flight per EU, ~6 us "
        "dispatch launch and ~3 us flush (an integrated GPU behind a shared-memory driver path).",
        "Shared LPDDR4x-4266, 128-bit: about 68 GB/s.",
        "Xe-LP lacks native 64-bit integer and FP64 arithmetic (so no 64-bit rates: such tensors are refused).",
        "Estimate: 32-bit integer multiply at quarter rate (4 cycles per pass).",
        "Intel Xe-LP: 3.84 MB L3 (the GPU's last level before the shared LLC) with 64-byte lines; 16 ways is "
        "an estimate. The SoC's LLC shared with the CPU is not modelled.",
        "Estimates: LPDDR4x read/write turnaround ~20 ns per round trip (JEDEC LPDDR4 tWTR is 10 ns; the "
        "read-to-write gap taken as about as long) = 27 cycles at 1.35 GHz; write batches as on the GDDR6 "
        "presets: 768 bytes per 16-bit channel, 8 channels on a 128-bit bus; the write queue too (2,048 bytes "
        "per channel).",
        "LPDDR4x banks and row buffers: 8 16-bit channels on the 128-bit bus, 8 banks per channel and 2 KB pages "
        "(JEDEC JESD209-4 LPDDR4: x16 channel organisation); timings of the JEDEC LPDDR4 speed bins above "
        "2133 Mb/s as vendor datasheets tabulate them: tRCD 18 ns, tRPpb 18 ns, tRAS 42 ns (tRC 60 ns), "
        "tRRD 7.5 ns, tFAW 30 ns. Estimates: that Tiger Lake's LPDDR4x-4266 runs these, and the 256-byte "
        "channel interleave with the simplified mapping of timing/dram_rows.py (Intel publishes no mapping).",
    ),
)

# The H200 preset's HBM read/write turnaround and write batches, and the other figures it takes from
# GPGPU-Sim / Accel-Sim's H100 configuration (one source for several fields).
ACCEL_SIM_H100 = (
    "GPGPU-Sim / Accel-Sim, configs/tested-cfgs/SM90_H100/gpgpusim.config (accel-sim/gpgpu-sim_distribution): "
    "core clock 1980 MHz, DRAM command clock 3106 MHz, HBM3 timings CL=19, WL=6, CDLR=8, burst length 4, "
    "data:command ratio 2 on 8-byte (64-bit) channels")

HBM_TURNAROUND = (
    "HBM3 read/write turnaround, from GPGPU-Sim's DRAM model (gpu-sim.cc: tRTW = CL + BL/ratio + 2 - WL, "
    "tWTR = WL + BL/ratio + CDLR, in command clocks) with the HBM3 timings of Accel-Sim's SM90_H100 config "
    "(CL=19, WL=6, CDLR=8, burst length 4, data:command ratio 2, 3106 MHz command clock): tRTW = 17, tWTR = 16; a burst holds the bus 2 command clocks, so a read-write-read round trip idles it "
    "(17-2)+(16-2) = 29 clocks = 9.3 ns = 18 cycles at 1.98 GHz. Write batches: GPGPU-Sim's separate DRAM write "
    "queue setting left commented out in that config (64:56:32, drained from the high to the low watermark: "
    "24 bursts of 32 bytes = 768 bytes per 64-bit channel; the write queue its 64 entries of 32 bytes = 2,048 "
    "bytes per channel); 6144-bit HBM3e (6 stacks of 1024 bits, NVIDIA "
    "H200 datasheet) = 96 such channels. Estimates: that these simulator settings hold for the H200's HBM3e "
    "controllers (the config is for H100's HBM3).")

H200_HOST_LINK_SOURCE = (
    "Host link: PCIe 5.0 x16 (this project's real H200 reports 'Gen5 x16, current = max': "
    "bench/gpu_calibration/results/h200_microbench.md), 32 GT/s x 16 lanes with 128b/130b encoding = 63.0 GB/s "
    "per direction raw (PCI-SIG PCI Express Base Specification 5.0). Efficiency 874 per mille: the same H200 "
    "measured 55.1 GB/s pinned host-to-device and 55.2 GB/s device-to-host (256 MiB cudaMemcpyAsync), and "
    "51.2 GB/s for a kernel reading mapped pinned host memory, 52.5 GB/s writing it "
    "(bench/gpu_calibration/results/h200_microbench.json, 'host'); 55.1 / 63.0 = 87.4 %. Latency 1 us for a "
    "read of host memory (1,980 cycles): an estimate, as on the PCIe 4.0 presets; measured: NOT FOUND.")

H200 = AdapterPreset(
    key="h200",
    description="NVIDIA H200 (emulated)",
    vendor_id=0x10DE, device_id=0x2335,
    dedicated_video_memory=141_000_000_000,
    compute_units=132, simds_per_cu=4, wave_width=32, workgroup_size=256,
    clock_hz=1_980_000_000, dram_bytes_per_second=4_800_000_000_000, dram_latency_cycles=680,
    launch_cycles=3_000, waves_per_simd=16, vgprs_per_simd_lane=512, max_lines_in_flight_per_cu=512,
    sector_bytes=32, l2_bytes=60 << 20, l2_ways=20, l2_bytes_per_cycle=5120, l2_latency_cycles=278,
    l2_far_latency_cycles=521, l0_bytes=224 << 10, l0_latency_cycles=7, l0_write_allocate=True, l0_bytes_per_cycle=128,
    **NVIDIA_TLB, tlb_l2_entries=16384,
    smem_latency_percent=40, refresh_interval_cycles=7_722, refresh_cycles=238,
    submit_cycles=9_900, flush_cycles=2_970, workgroup_launchers=8, workgroup_slot_cycles=406,
    lookups_per_cycle_per_cu=4,
    lds_bytes_per_cu=233_472, lds_max_bytes_per_workgroup=49_152, lds_banks=32, lds_bytes_per_cycle=128,
    lds_latency_cycles=29, barrier_cycles=20, l2_atomics_per_cycle=80,
    dram_write_batch_bytes=96 * 768, dram_turnaround_cycles=18, dram_write_queue_bytes=96 * 2048,
    dram_channels=48, dram_banks_per_channel=16, dram_row_bytes=2048, dram_interleave_bytes=256,
    dram_trcd_ps=6117, dram_trp_ps=6117, dram_trc_ps=16098, dram_trrd_ps=1932, dram_tfaw_ps=0,
    # transcendental: CUDA C++ Programming Guide, arithmetic instruction throughput, compute capability 9.0:
    # 16 results per clock per SM for rcp, rsqrt, log2, exp2, sin, cos (the SFUs) against 128 FP32: 8 cycles.
    valu_rate_cycles=(("fp64", 2), ("int32_mul", 2), ("conversion", 8), ("int64", 2), ("transcendental", 8)),
    # Tensor cores: NVIDIA H100 Tensor Core GPU Architecture whitepaper (2022): 989.4 dense FP16 TFLOPS with FP32
    # accumulate on H100 SXM5 = 132 SMs x 4096 FLOP x 1.83 GHz (H200: the same GH100 SMs). Derived, per SM per clock.
    matrix_fp16_flops_per_cycle_per_cu=4096,
    host_link_bytes_per_second=pcie_raw_bytes_per_second(5, 16), host_link_efficiency_permille=874,
    host_link_latency_cycles=1980,
    sources=(
        H200_HOST_LINK_SOURCE,
        NVIDIA_CU_CACHES_SOURCE + " H200, measured on this project's H200 (h200_microbench.md): L1 hits "
        "32.1-34.9 cycles to 192 KiB, 70 cycles at 224 KiB, 157 at 256 KiB (te42kyfo/gpu-benches "
        "gpu-latency/h100_pcie.txt: the H100's jump between 216 and 239 kB): 224 KiB of L1 (of the whole 256 KB of "
        "L1 and shared memory, NVIDIA H100 whitepaper) and 7 cycles after the 24-cycle VMEM pipeline and tag "
        "lookup. GH100's two L2 partitions: the same run measured L2 hits at 279-281 cycles from 320 KiB to 24 MiB "
        "and 521-525 cycles from 36 to 52 MiB (te42kyfo h100_pcie.txt: 466-484 cycles past about 24 MB; Chips and "
        "Cheese, 'Nvidia's H100: Funny L2, and Tons of Bandwidth', 2023, on the split L2): the near partition "
        "holds half the L2 (30 MiB) and a far hit takes 278 + (523 - 280) = 521 cycles (l2_far_latency_cycles).",
        ACCEL_SIM_H100 + " (its default for H100 is the simple DRAM model; the detailed timings are used here).",
        "Estimate: workgroups launched by 8 launchers in parallel, one per GPC (H100 SXM5 has 8 GPCs: NVIDIA H100 "
        "whitepaper); NVIDIA publishes no CTA launch rate for the GigaThread engine. One launcher for the whole "
        "GPU would cap a 256-thread streaming kernel at 256 elements per cycle, below this GPU's DRAM speed.",
        "Workgroup start and end (workgroup_slot_cycles 406, derived): a published CTA launch or retire latency "
        "for Hopper or a sibling: NOT FOUND (none in the Hopper and Volta-to-Ampere microbenchmark papers as far "
        "as this project's search reached; Accel-Sim's configs leave -gpgpu_TB_launch_latency at 0). Derived "
        "instead from a published measurement of "
        "this GPU: te42kyfo/gpu-benches gpu-stream/h200.txt, 'init' column (one 8-byte store per thread, nothing "
        "waits for it, 2 blocks per SM): 297, 590, 884 and 1163 GB/s at blocks of 32, 64, 96 and 128 threads, "
        "1.14-1.16 G blocks/s whatever the block size, so each of the 264 resident blocks lives 232 ns = 460 "
        "cycles at 1.98 GHz (block 128); the same kernel's own instructions take 54 of them in this model "
        "(bench/microbench/kernels/stream_store.s), so a workgroup holds its slots 406 cycles beyond its waves' "
        "instructions (that te42kyfo's H200 ran at 1.98 GHz is an assumption). Checked, not fitted: the same "
        "file's 'read' column (the suite's occupancy sweep) then lands within 0.96-1.25x at blocks of 128-1024, "
        "where without it the model read 1.49-1.69x too fast: a read block lives its 406 cycles plus a DRAM trip.",
        "Shared memory (LDS): " + ACCEL_SIM_H100 + ": -gpgpu_shmem_size 233472 (228 KiB per SM; the H100 "
        "whitepaper: up to 228 KB of shared memory per SM), -gpgpu_shmem_per_block 49152 (48 KiB, CUDA's default "
        "without opt-in), -gpgpu_smem_latency 29, -gpgpu_shmem_num_banks 32 (128 bytes per clock per SM). "
        "Atomics: one per L2 slice per clock, an estimate; that config has 40 memory partitions of 2 "
        "sub-partitions = 80 L2 slices. Estimate: __syncthreads 20 cycles after the last warp arrives.",
        "NVIDIA H100 Tensor Core GPU Architecture whitepaper (2022): GH100 SXM5 has 132 SMs, 4 processing "
        "blocks (SM sub-partitions) each, warp 32; H200 is the same GH100 die with HBM3e. The PCI ID "
        "Repository (pci.ids): 10de:2335 = GH100 [H200 SXM 141GB].",
        "NVIDIA H200 Tensor Core GPU product page and datasheet: 141 GB HBM3e at 4.8 TB/s. NVIDIA's maximum "
        "SM clock for H100/H200 SXM: 1,980 MHz (the measured H200 of docs/REAL_GPU_CHECKS.md reported 1980 MHz).",
        "CUDA occupancy tables for compute capability 9.0: 64 warps and 64K 32-bit registers per SM "
        "(16 warps, 512 registers per lane per processing block).",
        "L2: the NVIDIA H100 whitepaper gives 50 MB for H100 SXM5; the CUDA driver of the measured H200 reports "
        "60 MiB (62,914,560 bytes, cudaDevAttrL2CacheSize). This preset uses 60 MiB because it models that "
        "device and the driver reports what is enabled on it. 20 ways: the L2 of Accel-Sim's SM90_H100 config "
        "(256 sets x 128 bytes x 20 ways per sub-partition).",
        "CUDA C++ Best Practices Guide: global memory is accessed in 32-byte sectors of 128-byte cache lines.",
        L1TEX_TAGS,
        "CUDA C++ Programming Guide, throughput of native arithmetic instructions, compute capability 9.0 "
        "(results per clock per SM): FP32 128, FP64 64 (half rate), 32-bit integer multiply 64, type "
        "conversions 16, special functions 16 (1/8). Per processing block and warp: FP64 2 cycles, integer "
        "multiply 2, conversions 8, transcendentals 8.",
        "Estimate: 64-bit integer compares and min/max as two 32-bit instructions (2 cycles).",
        "L2 bandwidth: the NVIDIA A100 whitepaper gives 5,120 bytes per clock of L2 read bandwidth; estimate: "
        "Hopper has at least that (10.1 TB/s at 1.98 GHz). NVIDIA publishes no H100/H200 figure.",
        "Latencies: an L1 miss that hits the L2 takes the L1 latency (41) plus the L2 ROP latency (237) = 278 core "
        "cycles (Accel-Sim's SM90_H100 config). DRAM: this project's H200 measured a pointer chase at 682-687 "
        "cycles (344-347 ns, 72 MiB-4 GiB sets) against 280 for an L2 hit (bench/gpu_calibration/results/"
        "h200_microbench.md; te42kyfo/gpu-benches gpu-latency/h100_pcie.txt: H100 PCIe 650-658 cycles at "
        "1755 MHz, ~372 ns); the DRAM round trip is the L2 hit's 278 plus the measured step 682 - 280 = 402: "
        "680 cycles (as Accel-Sim's tuner derives dram_latency: the measured memory round trip less the L2 hit). "
        "It is a row miss's latency (a chase opens a row per step); a read whose sectors hit open rows waits "
        "tRP + tRCD less. "
        "Chips and Cheese, 'Nvidia's H100: Funny L2, and Tons of Bandwidth' (2023) measured an H100 PCIe; its "
        "latency figures were not in the excerpts available to this preset's author, so none is taken from it.",
        "512 sectors of 32 bytes in flight per SM: the L1 MSHR of Accel-Sim's SM90_H100 config (A:512:64, 512 "
        "entries), taken as 512 outstanding sectors. Not fitted to the measured copy rate.",
        "HBM3 banks and row buffers: Accel-Sim's SM90_H200 gpgpusim.config (accel-sim/gpgpu-sim_distribution, "
        "configs/tested-cfgs/SM90_H200): -gpgpu_n_mem 48 channels, -gpgpu_dram_timing_opt "
        "nbk=16:RRD=6:RCD=19:RAS=45:RP=19:RC=50 ('New HBM3 timing parameters') in command clocks of 3106 MHz "
        "(-gpgpu_clock_domains 1980:3106:3106:3106): tRRD 1.93 ns, tRCD 6.12 ns, tRP 6.12 ns, tRC 16.1 ns; "
        "-gpgpu_mem_addr_mapping dramid@8;...RRRR.RBBBCCCC.BCCSSSSS (256-byte channel interleave, 2 KiB rows, "
        "16 banks). No tFAW in the config: 0. Estimates: that the config's HBM3 figures hold for the H200's "
        "HBM3e, and the simplified mapping of timing/dram_rows.py. "
        "Considered and not adopted: HBM3's tFAW, 15-16 ns in Ramulator 2's JESD238A-based HBM3 presets "
        "(CMU-SAFARI/ramulator2 src/dram/impl/HBM3.cpp: nFAW 15 at tCK 1 ns; the PSAL-POSTECH fork: 19 at "
        "0.833 ns). JEDEC counts it per pseudo channel, and the H200's 6,144-bit HBM3e has 192 of them (6 stacks "
        "x 16 channels x 2), at which count it would not bind (51 G activations per second); applied per this "
        "preset's 48 channels it would (12.8 G/s) and the transposed read would cost what the real H200 measured "
        "(docs/FIDELITY.md), but 1,024 concurrent 64 KiB streams (a REDUCE of 2^24 floats) would "
        "fall from 77 % to 58 % of DRAM peak: the 768 banks of this preset, fewer than the real part's, thrash "
        "under many streams, and a limit taken at the wrong granularity would charge them for it.",
        "Estimates: HBM refresh every 3.9 us (JEDEC tREFI) for ~120 ns (the GDDR6 presets' figure; HBM's "
        "per-bank refresh hides part of the all-bank tRFC): 7,722 and 238 cycles at 1.98 GHz.",
        "Dispatch launch 3,000 cycles (1.5 us): -gpgpu_kernel_launch_latency of Accel-Sim's SM90_H100 config. "
        "Estimates, not fitted to the measured tiny-kernel figure: ~1.5 us end-of-dispatch flush and ~5 us "
        "ExecuteCommandLists, the same times as the RTX 3070 preset's estimates (a D3D12 dispatch with its UAV "
        "barrier, which flushes caches; published small-kernel sweeps put one at ~1.6 us on an L40).",
        HBM_TURNAROUND,
    ),
)

# WARP, Microsoft's software rasteriser, on a desktop CPU: what IDXGIFactory4::EnumWarpAdapter returns. It
# is not in PRESETS (EnumAdapters1 lists the hardware presets); preset_by_key("warp") finds it. The CPU
# it stands for is an 8-core x86-64 desktop part with AVX2 and dual-channel DDR4-3200: each core is one
# "compute unit" whose 256-bit vector units are its SIMDs, eight FP32 lanes wide.
WARP = AdapterPreset(
    key="warp",
    description="Microsoft Basic Render Driver (emulated)",
    vendor_id=0x1414, device_id=0x008C,
    dedicated_video_memory=8 * GiB,
    compute_units=8, simds_per_cu=2, wave_width=8, workgroup_size=64,
    clock_hz=3_000_000_000, dram_bytes_per_second=51_200_000_000, dram_latency_cycles=240,
    launch_cycles=30_000, native_fp16=False, uma=True, software=True,
    waves_per_simd=2, vgprs_per_simd_lane=1024, simd_lanes=8,
    line_bytes=64, sector_bytes=64, lookups_per_cycle_per_cu=2, max_lines_in_flight_per_cu=12,
    l2_bytes=16 << 20, l2_ways=16, l2_bytes_per_cycle=256, l2_latency_cycles=45, smem_latency_percent=10,
    refresh_interval_cycles=23_400, refresh_cycles=1_050, submit_cycles=15_000, flush_cycles=3_000,
    workgroup_launch_cycles=100,
    lds_bytes_per_cu=32768, lds_max_bytes_per_workgroup=32768, lds_banks=8, lds_bytes_per_cycle=64,
    lds_latency_cycles=5, barrier_cycles=100, l2_atomics_per_cycle=1,
    # fp64 and int64: 4 lanes per 256-bit register against 8 FP32 lanes; transcendental: no hardware
    # instruction, a short polynomial sequence (estimate).
    valu_rate_cycles=(("fp64", 2), ("int64", 2), ("transcendental", 8)),
    sources=(
        "Microsoft, 'Windows Advanced Rasterization Platform (WARP) Guide' (learn.microsoft.com, "
        "direct3darticles/directx-warp): WARP is a software rasteriser that JIT-compiles shaders to SSE/AVX "
        "vector code and spreads work over the CPU's cores; it implements feature levels up to 12_1.",
        "Microsoft, DXGI Overview, 'New info about enumerating adapters for Windows 8': the Microsoft Basic "
        "Render Driver has VendorId 0x1414 and DeviceId 0x8C and DXGI_ADAPTER_FLAG_SOFTWARE set; it is "
        "render-only (no outputs).",
        "Estimate: the CPU is an 8-core x86-64 desktop part at 3.0 GHz with AVX2: each core is one compute "
        "unit with its two 256-bit FMA pipes as two SIMDs of 8 FP32 lanes (wave8), two waves per SIMD "
        "standing for the two hardware threads per core; registers are memory, so the VGPR limit is loose.",
        "Dual-channel DDR4-3200 (JEDEC: 3200 MT/s x 8 bytes x 2 channels = 51.2 GB/s); estimates: ~80 ns "
        "load-to-use DRAM latency (240 cycles), refresh every 7.8 us (JEDEC tREFI) for ~350 ns (8 Gb tRFC).",
        "Estimates: the shared L3 (16 MiB, 16 ways, 64-byte lines, ~15 ns) as the modelled L2 at 32 bytes "
        "per cycle per core; 12 line fill buffers per core as the misses in flight; two loads per cycle.",
        "Estimates: a dispatch costs ~10 us of runtime and thread-pool work (launch), ExecuteCommandLists "
        "~5 us, the end-of-dispatch join ~1 us, and each workgroup ~33 ns to hand to a worker thread.",
        "Estimates: groupshared memory is host memory in the core's L1: D3D12's 32 KB limit per thread group "
        "(D3D12_CS_TGSM_REGISTER_COUNT = 8192 dwords) per core, 8 'banks' (the lanes of one AVX2 register), "
        "64 bytes per clock (two 32-byte loads), 5 cycles (an L1 hit), a 100-cycle barrier (a thread-pool "
        "join inside the core's fibres), one atomic per clock.",
        "UMA: WARP uses system memory (D3D12_FEATURE_DATA_ARCHITECTURE.UMA and CacheCoherentUMA); the 8 GiB "
        "budget stands for the shared system memory DXGI reports (an estimate: half of a 16 GiB host). FP16 "
        "is computed in FP32 (no native half arithmetic on AVX2: an estimate of WARP's choice); 64-bit "
        "types are supported.",
    ),
)

# Fields that must be above zero; the other integer fields may be 0 (0: not modelled, or free).
POSITIVE_FIELDS = ("compute_units", "simds_per_cu", "wave_width", "clock_hz", "dram_bytes_per_second", "line_bytes",
                   "sector_bytes", "lookups_per_cycle_per_cu", "max_lines_in_flight_per_cu", "l2_bytes", "l2_ways",
                   "l2_bytes_per_cycle", "simd_lanes", "waves_per_simd", "workgroup_size", "vgprs_per_simd_lane",
                   "workgroup_launch_cycles", "workgroup_launchers", "dedicated_video_memory", "lds_banks",
                   "lds_bytes_per_cycle", "l2_atomics_per_cycle", "l0_cus_per_cache")
# Upper bounds on the fields that size the emulator's own host objects (one object per compute unit
# and SIMD, cache tag arrays of size / sector_bytes, per-wave-slot state): far above any real GPU,
# low enough that a preset cannot make the emulator allocate without bound.
FIELD_LIMITS = {"compute_units": 1024, "workgroup_launchers": 64, "simds_per_cu": 16, "waves_per_simd": 64, "vgprs_per_simd_lane": 1 << 14,
                "simd_lanes": 128, "workgroup_size": 1024, "line_bytes": 4096, "l2_ways": 256,
                "infinity_cache_ways": 256, "max_lines_in_flight_per_cu": 1 << 16, "l2_bytes": 1 << 30,
                "infinity_cache_bytes": 1 << 32, "dedicated_video_memory": 1 << 44, "max_feature_level": 0xFFFF,
                "vendor_id": 0xFFFF, "device_id": 0xFFFF, "lds_banks": 1024, "lds_bytes_per_cycle": 1 << 16,
                "l2_atomics_per_cycle": 1 << 16, "lds_bytes_per_cu": 1 << 30, "host_link_efficiency_permille": 1000,
                "l0_cus_per_cache": 1024, "l0_bytes": 1 << 24, "tlb_l1_entries": 1 << 16,
                "tlb_l2_entries": 1 << 20, "tlb_page_bytes": 1 << 40}
# The DRAM's banks (timing/dram_rows.py keeps one open row per bank: channels x banks entries).
# The shader array's L1 (timing/cu_caches.py).
POSITIVE_FIELDS += ("l1_cus_per_cache",)
FIELD_LIMITS.update({"l1_cus_per_cache": 1024, "l1_bytes": 1 << 24})
FIELD_LIMITS.update({"dram_channels": 4096, "dram_banks_per_channel": 256, "dram_row_bytes": 1 << 20,
                     "dram_interleave_bytes": 1 << 20})
MAX_CACHE_SECTORS = 1 << 22   # a modelled cache's tag array: sectors (9 bytes each on the host)
MAX_FIELD = 1 << 62     # every other integer field: large enough, and exact in any arithmetic done with it


def _field_problem(name, kind, value):
    """A sentence when `value` is not of the field's type (and, for integers, range), else None."""
    if kind is bool:
        return None if isinstance(value, bool) else f"{name} is {short_repr(value)}; it must be a bool"
    if kind is str:
        return None if isinstance(value, str) else f"{name} is {short_repr(value)}; it must be a text"
    if kind is tuple:
        return None if isinstance(value, tuple) else f"{name} is {short_repr(value)}; it must be a tuple"
    if type(value) is not int or value < 0:     # no bool, no float, no NumPy scalar
        return f"{name} is {short_repr(value)}; it must be a non-negative integer"
    if name in POSITIVE_FIELDS and value == 0:
        return f"{name} is 0; it must be a positive integer"
    limit = FIELD_LIMITS.get(name, MAX_FIELD)
    if value > limit:
        return f"{name} is {value}; it must be at most {limit}"
    return None


def preset_problem(preset):
    """A sentence naming the first impossible field of a preset (its types and ranges, cache
    geometry, rates and sizes), or None when it can be built."""
    if not isinstance(preset, AdapterPreset):
        return f"it is a {type(preset).__name__}, not an AdapterPreset"
    for f in dataclasses.fields(AdapterPreset):
        problem = _field_problem(f.name, f.type, getattr(preset, f.name))
        if problem:
            return problem
    if not all(isinstance(text, str) for text in preset.sources):
        return f"sources is {short_repr(preset.sources)}; it must be a tuple of texts"
    if preset.dram_turnaround_cycles and not preset.dram_write_batch_bytes:
        return (f"dram_write_batch_bytes is 0 while dram_turnaround_cycles is {preset.dram_turnaround_cycles}; "
                f"a preset with a read/write turnaround needs the write batch it follows")
    if preset.dram_channels:
        for name in ("dram_banks_per_channel", "dram_row_bytes", "dram_interleave_bytes"):
            if not getattr(preset, name):
                return f"{name} is 0 while dram_channels is {preset.dram_channels}; a DRAM with banks needs it positive"
        if preset.dram_row_miss_cycles() > preset.dram_latency_cycles:
            return (f"dram_latency_cycles is {preset.dram_latency_cycles}; it must be at least tRP + tRCD "
                    f"({preset.dram_row_miss_cycles()} cycles): it is a row miss's latency")
        if preset.dram_lone_latency_cycles and preset.dram_row_miss_cycles() > preset.dram_lone_latency_cycles:
            return (f"dram_lone_latency_cycles is {preset.dram_lone_latency_cycles}; it must be 0 or at least "
                    f"tRP + tRCD ({preset.dram_row_miss_cycles()} cycles): it is a row miss's latency")
    if preset.lds_max_bytes_per_workgroup > preset.lds_bytes_per_cu:
        return (f"lds_max_bytes_per_workgroup is {preset.lds_max_bytes_per_workgroup}; it must be at most "
                f"lds_bytes_per_cu ({preset.lds_bytes_per_cu}): a workgroup's LDS is on one compute unit")
    if preset.host_link_bytes_per_second and not preset.host_link_efficiency_permille:
        return (f"host_link_efficiency_permille is 0 while host_link_bytes_per_second is "
                f"{preset.host_link_bytes_per_second}; a preset with a host link needs an efficiency from 1 to 1000")
    if preset.wave_width not in (4, 8, 16, 32, 64):
        return f"wave_width is {preset.wave_width}; it must be 4, 8, 16, 32 or 64"
    if preset.line_bytes % preset.sector_bytes:
        return (f"line_bytes is {preset.line_bytes}; it must be a multiple of sector_bytes "
                f"({preset.sector_bytes})")
    from dmlemu.isa.opcodes import RATE_CLASSES
    for entry in preset.valu_rate_cycles:
        if (not isinstance(entry, tuple) or len(entry) != 2 or entry[0] not in RATE_CLASSES[1:]
                or type(entry[1]) is not int or not 0 < entry[1] <= 1 << 16):
            return (f"valu_rate_cycles has {short_repr(entry)}; each entry must be (rate class, cycles from 1 to 65536) "
                    f"with a class of {', '.join(RATE_CLASSES[1:])}")
    caches = [("l2", preset.l2_bytes, preset.l2_ways)]
    if preset.infinity_cache_bytes:
        if preset.infinity_cache_bytes_per_second <= 0:
            return (f"infinity_cache_bytes_per_second is {preset.infinity_cache_bytes_per_second}; a preset with "
                    f"an Infinity Cache needs a positive bandwidth")
        caches.append(("infinity_cache", preset.infinity_cache_bytes, preset.infinity_cache_ways))
    if preset.l0_bytes:
        if preset.l0_bytes % preset.line_bytes:
            return f"l0_bytes is {preset.l0_bytes}; it must be a multiple of line_bytes ({preset.line_bytes})"
        parts = -(-preset.compute_units // preset.l0_cus_per_cache)
        if parts * preset.l0_bytes // preset.sector_bytes > MAX_CACHE_SECTORS:
            return (f"l0_bytes is {preset.l0_bytes}; with {parts} caches of sector_bytes {preset.sector_bytes} that is "
                    f"more than {MAX_CACHE_SECTORS} sectors, the most the modelled caches hold")
    if preset.l1_bytes:
        if preset.l1_bytes % preset.line_bytes:
            return f"l1_bytes is {preset.l1_bytes}; it must be a multiple of line_bytes ({preset.line_bytes})"
        if preset.l1_cus_per_cache % preset.l0_cus_per_cache:
            return (f"l1_cus_per_cache is {preset.l1_cus_per_cache}; it must be a multiple of l0_cus_per_cache "
                    f"({preset.l0_cus_per_cache}): a shader array's L1 serves whole L0s")
        arrays = -(-preset.compute_units // preset.l1_cus_per_cache)
        if arrays * preset.l1_bytes // preset.sector_bytes > MAX_CACHE_SECTORS:
            return (f"l1_bytes is {preset.l1_bytes}; with {arrays} caches of sector_bytes {preset.sector_bytes} that is "
                    f"more than {MAX_CACHE_SECTORS} sectors, the most the modelled caches hold")
    if preset.l2_far_latency_cycles and preset.l2_far_latency_cycles < preset.l2_latency_cycles:
        return (f"l2_far_latency_cycles is {preset.l2_far_latency_cycles}; it must be 0 (one L2 partition) or at least "
                f"l2_latency_cycles ({preset.l2_latency_cycles}): the far partition is not nearer")
    if preset.tlb_page_bytes:
        if preset.tlb_page_bytes % preset.sector_bytes:
            return (f"tlb_page_bytes is {preset.tlb_page_bytes}; it must be a multiple of sector_bytes "
                    f"({preset.sector_bytes})")
        for name in ("tlb_l1_entries", "tlb_l2_entries"):
            if getattr(preset, name) == 0:
                return f"{name} is 0 while tlb_page_bytes is {preset.tlb_page_bytes}; a modelled TLB needs entries"
        parts = -(-preset.compute_units // preset.l0_cus_per_cache)
        if parts * preset.tlb_l1_entries > MAX_CACHE_SECTORS:
            return (f"tlb_l1_entries is {preset.tlb_l1_entries}; with {parts} TLBs that is more than "
                    f"{MAX_CACHE_SECTORS} entries, the most the modelled TLBs hold")
    for name, size, ways in caches:
        if ways <= 0 or size % (preset.line_bytes * ways):
            return (f"{name}_bytes is {size}; it must be a multiple of line_bytes x {name}_ways "
                    f"({preset.line_bytes} x {ways})")
        if size // preset.sector_bytes > MAX_CACHE_SECTORS:
            return (f"{name}_bytes is {size}; with sector_bytes {preset.sector_bytes} that is more than "
                    f"{MAX_CACHE_SECTORS} sectors, the most a modelled cache holds")
    return None


PRESETS = (RX_7900_XTX, RX_6800_XT, RTX_3070, IRIS_XE, TEACHING, H200)
DEFAULT_PRESET = RX_7900_XTX


# Adapters that EnumAdapters1 does not list but a program can ask for (EnumWarpAdapter).
SOFTWARE_PRESETS = (WARP,)


def preset_by_key(key):
    """The preset whose key is `key` (WARP's "warp" included); ValueError (one sentence naming the known
    keys) when none is."""
    for preset in PRESETS + SOFTWARE_PRESETS:
        if preset.key == key:
            return preset
    raise ValueError(f"no adapter preset named {short_repr(key)}; known: "
                     f"{', '.join(p.key for p in PRESETS + SOFTWARE_PRESETS)}")
