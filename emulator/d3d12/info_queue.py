"""ID3D12InfoQueue / ID3D12InfoQueue1: where the debug layer's messages go, one per device.

It exists on a device created with the debug layer on (D3D12GetDebugInterface().EnableDebugLayer()
before D3D12CreateDevice): device.QueryInterface(IID_ID3D12InfoQueue) or (IID_ID3D12InfoQueue1)
returns it; without the layer QueryInterface answers E_NOINTERFACE. Every D3D12 and DirectML debug
message reaches it through dmlemu.d3d12.messages.report (that module says which message gets which
category and D3D12_MESSAGE_ID). Like the real queue it answers after device removal (no method of
it checks removal).

A new message, in this order:
1. the storage filter (the top of the storage-filter stack) allows or denies it; the counters
   GetNumMessagesAllowedByStorageFilter / ...DeniedByStorageFilter count both;
2. an allowed message is stored; past the message count limit (SetMessageCountLimit, default
   D3D12_INFO_QUEUE_DEFAULT_MESSAGE_COUNT_LIMIT = 1024; UINT64_MAX: none) the oldest stored message is
   discarded and counted (GetNumMessagesDiscardedByMessageCountLimit);
3. every registered callback (RegisterMessageCallback) is called with (Category, Severity, ID,
   pDescription, pContext) when the message was allowed, or always with D3D12_MESSAGE_CALLBACK_IGNORE_FILTERS;
   an exception a callback raises propagates from the offending call, as a crash in a C callback would;
4. an allowed message is printed to stderr unless SetMuteDebugOutput(TRUE) (the debugger output);
5. an allowed message whose category, severity or ID has break set raises D3D12DebugBreak from the
   offending call (messages.py). The queue starts with break on D3D12_MESSAGE_SEVERITY_CORRUPTION and
   _ERROR for the D3D12 runtime's own messages, so a D3D12 misuse fails at the call that made it (what
   a debugger attached to a Windows program with those breaks set shows); SetBreakOnSeverity(ERROR,
   FALSE) lets such a call return, the misuse then handled as without the debug layer (device removal,
   a command list in error). DirectML's and the application's messages break only on settings the
   host made; an explicit SetBreakOnSeverity applies to every source.

Retrieval: GetMessage(MessageIndex, pMessage, pMessageByteLength) indexes the stored messages the
retrieval filter allows, with C's two calls: pMessage None returns the byte length the message needs
(sizeof(D3D12_MESSAGE) on a 64-bit host, 32, plus its text and NUL); then a D3D12_MESSAGE and that
length fill and return it. GetStorageFilter / GetRetrievalFilter do the same with a
D3D12_INFO_QUEUE_FILTER (96 bytes plus 4 per listed category, severity and ID).

Filters: a message is denied when its category, severity or ID is on the DenyList, and allowed when,
for each of the three AllowList lists that is not empty, its value is on it. Each stack starts with
one empty filter (allows everything); Pop at one filter leaves it; Push past MAX_FILTER_STACK filters
is E_OUTOFMEMORY.
"""
import collections
import sys

from dmlemu.com import (
    COMObject, UINT64_MAX, check_enum, check_flags, check_sequence, check_uint, invalid, is_integer, query_interface,
)
from dmlemu.d3d12.enums import INTERFACE_IIDS
from dmlemu.d3d12.messages import (
    D3D12_INFO_QUEUE_DEFAULT_MESSAGE_COUNT_LIMIT, D3D12_INFO_QUEUE_FILTER, D3D12_INFO_QUEUE_FILTER_DESC, D3D12_MESSAGE,
    D3D12_MESSAGE_CALLBACK_FLAGS, D3D12_MESSAGE_CALLBACK_IGNORE_FILTERS, D3D12_MESSAGE_CATEGORY,
    D3D12_MESSAGE_CATEGORY_APPLICATION_DEFINED, D3D12_MESSAGE_ID, D3D12_MESSAGE_ID_STRING_FROM_APPLICATION, D3D12_MESSAGE_SEVERITY,
    D3D12_MESSAGE_SEVERITY_CORRUPTION, D3D12_MESSAGE_SEVERITY_ERROR, D3D12DebugBreak, debug_output,
)
from dmlemu.errors import E_FAIL, E_OUTOFMEMORY, HResultError

