"""ID3D12Resource: a committed buffer or texture, its bytes in GPU memory, and the resource-state model.

One per CreateCommittedResource call. The bytes live in one allocation of the device's GPU memory
(`_allocation`, whose gpu_va GetGPUVirtualAddress returns); Map hands the CPU that same NumPy array,
so UPLOAD writes and READBACK reads need no copy. A texture's bytes are laid out as texture_layout.py
says (rows 256 bytes apart, subresources on 512-byte boundaries); the allocation is freed
when the resource object is garbage-collected. Memory past the adapter's budget is E_OUTOFMEMORY and
changes nothing.

State model (D3D12's rules for buffers; textures differ where the end of this banner says):
- `_state` is the state the queue timeline has reached. It changes only when commands execute, in
  queue order: transition barriers set it and accesses promote it; recording changes nothing.
- UPLOAD resources are created in, and stay in, GENERIC_READ; READBACK resources in COPY_DEST (other
  initial states are E_INVALIDARG; transition barriers on them are recording errors).
- DEFAULT and CUSTOM buffers start in COMMON whatever initial state was asked: D3D12 creates buffers
  in COMMON and ignores the requested state (its debug layer warns). The requested state is checked
  and kept as `_initial_state`.
- Implicit promotion: a buffer in COMMON is promoted, at its first access within an
  ExecuteCommandLists call, to the state that access needs (COPY_SOURCE, COPY_DEST, UNORDERED_ACCESS,
  ...). A promotion to a read-only state may later gain more read bits; a promotion to a write state
  is final. A transition barrier finding the buffer in COMMON (or read-promoted to a subset of its
  StateBefore) counts as such a promotion to StateBefore.
- Decay: when an ExecuteCommandLists call finishes, every buffer it touched returns to COMMON
  (D3D12 decays buffers on every queue type).
- An access or a transition finding the buffer in another state is an execution error: the queue
  removes the device (DXGI_ERROR_INVALID_CALL) with a sentence naming the buffer and both states, as
  the debug layer's GPU-based validation would report it.
Commands of other modules check states at execution with `_require_state(resource, states, what)`.

Textures (`_texture`, a texture_layout.TextureLayout; None for a buffer) follow the same model with
D3D12's texture rules, per subresource (`_subresource_states`; `_state` is their common state, None
while they differ): a transition changes the subresource it names (or all), a copy or a clear checks and
promotes the subresources it touches, a view bound to a Dispatch the ones the view holds (view_states.py):
- created in the requested InitialResourceState (D3D12 keeps it for textures), checked against the
  flags (UNORDERED_ACCESS needs ALLOW_UNORDERED_ACCESS);
- promotion from COMMON only to COPY_DEST or to read-only states (NON_PIXEL_SHADER_RESOURCE,
  PIXEL_SHADER_RESOURCE, COPY_SOURCE), unless the texture has ALLOW_SIMULTANEOUS_ACCESS (then as a
  buffer): a UAV clear of a COMMON texture is an execution error, as in D3D12;
- decay to COMMON at the end of an ExecuteCommandLists call only when it was promoted to a read-only
  state, accessed on a COPY queue, or has ALLOW_SIMULTANEOUS_ACCESS (the D3D12 "Implicit state
  transitions" page's list).
Map on a texture: DEFAULT textures are E_INVALIDARG, like DEFAULT buffers; a texture on a CPU-visible
CUSTOM heap maps with no CPU pointer (Map returns None, as D3D12 wants ppData NULL for UNKNOWN layouts) and
is read and written with ReadFromSubresource / WriteToSubresource while mapped. GetGPUVirtualAddress is 0
for a texture (D3D12: buffers only).
"""
import weakref

import numpy as np

