"""The element-wise family through the DirectML mirror, end to end: CreateOperator (the API tables validate
the desc), CompileOperator (the kernels' attributes come from OperatorInfo.attributes), the initializer,
RecordDispatch, ExecuteCommandLists and the readback, against the golden model bit for bit."""
import numpy as np
import pytest

from dmlemu import golden
from dmlemu.directml import *  # noqa: F401,F403
from dmlemu.directml import inspect
from dmlemu.directml import enums
from dmlemu.directml import structs
from dmlemu.errors import E_NOTIMPL, HResultError
from dmlemu.kernels.driver import has_kernel
from mirror_rig import MirrorRig, same_bits
from element_wise_cases import random_values, seeded


@pytest.fixture(scope="module")
def rig():
    return MirrorRig(dml_flags=DML_CREATE_DEVICE_FLAG_NONE, timing=False)


def tensor(type_name, sizes, strides=None):
    data_type = getattr(DML_TENSOR_DATA_TYPE, "DML_TENSOR_DATA_TYPE_" + type_name)
    total = DMLCalcBufferTensorSize(data_type, len(sizes), list(sizes), strides)
    return DML_TENSOR_DESC(Type=DML_TENSOR_TYPE_BUFFER, Desc=DML_BUFFER_TENSOR_DESC(
        DataType=data_type, Flags=DML_TENSOR_FLAG_NONE, Sizes=list(sizes), Strides=strides,
        TotalTensorSizeInBytes=total))


def operator_desc(name, **fields):
    desc_type = getattr(structs, f"DML_{name}_OPERATOR_DESC")
    return DML_OPERATOR_DESC(Type=getattr(enums, f"DML_OPERATOR_{name}"), Desc=desc_type(**fields))


def run(rig, name, tensors, inputs, attributes=None, golden_attributes=None, flags=DML_EXECUTION_FLAG_NONE,
        output_type=None):
    desc = operator_desc(name, **tensors, **(attributes or {}))
    (got,) = rig.run_operator(desc, inputs, flags)
    half = bool(flags & DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION) and inspect(rig.device).preset.native_fp16
    expected = golden.run(name, inputs, golden_attributes or attributes or {}, None, half, output_type=output_type)
    same_bits(got, np.asarray(expected).astype(got.dtype), name)


SIZES = (2, 3, 5)
BINARY = ["ELEMENT_WISE_ADD", "ELEMENT_WISE_SUBTRACT", "ELEMENT_WISE_MULTIPLY", "ELEMENT_WISE_DIVIDE",
          "ELEMENT_WISE_MIN", "ELEMENT_WISE_MAX", "ELEMENT_WISE_MEAN", "ELEMENT_WISE_DIFFERENCE_SQUARE",
          "ELEMENT_WISE_MODULUS_TRUNCATE", "ELEMENT_WISE_MODULUS_FLOOR"]


@pytest.mark.parametrize("name", BINARY)
@pytest.mark.parametrize("type_name", ["FLOAT32", "FLOAT16", "INT32"])
def test_binary_arithmetic_with_a_broadcast_operand(rig, name, type_name):
    rng = seeded("mirror", name, type_name)
    dtype = golden.DATA_TYPES[type_name]
    a = random_values(rng, dtype, SIZES)
    b_row = random_values(rng, dtype, (1, 1, SIZES[2]))
    tensors = dict(ATensor=tensor(type_name, SIZES), BTensor=tensor(type_name, SIZES, [0, 0, 1]),
                   OutputTensor=tensor(type_name, SIZES))
    run(rig, name, tensors, [a, np.broadcast_to(b_row, SIZES).copy()])


@pytest.mark.parametrize("name", ["EQUALS", "GREATER_THAN", "LESS_THAN_OR_EQUAL"])
def test_comparisons_write_uint8(rig, name):
    rng = seeded("mirror-compare", name)
    a, b = (random_values(rng, np.float16, SIZES) for _ in range(2))
    tensors = dict(ATensor=tensor("FLOAT16", SIZES), BTensor=tensor("FLOAT16", SIZES),
                   OutputTensor=tensor("UINT8", SIZES))
    run(rig, "ELEMENT_WISE_LOGICAL_" + name, tensors, [a, b], output_type="UINT8")


