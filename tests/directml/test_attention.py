"""DML_OPERATOR_MULTIHEAD_ATTENTION and MULTIHEAD_ATTENTION1 (grouped-query attention) through the mirror, bit for bit
against the golden model (docs/NUMERICS.md, "Multi-head attention"), present key / value outputs included.

Drawn descs (FLOAT32 and FLOAT16; batch, heads, query and key sequence lengths, head sizes; a Bias or none; MaskType
NONE or KEY_SEQUENCE_LENGTH; packed, padded and permuted layouts; special values) run on every adapter; the kernel
alone runs on wave widths 32 and 64; the golden model is checked against a literal per-element loop written from the
text and against float64 within a ULP-measured bound; the schema's rows, the shape rule's sentences and the
E_NOTIMPL sentences of the descs the kernel does not serve are pinned."""
import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings, strategies as st

from dmlemu import golden, run_operator
from dmlemu.d3d12 import *  # noqa: F401,F403
from dmlemu.directml import *  # noqa: F401,F403
from dmlemu.direct_run import DirectRun
from dmlemu.dxgi import CreateDXGIFactory1
from dmlemu.directml.operators import SCHEMAS_BY_NAME
from dmlemu.errors import E_INVALIDARG, E_NOTIMPL, HResultError
from dmlemu.golden.attention import multihead_attention, softmax_rows
from dmlemu.gpu import Gpu
from dmlemu.isa.numerics import fused_multiply_add
from dmlemu.kernels.attention_ops import TENSORS
from dmlemu.kernels.driver import TensorSpec
from dmlemu.kernels.reduce_ops import lanes_for
from dmlemu.presets import PRESETS, RX_7900_XTX, WARP
from operator_cases import ACCEPTED, REFUSED, outcome, scaled
from tensor_layouts import layout_strides, same_bits, tensor

DTYPES = {"FLOAT32": np.float32, "FLOAT16": np.float16}
OP = "DML_OPERATOR_MULTIHEAD_ATTENTION"


MASKS = {"NONE": 0, "KEY_SEQUENCE_LENGTH": 1, "KEY_SEQUENCE_END_START": 2, "BOOLEAN3": 4, "BOOLEAN4": 4}


def mask_sizes(kind, batch, heads, sequence, kv_sequence):
    return {"KEY_SEQUENCE_LENGTH": (batch,), "KEY_SEQUENCE_END_START": (2, batch),
            "BOOLEAN3": (batch, sequence, kv_sequence),
            "BOOLEAN4": (batch, heads, sequence, kv_sequence)}.get(kind)


def attention_desc(type_name, batch, sequence, kv_sequence, heads, head, value_head, bias=False, mask="NONE",
                   strides=(None, None, None, None), scale=0.5, filter_value=-10000.0, rpb=False, **extra):
    mask = {False: "NONE", True: "KEY_SEQUENCE_LENGTH"}.get(mask, mask)
    fields = dict(
        QueryTensor=tensor(type_name, (batch, sequence, heads * head), strides[0]),
        KeyTensor=tensor(type_name, (batch, kv_sequence, heads * head), strides[1]),
        ValueTensor=tensor(type_name, (batch, kv_sequence, heads * value_head), strides[2]),
        BiasTensor=tensor(type_name, (2 * heads * head + heads * value_head,)) if bias else None,
        MaskTensor=tensor("INT32", mask_sizes(mask, batch, heads, sequence, kv_sequence)) if mask != "NONE" else None,
        RelativePositionBiasTensor=tensor(type_name, (batch, heads, sequence, kv_sequence)) if rpb else None,
        OutputTensor=tensor(type_name, (batch, sequence, heads * value_head), strides[3]),
        Scale=scale, MaskFilterValue=filter_value, HeadCount=heads, MaskType=MASKS[mask])
    fields.update(extra)
    return DML_MULTIHEAD_ATTENTION_OPERATOR_DESC(**fields)


def values(rng, type_name, shape, special=False):
    x = (rng.standard_normal(shape) * rng.choice([0.1, 1.0, 4.0])).astype(DTYPES[type_name])
    if special and x.size:
        picks = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0], dtype=x.dtype)
        pick = rng.random(shape) < 0.03
        x[pick] = rng.choice(picks, size=int(pick.sum()))
    return x


def inputs_of(q, k, v, bias=None, mask=None, rpb=None):
    return [q, k, v, None, None, None, bias, mask, rpb, None, None]


def expected(q, k, v, bias, mask, heads, scale=0.5, filter_value=-10000.0, rpb=None, mask_type=None,
             past=(None, None)):
    if mask_type is None:
        mask_type = 0 if mask is None else (1 if mask.ndim == 1 else 4)
    return golden.run("MULTIHEAD_ATTENTION", inputs_of(q, k, v, bias, mask, rpb)[:9] + list(past), {
        "Scale": np.float32(scale), "MaskFilterValue": np.float32(filter_value), "HeadCount": heads,
        "MaskType": mask_type})


# ---- drawn descs through the mirror ------------------------------------------------------------------------------
@st.composite
def cases(draw):
    return dict(type_name=draw(st.sampled_from(["FLOAT32", "FLOAT16"])), batch=draw(st.integers(1, 2)),
                sequence=draw(st.integers(1, 3)), kv_sequence=draw(st.sampled_from([1, 2, 5, 9, 70])),
                heads=draw(st.integers(1, 3)), head=draw(st.integers(1, 6)), value_head=draw(st.integers(1, 5)),
                bias=draw(st.booleans()), mask=draw(st.sampled_from(sorted(MASKS))), rpb=draw(st.booleans()),
                scale=draw(st.sampled_from([1.0, 0.5, 0.125, -2.0])),
                layouts=[draw(st.sampled_from(["packed", "padded", "permuted"])) for _ in range(4)],
                stacking=draw(st.sampled_from(["", "", "qkv", "qk", "kv"])), past=draw(st.sampled_from([0, 0, 1, 4])),
                present=draw(st.sampled_from(["", "", "k", "v", "kv"])),
                special=draw(st.booleans()), seed=draw(st.integers(0, 2 ** 32 - 1)))


