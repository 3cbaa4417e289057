"""The microbenchmarks: what each measures, how, and its points per preset.

Every measurement is a host program on a BenchRig (rig.py: root signature, pipeline, Dispatch or
CopyBufferRegion between two timestamp queries) running a hand-written kernel of kernels/. Where a
figure is a steady-state rate, it is the difference of two runs that differ only in their trip count
(the launch, the first waves' start and the drain cancel), as GPU microbenchmarks do.

    chase       one thread follows a random cycle through a set (one node per 128-byte line, a random
                order): ns per load = cycles of 3 x K loads minus cycles of K loads, over 2 x K. A set
                the caches can hold is first walked whole (small sets: by the chase itself; larger ones:
                by one pass of the read kernel), so every timed load hits the level that holds it; a set
                larger than the preset's caches is chased cold (the CopyBufferRegion that wrote it left
                no line cached), as a cyclic chase over a set larger than an LRU cache misses every time.
                A set a CU-side cache holds (L0, shader array L1: invalidated at each dispatch's end) is
                walked whole at the start of both timed runs, so their difference is all hits, as in
                the published suites' one long chase.
    read        every SIMD 8 waves deep, 256-thread groups reading 8-byte elements (4 loads in flight per
                thread), wrapping inside a 2^k-byte set: one warm pass (sets the caches can hold), then
                runs of T and 2 x T trips, T at least one pass: GB/s = bytes of T trips / cycles of the
                difference. The passes loop inside the kernel, as published suites do, so a timing
                model that hands the caches each wave's loop trips ahead of the other waves' accesses
                (emulator/timing/caches.py's wave order) sees reuse a GPU does not.
    store       the same shape with stores, over a 2^k-byte set at least 1.5 times the preset's caches
                (a cyclic stream over a set larger than the caches misses every time, so the steady state
                streams to DRAM): runs of one and two passes.
    fma         8 waves per SIMD, each thread 32 FMA instructions per trip on 8 independent accumulators
                (FP32 in RDNA3's dual-issue register pattern, FP16 packed: v_pk_fma_f16, two FMAs per
                instruction, FP64 in register pairs): TFLOP/s from runs of T and 2 x T trips.
    occupancy   gpu-stream's read kernel (te42kyfo/gpu-benches gpu-stream/main.cu, read_kernel) at its
                block sizes N = 128 .. 1024: one thread per 8-byte element of a fresh, never cached
                buffer, each reading its element once (kernels/stream_read.s), 2 groups of N threads
                resident per CU as gpu-stream's shared-memory spoiler allows per SM (measureKernels(...,
                blockSize, 2)); here the kernel's VGPR count sets that residency (stream_vgprs). Runs
                over 16 and 32 MiB differenced: GB/s per N.
    host        CopyBufferRegion UPLOAD -> DEFAULT and DEFAULT -> READBACK (64 MiB, one copy between
                timestamps), and the read kernel reading an UPLOAD buffer once (16 MiB).
"""
from typing import NamedTuple

import numpy as np

from dmlemu.d3d12 import D3D12_HEAP_TYPE_READBACK, D3D12_HEAP_TYPE_UPLOAD
from dmlemu.presets import preset_by_key

from .rig import BenchRig

KiB, MiB, GiB = 1 << 10, 1 << 20, 1 << 30
NODE_BYTES = 128          # one chase node per 128-byte line
CHASE_STEPS = 256         # K: the timed chase runs K and 3 K loads
CHASE_WARM_NODES = 16384  # sets of at most this many nodes are warmed by the chase itself
GROUP = 256               # threads per group of the read, store and FMA kernels
BLOCK = GROUP * 32        # bytes one group reads or stores per trip
WAVES_PER_SIMD = 8        # depth of the read, store and FMA grids
OCCUPANCY_BYTES = 16 * MiB  # and twice that: 32 MiB / 8 B / 128 threads = 32768 groups (D3D: at most 65535)
STREAM_BLOCKS = (128, 256, 512, 1024)   # gpu-stream's block sizes the published rows are at
STREAM_BLOCKS_PER_CU = 2                # gpu-stream main.cu: measureKernels(kernels, blockSize, 2)
HOST_COPY_BYTES = 64 * MiB
HOST_READ_BYTES = 16 * MiB
FMA_TYPES = ("FP32", "FP64", "FP16")
FMAS_PER_INSTRUCTION = {"FP32": 1, "FP64": 1, "FP16": 2}   # per lane: v_fma_f32, v_fma_f64, v_pk_fma_f16
FMA_TRIPS = 4
LONG_BYTES = 512 * MiB    # sets larger than this run only with --long


