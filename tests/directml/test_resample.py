"""RESAMPLE, RESAMPLE1 and RESAMPLE2 through the mirror, bit for bit against the golden model (docs/NUMERICS.md,
"Resampling").

Drawn descs (both modes, both rounding directions, FLOAT32 and FLOAT16 with NaN, infinities, -0 and subnormals,
scales that are and are not OutputSize / InputSize, pixel offsets, packed / padded / permuted / broadcast
layouts) run on every adapter; the golden model's order is checked against a per-element loop written from the
text, the page's equivalence of RESAMPLE and RESAMPLE1 with offsets 0.5 / -0.5 is checked, and the validation
sentences are pinned."""
import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from dmlemu import golden, run_operator
from dmlemu.d3d12 import *  # noqa: F401,F403
from dmlemu.directml import *  # noqa: F401,F403
from dmlemu.errors import E_INVALIDARG, HResultError
from dmlemu.presets import PRESETS, WARP
from tensor_layouts import data_type, layout_strides, same_bits, tensor

DTYPES = {"FLOAT32": np.float32, "FLOAT16": np.float16}
BITS = {2: np.uint16, 4: np.uint32}


def resample_desc(name, type_name, in_sizes, out_sizes, mode, scales, offsets=None, rounding=0, strides=(None, None)):
    fields = dict(InputTensor=tensor(type_name, in_sizes, strides[0]),
                  OutputTensor=tensor(type_name, out_sizes, strides[1]), InterpolationMode=mode, Scales=list(scales))
    if name != "RESAMPLE":
        fields.update(InputPixelOffsets=list(offsets[0]), OutputPixelOffsets=list(offsets[1]))
    if name == "RESAMPLE2":
        fields["RoundingDirection"] = rounding
    return globals()[f"DML_{name}_OPERATOR_DESC"](**fields)


def attributes_of(name, mode, scales, offsets, rounding, out_sizes):
    attributes = {"InterpolationMode": mode, "Scales": tuple(np.float32(s) for s in scales),
                  "OutputSizes": tuple(out_sizes)}
    if name != "RESAMPLE":
        attributes.update(InputPixelOffsets=tuple(offsets[0]), OutputPixelOffsets=tuple(offsets[1]))
    if name == "RESAMPLE2":
        attributes["RoundingDirection"] = rounding
    return attributes


def values(rng, type_name, shape, special):
    x = (rng.standard_normal(shape) * rng.choice([1e-3, 1.0, 1e3])).astype(DTYPES[type_name])
    if special and x.size:
        tiny = np.finfo(DTYPES[type_name]).smallest_subnormal
        picks = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, tiny, -tiny], dtype=x.dtype)
        mask = rng.random(shape) < 0.1
        x[mask] = rng.choice(picks, size=int(mask.sum()))
        nan_payload = rng.random(shape) < 0.03        # NaNs with payloads: NEAREST copies them, LINEAR canonicalizes
        x[nan_payload] = np.array([0x7FC12345 if type_name == "FLOAT32" else 0x7E55], BITS[x.itemsize]).view(x.dtype)[0]
    return x


@st.composite
def cases(draw):
    name = draw(st.sampled_from(["RESAMPLE", "RESAMPLE1", "RESAMPLE2"]))
    rank = draw(st.integers(1, 4)) if name == "RESAMPLE2" else 4
    in_sizes = [draw(st.integers(1, 4)) for _ in range(rank)]
    scales, out_sizes = [], []
    for n in in_sizes:
        scale = draw(st.sampled_from([1.0, 2.0, 0.5, 3.0, 1.5, 0.75, 2.3, 1 / 3, 0.7]))
        exact = max(1, int(np.floor(n * scale)))
        out_sizes.append(exact if draw(st.integers(0, 3)) else max(1, exact + draw(st.integers(-1, 2))))
        scales.append(scale)
    offsets = ([draw(st.sampled_from([0.5, 0.0, 0.25, -0.3])) for _ in range(rank)],
               [draw(st.sampled_from([-0.5, 0.0, 0.5, 0.1])) for _ in range(rank)])
    return (name, draw(st.sampled_from(sorted(DTYPES))), in_sizes, out_sizes, draw(st.integers(0, 1)), scales, offsets,
            draw(st.integers(0, 1)), draw(st.sampled_from(["packed", "padded", "permuted", "broadcast"])),
            draw(st.booleans()), draw(st.integers(0, 2 ** 32 - 1)))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases(), st.sampled_from(PRESETS + (WARP,)))
