"""run(model, inputs): an ONNX model on the emulated GPU, end to end.

convert (importer.py: the model -> one DML graph, refused with a ConversionError before any GPU work),
create each node's IDMLOperator and make ONE IDMLDevice1::CompileGraph call (a refusal there, E_NOTIMPL
for an operator dmlemu has no kernel for yet, is a ConversionError naming the ONNX node), then the host
program (host.py): initialize, upload, bind, dispatch, read back. `execute` returns everything the CLI
reports (the trace, and which ONNX nodes each dispatch ran); `run` returns the outputs.
"""
import dataclasses
import os

import numpy as np

from dmlemu.directml import DML_TENSOR_FLAG_OWNED_BY_DML
from dmlemu.errors import E_NOTIMPL, HResultError
from dmlemu.onnx.errors import ConversionError
from dmlemu.onnx.importer import convert, numpy_type

__all__ = ["run", "execute", "ModelRun", "Dispatch"]


@dataclasses.dataclass(frozen=True)
class Dispatch:
    """One dispatch of the compiled graph: the ONNX nodes it ran (in order, without repeats), the DML
    operators it ran, and its row in the trace's `dispatches` table."""
    onnx_nodes: tuple
    operators: tuple
    row: int


@dataclasses.dataclass
class ModelRun:
    """outputs: {output name: array} in the model's order; trace: the traces.Trace of the execution;
    dispatches: a Dispatch per dispatch, in order; converted: the importer's Converted; preset;
    differing: with check_golden, the outputs whose bytes differ from the golden nodes one by one
    (None when not checked)."""
    outputs: dict
    trace: object
    dispatches: list
    converted: object
    preset: object
    differing: list = None


def _check_inputs(converted, inputs):
    inputs = dict(inputs or {})
    for name in inputs:
        if name not in converted.model_inputs:
            raise ValueError(f"inputs has \"{name}\", which is no input of the model (its inputs: "
                             f"{', '.join(converted.model_inputs) or 'none'})")
    checked = {}
    for name, (shape, element_type) in converted.model_inputs.items():
        if name not in inputs:
            raise ValueError(f"inputs lacks the model input \"{name}\" ({list(shape)}, {numpy_type(element_type)})")
        array = np.asarray(inputs[name])
        if list(array.shape) != list(shape) or array.dtype != numpy_type(element_type):
            raise ValueError(f"input \"{name}\" is {array.dtype} of shape {list(array.shape)}; the model takes "
                             f"{numpy_type(element_type)} of shape {list(shape)}")
        checked[name] = array
    return checked


def _sentence(error):
    return " ".join(str(error).split())


def compile_model(converted, host):
    """Every node's IDMLOperator, then one IDMLDevice1::CompileGraph; a refusal is a ConversionError naming
    the ONNX node(s). Where several DML operators have no kernel yet (E_NOTIMPL), the sentence names the first
    node and lists every such operator the model needs."""
    operators, missing, first = [], {}, None
    for node in converted.graph.nodes:
        try:
            operators.append(host.dml.CreateOperator(node.operator_desc()))
        except HResultError as error:
            ops = ", ".join(dict.fromkeys(node.onnx_ops))
            if error.hresult != E_NOTIMPL:
                raise ConversionError(f"node \"{node.name}\" ({ops}) cannot be converted: IDMLDevice::CreateOperator "
                                      f"refused its DML_OPERATOR_{node.operator}: {_sentence(error)}") from None
            missing.setdefault(node.operator, 0)
            missing[node.operator] += 1
            first = first or (node, ops)
    if first is not None:
        node, ops = first
        others = [f"DML_OPERATOR_{op}" for op in missing if op != node.operator]
        also = f"; the model also needs {', '.join(others)}" if others else ""
        raise ConversionError(f"node \"{node.name}\" ({ops}) cannot be converted: this dmlemu has no "
                              f"DML_OPERATOR_{node.operator} yet (IDMLDevice::CreateOperator answered E_NOTIMPL){also}")
    made = iter(operators)
    desc = converted.graph.graph_desc(converted.outputs, lambda node: next(made))
    try:
        return host.compile(desc)
    except HResultError as error:
        raise ConversionError(f"the model's DML graph ({len(converted.graph.nodes)} nodes) cannot be compiled: "
                              f"IDMLDevice1::CompileGraph refused it: {_sentence(error)}") from None


