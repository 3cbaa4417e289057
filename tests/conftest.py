"""Shared test configuration: hypothesis profiles, guard bytes, and the D3D12 / DirectML rigs (tests/mirror_rig.py)."""
import os

# ---- hypothesis profiles and guard bytes ------------------------------------------------------------
# "ci" (the default) is deterministic: derandomize=True draws the same examples on every run and no
# example database is read or written. DMLEMU_FUZZ_PROFILE=long explores: random seeds (pass
# --hypothesis-seed=N to repeat a run), 25 times more examples in the property tests (see
# tests/operator_cases.scaled), and failures printed with a reproduction blob.
import pytest
from hypothesis import settings as _hypothesis_settings

from dmlemu.directml import DML_CREATE_DEVICE_FLAG_DEBUG
from dmlemu.presets import TEACHING
from mirror_rig import MirrorRig

_hypothesis_settings.register_profile("ci", derandomize=True, database=None, deadline=None, print_blob=False)
_hypothesis_settings.register_profile("long", derandomize=False, database=None, deadline=None, print_blob=True)
_hypothesis_settings.load_profile(os.environ.get("DMLEMU_FUZZ_PROFILE", "ci"))


@pytest.fixture(scope="module")
def guard_bytes():
    """Devices created while this fixture is active get 64 guard bytes around every allocation."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DMLEMU_GUARD_BYTES", "64")
        yield 64


# ---- the D3D12 / DirectML flow (tests/mirror_rig.py) ------------------------------------------------------
@pytest.fixture
def d3d12_rig():
    """A D3D12-only MirrorRig on the teaching adapter: device, DIRECT queue, allocator, open list, fence."""
    return MirrorRig(TEACHING)


@pytest.fixture
def dml_rig():
    """A MirrorRig on the default adapter with a DML device (DML_CREATE_DEVICE_FLAG_DEBUG, so misuse is also
    printed to stderr), a 16-slot shader-visible heap set on the list, and a command recorder."""
    return MirrorRig(dml_flags=DML_CREATE_DEVICE_FLAG_DEBUG)
