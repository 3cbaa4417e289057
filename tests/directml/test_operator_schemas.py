"""Every operator schema (dmlemu.directml.operators.SCHEMAS), checked from its own tables.

Table-driven: each operator creates with a valid desc at the level that introduced it and is refused
one level below; for every support row, every data type a tensor accepts is accepted (with the other
tensors chosen to satisfy the type rules) and every other data type and dimension count is refused
with its sentence. Then the attribute rules' sentences are pinned one by one, CheckFeatureSupport is
checked against the tables, and hypothesis draws descs (data types, ranks, strides, hostile attribute
values) whose outcome must agree with an independent reading of the tables.

"Validated" means CreateOperator returned an operator or answered E_NOTIMPL with the sentence for an
operator whose desc is valid but whose kernel does not exist yet (dmlemu.kernels.driver.has_kernel).
"""
import dataclasses
import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dmlemu.d3d12 import D3D12CreateDevice, D3D_FEATURE_LEVEL_11_0
from dmlemu.directml import *  # noqa: F401,F403
from dmlemu.directml import inspect
from dmlemu.directml.enums import OPERATOR_TYPE_TABLE
from dmlemu.directml.operators import (
    AXES, BOOL, ENUM, FLOAT, FLOAT_ARRAY, FUSABLE_ACTIVATIONS, FUSED_ACTIVATION, INT, INTS, SCALAR_UNION, SCHEMAS,
    SCHEMAS_BY_NAME, SIZE_2D, SPATIAL, UINT, UINTS,
)
from dmlemu.directml.validation import FusedActivation
from dmlemu.dxgi import CreateDXGIFactory1
from dmlemu.errors import E_INVALIDARG, E_NOTIMPL, HResultError
from dmlemu.presets import PRESETS
from operator_cases import ACCEPTED, REFUSED, garbage, outcome, scaled

ALL_TYPE_NAMES = tuple(t.name[len("DML_TENSOR_DATA_TYPE_"):] for t in DML_TENSOR_DATA_TYPE if t.value != 0)
LEVELS = tuple(int(level) for level in DML_FEATURE_LEVEL)
ADAPTER_64 = next(i for i, p in enumerate(PRESETS) if p.supports_64bit and p.max_feature_level >= 0x6400)
ADAPTER_32 = next(i for i, p in enumerate(PRESETS) if not p.supports_64bit)
_DEVICES = {}


def device(level=DML_FEATURE_LEVEL_6_4, adapter=ADAPTER_64):
    """A DML device emulating a runtime that stops at `level` (cached: CreateOperator leaves no state)."""
    key = (int(level), adapter)
    if key not in _DEVICES:
        d3d12 = D3D12CreateDevice(CreateDXGIFactory1().EnumAdapters1(adapter), D3D_FEATURE_LEVEL_11_0)
        _DEVICES[key] = DMLCreateDevice(d3d12, DML_CREATE_DEVICE_FLAG_NONE, max_feature_level=level)
    return _DEVICES[key]


def level_name(level):
    return DML_FEATURE_LEVEL(level).name


def tensor(type_name, sizes, strides=None):
    data_type = getattr(DML_TENSOR_DATA_TYPE, "DML_TENSOR_DATA_TYPE_" + type_name)
    sizes = list(sizes)
    return DML_TENSOR_DESC(Type=DML_TENSOR_TYPE_BUFFER, Desc=DML_BUFFER_TENSOR_DESC(
        DataType=data_type, Sizes=sizes, Strides=strides,
        TotalTensorSizeInBytes=DMLCalcBufferTensorSize(data_type, len(sizes), sizes, strides)))


# ---- building valid descs from a schema's own tables ----------------------------------------------------
def type_assignments(schema, row, fixed=None, present=None):
    """Every assignment field -> data type name that the row and the type rules allow (`fixed` pins some
    fields), in table order; absent optional fields are left out."""
    fields = [t.field for t in schema.tensors if present is None or t.field in present]
    choices = [[fixed[f]] if fixed and f in fixed else list(row.tensors[f].data_types) for f in fields]

    def consistent(assignment):
        for group in schema.same_data_type:
            if len({assignment[f] for f in group if f in assignment}) > 1:
                return False
        for match in schema.type_matches:
            if match.until is not None and row.level >= match.until:
                continue
            if match.field in assignment and match.other in assignment:
                if assignment[match.field] != match.required(assignment[match.other]):
                    return False
        return True

    def search(i, assignment):
        if i == len(fields):
            yield dict(assignment)
            return
        for choice in choices[i]:
            assignment[fields[i]] = choice
            if consistent(assignment):
                yield from search(i + 1, assignment)
            del assignment[fields[i]]
    return search(0, {})


def default_attributes(schema, types):
    """Values of every non-tensor field that satisfy its rules."""
    values = {}
    for spec in schema.attributes:
        if spec.kind == FLOAT:
            values[spec.field] = 1.0
        elif spec.kind == ENUM:
            values[spec.field] = (getattr(DML_TENSOR_DATA_TYPE, "DML_TENSOR_DATA_TYPE_" + types[spec.matches])
                                  if spec.matches else _supported_value(schema, spec, types))
        elif spec.kind == SCALAR_UNION:
            values[spec.field] = DML_SCALAR_UNION()
        elif spec.kind == BOOL:
            values[spec.field] = 1
        elif spec.kind == UINT:      # LP_NORMALIZATION's Axis 0 and P 1, LRN's LocalSize 1; the gathers: Axis 0
            # and one index dimension fit `sizes_for`'s shapes
            values[spec.field] = spec.one_of[0] if spec.one_of else {
                "IndexDimensions": 1, "InputDimensionCount": 1, "IndicesDimensionCount": 1,
                "K": 2}.get(        # TOP_K: K is the whole Axis 0 of `sizes_for`'s shapes
                spec.field, int(spec.at_least_value or spec.at_least or 0))
        elif spec.kind == INT:       # DIAGONAL_MATRIX's Offset
            values[spec.field] = 0
        elif spec.kind == SIZE_2D:   # UPSAMPLE_2D's ScaleSize: 1 x 1 keeps the output's Sizes the input's
            values[spec.field] = DML_SIZE_2D(Width=1, Height=1)
        else:
            values[spec.field] = None
    return values


def _supported_value(schema, spec, types):
    """0, or for an enum whose value selects support rows (REDUCE's Function) the first value whose rows at
    DML_FEATURE_LEVEL_6_4 accept `types`."""
    for entry in schema.support_by:
        if entry.field != spec.field:
            continue
        row = entry.support_at(DML_FEATURE_LEVEL_6_4)
        if all(types.get(f) in (None, *row.tensors[f].data_types) for f in row.tensors) and (
                not entry.same_type or len(set(types.values())) == 1):
            return int(spec.enum[f"{spec.enum.__name__}_{entry.values[0]}"])
    return 0


