"""PyDirectML's Device, ported: the plumbing of a real DirectML host program on the dmlemu mirror.

Microsoft's PyDirectML (microsoft/DirectML, Python/src/device.cpp, device.h and util.cpp) wraps a
DirectML device in a `Device` object whose `compute(op, inputs)` runs one compiled operator the same
way every time. This file keeps that structure, call for call:

- Device.__init__ (device.cpp, Device::Device): a D3D12 device (on the WARP adapter,
  IDXGIFactory4::EnumWarpAdapter, when useGpu is false; with the D3D12 debug layer when asked), a
  COMPUTE command queue, allocator and list; a DML device tried with DML_CREATE_DEVICE_FLAG_DEBUG first; one command recorder, an empty
  operator initializer (CreateOperatorInitializer(0, nullptr)) and an empty binding table
  (CreateBindingTable(nullptr)) that every call Resets.
- Device.compute -> InitializeOperator + ExecuteOperator (device.cpp): Reset the initializer to the
  operator, bind the persistent resource as the initializer's output and its temporary resource,
  record, execute; then Reset the binding table to the operator, bind inputs, outputs, temporary and
  persistent resources, record, execute, read back. Persistent and temporary sizes are handled
  generically, whatever GetBindingProperties reports (buffers are created only when nonzero, grown
  when too small), as the real code does.
- FillGpuBuffer (util.cpp): before each use the input, output, temporary and persistent buffers are
  filled with 0xFFFFFFFF through a raw UAV clear (ClearUnorderedAccessViewUint on a RAW
  R32_TYPELESS view, descriptors from a non-shader-visible heap copied into the shader-visible one),
  so any byte DirectML does not write reads back as NaN.
- ExecuteCommandListAndWait / WaitForQueueToComplete (device.cpp): Close, ExecuteCommandLists, fence
  wait, allocator and list Reset.

Simplified: one input buffer per tensor instead of PyDirectML's packed input/output buffers (its
offsets rounded to max(GuaranteedBaseOffsetAlignment, 16)), and no OWNED_BY_DML weights.

    python examples/pydirectml_device.py          (from the repository root)
"""
import numpy as np

from dmlemu import golden
from dmlemu.d3d12 import *  # noqa: F401,F403
from dmlemu.directml import *  # noqa: F401,F403
from dmlemu.dxgi import CreateDXGIFactory1


