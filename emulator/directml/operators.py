"""Operator schemas and IDMLOperator: the per-operator tables that CreateOperator validates against.

One `OperatorSchema` per operator dmlemu validates, transcribed from the operator's DirectML page
(learn.microsoft.com/windows/win32/api/directml/ns-directml-dml_<operator>_operator_desc, i.e.
MicrosoftDocs/sdk-api sdk-api-src/content/directml/, and MicrosoftDocs/windows-ai-docs docs/directml/api
for the pages added since DirectML 1.8; shared/seeds/*, DIRECTML_FACTS.md section 1.7): its tensors in
binding order, the "Tensor support" table (one row per feature level, highest first; a row applies from
its level upward; a tensor the table calls "Optional input" may be None from that row's level), which
tensors must agree on DataType, DimensionCount or Sizes ("Tensor constraints"), the data type rules the
field descriptions add (`TypeMatch`), tensors that must hold one element, the non-tensor fields
(`AttributeSpec`: FLOAT, enum, DML_SCALAR_UNION and fused-activation fields and their rules), and whether
the output may alias an input (in-place execution), and whether the desc has a ScaleBias. Each row also
defines its operator's desc struct, DML_<NAME>_OPERATOR_DESC in dmlemu.directml.structs: the tensor fields,
ScaleBias where the row has one, then the attributes, in C order. Validation, binding and recording read only
these tables; there is no per-operator `if` chain elsewhere. The operator's kernel row
(dmlemu.kernels.element_wise_ops) and golden function (dmlemu.golden) are keyed by the same name;
dmlemu.operator_registry joins the three and tests/package/test_operator_registry.py checks that none is missing.

DirectML broadcasts only through strides: the tensors of an element-wise operator have the same Sizes
(a broadcast input has stride 0 along the broadcast dimensions), so "same Sizes" is the whole rule.
"""
from dataclasses import dataclass, replace

from dmlemu.directml import enums as _enums
from dmlemu.directml.enums import (
    DML_FEATURE_LEVEL_1_0, DML_FEATURE_LEVEL_2_0, DML_FEATURE_LEVEL_2_1, DML_FEATURE_LEVEL_3_0, DML_FEATURE_LEVEL_3_1,
    DML_FEATURE_LEVEL_4_0, DML_FEATURE_LEVEL_4_1, DML_FEATURE_LEVEL_5_0, DML_FEATURE_LEVEL_5_1, DML_FEATURE_LEVEL_6_0,
    DML_FEATURE_LEVEL_6_2, DML_FEATURE_LEVEL_6_4, DML_IS_INFINITY_MODE, DML_ROUNDING_MODE, DML_TENSOR_DATA_TYPE,
    OPERATOR_INTRODUCED_AT,
)
from dmlemu.com import Count
from dmlemu.directml.objects import IDMLDeviceChild
from dmlemu.directml.structs import OPERATOR_DESC_TYPES, define_operator_desc

L1_0, L2_0, L2_1, L3_0, L3_1, L4_0, L4_1, L5_0, L5_1, L6_0, L6_2, L6_4 = (
    DML_FEATURE_LEVEL_1_0, DML_FEATURE_LEVEL_2_0, DML_FEATURE_LEVEL_2_1, DML_FEATURE_LEVEL_3_0, DML_FEATURE_LEVEL_3_1,
    DML_FEATURE_LEVEL_4_0, DML_FEATURE_LEVEL_4_1, DML_FEATURE_LEVEL_5_0, DML_FEATURE_LEVEL_5_1, DML_FEATURE_LEVEL_6_0,
    DML_FEATURE_LEVEL_6_2, DML_FEATURE_LEVEL_6_4)


@dataclass(frozen=True)
class TensorRole:
    """One tensor field of an operator desc, in binding order; `optional`: the desc may leave it None
    (from the first level whose support row calls it "Optional input"), and then it binds as NONE."""
    field: str              # the desc field, e.g. "InputTensor"
    is_output: bool = False
    optional: bool = False
    count_field: str = None  # a tensor array (JOIN's InputTensors): the C count field before it (InputCount); the
                             # desc's tensors bind one each, in array order, named like InputTensors[1]


@dataclass(frozen=True)
class TensorSupport:
    """What one tensor accepts at one feature level: dimension counts, data type names, and whether
    the tensor may be left out (None; the table's "Optional input")."""
    min_dims: int
    max_dims: int
    data_types: tuple       # short names as in DirectML's tables: "FLOAT32", "INT8", ...
    optional: bool = False

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
class TypeMatch:
    """A data type rule from a field's description: `field`'s DataType must equal `other`'s, except
    that where `other` is one of `exceptions`' first types it must be the paired second type; from
    `until` upward (a DML_FEATURE_LEVEL) the rule no longer applies (None: at every level)."""
    field: str
    other: str
    exceptions: tuple = ()  # (other's type, the type `field` must then have)
    until: int = None

    def required(self, other_type):
        return dict(self.exceptions).get(other_type, other_type)


# Attribute kinds: the C type of a non-tensor desc field.
FLOAT = "FLOAT"                    # a C FLOAT -> np.float32
ENUM = "ENUM"                      # an enum value -> int
SCALAR_UNION = "DML_SCALAR_UNION"  # 8 bytes read as the data type another field names -> a NumPy scalar
FUSED_ACTIVATION = "FUSED_ACTIVATION"   # _Maybenull_ const DML_OPERATOR_DESC* -> None or FusedActivation
AXES = "AXES"                      # UINT <count field>; _Field_size_(count) const UINT* -> a tuple of axes
BOOL = "BOOL"                      # a C BOOL (FALSE = 0, any other integer TRUE) -> 0 or 1
UINT = "UINT"                      # a C UINT -> int (`of`: an axis of that tensor; `one_of`: the values allowed;
                                   # `at_least_value`: the least; CONVOLUTION's GroupCount, DEPTH_TO_SPACE's BlockSize)
UINTS = "UINTS"                    # UINT <count field>; _Field_size_(count) const UINT* -> a tuple of ints, one per
                                   # dimension of `of` (SLICE's Offsets, PADDING's StartPadding, TILE's Repeats);
                                   # several arrays may share one count field (DimensionCount)
INTS = "INTS"                      # the same with const INT* (SLICE1's InputWindowStrides)
SPATIAL = "SPATIAL"                # _Field_size_(DimensionCount) const UINT*: one value per spatial dimension of
                                   # `of` (its DimensionCount - 2); the arrays of one desc share their count field
INT = "INT"                        # a C INT -> int (DIAGONAL_MATRIX's Offset)
SIZE_2D = "DML_SIZE_2D"            # a DML_SIZE_2D {Width, Height} (UPSAMPLE_2D's ScaleSize) -> (height, width)
FLOAT_ARRAY = "FLOAT_ARRAY"        # _Field_size_(count) const FLOAT* -> a tuple of np.float32 (RESAMPLE's Scales);
                                   # arrays naming the same count_field share it (RESAMPLE1's DimensionCount)


@dataclass(frozen=True)
class AttributeSpec:
    """One non-tensor field of an operator desc (ScaleBias aside) and the rules its page states."""
    field: str
    kind: str = FLOAT
    enum: object = None             # ENUM: the enum type (a DML_* IntEnum)
    matches: str = None             # ENUM of DML_TENSOR_DATA_TYPE: must equal this tensor's DataType
    type_field: str = None          # SCALAR_UNION: the ENUM field that names its data type
    at_least: float = None          # FLOAT: the smallest value allowed ...
    at_least_until: int = None      # ... below this feature level only (None: at every level)
    of: str = None                  # AXES: the tensor whose dimensions the axes name
    count_field: str = None         # AXES: the C count field before the array (e.g. AxisCount); SPATIAL: the count
                                    # field the arrays share (DimensionCount), before the first of them
    at_least_value: int = None      # UINT, SPATIAL: the least value allowed (1 for GroupCount, Strides, Dilations)
    one_of: tuple = None            # UINT: the values allowed (LP_NORMALIZATION's P: 1 or 2)


@dataclass(frozen=True)
class AttributeSupport:
    """Support rows that depend on an ENUM attribute's value (REDUCE's "Tensor support according to function"):
    when `field` is one of `values` (member names without the enum's prefix), the tensors must also fit `support`
    (SupportRow, highest level first), and the input and output share DataType when `same_type`."""
    field: str
    values: tuple
    support: tuple
    same_type: bool = True

    def support_at(self, feature_level):
        for row in self.support:
            if row.level <= feature_level:
                return row
        return None


class InputsAndOutputs:
    """`inputs` and `outputs` of anything whose `tensors` (binding order) say which are outputs."""

    @property
    def inputs(self):
        return tuple(t for t in self.tensors if not t.is_output)

    @property
    def outputs(self):
        return tuple(t for t in self.tensors if t.is_output)


@dataclass(frozen=True)
class OperatorSchema(InputsAndOutputs):
    type: int                       # DML_OPERATOR_TYPE value
    name: str                       # without the DML_OPERATOR_ prefix, e.g. "ELEMENT_WISE_CLIP"
    tensors: tuple                  # TensorRole, inputs then outputs (binding order)
    support: tuple                  # SupportRow, highest level first
    same_data_type: tuple           # groups of fields that must share DataType
    same_sizes: tuple               # groups of fields that must share DimensionCount and Sizes
    same_dimension_count: tuple = ()  # groups of fields that must share DimensionCount only
    type_matches: tuple = ()        # TypeMatch rules
    single_element: tuple = ()      # fields whose tensor must hold exactly one element
    attributes: tuple = ()          # AttributeSpec, every non-tensor field but ScaleBias, in C order
    in_place: bool = False          # the output may alias an input when binding
    scale_bias: bool = False        # the desc has an optional DML_SCALE_BIAS* ScaleBias (after the tensors)
    leading: tuple = ()             # attribute fields that come before the tensors in C order (REDUCE's Function)
    support_by: tuple = ()          # AttributeSupport: rows that depend on an attribute's value
    reduces: tuple = ()             # (input, output, axes field): the output has the input's Sizes but 1 on the axes
    multiplies: tuple = ()          # (A, B, C, output, TransA field, TransB field): GEMM's matrix shapes
    effective_rank: tuple = ()      # (field, most): the tensor's DimensionCount without leading sizes of 1 (SOFTMAX)
    normalizes: tuple = ()          # (input, *others): the normalizations' tensors broadcast to the input (Scale ..)
    moves: str = None               # a data movement operator's shape rule (validation._check_data_movement)
    convolves: tuple = ()           # (input, filter, bias, output): CONVOLUTION's shapes (validation's
                                    # _check_convolution_shapes)
    pools: tuple = ()               # (input, output, indices or None): the pooling shapes (_check_pooling_shapes)
    shapes: str = None              # the name of a shape rule in dmlemu.directml.gather_shapes.SHAPE_RULES

    @property
    def c_name(self):
        return "DML_OPERATOR_" + self.name

    @property
    def desc_type(self):
        return OPERATOR_DESC_TYPES[self.type]

    @property
    def introduced_at(self):
        return OPERATOR_INTRODUCED_AT[self.type]

    def desc_fields(self):
        """The desc struct's (C field name, zero value) pairs in C order: the tensors (binding order is C
        order), ScaleBias, then the attributes."""
        zero = {FLOAT: 0.0, ENUM: 0, SCALAR_UNION: None, FUSED_ACTIVATION: None, BOOL: 0, UINT: 0, INT: 0,
                FLOAT_ARRAY: None, SIZE_2D: None}
        attributes = []
        for a in self.attributes:
            if a.kind == AXES:
                attributes += [(a.count_field, _COUNTS[a.field]), (a.field, None)]
            elif a.kind in (UINTS, INTS):    # arrays sharing a count field: the count once, before the first
                if a.count_field not in [f for f, _ in attributes]:
                    attributes.append((a.count_field, _COUNTS.setdefault(a.field, Count(a.field))))
                attributes.append((a.field, None))
            elif a.kind == SPATIAL:
                if a.count_field not in (f for f, _ in attributes):
                    attributes.append((a.count_field, _COUNTS[a.field]))
                attributes.append((a.field, None))
            elif a.kind == FLOAT_ARRAY:
                if a.count_field not in [f for f, _ in attributes]:
                    attributes.append((a.count_field, _COUNTS.setdefault(a.field, Count(a.field))))
                attributes.append((a.field, None))
            else:
                attributes.append((a.field, zero[a.kind]))
        leading = [f for f in attributes if f[0] in self.leading]
        tensors = []
        for t in self.tensors:
            if t.count_field:
                tensors.append((t.count_field, _COUNTS.setdefault(t.field, Count(t.field))))
            tensors.append((t.field, None))
        return (leading + tensors + ([("ScaleBias", None)] if self.scale_bias else [])
                + [f for f in attributes if f[0] not in self.leading])

    @property
    def float_fields(self):
        """The FLOAT attributes, e.g. ("Min", "Max")."""
        return tuple(a.field for a in self.attributes if a.kind == FLOAT)

    def support_at(self, feature_level):
        """The support row in force at `feature_level` (None below the operator's first row)."""
        for row in self.support:
            if row.level <= feature_level:
                return row
        return None

    def data_types_at(self, feature_level):
        """Every data type some tensor of the operator accepts at `feature_level` (table order)."""
        row = self.support_at(feature_level)
        seen = {}
        for role in self.tensors:
            for name in row.tensors[role.field].data_types:
                seen[name] = None
        return tuple(seen)


# The count field of each AXES attribute: one shared Count, so that a desc struct's defaults compare equal.
_COUNTS = {"Axes": Count("Axes"), "Strides": Count("Strides")}


# ---- data type groups, named as in DirectML's tables ----------------------------------------------
FLOATS = ("FLOAT32", "FLOAT16")
INTS_8_TO_32 = ("INT32", "INT16", "INT8", "UINT32", "UINT16", "UINT8")
INTS_64 = ("INT64", "UINT64")
SIGNED_8_TO_32 = ("INT32", "INT16", "INT8")
UNSIGNED_8_TO_32 = ("UINT32", "UINT16", "UINT8")
ALL_10 = ("FLOAT32", "FLOAT16", "INT64", "INT32", "INT16", "INT8", "UINT64", "UINT32", "UINT16", "UINT8")
ALL_11 = ("FLOAT64",) + ALL_10
FLOAT_INTS_8_TO_32 = FLOATS + INTS_8_TO_32
FLOAT_32_INTS = ("FLOAT32", "FLOAT16", "INT32", "UINT32")
UINT32_8 = ("UINT32", "UINT8")
SIGNED_FLOATS_64 = ("FLOAT32", "FLOAT16", "INT64", "INT32", "INT16", "INT8")


