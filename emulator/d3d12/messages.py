"""The debug layer's messages: what d3d12sdklayers.h calls them, and the one function that reports them.

Every message the D3D12 debug layer or the DirectML debug layer produces goes through `report()`:

- with the D3D12 debug layer on, it goes to the device's ID3D12InfoQueue (info_queue.py): stored
  through the storage filter and the message count limit, handed to registered callbacks, printed
  to stderr (the debugger's output window of a Windows program) unless muted, and checked against
  the break settings;
- without it, a DirectML debug device's messages are printed to stderr ("[DIRECTML ERROR]: ...");
  the D3D12 runtime produces no messages at all without its debug layer.

A message has a category, a severity and an ID. `classify()` gives a D3D12 message its category and
a real D3D12_MESSAGE_ID from the sentence's first word, the C method that failed (the `_METHODS`
table, with phrases that pick a more exact ID); a method the table does not name, a message with no
counterpart in d3d12sdklayers.h (the hazard tracker's unordered accesses) and every DirectML message
carry D3D12_MESSAGE_ID_UNKNOWN (0): DirectML's own message IDs are not in any public header.
docs/INFO_QUEUE.md lists the table.

"Break": on Windows a message whose category, severity or ID has break set stops the program in
the debugger at the offending call. Here it raises `D3D12DebugBreak` (an HResultError, so the call
fails with the message's sentence) from the offending call; a message found while the GPU executes
(a hazard, DirectML's execution checks) is raised from ExecuteCommandLists once the work that can run
has run. A message of a call that fails with an HRESULT anyway is stored but does not break twice.

The enums and structs below are d3d12sdklayers.h's, with their C values; D3D12_MESSAGE_ID holds
the subset the emulator reports plus the first two (UNKNOWN, STRING_FROM_APPLICATION); the info
queue accepts any UINT as an ID, as C does.
"""
import sys

from dmlemu.com import c_enum, define_struct, Count
from dmlemu.errors import HResultError

__all__ = ["D3D12DebugBreak", "D3D12_INFO_QUEUE_DEFAULT_MESSAGE_COUNT_LIMIT"]

D3D12_INFO_QUEUE_DEFAULT_MESSAGE_COUNT_LIMIT = 1024

c_enum(globals(), "D3D12_MESSAGE_CATEGORY", "D3D12_MESSAGE_CATEGORY_", [
    ("APPLICATION_DEFINED", 0), ("MISCELLANEOUS", 1), ("INITIALIZATION", 2), ("CLEANUP", 3), ("COMPILATION", 4),
    ("STATE_CREATION", 5), ("STATE_SETTING", 6), ("STATE_GETTING", 7), ("RESOURCE_MANIPULATION", 8),
    ("EXECUTION", 9), ("SHADER", 10)])
c_enum(globals(), "D3D12_MESSAGE_SEVERITY", "D3D12_MESSAGE_SEVERITY_", [
    ("CORRUPTION", 0), ("ERROR", 1), ("WARNING", 2), ("INFO", 3), ("MESSAGE", 4)])
c_enum(globals(), "D3D12_MESSAGE_CALLBACK_FLAGS", "D3D12_MESSAGE_CALLBACK_", [
    ("FLAG_NONE", 0), ("IGNORE_FILTERS", 0x1)], flag=True)
