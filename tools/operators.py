"""One DirectML operator from plain arguments: the library behind `dmlemu run`, `demo`, `step` and `operators`.

An `OperatorRun` names an operator, a data type, sizes and the operator's fields (attributes such as
Alpha or RoundingMode, Min and Max, ScaleBias, a FusedActivation) the way a command line gives them.
Everything per operator comes from the DirectML tables (dmlemu.directml.operators.SCHEMAS and their
AttributeSpecs): its tensors in binding order, the data type each tensor gets, its attribute fields and
their kinds, and the shape rules CreateOperator checks; there is no per-operator table here. Every operator
with a schema and a kernel (dmlemu.kernels.driver.has_kernel) whose desc the arguments build runs (`OPERATORS`):
the element-wise ones, and those whose outputs' Sizes a shape rule determines (`_shaped`: GEMM, REDUCE,
ARGMIN/ARGMAX, the softmax family, the poolings, CONVOLUTION, the normalizations, the cumulative scans, SLICE,
PADDING, TILE, DEPTH_TO_SPACE, JOIN, SPLIT, the gathers and scatters, TOP_K, the resamplings, the integer and
quantized products, the fills, RANDOM_GENERATOR, REVERSE_SUBSEQUENCES, ONE_HOT, NONZERO_COORDINATES,
MULTIHEAD_ATTENTION with its plain query, key and value, and MAX_UNPOOLING, whose output may have any Sizes and so
needs --output-sizes: OUTPUT_SIZES_REQUIRED). Today that is every operator with a kernel; one whose desc the
arguments cannot build (an unknown shape rule, a tensor array) would run through the API only (`API_ONLY`). A tensor array (JOIN's InputTensors, SPLIT's OutputTensors) has two elements, or as many as
--input-sizes names (InputTensors[2]=2,5); its elements are named so in `fields`, and SPLIT's parts not given
share what the given ones leave of the input along Axis. A gather's or scatter's random indices lie inside the
input dimension each names (the gather plan, gather_shapes.plan), negative ones counting from the end where the
type is signed; REVERSE_SUBSEQUENCES' random lengths from 0 to the size along Axis. From an OperatorRun this
module builds the DirectML desc
(`operator_desc`), seeded random inputs (`random_inputs`), the golden model's outputs
(`golden_outputs`, through dmlemu.golden.run with the attributes CreateOperator validated), and runs it
through the API mirror (`execute`, on top of dmlemu.convenience.run_operator). Argument problems raise
`UsageError` with one sentence; the mirror's own checks raise `dmlemu.HResultError` unchanged.

Names. An operator is named by its DirectML name with or without DML_OPERATOR_ ('DML_OPERATOR_ELEMENT_WISE_ADD',
'ELEMENT_WISE_ADD', 'ACTIVATION_RELU', 'CAST') or by its short name, the name without ELEMENT_WISE_ or
ACTIVATION_ ('add', 'relu'), case-insensitively, '-' for '_'. Where a short name is both (IDENTITY, TANH),
it means the ELEMENT_WISE_ operator; the activation is then 'ACTIVATION_IDENTITY' (its short name keeps the
prefix). `OPERATORS` maps each short name that runs to its DirectML name.

Sizes. Element-wise: every tensor has --sizes, and --input-sizes TENSOR=N,... gives an input its own sizes,
broadcast NumPy-style through stride 0. Other operators: the first input has --sizes; --input-sizes gives any
tensor's Sizes (outputs too; --output-sizes the first output's); a required input left out takes a quick
default (`OperatorRun._default_input_sizes`: GEMM's B makes the product M x M, CONVOLUTION's filter is
{C, C / GroupCount, 3, 3}, a normalization's Scale/Bias/Mean/Variance {1, C, 1, ..}); an optional input
(GEMM's C, a FusedAdd) stays out unless given; an output left out takes the Sizes the validator's own shape
rule gives (dmlemu.directml.validation.derived_output_sizes, written once for both). Optional outputs a rule
sizes (MAX_POOLING1's indices) are bound. `fields` names the tensors a run binds, in binding order;
tensor_types(), tensor_sizes() and strides follow it.

Data types. --dtype is the operator's data type (default FLOAT32, or the first type its first input accepts
when no input accepts FLOAT32). The first input whose support row allows it has it (the first input when
none does: CreateOperator's sentence then says which types it takes); each other tensor, in binding order,
takes the type of a tensor it must share DataType with, else --dtype when its row allows it, else UINT8
where allowed (IF's condition, comparison, IS_NAN and BIT_COUNT outputs), else UINT32 where allowed (the
index outputs of ARGMAX, TOP_K, MAX_POOLING1), else the first type its row lists; an attribute that selects
its own support rows (REDUCE's Function ARGMAX) picks the types from those.
`output_type` (--output-dtype) sets the output's type (CAST's target: CAST needs it).

Attribute defaults (dmlemu's choices, for a quick run; DirectML itself has no defaults): FLOAT fields by
name in ATTRIBUTE_DEFAULTS (Min -1 and Max 1 where a desc has both, a lone Min 0 as THRESHOLD's, Alpha 0.2,
Beta 0.5, Epsilon 1e-5, ...; GEMM's Alpha and Beta 1), enums their value 0 (but ENUM_DEFAULTS: REDUCE's
Function SUM), MinMaxDataType the type of the tensor it must match, a DML_SCALAR_UNION Min/Max -1 (0 for
unsigned types) and 1, BOOL TRUE (but the exclusive scans' FALSE), FusedActivation none; integers and integer
arrays (--attr Axes=0,2) by INTEGER_DEFAULTS: Axis and Axes the last dimension, a 2 x 2 pooling window at
stride 2, a convolution's Strides and Dilations 1 and padding 0, BlockSize 2, K 2, SLICE the whole input.
"""
import textwrap
from dataclasses import dataclass

import numpy as np

from dmlemu import golden
from dmlemu.data_types import DATA_TYPES
from dmlemu.directml import (
    DML_BUFFER_TENSOR_DESC, DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION, DML_EXECUTION_FLAGS,
    DML_FEATURE_LEVEL, DML_OPERATOR_DESC, DML_OPERATOR_TYPE, DML_SCALE_BIAS, DML_TENSOR_DATA_TYPE, DML_TENSOR_DESC,
    DML_TENSOR_FLAG_NONE, DML_TENSOR_TYPE_BUFFER, DMLCalcBufferTensorSize,
)
from dmlemu.directml.enums import DML_FEATURE_LEVEL_6_4
from dmlemu.directml.operators import BOOL
from dmlemu.directml.operators import (ENUM, FLOAT, FUSABLE_ACTIVATIONS, FUSED_ACTIVATION, SCALAR_UNION,
                                       SCHEMAS_BY_NAME, TENSOR_NAMES)
from dmlemu.directml.operators import AXES, FLOAT_ARRAY, INT, INTS, SIZE_2D, SPATIAL, UINT, UINTS, AttributeSpec
from dmlemu.directml.structs import DML_SIZE_2D
from dmlemu.directml.gather_shapes import DERIVED_SIZES, FIXED_SIZES, INPUT_SIZES, SIZED_BY_OUTPUT, plan
from dmlemu.directml.quantized_shapes import QUANTIZATION_TENSORS
from dmlemu.directml.attention_shapes import PLAIN_INPUTS
from dmlemu.directml.structs import DML_SCALAR_UNION
from dmlemu.directml.validation import derived_output_sizes, matrix_product_dimensions
from dmlemu.kernels.driver import has_kernel
from dmlemu.kernels.element_wise_ops import OPERATORS as _ELEMENT_WISE_ROWS
from dmlemu.presets import DEFAULT_PRESET, AdapterPreset, preset_by_key

__all__ = ["UsageError", "OperatorRun", "RunResult", "OPERATORS", "ATTRIBUTE_DEFAULTS", "parse_operator",
           "parse_activation", "parse_data_type", "parse_flags", "parse_feature_level", "parse_assignments",
           "parse_input_sizes", "preset_for", "schema_of", "tensor_names", "operator_desc", "operator_info",
           "random_inputs", "as_stored", "check_inputs", "golden_outputs", "bound_inputs", "bound_specs", "same_bits",
           "validate", "execute", "format_array", "describe", "format_operator_list", "API_ONLY", "INTEGER_DEFAULTS",
           "ENUM_DEFAULTS", "sizes_field", "tensor_bytes", "OUTPUT_SIZES_REQUIRED"]


def _short_name(name, all_names):
    """ELEMENT_WISE_ADD -> ADD; ACTIVATION_RELU -> RELU unless ELEMENT_WISE_RELU exists; CAST -> CAST."""
    if name.startswith("ELEMENT_WISE_"):
        return name[len("ELEMENT_WISE_"):]
    if name.startswith("ACTIVATION_") and "ELEMENT_WISE_" + name[len("ACTIVATION_"):] not in all_names:
        return name[len("ACTIVATION_"):]
    return name


_SHORT = {name: _short_name(name, SCHEMAS_BY_NAME) for name in SCHEMAS_BY_NAME}      # every schema
_ALIASES = {**{short: name for name, short in _SHORT.items()}, **{name: name for name in _SHORT}}


def _derivable_outputs(schema):
    """The output fields whose Sizes a shape rule of dmlemu.directml.validation (derived_output_sizes)
    determines from the inputs' Sizes and the attributes."""
    fields = {f for group in schema.same_sizes if any(f in group for f in (r.field for r in schema.inputs))
              for f in group}
    fields |= {schema.reduces[1]} if schema.reduces else set()
    fields |= {schema.multiplies[3]} if schema.multiplies else set()
    fields |= {schema.convolves[3]} if schema.convolves else set()
    fields |= set(schema.pools[1:]) if schema.pools else set()
    # (SPLIT's parts may be any cut: the command line cuts the input into equal ones, `_split_parts`.)
    fields |= {schema.outputs[0].field} if schema.moves is not None else set()
    fields |= {r.field for r in schema.outputs} if schema.shapes in DERIVED_SIZES else set()
    fields |= set(FIXED_SIZES.get(schema.shapes, ()))
    return {r.field for r in schema.outputs} & fields


