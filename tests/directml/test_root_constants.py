"""Driver-like binding properties (docs/PERSISTENT_RESOURCES.md): by default an operator's precomputed constants
are root constants, kept in DirectML's own memory, so an operator without DML_TENSOR_FLAG_OWNED_BY_DML inputs
reports PersistentResourceSize 0 and its initialization binds and reads nothing; strict-host mode
(DMLEMU_STRICT_HOST=1) restores a persistent and a temporary resource for every operator. The DML debug layer
reports an initializer whose descriptor slots another binding table overwrote before it executed: an error where
the initialization reads them, a warning where it does not (the latent bug of DirectMLSuperResolution's binding
code, examples/super_resolution.py, which runs to the right output by default).
"""
import importlib.util
import os

import numpy as np
import pytest

from dmlemu import golden
from dmlemu.d3d12 import *  # noqa: F401,F403
from dmlemu.d3d12 import debug as d3d12_debug
from dmlemu.directml import *  # noqa: F401,F403
from dmlemu.directml import inspect
from dmlemu.directml.device import strict_host_requested
from dmlemu.errors import E_INVALIDARG, S_OK
from mirror_rig import ClipRig, MirrorRig, buffer_binding, removal, same_bits

pytestmark = pytest.mark.usefixtures("guard_bytes")

OWNED = DML_TENSOR_FLAG_OWNED_BY_DML
NONE_BINDING = DML_BINDING_DESC(Type=DML_BINDING_TYPE_NONE, Desc=None)
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(autouse=True)
def default_mode(monkeypatch):
    monkeypatch.delenv("DMLEMU_STRICT_HOST", raising=False)


def tensor(data_type=DML_TENSOR_DATA_TYPE_FLOAT32, sizes=(16,), flags=DML_TENSOR_FLAG_NONE):
    sizes = list(sizes)
    return DML_TENSOR_DESC(Type=DML_TENSOR_TYPE_BUFFER, Desc=DML_BUFFER_TENSOR_DESC(
        DataType=data_type, Flags=flags, Sizes=sizes,
        TotalTensorSizeInBytes=DMLCalcBufferTensorSize(data_type, len(sizes), sizes, None)))


def clip(inp=None, out=None, lo=0.0, hi=1.0):
    return DML_OPERATOR_DESC(Type=DML_OPERATOR_ELEMENT_WISE_CLIP, Desc=DML_ELEMENT_WISE_CLIP_OPERATOR_DESC(
        InputTensor=inp or tensor(), OutputTensor=out or tensor(), Min=lo, Max=hi))


def props(dispatchable):
    p = dispatchable.GetBindingProperties()
    return p.RequiredDescriptorCount, p.TemporaryResourceSize, p.PersistentResourceSize


# ---- binding properties ---------------------------------------------------------------------------------------
def test_operators_without_owned_inputs_need_no_persistent_resource_by_default():
    rig = MirrorRig(dml_flags=DML_CREATE_DEVICE_FLAG_DEBUG)
    plain = rig.compile(clip())
    owned = rig.compile(clip(tensor(sizes=(100,), flags=OWNED), tensor(sizes=(100,))))
    assert props(plain) == (2, 0, 0)
    assert props(owned) == (2, 0, 512)                    # only the 400 owned bytes, rounded up to 256
    assert not inspect(rig.dml).strict_host and not inspect(plain).constants_in_persistent
    assert inspect(owned).persistent_regions == ((None, 0), (0, 0))
    assert props(rig.dml.CreateOperatorInitializer([plain, owned])) == (4, 0, 0)


@pytest.mark.parametrize("value, strict", [("1", True), ("true", True), (" ON ", True), ("yes", True),
                                           ("0", False), ("", False), ("no", False), ("2", False)])
def test_the_strict_host_switch_is_read_when_the_device_is_created(monkeypatch, value, strict):
    monkeypatch.setenv("DMLEMU_STRICT_HOST", value)
    assert strict_host_requested() is strict
    rig = MirrorRig(dml_flags=DML_CREATE_DEVICE_FLAG_NONE)
    monkeypatch.delenv("DMLEMU_STRICT_HOST")               # later changes do not touch an existing device
    compiled = rig.compile(clip())
    assert props(compiled) == ((2, 256, 512) if strict else (2, 0, 0))
    assert inspect(rig.dml).strict_host is strict and inspect(compiled).constants_in_persistent is strict


