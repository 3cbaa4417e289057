"""ID3D12QueryHeap: slots for GPU timestamps.

One per CreateQueryHeap call; only timestamp heaps are emulated (D3D12_QUERY_HEAP_TYPE_TIMESTAMP for
direct and compute lists, COPY_QUEUE_TIMESTAMP for copy lists). EndQuery records the GPU clock
(device._gpu.timestamp(), in ticks of the queue's GetTimestampFrequency) into a slot when it executes;
ResolveQueryData copies slots into a buffer as little-endian uint64. A slot never written resolves
to 0.
"""
import numpy as np

from dmlemu.errors import E_NOTIMPL, HResultError
from dmlemu.d3d12.base import DeviceChild, invalid_arg
from dmlemu.com import enum_name, is_one_of
from dmlemu.d3d12.enums import (D3D12_QUERY_HEAP_TYPE, D3D12_QUERY_HEAP_TYPE_COPY_QUEUE_TIMESTAMP,
                                 D3D12_QUERY_HEAP_TYPE_TIMESTAMP, D3D12_QUERY_TYPE_TIMESTAMP)
from dmlemu.d3d12.structs import D3D12_QUERY_HEAP_DESC

TIMESTAMP_HEAP, COPY_QUEUE_TIMESTAMP_HEAP = D3D12_QUERY_HEAP_TYPE_TIMESTAMP, D3D12_QUERY_HEAP_TYPE_COPY_QUEUE_TIMESTAMP
TIMESTAMP_QUERY = D3D12_QUERY_TYPE_TIMESTAMP


class ID3D12QueryHeap(DeviceChild):
    """Count timestamp slots."""

    _kind = "query heap"

    def __init__(self, device, desc):
        super().__init__(device)
        self._desc = desc
        self._type = int(desc.Type)
        self._count = int(desc.Count)
        self._ticks = np.zeros(self._count, dtype=np.uint64)


def create_query_heap(device, desc):
    m = "CreateQueryHeap"
    if not isinstance(desc, D3D12_QUERY_HEAP_DESC):
        raise invalid_arg(m, f"pDesc is {desc!r}; it must be a D3D12_QUERY_HEAP_DESC.")
    if not is_one_of(desc.Type, (TIMESTAMP_HEAP, COPY_QUEUE_TIMESTAMP_HEAP)):
        if is_one_of(desc.Type, D3D12_QUERY_HEAP_TYPE._c_names_):
            raise HResultError(E_NOTIMPL, f"{m}: pDesc.Type is {enum_name(D3D12_QUERY_HEAP_TYPE, desc.Type)}; "
                                          "the emulator has only TIMESTAMP and COPY_QUEUE_TIMESTAMP query heaps.")
        raise invalid_arg(m, f"pDesc.Type is {desc.Type!r}; it must be a D3D12_QUERY_HEAP_TYPE.")
    if not isinstance(desc.Count, int) or isinstance(desc.Count, bool) or desc.Count < 1:
        raise invalid_arg(m, f"pDesc.Count is {desc.Count!r}; a query heap holds at least 1 query.")
    if desc.NodeMask not in (0, 1):
        raise invalid_arg(m, f"pDesc.NodeMask is {desc.NodeMask!r}; the emulated adapter has one node, so it must "
                             "be 0 or 1.")
    return ID3D12QueryHeap(device, desc._copy())


__all__ = ["ID3D12QueryHeap"]
