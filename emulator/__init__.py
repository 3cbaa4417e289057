"""dmlemu: an emulated DirectML GPU.

The API mirror lives in submodules, imported on demand: `emulator.dxgi` (adapters),
`emulator.d3d12` (devices, queues, command lists, resources, fences) and `emulator.directml`.
This package itself exports only the HRESULT machinery every layer shares.
"""
from .errors import (DXGI_ERROR_DEVICE_HUNG, DXGI_ERROR_DEVICE_REMOVED, DXGI_ERROR_INVALID_CALL, DXGI_ERROR_NOT_FOUND,
                     DXGI_ERROR_SDK_COMPONENT_MISSING, DXGI_ERROR_UNSUPPORTED, E_FAIL, E_INVALIDARG, E_NOINTERFACE,
                     E_NOTIMPL, E_OUTOFMEMORY, FAILED, S_FALSE, S_OK, SUCCEEDED, HResultError, hresult_name)

__all__ = [
    "HResultError", "hresult_name", "SUCCEEDED", "FAILED", "S_OK", "S_FALSE", "E_FAIL", "E_INVALIDARG",
    "E_OUTOFMEMORY", "E_NOTIMPL", "E_NOINTERFACE", "DXGI_ERROR_NOT_FOUND", "DXGI_ERROR_UNSUPPORTED",
    "DXGI_ERROR_DEVICE_REMOVED", "DXGI_ERROR_DEVICE_HUNG", "DXGI_ERROR_INVALID_CALL",
    "DXGI_ERROR_SDK_COMPONENT_MISSING",
]