# The subset of D3D12_MESSAGE_ID the emulator reports (values as in d3d12sdklayers.h).
c_enum(globals(), "D3D12_MESSAGE_ID", "D3D12_MESSAGE_ID_", [
    ("UNKNOWN", 0), ("STRING_FROM_APPLICATION", 1),
    ("CREATESHADERRESOURCEVIEW_INVALIDDESC", 27), ("CREATESHADERRESOURCEVIEW_INVALIDRESOURCE", 32),
    ("RESOURCE_UNMAP_NOTMAPPED", 310),
    ("CREATEUNORDEREDACCESSVIEW_INVALIDRESOURCE", 340), ("CREATEUNORDEREDACCESSVIEW_INVALIDDESC", 341),
    ("RESOURCE_BARRIER_INVALID_TYPE", 519), ("RESOURCE_BARRIER_NULL_POINTER", 520),
    ("RESOURCE_BARRIER_INVALID_SUBRESOURCE", 521), ("RESOURCE_BARRIER_MATCHING_STATES", 525),
    ("RESOURCE_BARRIER_INVALID_COMBINATION", 526), ("RESOURCE_BARRIER_BEFORE_AFTER_MISMATCH", 527),
    ("RESOURCE_BARRIER_INVALID_RESOURCE", 528), ("RESOURCE_BARRIER_INVALID_FLAGS", 530),
    ("INVALID_SUBRESOURCE_STATE", 538),
    ("COMMAND_ALLOCATOR_RESET", 541), ("COMMAND_ALLOCATOR_CANNOT_RESET", 543), ("COMMAND_LIST_OPEN", 544),
    ("COMMAND_LIST_CLOSED", 547), ("SET_DESCRIPTOR_HEAP_INVALID", 554),
    ("CREATE_COMMANDQUEUE", 557), ("CREATE_COMMANDALLOCATOR", 558), ("CREATE_PIPELINESTATE", 559),
    ("CREATE_COMMANDLIST12", 560), ("CREATE_RESOURCE", 562), ("CREATE_DESCRIPTORHEAP", 563),
    ("CREATE_ROOTSIGNATURE", 564), ("CREATE_HEAP", 566), ("CREATE_MONITOREDFENCE", 567), ("CREATE_QUERYHEAP", 568),
    ("CREATERESOURCE_INVALIDARG_RETURN", 602), ("CREATERESOURCE_INVALIDDESC", 604),
    ("CREATEHEAP_INVALIDARG_RETURN", 632), ("CREATEHEAP_OUTOFMEMORY_RETURN", 633),
    ("CREATE_DESCRIPTOR_HEAP_INVALID_DESC", 645), ("INVALID_DESCRIPTOR_HANDLE", 646),
    ("COPY_DESCRIPTORS_INVALID_RANGES", 653), ("CREATE_ROOT_SIGNATURE_DESERIALIZE_FAILED", 697),
    ("SET_DESCRIPTOR_TABLE_INVALID", 708), ("SET_ROOT_CONSTANT_INVALID", 709),
    ("SET_ROOT_CONSTANT_BUFFER_VIEW_INVALID", 710), ("SET_ROOT_SHADER_RESOURCE_VIEW_INVALID", 711),
    ("SET_ROOT_UNORDERED_ACCESS_VIEW_INVALID", 712),
    ("GETCOPYABLEFOOTPRINTS_INVALIDSUBRESOURCERANGE", 739), ("GETCOPYABLEFOOTPRINTS_INVALIDBASEOFFSET", 740),
    ("MAP_INVALIDSUBRESOURCE", 826), ("UNMAP_INVALIDSUBRESOURCE", 827), ("MAP_INVALIDRANGE", 828),
    ("UNMAP_INVALIDRANGE", 829), ("MAP_INVALIDARG_RETURN", 833),
    ("EXECUTECOMMANDLISTS_COMMANDLISTMISMATCH", 836), ("EXECUTECOMMANDLISTS_OPENCOMMANDLIST", 837),
    ("EXECUTECOMMANDLISTS_FAILEDCOMMANDLIST", 838),
    ("COPYBUFFERREGION_NULLDST", 839), ("COPYBUFFERREGION_DSTRANGEOUTOFBOUNDS", 841),
    ("COPYBUFFERREGION_NULLSRC", 842), ("COPYBUFFERREGION_SRCRANGEOUTOFBOUNDS", 844),
    ("COPYTEXTUREREGION_INVALIDDSTRESOURCE", 849), ("COPYTEXTUREREGION_INVALIDDSTSUBRESOURCE", 850),
    ("COPYTEXTUREREGION_INVALIDDSTOFFSET", 851), ("COPYTEXTUREREGION_INVALIDDSTROWPITCH", 855),
    ("COPYTEXTUREREGION_INVALIDDSTPLACEMENT", 856), ("COPYTEXTUREREGION_DSTREGIONOUTOFBOUNDS", 858),
    ("COPYTEXTUREREGION_INVALIDSRCRESOURCE", 862), ("COPYTEXTUREREGION_INVALIDSRCSUBRESOURCE", 863),
    ("COPYTEXTUREREGION_INVALIDSRCOFFSET", 864), ("COPYTEXTUREREGION_INVALIDSRCROWPITCH", 868),
    ("COPYTEXTUREREGION_INVALIDSRCPLACEMENT", 869), ("COPYTEXTUREREGION_INVALIDSRCBOX", 873),
    ("COPYTEXTUREREGION_FORMATMISMATCH", 874),
    ("CREATECOMPUTEPIPELINESTATE_CS_ROOT_SIGNATURE_MISMATCH", 882),
    ("WRITETOSUBRESOURCE_INVALIDHEAP", 889), ("WRITETOSUBRESOURCE_INVALIDRESOURCE", 890),
    ("WRITETOSUBRESOURCE_INVALIDBOX", 891), ("WRITETOSUBRESOURCE_INVALIDSUBRESOURCE", 892),
    ("READFROMSUBRESOURCE_INVALIDHEAP", 894), ("READFROMSUBRESOURCE_INVALIDRESOURCE", 895),
    ("READFROMSUBRESOURCE_INVALIDBOX", 896), ("READFROMSUBRESOURCE_INVALIDSUBRESOURCE", 897),
    ("COPY_ON_SAME_SUBRESOURCE", 998),
    ("CREATECOMPUTEPIPELINESTATE_MISSING_ROOT_SIGNATURE", 883),
    ("COPYRESOURCE_NULLDST", 943), ("COPYRESOURCE_INVALIDDSTRESOURCE", 944), ("COPYRESOURCE_NULLSRC", 945),
    ("COPYRESOURCE_INVALIDSRCRESOURCE", 946),
    ("COMMAND_LIST_DISPATCH_ROOT_SIGNATURE_NOT_SET", 952), ("COMMAND_LIST_DISPATCH_ROOT_SIGNATURE_MISMATCH", 953),
    ("RESOURCE_BARRIER_ZERO_BARRIERS", 954), ("COMMAND_LIST_DESCRIPTOR_TABLE_NOT_SET", 991),
    ("CREATE_FENCE_INVALID_FLAGS", 1007), ("COMMAND_LIST_PIPELINE_STATE_NOT_SET", 1045),
    ("FENCE_INVALIDOPERATION", 1078), ("CLEARUNORDEREDACCESSVIEW_INVALID_RESOURCE_PTR", 1215),
    ("EMPTY_DISPATCH", 1254), ("OVERSIZED_DISPATCH", 1296), ("CREATECOMMANDLIST_NULL_COMMANDALLOCATOR", 1313),
    ("RESOLVEQUERYDATA_INVALID_QUERYHEAP", 1444),
])

