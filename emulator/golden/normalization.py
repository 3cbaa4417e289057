"""The normalizations in the order docs/NUMERICS.md ("Normalization") fixes, vectorised over the groups.

DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION1 (and DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION, the same with the axes
CrossChannel names): each group (the elements that share their coordinates outside Axes) is normalized with its
own mean and variance, computed in two passes, each a sum in the reductions' fixed order (L virtual threads
over k = t, t + L, ..., then the fixed tree: dmlemu.golden.reduce's `_sum`, docs/NUMERICS.md "Reductions"):

  mean = S1 / N                  S1 = the sum of x (from -0), one correctly rounded divide by N as FLOAT32
  d    = x - mean                rounded
  var  = S2 / N                  S2 = the sum of d * d (each product rounded, then added)
  den  = sqrt(var + Epsilon)     the add rounded, the square root correctly rounded
  y    = d / den                 one correctly rounded divide (NormalizeVariance FALSE: y = d)
  (MEAN_VARIANCE_NORMALIZATION2: NormalizeVariance is UseVariance; UseMean FALSE makes d = x, no mean taken)
  y    = y * Scale + Bias        a multiply, then an add, each rounded (never fused); no step without its tensor
  y    = FusedActivation(y)      the activation operator's own golden function, in FLOAT32

FLOAT16 is widened to FLOAT32 (exact), and rounded once at the end; NaN results are canonical.
DML_OPERATOR_LOCAL_RESPONSE_NORMALIZATION sums a window of squares per element (`local_response_normalization`).
DML_OPERATOR_BATCH_NORMALIZATION_TRAINING is MVN1 over Scale's size-1 dimensions, + FusedAdd, with its statistics.
DML_OPERATOR_LP_NORMALIZATION is pass 1 alone over |x| or x * x (`lp_normalization`).
DML_OPERATOR_BATCH_NORMALIZATION is the same element step with the statistics given as tensors (an element-wise
operator: `batch_normalization`). This module follows that text, not the kernel: it never assembles or runs
anything.
"""
import numpy as np

from dmlemu.golden.activation import apply_activation
from dmlemu.golden.numbers import canonicalize_nans
from dmlemu.golden.reduce import _rows, _sum   # the reductions' fixed order (lanes, then the tree), shared
from dmlemu.golden.registry import OPERATORS, operator
from dmlemu.golden.working import Work
from dmlemu.isa import numerics as _nm   # primitives only (FLOAT16 narrowing); the ISA is never run


def _group_sums(x, axes):
    """The sum of each group of FLOAT32 `x` over `axes`, in the reductions' order, shaped with 1 on the axes."""
    rows, shape = _rows(x, axes)
    return np.asarray(_sum(rows, np.float32(-0.0), np.add), np.float32).reshape(shape)


def _activation(y, fused):
    if fused is None:
        return y
    name, fields = fused if isinstance(fused, tuple) else (fused.name, fused.attributes)
    name = str(name).removeprefix("DML_OPERATOR_")
    return np.asarray(OPERATORS[name]([y], dict(fields or {}), None, False, None), dtype=np.float32)


def mean_variance_normalization(x, scale, bias, axes, normalize_variance, epsilon, fused, fused_add=None,
                                statistics=False, use_mean=True):
    """MVN1's output for arrays `x` and (None or broadcastable to x) `scale`, `bias` (see the module docstring);
    `fused_add` (BATCH_NORMALIZATION_TRAINING) is added after Bias, rounded; `statistics`: also the mean and the
    variance (before Epsilon), shaped with 1 on the axes and rounded once to x's type."""
    x = np.asarray(x)
    storage = x.dtype
    work = x.astype(np.float32)
    axes = {int(a) for a in axes}
    count = np.float32(int(np.prod([x.shape[d] for d in axes], dtype=np.int64)))
    with np.errstate(all="ignore"):
        mean = (_group_sums(work, axes) / count).astype(np.float32)
        d = (work - mean).astype(np.float32) if use_mean else work     # MVN2 UseMean FALSE: d = x
        y = d
        if int(normalize_variance):
            var = (_group_sums((d * d).astype(np.float32), axes) / count).astype(np.float32)
            den = np.sqrt((var + np.float32(epsilon)).astype(np.float32)).astype(np.float32)
            y = (d / den).astype(np.float32)
        if scale is not None:
            y = (y * np.broadcast_to(np.asarray(scale).astype(np.float32), y.shape)).astype(np.float32)
        if bias is not None:
            y = (y + np.broadcast_to(np.asarray(bias).astype(np.float32), y.shape)).astype(np.float32)
        if fused_add is not None:
            y = (y + np.asarray(fused_add).astype(np.float32)).astype(np.float32)
        y = _activation(canonicalize_nans(np.asarray(y, np.float32)), fused)
    with np.errstate(over="ignore"):   # a FLOAT16 overflow rounds to +-inf, as the kernel's does
        store = lambda a: (_nm.narrow_f16(canonicalize_nans(np.asarray(a, np.float32))).astype(np.float16)
                           if storage == np.float16 else canonicalize_nans(np.asarray(a, np.float32)))
        if statistics:
            return store(y), store(mean), store(var)
        return store(y)


