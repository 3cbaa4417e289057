"""dmlemu.dxgi: the factory, one adapter per preset, adapter descriptions, D3D12CreateDevice on them."""
import pytest

from dmlemu import HResultError
from dmlemu.dxgi import *  # noqa: F401,F403
from dmlemu.com import CStruct
from dmlemu.dxgi import FORMAT_BYTES
from dmlemu.errors import DXGI_ERROR_NOT_FOUND, DXGI_ERROR_UNSUPPORTED, E_INVALIDARG
from dmlemu.presets import DEFAULT_PRESET, PRESETS, TEACHING, preset_by_key


def test_enum_adapters1_lists_every_preset_in_order():
    factory = CreateDXGIFactory1()
    descs = [factory.EnumAdapters1(i).GetDesc1() for i in range(len(PRESETS))]
    for desc, preset in zip(descs, PRESETS):
        assert desc.Description == preset.description
        assert (desc.VendorId, desc.DeviceId) == (preset.vendor_id, preset.device_id)
        assert desc.DedicatedVideoMemory == preset.dedicated_video_memory
        assert (desc.DedicatedSystemMemory, desc.SharedSystemMemory, desc.SubSysId, desc.Revision) == (0, 0, 0, 0)
        assert desc.Flags == DXGI_ADAPTER_FLAG_NONE
    luids = {(d.AdapterLuid.LowPart, d.AdapterLuid.HighPart) for d in descs}
    assert len(luids) == len(PRESETS)


def test_adapter_zero_is_the_default_preset():
    desc = CreateDXGIFactory1().EnumAdapters1(0).GetDesc1()
    assert (desc.Description, desc.VendorId, desc.DeviceId, desc.DedicatedVideoMemory) == (
        DEFAULT_PRESET.description, DEFAULT_PRESET.vendor_id, DEFAULT_PRESET.device_id,
        DEFAULT_PRESET.dedicated_video_memory)


def test_enum_adapters1_past_the_end_is_not_found():
    factory = CreateDXGIFactory1()
    with pytest.raises(HResultError) as error:
        factory.EnumAdapters1(len(PRESETS))
    assert error.value.hresult == DXGI_ERROR_NOT_FOUND == 0x887A0002
    assert error.value.message == (
        f"EnumAdapters1: Adapter {len(PRESETS)} is past the last adapter; the emulator has {len(PRESETS)} "
        f"(indices 0 to {len(PRESETS) - 1}).")


def test_the_classic_enumeration_loop_stops_at_not_found():
    factory = CreateDXGIFactory1()
    names = []
    i = 0
    while True:
        try:
            adapter = factory.EnumAdapters(i)
        except HResultError as error:
            assert error.hresult == DXGI_ERROR_NOT_FOUND
            break
        names.append(adapter.GetDesc().Description)
        i += 1
    assert names == [p.description for p in PRESETS]


def test_negative_index_is_invalid():
    with pytest.raises(HResultError) as error:
        CreateDXGIFactory1().EnumAdapters1(-1)
    assert error.value.hresult == E_INVALIDARG
    assert error.value.message == "EnumAdapters1: Adapter is -1; it must be an index from 0."


def test_get_desc_is_get_desc1_without_flags():
    adapter = CreateDXGIFactory1().EnumAdapters1(2)
    desc, desc1 = adapter.GetDesc(), adapter.GetDesc1()
    assert not hasattr(desc, "Flags")
    assert desc.Description == desc1.Description and desc.AdapterLuid == desc1.AdapterLuid


def test_enum_adapter_by_luid_and_by_preference():
    factory = CreateDXGIFactory1()
    adapter = factory.EnumAdapters1(3)
    assert factory.EnumAdapterByLuid(adapter.GetDesc1().AdapterLuid) == adapter
    with pytest.raises(HResultError) as error:
        factory.EnumAdapterByLuid(LUID(LowPart=7, HighPart=0))
    assert error.value.hresult == DXGI_ERROR_NOT_FOUND
    fastest = factory.EnumAdapterByGpuPreference(0, DXGI_GPU_PREFERENCE_HIGH_PERFORMANCE).GetDesc1()
    slowest = factory.EnumAdapterByGpuPreference(0, DXGI_GPU_PREFERENCE_MINIMUM_POWER).GetDesc1()
    assert (fastest.Description, slowest.Description) == (preset_by_key("h200").description, TEACHING.description)
    assert factory.EnumAdapterByGpuPreference(1, DXGI_GPU_PREFERENCE_UNSPECIFIED) == factory.EnumAdapters1(1)


def test_create_factory2_flags():
    debug_factory = CreateDXGIFactory2(DXGI_CREATE_FACTORY_DEBUG)   # the same adapters as any factory
    assert [debug_factory.EnumAdapters1(i) for i in range(len(PRESETS))] == [
        CreateDXGIFactory1().EnumAdapters1(i) for i in range(len(PRESETS))]
    with pytest.raises(HResultError) as error:
        CreateDXGIFactory2(4)
    assert error.value.message == ("CreateDXGIFactory2: Flags is 4; it must be 0 or DXGI_CREATE_FACTORY_DEBUG (0x1).")


