"""Persistent resources and DML_TENSOR_FLAG_OWNED_BY_DML (docs/PERSISTENT_RESOURCES.md), in strict-host mode.

Every test here runs with DMLEMU_STRICT_HOST=1 (the autouse fixture): the operator's precomputed constants live
in its persistent resource, written by the initializer's copy
kernels (kernels/initialize.s) and read there by every execution; DML-owned inputs are bound to the initializer
(one DML_BUFFER_ARRAY_BINDING per operator) and kept there too. These tests run that path live: the sizes and
descriptor counts, the bytes initialization writes, rebinding, re-initialization after Reset, an unbound or never
initialized persistent resource with and without the debug layer, owned inputs bit-exact for every seed operator,
and hostile initializer bindings.
"""
import contextlib
import io

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from dmlemu import golden
from dmlemu.convenience import run_operator
from dmlemu.d3d12 import *  # noqa: F401,F403
from dmlemu.directml import *  # noqa: F401,F403
from dmlemu.directml import inspect
from dmlemu.errors import E_INVALIDARG, S_OK
from memory_watch import MemoryWatch
from mirror_rig import ClipRig, MirrorRig, buffer_binding, removal, same_bits

pytestmark = pytest.mark.usefixtures("guard_bytes")


@pytest.fixture(autouse=True)
def strict_host(monkeypatch):
    """Strict-host mode: constants in the persistent resource, a temporary resource for every operator
    (tests/directml/test_root_constants.py covers the default, driver-like binding properties)."""
    monkeypatch.setenv("DMLEMU_STRICT_HOST", "1")

OWNED = DML_TENSOR_FLAG_OWNED_BY_DML


def tensor(data_type=DML_TENSOR_DATA_TYPE_FLOAT32, sizes=(16,), flags=DML_TENSOR_FLAG_NONE, strides=None):
    sizes = list(sizes)
    total = DMLCalcBufferTensorSize(data_type, len(sizes), sizes, strides)
    return DML_TENSOR_DESC(Type=DML_TENSOR_TYPE_BUFFER, Desc=DML_BUFFER_TENSOR_DESC(
        DataType=data_type, Flags=flags, Sizes=sizes, Strides=strides, TotalTensorSizeInBytes=total))


def clip(inp=None, out=None, lo=0.0, hi=1.0):
    return DML_OPERATOR_DESC(Type=DML_OPERATOR_ELEMENT_WISE_CLIP, Desc=DML_ELEMENT_WISE_CLIP_OPERATOR_DESC(
        InputTensor=inp or tensor(), OutputTensor=out or tensor(), Min=lo, Max=hi))


def array_binding(*entries):
    return DML_BINDING_DESC(Type=DML_BINDING_TYPE_BUFFER_ARRAY, Desc=DML_BUFFER_ARRAY_BINDING(Bindings=list(entries)))


def buffer(resource, size):
    return DML_BUFFER_BINDING(Buffer=resource, Offset=0, SizeInBytes=size)


NONE_BINDING = DML_BINDING_DESC(Type=DML_BINDING_TYPE_NONE, Desc=None)


