"""MAX_POOLING1 and MAX_POOLING2 (the optional OutputIndicesTensor) and MAX_UNPOOLING through the mirror, bit for bit
against the golden model (docs/NUMERICS.md, "Pooling": the first maximum in window order, NaN and signed zero, "no
element" for a window in the padding; unpooling's zero fill, out-of-range indices and duplicates).

Drawn descs (every data type the pages list, two and three spatial dimensions, windows, strides, dilations, start and
end padding, packed, padded and permuted layouts of the input, the output and the indices, NaN and signed zeros) run
on every adapter; the golden model is checked against a literal per-element loop written from the text; the kernel
alone runs on wave widths 8 to 64; the feature levels and validation sentences are pinned."""
import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from dmlemu import golden, run_operator
from dmlemu.d3d12 import *  # noqa: F401,F403
from dmlemu.directml import *  # noqa: F401,F403
from dmlemu.direct_run import DirectRun
from dmlemu.directml.validation import convolution_output_sizes
from dmlemu.errors import E_INVALIDARG, HResultError
from dmlemu.gpu import Gpu
from dmlemu.kernels.driver import TensorSpec
from dmlemu.presets import PRESETS, RX_7900_XTX, WARP
from tensor_layouts import layout_strides, same_bits, tensor

DTYPES = {"FLOAT32": np.float32, "FLOAT16": np.float16, "INT8": np.int8, "UINT8": np.uint8, "INT16": np.int16,
          "UINT16": np.uint16, "INT32": np.int32, "UINT32": np.uint32, "INT64": np.int64, "UINT64": np.uint64}
INDEX_DTYPES = {"UINT32": np.uint32, "UINT64": np.uint64}
NAN32 = 0x7FC00000


def fields_for(operator, spatial, window, strides=None, start=None, end=None, dilations=None):
    ones, zeros = [1] * spatial, [0] * spatial
    fields = dict(Strides=list(strides or ones), WindowSize=list(window), StartPadding=list(start or zeros),
                  EndPadding=list(end or zeros))
    if operator == "MAX_POOLING2":
        fields["Dilations"] = list(dilations or ones)
    return fields


def out_sizes(x_sizes, fields):
    return list(x_sizes[:2]) + list(convolution_output_sizes(
        x_sizes[2:], fields["WindowSize"], fields["Strides"], fields.get("Dilations", [1] * (len(x_sizes) - 2)),
        fields["StartPadding"], fields["EndPadding"]))


def pool_desc(operator, type_name, x_sizes, fields, index_type="UINT32", out=None, strides=(None, None, None)):
    out = out or out_sizes(x_sizes, fields)
    desc_type = globals()[f"DML_{operator}_OPERATOR_DESC"]
    return desc_type(InputTensor=tensor(type_name, x_sizes, strides[0]),
                     OutputTensor=tensor(type_name, out, strides[1]),
                     OutputIndicesTensor=None if index_type is None else tensor(index_type, out, strides[2]),
                     **fields)


def run(operator, x, fields, index_type="UINT32", adapter=None, strides=(None, None, None)):
    type_name = next(k for k, v in DTYPES.items() if v == x.dtype)
    return run_operator(pool_desc(operator, type_name, x.shape, fields, index_type, strides=strides), [x],
                        adapter=adapter)


def values(rng, type_name, shape, special=False, few=False):
    dtype = DTYPES[type_name]
    if dtype().dtype.kind == "f":
        x = (rng.standard_normal(shape) * rng.choice([1e-2, 1.0, 30.0])).astype(dtype)
        if few:                        # few distinct values: ties
            x = rng.integers(-2, 3, shape).astype(dtype)
        if special and x.size:
            picks = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0], dtype=dtype)
            mask = rng.random(shape) < 0.1
            x[mask] = rng.choice(picks, size=int(mask.sum()))
        return x
    info = np.iinfo(dtype)
    if few:
        return rng.choice(np.array([info.min, 0, 1, info.max], dtype=dtype), size=shape)
    return rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)


