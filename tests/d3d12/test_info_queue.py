"""ID3D12InfoQueue / ID3D12InfoQueue1: the debug layer's messages stored, filtered, limited, retrieved with C's
two calls, broken on (D3D12DebugBreak at the offending call), called back and printed; D3D12's and DirectML's
messages alike, with d3d12sdklayers.h's categories, severities and IDs."""
import os
import uuid

import numpy as np
import pytest

from dmlemu import HResultError
from dmlemu.d3d12 import *  # noqa: F401,F403
from dmlemu.d3d12 import debug as debug_module, messages
from dmlemu.d3d12.info_queue import MAX_FILTER_STACK
from dmlemu.directml import inspect
from dmlemu.errors import DXGI_ERROR_INVALID_CALL, E_FAIL, E_INVALIDARG, E_NOINTERFACE, E_OUTOFMEMORY, S_OK
from dmlemu.presets import TEACHING
from mirror_rig import ClipRig, MirrorRig, buffer_binding

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ERROR, WARNING, INFO = D3D12_MESSAGE_SEVERITY_ERROR, D3D12_MESSAGE_SEVERITY_WARNING, D3D12_MESSAGE_SEVERITY_INFO
COPY_PAST_END = "CopyBufferRegion: DstOffset 8 + NumBytes 16 = 24 passes the end of buffer #2, which is 16 bytes."


def debug_rig():
    return MirrorRig(TEACHING, d3d12_debug=True)


def queue_of(rig):
    return rig.device.QueryInterface(IID_ID3D12InfoQueue1)


def copy_past_the_end(rig):
    src, dst = rig.buffer(16, D3D12_HEAP_TYPE_UPLOAD), rig.buffer(16)
    rig.list.CopyBufferRegion(dst, 8, src, 0, 16)


def stored(queue):
    """Every message the retrieval filter allows, read with GetMessage's two calls."""
    out = []
    for i in range(queue.GetNumStoredMessagesAllowedByRetrievalFilter()):
        size = queue.GetMessage(i, None, None)
        m = queue.GetMessage(i, D3D12_MESSAGE(), size)
        out.append((m.Category, m.Severity, m.ID, m.pDescription))
    return out


def invalid_arg(call, *args):
    with pytest.raises(HResultError) as info:
        call(*args)
    assert info.value.hresult == E_INVALIDARG and not isinstance(info.value, D3D12DebugBreak)
    return info.value.message


# ---- reaching the queue --------------------------------------------------------------------------------
def test_the_info_queue_exists_only_with_the_debug_layer():
    rig = MirrorRig(TEACHING, d3d12_debug=False)
    for iid in (IID_ID3D12InfoQueue, IID_ID3D12InfoQueue1):
        with pytest.raises(HResultError) as info:
            rig.device.QueryInterface(iid)
        assert info.value.hresult == E_NOINTERFACE
        assert info.value.message == (
            f"QueryInterface: riid {iid} is an info queue interface, which {inspect(rig.device).label} has only "
            f"with the debug layer on: call D3D12GetDebugInterface().EnableDebugLayer() before D3D12CreateDevice.")
    rig = debug_rig()
    queue = rig.device.QueryInterface(IID_ID3D12InfoQueue)
    assert queue is rig.device.QueryInterface(str(IID_ID3D12InfoQueue1)) is queue.QueryInterface(IID_ID3D12InfoQueue1)
    assert isinstance(queue, ID3D12InfoQueue) and isinstance(queue, ID3D12InfoQueue1)
    assert rig.device.QueryInterface(IID_ID3D12Device) is rig.device


def test_the_debug_layer_keyword_sets_one_device_whatever_the_process_wide_switch(monkeypatch):
    monkeypatch.setattr(debug_module, "_enabled", True)          # as after EnableDebugLayer, for this test only
    assert inspect(D3D12CreateDevice(TEACHING, D3D_FEATURE_LEVEL_11_0)).debug_layer is True
    off = D3D12CreateDevice(TEACHING, D3D_FEATURE_LEVEL_11_0, debug_layer=False)
    assert inspect(off).debug_layer is False
    with pytest.raises(HResultError) as info:
        off.QueryInterface(IID_ID3D12InfoQueue)
    assert info.value.hresult == E_NOINTERFACE
    monkeypatch.setattr(debug_module, "_enabled", False)
    on = D3D12CreateDevice(TEACHING, D3D_FEATURE_LEVEL_11_0, debug_layer=True)
    assert isinstance(on.QueryInterface(IID_ID3D12InfoQueue), ID3D12InfoQueue)
    for value in (1, "yes", None.__class__):
        with pytest.raises(HResultError) as info:
            D3D12CreateDevice(TEACHING, D3D_FEATURE_LEVEL_11_0, debug_layer=value)
        assert info.value.hresult == E_INVALIDARG
        assert info.value.message.startswith("D3D12CreateDevice: debug_layer is ")
        assert info.value.message.endswith("; it must be True, False or None (None: the process-wide switch of "
                                           "EnableDebugLayer).")