STACKED = {"qkv": "StackedQueryKeyValueTensor", "qk": "StackedQueryKeyTensor", "kv": "StackedKeyValueTensor"}


def run_case(case, preset=None):
    rng = np.random.default_rng(case["seed"])
    t, b, s, kv, h = case["type_name"], case["batch"], case["sequence"], case["kv_sequence"], case["heads"]
    d, dv = case["head"], case["value_head"]
    stacking = case.get("stacking", "")
    kv = s if stacking in ("qkv", "qk") else kv          # a stacked query and key share the sequence
    dv = d if stacking in ("qkv", "kv") else dv          # a stacked key and value share the head size
    past = case.get("past", 0)
    total = past + kv
    shapes = [(b, s, h * d), (b, kv, h * d), (b, kv, h * dv), (b, s, h * dv)]
    strides = [layout_strides(shape, layout, rng)[0] for shape, layout in zip(shapes, case["layouts"])]
    q, k, v = (values(rng, t, shape, case["special"]) for shape in shapes[:3])
    bias = values(rng, t, (2 * h * d + h * dv,)) if case["bias"] else None
    kind = {False: "NONE", True: "KEY_SEQUENCE_LENGTH"}.get(case["mask"], case["mask"])
    mask = None
    if kind == "KEY_SEQUENCE_LENGTH":
        mask = rng.integers(-1, total + 2, size=b).astype(np.int32)
    elif kind == "KEY_SEQUENCE_END_START":    # the ends, then the starts
        mask = np.stack([rng.integers(-1, total + 2, size=b), rng.integers(-1, total + 1, size=b)]).astype(np.int32)
    elif kind != "NONE":       # BOOLEAN: 0 masks, any other value keeps
        mask = rng.choice(np.array([0, 1, 2, -1], np.int32), size=mask_sizes(kind, b, h, s, total),
                          p=[0.3, 0.5, 0.1, 0.1])
    rpb = values(rng, t, (b, h, s, total), case["special"]) if case.get("rpb") else None
    desc = attention_desc(t, b, s, kv, h, d, dv, case["bias"], kind, strides, case["scale"], rpb=rpb is not None)
    inputs = inputs_of(q, k, v, bias, mask, rpb)
    past_key = past_value = None
    if past:
        past_key, past_value = values(rng, t, (b, h, past, d), case["special"]), values(rng, t, (b, h, past, dv))
        desc.PastKeyTensor, desc.PastValueTensor = tensor(t, past_key.shape), tensor(t, past_value.shape)
        inputs[9:11] = [past_key, past_value]
        if mask is not None and kind.startswith("BOOLEAN"):
            desc.MaskTensor = tensor("INT32", mask.shape)
        if rpb is not None:
            desc.RelativePositionBiasTensor = tensor(t, rpb.shape)
    if stacking:     # the same elements in a [b, s, h, 2 or 3, d] tensor, in the query's layout
        x = np.concatenate([{"q": q, "k": k, "v": v}[c].reshape(b, -1, h, 1, d) for c in stacking], axis=3)
        setattr(desc, STACKED[stacking], tensor(t, x.shape, layout_strides(x.shape, case["layouts"][0], rng)[0]))
        for c, field in (("q", "QueryTensor"), ("k", "KeyTensor"), ("v", "ValueTensor")):
            if c in stacking:
                setattr(desc, field, None)
                inputs[TENSORS.index(field)] = None
        inputs[TENSORS.index(STACKED[stacking])] = x
    present = case.get("present", "")
    for c, field, size in (("k", "OutputPresentKeyTensor", d), ("v", "OutputPresentValueTensor", dv)):
        if c in present:
            shape = (b, h, total, size)
            setattr(desc, field, tensor(t, shape, layout_strides(shape, case["layouts"][3], rng)[0]))
    got = run_operator(desc, inputs, adapter=preset)
    want = multihead_attention(*inputs, Scale=np.float32(case["scale"]), MaskFilterValue=np.float32(-10000.0),
                               HeadCount=h, MaskType=MASKS[kind], present=True)
    same_bits(got[0], expected(q, k, v, bias, mask, h, case["scale"], rpb=rpb, mask_type=MASKS[kind],
                               past=(past_key, past_value)))
    same_bits(got[0], want[0])
    for g, c in zip(got[1:], [c for c in "kv" if c in present]):
        same_bits(g, want["_kv".index(c)])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases(), st.sampled_from(PRESETS + (WARP,)))
def test_drawn_attentions_are_bit_exact_on_every_adapter(case, preset):
    run_case(case, preset)


@pytest.mark.parametrize("type_name", ["FLOAT32", "FLOAT16"])
@pytest.mark.parametrize("preset", PRESETS + (WARP,), ids=lambda p: p.key if hasattr(p, "key") else str(p))
def test_one_case_with_bias_and_mask_on_each_adapter(type_name, preset):
    run_case(dict(type_name=type_name, batch=2, sequence=2, kv_sequence=7, heads=2, head=3, value_head=2, bias=True,
                  mask=True, scale=0.5, layouts=["packed", "padded", "permuted", "packed"], special=False, seed=5),
             preset)


@pytest.mark.parametrize("sizes", [(2, 3), (1, 6), (6,)])
def test_key_sequence_end_start_in_each_shape(sizes):
    rng = np.random.default_rng(11)
    q, k, v = (values(rng, "FLOAT32", shape) for shape in ((3, 2, 4), (3, 6, 4), (3, 6, 2)))
    bounds = np.array([[6, 3, 4], [0, 1, 4]], np.int32)        # ends, then starts: keys 0..5, 1..2, none
    desc = attention_desc("FLOAT32", 3, 2, 6, 2, 2, 1, MaskType=2, MaskTensor=tensor("INT32", sizes))
    (got,) = run_operator(desc, inputs_of(q, k, v, None, bounds.reshape(sizes)))
    want = expected(q, k, v, None, bounds, 2, mask_type=2, filter_value=-1e4)
    same_bits(got, want)
    unmasked = expected(q[:1], k[:1], v[:1], None, None, 2)
    same_bits(want[:1], unmasked)                               # batch 0: every key kept
    part = expected(q[1:2], k[1:2, 1:3], v[1:2, 1:3], None, None, 2)
    np.testing.assert_allclose(want[1:2], part, rtol=1e-6, atol=1e-6)   # batch 1: keys 1 and 2 only