# ---- drawn descs through the mirror ------------------------------------------------------------------------------
@st.composite
def cases(draw):
    operator = draw(st.sampled_from(["MAX_POOLING1", "MAX_POOLING2"]))
    spatial = draw(st.integers(2, 3))
    window = [draw(st.integers(1, 3)) for _ in range(spatial)]
    dilations = [draw(st.integers(1, 2)) for _ in range(spatial)] if operator == "MAX_POOLING2" else None
    start = [draw(st.integers(0, 2)) for _ in range(spatial)]
    end = [draw(st.integers(0, 2)) for _ in range(spatial)]
    extent = [(w - 1) * (dilations[d] if dilations else 1) + 1 for d, w in enumerate(window)]
    in_sizes = [max(draw(st.integers(1, 5 if spatial == 2 else 3)), e - s - t) for e, s, t in zip(extent, start, end)]
    fields = fields_for(operator, spatial, window, [draw(st.integers(1, 2)) for _ in range(spatial)], start, end,
                        dilations)
    types = list(DTYPES) if operator == "MAX_POOLING1" else ["FLOAT32", "FLOAT16", "INT8", "UINT8"]
    indices = (["UINT32", "UINT64", None] if operator == "MAX_POOLING1" else ["UINT32", None])
    return dict(operator=operator, type_name=draw(st.sampled_from(types)), index_type=draw(st.sampled_from(indices)),
                x_sizes=[draw(st.integers(1, 2)), draw(st.integers(1, 3))] + in_sizes, fields=fields,
                layouts=[draw(st.sampled_from(["packed", "padded", "permuted"])) for _ in range(3)],
                special=draw(st.booleans()), few=draw(st.booleans()), seed=draw(st.integers(0, 2 ** 32 - 1)))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases(), st.sampled_from(PRESETS + (WARP,)))
def test_drawn_max_poolings_with_indices_are_bit_exact_on_every_adapter(case, preset):
    rng = np.random.default_rng(case["seed"])
    newer = case["type_name"] not in ("FLOAT32", "FLOAT16", "INT8", "UINT8") or case["index_type"] == "UINT64"
    if newer and (not preset.supports_64bit or preset.max_feature_level < DML_FEATURE_LEVEL_5_0):
        preset = RX_7900_XTX            # the DML_FEATURE_LEVEL_5_0 types on an adapter that has them
    x = values(rng, case["type_name"], case["x_sizes"], case["special"], case["few"])
    out = out_sizes(case["x_sizes"], case["fields"])
    strides = tuple(layout_strides(s, layout, rng)[0] for s, layout in
                    zip((case["x_sizes"], out, out), case["layouts"]))
    got = run(case["operator"], x, case["fields"], case["index_type"], preset, strides)
    want_values, want_indices = golden.run(case["operator"], [x], case["fields"])
    same_bits(got[0], want_values)
    if case["index_type"] is None:
        assert len(got) == 1
    else:
        same_bits(got[1], want_indices.astype(INDEX_DTYPES[case["index_type"]]))
        if not np.issubdtype(x.dtype, np.floating):  # each index names an input element holding the maximum
            inside = want_indices != np.uint64(2 ** 64 - 1)
            assert (x.reshape(-1)[want_indices[inside].astype(np.int64)] == want_values[inside]).all()


# ---- the same kernel on every wave width ---------------------------------------------------------------------------
def test_every_wave_width_gives_the_same_bits():
    rng = np.random.default_rng(4)
    x = values(rng, "FLOAT16", (2, 3, 7, 6), special=True, few=True)
    fields = fields_for("MAX_POOLING2", 2, [3, 2], [2, 1], [1, 0], [2, 1], [1, 2])
    out = np.zeros(out_sizes(x.shape, fields), x.dtype)
    idx = np.zeros(out.shape, np.uint32)
    want_values, want_indices = golden.run("MAX_POOLING2", [x], fields)
    raw = lambda a: a.view(np.uint8).reshape(-1)
    for width in (8, 16, 32, 64):
        gpu = Gpu(RX_7900_XTX, wave_width=width, timing=False)
        specs = [TensorSpec(t, a.shape, None, a.nbytes) for t, a in (("FLOAT16", x), ("FLOAT16", out),
                                                                      ("UINT32", idx))]
        direct = DirectRun(gpu, "MAX_POOLING2", specs, [raw(x), raw(out), raw(idx)], attributes=fields)
        direct.dispatch()
        same_bits(direct.output_bytes(1)[:out.nbytes].view(out.dtype).reshape(out.shape), want_values)
        same_bits(direct.output_bytes(2)[:idx.nbytes].view(np.uint32).reshape(out.shape),
                  want_indices.astype(np.uint32))


