"""Device removal: misuse that removes a D3D12 or DML device is reported and named, with and without the
debug layers, and what must not remove a device does not.

Command-list misuse is reported as D3D12 / DirectML would: HRESULT methods fail (E_FAIL, E_INVALIDARG),
void methods and execution errors remove the device, and the debug layers (D3D12's,
DML_CREATE_DEVICE_FLAG_DEBUG) name the problem at the offending call. A GPU hang removes the device as
DXGI_ERROR_DEVICE_HUNG. Resetting an allocator whose work is in flight, and running out of GPU memory,
fail the call and leave the devices working.
"""
import contextlib
import io

import numpy as np
import pytest

from dmlemu.d3d12 import *  # noqa: F401,F403
from dmlemu.d3d12 import inspect
from dmlemu.directml import *  # noqa: F401,F403
from dmlemu.errors import (DXGI_ERROR_DEVICE_REMOVED, DXGI_ERROR_INVALID_CALL, E_FAIL, E_INVALIDARG, HResultError,
                           S_OK)
from dmlemu.isa.program import Program
from dmlemu.presets import TEACHING
from memory_watch import MemoryWatch
from mirror_rig import buffer_binding, ClipRig, MirrorRig, removal
from operator_cases import small_clip_works

pytestmark = pytest.mark.usefixtures("guard_bytes")


# ---- command-list misuse, with and without the debug layers ---------------------------------------------------
def _recording_after_close(rig):
    rig.list.Close()
    rig.list.CopyBufferRegion(rig.a, 0, rig.b, 0, 64)


def _record_dispatch_after_close(rig):
    rig.initialize_clip()
    table = rig.bound_table()
    rig.list.Close()
    rig.recorder.RecordDispatch(rig.list, rig.compiled, table)


def _executing_an_open_list(rig):
    rig.queue.ExecuteCommandLists([rig.list])


def _never_initialized(rig):
    side = rig.device.CreateCommandList(0, D3D12_COMMAND_LIST_TYPE_DIRECT,
                                        rig.device.CreateCommandAllocator(D3D12_COMMAND_LIST_TYPE_DIRECT), None)
    rig.set_heap_on(side)
    table = rig.table(rig.initializer, first=2, size=2)
    table.BindOutputs([buffer_binding(rig.persistent_resource(rig.compiled))])
    rig.recorder.RecordDispatch(side, rig.initializer, table)   # never executed
    rig.recorder.RecordDispatch(rig.list, rig.compiled, rig.bound_table())
    rig.list.Close()
    rig.queue.ExecuteCommandLists([rig.list])


def _wrong_resource_state(rig):
    rig.initialize_clip()
    staging = rig.buffer(64, D3D12_HEAP_TYPE_UPLOAD)
    rig.list.CopyBufferRegion(rig.a, 0, staging, 0, 64)   # a goes to COPY_DEST; no barrier follows
    rig.recorder.RecordDispatch(rig.list, rig.compiled, rig.bound_table())
    rig.list.Close()
    rig.queue.ExecuteCommandLists([rig.list])


# RecordDispatch with no descriptor heap set removes no device: it is a D3D12 recording error
# (tests/d3d12/test_descriptor_heap_bytes.py).


# (misuse, who reports it, HRESULT, the sentence's key part)
MISUSES = [
    (_recording_after_close, "d3d12", DXGI_ERROR_INVALID_CALL,
     "CopyBufferRegion: command list #1 is closed; Reset it before recording into it."),
    (_record_dispatch_after_close, "dml", E_INVALIDARG,
     "IDMLCommandRecorder.RecordDispatch: commandList is closed; Reset it before recording."),
    (_executing_an_open_list, "d3d12", DXGI_ERROR_INVALID_CALL,
     "ExecuteCommandLists: ppCommandLists[0] is command list #1, which is still open; Close it before executing it."),
    (_never_initialized, "dml", E_INVALIDARG,
     "ExecuteCommandLists: the compiled operator DML_OPERATOR_ELEMENT_WISE_CLIP was never initialized (its "
     "IDMLOperatorInitializer dispatch did not execute before it); the dispatch is skipped."),
    (_wrong_resource_state, "d3d12", DXGI_ERROR_INVALID_CALL,
     "the InputTensor of a DirectML DML_OPERATOR_ELEMENT_WISE_CLIP dispatch needs buffer #1 in "
     "D3D12_RESOURCE_STATE_UNORDERED_ACCESS, but it is in D3D12_RESOURCE_STATE_COPY_DEST"),
]