class Point(NamedTuple):
    benchmark: str
    point: str            # the name published.py keys on
    size: int             # bytes (a set, a copy), waves per SIMD, or 0
    unit: str


def label(nbytes):
    """'8 KiB', '2 MiB', '1 GiB'."""
    for unit, scale in (("GiB", GiB), ("MiB", MiB), ("KiB", KiB)):
        if nbytes >= scale and nbytes % scale == 0:
            return f"{nbytes // scale} {unit}"
    return f"{nbytes} B"


def caches_bytes(preset):
    return preset.l2_bytes + preset.infinity_cache_bytes


def cu_side_bytes(preset):
    """The largest set a CU-side cache (L0, shader array L1) holds: what one wave's chase keeps within a dispatch."""
    return max(preset.l0_bytes, preset.l1_bytes)


def chase_sets(preset):
    """A set per level: the first-level cache, the L2, the Infinity Cache (where one exists), DRAM;
    h200 also the far L2 partition (its L2 is 60 MiB); rx6800xt at the sizes its sibling was measured at."""
    sets = {"rx6800xt": [8 * KiB, 64 * KiB, 2 * MiB, 32 * MiB, 332 * MiB],
            "h200": [8 * KiB, 16 * MiB, 48 * MiB, 256 * MiB, GiB]}.get(preset.key)
    if sets is None:
        sets = [8 * KiB, 2 * MiB] + ([32 * MiB] if preset.infinity_cache_bytes else []) + [256 * MiB]
    return sets


READ_SETS = (256 * KiB, 2 * MiB, 16 * MiB, 64 * MiB, 256 * MiB, GiB)


def read_sets(preset):
    """READ_SETS; on a split L2 (GH100: l2_far_latency_cycles) also a set past the near partition's half
    that the whole L2 holds (48 MiB of h200's 60), read from the far partition."""
    if not preset.l2_far_latency_cycles:
        return READ_SETS
    far = 48 * MiB
    return tuple(sorted(READ_SETS + (far,)))


def points(preset, long=False):
    """Every point of every benchmark on `preset`; sets above LONG_BYTES only when `long`."""
    out = [Point("chase", label(s), s, "ns") for s in chase_sets(preset) if long or s <= LONG_BYTES]
    out += [Point("read", label(s), s, "GB/s") for s in read_sets(preset) if long or s <= LONG_BYTES]
    out.append(Point("store", "stream", 0, "GB/s"))
    out += [Point("fma", t, 0, "TFLOP/s") for t in FMA_TYPES if t != "FP64" or preset.supports_64bit]
    out += [Point("occupancy", f"block {n}", n, "GB/s") for n in STREAM_BLOCKS]
    out += [Point("host", name, 0, "GB/s") for name in ("UPLOAD -> DEFAULT", "DEFAULT -> READBACK",
                                                        "kernel reads UPLOAD")]
    return out


# ---- the measurements ------------------------------------------------------------------------------------
def _read_symbols(group):
    return {"GROUP": group, "BLOCK": group * 32, "GROUP8": group * 8, "GROUP16": group * 16, "GROUP24": group * 24}


