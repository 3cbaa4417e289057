"""Shared machinery of the reliability tests (issue 6): cases, a mirror runner, and memory watches.

A `Case` is everything one DirectML dispatch of a seed operator needs, as plain data that hypothesis
draws and shrinks: the adapter, the emulated feature level, the operator and its tensors (data type,
sizes, strides, TotalTensorSizeInBytes, alignment), ScaleBias and bounds, the execution flags, the
buffers and each tensor's binding (buffer, offset, size), and a seed for the buffer contents.
A fault (`Case.faults`, a set of names) turns a valid case into a specific misuse; `run_case` runs
a case through the mirror only (dmlemu.d3d12 + dmlemu.directml, the way a C++ program would)
and returns an `Outcome`: the output buffers' bytes, or the HResultError and the stage that raised
it, or the device removal and its sentence. Any other exception escapes: the tests fail on it.

`MemoryWatch` is the memory check run around every test dispatch: with guard bytes on (the module
sets DMLEMU_GUARD_BYTES before devices are created) it verifies every guard zone, and it compares
every byte of every live allocation before and after, allowing changes only at the bound outputs'
element positions (and the binding table's descriptor slots, which DirectML writes at record and
execution time). So nothing may be written outside an output's [offset, offset + TotalTensorSize),
not even its padding, and inputs are never written (except an in-place output's own elements).
"""
import dataclasses
import os
from dataclasses import dataclass, field

import numpy as np

from dmlemu import golden
from dmlemu.d3d12 import *  # noqa: F401,F403
from dmlemu.directml import *  # noqa: F401,F403
from dmlemu.directml.operators import SCHEMAS
from dmlemu.directml.validation import exact_tensor_size
from dmlemu.errors import DXGI_ERROR_DEVICE_REMOVED, HResultError, S_OK

GUARD_BYTES = 64
BITS = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
TYPE_OF = {name: int(getattr(DML_TENSOR_DATA_TYPE, "DML_TENSOR_DATA_TYPE_" + name))
           for name in tuple(golden.DATA_TYPES) + ("UNKNOWN", "UINT4", "INT4")}
OPERATORS = {
    "ELEMENT_WISE_IDENTITY": DML_OPERATOR_ELEMENT_WISE_IDENTITY,
    "ELEMENT_WISE_THRESHOLD": DML_OPERATOR_ELEMENT_WISE_THRESHOLD,
    "ELEMENT_WISE_CLIP": DML_OPERATOR_ELEMENT_WISE_CLIP,
    "ELEMENT_WISE_IF": DML_OPERATOR_ELEMENT_WISE_IF,
}
FEATURE_LEVELS = tuple(int(level) for level in DML_FEATURE_LEVEL)
HEAP_SLOTS = 8


def fuzz_profile():
    """The hypothesis profile in force: DMLEMU_FUZZ_PROFILE (default "ci")."""
    return os.environ.get("DMLEMU_FUZZ_PROFILE", "ci")


def scaled(ci_examples, long_factor=25):
    """Examples for one property test: `ci_examples` in CI, `long_factor` times more in the long profile."""
    return ci_examples * long_factor if fuzz_profile() == "long" else ci_examples


# ---- cases ----------------------------------------------------------------------------------------------
@dataclass
class TensorCase:
    type_name: str
    sizes: tuple
    strides: tuple = None
    extra_bytes: int = 0              # TotalTensorSizeInBytes = minimum + extra_bytes
    alignment: int = 0                # GuaranteedBaseOffsetAlignment
    total_override: int = None        # faults: an explicit TotalTensorSizeInBytes
    flags: int = 0
    dimension_count: int = None       # faults: an explicit DimensionCount
    tensor_type: int = DML_TENSOR_TYPE_BUFFER

    @property
    def itemsize(self):
        return golden.DATA_TYPES[self.type_name].itemsize

    @property
    def effective_strides(self):
        return tuple(self.strides) if self.strides is not None else golden.packed_strides(self.sizes)

    @property
    def minimum_bytes(self):
        return exact_tensor_size(self.type_name, tuple(self.sizes), None if self.strides is None else tuple(self.strides))

    @property
    def total(self):
        return self.total_override if self.total_override is not None else self.minimum_bytes + self.extra_bytes

    def desc(self):
        buffer_desc = DML_BUFFER_TENSOR_DESC(
            DataType=TYPE_OF.get(self.type_name, self.type_name), Flags=self.flags, Sizes=list(self.sizes),
            Strides=None if self.strides is None else list(self.strides), TotalTensorSizeInBytes=self.total,
            GuaranteedBaseOffsetAlignment=self.alignment)
        if self.dimension_count is not None:
            buffer_desc.DimensionCount = self.dimension_count
        return DML_TENSOR_DESC(Type=self.tensor_type, Desc=buffer_desc)


