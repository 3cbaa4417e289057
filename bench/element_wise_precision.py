"""Measures the error of every transcendental operator and activation and prints the section of
docs/NUMERICS.md between its `precision` markers.

Each function is the golden model's (emulator/golden/), which the kernels match bit for bit
(tests/kernels/test_element_wise_ops.py, tests/kernels/test_element_wise_float16.py); the reference is float64 NumPy/libm
(erf/erfc: Python's math module). The error is |result - reference| in units in the last place of the
tensor's type at the reference (subnormal spacing below the normal range); a result that overflows to inf
counts as 2^(emax + 1), so an overflow one ulp early reads about 1 ulp. Inputs: all 65,536 FLOAT16 bit
patterns on both FLOAT16 paths (FLOAT32 compute and, with half precision, FLOAT16 compute), and for FLOAT32
a seeded sample: uniform in the function's useful range plus its edge cases ("dense", where the bound
applies), and random bit patterns of every exponent ("all"). NaN references are skipped (they are checked
bit for bit by the tests, NaN for NaN).

    .venv/bin/python bench/element_wise_precision.py            # prints the table
    .venv/bin/python bench/element_wise_precision.py --write    # replaces the section in the docs

tests/kernels/test_element_wise_precision.py imports FUNCTIONS and `max_ulp` and fails if a function's error on a
smaller fixed sample exceeds the bound written here.
"""
import math
import os
import sys
import time

import numpy as np

from dmlemu import golden

SEED = 2026
F32_DENSE = 1 << 19
F32_RANDOM = 1 << 19
DOC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs", "NUMERICS.md")
BEGIN, END = "<!-- precision: begin (bench/element_wise_precision.py) -->", "<!-- precision: end -->"

_erf = np.vectorize(math.erf, otypes=[np.float64])
_erfc = np.vectorize(math.erfc, otypes=[np.float64])
F = np.float32


def _sigmoid(z):
    with np.errstate(all="ignore"):
        e = np.exp(-np.abs(z))
        return np.where(z >= 0, 1 / (1 + e), e / (1 + e))


def _gelu(x):
    return np.where(x >= 0, 0.5 * x * (1 + _erf(x / math.sqrt(2))), 0.5 * x * _erfc(-x / math.sqrt(2)))


def _pow_inputs(rng, n):
    x = rng.uniform(0, 8, n)
    y = rng.uniform(-30, 30, n)
    return [x.astype(np.float32), y.astype(np.float32)]