def execute(model, inputs, adapter=None, timing=True, on_dispatch=None, on_compiled=None, check_golden=False,
            owned_constants=True):
    """Convert, compile and run `model` on {input name: array}; returns a ModelRun. `on_compiled(dispatches)`
    is called with the Dispatch list once the graph is compiled, `on_dispatch(i)` as dispatch i ends;
    `check_golden`: also run the DML nodes one by one through dmlemu.golden (golden_check.py) and list the
    outputs whose bytes differ in ModelRun.differing; `owned_constants`: the model's constants as
    DML_TENSOR_FLAG_OWNED_BY_DML graph inputs (bound at initialization), else bound at execution."""
    from dmlemu.directml.inspection import inspect
    from dmlemu.onnx.host import Host
    converted = convert(model, owned_constants)
    feeds = _check_inputs(converted, inputs)
    host = Host(adapter, timing=timing)
    compiled = compile_model(converted, host)
    units = inspect(compiled).units
    dispatches = []
    for row, unit in enumerate(units):
        nodes = [converted.graph.nodes[k] for k in unit.nodes]
        names = tuple(dict.fromkeys(name for node in nodes for name in node.onnx_nodes))
        dispatches.append(Dispatch(names, tuple(node.operator for node in nodes), row))
    if on_compiled is not None:
        on_compiled(dispatches)
    sizes = [view.tensor.Desc.TotalTensorSizeInBytes for view in converted.outputs]
    graph_inputs = converted.graph_inputs(feeds)
    owned = [bool(view.tensor.Desc.Flags & DML_TENSOR_FLAG_OWNED_BY_DML) for _, view, _ in converted.graph.inputs]
    results, trace = host.execute(compiled, graph_inputs, sizes, owned, on_dispatch)
    differing = None
    if check_golden:
        from dmlemu.onnx.golden_check import golden_outputs
        expected = golden_outputs(converted, graph_inputs, inspect(host.dml).feature_level, host.preset)
        differing = [name for name, got, want, shape, element_type in
                     zip(converted.output_names, results, expected, converted.output_shapes, converted.output_types)
                     if not np.array_equal(got[:want.size], want)]
    outputs = {}
    for name, data, view, shape, element_type in zip(converted.output_names, results, converted.outputs,
                                                     converted.output_shapes, converted.output_types):
        dtype = numpy_type(element_type)
        array = np.frombuffer(data.tobytes(), np.uint8 if dtype == bool else dtype)[:int(np.prod(shape))]
        outputs[name] = array.reshape(shape).astype(dtype, copy=True)
    return ModelRun(outputs, trace, dispatches, converted, host.preset, differing)


def run(model, inputs, adapter=None, timing=True, trace=None):
    """Run an ONNX model (a path or an onnx.ModelProto) on the emulated GPU.

    inputs: {graph input name: NumPy array} of the model's shapes and types. adapter: None (the default
    adapter), a preset key ("rx7900xtx", ...) or an AdapterPreset. timing: False runs emulation-only (the
    same bits, estimated time). trace: None, or a file to save the run's trace to (.json Chrome / Perfetto,
    .pftrace, .npz, .csv); each dispatch in it is named by its ONNX node(s).
    Returns {output name: array} in the model's output order. A model it cannot convert raises
    dmlemu.onnx.ConversionError (a ValueError) naming the node, the op and the reason, before any GPU work.
    """
    if trace is not None:
        from dmlemu.tools.tracefiles import _suffix
        _suffix(trace)
    result = execute(model, inputs, adapter=adapter, timing=timing)
    if trace is not None:
        from dmlemu.tools.tracefiles import save
        save(result.trace, os.fspath(trace))
    return result.outputs
