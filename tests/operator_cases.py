"""Operator cases: the plain data a property test draws for one DirectML dispatch, and their runner.

A `Case` is everything one DirectML dispatch of a seed operator needs, as plain data that hypothesis
draws and shrinks: the adapter, the emulated feature level, the operator and its tensors (data type,
sizes, strides, TotalTensorSizeInBytes, alignment), ScaleBias and bounds, the execution flags, the
buffers and each tensor's binding (buffer, offset, size), and a seed for the buffer contents.
A fault (`Case.faults`, a set of names) turns a valid case into a specific misuse; `run_case` runs
a case on a MirrorRig (tests/mirror_rig.py: dmlemu.d3d12 + dmlemu.directml, the way a C++ program
would) and returns an `Outcome`: the output buffers' bytes, or the HResultError and the stage that
raised it, or the device removal and its sentence, with what the DirectML debug layer printed. Any
other exception escapes: the tests fail on it. A MemoryWatch (tests/memory_watch.py) runs around
every dispatch.

Also here: the hypothesis profile helpers (`scaled`) and `garbage`, the strategy of hostile arguments
the API-boundary tests pass where the mirror's methods expect structs, enums, sequences and objects.
"""
import contextlib
import dataclasses
import io
import os
from dataclasses import dataclass, field

import numpy as np
from hypothesis import event
from hypothesis import strategies as st

from dmlemu import golden
from dmlemu.d3d12 import *  # noqa: F401,F403
from dmlemu.directml import *  # noqa: F401,F403
from dmlemu.directml import inspect
from dmlemu.directml.operators import SCHEMAS
from dmlemu.directml.validation import exact_tensor_size
from dmlemu.errors import DXGI_ERROR_DEVICE_REMOVED, HResultError, S_OK
from memory_watch import MemoryWatch, element_byte_mask
from mirror_rig import BITS, MirrorRig, buffer_binding, highest_feature_level, removal, same_bits

GUARD_BYTES = 64
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


REFUSED, ACCEPTED = "refused with its documented error", "accepted"


def outcome(kind):
    """Note how one hostile input ended (REFUSED or ACCEPTED): `--hypothesis-show-statistics` shows the
    split per property test, and bench/hostile_census.py tables it per public entry."""
    event(kind)


def scaled(ci_examples, long_factor=25):
    """Examples for one property test: `ci_examples` in CI, `long_factor` times more in the long profile."""
    return ci_examples * long_factor if fuzz_profile() == "long" else ci_examples


# Hostile arguments: what a careless or malicious caller passes where the mirror's methods expect structs,
# enums, sequences and objects. Only HResultError may come out of an HRESULT method given any of them.
garbage = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(1 << 70), max_value=1 << 70),
    st.integers(min_value=-3, max_value=20), st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=3), st.binary(max_size=4),
    st.lists(st.integers(min_value=-5, max_value=(1 << 33)), max_size=9),
    st.lists(st.one_of(st.integers(-2, 9), st.floats(), st.none(), st.text(max_size=1)), max_size=9),
    st.tuples(st.integers(1, 4), st.integers(1, 4)),
    st.builds(lambda v: np.array(v, dtype=np.int64), st.lists(st.integers(-3, 10), max_size=5)),
    st.builds(lambda v: np.array(v, dtype=np.float32), st.lists(st.floats(-3, 10, width=32), max_size=5)),
    st.just(np.zeros((2, 2), np.uint32)), st.just(np.float16(2.0)), st.just(np.uint64(1 << 63)),
    st.dictionaries(st.text(max_size=2), st.integers(), max_size=2), st.just(object()),
    st.just(DML_TENSOR_DESC()), st.just(DML_BUFFER_TENSOR_DESC()), st.just(DML_SCALE_BIAS()),
)


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
    scratch: bool = False             # bind a temporary resource in its own buffer (and the persistent one again)
    d3d12_debug: bool = False         # the D3D12 debug layer on for this device
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
    debug_output: str = ""             # what the DirectML debug layer printed (stderr)


def case_rig(case):
    """The MirrorRig a case runs on: its adapter, DML flags and feature level, a HEAP_SLOTS-descriptor heap."""
    flags = DML_CREATE_DEVICE_FLAG_DEBUG if case.debug else DML_CREATE_DEVICE_FLAG_NONE
    return MirrorRig(case.adapter, dml_flags=flags, feature_level=case.level,
                     minimum_feature_level=case.level if case.create1 else None, heap_slots=HEAP_SLOTS,
                     d3d12_debug=case.d3d12_debug)


