"""A 256-bin histogram with atomics, through global atomics alone and through per-group LDS histograms.

    python examples/histogram.py            n = 1,048,576 UINT8 values (a skewed distribution)
    python examples/histogram.py 10000      any n >= 1

The kernel is examples/kernels/histogram.s, assembled four ways: UINT8 or UINT32 values (bin = value
& 255), global atomics only (PRIVATE 0) or an LDS histogram per group added to the global bins at the
end (PRIVATE 1). Every result is checked bit for bit against numpy.bincount, and each prints the
emulated GPU cycles of its Dispatch (timestamp queries).
"""
import sys

import numpy as np

from compute_rig import ComputeRig

GROUP, BINS, PER_THREAD = 256, 256, 16


def histogram(rig, values, private):
    """(the 256 bins counted on the emulated GPU, the Dispatch's cycles)."""
    n = values.size
    source = rig.upload(values)
    bins = rig.output(BINS * 4)
    pipeline = rig.pipeline("histogram", {"PRIVATE": int(private), "ELEMENT_BYTES": values.itemsize})
    groups = -(-n // (GROUP * PER_THREAD))
    cycles = rig.dispatch(pipeline, (groups, 1, 1), (n, PER_THREAD), (source,), bins)
    return rig.read(bins, np.uint32, BINS), cycles


def main(argv):
    n = int(argv[0]) if argv else 1 << 20
    if n < 1:
        raise SystemExit(f"n is {n}; it must be at least 1")
    rng = np.random.default_rng(24)
    # A skewed distribution (most values near 128) so that many lanes add to the same bins at once.
    values8 = np.clip(rng.normal(128, 24, n), 0, 255).astype(np.uint8)
    values32 = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    rig = ComputeRig()
    print(f"histogram of {n} values into {BINS} bins, {-(-n // (GROUP * PER_THREAD))} groups of {GROUP} threads, "
          f"{PER_THREAD} values per thread")
    for values, name in ((values8, "UINT8"), (values32, "UINT32 (bin = value & 255)")):
        want = np.bincount(values & 255, minlength=BINS).astype(np.uint32)
        print(f"  {name}:")
        for private, label in ((False, "global atomics"), (True, "LDS histogram per group")):
            got, cycles = histogram(rig, values, private)
            if not np.array_equal(got, want):
                raise SystemExit(f"{name}, {label}: differs from numpy.bincount")
            print(f"    {label:<28} {rig.describe(cycles)}")
    print("every histogram is bit-exact against dmlemu.golden's rule for counting (numpy.bincount).")


if __name__ == "__main__":
    main(sys.argv[1:])
