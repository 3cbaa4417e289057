"""The index-driven operators' shape rules: the gathers' walks and Sizes checks, and the Sizes and attribute rules of
ONE_HOT, the scatters, REVERSE_SUBSEQUENCES, NONZERO_COORDINATES, RANDOM_GENERATOR, the resamplings (FLOAT arrays,
DML_SIZE_2D) and DIAGONAL_MATRIX (a C INT), as SHAPE_RULES keyed by the schemas' `shapes` names.

GATHER, GATHER_ELEMENTS, GATHER_ND and GATHER_ND1 all compute, per output element,

    output[o] = input[p(o) + sum_j coordinate_j * stride_j]   with coordinate_j read from indices[q(o) + j * step]

where p and q are linear in the output coordinates (each output dimension walks at most one input dimension and
at most one indices dimension), and the tuple of index components j = 0 .. m-1 (m = 1 for GATHER and
GATHER_ELEMENTS, the indices' last size for GATHER_ND) names input dimensions. `plan` returns that map; the
validator (dmlemu.directml.validation) checks the output's Sizes against it, and the kernel compiler
(dmlemu.kernels.gather_ops) turns it into dimension records. The golden model (dmlemu.golden.gather) is written
from the pages independently.

The rules, per DirectML page (sdk-api ns-directml-dml_gather*_operator_desc):
  GATHER           OutputTensor.Sizes = {InputTensor.Sizes[0..Axis], IndicesTensor.Sizes[(D - IndexDimensions)
                   .. D], InputTensor.Sizes[(Axis+1) .. D]}, right-aligned into D dimensions (leading 1s
                   cropped, 1s padded in front); Axis < D; dmlemu accepts IndexDimensions from 0 to D (the page
                   says "[0, IndicesTensor.DimensionCount)", which would forbid a 1-D gather by 1-D indices).
  GATHER_ELEMENTS  IndicesTensor.Sizes must match InputTensor.Sizes "for every dimension except Axis"; the output
                   has the indices' Sizes (the schema's same_sizes).
  GATHER_ND(1)     the last InputDimensionCount (IndicesDimensionCount) dimensions are the actual ones; the
                   indices' last size m is the tuple length (1 <= m <= InputDimensionCount - BatchDimensionCount);
                   BatchDimensionCount < IndicesDimensionCount leading actual dimensions of both must agree;
                   OutputTensor.Sizes = {1..., IndicesTensor.Sizes[(D - IndicesDimensionCount) .. (D - 1)],
                   InputTensor.Sizes[(D - InputDimensionCount + BatchDimensionCount + m) .. D]}, right-aligned.
                   Dimensions in front of the actual ones are read at coordinate 0.
"""
import math
from dataclasses import dataclass

from dmlemu.com import check_float, check_sequence, check_uint, invalid, is_integer
from dmlemu.directml.structs import DML_SIZE_2D

__all__ = ["GatherPlan", "plan", "scatter_nd_updates", "SHAPE_RULES", "DERIVED_SIZES", "FIXED_SIZES", "INPUT_SIZES",
           "SIZED_BY_OUTPUT", "check_int", "validate_float_array", "validate_size_2d"]


@dataclass(frozen=True)
class GatherPlan:
    """The output's expected Sizes and, per output dimension, (input dimension or None, indices dimension or
    None); the tuple's input dimensions (component j names tuple[j]); the indices dimension the components
    step along (None: one component)."""
    output_sizes: tuple
    walks: tuple
    tuple_dims: tuple
    component_dim: object = None


def _format(values):
    return "{" + ",".join(str(v) for v in values) + "}"


def _check_axis(op, axis, field, rank):
    """Axis below the DimensionCount of `field` (a tensor of `rank` dimensions)."""
    if axis >= rank:
        raise invalid(f"Axis is {axis}; {field} has {rank} dimensions, so {op} takes Axis 0 to {rank - 1}.")