class Device:
    """PyDirectML's pydml::Device (device.h): a DML device with the resources `compute` reuses."""

    def __init__(self, use_gpu=True, use_debug_layer=False):
        if use_debug_layer:     # the D3D12 debug layer, enabled before the device is created
            D3D12GetDebugInterface().EnableDebugLayer()
        adapter = None if use_gpu else CreateDXGIFactory1().EnumWarpAdapter()   # useGpu false: WARP
        self.d3d12 = D3D12CreateDevice(adapter, D3D_FEATURE_LEVEL_11_0)
        self.adapter_name = "the default adapter" if use_gpu else adapter.GetDesc1().Description
        # With the debug layer, D3D12's and DirectML's messages are kept in the device's info queue.
        self.info_queue = self.d3d12.QueryInterface(IID_ID3D12InfoQueue) if use_debug_layer else None
        self.queue = self.d3d12.CreateCommandQueue(D3D12_COMMAND_QUEUE_DESC(Type=D3D12_COMMAND_LIST_TYPE_COMPUTE))
        self.allocator = self.d3d12.CreateCommandAllocator(D3D12_COMMAND_LIST_TYPE_COMPUTE)
        self.list = self.d3d12.CreateCommandList(0, D3D12_COMMAND_LIST_TYPE_COMPUTE, self.allocator, None)
        self.fence = self.d3d12.CreateFence(0, D3D12_FENCE_FLAG_NONE)
        self.fence_value = 0
        try:   # device.cpp: the debug layer if it is installed, else without it
            self.dml = DMLCreateDevice(self.d3d12, DML_CREATE_DEVICE_FLAG_DEBUG)
        except HResultError:
            self.dml = DMLCreateDevice(self.d3d12, DML_CREATE_DEVICE_FLAG_NONE)
        self.recorder = self.dml.CreateCommandRecorder()
        self.initializer = self.dml.CreateOperatorInitializer([])
        self.binding_table = self.dml.CreateBindingTable(None)
        self.heap = None                     # shader-visible descriptor heap, grown on demand
        self.clear_heap = self.d3d12.CreateDescriptorHeap(D3D12_DESCRIPTOR_HEAP_DESC(   # CPU-only: for the clears
            Type=D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, NumDescriptors=1))
        self.temporary = self.persistent = None

    # ---- util.cpp --------------------------------------------------------------------------------
    def default_buffer(self, size):
        size = -(-size // 4) * 4   # raw views clear whole 32-bit words
        return self.d3d12.CreateCommittedResource(
            CD3DX12_HEAP_PROPERTIES(D3D12_HEAP_TYPE_DEFAULT), D3D12_HEAP_FLAG_NONE,
            CD3DX12_RESOURCE_DESC.Buffer(size, D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS),
            D3D12_RESOURCE_STATE_COMMON, None)

    def fill_gpu_buffer(self, slot, buffer, value=0xFFFFFFFF):
        """util.cpp FillGpuBuffer: a RAW UAV of the whole buffer in a CPU-only heap, copied into the
        shader-visible heap's `slot`, cleared with ClearUnorderedAccessViewUint, then a UAV barrier."""
        words = buffer.GetDesc().Width // 4
        view = D3D12_UNORDERED_ACCESS_VIEW_DESC(
            Format=DXGI_FORMAT_R32_TYPELESS, ViewDimension=D3D12_UAV_DIMENSION_BUFFER,
            Buffer=D3D12_BUFFER_UAV(FirstElement=0, NumElements=words, Flags=D3D12_BUFFER_UAV_FLAG_RAW))
        cpu = self.clear_heap.GetCPUDescriptorHandleForHeapStart()
        self.d3d12.CreateUnorderedAccessView(buffer, None, view, cpu)
        increment = self.d3d12.GetDescriptorHandleIncrementSize(D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV)
        visible_cpu = CD3DX12_CPU_DESCRIPTOR_HANDLE(self.heap.GetCPUDescriptorHandleForHeapStart(), slot, increment)
        visible_gpu = CD3DX12_GPU_DESCRIPTOR_HANDLE(self.heap.GetGPUDescriptorHandleForHeapStart(), slot, increment)
        self.d3d12.CopyDescriptorsSimple(1, visible_cpu, cpu, D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV)
        self.list.ClearUnorderedAccessViewUint(visible_gpu, cpu, buffer, [value] * 4, 0, None)
        self.list.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.UAV(buffer)])

    def ensure_heap(self, descriptors):
        """A shader-visible heap with room for the binding table and one clear slot after it."""
        needed = descriptors + 1
        if self.heap is None or self.heap.GetDesc().NumDescriptors < needed:
            self.heap = self.d3d12.CreateDescriptorHeap(D3D12_DESCRIPTOR_HEAP_DESC(
                Type=D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, NumDescriptors=needed,
                Flags=D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE))
        self.list.SetDescriptorHeaps([self.heap])

    def table_desc(self, dispatchable, descriptors):
        return DML_BINDING_TABLE_DESC(Dispatchable=dispatchable,
                                      CPUDescriptorHandle=self.heap.GetCPUDescriptorHandleForHeapStart(),
                                      GPUDescriptorHandle=self.heap.GetGPUDescriptorHandleForHeapStart(),
                                      SizeInDescriptors=descriptors)

    # ---- device.cpp --------------------------------------------------------------------------------
    def execute_and_wait(self):
        """ExecuteCommandListAndWait: Close, execute, wait on the fence, Reset allocator and list."""
        self.list.Close()
        self.queue.ExecuteCommandLists([self.list])
        self.fence_value += 1
        self.queue.Signal(self.fence, self.fence_value)
        self.fence.SetEventOnCompletion(self.fence_value, None)
        self.allocator.Reset()
        self.list.Reset(self.allocator, None)

    def sized(self, buffer, size):
        """The buffer, or a new one when it is missing or too small (0 bytes: none)."""
        if size == 0:
            return None
        if buffer is None or buffer.GetDesc().Width < size:
            return self.default_buffer(size)
        return buffer

    @staticmethod
    def binding(buffer, size):
        return DML_BINDING_DESC(Type=DML_BINDING_TYPE_BUFFER,
                                Desc=DML_BUFFER_BINDING(Buffer=buffer, Offset=0, SizeInBytes=size))

    def initialize_operator(self, op):
        """Device::InitializeOperator: persistent resource as the initializer's output, then record it."""
        self.initializer.Reset([op])
        init = self.initializer.GetBindingProperties()
        execute = op.GetBindingProperties()
        descriptors = max(init.RequiredDescriptorCount, execute.RequiredDescriptorCount)
        self.ensure_heap(descriptors)
        self.temporary = self.sized(self.temporary, max(init.TemporaryResourceSize, execute.TemporaryResourceSize))
        self.persistent = self.sized(self.persistent, execute.PersistentResourceSize)
        clear_slot = descriptors
        for buffer in (self.temporary, self.persistent):
            if buffer is not None:
                self.fill_gpu_buffer(clear_slot, buffer)
        self.binding_table.Reset(self.table_desc(self.initializer, descriptors))
        if init.TemporaryResourceSize:
            self.binding_table.BindTemporaryResource(self.binding(self.temporary, init.TemporaryResourceSize))
        if execute.PersistentResourceSize:
            self.binding_table.BindOutputs([self.binding(self.persistent, execute.PersistentResourceSize)])
        self.recorder.RecordDispatch(self.list, self.initializer, self.binding_table)
        self.execute_and_wait()
        return descriptors

    def execute_operator(self, op, inputs, output_sizes, descriptors):
        """Device::ExecuteOperator: upload, fill, bind, record, execute and read back."""
        execute = op.GetBindingProperties()
        self.list.SetDescriptorHeaps([self.heap])
        uploads, input_buffers, bindings = [], [], []
        for data in inputs:
            raw = np.ascontiguousarray(data).view(np.uint8).reshape(-1)
            upload = self.d3d12.CreateCommittedResource(
                CD3DX12_HEAP_PROPERTIES(D3D12_HEAP_TYPE_UPLOAD), D3D12_HEAP_FLAG_NONE,
                CD3DX12_RESOURCE_DESC.Buffer(raw.size), D3D12_RESOURCE_STATE_GENERIC_READ, None)
            buffer = self.default_buffer(raw.size)
            self.fill_gpu_buffer(descriptors, buffer)
            self.list.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.Transition(
                buffer, D3D12_RESOURCE_STATE_UNORDERED_ACCESS, D3D12_RESOURCE_STATE_COPY_DEST)])
            UpdateSubresources(self.list, buffer, upload, 0, 0, 1, [D3D12_SUBRESOURCE_DATA(pData=raw)])
            self.list.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.Transition(
                buffer, D3D12_RESOURCE_STATE_COPY_DEST, D3D12_RESOURCE_STATE_UNORDERED_ACCESS)])
            uploads.append(upload)
            input_buffers.append(buffer)
            bindings.append(self.binding(buffer, raw.size))
        outputs = [self.default_buffer(size) for size in output_sizes]
        for buffer in outputs:
            self.fill_gpu_buffer(descriptors, buffer)
        if execute.TemporaryResourceSize:
            self.fill_gpu_buffer(descriptors, self.temporary)
        self.binding_table.Reset(self.table_desc(op, descriptors))
        self.binding_table.BindInputs(bindings)
        self.binding_table.BindOutputs([self.binding(b, s) for b, s in zip(outputs, output_sizes)])
        if execute.TemporaryResourceSize:
            self.binding_table.BindTemporaryResource(self.binding(self.temporary, execute.TemporaryResourceSize))
        if execute.PersistentResourceSize:
            self.binding_table.BindPersistentResource(self.binding(self.persistent, execute.PersistentResourceSize))
        self.recorder.RecordDispatch(self.list, op, self.binding_table)
        self.list.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.Transition(
            b, D3D12_RESOURCE_STATE_UNORDERED_ACCESS, D3D12_RESOURCE_STATE_COPY_SOURCE) for b in outputs])
        total = sum(-(-s // 256) * 256 for s in output_sizes)
        readback = self.d3d12.CreateCommittedResource(
            CD3DX12_HEAP_PROPERTIES(D3D12_HEAP_TYPE_READBACK), D3D12_HEAP_FLAG_NONE,
            CD3DX12_RESOURCE_DESC.Buffer(total), D3D12_RESOURCE_STATE_COPY_DEST, None)
        offset, offsets = 0, []
        for buffer, size in zip(outputs, output_sizes):
            self.list.CopyBufferRegion(readback, offset, buffer, 0, size)
            offsets.append(offset)
            offset += -(-size // 256) * 256
        self.execute_and_wait()
        mapped = readback.Map(0, None)
        results = [mapped[o:o + s].copy() for o, s in zip(offsets, output_sizes)]
        readback.Unmap(0, None)
        return results

    def compute(self, op, inputs, output_sizes):
        """Device::Compute: initialize the compiled operator, then execute it on `inputs`."""
        descriptors = self.initialize_operator(op)
        return self.execute_operator(op, inputs, output_sizes, descriptors)


def main():
    for use_gpu in (True, False):
        run(Device(use_gpu=use_gpu, use_debug_layer=not use_gpu))


def run(device):
    sizes = [1, 1, 3, 5]
    nbytes = DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT32, len(sizes), sizes, None)
    tensor = DML_TENSOR_DESC(Type=DML_TENSOR_TYPE_BUFFER, Desc=DML_BUFFER_TENSOR_DESC(
        DataType=DML_TENSOR_DATA_TYPE_FLOAT32, Flags=DML_TENSOR_FLAG_NONE, Sizes=sizes, Strides=None,
        TotalTensorSizeInBytes=nbytes))
    desc = DML_OPERATOR_DESC(Type=DML_OPERATOR_ELEMENT_WISE_CLIP, Desc=DML_ELEMENT_WISE_CLIP_OPERATOR_DESC(
        InputTensor=tensor, OutputTensor=tensor, ScaleBias=None, Min=-1.0, Max=1.0))
    op = device.dml.CompileOperator(device.dml.CreateOperator(desc), DML_EXECUTION_FLAG_NONE)
    x = np.linspace(-2.0, 2.0, 15, dtype=np.float32).reshape(sizes)
    for _ in range(2):   # PyDirectML runs initialize + execute on every compute() call
        [out] = device.compute(op, [x], [nbytes])
    y = out.view(np.float32).reshape(sizes)
    print("adapter:", device.adapter_name)
    print("x:", x.ravel())
    print("y:", y.ravel())
    expected = golden.clip(x, -1.0, 1.0)
    if not np.array_equal(y.view(np.uint32), expected.view(np.uint32)):
        raise SystemExit(f"CLIP output differs from dmlemu.golden:\n got      {y}\n expected {expected}")
    if device.info_queue is not None:
        count = device.info_queue.GetNumStoredMessages()
        if count:
            raise SystemExit(f"the debug layers stored {count} messages; the first: "
                             f"{device.info_queue.GetMessage(0, D3D12_MESSAGE(), 1 << 20).pDescription}")
        print("debug layers: no messages in the info queue.")
    print("bit-exact against dmlemu.golden.")


if __name__ == "__main__":
    main()