def binding_desc(resource, offset, size):
    return buffer_binding(resource, offset, size)


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
    """Run a case through the mirror. Returns an Outcome; only HResultError is caught (and attributed).
    What the DirectML debug layer prints meanwhile (stderr) is kept as Outcome.debug_output."""
    stage = Stage()
    rig = None
    handles = {}
    with contextlib.redirect_stderr(io.StringIO()) as stderr:
        try:
            stage("D3D12CreateDevice/DMLCreateDevice")
            rig = case_rig(case)
            outcome = _run(case, rig, stage, handles, watch)
        except HResultError as error:
            reason = rig.dml.GetDeviceRemovedReason() if rig is not None and rig.dml is not None else S_OK
            if error.hresult == DXGI_ERROR_DEVICE_REMOVED and reason != S_OK:
                # A void call removed the DML device and a later creation reported it: the removal is the outcome.
                outcome = Outcome("removed", stage.name, reason, removal(rig.dml)[1], rig=rig, handles=handles)
            else:
                outcome = Outcome("hresult", stage.name, error.hresult, error.message, rig=rig, handles=handles)
    outcome.debug_output = stderr.getvalue()
    return outcome


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
    init_table.BindOutputs([buffer_binding(rig.persistent_resource(compiled))])

    stage("CreateCommittedResource")
    other = D3D12CreateDevice(case.adapter, D3D_FEATURE_LEVEL_11_0) if any(b.other_device for b in case.buffers) else None
    resources = [rig.buffer(b.width, b.heap_type, uav=b.uav, device=other if b.other_device else None)
                 for b in case.buffers]
    handles["resources"] = resources
    initial = initial_bytes(case)
    stage("upload")
    staging = []
    for resource, spec, data in zip(resources, case.buffers, initial):
        if spec.heap_type == D3D12_HEAP_TYPE_DEFAULT and not spec.other_device:
            staging.append(rig.record_upload(resource, data))
        elif spec.heap_type == D3D12_HEAP_TYPE_UPLOAD:
            resource.Map(0, None)[:] = data
    stage("RecordDispatch(initializer)")
    if "side_init" in faults:
        side_allocator = rig.device.CreateCommandAllocator(D3D12_COMMAND_LIST_TYPE_DIRECT)
        side = rig.device.CreateCommandList(0, D3D12_COMMAND_LIST_TYPE_DIRECT, side_allocator, None)
        rig.set_heap_on(side)   # the initializer's descriptors are in the rig's heap
        rig.recorder.RecordDispatch(side, initializer, init_table)   # recorded, never executed
        handles["side_list"] = side
    elif "no_init" not in faults:
        rig.recorder.RecordDispatch(rig.list, initializer, init_table)
    stage("ExecuteCommandLists(upload)")
    rig.execute()
    del staging

    # ---- the checked part: bindings, recording, execution ----
    stage("CreateBindingTable")
    n = len(case.tensors)
    size = n + case.fault_args.get("table_size_delta", 0)
    table_dispatchable = initializer if "table_for_initializer" in faults else compiled
    table_desc = rig.table_desc(table_dispatchable, case.first_slot, size)
    table = dml.CreateBindingTable(table_desc)
    if table_dispatchable is compiled:
        table.BindPersistentResource(buffer_binding(rig.persistent[compiled]))
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
        heap_alloc = inspect(rig.heap).allocation
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
        table.BindPersistentResource(buffer_binding(rig.persistent[compiled]))   # the initialized one
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
            allocation = inspect(resources[out_binding.buffer]).allocation
            mem_watch.allow(allocation, element_byte_mask(allocation.size, out_binding.offset, out_tensor))
    if mem_watch is not None:
        mem_watch.check()
    reason = rig.dml.GetDeviceRemovedReason()
    if reason != S_OK:
        return Outcome("removed", stage.name, reason, removal(rig.dml)[1], rig=rig, handles=handles)
    stage("readback")
    rig.allocator.Reset()
    command_list.Reset(rig.allocator, None)
    command_list.SetDescriptorHeaps([rig.heap])
    out_index = sorted(expected)
    got = rig.download([resources[i] for i in out_index])
    rig.memory.verify_guards()
    return Outcome("ok", stage.name, outputs=dict(zip(out_index, got)), expected=expected, rig=rig, handles=handles)


def check_ok(outcome):
    """A valid case's outcome: no error, and every output buffer byte equals the golden expectation."""
    assert outcome.kind == "ok", (outcome.kind, outcome.stage, hex(outcome.hresult), outcome.message)
    for index, expected in outcome.expected.items():
        same_bits(outcome.outputs[index], expected, f"buffer {index}")


# ---- after an error ----------------------------------------------------------------------------------------
def small_clip_works(rig):
    """Run a valid 64-element FLOAT32 CLIP on the rig's devices (MirrorRig.run_operator: its own allocator, list
    and heap, so the rig's list may be in any state); check it bit for bit and the guard bytes."""
    sizes = [64] if highest_feature_level(rig.dml) >= DML_FEATURE_LEVEL_3_0 else [1, 1, 8, 8]   # 4 dimensions only
    t = DML_TENSOR_DESC(Type=DML_TENSOR_TYPE_BUFFER, Desc=DML_BUFFER_TENSOR_DESC(
        DataType=DML_TENSOR_DATA_TYPE_FLOAT32, Sizes=sizes, TotalTensorSizeInBytes=256))
    x = np.linspace(-3, 3, 64, dtype=np.float32).reshape(sizes)
    clip = DML_ELEMENT_WISE_CLIP_OPERATOR_DESC(InputTensor=t, OutputTensor=t, Min=-1.0, Max=1.0)
    [y] = rig.run_operator(DML_OPERATOR_DESC(Type=DML_OPERATOR_ELEMENT_WISE_CLIP, Desc=clip), [x])
    same_bits(y, golden.clip(x, np.float32(-1), np.float32(1)), "small CLIP")
    rig.memory.verify_guards()


def assert_removed_everywhere(rig, handles, reason, d3d12_removed=False):
    """A removed DML device: every HRESULT method of it and its children raises DXGI_ERROR_DEVICE_REMOVED
    naming the first cause, void methods do nothing, GetDeviceRemovedReason keeps the reason."""
    dml = rig.dml
    assert dml.GetDeviceRemovedReason() == reason
    message = removal(dml)[1]
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
        before = (inspect(table).inputs, inspect(table).outputs)
        assert table.BindInputs(None) is None and table.BindOutputs(None) is None
        assert (inspect(table).inputs, inspect(table).outputs) == before
        if handles.get("compiled") is not None:
            command_list = handles.get("list") or rig.list
            count = len(inspect(command_list).commands)
            assert rig.recorder.RecordDispatch(command_list, handles["compiled"], table) is None
            assert len(inspect(command_list).commands) == count
    assert removal(dml) == (reason, message)
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
    rig.memory.verify_guards()
