"""HRESULT codes and the exception that carries them.

Every method of the DirectML / D3D12 mirror that returns an HRESULT in C raises `HResultError` on
failure. Its message is one sentence naming the object, the field, the value and the rule broken.
"""
import re

S_OK = 0x00000000
S_FALSE = 0x00000001
E_FAIL = 0x80004005
E_INVALIDARG = 0x80070057
E_OUTOFMEMORY = 0x8007000E
E_NOTIMPL = 0x80004001
E_NOINTERFACE = 0x80004002
DXGI_ERROR_NOT_FOUND = 0x887A0002
DXGI_ERROR_UNSUPPORTED = 0x887A0004
DXGI_ERROR_DEVICE_REMOVED = 0x887A0005
DXGI_ERROR_DEVICE_HUNG = 0x887A0006
DXGI_ERROR_INVALID_CALL = 0x887A0001
DXGI_ERROR_SDK_COMPONENT_MISSING = 0x887A002D

HRESULT_NAMES = {
    S_OK: "S_OK",
    S_FALSE: "S_FALSE",
    E_FAIL: "E_FAIL",
    E_INVALIDARG: "E_INVALIDARG",
    E_OUTOFMEMORY: "E_OUTOFMEMORY",
    E_NOTIMPL: "E_NOTIMPL",
    E_NOINTERFACE: "E_NOINTERFACE",
    DXGI_ERROR_NOT_FOUND: "DXGI_ERROR_NOT_FOUND",
    DXGI_ERROR_UNSUPPORTED: "DXGI_ERROR_UNSUPPORTED",
    DXGI_ERROR_DEVICE_REMOVED: "DXGI_ERROR_DEVICE_REMOVED",
    DXGI_ERROR_DEVICE_HUNG: "DXGI_ERROR_DEVICE_HUNG",
    DXGI_ERROR_INVALID_CALL: "DXGI_ERROR_INVALID_CALL",
    DXGI_ERROR_SDK_COMPONENT_MISSING: "DXGI_ERROR_SDK_COMPONENT_MISSING",
}


def hresult_name(code):
    """The C name of an HRESULT, or its hex value when it has none here."""
    return HRESULT_NAMES.get(code, f"0x{code:08X}")


def SUCCEEDED(hr):
    return (hr & 0x80000000) == 0


def FAILED(hr):
    return not SUCCEEDED(hr)


class HResultError(Exception):
    """An HRESULT failure: `.hresult` is the unsigned 32-bit code, `str()` the sentence."""

    def __init__(self, hresult, message):
        self.hresult = hresult & 0xFFFFFFFF
        if "\n" in message:      # a value's multi-line repr (a NumPy array) inside the sentence: one line
            message = re.sub(r"\s*\n\s*", " ", message)
        self.message = message
        super().__init__(f"{message} ({hresult_name(self.hresult)})")


def describe(value):
    """How a sentence names a value's kind: "None", "a list", "an IDMLOperator"."""
    if value is None:
        return "None"
    name = type(value).__name__
    return f"{'an' if name[0] in 'AEIOUaeiou' else 'a'} {name}"


def short_repr(value, limit=60):
    """repr(value) on one line (runs of white space as one space), cut to `limit` characters with
    '...' so a sentence stays one short line."""
    text = " ".join(repr(value).split())
    return text if len(text) <= limit else text[:limit] + "..."