def _right_align(entries, rank, what):
    """entries: [(size, input dim, indices dim)] -> (sizes, walks) of `rank` dimensions (1s padded in front,
    leading 1s cropped); None when a cropped entry is not 1."""
    extra = len(entries) - rank
    if extra > 0:
        if any(size != 1 for size, _, _ in entries[:extra]):
            return None
        entries = entries[extra:]
    entries = [(1, None, None)] * (rank - len(entries)) + list(entries)
    return tuple(e[0] for e in entries), tuple((e[1], e[2]) for e in entries)


def plan(operator, input_sizes, indices_sizes, output_rank, attributes):
    """The GatherPlan of a desc whose attributes are already in range (see `check`); None when the output cannot
    hold the relevant dimensions (a cropped leading size is not 1)."""
    rank = len(input_sizes)
    if operator == "GATHER":
        axis, k = attributes["Axis"], attributes["IndexDimensions"]
        entries = ([(input_sizes[d], d, None) for d in range(axis)]
                   + [(indices_sizes[d], None, d) for d in range(len(indices_sizes) - k, len(indices_sizes))]
                   + [(input_sizes[d], d, None) for d in range(axis + 1, rank)])
        aligned = _right_align(entries, output_rank, "GATHER")
        return None if aligned is None else GatherPlan(aligned[0], aligned[1], (axis,))
    if operator == "GATHER_ELEMENTS":
        axis = attributes["Axis"]
        walks = tuple((None if d == axis else d, d) for d in range(rank))
        return GatherPlan(tuple(indices_sizes), walks, (axis,))
    # GATHER_ND, GATHER_ND1
    d_in, d_idx = len(input_sizes), len(indices_sizes)
    first_in = d_in - attributes["InputDimensionCount"]
    first_idx = d_idx - attributes["IndicesDimensionCount"]
    batch = attributes.get("BatchDimensionCount", 0)
    m = indices_sizes[-1]
    entries = ([(indices_sizes[first_idx + i], first_in + i, first_idx + i) for i in range(batch)]
               + [(indices_sizes[d], None, d) for d in range(first_idx + batch, d_idx - 1)]
               + [(input_sizes[d], d, None) for d in range(first_in + batch + m, d_in)])
    aligned = _right_align(entries, output_rank, operator)
    if aligned is None:
        return None
    return GatherPlan(aligned[0], aligned[1], tuple(range(first_in + batch, first_in + batch + m)), d_idx - 1)


def _check_gather(schema, by_field, attributes):
    op = schema.c_name
    source, indices, target = by_field["InputTensor"], by_field["IndicesTensor"], by_field["OutputTensor"]
    rank = len(source.sizes)
    axis = attributes["Axis"]
    _check_axis(op, axis, "InputTensor", rank)
    if schema.name == "GATHER":
        k = attributes["IndexDimensions"]
        if k > len(indices.sizes):
            raise invalid(f"IndexDimensions is {k}; IndicesTensor has {len(indices.sizes)} dimensions, so {op} takes "
                          f"IndexDimensions 0 to {len(indices.sizes)}.")
    else:
        for d, (a, b) in enumerate(zip(source.sizes, indices.sizes)):
            if d != axis and a != b:
                raise invalid(f"IndicesTensor.Sizes is {_format(indices.sizes)} but InputTensor.Sizes is "
                              f"{_format(source.sizes)}; {op} requires the same size in every dimension but Axis "
                              f"({axis}).")
    _check_output(op, schema.name, source, indices, target, attributes)


