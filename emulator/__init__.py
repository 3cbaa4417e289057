"""dmlemu: an emulated DirectML GPU.

The public API:

- the API mirror, in submodules that keep the C names: `dmlemu.dxgi` (CreateDXGIFactory1, adapters),
  `dmlemu.d3d12` (devices, queues, command lists, resources, fences) and `dmlemu.directml`;
- `dmlemu.HResultError` and the HRESULT constants every layer shares;
- `dmlemu.run_operator`, the convenience layer (one operator on NumPy arrays, in one call) and
  `dmlemu.golden`, the plain-NumPy model every result is checked against.

Behind it: `dmlemu.functional` (what every bit becomes), `dmlemu.timing` (when), `dmlemu.isa` (the
instruction set), `dmlemu.kernels` (the operator microkernels), `dmlemu.traces` and `dmlemu.tools`.
`run_operator` and `golden` are imported on first use, so `import dmlemu.isa` stays light.
"""
from dmlemu.errors import (DXGI_ERROR_DEVICE_HUNG, DXGI_ERROR_DEVICE_REMOVED, DXGI_ERROR_INVALID_CALL,
                           DXGI_ERROR_NOT_FOUND, DXGI_ERROR_SDK_COMPONENT_MISSING, DXGI_ERROR_UNSUPPORTED, E_FAIL,
                           E_INVALIDARG, E_NOINTERFACE, E_NOTIMPL, E_OUTOFMEMORY, FAILED, S_FALSE, S_OK, SUCCEEDED,
                           HResultError, hresult_name)

__all__ = [
    "HResultError", "hresult_name", "SUCCEEDED", "FAILED", "S_OK", "S_FALSE", "E_FAIL", "E_INVALIDARG",
    "E_OUTOFMEMORY", "E_NOTIMPL", "E_NOINTERFACE", "DXGI_ERROR_NOT_FOUND", "DXGI_ERROR_UNSUPPORTED",
    "DXGI_ERROR_DEVICE_REMOVED", "DXGI_ERROR_DEVICE_HUNG", "DXGI_ERROR_INVALID_CALL",
    "DXGI_ERROR_SDK_COMPONENT_MISSING", "run_operator", "golden",
]


def __getattr__(name):
    """run_operator and golden on first use (PEP 562)."""
    if name == "run_operator":
        from dmlemu.convenience import run_operator
        return run_operator
    if name == "golden":
        import dmlemu.golden as golden
        return golden
    raise AttributeError(f"module 'dmlemu' has no attribute {name!r}")