@dataclass
class BufferCase:
    width: int
    heap_type: int = D3D12_HEAP_TYPE_DEFAULT
    uav: bool = True
    other_device: bool = False


@dataclass
class BindingCase:
    buffer: int            # index into Case.buffers
    offset: int
    size: int


@dataclass
class Case:
    op: str
    adapter: object                   # an AdapterPreset
    level: int                        # the emulated DirectML feature level
    tensors: list                     # TensorCase per tensor, binding order
    buffers: list                     # BufferCase
    bindings: list                    # BindingCase per tensor
    flags: int = DML_EXECUTION_FLAG_NONE
    debug: bool = False
    create1: bool = False             # DMLCreateDevice1 (with the minimum level = level) or DMLCreateDevice
    scale_bias: tuple = None          # (Scale, Bias) or None
    floats: dict = field(default_factory=dict)   # Min / Max as given to the desc
    first_slot: int = 0               # binding table's first descriptor in the heap
    barrier: bool = False             # explicit COMMON -> UNORDERED_ACCESS barriers (else promotion)
    seed: int = 0
    in_place: bool = False
    late_bind: bool = False           # DESCRIPTORS_VOLATILE: record with a decoy output, rebind before execution
    scratch: bool = False             # bind (unused) temporary and persistent resources in their own buffer
    d3d12_debug: bool = False         # the D3D12 debug layer on for this device (device._debug_layer)
    faults: set = field(default_factory=set)
    fault_args: dict = field(default_factory=dict)

    @property
    def schema(self):
        return SCHEMAS[OPERATORS[self.op]]

    @property
    def n_inputs(self):
        return len(self.tensors) - 1

    @property
    def half_precision(self):
        return (bool(self.flags & DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION) and self.adapter.native_fp16
                and self.tensors[-1].type_name == "FLOAT16")

    def op_desc(self):
        schema = self.schema
        fields = {role.field: t.desc() for role, t in zip(schema.tensors, self.tensors)}
        if self.scale_bias is not None:
            fields["ScaleBias"] = DML_SCALE_BIAS(Scale=self.scale_bias[0], Bias=self.scale_bias[1])
        fields.update(self.floats)
        return DML_OPERATOR_DESC(Type=OPERATORS[self.op], Desc=schema.desc_type(**fields))

    def copy(self):
        return dataclasses.replace(
            self, tensors=[dataclasses.replace(t) for t in self.tensors],
            buffers=[dataclasses.replace(b) for b in self.buffers],
            bindings=[dataclasses.replace(b) for b in self.bindings], floats=dict(self.floats),
            faults=set(self.faults), fault_args=dict(self.fault_args))


# ---- golden expectation --------------------------------------------------------------------------------
def as_float32(value):
    """A C FLOAT from a Python/NumPy number (out of range: +/-inf), as the mirror stores it."""
    with np.errstate(over="ignore"):
        return np.float32(float(value))


def expected_outputs(case, initial):
    """{buffer index: expected bytes after the dispatch}, from the buffers' initial bytes (golden model)."""
    arrays = []
    for tensor, binding in zip(case.tensors[:-1], case.bindings[:-1]):
        arrays.append(golden.gather(initial[binding.buffer], binding.offset, golden.DATA_TYPES[tensor.type_name],
                                    tensor.sizes, tensor.effective_strides))
    sb = None if case.scale_bias is None else (as_float32(case.scale_bias[0]), as_float32(case.scale_bias[1]))
    half = case.half_precision
    if case.op == "ELEMENT_WISE_IDENTITY":
        result = golden.identity(arrays[0], sb, half)
    elif case.op == "ELEMENT_WISE_THRESHOLD":
        result = golden.threshold(arrays[0], as_float32(case.floats["Min"]), sb, half)
    elif case.op == "ELEMENT_WISE_CLIP":
        result = golden.clip(arrays[0], as_float32(case.floats["Min"]), as_float32(case.floats["Max"]), sb, half)
    else:
        result = golden.if_(*arrays)
    out_tensor, out_binding = case.tensors[-1], case.bindings[-1]
    expected = initial[out_binding.buffer].copy()
    golden.scatter(expected, out_binding.offset, result, out_tensor.effective_strides)
    return {out_binding.buffer: expected}


