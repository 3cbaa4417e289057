"""ID3D12GraphicsCommandList: records commands for a queue to execute later.

One per CreateCommandList / CreateCommandList1 call. A list is either open (recording into its
allocator) or closed. Recording appends command objects (commands.py) to `_commands`; nothing runs
until a queue executes the closed list. The rules are D3D12's:
- CreateCommandList returns an open list; CreateCommandList1 a closed one with no allocator.
- Close on a closed list is E_FAIL. Reset on an open list is E_FAIL; Reset (or CreateCommandList)
  with an allocator of another type, or one another open list records into, is E_INVALIDARG.
- Recording methods return nothing in C. Misuse found while recording (a bad argument, a range past
  a buffer's end, a method the list type does not allow) drops the command and puts the list in an
  error state: Close then returns E_INVALIDARG, naming the first bad call. With the debug layer on,
  the bad call also raises at once.
- Recording into a closed list has no Close left to report it: it removes the device
  (DXGI_ERROR_INVALID_CALL), and later HRESULT calls raise DXGI_ERROR_DEVICE_REMOVED naming it.
- Per-list state tracking, as the debug layer keeps it: each transition barrier's StateAfter is the
  state the list assumes for that buffer from then on (`_barrier_states`, cleared by Reset); a later
  transition whose StateBefore differs is reported by the debug layer at ResourceBarrier (message
  #527 RESOURCE_BARRIER_BEFORE_AFTER_MISMATCH, in the real layer's words), and recorded anyway (the
  queue checks the state again when it executes: resource.py).
- Descriptor heaps set by SetDescriptorHeaps are list state (`_descriptor_heaps`), read by DirectML's
  RecordDispatch while recording; Reset and ClearState clear them.

Internal contract for other modules: `_record(command)` appends a command (anything with
`execute(ctx)`), returning False without recording when the list is closed or the device removed;
`_record_error(method_name, sentence)` puts the list in the error state; `_is_open()`, `_type`,
`_descriptor_heaps`, `_device`, `_commands`.
"""
import functools
import threading

from dmlemu.errors import DXGI_ERROR_INVALID_CALL, E_FAIL, E_INVALIDARG, E_OUTOFMEMORY, HResultError, short_repr
from dmlemu.com import (VoidMisuse, c_arguments, enum_name, hresult_method, is_integer, is_one_of, out_of_memory,
                        prefixed)
from dmlemu.d3d12.base import DeviceChild, invalid_arg
from dmlemu.d3d12.clear import record_clear
from dmlemu.d3d12.command_allocator import ID3D12CommandAllocator
from dmlemu.d3d12.copy_texture import check_copy_resource, record_copy_texture_region
from dmlemu.d3d12.commands import (CopyBufferRegionCommand, EndQueryCommand, ExecuteBundleCommand,
                                   ResolveQueryDataCommand, ResourceBarrierCommand)
from dmlemu.d3d12.descriptor_heap import ID3D12DescriptorHeap
from dmlemu.d3d12 import dispatch as _dispatch
from dmlemu.d3d12.dispatch import is_pipeline_state_of
from dmlemu.d3d12.enums import (
    D3D12_COMMAND_LIST_FLAG_NONE, D3D12_COMMAND_LIST_TYPE, D3D12_COMMAND_LIST_TYPE_BUNDLE,
    D3D12_COMMAND_LIST_TYPE_COMPUTE, D3D12_COMMAND_LIST_TYPE_COPY, D3D12_COMMAND_LIST_TYPE_DIRECT,
    D3D12_DESCRIPTOR_HEAP_TYPE, D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, D3D12_DESCRIPTOR_HEAP_TYPE_SAMPLER,
    D3D12_HEAP_TYPE_READBACK, D3D12_HEAP_TYPE_UPLOAD, D3D12_QUERY_TYPE, D3D12_RESOURCE_BARRIER_ALL_SUBRESOURCES,
    D3D12_RESOURCE_BARRIER_FLAG_BEGIN_ONLY, D3D12_RESOURCE_BARRIER_FLAGS, D3D12_RESOURCE_BARRIER_TYPE,
    D3D12_RESOURCE_BARRIER_TYPE_ALIASING,
    D3D12_RESOURCE_BARRIER_TYPE_TRANSITION, D3D12_RESOURCE_BARRIER_TYPE_UAV, D3D12_RESOURCE_STATE_COPY_DEST,
    D3D12_RESOURCE_STATE_COPY_SOURCE, D3D12_RESOURCE_STATE_GENERIC_READ, is_valid_state, state_name)
