"""The converted model's DML nodes one by one through dmlemu.golden: what the emulated GPU must give bit
for bit (fusion never changes a bit, docs/GRAPHS.md).

Each node's desc is validated as CreateOperator validates it (validation.validate_operator_desc: the
attributes golden.run reads come from there), each input is read from the bytes its source holds with
the View's Sizes and Strides (stride 0 broadcasts), and each result is kept as its packed output's
bytes for the nodes after it.
"""
import numpy as np

from dmlemu import golden
from dmlemu.directml.validation import validate_operator_desc

__all__ = ["golden_outputs"]


def _read(data, view):
    return golden.gather(data, 0, golden.DATA_TYPES[view.type_name], tuple(view.sizes), tuple(view.strides))


def golden_outputs(converted, graph_inputs, feature_level, preset):
    """The bytes of each graph output (uint8 arrays, in order) when the DML nodes run one by one through
    dmlemu.golden on `graph_inputs` (one array per graph input)."""
    held = {("input", g): np.ascontiguousarray(a).view(np.uint8).reshape(-1) for g, a in enumerate(graph_inputs)}
    for k, node in enumerate(converted.graph.nodes):
        info = validate_operator_desc(node.operator_desc(), feature_level, preset)
        arrays = []
        connected = dict(node.input_views())
        count = sum(len(x) if isinstance(x, list) else 1 for _, x in node.inputs)
        for j in range(count):
            view = connected.get(j)
            arrays.append(None if view is None else _read(held[view.source], view))
        outputs = [spec for _, spec in node.output_specs()]
        scale_bias = None if info.scale_bias is None else tuple(float(v) for v in info.scale_bias)
        result = golden.run(node.operator, arrays, info.attributes, scale_bias,
                            output_type=outputs[0][1] if outputs[0] is not None else None,
                            output_sizes=tuple(outputs[0][0]) if outputs[0] is not None else None)
        results = list(result) if isinstance(result, (tuple, list)) else [result]
        for o, spec in enumerate(outputs):
            if spec is not None:
                array = np.asarray(results[o]).astype(golden.DATA_TYPES[spec[1]], copy=False)
                held[("node", k, o)] = np.ascontiguousarray(array).view(np.uint8).reshape(-1)
    return [held[view.source] for view in converted.outputs]
