"""The operators that are not element-wise from the command line (tools/operators.py): GEMM, REDUCE, ARGMIN/ARGMAX,
the softmax family, the poolings, CONVOLUTION, the normalizations, the cumulative scans, SLICE, PADDING, TILE,
DEPTH_TO_SPACE, TOP_K. Each tensor's Sizes: the first input's from --sizes, any other's from --input-sizes, the
outputs' derived by the validator's own shape rules (validation.derived_output_sizes), array attributes from
--attr NAME=N,N,...; every run is checked bit for bit against dmlemu.golden.run.

(test_run_every_operator.py runs each of them with its defaults; here: the derived Sizes against NumPy, the
attributes reaching kernel and golden model, a data type pass, a property test over shapes and attributes,
and the command line: run, --output, --trace, step, and hostile --attr / --input-sizes / --output-sizes.)
"""
import json
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dmlemu.directml.enums import DML_FEATURE_LEVEL_6_4
from dmlemu.directml.operators import SCHEMAS_BY_NAME
from dmlemu.directml.validation import derived_output_sizes
from dmlemu.errors import E_INVALIDARG, E_NOTIMPL, HResultError
from dmlemu.kernels.element_wise_ops import OPERATORS as ELEMENT_WISE_ROWS
from dmlemu.tools.operators import (OPERATORS, OUTPUT_SIZES_REQUIRED, OperatorRun, UsageError, describe, execute,
                                    random_inputs, sizes_field)
from cli_runner import cli, run_on_two_data_types
from operator_cases import scaled

SHAPED = sorted(short for short, name in OPERATORS.items() if name not in ELEMENT_WISE_ROWS)


def _sizes(short):
    schema = SCHEMAS_BY_NAME[OPERATORS[short]]
    least = schema.support_at(DML_FEATURE_LEVEL_6_4).tensors[sizes_field(schema)].min_dims
    return (1, 4, 4, 4) if least > 2 else (3, 4)


def _run(short, data_type, sizes, **kwargs):
    if short in OUTPUT_SIZES_REQUIRED:
        kwargs.setdefault("output_sizes", sizes[:2] + tuple(2 * s for s in sizes[2:]))
    return OperatorRun(short, data_type, sizes, **kwargs)


def test_the_shaped_families_run_from_the_command_line():
    assert {"GEMM", "REDUCE", "ARGMAX", "ARGMIN", "SOFTMAX", "LOG_SOFTMAX1", "HARDMAX", "AVERAGE_POOLING",
            "MAX_POOLING2", "LP_POOLING", "CONVOLUTION", "MEAN_VARIANCE_NORMALIZATION1", "LP_NORMALIZATION",
            "LOCAL_RESPONSE_NORMALIZATION", "BATCH_NORMALIZATION_TRAINING", "CUMULATIVE_SUMMATION", "SLICE", "SLICE1",
            "PADDING1", "TILE", "DEPTH_TO_SPACE1", "SPACE_TO_DEPTH", "TOP_K1", "MATRIX_MULTIPLY_INTEGER",
            "QUANTIZED_LINEAR_MATRIX_MULTIPLY", "MATRIX_MULTIPLY_INTEGER_TO_FLOAT", "CONVOLUTION_INTEGER",
            "QUANTIZED_LINEAR_CONVOLUTION", "FILL_VALUE_CONSTANT", "FILL_VALUE_SEQUENCE", "DIAGONAL_MATRIX",
            "DIAGONAL_MATRIX1", "GATHER", "GATHER_ELEMENTS", "GATHER_ND", "GATHER_ND1", "RESAMPLE", "RESAMPLE1",
            "RESAMPLE2", "UPSAMPLE_2D", "JOIN", "SPLIT", "RANDOM_GENERATOR", "REVERSE_SUBSEQUENCES", "SCATTER_ELEMENTS",
            "SCATTER_ND", "ONE_HOT", "NONZERO_COORDINATES", "MULTIHEAD_ATTENTION", "MULTIHEAD_ATTENTION1",
            "MAX_UNPOOLING"} <= set(SHAPED)


def test_max_unpooling_takes_its_output_sizes_and_flat_indices_into_it():
    run = OperatorRun("max_unpooling", "FLOAT32", (1, 2, 2, 2), output_sizes=(1, 2, 4, 4))
    x, indices = random_inputs(run, 33)
    assert indices.max() < 32
    result = execute(run, [x, indices])
    want = np.zeros(32, np.float32)
    for value, index in zip(x.ravel(), indices.ravel()):
        want[index] = value
    assert result.bit_exact and np.array_equal(result.outputs[0].ravel(), want)
    status, out, err = cli("run", "max_unpooling", "--sizes", 1, 1, 2, 2)
    assert status == 2 and err.strip() == ("dmlemu: error: DML_OPERATOR_MAX_UNPOOLING's OutputTensor may have any "
                                           "Sizes (no shape rule gives them): give --output-sizes N N ..., e.g. "
                                           "--output-sizes 1 1 4 4")


