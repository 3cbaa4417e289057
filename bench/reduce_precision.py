"""REDUCE SUM and AVERAGE against the exact result: the ULP table of docs/NUMERICS.md ("Reductions").

For FLOAT32 and FLOAT16 inputs of N elements (one output; standard normal and uniform [0, 1) values, a few seeds
each) the error of dmlemu's result (the golden model, which the kernel matches bit for bit:
tests/directml/test_reduce.py; `--kernel` runs the kernel too for N <= 2^16) in ULPs of the output type at
the exact value: |result - exact| / ulp(exact), the exact sum from math.fsum over the float64 values (correctly
rounded to float64, 2^-29 of a FLOAT32 ULP), the exact average that sum divided by N in float64. WebNN's
conformance tests allow reduceSum N ULPs; the last column is the worst error over N.

    .venv/bin/python bench/reduce_precision.py [--seeds 5] [--kernel]
"""
import argparse
import math

import numpy as np

from dmlemu import golden
from dmlemu.golden.reduce import FUNCTIONS


def ulp(value, dtype):
    """The ULP of `value` in `dtype` (the gap above |value|; the smallest subnormal gap at 0)."""
    value = abs(dtype(value))
    if not np.isfinite(value):
        return float("nan")
    return float(np.spacing(value)) if value else float(np.finfo(dtype).smallest_subnormal)


def ulp_error(result, exact, dtype):
    return abs(float(result) - exact) / ulp(exact, dtype)


def kernel_result(x, function):
    from dmlemu.direct_run import DirectRun
    from dmlemu.gpu import Gpu
    from dmlemu.kernels.driver import TensorSpec
    from dmlemu.presets import DEFAULT_PRESET
    name = {np.float32: "FLOAT32", np.float16: "FLOAT16"}[x.dtype.type]
    gpu = Gpu(DEFAULT_PRESET, timing=False)
    specs = [TensorSpec(name, x.shape, None, x.nbytes), TensorSpec(name, (1,), None, 4)]
    run = DirectRun(gpu, "REDUCE", specs, [x.view(np.uint8), np.zeros(4, np.uint8)],
                    attributes={"Function": FUNCTIONS.index(function), "Axes": (0,)})
    run.dispatch()
    return run.output_bytes(1)[:x.itemsize].view(x.dtype)[0]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--kernel", action="store_true")
    args = parser.parse_args()
    print("| function | type | N | data | max ULP | mean ULP | max ULP / N |")
    print("|---|---|---|---|---|---|---|")
    for function in ("SUM", "AVERAGE"):
        for dtype in (np.float32, np.float16):
            for log2 in (6, 10, 16, 20):
                n = 1 << log2
                if dtype == np.float16 and log2 > 16:
                    continue          # a FLOAT16 sum of 2^20 normal values is fine, but uniform ones overflow
                for data in ("normal", "uniform"):
                    errors = []
                    for seed in range(args.seeds):
                        rng = np.random.default_rng(seed)
                        x = (rng.standard_normal(n) if data == "normal" else rng.random(n)).astype(dtype)
                        exact = math.fsum(x.astype(np.float64).tolist())
                        if function == "AVERAGE":
                            exact /= n
                        got = golden.run("REDUCE", [x], {"Function": FUNCTIONS.index(function), "Axes": (0,)})[0]
                        if args.kernel and n <= 1 << 16:
                            assert kernel_result(x, function).tobytes() == got.tobytes()
                        errors.append(ulp_error(got, exact, dtype))
                    print(f"| {function} | {np.dtype(dtype).name.upper()} | 2^{log2} | {data} | {max(errors):.2f} | "
                          f"{np.mean(errors):.2f} | {max(errors) / n:.2g} |")


if __name__ == "__main__":
    main()
