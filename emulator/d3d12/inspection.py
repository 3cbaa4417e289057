"""inspect(obj): a read-only view of the D3D12 mirror's state that the C API does not show.

A D3D12 program sees its objects through their methods; a developer sees more through PIX and the
debug layer (a resource's state, a command list's recorded work, a descriptor's contents). Tests and
teaching tools need that second view, so every D3D12 mirror object has one here: `inspect(obj)`
returns a small view object with plain PEP 8 fields, one view type per object type:

    device               DeviceView           gpu, preset, removed_reason, debug_layer, hazard_count,
                                              queues, object_counts; descriptor_heap_at_cpu_handle,
                                              descriptor_heap_at_gpu_handle, resource_at
    resource             ResourceView         state, initial_state, heap_type, flags, width, gpu_va,
                                              allocation, data, heap, map_count, texture,
                                              subresource_states
    heap                 HeapView             heap_type, flags, size, gpu_va, allocation, data, placed
    descriptor heap      DescriptorHeapView   type, num_descriptors, shader_visible, increment,
                                              cpu_base, gpu_base, allocation, data; slot_offset_from_*,
                                              descriptor(index)
    command list         CommandListView      type, open, commands, error, descriptor_heaps,
                                              pipeline_state, compute_root_signature, compute_root_args
    command allocator    CommandAllocatorView type, submissions, recording_list
    command queue        CommandQueueView     type, pending, submitted_serial, executed_serial,
                                              observed_serial
    fence                FenceView            value, pending_signals, gpu_signals, waiting_events
    root signature       RootSignatureView    parameters, flags, blob; same_layout(other)
    pipeline state       PipelineStateView    root_signature, shader, bindings
    query heap           QueryHeapView        type, count, ticks

Every view has `label` (how error sentences name the object: its SetName name, or its kind and
number). A view is live: each field reads the object's state when it is read, so one view serves
before and after ExecuteCommandLists. It changes nothing: its fields cannot be assigned, NumPy arrays
come back read-only, and lists come back as tuples. The one way below the mirror is `allocation`, the
functional model's Allocation (dmlemu.functional.device_memory) that holds an object's bytes, for
tests that check or damage memory itself. inspect of anything that is not a D3D12 mirror object
raises TypeError with a sentence naming the value. dmlemu.directml.inspect is the DirectML
counterpart (and hands D3D12 objects to this one).
"""
from operator import attrgetter

from dmlemu.d3d12.command_allocator import ID3D12CommandAllocator
from dmlemu.d3d12.command_list import ID3D12GraphicsCommandList
from dmlemu.d3d12.command_queue import ID3D12CommandQueue
from dmlemu.d3d12.descriptor_heap import ID3D12DescriptorHeap
from dmlemu.d3d12.device import ID3D12Device
from dmlemu.d3d12.fence import ID3D12Fence
from dmlemu.d3d12.heap import ID3D12Heap
from dmlemu.d3d12.pipeline_state import ID3D12PipelineState
from dmlemu.d3d12.query_heap import ID3D12QueryHeap
from dmlemu.d3d12.resource import ID3D12Resource
from dmlemu.d3d12.root_signature import ID3D12RootSignature
from dmlemu.errors import describe, short_repr
from dmlemu.functional.buffer_descriptor import DESCRIPTOR_DWORDS, unpack_buffer_descriptor


def field(attribute, doc=None, wrap=None):
    """A view field: reads `attribute` (a dotted path) of the inspected object each time it is read, through
    `wrap` if given (tuple for a list, read_only for an array)."""
    get = attrgetter(attribute)
    if wrap is None:
        return property(lambda view: get(view._obj), doc=doc)
    return property(lambda view: wrap(get(view._obj)), doc=doc)


def read_only(array):
    """A read-only NumPy view of `array` (the bytes stay shared; writing through the view raises)."""
    view = array.view()
    view.flags.writeable = False
    return view


