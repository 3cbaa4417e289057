"""image_load / image_store: the texel conversions (emulator/functional/texel_formats.py), the image
descriptor's addressing (image_descriptor.py), and the fast executor against the per-lane reference
executor, bit for bit, on random views, formats, coordinates (in and out of range) and wave widths."""
import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from dmlemu.d3d12.clear import element_pattern
from dmlemu.dxgi import DXGI_FORMAT
from dmlemu.functional.buffer_descriptor import mark_read_only, write_buffer_descriptor
from dmlemu.functional.image_descriptor import mip_chain, stamp_image_view, unpack_image_descriptor
from dmlemu.functional.texel_formats import FORMATS, SRGB_TO_LINEAR, decode, encode
from dmlemu.functional.wave_dispatcher import KernelLaunch
from dmlemu.gpu import Gpu
from dmlemu.isa import opcodes as op
from dmlemu.isa.assembler import assemble
from dmlemu.isa.program import Program
from dmlemu.presets import TEACHING
from reference_executor import run_launch

F = {f.name: f for f in FORMATS.values()}
FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def f32(bits):
    return np.array(bits, dtype=np.uint32).view(np.float32)


def load(name, *texel_bytes):
    return decode(F[name], np.array([texel_bytes], dtype=np.uint8))[:, 0]


# ---- the conversions ------------------------------------------------------------------------------
def test_the_rows_are_charged_as_buffer_accesses():
    for name, kind in (("image_load", "load"), ("image_store", "store")):
        entry = op.BY_MNEMONIC[name]
        assert (entry.kind, entry.unit, entry.image, entry.fmt) == (kind, op.VMEM, True, "MIMG")
        assert entry.latency_cycles == op.BY_MNEMONIC["buffer_load_dword"].latency_cycles


def test_unorm_snorm_and_missing_components_load_as_d3d_defines():
    r, g, b, a = f32(load("R8G8B8A8_UNORM", 0, 255, 128, 1))
    assert (r, g, b, a) == (0.0, 1.0, np.float32(128) / np.float32(255), np.float32(1) / np.float32(255))
    assert f32(load("R8G8B8A8_SNORM", 0x80, 0x81, 0x7F, 0)).tolist() == [-1.0, -1.0, 1.0, 0.0]
    assert f32(load("R32_FLOAT", 0, 0, 0xC0, 0x3F)).tolist() == [1.5, 0.0, 0.0, 1.0]      # G, B 0; A 1.0
    assert load("R8_UINT", 200).tolist() == [200, 0, 0, 1]                                  # integer A is 1
    assert load("R16G16_SINT", 0xFF, 0xFF, 0x00, 0x80).view(np.int32).tolist() == [-1, -32768, 0, 1]
    assert f32(load("B8G8R8A8_UNORM", 255, 0, 0, 255)).tolist() == [0.0, 0.0, 1.0, 1.0]    # B in byte 0
    assert f32(load("B8G8R8X8_UNORM", 0, 0, 255, 7)).tolist() == [1.0, 0.0, 0.0, 1.0]      # X is missing
    word = (1023 | 0 << 10 | 512 << 20 | 2 << 30).to_bytes(4, "little")
    r, g, b, a = f32(load("R10G10B10A2_UNORM", *word))
    assert (r, g, b, a) == (1.0, 0.0, np.float32(512) / np.float32(1023), np.float32(2) / np.float32(3))
    assert f32(load("R16_FLOAT", 0x00, 0x3C))[0] == 1.0


def test_srgb_loads_follow_the_curve_monotonically_from_0_to_1():
    table = f32(SRGB_TO_LINEAR)
    assert table[0] == 0.0 and table[255] == 1.0 and (np.diff(table) > 0).all()
    assert abs(float(table[128]) - ((128 / 255 + 0.055) / 1.055) ** 2.4) < 1e-7
    assert f32(load("R8G8B8A8_UNORM_SRGB", 10, 128, 255, 128)).tolist()[3] == np.float32(128) / np.float32(255)


