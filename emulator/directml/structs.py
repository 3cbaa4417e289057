"""DirectML structs as mutable Python classes with the C field names (DirectML.h section 1.4).

A struct is built with its C field names as keyword arguments (or positionally, in C order); fields
left out take C's zero value (0, or None for pointers). A pointer field takes an object or None. A C
(count, pointer) pair becomes one Python sequence: the count field may be omitted, and then reads as
the sequence's length; if given it is kept as given and the API call that consumes the struct checks
that it agrees. Fields are checked by the API calls, not here, so a struct can hold anything a C
program could put in it; assigning a field the struct does not have raises AttributeError.

The operator descs (DML_<OPERATOR>_OPERATOR_DESC) are defined here by the operator schemas
(operators.py): each schema row gives its desc's fields, through `define_operator_desc`.
"""
import struct as _pack

from dmlemu.com import Count, define_struct


def _define(name, doc, **fields):
    """Define a struct class named like the C struct (fields as keywords, in C order)."""
    return define_struct(globals(), name, doc, fields.items())


__all__ = ["DML_SCALAR_UNION"]

# ---- tensors, operators, bindings -----------------------------------------------------------------
_define("DML_BUFFER_TENSOR_DESC", "A tensor stored in a buffer: type, flags, sizes, optional strides, size.",
        DataType=0, Flags=0, DimensionCount=Count("Sizes"), Sizes=None, Strides=None,
        TotalTensorSizeInBytes=0, GuaranteedBaseOffsetAlignment=0)
_define("DML_TENSOR_DESC", "A tensor: Type (DML_TENSOR_TYPE_BUFFER) and Desc (a DML_BUFFER_TENSOR_DESC).",
        Type=0, Desc=None)
_define("DML_SCALE_BIAS", "g(x) = x * Scale + Bias, applied to each input element first.", Scale=0.0, Bias=0.0)
_define("DML_SIZE_2D", "A 2D size.", Width=0, Height=0)
_define("DML_OPERATOR_DESC", "An operator: Type (DML_OPERATOR_TYPE) and Desc (the operator's desc struct).",
        Type=0, Desc=None)
_define("DML_BUFFER_BINDING", "A range of an ID3D12Resource buffer; Buffer None means no binding.",
        Buffer=None, Offset=0, SizeInBytes=0)
_define("DML_BUFFER_ARRAY_BINDING", "A sequence of DML_BUFFER_BINDING (BindingCount may be omitted).",
        BindingCount=Count("Bindings"), Bindings=None)
_define("DML_BINDING_DESC", "A binding: Type (DML_BINDING_TYPE) and Desc (DML_BUFFER_BINDING, DML_BUFFER_ARRAY_BINDING or None).",
        Type=0, Desc=None)
_define("DML_BINDING_TABLE_DESC", "Where a binding table writes its descriptors, and for which dispatchable.",
        Dispatchable=None, CPUDescriptorHandle=None, GPUDescriptorHandle=None, SizeInDescriptors=0)
_define("DML_BINDING_PROPERTIES", "What a dispatchable needs bound: descriptors, temporary and persistent bytes.",
        RequiredDescriptorCount=0, TemporaryResourceSize=0, PersistentResourceSize=0)

# ---- feature support ------------------------------------------------------------------------------
_define("DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT", "Query: is this tensor data type supported?", DataType=0)
_define("DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT", "Answer: IsSupported (a BOOL).", IsSupported=0)
_define("DML_FEATURE_QUERY_FEATURE_LEVELS", "Query: which of these feature levels is the highest supported?",
        RequestedFeatureLevelCount=Count("RequestedFeatureLevels"), RequestedFeatureLevels=None)
_define("DML_FEATURE_DATA_FEATURE_LEVELS", "Answer: MaxSupportedFeatureLevel.", MaxSupportedFeatureLevel=0)