def test_drawn_resamples_are_bit_exact_on_every_adapter(case, preset):
    name, type_name, in_sizes, out_sizes, mode, scales, offsets, rounding, layout, special, seed = case
    rng = np.random.default_rng(seed)
    in_strides, broadcast = layout_strides(in_sizes, layout, rng)
    x = values(rng, type_name, in_sizes, special)
    for d in broadcast:
        x = np.repeat(np.take(x, [0], axis=d), in_sizes[d], axis=d)
    out_strides = layout_strides(out_sizes, "padded" if layout == "padded" else "packed", rng)[0]
    desc = resample_desc(name, type_name, in_sizes, out_sizes, mode, scales, offsets, rounding, (in_strides, out_strides))
    (got,) = run_operator(desc, [x], adapter=preset)
    same_bits(got, golden.run(name, [x], attributes_of(name, mode, scales, offsets, rounding, out_sizes)))


# ---- the golden model against the text, element by element -----------------------------------------------------
def literal(x, mode, scales, a, b, rounding, out_sizes):
    """docs/NUMERICS.md "Resampling", one output element at a time, in Python floats rounded to FLOAT32."""
    f32 = np.float32
    out = np.zeros(out_sizes, np.float32)
    work = x.astype(np.float32)
    for o in itertools.product(*(range(n) for n in out_sizes)):
        coords = [((f32(o[d]) - f32(b[d])) / f32(scales[d])) - f32(a[d]) for d in range(x.ndim)]
        clamp = lambda v, n: int(min(max(v, 0), n - 1))    # noqa: E731 (finite coordinates here)
        if mode == 0:
            pick = [clamp(np.ceil(f32(c - f32(0.5))) if rounding else np.floor(f32(c + f32(0.5))), n)
                    for c, n in zip(coords, x.shape)]
            out[o] = work[tuple(pick)]
            continue
        lows = [clamp(np.floor(c), n) for c, n in zip(coords, x.shape)]
        highs = [clamp(np.floor(c) + 1, n) for c, n in zip(coords, x.shape)]
        w = [f32(c - np.floor(c)) for c in coords]
        corners = [work[tuple(highs[d] if bits[d] else lows[d] for d in range(x.ndim))]
                   for bits in itertools.product((0, 1), repeat=x.ndim)]
        for d in reversed(range(x.ndim)):
            single = w[d] == 0 or lows[d] == highs[d]
            corners = [p if single else f32(f32(p * f32(f32(1) - w[d])) + f32(q * w[d]))
                       for p, q in zip(corners[::2], corners[1::2])]
        out[o] = corners[0]
    return out.astype(x.dtype)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 1), st.integers(0, 1), st.integers(0, 2 ** 32 - 1))
def test_the_golden_model_is_the_text(mode, rounding, seed):
    rng = np.random.default_rng(seed)
    in_sizes = [int(rng.integers(1, 4)) for _ in range(3)]
    scales = [float(rng.choice([0.5, 1.0, 1.7, 2.0, 3.0])) for _ in range(3)]
    out_sizes = [max(1, int(n * s)) for n, s in zip(in_sizes, scales)]
    a, b = [float(rng.choice([0.5, 0.0, 0.2])) for _ in range(3)], [float(rng.choice([-0.5, 0.0, 0.3])) for _ in range(3)]
    x = rng.standard_normal(in_sizes).astype(np.float32)
    expected = literal(x, mode, scales, a, b, rounding, out_sizes)
    got = golden.run("RESAMPLE2", [x], {"InterpolationMode": mode, "Scales": scales, "InputPixelOffsets": a,
                                        "OutputPixelOffsets": b, "RoundingDirection": rounding, "OutputSizes": out_sizes})
    same_bits(got, expected)


