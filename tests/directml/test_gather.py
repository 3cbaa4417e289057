"""GATHER, GATHER_ELEMENTS, GATHER_ND and GATHER_ND1 through the mirror, bit for bit against the golden model.

Drawn descs (ranks 1 to 8, axes, index dimensions, batch dimensions, every data type and index type, packed,
padded, permuted and broadcast layouts, hostile indices: negative, out of range, 64-bit values past 2^32) run on
every adapter; the out-of-range rule (docs/NUMERICS.md, "Gathers") is checked against a literal reading, the page
examples and the validation sentences of the pages' shape rules are pinned, and a GATHER node runs in a graph."""
import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st

from dmlemu import golden, run_operator
from dmlemu.d3d12 import *  # noqa: F401,F403
from dmlemu.directml import *  # noqa: F401,F403
from dmlemu.errors import E_INVALIDARG, E_NOTIMPL, HResultError
from dmlemu.presets import PRESETS, WARP
from tensor_layouts import data_type, layout_strides, tensor

DTYPES = {"FLOAT64": np.float64, "FLOAT32": np.float32, "FLOAT16": np.float16, "INT64": np.int64,
          "INT32": np.int32, "INT16": np.int16, "INT8": np.int8, "UINT64": np.uint64, "UINT32": np.uint32,
          "UINT16": np.uint16, "UINT8": np.uint8}
INDEX_TYPES = ("INT32", "UINT32", "INT64", "UINT64")
NARROWER = {"FLOAT64": "FLOAT32", "INT64": "INT32", "UINT64": "UINT32"}
BITS = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
OPERATORS = ("GATHER", "GATHER_ELEMENTS", "GATHER_ND", "GATHER_ND1")


def gather_desc(name, type_name, index_type, in_sizes, idx_sizes, out_sizes, attributes, strides=(None,) * 3):
    struct = globals()[f"DML_{name}_OPERATOR_DESC"]
    return struct(InputTensor=tensor(type_name, in_sizes, strides[0]),
                  IndicesTensor=tensor(index_type, idx_sizes, strides[1]),
                  OutputTensor=tensor(type_name, out_sizes, strides[2]), **attributes)


def same_bits(got, expected):
    got, expected = np.asarray(got), np.asarray(expected)
    assert got.shape == expected.shape and got.dtype == expected.dtype, (got.shape, expected.shape)
    bits = BITS[got.dtype.itemsize]
    diff = np.flatnonzero(got.view(bits) != expected.view(bits))
    assert diff.size == 0, f"{diff.size} elements differ, first at {diff[:5]}"


def data(rng, type_name, shape):
    """Random bits of the type (NaNs with payloads, infinities, -0 and subnormals among the floats)."""
    bits = BITS[np.dtype(DTYPES[type_name]).itemsize]
    raw = rng.integers(0, np.iinfo(bits).max, size=shape, dtype=bits, endpoint=True)
    return raw.view(DTYPES[type_name])


def hostile_indices(rng, index_type, shape, size):
    """Mostly in range (negative ones for signed types), some just outside, some far outside."""
    dtype = DTYPES[index_type]
    signed = index_type.startswith("INT")
    low = -size if signed else 0
    values = rng.integers(low, size, size=shape).astype(np.int64)
    info = np.iinfo(dtype)
    picks = [size, size + 1, int(info.max), int(info.min)] + ([-size - 1, -(1 << 32) + 1, (1 << 32)] if signed else
                                                              [1 << 32] if info.max > 1 << 32 else [])
    out = values.astype(dtype)
    mask = rng.random(shape) < 0.12
    picks = [p for p in picks if info.min <= p <= info.max]
    if mask.any():
        out[mask] = np.array([picks[k] for k in rng.integers(0, len(picks), size=int(mask.sum()))], dtype=dtype)
    return out


def broadcast_values(x, broadcast, sizes):
    for d in broadcast:        # every element of a stride-0 dimension is the one stored value
        x = np.repeat(np.take(x, [0], axis=d), sizes[d], axis=d)
    return x