def test_a_long_key_sequence_takes_more_threads():
    # 300 keys: 128 threads per workgroup (the reductions' lanes for 300), each scoring 2 or 3 keys
    run_case(dict(type_name="FLOAT32", batch=1, sequence=2, kv_sequence=300, heads=2, head=4, value_head=3,
                  bias=False, mask=True, scale=0.25, layouts=["packed"] * 4, special=False, seed=9))


@pytest.mark.parametrize("stacking", ["qkv", "qk", "kv"])
@pytest.mark.parametrize("type_name", ["FLOAT32", "FLOAT16"])
def test_stacked_tensors_are_the_separate_ones_at_other_strides(stacking, type_name):
    rng = np.random.default_rng(len(stacking))
    b, s, kv, h, d = 2, 3, 70 if stacking == "kv" else 3, 2, 3
    q, k, v = (values(rng, type_name, shape) for shape in ((b, s, h * d), (b, kv, h * d), (b, kv, h * d)))
    heads = lambda x: x.reshape(x.shape[0], x.shape[1], h, 1, d)
    x = np.concatenate([heads({"q": q, "k": k, "v": v}[c]) for c in stacking], axis=3)
    field = {"qkv": "StackedQueryKeyValueTensor", "qk": "StackedQueryKeyTensor", "kv": "StackedKeyValueTensor"}
    gone = {"qkv": ("QueryTensor", "KeyTensor", "ValueTensor"), "qk": ("QueryTensor", "KeyTensor"),
            "kv": ("KeyTensor", "ValueTensor")}[stacking]
    padded = [(s_ * 2 if i == 0 else s_) for i, s_ in enumerate(layout_strides(x.shape, "padded", rng)[0])]
    desc = attention_desc(type_name, b, s, kv, h, d, d, bias=True, rpb=False, **{f: None for f in gone},
                          **{field[stacking]: tensor(type_name, x.shape, padded)})
    inputs = inputs_of(None if "QueryTensor" in gone else q, None if "KeyTensor" in gone else k,
                       None if "ValueTensor" in gone else v, values(rng, type_name, (3 * h * d,)))
    inputs[3 + ["qk", "kv", "qkv"].index(stacking)] = x
    (got,) = run_operator(desc, inputs)
    want = golden.run("MULTIHEAD_ATTENTION", inputs, {"Scale": np.float32(0.5), "MaskFilterValue": np.float32(-1e4),
                                                      "HeadCount": h, "MaskType": 0})
    same_bits(got, want)
    same_bits(want, expected(q, k, v, inputs[6], None, h))      # the golden model unstacks as the page says


@pytest.mark.parametrize("type_name", ["FLOAT32", "FLOAT16"])
def test_past_keys_and_values_come_first(type_name):
    rng = np.random.default_rng(21)
    b, s, kv, h, d, dv, past = 2, 3, 4, 2, 3, 2, 5
    q, k, v = (values(rng, type_name, shape) for shape in ((b, s, h * d), (b, kv, h * d), (b, kv, h * dv)))
    pk, pv = values(rng, type_name, (b, h, past, d)), values(rng, type_name, (b, h, past, dv))
    mask = np.array([7, 9], np.int32)
    desc = attention_desc(type_name, b, s, kv, h, d, dv, mask=True, PastKeyTensor=tensor(type_name, pk.shape),
                          PastValueTensor=tensor(type_name, pv.shape))
    inputs = inputs_of(q, k, v, None, mask)
    inputs[9:11] = [pk, pv]
    (got,) = run_operator(desc, inputs)
    want = expected(q, k, v, None, mask, h, past=(pk, pv))
    same_bits(got, want)
    merge = lambda p, x: np.concatenate([p.transpose(0, 2, 1, 3).reshape(b, past, -1), x], axis=1)
    same_bits(want, expected(q, merge(pk, k), merge(pv, v), None, mask, h))   # the same keys in one tensor


@pytest.mark.parametrize("type_name", ["FLOAT32", "FLOAT16"])
@pytest.mark.parametrize("bias", [False, True])
def test_present_keys_and_values_are_the_past_then_the_new_ones(type_name, bias):
    rng = np.random.default_rng(31)
    b, s, kv, h, d, dv, past = 2, 3, 4, 2, 3, 2, 5
    q, k, v = (values(rng, type_name, shape, special=True) for shape in ((b, s, h * d), (b, kv, h * d),
                                                                         (b, kv, h * dv)))
    pk, pv = values(rng, type_name, (b, h, past, d), special=True), values(rng, type_name, (b, h, past, dv))
    bias_values = values(rng, type_name, (2 * h * d + h * dv,)) if bias else None
    total = past + kv
    padded = layout_strides((b, h, total, d), "padded", rng)[0]
    desc = attention_desc(type_name, b, s, kv, h, d, dv, bias=bias, PastKeyTensor=tensor(type_name, pk.shape),
                          PastValueTensor=tensor(type_name, pv.shape),
                          OutputPresentKeyTensor=tensor(type_name, (b, h, total, d), padded),
                          OutputPresentValueTensor=tensor(type_name, (b, h, total, dv)))
    inputs = inputs_of(q, k, v, bias_values)
    inputs[9:11] = [pk, pv]
    out, present_key, present_value = run_operator(desc, inputs)
    want = multihead_attention(*inputs, Scale=np.float32(0.5), MaskFilterValue=np.float32(-1e4), HeadCount=h,
                               present=True)
    for got, expect in zip((out, present_key, present_value), want):
        same_bits(got, expect)
    same_bits(out, expected(q, k, v, bias_values, None, h, past=(pk, pv)))    # the output does not change
    same_bits(present_key[:, :, :past], pk)                                 # the past rows as they are
    same_bits(present_value[:, :, :past], pv)
    heads = lambda x, size: x.reshape(b, kv, h, size).transpose(0, 2, 1, 3)
    if not bias:                                                            # then the new ones as they are
        same_bits(present_key[:, :, past:], heads(k, d))
        same_bits(present_value[:, :, past:], heads(v, dv))
    else:                                                                   # with the Bias added, rounded
        with np.errstate(all="ignore"):
            added = (k.astype(np.float32) + bias_values[h * d:2 * h * d].astype(np.float32)).astype(k.dtype)
        np.testing.assert_array_equal(present_key[:, :, past:], heads(added, d))