# ---- binding properties ----------------------------------------------------------------------------------
def test_sizes_and_descriptor_counts_follow_the_layout():
    rig = MirrorRig(dml_flags=DML_CREATE_DEVICE_FLAG_DEBUG)
    plain = rig.compile(clip())
    owned = rig.compile(clip(tensor(sizes=(100,), flags=OWNED), tensor(sizes=(100,))))
    cond = tensor(DML_TENSOR_DATA_TYPE_UINT8, (2, 3), OWNED)
    if_op = rig.compile(DML_OPERATOR_DESC(Type=DML_OPERATOR_ELEMENT_WISE_IF, Desc=DML_ELEMENT_WISE_IF_OPERATOR_DESC(
        ConditionTensor=cond, ATensor=tensor(DML_TENSOR_DATA_TYPE_INT64, (2, 3), OWNED),
        BTensor=tensor(DML_TENSOR_DATA_TYPE_INT64, (2, 3)), OutputTensor=tensor(DML_TENSOR_DATA_TYPE_INT64, (2, 3)))))
    props = lambda d: (lambda p: (p.RequiredDescriptorCount, p.TemporaryResourceSize, p.PersistentResourceSize))(
        d.GetBindingProperties())
    # The constant buffer (288 bytes) rounded up to 256, then each owned input at the next multiple of 256; the
    # strict-host temporary resource (256 bytes) for every compiled operator.
    assert props(plain) == (2, 256, 512)
    assert props(owned) == (2, 256, 512 + 512)            # 400 bytes of owned data
    assert props(if_op) == (4, 256, 512 + 256 + 256)      # 8 bytes of condition, 48 of A
    assert inspect(owned).persistent_regions == ((None, 0), (0, 512))
    assert inspect(if_op).persistent_regions == ((None, 0), (0, 512), (1, 768))
    initializer = rig.dml.CreateOperatorInitializer([plain, if_op])
    assert props(initializer) == (2 + 4, 0, 0)           # per operator: its persistent resource, then its inputs
    initializer.Reset([owned])
    assert props(initializer) == (2, 0, 0)
    initializer.Reset(None)
    assert props(initializer) == (0, 0, 0)
    assert props(rig.dml.CreateOperatorInitializer([])) == (0, 0, 0)


# ---- the initializer's dispatch writes the persistent resource on the GPU -------------------------------
def test_initialization_copies_the_constants_into_the_persistent_resource_and_execution_reads_them():
    from dmlemu.traces.capture import capture
    rig = ClipRig(dml_debug=True)
    persistent = None
    x = np.linspace(-1, 2, 16, dtype=np.float32)
    cap = capture(rig.device, detail="dispatch")
    with cap:
        rig.initialize_clip()
        persistent = rig.persistent[rig.compiled]
        assert not inspect(persistent).data.any()   # the persistent resource is opaque to the API
        rig.write(rig.a, x)                            # executes the list: the initializer's dispatch runs
        rig.recorder.RecordDispatch(rig.list, rig.compiled, rig.bound_table())
        rig.execute()
    assert rig.dml.GetDeviceRemovedReason() == S_OK
    constants = bytes(inspect(rig.compiled).kernel.constants)
    data = inspect(persistent).data
    assert bytes(data[:len(constants)]) == constants and not data[len(constants):].any()
    same_bits(rig.read(rig.b).view(np.float32), golden.clip(x, np.float32(0), np.float32(1)))
    summary = cap.trace.format_summary()
    # the initializer's name whole, wrapped to the kernel column (traces.trace.wrap_name)
    assert "0 DirectML initialize DML_OPERATOR_ " in summary and "\n    ELEMENT_WISE_CLIP constants\n" in summary, summary
    assert "element_wise_clip_float32_packed" in summary, summary
    assert "288         288" in summary   # the copy read and wrote the 288 bytes of constants


def test_a_second_execution_and_a_second_submission_read_the_same_persistent_bytes():
    rig = ClipRig()
    rig.initialize_clip()
    rig.execute()
    for step in range(2):
        x = np.linspace(-3, 3, 16, dtype=np.float32) * (step + 1)
        rig.write(rig.a, x)
        rig.recorder.RecordDispatch(rig.list, rig.compiled, rig.bound_table())
        rig.execute()
        same_bits(rig.read(rig.b).view(np.float32), golden.clip(x, np.float32(0), np.float32(1)))


# ---- unbound / uninitialized persistent resources ---------------------------------------------------------
def _uninitialized_run(debug, bind_persistent):
    """A CLIP executed without initialization: the output starts as 0x7F bytes."""
    rig = ClipRig(dml_debug=debug)
    rig.write(rig.a, np.linspace(-1, 2, 16, dtype=np.float32))
    rig.write(rig.b, np.full(64, 0x7F, np.uint8))
    table = rig.bound_table()
    if bind_persistent:
        table.BindPersistentResource(buffer_binding(rig.buffer(512)))
    return rig, table