def test_resample_is_resample1_with_half_pixel_offsets_and_upsamples_as_expected():
    x = np.arange(4, dtype=np.float32).reshape(1, 1, 2, 2)
    for mode in (0, 1):
        (plain,) = run_operator(resample_desc("RESAMPLE", "FLOAT32", [1, 1, 2, 2], [1, 1, 4, 4], mode, [1, 1, 2, 2]), [x])
        (one,) = run_operator(resample_desc("RESAMPLE1", "FLOAT32", [1, 1, 2, 2], [1, 1, 4, 4], mode, [1, 1, 2, 2],
                                            ([0.5] * 4, [-0.5] * 4)), [x])
        same_bits(plain, one)
    assert plain[0, 0].tolist() == [[0, 0.25, 0.75, 1], [0.5, 0.75, 1.25, 1.5], [1.5, 1.75, 2.25, 2.5],
                                    [2, 2.25, 2.75, 3]]
    (nearest,) = run_operator(resample_desc("RESAMPLE", "FLOAT32", [1, 1, 2, 2], [1, 1, 4, 4], 0, [1, 1, 2, 2]), [x])
    assert nearest[0, 0].tolist() == [[0, 0, 1, 1], [0, 0, 1, 1], [2, 2, 3, 3], [2, 2, 3, 3]]


def test_an_identity_resample_returns_every_bit_and_an_infinity_stays_whole():
    x = np.array([np.inf, -np.inf, np.nan, -0.0, 1e-45, 3.0], np.float32).reshape(1, 1, 2, 3)
    for mode in (0, 1):
        (got,) = run_operator(resample_desc("RESAMPLE", "FLOAT32", [1, 1, 2, 3], [1, 1, 2, 3], mode, [1] * 4), [x])
        same_bits(got, x)        # w = 0 everywhere: each element is its own single neighbour


# ---- validation ------------------------------------------------------------------------------------------------
def refusal(desc):
    dml = DMLCreateDevice(D3D12CreateDevice(None, D3D_FEATURE_LEVEL_11_0), DML_CREATE_DEVICE_FLAG_NONE)
    op_type = getattr(DML_OPERATOR_TYPE, "DML_OPERATOR_" + type(desc).__name__[4:-len("_OPERATOR_DESC")])
    try:
        dml.CreateOperator(DML_OPERATOR_DESC(Type=op_type, Desc=desc))
    except HResultError as error:
        return error.hresult, error.message
    return "validated"


def test_the_resample_rules_are_pinned():
    ok = resample_desc("RESAMPLE", "FLOAT32", [1, 1, 2, 2], [1, 1, 4, 3], 1, [1, 1, 2, 2])
    assert refusal(ok) == "validated"
    desc = resample_desc("RESAMPLE", "FLOAT32", [1, 1, 2, 2], [1, 1, 4, 4], 1, [1, 2, 2])
    assert refusal(desc) == (E_INVALIDARG, "ScaleCount is 3; it must match InputTensor's DimensionCount (4) for "
                                           "DML_OPERATOR_RESAMPLE.")
    desc.ScaleCount = 4
    assert refusal(desc) == (E_INVALIDARG, "ScaleCount is 4 but Scales has 3 elements; they must agree.")
    desc = resample_desc("RESAMPLE", "FLOAT32", [1, 1, 2, 2], [1, 1, 4, 4], 1, [1, 1, 0, 2])
    assert refusal(desc) == (E_INVALIDARG, "Scales[2] is 0.0; dmlemu requires every Scale of DML_OPERATOR_RESAMPLE "
                                           "to be finite and above 0.")
    desc = resample_desc("RESAMPLE1", "FLOAT32", [1, 1, 2, 2], [1, 1, 4, 4], 1, [1, 1, 2, 2],
                         ([0.5] * 4, [-0.5, -0.5, float("nan"), -0.5]))
    assert refusal(desc) == (E_INVALIDARG, "OutputPixelOffsets[2] is nan; dmlemu requires every OutputPixelOffset of "
                                           "DML_OPERATOR_RESAMPLE1 to be finite.")
    desc = resample_desc("RESAMPLE", "FLOAT32", [1, 1, 2, 2], [1, 1, 4, 4], 2, [1, 1, 2, 2])
    assert refusal(desc)[0] == E_INVALIDARG and refusal(desc)[1].startswith("InterpolationMode is 2")
    desc = resample_desc("RESAMPLE", "FLOAT32", [2, 2], [4, 4], 1, [2, 2])
    assert refusal(desc) == (E_INVALIDARG, "InputTensor.Sizes has 2 dimensions; DML_FEATURE_LEVEL_6_4 allows 4 for "
                                           "DML_OPERATOR_RESAMPLE.")
    assert refusal(resample_desc("RESAMPLE2", "FLOAT16", [2, 2], [4, 4], 1, [2, 2], ([0.5] * 2, [-0.5] * 2),
                                 rounding=1)) == "validated"


