"""The element-wise operators' table: what the one kernel skeleton needs to know about each operator.

Every element-wise and activation operator is the same kernel: element_wise_head.inc (prologue,
addressing, descriptors, constants, loads, widening, ScaleBias), a body of a few instructions, and
element_wise_tail.inc (FusedActivation, narrowing, store). One `ElementWiseOperator` row per operator
says everything else, by name:

  tensors       the desc's tensor fields in binding order, the output last
  types         the data types the kernel serves (of the tensor named by `type_tensor`)
  body          where the body is: the operator's own listing (`source`, e.g. clip.s) or the block
                `.if BODY == "<name>"` of element_wise_bodies.inc (source element_wise.s)
  scale_bias    the desc has a ScaleBias (applied to the first input)
  bounds        FLOAT fields cast to the tensor type inside the kernel (CLIP, THRESHOLD: Min, Max)
  params        attributes packed into the constant buffer's PARAM dwords, in order: (field, encoding)
                with encoding "f32" (a FLOAT, cast to the compute type by the head), "tensor" (a
                DML_SCALAR_UNION already of the tensor's type: its bits, 1 or 2 dwords) or "u32"
  bits          "never": arithmetic (FLOAT16 widens to f32 unless every step is FLOAT16);
                "without_scale_bias": moves bits unless there is a ScaleBias (IDENTITY);
                "always": moves bits (IF); "cast": moves bits when input and output types are equal
  output        "same" (the output has the inputs' type, computed in the compute type),
                "u32" (a 32-bit 0/1 or count stored into an integer output: comparisons, IS_NAN,
                BIT_COUNT; `output_types`, the first the default), "any" (CAST: the body converts)
  canonical     the body may pass a float input on unchanged (a select): the tail multiplies the
                result by 1.0 so that a NaN leaves canonical, as arithmetic's does
  activation    the desc has a FusedActivation (ADD1)
  symbols       extra symbols for a body shared by several operators (e.g. the comparison)
  type_combos   operators whose tensors' data types vary apart (QUANTIZE/DEQUANTIZE_LINEAR,
                QUANTIZED_LINEAR_ADD): every data type tuple (binding order) the kernel serves; the
                first one whose deciding tensor has a type is that type's default
  optional      tensors (binding indices) the desc may leave out (None): the variant loads nothing
                for them (the body sees ABSENT_T<i>) and their slot is bound DML_BINDING_TYPE_NONE

The driver (kernels/driver.py) turns a row, the tensors' data types and the desc's flags into the
assembler symbols of one variant; nothing else in the driver depends on the operator. A row is keyed by
the operator's DirectML name, as its schema (dmlemu.directml.operators) and golden function (dmlemu.golden)
are; dmlemu.operator_registry checks that the three exist together and agree, and that every body a row
selects has its block.
"""
from dataclasses import dataclass, field

from dmlemu import data_types as _data_types

# Type lists of the rows, from the data type table (every type a tensor is stored in).
ALL_TYPES = _data_types.names()
FLOAT_TYPES = tuple(t for t in _data_types.names("float") if t != "FLOAT64")   # the element-wise arithmetic's floats
INTEGER_TYPES = _data_types.names("signed", "unsigned")
SIGNED_TYPES = _data_types.names("signed")
NUMERIC_TYPES = FLOAT_TYPES + INTEGER_TYPES     # DirectML's element-wise tables have no FLOAT64 arithmetic
NO_FLOAT64 = NUMERIC_TYPES


@dataclass(frozen=True, kw_only=True)
class ElementWiseOperator:
    """One operator of the element-wise skeleton (see the module docstring for each field)."""
    name: str
    tensors: tuple
    types: tuple
    source: str = "element_wise.s"
    scale_bias: bool = False
    bounds: tuple = ()
    params: tuple = ()
    bits: str = "never"
    output: str = "same"
    type_tensor: int = 0
    activation: bool = False
    symbols: dict = field(default_factory=dict)
    output_types: tuple = ()        # output "u32" / "any": the output data types served
    body_name: str = ""             # a body shared with other operators (default: the operator's name)
    canonical: bool = False
    type_combos: tuple = ()         # every data type tuple served, where the tensors' types vary apart
    optional: tuple = ()            # binding indices of the tensors the desc may leave out

    @property
    def inputs(self):
        return len(self.tensors) - 1

    @property
    def body(self):
        return self.body_name or self.name