# The gather plan (gather_shapes.plan) whose index semantics each index-driven shape rule's IndicesTensor has:
# a scatter's indices address its input as the matching gather's do (docs/NUMERICS.md, "Gathers").
_INDEX_PLANS = {"GATHER": "GATHER", "GATHER_ELEMENTS": "GATHER_ELEMENTS", "GATHER_ND": "GATHER_ND",
                "SCATTER_ELEMENTS": "GATHER_ELEMENTS", "SCATTER_ND": "GATHER_ND"}


# Optional inputs a run binds unless told otherwise, by shape rule: attention needs exactly one query, key and
# value (each may come stacked); the plain ones by default.
_DEFAULT_OPTIONAL = {"MULTIHEAD_ATTENTION": PLAIN_INPUTS, "MULTIHEAD_ATTENTION1": PLAIN_INPUTS}


def _base(name):
    """The schema field of a tensor name: InputTensors[1] -> InputTensors."""
    return name.partition("[")[0]


def sizes_field(schema):
    """The tensor --sizes gives: the first required input whose Sizes no rule fixes, or, for an operator without
    one (FILL_VALUE_CONSTANT, FILL_VALUE_SEQUENCE, DIAGONAL_MATRIX, DIAGONAL_MATRIX1, RANDOM_GENERATOR) or whose
    inputs' Sizes follow from the output's (ONE_HOT), the first output."""
    fixed = FIXED_SIZES.get(schema.shapes, {})
    if schema.shapes in SIZED_BY_OUTPUT:       # ONE_HOT: its indices' Sizes follow from the output's
        return schema.outputs[0].field
    bound = _DEFAULT_OPTIONAL.get(schema.shapes, ())
    return next((r.field for r in schema.inputs if (not r.optional or r.field in bound) and r.field not in fixed),
                schema.outputs[0].field)


def _shaped(name):
    """Whether the command line builds the desc of a non-element-wise operator: no tensor is an array but JOIN's
    and SPLIT's (their parts), and its shape rule (schema.shapes), if any, is one of those whose tensors it knows
    how to size and fill (the tables below). Outputs no rule sizes (MAX_UNPOOLING's) take --output-sizes."""
    schema = SCHEMAS_BY_NAME[name]
    return ((schema.moves in ("JOIN", "SPLIT") or not any(r.count_field for r in schema.tensors))
            and (schema.shapes is None or schema.shapes in DERIVED_SIZES or schema.shapes in QUANTIZATION_TENSORS
                 or schema.shapes in FIXED_SIZES or schema.shapes in INPUT_SIZES or schema.shapes in _INDEX_PLANS))


def _unsized_outputs(schema):
    """The required outputs whose Sizes no rule gives (DirectML takes any: MAX_UNPOOLING's): --output-sizes."""
    return [r.field for r in schema.outputs if r.field not in _derivable_outputs(schema) | {sizes_field(schema)}
            and not r.optional]


# Short names (what the command line takes) -> DirectML operator names without DML_OPERATOR_: every
# operator with a schema and a kernel whose desc the command line builds: the element-wise ones, and those whose
# outputs' Sizes a shape rule derives (`_shaped`: GEMM, REDUCE, the softmax family, the poolings, CONVOLUTION,
# the normalizations, SLICE, PADDING, TILE, TOP_K, ...). The others run through the API only (API_ONLY).
OPERATORS = {short: name for name, short in _SHORT.items()
             if name in _ELEMENT_WISE_ROWS or (has_kernel(name) and _shaped(name))}
API_ONLY = sorted(name for name in SCHEMAS_BY_NAME if has_kernel(name) and name not in OPERATORS.values())
# The operators that run only with --output-sizes (or --input-sizes OUTPUT=...): no rule sizes an output.
OUTPUT_SIZES_REQUIRED = sorted(short for short, name in OPERATORS.items() if _unsized_outputs(SCHEMAS_BY_NAME[name]))

# FLOAT attribute defaults by C field name, for a quick run: dmlemu's choices, not DirectML's (its descs have no
# defaults). Alpha 0.2 / Beta 0.5 are ONNX HardSigmoid's, Threshold 0.5 ONNX Shrink's lambd, Gamma ONNX Selu's
# gamma (1.0507009873554805) rounded; the others keep each operator's output easy to read.
ATTRIBUTE_DEFAULTS = {"Min": -1.0, "Max": 1.0, "Alpha": 0.2, "Beta": 0.5, "Gamma": 1.0507, "Bias": 0.0,
                      "Threshold": 0.5, "Exponent": 2.0, "Steepness": 1.0, "SigmoidInputScale": 1.0,
                      "Epsilon": 1e-5, "PaddingValue": 0.0, "Value": 1.0, "ValueDelta": 1.0,
                      "MaskFilterValue": -10000.0}
# (Epsilon 1e-5: ONNX BatchNormalization's epsilon; MaskFilterValue: ONNX Runtime's mask_filter_value.)
# Enum defaults other than the value 0, by C field name: REDUCE sums (its value 0 is ARGMAX).
ENUM_DEFAULTS = {"Function": "SUM"}
_FALSE_BOOLS = ("HasExclusiveSum", "HasExclusiveProduct")    # the BOOL fields that default to FALSE (inclusive scans)
_LONE_MIN_DEFAULT = 0.0     # a Min without a Max (THRESHOLD: y = max(x, 0))
_FLAG_ALIASES = {"half-precision": int(DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION), "none": 0}


class UsageError(ValueError):
    """An argument dmlemu cannot use; the message is one sentence."""


def _strip(text, prefix):
    text = text.strip().upper()
    return text[len(prefix):] if text.startswith(prefix) else text


def _key(text):
    return _strip(str(text).replace("-", "_"), "DML_OPERATOR_")


def parse_operator(text):
    """'add', 'ELEMENT_WISE_ADD', 'DML_OPERATOR_ELEMENT_WISE_ADD' -> 'ADD'; 'relu' or 'ACTIVATION_RELU' -> 'RELU'
    (see the banner for IDENTITY and TANH). UsageError for an unknown operator or one without a kernel."""
    name = _ALIASES.get(_key(text))
    if name is None:
        raise UsageError(f"operator {text!r} is not a DirectML operator dmlemu knows; `dmlemu operators` lists the "
                         f"{len(OPERATORS)} that run (e.g. ADD, RELU, CAST)")
    if not has_kernel(name):
        raise UsageError(f"DML_OPERATOR_{name} has no kernel in dmlemu yet (CreateOperator validates its desc and "
                         f"answers E_NOTIMPL); `dmlemu operators` lists the {len(OPERATORS)} that run")
    if name in API_ONLY:
        raise UsageError(f"DML_OPERATOR_{name} runs through the DirectML API (dmlemu.run_operator) but not from the "
                         f"command line yet; `dmlemu operators` lists the {len(OPERATORS)} that do")
    return _SHORT[name]


def parse_activation(text):
    """A FusedActivation's operator: 'relu', 'ACTIVATION_RELU', 'identity' -> 'ACTIVATION_RELU', ... (the
    activation even where an ELEMENT_WISE_ operator has the same short name)."""
    key = _key(text)
    name = key if key.startswith("ACTIVATION_") else "ACTIVATION_" + key
    if name not in FUSABLE_ACTIVATIONS:
        raise UsageError(f"--fused {text!r} is not an activation DirectML can fuse; choose one of "
                         f"{', '.join(n[len('ACTIVATION_'):] for n in FUSABLE_ACTIVATIONS)}")
    return name


def schema_of(operator):
    """The OperatorSchema of a short name (OPERATORS key)."""
    return SCHEMAS_BY_NAME[OPERATORS[operator]]


def parse_data_type(text):
    """'float16', 'FLOAT16' or 'DML_TENSOR_DATA_TYPE_FLOAT16' -> 'FLOAT16'."""
    name = _strip(text, "DML_TENSOR_DATA_TYPE_")
    if name not in DATA_TYPES:
        raise UsageError(f"data type {text!r} is not a DirectML tensor data type dmlemu runs; "
                         f"choose one of {', '.join(DATA_TYPES)}")
    return name


def parse_flags(text):
    """'half-precision,descriptors-volatile' or C names joined by ',' or '|' -> DML_EXECUTION_FLAGS value."""
    value = 0
    for part in str(text or "").replace("|", ",").split(","):
        part = part.strip()
        if not part:
            continue
        key = part.lower().replace("_", "-")
        if key in _FLAG_ALIASES:
            value |= _FLAG_ALIASES[key]
            continue
        name = "DML_EXECUTION_FLAG_" + _strip(part.replace("-", "_"), "DML_EXECUTION_FLAG_")
        if name not in DML_EXECUTION_FLAGS.__members__:
            known = ", ".join(["half-precision"] + [m[len("DML_EXECUTION_FLAG_"):].lower().replace("_", "-")
                                                    for m in DML_EXECUTION_FLAGS.__members__])
            raise UsageError(f"execution flag {part!r} is not a DML_EXECUTION_FLAGS member; known: {known}")
        value |= int(DML_EXECUTION_FLAGS[name])
    return value


def parse_feature_level(text):
    """'5_0', '5.0', 'DML_FEATURE_LEVEL_5_0' or '0x5000' -> 0x5000."""
    if text is None:
        return None
    t = str(text).strip()
    if t.lower().startswith("0x"):
        value = int(t, 16)
        if value in {int(m) for m in DML_FEATURE_LEVEL}:
            return value
    else:
        name = "DML_FEATURE_LEVEL_" + _strip(t.replace(".", "_"), "DML_FEATURE_LEVEL_")
        if name in DML_FEATURE_LEVEL.__members__:
            return int(DML_FEATURE_LEVEL[name])
    known = ", ".join(m[len("DML_FEATURE_LEVEL_"):] for m in DML_FEATURE_LEVEL.__members__)
    raise UsageError(f"feature level {text!r} is not a DML_FEATURE_LEVEL; known: {known}")