class View:
    """Base of the views: holds the object, refuses assignment, names the object in its repr."""

    __slots__ = ("_obj",)

    def __init__(self, obj):
        object.__setattr__(self, "_obj", obj)

    def __setattr__(self, name, value):
        raise AttributeError(f"{type(self).__name__}.{name} is read-only; a view changes nothing in the mirror.")

    @property
    def object(self):
        """The inspected mirror object."""
        return self._obj

    label = field("_label", """How error sentences name the object ("buffer #3", or its SetName name).""")

    def __repr__(self):
        return f"<{type(self).__name__} of {self.label}>"


class DeviceView(View):
    """An ID3D12Device: its GPU, removal, debug layer, hazard count and the objects it created."""

    __slots__ = ()

    gpu = field(
        "_gpu",
        """The emulated Gpu behind the device (dmlemu.gpu.Gpu): memory, clock, timing switch, caches.""")

    preset = field("_preset", """The hardware preset the device was created on (dmlemu.presets).""")

    removed_reason = field(
        "_removed_reason",
        """(HRESULT, sentence) that removed the device, or None while it works.""")

    debug_layer = field(
        "_debug_layer",
        """Whether misuse also raises at the offending call (the debug layer, copied at creation).""")

    hazard_count = field(
        "_hazard_count",
        """Hazards (unordered conflicting accesses) the queues' work made so, debug layer or not.""")

    queues = field("_queues", """The device's command queues, in creation order.""", wrap=tuple)

    @property
    def object_counts(self):
        """{kind: how many were numbered}: the numbers labels such as "buffer #3" come from."""
        return dict(self._obj._counters)

    def descriptor_heap_at_cpu_handle(self, handle):
        """The descriptor heap of this device whose CPU range holds `handle` (a handle or ptr), or None."""
        return self._obj._descriptor_heap_from_cpu_handle(handle)

    def descriptor_heap_at_gpu_handle(self, handle):
        """The shader-visible descriptor heap whose GPU range holds `handle` (a handle or ptr), or None."""
        return self._obj._descriptor_heap_from_gpu_handle(handle)

    def resource_at(self, gpu_va):
        """The buffer whose bytes hold GPU address `gpu_va` (in a heap: the newest placed there), or None."""
        return self._obj._resource_from_gpu_va(gpu_va)


class ResourceView(View):
    """An ID3D12Resource (a buffer or a texture): its tracked state and the bytes behind it."""

    __slots__ = ()

    state = field(
        "_state",
        """The D3D12_RESOURCE_STATES value the state model tracks now (at execution, as the GPU sees it); for a
        texture whose subresources are in different states, None (see subresource_states).""")

    subresource_states = field(
        "_subresource_states",
        """A texture's state per subresource (a tuple, subresource order); None for a buffer.""",
        wrap=lambda entries: None if entries is None else tuple(entry[0] for entry in entries))

    initial_state = field("_initial_state", """The InitialResourceState given at creation.""")

    heap_type = field("_heap_type", """The D3D12_HEAP_TYPE value of the heap the buffer lives in.""")

    flags = field("_flags", """The D3D12_RESOURCE_FLAGS of its desc.""")

    width = field("_width", """The buffer's size in bytes (its desc's Width); a texture's bytes in the mirror's layout.""")

    texture = field(
        "_texture",
        """A texture's layout (texture_layout.TextureLayout: per subresource Offset, Width, Height, Depth, RowPitch,
        RowSizeInBytes), or None for a buffer.""")

    gpu_va = field("_allocation.gpu_va", """The GPU virtual address of its first byte.""")

    allocation = field(
        "_allocation",
        """The functional model's memory behind it: an Allocation, or a PlacedRange for a placed buffer.""")

    data = field(
        "_allocation.data",
        """Its bytes (read-only uint8 array), whatever its heap type; Map is the API's way for CPU-visible ones.""",
        wrap=read_only)

    heap = field("_heap", """The ID3D12Heap a placed buffer lives in; None for a committed one.""")

    map_count = field("_map_count", """Map calls not yet matched by Unmap.""")


