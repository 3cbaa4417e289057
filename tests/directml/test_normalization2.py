"""DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION2 (DML_FEATURE_LEVEL_6_3) through the mirror, bit for bit against the
golden model (docs/NUMERICS.md, "Normalization"): drawn descs (FLOAT32 and FLOAT16, ranks 1 to 5, any axes, UseMean
and UseVariance, Scale and Bias broadcast or absent, layouts, special values) on every adapter; UseMean TRUE is MVN1
bit for bit, UseMean FALSE with UseVariance is RMS normalization (x / sqrt(mean(x * x) + Epsilon)), checked against
a literal loop and float64; the schema row and the level it starts at are pinned."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from dmlemu import golden, run_operator
from dmlemu.d3d12 import *  # noqa: F401,F403
from dmlemu.directml import *  # noqa: F401,F403
from dmlemu.directml.operators import SCHEMAS_BY_NAME
from dmlemu.errors import E_INVALIDARG, HResultError
from dmlemu.presets import PRESETS, WARP
from operator_cases import ACCEPTED, REFUSED, outcome, scaled
from tensor_layouts import layout_strides, same_bits, tensor
from test_normalization import broadcast_values, cases, expected as mvn1_expected, fused, values


def mvn2_desc(type_name, sizes, axes, scale_sizes=None, bias_sizes=None, use_mean=1, use_variance=1, epsilon=1e-5,
              strides=(None, None, None, None), activation=None):
    return DML_MEAN_VARIANCE_NORMALIZATION2_OPERATOR_DESC(
        InputTensor=tensor(type_name, sizes, strides[0]),
        ScaleTensor=None if scale_sizes is None else tensor(type_name, scale_sizes, strides[1]),
        BiasTensor=None if bias_sizes is None else tensor(type_name, bias_sizes, strides[2]),
        OutputTensor=tensor(type_name, sizes, strides[3]), AxisCount=len(axes), Axes=list(axes), UseMean=use_mean,
        UseVariance=use_variance, Epsilon=epsilon, FusedActivation=activation)


def expected(x, scale, bias, axes, use_mean=1, use_variance=1, epsilon=1e-5, activation=None):
    return golden.run("MEAN_VARIANCE_NORMALIZATION2", [x, scale, bias],
                      {"Axes": tuple(axes), "UseMean": use_mean, "UseVariance": use_variance,
                       "Epsilon": np.float32(epsilon), "FusedActivation": activation})


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases(), st.integers(0, 1), st.sampled_from(PRESETS + (WARP,)))
def test_drawn_normalizations_are_bit_exact_on_every_adapter(case, use_mean, preset):
    rng = np.random.default_rng(case["seed"])
    t, sizes = case["type_name"], case["sizes"]
    arrays, strides = [], []
    for shape, layout in zip((sizes, case["scale_sizes"], case["bias_sizes"]), case["layouts"][:3]):
        if shape is None:
            arrays.append(None)
            strides.append(None)
            continue
        s, dims = layout_strides(shape, layout, rng)
        arrays.append(broadcast_values(values(rng, t, shape, case["special"]), dims))
        strides.append(s)
    out_layout = case["layouts"][3] if case["layouts"][3] != "broadcast" else "padded"
    strides.append(layout_strides(sizes, out_layout, rng)[0])
    use_variance = case["normalize_variance"]
    desc = mvn2_desc(t, sizes, case["axes"], case["scale_sizes"], case["bias_sizes"], use_mean, use_variance,
                     case["epsilon"], strides)
    (got,) = run_operator(desc, arrays, adapter=preset)
    want = expected(*arrays, case["axes"], use_mean, use_variance, case["epsilon"])
    same_bits(got, want)
    if use_mean:          # UseMean TRUE is MVN1 with NormalizeVariance = UseVariance
        same_bits(want, mvn1_expected(*arrays, case["axes"], use_variance, case["epsilon"]))


def literal_rms(row, epsilon):
    """UseMean FALSE, UseVariance TRUE on one row, written from docs/NUMERICS.md: the sum of x * x in the reductions'
    order (64 virtual threads for rows up to 64 ... as `lanes_for`), / N, + Epsilon, sqrt, x / den (FLOAT32)."""
    from dmlemu.kernels.reduce_ops import lanes_for
    f = np.float32
    lanes = lanes_for(len(row))
    partial = [f(-0.0)] * lanes
    for k, x in enumerate(row):
        partial[k % lanes] = f(partial[k % lanes] + f(x * x))
    while len(partial) > 1:                      # the fixed tree: thread t adds t + half
        half = len(partial) // 2
        partial = [f(partial[t] + partial[t + half]) for t in range(half)]
    den = np.sqrt(f(f(partial[0] / f(len(row))) + f(epsilon)))
    return np.array([f(x / den) for x in row], f)


@pytest.mark.parametrize("count", [1, 7, 64, 200])
def test_rms_normalization_is_the_literal_loop_and_close_to_float64(count):
    rng = np.random.default_rng(count)
    x = (rng.standard_normal((3, count)) * 3).astype(np.float32)
    (got,) = run_operator(mvn2_desc("FLOAT32", x.shape, [1], use_mean=0), [x, None, None])
    want = expected(x, None, None, [1], use_mean=0)
    same_bits(got, want)
    for r in range(3):
        same_bits(want[r], literal_rms(x[r], 1e-5))
    ref = x.astype(np.float64) / np.sqrt((x.astype(np.float64) ** 2).mean(axis=1, keepdims=True) + 1e-5)
    ulps = np.abs(got - ref) / np.spacing(np.abs(ref).astype(np.float32)).astype(np.float64)
    assert ulps.max() <= 4, ulps.max()        # measured: 2.1 (FLOAT32, N up to 4096; FLOAT16 0.50)


def test_without_mean_and_variance_only_scale_and_bias_remain():
    rng = np.random.default_rng(3)
    x = values(rng, "FLOAT16", (4, 9), special=True)
    scale, bias = values(rng, "FLOAT16", (1, 9)), values(rng, "FLOAT16", (4, 1))
    (got,) = run_operator(mvn2_desc("FLOAT16", x.shape, [1], scale.shape, bias.shape, 0, 0), [x, scale, bias])
    same_bits(got, expected(x, scale, bias, [1], 0, 0))
    with np.errstate(all="ignore"):
        simple = (x.astype(np.float32) * scale.astype(np.float32)).astype(np.float32) + bias.astype(np.float32)
    np.testing.assert_array_equal(got[~np.isnan(got)], simple.astype(np.float16)[~np.isnan(got)])


def test_a_fused_activation_follows_rms_normalization():
    rng = np.random.default_rng(8)
    x = values(rng, "FLOAT32", (5, 70), special=True)
    scale = values(rng, "FLOAT32", (1, 70))
    activation = fused("ACTIVATION_GELU")
    (got,) = run_operator(mvn2_desc("FLOAT32", x.shape, [1], scale.shape, use_mean=0, activation=activation),
                          [x, scale, None])
    same_bits(got, expected(x, scale, None, [1], 0, 1, activation=("ACTIVATION_GELU", {})))


def test_the_schema_row_and_its_level():
    schema = SCHEMAS_BY_NAME["MEAN_VARIANCE_NORMALIZATION2"]
    assert schema.type == 171 and schema.introduced_at == DML_FEATURE_LEVEL_6_3
    assert [a.field for a in schema.attributes] == ["Axes", "UseMean", "UseVariance", "Epsilon", "FusedActivation"]
    (row,) = schema.support
    assert (row.tensors["InputTensor"].min_dims, row.tensors["InputTensor"].max_dims) == (1, 8)
    desc = mvn2_desc("FLOAT32", (2, 3), [1])
    dml = DMLCreateDevice(D3D12CreateDevice(None, D3D_FEATURE_LEVEL_11_0), DML_CREATE_DEVICE_FLAG_NONE,
                          max_feature_level=DML_FEATURE_LEVEL_6_2)
    with pytest.raises(HResultError) as error:
        dml.CreateOperator(DML_OPERATOR_DESC(Type=DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION2, Desc=desc))
    assert error.value.hresult == E_INVALIDARG
    assert "introduced in DML_FEATURE_LEVEL_6_3" in error.value.message
    with pytest.raises(HResultError) as error:     # an axis past the input's dimensions
        run_operator(mvn2_desc("FLOAT32", (2, 3), [2]), [np.zeros((2, 3), np.float32), None, None])
    assert error.value.hresult == E_INVALIDARG and "Axes" in error.value.message


# ---- hostile descs: a sentence, or a run bit for bit the golden model's (issue 30) -------------------------------
@settings(max_examples=scaled(40), deadline=None, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_hostile_descs_are_refused_with_a_sentence_or_run_bit_exact(data):
    """A valid MEAN_VARIANCE_NORMALIZATION2 desc with one to three fields made hostile (Axes and AxisCount out of
    range, repeated or of a wrong length, UseMean / UseVariance past BOOL, Epsilon NaN, negative or infinite, tensors
    of other types and shapes, garbage of every kind): run_operator refuses it with the mirror's HResultError
    (E_INVALIDARG or E_NOTIMPL, a sentence) or the desc struct refuses the field, or it runs bit for bit as the
    golden model. bench/hostile_census.py entry "MEAN_VARIANCE_NORMALIZATION2"."""
    from operator_cases import garbage
    desc = mvn2_desc("FLOAT32", [2, 3, 4], [2], [1, 1, 4], [1, 1, 4])
    hostile = {"Axes": st.lists(st.integers(-2, 6), max_size=4), "AxisCount": st.integers(-1, 6),
               "UseMean": st.integers(-1, 3), "UseVariance": st.integers(-1, 3),
               "Epsilon": st.floats(allow_nan=True, allow_infinity=True, width=32),
               "InputTensor": st.builds(tensor, st.sampled_from(["FLOAT32", "FLOAT16", "INT32"]),
                                        st.lists(st.integers(1, 5), min_size=1, max_size=6)),
               "ScaleTensor": st.one_of(st.none(), st.builds(tensor, st.sampled_from(["FLOAT32", "FLOAT16"]),
                                                              st.lists(st.integers(1, 4), min_size=1, max_size=4))),
               "OutputTensor": st.builds(tensor, st.sampled_from(["FLOAT32", "FLOAT16"]),
                                         st.lists(st.integers(1, 5), min_size=1, max_size=6))}
    for name in data.draw(st.lists(st.sampled_from(sorted(hostile)), min_size=1, max_size=3, unique=True)):
        value = data.draw(st.one_of(hostile[name], garbage) if data.draw(st.integers(0, 3)) == 0 else hostile[name])
        try:
            setattr(desc, name, value)
        except (TypeError, ValueError, OverflowError):
            outcome(REFUSED)            # the desc struct refuses the field before the mirror sees it
            return
    rng = np.random.default_rng(data.draw(st.integers(0, 2 ** 32 - 1)))
    arrays = []
    for field in ("InputTensor", "ScaleTensor", "BiasTensor"):
        t = getattr(desc, field)
        shaped = isinstance(t, DML_TENSOR_DESC) and isinstance(t.Desc, DML_BUFFER_TENSOR_DESC)
        if not shaped:
            arrays.append(None)
            continue
        try:
            sizes = [int(s) for s in t.Desc.Sizes]
            dtype = golden.DATA_TYPES[DML_TENSOR_DATA_TYPE(t.Desc.DataType).name.replace("DML_TENSOR_DATA_TYPE_", "")]
        except (TypeError, ValueError, KeyError):
            arrays.append(np.zeros(1, np.float32))
            continue
        arrays.append(rng.standard_normal(sizes).astype(dtype) if 0 < np.prod(sizes) <= 4096 else
                      np.zeros(1, np.float32))
    try:
        (got,) = run_operator(desc, arrays, adapter=WARP)
    except HResultError as error:
        assert error.hresult in (E_INVALIDARG, E_NOTIMPL) and error.message.strip(), error
        assert "\n" not in error.message.strip(), error.message
        outcome(REFUSED)
        return
    except (TypeError, ValueError) as error:         # run_operator's own arguments (an array of the wrong shape)
        assert str(error).strip() and "\n" not in str(error).strip(), error
        outcome(REFUSED)
        return
    axes = [int(a) for a in desc.Axes]
    same_bits(got, expected(*arrays, axes, int(desc.UseMean), int(desc.UseVariance), float(desc.Epsilon)))
    outcome(ACCEPTED)
