"""DML_OPERATOR_TOP_K and TOP_K1 through the mirror, bit for bit against the golden model (docs/NUMERICS.md, "Top-K").

The pages' four examples; drawn descs (every data type, ranks 1 to 8, any axis and K, both directions, UINT32 and
UINT64 indices, packed, padded, permuted and broadcast inputs, padded outputs, NaN, infinities, -0 and many ties)
on every adapter; the kernel alone on wave widths 8 to 64 and at K = N (bounded work); the order against NumPy's
stable sort; and the validation sentences of the pages' rules."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from dmlemu import golden, run_operator
from dmlemu.d3d12 import *  # noqa: F401,F403
from dmlemu.directml import *  # noqa: F401,F403
from dmlemu.direct_run import DirectRun
from dmlemu.errors import E_INVALIDARG, HResultError
from dmlemu.gpu import Gpu
from dmlemu.kernels.driver import TensorSpec
from dmlemu.presets import PRESETS, RX_7900_XTX, WARP
from tensor_layouts import layout_strides, same_bits, tensor

DTYPES = {"FLOAT32": np.float32, "FLOAT16": np.float16, "INT32": np.int32, "UINT32": np.uint32, "INT16": np.int16,
          "UINT16": np.uint16, "INT8": np.int8, "UINT8": np.uint8, "INT64": np.int64, "UINT64": np.uint64}
INDEX_DTYPES = {"UINT32": np.uint32, "UINT64": np.uint64}
INCREASING, DECREASING = 0, 1


def top_k_desc(name, type_name, sizes, axis, k, direction=DECREASING, index_type="UINT32", in_strides=None,
               out_strides=None):
    out_sizes = [k if d == axis else s for d, s in enumerate(sizes)]
    fields = dict(InputTensor=tensor(type_name, sizes, in_strides),
                  OutputValueTensor=tensor(type_name, out_sizes, out_strides),
                  OutputIndexTensor=tensor(index_type, out_sizes, out_strides), Axis=axis, K=k)
    if name == "TOP_K1":
        return DML_TOP_K1_OPERATOR_DESC(**fields, AxisDirection=direction)
    return DML_TOP_K_OPERATOR_DESC(**fields)


def expected(name, x, axis, k, direction=DECREASING, index_type="UINT32"):
    attributes = {"Axis": axis, "K": k, **({"AxisDirection": direction} if name == "TOP_K1" else {})}
    values, indices = golden.run(name, [x], attributes)
    return values, indices.astype(INDEX_DTYPES[index_type])


def draw_values(rng, type_name, shape, ties):
    """Values with special ones (floats: NaN, +-inf, -0 and +0) or, with `ties`, a few distinct values only."""
    dtype = DTYPES[type_name]
    if type_name.startswith("FLOAT"):
        x = (rng.standard_normal(shape) * rng.choice([1e-3, 1.0, 1e3])).astype(dtype)
        if ties:
            x = np.round(x).astype(dtype)
        picks = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0], dtype)
        mask = rng.random(shape) < 0.2
        x[mask] = rng.choice(picks, size=int(mask.sum()))
        return x
    info = np.iinfo(dtype)
    x = rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)
    if ties:    # the extremes of the type, and 0, many times each
        x = np.array([info.min, 0, info.max, 1], dtype)[rng.integers(0, 4, size=shape)]
    return x


# ---- the pages' examples ------------------------------------------------------------------------------------
PAGE_INPUT = np.array([[[[0, 1, 10, 11], [3, 2, 9, 8], [4, 5, 6, 7]]]], np.float32)
TIED_INPUT = np.array([[[[1, 2, 2, 3], [3, 4, 5, 5], [6, 6, 6, 6]]]], np.float32)


@pytest.mark.parametrize("name", ["TOP_K", "TOP_K1"])
def test_the_page_examples(name):
    values, indices = run_operator(top_k_desc(name, "FLOAT32", [1, 1, 3, 4], 3, 2), [PAGE_INPUT])
    assert values[0, 0].tolist() == [[11, 10], [9, 8], [7, 6]] and indices[0, 0].tolist() == [[3, 2], [2, 3], [3, 2]]
    values, indices = run_operator(top_k_desc(name, "FLOAT32", [1, 1, 3, 4], 2, 2), [PAGE_INPUT])
    assert values[0, 0].tolist() == [[4, 5, 10, 11], [3, 2, 9, 8]]
    assert indices[0, 0].tolist() == [[2, 2, 0, 0], [1, 1, 1, 1]]
    values, indices = run_operator(top_k_desc(name, "FLOAT32", [1, 1, 3, 4], 3, 3), [TIED_INPUT])   # ties
    assert values[0, 0].tolist() == [[3, 2, 2], [5, 5, 4], [6, 6, 6]]
    assert indices[0, 0].tolist() == [[3, 1, 2], [2, 3, 1], [0, 1, 2]]


def test_the_increasing_example_of_top_k1():
    values, indices = run_operator(top_k_desc("TOP_K1", "FLOAT32", [1, 1, 3, 4], 3, 3, INCREASING), [TIED_INPUT])
    assert values[0, 0].tolist() == [[1, 2, 2], [3, 4, 5], [6, 6, 6]]
    assert indices[0, 0].tolist() == [[0, 1, 2]] * 3


# ---- drawn descs through the mirror ------------------------------------------------------------------------
@st.composite
def cases(draw):
    name = draw(st.sampled_from(["TOP_K", "TOP_K1"]))
    type_name = draw(st.sampled_from(sorted(DTYPES)))
    rank = draw(st.integers(1, 8))
    sizes = [draw(st.integers(1, 4 if rank > 3 else 90)) for _ in range(rank)]
    axis = draw(st.integers(0, rank - 1))
    k = draw(st.integers(1, min(sizes[axis], 12)))
    return (name, type_name, sizes, axis, k, draw(st.sampled_from([INCREASING, DECREASING])),
            draw(st.sampled_from(sorted(INDEX_DTYPES))), draw(st.sampled_from(["packed", "padded", "permuted",
                                                                               "broadcast"])),
            draw(st.booleans()), draw(st.booleans()), draw(st.integers(0, 2 ** 32 - 1)))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases(), st.sampled_from(PRESETS + (WARP,)))
def test_drawn_top_k_descs_are_bit_exact_on_every_adapter(case, preset):
    name, type_name, sizes, axis, k, direction, index_type, layout, padded_out, ties, seed = case
    if not preset.supports_64bit:          # no 64-bit tensors there: their 32-bit siblings
        type_name, index_type = type_name.replace("64", "32"), "UINT32"
    rng = np.random.default_rng(seed)
    in_strides, broadcast = layout_strides(sizes, layout, rng)
    x = draw_values(rng, type_name, sizes, ties)
    for d in broadcast:      # every element of a stride-0 dimension is the one stored value
        x = np.repeat(np.take(x, [0], axis=d), sizes[d], axis=d)
    out_sizes = [k if d == axis else s for d, s in enumerate(sizes)]
    out_strides = layout_strides(out_sizes, "padded", rng)[0] if padded_out else None
    desc = top_k_desc(name, type_name, sizes, axis, k, direction, index_type, in_strides, out_strides)
    values, indices = run_operator(desc, [x], adapter=preset)
    want_values, want_indices = expected(name, x, axis, k, direction, index_type)
    same_bits(values, want_values)
    same_bits(indices, want_indices)


# ---- the order: ties, NaN, -0 ----------------------------------------------------------------------------------
def test_nan_is_the_largest_and_minus_zero_ties_with_zero():
    nan = np.float32(np.nan)
    x = np.array([1, nan, -0.0, np.inf, 0.0, -np.inf, nan, -0.0], np.float32)
    values, indices = run_operator(top_k_desc("TOP_K1", "FLOAT32", [8], 0, 8, DECREASING), [x])
    assert indices.tolist() == [1, 6, 3, 0, 2, 4, 7, 5]
    same_bits(values, x[indices])       # the selected elements' own bits (-0 stays -0)
    values, indices = run_operator(top_k_desc("TOP_K1", "FLOAT32", [8], 0, 8, INCREASING), [x])
    assert indices.tolist() == [5, 2, 4, 7, 0, 3, 1, 6]
    payload = np.array([0x7FC00001, 0xFFC12345, 0x3F800000], np.uint32).view(np.float32)   # NaN payloads move
    values, _ = run_operator(top_k_desc("TOP_K", "FLOAT32", [3], 0, 2), [payload])
    assert values.view(np.uint32).tolist() == [0x7FC00001, 0xFFC12345]
    half = np.array([0x7E01, 0x8000, 0x0000, 0xFC00], np.uint16).view(np.float16)
    values, indices = run_operator(top_k_desc("TOP_K1", "FLOAT16", [4], 0, 4, INCREASING, "UINT64"), [half])
    assert indices.tolist() == [3, 1, 2, 0] and values.view(np.uint16).tolist() == [0xFC00, 0x8000, 0x0000, 0x7E01]


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["INT8", "UINT16", "INT32", "UINT32", "INT64", "UINT64"]), st.integers(1, 70),
       st.sampled_from([INCREASING, DECREASING]), st.integers(0, 2 ** 32 - 1))
def test_integers_follow_numpys_stable_sort(type_name, count, direction, seed):
    rng = np.random.default_rng(seed)
    x = draw_values(rng, type_name, (2, count), ties=bool(seed % 2))
    k = int(rng.integers(1, min(count, 20) + 1))
    values, indices = run_operator(top_k_desc("TOP_K1", type_name, [2, count], 1, k, direction), [x])
    # descending with ties in index order: a stable sort of the reversed row, read backwards
    order = (np.argsort(x, axis=1, kind="stable") if direction == INCREASING
             else count - 1 - np.argsort(x[:, ::-1], axis=1, kind="stable")[:, ::-1])
    assert indices.tolist() == order[:, :k].tolist()
    assert values.tolist() == np.take_along_axis(x, order[:, :k], axis=1).tolist()


# ---- the same kernel on every wave width, and K = N ------------------------------------------------------------
def run_kernel(x, type_name, axis, k, direction, width, index_type="UINT32"):
    gpu = Gpu(RX_7900_XTX, wave_width=width, timing=False)
    out_sizes = tuple(k if d == axis else s for d, s in enumerate(x.shape))
    values = np.zeros(out_sizes, x.dtype)
    indices = np.zeros(out_sizes, INDEX_DTYPES[index_type])
    specs = [TensorSpec(type_name, x.shape, None, x.nbytes), TensorSpec(type_name, out_sizes, None, values.nbytes),
             TensorSpec(index_type, out_sizes, None, indices.nbytes)]
    run = DirectRun(gpu, "TOP_K1", specs, [a.view(np.uint8).reshape(-1) for a in (x, values, indices)],
                    attributes={"Axis": axis, "K": k, "AxisDirection": direction})
    stats = run.dispatch()
    got_values = run.output_bytes(1)[:values.nbytes].view(values.dtype).reshape(out_sizes)
    got_indices = run.output_bytes(2)[:indices.nbytes].view(indices.dtype).reshape(out_sizes)
    return got_values, got_indices, stats


@pytest.mark.parametrize("type_name, count, k, lanes", [
    ("FLOAT32", 150, 5, 64), ("FLOAT16", 150, 3, 64), ("INT8", 40, 40, 64), ("UINT64", 150, 4, 64),
    ("FLOAT32", 5000, 2, 128), ("INT16", 70000, 1, 1024)])
def test_every_wave_width_gives_the_same_bits(type_name, count, k, lanes):
    rng = np.random.default_rng(3)
    x = draw_values(rng, type_name, (3, count), ties=type_name == "INT8")
    want_values, want_indices = expected("TOP_K1", x, 1, k, DECREASING)
    for width in (8, 16, 32, 64):
        values, indices, stats = run_kernel(x, type_name, 1, k, DECREASING, width)
        assert stats.workgroups == 3 and stats.waves == 3 * -(-lanes // width)
        # per pass: the write before the tree, one per tree level (log2 L), the read of the pick
        assert stats.barriers == 3 * k * (lanes.bit_length() + 1)
        same_bits(values, want_values)
        same_bits(indices, want_indices)


def test_k_equal_to_the_whole_axis_sorts_it():
    x = draw_values(np.random.default_rng(9), "FLOAT32", (2, 90), ties=True)
    for direction in (INCREASING, DECREASING):
        values, indices = run_operator(top_k_desc("TOP_K1", "FLOAT32", [2, 90], 1, 90, direction), [x])
        want_values, want_indices = expected("TOP_K1", x, 1, 90, direction)
        same_bits(values, want_values)
        same_bits(indices, want_indices)
        assert sorted(indices[0].tolist()) == list(range(90))


# ---- validation ------------------------------------------------------------------------------------------------
def refusal(desc, level=None):
    dml = DMLCreateDevice(D3D12CreateDevice(None, D3D_FEATURE_LEVEL_11_0), DML_CREATE_DEVICE_FLAG_NONE,
                          **({} if level is None else {"max_feature_level": level}))
    op_type = DML_OPERATOR_TOP_K1 if isinstance(desc, DML_TOP_K1_OPERATOR_DESC) else DML_OPERATOR_TOP_K
    try:
        dml.CreateOperator(DML_OPERATOR_DESC(Type=op_type, Desc=desc))
    except HResultError as error:
        return error.hresult, error.message
    return "validated"


def test_k_and_axis_are_checked():
    desc = top_k_desc("TOP_K1", "FLOAT32", [2, 3], 1, 3)
    assert refusal(desc) == "validated"          # K may be the whole axis (DEVIATIONS.md, "Top-K")
    desc.K = 4
    assert refusal(desc) == (E_INVALIDARG, "K is 4; InputTensor.Sizes is {2,3}, so DML_OPERATOR_TOP_K1 along Axis 1 "
                                           "takes K from 1 to 3.")
    desc.K = 0
    assert refusal(desc) == (E_INVALIDARG, "K is 0; it must be an integer from 1 to 4294967295.")
    desc = top_k_desc("TOP_K", "FLOAT32", [2, 3], 1, 2)
    desc.Axis = 2
    assert refusal(desc) == (E_INVALIDARG, "Axis is 2; InputTensor has 2 dimensions, so DML_OPERATOR_TOP_K takes Axis "
                                           "0 to 1.")


def test_the_outputs_have_the_inputs_sizes_but_k_along_the_axis():
    desc = top_k_desc("TOP_K", "FLOAT32", [2, 5], 1, 2)
    desc.OutputValueTensor = tensor("FLOAT32", [2, 3])
    desc.OutputIndexTensor = tensor("UINT32", [2, 3])
    assert refusal(desc) == (E_INVALIDARG, "OutputValueTensor.Sizes is {2,3}; DML_OPERATOR_TOP_K with "
                                           "InputTensor.Sizes {2,5}, Axis 1 and K 2 needs {2,2}.")
    desc = top_k_desc("TOP_K", "FLOAT32", [2, 5], 1, 2)
    desc.OutputIndexTensor = tensor("UINT32", [2, 3])
    assert refusal(desc)[0] == E_INVALIDARG


def test_the_type_rules_and_rows():
    desc = top_k_desc("TOP_K1", "FLOAT32", [2, 5], 1, 2)
    desc.OutputValueTensor = tensor("FLOAT16", [2, 2])
    assert refusal(desc)[0] == E_INVALIDARG
    desc = top_k_desc("TOP_K1", "FLOAT32", [2, 5], 1, 2, index_type="INT32")
    assert refusal(desc) == (E_INVALIDARG, "OutputIndexTensor.DataType is DML_TENSOR_DATA_TYPE_INT32; "
                                           "DML_FEATURE_LEVEL_6_4 allows UINT64, UINT32 for OutputIndexTensor of "
                                           "DML_OPERATOR_TOP_K1.")
    # 64-bit types from DML_FEATURE_LEVEL_5_0; below DML_FEATURE_LEVEL_3_1 four dimensions only
    assert refusal(top_k_desc("TOP_K1", "INT64", [2, 5], 1, 2), DML_FEATURE_LEVEL_5_0) == "validated"
    assert refusal(top_k_desc("TOP_K1", "INT64", [2, 5], 1, 2), DML_FEATURE_LEVEL_4_1)[0] == E_INVALIDARG
    assert refusal(top_k_desc("TOP_K1", "FLOAT32", [2, 5], 1, 2, index_type="UINT64"),
                   DML_FEATURE_LEVEL_4_1)[0] == E_INVALIDARG
    assert refusal(top_k_desc("TOP_K", "INT8", [1, 1, 2, 5], 3, 2), DML_FEATURE_LEVEL_2_1) == "validated"
    assert refusal(top_k_desc("TOP_K", "INT8", [2, 5], 1, 2), DML_FEATURE_LEVEL_2_1)[0] == E_INVALIDARG
    assert refusal(top_k_desc("TOP_K", "INT8", [1, 1, 2, 5], 3, 2), DML_FEATURE_LEVEL_2_0)[0] == E_INVALIDARG
    assert refusal(top_k_desc("TOP_K", "FLOAT16", [1, 1, 2, 5], 3, 2), DML_FEATURE_LEVEL_1_0) == "validated"