def test_attention_binds_the_plain_query_key_and_value():
    run = OperatorRun("multihead_attention", "FLOAT32", (2, 3, 8), attributes={"HeadCount": "2"},
                      input_sizes={"Key": (2, 5, 8), "Value": (2, 5, 4)})
    assert run.input_fields == ["QueryTensor", "KeyTensor", "ValueTensor"]
    sizes = dict(zip(run.fields, run.tensor_sizes()))
    assert sizes["OutputTensor"] == (2, 3, 4) and sizes["OutputPresentValueTensor"] == (2, 2, 5, 2)
    assert execute(run, random_inputs(run, 31)).bit_exact
    run = OperatorRun("multihead_attention1", "FLOAT16", (1, 3, 8), attributes={"QueryHeadCount": "4",
                                                                                "KeyValueHeadCount": "2"},
                      input_sizes={"Key": (1, 3, 4), "Value": (1, 3, 4)})
    assert execute(run, random_inputs(run, 32)).bit_exact


def test_nonzero_coordinates_lists_every_element_that_is_not_zero():
    run = OperatorRun("nonzero_coordinates", "INT16", (1, 2, 2, 3))
    assert run.tensor_sizes()[1:] == [(1, 1, 1, 1), (1, 1, 12, 4)]
    x = np.array([0, 5, 0, -1, 0, 0, 7, 0, 0, 0, 0, 2], dtype=np.int16).reshape(1, 2, 2, 3)
    result = execute(run, [x])
    count, coordinates = result.outputs
    assert result.bit_exact and int(count.ravel()[0]) == 4
    assert coordinates.reshape(12, 4)[:4].tolist() == np.argwhere(x).tolist()


def test_one_hot_s_sizes_are_its_output_s():
    run = OperatorRun("one_hot", "FLOAT16", (2, 5), attributes={"Axis": "1"})
    assert dict(zip(run.fields, run.tensor_sizes())) == {"IndicesTensor": (2, 1), "ValuesTensor": (1, 2),
                                                         "OutputTensor": (2, 5)}
    indices, values = random_inputs(run, 30)
    assert indices.max() < 5
    result = execute(run, [indices, values])
    want = np.where(np.arange(5) == indices, values[0, 1], values[0, 0]).astype(np.float16)
    assert result.bit_exact and np.array_equal(result.outputs[0], want)


def test_scatters_draw_indices_in_range_the_last_duplicate_winning():
    run = OperatorRun("scatter_elements", "FLOAT32", (3, 4), attributes={"Axis": "1"},
                      input_sizes={"Indices": (3, 2), "Updates": (3, 2)})
    x, indices, updates = random_inputs(run, 28)
    assert indices.max() < 4
    result = execute(run, [x, indices, updates])
    want = x.copy()
    for (i, t), column in np.ndenumerate(indices):
        want[i, column] = updates[i, t]
    assert result.bit_exact and np.array_equal(result.outputs[0], want)
    run = OperatorRun("scatter_nd", "INT32", (4, 5, 6), input_sizes={"Indices": (1, 3, 2)})
    assert run.tensor_sizes()[2] == (1, 3, 6)        # the updates' Sizes from the shape rule
    x, indices, updates = random_inputs(run, 29)
    result = execute(run, [x, indices, updates])
    want = x.copy()
    for k, (a, b) in enumerate(indices[0]):
        want[a, b] = updates[0, k]
    assert result.bit_exact and np.array_equal(result.outputs[0], want)


def test_reverse_subsequences_draws_lengths_within_the_axis():
    run = OperatorRun("reverse_subsequences", "FLOAT32", (4, 3), attributes={"Axis": "0"})
    assert run.tensor_sizes() == [(4, 3), (1, 3), (4, 3)]
    x, lengths = random_inputs(run, 27)
    assert lengths.max() <= 4
    result = execute(run, [x, lengths])
    want = x.copy()
    for column, length in enumerate(lengths.ravel()):
        want[:length, column] = x[:length, column][::-1]
    assert result.bit_exact and np.array_equal(result.outputs[0], want)


def test_random_generator_s_sizes_are_its_output_s_and_its_state_is_fixed():
    run = OperatorRun("random_generator", None, (1, 1, 2, 4))
    assert dict(zip(run.fields, run.tensor_sizes())) == {"InputStateTensor": (1, 1, 1, 6), "OutputTensor": (1, 1, 2, 4),
                                                         "OutputStateTensor": (1, 1, 1, 6)}
    state = np.array([7, 0, 0, 0, 11, 12], dtype=np.uint32).reshape(1, 1, 1, 6)
    result = execute(run, [state])
    assert result.bit_exact and result.outputs[1].ravel().tolist() == [9, 0, 0, 0, 11, 12]   # 8 values: 2 counters
    assert len(set(result.outputs[0].ravel().tolist())) == 8