def element_byte_mask(nbytes, offset, tensor):
    """Bool mask over a buffer's bytes: True at every byte of the tensor's elements."""
    mask = np.zeros(nbytes, dtype=bool)
    index = np.zeros(tuple(tensor.sizes), dtype=np.int64)
    for axis, (size, stride) in enumerate(zip(tensor.sizes, tensor.effective_strides)):
        shape = [1] * len(tensor.sizes)
        shape[axis] = size
        index += (np.arange(size, dtype=np.int64) * stride).reshape(shape)
    starts = offset + np.unique(index.reshape(-1)) * tensor.itemsize
    for k in range(tensor.itemsize):
        mask[starts + k] = True
    return mask


def same_bits(got, expected, what="output"):
    got, expected = np.asarray(got), np.asarray(expected)
    assert got.dtype == expected.dtype and got.shape == expected.shape, (got.dtype, got.shape, expected.shape)
    bits = BITS[got.dtype.itemsize]
    g, e = got.view(bits).reshape(-1), expected.view(bits).reshape(-1)
    if not np.array_equal(g, e):
        bad = np.flatnonzero(g != e)
        raise AssertionError(f"{what}: {bad.size} of {g.size} differ; first at {bad[0]}: got 0x{int(g[bad[0]]):X}, "
                             f"expected 0x{int(e[bad[0]]):X}")


# ---- memory watch ----------------------------------------------------------------------------------------
class MemoryWatch:
    """Snapshot every live allocation of a GPU; later check guards and that only allowed bytes changed."""

    def __init__(self, gpu):
        self.gpu = gpu
        self.before = {id(a): (a, a.data.copy()) for a in gpu.memory.allocations}
        self.allowed = {}   # id(allocation) -> bool mask

    def allow(self, allocation, mask):
        key = id(allocation)
        self.allowed[key] = mask if key not in self.allowed else (self.allowed[key] | mask)

    def allow_range(self, allocation, start, end):
        mask = np.zeros(allocation.size, dtype=bool)
        mask[start:end] = True
        self.allow(allocation, mask)

    def check(self):
        """Assert guards intact and nothing changed outside the allowed masks; returns changed byte count."""
        self.gpu.memory.verify_guards()
        changed_total = 0
        for key, (allocation, old) in self.before.items():
            if allocation.freed:
                continue
            diff = allocation.data != old
            if not diff.any():
                continue
            changed_total += int(diff.sum())
            stray = diff & ~self.allowed.get(key, np.zeros(allocation.size, dtype=bool))
            if stray.any():
                where = np.flatnonzero(stray)
                raise AssertionError(f"{allocation!r}: {where.size} byte(s) written outside the allowed ranges; "
                                     f"first at byte {where[0]} (0x{int(old[where[0]]):02X} -> "
                                     f"0x{int(allocation.data[where[0]]):02X})")
        return changed_total


# ---- the mirror runner -------------------------------------------------------------------------------------
@dataclass
class Outcome:
    kind: str                          # "ok", "hresult" or "removed"
    stage: str = ""                    # where the error surfaced
    hresult: int = S_OK
    message: str = ""
    outputs: dict = None               # buffer index -> bytes after the dispatch ("ok")
    expected: dict = None              # buffer index -> golden bytes ("ok")
    rig: object = None
    handles: dict = None               # objects for after-checks (compiled, table, ...)