@pytest.mark.parametrize("debug", [False, True], ids=["no debug layer", "debug layers"])
@pytest.mark.parametrize("misuse, reporter, hresult, sentence", MISUSES, ids=[m[0].__name__[1:] for m in MISUSES])
def test_command_list_misuse_is_reported_and_named(misuse, reporter, hresult, sentence, debug):
    rig = ClipRig(d3d12_debug=debug, dml_debug=debug, mute_debug_output=False)
    watch = MemoryWatch(rig.gpu)
    watch.allow_range(inspect(rig.heap).allocation, 0, 128)   # the binding tables' descriptor slots (Bind* writes them)
    if misuse is _never_initialized and not debug:
        # Only the DML debug layer checks initialization; without it the kernel reads the persistent resource's
        # bytes (zeros: element count 0) and writes nothing (docs/PERSISTENT_RESOURCES.md).
        misuse(rig)
        rig.wait()
        watch.check()
        assert rig.dml.GetDeviceRemovedReason() == S_OK and rig.device.GetDeviceRemovedReason() == S_OK
        return
    with contextlib.redirect_stderr(io.StringIO()) as debug_output:
        if reporter == "d3d12" and debug:
            with pytest.raises(HResultError) as info:   # the D3D12 debug layer stops at the offending call
                misuse(rig)
            assert info.value.hresult == hresult and sentence in info.value.message
        else:
            assert misuse(rig) is None
    watch.check()   # nothing ran: no byte of any buffer changed
    if reporter == "d3d12":
        reason, message = removal(rig.device)   # later HRESULT calls raise DXGI_ERROR_DEVICE_REMOVED quoting it
        assert reason == hresult and sentence in message
        assert rig.dml.GetDeviceRemovedReason() == hresult   # D3D12 removal removes the DML device
    else:
        reason, message = removal(rig.dml)
        assert reason == hresult and sentence in message
        assert rig.device.GetDeviceRemovedReason() == S_OK   # DML removal leaves the D3D12 device working
        printed = debug_output.getvalue().splitlines()
        assert bool(printed) == debug   # DML_CREATE_DEVICE_FLAG_DEBUG prints the problem to stderr
        if debug:
            assert sentence in printed[-1]
    with pytest.raises(HResultError) as info:
        rig.dml.CreateOperatorInitializer([])
    assert info.value.hresult == DXGI_ERROR_DEVICE_REMOVED and sentence in info.value.message


@pytest.mark.parametrize("debug", [False, True])
def test_resetting_an_allocator_whose_work_is_in_flight_fails_and_the_device_keeps_working(debug):
    rig = ClipRig(d3d12_debug=debug, dml_debug=debug)
    rig.initialize_clip()
    rig.recorder.RecordDispatch(rig.list, rig.compiled, rig.bound_table())
    rig.list.Close()
    rig.queue.ExecuteCommandLists([rig.list])
    with pytest.raises(HResultError) as info:
        rig.allocator.Reset()
    assert info.value.hresult == E_FAIL
    assert "whose completion the CPU has not observed; wait on a fence signalled after that ExecuteCommandLists" \
        in info.value.message
    assert rig.device.GetDeviceRemovedReason() == S_OK and rig.dml.GetDeviceRemovedReason() == S_OK
    rig.wait()
    rig.allocator.Reset()   # once the fence is observed
    rig.list.Reset(rig.allocator, None)