# ---- the golden model's rule, from the text -------------------------------------------------------------------------
def literal(x, fields):
    """Each element on its own: taps in window order, padded ones skipped; the first tap inside the input, then
    every tap whose maxNum changes the running maximum's bits, is taken."""
    spatial = x.ndim - 2
    dil = fields.get("Dilations", [1] * spatial)
    shape = out_sizes(x.shape, fields)
    out, index = np.zeros(shape, x.dtype), np.full(shape, 2 ** 64 - 1, np.uint64)
    for o in np.ndindex(*shape):
        acc, best = None, None
        for tap in itertools.product(*[range(s) for s in fields["WindowSize"]]):
            i = [o[2 + d] * fields["Strides"][d] - fields["StartPadding"][d] + tap[d] * dil[d] for d in range(spatial)]
            if not all(0 <= i[d] < x.shape[2 + d] for d in range(spatial)):
                continue
            v = x[o[:2] + tuple(i)]
            flat = np.ravel_multi_index(o[:2] + tuple(i), x.shape)
            if acc is None:
                acc, best = v, flat
            elif np.isnan(acc) and not np.isnan(v):
                acc, best = v, flat
            elif v > acc or (v == 0 and acc == 0 and np.signbit(acc) and not np.signbit(v)):
                acc, best = v, flat
        out[o] = np.nan if acc is None else acc
        index[o] = 2 ** 64 - 1 if best is None else best
    out[np.isnan(out)] = np.float32(np.nan)
    return out, index


@settings(max_examples=15, deadline=None)
@given(st.sampled_from(["MAX_POOLING1", "MAX_POOLING2"]), st.integers(0, 2 ** 32 - 1))
def test_the_golden_indices_are_the_literal_loop(operator, seed):
    rng = np.random.default_rng(seed)
    x = values(rng, "FLOAT32", (2, 2, int(rng.integers(3, 7)), int(rng.integers(3, 7))), special=True,
               few=bool(rng.integers(0, 2)))
    fields = fields_for(operator, 2, list(rng.integers(1, 4, 2)), list(rng.integers(1, 3, 2)),
                        list(rng.integers(0, 3, 2)), list(rng.integers(0, 2, 2)), list(rng.integers(1, 3, 2)))
    want_values, want_indices = literal(x, fields)
    got_values, got_indices = golden.run(operator, [x], fields)
    same_bits(got_values, want_values)
    same_bits(got_indices, want_indices)


# ---- the page's example, ties, NaN, signed zero, the padding -----------------------------------------------------
def test_the_pages_example():
    x = np.array([[[[3, 5, 7, 1], [9, 4, 2, 8]]]], np.float32)
    got = run("MAX_POOLING1", x, fields_for("MAX_POOLING1", 2, [1, 3]))
    assert got[0].ravel().tolist() == [7, 7, 9, 8] and got[1].ravel().tolist() == [2, 2, 4, 7]


def test_ties_take_the_first_nan_is_skipped_and_positive_zero_wins():
    x = np.array([5, 5, np.nan, 2, np.nan, np.nan, -0.0, 0.0, 0.0, -0.0], np.float32).reshape(1, 1, 5, 2)
    values_, indices = run("MAX_POOLING1", x, fields_for("MAX_POOLING1", 2, [1, 2]), "UINT64")
    assert values_.view(np.uint32).ravel().tolist() == [0x40A00000, 0x40000000, NAN32, 0, 0]
    assert indices.ravel().tolist() == [0, 3, 4, 7, 8]     # first 5; 2 not the NaN; the first NaN; +0, +0


def test_a_window_in_the_padding_has_no_element_and_indices_count_batch_and_channel():
    x = np.arange(2 * 3 * 2 * 2, dtype=np.int32).reshape(2, 3, 2, 2)
    for index_type, none in (("UINT32", 2 ** 32 - 1), ("UINT64", 2 ** 64 - 1)):
        values_, indices = run("MAX_POOLING1", x, fields_for("MAX_POOLING1", 2, [1, 1], [2, 2], [1, 0], [0, 0]),
                               index_type)
        assert values_.shape == (2, 3, 2, 1) and (values_[:, :, 0] == np.iinfo(np.int32).min).all()
        assert (indices[:, :, 0] == none).all()
        assert indices[:, :, 1, 0].ravel().tolist() == [4 * p + 2 for p in range(6)]     # (n C + c) H W + 1 W + 0


def test_a_5d_input_and_dilations():
    x = np.random.default_rng(2).permutation(2 * 4 * 4 * 5).astype(np.float32).reshape(1, 2, 4, 4, 5)
    fields = fields_for("MAX_POOLING2", 3, [2, 2, 2], [1, 2, 2], [0, 1, 0], [1, 0, 1], [2, 1, 2])
    values_, indices = run("MAX_POOLING2", x, fields)
    want_values, want_indices = golden.run("MAX_POOLING2", [x], fields)
    same_bits(values_, want_values)
    same_bits(indices, want_indices.astype(np.uint32))
    assert (x.reshape(-1)[indices.astype(np.int64)] == values_).all()


