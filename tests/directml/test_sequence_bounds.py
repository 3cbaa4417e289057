"""Counts are bounded before anything is allocated: a lazy sequence argument (a range, the one the mirror
takes) is checked against its field's documented maximum by its length, and CompileGraph's InputCount and
OutputCount against what the graph can hold, each refused with E_INVALIDARG naming the field, the length and
the maximum; never a MemoryError, never a tuple of 10^18 elements.
"""
import tracemalloc

import pytest

from dmlemu.d3d12 import *  # noqa: F401,F403
from dmlemu.directml import *  # noqa: F401,F403
from dmlemu.directml.graph import MAX_GRAPH_INPUTS
from dmlemu.errors import E_INVALIDARG, HResultError
from mirror_rig import MirrorRig

HUGE = [range(1, 10 ** 18), range(10 ** 7), range(10 ** 20, 0, -1)]
DIMENSIONS = "a DirectML tensor has at most 8 dimensions (DML_TENSOR_DIMENSION_COUNT_MAX1)"
F32 = DML_TENSOR_DATA_TYPE_FLOAT32


def refused(call):
    """The E_INVALIDARG sentence of `call`, which must allocate less than 16 MiB on the way (a tuple of the
    10^7-element range alone would take 80 MB)."""
    tracemalloc.start()
    try:
        with pytest.raises(HResultError) as info:
            call()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert info.value.hresult == E_INVALIDARG and peak < 16 << 20, (info.value, peak)
    return info.value.message


def tensor(sizes):
    return DML_TENSOR_DESC(Type=DML_TENSOR_TYPE_BUFFER, Desc=DML_BUFFER_TENSOR_DESC(
        DataType=F32, Sizes=sizes, TotalTensorSizeInBytes=64))


def clip(t):
    return DML_OPERATOR_DESC(Type=DML_OPERATOR_ELEMENT_WISE_CLIP, Desc=DML_ELEMENT_WISE_CLIP_OPERATOR_DESC(
        InputTensor=t, OutputTensor=tensor([16]), Min=0.0, Max=1.0))


@pytest.fixture(scope="module")
def rig():
    return MirrorRig(dml_flags=DML_CREATE_DEVICE_FLAG_NONE)


@pytest.mark.parametrize("values", HUGE, ids=["1..10^18", "10^7", "descending 10^20"])
def test_a_huge_range_is_refused_by_its_length(rig, values):
    n = values.start - values.stop if values.step < 0 else values.stop - values.start
    assert refused(lambda: rig.dml.CreateOperator(clip(tensor(values)))) == (
        f"InputTensor.Sizes is a range of {n} elements; {DIMENSIONS}.")
    assert refused(lambda: DMLCalcBufferTensorSize(F32, 2 ** 32 - 1, values, None)) == (
        f"DMLCalcBufferTensorSize sizes is a range of {min(n, 2 ** 32 - 1)} elements; {DIMENSIONS}.")
    assert refused(lambda: rig.dml.CheckFeatureSupport(DML_FEATURE_FEATURE_LEVELS, DML_FEATURE_QUERY_FEATURE_LEVELS(
        RequestedFeatureLevels=values))) == (
        f"featureQueryData.RequestedFeatureLevels is a range of {n} elements; a range repeats no value, and only "
        f"{len(DML_FEATURE_LEVEL)} values are DML_FEATURE_LEVEL values.")
    assert refused(lambda: rig.device.CheckFeatureSupport(D3D12_FEATURE_FEATURE_LEVELS,
                                                          D3D12_FEATURE_DATA_FEATURE_LEVELS(
                                                              pFeatureLevelsRequested=values))) == (
        f"CheckFeatureSupport: pFeatureLevelsRequested is a range of {n} elements; a range repeats no value, and "
        f"only {len(D3D_FEATURE_LEVEL)} values are D3D_FEATURE_LEVEL values.")
    assert refused(lambda: rig.dml.CreateOperatorInitializer(values)) == (
        f"operators is {values!r}; it must be a sequence of IDMLCompiledOperator.")
    assert refused(lambda: rig.dml.Evict(values)) == f"ppObjects is {values!r}; it must be a sequence of IDMLPageable."
    assert refused(lambda: rig.dml.MakeResident(values)) == (
        f"ppObjects is {values!r}; it must be a sequence of IDMLPageable.")


