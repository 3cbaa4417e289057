"""CONVOLUTION, AVERAGE_POOLING and MAX_POOLING against the exact result: the ULP table of docs/NUMERICS.md
("Measured error of convolution and pooling").

For FLOAT32 and FLOAT16 tensors (standard normal and uniform [0, 1) values, a few seeds each) the error of
dmlemu's result (the golden model, which every kernel matches bit for bit: tests/directml/test_convolution*.py,
test_pooling*.py) in ULPs of the output type at the exact value, |result - exact| / ulp(exact), element by element.
The exact value is a float64 sum of the exact products (each product of two FLOAT32 or FLOAT16 values is exact in
float64, and their sum over at most 576 taps is within 2^-40 relative of exact: far below a FLOAT32 ULP); the exact
average that sum divided in float64. WebNN's conformance tests allow conv2d 2 x KH x KW x C / G ULP, averagePool
KH x KW + 2 and maxPool 0: the next columns give the bound and the worst error over it. Where a sum cancels
(normal data), the exact value is small next to its terms and its ULP tiny, so the last column measures the same
error in ULPs of the terms' size (sum |x w|; the average of |x|), as docs/NUMERICS.md's GEMM table does.

    .venv/bin/python bench/conv_pool_precision.py [--seeds 3]
"""
import argparse

import numpy as np

from dmlemu import golden

SIZE = 12           # the spatial size of every input (H = W)


def gap(values, dtype):
    """ulp(|values|) in `dtype`, element by element: the gap above it (the smallest subnormal gap at 0)."""
    above = np.spacing(np.abs(values).astype(dtype)).astype(np.float64)
    return np.where(values == 0, float(np.finfo(dtype).smallest_subnormal), above)


def windows(x, kh, kw, pad):
    """(N, C, OH, OW, KH, KW) float64 windows of x, zero-padded by `pad` on every side, stride 1."""
    padded = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    return np.lib.stride_tricks.sliding_window_view(padded, (kh, kw), axis=(2, 3))


def convolution(x, channels, kernels, groups, rng, data):
    dtype = x.dtype.type
    w = draw(rng, (kernels, channels // groups, 3, 3), data, dtype)
    attributes = {"Mode": 1, "Direction": 0, "Strides": (1, 1), "Dilations": (1, 1), "StartPadding": (1, 1),
                  "EndPadding": (1, 1), "OutputPadding": (0, 0), "GroupCount": groups}
    got = golden.run("CONVOLUTION", [x, w, None], attributes)
    win = windows(x, 3, 3, 1)                                     # (N, C, H, W, 3, 3)
    n, c, h, ww = win.shape[:4]
    win = win.reshape(n, groups, c // groups, h, ww, 3, 3)
    wg = w.astype(np.float64).reshape(groups, kernels // groups, c // groups, 3, 3)
    exact = np.einsum("ngchwij,gkcij->ngkhw", win, wg).reshape(n, kernels, h, ww)
    size = np.einsum("ngchwij,gkcij->ngkhw", np.abs(win), np.abs(wg)).reshape(n, kernels, h, ww)
    return got, exact, size, 2 * 9 * channels // groups


def average(x, rng, data):
    attributes = {"Strides": (1, 1), "WindowSize": (3, 3), "StartPadding": (0, 0), "EndPadding": (0, 0),
                  "IncludePadding": 0}
    win = windows(x, 3, 3, 0)
    return (golden.run("AVERAGE_POOLING", [x], attributes), win.sum(axis=(4, 5)) / 9, np.abs(win).sum(axis=(4, 5)) / 9,
            9 + 2)


def maximum(x, rng, data):
    attributes = {"Strides": (1, 1), "WindowSize": (3, 3), "StartPadding": (0, 0), "EndPadding": (0, 0)}
    exact = windows(x, 3, 3, 0).max(axis=(4, 5))
    return golden.run("MAX_POOLING", [x], attributes), exact, np.abs(exact), 0


def draw(rng, shape, data, dtype):
    values = rng.standard_normal(shape) if data == "normal" else rng.random(shape)
    return values.astype(dtype)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3)
    args = parser.parse_args(argv)
    cases = [("CONVOLUTION 3x3, C = K = 4", lambda x, rng, data: convolution(x, 4, 4, 1, rng, data), 4),
             ("CONVOLUTION 3x3, C = K = 64", lambda x, rng, data: convolution(x, 64, 64, 1, rng, data), 64),
             ("CONVOLUTION 3x3 depthwise, C = 64", lambda x, rng, data: convolution(x, 64, 64, 64, rng, data), 64),
             ("AVERAGE_POOLING 3x3", average, 8),
             ("MAX_POOLING 3x3", maximum, 8)]
    print("| operator | type | data | max ULP | mean ULP | bound (WebNN) | max ULP / bound | max error in ULPs of the "
          "terms' size |")
    print("|---|---|---|---|---|---|---|---|")
    for label, case, channels in cases:
        for dtype in (np.float32, np.float16):
            for data in ("normal", "uniform [0, 1)"):
                worst, total, count, scaled = 0.0, 0.0, 0, 0.0
                for seed in range(args.seeds):
                    rng = np.random.default_rng(seed)
                    x = draw(rng, (1, channels, SIZE, SIZE), data.split()[0], dtype)
                    got, exact, size, bound = case(x, rng, data.split()[0])
                    difference = np.abs(np.asarray(got, dtype=np.float64) - exact)
                    error = difference / gap(exact, dtype)
                    scaled = max(scaled, float((difference / gap(size, dtype)).max()))
                    worst, total, count = max(worst, float(error.max())), total + float(error.sum()), count + error.size
                ratio = "exact" if bound == 0 and worst == 0 else f"{worst / bound:.3g}" if bound else "inf"
                print(f"| {label} | {np.dtype(dtype).name.upper()} | {data} | {worst:.2f} | {total / count:.2f} | "
                      f"{bound} | {ratio} | {scaled:.2f} |")


if __name__ == "__main__":
    main()
