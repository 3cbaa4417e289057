"""ClearUnorderedAccessViewUint / ClearUnorderedAccessViewFloat (emulator/d3d12/clear.py): what they write,
what they refuse while recording (Close -> E_INVALIDARG naming the call), state and hazard rules at execution."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from dmlemu.d3d12 import *  # noqa: F401,F403
from dmlemu.d3d12 import inspect
from dmlemu.errors import DXGI_ERROR_INVALID_CALL, E_INVALIDARG, HResultError
from dmlemu.presets import TEACHING
from mirror_rig import MirrorRig, removal
from operator_cases import scaled


class ClearRig(MirrorRig):
    """A D3D12 rig with a 64-byte UAV buffer, a shader-visible heap set on the list and a CPU-only heap."""

    def __init__(self, size=64):
        super().__init__(TEACHING)
        self.target = self.buffer(size)
        self.visible = self.shader_visible_heap(4)
        self.cpu_heap = self.device.CreateDescriptorHeap(D3D12_DESCRIPTOR_HEAP_DESC(
            Type=D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, NumDescriptors=4))
        self.heap = self.visible   # execute() sets it on the list again after each Reset
        self.set_heap_on(self.list)

    def view(self, fmt=DXGI_FORMAT_R32_UINT, first=0, count=16, flags=0, stride=0, resource=None):
        desc = D3D12_UNORDERED_ACCESS_VIEW_DESC(Format=fmt, ViewDimension=D3D12_UAV_DIMENSION_BUFFER,
                                                Buffer=D3D12_BUFFER_UAV(FirstElement=first, NumElements=count,
                                                                        StructureByteStride=stride, Flags=flags))
        for heap in (self.visible, self.cpu_heap):
            self.device.CreateUnorderedAccessView(resource or self.target, None, desc,
                                                  heap.GetCPUDescriptorHandleForHeapStart())
        return self.visible.GetGPUDescriptorHandleForHeapStart(), self.cpu_heap.GetCPUDescriptorHandleForHeapStart()

    def clear(self, values, is_float=False, rects=None, **view):
        gpu, cpu = self.view(**view)
        method = self.list.ClearUnorderedAccessViewFloat if is_float else self.list.ClearUnorderedAccessViewUint
        method(gpu, cpu, self.target, values, 0 if rects is None else len(rects), rects)
        self.execute()
        return self.read(self.target)

    def close_error(self):
        with pytest.raises(HResultError) as info:
            self.list.Close()
        assert info.value.hresult == E_INVALIDARG
        return info.value.message


def test_uint_clear_of_a_typed_view_writes_each_element_and_nothing_else():
    rig = ClearRig()
    got = rig.clear([0xDEADBEEF, 1, 2, 3], fmt=DXGI_FORMAT_R32_UINT, first=2, count=5)
    expected = np.zeros(16, np.uint32)
    expected[2:7] = 0xDEADBEEF
    assert np.array_equal(got.view(np.uint32), expected)


def test_uint_clear_of_a_multichannel_format_takes_the_low_bits_of_each_channel():
    rig = ClearRig()
    got = rig.clear([0x1FF, 0x102, 0x3, 0x4], fmt=DXGI_FORMAT_R8G8B8A8_UINT, count=16)
    assert np.array_equal(got.reshape(16, 4), np.tile(np.array([0xFF, 0x02, 0x03, 0x04], np.uint8), (16, 1)))
    rig2 = ClearRig()
    got = rig2.clear([0x11111111, 0x22222222, 0x33333333, 0x44444444], fmt=DXGI_FORMAT_R32G32B32A32_UINT, count=4)
    assert np.array_equal(got.view(np.uint32), np.tile(np.array([0x11111111, 0x22222222, 0x33333333, 0x44444444],
                                                                np.uint32), 4))


def test_uint_clear_of_a_float_view_copies_bits_without_conversion():
    rig = ClearRig()
    got = rig.clear([0xFFFFFFFF, 0, 0, 0], fmt=DXGI_FORMAT_R32_FLOAT, count=16)
    assert np.all(got == 0xFF)   # PyDirectML's FillGpuBuffer: the bytes read back as NaN


def test_uint_clear_of_raw_and_structured_views_writes_values0_in_every_word():
    rig = ClearRig()
    got = rig.clear([0xCAFEF00D, 7, 7, 7], fmt=DXGI_FORMAT_R32_TYPELESS, flags=D3D12_BUFFER_UAV_FLAG_RAW,
                    first=4, count=8)
    words = got.view(np.uint32)
    assert np.all(words[4:12] == 0xCAFEF00D) and np.all(words[:4] == 0) and np.all(words[12:] == 0)
    rig2 = ClearRig()
    got = rig2.clear([5, 9, 9, 9], fmt=DXGI_FORMAT_UNKNOWN, stride=8, first=1, count=2)
    assert np.array_equal(got.view(np.uint32), np.array([0, 0, 5, 5, 5, 5] + [0] * 10, np.uint32))


def test_float_clear_converts_to_float16_unorm_and_snorm():
    rig = ClearRig()
    got = rig.clear([1.0 / 3.0, 0, 0, 0], is_float=True, fmt=DXGI_FORMAT_R16_FLOAT, count=32)
    assert np.all(got.view(np.uint16) == np.float16(1.0 / 3.0).view(np.uint16))
    rig2 = ClearRig()
    got = rig2.clear([0.5, 2.0, -1.0, float("nan")], is_float=True, fmt=DXGI_FORMAT_R8G8B8A8_UNORM, count=16)
    assert np.array_equal(got.reshape(16, 4)[0], np.array([128, 255, 0, 0], np.uint8))
    rig3 = ClearRig()
    got = rig3.clear([-0.5, 0, 0, 0], is_float=True, fmt=DXGI_FORMAT_R16_SNORM, count=32)
    assert np.all(got.view(np.int16) == -16384)   # rint(-0.5 * 32767) = -16384 (ties to even)


def test_rects_select_elements_of_the_view():
    rig = ClearRig()
    got = rig.clear([9, 0, 0, 0], fmt=DXGI_FORMAT_R32_UINT, first=4, count=8,
                    rects=[D3D12_RECT(left=1, top=0, right=3, bottom=1), D3D12_RECT(left=6, top=0, right=8, bottom=1)])
    expected = np.zeros(16, np.uint32)
    expected[[5, 6, 10, 11]] = 9
    assert np.array_equal(got.view(np.uint32), expected)


@given(fmt=st.sampled_from([DXGI_FORMAT_R32_UINT, DXGI_FORMAT_R16_UINT, DXGI_FORMAT_R8_UINT,
                            DXGI_FORMAT_R16G16_UINT, DXGI_FORMAT_R32G32_UINT, DXGI_FORMAT_R32G32B32A32_UINT]),
       values=st.lists(st.integers(0, 2**32 - 1), min_size=4, max_size=4), first=st.integers(0, 3),
       count=st.integers(1, 4))
def test_uint_clear_matches_a_numpy_oracle(fmt, values, first, count):
    """Any typed UINT view: element bytes = each channel's low bits; the rest of the buffer stays zero."""
    rig = ClearRig(128)
    channels = {DXGI_FORMAT_R32_UINT: (np.uint32, 1), DXGI_FORMAT_R16_UINT: (np.uint16, 1),
                DXGI_FORMAT_R8_UINT: (np.uint8, 1), DXGI_FORMAT_R16G16_UINT: (np.uint16, 2),
                DXGI_FORMAT_R32G32_UINT: (np.uint32, 2), DXGI_FORMAT_R32G32B32A32_UINT: (np.uint32, 4)}[fmt]
    dtype, n = channels
    element = np.array([v & np.iinfo(dtype).max for v in values[:n]], dtype=dtype)
    expected = np.zeros(128, np.uint8)
    size = element.nbytes
    for i in range(first, first + count):
        expected[i * size:(i + 1) * size] = element.view(np.uint8)
    assert np.array_equal(rig.clear(values, fmt=fmt, first=first, count=count), expected)