define_struct(globals(), "D3D12_MESSAGE", "One stored message: its category, severity, ID and text (GetMessage).", [
    ("Category", 0), ("Severity", 0), ("ID", 0), ("pDescription", ""), ("DescriptionByteLength", 0)])
define_struct(globals(), "D3D12_INFO_QUEUE_FILTER_DESC",
              "One side of a filter: the categories, severities and IDs it names (each a (count, array) pair).", [
                  ("NumCategories", Count("pCategoryList")), ("pCategoryList", None),
                  ("NumSeverities", Count("pSeverityList")), ("pSeverityList", None),
                  ("NumIDs", Count("pIDList")), ("pIDList", None)])
define_struct(globals(), "D3D12_INFO_QUEUE_FILTER",
              "A storage or retrieval filter: what is allowed (empty: everything) and what is denied.", [
                  ("AllowList", D3D12_INFO_QUEUE_FILTER_DESC), ("DenyList", D3D12_INFO_QUEUE_FILTER_DESC)])  # noqa: F821

_C = D3D12_MESSAGE_CATEGORY  # noqa: F821 (defined by c_enum)
_ID = D3D12_MESSAGE_ID       # noqa: F821


class D3D12DebugBreak(HResultError):
    """A debug-layer message the info queue breaks on (SetBreakOnSeverity/Category/ID): raised from the
    offending call. `.category`, `.severity` and `.id` are the message's; `.message` its sentence."""

    def __init__(self, hresult, message, category, severity, message_id):
        super().__init__(hresult, message)
        self.category, self.severity, self.id = category, severity, message_id
        self.reported = True     # already in the info queue: the HRESULT wrapper does not store it again


