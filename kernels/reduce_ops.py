"""The reduction operators' table and compiler: DML_OPERATOR_REDUCE as a kernel launch.

A reduction is not an element-wise kernel: one workgroup of L threads computes one output element
(kernels/reduce.s), so the launch has one workgroup per output, L threads per workgroup whatever the wave
width (`lanes_for`: 64 to 1024, from the number of elements each output reduces), and 4 L bytes of LDS for
the tree. Above CHUNK elements per output (the functions in CHUNKED, 32-bit compute types) a workgroup of
CHUNK_LANES threads per chunk of CHUNK elements writes its partial to DirectML's temporary resource and
counts it in its output's counter (a dword after the constants); the workgroup of the output's last chunk
waits for the count and reduces the partials, in the same dispatch (reduce.s step 5, `OneDispatch`: the
last workgroup to finish combines, as single-pass GPU reductions do, without a second launch and the UAV
barrier's flush before it); so a reduction to one value spreads over every compute unit instead of one. One `ReductionOperator` row per operator says, by name:

  tensors     the desc's tensor fields in binding order, the output last
  source      the kernel source
  functions   per DML_REDUCE_FUNCTION the kernel serves (by name without DML_REDUCE_FUNCTION_), a
              `ReduceFunction`: the input data types it serves, its identity per compute type, the tree's
              instruction per compute type, the finish (AVERAGE divides, L2 takes a square root)
  params      the desc's attributes the compiler reads, (field, kind) (the registry checks that the schema has
              them)

A function of the desc that the row lacks or a data type it does not
serve (64-bit) is `NoKernel`: CreateOperator validated it, CompileOperator answers E_NOTIMPL. Each function's
per-element step is the block `.if FUNCTION == "<name>"` of kernels/reduce_functions.inc; the registry checks
that every function served has its block and every block is served.

The order of every operation is docs/NUMERICS.md's "Reductions"; the golden model (dmlemu.golden.reduce)
follows the same description, independently.
"""
import functools
import os
from dataclasses import dataclass, field

import numpy as np

from dmlemu.directml.enums import DML_REDUCE_FUNCTION
from dmlemu.isa.assembler import assemble_file
from dmlemu.isa.program import Program
from dmlemu.kernels.constant_buffer import LAYOUT, f32_bits
from dmlemu.kernels.element_moves import load_suffixes, sizes, store_suffixes

KERNEL_DIR = os.path.dirname(os.path.abspath(__file__))
MIN_LANES, MAX_LANES = 64, 1024      # virtual threads per output (independent of the wave width)
STEPS = 64                           # the elements a thread aims at before the workgroup grows
CHUNK_LANES = 256                    # N > CHUNK: stage 1, one workgroup of CHUNK_LANES threads per chunk ...
CHUNK = STEPS * CHUNK_LANES          # ... of CHUNK consecutive k; stage 2 (CHUNK_LANES threads) reduces the partials
UNROLL = 4                           # elements a thread loads together (reduce_pass.inc: the same order)
UNROLL_DEEP = 16                     # ... and first this many while they last, where N >= UNROLL_DEEP L (`deep`)
IMM_LIMIT = (1 << 14) - 1            # a buffer load's immediate byte offset (isa/encoding.py UIMM_MAX)
# The functions that split (their partials combine with the tree's operation alone); ARGMAX / ARGMIN (pairs) and
# LOG_SUM_EXP (two passes over the elements) keep one workgroup per output whatever N.
CHUNKED = ("SUM", "AVERAGE", "MULTIPLY", "SUM_SQUARE", "L1", "L2", "LOG_SUM", "MAX", "MIN")
_PARTIAL = {"f32": "FLOAT32", "i32": "INT32", "u32": "UINT32"}   # the partials' type in the temporary resource


def lanes_for(count):
    """L, the threads that reduce `count` elements (docs/NUMERICS.md, "Reductions"): the smallest power of two
    from 64 to 1024 with count <= 64 L, else 1024."""
    lanes = MIN_LANES
    while lanes < MAX_LANES and count > STEPS * lanes:
        lanes *= 2
    return lanes
_TYPES = ("FLOAT32", "FLOAT16", "INT32", "UINT32", "INT16", "UINT16", "INT8", "UINT8", "INT64", "UINT64")
_LOAD, _STORE, _SIZE = load_suffixes(_TYPES), store_suffixes(_TYPES), sizes(_TYPES)
_COMPUTE = {"FLOAT32": "f32", "FLOAT16": "f32", "INT32": "i32", "INT16": "i32", "INT8": "i32", "UINT32": "u32",
            "UINT16": "u32", "UINT8": "u32", "INT64": "i64", "UINT64": "u64"}
