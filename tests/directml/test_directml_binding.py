"""Binding tables, initializers, RecordDispatch and execution: DirectML's binding rules.

Bind* and RecordDispatch are void in C: misuse removes the DML device (GetDeviceRemovedReason then
returns the cause, later HRESULT calls raise DXGI_ERROR_DEVICE_REMOVED), and with
DML_CREATE_DEVICE_FLAG_DEBUG the problem is reported at once. Each rule's sentence is pinned.
"""
import contextlib
import dataclasses
import io

import numpy as np
import pytest

from dmlemu.d3d12 import *  # noqa: F401,F403
from dmlemu.directml import *  # noqa: F401,F403
from dmlemu.directml import inspect
from dmlemu.errors import DXGI_ERROR_DEVICE_REMOVED, DXGI_ERROR_INVALID_CALL, E_INVALIDARG, HResultError, S_OK
from dmlemu.presets import DEFAULT_PRESET
from mirror_rig import MirrorRig, buffer_binding
from mirror_rig import removal as removed

F32, F16, U8 = DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16, DML_TENSOR_DATA_TYPE_UINT8


def tensor(data_type=F32, sizes=(1, 2, 3, 4), strides=None, total=None, alignment=0):
    sizes = list(sizes)
    if total is None:
        total = DMLCalcBufferTensorSize(data_type, len(sizes), sizes, strides)
    return DML_TENSOR_DESC(Type=DML_TENSOR_TYPE_BUFFER, Desc=DML_BUFFER_TENSOR_DESC(
        DataType=data_type, Flags=DML_TENSOR_FLAG_NONE, Sizes=sizes, Strides=strides,
        TotalTensorSizeInBytes=total, GuaranteedBaseOffsetAlignment=alignment))


def clip_desc(t=None, out=None, **fields):
    t = t or tensor()
    return DML_OPERATOR_DESC(Type=DML_OPERATOR_ELEMENT_WISE_CLIP, Desc=DML_ELEMENT_WISE_CLIP_OPERATOR_DESC(
        InputTensor=t, OutputTensor=out or t, Min=fields.pop("Min", -1.0), Max=fields.pop("Max", 1.0), **fields))


def if_desc(sizes=(2, 4)):
    return DML_OPERATOR_DESC(Type=DML_OPERATOR_ELEMENT_WISE_IF, Desc=DML_ELEMENT_WISE_IF_OPERATOR_DESC(
        ConditionTensor=tensor(U8, sizes), ATensor=tensor(F32, sizes), BTensor=tensor(F32, sizes),
        OutputTensor=tensor(F32, sizes)))


@pytest.fixture
def rig(dml_rig):
    """The shared DirectML rig (tests/mirror_rig.py): default adapter, DML_CREATE_DEVICE_FLAG_DEBUG, a 16-slot heap."""
    return dml_rig


def clip_ready(rig, desc=None, flags=DML_EXECUTION_FLAG_NONE):
    """A compiled CLIP, initialized, with a table; buffers of 256 bytes for input and output."""
    compiled = rig.compile(desc or clip_desc(), flags)
    rig.initialize(compiled)
    table = rig.table(compiled)
    return compiled, table, rig.buffer(256), rig.buffer(256)


def removal(rig, call):
    """Run a void call that must remove the DML device; returns the sentence (without the method prefix), which
    the debug layer has also printed to stderr, once."""
    assert rig.dml.GetDeviceRemovedReason() == S_OK
    with contextlib.redirect_stderr(io.StringIO()) as err:
        assert call() is None
    reason, message = removed(rig.dml)
    assert reason == E_INVALIDARG
    assert err.getvalue() == f"[DIRECTML ERROR]: {message} The DirectML device is now removed (E_INVALIDARG).\n"
    return message.split(": ", 1)[1]


# ---- binding properties -----------------------------------------------------------------------------
def test_binding_properties(rig):
    compiled = rig.compile(clip_desc())
    props = compiled.GetBindingProperties()
    # One descriptor per tensor; no persistent resource: an element-wise operator's constants are root constants
    # (tests/directml/test_root_constants.py; strict-host sizes: tests/directml/test_persistent_resources.py).
    assert (props.RequiredDescriptorCount, props.TemporaryResourceSize, props.PersistentResourceSize) == (2, 0, 0)
    assert rig.compile(if_desc()).GetBindingProperties().RequiredDescriptorCount == 4
    initializer = rig.dml.CreateOperatorInitializer([compiled])
    props = initializer.GetBindingProperties()
    assert (props.RequiredDescriptorCount, props.TemporaryResourceSize, props.PersistentResourceSize) == (2, 0, 0)
    initializer.Reset(None)   # it now initializes no operator: recording it leaves `compiled` uninitialized
    assert initializer.GetBindingProperties().RequiredDescriptorCount == 0
    rig.recorder.RecordDispatch(rig.list, initializer, rig.table(initializer))
    table = rig.table(compiled)
    table.BindPersistentResource(buffer_binding(rig.buffer(512)))
    table.BindInputs([buffer_binding(rig.buffer(256), size=96)])
    table.BindOutputs([buffer_binding(rig.buffer(256), size=96)])
    assert removal(rig, lambda: rig.recorder.RecordDispatch(rig.list, compiled, table)) == (
        "the compiled operator DML_OPERATOR_ELEMENT_WISE_CLIP was never initialized; record an IDMLOperatorInitializer "
        "dispatch for it (and execute it) first.")