def _check_gather_nd(schema, by_field, attributes):
    op = schema.c_name
    source, indices, target = by_field["InputTensor"], by_field["IndicesTensor"], by_field["OutputTensor"]
    d_in, d_idx = len(source.sizes), len(indices.sizes)
    ri, qi = attributes["InputDimensionCount"], attributes["IndicesDimensionCount"]
    batch = attributes.get("BatchDimensionCount", 0)
    if not 1 <= ri <= d_in:
        raise invalid(f"InputDimensionCount is {ri}; InputTensor has {d_in} dimensions, so {op} takes 1 to {d_in}.")
    if not 1 <= qi <= d_idx:
        raise invalid(f"IndicesDimensionCount is {qi}; IndicesTensor has {d_idx} dimensions, so {op} takes 1 to "
                      f"{d_idx}.")
    if batch >= qi or batch >= ri:
        raise invalid(f"BatchDimensionCount is {batch}; {op} requires it below InputDimensionCount ({ri}) and "
                      f"IndicesDimensionCount ({qi}).")
    m = indices.sizes[-1]
    if m > ri - batch:
        raise invalid(f"IndicesTensor.Sizes is {_format(indices.sizes)}; its last size ({m}, the coordinates per "
                      f"index tuple) must not exceed InputDimensionCount - BatchDimensionCount ({ri - batch}) "
                      f"for {op}.")
    for i in range(batch):
        a, b = source.sizes[d_in - ri + i], indices.sizes[d_idx - qi + i]
        if a != b:
            raise invalid(f"IndicesTensor.Sizes is {_format(indices.sizes)} but InputTensor.Sizes is "
                          f"{_format(source.sizes)}; {op} requires the {batch} batch dimensions to agree.")
    _check_output(op, schema.name, source, indices, target, attributes)


def _check_output(op, name, source, indices, target, attributes):
    expected = plan(name, source.sizes, indices.sizes, len(target.sizes), attributes)
    if expected is None:
        raise invalid(f"OutputTensor has {len(target.sizes)} dimensions; {op} with InputTensor.Sizes "
                      f"{_format(source.sizes)} and IndicesTensor.Sizes {_format(indices.sizes)} needs more (a "
                      f"leading size that is not 1 would be cropped).")
    if tuple(target.sizes) != expected.output_sizes:
        raise invalid(f"OutputTensor.Sizes is {_format(target.sizes)}; {op} with InputTensor.Sizes "
                      f"{_format(source.sizes)} and IndicesTensor.Sizes {_format(indices.sizes)} needs "
                      f"{_format(expected.output_sizes)}.")


def validate_float_array(schema, spec, desc, by_field, prefix):
    """A FLOAT array and its count field (RESAMPLE's ScaleCount, Scales; RESAMPLE1's DimensionCount shared by three
    arrays): the count agrees with the array, and the array has one value per dimension of `spec.of` ("This value
    must match the dimension count of InputTensor and OutputTensor"). Returns a tuple of np.float32."""
    op = schema.c_name
    where, count_where = prefix + spec.field, prefix + spec.count_field
    values = getattr(desc, spec.field)
    if values is None:
        raise invalid(f"{where} is None; {op} needs one value per dimension.")
    values = check_sequence(values, where, what="a sequence of numbers", max_length=8,
                            limit="a DirectML tensor has at most 8 dimensions")
    count = check_uint(getattr(desc, spec.count_field), count_where)
    if count != len(values):
        raise invalid(f"{count_where} is {count} but {where} has {len(values)} elements; they must agree.")
    rank = len(by_field[spec.of].sizes)
    if count != rank:
        raise invalid(f"{count_where} is {count}; it must match {spec.of}'s DimensionCount ({rank}) for {op}.")
    return tuple(check_float(v, f"{where}[{i}]") for i, v in enumerate(values))


def _check_resample(schema, by_field, attributes):
    """Scales finite and above 0, pixel offsets finite (dmlemu's rules: the pages take a scale as a size ratio)."""
    op = schema.c_name
    for field in ("Scales", "InputPixelOffsets", "OutputPixelOffsets"):
        for i, value in enumerate(attributes.get(field, ())):
            if not (abs(float(value)) < float("inf")) or (field == "Scales" and not value > 0):
                rule = "finite and above 0" if field == "Scales" else "finite"
                raise invalid(f"{field}[{i}] is {float(value)!r}; dmlemu requires every {field[:-1]} of {op} to be "
                              f"{rule}.")