def test_join_and_split_take_their_parts_from_input_sizes():
    run = OperatorRun("join", "INT16", (2, 3), attributes={"Axis": "1"}, input_sizes={"InputTensors[2]": (2, 1)})
    assert run.fields == ["InputTensors[0]", "InputTensors[1]", "InputTensors[2]", "OutputTensor"]
    assert run.tensor_sizes() == [(2, 3), (2, 3), (2, 1), (2, 7)]
    parts = random_inputs(run, 25)
    result = execute(run, parts)
    assert result.bit_exact and np.array_equal(result.outputs[0], np.concatenate(parts, axis=1))
    run = OperatorRun("split", "FLOAT32", (7, 2), input_sizes={"OutputTensors[0]": (1, 2), "OutputTensors[3]": (2, 2)})
    assert run.output_fields == [f"OutputTensors[{i}]" for i in range(4)]
    assert run.tensor_sizes()[1:] == [(1, 2), (2, 2), (2, 2), (2, 2)]
    [x] = random_inputs(run, 26)
    result = execute(run, [x])
    assert result.bit_exact and all(np.array_equal(a, b) for a, b in zip(result.outputs, np.split(x, [1, 3, 5])))
    for given, sentence in [({"InputTensors": (2, 3)}, "InputTensors is an array of tensors; name one as "
                                                         "InputTensors[i] (i from 0)"),
                            ({"InputTensors[x]": (2, 3)}, "InputTensors is an array of tensors"),
                            ({"OutputTensor[0]": (2, 3)}, "OutputTensor is one tensor, not an array"),
                            ({"InputTensors[99]": (2, 3)}, "dmlemu runs at most 64 InputTensors")]:
        with pytest.raises(UsageError, match=re.escape(sentence)):
            OperatorRun("join", "FLOAT32", (2, 3), input_sizes=given)
    status, out, err = cli("step", "--operator", "split", "--dtype", "FLOAT32", "--sizes", 4, 3)
    assert status == 0 and out.count("(bit-exact against dmlemu.golden)") == 2, err


def test_resamplings_take_float_arrays_and_a_size_2d():
    run = OperatorRun("upsample_2d", "FLOAT32", (1, 2, 2, 3), attributes={"ScaleSize": "3,2"})
    assert run.tensor_sizes()[-1] == (1, 2, 4, 9) and "ScaleSize {Width 3, Height 2}" in describe(run)
    [x] = random_inputs(run, 22)
    result = execute(run, [x])
    assert result.bit_exact and np.array_equal(result.outputs[0], x.repeat(2, axis=2).repeat(3, axis=3))
    run = OperatorRun("resample1", "FLOAT16", (1, 2, 3, 4), attributes={"Scales": "1,1,1.5,0.5",
                                                                       "InterpolationMode": "LINEAR"})
    assert run.tensor_sizes()[-1] == (1, 2, 4, 2) and "InputPixelOffsets {0.5, 0.5, 0.5, 0.5}" in describe(run)
    assert execute(run, random_inputs(run, 23)).bit_exact
    run = OperatorRun("resample", "FLOAT32", (1, 1, 2, 2), output_sizes=(1, 1, 3, 5))
    assert execute(run, random_inputs(run, 24)).bit_exact
    with pytest.raises(UsageError, match=r"--attr Scales=1,x: Scales of DML_OPERATOR_RESAMPLE is an array of FLOATs"):
        OperatorRun("resample", "FLOAT32", (1, 1, 2, 2), attributes={"Scales": "1,x"})
    with pytest.raises(UsageError, match=r"ScaleSize of DML_OPERATOR_UPSAMPLE_2D is a DML_SIZE_2D; give Width,Height"):
        OperatorRun("upsample_2d", "FLOAT32", (1, 1, 2, 2), attributes={"ScaleSize": "2"})