class Rig:
    """The D3D12 + DirectML objects one case needs."""

    def __init__(self, case):
        self.case = case
        self.device = D3D12CreateDevice(case.adapter, D3D_FEATURE_LEVEL_11_0)
        self.device._debug_layer = case.d3d12_debug   # documented as settable (emulator/d3d12/device.py)
        flags = DML_CREATE_DEVICE_FLAG_DEBUG if case.debug else DML_CREATE_DEVICE_FLAG_NONE
        if case.create1:
            self.dml = DMLCreateDevice1(self.device, flags, case.level, max_feature_level=case.level)
        else:
            self.dml = DMLCreateDevice(self.device, flags, max_feature_level=case.level)
        if case.debug:
            self.dml.SetMuteDebugOutput(True)
        self.queue = self.device.CreateCommandQueue(D3D12_COMMAND_QUEUE_DESC(Type=D3D12_COMMAND_LIST_TYPE_DIRECT))
        self.allocator = self.device.CreateCommandAllocator(D3D12_COMMAND_LIST_TYPE_DIRECT)
        self.list = self.device.CreateCommandList(0, D3D12_COMMAND_LIST_TYPE_DIRECT, self.allocator, None)
        self.heap = self.device.CreateDescriptorHeap(D3D12_DESCRIPTOR_HEAP_DESC(
            Type=D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, NumDescriptors=HEAP_SLOTS,
            Flags=D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE))
        self.list.SetDescriptorHeaps([self.heap])
        self.recorder = self.dml.CreateCommandRecorder()
        self.fence = self.device.CreateFence(0, D3D12_FENCE_FLAG_NONE)
        self.fence_value = 0

    @property
    def gpu(self):
        return self.device._gpu

    def buffer(self, size, heap_type=D3D12_HEAP_TYPE_DEFAULT, uav=True, device=None):
        device = device or self.device
        state = {D3D12_HEAP_TYPE_UPLOAD: D3D12_RESOURCE_STATE_GENERIC_READ,
                 D3D12_HEAP_TYPE_READBACK: D3D12_RESOURCE_STATE_COPY_DEST}.get(heap_type, D3D12_RESOURCE_STATE_COMMON)
        flags = D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS if uav and heap_type == D3D12_HEAP_TYPE_DEFAULT else 0
        return device.CreateCommittedResource(CD3DX12_HEAP_PROPERTIES(heap_type), D3D12_HEAP_FLAG_NONE,
                                              CD3DX12_RESOURCE_DESC.Buffer(size, flags), state, None)

    def table_desc(self, dispatchable, first=0, size=None):
        if size is None:
            size = max(1, dispatchable.GetBindingProperties().RequiredDescriptorCount)
        cpu, gpu = self.heap.GetCPUDescriptorHandleForHeapStart(), self.heap.GetGPUDescriptorHandleForHeapStart()
        return DML_BINDING_TABLE_DESC(Dispatchable=dispatchable,
                                      CPUDescriptorHandle=D3D12_CPU_DESCRIPTOR_HANDLE(ptr=cpu.ptr + 32 * first),
                                      GPUDescriptorHandle=D3D12_GPU_DESCRIPTOR_HANDLE(ptr=gpu.ptr + 32 * first),
                                      SizeInDescriptors=size)

    def submit(self, command_list=None):
        """Close, execute, signal, wait; then reset the allocator and the list (HelloDirectML's CloseExecuteResetWait)."""
        command_list = command_list or self.list
        command_list.Close()
        self.queue.ExecuteCommandLists([command_list])
        self.wait()
        self.allocator.Reset()
        command_list.Reset(self.allocator, None)
        command_list.SetDescriptorHeaps([self.heap])

    def wait(self):
        self.fence_value += 1
        self.queue.Signal(self.fence, self.fence_value)
        self.fence.SetEventOnCompletion(self.fence_value, None)

    def upload(self, resource, data, offset=0):
        data = np.ascontiguousarray(data).view(np.uint8).reshape(-1)
        staging = self.buffer(max(4, data.size), D3D12_HEAP_TYPE_UPLOAD, uav=False)
        staging.Map(0, None)[:data.size] = data
        self.list.CopyBufferRegion(resource, offset, staging, 0, data.size)
        return staging

    def download(self, resources):
        """Bytes of DEFAULT buffers, copied through one READBACK buffer (one submission)."""
        offsets, end = [], 0
        for r in resources:
            offsets.append(end)
            end += -(-r.GetDesc().Width // 256) * 256
        readback = self.buffer(max(256, end), D3D12_HEAP_TYPE_READBACK, uav=False)
        for r, offset in zip(resources, offsets):
            self.list.CopyBufferRegion(readback, offset, r, 0, r.GetDesc().Width)
        self.submit()
        data = readback.Map(0, None)
        out = [data[o:o + r.GetDesc().Width].copy() for r, o in zip(resources, offsets)]
        readback.Unmap(0, None)
        return out


def binding_desc(resource, offset, size):
    return DML_BINDING_DESC(Type=DML_BINDING_TYPE_BUFFER, Desc=DML_BUFFER_BINDING(Buffer=resource, Offset=offset,
                                                                                SizeInBytes=size))


def initial_bytes(case):
    """Buffer contents before the dispatch: random bytes, then special values written into the inputs."""
    rng = np.random.default_rng(case.seed)
    contents = [rng.integers(0, 256, b.width, dtype=np.uint8) for b in case.buffers]
    for tensor, binding in zip(case.tensors[:-1], case.bindings[:-1]):
        buf = contents[binding.buffer]
        if binding.offset + tensor.total > buf.size:
            continue  # an invalid binding; nothing to seed
        values = special_values(tensor.type_name, tuple(tensor.sizes), rng)
        golden.scatter(buf, binding.offset, values, tensor.effective_strides)
    return contents


def special_values(type_name, shape, rng):
    """Random values with the specials (NaN, +-inf, +-0, subnormals, extremes, halves) mixed in."""
    dtype = golden.DATA_TYPES[type_name]
    count = int(np.prod(shape))
    if dtype.kind == "f":
        bits = BITS[dtype.itemsize]
        raw = rng.integers(0, np.iinfo(bits).max, count, dtype=bits, endpoint=True).view(dtype)
        finfo = np.finfo(dtype)
        specials = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, finfo.tiny / 2, -finfo.tiny / 4, 1.0, -1.0, 0.5,
                             2.5, -2.5, finfo.max, finfo.min, finfo.tiny, 127.5, -128.5, 255.5], dtype=dtype)
        small = rng.uniform(-300, 300, count).astype(dtype)
        pick = rng.random(count)
        values = np.where(pick < 0.4, small, raw)
        special_pick = rng.integers(0, specials.size, count)
        values = np.where(pick > 0.8, specials[special_pick], values)
        # a few signalling NaNs and payload NaNs (bit patterns survive IDENTITY and IF only)
        return values.astype(dtype).reshape(shape)
    info = np.iinfo(dtype)
    values = rng.integers(info.min, info.max, count, dtype=dtype, endpoint=True)
    edges = np.array([e for e in (info.min, info.max, 0, 1, -1, 2, 127, 128, 255, info.max - 1)
                      if info.min <= e <= info.max], dtype=dtype)
    pick = rng.random(count) < 0.25
    values[pick] = edges[rng.integers(0, edges.size, int(pick.sum()))]
    return values.reshape(shape)