# ---- what does not remove a device -----------------------------------------------------------------------------
def test_out_of_gpu_memory_is_e_outofmemory_and_the_device_recovers():
    """Filling the adapter's memory makes CreateCommittedResource and CompileOperator (its constant buffer) fail with
    E_OUTOFMEMORY, changing nothing; once a buffer is released, the same devices run an operator again."""
    import dataclasses
    import gc
    from dmlemu.errors import E_OUTOFMEMORY
    small = dataclasses.replace(TEACHING, key="small", dedicated_video_memory=1 << 20)
    rig = MirrorRig(small, dml_flags=DML_CREATE_DEVICE_FLAG_NONE, heap_slots=0)
    memory = rig.memory
    hogs = []
    with pytest.raises(HResultError) as info:
        while True:
            hogs.append(rig.buffer(64 << 10))
    assert info.value.hresult == E_OUTOFMEMORY and "does not fit" in info.value.message
    while memory.capacity_bytes - memory.used_bytes >= 4:   # fill the last bytes too
        hogs.append(rig.buffer(max(4, (memory.capacity_bytes - memory.used_bytes) // 2)))
    used = memory.used_bytes
    t = DML_TENSOR_DESC(Type=DML_TENSOR_TYPE_BUFFER, Desc=DML_BUFFER_TENSOR_DESC(
        DataType=DML_TENSOR_DATA_TYPE_FLOAT32, Sizes=[64], TotalTensorSizeInBytes=256))
    op = rig.dml.CreateOperator(DML_OPERATOR_DESC(Type=DML_OPERATOR_ELEMENT_WISE_IDENTITY,
                                                  Desc=DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC(InputTensor=t, OutputTensor=t)))
    with pytest.raises(HResultError) as info:
        rig.dml.CompileOperator(op, 0)
    assert info.value.hresult == E_OUTOFMEMORY and "no GPU memory for the constant buffer" in info.value.message
    assert memory.used_bytes == used
    assert rig.dml.GetDeviceRemovedReason() == S_OK and rig.device.GetDeviceRemovedReason() == S_OK
    del hogs[:8]
    gc.collect()
    small_clip_works(rig)


# ---- a GPU hang ------------------------------------------------------------------------------------------------
def test_a_kernel_that_never_ends_removes_the_device_as_hung(monkeypatch):
    """A GPU hang (here: a compiled operator's kernel swapped for an endless loop) is reported as
    DXGI_ERROR_DEVICE_HUNG device removal, not as a Python exception out of ExecuteCommandLists."""
    import dmlemu.directml.compiled_operator as compiled_module
    import dmlemu.functional.executor as executor
    from dmlemu.convenience import run_operator
    from dmlemu.isa import assemble

    monkeypatch.setattr(executor, "MAX_INSTRUCTIONS_PER_WAVE", 1000)
    original = compiled_module.IDMLCompiledOperator._compile

    def hanging(self, preset):
        kernel = original(self, preset)
        kernel.program = Program(assemble("top:\n    s_branch top\n"), "hang")
        return kernel
    monkeypatch.setattr(compiled_module.IDMLCompiledOperator, "_compile", hanging)
    tensor = DML_TENSOR_DESC(Type=DML_TENSOR_TYPE_BUFFER, Desc=DML_BUFFER_TENSOR_DESC(
        DataType=DML_TENSOR_DATA_TYPE_FLOAT32, DimensionCount=1, Sizes=[4], TotalTensorSizeInBytes=16))
    desc = DML_OPERATOR_DESC(Type=DML_OPERATOR_ELEMENT_WISE_IDENTITY,
                             Desc=DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC(InputTensor=tensor, OutputTensor=tensor))
    with pytest.raises(HResultError) as error:
        run_operator(desc, [np.ones(4, np.float32)])
    # the next HRESULT call (the fence Signal) fails, naming the hang as the removal's cause
    assert error.value.hresult == DXGI_ERROR_DEVICE_REMOVED
    assert ("the device was removed earlier (DXGI_ERROR_DEVICE_HUNG): ExecuteCommandLists: the GPU stopped "
            "responding: hang: a wave executed more than 1000 instructions without ending") in error.value.message