def test_gathers_draw_indices_in_range_and_derive_their_output():
    run = OperatorRun("gather", "FLOAT32", (3, 4, 5), attributes={"Axis": "1"}, input_sizes={"Indices": (1, 2, 3)})
    assert run.tensor_sizes()[-1] == (3, 3, 5)      # {3, [1, 2,] 3, 5} right-aligned into 3 dimensions
    x, indices = random_inputs(run, 19)
    assert indices.dtype == np.uint32 and 0 <= indices.min() and indices.max() < 4
    result = execute(run, [x, indices])
    assert result.bit_exact and np.array_equal(result.outputs[0], np.take(x, indices[0, 0], axis=1))
    run = OperatorRun("gather_elements", "INT8", (3, 4), attributes={"Axis": "1"})
    x, indices = random_inputs(run, 20)
    result = execute(run, [x, indices])
    assert result.bit_exact and np.array_equal(result.outputs[0], np.take_along_axis(x, indices.astype(int), 1))
    run = OperatorRun("gather_nd", "FLOAT16", (4, 5, 6), input_sizes={"Indices": (1, 3, 2)})
    x, indices = random_inputs(run, 21)
    assert (indices[..., 0] < 4).all() and (indices[..., 1] < 5).all()
    result = execute(run, [x, indices])
    assert result.bit_exact and np.array_equal(result.outputs[0][0], x[indices[0, :, 0], indices[0, :, 1]])


def test_operators_without_an_input_take_the_output_s_sizes():
    run = OperatorRun("fill_value_sequence", "INT16", (1, 1, 2, 3), attributes={"ValueStart": "5", "ValueDelta": "-2"})
    assert run.fields == ["OutputTensor"] and run.input_fields == []
    result = execute(run, [])
    assert result.bit_exact and result.outputs[0].ravel().tolist() == [5, 3, 1, -1, -3, -5]
    run = OperatorRun("diagonal_matrix1", "FLOAT32", (1, 1, 3, 3), input_sizes={"Input": (1, 1, 3, 3)},
                      attributes={"DiagonalFillBegin": "-1", "DiagonalFillEnd": "1", "Value": "0"})
    [x] = random_inputs(run, 18)
    result = execute(run, [x])
    assert result.bit_exact and np.array_equal(result.outputs[0], np.triu(x, 1) + np.tril(x, -2))
    status, out, err = cli("run", "fill_value_constant", "--sizes", 1, 1, 2, 2, "--attr", "Value=3")
    assert status == 0 and "bit-exact against dmlemu.golden: yes" in out and "OutputTensor:" in out, err
    assert "sizes_field" not in out
    status, out, err = cli("run", "slice1", "--sizes", 4, 6, "--output-sizes", 2, 3)
    assert status == 0 and "bit-exact against dmlemu.golden: yes" in out, err


def test_quantized_products_take_one_scale_and_zero_point_or_those_given():
    run = OperatorRun("quantized_linear_matrix_multiply", None, (2, 3, 4))
    sizes = dict(zip(run.fields, run.tensor_sizes()))
    assert sizes["AScaleTensor"] == sizes["OutputScaleTensor"] == (1, 1, 1) and "AZeroPointTensor" not in sizes
    assert sizes["OutputTensor"] == (2, 3, 3) and run.tensor_types()[run.fields.index("ATensor")] == "UINT8"
    assert execute(run, random_inputs(run, 16)).bit_exact
    run = OperatorRun("matrix_multiply_integer", "INT8", (3, 4), input_sizes={"AZeroPoint": (3, 1),
                                                                             "BZeroPoint": (1, 3)})
    assert run.fields == ["ATensor", "AZeroPointTensor", "BTensor", "BZeroPointTensor", "OutputTensor"]
    [a, az, b, bz] = random_inputs(run, 17)
    result = execute(run, [a, az, b, bz])
    want = (a.astype(np.int32) - az) @ (b.astype(np.int32) - bz)
    assert result.bit_exact and np.array_equal(result.outputs[0], want)


# ---- derived Sizes, attributes, against NumPy ------------------------------------------------------------------
def test_gemm_derives_b_and_the_output_and_multiplies():
    run = OperatorRun("gemm", "FLOAT32", (2, 3, 5))
    assert run.tensor_sizes() == [(2, 3, 5), (2, 5, 3), (2, 3, 3)]
    a, b = random_inputs(run, 1)
    result = execute(run, [a, b])
    assert result.bit_exact and np.array_equal(result.outputs[0], a @ b)     # quarter steps: exact sums
    run = OperatorRun("gemm", "FLOAT32", (4, 6), attributes={"TransA": "TRANSPOSE", "TransB": "TRANSPOSE"},
                      input_sizes={"B": (2, 4)})
    assert run.tensor_sizes() == [(4, 6), (2, 4), (6, 2)]
    a, b = random_inputs(run, 2)
    result = execute(run, [a, b])
    assert result.bit_exact and np.array_equal(result.outputs[0], a.T @ b.T)
    run = OperatorRun("gemm", "FLOAT16", (3, 4), input_sizes={"C": (3, 3)}, attributes={"Alpha": "0.5"},
                      fused="relu")
    assert run.fields == ["ATensor", "BTensor", "CTensor", "OutputTensor"]
    assert "CTensor.Sizes {3, 3}, OutputTensor.Sizes {3, 3}" in describe(run)
    assert "FusedActivation ACTIVATION_RELU" in describe(run)
    result = execute(run, random_inputs(run, 3))
    assert result.bit_exact and (result.outputs[0] >= 0).all()


