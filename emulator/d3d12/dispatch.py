"""Dispatch: a compute shader's thread groups as one recorded command, and the root arguments it reads.

ID3D12GraphicsCommandList::Dispatch records a `DispatchCommand` holding what the list's state was at
that moment: the pipeline state, the root arguments (root constants' values, root descriptors' GPU
addresses, descriptor tables' GPU handles) and the CBV_SRV_UAV heap set on the list. When the queue
executes it, the command does what a command processor and driver do before a launch:

- it builds the launch's *binding table*: one 32-byte buffer descriptor per SRV/UAV/CBV the shader
  declares, in declaration order. A binding from a descriptor table is copied from its heap slot at
  execution (descriptors are read when the GPU runs the work, as in D3D12, so a descriptor written
  after recording but before execution is the one used); a root descriptor becomes a descriptor from
  its GPU address to the end of its buffer, so no access leaves the resource;
- it checks every bound buffer's state as D3D12's GPU-based validation does (UAV: UNORDERED_ACCESS;
  SRV: NON_PIXEL_SHADER_RESOURCE; CBV: VERTEX_AND_CONSTANT_BUFFER; COMMON buffers are promoted), for a
  texture only the subresources its view holds (view_states.py); a mismatch raises
  HResultError(DXGI_ERROR_INVALID_CALL) with the debug layer's #538 INVALID_SUBRESOURCE_STATE sentence,
  which the queue turns into device removal;
- it tells the hazard tracker (hazards.py) the bytes it reads (SRVs, CBVs) and writes (UAVs, which
  it may also read: a write covers both);
- it launches the kernel on the queue's GPU (Gpu.dispatch: functional model, timing model, traces)
  under the ABI of docs/KERNEL_ABI.md, and frees the table afterwards. A kernel that cannot finish
  (a hang) is DXGI_ERROR_DEVICE_HUNG.

The recording side lives here too, called by the command list's methods (command_list.py, "compute
pipelines"): the checks of SetComputeRootSignature, the SetComputeRoot* methods and Dispatch. Their
misuse raises VoidMisuse, which puts the list in its error state (recording_method). Dispatch
follows D3D12: a thread-group count above D3D12_CS_DISPATCH_MAX_THREAD_GROUPS_PER_DIMENSION, no
pipeline state, no root signature or one whose layout differs from the pipeline's, or a root
parameter the shader reads left unset is an error; a count of 0 records nothing.
"""
import numpy as np

from dmlemu.com import VoidMisuse, enum_name, is_integer
from dmlemu.d3d12.descriptor_heap import CBV_SRV_UAV
from dmlemu.d3d12.hazards import note_access
from dmlemu.d3d12.enums import (D3D12_CONSTANT_BUFFER_DATA_PLACEMENT_ALIGNMENT,
                                 D3D12_CS_DISPATCH_MAX_THREAD_GROUPS_PER_DIMENSION,
                                 D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS, D3D12_RESOURCE_STATE_NON_PIXEL_SHADER_RESOURCE,
                                 D3D12_RESOURCE_STATE_UNORDERED_ACCESS, D3D12_RESOURCE_STATE_VERTEX_AND_CONSTANT_BUFFER,
                                 D3D12_ROOT_PARAMETER_TYPE)
from dmlemu.d3d12.pipeline_state import ID3D12PipelineState
from dmlemu.d3d12.view_states import require_view_state, view_subresources
from dmlemu.d3d12.root_signature import CONSTANTS, ID3D12RootSignature, ROOT_CBV, ROOT_SRV, ROOT_UAV, TABLE
from dmlemu.errors import DXGI_ERROR_DEVICE_HUNG, DXGI_ERROR_INVALID_CALL, HResultError
from dmlemu.functional.buffer_descriptor import (DESCRIPTOR_SIZE, mark_read_only, read_buffer_descriptor,
                                                 write_buffer_descriptor)
from dmlemu.isa.shader_binary import CBV, ROOT_CONSTANTS, SRV, UAV

__all__ = ["DispatchCommand"]

REQUIRED_STATE = {UAV: D3D12_RESOURCE_STATE_UNORDERED_ACCESS, SRV: D3D12_RESOURCE_STATE_NON_PIXEL_SHADER_RESOURCE,
                  CBV: D3D12_RESOURCE_STATE_VERTEX_AND_CONSTANT_BUFFER}
ACCESS = {UAV: "UAV", SRV: "SRV", CBV: "CBV"}