from dmlemu.d3d12.query_heap import COPY_QUEUE_TIMESTAMP_HEAP, ID3D12QueryHeap, TIMESTAMP_HEAP, TIMESTAMP_QUERY
from dmlemu.d3d12.messages import report
from dmlemu.d3d12.resource import FIXED_STATE, ID3D12Resource
from dmlemu.d3d12.structs import D3D12_RESOURCE_BARRIER

DIRECT, BUNDLE, COMPUTE, COPY = (D3D12_COMMAND_LIST_TYPE_DIRECT, D3D12_COMMAND_LIST_TYPE_BUNDLE,
                                  D3D12_COMMAND_LIST_TYPE_COMPUTE, D3D12_COMMAND_LIST_TYPE_COPY)
LIST_TYPES = (DIRECT, BUNDLE, COMPUTE, COPY)
# States a copy list may transition between (plus COMMON); a plain int, so `~` is the bitwise complement.
COPY_QUEUE_STATES = int(D3D12_RESOURCE_STATE_COPY_DEST | D3D12_RESOURCE_STATE_COPY_SOURCE)
# A barrier as recorded: (kind, resource, StateBefore, StateAfter, Flags, index, Subresource), kind a plain int.
_TRANSITION, _ALIASING, _UAV = (int(D3D12_RESOURCE_BARRIER_TYPE_TRANSITION), int(D3D12_RESOURCE_BARRIER_TYPE_ALIASING),
                                int(D3D12_RESOURCE_BARRIER_TYPE_UAV))


def _state_words(state):
    """A D3D12_RESOURCE_STATES value as the debug layer prints it: '0x400: D3D12_RESOURCE_STATE_COPY_DEST'."""
    return f"0x{int(state):X}: {state_name(state)}"


def _type_name(list_type):
    return enum_name(D3D12_COMMAND_LIST_TYPE, list_type)


def _is_uint(value):
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 1 << 64


def _check_allocator(method, device, allocator, list_type, command_list=None):
    """E_INVALIDARG unless `allocator` is a free allocator of `device` and of `list_type`."""
    if not isinstance(allocator, ID3D12CommandAllocator) or allocator._device is not device:
        raise invalid_arg(method, f"pAllocator is {allocator!r}; it must be a command allocator of this device.")
    if allocator._type != list_type:
        raise invalid_arg(method, f"{allocator._label} is a {_type_name(allocator._type)} allocator; the command "
                                  f"list is {_type_name(list_type)}.")
    other = allocator._recording_list
    if other is not None and other is not command_list:
        raise invalid_arg(method, f"{allocator._label} is in use by {other._label}, which is still recording; "
                                  "an allocator backs one recording list at a time.")


_RECORDING_LOCK = threading.Lock()   # guards every list's `_recording` (thread, depth) pair


def recording_method(method):
    """Wrap a recording method: no-op once the device is removed; closed list -> device removal;
    VoidMisuse -> the list's error state; a call while another thread is inside a method of the
    same list -> the list's error state too (a command list is single-threaded; D3D12's debug layer
    reports the same)."""

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        if self._device._removed_reason is not None:
            return None
        if not self._open:
            self._report_closed(method.__name__)
            return None
        other = self._enter_recording()
        if other is not None:
            self._record_error(method.__name__, f"{self._label} is being recorded by thread {other} while thread "
                                                f"{threading.get_ident()} calls it; a command list is single-threaded "
                                                "(use one list per thread).")
            return None
        try:
            args, kwargs = c_arguments(args, kwargs)
            return method(self, *args, **kwargs)
        except VoidMisuse as misuse:
            self._record_error(method.__name__, misuse.message)
            return None
        except MemoryError:     # Close then fails with E_OUTOFMEMORY, as D3D12's does when recording ran out
            self._record_error(method.__name__, out_of_memory(), E_OUTOFMEMORY)
            return None
        finally:
            self._leave_recording()

    return wrapper


