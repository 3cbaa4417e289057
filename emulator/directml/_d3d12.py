"""The DirectML mirror's window onto the D3D12 mirror's internals (one place to adapt).

DirectML, like the real runtime, needs to look inside D3D12 objects: a resource's heap type, size
and GPU address, which descriptor heap a handle points into, a command list's type, state and
descriptor heaps, and, when a recorded dispatch executes, the resources' states and the GPU. Every
such access goes through this module, so the rest of emulator/directml uses only public names.
"""
from dmlemu.com import enum_name
from dmlemu.d3d12.messages import DIRECTML_PREFIX, report as report_debug_message  # noqa: F401 (device.py's)
from dmlemu.d3d12.enums import (  # noqa: F401 (the D3D12 names the rest of emulator/directml reads from here)
    D3D12_COMMAND_LIST_TYPE, D3D12_COMMAND_LIST_TYPE_COMPUTE, D3D12_COMMAND_LIST_TYPE_DIRECT, D3D12_DESCRIPTOR_HEAP_TYPE,
    D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, D3D12_HEAP_TYPE, D3D12_HEAP_TYPE_DEFAULT, D3D12_RESOURCE_DIMENSION_BUFFER,
    D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS, D3D12_RESOURCE_STATE_UNORDERED_ACCESS,
)


# ---- devices ------------------------------------------------------------------------------------
def is_device(obj):
    from dmlemu.d3d12.device import ID3D12Device
    return isinstance(obj, ID3D12Device)


def gpu_of(device):
    return device._gpu


def device_removed_reason(device):
    """The D3D12 device's removal HRESULT, or 0 while it works."""
    reason = getattr(device, "_removed_reason", None)
    if reason is None:
        return 0
    return reason[0] if isinstance(reason, tuple) else int(reason)


def device_removed_message(device):
    """The sentence that removed the D3D12 device ("" while it works)."""
    reason = getattr(device, "_removed_reason", None)
    return reason[1] if isinstance(reason, tuple) and len(reason) > 1 else ""


def owner_device(obj):
    return getattr(obj, "_device", None)


def label(obj):
    """How D3D12 error sentences name an object ("buffer #3" or its SetName name)."""
    return getattr(obj, "_label", type(obj).__name__)


# ---- resources ----------------------------------------------------------------------------------
def is_resource(obj):
    from dmlemu.d3d12.resource import ID3D12Resource
    return isinstance(obj, ID3D12Resource)


def resource_is_buffer(resource):
    return resource._desc.Dimension == D3D12_RESOURCE_DIMENSION_BUFFER


def resource_width(resource):
    return resource._desc.Width


def resource_allows_uav(resource):
    return bool(resource._flags & D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS)


def resource_heap_type_name(heap_type):
    """The C name of a D3D12_HEAP_TYPE value, for sentences."""
    return enum_name(D3D12_HEAP_TYPE, heap_type)


def resource_heap_type(resource):
    return resource._heap_type


def resource_gpu_va(resource):
    return resource._allocation.gpu_va


# ---- descriptor heaps ---------------------------------------------------------------------------
def handle_ptr(handle):
    """A descriptor handle's ptr (a handle struct or a bare int), or None."""
    ptr = getattr(handle, "ptr", handle)
    if isinstance(ptr, bool) or not isinstance(ptr, int):
        try:
            import numpy as np
            if isinstance(ptr, np.integer):
                return int(ptr)
        except ImportError:  # pragma: no cover
            pass
        return None
    return ptr


def foreign_handle_phrase(device, ptr, gpu):
    """'; it is a ... handle of <heap> of <device>, ...' when ptr is another live device's handle, else ''."""
    from dmlemu.d3d12.descriptor_heap import foreign_phrase
    return foreign_phrase(device, ptr, gpu)


def find_heap_by_cpu_handle(device, ptr):
    """(heap, descriptor index) for a CPU handle ptr naming a slot of a live heap of `device`, or None."""
    heap = device._descriptor_heap_from_cpu_handle(ptr)
    if heap is None:
        return None
    offset = heap._slot_offset_from_cpu_handle(ptr)
    if offset is None:
        return None
    return heap, offset // heap._increment


def find_heap_by_gpu_handle(device, ptr):
    """(heap, descriptor index) for a GPU handle ptr naming a slot of a shader-visible heap, or None."""
    heap = device._descriptor_heap_from_gpu_handle(ptr)
    if heap is None:
        return None
    offset = heap._slot_offset_from_gpu_handle(ptr)
    if offset is None:
        return None
    return heap, offset // heap._increment


