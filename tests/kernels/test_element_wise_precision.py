"""Every transcendental operator and activation within its documented error bound.

The bounds are bench/element_wise_precision.py's (the table it writes into docs/NUMERICS.md):
FLOAT32 ulps on the function's dense domain, and FLOAT16 ulps on every FLOAT16 path. Here a smaller fixed
sample: 8,192 seeded FLOAT32 inputs of the dense domain plus its edge cases, and every fifth FLOAT16 bit
pattern on both FLOAT16 paths, measured on the golden model (which the kernels match bit for bit:
tests/kernels/test_element_wise_ops.py, tests/kernels/test_element_wise_float16.py) against float64 NumPy/libm.
"""
import importlib.util
import os
import zlib

import numpy as np
import pytest

_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench", "element_wise_precision.py")
_SPEC = importlib.util.spec_from_file_location("element_wise_precision", _PATH)
precision = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(precision)


@pytest.mark.parametrize("name", list(precision.FUNCTIONS))
def test_measured_error_is_within_the_documented_bound(name):
    _, _, _, f32_bound, (f16_bound, half_bound) = precision.FUNCTIONS[name]
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    inputs, _ = precision.f32_inputs(name, rng, dense=1 << 13, random=16)
    worst, at, count = precision.max_ulp(name, inputs["dense"], np.float32)
    assert count > 8000 and worst <= f32_bound, f"{name}: {worst:.3f} ulp at {at} (bound {f32_bound})"
    f16 = [x[::5] for x in precision.f16_inputs(name)]
    for half, bound in ((False, f16_bound), (True, half_bound)):
        worst, at, count = precision.max_ulp(name, f16, np.float16, half=half)
        assert count > 3000 and worst <= bound, f"{name} half={half}: {worst:.3f} ulp at {at} (bound {bound})"


def test_the_bound_catches_a_wrong_function():
    """The measure itself: a function one ulp off everywhere is caught (EXP's golden result nudged)."""
    x = np.linspace(-10, 10, 1001, dtype=np.float32)
    got, ref = precision.evaluate("ELEMENT_WISE_EXP", [x])
    nudged = np.nextafter(np.nextafter(got, np.float32(np.inf)), np.float32(np.inf))
    assert precision.ulp_errors(nudged, ref, np.float32).max() > 1.5 >= precision.ulp_errors(got, ref, np.float32).max()