def test_compile_flags(rig):
    op = rig.dml.CreateOperator(clip_desc(tensor(F16)))
    all_flags = (DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION | DML_EXECUTION_FLAG_DISABLE_META_COMMANDS
                 | DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE)
    assert inspect(rig.dml.CompileOperator(op, all_flags)).half_precision
    assert not inspect(rig.dml.CompileOperator(op, DML_EXECUTION_FLAG_NONE)).half_precision
    with pytest.raises(HResultError) as info:
        rig.dml.CompileOperator(op, 0x8)
    assert info.value.hresult == E_INVALIDARG
    assert info.value.message == "flags is 0x8; bits 0x8 are not DML_EXECUTION_FLAGS flags."
    with pytest.raises(HResultError) as info:
        rig.dml.CompileOperator(None, 0)
    assert info.value.message == "op is None; it must be an IDMLOperator."
    with pytest.raises(HResultError) as info:
        MirrorRig(dml_flags=DML_CREATE_DEVICE_FLAG_DEBUG).dml.CompileOperator(op, 0)
    assert info.value.message == ("op was created by another DirectML device; objects of different DirectML devices "
                                  "must not be mixed.")


def test_half_precision_is_ignored_without_native_fp16():
    preset = dataclasses.replace(DEFAULT_PRESET, native_fp16=False)
    rig = MirrorRig(preset, dml_flags=DML_CREATE_DEVICE_FLAG_DEBUG)
    compiled = rig.compile(clip_desc(tensor(F16)), DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION)
    assert not inspect(compiled).half_precision


def test_compiled_operator_owns_its_constant_buffer(rig):
    memory = rig.memory
    before = memory.used_bytes
    compiled = rig.compile(clip_desc())
    allocation = inspect(compiled).constants
    constants = bytes(inspect(compiled).kernel.constants)
    # The constant buffer, then a 32-byte descriptor of it and the 32 bytes of its initializer copy's constants.
    assert memory.used_bytes == before + allocation.size == before + len(constants) + 64
    assert bytes(allocation.data[:len(constants)]) == constants
    del compiled
    import gc
    gc.collect()
    assert allocation.freed


# ---- CreateBindingTable / Reset ----------------------------------------------------------------------
def test_empty_binding_table_and_reset(rig):
    compiled = rig.compile(clip_desc())
    rig.initialize(compiled)
    table = rig.dml.CreateBindingTable(None)
    table.Reset(rig.table_desc(compiled))   # now the table of `compiled`: it binds and records
    table.BindPersistentResource(buffer_binding(rig.persistent[compiled]))
    table.BindInputs([buffer_binding(rig.buffer(256), size=96)])
    table.BindOutputs([buffer_binding(rig.buffer(256), size=96)])
    rig.recorder.RecordDispatch(rig.list, compiled, table)
    assert rig.dml.GetDeviceRemovedReason() == S_OK
    table.Reset(None)                       # no dispatchable again
    assert removal(rig, lambda: table.BindInputs([])) == (
        "the binding table has no dispatchable; create or Reset it with a DML_BINDING_TABLE_DESC first.")


def _table_error(rig, desc):
    with pytest.raises(HResultError) as info:
        rig.dml.CreateBindingTable(desc)
    assert info.value.hresult == E_INVALIDARG
    return info.value.message


def test_binding_table_desc_rules(rig):
    compiled = rig.compile(clip_desc())
    assert _table_error(rig, rig.table_desc(compiled, size=1)) == (
        "DML_BINDING_TABLE_DESC.SizeInDescriptors is 1; <IDMLCompiledOperator DML_OPERATOR_ELEMENT_WISE_CLIP> requires "
        "2 descriptors (GetBindingProperties().RequiredDescriptorCount).")
    assert _table_error(rig, rig.table_desc(compiled, first=15)) == (
        "DML_BINDING_TABLE_DESC.SizeInDescriptors is 2 from descriptor 15 of the CPUDescriptorHandle's heap; the "
        "heap holds only 16 descriptors.")
    desc = rig.table_desc(compiled)
    desc.GPUDescriptorHandle = D3D12_GPU_DESCRIPTOR_HANDLE(ptr=desc.GPUDescriptorHandle.ptr + 32)
    assert rig.dml.CreateBindingTable(desc) is not None   # other slots: the application copies between them
    desc = rig.table_desc(compiled)
    desc.CPUDescriptorHandle = D3D12_CPU_DESCRIPTOR_HANDLE(ptr=12345)
    assert _table_error(rig, desc) == ("DML_BINDING_TABLE_DESC.CPUDescriptorHandle 0x3039 is not inside a descriptor "
                                       "heap of this D3D12 device.")
    desc = rig.table_desc(compiled)
    desc.GPUDescriptorHandle = None
    assert _table_error(rig, desc) == ("DML_BINDING_TABLE_DESC.GPUDescriptorHandle is None; it must be a "
                                       "D3D12_GPU_DESCRIPTOR_HANDLE.")
    desc = rig.table_desc(compiled)
    desc.Dispatchable = rig.dml.CreateOperator(clip_desc())
    assert _table_error(rig, desc) == ("DML_BINDING_TABLE_DESC.Dispatchable is an IDMLOperator; it must be an "
                                       "IDMLDispatchable.")
    desc = rig.table_desc(compiled)
    desc.SizeInDescriptors = -1
    assert _table_error(rig, desc) == ("DML_BINDING_TABLE_DESC.SizeInDescriptors is -1; it must be an integer from 0 "
                                       "to 4294967295.")
    assert _table_error(rig, "table") == ("the binding table desc is a str; it must be a DML_BINDING_TABLE_DESC or None.")


