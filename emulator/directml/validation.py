"""Argument checking for the DirectML mirror: DMLCalcBufferTensorSize and CreateOperator's rules.

Every check raises `HResultError` with one sentence naming the field, its value and the rule, so
no other Python exception escapes a mirror call however malformed its arguments are. A validated
tensor becomes an immutable `TensorInfo`; a validated operator desc an immutable `OperatorInfo`
(the C descs need not outlive CreateOperator, and Python ones stay mutable).

Rules that are dmlemu's own choices rather than documented DirectML behaviour (see the project docs):
- ScaleBias only on FLOAT16/FLOAT32 tensors (documented for 64-bit types, NUMERICS.md extends it).
- An output whose strides could make two elements share an address is E_INVALIDARG. The check is
  cheap and sufficient, not exact: dimensions of size > 1 are sorted by stride, and each stride must
  be non-zero and exceed the largest offset reachable by the dimensions with smaller strides. Every
  packed, padded or permuted (e.g. NHWC) layout passes; a few exotic interleavings that happen to be
  injective are rejected too.
- DML_TENSOR_FLAG_OWNED_BY_DML is E_INVALIDARG on outputs (as in DirectML); an owned input is bound
  at initialization and kept in the persistent resource (docs/PERSISTENT_RESOURCES.md).
- A 64-bit tensor (FLOAT64/INT64/UINT64) on an adapter without 64-bit support is E_INVALIDARG.
- QUANTIZED_LINEAR_ADD's scale and zero-point tensors must hold exactly one element (its page: "The expected
  number of elements in AScaleTensor is 1"), and a DML_SCALAR_UNION bound is read little-endian.

The operator tables themselves (operators.py) are DirectML's; validate_operator_desc reads them in this
order: operator type and level, each tensor in binding order (None only where the support row says
"Optional input"), the tensor constraints (same DataType / DimensionCount / Sizes groups, TypeMatch rules,
single-element tensors), ScaleBias, then the attributes in C order (a FusedActivation's own attributes
with the sentence prefix "FusedActivation.Desc.").
"""
import numbers
from dataclasses import dataclass

import numpy as np

from dmlemu.com import (
    UINT32_MAX, UINT64_MAX, check_enum, check_flags, check_float, check_sequence, check_uint, enum_name, invalid,
    is_integer,
)
from dmlemu.data_types import BY_NAME, DATA_TYPE_TABLE, DATA_TYPES
from dmlemu.errors import E_NOTIMPL, HResultError, describe, short_repr
from dmlemu.golden import calc_buffer_tensor_size as golden_calc_buffer_tensor_size
from dmlemu.directml.enums import (
    DML_TENSOR_DATA_TYPE, DML_TENSOR_FLAG_OWNED_BY_DML, DML_TENSOR_FLAGS, DML_TENSOR_TYPE_BUFFER, DML_TENSOR_TYPE,
    DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT, OPERATOR_INTRODUCED_AT, DML_OPERATOR_TYPE, DML_OPERATOR_INVALID,
    DML_FEATURE_LEVEL, DML_TENSOR_DIMENSION_COUNT_MAX1,
)
from dmlemu.directml.enums import DML_PADDING_MODE
from dmlemu.directml.operators import (
    AXES, BOOL, ENUM, FLOAT, FLOAT_ARRAY, FUSABLE_ACTIVATIONS, FUSED_ACTIVATION_TYPES, INT, INTS, SCALAR_UNION,
    SCHEMAS, SIZE_2D, SPATIAL, UINT, UINTS, SupportRow, TensorRole,
)
from dmlemu.directml.gather_shapes import DERIVED_SIZES, SHAPE_RULES, check_int, validate_float_array, validate_size_2d
from dmlemu.directml import attention_shapes as _attention_shapes  # noqa: F401 (registers its shape rule)
from dmlemu.directml.structs import (
    DML_BUFFER_TENSOR_DESC, DML_OPERATOR_DESC, DML_SCALAR_UNION, DML_SCALE_BIAS, DML_TENSOR_DESC,
)

SIXTY_FOUR_BIT_TYPES = tuple(t.name for t in DATA_TYPE_TABLE if t.is_64bit)
PREFIX = "DML_TENSOR_DATA_TYPE_"


def short_type_name(data_type):
    """'FLOAT32' for DML_TENSOR_DATA_TYPE_FLOAT32 (the names DirectML's support tables use)."""
    return DML_TENSOR_DATA_TYPE(data_type).name[len(PREFIX):]


def c_type_name(data_type):
    return enum_name(DML_TENSOR_DATA_TYPE, data_type)


def c_level_name(level):
    return enum_name(DML_FEATURE_LEVEL, level)


def format_uints(values):
    """C initializer style: {1,2,3,4}."""
    return "{" + ",".join(str(v) for v in values) + "}"


# ---- DMLCalcBufferTensorSize ------------------------------------------------------------------------
def calc_buffer_tensor_size(data_type_name, sizes, strides):
    """DirectMLX's algorithm on already-checked values (UINT wrap-around reproduced): the golden model's."""
    return golden_calc_buffer_tensor_size(data_type_name, sizes, strides)


