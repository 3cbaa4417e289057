"""Golden model: the reference implementation of every operator in NUMERICS.md.

Plain NumPy, no ISA run and no kernel: this package imports neither dmlemu.kernels nor the functional or
timing models (tests/oracles/test_golden_independence.py). Each operator computes, for whole tensors at once, exactly
the bits that the project's numeric rules (NUMERICS.md) prescribe: FLOAT16 math widened to FLOAT32 (or, with
half precision allowed, rounded to FLOAT16 at every step), ScaleBias as a rounded multiply then a rounded add,
IEEE 754-2008 minNum/maxNum with -0 < +0, canonical quiet NaNs out of arithmetic, FLOAT bounds cast to the
tensor type (round to nearest even for FLOAT16, truncate then saturate for integers), bit-exact copies for
IDENTITY and IF. The microkernels are checked against it bit for bit, and it doubles as the speed baseline, so
every function is vectorised; where a shortcut is taken, a comment says why it is exact.

One module per family, each operator registered by name where it is defined (registry.py):

  numbers.py         data types, FLOAT -> integer, bound casts, canonical NaNs, minNum / maxNum
  tensors.py         gather / scatter of strided tensors, DMLCalcBufferTensorSize
  working.py         the working precision: ScaleBias, FLOAT16 widening, the store
  bounds.py          IDENTITY, THRESHOLD, CLIP, IF
  arith.py           arithmetic, division, rounding
  logic.py           comparisons, logic, bits
  quantize.py        CAST and quantization
  activation.py      the activations (and FusedActivation)
  transcendental.py  EXP ... ERF, POW, ATAN_YX and the transcendental activations
  reduce.py          REDUCE, ARGMAX, ARGMIN (the fixed order of docs/NUMERICS.md, "Reductions")
  gemm.py            GEMM (the fixed order of docs/NUMERICS.md, "GEMM")
  quantized_gemm.py  MATRIX_MULTIPLY_INTEGER(_TO_FLOAT), QUANTIZED_LINEAR_MATRIX_MULTIPLY, CONVOLUTION_INTEGER,
                     QUANTIZED_LINEAR_CONVOLUTION (docs/NUMERICS.md, "Integer
                     and quantized matrix multiplication")
  softmax.py         SOFTMAX, LOG_SOFTMAX, HARDMAX and their `1` forms (docs/NUMERICS.md, "Softmax, ...")
  scan.py            CUMULATIVE_SUMMATION, CUMULATIVE_PRODUCT (docs/NUMERICS.md, "Cumulative scans")
  normalization.py   MVN(1), BATCH_NORMALIZATION, LP_NORMALIZATION, LRN (docs/NUMERICS.md, "Normalization")
  data_movement.py   SLICE, SLICE1, PADDING, PADDING1, TILE, DEPTH_TO_SPACE(1), SPACE_TO_DEPTH(1),
                     JOIN, SPLIT: indexing
  convolution.py     CONVOLUTION (the fixed order of docs/NUMERICS.md, "Convolution")
  pooling.py         AVERAGE_POOLING(1), LP_POOLING(1), MAX_POOLING(1, 2), MAX_UNPOOLING (docs/NUMERICS.md, "Pooling")
  gathers.py         GATHER, GATHER_ELEMENTS, GATHER_ND(1), ONE_HOT, SCATTER_ELEMENTS, SCATTER_ND,
                     REVERSE_SUBSEQUENCES, NONZERO_COORDINATES (docs/NUMERICS.md, "Gathers")
  resample.py        RESAMPLE, RESAMPLE1, RESAMPLE2, UPSAMPLE_2D (docs/NUMERICS.md, "Resampling")
  fill.py            FILL_VALUE_CONSTANT, FILL_VALUE_SEQUENCE, DIAGONAL_MATRIX (docs/NUMERICS.md, "Fills")
  random.py          RANDOM_GENERATOR: Philox 4x32-10 (docs/NUMERICS.md, "Random numbers")
  top_k.py           TOP_K, TOP_K1: a stable order by value (docs/NUMERICS.md, "Top-K")
  attention.py       MULTIHEAD_ATTENTION (docs/NUMERICS.md, "Multi-head attention")

`run(name, inputs, ...)` computes any registered operator by its DirectML name; OPERATORS is the table.
"""
import numpy as np