# ---- the same kernel on every wave width ---------------------------------------------------------------------------
def run_kernel(q, k, v, bias, mask, heads, width, rpb=None, mask_type=None):
    gpu = Gpu(RX_7900_XTX, wave_width=width, timing=False)
    t = "FLOAT32" if q.dtype == np.float32 else "FLOAT16"
    out = np.zeros(q.shape[:2] + (v.shape[2],), q.dtype)
    arrays = dict(zip(TENSORS, inputs_of(q, k, v, bias, mask, rpb) + [out, None, None]))
    specs = [None if x is None else TensorSpec("INT32" if f == "MaskTensor" else t, x.shape, None, x.nbytes)
             for f, x in arrays.items()]
    raw = [np.zeros(4, np.uint8) if x is None else x.view(np.uint8).reshape(-1) for x in arrays.values()]
    run = DirectRun(gpu, "MULTIHEAD_ATTENTION", specs, raw, attributes={
        "Scale": np.float32(0.5), "MaskFilterValue": np.float32(-10000.0), "HeadCount": heads,
        "MaskType": int(mask is not None) if mask_type is None else mask_type})
    run.dispatch()
    return run.output_bytes(TENSORS.index("OutputTensor"))[:out.nbytes].view(out.dtype).reshape(out.shape)


@pytest.mark.parametrize("type_name", ["FLOAT32", "FLOAT16"])
def test_every_wave_width_gives_the_same_bits(type_name):
    rng = np.random.default_rng(12)
    q, k, v = (values(rng, type_name, shape, special=True) for shape in ((2, 3, 8), (2, 70, 8), (2, 70, 6)))
    bias = values(rng, type_name, (22,))
    mask = np.array([50, 70], np.int32)
    want = expected(q, k, v, bias, mask, 2)
    for width in (32, 64):
        same_bits(run_kernel(q, k, v, bias, mask, 2, width), want)
    rpb = values(rng, type_name, (2, 2, 3, 70), special=True)
    boolean = (rng.random((2, 2, 3, 70)) < 0.8).astype(np.int32)
    want = expected(q, k, v, None, boolean, 2, rpb=rpb)
    for width in (32, 64):
        same_bits(run_kernel(q, k, v, None, boolean, 2, width, rpb=rpb, mask_type=4), want)


# ---- the golden model against the text and against float64 ------------------------------------------------------
def literal(q, k, v, bias, mask, heads, scale, filter_value, rpb=None):
    """docs/NUMERICS.md's steps one element at a time (FLOAT32 only)."""
    f = np.float32
    batch, sequence, hidden = q.shape
    kv, value_hidden = v.shape[1], v.shape[2]
    d, dv = hidden // heads, value_hidden // heads
    out = np.zeros((batch, sequence, value_hidden), f)
    for b in range(batch):
        for h in range(heads):
            for i in range(sequence):
                scores = np.zeros(kv, f)
                for j in range(kv):
                    acc = f(-0.0)
                    for c in range(d):
                        qv, kvv = q[b, i, h * d + c], k[b, j, h * d + c]
                        if bias is not None:
                            qv, kvv = f(qv + bias[h * d + c]), f(kvv + bias[hidden + h * d + c])
                        acc = f(fused_multiply_add(qv, kvv, acc))
                    scores[j] = f(f(scale) * acc)
                    if rpb is not None:
                        scores[j] = f(scores[j] + rpb[b, h, i, j])
                    masked = mask is not None and (j >= mask[b] if mask.ndim == 1 else
                                                   not mask[1, b] <= j < mask[0, b] if mask.shape == (2, batch) else
                                                   (mask[b, i, j] if mask.ndim == 3 else mask[b, h, i, j]) == 0)
                    if masked:
                        scores[j] = f(scores[j] + f(filter_value))
                p = softmax_rows(scores[None, :])[0]
                for e in range(dv):
                    acc = f(-0.0)
                    for j in range(kv):
                        vv = v[b, j, h * dv + e]
                        if bias is not None:
                            vv = f(vv + bias[2 * hidden + h * dv + e])
                        acc = f(fused_multiply_add(p[j], vv, acc))
                    out[b, i, h * dv + e] = acc
    return out


def test_the_golden_model_follows_the_text():
    rng = np.random.default_rng(4)
    q, k, v = (values(rng, "FLOAT32", shape) for shape in ((2, 2, 6), (2, 5, 6), (2, 5, 4)))
    bias = values(rng, "FLOAT32", (16,))
    mask = np.array([2, 9], np.int32)
    rpb = values(rng, "FLOAT32", (2, 2, 2, 5))
    boolean = (rng.random((2, 2, 2, 5)) < 0.6).astype(np.int32)
    with np.errstate(all="ignore"):
        same_bits(expected(q, k, v, bias, mask, 2, 0.75, -30.0), literal(q, k, v, bias, mask, 2, 0.75, -30.0))
        same_bits(expected(q, k, v, None, boolean, 2, 0.75, -30.0, rpb),
                  literal(q, k, v, None, boolean, 2, 0.75, -30.0, rpb))
        same_bits(expected(q, k, v, bias, boolean[:, 0], 2, 1.0, -5.0, rpb),
                  literal(q, k, v, bias, boolean[:, 0], 2, 1.0, -5.0, rpb))
        ends = np.array([[4, 5], [1, 2]], np.int32)
        same_bits(expected(q, k, v, None, ends, 2, 1.0, -5.0, rpb, mask_type=2),
                  literal(q, k, v, None, ends, 2, 1.0, -5.0, rpb))
        assert not np.array_equal(expected(q, k, v, None, boolean, 2, 0.75, -30.0, rpb),
                                  expected(q, k, v, None, None, 2, 0.75, -30.0, rpb))     # the mask matters


