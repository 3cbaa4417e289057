"""The shape rule of DML_OPERATOR_MULTIHEAD_ATTENTION, the `shapes` rule MULTIHEAD_ATTENTION of its schema.

Transcribed from DML_MULTIHEAD_ATTENTION_OPERATOR_DESC's member descriptions (windows-ai-docs
ns-directml-dml_multihead_attention_operator_desc): exactly one query, key and value, stacked or not; Query
[batchSize, sequenceLength, hiddenSize], Key [batchSize, keyValueSequenceLength, hiddenSize], Value [batchSize,
keyValueSequenceLength, valueHiddenSize] (hiddenSize = HeadCount * headSize; 4 or 5 dimensions allowed when the
leading ones are 1); StackedQueryKey [batchSize, sequenceLength, HeadCount, 2, headSize], StackedKeyValue
[batchSize, keyValueSequenceLength, HeadCount, 2, headSize], StackedQueryKeyValue [batchSize, sequenceLength,
HeadCount, 3, headSize]; Bias [hiddenSize + hiddenSize + valueHiddenSize]; the Mask per MaskType (KEY_SEQUENCE_LENGTH
[1, batchSize], KEY_SEQUENCE_END_START [2, batchSize], KEY_QUERY_SEQUENCE_LENGTH_START_END [3 batchSize + 2]; the page
gives no shape for BOOLEAN and RelativePositionBias: dmlemu takes ONNX Runtime's, BOOLEAN [batchSize, sequenceLength,
totalSequenceLength] or [batchSize, HeadCount, sequenceLength, totalSequenceLength] and RelativePositionBias
[batchSize, HeadCount, sequenceLength, totalSequenceLength]); PastKey / PastValue [batchSize,
HeadCount, pastSequenceLength, headSize (valueHeadSize)]; Output [batchSize, sequenceLength, valueHiddenSize];
OutputPresentKey / Value [batchSize, HeadCount, totalSequenceLength, headSize (valueHeadSize)], where
totalSequenceLength = pastSequenceLength + keyValueSequenceLength. Leading sizes of 1 are allowed everywhere
(the tables allow up to 5 dimensions). Every rule raises E_INVALIDARG with a sentence naming the field.
MULTIHEAD_ATTENTION1 (`_check1`) takes the same rules with KeyValueHeadCount heads for the key, value, past and
present tensors (dividing QueryHeadCount; stacked tensors only where the two are equal) and PastSequenceLengths
[batchSize].
"""
import functools
from types import SimpleNamespace

from dmlemu.com import invalid
from dmlemu.directml.gather_shapes import DERIVED_SIZES, SHAPE_RULES

_MASK_TYPES = ("NONE", "KEY_SEQUENCE_LENGTH", "KEY_SEQUENCE_END_START", "KEY_QUERY_SEQUENCE_LENGTH_START_END",
               "BOOLEAN")
_SOURCES = {   # which tensors may give the query, the key and the value, and the stacked slot each reads
    "query": ("QueryTensor", "StackedQueryKeyTensor", "StackedQueryKeyValueTensor"),
    "key": ("KeyTensor", "StackedQueryKeyTensor", "StackedKeyValueTensor", "StackedQueryKeyValueTensor"),
    "value": ("ValueTensor", "StackedKeyValueTensor", "StackedQueryKeyValueTensor"),
}


def _format(values):
    return "{" + ",".join(str(v) for v in values) + "}"


def squeeze(sizes, rank, field, name="MULTIHEAD_ATTENTION"):
    """`sizes` as `rank` dimensions: the leading ones beyond `rank` must be 1."""
    sizes = tuple(int(s) for s in sizes)
    if len(sizes) < rank or any(s != 1 for s in sizes[:len(sizes) - rank]):
        raise invalid(f"{field}.Sizes is {_format(sizes)}; {name} needs {rank} dimensions, with any "
                      f"leading ones 1.")
    return sizes[len(sizes) - rank:]


_squeeze = squeeze


def mask_type_name(value):
    return _MASK_TYPES[int(value)] if 0 <= int(value) < len(_MASK_TYPES) else str(value)


