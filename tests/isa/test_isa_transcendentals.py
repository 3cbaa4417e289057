"""The transcendental, rounding, fused, conversion and 64-bit integer instructions: their rules
(isa/numerics.py) against exact arithmetic (fractions, Python integers) and float64 libm.

Transcendentals: every FLOAT16 bit pattern and a seeded FLOAT32 sample against float64 NumPy/libm
(sin/cos with the exact reduction in revolutions), within the bounds docs/ISA_PRECISION.md states;
the results' bits are pinned by CRC so that a platform or NumPy build that computes them differently
fails here. Correctly rounded rules (rcp, sqrt, fma, integer -> float, float64 -> float16) are
checked against fractions on random and hard (midpoint) inputs.
"""
import importlib.util
import os
import zlib
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dmlemu.isa import numerics as nm
from dmlemu.isa import opcodes as op
from operator_cases import scaled

ALL_F16 = np.arange(65536, dtype=np.uint32).astype(np.uint16).view(np.float16).reshape(1, -1)
F32_SAMPLE = np.random.default_rng(2026).integers(0, 2 ** 32, 1 << 16, dtype=np.uint64).astype(
    np.uint32).view(np.float32).reshape(1, -1)
UINT = {np.dtype(np.float16): np.uint16, np.dtype(np.float32): np.uint32, np.dtype(np.float64): np.uint64}