# ---- validation ------------------------------------------------------------------------------------------------
def refusal(operator, desc, level=None):
    dml = DMLCreateDevice(D3D12CreateDevice(None, D3D_FEATURE_LEVEL_11_0), DML_CREATE_DEVICE_FLAG_NONE,
                          **({} if level is None else {"max_feature_level": level}))
    try:
        dml.CreateOperator(DML_OPERATOR_DESC(Type=getattr(DML_OPERATOR_TYPE, "DML_OPERATOR_" + operator), Desc=desc))
    except HResultError as error:
        return error.hresult, error.message
    return "validated"


def test_feature_levels_types_and_shapes():
    fields = fields_for("MAX_POOLING1", 2, [2, 2])
    ok = pool_desc("MAX_POOLING1", "FLOAT32", [1, 2, 4, 4], fields)
    assert refusal("MAX_POOLING1", ok, DML_FEATURE_LEVEL_2_0) == "validated"
    assert refusal("MAX_POOLING1", ok, DML_FEATURE_LEVEL_1_0)[0] == E_INVALIDARG
    wide = pool_desc("MAX_POOLING1", "FLOAT32", [1, 2, 4, 4], fields, "UINT64")
    assert refusal("MAX_POOLING1", wide, DML_FEATURE_LEVEL_4_1) == (
        E_INVALIDARG, "OutputIndicesTensor.DataType is DML_TENSOR_DATA_TYPE_UINT64; DML_FEATURE_LEVEL_4_1 allows "
                      "UINT32 for OutputIndicesTensor of DML_OPERATOR_MAX_POOLING1.")
    assert refusal("MAX_POOLING1", wide, DML_FEATURE_LEVEL_5_0) == "validated"
    int64 = pool_desc("MAX_POOLING1", "INT64", [1, 2, 4, 4], fields)
    assert refusal("MAX_POOLING1", int64, DML_FEATURE_LEVEL_5_0) == "validated"
    assert refusal("MAX_POOLING1", int64, DML_FEATURE_LEVEL_4_1)[0] == E_INVALIDARG
    fields2 = fields_for("MAX_POOLING2", 2, [2, 2], dilations=[2, 1])
    assert refusal("MAX_POOLING2", pool_desc("MAX_POOLING2", "INT64", [1, 2, 4, 4], fields2))[0] == E_INVALIDARG
    assert refusal("MAX_POOLING2", pool_desc("MAX_POOLING2", "UINT8", [1, 2, 4, 4], fields2, None),
                   DML_FEATURE_LEVEL_3_0) == "validated"
    assert refusal("MAX_POOLING2", pool_desc("MAX_POOLING2", "FLOAT16", [1, 2, 4, 4], fields2),
                   DML_FEATURE_LEVEL_2_0)[0] == E_INVALIDARG
    bad = pool_desc("MAX_POOLING1", "FLOAT32", [1, 2, 4, 4], fields)
    bad.OutputIndicesTensor = tensor("UINT32", [1, 2, 3, 2])
    assert refusal("MAX_POOLING1", bad) == (
        E_INVALIDARG, "OutputIndicesTensor.Sizes is {1,2,3,2} but OutputTensor.Sizes is {1,2,3,3}; "
                      "DML_OPERATOR_MAX_POOLING1 requires the same Sizes.")
    bad = pool_desc("MAX_POOLING1", "FLOAT32", [1, 2, 4, 4], fields)
    bad.OutputIndicesTensor = tensor("INT32", [1, 2, 3, 3])
    assert refusal("MAX_POOLING1", bad)[0] == E_INVALIDARG
    bad = pool_desc("MAX_POOLING2", "FLOAT32", [1, 2, 4, 4], fields2)
    bad.Dilations = [0, 1]
    assert refusal("MAX_POOLING2", bad) == (E_INVALIDARG, "Dilations[0] is 0; it must be an integer from 1 to "
                                                          "4294967295.")


# ---- MAX_UNPOOLING -----------------------------------------------------------------------------------------------
def unpool_desc(type_name, index_type, x_sizes, out, strides=(None, None, None)):
    return DML_MAX_UNPOOLING_OPERATOR_DESC(InputTensor=tensor(type_name, x_sizes, strides[0]),
                                           IndicesTensor=tensor(index_type, x_sizes, strides[1]),
                                           OutputTensor=tensor(type_name, out, strides[2]))


