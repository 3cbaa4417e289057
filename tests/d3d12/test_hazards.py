"""Hazard tracking (emulator/d3d12/hazards.py): accesses to the same bytes with no barrier between them.

The tracker on its own (kinds, barriers, ranges, copies), a brute-force model it must agree with on random
access sequences, then through the mirror: two dependent DirectML dispatches with and without a UAV barrier,
counted in the device and the trace, reported by the D3D12 debug layer once the work has run.
"""
import contextlib
import io
from types import SimpleNamespace

import numpy as np
from hypothesis import given, settings, strategies as st

from dmlemu.d3d12 import *  # noqa: F401,F403
from dmlemu.d3d12.hazards import HazardTracker, note_access
from dmlemu.directml import *  # noqa: F401,F403
from dmlemu.directml import inspect
from dmlemu.errors import DXGI_ERROR_INVALID_CALL, HResultError, S_OK
from dmlemu.traces import capture
from mirror_rig import ClipRig, MirrorRig, buffer_binding


_STAND_BY = MirrorRig(heap_slots=0)      # two buffers the tracker tests name: "buffer #1" and "buffer #2"
A, B = _STAND_BY.buffer(64), _STAND_BY.buffer(64)


def kinds(found):
    return [(h.kind, h.operation, h.earlier, inspect(h.resource).label, h.start, h.end) for h in found]


# ---- the tracker ---------------------------------------------------------------------------------------------
def test_read_after_write_write_after_write_and_write_after_read():
    t = HazardTracker()
    assert t.access("w", writes=[(A, 0, 64)]) == []
    assert kinds(t.access("r", reads=[(A, 16, 64)])) == [
        ("read-after-write", "operation 2 (r)", "operation 1 (w)", "buffer #1", 16, 64)]
    assert kinds(t.access("w2", writes=[(A, 60, 8)])) == [
        ("write-after-write", "operation 3 (w2)", "operation 1 (w)", "buffer #1", 60, 64),
        ("write-after-read", "operation 3 (w2)", "operation 2 (r)", "buffer #1", 60, 68)]


def test_reads_disjoint_bytes_other_resources_and_one_operation_never_conflict():
    t = HazardTracker()
    t.access("in place", reads=[(A, 0, 64)], writes=[(A, 0, 64)])   # no conflict with itself
    assert t.access("read", reads=[(B, 0, 64)]) == []
    assert t.access("read again", reads=[(B, 0, 64)]) == []
    assert t.access("next bytes", writes=[(A, 64, 64)]) == []
    assert t.access("empty", writes=[(A, 0, 0)]) == []


def test_barriers_order_their_resource_or_everything():
    t = HazardTracker()
    t.access("w", writes=[(A, 0, 64), (B, 0, 64)])
    t.barrier(A)
    assert t.access("r", reads=[(A, 0, 64)]) == []
    assert [h.resource for h in t.access("r2", reads=[(B, 0, 64)])] == [B]
    t.barrier(None)
    assert t.access("w3", writes=[(A, 0, 64), (B, 0, 64)]) == []


def test_copies_are_ordered_with_each_other_but_not_with_dispatches():
    t = HazardTracker()
    t.access("CopyBufferRegion", reads=[(A, 0, 64)], writes=[(B, 0, 64)], copy=True)
    assert t.access("CopyResource", reads=[(B, 0, 64)], writes=[(A, 0, 64)], copy=True) == []
    assert kinds(t.access("dispatch", reads=[(B, 0, 8)])) == [
        ("read-after-write", "operation 3 (dispatch)", "operation 1 (CopyBufferRegion)", "buffer #2", 0, 8)]


