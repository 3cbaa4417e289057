"""RESAMPLE, RESAMPLE1 and RESAMPLE2 in the order docs/NUMERICS.md ("Resampling") fixes, vectorised per dimension.

For each dimension d, output coordinate o maps to the input coordinate x = ((o - OutputPixelOffset) / Scale) -
InputPixelOffset, each operation rounded to FLOAT32 (RESAMPLE: InputPixelOffset 0.5, OutputPixelOffset -0.5).
NEAREST_NEIGHBOR takes floor(x + 0.5) (RESAMPLE2 with RoundingDirection DECREASING: ceil(x - 0.5)), clamped to
the input's edges, and copies the element's bits. LINEAR takes the neighbours i0 = floor(x), i1 = i0 + 1 (each
clamped) with weights u = 1 - w and w = x - floor(x), and combines the 2^D corners dimension by dimension, the
last dimension first: r = p * u + q * w (a rounded product, a rounded product, a rounded sum; a NaN it makes is
canonical), or r = p itself where w is 0 or both neighbours are the same element. FLOAT16 works in FLOAT32 and
rounds once. This module never assembles or runs anything.
"""
import numpy as np

from dmlemu.golden.numbers import canonicalize_nans, float_to_int
from dmlemu.golden.registry import operator
from dmlemu.golden.working import store

NEAREST_NEIGHBOR, LINEAR = 0, 1
INCREASING, DECREASING = 0, 1


def source_coordinates(out_size, scale, input_offset, output_offset):
    """x for every output coordinate of one dimension (FLOAT32, each step rounded)."""
    o = np.arange(out_size, dtype=np.float32)
    t = o - np.float32(output_offset)
    t = t / np.float32(scale)
    return t - np.float32(input_offset)


def _clamp(values, size):
    return np.clip(float_to_int(values, np.int32).astype(np.int64), 0, size - 1)


def resample(x, interpolation_mode, scales, input_offsets=None, output_offsets=None, rounding_direction=INCREASING,
             output_sizes=None):
    """The resampled tensor of `output_sizes` (default: floor(input size * scale) per dimension)."""
    x = np.asarray(x)
    rank = x.ndim
    scales = [np.float32(s) for s in scales]
    input_offsets = [np.float32(0.5)] * rank if input_offsets is None else [np.float32(a) for a in input_offsets]
    output_offsets = [np.float32(-0.5)] * rank if output_offsets is None else [np.float32(b) for b in output_offsets]
    if output_sizes is None:
        output_sizes = [int(np.floor(np.float64(n) * np.float64(s))) for n, s in zip(x.shape, scales)]
    coords = [source_coordinates(n, s, a, b) for n, s, a, b in zip(output_sizes, scales, input_offsets, output_offsets)]
    with np.errstate(all="ignore"):
        if int(interpolation_mode) == NEAREST_NEIGHBOR:
            if int(rounding_direction) == DECREASING:
                picks = [_clamp(np.ceil(c - np.float32(0.5)), size) for c, size in zip(coords, x.shape)]
            else:
                picks = [_clamp(np.floor(c + np.float32(0.5)), size) for c, size in zip(coords, x.shape)]
            return x[np.ix_(*picks)]
        work = x.astype(np.float32)
        lows, highs, weights, complements, singles = [], [], [], [], []
        for c, size in zip(coords, x.shape):
            f = np.floor(c)
            w = c - f                                     # exact
            i0, i1 = _clamp(f, size), _clamp(f + np.float32(1), size)
            lows.append(i0), highs.append(i1), weights.append(w), complements.append(np.float32(1) - w)
            singles.append((w == 0) | (i0 == i1))
        corners = []
        for c in range(1 << rank):                       # dimension 0's choice is the most significant bit
            pick = [highs[d] if c >> (rank - 1 - d) & 1 else lows[d] for d in range(rank)]
            corners.append(work[np.ix_(*pick)])
        for d in reversed(range(rank)):                   # the last dimension first
            shape = [1] * rank
            shape[d] = -1
            u, w, single = (a.reshape(shape) for a in (complements[d], weights[d], singles[d]))
            paired = []
            for k in range(len(corners) // 2):
                p, q = corners[2 * k], corners[2 * k + 1]
                r = canonicalize_nans(p * u + q * w)      # two rounded products, one rounded sum
                paired.append(np.where(single, p, r))
            corners = paired
        return store(np.broadcast_to(corners[0], tuple(output_sizes)).copy(), x.dtype)


@operator(name="RESAMPLE", attributes=("InterpolationMode", "Scales"), keyword_attributes=("OutputSizes",))
def resample0(x, interpolation_mode, scales, OutputSizes=None):     # noqa: N803 (the desc's field name)
    """RESAMPLE: RESAMPLE1 with InputPixelOffsets 0.5 and OutputPixelOffsets -0.5 (the RESAMPLE1 page)."""
    return resample(x, interpolation_mode, scales, output_sizes=OutputSizes)


@operator(name="RESAMPLE1", attributes=("InterpolationMode", "Scales", "InputPixelOffsets", "OutputPixelOffsets"),
          keyword_attributes=("OutputSizes",))
def resample1(x, interpolation_mode, scales, input_offsets, output_offsets, OutputSizes=None):   # noqa: N803
    return resample(x, interpolation_mode, scales, input_offsets, output_offsets, output_sizes=OutputSizes)


@operator(name="RESAMPLE2", attributes=("InterpolationMode", "Scales", "InputPixelOffsets", "OutputPixelOffsets",
                                        "RoundingDirection"), keyword_attributes=("OutputSizes",))
def resample2(x, interpolation_mode, scales, input_offsets, output_offsets, rounding_direction, OutputSizes=None):  # noqa
    return resample(x, interpolation_mode, scales, input_offsets, output_offsets, rounding_direction, OutputSizes)


@operator(name="UPSAMPLE_2D", attributes=("ScaleSize", "InterpolationMode"))
def upsample_2d(x, scale_size, interpolation_mode=NEAREST_NEIGHBOR):
    """UPSAMPLE_2D: RESAMPLE with Scales {1, .., 1, Height, Width}; the output is the input's Sizes times them."""
    x = np.asarray(x)
    height, width = (int(s) for s in scale_size)
    scales = (1,) * (x.ndim - 2) + (height, width)
    return resample(x, interpolation_mode, scales, output_sizes=tuple(n * s for n, s in zip(x.shape, scales)))