class Optional(tuple):
    """The data types of an "Optional input" row entry."""


def _dims(dims):
    return (dims, dims) if isinstance(dims, int) else dims


def _rows(roles, *rows):
    """Support rows from compact ones: (level, dims, types), where dims is a count or (min, max) and types
    one tuple for every tensor, or a dict of field -> tuple with "*" for the fields it leaves out."""
    fields = [role.field for role in roles]
    built = []
    for level, dims, types in rows:
        lo, hi = _dims(dims)
        per_field = types if isinstance(types, dict) else {"*": types}
        tensors = {}
        for field in fields:
            entry = per_field.get(field, per_field.get("*"))
            tensors[field] = TensorSupport(lo, hi, tuple(entry), optional=isinstance(entry, Optional))
        built.append(SupportRow(level, tensors))
    return tuple(built)


def _roles(*fields):
    """TensorRoles in binding order; the last field is the output."""
    return tuple(TensorRole(f, is_output=(i == len(fields) - 1)) for i, f in enumerate(fields))


UNARY = _roles("InputTensor", "OutputTensor")
BINARY = _roles("ATensor", "BTensor", "OutputTensor")
GRAD = _roles("InputTensor", "InputGradientTensor", "OutputGradientTensor")
# MAX_POOLING1 and MAX_POOLING2: the values, then the optional indices of the maxima (both outputs)
_MAX_POOLING_ROLES = (TensorRole("InputTensor"), TensorRole("OutputTensor", is_output=True),
                      TensorRole("OutputIndicesTensor", is_output=True))
# The common tables (each DirectML page that repeats them is named in the operator lists below).
FLOAT_ONLY_FL1 = ((L3_0, (1, 8), FLOATS), (L1_0, 4, FLOATS))                       # ACOS, EXP, ... (FL1.0)
FLOAT_ONLY_FL2 = ((L3_0, (1, 8), FLOATS), (L2_0, 4, FLOATS))                       # ERF, SINH, ... (FL2.0)
ACTIVATION_FL1 = ((L3_0, (1, 8), FLOATS), (L2_0, (4, 5), FLOATS), (L1_0, 4, FLOATS))  # ELU, SIGMOID, ...
LOGICAL = ((L3_0, (1, 8), UINT32_8), (L2_0, 4, UINT32_8), (L1_0, 4, ("UINT32",)))  # AND, OR, XOR, NOT
ADD_LIKE = ((L5_1, (1, 8), ALL_10), (L4_1, (1, 8), ("FLOAT32", "FLOAT16", "INT64", "INT32", "UINT64", "UINT32")),
            (L3_0, (1, 8), FLOAT_32_INTS))
BITWISE = ((L4_1, (1, 8), ALL_11), (L3_0, (1, 8), UNSIGNED_8_TO_32))                # BIT_AND, OR, XOR, NOT
SHIFT = ((L4_1, (1, 8), ("UINT64",) + UNSIGNED_8_TO_32), (L3_0, (1, 8), UNSIGNED_8_TO_32),
         (L2_1, 4, UNSIGNED_8_TO_32))
MIN_MAX = ((L5_0, (1, 8), ALL_10), (L3_0, (1, 8), FLOAT_INTS_8_TO_32), (L2_1, 4, FLOAT_INTS_8_TO_32),
           (L1_0, 4, FLOATS))
MODULUS = ((L6_0, (1, 8), ALL_10), (L3_0, (1, 8), FLOAT_INTS_8_TO_32), (L2_1, 4, FLOAT_INTS_8_TO_32))
COMPARE_OUT = {"OutputTensor": UINT32_8}
COMPARISON_FL3 = ((L4_1, (1, 8), {"*": ALL_10, **COMPARE_OUT}),
                  (L3_0, (1, 8), {"*": FLOAT_INTS_8_TO_32, **COMPARE_OUT}))
COMPARISON_FL1 = COMPARISON_FL3 + (
    (L2_1, 4, {"*": FLOAT_INTS_8_TO_32, **COMPARE_OUT}), (L2_0, 4, {"*": FLOATS, **COMPARE_OUT}),
    (L1_0, 4, {"*": FLOATS, "OutputTensor": ("UINT32",)}))
RELU_LIKE = ((L5_1, (1, 8), FLOATS + SIGNED_8_TO_32),) + ACTIVATION_FL1             # RELU, PARAMETERIZED_RELU

ALPHA, BETA = AttributeSpec("Alpha"), AttributeSpec("Beta")
# Activations that an operator's FusedActivation may name (docs/directml/dml-fused-activations.md,
# "Activations that are supported for fusion"; ELEMENT_WISE_CLIP is listed for Convolution and GEMM only).
FUSABLE_ACTIVATIONS = (
    "ACTIVATION_LINEAR", "ACTIVATION_SIGMOID", "ACTIVATION_HARD_SIGMOID", "ACTIVATION_TANH", "ACTIVATION_SCALED_TANH",
    "ACTIVATION_RELU", "ACTIVATION_LEAKY_RELU", "ACTIVATION_THRESHOLDED_RELU", "ACTIVATION_ELU", "ACTIVATION_CELU",
    "ACTIVATION_SCALED_ELU", "ACTIVATION_SOFTPLUS", "ACTIVATION_PARAMETRIC_SOFTPLUS", "ACTIVATION_SOFTSIGN",
    "ACTIVATION_IDENTITY", "ACTIVATION_SHRINK", "ACTIVATION_GELU")
# Data types an output may have when a FusedActivation is given (the ADD1 page: "Fused activation may be
# used only when the output datatype is FLOAT16 or FLOAT32").
FUSED_ACTIVATION_TYPES = ("FLOAT32", "FLOAT16")


def _op(name, tensors, rows, same_type=None, same_sizes=None, **fields):
    """One schema, and its desc struct. By default every tensor shares DataType, DimensionCount and Sizes (the
    constraint most pages state); `same_type` / `same_sizes` give the groups where a page says otherwise ([] for
    none)."""
    all_fields = tuple(t.field for t in tensors)
    support = _rows(tensors, *rows)
    tensors = tuple(replace(t, optional=any(row.tensors[t.field].optional for row in support)) for t in tensors)
    schema = OperatorSchema(
        type=int(_enums.DML_OPERATOR_TYPE["DML_OPERATOR_" + name]), name=name, tensors=tensors, support=support,
        same_data_type=tuple(same_type) if same_type is not None else (all_fields,),
        same_sizes=tuple(same_sizes) if same_sizes is not None else (all_fields,), **fields)
    define_operator_desc(schema.type, name, schema.desc_fields())
    return schema


def _union_rows(roles, by_value):
    """The support rows that hold every AttributeSupport's: at each level any of them starts at, each tensor's
    widest dimension range and every data type some value allows (CreateOperator checks these before the
    attributes, then the value's own rows)."""
    levels = sorted({row.level for entry in by_value for row in entry.support}, reverse=True)
    rows = []
    for level in levels:
        tensors = {}
        for role in roles:
            entries = [e.support_at(level).tensors[role.field] for e in by_value if e.support_at(level) is not None]
            types = tuple(dict.fromkeys(t for e in entries for t in e.data_types))
            tensors[role.field] = TensorSupport(min(e.min_dims for e in entries), max(e.max_dims for e in entries),
                                                types)
        rows.append(SupportRow(level, tensors))
    return tuple(rows)


def _by_value(field, roles, *groups):
    """AttributeSupport entries from compact rows: (values, rows, same_type) per group (rows as `_rows` takes)."""
    return tuple(AttributeSupport(field, tuple(values), _rows(roles, *rows), same_type)
                 for values, rows, same_type in groups)


# DML_REDUCE_OPERATOR_DESC, "Tensor support according to function" (sdk-api ns-directml-dml_reduce_operator_desc);
# the DML_FEATURE_LEVEL_5_0 rows are the 64-bit types the feature level history adds for REDUCE's L1, MAX, MIN,
# MULTIPLY, SUM and SUM_SQUARE (DIRECTML_FACTS 5.6).
INTS_32_64 = ("INT64", "INT32", "UINT64", "UINT32")
REDUCE_SUPPORT = _by_value("Function", UNARY, (
    ("ARGMIN", "ARGMAX"), ((L3_0, (1, 8), {"InputTensor": FLOAT_INTS_8_TO_32, "OutputTensor": INTS_32_64}),
                           (L2_1, 4, {"InputTensor": FLOAT_INTS_8_TO_32, "OutputTensor": ("UINT32",)}),
                           (L1_0, 4, {"InputTensor": FLOATS, "OutputTensor": ("UINT32",)})), False), (
    ("AVERAGE", "L2", "LOG_SUM", "LOG_SUM_EXP"), ((L3_0, (1, 8), FLOATS), (L1_0, 4, FLOATS)), True), (
    ("L1", "SUM_SQUARE"), ((L5_0, (1, 8), FLOATS + INTS_32_64), (L3_0, (1, 8), FLOATS), (L1_0, 4, FLOATS)), True), (
    ("MIN", "MAX"), ((L5_0, (1, 8), ALL_10), (L3_0, (1, 8), FLOAT_INTS_8_TO_32), (L2_1, 4, FLOAT_32_INTS),
                     (L1_0, 4, FLOATS)), True), (
    ("MULTIPLY", "SUM"), ((L5_0, (1, 8), FLOATS + INTS_32_64), (L3_0, (1, 8), FLOAT_32_INTS), (L2_1, 4, FLOAT_32_INTS),
                          (L1_0, 4, FLOATS)), True))


def _union(roles, by_value):
    """`_union_rows` as the compact rows `_op` takes."""
    return tuple((row.level, (min(t.min_dims for t in row.tensors.values()),
                              max(t.max_dims for t in row.tensors.values())),
                  {field: t.data_types for field, t in row.tensors.items()})
                 for row in _union_rows(roles, by_value))


def _spatial(field, at_least=None, of="InputTensor"):
    """A SPATIAL array attribute (Strides, Dilations, StartPadding, .., WindowSize): one UINT per spatial dimension
    of `of`, DimensionCount of them."""
    return (AttributeSpec(field, SPATIAL, of=of, count_field="DimensionCount", at_least_value=at_least),)


_ONLY_SIZES = dict(same_type=[])        # "must have the same DimensionCount and Sizes" (types differ)
_COMPARISON = dict(same_type=[("ATensor", "BTensor")])
_MIN_MAX_TYPE = AttributeSpec("MinMaxDataType", ENUM, enum=DML_TENSOR_DATA_TYPE)
_SCALAR_MIN = AttributeSpec("Min", SCALAR_UNION, type_field="MinMaxDataType")
_SCALAR_MAX = AttributeSpec("Max", SCALAR_UNION, type_field="MinMaxDataType")

