"""Several DirectML operators on one emulated device, written as a DirectML program is.

`emulator.convenience.run_operator` creates a fresh device for every call. The demo wants its
operators on ONE device, one after the other, so that one trace capture (traces.capture) holds
every dispatch on one timeline. `MirrorSession` is that explicit flow, call for call the
HelloDirectML sequence: D3D12 device, queue, allocator, command list; DML device; then, per
operator, CreateOperator, CompileOperator, an initializer, a descriptor heap and binding table,
UPLOAD -> DEFAULT copies, RecordDispatch, a READBACK copy, ExecuteCommandLists and a fence wait.
"""
import numpy as np

from emulator import golden
from emulator.d3d12 import (
    CD3DX12_HEAP_PROPERTIES, CD3DX12_RESOURCE_BARRIER, CD3DX12_RESOURCE_DESC, D3D12_COMMAND_LIST_TYPE_DIRECT,
    D3D12_COMMAND_QUEUE_DESC, D3D12_COMMAND_QUEUE_FLAG_NONE, D3D12_DESCRIPTOR_HEAP_DESC,
    D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE, D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, D3D12_FENCE_FLAG_NONE,
    D3D12_HEAP_FLAG_NONE, D3D12_HEAP_TYPE_DEFAULT, D3D12_HEAP_TYPE_READBACK, D3D12_HEAP_TYPE_UPLOAD,
    D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS, D3D12_RESOURCE_FLAG_NONE, D3D12_RESOURCE_STATE_COMMON,
    D3D12_RESOURCE_STATE_COPY_DEST, D3D12_RESOURCE_STATE_COPY_SOURCE, D3D12_RESOURCE_STATE_GENERIC_READ,
    D3D12_RESOURCE_STATE_UNORDERED_ACCESS, D3D_FEATURE_LEVEL_11_0, D3D12CreateDevice,
)
from emulator.directml import (
    DML_BINDING_DESC, DML_BINDING_TABLE_DESC, DML_BINDING_TYPE_BUFFER, DML_BUFFER_BINDING,
    DML_CREATE_DEVICE_FLAG_DEBUG, DMLCreateDevice,
)
from emulator.dxgi import CreateDXGIFactory1
from emulator.presets import PRESETS

__all__ = ["MirrorSession"]


def _binding(resource, size):
    return DML_BINDING_DESC(Type=DML_BINDING_TYPE_BUFFER,
                            Desc=DML_BUFFER_BINDING(Buffer=resource, Offset=0, SizeInBytes=size))