# ---- drawn descs ------------------------------------------------------------------------------------------------
@st.composite
def cases(draw):
    name = draw(st.sampled_from(OPERATORS))
    rank = draw(st.integers(1, 8))
    small = 3 if rank > 4 else 6
    in_sizes = [draw(st.integers(1, small)) for _ in range(rank)]
    if name == "GATHER":
        axis = draw(st.integers(0, rank - 1))
        k = draw(st.integers(0, min(rank, 3)))
        idx_sizes = [1] * (rank - k) + [draw(st.integers(1, small)) for _ in range(k)]
        # the output holds rank dimensions: the first k - 1 of the concatenated sizes must be 1 (cropped)
        crop = k - 1
        for d in range(min(axis, max(crop, 0))):
            in_sizes[d] = 1
        for d in range(rank - k, rank - k + max(crop - axis, 0)):
            idx_sizes[d] = 1
        attributes = {"Axis": axis, "IndexDimensions": k}
    elif name == "GATHER_ELEMENTS":
        axis = draw(st.integers(0, rank - 1))
        idx_sizes = list(in_sizes)
        idx_sizes[axis] = draw(st.integers(1, small))
        attributes = {"Axis": axis}
    else:
        ri = draw(st.integers(1, rank))
        qi = draw(st.integers(1, rank))
        batch = draw(st.integers(0, min(ri, qi) - 1)) if name == "GATHER_ND1" else 0
        m = draw(st.integers(1, ri - batch))
        assume((qi - 1) + (ri - batch - m) <= rank)
        idx_sizes = [draw(st.integers(1, 2)) for _ in range(rank - qi)] + [draw(st.integers(1, small))
                                                                            for _ in range(qi)]
        idx_sizes[-1] = m
        for i in range(batch):
            idx_sizes[rank - qi + i] = in_sizes[rank - ri + i]
        attributes = {"InputDimensionCount": ri, "IndicesDimensionCount": qi}
        if name == "GATHER_ND1":
            attributes["BatchDimensionCount"] = batch
    type_name = draw(st.sampled_from(sorted(DTYPES)))
    index_type = draw(st.sampled_from(INDEX_TYPES))
    layouts = (draw(st.sampled_from(["packed", "padded", "permuted", "broadcast"])),
               draw(st.sampled_from(["packed", "padded", "permuted", "broadcast"])),
               draw(st.sampled_from(["packed", "padded", "permuted"])))
    return name, type_name, index_type, in_sizes, idx_sizes, attributes, layouts, draw(st.integers(0, 2 ** 32 - 1))


def out_sizes_of(name, x, idx, attributes):
    return golden.run(name, [x, idx], attributes).shape


