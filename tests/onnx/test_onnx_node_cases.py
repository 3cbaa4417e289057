"""The ONNX backend node test cases the onnx wheel generates (onnx.backend.test.case.node: a model.onnx
and test_data_set_0 per case, built in memory), run through dmlemu.onnx.run against their expected
outputs within the WebNN tolerances (dmlemu.onnx.tolerances).

EXPECTED_TO_PASS names the cases that run on main today: every operator of the case converts and has a
kernel (dmlemu.onnx.converters.implemented). As operators land (convolution, pooling, softmax,
normalization, data movement), widen it: the converters for them exist already. Cases left out today
are refused with a ConversionError sentence (an operator without a kernel yet, axes or bounds given as
graph inputs, 2-, 4- and 8-bit types, training-mode Dropout), or fail on a tolerance that is one node's
applied to an expanded function (test_mish_expanded).
"""
import warnings

import numpy as np
import pytest

pytest.importorskip("onnx")

from dmlemu.onnx import ConversionError, run  # noqa: E402
from dmlemu.onnx.tolerances import tolerance, within  # noqa: E402

# ---- the node cases expected to pass (widen at merge as operators land) ------------------------------------
EXPECTED_TO_PASS = (
    "test_abs", "test_acos", "test_acos_example", "test_acosh", "test_acosh_example", "test_add", "test_add_bcast",
    "test_add_int16", "test_add_int8", "test_add_uint16", "test_add_uint32", "test_add_uint64", "test_add_uint8",
    "test_and2d", "test_and3d", "test_and4d", "test_and_bcast3v1d", "test_and_bcast3v2d", "test_and_bcast4v2d",
    "test_and_bcast4v3d", "test_and_bcast4v4d", "test_argmax_default_axis_example",
    "test_argmax_default_axis_example_select_last_index", "test_argmax_default_axis_random",
    "test_argmax_default_axis_random_select_last_index", "test_argmax_keepdims_example",
    "test_argmax_keepdims_example_select_last_index", "test_argmax_keepdims_random",
    "test_argmax_keepdims_random_select_last_index", "test_argmax_negative_axis_keepdims_example",
    "test_argmax_negative_axis_keepdims_example_select_last_index", "test_argmax_negative_axis_keepdims_random",
    "test_argmax_negative_axis_keepdims_random_select_last_index", "test_argmax_no_keepdims_example",
    "test_argmax_no_keepdims_example_select_last_index", "test_argmax_no_keepdims_random",
    "test_argmax_no_keepdims_random_select_last_index", "test_argmin_default_axis_example",
    "test_argmin_default_axis_example_select_last_index", "test_argmin_default_axis_random",
    "test_argmin_default_axis_random_select_last_index", "test_argmin_keepdims_example",
    "test_argmin_keepdims_example_select_last_index", "test_argmin_keepdims_random",
    "test_argmin_keepdims_random_select_last_index", "test_argmin_negative_axis_keepdims_example",
    "test_argmin_negative_axis_keepdims_example_select_last_index", "test_argmin_negative_axis_keepdims_random",
    "test_argmin_negative_axis_keepdims_random_select_last_index", "test_argmin_no_keepdims_example",
    "test_argmin_no_keepdims_example_select_last_index", "test_argmin_no_keepdims_random",
    "test_argmin_no_keepdims_random_select_last_index", "test_asin", "test_asin_example", "test_asinh",
    "test_asinh_example", "test_atan", "test_atan_example", "test_atanh", "test_atanh_example",
    "test_cast_DOUBLE_to_FLOAT", "test_cast_DOUBLE_to_FLOAT16", "test_cast_FLOAT16_to_DOUBLE",
    "test_cast_FLOAT16_to_FLOAT", "test_cast_FLOAT_to_DOUBLE", "test_cast_FLOAT_to_FLOAT16",
    "test_castlike_DOUBLE_to_FLOAT16_expanded", "test_castlike_DOUBLE_to_FLOAT_expanded",
    "test_castlike_FLOAT16_to_DOUBLE_expanded", "test_castlike_FLOAT16_to_FLOAT_expanded",
    "test_castlike_FLOAT_to_DOUBLE_expanded", "test_castlike_FLOAT_to_FLOAT16_expanded", "test_ceil",
    "test_ceil_example", "test_celu", "test_celu_float16", "test_clip_default_inbounds",
    "test_clip_default_inbounds_expanded", "test_clip_default_int8_inbounds",
    "test_clip_default_int8_inbounds_expanded", "test_clip_default_int8_max_expanded",
    "test_clip_default_int8_min_expanded", "test_clip_default_max_expanded", "test_clip_default_min_expanded",
    "test_clip_example_expanded", "test_clip_expanded", "test_clip_inbounds_expanded",
    "test_clip_min_greater_than_max_expanded", "test_clip_outbounds_expanded", "test_clip_splitbounds_expanded",
    "test_cos", "test_cos_example", "test_cosh", "test_cosh_example", "test_div", "test_div_bcast",
    "test_div_example", "test_div_int16", "test_div_int32_trunc", "test_div_int8", "test_div_uint16",
    "test_div_uint32", "test_div_uint64", "test_div_uint8", "test_dropout_default", "test_dropout_default_old",
    "test_dropout_default_ratio", "test_dropout_random_old", "test_elu", "test_elu_default", "test_elu_example",
    "test_equal", "test_equal_bcast", "test_equal_int16", "test_equal_int8", "test_equal_uint16", "test_equal_uint32",
    "test_equal_uint64", "test_equal_uint8", "test_erf", "test_exp", "test_exp_example", "test_expand_dim_changed",
    "test_expand_dim_unchanged", "test_flatten_axis0", "test_flatten_axis1", "test_flatten_axis2",
    "test_flatten_axis3", "test_flatten_default_axis", "test_flatten_negative_axis1", "test_flatten_negative_axis2",
    "test_flatten_negative_axis3", "test_flatten_negative_axis4", "test_floor", "test_floor_example",
    "test_gelu_default_1", "test_gelu_default_2", "test_gemm_all_attributes", "test_gemm_alpha", "test_gemm_beta",
    "test_gemm_default_matrix_bias", "test_gemm_default_no_bias", "test_gemm_default_scalar_bias",
    "test_gemm_default_single_elem_vector_bias", "test_gemm_default_vector_bias", "test_gemm_default_zero_bias",
    "test_gemm_transposeA", "test_gemm_transposeB", "test_greater", "test_greater_bcast", "test_greater_equal",
    "test_greater_equal_bcast", "test_greater_equal_bcast_expanded", "test_greater_equal_expanded",
    "test_greater_equal_int16", "test_greater_equal_int16_expanded", "test_greater_equal_int8",
    "test_greater_equal_int8_expanded", "test_greater_equal_uint16", "test_greater_equal_uint16_expanded",
    "test_greater_equal_uint32", "test_greater_equal_uint32_expanded", "test_greater_equal_uint64",
    "test_greater_equal_uint64_expanded", "test_greater_equal_uint8", "test_greater_equal_uint8_expanded",
    "test_greater_int16", "test_greater_int8", "test_greater_uint16", "test_greater_uint32", "test_greater_uint64",
    "test_greater_uint8", "test_hardsigmoid", "test_hardsigmoid_default", "test_hardsigmoid_example",
    "test_hardswish", "test_hardswish_expanded", "test_identity", "test_isnan", "test_isnan_float16",
    "test_leakyrelu", "test_leakyrelu_default", "test_leakyrelu_example", "test_less", "test_less_bcast",
    "test_less_equal", "test_less_equal_bcast", "test_less_equal_bcast_expanded", "test_less_equal_expanded",
    "test_less_equal_int16", "test_less_equal_int16_expanded", "test_less_equal_int8",
    "test_less_equal_int8_expanded", "test_less_equal_uint16", "test_less_equal_uint16_expanded",
    "test_less_equal_uint32", "test_less_equal_uint32_expanded", "test_less_equal_uint64",
    "test_less_equal_uint64_expanded", "test_less_equal_uint8", "test_less_equal_uint8_expanded", "test_less_int16",
    "test_less_int8", "test_less_uint16", "test_less_uint32", "test_less_uint64", "test_less_uint8", "test_log",
    "test_log_example", "test_matmul_1d_1d", "test_matmul_1d_3d", "test_matmul_2d", "test_matmul_3d",
    "test_matmul_4d", "test_matmul_4d_1d", "test_matmul_bcast", "test_max_example", "test_max_float16",
    "test_max_float32", "test_max_int16", "test_max_int32", "test_max_int64", "test_max_int8", "test_max_one_input",
    "test_max_two_inputs", "test_max_uint16", "test_max_uint32", "test_max_uint64", "test_max_uint8",
    "test_min_example", "test_min_float16", "test_min_float32", "test_min_int16", "test_min_int32", "test_min_int64",
    "test_min_int8", "test_min_one_input", "test_min_two_inputs", "test_min_uint16", "test_min_uint32",
    "test_min_uint64", "test_min_uint8", "test_mul", "test_mul_bcast", "test_mul_example", "test_mul_int16",
    "test_mul_int8", "test_mul_uint16", "test_mul_uint32", "test_mul_uint64", "test_mul_uint8", "test_neg",
    "test_neg_example", "test_not_2d", "test_not_3d", "test_not_4d", "test_or2d", "test_or3d", "test_or4d",
    "test_or_bcast3v1d", "test_or_bcast3v2d", "test_or_bcast4v2d", "test_or_bcast4v3d", "test_or_bcast4v4d",
    "test_pow", "test_pow_bcast_array", "test_pow_bcast_scalar", "test_pow_example", "test_prelu_broadcast",
    "test_prelu_example", "test_reciprocal", "test_reciprocal_example",
    "test_reduce_max_default_axes_keepdim_example", "test_reduce_max_default_axes_keepdims_random",
    "test_reduce_min_default_axes_keepdims_example", "test_reduce_min_default_axes_keepdims_random",
    "test_reduce_prod_default_axes_keepdims_example", "test_reduce_prod_default_axes_keepdims_random", "test_relu",
    "test_reshape_extended_dims", "test_reshape_negative_dim", "test_reshape_negative_extended_dims",
    "test_reshape_one_dim", "test_reshape_reduced_dims", "test_reshape_reordered_all_dims",
    "test_reshape_reordered_last_dims", "test_reshape_zero_and_negative_dim", "test_reshape_zero_dim", "test_round",
    "test_selu", "test_selu_default", "test_selu_example", "test_shrink_hard", "test_shrink_soft", "test_sigmoid",
    "test_sigmoid_example", "test_sign", "test_sin", "test_sin_example", "test_sinh", "test_sinh_example",
    "test_softplus", "test_softplus_example", "test_softsign", "test_softsign_example", "test_sqrt",
    "test_sqrt_example", "test_squeeze", "test_squeeze_negative_axes", "test_sub", "test_sub_bcast",
    "test_sub_example", "test_sub_int16", "test_sub_int8", "test_sub_uint16", "test_sub_uint32", "test_sub_uint64",
    "test_sub_uint8", "test_sum_example", "test_sum_one_input", "test_sum_two_inputs", "test_tan", "test_tan_example",
    "test_tanh", "test_tanh_example", "test_thresholdedrelu", "test_thresholdedrelu_default",
    "test_thresholdedrelu_example", "test_transpose_all_permutations_0", "test_transpose_all_permutations_1",
    "test_transpose_all_permutations_2", "test_transpose_all_permutations_3", "test_transpose_all_permutations_4",
    "test_transpose_all_permutations_5", "test_transpose_default", "test_unsqueeze_axis_0", "test_unsqueeze_axis_1",
    "test_unsqueeze_axis_2", "test_unsqueeze_negative_axes", "test_unsqueeze_three_axes", "test_unsqueeze_two_axes",
    "test_unsqueeze_unsorted_axes", "test_where_example", "test_where_long_example", "test_xor2d", "test_xor3d",
    "test_xor4d", "test_xor_bcast3v1d", "test_xor_bcast3v2d", "test_xor_bcast4v2d", "test_xor_bcast4v3d",
    "test_xor_bcast4v4d",
)


