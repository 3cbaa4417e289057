"""The data movement operators through the mirror, bit for bit against the golden model (docs/NUMERICS.md, "Data
movement"): SLICE, SLICE1, PADDING, PADDING1, TILE, DEPTH_TO_SPACE(1), SPACE_TO_DEPTH(1), JOIN, SPLIT.

Drawn descs (every data type the pages list as random bit patterns, NaN payloads included; ranks 1 to 8; packed,
padded, permuted and broadcast input layouts; padded and permuted outputs) run on every adapter; the pages'
examples give the pages' outputs; the kernel alone runs on wave widths 8 to 64; the validation sentences of the
pages' rules are pinned; a graph of SLICE and JOIN nodes runs bit-exact."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from dmlemu import golden, run_operator
from dmlemu.d3d12 import *  # noqa: F401,F403
from dmlemu.directml import *  # noqa: F401,F403
from dmlemu.direct_run import DirectRun
from dmlemu.errors import E_INVALIDARG, E_NOTIMPL, HResultError
from dmlemu.gpu import Gpu
from dmlemu.kernels.data_movement_ops import MAX_PARTS
from dmlemu.kernels.driver import TensorSpec
from dmlemu.presets import PRESETS, RX_7900_XTX, WARP
from mirror_rig import MirrorRig, buffer_binding, same_bits
from tensor_layouts import data_type, layout_strides, tensor

DTYPES = {"FLOAT64": np.float64, "FLOAT32": np.float32, "FLOAT16": np.float16, "INT64": np.int64, "INT32": np.int32,
          "INT16": np.int16, "INT8": np.int8, "UINT64": np.uint64, "UINT32": np.uint32, "UINT16": np.uint16,
          "UINT8": np.uint8}
BITS = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
TYPES_8_TO_32 = ("FLOAT32", "FLOAT16", "INT32", "INT16", "INT8", "UINT32", "UINT16", "UINT8")
TYPES_64 = ("INT64", "UINT64")
# the data types of each operator's highest support row (dmlemu.directml.operators)
TYPES = {"SLICE": TYPES_8_TO_32 + TYPES_64, "SLICE1": TYPES_8_TO_32, "TILE": TYPES_8_TO_32 + TYPES_64,
         "PADDING": TYPES_8_TO_32 + TYPES_64, "PADDING1": TYPES_8_TO_32 + TYPES_64 + ("FLOAT64",),
         "JOIN": TYPES_8_TO_32 + TYPES_64, "SPLIT": TYPES_8_TO_32 + TYPES_64,
         "DEPTH_TO_SPACE": TYPES_8_TO_32, "SPACE_TO_DEPTH": TYPES_8_TO_32, "DEPTH_TO_SPACE1": TYPES_8_TO_32,
         "SPACE_TO_DEPTH1": TYPES_8_TO_32}


def desc(name, **fields):
    return globals()[f"DML_{name}_OPERATOR_DESC"](**fields)


def random_bits(rng, type_name, shape):
    """Every bit pattern equally likely (FLOAT NaNs with any payload, -0, subnormals, infinities)."""
    dtype = np.dtype(DTYPES[type_name])
    return rng.integers(0, 2 ** (8 * dtype.itemsize), size=shape, dtype=BITS[dtype.itemsize],
                        endpoint=False).view(dtype)


def output_strides(sizes, layout, rng):
    """An output layout: packed, padded or permuted (never broadcast: each element its own address)."""
    return layout_strides(sizes, layout if layout != "broadcast" else "padded", rng)[0]


def input_array(rng, type_name, sizes, layout):
    """(strides, values) of an input in `layout`: a broadcast dimension holds one value along it."""
    strides, broadcast = layout_strides(sizes, layout, rng)
    x = random_bits(rng, type_name, sizes)
    for d in broadcast:
        x = np.repeat(np.take(x, [0], axis=d), sizes[d], axis=d)
    return strides, x


# ---- drawn descs through the mirror -----------------------------------------------------------------------------
@st.composite
def cases(draw):
    name = draw(st.sampled_from(sorted(TYPES)))
    type_name = draw(st.sampled_from(TYPES[name]))
    rank = 4 if "DEPTH" in name else draw(st.integers(1, 8))
    sizes = [draw(st.integers(1, 4 if rank > 3 else 9)) for _ in range(rank)]
    return name, type_name, sizes, draw(st.sampled_from(["packed", "padded", "broadcast", "permuted"])), \
        draw(st.sampled_from(["packed", "padded", "permuted"])), draw(st.integers(0, 2 ** 32 - 1))


def build(name, type_name, sizes, layout, out_layout, rng):
    """(desc, inputs, expected outputs) of one drawn case."""
    strides, x = input_array(rng, type_name, sizes, layout)
    source = tensor(type_name, sizes, strides)
    if name == "SLICE":
        steps = [int(rng.integers(1, 4)) for _ in sizes]
        count = [int(rng.integers(1, 1 + (n - 1) // t + 1)) for n, t in zip(sizes, steps)]
        offsets = [int(rng.integers(0, n - (s - 1) * t)) for n, s, t in zip(sizes, count, steps)]
        attributes = dict(Offsets=offsets, Sizes=count, Strides=steps)
        expected = [golden.run(name, [x], attributes)]
    elif name == "SLICE1":
        offsets = [int(rng.integers(0, n)) for n in sizes]
        windows = [int(rng.integers(1, n - o + 1)) for n, o in zip(sizes, offsets)]
        steps = [int(rng.choice([-3, -2, -1, 1, 2, 3])) for _ in sizes]
        out = [int(rng.integers(1, 2 + (w - 1) // abs(t))) for w, t in zip(windows, steps)]
        attributes = dict(InputWindowOffsets=offsets, InputWindowSizes=windows, InputWindowStrides=steps)
        expected = [golden.run(name, [x], dict(attributes, OutputSizes=out))]
    elif name == "TILE":
        repeats = [1] * len(sizes)
        for d in rng.permutation(len(sizes))[:3]:     # at most 8 dimension records: a few dimensions repeat
            repeats[d] = int(rng.integers(1, 4))
        if sum(n > 1 for n in sizes) + sum(r > 1 for r in repeats) > 8:
            repeats = [1] * len(sizes)
        attributes = dict(Repeats=repeats)
        expected = [golden.run(name, [x], attributes)]
    elif name.startswith("PADDING"):
        modes = ["CONSTANT", "EDGE", "REFLECTION", "SYMMETRIC"]
        mode = getattr(DML_PADDING_MODE, "DML_PADDING_MODE_" + modes[int(rng.integers(0, 4))])
        start = [int(rng.integers(0, 4)) for _ in sizes]
        end = [int(rng.integers(0, 4)) for _ in sizes]
        if name == "PADDING":
            value = float(rng.choice([0.0, -0.0, 2.5, -7.75, 1e6, -1e10, np.inf, np.nan, 300.9]))
            attributes = dict(PaddingMode=mode, PaddingValue=value, StartPadding=start, EndPadding=end)
            expected = [golden.run(name, [x], attributes)]
        else:
            value = random_bits(rng, type_name, ())
            union = DML_SCALAR_UNION(Bytes=np.asarray(value).tobytes())
            attributes = dict(PaddingMode=mode, PaddingValueDataType=data_type(type_name), PaddingValue=union,
                              StartPadding=start, EndPadding=end)
            expected = [golden.run(name, [x], dict(attributes, PaddingValue=value))]
    elif name in ("JOIN", "SPLIT"):
        axis = int(rng.integers(0, len(sizes)))
        parts = int(rng.integers(1, MAX_PARTS + 1))
        shapes = [list(sizes) for _ in range(parts)]
        for shape in shapes:
            shape[axis] = int(rng.integers(1, 4))
        if name == "JOIN":
            arrays = [input_array(rng, type_name, s, layout) for s in shapes]
            x = [a for _, a in arrays]
            whole = np.concatenate(x, axis)
            d = desc(name, InputTensors=[tensor(type_name, s, st) for s, (st, _) in zip(shapes, arrays)],
                     OutputTensor=tensor(type_name, whole.shape, output_strides(whole.shape, out_layout, rng)),
                     Axis=axis)
            return d, x, [golden.run(name, x, dict(Axis=axis))]
        whole = list(sizes)
        whole[axis] = sum(s[axis] for s in shapes)
        strides, x = input_array(rng, type_name, whole, layout)
        d = desc(name, InputTensor=tensor(type_name, whole, strides), Axis=axis,
                 OutputTensors=[tensor(type_name, s, output_strides(s, out_layout, rng)) for s in shapes])
        return d, [x], list(golden.run(name, [x], dict(Axis=axis, OutputSizes=[s[axis] for s in shapes])))
    else:   # DEPTH_TO_SPACE(1), SPACE_TO_DEPTH(1)
        block = int(rng.integers(1, 4))
        n, c, h, w = sizes
        shape = [n, c * block * block, h, w] if name.startswith("DEPTH") else [n, c, h * block, w * block]
        strides, x = input_array(rng, type_name, shape, layout)
        source = tensor(type_name, shape, strides)
        attributes = dict(BlockSize=block)
        if name.endswith("1"):
            attributes["Order"] = int(rng.integers(0, 2))
        expected = [golden.run(name, [x], attributes)]
    out = expected[0]
    d = desc(name, InputTensor=source, OutputTensor=tensor(type_name, out.shape,
                                                           output_strides(out.shape, out_layout, rng)), **attributes)
    return d, [x], expected


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases(), st.sampled_from(PRESETS + (WARP,)))
def test_drawn_copies_are_bit_exact_on_every_adapter(case, preset):
    name, type_name, sizes, layout, out_layout, seed = case
    if DTYPES[type_name]().itemsize == 8 and not preset.supports_64bit:
        type_name = {"INT64": "INT32", "UINT64": "UINT32", "FLOAT64": "FLOAT32"}[type_name]
    rng = np.random.default_rng(seed)
    d, inputs, expected = build(name, type_name, sizes, layout, out_layout, rng)
    got = run_operator(d, inputs, adapter=preset)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert g.shape == e.shape
        same_bits(g, e)


# ---- the pages' examples ------------------------------------------------------------------------------------------
PAGE_INPUT = np.arange(1, 17, dtype=np.float32).reshape(1, 1, 4, 4)
PAD_INPUT = np.array([[1, 2, 3, 4], [5, 6, 7, 8], [1, 2, 3, 4], [5, 6, 7, 8]], np.float32).reshape(1, 1, 4, 4)


@pytest.mark.parametrize("steps, result", [([1, 1, 2, 2], [[2, 4], [10, 12]]), ([1, 1, -2, 2], [[14, 16], [6, 8]])])
def test_slice1_page_examples(steps, result):
    d = desc("SLICE1", InputTensor=tensor("FLOAT32", [1, 1, 4, 4]), OutputTensor=tensor("FLOAT32", [1, 1, 2, 2]),
             InputWindowOffsets=[0, 0, 0, 1], InputWindowSizes=[1, 1, 4, 3], InputWindowStrides=steps)
    (got,) = run_operator(d, [PAGE_INPUT])
    assert got[0, 0].tolist() == result


@pytest.mark.parametrize("mode, rows, last", [
    ("CONSTANT", [[9, 9, 9, 9, 9, 9, 9, 9, 9, 9], [9, 9, 1, 2, 3, 4, 9, 9, 9, 9]], [9] * 10),
    ("EDGE", [[1, 1, 1, 2, 3, 4, 4, 4, 4, 4], [1, 1, 1, 2, 3, 4, 4, 4, 4, 4]], [5, 5, 5, 6, 7, 8, 8, 8, 8, 8]),
    ("REFLECTION", [[7, 6, 5, 6, 7, 8, 7, 6, 5, 6], [3, 2, 1, 2, 3, 4, 3, 2, 1, 2]], [3, 2, 1, 2, 3, 4, 3, 2, 1, 2]),
    ("SYMMETRIC", [[2, 1, 1, 2, 3, 4, 4, 3, 2, 1], [2, 1, 1, 2, 3, 4, 4, 3, 2, 1]], [6, 5, 5, 6, 7, 8, 8, 7, 6, 5])])
def test_padding1_page_examples(mode, rows, last):
    d = desc("PADDING1", InputTensor=tensor("FLOAT32", [1, 1, 4, 4]), OutputTensor=tensor("FLOAT32", [1, 1, 8, 10]),
             PaddingMode=getattr(DML_PADDING_MODE, "DML_PADDING_MODE_" + mode),
             PaddingValueDataType=DML_TENSOR_DATA_TYPE_FLOAT32, PaddingValue=DML_SCALAR_UNION(Float32=9.0),
             StartPadding=[0, 0, 1, 2], EndPadding=[0, 0, 3, 4])
    (got,) = run_operator(d, [PAD_INPUT])
    assert got[0, 0, :2].tolist() == rows and got[0, 0, 7].tolist() == last


@pytest.mark.parametrize("order, first_rows", [(0, [[0, 18, 1, 19, 2, 20], [36, 54, 37, 55, 38, 56]]),
                                               (1, [[0, 9, 1, 10, 2, 11], [18, 27, 19, 28, 20, 29]])])
def test_depth_to_space1_page_examples_and_the_inverse(order, first_rows):
    values = [0, 1, 2, 3, 4, 5] + [v for base in range(9, 64, 9) for v in range(base, base + 6)]
    x = np.array(values, np.uint32).reshape(1, 8, 2, 3)
    d = desc("DEPTH_TO_SPACE1", InputTensor=tensor("UINT32", [1, 8, 2, 3]), OutputTensor=tensor("UINT32", [1, 2, 4, 6]),
             BlockSize=2, Order=order)
    (y,) = run_operator(d, [x])
    assert y[0, 0, :2].tolist() == first_rows
    back = desc("SPACE_TO_DEPTH1", InputTensor=tensor("UINT32", [1, 2, 4, 6]),
                OutputTensor=tensor("UINT32", [1, 8, 2, 3]),
                BlockSize=2, Order=order)
    assert (run_operator(back, [y])[0] == x).all()


def test_tile_and_join_page_examples():
    x = np.array([[1, 2, 3], [4, 5, 6]], np.float32).reshape(1, 1, 2, 3)
    (got,) = run_operator(desc("TILE", InputTensor=tensor("FLOAT32", [1, 1, 2, 3]),
                               OutputTensor=tensor("FLOAT32", [1, 1, 6, 9]), Repeats=[1, 1, 3, 3]), [x])
    assert got[0, 0, 3].tolist() == [4, 5, 6] * 3 and got[0, 0, 4].tolist() == [1, 2, 3] * 3
    a = np.array([[1, 2, 3], [4, 5, 6]], np.float32).reshape(1, 1, 2, 3)
    b = np.array([[7, 8, 9, 10], [11, 12, 13, 14]], np.float32).reshape(1, 1, 2, 4)
    (got,) = run_operator(desc("JOIN", InputTensors=[tensor("FLOAT32", [1, 1, 2, 3]), tensor("FLOAT32", [1, 1, 2, 4])],
                               OutputTensor=tensor("FLOAT32", [1, 1, 2, 7]), Axis=3), [a, b])
    assert got[0, 0].tolist() == [[1, 2, 3, 7, 8, 9, 10], [4, 5, 6, 11, 12, 13, 14]]


def test_padding_casts_its_float_value_as_a_bound_and_keeps_nan_payloads():
    x = np.array([0x7C01, 0xFC00, 0x8000, 0x7E00], np.uint16).view(np.float16)   # a signalling NaN payload, -inf
    d = desc("PADDING", InputTensor=tensor("FLOAT16", [4]), OutputTensor=tensor("FLOAT16", [6]),
             PaddingMode=DML_PADDING_MODE_CONSTANT, PaddingValue=1e5, StartPadding=[1], EndPadding=[1])
    (got,) = run_operator(d, [x])
    assert got.view(np.uint16).tolist() == [0x7C00, 0x7C01, 0xFC00, 0x8000, 0x7E00, 0x7C00]   # 1e5 -> +inf
    d = desc("PADDING", InputTensor=tensor("INT8", [2]), OutputTensor=tensor("INT8", [4]),
             PaddingMode=DML_PADDING_MODE_CONSTANT, PaddingValue=-300.7, StartPadding=[1], EndPadding=[1])
    (got,) = run_operator(d, [np.array([5, -6], np.int8)])
    assert got.tolist() == [-128, 5, -6, -128]


def test_periodic_folds_past_the_first_fold():
    x = np.array([1, 2, 3], np.int32)
    for mode, expected in (("REFLECTION", [1, 2, 3, 2, 1, 2, 3, 2, 1]), ("SYMMETRIC", [3, 3, 2, 1, 1, 2, 3, 3, 2]),
                           ("EDGE", [1, 1, 1, 1, 1, 2, 3, 3, 3])):
        d = desc("PADDING", InputTensor=tensor("INT32", [3]), OutputTensor=tensor("INT32", [9]),
                 PaddingMode=getattr(DML_PADDING_MODE, "DML_PADDING_MODE_" + mode), StartPadding=[4], EndPadding=[2])
        (got,) = run_operator(d, [x])
        assert got.tolist() == expected, mode
        assert got.tolist() == golden.run("PADDING", [x], dict(PaddingMode=mode, PaddingValue=0.0, StartPadding=[4],
                                                              EndPadding=[2])).tolist()


# ---- the kernel alone on every wave width ------------------------------------------------------------------------
@pytest.mark.parametrize("width", [8, 16, 32, 64])
def test_every_wave_width_gives_the_same_bits(width):
    rng = np.random.default_rng(width)
    x = random_bits(rng, "FLOAT16", (3, 70, 5))
    gpu = Gpu(RX_7900_XTX, wave_width=width, timing=False)
    out = np.zeros((3, 34, 5), np.float16)
    specs = [TensorSpec("FLOAT16", x.shape, None, x.nbytes), TensorSpec("FLOAT16", out.shape, None, out.nbytes)]
    attributes = {"InputWindowOffsets": (0, 3, 0), "InputWindowSizes": (3, 67, 5), "InputWindowStrides": (1, -2, 1)}
    run = DirectRun(gpu, "SLICE1", specs, [x.view(np.uint8).reshape(-1), out.view(np.uint8).reshape(-1)],
                    attributes=attributes)
    stats = run.dispatch()
    got = run.output_bytes(1)[:out.nbytes].view(np.float16).reshape(out.shape)
    same_bits(got, golden.run("SLICE1", [x], dict(attributes, OutputSizes=(3, 34, 5))))
    assert stats.waves == -(-out.size // 256) * -(-256 // width)


# ---- validation sentences ------------------------------------------------------------------------------------------
def refusal(d):
    with pytest.raises(HResultError) as error:
        run_operator(d, [np.zeros(1, np.float32)])
    return error.value.hresult, error.value.message


@pytest.mark.parametrize("d, sentence", [
    (desc("SLICE", InputTensor=tensor("FLOAT32", [4]), OutputTensor=tensor("FLOAT32", [2]), Offsets=[2], Sizes=[2],
          Strides=[2]),
     "Offsets[0] 2, Sizes[0] 2 and Strides[0] 2 read element 4 of dimension 0; InputTensor.Sizes[0] is 4, so "
     "DML_OPERATOR_SLICE needs Offsets[i] + (Sizes[i] - 1) * Strides[i] < InputTensor.Sizes[i]."),
    (desc("SLICE", InputTensor=tensor("FLOAT32", [4]), OutputTensor=tensor("FLOAT32", [3]), Offsets=[0], Sizes=[2],
          Strides=[1]),
     "Sizes[0] is 2 but OutputTensor.Sizes[0] is 3; DML_OPERATOR_SLICE requires the slice's Sizes to match the "
     "output's."),
    (desc("SLICE", InputTensor=tensor("FLOAT32", [4]), OutputTensor=tensor("FLOAT32", [3]), DimensionCount=2,
          Offsets=[0], Sizes=[3], Strides=[1]),
     "DimensionCount is 2 but Offsets has 1 elements; they must agree."),
    (desc("SLICE1", InputTensor=tensor("FLOAT32", [4]), OutputTensor=tensor("FLOAT32", [1]), InputWindowOffsets=[0],
          InputWindowSizes=[4], InputWindowStrides=[0]),
     "InputWindowStrides[0] is 0; DML_OPERATOR_SLICE1 requires strides that are not 0."),
    (desc("SLICE1", InputTensor=tensor("FLOAT32", [4]), OutputTensor=tensor("FLOAT32", [3]), InputWindowOffsets=[0],
          InputWindowSizes=[4], InputWindowStrides=[-2]),
     "OutputTensor.Sizes[0] is 3; DML_OPERATOR_SLICE1 with InputWindowSizes[0] 4 and InputWindowStrides[0] -2 copies "
     "1 to 2 elements of that dimension."),
    (desc("SLICE1", InputTensor=tensor("FLOAT32", [4]), OutputTensor=tensor("FLOAT32", [1]), InputWindowOffsets=[3],
          InputWindowSizes=[2], InputWindowStrides=[1]),
     "InputWindowOffsets[0] is 3 and InputWindowSizes[0] is 2; DML_OPERATOR_SLICE1 needs a window that is not empty "
     "and InputWindowOffsets[i] + InputWindowSizes[i] <= InputTensor.Sizes[i] (4)."),
    (desc("PADDING", InputTensor=tensor("FLOAT32", [4]), OutputTensor=tensor("FLOAT32", [6]), StartPadding=[1],
          EndPadding=[2]),
     "OutputTensor.Sizes is {6}; DML_OPERATOR_PADDING with InputTensor.Sizes {4}, StartPadding {1} and EndPadding "
     "{2} needs {7} (input + start + end)."),
    (desc("PADDING1", InputTensor=tensor("FLOAT32", [4]), OutputTensor=tensor("FLOAT32", [4]),
          PaddingValueDataType=DML_TENSOR_DATA_TYPE_INT32, PaddingValue=DML_SCALAR_UNION(Int32=1), StartPadding=[0],
          EndPadding=[0]),
     "PaddingValueDataType is DML_TENSOR_DATA_TYPE_INT32; it must match OutputTensor.DataType "
     "(DML_TENSOR_DATA_TYPE_FLOAT32) for DML_OPERATOR_PADDING1."),
    (desc("TILE", InputTensor=tensor("FLOAT32", [4]), OutputTensor=tensor("FLOAT32", [4]), Repeats=[0]),
     "Repeats[0] is 0; DML_OPERATOR_TILE requires repeats larger than 0."),
    (desc("TILE", InputTensor=tensor("FLOAT32", [2, 2]), OutputTensor=tensor("FLOAT32", [4, 2]), Repeats=[2]),
     "RepeatsCount is 1 but InputTensor.DimensionCount is 2; DML_OPERATOR_TILE requires them to be equal."),
    (desc("DEPTH_TO_SPACE", InputTensor=tensor("FLOAT32", [1, 6, 2, 2]), OutputTensor=tensor("FLOAT32", [1, 1, 4, 4]),
          BlockSize=2),
     "InputTensor.Sizes is {1,6,2,2}; DML_OPERATOR_DEPTH_TO_SPACE with BlockSize 2 needs a channel count "
     "divisible by BlockSize * BlockSize (4)."),
    (desc("SPACE_TO_DEPTH", InputTensor=tensor("FLOAT32", [1, 1, 4, 4]), OutputTensor=tensor("FLOAT32", [1, 4, 2, 3]),
          BlockSize=2),
     "OutputTensor.Sizes is {1,4,2,3}; DML_OPERATOR_SPACE_TO_DEPTH with InputTensor.Sizes {1,1,4,4} and "
     "BlockSize 2 needs {1,4,2,2}."),
    (desc("JOIN", InputTensors=[tensor("FLOAT32", [2, 3]), tensor("FLOAT32", [3, 3])],
          OutputTensor=tensor("FLOAT32", [5, 3]), Axis=1),
     "InputTensors[0].Sizes is {2,3} but OutputTensor.Sizes is {5,3}; DML_OPERATOR_JOIN requires the same size in "
     "every dimension but Axis (1)."),
    (desc("JOIN", InputTensors=[tensor("FLOAT32", [2, 3]), tensor("FLOAT32", [2, 3])],
          OutputTensor=tensor("FLOAT32", [2, 7]), Axis=1),
     "OutputTensor.Sizes[1] is 7 but the inputs' sizes along Axis sum to 6; DML_OPERATOR_JOIN requires them to be "
     "equal."),
    (desc("JOIN", InputTensors=[tensor("FLOAT32", [2, 3]), tensor("INT32", [2, 3])],
          OutputTensor=tensor("FLOAT32", [2, 6]), Axis=1),
     "InputTensors[1].DataType is DML_TENSOR_DATA_TYPE_INT32 but OutputTensor.DataType is "
     "DML_TENSOR_DATA_TYPE_FLOAT32; DML_OPERATOR_JOIN requires the same DataType."),
    (desc("JOIN", InputTensors=[], OutputTensor=tensor("FLOAT32", [2, 6]), Axis=1),
     "InputCount is 0; DML_OPERATOR_JOIN needs at least one tensor in InputTensors."),
    (desc("SPLIT", InputTensor=tensor("FLOAT32", [2, 6]), OutputTensors=[tensor("FLOAT32", [2, 6])], Axis=2),
     "Axis is 2; InputTensor has 2 dimensions, so DML_OPERATOR_SPLIT takes an axis from 0 to 1."),
])
def test_validation_sentences(d, sentence):
    hresult, message = refusal(d)
    assert hresult == E_INVALIDARG and sentence in message, message


def test_a_valid_desc_no_kernel_serves_is_e_notimpl_with_its_sentence():
    shapes = [[2, 1]] * (MAX_PARTS + 1)
    d = desc("JOIN", InputTensors=[tensor("FLOAT32", s) for s in shapes],
             OutputTensor=tensor("FLOAT32", [2, MAX_PARTS + 1]), Axis=1)
    with pytest.raises(HResultError) as error:
        run_operator(d, [np.zeros(s, np.float32) for s in shapes])
    assert error.value.hresult == E_NOTIMPL
    assert f"addresses at most {MAX_PARTS} inputs in its one dispatch, not {MAX_PARTS + 1}" in error.value.message
    sizes = [2] * 8
    d = desc("TILE", InputTensor=tensor("FLOAT32", sizes, layout_strides(sizes, "padded", None)[0]),
             OutputTensor=tensor("FLOAT32", [4] * 8), Repeats=[2] * 8)
    with pytest.raises(HResultError) as error:
        run_operator(d, [np.zeros(sizes, np.float32)])
    assert error.value.hresult == E_NOTIMPL and "holds 8 dimension records; this desc needs 16" in error.value.message


def test_padding_modes_follow_the_feature_levels():
    d = desc("PADDING", InputTensor=tensor("FLOAT32", [1, 1, 2, 2]), OutputTensor=tensor("FLOAT32", [1, 1, 2, 4]),
             PaddingMode=DML_PADDING_MODE_SYMMETRIC, StartPadding=[0, 0, 0, 1], EndPadding=[0, 0, 0, 1])
    with pytest.raises(HResultError) as error:
        run_operator(d, [np.zeros((1, 1, 2, 2), np.float32)], feature_level=DML_FEATURE_LEVEL_2_1)
    assert error.value.message.endswith("PaddingMode is DML_PADDING_MODE_SYMMETRIC, introduced in "
                                        "DML_FEATURE_LEVEL_3_0; this device supports up to DML_FEATURE_LEVEL_2_1.")
    d.PaddingMode = DML_PADDING_MODE_WRAP
    with pytest.raises(HResultError) as error:
        run_operator(d, [np.zeros((1, 1, 2, 2), np.float32)], feature_level=DML_FEATURE_LEVEL_6_2)
    assert "introduced in DML_FEATURE_LEVEL_6_4" in error.value.message
    x = np.arange(4, dtype=np.float32).reshape(1, 1, 2, 2)
    (got,) = run_operator(d, [x], feature_level=DML_FEATURE_LEVEL_6_4)
    assert got[0, 0].tolist() == [[1, 0, 1, 0], [3, 2, 3, 2]]


# ---- a graph of SLICE and JOIN nodes -------------------------------------------------------------------------------
def test_a_graph_of_slice_and_join_nodes_is_bit_exact():
    """Graph input 0 -> SLICE (every other column, reversed rows by SLICE1) -> JOIN with graph input 1 -> output."""
    rig = MirrorRig(dml_flags=DML_CREATE_DEVICE_FLAG_DEBUG, heap_slots=64)
    dml = rig.dml
    a = np.random.default_rng(3).standard_normal((4, 8)).astype(np.float32)
    b = np.random.default_rng(4).standard_normal((4, 2)).astype(np.float32)
    sliced = desc("SLICE1", InputTensor=tensor("FLOAT32", [4, 8]), OutputTensor=tensor("FLOAT32", [4, 4]),
                  InputWindowOffsets=[0, 0], InputWindowSizes=[4, 8], InputWindowStrides=[-1, 2])
    joined = desc("JOIN", InputTensors=[tensor("FLOAT32", [4, 4]), tensor("FLOAT32", [4, 2])],
                  OutputTensor=tensor("FLOAT32", [4, 6]), Axis=1)
    nodes = [DML_GRAPH_NODE_DESC(Type=DML_GRAPH_NODE_TYPE_OPERATOR, Desc=DML_OPERATOR_GRAPH_NODE_DESC(
        Operator=dml.CreateOperator(DML_OPERATOR_DESC(Type=t, Desc=d)), Name=name))
        for t, d, name in ((DML_OPERATOR_SLICE1, sliced, "slice"), (DML_OPERATOR_JOIN, joined, "join"))]
    edge = lambda kind, struct, **f: DML_GRAPH_EDGE_DESC(Type=kind, Desc=struct(**f))
    graph = dml.CompileGraph(DML_GRAPH_DESC(
        InputCount=2, OutputCount=1, Nodes=nodes,
        InputEdges=[edge(DML_GRAPH_EDGE_TYPE_INPUT, DML_INPUT_GRAPH_EDGE_DESC, GraphInputIndex=0, ToNodeIndex=0,
                         ToNodeInputIndex=0),
                    edge(DML_GRAPH_EDGE_TYPE_INPUT, DML_INPUT_GRAPH_EDGE_DESC, GraphInputIndex=1, ToNodeIndex=1,
                         ToNodeInputIndex=1)],
        OutputEdges=[edge(DML_GRAPH_EDGE_TYPE_OUTPUT, DML_OUTPUT_GRAPH_EDGE_DESC, FromNodeIndex=1,
                          FromNodeOutputIndex=0, GraphOutputIndex=0)],
        IntermediateEdges=[edge(DML_GRAPH_EDGE_TYPE_INTERMEDIATE, DML_INTERMEDIATE_GRAPH_EDGE_DESC, FromNodeIndex=0,
                                FromNodeOutputIndex=0, ToNodeIndex=1, ToNodeInputIndex=0)]), DML_EXECUTION_FLAG_NONE)
    props = graph.GetBindingProperties()
    buffers = []
    for array in (a, b):
        buffer = rig.buffer(max(256, array.nbytes))
        rig.write(buffer, array.view(np.uint8).reshape(-1))
        buffers.append(buffer)
    rig.initialize(graph)
    rig.execute()
    out = rig.buffer(256)
    table = rig.table(graph, size=props.RequiredDescriptorCount)
    table.BindInputs([buffer_binding(buf, 0, arr.nbytes) for buf, arr in zip(buffers, (a, b))])
    table.BindOutputs([buffer_binding(out, 0, 4 * 24)])
    if props.TemporaryResourceSize:
        table.BindTemporaryResource(buffer_binding(rig.buffer(props.TemporaryResourceSize)))
    rig.recorder.RecordDispatch(rig.list, graph, table)
    rig.execute()
    got = rig.download([out])[0][:4 * 24].view(np.float32).reshape(4, 6)
    expected = golden.run("JOIN", [golden.run("SLICE1", [a], dict(InputWindowOffsets=[0, 0], InputWindowSizes=[4, 8],
                                                                   InputWindowStrides=[-1, 2])), b], dict(Axis=1))
    same_bits(got, expected)
    assert expected[0, :4].tolist() == a[3, ::2].tolist()


def test_a_join_input_owned_by_dml_is_bound_at_initialization():
    """An element of the InputTensors array with DML_TENSOR_FLAG_OWNED_BY_DML: the initializer binds it (its input
    array, one binding per element) and the execution reads it from the persistent resource."""
    owned = tensor("FLOAT32", [2, 2])
    owned.Desc.Flags = DML_TENSOR_FLAG_OWNED_BY_DML
    a, b = np.arange(6, dtype=np.float32).reshape(2, 3), -np.arange(4, dtype=np.float32).reshape(2, 2)
    d = desc("JOIN", InputTensors=[tensor("FLOAT32", [2, 3]), owned], OutputTensor=tensor("FLOAT32", [2, 5]), Axis=1)
    (got,) = run_operator(d, [a, b])
    same_bits(got, np.concatenate([a, b], 1))