def float64_reference(q, k, v, heads, scale):
    q, k, v = (x.astype(np.float64) for x in (q, k, v))
    batch, sequence, hidden = q.shape
    d, dv = hidden // heads, v.shape[2] // heads
    qh = q.reshape(batch, sequence, heads, d).transpose(0, 2, 1, 3)
    kh = k.reshape(batch, -1, heads, d).transpose(0, 2, 1, 3)
    vh = v.reshape(batch, -1, heads, dv).transpose(0, 2, 1, 3)
    s = scale * qh @ kh.transpose(0, 1, 3, 2)
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    p /= p.sum(axis=-1, keepdims=True)
    return (p @ vh).transpose(0, 2, 1, 3).reshape(batch, sequence, -1)


@pytest.mark.parametrize("type_name, bound", [("FLOAT32", 16), ("FLOAT16", 1)])   # measured: 5.7 and 0.49
def test_golden_is_within_a_few_ulps_of_float64(type_name, bound):
    # ULPs of the output type at the reference's magnitude (at least that of 1/8: the output is a convex combination
    # of values ~1, so smaller results are cancellations measured against the inputs' scale)
    rng = np.random.default_rng(7)
    worst = 0.0
    for kv in (1, 8, 64, 200):
        q, k, v = ((rng.standard_normal(shape)).astype(DTYPES[type_name]) for shape in
                   ((2, 3, 16), (2, kv, 16), (2, kv, 12)))
        got = expected(q, k, v, None, None, 2, 0.25).astype(np.float64)
        want = float64_reference(q, k, v, 2, 0.25)
        ulp = np.spacing(np.maximum(np.abs(want), 0.125).astype(DTYPES[type_name])).astype(np.float64)
        worst = max(worst, float(np.max(np.abs(got - want) / ulp)))
    assert worst <= bound, worst


# ---- special values --------------------------------------------------------------------------------------------
def test_a_nan_key_makes_its_rows_nan_and_a_fully_masked_row_stays_finite():
    q = np.ones((2, 1, 2), np.float32)
    k = np.ones((2, 3, 2), np.float32)
    k[0, 1, 0] = np.nan
    v = np.arange(12, dtype=np.float32).reshape(2, 3, 2)
    mask = np.array([3, 0], np.int32)      # batch 1: every key masked (MaskFilterValue added to all of them)
    (got,) = run_operator(attention_desc("FLOAT32", 2, 1, 3, 1, 2, 2, mask=True), inputs_of(q, k, v, None, mask))
    assert np.isnan(got[0]).all()
    assert np.isfinite(got[1]).all()
    same_bits(got, expected(q, k, v, None, mask, 1))


# ---- validation and what the kernel does not serve ------------------------------------------------------------------
def create(desc, level=DML_FEATURE_LEVEL_6_4, adapter=0):
    d3d12 = D3D12CreateDevice(CreateDXGIFactory1().EnumAdapters1(adapter), D3D_FEATURE_LEVEL_11_0)
    dml = DMLCreateDevice(d3d12, DML_CREATE_DEVICE_FLAG_NONE, max_feature_level=level)
    return dml, dml.CreateOperator(DML_OPERATOR_DESC(Type=DML_OPERATOR_MULTIHEAD_ATTENTION, Desc=desc))


def refusal(desc, level=DML_FEATURE_LEVEL_6_4, adapter=0):
    """(HRESULT, sentence) of CreateOperator, or of CompileOperator where the desc is valid."""
    with pytest.raises(HResultError) as error:
        dml, op = create(desc, level, adapter)
        dml.CompileOperator(op, DML_EXECUTION_FLAG_NONE)
    return error.value.hresult, error.value.message


def test_the_schema_row():
    schema = SCHEMAS_BY_NAME["MULTIHEAD_ATTENTION"]
    assert schema.introduced_at == DML_FEATURE_LEVEL_6_1
    (row,) = schema.support
    assert row.tensors["MaskTensor"].data_types == ("INT32",)
    assert {f: (t.min_dims, t.max_dims) for f, t in row.tensors.items()}["StackedQueryKeyValueTensor"] == (5, 5)
    assert [t.field for t in schema.tensors if not t.optional] == ["OutputTensor"]
    assert [a.field for a in schema.attributes] == ["Scale", "MaskFilterValue", "HeadCount", "MaskType"]


def test_created_from_6_1_and_refused_below():
    desc = attention_desc("FLOAT32", 1, 2, 3, 2, 2, 2)
    create(desc, DML_FEATURE_LEVEL_6_1)
    assert refusal(desc, DML_FEATURE_LEVEL_6_0) == (E_INVALIDARG, (
        "DML_OPERATOR_DESC.Type is DML_OPERATOR_MULTIHEAD_ATTENTION, introduced in DML_FEATURE_LEVEL_6_1; this device "
        "supports up to DML_FEATURE_LEVEL_6_0."))