@pytest.mark.parametrize("bind_persistent, message", [
    (False, "<IDMLCompiledOperator DML_OPERATOR_ELEMENT_WISE_CLIP> needs a persistent resource of 512 bytes; none is "
            "bound (BindPersistentResource)."),
    (True, "the compiled operator DML_OPERATOR_ELEMENT_WISE_CLIP was never initialized; record an "
           "IDMLOperatorInitializer dispatch for it (and execute it) first."),
])
def test_an_unbound_or_uninitialized_persistent_resource(bind_persistent, message):
    """The debug layer removes the device with a sentence; without it the kernel reads the bytes there (zeros
    in a fresh resource, none at all when unbound): element count 0, no lane stores, never the clip's result."""
    rig, table = _uninitialized_run(True, bind_persistent)
    rig.recorder.RecordDispatch(rig.list, rig.compiled, table)
    assert removal(rig.dml) == (E_INVALIDARG, f"IDMLCommandRecorder.RecordDispatch: {message}")
    rig, table = _uninitialized_run(False, bind_persistent)
    rig.recorder.RecordDispatch(rig.list, rig.compiled, table)
    rig.execute()
    assert rig.dml.GetDeviceRemovedReason() == S_OK
    assert (rig.read(rig.b) == 0x7F).all()


def test_garbage_in_the_persistent_resource_never_writes_outside_a_resource():
    """Bytes that were never constants (0xFF everywhere: huge counts and strides): every access stays inside
    the bound ranges (the guard bytes stay intact) and the device keeps working."""
    rig = ClipRig()
    garbage = rig.buffer(512)
    rig.write(garbage, np.full(512, 0xFF, np.uint8))
    rig.write(rig.b, np.full(64, 0x7F, np.uint8))
    table = rig.bound_table()
    table.BindPersistentResource(buffer_binding(garbage))
    rig.recorder.RecordDispatch(rig.list, rig.compiled, table)
    watch = MemoryWatch(rig.gpu)
    watch.allow_range(inspect(rig.b).allocation, 0, 64)     # the output's bound range may change, nothing else
    rig.list.Close()
    rig.queue.ExecuteCommandLists([rig.list])
    rig.wait()
    watch.check()
    assert rig.dml.GetDeviceRemovedReason() == S_OK and rig.device.GetDeviceRemovedReason() == S_OK


def test_rebinding_another_persistent_resource_is_reported_by_the_debug_layer():
    rig = ClipRig(dml_debug=True)
    rig.initialize_clip()
    rig.execute()
    table = rig.bound_table()
    other = rig.buffer(512)
    table.BindPersistentResource(buffer_binding(other))
    rig.recorder.RecordDispatch(rig.list, rig.compiled, table)
    rig.execute()
    assert removal(rig.dml) == (E_INVALIDARG, (
        "ExecuteCommandLists: the persistent resource bound to DML_OPERATOR_ELEMENT_WISE_CLIP (buffer #3 bytes 0 to "
        "512) is not the one its initialization wrote; bind the persistent resource the IDMLOperatorInitializer "
        "dispatch initialized. The dispatch is skipped."))


def test_reinitializing_into_another_persistent_resource_after_reset_works():
    rig = ClipRig(dml_debug=True)
    rig.initialize_clip()
    rig.execute()
    other = rig.compile(clip(lo=-0.5, hi=0.5))
    initializer = rig.initializer
    initializer.Reset([rig.compiled, other])      # both again: rig.compiled into a new persistent resource
    assert initializer.GetBindingProperties().RequiredDescriptorCount == 4
    table = rig.table(initializer, first=0, size=4)
    table.BindOutputs([buffer_binding(rig.persistent_resource(rig.compiled)),
                       buffer_binding(rig.persistent_resource(other))])
    rig.recorder.RecordDispatch(rig.list, initializer, table)
    rig.execute()
    x = np.linspace(-2, 2, 16, dtype=np.float32)
    rig.write(rig.a, x)
    for compiled, lo, hi in ((rig.compiled, 0, 1), (other, -0.5, 0.5)):
        t = rig.table(compiled, size=2)
        t.BindInputs([buffer_binding(rig.a, 0, 64)])
        t.BindOutputs([buffer_binding(rig.b, 0, 64)])
        rig.recorder.RecordDispatch(rig.list, compiled, t)
        rig.execute()
        assert rig.dml.GetDeviceRemovedReason() == S_OK
        same_bits(rig.read(rig.b).view(np.float32), golden.clip(x, np.float32(lo), np.float32(hi)))


