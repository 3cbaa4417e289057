"""HARDMAX's kernel paths (kernels/softmax.s): the pairs (kernels/softmax_pairs.inc: FLOAT32 rows of stride 1 whose
row offsets are even, read and written two elements a load, zeros then the one) and the element-at-a-time path
(odd row strides, FLOAT16, strided axes), both with the thread's strict "greater than the best so far" step
(kernels/hardmax_step.inc), bit for bit against the golden model on wave widths 8 to 64: rows full of ties, signed
zeros, infinities and NaN (all NaN, NaN before -inf), every length around the trips' edges (the four-unit trips, the
single units, an odd last element), rows of more than 32768 (1024 threads: the loads' offsets in a register), padded
rows whose gaps the kernel must leave alone; and nothing read or written outside the tensors."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from dmlemu import golden
from dmlemu.direct_run import DirectRun
from dmlemu.gpu import Gpu
from dmlemu.kernels.driver import TensorSpec
from dmlemu.presets import RX_7900_XTX
from tensor_layouts import same_bits

GAP = 0x7FBADBAD          # the output's gaps before the dispatch: a NaN payload no result can have
POOL = np.array([-2.0, -1.0, -0.0, 0.0, 1.0, 2.0, np.inf, -np.inf, np.nan], np.float32)


def hardmax_rows(x, row_stride, width, out_stride=None):
    """HARDMAX1 over the last axis of the (rows, N) array `x` whose rows lie `row_stride` elements apart in the input
    (`out_stride` in the output; default the same): (result, the output's gaps, program name, dispatch stats)."""
    rows, count = x.shape
    out_stride = row_stride if out_stride is None else out_stride
    dtype = x.dtype
    buffers, specs = [], []
    for stride, fill in ((row_stride, 0), (out_stride, GAP)):
        flat = np.full((rows - 1) * stride + count, fill, np.uint32).astype(
            np.uint16 if dtype == np.float16 else np.uint32)
        buffers.append(flat)
        specs.append(TensorSpec({np.dtype(np.float32): "FLOAT32", np.dtype(np.float16): "FLOAT16"}[dtype],
                                x.shape, [stride, 1], flat.nbytes))
    rows_in = np.lib.stride_tricks.as_strided(buffers[0].view(dtype), x.shape, (row_stride * dtype.itemsize,
                                                                                 dtype.itemsize))
    rows_in[...] = x
    gpu = Gpu(RX_7900_XTX, wave_width=width, timing=False)
    run = DirectRun(gpu, "ACTIVATION_HARDMAX1", specs, [b.view(np.uint8) for b in buffers], attributes={"Axes": (1,)})
    stats = run.dispatch()
    out = run.output_bytes(1)[:buffers[1].nbytes].view(buffers[1].dtype).copy()
    name = run.kernel.program.name
    run.free()
    got = np.lib.stride_tricks.as_strided(out.view(dtype), x.shape, (out_stride * dtype.itemsize, dtype.itemsize))
    inside = np.zeros(out.size, bool)
    np.lib.stride_tricks.as_strided(inside, x.shape, (out_stride, 1))[...] = True
    return got.copy(), out[~inside], name, stats


def check(x, row_stride, width, out_stride=None, pairs=None):
    got, gaps, name, stats = hardmax_rows(x, row_stride, width, out_stride)
    same_bits(got, golden.run("ACTIVATION_HARDMAX1", [x], {"Axes": (1,)}))
    assert (gaps == (GAP if x.dtype == np.float32 else GAP & 0xFFFF)).all(), "a gap between rows was written"
    assert stats.oob_reads == 0 and stats.oob_writes == 0
    if pairs is not None:
        assert name.endswith("_pairs") == pairs, name


@st.composite
def rows(draw):
    """(x, input row stride, output row stride): a few rows of N FLOAT32 from a small pool (ties everywhere), some
    rows all NaN or NaN and -inf only, the strides packed or padded (even: the pairs; odd: one element a load)."""
    count = draw(st.one_of(st.integers(1, 20), st.sampled_from([63, 64, 127, 128, 129, 383, 384, 385, 386, 511, 512,
                                                                 513, 767, 768, 769, 1023, 1024, 1025]),
                           st.integers(20, 1500)))
    n_rows = draw(st.integers(1, 5))
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    x = rng.choice(POOL[:draw(st.sampled_from([6, 8, 9]))], size=(n_rows, count)).astype(np.float32)
    for r in range(n_rows):
        kind = draw(st.sampled_from(["as drawn", "as drawn", "all NaN", "NaN and -inf", "one NaN"]))
        if kind == "all NaN":
            x[r] = np.nan
        elif kind == "NaN and -inf":
            x[r] = np.where(rng.random(count) < 0.5, np.nan, -np.inf)
        elif kind == "one NaN":
            x[r, rng.integers(count)] = np.nan
    pad_in = draw(st.sampled_from([0, 0, 1, 2, 3]))
    pad_out = draw(st.sampled_from([pad_in, 0, 2, 5]))
    return x, count + pad_in, count + pad_out


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows(), st.sampled_from([8, 16, 32, 64]))
def test_drawn_rows_are_bit_exact_on_both_paths(case, width):
    x, row_stride, out_stride = case
    pairs = x.shape[1] > 1 and (x.shape[0] == 1 or (row_stride % 2 == 0 and out_stride % 2 == 0))
    check(x, row_stride, width, out_stride, pairs=pairs)