def preset_for(adapter):
    """The AdapterPreset for a preset key (None: the default adapter; an AdapterPreset, e.g. one `what_if`
    made by tools/sweep.py's what_if: itself)."""
    if adapter is None:
        return DEFAULT_PRESET
    if isinstance(adapter, AdapterPreset):
        return adapter
    try:
        return preset_by_key(adapter)
    except ValueError as error:
        raise UsageError(f"{error} (see `dmlemu adapters`)") from None


def tensor_names(operator):
    """The operator's tensor fields in binding order: inputs, then the output."""
    return TENSOR_NAMES[OPERATORS[operator]]


def parse_assignments(texts, option="--attr"):
    """['Alpha=0.1', 'RoundingMode=TOWARD_ZERO'] -> {'Alpha': '0.1', 'RoundingMode': 'TOWARD_ZERO'} (values as
    text; each name once)."""
    out = {}
    for text in texts or ():
        name, sep, value = str(text).partition("=")
        name = name.strip()
        if not sep or not name:
            raise UsageError(f"{option} {text!r} is not NAME=VALUE; give e.g. {option} Alpha=0.1")
        if name.lower() in {k.lower() for k in out}:
            raise UsageError(f"{option} gives {name} twice")
        out[name] = value.strip()
    return out


def parse_input_sizes(texts):
    """['B=1,4', 'ATensor=3 1'] -> {'B': (1, 4), 'ATensor': (3, 1)} (--input-sizes; fields matched later)."""
    out = {}
    for text in texts or ():
        name, sep, value = str(text).partition("=")
        parts = value.replace(",", " ").split()
        try:
            sizes = tuple(int(p) for p in parts)
        except ValueError:
            sizes = ()
        if not sep or not name.strip() or not sizes:
            raise UsageError(f"--input-sizes {text!r} is not TENSOR=N[,N...]; give e.g. --input-sizes B=1,4 "
                             f"(BTensor's own sizes, broadcast to --sizes through stride 0)")
        out[name.strip()] = sizes
    return out


def _field_of(schema, name, option, inputs_only=True):
    """A tensor field named 'B', 'btensor' or 'BTensor' (case-insensitive; 'Tensor' may be left out)."""
    roles = schema.inputs if inputs_only else schema.tensors
    key = name.strip().lower()
    for role in roles:
        field = role.field.lower()
        if key in (field, field[:-len("tensor")] if field.endswith("tensor") else field):
            return role.field
    raise UsageError(f"{option} names {name!r}; {schema.c_name}'s {'input ' if inputs_only else ''}tensors are "
                     f"{', '.join(r.field for r in roles)}")


def _broadcast_strides(field, own, sizes):
    """The Strides that make a tensor of sizes `own` (NumPy broadcasting: aligned at the right, each 1 or
    the tensor's size) read as a tensor of `sizes`: packed strides of `own`, 0 where it broadcasts."""
    if len(own) > len(sizes):
        raise UsageError(f"--input-sizes {field}: {len(own)} sizes were given for a tensor of {len(sizes)} "
                         f"dimensions (--sizes)")
    padded = (1,) * (len(sizes) - len(own)) + tuple(own)
    for i, (o, s) in enumerate(zip(padded, sizes)):
        if o not in (1, s) or o < 1:
            raise UsageError(f"--input-sizes {field} {list(own)} does not broadcast to --sizes {list(sizes)}: "
                             f"dimension {i} is {o}; it must be 1 or {s}")
    packed = golden.packed_strides(padded)
    return tuple(0 if o == 1 and s != 1 else st for o, st, s in zip(padded, packed, sizes))


def _enum_prefix(enum):
    return enum.__name__ + "_"


def _enum_choices(enum):
    prefix = _enum_prefix(enum)
    return ", ".join(f"{name[len(prefix):]} ({int(member)})" for name, member in enum.__members__.items())


def _type_name(value):
    try:
        return DML_TENSOR_DATA_TYPE(int(value)).name[len("DML_TENSOR_DATA_TYPE_"):]
    except (ValueError, TypeError):
        return None


def _scalar(value, type_name, where, spec, op):
    """A DML_SCALAR_UNION value as a NumPy scalar of `type_name` (text or number; integers exactly)."""
    dtype = DATA_TYPES.get(type_name)
    if dtype is None:
        return None   # a MinMaxDataType no union can hold: CreateOperator's sentence says so
    what = f"{spec.field} of {op} is a DML_SCALAR_UNION read as {type_name}"
    try:
        number = float(value) if not isinstance(value, str) else None
        if isinstance(value, str):
            try:
                number = int(value.strip(), 0)
            except ValueError:
                number = float(value)
    except (ValueError, OverflowError):
        raise UsageError(f"{where}: {what}; {value!r} is not a number") from None
    if dtype.kind == "f":
        with np.errstate(over="ignore"):
            return dtype.type(number)
    if isinstance(number, float) and not number.is_integer():
        raise UsageError(f"{where}: {what}; {value!r} is not an integer")
    info = np.iinfo(dtype)
    if not info.min <= int(number) <= info.max:
        raise UsageError(f"{where}: {what}; {value!r} is outside its range {info.min} to {info.max}")
    return dtype.type(int(number))


def _attribute(schema, spec, value, resolved, types, where):
    """One attribute's value (text from the command line or a number) in the kind its AttributeSpec says:
    FLOAT -> float, ENUM -> int, DML_SCALAR_UNION -> a NumPy scalar of the MinMaxDataType."""
    op = schema.c_name
    if spec.kind == FLOAT:
        try:
            return float(value)
        except (TypeError, ValueError, OverflowError):
            raise UsageError(f"{where}: {spec.field} of {op} is a FLOAT; {value!r} is not a number") from None
    if spec.kind == ENUM:
        enum, prefix = spec.enum, _enum_prefix(spec.enum)
        number = value
        if isinstance(value, str):
            text = value.strip()
            try:
                number = int(text, 0)
            except ValueError:
                name = prefix + _strip(text, prefix)
                if name not in enum.__members__:
                    raise UsageError(f"{where}: {spec.field} of {op} is a {enum.__name__}; {text!r} is not one of "
                                     f"its values: {_enum_choices(enum)}") from None
                return int(enum.__members__[name])
        if number not in {int(m) for m in enum.__members__.values()}:
            raise UsageError(f"{where}: {spec.field} of {op} is a {enum.__name__}; {number!r} is not one of its "
                             f"values: {_enum_choices(enum)}")
        return int(number)
    if spec.kind == SCALAR_UNION:
        return _scalar(value, _type_name(resolved.get(spec.type_field)), where, spec, op)
    if spec.kind in _INTEGER_KINDS:
        return _integers(spec, value, where, op)
    if spec.kind == FLOAT_ARRAY:
        parts = str(value).replace(",", " ").split() if isinstance(value, str) else list(value)
        try:
            return tuple(np.float32(float(p)) for p in parts)
        except (TypeError, ValueError, OverflowError):
            raise UsageError(f"{where}: {spec.field} of {op} is an array of FLOATs (X,X,...); {value!r} is not "
                             f"numbers") from None
    if spec.kind == SIZE_2D:      # C order Width, Height; held as (Height, Width), as CreateOperator holds it
        parts = _integers(AttributeSpec(spec.field, UINTS), value, where, op)
        if len(parts) != 2:
            raise UsageError(f"{where}: {spec.field} of {op} is a DML_SIZE_2D; give Width,Height (e.g. 2,2)")
        return (parts[1], parts[0])
    if spec.kind == BOOL:
        text = str(value).strip().upper()
        if text in ("TRUE", "FALSE"):
            return int(text == "TRUE")
        try:
            return int(int(text, 0) != 0)
        except ValueError:
            raise UsageError(f"{where}: {spec.field} of {op} is a BOOL; {value!r} is not TRUE, FALSE or an "
                             f"integer") from None
    raise UsageError(f"{where}: {spec.field} of {op} is a FusedActivation; give it as --fused NAME")


# The integer attribute kinds the command line gives as --attr NAME=N or NAME=N,N,...: the C type of each value
# (its range), and whether it is an array (one value per axis or dimension) or one number.
_INTEGER_KINDS = {UINT: ("UINT", False), INT: ("INT", False), AXES: ("UINT", True), UINTS: ("UINT", True),
                  SPATIAL: ("UINT", True), INTS: ("INT", True)}
_C_RANGES = {"UINT": (0, (1 << 32) - 1), "INT": (-(1 << 31), (1 << 31) - 1)}


def _integers(spec, value, where, op):
    """An integer attribute (UINT, INT) or array of them (AXES, UINTS, INTS, SPATIAL) from '2' or '0,1' / '0 1'
    (or a number or sequence of numbers), each in its C type's range."""
    c_type, is_array = _INTEGER_KINDS[spec.kind]
    low, high = _C_RANGES[c_type]
    what = f"{spec.field} of {op} is " + (f"an array of {c_type}s (N,N,...)" if is_array else f"a {c_type}")
    parts = (str(value).replace(",", " ").split() if isinstance(value, str) else
             list(value) if isinstance(value, (list, tuple)) else [value])
    numbers = []
    for part in parts:
        try:
            number = int(str(part).strip(), 0)
        except ValueError:
            raise UsageError(f"{where}: {what}; {part!r} is not an integer") from None
        if not low <= number <= high:
            raise UsageError(f"{where}: {what}; {number} is outside its range {low} to {high}")
        numbers.append(number)
    if not is_array and len(numbers) != 1:
        raise UsageError(f"{where}: {what}; give one number, not {len(numbers)}")
    return tuple(numbers) if is_array else numbers[0]