MESSAGE_HEADER_BYTES = 32          # sizeof(D3D12_MESSAGE) on a 64-bit host: 3 enums, padding, pointer, SIZE_T
FILTER_HEADER_BYTES = 96           # sizeof(D3D12_INFO_QUEUE_FILTER): two FILTER_DESCs of three (UINT, pointer)
MAX_FILTER_STACK = 1024            # filters a stack holds (the emulator's bound)
MAX_FILTER_ENTRIES = 1 << 16       # entries one filter list holds (the emulator's bound)
MAX_DESCRIPTION_BYTES = 1 << 20    # an application message's text (the emulator's bound)
_DEFAULT_BREAK_SEVERITIES = (int(D3D12_MESSAGE_SEVERITY_CORRUPTION), int(D3D12_MESSAGE_SEVERITY_ERROR))


def _id(message_id):
    """A message ID as its D3D12_MESSAGE_ID member when the mirror names it, else the plain number."""
    return D3D12_MESSAGE_ID(message_id) if message_id in D3D12_MESSAGE_ID._c_names_ else message_id


class _Filter:
    """One filter of a stack: allow and deny sets of categories, severities and IDs."""
    __slots__ = ("allow", "deny")

    def __init__(self, allow=None, deny=None):
        self.allow = allow or (set(), set(), set())
        self.deny = deny or (set(), set(), set())

    def copy(self):
        return _Filter(tuple(set(s) for s in self.allow), tuple(set(s) for s in self.deny))

    def add(self, other):
        for mine, theirs in zip(self.allow + self.deny, other.allow + other.deny):
            mine |= theirs

    def allows(self, category, severity, message_id):
        values = (category, severity, message_id)
        if any(v in denied for v, denied in zip(values, self.deny)):
            return False
        return all(not allowed or v in allowed for v, allowed in zip(values, self.allow))

    def byte_length(self):
        return FILTER_HEADER_BYTES + 4 * sum(len(s) for s in self.allow + self.deny)

    def as_struct(self):
        def side(sets):
            return D3D12_INFO_QUEUE_FILTER_DESC(
                pCategoryList=[D3D12_MESSAGE_CATEGORY(v) for v in sorted(sets[0])] or None,
                pSeverityList=[D3D12_MESSAGE_SEVERITY(v) for v in sorted(sets[1])] or None,
                pIDList=[_id(v) for v in sorted(sets[2])] or None)
        return D3D12_INFO_QUEUE_FILTER(AllowList=side(self.allow), DenyList=side(self.deny))