class HeapView(View):
    """An ID3D12Heap (CreateHeap): its memory and the resources placed in it."""

    __slots__ = ()

    heap_type = field("_heap_type")

    flags = field("_flags")

    size = field("_allocation.size", """SizeInBytes of its desc.""")

    gpu_va = field("_allocation.gpu_va")

    allocation = field("_allocation")

    data = field(
        "_allocation.data",
        """Its bytes (read-only uint8 array); placed resources' bytes are windows of these.""",
        wrap=read_only)

    @property
    def placed(self):
        """The live resources placed in it, by address then creation order."""
        return tuple(sorted(self._obj._placed, key=lambda r: (r._allocation.gpu_va, r._serial)))


class DescriptorHeapView(View):
    """An ID3D12DescriptorHeap: its slots' bytes and the addresses handles point at."""

    __slots__ = ()

    type = field("_type", """The D3D12_DESCRIPTOR_HEAP_TYPE value.""")

    num_descriptors = field("_num_descriptors")

    shader_visible = field("_shader_visible")

    increment = field("_increment", """Bytes per slot (GetDescriptorHandleIncrementSize of its type).""")

    cpu_base = field("_cpu_base", """The ptr of GetCPUDescriptorHandleForHeapStart.""")

    @property
    def gpu_base(self):
        """GetGPUDescriptorHandleForHeapStart's ptr (the GPU address of slot 0 in the device's handle space,
        descriptor_heap.py); None when not shader-visible."""
        return self._obj._gpu_base if self._obj._shader_visible else None

    allocation = field("_allocation")

    data = field(
        "_allocation.data",
        """The slots' bytes (read-only uint8 array, `increment` bytes per slot).""",
        wrap=read_only)

    def slot_offset_from_cpu_handle(self, handle):
        """Byte offset in `data` of the slot a CPU handle (or ptr) names; None when it names no slot."""
        return self._obj._slot_offset_from_cpu_handle(handle)

    def slot_offset_from_gpu_handle(self, handle):
        """Byte offset in `data` of the slot a GPU handle (or ptr) names; None when it names no slot."""
        return self._obj._slot_offset_from_gpu_handle(handle)

    def descriptor(self, index):
        """Slot `index` decoded as a buffer descriptor: (gpu_va, size_bytes, valid)."""
        if not isinstance(index, int) or not 0 <= index < self.num_descriptors:
            raise IndexError(f"index is {index!r}; {self.label} has slots 0 to {self.num_descriptors - 1}.")
        start = index * self.increment
        dwords = self._obj._allocation.data[start:start + 4 * DESCRIPTOR_DWORDS].view("<u4")
        return unpack_buffer_descriptor(dwords)


class CommandListView(View):
    """An ID3D12GraphicsCommandList: what it recorded and the state recording set."""

    __slots__ = ()

    type = field("_type")

    open = field("_open", """Whether it is recording (created or Reset, not yet Closed).""")

    commands = field(
        "_commands",
        """The recorded command objects (emulator/d3d12/commands.py), in order.""",
        wrap=tuple)

    error = field(
        "_error",
        """(HRESULT, sentence) of the first misuse since the last Reset (Close will fail), or None.""")

    descriptor_heaps = field(
        "_descriptor_heaps",
        """The heaps of the last SetDescriptorHeaps (cleared by Reset).""",
        wrap=tuple)

    pipeline_state = field("_pipeline_state")

    compute_root_signature = field("_compute_root_signature")

    @property
    def compute_root_args(self):
        """{root parameter index: its argument} set by SetComputeRoot* since the root signature was set."""
        return dict(self._obj._compute_root_args)


class CommandAllocatorView(View):
    """An ID3D12CommandAllocator: the list recording into it and the executions it backs."""

    __slots__ = ()

    type = field("_type")

    recording_list = field("_recording_list", """The command list recording into it now, or None.""")

    submissions = field(
        "_submissions",
        """(queue, submission serial, command list label) of each execution since the last Reset.""",
        wrap=tuple)


