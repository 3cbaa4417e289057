"""Element-wise cases shared by the kernel, executor and mirror tests: seeded generators, special values,
random layouts and attributes, and `check_operator`, which runs one operator's kernel on random tensors and
compares every output byte with the golden model (guard bytes included)."""
import zlib

import numpy as np

from dmlemu import golden
from dmlemu.direct_run import DirectRun
from dmlemu.gpu import Gpu
from dmlemu.kernels.driver import TensorSpec, tensor_types
from dmlemu.directml.operators import SCHEMAS_BY_NAME
from dmlemu.kernels.element_wise_ops import FUSABLE, OPERATORS
from dmlemu.presets import TEACHING

def random_sizes(rng, ndim, max_elements=300):
    sizes = [1] * ndim
    for i in range(ndim):
        sizes[i] = int(rng.integers(1, 5))
    while int(np.prod(sizes)) > max_elements:
        sizes[int(np.argmax(sizes))] -= 1
    return sizes


def random_strides(rng, sizes, output):
    """Broadcasting (0), padding and transposed layouts; outputs keep distinct addresses."""
    order = rng.permutation(len(sizes))   # a random dimension order: transposed layouts
    strides, step = [0] * len(sizes), 1
    for d in reversed(order):
        if not output and rng.random() < 0.25:
            strides[d] = 0
            continue
        strides[d] = step
        step *= sizes[d] + int(rng.integers(0, 2))  # padding
    return strides


GUARD = 24


LEGACY = ("ELEMENT_WISE_IDENTITY", "ELEMENT_WISE_THRESHOLD", "ELEMENT_WISE_CLIP", "ELEMENT_WISE_IF")


NEW = tuple(name for name in OPERATORS if name not in LEGACY)


def seeded(*parts):
    return np.random.default_rng(zlib.crc32(repr(parts).encode()))