FLOATS = ("FLOAT32", "FLOAT16")
INTEGERS_32 = ("INT32", "UINT32")
INTEGERS_8_TO_32 = ("INT32", "INT16", "INT8", "UINT32", "UINT16", "UINT8")
INTEGERS_64 = ("INT64", "UINT64")      # DML_FEATURE_LEVEL_5_0: register pairs, 8 LDS bytes per thread
_ADD = {"f32": "v_add_f32", "i32": "v_add_u32", "u32": "v_add_u32", "i64": "v_add_u64", "u64": "v_add_u64"}   # wrap
_MUL = {"f32": "v_mul_f32", "i32": "v_mul_lo_u32", "u32": "v_mul_lo_u32", "i64": "v_mul_lo_u64", "u64": "v_mul_lo_u64"}
_MAX = {"f32": "v_max_f32", "i32": "v_max_i32", "u32": "v_max_u32", "i64": "v_max_i64", "u64": "v_max_u64"}
_MIN = {"f32": "v_min_f32", "i32": "v_min_i32", "u32": "v_min_u32", "i64": "v_min_i64", "u64": "v_min_u64"}
# Identities: -0 for float sums (-0 + x == x for every x, +0 included), NaN for minNum / maxNum (a NaN
# operand yields the other), the extreme value for integers.
_SUM_ID = {"f32": 0x80000000, "i32": 0, "u32": 0, "i64": 0, "u64": 0}
_MUL_ID = {"f32": 0x3F800000, "i32": 1, "u32": 1, "i64": 1, "u64": 1}
_MAX_ID = {"f32": 0x7FC00000, "i32": 0x80000000, "u32": 0, "i64": 1 << 63, "u64": 0}
_MIN_ID = {"f32": 0x7FC00000, "i32": 0x7FFFFFFF, "u32": 0xFFFFFFFF, "i64": (1 << 63) - 1, "u64": (1 << 64) - 1}
_ARGMAX_ID = {"f32": 0xFF800000, "i32": 0x80000000, "u32": 0}          # -inf, the least integer
_ARGMIN_ID = {"f32": 0x7F800000, "i32": 0x7FFFFFFF, "u32": 0xFFFFFFFF}  # +inf, the greatest integer
_GREATER = {"f32": "v_cmp_gt_f32", "i32": "v_cmp_gt_i32", "u32": "v_cmp_gt_u32"}   # ARGMAX: "better than"
_LESS = {"f32": "v_cmp_lt_f32", "i32": "v_cmp_lt_i32", "u32": "v_cmp_lt_u32"}
_EQUAL = {"f32": "v_cmp_eq_f32", "i32": "v_cmp_eq_i32", "u32": "v_cmp_eq_u32"}
INDEX_TYPES = ("UINT32", "INT32", "UINT64", "INT64")


@dataclass(frozen=True, kw_only=True)
class ReduceFunction:
    """One DML_REDUCE_FUNCTION as the kernel computes it (see the module docstring)."""
    types: tuple
    identity: dict
    combine: dict
    finish: str = ""          # "", "divide" (AVERAGE), "sqrt" (L2), "log" (LOG_SUM), "lse" (LOG_SUM_EXP)
    outputs: tuple = ()       # output data types where they are not the input's (ARGMAX, ARGMIN: the index)


@dataclass(frozen=True, kw_only=True)
class ReductionOperator:
    """One operator of the reduction family (see the module docstring for each field)."""
    name: str
    tensors: tuple
    functions: dict
    source: str = "reduce.s"
    params: tuple = ()
    function: str = None      # the one function of an operator that is a single reduction (ARGMAX, ARGMIN)
    scale_bias: bool = False
    bounds: tuple = ()
    optional: tuple = ()
    family: str = "reduction"