def test_the_header_values_are_mirrored():
    assert (IID_ID3D12InfoQueue, IID_ID3D12InfoQueue1) == (
        uuid.UUID("0742a90b-c387-483f-b946-30a7e4e61458"), uuid.UUID("2852dd88-b484-4c0c-b6b1-67168500e600"))
    assert (D3D12_MESSAGE_CATEGORY_APPLICATION_DEFINED, D3D12_MESSAGE_CATEGORY_EXECUTION,
            D3D12_MESSAGE_CATEGORY_SHADER) == (0, 9, 10)
    assert (D3D12_MESSAGE_SEVERITY_CORRUPTION, D3D12_MESSAGE_SEVERITY_MESSAGE) == (0, 4)
    assert (D3D12_MESSAGE_ID_STRING_FROM_APPLICATION, D3D12_MESSAGE_ID_RESOURCE_UNMAP_NOTMAPPED,
            D3D12_MESSAGE_ID_RESOURCE_BARRIER_BEFORE_AFTER_MISMATCH, D3D12_MESSAGE_ID_EXECUTECOMMANDLISTS_FAILEDCOMMANDLIST,
            D3D12_MESSAGE_ID_COPYBUFFERREGION_DSTRANGEOUTOFBOUNDS, D3D12_MESSAGE_ID_RESOLVEQUERYDATA_INVALID_QUERYHEAP) == (
        1, 310, 527, 838, 841, 1444)
    assert D3D12_MESSAGE_CALLBACK_IGNORE_FILTERS == 1 and D3D12_INFO_QUEUE_DEFAULT_MESSAGE_COUNT_LIMIT == 1024


# ---- D3D12 messages: stored, printed, broken on --------------------------------------------------------
def test_a_misuse_breaks_at_the_call_and_is_stored_with_its_id(capsys):
    rig = debug_rig()
    queue = queue_of(rig)
    with pytest.raises(D3D12DebugBreak) as info:
        copy_past_the_end(rig)
    error = info.value
    assert isinstance(error, HResultError) and error.hresult == E_INVALIDARG and error.message == COPY_PAST_END
    assert (error.category, error.severity, error.id) == (
        D3D12_MESSAGE_CATEGORY_RESOURCE_MANIPULATION, ERROR, D3D12_MESSAGE_ID_COPYBUFFERREGION_DSTRANGEOUTOFBOUNDS)
    assert stored(queue) == [(D3D12_MESSAGE_CATEGORY_RESOURCE_MANIPULATION, ERROR,
                              D3D12_MESSAGE_ID_COPYBUFFERREGION_DSTRANGEOUTOFBOUNDS, COPY_PAST_END)]
    assert capsys.readouterr().err == (f"D3D12 ERROR: {COPY_PAST_END} [ RESOURCE_MANIPULATION ERROR #841: "
                                       f"COPYBUFFERREGION_DSTRANGEOUTOFBOUNDS]\n")
    assert (queue.GetNumMessagesAllowedByStorageFilter(), queue.GetNumMessagesDeniedByStorageFilter()) == (1, 0)


def test_without_the_break_on_errors_the_call_returns_and_the_misuse_is_handled_as_without_the_layer(capsys):
    rig = debug_rig()
    queue = queue_of(rig)
    assert (queue.GetBreakOnSeverity(D3D12_MESSAGE_SEVERITY_CORRUPTION), queue.GetBreakOnSeverity(ERROR),
            queue.GetBreakOnSeverity(WARNING)) == (1, 1, 0)
    queue.SetBreakOnSeverity(ERROR, False)
    queue.SetMuteDebugOutput(True)
    copy_past_the_end(rig)                                    # returns: the list is in error
    with pytest.raises(HResultError) as info:
        rig.list.Close()
    assert info.value.message == f"Close: command list #1 recorded an invalid call, so it cannot be executed: {COPY_PAST_END}"
    assert [m[3] for m in stored(queue)] == [COPY_PAST_END, info.value.message]   # Close's failure is stored too
    assert capsys.readouterr().err == "" and queue.GetMuteDebugOutput() == 1


