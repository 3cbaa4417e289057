"""IDMLBindingTable: which buffers a dispatchable reads and writes, and where its descriptors go.

A table is created (or Reset) for one dispatchable with a range of a shader-visible CBV_SRV_UAV
descriptor heap (checked at once: E_INVALIDARG). Bind* methods are void in C: they check each
binding against DirectML's rules and a misuse removes the DML device. The buffer descriptors are
written into the heap range by RecordDispatch (and also by Bind* for operators compiled with
DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE, whose bindings may change until the list is executed).

Rules (DIRECTML_FACTS.md 2.3 and 3.2): a compiled operator takes exactly one binding per input and
per output (DML_BINDING_TYPE_NONE only for optional tensors); an initializer takes one
DML_BINDING_TYPE_BUFFER_ARRAY per operator as inputs (only DML-owned tensors are bound) and one
persistent resource (or none) per operator as outputs. Bound buffers are DEFAULT-heap buffers created
with ALLOW_UNORDERED_ACCESS; Offset is a multiple of 16 or of the tensor's
GuaranteedBaseOffsetAlignment (256 for temporary and persistent resources); the range lies inside the
buffer and holds TotalTensorSizeInBytes; outputs' writable ranges do not overlap.
"""
from dataclasses import dataclass

from dmlemu.functional.buffer_descriptor import DESCRIPTOR_SIZE, write_buffer_descriptor
from dmlemu.errors import HResultError, describe
from dmlemu.directml import _d3d12, enums
from dmlemu.directml.enums import (
    DML_BINDING_TYPE, DML_BINDING_TYPE_BUFFER, DML_BINDING_TYPE_BUFFER_ARRAY, DML_BINDING_TYPE_NONE,
    DML_PERSISTENT_BUFFER_ALIGNMENT, DML_TEMPORARY_BUFFER_ALIGNMENT,
)
from dmlemu.com import (
    UINT32_MAX, UINT64_MAX, VoidMisuse, check_enum, check_sequence, check_uint, hresult_method, invalid, void_method,
)
from dmlemu.directml.objects import IDMLDeviceChild, IDMLDispatchable
from dmlemu.directml.structs import DML_BINDING_DESC, DML_BINDING_TABLE_DESC, DML_BUFFER_ARRAY_BINDING, DML_BUFFER_BINDING

@dataclass(frozen=True)
class BoundBuffer:
    """One validated DML_BUFFER_BINDING: a resource range."""
    resource: object
    offset: int
    size: int

    @property
    def gpu_va(self):
        return _d3d12.resource_gpu_va(self.resource) + self.offset