_SCHEMA_LIST = [
    # -- the four seed operators (shared/seeds; data types in the pages' order) -------------------------
    _op("ELEMENT_WISE_IDENTITY", UNARY, (
        (L4_1, (1, 8), ALL_11), (L3_0, (1, 8), FLOAT_INTS_8_TO_32), (L2_1, (4, 5), FLOAT_INTS_8_TO_32),
        (L1_0, (4, 5), FLOATS)), in_place=True, scale_bias=True),
    _op("ELEMENT_WISE_THRESHOLD", UNARY, (
        (L3_0, (1, 8), FLOAT_INTS_8_TO_32), (L2_1, 4, FLOAT_INTS_8_TO_32), (L1_0, 4, FLOATS)),
        attributes=(AttributeSpec("Min"),), in_place=True, scale_bias=True),
    _op("ELEMENT_WISE_CLIP", UNARY, (
        (L5_0, (1, 8), ALL_10), (L3_0, (1, 8), FLOAT_INTS_8_TO_32),
        (L2_1, 4, FLOAT_INTS_8_TO_32), (L1_0, 4, FLOATS)),
        attributes=(AttributeSpec("Min"), AttributeSpec("Max")), in_place=True, scale_bias=True),
    _op("ELEMENT_WISE_IF", _roles("ConditionTensor", "ATensor", "BTensor", "OutputTensor"), (
        (L5_0, (1, 8), {"*": ALL_11, "ConditionTensor": ("UINT8",)}),
        (L3_0, (1, 8), {"*": FLOAT_INTS_8_TO_32, "ConditionTensor": ("UINT8",)}),
        (L2_0, 4, {"*": ("FLOAT16",), "ConditionTensor": ("UINT8",)})),
        same_type=[("ATensor", "BTensor", "OutputTensor")]),

    # -- unary with ScaleBias ----------------------------------------------------------------------------
    _op("ELEMENT_WISE_ABS", UNARY, (
        (L4_1, (1, 8), SIGNED_FLOATS_64), (L3_0, (1, 8), FLOATS + SIGNED_8_TO_32), (L2_1, 4, FLOATS + SIGNED_8_TO_32),
        (L1_0, 4, FLOATS)), in_place=True, scale_bias=True),
    *(_op("ELEMENT_WISE_" + name, UNARY, FLOAT_ONLY_FL1, in_place=True, scale_bias=True)
      for name in ("ACOS", "ASIN", "ATAN", "CEIL", "COS", "EXP", "FLOOR", "LOG", "RECIP", "SIN", "SQRT", "TAN")),
    *(_op("ELEMENT_WISE_" + name, UNARY, FLOAT_ONLY_FL2, in_place=True, scale_bias=True)
      for name in ("ERF", "SINH", "COSH", "TANH", "ASINH", "ACOSH", "ATANH")),
    _op("ELEMENT_WISE_CONSTANT_POW", UNARY, FLOAT_ONLY_FL1, attributes=(AttributeSpec("Exponent"),), in_place=True,
        scale_bias=True),
    _op("ELEMENT_WISE_CLIP1", UNARY, ((L5_0, (1, 8), ALL_10),),
        attributes=(AttributeSpec("MinMaxDataType", ENUM, enum=DML_TENSOR_DATA_TYPE, matches="OutputTensor"),
                    _SCALAR_MIN, _SCALAR_MAX), in_place=True, scale_bias=True),

    # -- unary without ScaleBias -------------------------------------------------------------------------
    _op("ELEMENT_WISE_LOGICAL_NOT", UNARY, LOGICAL, in_place=True),
    _op("ELEMENT_WISE_SIGN", UNARY, (
        (L4_1, (1, 8), ALL_10), (L3_0, (1, 8), FLOAT_INTS_8_TO_32), (L2_1, 4, FLOAT_INTS_8_TO_32), (L2_0, 4, FLOATS)),
        in_place=True),
    _op("ELEMENT_WISE_IS_NAN", UNARY, (
        (L3_0, (1, 8), {"InputTensor": FLOATS, "OutputTensor": UINT32_8}),
        (L2_0, 4, {"InputTensor": FLOATS, "OutputTensor": UINT32_8})), **_ONLY_SIZES),
    _op("ELEMENT_WISE_IS_INFINITY", UNARY, (
        (L3_0, (1, 8), {"InputTensor": FLOATS, "OutputTensor": ("UINT8",)}),
        (L2_1, 4, {"InputTensor": FLOATS, "OutputTensor": ("UINT8",)})),
        attributes=(AttributeSpec("InfinityMode", ENUM, enum=DML_IS_INFINITY_MODE),), in_place=True, **_ONLY_SIZES),
    _op("ELEMENT_WISE_ROUND", UNARY, ((L3_0, (1, 8), FLOATS), (L2_1, 4, FLOATS)),
        attributes=(AttributeSpec("RoundingMode", ENUM, enum=DML_ROUNDING_MODE),), in_place=True),
    _op("ELEMENT_WISE_BIT_NOT", UNARY, BITWISE, in_place=True),
    _op("ELEMENT_WISE_BIT_COUNT", UNARY, (
        (L4_1, (1, 8), {"InputTensor": ALL_11, "OutputTensor": UINT32_8}),
        (L3_0, (1, 8), {"InputTensor": UNSIGNED_8_TO_32, "OutputTensor": UINT32_8})), **_ONLY_SIZES),
    _op("ELEMENT_WISE_NEGATE", UNARY, ((L5_0, (1, 8), SIGNED_FLOATS_64),), in_place=True),

    # -- binary ------------------------------------------------------------------------------------------
    _op("ELEMENT_WISE_ADD", BINARY, ADD_LIKE + ((L2_1, (4, 5), FLOAT_32_INTS), (L1_0, (4, 5), FLOATS)), in_place=True),
    _op("ELEMENT_WISE_MULTIPLY", BINARY, ADD_LIKE + ((L2_1, (4, 5), FLOAT_32_INTS), (L1_0, (4, 5), FLOATS)),
        in_place=True),
    _op("ELEMENT_WISE_SUBTRACT", BINARY, ADD_LIKE + ((L2_1, 4, FLOAT_32_INTS), (L1_0, 4, FLOATS)), in_place=True),
    _op("ELEMENT_WISE_DIVIDE", BINARY, (
        (L6_0, (1, 8), ALL_10), (L5_1, (1, 8), FLOAT_INTS_8_TO_32), (L3_0, (1, 8), FLOAT_32_INTS),
        (L2_1, 4, FLOAT_32_INTS), (L1_0, 4, FLOATS)), in_place=True),
    _op("ELEMENT_WISE_ADD1", BINARY, ((L3_0, (1, 8), FLOATS), (L2_0, (4, 5), FLOATS)),
        attributes=(AttributeSpec("FusedActivation", FUSED_ACTIVATION),), in_place=True),
    _op("ELEMENT_WISE_MEAN", BINARY, ((L3_0, (1, 8), FLOAT_32_INTS), (L2_1, 4, FLOAT_32_INTS), (L1_0, 4, FLOATS)),
        in_place=True),
    _op("ELEMENT_WISE_MAX", BINARY, MIN_MAX, in_place=True),
    _op("ELEMENT_WISE_MIN", BINARY, MIN_MAX, in_place=True),
    *(_op("ELEMENT_WISE_" + name, BINARY, LOGICAL, in_place=True)
      for name in ("LOGICAL_AND", "LOGICAL_OR", "LOGICAL_XOR")),
    *(_op("ELEMENT_WISE_" + name, BINARY, COMPARISON_FL1, **_COMPARISON)
      for name in ("LOGICAL_EQUALS", "LOGICAL_GREATER_THAN", "LOGICAL_LESS_THAN")),
    *(_op("ELEMENT_WISE_" + name, BINARY, COMPARISON_FL3, **_COMPARISON)
      for name in ("LOGICAL_GREATER_THAN_OR_EQUAL", "LOGICAL_LESS_THAN_OR_EQUAL")),
    _op("ELEMENT_WISE_BIT_SHIFT_LEFT", BINARY, SHIFT, in_place=True),
    _op("ELEMENT_WISE_BIT_SHIFT_RIGHT", BINARY, SHIFT, in_place=True),
    *(_op("ELEMENT_WISE_" + name, BINARY, BITWISE, in_place=True) for name in ("BIT_AND", "BIT_OR", "BIT_XOR")),
    _op("ELEMENT_WISE_MODULUS_TRUNCATE", BINARY, MODULUS, in_place=True),
    _op("ELEMENT_WISE_MODULUS_FLOOR", BINARY, MODULUS, in_place=True),
    _op("ELEMENT_WISE_ATAN_YX", BINARY, ((L3_1, (1, 8), FLOATS),), in_place=True),
    _op("ELEMENT_WISE_DIFFERENCE_SQUARE", BINARY, ((L3_1, (1, 8), FLOAT_32_INTS),), in_place=True),
    _op("ELEMENT_WISE_POW", _roles("InputTensor", "ExponentTensor", "OutputTensor"), (
        (L3_0, (1, 8), FLOAT_INTS_8_TO_32), (L1_0, 4, FLOATS)),
        same_type=[("InputTensor", "OutputTensor")],
        # "Until DML_FEATURE_LEVEL_3_0, ExponentTensor must match the type of InputTensor."
        type_matches=(TypeMatch("ExponentTensor", "InputTensor", until=L3_0),), in_place=True, scale_bias=True),

    # -- gradients -----------------------------------------------------------------------------------------
    _op("ELEMENT_WISE_CLIP_GRAD", GRAD, ((L5_0, (1, 8), ALL_10), (L3_1, (1, 8), FLOAT_INTS_8_TO_32)),
        attributes=(AttributeSpec("Min"), AttributeSpec("Max")), in_place=True),
    _op("ELEMENT_WISE_CLIP_GRAD1", GRAD, ((L5_0, (1, 8), ALL_10),),
        attributes=(AttributeSpec("MinMaxDataType", ENUM, enum=DML_TENSOR_DATA_TYPE, matches="OutputGradientTensor"),
                    _SCALAR_MIN, _SCALAR_MAX), in_place=True),

    # -- quantization --------------------------------------------------------------------------------------
    _op("ELEMENT_WISE_QUANTIZE_LINEAR", _roles("InputTensor", "ScaleTensor", "ZeroPointTensor", "OutputTensor"), (
        (L6_2, (1, 8), {"InputTensor": FLOATS + ("INT32",), "ScaleTensor": FLOATS,
                        "ZeroPointTensor": Optional(("INT8", "UINT8")), "OutputTensor": ("INT8", "UINT8")}),
        (L6_0, (1, 8), {"InputTensor": FLOATS + ("INT32",), "ScaleTensor": FLOATS, "*": ("INT8", "UINT8")}),
        (L3_0, (1, 8), {"InputTensor": ("FLOAT32", "INT32"), "ScaleTensor": ("FLOAT32",), "*": ("INT8", "UINT8")}),
        (L2_1, 4, {"InputTensor": ("FLOAT32", "INT32"), "ScaleTensor": ("FLOAT32",), "*": ("INT8", "UINT8")}),
        (L1_0, 4, {"InputTensor": ("FLOAT32",), "ScaleTensor": ("FLOAT32",), "*": ("UINT8",)})),
        same_type=[("OutputTensor", "ZeroPointTensor")],
        # "If InputTensor is INT32, then ScaleTensor must be FLOAT32. Otherwise, ScaleTensor must have the
        # same DataType as InputTensor."
        type_matches=(TypeMatch("ScaleTensor", "InputTensor", exceptions=(("INT32", "FLOAT32"),)),)),
    _op("ELEMENT_WISE_DEQUANTIZE_LINEAR", _roles("InputTensor", "ScaleTensor", "ZeroPointTensor", "OutputTensor"), (
        (L6_2, (1, 8), {"*": INTS_8_TO_32, "ZeroPointTensor": Optional(INTS_8_TO_32), "ScaleTensor": FLOATS,
                        "OutputTensor": FLOATS}),
        (L6_0, (1, 8), {"*": INTS_8_TO_32, "ScaleTensor": FLOATS, "OutputTensor": FLOATS}),
        (L3_0, (1, 8), {"*": INTS_8_TO_32, "ScaleTensor": ("FLOAT32",), "OutputTensor": ("FLOAT32",)}),
        (L2_1, 4, {"*": INTS_8_TO_32, "ScaleTensor": ("FLOAT32",), "OutputTensor": ("FLOAT32",)}),
        (L1_0, 4, {"*": ("UINT8",), "ScaleTensor": ("FLOAT32",), "OutputTensor": ("FLOAT32",)})),
        same_type=[("InputTensor", "ZeroPointTensor"), ("OutputTensor", "ScaleTensor")]),
    _op("ELEMENT_WISE_QUANTIZED_LINEAR_ADD",
        _roles("ATensor", "AScaleTensor", "AZeroPointTensor", "BTensor", "BScaleTensor", "BZeroPointTensor",
               "OutputScaleTensor", "OutputZeroPointTensor", "OutputTensor"), (
        (L4_0, (1, 8), {"*": ("INT8", "UINT8"), "AScaleTensor": ("FLOAT32",), "BScaleTensor": ("FLOAT32",),
                        "OutputScaleTensor": ("FLOAT32",), "AZeroPointTensor": Optional(("INT8", "UINT8")),
                        "BZeroPointTensor": Optional(("INT8", "UINT8")),
                        "OutputZeroPointTensor": Optional(("INT8", "UINT8"))}),),
        same_type=[("ATensor", "AZeroPointTensor"), ("BTensor", "BZeroPointTensor"),
                   ("OutputTensor", "OutputZeroPointTensor")],
        same_sizes=[("ATensor", "BTensor", "OutputTensor")],
        same_dimension_count=(("ATensor", "AScaleTensor", "AZeroPointTensor", "BTensor", "BScaleTensor",
                               "BZeroPointTensor", "OutputScaleTensor", "OutputZeroPointTensor", "OutputTensor"),),
        # "The expected number of elements in AScaleTensor is 1." (and for each scale / zero point)
        single_element=("AScaleTensor", "AZeroPointTensor", "BScaleTensor", "BZeroPointTensor",
                        "OutputScaleTensor", "OutputZeroPointTensor")),

    # -- activations ---------------------------------------------------------------------------------------
    *(_op("ACTIVATION_" + name, UNARY, ACTIVATION_FL1, attributes=attributes, in_place=True) for name, attributes in (
        ("ELU", (ALPHA,)), ("HARD_SIGMOID", (ALPHA, BETA)), ("IDENTITY", ()), ("LEAKY_RELU", (ALPHA,)),
        ("LINEAR", (ALPHA, BETA)), ("PARAMETRIC_SOFTPLUS", (ALPHA, BETA)),
        ("SCALED_ELU", (ALPHA, AttributeSpec("Gamma"))), ("SCALED_TANH", (ALPHA, BETA)), ("SIGMOID", ()),
        ("SOFTSIGN", ()), ("TANH", ()), ("THRESHOLDED_RELU", (ALPHA,)),
        # "This value cannot be less than 1." (the SOFTPLUS page); DML_FEATURE_LEVEL_6_4 "Updated
        # DML_OPERATOR_ACTIVATION_SOFTPLUS to allow Steepness < 1" (dml-feature-level-history).
        ("SOFTPLUS", (AttributeSpec("Steepness", at_least=1.0, at_least_until=L6_4),)))),
    _op("ACTIVATION_CELU", UNARY, ((L3_0, (1, 8), FLOATS),), attributes=(ALPHA,), in_place=True),
    _op("ACTIVATION_GELU", UNARY, ((L5_1, (1, 8), FLOATS),)),
    _op("ACTIVATION_HARD_SWISH", UNARY, ((L6_2, (1, 8), FLOATS),), attributes=(ALPHA, BETA), in_place=True),
    _op("ACTIVATION_SWISH", UNARY, ((L6_2, (1, 8), FLOATS),), attributes=(AttributeSpec("SigmoidInputScale"),),
        in_place=True),
    _op("ACTIVATION_RELU", UNARY, RELU_LIKE, in_place=True),
    _op("ACTIVATION_PARAMETERIZED_RELU", _roles("InputTensor", "SlopeTensor", "OutputTensor"), RELU_LIKE,
        in_place=True),
    _op("ACTIVATION_SHRINK", UNARY, (
        (L5_1, (1, 8), FLOAT_INTS_8_TO_32), (L3_0, (1, 8), FLOATS), (L2_0, (4, 5), FLOATS)),
        attributes=(AttributeSpec("Bias"), AttributeSpec("Threshold")), in_place=True),
    _op("ACTIVATION_RELU_GRAD", GRAD, (
        (L5_1, (1, 8), FLOATS + SIGNED_8_TO_32), (L4_0, (1, 8), FLOATS), (L3_0, (1, 8), FLOATS))),

    # -- reductions ------------------------------------------------------------------------------------------
    _op("REDUCE", UNARY, _union(UNARY, REDUCE_SUPPORT), same_type=[], same_sizes=[],
        same_dimension_count=(("InputTensor", "OutputTensor"),),
        attributes=(AttributeSpec("Function", ENUM, enum=_enums.DML_REDUCE_FUNCTION),
                    AttributeSpec("Axes", AXES, of="InputTensor", count_field="AxisCount")),
        leading=("Function",), support_by=REDUCE_SUPPORT, reduces=("InputTensor", "OutputTensor", "Axes")),
    # DML_ARGMIN_OPERATOR_DESC, DML_ARGMAX_OPERATOR_DESC (FL3_0): "InputTensor and OutputTensor must have the same
    # DimensionCount"; AxisDirection picks the first (INCREASING) or last (DECREASING) index of equal values.
    *(_op(name, UNARY, ((L3_0, (1, 8), {"InputTensor": FLOAT_INTS_8_TO_32, "OutputTensor": INTS_32_64}),),
          same_type=[], same_sizes=[], same_dimension_count=(("InputTensor", "OutputTensor"),),
          attributes=(AttributeSpec("Axes", AXES, of="InputTensor", count_field="AxisCount"),
                      AttributeSpec("AxisDirection", ENUM, enum=_enums.DML_AXIS_DIRECTION)),
          reduces=("InputTensor", "OutputTensor", "Axes"))
      for name in ("ARGMIN", "ARGMAX")),

    # -- softmax, log-softmax, hardmax: one reduction and one element-wise pass (kernels/softmax_ops.py) ---------
    # DML_ACTIVATION_SOFTMAX / LOG_SOFTMAX / HARDMAX_OPERATOR_DESC (FL1_0): "This tensor must have an effective
    # rank no greater than 2. The effective rank of a tensor is the DimensionCount of the tensor, excluding
    # leftmost dimensions of size 1": each row (the last dimension) is normalized; the support rows are the
    # activations' (4; 4 to 5 from FL2_0; 1 to 8 from FL3_0; FLOAT32, FLOAT16). The `1` forms
    # (DML_ACTIVATION_SOFTMAX1 ... _OPERATOR_DESC, FL5_1, windows-ai-docs) normalize over any Axes ("Values must
    # be in the range [0, InputTensor.DimensionCount - 1]"), 1 to 8 dimensions, FLOAT32 and FLOAT16.
    *(_op("ACTIVATION_" + name, UNARY, ACTIVATION_FL1, effective_rank=("InputTensor", 2))
      for name in ("SOFTMAX", "LOG_SOFTMAX", "HARDMAX")),
    *(_op("ACTIVATION_" + name + "1", UNARY, ((L5_1, (1, 8), FLOATS),),
          attributes=(AttributeSpec("Axes", AXES, of="InputTensor", count_field="AxisCount"),))
      for name in ("SOFTMAX", "LOG_SOFTMAX", "HARDMAX")),

    # -- cumulative scans (kernels/scan_ops.py) ---------------------------------------------------------------
    # DML_CUMULATIVE_SUMMATION_OPERATOR_DESC (FL2_1) and DML_CUMULATIVE_PRODUCT_OPERATOR_DESC (FL3_1): "Axis ...
    # must be less than the DimensionCount of the InputTensor"; AxisDirection; HasExclusiveSum / Product; the same
    # DataType, DimensionCount and Sizes; in-place execution. Rows: 4 dimensions (FLOAT32, FLOAT16, INT32,
    # UINT32); 1 to 8 from FL4_0; the 64-bit integers from FL5_0.
    *(_op("CUMULATIVE_" + name, UNARY, (
        (L5_0, (1, 8), ("FLOAT32", "FLOAT16", "INT64", "INT32", "UINT64", "UINT32")),
        (L4_0, (1, 8), FLOAT_32_INTS), (first, 4, FLOAT_32_INTS)),
        attributes=(AttributeSpec("Axis", UINT, of="InputTensor"),
                    AttributeSpec("AxisDirection", ENUM, enum=_enums.DML_AXIS_DIRECTION),
                    AttributeSpec(exclusive, BOOL)), in_place=True)
      for name, first, exclusive in (("SUMMATION", L2_1, "HasExclusiveSum"), ("PRODUCT", L3_1, "HasExclusiveProduct"))),

    # -- top-K selection (kernels/top_k_ops.py) -----------------------------------------------------------------
    # DML_TOP_K_OPERATOR_DESC (sdk-api ns-directml-dml_top_k_operator_desc) and DML_TOP_K1_OPERATOR_DESC (FL2_1,
    # ns-directml-dml_top_k1_operator_desc): "InputTensor, OutputIndexTensor, and OutputValueTensor must have the same
    # DimensionCount", "InputTensor and OutputValueTensor must have the same DataType"; each output has the input's
    # Sizes but K along Axis (the `shapes` rule TOP_K); "Axis ... must be less than the DimensionCount";
    # "K must be greater than 0". Rows: TOP_K's page (4 dimensions, FLOAT32 / FLOAT16 at FL2_0, the 8- to 32-bit
    # integers from FL2_1, 1 to 8 dimensions from FL3_1, the 64-bit integers and UINT64 indices from FL5_0); its
    # page says FL2_0 but DirectML.h places TOP_K (71) in FL1_0, so the FL2_0 row applies from FL1_0. TOP_K1's
    # stored page stops at FL3_1; it takes TOP_K's FL5_0 row too, an assumption (docs/DEVIATIONS.md, "Top-K").
    *(_op(name, (TensorRole("InputTensor"), TensorRole("OutputValueTensor", is_output=True),
                 TensorRole("OutputIndexTensor", is_output=True)), (
        (L5_0, (1, 8), {"*": ALL_10, "OutputIndexTensor": ("UINT64", "UINT32")}),
        (L3_1, (1, 8), {"*": FLOAT_INTS_8_TO_32, "OutputIndexTensor": ("UINT32",)}),
        (L2_1, 4, {"*": FLOAT_INTS_8_TO_32, "OutputIndexTensor": ("UINT32",)})) + tail,
        same_type=[("InputTensor", "OutputValueTensor")], same_sizes=[("OutputValueTensor", "OutputIndexTensor")],
        same_dimension_count=(("InputTensor", "OutputValueTensor", "OutputIndexTensor"),),
        attributes=(AttributeSpec("Axis", UINT, of="InputTensor"), AttributeSpec("K", UINT, at_least_value=1))
        + extra, shapes="TOP_K")
      for name, tail, extra in (
          ("TOP_K", ((L1_0, 4, {"*": FLOATS, "OutputIndexTensor": ("UINT32",)}),), ()),
          ("TOP_K1", (), (AttributeSpec("AxisDirection", ENUM, enum=_enums.DML_AXIS_DIRECTION),)))),

    # -- matrix multiplication ------------------------------------------------------------------------------
    # DML_GEMM_OPERATOR_DESC (sdk-api ns-directml-dml_gemm_operator_desc): "ATensor, BTensor, CTensor and
    # OutputTensor must have the same DataType and DimensionCount"; FLOAT32 and FLOAT16, 4 dimensions from
    # DML_FEATURE_LEVEL_1_0 and 2 to 4 from DML_FEATURE_LEVEL_4_0; CTensor optional (values 0 when absent). The
    # shapes ({.., M, K} x {.., K, N} = {.., M, N}, TransA / TransB swapping the last two sizes, C's Sizes the
    # output's: DirectML broadcasts C and the batch dimensions through stride 0) are `multiplies`.
    _op("GEMM", _roles("ATensor", "BTensor", "CTensor", "OutputTensor"), (
        (L4_0, (2, 4), {"*": FLOATS, "CTensor": Optional(FLOATS)}), (L1_0, 4, {"*": FLOATS, "CTensor": Optional(FLOATS)})),
        same_sizes=[], same_dimension_count=(("ATensor", "BTensor", "CTensor", "OutputTensor"),),
        attributes=(AttributeSpec("TransA", ENUM, enum=_enums.DML_MATRIX_TRANSFORM),
                    AttributeSpec("TransB", ENUM, enum=_enums.DML_MATRIX_TRANSFORM),
                    ALPHA, BETA, AttributeSpec("FusedActivation", FUSED_ACTIVATION)),
        multiplies=("ATensor", "BTensor", "CTensor", "OutputTensor", "TransA", "TransB")),
    # DML_MATRIX_MULTIPLY_INTEGER_OPERATOR_DESC (sdk-api ns-directml-dml_matrix_multiply_integer_operator_desc):
    # {BatchCount, ChannelCount, M, K} x {.., K, N} = {.., M, N}; AZeroPointTensor {1,1,1,1} (per tensor) or
    # {1,1,M,1} (per row), BZeroPointTensor {1,1,1,1} or {1,1,1,N} (per column); "ATensor, BTensor and
    # OutputTensor must have the same DimensionCount"; "ATensor and AZeroPointTensor must have the same DataType"
    # (B and BZeroPointTensor likewise); INT8 / UINT8 in, INT32 out; 4 dimensions from DML_FEATURE_LEVEL_2_1,
    # 2 to 4 from DML_FEATURE_LEVEL_4_0 (the zero points' shapes: quantized_shapes.py).
    _op("MATRIX_MULTIPLY_INTEGER", _roles("ATensor", "AZeroPointTensor", "BTensor", "BZeroPointTensor", "OutputTensor"), (
        (L4_0, (2, 4), {"*": ("INT8", "UINT8"), "AZeroPointTensor": Optional(("INT8", "UINT8")),
                        "BZeroPointTensor": Optional(("INT8", "UINT8")), "OutputTensor": ("INT32",)}),
        (L2_1, 4, {"*": ("INT8", "UINT8"), "AZeroPointTensor": Optional(("INT8", "UINT8")),
                   "BZeroPointTensor": Optional(("INT8", "UINT8")), "OutputTensor": ("INT32",)})),
        same_type=[("ATensor", "AZeroPointTensor"), ("BTensor", "BZeroPointTensor")], same_sizes=[],
        same_dimension_count=(("ATensor", "AZeroPointTensor", "BTensor", "BZeroPointTensor", "OutputTensor"),),
        multiplies=("ATensor", "BTensor", None, "OutputTensor", None, None), shapes="MATRIX_MULTIPLY_INTEGER"),
    # DML_QUANTIZED_LINEAR_MATRIX_MULTIPLY_OPERATOR_DESC (sdk-api
    # ns-directml-dml_quantized_linear_matrix_multiply_operator_desc): "mathematically equivalent to dequantizing
    # the inputs, then performing matrix multiply, and then quantizing the output" (Dequantize (Input - ZeroPoint)
    # * Scale, Quantize clamp(round(Input / Scale) + ZeroPoint, Min, Max)); AScale / AZeroPoint {1,1,1,1} or
    # {1,1,M,1}, BScale / BZeroPoint {1,1,1,1} or {1,1,1,N}, OutputScale / OutputZeroPoint {1,1,1,1} or {1,1,M,1};
    # scales FLOAT32, the rest INT8 / UINT8, each zero point its tensor's DataType; 4 dimensions from
    # DML_FEATURE_LEVEL_2_1, 2 to 4 from DML_FEATURE_LEVEL_4_0.
    _op("QUANTIZED_LINEAR_MATRIX_MULTIPLY",
        _roles("ATensor", "AScaleTensor", "AZeroPointTensor", "BTensor", "BScaleTensor", "BZeroPointTensor",
               "OutputScaleTensor", "OutputZeroPointTensor", "OutputTensor"), tuple(
        (level, dims, {"*": ("INT8", "UINT8"), "AScaleTensor": ("FLOAT32",), "BScaleTensor": ("FLOAT32",),
                       "OutputScaleTensor": ("FLOAT32",), "AZeroPointTensor": Optional(("INT8", "UINT8")),
                       "BZeroPointTensor": Optional(("INT8", "UINT8")),
                       "OutputZeroPointTensor": Optional(("INT8", "UINT8"))}) for level, dims in ((L4_0, (2, 4)), (L2_1, 4))),
        same_type=[("ATensor", "AZeroPointTensor"), ("BTensor", "BZeroPointTensor"),
                   ("OutputTensor", "OutputZeroPointTensor")], same_sizes=[],
        same_dimension_count=(("ATensor", "AScaleTensor", "AZeroPointTensor", "BTensor", "BScaleTensor",
                               "BZeroPointTensor", "OutputScaleTensor", "OutputZeroPointTensor", "OutputTensor"),),
        multiplies=("ATensor", "BTensor", None, "OutputTensor", None, None),
        shapes="QUANTIZED_LINEAR_MATRIX_MULTIPLY"),
    # DML_MATRIX_MULTIPLY_INTEGER_TO_FLOAT_OPERATOR_DESC (windows/ai/directml/api
    # ns-directml-dml_matrix_multiply_integer_to_float_operator_desc; DirectML 1.13): the integer product of A and B
    # less their zero points, dequantized with AScale (one value or {1,1,M,1}) and BScale (one value or {1,1,1,N}),
    # plus an optional BiasTensor; INT8 / UINT8 A and B, FLOAT32 / FLOAT16 scales, bias and output (dmlemu: the
    # scales and bias of the output's DataType), 2 to 4 dimensions, DML_FEATURE_LEVEL_6_2.
    _op("MATRIX_MULTIPLY_INTEGER_TO_FLOAT",
        _roles("ATensor", "AScaleTensor", "AZeroPointTensor", "BTensor", "BScaleTensor", "BZeroPointTensor",
               "BiasTensor", "OutputTensor"), (
        (L6_2, (2, 4), {"*": ("INT8", "UINT8"), "AScaleTensor": FLOATS, "BScaleTensor": FLOATS,
                        "AZeroPointTensor": Optional(("INT8", "UINT8")), "BZeroPointTensor": Optional(("INT8", "UINT8")),
                        "BiasTensor": Optional(FLOATS), "OutputTensor": FLOATS}),),
        same_type=[("ATensor", "AZeroPointTensor"), ("BTensor", "BZeroPointTensor"),
                   ("AScaleTensor", "BScaleTensor", "BiasTensor", "OutputTensor")], same_sizes=[],
        same_dimension_count=(("ATensor", "AScaleTensor", "AZeroPointTensor", "BTensor", "BScaleTensor",
                               "BZeroPointTensor", "BiasTensor", "OutputTensor"),),
        multiplies=("ATensor", "BTensor", None, "OutputTensor", None, None),
        shapes="MATRIX_MULTIPLY_INTEGER_TO_FLOAT"),

    # -- normalization -------------------------------------------------------------------------------------
    # DML_MEAN_VARIANCE_NORMALIZATION1_OPERATOR_DESC (sdk-api ns-directml-dml_mean_variance_normalization1_operator_desc):
    # "BiasTensor, InputTensor, OutputTensor, and ScaleTensor must have the same DataType and DimensionCount";
    # Scale and Bias optional, each dimension the input's or 1 (broadcast); below DML_FEATURE_LEVEL_5_2 "This tensor
    # is required if the BiasTensor is used" (and the reverse); the output has the input's Sizes.
    _op("MEAN_VARIANCE_NORMALIZATION1", _roles("InputTensor", "ScaleTensor", "BiasTensor", "OutputTensor"), (
        (L3_1, (1, 8), {"*": FLOATS, "ScaleTensor": Optional(FLOATS), "BiasTensor": Optional(FLOATS)}),
        (L2_1, 4, {"*": FLOATS, "ScaleTensor": Optional(FLOATS), "BiasTensor": Optional(FLOATS)})),
        same_sizes=[("InputTensor", "OutputTensor")],
        same_dimension_count=(("InputTensor", "ScaleTensor", "BiasTensor", "OutputTensor"),),
        attributes=(AttributeSpec("Axes", AXES, of="InputTensor", count_field="AxisCount"),
                    AttributeSpec("NormalizeVariance", BOOL), AttributeSpec("Epsilon"),
                    AttributeSpec("FusedActivation", FUSED_ACTIVATION)),
        normalizes=("InputTensor", "ScaleTensor", "BiasTensor")),
    # DML_MEAN_VARIANCE_NORMALIZATION2_OPERATOR_DESC (DirectML.h's `DML_TARGET_VERSION >= 0x6300` block, so FL6_3;
    # its windows-ai-docs page says "TBD" but repeats MVN1's member texts): MVN1 with NormalizeVariance split into
    # UseMean and UseVariance (ONNX Runtime's DirectML provider runs SimplifiedLayerNormalization, RMS
    # normalization, with UseMean FALSE). The support row is MVN1's newest (1 to 8 dimensions, FLOAT32 and FLOAT16,
    # Scale and Bias optional and independent, as the page's FL5_2 sentence says); docs/DEVIATIONS.md.
    _op("MEAN_VARIANCE_NORMALIZATION2", _roles("InputTensor", "ScaleTensor", "BiasTensor", "OutputTensor"), (
        (_enums.DML_FEATURE_LEVEL_6_3, (1, 8), {"*": FLOATS, "ScaleTensor": Optional(FLOATS),
                                            "BiasTensor": Optional(FLOATS)}),),
        same_sizes=[("InputTensor", "OutputTensor")],
        same_dimension_count=(("InputTensor", "ScaleTensor", "BiasTensor", "OutputTensor"),),
        attributes=(AttributeSpec("Axes", AXES, of="InputTensor", count_field="AxisCount"),
                    AttributeSpec("UseMean", BOOL), AttributeSpec("UseVariance", BOOL), AttributeSpec("Epsilon"),
                    AttributeSpec("FusedActivation", FUSED_ACTIVATION)),
        normalizes=("InputTensor", "ScaleTensor", "BiasTensor")),
    # DML_MEAN_VARIANCE_NORMALIZATION_OPERATOR_DESC (FL1_0; sdk-api ns-directml-dml_mean_variance_normalization_
    # operator_desc): { BatchCount, ChannelCount, Height, Width } tensors; CrossChannel TRUE normalizes across
    # {ChannelCount, Height, Width}, FALSE across {Height, Width}, each channel on its own.
    _op("MEAN_VARIANCE_NORMALIZATION", _roles("InputTensor", "ScaleTensor", "BiasTensor", "OutputTensor"), (
        (L1_0, 4, {"*": FLOATS, "ScaleTensor": Optional(FLOATS), "BiasTensor": Optional(FLOATS)}),),
        same_sizes=[("InputTensor", "OutputTensor")],
        same_dimension_count=(("InputTensor", "ScaleTensor", "BiasTensor", "OutputTensor"),),
        attributes=(AttributeSpec("CrossChannel", BOOL), AttributeSpec("NormalizeVariance", BOOL),
                    AttributeSpec("Epsilon"), AttributeSpec("FusedActivation", FUSED_ACTIVATION)),
        normalizes=("InputTensor", "ScaleTensor", "BiasTensor")),

    # DML_BATCH_NORMALIZATION_OPERATOR_DESC (FL1_0; sdk-api ns-directml-dml_batch_normalization_operator_desc): "Any
    # dimension in MeanTensor, VarianceTensor, ScaleTensor, and BiasTensor can be set to 1, and be automatically
    # broadcast to match InputTensor"; every tensor the same DataType and DimensionCount; Input and Output the same
    # Sizes; 1 to 8 dimensions from DML_FEATURE_LEVEL_3_1 (4 below). Spatial "was deprecated in
    # DML_FEATURE_LEVEL_4_0, and has no effect" (FALSE below it: Mean's and Variance's Height and Width not broadcast).
    _op("BATCH_NORMALIZATION", _roles("InputTensor", "MeanTensor", "VarianceTensor", "ScaleTensor", "BiasTensor",
                                      "OutputTensor"), ((L3_1, (1, 8), FLOATS), (L1_0, 4, FLOATS)),
        same_sizes=[("InputTensor", "OutputTensor")],
        same_dimension_count=(("InputTensor", "MeanTensor", "VarianceTensor", "ScaleTensor", "BiasTensor",
                               "OutputTensor"),),
        attributes=(AttributeSpec("Spatial", BOOL), AttributeSpec("Epsilon"),
                    AttributeSpec("FusedActivation", FUSED_ACTIVATION)),
        normalizes=("InputTensor", "MeanTensor", "VarianceTensor", "ScaleTensor", "BiasTensor")),

    # DML_BATCH_NORMALIZATION_TRAINING_OPERATOR_DESC (FL4_1; sdk-api ns-directml-dml_batch_normalization_training_
    # operator_desc): Output = FusedActivation(Scale * ((Input - Mean) / sqrt(Variance + Epsilon)) + Bias + FusedAdd),
    # "MeanTensor and VarianceTensor are computed on the input across the set of dimensions for which ScaleTensor and
    # BiasTensor sizes equal one" and written to OutputMeanTensor and OutputVarianceTensor; every tensor the same
    # DataType and DimensionCount; Bias, OutputMean, OutputVariance and Scale the same Sizes; FusedAdd, Input and
    # Output the same Sizes.
    _op("BATCH_NORMALIZATION_TRAINING", tuple(TensorRole(f, is_output=f.startswith("Output")) for f in (
        "InputTensor", "ScaleTensor", "BiasTensor", "FusedAddTensor", "OutputTensor", "OutputMeanTensor",
        "OutputVarianceTensor")), ((L4_1, (1, 8), {"*": FLOATS, "FusedAddTensor": Optional(FLOATS)}),),
        same_sizes=[("BiasTensor", "OutputMeanTensor", "OutputVarianceTensor", "ScaleTensor"),
                    ("FusedAddTensor", "InputTensor", "OutputTensor")],
        same_dimension_count=(("InputTensor", "ScaleTensor", "BiasTensor", "FusedAddTensor", "OutputTensor",
                               "OutputMeanTensor", "OutputVarianceTensor"),),
        attributes=(AttributeSpec("Epsilon"), AttributeSpec("FusedActivation", FUSED_ACTIVATION)),
        normalizes=("InputTensor", "ScaleTensor", "BiasTensor")),
    # DML_LP_NORMALIZATION_OPERATOR_DESC (FL1_0; sdk-api ns-directml-dml_lp_normalization_operator_desc): "InputTensor
    # and OutputTensor must have the same DataType, DimensionCount and Sizes"; Axis "The axis on which to apply
    # normalization"; P "The order of the normalization (either 1 or 2)".
    _op("LP_NORMALIZATION", UNARY, ((L3_1, (1, 8), FLOATS), (L1_0, 4, FLOATS)),
        attributes=(AttributeSpec("Axis", UINT, of="InputTensor"), AttributeSpec("Epsilon"),
                    AttributeSpec("P", UINT, one_of=(1, 2)))),

    # DML_LOCAL_RESPONSE_NORMALIZATION_OPERATOR_DESC (FL1_0; sdk-api ns-directml-dml_local_response_normalization_
    # operator_desc): Output = Input / (Bias + (Alpha / LocalSize) * sum(Input^2 for every Input in the local
    # region))^Beta; { BatchCount, ChannelCount, Height, Width }; "InputTensor and OutputTensor must have the same
    # DataType and Sizes"; LocalSize "must be at least 1".
    _op("LOCAL_RESPONSE_NORMALIZATION", UNARY, ((L1_0, 4, FLOATS),),
        attributes=(AttributeSpec("CrossChannel", BOOL), AttributeSpec("LocalSize", UINT, at_least=1),
                    AttributeSpec("Alpha"), AttributeSpec("Beta"), AttributeSpec("Bias"))),
    # -- convolution -----------------------------------------------------------------------------------------
    # DML_CONVOLUTION_OPERATOR_DESC (sdk-api ns-directml-dml_convolution_operator_desc): "BiasTensor, FilterTensor,
    # InputTensor, and OutputTensor must have the same DataType and DimensionCount"; FLOAT32 and FLOAT16, 4 to 5
    # dimensions from DML_FEATURE_LEVEL_1_0 and 3 to 5 from DML_FEATURE_LEVEL_4_0; BiasTensor optional.
    # DimensionCount (the spatial dimensions, InputTensor's DimensionCount - 2) sizes the five arrays; the shapes
    # (the filter's channels per group, the output's spatial sizes from the arrays, the bias { 1, K, 1, .. }) are
    # `convolves`.
    _op("CONVOLUTION", _roles("InputTensor", "FilterTensor", "BiasTensor", "OutputTensor"), (
        (L4_0, (3, 5), {"*": FLOATS, "BiasTensor": Optional(FLOATS)}),
        (L1_0, (4, 5), {"*": FLOATS, "BiasTensor": Optional(FLOATS)})),
        same_sizes=[], same_dimension_count=(("InputTensor", "FilterTensor", "BiasTensor", "OutputTensor"),),
        attributes=(AttributeSpec("Mode", ENUM, enum=_enums.DML_CONVOLUTION_MODE),
                    AttributeSpec("Direction", ENUM, enum=_enums.DML_CONVOLUTION_DIRECTION),
                    *_spatial("Strides", 1), *_spatial("Dilations", 1), *_spatial("StartPadding"),
                    *_spatial("EndPadding"), *_spatial("OutputPadding"),
                    AttributeSpec("GroupCount", UINT, at_least_value=1),
                    AttributeSpec("FusedActivation", FUSED_ACTIVATION)),
        convolves=("InputTensor", "FilterTensor", "BiasTensor", "OutputTensor")),
    # DML_CONVOLUTION_INTEGER_OPERATOR_DESC (sdk-api ns-directml-dml_convolution_integer_operator_desc): CONVOLUTION's
    # shapes (cross-correlation, FORWARD, no bias) on INT8 / UINT8 input and filter, each less its optional zero
    # point (InputZeroPointTensor one value; FilterZeroPointTensor one value or one per output channel
    # {1,K,1,1}), INT32 output; "InputTensor and InputZeroPointTensor must have the same DataType" (the filter
    # likewise); 4 dimensions (2-D), DML_FEATURE_LEVEL_2_1 (dmlemu admits the 4-dimensional row only).
    _op("CONVOLUTION_INTEGER", _roles("InputTensor", "InputZeroPointTensor", "FilterTensor", "FilterZeroPointTensor",
                                      "OutputTensor"), (
        (L2_1, 4, {"*": ("INT8", "UINT8"), "InputZeroPointTensor": Optional(("INT8", "UINT8")),
                   "FilterZeroPointTensor": Optional(("INT8", "UINT8")), "OutputTensor": ("INT32",)}),),
        same_type=[("InputTensor", "InputZeroPointTensor"), ("FilterTensor", "FilterZeroPointTensor")], same_sizes=[],
        same_dimension_count=(("InputTensor", "InputZeroPointTensor", "FilterTensor", "FilterZeroPointTensor",
                               "OutputTensor"),),
        attributes=(*_spatial("Strides", 1), *_spatial("Dilations", 1), *_spatial("StartPadding"),
                    *_spatial("EndPadding"), AttributeSpec("GroupCount", UINT, at_least_value=1)),
        convolves=("InputTensor", "FilterTensor", None, "OutputTensor"), shapes="CONVOLUTION_INTEGER"),
    # DML_QUANTIZED_LINEAR_CONVOLUTION_OPERATOR_DESC (sdk-api ns-directml-dml_quantized_linear_convolution_operator_desc):
    # CONVOLUTION_INTEGER's sums plus an optional INT32 BiasTensor {1,K,1,1}, requantized with OutputScale /
    # OutputZeroPoint; Input and Output scales and zero points one value, the filter's one value or one per output
    # channel; scales FLOAT32, each zero point its tensor's DataType; 4 dimensions, DML_FEATURE_LEVEL_2_1.
    _op("QUANTIZED_LINEAR_CONVOLUTION",
        _roles("InputTensor", "InputScaleTensor", "InputZeroPointTensor", "FilterTensor", "FilterScaleTensor",
               "FilterZeroPointTensor", "BiasTensor", "OutputScaleTensor", "OutputZeroPointTensor", "OutputTensor"), (
        (L2_1, 4, {"*": ("INT8", "UINT8"), "InputScaleTensor": ("FLOAT32",), "FilterScaleTensor": ("FLOAT32",),
                   "OutputScaleTensor": ("FLOAT32",), "BiasTensor": Optional(("INT32",)),
                   "InputZeroPointTensor": Optional(("INT8", "UINT8")),
                   "FilterZeroPointTensor": Optional(("INT8", "UINT8")),
                   "OutputZeroPointTensor": Optional(("INT8", "UINT8"))}),),
        same_type=[("InputTensor", "InputZeroPointTensor"), ("FilterTensor", "FilterZeroPointTensor"),
                   ("OutputTensor", "OutputZeroPointTensor")], same_sizes=[],
        same_dimension_count=(("InputTensor", "InputScaleTensor", "InputZeroPointTensor", "FilterTensor",
                               "FilterScaleTensor", "FilterZeroPointTensor", "BiasTensor", "OutputScaleTensor",
                               "OutputZeroPointTensor", "OutputTensor"),),
        attributes=(*_spatial("Strides", 1), *_spatial("Dilations", 1), *_spatial("StartPadding"),
                    *_spatial("EndPadding"), AttributeSpec("GroupCount", UINT, at_least_value=1)),
        convolves=("InputTensor", "FilterTensor", "BiasTensor", "OutputTensor"),
        shapes="QUANTIZED_LINEAR_CONVOLUTION"),

    # -- pooling -----------------------------------------------------------------------------------------------
    # DML_AVERAGE_POOLING_OPERATOR_DESC, DML_MAX_POOLING_OPERATOR_DESC (sdk-api), DML_AVERAGE_POOLING1_OPERATOR_DESC
    # (windows-ai-docs, DML_FEATURE_LEVEL_6_2: Dilations): "InputTensor and OutputTensor must have the same DataType
    # and DimensionCount"; 4 to 5 dimensions (AVERAGE_POOLING1's rows are AVERAGE_POOLING's: its own table was not
    # in reach); MAX_POOLING adds INT8 and UINT8 from DML_FEATURE_LEVEL_3_0 (as MAX_POOLING2's table). The output's
    # spatial sizes come from the arrays (`pools`).
    _op("AVERAGE_POOLING", UNARY, ((L1_0, (4, 5), FLOATS),), same_sizes=[],
        same_dimension_count=(("InputTensor", "OutputTensor"),),
        attributes=(*_spatial("Strides", 1), *_spatial("WindowSize", 1), *_spatial("StartPadding"),
                    *_spatial("EndPadding"), AttributeSpec("IncludePadding", BOOL)),
        pools=("InputTensor", "OutputTensor", None)),
    _op("AVERAGE_POOLING1", UNARY, ((L6_2, (4, 5), FLOATS),), same_sizes=[],
        same_dimension_count=(("InputTensor", "OutputTensor"),),
        attributes=(*_spatial("Strides", 1), *_spatial("WindowSize", 1), *_spatial("StartPadding"),
                    *_spatial("EndPadding"), *_spatial("Dilations", 1), AttributeSpec("IncludePadding", BOOL)),
        pools=("InputTensor", "OutputTensor", None)),
    # DML_LP_POOLING_OPERATOR_DESC (sdk-api; LP_POOLING1, DML_FEATURE_LEVEL_6_2, adds Dilations): FLOAT32, FLOAT16, 4 to
    # 5 dimensions; P a UINT ("In common use cases, this value is either set to 1 or 2"), at least 1 (dmlemu's rule).
    _op("LP_POOLING", UNARY, ((L1_0, (4, 5), FLOATS),), same_sizes=[],
        same_dimension_count=(("InputTensor", "OutputTensor"),),
        attributes=(*_spatial("Strides", 1), *_spatial("WindowSize", 1), *_spatial("StartPadding"),
                    *_spatial("EndPadding"), AttributeSpec("P", UINT, at_least_value=1)),
        pools=("InputTensor", "OutputTensor", None)),
    _op("LP_POOLING1", UNARY, ((L6_2, (4, 5), FLOATS),), same_sizes=[],
        same_dimension_count=(("InputTensor", "OutputTensor"),),
        attributes=(*_spatial("Strides", 1), *_spatial("WindowSize", 1), *_spatial("StartPadding"),
                    *_spatial("EndPadding"), *_spatial("Dilations", 1), AttributeSpec("P", UINT, at_least_value=1)),
        pools=("InputTensor", "OutputTensor", None)),
    _op("MAX_POOLING", UNARY, ((L3_0, (4, 5), FLOATS + ("INT8", "UINT8")), (L1_0, (4, 5), FLOATS)), same_sizes=[],
        same_dimension_count=(("InputTensor", "OutputTensor"),),
        attributes=(*_spatial("Strides", 1), *_spatial("WindowSize", 1), *_spatial("StartPadding"),
                    *_spatial("EndPadding")),
        pools=("InputTensor", "OutputTensor", None)),
    # DML_MAX_POOLING1_OPERATOR_DESC (sdk-api ns-directml-dml_max_pooling1_operator_desc, DML_FEATURE_LEVEL_2_0) and
    # DML_MAX_POOLING2_OPERATOR_DESC (ns-directml-dml_max_pooling2_operator_desc, DML_FEATURE_LEVEL_2_1, adds
    # Dilations): "InputTensor, OutputIndicesTensor, and OutputTensor must have the same DimensionCount"; "InputTensor
    # and OutputTensor must have the same DataType"; OutputIndicesTensor an "Optional output" with the output's Sizes
    # ("Both the OutputTensor and OutputIndicesTensor have the same tensor sizes"), its values flat indices into the
    # input "as a contiguous one-dimensional array", the first of equal values. MAX_POOLING2's page has no
    # DML_FEATURE_LEVEL_5_0 row (no 64-bit types, UINT32 indices only).
    _op("MAX_POOLING1", _MAX_POOLING_ROLES, (
        (L5_0, (4, 5), {"*": ALL_10, "OutputIndicesTensor": Optional(("UINT64", "UINT32"))}),
        (L3_0, (4, 5), {"*": FLOATS + ("INT8", "UINT8"), "OutputIndicesTensor": Optional(("UINT32",))}),
        (L2_0, (4, 5), {"*": FLOATS, "OutputIndicesTensor": Optional(("UINT32",))})),
        same_type=[("InputTensor", "OutputTensor")], same_sizes=[],
        same_dimension_count=(("InputTensor", "OutputTensor", "OutputIndicesTensor"),),
        attributes=(*_spatial("Strides", 1), *_spatial("WindowSize", 1), *_spatial("StartPadding"),
                    *_spatial("EndPadding")),
        pools=("InputTensor", "OutputTensor", "OutputIndicesTensor")),
    _op("MAX_POOLING2", _MAX_POOLING_ROLES, (
        (L3_0, (4, 5), {"*": FLOATS + ("INT8", "UINT8"), "OutputIndicesTensor": Optional(("UINT32",))}),
        (L2_1, (4, 5), {"*": FLOATS, "OutputIndicesTensor": Optional(("UINT32",))})),
        same_type=[("InputTensor", "OutputTensor")], same_sizes=[],
        same_dimension_count=(("InputTensor", "OutputTensor", "OutputIndicesTensor"),),
        attributes=(*_spatial("Strides", 1), *_spatial("WindowSize", 1), *_spatial("StartPadding"),
                    *_spatial("EndPadding"), *_spatial("Dilations", 1)),
        pools=("InputTensor", "OutputTensor", "OutputIndicesTensor")),
    # DML_MAX_UNPOOLING_OPERATOR_DESC (sdk-api ns-directml-dml_max_unpooling_operator_desc, DML_FEATURE_LEVEL_3_0):
    # "InputTensor and OutputTensor must have the same DataType"; "Both the InputTensor and IndicesTensor have the
    # same tensor sizes"; the output "of the same number of dimensions as the input tensor", any Sizes (the indices
    # are flat into it; "out-of-bounds indices yield no write", duplicates undefined: docs/NUMERICS.md, "Pooling").
    # The page's tables start at DML_FEATURE_LEVEL_3_0 but the operator came with DML_FEATURE_LEVEL_2_0
    # (DIRECTML_FACTS 1.6): its FL3.0 row holds from FL2.0.
    _op("MAX_UNPOOLING", _roles("InputTensor", "IndicesTensor", "OutputTensor"), (
        (L5_0, 4, {"*": ALL_10, "IndicesTensor": ("UINT64", "UINT32")}),
        (L3_0, 4, {"*": FLOATS, "IndicesTensor": ("UINT32",)}),
        (L2_0, 4, {"*": FLOATS, "IndicesTensor": ("UINT32",)})),
        same_type=[("InputTensor", "OutputTensor")], same_sizes=[("InputTensor", "IndicesTensor")],
        same_dimension_count=(("InputTensor", "IndicesTensor", "OutputTensor"),)),

    # -- CAST ----------------------------------------------------------------------------------------------
    _op("CAST", UNARY, (
        (L4_1, (1, 8), ALL_11), (L3_1, (1, 8), ALL_10), (L3_0, 4, ALL_10),
        (L1_0, 4, ("FLOAT32", "FLOAT16", "INT16", "INT8", "UINT16", "UINT8"))), **_ONLY_SIZES),
    # -- data movement (kernels/data_movement_ops.py: a strided copy, kernels/copy_region.s) --------------------
    # DML_SLICE_OPERATOR_DESC (sdk-api ns-directml-dml_slice_operator_desc; the support rows from the
    # learn.microsoft.com page, 64-bit types from DML_FEATURE_LEVEL_4_1 per dml-feature-level-history): "This value
    # [DimensionCount] must match the DimensionCount of the input and output tensors"; "The values in this array
    # [Sizes] must match the sizes specified in the output tensor"; the slice reads inside the input (`moves`).
    _op("SLICE", UNARY,
        ((L4_1, (1, 8), ALL_10), (L3_0, (1, 8), FLOAT_INTS_8_TO_32), (L1_0, (4, 5), FLOAT_INTS_8_TO_32)),
        same_sizes=[], same_dimension_count=(("InputTensor", "OutputTensor"),),
        attributes=tuple(AttributeSpec(f, UINTS, of="InputTensor", count_field="DimensionCount")
                         for f in ("Offsets", "Sizes", "Strides")), moves="SLICE"),
    # DML_SLICE1_OPERATOR_DESC (sdk-api ns-directml-dml_slice1_operator_desc): "InputTensor and OutputTensor must
    # have the same DataType and DimensionCount"; the window inside the input, not empty, strides not 0,
    # 1 <= OutputSizes[i] <= 1 + (InputWindowSizes[i] - 1) / |InputWindowStrides[i]| (`moves`).
    _op("SLICE1", UNARY, ((L3_0, (1, 8), FLOAT_INTS_8_TO_32), (L2_1, (4, 5), FLOAT_INTS_8_TO_32)),
        same_sizes=[], same_dimension_count=(("InputTensor", "OutputTensor"),),
        attributes=(AttributeSpec("InputWindowOffsets", UINTS, of="InputTensor", count_field="DimensionCount"),
                    AttributeSpec("InputWindowSizes", UINTS, of="InputTensor", count_field="DimensionCount"),
                    AttributeSpec("InputWindowStrides", INTS, of="InputTensor", count_field="DimensionCount")),
        moves="SLICE1"),
    # DML_PADDING_OPERATOR_DESC (sdk-api ns-directml-dml_padding_operator_desc; support rows from the
    # learn.microsoft.com page, 64-bit from DML_FEATURE_LEVEL_5_0): OutputTensor.Sizes[i] = InputTensor.Sizes[i] +
    # StartPadding[i] + EndPadding[i]; PaddingMode SYMMETRIC from DML_FEATURE_LEVEL_3_0, WRAP from 6_4 (`moves`).
    _op("PADDING", UNARY, ((L5_0, (1, 8), ALL_10), (L3_0, (1, 8), FLOAT_INTS_8_TO_32), (L1_0, 4, FLOATS)),
        same_sizes=[], same_dimension_count=(("InputTensor", "OutputTensor"),),
        attributes=(AttributeSpec("PaddingMode", ENUM, enum=_enums.DML_PADDING_MODE), AttributeSpec("PaddingValue"),
                    AttributeSpec("StartPadding", UINTS, of="InputTensor", count_field="DimensionCount"),
                    AttributeSpec("EndPadding", UINTS, of="InputTensor", count_field="DimensionCount")),
        moves="PADDING"),
    # DML_PADDING1_OPERATOR_DESC (sdk-api ns-directml-dml_padding1_operator_desc): the same with a typed
    # PaddingValue ("PaddingValueDataType ... must match OutputTensor.DataType"); FLOAT64 too.
    _op("PADDING1", UNARY, ((L5_0, (1, 8), ALL_11),),
        same_sizes=[], same_dimension_count=(("InputTensor", "OutputTensor"),),
        attributes=(AttributeSpec("PaddingMode", ENUM, enum=_enums.DML_PADDING_MODE),
                    AttributeSpec("PaddingValueDataType", ENUM, enum=DML_TENSOR_DATA_TYPE, matches="OutputTensor"),
                    AttributeSpec("PaddingValue", SCALAR_UNION, type_field="PaddingValueDataType"),
                    AttributeSpec("StartPadding", UINTS, of="InputTensor", count_field="DimensionCount"),
                    AttributeSpec("EndPadding", UINTS, of="InputTensor", count_field="DimensionCount")),
        moves="PADDING"),
    # DML_TILE_OPERATOR_DESC (learn.microsoft.com ns-directml-dml_tile_operator_desc): "OutputTensor.Sizes[i] =
    # InputTensor.Sizes[i] * Repeats[i]", "RepeatsCount ... must be the same as the InputTensor.DimensionCount",
    # "Values must be larger than 0" (`moves`).
    _op("TILE", UNARY, ((L4_1, (1, 8), ALL_10), (L3_1, (1, 8), FLOAT_INTS_8_TO_32), (L1_0, 4, FLOAT_INTS_8_TO_32)),
        same_sizes=[], same_dimension_count=(("InputTensor", "OutputTensor"),),
        attributes=(AttributeSpec("Repeats", UINTS, of="InputTensor", count_field="RepeatsCount"),), moves="TILE"),
    # DML_DEPTH_TO_SPACE(1) / DML_SPACE_TO_DEPTH(1)_OPERATOR_DESC (sdk-api): 4 dimensions {N, C, H, W}; the output
    # {N, C / BlockSize^2, H * BlockSize, W * BlockSize} (SPACE_TO_DEPTH the inverse); "InputTensor and
    # OutputTensor must have the same DataType"; the 1 versions add Order (DCR, CRD) (`moves`).
    *(_op(name, UNARY, rows, same_sizes=[], attributes=(AttributeSpec("BlockSize", UINT),) + order, moves=name)
      for name, rows, order in (
          ("DEPTH_TO_SPACE", ((L2_1, 4, FLOAT_INTS_8_TO_32), (L1_0, 4, FLOATS)), ()),
          ("SPACE_TO_DEPTH", ((L2_1, 4, FLOAT_INTS_8_TO_32), (L1_0, 4, FLOATS)), ()),
          ("DEPTH_TO_SPACE1", ((L2_1, 4, FLOAT_INTS_8_TO_32),),
           (AttributeSpec("Order", ENUM, enum=_enums.DML_DEPTH_SPACE_ORDER),)),
          ("SPACE_TO_DEPTH1", ((L2_1, 4, FLOAT_INTS_8_TO_32),),
           (AttributeSpec("Order", ENUM, enum=_enums.DML_DEPTH_SPACE_ORDER),)))),
    # DML_JOIN_OPERATOR_DESC (learn.microsoft.com ns-directml-dml_join_operator_desc): InputCount > 0 tensors, the
    # same DataType and DimensionCount, Sizes equal but along Axis, whose sizes sum to the output's; Axis in
    # [0, OutputTensor.DimensionCount - 1]. DML_SPLIT_OPERATOR_DESC is the inverse (OutputCount outputs). The
    # support rows as SLICE's (64-bit from DML_FEATURE_LEVEL_4_1, dml-feature-level-history) (`moves`).
    _op("JOIN", (TensorRole("InputTensors", count_field="InputCount"), TensorRole("OutputTensor", is_output=True)),
        ((L4_1, (1, 8), ALL_10), (L3_0, (1, 8), FLOAT_INTS_8_TO_32), (L1_0, (4, 5), FLOAT_INTS_8_TO_32)),
        same_type=[("InputTensors", "OutputTensor")], same_sizes=[], attributes=(AttributeSpec("Axis", UINT),),
        moves="JOIN"),
    _op("SPLIT", (TensorRole("InputTensor"), TensorRole("OutputTensors", is_output=True, count_field="OutputCount")),
        ((L4_1, (1, 8), ALL_10), (L3_0, (1, 8), FLOAT_INTS_8_TO_32), (L1_0, (4, 5), FLOAT_INTS_8_TO_32)),
        same_type=[("InputTensor", "OutputTensors")], same_sizes=[], attributes=(AttributeSpec("Axis", UINT),),
        moves="SPLIT"),

    # -- gathers (index-driven data movement) ----------------------------------------------------------------
    # DML_GATHER_OPERATOR_DESC, DML_GATHER_ELEMENTS_OPERATOR_DESC, DML_GATHER_ND_OPERATOR_DESC,
    # DML_GATHER_ND1_OPERATOR_DESC (sdk-api ns-directml-dml_gather*_operator_desc): "The DimensionCount of
    # [IndicesTensor] must match InputTensor.DimensionCount", the output's DimensionCount and DataType the input's;
    # 1 to 8 dimensions from DML_FEATURE_LEVEL_3_0 (4 before), 64-bit data types from DML_FEATURE_LEVEL_4_1 (the
    # feature level history lists GATHER among its 64-bit additions), INT32 / UINT32 indices at DML_FEATURE_LEVEL_2_1
    # (UINT32 only at 1_0) and INT64 / UINT64 too from 3_0. The Sizes rules of each page are the `shapes` rules
    # (dmlemu.directml.gather_shapes); out-of-range indices are docs/NUMERICS.md's "Gathers" rule.
    _op("GATHER", _roles("InputTensor", "IndicesTensor", "OutputTensor"), (
        (L4_1, (1, 8), {"*": ALL_11, "IndicesTensor": INTS_32_64}),
        (L3_0, (1, 8), {"*": FLOAT_INTS_8_TO_32, "IndicesTensor": INTS_32_64}),
        (L2_1, 4, {"*": FLOAT_INTS_8_TO_32, "IndicesTensor": ("INT32", "UINT32")}),
        (L1_0, 4, {"*": FLOATS, "IndicesTensor": ("UINT32",)})),
        same_type=[("InputTensor", "OutputTensor")], same_sizes=[],
        same_dimension_count=(("InputTensor", "IndicesTensor", "OutputTensor"),),
        attributes=(AttributeSpec("Axis", UINT), AttributeSpec("IndexDimensions", UINT)), shapes="GATHER"),
    _op("GATHER_ELEMENTS", _roles("InputTensor", "IndicesTensor", "OutputTensor"), (
        (L4_1, (1, 8), {"*": ALL_11, "IndicesTensor": INTS_32_64}),
        (L3_0, (1, 8), {"*": FLOAT_INTS_8_TO_32, "IndicesTensor": INTS_32_64}),
        (L2_1, 4, {"*": FLOAT_INTS_8_TO_32, "IndicesTensor": ("INT32", "UINT32")})),
        same_type=[("InputTensor", "OutputTensor")], same_sizes=[("IndicesTensor", "OutputTensor")],
        same_dimension_count=(("InputTensor", "IndicesTensor", "OutputTensor"),),
        attributes=(AttributeSpec("Axis", UINT),), shapes="GATHER_ELEMENTS"),
    _op("GATHER_ND", _roles("InputTensor", "IndicesTensor", "OutputTensor"), (
        (L4_1, (1, 8), {"*": ALL_11, "IndicesTensor": INTS_32_64}),
        (L3_0, (1, 8), {"*": FLOAT_INTS_8_TO_32, "IndicesTensor": INTS_32_64}),
        (L2_1, 4, {"*": FLOAT_INTS_8_TO_32, "IndicesTensor": ("INT32", "UINT32")})),
        same_type=[("InputTensor", "OutputTensor")], same_sizes=[],
        same_dimension_count=(("InputTensor", "IndicesTensor", "OutputTensor"),),
        attributes=(AttributeSpec("InputDimensionCount", UINT), AttributeSpec("IndicesDimensionCount", UINT)),
        shapes="GATHER_ND"),
    _op("GATHER_ND1", _roles("InputTensor", "IndicesTensor", "OutputTensor"), (
        (L4_1, (1, 8), {"*": ALL_11, "IndicesTensor": INTS_32_64}),
        (L3_0, (1, 8), {"*": FLOAT_INTS_8_TO_32, "IndicesTensor": INTS_32_64})),
        same_type=[("InputTensor", "OutputTensor")], same_sizes=[],
        same_dimension_count=(("InputTensor", "IndicesTensor", "OutputTensor"),),
        attributes=(AttributeSpec("InputDimensionCount", UINT), AttributeSpec("IndicesDimensionCount", UINT),
                    AttributeSpec("BatchDimensionCount", UINT)), shapes="GATHER_ND"),

    # DML_ONE_HOT_OPERATOR_DESC (FL2_0, sdk-api ns-directml-dml_one_hot_operator_desc): "IndicesTensor, OutputTensor,
    # and ValuesTensor must have the same DimensionCount", "OutputTensor and ValuesTensor must have the same
    # DataType"; the Sizes rules are the `shapes` rule.
    _op("ONE_HOT", _roles("IndicesTensor", "ValuesTensor", "OutputTensor"), (
        (L3_0, (1, 8), {"IndicesTensor": INTS_32_64, "*": FLOAT_INTS_8_TO_32}),
        (L2_1, 4, {"IndicesTensor": ("UINT32",), "*": FLOAT_INTS_8_TO_32}),
        (L2_0, 4, {"IndicesTensor": ("UINT32",), "*": FLOATS})),
        same_type=[("ValuesTensor", "OutputTensor")], same_sizes=[],
        same_dimension_count=(("IndicesTensor", "ValuesTensor", "OutputTensor"),),
        attributes=(AttributeSpec("Axis", UINT),), shapes="ONE_HOT"),

    # DML_SCATTER_ELEMENTS_OPERATOR_DESC (FL2_0; C alias DML_SCATTER_OPERATOR_DESC): "copies the whole input tensor to
    # the output, then overwrites selected indices with corresponding values from the updates tensor"; "If two output
    # element indices overlap (which is invalid), then only the last write takes effect." The rows follow GATHER's
    # (the stored sdk-api copy has no table); IndicesTensor and UpdatesTensor share Sizes, as do Input and Output.
    _op("SCATTER_ELEMENTS", _roles("InputTensor", "IndicesTensor", "UpdatesTensor", "OutputTensor"), (
        (L4_1, (1, 8), {"*": ALL_11, "IndicesTensor": INTS_32_64}),
        (L3_0, (1, 8), {"*": FLOAT_INTS_8_TO_32, "IndicesTensor": INTS_32_64}),
        (L2_1, 4, {"*": FLOAT_INTS_8_TO_32, "IndicesTensor": ("INT32", "UINT32")}),
        (L2_0, 4, {"*": FLOATS, "IndicesTensor": ("UINT32",)})),
        same_type=[("InputTensor", "UpdatesTensor", "OutputTensor")],
        same_sizes=[("InputTensor", "OutputTensor"), ("IndicesTensor", "UpdatesTensor")],
        same_dimension_count=(("InputTensor", "IndicesTensor", "UpdatesTensor", "OutputTensor"),),
        attributes=(AttributeSpec("Axis", UINT),), shapes="SCATTER_ELEMENTS"),

    # DML_SCATTER_ND_OPERATOR_DESC (FL2_1): the inverse of GATHER_ND; UpdatesTensor's Sizes are
    # {IndicesTensor.Sizes[actual .. -1], InputTensor.Sizes[actual + m ..]} right-aligned (the `shapes` rule).
    _op("SCATTER_ND", _roles("InputTensor", "IndicesTensor", "UpdatesTensor", "OutputTensor"), (
        (L4_1, (1, 8), {"*": ALL_11, "IndicesTensor": INTS_32_64}),
        (L3_0, (1, 8), {"*": FLOAT_INTS_8_TO_32, "IndicesTensor": INTS_32_64}),
        (L2_1, 4, {"*": FLOAT_INTS_8_TO_32, "IndicesTensor": ("INT32", "UINT32")})),
        same_type=[("InputTensor", "UpdatesTensor", "OutputTensor")], same_sizes=[("InputTensor", "OutputTensor")],
        same_dimension_count=(("InputTensor", "IndicesTensor", "UpdatesTensor", "OutputTensor"),),
        attributes=(AttributeSpec("InputDimensionCount", UINT), AttributeSpec("IndicesDimensionCount", UINT)),
        shapes="SCATTER_ND"),

    # DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC (FL2_1): SequenceLengthsTensor has the input's Sizes but 1 along Axis;
    # "OutputTensor ... must have the same sizes and data type as the InputTensor"; the rows follow GATHER's.
    _op("REVERSE_SUBSEQUENCES", _roles("InputTensor", "SequenceLengthsTensor", "OutputTensor"), (
        (L4_1, (1, 8), {"*": ALL_11, "SequenceLengthsTensor": INTS_32_64}),
        (L3_0, (1, 8), {"*": FLOAT_INTS_8_TO_32, "SequenceLengthsTensor": INTS_32_64}),
        (L2_1, 4, {"*": FLOAT_INTS_8_TO_32, "SequenceLengthsTensor": ("UINT32",)})),
        same_type=[("InputTensor", "OutputTensor")], same_sizes=[("InputTensor", "OutputTensor")],
        same_dimension_count=(("InputTensor", "SequenceLengthsTensor", "OutputTensor"),),
        attributes=(AttributeSpec("Axis", UINT),), shapes="REVERSE_SUBSEQUENCES"),

    # DML_NONZERO_COORDINATES_OPERATOR_DESC (FL3_0, sdk-api): "InputTensor, OutputCoordinatesTensor, and
    # OutputCountTensor must have the same DimensionCount"; 4 to 5 dimensions; the Sizes rules are the `shapes` rule.
    _op("NONZERO_COORDINATES", (TensorRole("InputTensor"), TensorRole("OutputCountTensor", is_output=True),
                                TensorRole("OutputCoordinatesTensor", is_output=True)), (
        (L3_0, (4, 5), {"InputTensor": FLOAT_INTS_8_TO_32, "*": ("UINT32",)}),),
        same_type=[], same_sizes=[],
        same_dimension_count=(("InputTensor", "OutputCountTensor", "OutputCoordinatesTensor"),),
        shapes="NONZERO_COORDINATES"),

    # DML_RANDOM_GENERATOR_OPERATOR_DESC (FL3_0, sdk-api): InputStateTensor {1,1,1,6} UINT32, OutputTensor any 4-D
    # UINT32, an optional OutputStateTensor of InputStateTensor's Sizes; Type PHILOX_4X32_10.
    _op("RANDOM_GENERATOR", (TensorRole("InputStateTensor"), TensorRole("OutputTensor", is_output=True),
                             TensorRole("OutputStateTensor", is_output=True)), (
        (L3_0, 4, {"*": ("UINT32",), "OutputStateTensor": Optional(("UINT32",))}),),
        same_sizes=[("InputStateTensor", "OutputStateTensor")],
        attributes=(AttributeSpec("Type", ENUM, enum=_enums.DML_RANDOM_GENERATOR_TYPE),), shapes="RANDOM_GENERATOR"),

    # -- fills ------------------------------------------------------------------------------------------------
    # DML_FILL_VALUE_CONSTANT_OPERATOR_DESC, DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC (FL2_1, sdk-api): an output only,
    # 4 dimensions, FLOAT32, FLOAT16 and the 8- to 32-bit integers; ValueDataType "must match OutputTensor.DataType";
    # the sequence's order is docs/NUMERICS.md's "Fills".
    _op("FILL_VALUE_CONSTANT", (TensorRole("OutputTensor", is_output=True),), ((L2_1, 4, FLOAT_INTS_8_TO_32),),
        attributes=(AttributeSpec("ValueDataType", ENUM, enum=DML_TENSOR_DATA_TYPE, matches="OutputTensor"),
                    AttributeSpec("Value", SCALAR_UNION, type_field="ValueDataType"))),
    _op("FILL_VALUE_SEQUENCE", (TensorRole("OutputTensor", is_output=True),), ((L2_1, 4, FLOAT_INTS_8_TO_32),),
        attributes=(AttributeSpec("ValueDataType", ENUM, enum=DML_TENSOR_DATA_TYPE, matches="OutputTensor"),
                    AttributeSpec("ValueStart", SCALAR_UNION, type_field="ValueDataType"),
                    AttributeSpec("ValueDelta", SCALAR_UNION, type_field="ValueDataType"))),

    # DML_DIAGONAL_MATRIX_OPERATOR_DESC (FL2_0, sdk-api): OutputTensor[.., y, x] = Value where y + Offset == x, else 0;
    # Value is a FLOAT "truncated" for integer types (cast as CLIP's bounds are: docs/NUMERICS.md, "Fills").
    _op("DIAGONAL_MATRIX", (TensorRole("OutputTensor", is_output=True),), (
        (L2_1, 4, FLOAT_INTS_8_TO_32), (L2_0, 4, FLOATS)),
        attributes=(AttributeSpec("Offset", INT), AttributeSpec("Value"))),
    # DML_DIAGONAL_MATRIX1_OPERATOR_DESC (FL5_1, windows-ai-docs): an optional InputTensor; Value (a DML_SCALAR_UNION
    # of ValueDataType, which "must match OutputTensor::DataType") where (DiagonalFillEnd >= DiagonalFillBegin) ^
    # (x - y >= DiagonalFillBegin) ^ (x - y < DiagonalFillEnd), else the input's element or 0; "InputTensor and
    # OutputTensor must have the same DataType and DimensionCount"; 2 to 4 dimensions, every type but the 8-bit floats.
    _op("DIAGONAL_MATRIX1", (TensorRole("InputTensor"), TensorRole("OutputTensor", is_output=True)), (
        (L5_1, (2, 4), {"InputTensor": Optional(ALL_11), "OutputTensor": ALL_11}),),
        attributes=(AttributeSpec("ValueDataType", ENUM, enum=DML_TENSOR_DATA_TYPE, matches="OutputTensor"),
                    AttributeSpec("Value", SCALAR_UNION, type_field="ValueDataType"),
                    AttributeSpec("DiagonalFillBegin", INT), AttributeSpec("DiagonalFillEnd", INT))),

    # -- resampling ------------------------------------------------------------------------------------------
    # DML_RESAMPLE_OPERATOR_DESC (FL2_0), DML_RESAMPLE1_OPERATOR_DESC (FL2_1) (sdk-api
    # ns-directml-dml_resample*_operator_desc): "InputTensor and OutputTensor must have the same DataType", 4
    # dimensions, FLOAT32 and FLOAT16; ScaleCount / DimensionCount "must match the dimension count of InputTensor and
    # OutputTensor". DML_RESAMPLE2_OPERATOR_DESC (FL5_1, windows-ai-docs) adds RoundingDirection; its page says
    # resampling "is supported up to four dimensions": 1 to 4. The scales need not be OutputSize / InputSize (the
    # Sizes are not checked against them). The order of every operation is docs/NUMERICS.md's "Resampling".
    # DML_UPSAMPLE_2D_OPERATOR_DESC (FL1_0): "output_dimension = floor(input_dimension * scale)" on the two last
    # dimensions (ScaleSize.Height, ScaleSize.Width), FLOAT32 and FLOAT16, 4 dimensions.
    _op("UPSAMPLE_2D", UNARY, ((L1_0, 4, FLOATS),), same_sizes=[],
        same_dimension_count=(("InputTensor", "OutputTensor"),),
        attributes=(AttributeSpec("ScaleSize", SIZE_2D),
                    AttributeSpec("InterpolationMode", ENUM, enum=_enums.DML_INTERPOLATION_MODE)),
        shapes="UPSAMPLE_2D"),
    _op("RESAMPLE", UNARY, ((L2_0, 4, FLOATS),), same_sizes=[],
        same_dimension_count=(("InputTensor", "OutputTensor"),),
        attributes=(AttributeSpec("InterpolationMode", ENUM, enum=_enums.DML_INTERPOLATION_MODE),
                    AttributeSpec("Scales", FLOAT_ARRAY, of="InputTensor", count_field="ScaleCount")),
        shapes="RESAMPLE"),
    _op("RESAMPLE1", UNARY, ((L2_1, 4, FLOATS),), same_sizes=[],
        same_dimension_count=(("InputTensor", "OutputTensor"),),
        attributes=(AttributeSpec("InterpolationMode", ENUM, enum=_enums.DML_INTERPOLATION_MODE),
                    AttributeSpec("Scales", FLOAT_ARRAY, of="InputTensor", count_field="DimensionCount"),
                    AttributeSpec("InputPixelOffsets", FLOAT_ARRAY, of="InputTensor", count_field="DimensionCount"),
                    AttributeSpec("OutputPixelOffsets", FLOAT_ARRAY, of="InputTensor", count_field="DimensionCount")),
        shapes="RESAMPLE"),
    _op("RESAMPLE2", UNARY, ((L5_1, (1, 4), FLOATS),), same_sizes=[],
        same_dimension_count=(("InputTensor", "OutputTensor"),),
        attributes=(AttributeSpec("InterpolationMode", ENUM, enum=_enums.DML_INTERPOLATION_MODE),
                    AttributeSpec("RoundingDirection", ENUM, enum=_enums.DML_AXIS_DIRECTION),
                    AttributeSpec("Scales", FLOAT_ARRAY, of="InputTensor", count_field="DimensionCount"),
                    AttributeSpec("InputPixelOffsets", FLOAT_ARRAY, of="InputTensor", count_field="DimensionCount"),
                    AttributeSpec("OutputPixelOffsets", FLOAT_ARRAY, of="InputTensor", count_field="DimensionCount")),
        shapes="RESAMPLE"),

    # -- attention (kernels/attention_ops.py) ---------------------------------------------------------------
    # DML_MULTIHEAD_ATTENTION_OPERATOR_DESC (FL6_1; windows-ai-docs ns-directml-dml_multihead_attention_operator_desc):
    # "[Add Bias to query/key/value] -> GEMM(Query, Transposed(Key)) * Scale -> [Add RelativePositionBias] -> [Add
    # Mask] -> Softmax -> GEMM(SoftmaxResult, Value)"; exactly one query, key and value, stacked or not; FLOAT32 and
    # FLOAT16 (the MaskTensor INT32); the dimension counts per tensor are _MHA_DIMS (its "Tensor support" table,
    # one range per tensor, which _rows' one range per row cannot say). The shapes are the `shapes` rule
    # MULTIHEAD_ATTENTION (dmlemu.directml.attention_shapes).
    _op("MULTIHEAD_ATTENTION", tuple(TensorRole(f, is_output=f.startswith("Output")) for f in (
        "QueryTensor", "KeyTensor", "ValueTensor", "StackedQueryKeyTensor", "StackedKeyValueTensor",
        "StackedQueryKeyValueTensor", "BiasTensor", "MaskTensor", "RelativePositionBiasTensor", "PastKeyTensor",
        "PastValueTensor", "OutputTensor", "OutputPresentKeyTensor", "OutputPresentValueTensor")), (
        (_enums.DML_FEATURE_LEVEL_6_1, (1, 5), {"*": Optional(FLOATS), "MaskTensor": Optional(("INT32",)),
                                         "OutputTensor": FLOATS}),),
        same_type=[("QueryTensor", "KeyTensor", "ValueTensor", "StackedQueryKeyTensor", "StackedKeyValueTensor",
                    "StackedQueryKeyValueTensor", "BiasTensor", "RelativePositionBiasTensor", "PastKeyTensor",
                    "PastValueTensor", "OutputTensor", "OutputPresentKeyTensor", "OutputPresentValueTensor")],
        same_sizes=[],
        attributes=(AttributeSpec("Scale"), AttributeSpec("MaskFilterValue"),
                    AttributeSpec("HeadCount", UINT, at_least_value=1),
                    AttributeSpec("MaskType", ENUM, enum=_enums.DML_MULTIHEAD_ATTENTION_MASK_TYPE)),
        shapes="MULTIHEAD_ATTENTION"),
    # DML_MULTIHEAD_ATTENTION1_OPERATOR_DESC (DirectML.h's `DML_TARGET_VERSION >= 0x6300` block, so FL6_3; its
    # windows-ai-docs page says "TBD"): MULTIHEAD_ATTENTION's fields plus PastSequenceLengthsTensor, with HeadCount
    # split into QueryHeadCount and KeyValueHeadCount (grouped-query attention: ONNX Runtime's DirectML provider maps
    # GroupQueryAttention to it, kv_num_heads dividing num_heads). The support row is MULTIHEAD_ATTENTION's, with
    # PastSequenceLengthsTensor INT32 or UINT32 (ONNX Runtime binds INT32 seqlens_k); docs/DEVIATIONS.md says what
    # was taken from where. The shapes are the `shapes` rule MULTIHEAD_ATTENTION1.
    _op("MULTIHEAD_ATTENTION1", tuple(TensorRole(f, is_output=f.startswith("Output")) for f in (
        "QueryTensor", "KeyTensor", "ValueTensor", "StackedQueryKeyTensor", "StackedKeyValueTensor",
        "StackedQueryKeyValueTensor", "BiasTensor", "MaskTensor", "RelativePositionBiasTensor", "PastKeyTensor",
        "PastValueTensor", "PastSequenceLengthsTensor", "OutputTensor", "OutputPresentKeyTensor",
        "OutputPresentValueTensor")), (
        (_enums.DML_FEATURE_LEVEL_6_3, (1, 5), {"*": Optional(FLOATS), "MaskTensor": Optional(("INT32",)),
                                         "PastSequenceLengthsTensor": Optional(("INT32", "UINT32")),
                                         "OutputTensor": FLOATS}),),
        same_type=[("QueryTensor", "KeyTensor", "ValueTensor", "StackedQueryKeyTensor", "StackedKeyValueTensor",
                    "StackedQueryKeyValueTensor", "BiasTensor", "RelativePositionBiasTensor", "PastKeyTensor",
                    "PastValueTensor", "OutputTensor", "OutputPresentKeyTensor", "OutputPresentValueTensor")],
        same_sizes=[],
        attributes=(AttributeSpec("Scale"), AttributeSpec("MaskFilterValue"),
                    AttributeSpec("QueryHeadCount", UINT, at_least_value=1),
                    AttributeSpec("KeyValueHeadCount", UINT, at_least_value=1),
                    AttributeSpec("MaskType", ENUM, enum=_enums.DML_MULTIHEAD_ATTENTION_MASK_TYPE)),
        shapes="MULTIHEAD_ATTENTION1"),
]
# MULTIHEAD_ATTENTION's "Tensor support" table (DML_FEATURE_LEVEL_6_1 and above), one dimension range per tensor.
_MHA_DIMS = {"QueryTensor": (3, 5), "KeyTensor": (3, 5), "ValueTensor": (3, 5), "StackedQueryKeyTensor": (5, 5),
             "StackedKeyValueTensor": (5, 5), "StackedQueryKeyValueTensor": (5, 5), "BiasTensor": (1, 5),
             "MaskTensor": (1, 5), "RelativePositionBiasTensor": (4, 5), "PastKeyTensor": (4, 5),
             "PastValueTensor": (4, 5), "OutputTensor": (3, 5), "OutputPresentKeyTensor": (4, 5),
             "OutputPresentValueTensor": (4, 5), "PastSequenceLengthsTensor": (1, 5)}
