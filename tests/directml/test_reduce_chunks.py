"""REDUCE above 16,384 elements per output: one dispatch, chunks' partials in the temporary resource, the
last chunk's workgroup of each output reducing them once every chunk has counted its own (docs/NUMERICS.md,
"Reductions", "Chunks").

Drawn chunked descs through the mirror, bit for bit against the golden model (which splits the same way); the
counters back at zero after every execution, whatever order the workgroups finish in (the executor's batch
size, a shorter last chunk); the binding properties (the temporary resource and its descriptor slot) and a
missing temporary binding; a graph whose REDUCE node splits; the modelled DRAM efficiency of REDUCE SUM over
2^24 FLOAT32 elements (the issue's "memory-bound on the large presets")."""
import contextlib
import io

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from dmlemu import golden, run_operator
from dmlemu.d3d12 import *  # noqa: F401,F403
from dmlemu.directml import *  # noqa: F401,F403
from dmlemu.direct_run import DirectRun
from dmlemu.gpu import Gpu
from dmlemu.golden.reduce import FUNCTIONS
from dmlemu.kernels.driver import TensorSpec
from dmlemu.kernels.reduce_ops import CHUNK, CHUNK_LANES, CHUNKED, chunks_for
from dmlemu.presets import H200, RX_7900_XTX, TEACHING
from mirror_rig import MirrorRig, buffer_binding
from tensor_layouts import layout_strides, same_bits, tensor
from test_graph import GraphSpec, assert_graph_matches, clip, graph_desc, identity, run_graph
from test_graph import op as graph_op
from test_graph import tensor as graph_tensor
from test_reduce import expected, reduce_desc, values

TYPES = {"SUM": ("FLOAT32", "FLOAT16", "INT32"), "AVERAGE": ("FLOAT32", "FLOAT16"), "MULTIPLY": ("FLOAT32",),
         "SUM_SQUARE": ("FLOAT32", "UINT32"), "L1": ("FLOAT32", "INT32"), "L2": ("FLOAT32", "FLOAT16"),
         "LOG_SUM": ("FLOAT32",), "MAX": ("FLOAT32", "INT8", "UINT16"), "MIN": ("FLOAT16", "INT16", "UINT8")}


def test_which_reductions_split():
    assert set(TYPES) == set(CHUNKED)
    assert chunks_for("SUM", "FLOAT32", CHUNK) == 1 and chunks_for("SUM", "FLOAT32", CHUNK + 1) == 2
    assert chunks_for("SUM", "FLOAT16", 1 << 24) == 1024
    for function, type_name in (("ARGMAX", "FLOAT32"), ("LOG_SUM_EXP", "FLOAT32"), ("SUM", "INT64")):
        assert chunks_for(function, type_name, 1 << 20) == 1