class DispatchCommand:
    """Dispatch(X, Y, Z) of a pipeline state with the root arguments in force when it was recorded.

    `sources`: for each SRV/UAV/CBV binding of the shader, in slot order, ("table", heap, slot index)
    or ("root", GPU address); `constants`: the 32-bit values of its root constants, in order."""

    __slots__ = ("pso", "groups", "sources", "constants", "name")

    def __init__(self, pso, groups, sources, constants):
        self.pso, self.groups, self.sources, self.constants = pso, groups, tuple(sources), tuple(constants)
        self.name = "Dispatch"

    def execute(self, ctx):
        shader = self.pso._shader
        device, gpu = ctx.device, ctx.gpu
        bindings = shader.binary.table_bindings
        table = gpu.memory.allocate(DESCRIPTOR_SIZE * max(1, len(bindings)), f"{shader.name} binding table")
        reads, writes = [], []
        try:
            for slot, (binding, source) in enumerate(zip(bindings, self.sources)):
                where = f"{binding.name} of the Dispatch of {self.pso._label} ({shader.name})"
                offset = slot * DESCRIPTOR_SIZE
                if source[0] == "table":
                    _, heap, index = source
                    start = index * heap._increment
                    table.data[offset:offset + DESCRIPTOR_SIZE] = heap._allocation.data[start:start + DESCRIPTOR_SIZE]
                    va, size, valid = read_buffer_descriptor(table.data, offset)
                    if not valid:
                        continue      # a null descriptor: reads return 0, writes are dropped
                    resource = device._resource_from_gpu_va(va)
                    if resource is None:
                        raise HResultError(DXGI_ERROR_INVALID_CALL,
                                           f"{where} reads the descriptor in slot {index} of {heap._label}, whose "
                                           f"GPU address 0x{va:X} is in no live buffer of this device.")
                else:
                    va = source[1]
                    resource = device._resource_from_gpu_va(va)
                    if resource is None:
                        raise HResultError(DXGI_ERROR_INVALID_CALL,
                                           f"{where} is the root {ACCESS[binding.kind]} at GPU address 0x{va:X}, "
                                           "which is in no live buffer of this device (was it released?).")
                    end = resource._allocation.gpu_va + resource._width
                    write_buffer_descriptor(table.data, offset, va, end - va)
                require_view_state(resource, REQUIRED_STATE[binding.kind], binding.kind, f"{ACCESS[binding.kind]} {where}",
                                   view_subresources(resource, table.data, offset))
                if binding.kind != UAV:
                    mark_read_only(table.data, offset)     # stores and atomics through it are dropped
                view = read_buffer_descriptor(table.data, offset)
                start = view[0] - resource._allocation.gpu_va
                span = (resource, start, max(0, min(view[1], resource._width - start)))
                (writes if binding.kind == UAV else reads).append(span)
            note_access(ctx, f"Dispatch of {self.pso._label} ({shader.name})", reads, writes)
            launch = shader.launch(table.gpu_va, self.constants, self.groups)
            from dmlemu.isa.program import KernelFault
            try:
                stats = gpu.dispatch(launch)
            except KernelFault as fault:
                raise HResultError(DXGI_ERROR_DEVICE_HUNG, f"the GPU stopped responding: {fault}") from fault
            if device._debug_layer:
                _report_execution(ctx, self.pso, shader, stats)
        finally:
            gpu.memory.free(table)


def _report_execution(ctx, pso, shader, stats):
    """What the debug layer's GPU-based validation reports of a dispatch that ran: writes through a
    read-only view (dropped) and reads of LDS no lane of the workgroup wrote."""
    device = ctx.device
    where = f" (in {ctx.command_list._label} on {ctx.queue._label})" if ctx.command_list is not None else ""
    program = shader.program
    if stats.readonly_writes:
        pc = stats.readonly_first_pc
        device._defer_debug_report(
            DXGI_ERROR_INVALID_CALL,
            f"ExecuteCommandLists: the Dispatch of {pso._label} ({shader.name}) wrote {stats.readonly_writes} "
            f"lane(s) through a shader-resource or constant-buffer view, first with "
            f"{program.records[pc].entry.mnemonic} at instruction {pc}; those views are read-only, so the "
            f"writes were dropped (bind the resource as a UAV to write it){where}.")
    if stats.lds_unwritten_reads:
        pc = stats.lds_unwritten_first_pc
        device._defer_debug_report(
            DXGI_ERROR_INVALID_CALL,
            f"ExecuteCommandLists: the Dispatch of {pso._label} ({shader.name}) read LDS that no lane of the "
            f"workgroup had written {stats.lds_unwritten_reads} time(s), first with "
            f"{program.records[pc].entry.mnemonic} at instruction {pc}; a GPU returns whatever an earlier "
            f"workgroup left there (write groupshared memory and s_barrier before reading it){where}.")


# ---- recording: the command list's compute methods ------------------------------------------------------
MAX_GROUPS = int(D3D12_CS_DISPATCH_MAX_THREAD_GROUPS_PER_DIMENSION)
CBV_ALIGNMENT = int(D3D12_CONSTANT_BUFFER_DATA_PLACEMENT_ALIGNMENT)
_TYPE_OF_VIEW = {"CBV": ROOT_CBV, "SRV": ROOT_SRV, "UAV": ROOT_UAV}