def test_binding_table_heap_must_be_shader_visible_cbv_srv_uav(rig):
    compiled = rig.compile(clip_desc())
    cpu_only = rig.device.CreateDescriptorHeap(D3D12_DESCRIPTOR_HEAP_DESC(
        Type=D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, NumDescriptors=4, Flags=D3D12_DESCRIPTOR_HEAP_FLAG_NONE))
    desc = DML_BINDING_TABLE_DESC(Dispatchable=compiled, CPUDescriptorHandle=cpu_only.GetCPUDescriptorHandleForHeapStart(),
                                  GPUDescriptorHandle=cpu_only.GetGPUDescriptorHandleForHeapStart(), SizeInDescriptors=2)
    assert _table_error(rig, desc) == (
        "DML_BINDING_TABLE_DESC.GPUDescriptorHandle 0x0 is not inside a shader-visible descriptor heap of this D3D12 "
        "device; DirectML's GPU handle must be shader-visible.")
    samplers = rig.device.CreateDescriptorHeap(D3D12_DESCRIPTOR_HEAP_DESC(
        Type=D3D12_DESCRIPTOR_HEAP_TYPE_SAMPLER, NumDescriptors=4, Flags=D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE))
    desc = DML_BINDING_TABLE_DESC(Dispatchable=compiled, CPUDescriptorHandle=samplers.GetCPUDescriptorHandleForHeapStart(),
                                  GPUDescriptorHandle=samplers.GetGPUDescriptorHandleForHeapStart(), SizeInDescriptors=2)
    assert _table_error(rig, desc) == (
        "DML_BINDING_TABLE_DESC.CPUDescriptorHandle is in a D3D12_DESCRIPTOR_HEAP_TYPE_SAMPLER heap; DirectML needs a "
        "D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV heap.")


# ---- Bind* rules (device removal) --------------------------------------------------------------------
def test_bind_inputs_count_must_match(rig):
    _, table, a, b = clip_ready(rig)
    assert removal(rig, lambda: table.BindInputs([buffer_binding(a), buffer_binding(b)])) == (
        "BindInputs got 2 bindings; DML_OPERATOR_ELEMENT_WISE_CLIP has 1 input (InputTensor), and the count must "
        "match exactly.")


def test_bind_outputs_count_must_match_for_if(rig):
    compiled = rig.compile(if_desc())
    rig.initialize(compiled)
    table = rig.table(compiled)
    a = rig.buffer(256)
    assert removal(rig, lambda: table.BindInputs([buffer_binding(a)])) == (
        "BindInputs got 1 bindings; DML_OPERATOR_ELEMENT_WISE_IF has 3 inputs (ConditionTensor, ATensor, BTensor), and "
        "the count must match exactly.")


@pytest.mark.parametrize("make, message", [
    (lambda rig, buf: DML_BINDING_DESC(Type=DML_BINDING_TYPE_NONE),
     "BindInputs[0] (InputTensor) is DML_BINDING_TYPE_NONE; InputTensor is not optional."),
    (lambda rig, buf: DML_BINDING_DESC(Type=DML_BINDING_TYPE_BUFFER_ARRAY, Desc=DML_BUFFER_ARRAY_BINDING(Bindings=[])),
     "BindInputs[0] (InputTensor) is DML_BINDING_TYPE_BUFFER_ARRAY; a compiled operator's tensor takes "
     "DML_BINDING_TYPE_BUFFER."),
    (lambda rig, buf: DML_BINDING_DESC(Type=7),
     "BindInputs[0] (InputTensor).Type is 7, which is not a DML_BINDING_TYPE value."),
    (lambda rig, buf: DML_BUFFER_BINDING(Buffer=buf, Offset=0, SizeInBytes=96),
     "BindInputs[0] (InputTensor) is a DML_BUFFER_BINDING; it must be a DML_BINDING_DESC."),
    (lambda rig, buf: DML_BINDING_DESC(Type=DML_BINDING_TYPE_BUFFER, Desc=None),
     "BindInputs[0] (InputTensor).Desc is None; DML_BINDING_TYPE_BUFFER needs a DML_BUFFER_BINDING."),
    (lambda rig, buf: DML_BINDING_DESC(Type=DML_BINDING_TYPE_BUFFER, Desc=DML_BUFFER_BINDING(Buffer=None)),
     "BindInputs[0] (InputTensor).Buffer is None; InputTensor is not optional."),
    (lambda rig, buf: DML_BINDING_DESC(Type=DML_BINDING_TYPE_BUFFER, Desc=DML_BUFFER_BINDING(Buffer="buf")),
     "BindInputs[0] (InputTensor).Buffer is a str; it must be an ID3D12Resource or None."),
    (lambda rig, buf: buffer_binding(rig.buffer(256, D3D12_HEAP_TYPE_UPLOAD, uav=False)),
     "BindInputs[0] (InputTensor).Buffer buffer #3 is in a D3D12_HEAP_TYPE_UPLOAD heap; DirectML requires all bound "
     "buffers to be D3D12_HEAP_TYPE_DEFAULT."),
    (lambda rig, buf: buffer_binding(rig.buffer(256, uav=False)),
     "BindInputs[0] (InputTensor).Buffer buffer #3 was created without D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS; "
     "DirectML binds buffers as unordered-access views."),
    (lambda rig, buf: buffer_binding(buf, offset=8, size=96),
     "BindInputs[0] (InputTensor).Offset is 8; it must be a multiple of 16 (DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT or "
     "InputTensor.GuaranteedBaseOffsetAlignment)."),
    (lambda rig, buf: buffer_binding(buf, offset=192, size=96),
     "BindInputs[0] (InputTensor) covers bytes 192 to 288 (Offset + SizeInBytes); the buffer buffer #1 has only "
     "256 bytes."),
    (lambda rig, buf: buffer_binding(buf, offset=0, size=64),
     "BindInputs[0] (InputTensor).SizeInBytes is 64; InputTensor.TotalTensorSizeInBytes is 96 and the bound range "
     "must hold it."),
    (lambda rig, buf: buffer_binding(buf, offset=-16, size=96),
     "BindInputs[0] (InputTensor).Offset is -16; it must be an integer from 0 to 18446744073709551615."),
    (lambda rig, buf: buffer_binding(MirrorRig().buffer(256)),
     "BindInputs[0] (InputTensor).Buffer buffer #1 belongs to another D3D12 device."),
])
def test_bind_input_rules(make, message, rig):
    _, table, a, _ = clip_ready(rig)
    binding = make(rig, a)
    assert removal(rig, lambda: table.BindInputs([binding])) == message