_FUNCTIONS = {
    "SUM": ReduceFunction(types=FLOATS + INTEGERS_32 + INTEGERS_64, identity=_SUM_ID, combine=_ADD),
    "MAX": ReduceFunction(types=FLOATS + INTEGERS_8_TO_32 + INTEGERS_64, identity=_MAX_ID, combine=_MAX),
    "MIN": ReduceFunction(types=FLOATS + INTEGERS_8_TO_32 + INTEGERS_64, identity=_MIN_ID, combine=_MIN),
    "AVERAGE": ReduceFunction(types=FLOATS, identity=_SUM_ID, combine=_ADD, finish="divide"),
    "MULTIPLY": ReduceFunction(types=FLOATS + INTEGERS_32 + INTEGERS_64, identity=_MUL_ID, combine=_MUL),
    "SUM_SQUARE": ReduceFunction(types=FLOATS + INTEGERS_32 + INTEGERS_64, identity=_SUM_ID, combine=_ADD),
    "L1": ReduceFunction(types=FLOATS + INTEGERS_32 + INTEGERS_64, identity=_SUM_ID, combine=_ADD),
    "L2": ReduceFunction(types=FLOATS, identity=_SUM_ID, combine=_ADD, finish="sqrt"),
    "LOG_SUM": ReduceFunction(types=FLOATS, identity=_SUM_ID, combine=_ADD, finish="log"),
    # Two passes (reduce.s sets the first pass's identity and operation itself: NaN and maxNum).
    "LOG_SUM_EXP": ReduceFunction(types=FLOATS, identity=_SUM_ID, combine=_ADD, finish="lse"),
    # The index of the best value (the first on a tie; NaN skipped; every element NaN: 0), stored as the output's
    # integer type. The value's identity is the worst value, its index 0xFFFFFFFF (larger than any index).
    "ARGMAX": ReduceFunction(types=FLOATS + INTEGERS_8_TO_32, identity=_ARGMAX_ID, combine=_GREATER,
                             outputs=INDEX_TYPES),
    "ARGMIN": ReduceFunction(types=FLOATS + INTEGERS_8_TO_32, identity=_ARGMIN_ID, combine=_LESS,
                             outputs=INDEX_TYPES),
}
LN2_F32 = 0x3F317218          # ln 2 rounded to FLOAT32: LOG_SUM = log2(sum) * this, each rounded
LOG2E_F32 = 0x3FB8AA3B        # log2 e rounded to FLOAT32: exp(d) = 2^(d * this), each rounded

OPERATORS = {row.name: row for row in (
    ReductionOperator(name="REDUCE", tensors=("InputTensor", "OutputTensor"), functions=_FUNCTIONS,
                      params=(("Function", "enum"), ("Axes", "axes"))),
    # DML_ARGMAX / ARGMIN_OPERATOR_DESC: REDUCE's ARGMAX / ARGMIN with an AxisDirection (DECREASING: the last index)
    *(ReductionOperator(name=name, tensors=("InputTensor", "OutputTensor"), functions={name: _FUNCTIONS[name]},
                        function=name, params=(("Axes", "axes"), ("AxisDirection", "enum")))
      for name in ("ARGMAX", "ARGMIN")),
)}


def function_name(value):
    """'SUM' for DML_REDUCE_FUNCTION_SUM (an int or the enum member)."""
    return DML_REDUCE_FUNCTION(int(value)).name[len("DML_REDUCE_FUNCTION_"):]


def split_dimensions(sizes, axes, input_strides, output_strides, reduced_output=False):
    """(kept records, reduced records): each a list of (size, input stride, output stride), innermost first,
    after dropping size-1 dimensions and merging neighbours contiguous in every tensor (the kept dimensions in
    input and output, the reduced ones in the input; with `reduced_output`, an output of the input's Sizes such
    as softmax's, in the output too). The order of the indices they decompose is the row-major
    order of the kept (reduced) dimensions."""
    def merged(dims):
        out = []
        for size, si, so in dims:
            if size == 1:
                continue
            if out and out[-1][1] == si * size and out[-1][2] == so * size:
                out[-1] = (out[-1][0] * size, si, so)
            else:
                out.append((size, si, so))
        return out[::-1]
    kept = [(s, si, so) for d, (s, si, so) in enumerate(zip(sizes, input_strides, output_strides)) if d not in axes]
    reduced = [(s, si, so if reduced_output else 0)
               for d, (s, si, so) in enumerate(zip(sizes, input_strides, output_strides)) if d in axes]
    return merged(kept), merged(reduced)