class Stage:
    """Tracks which mirror call is running, so an HResultError can be attributed to it."""

    def __init__(self):
        self.name = "setup"

    def __call__(self, name):
        self.name = name
        return self


def run_case(case, watch=True):
    """Run a case through the mirror. Returns an Outcome; only HResultError is caught (and attributed)."""
    stage = Stage()
    rig = None
    handles = {}
    try:
        stage("D3D12CreateDevice/DMLCreateDevice")
        rig = Rig(case)
        return _run(case, rig, stage, handles, watch)
    except HResultError as error:
        return Outcome("hresult", stage.name, error.hresult, error.message, rig=rig, handles=handles)


def _run(case, rig, stage, handles, watch):
    faults = case.faults
    dml = rig.dml
    stage("CreateOperator")
    op = dml.CreateOperator(case.op_desc())
    handles["op"] = op
    stage("CompileOperator")
    compiled = dml.CompileOperator(op, case.flags)
    handles["compiled"] = compiled
    stage("CreateOperatorInitializer")
    initializer = dml.CreateOperatorInitializer([compiled])
    handles["initializer"] = initializer
    init_table = dml.CreateBindingTable(rig.table_desc(initializer))

    stage("CreateCommittedResource")
    other = D3D12CreateDevice(case.adapter, D3D_FEATURE_LEVEL_11_0) if any(b.other_device for b in case.buffers) else None
    resources = [rig.buffer(b.width, b.heap_type, b.uav, other if b.other_device else None) for b in case.buffers]
    handles["resources"] = resources
    initial = initial_bytes(case)
    stage("upload")
    staging = []
    for resource, spec, data in zip(resources, case.buffers, initial):
        if spec.heap_type == D3D12_HEAP_TYPE_DEFAULT and not spec.other_device:
            staging.append(rig.upload(resource, data))
        elif spec.heap_type == D3D12_HEAP_TYPE_UPLOAD:
            resource.Map(0, None)[:] = data
    stage("RecordDispatch(initializer)")
    if "side_init" in faults:
        side_allocator = rig.device.CreateCommandAllocator(D3D12_COMMAND_LIST_TYPE_DIRECT)
        side = rig.device.CreateCommandList(0, D3D12_COMMAND_LIST_TYPE_DIRECT, side_allocator, None)
        rig.recorder.RecordDispatch(side, initializer, init_table)   # recorded, never executed
        handles["side_list"] = side
    elif "no_init" not in faults:
        rig.recorder.RecordDispatch(rig.list, initializer, init_table)
    stage("ExecuteCommandLists(upload)")
    rig.submit()
    del staging

    # ---- the checked part: bindings, recording, execution ----
    stage("CreateBindingTable")
    n = len(case.tensors)
    size = n + case.fault_args.get("table_size_delta", 0)
    table_dispatchable = initializer if "table_for_initializer" in faults else compiled
    table_desc = rig.table_desc(table_dispatchable, case.first_slot, size)
    table = dml.CreateBindingTable(table_desc)
    handles["table"] = table
    command_list = rig.list
    if "copy_list" in faults:
        copy_allocator = rig.device.CreateCommandAllocator(D3D12_COMMAND_LIST_TYPE_COPY)
        command_list = rig.device.CreateCommandList(0, D3D12_COMMAND_LIST_TYPE_COPY, copy_allocator, None)
    if "no_heap" in faults:
        command_list.ClearState(None)
    if "other_heap" in faults:
        other_heap = rig.device.CreateDescriptorHeap(D3D12_DESCRIPTOR_HEAP_DESC(
            Type=D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, NumDescriptors=HEAP_SLOTS,
            Flags=D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE))
        command_list.SetDescriptorHeaps([other_heap])
    # Buffers the dispatch must leave alone exist before the snapshot, so the watch covers them.
    scratch = handles["scratch"] = rig.buffer(1024) if case.scratch else None
    decoy = None
    if case.late_bind:
        out = case.bindings[-1]
        decoy = handles["decoy"] = rig.buffer(out.offset + out.size)
    mem_watch = MemoryWatch(rig.gpu) if watch else None
    if mem_watch is not None:
        heap_alloc = rig.heap._allocation
        mem_watch.allow_range(heap_alloc, 32 * case.first_slot, 32 * (case.first_slot + n))
    stage("Bind")
    bindings = [binding_desc(resources[b.buffer], b.offset, b.size) for b in case.bindings]
    if "binding_type_none" in faults:
        bindings[case.fault_args["index"]] = DML_BINDING_DESC(Type=DML_BINDING_TYPE_NONE)
    if "buffer_array" in faults:
        bindings[case.fault_args["index"]] = DML_BINDING_DESC(
            Type=DML_BINDING_TYPE_BUFFER_ARRAY, Desc=DML_BUFFER_ARRAY_BINDING(Bindings=[bindings[0].Desc]))
    if "raw_binding" in faults:
        bindings[case.fault_args["index"]] = bindings[case.fault_args["index"]].Desc
    inputs, outputs = bindings[:case.n_inputs], bindings[case.n_inputs:]
    if "input_count" in faults:
        delta = case.fault_args["delta"]
        inputs = inputs + inputs[:1] * delta if delta > 0 else inputs[:delta]
    if "output_count" in faults:
        outputs = outputs + outputs[:1]
    if "temp_misaligned" in faults:
        table.BindTemporaryResource(binding_desc(resources[case.bindings[-1].buffer], 16, 16))
    if "temp_overlap" in faults:
        victim = case.bindings[case.fault_args["index"]]
        table.BindTemporaryResource(binding_desc(resources[victim.buffer], 0, case.buffers[victim.buffer].width))
    if scratch is not None:
        table.BindTemporaryResource(binding_desc(scratch, 0, 512))
        table.BindPersistentResource(binding_desc(scratch, 512, 512))
    if "evict" in faults:
        stage("Evict")
        dml.Evict([compiled])
        stage("Bind")
    table.BindInputs(inputs)
    if decoy is not None:
        table.BindOutputs([binding_desc(decoy, case.bindings[-1].offset, case.bindings[-1].size)])
    elif "no_outputs" not in faults:
        table.BindOutputs(outputs)
    if case.barrier:
        command_list.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.Transition(
            r, D3D12_RESOURCE_STATE_COMMON, D3D12_RESOURCE_STATE_UNORDERED_ACCESS)
            for i, r in enumerate(resources) if case.buffers[i].heap_type == D3D12_HEAP_TYPE_DEFAULT
            and not case.buffers[i].other_device])
    if "wrong_state" in faults:
        # a copy leaves the first input in COPY_DEST and no barrier follows (the copy rewrites the same bytes)
        first = case.bindings[0].buffer
        same = rig.buffer(case.buffers[first].width, D3D12_HEAP_TYPE_UPLOAD, uav=False)
        same.Map(0, None)[:] = initial[first]
        command_list.CopyBufferRegion(resources[first], 0, same, 0, case.buffers[first].width)
        handles["same"] = same
    if "closed_list" in faults:
        command_list.Close()
    stage("RecordDispatch")
    rig.recorder.RecordDispatch(command_list, compiled, table)
    if decoy is not None:
        stage("Bind (late)")
        table.BindOutputs(outputs)   # DESCRIPTORS_VOLATILE: the bindings in force at execution count
    stage("ExecuteCommandLists")
    handles["list"] = command_list
    if "closed_list" not in faults:
        command_list.Close()
    if command_list is not rig.list:   # a COPY list: DirectML refused it; run the (empty) DIRECT list instead
        rig.list.Close()
        command_list = rig.list
    rig.queue.ExecuteCommandLists([command_list])
    if rig.device.GetDeviceRemovedReason() == S_OK:
        rig.wait()
    expected = None
    if rig.dml.GetDeviceRemovedReason() == S_OK and rig.device.GetDeviceRemovedReason() == S_OK:
        expected = expected_outputs(case, initial)
        if mem_watch is not None:
            out_tensor, out_binding = case.tensors[-1], case.bindings[-1]
            allocation = resources[out_binding.buffer]._allocation
            mem_watch.allow(allocation, element_byte_mask(allocation.size, out_binding.offset, out_tensor))
    if mem_watch is not None:
        mem_watch.check()
    reason = rig.dml.GetDeviceRemovedReason()
    if reason != S_OK:
        return Outcome("removed", stage.name, reason, rig.dml._removed_message, rig=rig, handles=handles)
    stage("readback")
    rig.allocator.Reset()
    command_list.Reset(rig.allocator, None)
    command_list.SetDescriptorHeaps([rig.heap])
    out_index = sorted(expected)
    got = rig.download([resources[i] for i in out_index])
    rig.gpu.memory.verify_guards()
    return Outcome("ok", stage.name, outputs=dict(zip(out_index, got)), expected=expected, rig=rig, handles=handles)


