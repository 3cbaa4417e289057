"""The attention family's table and compiler: DML_OPERATOR_MULTIHEAD_ATTENTION and MULTIHEAD_ATTENTION1 (the same
kernel with each key / value head serving QueryHeadCount / KeyValueHeadCount query heads: GROUPED) as kernel launches.

kernels/attention.s computes one query row of one head per workgroup: a grid of (sequenceLength, HeadCount,
batchSize) workgroups of L threads, L from the keys' count T (past and new) as the reductions pick it
(`reduce_ops.lanes_for`: 64 to 1024), with the LDS tree of the reductions (4 L bytes), the query row (4 D bytes)
and the row of scores (4 T bytes); a desc whose LDS would pass the preset's lds_max_bytes_per_workgroup (LDS_LIMIT,
16 KiB, without a preset, as kernels/normalization_ops.py) is E_NOTIMPL. The kernel serves Query, Key and Value
tensors, separate or stacked (each read at its descriptor, first element and strides, so a stacked tensor costs
nothing), an optional Bias, an optional RelativePositionBias, optional PastKey / PastValue, optional OutputPresentKey /
OutputPresentValue (written by the workgroups of query row 0; their strides in wide record 0) and MaskType NONE,
KEY_SEQUENCE_LENGTH, KEY_SEQUENCE_END_START or BOOLEAN, FLOAT32 and FLOAT16 (computed in FLOAT32); every other valid
desc (KEY_QUERY_SEQUENCE_LENGTH_START_END) is E_NOTIMPL with a sentence
(docs/DEVIATIONS.md, "Multi-head attention"). One `AttentionOperator` row per operator says, by name:

  tensors     the desc's tensor fields in binding order (a tensor's descriptor is 32 bytes at 32 x its index)
  types       the data types it serves
  params      the desc's attributes the compiler reads, (field, kind)

The order of every operation is docs/NUMERICS.md's "Multi-head attention"; the golden model
(dmlemu.golden.attention) follows the same description, independently.
"""
import functools
import os
from dataclasses import dataclass

from dmlemu.isa.assembler import assemble_file
from dmlemu.isa.program import Program
from dmlemu.kernels import reduce_ops
from dmlemu.kernels.constant_buffer import LAYOUT, f32_bits
from dmlemu.kernels.element_wise_math import symbols as math_symbols
from dmlemu.kernels.element_moves import load_suffixes, shifts, store_suffixes

KERNEL_DIR = os.path.dirname(os.path.abspath(__file__))
LDS_LIMIT = 16384         # bytes of LDS per workgroup without a preset (the smallest preset's)
# the DML_MULTIHEAD_ATTENTION_MASK_TYPE values served
MASK_TYPES = {0: "NONE", 1: "KEY_SEQUENCE_LENGTH", 2: "KEY_SEQUENCE_END_START", 4: "BOOLEAN"}
_FLOATS = ("FLOAT32", "FLOAT16")
_LOAD, _STORE, _SHIFT = load_suffixes(_FLOATS), store_suffixes(_FLOATS), shifts(_FLOATS)
TENSORS = ("QueryTensor", "KeyTensor", "ValueTensor", "StackedQueryKeyTensor", "StackedKeyValueTensor",
           "StackedQueryKeyValueTensor", "BiasTensor", "MaskTensor", "RelativePositionBiasTensor", "PastKeyTensor",
           "PastValueTensor", "OutputTensor", "OutputPresentKeyTensor", "OutputPresentValueTensor")
# MULTIHEAD_ATTENTION1's: PastSequenceLengthsTensor after PastValueTensor
TENSORS1 = TENSORS[:11] + ("PastSequenceLengthsTensor",) + TENSORS[11:]


_SEPARATE = ("QueryTensor", "KeyTensor", "ValueTensor")
# Where the query, key and value come from when stacked: (tensor, slot along its fourth dimension)
_STACKS = {"query": (("StackedQueryKeyTensor", 0), ("StackedQueryKeyValueTensor", 0)),
           "key": (("StackedQueryKeyTensor", 1), ("StackedKeyValueTensor", 0), ("StackedQueryKeyValueTensor", 1)),
           "value": (("StackedKeyValueTensor", 1), ("StackedQueryKeyValueTensor", 2))}
_STACKED_NAMES = {"StackedQueryKeyTensor": "qk", "StackedKeyValueTensor": "kv", "StackedQueryKeyValueTensor": "qkv"}


