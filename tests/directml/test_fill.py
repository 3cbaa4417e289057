"""FILL_VALUE_CONSTANT, FILL_VALUE_SEQUENCE, DIAGONAL_MATRIX and DIAGONAL_MATRIX1 through the mirror, bit for bit
against the golden model (docs/NUMERICS.md, "Fills"): drawn types, values, Sizes and strides on every adapter, the
pages' examples, the sequence's order against a literal per-element loop, DIAGONAL_MATRIX1's band against the page's
pseudocode, and the ValueDataType rule's sentence."""
import numpy as np
from hypothesis import HealthCheck, given, settings, strategies as st

from dmlemu import golden, run_operator
from dmlemu.d3d12 import *  # noqa: F401,F403
from dmlemu.directml import *  # noqa: F401,F403
from dmlemu.errors import E_INVALIDARG, HResultError
from dmlemu.presets import PRESETS, WARP
from tensor_layouts import data_type, layout_strides, same_bits, tensor

DTYPES = {"FLOAT32": np.float32, "FLOAT16": np.float16, "INT32": np.int32, "UINT32": np.uint32, "INT16": np.int16,
          "UINT16": np.uint16, "INT8": np.int8, "UINT8": np.uint8}
MEMBER = {"FLOAT32": "Float32", "FLOAT16": None, "INT32": "Int32", "UINT32": "UInt32", "INT16": "Int16",
          "UINT16": "UInt16", "INT8": "Int8", "UINT8": "UInt8"}


def scalar(type_name, value):
    """A DML_SCALAR_UNION holding `value` (a NumPy scalar of the type) by its bytes."""
    return DML_SCALAR_UNION(Bytes=np.asarray(value, DTYPES[type_name]).tobytes())


def draw_value(rng, type_name):
    if type_name.startswith("FLOAT"):
        return DTYPES[type_name](rng.choice([0.0, -0.0, 1.5, -3.25, 1e-3, 6e4, np.inf, np.nan, 1e-40]))
    info = np.iinfo(DTYPES[type_name])
    return DTYPES[type_name](rng.integers(info.min, info.max, endpoint=True))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.booleans(), st.sampled_from(sorted(DTYPES)), st.lists(st.integers(1, 40), min_size=4, max_size=4),
       st.sampled_from(["packed", "padded", "permuted"]), st.sampled_from(PRESETS + (WARP,)),
       st.integers(0, 2 ** 32 - 1))
def test_drawn_fills_are_bit_exact_on_every_adapter(sequence, type_name, sizes, layout, preset, seed):
    rng = np.random.default_rng(seed)
    strides = layout_strides(sizes, layout, rng)[0]
    first, delta = draw_value(rng, type_name), draw_value(rng, type_name)
    if sequence:
        desc = DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC(OutputTensor=tensor(type_name, sizes, strides),
                                                     ValueDataType=data_type(type_name),
                                                     ValueStart=scalar(type_name, first),
                                                     ValueDelta=scalar(type_name, delta))
        attributes = {"ValueStart": first, "ValueDelta": delta}
    else:
        desc = DML_FILL_VALUE_CONSTANT_OPERATOR_DESC(OutputTensor=tensor(type_name, sizes, strides),
                                                     ValueDataType=data_type(type_name),
                                                     Value=scalar(type_name, first))
        attributes = {"Value": first}
    (got,) = run_operator(desc, [], adapter=preset)
    name = "FILL_VALUE_SEQUENCE" if sequence else "FILL_VALUE_CONSTANT"
    same_bits(got, golden.run(name, [], dict(attributes, OutputSizes=tuple(sizes)), output_type=type_name))