@FAST
@given(st.lists(st.floats(width=32, allow_nan=True), min_size=4, max_size=4),
       st.sampled_from(sorted(n for n, f in F.items() if f.kind in ("FLOAT", "UNORM", "SNORM") and n[0] != "D")))
def test_a_float_store_writes_what_clear_unordered_access_view_float_writes(values, name):
    """One conversion rule for a texel, whether a shader stores it or ClearUnorderedAccessViewFloat fills it."""
    fmt = F[name]
    words = np.array(values, dtype=np.float32).view(np.uint32).reshape(4, 1)
    stored = encode(fmt, words)[0]
    cleared = element_pattern("ClearUnorderedAccessViewFloat", fmt.value, False, 0, values, True)
    # the clear narrows a NaN with NumPy (payload kept), a store canonicalises it (v_cvt_f16_f32)
    assume(fmt.kind != "FLOAT" or not np.isnan(np.array(values, dtype=np.float32)).any())
    assert stored.tolist() == cleared.tolist()


@FAST
@given(st.data())
def test_every_texel_loads_and_stores_back_to_itself(data):
    name = data.draw(st.sampled_from(sorted(n for n, f in F.items() if f.kind != "UNORM_SRGB")))
    fmt = F[name]
    texels = np.array(data.draw(st.lists(st.lists(st.integers(0, 255), min_size=fmt.texel_bytes,
                                                  max_size=fmt.texel_bytes), min_size=1, max_size=8)), dtype=np.uint8)
    words = decode(fmt, texels)
    back = encode(fmt, words)
    for before, after, word in zip(texels, back, words.T):
        if fmt.kind == "SNORM" or (fmt.kind == "FLOAT" and np.isnan(f32(word)).any()) or "X8" in name:
            continue        # -2^(n-1) reads as -1.0 and stores as -2^(n-1) + 1; NaNs canonicalise; X is 0
        assert before.tolist() == after.tolist(), name


def test_integer_stores_saturate_and_unorm_stores_round_to_nearest_even():
    words = np.array([[300], [0xFFFFFFFF], [5], [0]], dtype=np.uint32)
    assert encode(F["R8G8B8A8_UINT"], words)[0].tolist() == [255, 255, 5, 0]
    words = np.array([[0xFFFFFF80], [200], [0x80000000], [0x7FFFFFFF]], dtype=np.uint32)   # -128, 200, min, max
    assert encode(F["R8G8B8A8_SINT"], words)[0].view(np.int8).tolist() == [-128, 127, -128, 127]
    half_step = np.float32(0.5) / np.float32(255)          # 0.5 / 255: exactly halfway between codes 0 and 1
    words = np.array([[half_step], [np.float32(1.5) / 255], [np.nan], [-3.0]], dtype=np.float32).view(np.uint32)
    codes = encode(F["R8G8B8A8_UNORM"], words)[0].tolist()
    exact = [float(half_step) * 255, float(np.float32(1.5) / 255) * 255]
    assert codes == [round(exact[0]), round(exact[1]), 0, 0]


# ---- the descriptor ----------------------------------------------------------------------------------
def test_the_descriptor_round_trips_and_keeps_a_texture_uavs_stamp():
    slot = np.zeros(32, dtype=np.uint8)
    write_buffer_descriptor(slot, 0, 0x1234500, 99999)
    slot[28:32] = np.array([1 << 31], dtype="<u4").view(np.uint8)
    stamp_image_view(slot, 0, 28, 16384, 3, 15, 512 * 7, "TEXTURE2DARRAY", 2, 5, 2048 - 5)
    view = unpack_image_descriptor(slot.view("<u4"))
    assert (view.va, view.size, view.format, view.width, view.height, view.mips, view.array_pitch, view.dimension,
            view.first_mip, view.first, view.count) == (0x1234500, 99999, 28, 16384, 3, 15, 3584, 3, 2, 5, 2043)
    assert slot.view("<u4")[7] >> 30 == 0b11
    assert unpack_image_descriptor(np.zeros(8, dtype=np.uint32)) is None