def test_a_failing_hresult_method_is_stored_once_and_fails_with_its_own_error():
    rig = debug_rig()
    queue = queue_of(rig)
    with pytest.raises(HResultError) as info:
        rig.device.CreateFence(0, 0x80)
    assert type(info.value) is HResultError
    assert stored(queue) == [(D3D12_MESSAGE_CATEGORY_STATE_CREATION, ERROR, D3D12_MESSAGE_ID_CREATE_FENCE_INVALID_FLAGS,
                              info.value.message)]


def test_an_unmap_without_map_is_reported_with_its_header_id():
    rig = debug_rig()
    queue = queue_of(rig)
    queue.SetBreakOnSeverity(ERROR, False)
    queue.SetMuteDebugOutput(True)
    rig.buffer(16, D3D12_HEAP_TYPE_UPLOAD).Unmap(0, None)
    [(category, severity, message_id, text)] = stored(queue)
    assert (category, message_id) == (D3D12_MESSAGE_CATEGORY_RESOURCE_MANIPULATION,
                                      D3D12_MESSAGE_ID_RESOURCE_UNMAP_NOTMAPPED)
    assert text == "Unmap: buffer #1 is not mapped; each Unmap must follow a Map."


def test_an_execution_error_is_the_failing_commands_message_and_breaks_from_execute_command_lists():
    rig = debug_rig()
    queue = queue_of(rig)
    queue.SetMuteDebugOutput(True)
    buffer = rig.buffer(16)
    rig.list.CopyBufferRegion(buffer, 0, rig.buffer(16, D3D12_HEAP_TYPE_UPLOAD), 0, 16)
    rig.list.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.Transition(
        buffer, D3D12_RESOURCE_STATE_COPY_SOURCE, D3D12_RESOURCE_STATE_UNORDERED_ACCESS)])
    rig.list.Close()
    with pytest.raises(D3D12DebugBreak) as info:
        rig.queue.ExecuteCommandLists([rig.list])
    assert info.value.hresult == DXGI_ERROR_INVALID_CALL
    assert info.value.id == D3D12_MESSAGE_ID_RESOURCE_BARRIER_BEFORE_AFTER_MISMATCH
    assert stored(queue)[0][:3] == (D3D12_MESSAGE_CATEGORY_RESOURCE_MANIPULATION, ERROR,
                                    D3D12_MESSAGE_ID_RESOURCE_BARRIER_BEFORE_AFTER_MISMATCH)
    assert rig.device.GetDeviceRemovedReason() == DXGI_ERROR_INVALID_CALL
    assert queue.GetNumStoredMessages() == 1      # the queue answers after removal


def _two_clips_without_a_barrier(rig):
    """CLIP a -> b, then CLIP b -> c with no UAV barrier between them (tests/d3d12/test_hazards.py's case)."""
    rig.initialize_clip()
    rig.execute()
    c = rig.buffer(64)
    for first, src, dst in ((0, rig.a, rig.b), (2, rig.b, c)):
        table = rig.table(rig.compiled, first=first, size=2)
        table.BindInputs([buffer_binding(src, 0, 64)])
        table.BindOutputs([buffer_binding(dst, 0, 64)])
        rig.recorder.RecordDispatch(rig.list, rig.compiled, table)
    rig.list.Close()


def test_a_hazard_is_stored_at_execution_and_without_the_break_nothing_is_raised():
    rig = ClipRig(d3d12_debug=True)
    queue = queue_of(rig)
    queue.SetMuteDebugOutput(True)
    queue.SetBreakOnSeverity(ERROR, False)
    _two_clips_without_a_barrier(rig)
    rig.queue.ExecuteCommandLists([rig.list])
    [(category, severity, message_id, text)] = stored(queue)
    assert (category, severity, message_id) == (D3D12_MESSAGE_CATEGORY_EXECUTION, ERROR, D3D12_MESSAGE_ID_UNKNOWN)
    assert text.startswith("ExecuteCommandLists: read-after-write hazard on buffer #2")
    assert rig.device.GetDeviceRemovedReason() == S_OK


