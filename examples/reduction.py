"""The sum of n FLOAT32 values: a block reduction per thread group, LDS tree then cross-lane butterflies.

    python examples/reduction.py            n = 1,048,576
    python examples/reduction.py 5000       any n >= 1

examples/kernels/reduction.s sums each group's 256 values in a fixed tree order into one partial sum;
the program dispatches it again on the partial sums until one value is left. Two ways to the same
bits: every step of the tree through LDS with a barrier between steps, or the LDS tree down to one
wave and then log2(wave width) register butterflies (v_mov_b32_xor). NumPy does the same additions
in the same order (numpy_tree_sum), so the sums are compared bit for bit; the emulated cycles of
every Dispatch are added up.
"""
import sys

import numpy as np

from compute_rig import ComputeRig

GROUP = 256


def symbols(wave, cross_lane):
    """Which steps of the tree go through LDS (LDS_<s>) and which through registers (XOR_<m>)."""
    smallest = wave if cross_lane else 1
    out = {f"LDS_{s}": int(s >= smallest) for s in (128, 64, 32, 16, 8, 4, 2, 1)}
    out.update({f"XOR_{m}": int(cross_lane and m < wave) for m in (32, 16, 8, 4, 2, 1)})
    return out


def gpu_sum(rig, x, cross_lane):
    """(the sum of x on the emulated GPU, the cycles of all its Dispatches, the number of passes)."""
    pipeline = rig.pipeline("reduction", symbols(rig.wave_width, cross_lane))
    values, cycles, passes = rig.upload(x.astype(np.float32), writable=True), 0, 0
    n = x.size
    while True:
        groups = -(-n // GROUP)
        partial = rig.output(groups * 4)
        cycles += rig.dispatch(pipeline, (groups, 1, 1), (n,), (values,), partial)
        passes += 1
        if groups == 1:
            return rig.read(partial, np.float32, 1)[0], cycles, passes
        values, n = partial, groups


def numpy_tree_sum(x):
    """The kernel's order in NumPy: blocks of 256 (zero-padded), each halved: a[:s] + a[s:2s] for
    s = 128 .. 1; repeated on the block sums until one is left (FLOAT32 additions throughout)."""
    a = x.astype(np.float32)
    while True:
        blocks = np.zeros(-(-a.size // GROUP) * GROUP, np.float32)
        blocks[:a.size] = a
        blocks = blocks.reshape(-1, GROUP)
        s = GROUP // 2
        while s >= 1:
            blocks = blocks[:, :s] + blocks[:, s:2 * s]
            s //= 2
        a = blocks[:, 0]
        if a.size == 1:
            return a[0]


def main(argv):
    n = int(argv[0]) if argv else 1 << 20
    if n < 1:
        raise SystemExit(f"n is {n}; it must be at least 1")
    rng = np.random.default_rng(24)
    x = rng.standard_normal(n).astype(np.float32)
    want = numpy_tree_sum(x)
    rig = ComputeRig()
    print(f"sum of {n} FLOAT32 values, groups of {GROUP}, waves of {rig.wave_width} lanes")
    print(f"  NumPy in the kernel's tree order: {want!s}   (np.sum's own order: {np.sum(x)!s}; "
          f"in float64: {np.sum(x, dtype=np.float64):.7f})")
    for cross_lane, label in ((False, "LDS tree, all 8 steps"), (True, "LDS tree to one wave + butterflies")):
        got, cycles, passes = gpu_sum(rig, x, cross_lane)
        if np.float32(got).view(np.uint32) != np.float32(want).view(np.uint32):
            raise SystemExit(f"{label}: {got} differs from NumPy's {want}")
        print(f"  {label:<36} {got!s:>12}  {passes} passes, {rig.describe(cycles)}")
    print("both sums are bit-exact against dmlemu.golden's FLOAT32 addition in the kernel's order (NumPy).")


if __name__ == "__main__":
    main(sys.argv[1:])