def test_bind_inputs_takes_a_sequence(rig):
    _, table, a, _ = clip_ready(rig)
    assert removal(rig, lambda: table.BindInputs(buffer_binding(a))) == (
        f"BindInputs bindings is {buffer_binding(a)!r}; it must be a sequence of DML_BINDING_DESC.")


def test_guaranteed_base_offset_alignment_governs_offsets(rig):
    t = tensor(alignment=64)
    _, table, a, b = clip_ready(rig, clip_desc(t))
    table.BindInputs([buffer_binding(a, offset=128, size=96)])
    assert rig.dml.GetDeviceRemovedReason() == S_OK
    assert removal(rig, lambda: table.BindOutputs([buffer_binding(b, offset=32, size=96)])) == (
        "BindOutputs[0] (OutputTensor).Offset is 32; it must be a multiple of 64 (DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT or "
        "OutputTensor.GuaranteedBaseOffsetAlignment).")


def test_unbinding_with_none_and_bind_on_an_empty_table(rig):
    compiled, table, a, b = clip_ready(rig)
    table.BindInputs([buffer_binding(a)])
    table.BindInputs(None)   # unbinds the input again
    table.BindOutputs([buffer_binding(b, size=96)])
    assert rig.dml.GetDeviceRemovedReason() == S_OK
    assert removal(rig, lambda: rig.recorder.RecordDispatch(rig.list, compiled, table)) == (
        "DML_OPERATOR_ELEMENT_WISE_CLIP has no binding for InputTensor; call BindInputs before RecordDispatch.")
    other = MirrorRig(dml_flags=DML_CREATE_DEVICE_FLAG_DEBUG)
    empty = other.dml.CreateBindingTable(None)
    assert removal(other, lambda: empty.BindInputs([buffer_binding(other.buffer(256))])) == (
        "the binding table has no dispatchable; create or Reset it with a DML_BINDING_TABLE_DESC first.")


def test_temporary_and_persistent_resources(rig):
    _, table, a, _ = clip_ready(rig)
    table.BindTemporaryResource(None)
    table.BindPersistentResource(DML_BINDING_DESC(Type=DML_BINDING_TYPE_NONE))
    table.BindTemporaryResource(buffer_binding(a, offset=0, size=256))
    assert rig.dml.GetDeviceRemovedReason() == S_OK
    assert removal(rig, lambda: table.BindPersistentResource(buffer_binding(rig.buffer(1024), offset=128, size=64))) == (
        "BindPersistentResource.Offset is 128; it must be a multiple of 256 (DML_PERSISTENT_BUFFER_ALIGNMENT).")


def test_temporary_resource_alignment(rig):
    _, table, _, _ = clip_ready(rig)
    assert removal(rig, lambda: table.BindTemporaryResource(buffer_binding(rig.buffer(1024), offset=16, size=64))) == (
        "BindTemporaryResource.Offset is 16; it must be a multiple of 256 (DML_TEMPORARY_BUFFER_ALIGNMENT).")