def sizes_for(schema, field, dims):
    if field in schema.single_element:
        return (1,) * dims
    if schema.effective_rank:    # SOFTMAX: at most 2 sizes past the leftmost sizes of 1
        return (1,) * max(dims - 2, 0) + (2, 3)[:dims]
    if schema.shapes and (schema.multiplies or schema.convolves):   # the integer products: a scale or zero point
        if field not in (schema.multiplies or schema.convolves):   # holds one value; the rest as GEMM / CONVOLUTION
            return (1,) * dims
        return sizes_for(dataclasses.replace(schema, shapes=None), field, dims)
    if schema.shapes:            # the gathers (default_attributes' values): Axis 0 by a trailing index dimension
        base = ((2, 3, 1, 2, 1, 1, 2, 1) * 2)[:dims]
        if schema.name == "GATHER" and field == "IndicesTensor":
            return (1,) * (dims - 1) + base[:1]
        if schema.name in ("GATHER_ND", "GATHER_ND1") and field != "InputTensor":
            return (1,) * dims
        if schema.name == "SCATTER_ND" and field in ("IndicesTensor", "UpdatesTensor"):
            return (1,) * dims
        if schema.name == "ONE_HOT" and field == "IndicesTensor":
            return (1,) + base[1:]
        if schema.name == "REVERSE_SUBSEQUENCES" and field == "SequenceLengthsTensor":
            return (1,) + base[1:]
        if schema.name == "RANDOM_GENERATOR" and field != "OutputTensor":
            return (1, 1, 1, 6)[-dims:] if dims <= 4 else (1,) * (dims - 4) + (1, 1, 1, 6)
        if schema.name == "NONZERO_COORDINATES" and field != "InputTensor":
            if field == "OutputCountTensor":
                return (1,) * dims
            return (1,) * max(dims - 2, 0) + (int(np.prod(base)), dims)[-dims:]
        return base
    if schema.multiplies:        # GEMM: square matrices multiply whatever TransA and TransB say
        return ((2, 3, 1, 2, 1, 1, 2, 1) * 2)[:max(dims - 2, 0)] + (2, 2)[:dims]
    if schema.convolves:         # CONVOLUTION: a 1 x 1 filter of 2 channels keeps the input's spatial sizes
        window = field in schema.convolves[1:3]
        return (((1, 2) if field != schema.convolves[1] else (2, 2)) + ((1 if window else 3),) * (dims - 2))[:dims]
    return ((2, 3, 1, 2, 1, 1, 2, 1) * 2)[:dims]


def build_desc(schema, types, dims, overrides=None, **attributes):
    """A DML_OPERATOR_DESC with the given types per field (absent fields: None) and dimension count."""
    fields = {}
    for role in schema.tensors:
        present = role.field in types
        fields[role.field] = tensor(types[role.field], sizes_for(schema, role.field, dims)) if present else None
        if present and role.count_field:      # a tensor array (JOIN's InputTensors): one tensor
            fields[role.field] = [fields[role.field]]
    fields.update(default_attributes(schema, types))
    for spec in schema.attributes:            # per-dimension arrays (data movement): the identity copy's
        if spec.kind in (UINTS, INTS):
            fields[spec.field] = list(sizes_for(schema, spec.of, dims)) if spec.field in ("Sizes", "InputWindowSizes") \
                else [int(spec.field in ("Strides", "InputWindowStrides", "Repeats"))] * dims
        elif spec.kind == UINT and spec.field == "BlockSize":
            fields[spec.field] = 1
    for spec in schema.attributes:      # the spatial arrays: one value per spatial dimension (paddings 0, the rest 1)
        if spec.kind == SPATIAL:
            fields[spec.field] = [spec.at_least_value or 0] * max(dims - 2, 0)
    for spec in schema.attributes:
        if spec.kind == FLOAT_ARRAY:      # RESAMPLE's Scales, ...: one value per dimension (1.0: the identity map)
            fields[spec.field] = [1.0] * dims
    fields.update(overrides or {})
    fields.update(attributes)
    return DML_OPERATOR_DESC(Type=schema.type, Desc=schema.desc_type(**fields))


def named(role):
    """How sentences name a role's tensor: a tensor array's first element (InputTensors[0])."""
    return f"{role.field}[0]" if role.count_field else role.field


def first_valid(schema, level, fixed=None):
    row = schema.support_at(level)
    return next(type_assignments(schema, row, fixed)), row.tensors[schema.tensors[0].field].min_dims


def create(dml_device, desc):
    """'validated' (created, or E_NOTIMPL for a validated desc without a kernel) or the refusal's sentence."""
    try:
        dml_device.CreateOperator(desc)
    except HResultError as error:
        if error.hresult == E_NOTIMPL and error.message.endswith("its desc is validated, but dmlemu has no kernel "
                                                                 "for it yet."):
            return "validated"
        assert error.hresult == E_INVALIDARG, error
        return error.message
    return "validated"


NAMES = sorted(SCHEMAS_BY_NAME)
# Schemas whose descs this file's generic builder cannot make valid (every optional tensor given at once breaks their
# "exactly one of" rules): their rows, optional tensors and attributes are tested in the file named.
OWN_SCHEMA_TESTS = {"MULTIHEAD_ATTENTION": "tests/directml/test_attention.py",
                    "MULTIHEAD_ATTENTION1": "tests/directml/test_attention.py"}
GENERIC = [n for n in NAMES if n not in OWN_SCHEMA_TESTS]