def test_dml_calc_buffer_tensor_size_reads_only_dimension_count_elements_of_a_range():
    assert DMLCalcBufferTensorSize(F32, 4, range(1, 10 ** 18), None) == DMLCalcBufferTensorSize(F32, 4, [1, 2, 3, 4],
                                                                                                 None) == 96
    assert DMLCalcBufferTensorSize(F32, 2, [4, 4], range(1, 10 ** 18)) == 40


def test_small_ranges_still_work(rig):
    rig.dml.CreateOperator(clip(tensor(range(16, 17))))
    levels = rig.dml.CheckFeatureSupport(DML_FEATURE_FEATURE_LEVELS, DML_FEATURE_QUERY_FEATURE_LEVELS(
        RequestedFeatureLevels=range(DML_FEATURE_LEVEL_1_0, DML_FEATURE_LEVEL_2_0 + 1, 0x1000)))
    assert levels.MaxSupportedFeatureLevel == DML_FEATURE_LEVEL_2_0


def graph(input_count, output_count, rig):
    node = DML_GRAPH_NODE_DESC(Type=DML_GRAPH_NODE_TYPE_OPERATOR, Desc=DML_OPERATOR_GRAPH_NODE_DESC(
        Operator=rig.dml.CreateOperator(clip(tensor([16]))), Name="clip"))
    edge = lambda kind, struct, **f: DML_GRAPH_EDGE_DESC(Type=kind, Desc=struct(**f))
    return DML_GRAPH_DESC(
        InputCount=input_count, OutputCount=output_count, Nodes=[node],
        InputEdges=[edge(DML_GRAPH_EDGE_TYPE_INPUT, DML_INPUT_GRAPH_EDGE_DESC, GraphInputIndex=0, ToNodeIndex=0,
                         ToNodeInputIndex=0)],
        OutputEdges=[edge(DML_GRAPH_EDGE_TYPE_OUTPUT, DML_OUTPUT_GRAPH_EDGE_DESC, FromNodeIndex=0,
                          FromNodeOutputIndex=0, GraphOutputIndex=0)])


def test_compile_graph_checks_input_count_and_output_count_before_sizing_anything(rig):
    assert refused(lambda: rig.dml.CompileGraph(graph(1, 2 ** 32 - 1, rig), DML_EXECUTION_FLAG_NONE)) == (
        "graph output 1 is written by no element of DML_GRAPH_DESC.OutputEdges; every graph output "
        "(DML_GRAPH_DESC.OutputCount is 4294967295) is written by exactly one output edge.")
    assert refused(lambda: rig.dml.CompileGraph(graph(2 ** 32 - 1, 1, rig), DML_EXECUTION_FLAG_NONE)) == (
        f"DML_GRAPH_DESC.InputCount is 4294967295; a graph has at most {MAX_GRAPH_INPUTS} inputs (dmlemu: each is a "
        f"binding, and a shader-visible descriptor heap holds at most {MAX_GRAPH_INPUTS} descriptors).")
    assert refused(lambda: rig.dml.CompileGraph(DML_GRAPH_DESC(InputCount=1, OutputCount=1, Nodes=range(10 ** 18)),
                                                DML_EXECUTION_FLAG_NONE)) == (
        f"DML_GRAPH_DESC.Nodes is {range(10 ** 18)!r}; it must be a sequence of structs.")
    rig.dml.CompileGraph(graph(3, 1, rig), DML_EXECUTION_FLAG_NONE)    # unused graph inputs stay allowed