_SCHEMA_LIST = [schema if schema.name not in ("MULTIHEAD_ATTENTION", "MULTIHEAD_ATTENTION1") else replace(schema, support=tuple(
    SupportRow(row.level, {f: replace(t, min_dims=_MHA_DIMS[f][0], max_dims=_MHA_DIMS[f][1])
                           for f, t in row.tensors.items()}) for row in schema.support)) for schema in _SCHEMA_LIST]
SCHEMAS = {schema.type: schema for schema in _SCHEMA_LIST}
SCHEMAS_BY_NAME = {schema.name: schema for schema in _SCHEMA_LIST}


# Each implemented operator's tensor fields in binding order, by name without DML_OPERATOR_ (what the
# kernels, the tools and the golden model's callers index by).
TENSOR_NAMES = {schema.name: tuple(role.field for role in schema.tensors) for schema in SCHEMAS.values()}


def _check_tables():
    """Each schema is consistent with its desc struct and with the operator table."""
    assert len(SCHEMAS) == len(_SCHEMA_LIST)
    for schema in SCHEMAS.values():
        fields = {t.field for t in schema.tensors}
        assert schema.support[-1].level == schema.introduced_at, schema.name
        levels = [row.level for row in schema.support]
        assert levels == sorted(levels, reverse=True) and len(set(levels)) == len(levels), schema.name
        for row in schema.support:
            assert set(row.tensors) == fields, schema.name
            assert not any(row.tensors[t.field].optional for t in schema.outputs[:1]), schema.name   # the first
            # output is never optional (RANDOM_GENERATOR's OutputStateTensor, a second output, is)
        groups = schema.same_data_type + schema.same_sizes + schema.same_dimension_count
        assert all(set(group) <= fields for group in groups), schema.name
        assert set(schema.single_element) <= fields, schema.name
        assert all({m.field, m.other} <= fields for m in schema.type_matches), schema.name
        attribute_fields = [a.field for a in schema.attributes]
        assert schema.desc_type._fields_ == tuple(f for f, _ in schema.desc_fields()), schema.name
        for spec in schema.attributes:
            assert spec.kind in (FLOAT, ENUM, SCALAR_UNION, FUSED_ACTIVATION, AXES, BOOL, UINT, UINTS, INTS,
                                 SPATIAL, INT, SIZE_2D, FLOAT_ARRAY), schema.name
            assert spec.kind not in (AXES, UINTS, INTS, SPATIAL, FLOAT_ARRAY) or (
                spec.of in fields and spec.count_field), schema.name
            assert spec.kind != SPATIAL or spec.field in _COUNTS or any(
                a.kind == SPATIAL and a.count_field == spec.count_field and a.field in _COUNTS
                for a in schema.attributes), schema.name
            assert spec.kind != ENUM or spec.enum is not None, schema.name
            assert spec.type_field is None or spec.type_field in attribute_fields, schema.name
        for entry in schema.support_by:
            assert entry.field in attribute_fields and all(set(row.tensors) == fields for row in entry.support)
        assert not schema.reduces or (set(schema.reduces[:2]) <= fields and schema.reduces[2] in attribute_fields)
        assert not schema.effective_rank or schema.effective_rank[0] in fields, schema.name
        assert not schema.multiplies or (set(f for f in schema.multiplies[:4] if f is not None) <= fields
                                         and set(f for f in schema.multiplies[4:] if f is not None)
                                         <= set(attribute_fields))
        assert not schema.convolves or set(f for f in schema.convolves if f is not None) <= fields, schema.name
        assert not schema.pools or set(f for f in schema.pools if f is not None) <= fields, schema.name
    for name in FUSABLE_ACTIVATIONS:
        assert SCHEMAS_BY_NAME[name].outputs and name.startswith("ACTIVATION_"), name


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
