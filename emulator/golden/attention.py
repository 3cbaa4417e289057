"""DML_OPERATOR_MULTIHEAD_ATTENTION in the order docs/NUMERICS.md ("Multi-head attention") fixes, vectorised over
(batch, head, query row).

For each (b, h, i), in FLOAT32 (FLOAT16 tensors widened, exactly): q[d] = Query[b, i, h D + d] (+ Bias[h D + d],
rounded), k[j, d] = Key[b, j, h D + d] (+ Bias[hidden + h D + d], rounded), v[j, e] = Value[b, j, h Dv + e]
(+ Bias[2 hidden + h Dv + e], rounded), after the PastKey / PastValue rows j < Lp (no Bias) when given, the new
ones at j = Lp ..; the score s[j] = Scale * (GEMM's sum: from -0, fma(q[d], k[j, d], acc) for
d ascending), the multiply rounded once; with a RelativePositionBias, s[j] + RelativePositionBias[b, h, i, j]
(rounded); with MaskType KEY_SEQUENCE_LENGTH, s[j] + MaskFilterValue (rounded) for every j >= Mask[b] (a signed
INT32), with KEY_SEQUENCE_END_START for every j >= end[b] or j < start[b] (the Mask [2, batchSize]: the ends, then the
starts), with BOOLEAN the same where Mask[b, i, j] (or Mask[b, h, i, j]) is 0; then the row is softmax'd exactly
as ACTIVATION_SOFTMAX computes a row of Lp + Skv elements (dmlemu.golden.softmax's steps: maxNum, the reductions'
threads-then-tree sum of e^(s - M), one correctly rounded divide), p stays FLOAT32; the output Output[b, i, h Dv + e] = (GEMM's sum: from -0,
fma(p[j], v[j, e], acc) for j ascending), rounded once to FLOAT16 for FLOAT16 tensors. NaN results are canonical.
MULTIHEAD_ATTENTION1 (grouped-query attention) is the same with each key / value head repeated for its
QueryHeadCount / KeyValueHeadCount query heads; `present=True` also returns the present key and value.
This module follows that text, not the kernel: it never assembles or runs anything.
"""
import numpy as np

from dmlemu.golden.numbers import canonicalize_nans
from dmlemu.golden.reduce import _min_max, _sum
from dmlemu.golden.registry import operator
from dmlemu.golden.transcendental import _Math
from dmlemu.isa import numerics as _nm   # primitives only (the FMA, the divide, FLOAT16 narrowing)

_F32 = _Math(np.float32)
# the mask types this model computes
MASK_TYPES = {"NONE": 0, "KEY_SEQUENCE_LENGTH": 1, "KEY_SEQUENCE_END_START": 2, "BOOLEAN": 4}


def _three(x):
    """x without its leading sizes of 1, as [batch, sequence, hidden]."""
    x = np.asarray(x)
    return x.reshape(x.shape[x.ndim - 3:]) if x.ndim > 3 else x


def softmax_rows(scores):
    """ACTIVATION_SOFTMAX's steps on each row of a (rows, n) FLOAT32 array."""
    with np.errstate(all="ignore"):
        m = _min_max(scores, False)[:, None]
        e = np.asarray(_F32.exp((scores - m).astype(np.float32)), np.float32)
        s = _sum(e, np.float32(-0.0), np.add)[:, None]
        return np.asarray(_nm.divide(*np.broadcast_arrays(e, s)), np.float32)


def _unstack(query, key, value, qk, kv, qkv):
    """Query, Key and Value as [batch, sequence, heads * head] arrays, taken from the stacked tensors where given
    ([batch, sequence, heads, 2 or 3, head]: slot 0 the query (or the key of StackedKeyValue), then the key, the
    value)."""
    def take(stacked, slot):
        x = np.asarray(stacked)
        x = x.reshape(x.shape[x.ndim - 5:])[:, :, :, slot, :]
        return x.reshape(x.shape[0], x.shape[1], -1)
    if qkv is not None:
        return take(qkv, 0), take(qkv, 1), take(qkv, 2)
    if qk is not None:
        query, key = take(qk, 0), take(qk, 1)
    if kv is not None:
        key, value = take(kv, 0), take(kv, 1)
    return query, key, value


