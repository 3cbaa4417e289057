"""Convenience layer: run DirectML operators on NumPy arrays in one call (or several on one Session).

`run_operator` is built on the API mirror, exactly the way a DirectML program is written: it creates
a D3D12 device on the chosen adapter and a DML device, creates, compiles and initializes the
operator, uploads the inputs through an UPLOAD buffer into DEFAULT buffers, binds them with a
binding table on a shader-visible descriptor heap, records the dispatch, executes the command list,
waits on a fence and reads the outputs back through a READBACK buffer. Every HResultError of the
mirror reaches the caller unchanged; a device removed by the run raises DXGI_ERROR_DEVICE_REMOVED with
its reason.

    from dmlemu.convenience import run_operator
    from dmlemu.directml import *
    t = DML_TENSOR_DESC(Type=DML_TENSOR_TYPE_BUFFER, Desc=DML_BUFFER_TENSOR_DESC(
        DataType=DML_TENSOR_DATA_TYPE_FLOAT32, Sizes=[2, 3], TotalTensorSizeInBytes=24))
    [y] = run_operator(DML_ELEMENT_WISE_CLIP_OPERATOR_DESC(InputTensor=t, OutputTensor=t, Min=0, Max=1), [x])

With trace="wave" (or another detail level) it also captures the run: `[y], trace = run_operator(...,
trace="wave")`; trace.format_summary(), traces.save_chrome_json(trace, "clip.json"), traces.plot_all(...).
"""
import itertools

import numpy as np

from dmlemu import golden
from dmlemu.data_types import DATA_TYPES
from dmlemu.directml import (
    DML_BINDING_DESC, DML_BINDING_TABLE_DESC, DML_BINDING_TYPE_BUFFER, DML_BINDING_TYPE_BUFFER_ARRAY,
    DML_BINDING_TYPE_NONE, DML_BUFFER_ARRAY_BINDING, DML_BUFFER_BINDING,
    DML_CREATE_DEVICE_FLAG_DEBUG, DML_CREATE_DEVICE_FLAG_NONE, DML_OPERATOR_DESC, DMLCreateDevice,
)
from dmlemu.directml.structs import OPERATOR_DESC_TYPES
from dmlemu.directml.validation import short_type_name
from dmlemu.errors import DXGI_ERROR_DEVICE_REMOVED, HResultError, describe, hresult_name

__all__ = ["Session", "run_operator"]

_ALIGNMENT = 256  # where each tensor starts in the upload / readback buffers


def _d3d12():
    from dmlemu import d3d12
    return d3d12


def _adapter(adapter):
    """None, an IDXGIAdapter, an AdapterPreset or a preset key -> an IDXGIAdapter or None."""
    if adapter is None or hasattr(adapter, "GetDesc1"):
        return adapter
    from dmlemu.dxgi import CreateDXGIFactory1, IDXGIAdapter
    from dmlemu.presets import PRESETS, WARP, AdapterPreset, preset_by_key
    if isinstance(adapter, AdapterPreset):
        if adapter in PRESETS:
            return CreateDXGIFactory1().EnumAdapters1(PRESETS.index(adapter))
        if adapter is WARP:
            return CreateDXGIFactory1().EnumWarpAdapter()
        return IDXGIAdapter(len(PRESETS), adapter)   # a custom preset: checked when the device builds its GPU
    if not isinstance(adapter, str):
        raise TypeError(f"adapter is {describe(adapter)}; give None, an IDXGIAdapter, an AdapterPreset or a preset "
                        f"key ({', '.join(p.key for p in PRESETS)})")
    preset = preset_by_key(adapter)
    if preset not in PRESETS:
        return CreateDXGIFactory1().EnumWarpAdapter()     # the one adapter EnumAdapters1 does not list
    return CreateDXGIFactory1().EnumAdapters1(PRESETS.index(preset))


def _operator_desc(desc):
    if isinstance(desc, DML_OPERATOR_DESC):
        return desc
    for op_type, desc_type in OPERATOR_DESC_TYPES.items():
        if type(desc) is desc_type:
            return DML_OPERATOR_DESC(Type=op_type, Desc=desc)
    raise TypeError(f"desc is a {type(desc).__name__}; give a DML_OPERATOR_DESC or an operator desc struct")


