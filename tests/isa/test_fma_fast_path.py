"""The compiled fused multiply-add (isa/fma_compiled.pyx) against the NumPy reference of isa/numerics.py.

numerics.fused_multiply_add / fused_multiply_add_f64 run the compiled kernel where it was built; every
test here compares its output with fused_multiply_add_reference / fused_multiply_add_f64_reference bit
for bit (the results viewed as unsigned integers, so NaN payloads, signed zeros and every last bit
count): all combinations of the special values, values whose product cancels the addend, raw random
bit patterns (NumPy arrays and hypothesis), results in the subnormal and overflow ranges, and the
operand shapes the executor passes. Where a C compiler is, the kernel must have been built. Every test runs on
both of the kernel's float32 routes: the CPU's fused multiply-add (FMA3) and the double route rounded to odd.
"""
import importlib.machinery
import shutil

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from dmlemu.isa import numerics as nm

DTYPES = (np.float16, np.float32, np.float64)


def _compiled():
    return nm.compiled_fma()


needs_compiled = pytest.mark.skipif(_compiled() is None, reason="the compiled fused multiply-add was not built here")


@pytest.fixture(autouse=True, params=("cpu fma", "rounded to odd"))
def _no_override(monkeypatch, request):
    """Every test on both float32 routes of the compiled kernel: the CPU's fused multiply-add (FMA3, where the
    CPU has it) and the double route rounded to odd (fma_compiled.hardware_fma)."""
    monkeypatch.delenv("DMLEMU_NUMERICS", raising=False)
    kernels = _compiled()
    if kernels is None:
        yield
        return
    before = kernels.hardware_fma()
    if request.param == "cpu fma" and not kernels.hardware_fma(True):
        pytest.skip("this CPU has no FMA3")
    kernels.hardware_fma(request.param == "cpu fma")
    try:
        yield
    finally:
        kernels.hardware_fma(before)


def _paths(dtype):
    """(compiled entry point, reference) for dtype."""
    if np.dtype(dtype) == np.float64:
        return nm.fused_multiply_add_f64, nm.fused_multiply_add_f64_reference
    return nm.fused_multiply_add, nm.fused_multiply_add_reference


def _uint(dtype):
    return nm.UINT_OF[np.dtype(dtype)]


def _assert_same_bits(a, b, c, dtype=None):
    dtype = np.dtype(dtype or np.result_type(a, b, c))
    fast, reference = _paths(dtype)
    got, expected = np.asarray(fast(a, b, c)), np.asarray(reference(a, b, c))
    assert got.dtype == expected.dtype == dtype and got.shape == expected.shape
    got_bits, expected_bits = got.view(_uint(dtype)), expected.view(_uint(dtype))
    wrong = np.flatnonzero(got_bits != expected_bits)
    if wrong.size:
        i = wrong[0]
        operands = [np.broadcast_to(np.asarray(v), got.shape).reshape(-1)[i] for v in (a, b, c)]
        raise AssertionError(f"{wrong.size} of {got.size} {dtype} lanes differ; first: fma{tuple(operands)} "
                             f"= {got.reshape(-1)[i]!r} compiled, {expected.reshape(-1)[i]!r} reference "
                             f"(bits {got_bits.reshape(-1)[i]:#x} vs {expected_bits.reshape(-1)[i]:#x})")


def _special_values(dtype):
    info = np.finfo(dtype)
    uint = _uint(dtype)
    nan_payload = np.array(nm.CANONICAL_NAN_BITS[np.dtype(dtype)] | 1, dtype=uint).view(dtype)[()]
    signalling = np.array((int(np.array(np.inf, dtype).view(uint)) | 1), dtype=uint).view(dtype)[()]
    smallest = np.array(1, dtype=uint).view(dtype)[()]
    largest_subnormal = np.array(int(np.array(info.smallest_normal, dtype).view(uint)) - 1, dtype=uint).view(dtype)[()]
    one_up = np.nextafter(dtype(1), dtype(2))
    values = [0.0, np.inf, np.nan, nan_payload, signalling, smallest, largest_subnormal, info.smallest_normal,
              info.max, 1.0, 2.0, 0.5, 3.0, 5.0, 15.0, one_up, info.eps, 1.0 + info.eps / 2]
    out = []
    for v in values:
        v = np.asarray(v, dtype=dtype)
        out += [v, -v]
    return np.array(out, dtype=dtype)


@needs_compiled
@pytest.mark.parametrize("dtype", DTYPES)
def test_every_combination_of_special_values(dtype):
    values = _special_values(dtype)
    a, b, c = np.meshgrid(values, values, values, indexing="ij")
    _assert_same_bits(a.reshape(-1, values.size), b.reshape(-1, values.size), c.reshape(-1, values.size))