class ID3D12GraphicsCommandList(DeviceChild):
    """A command list of one type: DIRECT, BUNDLE, COMPUTE or COPY."""

    _kind = "command list"

    def __init__(self, device, list_type, node_mask):
        super().__init__(device)
        self._type = list_type
        self._node_mask = node_mask
        self._allocator = None
        self._allocator_epoch = 0
        self._open = False
        self._commands = []
        self._descriptor_heaps = ()
        self._pipeline_state = None          # SetPipelineState (compute pipelines only)
        self._compute_root_signature = None  # SetComputeRootSignature
        self._compute_root_args = {}         # root parameter index -> its argument (see Dispatch)
        self._error = None  # (hresult, sentence) of the first misuse since the last Reset
        self._barrier_states = {}  # buffer -> the StateAfter of this list's last transition of it
        self._recording = None  # [thread id, depth] while a recording method runs

    def _enter_recording(self):
        """Mark this thread as recording; the other thread's id when another one already is."""
        me = threading.get_ident()
        with _RECORDING_LOCK:
            if self._recording is None:
                self._recording = [me, 1]
            elif self._recording[0] == me:
                self._recording[1] += 1
            else:
                return self._recording[0]
        return None

    def _leave_recording(self):
        with _RECORDING_LOCK:
            self._recording[1] -= 1
            if self._recording[1] == 0:
                self._recording = None

    # ---- internal contract ---------------------------------------------------------------------
    def _is_open(self):
        return self._open

    def _record(self, command):
        """Append a command; False (nothing recorded) on a closed list or a removed device."""
        if self._device._removed_reason is not None:
            return False
        if not self._open:
            self._report_closed(getattr(command, "name", type(command).__name__))
            return False
        self._commands.append(command)
        return True

    def _record_error(self, method_name, message, hresult=E_INVALIDARG):
        """Misuse while recording: the list is in error (Close fails); the debug layer raises at once."""
        sentence = prefixed(method_name, message)
        if self._error is None:
            self._error = (hresult, sentence)
        if self._device._debug_layer:
            report(self._device, hresult, sentence)   # raises when the info queue breaks on it

    def _report_closed(self, method_name):
        self._device._report_misuse(
            DXGI_ERROR_INVALID_CALL,
            f"{method_name}: {self._label} is closed; Reset it before recording into it.")

    def _begin(self, allocator, initial_state=None):
        self._allocator = allocator
        self._allocator_epoch = allocator._epoch
        allocator._recording_list = self
        self._open = True
        self._commands = []
        self._descriptor_heaps = ()
        self._pipeline_state = initial_state
        self._compute_root_signature = None
        self._compute_root_args = {}
        self._error = None
        self._barrier_states = {}

    def _check_resource(self, field, resource):
        if not isinstance(resource, ID3D12Resource) or resource._device is not self._device:
            raise VoidMisuse(f"{field} is {resource!r}; it must be a resource of this device.")

    def _check_buffer(self, field, resource, method):
        """A resource of this device that is a buffer (VoidMisuse for a texture: `method` is buffers only)."""
        if not isinstance(resource, ID3D12Resource) or resource._device is not self._device:
            raise VoidMisuse(f"{field} is {resource!r}; it must be a buffer of this device.")
        if resource._texture is not None:
            raise VoidMisuse(f"{field} {resource._label} is a texture; {method} takes buffers"
                             f"{' (copy textures with CopyTextureRegion or CopyResource)' if 'Copy' in method else ''}.")

    def _require_type(self, *allowed):
        if self._type not in allowed:
            names = " or ".join(_type_name(t) for t in allowed)
            raise VoidMisuse(f"{self._label} is a {_type_name(self._type)} list; this method needs a {names} list.")

    # ---- ID3D12GraphicsCommandList: state ------------------------------------------------------
    def GetType(self):
        return self._type

    @hresult_method
    def Close(self):
        """End recording. E_FAIL if already closed; E_INVALIDARG if a recording call was invalid."""
        if not self._open:
            raise HResultError(E_FAIL, f"Close: {self._label} is already closed; Reset it to record again.")
        self._open = False
        if self._allocator is not None and self._allocator._recording_list is self:
            self._allocator._recording_list = None
        if self._error is not None:
            hresult, sentence = self._error
            raise HResultError(hresult, f"Close: {self._label} recorded an invalid call, so it cannot be executed: "
                                        f"{sentence}")

    @hresult_method
    def Reset(self, pAllocator, pInitialState):
        """Start recording again into pAllocator (which may be the one just used)."""
        if self._open:
            raise HResultError(E_FAIL, f"Reset: {self._label} is still recording; Close it before Reset.")
        _check_allocator("Reset", self._device, pAllocator, self._type, self)
        if not is_pipeline_state_of(self._device, pInitialState):
            raise invalid_arg("Reset", f"pInitialState is {pInitialState!r}; it must be a pipeline state of this "
                                       "device or None.")
        self._begin(pAllocator, pInitialState)

    @recording_method
    def ClearState(self, pPipelineState):
        """Reset the list's state (descriptor heaps, root signature and arguments) to the defaults, with
        pPipelineState (or none) as its pipeline state."""
        if not is_pipeline_state_of(self._device, pPipelineState):
            raise VoidMisuse(f"pPipelineState is {pPipelineState!r}; it must be a pipeline state of this device "
                             "or None.")
        self._descriptor_heaps = ()
        self._pipeline_state = pPipelineState
        self._compute_root_signature = None
        self._compute_root_args = {}

    @recording_method
    def SetDescriptorHeaps(self, ppDescriptorHeaps):
        """Bind shader-visible heaps (at most one CBV_SRV_UAV and one SAMPLER) for later dispatches."""
        self._require_type(DIRECT, COMPUTE, BUNDLE)
        if ppDescriptorHeaps is not None and not isinstance(ppDescriptorHeaps, (list, tuple)):
            raise VoidMisuse(f"ppDescriptorHeaps is {ppDescriptorHeaps!r}; it must be a sequence of descriptor heaps "
                             "(the C count and array) or None.")
        heaps = tuple(ppDescriptorHeaps or ())
        seen = {}
        for i, heap in enumerate(heaps):
            if not isinstance(heap, ID3D12DescriptorHeap) or heap._device is not self._device:
                raise VoidMisuse(f"ppDescriptorHeaps[{i}] is {heap!r}; it must be a descriptor heap of this device.")
            type_name = enum_name(D3D12_DESCRIPTOR_HEAP_TYPE, heap._type)
            if heap._type not in (D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, D3D12_DESCRIPTOR_HEAP_TYPE_SAMPLER):
                raise VoidMisuse(f"ppDescriptorHeaps[{i}] is {heap._label}, a {type_name} heap; only CBV_SRV_UAV and "
                                 "SAMPLER heaps are set on a list.")
            if not heap._shader_visible:
                raise VoidMisuse(f"ppDescriptorHeaps[{i}] is {heap._label}, which is not shader-visible.")
            if heap._type in seen:
                raise VoidMisuse(f"ppDescriptorHeaps[{i}] is a second {type_name} heap (after ppDescriptorHeaps"
                                 f"[{seen[heap._type]}]); a list has at most one heap of each type.")
            seen[heap._type] = i
        self._descriptor_heaps = heaps

    def _cbv_srv_uav_heap(self):
        """The shader-visible CBV_SRV_UAV heap set by SetDescriptorHeaps, or None: where descriptor tables
        (RecordDispatch's, SetComputeRootDescriptorTable's, a clear's GPU handle) must lie."""
        return next((h for h in self._descriptor_heaps if h._type == D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV), None)

    # ---- barriers ------------------------------------------------------------------------------
    @recording_method
    def ResourceBarrier(self, pBarriers):
        """Record barriers: transitions (checked against the tracked state when they execute), UAV, aliasing."""
        self._require_type(DIRECT, COMPUTE, COPY)
        if not isinstance(pBarriers, (list, tuple)):
            raise VoidMisuse("pBarriers must be a sequence of D3D12_RESOURCE_BARRIER (the C count and array).")
        records = []
        for i, barrier in enumerate(pBarriers):
            records.append(self._check_barrier(i, barrier))
        if records:
            self._commands.append(ResourceBarrierCommand(tuple(records)))
        mismatches = []
        for kind, resource, before, after, flags, i, subresource in records:
            if kind != _TRANSITION or flags & D3D12_RESOURCE_BARRIER_FLAG_BEGIN_ONLY:
                continue        # a split barrier's state changes at its END_ONLY half
            # a texture's transitions are tracked per subresource (and ALL as its own key), a buffer's per buffer
            key = resource if resource._texture is None else (resource, subresource)
            previous = self._barrier_states.get(key)
            shown = 0 if resource._texture is None or subresource == D3D12_RESOURCE_BARRIER_ALL_SUBRESOURCES \
                else subresource
            if previous is not None and previous != before:
                mismatches.append(
                    f"ResourceBarrier: Before state ({_state_words(before)}) of resource ({resource._label}) "
                    f"(subresource: {shown}) specified by transition barrier pBarriers[{i}] does not match with the state "
                    f"({_state_words(previous)}) specified in the previous call to ResourceBarrier on {self._label}; "
                    f"a transition's StateBefore must be the state the list's previous transition of the resource "
                    f"left it in.")
            self._barrier_states[key] = after
        if self._device._debug_layer:
            for sentence in mismatches:       # raises at the first when the info queue breaks on errors
                report(self._device, DXGI_ERROR_INVALID_CALL, sentence)

    def _check_barrier(self, i, barrier):
        where = f"pBarriers[{i}]"
        if not isinstance(barrier, D3D12_RESOURCE_BARRIER):
            raise VoidMisuse(f"{where} is {barrier!r}; it must be a D3D12_RESOURCE_BARRIER.")
        flags = barrier.Flags
        if not is_one_of(flags, D3D12_RESOURCE_BARRIER_FLAGS._c_names_):
            raise VoidMisuse(f"{where}.Flags is {flags!r}; it must be NONE, BEGIN_ONLY or END_ONLY.")
        if not is_one_of(barrier.Type, D3D12_RESOURCE_BARRIER_TYPE._c_names_):
            raise VoidMisuse(f"{where}.Type is {barrier.Type!r}; it must be TRANSITION, ALIASING or UAV.")
        kind = int(barrier.Type)
        if kind == D3D12_RESOURCE_BARRIER_TYPE_TRANSITION:
            t = barrier.Transition
            self._check_resource(f"{where}.Transition.pResource", t.pResource)
            resource = t.pResource
            texture = resource._texture
            if texture is not None and t.Subresource != D3D12_RESOURCE_BARRIER_ALL_SUBRESOURCES \
                    and not (is_integer(t.Subresource) and 0 <= t.Subresource < texture.count):
                raise VoidMisuse(f"{where}.Transition.Subresource is {t.Subresource!r}; {resource._label} has "
                                 f"subresources 0 to {texture.count - 1} (or D3D12_RESOURCE_BARRIER_ALL_SUBRESOURCES).")
            if texture is None and t.Subresource not in (0, D3D12_RESOURCE_BARRIER_ALL_SUBRESOURCES):
                raise VoidMisuse(f"{where}.Transition.Subresource is {t.Subresource!r}; a buffer has only "
                                 "subresource 0 (or D3D12_RESOURCE_BARRIER_ALL_SUBRESOURCES).")
            for field in ("StateBefore", "StateAfter"):
                if not is_integer(getattr(t, field)):
                    raise VoidMisuse(f"{where}.Transition.{field} is {getattr(t, field)!r}; it must be a "
                                     "D3D12_RESOURCE_STATES value.")
                if not is_valid_state(getattr(t, field)):
                    raise VoidMisuse(f"{where}.Transition.{field} {state_name(getattr(t, field))} is not a valid "
                                     "state: it must be COMMON, one write state, or a combination of read states.")
            if t.StateBefore == t.StateAfter:
                raise VoidMisuse(f"{where}.Transition has StateBefore and StateAfter both "
                                 f"{state_name(t.StateBefore)}; a transition must change the state.")
            fixed = FIXED_STATE.get(resource._heap_type)
            if fixed is not None:
                heap = "UPLOAD" if fixed == D3D12_RESOURCE_STATE_GENERIC_READ else "READBACK"
                raise VoidMisuse(f"{where} transitions {resource._label}, which lives on an "
                                 f"{heap} heap and stays in {state_name(fixed)}.")
            if self._type == COPY:
                for field in ("StateBefore", "StateAfter"):
                    if int(getattr(t, field)) & ~COPY_QUEUE_STATES:
                        raise VoidMisuse(f"{where}.Transition.{field} is {state_name(getattr(t, field))}; a COPY "
                                         "list only uses COMMON, COPY_SOURCE and COPY_DEST.")
            return (_TRANSITION, resource, int(t.StateBefore), int(t.StateAfter), int(flags), i, int(t.Subresource))
        if kind == D3D12_RESOURCE_BARRIER_TYPE_ALIASING:
            a = barrier.Aliasing
            for field in ("pResourceBefore", "pResourceAfter"):
                if getattr(a, field) is not None:
                    self._check_resource(f"{where}.Aliasing.{field}", getattr(a, field))
            return (_ALIASING, None, 0, 0, int(flags), i, None)
        if barrier.UAV.pResource is not None:   # D3D12_RESOURCE_BARRIER_TYPE_UAV
            self._check_resource(f"{where}.UAV.pResource", barrier.UAV.pResource)
        return (_UAV, barrier.UAV.pResource, 0, 0, int(flags), i, None)

    # ---- copies --------------------------------------------------------------------------------
    @recording_method
    def CopyBufferRegion(self, pDstBuffer, DstOffset, pSrcBuffer, SrcOffset, NumBytes):
        """Record a copy of NumBytes from pSrcBuffer[SrcOffset:] to pDstBuffer[DstOffset:]."""
        self._require_type(DIRECT, COMPUTE, COPY)
        self._check_buffer("pDstBuffer", pDstBuffer, "CopyBufferRegion")
        self._check_buffer("pSrcBuffer", pSrcBuffer, "CopyBufferRegion")
        for field, value in (("DstOffset", DstOffset), ("SrcOffset", SrcOffset), ("NumBytes", NumBytes)):
            if not _is_uint(value):
                raise VoidMisuse(f"{field} is {value!r}; it must be an unsigned 64-bit integer.")
        self._check_copy_heaps(pDstBuffer, pSrcBuffer)
        for field, buffer, offset in (("pDstBuffer", pDstBuffer, DstOffset), ("pSrcBuffer", pSrcBuffer, SrcOffset)):
            if offset + NumBytes > buffer._width:
                side = "Dst" if field == "pDstBuffer" else "Src"
                raise VoidMisuse(f"{side}Offset {offset} + NumBytes {NumBytes} = {offset + NumBytes} passes the end of "
                                 f"{buffer._label}, which is {buffer._width} bytes.")
        if pDstBuffer is pSrcBuffer and DstOffset < SrcOffset + NumBytes and SrcOffset < DstOffset + NumBytes:
            raise VoidMisuse(f"the source bytes {SrcOffset} to {SrcOffset + NumBytes} and destination bytes "
                             f"{DstOffset} to {DstOffset + NumBytes} of {pDstBuffer._label} overlap.")
        self._commands.append(CopyBufferRegionCommand(pDstBuffer, DstOffset, pSrcBuffer, SrcOffset, NumBytes,
                                                      "CopyBufferRegion"))

    @recording_method
    def CopyResource(self, pDstResource, pSrcResource):
        """Record a copy of a whole buffer into another of the same size."""
        self._require_type(DIRECT, COMPUTE, COPY)
        self._check_resource("pDstResource", pDstResource)
        self._check_resource("pSrcResource", pSrcResource)
        if pDstResource is pSrcResource:
            raise VoidMisuse(f"pDstResource and pSrcResource are both {pDstResource._label}; they must differ.")
        if pDstResource._texture is not None or pSrcResource._texture is not None:
            check_copy_resource(pDstResource, pSrcResource)     # then both layouts are the same bytes
        if pDstResource._width != pSrcResource._width:
            raise VoidMisuse(f"pDstResource {pDstResource._label} is {pDstResource._width} bytes and pSrcResource "
                             f"{pSrcResource._label} is {pSrcResource._width}; CopyResource needs equal sizes.")
        self._check_copy_heaps(pDstResource, pSrcResource)
        self._commands.append(CopyBufferRegionCommand(pDstResource, 0, pSrcResource, 0, pDstResource._width,
                                                      "CopyResource"))

    @recording_method
    def CopyTextureRegion(self, pDst, DstX, DstY, DstZ, pSrc, pSrcBox):
        """Record a copy of pSrcBox (None: all) of pSrc's texels to (DstX, DstY, DstZ) of pDst; each side a
        D3D12_TEXTURE_COPY_LOCATION: a texture subresource or a buffer footprint (copy_texture.py)."""
        self._require_type(DIRECT, COMPUTE, COPY)
        record_copy_texture_region(self, pDst, DstX, DstY, DstZ, pSrc, pSrcBox)

    @staticmethod
    def _check_copy_heaps(dst, src):
        if dst._heap_type == D3D12_HEAP_TYPE_UPLOAD:
            raise VoidMisuse(f"the destination {dst._label} is on an UPLOAD heap, which stays in "
                             "D3D12_RESOURCE_STATE_GENERIC_READ and cannot be written by the GPU.")
        if src._heap_type == D3D12_HEAP_TYPE_READBACK:
            raise VoidMisuse(f"the source {src._label} is on a READBACK heap, which stays in "
                             "D3D12_RESOURCE_STATE_COPY_DEST and cannot be read by the GPU.")

    # ---- UAV clears (clear.py) -----------------------------------------------------------------
    @recording_method
    def ClearUnorderedAccessViewUint(self, ViewGPUHandleInCurrentHeap, ViewCPUHandle, pResource, Values, NumRects,
                                     pRects):
        """Record a clear of a buffer UAV to Values (UINT[4]: each channel's low bits; RAW and structured
        views take Values[0] per 32-bit word); runs as a dispatch, unordered without a UAV barrier."""
        self._require_type(DIRECT, COMPUTE)
        record_clear(self, "ClearUnorderedAccessViewUint", ViewGPUHandleInCurrentHeap, ViewCPUHandle, pResource,
                     Values, NumRects, pRects, is_float=False)

    @recording_method
    def ClearUnorderedAccessViewFloat(self, ViewGPUHandleInCurrentHeap, ViewCPUHandle, pResource, Values, NumRects,
                                      pRects):
        """Record a clear of a FLOAT / UNORM / SNORM buffer UAV to Values (FLOAT[4], converted per channel)."""
        self._require_type(DIRECT, COMPUTE)
        record_clear(self, "ClearUnorderedAccessViewFloat", ViewGPUHandleInCurrentHeap, ViewCPUHandle, pResource,
                     Values, NumRects, pRects, is_float=True)

    # ---- queries -------------------------------------------------------------------------------
    def _check_query(self, heap, query_type, index, count=1, first_field="Index"):
        if not isinstance(heap, ID3D12QueryHeap) or heap._device is not self._device:
            raise VoidMisuse(f"pQueryHeap is {heap!r}; it must be a query heap of this device.")
        if not is_one_of(query_type, (TIMESTAMP_QUERY,)):
            raise VoidMisuse(f"Type is {enum_name(D3D12_QUERY_TYPE, query_type)}; {heap._label} holds timestamps, "
                             "so it must be D3D12_QUERY_TYPE_TIMESTAMP.")
        wanted = COPY_QUEUE_TIMESTAMP_HEAP if self._type == COPY else TIMESTAMP_HEAP
        if heap._type != wanted:
            kind = "a COPY list" if self._type == COPY else f"a {_type_name(self._type)} list"
            def short(heap_type):
                return "COPY_QUEUE_TIMESTAMP" if heap_type == COPY_QUEUE_TIMESTAMP_HEAP else "TIMESTAMP"
            raise VoidMisuse(f"{heap._label} is a {short(heap._type)} heap; "
                             f"{kind} needs a D3D12_QUERY_HEAP_TYPE_{short(wanted)} heap.")
        if not _is_uint(index) or not _is_uint(count) or index + count > heap._count:
            single = first_field == "Index" and _is_uint(count) and count == 1   # count may be anything here
            what = f"{first_field} {short_repr(index)}" if single else \
                f"StartIndex {short_repr(index)} + NumQueries {short_repr(count)}"
            raise VoidMisuse(f"{what} passes the end of {heap._label}, which holds {heap._count} queries.")

    @recording_method
    def BeginQuery(self, pQueryHeap, Type, Index):
        """Timestamp queries have no BeginQuery (the only queries emulated); always a recording error."""
        self._require_type(DIRECT, COMPUTE, COPY)
        raise VoidMisuse(f"Type is {enum_name(D3D12_QUERY_TYPE, Type)}; timestamp queries take only EndQuery, and "
                         "the emulator has no other queries.")

    @recording_method
    def EndQuery(self, pQueryHeap, Type, Index):
        """Record a timestamp: slot Index gets the GPU clock when this point of the list executes."""
        self._require_type(DIRECT, COMPUTE, COPY)
        self._check_query(pQueryHeap, Type, Index)
        self._commands.append(EndQueryCommand(pQueryHeap, Index))

    @recording_method
    def ResolveQueryData(self, pQueryHeap, Type, StartIndex, NumQueries, pDestinationBuffer,
                         AlignedDestinationBufferOffset):
        """Record a copy of NumQueries timestamps (uint64 ticks) into pDestinationBuffer."""
        self._require_type(DIRECT, COMPUTE, COPY)
        self._check_query(pQueryHeap, Type, StartIndex, NumQueries, "StartIndex")
        self._check_buffer("pDestinationBuffer", pDestinationBuffer, "ResolveQueryData")
        offset = AlignedDestinationBufferOffset
        if not _is_uint(offset) or offset % 8:
            raise VoidMisuse(f"AlignedDestinationBufferOffset is {offset!r}; it must be a multiple of 8.")
        if offset + 8 * NumQueries > pDestinationBuffer._width:
            raise VoidMisuse(f"{NumQueries} queries (8 bytes each) from AlignedDestinationBufferOffset {offset} pass "
                             f"the end of {pDestinationBuffer._label}, which is {pDestinationBuffer._width} bytes.")
        if pDestinationBuffer._heap_type == D3D12_HEAP_TYPE_UPLOAD:
            raise VoidMisuse(f"the destination {pDestinationBuffer._label} is on an UPLOAD heap, which the GPU "
                             "cannot write.")
        self._commands.append(ResolveQueryDataCommand(pQueryHeap, StartIndex, NumQueries, pDestinationBuffer, offset))

    # ---- compute pipelines: pipeline state, root signature, root arguments, Dispatch -------------
    # The checks and the command are dispatch.py's; the list keeps `_pipeline_state`,
    # `_compute_root_signature` and `_compute_root_args`, which Reset and ClearState clear.
    @recording_method
    def SetPipelineState(self, pPipelineState):
        """Make pPipelineState (a compute pipeline) the one later Dispatch calls run."""
        self._require_type(DIRECT, COMPUTE)
        _dispatch.set_pipeline_state(self, pPipelineState)

    @recording_method
    def SetComputeRootSignature(self, pRootSignature):
        """Set the compute root signature; a different layout drops the root arguments set so far."""
        self._require_type(DIRECT, COMPUTE)
        _dispatch.set_root_signature(self, pRootSignature)

    @recording_method
    def SetComputeRoot32BitConstant(self, RootParameterIndex, SrcData, DestOffsetIn32BitValues):
        """Set one 32-bit value (a UINT, or an np.float32's bits) of a 32BIT_CONSTANTS parameter."""
        self._require_type(DIRECT, COMPUTE)
        _dispatch.set_constants(self, RootParameterIndex, [SrcData], DestOffsetIn32BitValues, "SrcData")

    @recording_method
    def SetComputeRoot32BitConstants(self, RootParameterIndex, Num32BitValuesToSet, pSrcData, DestOffsetIn32BitValues):
        """Set Num32BitValuesToSet values (bytes, a 4-byte NumPy array or a sequence) from DestOffsetIn32BitValues."""
        self._require_type(DIRECT, COMPUTE)
        _dispatch.set_constants(self, RootParameterIndex, pSrcData, DestOffsetIn32BitValues, "pSrcData",
                                Num32BitValuesToSet)

    @recording_method
    def SetComputeRootDescriptorTable(self, RootParameterIndex, BaseDescriptor):
        """Point a DESCRIPTOR_TABLE parameter at a slot of a shader-visible CBV_SRV_UAV heap."""
        self._require_type(DIRECT, COMPUTE)
        _dispatch.set_descriptor_table(self, RootParameterIndex, BaseDescriptor)

    @recording_method
    def SetComputeRootConstantBufferView(self, RootParameterIndex, BufferLocation):
        """Bind a root CBV: the GPU virtual address of constant data (256-byte aligned)."""
        self._require_type(DIRECT, COMPUTE)
        _dispatch.set_root_view(self, RootParameterIndex, BufferLocation, "CBV")

    @recording_method
    def SetComputeRootShaderResourceView(self, RootParameterIndex, BufferLocation):
        """Bind a root SRV: a GPU virtual address inside a buffer (the view reaches the buffer's end)."""
        self._require_type(DIRECT, COMPUTE)
        _dispatch.set_root_view(self, RootParameterIndex, BufferLocation, "SRV")

    @recording_method
    def SetComputeRootUnorderedAccessView(self, RootParameterIndex, BufferLocation):
        """Bind a root UAV: a GPU virtual address inside a buffer with ALLOW_UNORDERED_ACCESS."""
        self._require_type(DIRECT, COMPUTE)
        _dispatch.set_root_view(self, RootParameterIndex, BufferLocation, "UAV")

    @recording_method
    def Dispatch(self, ThreadGroupCountX, ThreadGroupCountY, ThreadGroupCountZ):
        """Record the pipeline state's compute shader over a grid of thread groups (0 in any: nothing)."""
        self._require_type(DIRECT, COMPUTE)
        command = _dispatch.record(self, ThreadGroupCountX, ThreadGroupCountY, ThreadGroupCountZ)
        if command is not None:
            self._commands.append(command)

    # ---- bundles -------------------------------------------------------------------------------
    @recording_method
    def ExecuteBundle(self, pCommandList):
        """Record a closed bundle's commands, run inline when this DIRECT list executes."""
        self._require_type(DIRECT)
        bundle = pCommandList
        if not isinstance(bundle, ID3D12GraphicsCommandList) or bundle._device is not self._device \
                or bundle._type != BUNDLE:
            raise VoidMisuse(f"pCommandList is {bundle!r}; it must be a BUNDLE command list of this device.")
        if bundle._open:
            raise VoidMisuse(f"{bundle._label} is still recording; Close it before ExecuteBundle.")
        if bundle._error is not None:
            raise VoidMisuse(f"{bundle._label} failed to Close, so it cannot be executed.")
        self._commands.append(ExecuteBundleCommand(bundle._label, tuple(bundle._commands)))


