"""IDMLOperatorInitializer: the dispatchable that initializes compiled operators before they run.

DirectML requires each compiled operator to be initialized once (its persistent resource filled,
DML-owned weights uploaded) by recording an initializer dispatch and executing it. dmlemu's operators
own no persistent data, so the dispatch only marks them initialized when it executes on the GPU
queue; executing a compiled operator that never was is an error. An initializer with no operators is
legal and its dispatch does nothing.
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

    def GetBindingProperties(self):
        """No descriptors, no temporary resource; initializers never have a persistent resource."""
        return DML_BINDING_PROPERTIES(RequiredDescriptorCount=0, TemporaryResourceSize=0, PersistentResourceSize=0)

    def __repr__(self):
        return f"<IDMLOperatorInitializer of {len(self._operators)} operators>"