@dataclass(frozen=True, kw_only=True)
class AttentionOperator:
    """One operator of the attention family (see the module docstring for each field)."""
    name: str
    tensors: tuple
    types: tuple
    source: str = "attention.s"
    params: tuple = ()
    scale_bias: bool = False
    bounds: tuple = ()
    optional: tuple = ()
    family: str = "attention"


OPERATORS = {row.name: row for row in (
    AttentionOperator(name="MULTIHEAD_ATTENTION", tensors=TENSORS, types=("FLOAT32", "FLOAT16"),
                      params=(("Scale", "f32"), ("MaskFilterValue", "f32"), ("HeadCount", "uint"),
                              ("MaskType", "enum")),
                      optional=tuple(i for i, f in enumerate(TENSORS) if f != "OutputTensor")),
    AttentionOperator(name="MULTIHEAD_ATTENTION1", tensors=TENSORS1, types=("FLOAT32", "FLOAT16"),
                      params=(("Scale", "f32"), ("MaskFilterValue", "f32"), ("QueryHeadCount", "uint"),
                              ("KeyValueHeadCount", "uint"), ("MaskType", "enum")),
                      optional=tuple(i for i, f in enumerate(TENSORS1) if f != "OutputTensor")),
)}


def variant_symbols(data_type, has_bias, mask_type, has_rpb, lanes, head_size, sources=_SEPARATE, has_past=False,
                    layout=LAYOUT, present=(False, False), tensors=TENSORS, grouped=False):
    """The assembler symbols of one variant of attention.s: the reduction family's MAX (identity, tree, LDS
    layout), the transcendental constants, and its own. `tensors`: the operator's tensor fields in binding order
    (TENSORS or TENSORS1); `grouped`: key / value heads serve groups of query heads (MULTIHEAD_ATTENTION1)."""
    symbols = reduce_ops.variant_symbols("MAX", "FLOAT32", "FLOAT32", True, lanes, layout)
    symbols.update(math_symbols("f32"))
    records = layout.field("RECORDS").offset
    step = layout.record_bytes
    symbols.update({
        "CT_SIGN": "0x80000000", "EXP_HALVED": 0, "HAS_BIAS": int(has_bias),
        "HAS_MASK": int(mask_type == "KEY_SEQUENCE_LENGTH"), "MASK_BOOLEAN": int(mask_type == "BOOLEAN"),
        "MASK_END_START": int(mask_type == "KEY_SEQUENCE_END_START"),
        "HAS_RPB": int(has_rpb), "HAS_PAST": int(has_past),
        "HAS_PRESENT_K": int(present[0]), "HAS_PRESENT_V": int(present[1]), "GROUPED": int(grouped),
        "KV_HEAD": "s81" if grouped else "s5",
        "DESC_PRESENT_K": 32 * tensors.index("OutputPresentKeyTensor"),
        "DESC_PRESENT_V": 32 * tensors.index("OutputPresentValueTensor"),
        "CB_WIDE_RECORDS_V": layout.field("WIDE_RECORDS").offset + 16,
        "LOAD": _LOAD[data_type], "STORE": _STORE[data_type], "SHIFT": _SHIFT[data_type],
        "WIDEN_F16": int(data_type == "FLOAT16"), "NARROW_F16": int(data_type == "FLOAT16"),
        **{f"DESC_{name}": 32 * tensors.index(field) for name, field in zip(("Q", "K", "V"), sources)},
        **{f"DESC_{name}": 32 * tensors.index(field) for name, field in (("BIAS", "BiasTensor"),
            ("MASK", "MaskTensor"), ("RPB", "RelativePositionBiasTensor"), ("OUT", "OutputTensor"),
            ("PAST_K", "PastKeyTensor"), ("PAST_V", "PastValueTensor"))},
        "CB_ATT_BATCH": records, "CB_ATT_SEQUENCE": records + step, "CB_ATT_COLUMN": records + 2 * step,
        "CB_ATT_EXTRA": records + 3 * step, "CB_ATT_RPB": records + 4 * step, "CB_ATT_HEAD": records + 5 * step,
        "CB_ATT_PAST_KEY": records + 6 * step, "CB_ATT_PAST_VALUE": records + 7 * step,
        "LDS_Q": 4 * lanes, "LDS_S": 4 * lanes + 4 * head_size})
    return symbols