def test_a_hazard_names_both_operations_and_the_resource():
    t = HazardTracker()
    t.access("DirectML ELEMENT_WISE_CLIP", writes=[(B, 0, 64)])
    (hazard,) = t.access("DirectML ELEMENT_WISE_IDENTITY", reads=[(B, 0, 64)])
    assert hazard.sentence() == (
        "read-after-write hazard on buffer #2: operation 2 (DirectML ELEMENT_WISE_IDENTITY) reads bytes 0 to 64, "
        "which operation 1 (DirectML ELEMENT_WISE_CLIP) wrote, with no UAV barrier (on buffer #2 or global) or "
        "transition of buffer #2 between them, so the GPU may run them at the same time.")


def test_note_access_without_a_tracker_does_nothing():
    assert note_access(SimpleNamespace(), "x", writes=[(A, 0, 4)]) == []


RESOURCES = [A, B]
ACCESS = st.tuples(st.sampled_from([0, 1]), st.integers(0, 48), st.integers(0, 24), st.booleans())
STEP = st.one_of(st.tuples(st.just("op"), st.lists(ACCESS, max_size=3), st.booleans()),
                 st.tuples(st.just("barrier"), st.sampled_from([None, 0, 1]), st.just(False)))


@settings(max_examples=200, deadline=None)
@given(st.lists(STEP, max_size=12))
def test_the_tracker_agrees_with_a_brute_force_model(steps):
    """Every pair of operations since the last barrier ordering the resource, with overlapping bytes and at
    least one write (not both copies), is one hazard per (earlier operation, resource), the earlier ones
    being those not covered by a later access (see the module banner)."""
    t = HazardTracker()
    history = []   # (operation number, resource index, start, end, write, copy, barrier epoch per resource)
    epochs = [0, 0]
    n = 0
    for kind, payload, copy in steps:
        if kind == "barrier":
            t.barrier(None if payload is None else RESOURCES[payload])
            for r in ([0, 1] if payload is None else [payload]):
                epochs[r] += 1
            continue
        n += 1
        mine = [(r, o, o + s, w) for r, o, s, w in payload if s]
        expected = set()
        for r, start, end, write in mine:
            for m, r2, s2, e2, w2, c2, epoch in history:
                if r2 == r and epoch == epochs[r] and (write or w2) and not (copy and c2) and start < e2 and s2 < end:
                    expected.add((f"operation {m} (op{m})", RESOURCES[r]))
        found = t.access(f"op{n}", reads=[(RESOURCES[r], o, s) for r, o, s, w in payload if not w],
                         writes=[(RESOURCES[r], o, s) for r, o, s, w in payload if w], copy=copy)
        assert {(h.earlier, h.resource) for h in found} == expected
        assert len(found) == len(expected)
        # The tracker forgets an access covered by a later one to the same bytes (a write covers all, a read
        # covers reads, a copy only copies): whatever conflicts with it conflicts with the later one too.
        for r, start, end, write in mine:
            history = [h for h in history if not (h[1] == r and h[6] == epochs[r] and start <= h[2] and h[3] <= end
                                                  and (write or not h[4]) and (not copy or h[5]))]
        history += [(n, r, start, end, write, copy, epochs[r]) for r, start, end, write in mine]


# ---- through the mirror --------------------------------------------------------------------------------------
X = np.linspace(-2, 2, 16, dtype=np.float32)


def _two_clips(rig, barrier):
    """CLIP a -> b, then CLIP b -> c (the second reads what the first wrote), with `barrier` between them."""
    rig.initialize_clip()
    rig.execute()
    c = rig.buffer(64)
    rig.write(rig.a, X)
    first = rig.table(rig.compiled, first=0, size=2)
    first.BindInputs([buffer_binding(rig.a, 0, 64)])
    first.BindOutputs([buffer_binding(rig.b, 0, 64)])
    rig.recorder.RecordDispatch(rig.list, rig.compiled, first)
    if barrier is not None:
        rig.list.ResourceBarrier([barrier])
    second = rig.table(rig.compiled, first=2, size=2)
    second.BindInputs([buffer_binding(rig.b, 0, 64)])
    second.BindOutputs([buffer_binding(c, 0, 64)])
    rig.recorder.RecordDispatch(rig.list, rig.compiled, second)
    rig.list.Close()
    return c


