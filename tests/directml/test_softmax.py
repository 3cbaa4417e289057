"""ACTIVATION_SOFTMAX, LOG_SOFTMAX, HARDMAX and their `1` forms through the mirror, bit for bit against the golden
model (docs/NUMERICS.md, "Softmax, log-softmax, hardmax").

Drawn descs (both data types, ranks 1 to 8, axis subsets, strides with broadcast, padding and permutation, special
values) run on every adapter; the kernel alone runs on wave widths 8 to 64; the golden model's order is checked
against a per-thread loop written from the text and against float64; the validation sentences of the pages' rules
(the effective rank, the axes) are pinned; both this family and the cumulative scans follow a rearranged constant
buffer layout and agree with the per-lane reference executor (tests/directml/test_graph.py runs them in a graph
between element-wise nodes)."""
import dataclasses

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from dmlemu import golden, run_operator
from dmlemu.d3d12 import *  # noqa: F401,F403
from dmlemu.directml import *  # noqa: F401,F403
from dmlemu.direct_run import DirectRun
from dmlemu.errors import E_INVALIDARG, HResultError
from dmlemu.gpu import Gpu
from dmlemu.golden.reduce import lanes_for
from dmlemu.golden.transcendental import _Math
from dmlemu.kernels.constant_buffer import LAYOUT, RECORD_FIELDS, Layout
from dmlemu.kernels.driver import TensorSpec
from dmlemu.presets import PRESETS, RX_7900_XTX, WARP
from tensor_layouts import data_type, layout_strides, tensor

KINDS = ("SOFTMAX", "LOG_SOFTMAX", "HARDMAX")
DTYPES = {"FLOAT32": np.float32, "FLOAT16": np.float16}
BITS = {2: np.uint16, 4: np.uint32}


def desc(kind, type_name, sizes, axes=None, in_strides=None, out_strides=None):
    """The `1` form over `axes`, or the original operator (axes None)."""
    if axes is None:
        struct = globals()[f"DML_ACTIVATION_{kind}_OPERATOR_DESC"]
        return struct(InputTensor=tensor(type_name, sizes, in_strides),
                      OutputTensor=tensor(type_name, sizes, out_strides))
    struct = globals()[f"DML_ACTIVATION_{kind}1_OPERATOR_DESC"]
    return struct(InputTensor=tensor(type_name, sizes, in_strides), OutputTensor=tensor(type_name, sizes, out_strides),
                  Axes=list(axes))


def same_bits(got, expected):
    got, expected = np.asarray(got), np.asarray(expected)
    assert got.shape == expected.shape and got.dtype == expected.dtype
    bits = BITS[got.dtype.itemsize]
    diff = np.flatnonzero(got.view(bits) != expected.view(bits))
    assert diff.size == 0, (f"{diff.size} elements differ, first at {diff[:5]}: got {got.ravel()[diff[:5]]}, "
                            f"expected {expected.ravel()[diff[:5]]}")


def values(rng, type_name, shape, special=False):
    x = (rng.standard_normal(shape) * rng.choice([1e-3, 1.0, 30.0])).astype(DTYPES[type_name])
    if special and x.size:
        picks = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 1e-40 if type_name == "FLOAT32" else 1e-7],
                         dtype=x.dtype)
        mask = rng.random(shape) < 0.1
        x[mask] = rng.choice(picks, size=int(mask.sum()))
    return x


def expected(kind, x, axes=None):
    if axes is None:
        return golden.run("ACTIVATION_" + kind, [x])
    return golden.run(f"ACTIVATION_{kind}1", [x], {"Axes": tuple(axes)})


