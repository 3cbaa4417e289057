"""DML_OPERATOR_GEMM in the order docs/NUMERICS.md ("GEMM") fixes, vectorised over (batch, m, n).

Output = Alpha * (TransA(A) x TransB(B)) + Beta * C: every output element starts from -0 and takes
acc = fma(A[m, k], B[k, n], acc) for k = 0 .. K-1 in ascending order, rounded once each (FLOAT32; FLOAT16 inputs
are widened, exactly); then acc = Alpha * acc, rounded; then, where C is given, fma(Beta, C[m, n], acc), rounded
once; then the FusedActivation, where given, as the activation operator computes FLOAT32 (its own golden
function); FLOAT16 rounds once more, at the end. NaN results are canonical. This module follows that text, not the
kernel: it never assembles or runs anything. One fused multiply-add per k over every (batch, m, n) lane at once
(dmlemu.isa.numerics.fused_multiply_add: NumPy has no FMA), K NumPy calls in all.
"""
import numpy as np

from dmlemu.golden.numbers import canonicalize_nans
from dmlemu.golden.registry import OPERATORS, operator
from dmlemu.isa import numerics as _nm   # primitives only (the FMA, FLOAT16 narrowing); the ISA is never run


@operator(name="GEMM", keyword_attributes=("TransA", "TransB", "Alpha", "Beta", "FusedActivation"))
def gemm(a, b, c=None, TransA=0, TransB=0, Alpha=1.0, Beta=1.0, FusedActivation=None):
    """Output of GEMM on arrays of shape (.., M, K) and (.., K, N) (TransA / TransB: (.., K, M), (.., N, K)) and an
    optional C of the output's shape; the leading (batch) dimensions are the output's (a broadcast one holds
    the same values along it). FusedActivation: None, a (name, attributes) pair or an object with .name and
    .attributes (validation's FusedActivation), the name with or without DML_OPERATOR_."""
    storage = np.result_type(a.dtype, b.dtype)
    work = lambda x: np.asarray(x).astype(np.float32)
    a, b = work(a), work(b)
    if int(TransA):
        a = np.swapaxes(a, -1, -2)
    if int(TransB):
        b = np.swapaxes(b, -1, -2)
    shape = np.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + (a.shape[-2], b.shape[-1])
    a = np.broadcast_to(a, shape[:-2] + a.shape[-2:])
    b = np.broadcast_to(b, shape[:-2] + b.shape[-2:])
    acc = np.full(shape, -0.0, dtype=np.float32)      # -0: the identity of addition
    with np.errstate(all="ignore"):
        for k in range(a.shape[-1]):
            acc = _nm.fused_multiply_add(a[..., :, k:k + 1], b[..., k:k + 1, :], acc).astype(np.float32)
        acc = canonicalize_nans(acc * np.float32(Alpha))
        if c is not None:
            cw = np.broadcast_to(work(c), shape)
            acc = _nm.fused_multiply_add(np.full(shape, np.float32(Beta), np.float32), cw, acc).astype(np.float32)
        acc = canonicalize_nans(np.array(acc, dtype=np.float32))
        if FusedActivation is not None:
            name, fields = (FusedActivation if isinstance(FusedActivation, tuple)
                            else (FusedActivation.name, FusedActivation.attributes))
            name = str(name).removeprefix("DML_OPERATOR_")
            acc = np.asarray(OPERATORS[name]([acc], dict(fields or {}), None, False, None), dtype=np.float32)
    return _nm.narrow_f16(acc) if storage == np.float16 else acc