def attention_shapes(by_field, head_count, kv_head_count=None, name="MULTIHEAD_ATTENTION"):
    """(batch, sequence, key/value sequence, past sequence, head size, value head size) of a desc's tensors (only
    the query, key, value and past tensors are read); raises E_INVALIDARG when they disagree. `kv_head_count`
    (MULTIHEAD_ATTENTION1's KeyValueHeadCount): the key's, value's and past tensors' heads, head_count's by
    default."""
    op = "DML_OPERATOR_" + name
    kv_heads = head_count if kv_head_count is None else int(kv_head_count)
    squeeze = functools.partial(_squeeze, name=name)
    for role, fields in _SOURCES.items():
        present = [f for f in fields if f in by_field]
        if len(present) != 1:
            raise invalid(f"{op} gives its {role} through {', '.join(present) or 'no tensor'}; exactly one of "
                          f"{', '.join(fields)} must be given.")
    for field, slots in (("StackedQueryKeyTensor", 2), ("StackedKeyValueTensor", 2), ("StackedQueryKeyValueTensor", 3)):
        if field in by_field and kv_heads != head_count:
            raise invalid(f"{field} is given and KeyValueHeadCount {kv_heads} is not QueryHeadCount {head_count}; "
                          f"{op} stacks the query, key and value of one head count only.")
        if field in by_field:
            sizes = squeeze(by_field[field].sizes, 5, field)
            if sizes[2] != head_count or sizes[3] != slots:
                raise invalid(f"{field}.Sizes is {_format(sizes)}; {op} with HeadCount {head_count} needs "
                              f"{{batchSize, sequenceLength, {head_count}, {slots}, headSize}}.")
    if "QueryTensor" in by_field:
        batch, sequence, hidden = squeeze(by_field["QueryTensor"].sizes, 3, "QueryTensor")
    else:
        spec = by_field.get("StackedQueryKeyTensor", by_field.get("StackedQueryKeyValueTensor"))
        stacked = squeeze(spec.sizes, 5, "")
        batch, sequence, hidden = stacked[0], stacked[1], stacked[2] * stacked[4]
    if hidden % head_count:
        raise invalid(f"The query's hiddenSize is {hidden}; {op} needs a multiple of HeadCount {head_count}.")
    head = hidden // head_count
    if "KeyTensor" in by_field:
        kb, kv_sequence, key_hidden = squeeze(by_field["KeyTensor"].sizes, 3, "KeyTensor")
        if kb != batch or key_hidden != kv_heads * head:
            raise invalid(f"KeyTensor.Sizes is {_format(by_field['KeyTensor'].sizes)}; {op} needs {{{batch}, "
                          f"keyValueSequenceLength, {kv_heads * head}}} (the query's batchSize and "
                          f"{'hiddenSize' if kv_heads == head_count else 'headSize times KeyValueHeadCount'}).")
    elif "StackedQueryKeyTensor" in by_field or "StackedQueryKeyValueTensor" in by_field:
        kv_sequence = sequence
    else:
        stacked = squeeze(by_field["StackedKeyValueTensor"].sizes, 5, "StackedKeyValueTensor")
        if stacked[0] != batch or stacked[4] != head:
            raise invalid(f"StackedKeyValueTensor.Sizes is {_format(stacked)}; {op} needs {{{batch}, "
                          f"keyValueSequenceLength, {head_count}, 2, {head}}}.")
        kv_sequence = stacked[1]
    if "ValueTensor" in by_field:
        vb, v_sequence, value_hidden = squeeze(by_field["ValueTensor"].sizes, 3, "ValueTensor")
        if vb != batch or v_sequence != kv_sequence or value_hidden % kv_heads:
            raise invalid(f"ValueTensor.Sizes is {_format(by_field['ValueTensor'].sizes)}; {op} needs {{{batch}, "
                          f"{kv_sequence}, valueHiddenSize}} with valueHiddenSize a multiple of "
                          f"{'HeadCount' if kv_head_count is None else 'KeyValueHeadCount'} {kv_heads}.")
        value_head = value_hidden // kv_heads
    else:
        value_head = head
    past = 0
    for field, size in (("PastKeyTensor", head), ("PastValueTensor", value_head)):
        if field in by_field:
            sizes = squeeze(by_field[field].sizes, 4, field)
            if sizes[0] != batch or sizes[1] != kv_heads or sizes[3] != size:
                raise invalid(f"{field}.Sizes is {_format(by_field[field].sizes)}; {op} needs {{{batch}, "
                              f"{kv_heads}, pastSequenceLength, {size}}}.")
            past = sizes[2]
    if ("PastKeyTensor" in by_field) != ("PastValueTensor" in by_field) or (
            "PastKeyTensor" in by_field
            and by_field["PastKeyTensor"].sizes[-2] != by_field["PastValueTensor"].sizes[-2]):
        raise invalid(f"{op} takes PastKeyTensor and PastValueTensor together, with the same pastSequenceLength.")
    return batch, sequence, kv_sequence, past, head, value_head


def _check(schema, by_field, attributes):
    """The MULTIHEAD_ATTENTION rules of the module docstring."""
    _check_heads(schema, by_field, attributes, int(attributes["HeadCount"]), None)


def _check1(schema, by_field, attributes):
    """MULTIHEAD_ATTENTION1: MULTIHEAD_ATTENTION's rules with the key's, value's, past and present tensors' heads
    KeyValueHeadCount, a divisor of QueryHeadCount, and PastSequenceLengthsTensor [batchSize]."""
    heads, kv_heads = int(attributes["QueryHeadCount"]), int(attributes["KeyValueHeadCount"])
    if heads % kv_heads:
        raise invalid(f"QueryHeadCount is {heads} and KeyValueHeadCount {kv_heads}; {schema.c_name} needs "
                      f"KeyValueHeadCount to divide QueryHeadCount (each key / value head serves a group of query "
                      f"heads).")
    batch = _check_heads(schema, by_field, attributes, heads, kv_heads)
    lengths = by_field.get("PastSequenceLengthsTensor")
    if lengths is not None and squeeze(lengths.sizes, 1, "PastSequenceLengthsTensor", schema.name) != (batch,):
        raise invalid(f"PastSequenceLengthsTensor.Sizes is {_format(lengths.sizes)}; {schema.c_name} needs "
                      f"{{{batch}}} (leading sizes of 1 allowed).")


