"""IDMLCompiledOperator: an operator turned into a GPU kernel plus its constant buffer.

CompileOperator hands the validated tensors and attributes to the kernel compiler (kernels/), then
allocates the kernel's constant buffer in GPU memory and copies the constants there; the compiled
operator owns that memory until it is garbage-collected. It needs one descriptor per tensor (binding
order: inputs, then outputs), no temporary and no persistent resource. Like every DirectML compiled
operator it must be initialized once (an IDMLOperatorInitializer dispatch) before it executes.
"""
import weakref

from dmlemu.errors import E_INVALIDARG, E_NOTIMPL, E_OUTOFMEMORY, HResultError
from dmlemu.functional.device_memory import OutOfDeviceMemory
from dmlemu.directml import enums
from dmlemu.directml.enums import DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION, DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE
from dmlemu.directml.objects import IDMLDispatchable
from dmlemu.directml.structs import DML_BINDING_PROPERTIES


def kernel_compiler():
    """(compile_operator, TensorSpec) from the kernels package; E_NOTIMPL while it is missing."""
    try:
        from dmlemu.kernels.driver import TensorSpec, compile_operator
    except ModuleNotFoundError as error:
        if error.name not in ("kernels",):
            raise
        raise HResultError(E_NOTIMPL, "CompileOperator: the kernel compiler (package kernels) is not "
                                      "available in this installation.") from None
    except ImportError as error:
        if "compile_operator" in str(error) or "TensorSpec" in str(error):
            raise HResultError(E_NOTIMPL, "CompileOperator: the kernel compiler (kernels.compile_operator) "
                                          "is not available in this installation.") from None
        raise
    return compile_operator, TensorSpec


class IDMLCompiledOperator(IDMLDispatchable):
    """A compiled operator: kernel, constant buffer allocation, execution flags, initialized state."""

    _iids = (enums.IID_IDMLCompiledOperator,)

    def __init__(self, dml_device, op, flags):
        super().__init__(dml_device)
        self._operator = op                  # strong reference, as CompileOperator keeps one
        self._info = op._info
        self._flags = flags
        preset = dml_device._preset
        self._half_precision = bool(flags & DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION) and preset.native_fp16
        self._initialized = False            # set when an initializer dispatch for it executes
        self._initialization_recorded = False  # set when such a dispatch is recorded
        self._kernel = self._compile(preset)
        self._constants = self._upload_constants(dml_device._gpu.memory)

    @property
    def _schema(self):
        return self._info.schema

    @property
    def _descriptors_volatile(self):
        return bool(self._flags & DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE)

    def _compile(self, preset):
        compile_operator, TensorSpec = kernel_compiler()
        info = self._info
        specs = [TensorSpec(t.type_name, t.sizes, t.strides, t.total_bytes) for t in info.tensors]
        kwargs = {}
        if "Min" in info.floats:
            kwargs["min_value"] = float(info.floats["Min"])
        if "Max" in info.floats:
            kwargs["max_value"] = float(info.floats["Max"])
        if info.scale_bias is not None:
            kwargs["scale_bias"] = (float(info.scale_bias[0]), float(info.scale_bias[1]))
        try:
            return compile_operator(self._schema.name, specs, half_precision=self._half_precision,
                                    preset=preset, **kwargs)
        except ValueError as error:
            raise HResultError(E_INVALIDARG, f"CompileOperator: the kernel compiler rejected "
                                             f"{self._schema.c_name}: {error}") from None

    def _upload_constants(self, memory):
        constants = self._kernel.constants
        try:
            allocation = memory.allocate(max(4, len(constants)), name=f"{self._schema.c_name} constants")
        except OutOfDeviceMemory as error:
            raise HResultError(E_OUTOFMEMORY, f"CompileOperator: no GPU memory for the constant buffer of "
                                              f"{self._schema.c_name}: {error}.") from None
        allocation.data[:len(constants)] = constants
        weakref.finalize(self, memory.free, allocation)
        return allocation

    def GetBindingProperties(self):
        """One descriptor per tensor; no temporary or persistent resource."""
        return DML_BINDING_PROPERTIES(RequiredDescriptorCount=len(self._info.tensors),
                                      TemporaryResourceSize=0, PersistentResourceSize=0)

    def __repr__(self):
        return f"<IDMLCompiledOperator {self._schema.c_name}>"