@operator(name="MEAN_VARIANCE_NORMALIZATION1", keyword_attributes=("Axes", "NormalizeVariance", "Epsilon",
                                                                   "FusedActivation"))
def mean_variance_normalization1(x, scale=None, bias=None, Axes=(), NormalizeVariance=1, Epsilon=0.0,
                                 FusedActivation=None):
    """DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION1 (FusedActivation: None, a (name, attributes) pair or an object
    with .name and .attributes)."""
    return mean_variance_normalization(x, scale, bias, Axes, NormalizeVariance, Epsilon, FusedActivation)


@operator(name="MEAN_VARIANCE_NORMALIZATION2", keyword_attributes=("Axes", "UseMean", "UseVariance", "Epsilon",
                                                                   "FusedActivation"))
def mean_variance_normalization2(x, scale=None, bias=None, Axes=(), UseMean=1, UseVariance=1, Epsilon=0.0,
                                 FusedActivation=None):
    """DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION2: MVN1 with NormalizeVariance = UseVariance, and with UseMean FALSE
    d = x (no mean subtracted; var = the sum of x * x / N: RMS normalization)."""
    return mean_variance_normalization(x, scale, bias, Axes, UseVariance, Epsilon, FusedActivation,
                                       use_mean=bool(int(UseMean)))


def cross_channel_axes(cross_channel):
    """The axes DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION normalizes across: {C, H, W} (CrossChannel TRUE) or
    {H, W} (FALSE) of { N, C, H, W }."""
    return (1, 2, 3) if int(cross_channel) else (2, 3)


@operator(name="MEAN_VARIANCE_NORMALIZATION", keyword_attributes=("CrossChannel", "NormalizeVariance", "Epsilon",
                                                                  "FusedActivation"))
def mean_variance_normalization0(x, scale=None, bias=None, CrossChannel=0, NormalizeVariance=1, Epsilon=0.0,
                                 FusedActivation=None):
    """DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION: MVN1 across cross_channel_axes(CrossChannel)."""
    return mean_variance_normalization(x, scale, bias, cross_channel_axes(CrossChannel), NormalizeVariance, Epsilon,
                                       FusedActivation)


@operator(name="BATCH_NORMALIZATION_TRAINING", keyword_attributes=("Epsilon", "FusedActivation"))
def batch_normalization_training(x, scale, bias, fused_add=None, Epsilon=0.0, FusedActivation=None):
    """DML_OPERATOR_BATCH_NORMALIZATION_TRAINING: (output, mean, variance). MVN1 with NormalizeVariance across the
    dimensions where Scale's size is 1, FusedAdd added after Bias (rounded) and before the FusedActivation; the mean
    and the variance (S2 / N, before Epsilon) have Scale's shape."""
    axes = tuple(d for d, size in enumerate(np.shape(scale)) if size == 1)
    return mean_variance_normalization(x, scale, bias, axes, 1, Epsilon, FusedActivation, fused_add, True)


@operator(name="BATCH_NORMALIZATION", keyword_attributes=("Epsilon", "FusedActivation"), half_precision=True)
def batch_normalization(x, mean, variance, scale, bias, Epsilon=0.0, FusedActivation=None, half_precision=False):
    """DML_OPERATOR_BATCH_NORMALIZATION with given statistics, element by element (Mean, Variance, Scale and Bias
    broadcast to x's shape): den = sqrt(Variance + Epsilon), then (x - Mean) / den * Scale + Bias, each step rounded
    once in the working type (FLOAT16: FLOAT32, or FLOAT16 with half precision; Epsilon rounded to it), then the
    FusedActivation, then the one narrowing. Spatial changes nothing (validation only)."""
    x = np.asarray(x)
    w = Work(x.dtype, half_precision)
    m, v, s, b = (w.widen(np.broadcast_to(np.asarray(t), x.shape)) for t in (mean, variance, scale, bias))
    with np.errstate(all="ignore"):
        den = w.add(v, w.param(Epsilon))
        den = _nm.canonicalize(np.sqrt(np.asarray(den, w.dtype)).astype(w.dtype))   # IEEE sqrt: correctly rounded
        d = w.sub(w.widen(x), m)
        if w.half:     # a FLOAT16 quotient in float64 rounds once more, to FLOAT16: still the correctly rounded one
            y = _nm.narrow_f16(np.asarray(d, np.float64) / np.asarray(den, np.float64))
        else:
            y = _nm.canonicalize(np.asarray(d / den, w.dtype))
        y = w.add(w.mul(y, s), b)
        canonical = False
        if FusedActivation is not None:
            y, canonical = apply_activation(FusedActivation, y, w)
    return w.finish(y, canonical)