class CommandQueueView(View):
    """An ID3D12CommandQueue: its FIFO and its submission serials."""

    __slots__ = ()

    type = field("_type")

    pending = field(
        "_pending",
        """The items held (behind a Wait), in order: ("execute", serial, lists), ("signal", ...), ("wait", ...).""",
        wrap=tuple)

    submitted_serial = field("_submitted_serial", """ExecuteCommandLists calls submitted so far.""")

    executed_serial = field("_executed_serial", """The last submission that finished executing.""")

    observed_serial = field("_observed_serial", """The last submission the CPU knows finished (through a fence).""")


class FenceView(View):
    """An ID3D12Fence: its value and what waits on or has signalled it."""

    __slots__ = ()

    value = field("_value", """The value now, without observing it (GetCompletedValue observes).""")

    @property
    def pending_signals(self):
        """(value, queue, serial) of queue Signals the CPU has not observed yet."""
        return tuple(tuple(record) for record in self._obj._signal_records)

    gpu_signals = field("_gpu_signals", """(value, GPU cycle) of each queue Signal, in order.""", wrap=tuple)

    @property
    def waiting_events(self):
        """(value, event) of SetEventOnCompletion calls not reached yet."""
        return tuple(tuple(entry) for entry in self._obj._events)


class RootSignatureView(View):
    """An ID3D12RootSignature: its parameters as the emulator keeps them."""

    __slots__ = ()

    parameters = field(
        "_parameters",
        """The root parameters (root_signature.Parameter records, ranges resolved), in order.""",
        wrap=tuple)

    flags = field("_flags")

    blob = field("_blob", """The serialized bytes it was created from.""")

    def same_layout(self, other):
        """Whether `other` has the same layout (the same serialized bytes): D3D12's compatibility rule."""
        return self._obj._same_layout(other)


class PipelineStateView(View):
    """An ID3D12PipelineState (compute): its root signature, shader and where each binding comes from."""

    __slots__ = ()

    root_signature = field("_root_signature")

    shader = field(
        "_shader",
        """The validated ComputeShader (pipeline_state.py): binary, program, numthreads, registers.""")

    bindings = field(
        "_bindings",
        """(shader binding, root parameter index, descriptor offset in its table or None) per binding.""",
        wrap=tuple)


class QueryHeapView(View):
    """An ID3D12QueryHeap: its timestamp slots."""

    __slots__ = ()

    type = field("_type")

    count = field("_count")

    ticks = field("_ticks", """The slots' values (read-only uint64 array).""", wrap=read_only)


VIEWS = (   # most derived first: isinstance picks the first match
    (ID3D12Device, DeviceView), (ID3D12Resource, ResourceView), (ID3D12Heap, HeapView),
    (ID3D12DescriptorHeap, DescriptorHeapView), (ID3D12GraphicsCommandList, CommandListView),
    (ID3D12CommandAllocator, CommandAllocatorView), (ID3D12CommandQueue, CommandQueueView),
    (ID3D12Fence, FenceView), (ID3D12RootSignature, RootSignatureView),
    (ID3D12PipelineState, PipelineStateView), (ID3D12QueryHeap, QueryHeapView),
)


def view_type(obj):
    """The view class for a D3D12 mirror object, or None."""
    for cls, view in VIEWS:
        if isinstance(obj, cls):
            return view
    return None


def inspect(obj):
    """A read-only view of a D3D12 mirror object's state (see the module's table); TypeError otherwise."""
    view = view_type(obj)
    if view is None:
        names = ", ".join(cls.__name__ for cls, _ in VIEWS)
        raise TypeError(f"inspect: obj is {short_repr(obj)}, {describe(obj)}; dmlemu.d3d12.inspect takes a D3D12 "
                        f"mirror object ({names}).")
    return view(obj)


__all__ = ["inspect"]