def _two_clip_initializer(debug):
    rig = ClipRig(dml_debug=debug)
    other = rig.compile(clip(lo=-0.5, hi=0.5))
    initializer = rig.dml.CreateOperatorInitializer([rig.compiled, other])
    size = rig.compiled.GetBindingProperties().PersistentResourceSize
    assert size == other.GetBindingProperties().PersistentResourceSize == 512
    return rig, other, initializer, rig.table(initializer, first=0, size=4), rig.buffer(1024)


@pytest.mark.parametrize("debug", [True, False])
def test_one_buffer_bound_as_two_operators_overlapping_persistent_resources_is_refused(debug):
    rig, other, initializer, table, shared = _two_clip_initializer(debug)
    table.BindOutputs([buffer_binding(shared, 0, 512), buffer_binding(shared, 256, 512)])
    assert removal(rig.dml) == (E_INVALIDARG, (
        "IDMLBindingTable.BindOutputs: BindOutputs[1] writes bytes 256 to 768 of buffer #3 (operator 1's persistent "
        "resource), overlapping BindOutputs[0] at 0 to 512 (operator 0's); outputs' writable ranges must not "
        "overlap."))
    rig, other, initializer, table, shared = _two_clip_initializer(debug)
    table.BindOutputs([buffer_binding(shared, 0, 512), buffer_binding(shared, 0, 512)])
    assert removal(rig.dml)[1].startswith("IDMLBindingTable.BindOutputs: BindOutputs[1] writes bytes 0 to 512 of ")


def test_two_operators_persistent_resources_side_by_side_in_one_buffer_keep_their_own_constants():
    rig, other, initializer, table, shared = _two_clip_initializer(True)
    table.BindOutputs([buffer_binding(shared, 0, 512), buffer_binding(shared, 512, 512)])
    rig.recorder.RecordDispatch(rig.list, initializer, table)
    rig.execute()
    x = np.linspace(-2, 2, 16, dtype=np.float32)
    rig.write(rig.a, x)
    for compiled, offset, lo, hi in ((rig.compiled, 0, 0, 1), (other, 512, -0.5, 0.5)):
        t = rig.table(compiled, size=2)
        t.BindInputs([buffer_binding(rig.a, 0, 64)])
        t.BindOutputs([buffer_binding(rig.b, 0, 64)])
        t.BindPersistentResource(buffer_binding(shared, offset, 512))
        rig.recorder.RecordDispatch(rig.list, compiled, t)
        rig.execute()
        assert removal(rig.dml) == (S_OK, "")
        same_bits(rig.read(rig.b).view(np.float32), golden.clip(x, np.float32(lo), np.float32(hi)))


# ---- OWNED_BY_DML ----------------------------------------------------------------------------------------
OWNED_TYPES = ["FLOAT32", "FLOAT16", "INT8", "UINT16", "INT32", "UINT64", "INT64"]


def _desc(data_type, sizes, owned=True, strides=None):
    return tensor(getattr(golden_enum(), f"DML_TENSOR_DATA_TYPE_{data_type}"), sizes, OWNED if owned else 0, strides)


def golden_enum():
    import dmlemu.directml as dml
    return dml


def _values(rng, data_type, shape):
    dtype = golden.DATA_TYPES[data_type]
    if np.dtype(dtype).kind == "f":
        return (rng.standard_normal(shape) * 4).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(max(info.min, -1000), min(info.max, 1000), shape, dtype=dtype, endpoint=True)