# Integer attribute defaults by C field name, for a quick run (dmlemu's choices): a 2 x 2 pooling window
# whose Strides are the window (no overlap), Dilations 1, a BlockSize of 2, TOP_K's K 2, LRN's LocalSize 3,
# P 2 (the Euclidean norm), GroupCount 1, TILE's Repeats 2, PADDING's StartPadding and EndPadding 1 (a
# window's padding 0), SLICE's Offsets 0 and Strides 1 over the input's whole Sizes. Axis and Axes name the
# last dimension of the tensor they index.
INTEGER_DEFAULTS = {"HeadCount": 1, "QueryHeadCount": 1, "KeyValueHeadCount": 1, "DiagonalFillEnd": 1,
                    "IndexDimensions": 1, "WindowSize": 2, "Dilations": 1, "Strides": 1, "BlockSize": 2, "K": 2,
                    "LocalSize": 3, "P": 2, "GroupCount": 1, "Repeats": 2, "StartPadding": 1, "EndPadding": 1, "OutputPadding": 0,
                    "Offsets": 0, "InputWindowOffsets": 0, "InputWindowStrides": 1}


def _integer_default(schema, spec, sizes):
    """The default of an integer attribute (INTEGER_DEFAULTS; `sizes`: {tensor field: Sizes} given so far)."""
    fields = {a.field for a in schema.attributes}
    rank = len(sizes.get(spec.of or sizes_field(schema), ()))
    if spec.kind == AXES:
        return (rank - 1,) if rank else ()
    if spec.kind == UINT and spec.of is not None:
        return max(rank - 1, 0)
    if spec.field in ("InputDimensionCount", "IndicesDimensionCount"):      # GATHER_ND: every dimension
        return rank
    if spec.field in ("Sizes", "InputWindowSizes"):         # SLICE, SLICE1: the whole input
        return tuple(sizes.get(spec.of, ()))
    value = INTEGER_DEFAULTS.get(spec.field, spec.at_least_value or 0)
    if spec.field == "Strides" and "WindowSize" in fields:
        value = INTEGER_DEFAULTS["WindowSize"]
    if spec.kind == SPATIAL and spec.field in ("StartPadding", "EndPadding"):
        value = 0
    if spec.one_of is not None and value not in spec.one_of:
        value = spec.one_of[-1]
    if spec.kind in (UINT, INT):
        return value
    count = rank - 2 if spec.kind == SPATIAL else rank
    return (value,) * max(count, 0)


def _default(schema, spec, resolved, types, sizes=None):
    """The value an attribute takes when the command line leaves it out (see the banner)."""
    if spec.kind in _INTEGER_KINDS:
        return _integer_default(schema, spec, sizes or {})
    if spec.kind == SIZE_2D:
        return (2, 2)       # UPSAMPLE_2D: twice the height and width
    if spec.kind == FLOAT_ARRAY:
        # Scales 2 on the last two dimensions (height, width), 1 before; the pixel offsets RESAMPLE's (the
        # RESAMPLE1 page): input 0.5, output -0.5.
        rank = len((sizes or {}).get(spec.of, ()))
        if spec.field == "Scales":
            return tuple(np.float32(2.0 if d >= rank - 2 else 1.0) for d in range(rank))
        return (np.float32(0.5 if spec.field == "InputPixelOffsets" else -0.5),) * rank
    fields = {a.field for a in schema.attributes}
    if spec.kind == FLOAT:
        if spec.field == "Min" and "Max" not in fields:
            return _LONE_MIN_DEFAULT
        value = ATTRIBUTE_DEFAULTS.get(spec.field, 1.0)
        if schema.multiplies and spec.field in ("Alpha", "Beta"):
            value = 1.0       # GEMM's scales: the plain product (plus C where given)
        return value if spec.at_least is None else max(value, spec.at_least)
    if spec.kind == ENUM:
        if spec.matches is not None:
            return int(DML_TENSOR_DATA_TYPE["DML_TENSOR_DATA_TYPE_" + types[spec.matches]])
        if spec.field in ENUM_DEFAULTS:
            return int(spec.enum.__members__[_enum_prefix(spec.enum) + ENUM_DEFAULTS[spec.field]])
        return min(int(m) for m in spec.enum.__members__.values())
    if spec.kind == SCALAR_UNION:
        type_name = _type_name(resolved.get(spec.type_field))
        value = ATTRIBUTE_DEFAULTS.get(spec.field, 0.0)
        dtype = DATA_TYPES.get(type_name)
        if dtype is not None and dtype.kind == "u":
            value = max(value, 0.0)
        return _scalar(value, type_name, "default", spec, schema.c_name)
    if spec.kind == BOOL:
        return int(spec.field not in _FALSE_BOOLS)    # TRUE (BATCH_NORMALIZATION's Spatial), but an exclusive scan
    return None   # FusedActivation: none


def _resolve_attributes(schema, given, types, option, fused=None, fused_given=None, sizes=None):
    """Every attribute of `schema` in C order, from `given` ({name: text or number}, names case-insensitive)
    and the defaults; `fused` / `fused_given`: a FusedActivation's operator name and its attributes; `sizes`:
    {tensor field: Sizes} known so far (the integer defaults name its axes and dimensions)."""
    by_lower = {spec.field.lower(): spec for spec in schema.attributes}
    given = dict(given or {})
    named = {}
    for name, value in given.items():
        spec = by_lower.get(str(name).lower())
        if spec is None:
            have = ", ".join(s.field for s in schema.attributes if s.kind != FUSED_ACTIVATION) or "none"
            raise UsageError(f"{option} {name}: {schema.c_name} has no attribute {name}; its attributes: {have}")
        named[spec.field] = value
    resolved = {}
    for spec in schema.attributes:
        if spec.kind == FUSED_ACTIVATION:
            name = fused if fused is not None else named.get(spec.field)
            if name is None:
                if fused_given:
                    raise UsageError(f"--fused-attr needs --fused: {schema.c_name} has no FusedActivation to "
                                     f"give attributes to")
                resolved[spec.field] = None
                continue
            activation = SCHEMAS_BY_NAME[parse_activation(name)]
            attrs = _resolve_attributes(activation, fused_given, {}, "--fused-attr")
            resolved[spec.field] = (activation.name, attrs)
        elif spec.field in named:
            resolved[spec.field] = _attribute(schema, spec, named[spec.field], resolved, types,
                                              f"{option} {spec.field}={named[spec.field]}")
        else:
            resolved[spec.field] = _default(schema, spec, resolved, types, sizes)
    return resolved