# The float clear's NumPy model: format -> (kind, channel bits from the lowest), per D3D's conversion rules.
_FLOAT_FORMATS = {
    DXGI_FORMAT_R32_FLOAT: ("FLOAT", (32,)), DXGI_FORMAT_R16_FLOAT: ("FLOAT", (16,)),
    DXGI_FORMAT_R32G32_FLOAT: ("FLOAT", (32, 32)), DXGI_FORMAT_R16G16B16A16_FLOAT: ("FLOAT", (16, 16, 16, 16)),
    DXGI_FORMAT_R32G32B32A32_FLOAT: ("FLOAT", (32, 32, 32, 32)),
    DXGI_FORMAT_R8_UNORM: ("UNORM", (8,)), DXGI_FORMAT_R16_UNORM: ("UNORM", (16,)),
    DXGI_FORMAT_R8G8B8A8_UNORM: ("UNORM", (8, 8, 8, 8)), DXGI_FORMAT_R16G16B16A16_UNORM: ("UNORM", (16, 16, 16, 16)),
    DXGI_FORMAT_R8_SNORM: ("SNORM", (8,)), DXGI_FORMAT_R8G8_SNORM: ("SNORM", (8, 8)),
    DXGI_FORMAT_R16G16_SNORM: ("SNORM", (16, 16)),
    DXGI_FORMAT_R8G8B8A8_SNORM: ("SNORM", (8, 8, 8, 8)),
}


