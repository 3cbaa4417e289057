"""dmlemu.d3d12.inspect and dmlemu.directml.inspect: one read-only, live view per mirror object type, and
a TypeError sentence for anything else."""
import numpy as np
import pytest

import dmlemu.d3d12 as d3d12
import dmlemu.directml as directml
from dmlemu.d3d12 import *  # noqa: F401,F403
from dmlemu.d3d12 import inspection as d3d12_inspection
from dmlemu.directml import *  # noqa: F401,F403
from dmlemu.directml import inspection as directml_inspection
from dmlemu.gpu import Gpu
from dmlemu.presets import TEACHING
from mirror_rig import ClipRig, MirrorRig, buffer_binding


def test_inspect_is_exported_by_both_halves_of_the_mirror():
    assert "inspect" in d3d12.__all__ and "inspect" in directml.__all__
    assert d3d12.inspect is d3d12_inspection.inspect and directml.inspect is directml_inspection.inspect


@pytest.mark.parametrize("inspect_fn, rule", [
    (d3d12.inspect, "dmlemu.d3d12.inspect takes a D3D12 mirror object (ID3D12Device, ID3D12Resource, ID3D12Heap, "
                    "ID3D12DescriptorHeap, ID3D12GraphicsCommandList, ID3D12CommandAllocator, ID3D12CommandQueue, "
                    "ID3D12Fence, ID3D12RootSignature, ID3D12PipelineState, ID3D12QueryHeap)."),
    (directml.inspect, "dmlemu.directml.inspect takes a DirectML or D3D12 mirror object (IDMLDevice, "
                       "IDMLCompiledGraph, IDMLCompiledOperator, IDMLOperator, IDMLBindingTable, "
                       "IDMLOperatorInitializer, IDMLCommandRecorder, ID3D12Device, ID3D12Resource, ID3D12Heap, "
                       "ID3D12DescriptorHeap, ID3D12GraphicsCommandList, ID3D12CommandAllocator, ID3D12CommandQueue, "
                       "ID3D12Fence, ID3D12RootSignature, ID3D12PipelineState, ID3D12QueryHeap)."),
], ids=["d3d12", "directml"])
@pytest.mark.parametrize("value, named", [
    (42, "42, an int"), (None, "None, None"), ("buffer #1", "'buffer #1', a str"),
])
def test_anything_else_is_a_type_error_naming_the_value_and_the_rule(inspect_fn, rule, value, named):
    with pytest.raises(TypeError) as info:
        inspect_fn(value)
    assert str(info.value) == f"inspect: obj is {named}; {rule}"


def test_the_gpu_behind_a_device_is_not_a_mirror_object():
    with pytest.raises(TypeError, match=r"^inspect: obj is <dmlemu\.gpu\.Gpu object at 0x[0-9a-f]+>, a Gpu; "):
        d3d12.inspect(Gpu(TEACHING))


def test_views_are_read_only_and_name_their_object():
    rig = MirrorRig(TEACHING)
    buffer = rig.buffer(64)
    view = d3d12.inspect(buffer)
    with pytest.raises(AttributeError, match="^ResourceView.state is read-only; a view changes nothing in the mirror.$"):
        view.state = D3D12_RESOURCE_STATE_COPY_DEST
    with pytest.raises(ValueError, match="read-only"):
        view.data[0] = 1
    assert view.object is buffer and view.label == "buffer #1" and repr(view) == "<ResourceView of buffer #1>"
    buffer.SetName("x")
    assert view.label == "buffer 'x'"    # live: the view reads the object when asked


def test_each_d3d12_object_type_has_its_view():
    rig = MirrorRig(TEACHING, heap_slots=4)
    upload = rig.upload_buffer(np.arange(16, dtype=np.uint8))
    target = rig.buffer(16)
    rig.list.CopyBufferRegion(target, 0, upload, 0, 16)
    device = d3d12.inspect(rig.device)
    assert (type(device), device.gpu.preset, device.preset, device.removed_reason) == (
        d3d12_inspection.DeviceView, TEACHING, TEACHING, None)
    assert device.queues == (rig.queue,) and device.object_counts["buffer"] == 2
    assert device.resource_at(target.GetGPUVirtualAddress() + 15) is target
    listed = d3d12.inspect(rig.list)
    assert listed.open and [c.name for c in listed.commands] == ["CopyBufferRegion"]
    assert listed.descriptor_heaps == (rig.heap,) and listed.error is None
    assert d3d12.inspect(upload).heap_type == D3D12_HEAP_TYPE_UPLOAD and d3d12.inspect(upload).width == 16
    assert d3d12.inspect(target).gpu_va == target.GetGPUVirtualAddress() and d3d12.inspect(target).heap is None
    assert d3d12.inspect(target).data.tolist() == [0] * 16
    rig.execute()
    assert d3d12.inspect(target).data.tolist() == list(range(16))   # what the copy wrote, read without Map
    queue = d3d12.inspect(rig.queue)
    assert (queue.submitted_serial, queue.executed_serial, queue.observed_serial, queue.pending) == (1, 1, 1, ())
    fence = d3d12.inspect(rig.fence)
    assert fence.value == 1 and fence.pending_signals == () and [v for v, _ in fence.gpu_signals] == [1]
    assert d3d12.inspect(rig.allocator).recording_list is rig.list   # Reset by rig.execute
    heap = d3d12.inspect(rig.heap)
    assert (heap.num_descriptors, heap.increment, heap.shader_visible) == (4, 32, True)
    assert heap.descriptor(0) == (0, 0, False)
    with pytest.raises(IndexError, match=r"^index is 4; descriptor heap #1 has slots 0 to 3\.$"):
        heap.descriptor(4)
    queries = d3d12.inspect(rig.device.CreateQueryHeap(D3D12_QUERY_HEAP_DESC(Type=D3D12_QUERY_HEAP_TYPE_TIMESTAMP,
                                                                              Count=2)))
    assert queries.count == 2 and queries.ticks.tolist() == [0, 0]


def test_each_directml_object_type_has_its_view():
    rig = ClipRig(dml_debug=True)
    rig.initialize_clip()
    rig.execute()
    dml = directml.inspect(rig.dml)
    assert type(dml) is directml_inspection.DMLDeviceView
    assert dml.d3d12_device is rig.device and dml.gpu is d3d12.inspect(rig.device).gpu and dml.debug
    assert dml.debug_messages == () and dml.removed_reason is None
    compiled = directml.inspect(rig.compiled)
    assert compiled.schema.c_name == "DML_OPERATOR_ELEMENT_WISE_CLIP" and compiled.initialized
    assert directml.inspect(compiled.operator).info is compiled.info
    assert bytes(compiled.constants.data[:len(compiled.kernel.constants)]) == bytes(compiled.kernel.constants)
    assert compiled.persistent_regions == ((None, 0),) and compiled.persistent_size == 0   # root constants
    table = rig.bound_table()
    bound = directml.inspect(table)
    assert bound.dispatchable is rig.compiled and bound.heap is rig.heap and bound.size == 2
    assert [(b.resource, b.offset, b.size) for b in bound.inputs] == [(rig.a, 0, 64)]
    initializer = rig.dml.CreateOperatorInitializer([rig.compiled])
    assert directml.inspect(initializer).operators == (rig.compiled,)
    assert directml.inspect(rig.recorder).device is rig.dml
    assert type(directml.inspect(rig.list)) is d3d12_inspection.CommandListView   # D3D12 objects too
    table.BindInputs([buffer_binding(rig.b, 0, 64)])
    assert [b.resource for b in bound.inputs] == [rig.b]    # live