def test_every_element_wise_operator_activation_and_cast_has_a_schema():
    expected = {name for _, name, level in OPERATOR_TYPE_TABLE if name.startswith("ELEMENT_WISE_")}
    expected |= {"ACTIVATION_" + n for n in (
        "ELU", "CELU", "GELU", "HARD_SIGMOID", "HARD_SWISH", "IDENTITY", "LEAKY_RELU", "LINEAR", "PARAMETERIZED_RELU",
        "PARAMETRIC_SOFTPLUS", "RELU", "RELU_GRAD", "SCALED_ELU", "SCALED_TANH", "SHRINK", "SIGMOID", "SOFTPLUS",
        "SOFTSIGN", "SWISH", "TANH", "THRESHOLDED_RELU")} | {"CAST", "REDUCE", "ARGMIN", "ARGMAX", "GEMM"}
    expected |= {f"ACTIVATION_{n}{form}" for n in ("SOFTMAX", "LOG_SOFTMAX", "HARDMAX") for form in ("", "1")}
    expected |= {"CUMULATIVE_SUMMATION", "CUMULATIVE_PRODUCT"}
    expected |= {"MEAN_VARIANCE_NORMALIZATION", "MEAN_VARIANCE_NORMALIZATION1", "MEAN_VARIANCE_NORMALIZATION2",
                 "BATCH_NORMALIZATION",
                 "BATCH_NORMALIZATION_TRAINING", "LP_NORMALIZATION", "LOCAL_RESPONSE_NORMALIZATION"}
    # the data movement operators (tests/directml/test_data_movement.py)
    expected |= {"SLICE", "SLICE1", "PADDING", "PADDING1", "TILE", "DEPTH_TO_SPACE", "DEPTH_TO_SPACE1",
                 "SPACE_TO_DEPTH", "SPACE_TO_DEPTH1", "JOIN", "SPLIT"}
    expected |= {"CONVOLUTION", "AVERAGE_POOLING", "AVERAGE_POOLING1", "MAX_POOLING", "LP_POOLING", "LP_POOLING1"}
    expected |= {"MAX_POOLING1", "MAX_POOLING2", "MAX_UNPOOLING"}     # tests/directml/test_max_pooling_indices.py
    expected |= {"GATHER", "GATHER_ELEMENTS", "GATHER_ND", "GATHER_ND1",     # index-driven data movement
                 "RESAMPLE", "RESAMPLE1", "RESAMPLE2", "UPSAMPLE_2D", "FILL_VALUE_CONSTANT", "FILL_VALUE_SEQUENCE",
                 "ONE_HOT", "DIAGONAL_MATRIX", "SCATTER_ELEMENTS", "SCATTER_ND", "REVERSE_SUBSEQUENCES",
                 "NONZERO_COORDINATES", "RANDOM_GENERATOR"}
    expected |= {"TOP_K", "TOP_K1", "DIAGONAL_MATRIX1"}       # tests/directml/test_top_k.py, test_fill.py
    expected |= {"MULTIHEAD_ATTENTION", "MULTIHEAD_ATTENTION1"}  # tests/directml/test_attention.py
    expected |= {"MATRIX_MULTIPLY_INTEGER", "QUANTIZED_LINEAR_MATRIX_MULTIPLY", "MATRIX_MULTIPLY_INTEGER_TO_FLOAT",
                 "CONVOLUTION_INTEGER", "QUANTIZED_LINEAR_CONVOLUTION"}      # the integer products
    assert set(SCHEMAS_BY_NAME) == expected
    assert len(expected) == 153


# ---- per schema: introduced level, every accepted and refused type and dimension count ---------------------
@pytest.mark.parametrize("name", GENERIC)
def test_created_at_its_level_and_refused_below(name):
    schema = SCHEMAS_BY_NAME[name]
    types, dims = first_valid(schema, schema.introduced_at)
    assert create(device(schema.introduced_at), build_desc(schema, types, dims)) == "validated"
    below = [level for level in LEVELS if level < schema.introduced_at]
    if below:
        assert create(device(below[-1]), build_desc(schema, types, dims)) == (
            f"DML_OPERATOR_DESC.Type is {schema.c_name}, introduced in {level_name(schema.introduced_at)}; "
            f"this device supports up to {level_name(below[-1])}.")


# Schemas whose rows depend on an attribute's value (REDUCE's Function) have their own tests
# (tests/directml/test_reduce.py): their union rows accept no combination by themselves.
@pytest.mark.parametrize("name", [n for n in GENERIC if not SCHEMAS_BY_NAME[n].support_by])
def test_every_row_accepts_its_types_and_refuses_the_others(name):
    schema = SCHEMAS_BY_NAME[name]
    for row in schema.support:
        dml_device = device(row.level)
        level = level_name(row.level)
        for role in schema.tensors:
            support = row.tensors[role.field]
            dims = support.min_dims
            for type_name in support.data_types:
                types = next(type_assignments(schema, row, {role.field: type_name}))
                assert create(dml_device, build_desc(schema, types, dims)) == "validated", (name, level, types)
            base = next(type_assignments(schema, row))
            for type_name in set(ALL_TYPE_NAMES) - set(support.data_types):
                types = dict(base, **{role.field: type_name})
                assert create(dml_device, build_desc(schema, types, dims)) == (
                    f"{named(role)}.DataType is DML_TENSOR_DATA_TYPE_{type_name}; {level} allows "
                    f"{', '.join(support.data_types)} for {named(role)} of {schema.c_name}.")
            for count in range(1, 10):
                if support.min_dims <= count <= support.max_dims:
                    continue
                desc = build_desc(schema, base, dims)
                changed = tensor(base[role.field], sizes_for(schema, role.field, count))
                setattr(desc.Desc, role.field, [changed] if role.count_field else changed)
                assert create(dml_device, desc) == (
                    f"{named(role)}.Sizes has {count} dimensions; {level} allows {support.dims_text()} for "
                    f"{schema.c_name}.")


@pytest.mark.parametrize("name", [n for n in GENERIC if any(t.optional for t in SCHEMAS_BY_NAME[n].tensors)])
def test_optional_tensors_may_be_none_only_from_their_level(name):
    schema = SCHEMAS_BY_NAME[name]
    optional = [t.field for t in schema.tensors if t.optional]
    for row in schema.support:
        present = {t.field for t in schema.tensors} - {f for f in optional if row.tensors[f].optional}
        types = next(type_assignments(schema, row, present=present))
        result = create(device(row.level), build_desc(schema, types, row.tensors[schema.tensors[0].field].min_dims))
        if present == {t.field for t in schema.tensors}:   # nothing optional at this level: leave one out
            field = optional[0]
            types.pop(field)
            result = create(device(row.level), build_desc(schema, types, row.tensors[field].min_dims))
            first = min(r.level for r in schema.support if r.tensors[field].optional)
            assert result == (f"{field} is None; {schema.c_name} requires it below {level_name(first)} (this "
                              f"device: {level_name(row.level)}).")
        else:
            assert result == "validated"


def test_every_required_tensor_is_required():
    for schema in (s for s in SCHEMAS.values() if s.name not in OWN_SCHEMA_TESTS):
        types, dims = first_valid(schema, DML_FEATURE_LEVEL_6_4)
        for role in schema.tensors:
            if role.optional:
                continue
            desc = build_desc(schema, types, dims, overrides={role.field: None})
            assert create(device(), desc) == f"{role.field} is None; {schema.c_name} requires it."


