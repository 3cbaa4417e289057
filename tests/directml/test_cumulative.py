"""CUMULATIVE_SUMMATION and CUMULATIVE_PRODUCT through the mirror, bit for bit against the golden model
(docs/NUMERICS.md, "Cumulative scans").

The pages' examples; drawn descs (every data type the adapter has, ranks 1 to 8, every axis, both directions,
inclusive and exclusive, strides with broadcast, padding and permutation, special values) on every adapter; the
kernel alone on wave widths 8 to 64 and in place; the numeric rules (the FLOAT32 tally, integers wrapping, the
sign of zero) against loops written from the text; the validation sentences of the pages' rules."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from dmlemu import golden, run_operator
from dmlemu.d3d12 import *  # noqa: F401,F403
from dmlemu.directml import *  # noqa: F401,F403
from dmlemu.direct_run import DirectRun
from dmlemu.errors import E_INVALIDARG, HResultError
from dmlemu.gpu import Gpu
from dmlemu.kernels.driver import TensorSpec
from dmlemu.presets import PRESETS, RX_7900_XTX, WARP
from tensor_layouts import data_type, layout_strides, tensor

OPERATORS = {"SUMMATION": "HasExclusiveSum", "PRODUCT": "HasExclusiveProduct"}
DTYPES = {"FLOAT32": np.float32, "FLOAT16": np.float16, "INT32": np.int32, "UINT32": np.uint32, "INT64": np.int64,
          "UINT64": np.uint64}
BITS = {2: np.uint16, 4: np.uint32, 8: np.uint64}


def attributes(name, axis, direction=0, exclusive=False):
    return {"Axis": axis, "AxisDirection": direction, OPERATORS[name]: exclusive}


def desc(name, type_name, sizes, axis, direction=0, exclusive=False, in_strides=None, out_strides=None):
    struct = globals()[f"DML_CUMULATIVE_{name}_OPERATOR_DESC"]
    return struct(InputTensor=tensor(type_name, sizes, in_strides), OutputTensor=tensor(type_name, sizes, out_strides),
                  **attributes(name, axis, direction, exclusive))


def expected(name, x, axis, direction=0, exclusive=False):
    return golden.run("CUMULATIVE_" + name, [x], attributes(name, axis, direction, exclusive))


def same_bits(got, expected):
    got, expected = np.asarray(got), np.asarray(expected)
    assert got.shape == expected.shape and got.dtype == expected.dtype
    bits = BITS[got.dtype.itemsize]
    diff = np.flatnonzero(got.view(bits) != expected.view(bits))
    assert diff.size == 0, (f"{diff.size} elements differ, first at {diff[:5]}: got {got.ravel()[diff[:5]]}, "
                            f"expected {expected.ravel()[diff[:5]]}")


def values(rng, name, type_name, shape, special=False):
    if type_name in ("FLOAT32", "FLOAT16"):
        x = (rng.standard_normal(shape) * (1.0 if name == "PRODUCT" else rng.choice([1e-3, 1.0, 1e3]))
             ).astype(DTYPES[type_name])
        if special and x.size:
            picks = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0], dtype=x.dtype)
            mask = rng.random(shape) < 0.1
            x[mask] = rng.choice(picks, size=int(mask.sum()))
        return x
    info = np.iinfo(DTYPES[type_name])
    return rng.integers(info.min, info.max, size=shape, dtype=DTYPES[type_name], endpoint=True)


# ---- the pages' examples ------------------------------------------------------------------------------------------
PAGE_INPUT = np.array([[[[2, 1, 3, 5], [3, 8, 7, 3], [9, 6, 2, 4]]]], np.float32)
PAGE_EXAMPLES = {
    "SUMMATION": [((3, 0, False), [[2, 3, 6, 11], [3, 11, 18, 21], [9, 15, 17, 21]]),
                  ((3, 0, True), [[0, 2, 3, 6], [0, 3, 11, 18], [0, 9, 15, 17]]),
                  ((3, 1, False), [[11, 9, 8, 5], [21, 18, 10, 3], [21, 12, 6, 4]]),
                  ((2, 0, False), [[2, 1, 3, 5], [5, 9, 10, 8], [14, 15, 12, 12]])],
    "PRODUCT": [((3, 0, False), [[2, 2, 6, 30], [3, 24, 168, 504], [9, 54, 108, 432]]),
                ((3, 0, True), [[1, 2, 2, 6], [1, 3, 24, 168], [1, 9, 54, 108]]),
                ((3, 1, False), [[30, 15, 15, 5], [504, 168, 21, 3], [432, 48, 8, 4]]),
                ((2, 0, False), [[2, 1, 3, 5], [6, 8, 21, 15], [54, 48, 42, 60]])],
}


@pytest.mark.parametrize("name", sorted(OPERATORS))
def test_the_page_examples(name):
    for (axis, direction, exclusive), result in PAGE_EXAMPLES[name]:
        (got,) = run_operator(desc(name, "FLOAT32", [1, 1, 3, 4], axis, direction, exclusive), [PAGE_INPUT])
        assert got.reshape(3, 4).tolist() == result


# ---- drawn descs through the mirror ------------------------------------------------------------------------------
@st.composite
def cases(draw):
    name = draw(st.sampled_from(sorted(OPERATORS)))
    type_name = draw(st.sampled_from(sorted(DTYPES)))
    rank = draw(st.integers(1, 8))
    sizes = [draw(st.integers(1, 4 if rank > 3 else 40)) for _ in range(rank)]
    axis = draw(st.integers(0, rank - 1))
    layout = draw(st.sampled_from(["packed", "padded", "broadcast", "permuted"]))
    return (name, type_name, sizes, axis, draw(st.integers(0, 1)), draw(st.booleans()), layout, draw(st.booleans()),
            draw(st.integers(0, 2 ** 32 - 1)))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases(), st.sampled_from(PRESETS + (WARP,)))
def test_drawn_scans_are_bit_exact_on_every_adapter(case, preset):
    name, type_name, sizes, axis, direction, exclusive, layout, special, seed = case
    if type_name in ("INT64", "UINT64") and not preset.supports_64bit:
        type_name = type_name[:-2] + "32"
    rng = np.random.default_rng(seed)
    in_strides, broadcast = layout_strides(sizes, layout, rng)
    x = values(rng, name, type_name, sizes, special)
    for d in broadcast:      # every element of a stride-0 dimension is the one stored value
        x = np.repeat(np.take(x, [0], axis=d), sizes[d], axis=d)
    out_strides = layout_strides(sizes, layout, rng)[0] if layout in ("padded", "permuted") else None
    (got,) = run_operator(desc(name, type_name, sizes, axis, direction, exclusive, in_strides, out_strides), [x],
                          adapter=preset)
    same_bits(got, expected(name, x, axis, direction, exclusive))


# ---- the numeric rules, from the text ------------------------------------------------------------------------------
def literal_scan(x, combine, start, exclusive):
    tally, out = start, []
    for v in x:
        if exclusive:
            out.append(tally)
        tally = combine(tally, v)
        if not exclusive:
            out.append(tally)
    return out


def test_float16_keeps_a_float32_tally_rounded_once_at_each_store():
    x = np.array([2048, 1, 1, 1], np.float16)
    (got,) = run_operator(desc("SUMMATION", "FLOAT16", [4], 0), [x])
    assert got.tolist() == [2048, 2048, 2050, 2052]      # 2049 -> 2048 (even), the tally goes on at 2050, 2051
    same_bits(got, np.array(literal_scan(x.astype(np.float32), np.add, np.float32(-0.0), False), np.float16))


def test_the_sign_of_zero_and_special_values():
    x = np.array([-0.0, -0.0, np.inf, -np.inf, 1.0], np.float32)
    (got,) = run_operator(desc("SUMMATION", "FLOAT32", [5], 0), [x])
    assert got.view(np.uint32).tolist()[:3] == [0x80000000, 0x80000000, 0x7F800000]    # -0 stays -0 (from -0)
    assert got.view(np.uint32).tolist()[3:] == [0x7FC00000] * 2                         # inf - inf: canonical NaN
    (got,) = run_operator(desc("SUMMATION", "FLOAT32", [5], 0, exclusive=True), [x])
    assert got.view(np.uint32).tolist()[:3] == [0, 0, 0]        # from +0, the first output: +0 + -0 is +0
    (got,) = run_operator(desc("PRODUCT", "FLOAT32", [5], 0, direction=1, exclusive=True), [x])
    assert got.tolist()[4] == 1.0 and got.tolist()[3] == 1.0 and got.tolist()[2] == -np.inf


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(sorted(OPERATORS)), st.sampled_from(["FLOAT32", "FLOAT16"]), st.integers(1, 40),
       st.integers(0, 1), st.booleans(), st.integers(0, 2 ** 32 - 1))
def test_the_golden_scan_is_the_loop_of_the_text(name, type_name, count, direction, exclusive, seed):
    x = values(np.random.default_rng(seed), name, type_name, (count,), special=True)
    combine = np.add if name == "SUMMATION" else np.multiply
    start = np.float32(1.0 if name == "PRODUCT" else 0.0 if exclusive else -0.0)
    along = x.astype(np.float32)[::-1] if direction else x.astype(np.float32)
    with np.errstate(all="ignore"):
        literal = np.array(literal_scan(along, lambda a, b: np.float32(combine(a, b)), start, exclusive), np.float32)
    literal = literal[::-1] if direction else literal
    literal[np.isnan(literal)] = np.float32(np.nan)      # canonical
    same_bits(expected(name, x, 0, direction, exclusive), literal.astype(x.dtype))


@pytest.mark.parametrize("type_name", ["INT32", "UINT32", "INT64", "UINT64"])
@pytest.mark.parametrize("name", sorted(OPERATORS))
def test_integers_wrap(name, type_name):
    rng = np.random.default_rng(9)
    x = values(rng, name, type_name, (3, 50))
    dtype = DTYPES[type_name]
    (got,) = run_operator(desc(name, type_name, [3, 50], 1), [x])
    combine = (lambda a, b: dtype(a + b)) if name == "SUMMATION" else (lambda a, b: dtype(a * b))
    with np.errstate(over="ignore"):
        literal = [literal_scan(row, combine, dtype(0 if name == "SUMMATION" else 1), False) for row in x]
    assert got.tolist() == np.array(literal, dtype).tolist()
    same_bits(got, expected(name, x, 1))


# ---- the same kernel on every wave width, and in place --------------------------------------------------------------
@pytest.mark.parametrize("name, type_name", [("SUMMATION", "FLOAT32"), ("PRODUCT", "FLOAT16"),
                                             ("SUMMATION", "INT64"), ("PRODUCT", "UINT32")])
def test_every_wave_width_gives_the_same_bits_in_place_too(name, type_name):
    rng = np.random.default_rng(4)
    x = values(rng, name, type_name, (7, 30, 5), special=True)
    reference = expected(name, x, 1, 1, True)
    specs = [TensorSpec(type_name, x.shape, None, x.nbytes)] * 2
    for width in (8, 16, 32, 64):
        for in_place in (False, True):
            gpu = Gpu(RX_7900_XTX, wave_width=width, timing=False)
            buffers = [x.view(np.uint8).reshape(-1), 0 if in_place else np.zeros(x.nbytes, np.uint8)]
            run = DirectRun(gpu, "CUMULATIVE_" + name, specs, buffers, attributes=attributes(name, 1, 1, True))
            stats = run.dispatch()
            assert stats.workgroups == 1 and stats.waves == 64 // width      # 35 lines, one workgroup of 64
            same_bits(run.output_bytes(1)[:x.nbytes].view(x.dtype).reshape(x.shape), reference)
            run.free()


# ---- validation ------------------------------------------------------------------------------------------------
def refusal(name, struct_desc):
    dml = DMLCreateDevice(D3D12CreateDevice(None, D3D_FEATURE_LEVEL_11_0), DML_CREATE_DEVICE_FLAG_NONE)
    try:
        dml.CreateOperator(DML_OPERATOR_DESC(Type=int(globals()[f"DML_OPERATOR_CUMULATIVE_{name}"]), Desc=struct_desc))
    except HResultError as error:
        return error.hresult, error.message
    return "validated"


@pytest.mark.parametrize("name", sorted(OPERATORS))
def test_the_pages_rules_are_checked(name):
    op = f"DML_OPERATOR_CUMULATIVE_{name}"
    assert refusal(name, desc(name, "FLOAT32", [2, 3], 2)) == (
        E_INVALIDARG, f"Axis is 2; InputTensor has 2 dimensions, so {op} takes Axis 0 to 1.")
    bad = desc(name, "FLOAT32", [2, 3], 1)
    bad.AxisDirection = 2
    assert refusal(name, bad)[0] == E_INVALIDARG
    bad = desc(name, "FLOAT32", [2, 3], 1)
    bad.OutputTensor = tensor("INT32", [2, 3])
    assert refusal(name, bad) == (E_INVALIDARG, "OutputTensor.DataType is DML_TENSOR_DATA_TYPE_INT32 but "
                                                f"InputTensor.DataType is DML_TENSOR_DATA_TYPE_FLOAT32; {op} requires "
                                                "the same DataType.")
    assert refusal(name, desc(name, "INT16", [2, 3], 1))[0] == E_INVALIDARG
    assert refusal(name, desc(name, "UINT32", [2, 3], 1, exclusive=7)) == "validated"    # any non-zero BOOL is TRUE