def test_the_sequence_page_examples():
    desc = DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC(OutputTensor=tensor("FLOAT32", [1, 1, 1, 3]),
                                                 ValueDataType=data_type("FLOAT32"),
                                                 ValueStart=DML_SCALAR_UNION(Float32=3),
                                                 ValueDelta=DML_SCALAR_UNION(Float32=2))
    assert run_operator(desc, [])[0].tolist() == [[[[3, 5, 7]]]]
    desc = DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC(OutputTensor=tensor("UINT8", [1, 1, 2, 2]),
                                                 ValueDataType=data_type("UINT8"),
                                                 ValueStart=DML_SCALAR_UNION(UInt8=10),
                                                 ValueDelta=DML_SCALAR_UNION(UInt8=254))     # -2 as UINT8
    assert run_operator(desc, [])[0].tolist() == [[[[10, 8], [6, 4]]]]


def test_the_golden_sequence_is_the_text():
    """Integers: the pseudocode's running sum (Value += Delta) wraps to the same values; floats: start + k * delta
    with k, the product and the sum each rounded to FLOAT32."""
    for type_name in DTYPES:
        rng = np.random.default_rng(3)
        start, delta = draw_value(rng, type_name), draw_value(rng, type_name)
        got = golden.run("FILL_VALUE_SEQUENCE", [], {"ValueStart": start, "ValueDelta": delta,
                                                     "OutputSizes": (1, 1, 3, 7)}, output_type=type_name).ravel()
        if type_name.startswith("FLOAT"):
            f32 = np.float32
            literal = [f32(f32(f32(k) * f32(delta)) + f32(start)) for k in range(21)]
        else:
            bits = 8 * np.dtype(DTYPES[type_name]).itemsize
            value, literal = int(start), []
            for _ in range(21):
                literal.append(value)
                value = (value + int(delta)) % (1 << bits)
        same_bits(got, np.array(literal).astype(np.int64 if not type_name.startswith("FLOAT") else np.float32)
                  .astype(DTYPES[type_name]))


def test_the_value_data_type_must_be_the_outputs():
    dml = DMLCreateDevice(D3D12CreateDevice(None, D3D_FEATURE_LEVEL_11_0), DML_CREATE_DEVICE_FLAG_NONE)
    desc = DML_FILL_VALUE_CONSTANT_OPERATOR_DESC(OutputTensor=tensor("FLOAT32", [1, 1, 2, 2]),
                                                 ValueDataType=data_type("INT32"), Value=DML_SCALAR_UNION(Int32=1))
    try:
        dml.CreateOperator(DML_OPERATOR_DESC(Type=DML_OPERATOR_FILL_VALUE_CONSTANT, Desc=desc))
        result = "validated"
    except HResultError as error:
        result = (error.hresult, error.message)
    assert result == (E_INVALIDARG, "ValueDataType is DML_TENSOR_DATA_TYPE_INT32; it must match OutputTensor.DataType "
                                    "(DML_TENSOR_DATA_TYPE_FLOAT32) for DML_OPERATOR_FILL_VALUE_CONSTANT.")


# ---- DIAGONAL_MATRIX: Value where row + Offset == column ------------------------------------------------------------
def diagonal_desc(type_name, sizes, offset, value, strides=None):
    return DML_DIAGONAL_MATRIX_OPERATOR_DESC(OutputTensor=tensor(type_name, sizes, strides), Offset=offset, Value=value)


def test_the_diagonal_page_examples():
    assert run_operator(diagonal_desc("FLOAT32", [1, 1, 3, 3], 0, 1.0), [])[0][0, 0].tolist() == [
        [1, 0, 0], [0, 1, 0], [0, 0, 1]]
    assert run_operator(diagonal_desc("FLOAT32", [1, 1, 3, 3], 1, 1.0), [])[0][0, 0].tolist() == [
        [0, 1, 0], [0, 0, 1], [0, 0, 0]]
    assert run_operator(diagonal_desc("FLOAT32", [1, 1, 3, 2], -1, 1.0), [])[0][0, 0].tolist() == [
        [0, 0], [1, 0], [0, 1]]
    assert run_operator(diagonal_desc("FLOAT32", [1, 1, 3, 2], -3, 1.0), [])[0][0, 0].tolist() == [[0, 0]] * 3
    assert run_operator(diagonal_desc("INT32", [1, 1, 2, 2], 0, 10.6), [])[0][0, 0].tolist() == [[10, 0], [0, 10]]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(DTYPES)), st.lists(st.integers(1, 9), min_size=4, max_size=4), st.integers(-12, 12),
       st.sampled_from([1.0, -2.5, 10.6, 1e10, -1e10, float("nan"), float("inf"), 70000.0, 1e-30]),
       st.sampled_from(["packed", "padded", "permuted"]), st.sampled_from(PRESETS + (WARP,)),
       st.integers(0, 2 ** 32 - 1))