UNARY = ("InputTensor", "OutputTensor")
BINARY = ("ATensor", "BTensor", "OutputTensor")

_ROWS = []


def _row(**fields):
    _ROWS.append(ElementWiseOperator(**fields))


# ---- the four operators with a listing of their own ------------------------------------------------------
_row(name="ELEMENT_WISE_IDENTITY", tensors=UNARY, types=ALL_TYPES, source="identity.s", scale_bias=True,
     bits="without_scale_bias")
_row(name="ELEMENT_WISE_THRESHOLD", tensors=UNARY, types=NO_FLOAT64, source="threshold.s", scale_bias=True,
     bounds=("Min",))
_row(name="ELEMENT_WISE_CLIP", tensors=UNARY, types=NO_FLOAT64, source="clip.s", scale_bias=True,
     bounds=("Min", "Max"))
_row(name="ELEMENT_WISE_IF", tensors=("ConditionTensor", "ATensor", "BTensor", "OutputTensor"), types=ALL_TYPES,
     source="if.s", bits="always", type_tensor=1)

# ---- arithmetic ------------------------------------------------------------------------------------------
_row(name="ELEMENT_WISE_ADD", tensors=BINARY, types=NUMERIC_TYPES)
_row(name="ELEMENT_WISE_ADD1", tensors=BINARY, types=NUMERIC_TYPES, body_name="ELEMENT_WISE_ADD", activation=True)
_row(name="ELEMENT_WISE_SUBTRACT", tensors=BINARY, types=NUMERIC_TYPES)
_row(name="ELEMENT_WISE_MULTIPLY", tensors=BINARY, types=NUMERIC_TYPES)
_row(name="ELEMENT_WISE_DIFFERENCE_SQUARE", tensors=BINARY, types=NUMERIC_TYPES)
_row(name="ELEMENT_WISE_MEAN", tensors=BINARY, types=NUMERIC_TYPES)
_row(name="ELEMENT_WISE_MIN", tensors=BINARY, types=NUMERIC_TYPES)
_row(name="ELEMENT_WISE_MAX", tensors=BINARY, types=NUMERIC_TYPES)
_row(name="ELEMENT_WISE_ABS", tensors=UNARY, types=FLOAT_TYPES + INTEGER_TYPES, scale_bias=True,
     bits="without_scale_bias")
_row(name="ELEMENT_WISE_NEGATE", tensors=UNARY, types=FLOAT_TYPES + SIGNED_TYPES, bits="always")
_row(name="ELEMENT_WISE_SIGN", tensors=UNARY, types=NUMERIC_TYPES)
_row(name="ELEMENT_WISE_CLIP1", tensors=UNARY, types=NUMERIC_TYPES, scale_bias=True,
     params=(("Min", "tensor"), ("Max", "tensor")))
_row(name="ELEMENT_WISE_CLIP_GRAD", tensors=("InputTensor", "InputGradientTensor", "OutputGradientTensor"),
     types=NUMERIC_TYPES, bounds=("Min", "Max"), body_name="CLIP_GRAD", canonical=True)
_row(name="ELEMENT_WISE_CLIP_GRAD1", tensors=("InputTensor", "InputGradientTensor", "OutputGradientTensor"),
     types=NUMERIC_TYPES, params=(("Min", "tensor"), ("Max", "tensor")), body_name="CLIP_GRAD", canonical=True)
_row(name="ELEMENT_WISE_DIVIDE", tensors=BINARY, types=NUMERIC_TYPES,
     body_name="DIVIDE", symbols={"DIVISION": "quotient"})
_row(name="ELEMENT_WISE_MODULUS_TRUNCATE", tensors=BINARY, types=NUMERIC_TYPES,
     body_name="MODULUS", symbols={"DIVISION": "truncate"})
