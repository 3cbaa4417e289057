"""SGEMM, C = A x B for N x N FLOAT32 matrices, in three steps of a ladder: naive, LDS tiles, register tiles.

    python examples/sgemm.py            N = 256
    python examples/sgemm.py 128        any multiple of 64

  examples/kernels/sgemm_naive.s     one thread per element of C, every operand from global memory
  examples/kernels/sgemm_tiled.s     16 x 16 tiles of A and B in LDS, barriers around their use
  examples/kernels/sgemm_regtile.s   64 x 64 blocks, each thread a 4 x 4 block of C from LDS tiles

All three compute every element of C as acc = fma(A[i][k], B[k][j], acc) for k = 0 .. N-1 in
ascending order, starting from 0.0, with v_fma_f32 (rounded once). The reference does the same
fused multiply-adds with dmlemu.isa.numerics.fused_multiply_add, the golden model's FMA (NumPy has
none: float32(float64(a) * float64(b) + float64(c)) rounds twice and differs in rare cases), so
C is compared bit for bit. Each kernel prints the emulated GPU cycles of its Dispatch and GFLOP/s at
the adapter's clock.
"""
import sys

import numpy as np

from compute_rig import ComputeRig
from dmlemu.isa.numerics import fused_multiply_add

LADDER = (("naive", "sgemm_naive", 16), ("LDS tiles 16 x 16", "sgemm_tiled", 16),
          ("LDS tiles + 4 x 4 per thread", "sgemm_regtile", 64))


def reference(a, b):
    """C in the kernels' order: for k ascending, C = fma(A[:, k], B[k, :], C) from C = 0.0."""
    c = np.zeros((a.shape[0], b.shape[1]), np.float32)
    for k in range(a.shape[1]):
        c = fused_multiply_add(a[:, k:k + 1], b[k:k + 1, :], c).astype(np.float32)
    return c


def sgemm(rig, kernel, block, a, b):
    """(A x B on the emulated GPU with examples/kernels/<kernel>.s, its Dispatch's cycles)."""
    n = a.shape[0]
    ta, tb, c = rig.upload(a), rig.upload(b), rig.output(a.nbytes)
    cycles = rig.dispatch(rig.pipeline(kernel), (n // block, n // block, 1), (n,), (ta, tb), c)
    return rig.read(c, np.float32, n * n).reshape(n, n), cycles


def main(argv):
    n = int(argv[0]) if argv else 256
    if n <= 0 or n % 64:
        raise SystemExit(f"N is {n}; it must be a positive multiple of 64")
    rng = np.random.default_rng(24)
    a = rng.standard_normal((n, n)).astype(np.float32)
    b = rng.standard_normal((n, n)).astype(np.float32)
    want = reference(a, b)
    rig = ComputeRig()
    print(f"SGEMM C = A x B, {n} x {n} x {n} FLOAT32 ({2 * n ** 3 / 1e6:.1f} MFLOP)")
    for label, kernel, block in LADDER:
        got, cycles = sgemm(rig, kernel, block, a, b)
        if not np.array_equal(got.view(np.uint32), want.view(np.uint32)):
            bad = int(np.count_nonzero(got.view(np.uint32) != want.view(np.uint32)))
            raise SystemExit(f"{label}: {bad} elements of C differ from the reference")
        gflops = 2 * n ** 3 / (cycles / rig.clock_hz) / 1e9
        print(f"  {label:<30} {rig.describe(cycles)}  {gflops:7.1f} GFLOP/s")
    print("all three are bit-exact against dmlemu.golden's fused multiply-add in ascending k "
          "(dmlemu.isa.numerics.fused_multiply_add).")


if __name__ == "__main__":
    main(sys.argv[1:])
