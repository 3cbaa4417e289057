"""The gathers' table and compiler: GATHER, GATHER_ELEMENTS, GATHER_ND(1) and ONE_HOT as one kernel, gather.s.

Every gather is, per output element, a walk of the output's coordinates (one merged dimension record per output
dimension, with three strides: the input's along the dimensions the output shares with it, the indices' along
the dimensions it shares with them, the output's) followed by m index components, each a record after the
output's (its input dimension's size and stride, and its element offset in the indices). Which input and indices
dimension each output dimension walks is dmlemu.directml.gather_shapes.plan, the same map the validator checks
the output's Sizes against. One `GatherOperator` row per operator says:

  tensors     the desc's tensor fields in binding order, the output last
  source      the kernel source
  params      the desc's attributes the compiler reads, (field, kind) (the registry checks that the schema has them)

The addressing is address.inc's (three tensors, the general path, division magic from the driver); a variant is
the data's element size (the data moves as bits), the index type (32 or 64 bits, signed or not) and the
multiply-add width. A desc whose output records and index components need more than the constant buffer's
record array holds is `NoKernel` (E_NOTIMPL). The rule for indices out of range is docs/NUMERICS.md's "Gathers".
"""
import functools
import os
from dataclasses import dataclass

import numpy as np

from dmlemu.directml.gather_shapes import plan
from dmlemu.isa.assembler import assemble_file
from dmlemu.isa.program import Program
from dmlemu.kernels import address
from dmlemu.kernels.constant_buffer import LAYOUT
from dmlemu.kernels.element_moves import LOAD_OF_SIZE, STORE_OF_SIZE, sizes

KERNEL_DIR = os.path.dirname(os.path.abspath(__file__))
_SIZE = sizes(("FLOAT64", "FLOAT32", "FLOAT16", "INT64", "INT32", "INT16", "INT8", "UINT64", "UINT32", "UINT16", "UINT8"))
_LOAD, _STORE = LOAD_OF_SIZE, STORE_OF_SIZE      # by element size: bits only, no sign extension needed
INDEX_TYPES = ("INT32", "UINT32", "INT64", "UINT64")


@dataclass(frozen=True, kw_only=True)
class GatherOperator:
    """One operator of the gather family (see the module docstring for each field)."""
    name: str
    tensors: tuple = ("InputTensor", "IndicesTensor", "OutputTensor")
    source: str = "gather.s"
    params: tuple = ()
    scale_bias: bool = False
    bounds: tuple = ()
    optional: tuple = ()
    family: str = "gather"


OPERATORS = {row.name: row for row in (
    GatherOperator(name="GATHER", params=(("Axis", "u32"), ("IndexDimensions", "u32"))),
    GatherOperator(name="GATHER_ELEMENTS", params=(("Axis", "u32"),)),
    GatherOperator(name="GATHER_ND", params=(("InputDimensionCount", "u32"), ("IndicesDimensionCount", "u32"))),
    # ONE_HOT: the same walk; the OffValue is ValuesTensor's first element, the OnValue is added where the index
    # equals the coordinate along Axis (kernels/gather.s, ONE_HOT)
    GatherOperator(name="ONE_HOT", tensors=("IndicesTensor", "ValuesTensor", "OutputTensor"),
                   params=(("Axis", "u32"),)),
    # SCATTER_ELEMENTS: the inverse walk, on kernels/scatter.s (each output element scans its K candidates)
    GatherOperator(name="SCATTER_ELEMENTS", source="scatter.s",
                   tensors=("InputTensor", "IndicesTensor", "UpdatesTensor", "OutputTensor"), params=(("Axis", "u32"),)),
    # REVERSE_SUBSEQUENCES: the same walk; the component reads a length, not an index (kernels/reverse_length.inc)
    GatherOperator(name="REVERSE_SUBSEQUENCES", tensors=("InputTensor", "SequenceLengthsTensor", "OutputTensor"),
                   params=(("Axis", "u32"),)),
    # SCATTER_ND: each output element scans the index tuples (kernels/scatter_nd.s)
    GatherOperator(name="SCATTER_ND", source="scatter_nd.s",
                   tensors=("InputTensor", "IndicesTensor", "UpdatesTensor", "OutputTensor"),
                   params=(("InputDimensionCount", "u32"), ("IndicesDimensionCount", "u32"))),
    GatherOperator(name="GATHER_ND1", params=(("InputDimensionCount", "u32"), ("IndicesDimensionCount", "u32"),
                                              ("BatchDimensionCount", "u32"))),
)}