@settings(max_examples=45, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(cases(), st.sampled_from(PRESETS + (WARP,)))
def test_drawn_gathers_are_bit_exact_on_every_adapter(case, preset):
    name, type_name, index_type, in_sizes, idx_sizes, attributes, layouts, seed = case
    if not preset.supports_64bit:
        type_name, index_type = NARROWER.get(type_name, type_name), NARROWER.get(index_type, index_type)
    rng = np.random.default_rng(seed)
    in_strides, in_broadcast = layout_strides(in_sizes, layouts[0], rng)
    idx_strides, idx_broadcast = layout_strides(idx_sizes, layouts[1], rng)
    x = broadcast_values(data(rng, type_name, in_sizes), in_broadcast, in_sizes)
    # the size each index is checked against: the largest of the dimensions a component may name
    idx = hostile_indices(rng, index_type, idx_sizes, max(in_sizes))
    idx = broadcast_values(idx, idx_broadcast, idx_sizes)
    expected = golden.run(name, [x, idx], attributes)
    out_strides = layout_strides(list(expected.shape), layouts[2], rng)[0]
    desc = gather_desc(name, type_name, index_type, in_sizes, idx_sizes, expected.shape, attributes,
                       (in_strides, idx_strides, out_strides))
    try:
        (got,) = run_operator(desc, [x, idx], adapter=preset)
    except HResultError as error:      # rank 8, every dimension apart: more records than the buffer holds
        assert error.hresult == E_NOTIMPL and "dimension records" in error.message, error.message
        assume(False)
    same_bits(got, expected)


# ---- the out-of-range rule, read literally ----------------------------------------------------------------------
def literal_gather(x, indices, axis):
    """GATHER with IndexDimensions = rank of a 1-D index vector, element by element (docs/NUMERICS.md)."""
    size = x.shape[axis]
    out = np.zeros(x.shape[:axis] + indices.shape + x.shape[axis + 1:], x.dtype)
    for n, i in enumerate(indices.tolist()):
        if i < 0 and indices.dtype.kind == "i":
            i += size
        if 0 <= i < size:
            out[(slice(None),) * axis + (n,)] = np.take(x, i, axis=axis)
    return out


@pytest.mark.parametrize("index_type", INDEX_TYPES)
def test_negative_indices_count_from_the_end_and_others_outside_read_zero(index_type):
    x = np.arange(1, 13, dtype=np.float32).reshape(3, 4)
    dtype = DTYPES[index_type]
    picks = [0, 2, 3, 4, 7, -1, -4, -5, 1 << 31, (1 << 32) + 1, -(1 << 32) + 2, int(np.iinfo(dtype).max),
             int(np.iinfo(dtype).min)]
    values = np.array([p for p in picks if np.iinfo(dtype).min <= p <= np.iinfo(dtype).max], dtype)
    idx = values.reshape(1, -1)
    desc = gather_desc("GATHER", "FLOAT32", index_type, [3, 4], [1, idx.size], [3, idx.size],
                       {"Axis": 1, "IndexDimensions": 1})
    (got,) = run_operator(desc, [x, idx])
    same_bits(got, literal_gather(x, values, 1))
    same_bits(got, golden.run("GATHER", [x, idx], {"Axis": 1, "IndexDimensions": 1}))
    if index_type.startswith("INT"):
        assert got[:, list(values).index(-1)].tolist() == [4.0, 8.0, 12.0]


def test_the_gather_elements_page_example():
    x = np.arange(1, 10, dtype=np.float32).reshape(3, 3)
    idx = np.array([[1, 2, 0], [2, 0, 0]], np.uint32)
    (got,) = run_operator(gather_desc("GATHER_ELEMENTS", "FLOAT32", "UINT32", [3, 3], [2, 3], [2, 3], {"Axis": 0}),
                          [x, idx])
    assert got.tolist() == [[4, 8, 3], [7, 2, 3]]


def test_a_gather_nd_of_two_coordinate_tuples():
    x = np.arange(8, dtype=np.int32).reshape(1, 2, 2, 2)
    idx = np.array([[[[0, 1], [1, 0]]]], np.int64)           # {1,1,2,2}: two tuples of 2 coordinates
    attributes = {"InputDimensionCount": 3, "IndicesDimensionCount": 2}
    (got,) = run_operator(gather_desc("GATHER_ND", "INT32", "INT64", [1, 2, 2, 2], [1, 1, 2, 2], [1, 1, 2, 2],
                                      attributes), [x, idx])
    assert got.reshape(2, 2).tolist() == [[2, 3], [4, 5]]


def test_gather_nd1_pairs_each_batch_with_its_own_indices():
    x = np.arange(12, dtype=np.float32).reshape(2, 3, 2)
    idx = np.array([[[2]], [[0]]], np.int32)                   # batch 0 takes row 2, batch 1 row 0
    attributes = {"InputDimensionCount": 3, "IndicesDimensionCount": 3, "BatchDimensionCount": 1}
    (got,) = run_operator(gather_desc("GATHER_ND1", "FLOAT32", "INT32", [2, 3, 2], [2, 1, 1], [2, 1, 2], attributes),
                          [x, idx])
    assert got.tolist() == [[[4, 5]], [[6, 7]]]


# ---- validation ------------------------------------------------------------------------------------------------
def refusal(desc):
    dml = DMLCreateDevice(D3D12CreateDevice(None, D3D_FEATURE_LEVEL_11_0), DML_CREATE_DEVICE_FLAG_NONE)
    op_type = getattr(DML_OPERATOR_TYPE, "DML_OPERATOR_" + type(desc).__name__[4:-len("_OPERATOR_DESC")])
    try:
        dml.CreateOperator(DML_OPERATOR_DESC(Type=op_type, Desc=desc))
    except HResultError as error:
        return error.hresult, error.message
    return "validated"


def test_the_gather_shape_rules_are_pinned():
    ok = gather_desc("GATHER", "FLOAT32", "UINT32", [2, 3], [1, 4], [2, 4], {"Axis": 1, "IndexDimensions": 1})
    assert refusal(ok) == "validated"
    desc = gather_desc("GATHER", "FLOAT32", "UINT32", [2, 3], [1, 4], [2, 4], {"Axis": 2, "IndexDimensions": 1})
    assert refusal(desc) == (E_INVALIDARG, "Axis is 2; InputTensor has 2 dimensions, so DML_OPERATOR_GATHER takes "
                                           "Axis 0 to 1.")
    desc = gather_desc("GATHER", "FLOAT32", "UINT32", [2, 3], [1, 4], [2, 4], {"Axis": 1, "IndexDimensions": 3})
    assert refusal(desc) == (E_INVALIDARG, "IndexDimensions is 3; IndicesTensor has 2 dimensions, so "
                                           "DML_OPERATOR_GATHER takes IndexDimensions 0 to 2.")
    desc = gather_desc("GATHER", "FLOAT32", "UINT32", [2, 3], [1, 4], [2, 3], {"Axis": 1, "IndexDimensions": 1})
    assert refusal(desc) == (E_INVALIDARG, "OutputTensor.Sizes is {2,3}; DML_OPERATOR_GATHER with InputTensor.Sizes "
                                           "{2,3} and IndicesTensor.Sizes {1,4} needs {2,4}.")
    desc = gather_desc("GATHER", "FLOAT32", "UINT32", [2, 3], [5, 4], [2, 4], {"Axis": 1, "IndexDimensions": 2})
    assert refusal(desc) == (E_INVALIDARG, "OutputTensor has 2 dimensions; DML_OPERATOR_GATHER with "
                                           "InputTensor.Sizes {2,3} and IndicesTensor.Sizes {5,4} needs more (a "
                                           "leading size that is not 1 would be cropped).")
    desc = gather_desc("GATHER", "FLOAT32", "FLOAT32", [2, 3], [1, 4], [2, 4], {"Axis": 1, "IndexDimensions": 1})
    assert refusal(desc) == (E_INVALIDARG, "IndicesTensor.DataType is DML_TENSOR_DATA_TYPE_FLOAT32; "
                                           "DML_FEATURE_LEVEL_6_4 allows INT64, INT32, UINT64, UINT32 for "
                                           "IndicesTensor of DML_OPERATOR_GATHER.")
    desc = gather_desc("GATHER", "FLOAT32", "UINT32", [2, 3], [1, 4], [2, 4], {"Axis": 1.5, "IndexDimensions": 1})
    assert refusal(desc) == (E_INVALIDARG, "Axis is 1.5; it must be an integer from 0 to 4294967295.")
    desc = gather_desc("GATHER", "FLOAT32", "UINT32", [2, 3], [4], [2, 4], {"Axis": 1, "IndexDimensions": 1})
    assert refusal(desc) == (E_INVALIDARG, "IndicesTensor.DimensionCount is 1 but InputTensor.DimensionCount is 2; "
                                           "DML_OPERATOR_GATHER requires the same DimensionCount.")


def test_the_gather_elements_and_nd_shape_rules_are_pinned():
    desc = gather_desc("GATHER_ELEMENTS", "FLOAT32", "INT32", [2, 3], [3, 2], [3, 2], {"Axis": 0})
    assert refusal(desc) == (E_INVALIDARG, "IndicesTensor.Sizes is {3,2} but InputTensor.Sizes is {2,3}; "
                                           "DML_OPERATOR_GATHER_ELEMENTS requires the same size in every dimension "
                                           "but Axis (0).")
    nd = {"InputDimensionCount": 2, "IndicesDimensionCount": 2}
    desc = gather_desc("GATHER_ND", "FLOAT32", "INT32", [2, 3], [4, 3], [1, 4], nd)
    assert refusal(desc) == (E_INVALIDARG, "IndicesTensor.Sizes is {4,3}; its last size (3, the coordinates per "
                                           "index tuple) must not exceed InputDimensionCount - BatchDimensionCount "
                                           "(2) for DML_OPERATOR_GATHER_ND.")
    desc = gather_desc("GATHER_ND", "FLOAT32", "INT32", [2, 3], [4, 1], [4, 3], dict(nd, InputDimensionCount=3))
    assert refusal(desc) == (E_INVALIDARG, "InputDimensionCount is 3; InputTensor has 2 dimensions, so "
                                           "DML_OPERATOR_GATHER_ND takes 1 to 2.")
    nd1 = dict(nd, BatchDimensionCount=1)
    desc = gather_desc("GATHER_ND1", "FLOAT32", "INT32", [2, 3], [3, 1], [1, 3], nd1)
    assert refusal(desc) == (E_INVALIDARG, "IndicesTensor.Sizes is {3,1} but InputTensor.Sizes is {2,3}; "
                                           "DML_OPERATOR_GATHER_ND1 requires the 1 batch dimensions to agree.")
    desc = gather_desc("GATHER_ND1", "FLOAT32", "INT32", [2, 3], [2, 1], [2, 1], dict(nd, BatchDimensionCount=2))
    assert refusal(desc) == (E_INVALIDARG, "BatchDimensionCount is 2; DML_OPERATOR_GATHER_ND1 requires it below "
                                           "InputDimensionCount (2) and IndicesDimensionCount (2).")
    assert refusal(gather_desc("GATHER_ND1", "FLOAT32", "INT32", [2, 3], [2, 1], [1, 2], nd1)) == "validated"


def test_64_bit_data_on_an_adapter_without_it_is_refused_and_the_rest_runs():
    x = np.arange(6, dtype=np.int64).reshape(2, 3)
    idx = np.array([[2, 0]], np.int64)
    desc = gather_desc("GATHER", "INT64", "INT64", [2, 3], [1, 2], [2, 2], {"Axis": 1, "IndexDimensions": 1})
    (got,) = run_operator(desc, [x, idx])
    assert got.tolist() == [[2, 0], [5, 3]]
    with pytest.raises(HResultError) as error:
        run_operator(desc, [x, idx], adapter=WARP if not WARP.supports_64bit else
                     next(p for p in PRESETS if not p.supports_64bit))
    assert error.value.hresult == E_INVALIDARG and "64-bit" in error.value.message


# ---- a GATHER node in a graph ----------------------------------------------------------------------------------
def test_a_gather_node_in_a_compiled_graph_matches_its_operator():
    from test_graph import GraphSpec, assert_graph_matches, op
    ins, idx, out = tensor("FLOAT32", [4, 5]), tensor("INT32", [1, 3]), tensor("FLOAT32", [4, 3])
    gather = op("GATHER", InputTensor=ins, IndicesTensor=idx, OutputTensor=out, Axis=1, IndexDimensions=1)
    clip = op("ELEMENT_WISE_CLIP", InputTensor=out, OutputTensor=out, Min=-1.0, Max=10.0)
    spec = GraphSpec(nodes=[(gather, "gather"), (clip, "clip")], input_count=2, output_count=1,
                     inputs=[(0, 0, 0), (1, 0, 1)], intermediates=[(0, 0, 1, 0)], outputs=[(1, 0, 0)])
    x = np.arange(20, dtype=np.float32).reshape(4, 5)
    indices = np.array([[4, -5, 9]], np.int32)
    got = assert_graph_matches(spec, [x.view(np.uint8).ravel().copy(), indices.view(np.uint8).ravel().copy()])
    values = np.frombuffer(got[0].tobytes(), np.float32).reshape(4, 3)
    assert values.tolist() == np.clip(np.stack([x[:, 4], x[:, 0], np.zeros(4, np.float32)], 1), -1, 10).tolist()


# ---- ONE_HOT: the same walk, an OnValue where the index is the coordinate -------------------------------------------
def one_hot_desc(type_name, index_type, out_sizes, axis, values_sizes, strides=(None,) * 3):
    idx_sizes = [1 if d == axis else s for d, s in enumerate(out_sizes)]
    return DML_ONE_HOT_OPERATOR_DESC(IndicesTensor=tensor(index_type, idx_sizes, strides[0]),
                                     ValuesTensor=tensor(type_name, values_sizes, strides[1]),
                                     OutputTensor=tensor(type_name, out_sizes, strides[2]), Axis=axis)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(1, 8), st.sampled_from(sorted(set(DTYPES) - {"FLOAT64", "INT64", "UINT64"})),
       st.sampled_from(INDEX_TYPES), st.sampled_from(["packed", "padded", "permuted", "broadcast"]),
       st.sampled_from(PRESETS + (WARP,)), st.integers(0, 2 ** 32 - 1))
