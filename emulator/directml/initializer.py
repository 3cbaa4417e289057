"""IDMLOperatorInitializer: the dispatchable that initializes compiled operators before they run.

DirectML requires each compiled operator to be initialized (its persistent resource filled, DML-owned
inputs copied into it) by recording an initializer dispatch and executing it. Here the dispatch runs,
for each target operator, the copy kernel kernels/initialize.s through the GPU's dispatch path: once
for the operator's precomputed constants and once per DML_TENSOR_FLAG_OWNED_BY_DML input, each into
its region of the operator's persistent resource (compiled_operator.persistent_layout).

Binding properties: the initializer's descriptor range holds, for each target operator in order, one
descriptor for its persistent resource (the initializer's output) followed by one per input of the
operator (the DML_BUFFER_ARRAY_BINDING of BindInputs; only owned inputs are bound, the other slots
hold null descriptors). RequiredDescriptorCount is the sum of (1 + input count) over the operators;
no temporary resource is needed; initializers never have a persistent resource. An initializer with
no operators is legal: it needs nothing and its dispatch does nothing. Reset retargets it, and its
binding properties change with the operators.

A compiled graph is one target operator whose inputs are the graph inputs (only DML_TENSOR_FLAG_OWNED_BY_DML
ones are bound); its dispatch copies every node's constants and every constant node's data into the
graph's persistent resource, and each owned graph input into each node region that reads it
(compiled_graph.py, docs/GRAPHS.md).
"""
from dmlemu.directml import enums
from dmlemu.com import hresult_method
from dmlemu.directml.objects import IDMLDispatchable
from dmlemu.directml.structs import DML_BINDING_PROPERTIES


class IDMLOperatorInitializer(IDMLDispatchable):
    _iids = (enums.IID_IDMLOperatorInitializer,)

    def __init__(self, dml_device, operators):
        super().__init__(dml_device)
        self._operators = tuple(operators)

    @hresult_method
    def Reset(self, operators):
        """Retarget the initializer at a new sequence of IDMLCompiledOperator (None: none)."""
        self._operators = self._device._check_compiled_list(operators, "operators")

    def _first_slots(self):
        """The first descriptor of each operator's part of the range (its persistent resource's slot)."""
        firsts, slot = [], 0
        for compiled in self._operators:
            firsts.append(slot)
            slot += 1 + len(compiled._info.inputs)
        return firsts

    def GetBindingProperties(self):
        """A persistent-resource descriptor and one per input for each operator; no temporary resource;
        initializers never have a persistent resource."""
        count = sum(1 + len(compiled._info.inputs) for compiled in self._operators)
        return DML_BINDING_PROPERTIES(RequiredDescriptorCount=count, TemporaryResourceSize=0, PersistentResourceSize=0)

    def __repr__(self):
        return f"<IDMLOperatorInitializer of {len(self._operators)} operators>"