def check_int(value, where):
    """A C INT: an integer from -2^31 to 2^31 - 1, returned as a Python int."""
    if not is_integer(value) or not -(1 << 31) <= int(value) < 1 << 31:
        raise invalid(f"{where} is {value!r}; it must be an integer from {-(1 << 31)} to {(1 << 31) - 1}.")
    return int(value)


def validate_size_2d(value, where):
    """A DML_SIZE_2D (UPSAMPLE_2D's ScaleSize): (Height, Width), each a UINT of at least 1 (dmlemu's rule: the
    output is floor(input * scale), and a scale of 0 would leave no output)."""
    if not isinstance(value, DML_SIZE_2D):
        raise invalid(f"{where} is {type(value).__name__ if value is not None else 'None'}; it must be a "
                      f"DML_SIZE_2D.")
    return (check_uint(value.Height, f"{where}.Height", min_value=1),
            check_uint(value.Width, f"{where}.Width", min_value=1))


def _check_upsample(schema, by_field, attributes):
    """OutputTensor.Sizes = {N, C, H * ScaleSize.Height, W * ScaleSize.Width}."""
    source, target = by_field["InputTensor"], by_field["OutputTensor"]
    height, width = attributes["ScaleSize"]
    expected = _upsampled_sizes({"InputTensor": source.sizes}, attributes)["OutputTensor"]
    if tuple(target.sizes) != expected:
        raise invalid(f"OutputTensor.Sizes is {_format(target.sizes)}; {schema.c_name} with InputTensor.Sizes "
                      f"{_format(source.sizes)} and ScaleSize {{{width},{height}}} (Width, Height) needs "
                      f"{_format(expected)}.")


def _one_hot_indices_sizes(sizes, attributes):
    """ONE_HOT's IndicesTensor: the output's Sizes but 1 along Axis."""
    axis = attributes["Axis"]
    return {"IndicesTensor": tuple(1 if d == axis else size for d, size in enumerate(sizes["OutputTensor"]))}


def _check_one_hot(schema, by_field, attributes):
    """Axis below the DimensionCount; IndicesTensor's Sizes the output's but 1 along Axis; ValuesTensor "may have
    any size, so long as it contains at least two elements"."""
    op = schema.c_name
    indices, values, target = by_field["IndicesTensor"], by_field["ValuesTensor"], by_field["OutputTensor"]
    axis, rank = attributes["Axis"], len(indices.sizes)
    _check_axis(op, axis, "IndicesTensor", rank)
    expected = _one_hot_indices_sizes({"OutputTensor": target.sizes}, attributes)["IndicesTensor"]
    if tuple(indices.sizes) != expected:
        raise invalid(f"IndicesTensor.Sizes is {_format(indices.sizes)}; {op} with OutputTensor.Sizes "
                      f"{_format(target.sizes)} and Axis {axis} needs {_format(expected)}.")
    if values.element_count < 2:
        raise invalid(f"ValuesTensor.Sizes is {_format(values.sizes)}; {op} needs at least two elements (OffValue, "
                      f"OnValue).")


def _check_scatter_elements(schema, by_field, attributes):
    """Axis below the DimensionCount; IndicesTensor no larger than InputTensor in any dimension but Axis."""
    op = schema.c_name
    source, indices = by_field["InputTensor"], by_field["IndicesTensor"]
    axis, rank = attributes["Axis"], len(source.sizes)
    _check_axis(op, axis, "InputTensor", rank)
    for d, (a, b) in enumerate(zip(source.sizes, indices.sizes)):
        if d != axis and b > a:
            raise invalid(f"IndicesTensor.Sizes is {_format(indices.sizes)} but InputTensor.Sizes is "
                          f"{_format(source.sizes)}; {op} requires IndicesTensor no larger in every dimension but "
                          f"Axis ({axis}).")