def is_pipeline_state_of(device, obj):
    """None, or a pipeline state of `device`: what pInitialState / pPipelineState may be."""
    return obj is None or (isinstance(obj, ID3D12PipelineState) and obj._device is device)


def set_pipeline_state(command_list, pso):
    if pso is None or not is_pipeline_state_of(command_list._device, pso):
        raise VoidMisuse(f"pPipelineState is {pso!r}; it must be a pipeline state of this device.")
    command_list._pipeline_state = pso


def set_root_signature(command_list, rs):
    """SetComputeRootSignature: a new layout makes the root arguments set so far stale (they are dropped)."""
    if rs is not None and (not isinstance(rs, ID3D12RootSignature) or rs._device is not command_list._device):
        raise VoidMisuse(f"pRootSignature is {rs!r}; it must be a root signature of this device or None.")
    current = command_list._compute_root_signature
    if rs is None or current is None or not current._same_layout(rs):
        command_list._compute_root_args = {}
    command_list._compute_root_signature = rs


def _parameter(command_list, index, wanted):
    rs = command_list._compute_root_signature
    if rs is None:
        raise VoidMisuse("no compute root signature is set; call SetComputeRootSignature first.")
    count = len(rs._parameters)
    if not is_integer(index) or not 0 <= int(index) < count:
        raise VoidMisuse(f"RootParameterIndex is {index!r}; {rs._label} has {count} parameters"
                         + (f" (0 to {count - 1})." if count else "."))
    index = int(index)
    parameter = rs._parameters[index]
    if parameter.type != wanted:
        raise VoidMisuse(f"RootParameterIndex {index} is {rs._describe(index)} of {rs._label}; this method sets a "
                         f"{enum_name(D3D12_ROOT_PARAMETER_TYPE, wanted)} parameter.")
    return index, parameter


def _dwords(data, field):
    """32-bit values from bytes (little-endian), a 4-byte NumPy array, or a sequence of UINTs / np.float32."""
    if isinstance(data, (bytes, bytearray, memoryview)):
        raw = bytes(data)
        if len(raw) % 4:
            raise VoidMisuse(f"{field} is {len(raw)} bytes; root constants are whole 32-bit values.")
        return [int(v) for v in np.frombuffer(raw, dtype="<u4")]
    if isinstance(data, np.ndarray):
        if data.dtype.itemsize != 4:
            raise VoidMisuse(f"{field} is an array of {data.dtype}; root constants are 32-bit values (uint32, "
                             "int32 or float32).")
        return [int(v) for v in np.ascontiguousarray(data).reshape(-1).view(np.uint32)]
    if not isinstance(data, (list, tuple)):
        raise VoidMisuse(f"{field} is {data!r}; it must be 32-bit values (bytes, a NumPy array or a sequence).")
    out = []
    for i, value in enumerate(data):
        if isinstance(value, np.float32):
            out.append(int(np.array(value).view(np.uint32)))
        elif is_integer(value) and 0 <= int(value) <= 0xFFFFFFFF:
            out.append(int(value))
        else:
            hint = " (for a float's bits give np.float32(x))" if isinstance(value, float) else ""
            raise VoidMisuse(f"{field}[{i}] is {value!r}; a root constant is a UINT (0 to 4294967295) or an "
                             f"np.float32{hint}.")
    return out


def set_constants(command_list, index, values, offset, field, count=None):
    """SetComputeRoot32BitConstant(s): write values into a 32BIT_CONSTANTS parameter from `offset` on."""
    index, parameter = _parameter(command_list, index, CONSTANTS)
    values = _dwords(values, field)
    if count is not None and (not is_integer(count) or int(count) != len(values)):
        raise VoidMisuse(f"Num32BitValuesToSet is {count!r}, but {field} holds {len(values)} values.")
    if not is_integer(offset) or offset < 0 or int(offset) + len(values) > parameter.values:
        raise VoidMisuse(f"DestOffsetIn32BitValues {offset!r} + {len(values)} values passes the end of root parameter "
                         f"{index}, which holds {parameter.values} constants.")
    current = command_list._compute_root_args.get(index)
    slots = list(current[1]) if current is not None else [None] * parameter.values
    slots[int(offset):int(offset) + len(values)] = values
    command_list._compute_root_args[index] = ("constants", tuple(slots))