def _reopen(rig):
    """After an ExecuteCommandLists of the rig's closed list: wait, and open the list again (for rig.read)."""
    rig.wait()
    rig.allocator.Reset()
    rig.list.Reset(rig.allocator, None)
    rig.set_heap_on(rig.list)


def test_a_dependent_dispatch_without_a_barrier_is_counted_in_the_device_and_the_trace():
    rig = ClipRig()
    c = _two_clips(rig, None)
    with capture(rig.device, detail="dispatch") as cap:
        rig.queue.ExecuteCommandLists([rig.list])
    _reopen(rig)
    assert rig.device.GetDeviceRemovedReason() == S_OK and rig.dml.GetDeviceRemovedReason() == S_OK
    assert inspect(rig.device).hazard_count == 1
    assert cap.trace.dispatches["hazards"].tolist() == [0, 1]
    row = cap.trace.hazards[0]
    assert (int(row["dispatch"]), str(row["kind"]), str(row["operation"]), str(row["earlier"]),
            str(row["resource"]), int(row["start"]), int(row["end"])) == (
        1, "read-after-write", "operation 2 (DirectML ELEMENT_WISE_CLIP)", "operation 1 (DirectML ELEMENT_WISE_CLIP)",
        "buffer #2", 0, 64)
    assert [s["hazards"] for s in cap.trace.summary()] == [0, 1]
    assert np.array_equal(rig.read(c).view(np.float32), np.clip(X, 0, 1))   # the emulated GPU runs in order


def test_the_debug_layer_reports_the_hazard_once_the_work_has_run():
    rig = ClipRig(d3d12_debug=True)
    c = _two_clips(rig, None)
    try:
        rig.queue.ExecuteCommandLists([rig.list])
        raise AssertionError("the hazard was not reported")
    except HResultError as error:
        assert error.hresult == DXGI_ERROR_INVALID_CALL
        assert error.message == (
            "ExecuteCommandLists: read-after-write hazard on buffer #2: operation 2 (DirectML ELEMENT_WISE_CLIP) "
            "reads bytes 0 to 64, which operation 1 (DirectML ELEMENT_WISE_CLIP) wrote, with no UAV barrier (on "
            "buffer #2 or global) or transition of buffer #2 between them, so the GPU may run them at the same time "
            "(in command list #1 on command queue #1).")
    assert rig.device.GetDeviceRemovedReason() == S_OK    # reported, nothing removed, every result written
    _reopen(rig)
    assert np.array_equal(rig.read(c).view(np.float32), np.clip(X, 0, 1))


def test_a_uav_barrier_global_or_on_the_resource_orders_the_dispatches():
    for barrier in (lambda rig: CD3DX12_RESOURCE_BARRIER.UAV(None), lambda rig: CD3DX12_RESOURCE_BARRIER.UAV(rig.b)):
        rig = ClipRig(d3d12_debug=True)
        _two_clips(rig, barrier(rig))
        rig.queue.ExecuteCommandLists([rig.list])
        rig.wait()
        assert inspect(rig.device).hazard_count == 0


def test_a_uav_barrier_on_another_resource_does_not():
    rig = ClipRig()
    _two_clips(rig, CD3DX12_RESOURCE_BARRIER.UAV(rig.a))
    rig.queue.ExecuteCommandLists([rig.list])
    rig.wait()
    assert inspect(rig.device).hazard_count == 1


def test_separate_execute_command_lists_calls_are_ordered():
    """D3D12: two ExecuteCommandLists calls in succession on one queue run one after the other."""
    rig = ClipRig(d3d12_debug=True)
    rig.initialize_clip()
    rig.execute()
    rig.write(rig.a, X)
    for src, dst in ((rig.a, rig.b), (rig.b, rig.a)):
        table = rig.table(rig.compiled, size=2)
        table.BindInputs([buffer_binding(src, 0, 64)])
        table.BindOutputs([buffer_binding(dst, 0, 64)])
        rig.recorder.RecordDispatch(rig.list, rig.compiled, table)
        rig.execute()
    assert inspect(rig.device).hazard_count == 0
    assert np.array_equal(rig.read(rig.a).view(np.float32), np.clip(X, 0, 1))