# ---- DirectML's messages --------------------------------------------------------------------------------
def test_directml_messages_go_to_the_d3d12_info_queue_and_break_only_when_the_host_asks(capsys):
    rig = ClipRig(d3d12_debug=True, dml_debug=True, mute_debug_output=False)
    queue = queue_of(rig)
    table = rig.bound_table()
    table.BindInputs([None, None, None])        # removes the DML device; no break by default
    text = ("IDMLBindingTable.BindInputs: BindInputs got 3 bindings; DML_OPERATOR_ELEMENT_WISE_CLIP has 1 input "
            "(InputTensor), and the count must match exactly. The DirectML device is now removed (E_INVALIDARG).")
    assert stored(queue) == [(D3D12_MESSAGE_CATEGORY_STATE_SETTING, ERROR, D3D12_MESSAGE_ID_UNKNOWN, text)]
    assert capsys.readouterr().err == f"[DIRECTML ERROR]: {text}\n"
    assert rig.dml.GetDeviceRemovedReason() == E_INVALIDARG

    rig = ClipRig(d3d12_debug=True, dml_debug=True, mute_debug_output=False)
    queue = queue_of(rig)
    queue.SetMuteDebugOutput(True)
    queue.SetBreakOnSeverity(ERROR, True)       # the host's own setting applies to DirectML's messages too
    with pytest.raises(D3D12DebugBreak) as info:
        rig.bound_table().BindInputs([None, None, None])
    assert info.value.message == text and info.value.category == D3D12_MESSAGE_CATEGORY_STATE_SETTING


def test_a_muted_directml_device_sends_nothing_to_the_queue():
    rig = ClipRig(d3d12_debug=True, dml_debug=True, mute_debug_output=True)
    queue = queue_of(rig)
    rig.bound_table().BindInputs([None, None, None])
    assert queue.GetNumStoredMessages() == 0 and len(inspect(rig.dml).debug_messages) == 1


# ---- filters, limits, application messages, callbacks ---------------------------------------------------
def test_the_storage_filter_decides_what_is_stored_printed_and_broken_on(capsys):
    rig = debug_rig()
    queue = queue_of(rig)
    deny = D3D12_INFO_QUEUE_FILTER(DenyList=D3D12_INFO_QUEUE_FILTER_DESC(
        pIDList=[D3D12_MESSAGE_ID_COPYBUFFERREGION_DSTRANGEOUTOFBOUNDS]))
    queue.PushStorageFilter(deny)
    assert queue.GetStorageFilterStackSize() == 2
    copy_past_the_end(rig)                      # denied: not stored, not printed, no break
    assert (queue.GetNumStoredMessages(), queue.GetNumMessagesDeniedByStorageFilter()) == (0, 1)
    assert capsys.readouterr().err == ""
    size = queue.GetStorageFilter(None, None)
    assert size == 96 + 4
    got = queue.GetStorageFilter(D3D12_INFO_QUEUE_FILTER(), size)
    assert got.DenyList.pIDList == [D3D12_MESSAGE_ID_COPYBUFFERREGION_DSTRANGEOUTOFBOUNDS] and got.DenyList.NumIDs == 1
    assert got.AllowList.NumCategories == 0
    queue.PopStorageFilter()
    queue.PopStorageFilter()                    # the last filter stays
    assert queue.GetStorageFilterStackSize() == 1 and queue.GetStorageFilter() == 96