def _two_clips(dml):
    t = tensor()
    nodes = [DML_OPERATOR_GRAPH_NODE_DESC(Operator=dml.CreateOperator(clip(t, t)), Name=f"clip{i}") for i in range(2)]
    return DML_GRAPH_DESC(InputCount=1, OutputCount=1, Nodes=[DML_GRAPH_NODE_DESC(
        Type=DML_GRAPH_NODE_TYPE_OPERATOR, Desc=n) for n in nodes],
        InputEdges=[DML_GRAPH_EDGE_DESC(Type=DML_GRAPH_EDGE_TYPE_INPUT, Desc=DML_INPUT_GRAPH_EDGE_DESC(
            GraphInputIndex=0, ToNodeIndex=0, ToNodeInputIndex=0))],
        OutputEdges=[DML_GRAPH_EDGE_DESC(Type=DML_GRAPH_EDGE_TYPE_OUTPUT, Desc=DML_OUTPUT_GRAPH_EDGE_DESC(
            FromNodeIndex=1, FromNodeOutputIndex=0, GraphOutputIndex=0))],
        IntermediateEdges=[DML_GRAPH_EDGE_DESC(Type=DML_GRAPH_EDGE_TYPE_INTERMEDIATE, Desc=DML_INTERMEDIATE_GRAPH_EDGE_DESC(
            FromNodeIndex=0, FromNodeOutputIndex=0, ToNodeIndex=1, ToNodeInputIndex=0))])


def test_a_graph_keeps_only_its_constant_nodes_and_owned_inputs_by_default(monkeypatch):
    rig = MirrorRig(dml_flags=DML_CREATE_DEVICE_FLAG_DEBUG)
    for fuse in (True, False):
        graph = rig.dml.CompileGraph(_two_clips(rig.dml), DML_EXECUTION_FLAG_NONE, fuse=fuse)
        assert props(graph)[2] == 0
    monkeypatch.setenv("DMLEMU_STRICT_HOST", "1")
    strict = MirrorRig(dml_flags=DML_CREATE_DEVICE_FLAG_DEBUG)
    graph = strict.dml.CompileGraph(_two_clips(strict.dml), DML_EXECUTION_FLAG_NONE, fuse=False)
    assert props(graph)[1:] == (256, 1024)                # two dispatches' constants; the strict temporary resource


# ---- running with root constants --------------------------------------------------------------------------------
def _initialize_without_bindings(rig, first=2):
    """The CLIP's initializer with nothing bound (PersistentResourceSize 0), recorded into the rig's list."""
    table = rig.dml.CreateBindingTable(rig.table_desc(rig.initializer, first=first, size=2))
    table.BindInputs([])
    table.BindOutputs([NONE_BINDING])
    rig.recorder.RecordDispatch(rig.list, rig.initializer, table)


def test_an_operator_runs_with_no_persistent_resource_and_an_initializer_that_binds_nothing():
    rig = ClipRig(dml_debug=True)
    _initialize_without_bindings(rig)
    x = np.array([-1, 0.25, 2, np.nan, -0.0] + [0.5] * 11, np.float32)
    rig.write(rig.a, x)                                  # executes the initializer too
    rig.recorder.RecordDispatch(rig.list, rig.compiled, rig.bound_table())
    rig.execute()
    assert removal(rig.dml) == (S_OK, "") and inspect(rig.dml).debug_messages == ()
    same_bits(rig.read(rig.b).view(np.float32), golden.clip(x, np.float32(0), np.float32(1)))
    # The constants are read from DirectML's own memory: the bytes the kernel compiler packed.
    compiled = inspect(rig.compiled)
    assert bytes(compiled.constants.data[:len(compiled.kernel.constants)]) == bytes(compiled.kernel.constants)


def test_the_debug_layer_still_requires_initialization():
    rig = ClipRig(dml_debug=True)
    rig.recorder.RecordDispatch(rig.list, rig.compiled, rig.bound_table())
    assert removal(rig.dml) == (E_INVALIDARG, "IDMLCommandRecorder.RecordDispatch: the compiled operator "
                                              "DML_OPERATOR_ELEMENT_WISE_CLIP was never initialized; record an "
                                              "IDMLOperatorInitializer dispatch for it (and execute it) first.")


