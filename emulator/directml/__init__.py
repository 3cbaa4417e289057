"""dmlemu.directml: the DirectML half of the API mirror.

`from dmlemu.directml import *` gives every DirectML enum constant with its C name and value, the
structs, DMLCreateDevice / DMLCreateDevice1 / DMLCalcBufferTensorSize, and the interfaces IDMLDevice
... IDMLCommandRecorder. CreateOperator validates every operator of operators.SCHEMAS (every
ELEMENT_WISE operator, the element-wise activations and CAST) at the device's feature level, then answers
E_NOTIMPL for one without a kernel yet (dmlemu.kernels.driver.has_kernel) and for any other operator.
See device.py for the emulated feature level. `inspect(obj)` (inspection.py) is the one name beyond
the C API: a read-only view of a DirectML or D3D12 object's state (an operator's validated tensors, a
compiled graph's dispatches and fusion groups, a binding table's bindings, the debug layer's messages).
"""
from dmlemu.directml import enums as _enums
from dmlemu.directml import structs as _structs
from dmlemu.directml.binding_table import IDMLBindingTable
from dmlemu.directml.command_recorder import IDMLCommandRecorder
from dmlemu.directml.compiled_operator import IDMLCompiledOperator
from dmlemu.directml.device import DMLCreateDevice, DMLCreateDevice1, IDMLDevice, IDMLDevice1
from dmlemu.directml.enums import *  # noqa: F401,F403
from dmlemu.directml.initializer import IDMLOperatorInitializer
from dmlemu.directml.inspection import inspect
from dmlemu.directml.objects import IDMLDeviceChild, IDMLDispatchable, IDMLObject, IDMLPageable
from dmlemu.directml.operators import IDMLOperator
from dmlemu.directml.structs import *  # noqa: F401,F403
from dmlemu.directml.validation import DMLCalcBufferTensorSize

__all__ = [
    *_enums.__all__, *_structs.__all__,
    "DMLCreateDevice", "DMLCreateDevice1", "DMLCalcBufferTensorSize",
    "IDMLObject", "IDMLDeviceChild", "IDMLPageable", "IDMLDispatchable", "IDMLDevice", "IDMLDevice1",
    "IDMLOperator", "IDMLCompiledOperator", "IDMLOperatorInitializer", "IDMLBindingTable", "IDMLCommandRecorder",
    "inspect",
]