@pytest.mark.parametrize("count", [32768 + 1, 40000, 40001])
def test_rows_past_32768_elements_take_their_offsets_from_a_register(count):
    rng = np.random.default_rng(count)
    x = rng.choice(POOL[:6], size=(2, count)).astype(np.float32)
    x[0, -1] = 3.0                       # the first maximum, last of all
    x[1, [count - 3, count - 2]] = 3.0   # a tie inside the last pair: the first of them
    check(x, count + count % 2 + 2, 32, pairs=True)      # an even row stride


@pytest.mark.parametrize("width", [8, 32, 64])
def test_special_rows(width):
    x = np.array([[np.nan] * 5,                                  # every element NaN: 1 at 0
                  [np.nan, np.nan, -np.inf, np.nan, -np.inf],    # the first -inf
                  [-0.0, 0.0, -0.0, np.nan, -1.0],               # -0 == +0: the first of them
                  [np.nan, 0.0, -0.0, 0.0, np.nan],
                  [1.0, np.inf, np.nan, np.inf, np.inf],
                  [-np.inf, -np.inf, -np.inf, -np.inf, -np.inf]], np.float32)
    got, _, _, _ = hardmax_rows(x, 6, width)
    assert [int(np.flatnonzero(r)[0]) for r in got] == [0, 2, 0, 1, 1, 0]
    assert (got.sum(axis=1) == 1).all()
    check(x, 6, width, pairs=True)
    check(x, 5, width, pairs=False)                              # odd row stride: one element a load


@pytest.mark.parametrize("width", [16, 64])
def test_float16_takes_the_element_path(width):
    rng = np.random.default_rng(5)
    x = rng.choice(POOL, size=(3, 300)).astype(np.float16)
    x[1] = np.nan
    check(x, 300, width, pairs=False)


@pytest.mark.parametrize("n_rows, count, pairs", [(3, 90, True), (1, 91, True), (3, 91, False)])
def test_both_paths_agree_with_the_reference_executor(n_rows, count, pairs):
    """The fast executor (dwordx2 rows, an odd last element, the masked thread-0 find and store; the element path)
    against the per-lane reference executor."""
    from reference_executor import run_launch
    rng = np.random.default_rng(count)
    x = rng.choice(POOL, size=(n_rows, count)).astype(np.float32)
    x[-1, :count // 2] = np.nan
    specs = [TensorSpec("FLOAT32", x.shape, None, x.nbytes)] * 2
    results = []
    for reference in (False, True):
        gpu = Gpu(RX_7900_XTX, wave_width=16, timing=False)
        run = DirectRun(gpu, "ACTIVATION_HARDMAX1", specs, [x.view(np.uint8).reshape(-1), np.zeros(x.nbytes, np.uint8)],
                        attributes={"Axes": (1,)})
        assert run.kernel.program.name.endswith("_pairs") == pairs       # rows of 91 after another: odd offsets
        if reference:
            run_launch(run.launch(), gpu.memory, 16)
        else:
            run.dispatch()
        results.append(run.output_bytes(1)[:x.nbytes].view(np.float32).reshape(x.shape).copy())
        run.free()
    same_bits(results[0], results[1])
    same_bits(results[0], golden.run("ACTIVATION_HARDMAX1", [x], {"Axes": (1,)}))


@pytest.mark.parametrize("count, pairs", [(4096, True), (4095, False)])
def test_every_read_comes_before_the_first_write(count, pairs):
    """The output in the input's memory (DirectRun's aliasing; the mirror refuses in-place HARDMAX, a graph may not
    plan it either, but the kernel reads a row, its winning pair included, before it writes any of it)."""
    rng = np.random.default_rng(count)
    x = rng.choice(POOL, size=(4, count)).astype(np.float32)
    specs = [TensorSpec("FLOAT32", x.shape, None, x.nbytes)] * 2
    gpu = Gpu(RX_7900_XTX, wave_width=32, timing=False)
    run = DirectRun(gpu, "ACTIVATION_HARDMAX1", specs, [x.view(np.uint8).reshape(-1), 0], attributes={"Axes": (1,)})
    assert run.kernel.program.name.endswith("_pairs") == pairs
    run.dispatch()
    got = run.output_bytes(0)[:x.nbytes].view(np.float32).reshape(x.shape).copy()
    run.free()
    same_bits(got, golden.run("ACTIVATION_HARDMAX1", [x], {"Axes": (1,)}))