# ---- constraints between tensors -------------------------------------------------------------------------------
def test_sizes_must_match_broadcasting_is_through_strides():
    add = SCHEMAS_BY_NAME["ELEMENT_WISE_ADD"]
    types = dict.fromkeys(("ATensor", "BTensor", "OutputTensor"), "FLOAT32")
    desc = build_desc(add, types, 3)
    desc.Desc.BTensor = tensor("FLOAT32", (2, 3, 2))
    desc.Desc.ATensor = tensor("FLOAT32", (2, 3, 1))
    desc.Desc.OutputTensor = tensor("FLOAT32", (2, 3, 2))
    assert create(device(), desc) == ("BTensor.Sizes is {2,3,2} but ATensor.Sizes is {2,3,1}; "
                                      "DML_OPERATOR_ELEMENT_WISE_ADD requires the same Sizes.")
    desc.Desc.ATensor = tensor("FLOAT32", (2, 3, 2), strides=[1, 0, 0])   # a broadcast {2,1,1} through strides
    assert create(device(), desc) == "validated"
    prelu = SCHEMAS_BY_NAME["ACTIVATION_PARAMETERIZED_RELU"]
    desc = build_desc(prelu, dict.fromkeys(("InputTensor", "SlopeTensor", "OutputTensor"), "FLOAT16"), 4)
    desc.Desc.SlopeTensor = tensor("FLOAT16", (2, 3, 1, 2), strides=[0, 1, 0, 0])   # a per-channel slope
    assert create(device(), desc) == "validated"
    desc.Desc.SlopeTensor = tensor("FLOAT16", (1, 3, 1, 1))
    assert create(device(), desc) == ("SlopeTensor.Sizes is {1,3,1,1} but InputTensor.Sizes is {2,3,1,2}; "
                                      "DML_OPERATOR_ACTIVATION_PARAMETERIZED_RELU requires the same Sizes.")


def test_comparison_and_predicate_outputs_have_their_own_types():
    for name, inputs, output in (("ELEMENT_WISE_LOGICAL_EQUALS", "FLOAT16", "UINT8"),
                                 ("ELEMENT_WISE_LOGICAL_LESS_THAN_OR_EQUAL", "INT64", "UINT32"),
                                 ("ELEMENT_WISE_IS_NAN", "FLOAT32", "UINT8"),
                                 ("ELEMENT_WISE_BIT_COUNT", "FLOAT64", "UINT8")):
        schema = SCHEMAS_BY_NAME[name]
        types = {t.field: inputs for t in schema.inputs} | {"OutputTensor": output}
        assert create(device(), build_desc(schema, types, 2)) == "validated"
    schema = SCHEMAS_BY_NAME["ELEMENT_WISE_IS_INFINITY"]
    assert create(device(), build_desc(schema, {"InputTensor": "FLOAT32", "OutputTensor": "UINT32"}, 2)) == (
        "OutputTensor.DataType is DML_TENSOR_DATA_TYPE_UINT32; DML_FEATURE_LEVEL_6_4 allows UINT8 for OutputTensor "
        "of DML_OPERATOR_ELEMENT_WISE_IS_INFINITY.")
    schema = SCHEMAS_BY_NAME["ELEMENT_WISE_LOGICAL_GREATER_THAN"]
    types = {"ATensor": "FLOAT32", "BTensor": "FLOAT16", "OutputTensor": "UINT8"}
    assert create(device(), build_desc(schema, types, 2)) == (
        "BTensor.DataType is DML_TENSOR_DATA_TYPE_FLOAT16 but ATensor.DataType is DML_TENSOR_DATA_TYPE_FLOAT32; "
        "DML_OPERATOR_ELEMENT_WISE_LOGICAL_GREATER_THAN requires the same DataType.")


def test_cast_converts_between_every_pair_of_its_types():
    cast = SCHEMAS_BY_NAME["CAST"]
    supported = cast.support_at(DML_FEATURE_LEVEL_6_4).tensors["InputTensor"].data_types
    for source, target in itertools.product(supported, repeat=2):
        assert create(device(), build_desc(cast, {"InputTensor": source, "OutputTensor": target}, 1)) == "validated"
    assert create(device(DML_FEATURE_LEVEL_3_1),
                  build_desc(cast, {"InputTensor": "FLOAT64", "OutputTensor": "FLOAT32"}, 1)).startswith(
        "InputTensor.DataType is DML_TENSOR_DATA_TYPE_FLOAT64; DML_FEATURE_LEVEL_3_1 allows FLOAT32,")


def test_pow_exponent_type_is_free_from_feature_level_3_0():
    pow_ = SCHEMAS_BY_NAME["ELEMENT_WISE_POW"]
    types = {"InputTensor": "FLOAT16", "ExponentTensor": "FLOAT32", "OutputTensor": "FLOAT16"}
    assert create(device(DML_FEATURE_LEVEL_3_0), build_desc(pow_, types, 4)) == "validated"
    assert create(device(DML_FEATURE_LEVEL_2_1), build_desc(pow_, types, 4)) == (
        "ExponentTensor.DataType is DML_TENSOR_DATA_TYPE_FLOAT32 but InputTensor.DataType is "
        "DML_TENSOR_DATA_TYPE_FLOAT16; DML_OPERATOR_ELEMENT_WISE_POW requires the same DataType below "
        "DML_FEATURE_LEVEL_3_0.")


def test_quantize_linear_scale_and_zero_point_rules():
    quantize = SCHEMAS_BY_NAME["ELEMENT_WISE_QUANTIZE_LINEAR"]
    ok = {"InputTensor": "INT32", "ScaleTensor": "FLOAT32", "ZeroPointTensor": "INT8", "OutputTensor": "INT8"}
    assert create(device(), build_desc(quantize, ok, 3)) == "validated"
    assert create(device(), build_desc(quantize, dict(ok, InputTensor="FLOAT16"), 3)) == (
        "ScaleTensor.DataType is DML_TENSOR_DATA_TYPE_FLOAT32 but InputTensor.DataType is "
        "DML_TENSOR_DATA_TYPE_FLOAT16; DML_OPERATOR_ELEMENT_WISE_QUANTIZE_LINEAR requires the same DataType.")
    assert create(device(), build_desc(quantize, dict(ok, ScaleTensor="FLOAT16"), 3)) == (
        "ScaleTensor.DataType is DML_TENSOR_DATA_TYPE_FLOAT16 but InputTensor.DataType is DML_TENSOR_DATA_TYPE_INT32; "
        "DML_OPERATOR_ELEMENT_WISE_QUANTIZE_LINEAR requires DML_TENSOR_DATA_TYPE_FLOAT32 when InputTensor.DataType "
        "is DML_TENSOR_DATA_TYPE_INT32.")
    assert create(device(), build_desc(quantize, dict(ok, ZeroPointTensor="UINT8"), 3)) == (
        "ZeroPointTensor.DataType is DML_TENSOR_DATA_TYPE_UINT8 but OutputTensor.DataType is "
        "DML_TENSOR_DATA_TYPE_INT8; DML_OPERATOR_ELEMENT_WISE_QUANTIZE_LINEAR requires the same DataType.")
    # a per-axis scale: broadcast through strides, sizes equal to the input's
    desc = build_desc(quantize, ok, 3)
    desc.Desc.ScaleTensor = tensor("FLOAT32", (2, 3, 1), strides=[0, 1, 0])
    assert create(device(), desc) == "validated"
    desc.Desc.ScaleTensor = tensor("FLOAT32", (1, 3, 1))
    assert create(device(), desc) == ("ScaleTensor.Sizes is {1,3,1} but InputTensor.Sizes is {2,3,1}; "
                                      "DML_OPERATOR_ELEMENT_WISE_QUANTIZE_LINEAR requires the same Sizes.")
    dequantize = SCHEMAS_BY_NAME["ELEMENT_WISE_DEQUANTIZE_LINEAR"]
    types = {"InputTensor": "INT16", "ScaleTensor": "FLOAT16", "ZeroPointTensor": "INT16", "OutputTensor": "FLOAT32"}
    assert create(device(), build_desc(dequantize, types, 2)) == (
        "ScaleTensor.DataType is DML_TENSOR_DATA_TYPE_FLOAT16 but OutputTensor.DataType is "
        "DML_TENSOR_DATA_TYPE_FLOAT32; DML_OPERATOR_ELEMENT_WISE_DEQUANTIZE_LINEAR requires the same DataType.")
    assert not any(("INT4" in row.tensors[f].data_types or "UINT4" in row.tensors[f].data_types)
                   for row in quantize.support for f in row.tensors)   # INT4/UINT4: DML_OPERATOR_QUANTIZE only


