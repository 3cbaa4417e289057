"""ACTIVATION_SOFTMAX, LOG_SOFTMAX, HARDMAX and their `1` forms in the order docs/NUMERICS.md fixes
("Softmax, log-softmax, hardmax"), vectorised over the rows.

A row is the elements that share the coordinates of the kept axes; k numbers them row-major over the normalized
axes (the original operators normalize the last axis). M = maxNum of the row (NaN skipped; any order gives the same
bits); S = the sum of e^(x - M) in the reduction family's order (L threads, k = t, t + L, ... from -0, then the
fixed tree: dmlemu.golden.reduce's `_sum`), with x - M rounded and e^x element-wise EXP's sequence of rounded steps
(dmlemu.golden.transcendental); SOFTMAX = e^(x - M) / S, one correctly rounded divide; LOG_SOFTMAX = (x - M) - ln S,
each rounded, ln element-wise LOG's; HARDMAX = 1 at ARGMAX's index (the first maximal element, NaN skipped, index 0
when every element is NaN), 0 elsewhere. FLOAT16 is computed in FLOAT32 and rounded once; NaN results are
canonical. This module follows that text, not the kernel: it never assembles or runs anything.
"""
import numpy as np

from dmlemu.golden.numbers import canonicalize_nans
from dmlemu.golden.reduce import _arg, _min_max, _rows, _sum
from dmlemu.golden.registry import operator
from dmlemu.golden.transcendental import _Math
from dmlemu.isa import numerics as _nm   # primitives only (FLOAT16 narrowing, the divide); the ISA is never run

_F32 = _Math(np.float32)


def _normalize(x, axes, kind):
    """`kind` (SOFTMAX, LOG_SOFTMAX, HARDMAX) of `x` over `axes`, in `x`'s shape and data type."""
    x = np.asarray(x)
    storage = x.dtype
    axes = {int(a) for a in axes}
    work = x.astype(np.float32)
    rows, _ = _rows(work, axes)
    if kind == "HARDMAX":
        index = _arg(rows, False)
        result = np.zeros(rows.shape, np.float32)
        result[np.arange(rows.shape[0]), index] = 1.0
    else:
        with np.errstate(all="ignore"):
            m = _min_max(rows, False)[:, None]
            d = (rows - m).astype(np.float32)                      # x - M, rounded
            e = _F32.exp(d)
            s = _sum(np.asarray(e, np.float32), np.float32(-0.0), np.add)[:, None]
            if kind == "SOFTMAX":
                result = np.asarray(_nm.divide(*np.broadcast_arrays(e, s)), np.float32)
            else:
                result = (d - _F32.log(s)).astype(np.float32)     # (x - M) - ln S, rounded
        result = canonicalize_nans(result)
    # back from (rows, k) to x's axes: the kept axes then the normalized ones, as _rows ordered them
    kept = [d for d in range(x.ndim) if d not in axes]
    order = kept + [d for d in range(x.ndim) if d in axes]
    result = np.transpose(result.reshape([x.shape[d] for d in order]), np.argsort(order))
    with np.errstate(over="ignore"):
        result = _nm.narrow_f16(result) if storage == np.float16 else result
    return np.ascontiguousarray(result).astype(storage)


def _last(x):
    return (np.ndim(x) - 1,)


@operator(name="ACTIVATION_SOFTMAX")
def softmax(x):
    """DML_OPERATOR_ACTIVATION_SOFTMAX: e^(x - M) / S along the last axis."""
    return _normalize(x, _last(x), "SOFTMAX")


@operator(name="ACTIVATION_LOG_SOFTMAX")
def log_softmax(x):
    """DML_OPERATOR_ACTIVATION_LOG_SOFTMAX: (x - M) - ln S along the last axis."""
    return _normalize(x, _last(x), "LOG_SOFTMAX")


@operator(name="ACTIVATION_HARDMAX")
def hardmax(x):
    """DML_OPERATOR_ACTIVATION_HARDMAX: 1 at the first maximal element of the last axis, 0 elsewhere."""
    return _normalize(x, _last(x), "HARDMAX")


@operator(name="ACTIVATION_SOFTMAX1", keyword_attributes=("Axes",))
def softmax1(x, Axes=()):
    """DML_OPERATOR_ACTIVATION_SOFTMAX1: SOFTMAX over `Axes`."""
    return _normalize(x, Axes, "SOFTMAX")


@operator(name="ACTIVATION_LOG_SOFTMAX1", keyword_attributes=("Axes",))
def log_softmax1(x, Axes=()):
    """DML_OPERATOR_ACTIVATION_LOG_SOFTMAX1: LOG_SOFTMAX over `Axes`."""
    return _normalize(x, Axes, "LOG_SOFTMAX")


@operator(name="ACTIVATION_HARDMAX1", keyword_attributes=("Axes",))
def hardmax1(x, Axes=()):
    """DML_OPERATOR_ACTIVATION_HARDMAX1: HARDMAX over `Axes`."""
    return _normalize(x, Axes, "HARDMAX")