@pytest.mark.parametrize("function, reference", [("SUM", np.sum), ("MAX", np.max), ("MIN", np.min)])
def test_reduce_reduces_the_axes_given(function, reference):
    run = OperatorRun("reduce", "FLOAT32", (2, 3, 4), attributes={"Function": function, "Axes": "0,2"})
    assert run.tensor_sizes()[-1] == (1, 3, 1)
    [x] = random_inputs(run, 4)
    result = execute(run, [x])
    assert result.bit_exact and np.array_equal(result.outputs[0], reference(x, axis=(0, 2), keepdims=True))


def test_argmax_and_reduce_argmin_take_an_index_type():
    run = OperatorRun("argmax", "FLOAT32", (3, 5))
    assert run.tensor_types() == ["FLOAT32", "UINT32"] and run.tensor_sizes()[-1] == (3, 1)
    [x] = random_inputs(run, 5)
    result = execute(run, [x])
    assert result.bit_exact and result.outputs[0].ravel().tolist() == np.argmax(x, axis=1).tolist()
    run = OperatorRun("reduce", "FLOAT32", (3, 5), attributes={"Function": "ARGMIN", "Axes": "0"})
    assert run.tensor_types() == ["FLOAT32", "UINT32"] and run.tensor_sizes()[-1] == (1, 5)
    assert execute(run, random_inputs(run, 6)).bit_exact
    run = OperatorRun("reduce", "FLOAT32", (3, 5), attributes={"Function": "ARGMAX"}, output_type="INT64")
    assert run.tensor_types() == ["FLOAT32", "INT64"] and execute(run, random_inputs(run, 6)).bit_exact


def test_windows_follow_strides_padding_and_dilations():
    run = OperatorRun("max_pooling2", "FLOAT32", (1, 2, 7, 6), attributes={
        "WindowSize": "3,2", "Strides": "2,1", "StartPadding": "1,0", "EndPadding": "1,1", "Dilations": "1,2"})
    assert run.tensor_sizes()[1:] == [(1, 2, 4, 5), (1, 2, 4, 5)]      # (7 + 2 - 3) / 2 + 1, (6 + 1 - 3) / 1 + 1
    assert execute(run, random_inputs(run, 7)).bit_exact
    run = OperatorRun("average_pooling", "FLOAT32", (1, 3, 4, 4))
    [x] = random_inputs(run, 8)
    result = execute(run, [x])
    assert result.bit_exact and np.allclose(result.outputs[0], x.reshape(1, 3, 2, 2, 2, 2).mean(axis=(3, 5)))
    run = OperatorRun("convolution", "FLOAT32", (2, 4, 6, 5), attributes={"Strides": "2,1", "GroupCount": "2",
                                                                           "StartPadding": "1,1"})
    assert run.tensor_sizes() == [(2, 4, 6, 5), (4, 2, 3, 3), (2, 4, 3, 4)]
    assert execute(run, random_inputs(run, 9)).bit_exact
    run = OperatorRun("convolution", "FLOAT32", (1, 2, 3, 3), input_sizes={"Filter": (5, 2, 2, 2),
                                                                            "bias": (1, 5, 1, 1)})
    assert run.tensor_sizes()[1:] == [(5, 2, 2, 2), (1, 5, 1, 1), (1, 5, 2, 2)]
    assert execute(run, random_inputs(run, 10)).bit_exact


def test_data_movement_sizes():
    cases = [
        ("slice", (4, 6), {"Offsets": "1,2", "Sizes": "2,2", "Strides": "1,2"}, (2, 2), lambda x: x[1:3, 2:6:2]),
        ("padding", (2, 3), {"StartPadding": "0,2", "EndPadding": "1,0", "PaddingValue": "7"}, (3, 5),
         lambda x: np.pad(x, ((0, 1), (2, 0)), constant_values=7)),
        ("tile", (2, 3), {"Repeats": "3,1"}, (6, 3), lambda x: np.tile(x, (3, 1))),
        ("slice1", (5, 4), {"InputWindowOffsets": "4,0", "InputWindowSizes": "1,4", "InputWindowStrides": "-1,-2"},
         (1, 2), lambda x: x[4:5, ::-2]),
    ]
    for short, sizes, attributes, expected, reference in cases:
        run = OperatorRun(short, "FLOAT32", sizes, attributes=attributes)
        assert run.tensor_sizes()[-1] == expected, short
        [x] = random_inputs(run, 11)
        result = execute(run, [x])
        assert result.bit_exact and np.array_equal(result.outputs[0], reference(x)), short