def heap_is_cbv_srv_uav(heap):
    return heap._type == D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV


def heap_type_name(heap):
    return enum_name(D3D12_DESCRIPTOR_HEAP_TYPE, heap._type)


def heap_is_shader_visible(heap):
    return heap._shader_visible


def heap_num_descriptors(heap):
    return heap._num_descriptors


def heap_bytes(heap):
    """The heap's descriptor bytes (a writable uint8 array)."""
    return heap._allocation.data


def heap_slot_offset(heap, index):
    """Byte offset of descriptor `index` in heap_bytes(heap)."""
    return index * heap._increment


def heap_descriptor_gpu_va(heap, index):
    """The GPU virtual address kernels read descriptor `index` of the heap from."""
    return heap._allocation.gpu_va + index * heap._increment


def heap_gpu_handle(heap, index):
    """The GPU descriptor handle of descriptor `index` of a shader-visible heap."""
    return heap._gpu_base + index * heap._increment


# ---- command lists ------------------------------------------------------------------------------
def is_command_list(obj):
    from dmlemu.d3d12.command_list import ID3D12GraphicsCommandList
    return isinstance(obj, ID3D12GraphicsCommandList)


def command_list_type(command_list):
    return command_list._type


def command_list_type_name(list_type):
    return enum_name(D3D12_COMMAND_LIST_TYPE, list_type)


def command_list_is_open(command_list):
    return command_list._is_open()


def command_list_cbv_srv_uav_heap(command_list):
    return command_list._cbv_srv_uav_heap()


def record(command_list, command):
    from dmlemu.d3d12.commands import record as record_command
    record_command(command_list, command)


def record_error(command_list, method_name, sentence):
    """A D3D12 error while recording (not a DirectML one): the list goes into its error state (Close
    fails with E_INVALIDARG naming it); with the D3D12 debug layer it also raises at once."""
    command_list._record_error(method_name, sentence)


def heap_label(heap):
    return heap._label



# ---- execution ----------------------------------------------------------------------------------
def require_unordered_access(context, resource, what):
    """At execution: `resource` must be in UNORDERED_ACCESS (a COMMON buffer is promoted). On a
    mismatch this raises HResultError(DXGI_ERROR_INVALID_CALL), which the queue turns into removal
    of the D3D12 device (and so of the DML device), as D3D12's GPU-based validation reports it."""
    context.require_state(resource, D3D12_RESOURCE_STATE_UNORDERED_ACCESS, what)


def read_descriptors(context, table_va, count):
    """At execution: the `count` descriptor slots at GPU address `table_va`, as the GPU reads them now
    (a uint8 array, count * DESCRIPTOR_SIZE bytes; zeros where no memory is mapped, as a kernel's read)."""
    import numpy as np
    from dmlemu.functional.buffer_descriptor import DESCRIPTOR_SIZE
    out = np.zeros(count * DESCRIPTOR_SIZE, dtype=np.uint8)
    allocation, offset = context.gpu.memory.resolve(table_va)
    if allocation is not None:
        available = max(0, min(out.size, allocation.size - offset))
        out[:available] = allocation.data[offset:offset + available]
    return out


def resource_at(context, gpu_va):
    """The buffer of the executing device whose bytes hold `gpu_va`, or None."""
    return context.device._resource_from_gpu_va(gpu_va)


def note_access(context, operation, reads, writes):
    """At execution: hand an operation's (resource, offset, size) reads and writes to the D3D12 hazard
    tracker (emulator/d3d12/hazards.py), which counts and reports unordered conflicts."""
    from dmlemu.d3d12.hazards import note_access as note
    return note(context, operation, reads, writes)


def dispatch(context, launch):
    """Run a kernel launch on the executing queue's GPU.

    A kernel the hardware cannot finish (dmlemu.isa.program.KernelFault: a hang) is a GPU fault:
    it raises DXGI_ERROR_DEVICE_HUNG, which the queue turns into removal of the device, as
    Windows' timeout detection and recovery would.
    """
    from dmlemu.errors import DXGI_ERROR_DEVICE_HUNG, HResultError
    from dmlemu.isa.program import KernelFault
    try:
        return context.gpu.dispatch(launch)
    except KernelFault as fault:
        raise HResultError(DXGI_ERROR_DEVICE_HUNG, f"the GPU stopped responding: {fault}") from fault
