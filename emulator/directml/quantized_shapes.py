"""The integer matrix products' shape rules for their scale and zero point tensors, as SHAPE_RULES keyed by the
schemas' `shapes` names (dmlemu.directml.gather_shapes merges them into its table; validation runs them).

Per DirectML page (sdk-api ns-directml-dml_matrix_multiply_integer_operator_desc,
ns-directml-dml_quantized_linear_matrix_multiply_operator_desc), with A {.., M, K}, B {.., K, N}:
  AZeroPointTensor, AScaleTensor                 {1,1,1,1} (per tensor) or {1,1,M,1} (per row)
  BZeroPointTensor, BScaleTensor                 {1,1,1,1} (per tensor) or {1,1,1,N} (per column)
  OutputZeroPointTensor, OutputScaleTensor       {1,1,1,1} (per tensor) or {1,1,M,1} (per row)
  BiasTensor (MATRIX_MULTIPLY_INTEGER_TO_FLOAT)  {1,1,1,1} or {1,1,1,N} (per column)
and CONVOLUTION_INTEGER's (ns-directml-dml_convolution_integer_operator_desc): InputZeroPointTensor {1,1,1,1},
FilterZeroPointTensor {1,1,1,1} or {1,K,1,1} (per output channel, K the output's channels); and
QUANTIZED_LINEAR_CONVOLUTION's: its input's and output's scale and zero point one value, the filter's scale and
zero point one value or one per output channel.
(in the tensors' DimensionCount; every size but the row's or the column's is 1). A zero point and the scale of
the same tensor are checked apart: the pages do not require that both are per row when one is.
"""
from dmlemu.com import invalid

__all__ = ["SHAPE_RULES", "QUANTIZATION_TENSORS"]

# (field, the dimension from the end that may be larger than 1, the tensor whose size it then must be, which size)
_ROW_OF_A = (-2, "ATensor", -2, "M")
_COLUMN_OF_B = (-1, "BTensor", -1, "N")
_QUANTIZED_FIELDS = {
    "MATRIX_MULTIPLY_INTEGER": (("AZeroPointTensor", _ROW_OF_A), ("BZeroPointTensor", _COLUMN_OF_B)),
    "QUANTIZED_LINEAR_MATRIX_MULTIPLY": (
        ("AScaleTensor", _ROW_OF_A), ("AZeroPointTensor", _ROW_OF_A), ("BScaleTensor", _COLUMN_OF_B),
        ("BZeroPointTensor", _COLUMN_OF_B), ("OutputScaleTensor", _ROW_OF_A), ("OutputZeroPointTensor", _ROW_OF_A)),
    "MATRIX_MULTIPLY_INTEGER_TO_FLOAT": (
        ("AScaleTensor", _ROW_OF_A), ("AZeroPointTensor", _ROW_OF_A), ("BScaleTensor", _COLUMN_OF_B),
        ("BZeroPointTensor", _COLUMN_OF_B), ("BiasTensor", _COLUMN_OF_B)),
}

# CONVOLUTION_INTEGER: the input's zero point one value; the filter's one value or one per output channel {1,K,1,1}
_CONVOLUTION_FIELDS = (("InputZeroPointTensor", None), ("FilterZeroPointTensor", 1))
_QUANTIZED_CONVOLUTION_FIELDS = (("InputScaleTensor", None), ("InputZeroPointTensor", None),
                                 ("FilterScaleTensor", 1), ("FilterZeroPointTensor", 1), ("OutputScaleTensor", None),
                                 ("OutputZeroPointTensor", None))


def _format(values):
    return "{" + ",".join(str(v) for v in values) + "}"


def _check_quantization_tensors(schema, by_field, attributes):
    """Each scale / zero point holds one value, or one per row of A (per column of B)."""
    for field, (axis, source, source_axis, letter) in _QUANTIZED_FIELDS[schema.name]:
        tensor = by_field.get(field)
        if tensor is None:
            continue
        rank = len(tensor.sizes)
        full = int(by_field[source].sizes[source_axis])
        per_tensor = (1,) * rank
        per_line = tuple(full if d == rank + axis else 1 for d in range(rank))
        if tuple(tensor.sizes) not in (per_tensor, per_line):
            kind = "per row" if letter == "M" else "per column"
            raise invalid(f"{field}.Sizes is {_format(tensor.sizes)}; {schema.c_name} needs {_format(per_tensor)} "
                          f"(per tensor) or {_format(per_line)} ({kind}, {letter} = {full}).")


def _check_convolution_zero_points(schema, by_field, attributes):
    """CONVOLUTION_INTEGER's zero points: one value, or the filter's one per output channel."""
    channels = int(by_field["OutputTensor"].sizes[1])
    fields = _CONVOLUTION_FIELDS if schema.name == "CONVOLUTION_INTEGER" else _QUANTIZED_CONVOLUTION_FIELDS
    for field, axis in fields:
        tensor = by_field.get(field)
        if tensor is None:
            continue
        rank = len(tensor.sizes)
        allowed = [(1,) * rank] + ([tuple(channels if d == axis else 1 for d in range(rank))] if axis else [])
        if tuple(tensor.sizes) not in allowed:
            raise invalid(f"{field}.Sizes is {_format(tensor.sizes)}; {schema.c_name} needs "
                          f"{' or '.join(_format(a) for a in allowed)} (one value{'' if axis is None else ', or one per output channel'}).")


SHAPE_RULES = {**{name: _check_quantization_tensors for name in _QUANTIZED_FIELDS},
               "CONVOLUTION_INTEGER": _check_convolution_zero_points,
               "QUANTIZED_LINEAR_CONVOLUTION": _check_convolution_zero_points}

# Each operator's scale, zero point (and MATRIX_MULTIPLY_INTEGER_TO_FLOAT's bias) fields: one value each ({1,..,1})
# always fits the rules above, which is what `dmlemu run` gives those it needs (tools/operators.py).
QUANTIZATION_TENSORS = {**{name: tuple(f for f, _ in fields) for name, fields in _QUANTIZED_FIELDS.items()},
                        "CONVOLUTION_INTEGER": tuple(f for f, _ in _CONVOLUTION_FIELDS),
                        "QUANTIZED_LINEAR_CONVOLUTION": tuple(f for f, _ in _QUANTIZED_CONVOLUTION_FIELDS)}
