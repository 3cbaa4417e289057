"""WARP: IDXGIFactory4::EnumWarpAdapter, the software adapter backed by dmlemu.presets.WARP, usable
wherever an adapter is taken (D3D12CreateDevice, DMLCreateDevice, run_operator, `dmlemu run --adapter`)."""
import subprocess
import sys

import numpy as np
import pytest

from dmlemu import HResultError, golden
from dmlemu.convenience import run_operator
from dmlemu.d3d12 import (
    D3D_FEATURE_LEVEL_11_0, D3D12_FEATURE_ARCHITECTURE1, D3D12_FEATURE_DATA_ARCHITECTURE1, D3D12CreateDevice,
)
from dmlemu.directml import (
    DML_BUFFER_TENSOR_DESC, DML_CREATE_DEVICE_FLAG_NONE, DML_ELEMENT_WISE_CLIP_OPERATOR_DESC,
    DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DESC, DML_TENSOR_TYPE_BUFFER, DMLCreateDevice,
)
from dmlemu.dxgi import DXGI_ADAPTER_FLAG_SOFTWARE, CreateDXGIFactory1, CreateDXGIFactory2
from dmlemu.errors import E_INVALIDARG
from dmlemu.presets import PRESETS, SOFTWARE_PRESETS, WARP, preset_by_key, preset_problem
from dmlemu.tools.adapters import format_adapters

ROOT = __file__.rsplit("/tests/", 1)[0]


def test_enum_warp_adapter_describes_the_microsoft_basic_render_driver():
    adapter = CreateDXGIFactory1().EnumWarpAdapter()
    desc = adapter.GetDesc1()
    assert (desc.VendorId, desc.DeviceId) == (0x1414, 0x8C)
    assert desc.Flags == DXGI_ADAPTER_FLAG_SOFTWARE == 2
    assert desc.Description == "Microsoft Basic Render Driver (emulated)"
    # System memory: nothing dedicated, the budget is shared system memory.
    assert (desc.DedicatedVideoMemory, desc.DedicatedSystemMemory, desc.SharedSystemMemory) == (
        0, 0, WARP.dedicated_video_memory)
    assert adapter.GetDesc().AdapterLuid == desc.AdapterLuid


def test_the_warp_adapter_has_its_own_luid_and_enum_adapter_by_luid_finds_it():
    factory = CreateDXGIFactory2(0)
    warp = factory.EnumWarpAdapter()
    luids = {(factory.EnumAdapters1(i).GetDesc1().AdapterLuid.LowPart) for i in range(len(PRESETS))}
    assert warp.GetDesc1().AdapterLuid.LowPart not in luids
    assert factory.EnumAdapterByLuid(warp.GetDesc1().AdapterLuid) == warp
    assert factory.EnumWarpAdapter("1bc6ea02-ef36-464f-bf0c-21ca39e5168a") == warp   # IID_IDXGIAdapter4


def test_enum_adapters1_lists_the_hardware_presets_only():
    factory = CreateDXGIFactory1()
    assert WARP not in PRESETS and SOFTWARE_PRESETS == (WARP,)
    assert all(not factory.EnumAdapters1(i).GetDesc1().Flags for i in range(len(PRESETS)))


@pytest.mark.parametrize("riid", ["not a guid", 12, object()])
def test_enum_warp_adapter_refuses_an_riid_that_is_not_a_guid(riid):
    with pytest.raises(HResultError) as info:
        CreateDXGIFactory1().EnumWarpAdapter(riid)
    assert info.value.hresult == E_INVALIDARG
    assert info.value.message == f"EnumWarpAdapter: riid is {riid!r}; it must be a GUID (uuid.UUID or its string)."


def test_the_warp_preset_is_buildable_and_every_figure_has_a_source():
    assert preset_problem(WARP) is None
    assert preset_by_key("warp") is WARP
    assert WARP.software and WARP.uma and not any(p.software for p in PRESETS)
    assert all(isinstance(s, str) and s for s in WARP.sources)
    assert any(s.startswith("Estimate") for s in WARP.sources)


def test_a_device_on_warp_is_uma_and_runs_directml():
    device = D3D12CreateDevice(CreateDXGIFactory1().EnumWarpAdapter(), D3D_FEATURE_LEVEL_11_0)
    data = device.CheckFeatureSupport(D3D12_FEATURE_ARCHITECTURE1, D3D12_FEATURE_DATA_ARCHITECTURE1())
    assert (data.UMA, data.CacheCoherentUMA) == (1, 1)
    assert "Microsoft Basic Render Driver" in repr(device)
    dml = DMLCreateDevice(device, DML_CREATE_DEVICE_FLAG_NONE)
    assert dml.GetParentDevice() is device


@pytest.mark.parametrize("adapter", ["warp", WARP, "EnumWarpAdapter"])
def test_run_operator_on_warp_is_bit_exact(adapter):
    if adapter == "EnumWarpAdapter":
        adapter = CreateDXGIFactory1().EnumWarpAdapter()
    x = np.linspace(-3, 3, 300, dtype=np.float32)
    t = DML_TENSOR_DESC(Type=DML_TENSOR_TYPE_BUFFER, Desc=DML_BUFFER_TENSOR_DESC(
        DataType=DML_TENSOR_DATA_TYPE_FLOAT32, Sizes=[300], TotalTensorSizeInBytes=1200))
    [y] = run_operator(DML_ELEMENT_WISE_CLIP_OPERATOR_DESC(InputTensor=t, OutputTensor=t, Min=-1.0, Max=2.0), [x],
                       adapter=adapter)
    assert np.array_equal(y.view(np.uint32), golden.clip(x, -1.0, 2.0).view(np.uint32))


def test_dmlemu_adapters_lists_warp_with_its_sources():
    text = format_adapters()
    row = next(line for line in text.splitlines() if line.split()[:2] == ["warp", "warp"])
    assert row.split()[2:5] == ["8", "2", "8"]
    assert "warp: Microsoft Basic Render Driver (emulated)" in text
    assert all(source in text for source in WARP.sources)


def test_dmlemu_run_takes_the_warp_adapter():
    result = subprocess.run([sys.executable, "-m", "dmlemu", "run", "CLIP", "--sizes", "256", "--adapter", "warp"],
                            cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "on Microsoft Basic Render Driver (emulated)" in result.stdout
    assert "bit-exact against dmlemu.golden: yes" in result.stdout