def _model_channel(value, kind, bits):
    """One channel's bits: FLOAT32 as is, FLOAT16 rounded to nearest even (NumPy's cast), UNORM / SNORM clamped,
    scaled by 2^n - 1 (2^(n-1) - 1) and rounded to nearest even, NaN to 0, SNORM in two's complement."""
    v = np.array([value], np.float32)
    if kind == "FLOAT":
        with np.errstate(over="ignore"):
            return int(v.view(np.uint32)[0]) if bits == 32 else int(v.astype(np.float16).view(np.uint16)[0])
    x = 0.0 if np.isnan(v[0]) else float(v[0])
    low, scale = (0.0, 2**bits - 1) if kind == "UNORM" else (-1.0, 2**(bits - 1) - 1)
    return int(np.rint(min(max(x, low), 1.0) * scale)) % 2**bits


_FLOAT_VALUES = st.one_of(st.floats(width=32), st.sampled_from([0.5 / 255, 1.5 / 255, -0.0, 0.5 / 127, 65520.0,
                                                               65519.99, 2.0**-25, 2.0**-24 * 1.5]))


@settings(max_examples=scaled(100), deadline=None)
@given(fmt=st.sampled_from(sorted(_FLOAT_FORMATS)), values=st.lists(_FLOAT_VALUES, min_size=4, max_size=4),
       first=st.integers(0, 2), count=st.integers(1, 3))
def test_float_clear_matches_a_numpy_model(fmt, values, first, count):
    """Any FLOAT / UNORM / SNORM view, any FLOAT values (NaN, infinities, ties, FLOAT16 overflow): each element is
    the model's channels packed from the lowest bits; bytes outside the selected elements stay zero."""
    kind, channels = _FLOAT_FORMATS[fmt]
    element, shift = 0, 0
    for index, bits in enumerate(channels):
        element |= _model_channel(values[index], kind, bits) << shift
        shift += bits
    size = shift // 8
    expected = np.zeros(128, np.uint8)
    for i in range(first, first + count):
        expected[i * size:(i + 1) * size] = np.frombuffer(element.to_bytes(size, "little"), np.uint8)
    rig = ClearRig(128)
    assert np.array_equal(rig.clear(values, is_float=True, fmt=fmt, first=first, count=count), expected)


# ---- recording errors ---------------------------------------------------------------------------------
def _errors(setup):
    rig = ClearRig()
    gpu, cpu = rig.view()
    call = setup(rig, gpu, cpu)
    call()
    return rig.close_error()


@pytest.mark.parametrize("case, sentence", [
    ("gpu_not_in_set_heap",
     "ClearUnorderedAccessViewUint: ViewGPUHandleInCurrentHeap is in descriptor heap #3, but the CBV_SRV_UAV heap "
     "set on command list #1 is descriptor heap #1; set it with SetDescriptorHeaps first."),
    ("cpu_in_visible_heap",
     "ClearUnorderedAccessViewUint: ViewCPUHandle is in descriptor heap #1, which is shader-visible; it must name a "
     "descriptor in a heap that is not shader-visible."),
    ("wrong_resource",
     "ClearUnorderedAccessViewUint: ViewCPUHandle's descriptor (slot 0 of descriptor heap #2) is not an "
     "unordered-access view of pResource buffer #2."),
    ("values",
     "ClearUnorderedAccessViewUint: Values is [1, 2, 3]; it must be the C array of 4 UINT values."),
    ("value_range", "ClearUnorderedAccessViewUint: Values[1] is -1; it must be a UINT (0 to 4294967295)."),
    ("rect",
     "ClearUnorderedAccessViewUint: pRects[0] is (left 2, top 0, right 99, bottom 1); for a buffer view of 16 "
     "elements it must have 0 <= left <= right <= 16, top 0 and bottom 1."),
    ("rect_count", "ClearUnorderedAccessViewUint: NumRects is 2 but pRects holds 1 rects."),
    ("float_raw",
     "ClearUnorderedAccessViewFloat: the view is a RAW buffer view; ClearUnorderedAccessViewFloat needs a view of a "
     "FLOAT, UNORM or SNORM format (clear RAW and structured views with ClearUnorderedAccessViewUint)."),
    ("float_uint",
     "ClearUnorderedAccessViewFloat: the view's format is DXGI_FORMAT_R32_UINT; ClearUnorderedAccessViewFloat clears "
     "only FLOAT, UNORM and SNORM formats (use ClearUnorderedAccessViewUint)."),
    ("no_uav_flag",
     "ClearUnorderedAccessViewUint: pResource buffer #2 was created without D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS."),
])
def test_recording_errors_fail_close_with_a_sentence(case, sentence):
    def setup(rig, gpu, cpu):
        clear = rig.list.ClearUnorderedAccessViewUint
        if case == "gpu_not_in_set_heap":
            other = rig.shader_visible_heap(1)
            return lambda: clear(other.GetGPUDescriptorHandleForHeapStart(), cpu, rig.target, [0] * 4, 0, None)
        if case == "cpu_in_visible_heap":
            return lambda: clear(gpu, rig.visible.GetCPUDescriptorHandleForHeapStart(), rig.target, [0] * 4, 0, None)
        if case == "wrong_resource":
            other = rig.buffer(64)
            return lambda: clear(gpu, cpu, other, [0] * 4, 0, None)
        if case == "values":
            return lambda: clear(gpu, cpu, rig.target, [1, 2, 3], 0, None)
        if case == "value_range":
            return lambda: clear(gpu, cpu, rig.target, [1, -1, 0, 0], 0, None)
        if case == "rect":
            return lambda: clear(gpu, cpu, rig.target, [0] * 4, 1, [D3D12_RECT(left=2, top=0, right=99, bottom=1)])
        if case == "rect_count":
            return lambda: clear(gpu, cpu, rig.target, [0] * 4, 2, [D3D12_RECT(left=0, top=0, right=1, bottom=1)])
        if case == "float_raw":
            gpu2, cpu2 = rig.view(fmt=DXGI_FORMAT_R32_TYPELESS, flags=D3D12_BUFFER_UAV_FLAG_RAW)
            return lambda: rig.list.ClearUnorderedAccessViewFloat(gpu2, cpu2, rig.target, [0.0] * 4, 0, None)
        if case == "float_uint":
            return lambda: rig.list.ClearUnorderedAccessViewFloat(gpu, cpu, rig.target, [0.0] * 4, 0, None)
        if case == "no_uav_flag":
            plain = rig.buffer(64, uav=False)
            return lambda: clear(gpu, cpu, plain, [0] * 4, 0, None)
        raise AssertionError(case)
    assert _errors(setup) == f"Close: command list #1 recorded an invalid call, so it cannot be executed: {sentence}"