class Session:
    """One D3D12 device and one DML device; runs operators on it one after another.

    Each run is the HelloDirectML sequence: CreateOperator, CompileOperator, a descriptor heap and
    binding table, the initializer's RecordDispatch (which fills the persistent resource, uploaded
    DML-owned inputs included) executed and waited for, then UPLOAD -> DEFAULT copies, the
    operator's RecordDispatch (the table Reset to the heap's next range), a READBACK copy, one
    ExecuteCommandLists and a fence wait. Operators run on
    one session share one device, so one capture (traces.capture(session.device)) holds them all.
    """

    def __init__(self, adapter=None, feature_level=None, debug=False):
        d3d12 = _d3d12()
        self.device = d3d12.D3D12CreateDevice(_adapter(adapter), d3d12.D3D_FEATURE_LEVEL_11_0)
        self.dml = DMLCreateDevice(self.device, DML_CREATE_DEVICE_FLAG_DEBUG if debug else DML_CREATE_DEVICE_FLAG_NONE,
                                   max_feature_level=feature_level)
        self.queue = self.device.CreateCommandQueue(d3d12.D3D12_COMMAND_QUEUE_DESC(
            Type=d3d12.D3D12_COMMAND_LIST_TYPE_DIRECT, Flags=d3d12.D3D12_COMMAND_QUEUE_FLAG_NONE))
        self.allocator = self.device.CreateCommandAllocator(d3d12.D3D12_COMMAND_LIST_TYPE_DIRECT)
        self.command_list = self.device.CreateCommandList(0, d3d12.D3D12_COMMAND_LIST_TYPE_DIRECT, self.allocator, None)
        self.recorder = self.dml.CreateCommandRecorder()
        self.fence = self.device.CreateFence(0, d3d12.D3D12_FENCE_FLAG_NONE)
        self.fence_value = 0

    def _buffer(self, size, heap_type, state, uav=True):
        d3d12 = _d3d12()
        flags = d3d12.D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS if uav else d3d12.D3D12_RESOURCE_FLAG_NONE
        return self.device.CreateCommittedResource(
            d3d12.CD3DX12_HEAP_PROPERTIES(heap_type), d3d12.D3D12_HEAP_FLAG_NONE,
            d3d12.CD3DX12_RESOURCE_DESC.Buffer(max(4, size), flags), state, None)

    def _execute_and_wait(self):
        """HelloDirectML's CloseExecuteResetWait."""
        self.command_list.Close()
        self.queue.ExecuteCommandLists([self.command_list])
        self.fence_value += 1
        self.queue.Signal(self.fence, self.fence_value)
        self.fence.SetEventOnCompletion(self.fence_value, None)   # None: block until the GPU gets there
        self.allocator.Reset()
        self.command_list.Reset(self.allocator, None)

    def _upload_inputs(self, arrays, tensors, which, buffers):
        """Record UPLOAD -> DEFAULT copies of the inputs `which` selects into new DEFAULT buffers (stored in
        `buffers`), each written at its tensor's strides; returns the UPLOAD buffer (or None)."""
        d3d12 = _d3d12()
        chosen = [i for i, w in enumerate(which) if w]
        if not chosen:
            return None
        offsets, size = _layout([tensors[i].total_bytes for i in chosen])
        upload = self._buffer(size, d3d12.D3D12_HEAP_TYPE_UPLOAD, d3d12.D3D12_RESOURCE_STATE_GENERIC_READ, uav=False)
        mapped = upload.Map(0, None)
        barriers = []
        for i, offset in zip(chosen, offsets):
            tensor = tensors[i]
            golden.scatter(mapped[offset:offset + tensor.total_bytes], 0, arrays[i], tensor.effective_strides)
            resource = self._buffer(tensor.total_bytes, d3d12.D3D12_HEAP_TYPE_DEFAULT, d3d12.D3D12_RESOURCE_STATE_COPY_DEST)
            self.command_list.CopyBufferRegion(resource, 0, upload, offset, tensor.total_bytes)
            barriers.append(d3d12.CD3DX12_RESOURCE_BARRIER.Transition(
                resource, d3d12.D3D12_RESOURCE_STATE_COPY_DEST, d3d12.D3D12_RESOURCE_STATE_UNORDERED_ACCESS))
            buffers[i] = resource
        upload.Unmap(0, None)
        self.command_list.ResourceBarrier(barriers)
        return upload

    def run(self, desc, inputs, flags=0, started=None):
        """Create, compile, initialize, bind, record and execute one operator; returns its outputs
        (see run_operator for the arguments). `started`, if given, is called once initialization has
        executed, before the execution's work is recorded."""
        d3d12 = _d3d12()
        compiled = self.dml.CompileOperator(self.dml.CreateOperator(_operator_desc(desc)), flags)
        info = compiled._info
        inputs = _input_list(inputs, info)
        arrays = [_input_array(array, tensor, role) for array, tensor, role in zip(inputs, info.inputs,
                                                                                    info.input_roles)]

        initializer = self.dml.CreateOperatorInitializer([compiled])
        init_props, exec_props = initializer.GetBindingProperties(), compiled.GetBindingProperties()
        # Two ranges of one heap: the initializer's descriptors at 0, the operator's after them. Both
        # dispatches go into one command list, and each reads its own range when it executes.
        init_count, exec_count = init_props.RequiredDescriptorCount, exec_props.RequiredDescriptorCount
        heap = self.device.CreateDescriptorHeap(d3d12.D3D12_DESCRIPTOR_HEAP_DESC(
            Type=d3d12.D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, NumDescriptors=max(1, init_count + exec_count),
            Flags=d3d12.D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE, NodeMask=0))
        increment = self.device.GetDescriptorHandleIncrementSize(d3d12.D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV)
        cpu, gpu = heap.GetCPUDescriptorHandleForHeapStart(), heap.GetGPUDescriptorHandleForHeapStart()
        table_desc = DML_BINDING_TABLE_DESC(Dispatchable=initializer, CPUDescriptorHandle=cpu,
                                            GPUDescriptorHandle=gpu, SizeInDescriptors=init_count)
        table = self.dml.CreateBindingTable(table_desc)
        temporary_size = max(init_props.TemporaryResourceSize, exec_props.TemporaryResourceSize)
        persistent_size = exec_props.PersistentResourceSize
        temporary = self._buffer(temporary_size, d3d12.D3D12_HEAP_TYPE_DEFAULT,
                                 d3d12.D3D12_RESOURCE_STATE_COMMON) if temporary_size else None
        persistent = self._buffer(persistent_size, d3d12.D3D12_HEAP_TYPE_DEFAULT,
                                  d3d12.D3D12_RESOURCE_STATE_COMMON) if persistent_size else None
        if temporary is not None and init_props.TemporaryResourceSize:
            table.BindTemporaryResource(_binding(temporary, temporary_size))
        if persistent is not None:
            table.BindOutputs([_binding(persistent, persistent_size)])

        # Initialize the operator, in a submission of its own as HelloDirectML does (before `started`):
        # DML_TENSOR_FLAG_OWNED_BY_DML inputs are uploaded first and bound to the initializer (one
        # DML_BUFFER_ARRAY_BINDING for the operator), which copies them into the persistent resource.
        owned = [t is not None and t.owned_by_dml for t in info.inputs]
        input_buffers = [None] * len(arrays)
        keep = [self._upload_inputs(arrays, info.inputs, owned, input_buffers)]
        if any(owned):
            table.BindInputs([DML_BINDING_DESC(Type=DML_BINDING_TYPE_BUFFER_ARRAY, Desc=DML_BUFFER_ARRAY_BINDING(
                Bindings=[DML_BUFFER_BINDING(Buffer=r if o else None, Offset=0, SizeInBytes=t.total_bytes if o else 0)
                          for r, t, o in zip(input_buffers, info.inputs, owned)]))])
        self.command_list.SetDescriptorHeaps([heap])
        self.recorder.RecordDispatch(self.command_list, initializer, table)
        self._execute_and_wait()
        if started is not None:
            started()
        # The other inputs: one UPLOAD buffer -> a DEFAULT buffer each, written at each tensor's strides.
        present = [t is not None and not o for t, o in zip(info.inputs, owned)]
        keep.append(self._upload_inputs(arrays, info.inputs, present, input_buffers))
        self.command_list.SetDescriptorHeaps([heap])
        outputs_given = [t for t in info.outputs if t is not None]   # an optional output left out: bound as NONE
        output_buffers = [self._buffer(t.total_bytes, d3d12.D3D12_HEAP_TYPE_DEFAULT,
                                       d3d12.D3D12_RESOURCE_STATE_UNORDERED_ACCESS) for t in outputs_given]

        # Rebind the table for execution and record the dispatch.
        table_desc.Dispatchable = compiled
        table_desc.CPUDescriptorHandle = d3d12.D3D12_CPU_DESCRIPTOR_HANDLE(ptr=cpu.ptr + init_count * increment)
        table_desc.GPUDescriptorHandle = d3d12.D3D12_GPU_DESCRIPTOR_HANDLE(ptr=gpu.ptr + init_count * increment)
        table_desc.SizeInDescriptors = exec_count
        table.Reset(table_desc)
        if temporary is not None:
            table.BindTemporaryResource(_binding(temporary, temporary_size))
        if persistent is not None:
            table.BindPersistentResource(_binding(persistent, persistent_size))
        table.BindInputs([_binding(r, t.total_bytes, o) if t is not None else _binding(None, 0, True)   # NONE
                          for r, t, o in zip(input_buffers, info.inputs, owned)])
        given = iter(output_buffers)
        table.BindOutputs([_binding(next(given), t.total_bytes) if t is not None else _binding(None, 0, True)
                           for t in info.outputs])
        self.recorder.RecordDispatch(self.command_list, compiled, table)

        # Outputs: DEFAULT -> READBACK.
        readback_offsets, readback_size = _layout([t.total_bytes for t in outputs_given])
        readback = self._buffer(readback_size, d3d12.D3D12_HEAP_TYPE_READBACK, d3d12.D3D12_RESOURCE_STATE_COPY_DEST,
                                uav=False)
        self.command_list.ResourceBarrier(
            [d3d12.CD3DX12_RESOURCE_BARRIER.UAV(r) for r in output_buffers]
            + [d3d12.CD3DX12_RESOURCE_BARRIER.Transition(r, d3d12.D3D12_RESOURCE_STATE_UNORDERED_ACCESS,
                                                         d3d12.D3D12_RESOURCE_STATE_COPY_SOURCE) for r in output_buffers])
        for resource, tensor, offset in zip(output_buffers, outputs_given, readback_offsets):
            self.command_list.CopyBufferRegion(readback, offset, resource, 0, tensor.total_bytes)
        self._execute_and_wait()

        reason = self.dml.GetDeviceRemovedReason()
        if reason:
            raise HResultError(DXGI_ERROR_DEVICE_REMOVED, f"run_operator: the DirectML device was removed "
                                                          f"({hresult_name(reason)}): {self.dml._removed_message}")
        data = readback.Map(0, None)
        outputs = [golden.gather(data[offset:offset + t.total_bytes].copy(), 0, DATA_TYPES[t.type_name],
                                 t.sizes, t.effective_strides)
                   for t, offset in zip(outputs_given, readback_offsets)]
        readback.Unmap(0, None)
        return outputs


