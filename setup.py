"""Build step of dmlemu: everything is in pyproject.toml except the optional compiled timing engine.

emulator/timing/cohort_engine.pyx runs a dispatch's timing simulation as compiled code, cycle for cycle
the simpy model's (see its banner). It is built with Cython (a build requirement in pyproject.toml) when a
C compiler is there; when it cannot be built the install still succeeds and the timing model runs in
Python (simpy), with the same results, slower.
"""
from setuptools import Extension, setup

try:
    from Cython.Build import cythonize
except ImportError:           # no Cython (an install without build isolation): pure Python
    extensions = []
else:
    extensions = cythonize([Extension("dmlemu.timing.cohort_engine", ["emulator/timing/cohort_engine.pyx"],
                                      optional=True)],
                           quiet=True)

setup(ext_modules=extensions)