def test_a_left_out_optional_tensor_keeps_its_binding_slot(monkeypatch):
    monkeypatch.setattr("dmlemu.kernels.driver.has_kernel", lambda name: True)
    quantize = SCHEMAS_BY_NAME["ELEMENT_WISE_QUANTIZE_LINEAR"]
    types = {"InputTensor": "FLOAT16", "ScaleTensor": "FLOAT16", "OutputTensor": "UINT8"}
    info = inspect(device(DML_FEATURE_LEVEL_6_2).CreateOperator(build_desc(quantize, types, 2))).info
    assert info.tensors[2] is None and [t and t.field for t in info.inputs] == ["InputTensor", "ScaleTensor", None]
    assert [t.field for t in info.outputs] == ["OutputTensor"]


def test_quantized_linear_add_scales_hold_one_element():
    qla = SCHEMAS_BY_NAME["ELEMENT_WISE_QUANTIZED_LINEAR_ADD"]
    types = next(type_assignments(qla, qla.support[0]))
    assert create(device(), build_desc(qla, types, 2)) == "validated"
    desc = build_desc(qla, types, 2)
    desc.Desc.BScaleTensor = tensor("FLOAT32", (1, 2))
    assert create(device(), desc) == ("BScaleTensor.Sizes is {1,2} (2 elements); "
                                      "DML_OPERATOR_ELEMENT_WISE_QUANTIZED_LINEAR_ADD expects exactly 1 element in "
                                      "BScaleTensor.")
    desc.Desc.BScaleTensor = tensor("FLOAT32", (1,))
    assert create(device(), desc) == ("BScaleTensor.DimensionCount is 1 but ATensor.DimensionCount is 2; "
                                      "DML_OPERATOR_ELEMENT_WISE_QUANTIZED_LINEAR_ADD requires the same "
                                      "DimensionCount.")
    desc = build_desc(qla, types, 2, overrides={"AZeroPointTensor": None, "OutputZeroPointTensor": None})
    assert create(device(), desc) == "validated"


# ---- attributes ----------------------------------------------------------------------------------------------
def unary_desc(name, type_name="FLOAT32", output=None, **attributes):
    schema = SCHEMAS_BY_NAME[name]
    types = {"InputTensor": type_name, "OutputTensor": output or type_name}
    return build_desc(schema, types, 2, **attributes)


def attributes_of(desc, level=DML_FEATURE_LEVEL_6_4, monkeypatch=None):
    """OperatorInfo.attributes of a valid desc (has_kernel forced true so CreateOperator returns it)."""
    monkeypatch.setattr("dmlemu.kernels.driver.has_kernel", lambda name: True)
    return inspect(device(level).CreateOperator(desc)).info.attributes


def test_float_attributes_become_float32(monkeypatch):
    got = attributes_of(unary_desc("ACTIVATION_SCALED_ELU", Alpha=1.6732, Gamma=np.float64(1e40)),
                        monkeypatch=monkeypatch)
    assert got == {"Alpha": np.float32(1.6732), "Gamma": np.float32(np.inf)}
    assert all(type(v) is np.float32 for v in got.values())
    assert create(device(), unary_desc("ELEMENT_WISE_CONSTANT_POW", Exponent="2")) == (
        "Exponent is '2'; it must be a number (a C FLOAT).")
    assert create(device(), unary_desc("ACTIVATION_SHRINK", Threshold=None)) == (
        "Threshold is None; it must be a number (a C FLOAT).")
    assert create(device(), unary_desc("ELEMENT_WISE_CONSTANT_POW", "INT32")).startswith(
        "InputTensor.DataType is DML_TENSOR_DATA_TYPE_INT32; DML_FEATURE_LEVEL_6_4 allows FLOAT32, FLOAT16 for")


def test_softplus_steepness_below_one_only_from_feature_level_6_4(monkeypatch):
    assert attributes_of(unary_desc("ACTIVATION_SOFTPLUS", Steepness=0.5), monkeypatch=monkeypatch) == {
        "Steepness": np.float32(0.5)}
    for value in (0.5, float("nan"), -1.0):
        assert create(device(DML_FEATURE_LEVEL_6_3), unary_desc("ACTIVATION_SOFTPLUS", Steepness=value)) == (
            f"Steepness is {float(np.float32(value))!r}; DML_OPERATOR_ACTIVATION_SOFTPLUS requires Steepness >= 1 "
            f"below DML_FEATURE_LEVEL_6_4 (this device: DML_FEATURE_LEVEL_6_3).")
    assert create(device(DML_FEATURE_LEVEL_6_3), unary_desc("ACTIVATION_SOFTPLUS", Steepness=1.0)) == "validated"


def test_enum_attributes(monkeypatch):
    assert attributes_of(unary_desc("ELEMENT_WISE_ROUND", RoundingMode=DML_ROUNDING_MODE_TOWARD_INFINITY),
                         monkeypatch=monkeypatch) == {"RoundingMode": 2}
    assert create(device(), unary_desc("ELEMENT_WISE_ROUND", RoundingMode=3)) == (
        "RoundingMode is 3, which is not a DML_ROUNDING_MODE value.")
    assert create(device(), unary_desc("ELEMENT_WISE_ROUND", RoundingMode=1.0)) == (
        "RoundingMode is 1.0; it must be a DML_ROUNDING_MODE value.")
    assert create(device(), unary_desc("ELEMENT_WISE_IS_INFINITY", output="UINT8", InfinityMode=-1)) == (
        "InfinityMode is -1, which is not a DML_IS_INFINITY_MODE value.")
    assert attributes_of(unary_desc("ELEMENT_WISE_IS_INFINITY", output="UINT8",
                                    InfinityMode=DML_IS_INFINITY_MODE_NEGATIVE), monkeypatch=monkeypatch) == {
        "InfinityMode": 2}


