"""ELEMENT_WISE_IF with a broadcast condition, written against the DirectML mirror.

    python examples/if_broadcast.py          (from the repository root)

y = A where the condition is non-zero, else B, on FLOAT16 tensors of Sizes {2, 3, 4}. The UINT8
condition is one 3 x 4 mask for both of the 2 batch entries: its Strides are {0, 4, 1}, so
the outermost dimension steps 0 bytes and both entries read the same 12 bytes (a broadcast; its
buffer is DMLCalcBufferTensorSize = 12 bytes, not 24). IF copies the chosen element's bits,
so NaN payloads and -0 survive.
"""
import numpy as np

from dmlemu import golden
from dmlemu.d3d12 import *  # noqa: F401,F403
from dmlemu.directml import *  # noqa: F401,F403


def tensor_desc(data_type, sizes, strides=None):
    size = DMLCalcBufferTensorSize(data_type, len(sizes), sizes, strides)
    return DML_TENSOR_DESC(Type=DML_TENSOR_TYPE_BUFFER, Desc=DML_BUFFER_TENSOR_DESC(
        DataType=data_type, Flags=DML_TENSOR_FLAG_NONE, Sizes=sizes, Strides=strides,
        TotalTensorSizeInBytes=size, GuaranteedBaseOffsetAlignment=0)), size