def test_drawn_one_hots_are_bit_exact_on_every_adapter(rank, type_name, index_type, layout, preset, seed):
    if not preset.supports_64bit:
        index_type = NARROWER.get(index_type, index_type)
    rng = np.random.default_rng(seed)
    out_sizes = [int(rng.integers(1, 4 if rank > 4 else 7)) for _ in range(rank)]
    axis = int(rng.integers(0, rank))
    idx_sizes = [1 if d == axis else s for d, s in enumerate(out_sizes)]
    values_sizes = [1] * rank
    values_sizes[int(rng.integers(0, rank))] = int(rng.integers(2, 4))
    idx_strides, broadcast = layout_strides(idx_sizes, layout, rng)
    idx = broadcast_values(hostile_indices(rng, index_type, idx_sizes, out_sizes[axis]), broadcast, idx_sizes)
    values = data(rng, type_name, values_sizes)
    out_strides = layout_strides(out_sizes, "padded" if layout == "padded" else "packed", rng)[0]
    desc = one_hot_desc(type_name, index_type, out_sizes, axis, values_sizes, (idx_strides, None, out_strides))
    (got,) = run_operator(desc, [idx, values], adapter=preset)
    same_bits(got, golden.run("ONE_HOT", [idx, values], {"Axis": axis, "OutputSizes": tuple(out_sizes)}))


