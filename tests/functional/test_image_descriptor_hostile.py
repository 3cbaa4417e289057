"""Hostile image descriptors and coordinates (issue 30): image_load / image_store through eight descriptor dwords a
kernel could hold (random format codes, geometry, pitches, view dimensions, first mip / slice / count, a buffer part of
any size, not an image at all) and any uint32 coordinates. The documented outcome (docs/TEXTURES.md, "Out of range";
emulator/functional/image_descriptor.py): a lane whose texel is not wholly inside the view's geometry and the
descriptor's bytes reads 0 and its store is dropped, counted out of range; a lane inside loads and stores its texel.
Checked: the fast executor agrees with the per-lane reference bit for bit (loaded values, stored bytes, counts), no byte
outside the descriptor's range changes (a neighbour allocation, guard bytes), nothing but a result comes out.
bench/hostile_census.py entry "image descriptors"."""
import numpy as np
from hypothesis import HealthCheck, given, settings, strategies as st

from dmlemu.functional.buffer_descriptor import write_buffer_descriptor
from dmlemu.functional.image_descriptor import IMAGE_BIT, unpack_image_descriptor
from dmlemu.functional.texel_formats import FORMATS
from dmlemu.functional.wave_dispatcher import KernelLaunch
from dmlemu.gpu import Gpu
from dmlemu.isa.assembler import assemble
from dmlemu.isa.program import Program
from dmlemu.presets import TEACHING
from operator_cases import ACCEPTED, REFUSED, outcome, scaled
from reference_executor import run_launch

WIDTH, LANES = 8, 16          # two waves of eight lanes
# s[8:15] the loaded view, s[16:23] the stored view, s[24:27] the coordinates, s[28:31] the dump of loaded values.
KERNEL = """
    s_load_dwordx8 s[8:15], s[0:1], 0
    s_load_dwordx8 s[16:23], s[0:1], 32
    s_load_dwordx4 s[24:27], s[0:1], 64
    s_load_dwordx4 s[28:31], s[0:1], 80
    s_waitcnt 0
    s_mul_i32 s32, s2, 8
    v_add_u32 v1, s32, v0
    v_lshl_b32 v2, v1, 4
    buffer_load_dword v4, v2, s[24:27], 0
    buffer_load_dword v5, v2, s[24:27], 4
    buffer_load_dword v6, v2, s[24:27], 8
    buffer_load_dword v7, v2, s[24:27], 12
    s_waitcnt 0
    image_load v[8:11], v[4:7], s[8:15]
    s_waitcnt 0
    image_store v[8:11], v[4:7], s[16:23]
    buffer_store_dword v8, v2, s[28:31], 0
    buffer_store_dword v9, v2, s[28:31], 4
    buffer_store_dword v10, v2, s[28:31], 8
    buffer_store_dword v11, v2, s[28:31], 12
    s_endpgm
"""
PROGRAM = Program(assemble(KERNEL), "image_hostile")
FORMAT_CODES = sorted(FORMATS)
WORDS = st.one_of(st.integers(0, 2 ** 32 - 1), st.sampled_from([0, 1, 0xFFFFFFFF, 0x3FFF, 0xFFFFFF, 1 << 31]))
COORDS = st.one_of(st.integers(0, 3), st.integers(0, 3), st.integers(0, 3), st.integers(0, 9),
                   st.sampled_from([0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 16383, 16384]), st.integers(0, 2 ** 32 - 1))
MIPS = st.one_of(st.just(0), st.just(0), st.just(0), st.integers(0, 2), COORDS)


@st.composite
def descriptor_words(draw):
    """Dwords 4 to 7: a mirror format or any code, any geometry words, bit 30 (an image) usually set, small sizes
    often (so that some lanes land inside)."""
    fmt = draw(st.one_of(st.sampled_from(FORMAT_CODES), WORDS))
    if draw(st.booleans()):
        w, h, mips = draw(st.integers(0, 7)), draw(st.integers(0, 5)), draw(st.integers(0, 2))
        word5 = w | h << 14 | mips << 28
    else:
        word5 = draw(WORDS)
    word6 = draw(st.integers(0, 4)) | draw(st.integers(0, 7)) << 24 if draw(st.booleans()) else draw(WORDS)
    if draw(st.booleans()):       # mip 0 or 1, first slice 0 or 1, count 0 to 3
        word7 = draw(st.integers(0, 1)) | draw(st.integers(0, 1)) << 4 | draw(st.integers(0, 3)) << 16
    else:
        word7 = draw(WORDS)
    if draw(st.integers(0, 4)):
        word7 |= IMAGE_BIT
    return [fmt, word5, word6, word7]