@functools.lru_cache(maxsize=None)
def build_program(data_type, has_bias, mask_type, has_rpb, lanes, head_size, sources=_SEPARATE, has_past=False,
                  layout=LAYOUT, present=(False, False), tensors=TENSORS, grouped=False):
    """Assemble and decode one variant of attention.s (cached)."""
    dwords = assemble_file(os.path.join(KERNEL_DIR, "attention.s"), variant_symbols(
        data_type, has_bias, mask_type, has_rpb, lanes, head_size, sources, has_past, layout, present, tensors,
        grouped))
    kept = "".join(f"_present_{n}" for n, on in zip("kv", present) if on)
    mask = "" if mask_type == "NONE" else "_" + mask_type.lower()
    stacked = "".join(sorted({"_" + _STACKED_NAMES[f] for f in sources if f in _STACKED_NAMES}))
    name = "multihead_attention1" if tensors == TENSORS1 else "multihead_attention"
    return Program(dwords, f"{name}{'_grouped' if grouped else ''}_{data_type.lower()}{stacked}_x{lanes}"
                           f"{'_bias' if has_bias else ''}{'_rpb' if has_rpb else ''}{'_past' if has_past else ''}{kept}{mask}")


def _strides(spec, packed_strides, rank):
    """The strides of a tensor's last `rank` dimensions, in elements (its leading sizes are 1)."""
    sizes = tuple(int(s) for s in spec.sizes)
    strides = tuple(int(s) for s in (spec.strides if spec.strides is not None else packed_strides(sizes)))
    return strides[len(strides) - rank:]