def chunks_for(function, input_type, count):
    """G, the chunks of CHUNK elements each output's N = `count` elements split into (docs/NUMERICS.md,
    "Reductions"): 1 (no split) for N <= CHUNK, for a function outside CHUNKED or a 64-bit type."""
    if count <= CHUNK or function not in CHUNKED or _COMPUTE[input_type] not in _PARTIAL:
        return 1
    return -(-count // CHUNK)


def variant_symbols(function, input_type, output_type, inner_linear, lanes=MIN_LANES, layout=LAYOUT,
                    decreasing=False, stage=0, unit=False, combine=None, deep=False):
    """The assembler symbols of one variant of reduce.s (`lanes`: threads per workgroup, a power of two;
    `decreasing`: ARGMAX / ARGMIN's AxisDirection DECREASING; `unit`: one reduced dimension of stride 1;
    `stage`: 0 one workgroup per output, 1 a chunk's partial into the temporary resource (no finish;
    `output_type` the partials' type), 2 the partials into the output (`input_type` the partials' type), the
    code the last chunk's workgroup goes on with; `combine`: stage 1's OneDispatch; `deep`: every thread has at
    least UNROLL_DEEP elements (N >= UNROLL_DEEP L), so the unrolled loop takes UNROLL_DEEP a step first)."""
    row = OPERATORS["REDUCE"].functions[function]
    finish = row.finish if stage != 1 else ""
    compute = _COMPUTE[input_type]
    arg = bool(row.outputs)
    wide = compute in ("i64", "u64")
    identity = row.identity[compute]
    return {
        "IS_WIDE": int(wide), "ACC": "v[18:19]" if wide else "v10", "X": "v[20:21]" if wide else "v11",
        "DS": "b64" if wide else "b32", "LDS_SHIFT": 3 if wide else 2,
        **{f"OFF_{1 << j}": (8 if wide else 4) << j for j in range(10)},
        "IDENTITY_LO": identity & 0xFFFFFFFF, "IDENTITY_HI": identity >> 32 if wide else 0,
        "STORE_REG": "v[18:19]" if wide else "v[10:11]", "TMP": "v[22:23]" if wide else "v12",
        "IS_FLOAT": int(compute == "f32"), "IS_SIGNED": int(compute in ("i32", "i64")),
        "SUB_INT": "v_sub_u64" if wide else "v_sub_u32", "MAX_SIGNED": "v_max_i64" if wide else "v_max_i32",
        "MUL_INT": "v_mul_lo_u64" if wide else "v_mul_lo_u32",
        "FUNCTION": function, "CT": compute, "IDENTITY": row.identity[compute], "COMBINE": row.combine[compute],
        "ARG": int(arg), "DECREASING": int(bool(decreasing)), "CMP_BETTER": row.combine[compute],
        "CMP_EQ": _EQUAL.get(compute, "none"), "LDS_INDEX": 4 * lanes,
        "IS_PAIR": int(_SIZE[output_type] == 8),
        "LOAD": _LOAD[input_type], "STORE": _STORE[output_type],
        "SHIFT_IN": _SIZE[input_type].bit_length() - 1, "SHIFT_OUT": _SIZE[output_type].bit_length() - 1,
        "WIDEN_F16": int(input_type == "FLOAT16"), "NARROW_F16": int(output_type == "FLOAT16" and not arg),
        "FINISH_DIVIDE": int(finish == "divide"), "FINISH_SQRT": int(finish == "sqrt"),
        "FINISH_LOG": int(finish == "log"), "FINISH_LSE": int(finish == "lse"),
        "LOG2E_F32": f"0x{LOG2E_F32:08X}", "LN2_F32": f"0x{LN2_F32:08X}",   # raw bits, not a number
        # descriptor slots: input 0, output 1, the temporary resource 2 (stage 1 writes it, stage 2 reads it)
        "INNER_LINEAR": int(inner_linear), "DESC_T0": 64 if stage == 2 else 0, "DESC_T1": 64 if stage == 1 else 32,
        "LANES": lanes, "STAGE": stage, "CHUNK": CHUNK,
        "LANES_LAST": (UNROLL - 1) * lanes, "LANES_STEP": UNROLL * lanes,
        "UNROLL": int(inner_linear and not arg and not wide),   # UNROLL elements a step (reduce_pass.inc)
        "UNROLL16": int(deep and inner_linear and not arg and not wide),   # first UNROLL_DEEP a step
        "LANES_LAST16": (UNROLL_DEEP - 1) * lanes, "LANES_STEP16": UNROLL_DEEP * lanes,
        "IMM_STEP16": int(unit and (UNROLL_DEEP - 1) * lanes * _SIZE[input_type] <= IMM_LIMIT),
        # a unit stride: the loads' byte offsets are immediates (j L element sizes, when they fit)
        "IMM_STEP": int(unit and (UNROLL - 1) * lanes * _SIZE[input_type] <= IMM_LIMIT),
        **{f"IMM_{j}": j * lanes * _SIZE[input_type] for j in range(1, UNROLL_DEEP)},
        **{f"LEVEL_{1 << j}": int(lanes > 1 << j) for j in range(1, 10)}, **layout.symbols(),
        "ONE_DISPATCH": int(combine is not None),
        **({} if combine is None else {"COMBINE_LANES": combine.lanes, "STAGE2_CONSTANTS": combine.constants_offset,
                                       "COUNTERS": combine.counters_offset, "COUNTER_BYTES": combine.counter_bytes})}


@dataclass(frozen=True)
class OneDispatch:
    """Stage 1 of a chunked REDUCE that finishes in one dispatch (reduce.s, step 5): stage 2's threads per
    workgroup, where its constants start in the operator's constant buffer, and where the outputs'
    counters (one dword each) start and how many bytes they take."""
    lanes: int
    constants_offset: int
    counters_offset: int
    counter_bytes: int


@functools.lru_cache(maxsize=None)
def build_program(function, input_type, output_type, inner_linear, lanes=MIN_LANES, layout=LAYOUT, decreasing=False,
                  stage=0, unit=False, combine=None, final_type=None, deep=False):
    """Assemble and decode one variant of reduce.s (cached). With `combine` (a OneDispatch; stage 1) the
    program is stage 1's code followed by stage 2's (the partials, `output_type`, into `final_type`), which
    its last chunk's workgroup falls through into."""
    symbols = variant_symbols(function, input_type, output_type, inner_linear, lanes, layout, decreasing, stage, unit,
                              combine, deep)
    dwords = assemble_file(os.path.join(KERNEL_DIR, OPERATORS["REDUCE"].source), symbols)
    to = f"_to_{output_type.lower()}" if output_type != input_type else ""
    name = (f"reduce_{function.lower()}_{input_type.lower()}{to}_x{lanes}{'_linear' if inner_linear else ''}"
            f"{'_last' if decreasing else ''}{'_unit' if unit else ''}{'_deep' if symbols['UNROLL16'] else ''}"
            f"{('', '_chunks', '_partials')[stage]}")
    if combine is not None:
        second = build_program(function, output_type, final_type, True, combine.lanes, layout, stage=2, unit=True)
        return Program(tuple(dwords) + second.dwords, f"{name}_then_x{combine.lanes}")
    return Program(dwords, name)


def compile_reduction(operator, tensors, attributes, layout, no_kernel, division_magic, packed_strides):
    """The Reduction (program, constants, workgroups, threads per workgroup, LDS bytes, no second stage, temporary
    bytes) of a validated REDUCE desc; kernels/driver.py wraps it in a CompiledKernel. `no_kernel` is the
    NoKernel class to raise."""
    row = OPERATORS[operator]
    function = row.function or function_name(attributes["Function"])
    decreasing = int(attributes.get("AxisDirection") or 0) == 1     # DML_AXIS_DIRECTION_DECREASING
    if function not in row.functions:
        raise no_kernel(f"dmlemu's kernel for {operator} has no DML_REDUCE_FUNCTION_{function} yet")
    source, target = tensors
    served = row.functions[function].types
    output_types = row.functions[function].outputs or (source.data_type,)
    if source.data_type not in served or target.data_type not in output_types:
        raise no_kernel(f"dmlemu's kernel for {operator} {function} serves {', '.join(served)}, not "
                        f"{source.data_type} to {target.data_type}")
    axes = {int(a) for a in attributes["Axes"]}
    sizes = tuple(int(s) for s in source.sizes)
    in_strides = source.strides if source.strides is not None else packed_strides(sizes)
    out_strides = target.strides if target.strides is not None else packed_strides(tuple(target.sizes))
    kept, reduced = split_dimensions(sizes, axes, in_strides, out_strides)
    if len(kept) + len(reduced) > layout.max_records:    # rank 8 with every dimension apart
        raise no_kernel(f"dmlemu's kernel for {operator} holds {layout.max_records} dimension records, not "
                        f"{len(kept) + len(reduced)}")
    outputs = int(np.prod([s for d, s in enumerate(sizes) if d not in axes], dtype=np.int64))
    count = int(np.prod([sizes[d] for d in axes], dtype=np.int64))

    def record(size, si, so):
        magic, shift1, shift2 = division_magic(size)
        return {"SIZE": size, "MAGIC": magic, "SHIFT1": shift1, "SHIFT2": shift2,
                "STRIDE_T0": si & 0xFFFFFFFF, "STRIDE_T1": so & 0xFFFFFFFF}
    records = [record(*r) for r in kept + (reduced or [(1, 0, 0)])]
    unit = len(reduced) == 1 and reduced[0][1] == 1       # one reduced dimension, consecutive elements
    lds_per_lane = 8 if row.functions[function].outputs or _SIZE[source.data_type] == 8 else 4
    values = {"ELEMENTS": outputs, "RECORD_COUNT": len(kept), "PARAM0": max(1, len(reduced)), "PARAM1": count,
              "PARAM2": f32_bits(float(np.float32(count)))}
    chunks = chunks_for(function, source.data_type, count)
    if chunks == 1:
        lanes = lanes_for(count)
        constants = layout.pack({**values, "WORKGROUP_SIZE": lanes}, records, params=True, wide=False)
        program = build_program(function, source.data_type, target.data_type, len(reduced) <= 1, lanes, layout,
                                decreasing, unit=unit, deep=count >= UNROLL_DEEP * lanes)
        return Reduction(program, constants, outputs, lanes, lds_per_lane * lanes)
    # One dispatch (reduce.s, steps 1 to 5): workgroup w = output * G + g reduces chunk g of its output into
    # partial w of the temporary resource and counts it in its output's counter (a dword after the constants,
    # zero before and after every execution); the last chunk's workgroup then reduces the output's G partials
    # (a packed (outputs, G) tensor) with its CHUNK_LANES threads as stage 2's code, reading stage 2's constants.
    partial = _PARTIAL[_COMPUTE[source.data_type]]
    magic, shift1, shift2 = division_magic(chunks)
    first = layout.pack({**values, "WORKGROUP_SIZE": CHUNK_LANES, "PARAM4": chunks, "PARAM5": magic,
                         "PARAM6": shift1, "PARAM7": shift2}, records, params=True, wide=False)
    inner, second_records = chunks, []
    for size, _, so in kept:
        second_records.append(record(size, inner, so))
        inner *= size
    second_records.append(record(chunks, 1, 0))
    second = layout.pack({**values, "WORKGROUP_SIZE": CHUNK_LANES, "PARAM0": 1, "PARAM1": chunks}, second_records,
                         params=True, wide=False)
    at = -(-len(first) // CONSTANTS_ALIGNMENT) * CONSTANTS_ALIGNMENT
    counters = -(-(at + len(second)) // CONSTANTS_ALIGNMENT) * CONSTANTS_ALIGNMENT
    constants = np.zeros(counters + 4 * outputs, np.uint8)
    constants[:len(first)], constants[at:at + len(second)] = first, second
    combine = OneDispatch(CHUNK_LANES, at, counters, 4 * outputs)
    return Reduction(build_program(function, source.data_type, partial, len(reduced) <= 1, CHUNK_LANES, layout,
                                   decreasing, stage=1, unit=unit, combine=combine, final_type=target.data_type,
                                   deep=True),
                     constants, outputs * chunks, CHUNK_LANES, 4 * CHUNK_LANES, None,
                     -(-4 * outputs * chunks // 256) * 256)


CONSTANTS_ALIGNMENT = 64      # stage 2's constants follow stage 1's, and the counters them, at this alignment


@dataclass(frozen=True)
class Stage:
    """A second dispatch of one operator (after a UAV barrier): its program, its constant buffer's byte offset
    in the operator's constants, its workgroups, threads per workgroup and LDS bytes (kernels/driver.py runs
    it; REDUCE, which finishes its chunks in one dispatch, makes none)."""
    program: Program
    constants_offset: int
    workgroups: int
    lanes: int
    lds_bytes: int


@dataclass(frozen=True)
class Reduction:
    """What compile_reduction hands kernels/driver.py: the first dispatch's program, the constants (every
    stage's), its workgroups, threads per workgroup and LDS bytes, then the second stage (None: one dispatch)
    and the temporary resource's bytes (the partials, 0 without a second stage)."""
    program: Program
    constants: np.ndarray
    workgroups: int
    lanes: int
    lds_bytes: int
    stage: Stage = None
    temporary_bytes: int = 0

__all__ = ["MIN_LANES", "MAX_LANES", "STEPS", "CHUNK", "CHUNK_LANES", "CHUNKED", "Reduction", "Stage", "chunks_for",
           "lanes_for", "OPERATORS", "ReduceFunction", "ReductionOperator", "build_program",
           "compile_reduction", "function_name", "split_dimensions", "variant_symbols"]
