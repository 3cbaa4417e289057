"""MemoryWatch: the memory check run around a dispatch, and element_byte_mask for what it may change.

With guard bytes on (the module sets DMLEMU_GUARD_BYTES, tests/conftest.py's `guard_bytes`, before devices
are created) it verifies every guard zone, and it compares every byte of every live allocation before and
after, allowing changes only where the test says (an output tensor's element positions, a binding table's
descriptor slots). So nothing may be written outside an output's [offset, offset + TotalTensorSize), not even
its padding, and inputs are never written. It reads the emulated GPU's memory (GpuMemory) directly: that is
what it checks.
"""
import numpy as np


def element_byte_mask(nbytes, offset, tensor):
    """Bool mask over a buffer's bytes: True at every byte of the tensor's elements."""
    mask = np.zeros(nbytes, dtype=bool)
    index = np.zeros(tuple(tensor.sizes), dtype=np.int64)
    for axis, (size, stride) in enumerate(zip(tensor.sizes, tensor.effective_strides)):
        shape = [1] * len(tensor.sizes)
        shape[axis] = size
        index += (np.arange(size, dtype=np.int64) * stride).reshape(shape)
    starts = offset + np.unique(index.reshape(-1)) * tensor.itemsize
    for k in range(tensor.itemsize):
        mask[starts + k] = True
    return mask


class MemoryWatch:
    """Snapshot every live allocation of a GPU; later check guards and that only allowed bytes changed."""

    def __init__(self, gpu):
        self.gpu = gpu
        self.before = {id(a): (a, a.data.copy()) for a in gpu.memory.allocations}
        self.allowed = {}   # id(allocation) -> bool mask

    def allow(self, allocation, mask):
        key = id(allocation)
        self.allowed[key] = mask if key not in self.allowed else (self.allowed[key] | mask)

    def allow_range(self, allocation, start, end):
        mask = np.zeros(allocation.size, dtype=bool)
        mask[start:end] = True
        self.allow(allocation, mask)

    def check(self):
        """Assert guards intact and nothing changed outside the allowed masks; returns changed byte count."""
        self.gpu.memory.verify_guards()
        changed_total = 0
        for key, (allocation, old) in self.before.items():
            if allocation.freed:
                continue
            diff = allocation.data != old
            if not diff.any():
                continue
            changed_total += int(diff.sum())
            stray = diff & ~self.allowed.get(key, np.zeros(allocation.size, dtype=bool))
            if stray.any():
                where = np.flatnonzero(stray)
                raise AssertionError(f"{allocation!r}: {where.size} byte(s) written outside the allowed ranges; "
                                     f"first at byte {where[0]} (0x{int(old[where[0]]):02X} -> "
                                     f"0x{int(allocation.data[where[0]]):02X})")
        return changed_total