def scatter_nd_updates(input_sizes, indices_sizes, input_dimension_count, indices_dimension_count):
    """UpdatesTensor's Sizes for SCATTER_ND ({IndicesTensor's actual sizes but the last, InputTensor's sizes after
    the m named ones}, right-aligned into the DimensionCount), or None when they do not fit."""
    rank = len(input_sizes)
    m = indices_sizes[-1]
    first_in, first_idx = rank - input_dimension_count, len(indices_sizes) - indices_dimension_count
    entries = ([(indices_sizes[d], None, d) for d in range(first_idx, len(indices_sizes) - 1)]
               + [(input_sizes[d], d, None) for d in range(first_in + m, rank)])
    aligned = _right_align(entries, rank, "SCATTER_ND")
    return None if aligned is None else aligned[0]


def _check_scatter_nd(schema, by_field, attributes):
    op = schema.c_name
    source, indices, updates = by_field["InputTensor"], by_field["IndicesTensor"], by_field["UpdatesTensor"]
    rank = len(source.sizes)
    ri, qi = attributes["InputDimensionCount"], attributes["IndicesDimensionCount"]
    if not 1 <= ri <= rank:
        raise invalid(f"InputDimensionCount is {ri}; InputTensor has {rank} dimensions, so {op} takes 1 to {rank}.")
    if not 1 <= qi <= rank:
        raise invalid(f"IndicesDimensionCount is {qi}; IndicesTensor has {rank} dimensions, so {op} takes 1 to "
                      f"{rank}.")
    m = indices.sizes[-1]
    if m > ri:
        raise invalid(f"IndicesTensor.Sizes is {_format(indices.sizes)}; its last size ({m}, the coordinates per "
                      f"index tuple) must not exceed InputDimensionCount ({ri}) for {op}.")
    expected = scatter_nd_updates(source.sizes, indices.sizes, ri, qi)
    if expected is None or tuple(updates.sizes) != expected:
        needs = _format(expected) if expected is not None else "more dimensions"
        raise invalid(f"UpdatesTensor.Sizes is {_format(updates.sizes)}; {op} with InputTensor.Sizes "
                      f"{_format(source.sizes)} and IndicesTensor.Sizes {_format(indices.sizes)} needs {needs}.")


def _sequence_lengths_sizes(sizes, attributes):
    """REVERSE_SUBSEQUENCES' SequenceLengthsTensor: the input's Sizes but 1 along Axis."""
    axis = attributes["Axis"]
    return {"SequenceLengthsTensor": tuple(1 if d == axis else size for d, size in enumerate(sizes["InputTensor"]))}


def _check_reverse_subsequences(schema, by_field, attributes):
    """Axis below the DimensionCount; SequenceLengthsTensor the input's Sizes but 1 along Axis."""
    op = schema.c_name
    source, lengths = by_field["InputTensor"], by_field["SequenceLengthsTensor"]
    axis, rank = attributes["Axis"], len(source.sizes)
    _check_axis(op, axis, "InputTensor", rank)
    expected = _sequence_lengths_sizes({"InputTensor": source.sizes}, attributes)["SequenceLengthsTensor"]
    if tuple(lengths.sizes) != expected:
        raise invalid(f"SequenceLengthsTensor.Sizes is {_format(lengths.sizes)}; {op} with InputTensor.Sizes "
                      f"{_format(source.sizes)} and Axis {axis} needs {_format(expected)}.")


def _nonzero_sizes(sizes, attributes):
    """NONZERO_COORDINATES' outputs: the count one element {1, .., 1}, the coordinates {1, .., 1, M, N} with M the
    input's elements and N its DimensionCount (the largest N allowed: every coordinate)."""
    source = tuple(sizes["InputTensor"])
    rank = len(source)
    return {"OutputCountTensor": (1,) * rank, "OutputCoordinatesTensor": (1,) * (rank - 2) + (math.prod(source), rank)}