@pytest.mark.parametrize("type_name, raw, expected", [
    ("FLOAT16", np.float16(-2.5).tobytes(), np.float16(-2.5)),
    ("FLOAT32", np.float32(1e-3).tobytes(), np.float32(1e-3)),
    ("INT32", (-7).to_bytes(4, "little", signed=True), np.int32(-7)),
    ("INT64", (-(1 << 62)).to_bytes(8, "little", signed=True), np.int64(-(1 << 62))),
    ("UINT64", ((1 << 64) - 1).to_bytes(8, "little"), np.uint64((1 << 64) - 1)),
    ("INT8", b"\xff", np.int8(-1)), ("UINT8", b"\xff", np.uint8(255)), ("UINT16", b"\x01\x02", np.uint16(0x201)),
])
def test_clip1_bounds_are_read_as_min_max_data_type(type_name, raw, expected, monkeypatch):
    data_type = getattr(DML_TENSOR_DATA_TYPE, "DML_TENSOR_DATA_TYPE_" + type_name)
    desc = unary_desc("ELEMENT_WISE_CLIP1", type_name, MinMaxDataType=data_type, Min=DML_SCALAR_UNION(Bytes=raw),
                      Max=DML_SCALAR_UNION(Bytes=raw + bytes(8 - len(raw))))
    got = attributes_of(desc, monkeypatch=monkeypatch)
    assert got["MinMaxDataType"] == int(data_type)
    for bound in (got["Min"], got["Max"]):
        assert type(bound) is type(expected) and bound.tobytes() == expected.tobytes()


def test_clip1_and_clip_grad1_min_max_data_type_rules():
    assert create(device(), unary_desc("ELEMENT_WISE_CLIP1", "INT32", MinMaxDataType=DML_TENSOR_DATA_TYPE_INT64)) == (
        "MinMaxDataType is DML_TENSOR_DATA_TYPE_INT64; it must match OutputTensor.DataType "
        "(DML_TENSOR_DATA_TYPE_INT32) for DML_OPERATOR_ELEMENT_WISE_CLIP1.")
    assert create(device(), unary_desc("ELEMENT_WISE_CLIP1", MinMaxDataType=99)) == (
        "MinMaxDataType is 99, which is not a DML_TENSOR_DATA_TYPE value.")
    assert create(device(), unary_desc("ELEMENT_WISE_CLIP1", Min=1.5)) == (
        "Min is 1.5; it must be a DML_SCALAR_UNION.")
    grad = SCHEMAS_BY_NAME["ELEMENT_WISE_CLIP_GRAD1"]
    types = dict.fromkeys(("InputTensor", "InputGradientTensor", "OutputGradientTensor"), "UINT16")
    assert create(device(), build_desc(grad, types, 1, MinMaxDataType=DML_TENSOR_DATA_TYPE_UINT32)) == (
        "MinMaxDataType is DML_TENSOR_DATA_TYPE_UINT32; it must match OutputGradientTensor.DataType "
        "(DML_TENSOR_DATA_TYPE_UINT16) for DML_OPERATOR_ELEMENT_WISE_CLIP_GRAD1.")


def add1(type_name="FLOAT32", activation=None, level=DML_FEATURE_LEVEL_6_4):
    schema = SCHEMAS_BY_NAME["ELEMENT_WISE_ADD1"]
    return build_desc(schema, dict.fromkeys(("ATensor", "BTensor", "OutputTensor"), type_name), 4,
                      FusedActivation=activation)


def fused(name, **fields):
    schema = SCHEMAS_BY_NAME[name]
    return DML_OPERATOR_DESC(Type=schema.type, Desc=schema.desc_type(**fields))


def test_fused_activation_is_validated_with_its_own_attributes(monkeypatch):
    assert attributes_of(add1(activation=None), monkeypatch=monkeypatch) == {"FusedActivation": None}
    got = attributes_of(add1("FLOAT16", fused("ACTIVATION_LEAKY_RELU", Alpha=0.01)), monkeypatch=monkeypatch)
    assert got == {"FusedActivation": FusedActivation(name="ACTIVATION_LEAKY_RELU",
                                                      attributes={"Alpha": np.float32(0.01)})}
    for name in FUSABLE_ACTIVATIONS:
        schema = SCHEMAS_BY_NAME[name]
        activation = fused(name, **{a.field: 0.5 + i for i, a in enumerate(schema.attributes)})
        if name == "ACTIVATION_SOFTPLUS":
            activation.Desc.Steepness = 2.0
        result = attributes_of(add1(activation=activation), monkeypatch=monkeypatch)["FusedActivation"]
        assert result.name == name and set(result.attributes) == {a.field for a in schema.attributes}


def test_fused_activation_rules():
    # ADD1's tables accept FLOAT32 and FLOAT16 only, so its page's "Fused activation may be used only when the
    # output datatype is FLOAT16 or FLOAT32" is met by every valid ADD1 (the table refuses first)
    assert create(device(), add1("INT32", fused("ACTIVATION_RELU"))).startswith(
        "ATensor.DataType is DML_TENSOR_DATA_TYPE_INT32; DML_FEATURE_LEVEL_6_4 allows FLOAT32, FLOAT16 for ATensor")
    for name in ("ELEMENT_WISE_CLIP", "ACTIVATION_PARAMETERIZED_RELU", "ACTIVATION_SWISH", "ELEMENT_WISE_ADD"):
        assert create(device(), add1(activation=fused(name))).startswith(
            f"FusedActivation.Type is DML_OPERATOR_{name}; DML_OPERATOR_ELEMENT_WISE_ADD1 can fuse only "
            f"DML_OPERATOR_ACTIVATION_LINEAR, ")
    assert create(device(DML_FEATURE_LEVEL_5_0), add1(activation=fused("ACTIVATION_GELU"))) == (
        "FusedActivation.Type is DML_OPERATOR_ACTIVATION_GELU, introduced in DML_FEATURE_LEVEL_5_1; this device "
        "supports up to DML_FEATURE_LEVEL_5_0.")
    assert create(device(), add1(activation=DML_OPERATOR_DESC(Type=DML_OPERATOR_ACTIVATION_RELU,
                                                              Desc=DML_ACTIVATION_ELU_OPERATOR_DESC()))) == (
        "FusedActivation.Desc is a DML_ACTIVATION_ELU_OPERATOR_DESC; DML_OPERATOR_ACTIVATION_RELU needs a "
        "DML_ACTIVATION_RELU_OPERATOR_DESC.")
    assert create(device(), add1(activation=fused("ACTIVATION_RELU", OutputTensor=tensor("FLOAT32", (1,))))) == (
        "FusedActivation.Desc.OutputTensor is a DML_TENSOR_DESC; a fused activation's tensors must be None (NULL).")
    assert create(device(), add1(activation=fused("ACTIVATION_ELU", Alpha=[1]))) == (
        "FusedActivation.Desc.Alpha is [1]; it must be a number (a C FLOAT).")
    assert create(device(DML_FEATURE_LEVEL_6_3), add1(activation=fused("ACTIVATION_SOFTPLUS", Steepness=0.25))) == (
        "FusedActivation.Desc.Steepness is 0.25; DML_OPERATOR_ACTIVATION_SOFTPLUS requires Steepness >= 1 below "
        "DML_FEATURE_LEVEL_6_4 (this device: DML_FEATURE_LEVEL_6_3).")
    assert create(device(), add1(activation=DML_ACTIVATION_RELU_OPERATOR_DESC())) == (
        "FusedActivation is a DML_ACTIVATION_RELU_OPERATOR_DESC; it must be a DML_OPERATOR_DESC or None.")
    assert create(device(), add1(activation=DML_OPERATOR_DESC(Type=10 ** 6))) == (
        "FusedActivation.Type is 1000000, which is not a DML_OPERATOR_TYPE value.")


