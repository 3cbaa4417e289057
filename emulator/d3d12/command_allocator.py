"""ID3D12CommandAllocator: the memory command lists record into.

One per CreateCommandAllocator call. An allocator backs one recording command list at a time
(`_recording_list`); every ExecuteCommandLists of a list recorded into it leaves a submission
(queue, serial) here. Reset frees the recorded commands, so D3D12 allows it only when no list is
recording into the allocator and the CPU has observed (through a fence, see fence.py) that every
submission completed; otherwise it returns E_FAIL, as the debug layer reports it. After a Reset,
lists recorded before it are stale (`_epoch` moved on): executing one is an error until it is Reset.
"""
from dmlemu.errors import E_FAIL, HResultError
from dmlemu.com import hresult_method
from dmlemu.d3d12.base import DeviceChild, invalid_arg
from dmlemu.com import enum_name, is_one_of
from dmlemu.d3d12.enums import (D3D12_COMMAND_LIST_TYPE, D3D12_COMMAND_LIST_TYPE_BUNDLE,
                                 D3D12_COMMAND_LIST_TYPE_COMPUTE, D3D12_COMMAND_LIST_TYPE_COPY,
                                 D3D12_COMMAND_LIST_TYPE_DIRECT)

ALLOCATOR_TYPES = (D3D12_COMMAND_LIST_TYPE_DIRECT, D3D12_COMMAND_LIST_TYPE_BUNDLE, D3D12_COMMAND_LIST_TYPE_COMPUTE,
                   D3D12_COMMAND_LIST_TYPE_COPY)


class ID3D12CommandAllocator(DeviceChild):
    """A command allocator of one command list type."""

    _kind = "command allocator"

    def __init__(self, device, list_type):
        super().__init__(device)
        self._type = list_type
        self._recording_list = None
        self._submissions = []  # [(queue, serial, command list label)] since the last Reset
        self._epoch = 0

    @hresult_method
    def Reset(self):
        """Free the recorded commands; E_FAIL while a list records here or GPU work may still use them."""
        if self._recording_list is not None:
            raise HResultError(E_FAIL, f"Reset: {self._label} is in use by {self._recording_list._label}, which is "
                                       "still recording; Close it first.")
        for queue, serial, list_label in self._submissions:
            if serial > queue._observed_serial:
                raise HResultError(
                    E_FAIL,
                    f"Reset: {self._label} holds {list_label}, executed on {queue._label}, whose completion the CPU "
                    "has not observed; wait on a fence signalled after that ExecuteCommandLists first.")
        self._submissions = []
        self._epoch += 1

    def _in_flight(self):
        return any(serial > queue._observed_serial for queue, serial, _ in self._submissions)


def create_command_allocator(device, list_type):
    if not is_one_of(list_type, ALLOCATOR_TYPES):
        raise invalid_arg("CreateCommandAllocator", f"type is {enum_name(D3D12_COMMAND_LIST_TYPE, list_type)}; it "
                                                    "must be DIRECT, BUNDLE, COMPUTE or COPY.")
    return ID3D12CommandAllocator(device, int(list_type))


__all__ = ["ID3D12CommandAllocator"]