def test_initializer_bindings(rig):
    compiled = rig.compile(clip_desc())
    initializer = rig.dml.CreateOperatorInitializer([compiled])
    table = rig.dml.CreateBindingTable(rig.table_desc(initializer))
    empty_array = DML_BINDING_DESC(Type=DML_BINDING_TYPE_BUFFER_ARRAY, Desc=DML_BUFFER_ARRAY_BINDING(
        Bindings=[DML_BUFFER_BINDING(Buffer=None)]))
    table.BindInputs([empty_array])
    table.BindInputs([])
    table.BindOutputs([DML_BINDING_DESC(Type=DML_BINDING_TYPE_NONE)])
    table.BindOutputs(None)
    assert rig.dml.GetDeviceRemovedReason() == S_OK
    a = rig.buffer(256)
    with_buffer = DML_BINDING_DESC(Type=DML_BINDING_TYPE_BUFFER_ARRAY, Desc=DML_BUFFER_ARRAY_BINDING(
        Bindings=[DML_BUFFER_BINDING(Buffer=a, Offset=0, SizeInBytes=96)]))
    assert removal(rig, lambda: table.BindInputs([with_buffer])) == (
        "BindInputs[0].Bindings[0] (InputTensor) has a Buffer, but InputTensor is not DML_TENSOR_FLAG_OWNED_BY_DML; "
        "only DML-owned tensors are bound at initialization.")


@pytest.mark.parametrize("bindings, message", [
    ([buffer_binding], "BindInputs[0] is DML_BINDING_TYPE_BUFFER; an initializer's inputs are "
                       "DML_BINDING_TYPE_BUFFER_ARRAY."),
    ([None, None], "BindInputs got 2 bindings; the initializer has 1 operators and takes one "
                   "DML_BINDING_TYPE_BUFFER_ARRAY per operator (or no bindings)."),
    ([DML_BINDING_DESC(Type=DML_BINDING_TYPE_BUFFER_ARRAY, Desc=DML_BUFFER_ARRAY_BINDING(BindingCount=2, Bindings=[]))],
     "BindInputs[0].BindingCount is 2 but BindInputs[0].Bindings has 0 elements; they must agree."),
])
def test_initializer_input_rules(bindings, message, rig):
    compiled = rig.compile(clip_desc())
    initializer = rig.dml.CreateOperatorInitializer([compiled])
    table = rig.dml.CreateBindingTable(rig.table_desc(initializer))
    a = rig.buffer(256)
    bindings = [b(a) if callable(b) else b for b in bindings]
    assert removal(rig, lambda: table.BindInputs(bindings)) == message


# ---- RecordDispatch rules -----------------------------------------------------------------------
def _bound_clip(rig, **kwargs):
    compiled, table, a, b = clip_ready(rig, **kwargs)
    table.BindInputs([buffer_binding(a, size=96)])
    table.BindOutputs([buffer_binding(b, size=96)])
    return compiled, table, a, b


def test_record_dispatch_needs_an_open_direct_or_compute_list(rig):
    compiled, table, _, _ = _bound_clip(rig)
    rig.list.Close()
    assert removal(rig, lambda: rig.recorder.RecordDispatch(rig.list, compiled, table)) == (
        "commandList is closed; Reset it before recording.")


def test_record_dispatch_rejects_copy_lists(rig):
    compiled, table, _, _ = _bound_clip(rig)
    allocator = rig.device.CreateCommandAllocator(D3D12_COMMAND_LIST_TYPE_COPY)
    copy_list = rig.device.CreateCommandList(0, D3D12_COMMAND_LIST_TYPE_COPY, allocator, None)
    assert removal(rig, lambda: rig.recorder.RecordDispatch(copy_list, compiled, table)) == (
        "commandList is of type D3D12_COMMAND_LIST_TYPE_COPY; DirectML records only into "
        "D3D12_COMMAND_LIST_TYPE_DIRECT or D3D12_COMMAND_LIST_TYPE_COMPUTE lists.")


def test_record_dispatch_on_a_compute_list_works():
    rig = MirrorRig(dml_flags=DML_CREATE_DEVICE_FLAG_DEBUG, list_type=D3D12_COMMAND_LIST_TYPE_COMPUTE)
    compiled, table, a, b = _bound_clip(rig)
    rig.recorder.RecordDispatch(rig.list, compiled, table)
    assert rig.dml.GetDeviceRemovedReason() == S_OK


def test_record_dispatch_without_the_tables_heap_set_is_a_d3d12_error(rig):
    """Not a DirectML misuse: the DML device stays; the list cannot Close (tests/d3d12/test_descriptor_heap_bytes.py pins
    the sentences)."""
    compiled, table, _, _ = _bound_clip(rig)
    rig.list.ClearState(None)
    rig.recorder.RecordDispatch(rig.list, compiled, table)
    assert rig.dml.GetDeviceRemovedReason() == S_OK
    with pytest.raises(HResultError) as info:
        rig.list.Close()
    assert info.value.hresult == E_INVALIDARG and "SetComputeRootDescriptorTable" in info.value.message


def test_record_dispatch_table_must_match_the_dispatchable(rig):
    compiled, table, _, _ = _bound_clip(rig)
    other = rig.compile(clip_desc())
    rig.initialize(other)
    assert removal(rig, lambda: rig.recorder.RecordDispatch(rig.list, other, table)) == (
        "the binding table was created (or Reset) for <IDMLCompiledOperator DML_OPERATOR_ELEMENT_WISE_CLIP>, not for "
        "<IDMLCompiledOperator DML_OPERATOR_ELEMENT_WISE_CLIP>.")