def test_scale_bias_follows_the_desc_struct():
    with_sb = {s.name for s in SCHEMAS.values() if s.scale_bias}
    assert with_sb == {"ELEMENT_WISE_" + n for n in (
        "IDENTITY", "ABS", "ACOS", "ASIN", "ATAN", "CEIL", "COS", "EXP", "FLOOR", "LOG", "RECIP", "SIN", "SQRT", "TAN",
        "ERF", "SINH", "COSH", "TANH", "ASINH", "ACOSH", "ATANH", "CLIP", "THRESHOLD", "CONSTANT_POW", "CLIP1", "POW")}
    assert create(device(), unary_desc("ELEMENT_WISE_ABS", "INT16", ScaleBias=DML_SCALE_BIAS(Scale=2.0))) == (
        "ScaleBias is set but InputTensor.DataType is DML_TENSOR_DATA_TYPE_INT16; dmlemu accepts ScaleBias only for "
        "FLOAT32 and FLOAT16 tensors.")


# ---- CheckFeatureSupport agrees with the tables ----------------------------------------------------------------------
@pytest.mark.parametrize("adapter", [ADAPTER_64, ADAPTER_32])
def test_check_feature_support_covers_every_type_the_tables_accept(adapter):
    for level in LEVELS:
        if level > PRESETS[adapter].max_feature_level:
            continue
        dml_device = device(level, adapter)
        supported = {name for name in ALL_TYPE_NAMES if dml_device.CheckFeatureSupport(
            DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT, DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT(
                DataType=getattr(DML_TENSOR_DATA_TYPE, "DML_TENSOR_DATA_TYPE_" + name))).IsSupported}
        accepted = {name for schema in SCHEMAS.values() if schema.introduced_at <= level
                    for name in schema.data_types_at(level)}
        if PRESETS[adapter].supports_64bit:
            assert accepted <= supported, (level_name(level), accepted - supported)
        else:
            assert accepted - supported <= {"INT64", "UINT64", "FLOAT64"}
            assert not supported & {"INT64", "UINT64", "FLOAT64"}


def test_64_bit_tensors_are_refused_on_an_adapter_without_them():
    schema = SCHEMAS_BY_NAME["ELEMENT_WISE_SIGN"]
    level = min(PRESETS[ADAPTER_32].max_feature_level, DML_FEATURE_LEVEL_6_4)
    message = create(device(level, ADAPTER_32), build_desc(schema, dict.fromkeys(("InputTensor", "OutputTensor"),
                                                                                   "INT64"), 2))
    assert message.startswith("InputTensor.DataType is DML_TENSOR_DATA_TYPE_INT64; the adapter ")
    assert message.endswith("does not support 64-bit tensor data types (see DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT).")


# ---- property tests -----------------------------------------------------------------------------------------------
SETTINGS = settings(max_examples=scaled(120), deadline=None, suppress_health_check=[HealthCheck.too_slow])


def expected_valid(schema, level, types, dims, strides_ok):
    """An independent reading of the tables: is this choice of types and ranks valid at `level`?"""
    if schema.introduced_at > level:
        return False
    row = schema.support_at(level)
    for field, type_name in types.items():
        support = row.tensors[field]
        if type_name not in support.data_types or not support.min_dims <= dims[field] <= support.max_dims:
            return False
    if not strides_ok:
        return False
    if any(len({dims[f] for f in group}) > 1 for group in schema.same_sizes + schema.same_dimension_count):
        return False
    for spec in schema.attributes:      # REDUCE: the Function default_attributes picks must accept the types here
        for entry in schema.support_by:
            if entry.field != spec.field:
                continue
            name = spec.enum(_supported_value(schema, spec, types)).name[len(spec.enum.__name__) + 1:]
            if name in entry.values:
                by_value = entry.support_at(level)
                if by_value is None or any(
                        type_name not in by_value.tensors[f].data_types
                        or not by_value.tensors[f].min_dims <= dims[f] <= by_value.tensors[f].max_dims
                        for f, type_name in types.items()) or (entry.same_type and len(set(types.values())) > 1):
                    return False
    return any(a == types for a in type_assignments(schema, row, fixed=types))


@st.composite
def descs(draw):
    """A desc that is mostly valid (a type assignment the tables allow, ranks in range) with a few
    mutations: a foreign type, another rank, a level below the operator's, strides."""
    # (the data movement operators' shape rules and tensor arrays: tests/directml/test_data_movement.py)
    schema = SCHEMAS_BY_NAME[draw(st.sampled_from([n for n in NAMES if not SCHEMAS_BY_NAME[n].moves]))]
    later = [level for level in LEVELS if level >= schema.introduced_at]
    level = draw(st.sampled_from(later)) if draw(st.integers(0, 4)) else draw(st.sampled_from(LEVELS))
    row = schema.support_at(max(level, schema.introduced_at))
    first = row.tensors[schema.tensors[0].field]
    base_types = draw(st.sampled_from(list(type_assignments(schema, row))))
    in_range = draw(st.integers(0, 5)) > 0
    base_dims = draw(st.integers(first.min_dims, first.max_dims)) if in_range else draw(st.integers(1, 9))
    types, dims, fields, strides_ok = {}, {}, {}, True
    for role in schema.tensors:
        type_name = base_types[role.field] if draw(st.integers(0, 7)) else draw(st.sampled_from(ALL_TYPE_NAMES))
        count = base_dims if draw(st.integers(0, 9)) else draw(st.integers(1, 9))
        sizes = sizes_for(schema, role.field, count)
        strides = None
        if draw(st.booleans()):
            strides = [draw(st.sampled_from([0, 1, 2, 7])) for _ in sizes]
            if role.is_output:   # strides that could alias two output elements are refused (dmlemu's rule)
                dims_by_stride = sorted((s, n) for n, s in zip(sizes, strides) if n > 1)
                reach = 0
                for s, n in dims_by_stride:
                    strides_ok &= s > reach
                    reach += (n - 1) * s
        types[role.field], dims[role.field] = type_name, count
        fields[role.field] = tensor(type_name, sizes, strides)
    attributes = default_attributes(schema, types)
    for spec in schema.attributes:      # the spatial arrays: one value per spatial dimension (paddings 0, the rest 1)
        if spec.kind == SPATIAL:
            attributes[spec.field] = [spec.at_least_value or 0] * max(dims[spec.of] - 2, 0)
    for spec in schema.attributes:
        if spec.kind == FLOAT_ARRAY:      # one value per dimension of the tensor it describes
            attributes[spec.field] = [1.0] * dims[spec.of]
    return schema, level, types, dims, strides_ok, fields, attributes


