"""Matrix transpose of an N x N FLOAT32 matrix, naive and through an LDS tile, as D3D12 compute shaders.

    python examples/transpose.py            N = 2048
    python examples/transpose.py 256        any multiple of 32

A packed copy of the same bytes first (the bound: what moving the matrix costs without transposing), then
three kernels, one result (checked bit for bit against numpy's .T, a transpose moves bits unchanged):
  examples/kernels/transpose_naive.s   reads rows, writes columns (every write its own request)
  examples/kernels/transpose_tiled.s   with STRIDE 32: a 32 x 32 LDS tile, coalesced writes, but the
                                       column read from LDS hits one bank 32 times (32 passes)
                                       with STRIDE 33: the same, padded one dword per row: no conflict
Each prints its emulated time: the GPU cycles between two timestamp queries around the Dispatch on
the default adapter (docs/WORKGROUPS.md explains the numbers).
"""
import sys

import numpy as np

from compute_rig import ComputeRig

TILE = 32
VARIANTS = (("packed copy (not a transpose: the bound)", "transpose_naive", {"COPY": 1}),
            ("naive", "transpose_naive", {"COPY": 0}),
            ("LDS tile, stride 32 (bank conflicts)", "transpose_tiled", {"STRIDE": 32}),
            ("LDS tile, stride 33 (padded)", "transpose_tiled", {"STRIDE": 33}))


def transpose(rig, kernel, symbols, matrix, runs=1):
    """(matrix transposed on the emulated GPU, the cycles of each of `runs` Dispatches). On a fresh device
    the first run finds the matrix only in memory (cold: just uploaded); a second finds it in the caches
    the first filled (warm, as after a benchmark's warm-up)."""
    n = matrix.shape[0]
    source = rig.upload(matrix.astype(np.float32))
    target = rig.output(matrix.nbytes)
    pipeline = rig.pipeline(kernel, symbols)
    cycles = [rig.dispatch(pipeline, (n // TILE, n // TILE, 1), (n,), (source,), target) for _ in range(runs)]
    return rig.read(target, np.float32, n * n).reshape(n, n), cycles if runs > 1 else cycles[0]


def main(argv):
    n = int(argv[0]) if argv else 2048
    if n <= 0 or n % TILE:
        raise SystemExit(f"N is {n}; it must be a positive multiple of {TILE}")
    rng = np.random.default_rng(24)
    matrix = rng.standard_normal((n, n)).astype(np.float32)
    want = np.ascontiguousarray(matrix.T)
    rig = ComputeRig()
    print(f"transpose of a {n} x {n} FLOAT32 matrix ({matrix.nbytes >> 10} KiB) in {(n // TILE) ** 2} groups "
          f"of {TILE} x {TILE} threads")
    copy = None
    print(f"  {'':<41} {'cold (first run)':>19} {'':>8} {'warm (second run)':>18}")
    for label, kernel, symbols in VARIANTS:
        rig = ComputeRig()         # a fresh device: nothing of the last variant's in its caches
        got, (cold, warm) = transpose(rig, kernel, symbols, matrix, runs=2)
        expected = matrix if symbols.get("COPY") else want
        if not np.array_equal(got.view(np.uint32), expected.view(np.uint32)):
            raise SystemExit(f"{label}: differs from numpy's {'copy' if symbols.get('COPY') else 'transpose'}")
        copy = copy or (cold, warm)
        print(f"  {label:<41} {cold:10d} cycles {cold / copy[0]:5.2f}x {warm:10d} cycles {warm / copy[1]:5.2f}x")
    print(f"  (x: times the packed copy's cycles, cold and warm; the GPU clock is {rig.clock_hz / 1e9:.2f} GHz)")
    print("all three are bit-exact against dmlemu.golden's rule for a transpose (numpy's .T: bits moved, none changed).")


if __name__ == "__main__":
    main(sys.argv[1:])
