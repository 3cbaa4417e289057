"""ID3D12Object / ID3D12DeviceChild: what every D3D12 object of the mirror shares.

One base class under every device child (queues, allocators, command lists, resources, heaps,
fences, query heaps). It holds the object's device and a debug label ("buffer #3", or the name given
to SetName) used in error sentences, and QueryInterface over the table of interfaces each class
implements (INTERFACES: C interface names; IIDs in enums.py). The calling conventions (HRESULT and void methods) are
dmlemu.com's; for D3D12 a void method's misuse removes the device with DXGI_ERROR_INVALID_CALL
(unless the misuse says otherwise), and, with the debug layer on (D3D12GetDebugInterface().
EnableDebugLayer() before D3D12CreateDevice), also raises at once as an HResultError so the bad call
is the line that fails. Command list recording methods handle their own misuse (the list goes into an
error state; see command_list.py).
"""
from dmlemu.com import COMObject, hresult_method, query_interface
from dmlemu.d3d12.enums import INTERFACE_IIDS
from dmlemu.errors import DXGI_ERROR_DEVICE_REMOVED, E_INVALIDARG, HResultError, hresult_name


def invalid_arg(method_name, message):
    """An E_INVALIDARG HResultError whose sentence starts with the method's name."""
    return HResultError(E_INVALIDARG, f"{method_name}: {message}")


def removed_error(method_name, reason):
    """The DXGI_ERROR_DEVICE_REMOVED error raised by HRESULT methods once the device is removed."""
    code, message = reason
    return HResultError(
        DXGI_ERROR_DEVICE_REMOVED,
        f"{method_name}: the device was removed earlier ({hresult_name(code)}): {message}")


# QueryInterface: the interfaces each class implements, as C interface names (d3d12.h's inheritance:
# ID3D12Object <- ID3D12DeviceChild <- [ID3D12Pageable <-] the object's own interfaces).
_PAGEABLE = ("ID3D12Object", "ID3D12DeviceChild", "ID3D12Pageable")
INTERFACES = {
    "ID3D12Device": ("ID3D12Object", "ID3D12Device", "ID3D12Device1", "ID3D12Device2", "ID3D12Device3",
                     "ID3D12Device4"),
    "ID3D12CommandQueue": _PAGEABLE + ("ID3D12CommandQueue",),
    "ID3D12CommandAllocator": _PAGEABLE + ("ID3D12CommandAllocator",),
    "ID3D12GraphicsCommandList": ("ID3D12Object", "ID3D12DeviceChild", "ID3D12CommandList",
                                  "ID3D12GraphicsCommandList"),
    "ID3D12Resource": _PAGEABLE + ("ID3D12Resource",),
    "ID3D12Heap": _PAGEABLE + ("ID3D12Heap",),
    "ID3D12Fence": _PAGEABLE + ("ID3D12Fence", "ID3D12Fence1"),   # Fence1 adds only GetCreationFlags
    "ID3D12DescriptorHeap": _PAGEABLE + ("ID3D12DescriptorHeap",),
    "ID3D12QueryHeap": _PAGEABLE + ("ID3D12QueryHeap",),
    "ID3D12RootSignature": ("ID3D12Object", "ID3D12DeviceChild", "ID3D12RootSignature"),
    "ID3D12PipelineState": _PAGEABLE + ("ID3D12PipelineState",),
}


def interfaces_of(obj):
    """{IID: C interface name} of the interfaces `obj` implements (its class's, or the nearest base's)."""
    for cls in type(obj).__mro__:
        names = INTERFACES.get(cls.__name__)
        if names is not None:
            return {INTERFACE_IIDS[name]: name for name in names}
    return {INTERFACE_IIDS["ID3D12Object"]: "ID3D12Object", INTERFACE_IIDS["ID3D12DeviceChild"]: "ID3D12DeviceChild"}


def query_d3d12_interface(obj, riid):
    """IUnknown::QueryInterface for a D3D12 object: `obj` itself for every interface it implements;
    E_NOINTERFACE otherwise. A COM call, so it works on a removed device too."""
    return query_interface(obj, riid, interfaces_of(obj), obj._label, "QueryInterface")


class DeviceChild(COMObject):
    """Base of every object a D3D12 device creates: its device, a label and SetName."""

    _kind = "object"  # the label's noun: "buffer", "fence", ...

    def __init__(self, device):
        self._device = device
        self._name = ""
        self._serial = device._next_serial(self._kind)

    @property
    def _label(self):
        """How error sentences name this object: its SetName name, or its kind and number."""
        return f"{self._kind} {self._name!r}" if self._name else f"{self._kind} #{self._serial}"

    @hresult_method
    def SetName(self, Name):
        """ID3D12Object::SetName: the name error sentences (and traces) use for this object."""
        if Name is not None and not isinstance(Name, str):
            raise invalid_arg("SetName", f"Name is {Name!r}; it must be a string or None.")
        self._name = Name or ""

    def GetName(self):
        """The name given to SetName ("" when none); the C API reads it through GetPrivateData."""
        return self._name

    def QueryInterface(self, riid):
        """IUnknown::QueryInterface: this object for any interface it implements (the C ppvObject is the
        return value); E_NOINTERFACE otherwise. Works after device removal, as COM calls do."""
        return query_d3d12_interface(self, riid)

    @hresult_method
    def GetDevice(self, riid=None):
        """ID3D12DeviceChild::GetDevice: the device that created this object."""
        return self._device

    def __repr__(self):
        return f"<{type(self).__name__} {self._label}>"