@pytest.mark.parametrize("change, sentence", [
    (dict(QueryTensor=None), f"{OP} gives its query through no tensor; exactly one of QueryTensor, "
                             "StackedQueryKeyTensor, StackedQueryKeyValueTensor must be given."),
    (dict(KeyTensor=tensor("FLOAT32", (1, 3, 5))),
     f"KeyTensor.Sizes is {{1,3,5}}; {OP} needs {{1, keyValueSequenceLength, 4}} (the query's batchSize and "
     "hiddenSize)."),
    (dict(HeadCount=3), f"The query's hiddenSize is 4; {OP} needs a multiple of HeadCount 3."),
    (dict(OutputTensor=tensor("FLOAT32", (1, 2, 5))), f"OutputTensor.Sizes is {{1,2,5}}; {OP} needs {{1,2,4}} "
                                                      "(leading sizes of 1 allowed)."),
    (dict(MaskType=1), "MaskType is DML_MULTIHEAD_ATTENTION_MASK_TYPE_KEY_SEQUENCE_LENGTH and MaskTensor is absent; "
                       f"{OP} takes a MaskTensor exactly when MaskType is not NONE."),
    (dict(MaskType=1, MaskTensor=tensor("INT32", (2,))), f"MaskTensor.Sizes is {{2}}; {OP} with MaskType "
                                                         "DML_MULTIHEAD_ATTENTION_MASK_TYPE_KEY_SEQUENCE_LENGTH needs "
                                                         "{1} (leading sizes of 1 allowed)."),
    (dict(BiasTensor=tensor("FLOAT32", (11,))), f"BiasTensor.Sizes is {{11}}; {OP} needs {{12}} (leading sizes of 1 "
                                                "allowed)."),
    (dict(ValueTensor=tensor("FLOAT16", (1, 3, 4))), "ValueTensor.DataType is DML_TENSOR_DATA_TYPE_FLOAT16 but "
                                                     "QueryTensor.DataType is DML_TENSOR_DATA_TYPE_FLOAT32; "),
    (dict(QueryTensor=tensor("FLOAT32", (2, 1, 2, 4))), "QueryTensor.Sizes is {2,1,2,4}; MULTIHEAD_ATTENTION needs 3 "
                                                        "dimensions, with any leading ones 1."),
])
def test_shape_rules_are_refused_with_a_sentence(change, sentence):
    desc = attention_desc("FLOAT32", 1, 2, 3, 2, 2, 2, **change)
    hresult, message = refusal(desc)
    assert hresult == E_INVALIDARG
    assert message.startswith(sentence), message


@pytest.mark.parametrize("mask_type, sizes", [(1, (1, 1)), (2, (2, 1)), (2, (2,)), (3, (5,)), (4, (1, 2, 3)),
                                              (4, (1, 2, 2, 3))])
def test_each_mask_type_takes_its_page_shapes(mask_type, sizes):
    create(attention_desc("FLOAT32", 1, 2, 3, 2, 2, 2, MaskType=mask_type, MaskTensor=tensor("INT32", sizes)))


def test_leading_sizes_of_one_are_accepted():
    desc = attention_desc("FLOAT32", 1, 2, 3, 2, 2, 2, QueryTensor=tensor("FLOAT32", (1, 1, 1, 2, 4)))
    create(desc)


@pytest.mark.parametrize("change, sentence", [
    (dict(MaskType=3, MaskTensor=tensor("INT32", (5,))),
     "serves MaskType NONE, KEY_SEQUENCE_LENGTH, KEY_SEQUENCE_END_START and BOOLEAN, not "
     "DML_MULTIHEAD_ATTENTION_MASK_TYPE value 3"),
])
def test_unserved_descs_are_not_implemented_with_a_sentence(change, sentence):
    fields = dict(KeyTensor=tensor("FLOAT32", (1, 2, 4)), ValueTensor=tensor("FLOAT32", (1, 2, 4)))
    fields.update(change)
    hresult, message = refusal(attention_desc("FLOAT32", 1, 2, 2, 2, 2, 2, **fields))
    assert hresult == E_NOTIMPL
    assert sentence in message, message