def _grid_groups(preset, waves_per_simd=WAVES_PER_SIMD, group=GROUP):
    waves = preset.compute_units * preset.simds_per_cu * min(waves_per_simd, preset.waves_per_simd)
    return max(1, waves * preset.wave_width // group)


def chase_ns(rig, preset, nbytes, steps=CHASE_STEPS, seed=1):
    """Nanoseconds per dependent load over a random cycle through `nbytes`."""
    nodes = nbytes // NODE_BYTES
    order = np.random.default_rng(seed).permutation(nodes).astype(np.uint64) * NODE_BYTES
    upload = rig.buffer(nbytes, D3D12_HEAP_TYPE_UPLOAD)
    words = upload.Map(0, None).view(np.uint32)          # the host writes each node's successor
    words[(order // 4).astype(np.int64)] = np.roll(order, -1).astype(np.uint32)
    upload.Unmap(0, None)
    chain = rig.buffer(nbytes)
    rig.fill(chain, upload, nbytes)            # CopyBufferRegion: DRAM written, caches invalidated
    del upload
    stop = rig.buffer(16)
    pipeline = rig.pipeline("chase")
    where = [int(order[0])]

    def chase(loads):
        cycles = rig.dispatch(pipeline, 1, (where[0], -(-loads // 8)), uavs=(chain, stop))
        where[0] = int(rig.read(stop, np.uint32, 1)[0])
        return cycles

    if nbytes < caches_bytes(preset):
        if nodes <= CHASE_WARM_NODES:
            chase(nodes)
        else:
            read_pass(rig, preset, chain, nbytes)
    # The CU-side caches are invalidated at every dispatch's end: a set they can hold is walked whole
    # at the start of both timed runs too (the same loads in both: they cancel in the difference).
    warm = nodes if nbytes <= cu_side_bytes(preset) else 0
    first, second = chase(warm + steps), chase(warm + 3 * steps)
    return (second - first) / (2 * steps) / rig.clock_hz * 1e9


def read_pass(rig, preset, buffer, nbytes, trips=None, groups=None, group=GROUP):
    """(cycles, bytes read) of the read kernel over `buffer` (a 2^k-byte set) for `trips` trips
    (default: enough to cover the set once)."""
    groups = groups or _grid_groups(preset, group=group)
    stride = groups * group * 32
    trips = trips or -(-nbytes // stride)
    cycles = rig.dispatch(rig.pipeline("read", _read_symbols(group)), groups, (trips, stride, nbytes - 1),
                          srv=buffer, uavs=(rig.sink,))
    return cycles, trips * stride


def read_gbs(rig, preset, nbytes):
    """Steady-state GB/s of repeated whole-GPU reads of a 2^k-byte set."""
    buffer = rig.buffer(nbytes)
    groups = _grid_groups(preset)
    stride = groups * BLOCK
    trips = max(16, -(-nbytes // stride))
    if nbytes < caches_bytes(preset):
        read_pass(rig, preset, buffer, nbytes)                   # warm (a larger set streams from DRAM anyway)
    first, _ = read_pass(rig, preset, buffer, nbytes, trips)
    second, _ = read_pass(rig, preset, buffer, nbytes, 2 * trips)
    return trips * stride / ((second - first) / rig.clock_hz) / 1e9


def store_bytes(preset):
    """The store stream's set: a power of two, at least 32 MiB and 1.5 times the caches."""
    return 1 << max(25, (3 * caches_bytes(preset) // 2 - 1).bit_length())


def store_gbs(rig, preset, nbytes=None):
    """Steady-state GB/s of a store stream over a 2^k-byte set (default: store_bytes)."""
    nbytes = nbytes or store_bytes(preset)
    buffer = rig.buffer(nbytes)
    groups = _grid_groups(preset)
    stride = groups * BLOCK
    trips = max(1, nbytes // stride)
    pipeline = rig.pipeline("store")
    first = rig.dispatch(pipeline, groups, (trips, stride, nbytes - 1), uavs=(buffer,))
    second = rig.dispatch(pipeline, groups, (2 * trips, stride, nbytes - 1), uavs=(buffer,))
    return trips * stride / ((second - first) / rig.clock_hz) / 1e9


def fma_tflops(rig, preset, data_type):
    """TFLOP/s of FMA chains: 2 FLOP per FMA per lane (two FMAs per packed FP16 instruction)."""
    pipeline = rig.pipeline({"FP32": "fma_f32", "FP64": "fma_f64", "FP16": "fma_f16"}[data_type])
    groups = _grid_groups(preset)
    first = rig.dispatch(pipeline, groups, (FMA_TRIPS,), uavs=(rig.sink,))
    second = rig.dispatch(pipeline, groups, (2 * FMA_TRIPS,), uavs=(rig.sink,))
    flops = groups * GROUP * FMA_TRIPS * 32 * FMAS_PER_INSTRUCTION[data_type] * 2
    return flops / ((second - first) / rig.clock_hz) / 1e12


def stream_waves_per_simd(preset, block):
    """Resident waves per SIMD of STREAM_BLOCKS_PER_CU groups of `block` threads per CU (the preset's
    wave slots at most)."""
    waves = STREAM_BLOCKS_PER_CU * block // (preset.wave_width * preset.simds_per_cu)
    return max(1, min(preset.waves_per_simd, waves))


def stream_vgprs(preset, block):
    """VGPRs per lane that leave room for stream_waves_per_simd waves on a SIMD (a multiple of 8, 8 to
    256: where the register file is larger than 256 per wave allows, more waves stay resident)."""
    waves = stream_waves_per_simd(preset, block)
    return max(8, min(256, preset.vgprs_per_simd_lane // waves // 8 * 8))


def occupancy_gbs(rig, preset, block, nbytes=OCCUPANCY_BYTES):
    """GB/s of gpu-stream's read kernel with groups of `block` threads (see the banner): fresh buffers
    of `nbytes` and 2 x `nbytes` read once, one thread per 8-byte element, differenced."""
    pipeline = rig.pipeline("stream_read", {"GROUP": block, "VTOP": max(5, stream_vgprs(preset, block) - 1)})
    runs = []
    for size in (nbytes, 2 * nbytes):
        buffer = rig.buffer(size)                                # fresh: never cached
        runs.append(rig.dispatch(pipeline, size // 8 // block, srv=buffer, uavs=(rig.sink,)))
    return nbytes / ((runs[1] - runs[0]) / rig.clock_hz) / 1e9


def occupancy_store_gbs(rig, preset, block, nbytes=4 * MiB):
    """GB/s of gpu-stream's init kernel (kernels/stream_store.s: one 8-byte store per thread, nothing waits
    for it) with groups of `block` threads, resident as occupancy_gbs's: fresh buffers of `nbytes` and
    2 x `nbytes`, differenced. At small groups it runs at the rate groups start and end (the published
    'init' column of gpu-stream is where emulator/presets.py takes workgroup_slot_cycles from)."""
    pipeline = rig.pipeline("stream_store", {"GROUP": block, "VTOP": max(5, stream_vgprs(preset, block) - 1)})
    runs = []
    for size in (nbytes, 2 * nbytes):
        runs.append(rig.dispatch(pipeline, size // 8 // block, uavs=(rig.buffer(size),)))
    return nbytes / ((runs[1] - runs[0]) / rig.clock_hz) / 1e9


def host_gbs(rig, preset, which, nbytes=None):
    """GB/s of a host copy (UPLOAD -> DEFAULT, DEFAULT -> READBACK) or of the read kernel reading an
    UPLOAD buffer once ("kernel reads UPLOAD"); `nbytes` a power of two (default HOST_COPY_BYTES,
    HOST_READ_BYTES)."""
    if which == "kernel reads UPLOAD":
        nbytes = nbytes or HOST_READ_BYTES
        cycles, moved = read_pass(rig, preset, rig.buffer(nbytes, D3D12_HEAP_TYPE_UPLOAD), nbytes)
        return moved / (cycles / rig.clock_hz) / 1e9
    nbytes = nbytes or HOST_COPY_BYTES
    device = rig.buffer(nbytes)
    if which == "UPLOAD -> DEFAULT":
        cycles = rig.copy_in(device, rig.buffer(nbytes, D3D12_HEAP_TYPE_UPLOAD), nbytes)
    else:
        cycles = rig.copy_out(rig.buffer(nbytes, D3D12_HEAP_TYPE_READBACK), device, nbytes)
    return nbytes / (cycles / rig.clock_hz) / 1e9


def measure(preset_key, point):
    """The modelled figure of one point on a fresh device (so no benchmark sees another's cache state)."""
    preset = preset_by_key(preset_key)
    rig = BenchRig(preset_key)
    if point.benchmark == "chase":
        return chase_ns(rig, preset, point.size)
    if point.benchmark == "read":
        return read_gbs(rig, preset, point.size)
    if point.benchmark == "store":
        return store_gbs(rig, preset)
    if point.benchmark == "fma":
        return fma_tflops(rig, preset, point.point)
    if point.benchmark == "occupancy":
        return occupancy_gbs(rig, preset, point.size)
    return host_gbs(rig, preset, point.point)