def test_drawn_diagonals_are_bit_exact_on_every_adapter(type_name, sizes, offset, value, layout, preset, seed):
    strides = layout_strides(sizes, layout, np.random.default_rng(seed))[0]
    (got,) = run_operator(diagonal_desc(type_name, sizes, offset, value, strides), [], adapter=preset)
    same_bits(got, golden.run("DIAGONAL_MATRIX", [], {"Offset": offset, "Value": np.float32(value),
                                                      "OutputSizes": tuple(sizes)}, output_type=type_name))


def test_the_offset_is_a_c_int():
    dml = DMLCreateDevice(D3D12CreateDevice(None, D3D_FEATURE_LEVEL_11_0), DML_CREATE_DEVICE_FLAG_NONE)
    try:
        dml.CreateOperator(DML_OPERATOR_DESC(Type=DML_OPERATOR_DIAGONAL_MATRIX,
                                             Desc=diagonal_desc("FLOAT32", [1, 1, 2, 2], 1 << 31, 1.0)))
        result = "validated"
    except HResultError as error:
        result = (error.hresult, error.message)
    assert result == (E_INVALIDARG, "Offset is 2147483648; it must be an integer from -2147483648 to 2147483647.")


# ---- DIAGONAL_MATRIX1: Value on a band of diagonals, else the optional input's element or 0 --------------------------
DTYPES_64 = {**DTYPES, "FLOAT64": np.float64, "INT64": np.int64, "UINT64": np.uint64}


def diagonal1_desc(type_name, sizes, value, begin, end, with_input=True, in_strides=None, out_strides=None):
    return DML_DIAGONAL_MATRIX1_OPERATOR_DESC(
        InputTensor=tensor(type_name, sizes, in_strides) if with_input else None,
        OutputTensor=tensor(type_name, sizes, out_strides), ValueDataType=data_type(type_name),
        Value=DML_SCALAR_UNION(Bytes=np.asarray(value, DTYPES_64[type_name]).tobytes()),
        DiagonalFillBegin=begin, DiagonalFillEnd=end)


def test_the_diagonal1_page_examples():
    x = np.array([[4, 7, 3, 7, 9], [1, 2, 8, 6, 9], [9, 4, 1, 8, 7], [4, 3, 4, 2, 4]], np.float32)
    (got,) = run_operator(diagonal1_desc("FLOAT32", [4, 5], 1, 0, 1, with_input=False), [None])
    assert got.tolist() == np.eye(4, 5).tolist()          # the identity (the page's Value 7 prints as 1: a typo)
    (got,) = run_operator(diagonal1_desc("FLOAT32", [4, 5], 7, 0, 3, with_input=False), [None])
    assert got.tolist() == [[7, 7, 7, 0, 0], [0, 7, 7, 7, 0], [0, 0, 7, 7, 7], [0, 0, 0, 7, 7]]
    (got,) = run_operator(diagonal1_desc("FLOAT32", [4, 5], 0, -2 ** 31, 1), [x])     # the strict upper triangle
    assert got.tolist() == [[0, 7, 3, 7, 9], [0, 0, 8, 6, 9], [0, 0, 0, 8, 7], [0, 0, 0, 0, 4]]
    (got,) = run_operator(diagonal1_desc("FLOAT32", [4, 5], 0, 1, 0), [x])            # inverted: the diagonal kept
    assert got.tolist() == [[4, 0, 0, 0, 0], [0, 2, 0, 0, 0], [0, 0, 1, 0, 0], [0, 0, 0, 2, 0]]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(DTYPES_64)), st.lists(st.integers(1, 9), min_size=2, max_size=4),
       st.integers(-12, 12), st.integers(-12, 12), st.booleans(), st.sampled_from(["packed", "padded", "permuted"]),
       st.sampled_from(PRESETS + (WARP,)), st.integers(0, 2 ** 32 - 1))
