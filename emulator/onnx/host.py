"""The host program that runs a converted model: what ONNX Runtime's DirectML provider does with its
compiled graph, written with the D3D12 / DirectML mirror as a C++ host program would.

1. IDMLDevice1::CompileGraph, once, for the whole model (the caller has made every IDMLOperator;
   a refusal there is the caller's ConversionError);
2. every graph input (the model's inputs and its initializers, which the converter makes graph inputs)
   is written into an UPLOAD heap buffer and copied into a DEFAULT heap buffer;
3. the initializer (IDMLDevice::CreateOperatorInitializer) fills the persistent resource, with its
   own binding table: the DML_TENSOR_FLAG_OWNED_BY_DML graph inputs (the initializers) bound as its
   DML_BUFFER_ARRAY_BINDING, copied into the persistent resource; the temporary resource if it needs one;
4. the graph's binding table binds inputs, outputs, the persistent and the temporary resource;
   RecordDispatch, a copy of each output into a READBACK buffer, ExecuteCommandLists, a fence;
5. the outputs are read back from the mapped READBACK buffer.

Step 4 is captured (traces.capture at detail "dispatch"): the trace has one `dispatches` row per
dispatch of the compiled graph, in order, each named by its DML nodes' names, which the converter
makes the ONNX node names. `on_dispatch(row_index)` (if given) is called as each dispatch ends.
"""
import numpy as np

from dmlemu.d3d12 import (
    CD3DX12_HEAP_PROPERTIES, CD3DX12_RESOURCE_BARRIER, CD3DX12_RESOURCE_DESC, D3D12_COMMAND_LIST_TYPE_DIRECT,
    D3D12_COMMAND_QUEUE_DESC, D3D12_CPU_DESCRIPTOR_HANDLE, D3D12_DESCRIPTOR_HEAP_DESC,
    D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE, D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, D3D12_FENCE_FLAG_NONE,
    D3D12_GPU_DESCRIPTOR_HANDLE, D3D12_HEAP_FLAG_NONE, D3D12_HEAP_TYPE_DEFAULT, D3D12_HEAP_TYPE_READBACK,
    D3D12_HEAP_TYPE_UPLOAD, D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS, D3D12_RESOURCE_FLAG_NONE,
    D3D12_RESOURCE_STATE_COMMON, D3D12_RESOURCE_STATE_COPY_DEST, D3D12_RESOURCE_STATE_COPY_SOURCE,
    D3D12_RESOURCE_STATE_GENERIC_READ, D3D12_RESOURCE_STATE_UNORDERED_ACCESS, D3D_FEATURE_LEVEL_11_0,
    D3D12CreateDevice,
)
from dmlemu.d3d12.inspection import inspect
from dmlemu.errors import HResultError
from dmlemu.directml import (
    DML_BINDING_DESC, DML_BINDING_TABLE_DESC, DML_BINDING_TYPE_BUFFER, DML_BINDING_TYPE_BUFFER_ARRAY,
    DML_BINDING_TYPE_NONE, DML_BUFFER_ARRAY_BINDING, DML_BUFFER_BINDING,
    DML_CREATE_DEVICE_FLAG_NONE, DML_EXECUTION_FLAG_NONE, IID_IDMLDevice1, DMLCreateDevice,
)
from dmlemu.traces.capture import capture
from dmlemu.traces.recorder import DEFAULT_MAX_ROWS, SPILL_BYTES, TraceRecorder

__all__ = ["Host"]


class _Announcing(TraceRecorder):
    """The trace recorder, calling `on_dispatch(index)` as each dispatch's row is written."""

    def __init__(self, on_dispatch, *args):
        super().__init__(*args)
        self._on_dispatch, self._count = on_dispatch, 0

    def _announce(self):
        self._on_dispatch(self._count)
        self._count += 1

    def end_dispatch(self, stats, end):
        super().end_dispatch(stats, end)
        self._announce()

    def untimed_dispatch(self, launch, stats, start, end):
        super().untimed_dispatch(launch, stats, start, end)
        self._announce()