@dataclass
class OperatorRun:
    """One operator run as a command line describes it (short names; see the module banner).

    data_type: the operator's data type (None: FLOAT32 or the first one it accepts; see the banner).
    strides: None (packed), or one sequence of element strides for every tensor, or one per tensor
    in binding order (a None entry is packed). input_sizes: {input field (or 'B', 'btensor'): sizes}, a
    NumPy-broadcast input (stride 0 where its size is 1). min_value / max_value: the Min and Max
    attributes (None: the default). scale / bias: a ScaleBias when either is given. attributes: {C field
    name: value or text} (Alpha, RoundingMode, ...). fused / fused_attributes: ADD1's FusedActivation.
    output_type: the output's data type (CAST's target). feature_level: the level whose support rows
    pick the tensors' data types (None: DML_FEATURE_LEVEL_6_4).

    After construction: `operator` is the short name, `data_type` and `output_type` are set,
    `attributes` holds every attribute in C order (FLOAT as float, enums as int, DML_SCALAR_UNION as a
    NumPy scalar, FusedActivation as None or (name, attributes)), and `strides` one entry per tensor.
    """
    operator: str
    data_type: str | None = None
    sizes: tuple = (1,)
    strides: object = None
    min_value: float | None = None
    max_value: float | None = None
    scale: float | None = None
    bias: float | None = None
    flags: int = 0
    attributes: dict | None = None
    fused: str | None = None
    fused_attributes: dict | None = None
    output_type: str | None = None
    input_sizes: dict | None = None
    feature_level: int | None = None
    output_sizes: tuple | None = None

    def __post_init__(self):
        self.operator = parse_operator(self.operator)
        schema = self.schema
        self.sizes = tuple(int(s) for s in self.sizes)
        self.element_wise = self.name in _ELEMENT_WISE_ROWS
        row = schema.support_at(self.feature_level or DML_FEATURE_LEVEL_6_4) or schema.support[-1]
        self._row = row
        if self.data_type is None:
            accepted = [t for role in (schema.inputs or schema.outputs) for t in row.tensors[role.field].data_types]
            self.data_type = "FLOAT32" if "FLOAT32" in accepted else accepted[0]
        self.data_type = parse_data_type(self.data_type)
        if self.output_type is not None:
            self.output_type = parse_data_type(self.output_type)
        elif schema.name == "CAST":
            raise UsageError("CAST needs --output-dtype: the OutputTensor's data type (e.g. --dtype FLOAT32 "
                             "--output-dtype FLOAT16)")
        given_output_type = self.output_type
        self._types = self._derive_types(row)
        if self.output_type is None:
            self.output_type = self._types[schema.outputs[0].field]
        if (self.scale is not None or self.bias is not None) and not schema.scale_bias:
            with_sb = ", ".join(k for k, n in OPERATORS.items() if SCHEMAS_BY_NAME[n].scale_bias)
            own = (f" (its own {'Bias' if self.bias is not None else 'attribute'} field: --attr "
                   f"{'Bias' if self.bias is not None else 'NAME'}=V)") if "Bias" in {
                a.field for a in schema.attributes} else ""
            raise UsageError(f"{schema.name} has no ScaleBias; --scale and --bias apply to {with_sb}{own}")
        given = dict(self.attributes or {})
        for option, field, value in (("--min", "Min", self.min_value), ("--max", "Max", self.max_value)):
            if value is None:
                continue
            if field not in {a.field for a in schema.attributes}:
                having = ", ".join(k for k, n in OPERATORS.items()
                                   if field in {a.field for a in SCHEMAS_BY_NAME[n].attributes})
                raise UsageError(f"{schema.name} has no {field}; {option} applies to {having}")
            if any(str(k).lower() == field.lower() for k in given):
                raise UsageError(f"{option} and --attr {field} both give {field}; give it once")
            given[field] = value
        self._sizes = self._given_sizes()
        self.attributes = _resolve_attributes(schema, given, self._types, "--attr", self.fused,
                                              self.fused_attributes, self._sizes)
        if self.fused is None and self.fused_attributes and not any(
                a.kind == FUSED_ACTIVATION for a in schema.attributes):
            raise UsageError(f"{schema.name} has no FusedActivation; --fused-attr applies with --fused to "
                             f"{', '.join(k for k, n in OPERATORS.items() if _fusable(n))}")
        if self.fused is not None and not _fusable(schema.name):
            raise UsageError(f"{schema.name} has no FusedActivation; --fused applies to "
                             f"{', '.join(k for k, n in OPERATORS.items() if _fusable(n))}")
        self.min_value = self.attributes.get("Min")
        self.max_value = self.attributes.get("Max")
        chosen = self._attribute_row()
        if chosen is not None:       # REDUCE's Function ARGMIN / ARGMAX: the types its own support rows give
            self.output_type = given_output_type
            self._types = self._derive_types(chosen)
            self.output_type = self._types[schema.outputs[0].field]
        if not self.element_wise:
            self._shape_tensors()
        self._binding = [name for role in schema.tensors for name in
                         ([f"{role.field}[{i}]" for i in range(self._counts[role.field])] if role.count_field else
                          [role.field])]
        self.fields = [name for name in self._binding if self.element_wise or name in self._sizes]
        self.strides = self._per_tensor_strides(self.strides, len(self.fields))

    def _attribute_row(self):
        """The support row an attribute's value selects (schema.support_by: REDUCE's Function), or None."""
        for entry in self.schema.support_by:
            spec = next(a for a in self.schema.attributes if a.field == entry.field)
            name = spec.enum(self.attributes[entry.field]).name[len(_enum_prefix(spec.enum)):]
            if name in entry.values:
                return entry.support_at(self.feature_level or DML_FEATURE_LEVEL_6_4)
        return None

    def _given_sizes(self):
        """{tensor field: Sizes} before the attributes: the first input's (--sizes) and, for an operator that is
        not element-wise, those --input-sizes and --output-sizes give (any tensor, outputs included)."""
        schema = self.schema
        self._counts = {}
        if self.element_wise:
            if self.output_sizes is not None:
                raise UsageError(f"--output-sizes: {schema.name} is element-wise; its output has --sizes")
            return {role.field: self.sizes for role in schema.tensors}
        arrays = {r.field for r in schema.tensors if r.count_field}
        anchor = self.fields_anchor
        sizes = {anchor: self.sizes}
        for given, own in (self.input_sizes or {}).items():
            base, bracket, index = str(given).partition("[")
            field = _field_of(schema, base, "--input-sizes", inputs_only=False)
            if (field in arrays) != bool(bracket) or (bracket and not (index[:-1].isdigit() and index.endswith("]"))):
                raise UsageError(f"--input-sizes {given}: " + (
                    f"{field} is an array of tensors; name one as {field}[i] (i from 0)" if field in arrays else
                    f"{field} is one tensor, not an array"))
            if bracket:
                field = f"{field}[{int(index[:-1])}]"
            if field == anchor:
                raise UsageError(f"--input-sizes {field}: {schema.name}'s {field} has --sizes; give it there")
            if field in sizes:
                raise UsageError(f"--input-sizes gives {field} twice")
            sizes[field] = tuple(int(v) for v in own)
        if self.output_sizes is not None:
            output = schema.outputs[0].field
            if output in sizes:
                raise UsageError(f"--output-sizes and --input-sizes {output} both give {output}'s Sizes; give one")
            sizes[output] = tuple(int(v) for v in self.output_sizes)
        for field, values in sizes.items():
            for i, value in enumerate(values):
                if not 0 <= value < 1 << 32:
                    raise UsageError(f"--input-sizes {field}: Sizes[{i}] is {value}; a DirectML Sizes value is a "
                                     f"UINT (0 to {(1 << 32) - 1})")
        for field in arrays:      # JOIN's inputs, SPLIT's outputs: 2 parts, or as many as --input-sizes names
            given = [int(name[len(field) + 1:-1]) for name in sizes if name.startswith(field + "[")]
            if given and max(given) >= 64:
                raise UsageError(f"--input-sizes {field}[{max(given)}]: dmlemu runs at most 64 {field} from the "
                                 f"command line")
            self._counts[field] = max(given + [1]) + 1
        return sizes

    def _optional(self, field):
        return self._row.tensors[_base(field)].optional

    def _default_input_sizes(self, field):
        """A required input the command line left out (dmlemu's choices, for a quick run): GEMM's B the
        matrix that makes the product {.., M, M} (A's transpose when neither is transposed); CONVOLUTION's
        filter K = C output channels of a 3 x 3 (x 3) window (smaller where the input is); a normalization's
        Scale, Bias, Mean or Variance one value per channel {1, C, 1, ..}; a quantization scale or zero point one
        value; GATHER_ND's indices one coordinate per tuple {.., 1}; ONE_HOT's values {1, .., 2} (off, on); a
        Sizes a shape rule gives (gather_shapes.FIXED_SIZES, INPUT_SIZES); any other the first input's Sizes."""
        schema, first, attributes = self.schema, self.sizes, self.attributes
        if field in FIXED_SIZES.get(schema.shapes, {}):      # RANDOM_GENERATOR's state {1,1,1,6}
            return FIXED_SIZES[schema.shapes][field]
        if schema.shapes in INPUT_SIZES:     # REVERSE_SUBSEQUENCES' lengths, SCATTER_ND's updates: the shape rule's
            try:
                derived = INPUT_SIZES[schema.shapes](self._sizes, attributes)
            except (ArithmeticError, IndexError, KeyError, TypeError, ValueError):
                derived = {}
            if field in derived:
                return derived[field]
        if schema.multiplies and field == schema.multiplies[1] and len(first) >= 2:
            trans_a, trans_b = (schema.multiplies[4], schema.multiplies[5])
            m, k, _, _ = matrix_product_dimensions(first, first, attributes.get(trans_a), False)
            return tuple(first[:-2]) + ((m, k) if attributes.get(trans_b) else (k, m))
        if schema.convolves and field == schema.convolves[1] and len(first) >= 3:
            channels, groups = first[1], max(int(attributes.get("GroupCount", 1)), 1)
            return (channels, channels // groups) + tuple(min(3, max(s, 1)) for s in first[2:])
        if schema.normalizes and field in schema.normalizes[1:]:
            return tuple(s if d == 1 else 1 for d, s in enumerate(first))
        if field in QUANTIZATION_TENSORS.get(schema.name, ()):
            return (1,) * len(first)      # a scale or zero point: one value (per tensor)
        if schema.shapes in ("GATHER_ND", "SCATTER_ND") and field == "IndicesTensor":
            return tuple(first[:-1]) + (1,)     # one coordinate per index tuple
        if field == "ValuesTensor":             # ONE_HOT: OffValue, OnValue
            return (1,) * (len(first) - 1) + (2,)
        return first

    def _shape_tensors(self):
        """Every other tensor's Sizes (an operator that is not element-wise): the required inputs not given
        take `_default_input_sizes`, optional inputs stay out (None) unless given; each output not given takes
        the Sizes DirectML's shape rule determines (validation.derived_output_sizes; every operator in OPERATORS
        has a rule for each output)."""
        schema, sizes = self.schema, self._sizes
        names = {role.field: [f"{role.field}[{i}]" for i in range(self._counts[role.field])] if role.count_field
                 else [role.field] for role in schema.tensors}
        for role in schema.inputs:
            for name in names[role.field]:
                if name not in sizes and (not self._optional(role.field)
                                          or role.field in _DEFAULT_OPTIONAL.get(schema.shapes, ())):
                    sizes[name] = self.sizes if role.count_field else self._default_input_sizes(role.field)
        derived = derived_output_sizes(schema, {n: sizes[n] for r in schema.inputs for n in names[r.field]
                                                if n in sizes}, self.attributes)
        if schema.moves == "SPLIT":
            derived = self._split_parts(names[schema.outputs[0].field])
        for field in _unsized_outputs(schema):
            if field not in sizes:
                example = tuple(first if d < 2 else 2 * first for d, first in enumerate(self.sizes))
                raise UsageError(f"{schema.c_name}'s {field} may have any Sizes (no shape rule gives them): give "
                                 f"--output-sizes N N ..., e.g. --output-sizes {' '.join(map(str, example))}")
        for role in schema.outputs:
            for name in names[role.field]:
                if name not in sizes:
                    # no Sizes follow (an attribute out of its range, a window larger than the padded input): the
                    # first input's, so that CreateOperator's sentence says what is wrong
                    sizes[name] = derived.get(name, self.sizes)

    def _split_parts(self, names):
        """SPLIT's outputs not given: what the given ones leave of the input along Axis, cut into equal parts (the
        last takes the rest)."""
        axis, sizes = self.attributes.get("Axis", 0), self._sizes
        if not 0 <= axis < len(self.sizes):
            return {}
        missing = [n for n in names if n not in sizes]
        left = max(self.sizes[axis] - sum(sizes[n][axis] for n in names if n in sizes and len(sizes[n]) > axis), 0)
        out = {}
        for i, name in enumerate(missing):
            part = left // len(missing) if i < len(missing) - 1 else left - left // len(missing) * (len(missing) - 1)
            out[name] = tuple(part if d == axis else s for d, s in enumerate(self.sizes))
        return out

    @property
    def input_fields(self):
        """The inputs the desc binds, in binding order (an optional input left out is not one; a tensor array's
        elements are named like InputTensors[1])."""
        return [f for f in self.fields if _base(f) in {r.field for r in self.schema.inputs}]

    @property
    def output_fields(self):
        return [f for f in self.fields if _base(f) in {r.field for r in self.schema.outputs}]

    @property
    def fields_anchor(self):
        """The tensor whose Sizes --sizes gives (`sizes_field`; JOIN: InputTensors[0])."""
        field = sizes_field(self.schema)
        return field + ("[0]" if any(r.field == field and r.count_field for r in self.schema.tensors) else "")

    @property
    def binding(self):
        """Every tensor of the desc in binding order, those the run leaves out (optional ones) included."""
        return list(self._binding)

    @property
    def schema(self):
        return schema_of(self.operator)

    @property
    def name(self):
        """The DirectML name without DML_OPERATOR_, e.g. ELEMENT_WISE_ADD."""
        return OPERATORS[self.operator]

    def _derive_types(self, row):
        """Each tensor's data type (see the banner): {field: type name} of every tensor of the schema."""
        schema = self.schema
        anchor = next((r.field for r in schema.inputs if self.data_type in row.tensors[r.field].data_types),
                      schema.tensors[0].field)
        types = {anchor: self.data_type}
        output = schema.outputs[0].field
        if self.output_type is not None:
            types[output] = self.output_type
        for role in schema.tensors:
            if role.field in types:
                continue
            allowed = row.tensors[role.field].data_types
            partners = [types[f] for group in schema.same_data_type if role.field in group
                        for f in group if f in types]
            if partners:
                types[role.field] = partners[0]
            elif self.data_type in allowed:
                types[role.field] = self.data_type
            else:
                types[role.field] = next((t for t in ("UINT8", "UINT32") if t in allowed), allowed[0])
        return types

    def _per_tensor_strides(self, strides, count):
        names = self.fields
        if strides is None:
            strides = [None] * count
        else:
            strides = list(strides)
            if not strides or not isinstance(strides[0], (list, tuple, type(None))):
                strides = [strides] * count   # one stride list for every tensor
            if len(strides) == 1:
                strides = strides * count
            if len(strides) != count:
                raise UsageError(f"{self.name} has {count} tensors; give --strides once (for all) "
                                 f"or {count} times (one per tensor in binding order), not {len(strides)} times")
        sizes = self.tensor_sizes()
        out = []
        for name, s, own in zip(names, strides, sizes):
            if s is not None:
                s = tuple(int(v) for v in s)
                if len(s) != len(own):
                    raise UsageError(f"{name}: {len(s)} strides were given for {len(own)} sizes")
            out.append(s)
        self.own_sizes = {}
        for given, own in (self.input_sizes or {}).items() if self.element_wise else ():
            field = _field_of(self.schema, given, "--input-sizes")
            index = names.index(field)
            if out[index] is not None:
                raise UsageError(f"--input-sizes and --strides both give {field}'s layout; give one")
            if field in self.schema.single_element:
                raise UsageError(f"--input-sizes {field}: {self.schema.name}'s {field} holds one element, so it "
                                 f"has no sizes to broadcast")
            out[index] = _broadcast_strides(field, tuple(int(v) for v in own), sizes[index])
            self.own_sizes[field] = tuple(int(v) for v in own)
        return out

    def tensor_types(self):
        """Data type name of each tensor in binding order (`fields`)."""
        return [self._types[_base(name)] for name in self.fields]

    def tensor_sizes(self):
        """Sizes of each tensor in binding order (`fields`): element-wise, `sizes`, or one element per
        dimension for the tensors the schema requires to hold one element (QUANTIZED_LINEAR_ADD's scales and
        zero points); other operators each tensor's own (see `_shape_tensors`)."""
        if not self.element_wise:
            return [self._sizes[name] for name in self.fields]
        single = set(self.schema.single_element)
        return [(1,) * len(self.sizes) if name in single else self.sizes for name in self.fields]

    @property
    def scale_bias(self):
        if self.scale is None and self.bias is None:
            return None
        return (1.0 if self.scale is None else float(self.scale), 0.0 if self.bias is None else float(self.bias))

    def half_precision(self, preset=None):
        """Whether FLOAT16 math rounds every step to FLOAT16 (the flag on a native-FP16 adapter); the
        golden model and the kernels apply it to FLOAT16 tensors only."""
        preset = preset or DEFAULT_PRESET
        return bool(self.flags & DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION) and preset.native_fp16


def _fusable(name):
    return any(a.kind == FUSED_ACTIVATION for a in SCHEMAS_BY_NAME[name].attributes)


def _tensor_desc(data_type, sizes, strides):
    dml_type = DML_TENSOR_DATA_TYPE["DML_TENSOR_DATA_TYPE_" + data_type]
    total = DMLCalcBufferTensorSize(dml_type, len(sizes), list(sizes), list(strides) if strides else None)
    return DML_TENSOR_DESC(Type=DML_TENSOR_TYPE_BUFFER, Desc=DML_BUFFER_TENSOR_DESC(
        DataType=dml_type, Flags=DML_TENSOR_FLAG_NONE, Sizes=list(sizes),
        Strides=list(strides) if strides else None, TotalTensorSizeInBytes=total, GuaranteedBaseOffsetAlignment=0))


def _c_value(spec, value):
    """An attribute as its desc field holds it (a DML_SCALAR_UNION from its NumPy scalar)."""
    if spec.kind == SCALAR_UNION:
        data = np.asarray(value).astype(np.asarray(value).dtype.newbyteorder("<")).tobytes() if value is not None \
            else b""
        return DML_SCALAR_UNION(Bytes=data.ljust(8, b"\0"))
    if spec.kind == FUSED_ACTIVATION:
        if value is None:
            return None
        name, attributes = value
        activation = SCHEMAS_BY_NAME[name]
        fields = {s.field: _c_value(s, attributes[s.field]) for s in activation.attributes}
        return DML_OPERATOR_DESC(Type=activation.type, Desc=activation.desc_type(**fields))
    if spec.kind == SIZE_2D:
        return DML_SIZE_2D(Width=value[1], Height=value[0])
    if isinstance(value, tuple):
        return [float(v) if spec.kind == FLOAT_ARRAY else v for v in value]  # an array: its count field reads its length
    return value


def tensor_bytes(run):
    """Each bound tensor's TotalTensorSizeInBytes (DMLCalcBufferTensorSize), in `run.fields` order."""
    return [_tensor_desc(t, sizes, s).Desc.TotalTensorSizeInBytes for t, sizes, s in
            zip(run.tensor_types(), run.tensor_sizes(), run.strides)]


def operator_desc(run):
    """The DML_OPERATOR_DESC of an OperatorRun (CreateOperator validates it)."""
    schema = run.schema
    values = {role.field: [] if role.count_field else None for role in schema.tensors}   # left out: None
    for name, t, sizes, s in zip(run.fields, run.tensor_types(), run.tensor_sizes(), run.strides):
        desc = _tensor_desc(t, sizes, s)
        if isinstance(values[_base(name)], list):
            values[_base(name)].append(desc)     # a tensor array, in element order (its count reads its length)
        else:
            values[name] = desc
    if schema.scale_bias:
        sb = run.scale_bias
        values["ScaleBias"] = None if sb is None else DML_SCALE_BIAS(Scale=sb[0], Bias=sb[1])
    for spec in schema.attributes:
        values[spec.field] = _c_value(spec, run.attributes[spec.field])
    return DML_OPERATOR_DESC(Type=schema.type, Desc=schema.desc_type(**values))


def operator_info(run, preset=None, feature_level=None):
    """The validation.OperatorInfo CreateOperator makes of the run's desc (its `attributes` are what the
    kernels and dmlemu.golden.run take); HResultError where DirectML rejects the desc."""
    from dmlemu.directml.validation import validate_operator_desc
    preset = preset or DEFAULT_PRESET
    level = feature_level or min(preset.max_feature_level, DML_FEATURE_LEVEL_6_4)
    return validate_operator_desc(operator_desc(run), level, preset)


def random_inputs(run, seed=0):
    """Seeded inputs, easy to read: floats in quarter steps of [-4, 4], small integers, 0/1 conditions."""
    rng = np.random.default_rng(seed)
    arrays = []
    for name, type_name, sizes in zip(run.input_fields, run.tensor_types(), run.tensor_sizes()):
        dtype = DATA_TYPES[type_name]
        limits = _index_limits(run, name, sizes)
        if limits is not None:       # a gather's indices: in range, negative ones (from the end) where signed
            values = rng.integers(0 if dtype.kind == "u" else -limits, np.maximum(limits, 1))
        elif name == "IndicesTensor" and run.schema.shapes in SIZED_BY_OUTPUT:    # ONE_HOT: 0 to the depth
            axis, target = run.attributes.get("Axis", 0), run.tensor_sizes()[-1]
            values = rng.integers(0, max(target[axis] if 0 <= axis < len(target) else 1, 1), sizes)
        elif name == "IndicesTensor" and run.schema.shapes is None:     # MAX_UNPOOLING: flat into the output
            values = rng.integers(0, max(int(np.prod(run.tensor_sizes()[-1], dtype=object)), 1), sizes)
        elif name == "SequenceLengthsTensor":    # REVERSE_SUBSEQUENCES: 0 to the whole axis
            axis = run.attributes.get("Axis", 0)
            source = run.tensor_sizes()[0]
            values = rng.integers(0, (source[axis] if 0 <= axis < len(source) else 0) + 1, sizes)
        elif name == "ConditionTensor":
            values = rng.integers(0, 2, sizes)
        elif dtype.kind == "f":
            values = rng.integers(-16, 17, sizes) / 4.0
        elif dtype.kind == "i":
            values = rng.integers(-100, 101, sizes)
        else:
            values = rng.integers(0, 201, sizes)
        arrays.append(np.asarray(values).astype(dtype))
    return [as_stored(run, i, a) for i, a in enumerate(arrays)]


def _index_limits(run, field, sizes):
    """For a gather's or scatter's IndicesTensor: the size of the input dimension each index element names (an
    array of `sizes`), from the validator's gather plan (gather_shapes.plan); None for any other tensor."""
    if field != "IndicesTensor" or run.schema.shapes not in _INDEX_PLANS:
        return None
    source = run.tensor_sizes()[run.fields.index("InputTensor")]
    try:         # (a scatter has no output to fit: its plan may take as many dimensions as it needs)
        planned = plan(_INDEX_PLANS[run.schema.shapes], source, tuple(sizes),
                       len(source) if run.schema.shapes.startswith("GATHER") else 16, run.attributes)
    except (ArithmeticError, IndexError, KeyError, TypeError, ValueError):
        planned = None
    if planned is None or any(d >= len(source) for d in planned.tuple_dims):
        return None
    limits = np.array([source[d] for d in planned.tuple_dims], dtype=np.int64)
    if planned.component_dim is None:
        return np.full(sizes, limits[0], dtype=np.int64)
    shape = [1] * len(sizes)
    shape[planned.component_dim] = len(limits)
    return np.broadcast_to(limits.reshape(shape), sizes) if sizes[planned.component_dim] == len(limits) else None


def as_stored(run, index, array):
    """The logical tensor that memory holds after `array` is written at tensor `index`'s strides.

    With a stride of 0 (a broadcast) several logical elements share one memory element and the
    last one written wins; this gives the array the kernel and the golden model both really see.
    """
    strides = run.strides[index]
    if strides is None:
        return array
    type_name, sizes = run.tensor_types()[index], run.tensor_sizes()[index]
    buffer = np.zeros(max(4, golden.calc_buffer_tensor_size(type_name, sizes, strides)), dtype=np.uint8)
    golden.scatter(buffer, 0, array, strides)
    return golden.gather(buffer, 0, DATA_TYPES[type_name], sizes, strides)


def check_inputs(run, arrays, names=None):
    """Each input array must have its tensor's dtype and element count (or, for an input given --input-sizes,
    those sizes' count: it is broadcast); returns them in shape."""
    out = []
    fields = run.input_fields
    if len(arrays) != len(fields):
        raise UsageError(f"{run.name} takes {len(fields)} input(s) ({', '.join(fields)}); "
                         f"{len(arrays)} were given")
    for i, (array, field_name, type_name, sizes) in enumerate(zip(arrays, fields, run.tensor_types(),
                                                                  run.tensor_sizes())):
        source = names[i] if names else f"input {i}"
        dtype = DATA_TYPES[type_name]
        array = np.asarray(array)
        if array.dtype != dtype:
            raise UsageError(f"{field_name} is {type_name}; {source} holds {array.dtype}, not {dtype}")
        count = int(np.prod(sizes))
        own = run.own_sizes.get(field_name)
        if own is not None and array.size == int(np.prod(own)) and array.size != count:
            array = np.broadcast_to(array.reshape((1,) * (len(sizes) - len(own)) + own), sizes)   # --input-sizes
        if array.size != count:
            raise UsageError(f"{field_name} has Sizes {list(sizes)} ({count} elements); "
                             f"{source} has shape {array.shape} ({array.size} elements)")
        out.append(as_stored(run, i, array.reshape(sizes)))
    return out


def golden_outputs(run, inputs, preset=None, feature_level=None):
    """The outputs dmlemu.golden prescribes for these inputs (golden.run with the validated attributes)."""
    preset = preset or DEFAULT_PRESET
    if run.name not in golden.OPERATORS:
        raise UsageError(f"{run.name} has a kernel but dmlemu.golden has no model of it yet, so its run cannot be "
                         f"checked bit for bit")
    info = operator_info(run, preset, feature_level)
    scale_bias = None if info.scale_bias is None else tuple(float(v) for v in info.scale_bias)
    sizes = dict(zip(run.fields, run.tensor_sizes()))
    types = dict(zip(run.fields, run.tensor_types()))
    attributes = dict(info.attributes)
    if run.schema.moves == "SPLIT":     # each part's size along Axis
        attributes["OutputSizes"] = tuple(sizes[name][attributes["Axis"]] for name in run.output_fields)
    elif "OutputSizes" in golden.OPERATORS[run.name].keyword_attributes:   # the fills, SLICE1: no desc field says them
        attributes["OutputSizes"] = sizes[_GOLDEN_OUTPUT_SIZES.get(run.name, run.output_fields[0])]
    result = golden.run(run.name, bound_inputs(run, inputs), attributes, scale_bias, run.half_precision(preset),
                        output_type=run.output_type, output_sizes=sizes[run.output_fields[0]])
    results = list(result) if isinstance(result, (tuple, list)) else [result]
    outputs = [name for name in run.binding if name in run.output_fields or _base(name) in
               {r.field for r in run.schema.outputs}]
    return [np.asarray(value).astype(DATA_TYPES[types[name]], copy=False).reshape(sizes[name])
            for name, value in zip(outputs, results) if name in sizes]


# The output whose Sizes the golden model's OutputSizes means, where it is not the first output.
_GOLDEN_OUTPUT_SIZES = {"NONZERO_COORDINATES": "OutputCoordinatesTensor"}


def bound_specs(run, inputs=()):
    """(TensorSpecs, byte buffers) of every tensor of the desc in binding order, for a dmlemu.direct_run.DirectRun
    without the mirror (`dmlemu step`, `dmlemu sweep`): an optional tensor the run leaves out is None over 4 bytes
    nothing reads; `inputs` (one per `run.input_fields`, or none: zeros) are written at their tensors' strides."""
    from dmlemu.kernels.driver import TensorSpec
    present = dict(zip(run.fields, zip(run.tensor_types(), run.strides, run.tensor_sizes())))
    arrays = dict(zip(run.input_fields, inputs))
    specs, buffers = [], []
    for name in run.binding:
        if name not in present:
            specs.append(None)
            buffers.append(np.zeros(4, dtype=np.uint8))
            continue
        type_name, strides, sizes = present[name]
        total = golden.calc_buffer_tensor_size(type_name, sizes, strides)
        data = np.zeros(max(total, 4), dtype=np.uint8)
        if arrays.get(name) is not None:
            golden.scatter(data, 0, np.asarray(arrays[name]).reshape(sizes), strides)
        specs.append(TensorSpec(type_name, sizes, strides, total))
        buffers.append(data)
    return specs, buffers


def bound_inputs(run, inputs):
    """The input arrays (one per `run.input_fields`) as the desc binds them: None for an optional input the
    run leaves out (dmlemu.run_operator and dmlemu.golden.run take that list)."""
    given = dict(zip(run.input_fields, inputs))
    inputs = {r.field for r in run.schema.inputs}
    return [given.get(name) for name in run.binding if _base(name) in inputs]


def same_bits(a, b):
    """Bit-for-bit equality (NaN payloads and -0 count)."""
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    bits = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize]
    return bool(np.array_equal(a.view(bits), b.view(bits)))


