"""DML_OPERATOR_REDUCE through the mirror, bit for bit against the golden model (docs/NUMERICS.md, "Reductions").

Drawn descs (data types, ranks 1 to 8, axis subsets, strides with broadcast and padding, special values) run on
every adapter (wave widths 8, 16 and 32) and the kernel alone on wave widths 16, 32 and 64; the golden model's
order is checked against a per-thread loop written from the text; the validation sentences of the page's rules
(axes, reduced sizes, per-function support rows) are pinned."""
import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st

from dmlemu import golden, run_operator
from dmlemu.d3d12 import *  # noqa: F401,F403
from dmlemu.directml import *  # noqa: F401,F403
from dmlemu.directml.operators import SCHEMAS_BY_NAME
from dmlemu.direct_run import DirectRun
from dmlemu.errors import E_INVALIDARG, E_NOTIMPL, HResultError
from dmlemu.gpu import Gpu
from dmlemu.golden.reduce import FUNCTIONS, lanes_for
from dmlemu.kernels.driver import TensorSpec
from dmlemu.kernels.reduce_ops import CHUNK_LANES, chunks_for, OPERATORS as REDUCTION_ROWS
from dmlemu.presets import PRESETS, RX_7900_XTX, WARP
from tensor_layouts import data_type, layout_strides, tensor

SERVED = REDUCTION_ROWS["REDUCE"].functions
DTYPES = {"FLOAT32": np.float32, "FLOAT16": np.float16, "INT32": np.int32, "UINT32": np.uint32, "INT16": np.int16,
          "UINT16": np.uint16, "INT8": np.int8, "UINT8": np.uint8, "INT64": np.int64, "UINT64": np.uint64}
BITS = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
SIZE_OF = {"FLOAT32": 4, "FLOAT16": 2, "INT32": 4, "UINT32": 4, "INT16": 2, "UINT16": 2, "INT8": 1, "UINT8": 1}


def reduce_desc(function, type_name, sizes, axes, in_strides=None, out_strides=None, out_type=None):
    out_sizes = [1 if d in axes else s for d, s in enumerate(sizes)]
    return DML_REDUCE_OPERATOR_DESC(
        Function=getattr(DML_REDUCE_FUNCTION, "DML_REDUCE_FUNCTION_" + function),
        InputTensor=tensor(type_name, sizes, in_strides), OutputTensor=tensor(out_type or type_name, out_sizes, out_strides),
        Axes=list(axes))


def same_bits(got, expected):
    got, expected = np.asarray(got), np.asarray(expected)
    assert got.shape == expected.shape and got.dtype == expected.dtype
    bits = BITS[got.dtype.itemsize]
    diff = np.flatnonzero(got.view(bits) != expected.view(bits))
    assert diff.size == 0, (f"{diff.size} elements differ, first at {diff[:5]}: got {got.ravel()[diff[:5]]}, "
                            f"expected {expected.ravel()[diff[:5]]}")


def values(rng, type_name, shape, special=False):
    if type_name in ("FLOAT32", "FLOAT16"):
        x = (rng.standard_normal(shape) * rng.choice([1e-3, 1.0, 1e3])).astype(DTYPES[type_name])
        if special and x.size:
            picks = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0], dtype=x.dtype)
            mask = rng.random(shape) < 0.15
            x[mask] = rng.choice(picks, size=int(mask.sum()))
        return x
    info = np.iinfo(DTYPES[type_name])
    return rng.integers(info.min, info.max, size=shape, dtype=DTYPES[type_name], endpoint=True)


def expected(x, function, axes, out_type=None):
    return golden.run("REDUCE", [x], {"Function": FUNCTIONS.index(function), "Axes": tuple(axes)},
                      output_type=out_type)


# ---- drawn descs through the mirror ------------------------------------------------------------------------------
@st.composite
def cases(draw):
    function = draw(st.sampled_from(sorted(SERVED)))
    type_name = draw(st.sampled_from(SERVED[function].types))
    rank = draw(st.integers(1, 8))
    sizes = [draw(st.integers(1, 5 if rank > 3 else 70)) for _ in range(rank)]
    axes = draw(st.lists(st.integers(0, rank - 1), unique=True, max_size=rank))
    if draw(st.booleans()):
        axes = sorted(axes)
    layout = draw(st.sampled_from(["packed", "padded", "broadcast", "permuted"]))
    out_type = draw(st.sampled_from(SERVED[function].outputs)) if SERVED[function].outputs else None
    return (function, type_name, sizes, axes, layout, draw(st.booleans()), draw(st.integers(0, 2 ** 32 - 1)),
            out_type)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases(), st.sampled_from(PRESETS + (WARP,)))