def _check_nonzero(schema, by_field, attributes):
    """OutputCountTensor "must be a scalar"; OutputCoordinatesTensor {1, .., 1, M, N}: M the input's elements, N
    from its effective rank (leading 1s excluded) to its DimensionCount."""
    op = schema.c_name
    source, count, coordinates = (by_field["InputTensor"], by_field["OutputCountTensor"],
                                  by_field["OutputCoordinatesTensor"])
    if count.element_count != 1:
        raise invalid(f"OutputCountTensor.Sizes is {_format(count.sizes)}; {op} needs every size 1 (a scalar).")
    rank = len(source.sizes)
    effective = rank
    while effective and source.sizes[rank - effective] == 1:
        effective -= 1
    n = coordinates.sizes[-1]
    expected_lead = _nonzero_sizes({"InputTensor": source.sizes}, attributes)["OutputCoordinatesTensor"][:-1]
    if tuple(coordinates.sizes[:-1]) != expected_lead or not max(effective, 1) <= n <= rank:
        raise invalid(f"OutputCoordinatesTensor.Sizes is {_format(coordinates.sizes)}; {op} with InputTensor.Sizes "
                      f"{_format(source.sizes)} needs {_format(expected_lead + ('N',))} with N from "
                      f"{max(effective, 1)} to {rank}.")


# Tensors whose Sizes a rule fixes whatever the others are, by shape rule name: RANDOM_GENERATOR's states.
FIXED_SIZES = {"RANDOM_GENERATOR": {"InputStateTensor": (1, 1, 1, 6), "OutputStateTensor": (1, 1, 1, 6)}}


def _check_random(schema, by_field, attributes):
    """InputStateTensor (and OutputStateTensor) {1,1,1,6}: PHILOX_4X32_10's 128-bit counter and 64-bit key."""
    for field, fixed in FIXED_SIZES["RANDOM_GENERATOR"].items():
        tensor = by_field.get(field)
        if tensor is not None and tuple(tensor.sizes) != fixed:
            raise invalid(f"{field}.Sizes is {_format(tensor.sizes)}; {schema.c_name} with "
                          f"DML_RANDOM_GENERATOR_TYPE_PHILOX_4X32_10 needs {{1,1,1,6}}.")


SHAPE_RULES = {"RANDOM_GENERATOR": _check_random, "NONZERO_COORDINATES": _check_nonzero, "REVERSE_SUBSEQUENCES": _check_reverse_subsequences, "SCATTER_ND": _check_scatter_nd, "SCATTER_ELEMENTS": _check_scatter_elements, "ONE_HOT": _check_one_hot, "UPSAMPLE_2D": _check_upsample, "GATHER": _check_gather, "GATHER_ELEMENTS": _check_gather, "GATHER_ND": _check_gather_nd,
               "RESAMPLE": _check_resample}


def _check_top_k(schema, by_field, attributes):
    """TOP_K, TOP_K1: each output "must have sizes equal to the InputTensor, except for the dimension specified by
    the Axis parameter, which must have a size equal to K"; K from 1 to the size along Axis (the page says "less
    than", which would refuse K = the whole axis: docs/DEVIATIONS.md, "Top-K"), and that size below 2^31 (the
    kernel's signed index compare)."""
    op = schema.c_name
    source = by_field["InputTensor"]
    axis, k = attributes["Axis"], attributes["K"]
    size = source.sizes[axis]
    if k > size:
        raise invalid(f"K is {k}; InputTensor.Sizes is {_format(source.sizes)}, so {op} along Axis {axis} takes K "
                      f"from 1 to {size}.")
    if size >= 1 << 31:
        raise invalid(f"InputTensor.Sizes[{axis}] is {size}; dmlemu's {op} selects along at most {(1 << 31) - 1} "
                      f"elements.")
    expected = _top_k_sizes({"InputTensor": source.sizes}, attributes)["OutputValueTensor"]
    for field in ("OutputValueTensor", "OutputIndexTensor"):
        if tuple(by_field[field].sizes) != expected:
            raise invalid(f"{field}.Sizes is {_format(by_field[field].sizes)}; {op} with InputTensor.Sizes "
                          f"{_format(source.sizes)}, Axis {axis} and K {k} needs {_format(expected)}.")