@dataclass
class RunResult:
    run: OperatorRun
    inputs: list
    outputs: list
    expected: list
    trace: object = None

    @property
    def bit_exact(self):
        return all(same_bits(o, e) for o, e in zip(self.outputs, self.expected))


def validate(run, adapter=None, feature_level=None):
    """Create and compile the operator on a fresh DirectML device, as a program would.

    Raises the mirror's HResultError (E_INVALIDARG with its sentence, E_NOTIMPL where no kernel variant
    serves the data types, ...) for a desc DirectML rejects; tools that run kernels without the mirror
    (`dmlemu step`) call this first.
    """
    from dmlemu.d3d12 import D3D_FEATURE_LEVEL_11_0, D3D12CreateDevice
    from dmlemu.directml import DML_CREATE_DEVICE_FLAG_NONE, DMLCreateDevice
    from dmlemu.convenience import _adapter
    device = D3D12CreateDevice(_adapter(preset_for(adapter)), D3D_FEATURE_LEVEL_11_0)
    dml = DMLCreateDevice(device, DML_CREATE_DEVICE_FLAG_NONE, max_feature_level=feature_level)
    dml.CompileOperator(dml.CreateOperator(operator_desc(run)), run.flags)


def execute(run, inputs, *, adapter=None, feature_level=None, trace=None, debug=False, trace_max_rows=None):
    """Run through the API mirror (dmlemu.convenience.run_operator); returns a RunResult.

    trace: None, or a trace detail level ("dispatch", "wave", "instruction", "memory"); the
    RunResult then carries the run's traces.Trace. trace_max_rows: the recorder's rows per table
    (None: its default).
    """
    from dmlemu.convenience import run_operator
    preset = preset_for(adapter)
    inputs = check_inputs(run, inputs)
    kwargs = dict(flags=run.flags, adapter=preset, feature_level=feature_level, debug=debug)
    bound = bound_inputs(run, inputs)
    if trace:
        outputs, recorded = run_operator(operator_desc(run), bound, trace=trace, trace_max_rows=trace_max_rows,
                                         **kwargs)
    else:
        outputs, recorded = run_operator(operator_desc(run), bound, **kwargs), None
    return RunResult(run, inputs, outputs, golden_outputs(run, inputs, preset, feature_level), recorded)