_row(name="ELEMENT_WISE_MODULUS_FLOOR", tensors=BINARY, types=NUMERIC_TYPES,
     body_name="MODULUS", symbols={"DIVISION": "floor"})
# ---- rounding ---------------------------------------------------------------------------------------------
_row(name="ELEMENT_WISE_CEIL", tensors=UNARY, types=FLOAT_TYPES, scale_bias=True)
_row(name="ELEMENT_WISE_FLOOR", tensors=UNARY, types=FLOAT_TYPES, scale_bias=True)
_row(name="ELEMENT_WISE_ROUND", tensors=UNARY, types=FLOAT_TYPES, params=(("RoundingMode", "u32"),))
# ---- comparisons and logic --------------------------------------------------------------------------------
_BOOL_OUT = ("UINT8", "UINT32", "UINT16", "INT8", "INT16", "INT32")
for _name, _cmp in (("EQUALS", "eq"), ("GREATER_THAN", "gt"), ("LESS_THAN", "lt"),
                    ("GREATER_THAN_OR_EQUAL", "ge"), ("LESS_THAN_OR_EQUAL", "le")):
    _row(name=f"ELEMENT_WISE_LOGICAL_{_name}", tensors=BINARY, types=NUMERIC_TYPES, output="u32",
         output_types=_BOOL_OUT, body_name="COMPARE", symbols={"CMP": _cmp})
for _name, _logic in (("AND", "and"), ("OR", "or"), ("XOR", "xor")):
    _row(name=f"ELEMENT_WISE_LOGICAL_{_name}", tensors=BINARY, types=INTEGER_TYPES, output="u32",
         output_types=_BOOL_OUT, body_name="LOGICAL", symbols={"LOGIC": _logic})
_row(name="ELEMENT_WISE_LOGICAL_NOT", tensors=UNARY, types=INTEGER_TYPES, output="u32", output_types=_BOOL_OUT)
_row(name="ELEMENT_WISE_IS_NAN", tensors=UNARY, types=FLOAT_TYPES, output="u32", output_types=_BOOL_OUT)
_row(name="ELEMENT_WISE_IS_INFINITY", tensors=UNARY, types=FLOAT_TYPES, output="u32", output_types=_BOOL_OUT,
     params=(("InfinityMode", "infinity_class"),))
# ---- bits -------------------------------------------------------------------------------------------------
for _name in ("AND", "OR", "XOR"):      # float tensors: their bits
    _row(name=f"ELEMENT_WISE_BIT_{_name}", tensors=BINARY, types=ALL_TYPES, bits="always")
_row(name="ELEMENT_WISE_BIT_NOT", tensors=UNARY, types=ALL_TYPES, bits="always")
_row(name="ELEMENT_WISE_BIT_COUNT", tensors=UNARY, types=ALL_TYPES, bits="always", output="u32",
     output_types=_BOOL_OUT)
_row(name="ELEMENT_WISE_BIT_SHIFT_LEFT", tensors=BINARY, types=INTEGER_TYPES)
_row(name="ELEMENT_WISE_BIT_SHIFT_RIGHT", tensors=BINARY, types=INTEGER_TYPES)
# ---- conversion -------------------------------------------------------------------------------------------
_row(name="CAST", tensors=UNARY, types=ALL_TYPES, output="any", output_types=ALL_TYPES, bits="cast",
     body_name="ELEMENT_WISE_CAST")