def run_operator(desc, inputs, *, flags=0, adapter=None, feature_level=None, debug=False, trace=None,
                 trace_max_rows=None):
    """Run an operator on NumPy inputs through the mirror; returns the outputs as NumPy arrays.

    desc: a DML_OPERATOR_DESC, or an operator desc struct (DML_ELEMENT_WISE_CLIP_OPERATOR_DESC,
        DML_ELEMENT_WISE_ADD_OPERATOR_DESC, DML_ACTIVATION_RELU_OPERATOR_DESC, DML_CAST_OPERATOR_DESC, ...):
        any operator with a kernel (`dmlemu operators` lists them; one validated without a kernel is
        E_NOTIMPL).
    inputs: one array per input tensor in binding order (IF: condition, A, B; None for an optional
        tensor the desc left out, such as QUANTIZE_LINEAR's ZeroPointTensor), each of the tensor's
        logical shape (Sizes) and NumPy dtype; it is written at the tensor's strides (a broadcast
        input, stride 0, too: of the elements that share an address the last one written stays). Any
        iterable of arrays will do; TypeError for None or a non-iterable, ValueError (a sentence) for the wrong
        count, or a nested sequence holding more elements than the tensor (checked without building it).
    flags: DML_EXECUTION_FLAGS for CompileOperator.
    adapter: None (the default adapter), an IDXGIAdapter, an AdapterPreset or a preset key ("irisxe").
    feature_level: the emulated DirectML runtime's highest feature level (None: the adapter's).
    debug: create the DML device with DML_CREATE_DEVICE_FLAG_DEBUG.
    trace: None (no capture), or a trace detail level ("dispatch", "wave", "instruction", "memory"):
        the run on the device after initialization (uploads, the dispatch, readback; the initializer's
        dispatch runs in a submission of its own before) is captured with traces.capture
        and (outputs, trace) is returned instead of outputs. Export it with traces.save_chrome_json,
        traces.save_pftrace (native Perfetto, the optional perfetto package) or traces.save_trace.
    trace_max_rows: rows the recorder keeps per table before it folds (None: its default,
        traces.recorder.DEFAULT_MAX_ROWS); the trace's folded() says what was folded.
    Each output comes back with its tensor's Sizes as shape, read at its strides. A fresh Session
    (devices, queue, list) serves each call; use Session directly to run several on one device.
    """
    session = Session(adapter, feature_level, debug)
    if trace is None:
        return session.run(desc, inputs, flags)
    from dmlemu.traces.capture import capture
    cap = capture(session.device, detail=trace, max_rows=trace_max_rows)
    try:
        outputs = session.run(desc, inputs, flags, started=cap.begin)
    finally:
        if cap.started:
            cap.end()
        else:
            cap.discard()     # the run failed before its work began: nothing to record
    return outputs, cap.trace