@needs_compiled
@pytest.mark.parametrize("dtype", DTYPES)
def test_products_that_cancel_the_addend(dtype):
    """c = -(a * b) rounded (an exact zero where the product is representable: +0 unless both are -0)
    and its neighbours: the sum is the product's rounding error, or a few ulps of it."""
    rng = np.random.default_rng(6)
    uint = _uint(dtype)
    a = (rng.standard_normal(1 << 14) * np.exp2(rng.integers(-6, 6, 1 << 14))).astype(dtype)
    b = (rng.standard_normal(1 << 14) * np.exp2(rng.integers(-6, 6, 1 << 14))).astype(dtype)
    with np.errstate(all="ignore"):
        c = -(a * b)
    for step in (0, 1, -1, 2):
        shifted = (c.view(uint) + uint(step % (1 << (8 * c.itemsize)))).view(dtype)
        _assert_same_bits(a.reshape(-1, 64), b.reshape(-1, 64), shifted.reshape(-1, 64))
    small = np.array([3.0, 5.0, -15.0, 0.25, -0.25, 1.0], dtype=dtype)
    _assert_same_bits(small[:1], small[1:2], small[2:3])
    _assert_same_bits(-small, small, small * small)


@needs_compiled
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("seed", range(3))
def test_random_bit_patterns(dtype, seed):
    uint = _uint(dtype)
    rng = np.random.default_rng(seed)
    a, b, c = (rng.integers(0, np.iinfo(uint).max, size=(1 << 12, 64), dtype=uint, endpoint=True).view(dtype)
               for _ in range(3))
    _assert_same_bits(a, b, c)


def _finite_with_exponents(rng, dtype, shape, low, high):
    """Finite values of random sign and significand with unbiased exponents in [low, high]."""
    uint = _uint(dtype)
    mant_bits, exp_bits = {np.dtype(np.float16): (10, 5), np.dtype(np.float32): (23, 8),
                           np.dtype(np.float64): (52, 11)}[np.dtype(dtype)]
    bias = (1 << (exp_bits - 1)) - 1
    exponent = np.clip(rng.integers(low, high, size=shape, endpoint=True) + bias, 0, 2 * bias).astype(uint)
    mantissa = rng.integers(0, 1 << mant_bits, size=shape, dtype=np.uint64).astype(uint)
    sign = rng.integers(0, 2, size=shape).astype(uint)
    return ((sign << uint(8 * np.dtype(uint).itemsize - 1)) | (exponent << uint(mant_bits)) | mantissa).view(dtype)