def test_drawn_diagonal1_descs_are_bit_exact_on_every_adapter(type_name, sizes, begin, end, with_input, layout,
                                                             preset, seed):
    if not preset.supports_64bit and type_name in ("FLOAT64", "INT64", "UINT64"):
        type_name = "UINT32"
    rng = np.random.default_rng(seed)
    dtype = DTYPES_64[type_name]
    if type_name.startswith("FLOAT"):
        value = dtype(rng.choice([0.0, -0.0, 1.5, np.inf, np.nan, -3.25]))
        x = rng.standard_normal(sizes).astype(dtype)
    else:
        info = np.iinfo(dtype)
        value = dtype(rng.integers(info.min, info.max, endpoint=True))
        x = rng.integers(info.min, info.max, size=sizes, dtype=dtype, endpoint=True)
    in_strides = layout_strides(sizes, layout, rng)[0]
    out_strides = layout_strides(sizes, "padded", rng)[0] if seed % 2 else None
    desc = diagonal1_desc(type_name, sizes, value, begin, end, with_input, in_strides, out_strides)
    (got,) = run_operator(desc, [x if with_input else None], adapter=preset)
    attributes = {"Value": value, "DiagonalFillBegin": begin, "DiagonalFillEnd": end, "OutputSizes": tuple(sizes)}
    want = golden.run("DIAGONAL_MATRIX1", [x if with_input else None], attributes, output_type=type_name)
    same_bits(got, want)
    columns, rows = np.meshgrid(np.arange(sizes[-1]), np.arange(sizes[-2]))   # the page's pseudocode, literally
    top_x = columns - rows
    use = np.broadcast_to((end >= begin) ^ (top_x >= begin) ^ (top_x < end), sizes)
    assert np.array_equal(got[~use], (x if with_input else np.zeros(sizes, dtype))[~use])


def test_diagonal_matrix1_equals_diagonal_matrix_with_the_offset_band():
    for offset in (-2, 0, 3):
        (old,) = run_operator(diagonal_desc("FLOAT32", [1, 1, 4, 5], offset, 2.5), [])
        (new,) = run_operator(diagonal1_desc("FLOAT32", [1, 1, 4, 5], 2.5, offset, offset + 1, with_input=False),
                              [None])
        same_bits(new, old)


def test_the_diagonal1_value_type_must_be_the_outputs():
    dml = DMLCreateDevice(D3D12CreateDevice(None, D3D_FEATURE_LEVEL_11_0), DML_CREATE_DEVICE_FLAG_NONE)
    desc = diagonal1_desc("FLOAT32", [2, 2], 1, 0, 1)
    desc.ValueDataType = data_type("FLOAT16")
    try:
        dml.CreateOperator(DML_OPERATOR_DESC(Type=DML_OPERATOR_DIAGONAL_MATRIX1, Desc=desc))
        result = "validated"
    except HResultError as error:
        result = (error.hresult, error.message)
    assert result == (E_INVALIDARG, "ValueDataType is DML_TENSOR_DATA_TYPE_FLOAT16; it must match OutputTensor.DataType "
                                    "(DML_TENSOR_DATA_TYPE_FLOAT32) for DML_OPERATOR_DIAGONAL_MATRIX1.")