def main():
    device = D3D12CreateDevice(None, D3D_FEATURE_LEVEL_11_0)
    queue = device.CreateCommandQueue(D3D12_COMMAND_QUEUE_DESC(
        Type=D3D12_COMMAND_LIST_TYPE_DIRECT, Flags=D3D12_COMMAND_QUEUE_FLAG_NONE))
    allocator = device.CreateCommandAllocator(D3D12_COMMAND_LIST_TYPE_DIRECT)
    command_list = device.CreateCommandList(0, D3D12_COMMAND_LIST_TYPE_DIRECT, allocator, None)
    dml = DMLCreateDevice(device, DML_CREATE_DEVICE_FLAG_DEBUG)

    # Tensors: a broadcast UINT8 condition and packed FLOAT16 A, B and output.
    sizes = [2, 3, 4]
    condition_desc, condition_bytes = tensor_desc(DML_TENSOR_DATA_TYPE_UINT8, sizes, [0, 4, 1])
    data_desc, data_bytes = tensor_desc(DML_TENSOR_DATA_TYPE_FLOAT16, sizes)
    assert condition_bytes == 12 and data_bytes == 48
    if_desc = DML_ELEMENT_WISE_IF_OPERATOR_DESC(
        ConditionTensor=condition_desc, ATensor=data_desc, BTensor=data_desc, OutputTensor=data_desc)
    operator = dml.CreateOperator(DML_OPERATOR_DESC(Type=DML_OPERATOR_ELEMENT_WISE_IF, Desc=if_desc))
    compiled = dml.CompileOperator(operator, DML_EXECUTION_FLAG_NONE)
    initializer = dml.CreateOperatorInitializer([compiled])

    # A descriptor heap with two ranges, as both dispatches go into one command list and each reads its
    # descriptors when it executes: the initializer's first, then the compiled operator's.
    init_count = initializer.GetBindingProperties().RequiredDescriptorCount
    exec_properties = compiled.GetBindingProperties()
    heap = device.CreateDescriptorHeap(D3D12_DESCRIPTOR_HEAP_DESC(
        Type=D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, NumDescriptors=init_count + exec_properties.RequiredDescriptorCount,
        Flags=D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE, NodeMask=0))
    cpu, gpu = heap.GetCPUDescriptorHandleForHeapStart(), heap.GetGPUDescriptorHandleForHeapStart()
    table_desc = DML_BINDING_TABLE_DESC(Dispatchable=initializer, CPUDescriptorHandle=cpu, GPUDescriptorHandle=gpu,
                                        SizeInDescriptors=init_count)
    table = dml.CreateBindingTable(table_desc)
    # The persistent resource, if the operator needs one (the initializer writes it; IF keeps nothing there by
    # default: its constants are root constants; DMLEMU_STRICT_HOST=1 makes every operator need one).
    persistent_size = exec_properties.PersistentResourceSize
    persistent_binding = DML_BINDING_DESC(Type=DML_BINDING_TYPE_NONE, Desc=None)
    if persistent_size:
        persistent = device.CreateCommittedResource(
            CD3DX12_HEAP_PROPERTIES(D3D12_HEAP_TYPE_DEFAULT), D3D12_HEAP_FLAG_NONE,
            CD3DX12_RESOURCE_DESC.Buffer(persistent_size, D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS),
            D3D12_RESOURCE_STATE_COMMON, None)
        persistent_binding = DML_BINDING_DESC(Type=DML_BINDING_TYPE_BUFFER, Desc=DML_BUFFER_BINDING(
            Buffer=persistent, Offset=0, SizeInBytes=persistent_size))
    table.BindOutputs([persistent_binding])
    temporaries = []            # a temporary resource for each dispatchable that asks for one

    def bind_temporary(binding_table, size):
        if size:
            temporaries.append(device.CreateCommittedResource(
                CD3DX12_HEAP_PROPERTIES(D3D12_HEAP_TYPE_DEFAULT), D3D12_HEAP_FLAG_NONE,
                CD3DX12_RESOURCE_DESC.Buffer(size, D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS),
                D3D12_RESOURCE_STATE_COMMON, None))
            binding_table.BindTemporaryResource(DML_BINDING_DESC(Type=DML_BINDING_TYPE_BUFFER, Desc=DML_BUFFER_BINDING(
                Buffer=temporaries[-1], Offset=0, SizeInBytes=size)))

    bind_temporary(table, initializer.GetBindingProperties().TemporaryResourceSize)
    recorder = dml.CreateCommandRecorder()
    command_list.SetDescriptorHeaps([heap])
    recorder.RecordDispatch(command_list, initializer, table)
    if persistent_size:
        command_list.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.UAV(persistent)])

    # Inputs: a checkerboard mask (one 3 x 4 plane), A = 1 .. 24, B = -1 .. -24 with a NaN and a -0.
    mask = (np.add.outer(np.arange(3), np.arange(4)) % 2 == 0).astype(np.uint8)
    a = np.arange(1, 25, dtype=np.float16).reshape(sizes)
    b = -np.arange(1, 25, dtype=np.float16).reshape(sizes)
    b[0, 0, 1], b[1, 2, 3] = np.nan, -0.0
    upload = device.CreateCommittedResource(
        CD3DX12_HEAP_PROPERTIES(D3D12_HEAP_TYPE_UPLOAD), D3D12_HEAP_FLAG_NONE,
        CD3DX12_RESOURCE_DESC.Buffer(256 * 3), D3D12_RESOURCE_STATE_GENERIC_READ, None)
    mapped = upload.Map(0, None)
    mapped[0:condition_bytes] = mask.reshape(-1)           # the 12 bytes both batch entries read
    mapped[256:256 + data_bytes] = a.view(np.uint8).reshape(-1)
    mapped[512:512 + data_bytes] = b.view(np.uint8).reshape(-1)
    upload.Unmap(0, None)

    def default_buffer(size, state):
        return device.CreateCommittedResource(
            CD3DX12_HEAP_PROPERTIES(D3D12_HEAP_TYPE_DEFAULT), D3D12_HEAP_FLAG_NONE,
            CD3DX12_RESOURCE_DESC.Buffer(size, D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS), state, None)

    inputs = []
    for offset, size in ((0, condition_bytes), (256, data_bytes), (512, data_bytes)):
        buffer = default_buffer(size, D3D12_RESOURCE_STATE_COPY_DEST)
        command_list.CopyBufferRegion(buffer, 0, upload, offset, size)
        command_list.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.Transition(
            buffer, D3D12_RESOURCE_STATE_COPY_DEST, D3D12_RESOURCE_STATE_UNORDERED_ACCESS)])
        inputs.append((buffer, size))
    output = default_buffer(data_bytes, D3D12_RESOURCE_STATE_UNORDERED_ACCESS)

    # Rebind the table for the compiled operator, record it, copy the output to a readback buffer.
    increment = device.GetDescriptorHandleIncrementSize(D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV)
    table.Reset(DML_BINDING_TABLE_DESC(
        Dispatchable=compiled, CPUDescriptorHandle=D3D12_CPU_DESCRIPTOR_HANDLE(ptr=cpu.ptr + init_count * increment),
        GPUDescriptorHandle=D3D12_GPU_DESCRIPTOR_HANDLE(ptr=gpu.ptr + init_count * increment),
        SizeInDescriptors=exec_properties.RequiredDescriptorCount))
    table.BindPersistentResource(persistent_binding)
    bind_temporary(table, exec_properties.TemporaryResourceSize)
    table.BindInputs([DML_BINDING_DESC(Type=DML_BINDING_TYPE_BUFFER,
                                       Desc=DML_BUFFER_BINDING(Buffer=buffer, Offset=0, SizeInBytes=size))
                      for buffer, size in inputs])
    table.BindOutputs([DML_BINDING_DESC(Type=DML_BINDING_TYPE_BUFFER,
                                        Desc=DML_BUFFER_BINDING(Buffer=output, Offset=0, SizeInBytes=data_bytes))])
    recorder.RecordDispatch(command_list, compiled, table)
    command_list.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.UAV(output), CD3DX12_RESOURCE_BARRIER.Transition(
        output, D3D12_RESOURCE_STATE_UNORDERED_ACCESS, D3D12_RESOURCE_STATE_COPY_SOURCE)])
    readback = device.CreateCommittedResource(
        CD3DX12_HEAP_PROPERTIES(D3D12_HEAP_TYPE_READBACK), D3D12_HEAP_FLAG_NONE,
        CD3DX12_RESOURCE_DESC.Buffer(data_bytes), D3D12_RESOURCE_STATE_COPY_DEST, None)
    command_list.CopyResource(readback, output)

    # Execute and wait on a fence.
    command_list.Close()
    queue.ExecuteCommandLists([command_list])
    fence = device.CreateFence(0, D3D12_FENCE_FLAG_NONE)
    queue.Signal(fence, 1)
    fence.SetEventOnCompletion(1, None)

    y = readback.Map(0, None)[:data_bytes].copy().view(np.float16).reshape(sizes)
    readback.Unmap(0, None)
    print("condition (one plane, broadcast to both batch entries):")
    print(mask)
    print("output:")
    print(y)
    expected = golden.if_(np.broadcast_to(mask, sizes), a, b)
    if not np.array_equal(y.view(np.uint16), expected.view(np.uint16)):
        raise SystemExit(f"IF output differs from dmlemu.golden:\n got      {y}\n expected {expected}")
    print("bit-exact against dmlemu.golden (the NaN and the -0 of B came through as they were).")


if __name__ == "__main__":
    main()