def _input_list(inputs, info):
    """`inputs` as a list of exactly one object per input tensor. Any iterable of them will do (a
    generator too); at most one more item than needed is taken from it, so a huge or endless one
    costs nothing. TypeError for None, a text or a mapping; ValueError for the wrong count."""
    count = len(info.inputs)
    fields = ", ".join(role.field for role in info.input_roles)   # a left-out optional tensor is None
    if inputs is None or isinstance(inputs, (str, bytes, dict)) or not hasattr(inputs, "__iter__"):
        raise TypeError(f"inputs is {_described(inputs)}; give a list with one array per input tensor of "
                        f"{info.schema.c_name} ({fields})")
    try:
        given = len(inputs)
    except (TypeError, OverflowError):   # no len(), or one past sys.maxsize (range(10**20))
        given = None
    items = list(itertools.islice(iter(inputs), count + 1))
    if given is None and len(items) > count:
        given = f"more than {count}"
    if given is None:
        given = len(items)
    if given != count or len(items) != count:
        raise ValueError(f"{info.schema.c_name} takes {count} inputs ({fields}); {given} were given")
    return items


def _described(value):
    text = repr(value)
    return f"{type(value).__name__} {text if len(text) <= 40 else text[:40] + '...'}" if value is not None else "None"


_MAX_NESTING = 32   # a tensor has at most 8 dimensions; deeper nesting is refused before it is walked