# ---- fast executor against the reference ---------------------------------------------------------------
KERNEL = """
    s_load_dwordx8 s[8:15], s[0:1], 0
    s_load_dwordx8 s[16:23], s[0:1], 32
    s_load_dwordx4 s[24:27], s[0:1], 64
    s_waitcnt 0
    s_mul_i32 s30, s2, {group}
    v_add_u32 v1, s30, v0
    v_and_b32 v4, v1, {xmask}
    v_lshr_b32 v5, v1, {yshift}
    v_and_b32 v5, v5, {ymask}
    v_lshr_b32 v6, v1, {zshift}
    v_and_b32 v6, v6, 3
    v_lshr_b32 v7, v1, {mshift}
    v_and_b32 v7, v7, 1
    {exec}
    image_load v[8:11], v[4:7], s[8:15]
    s_waitcnt 0
    image_store v[8:11], v[4:7], s[16:23]
    v_lshl_b32 v12, v1, 4
    buffer_store_dword v8, v12, s[24:27], 0
    buffer_store_dword v9, v12, s[24:27], 4
    buffer_store_dword v10, v12, s[24:27], 8
    buffer_store_dword v11, v12, s[24:27], 12
    s_endpgm
"""
LOADABLE = sorted(n for n in F)
STORABLE = sorted(n for n, f in F.items() if f.kind != "UNORM_SRGB")