def test_an_unused_persistent_binding_is_accepted_and_ignored():
    """A host that binds a persistent resource anyway (size 0 needs none): the debug layer does not compare it
    with the initializer's output, and the kernel does not read it."""
    rig = ClipRig(dml_debug=True)
    rig.initialize_clip()                                 # binds a 256-byte persistent resource it does not need
    rig.execute()
    table = rig.bound_table()
    table.BindPersistentResource(buffer_binding(rig.buffer(512)))
    x = np.linspace(-2, 2, 16, dtype=np.float32)
    rig.write(rig.a, x)
    rig.recorder.RecordDispatch(rig.list, rig.compiled, table)
    rig.execute()
    assert removal(rig.dml) == (S_OK, "")
    same_bits(rig.read(rig.b).view(np.float32), golden.clip(x, np.float32(0), np.float32(1)))


def test_owned_inputs_alone_fill_the_persistent_resource():
    rig = MirrorRig(dml_flags=DML_CREATE_DEVICE_FLAG_DEBUG, heap_slots=8)
    compiled = rig.compile(clip(tensor(flags=OWNED), tensor(), lo=-0.5, hi=0.5))
    x = np.linspace(-1, 1, 16, dtype=np.float32)
    source = rig.buffer(64)
    rig.write(source, x)
    rig.initialize(compiled, owned=[[DML_BUFFER_BINDING(Buffer=source, Offset=0, SizeInBytes=64)]])
    rig.execute()
    persistent = rig.persistent[compiled]
    assert inspect(persistent).data[:64].view(np.float32).tolist() == x.tolist()   # the copy, at offset 0
    out = rig.buffer(64)
    table = rig.table(compiled)
    table.BindInputs([NONE_BINDING])
    table.BindOutputs([buffer_binding(out, 0, 64)])
    rig.recorder.RecordDispatch(rig.list, compiled, table)
    rig.execute()
    assert removal(rig.dml) == (S_OK, "")
    same_bits(rig.read(out).view(np.float32), golden.clip(x, np.float32(-0.5), np.float32(0.5)))


# ---- slots shared by an initializer and an execute table -------------------------------------------------------
def _shared_slots(rig):
    """DirectMLSuperResolution's pattern: the initializer's table and the operator's table on the same slots,
    the operator's bound before the initializer executes."""
    table = rig.table(rig.initializer, first=0, size=2)
    table.BindOutputs([buffer_binding(rig.persistent_resource(rig.compiled))]
                      if props(rig.compiled)[2] else [NONE_BINDING])
    rig.recorder.RecordDispatch(rig.list, rig.initializer, table)
    execute = rig.bound_table()                           # slots 0 and 1 again
    rig.execute()                                         # the initializer executes
    rig.write(rig.a, np.linspace(-1, 2, 16, dtype=np.float32))
    return execute


def test_shared_slots_work_by_default_and_the_debug_layer_warns():
    rig = ClipRig(dml_debug=True, d3d12_debug=True, mute_debug_output=False)
    queue = rig.device.QueryInterface(IID_ID3D12InfoQueue)
    execute = _shared_slots(rig)
    rig.recorder.RecordDispatch(rig.list, rig.compiled, execute)
    rig.execute()
    assert removal(rig.dml) == (S_OK, "")
    same_bits(rig.read(rig.b).view(np.float32), golden.clip(np.linspace(-1, 2, 16, dtype=np.float32),
                                                             np.float32(0), np.float32(1)))
    [message] = [queue.GetMessage(i, D3D12_MESSAGE(), queue.GetMessage(i, None, None))
                 for i in range(queue.GetNumStoredMessages())]
    assert message.Severity == D3D12_MESSAGE_SEVERITY_WARNING
    assert message.pDescription == (
        "ExecuteCommandLists: slot 0 of descriptor heap #1, the persistent resource descriptor of "
        "DML_OPERATOR_ELEMENT_WISE_CLIP in an IDMLOperatorInitializer dispatch and 1 more of its slots, changed after "
        "the initializer was recorded (slot 0 now holds buffer #1 bytes 0 to 64): another binding table on the same "
        "descriptor slots was bound before the initializer executed. It works here only because "
        "DML_OPERATOR_ELEMENT_WISE_CLIP needs nothing from them (PersistentResourceSize 0); a driver that keeps the "
        "operator's data in a persistent resource reads them (DMLEMU_STRICT_HOST=1 shows that case).")


