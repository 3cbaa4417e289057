"""DXGI: the factory that lists the emulated GPUs as adapters.

One factory per CreateDXGIFactory1 call; one adapter per entry of dmlemu.presets.PRESETS, in that
order (EnumAdapters1(0) is the default adapter D3D12CreateDevice(None, ...) uses). An adapter is a
description only: it holds its preset (`adapter._preset`) and creates nothing; D3D12CreateDevice
builds the emulated GPU. This module also holds what DXGI shares with D3D12 (DXGI_FORMAT,
DXGI_SAMPLE_DESC).

Memory figures: DedicatedVideoMemory is the preset's memory budget; DedicatedSystemMemory and
SharedSystemMemory are not modelled and read 0. AdapterLuid is deterministic: HighPart 0,
LowPart 0x1000 + the adapter's index.

WARP: IDXGIFactory4::EnumWarpAdapter returns the adapter of dmlemu.presets.WARP (Microsoft's software
rasteriser on a CPU), index len(PRESETS), after the hardware adapters. As on Windows its desc has
DXGI_ADAPTER_FLAG_SOFTWARE, VendorId 0x1414 and DeviceId 0x8C, and its memory is system memory:
DedicatedVideoMemory 0 and SharedSystemMemory the preset's budget. EnumAdapters1 lists the hardware
presets only (on Windows the Microsoft Basic Render Driver is also listed last); EnumAdapterByLuid
finds WARP by its LUID.
"""
from dmlemu.com import c_enum, define_struct
from dmlemu.errors import DXGI_ERROR_NOT_FOUND, E_INVALIDARG, HResultError
from dmlemu.com import as_guid
from dmlemu.presets import PRESETS, SOFTWARE_PRESETS, WARP

__all__ = [
    "CreateDXGIFactory", "CreateDXGIFactory1", "CreateDXGIFactory2", "IDXGIFactory", "IDXGIAdapter",
    "DXGI_ADAPTER_DESC", "DXGI_ADAPTER_DESC1", "LUID", "DXGI_SAMPLE_DESC",
    "DXGI_CREATE_FACTORY_DEBUG", "DXGI_ERROR_NOT_FOUND",
]


# ---- structs ----------------------------------------------------------------------------------------
define_struct(globals(), "LUID", "A locally unique identifier: LowPart (DWORD), HighPart (LONG).",
              [("LowPart", 0), ("HighPart", 0)])
define_struct(globals(), "DXGI_SAMPLE_DESC", "Multisampling: Count and Quality (buffers use Count 1, Quality 0).",
              [("Count", 0), ("Quality", 0)])
define_struct(globals(), "DXGI_ADAPTER_DESC", "IDXGIAdapter::GetDesc: what the adapter is.", [
    ("Description", ""), ("VendorId", 0), ("DeviceId", 0), ("SubSysId", 0), ("Revision", 0),
    ("DedicatedVideoMemory", 0), ("DedicatedSystemMemory", 0), ("SharedSystemMemory", 0), ("AdapterLuid", LUID)])
define_struct(globals(), "DXGI_ADAPTER_DESC1", "IDXGIAdapter1::GetDesc1: GetDesc's fields plus Flags.", [
    ("Description", ""), ("VendorId", 0), ("DeviceId", 0), ("SubSysId", 0), ("Revision", 0),
    ("DedicatedVideoMemory", 0), ("DedicatedSystemMemory", 0), ("SharedSystemMemory", 0), ("AdapterLuid", LUID),
    ("Flags", 0)])


# ---- enums ------------------------------------------------------------------------------------------
c_enum(globals(), "DXGI_ADAPTER_FLAG", "DXGI_ADAPTER_FLAG_", [("NONE", 0), ("REMOTE", 1), ("SOFTWARE", 2)], flag=True)
c_enum(globals(), "DXGI_GPU_PREFERENCE", "DXGI_GPU_PREFERENCE_", [
    ("UNSPECIFIED", 0), ("MINIMUM_POWER", 1), ("HIGH_PERFORMANCE", 2)])
