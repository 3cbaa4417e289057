"""GPU memory: the device's physical memory, holding every resource as a byte range.

One per emulated GPU. Each allocation (a committed resource, a descriptor heap, a compiled
operator's constant buffer) gets a range of the GPU virtual address space and a NumPy uint8 array
for its bytes. Allocations are budgeted against the adapter's memory size; going past it raises
`OutOfDeviceMemory` and changes nothing. Kernels reach memory only through buffer descriptors
(see buffer_descriptor.py), and `resolve` turns a descriptor's address back into an allocation.

Guard bytes (a testing aid, off by default and then free): `GpuMemory(capacity, guard_bytes=64)`
keeps each allocation's bytes in one backing array between two guard zones of `guard_bytes` bytes
filled with a fixed pattern; `Allocation.data` stays a view of exactly `size` bytes. Nothing in the
emulator can reach a guard zone (descriptors resolve to `data`), so a changed guard byte means some
code wrote past an allocation through its backing store. `check_guards()` lists the allocations
whose guards changed (live ones, and freed ones found damaged when they were freed);
`verify_guards()` raises `GuardViolation` with a sentence naming the first damaged byte.

Bounded memory (docs/RELIABILITY.md, "Memory model"):
- The budget (`capacity_bytes`) is the adapter's memory, but at most HOST_MEMORY_FRACTION of the
  host's RAM (`host_memory_bytes()`: physical RAM, or a smaller cgroup limit), because every emulated
  byte is a host byte. `GpuMemory(capacity, budget_bytes=n)` sets the budget explicitly.
- Virtual addresses are reused: a freed range (rounded up to ALLOCATION_ALIGNMENT) goes back to a
  free list, adjacent free ranges merge, a free range at the top lowers the top, and allocation takes
  the lowest free range that fits (first fit). The address space in use therefore never exceeds the
  peak of live allocations plus fragmentation, however many allocations come and go; it ends at
  VA_LIMIT (the 48 bits a buffer descriptor holds). A stale descriptor may thus reach a later
  allocation, as on a real GPU; the mirror's rules forbid using a released resource.
- A host that cannot back an allocation (NumPy's MemoryError) raises OutOfDeviceMemory, which the
  mirror reports as E_OUTOFMEMORY; nothing has changed.
"""
import bisect
import os
import threading

import numpy as np

# Allocations start on 64 KiB boundaries, like D3D12's default resource placement alignment.
ALLOCATION_ALIGNMENT = 65536
# The first usable GPU virtual address; 0 stays invalid so a null descriptor never resolves.
VA_BASE = 0x1_0000_0000
# One past the last usable GPU virtual address: a buffer descriptor holds 48 address bits.
VA_LIMIT = 1 << 48
# The share of the host's RAM the emulated device memory may use by default (the rest is for the
# inputs and outputs as NumPy arrays, the kernels' lane arrays and Python itself).
HOST_MEMORY_FRACTION = 0.5


