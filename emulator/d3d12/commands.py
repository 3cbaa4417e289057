"""The commands a D3D12 command list records: one small class per command, each with execute(ctx).

A command list appends these objects as its methods are called (after checking everything that
can be checked while recording); a command queue runs them in order, calling `command.execute(ctx)`
with an ExecutionContext (command_queue.py) that gives the device, its GPU and the queue. A command
checks at execution what only execution can know (resource states, via `_require_state` /
`_transition` in resource.py) and reports misuse by raising HResultError, which removes the device.
Other modules (DirectML's RecordDispatch) and tests record their own command objects the same way,
through `record(command_list, command)`; anything with `execute(ctx)` (and a `name` for error
sentences) will do. Commands that touch memory or order it tell the hazard tracker (hazards.py) at execution.
"""
import numpy as np

from dmlemu.d3d12.enums import D3D12_RESOURCE_STATE_UNORDERED_ACCESS as UNORDERED_ACCESS
from dmlemu.d3d12.enums import D3D12_RESOURCE_BARRIER_FLAG_BEGIN_ONLY, D3D12_RESOURCE_BARRIER_TYPE_TRANSITION
from dmlemu.d3d12.resource import COPY_DEST, COPY_SOURCE, _require_state, _transition
from dmlemu.d3d12.hazards import note_access, note_barrier


def record(command_list, command):
    """Append a command object to an open command list: True; False (nothing recorded) on a removed device
    or a closed list (recording into a closed list is misuse: it removes the device)."""
    return command_list._record(command)


class ResourceBarrierCommand:
    """ResourceBarrier: transitions change tracked states; UAV and aliasing barriers order only.

    Every ResourceBarrier call waits for the GPU to be idle (Gpu.barrier: dispatches before it
    and after it do not overlap) and pays the flush. A transition out of UNORDERED_ACCESS is also a
    release: the GPU writes its L2 back, once per call.
    """

    __slots__ = ("barriers",)
    name = "ResourceBarrier"

    def __init__(self, barriers):
        self.barriers = barriers  # ((kind, resource, before, after, flags, index, subresource), ...)

    def execute(self, ctx):
        release = False
        for kind, resource, before, after, flags, index, subresource in self.barriers:
            if flags & D3D12_RESOURCE_BARRIER_FLAG_BEGIN_ONLY:
                continue   # a split barrier's first half changes and orders nothing yet
            if kind == D3D12_RESOURCE_BARRIER_TYPE_TRANSITION:
                _transition(resource, before, after, f"ResourceBarrier: barrier {index}", subresource)
                release |= bool(before & UNORDERED_ACCESS) and not after & UNORDERED_ACCESS
            # UAV (None: every resource), transition (its resource), aliasing (recorded as None: all)
            note_barrier(ctx, resource)
        ctx.gpu.barrier(release, ctx.engine)


class CopyBufferRegionCommand:
    """CopyBufferRegion / CopyResource: the copy engine moves bytes between two buffers."""

    __slots__ = ("dst", "dst_offset", "src", "src_offset", "num_bytes", "name")

    def __init__(self, dst, dst_offset, src, src_offset, num_bytes, name):
        self.dst, self.dst_offset, self.src, self.src_offset = dst, dst_offset, src, src_offset
        self.num_bytes, self.name = num_bytes, name

    def execute(self, ctx):
        _require_state(self.src, COPY_SOURCE, f"the source of {self.name}")
        _require_state(self.dst, COPY_DEST, f"the destination of {self.name}")
        note_access(ctx, self.name, reads=[(self.src, self.src_offset, self.num_bytes)],
                    writes=[(self.dst, self.dst_offset, self.num_bytes)], copy=True)
        ctx.gpu.copy_buffer(self.dst._allocation, self.dst_offset, self.src._allocation, self.src_offset,
                            self.num_bytes, ctx.engine)


class EndQueryCommand:
    """EndQuery on a timestamp heap: write the GPU clock into one slot."""

    __slots__ = ("heap", "index")
    name = "EndQuery"

    def __init__(self, heap, index):
        self.heap, self.index = heap, index

    def execute(self, ctx):
        self.heap._ticks[self.index] = ctx.gpu.timestamp(ctx.engine)


class ResolveQueryDataCommand:
    """ResolveQueryData: copy timestamp slots into a buffer (in COPY_DEST) as little-endian uint64."""

    __slots__ = ("heap", "start", "count", "dst", "offset")
    name = "ResolveQueryData"

    def __init__(self, heap, start, count, dst, offset):
        self.heap, self.start, self.count, self.dst, self.offset = heap, start, count, dst, offset

    def execute(self, ctx):
        _require_state(self.dst, COPY_DEST, "the destination of ResolveQueryData")
        ticks = self.heap._ticks[self.start:self.start + self.count].astype("<u8")
        self.dst._allocation.data[self.offset:self.offset + 8 * self.count] = ticks.view(np.uint8)


class ExecuteBundleCommand:
    """ExecuteBundle: run a closed bundle's commands inline."""

    __slots__ = ("bundle_label", "commands")
    name = "ExecuteBundle"

    def __init__(self, bundle_label, commands):
        self.bundle_label, self.commands = bundle_label, commands

    def execute(self, ctx):
        for command in self.commands:
            command.execute(ctx)