from dmlemu.errors import DXGI_ERROR_INVALID_CALL, E_OUTOFMEMORY, HResultError
from dmlemu.functional.device_memory import OutOfDeviceMemory
from dmlemu.com import VoidMisuse, hresult_method, is_integer, void_method
from dmlemu.d3d12.base import DeviceChild, invalid_arg
from dmlemu.com import enum_name, is_one_of
from dmlemu.d3d12.enums import (
    D3D12_CPU_PAGE_PROPERTY_NOT_AVAILABLE, D3D12_CPU_PAGE_PROPERTY_UNKNOWN, D3D12_CPU_PAGE_PROPERTY_WRITE_BACK,
    D3D12_CPU_PAGE_PROPERTY_WRITE_COMBINE, D3D12_DEFAULT_RESOURCE_PLACEMENT_ALIGNMENT, D3D12_HEAP_FLAG_ALLOW_DISPLAY,
    D3D12_HEAP_FLAG_ALLOW_SHADER_ATOMICS, D3D12_HEAP_FLAG_ALLOW_WRITE_WATCH, D3D12_HEAP_FLAG_CREATE_NOT_RESIDENT,
    D3D12_HEAP_FLAG_CREATE_NOT_ZEROED, D3D12_HEAP_FLAG_DENY_BUFFERS, D3D12_HEAP_FLAG_DENY_NON_RT_DS_TEXTURES,
    D3D12_HEAP_FLAG_DENY_RT_DS_TEXTURES, D3D12_HEAP_FLAG_HARDWARE_PROTECTED, D3D12_HEAP_FLAG_SHARED,
    D3D12_HEAP_FLAG_SHARED_CROSS_ADAPTER, D3D12_HEAP_TYPE, D3D12_HEAP_TYPE_CUSTOM, D3D12_HEAP_TYPE_DEFAULT,
    D3D12_HEAP_TYPE_READBACK, D3D12_HEAP_TYPE_UPLOAD, D3D12_MEMORY_POOL_L0, D3D12_MEMORY_POOL_L1,
    D3D12_MEMORY_POOL_UNKNOWN, D3D12_RESOURCE_DIMENSION, D3D12_RESOURCE_DIMENSION_BUFFER,
    D3D12_RESOURCE_DIMENSION_TEXTURE1D, D3D12_RESOURCE_DIMENSION_TEXTURE2D, D3D12_RESOURCE_DIMENSION_TEXTURE3D,
    D3D12_RESOURCE_FLAG_ALLOW_CROSS_ADAPTER, D3D12_RESOURCE_FLAG_ALLOW_DEPTH_STENCIL,
    D3D12_RESOURCE_FLAG_ALLOW_RENDER_TARGET, D3D12_RESOURCE_FLAG_ALLOW_SIMULTANEOUS_ACCESS,
    D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS, D3D12_RESOURCE_FLAG_DENY_SHADER_RESOURCE,
    D3D12_RESOURCE_FLAG_RAYTRACING_ACCELERATION_STRUCTURE, D3D12_RESOURCE_FLAG_VIDEO_DECODE_REFERENCE_ONLY,
    D3D12_RESOURCE_FLAG_VIDEO_ENCODE_REFERENCE_ONLY, D3D12_RESOURCE_STATE_COMMON, D3D12_RESOURCE_STATE_COPY_DEST,
    D3D12_RESOURCE_STATE_COPY_SOURCE, D3D12_RESOURCE_STATE_GENERIC_READ, D3D12_RESOURCE_STATE_UNORDERED_ACCESS,
    D3D12_TEXTURE_LAYOUT_ROW_MAJOR, is_read_only_state, is_valid_state, state_name)
from dmlemu.d3d12.structs import (D3D12_HEAP_PROPERTIES, D3D12_PLACED_SUBRESOURCE_FOOTPRINT, D3D12_RANGE,
                                  D3D12_RESOURCE_DESC, D3D12_SUBRESOURCE_FOOTPRINT)
from dmlemu.d3d12.texture_layout import (check_box, check_texture_resource, is_texture, subresource_name,
                                         texture_alignment, texture_footprints)
from dmlemu.dxgi import DXGI_FORMAT_UNKNOWN

# Plain ints (the state model stores and combines them; enum members would print differently).
COMMON = int(D3D12_RESOURCE_STATE_COMMON)
UNORDERED_ACCESS = int(D3D12_RESOURCE_STATE_UNORDERED_ACCESS)
COPY_DEST = int(D3D12_RESOURCE_STATE_COPY_DEST)
COPY_SOURCE = int(D3D12_RESOURCE_STATE_COPY_SOURCE)
GENERIC_READ = int(D3D12_RESOURCE_STATE_GENERIC_READ)

HEAP_DEFAULT, HEAP_UPLOAD, HEAP_READBACK, HEAP_CUSTOM = (int(D3D12_HEAP_TYPE_DEFAULT), int(D3D12_HEAP_TYPE_UPLOAD),
                                                         int(D3D12_HEAP_TYPE_READBACK), int(D3D12_HEAP_TYPE_CUSTOM))
# Heaps whose resources keep one state for life (D3D12: "cannot be changed").
FIXED_STATE = {HEAP_UPLOAD: GENERIC_READ, HEAP_READBACK: COPY_DEST}
_KNOWN_HEAP_FLAGS = int(
    D3D12_HEAP_FLAG_SHARED | D3D12_HEAP_FLAG_DENY_BUFFERS | D3D12_HEAP_FLAG_ALLOW_DISPLAY
    | D3D12_HEAP_FLAG_SHARED_CROSS_ADAPTER | D3D12_HEAP_FLAG_DENY_RT_DS_TEXTURES
    | D3D12_HEAP_FLAG_DENY_NON_RT_DS_TEXTURES | D3D12_HEAP_FLAG_HARDWARE_PROTECTED
    | D3D12_HEAP_FLAG_ALLOW_WRITE_WATCH | D3D12_HEAP_FLAG_ALLOW_SHADER_ATOMICS
    | D3D12_HEAP_FLAG_CREATE_NOT_RESIDENT | D3D12_HEAP_FLAG_CREATE_NOT_ZEROED)
_KNOWN_RESOURCE_FLAGS = int(
    D3D12_RESOURCE_FLAG_ALLOW_RENDER_TARGET | D3D12_RESOURCE_FLAG_ALLOW_DEPTH_STENCIL
    | D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS | D3D12_RESOURCE_FLAG_DENY_SHADER_RESOURCE
    | D3D12_RESOURCE_FLAG_ALLOW_CROSS_ADAPTER | D3D12_RESOURCE_FLAG_ALLOW_SIMULTANEOUS_ACCESS
    | D3D12_RESOURCE_FLAG_VIDEO_DECODE_REFERENCE_ONLY | D3D12_RESOURCE_FLAG_VIDEO_ENCODE_REFERENCE_ONLY
    | D3D12_RESOURCE_FLAG_RAYTRACING_ACCELERATION_STRUCTURE)