# ---- quantization (bodies: element_wise_quantize.inc) -------------------------------------------------------
# The tables of FL6.4: QUANTIZE_LINEAR FLOAT32/FLOAT16 (scale of the input's type) or INT32 (FLOAT32 scale) to
# INT8/UINT8 (the zero point's type); DEQUANTIZE_LINEAR 8- to 32-bit integers (zero point of the input's type)
# to FLOAT32/FLOAT16 (the scale's type); QUANTIZED_LINEAR_ADD INT8/UINT8 A, B and output (each with its zero
# point), FLOAT32 scales of one element. The zero points are optional (FL6.2; QUANTIZED_LINEAR_ADD: FL4.0).
_QUANT_OUT = ("UINT8", "INT8")
_row(name="ELEMENT_WISE_QUANTIZE_LINEAR", tensors=("InputTensor", "ScaleTensor", "ZeroPointTensor", "OutputTensor"),
     types=("FLOAT32", "FLOAT16", "INT32"), output="any", output_types=_QUANT_OUT, optional=(2,),
     type_combos=tuple((x, "FLOAT32" if x == "INT32" else x, y, y) for x in ("FLOAT32", "FLOAT16", "INT32")
                       for y in _QUANT_OUT))
_INTS_8_TO_32 = ("INT32", "INT16", "INT8", "UINT32", "UINT16", "UINT8")
_row(name="ELEMENT_WISE_DEQUANTIZE_LINEAR", tensors=("InputTensor", "ScaleTensor", "ZeroPointTensor", "OutputTensor"),
     types=_INTS_8_TO_32, output="any", output_types=FLOAT_TYPES, optional=(2,),
     type_combos=tuple((x, y, x, y) for x in _INTS_8_TO_32 for y in FLOAT_TYPES))
_row(name="ELEMENT_WISE_QUANTIZED_LINEAR_ADD",
     tensors=("ATensor", "AScaleTensor", "AZeroPointTensor", "BTensor", "BScaleTensor", "BZeroPointTensor",
              "OutputScaleTensor", "OutputZeroPointTensor", "OutputTensor"),
     types=("INT8", "UINT8"), output="any", output_types=("INT8", "UINT8"), optional=(2, 5, 7),
     type_combos=tuple((a, "FLOAT32", a, b, "FLOAT32", b, "FLOAT32", y, y) for a, other in (("INT8", "UINT8"),
                                                                                        ("UINT8", "INT8"))
                       for b in (a, other) for y in (a, other)))   # A's type first: the default is all one type
# ---- normalization with given statistics: Mean, Variance, Scale and Bias broadcast by stride 0 --------------------
_row(name="BATCH_NORMALIZATION", tensors=("InputTensor", "MeanTensor", "VarianceTensor", "ScaleTensor", "BiasTensor",
                                          "OutputTensor"), types=FLOAT_TYPES, params=(("Epsilon", "f32"),),
     activation=True)

# ---- activations (also FusedActivation bodies) ----------------------------------------------------------------
_row(name="ACTIVATION_IDENTITY", tensors=UNARY, types=FLOAT_TYPES)
_row(name="ACTIVATION_RELU", tensors=UNARY, types=FLOAT_TYPES + SIGNED_TYPES)
_row(name="ACTIVATION_LEAKY_RELU", tensors=UNARY, types=FLOAT_TYPES, params=(("Alpha", "f32"),), canonical=True)
_row(name="ACTIVATION_LINEAR", tensors=UNARY, types=FLOAT_TYPES, params=(("Alpha", "f32"), ("Beta", "f32")))
_row(name="ACTIVATION_PARAMETERIZED_RELU", tensors=("InputTensor", "SlopeTensor", "OutputTensor"),
     types=FLOAT_TYPES + ("INT32", "INT16", "INT8"), canonical=True)
_row(name="ACTIVATION_HARD_SIGMOID", tensors=UNARY, types=FLOAT_TYPES, params=(("Alpha", "f32"), ("Beta", "f32")))
_row(name="ACTIVATION_HARD_SWISH", tensors=UNARY, types=FLOAT_TYPES, params=(("Alpha", "f32"), ("Beta", "f32")))
_row(name="ACTIVATION_SHRINK", tensors=UNARY, types=FLOAT_TYPES + ("INT32", "INT16", "INT8", "UINT32", "UINT16",
                                                                  "UINT8"),
     params=(("Bias", "f32"), ("Threshold", "f32")), canonical=True)
_row(name="ACTIVATION_THRESHOLDED_RELU", tensors=UNARY, types=FLOAT_TYPES, params=(("Alpha", "f32"),),
     canonical=True)