def exact_tensor_size(data_type_name, sizes, strides):
    """DMLCalcBufferTensorSize without C's 32-bit wrap of the last element's index (what validation
    uses, so that no element of a valid tensor lies past TotalTensorSizeInBytes)."""
    bits = BY_NAME[data_type_name].bits
    if strides is None:
        count = 1
        for size in sizes:
            count *= size
    else:
        count = sum((size - 1) * stride for size, stride in zip(sizes, strides)) + 1
    return (-(-count * bits // 8) + 3) & ~3


_DIMENSIONS = f"a DirectML tensor has at most {DML_TENSOR_DIMENSION_COUNT_MAX1} dimensions (DML_TENSOR_DIMENSION_COUNT_MAX1)"


def DMLCalcBufferTensorSize(dataType, dimensionCount, sizes, strides):
    """The minimum TotalTensorSizeInBytes of a buffer tensor (DirectMLX.h, section 2.1 of the facts).

    Unknown data types give 0, as in C. Arguments C would read out of bounds (sizes or strides
    shorter than dimensionCount, dimensionCount 0) raise HResultError E_INVALIDARG instead.
    """
    where = "DMLCalcBufferTensorSize"
    if not is_integer(dataType):
        raise invalid(f"{where} dataType is {dataType!r}; it must be a DML_TENSOR_DATA_TYPE value.")
    dimension_count = check_uint(dimensionCount, f"{where} dimensionCount", min_value=1)
    if isinstance(sizes, range):
        sizes = sizes[:dimension_count]     # C reads dimensionCount elements
    sizes = check_sequence(sizes, f"{where} sizes", max_length=DML_TENSOR_DIMENSION_COUNT_MAX1, limit=_DIMENSIONS)
    if len(sizes) < dimension_count:
        raise invalid(f"{where} sizes has {len(sizes)} elements; dimensionCount is {dimension_count}.")
    sizes = tuple(check_uint(s, f"{where} sizes[{i}]") for i, s in enumerate(sizes[:dimension_count]))
    if strides is not None:
        if isinstance(strides, range):
            strides = strides[:dimension_count]
        strides = check_sequence(strides, f"{where} strides", max_length=DML_TENSOR_DIMENSION_COUNT_MAX1,
                                 limit=_DIMENSIONS)
        if len(strides) < dimension_count:
            raise invalid(f"{where} strides has {len(strides)} elements; dimensionCount is {dimension_count}.")
        strides = tuple(check_uint(s, f"{where} strides[{i}]") for i, s in enumerate(strides[:dimension_count]))
    try:
        name = short_type_name(dataType)
    except ValueError:
        return 0
    return calc_buffer_tensor_size(name, sizes, strides)


# ---- tensors ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class TensorInfo:
    """A validated DML_BUFFER_TENSOR_DESC, frozen."""
    field: str
    data_type: int                  # DML_TENSOR_DATA_TYPE value
    flags: int
    sizes: tuple
    strides: tuple                  # None when packed
    total_bytes: int
    alignment: int                  # GuaranteedBaseOffsetAlignment (0 = none)
    is_output: bool

    @property
    def type_name(self):
        return short_type_name(self.data_type)

    @property
    def element_size(self):
        return BY_NAME[self.type_name].itemsize

    @property
    def element_count(self):
        count = 1
        for size in self.sizes:
            count *= size
        return count

    @property
    def effective_strides(self):
        """The strides in force: given ones, else packed (last dimension fastest)."""
        if self.strides is not None:
            return self.strides
        strides, step = [], 1
        for size in reversed(self.sizes):
            strides.append(step)
            step *= size
        return tuple(reversed(strides))

    @property
    def owned_by_dml(self):
        """DML_TENSOR_FLAG_OWNED_BY_DML: bound at initialization, read from the persistent resource."""
        return bool(self.flags & DML_TENSOR_FLAG_OWNED_BY_DML)

    @property
    def binding_alignment(self):
        """What a binding's Offset must be a multiple of."""
        return max(DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT, self.alignment)


def strides_may_alias(sizes, strides):
    """True unless the cheap sufficient test proves every element has its own address."""
    dims = sorted((stride, size) for size, stride in zip(sizes, strides) if size > 1)
    reach = 0  # largest offset reachable with the dimensions seen so far
    for stride, size in dims:
        if stride <= reach:
            return True
        reach += (size - 1) * stride
    return False


def validate_tensor(tensor_desc, role, support, schema, feature_level, preset):
    """Check one tensor field of an operator desc against the rules and the support row."""
    op = schema.c_name
    name = role.field
    if tensor_desc is None:
        raise invalid(f"{name} is None; {op} requires it.")
    if not isinstance(tensor_desc, DML_TENSOR_DESC):
        raise invalid(f"{name} is {describe(tensor_desc)}; it must be a DML_TENSOR_DESC.")
    tensor_type = check_enum(tensor_desc.Type, DML_TENSOR_TYPE, f"{name}.Type")
    if tensor_type != DML_TENSOR_TYPE_BUFFER:
        raise invalid(f"{name}.Type is {tensor_type.name}; it must be DML_TENSOR_TYPE_BUFFER.")
    desc = tensor_desc.Desc
    if not isinstance(desc, DML_BUFFER_TENSOR_DESC):
        raise invalid(f"{name}.Desc is {describe(desc)}; "
                      f"a DML_TENSOR_TYPE_BUFFER tensor needs a DML_BUFFER_TENSOR_DESC.")
    data_type = check_enum(desc.DataType, DML_TENSOR_DATA_TYPE, f"{name}.DataType")
    flags = check_flags(desc.Flags, DML_TENSOR_FLAGS, f"{name}.Flags")
    if flags & DML_TENSOR_FLAG_OWNED_BY_DML and role.is_output:
        raise invalid(f"{name}.Flags has DML_TENSOR_FLAG_OWNED_BY_DML; only input tensors can be owned by DirectML.")

    sizes = check_sequence(desc.Sizes, f"{name}.Sizes", max_length=DML_TENSOR_DIMENSION_COUNT_MAX1,
                           limit=_DIMENSIONS) if desc.Sizes is not None else None
    if sizes is None:
        raise invalid(f"{name}.Sizes is None; a buffer tensor needs its sizes.")
    count = desc.explicit_count("DimensionCount")
    if count is not None:
        count = check_uint(count, f"{name}.DimensionCount")
        if count != len(sizes):
            raise invalid(f"{name}.DimensionCount is {count} but {name}.Sizes has {len(sizes)} elements; they must agree.")
    level = c_level_name(feature_level)
    dims = support.tensors[name]
    if not dims.min_dims <= len(sizes) <= dims.max_dims:
        raise invalid(f"{name}.Sizes has {len(sizes)} dimensions; {level} allows {dims.dims_text()} for {op}.")
    checked = []
    for i, size in enumerate(sizes):
        if is_integer(size) and size == 0:
            raise invalid(f"{name}.Sizes[{i}] is 0; sizes must be non-zero.")
        checked.append(check_uint(size, f"{name}.Sizes[{i}]", min_value=1))
    sizes = tuple(checked)

    strides = desc.Strides
    if strides is not None:
        strides = check_sequence(strides, f"{name}.Strides", max_length=DML_TENSOR_DIMENSION_COUNT_MAX1,
                                 limit=_DIMENSIONS)
        if len(strides) != len(sizes):
            raise invalid(f"{name}.Strides has {len(strides)} elements; DimensionCount is {len(sizes)}.")
        strides = tuple(check_uint(s, f"{name}.Strides[{i}]") for i, s in enumerate(strides))

    type_name = short_type_name(data_type)
    if type_name not in dims.data_types:
        raise invalid(f"{name}.DataType is {data_type.name}; {level} allows {', '.join(dims.data_types)} "
                      f"for {name} of {op}.")
    if type_name in SIXTY_FOUR_BIT_TYPES and not preset.supports_64bit:
        raise invalid(f"{name}.DataType is {data_type.name}; the adapter '{preset.description}' does not support "
                      f"64-bit tensor data types (see DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT).")

    element_count = 1
    for size in sizes:
        element_count *= size
    if element_count > UINT32_MAX:
        raise invalid(f"{name}.Sizes {format_uints(sizes)} has {element_count} elements; a buffer tensor may have "
                      f"at most {UINT32_MAX}.")

    total = check_uint(desc.TotalTensorSizeInBytes, f"{name}.TotalTensorSizeInBytes", max_value=UINT64_MAX)
    minimum = exact_tensor_size(type_name, sizes, strides)
    if total < minimum:
        raise invalid(f"{name}.TotalTensorSizeInBytes is {total}; its Sizes and Strides need at least {minimum} "
                      f"bytes (DMLCalcBufferTensorSize).")

    alignment = check_uint(desc.GuaranteedBaseOffsetAlignment, f"{name}.GuaranteedBaseOffsetAlignment")
    element_size = BY_NAME[type_name].itemsize
    if alignment and (alignment & (alignment - 1) or alignment < element_size):
        raise invalid(f"{name}.GuaranteedBaseOffsetAlignment is {alignment}; it must be 0 or a power of two "
                      f"of at least the element size ({element_size} bytes).")

    if role.is_output and strides is not None and strides_may_alias(sizes, strides):
        raise invalid(f"{name}.Strides {format_uints(strides)} with Sizes {format_uints(sizes)} can make two "
                      f"elements share an address; dmlemu requires each output element to have its own address.")

    return TensorInfo(field=name, data_type=int(data_type), flags=flags, sizes=sizes, strides=strides,
                      total_bytes=total, alignment=alignment, is_output=role.is_output)


# ---- operators --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class FusedActivation:
    """A validated FusedActivation: the activation operator's name without DML_OPERATOR_ (e.g.
    "ACTIVATION_RELU") and its own validated attributes by C field name (e.g. {"Alpha": np.float32(0.01)})."""
    name: str
    attributes: dict


@dataclass(frozen=True)
class OperatorInfo:
    """A validated operator desc, frozen: the schema, tensors in binding order and attributes.

    `attributes` holds every non-tensor field of the desc except ScaleBias, by C field name: FLOAT
    fields as np.float32, enum and integer fields as int, DML_SCALAR_UNION fields as a NumPy scalar of
    the desc's MinMaxDataType, FusedActivation as None or a `FusedActivation`. `floats` is the FLOAT
    subset (what the callers before `attributes` read).
    """
    schema: object
    tensors: tuple                  # TensorInfo, binding order (None: an optional tensor left out)
    scale_bias: tuple               # (scale, bias) as np.float32, or None
    floats: dict                    # FLOAT attributes, e.g. {"Min": np.float32(-1.0)}
    attributes: dict                # every non-tensor field but ScaleBias, validated (see above)
    roles: tuple = None             # one TensorRole per tensor where a tensor array (JOIN's InputTensors) makes
                                    # them differ from the schema's: InputTensors[0], InputTensors[1], ...

    @property
    def tensor_roles(self):
        """The role of each tensor, binding order (a tensor array's elements each their own)."""
        return self.roles if self.roles is not None else self.schema.tensors

    @property
    def input_roles(self):
        return tuple(role for role in self.tensor_roles if not role.is_output)

    @property
    def output_roles(self):
        return tuple(role for role in self.tensor_roles if role.is_output)

    @property
    def inputs(self):
        return tuple(t for t, role in zip(self.tensors, self.tensor_roles) if not role.is_output)

    @property
    def outputs(self):
        return tuple(t for t, role in zip(self.tensors, self.tensor_roles) if role.is_output)


def validate_operator_desc(op_desc, feature_level, preset):
    """Check a DML_OPERATOR_DESC for a device at `feature_level` on adapter `preset`."""
    if not isinstance(op_desc, DML_OPERATOR_DESC):
        raise invalid(f"the operator desc is {describe(op_desc)}; "
                      f"CreateOperator needs a DML_OPERATOR_DESC.")
    op_type = check_enum(op_desc.Type, DML_OPERATOR_TYPE, "DML_OPERATOR_DESC.Type")
    introduced = OPERATOR_INTRODUCED_AT.get(int(op_type))
    if op_type == DML_OPERATOR_INVALID:
        raise invalid("DML_OPERATOR_DESC.Type is DML_OPERATOR_INVALID; it must name an operator.")
    if introduced > feature_level:
        raise invalid(f"DML_OPERATOR_DESC.Type is {op_type.name}, introduced in {c_level_name(introduced)}; "
                      f"this device supports up to {c_level_name(feature_level)}.")
    schema = SCHEMAS.get(int(op_type))
    if schema is None:
        implemented = ", ".join(s.c_name for s in SCHEMAS.values())
        raise HResultError(E_NOTIMPL, f"DML_OPERATOR_DESC.Type is {op_type.name}; dmlemu does not implement that "
                                      f"operator yet (it implements {implemented}).")
    desc = op_desc.Desc
    if not isinstance(desc, schema.desc_type):
        raise invalid(f"DML_OPERATOR_DESC.Desc is {describe(desc)}; "
                      f"{schema.c_name} needs a {schema.desc_type.__name__}.")
    support = schema.support_at(feature_level)
    roles, descs, support = _expand_arrays(schema, desc, support)
    tensors = tuple(_validate_role(schema, role, tensor_desc, support, feature_level, preset)
                    for role, tensor_desc in zip(roles, descs))
    _check_tensor_constraints(schema, {t.field: t for t in tensors if t is not None}, feature_level)

    scale_bias = None
    if schema.scale_bias and desc.ScaleBias is not None:
        if not isinstance(desc.ScaleBias, DML_SCALE_BIAS):
            raise invalid(f"ScaleBias is {describe(desc.ScaleBias)}; it must be a DML_SCALE_BIAS or None.")
        scale = check_float(desc.ScaleBias.Scale, "ScaleBias.Scale")
        bias = check_float(desc.ScaleBias.Bias, "ScaleBias.Bias")
        data_type = tensors[0].data_type
        if short_type_name(data_type) not in ("FLOAT32", "FLOAT16"):
            raise invalid(f"ScaleBias is set but {tensors[0].field}.DataType is {c_type_name(data_type)}; "
                          f"dmlemu accepts ScaleBias only for FLOAT32 and FLOAT16 tensors.")
        scale_bias = (scale, bias)
    attributes = _validate_attributes(schema, desc, tensors, feature_level, "")
    _check_attribute_support(schema, {t.field: t for t in tensors if t is not None}, attributes, feature_level)
    floats = {field: attributes[field] for field in schema.float_fields}
    return OperatorInfo(schema=schema, tensors=tensors, scale_bias=scale_bias, floats=floats, attributes=attributes,
                        roles=None if roles == schema.tensors else roles)


def _expand_arrays(schema, desc, support):
    """(roles, tensor descs, support row) with each tensor array (a role with a count_field: JOIN's InputCount,
    InputTensors) expanded to one role per element, named InputTensors[i] and supported as the array is. The
    count must agree with the array and be greater than 0 ("This value must be greater than 0")."""
    if not any(role.count_field for role in schema.tensors):
        return schema.tensors, [getattr(desc, role.field) for role in schema.tensors], support
    roles, descs, rows = [], [], dict(support.tensors)
    for role in schema.tensors:
        if not role.count_field:
            roles.append(role)
            descs.append(getattr(desc, role.field))
            continue
        array = getattr(desc, role.field)
        if array is None:
            raise invalid(f"{role.field} is None; {schema.c_name} requires it.")
        array = check_sequence(array, role.field)
        count = check_uint(getattr(desc, role.count_field), role.count_field)
        if count != len(array):
            raise invalid(f"{role.count_field} is {count} but {role.field} has {len(array)} elements; they must "
                          f"agree.")
        if count == 0:
            raise invalid(f"{role.count_field} is 0; {schema.c_name} needs at least one tensor in {role.field}.")
        for i, tensor_desc in enumerate(array):
            name = f"{role.field}[{i}]"
            roles.append(TensorRole(name, is_output=role.is_output, optional=role.optional))
            descs.append(tensor_desc)
            rows[name] = support.tensors[role.field]
    return tuple(roles), descs, SupportRow(support.level, rows)


def _validate_role(schema, role, tensor_desc, support, feature_level, preset):
    """One tensor field: None where the support row marks it optional, else a validated TensorInfo."""
    if tensor_desc is None:
        if support.tensors[role.field].optional:
            return None
        optional_from = [row.level for row in schema.support if role.field in row.tensors   # not an array's
                         and row.tensors[role.field].optional]
        if optional_from:
            raise invalid(f"{role.field} is None; {schema.c_name} requires it below {c_level_name(min(optional_from))} "
                          f"(this device: {c_level_name(feature_level)}).")
    return validate_tensor(tensor_desc, role, support, schema, feature_level, preset)


def _present_pairs(group, by_field):
    """(first, other) for the present tensors of a constraint group: each after the first against it."""
    present = [by_field[f] for f in group if f in by_field]
    return [(present[0], other) for other in present[1:]]


def _check_tensor_constraints(schema, by_field, feature_level):
    """The page's "Tensor constraints" and the data type rules of its field descriptions (absent
    optional tensors take part in none)."""
    op = schema.c_name
    for group in schema.same_data_type:
        for first, other in _present_pairs(group, by_field):
            if other.data_type != first.data_type:
                raise invalid(f"{other.field}.DataType is {c_type_name(other.data_type)} but {first.field}.DataType is "
                              f"{c_type_name(first.data_type)}; {op} requires the same DataType.")
    for group in schema.same_sizes + schema.same_dimension_count:
        for first, other in _present_pairs(group, by_field):
            if len(other.sizes) != len(first.sizes):
                raise invalid(f"{other.field}.DimensionCount is {len(other.sizes)} but {first.field}.DimensionCount is "
                              f"{len(first.sizes)}; {op} requires the same DimensionCount.")
    for group in schema.same_sizes:
        for first, other in _present_pairs(group, by_field):
            if other.sizes != first.sizes:
                raise invalid(f"{other.field}.Sizes is {format_uints(other.sizes)} but {first.field}.Sizes is "
                              f"{format_uints(first.sizes)}; {op} requires the same Sizes.")
    for match in schema.type_matches:
        if match.field not in by_field or match.other not in by_field:
            continue
        if match.until is not None and feature_level >= match.until:
            continue
        tensor, other = by_field[match.field], by_field[match.other]
        required = match.required(other.type_name)
        if tensor.type_name != required:
            if required == other.type_name:
                rule = f"{op} requires the same DataType"
            else:
                rule = f"{op} requires {PREFIX}{required} when {other.field}.DataType is {c_type_name(other.data_type)}"
            if match.until is not None:
                rule += f" below {c_level_name(match.until)}"
            raise invalid(f"{tensor.field}.DataType is {c_type_name(tensor.data_type)} but {other.field}.DataType is "
                          f"{c_type_name(other.data_type)}; {rule}.")
    if schema.effective_rank:
        field, most = schema.effective_rank
        sizes = tuple(by_field[field].sizes)
        leading = next((d for d, size in enumerate(sizes) if size != 1), len(sizes))
        if len(sizes) - leading > most:
            raise invalid(f"{field}.Sizes is {format_uints(sizes)}, of effective rank {len(sizes) - leading} (the "
                          f"DimensionCount without the leftmost sizes of 1); {op} allows an effective rank of at "
                          f"most {most}.")
    for field in schema.single_element:
        tensor = by_field.get(field)
        if tensor is not None and tensor.element_count != 1:
            raise invalid(f"{field}.Sizes is {format_uints(tensor.sizes)} ({tensor.element_count} elements); {op} "
                          f"expects exactly 1 element in {field}.")




def _named(value):
    """A value in a sentence: numbers and strings by their repr, other objects by their kind."""
    if isinstance(value, (numbers.Number, str, bytes, np.generic)) and not isinstance(value, bool):
        return short_repr(value)
    return describe(value)


def _validate_attributes(schema, desc, tensors, feature_level, prefix):
    """Every non-tensor field but ScaleBias, by C field name (see OperatorInfo.attributes). `prefix`
    names where the desc sits in the caller's desc ("FusedActivation.Desc." for a fused activation)."""
    op = schema.c_name
    by_field = {t.field: t for t in tensors if t is not None}
    values = {}
    for spec in schema.attributes:
        where = prefix + spec.field
        value = getattr(desc, spec.field)
        if spec.kind == FLOAT:
            value = check_float(value, where)
            applies = spec.at_least_until is None or feature_level < spec.at_least_until
            if spec.at_least is not None and applies and not value >= spec.at_least:
                until = f" below {c_level_name(spec.at_least_until)}" if spec.at_least_until is not None else ""
                raise invalid(f"{where} is {float(value)!r}; {op} requires {spec.field} >= {spec.at_least:g}{until} "
                              f"(this device: {c_level_name(feature_level)}).")
        elif spec.kind == ENUM:
            member = check_enum(value, spec.enum, where)
            if spec.matches is not None and spec.matches in by_field:
                tensor = by_field[spec.matches]
                if int(member) != tensor.data_type:
                    raise invalid(f"{where} is {enum_name(spec.enum, member)}; it must match {spec.matches}.DataType "
                                  f"({c_type_name(tensor.data_type)}) for {op}.")
            value = int(member)
        elif spec.kind == SCALAR_UNION:
            if not isinstance(value, DML_SCALAR_UNION):
                raise invalid(f"{where} is {_named(value)}; it must be a DML_SCALAR_UNION.")
            type_name = short_type_name(values[spec.type_field])
            # A DML_SCALAR_UNION is read as any stored data type (little-endian, as on Windows).
            dtype = DATA_TYPES.get(type_name)
            if dtype is None:
                raise invalid(f"{prefix}{spec.type_field} is {c_type_name(values[spec.type_field])}; a "
                              f"DML_SCALAR_UNION cannot hold that data type ({where}).")
            value = dtype.type(np.frombuffer(value.Bytes[:dtype.itemsize], dtype=dtype)[0])
        elif spec.kind == AXES:
            value = _validate_axes(schema, spec, desc, by_field, prefix)
        elif spec.kind == BOOL:
            if isinstance(value, (bool, np.bool_)):
                value = int(value)
            if not is_integer(value) or not -2 ** 31 <= int(value) < 2 ** 31:
                raise invalid(f"{where} is {_named(value)}; it must be a C BOOL (FALSE = 0, TRUE any other INT).")
            value = int(int(value) != 0)
        elif spec.kind == UINT:
            value = check_uint(value, where, min_value=spec.at_least_value or 0)
            if spec.of is not None and value >= len(by_field[spec.of].sizes):
                rank = len(by_field[spec.of].sizes)
                raise invalid(f"{where} is {value}; {spec.of} has {rank} dimensions, so {op} takes {spec.field} 0 "
                              f"to {rank - 1}.")
            if spec.at_least is not None and value < spec.at_least:
                raise invalid(f"{where} is {value}; {op} requires {spec.field} >= {spec.at_least:g}.")
            if spec.one_of is not None and value not in spec.one_of:
                raise invalid(f"{where} is {value}; {op} takes {spec.field} "
                              f"{' or '.join(str(v) for v in spec.one_of)}.")
        elif spec.kind in (UINTS, INTS):
            value = _validate_array(schema, spec, desc, by_field, prefix)
        elif spec.kind == SPATIAL:
            value = _validate_spatial(schema, spec, desc, by_field, prefix)
        elif spec.kind == FLOAT_ARRAY:
            value = validate_float_array(schema, spec, desc, by_field, prefix)
        elif spec.kind == SIZE_2D:
            value = validate_size_2d(value, where)
        elif spec.kind == INT:
            value = check_int(value, where)
        else:  # FUSED_ACTIVATION
            value = _validate_fused_activation(schema, value, by_field, feature_level, where)
        values[spec.field] = value
    return values


def _validate_axes(schema, spec, desc, by_field, prefix):
    """An axes array and its count field (REDUCE's AxisCount, Axes): the count agrees with the array, each axis
    names a dimension of `spec.of` ("Values must be in the range [0, InputTensor.DimensionCount - 1]") and none
    appears twice (dmlemu's rule where the page is silent; any order is accepted)."""
    op = schema.c_name
    where, count_where = prefix + spec.field, prefix + spec.count_field
    axes = getattr(desc, spec.field)
    axes = () if axes is None else check_sequence(axes, where, max_length=DML_TENSOR_DIMENSION_COUNT_MAX1,
                                                 limit=_DIMENSIONS)
    count = check_uint(getattr(desc, spec.count_field), count_where)
    if count != len(axes):
        raise invalid(f"{count_where} is {count} but {where} has {len(axes)} elements; they must agree.")
    rank = len(by_field[spec.of].sizes)
    seen = set()
    for i, axis in enumerate(axes):
        axis = check_uint(axis, f"{where}[{i}]")
        if axis >= rank:
            raise invalid(f"{where}[{i}] is {axis}; {spec.of} has {rank} dimensions, so {op} takes axes 0 to "
                          f"{rank - 1}.")
        if axis in seen:
            raise invalid(f"{where}[{i}] is {axis}, which {where} already names; dmlemu requires each axis once.")
        seen.add(axis)
    return tuple(int(a) for a in axes)


def _validate_array(schema, spec, desc, by_field, prefix):
    """A per-dimension array and its count field (SLICE's DimensionCount, Offsets): the count agrees with the
    array and with the DimensionCount of `spec.of` ("This value must match the DimensionCount of the input and
    output tensors"); UINTS hold UINTs, INTS INTs."""
    op = schema.c_name
    where, count_where = prefix + spec.field, prefix + spec.count_field
    array = getattr(desc, spec.field)
    array = () if array is None else check_sequence(array, where, max_length=DML_TENSOR_DIMENSION_COUNT_MAX1,
                                                   limit=_DIMENSIONS)
    count = check_uint(getattr(desc, spec.count_field), count_where)
    if count != len(array):
        raise invalid(f"{count_where} is {count} but {where} has {len(array)} elements; they must agree.")
    rank = len(by_field[spec.of].sizes)
    if count != rank:
        raise invalid(f"{count_where} is {count} but {spec.of}.DimensionCount is {rank}; {op} requires them to "
                      f"be equal.")
    if spec.kind == INTS:
        return tuple(check_uint(v, f"{where}[{i}]", max_value=2 ** 31 - 1, min_value=-2 ** 31) for i, v in
                     enumerate(array))
    return tuple(check_uint(v, f"{where}[{i}]") for i, v in enumerate(array))


_PADDING_MODE_LEVELS = {"SYMMETRIC": DML_FEATURE_LEVEL.DML_FEATURE_LEVEL_3_0,     # DML_PADDING_MODE's page
                        "WRAP": DML_FEATURE_LEVEL.DML_FEATURE_LEVEL_6_4}          # dml-feature-level-history


def _check_data_movement(schema, by_field, attributes, feature_level):
    """The shape rules of the data movement operators' pages (schema.moves names the rule): the output's Sizes
    from the input's and the attributes, and every read inside the input."""
    op, rule = schema.c_name, schema.moves
    if rule in ("JOIN", "SPLIT"):
        _check_join(op, rule, by_field, attributes["Axis"])
        return
    source, target = by_field["InputTensor"], by_field["OutputTensor"]
    ins, outs = source.sizes, target.sizes
    if rule == "SLICE":
        offsets, sizes, strides = attributes["Offsets"], attributes["Sizes"], attributes["Strides"]
        for i, (o, s, t) in enumerate(zip(offsets, sizes, strides)):
            if s != outs[i]:
                raise invalid(f"Sizes[{i}] is {s} but OutputTensor.Sizes[{i}] is {outs[i]}; {op} requires the "
                              f"slice's Sizes to match the output's.")
            if s == 0 or o + (s - 1) * t >= ins[i]:
                raise invalid(f"Offsets[{i}] {o}, Sizes[{i}] {s} and Strides[{i}] {t} read element "
                              f"{o + max(s - 1, 0) * t} of dimension {i}; InputTensor.Sizes[{i}] is {ins[i]}, so "
                              f"{op} needs Offsets[i] + (Sizes[i] - 1) * Strides[i] < InputTensor.Sizes[i].")
    elif rule == "SLICE1":
        offsets, sizes = attributes["InputWindowOffsets"], attributes["InputWindowSizes"]
        strides = attributes["InputWindowStrides"]
        for i, (o, s, t) in enumerate(zip(offsets, sizes, strides)):
            if s == 0 or o + s > ins[i]:
                raise invalid(f"InputWindowOffsets[{i}] is {o} and InputWindowSizes[{i}] is {s}; {op} needs a "
                              f"window that is not empty and InputWindowOffsets[i] + InputWindowSizes[i] <= "
                              f"InputTensor.Sizes[i] ({ins[i]}).")
            if t == 0:
                raise invalid(f"InputWindowStrides[{i}] is 0; {op} requires strides that are not 0.")
            most = moved_sizes(rule, ins, attributes)[i]      # 1 + (s - 1) // |t|
            if not 1 <= outs[i] <= most:
                raise invalid(f"OutputTensor.Sizes[{i}] is {outs[i]}; {op} with InputWindowSizes[{i}] {s} and "
                              f"InputWindowStrides[{i}] {t} copies 1 to {most} elements of that dimension.")
    elif rule == "PADDING":
        mode = DML_PADDING_MODE(attributes["PaddingMode"])
        short = mode.name[len("DML_PADDING_MODE_"):]
        needed = _PADDING_MODE_LEVELS.get(short)
        if needed is not None and feature_level < needed:
            raise invalid(f"PaddingMode is {mode.name}, introduced in {c_level_name(needed)}; this device "
                          f"supports up to {c_level_name(feature_level)}.")
        start, end = attributes["StartPadding"], attributes["EndPadding"]
        expected = moved_sizes(rule, ins, attributes)
        if outs != expected:
            raise invalid(f"OutputTensor.Sizes is {format_uints(outs)}; {op} with InputTensor.Sizes "
                          f"{format_uints(ins)}, StartPadding {format_uints(start)} and EndPadding "
                          f"{format_uints(end)} needs {format_uints(expected)} (input + start + end).")
    elif rule == "TILE":
        repeats = attributes["Repeats"]
        for i, r in enumerate(repeats):
            if r == 0:
                raise invalid(f"Repeats[{i}] is 0; {op} requires repeats larger than 0.")
        expected = moved_sizes(rule, ins, attributes)
        if outs != expected:
            raise invalid(f"OutputTensor.Sizes is {format_uints(outs)}; {op} with InputTensor.Sizes "
                          f"{format_uints(ins)} and Repeats {format_uints(repeats)} needs {format_uints(expected)} "
                          f"(input * repeats).")
    else:   # DEPTH_TO_SPACE(1), SPACE_TO_DEPTH(1)
        b = attributes["BlockSize"]
        if b == 0:
            raise invalid(f"BlockSize is 0; {op} requires a block of at least 1 x 1.")
        n, c, h, w = ins
        if rule.startswith("DEPTH_TO_SPACE"):
            if c % (b * b):
                raise invalid(f"InputTensor.Sizes is {format_uints(ins)}; {op} with BlockSize {b} needs a channel "
                              f"count divisible by BlockSize * BlockSize ({b * b}).")
        else:
            if h % b or w % b:
                raise invalid(f"InputTensor.Sizes is {format_uints(ins)}; {op} with BlockSize {b} needs a height "
                              f"and width divisible by BlockSize.")
        expected = moved_sizes(rule, ins, attributes)
        if outs != expected:
            raise invalid(f"OutputTensor.Sizes is {format_uints(outs)}; {op} with InputTensor.Sizes "
                          f"{format_uints(ins)} and BlockSize {b} needs {format_uints(expected)}.")


def _check_join(op, rule, by_field, axis):
    """JOIN (SPLIT the other way): every part has the whole's DataType and DimensionCount and its Sizes but
    along Axis, where the parts' sizes sum to the whole's; Axis in [0, DimensionCount - 1]."""
    whole = by_field["OutputTensor" if rule == "JOIN" else "InputTensor"]
    parts = [t for f, t in by_field.items() if f.startswith("InputTensors[" if rule == "JOIN" else "OutputTensors[")]
    rank = len(whole.sizes)
    if axis >= rank:
        raise invalid(f"Axis is {axis}; {whole.field} has {rank} dimensions, so {op} takes an axis from 0 to "
                      f"{rank - 1}.")
    for part in parts:
        if part.data_type != whole.data_type:
            raise invalid(f"{part.field}.DataType is {c_type_name(part.data_type)} but {whole.field}.DataType is "
                          f"{c_type_name(whole.data_type)}; {op} requires the same DataType.")
        if len(part.sizes) != rank:
            raise invalid(f"{part.field}.DimensionCount is {len(part.sizes)} but {whole.field}.DimensionCount is "
                          f"{rank}; {op} requires the same DimensionCount.")
        for d in range(rank):
            if d != axis and part.sizes[d] != whole.sizes[d]:
                raise invalid(f"{part.field}.Sizes is {format_uints(part.sizes)} but {whole.field}.Sizes is "
                              f"{format_uints(whole.sizes)}; {op} requires the same size in every dimension but "
                              f"Axis ({axis}).")
    total = joined_sizes([part.sizes for part in parts], axis)[axis]
    if total != whole.sizes[axis]:
        parts_name = "inputs" if rule == "JOIN" else "outputs"
        raise invalid(f"{whole.field}.Sizes[{axis}] is {whole.sizes[axis]} but the {parts_name}' sizes along Axis sum "
                      f"to {total}; {op} requires them to be equal.")
def _validate_spatial(schema, spec, desc, by_field, prefix):
    """One array of the spatial dimensions (Strides, Dilations, StartPadding, EndPadding, OutputPadding,
    WindowSize): its count field (DimensionCount) is `spec.of`'s DimensionCount - 2 (the CONVOLUTION page: "It
    should be set to 2 when InputTensor.DimensionCount is 4, and 3 when 5"; the pooling pages say the same of
    their arrays), the array has exactly that many values (C reads that many from the pointer; NULL is
    refused) and each is at least `spec.at_least_value` (a stride, dilation or window of 0 has no meaning)."""
    op = schema.c_name
    where, count_where = prefix + spec.field, prefix + spec.count_field
    count = check_uint(getattr(desc, spec.count_field), count_where)
    spatial = len(by_field[spec.of].sizes) - 2
    if count != spatial:
        raise invalid(f"{count_where} is {count}; {op} needs {spec.of}.DimensionCount - 2 = {spatial} (the spatial "
                      f"dimensions).")
    values = getattr(desc, spec.field)
    if values is None:
        raise invalid(f"{where} is None; {op} reads {count} values from it ({spec.count_field}).")
    values = check_sequence(values, where, max_length=DML_TENSOR_DIMENSION_COUNT_MAX1, limit=_DIMENSIONS)
    if len(values) != count:
        raise invalid(f"{where} has {len(values)} elements but {count_where} is {count}; they must agree.")
    least = spec.at_least_value or 0
    return tuple(check_uint(v, f"{where}[{i}]", min_value=least) for i, v in enumerate(values))


def _check_attribute_support(schema, by_field, attributes, feature_level):
    """The rules that depend on an attribute's value: the support rows of REDUCE's Function (types, dimension
    counts, whether input and output share DataType) and the reduced output's Sizes."""
    op = schema.c_name
    level = c_level_name(feature_level)
    for entry in schema.support_by:
        spec = next(a for a in schema.attributes if a.field == entry.field)
        value = spec.enum(attributes[entry.field])
        short = enum_name(spec.enum, value)              # DML_REDUCE_FUNCTION_SUM
        if short[len(spec.enum.__name__) + 1:] not in entry.values:
            continue
        row = entry.support_at(feature_level)
        if row is None:
            raise invalid(f"{entry.field} is {short}; {level} has no support for it in {op}.")
        for field, tensor in by_field.items():
            allowed = row.tensors[field]
            if not allowed.min_dims <= len(tensor.sizes) <= allowed.max_dims:
                raise invalid(f"{field}.Sizes has {len(tensor.sizes)} dimensions; {level} allows "
                              f"{allowed.dims_text()} for {field} of {op} with {entry.field} {short}.")
            if tensor.type_name not in allowed.data_types:
                raise invalid(f"{field}.DataType is {c_type_name(tensor.data_type)}; {level} allows "
                              f"{', '.join(allowed.data_types)} for {field} of {op} with {entry.field} {short}.")
        if entry.same_type:
            first, *others = [by_field[role.field] for role in schema.tensors if role.field in by_field]
            for other in others:
                if other.data_type != first.data_type:
                    raise invalid(f"{other.field}.DataType is {c_type_name(other.data_type)} but {first.field}.DataType "
                                  f"is {c_type_name(first.data_type)}; {op} requires the same DataType with "
                                  f"{entry.field} {short}.")
    if schema.multiplies:
        _check_matrix_shapes(schema, by_field, attributes)
    if schema.normalizes:
        _check_normalization_tensors(schema, by_field, feature_level, attributes)
    if schema.moves:
        _check_data_movement(schema, by_field, attributes, feature_level)
    if schema.convolves:
        _check_convolution_shapes(schema, by_field, attributes)
    if schema.pools:
        _check_pooling_shapes(schema, by_field, attributes)
    if schema.shapes:
        SHAPE_RULES[schema.shapes](schema, by_field, attributes)
    if schema.reduces:
        source, target, axes_field = schema.reduces
        source, target, axes = by_field[source], by_field[target], attributes[axes_field]
        expected = reduced_sizes(source.sizes, axes)
        if target.sizes != expected:
            raise invalid(f"{target.field}.Sizes is {format_uints(target.sizes)}; {op} with {source.field}.Sizes "
                          f"{format_uints(source.sizes)} and {axes_field} {format_uints(axes)} needs "
                          f"{format_uints(expected)} (the reduced axes of size 1).")


def _check_matrix_shapes(schema, by_field, attributes):
    """GEMM's shapes: A {.., M, K} (TransA: {.., K, M}), B {.., K, N} (TransB: {.., N, K}), the output
    {.., M, N}, C (where given) the output's Sizes, and every leading (batch) size the output's: DirectML
    broadcasts a batch dimension or C only through stride 0."""
    op = schema.c_name
    a_field, b_field, c_field, out_field, trans_a, trans_b = schema.multiplies
    a, b, out = by_field[a_field], by_field[b_field], by_field[out_field]
    m, k, k_b, n = matrix_product_dimensions(a.sizes, b.sizes, trans_a and attributes[trans_a],
                                             trans_b and attributes[trans_b])
    if k_b != k:
        raise invalid(f"{b_field}.Sizes is {format_uints(b.sizes)} but {a_field}.Sizes is {format_uints(a.sizes)}; "
                      f"{op} needs B's K ({k_b}) to equal A's K ({k}) after TransA and TransB.")
    expected = tuple(out.sizes[:-2]) + (m, n)
    if tuple(out.sizes) != expected:
        raise invalid(f"{out_field}.Sizes is {format_uints(out.sizes)}; {op} with {a_field}.Sizes "
                      f"{format_uints(a.sizes)} and {b_field}.Sizes {format_uints(b.sizes)} needs {{.., {m}, {n}}}.")
    for tensor in (a, b):
        if tuple(tensor.sizes[:-2]) != tuple(out.sizes[:-2]):
            raise invalid(f"{tensor.field}.Sizes is {format_uints(tensor.sizes)} but {out_field}.Sizes is "
                          f"{format_uints(out.sizes)}; {op} needs the same leading (batch) sizes (broadcast "
                          f"through stride 0).")
    c = by_field.get(c_field)
    if c is not None and tuple(c.sizes) != tuple(out.sizes):
        raise invalid(f"{c_field}.Sizes is {format_uints(c.sizes)} but {out_field}.Sizes is "
                      f"{format_uints(out.sizes)}; {op} requires the same Sizes (C broadcasts through stride 0).")


def _check_normalization_tensors(schema, by_field, feature_level, attributes):
    """The normalizations' broadcast tensors (MVN1's Scale and Bias; BATCH_NORMALIZATION's Mean, Variance, Scale
    and Bias): each dimension is the input's or 1 (broadcast). MVN's optional Scale and Bias: below
    DML_FEATURE_LEVEL_5_2 one is required when the other is given, and below DML_FEATURE_LEVEL_4_0 their channel
    dimension (1) must be the input's. BATCH_NORMALIZATION with Spatial FALSE below DML_FEATURE_LEVEL_4_0: Mean's
    and Variance's Height and Width (dimensions 2 and 3) are not broadcast."""
    op = schema.c_name
    source, *others = schema.normalizes
    source = by_field[source]
    optional = [role.field for role in schema.tensors if role.optional and role.field in others]
    given = [field for field in optional if field in by_field]
    if len(optional) == 2 and len(given) == 1 and feature_level < DML_FEATURE_LEVEL.DML_FEATURE_LEVEL_5_2:
        other = next(field for field in optional if field != given[0])
        raise invalid(f"{other} is None but {given[0]} is given; {op} requires both or neither below "
                      f"DML_FEATURE_LEVEL_5_2 (this device: {c_level_name(feature_level)}).")
    old = feature_level < DML_FEATURE_LEVEL.DML_FEATURE_LEVEL_4_0
    not_spatial = old and "Spatial" in attributes and not attributes["Spatial"]
    for field in others:
        tensor = by_field.get(field)
        if tensor is None:
            continue
        for d, (size, full) in enumerate(zip(tensor.sizes, source.sizes)):
            channel = d == 1 and old and field in optional
            spatial = d in (2, 3) and not_spatial and field in ("MeanTensor", "VarianceTensor")
            if size != full and (size != 1 or channel or spatial):
                rule = ("each dimension must be the input's or 1 (broadcast)" if not (channel or spatial) else
                        "the channel size must be the input's below DML_FEATURE_LEVEL_4_0" if channel else
                        "with Spatial FALSE, Height and Width must be the input's below DML_FEATURE_LEVEL_4_0")
                raise invalid(f"{field}.Sizes is {format_uints(tensor.sizes)} but {source.field}.Sizes is "
                              f"{format_uints(source.sizes)}; {op}: {rule}.")
def convolution_output_sizes(input_sizes, window, strides, dilations, start, end, output_padding=None,
                             backward=False):
    """The spatial output sizes of a convolution or pooling window: FORWARD (and pooling)
    (I + start + end - ((W - 1) D + 1)) / S + 1, rounded down (None where the padded input is smaller than the
    dilated window); BACKWARD (S (I - 1) + (W - 1) D + 1 - start - end + OutputPadding (None where that is
    below 1)."""
    sizes = []
    for d, size in enumerate(input_sizes):
        extent = (window[d] - 1) * dilations[d] + 1
        if backward:
            out = strides[d] * (size - 1) + extent - start[d] - end[d] + output_padding[d]
            if out < 1:
                return None
        else:
            padded = size + start[d] + end[d]
            if padded < extent:
                return None
            out = (padded - extent) // strides[d] + 1
        sizes.append(out)
    return tuple(sizes)


def _check_convolution_shapes(schema, by_field, attributes):
    """CONVOLUTION's shapes (its page, "Members"): InputTensor { N, C, [D], [H], W }, FilterTensor { K, C / G, .. }
    FORWARD or { C, K / G, .. } BACKWARD (DirectML's transposed convolution, as ONNX ConvTranspose's W), BiasTensor
    { 1, K, 1, .. }, OutputTensor { N, K, .. } with the spatial sizes `convolution_output_sizes` gives; GroupCount
    divides C and K; OutputPadding is below the stride (or the dilation) along each dimension, as ONNX requires."""
    op = schema.c_name
    in_f, filter_f, bias_f, out_f = schema.convolves
    x, w, out = by_field[in_f], by_field[filter_f], by_field[out_f]
    groups = attributes["GroupCount"]
    backward = attributes.get("Direction", 0) == 1       # CONVOLUTION_INTEGER has no Direction: FORWARD
    c = x.sizes[1]
    k = out.sizes[1]
    for name, channels in (("InputTensor", c), ("OutputTensor", k)):
        if channels % groups:
            raise invalid(f"GroupCount is {groups} but {name}.Sizes[1] is {channels}; {op} needs GroupCount to "
                          f"divide the input and output channel counts.")
    expected_filter = (c, k // groups) if backward else (k, c // groups)
    if tuple(w.sizes[:2]) != expected_filter:
        role = "{ InputChannelCount, OutputChannelCount / GroupCount, .. } (BACKWARD)" if backward else \
               "{ OutputChannelCount, InputChannelCount / GroupCount, .. }"
        raise invalid(f"{filter_f}.Sizes is {format_uints(w.sizes)}; {op} with {in_f}.Sizes {format_uints(x.sizes)}, "
                      f"{out_f}.Sizes {format_uints(out.sizes)} and GroupCount {groups} needs {role}, i.e. "
                      f"{{{expected_filter[0]},{expected_filter[1]},..}}.")
    if backward:
        for d, (pad, stride, dilation) in enumerate(zip(attributes["OutputPadding"], attributes["Strides"],
                                                        attributes["Dilations"])):
            if pad >= max(stride, dilation):
                raise invalid(f"OutputPadding[{d}] is {pad}; {op} needs it below Strides[{d}] ({stride}) or "
                              f"Dilations[{d}] ({dilation}).")
    elif any(attributes.get("OutputPadding") or ()):
        raise invalid(f"OutputPadding is {format_uints(attributes['OutputPadding'])}; {op} with "
                      f"DML_CONVOLUTION_DIRECTION_FORWARD needs zeros (OutputPadding pads a BACKWARD result).")
    # (The filter's channels are checked above, so the K convolved_sizes reads from the filter is the output's.)
    expected = convolved_sizes(x.sizes, w.sizes, attributes)
    if expected is None:
        raise invalid(f"{in_f}.Sizes is {format_uints(x.sizes)} with StartPadding "
                      f"{format_uints(attributes['StartPadding'])} and EndPadding {format_uints(attributes['EndPadding'])}"
                      f"; {op} needs the padded input to hold the dilated filter {format_uints(w.sizes[2:])}.")
    spatial = expected[2:]
    if tuple(out.sizes) != expected:
        raise invalid(f"{out_f}.Sizes is {format_uints(out.sizes)}; {op} with {in_f}.Sizes {format_uints(x.sizes)}, "
                      f"{filter_f}.Sizes {format_uints(w.sizes)}, Strides {format_uints(attributes['Strides'])}, "
                      f"Dilations {format_uints(attributes['Dilations'])}, StartPadding "
                      f"{format_uints(attributes['StartPadding'])} and EndPadding {format_uints(attributes['EndPadding'])}"
                      f" needs {format_uints(expected)}.")
    bias = by_field.get(bias_f)
    if bias is not None:
        expected_bias = (1, k) + (1,) * len(spatial)
        if tuple(bias.sizes) != expected_bias:
            raise invalid(f"{bias_f}.Sizes is {format_uints(bias.sizes)}; {op} with {out_f}.Sizes "
                          f"{format_uints(out.sizes)} needs {format_uints(expected_bias)}.")


def _check_pooling_shapes(schema, by_field, attributes):
    """The pooling shapes: OutputTensor { N, C, .. } with the spatial sizes of the window (`convolution_output_sizes`,
    Dilations 1 where the desc has none); OutputIndicesTensor, where given, has the output's Sizes."""
    op = schema.c_name
    in_f, out_f, indices_f = schema.pools
    x, out = by_field[in_f], by_field[out_f]
    expected = pooled_sizes(x.sizes, attributes)
    if expected is None:
        raise invalid(f"{in_f}.Sizes is {format_uints(x.sizes)} with StartPadding "
                      f"{format_uints(attributes['StartPadding'])} and EndPadding {format_uints(attributes['EndPadding'])}"
                      f"; {op} needs the padded input to hold the window {format_uints(attributes['WindowSize'])}.")
    if tuple(out.sizes) != expected:
        raise invalid(f"{out_f}.Sizes is {format_uints(out.sizes)}; {op} with {in_f}.Sizes {format_uints(x.sizes)}, "
                      f"WindowSize {format_uints(attributes['WindowSize'])}, Strides "
                      f"{format_uints(attributes['Strides'])}, StartPadding {format_uints(attributes['StartPadding'])} "
                      f"and EndPadding {format_uints(attributes['EndPadding'])} needs {format_uints(expected)}.")
    indices = by_field.get(indices_f) if indices_f is not None else None
    if indices is not None and tuple(indices.sizes) != tuple(out.sizes):
        raise invalid(f"{indices_f}.Sizes is {format_uints(indices.sizes)} but {out_f}.Sizes is "
                      f"{format_uints(out.sizes)}; {op} requires the same Sizes.")


def _validate_fused_activation(schema, value, by_field, feature_level, where):
    """A FusedActivation: None, or a DML_OPERATOR_DESC of a fusable activation with null tensors
    (docs/directml/dml-fused-activations.md), on an operator whose output is FLOAT16 or FLOAT32."""
    if value is None:
        return None
    op = schema.c_name
    if not isinstance(value, DML_OPERATOR_DESC):
        raise invalid(f"{where} is {_named(value)}; it must be a DML_OPERATOR_DESC or None.")
    act_type = check_enum(value.Type, DML_OPERATOR_TYPE, f"{where}.Type")
    name = act_type.name[len("DML_OPERATOR_"):]
    if name not in FUSABLE_ACTIVATIONS:
        raise invalid(f"{where}.Type is {act_type.name}; {op} can fuse only "
                      f"{', '.join('DML_OPERATOR_' + n for n in FUSABLE_ACTIVATIONS)}.")
    introduced = OPERATOR_INTRODUCED_AT[int(act_type)]
    if introduced > feature_level:
        raise invalid(f"{where}.Type is {act_type.name}, introduced in {c_level_name(introduced)}; "
                      f"this device supports up to {c_level_name(feature_level)}.")
    activation = SCHEMAS[int(act_type)]
    if not isinstance(value.Desc, activation.desc_type):
        raise invalid(f"{where}.Desc is {describe(value.Desc)}; {act_type.name} needs a "
                      f"{activation.desc_type.__name__}.")
    for role in activation.tensors:
        if getattr(value.Desc, role.field) is not None:
            raise invalid(f"{where}.Desc.{role.field} is {describe(getattr(value.Desc, role.field))}; a fused "
                          f"activation's tensors must be None (NULL).")
    for output in schema.outputs:
        tensor = by_field[output.field]
        if tensor.type_name not in FUSED_ACTIVATION_TYPES:
            raise invalid(f"{where} is set but {output.field}.DataType is {c_type_name(tensor.data_type)}; "
                          f"{op} accepts a fused activation only when the output data type is "
                          f"{' or '.join(FUSED_ACTIVATION_TYPES)}.")
    attributes = _validate_attributes(activation, value.Desc, (), feature_level, f"{where}.Desc.")
    return FusedActivation(name=activation.name, attributes=attributes)


# ---- the output Sizes the shape rules determine: the checks above compare against them, and `dmlemu run`
# (tools/operators.py) derives an output's Sizes from them where the command line does not give it ----------
def reduced_sizes(input_sizes, axes):
    """REDUCE, ARGMIN, ARGMAX: the input's Sizes with 1 on the reduced axes."""
    return tuple(1 if d in axes else size for d, size in enumerate(input_sizes))


def matrix_product_dimensions(a_sizes, b_sizes, trans_a, trans_b):
    """(M, K, B's K, N) of a matrix product's A {.., M, K} and B {.., K, N} after TransA and TransB (each
    true: that matrix is read transposed)."""
    m, k = tuple(a_sizes[-2:])[::-1] if trans_a else tuple(a_sizes[-2:])
    k_b, n = tuple(b_sizes[-2:])[::-1] if trans_b else tuple(b_sizes[-2:])
    return m, k, k_b, n


def pooled_sizes(input_sizes, attributes):
    """A pooling's OutputTensor Sizes { N, C, .. } (`convolution_output_sizes` of its window, Dilations 1 where
    the desc has none); None where the padded input is smaller than the window."""
    dilations = attributes.get("Dilations", (1,) * (len(input_sizes) - 2))
    spatial = convolution_output_sizes(input_sizes[2:], attributes["WindowSize"], attributes["Strides"], dilations,
                                       attributes["StartPadding"], attributes["EndPadding"])
    return None if spatial is None else tuple(input_sizes[:2]) + spatial


def convolved_sizes(input_sizes, filter_sizes, attributes):
    """CONVOLUTION's OutputTensor Sizes { N, K, .. }: K the filter's output channels (FORWARD: FilterTensor's
    first size; BACKWARD: its second times GroupCount), the spatial sizes `convolution_output_sizes`; None
    where the padded input cannot hold the dilated filter."""
    backward = attributes.get("Direction", 0) == 1
    k = filter_sizes[1] * attributes["GroupCount"] if backward else filter_sizes[0]
    spatial = convolution_output_sizes(input_sizes[2:], filter_sizes[2:], attributes["Strides"],
                                       attributes["Dilations"], attributes["StartPadding"], attributes["EndPadding"],
                                       attributes.get("OutputPadding"), backward)
    return None if spatial is None else (input_sizes[0], k) + spatial


def moved_sizes(rule, input_sizes, attributes):
    """A data movement operator's OutputTensor Sizes (schema.moves names the rule; JOIN and SPLIT have several
    tensors and no single answer): SLICE the slice's Sizes, SLICE1 the most elements its window and strides
    copy, PADDING input + start + end, TILE input * repeats, DEPTH_TO_SPACE(1) and SPACE_TO_DEPTH(1) the
    blocks moved between channels and space; None where the rule has no answer (a BlockSize of 0)."""
    if rule == "SLICE":
        return tuple(attributes["Sizes"])
    if rule == "SLICE1":
        return tuple(1 + max(s - 1, 0) // max(abs(t), 1) for s, t in zip(attributes["InputWindowSizes"],
                                                                          attributes["InputWindowStrides"]))
    if rule == "PADDING":
        return tuple(n + a + b for n, a, b in zip(input_sizes, attributes["StartPadding"], attributes["EndPadding"]))
    if rule == "TILE":
        return tuple(n * r for n, r in zip(input_sizes, attributes["Repeats"]))
    if rule in ("DEPTH_TO_SPACE", "DEPTH_TO_SPACE1", "SPACE_TO_DEPTH", "SPACE_TO_DEPTH1"):
        b = attributes["BlockSize"]
        if b == 0 or len(input_sizes) != 4:
            return None
        n, c, h, w = input_sizes
        if rule.startswith("DEPTH_TO_SPACE"):
            return (n, c // (b * b), h * b, w * b)
        return (n, c * b * b, h // b, w // b)
    return None


def joined_sizes(parts, axis):
    """JOIN's OutputTensor (SPLIT's InputTensor): the parts' Sizes with their sizes along Axis summed."""
    return tuple(sum(part[axis] for part in parts) if d == axis else size for d, size in enumerate(parts[0]))


def derived_output_sizes(schema, sizes, attributes):
    """{output field: Sizes} for the outputs whose Sizes DirectML's shape rules determine from the inputs' Sizes
    (`sizes`: {input field: Sizes} of the inputs given) and the attributes (as OperatorInfo.attributes holds
    them; a tensor array's elements by names like InputTensors[1]): an output in a same-Sizes group with an
    input, REDUCE's and ARGMIN/ARGMAX's reduced axes, GEMM's {.., M, N}, the convolutions' and poolings' windows,
    the data movement rules (JOIN's parts joined; SPLIT's parts may be any cut, so none), and the rules
    gather_shapes.DERIVED_SIZES names (TOP_K). Outputs no rule determines are left out, as are all of them where
    the attributes are out of their range (CreateOperator then says which)."""
    out = {}
    try:
        for group in schema.same_sizes:
            source = next((f for f in group if f in sizes), None)
            for field in group:
                if source is not None and field not in sizes:
                    out[field] = tuple(sizes[source])
        first_output = schema.outputs[0].field
        first = sizes.get(schema.inputs[0].field) if schema.inputs else None
        if schema.reduces:
            source, target, axes_field = schema.reduces
            out[target] = reduced_sizes(sizes[source], attributes[axes_field])
        if schema.multiplies:
            a_field, b_field, _, out_field, trans_a, trans_b = schema.multiplies
            a, b = sizes[a_field], sizes[b_field]
            m, _, _, n = matrix_product_dimensions(a, b, trans_a and attributes[trans_a], trans_b and attributes[trans_b])
            out[out_field] = tuple(a[:-2]) + (m, n)
        if schema.convolves:
            in_f, filter_f, _, out_f = schema.convolves
            result = convolved_sizes(sizes[in_f], sizes[filter_f], attributes)
            if result is not None:
                out[out_f] = result
        if schema.pools:
            in_f, out_f, indices_f = schema.pools
            result = pooled_sizes(sizes[in_f], attributes)
            if result is not None:
                out.update({f: result for f in (out_f, indices_f) if f is not None})
        if schema.moves == "JOIN":
            parts = [tuple(value) for field, value in sizes.items() if field.startswith("InputTensors[")]
            out[first_output] = joined_sizes(parts, attributes["Axis"])
        elif schema.moves and first is not None:
            result = moved_sizes(schema.moves, tuple(first), attributes)
            if result is not None:
                out[first_output] = result
        if schema.shapes in DERIVED_SIZES:
            out.update(DERIVED_SIZES[schema.shapes](sizes, attributes))
    except (ArithmeticError, IndexError, KeyError, TypeError, ValueError):
        return {}
    return {field: tuple(int(v) for v in value) for field, value in out.items()
            if field in {role.field for role in schema.outputs}}