def format_array(array, max_elements=64):
    """A small tensor as NumPy prints it on one line per row; large ones summarised."""
    array = np.asarray(array)
    if array.size > max_elements:
        flat = array.reshape(-1)
        return (f"{array.dtype} shape {array.shape}: "
                f"{np.array2string(flat[:8], separator=' ')[:-1]} ... {np.array2string(flat[-4:], separator=' ')[1:]}")
    return np.array2string(array, separator=" ", max_line_width=100)


def _attribute_text(spec, value):
    if spec.kind == ENUM:
        return spec.enum(value).name[len(_enum_prefix(spec.enum)):]
    if spec.kind == BOOL:
        return "TRUE" if value else "FALSE"
    if spec.kind == SIZE_2D:
        return f"{{Width {value[1]}, Height {value[0]}}}"
    if spec.kind == FLOAT_ARRAY:
        return "{" + ", ".join(f"{v:g}" for v in value) + "}"
    if spec.kind == FUSED_ACTIVATION:
        name, attributes = value
        activation = SCHEMAS_BY_NAME[name]
        inner = ", ".join(f"{s.field} {_attribute_text(s, attributes[s.field])}" for s in activation.attributes)
        return name + (f" ({inner})" if inner else "")
    if isinstance(value, tuple):
        return "{" + ", ".join(map(str, value)) + "}"
    return f"{value:g}" if isinstance(value, (float, np.floating)) else str(value)


