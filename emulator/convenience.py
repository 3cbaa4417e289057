"""Convenience layer: run one DirectML operator on NumPy arrays in one call.

`run_operator` is built on the API mirror, exactly the way a DirectML program is written: it creates
a D3D12 device on the chosen adapter and a DML device, creates, compiles and initializes the
operator, uploads the inputs through an UPLOAD buffer into DEFAULT buffers, binds them with a
binding table on a shader-visible descriptor heap, records the dispatch, executes the command list,
waits on a fence and reads the outputs back through a READBACK buffer. Every HResultError of the
mirror reaches the caller unchanged; a device removed by the run raises DXGI_ERROR_DEVICE_REMOVED with
its reason.

    from emulator.convenience import run_operator
    from emulator.directml import *
    t = DML_TENSOR_DESC(Type=DML_TENSOR_TYPE_BUFFER, Desc=DML_BUFFER_TENSOR_DESC(
        DataType=DML_TENSOR_DATA_TYPE_FLOAT32, Sizes=[2, 3], TotalTensorSizeInBytes=24))
    [y] = run_operator(DML_ELEMENT_WISE_CLIP_OPERATOR_DESC(InputTensor=t, OutputTensor=t, Min=0, Max=1), [x])

With trace="wave" (or another detail level) it also captures the run: `[y], trace = run_operator(...,
trace="wave")`; trace.format_summary(), traces.save_chrome_json(trace, "clip.json"), traces.plot_all(...).
"""
import numpy as np

from . import golden
from .directml import (
    DML_BINDING_DESC, DML_BINDING_TABLE_DESC, DML_BINDING_TYPE_BUFFER, DML_BUFFER_BINDING,
    DML_CREATE_DEVICE_FLAG_DEBUG, DML_CREATE_DEVICE_FLAG_NONE, DML_OPERATOR_DESC, DMLCreateDevice,
)
from .directml.structs import OPERATOR_DESC_TYPES
from .directml.validation import short_type_name
from .errors import DXGI_ERROR_DEVICE_REMOVED, HResultError, hresult_name

__all__ = ["run_operator"]

_ALIGNMENT = 256  # where each tensor starts in the upload / readback buffers


def _d3d12():
    from . import d3d12
    return d3d12


def _adapter(adapter):
    """None, an IDXGIAdapter, an AdapterPreset or a preset key -> an IDXGIAdapter or None."""
    if adapter is None or hasattr(adapter, "GetDesc1"):
        return adapter
    from .dxgi import CreateDXGIFactory1
    from .presets import PRESETS
    key = getattr(adapter, "key", adapter)
    for index, preset in enumerate(PRESETS):
        if preset.key == key:
            return CreateDXGIFactory1().EnumAdapters1(index)
    raise ValueError(f"no adapter preset named {key!r}; known: {', '.join(p.key for p in PRESETS)}")


def _operator_desc(desc):
    if isinstance(desc, DML_OPERATOR_DESC):
        return desc
    for op_type, desc_type in OPERATOR_DESC_TYPES.items():
        if type(desc) is desc_type:
            return DML_OPERATOR_DESC(Type=op_type, Desc=desc)
    raise TypeError(f"desc is a {type(desc).__name__}; give a DML_OPERATOR_DESC or an operator desc struct")


def run_operator(desc, inputs, *, flags=0, adapter=None, feature_level=None, debug=False, trace=None):
    """Run an operator on NumPy inputs through the mirror; returns the outputs as NumPy arrays.

    desc: a DML_OPERATOR_DESC, or an operator desc struct (DML_ELEMENT_WISE_CLIP_OPERATOR_DESC, ...).
    inputs: one array per input tensor in binding order (IF: condition, A, B), each of the tensor's
        logical shape (Sizes) and NumPy dtype; it is written at the tensor's strides.
    flags: DML_EXECUTION_FLAGS for CompileOperator.
    adapter: None (the default adapter), an IDXGIAdapter, an AdapterPreset or a preset key ("irisxe").
    feature_level: the emulated DirectML runtime's highest feature level (None: the adapter's).
    debug: create the DML device with DML_CREATE_DEVICE_FLAG_DEBUG.
    trace: None (no capture), or a trace detail level ("dispatch", "wave", "instruction", "memory"):
        the whole run on the device (uploads, dispatches, readback) is captured with traces.capture
        and (outputs, trace) is returned instead of outputs.
    Each output comes back with its tensor's Sizes as shape, read at its strides.
    """
    d3d12 = _d3d12()
    op_desc = _operator_desc(desc)
    device = d3d12.D3D12CreateDevice(_adapter(adapter), d3d12.D3D_FEATURE_LEVEL_11_0)
    if trace is None:
        return _run(device, op_desc, inputs, flags, feature_level, debug)
    from traces.capture import capture
    cap = capture(device, detail=trace)
    with cap:
        outputs = _run(device, op_desc, inputs, flags, feature_level, debug)
    return outputs, cap.trace