def variant_symbols(data_bytes, index_type, wide, layout=LAYOUT, one_hot=False, reverse=False):
    """The assembler symbols of one variant of gather.s (`one_hot`: DML_OPERATOR_ONE_HOT, whose IndicesTensor is
    bound first and whose tensor 3 counts the coordinate along Axis)."""
    shifts = {0: data_bytes.bit_length() - 1, 1: _SIZE[index_type].bit_length() - 1, 2: data_bytes.bit_length() - 1,
              3: 0}
    records = layout.field("RECORDS")
    return {
        "PACKED": 0, "PACKED_X1": 0, "PACKED_X2": 0, "SHIFT_DATA": shifts[2],
        **{f"HAS_T{t}": int(t == 2 or (t == 3 and (one_hot or reverse))) for t in range(2, 9)},
        **{f"SHIFT_T{t}": shifts[t] for t in range(4)},
        "MAD_OFFSET": "v_mad_u32" if wide else "v_mad_u32_u24", "ONE_HOT": int(one_hot), "REVERSE": int(reverse),
        "DESC_DATA": 32 if one_hot else 0, "DESC_INDICES": 0 if one_hot else 32, "DESC_OUT": 64,
        "RECORDS_END": records.end,
        "INDEX_TYPE": index_type, "INDEX_PAIR": int(_SIZE[index_type] == 8),
        "INDEX_SIGNED": int(index_type.startswith("INT")),
        "LOAD": _LOAD[data_bytes], "STORE": _STORE[data_bytes], "DATA": "v[20:21]" if data_bytes == 8 else "v20",
        "DATA_PAIR": int(data_bytes == 8), "DATA_BYTES": data_bytes, **address.DEFAULTS, **layout.symbols()}


@functools.lru_cache(maxsize=None)
def build_program(data_bytes, index_type, wide, layout=LAYOUT, one_hot=False, reverse=False):
    """Assemble and decode one variant of gather.s (cached)."""
    dwords = assemble_file(os.path.join(KERNEL_DIR, "gather.s"),
                           variant_symbols(data_bytes, index_type, wide, layout, one_hot, reverse))
    kind = "one_hot" if one_hot else "reverse_subsequences" if reverse else "gather"
    return Program(dwords, f"{kind}_x{data_bytes}_{index_type.lower()}{'_wide' if wide else ''}")


def _reverse_records(tensors, attributes, packed_strides, merge_dimensions):
    """(merged output sizes, merged strides of [input, lengths, output, coordinate], the component) of
    REVERSE_SUBSEQUENCES: the input and the lengths at coordinate 0 along Axis, the component moves the input."""
    source, lengths, target = tensors
    axis = int(attributes["Axis"])
    sizes = tuple(int(s) for s in target.sizes)
    strides = [tuple(t.strides) if t.strides is not None else packed_strides(tuple(t.sizes)) for t in tensors]
    rank = len(sizes)
    walk = [[0 if d == axis else strides[0][d] for d in range(rank)],
            [0 if d == axis else strides[1][d] for d in range(rank)], list(strides[2]),
            [1 if d == axis else 0 for d in range(rank)]]
    merged_sizes, merged = merge_dimensions(sizes, walk)
    return merged_sizes, merged, [(sizes[axis], strides[0][axis], 0)]


def _one_hot_records(tensors, attributes, packed_strides, merge_dimensions):
    """(merged output sizes, merged strides of [values, indices, output, coordinate], the component) of ONE_HOT."""
    indices, values, target = tensors
    axis = int(attributes["Axis"])
    sizes = tuple(int(s) for s in target.sizes)
    strides = [tuple(t.strides) if t.strides is not None else packed_strides(tuple(t.sizes)) for t in tensors]
    rank = len(sizes)
    walk = [[0] * rank, [0 if d == axis else strides[0][d] for d in range(rank)], list(strides[2]),
            [1 if d == axis else 0 for d in range(rank)]]
    merged_sizes, merged = merge_dimensions(sizes, walk)
    # the OnValue: "the 1st element along the fastest-changing dimension of size > 1" of ValuesTensor
    on = next(strides[1][d] for d in reversed(range(len(values.sizes))) if int(values.sizes[d]) > 1)
    return merged_sizes, merged, [(sizes[axis], on, 0)]