# ---- graphs (IDMLDevice1.CompileGraph: emulator/directml/graph.py, docs/GRAPHS.md) ----------------------------
_define("DML_GRAPH_EDGE_DESC", "A graph edge: Type (DML_GRAPH_EDGE_TYPE) and Desc.", Type=0, Desc=None)
_define("DML_INPUT_GRAPH_EDGE_DESC", "A graph input edge.", GraphInputIndex=0, ToNodeIndex=0, ToNodeInputIndex=0, Name=None)
_define("DML_OUTPUT_GRAPH_EDGE_DESC", "A graph output edge.", FromNodeIndex=0, FromNodeOutputIndex=0, GraphOutputIndex=0, Name=None)
_define("DML_INTERMEDIATE_GRAPH_EDGE_DESC", "An edge between two nodes.",
        FromNodeIndex=0, FromNodeOutputIndex=0, ToNodeIndex=0, ToNodeInputIndex=0, Name=None)
_define("DML_GRAPH_NODE_DESC", "A graph node: Type (DML_GRAPH_NODE_TYPE) and Desc.", Type=0, Desc=None)
_define("DML_OPERATOR_GRAPH_NODE_DESC", "A node running an IDMLOperator.", Operator=None, Name=None)
_define("DML_CONSTANT_DATA_GRAPH_NODE_DESC", "A node holding constant bytes (DataSize may be omitted).",
        Data=None, DataSize=Count("Data"), Name=None)
_define("DML_GRAPH_DESC", "A graph of operator nodes and edges.",
        InputCount=0, OutputCount=0, NodeCount=Count("Nodes"), Nodes=None,
        InputEdgeCount=Count("InputEdges"), InputEdges=None, OutputEdgeCount=Count("OutputEdges"), OutputEdges=None,
        IntermediateEdgeCount=Count("IntermediateEdges"), IntermediateEdges=None)


class DML_SCALAR_UNION:
    """The C union of 8 bytes: Bytes, Int8 ... UInt64, Float32, Float64 all view the same bytes."""

    _views = {"Int8": "<b", "UInt8": "<B", "Int16": "<h", "UInt16": "<H", "Int32": "<i", "UInt32": "<I",
              "Int64": "<q", "UInt64": "<Q", "Float32": "<f", "Float64": "<d"}
    _fields_ = ("Bytes", *_views)

    def __init__(self, **kwargs):
        object.__setattr__(self, "_bytes", bytearray(8))
        if len(kwargs) > 1:
            raise TypeError("DML_SCALAR_UNION is a union: give at most one member")
        for name, value in kwargs.items():
            setattr(self, name, value)

    def __getattr__(self, name):
        if name == "Bytes":
            return bytes(self._bytes)
        if name in self._views:
            fmt = self._views[name]
            return _pack.unpack_from(fmt, self._bytes)[0]
        raise AttributeError(f"DML_SCALAR_UNION has no member {name!r}")

    def __setattr__(self, name, value):
        if name == "Bytes":
            data = bytes(value)
            if len(data) > 8:
                raise ValueError("DML_SCALAR_UNION.Bytes holds 8 bytes")
            self._bytes[:] = data.ljust(8, b"\0")
        elif name in self._views:
            fmt = self._views[name]
            self._bytes[:] = bytes(8)
            _pack.pack_into(fmt, self._bytes, 0, value)
        else:
            raise AttributeError(f"DML_SCALAR_UNION has no member {name!r}")

    def __repr__(self):
        return f"DML_SCALAR_UNION(Bytes={bytes(self._bytes)!r})"


# ---- operator descs (section 1.7) -------------------------------------------------------------------
OPERATOR_DESC_TYPES = {}  # DML_OPERATOR_TYPE value -> desc struct class


def define_operator_desc(op_type, name, fields):
    """Define DML_<name>_OPERATOR_DESC, the desc of DML_OPERATOR_<name> (type value `op_type`), with `fields`
    ((C field name, zero value) pairs in C order). The operator schemas (operators.py) call it, one per row."""
    cls = _define(f"DML_{name}_OPERATOR_DESC", f"The desc of DML_OPERATOR_{name}.", **dict(fields))
    OPERATOR_DESC_TYPES[op_type] = cls
    return cls