class ID3D12InfoQueue1(COMObject):
    """The info queue of one device (ID3D12InfoQueue and ID3D12InfoQueue1)."""

    def __init__(self, device):
        self._device = device
        self._messages = collections.deque()   # (category, severity, id, text) allowed by the storage filter
        self._limit = D3D12_INFO_QUEUE_DEFAULT_MESSAGE_COUNT_LIMIT
        self._allowed = self._denied = self._discarded = 0
        self._storage = [_Filter()]
        self._retrieval = [_Filter()]
        self._break_category, self._break_severity, self._break_id = {}, {}, {}
        self._mute = False
        self._callbacks = {}                    # cookie -> (function, flags, context)
        self._next_cookie = 1

    # ---- the path of a new message (messages.report) ---------------------------------------------
    def _add(self, category, severity, message_id, text, source):
        """Filter, store, call back, print; True when the queue breaks on it."""
        category, severity, message_id = int(category), int(severity), int(message_id)
        with self._device._lock:
            allowed = self._storage[-1].allows(category, severity, message_id)
            if allowed:
                self._allowed += 1
                self._messages.append((category, severity, message_id, text))
                self._trim()
            else:
                self._denied += 1
            callbacks = [(f, c) for f, flags, c in self._callbacks.values()
                         if allowed or flags & D3D12_MESSAGE_CALLBACK_IGNORE_FILTERS]
        for function, context in callbacks:
            function(D3D12_MESSAGE_CATEGORY(category), D3D12_MESSAGE_SEVERITY(severity), _id(message_id), text, context)
        if not allowed:
            return False
        if not self._mute:
            print(debug_output(source, category, severity, message_id, text), file=sys.stderr)
        return self._breaks(category, severity, message_id, source)

    def _breaks(self, category, severity, message_id, source):
        if self._break_category.get(category) or self._break_id.get(message_id):
            return True
        explicit = self._break_severity.get(severity)
        if explicit is not None:
            return explicit
        return source == "D3D12" and severity in _DEFAULT_BREAK_SEVERITIES

    def _trim(self):
        while len(self._messages) > self._limit:
            self._messages.popleft()
            self._discarded += 1

    # ---- IUnknown ---------------------------------------------------------------------------------
    def QueryInterface(self, riid):
        """This queue for ID3D12InfoQueue and ID3D12InfoQueue1; E_NOINTERFACE otherwise."""
        return query_interface(self, riid, {INTERFACE_IIDS[n]: n for n in ("ID3D12InfoQueue", "ID3D12InfoQueue1")},
                               f"the info queue of {self._device._label}", "QueryInterface")

    # ---- stored messages ----------------------------------------------------------------------------
    def SetMessageCountLimit(self, MessageCountLimit):
        """The most messages the queue stores (UINT64_MAX: no limit); the oldest past it are discarded."""
        limit = check_uint(MessageCountLimit, "SetMessageCountLimit: MessageCountLimit", UINT64_MAX)
        with self._device._lock:
            self._limit = limit
            self._trim()

    def GetMessageCountLimit(self):
        return self._limit

    def ClearStoredMessages(self):
        """Forget every stored message (the counters stay)."""
        with self._device._lock:
            self._messages.clear()

    def GetNumStoredMessages(self):
        return len(self._messages)

    def GetNumStoredMessagesAllowedByRetrievalFilter(self):
        return len(self._retrievable())

    def GetNumMessagesAllowedByStorageFilter(self):
        return self._allowed

    def GetNumMessagesDeniedByStorageFilter(self):
        return self._denied

    def GetNumMessagesDiscardedByMessageCountLimit(self):
        return self._discarded

    def _retrievable(self):
        with self._device._lock:
            top = self._retrieval[-1]
            return [m for m in self._messages if top.allows(m[0], m[1], m[2])]

    def GetMessage(self, MessageIndex, pMessage=None, pMessageByteLength=None):
        """C's two calls: with pMessage None, the byte length message MessageIndex (of those the retrieval
        filter allows) needs; with a D3D12_MESSAGE and at least that length, the message filled in."""
        m = "GetMessage"
        messages = self._retrievable()
        index = check_uint(MessageIndex, f"{m}: MessageIndex", UINT64_MAX)
        if index >= len(messages):
            raise invalid(f"{m}: MessageIndex is {index}, but the retrieval filter allows {len(messages)} stored "
                          f"message{'' if len(messages) == 1 else 's'}; the index must be below that.")
        category, severity, message_id, text = messages[index]
        description = len(text.encode("utf-8")) + 1
        needed = MESSAGE_HEADER_BYTES + description
        if pMessage is None:
            return needed
        if not isinstance(pMessage, D3D12_MESSAGE):
            raise invalid(f"{m}: pMessage is {pMessage!r}; it must be a D3D12_MESSAGE or None (to ask for the "
                          f"byte length first).")
        length = check_uint(pMessageByteLength, f"{m}: pMessageByteLength", UINT64_MAX)
        if length < needed:
            raise invalid(f"{m}: pMessageByteLength is {length}, but message {index} needs {needed} bytes; call "
                          f"GetMessage with pMessage None first to get its length.")
        pMessage.Category, pMessage.Severity = D3D12_MESSAGE_CATEGORY(category), D3D12_MESSAGE_SEVERITY(severity)
        pMessage.ID, pMessage.pDescription, pMessage.DescriptionByteLength = _id(message_id), text, description
        return pMessage

    # ---- filters --------------------------------------------------------------------------------------
    def _filter_from(self, pFilter, where):
        if not isinstance(pFilter, D3D12_INFO_QUEUE_FILTER):
            raise invalid(f"{where}: pFilter is {pFilter!r}; it must be a D3D12_INFO_QUEUE_FILTER.")
        sides = []
        for side in ("AllowList", "DenyList"):
            desc = getattr(pFilter, side)
            if not isinstance(desc, D3D12_INFO_QUEUE_FILTER_DESC):
                raise invalid(f"{where}: pFilter.{side} is {desc!r}; it must be a D3D12_INFO_QUEUE_FILTER_DESC.")
            sets = []
            for count, array, kind in (("NumCategories", "pCategoryList", D3D12_MESSAGE_CATEGORY),
                                       ("NumSeverities", "pSeverityList", D3D12_MESSAGE_SEVERITY),
                                       ("NumIDs", "pIDList", None)):
                field = f"{where}: pFilter.{side}.{array}"
                values = getattr(desc, array)
                values = () if values is None else check_sequence(values, field, "a sequence of values or None")
                given = desc.explicit_count(count)
                if given is not None:
                    given = check_uint(given, f"{where}: pFilter.{side}.{count}")
                    if given != len(values):
                        raise invalid(f"{where}: pFilter.{side}.{count} is {given} but {array} has {len(values)} "
                                      f"entries; they must agree.")
                if len(values) > MAX_FILTER_ENTRIES:
                    raise invalid(f"{field} has {len(values)} entries; a filter list holds at most "
                                  f"{MAX_FILTER_ENTRIES}.")
                if kind is None:
                    sets.append({check_uint(v, f"{field}[{i}]") for i, v in enumerate(values)})
                else:
                    sets.append({int(check_enum(v, kind, f"{field}[{i}]")) for i, v in enumerate(values)})
            sides.append(tuple(sets))
        return _Filter(*sides)

    def _get_filter(self, stack, pFilter, pFilterByteLength, where):
        top = stack[-1]
        needed = top.byte_length()
        if pFilter is None:
            return needed
        if not isinstance(pFilter, D3D12_INFO_QUEUE_FILTER):
            raise invalid(f"{where}: pFilter is {pFilter!r}; it must be a D3D12_INFO_QUEUE_FILTER or None (to ask "
                          f"for the byte length first).")
        length = check_uint(pFilterByteLength, f"{where}: pFilterByteLength", UINT64_MAX)
        if length < needed:
            raise invalid(f"{where}: pFilterByteLength is {length}, but the filter needs {needed} bytes; call "
                          f"{where} with pFilter None first to get its length.")
        filled = top.as_struct()
        pFilter.AllowList, pFilter.DenyList = filled.AllowList, filled.DenyList
        return pFilter

    def _push(self, stack, new, where):
        with self._device._lock:
            if len(stack) >= MAX_FILTER_STACK:
                raise HResultError(E_OUTOFMEMORY, f"{where}: the filter stack already holds {len(stack)} filters, "
                                                  f"the most it holds; pop one first.")
            stack.append(new)

    def AddStorageFilterEntries(self, pFilter):
        """Add pFilter's entries to the storage filter on top of the stack."""
        new = self._filter_from(pFilter, "AddStorageFilterEntries")
        with self._device._lock:
            self._storage[-1].add(new)

    def GetStorageFilter(self, pFilter=None, pFilterByteLength=None):
        """The storage filter on top of the stack (C's two calls, as GetMessage)."""
        return self._get_filter(self._storage, pFilter, pFilterByteLength, "GetStorageFilter")

    def ClearStorageFilter(self):
        self._storage[-1] = _Filter()

    def PushEmptyStorageFilter(self):
        self._push(self._storage, _Filter(), "PushEmptyStorageFilter")

    def PushCopyOfStorageFilter(self):
        self._push(self._storage, self._storage[-1].copy(), "PushCopyOfStorageFilter")

    def PushStorageFilter(self, pFilter):
        self._push(self._storage, self._filter_from(pFilter, "PushStorageFilter"), "PushStorageFilter")

    def PopStorageFilter(self):
        """Pop the top storage filter (the last one stays)."""
        with self._device._lock:
            if len(self._storage) > 1:
                self._storage.pop()

    def GetStorageFilterStackSize(self):
        return len(self._storage)

    def AddRetrievalFilterEntries(self, pFilter):
        new = self._filter_from(pFilter, "AddRetrievalFilterEntries")
        with self._device._lock:
            self._retrieval[-1].add(new)

    def GetRetrievalFilter(self, pFilter=None, pFilterByteLength=None):
        return self._get_filter(self._retrieval, pFilter, pFilterByteLength, "GetRetrievalFilter")

    def ClearRetrievalFilter(self):
        self._retrieval[-1] = _Filter()

    def PushEmptyRetrievalFilter(self):
        self._push(self._retrieval, _Filter(), "PushEmptyRetrievalFilter")

    def PushCopyOfRetrievalFilter(self):
        self._push(self._retrieval, self._retrieval[-1].copy(), "PushCopyOfRetrievalFilter")

    def PushRetrievalFilter(self, pFilter):
        self._push(self._retrieval, self._filter_from(pFilter, "PushRetrievalFilter"), "PushRetrievalFilter")

    def PopRetrievalFilter(self):
        with self._device._lock:
            if len(self._retrieval) > 1:
                self._retrieval.pop()

    def GetRetrievalFilterStackSize(self):
        return len(self._retrieval)

    # ---- messages from the application ------------------------------------------------------------
    def _text(self, value, where):
        if not isinstance(value, str):
            raise invalid(f"{where}: pDescription is {value!r}; it must be a string.")
        if len(value.encode("utf-8")) > MAX_DESCRIPTION_BYTES:
            raise invalid(f"{where}: pDescription has {len(value.encode('utf-8'))} bytes; a message holds at most "
                          f"{MAX_DESCRIPTION_BYTES}.")
        return value

    def _add_and_break(self, category, severity, message_id, text, source):
        if self._add(category, severity, message_id, text, source):
            raise D3D12DebugBreak(E_FAIL, text, category, severity, message_id)

    def AddMessage(self, Category, Severity, ID, pDescription):
        """Add a message as the runtime would (the application's own: AddApplicationMessage)."""
        m = "AddMessage"
        category = check_enum(Category, D3D12_MESSAGE_CATEGORY, f"{m}: Category")
        severity = check_enum(Severity, D3D12_MESSAGE_SEVERITY, f"{m}: Severity")
        message_id = check_uint(ID, f"{m}: ID")
        self._add_and_break(category, severity, message_id, self._text(pDescription, m), "application")

    def AddApplicationMessage(self, Severity, pDescription):
        """A message of category APPLICATION_DEFINED and ID STRING_FROM_APPLICATION."""
        m = "AddApplicationMessage"
        severity = check_enum(Severity, D3D12_MESSAGE_SEVERITY, f"{m}: Severity")
        self._add_and_break(D3D12_MESSAGE_CATEGORY_APPLICATION_DEFINED, severity,
                            D3D12_MESSAGE_ID_STRING_FROM_APPLICATION, self._text(pDescription, m), "application")

    # ---- breaks and output -------------------------------------------------------------------------
    @staticmethod
    def _enable(value, where):
        if not is_integer(value) and not isinstance(value, bool):
            raise invalid(f"{where}: bEnable is {value!r}; it must be a BOOL (True/False or an integer).")
        return bool(value)

    def SetBreakOnCategory(self, Category, bEnable):
        category = check_enum(Category, D3D12_MESSAGE_CATEGORY, "SetBreakOnCategory: Category")
        self._break_category[int(category)] = self._enable(bEnable, "SetBreakOnCategory")

    def SetBreakOnSeverity(self, Severity, bEnable):
        severity = check_enum(Severity, D3D12_MESSAGE_SEVERITY, "SetBreakOnSeverity: Severity")
        self._break_severity[int(severity)] = self._enable(bEnable, "SetBreakOnSeverity")

    def SetBreakOnID(self, ID, bEnable):
        message_id = check_uint(ID, "SetBreakOnID: ID")
        self._break_id[message_id] = self._enable(bEnable, "SetBreakOnID")

    def GetBreakOnCategory(self, Category):
        category = check_enum(Category, D3D12_MESSAGE_CATEGORY, "GetBreakOnCategory: Category")
        return int(self._break_category.get(int(category), False))

    def GetBreakOnSeverity(self, Severity):
        """Set by the host, else the queue's start: TRUE for CORRUPTION and ERROR (D3D12's own messages)."""
        severity = int(check_enum(Severity, D3D12_MESSAGE_SEVERITY, "GetBreakOnSeverity: Severity"))
        return int(self._break_severity.get(severity, severity in _DEFAULT_BREAK_SEVERITIES))

    def GetBreakOnID(self, ID):
        return int(self._break_id.get(check_uint(ID, "GetBreakOnID: ID"), False))

    def SetMuteDebugOutput(self, bMute):
        """TRUE: messages are no longer printed to stderr (they are still stored and called back)."""
        if not is_integer(bMute) and not isinstance(bMute, bool):
            raise invalid(f"SetMuteDebugOutput: bMute is {bMute!r}; it must be a BOOL (True/False or an integer).")
        self._mute = bool(bMute)

    def GetMuteDebugOutput(self):
        return int(self._mute)

    # ---- ID3D12InfoQueue1 ------------------------------------------------------------------------------
    def RegisterMessageCallback(self, CallbackFunc, CallbackFilterFlags, pContext=None):
        """Call CallbackFunc(Category, Severity, ID, pDescription, pContext) for each new message (allowed
        by the storage filter, or every one with D3D12_MESSAGE_CALLBACK_IGNORE_FILTERS); returns the
        cookie (the C pCallbackCookie) UnregisterMessageCallback takes."""
        m = "RegisterMessageCallback"
        if not callable(CallbackFunc):
            raise invalid(f"{m}: CallbackFunc is {CallbackFunc!r}; it must be a callable taking (Category, Severity, "
                          f"ID, pDescription, pContext).")
        flags = check_flags(CallbackFilterFlags, D3D12_MESSAGE_CALLBACK_FLAGS, f"{m}: CallbackFilterFlags")
        with self._device._lock:
            cookie = self._next_cookie
            if cookie > 0xFFFFFFFF:
                raise HResultError(E_OUTOFMEMORY, f"{m}: every DWORD cookie has been given out.")
            self._next_cookie += 1
            self._callbacks[cookie] = (CallbackFunc, flags, pContext)
        return cookie

    def UnregisterMessageCallback(self, CallbackCookie):
        m = "UnregisterMessageCallback"
        cookie = check_uint(CallbackCookie, f"{m}: CallbackCookie")
        with self._device._lock:
            if cookie not in self._callbacks:
                raise invalid(f"{m}: CallbackCookie is {cookie}, which no registered callback has (registered: "
                              f"{sorted(self._callbacks) or 'none'}).")
            del self._callbacks[cookie]

    def __repr__(self):
        return f"<ID3D12InfoQueue1 of {self._device._label}: {len(self._messages)} stored>"


__all__ = ["ID3D12InfoQueue1"]
