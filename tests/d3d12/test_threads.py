"""Threads: a D3D12 device is free-threaded, so resource
creation, operator compilation and submissions on separate queues from several threads must give
unique addresses, each operator its own constants, and no lost fence signal. Run under a tiny
switch interval so the threads interleave as much as the interpreter allows."""
import sys
import threading

import numpy as np
import pytest

from dmlemu import golden
from dmlemu.d3d12 import (CD3DX12_HEAP_PROPERTIES, CD3DX12_RESOURCE_DESC, D3D12_HEAP_FLAG_NONE,
                          D3D12_HEAP_TYPE_DEFAULT, D3D12_RESOURCE_STATE_COMMON)
from dmlemu.directml import (DML_BUFFER_TENSOR_DESC, DML_ELEMENT_WISE_CLIP_OPERATOR_DESC, DML_OPERATOR_DESC,
                             DML_OPERATOR_ELEMENT_WISE_CLIP, DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DESC,
                             DML_TENSOR_TYPE_BUFFER)
from dmlemu.presets import TEACHING
from mirror_rig import MirrorRig


@pytest.fixture
def interleaved():
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(old)


def run_threads(count, target):
    errors = []

    def guarded(i):
        try:
            target(i)
        except BaseException as error:      # reported to the test, not lost in the thread
            errors.append(error)
    threads = [threading.Thread(target=guarded, args=(i,)) for i in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


def test_buffers_created_from_eight_threads_never_share_addresses(interleaved):
    rig = MirrorRig(TEACHING)
    made = [[] for _ in range(8)]

    def create(i):
        for _ in range(300):
            made[i].append(rig.device.CreateCommittedResource(
                CD3DX12_HEAP_PROPERTIES(D3D12_HEAP_TYPE_DEFAULT), D3D12_HEAP_FLAG_NONE,
                CD3DX12_RESOURCE_DESC.Buffer(4096), D3D12_RESOURCE_STATE_COMMON, None))
    run_threads(8, create)
    ranges = sorted((r.GetGPUVirtualAddress(), r.GetDesc().Width) for rs in made for r in rs)
    assert len(ranges) == 2400
    assert all(a + size <= b for (a, size), (b, _) in zip(ranges, ranges[1:]))   # disjoint


def test_operators_compiled_and_run_from_eight_threads_keep_their_own_constants(interleaved):
    """Each thread has its own queue, list and fence on one device and runs CLIPs whose Max is its
    own: a shared constant buffer or a lost signal would show as a wrong output or a hang."""
    device = MirrorRig(TEACHING).device
    tensor = DML_TENSOR_DESC(Type=DML_TENSOR_TYPE_BUFFER, Desc=DML_BUFFER_TENSOR_DESC(
        DataType=DML_TENSOR_DATA_TYPE_FLOAT32, Sizes=[1, 1, 4, 4], TotalTensorSizeInBytes=64))
    x = np.linspace(0, 20, 16, dtype=np.float32).reshape(1, 1, 4, 4)

    def work(i):
        rig = MirrorRig(device=device, dml_flags=0)
        for k in range(20):
            high = float(i * 3 + k % 3 + 1)
            desc = DML_OPERATOR_DESC(Type=DML_OPERATOR_ELEMENT_WISE_CLIP, Desc=DML_ELEMENT_WISE_CLIP_OPERATOR_DESC(
                InputTensor=tensor, OutputTensor=tensor, Min=0.0, Max=high))
            (y,) = rig.run_operator(desc, [x])
            assert np.array_equal(y, golden.clip(x, 0.0, high)), (i, k)
    run_threads(8, work)


def test_a_null_event_wait_blocks_until_another_thread_signals():
    rig = MirrorRig(TEACHING)
    fence = rig.device.CreateFence(0, 0)
    signaller = threading.Timer(0.2, lambda: rig.queue.Signal(fence, 5))
    signaller.start()
    fence.SetEventOnCompletion(5, None)          # returns once the other thread's Signal lands
    signaller.join()
    assert fence.GetCompletedValue() == 5


def test_a_null_event_wait_nobody_will_satisfy_is_reported(monkeypatch):
    import dmlemu.d3d12.fence as fence_module
    from dmlemu.errors import HResultError
    monkeypatch.setattr(fence_module, "BLOCKING_WAIT_SECONDS", 0.2)
    rig = MirrorRig(TEACHING)
    fence = rig.device.CreateFence(0, 0)
    stop = threading.Event()
    idle = threading.Thread(target=stop.wait, args=(5.0,))
    idle.start()                                  # another thread exists, but it never signals
    try:
        with pytest.raises(HResultError, match="no other thread did within 0.2 s"):
            fence.SetEventOnCompletion(1, None)
    finally:
        stop.set()
        idle.join()


def test_a_command_list_recorded_from_two_threads_at_once_is_reported(monkeypatch):
    """A command list is single-threaded: a call that arrives while another thread is inside a
    method of the same list puts the list in error, and Close says why."""
    from dmlemu.d3d12 import D3D12_HEAP_TYPE_UPLOAD, ID3D12GraphicsCommandList
    from dmlemu.errors import HResultError
    rig = MirrorRig(TEACHING)
    source = rig.buffer(64, D3D12_HEAP_TYPE_UPLOAD, uav=False)
    target = rig.buffer(64, uav=False)
    inside, release = threading.Event(), threading.Event()
    check = ID3D12GraphicsCommandList._check_copy_heaps

    def held(dst, src):                        # the first thread stays inside CopyBufferRegion
        if threading.current_thread() is not threading.main_thread():
            inside.set()
            release.wait(5)
        return check(dst, src)
    monkeypatch.setattr(ID3D12GraphicsCommandList, "_check_copy_heaps", staticmethod(held))
    first = threading.Thread(target=rig.list.CopyBufferRegion, args=(target, 0, source, 0, 64))
    first.start()
    assert inside.wait(5)
    rig.list.CopyBufferRegion(target, 0, source, 0, 64)          # the main thread, meanwhile
    release.set()
    first.join()
    with pytest.raises(HResultError, match="a command list is single-threaded"):
        rig.list.Close()


def test_eight_threads_submitting_a_thousand_times_each_on_one_queue_all_land_exactly(interleaved):
    """D3D12 queues are free-threaded: 8 threads, each with its own allocator, list, fence and buffers, submit
    1,000 copies each on ONE shared queue (HelloDirectML's CloseExecuteResetWait per submission). Every readback
    holds that thread's own value for that submission, and no call fails (no spurious 'completion not observed'
    from ID3D12CommandAllocator::Reset)."""
    from dmlemu.d3d12 import (D3D12_COMMAND_LIST_TYPE_DIRECT, D3D12_FENCE_FLAG_NONE, D3D12_HEAP_TYPE_READBACK,
                              D3D12_HEAP_TYPE_UPLOAD)
    rig = MirrorRig(TEACHING, heap_slots=0)
    device, queue = rig.device, rig.queue

    def submit(i):
        allocator = device.CreateCommandAllocator(D3D12_COMMAND_LIST_TYPE_DIRECT)
        command_list = device.CreateCommandList(0, D3D12_COMMAND_LIST_TYPE_DIRECT, allocator, None)
        fence = device.CreateFence(0, D3D12_FENCE_FLAG_NONE)
        upload, readback = rig.buffer(64, D3D12_HEAP_TYPE_UPLOAD), rig.buffer(64, D3D12_HEAP_TYPE_READBACK)
        for k in range(1000):
            data = np.full(16, i * 100_000 + k, np.uint32)
            upload.Map(0, None)[:] = data.view(np.uint8)
            command_list.CopyBufferRegion(readback, 0, upload, 0, 64)
            command_list.Close()
            queue.ExecuteCommandLists([command_list])
            queue.Signal(fence, k + 1)
            fence.SetEventOnCompletion(k + 1, None)
            allocator.Reset()
            command_list.Reset(allocator, None)
            assert np.array_equal(np.frombuffer(bytes(readback.Map(0, None)[:64]), np.uint32), data), (i, k)
    run_threads(8, submit)