# name: (attributes, float64 reference of the inputs, dense FLOAT32 domain (lo, hi), bound on the dense
# domain in FLOAT32 ulps, bound on every FLOAT16 input in FLOAT16 ulps (FLOAT32 compute, FLOAT16 compute))
FUNCTIONS = {
    "ELEMENT_WISE_EXP": ({}, np.exp, (-103.0, 88.7), 1.5, (0.51, 1.5)),
    "ELEMENT_WISE_LOG": ({}, np.log, (0.0, 64.0), 1.5, (0.51, 1.5)),
    "ELEMENT_WISE_SQRT": ({}, np.sqrt, (0.0, 64.0), 0.5, (0.51, 0.5)),
    "ELEMENT_WISE_RECIP": ({}, lambda x: 1 / x, (-64.0, 64.0), 0.5, (0.51, 0.5)),
    "ELEMENT_WISE_SIN": ({}, np.sin, (-256.0, 256.0), 2.5, (0.51, 3.5)),
    "ELEMENT_WISE_COS": ({}, np.cos, (-256.0, 256.0), 2.5, (0.51, 2.5)),
    "ELEMENT_WISE_TAN": ({}, np.tan, (-256.0, 256.0), 4, (0.51, 3.5)),
    "ELEMENT_WISE_ASIN": ({}, np.arcsin, (-1.0, 1.0), 3.5, (0.51, 2.5)),
    "ELEMENT_WISE_ACOS": ({}, np.arccos, (-1.0, 1.0), 3.5, (0.51, 2)),
    "ELEMENT_WISE_ATAN": ({}, np.arctan, (-64.0, 64.0), 2.5, (0.51, 2)),
    "ELEMENT_WISE_SINH": ({}, np.sinh, (-89.4, 89.4), 3, (0.51, 5)),
    "ELEMENT_WISE_COSH": ({}, np.cosh, (-89.4, 89.4), 2, (0.51, 5)),
    "ELEMENT_WISE_TANH": ({}, np.tanh, (-10.0, 10.0), 3, (0.51, 2.5)),
    "ELEMENT_WISE_ASINH": ({}, np.arcsinh, (-64.0, 64.0), 3.5, (0.51, 3)),
    "ELEMENT_WISE_ACOSH": ({}, np.arccosh, (1.0, 64.0), 3.5, (0.51, 3)),
    "ELEMENT_WISE_ATANH": ({}, np.arctanh, (-1.0, 1.0), 4, (0.51, 3)),
    "ELEMENT_WISE_ERF": ({}, _erf, (-4.0, 4.0), 1.5, (0.51, 1)),
    "ELEMENT_WISE_CONSTANT_POW": ({"Exponent": F(2.5)}, lambda x: np.power(x, 2.5), (0.0, 64.0), 4, (0.51, 13)),
    "ELEMENT_WISE_POW": ({}, np.power, None, 32, (0.51, 9)),
    "ELEMENT_WISE_ATAN_YX": ({}, np.arctan2, None, 3, (0.51, 2.5)),
    "ACTIVATION_ELU": ({"Alpha": F(1.0)}, lambda x: np.where(x >= 0, x, np.expm1(x)), (-20.0, 20.0), 2, (0.51, 2)),
    "ACTIVATION_CELU": ({"Alpha": F(1.0)}, lambda x: np.maximum(0, x) + np.minimum(0, np.expm1(x)), (-20.0, 20.0),
                        2, (0.51, 2)),
    "ACTIVATION_SCALED_ELU": ({"Alpha": F(1.6732632), "Gamma": F(1.050701)},
                              lambda x: float(F(1.050701)) * np.where(x > 0, x, float(F(1.6732632)) * np.expm1(x)),
                              (-20.0, 20.0), 3, (0.51, 3)),
    "ACTIVATION_GELU": ({}, _gelu, (-13.0, 13.0), 6, (0.51, 4)),
    "ACTIVATION_SIGMOID": ({}, _sigmoid, (-100.0, 30.0), 3, (0.51, 2.5)),
    "ACTIVATION_SWISH": ({"SigmoidInputScale": F(1.0)}, lambda x: x * _sigmoid(x), (-87.0, 100.0), 4, (0.51, 13)),
    "ACTIVATION_SOFTPLUS": ({"Steepness": F(1.0)}, lambda x: np.logaddexp(0, x), (-100.0, 100.0), 4, (0.51, 3.5)),
    "ACTIVATION_PARAMETRIC_SOFTPLUS": ({"Alpha": F(1.0), "Beta": F(1.0)}, lambda x: np.logaddexp(0, x),
                                       (-100.0, 100.0), 3.5, (0.51, 3.5)),
    "ACTIVATION_SOFTSIGN": ({}, lambda x: x / (1 + np.abs(x)), (-64.0, 64.0), 2, (0.51, 1.5)),
    "ACTIVATION_TANH": ({}, np.tanh, (-10.0, 10.0), 3.5, (0.51, 2.5)),
    "ACTIVATION_SCALED_TANH": ({"Alpha": F(1.7159), "Beta": F(0.6666667)},
                               lambda x: float(F(1.7159)) * np.tanh(float(F(0.6666667)) * x), (-16.0, 16.0), 4,
                               (0.51, 4.5)),
}
EDGES = np.array([0.0, -0.0, np.inf, -np.inf, 1.0, -1.0, 0.5, -0.5, 2.0, 1e-45, -1e-45, 1.17549435e-38, 3.4028235e38,
                  -3.4028235e38, 1.0000001, 0.99999994, -0.99999994, 88.72, 89.41, -87.3, -103.97, 9.01, 3.92, 0.875,
                  np.pi, np.pi / 2, 1e-7, 4096.0, 4097.0], np.float32)


def ulp_errors(result, ref, dtype):
    """|result - ref| in ulps of dtype at ref (inf results count as 2^(emax + 1))."""
    info = np.finfo(dtype)
    big = 2.0 ** (info.maxexp)
    got = np.clip(result.astype(np.float64), -big, big)
    exponent = np.floor(np.log2(np.maximum(np.abs(ref), float(info.smallest_normal))))
    return np.abs(got - ref) / 2.0 ** (exponent - info.nmant)


def evaluate(name, inputs, half=False):
    """(result, float64 reference) of a function on a list of input arrays of one type."""
    attributes, reference, _, _, _ = FUNCTIONS[name]
    with np.errstate(all="ignore"):
        got = golden.run(name, inputs, attributes, None, half)
        ref = reference(*[i.astype(np.float64) for i in inputs])
    return np.asarray(got), np.asarray(ref, dtype=np.float64)


def max_ulp(name, inputs, dtype, half=False):
    """(max ulp error, the inputs at the worst, count) over the inputs whose reference is a number in range."""
    got, ref = evaluate(name, inputs, half)
    info = np.finfo(dtype)
    keep = ~np.isnan(ref) & (np.abs(ref) <= float(info.max))
    errors = ulp_errors(got[keep], ref[keep], dtype)
    errors = np.where(np.isnan(errors), np.inf, errors)    # a NaN result where a number was due
    if errors.size == 0:
        return 0.0, (), 0
    worst = int(np.argmax(errors))
    return float(errors[worst]), tuple(float(i[keep][worst]) for i in inputs), int(keep.sum())