BUFFER_ALIGNMENT = int(D3D12_DEFAULT_RESOURCE_PLACEMENT_ALIGNMENT)
ALL_SUBRESOURCES = 0xFFFFFFFF          # D3D12_RESOURCE_BARRIER_ALL_SUBRESOURCES


def _is_uint(value, bits=64):
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < (1 << bits)


class ID3D12Resource(DeviceChild):
    """A buffer or a texture (`_texture`), committed or placed."""

    _kind = "buffer"

    def __init__(self, device, heap_properties, heap_flags, desc, initial_state, allocation, heap=None,
                 texture=None):
        if texture is not None:
            self._kind = "texture"     # labels: "texture #1"
        super().__init__(device)
        self._texture = texture    # texture_layout.TextureLayout, or None for a buffer
        self._heap = heap    # the ID3D12Heap a placed resource lives in (kept alive by it); None: committed
        self._heap_properties = heap_properties
        self._heap_type = int(heap_properties.Type)
        self._heap_flags = int(heap_flags)
        self._desc = desc
        self._flags = int(desc.Flags)
        self._initial_state = int(initial_state)
        self._state = FIXED_STATE.get(self._heap_type, COMMON) if texture is None else self._initial_state
        self._promoted_read = False  # the current state came from an implicit read-only promotion
        # A texture's state per subresource: [state, promoted to a read-only state]; `_state` is their common
        # state, or None while they differ.
        self._subresource_states = None if texture is None else [[self._initial_state, False]
                                                                 for _ in range(texture.count)]
        self._map_count = 0
        self._allocation = allocation
        allocation.name = self._label
        if self._heap_type in (HEAP_UPLOAD, HEAP_READBACK) or (
                self._heap_type == HEAP_CUSTOM and heap_properties.MemoryPoolPreference == D3D12_MEMORY_POOL_L0):
            device._gpu.note_host_memory(allocation)    # host memory behind the host link (gpu.py)
        if heap is None:    # a placed resource's bytes are its heap's, freed with the heap
            self._finalizer = weakref.finalize(self, device._gpu.memory.free, allocation)

    # ---- ID3D12Resource ------------------------------------------------------------------------
    @hresult_method
    def Map(self, Subresource, pReadRange):
        """A writable NumPy uint8 array over the whole buffer (UPLOAD, READBACK or CPU-visible CUSTOM); for a
        texture on a CPU-visible CUSTOM heap, None (no pointer: use Read/WriteToSubresource while mapped)."""
        if not self._cpu_visible():
            where = enum_name(D3D12_HEAP_TYPE, self._heap_type)
            raise invalid_arg("Map", f"{self._label} is on a {where} heap, which the CPU cannot map; "
                                     "copy it through an UPLOAD or READBACK buffer.")
        if self._texture is not None:
            self._check_subresource("Map", "Subresource", Subresource)
            if pReadRange is not None:
                raise invalid_arg("Map", f"pReadRange is {pReadRange!r}; a texture with Layout UNKNOWN is mapped "
                                         "without a range or pointer (use ReadFromSubresource).")
            self._map_count += 1
            return None
        if not is_one_of(Subresource, (0,)):
            raise invalid_arg("Map", f"Subresource is {Subresource!r}; a buffer has only subresource 0.")
        problem = self._range_problem("pReadRange", pReadRange)
        if problem:
            raise invalid_arg("Map", problem)
        self._map_count += 1
        return self._allocation.data

    @void_method
    def Unmap(self, Subresource, pWrittenRange):
        """Ends one Map (Map calls nest). Unmapping an unmapped buffer is reported, not fatal."""
        if self._texture is not None:
            if not is_integer(Subresource) or not 0 <= Subresource < self._texture.count:
                raise VoidMisuse(f"Subresource is {Subresource!r}; {self._label} has subresources 0 to "
                                 f"{self._texture.count - 1}.")
            if pWrittenRange is not None:
                raise VoidMisuse(f"pWrittenRange is {pWrittenRange!r}; a texture is unmapped without a range.")
            if self._map_count == 0:
                self._device._report_warning(
                    DXGI_ERROR_INVALID_CALL, f"Unmap: {self._label} is not mapped; each Unmap must follow a Map.")
                return
            self._map_count -= 1
            return
        if not is_one_of(Subresource, (0,)):
            raise VoidMisuse(f"Subresource is {Subresource!r}; a buffer has only subresource 0.")
        if self._map_count == 0:
            self._device._report_warning(
                DXGI_ERROR_INVALID_CALL, f"Unmap: {self._label} is not mapped; each Unmap must follow a Map.")
            return
        self._map_count -= 1
        problem = self._range_problem("pWrittenRange", pWrittenRange)
        if problem:
            raise VoidMisuse(problem)

    def GetGPUVirtualAddress(self):
        """The buffer's GPU virtual address (its allocation's gpu_va); 0 for a texture, as in D3D12."""
        return 0 if self._texture is not None else self._allocation.gpu_va

    @hresult_method
    def WriteToSubresource(self, DstSubresource, pDstBox, pSrcData, SrcRowPitch, SrcDepthPitch):
        """Copy texels from CPU memory (bytes-like, rows SrcRowPitch apart, depth slices SrcDepthPitch apart)
        into a box (None: all) of a mapped texture on a CPU-visible CUSTOM heap."""
        rows, box = self._cpu_rows("WriteToSubresource", "DstSubresource", DstSubresource, "pDstBox", pDstBox)
        source = _bytes_of("WriteToSubresource", "pSrcData", pSrcData)
        data = self._allocation.data
        for (at, size), src in zip(rows, _pitched(rows, box, SrcRowPitch, SrcDepthPitch, "WriteToSubresource", "Src",
                                                  source.size)):
            data[at:at + size] = source[src:src + size]

    @hresult_method
    def ReadFromSubresource(self, pDstData, DstRowPitch, DstDepthPitch, SrcSubresource, pSrcBox):
        """Copy texels of a box (None: all) of a mapped texture on a CPU-visible CUSTOM heap into pDstData (a
        writable bytes-like object: rows DstRowPitch apart, depth slices DstDepthPitch apart); returns it."""
        rows, box = self._cpu_rows("ReadFromSubresource", "SrcSubresource", SrcSubresource, "pSrcBox", pSrcBox)
        try:
            target = np.frombuffer(memoryview(pDstData).cast("B"), dtype=np.uint8)
        except (TypeError, ValueError):
            raise invalid_arg("ReadFromSubresource", f"pDstData is {type(pDstData).__name__}; it must be a writable "
                                                     "bytes-like object (a bytearray or a NumPy array).") from None
        if target.flags.writeable is False:
            raise invalid_arg("ReadFromSubresource", "pDstData is read-only; it must be writable.")
        data = self._allocation.data
        for (at, size), dst in zip(rows, _pitched(rows, box, DstRowPitch, DstDepthPitch, "ReadFromSubresource", "Dst",
                                                  target.size)):
            target[dst:dst + size] = data[at:at + size]
        return pDstData

    def GetDesc(self):
        """A copy of the D3D12_RESOURCE_DESC (Alignment reads 65536 when 0 was given, as in D3D12)."""
        return self._desc._copy()

    @hresult_method
    def GetHeapProperties(self):
        """(D3D12_HEAP_PROPERTIES, D3D12_HEAP_FLAGS): the two C out-parameters as a tuple."""
        return self._heap_properties._copy(), self._heap_flags

    @hresult_method
    def SetName(self, Name):
        DeviceChild.SetName(self, Name)
        self._allocation.name = self._label

    # ---- internal ------------------------------------------------------------------------------
    @property
    def _width(self):
        """The resource's size in bytes: a buffer's Width, a texture's layout in the mirror."""
        return self._desc.Width if self._texture is None else self._texture.total

    def _check_subresource(self, m, field, index):
        count = self._texture.count if self._texture is not None else 1
        if not is_integer(index) or not 0 <= index < count:
            raise invalid_arg(m, f"{field} is {index!r}; {self._label} has subresources 0 to {count - 1}.")
        return int(index)

    def _cpu_rows(self, m, field, index, box_field, box):
        """The (byte offset, bytes) rows of a subresource box a CPU access touches, and the box."""
        if self._texture is None:
            raise invalid_arg(m, f"{self._label} is a buffer; {m} is for textures (Map a buffer and use its bytes).")
        if not self._cpu_visible():
            raise invalid_arg(m, f"{self._label} is on a {enum_name(D3D12_HEAP_TYPE, self._heap_type)} heap, which the "
                                 "CPU cannot reach; only textures on a CUSTOM heap with CPU access can be.")
        index = self._check_subresource(m, field, index)
        if self._map_count == 0:
            raise invalid_arg(m, f"{self._label} is not mapped; call Map({index}, None) first.")
        box = check_box(m, box_field, box, self._texture, index)
        return self._texture.rows(index, box), box

    def _cpu_visible(self):
        if self._heap_type in (HEAP_UPLOAD, HEAP_READBACK):
            return True
        return self._heap_type == HEAP_CUSTOM and self._heap_properties.CPUPageProperty != D3D12_CPU_PAGE_PROPERTY_NOT_AVAILABLE

    def _range_problem(self, field, rng):
        """The sentence saying what is wrong with a Map/Unmap range, or None when it is fine."""
        if rng is None:
            return None
        if not isinstance(rng, D3D12_RANGE):
            return f"{field} is {rng!r}; it must be a D3D12_RANGE or None."
        if not (_is_uint(rng.Begin) and _is_uint(rng.End)) or rng.Begin > rng.End or rng.End > self._width:
            return (f"{field} is [{rng.Begin}, {rng.End}); it must satisfy Begin <= End <= {self._width}, "
                    f"the size of {self._label}.")
        return None