def test_a_clear_needs_unordered_access_at_execution():
    rig = ClearRig()
    gpu, cpu = rig.view()
    rig.list.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.Transition(rig.target, D3D12_RESOURCE_STATE_COMMON,
                                                                  D3D12_RESOURCE_STATE_COPY_SOURCE)])
    rig.list.ClearUnorderedAccessViewUint(gpu, cpu, rig.target, [1, 0, 0, 0], 0, None)
    rig.list.Close()
    rig.queue.ExecuteCommandLists([rig.list])
    reason, message = removal(rig.device)
    assert reason == DXGI_ERROR_INVALID_CALL
    assert "the resource of ClearUnorderedAccessViewUint needs buffer #1 in D3D12_RESOURCE_STATE_UNORDERED_ACCESS, " \
           "but it is in D3D12_RESOURCE_STATE_COPY_SOURCE" in message


def test_a_clear_is_a_timed_dispatch_and_a_hazard_without_a_uav_barrier():
    rig = ClearRig()
    gpu, cpu = rig.view()
    before = rig.gpu.clock_cycles
    rig.list.ClearUnorderedAccessViewUint(gpu, cpu, rig.target, [1, 0, 0, 0], 0, None)
    rig.list.ClearUnorderedAccessViewUint(gpu, cpu, rig.target, [2, 0, 0, 0], 0, None)
    rig.execute()
    assert rig.gpu.clock_cycles > before
    assert getattr(rig.device, "_hazard_count", 0) == 1   # write-after-write: no UAV barrier between the clears
    rig.list.ClearUnorderedAccessViewUint(gpu, cpu, rig.target, [3, 0, 0, 0], 0, None)
    rig.list.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.UAV(rig.target)])
    rig.list.ClearUnorderedAccessViewUint(gpu, cpu, rig.target, [4, 0, 0, 0], 0, None)
    rig.execute()
    assert inspect(rig.device).hazard_count == 1
    assert np.all(rig.read(rig.target).view(np.uint32) == 4)


def test_a_copy_list_cannot_clear():
    rig = MirrorRig(TEACHING, list_type=D3D12_COMMAND_LIST_TYPE_COPY)
    rig.list.ClearUnorderedAccessViewUint(D3D12_GPU_DESCRIPTOR_HANDLE(), D3D12_CPU_DESCRIPTOR_HANDLE(), None,
                                          [0] * 4, 0, None)
    with pytest.raises(HResultError) as info:
        rig.list.Close()
    assert info.value.message.endswith("ClearUnorderedAccessViewUint: command list #1 is a "
                                       "D3D12_COMMAND_LIST_TYPE_COPY list; this method needs a "
                                       "D3D12_COMMAND_LIST_TYPE_DIRECT or D3D12_COMMAND_LIST_TYPE_COMPUTE list.")