def test_retrieval_filters_and_the_filter_stack():
    rig = debug_rig()
    queue = queue_of(rig)
    queue.SetMuteDebugOutput(True)
    for severity, text in ((INFO, "one"), (WARNING, "two"), (INFO, "three")):
        queue.AddApplicationMessage(severity, text)
    queue.AddRetrievalFilterEntries(D3D12_INFO_QUEUE_FILTER(AllowList=D3D12_INFO_QUEUE_FILTER_DESC(
        pSeverityList=[INFO])))
    assert [m[3] for m in stored(queue)] == ["one", "three"]
    assert queue.GetNumStoredMessages() == 3
    queue.PushCopyOfRetrievalFilter()
    queue.AddRetrievalFilterEntries(D3D12_INFO_QUEUE_FILTER(DenyList=D3D12_INFO_QUEUE_FILTER_DESC(
        pCategoryList=[D3D12_MESSAGE_CATEGORY_APPLICATION_DEFINED])))
    assert queue.GetNumStoredMessagesAllowedByRetrievalFilter() == 0
    queue.PushEmptyRetrievalFilter()
    assert queue.GetNumStoredMessagesAllowedByRetrievalFilter() == 3 and queue.GetRetrievalFilterStackSize() == 3
    queue.PopRetrievalFilter()
    queue.PopRetrievalFilter()
    assert [m[3] for m in stored(queue)] == ["one", "three"]
    queue.ClearRetrievalFilter()
    assert [m[:3] for m in stored(queue)][1] == (D3D12_MESSAGE_CATEGORY_APPLICATION_DEFINED, WARNING,
                                                 D3D12_MESSAGE_ID_STRING_FROM_APPLICATION)
    queue.ClearStoredMessages()
    assert queue.GetNumStoredMessages() == 0 and queue.GetNumMessagesAllowedByStorageFilter() == 3


def test_the_message_count_limit_discards_the_oldest():
    queue = queue_of(debug_rig())
    queue.SetMuteDebugOutput(True)
    assert queue.GetMessageCountLimit() == 1024
    queue.SetMessageCountLimit(2)
    for i in range(5):
        queue.AddMessage(D3D12_MESSAGE_CATEGORY_MISCELLANEOUS, INFO, 4000 + i, f"message {i}")
    assert [m[2:] for m in stored(queue)] == [(4003, "message 3"), (4004, "message 4")]
    assert queue.GetNumMessagesDiscardedByMessageCountLimit() == 3
    queue.SetMessageCountLimit(1)
    assert queue.GetNumStoredMessages() == 1 and queue.GetNumMessagesDiscardedByMessageCountLimit() == 4
    queue.SetMessageCountLimit(2 ** 64 - 1)     # no limit
    assert queue.GetMessageCountLimit() == 2 ** 64 - 1


def test_get_message_needs_the_length_of_the_first_call():
    queue = queue_of(debug_rig())
    queue.SetMuteDebugOutput(True)
    queue.AddApplicationMessage(INFO, "héllo")
    size = queue.GetMessage(0, None, None)
    assert size == 32 + len("héllo".encode()) + 1
    message = queue.GetMessage(0, D3D12_MESSAGE(), size)
    assert (message.pDescription, message.DescriptionByteLength) == ("héllo", 7)
    assert invalid_arg(queue.GetMessage, 0, D3D12_MESSAGE(), size - 1) == (
        f"GetMessage: pMessageByteLength is {size - 1}, but message 0 needs {size} bytes; call GetMessage with "
        f"pMessage None first to get its length.")
    assert invalid_arg(queue.GetMessage, 1, None, None) == (
        "GetMessage: MessageIndex is 1, but the retrieval filter allows 1 stored message; the index must be below that.")


def test_breaks_on_category_and_id_and_application_messages():
    queue = queue_of(debug_rig())
    queue.SetMuteDebugOutput(True)
    queue.AddApplicationMessage(ERROR, "no break: the default break is for the runtime's own messages")
    queue.SetBreakOnID(4242, True)
    assert (queue.GetBreakOnID(4242), queue.GetBreakOnID(4243)) == (1, 0)
    with pytest.raises(D3D12DebugBreak) as info:
        queue.AddMessage(D3D12_MESSAGE_CATEGORY_SHADER, INFO, 4242, "stop here")
    assert (info.value.hresult, info.value.message, info.value.id) == (E_FAIL, "stop here", 4242)
    queue.SetBreakOnCategory(D3D12_MESSAGE_CATEGORY_APPLICATION_DEFINED, True)
    assert queue.GetBreakOnCategory(D3D12_MESSAGE_CATEGORY_APPLICATION_DEFINED) == 1
    with pytest.raises(D3D12DebugBreak):
        queue.AddApplicationMessage(INFO, "and here")
    assert queue.GetNumStoredMessages() == 3      # broken on after being stored