def describe(run):
    """One line: 'ELEMENT_WISE_CLIP FLOAT16 Sizes {2, 4}, ScaleBias (2, 0.5), Min -1, Max 1'."""
    parts = [f"{run.name} {run.data_type} Sizes {{{', '.join(map(str, run.sizes))}}}"]
    for name, type_name in zip(run.fields, run.tensor_types()):
        if type_name != run.data_type:
            parts.append(f"{name} {type_name}")
    if not run.element_wise:
        parts += [f"{name}.Sizes {{{', '.join(map(str, sizes))}}}" for name, sizes in
                  zip(run.fields, run.tensor_sizes()) if name != run.fields_anchor]
    for name, strides in zip(run.fields, run.strides):
        if strides is not None:
            parts.append(f"{name}.Strides {{{', '.join(map(str, strides))}}}")
    if run.scale_bias is not None:
        parts.append(f"ScaleBias ({run.scale_bias[0]:g}, {run.scale_bias[1]:g})")
    for spec in run.schema.attributes:
        value = run.attributes[spec.field]
        if value is not None:
            parts.append(f"{spec.field} {_attribute_text(spec, value)}")
    if run.flags:
        parts.append(f"flags {DML_EXECUTION_FLAGS(run.flags).name}")
    return ", ".join(parts)


def _level(level):
    return f"{level >> 12}_{(level >> 8) & 0xF}"


def _attribute_kind(schema, spec):
    """How `dmlemu operators` describes an attribute: its kind, its values or rule, its default here."""
    if spec.kind == ENUM:
        prefix = _enum_prefix(spec.enum)
        if spec.matches:
            return f"{spec.enum.__name__}, = {spec.matches}.DataType"
        default = spec.enum(_default(schema, spec, {}, {})).name[len(prefix):]
        return " | ".join(n[len(prefix):] for n in spec.enum.__members__) + f"; default {default}"
    if spec.kind == SCALAR_UNION:
        value = ATTRIBUTE_DEFAULTS.get(spec.field, 0.0)
        return f"DML_SCALAR_UNION of {spec.type_field}; default {value:g}" + (", 0 if unsigned" if value < 0 else "")
    if spec.kind == FUSED_ACTIVATION:
        return "--fused NAME; default none"
    if spec.kind == BOOL:
        return f"BOOL (TRUE | FALSE); default {'FALSE' if spec.field in _FALSE_BOOLS else 'TRUE'}"
    if spec.kind in _INTEGER_KINDS:
        return _integer_kind(schema, spec)
    if spec.kind == SIZE_2D:
        return "DML_SIZE_2D Width,Height; default 2,2"
    if spec.kind == FLOAT_ARRAY:
        return ("FLOATs, one per dimension of InputTensor; default " +
                ("2 on the last two, 1 before" if spec.field == "Scales" else
                 "0.5 each" if spec.field == "InputPixelOffsets" else "-0.5 each"))
    rule = f", >= {spec.at_least:g}" + (f" below {_level(spec.at_least_until)}" if spec.at_least_until else "") \
        if spec.at_least is not None else ""
    return f"FLOAT{rule}; default {_default(schema, spec, {}, {}):g}"


def _sizes_text(schema):
    """How `dmlemu operators` says where an operator's tensors get their Sizes (OperatorRun._shape_tensors)."""
    first = sizes_field(schema)
    arrays = [r.field for r in schema.tensors if r.count_field]
    parts = [f"Sizes: {first}{'[0]' if first in arrays else ''} --sizes"]
    parts += [f"{field}: 2 parts, or as many as --input-sizes {field}[i]=N,N,... names" for field in arrays]
    for role in schema.inputs:
        if role.field == first:
            continue
        if role.optional:
            parts.append(f"{role.field} left out unless --input-sizes gives it")
        elif schema.multiplies and role.field == schema.multiplies[1]:
            parts.append(f"{role.field} default {{.., K, M}} (the product is M x M)")
        elif schema.convolves and role.field == schema.convolves[1]:
            parts.append(f"{role.field} default {{C, C / GroupCount, 3, 3}}")
        elif schema.normalizes and role.field in schema.normalizes[1:]:
            parts.append(f"{role.field} default {{1, C, 1, ..}}")
        elif role.field in QUANTIZATION_TENSORS.get(schema.name, ()):
            parts.append(f"{role.field} default one value {{1, .., 1}}")
        else:
            parts.append(f"{role.field} default {first}'s")
    unsized = _unsized_outputs(schema)
    if unsized:
        parts.append(f"{', '.join(unsized)} --output-sizes (any Sizes; no rule gives them)")
    outputs = ", ".join(role.field for role in schema.outputs if role.field != first and role.field not in unsized)
    if not outputs:
        return "; ".join(parts) + "; --input-sizes TENSOR=N,N,... gives any other"
    return "; ".join(parts) + f"; {outputs} derived (the shape rule); --input-sizes TENSOR=N,N,... gives any"


def _integer_kind(schema, spec):
    """How `dmlemu operators` describes an integer attribute (`--attr NAME=N` or `NAME=N,N,...`)."""
    c_type, is_array = _INTEGER_KINDS[spec.kind]
    of = spec.of or sizes_field(schema)
    if spec.kind == AXES:
        return f"axes of {of}, N,N,...; default the last"
    if spec.kind == UINT and spec.of is not None:
        return f"UINT, an axis of {of}; default the last"
    if not is_array:
        values = f" ({' or '.join(map(str, spec.one_of))})" if spec.one_of else ""
        return f"{c_type}{values}; default {_integer_default(schema, spec, {})}"
    if spec.field in ("Sizes", "InputWindowSizes"):
        return f"{c_type}s, one per dimension of {of}; default {of}'s Sizes"
    per = "spatial dimension" if spec.kind == SPATIAL else "dimension"
    value = _integer_default(schema, spec, {of: (1, 1, 1)})
    return f"{c_type}s, one per {per} of {of}; default {value[0] if value else 0} each"


def format_operator_list(feature_level=None):
    """`dmlemu operators`: every operator that runs, with the level that introduced it, its tensors' data
    types at `feature_level` (None: DML_FEATURE_LEVEL_6_4) and its attributes; then the operators
    dmlemu validates but has no kernel for."""
    level = feature_level or DML_FEATURE_LEVEL_6_4
    lines = [f"{len(OPERATORS)} operators run (`dmlemu run NAME`); data types at DML_FEATURE_LEVEL_{_level(level)}, "
             f"inputs -> output where they differ:", ""]
    for short, name in sorted(OPERATORS.items()):
        schema = SCHEMAS_BY_NAME[name]
        row = schema.support_at(level)
        head = f"{short:<28} DML_OPERATOR_{name}, since {_level(schema.introduced_at)}"
        if row is None:
            lines.append(f"{head}; not at this level")
            continue
        seen_in, seen_out = {}, {}
        for role in schema.inputs:
            seen_in.update(dict.fromkeys(row.tensors[role.field].data_types))
        for role in schema.outputs:
            seen_out.update(dict.fromkeys(row.tensors[role.field].data_types))
        types = " ".join(seen_in) + ("" if list(seen_out) == list(seen_in) else " -> " + " ".join(seen_out))
        lines.append(head)
        lines.append(f"{'':<4}{', '.join(r.field for r in schema.inputs)}: {types}")
        if name not in _ELEMENT_WISE_ROWS:
            lines.append(f"{'':<4}{_sizes_text(schema)}")
        extras = (["ScaleBias (--scale, --bias)"] if schema.scale_bias else []) + [
            f"{spec.field} ({_attribute_kind(schema, spec)})" for spec in schema.attributes]
        if extras:
            lines.append(f"{'':<4}{'; '.join(extras)}")
    if API_ONLY:
        lines += [""] + textwrap.wrap(f"runs through the API only (dmlemu.run_operator; not from the command line "
                                      f"yet): {', '.join(API_ONLY)}", 110)
    pending = sorted(n for n in SCHEMAS_BY_NAME if not has_kernel(n))
    if pending:
        lines += [""] + textwrap.wrap(f"validated, no kernel yet (CreateOperator answers E_NOTIMPL): "
                                      f"{', '.join(pending)}", 110)
    lines += ["", "Names: 'add', 'ELEMENT_WISE_ADD' or 'DML_OPERATOR_ELEMENT_WISE_ADD'; a short name that is both an "
              "ELEMENT_WISE_ and an ACTIVATION_ operator (IDENTITY) means the ELEMENT_WISE_ one.",
              "Attributes: --attr NAME=VALUE (enums by name or number), --min/--max for Min/Max, --fused NAME "
              "[--fused-attr NAME=VALUE].",
              "Arrays: --attr Axes=0,2 (one value per axis or dimension; FLOAT arrays and DML_SIZE_2D Width,Height "
              "too). Operators that are not element-wise: --input-sizes TENSOR=N,N,... gives any tensor's Sizes, "
              "--output-sizes the first output's."]
    return "\n".join(lines)
