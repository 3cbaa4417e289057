"""LDS, barrier and atomic microbenchmark kernels (assembly, launched with KernelLaunch on a timed Gpu)
and the measurements made from their cycles. Read by bench/bench_lds.py (the table of
docs/FIDELITY.md, every preset) and tests/timing/test_lds_timing.py, test_barriers.py and
test_atomics_timing.py.

Every figure is a difference of two runs that differ only in the loop's trip count (T and 2T), so the
dispatch's launch, the first workgroups' start and the last ones' drain cancel:

    latency      one wave, a pointer chase: ds_read_b32 v2, v2 then s_waitcnt 0, over and over (the LDS
                 holds zeros, so every lane reads dword 0: one pass): cycles per read, the loop
                 unrolled 8 times; the read's issue and its one bank pass included, as on hardware
    bandwidth    every CU full of waves streaming ds_read_b32 (or ds_read_b128) at consecutive dwords,
                 8 reads then s_waitcnt 0 per trip: LDS bytes per cycle per CU
    passes       a dependent chain whose lane l reads dword l x stride (each address is the last read's
                 value plus the lane's offset) at a stride of 1, 2, 4, 32 dwords and with every lane on
                 one address (broadcast): extra cycles per read over stride 1, in passes (one pass:
                 banks x 4 / lds_bytes_per_cycle cycles), plus stride 1's passes (the bank rule's)
    barrier      256-thread workgroups running s_barrier 8 times a trip: cycles per barrier
    atomics      every CU full of waves running buffer_atomic_add (no return) 8 times a trip, each lane on
                 its own dword (distinct) or every lane of every wave on one dword (one address):
                 lane atomics per cycle, whole GPU
"""
import numpy as np

from dmlemu.functional.buffer_descriptor import write_buffer_descriptor
from dmlemu.functional.wave_dispatcher import KernelLaunch
from dmlemu.gpu import Gpu
from dmlemu.isa.assembler import assemble
from dmlemu.isa.program import Program

UNROLL = 8


def looped(body, trips):
    """`body` UNROLL times per trip, `trips` trips: a scalar counter in s22."""
    return (f"    s_mov_b32 s22, {trips}\nloop:\n" + body * UNROLL
            + "    s_sub_u32 s22, s22, 1\n    s_cmp_lg_u32 s22, 0\n    s_cbranch_scc1 loop\n")


def chain_source(trips, stride_dwords):
    """One dependent ds_read_b32 after another; lane l reads dword l x stride (stride 0: all lanes dword 0)."""
    setup = f"    v_mov_b32 v2, 0\n    v_mul_lo_u32 v5, v0, {4 * stride_dwords}\n    v_mov_b32 v3, v5\n"
    body = "    ds_read_b32 v2, v3, 0\n    s_waitcnt 0\n    v_add_u32 v3, v5, v2\n"
    return setup + looped(body, trips) + "    s_endpgm\n"


def chase_source(trips):
    """A pointer chase through the LDS: each read's address is the last read's value (0)."""
    return "    v_mov_b32 v2, 0\n" + looped("    ds_read_b32 v2, v2, 0\n    s_waitcnt 0\n", trips) + "    s_endpgm\n"


def stream_source(trips, dwords_per_lane):
    """UNROLL independent LDS reads of `dwords_per_lane` consecutive dwords per lane, then s_waitcnt 0."""
    mnemonic = {1: "ds_read_b32 v6", 4: "ds_read_b128 v[6:9]"}[dwords_per_lane]
    setup = f"    v_mul_lo_u32 v5, v0, {4 * dwords_per_lane}\n"
    body = f"    {mnemonic}, v5, 0\n"
    return setup + f"    s_mov_b32 s22, {trips}\nloop:\n" + body * UNROLL + "    s_waitcnt 0\n" + \
        "    s_sub_u32 s22, s22, 1\n    s_cmp_lg_u32 s22, 0\n    s_cbranch_scc1 loop\n    s_endpgm\n"


def barrier_source(trips):
    return looped("    s_barrier\n", trips) + "    s_endpgm\n"


def atomic_source(trips, one_address, group):
    """buffer_atomic_add of 1 by every lane: at its own dword of a buffer (descriptor at s[0:1]) or at dword 0."""
    address = ("    v_mov_b32 v1, 0\n" if one_address else
               f"    s_get_workgroup_id s20\n    s_mul_i32 s21, s20, {group}\n    v_add_u32 v1, s21, v0\n"
               "    v_lshl_b32 v1, v1, 2\n")
    setup = "    s_load_dwordx4 s[8:11], s[0:1], 0\n    s_waitcnt 0\n" + address + "    v_mov_b32 v3, 1\n"
    return setup + looped("    buffer_atomic_add v3, v1, s[8:11], 0\n", trips) + "    s_endpgm\n"