def test_message_callbacks_see_allowed_messages_or_every_one():
    rig = debug_rig()
    queue = queue_of(rig)
    queue.SetMuteDebugOutput(True)
    queue.SetBreakOnSeverity(ERROR, False)
    seen, everything = [], []
    cookie = queue.RegisterMessageCallback(lambda *args: seen.append(args), D3D12_MESSAGE_CALLBACK_FLAG_NONE, "ctx")
    other = queue.RegisterMessageCallback(lambda *args: everything.append(args[2]), D3D12_MESSAGE_CALLBACK_IGNORE_FILTERS)
    assert other == cookie + 1
    queue.AddStorageFilterEntries(D3D12_INFO_QUEUE_FILTER(DenyList=D3D12_INFO_QUEUE_FILTER_DESC(
        pSeverityList=[INFO])))
    queue.AddApplicationMessage(INFO, "denied")
    copy_past_the_end(rig)
    assert seen == [(D3D12_MESSAGE_CATEGORY_RESOURCE_MANIPULATION, ERROR,
                     D3D12_MESSAGE_ID_COPYBUFFERREGION_DSTRANGEOUTOFBOUNDS, COPY_PAST_END, "ctx")]
    assert everything == [D3D12_MESSAGE_ID_STRING_FROM_APPLICATION, D3D12_MESSAGE_ID_COPYBUFFERREGION_DSTRANGEOUTOFBOUNDS]
    queue.UnregisterMessageCallback(cookie)
    queue.AddApplicationMessage(WARNING, "after")
    assert len(seen) == 1 and len(everything) == 3
    assert invalid_arg(queue.UnregisterMessageCallback, cookie) == (
        f"UnregisterMessageCallback: CallbackCookie is {cookie}, which no registered callback has (registered: "
        f"[{other}]).")


# ---- hostile arguments ------------------------------------------------------------------------------------
@pytest.mark.parametrize("call, sentence", [
    (lambda q: q.SetMessageCountLimit(-1),
     "SetMessageCountLimit: MessageCountLimit is -1; it must be an integer from 0 to 18446744073709551615."),
    (lambda q: q.SetMessageCountLimit(None),
     "SetMessageCountLimit: MessageCountLimit is None; it must be an integer from 0 to 18446744073709551615."),
    (lambda q: q.SetMessageCountLimit(2 ** 64),
     "SetMessageCountLimit: MessageCountLimit is 18446744073709551616; it must be an integer from 0 to "
     "18446744073709551615."),
    (lambda q: q.GetMessage("0"),
     "GetMessage: MessageIndex is '0'; it must be an integer from 0 to 18446744073709551615."),
    (lambda q: q.AddStorageFilterEntries(None),
     "AddStorageFilterEntries: pFilter is None; it must be a D3D12_INFO_QUEUE_FILTER."),
    (lambda q: q.PushStorageFilter(D3D12_INFO_QUEUE_FILTER(DenyList=None)),
     "PushStorageFilter: pFilter.DenyList is None; it must be a D3D12_INFO_QUEUE_FILTER_DESC."),
    (lambda q: q.PushRetrievalFilter(D3D12_INFO_QUEUE_FILTER(AllowList=D3D12_INFO_QUEUE_FILTER_DESC(
        NumIDs=10 ** 12, pIDList=[1]))),
     "PushRetrievalFilter: pFilter.AllowList.NumIDs is 1000000000000; it must be an integer from 0 to 4294967295."),
    (lambda q: q.PushRetrievalFilter(D3D12_INFO_QUEUE_FILTER(AllowList=D3D12_INFO_QUEUE_FILTER_DESC(
        NumIDs=3, pIDList=[1]))),
     "PushRetrievalFilter: pFilter.AllowList.NumIDs is 3 but pIDList has 1 entries; they must agree."),
    (lambda q: q.AddRetrievalFilterEntries(D3D12_INFO_QUEUE_FILTER(AllowList=D3D12_INFO_QUEUE_FILTER_DESC(
        pCategoryList=[99]))),
     "AddRetrievalFilterEntries: pFilter.AllowList.pCategoryList[0] is 99, which is not a D3D12_MESSAGE_CATEGORY "
     "value."),
    (lambda q: q.AddStorageFilterEntries(D3D12_INFO_QUEUE_FILTER(DenyList=D3D12_INFO_QUEUE_FILTER_DESC(
        pSeverityList="ERROR"))),
     "AddStorageFilterEntries: pFilter.DenyList.pSeverityList is 'ERROR'; it must be a sequence of values or None."),
    (lambda q: q.GetStorageFilter(D3D12_INFO_QUEUE_FILTER(), 5),
     "GetStorageFilter: pFilterByteLength is 5, but the filter needs 96 bytes; call GetStorageFilter with pFilter "
     "None first to get its length."),
    (lambda q: q.GetRetrievalFilter("filter", 500),
     "GetRetrievalFilter: pFilter is 'filter'; it must be a D3D12_INFO_QUEUE_FILTER or None (to ask for the byte "
     "length first)."),
    (lambda q: q.AddApplicationMessage(ERROR, None),
     "AddApplicationMessage: pDescription is None; it must be a string."),
    (lambda q: q.AddMessage(D3D12_MESSAGE_CATEGORY_SHADER, 9, 1, "x"),
     "AddMessage: Severity is 9, which is not a D3D12_MESSAGE_SEVERITY value."),
    (lambda q: q.AddMessage(D3D12_MESSAGE_CATEGORY_SHADER, ERROR, -5, "x"),
     "AddMessage: ID is -5; it must be an integer from 0 to 4294967295."),
    (lambda q: q.SetBreakOnSeverity(ERROR, "yes"),
     "SetBreakOnSeverity: bEnable is 'yes'; it must be a BOOL (True/False or an integer)."),
    (lambda q: q.SetBreakOnCategory(None, True),
     "SetBreakOnCategory: Category is None; it must be a D3D12_MESSAGE_CATEGORY value."),
    (lambda q: q.SetMuteDebugOutput(None),
     "SetMuteDebugOutput: bMute is None; it must be a BOOL (True/False or an integer)."),
    (lambda q: q.RegisterMessageCallback(None, 0),
     "RegisterMessageCallback: CallbackFunc is None; it must be a callable taking (Category, Severity, ID, "
     "pDescription, pContext)."),
    (lambda q: q.RegisterMessageCallback(print, 8),
     "RegisterMessageCallback: CallbackFilterFlags is 0x8; bits 0x8 are not D3D12_MESSAGE_CALLBACK_FLAGS flags."),
    (lambda q: q.UnregisterMessageCallback(2 ** 40),
     "UnregisterMessageCallback: CallbackCookie is 1099511627776; it must be an integer from 0 to 4294967295."),
    (lambda q: q.QueryInterface("nope"), "QueryInterface: riid is 'nope'; it must be a GUID (uuid.UUID or its string)."),
])
def test_hostile_arguments_are_sentences(call, sentence):
    assert invalid_arg(call, queue_of(debug_rig())) == sentence