def host_memory_bytes():
    """The host's RAM in bytes: physical memory, or the cgroup (v2 or v1) limit when that is smaller;
    None when neither can be read."""
    sizes = []
    try:
        sizes.append(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        pass
    for path in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            with open(path, encoding="ascii") as f:
                text = f.read().strip()
        except OSError:
            continue
        if text.isdigit():
            sizes.append(int(text))
    sizes = [s for s in sizes if s > 0]
    return min(sizes) if sizes else None


def default_budget(capacity_bytes):
    """The budget of a device with `capacity_bytes` of memory: min(capacity, HOST_MEMORY_FRACTION x
    host RAM); the capacity alone when the host's RAM is unknown."""
    capacity_bytes = int(capacity_bytes)
    host = host_memory_bytes()
    if host is None:
        return capacity_bytes
    return min(capacity_bytes, int(host * HOST_MEMORY_FRACTION))



class OutOfDeviceMemory(Exception):
    """An allocation would exceed the adapter's memory budget."""


class GuardViolation(AssertionError):
    """Bytes in a guard zone around an allocation changed (something wrote out of its range)."""


def guard_pattern(n):
    """The fixed guard bytes: a non-repeating-looking byte ramp (never all one value, never 0 runs)."""
    return ((np.arange(n, dtype=np.uint32) * 167 + 0x5B) & 0xFF).astype(np.uint8) | np.uint8(1)


class Allocation:
    """A range of GPU memory: its virtual address, size in bytes, and its bytes.

    With `guard_bytes` > 0 the bytes live in `backing` between two guard zones and `data` is the
    view of the `size` bytes between them.
    """

    __slots__ = ("gpu_va", "size", "data", "name", "freed", "guard_bytes", "_backing")

    def __init__(self, gpu_va, size, name, guard_bytes=0):
        self.gpu_va = gpu_va
        self.size = size
        self.name = name
        self.freed = False
        self.guard_bytes = guard_bytes
        if guard_bytes:
            self._backing = np.empty(size + 2 * guard_bytes, dtype=np.uint8)
            pattern = guard_pattern(guard_bytes)
            self._backing[:guard_bytes] = pattern
            self._backing[guard_bytes + size:] = pattern
            self.data = self._backing[guard_bytes:guard_bytes + size]
            self.data[:] = 0
        else:
            self._backing = None
            self.data = np.zeros(size, dtype=np.uint8)

    @property
    def backing(self):
        """The guard zone before, the data, the guard zone after: one uint8 array (`data` is a view of its
        middle); None without guard bytes. Tests damage a guard through it to see the damage found."""
        return self._backing

    def guard_damage(self):
        """None when both guard zones hold the pattern, else a sentence naming the first changed byte."""
        g = self.guard_bytes
        if not g:
            return None
        if self.data.base is not self._backing or self.data.size != self.size:
            return f"{self!r}: its data is no longer the {self.size}-byte view between its guard zones."
        pattern = guard_pattern(g)
        for side, zone in (("before", self._backing[:g]), ("after", self._backing[g + self.size:])):
            changed = np.flatnonzero(zone != pattern)
            if changed.size:
                first = int(changed[0])
                distance = g - first if side == "before" else first + 1
                return (f"{self!r}: {changed.size} guard byte(s) {side} its data changed; the first is "
                        f"{distance} byte(s) {side} the allocation (0x{int(zone[first]):02X}, expected "
                        f"0x{int(pattern[first]):02X}).")
        return None

    def __repr__(self):
        return f"Allocation({self.name!r}, va=0x{self.gpu_va:x}, size={self.size})"


class GpuMemory:
    """The device memory of one GPU: a budget, a virtual address space and its allocations.

    capacity_bytes: the adapter's memory. budget_bytes: the bytes allocations may use (None:
    default_budget(capacity_bytes)); it is `capacity_bytes` afterwards, which the mirror's
    E_OUTOFMEMORY sentences quote, and `adapter_bytes` keeps the adapter's figure.
    """

    def __init__(self, capacity_bytes, guard_bytes=0, budget_bytes=None):
        self.adapter_bytes = int(capacity_bytes)
        self.capacity_bytes = default_budget(capacity_bytes) if budget_bytes is None else int(budget_bytes)
        self.guard_bytes = int(guard_bytes)
        if self.guard_bytes < 0:
            raise ValueError(f"guard_bytes must not be negative, got {guard_bytes}")
        self.used_bytes = 0
        self._next_va = VA_BASE   # the top: every address from here up is free
        self._free_starts = []    # sorted starts of the free ranges below the top
        self._free_sizes = []     # their sizes (multiples of ALLOCATION_ALIGNMENT), same order
        self._starts = []      # sorted gpu_va of live allocations
        self._allocations = []  # same order as _starts
        self._freed_damaged = []  # allocations whose guards were found changed when freed
        # D3D12 devices are free-threaded: resource creation and release from several threads
        # must never hand two live allocations the same addresses.
        self._lock = threading.Lock()

    def allocate(self, size, name=""):
        """Reserve `size` bytes (zero-filled); raises OutOfDeviceMemory past the budget, past the
        virtual address space, or when the host cannot back the bytes (nothing changes then).
        Thread-safe."""
        with self._lock:
            return self._allocate(size, name)

    def _allocate(self, size, name):
        size = int(size)
        if size <= 0:
            raise ValueError(f"allocation size must be positive, got {size}")
        what = name or "a resource"
        if self.used_bytes + size > self.capacity_bytes:
            raise OutOfDeviceMemory(
                f"allocating {size} bytes for {what} would use "
                f"{self.used_bytes + size} bytes of the adapter's {self.capacity_bytes}")
        span = -(-size // ALLOCATION_ALIGNMENT) * ALLOCATION_ALIGNMENT
        slot = self._first_fit(span)
        va = self._next_va if slot is None else self._free_starts[slot]
        if slot is None and va + span > VA_LIMIT:
            raise OutOfDeviceMemory(f"allocating {size} bytes for {what} needs {span} bytes of GPU virtual "
                                    f"address space; no free range of the 48-bit space is that large")
        try:
            allocation = Allocation(va, size, name, self.guard_bytes)
        except MemoryError:
            raise OutOfDeviceMemory(f"allocating {size} bytes for {what}: the host could not provide "
                                    f"the memory to back them") from None
        # Committed only now: a failure above leaves the free list, the top and the budget as they were.
        if slot is None:
            self._next_va = va + span
        elif self._free_sizes[slot] == span:
            del self._free_starts[slot]
            del self._free_sizes[slot]
        else:
            self._free_starts[slot] += span
            self._free_sizes[slot] -= span
        self.used_bytes += size
        index = bisect.bisect(self._starts, va)
        self._starts.insert(index, va)
        self._allocations.insert(index, allocation)
        return allocation

    def _first_fit(self, span):
        """Index of the lowest free range of at least `span` bytes, or None (take from the top)."""
        for i, free in enumerate(self._free_sizes):
            if free >= span:
                return i
        return None

    def free(self, allocation):
        """Return an allocation's bytes to the budget and its address range to the free list
        (thread-safe)."""
        with self._lock:
            self._free(allocation)

    def _free(self, allocation):
        if allocation.freed:
            return
        if allocation.guard_bytes and allocation.guard_damage() is not None:
            self._freed_damaged.append(allocation)
        index = bisect.bisect_left(self._starts, allocation.gpu_va)
        if index < len(self._starts) and self._allocations[index] is allocation:
            del self._starts[index]
            del self._allocations[index]
            self.used_bytes -= allocation.size
            self._release_range(allocation.gpu_va, -(-allocation.size // ALLOCATION_ALIGNMENT) * ALLOCATION_ALIGNMENT)
        allocation.freed = True

    def _release_range(self, start, span):
        """Put [start, start + span) back: merge with free neighbours; lower the top if it touches it."""
        starts, sizes = self._free_starts, self._free_sizes
        i = bisect.bisect(starts, start)
        if i > 0 and starts[i - 1] + sizes[i - 1] == start:      # merge with the range below
            i -= 1
            start, span = starts[i], sizes[i] + span
            del starts[i]
            del sizes[i]
        if i < len(starts) and start + span == starts[i]:        # merge with the range above
            span += sizes[i]
            del starts[i]
            del sizes[i]
        if start + span == self._next_va:
            self._next_va = start
        else:
            starts.insert(i, start)
            sizes.insert(i, span)

    @property
    def address_space_bytes(self):
        """GPU virtual address space below the top (live allocations and free ranges)."""
        return self._next_va - VA_BASE

    def resolve(self, gpu_va):
        """The allocation holding `gpu_va` and the offset inside it, or (None, 0) (thread-safe)."""
        with self._lock:
            return self._resolve(gpu_va)

    def _resolve(self, gpu_va):
        index = bisect.bisect(self._starts, gpu_va) - 1
        if index >= 0:
            allocation = self._allocations[index]
            offset = gpu_va - allocation.gpu_va
            if offset < allocation.size:
                return allocation, offset
        return None, 0

    @property
    def allocations(self):
        return tuple(self._allocations)

    @property
    def free_ranges(self):
        """The free ranges below the top, lowest first: (start, size in bytes) each (thread-safe)."""
        with self._lock:
            return tuple(zip(self._free_starts, self._free_sizes))

    # ---- guard bytes (testing aid) ----------------------------------------------------------------
    def check_guards(self):
        """Allocations whose guard bytes changed: freed ones found damaged, then live ones (va order).

        Always [] when the memory has no guard bytes."""
        if not self.guard_bytes:
            return []
        return list(self._freed_damaged) + [a for a in self._allocations if a.guard_damage() is not None]

    def verify_guards(self):
        """Raise GuardViolation naming every damaged allocation (first damaged byte of each); else None."""
        damaged = self.check_guards()
        if damaged:
            raise GuardViolation(" ".join(a.guard_damage() or f"{a!r}: guard bytes changed before it was freed."
                                          for a in damaged))
