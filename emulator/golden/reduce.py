"""DML_OPERATOR_REDUCE in the order docs/NUMERICS.md ("Reductions") fixes, vectorised over the outputs.

Each output element reduces the N input elements that share its kept coordinates; k numbers them in the
row-major order of the reduced axes (the last reduced axis fastest). L virtual threads (L the smallest power
of two from 64 to 1024 with N <= 64 L, else 1024) take k = t, t + L, t + 2L, ... in ascending order from the
function's identity; then a fixed tree combines thread t with thread t + s for s = L/2, ..., 2, 1. Above
CHUNK = 16384 elements every function but ARGMAX, ARGMIN and LOG_SUM_EXP cuts the N elements into chunks of
CHUNK, reduces each so with L = 256 and then the chunks' results so, with L = 256 again (the kernel keeps one level for 64-bit
integers, whose wrapping results do not depend on the order). FLOAT16 works in FLOAT32 and rounds once at the
end; integers wrap; NaN results are canonical. This module follows that text, not the kernel: it never
assembles or runs anything.

The thread loop is one NumPy reduction over the middle axis of a (outputs, N / 64, 64) array: NumPy reduces a
non-contiguous axis element after element into the 64 accumulators (pairwise summation is used only along the
contiguous axis), which is exactly the threads' ascending order; its `initial` is the thread's identity (without
it NumPy starts from +0, and a sum of -0s would come out +0). MIN and MAX need no order: minNum / maxNum
with -0 < +0 and NaN skipped are associative and commutative, so any order gives the kernel's bits.
"""
import numpy as np

from dmlemu.golden.numbers import DATA_TYPES, canonicalize_nans
from dmlemu.golden.registry import operator
from dmlemu.isa import numerics as _nm   # primitives only (FLOAT16 narrowing); the ISA is never run

LN2 = 0.693147182464599609375     # ln 2 rounded to FLOAT32 (0x3F317218)
LOG2E = 1.44269502162933349609375  # log2 e rounded to FLOAT32 (0x3FB8AA3B)


def lanes_for(count):
    """L: the smallest power of two from 64 to 1024 with count <= 64 L, else 1024."""
    lanes = 64
    while lanes < 1024 and count > 64 * lanes:
        lanes *= 2
    return lanes

CHUNK_LANES = 256                  # a row of N > CHUNK elements splits into chunks of CHUNK ...
CHUNK = 64 * CHUNK_LANES           # ... each reduced by CHUNK_LANES threads (SUM, AVERAGE, MULTIPLY, SUM_SQUARE,
                                   # L1, L2, LOG_SUM; MIN and MAX too, whose result has no order)

FUNCTIONS = ("ARGMAX", "ARGMIN", "AVERAGE", "L1", "L2", "LOG_SUM", "LOG_SUM_EXP", "MAX", "MIN", "MULTIPLY", "SUM",
             "SUM_SQUARE")     # DML_REDUCE_FUNCTION values 0 .. 11


def _function_name(function):
    if isinstance(function, str):
        return function.removeprefix("DML_REDUCE_FUNCTION_")
    return FUNCTIONS[int(function)]


def _rows(x, axes):
    """(x as (outputs, N), output shape): kept axes first in their order, then the reduced ones."""
    kept = [d for d in range(x.ndim) if d not in axes]
    reduced = [d for d in range(x.ndim) if d in axes]
    shape = tuple(1 if d in axes else s for d, s in enumerate(x.shape))
    outputs = int(np.prod([x.shape[d] for d in kept], dtype=np.int64))
    return np.transpose(x, kept + reduced).reshape(outputs, -1), shape