_row(name="ACTIVATION_RELU_GRAD", tensors=("InputTensor", "InputGradientTensor", "OutputGradientTensor"),
     types=FLOAT_TYPES + ("INT32", "INT16", "INT8"), canonical=True)

# ---- transcendental functions and their activations (bodies: element_wise_math.inc) ------------------------------
for _name in ("EXP", "LOG", "SQRT", "RECIP", "SIN", "COS", "TAN", "ASIN", "ACOS", "ATAN", "SINH", "COSH", "ASINH",
              "ACOSH", "ATANH", "ERF"):
    _row(name=f"ELEMENT_WISE_{_name}", tensors=UNARY, types=FLOAT_TYPES, scale_bias=True)
_row(name="ELEMENT_WISE_TANH", tensors=UNARY, types=FLOAT_TYPES, scale_bias=True, body_name="TANH")
_row(name="ELEMENT_WISE_CONSTANT_POW", tensors=UNARY, types=FLOAT_TYPES, scale_bias=True,
     params=(("Exponent", "f32"),), body_name="POW", symbols={"POW_TENSOR": 0})
# POW of 8- to 32-bit integers (FL3.0): the body INTEGER_POW (exact, wrapping); an ExponentTensor of another type
# than the input has no kernel (E_NOTIMPL)
_row(name="ELEMENT_WISE_POW", tensors=("InputTensor", "ExponentTensor", "OutputTensor"),
     types=FLOAT_TYPES + tuple(t for t in INTEGER_TYPES if not _data_types.BY_NAME[t].is_64bit),
     scale_bias=True, body_name="POW", symbols={"POW_TENSOR": 1})
_row(name="ELEMENT_WISE_ATAN_YX", tensors=BINARY, types=FLOAT_TYPES)
_row(name="ACTIVATION_ELU", tensors=UNARY, types=FLOAT_TYPES, params=(("Alpha", "f32"),))
_row(name="ACTIVATION_CELU", tensors=UNARY, types=FLOAT_TYPES, params=(("Alpha", "f32"),))
_row(name="ACTIVATION_SCALED_ELU", tensors=UNARY, types=FLOAT_TYPES, params=(("Alpha", "f32"), ("Gamma", "f32")))
_row(name="ACTIVATION_GELU", tensors=UNARY, types=FLOAT_TYPES)
_row(name="ACTIVATION_SIGMOID", tensors=UNARY, types=FLOAT_TYPES)
_row(name="ACTIVATION_SWISH", tensors=UNARY, types=FLOAT_TYPES, params=(("SigmoidInputScale", "f32"),))
_row(name="ACTIVATION_SOFTPLUS", tensors=UNARY, types=FLOAT_TYPES, params=(("Steepness", "f32"),))
_row(name="ACTIVATION_PARAMETRIC_SOFTPLUS", tensors=UNARY, types=FLOAT_TYPES,
     params=(("Alpha", "f32"), ("Beta", "f32")))
_row(name="ACTIVATION_SOFTSIGN", tensors=UNARY, types=FLOAT_TYPES)
_row(name="ACTIVATION_TANH", tensors=UNARY, types=FLOAT_TYPES, body_name="TANH")
_row(name="ACTIVATION_SCALED_TANH", tensors=UNARY, types=FLOAT_TYPES, params=(("Alpha", "f32"), ("Beta", "f32")))

OPERATORS = {row.name: row for row in _ROWS}
# The activations a FusedActivation may name (DirectML's "Using fused operators" list, those with a kernel).
FUSABLE = tuple(name for name in OPERATORS if name.startswith("ACTIVATION_") and name not in (
    "ACTIVATION_RELU_GRAD", "ACTIVATION_PARAMETERIZED_RELU", "ACTIVATION_SWISH", "ACTIVATION_HARD_SWISH"))

__all__ = ["ElementWiseOperator", "OPERATORS", "FUSABLE", "ALL_TYPES", "FLOAT_TYPES", "INTEGER_TYPES", "SIGNED_TYPES",
           "NUMERIC_TYPES"]
