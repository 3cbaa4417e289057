"""Every microkernel against the golden model (emulator/golden/), bit for bit.

Each case uploads random bytes for every tensor (with guard bytes around the tensor and a binding
offset), runs the kernel, and checks that the output buffer equals the original bytes with the
golden result scattered in: the tensor's elements are exact and no other byte changed. Inputs
must come back unchanged.
"""
import zlib

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st, HealthCheck

from dmlemu import golden
from dmlemu.direct_run import DirectRun
from dmlemu.gpu import Gpu
from dmlemu.presets import TEACHING, DEFAULT_PRESET
from dmlemu.kernels.driver import TensorSpec
from element_wise_cases import random_sizes, random_strides

OPS = ("ELEMENT_WISE_IDENTITY", "ELEMENT_WISE_THRESHOLD", "ELEMENT_WISE_CLIP", "ELEMENT_WISE_IF")
ALL_TYPES = ("FLOAT32", "FLOAT16", "FLOAT64", "INT64", "INT32", "INT16", "INT8", "UINT64", "UINT32",
             "UINT16", "UINT8")
# Data types at the highest feature level, from the seed tables (and DIRECTML_FACTS for IDENTITY).
SUPPORTED = {
    "ELEMENT_WISE_IDENTITY": ALL_TYPES,
    "ELEMENT_WISE_THRESHOLD": ("FLOAT32", "FLOAT16", "INT32", "INT16", "INT8", "UINT32", "UINT16", "UINT8"),
    "ELEMENT_WISE_CLIP": ("FLOAT32", "FLOAT16", "INT64", "INT32", "INT16", "INT8", "UINT64", "UINT32",
                          "UINT16", "UINT8"),
    "ELEMENT_WISE_IF": ALL_TYPES,
}
FLOATS = ("FLOAT32", "FLOAT16")
GUARD = 24


def seeded(*parts):
    return np.random.default_rng(zlib.crc32(repr(parts).encode()))


def tensor_types(operator, data_type):
    return ("UINT8", data_type, data_type, data_type) if operator == "ELEMENT_WISE_IF" else (data_type, data_type)


def golden_apply(operator, inputs, data_type, args):
    if operator == "ELEMENT_WISE_IF":
        return golden.if_(*inputs)
    x = inputs[0]
    common = dict(scale_bias=args.get("scale_bias"), half_precision=args.get("half_precision", False))
    if operator == "ELEMENT_WISE_IDENTITY":
        return golden.identity(x, **common)
    if operator == "ELEMENT_WISE_THRESHOLD":
        return golden.threshold(x, args["min_value"], **common)
    return golden.clip(x, args["min_value"], args["max_value"], **common)


def check(operator, data_type, sizes, strides=None, offsets=None, args=None, width=None, rng=None,
          payload=None, gpu=None):
    """Run one case through the kernel and the golden model; assert bit equality."""
    args = dict(args or {})
    rng = rng if rng is not None else seeded(operator, data_type, sizes)
    types = tensor_types(operator, data_type)
    strides = strides or [None] * len(types)
    offsets = offsets or [16 * int(rng.integers(0, 3)) for _ in types]
    specs, buffers = [], []
    for t, (dt, st_, off) in enumerate(zip(types, strides, offsets)):
        nbytes = golden.calc_buffer_tensor_size(dt, sizes, st_)
        specs.append(TensorSpec(dt, tuple(sizes), None if st_ is None else tuple(st_), nbytes))
        buf = rng.integers(0, 256, size=off + nbytes + GUARD, dtype=np.uint8)
        if payload is not None and t < len(types) - 1 and payload[t] is not None:
            fill = payload[t].view(np.uint8)
            view = buf[off:off + nbytes]
            view[:] = np.resize(fill, view.size)
        buffers.append(buf)
    gpu = gpu or Gpu(TEACHING, wave_width=width or 8)
    run = DirectRun(gpu, operator, specs, buffers, offsets=offsets, **args)
    stats = run.dispatch()
    inputs = [golden.gather(b, o, golden.DATA_TYPES[dt], sizes, s)
              for b, o, dt, s in zip(buffers[:-1], offsets[:-1], types[:-1], strides[:-1])]
    expected = buffers[-1].copy()
    golden.scatter(expected, offsets[-1], golden_apply(operator, inputs, data_type, args), strides[-1])
    got = run.allocations[-1].data
    if not np.array_equal(got, expected):
        bad = np.flatnonzero(got != expected)
        raise AssertionError(f"{operator} {data_type} sizes={sizes} strides={strides} args={args}: "
                             f"{bad.size} bytes differ, first at byte {bad[0]}")
    for original, allocation in zip(buffers[:-1], run.allocations[:-1]):
        assert np.array_equal(original, allocation.data), "an input buffer was written"
    assert stats.oob_reads == 0 and stats.oob_writes == 0
    run.free()
    return stats


