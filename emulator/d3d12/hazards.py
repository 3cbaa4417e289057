"""Hazard tracking: which GPU operations touch which bytes of which resource, and what orders them.

One HazardTracker per ExecuteCommandLists call (`ExecutionContext.hazards`, made by the queue).
Every GPU operation that reads or writes resource memory tells it what it touched, as it executes,
through `note_access(ctx, operation, reads=[(resource, offset, size)], writes=[...])`; barriers
tell it what they order through `note_barrier(ctx, resource)` (None: every resource).

D3D12's rules (ID3D12GraphicsCommandList::ResourceBarrier, D3D12_RESOURCE_UAV_BARRIER): work in one
ExecuteCommandLists call may overlap on the GPU, across the lists of that call too (the driver may
merge them); a UAV barrier makes every earlier unordered access (read or write) to its resource, or
to every resource when pResource is null, finish before any later one starts; a transition orders
the accesses to the resource it transitions. Two ExecuteCommandLists calls on one queue are ordered
("calling ExecuteCommandLists twice in succession guarantees that the first workload finishes before
the second"), so a tracker starts empty with each call. Between two accesses to overlapping bytes
of one resource with no such barrier in between, the tracker reports, for the later one:

    read-after-write    it reads what the earlier one wrote
    write-after-write   it writes what the earlier one wrote
    write-after-read    it writes what the earlier one read (the reader may see the new bytes)

(one hazard per pair of operations and resource, the first of these kinds that applies). Reads
never conflict with reads, and one operation never conflicts with itself (an in-place dispatch).
The history is bounded: an access covered by a later one to the same bytes (any access by a later
write, a read by a later read; a copy covers only copies) is forgotten, since whatever conflicts with
it conflicts with the later one too; the hazard then names the later operation. The accesses kept are
sorted by their first byte, so an access finds the ones it overlaps by bisection (n log n over a list of
dispatches that write their own parts of one buffer, not n^2).
Copies (CopyBufferRegion, CopyResource) are ordered with each other, as D3D12's copy operations
are serialised by the runtime (there is no barrier that could order two copies); a copy still
conflicts with a dispatch, but the resource states make a transition necessary between them.

Each hazard found is counted (`device._hazard_count`, and the trace: table `hazards`, column
`hazards` of `dispatches`) and, with the D3D12 debug layer on, reported: the sentence is raised as
HResultError(DXGI_ERROR_INVALID_CALL) once the queue's work has run (`device._defer_debug_report`),
naming both operations and the resource; the device stays usable and every result is written as
the emulated GPU computed it. The emulated GPU itself runs operations in order, and its timing model
lets dispatches with no barrier between them overlap (emulator/gpu.py): a hazard is what tells a
user why the same program may give other results on hardware.

For other modules (ClearUnorderedAccessView*, a compute Dispatch): call note_access from the
command's execute(ctx) before the work is done, with the operation's name as error sentences
should quote it ("ClearUnorderedAccessViewUint"), and with `copy=True` only for copy-engine work.
"""
import bisect

from dmlemu.errors import DXGI_ERROR_INVALID_CALL

READ_AFTER_WRITE, WRITE_AFTER_WRITE, WRITE_AFTER_READ = "read-after-write", "write-after-write", "write-after-read"


class Hazard:
    """One hazard: the later operation, the earlier one, the resource and the bytes both touch."""

    __slots__ = ("kind", "operation", "earlier", "resource", "start", "end")

    def __init__(self, kind, operation, earlier, resource, start, end):
        self.kind, self.operation, self.earlier = kind, operation, earlier
        self.resource, self.start, self.end = resource, start, end

    def sentence(self):
        label = self.resource._label
        later_verb, earlier_verb = {READ_AFTER_WRITE: ("reads", "wrote"), WRITE_AFTER_WRITE: ("writes", "wrote"),
                                    WRITE_AFTER_READ: ("writes", "read")}[self.kind]
        return (f"{self.kind} hazard on {label}: {self.operation} {later_verb} bytes {self.start} to {self.end}, "
                f"which {self.earlier} {earlier_verb}, with no UAV barrier (on {label} or global) or transition "
                f"of {label} between them, so the GPU may run them at the same time.")