# ---- which message is which: the C method at the head of the sentence ---------------------------
def _row(category, default, *phrases):
    return category, _ID["D3D12_MESSAGE_ID_" + default], tuple((p, _ID["D3D12_MESSAGE_ID_" + i]) for p, i in phrases)


# method -> (category, ID, ((phrase, more exact ID), ...)); the first phrase found in the sentence wins.
_METHODS = {
    "CreateCommittedResource": _row(_C.D3D12_MESSAGE_CATEGORY_STATE_CREATION, "CREATERESOURCE_INVALIDDESC"),
    "CreatePlacedResource": _row(_C.D3D12_MESSAGE_CATEGORY_STATE_CREATION, "CREATERESOURCE_INVALIDDESC"),
    "CreateHeap": _row(_C.D3D12_MESSAGE_CATEGORY_STATE_CREATION, "CREATEHEAP_INVALIDARG_RETURN"),
    "CreateCommandQueue": _row(_C.D3D12_MESSAGE_CATEGORY_STATE_CREATION, "CREATE_COMMANDQUEUE"),
    "CreateCommandAllocator": _row(_C.D3D12_MESSAGE_CATEGORY_STATE_CREATION, "CREATE_COMMANDALLOCATOR"),
    "CreateCommandList": _row(_C.D3D12_MESSAGE_CATEGORY_STATE_CREATION, "CREATE_COMMANDLIST12",
                              ("pCommandAllocator is None", "CREATECOMMANDLIST_NULL_COMMANDALLOCATOR")),
    "CreateCommandList1": _row(_C.D3D12_MESSAGE_CATEGORY_STATE_CREATION, "CREATE_COMMANDLIST12"),
    "CreateDescriptorHeap": _row(_C.D3D12_MESSAGE_CATEGORY_STATE_CREATION, "CREATE_DESCRIPTOR_HEAP_INVALID_DESC"),
    "CreateQueryHeap": _row(_C.D3D12_MESSAGE_CATEGORY_STATE_CREATION, "CREATE_QUERYHEAP"),
    "CreateFence": _row(_C.D3D12_MESSAGE_CATEGORY_STATE_CREATION, "CREATE_MONITOREDFENCE",
                        ("Flags", "CREATE_FENCE_INVALID_FLAGS")),
    "CreateRootSignature": _row(_C.D3D12_MESSAGE_CATEGORY_STATE_CREATION, "CREATE_ROOT_SIGNATURE_DESERIALIZE_FAILED"),
    "CreateComputePipelineState": _row(_C.D3D12_MESSAGE_CATEGORY_STATE_CREATION, "CREATE_PIPELINESTATE",
                                       ("pRootSignature is None", "CREATECOMPUTEPIPELINESTATE_MISSING_ROOT_SIGNATURE"),
                                       ("root signature", "CREATECOMPUTEPIPELINESTATE_CS_ROOT_SIGNATURE_MISMATCH")),
    "CreateUnorderedAccessView": _row(_C.D3D12_MESSAGE_CATEGORY_STATE_CREATION,
                                      "CREATEUNORDEREDACCESSVIEW_INVALIDDESC",
                                      ("pResource", "CREATEUNORDEREDACCESSVIEW_INVALIDRESOURCE"),
                                      ("DestDescriptor", "INVALID_DESCRIPTOR_HANDLE")),
    "CreateShaderResourceView": _row(_C.D3D12_MESSAGE_CATEGORY_STATE_CREATION, "CREATESHADERRESOURCEVIEW_INVALIDDESC",
                                     ("pResource", "CREATESHADERRESOURCEVIEW_INVALIDRESOURCE"),
                                     ("DestDescriptor", "INVALID_DESCRIPTOR_HANDLE")),
    "CreateConstantBufferView": _row(_C.D3D12_MESSAGE_CATEGORY_STATE_CREATION, "UNKNOWN",
                                     ("DestDescriptor", "INVALID_DESCRIPTOR_HANDLE")),
    "CopyDescriptorsSimple": _row(_C.D3D12_MESSAGE_CATEGORY_STATE_SETTING, "COPY_DESCRIPTORS_INVALID_RANGES"),
    "CopyDescriptors": _row(_C.D3D12_MESSAGE_CATEGORY_STATE_SETTING, "COPY_DESCRIPTORS_INVALID_RANGES"),
    "Map": _row(_C.D3D12_MESSAGE_CATEGORY_RESOURCE_MANIPULATION, "MAP_INVALIDARG_RETURN",
                ("Subresource", "MAP_INVALIDSUBRESOURCE"), ("pReadRange", "MAP_INVALIDRANGE")),
    "Unmap": _row(_C.D3D12_MESSAGE_CATEGORY_RESOURCE_MANIPULATION, "UNMAP_INVALIDRANGE",
                  ("is not mapped", "RESOURCE_UNMAP_NOTMAPPED"), ("Subresource", "UNMAP_INVALIDSUBRESOURCE")),
    "GetCopyableFootprints": _row(_C.D3D12_MESSAGE_CATEGORY_RESOURCE_MANIPULATION,
                                  "GETCOPYABLEFOOTPRINTS_INVALIDSUBRESOURCERANGE",
                                  ("BaseOffset", "GETCOPYABLEFOOTPRINTS_INVALIDBASEOFFSET")),
    "ResourceBarrier": _row(_C.D3D12_MESSAGE_CATEGORY_RESOURCE_MANIPULATION, "RESOURCE_BARRIER_INVALID_RESOURCE",
                            ("StateBefore", "RESOURCE_BARRIER_BEFORE_AFTER_MISMATCH"),
                            ("StateAfter", "RESOURCE_BARRIER_INVALID_COMBINATION"),
                            ("Subresource", "RESOURCE_BARRIER_INVALID_SUBRESOURCE"),
                            ("Flags", "RESOURCE_BARRIER_INVALID_FLAGS"), ("Type", "RESOURCE_BARRIER_INVALID_TYPE"),
                            ("NumBarriers", "RESOURCE_BARRIER_ZERO_BARRIERS"), ("None", "RESOURCE_BARRIER_NULL_POINTER")),
    "CopyBufferRegion": _row(_C.D3D12_MESSAGE_CATEGORY_RESOURCE_MANIPULATION, "UNKNOWN",
                             ("pDstBuffer is None", "COPYBUFFERREGION_NULLDST"),
                             ("pSrcBuffer is None", "COPYBUFFERREGION_NULLSRC"),
                             ("DstOffset", "COPYBUFFERREGION_DSTRANGEOUTOFBOUNDS"),
                             ("SrcOffset", "COPYBUFFERREGION_SRCRANGEOUTOFBOUNDS"),
                             ("NumBytes", "COPYBUFFERREGION_SRCRANGEOUTOFBOUNDS")),
    "CopyResource": _row(_C.D3D12_MESSAGE_CATEGORY_RESOURCE_MANIPULATION, "UNKNOWN",
                         ("pDstResource is None", "COPYRESOURCE_NULLDST"),
                         ("pSrcResource is None", "COPYRESOURCE_NULLSRC"),
                         ("pDstResource", "COPYRESOURCE_INVALIDDSTRESOURCE"),
                         ("pSrcResource", "COPYRESOURCE_INVALIDSRCRESOURCE")),
    "CopyTextureRegion": _row(_C.D3D12_MESSAGE_CATEGORY_RESOURCE_MANIPULATION, "UNKNOWN",
                              ("pDst.SubresourceIndex", "COPYTEXTUREREGION_INVALIDDSTSUBRESOURCE"),
                              ("pSrc.SubresourceIndex", "COPYTEXTUREREGION_INVALIDSRCSUBRESOURCE"),
                              ("pDst.PlacedFootprint.Offset", "COPYTEXTUREREGION_INVALIDDSTOFFSET"),
                              ("pSrc.PlacedFootprint.Offset", "COPYTEXTUREREGION_INVALIDSRCOFFSET"),
                              ("pDst.PlacedFootprint.Footprint.RowPitch", "COPYTEXTUREREGION_INVALIDDSTROWPITCH"),
                              ("pSrc.PlacedFootprint.Footprint.RowPitch", "COPYTEXTUREREGION_INVALIDSRCROWPITCH"),
                              ("pDst.PlacedFootprint", "COPYTEXTUREREGION_INVALIDDSTPLACEMENT"),
                              ("pSrc.PlacedFootprint", "COPYTEXTUREREGION_INVALIDSRCPLACEMENT"),
                              ("copy-compatible", "COPYTEXTUREREGION_FORMATMISMATCH"),
                              ("onto itself", "COPY_ON_SAME_SUBRESOURCE"),
                              ("pSrcBox", "COPYTEXTUREREGION_INVALIDSRCBOX"),
                              ("at DstX", "COPYTEXTUREREGION_DSTREGIONOUTOFBOUNDS"),
                              ("pDst", "COPYTEXTUREREGION_INVALIDDSTRESOURCE"),
                              ("the destination", "COPYTEXTUREREGION_INVALIDDSTRESOURCE"),
                              ("pSrc", "COPYTEXTUREREGION_INVALIDSRCRESOURCE"),
                              ("the source", "COPYTEXTUREREGION_INVALIDSRCRESOURCE")),
    "WriteToSubresource": _row(_C.D3D12_MESSAGE_CATEGORY_RESOURCE_MANIPULATION, "WRITETOSUBRESOURCE_INVALIDRESOURCE",
                               ("DstSubresource", "WRITETOSUBRESOURCE_INVALIDSUBRESOURCE"),
                               ("pDstBox", "WRITETOSUBRESOURCE_INVALIDBOX"),
                               ("heap", "WRITETOSUBRESOURCE_INVALIDHEAP")),
    "ReadFromSubresource": _row(_C.D3D12_MESSAGE_CATEGORY_RESOURCE_MANIPULATION, "READFROMSUBRESOURCE_INVALIDRESOURCE",
                                ("SrcSubresource", "READFROMSUBRESOURCE_INVALIDSUBRESOURCE"),
                                ("pSrcBox", "READFROMSUBRESOURCE_INVALIDBOX"),
                                ("heap", "READFROMSUBRESOURCE_INVALIDHEAP")),
    "ClearUnorderedAccessViewUint": _row(_C.D3D12_MESSAGE_CATEGORY_RESOURCE_MANIPULATION, "UNKNOWN",
                                         ("pResource", "CLEARUNORDEREDACCESSVIEW_INVALID_RESOURCE_PTR")),
    "ClearUnorderedAccessViewFloat": _row(_C.D3D12_MESSAGE_CATEGORY_RESOURCE_MANIPULATION, "UNKNOWN",
                                          ("pResource", "CLEARUNORDEREDACCESSVIEW_INVALID_RESOURCE_PTR")),
    "SetDescriptorHeaps": _row(_C.D3D12_MESSAGE_CATEGORY_STATE_SETTING, "SET_DESCRIPTOR_HEAP_INVALID"),
    "SetComputeRootSignature": _row(_C.D3D12_MESSAGE_CATEGORY_STATE_SETTING, "UNKNOWN"),
    "SetComputeRootDescriptorTable": _row(_C.D3D12_MESSAGE_CATEGORY_STATE_SETTING, "SET_DESCRIPTOR_TABLE_INVALID"),
    "SetComputeRoot32BitConstant": _row(_C.D3D12_MESSAGE_CATEGORY_STATE_SETTING, "SET_ROOT_CONSTANT_INVALID"),
    "SetComputeRoot32BitConstants": _row(_C.D3D12_MESSAGE_CATEGORY_STATE_SETTING, "SET_ROOT_CONSTANT_INVALID"),
    "SetComputeRootConstantBufferView": _row(_C.D3D12_MESSAGE_CATEGORY_STATE_SETTING,
                                             "SET_ROOT_CONSTANT_BUFFER_VIEW_INVALID"),
    "SetComputeRootShaderResourceView": _row(_C.D3D12_MESSAGE_CATEGORY_STATE_SETTING,
                                             "SET_ROOT_SHADER_RESOURCE_VIEW_INVALID"),
    "SetComputeRootUnorderedAccessView": _row(_C.D3D12_MESSAGE_CATEGORY_STATE_SETTING,
                                              "SET_ROOT_UNORDERED_ACCESS_VIEW_INVALID"),
    "SetPipelineState": _row(_C.D3D12_MESSAGE_CATEGORY_STATE_SETTING, "UNKNOWN"),
    "Dispatch": _row(_C.D3D12_MESSAGE_CATEGORY_EXECUTION, "UNKNOWN",
                     ("is invalid for use as", "INVALID_SUBRESOURCE_STATE"),
                     ("no root signature", "COMMAND_LIST_DISPATCH_ROOT_SIGNATURE_NOT_SET"),
                     ("root signature", "COMMAND_LIST_DISPATCH_ROOT_SIGNATURE_MISMATCH"),
                     ("pipeline state", "COMMAND_LIST_PIPELINE_STATE_NOT_SET"),
                     ("descriptor table", "COMMAND_LIST_DESCRIPTOR_TABLE_NOT_SET"),
                     ("is 0", "EMPTY_DISPATCH"), ("at most", "OVERSIZED_DISPATCH")),
    "ResolveQueryData": _row(_C.D3D12_MESSAGE_CATEGORY_RESOURCE_MANIPULATION, "UNKNOWN",
                             ("pQueryHeap", "RESOLVEQUERYDATA_INVALID_QUERYHEAP")),
    "EndQuery": _row(_C.D3D12_MESSAGE_CATEGORY_EXECUTION, "UNKNOWN"),
    "Close": _row(_C.D3D12_MESSAGE_CATEGORY_EXECUTION, "UNKNOWN", ("is closed", "COMMAND_LIST_CLOSED")),
    "Reset": _row(_C.D3D12_MESSAGE_CATEGORY_EXECUTION, "COMMAND_ALLOCATOR_CANNOT_RESET",
                  ("is open", "COMMAND_LIST_OPEN"), ("recording", "COMMAND_LIST_OPEN")),
    "ExecuteCommandLists": _row(_C.D3D12_MESSAGE_CATEGORY_EXECUTION, "EXECUTECOMMANDLISTS_FAILEDCOMMANDLIST",
                                ("is open", "EXECUTECOMMANDLISTS_OPENCOMMANDLIST"),
                                ("not closed", "EXECUTECOMMANDLISTS_OPENCOMMANDLIST"),
                                ("type", "EXECUTECOMMANDLISTS_COMMANDLISTMISMATCH")),
    "CheckFeatureSupport": _row(_C.D3D12_MESSAGE_CATEGORY_STATE_GETTING, "UNKNOWN"),
    "Signal": _row(_C.D3D12_MESSAGE_CATEGORY_EXECUTION, "FENCE_INVALIDOPERATION"),
    "Wait": _row(_C.D3D12_MESSAGE_CATEGORY_EXECUTION, "FENCE_INVALIDOPERATION"),
    "SetEventOnCompletion": _row(_C.D3D12_MESSAGE_CATEGORY_EXECUTION, "FENCE_INVALIDOPERATION"),
}
_DEFAULT = (_C.D3D12_MESSAGE_CATEGORY_MISCELLANEOUS, _ID.D3D12_MESSAGE_ID_UNKNOWN)