# The float64 references and the ulp measure are bench/isa_precision.py's, the script that writes
# docs/ISA_PRECISION.md (loaded by path, as tests/kernels/test_element_wise_precision.py loads its bench script).
_SPEC = importlib.util.spec_from_file_location(
    "isa_precision", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench", "isa_precision.py"))
precision = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(precision)


def run(mnemonic, *args):
    with np.errstate(all="ignore"):
        return op.BY_MNEMONIC[mnemonic].semantics(*args)


def bits(a):
    a = np.asarray(a)
    return a.view(UINT[a.dtype])


# ---- determinism: the same bits on every machine ---------------------------------------------------
PINNED_CRC32 = {   # zlib.crc32 of the outputs over ALL_F16 (f16) and F32_SAMPLE (f32)
    "v_exp_f16": 0x015661c4, "v_log_f16": 0x60d6322d, "v_rcp_f16": 0x75526ed1, "v_rsq_f16": 0xbf7a50a7,
    "v_sqrt_f16": 0x2ad1cd1f, "v_sin_f16": 0xe93cfbe5, "v_cos_f16": 0xcb09db0b,
    "v_exp_f32": 0x25ee13b2, "v_log_f32": 0xbfd856a8, "v_rcp_f32": 0xd0b70fa5, "v_rsq_f32": 0xeba758b8,
    "v_sqrt_f32": 0x4159b88a, "v_sin_f32": 0x8d0bfc72, "v_cos_f32": 0xa53d66f4,
}


@pytest.mark.parametrize("mnemonic", sorted(PINNED_CRC32))
def test_transcendental_bits_are_pinned(mnemonic):
    x = ALL_F16 if mnemonic.endswith("f16") else F32_SAMPLE
    assert zlib.crc32(run(mnemonic, x).tobytes()) == PINNED_CRC32[mnemonic]


def test_no_libm_function_is_called(monkeypatch):
    """The rules use only IEEE basic operations: with NumPy's transcendental ufuncs broken, the
    instructions still give their pinned bits."""
    import dmlemu.isa.numerics as module

    class Broken:
        def __getattr__(self, name):
            if name in ("exp", "exp2", "expm1", "log", "log2", "log1p", "log10", "sin", "cos", "tan", "power"):
                raise AssertionError(f"numerics calls np.{name}")
            return getattr(np, name)
    monkeypatch.setattr(module, "np", Broken())
    for mnemonic in ("v_exp_f16", "v_log_f16", "v_sin_f16", "v_cos_f16", "v_rsq_f16"):
        test_transcendental_bits_are_pinned(mnemonic)


# ---- accuracy against float64 libm ----------------------------------------------------------------
BOUNDS = {"exp": 0.501, "log": 0.501, "rcp": 0.5, "rsq": 0.501, "sqrt": 0.5, "sin": 0.501, "cos": 0.501}


@pytest.mark.parametrize("type_name, dtype", [("f16", np.float16), ("f32", np.float32)])
@pytest.mark.parametrize("name", sorted(BOUNDS))
def test_transcendental_error_is_within_its_documented_bound(name, type_name, dtype):
    x = (ALL_F16 if type_name == "f16" else F32_SAMPLE).reshape(-1)
    got = run(f"v_{name}_{type_name}", x)
    with np.errstate(all="ignore"):
        ref = precision.reference(name, x)
        finite = np.isfinite(ref) & (np.abs(ref) <= float(np.finfo(dtype).max))
        assert precision.ulp_errors(got[finite], ref[finite], dtype).max() <= BOUNDS[name]
    # every non-finite reference gives the same special (overflow -> inf, NaN -> canonical NaN)
    special = ~finite & ~np.isnan(ref)
    assert np.array_equal(got[special].astype(np.float64), np.where(ref[special] > 0, np.inf, -np.inf))
    assert (bits(got[np.isnan(ref)]) == bits(nm.canonical_nan(dtype))).all()


def f32(*values):
    return np.array(values, dtype=np.float32)


@pytest.mark.parametrize("mnemonic, inputs, expect", [
    ("v_exp_f32", (0.0, -0.0, -np.inf, np.inf, 128.0, -150.0, 1.0, -1.0, 10.0),
     (1.0, 1.0, 0.0, np.inf, np.inf, 2.0 ** -150 * 0, 2.0, 0.5, 1024.0)),
    ("v_log_f32", (0.0, -0.0, -1.0, np.inf, 1.0, 2.0 ** -149, 0.5, 1024.0),
     (-np.inf, -np.inf, np.nan, np.inf, 0.0, -149.0, -1.0, 10.0)),
    ("v_rcp_f32", (0.0, -0.0, np.inf, -np.inf, 4.0, 2.0 ** 127), (np.inf, -np.inf, 0.0, -0.0, 0.25, 2.0 ** -127)),
    ("v_rsq_f32", (0.0, -0.0, np.inf, -4.0, 4.0), (np.inf, -np.inf, 0.0, np.nan, 0.5)),
    ("v_sqrt_f32", (-0.0, 0.0, -1.0, np.inf, 2.0 ** -148), (-0.0, 0.0, np.nan, np.inf, 2.0 ** -74)),
    ("v_sin_f32", (0.0, -0.0, 0.25, -0.25, 0.5, -0.5, 0.75, 1e30, -1e30, np.inf),
     (0.0, -0.0, 1.0, -1.0, 0.0, -0.0, -1.0, 0.0, -0.0, np.nan)),
    ("v_cos_f32", (0.0, -0.0, 0.25, -0.25, 0.5, 0.75, 1e30, -np.inf), (1.0, 1.0, 0.0, 0.0, -1.0, 0.0, 1.0, np.nan)),
])
def test_transcendental_special_values(mnemonic, inputs, expect):
    got = run(mnemonic, f32(*inputs))
    want = f32(*expect)
    want = np.where(np.isnan(want), nm.canonical_nan(np.float32), want)
    assert bits(got).tolist() == bits(want).tolist()


# ---- correct rounding against fractions ----------------------------------------------------------
def exact(value):
    return Fraction(float(value))


def is_correctly_rounded(result, true_value, dtype):
    """`result` (a NumPy scalar of dtype) is the round-to-nearest-even of the exact `true_value`."""
    dtype = np.dtype(dtype)
    r = dtype.type(result)
    top = np.finfo(dtype).max
    # values from max + half an ulp of max on overflow (a tie there goes to inf: max is odd)
    overflow = exact(top) + (exact(top) - exact(np.nextafter(top, dtype.type(0)))) / 2
    if np.isinf(r):
        return true_value >= overflow if r > 0 else true_value <= -overflow
    if abs(true_value) >= overflow:
        return False
    even = int(np.array(r).view(UINT[dtype])) % 2 == 0
    for direction in (np.inf, -np.inf):
        with np.errstate(over="ignore"):
            neighbour = np.nextafter(r, dtype.type(direction))
        if not np.isfinite(neighbour):
            continue
        mid = (exact(r) + exact(neighbour)) / 2
        beyond = true_value > mid if direction > 0 else true_value < mid
        if beyond or (true_value == mid and not even):
            return False
    return True


def hard_f32_operands(rng, n):
    """Random float32 values of every exponent, plus values near powers of two."""
    raw = rng.integers(0, 2 ** 32, n, dtype=np.uint64).astype(np.uint32).view(np.float32)
    raw = raw[np.isfinite(raw)]
    near = (2.0 ** rng.integers(-140, 120, n // 4)).astype(np.float32)
    near = np.nextafter(near, np.float32(np.inf) * rng.choice([-1, 1], near.size).astype(np.float32))
    return np.concatenate([raw, near])


def test_rcp_and_sqrt_f32_are_correctly_rounded():
    rng = np.random.default_rng(5)
    x = hard_f32_operands(rng, 1500)
    rcp = run("v_rcp_f32", x)
    for a, r in zip(x, rcp):
        if a != 0:
            assert is_correctly_rounded(r, 1 / exact(a), np.float32), (a, r)
    ax = np.abs(x)
    root = run("v_sqrt_f32", ax)
    for a, r in zip(ax, root):
        # sqrt(a) lies between the midpoints m- and m+ around r iff m-^2 <= a <= m+^2 (no ties)
        up, down = np.nextafter(r, np.float32(np.inf)), np.nextafter(r, np.float32(0))
        assert ((exact(r) + exact(down)) / 2) ** 2 <= exact(a) <= ((exact(r) + exact(up)) / 2) ** 2, (a, r)


def test_f64_reciprocal_sqrt_and_rsq_round_to_nearest():
    rng = np.random.default_rng(6)
    x = rng.integers(0, 2 ** 63 - 2 ** 52, 400, dtype=np.uint64).view(np.float64)   # positive, finite
    for a, r in zip(x, run("v_rcp_f64", x)):
        assert is_correctly_rounded(r, 1 / exact(a), np.float64), (a, r)
    for a, r in zip(x, run("v_sqrt_f64", x)):
        up, down = np.nextafter(r, np.inf), np.nextafter(r, 0.0)
        assert ((exact(r) + exact(down)) / 2) ** 2 <= exact(a) <= ((exact(r) + exact(up)) / 2) ** 2
    import decimal
    edges = np.array([5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, 1.0, 2.0, 0.5])
    x = np.concatenate([x, edges])
    ctx = decimal.Context(prec=50)
    for a, r in zip(x.tolist(), run("v_rsq_f64", x).tolist()):
        error = abs(decimal.Decimal(r) - ctx.divide(1, ctx.sqrt(decimal.Decimal(a))))
        assert error <= decimal.Decimal(float(np.spacing(np.float64(r)))) * decimal.Decimal("0.5000001"), (a, r)


FMA_EDGES = [(1.0, 1.0, -1.0), (np.inf, 0.0, 1.0), (np.inf, 1.0, -np.inf), (-0.0, 1.0, 0.0), (-0.0, 1.0, -0.0),
             (2.0 ** 100, 2.0 ** 100, -np.inf), (3.4e38, 2.0, -3.4e38), (2.0 ** -100, 2.0 ** -100, 2.0 ** -149)]


@pytest.mark.parametrize("type_name, dtype", [("f16", np.float16), ("f32", np.float32)])
def test_fma_is_rounded_once(type_name, dtype):
    rng = np.random.default_rng(7)
    uint = UINT[np.dtype(dtype)]
    width = 16 if dtype == np.float16 else 32
    a, b = (rng.integers(0, 2 ** width, 3000, dtype=np.uint64).astype(uint).view(dtype) for _ in range(2))
    with np.errstate(all="ignore"):
        prod = a.astype(np.float64) * b.astype(np.float64)
        # c cancels the product's leading bits, or sits half an ulp away: the hard cases of fusing
        c = np.concatenate([(-prod[:1000]).astype(dtype), (-prod[1000:2000] * (1 + 2.0 ** -12)).astype(dtype),
                            rng.integers(0, 2 ** width, 1000, dtype=np.uint64).astype(uint).view(dtype)])
    got = run(f"v_fma_{type_name}", a, b, c)
    checked = 0
    for x, y, z, r in zip(a, b, c, got):
        if not (np.isfinite(x) and np.isfinite(y) and np.isfinite(z)):
            continue
        assert is_correctly_rounded(r, exact(x) * exact(y) + exact(z), dtype), (x, y, z, r)
        checked += 1
    assert checked > 2000
    with np.errstate(over="ignore"):
        edges = np.array(FMA_EDGES, dtype=np.float64).astype(dtype).T
    got = run(f"v_fma_{type_name}", *edges)
    with np.errstate(all="ignore"):
        assert np.isnan(got[1]) and np.isnan(got[2]) and bits(got[1]) == bits(nm.canonical_nan(dtype))
    assert bits(got[0]) == 0 and bits(got[3]) == 0 and np.signbit(got[4])


@settings(max_examples=scaled(300), deadline=None)
@given(st.floats(width=32, allow_nan=False, allow_infinity=False), st.floats(width=32, allow_nan=False, allow_infinity=False),
       st.floats(width=32, allow_nan=False, allow_infinity=False))
def test_fma_f32_property(a, b, c):
    r = run("v_fma_f32", f32(a), f32(b), f32(c))[0]
    assert is_correctly_rounded(r, exact(a) * exact(b) + exact(c), np.float32)


@settings(max_examples=scaled(300), deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False))
def test_f64_to_f16_property(x):
    assert is_correctly_rounded(run("v_cvt_f16_f64", np.array([x]))[0], exact(x), np.float16)


def f64_fma_is_correct(x, y, z, r):
    """r is the IEEE fusedMultiplyAdd of float64 x, y, z (exact zero sums: +0 unless both addends are -0)."""
    value = exact(x) * exact(y) + exact(z)
    if value == 0 and r == 0:
        both_negative = np.signbit(x) != np.signbit(y) and np.signbit(z)
        return bool(np.signbit(r)) == bool(both_negative and z == 0)
    return is_correctly_rounded(r, value, np.float64)


def test_fma_f64_is_rounded_once():
    """Every exponent range: cancellation, c far above or below the product, subnormal and
    overflowing results (the exact per-lane path), random bit patterns."""
    rng = np.random.default_rng(14)
    n = 600
    moderate = [rng.normal(size=n) * 2.0 ** rng.integers(-30, 30, n) for _ in range(2)]
    cases = [
        (*moderate, -(moderate[0] * moderate[1]) * (1 + rng.integers(-3, 4, n) * 2.0 ** -52)),
        (*moderate, rng.normal(size=n) * 2.0 ** rng.integers(-300, 300, n)),
        tuple(rng.integers(0, 2 ** 64, n, dtype=np.uint64).view(np.float64) for _ in range(3)),
        (rng.normal(size=n) * 2.0 ** -530, rng.normal(size=n) * 2.0 ** -530, rng.normal(size=n) * 2.0 ** -1050),
        (rng.normal(size=n) * 2.0 ** 512, rng.normal(size=n) * 2.0 ** 512, rng.normal(size=n) * 2.0 ** 1020),
    ]
    for a, b, c in cases:
        with np.errstate(all="ignore"):
            got = run("v_fma_f64", a, b, c)
        for x, y, z, r in zip(a, b, c, got):
            if np.isfinite(x) and np.isfinite(y) and np.isfinite(z):
                assert f64_fma_is_correct(x, y, z, r), (x, y, z, r)


def test_fma_f64_breaks_a_product_tie_by_the_addend():
    """(1 + 2^-30)(1 + 2^-23) lies exactly halfway between two float64 values: a tiny c decides."""
    a, b = np.float64(1 + 2.0 ** -30), np.float64(1 + 2.0 ** -23)
    low = np.float64(1 + 2.0 ** -23 + 2.0 ** -30)
    high = np.nextafter(low, 2.0)
    c = np.array([0.0, 2.0 ** -300, -(2.0 ** -300), 5e-324, -5e-324])
    got = run("v_fma_f64", np.full(5, a), np.full(5, b), c)
    even = low if low.view(np.uint64) % 2 == 0 else high
    assert got.tolist() == [even, high, low, high, low]
    specials = run("v_fma_f64", np.array([np.inf, 1e300, -0.0, 1e-300]), np.array([0.0, 1e300, 5.0, -1e-300]),
                   np.array([1.0, -np.inf, -0.0, 0.0]))
    assert np.isnan(specials[0]) and specials[1] == -np.inf and np.signbit(specials[2]) and specials[3] == 0
    assert np.signbit(specials[3])   # -1e-600 rounds to zero and keeps its sign


def test_fma_differs_from_mad_where_fusing_matters():
    a = f32(1 + 2.0 ** -12)
    c = f32(-(1 + 2.0 ** -11))
    assert run("v_fma_f32", a, a, c)[0] == np.float32(2.0 ** -24)   # (1 + 2^-12)^2 - (1 + 2^-11) exactly
    assert run("v_mad_f32", a, a, c)[0] == 0.0                    # the product rounded first loses it


@settings(max_examples=scaled(200), deadline=None)
@given(st.integers(min_value=-(1 << 63), max_value=(1 << 64) - 1))
def test_integer_to_float_rounds_once(value):
    dtype = np.int64 if value < 1 << 63 else np.uint64
    if value < 0:
        dtype = np.int64
    array = np.array([value], dtype=dtype)
    name = "i64" if dtype == np.int64 else "u64"
    for out, type_name in ((np.float32, "f32"), (np.float64, "f64")):
        r = run(f"v_cvt_{type_name}_{name}", array)[0]
        assert is_correctly_rounded(r, Fraction(value), out), (value, r)


@pytest.mark.parametrize("value", [2 ** 60 + 2 ** 36 + 1, -(2 ** 60 + 2 ** 36 + 1), 2 ** 64 - 1, 2 ** 63 - 1,
                                   -(2 ** 63), 2 ** 24 + 1, 2 ** 53 + 1, 2 ** 63 + 2 ** 39 + 1, 0])
def test_integer_to_float32_avoids_double_rounding(value):
    """2^60 + 2^36 + 1 rounds to 2^60 + 2^36 in float64, a float32 tie that would go down to 2^60;
    rounded once it goes up to 2^60 + 2^37."""
    name, dtype = ("i64", np.int64) if value < 1 << 63 else ("u64", np.uint64)
    r = run(f"v_cvt_f32_{name}", np.array([value], dtype=dtype))[0]
    assert is_correctly_rounded(r, Fraction(value), np.float32)


def test_32_bit_integers_to_float():
    i = np.array([0, 1, -1, 2 ** 24 + 1, -(2 ** 31), 2 ** 31 - 1, 16777217, -16777219], dtype=np.int32)
    u = np.array([0, 1, 2 ** 32 - 1, 2 ** 24 + 3, 2 ** 31 + 129], dtype=np.uint32)
    for values, name in ((i, "i32"), (u, "u32")):
        for r, v in zip(run(f"v_cvt_f32_{name}", values), values):
            assert is_correctly_rounded(r, Fraction(int(v)), np.float32)
        assert run(f"v_cvt_f64_{name}", values).tolist() == [float(int(v)) for v in values]


def test_f64_to_f16_rounds_once():
    # 1 + 2^-11 + 2^-40 is a float16 tie only after float32's rounding: once rounded it goes up.
    hard = [1 + 2.0 ** -11 + 2.0 ** -40, 1 + 2.0 ** -11, 65519.99, 65520.0, 2.0 ** -25, 2.0 ** -25 * (1 + 2.0 ** -40),
            -2.0 ** -26, 1e300, -1e-300, 0.0, -0.0, 3 * 2.0 ** -26 + 2.0 ** -60]
    rng = np.random.default_rng(8)
    sample = np.concatenate([np.array(hard), rng.normal(0, 1000, 2000),
                             rng.integers(0, 2 ** 64, 2000, dtype=np.uint64).view(np.float64)])
    sample = sample[np.isfinite(sample)]
    got = run("v_cvt_f16_f64", sample)
    for x, r in zip(sample, got):
        assert is_correctly_rounded(r, exact(x), np.float16), (x, r)
    assert bits(got[:2]).tolist() == [0x3C01, 0x3C00]
    specials = run("v_cvt_f16_f64", np.array([np.nan, -np.inf, np.inf, -0.0]))
    assert bits(specials).tolist() == [0x7E00, 0xFC00, 0x7C00, 0x8000]


@pytest.mark.parametrize("name, dtype", [("i32", np.int32), ("u32", np.uint32), ("i64", np.int64), ("u64", np.uint64)])
def test_f64_to_integer_truncates_saturates_and_zeroes_nan(name, dtype):
    info = np.iinfo(dtype)
    values = np.array([np.nan, np.inf, -np.inf, 1.9, -1.9, 2.0 ** 63, 2.0 ** 64, -(2.0 ** 63), 2.0 ** 31, -(2.0 ** 31) - 0.5,
                       4294967295.75, 2.0 ** 53 + 2])
    got = run(f"v_cvt_{name}_f64", values)
    expect = [0, info.max, info.min] + [min(max(int(v), int(info.min)), int(info.max)) for v in values[3:]]
    assert [int(v) for v in got] == expect


# ---- rounding, class, ldexp --------------------------------------------------------------------------
@pytest.mark.parametrize("type_name, dtype", [("f16", np.float16), ("f32", np.float32), ("f64", np.float64)])
def test_rounding_instructions(type_name, dtype):
    import math
    values = np.array([-2.5, -1.5, -0.5, -0.0, 0.0, 0.5, 1.5, 2.5, 3.75, -3.75, 1e4 + 0.5, np.inf, -np.inf], dtype=dtype)
    py = {"floor": math.floor, "ceil": math.ceil, "trunc": math.trunc, "rndne": round}
    for name, fn in py.items():
        got = run(f"v_{name}_{type_name}", values)
        for v, r in zip(values, got):
            if np.isfinite(v):
                assert float(r) == fn(float(v)), (name, v, r)
                if r == 0:
                    assert np.signbit(r) == (np.signbit(v) if name != "floor" else False) or v == 0
            else:
                assert r == v
    assert np.signbit(run(f"v_ceil_{type_name}", values[2:3])[0]) and np.signbit(run(f"v_trunc_{type_name}", values[2:3])[0])
    fract = run(f"v_fract_{type_name}", np.array([-0.25, 1.75, -0.0, np.inf, np.nan, -(2.0 ** -30)], dtype=dtype))
    assert fract[:2].tolist() == [0.75, 0.75] and np.signbit(fract[2]) and np.isnan(fract[3]) and np.isnan(fract[4])
    below_one = np.nextafter(dtype(1), dtype(0))
    tiny = dtype(-(2.0 ** -30))                     # -0 in float16; 1 - 2^-30 rounds to 1 in float32
    assert bits(fract[5:6]) == bits(np.array([tiny if tiny == 0 else min(dtype(1 + float(tiny)), below_one)], dtype))
    assert bits(fract[3]) == bits(nm.canonical_nan(dtype))


@pytest.mark.parametrize("type_name, dtype", [("f16", np.float16), ("f32", np.float32), ("f64", np.float64)])
def test_class_mask_follows_amd_bit_order(type_name, dtype):
    uint = UINT[np.dtype(dtype)]
    info = np.finfo(dtype)
    quiet = nm.canonical_nan(dtype)
    one = uint(1)
    signalling = (bits(np.array(quiet)) ^ (uint(1) << uint(info.nmant - 1)) | one).astype(uint).view(dtype)
    tiny = np.array(one).view(dtype)
    values = np.array([signalling, quiet, -np.inf, -1.0, -tiny, -0.0, 0.0, tiny, 1.0, np.inf], dtype=dtype)
    assert nm.float_class(values).tolist() == list(range(10))
    for cls in range(10):
        got = run(f"v_cmp_class_{type_name}", values, np.uint32(1 << cls))
        assert got.tolist() == [i == cls for i in range(10)]
    assert run(f"v_cmp_class_{type_name}", values, np.uint32(0x3FF)).all()


def test_ldexp_rounds_once():
    x = f32(1.5, 1.0, 3.0, -1.0, 2.0 ** -149, 1.0, np.nan, np.inf)
    n = np.array([2, -149, -150, -150, 300, 128, 0, -1000], dtype=np.int32)
    got = run("v_ldexp_f32", x, n)
    assert got[:2].tolist() == [6.0, 2.0 ** -149]
    assert got[2] == np.float32(2.0 ** -148)        # 3 * 2^-150 = 1.5 subnormal ulps: a tie, to even (2)
    assert bits(got[3:4]).tolist() == [0x80000000]  # -2^-150: a tie, to even: -0
    assert got[4] == np.inf and got[5] == np.inf and np.isnan(got[6]) and got[7] == np.inf


# ---- integer and bit instructions --------------------------------------------------------------------
def test_64_bit_shifts_mask_the_count():
    a = np.array([0x8000000000000001, 0x0123456789ABCDEF], dtype=np.uint64)
    for count in (0, 1, 31, 32, 63, 64, 65, 127):
        c = np.uint32(count)
        assert run("v_lshl_b64", a, c).tolist() == [(int(v) << (count & 63)) & (2 ** 64 - 1) for v in a]
        assert run("v_lshr_b64", a, c).tolist() == [int(v) >> (count & 63) for v in a]
        signed = a.view(np.int64)
        assert run("v_ashr_i64", signed, c).tolist() == [int(v) >> (count & 63) for v in signed]


def test_integer_instructions_against_python_integers():
    rng = np.random.default_rng(9)
    a = rng.integers(0, 2 ** 64, 500, dtype=np.uint64)
    b = rng.integers(0, 2 ** 64, 500, dtype=np.uint64)
    m = 2 ** 64 - 1
    assert run("v_add_u64", a, b).tolist() == [(int(x) + int(y)) & m for x, y in zip(a, b)]
    assert run("v_sub_u64", a, b).tolist() == [(int(x) - int(y)) & m for x, y in zip(a, b)]
    assert run("v_mul_lo_u64", a, b).tolist() == [(int(x) * int(y)) & m for x, y in zip(a, b)]
    assert run("v_and_b64", a, b).tolist() == [int(x) & int(y) for x, y in zip(a, b)]
    assert run("v_or_b64", a, b).tolist() == [int(x) | int(y) for x, y in zip(a, b)]
    assert run("v_xor_b64", a, b).tolist() == [int(x) ^ int(y) for x, y in zip(a, b)]
    assert run("v_not_b64", a).tolist() == [m ^ int(x) for x in a]
    a32, b32 = a.astype(np.uint32), b.astype(np.uint32)
    assert run("v_not_b32", a32).tolist() == [0xFFFFFFFF ^ int(x) for x in a32]
    assert run("v_bcnt_u32", a32, b32).tolist() == [(bin(int(x)).count("1") + int(y)) & 0xFFFFFFFF for x, y in zip(a32, b32)]
    i, j = a32.view(np.int32), b32.view(np.int32)
    assert run("v_mul_hi_i32", i, j).tolist() == [(int(x) * int(y)) >> 32 for x, y in zip(i, j)]


@pytest.mark.parametrize("type_name, dtype", [("f16", np.float16), ("f32", np.float32), ("f64", np.float64)])
def test_ordered_unordered_and_f64_compares(type_name, dtype):
    a = np.array([1.0, np.nan, 1.0, np.nan, -0.0], dtype=dtype)
    b = np.array([2.0, 1.0, np.nan, np.nan, 0.0], dtype=dtype)
    assert run(f"v_cmp_o_{type_name}", a, b).tolist() == [True, False, False, False, True]
    assert run(f"v_cmp_u_{type_name}", a, b).tolist() == [False, True, True, True, False]
    assert run(f"v_cmp_eq_{type_name}", a, b).tolist() == [False, False, False, False, True]
    assert run(f"v_cmp_ne_{type_name}", a, b).tolist() == [True, True, True, True, False]


def test_unsigned_division_sequence_with_rcp_iflag_is_exact():
    """The AMD compilers' 32-bit unsigned division (v_cvt_f32_u32, v_rcp_iflag_f32, a scale by
    0x4f7ffffe, v_cvt_u32_f32, one Newton step with v_mul_lo/v_mul_hi, two corrections), written
    with this ISA's instructions: the quotient is exact for every divisor."""
    rng = np.random.default_rng(11)
    d = np.concatenate([np.array([1, 2, 3, 7, 641, 65535, 65536, 2 ** 31 - 1, 2 ** 31, 2 ** 31 + 1, 2 ** 32 - 1]),
                        rng.integers(1, 2 ** 32, 3000), rng.integers(1, 2 ** 12, 1000)]).astype(np.uint32)
    edges = [0, 1, 2 ** 32 - 1, 2 ** 31, 2 ** 31 - 1, 2 ** 32 - 2, 65536, 6, 640, 2 ** 32 - 1, 2 ** 32 - 1]
    n = np.concatenate([edges, rng.integers(0, 2 ** 32, d.size - len(edges))]).astype(np.uint32)
    scale = np.array([0x4F7FFFFE], dtype=np.uint32).view(np.float32)
    estimate = run("v_cvt_u32_f32", run("v_mul_f32", run("v_rcp_iflag_f32", run("v_cvt_f32_u32", d)), scale))
    error = run("v_mul_lo_u32", run("v_sub_u32", np.uint32(0), d), estimate)
    estimate = run("v_add_u32", estimate, run("v_mul_hi_u32", estimate, error))
    q = run("v_mul_hi_u32", n, estimate)
    for _ in range(2):
        r = run("v_sub_u32", n, run("v_mul_lo_u32", q, d))
        q = np.where(r >= d, q + np.uint32(1), q)
    assert np.array_equal(q, n // d)


@pytest.mark.parametrize("type_name, dtype", [("f16", np.float16), ("f32", np.float32), ("f64", np.float64)])
def test_division_is_correctly_rounded(type_name, dtype):
    """Random bit patterns of every exponent (subnormal quotients and reciprocals included, where an
    rcp-and-fma sequence without AMD's scaling goes wrong) against fractions; then the specials."""
    rng = np.random.default_rng(12)
    uint = UINT[np.dtype(dtype)]
    width = np.dtype(dtype).itemsize * 8
    a, b = (rng.integers(0, 2 ** width, 1500, dtype=np.uint64).astype(uint).view(dtype) for _ in range(2))
    got = run(f"v_div_{type_name}", a, b)
    for x, y, r in zip(a, b, got):
        if np.isfinite(x) and np.isfinite(y) and y != 0:
            assert is_correctly_rounded(r, exact(x) / exact(y), dtype), (x, y, r)
    x = np.array([1.0, -1.0, 0.0, np.inf, 1.0, -0.0, np.nan], dtype=dtype)
    y = np.array([0.0, 0.0, 0.0, np.inf, -np.inf, 5.0, 1.0], dtype=dtype)
    got = run(f"v_div_{type_name}", x, y)
    assert got[:2].tolist() == [np.inf, -np.inf] and np.signbit(got[4]) and got[4] == 0 and np.signbit(got[5])
    assert (bits(got[[2, 3, 6]]) == bits(nm.canonical_nan(dtype))).all()


def test_bit_field_extract():
    rng = np.random.default_rng(13)
    a = rng.integers(0, 2 ** 32, 400, dtype=np.uint64).astype(np.uint32)
    offsets = rng.integers(0, 70, 400).astype(np.uint32)
    widths = rng.integers(0, 70, 400).astype(np.uint32)
    unsigned = run("v_bfe_u32", a, offsets, widths)
    signed = run("v_bfe_i32", a.view(np.int32), offsets, widths)
    for x, o, w, u, s in zip(a.tolist(), offsets.tolist(), widths.tolist(), unsigned.tolist(), signed.tolist()):
        o, w = o & 31, w & 31
        field = (x >> o) & ((1 << w) - 1)
        assert u == field
        assert s == (field - (1 << w) if w and field >> (w - 1) else field)
    assert run("v_bfe_i32", np.array([0x80], np.int32), np.uint32(0), np.uint32(8)).tolist() == [-128]