def set_descriptor_table(command_list, index, handle):
    index, _ = _parameter(command_list, index, TABLE)
    ptr = getattr(handle, "ptr", handle)
    device = command_list._device
    heap = device._descriptor_heap_from_gpu_handle(ptr) if is_integer(ptr) else None
    offset = heap._slot_offset_from_gpu_handle(ptr) if heap is not None else None
    if heap is None or offset is None or heap._type != CBV_SRV_UAV:
        shown = _address(ptr) if is_integer(ptr) else repr(handle)
        from dmlemu.d3d12.descriptor_heap import foreign_phrase
        raise VoidMisuse(f"BaseDescriptor {shown} is not the GPU handle of a slot of a shader-visible CBV_SRV_UAV "
                         f"descriptor heap of this device{foreign_phrase(device, ptr, gpu=True)}.")
    command_list._compute_root_args[index] = ("table", heap, offset // heap._increment)


def _address(value):
    """An address or handle as a sentence shows it: hexadecimal, a negative one (no UINT64) in decimal."""
    return f"0x{int(value):X}" if int(value) >= 0 else str(int(value))


def set_root_view(command_list, index, location, view):
    """SetComputeRootConstantBufferView / ShaderResourceView / UnorderedAccessView."""
    index, _ = _parameter(command_list, index, _TYPE_OF_VIEW[view])
    resource = command_list._device._resource_from_gpu_va(int(location)) if is_integer(location) else None
    if resource is None:
        shown = _address(location) if is_integer(location) else repr(location)
        raise VoidMisuse(f"BufferLocation {shown} is not the GPU virtual address of a buffer of this device.")
    if resource._texture is not None:
        raise VoidMisuse(f"BufferLocation 0x{int(location):X} is inside {resource._label}, a texture; a root {view} is "
                         "a buffer's (bind a texture through a descriptor table).")
    location = int(location)
    alignment = CBV_ALIGNMENT if view == "CBV" else 4
    if location % alignment:
        raise VoidMisuse(f"BufferLocation 0x{location:X} is not a multiple of {alignment}; a root {view} starts on a "
                         f"{alignment}-byte boundary.")
    if view == "UAV" and not resource._flags & D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS:
        raise VoidMisuse(f"{resource._label} was created without D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS, so it "
                         "cannot be a root UAV.")
    command_list._compute_root_args[index] = ("root", location)


def record(command_list, x, y, z):
    """Dispatch: the DispatchCommand to append, or None for an empty grid (a no-op, as in D3D12)."""
    groups = []
    for axis, value in zip("XYZ", (x, y, z)):
        if not is_integer(value) or not 0 <= int(value) <= 0xFFFFFFFF:
            raise VoidMisuse(f"ThreadGroupCount{axis} is {value!r}; it must be a UINT.")
        if int(value) > MAX_GROUPS:
            raise VoidMisuse(f"ThreadGroupCount{axis} is {int(value)}; "
                             f"D3D12_CS_DISPATCH_MAX_THREAD_GROUPS_PER_DIMENSION allows at most {MAX_GROUPS}.")
        groups.append(int(value))
    pso, rs = command_list._pipeline_state, command_list._compute_root_signature
    if pso is None:
        raise VoidMisuse("no pipeline state is set; call SetPipelineState with a compute pipeline state first.")
    if rs is None:
        raise VoidMisuse("no compute root signature is set; call SetComputeRootSignature first.")
    if not rs._same_layout(pso._root_signature):
        raise VoidMisuse(f"{pso._label} was created with {pso._root_signature._label}, whose layout differs from "
                         f"{rs._label} set by SetComputeRootSignature.")
    heap = command_list._cbv_srv_uav_heap()
    sources, constants = [], []
    for binding, index, offset in pso._bindings:
        argument = command_list._compute_root_args.get(index)
        what = f"root parameter {index} ({enum_name(D3D12_ROOT_PARAMETER_TYPE, rs._parameters[index].type)})"
        if argument is None:
            raise VoidMisuse(f"{what}, which the shader reads for {binding.name}, is not set.")
        if binding.kind == ROOT_CONSTANTS:
            values = argument[1][:binding.count]
            if None in values:
                raise VoidMisuse(f"root constant {values.index(None)} of {what} is not set; the shader reads "
                                 f"{binding.count}.")
            constants.extend(values)
        elif argument[0] == "table":
            _, table_heap, first = argument
            if heap is None:
                raise VoidMisuse("no CBV_SRV_UAV descriptor heap is set; call SetDescriptorHeaps before Dispatch.")
            if table_heap is not heap:
                raise VoidMisuse(f"the descriptor table of {what} points into {table_heap._label}, but the "
                                 f"CBV_SRV_UAV heap set on the list is {heap._label}.")
            if first + offset >= table_heap._num_descriptors:
                raise VoidMisuse(f"{binding.name} is descriptor {offset} of the table of {what}, which starts at "
                                 f"slot {first} of {table_heap._label}; the heap has {table_heap._num_descriptors} "
                                 "descriptors.")
            sources.append(("table", table_heap, first + offset))
        else:
            sources.append(argument)
    if 0 in groups:
        return None
    return DispatchCommand(pso, tuple(groups), sources, constants)