@pytest.mark.parametrize("data_type", OWNED_TYPES)
def test_owned_inputs_are_bit_exact_for_every_seed_operator(data_type):
    rng = np.random.default_rng([7, OWNED_TYPES.index(data_type)])
    sizes = (3, 5)
    x = _values(rng, data_type, sizes)
    out = _desc(data_type, sizes, owned=False)
    strided = _desc(data_type, sizes, strides=[1, 3])    # an owned input with strides: its layout is copied as is
    [y] = run_operator(DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC(InputTensor=strided, OutputTensor=out), [x], debug=True)
    same_bits(y, x)
    if not data_type.endswith("64"):
        [y] = run_operator(DML_ELEMENT_WISE_THRESHOLD_OPERATOR_DESC(InputTensor=_desc(data_type, sizes), OutputTensor=out,
                                                                    Min=-2.5), [x], debug=True)
        same_bits(y, golden.threshold(x, -2.5))
        [y] = run_operator(DML_ELEMENT_WISE_CLIP_OPERATOR_DESC(InputTensor=strided, OutputTensor=out, Min=-3.0, Max=9.5),
                           [x], debug=True)
        same_bits(y, golden.clip(x, -3.0, 9.5))
    cond = (rng.integers(0, 3, sizes) == 0).astype(np.uint8)
    b = _values(rng, data_type, sizes)
    for owned in ((True, False, False), (False, True, True), (True, True, True)):
        desc = DML_ELEMENT_WISE_IF_OPERATOR_DESC(
            ConditionTensor=_desc("UINT8", sizes, owned[0]), ATensor=_desc(data_type, sizes, owned[1]),
            BTensor=_desc(data_type, sizes, owned[2]), OutputTensor=out)
        [y] = run_operator(desc, [cond, x, b], debug=True)
        same_bits(y, np.where(cond != 0, x, b))


def _owned_clip_rig(debug=True):
    rig = MirrorRig(dml_flags=DML_CREATE_DEVICE_FLAG_DEBUG if debug else DML_CREATE_DEVICE_FLAG_NONE,
                    mute_debug_output=True)
    compiled = rig.compile(clip(tensor(flags=OWNED)))
    weights = rig.buffer(64)
    return rig, compiled, weights


def test_an_owned_input_bound_at_execution_removes_the_device():
    rig, compiled, weights = _owned_clip_rig()
    table = rig.table(compiled, size=2)
    assert removal(rig.dml) == (S_OK, "")
    table.BindInputs([buffer_binding(weights, 0, 64)])
    assert removal(rig.dml) == (E_INVALIDARG, (
        "IDMLBindingTable.BindInputs: BindInputs[0] (InputTensor) binds buffer #1, but InputTensor is "
        "DML_TENSOR_FLAG_OWNED_BY_DML: it is bound at initialization (the initializer's BindInputs) and must be "
        "DML_BINDING_TYPE_NONE at execution."))


def test_the_debug_layer_reports_an_owned_input_not_bound_at_initialization():
    rig, compiled, _ = _owned_clip_rig()
    rig.initialize(compiled)
    assert removal(rig.dml) == (E_INVALIDARG, (
        "IDMLCommandRecorder.RecordDispatch: the initializer's BindInputs[0].Bindings[0] binds nothing for InputTensor "
        "of DML_OPERATOR_ELEMENT_WISE_CLIP, which is DML_TENSOR_FLAG_OWNED_BY_DML: its data is bound at "
        "initialization."))


def test_the_debug_layer_reports_an_initializer_without_its_persistent_resource():
    rig = ClipRig(dml_debug=True)
    rig.recorder.RecordDispatch(rig.list, rig.initializer, rig.table(rig.initializer, first=2, size=2))
    assert removal(rig.dml) == (E_INVALIDARG, (
        "IDMLCommandRecorder.RecordDispatch: the initializer's BindOutputs[0] binds no persistent resource for "
        "DML_OPERATOR_ELEMENT_WISE_CLIP, which needs 512 bytes (PersistentResourceSize)."))


def test_owned_data_bound_at_initialization_is_kept_after_its_buffer_changes():
    rig, compiled, weights = _owned_clip_rig()
    x = np.linspace(-2, 2, 16, dtype=np.float32)
    rig.write(weights, x)
    rig.initialize(compiled, owned=[[buffer(weights, 64)]])
    rig.execute()
    rig.write(weights, np.zeros(16, np.float32))            # the persistent resource keeps DirectML's copy
    out = rig.buffer(64)
    table = rig.table(compiled, size=2)
    table.BindInputs([NONE_BINDING])
    table.BindOutputs([buffer_binding(out, 0, 64)])
    rig.recorder.RecordDispatch(rig.list, compiled, table)
    rig.execute()
    assert rig.dml.GetDeviceRemovedReason() == S_OK
    same_bits(rig.read(out).view(np.float32), golden.clip(x, np.float32(0), np.float32(1)))
    persistent = inspect(rig.persistent[compiled]).data
    assert bytes(persistent[512:576]) == x.tobytes()