def classify(text):
    """(category, ID) of a D3D12 message from its sentence: the method that heads it (`Method: ...`; for
    `ExecuteCommandLists: Method: ...`, a recorded command that failed at execution, that command),
    then the first of its phrases the sentence holds."""
    method = text.split(":", 1)[0].strip() if ":" in text else ""
    rest = text[len(method) + 1:]
    if method == "ExecuteCommandLists":   # a recorded command that failed at execution: that command's message
        inner = rest.split(":", 1)[0].strip() if ":" in rest else ""
        if inner in _METHODS and inner != method:
            return classify(rest.strip())
    row = _METHODS.get(method)
    if row is None:
        return _DEFAULT
    category, message_id, phrases = row
    for phrase, exact in phrases:
        if phrase in rest:
            return category, exact
    return category, message_id


def classify_directml(text):
    """(category, ID) of a DirectML message: the category from the phase of the call that found it;
    the ID is D3D12_MESSAGE_ID_UNKNOWN (DirectML publishes none)."""
    head = text.split(":", 1)[0]
    method = head.rsplit(".", 1)[-1].strip()
    if method.startswith(("Create", "Compile")):
        category = _C.D3D12_MESSAGE_CATEGORY_STATE_CREATION
    elif method.startswith(("Bind", "Reset")):
        category = _C.D3D12_MESSAGE_CATEGORY_STATE_SETTING
    elif method in ("RecordDispatch", "ExecuteCommandLists"):
        category = _C.D3D12_MESSAGE_CATEGORY_EXECUTION
    else:
        category = _C.D3D12_MESSAGE_CATEGORY_MISCELLANEOUS
    return category, _ID.D3D12_MESSAGE_ID_UNKNOWN