def test_the_one_hot_page_examples():
    idx = np.array([0, 3, 2], np.uint32).reshape(1, 1, 3, 1)
    values = np.array([0, 1], np.float32).reshape(1, 1, 1, 2)
    (got,) = run_operator(one_hot_desc("FLOAT32", "UINT32", [1, 1, 3, 4], 3, [1, 1, 1, 2]), [idx, values])
    assert got[0, 0].tolist() == [[1, 0, 0, 0], [0, 0, 0, 1], [0, 0, 1, 0]]
    idx = np.array([0, 2, 1, 0], np.uint32).reshape(1, 1, 1, 4)
    (got,) = run_operator(one_hot_desc("FLOAT32", "UINT32", [1, 1, 3, 4], 2, [1, 1, 1, 2]), [idx, values])
    assert got[0, 0].tolist() == [[1, 0, 0, 1], [0, 0, 1, 0], [0, 1, 0, 0]]
    idx = np.array([0, 3, 2], np.uint32).reshape(1, 1, 3, 1)
    values = np.array([4, 2, 9], np.float32).reshape(1, 1, 3, 1)
    (got,) = run_operator(one_hot_desc("FLOAT32", "UINT32", [1, 1, 3, 4], 3, [1, 1, 3, 1]), [idx, values])
    assert got[0, 0].tolist() == [[2, 4, 4, 4], [4, 4, 4, 2], [4, 4, 2, 4]]
    idx = np.array([-3, 100, 3], np.int32).reshape(1, 1, 3, 1)
    values = np.array([0, 1], np.float32).reshape(1, 1, 1, 2)
    (got,) = run_operator(one_hot_desc("FLOAT32", "INT32", [1, 1, 3, 4], 3, [1, 1, 1, 2]), [idx, values])
    assert got[0, 0].tolist() == [[0, 1, 0, 0], [0, 0, 0, 0], [0, 0, 0, 1]]


def test_the_one_hot_rules_are_pinned():
    desc = one_hot_desc("FLOAT32", "UINT32", [2, 3], 1, [1, 2])
    desc.IndicesTensor = tensor("UINT32", [2, 3])
    assert refusal(desc) == (E_INVALIDARG, "IndicesTensor.Sizes is {2,3}; DML_OPERATOR_ONE_HOT with OutputTensor.Sizes "
                                           "{2,3} and Axis 1 needs {2,1}.")
    assert refusal(one_hot_desc("FLOAT32", "UINT32", [2, 3], 1, [1, 1])) == (
        E_INVALIDARG, "ValuesTensor.Sizes is {1,1}; DML_OPERATOR_ONE_HOT needs at least two elements (OffValue, "
                      "OnValue).")
    desc = one_hot_desc("FLOAT32", "UINT32", [2, 3], 1, [1, 2])
    desc.Axis = 2
    assert refusal(desc) == (E_INVALIDARG, "Axis is 2; IndicesTensor has 2 dimensions, so DML_OPERATOR_ONE_HOT takes "
                                           "Axis 0 to 1.")


# ---- SCATTER_ELEMENTS: the input, then the updates where the indices point (the last write wins) ------------------
def scatter_desc(type_name, index_type, in_sizes, idx_sizes, axis, strides=(None,) * 4):
    return DML_SCATTER_ELEMENTS_OPERATOR_DESC(
        InputTensor=tensor(type_name, in_sizes, strides[0]), IndicesTensor=tensor(index_type, idx_sizes, strides[1]),
        UpdatesTensor=tensor(type_name, idx_sizes, strides[2]), OutputTensor=tensor(type_name, in_sizes, strides[3]),
        Axis=axis)