def _expected(by_field, head_count, kv_head_count, name):
    """{field: (rank, Sizes)} the rule gives the output, present, bias and relative position bias tensors."""
    kv_heads = head_count if kv_head_count is None else kv_head_count
    batch, sequence, kv_sequence, past, head, value_head = attention_shapes(by_field, head_count, kv_head_count, name)
    total = past + kv_sequence
    expect = {"OutputTensor": (3, (batch, sequence, head_count * value_head)),
              "RelativePositionBiasTensor": (4, (batch, head_count, sequence, total)),
              "OutputPresentKeyTensor": (4, (batch, kv_heads, total, head)),
              "OutputPresentValueTensor": (4, (batch, kv_heads, total, value_head))}
    if "BiasTensor" in by_field:
        expect["BiasTensor"] = (1, (head_count * head + kv_heads * head + kv_heads * value_head,))
    return expect


def _output_sizes(name, sizes, attributes):
    """The outputs' Sizes from the inputs' ({field: Sizes}): the Sizes `_expected` gives (their least rank)."""
    heads = int(attributes["HeadCount" if name == "MULTIHEAD_ATTENTION" else "QueryHeadCount"])
    kv_heads = None if name == "MULTIHEAD_ATTENTION" else int(attributes["KeyValueHeadCount"])
    expect = _expected({f: SimpleNamespace(sizes=tuple(v)) for f, v in sizes.items()}, heads, kv_heads, name)
    return {f: value for f, (_, value) in expect.items() if f.startswith("Output")}


# The optional inputs a desc of each operator gives when nothing else is asked: the plain query, key and value.
PLAIN_INPUTS = tuple(fields[0] for fields in _SOURCES.values())


def _check_heads(schema, by_field, attributes, head_count, kv_head_count):
    """The shape rules of both operators; returns batchSize."""
    op = schema.c_name
    squeeze = functools.partial(_squeeze, name=schema.name)
    mask_type = mask_type_name(attributes["MaskType"])
    batch, sequence, kv_sequence, past, _, _ = attention_shapes(by_field, head_count, kv_head_count, schema.name)
    total = past + kv_sequence
    expect = _expected(by_field, head_count, kv_head_count, schema.name)
    for field, (rank, sizes) in expect.items():
        if field in by_field and squeeze(by_field[field].sizes, rank, field) != sizes:
            raise invalid(f"{field}.Sizes is {_format(by_field[field].sizes)}; {op} needs {_format(sizes)} "
                          f"(leading sizes of 1 allowed).")
    mask = by_field.get("MaskTensor")
    if mask_type not in _MASK_TYPES:
        raise invalid(f"MaskType is {mask_type}; {op} takes a DML_MULTIHEAD_ATTENTION_MASK_TYPE.")
    if (mask is None) != (mask_type == "NONE"):
        raise invalid(f"MaskType is DML_MULTIHEAD_ATTENTION_MASK_TYPE_{mask_type} and MaskTensor is "
                      f"{'absent' if mask is None else 'given'}; {op} takes a MaskTensor exactly when MaskType is not "
                      f"NONE.")
    if mask is not None:
        sizes = tuple(int(s) for s in mask.sizes)
        allowed = {"KEY_SEQUENCE_LENGTH": [(batch,)], "KEY_SEQUENCE_END_START": [(2, batch), (2 * batch,)],
                   "KEY_QUERY_SEQUENCE_LENGTH_START_END": [(3 * batch + 2,)],
                   "BOOLEAN": [(batch, sequence, total), (batch, head_count, sequence, total)]}[mask_type]
        if not any(len(sizes) >= len(a) and squeeze(sizes, len(a), "MaskTensor") == a for a in allowed
                   if all(s == 1 for s in sizes[:max(0, len(sizes) - len(a))])):
            raise invalid(f"MaskTensor.Sizes is {_format(sizes)}; {op} with MaskType "
                          f"DML_MULTIHEAD_ATTENTION_MASK_TYPE_{mask_type} needs "
                          f"{' or '.join(_format(a) for a in allowed)} (leading sizes of 1 allowed).")
    return batch


SHAPE_RULES.update({"MULTIHEAD_ATTENTION": _check, "MULTIHEAD_ATTENTION1": _check1})
DERIVED_SIZES.update({name: functools.partial(_output_sizes, name) for name in ("MULTIHEAD_ATTENTION",
                                                                                "MULTIHEAD_ATTENTION1")})

__all__ = ["attention_shapes", "mask_type_name", "squeeze"]