# ---- the one path every message takes ----------------------------------------------------------------
DIRECTML_PREFIX = "[DIRECTML ERROR]: "
_SEVERITY_WORD = {0: "CORRUPTION", 1: "ERROR", 2: "WARNING", 3: "INFO", 4: "MESSAGE"}


def debug_output(source, category, severity, message_id, text):
    """The line a message prints to stderr (the debugger's output on Windows): D3D12's form,
    'D3D12 ERROR: text [ EXECUTION ERROR #838: EXECUTECOMMANDLISTS_FAILEDCOMMANDLIST]', or DirectML's
    '[DIRECTML ERROR]: text'."""
    word = _SEVERITY_WORD.get(int(severity), str(int(severity)))
    if source == "DirectML":      # "[DIRECTML ERROR]: ", "[DIRECTML WARNING]: ", ...
        return DIRECTML_PREFIX.replace("ERROR", word) + text
    try:
        category_name = D3D12_MESSAGE_CATEGORY(int(category)).name[len("D3D12_MESSAGE_CATEGORY_"):]  # noqa: F821
    except ValueError:
        category_name = str(int(category))
    id_name = _ID._c_names_.get(int(message_id), "D3D12_MESSAGE_ID_UNKNOWN")[len("D3D12_MESSAGE_ID_"):]
    return f"D3D12 {word}: {text} [ {category_name} {word} #{int(message_id)}: {id_name}]"