def test_add1_with_a_fused_leaky_relu(rig):
    rng = seeded("mirror-add1")
    a, b = (random_values(rng, np.float32, SIZES) for _ in range(2))
    fused = DML_OPERATOR_DESC(Type=DML_OPERATOR_ACTIVATION_LEAKY_RELU, Desc=DML_ACTIVATION_LEAKY_RELU_OPERATOR_DESC(
        InputTensor=None, OutputTensor=None, Alpha=0.125))
    tensors = dict(ATensor=tensor("FLOAT32", SIZES), BTensor=tensor("FLOAT32", SIZES),
                   OutputTensor=tensor("FLOAT32", SIZES))
    run(rig, "ELEMENT_WISE_ADD1", tensors, [a, b], attributes={"FusedActivation": fused},
        golden_attributes={"FusedActivation": ("ACTIVATION_LEAKY_RELU", {"Alpha": np.float32(0.125)})})


def test_round_cast_and_is_infinity_take_their_enums(rig):
    rng = seeded("mirror-enums")
    x = random_values(rng, np.float32, SIZES)
    for mode in (0, 1, 2):
        run(rig, "ELEMENT_WISE_ROUND", dict(InputTensor=tensor("FLOAT32", SIZES), OutputTensor=tensor("FLOAT32", SIZES)),
            [x], attributes={"RoundingMode": mode})
        run(rig, "ELEMENT_WISE_IS_INFINITY", dict(InputTensor=tensor("FLOAT32", SIZES),
                                                   OutputTensor=tensor("UINT8", SIZES)),
            [x], attributes={"InfinityMode": mode}, output_type="UINT8")
    run(rig, "CAST", dict(InputTensor=tensor("FLOAT32", SIZES), OutputTensor=tensor("INT8", SIZES)), [x],
        output_type="INT8")


def test_clip1_takes_typed_bounds(rig):
    rng = seeded("mirror-clip1")
    x = random_values(rng, np.int64, SIZES)
    low, high = np.int64(-(1 << 40)), np.int64(1 << 50)
    attributes = dict(MinMaxDataType=DML_TENSOR_DATA_TYPE_INT64, Min=DML_SCALAR_UNION(Int64=int(low)),
                      Max=DML_SCALAR_UNION(Int64=int(high)))
    run(rig, "ELEMENT_WISE_CLIP1", dict(InputTensor=tensor("INT64", SIZES), OutputTensor=tensor("INT64", SIZES)),
        [x], attributes=attributes, golden_attributes={"Min": low, "Max": high})


def test_activations_with_attributes(rig):
    rng = seeded("mirror-activations")
    x = random_values(rng, np.float16, SIZES)
    unary = dict(InputTensor=tensor("FLOAT16", SIZES), OutputTensor=tensor("FLOAT16", SIZES))
    run(rig, "ACTIVATION_HARD_SIGMOID", unary, [x], attributes={"Alpha": 0.2, "Beta": 0.5},
        golden_attributes={"Alpha": np.float32(0.2), "Beta": np.float32(0.5)})
    run(rig, "ACTIVATION_SHRINK", unary, [x], attributes={"Bias": 0.25, "Threshold": 1.5},
        golden_attributes={"Bias": np.float32(0.25), "Threshold": np.float32(1.5)})
    run(rig, "ACTIVATION_RELU", unary, [x])


def test_constant_pow_on_an_integer_tensor_is_e_invalidarg_with_a_sentence(rig):
    desc = operator_desc("ELEMENT_WISE_CONSTANT_POW", InputTensor=tensor("INT32", SIZES),
                         OutputTensor=tensor("INT32", SIZES), Exponent=2.0)
    with pytest.raises(HResultError) as caught:
        rig.compile(desc)
    assert "InputTensor.DataType is DML_TENSOR_DATA_TYPE_INT32; DML_FEATURE_LEVEL_6_4 allows FLOAT32, FLOAT16 for " \
           "InputTensor of DML_OPERATOR_ELEMENT_WISE_CONSTANT_POW" in str(caught.value)


def test_every_activation_directml_fuses_has_a_fused_body():
    """kernels' FUSABLE is the DirectML list ("Using fused operators"), every one with a body the tail can run."""
    from dmlemu.directml.operators import FUSABLE_ACTIVATIONS
    from dmlemu.kernels.element_wise_ops import FUSABLE
    assert set(FUSABLE) == set(FUSABLE_ACTIVATIONS)


