"""Resource states as the D3D12 debug layer tracks them (emulator/d3d12/command_list.py, resource.py).

Per command list: each transition's StateAfter is the state the list assumes from then on; a later transition
whose StateBefore differs is reported at ResourceBarrier as the real layer words it (#527
RESOURCE_BARRIER_BEFORE_AFTER_MISMATCH, "... specified in the previous call to ResourceBarrier"). Per queue, at
execution: a buffer in COMMON is promoted at its first use, every buffer an ExecuteCommandLists call touched
decays to COMMON when it ends, and a transition that finds another state removes the device (#527 under the layer).
"""
import pytest

from dmlemu.d3d12 import *  # noqa: F401,F403
from dmlemu.d3d12.messages import D3D12DebugBreak
from dmlemu.errors import DXGI_ERROR_INVALID_CALL, S_OK
from mirror_rig import MirrorRig, removal

T = CD3DX12_RESOURCE_BARRIER.Transition
COMMON, COPY_DEST, COPY_SOURCE, UAV = (D3D12_RESOURCE_STATE_COMMON, D3D12_RESOURCE_STATE_COPY_DEST,
                                        D3D12_RESOURCE_STATE_COPY_SOURCE, D3D12_RESOURCE_STATE_UNORDERED_ACCESS)


def rig(debug=True, break_on_error=False):
    r = MirrorRig(heap_slots=0, d3d12_debug=debug)
    queue = r.device.QueryInterface(IID_ID3D12InfoQueue) if debug else None
    if debug:
        queue.SetBreakOnSeverity(D3D12_MESSAGE_SEVERITY_ERROR, break_on_error)
        queue.SetMuteDebugOutput(True)
    return r, queue


def messages(queue):
    return [queue.GetMessage(i, D3D12_MESSAGE(), queue.GetMessage(i, None, None))
            for i in range(queue.GetNumStoredMessages())]


MISMATCH = ("ResourceBarrier: Before state (0x8: D3D12_RESOURCE_STATE_UNORDERED_ACCESS) of resource (buffer #1) "
            "(subresource: 0) specified by transition barrier pBarriers[0] does not match with the state (0x400: "
            "D3D12_RESOURCE_STATE_COPY_DEST) specified in the previous call to ResourceBarrier on command list #1; a "
            "transition's StateBefore must be the state the list's previous transition of the resource left it in.")


def test_a_mismatched_transition_in_one_list_is_reported_at_the_call_with_message_527():
    r, queue = rig()
    b = r.buffer(256)
    r.list.ResourceBarrier([T(b, COMMON, COPY_DEST)])
    r.list.ResourceBarrier([T(b, UAV, COPY_SOURCE)])
    [message] = messages(queue)
    assert (message.ID, message.Category, message.Severity) == (
        D3D12_MESSAGE_ID_RESOURCE_BARRIER_BEFORE_AFTER_MISMATCH, D3D12_MESSAGE_CATEGORY_RESOURCE_MANIPULATION,
        D3D12_MESSAGE_SEVERITY_ERROR)
    assert message.pDescription == MISMATCH
    # The barrier was recorded: the queue finds the mismatch again when it executes and removes the device.
    r.list.Close()
    r.queue.ExecuteCommandLists([r.list])
    assert removal(r.device) == (DXGI_ERROR_INVALID_CALL, (
        "ExecuteCommandLists: ResourceBarrier: barrier 0 gives StateBefore D3D12_RESOURCE_STATE_UNORDERED_ACCESS for "
        "buffer #1, but at this point of the queue it is in D3D12_RESOURCE_STATE_COPY_DEST. (in command list #1 on "
        "command queue #1)"))
    assert [int(m.ID) for m in messages(queue)] == [527, 527]


def test_with_break_on_errors_the_call_raises():
    r, queue = rig(break_on_error=True)
    b = r.buffer(256)
    r.list.ResourceBarrier([T(b, COMMON, COPY_DEST)])
    with pytest.raises(D3D12DebugBreak) as raised:
        r.list.ResourceBarrier([T(b, UAV, COPY_SOURCE)])
    assert raised.value.message == MISMATCH and raised.value.id == 527


def test_barriers_of_one_call_chain_and_a_split_barrier_changes_the_state_at_its_end():
    r, queue = rig()
    b = r.buffer(256)
    r.list.ResourceBarrier([T(b, COMMON, COPY_DEST), T(b, COPY_DEST, UAV)])
    begin = T(b, UAV, COPY_SOURCE)
    begin.Flags = D3D12_RESOURCE_BARRIER_FLAG_BEGIN_ONLY
    end = T(b, UAV, COPY_SOURCE)
    end.Flags = D3D12_RESOURCE_BARRIER_FLAG_END_ONLY
    r.list.ResourceBarrier([begin])
    r.list.ResourceBarrier([end])
    r.list.ResourceBarrier([T(b, COPY_SOURCE, COMMON)])
    r.execute()
    assert messages(queue) == [] and removal(r.device) == (S_OK, "")
    r.list.ResourceBarrier([T(b, COMMON, UAV), T(b, COPY_DEST, COMMON)])     # the second misses the first
    assert [m.pDescription.split(" specified by transition barrier ")[1][:14] for m in messages(queue)] == [
        "pBarriers[1] d"]


def test_reset_forgets_the_lists_states_and_buffers_decay_to_common_between_submissions():
    """D3D12's buffer rules: after ExecuteCommandLists a buffer is in COMMON again, and a transition (or access)
    finding it in COMMON promotes it; a new recording assumes nothing."""
    r, queue = rig()
    b = r.buffer(256)
    r.list.ResourceBarrier([T(b, COMMON, UAV)])
    r.execute()                                  # resets the list: b decays to COMMON on the queue
    r.list.ResourceBarrier([T(b, COPY_DEST, COPY_SOURCE)])   # promoted from COMMON to COPY_DEST, then moved
    r.execute()
    assert messages(queue) == [] and removal(r.device) == (S_OK, "")


def test_states_carry_across_the_lists_of_one_execute_command_lists_call():
    r, queue = rig()
    b = r.buffer(256)
    second_allocator = r.device.CreateCommandAllocator(D3D12_COMMAND_LIST_TYPE_DIRECT)
    second = r.device.CreateCommandList(0, D3D12_COMMAND_LIST_TYPE_DIRECT, second_allocator, None)
    r.list.ResourceBarrier([T(b, COMMON, UAV)])
    second.ResourceBarrier([T(b, COPY_DEST, COPY_SOURCE)])   # another list: nothing to compare at record time
    assert messages(queue) == []
    r.list.Close()
    second.Close()
    r.queue.ExecuteCommandLists([r.list, second])
    assert removal(r.device)[1].startswith(
        "ExecuteCommandLists: ResourceBarrier: barrier 0 gives StateBefore D3D12_RESOURCE_STATE_COPY_DEST for buffer "
        "#1, but at this point of the queue it is in D3D12_RESOURCE_STATE_UNORDERED_ACCESS.")
    assert [int(m.ID) for m in messages(queue)] == [527]


def test_without_the_debug_layer_nothing_is_reported_while_recording():
    r, _ = rig(debug=False)
    b = r.buffer(256)
    r.list.ResourceBarrier([T(b, COMMON, COPY_DEST)])
    r.list.ResourceBarrier([T(b, UAV, COPY_SOURCE)])
    r.list.Close()                                # the list is not in an error state
    r.queue.ExecuteCommandLists([r.list])
    assert removal(r.device)[0] == DXGI_ERROR_INVALID_CALL