@needs_compiled
@pytest.mark.parametrize("dtype", DTYPES)
def test_results_near_the_subnormal_and_overflow_ranges(dtype):
    """Operands whose products and sums land around the smallest normal and the largest value, and
    operands of close exponents (where the sum's rounding decides the last bit)."""
    info = np.finfo(dtype)
    lo, hi = int(np.log2(info.smallest_normal)), int(np.log2(info.max))
    rng = np.random.default_rng(11)
    shape = (1 << 10, 64)
    for a_range, b_range, c_range in (((lo // 2 - 8, lo // 2 + 4), (lo // 2 - 8, lo // 2 + 4), (lo - 12, lo + 2)),
                                      ((hi // 2 - 2, hi // 2 + 1), (hi // 2 - 2, hi // 2 + 1), (hi - 3, hi)),
                                      ((-3, 3), (-3, 3), (-6, 6)),
                                      ((lo, lo + 4), (0, 4), (lo - info.nmant, lo))):
        a, b, c = (_finite_with_exponents(rng, dtype, shape, *r) for r in (a_range, b_range, c_range))
        _assert_same_bits(a, b, c)


@needs_compiled
def test_float16_every_bit_pattern_of_each_operand():
    rng = np.random.default_rng(16)
    every = np.arange(1 << 16, dtype=np.uint16).view(np.float16).reshape(-1, 64)
    others = [rng.integers(0, 1 << 16, size=every.shape, dtype=np.uint16).view(np.float16) for _ in range(2)]
    near = [_finite_with_exponents(rng, np.float16, every.shape, -8, 8) for _ in range(2)]
    for x, y in (others, near):
        _assert_same_bits(every, x, y)
        _assert_same_bits(x, every, y)
        _assert_same_bits(x, y, every)


@needs_compiled
@settings(max_examples=300, deadline=None)
@given(st.sampled_from(DTYPES), st.data())
def test_hypothesis_bit_patterns(dtype, data):
    uint = _uint(dtype)
    bits = st.integers(0, int(np.iinfo(uint).max))
    a, b, c = (np.array(data.draw(st.lists(bits, min_size=1, max_size=8)), dtype=uint) for _ in range(3))
    n = min(len(a), len(b), len(c))
    _assert_same_bits(*(v[:n].view(dtype).reshape(1, n) for v in (a, b, c)))


def _wave_matrix_shapes(rng, dtype):
    """Blocks of 16 x 16 outer products as isa/matrix.py passes them (A constant along each row, B along each
    column, over (waves, groups) blocks), and operands repeated along blocks or rows, strided or not: every way
    the kernel's _row reads a row (its own lanes, one value, a strided copy; made again or reused)."""
    column = _finite_with_exponents(rng, dtype, (3, 2, 16, 1), -4, 4)
    row = _finite_with_exponents(rng, dtype, (3, 2, 1, 16), -4, 4)
    acc = _finite_with_exponents(rng, dtype, (3, 2, 16, 16), -4, 4)
    strided_row = _finite_with_exponents(rng, dtype, (3, 2, 1, 32), -4, 4)[..., ::2]
    per_block = _finite_with_exponents(rng, dtype, (3, 2, 1, 1), -4, 4)
    return ((column, row, acc), (row, column, acc), (column[:1, :1], row, acc), (strided_row, column, acc),
            (per_block, strided_row, column), (acc[:, :, :, ::2], per_block, strided_row[:1, :, :, :8]), (column, column, per_block[:1]))


@needs_compiled
@pytest.mark.parametrize("dtype", DTYPES)
def test_broadcast_shapes_as_the_executor_passes_them(dtype):
    rng = np.random.default_rng(3)
    full = _finite_with_exponents(rng, dtype, (8, 32), -4, 4)
    column = _finite_with_exponents(rng, dtype, (8, 1), -4, 4)
    uniform = _finite_with_exponents(rng, dtype, (1, 1), -4, 4)
    scalar = dtype(0.75)
    wide = _finite_with_exponents(rng, dtype, (8, 64), -4, 4)
    for a, b, c in ((full, column, uniform), (uniform, full, column), (column, uniform, full),
                    (scalar, full, column), (full, full, scalar), (uniform, uniform, uniform),
                    (column, column, scalar), (scalar, scalar, scalar), (np.asarray(scalar), full, uniform),
                    (wide[:, ::2], full, wide[:, 1::2]),                 # strided views (float16 register halves)
                    (full.T, full.T, column.T),                            # transposed
                    (full.reshape(2, 4, 32), column[:4], uniform),        # three dimensions
                    (full[0], full[1], uniform[0]),                       # one dimension
                    (full[:0], column[:0], uniform),                      # no lanes
                    *_wave_matrix_shapes(rng, dtype)):
        _assert_same_bits(a, b, c, dtype)
        got = _paths(dtype)[0](a, b, c)
        assert np.shape(got) == np.broadcast_shapes(*(np.shape(v) for v in (a, b, c)))


@needs_compiled
def test_mixed_operand_types():
    """float16 with float32 operands gives float32 through the kernel (each widened exactly); an operand
    the destination type cannot hold exactly (float64, a Python float) takes the reference path."""
    rng = np.random.default_rng(5)
    f16 = _finite_with_exponents(rng, np.float16, (4, 16), -4, 4)
    f32 = _finite_with_exponents(rng, np.float32, (4, 16), -4, 4)
    _assert_same_bits(f16, f32, f16, np.float32)
    _assert_same_bits(f32, f16, f32, np.float32)
    got = nm.fused_multiply_add(f32, f32, 0.1)
    expected = nm.fused_multiply_add_reference(f32, f32, 0.1)
    assert np.array_equal(np.asarray(got).view(np.uint64 if np.asarray(got).dtype == np.float64 else np.uint32),
                          np.asarray(expected).view(np.uint64 if np.asarray(expected).dtype == np.float64 else np.uint32))
    _assert_same_bits(2.0, 3.0, 1.0, np.float64)


@needs_compiled
def test_the_kernel_refuses_operands_of_another_shape():
    from dmlemu.isa import fma_compiled
    out = np.empty((1, 2, 4), dtype=np.uint32)
    with pytest.raises(ValueError, match=r"an operand has shape \(1, 2, 3\); the output has \(1, 2, 4\) and "
                                         r"every operand must have it \(broadcast first\)"):
        fma_compiled.fma_f32(np.ones((1, 2, 4), np.float32), np.ones((1, 2, 3), np.float32),
                             np.ones((1, 2, 4), np.float32), out, 0x7FC00000)


def test_dmlemu_numerics_reference_forces_the_reference(monkeypatch):
    monkeypatch.setenv("DMLEMU_NUMERICS", "reference")
    assert nm.compiled_fma() is None
    calls = []
    monkeypatch.setattr(nm, "fused_multiply_add_reference", lambda *args: calls.append(args) or "reference")
    assert nm.fused_multiply_add(np.float32(1), np.float32(2), np.float32(3)) == "reference" and len(calls) == 1


@pytest.mark.skipif(not (shutil.which("cc") or shutil.which("gcc")), reason="no C compiler here")
def test_the_fused_multiply_add_is_compiled_where_a_compiler_is():
    """`make test` installs with a C compiler present: the kernel must have been built (and be newer than
    its source); a silent fallback to the NumPy reference makes every v_fma 20 to 100 times slower."""
    kernels = nm.compiled_fma()
    assert kernels is not None, "setup.py did not build isa/fma_compiled.pyx (dmlemu.isa.fma_compiled), or it is stale"
    assert kernels.__file__.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES)), kernels.__file__