def _promotes(resource, state):
    """Whether a COMMON resource is implicitly promoted to `state` (D3D12: buffers and simultaneous-access
    textures to any state; other textures to COPY_DEST and the read-only states)."""
    if resource._texture is None or resource._flags & D3D12_RESOURCE_FLAG_ALLOW_SIMULTANEOUS_ACCESS:
        return True
    return state == COPY_DEST or is_read_only_state(state)


def _satisfies(state, alternatives):
    return any((int(r) == COMMON and state == COMMON) or (int(r) and state & int(r) == int(r)) for r in alternatives)


def _where(resource, index):
    """The resource in a sentence, with the subresource when a texture has more than one."""
    texture = resource._texture
    if texture is None or texture.count == 1:
        return resource._label
    return f"{resource._label} ({subresource_name(texture, index)})"


def _sync(resource):
    states = {entry[0] for entry in resource._subresource_states}
    resource._state = states.pop() if len(states) == 1 else None


def _require_texture_state(resource, alternatives, what, subresources):
    """_require_state for a texture, per subresource (None: all of them)."""
    entries = resource._subresource_states
    first = int(alternatives[0])
    for index in range(len(entries)) if subresources is None else subresources:
        entry = entries[index]
        state = entry[0]
        if _satisfies(state, alternatives):
            continue
        if state == COMMON and _promotes(resource, first):
            entry[:] = [first, is_read_only_state(first)]
            continue
        if entry[1] and is_read_only_state(first):
            entry[0] = state | first
            continue
        _sync(resource)
        wanted = " or ".join(state_name(s) for s in alternatives)
        hint = ("a texture is not implicitly promoted from COMMON to a write state other than COPY_DEST; record a "
                "transition barrier first" if state == COMMON else "record a transition barrier first")
        raise HResultError(DXGI_ERROR_INVALID_CALL, f"{what} needs {_where(resource, index)} in {wanted}, but it is "
                                                    f"in {state_name(state)}; {hint}.")
    _sync(resource)