@pytest.mark.parametrize("adapter", range(len(PRESETS)), ids=[p.key for p in PRESETS])
def test_a_key_sequence_past_the_presets_lds_is_not_implemented(adapter):
    limit = PRESETS[adapter].lds_max_bytes_per_workgroup
    fits = next(kv for kv in range(limit // 4, 0, -1) if 4 * (lanes_for(kv) + 4 + kv) <= limit)
    dml, op = create(attention_desc("FLOAT32", 1, 1, fits, 1, 4, 4), adapter=adapter)
    dml.CompileOperator(op, DML_EXECUTION_FLAG_NONE)
    kv = fits + 1
    hresult, message = refusal(attention_desc("FLOAT32", 1, 1, kv, 1, 4, 4), adapter=adapter)
    assert hresult == E_NOTIMPL
    needs = 4 * (lanes_for(kv) + 4 + kv)
    assert f"{kv} keys (pastSequenceLength + keyValueSequenceLength) with headSize 4 needs {needs} bytes, more than {limit}" in message, message


# ---- hostile descs: a sentence, never a traceback ----------------------------------------------------------------
_SIZES = st.lists(st.integers(0, 7), min_size=0, max_size=6)


@settings(max_examples=scaled(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_hostile_descs_are_refused_with_a_sentence_or_run(data):
    from operator_cases import garbage
    base = attention_desc("FLOAT32", 1, 2, 3, 2, 2, 2, bias=True, mask="BOOLEAN4", rpb=True)
    hostile = {"Scale": st.floats(allow_nan=True), "MaskFilterValue": st.floats(allow_nan=True),
               "HeadCount": st.integers(-1, 9), "MaskType": st.integers(-1, 6)}
    for name in data.draw(st.lists(st.sampled_from(TENSORS + tuple(hostile)), min_size=1, max_size=3, unique=True)):
        if name in hostile:
            value = data.draw(st.one_of(hostile[name], garbage))
        else:
            value = data.draw(st.one_of(st.none(), st.builds(
                tensor, st.sampled_from(["FLOAT32", "FLOAT16", "INT32"]),
                st.lists(st.integers(1, 7), min_size=1, max_size=6))))
        try:
            setattr(base, name, value)
        except (TypeError, ValueError, OverflowError):
            event("the desc struct refused a field")
            outcome(REFUSED)
            return                      # the struct refuses it before the mirror sees it
    try:
        dml, op = create(base)
        dml.CompileOperator(op, DML_EXECUTION_FLAG_NONE)
        event("compiled")
        outcome(ACCEPTED)                   # bench/hostile_census.py: compiled (the drawn descs are not run)
    except HResultError as error:
        event({E_INVALIDARG: "E_INVALIDARG", E_NOTIMPL: "E_NOTIMPL"}.get(error.hresult, "other"))
        assert error.hresult in (E_INVALIDARG, E_NOTIMPL) and error.message.endswith("."), error.message
        outcome(REFUSED)


# ---- MULTIHEAD_ATTENTION1: grouped-query attention -----------------------------------------------------------------
def attention1_desc(type_name, batch, sequence, kv_sequence, heads, kv_heads, head, value_head, past=0,
                    present=False, **extra):
    total = past + kv_sequence
    fields = dict(
        QueryTensor=tensor(type_name, (batch, sequence, heads * head)),
        KeyTensor=tensor(type_name, (batch, kv_sequence, kv_heads * head)),
        ValueTensor=tensor(type_name, (batch, kv_sequence, kv_heads * value_head)),
        PastKeyTensor=tensor(type_name, (batch, kv_heads, past, head)) if past else None,
        PastValueTensor=tensor(type_name, (batch, kv_heads, past, value_head)) if past else None,
        OutputTensor=tensor(type_name, (batch, sequence, heads * value_head)),
        OutputPresentKeyTensor=tensor(type_name, (batch, kv_heads, total, head)) if present else None,
        OutputPresentValueTensor=tensor(type_name, (batch, kv_heads, total, value_head)) if present else None,
        Scale=0.5, MaskFilterValue=-10000.0, QueryHeadCount=heads, KeyValueHeadCount=kv_heads, MaskType=0)
    fields.update(extra)
    return DML_MULTIHEAD_ATTENTION1_OPERATOR_DESC(**fields)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["FLOAT32", "FLOAT16"]), st.integers(1, 2), st.integers(1, 3), st.sampled_from([1, 3, 9]),
       st.sampled_from([(1, 1), (2, 1), (4, 2), (3, 3), (6, 2)]), st.integers(1, 4), st.integers(1, 3),
       st.sampled_from([0, 0, 2]), st.booleans(), st.sampled_from(["NONE", "KEY_SEQUENCE_LENGTH", "BOOLEAN4"]),
       st.sampled_from(PRESETS + (WARP,)), st.integers(0, 2 ** 32 - 1))
def test_grouped_query_attention_is_bit_exact(type_name, b, s, kv, head_counts, d, dv, past, present, mask_kind,
                                              preset, seed):
    rng = np.random.default_rng(seed)
    h, hkv = head_counts
    total = past + kv
    q, k, v = (values(rng, type_name, shape, special=True) for shape in ((b, s, h * d), (b, kv, hkv * d),
                                                                         (b, kv, hkv * dv)))
    pk = values(rng, type_name, (b, hkv, past, d)) if past else None
    pv = values(rng, type_name, (b, hkv, past, dv)) if past else None
    mask = None
    if mask_kind == "KEY_SEQUENCE_LENGTH":
        mask = rng.integers(0, total + 1, size=b).astype(np.int32)
    elif mask_kind == "BOOLEAN4":
        mask = (rng.random((b, h, s, total)) < 0.7).astype(np.int32)
    extra = {} if mask is None else dict(MaskTensor=tensor("INT32", mask.shape), MaskType=MASKS[mask_kind])
    desc = attention1_desc(type_name, b, s, kv, h, hkv, d, dv, past, present, **extra)
    inputs = [q, k, v, None, None, None, None, mask, None, pk, pv, None]
    got = run_operator(desc, inputs, adapter=preset)
    want = golden.attention.multihead_attention1(
        *inputs, Scale=np.float32(0.5), MaskFilterValue=np.float32(-1e4), QueryHeadCount=h, KeyValueHeadCount=hkv,
        MaskType=0 if mask is None else MASKS[mask_kind], present=True)
    for g, w in zip(got, want if present else want[:1]):
        same_bits(g, w)


def test_one_key_value_head_per_query_head_is_multihead_attention():
    rng = np.random.default_rng(41)
    q, k, v = (values(rng, "FLOAT32", shape) for shape in ((2, 3, 6), (2, 5, 6), (2, 5, 4)))
    (got,) = run_operator(attention1_desc("FLOAT32", 2, 3, 5, 2, 2, 3, 2), [q, k, v] + [None] * 9)
    same_bits(got, expected(q, k, v, None, None, 2))
    # two query heads on one key / value head: each reads the same keys and values
    k1, v1 = k[:, :, :3], v[:, :, :2]
    (grouped,) = run_operator(attention1_desc("FLOAT32", 2, 3, 5, 2, 1, 3, 2), [q, k1, v1] + [None] * 9)
    same_bits(grouped, expected(q, np.concatenate([k1, k1], 2), np.concatenate([v1, v1], 2), None, None, 2))


def create1(desc, level=DML_FEATURE_LEVEL_6_4):
    d3d12 = D3D12CreateDevice(CreateDXGIFactory1().EnumAdapters1(0), D3D_FEATURE_LEVEL_11_0)
    dml = DMLCreateDevice(d3d12, DML_CREATE_DEVICE_FLAG_NONE, max_feature_level=level)
    return dml, dml.CreateOperator(DML_OPERATOR_DESC(Type=DML_OPERATOR_MULTIHEAD_ATTENTION1, Desc=desc))


def refusal1(desc, level=DML_FEATURE_LEVEL_6_4):
    with pytest.raises(HResultError) as error:
        dml, op = create1(desc, level)
        dml.CompileOperator(op, DML_EXECUTION_FLAG_NONE)
    return error.value.hresult, error.value.message


def test_the_schema_row_of_multihead_attention1():
    schema = SCHEMAS_BY_NAME["MULTIHEAD_ATTENTION1"]
    assert schema.introduced_at == DML_FEATURE_LEVEL_6_3 and schema.type == 172
    (row,) = schema.support
    assert row.tensors["PastSequenceLengthsTensor"].data_types == ("INT32", "UINT32")
    assert [t.field for t in schema.tensors][11] == "PastSequenceLengthsTensor"
    assert [a.field for a in schema.attributes] == ["Scale", "MaskFilterValue", "QueryHeadCount", "KeyValueHeadCount",
                                                    "MaskType"]
    desc = attention1_desc("FLOAT32", 1, 2, 3, 4, 2, 2, 2)
    create1(desc, DML_FEATURE_LEVEL_6_3)
    assert refusal1(desc, DML_FEATURE_LEVEL_6_2) == (E_INVALIDARG, (
        "DML_OPERATOR_DESC.Type is DML_OPERATOR_MULTIHEAD_ATTENTION1, introduced in DML_FEATURE_LEVEL_6_3; this "
        "device supports up to DML_FEATURE_LEVEL_6_2."))


OP1 = "DML_OPERATOR_MULTIHEAD_ATTENTION1"


@pytest.mark.parametrize("change, hresult, sentence", [
    (dict(QueryHeadCount=3, QueryTensor=tensor("FLOAT32", (1, 2, 6)), OutputTensor=tensor("FLOAT32", (1, 2, 6))),
     E_INVALIDARG, f"QueryHeadCount is 3 and KeyValueHeadCount 2; {OP1} needs KeyValueHeadCount to divide "
                   "QueryHeadCount"),
    (dict(KeyTensor=tensor("FLOAT32", (1, 3, 8))), E_INVALIDARG,
     f"KeyTensor.Sizes is {{1,3,8}}; {OP1} needs {{1, keyValueSequenceLength, 4}} (the query's batchSize and "
     "headSize times KeyValueHeadCount)."),
    (dict(PastKeyTensor=tensor("FLOAT32", (1, 4, 2, 2)), PastValueTensor=tensor("FLOAT32", (1, 4, 2, 2))),
     E_INVALIDARG, f"PastKeyTensor.Sizes is {{1,4,2,2}}; {OP1} needs {{1, 2, pastSequenceLength, 2}}."),
    (dict(OutputPresentKeyTensor=tensor("FLOAT32", (1, 4, 3, 2))), E_INVALIDARG,
     "OutputPresentKeyTensor.Sizes is {1,4,3,2}; " + OP1 + " needs {1,2,3,2} (leading sizes of 1 allowed)."),
    (dict(PastSequenceLengthsTensor=tensor("INT32", (2,))), E_INVALIDARG,
     f"PastSequenceLengthsTensor.Sizes is {{2}}; {OP1} needs {{1}} (leading sizes of 1 allowed)."),
    (dict(QueryTensor=None, KeyTensor=None, ValueTensor=None,
          StackedQueryKeyValueTensor=tensor("FLOAT32", (1, 2, 4, 3, 2))), E_INVALIDARG,
     f"StackedQueryKeyValueTensor is given and KeyValueHeadCount 2 is not QueryHeadCount 4; {OP1} stacks"),
    (dict(PastSequenceLengthsTensor=tensor("INT32", (1, 1))), E_NOTIMPL,
     "dmlemu's kernel for MULTIHEAD_ATTENTION1 serves no PastSequenceLengthsTensor"),
    (dict(BiasTensor=tensor("FLOAT32", (16,))), E_NOTIMPL,
     "serves a BiasTensor only where KeyValueHeadCount is QueryHeadCount, not 2 key / value heads for 4 query heads"),
])
def test_multihead_attention1_refusals(change, hresult, sentence):
    got = refusal1(attention1_desc("FLOAT32", 1, 2, 3, 4, 2, 2, 2, **change))
    assert got[0] == hresult, got
    assert got[1].startswith(sentence) if hresult == E_INVALIDARG else sentence in got[1], got


@settings(max_examples=scaled(100), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_hostile_attention1_descs_are_refused_with_a_sentence_or_run(data):
    from operator_cases import garbage
    from dmlemu.kernels.attention_ops import TENSORS1
    base = attention1_desc("FLOAT32", 1, 2, 3, 4, 2, 2, 2, past=1, present=True)
    hostile = {"Scale": st.floats(allow_nan=True), "MaskFilterValue": st.floats(allow_nan=True),
               "QueryHeadCount": st.integers(-1, 9), "KeyValueHeadCount": st.integers(-1, 9),
               "MaskType": st.integers(-1, 6)}
    for name in data.draw(st.lists(st.sampled_from(TENSORS1 + tuple(hostile)), min_size=1, max_size=3, unique=True)):
        if name in hostile:
            value = data.draw(st.one_of(hostile[name], garbage))
        else:
            value = data.draw(st.one_of(st.none(), st.builds(
                tensor, st.sampled_from(["FLOAT32", "FLOAT16", "INT32", "UINT32"]),
                st.lists(st.integers(1, 7), min_size=1, max_size=6))))
        try:
            setattr(base, name, value)
        except (TypeError, ValueError, OverflowError):
            event("the desc struct refused a field")
            outcome(REFUSED)
            return
    try:
        dml, op = create1(base)
        dml.CompileOperator(op, DML_EXECUTION_FLAG_NONE)
        event("compiled")
        outcome(ACCEPTED)                   # bench/hostile_census.py: compiled (the drawn descs are not run)
    except HResultError as error:
        event({E_INVALIDARG: "E_INVALIDARG", E_NOTIMPL: "E_NOTIMPL"}.get(error.hresult, "other"))
        assert error.hresult in (E_INVALIDARG, E_NOTIMPL) and error.message.endswith("."), error.message
        outcome(REFUSED)


@pytest.mark.parametrize("type_name, bound", [("FLOAT32", 16), ("FLOAT16", 1)])   # measured: 6.3 and 0.50
def test_grouped_golden_is_within_a_few_ulps_of_float64(type_name, bound):
    # as test_golden_is_within_a_few_ulps_of_float64, with 4 query heads on 2 key / value heads
    rng = np.random.default_rng(17)
    worst = 0.0
    for kv in (1, 8, 64, 200):
        q, k, v = ((rng.standard_normal(shape)).astype(DTYPES[type_name]) for shape in
                   ((2, 3, 32), (2, kv, 16), (2, kv, 12)))
        got = golden.attention.multihead_attention1(q, k, v, Scale=np.float32(0.25), QueryHeadCount=4,
                                                    KeyValueHeadCount=2).astype(np.float64)
        widen = lambda x: np.repeat(x.reshape(2, kv, 2, -1), 2, axis=2).reshape(2, kv, -1)
        want = float64_reference(q, widen(k), widen(v), 4, 0.25)
        ulp = np.spacing(np.maximum(np.abs(want), 0.125).astype(DTYPES[type_name])).astype(np.float64)
        worst = max(worst, float(np.max(np.abs(got - want) / ulp)))
    assert worst <= bound, worst
