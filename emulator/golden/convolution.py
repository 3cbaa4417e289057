"""DML_OPERATOR_CONVOLUTION in the order docs/NUMERICS.md ("Convolution") fixes, vectorised over the output.

Every output element (n, k, o) of a FORWARD convolution starts from -0 and takes acc = fma(x, w, acc) rounded once
for its input channels c = 0 .. C/G - 1 of group g = k // (K / G) in ascending order and, inside each channel, for
its window taps t = (t_d, t_h, t_w) in row-major ascending order (the last spatial dimension fastest), the tap
reading the input at i = o * Strides - StartPadding + t * Dilations and the filter at t (CROSS_CORRELATION) or at
W - 1 - t (CONVOLUTION: the filter flipped along every spatial dimension). A tap whose i falls in the padding is
skipped: no fma(0, w, acc), so padding never turns a -0 into +0 nor a NaN weight into a NaN. Then, where BiasTensor
is given, acc = acc + bias[k] (one rounded add); then the FusedActivation, as that activation operator computes
FLOAT32 (its own golden function); FLOAT16 tensors are widened (exact), accumulate in FLOAT32 and round once, at
the end. NaN results are canonical.

BACKWARD (transposed convolution, ONNX ConvTranspose) gathers the same way: the output element (n, k, o) takes,
for its channels c ascending and taps t ascending, the input at i = (o + StartPadding - t * Dilations) / Strides
where that is a whole number inside the input, and the filter { C, K / G, .. } at (c, k mod K/G, t)
(CONVOLUTION mode: W - 1 - t; the mode interactions table of the page: BACKWARD flips the filter of the forward
CROSS_CORRELATION, so CROSS_CORRELATION BACKWARD is ConvTranspose as written). OutputPadding rows at the end of
the output have no tap and hold the bias alone.

This module follows that text, not the kernel: it never assembles or runs anything. One fused multiply-add per
(channel, tap) over every output element at once (dmlemu.isa.numerics.fused_multiply_add: NumPy has no FMA).
"""
import itertools

import numpy as np

from dmlemu.golden.numbers import canonicalize_nans
from dmlemu.golden.registry import OPERATORS, operator
from dmlemu.isa import numerics as _nm   # primitives only (the FMA, FLOAT16 narrowing); the ISA is never run

__all__ = ["convolution", "fused_activation"]


def fused_activation(acc, FusedActivation):
    """The FusedActivation (None, a (name, attributes) pair or validation's FusedActivation) of FLOAT32 `acc`, as the
    activation operator computes FLOAT32 (its own golden function)."""
    if FusedActivation is None:
        return acc
    name, fields = (FusedActivation if isinstance(FusedActivation, tuple)
                    else (FusedActivation.name, FusedActivation.attributes))
    name = str(name).removeprefix("DML_OPERATOR_")
    return np.asarray(OPERATORS[name]([acc], dict(fields or {}), None, False, None), dtype=np.float32)


def _spatial(values, count, default):
    return tuple(int(v) for v in values) if values is not None else (default,) * count


@operator(name="CONVOLUTION", keyword_attributes=("Mode", "Direction", "Strides", "Dilations", "StartPadding",
                                                  "EndPadding", "OutputPadding", "GroupCount", "FusedActivation"))
def convolution(x, w, bias=None, Mode=1, Direction=0, Strides=None, Dilations=None, StartPadding=None,
                EndPadding=None, OutputPadding=None, GroupCount=1, FusedActivation=None, output_sizes=None):
    """Output of CONVOLUTION on arrays x { N, C, spatial.. } and w (FORWARD { K, C/G, window.. }, BACKWARD
    { C, K/G, window.. }) and an optional bias { 1, K, 1.. }; Mode 1 is CROSS_CORRELATION, 0 CONVOLUTION; Direction
    0 FORWARD, 1 BACKWARD. `output_sizes` (the output's spatial sizes) defaults to what the arrays give."""
    storage = np.result_type(x.dtype, w.dtype)
    x = np.asarray(x).astype(np.float32)
    w = np.asarray(w).astype(np.float32)
    spatial = x.ndim - 2
    strides = _spatial(Strides, spatial, 1)
    dilations = _spatial(Dilations, spatial, 1)
    start = _spatial(StartPadding, spatial, 0)
    end = _spatial(EndPadding, spatial, 0)
    out_pad = _spatial(OutputPadding, spatial, 0)
    groups = int(GroupCount)
    backward = int(Direction) == 1
    window = w.shape[2:]
    n, c = x.shape[:2]
    k = w.shape[1] * groups if backward else w.shape[0]
    if output_sizes is None:
        output_sizes = []
        for d in range(spatial):
            extent = (window[d] - 1) * dilations[d] + 1
            if backward:
                output_sizes.append(strides[d] * (x.shape[2 + d] - 1) + extent - start[d] - end[d] + out_pad[d])
            else:
                output_sizes.append((x.shape[2 + d] + start[d] + end[d] - extent) // strides[d] + 1)
    output_sizes = tuple(int(s) for s in output_sizes)
    c_group, k_group = c // groups, k // groups
    ks = np.arange(k)
    group = ks // k_group                                     # each output channel's group
    coords = np.meshgrid(*[np.arange(s) for s in output_sizes], indexing="ij")
    acc = np.full((n, k) + output_sizes, -0.0, dtype=np.float32)    # -0: the identity of addition
    flip = int(Mode) == 0
    with np.errstate(all="ignore"):
        for ci in range(c_group):
            channel = group * c_group + ci                    # (K,) the input channel each output channel reads
            planes = x[:, channel]                            # (N, K, input spatial..)
            for tap in itertools.product(*[range(s) for s in window]):
                valid = np.ones(output_sizes, dtype=bool)
                index = []
                for d, t in enumerate(tap):
                    if backward:
                        num = coords[d] + start[d] - t * dilations[d]
                        i = num // strides[d]
                        valid &= (num % strides[d] == 0) & (i >= 0) & (i < x.shape[2 + d])
                    else:
                        i = coords[d] * strides[d] - start[d] + t * dilations[d]
                        valid &= (i >= 0) & (i < x.shape[2 + d])
                    index.append(np.clip(i, 0, x.shape[2 + d] - 1))
                if not valid.any():
                    continue
                filter_tap = tuple(window[d] - 1 - t if flip else t for d, t in enumerate(tap))
                # x[n, channel[k], i(o)] for every (n, k, o): (N, K) + output_sizes
                xs = planes[(slice(None), slice(None)) + tuple(index)]
                if backward:
                    ws = w[channel, ks % k_group][(slice(None),) + filter_tap]       # w[c, k', t]
                else:
                    ws = w[ks, ci][(slice(None),) + filter_tap]                      # w[k, ci, t]
                ws = ws.reshape((1, k) + (1,) * spatial)
                fused = _nm.fused_multiply_add(xs, np.broadcast_to(ws, xs.shape).astype(np.float32), acc)
                acc = np.where(valid, fused, acc).astype(np.float32)
        if bias is not None:
            b = np.asarray(bias).astype(np.float32).reshape((1, k) + (1,) * spatial)
            acc = (acc + b).astype(np.float32)
        acc = canonicalize_nans(np.array(acc, dtype=np.float32))
        acc = fused_activation(acc, FusedActivation)
    return _nm.narrow_f16(acc) if storage == np.float16 else acc
