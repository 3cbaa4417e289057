"""Every FLOAT16 bit pattern through every unary float operator of the element-wise skeleton, and CAST from
FLOAT16 to every type: all 65,536 inputs in one dispatch each, bit for bit against the golden model
(NaN payloads, signalling NaNs, +-0, subnormals, +-inf included)."""
import numpy as np
import pytest

from dmlemu.gpu import Gpu
from dmlemu.kernels.element_wise_ops import ALL_TYPES
from dmlemu.presets import DEFAULT_PRESET
from element_wise_cases import check_operator, seeded

ALL_F16 = np.arange(65536, dtype=np.uint32).astype(np.uint16).view(np.float16)
F32 = np.float32

SWEEPS = [
    ("ELEMENT_WISE_ABS", {}, None, False), ("ELEMENT_WISE_ABS", {}, (-1.5, 0.25), False),
    ("ELEMENT_WISE_ABS", {}, (0.3, -2.0), True),
    ("ELEMENT_WISE_NEGATE", {}, None, False),
    ("ELEMENT_WISE_SIGN", {}, None, False), ("ELEMENT_WISE_SIGN", {}, None, True),
    ("ELEMENT_WISE_CEIL", {}, None, False), ("ELEMENT_WISE_FLOOR", {}, (3.0, 0.5), True),
    ("ELEMENT_WISE_ROUND", {"RoundingMode": 0}, None, False), ("ELEMENT_WISE_ROUND", {"RoundingMode": 1}, None, True),
    ("ELEMENT_WISE_ROUND", {"RoundingMode": 2}, None, False), ("ELEMENT_WISE_ROUND", {"RoundingMode": 2}, None, True),
    ("ELEMENT_WISE_IS_NAN", {}, None, False),
    ("ELEMENT_WISE_BIT_NOT", {}, None, False), ("ELEMENT_WISE_BIT_COUNT", {}, None, False),
    ("ELEMENT_WISE_IS_INFINITY", {"InfinityMode": 0}, None, False),
    ("ELEMENT_WISE_IS_INFINITY", {"InfinityMode": 1}, None, False),
    ("ELEMENT_WISE_IS_INFINITY", {"InfinityMode": 2}, None, False),
    ("ELEMENT_WISE_CLIP1", {"Min": np.float16(-0.0), "Max": np.float16(6.0)}, None, False),
    ("ELEMENT_WISE_CLIP1", {"Min": np.float16(-2.5), "Max": np.float16(np.nan)}, (0.5, 0.0), True),
    ("ACTIVATION_IDENTITY", {}, None, False), ("ACTIVATION_IDENTITY", {}, None, True),
    ("ACTIVATION_RELU", {}, None, False), ("ACTIVATION_RELU", {}, None, True),
    ("ACTIVATION_LEAKY_RELU", {"Alpha": F32(0.01)}, None, False),
    ("ACTIVATION_LEAKY_RELU", {"Alpha": F32(0.01)}, None, True),
    ("ACTIVATION_LINEAR", {"Alpha": F32(1.7), "Beta": F32(-0.3)}, None, False),
    ("ACTIVATION_LINEAR", {"Alpha": F32(1.7), "Beta": F32(-0.3)}, None, True),
    ("ACTIVATION_HARD_SIGMOID", {"Alpha": F32(0.2), "Beta": F32(0.5)}, None, False),
    ("ACTIVATION_HARD_SIGMOID", {"Alpha": F32(0.2), "Beta": F32(0.5)}, None, True),
    ("ACTIVATION_HARD_SWISH", {"Alpha": F32(1 / 6), "Beta": F32(0.5)}, None, False),
    ("ACTIVATION_HARD_SWISH", {"Alpha": F32(1 / 6), "Beta": F32(0.5)}, None, True),
    ("ACTIVATION_SHRINK", {"Bias": F32(0.5), "Threshold": F32(0.5)}, None, False),
    ("ACTIVATION_SHRINK", {"Bias": F32(0.25), "Threshold": F32(1.0)}, None, True),
    ("ACTIVATION_SHRINK", {"Bias": F32(-0.5), "Threshold": F32(-0.375)}, None, False),   # both tests can hold
    ("ACTIVATION_THRESHOLDED_RELU", {"Alpha": F32(1.0)}, None, False),
    ("ACTIVATION_THRESHOLDED_RELU", {"Alpha": F32(-0.5)}, None, True),
]
# The transcendental functions and their activations, both FLOAT16 paths (FLOAT32 compute, FLOAT16 compute).
MATH_SWEEPS = [
    ("ELEMENT_WISE_EXP", {}, None), ("ELEMENT_WISE_LOG", {}, None), ("ELEMENT_WISE_SQRT", {}, (2.0, -1.0)),
    ("ELEMENT_WISE_RECIP", {}, None), ("ELEMENT_WISE_SIN", {}, None), ("ELEMENT_WISE_COS", {}, None),
    ("ELEMENT_WISE_TAN", {}, None), ("ELEMENT_WISE_ASIN", {}, None), ("ELEMENT_WISE_ACOS", {}, None),
    ("ELEMENT_WISE_ATAN", {}, None), ("ELEMENT_WISE_SINH", {}, None), ("ELEMENT_WISE_COSH", {}, None),
    ("ELEMENT_WISE_TANH", {}, None), ("ELEMENT_WISE_ASINH", {}, None), ("ELEMENT_WISE_ACOSH", {}, None),
    ("ELEMENT_WISE_ATANH", {}, None), ("ELEMENT_WISE_ERF", {}, (0.5, 0.25)),
    ("ELEMENT_WISE_CONSTANT_POW", {"Exponent": F32(-2.5)}, None),
    ("ELEMENT_WISE_CONSTANT_POW", {"Exponent": F32(3.0)}, None),
    ("ACTIVATION_ELU", {"Alpha": F32(1.0)}, None), ("ACTIVATION_CELU", {"Alpha": F32(0.7)}, None),
    ("ACTIVATION_SCALED_ELU", {"Alpha": F32(1.6732632), "Gamma": F32(1.050701)}, None),
    ("ACTIVATION_GELU", {}, None), ("ACTIVATION_SIGMOID", {}, None),
    ("ACTIVATION_SWISH", {"SigmoidInputScale": F32(1.702)}, None),
    ("ACTIVATION_SOFTPLUS", {"Steepness": F32(1.0)}, None),
    ("ACTIVATION_PARAMETRIC_SOFTPLUS", {"Alpha": F32(0.5), "Beta": F32(2.0)}, None),
    ("ACTIVATION_SOFTSIGN", {}, None), ("ACTIVATION_TANH", {}, None),
    ("ACTIVATION_SCALED_TANH", {"Alpha": F32(1.7159), "Beta": F32(0.6666667)}, None),
]
SWEEPS += [(name, attributes, scale_bias, half) for name, attributes, scale_bias in MATH_SWEEPS
           for half in (False, True)]


@pytest.fixture(scope="module")
def gpu():
    return Gpu(DEFAULT_PRESET, timing=False)


@pytest.mark.parametrize("name, attributes, scale_bias, half", SWEEPS)
def test_every_float16_bit_pattern(gpu, name, attributes, scale_bias, half):
    check_operator(name, "FLOAT16", [65536], rng=seeded("sweep", name), attributes=attributes, scale_bias=scale_bias,
                   half=half, payload=[ALL_F16], offsets=[0, 0], gpu=gpu)


@pytest.mark.parametrize("target", ALL_TYPES)
def test_cast_every_float16_bit_pattern(gpu, target):
    check_operator("CAST", "FLOAT16", [65536], rng=seeded("cast", target), payload=[ALL_F16], offsets=[0, 0], gpu=gpu,
                   output_type=target)