def test_a_filter_stack_is_bounded():
    queue = queue_of(debug_rig())
    for _ in range(MAX_FILTER_STACK - 1):
        queue.PushEmptyStorageFilter()
    with pytest.raises(HResultError) as info:
        queue.PushCopyOfStorageFilter()
    assert info.value.hresult == E_OUTOFMEMORY
    assert info.value.message == (f"PushCopyOfStorageFilter: the filter stack already holds {MAX_FILTER_STACK} "
                                  f"filters, the most it holds; pop one first.")


def test_an_interface_the_queue_lacks_is_e_nointerface():
    queue = queue_of(debug_rig())
    with pytest.raises(HResultError) as info:
        queue.QueryInterface(IID_ID3D12Device)
    assert info.value.hresult == E_NOINTERFACE


# ---- the table of IDs and its documentation ---------------------------------------------------------------
def test_every_id_of_the_table_is_a_mirrored_header_value_and_documented():
    for method, (category, message_id, phrases) in messages._METHODS.items():
        assert isinstance(message_id, D3D12_MESSAGE_ID) and isinstance(category, D3D12_MESSAGE_CATEGORY)
        assert all(isinstance(exact, D3D12_MESSAGE_ID) for _, exact in phrases)
    with open(os.path.join(ROOT, "docs", "INFO_QUEUE.md"), encoding="utf-8") as f:
        assert messages.id_table_markdown() in f.read(), "docs/INFO_QUEUE.md's table is stale"


def test_the_device_works_unchanged_for_a_host_that_never_reads_the_queue():
    rig = ClipRig(d3d12_debug=True)
    rig.initialize_clip()
    rig.execute()
    rig.recorder.RecordDispatch(rig.list, rig.compiled, rig.bound_table())
    rig.execute()
    assert queue_of(rig).GetNumStoredMessages() == 0
    assert np.all(np.isfinite(rig.read(rig.b).view(np.float32)))