def test_record_dispatch_needs_every_binding(rig):
    compiled, table, a, _ = clip_ready(rig)
    table.BindInputs([buffer_binding(a, size=96)])
    assert removal(rig, lambda: rig.recorder.RecordDispatch(rig.list, compiled, table)) == (
        "DML_OPERATOR_ELEMENT_WISE_CLIP has no binding for OutputTensor; call BindOutputs before RecordDispatch.")


def test_record_dispatch_needs_initialization(rig):
    compiled = rig.compile(clip_desc())
    table = rig.table(compiled)
    table.BindPersistentResource(buffer_binding(rig.buffer(512)))
    table.BindInputs([buffer_binding(rig.buffer(256), size=96)])
    table.BindOutputs([buffer_binding(rig.buffer(256), size=96)])
    assert removal(rig, lambda: rig.recorder.RecordDispatch(rig.list, compiled, table)) == (
        "the compiled operator DML_OPERATOR_ELEMENT_WISE_CLIP was never initialized; record an IDMLOperatorInitializer "
        "dispatch for it (and execute it) first.")


def test_initializer_recorded_but_never_executed_removes_at_execution(rig):
    compiled = rig.compile(clip_desc())
    # The initializer goes into a list that is never executed.
    allocator = rig.device.CreateCommandAllocator(D3D12_COMMAND_LIST_TYPE_DIRECT)
    side_list = rig.device.CreateCommandList(0, D3D12_COMMAND_LIST_TYPE_DIRECT, allocator, None)
    rig.set_heap_on(side_list)
    initializer = rig.dml.CreateOperatorInitializer([compiled])
    init_table = rig.dml.CreateBindingTable(rig.table_desc(initializer, first=8))
    init_table.BindOutputs([buffer_binding(rig.persistent_resource(compiled))])
    rig.recorder.RecordDispatch(side_list, initializer, init_table)
    table = rig.table(compiled)
    out = rig.buffer(256)
    table.BindInputs([buffer_binding(rig.buffer(256), size=96)])
    table.BindOutputs([buffer_binding(out, size=96)])
    rig.recorder.RecordDispatch(rig.list, compiled, table)
    assert rig.dml.GetDeviceRemovedReason() == S_OK
    rig.execute()
    assert rig.dml.GetDeviceRemovedReason() == E_INVALIDARG
    assert removed(rig.dml)[1] == (
        "ExecuteCommandLists: the compiled operator DML_OPERATOR_ELEMENT_WISE_CLIP was never initialized (its "
        "IDMLOperatorInitializer dispatch did not execute before it); the dispatch is skipped.")


def test_evicted_dispatchable_cannot_be_recorded(rig):
    compiled, table, _, _ = _bound_clip(rig)
    rig.dml.Evict([compiled])
    assert removal(rig, lambda: rig.recorder.RecordDispatch(rig.list, compiled, table)) == (
        "<IDMLCompiledOperator DML_OPERATOR_ELEMENT_WISE_CLIP> is evicted; call MakeResident before recording it.")


def test_make_resident_restores(rig):
    compiled, table, _, _ = _bound_clip(rig)
    rig.dml.Evict([compiled])
    rig.dml.MakeResident([compiled])
    rig.recorder.RecordDispatch(rig.list, compiled, table)
    assert rig.dml.GetDeviceRemovedReason() == S_OK


@pytest.mark.parametrize("args, message", [
    (lambda rig, c, t: (None, c, t), "commandList is None; it must be an ID3D12GraphicsCommandList."),
    (lambda rig, c, t: (rig.list, None, t), "dispatchable is None; it must be an IDMLCompiledOperator or "
                                             "IDMLOperatorInitializer."),
    (lambda rig, c, t: (rig.list, c, None), "bindings is None; it must be an IDMLBindingTable."),
])
def test_record_dispatch_argument_types(args, message, rig):
    compiled, table, _, _ = _bound_clip(rig)
    assert removal(rig, lambda: rig.recorder.RecordDispatch(*args(rig, compiled, table))) == message


def test_bind_writes_descriptors_in_binding_order(rig):
    from dmlemu.functional.buffer_descriptor import unpack_buffer_descriptor
    compiled = rig.compile(if_desc())
    rig.initialize(compiled)
    table = rig.dml.CreateBindingTable(rig.table_desc(compiled, first=3, size=4))
    buffers = [rig.buffer(256) for _ in range(4)]
    table.BindInputs([buffer_binding(buffers[0], size=16), buffer_binding(buffers[1], 32, 32),
                      buffer_binding(buffers[2], 64, 48)])
    table.BindOutputs([buffer_binding(buffers[3], 16, 240)])
    heap_bytes = inspect(rig.heap).data   # Bind* wrote them through the CPU handle at once
    expected = [(buffers[0], 0, 16), (buffers[1], 32, 32), (buffers[2], 64, 48), (buffers[3], 16, 240)]
    for slot, (resource, offset, size) in enumerate(expected):
        start = (3 + slot) * 32
        va, nbytes, valid = unpack_buffer_descriptor(heap_bytes[start:start + 16].view(np.uint32))
        assert (va, nbytes, valid) == (resource.GetGPUVirtualAddress() + offset, size, True)