def run(preset, source, groups, group, lds_bytes=0, buffer_bytes=0, batch_lanes=None, name="bench"):
    """The dispatch's ExecutionStats of `source` over `groups` workgroups of `group` threads on a fresh
    timed Gpu (a buffer of `buffer_bytes`, its descriptor in a table at s[0:1], when asked)."""
    gpu = Gpu(preset)
    if batch_lanes is not None:
        gpu.dispatcher.batch_lanes = batch_lanes
    user = (0, 0)
    if buffer_bytes:
        buf = gpu.memory.allocate(buffer_bytes, "buffer")
        table = gpu.memory.allocate(64, "table")
        write_buffer_descriptor(table.data, 0, buf.gpu_va, buf.size)
        user = (table.gpu_va & 0xFFFFFFFF, table.gpu_va >> 32)
    launch = KernelLaunch(Program(assemble(source), name), groups, group, user, lds_bytes=lds_bytes)
    return gpu.dispatch(launch)


def per_trip(preset, make, trips, **kwargs):
    """Cycles per trip: runs of `trips` and 2 x `trips` trips, differenced (launch and drain cancel)."""
    one = run(preset, make(trips), **kwargs).cycles
    two = run(preset, make(2 * trips), **kwargs).cycles
    return (two - one) / trips