def check_ok(outcome):
    """A valid case's outcome: no error, and every output buffer byte equals the golden expectation."""
    assert outcome.kind == "ok", (outcome.kind, outcome.stage, hex(outcome.hresult), outcome.message)
    for index, expected in outcome.expected.items():
        same_bits(outcome.outputs[index], expected, f"buffer {index}")


# ---- after an error ----------------------------------------------------------------------------------------
def small_clip_works(rig):
    """Run a valid 64-element FLOAT32 CLIP on the rig's devices (fresh allocator and list); check it bit for bit."""
    device, dml = rig.device, rig.dml
    sizes = [64]
    t = DML_TENSOR_DESC(Type=DML_TENSOR_TYPE_BUFFER, Desc=DML_BUFFER_TENSOR_DESC(
        DataType=DML_TENSOR_DATA_TYPE_FLOAT32, Sizes=sizes, TotalTensorSizeInBytes=256))
    level = dml._feature_level
    if level < DML_FEATURE_LEVEL_3_0:  # 4 dimensions only
        sizes = [1, 1, 8, 8]
        t.Desc.Sizes = sizes
    compiled = dml.CompileOperator(dml.CreateOperator(DML_OPERATOR_DESC(
        Type=DML_OPERATOR_ELEMENT_WISE_CLIP,
        Desc=DML_ELEMENT_WISE_CLIP_OPERATOR_DESC(InputTensor=t, OutputTensor=t, Min=-1.0, Max=1.0))), 0)
    allocator = device.CreateCommandAllocator(D3D12_COMMAND_LIST_TYPE_DIRECT)
    command_list = device.CreateCommandList(0, D3D12_COMMAND_LIST_TYPE_DIRECT, allocator, None)
    heap = device.CreateDescriptorHeap(D3D12_DESCRIPTOR_HEAP_DESC(
        Type=D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, NumDescriptors=2, Flags=D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE))
    command_list.SetDescriptorHeaps([heap])
    recorder = dml.CreateCommandRecorder()

    def table(dispatchable):
        return dml.CreateBindingTable(DML_BINDING_TABLE_DESC(
            Dispatchable=dispatchable, CPUDescriptorHandle=heap.GetCPUDescriptorHandleForHeapStart(),
            GPUDescriptorHandle=heap.GetGPUDescriptorHandleForHeapStart(), SizeInDescriptors=2))
    initializer = dml.CreateOperatorInitializer([compiled])
    recorder.RecordDispatch(command_list, initializer, table(initializer))
    x = np.linspace(-3, 3, 64, dtype=np.float32)
    buffer = rig.buffer(256)
    staging = rig.buffer(256, D3D12_HEAP_TYPE_UPLOAD, uav=False)
    staging.Map(0, None)[:] = x.view(np.uint8)
    command_list.CopyBufferRegion(buffer, 0, staging, 0, 256)
    command_list.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.Transition(
        buffer, D3D12_RESOURCE_STATE_COPY_DEST, D3D12_RESOURCE_STATE_UNORDERED_ACCESS)])
    t2 = table(compiled)
    t2.BindInputs([binding_desc(buffer, 0, 256)])
    t2.BindOutputs([binding_desc(buffer, 0, 256)])
    recorder.RecordDispatch(command_list, compiled, t2)
    readback = rig.buffer(256, D3D12_HEAP_TYPE_READBACK, uav=False)
    command_list.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.Transition(
        buffer, D3D12_RESOURCE_STATE_UNORDERED_ACCESS, D3D12_RESOURCE_STATE_COPY_SOURCE)])
    command_list.CopyResource(readback, buffer)
    command_list.Close()
    rig.queue.ExecuteCommandLists([command_list])
    if rig.device.GetDeviceRemovedReason() == S_OK:
        rig.wait()
    assert dml.GetDeviceRemovedReason() == S_OK and device.GetDeviceRemovedReason() == S_OK
    same_bits(readback.Map(0, None).view(np.float32), golden.clip(x, np.float32(-1), np.float32(1)), "small CLIP")
    rig.gpu.memory.verify_guards()