class IDMLBindingTable(IDMLDeviceChild):
    _iids = (enums.IID_IDMLBindingTable,)

    def __init__(self, dml_device):
        super().__init__(dml_device)
        self._dispatchable = None
        self._heap = None            # the descriptor heap holding the table's range
        self._first_index = 0        # the range's first descriptor in that heap
        self._size = 0               # SizeInDescriptors
        self._clear_bindings()

    def _clear_bindings(self):
        self._inputs = None          # compiled op: list of BoundBuffer|None; initializer: list per operator
        self._outputs = None
        self._temporary = None
        self._persistent = None

    # ---- Reset ------------------------------------------------------------------------------------
    @hresult_method
    def Reset(self, desc):
        """Retarget the table (None: empty); E_INVALIDARG when the desc is wrong. Clears all bindings."""
        self._reset(desc)

    def _reset(self, desc):
        device = self._device
        if desc is None:
            self._dispatchable, self._heap, self._first_index, self._size = None, None, 0, 0
            self._clear_bindings()
            return
        if not isinstance(desc, DML_BINDING_TABLE_DESC):
            raise invalid(f"the binding table desc is {describe(desc)}; it must be a DML_BINDING_TABLE_DESC or None.")
        dispatchable = device._check_child(desc.Dispatchable, IDMLDispatchable, "DML_BINDING_TABLE_DESC.Dispatchable")
        size = check_uint(desc.SizeInDescriptors, "DML_BINDING_TABLE_DESC.SizeInDescriptors")
        required = dispatchable.GetBindingProperties().RequiredDescriptorCount
        if size < required:
            raise invalid(f"DML_BINDING_TABLE_DESC.SizeInDescriptors is {size}; {dispatchable!r} requires {required} "
                          f"descriptors (GetBindingProperties().RequiredDescriptorCount).")
        heap, first = None, 0
        if size:
            heap, first = self._check_handles(desc, size)
        self._dispatchable, self._heap, self._first_index, self._size = dispatchable, heap, first, size
        self._clear_bindings()

    def _check_handles(self, desc, size):
        d3d12_device = self._device._d3d12_device
        cpu = _d3d12.handle_ptr(desc.CPUDescriptorHandle)
        gpu = _d3d12.handle_ptr(desc.GPUDescriptorHandle)
        if cpu is None:
            raise invalid(f"DML_BINDING_TABLE_DESC.CPUDescriptorHandle is {desc.CPUDescriptorHandle!r}; "
                          f"it must be a D3D12_CPU_DESCRIPTOR_HANDLE.")
        if gpu is None:
            raise invalid(f"DML_BINDING_TABLE_DESC.GPUDescriptorHandle is {desc.GPUDescriptorHandle!r}; "
                          f"it must be a D3D12_GPU_DESCRIPTOR_HANDLE.")
        found = _d3d12.find_heap_by_cpu_handle(d3d12_device, cpu)
        if found is None:
            raise invalid(f"DML_BINDING_TABLE_DESC.CPUDescriptorHandle 0x{cpu:X} is not inside a descriptor heap "
                          f"of this D3D12 device.")
        heap, first = found
        if not _d3d12.heap_is_cbv_srv_uav(heap):
            raise invalid(f"DML_BINDING_TABLE_DESC.CPUDescriptorHandle is in a {_d3d12.heap_type_name(heap)} heap; "
                          f"DirectML needs a D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV heap.")
        count = _d3d12.heap_num_descriptors(heap)
        if first + size > count:
            raise invalid(f"DML_BINDING_TABLE_DESC.SizeInDescriptors is {size} from descriptor {first}; the heap "
                          f"holds only {count} descriptors.")
        if not _d3d12.heap_is_shader_visible(heap):
            raise invalid("DML_BINDING_TABLE_DESC.CPUDescriptorHandle is in a heap without "
                          "D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE; DirectML's GPU handle must be shader-visible.")
        found_gpu = _d3d12.find_heap_by_gpu_handle(d3d12_device, gpu)
        if found_gpu is None:
            raise invalid(f"DML_BINDING_TABLE_DESC.GPUDescriptorHandle 0x{gpu:X} is not inside a shader-visible "
                          f"descriptor heap of this D3D12 device.")
        if found_gpu != (heap, first):
            raise invalid("DML_BINDING_TABLE_DESC.GPUDescriptorHandle and CPUDescriptorHandle name different "
                          "descriptors; they must name the same range.")
        return heap, first

    # ---- Bind* ------------------------------------------------------------------------------------
    def _require_dispatchable(self):
        if self._dispatchable is None:
            raise VoidMisuse("the binding table has no dispatchable; create or Reset it with a DML_BINDING_TABLE_DESC first.")
        return self._dispatchable

    @void_method
    def BindInputs(self, bindings):
        """Bind the inputs (the C (bindingCount, bindings) pair as one sequence; None or []: unbind)."""
        from dmlemu.directml.compiled_operator import IDMLCompiledOperator
        dispatchable = self._require_dispatchable()
        bindings = self._sequence(bindings, "BindInputs")
        if isinstance(dispatchable, IDMLCompiledOperator):
            self._inputs = self._bind_tensors(dispatchable, bindings, "BindInputs", dispatchable._info.inputs)
        else:
            self._inputs = self._bind_initializer_inputs(dispatchable, bindings)
        self._write_volatile()

    @void_method
    def BindOutputs(self, bindings):
        """Bind the outputs (compiled operator) or persistent resources (initializer)."""
        from dmlemu.directml.compiled_operator import IDMLCompiledOperator
        dispatchable = self._require_dispatchable()
        bindings = self._sequence(bindings, "BindOutputs")
        if isinstance(dispatchable, IDMLCompiledOperator):
            outputs = self._bind_tensors(dispatchable, bindings, "BindOutputs", dispatchable._info.outputs)
            if outputs:
                self._check_outputs_disjoint(dispatchable, outputs)
            self._outputs = outputs
        else:
            self._outputs = self._bind_initializer_outputs(dispatchable, bindings)
        self._write_volatile()

    @void_method
    def BindTemporaryResource(self, binding):
        dispatchable = self._require_dispatchable()
        size = dispatchable.GetBindingProperties().TemporaryResourceSize
        self._temporary = self._bind_resource(binding, "BindTemporaryResource", DML_TEMPORARY_BUFFER_ALIGNMENT,
                                              size, "DML_TEMPORARY_BUFFER_ALIGNMENT", "TemporaryResourceSize")

    @void_method
    def BindPersistentResource(self, binding):
        dispatchable = self._require_dispatchable()
        size = dispatchable.GetBindingProperties().PersistentResourceSize
        self._persistent = self._bind_resource(binding, "BindPersistentResource", DML_PERSISTENT_BUFFER_ALIGNMENT,
                                               size, "DML_PERSISTENT_BUFFER_ALIGNMENT", "PersistentResourceSize")

    # ---- checks -----------------------------------------------------------------------------------
    @staticmethod
    def _sequence(bindings, method):
        if bindings is None:
            return ()
        try:
            return check_sequence(bindings, method + " bindings", "a sequence of DML_BINDING_DESC")
        except HResultError as error:
            raise VoidMisuse(error.message) from None

    def _bind_tensors(self, compiled, bindings, method, tensors):
        """A compiled operator's inputs or outputs: one binding per tensor, or none at all (unbind)."""
        if not bindings:
            return None
        op = compiled._schema.c_name
        if len(bindings) != len(tensors):
            names = ", ".join(t.field for t in tensors)
            kind = "input" if method == "BindInputs" else "output"
            raise VoidMisuse(f"{method} got {len(bindings)} bindings; {op} has {len(tensors)} {kind}"
                         f"{'s' if len(tensors) != 1 else ''} ({names}), and the count must match exactly.")
        bound = []
        for i, (binding, tensor) in enumerate(zip(bindings, tensors)):
            where = f"{method}[{i}] ({tensor.field})"
            role = next(r for r in compiled._schema.tensors if r.field == tensor.field)
            bound.append(self._bind_one(binding, where, tensor, role.optional))
        return bound

    def _bind_one(self, binding, where, tensor, optional):
        """A DML_BINDING_DESC for one tensor: BUFFER (checked) or NONE (optional tensors only)."""
        binding_type = self._binding_type(binding, where)
        if binding_type == DML_BINDING_TYPE_NONE:
            if not optional:
                raise VoidMisuse(f"{where} is DML_BINDING_TYPE_NONE; {tensor.field} is not optional.")
            return None
        if binding_type != DML_BINDING_TYPE_BUFFER:
            raise VoidMisuse(f"{where} is {binding_type.name}; a compiled operator's tensor takes DML_BINDING_TYPE_BUFFER.")
        buffer_binding = binding.Desc
        if not isinstance(buffer_binding, DML_BUFFER_BINDING):
            raise VoidMisuse(f"{where}.Desc is {describe(buffer_binding)}; DML_BINDING_TYPE_BUFFER needs a DML_BUFFER_BINDING.")
        if buffer_binding.Buffer is None and not optional:
            raise VoidMisuse(f"{where}.Buffer is None; {tensor.field} is not optional.")
        if buffer_binding.Buffer is None:
            return None
        return self._check_buffer(buffer_binding, where, tensor.binding_alignment,
                                  f"a multiple of {tensor.binding_alignment} (DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT "
                                  f"or {tensor.field}.GuaranteedBaseOffsetAlignment)",
                                  tensor.total_bytes, f"{tensor.field}.TotalTensorSizeInBytes")

    @staticmethod
    def _binding_type(binding, where):
        if not isinstance(binding, DML_BINDING_DESC):
            raise VoidMisuse(f"{where} is {describe(binding)}; it must be a DML_BINDING_DESC.")
        try:
            return check_enum(binding.Type, DML_BINDING_TYPE, f"{where}.Type")
        except HResultError as error:
            raise VoidMisuse(error.message) from None

    def _check_buffer(self, buffer_binding, where, alignment, alignment_text, required, required_text):
        """A DML_BUFFER_BINDING with a buffer: resource, heap, flags, alignment, range and size."""
        resource = buffer_binding.Buffer
        d3d12_device = self._device._d3d12_device
        if not _d3d12.is_resource(resource):
            raise VoidMisuse(f"{where}.Buffer is {describe(resource)}; it must be an ID3D12Resource or None.")
        if _d3d12.owner_device(resource) is not d3d12_device:
            raise VoidMisuse(f"{where}.Buffer {_d3d12.label(resource)} belongs to another D3D12 device.")
        if not _d3d12.resource_is_buffer(resource):
            raise VoidMisuse(f"{where}.Buffer {_d3d12.label(resource)} is not a D3D12_RESOURCE_DIMENSION_BUFFER resource.")
        heap_type = _d3d12.resource_heap_type(resource)
        if heap_type != _d3d12.D3D12_HEAP_TYPE_DEFAULT:
            raise VoidMisuse(f"{where}.Buffer {_d3d12.label(resource)} is in a "
                         f"{_d3d12.resource_heap_type_name(heap_type)} heap; DirectML requires all bound "
                         f"buffers to be D3D12_HEAP_TYPE_DEFAULT.")
        if not _d3d12.resource_allows_uav(resource):
            raise VoidMisuse(f"{where}.Buffer {_d3d12.label(resource)} was created without "
                         f"D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS; DirectML binds buffers as unordered-access views.")
        try:
            offset = check_uint(buffer_binding.Offset, f"{where}.Offset", max_value=UINT64_MAX)
            size = check_uint(buffer_binding.SizeInBytes, f"{where}.SizeInBytes", max_value=UINT64_MAX)
        except HResultError as error:
            raise VoidMisuse(error.message) from None
        if offset % alignment:
            raise VoidMisuse(f"{where}.Offset is {offset}; it must be {alignment_text}.")
        width = _d3d12.resource_width(resource)
        if offset + size > width:
            raise VoidMisuse(f"{where} covers bytes {offset} to {offset + size} (Offset + SizeInBytes); the buffer "
                         f"{_d3d12.label(resource)} has only {width} bytes.")
        if size < required:
            raise VoidMisuse(f"{where}.SizeInBytes is {size}; {required_text} is {required} and the bound range must hold it.")
        if size > UINT32_MAX:
            raise VoidMisuse(f"{where}.SizeInBytes is {size}; a buffer descriptor holds at most {UINT32_MAX} bytes (dmlemu).")
        return BoundBuffer(resource, offset, size)

    def _check_outputs_disjoint(self, compiled, outputs):
        tensors = compiled._info.outputs
        for i in range(len(outputs)):
            for j in range(i):
                a, b = outputs[i], outputs[j]
                if a is None or b is None or a.resource is not b.resource:
                    continue
                a_end, b_end = a.offset + tensors[i].total_bytes, b.offset + tensors[j].total_bytes
                if a.offset < b_end and b.offset < a_end:
                    raise VoidMisuse(f"BindOutputs[{i}] ({tensors[i].field}) writes bytes {a.offset} to {a_end} of "
                                 f"{_d3d12.label(a.resource)}, overlapping BindOutputs[{j}] ({tensors[j].field}) at "
                                 f"{b.offset} to {b_end}; outputs' writable ranges must not overlap.")

    def _bind_resource(self, binding, method, alignment, required, alignment_name, required_name):
        """A temporary or persistent resource: None / NONE / Buffer None unbinds."""
        if binding is None:
            return None
        binding_type = self._binding_type(binding, method)
        if binding_type == DML_BINDING_TYPE_NONE:
            return None
        if binding_type != DML_BINDING_TYPE_BUFFER:
            raise VoidMisuse(f"{method} binding is {binding_type.name}; it must be DML_BINDING_TYPE_BUFFER or NONE.")
        if not isinstance(binding.Desc, DML_BUFFER_BINDING):
            raise VoidMisuse(f"{method} binding.Desc is {describe(binding.Desc)}; DML_BINDING_TYPE_BUFFER needs a DML_BUFFER_BINDING.")
        if binding.Desc.Buffer is None:
            return None
        return self._check_buffer(binding.Desc, method, alignment, f"a multiple of {alignment} ({alignment_name})",
                                  required, f"GetBindingProperties().{required_name}")

    def _bind_initializer_inputs(self, initializer, bindings):
        """One BUFFER_ARRAY (or NONE) per target operator; only DML-owned tensors take a buffer."""
        if not bindings:
            return None
        operators = initializer._operators
        if len(bindings) != len(operators):
            raise VoidMisuse(f"BindInputs got {len(bindings)} bindings; the initializer has {len(operators)} operators "
                         f"and takes one DML_BINDING_TYPE_BUFFER_ARRAY per operator (or no bindings).")
        for i, (binding, compiled) in enumerate(zip(bindings, operators)):
            where = f"BindInputs[{i}]"
            binding_type = self._binding_type(binding, where)
            if binding_type == DML_BINDING_TYPE_NONE:
                continue
            if binding_type != DML_BINDING_TYPE_BUFFER_ARRAY:
                raise VoidMisuse(f"{where} is {binding_type.name}; an initializer's inputs are DML_BINDING_TYPE_BUFFER_ARRAY.")
            array = binding.Desc
            if not isinstance(array, DML_BUFFER_ARRAY_BINDING):
                raise VoidMisuse(f"{where}.Desc is {describe(array)}; DML_BINDING_TYPE_BUFFER_ARRAY needs a DML_BUFFER_ARRAY_BINDING.")
            entries = self._sequence(array.Bindings, f"{where}.Bindings")
            count = array.explicit_count("BindingCount")
            if count is not None and count != len(entries):
                raise VoidMisuse(f"{where}.BindingCount is {count!r} but {where}.Bindings has {len(entries)} elements; "
                             f"they must agree.")
            inputs = compiled._info.inputs
            if entries and len(entries) != len(inputs):
                raise VoidMisuse(f"{where}.Bindings has {len(entries)} elements; {compiled._schema.c_name} has "
                             f"{len(inputs)} inputs.")
            for j, (entry, tensor) in enumerate(zip(entries, inputs)):
                if not isinstance(entry, DML_BUFFER_BINDING):
                    raise VoidMisuse(f"{where}.Bindings[{j}] is {describe(entry)}; it must be a DML_BUFFER_BINDING.")
                if entry.Buffer is not None:
                    raise VoidMisuse(f"{where}.Bindings[{j}] ({tensor.field}) has a Buffer, but {tensor.field} is not "
                                 f"DML_TENSOR_FLAG_OWNED_BY_DML; only DML-owned tensors are bound at initialization.")
        return list(bindings)

    def _bind_initializer_outputs(self, initializer, bindings):
        """The persistent resource of each target operator (NONE or an empty binding when none)."""
        if not bindings:
            return None
        operators = initializer._operators
        if len(bindings) != len(operators):
            raise VoidMisuse(f"BindOutputs got {len(bindings)} bindings; the initializer has {len(operators)} operators "
                         f"and takes one persistent-resource binding per operator (or no bindings).")
        bound = []
        for i, (binding, compiled) in enumerate(zip(bindings, operators)):
            size = compiled.GetBindingProperties().PersistentResourceSize
            bound.append(self._bind_resource(binding, f"BindOutputs[{i}]", DML_PERSISTENT_BUFFER_ALIGNMENT, size,
                                             "DML_PERSISTENT_BUFFER_ALIGNMENT", "PersistentResourceSize"))
        return bound

    # ---- descriptors --------------------------------------------------------------------------------
    def _tensor_bindings(self):
        """A compiled operator's bindings in binding order (inputs then outputs); None where unbound."""
        compiled = self._dispatchable
        inputs = self._inputs or [None] * len(compiled._info.inputs)
        outputs = self._outputs or [None] * len(compiled._info.outputs)
        return list(inputs) + list(outputs)

    def _write_descriptors(self, bindings):
        """Write one buffer descriptor per bound tensor into the table's heap range (slot = binding order)."""
        write_descriptors(self._heap, self._first_index, bindings)

    def _write_volatile(self):
        """With DESCRIPTORS_VOLATILE, Bind* writes descriptors at once (late binding)."""
        from dmlemu.directml.compiled_operator import IDMLCompiledOperator
        compiled = self._dispatchable
        if isinstance(compiled, IDMLCompiledOperator) and compiled._descriptors_volatile and self._heap is not None:
            self._write_descriptors(self._tensor_bindings())

    @property
    def _descriptor_table_gpu_va(self):
        return _d3d12.heap_descriptor_gpu_va(self._heap, self._first_index)


def write_descriptors(heap, first_index, bindings):
    """Buffer descriptors for `bindings` (BoundBuffer or None) into heap slots first_index, ..."""
    heap_bytes = _d3d12.heap_bytes(heap)
    for slot, bound in enumerate(bindings):
        offset = _d3d12.heap_slot_offset(heap, first_index + slot)
        if bound is None:
            heap_bytes[offset:offset + DESCRIPTOR_SIZE] = 0
        else:
            write_buffer_descriptor(heap_bytes, offset, bound.gpu_va, bound.size)