# The uncompressed single-plane formats of dxgiformat.h the mirror knows (values as in C): buffer views and
# textures (emulator/d3d12/texture_layout.py lists what each is for).
c_enum(globals(), "DXGI_FORMAT", "DXGI_FORMAT_", [
    ("UNKNOWN", 0),
    ("R32G32B32A32_TYPELESS", 1), ("R32G32B32A32_FLOAT", 2), ("R32G32B32A32_UINT", 3), ("R32G32B32A32_SINT", 4),
    ("R32G32B32_TYPELESS", 5), ("R32G32B32_FLOAT", 6), ("R32G32B32_UINT", 7), ("R32G32B32_SINT", 8),
    ("R16G16B16A16_TYPELESS", 9), ("R16G16B16A16_FLOAT", 10), ("R16G16B16A16_UNORM", 11),
    ("R16G16B16A16_UINT", 12), ("R16G16B16A16_SNORM", 13), ("R16G16B16A16_SINT", 14),
    ("R32G32_TYPELESS", 15), ("R32G32_FLOAT", 16), ("R32G32_UINT", 17), ("R32G32_SINT", 18),
    ("R10G10B10A2_TYPELESS", 23), ("R10G10B10A2_UNORM", 24), ("R10G10B10A2_UINT", 25),
    ("R8G8B8A8_TYPELESS", 27), ("R8G8B8A8_UNORM", 28), ("R8G8B8A8_UNORM_SRGB", 29), ("R8G8B8A8_UINT", 30),
    ("R8G8B8A8_SNORM", 31), ("R8G8B8A8_SINT", 32),
    ("R16G16_TYPELESS", 33), ("R16G16_FLOAT", 34), ("R16G16_UNORM", 35), ("R16G16_UINT", 36),
    ("R16G16_SNORM", 37), ("R16G16_SINT", 38),
    ("R32_TYPELESS", 39), ("D32_FLOAT", 40), ("R32_FLOAT", 41), ("R32_UINT", 42), ("R32_SINT", 43),
    ("R8G8_TYPELESS", 48), ("R8G8_UNORM", 49), ("R8G8_UINT", 50), ("R8G8_SNORM", 51), ("R8G8_SINT", 52),
    ("R16_TYPELESS", 53), ("R16_FLOAT", 54), ("D16_UNORM", 55), ("R16_UNORM", 56), ("R16_UINT", 57),
    ("R16_SNORM", 58), ("R16_SINT", 59),
    ("R8_TYPELESS", 60), ("R8_UNORM", 61), ("R8_UINT", 62), ("R8_SNORM", 63), ("R8_SINT", 64),
    ("B8G8R8A8_UNORM", 87), ("B8G8R8X8_UNORM", 88), ("B8G8R8A8_TYPELESS", 90), ("B8G8R8A8_UNORM_SRGB", 91)])

# Bytes per element of each format above, from the bits of its channels.
FORMAT_BYTES = {0: 0}
for _member in DXGI_FORMAT:  # noqa: F821 (defined by c_enum)
    if _member.value:
        _layout = _member.name[len("DXGI_FORMAT_"):].split("_")[0]  # "R32G32B32A32", "D16", ...
        _bits = sum(int(part) for part in "".join(c if c.isdigit() else " " for c in _layout).split())
        FORMAT_BYTES[_member.value] = _bits // 8

DXGI_CREATE_FACTORY_DEBUG = 0x1
DXGI_MAX_ADAPTER_INDEX = len(PRESETS)


# ---- factory and adapters ---------------------------------------------------------------------------
class IDXGIAdapter:
    """One emulated GPU, as DXGI describes it (IDXGIAdapter / IDXGIAdapter1)."""

    def __init__(self, index, preset):
        self._index = index
        self._preset = preset

    def GetDesc1(self):
        """DXGI_ADAPTER_DESC1 of the preset: its name, PCI ids, memory budget and LUID."""
        p = self._preset
        dedicated, shared = (0, p.dedicated_video_memory) if p.software else (p.dedicated_video_memory, 0)
        return DXGI_ADAPTER_DESC1(
            Description=p.description, VendorId=p.vendor_id, DeviceId=p.device_id, SubSysId=0, Revision=0,
            DedicatedVideoMemory=dedicated, DedicatedSystemMemory=0, SharedSystemMemory=shared,
            AdapterLuid=self._luid(),
            Flags=DXGI_ADAPTER_FLAG_SOFTWARE if p.software else DXGI_ADAPTER_FLAG_NONE)  # noqa: F821

    def GetDesc(self):
        """DXGI_ADAPTER_DESC: GetDesc1 without Flags."""
        d = self.GetDesc1()
        return DXGI_ADAPTER_DESC(**{name: getattr(d, name) for name in DXGI_ADAPTER_DESC._fields_})

    def _luid(self):
        return LUID(LowPart=0x1000 + self._index, HighPart=0)

    def __eq__(self, other):
        return isinstance(other, IDXGIAdapter) and other._index == self._index and other._preset == self._preset

    def __hash__(self):
        return hash((self._index, self._preset.key))

    def __repr__(self):
        return f"<IDXGIAdapter {self._index}: {self._preset.description}>"