def test_drawn_reductions_are_bit_exact_on_every_adapter(case, preset):
    function, type_name, sizes, axes, layout, special, seed, out_type = case
    if out_type in ("INT64", "UINT64") and not preset.supports_64bit:
        out_type = out_type[:-2] + "32"
    if type_name in ("INT64", "UINT64") and not preset.supports_64bit:
        type_name = type_name[:-2] + "32"
    rng = np.random.default_rng(seed)
    in_strides, broadcast = layout_strides(sizes, layout, rng)
    x = values(rng, type_name, sizes, special)
    for d in broadcast:      # every element of a stride-0 dimension is the one stored value
        x = np.repeat(np.take(x, [0], axis=d), sizes[d], axis=d)
    out_sizes = [1 if d in axes else s for d, s in enumerate(sizes)]
    out_strides = None
    if layout == "padded":   # a padded output too: every element of its own, gaps between rows
        out_strides = list(np.cumprod([1] + [s + 2 for s in out_sizes[::-1]])[:-1][::-1])
    desc = reduce_desc(function, type_name, sizes, axes, in_strides, out_strides, out_type)
    (got,) = run_operator(desc, [x], adapter=preset)
    same_bits(got, expected(x, function, axes, out_type))
    assert got.shape == tuple(out_sizes)


def test_the_page_examples():
    x = np.array([[1, 2, 3], [3, 0, 4], [2, 4, 2]], dtype=np.float32)
    for axes, result in (([0], [[6, 6, 9]]), ([1], [[6], [7], [8]]), ([0, 1], [[21]])):
        (got,) = run_operator(reduce_desc("SUM", "FLOAT32", [3, 3], axes), [x])
        assert got.tolist() == result


@pytest.mark.parametrize("function", sorted(SERVED))
def test_each_function_against_float64_on_a_small_tensor(function):
    x = np.random.default_rng(5).uniform(0.5, 2.0, (4, 37)).astype(np.float32)
    out_type = "UINT32" if SERVED[function].outputs else None
    (got,) = run_operator(reduce_desc(function, "FLOAT32", [4, 37], [1], out_type=out_type), [x])
    wide = x.astype(np.float64)
    reference = {"SUM": wide.sum(1), "AVERAGE": wide.mean(1), "MAX": wide.max(1), "MIN": wide.min(1),
                 "MULTIPLY": wide.prod(1), "SUM_SQUARE": (wide ** 2).sum(1), "L1": np.abs(wide).sum(1),
                 "L2": np.sqrt((wide ** 2).sum(1)), "LOG_SUM": np.log(wide.sum(1)),
                 "ARGMAX": wide.argmax(1), "ARGMIN": wide.argmin(1),
                 "LOG_SUM_EXP": np.log(np.exp(wide).sum(1))}[function]
    np.testing.assert_allclose(got[:, 0], reference, rtol=1e-5)


def test_special_values_follow_the_rules():
    nan, inf = np.float32(np.nan), np.float32(np.inf)
    x = np.array([[nan, 1, 2], [nan, nan, nan], [-0.0, 0.0, -0.0], [-0.0, -0.0, -0.0], [inf, -inf, 1]], np.float32)
    run = lambda f: run_operator(reduce_desc(f, "FLOAT32", [5, 3], [1]), [x])[0][:, 0]
    assert run("MAX").view(np.uint32).tolist() == [0x40000000, 0x7FC00000, 0, 0x80000000, 0x7F800000]
    assert run("MIN").view(np.uint32).tolist() == [0x3F800000, 0x7FC00000, 0x80000000, 0x80000000, 0xFF800000]
    assert run("SUM").view(np.uint32).tolist() == [0x7FC00000, 0x7FC00000, 0, 0x80000000, 0x7FC00000]