def _transition_texture(resource, before, after, what, subresource):
    """_transition for a texture: one subresource, or all (D3D12_RESOURCE_BARRIER_ALL_SUBRESOURCES)."""
    entries = resource._subresource_states
    indices = range(len(entries)) if subresource == ALL_SUBRESOURCES else (subresource,)
    for index in indices:
        entry = entries[index]
        state = entry[0]
        promotable = (state == COMMON and _promotes(resource, before)) or (
            entry[1] and is_read_only_state(before) and state & ~before == 0)
        if state != before and not promotable:
            _sync(resource)
            raise HResultError(DXGI_ERROR_INVALID_CALL,
                               f"{what} gives StateBefore {state_name(before)} for {_where(resource, index)}, but at "
                               f"this point of the queue it is in {state_name(state)}.")
        entry[:] = [after, False]
    _sync(resource)


def _require_state(resource, allowed_states, what, subresources=None):
    """At execution: check (promoting from COMMON where D3D12 does) that `resource` is in a needed state.

    `allowed_states` is one D3D12_RESOURCE_STATES value whose bits must all be present, or a sequence
    of such values, any one of which will do (the first is the one a COMMON buffer is promoted to).
    `what` names the access for the error sentence ("the source of CopyBufferRegion"). On a mismatch
    raises HResultError(DXGI_ERROR_INVALID_CALL, ...), which the queue turns into device removal.
    """
    alternatives = (allowed_states,) if isinstance(allowed_states, int) else tuple(allowed_states)
    device = resource._device
    device._ecl_touched[resource] = None
    if resource._texture is not None:     # per subresource: `subresources` (None: all) are accessed
        return _require_texture_state(resource, alternatives, what, subresources)
    state = resource._state
    for required in alternatives:
        required = int(required)
        if (required == COMMON and state == COMMON) or (required and state & required == required):
            return
    first = int(alternatives[0])
    if resource._heap_type not in FIXED_STATE:
        if state == COMMON and _promotes(resource, first):
            resource._state = first
            resource._promoted_read = is_read_only_state(first)
            return
        if resource._promoted_read and is_read_only_state(first):
            resource._state = state | first
            return
    wanted = " or ".join(state_name(s) for s in alternatives)
    hint = (f"a resource on an {enum_name(D3D12_HEAP_TYPE, resource._heap_type)} heap stays in {state_name(state)}"
            if resource._heap_type in FIXED_STATE else
            "a texture is not implicitly promoted from COMMON to a write state other than COPY_DEST; record a "
            "transition barrier first" if state == COMMON else "record a transition barrier first")
    raise HResultError(DXGI_ERROR_INVALID_CALL,
                       f"{what} needs {resource._label} in {wanted}, but it is in {state_name(state)}; {hint}.")


def _transition(resource, before, after, what, subresource=None):
    """At execution: a transition barrier from `before` to `after` (promoting a COMMON buffer first); for a
    texture, of `subresource` (None or D3D12_RESOURCE_BARRIER_ALL_SUBRESOURCES: every one)."""
    device = resource._device
    device._ecl_touched[resource] = None
    if resource._texture is not None:
        return _transition_texture(resource, before, after, what,
                                   ALL_SUBRESOURCES if subresource is None else subresource)
    state = resource._state
    promotable = (state == COMMON and _promotes(resource, before)) or (
        resource._promoted_read and is_read_only_state(before) and state & ~before == 0)
    if state != before and not promotable:
        raise HResultError(DXGI_ERROR_INVALID_CALL,
                           f"{what} gives StateBefore {state_name(before)} for {resource._label}, but at this "
                           f"point of the queue it is in {state_name(state)}.")
    resource._state = after
    resource._promoted_read = False


def _decay(resources, copy_queue=False):
    """End of an ExecuteCommandLists call: buffers it touched return to COMMON; textures only when promoted
    to a read-only state, used on a COPY queue, or simultaneous-access (see the banner)."""
    for resource in resources:
        if resource._texture is not None:
            simultaneous = resource._flags & D3D12_RESOURCE_FLAG_ALLOW_SIMULTANEOUS_ACCESS
            for entry in resource._subresource_states:
                if copy_queue or entry[1] or simultaneous:
                    entry[:] = [COMMON, False]
            _sync(resource)
        elif resource._heap_type not in FIXED_STATE:
            resource._state = COMMON
            resource._promoted_read = False


def _bytes_of(m, field, data):
    try:
        return np.frombuffer(memoryview(data).cast("B"), dtype=np.uint8)
    except (TypeError, ValueError):
        raise invalid_arg(m, f"{field} is {type(data).__name__}; it must be a bytes-like object.") from None


