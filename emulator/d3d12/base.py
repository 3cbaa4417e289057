"""ID3D12Object / ID3D12DeviceChild: what every D3D12 object of the mirror shares.

One base class under every device child (queues, allocators, command lists, resources, heaps,
fences, query heaps). It holds the object's device, a debug label ("buffer #3", or the name given to
SetName) used in error sentences, and the two calling conventions of the C API:

- `hresult_method`: a method that returns an HRESULT in C. On a removed device it raises
  DXGI_ERROR_DEVICE_REMOVED (naming the first removal's reason); a failure raises HResultError.
- `void_method`: a method that returns nothing in C. On a removed device it does nothing. Misuse is
  reported by raising `VoidMisuse`; the wrapper removes the device with that code and sentence
  (DXGI_ERROR_INVALID_CALL unless the misuse says otherwise), and, with the debug layer on
  (D3D12GetDebugInterface().EnableDebugLayer() before D3D12CreateDevice), also raises it at once as
  an HResultError so the bad call is the line that fails. Command list recording methods handle their
  own misuse (the list goes into an error state; see command_list.py) and are wrapped differently.

Behind the methods' own checks, every wrapper has a safety net: a Python error an argument of the wrong
kind raises (ARGUMENT_ERRORS) becomes E_INVALIDARG / device removal / the list's error state with a
sentence naming the method, so no other exception type escapes the mirror. Errors raised while a queue
executes commands are emulator faults, not arguments, and pass through.
"""
import functools

from dmlemu.errors import DXGI_ERROR_DEVICE_REMOVED, DXGI_ERROR_INVALID_CALL, E_INVALIDARG, HResultError, hresult_name

# Python errors an argument of the wrong kind raises inside a method (a numpy array where an int belongs,
# an unhashable enum value, a non-sequence). The wrappers turn them into the C convention (E_INVALIDARG, or
# device removal for void methods) as a safety net behind the methods' own checks, so no other exception
# type escapes the mirror. Errors raised while a queue executes work are not arguments: they pass through.
ARGUMENT_ERRORS = (TypeError, ValueError, OverflowError, AttributeError, KeyError, IndexError)


def malformed_argument(method_name, error):
    """The sentence for an argument no specific check caught (a Python error while reading it)."""
    return (f"{method_name}: an argument has a type or value this method cannot read "
            f"({type(error).__name__}: {error}).")


def raised_during_execution(error):
    """True for an error a command raised while a queue executed it (see command_queue.py)."""
    return getattr(error, "_dmlemu_during_execution", False)


class VoidMisuse(Exception):
    """Misuse found inside a void method; carries the HRESULT that becomes the removal reason."""

    def __init__(self, message, hresult=DXGI_ERROR_INVALID_CALL):
        super().__init__(message)
        self.message = message
        self.hresult = hresult


def hresult_method(method):
    """Wrap an HRESULT method: removed device -> DXGI_ERROR_DEVICE_REMOVED; failures raise."""

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        self._device._check_not_removed(method.__name__)
        try:
            return method(self, *args, **kwargs)
        except ARGUMENT_ERRORS as error:
            if raised_during_execution(error):
                raise
            raise HResultError(E_INVALIDARG, malformed_argument(method.__name__, error)) from error

    return wrapper


def void_method(method):
    """Wrap a void method: a no-op on a removed device; VoidMisuse removes the device."""

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        device = self._device
        if device._removed_reason is not None:
            return None
        try:
            return method(self, *args, **kwargs)
        except VoidMisuse as misuse:
            device._report_misuse(misuse.hresult, f"{method.__name__}: {misuse.message}")
            return None
        except ARGUMENT_ERRORS as error:
            if raised_during_execution(error):
                raise
            device._report_misuse(DXGI_ERROR_INVALID_CALL, malformed_argument(method.__name__, error))
            return None

    return wrapper


def invalid_arg(method_name, message):
    """An E_INVALIDARG HResultError whose sentence starts with the method's name."""
    return HResultError(E_INVALIDARG, f"{method_name}: {message}")


def removed_error(method_name, reason):
    """The DXGI_ERROR_DEVICE_REMOVED error raised by HRESULT methods once the device is removed."""
    code, message = reason
    return HResultError(
        DXGI_ERROR_DEVICE_REMOVED,
        f"{method_name}: the device was removed earlier ({hresult_name(code)}): {message}")


class DeviceChild:
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