# ---- drawn descs through the mirror ------------------------------------------------------------------------------
@st.composite
def cases(draw):
    kind = draw(st.sampled_from(KINDS))
    type_name = draw(st.sampled_from(sorted(DTYPES)))
    rank = draw(st.integers(1, 8))
    sizes = [draw(st.integers(1, 4 if rank > 3 else 70)) for _ in range(rank)]
    axes = draw(st.lists(st.integers(0, rank - 1), unique=True, max_size=rank))
    layout = draw(st.sampled_from(["packed", "padded", "broadcast", "permuted"]))
    return kind, type_name, sizes, axes, layout, draw(st.booleans()), draw(st.integers(0, 2 ** 32 - 1))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases(), st.sampled_from(PRESETS + (WARP,)))
def test_drawn_softmax1_descs_are_bit_exact_on_every_adapter(case, preset):
    kind, type_name, sizes, axes, layout, special, seed = case
    rng = np.random.default_rng(seed)
    in_strides, broadcast = layout_strides(sizes, layout, rng)
    x = values(rng, type_name, sizes, special)
    for d in broadcast:      # every element of a stride-0 dimension is the one stored value
        x = np.repeat(np.take(x, [0], axis=d), sizes[d], axis=d)
    out_strides = None
    if layout in ("padded", "permuted"):   # an output of its own layout: gaps between rows, or the input's order
        out_strides = layout_strides(sizes, layout, rng)[0]
    (got,) = run_operator(desc(kind, type_name, sizes, axes, in_strides, out_strides), [x], adapter=preset)
    same_bits(got, expected(kind, x, axes))


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(KINDS), st.sampled_from(sorted(DTYPES)), st.integers(1, 4), st.integers(1, 300),
       st.booleans(), st.integers(0, 2 ** 32 - 1))
def test_the_original_operators_normalize_the_last_dimension(kind, type_name, batch, width, special, seed):
    rng = np.random.default_rng(seed)
    sizes = [1, 1, batch, width]          # FL1_0's 4 dimensions, of effective rank 2
    x = values(rng, type_name, sizes, special)
    (got,) = run_operator(desc(kind, type_name, sizes), [x])
    same_bits(got, expected(kind, x))
    same_bits(got, expected(kind, x, [3]))      # "equivalent ... when AxisCount == 1, and Axes == {DimensionCount - 1}"


def test_the_hardmax1_page_examples():
    x = np.array([[[12, 0], [-101, 11]], [[3, 234], [0, -101]]], np.float32)
    for axes, result in (([1], [[[1, 0], [0, 1]], [[1, 1], [0, 0]]]), ([0], [[[1, 0], [0, 1]], [[0, 1], [1, 0]]]),
                         ([0, 2], [[[0, 0], [0, 1]], [[0, 1], [0, 0]]])):
        (got,) = run_operator(desc("HARDMAX", "FLOAT32", [2, 2, 2], axes), [x])
        assert got.tolist() == result


@pytest.mark.parametrize("kind", KINDS)
def test_each_kind_against_float64(kind):
    x = np.random.default_rng(5).uniform(-20, 20, (3, 4, 300)).astype(np.float32)
    (got,) = run_operator(desc(kind, "FLOAT32", [3, 4, 300], [0, 2]), [x])
    wide = x.astype(np.float64)
    shifted = wide - wide.max(axis=(0, 2), keepdims=True)
    log_sum = np.log(np.exp(shifted).sum(axis=(0, 2), keepdims=True))
    if kind == "HARDMAX":
        rows = np.transpose(x, (1, 0, 2)).reshape(4, -1)
        assert got.sum() == 4 and all(np.transpose(got, (1, 0, 2)).reshape(4, -1)[r].argmax() == rows[r].argmax()
                                      for r in range(4))
    elif kind == "SOFTMAX":
        np.testing.assert_allclose(got, np.exp(shifted - log_sum), rtol=5e-6, atol=1e-30)   # x - M rounded
    else:
        np.testing.assert_allclose(got, shifted - log_sum, rtol=1e-6, atol=2e-6)


