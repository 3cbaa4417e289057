"""IDMLCompiledOperator: an operator turned into a GPU kernel plus its persistent resource layout.

CompileOperator hands the validated tensors and attributes to the kernel compiler (kernels/), which
packs the operator's precomputed constants (element count, dimension records with their division
constants, Min/Max, Scale/Bias: kernels/constant_buffer.py) once, into DirectML's own GPU memory
(`_constants`, owned until the object is garbage-collected).

Where the kernel reads them depends on the device's mode (docs/PERSISTENT_RESOURCES.md):
- by default (driver-like), from that driver-owned memory, as real DirectML passes such constants as
  root constants: the persistent resource holds only what DirectML keeps for the host, each
  DML_TENSOR_FLAG_OWNED_BY_DML input, so an operator without owned inputs reports
  PersistentResourceSize 0 and its initialization binds and copies nothing;
- in strict-host mode (device.STRICT_HOST_VARIABLE), from the bound persistent resource, at its start,
  where the initializer's dispatch copies them (a copy kernel, kernels/initialize.s) together with the
  owned inputs; every execution then reads what initialization left there, and the operator also
  reports a temporary resource (`STRICT_TEMPORARY_BYTES`, never read) so that host code binds one.

Binding properties: one descriptor per tensor (binding order: inputs, then outputs; an owned input's
slot describes its copy in the persistent resource; an optional tensor the desc left out keeps its slot,
bound as DML_BINDING_TYPE_NONE, which the kernel never reads), no temporary resource (strict mode:
STRICT_TEMPORARY_BYTES) unless the kernel keeps data between its workgroups (a REDUCE of more than 16384
elements per output: its partials, with one more descriptor slot after the tensors', which BindTemporaryResource
writes; a kernel of two dispatches runs them with a UAV barrier between them), and a persistent resource of `persistent_layout` bytes: the constants at 0
(strict mode only), then each owned input at the next multiple of DML_PERSISTENT_BUFFER_ALIGNMENT. Like
every DirectML compiled operator it must be initialized (an IDMLOperatorInitializer dispatch) before it
executes, even when that dispatch has nothing to copy.
"""
import dataclasses
import weakref

from dmlemu.errors import E_INVALIDARG, E_NOTIMPL, E_OUTOFMEMORY, HResultError
from dmlemu.functional.buffer_descriptor import DESCRIPTOR_SIZE, write_buffer_descriptor
from dmlemu.functional.device_memory import OutOfDeviceMemory
from dmlemu.directml import enums
from dmlemu.directml.enums import (
    DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION, DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE,
    DML_PERSISTENT_BUFFER_ALIGNMENT,
)
from dmlemu.directml.objects import IDMLDispatchable
from dmlemu.directml.structs import DML_BINDING_PROPERTIES