class _History:
    """The unordered accesses to one resource: (operation name, start, end, is_write, is_copy, sequence) each,
    kept sorted by (start, sequence) so that the accesses overlapping a byte range are found by bisection
    among those starting at most `longest` bytes before it (`longest`: the longest access ever kept), not by
    a scan of the whole history; a program of many dispatches writing their own parts of one buffer costs
    n log n, not n^2."""

    __slots__ = ("keys", "entries", "longest")

    def __init__(self):
        self.keys, self.entries, self.longest = [], [], 0

    def overlapping(self, start, end):
        """(index, entry) of every kept access that overlaps [start, end), in storage order."""
        lo = bisect.bisect_left(self.keys, (start - self.longest, -1))
        hi = bisect.bisect_left(self.keys, (end, -1))
        return [(i, self.entries[i]) for i in range(lo, hi) if self.entries[i][2] > start]

    def add(self, entry):
        key = (entry[1], entry[5])
        i = bisect.bisect_left(self.keys, key)
        self.keys.insert(i, key)
        self.entries.insert(i, entry)
        self.longest = max(self.longest, entry[2] - entry[1])

    def remove(self, indices):
        for i in sorted(indices, reverse=True):
            del self.keys[i], self.entries[i]


class HazardTracker:
    """The accesses since the last barrier that orders them, per resource, within one ExecuteCommandLists call."""

    __slots__ = ("_accesses", "_count")

    def __init__(self):
        self._accesses = {}   # resource -> _History
        self._count = 0       # operations noted so far (names them: "operation 3 (...)")

    def access(self, operation, reads=(), writes=(), copy=False):
        """Note an operation's accesses; the hazards they make with earlier unordered ones (a list)."""
        self._count += 1
        name = f"operation {self._count} ({operation})"
        mine = [(r, int(o), int(o) + int(s), False) for r, o, s in reads if s] + \
               [(r, int(o), int(o) + int(s), True) for r, o, s in writes if s]
        found, seen = [], set()
        for resource, start, end, is_write in mine:
            history = self._accesses.get(resource)
            candidates = sorted(history.overlapping(start, end), key=lambda e: e[1][5]) if history else ()
            for _, (other, o_start, o_end, o_write, o_copy, _) in candidates:     # oldest first
                if not (is_write or o_write) or (copy and o_copy):
                    continue
                key = (other, resource)
                if key in seen:
                    continue
                seen.add(key)
                kind = WRITE_AFTER_WRITE if is_write and o_write else READ_AFTER_WRITE if o_write else WRITE_AFTER_READ
                found.append(Hazard(kind, name, other, resource, max(start, o_start), min(end, o_end)))
        for resource, start, end, is_write in mine:
            # Bounded history: an earlier access that this one covers (a write covers every access to its
            # bytes, a read covers reads) is dropped; anything that would conflict with it conflicts with
            # this one too, so the hazard is still found (naming the later operation). A chain of in-place
            # dispatches with no barrier keeps one entry per resource, not one per dispatch.
            # A copy covers only copies: copies never conflict with each other, so one could hide a dispatch.
            history = self._accesses.setdefault(resource, _History())
            history.remove([i for i, a in history.overlapping(start, end)
                            if start <= a[1] and a[2] <= end and (is_write or not a[3]) and (not copy or a[4])])
            history.add((name, start, end, is_write, copy, self._count))
        return found

    def history(self, resource):
        """The accesses to `resource` kept since its last barrier, oldest first: (operation name, start, end,
        is_write, is_copy) each; a tuple, read-only."""
        history = self._accesses.get(resource)
        return tuple(e[:5] for e in sorted(history.entries, key=lambda e: e[5])) if history else ()

    def barrier(self, resource=None):
        """A barrier that orders every earlier access to `resource` (None: to every resource)."""
        if resource is None:
            self._accesses.clear()
        else:
            self._accesses.pop(resource, None)


def _tracker(ctx):
    return getattr(ctx, "hazards", None)


def note_access(ctx, operation, reads=(), writes=(), copy=False):
    """An operation executing in `ctx` (an ExecutionContext) reads and writes (resource, offset, size)
    ranges: count and report the hazards it makes (see the module banner). Returns the list of Hazards."""
    tracker = _tracker(ctx)
    if tracker is None:
        return []
    found = tracker.access(operation, reads, writes, copy)
    if found:
        device = ctx.device
        device._hazard_count = getattr(device, "_hazard_count", 0) + len(found)
        recorder = ctx.gpu.recorder
        where = f" (in {ctx.command_list._label} on {ctx.queue._label})" if ctx.command_list is not None else ""
        for hazard in found:
            if recorder is not None and hasattr(recorder, "hazard"):
                recorder.hazard(hazard.kind, hazard.operation, hazard.earlier, hazard.resource._label,
                                hazard.start, hazard.end, dispatch=not copy)
            if device._debug_layer:
                device._defer_debug_report(DXGI_ERROR_INVALID_CALL,
                                           f"ExecuteCommandLists: {hazard.sentence()[:-1]}{where}.")
    return found


def note_barrier(ctx, resource=None):
    """A barrier executing in `ctx` orders every earlier access to `resource` (None: every resource)."""
    tracker = _tracker(ctx)
    if tracker is not None:
        tracker.barrier(resource)


__all__ = ["Hazard", "HazardTracker", "note_access", "note_barrier"]
