"""Which build of the timing units a device runs (emulator/timing/physics.py): a compiled unit older than its
sources is not run; the sources are, interpreted, with a warning that names the file and the rebuild."""
import os
import warnings

import pytest

import dmlemu.timing.simd as simd_module
from dmlemu.presets import RX_7900_XTX
from dmlemu.timing import physics


def _touch(path, mtime):
    with open(path, "w", encoding="utf-8") as f:
        f.write("# unit\n")
    os.utime(path, (mtime, mtime))


def test_sources_newer_than_the_compiled_module_are_stale(tmp_path):
    built = tmp_path / "simd.cpython-311-x86_64-linux-gnu.so"
    _touch(built, 1_000_000)
    _touch(tmp_path / "simd.py", 999_000)
    _touch(tmp_path / "simd.pxd", 999_000)
    assert physics.stale_sources(str(built)) == []
    _touch(tmp_path / "simd.pxd", 1_000_001)          # edited after the build
    assert physics.stale_sources(str(built)) == [str(tmp_path / "simd.pxd")]
    _touch(tmp_path / "simd.py", 1_000_002)
    assert physics.stale_sources(str(built)) == [str(tmp_path / "simd.py"), str(tmp_path / "simd.pxd")]


@pytest.mark.skipif(not physics.compiled(simd_module), reason="the timing units were not compiled here")
def test_a_stale_compiled_unit_runs_interpreted_with_a_warning(monkeypatch):
    assert physics.modules(RX_7900_XTX)["simd"] is simd_module        # fresh: the compiled units
    edited = simd_module.__file__.split(".")[0] + ".py"
    monkeypatch.setattr(physics, "stale_sources", lambda path: [edited] if path == simd_module.__file__ else [])
    monkeypatch.setattr(physics, "_warned", set())
    with pytest.warns(RuntimeWarning, match=r"simd\.py changed after its compiled module was built; the timing "
                                             r"units run interpreted .* \(make, or pip install -e \.\)"):
        units = physics.modules(RX_7900_XTX)
    assert all(not physics.compiled(module) for module in units.values())
    with warnings.catch_warnings():
        warnings.simplefilter("error")                                 # once per file
        assert physics.modules(RX_7900_XTX)["simd"] is units["simd"]