def test_without_the_debug_layer_an_owned_input_never_bound_reads_zeros():
    rig, compiled, _ = _owned_clip_rig(debug=False)
    rig.initialize(compiled)
    rig.execute()
    out = rig.buffer(64)
    rig.write(out, np.full(64, 0x7F, np.uint8))
    table = rig.table(compiled, size=2)
    table.BindInputs([NONE_BINDING])
    table.BindOutputs([buffer_binding(out, 0, 64)])
    rig.recorder.RecordDispatch(rig.list, compiled, table)
    rig.execute()
    assert rig.dml.GetDeviceRemovedReason() == S_OK
    same_bits(rig.read(out).view(np.float32), np.zeros(16, np.float32))   # clip(0) from the zeros copied


@pytest.mark.parametrize("entries, message", [
    (lambda rig, w: [buffer(w, 32)], "BindInputs[0].Bindings[0] (InputTensor).SizeInBytes is 32; "
                                     "InputTensor.TotalTensorSizeInBytes is 64 and the bound range must hold it."),
    (lambda rig, w: [DML_BUFFER_BINDING(Buffer=w, Offset=8, SizeInBytes=56)],
     "BindInputs[0].Bindings[0] (InputTensor).Offset is 8; it must be a multiple of 16 "
     "(DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT or InputTensor.GuaranteedBaseOffsetAlignment)."),
    (lambda rig, w: [buffer(rig.buffer(64, D3D12_HEAP_TYPE_UPLOAD), 64)],
     "BindInputs[0].Bindings[0] (InputTensor).Buffer buffer #2 is in a D3D12_HEAP_TYPE_UPLOAD heap; DirectML requires "
     "all bound buffers to be D3D12_HEAP_TYPE_DEFAULT."),
    (lambda rig, w: [buffer(w, 64), buffer(w, 64)],
     "BindInputs[0].Bindings has 2 elements; DML_OPERATOR_ELEMENT_WISE_CLIP has 1 inputs."),
    (lambda rig, w: ["weights"], "BindInputs[0].Bindings[0] is a str; it must be a DML_BUFFER_BINDING."),
])
def test_hostile_owned_bindings_for_the_initializer(entries, message):
    rig, compiled, weights = _owned_clip_rig()
    initializer = rig.dml.CreateOperatorInitializer([compiled])
    table = rig.table(initializer, first=8, size=2)
    table.BindInputs([array_binding(*entries(rig, weights))])
    assert removal(rig.dml) == (E_INVALIDARG, f"IDMLBindingTable.BindInputs: {message}")


@settings(max_examples=25, deadline=None)
@given(st.lists(st.sampled_from(["none", "array", "empty", "buffer", "garbage"]), min_size=0, max_size=3),
       st.booleans())
def test_hostile_initializer_bindings_never_break_the_emulator(kinds, execute):
    """Any mix of initializer bindings either binds or removes the DML device with a sentence; executing
    afterwards never writes outside a resource and never raises."""
    rig, compiled, weights = _owned_clip_rig(debug=False)
    initializer = rig.dml.CreateOperatorInitializer([compiled])
    table = rig.table(initializer, first=8, size=2)
    make = {"none": lambda: NONE_BINDING, "array": lambda: array_binding(buffer(weights, 64)),
            "empty": lambda: array_binding(), "buffer": lambda: buffer_binding(weights),
            "garbage": lambda: DML_BINDING_DESC(Type=7, Desc=None)}
    table.BindInputs([make[k]() for k in kinds])
    table.BindOutputs([buffer_binding(rig.persistent_resource(compiled))])
    rig.recorder.RecordDispatch(rig.list, initializer, table)
    reason = rig.dml.GetDeviceRemovedReason()
    if reason != S_OK:
        assert removal(rig.dml)[1].startswith("IDMLBindingTable.BindInputs: ")
    if execute:
        rig.execute()
    assert rig.device.GetDeviceRemovedReason() == S_OK
