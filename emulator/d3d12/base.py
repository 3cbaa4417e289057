"""ID3D12Object / ID3D12DeviceChild: what every D3D12 object of the mirror shares.

One base class under every device child (queues, allocators, command lists, resources, heaps,
fences, query heaps). It holds the object's device and a debug label ("buffer #3", or the name given
to SetName) used in error sentences. The calling conventions (HRESULT and void methods) are
dmlemu.com's; for D3D12 a void method's misuse removes the device with DXGI_ERROR_INVALID_CALL
(unless the misuse says otherwise), and, with the debug layer on (D3D12GetDebugInterface().
EnableDebugLayer() before D3D12CreateDevice), also raises at once as an HResultError so the bad call
is the line that fails. Command list recording methods handle their own misuse (the list goes into an
error state; see command_list.py).
"""
from dmlemu.com import COMObject, hresult_method
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

    @hresult_method
    def GetDevice(self, riid=None):
        """ID3D12DeviceChild::GetDevice: the device that created this object."""
        return self._device

    def __repr__(self):
        return f"<{type(self).__name__} {self._label}>"