def scatter_symbols(data_bytes, index_type, wide, layout=LAYOUT):
    """The assembler symbols of one variant of scatter.s (SCATTER_ELEMENTS)."""
    shift = data_bytes.bit_length() - 1
    return {"PACKED": 0, "PACKED_X1": 0, "PACKED_X2": 0, "SHIFT_DATA": shift,
            **{f"HAS_T{t}": int(t <= 4) for t in range(2, 9)}, "SHIFT_T0": shift,
            "SHIFT_T1": _SIZE[index_type].bit_length() - 1, "SHIFT_T2": shift, "SHIFT_T3": shift, "SHIFT_T4": 0,
            "MAD_OFFSET": "v_mad_u32" if wide else "v_mad_u32_u24",
            **{f"DESC_T{t}": 32 * t for t in range(4)}, "INDEX_PAIR": int(_SIZE[index_type] == 8),
            "INDEX_SIGNED": int(index_type.startswith("INT")), "LOAD": _LOAD[data_bytes], "STORE": _STORE[data_bytes],
            "DATA": "v[20:21]" if data_bytes == 8 else "v20", "UPDATE": "v[24:25]" if data_bytes == 8 else "v24",
            "DATA_PAIR": int(data_bytes == 8), **address.DEFAULTS, **layout.symbols()}


@functools.lru_cache(maxsize=None)
def build_scatter_program(data_bytes, index_type, wide, layout=LAYOUT):
    """Assemble and decode one variant of scatter.s (cached)."""
    dwords = assemble_file(os.path.join(KERNEL_DIR, "scatter.s"), scatter_symbols(data_bytes, index_type, wide, layout))
    return Program(dwords, f"scatter_elements_x{data_bytes}_{index_type.lower()}{'_wide' if wide else ''}")


def compile_scatter(operator, tensors, attributes, layout, no_kernel, division_magic, packed_strides,
                    merge_dimensions, workgroup_size):
    """(program, constant buffer bytes, output elements) of a validated SCATTER_ELEMENTS desc (scatter.s)."""
    source, indices, updates, target = tensors
    axis = int(attributes["Axis"])
    if indices.data_type not in INDEX_TYPES or source.data_type not in _SIZE:
        raise no_kernel(f"dmlemu's kernel for {operator} has no variant for {source.data_type} data with "
                        f"{indices.data_type} indices")
    if any(d != axis and int(a) != int(b) for d, (a, b) in enumerate(zip(source.sizes, indices.sizes))):
        raise no_kernel(f"dmlemu's kernel for {operator} serves IndicesTensor of InputTensor's Sizes in every "
                        f"dimension but Axis, not {tuple(indices.sizes)} with {tuple(source.sizes)}")
    sizes = tuple(int(s) for s in target.sizes)
    strides = [tuple(t.strides) if t.strides is not None else packed_strides(tuple(t.sizes)) for t in tensors]
    rank = len(sizes)
    walk = [list(strides[0]), [0 if d == axis else strides[1][d] for d in range(rank)],
            [0 if d == axis else strides[2][d] for d in range(rank)], list(strides[3]),
            [int(d == axis) for d in range(rank)]]
    merged_sizes, merged = merge_dimensions(sizes, walk)
    records = []
    for d in reversed(range(len(merged_sizes))):
        magic, shift1, shift2 = division_magic(merged_sizes[d])
        records.append({"SIZE": merged_sizes[d], "MAGIC": magic, "SHIFT1": shift1, "SHIFT2": shift2,
                        **{f"STRIDE_T{t}": merged[t][d] & 0xFFFFFFFF for t in range(5)}})
    data_bytes, index_bytes = _SIZE[source.data_type], _SIZE[indices.data_type]
    values = {"ELEMENTS": int(np.prod(sizes, dtype=np.int64)), "WORKGROUP_SIZE": workgroup_size,
              "RECORD_COUNT": len(merged_sizes), "PARAM0": int(indices.sizes[axis]),
              "PARAM1": (strides[1][axis] * index_bytes) & 0xFFFFFFFF,
              "PARAM2": (strides[2][axis] * data_bytes) & 0xFFFFFFFF, "PARAM3": sizes[axis]}
    wide = max(merged_sizes) >= 1 << 24 or any(s >= 1 << 24 for t in merged for s in t)
    constants = layout.pack(values, records, params=True, wide=True)
    return build_scatter_program(data_bytes, indices.data_type, wide, layout), constants, values["ELEMENTS"]


