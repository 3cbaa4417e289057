"""Operator schemas and IDMLOperator: the per-operator tables that CreateOperator validates against.

One `OperatorSchema` per operator dmlemu implements, transcribed from the operator's DirectML page
(shared/seeds/*, DIRECTML_FACTS.md section 1.7): its tensors in binding order, the "Tensor support"
table (one row per feature level, highest first; a row applies from its level upward), which tensors
must agree on DataType / DimensionCount / Sizes, whether it has a ScaleBias and which FLOAT fields,
and whether the output may alias an input (in-place execution). Validation, binding and recording
read only these tables; there is no per-operator `if` chain elsewhere.
"""
from dataclasses import dataclass

from dmlemu.directml.enums import (
    DML_FEATURE_LEVEL_1_0, DML_FEATURE_LEVEL_2_0, DML_FEATURE_LEVEL_2_1, DML_FEATURE_LEVEL_3_0,
    DML_FEATURE_LEVEL_4_1, DML_FEATURE_LEVEL_5_0, DML_OPERATOR_ELEMENT_WISE_CLIP, DML_OPERATOR_ELEMENT_WISE_IDENTITY,
    DML_OPERATOR_ELEMENT_WISE_IF, DML_OPERATOR_ELEMENT_WISE_THRESHOLD, OPERATOR_INTRODUCED_AT,
)
from dmlemu.directml.objects import IDMLDeviceChild
from dmlemu.directml.structs import OPERATOR_DESC_TYPES
from dmlemu.directml import enums as _enums


@dataclass(frozen=True)
class TensorRole:
    """One tensor field of an operator desc, in binding order."""
    field: str              # the desc field, e.g. "InputTensor"
    is_output: bool = False
    optional: bool = False


@dataclass(frozen=True)
class TensorSupport:
    """What one tensor accepts at one feature level: dimension counts and data type names."""
    min_dims: int
    max_dims: int
    data_types: tuple       # short names as in DirectML's tables: "FLOAT32", "INT8", ...

    def dims_text(self):
        if self.min_dims == self.max_dims:
            return str(self.min_dims)
        return f"{self.min_dims} to {self.max_dims}"


@dataclass(frozen=True)
class SupportRow:
    """A "DML_FEATURE_LEVEL_x_y and above" table: TensorSupport per tensor field."""
    level: int
    tensors: dict


@dataclass(frozen=True)
class OperatorSchema:
    type: int                       # DML_OPERATOR_TYPE value
    name: str                       # without the DML_OPERATOR_ prefix, e.g. "ELEMENT_WISE_CLIP"
    tensors: tuple                  # TensorRole, inputs then outputs (binding order)
    support: tuple                  # SupportRow, highest level first
    same_data_type: tuple           # fields that must share DataType
    same_sizes: tuple               # fields that must share DimensionCount and Sizes
    scale_bias: bool = False        # has an optional DML_SCALE_BIAS* ScaleBias field
    float_fields: tuple = ()        # FLOAT attributes, e.g. ("Min", "Max")
    in_place: bool = False          # the output may alias an input when binding

    @property
    def c_name(self):
        return "DML_OPERATOR_" + self.name

    @property
    def desc_type(self):
        return OPERATOR_DESC_TYPES[self.type]

    @property
    def introduced_at(self):
        return OPERATOR_INTRODUCED_AT[self.type]

    @property
    def inputs(self):
        return tuple(t for t in self.tensors if not t.is_output)

    @property
    def outputs(self):
        return tuple(t for t in self.tensors if t.is_output)

    def support_at(self, feature_level):
        """The support row in force at `feature_level` (None below the operator's first row)."""
        for row in self.support:
            if row.level <= feature_level:
                return row
        return None


# ---- data type groups, named as in DirectML's tables ----------------------------------------------
FLOATS = ("FLOAT32", "FLOAT16")
INTS_8_TO_32 = ("INT32", "INT16", "INT8", "UINT32", "UINT16", "UINT8")
INTS_64 = ("INT64", "UINT64")


def _unary_rows(*rows):
    """Rows for an InputTensor -> OutputTensor operator whose two tensors accept the same things."""
    return tuple(SupportRow(level, {"InputTensor": TensorSupport(lo, hi, types), "OutputTensor": TensorSupport(lo, hi, types)})
                 for level, lo, hi, types in rows)


_UNARY_TENSORS = (TensorRole("InputTensor"), TensorRole("OutputTensor", is_output=True))

