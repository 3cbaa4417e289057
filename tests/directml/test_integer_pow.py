"""DML_OPERATOR_ELEMENT_WISE_POW of 8- to 32-bit integers (valid from DML_FEATURE_LEVEL_3_0) through the mirror,
bit for bit against the golden model (docs/NUMERICS.md, "Integer POW"), and the golden model against Python's
exact integer powers."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from dmlemu import golden, run_operator
from dmlemu.d3d12 import *  # noqa: F401,F403
from dmlemu.directml import *  # noqa: F401,F403
from dmlemu.presets import PRESETS, WARP
from mirror_rig import same_bits

TYPES = {"INT32": np.int32, "UINT32": np.uint32, "INT16": np.int16, "UINT16": np.uint16, "INT8": np.int8,
         "UINT8": np.uint8}


def tensor(type_name, sizes):
    t = getattr(DML_TENSOR_DATA_TYPE, "DML_TENSOR_DATA_TYPE_" + type_name)
    return DML_TENSOR_DESC(Type=DML_TENSOR_TYPE_BUFFER, Desc=DML_BUFFER_TENSOR_DESC(
        DataType=t, Sizes=list(sizes),
        TotalTensorSizeInBytes=DMLCalcBufferTensorSize(t, len(sizes), list(sizes), None)))


def pow_desc(type_name, n):
    return DML_ELEMENT_WISE_POW_OPERATOR_DESC(InputTensor=tensor(type_name, [n]), ExponentTensor=tensor(type_name, [n]),
                                              OutputTensor=tensor(type_name, [n]))


def exact(x, y):
    """Python's integers: x^y modulo 2^bits; 1 / x^|y| truncated toward zero for y < 0."""
    bits = 8 * x.dtype.itemsize
    values = [pow(int(a), int(b), 1 << bits) if b >= 0 else (1 if a == 1 else (-1) ** -int(b) if a == -1 else 0)
              for a, b in zip(x.tolist(), y.tolist())]
    unsigned = np.array([v & ((1 << bits) - 1) for v in values], dtype=np.uint64)
    return unsigned.astype({1: np.uint8, 2: np.uint16, 4: np.uint32}[x.dtype.itemsize]).view(x.dtype)


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(sorted(TYPES)), st.sampled_from(PRESETS + (WARP,)), st.integers(0, 2 ** 32 - 1))
def test_integer_pow_is_exact_and_wraps_on_every_adapter(type_name, preset, seed):
    rng = np.random.default_rng(seed)
    dtype = TYPES[type_name]
    info = np.iinfo(dtype)
    x = rng.integers(info.min, info.max, size=64, dtype=dtype, endpoint=True)
    y = rng.integers(info.min, info.max, size=64, dtype=dtype, endpoint=True)
    x[:16] = rng.integers(max(int(info.min), -3), 4, size=16)     # small bases, small exponents: no wrap
    y[:32] = rng.integers(max(int(info.min), -3), 12, size=32)
    (got,) = run_operator(pow_desc(type_name, 64), [x, y], adapter=preset)
    expected = golden.run("ELEMENT_WISE_POW", [x, y])
    same_bits(got, expected)
    same_bits(expected, exact(x, y))


def test_the_edge_cases():
    x = np.array([0, 0, 1, -1, -1, 2, 2, -2, 3, 7], np.int32)
    y = np.array([0, -1, -5, -3, -4, 31, 32, 31, -1, 0], np.int32)
    (got,) = run_operator(pow_desc("INT32", 10), [x, y])
    assert got.tolist() == [1, 0, 1, -1, 1, -2 ** 31, 0, -2 ** 31, 0, 1]
    x = np.array([3, 255, 16], np.uint8)
    (got,) = run_operator(pow_desc("UINT8", 3), [x, np.array([5, 2, 2], np.uint8)])
    assert got.tolist() == [243, 1, 0]                  # 255^2 = 65025 = 254 * 256 + 1; 16^2 = 256 wraps to 0


def test_an_exponent_of_another_type_is_still_e_notimpl():
    desc = DML_ELEMENT_WISE_POW_OPERATOR_DESC(InputTensor=tensor("INT32", [4]), ExponentTensor=tensor("UINT8", [4]),
                                              OutputTensor=tensor("INT32", [4]))
    from dmlemu.errors import E_NOTIMPL, HResultError
    with pytest.raises(HResultError) as caught:
        run_operator(desc, [np.zeros(4, np.int32), np.zeros(4, np.uint8)])
    assert caught.value.hresult == E_NOTIMPL