@functools.lru_cache(maxsize=None)
def build_scatter_nd_program(data_bytes, index_type, layout=LAYOUT):
    """Assemble and decode one variant of scatter_nd.s (cached): address.inc walks InputTensor (tensor 0),
    UpdatesTensor's slice (1), OutputTensor (2) and the key (3, shift 0)."""
    shift = data_bytes.bit_length() - 1
    symbols = dict(scatter_symbols(data_bytes, index_type, True, layout), HAS_T4=0, SHIFT_T1=shift, SHIFT_T2=shift,
                   SHIFT_T3=0, SHIFT_IDX=_SIZE[index_type].bit_length() - 1, RECORDS_END=layout.field("RECORDS").end)
    dwords = assemble_file(os.path.join(KERNEL_DIR, "scatter_nd.s"), symbols)
    return Program(dwords, f"scatter_nd_x{data_bytes}_{index_type.lower()}")


def compile_scatter_nd(operator, tensors, attributes, layout, no_kernel, division_magic, packed_strides,
                       merge_dimensions, workgroup_size):
    """(program, constant buffer bytes, output elements) of a validated SCATTER_ND desc (scatter_nd.s)."""
    source, indices, updates, target = tensors
    if indices.data_type not in INDEX_TYPES or source.data_type not in _SIZE:
        raise no_kernel(f"dmlemu's kernel for {operator} has no variant for {source.data_type} data with "
                        f"{indices.data_type} indices")
    sizes = tuple(int(s) for s in target.sizes)
    rank = len(sizes)
    strides = [tuple(t.strides) if t.strides is not None else packed_strides(tuple(t.sizes)) for t in tensors]
    ri, qi = int(attributes["InputDimensionCount"]), int(attributes["IndicesDimensionCount"])
    m = int(indices.sizes[-1])
    first_in, first_idx = rank - ri, rank - qi
    in_sizes = tuple(int(s) for s in source.sizes)
    weights = [int(np.prod(in_sizes[first_in + j + 1:first_in + m], dtype=np.int64)) for j in range(m)]
    walk = [list(strides[0]), [strides[2][d] if d >= first_in + m else 0 for d in range(rank)], list(strides[3]),
            [weights[d - first_in] if first_in <= d < first_in + m else 0 for d in range(rank)]]
    merged_sizes, merged = merge_dimensions(sizes, walk)
    records = []
    for d in reversed(range(len(merged_sizes))):
        magic, shift1, shift2 = division_magic(merged_sizes[d])
        records.append({"SIZE": merged_sizes[d], "MAGIC": magic, "SHIFT1": shift1, "SHIFT2": shift2,
                        **{f"STRIDE_T{t}": merged[t][d] & 0xFFFFFFFF for t in range(4)}})
    shift = rank - (ri - m) - (qi - 1) - first_idx          # indices dimension e walks UpdatesTensor's e + shift
    candidates = []
    for e in reversed(range(first_idx, rank - 1)):          # innermost first
        if int(indices.sizes[e]) > 1:
            magic, shift1, shift2 = division_magic(int(indices.sizes[e]))
            candidates.append({"SIZE": int(indices.sizes[e]), "MAGIC": magic, "SHIFT1": shift1, "SHIFT2": shift2,
                               "STRIDE_T0": strides[1][e] & 0xFFFFFFFF,
                               "STRIDE_T1": strides[2][e + shift] & 0xFFFFFFFF})
    components = [{"SIZE": in_sizes[first_in + j], "STRIDE_T0": weights[j],
                   "STRIDE_T1": (j * strides[1][rank - 1]) & 0xFFFFFFFF} for j in range(m)]
    if len(records) + len(candidates) + len(components) > layout.max_records:
        raise no_kernel(f"dmlemu's kernel for {operator} holds {layout.max_records} dimension records, not "
                        f"{len(records)} output records, {len(candidates)} tuple records and {m} components")
    data_bytes = _SIZE[source.data_type]
    elements = int(np.prod(sizes, dtype=np.int64))
    q = int(np.prod([int(indices.sizes[e]) for e in range(first_idx, rank - 1)], dtype=np.int64))
    values = {"ELEMENTS": elements, "WORKGROUP_SIZE": workgroup_size, "RECORD_COUNT": len(records),
              "PARAM0": len(candidates), "PARAM1": m, "PARAM2": q}
    constants = layout.pack(values, records + candidates + components, params=True, wide=False)
    return build_scatter_nd_program(data_bytes, indices.data_type, layout), constants, elements