@operator(name="MULTIHEAD_ATTENTION", keyword_attributes=("Scale", "MaskFilterValue", "HeadCount", "MaskType"))
def multihead_attention(query, key, value, stacked_query_key=None, stacked_key_value=None,
                        stacked_query_key_value=None, bias=None, mask=None, relative_position_bias=None,
                        past_key=None, past_value=None, Scale=1.0, MaskFilterValue=-10000.0, HeadCount=1, MaskType=0,
                        present=False):
    """The OutputTensor of MULTIHEAD_ATTENTION with Query, Key and Value (separate or stacked), an optional Bias, an
    optional RelativePositionBias and MaskType NONE, KEY_SEQUENCE_LENGTH, KEY_SEQUENCE_END_START or BOOLEAN , PastKey and
    PastValue (the subset dmlemu's kernel serves; the rest raises NotImplementedError). `present`: return
    (OutputTensor, OutputPresentKeyTensor, OutputPresentValueTensor), the present ones [batchSize, HeadCount,
    totalSequenceLength, headSize (valueHeadSize)]: every key k[j, d] and value v[j, e] as step 1 gives them (past
    rows as they are, new ones with their Bias added), rounded once to FLOAT16 for FLOAT16 tensors."""
    query, key, value = _unstack(query, key, value, stacked_query_key, stacked_key_value, stacked_query_key_value)
    if (query is None or key is None or value is None
            or int(MaskType) not in MASK_TYPES.values()):
        raise NotImplementedError("the golden MULTIHEAD_ATTENTION takes Query, Key and Value, an optional "
                                  "Bias, an optional RelativePositionBias and MaskType NONE, KEY_SEQUENCE_LENGTH, "
                                  "KEY_SEQUENCE_END_START or BOOLEAN")
    storage = np.asarray(query).dtype
    query_shape = np.asarray(query).shape
    q, k, v = (_three(t).astype(np.float32) for t in (query, key, value))
    heads = int(HeadCount)
    batch, sequence, hidden = q.shape
    kv_sequence, value_hidden = v.shape[1], v.shape[2]
    d, dv = hidden // heads, value_hidden // heads
    with np.errstate(all="ignore"):
        if bias is not None:
            b = np.asarray(bias).reshape(-1).astype(np.float32)
            q = (q + b[:hidden]).astype(np.float32)
            k = (k + b[hidden:2 * hidden]).astype(np.float32)
            v = (v + b[2 * hidden:]).astype(np.float32)
        q = q.reshape(batch, sequence, heads, d).transpose(0, 2, 1, 3)          # [b, h, i, d]
        k = k.reshape(batch, kv_sequence, heads, d).transpose(0, 2, 1, 3)       # [b, h, j, d]
        v = v.reshape(batch, kv_sequence, heads, dv).transpose(0, 2, 1, 3)      # [b, h, j, e]
        if past_key is not None:      # the past keys and values first (no Bias), then the new ones
            four = lambda x: np.asarray(x).reshape(np.shape(x)[np.ndim(x) - 4:]).astype(np.float32)
            k = np.concatenate([four(past_key), k], axis=2)
            v = np.concatenate([four(past_value), v], axis=2)
            kv_sequence = k.shape[2]
        kept = (k, v)
        acc = np.full((batch, heads, sequence, kv_sequence), -0.0, np.float32)
        for c in range(d):
            acc = _nm.fused_multiply_add(q[:, :, :, c:c + 1], k[:, :, None, :, c], acc).astype(np.float32)
        scores = canonicalize_nans((acc * np.float32(Scale)).astype(np.float32))
        if relative_position_bias is not None:
            rpb = np.asarray(relative_position_bias).astype(np.float32)
            rpb = rpb.reshape(rpb.shape[rpb.ndim - 4:])                                   # [b, h, i, j]
            scores = canonicalize_nans((scores + rpb).astype(np.float32))
        if int(MaskType) == MASK_TYPES["BOOLEAN"]:
            m = np.asarray(mask)
            shape4 = (batch, heads, sequence, kv_sequence)
            m = m.reshape(shape4) if m.ndim >= 4 and m.shape[m.ndim - 4:] == shape4 else \
                m.reshape(batch, 1, sequence, kv_sequence)
            scores = np.where(m == 0, (scores + np.float32(MaskFilterValue)).astype(np.float32), scores)
        if int(MaskType) in (MASK_TYPES["KEY_SEQUENCE_LENGTH"], MASK_TYPES["KEY_SEQUENCE_END_START"]):
            lengths = np.asarray(mask).reshape(-1).astype(np.int64)
            masked = np.arange(kv_sequence)[None, :] >= lengths[:batch, None]             # [b, j]
            if int(MaskType) == MASK_TYPES["KEY_SEQUENCE_END_START"]:
                masked |= np.arange(kv_sequence)[None, :] < lengths[batch:, None]
            scores = np.where(masked[:, None, None, :], (scores + np.float32(MaskFilterValue)).astype(np.float32),
                              scores)
        p = softmax_rows(scores.reshape(-1, kv_sequence)).reshape(scores.shape)
        out = np.full((batch, heads, sequence, dv), -0.0, np.float32)
        for j in range(kv_sequence):
            out = _nm.fused_multiply_add(p[..., j:j + 1], v[:, :, None, j, :], out).astype(np.float32)
        out = canonicalize_nans(out).transpose(0, 2, 1, 3).reshape(batch, sequence, value_hidden)
        out = out.reshape(query_shape[:-3] + out.shape) if len(query_shape) > 3 else out
        narrow = lambda x: _nm.narrow_f16(x).astype(storage) if storage == np.float16 else x.astype(storage)
        if present:
            return narrow(out), narrow(kept[0]), narrow(kept[1])
        return narrow(out)


