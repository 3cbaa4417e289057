"""The ONNX backend node test cases the onnx wheel generates (onnx.backend.test.case.node: a model.onnx
and test_data_set_0 per case, built in memory), run through dmlemu.onnx.run against their expected
outputs within the WebNN tolerances (dmlemu.onnx.tolerances).

EXPECTED_TO_PASS names the cases that pass: every operator of the case converts and has a kernel
(dmlemu.onnx.converters.implemented), shape operands (axes, starts, pads, repeats, scales, sizes) fed as
graph inputs made initializers first (CONSTANT_OPERANDS). Cases left out, and why (docs/DEVIATIONS.md,
"ONNX node cases left out"):
  * refused with a ConversionError sentence: cubic, antialiased, tf_crop_and_resize and half_pixel_symmetric
    Resize; Scatter reductions; LpPool with p other than 1 and 2 (the LP_POOLING kernel serves 1 and 2); LayerNormalization's Mean / InvStdDev outputs;
    training-mode BatchNormalization and Dropout; FLOAT64 CumSum / ReduceLogSumExp (no DML type row); empty
    tensors (DirectML sizes are non-zero); NegativeLogLikelihoodLoss, Scan, 2-,
    4-, 8-bit and BFLOAT16 types; dynamic shapes;
  * outside the WebNN tolerance without a converter or kernel bug: AveragePool cases whose averages cancel to
    near 0 (test_averagepool_2d_pads, _2d_pads_count_include_pad, _2d_strides, _3d_default,
    _3d_dilations_large_*: 164 to 28928 ULP of a 1e-5 result, |difference| <= 4e-8 on inputs of magnitude 1,
    the reference's other summation order); BatchNormalization (test_batchnorm_epsilon 16 ULP,
    _example 8 ULP, WebNN 6: BATCH_NORMALIZATION's documented order, a divide by sqrt(var + eps), against the
    reference's);
  * ONNX and DirectML define it differently: AveragePool count_include_pad with ceil_mode past the pads
    (refused), Resize align_corners downsampling and keep_aspect_ratio_policy not_smaller
    (test_resize_downsample_scales_linear_align_corners, test_resize_downsample_sizes_nearest_not_smaller:
    the output size ONNX rounds differs from floor(input x scale)).

Each output is judged by the tolerance of the node that computes it (through Identity), which in an expanded
function need not be the last node: test_causal_conv_with_state_*_expanded's output by its Conv's, its
present_state by its Slice's. The expected outputs are the onnx reference's, computed on the machine that runs
the tests, and its Conv is a NumPy matmul: the OpenBLAS kernel it runs (chosen by the CPU, or by
OPENBLAS_CORETYPE) sets the summation order (test_causal_conv_with_state_short_input_no_past_state's element 3 is
1 ULP apart between the Haswell or Zen kernel and the SkylakeX one; dmlemu's is the latter's).
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
    "test_averagepool_1d_default", "test_averagepool_2d_ceil", "test_averagepool_2d_default",
    "test_averagepool_2d_dilations", "test_averagepool_2d_precomputed_pads",
    "test_averagepool_2d_precomputed_pads_count_include_pad", "test_averagepool_2d_precomputed_same_upper",
    "test_averagepool_2d_precomputed_strides", "test_averagepool_2d_same_lower", "test_averagepool_2d_same_upper",
    "test_averagepool_3d_dilations_small", "test_basic_conv_with_padding", "test_basic_conv_without_padding",
    "test_cast_DOUBLE_to_FLOAT", "test_cast_DOUBLE_to_FLOAT16", "test_cast_FLOAT16_to_DOUBLE",
    "test_cast_FLOAT16_to_FLOAT", "test_cast_FLOAT_to_DOUBLE", "test_cast_FLOAT_to_FLOAT16",
    "test_castlike_DOUBLE_to_FLOAT", "test_castlike_DOUBLE_to_FLOAT16", "test_castlike_DOUBLE_to_FLOAT16_expanded",
    "test_castlike_DOUBLE_to_FLOAT_expanded", "test_castlike_FLOAT16_to_DOUBLE",
    "test_castlike_FLOAT16_to_DOUBLE_expanded", "test_castlike_FLOAT16_to_FLOAT",
    "test_castlike_FLOAT16_to_FLOAT_expanded", "test_castlike_FLOAT_to_DOUBLE",
    "test_castlike_FLOAT_to_DOUBLE_expanded", "test_castlike_FLOAT_to_FLOAT16",
    "test_castlike_FLOAT_to_FLOAT16_expanded", "test_causal_conv_with_state_basic_expanded",
    "test_causal_conv_with_state_decode_step_expanded",
    "test_causal_conv_with_state_fp16_expanded", "test_causal_conv_with_state_short_input_no_past_state_expanded",
    "test_causal_conv_with_state_silu_fp16_expanded", "test_causal_conv_with_state_with_bias_and_past_state_expanded",
    "test_causal_conv_with_state_with_bias_expanded", "test_causal_conv_with_state_with_past_state_expanded",
    "test_ceil", "test_ceil_example", "test_celu", "test_celu_expanded", "test_celu_float16",
    "test_celu_float16_expanded", "test_clip", "test_clip_default_inbounds", "test_clip_default_inbounds_expanded",
    "test_clip_default_int8_inbounds", "test_clip_default_int8_inbounds_expanded", "test_clip_default_int8_max",
    "test_clip_default_int8_max_expanded", "test_clip_default_int8_min", "test_clip_default_int8_min_expanded",
    "test_clip_default_max", "test_clip_default_max_expanded", "test_clip_default_min",
    "test_clip_default_min_expanded", "test_clip_example", "test_clip_example_expanded", "test_clip_expanded",
    "test_clip_inbounds", "test_clip_inbounds_expanded", "test_clip_min_greater_than_max_expanded",
    "test_clip_outbounds", "test_clip_outbounds_expanded", "test_clip_splitbounds", "test_clip_splitbounds_expanded",
    "test_concat_1d_axis_0", "test_concat_1d_axis_negative_1", "test_concat_2d_axis_0", "test_concat_2d_axis_1",
    "test_concat_2d_axis_negative_1", "test_concat_2d_axis_negative_2", "test_concat_3d_axis_0",
    "test_concat_3d_axis_1", "test_concat_3d_axis_2", "test_concat_3d_axis_negative_1",
    "test_concat_3d_axis_negative_2", "test_concat_3d_axis_negative_3", "test_constant_pad", "test_constant_pad_axes",
    "test_constant_pad_negative_axes", "test_conv_with_autopad_same", "test_conv_with_strides_and_asymmetric_padding",
    "test_conv_with_strides_no_padding", "test_conv_with_strides_padding", "test_convtranspose",
    "test_convtranspose_1d", "test_convtranspose_3d", "test_convtranspose_autopad_same",
    "test_convtranspose_dilations", "test_convtranspose_group_2", "test_convtranspose_group_2_image_3",
    "test_convtranspose_kernel_shape", "test_convtranspose_output_shape", "test_convtranspose_pad",
    "test_convtranspose_pads", "test_cos", "test_cos_example", "test_cosh", "test_cosh_example",
    "test_cumprod_1d_int32_exclusive", "test_cumprod_2d_int32", "test_cumsum_1d_int32_exclusive",
    "test_cumsum_2d_int32", "test_depthtospace_crd_mode_example", "test_depthtospace_example", "test_div",
    "test_div_bcast", "test_div_example", "test_div_int16", "test_div_int32_trunc", "test_div_int8", "test_div_uint16",
    "test_div_uint32", "test_div_uint64", "test_div_uint8", "test_dropout_default", "test_dropout_default_old",
    "test_dropout_default_ratio", "test_dropout_random_old", "test_edge_pad", "test_elu", "test_elu_default",
    "test_elu_example", "test_elu_example_expanded_ver18", "test_equal", "test_equal_bcast", "test_equal_int16",
    "test_equal_int8", "test_equal_uint16", "test_equal_uint32", "test_equal_uint64", "test_equal_uint8", "test_erf",
    "test_exp", "test_exp_example", "test_expand_dim_changed", "test_expand_dim_unchanged", "test_flatten_axis0",
    "test_flatten_axis1", "test_flatten_axis2", "test_flatten_axis3", "test_flatten_default_axis",
    "test_flatten_negative_axis1", "test_flatten_negative_axis2", "test_flatten_negative_axis3",
    "test_flatten_negative_axis4", "test_floor", "test_floor_example", "test_gather_0", "test_gather_1",
    "test_gather_2d_indices", "test_gather_elements_0", "test_gather_elements_1",
    "test_gather_elements_negative_indices", "test_gather_negative_indices", "test_gathernd_example_float32",
    "test_gathernd_example_int32", "test_gathernd_example_int32_batch_dim1", "test_gelu_default_1",
    "test_gelu_default_1_expanded", "test_gelu_default_2", "test_gemm_all_attributes", "test_gemm_alpha",
    "test_gemm_beta", "test_gemm_default_matrix_bias", "test_gemm_default_no_bias", "test_gemm_default_scalar_bias",
    "test_gemm_default_single_elem_vector_bias", "test_gemm_default_vector_bias", "test_gemm_default_zero_bias",
    "test_gemm_transposeA", "test_gemm_transposeB", "test_globalaveragepool", "test_globalaveragepool_precomputed",
    "test_globalmaxpool", "test_globalmaxpool_precomputed", "test_greater", "test_greater_bcast", "test_greater_equal",
    "test_greater_equal_bcast", "test_greater_equal_bcast_expanded", "test_greater_equal_expanded",
    "test_greater_equal_int16", "test_greater_equal_int16_expanded", "test_greater_equal_int8",
    "test_greater_equal_int8_expanded", "test_greater_equal_uint16", "test_greater_equal_uint16_expanded",
    "test_greater_equal_uint32", "test_greater_equal_uint32_expanded", "test_greater_equal_uint64",
    "test_greater_equal_uint64_expanded", "test_greater_equal_uint8", "test_greater_equal_uint8_expanded",
    "test_greater_int16", "test_greater_int8", "test_greater_uint16", "test_greater_uint32", "test_greater_uint64",
    "test_greater_uint8", "test_hardmax_axis_0", "test_hardmax_axis_1", "test_hardmax_axis_2",
    "test_hardmax_default_axis", "test_hardmax_example", "test_hardmax_negative_axis", "test_hardmax_one_hot",
    "test_hardsigmoid", "test_hardsigmoid_default", "test_hardsigmoid_default_expanded_ver18",
    "test_hardsigmoid_example", "test_hardsigmoid_example_expanded_ver18", "test_hardsigmoid_expanded_ver18",
    "test_hardswish", "test_hardswish_expanded", "test_identity", "test_instancenorm_epsilon",
    "test_instancenorm_example", "test_isnan", "test_isnan_float16", "test_l1normalization_axis_0",
    "test_l1normalization_axis_1", "test_l1normalization_axis_last", "test_l2normalization_axis_0",
    "test_l2normalization_axis_1", "test_leakyrelu", "test_leakyrelu_default", "test_leakyrelu_default_expanded",
    "test_leakyrelu_example", "test_leakyrelu_example_expanded", "test_leakyrelu_expanded", "test_less",
    "test_less_bcast", "test_less_equal", "test_less_equal_bcast", "test_less_equal_bcast_expanded",
    "test_less_equal_expanded", "test_less_equal_int16", "test_less_equal_int16_expanded", "test_less_equal_int8",
    "test_less_equal_int8_expanded", "test_less_equal_uint16", "test_less_equal_uint16_expanded",
    "test_less_equal_uint32", "test_less_equal_uint32_expanded", "test_less_equal_uint64",
    "test_less_equal_uint64_expanded", "test_less_equal_uint8", "test_less_equal_uint8_expanded", "test_less_int16",
    "test_less_int8", "test_less_uint16", "test_less_uint32", "test_less_uint64", "test_less_uint8", "test_log",
    "test_log_example", "test_logsoftmax_axis_0", "test_logsoftmax_axis_1", "test_logsoftmax_axis_2",
    "test_logsoftmax_default_axis", "test_logsoftmax_example_1", "test_logsoftmax_example_1_expanded",
    "test_logsoftmax_example_1_expanded_ver18", "test_logsoftmax_large_number", "test_logsoftmax_negative_axis",
    "test_lpnormalization_default", "test_lppool_2d_dilations", "test_lppool_2d_same_upper", "test_lppool_2d_strides",
    "test_lrn", "test_lrn_default", "test_matmul_1d_1d", "test_matmul_1d_3d", "test_matmul_2d", "test_matmul_3d",
    "test_matmul_4d", "test_matmul_4d_1d", "test_matmul_bcast", "test_max_example", "test_max_float16",
    "test_max_float32", "test_max_int16", "test_max_int32", "test_max_int64", "test_max_int8", "test_max_one_input",
    "test_max_two_inputs", "test_max_uint16", "test_max_uint32", "test_max_uint64", "test_max_uint8",
    "test_maxpool_1d_default", "test_maxpool_2d_ceil", "test_maxpool_2d_ceil_output_size_reduce_by_one",
    "test_maxpool_2d_default", "test_maxpool_2d_pads", "test_maxpool_2d_precomputed_pads",
    "test_maxpool_2d_precomputed_same_upper", "test_maxpool_2d_precomputed_strides", "test_maxpool_2d_same_lower",
    "test_maxpool_2d_same_upper", "test_maxpool_2d_strides", "test_maxpool_2d_uint8", "test_maxpool_3d_default",
    "test_maxpool_2d_dilations", "test_maxpool_3d_dilations", "test_maxpool_3d_dilations_use_ref_impl",
    "test_maxpool_3d_dilations_use_ref_impl_large", "test_maxpool_with_argmax_2d_precomputed_pads",
    "test_maxpool_with_argmax_2d_precomputed_strides", "test_maxunpool_export_with_output_shape",
    "test_maxunpool_export_without_output_shape",
    "test_min_example", "test_min_float16", "test_min_float32", "test_min_int16", "test_min_int32", "test_min_int64",
    "test_min_int8", "test_min_one_input", "test_min_two_inputs", "test_min_uint16", "test_min_uint32",
    "test_min_uint64", "test_min_uint8", "test_mod_broadcast", "test_mod_float16_mixed_sign_fmod_0",
    "test_mod_float32_mixed_sign_fmod_0", "test_mod_float_edge_cases_fmod_0_float16",
    "test_mod_float_edge_cases_fmod_0_float32", "test_mod_int64_fmod", "test_mod_mixed_sign_float16",
    "test_mod_mixed_sign_float32", "test_mod_mixed_sign_int16", "test_mod_mixed_sign_int32",
    "test_mod_mixed_sign_int64", "test_mod_mixed_sign_int8", "test_mod_uint16", "test_mod_uint32", "test_mod_uint64",
    "test_mod_uint8", "test_mul", "test_mul_bcast", "test_mul_example", "test_mul_int16", "test_mul_int8",
    "test_mul_uint16", "test_mul_uint32", "test_mul_uint64", "test_mul_uint8", "test_neg", "test_neg_example",
    "test_nllloss_NC_expanded", "test_nllloss_NCd1_expanded", "test_nllloss_NCd1_ii_expanded",
    "test_nllloss_NCd1_mean_weight_negative_ii_expanded", "test_nllloss_NCd1_weight_expanded",
    "test_nllloss_NCd1_weight_ii_expanded", "test_nllloss_NCd1d2_expanded",
    "test_nllloss_NCd1d2_no_weight_reduction_mean_ii_expanded", "test_nllloss_NCd1d2_reduction_mean_expanded",
    "test_nllloss_NCd1d2_reduction_sum_expanded", "test_nllloss_NCd1d2_with_weight_expanded",
    "test_nllloss_NCd1d2_with_weight_reduction_mean_expanded",
    "test_nllloss_NCd1d2_with_weight_reduction_sum_expanded",
    "test_nllloss_NCd1d2_with_weight_reduction_sum_ii_expanded",
    "test_nllloss_NCd1d2d3_none_no_weight_negative_ii_expanded", "test_nllloss_NCd1d2d3_sum_weight_high_ii_expanded",
    "test_nllloss_NCd1d2d3d4d5_none_no_weight_expanded", "test_not_2d", "test_not_3d", "test_not_4d",
    "test_onehot_negative_indices", "test_onehot_out_of_range_indices", "test_onehot_with_axis",
    "test_onehot_with_negative_axis", "test_onehot_without_axis", "test_or2d", "test_or3d", "test_or4d",
    "test_or_bcast3v1d", "test_or_bcast3v2d", "test_or_bcast4v2d", "test_or_bcast4v3d", "test_or_bcast4v4d",
    "test_pow", "test_pow_bcast_array", "test_pow_bcast_scalar", "test_pow_example", "test_pow_types_int32_int32",
    "test_prelu_broadcast", "test_prelu_broadcast_expanded", "test_prelu_example", "test_prelu_example_expanded",
    "test_reciprocal", "test_reciprocal_example", "test_reduce_l1_default_axes_keepdims_example",
    "test_reduce_l1_default_axes_keepdims_example_expanded", "test_reduce_l1_default_axes_keepdims_random",
    "test_reduce_l1_default_axes_keepdims_random_expanded", "test_reduce_l1_do_not_keepdims_example",
    "test_reduce_l1_do_not_keepdims_example_expanded", "test_reduce_l1_do_not_keepdims_random",
    "test_reduce_l1_do_not_keepdims_random_expanded", "test_reduce_l1_keep_dims_example",
    "test_reduce_l1_keep_dims_example_expanded", "test_reduce_l1_keep_dims_random",
    "test_reduce_l1_keep_dims_random_expanded", "test_reduce_l1_negative_axes_keep_dims_example",
    "test_reduce_l1_negative_axes_keep_dims_example_expanded", "test_reduce_l1_negative_axes_keep_dims_random",
    "test_reduce_l1_negative_axes_keep_dims_random_expanded", "test_reduce_l2_default_axes_keepdims_example",
    "test_reduce_l2_default_axes_keepdims_example_expanded", "test_reduce_l2_default_axes_keepdims_random",
    "test_reduce_l2_default_axes_keepdims_random_expanded", "test_reduce_l2_do_not_keepdims_example",
    "test_reduce_l2_do_not_keepdims_example_expanded", "test_reduce_l2_do_not_keepdims_random",
    "test_reduce_l2_do_not_keepdims_random_expanded", "test_reduce_l2_keep_dims_example",
    "test_reduce_l2_keep_dims_example_expanded", "test_reduce_l2_keep_dims_random",
    "test_reduce_l2_keep_dims_random_expanded", "test_reduce_l2_negative_axes_keep_dims_example",
    "test_reduce_l2_negative_axes_keep_dims_example_expanded", "test_reduce_l2_negative_axes_keep_dims_random",
    "test_reduce_l2_negative_axes_keep_dims_random_expanded", "test_reduce_log_sum_asc_axes",
    "test_reduce_log_sum_asc_axes_expanded", "test_reduce_log_sum_default", "test_reduce_log_sum_default_expanded",
    "test_reduce_log_sum_desc_axes", "test_reduce_log_sum_desc_axes_expanded", "test_reduce_log_sum_negative_axes",
    "test_reduce_log_sum_negative_axes_expanded", "test_reduce_max_bool_inputs",
    "test_reduce_max_default_axes_keepdim_example", "test_reduce_max_default_axes_keepdims_random",
    "test_reduce_max_do_not_keepdims_example", "test_reduce_max_do_not_keepdims_random",
    "test_reduce_max_keepdims_example", "test_reduce_max_keepdims_random",
    "test_reduce_max_negative_axes_keepdims_example", "test_reduce_max_negative_axes_keepdims_random",
    "test_reduce_mean_default_axes_keepdims_example", "test_reduce_mean_default_axes_keepdims_random",
    "test_reduce_mean_do_not_keepdims_example", "test_reduce_mean_do_not_keepdims_random",
    "test_reduce_mean_keepdims_example", "test_reduce_mean_keepdims_random",
    "test_reduce_mean_negative_axes_keepdims_example", "test_reduce_mean_negative_axes_keepdims_random",
    "test_reduce_min_bool_inputs", "test_reduce_min_default_axes_keepdims_example",
    "test_reduce_min_default_axes_keepdims_random", "test_reduce_min_do_not_keepdims_example",
    "test_reduce_min_do_not_keepdims_random", "test_reduce_min_keepdims_example", "test_reduce_min_keepdims_random",
    "test_reduce_min_negative_axes_keepdims_example", "test_reduce_min_negative_axes_keepdims_random",
    "test_reduce_prod_default_axes_keepdims_example", "test_reduce_prod_default_axes_keepdims_random",
    "test_reduce_prod_do_not_keepdims_example", "test_reduce_prod_do_not_keepdims_random",
    "test_reduce_prod_keepdims_example", "test_reduce_prod_keepdims_random",
    "test_reduce_prod_negative_axes_keepdims_example", "test_reduce_prod_negative_axes_keepdims_random",
    "test_reduce_sum_default_axes_keepdims_example", "test_reduce_sum_default_axes_keepdims_random",
    "test_reduce_sum_do_not_keepdims_example", "test_reduce_sum_do_not_keepdims_random",
    "test_reduce_sum_empty_axes_input_noop", "test_reduce_sum_empty_axes_input_noop_example",
    "test_reduce_sum_keepdims_example", "test_reduce_sum_keepdims_random",
    "test_reduce_sum_negative_axes_keepdims_example", "test_reduce_sum_negative_axes_keepdims_random",
    "test_reduce_sum_square_default_axes_keepdims_example",
    "test_reduce_sum_square_default_axes_keepdims_example_expanded",
    "test_reduce_sum_square_default_axes_keepdims_random",
    "test_reduce_sum_square_default_axes_keepdims_random_expanded", "test_reduce_sum_square_do_not_keepdims_example",
    "test_reduce_sum_square_do_not_keepdims_example_expanded", "test_reduce_sum_square_do_not_keepdims_random",
    "test_reduce_sum_square_do_not_keepdims_random_expanded", "test_reduce_sum_square_keepdims_example",
    "test_reduce_sum_square_keepdims_example_expanded", "test_reduce_sum_square_keepdims_random",
    "test_reduce_sum_square_keepdims_random_expanded", "test_reduce_sum_square_negative_axes_keepdims_example",
    "test_reduce_sum_square_negative_axes_keepdims_example_expanded",
    "test_reduce_sum_square_negative_axes_keepdims_random",
    "test_reduce_sum_square_negative_axes_keepdims_random_expanded", "test_reflect_pad", "test_relu",
    "test_relu_expanded_ver18", "test_reshape_extended_dims", "test_reshape_negative_dim",
    "test_reshape_negative_extended_dims", "test_reshape_one_dim", "test_reshape_reduced_dims",
    "test_reshape_reordered_all_dims", "test_reshape_reordered_last_dims", "test_reshape_zero_and_negative_dim",
    "test_reshape_zero_dim", "test_resize_downsample_scales_linear", "test_resize_downsample_scales_nearest",
    "test_resize_downsample_sizes_nearest", "test_resize_downsample_sizes_nearest_not_larger",
    "test_resize_upsample_scales_linear", "test_resize_upsample_scales_linear_align_corners",
    "test_resize_upsample_scales_nearest", "test_resize_upsample_scales_nearest_axes_2_3",
    "test_resize_upsample_scales_nearest_axes_3_2", "test_resize_upsample_sizes_nearest",
    "test_resize_upsample_sizes_nearest_axes_2_3", "test_resize_upsample_sizes_nearest_axes_3_2",
    "test_resize_upsample_sizes_nearest_ceil_half_pixel", "test_resize_upsample_sizes_nearest_floor_align_corners",
    "test_resize_upsample_sizes_nearest_not_larger", "test_resize_upsample_sizes_nearest_not_smaller",
    "test_resize_upsample_sizes_nearest_round_prefer_ceil_asymmetric", "test_round", "test_scatter_elements_with_axis",
    "test_scatter_elements_with_negative_indices", "test_scatter_elements_without_axis", "test_scatter_with_axis",
    "test_scatter_without_axis", "test_scatternd", "test_selu", "test_selu_default", "test_selu_example",
    "test_selu_example_expanded_ver18", "test_shrink_hard", "test_shrink_soft", "test_sigmoid", "test_sigmoid_example",
    "test_sign", "test_sin", "test_sin_example", "test_sinh", "test_sinh_example", "test_slice",
    "test_slice_default_axes", "test_slice_default_steps", "test_slice_end_out_of_bounds", "test_slice_neg",
    "test_slice_neg_steps", "test_slice_negative_axes", "test_softmax_axis_0", "test_softmax_axis_1",
    "test_softmax_axis_1_expanded", "test_softmax_axis_1_expanded_ver18", "test_softmax_axis_2",
    "test_softmax_default_axis", "test_softmax_example", "test_softmax_example_expanded",
    "test_softmax_example_expanded_ver18", "test_softmax_large_number", "test_softmax_large_number_expanded",
    "test_softmax_large_number_expanded_ver18", "test_softmax_negative_axis", "test_softplus", "test_softplus_example",
    "test_softsign", "test_softsign_example", "test_spacetodepth", "test_spacetodepth_crd_mode_example",
    "test_spacetodepth_dcr_mode_example", "test_spacetodepth_example", "test_split_1d_uneven_split_opset18",
    "test_split_2d_uneven_split_opset18", "test_split_equal_parts_1d_opset13", "test_split_equal_parts_1d_opset18",
    "test_split_equal_parts_2d", "test_split_equal_parts_2d_opset13", "test_split_equal_parts_default_axis_opset13",
    "test_split_equal_parts_default_axis_opset18", "test_split_variable_parts_1d_opset13",
    "test_split_variable_parts_1d_opset18", "test_split_variable_parts_2d_opset13",
    "test_split_variable_parts_2d_opset18", "test_split_variable_parts_default_axis_opset13",
    "test_split_variable_parts_default_axis_opset18", "test_sqrt", "test_sqrt_example", "test_squeeze",
    "test_squeeze_negative_axes", "test_sub", "test_sub_bcast", "test_sub_example", "test_sub_int16", "test_sub_int8",
    "test_sub_uint16", "test_sub_uint32", "test_sub_uint64", "test_sub_uint8", "test_sum_example",
    "test_sum_one_input", "test_sum_two_inputs", "test_tan", "test_tan_example", "test_tanh", "test_tanh_example",
    "test_thresholdedrelu", "test_thresholdedrelu_default", "test_thresholdedrelu_example", "test_tile",
    "test_tile_precomputed", "test_transpose_all_permutations_0", "test_transpose_all_permutations_1",
    "test_transpose_all_permutations_2", "test_transpose_all_permutations_3", "test_transpose_all_permutations_4",
    "test_transpose_all_permutations_5", "test_transpose_default", "test_unsqueeze_axis_0", "test_unsqueeze_axis_1",
    "test_unsqueeze_axis_2", "test_unsqueeze_negative_axes", "test_unsqueeze_three_axes", "test_unsqueeze_two_axes",
    "test_unsqueeze_unsorted_axes", "test_upsample_nearest", "test_where_example", "test_where_long_example",
    "test_wrap_pad", "test_xor2d", "test_xor3d", "test_xor4d", "test_xor_bcast3v1d", "test_xor_bcast3v2d",
    "test_xor_bcast4v2d", "test_xor_bcast4v3d", "test_xor_bcast4v4d",
    # TopK as TOP_K1 (K made an initializer: CONSTANT_OPERANDS)
    "test_top_k", "test_top_k_negative_axis", "test_top_k_same_values", "test_top_k_same_values_2d",
    "test_top_k_same_values_largest", "test_top_k_smallest", "test_top_k_uint64",
)

# the integer and quantized products (MATRIX_MULTIPLY_INTEGER, QUANTIZED_LINEAR_MATRIX_MULTIPLY,
# CONVOLUTION_INTEGER, QUANTIZED_LINEAR_CONVOLUTION)
EXPECTED_TO_PASS += (
    "test_matmulinteger", "test_qlinearmatmul_2D_int8_float16", "test_qlinearmatmul_2D_int8_float32",
    "test_qlinearmatmul_2D_uint8_float16", "test_qlinearmatmul_2D_uint8_float32", "test_qlinearmatmul_3D_int8_float16",
    "test_qlinearmatmul_3D_int8_float32", "test_qlinearmatmul_3D_uint8_float16", "test_qlinearmatmul_3D_uint8_float32",
    "test_convinteger_with_padding", "test_convinteger_without_padding", "test_qlinearconv")
# Attention (opset 23: 3-D, unmasked, not causal) on MULTIHEAD_ATTENTION1, grouped-query attention included
EXPECTED_TO_PASS += (
    "test_attention_3d", "test_attention_3d_diff_heads_sizes", "test_attention_3d_diff_heads_sizes_scaled",
    "test_attention_3d_gqa", "test_attention_3d_gqa_scaled", "test_attention_3d_scaled",
    "test_attention_3d_transpose_verification")
# RMSNormalization (opset 23) on MEAN_VARIANCE_NORMALIZATION2 with UseMean FALSE
EXPECTED_TO_PASS += (
    "test_rms_normalization_default_axis", "test_rms_normalization_2d_axis0", "test_rms_normalization_2d_axis1",
    "test_rms_normalization_2d_axis_negative_1", "test_rms_normalization_2d_axis_negative_2",
    "test_rms_normalization_3d_axis0_epsilon", "test_rms_normalization_3d_axis1_epsilon",
    "test_rms_normalization_3d_axis2_epsilon", "test_rms_normalization_3d_axis_negative_1_epsilon",
    "test_rms_normalization_3d_axis_negative_2_epsilon", "test_rms_normalization_3d_axis_negative_3_epsilon",
    "test_rms_normalization_4d_axis0", "test_rms_normalization_4d_axis1", "test_rms_normalization_4d_axis2",
    "test_rms_normalization_4d_axis3", "test_rms_normalization_4d_axis_negative_1",
    "test_rms_normalization_4d_axis_negative_2", "test_rms_normalization_4d_axis_negative_3",
    "test_rms_normalization_4d_axis_negative_4",
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


# The operands ONNX Runtime's DirectML provider reads on the CPU when it creates the kernel (axes, starts, pads,
# repeats, scales, sizes, indices' depth, Clip's bounds): a node case that feeds them as graph inputs runs with
# them made initializers of the same values, as a model exported with constant shapes has them.
CONSTANT_OPERANDS = {
    "TopK": (1,),
    "Slice": (1, 2, 3, 4), "Pad": (1, 2, 3), "Tile": (1,), "CumSum": (1,), "CumProd": (1,), "Clip": (1, 2),
    "Resize": (1, 2, 3), "Upsample": (1,), "OneHot": (1,), "ReduceSum": (1,), "ReduceMean": (1,), "ReduceL1": (1,),
    "ReduceL2": (1,), "ReduceLogSum": (1,), "ReduceLogSumExp": (1,), "ReduceSumSquare": (1,), "ReduceMax": (1,),
    "ReduceMin": (1,), "ReduceProd": (1,), "MaxUnpool": (2,),
}


def _with_constant_operands(model, feeds):
    """The model with each graph input that only feeds CONSTANT_OPERANDS positions made an initializer of its
    value in `feeds`, and the feeds without it."""
    from onnx import numpy_helper
    readers = {}
    for node in model.graph.node:
        for j, name in enumerate(node.input):
            readers.setdefault(name, []).append(j in CONSTANT_OPERANDS.get(node.op_type, ()))
    folded = [name for name in feeds if readers.get(name) and all(readers[name])]
    if not folded:
        return model, feeds
    model = type(model).FromString(model.SerializeToString())
    kept = [v for v in model.graph.input if v.name not in folded]
    del model.graph.input[:]
    model.graph.input.extend(kept)
    model.graph.initializer.extend(numpy_helper.from_array(np.asarray(feeds[name]), name) for name in folded)
    return model, {n: a for n, a in feeds.items() if n not in folded}


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
    model, feeds = _with_constant_operands(case.model, feeds)
    outputs = run(model, feeds, timing=False)
    assert list(outputs) == [v.name for v in case.model.graph.output]
    shapes = [list(np.shape(_array(a))) for a in inputs]
    for (output, got), want in zip(outputs.items(), expected):
        node, node_shapes = _computing_node(case.model, output, shapes)
        attributes = {a.name: helper.get_attribute_value(a) for a in node.attribute}
        ok, why = within(got, _array(want), tolerance(node.op_type, node_shapes, attributes))
        assert ok, f"{name} output {output} ({node.op_type}): {why}"


def _computing_node(model, output, input_shapes):
    """The node whose tolerance a graph output is judged by: the one that computes it (an Identity passes its
    input's on), with its input shapes: `input_shapes` (the case's inputs) for the model's last node, else from
    ONNX shape inference (a node inside an expanded function)."""
    from onnx import shape_inference
    producers = {name: node for node in model.graph.node for name in node.output}
    node = producers[output]
    while node.op_type == "Identity" and node.input[0] in producers:
        node = producers[node.input[0]]
    if node is model.graph.node[-1]:
        return node, input_shapes
    inferred = shape_inference.infer_shapes(model).graph
    known = {v.name: [d.dim_value for d in v.type.tensor_type.shape.dim]
             for v in (*inferred.input, *inferred.value_info, *inferred.output)}
    known.update({t.name: list(t.dims) for t in model.graph.initializer})
    return node, [known.get(name) if name else None for name in node.input]


def test_a_case_whose_axes_are_a_graph_input_is_refused_with_a_sentence(cases):
    case = cases["test_reduce_sum_keepdims_example"]
    inputs, _ = case.data_sets[0]
    feeds = dict(zip([v.name for v in case.model.graph.input], inputs))
    with pytest.raises(ConversionError, match=r'node "\w+" \(ReduceSum\) cannot be converted: its axes comes from '
                                              r'"axes", which is computed'):
        run(case.model, feeds, timing=False)