def _power_rank(preset):
    """Peak issue rate, the order DXGI_GPU_PREFERENCE_HIGH_PERFORMANCE lists adapters in."""
    return preset.compute_units * preset.simds_per_cu * preset.wave_width * preset.clock_hz


class IDXGIFactory:
    """IDXGIFactory1 .. IDXGIFactory6: enumerates one adapter per emulated GPU preset."""

    def __init__(self, flags=0):
        self._flags = flags

    def EnumAdapters1(self, Adapter):
        """The adapter at index `Adapter`; DXGI_ERROR_NOT_FOUND past the last preset."""
        return IDXGIAdapter(self._check_index("EnumAdapters1", Adapter), PRESETS[Adapter])

    def EnumAdapters(self, Adapter):
        """IDXGIFactory::EnumAdapters: the same adapters as EnumAdapters1."""
        return IDXGIAdapter(self._check_index("EnumAdapters", Adapter), PRESETS[Adapter])

    def EnumAdapterByGpuPreference(self, Adapter, GpuPreference, riid=None):
        """IDXGIFactory6: adapters ordered by preference (HIGH_PERFORMANCE: fastest first)."""
        if GpuPreference not in tuple(DXGI_GPU_PREFERENCE):  # noqa: F821
            raise HResultError(E_INVALIDARG, f"EnumAdapterByGpuPreference: GpuPreference is {GpuPreference!r}; "
                                             "it must be a DXGI_GPU_PREFERENCE value (0, 1 or 2).")
        self._check_index("EnumAdapterByGpuPreference", Adapter)
        order = list(range(len(PRESETS)))
        if GpuPreference != DXGI_GPU_PREFERENCE_UNSPECIFIED:  # noqa: F821
            order.sort(key=lambda i: _power_rank(PRESETS[i]),
                       reverse=GpuPreference == DXGI_GPU_PREFERENCE_HIGH_PERFORMANCE)  # noqa: F821
        index = order[Adapter]
        return IDXGIAdapter(index, PRESETS[index])

    def EnumWarpAdapter(self, riid=None):
        """IDXGIFactory4: the WARP adapter (dmlemu.presets.WARP), for D3D12CreateDevice like any other (the
        C riid/ppvAdapter pair becomes the return value; riid, when given, must be a GUID)."""
        if riid is not None:
            try:
                as_guid(riid, "riid")
            except HResultError as error:
                raise HResultError(error.hresult, f"EnumWarpAdapter: {error.message}") from None
        return IDXGIAdapter(len(PRESETS), WARP)

    def EnumAdapterByLuid(self, AdapterLuid, riid=None):
        """IDXGIFactory4: the adapter with this LUID (WARP's included); DXGI_ERROR_NOT_FOUND when none has it."""
        for index, preset in enumerate(PRESETS + SOFTWARE_PRESETS):
            adapter = IDXGIAdapter(index, preset)
            luid = adapter._luid()
            if (getattr(AdapterLuid, "LowPart", None), getattr(AdapterLuid, "HighPart", None)) == (
                    luid.LowPart, luid.HighPart):
                return adapter
        raise HResultError(DXGI_ERROR_NOT_FOUND, f"EnumAdapterByLuid: no adapter has LUID {AdapterLuid!r}.")

    def IsCurrent(self):
        return True

    @staticmethod
    def _check_index(method, index):
        if not isinstance(index, int) or isinstance(index, bool) or index < 0:
            raise HResultError(E_INVALIDARG, f"{method}: Adapter is {index!r}; it must be an index from 0.")
        if index >= len(PRESETS):
            raise HResultError(
                DXGI_ERROR_NOT_FOUND,
                f"{method}: Adapter {index} is past the last adapter; the emulator has {len(PRESETS)} "
                f"(indices 0 to {len(PRESETS) - 1}).")
        return index

    def __repr__(self):
        return "<IDXGIFactory>"


def CreateDXGIFactory1(riid=None):
    """A DXGI factory (the C REFIID/void** pair becomes the return value; riid is ignored)."""
    return IDXGIFactory()


def CreateDXGIFactory(riid=None):
    return IDXGIFactory()


def CreateDXGIFactory2(Flags=0, riid=None):
    """CreateDXGIFactory2: Flags may be 0 or DXGI_CREATE_FACTORY_DEBUG."""
    if Flags not in (0, DXGI_CREATE_FACTORY_DEBUG):
        raise HResultError(E_INVALIDARG, f"CreateDXGIFactory2: Flags is {Flags!r}; it must be 0 or "
                                         "DXGI_CREATE_FACTORY_DEBUG (0x1).")
    return IDXGIFactory(Flags)