@operator(name="MULTIHEAD_ATTENTION1", keyword_attributes=("Scale", "MaskFilterValue", "QueryHeadCount",
                                                           "KeyValueHeadCount", "MaskType"))
def multihead_attention1(query, key, value, stacked_query_key=None, stacked_key_value=None,
                         stacked_query_key_value=None, bias=None, mask=None, relative_position_bias=None,
                         past_key=None, past_value=None, past_sequence_lengths=None, Scale=1.0,
                         MaskFilterValue=-10000.0, QueryHeadCount=1, KeyValueHeadCount=1, MaskType=0, present=False):
    """MULTIHEAD_ATTENTION1: MULTIHEAD_ATTENTION with KeyValueHeadCount key / value heads, each serving
    G = QueryHeadCount / KeyValueHeadCount consecutive query heads (query head h reads key / value head h // G):
    MULTIHEAD_ATTENTION's steps on the key, value and past tensors with each head repeated G times, the present
    tensors those of the heads h = 0, G, 2 G ... (the subset dmlemu's kernel serves: no PastSequenceLengthsTensor,
    no BiasTensor with G > 1; the rest raises NotImplementedError)."""
    heads, kv_heads = int(QueryHeadCount), int(KeyValueHeadCount)
    group = heads // kv_heads
    if past_sequence_lengths is not None or (group > 1 and bias is not None):
        raise NotImplementedError("the golden MULTIHEAD_ATTENTION1 takes no PastSequenceLengthsTensor, and no "
                                  "BiasTensor where KeyValueHeadCount is not QueryHeadCount")

    def widen(x, axis, rank):      # each key / value head repeated G times along its heads' axis
        if x is None or group == 1:
            return x
        x = np.asarray(x)
        x = x.reshape(x.shape[x.ndim - rank:])
        if rank == 3:              # [b, s, heads * size]
            b, s, hidden = x.shape
            return np.repeat(x.reshape(b, s, kv_heads, hidden // kv_heads), group, axis=2).reshape(b, s, -1)
        return np.repeat(x, group, axis=axis)
    result = multihead_attention(query, widen(key, 2, 3), widen(value, 2, 3), stacked_query_key, stacked_key_value,
                                 stacked_query_key_value, bias, mask, relative_position_bias, widen(past_key, 1, 4),
                                 widen(past_value, 1, 4), Scale=Scale, MaskFilterValue=MaskFilterValue,
                                 HeadCount=heads, MaskType=MaskType, present=present)
    if not present:
        return result
    out, present_key, present_value = result
    return out, present_key[:, ::group], present_value[:, ::group]
