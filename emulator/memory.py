"""GPU memory: the device's physical memory, holding every resource as a byte range.

One per emulated GPU. Each allocation (a committed resource, a descriptor heap, a compiled
operator's constant buffer) gets a range of the GPU virtual address space and a NumPy uint8 array
for its bytes. Allocations are budgeted against the adapter's memory size; going past it raises
`OutOfDeviceMemory` and changes nothing. Kernels reach memory only through buffer descriptors
(see descriptors.py), and `resolve` turns a descriptor's address back into an allocation.
"""
import bisect

import numpy as np

# Allocations start on 64 KiB boundaries, like D3D12's default resource placement alignment.
ALLOCATION_ALIGNMENT = 65536
# The first usable GPU virtual address; 0 stays invalid so a null descriptor never resolves.
VA_BASE = 0x1_0000_0000


class OutOfDeviceMemory(Exception):
    """An allocation would exceed the adapter's memory budget."""


class Allocation:
    """A range of GPU memory: its virtual address, size in bytes, and its bytes."""

    __slots__ = ("gpu_va", "size", "data", "name", "freed")

    def __init__(self, gpu_va, size, name):
        self.gpu_va = gpu_va
        self.size = size
        self.data = np.zeros(size, dtype=np.uint8)
        self.name = name
        self.freed = False

    def __repr__(self):
        return f"Allocation({self.name!r}, va=0x{self.gpu_va:x}, size={self.size})"


class GpuMemory:
    """The device memory of one GPU: a budget, a virtual address space and its allocations."""

    def __init__(self, capacity_bytes):
        self.capacity_bytes = int(capacity_bytes)
        self.used_bytes = 0
        self._next_va = VA_BASE
        self._starts = []      # sorted gpu_va of live allocations
        self._allocations = []  # same order as _starts

    def allocate(self, size, name=""):
        """Reserve `size` bytes (zero-filled); raises OutOfDeviceMemory past the budget."""
        size = int(size)
        if size <= 0:
            raise ValueError(f"allocation size must be positive, got {size}")
        if self.used_bytes + size > self.capacity_bytes:
            raise OutOfDeviceMemory(
                f"allocating {size} bytes for {name or 'a resource'} would use "
                f"{self.used_bytes + size} bytes of the adapter's {self.capacity_bytes}")
        va = self._next_va
        allocation = Allocation(va, size, name)
        self._next_va = va + -(-size // ALLOCATION_ALIGNMENT) * ALLOCATION_ALIGNMENT
        self.used_bytes += size
        index = bisect.bisect(self._starts, va)
        self._starts.insert(index, va)
        self._allocations.insert(index, allocation)
        return allocation

    def free(self, allocation):
        """Return an allocation's bytes to the budget; its address never resolves again."""
        if allocation.freed:
            return
        index = bisect.bisect_left(self._starts, allocation.gpu_va)
        if index < len(self._starts) and self._allocations[index] is allocation:
            del self._starts[index]
            del self._allocations[index]
            self.used_bytes -= allocation.size
        allocation.freed = True

    def resolve(self, gpu_va):
        """The allocation holding `gpu_va` and the offset inside it, or (None, 0)."""
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
