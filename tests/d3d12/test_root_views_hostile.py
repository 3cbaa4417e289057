"""Hostile root views and root constants through the microbenchmark rig's custom kernels (issue 30): the rig
(bench/microbench/rig.py) binds a kernel's buffers as root SRV t0 and root UAVs u0, u1 (a GPU virtual address, no
size, as D3D12's root descriptors are) and its trip count, stride and mask as root constants. Drawn: addresses inside,
at the end of and past a buffer, between buffers, 0, negative, past 2^64, another device's buffer; constants of any
32-bit value (the store kernel wraps its offsets with the mask, so a mask of 2^32 - 1 stores far past its buffer).
Each ends in its documented outcome: SetComputeRoot*View records an invalid call for an address that is no buffer
of this device (Close fails with E_INVALIDARG and the sentence), or the dispatch runs and writes only inside the
buffer from the bound address to its end (a root view reaches to the end of its resource; stores past it are
dropped as out of range): every other byte of every buffer and the guard bytes keep their values.
bench/hostile_census.py entry "microbenchmark rig"."""
import os
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from dmlemu.d3d12 import *  # noqa: F401,F403
from dmlemu.directml import inspect
from dmlemu.errors import E_INVALIDARG, HResultError
from operator_cases import ACCEPTED, REFUSED, outcome, scaled

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from bench.microbench.rig import BenchRig  # noqa: E402

SIZE = 8192


class Address:
    """What the rig reads from a resource for a root view: its GPU virtual address (here any number)."""

    def __init__(self, va):
        self.va = va

    def GetGPUVirtualAddress(self):
        return self.va


@pytest.fixture(scope="module")
def rigs(guard_bytes):
    rig, other = BenchRig("teaching"), BenchRig("teaching")
    buffers = [rig.buffer(SIZE) for _ in range(3)]
    return rig, buffers, other.buffer(SIZE), rig.pipeline("store")


@st.composite
def locations(draw, count):
    kind = draw(st.sampled_from(["inside", "inside", "inside", "end", "past", "between", "zero", "negative",
                                 "huge", "other device"]))
    index = draw(st.integers(0, count - 1))
    return kind, index, draw(st.integers(0, SIZE // 8 - 1)) * 8


def address(location, buffers, foreign):
    kind, index, offset = location
    base = buffers[index].GetGPUVirtualAddress()
    return {"inside": base + offset, "end": base + SIZE - 8, "past": base + SIZE + offset,
            "between": buffers[-1].GetGPUVirtualAddress() + (1 << 24) + offset, "zero": 0, "negative": -8 - offset,
            "huge": (1 << 64) + offset, "other device": foreign.GetGPUVirtualAddress() + offset}[kind]


U32 = st.one_of(st.integers(0, 64), st.sampled_from([0xFFFFFFFF, 0x80000000, SIZE - 1, SIZE, 2 * SIZE - 1]),
                st.integers(0, 2 ** 32 - 1))


@settings(max_examples=scaled(30), deadline=None, suppress_health_check=list(HealthCheck))
@given(location=locations(3), stride=U32, mask=U32, trips=st.integers(0, 3), groups=st.integers(1, 2))
def test_hostile_root_views_and_constants_write_only_inside_their_buffer(rigs, location, stride, mask, trips,
                                                                         groups):
    rig, buffers, foreign, store = rigs
    before = [rig.read(b, np.uint8, SIZE) for b in buffers]
    va = address(location, buffers, foreign)
    try:
        rig.dispatch(store, groups, (trips, stride, mask), uavs=(Address(va),))
    except HResultError as error:
        assert error.hresult == E_INVALIDARG and "BufferLocation" in str(error) and \
            "is not the GPU virtual address of a buffer of this device" in str(error), str(error)
        assert location[0] in ("past", "between", "zero", "negative", "huge", "other device"), (location, str(error))
        assert rig.device.GetDeviceRemovedReason() == 0
        outcome(REFUSED)
        return
    assert rig.device.GetDeviceRemovedReason() == 0
    after = [rig.read(b, np.uint8, SIZE) for b in buffers]
    target = next((i for i, b in enumerate(buffers)
                   if b.GetGPUVirtualAddress() <= va < b.GetGPUVirtualAddress() + SIZE), None)
    assert target is not None, (location, hex(va))
    start = va - buffers[target].GetGPUVirtualAddress()
    for i, (old, new) in enumerate(zip(before, after)):
        changed = np.nonzero(old != new)[0]
        assert i == target or changed.size == 0, (i, target, changed[:4])
        assert changed.size == 0 or changed[0] >= start, (start, changed[:4])
    inspect(rig.device).gpu.memory.verify_guards()    # the guard bytes around every allocation
    outcome(ACCEPTED)


def test_a_negative_root_view_address_is_shown_in_decimal(rigs):
    """A negative number is no D3D12_GPU_VIRTUAL_ADDRESS (a UINT64); the sentence showed it as 0x-8."""
    rig, _, _, store = rigs
    with pytest.raises(HResultError) as error:
        rig.dispatch(store, 1, (1, 0, 0), uavs=(Address(-8),))
    assert "SetComputeRootShaderResourceView: BufferLocation -8 is not the GPU virtual address of a buffer of this " \
           "device." in str(error.value), str(error.value)