def literal_scatter(x, indices, updates, axis):
    """Every update in row-major order of IndicesTensor, each overwriting its target (the page's "last write")."""
    out = x.copy()
    size = x.shape[axis]
    for position in np.ndindex(indices.shape):
        i = int(indices[position])
        if i < 0 and indices.dtype.kind == "i":
            i += size
        if 0 <= i < size:
            target = list(position)
            target[axis] = i
            out[tuple(target)] = updates[position]
    return out


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(1, 8), st.sampled_from(sorted(DTYPES)), st.sampled_from(INDEX_TYPES),
       st.sampled_from(["packed", "padded", "permuted", "broadcast"]), st.sampled_from(PRESETS + (WARP,)),
       st.integers(0, 2 ** 32 - 1))
def test_drawn_scatters_are_bit_exact_and_the_last_write_wins(rank, type_name, index_type, layout, preset, seed):
    if not preset.supports_64bit:
        type_name, index_type = NARROWER.get(type_name, type_name), NARROWER.get(index_type, index_type)
    rng = np.random.default_rng(seed)
    in_sizes = [int(rng.integers(1, 4 if rank > 4 else 6)) for _ in range(rank)]
    axis = int(rng.integers(0, rank))
    idx_sizes = list(in_sizes)
    idx_sizes[axis] = int(rng.integers(1, 6))          # more candidates than the axis: duplicates
    in_strides, in_broadcast = layout_strides(in_sizes, layout, rng)
    x = broadcast_values(data(rng, type_name, in_sizes), in_broadcast, in_sizes)
    idx = hostile_indices(rng, index_type, idx_sizes, in_sizes[axis])
    updates = data(rng, type_name, idx_sizes)
    out_strides = layout_strides(in_sizes, "padded" if layout == "padded" else "packed", rng)[0]
    idx_strides = layout_strides(idx_sizes, "permuted" if layout == "permuted" else "packed", rng)[0]
    desc = scatter_desc(type_name, index_type, in_sizes, idx_sizes, axis, (in_strides, idx_strides, None, out_strides))
    (got,) = run_operator(desc, [x, idx, updates], adapter=preset)
    expected = golden.run("SCATTER_ELEMENTS", [x, idx, updates], {"Axis": axis})
    same_bits(got, expected)
    same_bits(expected, literal_scatter(x, idx, updates, axis))


def test_the_scatter_rules_are_pinned():
    desc = scatter_desc("FLOAT32", "INT32", [2, 3], [2, 4], 0)
    assert refusal(desc) == (E_INVALIDARG, "IndicesTensor.Sizes is {2,4} but InputTensor.Sizes is {2,3}; "
                                           "DML_OPERATOR_SCATTER_ELEMENTS requires IndicesTensor no larger in every "
                                           "dimension but Axis (0).")
    desc = scatter_desc("FLOAT32", "INT32", [2, 3], [2, 3], 2)
    assert refusal(desc) == (E_INVALIDARG, "Axis is 2; InputTensor has 2 dimensions, so DML_OPERATOR_SCATTER_ELEMENTS "
                                           "takes Axis 0 to 1.")
    smaller = scatter_desc("FLOAT32", "INT32", [2, 3], [2, 2], 0)      # valid, but no kernel variant yet
    assert refusal(smaller) == "validated"
    with pytest.raises(HResultError) as error:
        run_operator(smaller, [np.zeros((2, 3), np.float32), np.zeros((2, 2), np.int32), np.zeros((2, 2), np.float32)])
    assert error.value.hresult == E_NOTIMPL and "IndicesTensor of InputTensor's Sizes" in error.value.message


# ---- SCATTER_ND: the input, then each index tuple's slice of the updates (the last tuple wins) --------------------
def literal_scatter_nd(x, indices, updates, ri, qi):
    """Each tuple in row-major order, every component in range, overwriting the sub-block it names."""
    out = x.copy()
    data = out[(0,) * (x.ndim - ri)]
    idx = indices[(0,) * (indices.ndim - qi)]
    m = idx.shape[-1]
    tuples = idx.reshape(-1, m)
    slices = updates.reshape((tuples.shape[0],) + data.shape[m:])
    for k, row in enumerate(tuples.tolist()):
        coords = []
        for j, i in enumerate(row):
            if i < 0 and indices.dtype.kind == "i":
                i += data.shape[j]
            coords.append(i)
        if all(0 <= c < data.shape[j] for j, c in enumerate(coords)):
            data[tuple(coords)] = slices[k]
    return out


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(st.integers(1, 6), st.sampled_from(sorted(DTYPES)), st.sampled_from(INDEX_TYPES),
       st.sampled_from(["packed", "padded", "permuted", "broadcast"]), st.sampled_from(PRESETS + (WARP,)),
       st.integers(0, 2 ** 32 - 1))