def _top_k_sizes(sizes, attributes):
    """TOP_K's outputs: the input's Sizes with K along Axis."""
    axis, k = attributes["Axis"], attributes["K"]
    expected = tuple(k if d == axis else s for d, s in enumerate(sizes["InputTensor"]))
    return {"OutputValueTensor": expected, "OutputIndexTensor": expected}


SHAPE_RULES.update({"TOP_K": _check_top_k})


def _upsampled_sizes(sizes, attributes):
    """UPSAMPLE_2D: {N, C, H * ScaleSize.Height, W * ScaleSize.Width}."""
    source, (height, width) = tuple(sizes["InputTensor"]), attributes["ScaleSize"]
    return {"OutputTensor": source[:-2] + (source[-2] * height, source[-1] * width)}


def _resampled_sizes(sizes, attributes):
    """The resamplings: floor(input * scale) per dimension, a scale read as the size ratio (ONNX Resize's output
    Sizes). CreateOperator checks no such rule (a desc may pair any Sizes with its Scales): `dmlemu run`'s choice
    where the command line gives no output Sizes."""
    return {"OutputTensor": tuple(int(size * float(scale)) for size, scale in zip(sizes["InputTensor"],
                                                                                 attributes["Scales"]))}


def _gather_sizes(operator):
    """The gathers' output: the plan's Sizes in the input's DimensionCount (the three tensors share it)."""
    def sizes_of(sizes, attributes):
        planned = plan(operator, tuple(sizes["InputTensor"]), tuple(sizes["IndicesTensor"]), len(sizes["InputTensor"]),
                       attributes)
        return {} if planned is None else {"OutputTensor": planned.output_sizes}
    return sizes_of


def _scatter_nd_update_sizes(sizes, attributes):
    """SCATTER_ND's UpdatesTensor from the input's and the indices' Sizes (`scatter_nd_updates`)."""
    expected = scatter_nd_updates(tuple(sizes["InputTensor"]), tuple(sizes["IndicesTensor"]),
                                  attributes["InputDimensionCount"], attributes["IndicesDimensionCount"])
    return {} if expected is None else {"UpdatesTensor": expected}


# The rules above that determine an input's Sizes from the other inputs' ({field: Sizes} of those known) and the
# attributes, the same way.
INPUT_SIZES = {"REVERSE_SUBSEQUENCES": _sequence_lengths_sizes, "SCATTER_ND": _scatter_nd_update_sizes,
               "ONE_HOT": _one_hot_indices_sizes}
# The rules whose output's Sizes no input determines (ONE_HOT's depth along Axis), but which size an input from it.
SIZED_BY_OUTPUT = ("ONE_HOT",)
# The rules above that determine outputs' Sizes from the inputs' Sizes and the attributes, as functions
# ({input field: Sizes}, attributes) -> {output field: Sizes}: validation.derived_output_sizes reads them.
DERIVED_SIZES = {"TOP_K": _top_k_sizes, "NONZERO_COORDINATES": _nonzero_sizes, "UPSAMPLE_2D": _upsampled_sizes,
                 "RESAMPLE": _resampled_sizes,
                 **{name: _gather_sizes(name) for name in ("GATHER", "GATHER_ELEMENTS", "GATHER_ND")}}
# the integer matrix products' zero point and scale shapes (dmlemu.directml.quantized_shapes)
from dmlemu.directml.quantized_shapes import SHAPE_RULES as _QUANTIZED_SHAPE_RULES  # noqa: E402
SHAPE_RULES.update(_QUANTIZED_SHAPE_RULES)
