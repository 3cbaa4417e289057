"""Benchmark: the fused multiply-add instructions' semantics, NumPy reference against the compiled kernel.

For float16, float32 and float64 (v_fma_f16, v_fma_f32, v_fma_f64): nanoseconds per lane of
numerics.fused_multiply_add_reference / fused_multiply_add_f64_reference and of the compiled path
(isa/fma_compiled.pyx through numerics.fused_multiply_add / fused_multiply_add_f64), over operands of
2^20 lanes shaped as the executor passes them (waves x 64 lanes), and their ratio (target:
at least 20x). The operands are random finite values of each type (seeded); both paths' outputs are
compared bit for bit. The last row broadcasts c from one value per wave (a scalar register operand).
Each time is the best of --repeat runs.

    .venv/bin/python bench/bench_fma.py [--log2 20] [--repeat 5] [--width 64]
"""
import argparse
import time

import numpy as np

from dmlemu.isa import numerics as nm

TARGET_RATIO = 20.0
# (type, reference, compiled path, whether c is one value per wave: shape (waves, 1), a scalar register)
CASES = ((np.float16, nm.fused_multiply_add_reference, nm.fused_multiply_add, False),
         (np.float32, nm.fused_multiply_add_reference, nm.fused_multiply_add, False),
         (np.float64, nm.fused_multiply_add_f64_reference, nm.fused_multiply_add_f64, False),
         (np.float32, nm.fused_multiply_add_reference, nm.fused_multiply_add, True))


def _best(fn, args, repeat):
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn(*args)
        best = min(best, time.perf_counter() - start)
    return best, out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--log2", type=int, default=20, help="lanes = 2^LOG2 (default 20)")
    parser.add_argument("--repeat", type=int, default=5, help="runs per measurement; the best is kept (default 5)")
    parser.add_argument("--width", type=int, default=64, help="lanes per wave: operands are (2^LOG2 / WIDTH, WIDTH)")
    args = parser.parse_args(argv)
    if nm.compiled_fma() is None:
        raise SystemExit("the compiled fused multiply-add is not available here (not built, stale, or "
                         "DMLEMU_NUMERICS=reference); build it with `make` or `pip install -e .`")
    lanes = 1 << args.log2
    shape = (lanes // args.width, args.width)
    rng = np.random.default_rng(24)
    print(f"fused multiply-add, {lanes} lanes as {shape}: ns per lane (best of {args.repeat})")
    print(f"{'type':16} {'reference':>10} {'compiled':>10} {'ratio':>8}  target >= {TARGET_RATIO:.0f}x")
    worst = float("inf")
    for dtype, reference, fast, per_wave_c in CASES:
        # Finite operands spread over the type's exponents: random magnitudes times random signs.
        a, b, c = (rng.standard_normal(shape) * np.exp2(rng.integers(-8, 8, size=shape)) for _ in range(3))
        a, b, c = (x.astype(dtype) for x in (a, b, c))
        if per_wave_c:
            c = np.ascontiguousarray(c[:, :1])
        reference_s, expected = _best(reference, (a, b, c), args.repeat)
        fast_s, got = _best(fast, (a, b, c), args.repeat)
        uint = nm.UINT_OF[np.dtype(dtype)]
        assert np.array_equal(np.asarray(expected).view(uint), np.asarray(got).view(uint)), dtype
        ratio = reference_s / fast_s
        worst = min(worst, ratio)
        name = np.dtype(dtype).name + (", c (W, 1)" if per_wave_c else "")
        print(f"{name:16} {reference_s / lanes * 1e9:10.2f} {fast_s / lanes * 1e9:10.2f} "
              f"{ratio:7.1f}x  {'ok' if ratio >= TARGET_RATIO else 'BELOW TARGET'}")
    print(f"smallest ratio {worst:.1f}x (outputs identical bit for bit)")


if __name__ == "__main__":
    main()