def _pitched(rows, box, row_pitch, depth_pitch, m, side, size):
    """The CPU-side offset of each of a box's rows (z outer, y inner: `rows` as TextureLayout.rows gives
    them), rows `row_pitch` and depth slices `depth_pitch` apart, each checked to end inside `size` bytes."""
    for field, value in ((f"{side}RowPitch", row_pitch), (f"{side}DepthPitch", depth_pitch)):
        if not _is_uint(value, 32):
            raise invalid_arg(m, f"{field} is {value!r}; it must be a UINT.")
    per_slice = max(1, box[4] - box[1])
    offsets = []
    for k, (_, nbytes) in enumerate(rows):
        at = (k // per_slice) * depth_pitch + (k % per_slice) * row_pitch
        if at + nbytes > size:
            raise invalid_arg(m, f"row {k % per_slice} of depth slice {k // per_slice} ({nbytes} bytes with "
                                 f"{side}RowPitch {row_pitch} and {side}DepthPitch {depth_pitch}) ends at byte "
                                 f"{at + nbytes}, past the {size} bytes of the CPU data.")
        offsets.append(at)
    return offsets


# ---- creation ---------------------------------------------------------------------------------------
def check_heap_properties(m, heap_properties, field, uma=False):
    """CreateCommittedResource's / CreateHeap's rules for a D3D12_HEAP_PROPERTIES (`field` names it)."""
    if not isinstance(heap_properties, D3D12_HEAP_PROPERTIES):
        raise invalid_arg(m, f"{field} is {heap_properties!r}; it must be a D3D12_HEAP_PROPERTIES.")
    heap_type = heap_properties.Type
    if not is_one_of(heap_type, (HEAP_DEFAULT, HEAP_UPLOAD, HEAP_READBACK, HEAP_CUSTOM)):
        raise invalid_arg(m, f"{field}.Type is {enum_name(D3D12_HEAP_TYPE, heap_type)}; the emulator "
                             "supports D3D12_HEAP_TYPE_DEFAULT, UPLOAD, READBACK and CUSTOM.")
    if heap_type == HEAP_CUSTOM:
        if not is_one_of(heap_properties.CPUPageProperty, (D3D12_CPU_PAGE_PROPERTY_NOT_AVAILABLE,
                                                           D3D12_CPU_PAGE_PROPERTY_WRITE_COMBINE,
                                                           D3D12_CPU_PAGE_PROPERTY_WRITE_BACK)) \
                or not is_one_of(heap_properties.MemoryPoolPreference, (D3D12_MEMORY_POOL_L0, D3D12_MEMORY_POOL_L1)):
            raise invalid_arg(m, f"a D3D12_HEAP_TYPE_CUSTOM heap needs {field}.CPUPageProperty and "
                                 "MemoryPoolPreference set (not UNKNOWN).")
        if heap_properties.MemoryPoolPreference == D3D12_MEMORY_POOL_L1:
            if uma:
                raise invalid_arg(m, f"{field}.MemoryPoolPreference is D3D12_MEMORY_POOL_L1, but the adapter is "
                                     "UMA (one memory pool, L0).")
            if heap_properties.CPUPageProperty != D3D12_CPU_PAGE_PROPERTY_NOT_AVAILABLE:
                raise invalid_arg(m, f"{field}.MemoryPoolPreference D3D12_MEMORY_POOL_L1 needs "
                                     "CPUPageProperty D3D12_CPU_PAGE_PROPERTY_NOT_AVAILABLE.")
    elif not is_one_of(heap_properties.CPUPageProperty, (D3D12_CPU_PAGE_PROPERTY_UNKNOWN,)) \
            or not is_one_of(heap_properties.MemoryPoolPreference, (D3D12_MEMORY_POOL_UNKNOWN,)):
        raise invalid_arg(m, f"{field}.CPUPageProperty and MemoryPoolPreference must be UNKNOWN (0) for "
                             f"{enum_name(D3D12_HEAP_TYPE, heap_type)}; only CUSTOM heaps set them.")
    for name in ("CreationNodeMask", "VisibleNodeMask"):
        if not is_one_of(getattr(heap_properties, name), (0, 1)):
            raise invalid_arg(m, f"{field}.{name} is {getattr(heap_properties, name)!r}; the emulated "
                                 "adapter has one node, so it must be 0 or 1.")
    return int(heap_type)


def check_heap_flags(m, heap_flags, field="HeapFlags"):
    if not _is_uint(heap_flags, 32) or heap_flags & ~_KNOWN_HEAP_FLAGS:
        raise invalid_arg(m, f"{field} is {heap_flags!r}; it must be a combination of D3D12_HEAP_FLAGS.")
    return int(heap_flags)


def check_initial_state(m, initial_state, heap_type):
    if not is_integer(initial_state) or not 0 <= initial_state < 1 << 32:
        raise invalid_arg(m, f"InitialResourceState is {initial_state!r}; it must be a D3D12_RESOURCE_STATES.")
    if not is_valid_state(initial_state):
        raise invalid_arg(m, f"InitialResourceState {state_name(initial_state)} is not a valid state: it must be "
                             "COMMON, one write state, or a combination of read states.")
    fixed = FIXED_STATE.get(heap_type)
    if fixed is not None and initial_state != fixed:
        raise invalid_arg(m, f"InitialResourceState is {state_name(initial_state)}, but a resource on a "
                             f"{enum_name(D3D12_HEAP_TYPE, heap_type)} heap must be created in {state_name(fixed)}.")


def stored_desc(desc):
    """The desc a resource keeps: Alignment 0 reads 65536, as D3D12's GetDesc reports it; a texture's
    MipLevels 0 reads the full chain."""
    stored = desc._copy()
    if stored.Alignment == 0:
        stored.Alignment = BUFFER_ALIGNMENT
    if is_texture(desc):
        stored.Alignment = texture_alignment(desc)
        largest = max(int(desc.Width), int(desc.Height),
                      int(desc.DepthOrArraySize) if desc.Dimension == D3D12_RESOURCE_DIMENSION_TEXTURE3D else 1)
        stored.MipLevels = int(desc.MipLevels) or largest.bit_length()
    return stored


def check_texture_creation(m, desc, heap_type, heap_flags, initial_state, clear_value):
    """The texture half of CreateCommittedResource / CreatePlacedResource: its TextureLayout."""
    texture = check_texture_resource(m, desc, heap_type, heap_flags)
    check_initial_state(m, initial_state, heap_type)
    if initial_state & UNORDERED_ACCESS and not desc.Flags & D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS:
        raise invalid_arg(m, f"InitialResourceState is {state_name(initial_state)}, but pDesc.Flags lacks "
                             "D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS.")
    if clear_value is not None and not desc.Flags & (D3D12_RESOURCE_FLAG_ALLOW_RENDER_TARGET
                                                     | D3D12_RESOURCE_FLAG_ALLOW_DEPTH_STENCIL):
        raise invalid_arg(m, "pOptimizedClearValue must be None for a texture without ALLOW_RENDER_TARGET or "
                             "ALLOW_DEPTH_STENCIL.")
    return texture


def create_committed_resource(device, heap_properties, heap_flags, desc, initial_state, clear_value):
    """ID3D12Device::CreateCommittedResource for buffers: validate as D3D12 does, then allocate."""
    m = "CreateCommittedResource"
    heap_type = check_heap_properties(m, heap_properties, "pHeapProperties", device._preset.uma)
    check_heap_flags(m, heap_flags)
    if isinstance(desc, D3D12_RESOURCE_DESC) and is_texture(desc):
        texture = check_texture_creation(m, desc, heap_type, heap_flags, initial_state, clear_value)
        allocation = _allocate(device, m, texture.total, "texture")
        return ID3D12Resource(device, heap_properties._copy(), heap_flags, stored_desc(desc), initial_state,
                              allocation, texture=texture)
    if heap_flags & D3D12_HEAP_FLAG_DENY_BUFFERS:
        raise invalid_arg(m, "HeapFlags has D3D12_HEAP_FLAG_DENY_BUFFERS, but the resource is a buffer.")
    _check_buffer_desc(m, desc, heap_type)
    check_initial_state(m, initial_state, heap_type)
    if clear_value is not None:
        raise invalid_arg(m, "pOptimizedClearValue must be None for a buffer.")
    allocation = _allocate(device, m, desc.Width, "buffer")
    return ID3D12Resource(device, heap_properties._copy(), heap_flags, stored_desc(desc), initial_state, allocation)


def _allocate(device, m, size, what):
    memory = device._gpu.memory
    try:
        return memory.allocate(size, name=what)
    except OutOfDeviceMemory:
        raise HResultError(
            E_OUTOFMEMORY,
            f"{m}: a {size}-byte {what} does not fit: the adapter has {memory.capacity_bytes} bytes and "
            f"{memory.used_bytes} are in use.") from None


def _check_buffer_desc(m, desc, heap_type, field="pDesc"):
    if not isinstance(desc, D3D12_RESOURCE_DESC):
        raise invalid_arg(m, f"{field} is {desc!r}; it must be a D3D12_RESOURCE_DESC.")
    if not is_one_of(desc.Dimension, (D3D12_RESOURCE_DIMENSION_BUFFER,)):   # textures are routed before this
        raise invalid_arg(m, f"{field}.Dimension is {enum_name(D3D12_RESOURCE_DIMENSION, desc.Dimension)}; it must be "
                             "D3D12_RESOURCE_DIMENSION_BUFFER or a texture dimension (TEXTURE1D, TEXTURE2D, TEXTURE3D).")
    if not _is_uint(desc.Width):
        raise invalid_arg(m, f"{field}.Width is {desc.Width!r}; it must be a UINT64 byte count.")
    if desc.Width == 0:
        raise invalid_arg(m, f"{field}.Width is 0; a buffer must be at least 1 byte.")
    if not is_one_of(desc.Alignment, (0, BUFFER_ALIGNMENT)):
        raise invalid_arg(m, f"{field}.Alignment is {desc.Alignment!r}; a buffer takes 0 or 65536.")
    for name in ("Height", "DepthOrArraySize", "MipLevels"):
        if not is_one_of(getattr(desc, name), (1,)):
            raise invalid_arg(m, f"{field}.{name} is {getattr(desc, name)!r}; a buffer must have {name} 1.")
    if not is_one_of(desc.Format, (DXGI_FORMAT_UNKNOWN,)):
        raise invalid_arg(m, f"{field}.Format is {desc.Format!r}; a buffer must have DXGI_FORMAT_UNKNOWN.")
    sample = desc.SampleDesc
    if not is_one_of(getattr(sample, "Count", None), (1,)) or not is_one_of(getattr(sample, "Quality", None), (0,)):
        raise invalid_arg(m, f"{field}.SampleDesc is {sample!r}; a buffer must have SampleDesc.Count 1 and Quality 0.")
    if not is_one_of(desc.Layout, (D3D12_TEXTURE_LAYOUT_ROW_MAJOR,)):
        raise invalid_arg(m, f"{field}.Layout is {desc.Layout!r}; a buffer must have D3D12_TEXTURE_LAYOUT_ROW_MAJOR.")
    flags = desc.Flags
    if not _is_uint(flags, 32) or flags & ~_KNOWN_RESOURCE_FLAGS:
        raise invalid_arg(m, f"{field}.Flags is {flags!r}; it must be a combination of D3D12_RESOURCE_FLAGS.")
    for bit, name in ((D3D12_RESOURCE_FLAG_ALLOW_RENDER_TARGET, "ALLOW_RENDER_TARGET"),
                      (D3D12_RESOURCE_FLAG_ALLOW_DEPTH_STENCIL, "ALLOW_DEPTH_STENCIL"),
                      (D3D12_RESOURCE_FLAG_ALLOW_SIMULTANEOUS_ACCESS, "ALLOW_SIMULTANEOUS_ACCESS")):
        if flags & bit:
            raise invalid_arg(m, f"{field}.Flags has D3D12_RESOURCE_FLAG_{name}, which a buffer cannot have.")
    if flags & D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS and heap_type in FIXED_STATE:
        raise invalid_arg(m, f"{field}.Flags has D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS, which a buffer on a "
                             f"{enum_name(D3D12_HEAP_TYPE, heap_type)} heap cannot have.")


# GetCopyableFootprints (d3d12.h constants): a row pitch is a multiple of D3D12_TEXTURE_DATA_PITCH_ALIGNMENT;
# a subresource range is at most D3D12_REQ_SUBRESOURCES long.
TEXTURE_DATA_PITCH_ALIGNMENT = 256
REQ_SUBRESOURCES = 30720
_ALL_ONES_32 = (1 << 32) - 1
_ALL_ONES_64 = (1 << 64) - 1


def copyable_footprints(device, desc, first, count, base_offset):
    """ID3D12Device::GetCopyableFootprints: (pLayouts, pNumRows, pRowSizeInBytes, pTotalBytes); a texture
    desc's footprints come from texture_layout.py, a buffer's are these:

    A buffer is one subresource, one row of Width bytes: Footprint (DXGI_FORMAT_UNKNOWN, Width, 1, 1,
    RowPitch = Width rounded up to 256), Offset = BaseOffset, NumRows 1, RowSizeInBytes = Width, and
    TotalBytes = Width (BaseOffset not included); a range of 0 subresources has TotalBytes 0. For
    invalid arguments D3D12 fills every output with all-one bits (TotalBytes UINT64_MAX) and reports the
    problem only through the debug layer; so does the emulator (`_report_warning`: E_INVALIDARG, raised
    when the debug layer is on)."""
    m = "GetCopyableFootprints"
    slots = int(count) if is_integer(count) and 0 <= count <= REQ_SUBRESOURCES else 0
    try:
        if isinstance(desc, D3D12_RESOURCE_DESC) and is_texture(desc):
            if not _is_uint(count, 32) or count > REQ_SUBRESOURCES:
                raise invalid_arg(m, f"NumSubresources is {count!r}; at most D3D12_REQ_SUBRESOURCES (30720).")
            return texture_footprints(m, desc, first, count, base_offset, _is_uint)
        _check_buffer_desc(m, desc, HEAP_DEFAULT, "pResourceDesc")
        if not _is_uint(first, 32) or first != 0:
            raise invalid_arg(m, f"FirstSubresource is {first!r}; a buffer has one subresource, 0.")
        if not _is_uint(count, 32) or count > 1:
            raise invalid_arg(m, f"NumSubresources is {count!r}; from FirstSubresource 0 a buffer has 0 or 1 "
                                 "subresources.")
        if not _is_uint(base_offset):
            raise invalid_arg(m, f"BaseOffset is {base_offset!r}; it must be a UINT64.")
    except HResultError as error:
        device._report_warning(error.hresult, error.message)
        failed = D3D12_PLACED_SUBRESOURCE_FOOTPRINT(Offset=_ALL_ONES_64, Footprint=D3D12_SUBRESOURCE_FOOTPRINT(
            Format=_ALL_ONES_32, Width=_ALL_ONES_32, Height=_ALL_ONES_32, Depth=_ALL_ONES_32, RowPitch=_ALL_ONES_32))
        return [failed._copy() for _ in range(slots)], [_ALL_ONES_32] * slots, [_ALL_ONES_64] * slots, _ALL_ONES_64
    width = int(desc.Width)
    pitch = -(-width // TEXTURE_DATA_PITCH_ALIGNMENT) * TEXTURE_DATA_PITCH_ALIGNMENT
    layouts = [D3D12_PLACED_SUBRESOURCE_FOOTPRINT(Offset=int(base_offset), Footprint=D3D12_SUBRESOURCE_FOOTPRINT(
        Format=int(DXGI_FORMAT_UNKNOWN), Width=width, Height=1, Depth=1, RowPitch=pitch)) for _ in range(slots)]
    return layouts, [1] * slots, [width] * slots, width * slots


__all__ = ["ID3D12Resource"]