@st.composite
def unpool_cases(draw):
    x_sizes = [draw(st.integers(1, 2)), draw(st.integers(1, 3)), draw(st.integers(1, 5)), draw(st.integers(1, 9))]
    out = [draw(st.integers(1, 2)), draw(st.integers(1, 3)), draw(st.integers(1, 5)), draw(st.integers(1, 5))]
    return dict(x_sizes=x_sizes, out=out, type_name=draw(st.sampled_from(list(DTYPES))),
                index_type=draw(st.sampled_from(list(INDEX_DTYPES))),
                layouts=[draw(st.sampled_from(["packed", "padded", "permuted"])) for _ in range(3)],
                seed=draw(st.integers(0, 2 ** 32 - 1)))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(unpool_cases(), st.sampled_from(PRESETS + (WARP,)))
def test_drawn_unpoolings_are_bit_exact_on_every_adapter(case, preset):
    """Indices drawn over the output and past it, with repeats (the last input element in row-major order wins)."""
    rng = np.random.default_rng(case["seed"])
    newer = case["type_name"] not in ("FLOAT32", "FLOAT16") or case["index_type"] == "UINT64"
    if newer and (not preset.supports_64bit or preset.max_feature_level < DML_FEATURE_LEVEL_5_0):
        preset = RX_7900_XTX
    x = values(rng, case["type_name"], case["x_sizes"], special=True)
    count = int(np.prod(case["out"]))
    limit = 2 ** 64 - 1 if case["index_type"] == "UINT64" else 2 ** 32 - 1
    indices = rng.integers(0, count + 3, case["x_sizes"]).astype(INDEX_DTYPES[case["index_type"]])
    indices.reshape(-1)[rng.random(indices.size) < 0.1] = limit        # past the output: no write
    if case["index_type"] == "UINT64":
        indices.reshape(-1)[rng.random(indices.size) < 0.1] += np.uint64(2 ** 32)   # a high dword: no write
    strides = tuple(layout_strides(s, layout, rng)[0] for s, layout in
                    zip((case["x_sizes"], case["x_sizes"], case["out"]), case["layouts"]))
    (got,) = run_operator(unpool_desc(case["type_name"], case["index_type"], case["x_sizes"], case["out"], strides),
                          [x, indices], adapter=preset)
    same_bits(got, golden.run("MAX_UNPOOLING", [x, indices], {}, output_sizes=tuple(case["out"])))


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2 ** 32 - 1))
def test_the_golden_unpooling_is_the_literal_loop(seed):
    """Zeros, then each input element in row-major order written at its index where the index is inside."""
    rng = np.random.default_rng(seed)
    x = values(rng, "FLOAT16", (1, 2, int(rng.integers(1, 5)), int(rng.integers(1, 5))), special=True)
    out = (1, 2, int(rng.integers(1, 6)), int(rng.integers(1, 6)))
    indices = rng.integers(0, int(np.prod(out)) + 4, x.shape).astype(np.uint64)
    want = np.zeros(out, np.float16)
    for e in np.ndindex(*x.shape):
        if indices[e] < want.size:
            want.reshape(-1)[int(indices[e])] = x[e]
    same_bits(golden.run("MAX_UNPOOLING", [x, indices], {}, output_sizes=out), want)


def test_unpooling_fills_zeros_skips_indices_past_the_output_and_keeps_the_last_duplicate():
    x = np.array([-0.0, np.nan, 3.0, 4.0, 5.0, 6.0], np.float32).reshape(1, 1, 2, 3)
    indices = np.array([0, 1, 2, 2, 9, 4], np.uint32).reshape(1, 1, 2, 3)
    (got,) = run_operator(unpool_desc("FLOAT32", "UINT32", x.shape, [1, 1, 2, 3]), [x, indices])
    assert got.view(np.uint32).ravel().tolist() == [0x80000000, NAN32, 0x40800000, 0, 0x40C00000, 0]


def test_max_pooling_then_unpooling_puts_each_maximum_back():
    x = np.random.default_rng(5).permutation(2 * 3 * 6 * 6).astype(np.float16).reshape(2, 3, 6, 6)
    fields = fields_for("MAX_POOLING1", 2, [2, 2], [2, 2])
    values_, indices = run("MAX_POOLING1", x, fields)
    (back,) = run_operator(unpool_desc("FLOAT16", "UINT32", values_.shape, list(x.shape)), [values_, indices])
    assert np.array_equal(back, np.where(back != 0, x, 0)) and np.count_nonzero(back) == values_.size