def test_drawn_scatter_nds_are_bit_exact_and_the_last_tuple_wins(rank, type_name, index_type, layout, preset, seed):
    from dmlemu.directml.gather_shapes import scatter_nd_updates
    if not preset.supports_64bit:
        type_name, index_type = NARROWER.get(type_name, type_name), NARROWER.get(index_type, index_type)
    rng = np.random.default_rng(seed)
    ri, qi = int(rng.integers(1, rank + 1)), int(rng.integers(1, rank + 1))
    m = int(rng.integers(1, ri + 1))
    assume((qi - 1) + (ri - m) <= rank)
    in_sizes = [1] * (rank - ri) + [int(rng.integers(1, 4)) for _ in range(ri)]
    idx_sizes = [1] * (rank - qi) + [int(rng.integers(1, 4)) for _ in range(qi - 1)] + [m]
    upd_sizes = list(scatter_nd_updates(in_sizes, idx_sizes, ri, qi))
    in_strides, in_broadcast = layout_strides(in_sizes, layout, rng)
    x = broadcast_values(data(rng, type_name, in_sizes), in_broadcast, in_sizes)
    idx = hostile_indices(rng, index_type, idx_sizes, max(in_sizes))
    updates = data(rng, type_name, upd_sizes)
    out_strides = layout_strides(in_sizes, "padded" if layout == "padded" else "packed", rng)[0]
    desc = DML_SCATTER_ND_OPERATOR_DESC(
        InputTensor=tensor(type_name, in_sizes, in_strides), IndicesTensor=tensor(index_type, idx_sizes),
        UpdatesTensor=tensor(type_name, upd_sizes, layout_strides(upd_sizes, "permuted", rng)[0]),
        OutputTensor=tensor(type_name, in_sizes, out_strides), InputDimensionCount=ri, IndicesDimensionCount=qi)
    try:
        (got,) = run_operator(desc, [x, idx, updates], adapter=preset)
    except HResultError as error:      # more records than the constant buffer holds
        assert error.hresult == E_NOTIMPL and "dimension records" in error.message, error.message
        assume(False)
    attributes = {"InputDimensionCount": ri, "IndicesDimensionCount": qi}
    expected = golden.run("SCATTER_ND", [x, idx, updates], attributes)
    same_bits(got, expected)
    same_bits(expected, literal_scatter_nd(x, idx, updates, ri, qi))


def test_the_scatter_nd_onnx_example_and_rules():
    x = np.arange(1, 9, dtype=np.float32).reshape(1, 8)
    idx = np.array([4, 3, 1, 7], np.int32).reshape(4, 1)
    updates = np.array([9, 10, 11, 12], np.float32).reshape(1, 4)
    desc = DML_SCATTER_ND_OPERATOR_DESC(
        InputTensor=tensor("FLOAT32", [1, 8]), IndicesTensor=tensor("INT32", [4, 1]),
        UpdatesTensor=tensor("FLOAT32", [1, 4]), OutputTensor=tensor("FLOAT32", [1, 8]), InputDimensionCount=1,
        IndicesDimensionCount=2)
    assert run_operator(desc, [x, idx, updates])[0].tolist() == [[1, 11, 3, 10, 9, 6, 7, 12]]
    desc.UpdatesTensor = tensor("FLOAT32", [1, 5])
    assert refusal(desc) == (E_INVALIDARG, "UpdatesTensor.Sizes is {1,5}; DML_OPERATOR_SCATTER_ND with "
                                           "InputTensor.Sizes {1,8} and IndicesTensor.Sizes {4,1} needs {1,4}.")
    desc.UpdatesTensor, desc.IndicesTensor = tensor("FLOAT32", [1, 4]), tensor("INT32", [4, 2])
    assert refusal(desc) == (E_INVALIDARG, "IndicesTensor.Sizes is {4,2}; its last size (2, the coordinates per index "
                                           "tuple) must not exceed InputDimensionCount (1) for DML_OPERATOR_SCATTER_ND.")


# ---- REVERSE_SUBSEQUENCES: the first L elements along Axis reversed ------------------------------------------------
def reverse_desc(type_name, length_type, sizes, axis, strides=(None,) * 3):
    length_sizes = [1 if d == axis else s for d, s in enumerate(sizes)]
    return DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC(
        InputTensor=tensor(type_name, sizes, strides[0]), SequenceLengthsTensor=tensor(length_type, length_sizes,
                                                                                       strides[1]),
        OutputTensor=tensor(type_name, sizes, strides[2]), Axis=axis)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(1, 8), st.sampled_from(sorted(DTYPES)), st.sampled_from(INDEX_TYPES),
       st.sampled_from(["packed", "padded", "permuted", "broadcast"]), st.sampled_from(PRESETS + (WARP,)),
       st.integers(0, 2 ** 32 - 1))
def test_drawn_reversals_are_bit_exact(rank, type_name, length_type, layout, preset, seed):
    if not preset.supports_64bit:
        type_name, length_type = NARROWER.get(type_name, type_name), NARROWER.get(length_type, length_type)
    rng = np.random.default_rng(seed)
    sizes = [int(rng.integers(1, 4 if rank > 4 else 7)) for _ in range(rank)]
    axis = int(rng.integers(0, rank))
    length_sizes = [1 if d == axis else s for d, s in enumerate(sizes)]
    in_strides, broadcast = layout_strides(sizes, layout, rng)
    x = broadcast_values(data(rng, type_name, sizes), broadcast, sizes)
    lengths = hostile_indices(rng, length_type, length_sizes, sizes[axis] + 1)    # past the size: clamped
    out_strides = layout_strides(sizes, "padded" if layout == "padded" else "packed", rng)[0]
    desc = reverse_desc(type_name, length_type, sizes, axis, (in_strides, None, out_strides))
    (got,) = run_operator(desc, [x, lengths], adapter=preset)
    same_bits(got, golden.run("REVERSE_SUBSEQUENCES", [x, lengths], {"Axis": axis}))