@operator(name="LP_NORMALIZATION", keyword_attributes=("Axis", "Epsilon", "P"))
def lp_normalization(x, Axis=0, Epsilon=0.0, P=2):
    """DML_OPERATOR_LP_NORMALIZATION: y = x / norm along Axis, each element one correctly rounded divide. The norm
    is S (P = 1: the sum of |x|) or sqrt(S) (P = 2: the sum of x * x, each product rounded; the square root
    correctly rounded), S in the reductions' order from -0; a norm below Epsilon is Epsilon (a NaN norm stays NaN).
    FLOAT16 works in FLOAT32 and rounds once."""
    x = np.asarray(x)
    work = x.astype(np.float32)
    axes = {int(Axis)}
    with np.errstate(all="ignore"):
        terms = np.abs(work) if int(P) == 1 else (work * work).astype(np.float32)
        norm = _group_sums(terms, axes)
        if int(P) != 1:
            norm = np.sqrt(norm).astype(np.float32)
        epsilon = np.float32(Epsilon)
        norm = np.where(norm < epsilon, epsilon, norm).astype(np.float32)
        y = canonicalize_nans((work / norm).astype(np.float32))
    with np.errstate(over="ignore"):
        return _nm.narrow_f16(y).astype(np.float16) if x.dtype == np.float16 else y


def _shifted(a, axis, offset):
    """a moved by `offset` along `axis` (out[i] = a[i + offset]), +0 where i + offset falls outside."""
    out = np.zeros_like(a)
    n = a.shape[axis]
    if abs(offset) >= n:
        return out
    src = [slice(None)] * a.ndim
    dst = [slice(None)] * a.ndim
    src[axis] = slice(max(0, offset), n + min(0, offset))
    dst[axis] = slice(max(0, -offset), n - max(0, offset))
    out[tuple(dst)] = a[tuple(src)]
    return out


@operator(name="LOCAL_RESPONSE_NORMALIZATION", keyword_attributes=("CrossChannel", "LocalSize", "Alpha", "Beta",
                                                                   "Bias"))
def local_response_normalization(x, CrossChannel=1, LocalSize=1, Alpha=1e-4, Beta=0.75, Bias=1.0):
    """DML_OPERATOR_LOCAL_RESPONSE_NORMALIZATION of a { N, C, H, W } array: the window of an element at c (h, w) is
    c - lo .. c + hi with lo = (LocalSize - 1) // 2 and hi = LocalSize - 1 - lo, clipped to the tensor (CrossChannel
    FALSE: rows h - lo .. h + hi, and in each the columns w - lo .. w + hi); S from -0 adds x * x (rounded) over it in
    ascending order (rows, then columns); base = Bias + (Alpha / LocalSize) * S, the ratio one FLOAT32 divide, then a
    multiply and an add each rounded; y = x / base^Beta, the power ELEMENT_WISE_CONSTANT_POW's own golden function,
    then one correctly rounded divide. A position outside the tensor adds nothing (adding +0 is the same bits here: x
    * x is never -0, and every window holds the element itself)."""
    x = np.asarray(x)
    work = x.astype(np.float32)
    size = int(LocalSize)
    lo = (size - 1) // 2
    with np.errstate(all="ignore"):
        square = (work * work).astype(np.float32)
        total = np.full(work.shape, -0.0, np.float32)
        # offsets past the tensor's extent would add +0 only: the loops stop at the extent (a LocalSize of 2^32 - 1
        # costs no more than the tensor's own size)
        offsets = lambda axis: range(max(-lo, 1 - work.shape[axis]), min(size - lo, work.shape[axis]))
        if int(CrossChannel):
            for d in offsets(1):
                total = (total + _shifted(square, 1, d)).astype(np.float32)
        else:
            for dh in offsets(2):
                row = _shifted(square, 2, dh)
                for dw in offsets(3):
                    total = (total + _shifted(row, 3, dw)).astype(np.float32)
        ratio = np.float32(np.float32(Alpha) / np.float32(size))
        base = ((total * ratio).astype(np.float32) + np.float32(Bias)).astype(np.float32)
        power = np.asarray(OPERATORS["ELEMENT_WISE_CONSTANT_POW"]([base], {"Exponent": np.float32(Beta)}, None, False,
                                                                  None), np.float32)
        y = canonicalize_nans((work / power).astype(np.float32))
    with np.errstate(over="ignore"):
        return _nm.narrow_f16(y).astype(np.float16) if x.dtype == np.float16 else y