def test_has_kernel_is_true_for_every_operator_of_the_table():
    from dmlemu.kernels.element_wise_ops import OPERATORS
    assert all(has_kernel(name) for name in OPERATORS)
    assert has_kernel("ELEMENT_WISE_EXP") and has_kernel("GEMM") and has_kernel("CONVOLUTION") and not has_kernel("LSTM")


def test_a_valid_desc_no_kernel_variant_serves_is_e_notimpl_with_a_sentence(rig):
    """POW with an ExponentTensor of another type than its InputTensor is valid from DML_FEATURE_LEVEL_3_0; its
    kernel serves one type for both (integer POW: tests/directml/test_integer_pow.py)."""
    desc = operator_desc("ELEMENT_WISE_POW", InputTensor=tensor("FLOAT32", SIZES),
                         ExponentTensor=tensor("INT32", SIZES), OutputTensor=tensor("FLOAT32", SIZES))
    with pytest.raises(HResultError) as caught:     # an exponent of another type: valid from FL3.0
        rig.compile(desc)
    assert caught.value.hresult == E_NOTIMPL
    assert "dmlemu's kernel for ELEMENT_WISE_POW has no variant for the data types FLOAT32, INT32, FLOAT32" \
           in str(caught.value)


@pytest.mark.parametrize("name, fields", [
    ("SIGMOID", {}), ("GELU", {}), ("ELU", {"Alpha": 0.75}), ("SOFTPLUS", {"Steepness": 2.0}),
    ("SCALED_TANH", {"Alpha": 1.5, "Beta": 0.5}), ("PARAMETRIC_SOFTPLUS", {"Alpha": 0.5, "Beta": 3.0})])
@pytest.mark.parametrize("type_name", ["FLOAT32", "FLOAT16"])
def test_add1_with_a_fused_transcendental_activation(rig, name, fields, type_name):
    rng = seeded("mirror-add1-fused", name, type_name)
    a, b = (random_values(rng, golden.DATA_TYPES[type_name], SIZES) for _ in range(2))
    fused = DML_OPERATOR_DESC(Type=getattr(enums, f"DML_OPERATOR_ACTIVATION_{name}"),
                              Desc=getattr(structs, f"DML_ACTIVATION_{name}_OPERATOR_DESC")(
                                  InputTensor=None, OutputTensor=None, **fields))
    tensors = dict(ATensor=tensor(type_name, SIZES), BTensor=tensor(type_name, SIZES),
                   OutputTensor=tensor(type_name, SIZES))
    run(rig, "ELEMENT_WISE_ADD1", tensors, [a, b], attributes={"FusedActivation": fused},
        golden_attributes={"FusedActivation": (f"ACTIVATION_{name}",
                                               {k: np.float32(v) for k, v in fields.items()})})


def test_transcendentals_through_the_mirror(rig):
    rng = seeded("mirror-transcendentals")
    x = random_values(rng, np.float32, SIZES)
    unary = dict(InputTensor=tensor("FLOAT32", SIZES), OutputTensor=tensor("FLOAT32", SIZES))
    for name in ("EXP", "LOG", "SIN", "COS", "TAN", "ATAN", "ERF", "TANH", "ASINH"):
        run(rig, "ELEMENT_WISE_" + name, unary, [x])
    run(rig, "ELEMENT_WISE_CONSTANT_POW", unary, [x], attributes={"Exponent": 2.5},
        golden_attributes={"Exponent": np.float32(2.5)})
    y = random_values(rng, np.float32, SIZES)
    run(rig, "ELEMENT_WISE_ATAN_YX", dict(ATensor=tensor("FLOAT32", SIZES), BTensor=tensor("FLOAT32", SIZES),
                                          OutputTensor=tensor("FLOAT32", SIZES)), [x, y])
    run(rig, "ELEMENT_WISE_POW", dict(InputTensor=tensor("FLOAT32", SIZES), ExponentTensor=tensor("FLOAT32", SIZES),
                                      OutputTensor=tensor("FLOAT32", SIZES)), [x, y])
    for name, fields in (("CELU", {"Alpha": 1.5}), ("SCALED_ELU", {"Alpha": 1.67, "Gamma": 1.05}),
                         ("SWISH", {"SigmoidInputScale": 1.702}), ("SOFTSIGN", {}), ("TANH", {})):
        run(rig, "ACTIVATION_" + name, unary, [x], attributes=fields,
            golden_attributes={k: np.float32(v) for k, v in fields.items()})
