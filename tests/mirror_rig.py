"""The D3D12 + DirectML flow every mirror test shares: MirrorRig and a few helpers around it.

A MirrorRig is what a DirectML program sets up before its first dispatch, through the public API:
a D3D12 device on an adapter, one command queue, allocator and open command list of one type and a
fence; with a DML device (dml_flags given) also a shader-visible CBV_SRV_UAV descriptor heap, set on
the list, and a command recorder. Its methods are the steps the tests repeat: buffers on each heap
type, uploads and readbacks, binding tables over the heap, initialization, HelloDirectML's
CloseExecuteResetWait (`execute`), and `run_operator`, one operator from CompileOperator to the
read-back outputs on the rig's devices. tests/conftest.py hands out the common ones as fixtures
(`d3d12_rig`, `dml_rig`).

The objects are created in this order (per-device counters name them in error sentences: "buffer
#1", "descriptor heap #1", "fence #1"): device, DML device, queue, allocator, list, heap, recorder,
fence. A rig creates no buffer itself.

`removal(device)` reads, through the public API, why a D3D12 or DML device was removed: its
GetDeviceRemovedReason and the sentence every later HRESULT call quotes.
"""
import numpy as np

from dmlemu import golden
from dmlemu.d3d12 import *  # noqa: F401,F403
from dmlemu.directml import *  # noqa: F401,F403
from dmlemu.directml import inspect
from dmlemu.errors import DXGI_ERROR_DEVICE_REMOVED, HResultError, S_OK
from dmlemu.presets import TEACHING

BITS = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
_ALIGNMENT = 256   # where each tensor starts in run_operator's upload and readback buffers


