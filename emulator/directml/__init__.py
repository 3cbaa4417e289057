"""emulator.directml: the DirectML half of the API mirror.

`from emulator.directml import *` gives every DirectML enum constant with its C name and value, the
structs, DMLCreateDevice / DMLCreateDevice1 / DMLCalcBufferTensorSize, and the interfaces IDMLDevice
... IDMLCommandRecorder. The operators dmlemu implements are ELEMENT_WISE_IDENTITY, THRESHOLD, CLIP and
IF; CreateOperator answers E_NOTIMPL for the others. See device.py for the emulated feature level.
"""
from . import enums as _enums
from . import structs as _structs
from .binding_table import IDMLBindingTable
from .command_recorder import IDMLCommandRecorder
from .compiled_operator import IDMLCompiledOperator
from .device import DMLCreateDevice, DMLCreateDevice1, IDMLDevice, IDMLDevice1
from .enums import *  # noqa: F401,F403
from .initializer import IDMLOperatorInitializer
from .objects import IDMLDeviceChild, IDMLDispatchable, IDMLObject, IDMLPageable
from .operators import IDMLOperator
from .structs import *  # noqa: F401,F403
from .validation import DMLCalcBufferTensorSize

__all__ = [
    *_enums.__all__, *_structs.__all__,
    "DMLCreateDevice", "DMLCreateDevice1", "DMLCalcBufferTensorSize",
    "IDMLObject", "IDMLDeviceChild", "IDMLPageable", "IDMLDispatchable", "IDMLDevice", "IDMLDevice1",
    "IDMLOperator", "IDMLCompiledOperator", "IDMLOperatorInitializer", "IDMLBindingTable", "IDMLCommandRecorder",
]