def _random_view(rng, name):
    fmt = F[name]
    dimension = str(rng.choice(["TEXTURE1D", "TEXTURE1DARRAY", "TEXTURE2D", "TEXTURE2DARRAY", "TEXTURE3D"]))
    width, height = int(rng.integers(1, 9)), 1 if dimension.startswith("TEXTURE1D") else int(rng.integers(1, 6))
    mips = int(rng.integers(1, 3))
    first, count = (int(rng.integers(0, 2)), int(rng.integers(1, 4))) if dimension == "TEXTURE3D" else (0, 1)
    if dimension.endswith("ARRAY"):
        count = int(rng.integers(1, 4))
    view = unpack_image_descriptor(_stamped(fmt.value, width, height, mips, 0, dimension, 0, first, count, 10 ** 6))
    chain = mip_chain(view, fmt.texel_bytes)
    offset, w, h, d, pitch = chain[-1]
    slice_bytes = -(-(offset + pitch * (h * d - 1) + w * fmt.texel_bytes) // 512) * 512
    pitch = slice_bytes if dimension.endswith("ARRAY") else 0
    total = slice_bytes * (count if pitch else 1) + int(rng.integers(0, 64))
    return (fmt.value, width, height, mips, pitch, dimension, 0, first, count), total


def _stamped(fmt, width, height, mips, pitch, dimension, mip, first, count, size, va=0x100000):
    slot = np.zeros(32, dtype=np.uint8)
    write_buffer_descriptor(slot, 0, va, size)
    stamp_image_view(slot, 0, fmt, width, height, mips, pitch, dimension, mip, first, count)
    return slot.view("<u4")


def run_image_kernel(seed, width):
    rng = np.random.default_rng(seed)
    source, source_size = _random_view(rng, str(rng.choice(LOADABLE)))
    target, target_size = _random_view(rng, str(rng.choice(STORABLE)))
    group, groups = int(rng.integers(1, 3 * width)), int(rng.integers(1, 4))
    exec_line = ("v_cmp_gt_u32 vcc, {}, v1\n    s_and_b64 exec, exec, vcc".format(int(rng.integers(1, 200)))
                 if rng.random() < 0.4 else "")
    text = KERNEL.format(group=group, xmask=7, yshift=3, ymask=7, zshift=6, mshift=8, exec=exec_line)
    program = Program(assemble(text), f"image{seed}")
    read_only = rng.random() < 0.15
    texels = rng.integers(0, 256, source_size, dtype=np.uint8)
    lanes = group * groups
    out = []
    for _ in range(2):
        gpu = Gpu(TEACHING, wave_width=width)
        gpu.dispatcher.batch_lanes = width * int(rng.integers(1, 3))
        src = gpu.memory.allocate(source_size, "src")
        src.data[:] = texels
        dst = gpu.memory.allocate(target_size, "dst")
        dump = gpu.memory.allocate(16 * lanes, "dump")
        table = gpu.memory.allocate(96, "table")
        table.data[0:32] = _stamped(*source, source_size, va=src.gpu_va).view(np.uint8)
        table.data[32:64] = _stamped(*target, target_size, va=dst.gpu_va).view(np.uint8)
        if read_only:
            mark_read_only(table.data, 32)
        write_buffer_descriptor(table.data, 64, dump.gpu_va, dump.size)
        out.append((gpu, dst, dump, KernelLaunch(program, groups, group, (table.gpu_va & 0xFFFFFFFF, table.gpu_va >> 32))))
    (fast_gpu, fast_dst, fast_dump, launch), (ref_gpu, ref_dst, ref_dump, ref_launch) = out
    stats = fast_gpu.dispatch(launch)
    ref_stats = run_launch(ref_launch, ref_gpu.memory, width)
    assert np.array_equal(fast_dump.data, ref_dump.data), "loaded values differ"
    assert np.array_equal(fast_dst.data, ref_dst.data), "stored texels differ"
    assert (stats.oob_reads, stats.oob_writes) == (ref_stats.oob_reads, ref_stats.oob_writes)
    assert stats.readonly_writes == getattr(ref_stats, "readonly_writes", 0)
    return stats


@pytest.mark.parametrize("seed", range(24))
def test_image_loads_and_stores_match_the_reference(seed):
    run_image_kernel(seed, int(np.random.default_rng(seed).choice([4, 8, 16, 32, 64])))


def test_out_of_range_loads_read_zero_in_all_four_components_and_stores_are_dropped():
    gpu = Gpu(TEACHING, wave_width=8)
    src = gpu.memory.allocate(4096, "src")
    src.data[:] = 0xFF
    dst = gpu.memory.allocate(4096, "dst")
    dump = gpu.memory.allocate(16 * 64, "dump")
    table = gpu.memory.allocate(96, "table")
    fmt = int(DXGI_FORMAT.DXGI_FORMAT_R8G8B8A8_UNORM)
    table.data[0:32] = _stamped(fmt, 3, 2, 1, 0, "TEXTURE2D", 0, 0, 1, 4096, va=src.gpu_va).view(np.uint8)
    table.data[32:64] = _stamped(fmt, 2, 2, 1, 0, "TEXTURE2D", 0, 0, 1, 4096, va=dst.gpu_va).view(np.uint8)
    write_buffer_descriptor(table.data, 64, dump.gpu_va, dump.size)
    program = Program(assemble(KERNEL.format(group=64, xmask=7, yshift=3, ymask=7, zshift=30, mshift=30, exec="")))
    stats = gpu.dispatch(KernelLaunch(program, 1, 64, (table.gpu_va & 0xFFFFFFFF, table.gpu_va >> 32)))
    values = dump.data.view(np.uint32).reshape(8, 8, 4)          # [y][x][component]
    assert (values[:2, :3] == 0x3F800000).all() and (values[2:] == 0).all() and (values[:, 3:] == 0).all()
    assert (stats.oob_reads, stats.oob_writes) == (64 - 6, 64 - 4)
    written = dst.data[:512].reshape(2, 256)
    assert (written[:, :8] == 0xFF).all() and not written[:, 8:].any() and not dst.data[512:].any()