def _element_total(value, limit, depth=0):
    """How many scalars a nested sequence holds, counted without building it; stops (returns limit + 1)
    as soon as the count passes `limit`, so range(10**18) costs nothing. ValueError past _MAX_NESTING."""
    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__") or hasattr(value, "__array__"):
        return int(getattr(value, "size", 1)) if hasattr(value, "__array__") else 1
    if depth >= _MAX_NESTING:
        raise ValueError(f"nests more than {_MAX_NESTING} levels deep")
    try:
        n = len(value)
    except (TypeError, OverflowError):   # len() refused, or past sys.maxsize (range(10**20))
        return limit + 1
    if n > limit:
        return limit + 1
    total = 0
    for item in value:
        total += _element_total(item, limit - total, depth + 1)
        if total > limit:
            return limit + 1
    return total


def _input_array(array, tensor, role=None):
    if tensor is None:   # an optional tensor the desc left out: no data, bound as DML_BINDING_TYPE_NONE
        if array is not None:
            raise ValueError(f"{role.field} was left out of the desc (None); its input must be None, not a "
                             f"{type(array).__name__}")
        return None
    if not hasattr(array, "__array__"):   # a sequence: size it before NumPy builds it
        try:
            total = _element_total(array, tensor.element_count)
        except ValueError as error:
            raise ValueError(f"{tensor.field}: the {type(array).__name__} given {error}") from None
        if total > tensor.element_count:
            raise ValueError(f"{tensor.field} has Sizes {list(tensor.sizes)} ({tensor.element_count} elements); "
                             f"the {type(array).__name__} given holds more")
    try:
        array = np.asarray(array)
    except ValueError as error:   # ragged nested sequences
        raise ValueError(f"{tensor.field}: the {type(array).__name__} given is not an array: "
                         f"{' '.join(str(error).split())}") from None
    dtype = DATA_TYPES[short_type_name(tensor.data_type)]
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


def _binding(resource, size, owned=False):
    """A DML_BUFFER_BINDING of a whole buffer; DML_BINDING_TYPE_NONE for a DML-owned input at execution."""
    if owned:
        return DML_BINDING_DESC(Type=DML_BINDING_TYPE_NONE, Desc=None)
    return DML_BINDING_DESC(Type=DML_BINDING_TYPE_BUFFER, Desc=DML_BUFFER_BINDING(Buffer=resource, Offset=0, SizeInBytes=size))