def test_devices_on_adapters_use_their_preset():
    from dmlemu.d3d12 import (CD3DX12_HEAP_PROPERTIES, CD3DX12_RESOURCE_DESC, D3D_FEATURE_LEVEL_11_0,
                              D3D12_FEATURE_D3D12_OPTIONS1, D3D12_FEATURE_DATA_D3D12_OPTIONS1, D3D12_HEAP_TYPE_DEFAULT,
                              D3D12CreateDevice)
    from dmlemu.errors import E_OUTOFMEMORY
    factory = CreateDXGIFactory1()
    teaching = factory.EnumAdapters1(PRESETS.index(TEACHING))
    device = D3D12CreateDevice(teaching, D3D_FEATURE_LEVEL_11_0)
    assert device.GetAdapterLuid() == teaching.GetDesc1().AdapterLuid
    options = device.CheckFeatureSupport(D3D12_FEATURE_D3D12_OPTIONS1, D3D12_FEATURE_DATA_D3D12_OPTIONS1())
    assert (options.WaveLaneCountMin, options.TotalLaneCount) == (
        TEACHING.wave_width, TEACHING.compute_units * TEACHING.simds_per_cu * TEACHING.wave_width)
    with pytest.raises(HResultError) as error:   # the adapter's memory is the device's
        device.CreateCommittedResource(CD3DX12_HEAP_PROPERTIES(D3D12_HEAP_TYPE_DEFAULT), 0,
                                       CD3DX12_RESOURCE_DESC.Buffer(TEACHING.dedicated_video_memory + 1), 0, None)
    assert error.value.hresult == E_OUTOFMEMORY
    assert f"the adapter has {TEACHING.dedicated_video_memory} bytes" in error.value.message
    default_device = D3D12CreateDevice(None, D3D_FEATURE_LEVEL_11_0)   # None: adapter 0, the default preset
    assert default_device.GetAdapterLuid() == factory.EnumAdapters1(0).GetDesc1().AdapterLuid


def test_d3d12_create_device_feature_levels():
    from dmlemu.d3d12 import D3D_FEATURE_LEVEL_9_3, D3D_FEATURE_LEVEL_12_2, D3D12CreateDevice
    with pytest.raises(HResultError) as error:
        D3D12CreateDevice(None, D3D_FEATURE_LEVEL_12_2)
    assert error.value.hresult == DXGI_ERROR_UNSUPPORTED
    assert error.value.message == (
        "D3D12CreateDevice: MinimumFeatureLevel is D3D_FEATURE_LEVEL_12_2, but AMD Radeon RX 7900 XTX (emulated) "
        "supports up to D3D_FEATURE_LEVEL_12_1.")
    with pytest.raises(HResultError) as error:
        D3D12CreateDevice(None, D3D_FEATURE_LEVEL_9_3)
    assert error.value.hresult == E_INVALIDARG
    with pytest.raises(HResultError) as error:
        D3D12CreateDevice("gpu", 0xB000)
    assert error.value.message == ("D3D12CreateDevice: pAdapter is 'gpu'; it must be an adapter from dmlemu.dxgi "
                                   "(EnumAdapters1) or None for the default adapter.")


def test_structs_take_c_field_names_and_are_mutable():
    desc = DXGI_SAMPLE_DESC(Count=1)
    assert (desc.Count, desc.Quality) == (1, 0)
    desc.Quality = 3
    assert desc == DXGI_SAMPLE_DESC(1, 3)
    assert isinstance(desc, CStruct)
    with pytest.raises(TypeError):
        DXGI_SAMPLE_DESC(Samples=4)
    with pytest.raises(AttributeError):
        desc.Samples = 4
    assert DXGI_ADAPTER_DESC1().AdapterLuid == LUID(0, 0)  # embedded structs default to zeroed structs


def test_format_values_and_sizes():
    assert (DXGI_FORMAT_UNKNOWN, DXGI_FORMAT_R32G32B32A32_FLOAT, DXGI_FORMAT_R32_TYPELESS, DXGI_FORMAT_R32_FLOAT,
            DXGI_FORMAT_R16_FLOAT, DXGI_FORMAT_R8_UINT) == (0, 2, 39, 41, 54, 62)
    assert FORMAT_BYTES[DXGI_FORMAT_R32G32B32A32_FLOAT] == 16
    assert FORMAT_BYTES[DXGI_FORMAT_R16G16B16A16_FLOAT] == 8
    assert FORMAT_BYTES[DXGI_FORMAT_R32_UINT] == 4
    assert FORMAT_BYTES[DXGI_FORMAT_R16_FLOAT] == 2
    assert FORMAT_BYTES[DXGI_FORMAT_R8_SINT] == 1
