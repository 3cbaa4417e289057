"""dmlemu.onnx: an ONNX model on the emulated DirectML device, converted as ONNX Runtime's DirectML
provider converts it (one DML graph, one CompileGraph call), run through the mirror, read back.

    from dmlemu.onnx import run
    outputs = run("model.onnx", {"x": x})          # {output name: array}, in the model's output order

Needs the optional extra: pip install 'dmlemu[onnx]' (onnx; onnxruntime for --compare-onnxruntime).

    errors.py       ConversionError (a ValueError): the sentence for a model that does not convert
    converters.py   THE conversion table: ONNX op type -> the DML operators and the converter function
    importer.py     the walk: shape inference, constants and folding, ConvBN and activation fusion, outputs
    dml_graph.py    views, DML nodes and the DML_GRAPH_DESC
    host.py         the host program: CompileGraph's result initialized, uploaded, bound, executed, read back
    run.py          run() and execute() (outputs, trace, which ONNX nodes each dispatch ran)
    report.py       the per-layer table and the comparison with ONNX Runtime (`dmlemu onnx`)
    models.py       models built with onnx.helper and seeded weights (tests, bench, examples)
    tolerances.py   the WebNN conformance tolerances, per ONNX op, for comparisons with expected outputs
"""
from dmlemu.onnx.errors import ConversionError
from dmlemu.onnx.run import execute, run

__all__ = ["run", "execute", "ConversionError", "convert"]


def convert(model):
    """The model's DML graph (importer.Converted); ConversionError where it does not convert."""
    from dmlemu.onnx.importer import convert as _convert
    return _convert(model)
