"""GpuMemory's guard bytes (dmlemu.functional.device_memory) and the memory watch built on them.

Guard bytes are off by default (no backing array), on through Gpu(guard_bytes=) or DMLEMU_GUARD_BYTES
(the module's `guard_bytes` fixture sets it before devices are created), and check_guards /
verify_guards find a damaged zone and name it. tests/memory_watch.py's MemoryWatch, run around the
dispatches of the property and fault tests, is itself checked here: one stray byte fails it.
"""
import numpy as np
import pytest

from dmlemu.functional.device_memory import GpuMemory, GuardViolation
from dmlemu.gpu import Gpu
from dmlemu.presets import TEACHING
from memory_watch import MemoryWatch, element_byte_mask
from mirror_rig import MirrorRig
from operator_cases import TensorCase

pytestmark = pytest.mark.usefixtures("guard_bytes")


def test_guard_bytes_are_off_by_default_and_cost_nothing(monkeypatch):
    monkeypatch.delenv("DMLEMU_GUARD_BYTES", raising=False)
    memory = Gpu(TEACHING).memory
    allocation = memory.allocate(100, "plain")
    assert memory.guard_bytes == 0 and allocation.guard_bytes == 0
    assert allocation.data.base is None and allocation.data.size == 100   # its own array, no backing store
    assert memory.check_guards() == [] and memory.verify_guards() is None


def test_guard_bytes_surround_every_allocation():
    memory = GpuMemory(1 << 20, guard_bytes=64)
    a, b = memory.allocate(10, "a"), memory.allocate(4096, "b")
    for allocation in (a, b):
        assert allocation.data.size == allocation.size and allocation.data.base is allocation.backing
        assert allocation.backing.size == allocation.size + 128
        assert not allocation.data.any()
    a.data[:] = 0xFF   # writing every byte of the data touches no guard
    b.data[:] = 0x00
    assert memory.check_guards() == []
    assert memory.used_bytes == 4106   # the budget counts data bytes only


def test_a_damaged_guard_is_found_and_named():
    memory = GpuMemory(1 << 20, guard_bytes=16)
    a, b = memory.allocate(32, "victim"), memory.allocate(32, "bystander")
    a.backing[16 + 32 + 2] ^= 0xFF   # two bytes past the end of a's data
    assert memory.check_guards() == [a]
    with pytest.raises(GuardViolation) as info:
        memory.verify_guards()
    assert str(info.value).startswith(f"Allocation('victim', va=0x{a.gpu_va:x}, size=32): 1 guard byte(s) after its "
                                      f"data changed; the first is 3 byte(s) after the allocation")
    b.backing[15] ^= 0x01            # the byte just before b's data
    assert "1 byte(s) before the allocation" in b.guard_damage()
    memory.free(a)                    # a damaged allocation stays reported after it is freed
    assert memory.check_guards() == [a, b]


def test_a_replaced_data_array_is_found():
    memory = GpuMemory(1 << 20, guard_bytes=8)
    a = memory.allocate(16, "replaced")
    a.data = np.zeros(16, np.uint8)   # writes to this copy would never reach GPU memory
    assert "no longer the 16-byte view between its guard zones" in a.guard_damage()


def test_guard_bytes_from_the_environment_reach_mirror_devices(monkeypatch):
    monkeypatch.setenv("DMLEMU_GUARD_BYTES", "32")
    assert MirrorRig(TEACHING).memory.guard_bytes == 32
    assert Gpu(TEACHING, guard_bytes=0).memory.guard_bytes == 0   # the keyword wins
    monkeypatch.setenv("DMLEMU_GUARD_BYTES", "lots")
    with pytest.raises(ValueError, match="DMLEMU_GUARD_BYTES is 'lots'"):
        Gpu(TEACHING)


def test_the_memory_watch_catches_a_stray_byte_and_a_damaged_guard():
    """The checker run around every reliability dispatch can fail: one byte outside the allowed ranges, or one
    guard byte, is enough."""
    gpu = Gpu(TEACHING, guard_bytes=16)
    a = gpu.memory.allocate(64, "a")
    watch = MemoryWatch(gpu)
    padded = TensorCase("FLOAT16", (2, 3), (4, 1))   # elements at 0-2 and 4-6 (2 bytes each), padding between
    watch.allow(a, element_byte_mask(64, 16, padded))
    a.data[16:22] = 1
    a.data[24:30] = 2
    assert watch.check() == 12
    a.data[22] = 7                                    # the padding element between the rows
    with pytest.raises(AssertionError, match=r"1 byte\(s\) written outside the allowed ranges; first at byte 22"):
        watch.check()
    a.data[22] = 0
    a.backing[16 + 64] ^= 1
    with pytest.raises(GuardViolation):
        watch.check()