class Host:
    """A D3D12 device on `adapter` (None, a preset key, an AdapterPreset or an IDXGIAdapter), its
    DirectML device, a direct queue, an allocator, a command list and a fence. `timing`: False runs the
    GPU emulation-only (the same bits; estimated cycles)."""

    def __init__(self, adapter=None, timing=True):
        if isinstance(adapter, str):
            from dmlemu.presets import preset_by_key
            adapter = preset_by_key(adapter)
        self.device = D3D12CreateDevice(adapter, D3D_FEATURE_LEVEL_11_0)
        inspect(self.device).gpu.timing = bool(timing)
        self.dml = DMLCreateDevice(self.device, DML_CREATE_DEVICE_FLAG_NONE)
        self.queue = self.device.CreateCommandQueue(D3D12_COMMAND_QUEUE_DESC(Type=D3D12_COMMAND_LIST_TYPE_DIRECT))
        self.allocator = self.device.CreateCommandAllocator(D3D12_COMMAND_LIST_TYPE_DIRECT)
        self.list = self.device.CreateCommandList(0, D3D12_COMMAND_LIST_TYPE_DIRECT, self.allocator, None)
        self.recorder = self.dml.CreateCommandRecorder()
        self.fence = self.device.CreateFence(0, D3D12_FENCE_FLAG_NONE)
        self.fence_value = 0

    @property
    def preset(self):
        return inspect(self.device).gpu.preset

    def compile(self, graph_desc):
        """IDMLDevice1::CompileGraph of the whole model."""
        return self.dml.QueryInterface(IID_IDMLDevice1).CompileGraph(graph_desc, DML_EXECUTION_FLAG_NONE)

    def buffer(self, size, heap_type=D3D12_HEAP_TYPE_DEFAULT, state=D3D12_RESOURCE_STATE_COMMON):
        flags = D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS if heap_type == D3D12_HEAP_TYPE_DEFAULT else \
            D3D12_RESOURCE_FLAG_NONE
        return self.device.CreateCommittedResource(CD3DX12_HEAP_PROPERTIES(heap_type), D3D12_HEAP_FLAG_NONE,
                                                   CD3DX12_RESOURCE_DESC.Buffer(max(256, size), flags), state, None)

    def _submit(self):
        self.list.Close()
        self.queue.ExecuteCommandLists([self.list])
        self.fence_value += 1
        self.queue.Signal(self.fence, self.fence_value)
        self.fence.SetEventOnCompletion(self.fence_value, None)
        self.allocator.Reset()
        self.list.Reset(self.allocator, None)

    def execute(self, compiled, inputs, output_sizes, owned=(), on_dispatch=None):
        """Upload `inputs` (one array per graph input, in order), initialize `compiled` (`owned`: per graph input,
        whether it is DML_TENSOR_FLAG_OWNED_BY_DML: bound to the initializer, DML_BINDING_TYPE_NONE at execution),
        bind, dispatch and read back the outputs (`output_sizes`: each graph output's TotalTensorSizeInBytes).
        Returns (the output bytes as uint8 arrays, the trace of the graph's execution)."""
        owned = list(owned) or [False] * len(inputs)
        props = compiled.GetBindingProperties()
        initializer = self.dml.CreateOperatorInitializer([compiled])
        init_props = initializer.GetBindingProperties()
        heap = self.device.CreateDescriptorHeap(D3D12_DESCRIPTOR_HEAP_DESC(
            Type=D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, Flags=D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE,
            NumDescriptors=max(1, init_props.RequiredDescriptorCount + props.RequiredDescriptorCount)))
        self.list.SetDescriptorHeaps([heap])
        cpu, gpu = heap.GetCPUDescriptorHandleForHeapStart(), heap.GetGPUDescriptorHandleForHeapStart()
        step = self.device.GetDescriptorHandleIncrementSize(D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV)

        def binding(resource, size):
            return DML_BINDING_DESC(Type=DML_BINDING_TYPE_BUFFER,
                                    Desc=DML_BUFFER_BINDING(Buffer=resource, Offset=0, SizeInBytes=size))

        # 1. The graph inputs: UPLOAD buffers copied into DEFAULT buffers the graph reads as UAVs (the DML-owned
        #    ones, the constants, are read once, by the initializer).
        staging, targets = [], []
        for array in inputs:
            data = np.ascontiguousarray(array).view(np.uint8).reshape(-1)
            upload = self.buffer(data.size, D3D12_HEAP_TYPE_UPLOAD, D3D12_RESOURCE_STATE_GENERIC_READ)
            upload.Map(0, None)[:data.size] = data
            upload.Unmap(0, None)
            target = self.buffer(data.size, state=D3D12_RESOURCE_STATE_COPY_DEST)
            self.list.CopyBufferRegion(target, 0, upload, 0, data.size)
            self.list.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.Transition(
                target, D3D12_RESOURCE_STATE_COPY_DEST, D3D12_RESOURCE_STATE_UNORDERED_ACCESS)])
            staging.append(upload)
            targets.append((target, data.size))

        # 2. The initializer fills the persistent resource: each node's constants, each DML-owned input.
        persistent = self.buffer(props.PersistentResourceSize) if props.PersistentResourceSize else None
        temporary_size = max(props.TemporaryResourceSize, init_props.TemporaryResourceSize)
        temporary = self.buffer(temporary_size) if temporary_size else None
        table = self.dml.CreateBindingTable(DML_BINDING_TABLE_DESC(
            Dispatchable=initializer, CPUDescriptorHandle=cpu, GPUDescriptorHandle=gpu,
            SizeInDescriptors=init_props.RequiredDescriptorCount))
        if any(owned):
            table.BindInputs([DML_BINDING_DESC(Type=DML_BINDING_TYPE_BUFFER_ARRAY, Desc=DML_BUFFER_ARRAY_BINDING(
                Bindings=[DML_BUFFER_BINDING(Buffer=target if o else None, Offset=0, SizeInBytes=size if o else 0)
                          for (target, size), o in zip(targets, owned)]))])
        if persistent is not None:
            table.BindOutputs([binding(persistent, props.PersistentResourceSize)])
        if init_props.TemporaryResourceSize:
            table.BindTemporaryResource(binding(temporary, init_props.TemporaryResourceSize))
        self.recorder.RecordDispatch(self.list, initializer, table)
        if persistent is not None:
            self.list.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.UAV(persistent)])
        self._submit()
        # Host memory: the copies and the initializer have run, so the UPLOAD buffers go back, and so do the
        # DML-owned inputs' buffers (the persistent resource holds the constants now, as DirectML's does).
        staging.clear()
        targets = [(None, size) if o else (target, size) for (target, size), o in zip(targets, owned)]
        input_bindings = [DML_BINDING_DESC(Type=DML_BINDING_TYPE_NONE, Desc=None) if o else binding(target, size)
                          for (target, size), o in zip(targets, owned)]

        # 3. The graph: its binding table (the heap's next range), RecordDispatch, then the readback copies.
        self.list.SetDescriptorHeaps([heap])
        first = init_props.RequiredDescriptorCount
        table.Reset(DML_BINDING_TABLE_DESC(
            Dispatchable=compiled, CPUDescriptorHandle=D3D12_CPU_DESCRIPTOR_HANDLE(ptr=cpu.ptr + first * step),
            GPUDescriptorHandle=D3D12_GPU_DESCRIPTOR_HANDLE(ptr=gpu.ptr + first * step),
            SizeInDescriptors=props.RequiredDescriptorCount))
        outputs = [self.buffer(size) for size in output_sizes]
        table.BindInputs(input_bindings)
        table.BindOutputs([binding(b, size) for b, size in zip(outputs, output_sizes)])
        if persistent is not None:
            table.BindPersistentResource(binding(persistent, props.PersistentResourceSize))
        if props.TemporaryResourceSize:
            table.BindTemporaryResource(binding(temporary, props.TemporaryResourceSize))
        self.recorder.RecordDispatch(self.list, compiled, table)
        readback = self.buffer(256 * len(outputs) + sum(output_sizes), D3D12_HEAP_TYPE_READBACK,
                               D3D12_RESOURCE_STATE_COPY_DEST)
        offsets, at = [], 0
        for b, size in zip(outputs, output_sizes):
            self.list.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.Transition(
                b, D3D12_RESOURCE_STATE_UNORDERED_ACCESS, D3D12_RESOURCE_STATE_COPY_SOURCE)])
            self.list.CopyBufferRegion(readback, at, b, 0, size)
            offsets.append(at)
            at += -(-size // 256) * 256
        cap = capture(self.device, detail="dispatch")
        if on_dispatch is not None:
            gpu_model = inspect(self.device).gpu
            cap.recorder = _Announcing(on_dispatch, gpu_model.preset, gpu_model.wave_width, "dispatch",
                                       DEFAULT_MAX_ROWS, SPILL_BYTES, None)
        with cap:
            self._submit()

        reason = self.device.GetDeviceRemovedReason()
        if reason:
            raise HResultError(reason, f"the device was removed while the graph ran: "
                                       f"{inspect(self.device).removed_reason[1]}")

        # 4. Readback.
        mapped = readback.Map(0, None)
        results = [np.array(mapped[o:o + size]) for o, size in zip(offsets, output_sizes)]
        readback.Unmap(0, None)
        return results, cap.trace