def full_gpu_groups(preset, group):
    """Workgroups enough to fill every CU twice over at full occupancy."""
    waves = -(-group // preset.wave_width)
    resident = max(1, preset.waves_per_simd // waves) * preset.simds_per_cu
    return 2 * preset.compute_units * resident


def latency(preset, trips=8):
    """Cycles per read of one wave's LDS pointer chase."""
    w = preset.wave_width
    return per_trip(preset, chase_source, trips, groups=1, group=w, lds_bytes=64) / UNROLL


def chain(preset, stride=1, trips=8):
    """Cycles per dependent ds_read_b32 (and the v_add making the next address) of one wave at a dword
    stride (0: broadcast)."""
    w = preset.wave_width
    lds = max(4, 4 * max(stride, 1) * w)
    return per_trip(preset, lambda t: chain_source(t, stride), trips, groups=1, group=w, lds_bytes=lds) / UNROLL


def pass_cycles(preset):
    return preset.lds_banks * 4 / preset.lds_bytes_per_cycle


def conflict_passes(preset, stride):
    """Passes of one read at a stride, measured: extra cycles over stride 1 in passes, plus stride 1's."""
    one = expected_passes(preset, 1)
    return one + (chain(preset, stride) - chain(preset, 1)) / pass_cycles(preset)


def expected_passes(preset, stride):
    """The bank rule: the most distinct dwords one bank serves among the wave's lanes."""
    lanes = np.arange(preset.wave_width)
    dwords = lanes * stride
    banks = dwords % preset.lds_banks
    return max(len(set(dwords[banks == b].tolist())) for b in range(preset.lds_banks))


def bandwidth(preset, dwords_per_lane=1, trips=4):
    """LDS bytes read per cycle per CU with every CU full of streaming waves."""
    group = preset.workgroup_size
    groups = full_gpu_groups(preset, group)
    lds = group * 4 * dwords_per_lane
    cycles = per_trip(preset, lambda t: stream_source(t, dwords_per_lane), trips, groups=groups, group=group,
                      lds_bytes=lds)
    moved = groups * group * 4 * dwords_per_lane * UNROLL
    return moved / cycles / preset.compute_units


def barrier(preset, trips=8):
    """Cycles per s_barrier of one 256-thread (or the preset's) workgroup."""
    group = min(256, preset.workgroup_size * 4)
    return per_trip(preset, barrier_source, trips, groups=1, group=group) / UNROLL


def atomics(preset, one_address, trips=2):
    """Lane atomics per cycle, whole GPU: every CU full of waves, buffer_atomic_add without return."""
    group = preset.workgroup_size
    groups = full_gpu_groups(preset, group)
    cycles = per_trip(preset, lambda t: atomic_source(t, one_address, group), trips, groups=groups, group=group,
                      buffer_bytes=groups * group * 4)
    return groups * group * UNROLL / cycles


# Published figures per preset: {measure: (value, source)}; a measure left out has no published figure
# (the preset's figure is an estimate: presets.py says so).
PUBLISHED = {
    "rtx3070": {"latency": (29, "Accel-Sim SM86_RTX3070 gpgpusim.config, -gpgpu_smem_latency 29"),
                "bandwidth": (128, "CUDA C++ Programming Guide, cc 8.x: 32 banks of 32 bits, one access per clock")},
    "h200": {"latency": (29, "Accel-Sim SM90_H100 gpgpusim.config, -gpgpu_smem_latency 29"),
             "bandwidth": (128, "CUDA C++ Programming Guide, cc 9.0: 32 banks of 32 bits, one access per clock")},
    "rx7900xtx": {"bandwidth": (128, "AMD RDNA whitepaper: the LDS half of a CU serves 128 bytes per clock")},
    "rx6800xt": {"bandwidth": (128, "AMD RDNA whitepaper: the LDS half of a CU serves 128 bytes per clock")},
}
STRIDES = (1, 2, 4, 32, 0)      # dword strides of the conflict test (0: every lane on one address)

REPORT_HEAD = """## Workgroups that cooperate: LDS, barriers, atomics

Generated with the rest of this file (tools/fidelity.py; `.venv/bin/python bench/bench_lds.py` prints it
alone); the kernels are assembly in dmlemu.tools.lds_microbench, each figure the difference of two runs
with T and 2T loop trips. Checked by tests/timing/test_lds_timing.py, test_barriers.py and
test_atomics_timing.py. Latency: one wave's LDS pointer chase (ds_read_b32 then s_waitcnt 0), cycles per
read including its issue and one bank pass. Bandwidth: every CU full of waves streaming ds_read_b32 /
ds_read_b128, LDS bytes per cycle per CU. Passes: a dependent chain whose lane l reads dword l x stride;
the extra cycles per read over stride 1, in passes, against the bank rule (the most distinct dwords
one bank serves; a dword many lanes read is one access: CUDA C++ Programming Guide, shared memory bank
conflicts; AMD's LDS the same with its banks). Barrier: cycles per s_barrier of a 256-thread workgroup
(the loop's scalar instructions included: 3 per 8 barriers, issued by each of the workgroup's waves).
Atomics: buffer_atomic_add without return by every CU full of waves, lane atomics per cycle for the
whole GPU, each lane its own dword (distinct) or all on one dword. Published figures where one was
found (model / published; within 25 % is the bound); no published barrier or atomic rate was found
for these GPUs, so those rows show the presets' estimates at work: one address runs at one atomic per
clock (one L2 slice serialises them), distinct addresses at the L2 slices' rate (one sector's lanes
per slice per clock: h200 80 slices x 8 dwords per 32-byte sector = 640) or below it where the CUs' miss
queues bind first (Little's law: sectors in flight over the L2 latency; rtx3070, irisxe).

"""


def table(presets):
    """One row per preset: every measure of the module banner."""
    rows = []
    for preset in presets:
        row = {"preset": preset, "latency": latency(preset), "bandwidth_b32": bandwidth(preset, 1),
               "bandwidth_b128": bandwidth(preset, 4),
               "passes": [(conflict_passes(preset, s), expected_passes(preset, s)) for s in STRIDES],
               "barrier": barrier(preset), "atomics_distinct": atomics(preset, False),
               "atomics_one": atomics(preset, True)}
        rows.append(row)
    return rows


def _against(model, published):
    if published is None:
        return f"{model:.1f} (estimate)"
    return f"{model:.1f} / {published[0]} ({100 * (model - published[0]) / published[0]:+.0f} %)"


def render(rows):
    """The Markdown table of `rows` (table()) and the sources of its published figures."""
    lines = ["| preset | LDS latency (cycles) | bandwidth b32 / b128 (B/cycle/CU) | conflict passes, stride "
             "1 / 2 / 4 / 32 / broadcast (model; rule) | barrier (cycles) | atomics distinct / one address "
             "(per cycle) |", "|---|---:|---:|---|---:|---:|"]
    sources = []
    for row in rows:
        key = row["preset"].key
        published = PUBLISHED.get(key, {})
        bw = published.get("bandwidth")
        passes = " / ".join(f"{m:.2f}" for m, _ in row["passes"]) + "; " + " / ".join(str(r) for _, r in row["passes"])
        lines.append(f"| {key} | {_against(row['latency'], published.get('latency'))} | "
                     f"{row['bandwidth_b32']:.1f} / {row['bandwidth_b128']:.1f}"
                     + (f" vs {bw[0]}" if bw else "") + f" | {passes} | {row['barrier']:.1f} (estimate) | "
                     f"{row['atomics_distinct']:.1f} / {row['atomics_one']:.2f} |")
        sources += [f"- {key}, {measure}: {value[1]}." for measure, value in published.items()]
    return "\n".join(lines) + "\n\nSources of the published figures:\n" + "\n".join(sources) + "\n"