from dmlemu.golden.numbers import DATA_TYPES, canonical_nan, cast_bound, float_to_int, max_num, min_num
from dmlemu.golden.tensors import calc_buffer_tensor_size, gather, packed_strides, scatter
from dmlemu.golden.bounds import clip, identity, if_, threshold
from dmlemu.golden.activation import activation
from dmlemu.golden.arith import (
    abs_, add, add1, ceil, clip1, clip_grad, clip_grad1, difference_square, divide, floor, maximum, mean, minimum,
    modulus_floor, modulus_truncate, multiply, negate, round_, sign, subtract,
)
from dmlemu.golden.logic import (
    bit_and, bit_count, bit_not, bit_or, bit_shift_left, bit_shift_right, bit_xor, compare, is_infinity, is_nan,
    logical,
)
from dmlemu.golden.quantize import cast, dequantize_linear, quantize_linear, quantized_linear_add
from dmlemu.golden.transcendental import (
    acos, acosh, asin, asinh, atan, atan_yx, atanh, constant_pow, cos, cosh, erf, exp, log, pow_, recip, sin,
    sinh, sqrt, tan, tanh,
)
from dmlemu.golden.reduce import argmax, argmin, reduce
from dmlemu.golden.gemm import gemm
from dmlemu.golden.quantized_gemm import (
    convolution_integer, matrix_multiply_integer, matrix_multiply_integer_to_float, quantized_linear_convolution,
    quantized_linear_matrix_multiply,
)
from dmlemu.golden.softmax import hardmax, hardmax1, log_softmax, log_softmax1, softmax, softmax1
from dmlemu.golden.scan import cumulative_product, cumulative_summation
from dmlemu.golden.normalization import (
    batch_normalization, batch_normalization_training, local_response_normalization, lp_normalization, mean_variance_normalization0,
    mean_variance_normalization1,
)
from dmlemu.golden import data_movement as _data_movement   # noqa: F401  (registers its operators; golden.run)
from dmlemu.golden.convolution import convolution
from dmlemu.golden.pooling import average_pooling, average_pooling1, lp_pooling, lp_pooling1, max_pooling
from dmlemu.golden.pooling import max_pooling1, max_pooling2, max_unpooling
from dmlemu.golden import fill as _fill, gathers as _gathers, random as _random, resample as _resample  # noqa: F401
from dmlemu.golden import top_k as _top_k  # noqa: F401  (TOP_K, TOP_K1)
from dmlemu.golden import attention as _attention  # noqa: F401  (MULTIHEAD_ATTENTION)
from dmlemu.golden.registry import OPERATORS

__all__ = [
    "DATA_TYPES", "float_to_int", "cast_bound", "canonical_nan", "min_num", "max_num",
    "gather", "scatter", "packed_strides", "calc_buffer_tensor_size",
    "identity", "threshold", "clip", "if_",
    "add", "add1", "subtract", "multiply", "difference_square", "mean", "minimum", "maximum", "abs_", "negate",
    "sign", "clip1", "clip_grad", "clip_grad1", "divide", "modulus_truncate", "modulus_floor", "ceil", "floor",
    "round_",
    "compare", "logical", "is_nan", "is_infinity", "bit_and", "bit_or", "bit_xor", "bit_not", "bit_count",
    "bit_shift_left", "bit_shift_right",
    "cast", "quantize_linear", "dequantize_linear", "quantized_linear_add",
    "activation",
    "exp", "log", "sqrt", "recip", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh",
    "acosh", "atanh", "erf", "constant_pow", "pow_", "atan_yx",
    "reduce", "argmax", "argmin", "gemm", "matrix_multiply_integer", "quantized_linear_matrix_multiply", "convolution_integer",
    "quantized_linear_convolution", "matrix_multiply_integer_to_float",
    "softmax", "log_softmax", "hardmax", "softmax1", "log_softmax1", "hardmax1",
    "cumulative_summation", "cumulative_product", "mean_variance_normalization0", "mean_variance_normalization1",
    "batch_normalization", "batch_normalization_training", "lp_normalization", "local_response_normalization",
    "convolution", "average_pooling", "average_pooling1", "max_pooling", "lp_pooling", "lp_pooling1",
    "max_pooling1", "max_pooling2", "max_unpooling",
    "OPERATORS", "run",
]


def run(name, inputs, attributes=None, scale_bias=None, half_precision=False, output_type=None, output_sizes=None):
    """The golden result of operator `name` (without DML_OPERATOR_, e.g. ELEMENT_WISE_ADD) on NumPy arrays
    `inputs` (binding order), with the desc's non-tensor fields `attributes` by C field name (as
    validation.OperatorInfo.attributes has them), an optional ScaleBias (scale, bias) and the half-precision
    flag. `output_type` is the output tensor's data type where it is not the inputs' (CAST, comparisons);
    `output_sizes` its Sizes where nothing else gives them (MAX_UNPOOLING)."""
    name = str(name)
    if name.startswith("DML_OPERATOR_"):
        name = name[len("DML_OPERATOR_"):]
    if name not in OPERATORS:
        raise KeyError(f"the golden model has no operator {name}")
    # None: an optional tensor the desc left out (QUANTIZE_LINEAR's ZeroPointTensor, ...)
    return OPERATORS[name]([None if i is None else np.asarray(i) for i in inputs], dict(attributes or {}), scale_bias,
                           bool(half_precision), output_type, output_sizes)
