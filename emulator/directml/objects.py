"""The DirectML interface hierarchy shared by every object: IDMLObject, IDMLDeviceChild, IDMLPageable,
IDMLDispatchable.

IDMLObject carries a debug name and private data; every child keeps a strong reference to its
device (`_device`, as in DirectML), and every method of a child first asks the device whether it was
removed. The calling conventions are dmlemu.com's `hresult_method` (device removed ->
DXGI_ERROR_DEVICE_REMOVED; failures reported to the debug layer and raised as HResultError) and
`void_method` for Bind* / RecordDispatch (a no-op once the device is removed; a VoidMisuse removes the
device with E_INVALIDARG). Sentences name methods as "IDMLBindingTable.BindInputs".
"""
from dmlemu.com import COMObject, as_guid, hresult_method, query_interface
from dmlemu.errors import DXGI_ERROR_NOT_FOUND, E_INVALIDARG, HResultError, describe
from dmlemu.directml import enums


_guid = as_guid
# IID -> C interface name, for QueryInterface's sentences.
_INTERFACE_NAMES = {getattr(enums, name): name[len("IID_"):] for name in dir(enums) if name.startswith("IID_")}


class IDMLObject(COMObject):
    """Base of every DirectML object: a name, private data and QueryInterface."""

    _iids = (enums.IID_IDMLObject,)

    def __init__(self, dml_device):
        self._device = dml_device
        self._name = ""
        self._private_data = {}

    def _call_name(self, method_name):
        return f"{type(self).__name__}.{method_name}"

    @hresult_method
    def QueryInterface(self, riid):
        """Returns this object when it implements `riid`; E_NOINTERFACE otherwise."""
        interfaces = {iid: _INTERFACE_NAMES.get(iid, str(iid)) for iid in sorted(self._supported_iids(), key=str)}
        return query_interface(self, riid, interfaces, type(self).__name__)

    def _supported_iids(self):
        iids = set()
        for cls in type(self).__mro__:
            iids.update(getattr(cls, "_iids", ()))
        return iids

    @hresult_method
    def GetPrivateData(self, guid):
        """The bytes (or interface) stored under `guid`; DXGI_ERROR_NOT_FOUND when none."""
        key = _guid(guid, "guid")
        if key not in self._private_data:
            raise HResultError(DXGI_ERROR_NOT_FOUND, f"no private data is stored under guid {key}.")
        return self._private_data[key]

    @hresult_method
    def SetPrivateData(self, guid, data):
        """Store a copy of `data` (bytes-like; the C (dataSize, data) pair) under `guid`; None removes it."""
        key = _guid(guid, "guid")
        if data is None:
            self._private_data.pop(key, None)
            return
        try:
            self._private_data[key] = bytes(memoryview(data).cast("B"))
        except TypeError:
            raise HResultError(E_INVALIDARG, f"data is {describe(data)}; it must be bytes-like.") from None

    @hresult_method
    def SetPrivateDataInterface(self, guid, data):
        """Store a reference to an object under `guid`; None removes it."""
        key = _guid(guid, "guid")
        if data is None:
            self._private_data.pop(key, None)
        else:
            self._private_data[key] = data

    @hresult_method
    def SetName(self, name):
        if name is not None and not isinstance(name, str):
            raise HResultError(E_INVALIDARG, f"name is {name!r}; it must be a string or None.")
        self._name = name or ""

    def __repr__(self):
        return f"<{type(self).__name__}{' ' + repr(self._name) if self._name else ''}>"


class IDMLDeviceChild(IDMLObject):
    _iids = (enums.IID_IDMLDeviceChild,)

    @hresult_method
    def GetDevice(self):
        return self._device


class IDMLPageable(IDMLDeviceChild):
    """An object that owns GPU memory and can be evicted (IDMLDevice.Evict / MakeResident)."""

    _iids = (enums.IID_IDMLPageable,)

    def __init__(self, dml_device):
        super().__init__(dml_device)
        self._resident = True


class IDMLDispatchable(IDMLPageable):
    """A compiled operator or an operator initializer: something RecordDispatch runs."""

    _iids = (enums.IID_IDMLDispatchable,)

    def GetBindingProperties(self):
        raise NotImplementedError