def test_lists_of_one_call_share_the_tracker():
    """The driver may merge the lists of one ExecuteCommandLists call: a hazard spans them."""
    rig = ClipRig()
    rig.initialize_clip()
    rig.execute()
    second_list = rig.device.CreateCommandList(0, D3D12_COMMAND_LIST_TYPE_DIRECT,
                                               rig.device.CreateCommandAllocator(D3D12_COMMAND_LIST_TYPE_DIRECT), None)
    rig.set_heap_on(second_list)
    for command_list, first, (src, dst) in ((rig.list, 0, (rig.a, rig.b)), (second_list, 2, (rig.b, rig.a))):
        table = rig.table(rig.compiled, first=first, size=2)
        table.BindInputs([buffer_binding(src, 0, 64)])
        table.BindOutputs([buffer_binding(dst, 0, 64)])
        rig.recorder.RecordDispatch(command_list, rig.compiled, table)
        command_list.Close()
    with contextlib.redirect_stderr(io.StringIO()):
        rig.queue.ExecuteCommandLists([rig.list, second_list])
    rig.wait()
    # operation 2 reads b (written by 1) and writes a (read by 1): one hazard per (earlier operation, resource)
    assert inspect(rig.device).hazard_count == 2


def test_the_history_stays_bounded_on_a_long_chain_without_barriers():
    """10,000 in-place dispatches on one buffer with no barrier: each conflicts with the one before it (and is
    reported naming it), and the tracker keeps one access per resource, not one per dispatch."""
    t = HazardTracker()
    for i in range(10_000):
        found = t.access(f"op{i}", reads=[(B, 0, 64)], writes=[(B, 0, 64)])
        expected = [] if i == 0 else [("read-after-write", f"operation {i} (op{i - 1})")]
        assert [(h.kind, h.earlier) for h in found] == expected
    assert len(t.history(B)) == 1
    for i in range(1000):     # many readers of one range: a later write conflicts with the latest one
        t.access(f"read{i}", reads=[(A, 0, 32)])
    assert len(t.history(A)) == 1
    (hazard,) = t.access("writer", writes=[(A, 0, 32)])
    assert hazard.kind == "write-after-read" and hazard.earlier == "operation 11000 (read999)"


def test_disjoint_writers_of_one_buffer_each_keep_their_access_and_are_found_by_their_bytes():
    """5,000 dispatches each writing its own 256 bytes of one buffer, no barrier: none conflicts, all are kept
    (oldest first), and a later read of one part names exactly that part's writer; a write over the whole
    buffer then conflicts with every one of them, oldest first."""
    t = HazardTracker()
    for i in range(5000):
        assert t.access(f"w{i}", reads=[(A, 0, 16)], writes=[(B, 256 * i, 256)]) == []
    assert [a[0] for a in t.history(B)][:2] == ["operation 1 (w0)", "operation 2 (w1)"]
    assert len(t.history(B)) == 5000
    (hazard,) = t.access("r", reads=[(B, 256 * 1234 + 10, 4)])
    assert (hazard.kind, hazard.earlier, hazard.start, hazard.end) == (
        "read-after-write", "operation 1235 (w1234)", 256 * 1234 + 10, 256 * 1234 + 14)
    found = t.access("all", writes=[(B, 0, 256 * 5000)])
    assert [h.earlier for h in found[:2]] == ["operation 1 (w0)", "operation 2 (w1)"] and len(found) == 5001
    assert t.history(B) == (("operation 5002 (all)", 0, 256 * 5000, True, False),)
