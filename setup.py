"""Build step of dmlemu: everything is in pyproject.toml except the optional compiled modules.

The timing model's units (emulator/timing/: the memory servers, the compute units' memory pipeline, the
SIMDs' slot groups and issue port, the workgroup dispatcher, the event heap that drives them) are plain
Python. Where a C compiler is there, Cython compiles the same files in its pure-Python mode: each
`.py` keeps its code, a sibling `.pxd` declares its classes' fields and methods with C types, and the
extension module `dmlemu.timing.<unit>` is imported in place of the source. When they cannot be built
(no compiler, no Cython) the install still succeeds and the same files run interpreted, with the same
results, slower.

The other compiled module is the fused multiply-add of the float16/32/64 FMA instructions
(isa/fma_compiled.pyx, `dmlemu.isa.fma_compiled`): without it isa/numerics.py runs its NumPy reference,
the same bits, 20 to 100 times slower (bench/bench_fma.py).
"""
import os
import tempfile

from setuptools import Extension, setup

# The timing modules compiled (their .pxd files declare the C types); docs/DESIGN.md says why.
COMPILED_TIMING_UNITS = ("events", "memory_system", "compute_unit", "simd", "workgroup_dispatcher", "cu_caches")
# The compiled numeric kernels of isa/ (plain Cython sources; numerics.py falls back to NumPy without them).
COMPILED_NUMERICS = ("fma_compiled",)


def _extensions():
    try:
        from Cython.Build import cythonize
    except ImportError:           # no Cython (an install without build isolation): interpreted
        return []
    here = os.path.dirname(os.path.abspath(__file__))
    extensions = [Extension(f"dmlemu.timing.{unit}", [f"emulator/timing/{unit}.py"], optional=True)
                  for unit in COMPILED_TIMING_UNITS]
    extensions += [Extension(f"dmlemu.isa.{name}", [f"isa/{name}.pyx"], optional=True) for name in COMPILED_NUMERICS]
    # The package `dmlemu` is the folder emulator/: the .pxd files cimport each other as
    # dmlemu.timing.<unit>, so Cython looks them up through a folder named dmlemu that is emulator/.
    with tempfile.TemporaryDirectory(prefix="dmlemu-cython-") as include:
        os.symlink(os.path.join(here, "emulator"), os.path.join(include, "dmlemu"))
        return cythonize(extensions, include_path=[include], quiet=True, compiler_directives={"language_level": 3})


setup(ext_modules=_extensions())