def random_args(rng, operator, data_type, half=False, scale_bias=None):
    if operator == "ELEMENT_WISE_IF":
        return {}
    args = {}
    if data_type in FLOATS:
        args["scale_bias"] = scale_bias
        args["half_precision"] = half
    specials = [np.nan, np.inf, -np.inf, -0.0, 0.0, 1e30, -1e30, 2.0 ** 63, -(2.0 ** 63), 2.0 ** 64, 3e9]
    pick = lambda: float(rng.choice(specials)) if rng.random() < 0.2 else float(rng.normal() * 100)
    if operator != "ELEMENT_WISE_IDENTITY":
        args["min_value"] = pick()
    if operator == "ELEMENT_WISE_CLIP":
        args["max_value"] = pick()
    return args


CASES = [(op, dt, nd) for op in OPS for dt in SUPPORTED[op] for nd in range(1, 9)]


@pytest.mark.parametrize("operator, data_type, ndim", CASES)
def test_every_operator_type_and_dimension_count(operator, data_type, ndim):
    rng = seeded(operator, data_type, ndim)
    sizes = random_sizes(rng, ndim)
    check(operator, data_type, sizes, args=random_args(rng, operator, data_type), rng=rng)
    strides = [random_strides(rng, sizes, t == len(tensor_types(operator, data_type)) - 1)
               for t in range(len(tensor_types(operator, data_type)))]
    half = data_type == "FLOAT16" and bool(rng.integers(0, 2))
    sb = (float(rng.normal()), float(rng.normal())) if data_type in FLOATS and rng.random() < 0.6 else None
    check(operator, data_type, sizes, strides=strides, args=random_args(rng, operator, data_type, half, sb),
          rng=rng, width=int(rng.choice([4, 8, 32, 64])))


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_random_layouts_offsets_and_bounds(data):
    operator = data.draw(st.sampled_from(OPS))
    data_type = data.draw(st.sampled_from(SUPPORTED[operator]))
    ndim = data.draw(st.integers(1, 8))
    sizes = data.draw(st.lists(st.integers(1, 4), min_size=ndim, max_size=ndim))
    seed = data.draw(st.integers(0, 2 ** 32 - 1))
    rng = np.random.default_rng(seed)
    sizes = random_sizes(rng, ndim) if int(np.prod(sizes)) > 300 else sizes
    count = len(tensor_types(operator, data_type))
    strides = [random_strides(rng, sizes, t == count - 1) if data.draw(st.booleans()) else None
               for t in range(count)]
    offsets = [16 * data.draw(st.integers(0, 4)) for _ in range(count)]
    half = data_type == "FLOAT16" and data.draw(st.booleans())
    sb = None
    if data_type in FLOATS and operator != "ELEMENT_WISE_IF" and data.draw(st.booleans()):
        sb = (data.draw(st.floats(-8, 8, width=32)), data.draw(st.floats(-8, 8, width=32)))
    args = random_args(rng, operator, data_type, half, sb)
    check(operator, data_type, sizes, strides=strides, offsets=offsets, args=args, rng=rng,
          width=data.draw(st.sampled_from([4, 8, 16, 32, 64])))


ALL_F16 = np.arange(65536, dtype=np.uint32).astype(np.uint16)


F16_SWEEPS = [(op, sb, half) for op in ("ELEMENT_WISE_CLIP", "ELEMENT_WISE_THRESHOLD", "ELEMENT_WISE_IDENTITY")
              for sb in (None, (2.0, 0.5), (-0.3, 1e-3)) for half in (False, True)
              if not (op == "ELEMENT_WISE_IDENTITY" and sb is None and half)]  # that one is a plain copy


@pytest.mark.parametrize("operator, scale_bias, half", F16_SWEEPS)
def test_every_float16_bit_pattern(operator, scale_bias, half):
    args = {"scale_bias": scale_bias, "half_precision": half}
    if operator != "ELEMENT_WISE_IDENTITY":
        args["min_value"] = -1.0
    if operator == "ELEMENT_WISE_CLIP":
        args["max_value"] = 1.0
    gpu = Gpu(DEFAULT_PRESET)
    check(operator, "FLOAT16", [65536], args=args, payload=[ALL_F16], gpu=gpu, offsets=[0, 0])


@pytest.mark.parametrize("data_type", ["FLOAT32", "FLOAT16"])
@pytest.mark.parametrize("bounds", [(np.nan, 1.0), (-1.0, np.nan), (np.nan, np.nan), (-0.0, 0.0), (0.0, -0.0),
                                    (2.0, -2.0), (-np.inf, np.inf), (1e-45, 6e-8), (-70000.0, 70000.0)])
def test_float_specials_and_bounds(data_type, bounds):
    specials = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, -1e-45, 6e-8, -6e-8, 65504, -65504,
                         1.0, -1.0, 3.4e38, 0.5, 1.5], dtype=np.float64)
    with np.errstate(over="ignore"):
        x = specials.astype(golden.DATA_TYPES[data_type])
    signalling = np.array([0x7F800001, 0xFFA00000], dtype=np.uint32).view(np.float32) if data_type == "FLOAT32" \
        else np.array([0x7C01, 0xFD00], dtype=np.uint16).view(np.float16)
    x = np.concatenate([x, signalling])
    for operator in ("ELEMENT_WISE_CLIP", "ELEMENT_WISE_THRESHOLD"):
        for sb in (None, (1.0, 0.0), (-1.0, -0.0)):
            for half in ((False, True) if data_type == "FLOAT16" else (False,)):
                args = {"min_value": bounds[0], "scale_bias": sb, "half_precision": half}
                if operator == "ELEMENT_WISE_CLIP":
                    args["max_value"] = bounds[1]
                check(operator, data_type, [x.size], args=args, payload=[x], offsets=[0, 16])