@st.composite
def chunked_cases(draw):
    function = draw(st.sampled_from(sorted(TYPES)))
    type_name = draw(st.sampled_from(TYPES[function]))
    count = draw(st.integers(CHUNK + 1, 3 * CHUNK + 7))
    kept = draw(st.integers(1, 3))
    if draw(st.booleans()):       # the reduced axis last (a unit stride when packed), or first
        sizes, axes = [kept, count], [1]
    else:
        sizes, axes = [count, kept], [0]
    if draw(st.booleans()):       # split the reduced elements over two axes (several reduced records)
        half = draw(st.sampled_from([2, 3]))
        sizes = [half, -(-count // half)] + [kept]
        axes = [0, 1]
    layout = draw(st.sampled_from(["packed", "padded", "permuted"]))
    return function, type_name, sizes, axes, layout, draw(st.booleans()), draw(st.integers(0, 2 ** 32 - 1))


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(chunked_cases(), st.sampled_from([RX_7900_XTX, TEACHING]))
def test_drawn_chunked_reductions_are_bit_exact(case, preset):
    function, type_name, sizes, axes, layout, special, seed = case
    rng = np.random.default_rng(seed)
    in_strides, _ = layout_strides(sizes, layout, rng)
    x = values(rng, type_name, sizes, special)
    if function in ("MULTIPLY", "LOG_SUM") and type_name.startswith("FLOAT") and not special:
        x = (1 + np.abs(x) * 1e-6).astype(x.dtype)      # a product and a log sum of something not 0 or inf
    (got,) = run_operator(reduce_desc(function, type_name, sizes, axes, in_strides), [x], adapter=preset)
    same_bits(got, expected(x, function, axes))


def _counters(run):
    """The outputs' counters: the dwords after the constants' two parts (reduce_ops.OneDispatch)."""
    return run.constants.data[len(run.kernel.constants) - 12:len(run.kernel.constants)].view(np.uint32)


@pytest.mark.parametrize("batch_lanes", [None, CHUNK_LANES, 3 * CHUNK_LANES])
def test_one_dispatch_on_every_wave_width_and_batch_size(batch_lanes):
    """Three outputs of three chunks, the last one shorter (its workgroup leaves the chunk loop first, so the
    executor runs it apart); one workgroup a batch (the last chunk's counts its output's partials after the
    others), three (a batch holds one output), or all: the same bits, one dispatch, the counters back at 0
    after each of two executions."""
    x = values(np.random.default_rng(5), "FLOAT32", (3, 2 * CHUNK + 100), special=True)
    outs = []
    for width in (8, 16, 32, 64):
        gpu = Gpu(RX_7900_XTX, wave_width=width, timing=False)
        if batch_lanes:
            gpu.dispatcher.batch_lanes = batch_lanes
        specs = [TensorSpec("FLOAT32", x.shape, None, x.nbytes), TensorSpec("FLOAT32", (3, 1), None, 12)]
        run = DirectRun(gpu, "REDUCE", specs, [x.view(np.uint8).reshape(-1), np.zeros(12, np.uint8)],
                        attributes={"Function": FUNCTIONS.index("L1"), "Axes": (1,)})
        for _ in range(2):
            run.dispatch()
            (stats,) = run.stats
            assert stats.workgroups == 3 * 3 and stats.waves == 9 * -(-CHUNK_LANES // width)
            assert run.kernel.temporary_bytes == 256     # 9 partials of 4 bytes, 256-byte aligned
            assert _counters(run).tolist() == [0, 0, 0]
            outs.append(run.output_bytes(1)[:12].view(np.float32).copy())
        run.free()
    for out in outs:
        same_bits(out.reshape(3, 1), expected(x, "L1", (1,)))


def test_the_reference_executor_agrees_on_the_count_and_the_partials():
    """The per-lane reference executor (one wave at a time, workgroups in order) runs the chunks, the count
    and the last chunk's reduction of the partials to the golden model's bits, the counter back at 0."""
    import sys
    import os
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "oracles"))
    from reference_executor import run_launch
    x = values(np.random.default_rng(6), "FLOAT32", (1, CHUNK + 300))
    gpu = Gpu(TEACHING, wave_width=32, timing=False)
    specs = [TensorSpec("FLOAT32", x.shape, None, x.nbytes), TensorSpec("FLOAT32", (1, 1), None, 4)]
    run = DirectRun(gpu, "REDUCE", specs, [x.view(np.uint8).reshape(-1), np.zeros(4, np.uint8)],
                    attributes={"Function": FUNCTIONS.index("SUM"), "Axes": (1,)})
    run_launch(run.launch(), gpu.memory, 32)
    same_bits(run.output_bytes(1)[:4].view(np.float32).reshape(1, 1), expected(x, "SUM", (1,)))
    assert run.constants.data[len(run.kernel.constants) - 4:len(run.kernel.constants)].view(np.uint32)[0] == 0
    run.free()


def test_strict_host_mode_reads_both_stages_constants_and_the_counters_in_the_persistent_resource(monkeypatch):
    monkeypatch.setenv("DMLEMU_STRICT_HOST", "1")
    x = values(np.random.default_rng(8), "FLOAT32", (2, 2 * CHUNK + 3))
    (got,) = run_operator(reduce_desc("AVERAGE", "FLOAT32", [2, 2 * CHUNK + 3], [1]), [x])
    same_bits(got, expected(x, "AVERAGE", (1,)))


def _compiled(rig, sizes, axes):
    return rig.compile(DML_OPERATOR_DESC(Type=int(DML_OPERATOR_REDUCE), Desc=reduce_desc("SUM", "FLOAT32", sizes, axes)))


def test_binding_properties_name_the_temporary_resource_and_its_slot():
    rig = MirrorRig(dml_flags=DML_CREATE_DEVICE_FLAG_DEBUG)
    props = _compiled(rig, [2, 5 * CHUNK], [1]).GetBindingProperties()
    assert (props.RequiredDescriptorCount, props.TemporaryResourceSize) == (3, 256)   # 10 partials
    props = _compiled(rig, [1 << 20], [0]).GetBindingProperties()
    assert (props.RequiredDescriptorCount, props.TemporaryResourceSize) == (3, 256)
    props = _compiled(rig, [100, 1 << 16], [1]).GetBindingProperties()
    assert props.TemporaryResourceSize == 1792       # 400 partials of 4 bytes, 256-byte aligned
    props = _compiled(rig, [4, CHUNK], [1]).GetBindingProperties()
    assert (props.RequiredDescriptorCount, props.TemporaryResourceSize) == (2, 0)     # one dispatch


def test_a_split_reduce_without_its_temporary_resource_is_refused_at_record_time():
    rig = MirrorRig(dml_flags=DML_CREATE_DEVICE_FLAG_DEBUG)
    compiled = _compiled(rig, [CHUNK + 1], [0])
    rig.initialize(compiled)
    rig.execute()
    table = rig.table(compiled, size=3)
    x, y = rig.buffer(4 * (CHUNK + 1)), rig.buffer(256)
    table.BindInputs([buffer_binding(x, 0, 4 * (CHUNK + 1))])
    table.BindOutputs([buffer_binding(y, 0, 4)])
    with contextlib.redirect_stderr(io.StringIO()):
        assert rig.recorder.RecordDispatch(rig.list, compiled, table) is None
    assert rig.dml.GetDeviceRemovedReason() == E_INVALIDARG


def test_a_graph_with_a_split_reduce_node_matches_its_nodes_one_by_one():
    x, r = graph_tensor([3, CHUNK + 5000]), graph_tensor([3, 1])
    reduce_node = graph_op("REDUCE", Function=DML_REDUCE_FUNCTION_SUM, InputTensor=x, OutputTensor=r, Axes=[1])
    spec = GraphSpec(nodes=[(clip(x, -1.0, 2.0), "clip"), (reduce_node, "reduce"),
                            (identity(r, scale_bias=(3.0, 1.0)), "scale")],
                     input_count=1, output_count=1, inputs=[(0, 0, 0)],
                     intermediates=[(0, 0, 1, 0), (1, 0, 2, 0)], outputs=[(2, 0, 0)])
    data = np.random.default_rng(2).uniform(-4, 4, 3 * (CHUNK + 5000)).astype(np.float32).view(np.uint8)
    assert_graph_matches(spec, [data])
    rig = MirrorRig(dml_flags=DML_CREATE_DEVICE_FLAG_DEBUG, heap_slots=64)
    (_,), trace = run_graph(rig, spec, [data], trace=True, fuse=False)
    assert [str(n).split(":")[0] for n in trace.dispatches["name"]] == ["clip", "reduce", "scale"]
    graph = rig.dml.CompileGraph(graph_desc(rig.dml, spec), DML_EXECUTION_FLAG_NONE, fuse=False)
    props = graph.GetBindingProperties()
    # clip, reduce (and its partials' slot), scale; the intermediates' regions and the 6 partials' region
    assert props.RequiredDescriptorCount == 2 + 3 + 2
    assert props.TemporaryResourceSize == -(-3 * (CHUNK + 5000) * 4 // 256) * 256 + 256 + 256


# ---- the timing must-hold: memory-bound on the large presets ---------------------------------------------
def _sum_2_24(preset, axes):
    """REDUCE SUM over 2^24 FLOAT32 (4096 x 4096) with the timing model on: (per dispatch % of DRAM peak, the
    whole operator's % (first start to last end), DRAM bytes, the last dispatch's DispatchTiming)."""
    shape = (4096, 4096)
    x = np.zeros(shape, np.float32)
    out = tuple(1 if d in axes else s for d, s in enumerate(shape))
    gpu = Gpu(preset, timing=True)
    specs = [TensorSpec("FLOAT32", shape, None, x.nbytes), TensorSpec("FLOAT32", out, None, 4 * int(np.prod(out)))]
    run = DirectRun(gpu, "REDUCE", specs, [x.view(np.uint8).reshape(-1), np.zeros(specs[1].total_bytes, np.uint8)],
                    attributes={"Function": FUNCTIONS.index("SUM"), "Axes": axes})
    run.dispatch()
    peak = preset.dram_bytes_per_second / preset.clock_hz          # bytes per cycle
    each = [100 * s.timing.dram_bytes / s.cycles / peak for s in run.stats]
    cycles = run.stats[-1].start_cycle + run.stats[-1].cycles - run.stats[0].start_cycle
    dram = sum(s.timing.dram_bytes for s in run.stats)
    timing = run.stats[-1].timing
    run.free()
    return each, 100 * dram / cycles / peak, dram, timing


def test_a_reduce_of_2_24_floats_is_memory_bound():
    # RX 7900 XTX: one axis (4096 outputs) and every axis (1024 chunks, the last one's workgroup then reducing the
    # 1024 partials), one dispatch each.
    each, whole, dram, _ = _sum_2_24(RX_7900_XTX, (1,))
    assert len(each) == 1 and whole >= 70 and dram < 1.01 * 4 * (1 << 24)
    each, whole, dram, _ = _sum_2_24(RX_7900_XTX, (0, 1))
    assert len(each) == 1 and whole >= 70 and dram < 1.01 * 4 * (1 << 24)
    # H200: every axis in one dispatch, no second launch nor the UAV barrier's flush before it (bench_reduce.py).
    each, whole, _, timing = _sum_2_24(H200, (0, 1))
    assert len(each) == 1 and whole >= 70
    # the trees' barrier waits and LDS traffic are still there (the timeline's bars)
    assert timing.barrier_wait_cycles > 0 and timing.lds_passes > 0