def test_shared_slots_in_strict_mode_are_an_error_and_the_initialization_writes_elsewhere(monkeypatch):
    monkeypatch.setenv("DMLEMU_STRICT_HOST", "1")
    rig = ClipRig(dml_debug=True)
    execute = _shared_slots(rig)
    messages = inspect(rig.dml).debug_messages
    assert messages == (
        "ExecuteCommandLists: slot 0 of descriptor heap #1, the persistent resource descriptor of "
        "DML_OPERATOR_ELEMENT_WISE_CLIP in an IDMLOperatorInitializer dispatch, holds buffer #1 bytes 0 to 64, but the "
        "initializer's binding table bound buffer 'persistent resource 1' bytes 0 to 512; another binding table on the same "
        "descriptor slots was bound before the initializer executed. The initialization reads this slot and uses "
        "what it holds now; create the other binding table after the initializer has executed, or on other slots.",)
    # The constants' copy went to buffer a instead; the execution finds another persistent resource than the one
    # initialized: the device is removed.
    rig.recorder.RecordDispatch(rig.list, rig.compiled, execute)
    rig.execute()
    assert removal(rig.dml)[0] == E_INVALIDARG
    assert "is not the one its initialization wrote" in removal(rig.dml)[1]


def test_shared_slots_without_the_debug_layer_are_silent():
    rig = ClipRig(dml_debug=False)
    execute = _shared_slots(rig)
    rig.recorder.RecordDispatch(rig.list, rig.compiled, execute)
    rig.execute()
    assert removal(rig.dml) == (S_OK, "") and inspect(rig.dml).debug_messages == ()


# ---- the DirectMLSuperResolution port ----------------------------------------------------------------------------
def _super_resolution():
    spec = importlib.util.spec_from_file_location("super_resolution", os.path.join(ROOT, "examples",
                                                                                 "super_resolution.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("strict", [False, True])
def test_the_super_resolution_port_runs_by_default_and_shows_its_latent_bug_in_strict_mode(monkeypatch, strict):
    monkeypatch.setattr(d3d12_debug, "_enabled", False)   # the port enables the process-wide layer; undo it after
    result = _super_resolution().run(strict=strict)
    severities = [severity for severity, _ in result.messages]
    same = np.array_equal(result.output.view(np.uint16), result.expected.view(np.uint16))
    assert np.array_equal(result.expected.view(np.uint16), result.golden.view(np.uint16))   # NumPy == golden
    if not strict:
        assert same and result.dml_removed_reason == S_OK
        # one warning per operator whose initializer slots the execute tables took: upsample 0, conv 0, add
        assert severities == ["WARNING"] * 3, result.messages
        assert [text.split(" in an ")[0].rsplit(" of ", 1)[1] for _, text in result.messages] == [
            "DML_OPERATOR_UPSAMPLE_2D", "DML_OPERATOR_CONVOLUTION", "DML_OPERATOR_ELEMENT_WISE_ADD"]
        # the conversion shaders on textures (image_load, image_store) around the model, bit for bit
        assert np.array_equal(result.image, result.expected_image)
    else:
        assert not same and result.dml_removed_reason == E_INVALIDARG
        assert not np.array_equal(result.image, result.expected_image)
        assert severities.count("ERROR") >= 3 and "WARNING" not in severities
        assert sum("The initialization reads this slot" in text for _, text in result.messages) == 3


def test_without_the_d3d12_debug_layer_the_warning_is_printed_as_directml_prints_it(capsys):
    rig = ClipRig(dml_debug=True, d3d12_debug=False, mute_debug_output=False)
    _shared_slots(rig)
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("[DIRECTML WARNING]: ExecuteCommandLists: slot 0 of descriptor "
                                                   "heap #1, the persistent resource descriptor of "), lines
