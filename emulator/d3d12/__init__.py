"""dmlemu.d3d12: the D3D12 half of the API mirror (the compute path), with the d3dx12 helpers.

`from dmlemu.d3d12 import *` gives the C names a D3D12 compute program uses: D3D12CreateDevice,
D3D12GetDebugInterface, every enum constant with its C value, the structs, the CD3DX12_* helpers,
the DXGI names D3D12 structs use (DXGI_FORMAT_*, DXGI_SAMPLE_DESC) and the HRESULT codes.
The interface classes (ID3D12Device, ID3D12GraphicsCommandList, ...) are exported for isinstance.

Modules, one concept each: device (the device and removal), command_queue (execution model),
command_allocator, command_list (recording rules), commands (what lists record), resource (buffers
and the resource-state model), heap (CreateHeap and placed, aliasing resources), descriptor_heap, views, fence (completion and observation),
query_heap (timestamps), root_signature and pipeline_state (compute pipelines), dispatch
(Dispatch and the root arguments it reads), debug (the debug layer switch), messages (the debug
layer's messages and the one function that reports them), info_queue (ID3D12InfoQueue1), d3dx12,
enums, structs, base. `inspect(obj)` (inspection.py) is the one name beyond the C API: a read-only view
of an object's state that D3D12 shows only through tools such as PIX (a resource's state and bytes, a
command list's recorded commands, a device's GPU).
"""
from dmlemu import errors as _errors
from dmlemu.dxgi import DXGI_FORMAT, DXGI_SAMPLE_DESC
from dmlemu.d3d12 import enums as _enums
from dmlemu.d3d12 import structs as _structs
from dmlemu.d3d12.command_allocator import ID3D12CommandAllocator
from dmlemu.d3d12.command_list import ID3D12GraphicsCommandList
from dmlemu.d3d12.command_queue import ID3D12CommandQueue
from dmlemu.d3d12.d3dx12 import *  # noqa: F401,F403
from dmlemu.d3d12.d3dx12 import __all__ as _d3dx12_all
from dmlemu.d3d12.debug import D3D12GetDebugInterface, ID3D12Debug
from dmlemu.d3d12.descriptor_heap import ID3D12DescriptorHeap
from dmlemu.d3d12.device import D3D12CreateDevice, ID3D12Device
from dmlemu.d3d12.enums import *  # noqa: F401,F403
from dmlemu.d3d12.fence import ID3D12Fence
from dmlemu.d3d12.heap import ID3D12Heap
from dmlemu.d3d12.info_queue import ID3D12InfoQueue1
from dmlemu.d3d12.inspection import inspect
from dmlemu.d3d12 import messages as _messages
from dmlemu.d3d12.messages import *  # noqa: F401,F403
from dmlemu.d3d12.query_heap import ID3D12QueryHeap
from dmlemu.d3d12.pipeline_state import ID3D12PipelineState
from dmlemu.d3d12.root_signature import D3D12SerializeRootSignature, ID3D12RootSignature, ID3DBlob
from dmlemu.d3d12.resource import ID3D12Resource
from dmlemu.d3d12.structs import *  # noqa: F401,F403

_HRESULTS = [name for name in _errors.HRESULT_NAMES.values()]
for _name in _HRESULTS:
    globals()[_name] = getattr(_errors, _name)
ID3D12InfoQueue = ID3D12InfoQueue1   # one class implements both interfaces
for _member in DXGI_FORMAT:
    globals()[_member.name] = _member

__all__ = (
    ["D3D12CreateDevice", "D3D12GetDebugInterface", "ID3D12Device", "ID3D12CommandQueue", "ID3D12CommandAllocator",
     "ID3D12GraphicsCommandList", "ID3D12Resource", "ID3D12Heap", "ID3D12DescriptorHeap", "ID3D12Fence", "ID3D12QueryHeap",
     "D3D12SerializeRootSignature", "ID3D12RootSignature", "ID3D12PipelineState", "ID3DBlob",
     "ID3D12Debug", "ID3D12InfoQueue", "ID3D12InfoQueue1", "DXGI_FORMAT", "DXGI_SAMPLE_DESC", "inspect"]
    + [member.name for member in DXGI_FORMAT]
    + list(_enums.__all__) + list(_structs.__all__) + list(_messages.__all__) + list(_d3dx12_all) + _HRESULTS)