class MirrorSession:
    """One D3D12 device and one DML device on an adapter preset (by key; None: the default)."""

    def __init__(self, adapter=None, feature_level=None):
        dxgi_adapter = None
        if adapter is not None:
            index = [p.key for p in PRESETS].index(adapter)
            dxgi_adapter = CreateDXGIFactory1().EnumAdapters1(index)
        self.device = D3D12CreateDevice(dxgi_adapter, D3D_FEATURE_LEVEL_11_0)
        self.dml = DMLCreateDevice(self.device, DML_CREATE_DEVICE_FLAG_DEBUG, max_feature_level=feature_level)
        self.queue = self.device.CreateCommandQueue(D3D12_COMMAND_QUEUE_DESC(
            Type=D3D12_COMMAND_LIST_TYPE_DIRECT, Flags=D3D12_COMMAND_QUEUE_FLAG_NONE))
        self.allocator = self.device.CreateCommandAllocator(D3D12_COMMAND_LIST_TYPE_DIRECT)
        self.command_list = self.device.CreateCommandList(0, D3D12_COMMAND_LIST_TYPE_DIRECT, self.allocator, None)
        self.recorder = self.dml.CreateCommandRecorder()
        self.fence = self.device.CreateFence(0, D3D12_FENCE_FLAG_NONE)
        self.fence_value = 0

    def _buffer(self, size, heap_type, state, uav=True):
        flags = D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS if uav else D3D12_RESOURCE_FLAG_NONE
        return self.device.CreateCommittedResource(
            CD3DX12_HEAP_PROPERTIES(heap_type), D3D12_HEAP_FLAG_NONE,
            CD3DX12_RESOURCE_DESC.Buffer(max(4, size), flags), state, None)

    def _execute_and_wait(self):
        self.command_list.Close()
        self.queue.ExecuteCommandLists([self.command_list])
        self.fence_value += 1
        self.queue.Signal(self.fence, self.fence_value)
        self.fence.SetEventOnCompletion(self.fence_value, None)   # None: block until the GPU gets there
        self.allocator.Reset()
        self.command_list.Reset(self.allocator, None)

    def run(self, op_desc, inputs, flags=0):
        """Create, compile, initialize, bind, record and execute one operator; returns its outputs.

        `inputs` are NumPy arrays in binding order, in the tensors' logical shapes and dtypes.
        """
        compiled = self.dml.CompileOperator(self.dml.CreateOperator(op_desc), flags)
        info = compiled._info
        initializer = self.dml.CreateOperatorInitializer([compiled])
        init_props, exec_props = initializer.GetBindingProperties(), compiled.GetBindingProperties()
        count = max(1, init_props.RequiredDescriptorCount, exec_props.RequiredDescriptorCount)
        heap = self.device.CreateDescriptorHeap(D3D12_DESCRIPTOR_HEAP_DESC(
            Type=D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, NumDescriptors=count,
            Flags=D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE, NodeMask=0))
        table_desc = DML_BINDING_TABLE_DESC(
            Dispatchable=initializer, CPUDescriptorHandle=heap.GetCPUDescriptorHandleForHeapStart(),
            GPUDescriptorHandle=heap.GetGPUDescriptorHandleForHeapStart(), SizeInDescriptors=count)
        table = self.dml.CreateBindingTable(table_desc)
        temporary_size = max(init_props.TemporaryResourceSize, exec_props.TemporaryResourceSize)
        temporary = self._buffer(temporary_size, D3D12_HEAP_TYPE_DEFAULT, D3D12_RESOURCE_STATE_COMMON) \
            if temporary_size else None
        persistent = self._buffer(exec_props.PersistentResourceSize, D3D12_HEAP_TYPE_DEFAULT,
                                  D3D12_RESOURCE_STATE_COMMON) if exec_props.PersistentResourceSize else None
        if temporary is not None and init_props.TemporaryResourceSize:
            table.BindTemporaryResource(_binding(temporary, temporary_size))
        if persistent is not None:
            table.BindOutputs([_binding(persistent, exec_props.PersistentResourceSize)])
        self.command_list.SetDescriptorHeaps([heap])
        self.recorder.RecordDispatch(self.command_list, initializer, table)   # initialize the operator
        self._execute_and_wait()   # before the table's descriptors are rewritten for execution
        self.command_list.SetDescriptorHeaps([heap])

        # Inputs: UPLOAD buffer -> DEFAULT buffers, at each tensor's strides.
        offsets, end = [], 0
        for t in info.inputs:
            offsets.append(end)
            end += -(-t.total_bytes // 256) * 256
        upload = self._buffer(end, D3D12_HEAP_TYPE_UPLOAD, D3D12_RESOURCE_STATE_GENERIC_READ, uav=False)
        mapped = upload.Map(0, None)
        input_buffers = []
        for array, t, offset in zip(inputs, info.inputs, offsets):
            golden.scatter(mapped[offset:offset + t.total_bytes], 0, np.asarray(array), t.effective_strides)
            resource = self._buffer(t.total_bytes, D3D12_HEAP_TYPE_DEFAULT, D3D12_RESOURCE_STATE_COPY_DEST)
            self.command_list.CopyBufferRegion(resource, 0, upload, offset, t.total_bytes)
            self.command_list.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.Transition(
                resource, D3D12_RESOURCE_STATE_COPY_DEST, D3D12_RESOURCE_STATE_UNORDERED_ACCESS)])
            input_buffers.append(resource)
        upload.Unmap(0, None)
        outputs = [self._buffer(t.total_bytes, D3D12_HEAP_TYPE_DEFAULT, D3D12_RESOURCE_STATE_UNORDERED_ACCESS)
                   for t in info.outputs]

        # Rebind the table for execution and record the dispatch.
        table_desc.Dispatchable = compiled
        table.Reset(table_desc)
        if temporary is not None:
            table.BindTemporaryResource(_binding(temporary, temporary_size))
        if persistent is not None:
            table.BindPersistentResource(_binding(persistent, exec_props.PersistentResourceSize))
        table.BindInputs([_binding(r, t.total_bytes) for r, t in zip(input_buffers, info.inputs)])
        table.BindOutputs([_binding(r, t.total_bytes) for r, t in zip(outputs, info.outputs)])
        self.recorder.RecordDispatch(self.command_list, compiled, table)

        # Outputs: DEFAULT -> READBACK.
        self.command_list.ResourceBarrier(
            [CD3DX12_RESOURCE_BARRIER.UAV(r) for r in outputs]
            + [CD3DX12_RESOURCE_BARRIER.Transition(r, D3D12_RESOURCE_STATE_UNORDERED_ACCESS,
                                                   D3D12_RESOURCE_STATE_COPY_SOURCE) for r in outputs])
        readback_offsets, end = [], 0
        for t in info.outputs:
            readback_offsets.append(end)
            end += -(-t.total_bytes // 256) * 256
        readback = self._buffer(end, D3D12_HEAP_TYPE_READBACK, D3D12_RESOURCE_STATE_COPY_DEST, uav=False)
        for resource, t, offset in zip(outputs, info.outputs, readback_offsets):
            self.command_list.CopyBufferRegion(readback, offset, resource, 0, t.total_bytes)
        self._execute_and_wait()

        data = readback.Map(0, None)
        results = [golden.gather(data[offset:offset + t.total_bytes].copy(), 0, golden.DATA_TYPES[t.type_name],
                                 t.sizes, t.effective_strides)
                   for t, offset in zip(info.outputs, readback_offsets)]
        readback.Unmap(0, None)
        return results