def test_argmax_and_argmin_take_the_first_best_index_skip_nan_and_give_0_for_all_nan():
    nan = np.float32(np.nan)
    x = np.array([[1, 3, 3, 2], [nan, nan, nan, nan], [0.0, -0.0, 0.0, -1], [nan, -np.inf, nan, -np.inf]],
                 np.float32)
    (got,) = run_operator(reduce_desc("ARGMAX", "FLOAT32", [4, 4], [1], out_type="INT64"), [x])
    assert got[:, 0].tolist() == [1, 0, 0, 1]
    (got,) = run_operator(reduce_desc("ARGMIN", "FLOAT32", [4, 4], [1], out_type="UINT32"), [x])
    assert got[:, 0].tolist() == [0, 0, 3, 1]
    x = np.arange(24, dtype=np.int32).reshape(2, 3, 4) % 7      # an index over two axes is row-major over them
    (got,) = run_operator(reduce_desc("ARGMAX", "INT32", [2, 3, 4], [0, 2], out_type="UINT32"), [x])
    assert got.ravel().tolist() == [np.argmax(x[:, j, :].ravel()) for j in range(3)]


def test_integer_sums_and_products_wrap():
    x = np.array([[2 ** 31 - 1, 1, 5], [-2 ** 31, -1, 0]], np.int32)
    (got,) = run_operator(reduce_desc("SUM", "INT32", [2, 3], [1]), [x])
    assert got[:, 0].tolist() == [-2 ** 31 + 5, 2 ** 31 - 1]
    x = np.array([[65536, 65536, 3]], np.uint32)
    (got,) = run_operator(reduce_desc("MULTIPLY", "UINT32", [1, 3], [1]), [x])
    assert got.tolist() == [[0]]


# ---- the same kernel on every wave width --------------------------------------------------------------------------
def run_kernel(x, type_name, function, axes, width):
    gpu = Gpu(RX_7900_XTX, wave_width=width, timing=False)
    out_sizes = tuple(1 if d in axes else s for d, s in enumerate(x.shape))
    out_type = "UINT32" if SERVED[function].outputs else type_name
    out = np.zeros(out_sizes, np.uint32 if SERVED[function].outputs else x.dtype)
    specs = [TensorSpec(type_name, x.shape, None, x.nbytes), TensorSpec(out_type, out_sizes, None, out.nbytes)]
    run = DirectRun(gpu, "REDUCE", specs, [x.view(np.uint8).reshape(-1), out.view(np.uint8).reshape(-1)],
                    attributes={"Function": FUNCTIONS.index(function), "Axes": tuple(axes)})
    run.dispatch()
    return run.output_bytes(1)[:out.nbytes].view(out.dtype).reshape(out_sizes), run.stats


@pytest.mark.parametrize("function, type_name, count", [
    ("SUM", "FLOAT32", 150), ("SUM", "FLOAT16", 150), ("AVERAGE", "FLOAT16", 150), ("MAX", "INT8", 150),
    ("L2", "FLOAT32", 150), ("MULTIPLY", "INT32", 150), ("SUM", "FLOAT32", 3000), ("MIN", "FLOAT32", 30000),
    ("ARGMAX", "FLOAT16", 3000), ("ARGMIN", "UINT8", 150), ("LOG_SUM_EXP", "FLOAT32", 3000),
    ("MAX", "INT64", 3000), ("SUM", "UINT64", 150)])
