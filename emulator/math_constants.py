"""The constants of the transcendental functions: one table that the kernels and the golden model both read.

The kernels' bodies (kernels/element_wise_math.inc and its math_*.inc functions) take each constant as a
`${K_<NAME>}` assembler symbol (kernels/element_wise_math.py turns this table into them); the golden model
(dmlemu.golden.transcendental) computes with the same numbers, step for step. A constant is rounded once, to
nearest even, from its float64 value; a split constant NAME has NAME_HI (the value rounded) and NAME_LO (the
rest, rounded), so that x * NAME_HI + x * NAME_LO carries about twice the type's bits (the kernels add the low
part with a fused multiply-add).

Polynomial coefficients were fitted offline (near-minimax: least squares on Chebyshev nodes, reweighted by
Lawson's iteration, against 30-digit mpmath values, then rounded to FLOAT32); docs/NUMERICS.md
gives each function's algorithm and bench/element_wise_precision.py measures the result. FLOAT16 compute
(DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION) uses the same coefficients rounded to FLOAT16.
"""
import math

import numpy as np

from dmlemu.data_types import data_type

# Split constants: value rounded (_HI) and the remainder rounded (_LO).
SPLIT = {
    "LOG2E": 1.4426950408889634074,        # log2(e)
    "LN2": 0.69314718055994530942,         # ln(2)
    "INV_2PI": 0.15915494309189533577,     # 1 / (2 pi): radians to revolutions
    "PI": math.pi,
    "PI_2": math.pi / 2,
    "PI_4": math.pi / 4,
    "RSQRT2": 0.70710678118654752440,      # 1 / sqrt(2) (GELU)
}

# Plain constants, the same value for both compute types.
PLAIN = {
    "TAN_PI_8": 0.41421356237309504880,    # atan's reduction point, tan(pi / 8)
    "QUARTER": 0.25,
    "TRIG_TINY": 2.0 ** -12,               # sin x and tan x round to x below (x^2 / 3 < 2^-25)
    "ERF_SPLIT": 0.875,                    # erf: a x P(x^2) below, 1 - erfc above
    "ERFC_CLAMP": 16.0,                    # erfc(16) is 0 in both types
    "ERFC_MID": 0.6026785714285714,        # erfc's polynomial variable is 1/a - ERFC_MID
}

# Constants that differ by compute type: (f32, f16).
PER_TYPE = {
    "TANH_CLAMP": (10.0, 5.0),             # tanh(x) rounds to 1 beyond; expm1(2 x) stays finite below
    "BIG": (4096.0, 64.0),                 # asinh / acosh: log(2 x) beyond (x * x stays finite below)
}

# expm1(x) = x + x^2 P(x), |x| < 0.5: P0 .. P7
EXPM1_P = (0.5, 0.1666666716337204, 0.0416666679084301, 0.008333333767950535, 0.001388867269270122,
           0.0001984093541977927, 2.4939739887486212e-05, 2.771428171399748e-06)
# atan(w) = w + w^3 P(w^2), |w| <= tan(pi / 8): P0 .. P7
ATAN_P = (-0.3333333432674408, 0.20000000298023224, -0.14285708963871002, 0.11110828071832657,
          -0.09084241092205048, 0.07605990767478943, -0.06032346934080124, 0.0330406054854393)
# erf(a) = a + a P(a^2), a < 0.875: P0 .. P7
ERF_P = (0.12837916612625122, -0.37612637877464294, 0.11283789575099945, -0.026865961030125618,
         0.005222889129072428, -0.0008517364040017128, 0.0001156152575276792, -1.0698478945414536e-05)
# erfc(a) = exp(-a^2) t S(t - ERFC_MID), t = 1/a, 0.875 <= a <= 16: S0 .. S12 (S = erfc(a) e^(a^2) a varies
# only between 0.42 and 0.57, so Horner's partial sums do not cancel)
ERFC_S = (0.49335336685180664, -0.17141669988632202, -0.006361621432006359, 0.07933302968740463,
          -0.08364423364400864, 0.050272032618522644, -0.0054230461828410625, -0.028600143268704414,
          0.05270424112677574, -0.08340495824813843, 0.05427400395274162, 0.06889043748378754,
          -0.08774455636739731)

# 1/(2 pi) - float64(1/(2 pi)), the part float64 itself misses (from 1/(2 pi) to 40 digits:
# 0.15915494309189533576888376337251436203446, mpmath).
_INV_2PI_TAIL = -9.839338337591243e-18
POLYNOMIALS = {"EXPM1_P": EXPM1_P, "ATAN_P": ATAN_P, "ERF_P": ERF_P, "ERFC_S": ERFC_S}


def constants(dtype):
    """Every constant as a scalar of `dtype` (float32 or float16), by name (LOG2E_HI, EXPM1_P3, ...)."""
    dtype = np.dtype(dtype)
    out = {}
    for name, value in SPLIT.items():
        hi = dtype.type(np.float64(value))           # NumPy's float64 -> float16/32 rounds once to nearest even
        out[name + "_HI"] = hi
        out[name + "_LO"] = dtype.type(np.float64(value) - np.float64(hi))
    # 1 / (2 pi) in three parts (the trigonometric reduction): the third is what the first two miss.
    i2 = np.float64(SPLIT["INV_2PI"]) - np.float64(out["INV_2PI_HI"]) - np.float64(out["INV_2PI_LO"])
    out["INV_2PI_LO2"] = dtype.type(i2 + _INV_2PI_TAIL)
    for name, value in PLAIN.items():
        out[name] = dtype.type(np.float64(value))
    for name, (f32, f16) in PER_TYPE.items():
        out[name] = dtype.type(f32 if dtype == np.float32 else f16)
    for name, coefficients in POLYNOMIALS.items():
        for k, c in enumerate(coefficients):
            out[f"{name}{k}"] = dtype.type(np.float64(c))
    out["NAN"] = data_type(dtype).canonical_nan()
    return out


__all__ = ["constants", "SPLIT", "PLAIN", "PER_TYPE", "POLYNOMIALS"]