def report(d3d12_device, hresult, text, *, source="D3D12", severity=None, category=None, message_id=None,
           may_break=True, defer=False):
    """Report one debug-layer message of `d3d12_device` (or of a DirectML device on it).

    With the D3D12 debug layer the device's info queue takes it (info_queue.py); when the queue breaks
    on it, D3D12DebugBreak(hresult, text) is raised now, or from ExecuteCommandLists when the GPU is
    executing (the device's pump is running, or `defer`). `may_break` False: the call fails with its own HRESULT
    anyway, so the message is only stored. Without the debug layer a DirectML message is printed to
    stderr and a D3D12 one is dropped (callers report D3D12 messages only with the layer on).
    """
    if severity is None:
        severity = D3D12_MESSAGE_SEVERITY_ERROR  # noqa: F821
    if category is None or message_id is None:
        found = classify_directml(text) if source == "DirectML" else classify(text)
        category = found[0] if category is None else category
        message_id = found[1] if message_id is None else message_id
    queue = getattr(d3d12_device, "_info_queue", None) if getattr(d3d12_device, "_debug_layer", False) else None
    if queue is None:
        if source == "DirectML":
            print(debug_output(source, category, severity, message_id, text), file=sys.stderr)
        return
    if queue._add(category, severity, message_id, text, source) and may_break:
        error = D3D12DebugBreak(hresult, text, category, severity, message_id)
        if defer or getattr(d3d12_device, "_pumping", False):
            d3d12_device._deferred_reports.append(error)
        else:
            raise error


def id_table_markdown():
    """The `_METHODS` table as the Markdown docs/INFO_QUEUE.md shows (a test keeps the page equal to it)."""
    prefix = "D3D12_MESSAGE_ID_"
    lines = ["| method | category | ID (value) | more exact IDs: phrase in the sentence -> ID |", "|---|---|---|---|"]
    for method, (category, message_id, phrases) in _METHODS.items():
        more = "; ".join(f'"{p}" -> {e.name[len(prefix):]} ({int(e)})' for p, e in phrases) or "-"
        lines.append(f"| `{method}` | {category.name[len('D3D12_MESSAGE_CATEGORY_'):]} | "
                     f"{message_id.name[len(prefix):]} ({int(message_id)}) | {more} |")
    return "\n".join(lines) + "\n"
