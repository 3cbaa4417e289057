"""IDMLCommandRecorder's hazard rules: what RecordDispatch (and, with DESCRIPTORS_VOLATILE, execution) checks of
the bindings in force.

DirectML 1.7's rules (IDMLBindingTable::BindInputs): the temporary binding intersects no input, output or
persistent binding, and the persistent binding no output or temporary one; inputs may share a resource.
With DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE the bindings in force at execution are checked again there.
Each test pins a fix (see docs/RELIABILITY.md): RecordDispatch or execution used to accept the misuse.
"""
import pytest

from dmlemu.d3d12 import *  # noqa: F401,F403
from dmlemu.directml import *  # noqa: F401,F403
from dmlemu.errors import E_INVALIDARG, S_OK
from memory_watch import MemoryWatch
from mirror_rig import ClipRig, buffer_binding, removal

pytestmark = pytest.mark.usefixtures("guard_bytes")


def _hazard_rig():
    rig = ClipRig(dml_debug=True)
    rig.initialize_clip()
    return rig, rig.bound_table()


def test_fix_temporary_binding_must_not_overlap_a_tensor():
    """DirectML 1.7 hazard rule (IDMLBindingTable::BindInputs): the temporary binding intersects no input,
    output or persistent binding. RecordDispatch used to accept it."""
    rig, table = _hazard_rig()
    table.BindTemporaryResource(buffer_binding(rig.a, 0, 64))
    rig.recorder.RecordDispatch(rig.list, rig.compiled, table)
    assert rig.dml.GetDeviceRemovedReason() == E_INVALIDARG
    assert removal(rig.dml)[1] == (
        "IDMLCommandRecorder.RecordDispatch: the temporary resource (bytes 0 to 64 of buffer #1) overlaps InputTensor "
        "(bytes 0 to 64); DirectML requires the temporary binding not to intersect any input, output or persistent "
        "binding.")


def test_fix_persistent_binding_must_not_overlap_an_output_or_the_temporary():
    rig, table = _hazard_rig()
    big = rig.buffer(1024)
    table.BindOutputs([buffer_binding(big, 256, 64)])
    table.BindPersistentResource(buffer_binding(big, 0, 512))
    rig.recorder.RecordDispatch(rig.list, rig.compiled, table)
    assert removal(rig.dml)[1].endswith(
        "the persistent resource (bytes 0 to 512 of buffer #3) overlaps OutputTensor (bytes 256 to 320); DirectML "
        "requires the persistent binding not to intersect any output or temporary binding.")
    rig, table = _hazard_rig()
    scratch = rig.buffer(1024)
    table.BindTemporaryResource(buffer_binding(scratch, 0, 512))
    table.BindPersistentResource(buffer_binding(scratch, 256, 512))
    rig.recorder.RecordDispatch(rig.list, rig.compiled, table)
    assert "the temporary resource (bytes 0 to 512 of buffer #3) overlaps the persistent resource (bytes 256 to 768)" \
        in removal(rig.dml)[1]


def test_fix_disjoint_scratch_bindings_and_inputs_sharing_a_resource_stay_legal():
    rig, table = _hazard_rig()
    scratch = rig.buffer(1024)
    table.BindTemporaryResource(buffer_binding(scratch, 0, 256))
    table.BindPersistentResource(buffer_binding(scratch, 512, 512))
    rig.recorder.RecordDispatch(rig.list, rig.compiled, table)
    assert rig.dml.GetDeviceRemovedReason() == S_OK


def test_fix_late_bound_volatile_outputs_get_the_in_place_checks():
    """With DESCRIPTORS_VOLATILE the bindings in force at execution are used; an output rebound after
    RecordDispatch onto an input of a non-in-place operator (IF) used to run. Now execution removes the device."""
    rig = ClipRig()
    u8 = DML_TENSOR_DESC(Type=DML_TENSOR_TYPE_BUFFER, Desc=DML_BUFFER_TENSOR_DESC(
        DataType=DML_TENSOR_DATA_TYPE_UINT8, Sizes=[16], TotalTensorSizeInBytes=16))
    f32 = DML_TENSOR_DESC(Type=DML_TENSOR_TYPE_BUFFER, Desc=DML_BUFFER_TENSOR_DESC(
        DataType=DML_TENSOR_DATA_TYPE_FLOAT32, Sizes=[16], TotalTensorSizeInBytes=64))
    compiled = rig.dml.CompileOperator(rig.dml.CreateOperator(DML_OPERATOR_DESC(
        Type=DML_OPERATOR_ELEMENT_WISE_IF, Desc=DML_ELEMENT_WISE_IF_OPERATOR_DESC(
            ConditionTensor=u8, ATensor=f32, BTensor=f32, OutputTensor=f32))), DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE)
    heap = rig.shader_visible_heap(8)
    rig.list.SetDescriptorHeaps([heap])
    initializer = rig.dml.CreateOperatorInitializer([compiled])
    init_table = rig.table(initializer, first=4, size=4, heap=heap)   # its own range: both run in one list
    init_table.BindOutputs([buffer_binding(rig.persistent_resource(compiled))])
    rig.recorder.RecordDispatch(rig.list, initializer, init_table)
    rig.execute()
    rig.list.SetDescriptorHeaps([heap])
    cond, c = rig.buffer(64), rig.buffer(64)
    t = rig.table(compiled, size=4, heap=heap)
    t.BindInputs([buffer_binding(cond, 0, 16), buffer_binding(rig.a, 0, 64), buffer_binding(rig.b, 0, 64)])
    t.BindOutputs([buffer_binding(c, 0, 64)])
    rig.recorder.RecordDispatch(rig.list, compiled, t)
    assert rig.dml.GetDeviceRemovedReason() == S_OK
    t.BindOutputs([buffer_binding(rig.b, 0, 64)])   # now the output is BTensor's range
    watch = MemoryWatch(rig.gpu)
    rig.list.Close()
    rig.queue.ExecuteCommandLists([rig.list])
    watch.check()   # the dispatch was skipped: nothing written
    assert rig.dml.GetDeviceRemovedReason() == E_INVALIDARG
    assert removal(rig.dml)[1] == (
        "ExecuteCommandLists: OutputTensor (bytes 0 to 64) overlaps BTensor (bytes 0 to 64) in buffer #2; "
        "DML_OPERATOR_ELEMENT_WISE_IF does not support in-place execution (bindings in force at execution, "
        "DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE); the dispatch is skipped.")
    assert rig.device.GetDeviceRemovedReason() == S_OK