def test_top_k_gives_both_outputs():
    run = OperatorRun("top_k1", "FLOAT32", (2, 6), attributes={"K": "3", "AxisDirection": "DECREASING"})
    assert run.output_fields == ["OutputValueTensor", "OutputIndexTensor"]
    assert run.tensor_sizes()[1:] == [(2, 3), (2, 3)] and run.tensor_types()[2] == "UINT32"
    [x] = random_inputs(run, 12)
    result = execute(run, [x])
    assert result.bit_exact and np.array_equal(result.outputs[0], -np.sort(-x, axis=1)[:, :3])


def test_normalizations_take_per_channel_tensors():
    run = OperatorRun("batch_normalization_training", "FLOAT32", (2, 3, 2, 2))
    assert run.tensor_sizes() == [(2, 3, 2, 2), (1, 3, 1, 1), (1, 3, 1, 1), (2, 3, 2, 2), (1, 3, 1, 1),
                                  (1, 3, 1, 1)]
    result = execute(run, random_inputs(run, 13))
    assert result.bit_exact and len(result.outputs) == 3
    run = OperatorRun("mean_variance_normalization1", "FLOAT16", (2, 3, 4), input_sizes={"Scale": (1, 3, 1),
                                                                                         "Bias": (1, 1, 4)})
    assert run.fields == ["InputTensor", "ScaleTensor", "BiasTensor", "OutputTensor"]
    assert execute(run, random_inputs(run, 14)).bit_exact


def test_the_derivation_is_the_validator_s():
    # the rule written once: an output Sizes the derivation gives is the one CreateOperator accepts, and a wrong
    # one given by hand is refused by the same rule
    schema = SCHEMAS_BY_NAME["REDUCE"]
    assert derived_output_sizes(schema, {"InputTensor": (2, 3, 4)}, {"Function": 0, "Axes": (1,)}) == {
        "OutputTensor": (2, 1, 4)}
    assert derived_output_sizes(schema, {"InputTensor": (2, 3)}, {"Function": 0, "Axes": (7,)}) == {
        "OutputTensor": (2, 3)}   # an axis out of range: CreateOperator names it
    run = OperatorRun("reduce", "FLOAT32", (2, 3), output_sizes=(2, 3))
    with pytest.raises(HResultError, match=r"OutputTensor.Sizes is \{2,3\}; DML_OPERATOR_REDUCE with InputTensor.Sizes "
                                           r"\{2,3\} and Axes \{1\} needs \{2,1\}"):
        execute(run, random_inputs(run))


def test_every_shaped_operator_on_two_data_types():
    """FLOAT16 where the first input takes it and the last type of its row: bit-exact, or E_NOTIMPL."""
    exact, not_implemented = run_on_two_data_types(SHAPED, sizes_field,
                                                   lambda short, data_type: _run(short, data_type, _sizes(short)), 15)
    assert exact >= 50 and len(not_implemented) <= 6, (exact, not_implemented)


_ATTRIBUTE_VALUES = {"Axes": ["0", "1", "0,1"], "Axis": ["0", "1"], "Function": ["SUM", "MAX", "AVERAGE", "L2",
                                                                                    "ARGMAX", "MULTIPLY"],
                     "WindowSize": ["1,1", "2,1", "3,3"], "Strides": ["1,1", "2,3"], "StartPadding": ["0,0", "1,0"],
                     "Dilations": ["1,1", "2,1"], "K": ["1", "3"], "Repeats": ["1,2", "2,1"], "BlockSize": ["1", "2"],
                     "TransA": ["NONE", "TRANSPOSE"], "TransB": ["NONE", "TRANSPOSE"], "GroupCount": ["1", "2"]}