# ---- aliasing --------------------------------------------------------------------------------------
def test_in_place_clip_is_allowed_with_the_same_range(rig):
    compiled, table, a, _ = clip_ready(rig)
    table.BindInputs([buffer_binding(a, 16, 96)])
    table.BindOutputs([buffer_binding(a, 16, 96)])
    rig.recorder.RecordDispatch(rig.list, compiled, table)
    assert rig.dml.GetDeviceRemovedReason() == S_OK


def test_in_place_needs_the_same_offset(rig):
    compiled, table, a, _ = clip_ready(rig)
    table.BindInputs([buffer_binding(a, 0, 96)])
    table.BindOutputs([buffer_binding(a, 32, 96)])
    assert removal(rig, lambda: rig.recorder.RecordDispatch(rig.list, compiled, table)) == (
        "OutputTensor (bytes 32 to 128) overlaps InputTensor (bytes 0 to 96) in buffer #1; in-place execution needs "
        "the same Offset and SizeInBytes for both (input 0+96, output 32+96).")


def test_in_place_needs_identical_layouts(rig):
    out = tensor(F32, (1, 2, 3, 4), strides=(24, 12, 1, 3))
    compiled, table, a, _ = clip_ready(rig, clip_desc(tensor(), out))
    table.BindInputs([buffer_binding(a, 0, 96)])
    table.BindOutputs([buffer_binding(a, 0, 96)])
    assert removal(rig, lambda: rig.recorder.RecordDispatch(rig.list, compiled, table)) == (
        "OutputTensor (bytes 0 to 96) overlaps InputTensor (bytes 0 to 96) in buffer #1; in-place execution needs "
        "identical tensor descs (DataType, Sizes, Strides and TotalTensorSizeInBytes).")


def test_if_is_not_in_place(rig):
    compiled = rig.compile(if_desc())
    rig.initialize(compiled)
    table = rig.table(compiled)
    cond, a, b = rig.buffer(256), rig.buffer(256), rig.buffer(256)
    table.BindInputs([buffer_binding(cond, size=8), buffer_binding(a, size=32), buffer_binding(b, size=32)])
    table.BindOutputs([buffer_binding(b, size=32)])
    assert removal(rig, lambda: rig.recorder.RecordDispatch(rig.list, compiled, table)) == (
        "OutputTensor (bytes 0 to 32) overlaps BTensor (bytes 0 to 32) in buffer #3; DML_OPERATOR_ELEMENT_WISE_IF does "
        "not support in-place execution.")


def test_inputs_may_share_and_overlap(rig):
    compiled = rig.compile(if_desc())
    rig.initialize(compiled)
    table = rig.table(compiled)
    shared, out = rig.buffer(256), rig.buffer(256)
    table.BindInputs([buffer_binding(shared, size=8), buffer_binding(shared, size=32), buffer_binding(shared, size=32)])
    table.BindOutputs([buffer_binding(out, size=32)])
    rig.recorder.RecordDispatch(rig.list, compiled, table)
    assert rig.dml.GetDeviceRemovedReason() == S_OK


# ---- removal behaviour ----------------------------------------------------------------------------
def test_after_removal_void_calls_do_nothing_and_hresult_calls_fail(rig):
    op = rig.dml.CreateOperator(clip_desc())
    compiled, table, a, _ = clip_ready(rig)
    removal(rig, lambda: table.BindInputs([buffer_binding(a, 8, 96)]))
    with contextlib.redirect_stderr(io.StringIO()) as err:
        table.BindInputs([buffer_binding(a, 8, 96)])  # no-op: no second report
        rig.recorder.RecordDispatch(rig.list, compiled, table)
    assert err.getvalue() == ""
    for call in (lambda: rig.dml.CreateOperator(clip_desc()), lambda: rig.dml.CompileOperator(op, 0),
                 lambda: rig.dml.CreateBindingTable(None), lambda: table.Reset(None),
                 lambda: rig.dml.CreateOperatorInitializer([]), lambda: compiled.GetDevice()):
        with pytest.raises(HResultError) as info:
            call()
        assert info.value.hresult == DXGI_ERROR_DEVICE_REMOVED
    assert "was removed earlier (E_INVALIDARG): IDMLBindingTable.BindInputs: BindInputs[0] (InputTensor).Offset is 8" \
        in info.value.message
    assert rig.dml.GetDeviceRemovedReason() == E_INVALIDARG


def test_removal_without_debug_flag_is_silent(capsys):
    rig = MirrorRig(dml_flags=DML_CREATE_DEVICE_FLAG_NONE)
    _, table, a, _ = clip_ready(rig)
    table.BindInputs([buffer_binding(a, 8, 96)])
    assert rig.dml.GetDeviceRemovedReason() == E_INVALIDARG
    assert capsys.readouterr().err == ""


def test_debug_flag_prints_removal(capsys, rig):
    _, table, a, _ = clip_ready(rig)
    table.BindInputs([buffer_binding(a, 8, 96)])
    err = capsys.readouterr().err
    assert err == ("[DIRECTML ERROR]: IDMLBindingTable.BindInputs: BindInputs[0] (InputTensor).Offset is 8; it must be "
                   "a multiple of 16 (DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT or InputTensor.GuaranteedBaseOffsetAlignment). "
                   "The DirectML device is now removed (E_INVALIDARG).\n")