def _threads(rows, identity, lanes):
    """(outputs, N / L rounded up, L): element k of a row at [k // L, k % L]; the tail is `identity`."""
    outputs, count = rows.shape
    steps = max(1, -(-count // lanes))
    if steps * lanes == count:
        return rows.reshape(outputs, steps, lanes)      # no tail: a view
    padded = np.full((outputs, steps * lanes), identity, dtype=rows.dtype)
    padded[:, :count] = rows
    return padded.reshape(outputs, steps, lanes)


def _tree(partials, combine):
    """The fixed tree over the L thread results: (t, t + L/2), then (t, t + L/4), ... ."""
    width = partials.shape[1]
    while width > 1:
        width //= 2
        partials = combine(partials[:, :width], partials[:, width:2 * width])
    return partials[:, 0]


def _one_workgroup(rows, identity, add, lanes):
    """Each row by L = `lanes` threads (k = t, t + L, ... ascending, from the identity), then the tree."""
    partials = add.reduce(_threads(rows, identity, lanes), axis=1, dtype=rows.dtype,
                          initial=rows.dtype.type(identity))   # each thread from its identity, ascending k
    return _tree(partials, add)


def _sum(rows, identity, add, chunked=False):
    """The order of the threads and the tree; `chunked` (the functions that split): a row of N > CHUNK
    elements is cut into G = ceil(N / CHUNK) chunks of CHUNK consecutive k (the last one shorter), each reduced
    by CHUNK_LANES threads and the tree into a partial; the G partials are then reduced as a row of G, by
    CHUNK_LANES threads too (whatever G: the last chunk's workgroup reduces them)."""
    outputs, count = rows.shape
    with np.errstate(all="ignore"):
        if not chunked or count <= CHUNK:
            return _one_workgroup(rows, identity, add, lanes_for(count))
        chunks = -(-count // CHUNK)
        padded = rows
        if chunks * CHUNK != count:      # the last chunk's missing elements: the identity, which changes nothing
            padded = np.full((outputs, chunks * CHUNK), identity, dtype=rows.dtype)
            padded[:, :count] = rows
        partials = _one_workgroup(padded.reshape(outputs * chunks, CHUNK), identity, add, CHUNK_LANES)
        return _one_workgroup(partials.reshape(outputs, chunks), identity, add, CHUNK_LANES)


def _min_max(rows, is_min):
    """minNum / maxNum over each row: NaNs skipped (all NaN: canonical NaN), -0 < +0."""
    if rows.dtype.kind in "iu":
        return rows.min(axis=1) if is_min else rows.max(axis=1)
    nan = np.isnan(rows)
    fill = np.inf if is_min else -np.inf
    values = np.where(nan, fill, rows).astype(rows.dtype)
    best = values.min(axis=1) if is_min else values.max(axis=1)
    zero = best == 0       # the sign of a zero result: min takes -0 if any, max takes +0 if any
    if zero.any():
        sign = np.signbit(values) & (values == 0)
        plus = ~np.signbit(values) & (values == 0)
        negative = sign.any(axis=1) if is_min else ~plus.any(axis=1)
        best = np.where(zero, np.where(negative, rows.dtype.type(-0.0), rows.dtype.type(0.0)), best)
    best = np.where(nan.all(axis=1), rows.dtype.type(np.nan), best).astype(rows.dtype)
    return best


def _arg(rows, is_min, last=False):
    """The index of the best value of each row: NaN skipped, the first on a tie (-0 == +0; `last`: the last), 0
    when every element is NaN. The pair order ((value, index) better) is total, so the threads and the tree give
    this in any order."""
    nan = np.isnan(rows) if rows.dtype.kind == "f" else np.zeros(rows.shape, bool)
    if rows.dtype.kind == "f":
        fill = np.inf if is_min else -np.inf
        best = (np.where(nan, fill, rows).min(axis=1) if is_min else np.where(nan, fill, rows).max(axis=1))
    else:
        best = rows.min(axis=1) if is_min else rows.max(axis=1)
    hits = (rows == best[:, None]) & ~nan
    if last:
        found = hits.any(axis=1)
        return np.where(found, rows.shape[1] - 1 - np.argmax(hits[:, ::-1], axis=1), 0)
    return np.argmax(hits, axis=1)           # the first True; 0 when there is none


def _index_type(output_type):
    return np.dtype(DATA_TYPES[output_type] if isinstance(output_type, str) else (output_type or np.uint32))


def _arg_operator(x, axes, is_min, last, output_type):
    x = np.asarray(x)
    rows, shape = _rows(x.astype(np.float32) if x.dtype == np.float16 else x, {int(a) for a in axes})
    return _arg(rows, is_min, last).astype(_index_type(output_type)).reshape(shape)


@operator(name="ARGMAX", keyword_attributes=("Axes", "AxisDirection"), output_type=True)
def argmax(x, Axes=(), AxisDirection=0, output_type=None):
    """DML_OPERATOR_ARGMAX: the index of the largest value (AxisDirection 1, DECREASING: the last of equals)."""
    return _arg_operator(x, Axes, False, int(AxisDirection) == 1, output_type)


@operator(name="ARGMIN", keyword_attributes=("Axes", "AxisDirection"), output_type=True)
def argmin(x, Axes=(), AxisDirection=0, output_type=None):
    """DML_OPERATOR_ARGMIN: the index of the smallest value (AxisDirection 1, DECREASING: the last of equals)."""
    return _arg_operator(x, Axes, True, int(AxisDirection) == 1, output_type)


def _log_sum_exp(rows, storage, shape):
    """M = maxNum of the row; S = the sum (threads, then the tree) of 2^((x - M) * log2 e), each step rounded;
    log2(S) * ln 2 + M, each step rounded; M itself where M is not finite (+-inf, or NaN: every element NaN)."""
    with np.errstate(all="ignore"):
        m = _min_max(rows, False)
        d = (rows - m[:, None]) * np.float32(LOG2E)              # two roundings, as the kernel's
        e = _nm.exp2(np.asarray(d, np.float32), np.float32)
        total = _sum(np.asarray(e, np.float32), np.float32(-0.0), np.add)
        result = _nm.log2(np.asarray(total, np.float32), np.float32) * np.float32(LN2) + m
        result = np.where(np.isfinite(m), result, m).astype(np.float32)
    result = canonicalize_nans(result)
    with np.errstate(over="ignore"):      # a FLOAT16 overflow rounds to +-inf, as the kernel's does
        result = _nm.narrow_f16(result) if storage == np.float16 else result
    return result.astype(storage).reshape(shape)


@operator(name="REDUCE", keyword_attributes=("Function", "Axes"), output_type=True)
def reduce(x, Function=10, Axes=(), output_type=None):
    """DML_OPERATOR_REDUCE: `x` of the input's shape; the output keeps the rank, reduced axes of size 1.
    `output_type`: ARGMAX / ARGMIN's index type (a data type name or NumPy dtype; default UINT32)."""
    x = np.asarray(x)
    name = _function_name(Function)
    axes = {int(a) for a in Axes}
    storage = x.dtype
    is_float = storage.kind == "f"
    work = x.astype(np.float32) if storage == np.float16 else x
    rows, shape = _rows(work, axes)
    count = rows.shape[1]
    if name in ("ARGMAX", "ARGMIN"):
        return _arg(rows, name == "ARGMIN").astype(_index_type(output_type)).reshape(shape)
    if name in ("MAX", "MIN"):
        result = _min_max(rows, name == "MIN")
    elif not is_float:
        if name == "SUM":                        # (integers wrap: any order gives the same bits)
            result = _sum(rows, 0, np.add, True)
        elif name == "MULTIPLY":
            result = _sum(rows, 1, np.multiply, True)
        elif name == "L1":                       # |x| wraps for the least signed integer, as max(x, 0 - x)
            result = _sum(np.abs(rows) if rows.dtype.kind == "i" else rows, 0, np.add, True)
        elif name == "SUM_SQUARE":
            result = _sum(rows * rows, 0, np.add, True)
        else:
            raise NotImplementedError(f"the golden REDUCE has no {name} for {storage}")
    else:
        with np.errstate(all="ignore"):
            if name in ("SUM", "AVERAGE", "LOG_SUM"):
                terms = rows
            elif name in ("SUM_SQUARE", "L2"):
                terms = rows * rows                  # rounded, then added (not fused)
            elif name == "L1":
                terms = np.abs(rows)
            elif name == "MULTIPLY":
                terms = None
            elif name == "LOG_SUM_EXP":
                return _log_sum_exp(rows, storage, shape)
            else:
                raise NotImplementedError(f"the golden REDUCE has no {name} yet")
            if terms is None:
                result = _sum(rows, np.float32(1.0), np.multiply, True)
            else:
                result = _sum(terms, np.float32(-0.0), np.add, True)     # -0: the identity of addition
            if name == "AVERAGE":
                result = result / np.float32(count)              # one correctly rounded divide (IEEE)
            elif name == "L2":
                result = np.sqrt(result)                         # correctly rounded (IEEE)
            elif name == "LOG_SUM":                              # log2 rounded once, then times ln 2 rounded
                result = _nm.log2(np.asarray(result, np.float32), np.float32) * np.float32(LN2)
    result = np.asarray(result)
    if is_float:
        result = canonicalize_nans(result.astype(np.float32))
        with np.errstate(over="ignore"):  # a FLOAT16 overflow rounds to +-inf, as the kernel's does
            result = _nm.narrow_f16(result) if storage == np.float16 else result
    return result.astype(storage).reshape(shape)