def test_unpooling_validation():
    ok = unpool_desc("FLOAT32", "UINT32", [1, 1, 2, 2], [1, 1, 4, 4])
    assert refusal("MAX_UNPOOLING", ok, DML_FEATURE_LEVEL_2_0) == "validated"
    assert refusal("MAX_UNPOOLING", unpool_desc("INT32", "UINT32", [1, 1, 2, 2], [1, 1, 4, 4]),
                   DML_FEATURE_LEVEL_4_1)[0] == E_INVALIDARG
    assert refusal("MAX_UNPOOLING", unpool_desc("FLOAT32", "UINT64", [1, 1, 2, 2], [1, 1, 4, 4]),
                   DML_FEATURE_LEVEL_5_0) == "validated"
    bad = unpool_desc("FLOAT32", "UINT32", [1, 1, 2, 2], [1, 1, 4, 4])
    bad.IndicesTensor = tensor("UINT32", [1, 1, 2, 3])
    assert refusal("MAX_UNPOOLING", bad) == (
        E_INVALIDARG, "IndicesTensor.Sizes is {1,1,2,3} but InputTensor.Sizes is {1,1,2,2}; DML_OPERATOR_MAX_UNPOOLING "
                      "requires the same Sizes.")
    bad = unpool_desc("FLOAT32", "UINT32", [1, 1, 2, 2], [1, 4, 4])
    assert refusal("MAX_UNPOOLING", bad) == (
        E_INVALIDARG, "OutputTensor.Sizes has 3 dimensions; DML_FEATURE_LEVEL_6_4 allows 4 for "
                      "DML_OPERATOR_MAX_UNPOOLING.")
    bad = unpool_desc("FLOAT32", "UINT32", [1, 1, 2, 2], [1, 1, 4, 4])
    bad.OutputTensor = tensor("FLOAT16", [1, 1, 4, 4])
    assert refusal("MAX_UNPOOLING", bad) == (
        E_INVALIDARG, "OutputTensor.DataType is DML_TENSOR_DATA_TYPE_FLOAT16 but InputTensor.DataType is "
                      "DML_TENSOR_DATA_TYPE_FLOAT32; DML_OPERATOR_MAX_UNPOOLING requires the same DataType.")


def test_unpooling_chunks_keep_the_row_major_order_on_every_wave_width():
    """200 input elements (four chunks of 64) into 30 outputs: most targets repeat within and across chunks."""
    rng = np.random.default_rng(8)
    x = values(rng, "FLOAT16", (2, 4, 5, 5), special=True)
    indices = rng.integers(0, 34, x.shape).astype(np.uint32)        # 30 outputs: a few past the end
    out = np.zeros((1, 2, 3, 5), np.float16)
    want = golden.run("MAX_UNPOOLING", [x, indices], {}, output_sizes=out.shape)
    raw = lambda a: a.view(np.uint8).reshape(-1)
    for width in (8, 16, 32, 64):
        gpu = Gpu(RX_7900_XTX, wave_width=width, timing=False)
        specs = [TensorSpec(t, a.shape, None, a.nbytes) for t, a in (("FLOAT16", x), ("UINT32", indices),
                                                                      ("FLOAT16", out))]
        direct = DirectRun(gpu, "MAX_UNPOOLING", specs, [raw(x), raw(indices), raw(out)], attributes={})
        direct.dispatch()
        same_bits(direct.output_bytes(2)[:out.nbytes].view(np.float16).reshape(out.shape), want)


def test_unpooling_targets_that_share_a_hash_slot_fall_back_to_the_scan():
    """Targets 1024 apart share one of unpooling.s's 1024 LDS hash slots: those chunks take the full scan."""
    rng = np.random.default_rng(9)
    x = (rng.permutation(3 * 64) + 1).astype(np.float32).reshape(1, 3, 8, 8)
    base = rng.integers(0, 6, x.shape)
    indices = (base + 1024 * rng.integers(0, 3, x.shape)).astype(np.uint64)     # 18 targets, many repeats
    out = [1, 2, 40, 64]
    want = golden.run("MAX_UNPOOLING", [x, indices], {}, output_sizes=tuple(out))
    (got,) = run_operator(unpool_desc("FLOAT32", "UINT64", x.shape, out), [x, indices], adapter=RX_7900_XTX)
    same_bits(got, want)
    assert np.count_nonzero(want) == len(np.unique(indices))