def test_special_values_follow_the_rules():
    nan, inf = np.float32(np.nan), np.float32(np.inf)
    x = np.array([[1, 2, nan, 3], [-inf, 0, -inf, 0], [inf, 1, 2, 3], [nan] * 4, [-inf] * 4, [5, 5, 1, 5]],
                 np.float32)
    softmax = run_operator(desc("SOFTMAX", "FLOAT32", [6, 4]), [x])[0]
    assert np.isnan(softmax[0]).all() and np.isnan(softmax[2:5]).all()      # a NaN or +inf anywhere; M = -inf
    assert softmax[0].view(np.uint32).tolist() == [0x7FC00000] * 4             # canonical
    assert softmax[1].tolist() == [0, 0.5, 0, 0.5]
    log_softmax = run_operator(desc("LOG_SOFTMAX", "FLOAT32", [6, 4]), [x])[0]
    assert log_softmax[1].tolist()[0] == -np.inf and np.isnan(log_softmax[0]).all()
    hardmax = run_operator(desc("HARDMAX", "FLOAT32", [6, 4]), [x])[0]
    # the first maximum, NaN skipped; every element NaN: element 0 (ARGMAX's 0)
    assert hardmax.tolist() == [[0, 0, 0, 1], [0, 1, 0, 0], [1, 0, 0, 0], [1, 0, 0, 0], [1, 0, 0, 0], [1, 0, 0, 0]]
    half = run_operator(desc("HARDMAX", "FLOAT16", [6, 4]), [x.astype(np.float16)])[0]
    assert half.view(np.uint16)[0].tolist() == [0, 0, 0, 0x3C00]


def test_an_empty_axis_list_normalizes_each_element_alone():
    x = np.array([[1.5, -np.inf, np.inf, 0.0]], np.float32)
    (got,) = run_operator(desc("SOFTMAX", "FLOAT32", [1, 4], []), [x])
    assert got[0, 0] == 1.0 and got[0, 3] == 1.0 and np.isnan(got[0, 1:3]).all()    # an infinity alone: inf - inf


# ---- the same kernel on every wave width --------------------------------------------------------------------------
def run_kernel(kind, x, axes, width, preset=RX_7900_XTX, timing=False):
    gpu = Gpu(preset, wave_width=width, timing=timing)
    type_name = {np.dtype(np.float32): "FLOAT32", np.dtype(np.float16): "FLOAT16"}[x.dtype]
    specs = [TensorSpec(type_name, x.shape, None, x.nbytes), TensorSpec(type_name, x.shape, None, x.nbytes)]
    run = DirectRun(gpu, f"ACTIVATION_{kind}1", specs,
                    [x.view(np.uint8).reshape(-1), np.zeros(x.nbytes, np.uint8)], attributes={"Axes": tuple(axes)})
    stats = run.dispatch()
    got = run.output_bytes(1)[:x.nbytes].view(x.dtype).reshape(x.shape)
    run.free()
    return got, stats


@pytest.mark.parametrize("kind, type_name, count", [
    ("SOFTMAX", "FLOAT32", 150), ("SOFTMAX", "FLOAT16", 3000), ("LOG_SOFTMAX", "FLOAT32", 3000),
    ("LOG_SOFTMAX", "FLOAT16", 150), ("HARDMAX", "FLOAT32", 3000), ("HARDMAX", "FLOAT16", 150)])