@SETTINGS
@given(case=descs())
def test_descs_are_validated_exactly_as_the_tables_say(case):
    schema, level, types, dims, strides_ok, fields, attributes = case
    desc = DML_OPERATOR_DESC(Type=schema.type, Desc=schema.desc_type(**fields, **attributes))
    result = create(device(level), desc)
    valid = expected_valid(schema, level, types, dims, strides_ok)
    # same Sizes where the ranks agree: sizes_for gives equal prefixes, so only single-element fields differ
    if valid and any(len({tuple(sizes_for(schema, f, dims[f])) for f in group}) > 1 for group in schema.same_sizes):
        valid = False
    if valid and schema.support_by:      # the rows of the attribute value default_attributes picked (REDUCE)
        valid = value_rows_accept(schema, attributes, level, types, dims)
    outcome(ACCEPTED if result == "validated" else REFUSED)
    assert (result == "validated") == valid, (schema.name, level_name(level), types, dims, result)


def value_rows_accept(schema, attributes, level, types, dims):
    """Whether the support rows of the attribute values in `attributes` accept the tensors (no value that
    fits every type may exist: _supported_value then falls back to 0)."""
    for entry in schema.support_by:
        spec = next(a for a in schema.attributes if a.field == entry.field)
        name = spec.enum(attributes[entry.field]).name[len(spec.enum.__name__) + 1:]
        if name not in entry.values:
            continue
        row = entry.support_at(level)
        if row is None:
            return False
        for field, type_name in types.items():
            allowed = row.tensors[field]
            if type_name not in allowed.data_types or not allowed.min_dims <= dims[field] <= allowed.max_dims:
                return False
        if entry.same_type and len(set(types.values())) > 1:
            return False
    return True


HOSTILE_FLOATS = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-(1 << 70), 1 << 70), garbage)


@SETTINGS
@given(name=st.sampled_from([n for n in GENERIC if SCHEMAS_BY_NAME[n].attributes]), data=st.data())
def test_hostile_attribute_values_are_refused_with_a_sentence(name, data):
    """Only HResultError comes out; an accepted value came back validated, as its kind says."""
    schema = SCHEMAS_BY_NAME[name]
    types, dims = first_valid(schema, DML_FEATURE_LEVEL_6_4)
    spec = data.draw(st.sampled_from(schema.attributes))
    if spec.kind == FUSED_ACTIVATION:
        activation_types = st.one_of(st.sampled_from(sorted(SCHEMAS)), garbage)
        activation_descs = st.one_of(garbage, st.sampled_from(FUSABLE_ACTIVATIONS).map(
            lambda n: SCHEMAS_BY_NAME[n].desc_type()))
        value = data.draw(st.one_of(garbage, st.builds(lambda t, d: DML_OPERATOR_DESC(Type=t, Desc=d),
                                                       activation_types, activation_descs)))
    elif spec.kind == SCALAR_UNION:
        value = data.draw(st.one_of(garbage, st.builds(lambda b: DML_SCALAR_UNION(Bytes=b), st.binary(max_size=8))))
    elif spec.kind == ENUM:
        value = data.draw(st.one_of(garbage, st.integers(-2, 16)))
    elif spec.kind in (AXES, UINTS, INTS):
        value = data.draw(st.one_of(garbage, st.lists(st.integers(-2, 10), max_size=9)))
    elif spec.kind == SPATIAL:
        value = data.draw(st.one_of(garbage, st.lists(st.integers(-2, 4), max_size=4)))
    elif spec.kind in (UINT, BOOL):
        value = data.draw(st.one_of(garbage, st.booleans(), st.integers(-2, 10), st.integers(-(1 << 70), 1 << 70)))
    else:
        value = data.draw(HOSTILE_FLOATS)
    desc = build_desc(schema, types, dims, **{spec.field: value})
    try:
        info = None
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr("dmlemu.kernels.driver.has_kernel", lambda n: True)
            info = inspect(device().CreateOperator(desc)).info
    except HResultError as error:
        # an Axes value is also refused by its count field or by the output's Sizes it implies, and a Function by
        # its own support rows (REDUCE): those sentences name the tensor
        starts = (spec.field,) + ((spec.count_field, "OutputTensor.Sizes") if spec.kind == AXES else ()) + (
            (spec.count_field, "OutputTensor.Sizes", "InputTensor.Sizes", "FilterTensor.Sizes")
            if spec.kind == SPATIAL else ()) + (
            ("GroupCount", "FilterTensor.Sizes", "OutputTensor.Sizes") if spec.kind == UINT else ()) + (
            ("InputTensor.", "OutputTensor.") if any(e.field == spec.field for e in schema.support_by) else ()) + (
            # a data movement attribute is also refused by the shape it implies, or by its array's count
            ("InputTensor", "OutputTensor", "DimensionCount", "RepeatsCount", *(a.field for a in schema.attributes))
            if schema.moves else ()) + (
            ("OutputTensor", "IndicesTensor.Sizes", "BatchDimensionCount") if spec.kind == UINT else ()) + (
            (spec.count_field,) if spec.kind == FLOAT_ARRAY else ())
        assert error.hresult == E_INVALIDARG and error.message.startswith(starts), error.message
        outcome(REFUSED)
        return
    outcome(ACCEPTED)
    got = info.attributes[spec.field]
    if spec.kind in (AXES, UINTS, INTS, SPATIAL):
        assert type(got) is tuple and all(type(a) is int for a in got)
        return
    if spec.kind == FLOAT_ARRAY:
        assert type(got) is tuple and all(type(v) is np.float32 for v in got)
        return
    if spec.kind == SIZE_2D:
        assert type(got) is tuple and all(type(v) is int and v >= 1 for v in got)
        return
    expected_type = {FLOAT: np.float32, ENUM: int, UINT: int, INT: int, BOOL: int}.get(spec.kind)
    if expected_type is not None:
        assert type(got) is expected_type
    elif spec.kind == SCALAR_UNION:
        assert isinstance(got, np.generic)
    else:
        assert got is None or isinstance(got, FusedActivation)