def f16_inputs(name):
    x = np.arange(65536, dtype=np.uint32).astype(np.uint16).view(np.float16)
    if FUNCTIONS[name][2] is None:           # binary: every pattern against a seeded partner
        rng = np.random.default_rng(SEED)
        if name == "ELEMENT_WISE_POW":
            y = (rng.uniform(-8, 8, x.size)).astype(np.float16)
            return [np.abs(x), y]
        return [x, rng.permutation(x)]
    return [x]


def f32_inputs(name, rng, dense=F32_DENSE, random=F32_RANDOM):
    """({'dense': inputs, 'all': inputs}, description)."""
    domain = FUNCTIONS[name][2]
    bits = rng.integers(0, 2 ** 32, random, dtype=np.uint64).astype(np.uint32).view(np.float32)
    if domain is None:
        if name == "ELEMENT_WISE_POW":
            d = _pow_inputs(rng, dense)
            return {"dense": d, "all": [np.abs(bits), rng.permutation(bits)]}, "x in [0, 8], y in [-30, 30]"
        d = [rng.normal(size=dense).astype(np.float32) * 10.0 ** rng.integers(-3, 4, dense).astype(np.float32)
             for _ in range(2)]
        return {"dense": d, "all": [bits, rng.permutation(bits)]}, "normal x 10^(-3..3), both"
    lo, hi = domain
    d = np.concatenate([rng.uniform(lo, hi, dense).astype(np.float32), EDGES[(EDGES >= lo) & (EDGES <= hi)]])
    return {"dense": [d], "all": [np.concatenate([bits, EDGES, -EDGES])]}, f"[{lo:g}, {hi:g}]"


def measure(rng):
    rows = []
    for name in FUNCTIONS:
        start = time.perf_counter()
        f16 = f16_inputs(name)
        f16_default = max_ulp(name, f16, np.float16)
        f16_half = max_ulp(name, f16, np.float16, half=True)
        inputs, domain = f32_inputs(name, rng)
        dense = max_ulp(name, inputs["dense"], np.float32)
        every = max_ulp(name, inputs["all"], np.float32)
        rows.append((name, f16_default, f16_half, domain, dense, every))
        sys.stderr.write(f"{name}: {time.perf_counter() - start:.1f} s\n")
    return rows


def _at(inputs):
    return ", ".join(f"{v:.9g}" for v in inputs)


def table(rows):
    out = ["| operator | FLOAT16, FLOAT32 compute: max ulp (at) | FLOAT16, FLOAT16 compute | FLOAT32 dense domain | "
           "max ulp (at) | bounds: FLOAT32 dense / FLOAT16 / FLOAT16 compute | "
           "FLOAT32 all bit patterns: max ulp (at) |",
           "|---|---|---|---|---|---|---|"]
    for name, f16, half, domain, dense, every in rows:
        f32_bound, (f16_bound, half_bound) = FUNCTIONS[name][3:]
        bound = f"{f32_bound:g} / {f16_bound:g} / {half_bound:g}"
        out.append(f"| {name} | {f16[0]:.4g} ({_at(f16[1])}) | {half[0]:.3g} ({_at(half[1])}) | {domain} | "
                   f"{dense[0]:.3g} ({_at(dense[1])}) | {bound} | {every[0]:.3g} ({_at(every[1])}) |")
    return "\n".join(out)


def section(rows):
    return (f"{BEGIN}\nGenerated by `.venv/bin/python bench/element_wise_precision.py --write` (seed {SEED}; "
            f"FLOAT16: all 65,536 patterns per path; FLOAT32: {F32_DENSE} uniform in the dense domain plus edge "
            f"cases, and {F32_RANDOM} random bit patterns plus edge cases). Errors in ulps of the tensor's type "
            f"against float64 NumPy/libm; 'bound' is what tests/kernels/test_element_wise_precision.py enforces on the "
            f"dense domain.\n\n{table(rows)}\n{END}")


def main():
    start = time.perf_counter()
    rows = measure(np.random.default_rng(SEED))
    text = section(rows)
    if "--write" in sys.argv:
        with open(DOC, encoding="utf-8") as f:
            doc = f.read()
        if BEGIN in doc:
            doc = doc[:doc.index(BEGIN)] + text + doc[doc.index(END) + len(END):]
        else:
            doc = doc.rstrip("\n") + "\n\n" + text + "\n"
        with open(DOC, "w", encoding="utf-8") as f:
            f.write(doc)
    else:
        print(text)
    sys.stderr.write(f"({time.perf_counter() - start:.1f} s)\n")


if __name__ == "__main__":
    main()
