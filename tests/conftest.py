import os

# ---- hypothesis profiles and guard bytes ------------------------------------------------------------
# "ci" (the default) is deterministic: derandomize=True draws the same examples on every run and no
# example database is read or written. DMLEMU_FUZZ_PROFILE=long explores: random seeds (pass
# --hypothesis-seed=N to repeat a run), 25 times more examples in the reliability tests (see
# tests/reliability_helpers.scaled), and failures printed with a reproduction blob.
import pytest
from hypothesis import settings as _hypothesis_settings
_hypothesis_settings.register_profile("ci", derandomize=True, database=None, deadline=None, print_blob=False)
_hypothesis_settings.register_profile("long", derandomize=False, database=None, deadline=None, print_blob=True)
_hypothesis_settings.load_profile(os.environ.get("DMLEMU_FUZZ_PROFILE", "ci"))


@pytest.fixture(scope="module")
def guard_bytes():
    """Devices created while this fixture is active get 64 guard bytes around every allocation."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DMLEMU_GUARD_BYTES", "64")
        yield 64