def _run(device, op_desc, inputs, flags, feature_level, debug):
    d3d12 = _d3d12()
    dml = DMLCreateDevice(device, DML_CREATE_DEVICE_FLAG_DEBUG if debug else DML_CREATE_DEVICE_FLAG_NONE,
                          max_feature_level=feature_level)
    compiled = dml.CompileOperator(dml.CreateOperator(op_desc), flags)
    info = compiled._info
    if len(inputs) != len(info.inputs):
        raise ValueError(f"{info.schema.c_name} takes {len(info.inputs)} inputs "
                         f"({', '.join(t.field for t in info.inputs)}); {len(inputs)} were given")
    arrays = [_input_array(array, tensor) for array, tensor in zip(inputs, info.inputs)]

    queue = device.CreateCommandQueue(d3d12.D3D12_COMMAND_QUEUE_DESC(
        Type=d3d12.D3D12_COMMAND_LIST_TYPE_DIRECT, Flags=d3d12.D3D12_COMMAND_QUEUE_FLAG_NONE))
    allocator = device.CreateCommandAllocator(d3d12.D3D12_COMMAND_LIST_TYPE_DIRECT)
    command_list = device.CreateCommandList(0, d3d12.D3D12_COMMAND_LIST_TYPE_DIRECT, allocator, None)

    initializer = dml.CreateOperatorInitializer([compiled])
    descriptor_count = max(1, initializer.GetBindingProperties().RequiredDescriptorCount,
                           compiled.GetBindingProperties().RequiredDescriptorCount)
    heap = device.CreateDescriptorHeap(d3d12.D3D12_DESCRIPTOR_HEAP_DESC(
        Type=d3d12.D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, NumDescriptors=descriptor_count,
        Flags=d3d12.D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE, NodeMask=0))
    command_list.SetDescriptorHeaps([heap])
    table_desc = DML_BINDING_TABLE_DESC(
        Dispatchable=initializer, CPUDescriptorHandle=heap.GetCPUDescriptorHandleForHeapStart(),
        GPUDescriptorHandle=heap.GetGPUDescriptorHandleForHeapStart(), SizeInDescriptors=descriptor_count)
    table = dml.CreateBindingTable(table_desc)
    recorder = dml.CreateCommandRecorder()
    recorder.RecordDispatch(command_list, initializer, table)

    def buffer(size, heap_type, state, uav=False):
        flags_ = d3d12.D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS if uav else d3d12.D3D12_RESOURCE_FLAG_NONE
        return device.CreateCommittedResource(
            d3d12.CD3DX12_HEAP_PROPERTIES(heap_type), d3d12.D3D12_HEAP_FLAG_NONE,
            d3d12.CD3DX12_RESOURCE_DESC.Buffer(max(4, size), flags_), state, None)

    # Upload every input through one UPLOAD buffer into its own DEFAULT buffer.
    upload_offsets, upload_size = _layout([t.total_bytes for t in info.inputs])
    upload = buffer(upload_size, d3d12.D3D12_HEAP_TYPE_UPLOAD, d3d12.D3D12_RESOURCE_STATE_GENERIC_READ)
    mapped = upload.Map(0, None)
    input_buffers, barriers = [], []
    for array, tensor, offset in zip(arrays, info.inputs, upload_offsets):
        golden.scatter(mapped[offset:offset + tensor.total_bytes], 0, array, tensor.effective_strides)
        resource = buffer(tensor.total_bytes, d3d12.D3D12_HEAP_TYPE_DEFAULT, d3d12.D3D12_RESOURCE_STATE_COPY_DEST, uav=True)
        command_list.CopyBufferRegion(resource, 0, upload, offset, tensor.total_bytes)
        barriers.append(d3d12.CD3DX12_RESOURCE_BARRIER.Transition(
            resource, d3d12.D3D12_RESOURCE_STATE_COPY_DEST, d3d12.D3D12_RESOURCE_STATE_UNORDERED_ACCESS))
        input_buffers.append(resource)
    upload.Unmap(0, None)
    if barriers:
        command_list.ResourceBarrier(barriers)
    output_buffers = [buffer(t.total_bytes, d3d12.D3D12_HEAP_TYPE_DEFAULT, d3d12.D3D12_RESOURCE_STATE_UNORDERED_ACCESS,
                             uav=True) for t in info.outputs]

    table_desc.Dispatchable = compiled
    table.Reset(table_desc)
    table.BindInputs([_binding(r, t.total_bytes) for r, t in zip(input_buffers, info.inputs)])
    table.BindOutputs([_binding(r, t.total_bytes) for r, t in zip(output_buffers, info.outputs)])
    recorder.RecordDispatch(command_list, compiled, table)

    readback_offsets, readback_size = _layout([t.total_bytes for t in info.outputs])
    readback = buffer(readback_size, d3d12.D3D12_HEAP_TYPE_READBACK, d3d12.D3D12_RESOURCE_STATE_COPY_DEST)
    command_list.ResourceBarrier([d3d12.CD3DX12_RESOURCE_BARRIER.UAV(r) for r in output_buffers]
                                 + [d3d12.CD3DX12_RESOURCE_BARRIER.Transition(
                                     r, d3d12.D3D12_RESOURCE_STATE_UNORDERED_ACCESS,
                                     d3d12.D3D12_RESOURCE_STATE_COPY_SOURCE) for r in output_buffers])
    for resource, tensor, offset in zip(output_buffers, info.outputs, readback_offsets):
        command_list.CopyBufferRegion(readback, offset, resource, 0, tensor.total_bytes)
    command_list.Close()
    queue.ExecuteCommandLists([command_list])
    fence = device.CreateFence(0, d3d12.D3D12_FENCE_FLAG_NONE)
    queue.Signal(fence, 1)
    fence.SetEventOnCompletion(1, None)

    reason = dml.GetDeviceRemovedReason()
    if reason:
        raise HResultError(DXGI_ERROR_DEVICE_REMOVED, f"run_operator: the DirectML device was removed "
                                                      f"({hresult_name(reason)}): {dml._removed_message}")
    data = readback.Map(0, None)
    outputs = [golden.gather(data[offset:offset + tensor.total_bytes].copy(), 0, golden.DATA_TYPES[tensor.type_name],
                             tensor.sizes, tensor.effective_strides)
               for tensor, offset in zip(info.outputs, readback_offsets)]
    readback.Unmap(0, None)
    return outputs


def _input_array(array, tensor):
    array = np.asarray(array)
    dtype = golden.DATA_TYPES[short_type_name(tensor.data_type)]
    if array.dtype != dtype:
        raise TypeError(f"{tensor.field} is {tensor.type_name}; the array given has dtype {array.dtype}, not {dtype}")
    if array.shape != tensor.sizes:
        if array.size != tensor.element_count:
            raise ValueError(f"{tensor.field} has Sizes {list(tensor.sizes)}; the array given has shape {array.shape}")
        array = array.reshape(tensor.sizes)
    return np.ascontiguousarray(array)


def _layout(sizes):
    """Offsets of consecutive ranges, each aligned to _ALIGNMENT, and the total size."""
    offsets, end = [], 0
    for size in sizes:
        offsets.append(end)
        end += -(-size // _ALIGNMENT) * _ALIGNMENT
    return offsets, max(end, _ALIGNMENT)


def _binding(resource, size):
    return DML_BINDING_DESC(Type=DML_BINDING_TYPE_BUFFER, Desc=DML_BUFFER_BINDING(Buffer=resource, Offset=0, SizeInBytes=size))