def test_the_reverse_page_example_and_rule():
    x = np.arange(1, 13, dtype=np.float32).reshape(1, 1, 3, 4)
    lengths = np.array([2, 4, 3], np.uint32).reshape(1, 1, 3, 1)
    (got,) = run_operator(reverse_desc("FLOAT32", "UINT32", [1, 1, 3, 4], 3), [x, lengths])
    assert got[0, 0].tolist() == [[2, 1, 3, 4], [8, 7, 6, 5], [11, 10, 9, 12]]
    lengths = np.array([9, -1, 0], np.int64).reshape(1, 1, 3, 1)       # clamped to 4; negative: nothing reversed
    (got,) = run_operator(reverse_desc("FLOAT32", "INT64", [1, 1, 3, 4], 3), [x, lengths])
    assert got[0, 0].tolist() == [[4, 3, 2, 1], [5, 6, 7, 8], [9, 10, 11, 12]]
    desc = reverse_desc("FLOAT32", "UINT32", [1, 1, 3, 4], 3)
    desc.SequenceLengthsTensor = tensor("UINT32", [1, 1, 3, 4])
    assert refusal(desc) == (E_INVALIDARG, "SequenceLengthsTensor.Sizes is {1,1,3,4}; "
                                           "DML_OPERATOR_REVERSE_SUBSEQUENCES with InputTensor.Sizes {1,1,3,4} and "
                                           "Axis 3 needs {1,1,3,1}.")


# ---- NONZERO_COORDINATES: one workgroup, a scan per chunk ----------------------------------------------------------
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(4, 5), st.sampled_from(sorted(set(DTYPES) - {"FLOAT64", "INT64", "UINT64"})),
       st.sampled_from(["packed", "padded", "permuted", "broadcast"]), st.sampled_from(PRESETS + (WARP,)),
       st.integers(0, 2 ** 32 - 1))
def test_drawn_nonzero_coordinates_are_exact_in_ascending_order(rank, type_name, layout, preset, seed):
    rng = np.random.default_rng(seed)
    sizes = [1] * rank
    for d in range(rank - int(rng.integers(1, rank + 1)), rank):
        sizes[d] = int(rng.integers(1, 9 if rank - d <= 2 else 4))
    x = data(rng, type_name, sizes)
    x[rng.random(sizes) < 0.5] = 0                     # half zeros
    if type_name.startswith("FLOAT"):
        x[rng.random(sizes) < 0.1] = -0.0
    strides, broadcast = layout_strides(sizes, layout, rng)
    x = broadcast_values(x, broadcast, sizes)
    effective = rank
    while effective and sizes[rank - effective] == 1:
        effective -= 1
    n = int(rng.integers(max(effective, 1), rank + 1))
    coords_sizes = [1] * (rank - 2) + [int(np.prod(sizes)), n]
    desc = DML_NONZERO_COORDINATES_OPERATOR_DESC(InputTensor=tensor(type_name, sizes, strides),
                                                 OutputCountTensor=tensor("UINT32", [1] * rank),
                                                 OutputCoordinatesTensor=tensor("UINT32", coords_sizes))
    count, coords = run_operator(desc, [x], adapter=preset)
    expected_count, expected = golden.run("NONZERO_COORDINATES", [x], {"OutputSizes": tuple(coords_sizes)})
    same_bits(count, expected_count)
    k = int(expected_count.ravel()[0])
    rows = coords.reshape(-1, n)[:k]
    same_bits(rows, expected.reshape(-1, n)[:k])        # rows past the count are undefined (the page)
    literal = [list(c)[rank - n:] for c in np.ndindex(*sizes) if x[c] != 0]
    assert rows.tolist() == literal


def test_the_nonzero_page_example_and_rule():
    x = np.array([[1.0, 0.0, 0.0, 2.0], [-0.0, 3.5, 0.0, -5.2]], np.float32).reshape(1, 1, 2, 4)
    desc = DML_NONZERO_COORDINATES_OPERATOR_DESC(InputTensor=tensor("FLOAT32", [1, 1, 2, 4]),
                                                 OutputCountTensor=tensor("UINT32", [1, 1, 1, 1]),
                                                 OutputCoordinatesTensor=tensor("UINT32", [1, 1, 8, 3]))
    count, coords = run_operator(desc, [x])
    assert count.ravel().tolist() == [4] and coords[0, 0, :4].tolist() == [[0, 0, 0], [0, 0, 3], [0, 1, 1], [0, 1, 3]]
    desc.OutputCoordinatesTensor = tensor("UINT32", [1, 1, 8, 1])
    assert refusal(desc) == (E_INVALIDARG, "OutputCoordinatesTensor.Sizes is {1,1,8,1}; "
                                           "DML_OPERATOR_NONZERO_COORDINATES with InputTensor.Sizes {1,1,2,4} needs "
                                           "{1,1,8,N} with N from 2 to 4.")
