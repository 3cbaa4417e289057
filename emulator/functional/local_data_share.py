"""The local data share (LDS): each workgroup's own on-chip memory, for the waves of a batch.

A kernel declares how many bytes of LDS each of its workgroups gets (a compute shader's `.lds`
directive; KernelLaunch.lds_bytes). The executor runs a batch of whole workgroups at once, so one
LocalDataShare holds the LDS of every workgroup of the batch side by side in one flat byte array:
workgroup g's byte a is `data[(g - first_group) * size + a]`. It starts zeroed, as the hardware's
does not promise but as a deterministic emulator must; `written` marks the bytes a store or atomic
of the workgroup has written, so that a read of LDS never written in this workgroup (a bug no real
GPU reports: it returns whatever the last workgroup left there) is counted, and reported by the
debug layer.
"""
import numpy as np

# Memory bound: the LDS of one batch's workgroups, together (the dispatcher shrinks a batch to fit).
MAX_BATCH_LDS_BYTES = 64 << 20
# The most LDS one workgroup may declare here: above every GPU's (H100: 227 KiB per block); the API
# layers refuse less (D3D12: 32 KiB of groupshared memory).
MAX_WORKGROUP_LDS_BYTES = 1 << 20


class LocalDataShare:
    """The LDS of workgroups first_group .. first_group + groups - 1, `size` bytes each."""

    __slots__ = ("size", "first_group", "groups", "data", "written")

    def __init__(self, size, first_group, groups):
        self.size = size
        self.first_group = first_group
        self.groups = groups
        # Padded to whole 16-byte rows so that dword, 64- and 128-bit views always exist.
        total = -(-size * groups // 16) * 16
        self.data = np.zeros(total, dtype=np.uint8)
        self.written = np.zeros(total, dtype=np.uint8)

    def flat_addresses(self, workgroup, addresses, access_bytes):
        """(flat byte index, in range) of byte `addresses` (W, width) of each lane's workgroup
        (`workgroup`: (W, 1)), the low bits below `access_bytes` ignored (natural alignment). An
        access that does not fit wholly inside the workgroup's `size` bytes is out of range."""
        flat = addresses & ~np.int64(access_bytes - 1) if access_bytes > 1 else addresses.copy()
        in_range = flat <= self.size - access_bytes
        slot = workgroup.astype(np.int64) - self.first_group
        if slot.size == 1:
            if int(slot[0, 0]):
                flat += int(slot[0, 0]) * self.size
        else:
            flat += slot * self.size
        return flat, in_range

    def mark_written(self, flat, access_bytes):
        """Mark the `access_bytes` bytes at each flat index (aligned to its size) written."""
        view = self.written.view(WORD[access_bytes])
        if access_bytes == 16:
            view[flat // 8] = ALL_ONES[8]
            view[flat // 8 + 1] = ALL_ONES[8]
        else:
            view[flat // access_bytes] = ALL_ONES[access_bytes]

    @staticmethod
    def unwritten_count(seen, access_bytes):
        """How many of the accesses whose `written` words (a view of `written` in units of the access, 8
        bytes at most: LocalDataShare.written.view(WORD[access_bytes])) are `seen` read some byte never
        written in their workgroup."""
        return int(seen.size - np.count_nonzero(seen == ALL_ONES[access_bytes]))

    def unwritten(self, flat, access_bytes, distinct=False):
        """How many of the accesses at `flat` read some byte never written in their workgroup (with
        `distinct`: how many distinct such addresses, for atomics, whose later lanes read what the
        first wrote)."""
        view = self.written.view(WORD[access_bytes])
        if access_bytes == 16:
            seen = (view[flat // 8] == ALL_ONES[8]) & (view[flat // 8 + 1] == ALL_ONES[8])
        else:
            seen = view[flat // access_bytes] == ALL_ONES[access_bytes]
        count = int(seen.size - np.count_nonzero(seen))
        if count and distinct:
            addresses = np.sort(flat[~seen])
            count = 1 + int(np.count_nonzero(addresses[1:] != addresses[:-1]))
        return count


# `written` read a whole access at a time: a word as wide as the access whose every byte is 1.
WORD = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64, 16: np.uint64}
ALL_ONES = {1: np.uint8(1), 2: np.uint16(0x0101), 4: np.uint32(0x01010101), 8: np.uint64(0x0101010101010101)}