class MirrorRig:
    """A device, a queue, an allocator, an open command list and a fence; optionally a DML device.

    adapter: None (the default adapter), an IDXGIAdapter or an AdapterPreset.
    dml_flags: None for a D3D12-only rig, else the DML_CREATE_DEVICE_FLAGS of DMLCreateDevice.
    feature_level: the emulated DirectML runtime's highest level (max_feature_level).
    minimum_feature_level: given, the DML device comes from DMLCreateDevice1 with this minimum.
    heap_slots: descriptors in the shader-visible heap (default 16 with a DML device, none without).
    d3d12_debug: the D3D12 debug layer on (True) or off (False) for this device only.
    mute_debug_output: SetMuteDebugOutput(True) on a DML_CREATE_DEVICE_FLAG_DEBUG device.
    timing: False runs the device in emulation-only mode (same bits, estimated cycles).
    device: an existing D3D12 device to build on instead of a new one (adapter is then ignored).
    """

    def __init__(self, adapter=None, *, dml_flags=None, feature_level=None, minimum_feature_level=None,
                 list_type=D3D12_COMMAND_LIST_TYPE_DIRECT, heap_slots=None, d3d12_debug=None,
                 mute_debug_output=False, timing=None, device=None):
        if device is not None and d3d12_debug is not None:
            raise ValueError("MirrorRig: d3d12_debug applies to a device the rig creates; create `device` with "
                             "D3D12CreateDevice(..., debug_layer=...) instead.")
        # D3D12's switch (D3D12GetDebugInterface().EnableDebugLayer()) is process-wide; D3D12CreateDevice's
        # debug_layer keyword (a dmlemu extension) sets one device's, so one rig sets only its own.
        self.device = device if device is not None else D3D12CreateDevice(adapter, D3D_FEATURE_LEVEL_11_0,
                                                                          debug_layer=d3d12_debug)
        if timing is not None:
            self.gpu.timing = timing
        self.dml = None
        if dml_flags is not None:
            if minimum_feature_level is not None:
                self.dml = DMLCreateDevice1(self.device, dml_flags, minimum_feature_level,
                                            max_feature_level=feature_level)
            else:
                self.dml = DMLCreateDevice(self.device, dml_flags, max_feature_level=feature_level)
            if mute_debug_output and dml_flags & DML_CREATE_DEVICE_FLAG_DEBUG:
                self.dml.SetMuteDebugOutput(True)
        self.list_type = list_type
        self.queue = self.device.CreateCommandQueue(D3D12_COMMAND_QUEUE_DESC(Type=list_type))
        self.allocator = self.device.CreateCommandAllocator(list_type)
        self.list = self.device.CreateCommandList(0, list_type, self.allocator, None)
        if heap_slots is None:
            heap_slots = 16 if self.dml is not None else 0
        self.heap = None
        if heap_slots:
            self.heap = self.shader_visible_heap(heap_slots)
            self.set_heap_on(self.list)
        self.recorder = self.dml.CreateCommandRecorder() if self.dml is not None else None
        self.fence = self.device.CreateFence(0, D3D12_FENCE_FLAG_NONE)
        self.fence_value = 0
        self.persistent = {}   # compiled operator -> the persistent resource `initialize` bound for it

    # ---- the emulated GPU behind the device (internals, for the tests that check memory itself) ----------------
    @property
    def gpu(self):
        """The device's emulated GPU: its GpuMemory (guard bytes, bytes in use), its clock, its timing switch."""
        return inspect(self.device).gpu

    @property
    def memory(self):
        return self.gpu.memory

    # ---- objects ---------------------------------------------------------------------------------------------
    def shader_visible_heap(self, slots):
        return self.device.CreateDescriptorHeap(D3D12_DESCRIPTOR_HEAP_DESC(
            Type=D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, NumDescriptors=slots,
            Flags=D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE))

    def set_heap_on(self, command_list):
        if self.heap is not None and self.list_type != D3D12_COMMAND_LIST_TYPE_COPY:
            command_list.SetDescriptorHeaps([self.heap])

    def buffer(self, size, heap_type=D3D12_HEAP_TYPE_DEFAULT, state=None, uav=True, device=None):
        """A committed buffer. UPLOAD buffers start in GENERIC_READ, READBACK ones in COPY_DEST, others in `state`
        (default COMMON); DEFAULT buffers allow unordered access unless uav is False."""
        fixed = {D3D12_HEAP_TYPE_UPLOAD: D3D12_RESOURCE_STATE_GENERIC_READ,
                 D3D12_HEAP_TYPE_READBACK: D3D12_RESOURCE_STATE_COPY_DEST}
        state = fixed.get(heap_type, D3D12_RESOURCE_STATE_COMMON if state is None else state)
        flags = D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS if uav and heap_type == D3D12_HEAP_TYPE_DEFAULT \
            else D3D12_RESOURCE_FLAG_NONE
        return (device or self.device).CreateCommittedResource(
            CD3DX12_HEAP_PROPERTIES(heap_type), D3D12_HEAP_FLAG_NONE, CD3DX12_RESOURCE_DESC.Buffer(size, flags),
            state, None)

    def upload_buffer(self, data):
        """An UPLOAD buffer holding `data`'s bytes."""
        data = np.ascontiguousarray(data).view(np.uint8).reshape(-1)
        buffer = self.buffer(data.size, D3D12_HEAP_TYPE_UPLOAD)
        buffer.Map(0, None)[:] = data
        buffer.Unmap(0, None)
        return buffer

    def record_upload(self, resource, data, offset=0):
        """Record a copy of `data`'s bytes into `resource` at `offset` (through a new UPLOAD buffer, returned)."""
        data = np.ascontiguousarray(data).view(np.uint8).reshape(-1)
        staging = self.buffer(max(4, data.size), D3D12_HEAP_TYPE_UPLOAD)
        staging.Map(0, None)[:data.size] = data
        self.list.CopyBufferRegion(resource, offset, staging, 0, data.size)
        return staging

    def write(self, resource, data, offset=0):
        """Copy bytes into a DEFAULT buffer and execute (the buffer decays back to COMMON)."""
        staging = self.record_upload(resource, data, offset)
        self.execute()
        del staging

    def download(self, resources):
        """Every byte of each buffer, copied through one READBACK buffer in one submission."""
        offsets, end = [], 0
        for resource in resources:
            offsets.append(end)
            end += -(-resource.GetDesc().Width // _ALIGNMENT) * _ALIGNMENT
        readback = self.buffer(max(_ALIGNMENT, end), D3D12_HEAP_TYPE_READBACK)
        for resource, offset in zip(resources, offsets):
            self.list.CopyBufferRegion(readback, offset, resource, 0, resource.GetDesc().Width)
        self.execute()
        data = readback.Map(0, None)
        out = [data[o:o + r.GetDesc().Width].copy() for r, o in zip(resources, offsets)]
        readback.Unmap(0, None)
        return out

    def read(self, resource):
        """Every byte of one buffer (see download)."""
        return self.download([resource])[0]

    # ---- submission --------------------------------------------------------------------------------------------
    def wait(self):
        """Signal the fence on the queue and block until the GPU gets there."""
        self.fence_value += 1
        self.queue.Signal(self.fence, self.fence_value)
        self.fence.SetEventOnCompletion(self.fence_value, None)

    def execute(self):
        """HelloDirectML's CloseExecuteResetWait: Close, ExecuteCommandLists, fence wait, allocator and list Reset
        (and the descriptor heap set again)."""
        self.list.Close()
        self.queue.ExecuteCommandLists([self.list])
        self.wait()
        self.allocator.Reset()
        self.list.Reset(self.allocator, None)
        self.set_heap_on(self.list)

    # ---- DirectML ------------------------------------------------------------------------------------------------
    def table_desc(self, dispatchable, first=0, size=None, heap=None):
        """A DML_BINDING_TABLE_DESC over `size` descriptors (default: the dispatchable's RequiredDescriptorCount)
        of the rig's heap, from descriptor `first`."""
        heap = heap or self.heap
        if size is None:
            size = max(1, dispatchable.GetBindingProperties().RequiredDescriptorCount)
        increment = self.device.GetDescriptorHandleIncrementSize(D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV)
        cpu, gpu = heap.GetCPUDescriptorHandleForHeapStart(), heap.GetGPUDescriptorHandleForHeapStart()
        return DML_BINDING_TABLE_DESC(
            Dispatchable=dispatchable, CPUDescriptorHandle=D3D12_CPU_DESCRIPTOR_HANDLE(ptr=cpu.ptr + first * increment),
            GPUDescriptorHandle=D3D12_GPU_DESCRIPTOR_HANDLE(ptr=gpu.ptr + first * increment), SizeInDescriptors=size)

    def table(self, dispatchable, first=0, size=None, heap=None):
        """A binding table; for a compiled operator `initialize` initialized, its persistent resource is bound."""
        table = self.dml.CreateBindingTable(self.table_desc(dispatchable, first, size, heap))
        persistent = self.persistent.get(dispatchable)
        if persistent is not None:
            table.BindPersistentResource(buffer_binding(persistent))
        temporary = dispatchable.GetBindingProperties().TemporaryResourceSize
        if temporary and inspect(self.dml).strict_host:   # strict-host mode: every operator needs one
            counters = self.device._counters      # internals: like the persistent resources, no number taken
            before = counters.get("buffer", 0)
            resource = self.buffer(temporary)
            counters["buffer"] = before
            resource.SetName("temporary resource")
            table.BindTemporaryResource(buffer_binding(resource))
        return table

    def persistent_resource(self, compiled):
        """A DEFAULT buffer of the compiled operator's PersistentResourceSize (remembered for `table`)."""
        counters = self.device._counters            # internals: the rig's own persistent resources are named and
        before = counters.get("buffer", 0)           # do not take a number, so the tests' buffers keep theirs
        resource = self.buffer(max(256, compiled.GetBindingProperties().PersistentResourceSize))
        counters["buffer"] = before
        resource.SetName(f"persistent resource {len(self.persistent) + 1}")
        self.persistent[compiled] = resource
        return resource

    def compile(self, desc, flags=DML_EXECUTION_FLAG_NONE):
        return self.dml.CompileOperator(self.dml.CreateOperator(desc), flags)

    def initialize(self, *compiled, owned=None):
        """Record the initializer of `compiled` into the rig's list (it runs with the next execute), with a fresh
        persistent resource for each (bound by `table` from then on). Its descriptors take the last slots of the
        rig's heap, so that tables from slot 0 recorded into the same list do not overwrite them. `owned`: one
        list of DML_BUFFER_BINDING per operator for its DML-owned inputs (the initializer's BindInputs)."""
        initializer = self.dml.CreateOperatorInitializer(list(compiled))
        size = max(1, initializer.GetBindingProperties().RequiredDescriptorCount)
        table = self.table(initializer, first=max(0, self.heap.GetDesc().NumDescriptors - size), size=size)
        if compiled:
            table.BindOutputs([buffer_binding(self.persistent_resource(c)) for c in compiled])
        if owned is not None:
            table.BindInputs([DML_BINDING_DESC(Type=DML_BINDING_TYPE_BUFFER_ARRAY, Desc=DML_BUFFER_ARRAY_BINDING(
                Bindings=list(entries))) for entries in owned])
        self.recorder.RecordDispatch(self.list, initializer, table)
        return initializer

    def run_operator(self, desc, inputs, flags=DML_EXECUTION_FLAG_NONE):
        """One operator on NumPy inputs, on this rig's devices: CreateOperator, CompileOperator, the initializer's
        dispatch, uploads, a binding table, RecordDispatch, ExecuteCommandLists, a fence wait and the readback.
        Uses its own allocator, list and heap, so a rig whose list is in any state still runs it. Returns the
        outputs, each of its tensor's Sizes and NumPy type, read at its Strides."""
        tensors = [(name, value.Desc) for name, value in vars(desc.Desc).items() if isinstance(value, DML_TENSOR_DESC)]
        in_tensors = [t for name, t in tensors if not name.startswith("Output")]
        out_tensors = [t for name, t in tensors if name.startswith("Output")]
        assert len(inputs) == len(in_tensors), (len(inputs), len(in_tensors))
        compiled = self.compile(desc, flags)
        initializer = self.dml.CreateOperatorInitializer([compiled])
        props = compiled.GetBindingProperties()
        count = props.RequiredDescriptorCount     # the tensors' (and a temporary resource's, where it has one)
        init_count = initializer.GetBindingProperties().RequiredDescriptorCount
        heap = self.shader_visible_heap(count + init_count)
        allocator = self.device.CreateCommandAllocator(D3D12_COMMAND_LIST_TYPE_DIRECT)
        command_list = self.device.CreateCommandList(0, D3D12_COMMAND_LIST_TYPE_DIRECT, allocator, None)
        command_list.SetDescriptorHeaps([heap])
        init_table = self.table(initializer, first=count, size=init_count, heap=heap)
        init_table.BindOutputs([buffer_binding(self.persistent_resource(compiled))])
        self.recorder.RecordDispatch(command_list, initializer, init_table)
        command_list.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.UAV(self.persistent[compiled])])
        staging, bindings = [], []
        for array, tensor in zip(inputs, in_tensors):
            total = tensor.TotalTensorSizeInBytes
            upload = self.buffer(total, D3D12_HEAP_TYPE_UPLOAD)
            golden.scatter(upload.Map(0, None), 0, np.asarray(array), _strides(tensor))
            resource = self.buffer(total, state=D3D12_RESOURCE_STATE_COPY_DEST)
            command_list.CopyBufferRegion(resource, 0, upload, 0, total)
            command_list.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.Transition(
                resource, D3D12_RESOURCE_STATE_COPY_DEST, D3D12_RESOURCE_STATE_UNORDERED_ACCESS)])
            staging.append(upload)
            bindings.append(buffer_binding(resource, 0, total))
        outputs = [self.buffer(t.TotalTensorSizeInBytes) for t in out_tensors]
        table = self.table(compiled, size=count, heap=heap)
        table.BindInputs(bindings)
        table.BindOutputs([buffer_binding(r, 0, t.TotalTensorSizeInBytes) for r, t in zip(outputs, out_tensors)])
        if props.TemporaryResourceSize:
            table.BindTemporaryResource(buffer_binding(self.buffer(props.TemporaryResourceSize)))
        self.recorder.RecordDispatch(command_list, compiled, table)
        readback = self.buffer(sum(-(-t.TotalTensorSizeInBytes // _ALIGNMENT) * _ALIGNMENT for t in out_tensors),
                               D3D12_HEAP_TYPE_READBACK)
        offset, offsets = 0, []
        for resource, tensor in zip(outputs, out_tensors):
            command_list.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.Transition(
                resource, D3D12_RESOURCE_STATE_UNORDERED_ACCESS, D3D12_RESOURCE_STATE_COPY_SOURCE)])
            command_list.CopyBufferRegion(readback, offset, resource, 0, tensor.TotalTensorSizeInBytes)
            offsets.append(offset)
            offset += -(-tensor.TotalTensorSizeInBytes // _ALIGNMENT) * _ALIGNMENT
        command_list.Close()
        self.queue.ExecuteCommandLists([command_list])
        if self.device.GetDeviceRemovedReason() == S_OK:
            self.wait()
        assert removal(self.dml) == (S_OK, "") and removal(self.device) == (S_OK, ""), \
            (removal(self.dml), removal(self.device))
        data = readback.Map(0, None)
        return [golden.gather(data[o:o + t.TotalTensorSizeInBytes].copy(), 0, _dtype(t), tuple(t.Sizes), _strides(t))
                for t, o in zip(out_tensors, offsets)]


# ---- helpers ---------------------------------------------------------------------------------------------------
def buffer_binding(resource, offset=0, size=None):
    """A DML_BINDING_DESC of one buffer range (size default: the rest of the buffer)."""
    if size is None:
        size = resource.GetDesc().Width - offset
    return DML_BINDING_DESC(Type=DML_BINDING_TYPE_BUFFER, Desc=DML_BUFFER_BINDING(Buffer=resource, Offset=offset,
                                                                                SizeInBytes=size))


def _dtype(buffer_tensor_desc):
    name = DML_TENSOR_DATA_TYPE(buffer_tensor_desc.DataType).name[len("DML_TENSOR_DATA_TYPE_"):]
    return golden.DATA_TYPES[name]


def _strides(buffer_tensor_desc):
    t = buffer_tensor_desc
    return tuple(t.Strides) if t.Strides is not None else golden.packed_strides(tuple(t.Sizes))


def removal(device):
    """(GetDeviceRemovedReason(), the sentence that removed it) of a D3D12 or DML device; (S_OK, "") while it works.

    Public API only: once a device is removed, its HRESULT methods raise DXGI_ERROR_DEVICE_REMOVED quoting the
    first cause ("...: the device was removed earlier (DXGI_ERROR_INVALID_CALL): <sentence>")."""
    reason = device.GetDeviceRemovedReason()
    if reason == S_OK:
        return S_OK, ""
    try:
        if isinstance(device, IDMLDevice):
            device.CreateCommandRecorder()
        else:
            device.CreateFence(0, D3D12_FENCE_FLAG_NONE)
    except HResultError as error:
        assert error.hresult == DXGI_ERROR_DEVICE_REMOVED, error
        return reason, error.message.split(" was removed earlier (", 1)[1].split("): ", 1)[1]
    raise AssertionError(f"{device!r} reports removal 0x{reason:08X} but still creates objects")


def highest_feature_level(dml):
    """The highest DML_FEATURE_LEVEL a DML device supports (CheckFeatureSupport DML_FEATURE_FEATURE_LEVELS)."""
    query = DML_FEATURE_QUERY_FEATURE_LEVELS(RequestedFeatureLevels=list(DML_FEATURE_LEVEL))
    return dml.CheckFeatureSupport(DML_FEATURE_FEATURE_LEVELS, query).MaxSupportedFeatureLevel


def same_bits(got, expected, what="output"):
    """Equal bit for bit (NaN payloads, -0 and rounding all count); names the first differing element."""
    got, expected = np.asarray(got), np.asarray(expected)
    assert got.dtype == expected.dtype and got.shape == expected.shape, (got.dtype, got.shape, expected.shape)
    bits = BITS[got.dtype.itemsize]
    g, e = got.view(bits).reshape(-1), expected.view(bits).reshape(-1)
    if not np.array_equal(g, e):
        bad = np.flatnonzero(g != e)
        raise AssertionError(f"{what}: {bad.size} of {g.size} differ; first at {bad[0]}: got 0x{int(g[bad[0]]):X}, "
                             f"expected 0x{int(e[bad[0]]):X}")


class ClipRig(MirrorRig):
    """A MirrorRig on the teaching adapter (4-slot heap) with one compiled 16-element FLOAT32 CLIP, its
    initializer (recorded by `initialize_clip`, not yet) and two 64-byte DEFAULT buffers, `a` and `b`."""

    def __init__(self, d3d12_debug=False, dml_debug=False, mute_debug_output=True):
        super().__init__(TEACHING, dml_flags=DML_CREATE_DEVICE_FLAG_DEBUG if dml_debug else DML_CREATE_DEVICE_FLAG_NONE,
                         heap_slots=4, d3d12_debug=d3d12_debug, mute_debug_output=mute_debug_output)
        t = DML_TENSOR_DESC(Type=DML_TENSOR_TYPE_BUFFER, Desc=DML_BUFFER_TENSOR_DESC(
            DataType=DML_TENSOR_DATA_TYPE_FLOAT32, Sizes=[16], TotalTensorSizeInBytes=64))
        self.compiled = self.compile(DML_OPERATOR_DESC(Type=DML_OPERATOR_ELEMENT_WISE_CLIP,
                                                       Desc=DML_ELEMENT_WISE_CLIP_OPERATOR_DESC(
                                                           InputTensor=t, OutputTensor=t, Min=0.0, Max=1.0)))
        self.initializer = self.dml.CreateOperatorInitializer([self.compiled])
        self.a, self.b = self.buffer(64), self.buffer(64)

    def initialize_clip(self):
        """Record the CLIP's initializer into the rig's list, with a persistent resource (`table` binds it)."""
        table = self.table(self.initializer, first=2, size=2)
        table.BindOutputs([buffer_binding(self.persistent_resource(self.compiled))])
        self.recorder.RecordDispatch(self.list, self.initializer, table)

    def bound_table(self):
        """A binding table of the CLIP: input a, output b."""
        table = self.table(self.compiled, size=2)
        table.BindInputs([buffer_binding(self.a, 0, 64)])
        table.BindOutputs([buffer_binding(self.b, 0, 64)])
        return table