# Strict-host mode: the temporary resource every compiled operator and initializer reports (never read;
# DML_TEMPORARY_BUFFER_ALIGNMENT bytes, so a host binds one on every path).
STRICT_TEMPORARY_BYTES = 256


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
        self._initialized_persistent = None  # (resource, offset) the last executed initialization wrote
        self._kernel = self._compile(preset)
        # Strict-host mode keeps the constants in the persistent resource; by default they are root constants.
        self._constants_in_persistent = dml_device._strict_host
        self._regions, self._persistent_size = persistent_layout(
            self._info.inputs, len(self._kernel.constants) if self._constants_in_persistent else 0)
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
        # A left-out optional tensor (None) stays None: the kernel variant reads nothing for it.
        specs = [None if t is None else TensorSpec(t.type_name, t.sizes, t.strides, t.total_bytes)
                 for t in info.tensors]
        kwargs = {}
        if info.scale_bias is not None:
            kwargs["scale_bias"] = (float(info.scale_bias[0]), float(info.scale_bias[1]))
        attributes = dict(getattr(info, "attributes", None) or info.floats)
        try:
            return compile_operator(self._schema.name, specs, attributes=attributes,
                                    half_precision=self._half_precision, preset=preset, **kwargs)
        except NotImplementedError as error:   # kernels.driver.NoKernel: valid, but no kernel variant yet
            raise HResultError(E_NOTIMPL, f"CompileOperator: {self._schema.c_name} was validated, but {error}.") \
                from None
        except ValueError as error:
            raise HResultError(E_INVALIDARG, f"CompileOperator: the kernel compiler rejected "
                                             f"{self._schema.c_name}: {error}") from None

    def _upload_constants(self, memory):
        """DirectML's own GPU copy of the precomputed constants, which initialization copies into the
        persistent resource: the constant buffer, then (at the next 32 bytes) a buffer descriptor of it and
        the constants of its copy (kernels/initialize.s)."""
        from dmlemu.kernels.constant_buffer import COPY_BYTES, pack_copy
        constants = self._kernel.constants
        descriptor_at = -(-len(constants) // DESCRIPTOR_SIZE) * DESCRIPTOR_SIZE
        try:
            allocation = memory.allocate(descriptor_at + DESCRIPTOR_SIZE + COPY_BYTES,
                                         name=f"{self._schema.c_name} constants")
        except OutOfDeviceMemory as error:
            raise HResultError(E_OUTOFMEMORY, f"CompileOperator: no GPU memory for the constant buffer of "
                                              f"{self._schema.c_name}: {error}.") from None
        allocation.data[:len(constants)] = constants
        write_buffer_descriptor(allocation.data, descriptor_at, allocation.gpu_va, len(constants))
        source = allocation.gpu_va + descriptor_at
        copy = pack_copy({"DWORDS": len(constants) // 4, "WORKGROUP_SIZE": self._device._preset.workgroup_size,
                          "DESTINATION_OFFSET": 0, "SOURCE_LO": source & 0xFFFFFFFF, "SOURCE_HI": source >> 32})
        allocation.data[descriptor_at + DESCRIPTOR_SIZE:] = copy
        self._constants_copy_va = source + DESCRIPTOR_SIZE
        weakref.finalize(self, memory.free, allocation)
        return allocation

    def GetBindingProperties(self):
        """One descriptor per tensor, no temporary resource (strict-host mode: STRICT_TEMPORARY_BYTES), the
        persistent resource of persistent_layout (0 without owned inputs, by default). A kernel with temporary
        bytes (kernels/driver.py CompiledKernel.temporary_bytes: a REDUCE split into chunks) needs its temporary
        resource (the partials) and one more descriptor, the temporary resource's, after the tensors'."""
        temporary = self._kernel.temporary_bytes
        return DML_BINDING_PROPERTIES(RequiredDescriptorCount=len(self._info.tensors) + bool(temporary),
                                      TemporaryResourceSize=max(temporary, STRICT_TEMPORARY_BYTES
                                                                if self._device._strict_host else 0),
                                      PersistentResourceSize=self._persistent_size)

    def _temporary_slot(self, temporary):
        """The descriptor after the tensors' for a kernel that reads its temporary resource ([] when it has
        none): the `temporary` binding (None: unbound, a null descriptor) cut to the kernel's bytes."""
        size = self._kernel.temporary_bytes
        if not size:
            return []
        return [None if temporary is None else dataclasses.replace(temporary, size=size)]

    def _descriptor_bindings(self, bound, persistent):
        """What the descriptor table's slots describe at execution: `bound` (BoundBuffer or None per tensor,
        binding order), with each owned input's slot pointing at its copy in the `persistent` binding (None
        when no persistent resource is bound: a null descriptor, whose reads return 0)."""
        slots = list(bound)
        for index, offset in self._regions[1:]:
            tensor = self._info.inputs[index]
            slots[index] = None if persistent is None else dataclasses.replace(
                persistent, offset=persistent.offset + offset, size=tensor.total_bytes)
        return slots

    def _constants_va(self, persistent):
        """Where an execution's kernel reads the constant buffer: DirectML's own copy (root constants), or
        in strict-host mode the persistent binding (0 when none is bound; the GPU reads zeros there)."""
        if not self._constants_in_persistent:
            return self._constants.gpu_va
        return 0 if persistent is None else persistent.gpu_va

    def __repr__(self):
        return f"<IDMLCompiledOperator {self._schema.c_name}>"


def persistent_layout(inputs, constants_bytes):
    """The regions of a compiled operator's persistent resource and its size.

    Returns ([(None, 0), (input index, byte offset), ...], size): the constant buffer at 0
    (`constants_bytes`, 0 when the constants are root constants), then each DML_TENSOR_FLAG_OWNED_BY_DML
    input at the next multiple of DML_PERSISTENT_BUFFER_ALIGNMENT; the size is rounded up to that
    alignment too (0 when there is nothing to keep).
    """
    align = lambda n: -(-n // DML_PERSISTENT_BUFFER_ALIGNMENT) * DML_PERSISTENT_BUFFER_ALIGNMENT
    regions, end = [(None, 0)], align(constants_bytes)
    for index, tensor in enumerate(inputs):
        if tensor is not None and tensor.owned_by_dml:   # None: a left-out optional tensor
            regions.append((index, end))
            end = align(end + tensor.total_bytes)
    return regions, end