def compile_gather(operator, tensors, attributes, layout, no_kernel, division_magic, packed_strides,
                   merge_dimensions, workgroup_size):
    """(program, constant buffer bytes, output elements) of a validated gather desc; kernels/driver.py wraps them
    in a CompiledKernel. `no_kernel` is the NoKernel class to raise."""
    one_hot = operator == "ONE_HOT"
    source, indices, target = (tensors[1], tensors[0], tensors[2]) if one_hot else (tensors[0], tensors[1],
                                                                                     tensors[-1])
    if indices.data_type not in INDEX_TYPES or source.data_type not in _SIZE:
        raise no_kernel(f"dmlemu's kernel for {operator} has no variant for {source.data_type} data with "
                        f"{indices.data_type} indices")
    if operator == "SCATTER_ND":
        return compile_scatter_nd(operator, tensors, attributes, layout, no_kernel, division_magic, packed_strides,
                                  merge_dimensions, workgroup_size)
    if operator == "SCATTER_ELEMENTS":
        return compile_scatter(operator, tensors, attributes, layout, no_kernel, division_magic, packed_strides,
                               merge_dimensions, workgroup_size)
    out_sizes = tuple(int(s) for s in target.sizes)
    reverse = operator == "REVERSE_SUBSEQUENCES"
    if one_hot:
        sizes, merged, components = _one_hot_records(tensors, attributes, packed_strides, merge_dimensions)
    elif reverse:
        sizes, merged, components = _reverse_records(tensors, attributes, packed_strides, merge_dimensions)
    else:
        strides = [tuple(t.strides) if t.strides is not None else packed_strides(tuple(t.sizes)) for t in tensors]
        geometry = plan(operator, tuple(source.sizes), tuple(indices.sizes), len(target.sizes), attributes)
        walk_strides = [[strides[0][i] if i is not None else 0 for i, _ in geometry.walks],
                        [strides[1][j] if j is not None else 0 for _, j in geometry.walks],
                        list(strides[2])]
        sizes, merged = merge_dimensions(out_sizes, walk_strides)
        step = strides[1][geometry.component_dim] if geometry.component_dim is not None else 0
        components = [(int(source.sizes[d]), strides[0][d], j * step) for j, d in enumerate(geometry.tuple_dims)]
    if len(sizes) + len(components) > layout.max_records:
        raise no_kernel(f"dmlemu's kernel for {operator} holds {layout.max_records} dimension records, not "
                        f"{len(sizes)} output records and {len(components)} index components")
    records = []
    for d in reversed(range(len(sizes))):        # innermost first
        magic, shift1, shift2 = division_magic(sizes[d])
        records.append({"SIZE": sizes[d], "MAGIC": magic, "SHIFT1": shift1, "SHIFT2": shift2,
                        **{f"STRIDE_T{t}": merged[t][d] & 0xFFFFFFFF for t in range(len(merged))}})
    for size, stride, offset in components:
        records.append({"SIZE": size, "STRIDE_T0": stride & 0xFFFFFFFF, "STRIDE_T1": offset & 0xFFFFFFFF})
    wide = max(sizes) >= 1 << 24 or any(s >= 1 << 24 for t in merged for s in t)
    elements = int(np.prod(out_sizes, dtype=np.int64))
    values = {"ELEMENTS": elements, "WORKGROUP_SIZE": workgroup_size, "RECORD_COUNT": len(sizes),
              "PARAM0": len(components)}
    constants = layout.pack(values, records, params=True, wide=False)
    return (build_program(_SIZE[source.data_type], indices.data_type, wide, layout, one_hot, reverse), constants,
            elements)


__all__ = ["OPERATORS", "GatherOperator", "INDEX_TYPES", "build_program", "build_scatter_program", "compile_gather",
           "compile_scatter", "scatter_symbols", "variant_symbols"]