def assert_removed_everywhere(rig, handles, reason, d3d12_removed=False):
    """A removed DML device: every HRESULT method of it and its children raises DXGI_ERROR_DEVICE_REMOVED
    naming the first cause, void methods do nothing, GetDeviceRemovedReason keeps the reason."""
    dml = rig.dml
    assert dml.GetDeviceRemovedReason() == reason
    message = dml._removed_message
    t = DML_TENSOR_DESC(Type=DML_TENSOR_TYPE_BUFFER, Desc=DML_BUFFER_TENSOR_DESC(
        DataType=DML_TENSOR_DATA_TYPE_FLOAT32, Sizes=[1, 1, 1, 4], TotalTensorSizeInBytes=16))
    valid = DML_OPERATOR_DESC(Type=DML_OPERATOR_ELEMENT_WISE_IDENTITY,
                              Desc=DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC(InputTensor=t, OutputTensor=t))
    calls = [
        ("CreateOperator", lambda: dml.CreateOperator(valid)),
        ("CreateOperatorInitializer", lambda: dml.CreateOperatorInitializer([])),
        ("CreateCommandRecorder", lambda: dml.CreateCommandRecorder()),
        ("CreateBindingTable", lambda: dml.CreateBindingTable(None)),
        ("CheckFeatureSupport", lambda: dml.CheckFeatureSupport(
            DML_FEATURE_FEATURE_LEVELS, DML_FEATURE_QUERY_FEATURE_LEVELS(RequestedFeatureLevels=[DML_FEATURE_LEVEL_1_0]))),
        ("Evict", lambda: dml.Evict([])),
        ("MakeResident", lambda: dml.MakeResident([])),
        ("GetParentDevice", lambda: dml.GetParentDevice()),
        ("SetName", lambda: dml.SetName("removed")),
        ("QueryInterface", lambda: dml.QueryInterface(IID_IDMLDevice)),
        ("CompileGraph", lambda: dml.CompileGraph(None, 0)),
    ]
    for key in ("op", "compiled", "initializer", "table"):
        obj = handles.get(key)
        if obj is not None:
            calls.append((f"{key}.GetDevice", obj.GetDevice))
            calls.append((f"{key}.SetName", lambda obj=obj: obj.SetName("x")))
    if handles.get("op") is not None:
        calls.append(("CompileOperator", lambda: dml.CompileOperator(handles["op"], 0)))
    if handles.get("table") is not None:
        calls.append(("table.Reset", lambda: handles["table"].Reset(None)))
    if handles.get("initializer") is not None:
        calls.append(("initializer.Reset", lambda: handles["initializer"].Reset(None)))
    for name, call in calls:
        try:
            call()
        except HResultError as error:
            assert error.hresult == DXGI_ERROR_DEVICE_REMOVED, (name, error)
            assert message in error.message, (name, error.message, message)
        else:
            raise AssertionError(f"{name} succeeded on a removed DirectML device")
    # void methods: no-ops
    table = handles.get("table")
    if table is not None:
        before = (table._inputs, table._outputs)
        assert table.BindInputs(None) is None and table.BindOutputs(None) is None
        assert (table._inputs, table._outputs) == before
        if handles.get("compiled") is not None:
            command_list = handles.get("list") or rig.list
            count = len(command_list._commands)
            assert rig.recorder.RecordDispatch(command_list, handles["compiled"], table) is None
            assert len(command_list._commands) == count
    assert dml.GetDeviceRemovedReason() == reason and dml._removed_message == message
    if d3d12_removed:
        device = rig.device
        for name, call in (("CreateFence", lambda: device.CreateFence(0, 0)),
                           ("Signal", lambda: rig.queue.Signal(rig.fence, 99)),
                           ("CreateCommandAllocator", lambda: device.CreateCommandAllocator(0))):
            try:
                call()
            except HResultError as error:
                assert error.hresult == DXGI_ERROR_DEVICE_REMOVED, (name, error)
            else:
                raise AssertionError(f"{name} succeeded on a removed D3D12 device")
        assert rig.fence.GetCompletedValue() == (1 << 64) - 1
    else:
        assert rig.device.GetDeviceRemovedReason() == S_OK  # DML removal does not remove the D3D12 device
    rig.gpu.memory.verify_guards()