def specials(dtype):
    """Values every test mixes in: NaNs (quiet, signalling, negative), +-0, +-inf, subnormals, halves,
    the largest finite values; integer extremes and neighbours of zero."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        bits = {2: [0x7E00, 0x7C01, 0xFE12, 0x0001, 0x8001, 0x03FF], 4: [0x7FC00000, 0x7F800001, 0xFFC01234,
                                                                            0x00000001, 0x80000001, 0x007FFFFF],
                8: [0x7FF8000000000000, 0x7FF0000000000001, 0x0000000000000001]}[dtype.itemsize]
        values = np.array([0.0, -0.0, np.inf, -np.inf, 0.5, -0.5, 1.5, -2.5, 2.5, 1.0, -1.0, 3.0, -7.0, 65504.0,
                           -65504.0, 1e-3, 1e30, -1e30, 3.4e38], dtype=np.float64)
        with np.errstate(over="ignore"):
            out = values.astype(dtype)
        return np.concatenate([out, np.array(bits, dtype={2: np.uint16, 4: np.uint32, 8: np.uint64}[
            dtype.itemsize]).view(dtype)])
    info = np.iinfo(dtype)
    values = [info.min, info.max, 0, 1, 2, 3, 7, 8, 31, 32, 33, 63, 64, info.max - 1, info.min + 1]
    if info.min < 0:
        values += [-1, -2, -3, -7, -8, -31, -32, -64]
    return np.array(values, dtype=np.int64 if info.min < 0 else np.uint64).astype(dtype)


def random_values(rng, dtype, shape):
    dtype = np.dtype(dtype)
    n = int(np.prod(shape))
    bits = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[dtype.itemsize]
    raw = rng.integers(0, np.iinfo(bits).max, size=n, dtype=bits, endpoint=True).view(dtype).copy()
    if dtype.kind == "f":     # mostly ordinary numbers, so that arithmetic is exercised away from the specials
        with np.errstate(over="ignore"):
            normal = (rng.normal(size=n) * 10.0 ** rng.integers(-3, 4, size=n)).astype(dtype)
        raw = np.where(rng.random(n) < 0.7, normal, raw)
    else:
        small = rng.integers(-9 if dtype.kind == "i" else 0, 10, size=n).astype(dtype)
        raw = np.where(rng.random(n) < 0.3, small, raw)
    pick = rng.random(n) < 0.25
    s = specials(dtype)
    raw[pick] = s[rng.integers(0, s.size, size=int(pick.sum()))]
    return raw.reshape(shape)


def random_attributes(rng, name, data_type):
    """Attributes by C field name, as validation.OperatorInfo.attributes carries them."""
    dtype = golden.DATA_TYPES[data_type]
    op = OPERATORS[name]
    at = {}
    pick_float = lambda: float(rng.choice([0.0, -0.0, 0.5, 1.0, -1.5, 2.0, 0.2, np.nan, np.inf, 100.0, -3.0]))
    for field in op.bounds:
        at[field] = pick_float()
    for field, encoding in op.params:
        if encoding == "f32":
            at[field] = np.float32(pick_float() if rng.random() < 0.3 else rng.normal())
        elif encoding == "tensor":
            at[field] = random_values(rng, dtype, (1,))[0]
        else:
            at[field] = int(rng.integers(0, 3))
    if op.activation and data_type in ("FLOAT32", "FLOAT16") and rng.random() < 0.7:
        act = str(rng.choice(FUSABLE))
        at["FusedActivation"] = (act, random_attributes(rng, act, data_type))
    return at


def output_type_for(rng, name, data_type):
    op = OPERATORS[name]
    if op.output in ("u32", "any"):
        return str(rng.choice(op.output_types))
    return None


def own_sizes(name, sizes):
    """Each tensor's Sizes: `sizes`, or one element per dimension for the tensors the schema requires to hold
    one element (QUANTIZED_LINEAR_ADD's scales and zero points, broadcast by the kernel)."""
    single = set(SCHEMAS_BY_NAME[name].single_element) if name in SCHEMAS_BY_NAME else set()
    return [(1,) * len(sizes) if field in single else tuple(sizes) for field in OPERATORS[name].tensors]


def check_operator(name, data_type, sizes, *, rng, strides=None, offsets=None, attributes=None, scale_bias=None,
                   half=False, width=8, output_type=None, payload=None, gpu=None, types=None, absent=()):
    """Run one case through the kernel and the golden model; assert bit equality of the whole output buffer.
    `types`: every tensor's data type (default: tensor_types); `absent`: optional tensors left out (None specs,
    a garbage buffer the kernel must not read, None to the golden model)."""
    if types is None:
        types = list(tensor_types(name, data_type, output_type) if OPERATORS[name].type_combos
                     else tensor_types(name, data_type))
        if output_type is not None:
            types[-1] = output_type
    types = list(types)
    strides = strides or [None] * len(types)
    offsets = offsets or [16 * int(rng.integers(0, 3)) for _ in types]
    specs, buffers, inputs = [], [], []
    for t, (dt, st_, off, own) in enumerate(zip(types, strides, offsets, own_sizes(name, sizes))):
        nbytes = golden.calc_buffer_tensor_size(dt, own, st_)
        specs.append(None if t in absent else TensorSpec(dt, own, None if st_ is None else tuple(st_), nbytes))
        buf = rng.integers(0, 256, size=off + nbytes + GUARD, dtype=np.uint8)
        if t < len(types) - 1:
            values = payload[t] if payload is not None else random_values(rng, golden.DATA_TYPES[dt], own)
            golden.scatter(buf, off, np.resize(values, own).astype(golden.DATA_TYPES[dt]), st_)
        buffers.append(buf)
    gpu = gpu or Gpu(TEACHING, wave_width=width)
    run = DirectRun(gpu, name, specs, buffers, offsets=offsets, attributes=attributes, scale_bias=scale_bias,
                    half_precision=half)
    stats = run.dispatch()
    inputs = [None if t in absent else golden.gather(b, o, golden.DATA_TYPES[dt], own, s)
              for t, (b, o, dt, s, own) in enumerate(zip(buffers[:-1], offsets[:-1], types[:-1], strides[:-1],
                                                         own_sizes(name, sizes)))]
    result = golden.run(name, inputs, attributes, scale_bias, half, output_type=types[-1])
    expected = buffers[-1].copy()
    golden.scatter(expected, offsets[-1], np.asarray(result).astype(golden.DATA_TYPES[types[-1]]), strides[-1])
    got = run.allocations[-1].data
    if not np.array_equal(got, expected):
        bad = np.flatnonzero(got != expected)
        out = golden.gather(got, offsets[-1], golden.DATA_TYPES[types[-1]], sizes, strides[-1]).reshape(-1)
        want = np.asarray(result).astype(golden.DATA_TYPES[types[-1]]).reshape(-1)
        bits = lambda a: a.view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize])
        diff = np.flatnonzero(bits(out) != bits(want))
        shown = [(tuple(np.broadcast_to(i, sizes).reshape(-1)[k] for i in inputs if i is not None), out[k], want[k])
                 for k in diff[:4]]
        raise AssertionError(f"{name} {types} sizes={sizes} strides={strides} attributes={attributes} "
                             f"sb={scale_bias} half={half}: {bad.size} bytes differ; (inputs, kernel, golden): "
                             f"{shown}")
    for original, allocation in zip(buffers[:-1], run.allocations[:-1]):
        assert np.array_equal(original, allocation.data), "an input buffer was written"
    assert stats.oob_reads == 0 and stats.oob_writes == 0
    run.free()
    return stats