@settings(max_examples=scaled(30), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_shaped_runs_are_bit_exact_or_refused_with_a_sentence(data):
    short = data.draw(st.sampled_from(SHAPED))
    schema = SCHEMAS_BY_NAME[OPERATORS[short]]
    support = schema.support_at(DML_FEATURE_LEVEL_6_4).tensors[sizes_field(schema)]
    rank = data.draw(st.integers(max(support.min_dims, 2), min(support.max_dims, 4)))
    sizes = tuple(data.draw(st.lists(st.integers(1, 5), min_size=rank, max_size=rank)))
    data_type = data.draw(st.sampled_from(support.data_types))
    attributes = {}
    for spec in schema.attributes:
        if spec.field in _ATTRIBUTE_VALUES and data.draw(st.booleans()):
            attributes[spec.field] = data.draw(st.sampled_from(_ATTRIBUTE_VALUES[spec.field]))
    try:
        run = _run(short, data_type, sizes, attributes=attributes)
        result = execute(run, random_inputs(run, data.draw(st.integers(0, 100))))
    except UsageError as error:
        assert "\n" not in str(error)
        return
    except HResultError as error:
        assert error.hresult in (E_INVALIDARG, E_NOTIMPL), error
        return
    assert result.bit_exact, describe(run)


# ---- the command line --------------------------------------------------------------------------------------
def test_cli_runs_gemm_with_a_trace_and_saves_every_output(tmp_path):
    status, out, err = cli("run", "GEMM", "--sizes", 4, 8, "--trace", tmp_path / "t.json")
    assert status == 0 and err == "", err
    assert "GEMM FLOAT32 Sizes {4, 8}, BTensor.Sizes {8, 4}, OutputTensor.Sizes {4, 4}" in out
    assert "bit-exact against dmlemu.golden: yes" in out
    assert json.loads((tmp_path / "t.json").read_text())["traceEvents"]
    status, out, err = cli("run", "top_k", "--sizes", 3, 5, "--attr", "K=2", "--output", tmp_path / "v.npy",
                           tmp_path / "i.npy")
    assert status == 0 and "bit-exact against dmlemu.golden: yes" in out
    assert np.load(tmp_path / "v.npy").shape == (3, 2) and np.load(tmp_path / "i.npy").dtype == np.uint32
    status, out, err = cli("run", "reduce", "--sizes", 3, 4, "--attr", "Function=MAX", "--attr", "Axes=0",
                           "--input", tmp_path / "v.npy")
    assert status == 2 and "InputTensor has Sizes [3, 4] (12 elements)" in err


def test_cli_runs_a_convolution_with_a_given_filter():
    status, out, err = cli("run", "convolution", "--sizes", 1, 2, 5, 5, "--input-sizes", "Filter=3,2,3,3",
                           "--attr", "StartPadding=1,1", "--attr", "EndPadding=1,1")
    assert status == 0, err
    assert "FilterTensor.Sizes {3, 2, 3, 3}, OutputTensor.Sizes {1, 3, 5, 5}" in out
    assert "bit-exact against dmlemu.golden: yes" in out


def test_cli_step_gemm_checks_the_whole_dispatch():
    status, out, err = cli("step", "--operator", "gemm", "--dtype", "FLOAT32", "--sizes", 2, 4)
    assert status == 0 and err == "", err
    assert "dmlemu step: GEMM FLOAT32 Sizes {2, 4}, BTensor.Sizes {4, 2}" in out
    assert "not one output element per lane" in out
    assert "OutputTensor after the whole dispatch (every wave, run on a fresh GPU)" in out
    assert "(bit-exact against dmlemu.golden)" in out and "DIFFERS" not in out
    status, out, err = cli("step", "--operator", "reduce", "--dtype", "FLOAT32", "--sizes", 2, 8, "--workgroup", 1)
    assert status == 0 and "(bit-exact against dmlemu.golden)" in out, err


@pytest.mark.parametrize("argv, line", [
    (("run", "gemm", "--sizes", 4, 4, "--attr", "TransA=SIDEWAYS"),
     "dmlemu: error: --attr TransA=SIDEWAYS: TransA of DML_OPERATOR_GEMM is a DML_MATRIX_TRANSFORM; 'SIDEWAYS' is "
     "not one of its values: NONE (0), TRANSPOSE (1)"),
    (("run", "reduce", "--sizes", 4, 4, "--attr", "Axes=0,x"),
     "dmlemu: error: --attr Axes=0,x: Axes of DML_OPERATOR_REDUCE is an array of UINTs (N,N,...); 'x' is not an "
     "integer"),
    (("run", "reduce", "--sizes", 4, 4, "--attr", "Axes=-1"),
     "dmlemu: error: --attr Axes=-1: Axes of DML_OPERATOR_REDUCE is an array of UINTs (N,N,...); -1 is outside its "
     "range 0 to 4294967295"),
    (("run", "reduce", "--sizes", 4, 4, "--attr", "Axes=2"),
     "dmlemu: error: Axes[0] is 2; InputTensor has 2 dimensions, so DML_OPERATOR_REDUCE takes axes 0 to 1. "
     "(E_INVALIDARG)"),
    (("run", "top_k", "--sizes", 4, 4, "--attr", "K=1,2"),
     "dmlemu: error: --attr K=1,2: K of DML_OPERATOR_TOP_K is a UINT; give one number, not 2"),
    (("run", "gemm", "--sizes", 4, 4, "--input-sizes", "D=4,4"),
     "dmlemu: error: --input-sizes names 'D'; DML_OPERATOR_GEMM's tensors are ATensor, BTensor, CTensor, "
     "OutputTensor"),
    (("run", "gemm", "--sizes", 4, 4, "--input-sizes", "A=4,4"),
     "dmlemu: error: --input-sizes ATensor: GEMM's ATensor has --sizes; give it there"),
    (("run", "gemm", "--sizes", 4, 4, "--input-sizes", "B=3,4"),
     "dmlemu: error: BTensor.Sizes is {3,4} but ATensor.Sizes is {4,4}; DML_OPERATOR_GEMM needs B's K (3) to equal "
     "A's K (4) after TransA and TransB. (E_INVALIDARG)"),
    (("run", "add", "--sizes", 4, "--output-sizes", 4),
     "dmlemu: error: --output-sizes: ELEMENT_WISE_ADD is element-wise; its output has --sizes"),
    (("run", "max_pooling", "--sizes", 1, 1, 4, 4, "--attr", "Strides=0,1"),
     "dmlemu: error: Strides[0] is 0; it must be an integer from 1 to 4294967295. (E_INVALIDARG)"),
    (("run", "top_k", "--sizes", 3, 4, "--output", "a.npy"),
     "dmlemu: error: TOP_K has 2 outputs (OutputValueTensor, OutputIndexTensor); 1 --output paths were given"),
])
def test_cli_bad_shaped_arguments_are_one_line(argv, line):
    status, out, err = cli(*argv)
    assert status == 2 and out == "", (status, out, err)
    assert err.strip() == line


_HOSTILE_VALUES = ["", "0", "1", "2", "-1", "x", "1,2", "0,0,0,0,0", "4294967296", "99999", "1e3", ",", "0x10",
                   "TRANSPOSE", "ARGMAX", "nan", "inf,1", "1,1,0.5,2", "-2147483649", "1e40"]
_HOSTILE_NAMES = ["Axes", "Axis", "K", "Strides", "WindowSize", "StartPadding", "EndPadding", "Dilations", "Offsets",
                  "Sizes", "Repeats", "BlockSize", "GroupCount", "TransA", "Function", "P", "Nope", "Epsilon", "Scales",
                  "ScaleSize", "IndexDimensions", "BatchDimensionCount", "ValueDelta", "DiagonalFillBegin", "HeadCount",
                  "MaskType"]
_HOSTILE_TENSORS = ["B", "C", "Filter", "Bias", "Scale", "Output", "OutputTensor", "Indices", "X", "Input",
                    "InputZeroPoint", "FilterScale", "InputTensors[1]", "InputTensors[0]", "OutputTensors[2]",
                    "OutputTensors", "InputTensors[-1]", "InputTensors[]", "Key", "Value", "Mask", "PastKey"]


@settings(max_examples=scaled(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_hostile_attributes_and_sizes_give_one_line_or_run(data):
    short = data.draw(st.sampled_from(["gemm", "reduce", "argmax", "softmax1", "max_pooling2", "convolution",
                                       "slice", "padding", "tile", "top_k", "depth_to_space", "lp_normalization",
                                       "mean_variance_normalization1", "cumulative_summation", "gather", "gather_nd1",
                                       "resample2", "upsample_2d", "fill_value_sequence", "quantized_linear_conv"
                                       "olution", "diagonal_matrix1", "join", "split", "scatter_nd",
                                       "scatter_elements", "reverse_subsequences", "random_generator", "one_hot",
                                       "nonzero_coordinates", "multihead_attention", "max_unpooling"]))
    sizes = data.draw(st.lists(st.sampled_from([0, 1, 2, 3, 4]), min_size=1, max_size=5))
    argv = ["run", short, "--sizes", *sizes]
    for _ in range(data.draw(st.integers(0, 3))):
        argv += ["--attr", f"{data.draw(st.sampled_from(_HOSTILE_NAMES))}={data.draw(st.sampled_from(_HOSTILE_VALUES))}"]
    for _ in range(data.draw(st.integers(0, 2))):
        argv += ["--input-sizes", f"{data.draw(st.sampled_from(_HOSTILE_TENSORS))}="
                                  f"{data.draw(st.sampled_from(_HOSTILE_VALUES))}"]
    if data.draw(st.booleans()):
        argv += ["--output-sizes", *data.draw(st.lists(st.sampled_from([0, 1, 2, 5, -1, 1 << 33]), max_size=4))]
    status, out, err = cli(*argv)
    assert "Traceback" not in err
    if status == 0:
        assert "bit-exact against dmlemu.golden: yes" in out and err == "", (argv, out)
        return
    assert status == 2, (argv, status, out, err)
    lines = err.strip().splitlines()
    if lines and lines[-1].startswith("dmlemu run: error: "):   # argparse: usage, then its error line
        return
    assert len(lines) == 1 and lines[0].startswith("dmlemu: error: "), (argv, err)