def create_command_list(device, node_mask, list_type, allocator, initial_state):
    m = "CreateCommandList"
    if not is_one_of(node_mask, (0, 1)):
        raise invalid_arg(m, f"nodeMask is {node_mask!r}; the emulated adapter has one node, so it must be 0 or 1.")
    if not is_one_of(list_type, LIST_TYPES):
        raise invalid_arg(m, f"type is {_type_name(list_type)}; it must be DIRECT, BUNDLE, COMPUTE or COPY.")
    if not is_pipeline_state_of(device, initial_state):
        raise invalid_arg(m, f"pInitialState is {initial_state!r}; it must be a pipeline state of this device or None.")
    _check_allocator(m, device, allocator, list_type)
    command_list = ID3D12GraphicsCommandList(device, int(list_type), node_mask)
    command_list._begin(allocator, initial_state)
    return command_list


def create_command_list1(device, node_mask, list_type, flags):
    m = "CreateCommandList1"
    if not is_one_of(node_mask, (0, 1)):
        raise invalid_arg(m, f"nodeMask is {node_mask!r}; the emulated adapter has one node, so it must be 0 or 1.")
    if not is_one_of(list_type, LIST_TYPES):
        raise invalid_arg(m, f"type is {_type_name(list_type)}; it must be DIRECT, BUNDLE, COMPUTE or COPY.")
    if not is_one_of(flags, (D3D12_COMMAND_LIST_FLAG_NONE,)):
        raise invalid_arg(m, f"flags is {flags!r}; it must be D3D12_COMMAND_LIST_FLAG_NONE.")
    return ID3D12GraphicsCommandList(device, int(list_type), node_mask)


__all__ = ["ID3D12GraphicsCommandList"]