def test_every_wave_width_gives_the_same_bits(function, type_name, count):
    rng = np.random.default_rng(11)
    x = values(rng, type_name, (3, 5, count), special=True)
    lanes = lanes_for(3 * count)
    assert lanes == {150: 64, 3000: 256, 30000: 1024}[count]
    chunks = chunks_for(function, type_name, 3 * count)     # 90,000 elements of MIN: 6 chunks of 16,384
    assert chunks == (6 if count == 30000 else 1)
    for width in (8, 16, 32, 64):
        got, stages = run_kernel(x, type_name, function, (0, 2), width)
        (stats,) = stages      # one dispatch
        if chunks > 1:     # a workgroup of CHUNK_LANES per chunk; the last chunk's goes on over its partials
            assert stats.workgroups == 5 * chunks and stats.waves == 5 * chunks * -(-CHUNK_LANES // width)
            # each chunk's tree, then in the last chunk's workgroup two to wait for the count (the one batch
            # counted them all) and the partials' tree
            tree = CHUNK_LANES.bit_length() - 1
            assert stats.barriers == 5 * chunks * tree + 5 * (2 + tree)
        else:
            # a barrier after the first write and after every tree level but the last (s = 1): log2(L)
            assert stats.workgroups == 5 and stats.waves == 5 * -(-lanes // width)
            assert stats.barriers == 5 * (lanes.bit_length() - 1) * (2 if function == "LOG_SUM_EXP" else 1) + \
                5 * 2 * (function == "LOG_SUM_EXP")      # two passes, and M handed to every thread
        same_bits(got, expected(x, function, (0, 2), "UINT32" if SERVED[function].outputs else None))


# ---- the golden model's order, from the text -----------------------------------------------------------------------
def threads_then_tree(row, add, identity, lanes=None):
    """One output, literally: the threads L from the text, thread t adds elements t, t + L, ... in order, then
    the tree (t, t + s); above 16,384 elements, each chunk of 16,384 so with L = 256, then the chunks' results
    so, with L = 256 too."""
    if lanes is None and len(row) > 16384:
        partials = [threads_then_tree(row[c:c + 16384], add, identity, 256) for c in range(0, len(row), 16384)]
        return threads_then_tree(partials, add, identity, 256)
    if lanes is None:
        lanes = 64
        while lanes < 1024 and len(row) > 64 * lanes:
            lanes *= 2
    acc = [identity] * lanes
    for k, value in enumerate(row):
        acc[k % lanes] = add(acc[k % lanes], value)
    s = lanes // 2
    while s:
        acc = [add(acc[t], acc[t + s]) for t in range(s)]
        s //= 2
    return acc[0]


@settings(max_examples=25, deadline=None)
@given(st.one_of(st.integers(1, 700), st.integers(4000, 20000), st.integers(16380, 50000)), st.integers(0, 2 ** 32 - 1))
def test_the_golden_sum_is_the_threads_then_the_tree(count, seed):
    x = (np.random.default_rng(seed).standard_normal(count) * 1e4).astype(np.float32)
    literal = threads_then_tree(x, lambda a, b: np.float32(a) + np.float32(b), np.float32(-0.0))
    same_bits(golden.reduce(x, FUNCTIONS.index("SUM"), [0]), np.array([literal], np.float32))


# ---- validation ------------------------------------------------------------------------------------------------
def refusal(desc):
    dml = DMLCreateDevice(D3D12CreateDevice(None, D3D_FEATURE_LEVEL_11_0), DML_CREATE_DEVICE_FLAG_NONE)
    op_type = {"DML_ARGMAX_OPERATOR_DESC": DML_OPERATOR_ARGMAX, "DML_ARGMIN_OPERATOR_DESC": DML_OPERATOR_ARGMIN}.get(
        type(desc).__name__, DML_OPERATOR_REDUCE)
    try:
        dml.CreateOperator(DML_OPERATOR_DESC(Type=op_type, Desc=desc))
    except HResultError as error:
        return error.hresult, error.message
    return "validated"


def test_axes_are_checked():
    desc = reduce_desc("SUM", "FLOAT32", [2, 3], [1])
    desc.Axes = [2]
    assert refusal(desc) == (E_INVALIDARG, "Axes[0] is 2; InputTensor has 2 dimensions, so DML_OPERATOR_REDUCE "
                                           "takes axes 0 to 1.")
    desc = reduce_desc("SUM", "FLOAT32", [2, 3], [0, 1])
    desc.Axes = [1, 1]
    assert refusal(desc) == (E_INVALIDARG, "Axes[1] is 1, which Axes already names; dmlemu requires each axis once.")
    desc = reduce_desc("SUM", "FLOAT32", [2, 3], [1])
    desc.AxisCount = 2
    assert refusal(desc) == (E_INVALIDARG, "AxisCount is 2 but Axes has 1 elements; they must agree.")


def test_the_output_sizes_must_be_the_inputs_with_ones_on_the_axes():
    desc = reduce_desc("SUM", "FLOAT32", [2, 3], [1])
    desc.OutputTensor = tensor("FLOAT32", [2, 3])
    assert refusal(desc) == (E_INVALIDARG, "OutputTensor.Sizes is {2,3}; DML_OPERATOR_REDUCE with InputTensor.Sizes "
                                           "{2,3} and Axes {1} needs {2,1} (the reduced axes of size 1).")
    desc.OutputTensor = tensor("FLOAT32", [2])
    assert refusal(desc)[0] == E_INVALIDARG


def test_each_functions_support_rows_are_its_own():
    schema = SCHEMAS_BY_NAME["REDUCE"]
    for entry in schema.support_by:
        row = entry.support_at(DML_FEATURE_LEVEL_6_4)
        for function in entry.values:
            for type_name in DTYPES:
                allowed = type_name in row.tensors["InputTensor"].data_types
                if type_name in ("INT64", "UINT64") and not allowed:
                    continue      # the sentence names the 64-bit rule of the row in force: tested above
                out_type = type_name if entry.same_type else "UINT32"
                result = refusal(reduce_desc(function, type_name, [2, 3], [1], out_type=out_type))
                if not allowed:
                    assert result == (E_INVALIDARG, f"InputTensor.DataType is DML_TENSOR_DATA_TYPE_{type_name}; "
                                      f"DML_FEATURE_LEVEL_6_4 allows {', '.join(row.tensors['InputTensor'].data_types)} "
                                      f"for InputTensor of DML_OPERATOR_REDUCE with Function "
                                      f"DML_REDUCE_FUNCTION_{function}."), (function, type_name)
                else:
                    assert result == "validated", (function, type_name, result)
    mixed = reduce_desc("SUM", "FLOAT32", [2, 3], [1], out_type="FLOAT16")
    assert refusal(mixed) == (E_INVALIDARG, "OutputTensor.DataType is DML_TENSOR_DATA_TYPE_FLOAT16 but "
                                            "InputTensor.DataType is DML_TENSOR_DATA_TYPE_FLOAT32; DML_OPERATOR_REDUCE "
                                            "requires the same DataType with Function DML_REDUCE_FUNCTION_SUM.")


def test_types_without_a_kernel_are_e_notimpl_at_compile(monkeypatch):
    # every type the tables allow has a kernel now: a row without one answers E_NOTIMPL with its sentence
    from dmlemu.kernels import reduce_ops
    monkeypatch.setitem(reduce_ops.OPERATORS["REDUCE"].functions, "L1",
                        reduce_ops.ReduceFunction(types=("FLOAT32",), identity={}, combine={}))
    with pytest.raises(HResultError) as error:
        run_operator(reduce_desc("L1", "INT32", [2, 3], [1]), [np.ones((2, 3), np.int32)])
    assert error.value.hresult == E_NOTIMPL
    assert "REDUCE L1 serves FLOAT32, not INT32 to INT32" in error.value.message


@pytest.mark.parametrize("function", ["SUM", "MULTIPLY", "MAX", "MIN", "L1", "SUM_SQUARE"])
@pytest.mark.parametrize("type_name", ["INT64", "UINT64", "INT32", "UINT32"])
def test_32_and_64_bit_integers_wrap_and_compare_as_their_type(function, type_name):
    rng = np.random.default_rng(7)
    x = values(rng, type_name, (3, 700))
    if function == "MULTIPLY":
        x = (x % 5 + 1).astype(x.dtype)
    (got,) = run_operator(reduce_desc(function, type_name, [3, 700], [1]), [x])
    dtype = DTYPES[type_name]
    reference = {"SUM": lambda: x.sum(1, dtype=dtype), "MULTIPLY": lambda: x.prod(1, dtype=dtype),
                 "MAX": lambda: x.max(1), "MIN": lambda: x.min(1), "L1": lambda: np.abs(x).sum(1, dtype=dtype),
                 "SUM_SQUARE": lambda: (x * x).sum(1, dtype=dtype)}[function]()
    assert got[:, 0].tolist() == reference.tolist()
    same_bits(got, expected(x, function, [1]))


def test_log_sum_exp_of_infinities_and_nans_is_the_maximum():
    nan, inf = np.float32(np.nan), np.float32(np.inf)
    x = np.array([[inf, 1, 2], [-inf, -inf, -inf], [nan, nan, nan], [nan, 1, 2], [1000, 1000, -inf]], np.float32)
    (got,) = run_operator(reduce_desc("LOG_SUM_EXP", "FLOAT32", [5, 3], [1]), [x])
    assert got[:3, 0].tolist()[:2] == [np.inf, -np.inf] and np.isnan(got[2:4, 0]).all()
    assert abs(got[4, 0] - (1000 + np.log(2))) < 1e-3


# ---- DML_OPERATOR_ARGMAX / ARGMIN (FL3_0): REDUCE's ARGMAX / ARGMIN with an AxisDirection ------------------------------
def arg_desc(name, type_name, sizes, axes, out_type="UINT32", direction=0, in_strides=None):
    out_sizes = [1 if d in axes else s for d, s in enumerate(sizes)]
    desc_type = DML_ARGMAX_OPERATOR_DESC if name == "ARGMAX" else DML_ARGMIN_OPERATOR_DESC
    return desc_type(InputTensor=tensor(type_name, sizes, in_strides), OutputTensor=tensor(out_type, out_sizes),
                     Axes=list(axes), AxisDirection=direction)


def test_the_argmax_page_examples():
    x = np.array([[1, 2, 3], [3, 0, 4], [2, 5, 2]], dtype=np.float32)
    for axes, result in (([0], [[1, 2, 1]]), ([1], [[2], [2], [1]]), ([0, 1], [[7]])):
        (got,) = run_operator(arg_desc("ARGMAX", "FLOAT32", [3, 3], axes), [x])
        assert got.tolist() == result
    x = np.array([3, 2, 1, 2, 3], dtype=np.float32)
    assert run_operator(arg_desc("ARGMAX", "FLOAT32", [5], [0]), [x])[0].tolist() == [0]
    assert run_operator(arg_desc("ARGMAX", "FLOAT32", [5], [0], direction=1), [x])[0].tolist() == [4]
    assert run_operator(arg_desc("ARGMIN", "FLOAT32", [5], [0], direction=1), [x])[0].tolist() == [2]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["ARGMAX", "ARGMIN"]), st.sampled_from(sorted(set(DTYPES) - {"INT64", "UINT64"})), st.integers(1, 5),
       st.sampled_from(["UINT32", "INT32", "UINT64", "INT64"]), st.integers(0, 1), st.booleans(),
       st.integers(0, 2 ** 32 - 1))