SCHEMAS = {schema.type: schema for schema in (
    OperatorSchema(
        type=DML_OPERATOR_ELEMENT_WISE_IDENTITY, name="ELEMENT_WISE_IDENTITY", tensors=_UNARY_TENSORS,
        support=_unary_rows(
            (DML_FEATURE_LEVEL_4_1, 1, 8, ("FLOAT64",) + FLOATS + INTS_64 + INTS_8_TO_32),
            (DML_FEATURE_LEVEL_3_0, 1, 8, FLOATS + INTS_8_TO_32),
            (DML_FEATURE_LEVEL_2_1, 4, 5, FLOATS + INTS_8_TO_32),
            (DML_FEATURE_LEVEL_1_0, 4, 5, FLOATS)),
        same_data_type=("InputTensor", "OutputTensor"), same_sizes=("InputTensor", "OutputTensor"),
        scale_bias=True, in_place=True),
    OperatorSchema(
        type=DML_OPERATOR_ELEMENT_WISE_THRESHOLD, name="ELEMENT_WISE_THRESHOLD", tensors=_UNARY_TENSORS,
        support=_unary_rows(
            (DML_FEATURE_LEVEL_3_0, 1, 8, FLOATS + INTS_8_TO_32),
            (DML_FEATURE_LEVEL_2_1, 4, 4, FLOATS + INTS_8_TO_32),
            (DML_FEATURE_LEVEL_1_0, 4, 4, FLOATS)),
        same_data_type=("InputTensor", "OutputTensor"), same_sizes=("InputTensor", "OutputTensor"),
        scale_bias=True, float_fields=("Min",), in_place=True),
    OperatorSchema(
        type=DML_OPERATOR_ELEMENT_WISE_CLIP, name="ELEMENT_WISE_CLIP", tensors=_UNARY_TENSORS,
        support=_unary_rows(
            (DML_FEATURE_LEVEL_5_0, 1, 8, FLOATS + INTS_64 + INTS_8_TO_32),
            (DML_FEATURE_LEVEL_3_0, 1, 8, FLOATS + INTS_8_TO_32),
            (DML_FEATURE_LEVEL_2_1, 4, 4, FLOATS + INTS_8_TO_32),
            (DML_FEATURE_LEVEL_1_0, 4, 4, FLOATS)),
        same_data_type=("InputTensor", "OutputTensor"), same_sizes=("InputTensor", "OutputTensor"),
        scale_bias=True, float_fields=("Min", "Max"), in_place=True),
    OperatorSchema(
        type=DML_OPERATOR_ELEMENT_WISE_IF, name="ELEMENT_WISE_IF",
        tensors=(TensorRole("ConditionTensor"), TensorRole("ATensor"), TensorRole("BTensor"),
                 TensorRole("OutputTensor", is_output=True)),
        support=tuple(
            SupportRow(level, {"ConditionTensor": TensorSupport(lo, hi, ("UINT8",)),
                               "ATensor": TensorSupport(lo, hi, types), "BTensor": TensorSupport(lo, hi, types),
                               "OutputTensor": TensorSupport(lo, hi, types)})
            for level, lo, hi, types in (
                (DML_FEATURE_LEVEL_5_0, 1, 8, ("FLOAT64",) + FLOATS + INTS_64 + INTS_8_TO_32),
                (DML_FEATURE_LEVEL_3_0, 1, 8, FLOATS + INTS_8_TO_32),
                (DML_FEATURE_LEVEL_2_0, 4, 4, ("FLOAT16",)))),
        same_data_type=("ATensor", "BTensor", "OutputTensor"),
        same_sizes=("ConditionTensor", "ATensor", "BTensor", "OutputTensor"),
        in_place=False),
)}


# Each implemented operator's tensor fields in binding order, by name without DML_OPERATOR_ (what the
# kernels, the tools and the golden model's callers index by).
TENSOR_NAMES = {schema.name: tuple(role.field for role in schema.tensors) for schema in SCHEMAS.values()}


def _check_tables():
    """Each schema's first support row starts at the level that introduced the operator."""
    for schema in SCHEMAS.values():
        assert schema.support[-1].level == schema.introduced_at, schema.name
        levels = [row.level for row in schema.support]
        assert levels == sorted(levels, reverse=True), schema.name
        for row in schema.support:
            assert set(row.tensors) == {t.field for t in schema.tensors}, schema.name
        assert {t.field for t in schema.tensors} <= set(schema.desc_type._fields_), schema.name


_check_tables()


class IDMLOperator(IDMLDeviceChild):
    """A validated operator: its schema and frozen tensor descs and attributes. Compile it to run it."""

    _iids = (_enums.IID_IDMLOperator,)

    def __init__(self, dml_device, info):
        super().__init__(dml_device)
        self._info = info

    @property
    def _schema(self):
        return self._info.schema

    def __repr__(self):
        return f"<IDMLOperator {self._schema.c_name}>"