# ---- UPSAMPLE_2D: RESAMPLE with Scales {1, 1, Height, Width} -----------------------------------------------------
def upsample_desc(type_name, in_sizes, height, width, mode, strides=(None, None)):
    out_sizes = list(in_sizes[:-2]) + [in_sizes[-2] * height, in_sizes[-1] * width]
    return DML_UPSAMPLE_2D_OPERATOR_DESC(InputTensor=tensor(type_name, in_sizes, strides[0]),
                                         OutputTensor=tensor(type_name, out_sizes, strides[1]),
                                         ScaleSize=DML_SIZE_2D(Width=width, Height=height), InterpolationMode=mode)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(DTYPES)), st.lists(st.integers(1, 3), min_size=4, max_size=4), st.integers(1, 3),
       st.integers(1, 3), st.integers(0, 1), st.sampled_from(["packed", "padded", "permuted"]),
       st.sampled_from(PRESETS + (WARP,)), st.integers(0, 2 ** 32 - 1))
def test_drawn_upsamples_are_resamples_and_bit_exact(type_name, in_sizes, height, width, mode, layout, preset, seed):
    rng = np.random.default_rng(seed)
    x = values(rng, type_name, in_sizes, True)
    desc = upsample_desc(type_name, in_sizes, height, width, mode, (layout_strides(in_sizes, layout, rng)[0], None))
    (got,) = run_operator(desc, [x], adapter=preset)
    expected = golden.run("UPSAMPLE_2D", [x], {"ScaleSize": (height, width), "InterpolationMode": mode})
    same_bits(got, expected)
    out_sizes = got.shape
    same_bits(got, golden.run("RESAMPLE", [x], attributes_of("RESAMPLE", mode, [1, 1, height, width], None, 0,
                                                             out_sizes)))
    if mode == 0:            # nearest: each input element repeated Height x Width times
        same_bits(got, np.repeat(np.repeat(x, height, axis=2), width, axis=3))


def test_the_upsample_rules_are_pinned():
    assert refusal(upsample_desc("FLOAT16", [1, 2, 3, 4], 2, 3, 1)) == "validated"
    desc = upsample_desc("FLOAT32", [1, 2, 3, 4], 2, 3, 0)
    desc.OutputTensor = tensor("FLOAT32", [1, 2, 6, 13])
    assert refusal(desc) == (E_INVALIDARG, "OutputTensor.Sizes is {1,2,6,13}; DML_OPERATOR_UPSAMPLE_2D with "
                                           "InputTensor.Sizes {1,2,3,4} and ScaleSize {3,2} (Width, Height) needs "
                                           "{1,2,6,12}.")
    desc = upsample_desc("FLOAT32", [1, 2, 3, 4], 2, 3, 0)
    desc.ScaleSize = DML_SIZE_2D(Width=0, Height=2)
    assert refusal(desc) == (E_INVALIDARG, "ScaleSize.Width is 0; it must be an integer from 1 to 4294967295.")
    desc.ScaleSize = (2, 2)
    assert refusal(desc) == (E_INVALIDARG, "ScaleSize is tuple; it must be a DML_SIZE_2D.")