INT_TYPES = ("INT8", "UINT8", "INT16", "UINT16", "INT32", "UINT32", "INT64", "UINT64")
INT_BOUNDS = [np.nan, np.inf, -np.inf, 0.9, -0.9, 127.9, -128.9, 255.5, 256.0, 32767.5, -32768.5, 65535.9,
              2.0 ** 31, -(2.0 ** 31), 3e9, 2.0 ** 32, 2.0 ** 63, -(2.0 ** 63), 2.0 ** 64, 1e30, -1e30]


@pytest.mark.parametrize("data_type", INT_TYPES)
def test_integer_bounds_truncate_and_saturate(data_type):
    dtype = golden.DATA_TYPES[data_type]
    info = np.iinfo(dtype)
    x = np.array([info.min, info.max, 0, 1, -1 if info.min < 0 else 2, info.min + 1, info.max - 1, 100, 200],
                 dtype=np.int64 if info.min < 0 else np.uint64).astype(dtype)
    ops = ["ELEMENT_WISE_CLIP"] + (["ELEMENT_WISE_THRESHOLD"] if "64" not in data_type else [])
    for lo in INT_BOUNDS:
        for hi in (np.nan, 0.5, 1e30, -5.7):
            for operator in ops:
                args = {"min_value": lo}
                if operator == "ELEMENT_WISE_CLIP":
                    args["max_value"] = hi
                check(operator, data_type, [x.size], args=args, payload=[x], offsets=[0, 0], width=4)


@pytest.mark.parametrize("data_type", ["FLOAT16", "FLOAT32", "FLOAT64", "UINT8", "INT64"])
def test_if_every_condition_byte_and_nan_payloads(data_type):
    dtype = golden.DATA_TYPES[data_type]
    condition = np.arange(256, dtype=np.uint8)
    bits = {2: np.uint16, 4: np.uint32, 8: np.uint64}.get(np.dtype(dtype).itemsize, np.uint8)
    rng = seeded("if", data_type)
    a = rng.integers(0, np.iinfo(bits).max, size=256, dtype=bits, endpoint=True).view(dtype)
    b = rng.integers(0, np.iinfo(bits).max, size=256, dtype=bits, endpoint=True).view(dtype)
    if data_type.startswith("FLOAT"):
        nans = {2: [0x7C01, 0xFE12, 0x8000], 4: [0x7F800001, 0xFFC01234, 0x80000000],
                8: [0x7FF0000000000001, 0xFFF8000000001234, 0x8000000000000000]}[np.dtype(dtype).itemsize]
        a[:3] = np.array(nans, dtype=bits).view(dtype)
        b[1:4] = np.array(nans, dtype=bits).view(dtype)
    check("ELEMENT_WISE_IF", data_type, [256], payload=[condition, a, b], offsets=[0, 0, 0, 0], width=32)
    # stride-0 broadcast condition
    check("ELEMENT_WISE_IF", data_type, [4, 64], strides=[[1, 0], None, None, None],
          payload=[condition[:4], a, b], offsets=[0, 16, 32, 0])


@pytest.mark.parametrize("operator", ["ELEMENT_WISE_IDENTITY", "ELEMENT_WISE_THRESHOLD", "ELEMENT_WISE_CLIP"])
@pytest.mark.parametrize("data_type", ["FLOAT16", "INT8", "UINT32"])
def test_in_place_execution(operator, data_type):
    rng = seeded("inplace", operator, data_type)
    sizes = [3, 5, 7]
    nbytes = golden.calc_buffer_tensor_size(data_type, sizes)
    buf = rng.integers(0, 256, size=nbytes + 32, dtype=np.uint8)
    spec = TensorSpec(data_type, tuple(sizes), None, nbytes)
    args = random_args(rng, operator, data_type)
    gpu = Gpu(TEACHING, wave_width=8)
    run = DirectRun(gpu, operator, [spec, spec], [buf, 0], offsets=[16, 16], **args)
    run.dispatch()
    x = golden.gather(buf, 16, golden.DATA_TYPES[data_type], sizes)
    expected = buf.copy()
    golden.scatter(expected, 16, golden_apply(operator, [x], data_type, args))
    assert np.array_equal(run.allocations[0].data, expected)


def test_large_dispatch_many_batches_matches_golden():
    rng = seeded("large")
    n = 1_000_003
    x = (rng.normal(size=n) * 4).astype(np.float16)
    gpu = Gpu(DEFAULT_PRESET)
    check("ELEMENT_WISE_CLIP", "FLOAT16", [n], args={"min_value": -1.0, "max_value": 2.0, "scale_bias": (1.5, 0.25)},
          payload=[x], offsets=[0, 0], gpu=gpu)