@settings(max_examples=scaled(40), deadline=None, suppress_health_check=list(HealthCheck))
@given(load=descriptor_words(), store=descriptor_words(), sizes=st.tuples(*[st.one_of(st.integers(0, 4096), st.just(4096))] * 2),
       coords=st.lists(st.tuples(COORDS, COORDS, COORDS, MIPS), min_size=LANES, max_size=LANES), seed=st.integers(0, 2 ** 32 - 1))
def test_hostile_image_descriptors_touch_only_their_bytes_and_match_the_reference(load, store, sizes, coords, seed):
    inside = run_case(load, store, sizes, coords, seed)
    outcome(ACCEPTED if inside else REFUSED)      # REFUSED: every lane out of range (its documented outcome)


def run_case(load, store, sizes, coords, seed):
    """Both executors on one drawn case, checked; the number of lanes whose load or store was in range."""
    rng = np.random.default_rng(seed)
    texels = rng.integers(0, 256, 4096, dtype=np.uint8)
    runs = []
    for _ in range(2):                                           # the fast executor, then the reference
        gpu = Gpu(TEACHING, wave_width=WIDTH, guard_bytes=64)
        src, dst = gpu.memory.allocate(4096, "src"), gpu.memory.allocate(4096, "dst")
        neighbour = gpu.memory.allocate(4096, "neighbour")
        src.data[:], dst.data[:], neighbour.data[:] = texels, texels[::-1], 0x5A
        where = gpu.memory.allocate(16 * LANES, "coordinates")
        where.data[:] = np.array(coords, "<u4").reshape(-1).view(np.uint8)
        dump = gpu.memory.allocate(16 * LANES, "dump")
        table = gpu.memory.allocate(96, "table")
        table.data[:] = 0
        for at, allocation, size, words in ((0, src, sizes[0], load), (32, dst, sizes[1], store)):
            write_buffer_descriptor(table.data, at, allocation.gpu_va, min(size, allocation.size))
            table.data[at + 16:at + 32] = np.array(words, "<u4").view(np.uint8)
        write_buffer_descriptor(table.data, 64, where.gpu_va, where.size)
        write_buffer_descriptor(table.data, 80, dump.gpu_va, dump.size)
        runs.append((gpu, src, dst, neighbour, dump,
                     KernelLaunch(PROGRAM, LANES // WIDTH, WIDTH, (table.gpu_va & 0xFFFFFFFF, table.gpu_va >> 32))))
    (gpu, src, dst, neighbour, dump, launch), (ref_gpu, _, ref_dst, _, ref_dump, ref_launch) = runs
    stats = gpu.dispatch(launch)
    ref_stats = run_launch(ref_launch, ref_gpu.memory, WIDTH)
    assert np.array_equal(dump.data, ref_dump.data), "loaded values differ from the reference"
    assert np.array_equal(dst.data, ref_dst.data), "stored texels differ from the reference"
    assert (stats.oob_reads, stats.oob_writes) == (ref_stats.oob_reads, ref_stats.oob_writes)
    # Nothing outside the store descriptor's bytes changed: the rest of dst, the source, the neighbour, the guards.
    assert np.array_equal(dst.data[min(sizes[1], 4096):], texels[::-1][min(sizes[1], 4096):])
    assert np.array_equal(src.data, texels) and (neighbour.data == 0x5A).all()
    gpu.memory.verify_guards()
    ref_gpu.memory.verify_guards()
    inside = 2 * LANES - stats.oob_reads - stats.oob_writes
    if unpack_image_descriptor(np.array([0, 0, 16, 1] + load, np.uint32)) is None:
        assert (dump.data == 0).all()                # not an image descriptor: every load reads 0
    return inside


def test_a_store_through_an_srgb_descriptor_is_dropped_as_out_of_range():
    """Found by the long census: descriptor words of R8G8B8A8_UNORM_SRGB (no typed UAV has an sRGB format, so only
    forged words get there) let texel_formats' ValueError out of image_store; the store is dropped and counted out of
    range, in both executors; a load through it converts as any sRGB view's."""
    fmt, texture_2d = 29, 2 << 24                     # DXGI_FORMAT_R8G8B8A8_UNORM_SRGB, a 1 x 1 TEXTURE2D
    one = IMAGE_BIT | 1 << 16                         # one array slice
    assert run_case([fmt, 0, texture_2d, one], [fmt, 0, texture_2d, one], (4096, 4096),
                    [(0, 0, 0, 0)] * LANES, 0) == LANES         # the loads in range, every store dropped
