"""Buffer descriptors: the 128-bit records through which kernels reach memory.

A descriptor names a byte range of GPU memory (base virtual address and size). Kernels load a
descriptor into four consecutive scalar registers (s_load_dwordx4) and pass that register quad to
every buffer_load / buffer_store. Accesses past the range follow D3D's robust buffer rules: reads
return 0 and writes are dropped, and both are counted.

Layout (little-endian dwords), our own, documented in docs/ISA.md:
    dword0  base address bits 0..31
    dword1  base address bits 32..47 (bits 16..31 reserved, 0)
    dword2  size of the range in bytes (num_records)
    dword3  bit 0 = valid; bit 1 = read-only (a shader-resource or constant-buffer view: stores and
            atomics through it are dropped and counted, `readonly_writes`); other bits reserved, 0
In a D3D12 descriptor heap each descriptor occupies DESCRIPTOR_SIZE bytes. The kernels read only
the first 16; a UAV's slot keeps its view's format, RAW flag and structure stride in bytes 16..27 (for
ClearUnorderedAccessView*, emulator/d3d12/clear.py); the rest of the tail is zero.
"""
import numpy as np

DESCRIPTOR_DWORDS = 4
DESCRIPTOR_SIZE = 32  # bytes per slot in a CBV_SRV_UAV heap (GetDescriptorHandleIncrementSize)
VALID = 0x1
READ_ONLY = 0x2


def pack_buffer_descriptor(gpu_va, size_bytes):
    """The descriptor's four dwords as a uint32 array."""
    if not 0 <= gpu_va < 1 << 48:
        raise ValueError(f"descriptor base address 0x{gpu_va:x} does not fit in 48 bits")
    if not 0 <= size_bytes < 1 << 32:
        raise ValueError(f"descriptor size {size_bytes} does not fit in 32 bits")
    return np.array([gpu_va & 0xFFFFFFFF, gpu_va >> 32, size_bytes, VALID], dtype=np.uint32)


def unpack_buffer_descriptor(dwords):
    """(base address, size in bytes, valid) from four dwords."""
    d0, d1, d2, d3 = (int(d) for d in dwords[:4])
    return d0 | ((d1 & 0xFFFF) << 32), d2, bool(d3 & VALID)


def is_read_only(dwords):
    """Whether a descriptor (its four dwords) is a read-only view (an SRV's or a CBV's)."""
    return bool(int(dwords[3]) & READ_ONLY)


def mark_read_only(heap_bytes, slot_offset):
    """Set the read-only bit of the descriptor at `slot_offset` of a uint8 array."""
    heap_bytes[slot_offset + 12] |= READ_ONLY


def read_buffer_descriptor(heap_bytes, slot_offset=0):
    """(base address, size in bytes, valid) of the descriptor at `slot_offset` of a uint8 array."""
    return unpack_buffer_descriptor(heap_bytes[slot_offset:slot_offset + 16].view("<u4"))


def write_buffer_descriptor(heap_bytes, slot_offset, gpu_va, size_bytes):
    """Write a descriptor into a heap's bytes at `slot_offset`, zeroing the slot's tail."""
    slot = heap_bytes[slot_offset:slot_offset + DESCRIPTOR_SIZE]
    slot[:] = 0
    slot[:16] = pack_buffer_descriptor(gpu_va, size_bytes).view(np.uint8)