def compile_attention(operator, tensors, attributes, layout, no_kernel, packed_strides, preset=None):
    """(program, constant buffer bytes, group grid, thread grid, LDS bytes) of a validated desc;
    kernels/driver.py wraps them in a CompiledKernel. `no_kernel` is the NoKernel class to raise."""
    row = OPERATORS[operator]
    by_field = dict(zip(row.tensors, tensors))
    present = tuple(by_field[f] is not None for f in ("OutputPresentKeyTensor", "OutputPresentValueTensor"))
    if by_field.get("PastSequenceLengthsTensor") is not None:
        raise no_kernel(f"dmlemu's kernel for {operator} serves no PastSequenceLengthsTensor (a past key / value "
                        f"buffer of which each batch uses its own first rows; docs/DEVIATIONS.md, \"Multi-head "
                        f"attention\")")
    mask_type = int(attributes.get("MaskType") or 0)
    if mask_type not in MASK_TYPES:
        raise no_kernel(f"dmlemu's kernel for {operator} serves MaskType NONE, KEY_SEQUENCE_LENGTH, "
                        f"KEY_SEQUENCE_END_START and BOOLEAN, not "
                        f"DML_MULTIHEAD_ATTENTION_MASK_TYPE value {mask_type}")
    out = by_field["OutputTensor"]
    if out.data_type not in row.types:
        raise no_kernel(f"dmlemu's kernel for {operator} serves {', '.join(row.types)}, not {out.data_type}")
    heads = int(attributes["HeadCount"] if "HeadCount" in attributes else attributes["QueryHeadCount"])
    kv_heads = int(attributes.get("KeyValueHeadCount", heads))
    if kv_heads != heads and by_field["BiasTensor"] is not None:
        raise no_kernel(f"dmlemu's kernel for {operator} serves a BiasTensor only where KeyValueHeadCount is "
                        f"QueryHeadCount, not {kv_heads} key / value heads for {heads} query heads")
    # each of query, key, value: (its tensor, sizes [b, s, h, d], strides along them, its first element)
    roles = {}
    for role, field in zip(("query", "key", "value"), _SEPARATE):
        spec = by_field[field]
        if spec is not None:
            b_, s_, hidden_ = (int(x) for x in spec.sizes[-3:])
            sb, ss, sc = _strides(spec, packed_strides, 3)
            n = heads if role == "query" else kv_heads
            roles[role] = (field, (b_, s_, n, hidden_ // n), (sb, ss, (hidden_ // n) * sc, sc), 0)
            continue
        for stacked, slot in _STACKS[role]:
            spec = by_field[stacked]
            if spec is not None:
                sizes = tuple(int(x) for x in spec.sizes[-5:])
                st = _strides(spec, packed_strides, 5)
                roles[role] = (stacked, (sizes[0], sizes[1], sizes[2], sizes[4]), (st[0], st[1], st[2], st[4]),
                               slot * st[3])
                break
    (batch, sequence, _, head), (_, kv_sequence, _, value_head) = roles["query"][1], roles["value"][1]
    hidden, value_hidden = heads * head, heads * value_head     # the query's and the output's
    past_key, past_value = by_field["PastKeyTensor"], by_field["PastValueTensor"]
    past = int(past_key.sizes[-2]) if past_key is not None else 0
    total = past + kv_sequence            # every key: the past ones, then the new ones
    sources = tuple(roles[r][0] for r in ("query", "key", "value"))
    lanes = reduce_ops.lanes_for(total)
    lds_bytes = 4 * (lanes + head + total)
    limit = getattr(preset, "lds_max_bytes_per_workgroup", None) or LDS_LIMIT
    if lds_bytes > limit:
        raise no_kernel(f"dmlemu's kernel for {operator} keeps a row of scores in LDS: {total} keys "
                        f"(pastSequenceLength + keyValueSequenceLength) with headSize {head} needs {lds_bytes} bytes, more than {limit}")
    q, k, v = (roles[r][2] for r in ("query", "key", "value"))
    ob, os_, oc = _strides(out, packed_strides, 3)
    o = (ob, os_, value_head * oc, oc)
    bias = by_field["BiasTensor"]
    mask = by_field["MaskTensor"]
    rpb = by_field["RelativePositionBiasTensor"]
    extra = (_strides(bias, packed_strides, 1)[0] if bias is not None else 0,
             _strides(mask, packed_strides, 1)[0] if mask is not None and mask_type in (1, 2) else 0, 0,
             heads // kv_heads)
    if mask is not None and mask_type == 2:     # [2, batchSize] (leading sizes of 1) or [2 batchSize]
        if len(mask.sizes) >= 2 and int(mask.sizes[-2]) == 2 and int(mask.sizes[-1]) == batch:
            extra = (extra[0], extra[1], _strides(mask, packed_strides, 2)[0], extra[3])
        else:
            extra = (extra[0], extra[1], batch * extra[1], extra[3])
    mask_strides = (0, 0, 0, 0)
    if mask is not None and mask_type == 4:     # [b, i, j] or [b, h, i, j] past leading sizes of 1
        rank = 4 if len(mask.sizes) >= 4 and tuple(int(x) for x in mask.sizes[-4:]) == (
            batch, heads, sequence, total) else 3
        found = _strides(mask, packed_strides, rank)
        mask_strides = found if rank == 4 else (found[0], 0, found[1], found[2])
    rpb_strides = _strides(rpb, packed_strides, 4) if rpb is not None else (0, 0, 0, 0)

    def record(sizes, strides):
        fields = dict(zip(("SIZE", "MAGIC", "SHIFT1", "SHIFT2"), sizes))
        fields.update({f"STRIDE_T{t}": s & 0xFFFFFFFF for t, s in enumerate(strides)})
        return fields
    records = [record((batch, 0, 0, 0), (q[0], k[0], v[0], o[0])),
               record((sequence, 0, 0, 0), (q[1], k[1], v[1], o[1])),
               record((head, value_head, hidden, total), (q[3], k[3], v[3], o[3])),
               record(tuple(m & 0xFFFFFFFF for m in mask_strides), extra), record((0, 0, 0, 0), rpb_strides),
               record(tuple(roles[r][3] & 0xFFFFFFFF for r in ("query", "key", "value")) + (0,),
                      (q[2], k[2], v[2], o[2]))]
    if past_key is not None:
        records += [record((past, 0, 0, 0), _strides(past_key, packed_strides, 4)),
                    record((past, 0, 0, 0), _strides(past_value, packed_strides, 4))]
    if any(present):    # wide record 0: the present key's strides along b, h, j, d, then the present value's
        wide = {}
        for first, field in ((4, "OutputPresentKeyTensor"), (8, "OutputPresentValueTensor")):
            if by_field[field] is not None:
                wide.update({f"STRIDE_T{first + n}": s & 0xFFFFFFFF
                             for n, s in enumerate(_strides(by_field[field], packed_strides, 4))})
        records[0] = {**records[0], **wide}
    values = {"ELEMENTS": batch * sequence * value_hidden, "WORKGROUP_SIZE": lanes, "RECORD_COUNT": len(records),
              "PARAM0": f32_bits(float(attributes.get("Scale", 1.0))),
              "PARAM1": f32_bits(float(attributes.get("MaskFilterValue", 0.0)))}
    constants = layout.pack(values, records, params=True, wide=any(present))
    program = build_program(out.data_type, bias is not None, MASK_TYPES[mask_type], rpb is not None, lanes, head,
                            sources, past_key is not None, layout, present, row.tensors, kv_heads != heads)
    return program, constants, (sequence, heads, batch), (lanes, 1, 1), lds_bytes


__all__ = ["LDS_LIMIT", "MASK_TYPES", "OPERATORS", "AttentionOperator", "TENSORS", "TENSORS1", "build_program",
           "compile_attention", "variant_symbols"]