def test_every_wave_width_gives_the_same_bits(kind, type_name, count):
    rng = np.random.default_rng(11)
    x = values(rng, type_name, (3, 5, count), special=False)
    lanes = lanes_for(3 * count)
    reference = expected(kind, x, (0, 2))
    for width in (8, 16, 32, 64):
        got, stats = run_kernel(kind, x, (0, 2), width)
        assert stats.workgroups == 5 and stats.waves == 5 * -(-lanes // width)
        same_bits(got, reference)


# ---- the golden model's order, from the text -----------------------------------------------------------------------
def literal_softmax(row):
    """One row, literally: M by maxNum, then the threads and the tree of the reductions over e^(x - M), then the
    divide (element-wise EXP's e^x, whose sequence dmlemu.golden.transcendental writes once)."""
    exp = _Math(np.float32).exp
    m = np.float32(np.nanmax(row))
    e = list(exp(np.array([np.float32(v - m) for v in row], np.float32)))    # elementwise: one call for speed
    lanes = 64
    while lanes < 1024 and len(row) > 64 * lanes:
        lanes *= 2
    acc = [np.float32(-0.0)] * lanes
    for k, v in enumerate(e):
        acc[k % lanes] = np.float32(acc[k % lanes] + v)
    s = lanes // 2
    while s:
        acc = [np.float32(acc[t] + acc[t + s]) for t in range(s)]
        s //= 2
    return np.array([np.float32(v / acc[0]) for v in e], np.float32)


@settings(max_examples=10, deadline=None)
@given(st.one_of(st.integers(1, 300), st.integers(4100, 6000)), st.integers(0, 2 ** 32 - 1))
def test_the_golden_softmax_is_max_then_the_reductions_sum_then_a_divide(count, seed):
    x = (np.random.default_rng(seed).standard_normal(count) * 10).astype(np.float32)
    same_bits(golden.softmax(x), literal_softmax(x))


# ---- validation ------------------------------------------------------------------------------------------------
def refusal(kind, struct_desc):
    dml = DMLCreateDevice(D3D12CreateDevice(None, D3D_FEATURE_LEVEL_11_0), DML_CREATE_DEVICE_FLAG_NONE)
    try:
        dml.CreateOperator(DML_OPERATOR_DESC(Type=int(globals()[f"DML_OPERATOR_ACTIVATION_{kind}"]), Desc=struct_desc))
    except HResultError as error:
        return error.hresult, error.message
    return "validated"


@pytest.mark.parametrize("kind", KINDS)
def test_the_original_operators_allow_an_effective_rank_of_at_most_2(kind):
    assert refusal(kind, desc(kind, "FLOAT32", [1, 1, 3, 5])) == "validated"
    assert refusal(kind, desc(kind, "FLOAT32", [1, 2, 3, 5])) == (
        E_INVALIDARG, "InputTensor.Sizes is {1,2,3,5}, of effective rank 3 (the DimensionCount without the leftmost "
                      f"sizes of 1); DML_OPERATOR_ACTIVATION_{kind} allows an effective rank of at most 2.")


def test_the_axes_are_checked():
    bad = desc("SOFTMAX", "FLOAT32", [2, 3], [2])
    assert refusal("SOFTMAX1", bad) == (E_INVALIDARG, "Axes[0] is 2; InputTensor has 2 dimensions, so "
                                                      "DML_OPERATOR_ACTIVATION_SOFTMAX1 takes axes 0 to 1.")
    bad = desc("HARDMAX", "FLOAT32", [2, 3], [1, 1])
    assert refusal("HARDMAX1", bad) == (E_INVALIDARG, "Axes[1] is 1, which Axes already names; dmlemu requires each "
                                                      "axis once.")
    bad = desc("LOG_SOFTMAX", "FLOAT32", [2, 3], [1])
    bad.OutputTensor = tensor("FLOAT32", [2, 4])
    assert refusal("LOG_SOFTMAX1", bad) == (E_INVALIDARG, "OutputTensor.Sizes is {2,4} but InputTensor.Sizes is {2,3}; "
                                                          "DML_OPERATOR_ACTIVATION_LOG_SOFTMAX1 requires the same Sizes.")


# ---- the timing model: the row is read from DRAM about once ----------------------------------------------------------
def test_rows_of_4096_read_their_input_from_dram_about_once():
    x = np.random.default_rng(3).standard_normal((64, 4096)).astype(np.float32)
    got, stats = run_kernel("SOFTMAX", x, (1,), 32, timing=True)
    same_bits(got, expected("SOFTMAX", x, (1,)))
    dram_read_bytes = int(stats.timing.traffic.totals["dram_reads"]) * RX_7900_XTX.sector_bytes
    assert x.nbytes <= dram_read_bytes <= 2 * x.nbytes, dram_read_bytes


# ---- a rearranged constant buffer: nothing but the layout table knows an offset ---------------------------------------
def shifted_layout():
    """Every field 20 bytes further on, records of 40 bytes: a layout no kernel could hard-code."""
    fields = [dataclasses.replace(f, offset=f.offset + 20) for f in LAYOUT.fields if f.type != "records"]
    records = dataclasses.replace(LAYOUT.field("RECORDS"), offset=LAYOUT.field("RECORDS").offset + 20, size=8 * 40)
    fields = [dataclasses.replace(f, offset=f.offset + 8 * 8) if f.offset >= records.offset else f for f in fields]
    wide = dataclasses.replace(LAYOUT.field("WIDE_RECORDS"), offset=max(f.end for f in fields), size=8 * 40)
    return Layout(fields=tuple(fields) + (records, wide), record_fields=RECORD_FIELDS, record_bytes=40)


@pytest.mark.parametrize("operator, attributes", [
    ("ACTIVATION_SOFTMAX1", {"Axes": (0, 2)}), ("ACTIVATION_HARDMAX1", {"Axes": (1,)}),
    ("ACTIVATION_LOG_SOFTMAX", {}),
    ("CUMULATIVE_SUMMATION", {"Axis": 1, "AxisDirection": 1, "HasExclusiveSum": True}),
    ("CUMULATIVE_PRODUCT", {"Axis": 2, "AxisDirection": 0, "HasExclusiveProduct": False})])
def test_the_kernels_follow_a_rearranged_constant_buffer(operator, attributes):
    layout = shifted_layout()
    assert all(layout.field(f.name).offset != f.offset for f in LAYOUT.fields)
    x = np.random.default_rng(6).standard_normal((3, 5, 70)).astype(np.float32)
    strides = [5 * 71, 71, 1]        # padded rows: the general addressing path
    specs = [TensorSpec("FLOAT32", x.shape, strides, 4 * 3 * 5 * 71), TensorSpec("FLOAT32", x.shape, None, x.nbytes)]
    padded = np.zeros((3, 5, 71), np.float32)
    padded[..., :70] = x
    gpu = Gpu(RX_7900_XTX, wave_width=16, timing=False)
    run = DirectRun(gpu, operator, specs, [padded.view(np.uint8).reshape(-1), np.zeros(x.nbytes, np.uint8)],
                    attributes=attributes, layout=layout)
    run.dispatch()
    got = run.output_bytes(1)[:x.nbytes].view(np.float32).reshape(x.shape)
    same_bits(got, golden.run(operator, [x], attributes))


# ---- the fast executor against the per-lane reference executor --------------------------------------------------------
@pytest.mark.parametrize("operator, attributes", [
    ("ACTIVATION_SOFTMAX1", {"Axes": (1,)}), ("ACTIVATION_LOG_SOFTMAX1", {"Axes": (0, 1)}),
    ("ACTIVATION_HARDMAX1", {"Axes": (1,)}),
    ("CUMULATIVE_PRODUCT", {"Axis": 1, "AxisDirection": 1, "HasExclusiveProduct": True})])
def test_the_kernels_agree_with_the_reference_executor(operator, attributes):
    from reference_executor import run_launch
    x = values(np.random.default_rng(8), "FLOAT16", (2, 90), special=True)
    specs = [TensorSpec("FLOAT16", x.shape, None, x.nbytes)] * 2
    results = []
    for reference in (False, True):
        gpu = Gpu(RX_7900_XTX, wave_width=32, timing=False)
        run = DirectRun(gpu, operator, specs, [x.view(np.uint8).reshape(-1), np.zeros(x.nbytes, np.uint8)],
                        attributes=attributes)
        if reference:
            run_launch(run.launch(), gpu.memory, 32)
        else:
            run.dispatch()
        results.append(run.output_bytes(1)[:x.nbytes].view(np.float16).reshape(x.shape).copy())
    same_bits(results[0], results[1])
    same_bits(results[0], golden.run(operator, [x], attributes))