@pytest.fixture(scope="module")
def cases():
    from onnx.backend.test.case import node
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")      # the case generators' own overflow warnings
        return {case.name: case for case in node.collect_testcases(None)}


def _array(value):
    from onnx import TensorProto, numpy_helper
    return numpy_helper.to_array(value) if isinstance(value, TensorProto) else np.asarray(value)


def test_every_expected_case_exists(cases):
    missing = [name for name in EXPECTED_TO_PASS if name not in cases]
    assert not missing, f"the onnx wheel has no node cases {missing}"


@pytest.mark.parametrize("name", EXPECTED_TO_PASS)
def test_node_case(cases, name):
    from onnx import helper
    case = cases[name]
    inputs, expected = case.data_sets[0]
    initializers = {t.name for t in case.model.graph.initializer}
    names = [v.name for v in case.model.graph.input if v.name not in initializers]
    feeds = {n: _array(a) for n, a in zip(names, inputs)}
    outputs = run(case.model, feeds, timing=False)
    assert list(outputs) == [v.name for v in case.model.graph.output]
    node = case.model.graph.node[-1]
    shapes = [list(np.shape(_array(a))) for a in inputs]
    attributes = {a.name: helper.get_attribute_value(a) for a in node.attribute}
    limit = tolerance(node.op_type, shapes, attributes)
    for (output, got), want in zip(outputs.items(), expected):
        ok, why = within(got, _array(want), limit)
        assert ok, f"{name} output {output}: {why}"


def test_a_case_whose_axes_are_a_graph_input_is_refused_with_a_sentence(cases):
    case = cases["test_reduce_sum_keepdims_example"]
    inputs, _ = case.data_sets[0]
    feeds = dict(zip([v.name for v in case.model.graph.input], inputs))
    with pytest.raises(ConversionError, match=r'node "\w+" \(ReduceSum\) cannot be converted: its axes comes from '
                                              r'"axes", which is computed'):
        run(case.model, feeds, timing=False)