def test_wrong_resource_state_at_execution_removes_both_devices(rig):
    compiled, table, a, b = clip_ready(rig)
    staging = rig.buffer(256, D3D12_HEAP_TYPE_UPLOAD, uav=False)
    rig.list.CopyBufferRegion(a, 0, staging, 0, 96)  # a is now COPY_DEST, and no barrier follows
    table.BindInputs([buffer_binding(a, size=96)])
    table.BindOutputs([buffer_binding(b, size=96)])
    rig.recorder.RecordDispatch(rig.list, compiled, table)
    rig.list.Close()
    rig.queue.ExecuteCommandLists([rig.list])
    assert rig.device.GetDeviceRemovedReason() == DXGI_ERROR_INVALID_CALL
    assert rig.dml.GetDeviceRemovedReason() == DXGI_ERROR_INVALID_CALL
    with pytest.raises(HResultError) as info:
        rig.dml.CreateOperator(clip_desc())
    assert info.value.hresult == DXGI_ERROR_DEVICE_REMOVED
    assert "the InputTensor of a DirectML DML_OPERATOR_ELEMENT_WISE_CLIP dispatch needs buffer #1 in " \
           "D3D12_RESOURCE_STATE_UNORDERED_ACCESS" in info.value.message


def test_common_buffers_are_promoted(rig):
    compiled, table, a, b = _bound_clip(rig)
    rig.recorder.RecordDispatch(rig.list, compiled, table)
    rig.execute()
    assert rig.dml.GetDeviceRemovedReason() == S_OK
    assert rig.device.GetDeviceRemovedReason() == S_OK


# ---- descriptors volatile ---------------------------------------------------------------------------
def test_descriptors_volatile_allows_late_binding(rig):
    compiled, table, a, b = _bound_clip(rig, flags=DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE)
    x = np.linspace(-2, 2, 24, dtype=np.float32)
    rig.write(a, x)
    rig.recorder.RecordDispatch(rig.list, compiled, table)
    late = rig.buffer(256)
    table.BindOutputs([buffer_binding(late, size=96)])  # after RecordDispatch: still counts
    rig.execute()
    assert rig.dml.GetDeviceRemovedReason() == S_OK
    got = rig.read(late)[:96].view(np.float32)
    assert np.array_equal(got, np.clip(x, -1, 1))
    assert not rig.read(b).any()


def test_reset_right_after_record_dispatch_changes_nothing(rig):
    compiled, table, a, b = _bound_clip(rig)
    x = np.linspace(-2, 2, 24, dtype=np.float32)
    rig.write(a, x)
    rig.recorder.RecordDispatch(rig.list, compiled, table)
    table.Reset(None)  # allowed right after RecordDispatch: the descriptors stay in the heap
    rig.execute()
    assert np.array_equal(rig.read(b)[:96].view(np.float32), np.clip(x, -1, 1))


def test_two_dispatches_sharing_one_table_range_read_the_last_bindings(rig):
    """Without DESCRIPTORS_VOLATILE a range rebound before execution is undefined in DirectML; the GPU reads what
    the heap holds at execution, so both dispatches run on the second bindings (the debug layer says so:
    tests/d3d12/test_descriptor_heap_bytes.py)."""
    compiled, table, a, b = _bound_clip(rig)
    x = np.linspace(-2, 2, 24, dtype=np.float32)
    rig.write(a, x)
    rig.recorder.RecordDispatch(rig.list, compiled, table)
    rig.list.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.UAV(None)])
    c = rig.buffer(256)
    table.BindInputs([buffer_binding(b, size=96)])  # the same range, rewritten before execution
    table.BindOutputs([buffer_binding(c, size=96)])
    rig.recorder.RecordDispatch(rig.list, compiled, table)
    with contextlib.redirect_stderr(io.StringIO()):
        rig.execute()
    assert rig.dml.GetDeviceRemovedReason() == S_OK
    assert not rig.read(b).any() and not rig.read(c).any()
    assert len(inspect(rig.dml).debug_messages) == 2   # the first dispatch's two slots


def test_outputs_writable_ranges_must_not_overlap(rig):
    """No implemented operator has two outputs yet; the rule is checked on a two-output stand-in."""
    from types import SimpleNamespace

    from dmlemu.directml.binding_table import BoundBuffer
    from dmlemu.com import VoidMisuse
    from dmlemu.directml.validation import TensorInfo
    _, table, a, _ = clip_ready(rig)
    outputs = [TensorInfo(field=f, data_type=1, flags=0, sizes=(24,), strides=None, total_bytes=96, alignment=0,
                          is_output=True) for f in ("OutputTensor", "OutputIndicesTensor")]
    stand_in = SimpleNamespace(_info=SimpleNamespace(outputs=outputs))
    table._check_outputs_disjoint(stand_in, [BoundBuffer(a, 0, 96), BoundBuffer(a, 96, 96)])
    with pytest.raises(VoidMisuse) as info:
        table._check_outputs_disjoint(stand_in, [BoundBuffer(a, 0, 96), BoundBuffer(a, 64, 96)])
    assert str(info.value) == (
        "BindOutputs[1] (OutputIndicesTensor) writes bytes 64 to 160 of buffer #1, overlapping BindOutputs[0] "
        "(OutputTensor) at 0 to 96; outputs' writable ranges must not overlap.")