def test_drawn_argmax_and_argmin_operators_are_bit_exact(name, type_name, rank, out_type, direction, layout, seed):
    rng = np.random.default_rng(seed)
    sizes = [int(rng.integers(1, 9 if rank > 2 else 300)) for _ in range(rank)]
    axes = sorted(rng.choice(rank, size=int(rng.integers(1, rank + 1)), replace=False).tolist())
    x = values(rng, type_name, sizes, special=True)
    if type_name not in ("FLOAT32", "FLOAT16"):
        x = (x % 5).astype(x.dtype)      # many ties
    in_strides = layout_strides(sizes, "padded" if layout else "packed", rng)[0]
    (got,) = run_operator(arg_desc(name, type_name, sizes, axes, out_type, direction, in_strides), [x])
    same_bits(got, golden.run(name, [x], {"Axes": tuple(axes), "AxisDirection": direction}, output_type=out_type))
    if type_name not in ("FLOAT32", "FLOAT16") and len(axes) == 1:
        pick = np.argmax if name == "ARGMAX" else np.argmin
        along = x if direction == 0 else np.flip(x, axes[0])
        index = pick(along, axis=axes[0])
        index = index if direction == 0 else sizes[axes[0]] - 1 - index
        assert got.ravel().tolist() == index.ravel().tolist()


def test_the_argmax_operator_is_refused_below_its_level_and_for_float_outputs():
    desc = arg_desc("ARGMAX", "FLOAT32", [2, 3], [1], out_type="FLOAT32")
    assert refusal(desc) == (E_INVALIDARG, "OutputTensor.DataType is DML_TENSOR_DATA_TYPE_FLOAT32; "
                                           "DML_FEATURE_LEVEL_6_4 allows INT64, INT32, UINT64, UINT32 for OutputTensor "
                                           "of DML_OPERATOR_ARGMAX.")
