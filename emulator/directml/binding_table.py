"""IDMLBindingTable: which buffers a dispatchable reads and writes, and where its descriptors go.

A table is created (or Reset) for one dispatchable with two handles (checked at once: E_INVALIDARG):
CPUDescriptorHandle, the start of a range of a CBV_SRV_UAV heap (shader-visible or not) that DirectML
writes descriptors into, and GPUDescriptorHandle, the start of a range of a shader-visible CBV_SRV_UAV
heap that RecordDispatch binds and the GPU reads when the dispatch executes. Both ranges hold
SizeInDescriptors slots. They are usually the same slots; when they differ (a CPU-only staging heap,
say) the application copies the CPU range into the GPU range (CopyDescriptors / CopyDescriptorsSimple)
before the work executes, as IDMLDevice::CreateBindingTable's documentation requires.

Bind* methods are void in C: they check each binding against DirectML's rules (a misuse removes the
DML device), then write the buffer descriptors through the CPU handle at once (slot i = tensor i in
binding order, inputs then outputs; a null descriptor for an unbound tensor). Reset writes nothing.
Nothing keeps a copy of the bindings for the GPU: the dispatch reads whatever the GPU range holds
when it executes (command_recorder.py says what that means with and without
DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE). `_write_slots(first_slot, bindings)` is the one writer, for
any binding kind that gets a descriptor.

Rules (DIRECTML_FACTS.md 2.3 and 3.2): a compiled operator takes exactly one binding per input and
per output (DML_BINDING_TYPE_NONE only for optional tensors); an initializer takes one
DML_BINDING_TYPE_BUFFER_ARRAY per operator as inputs (only DML-owned tensors are bound) and one
persistent resource (or none) per operator as outputs; their descriptors go to the initializer's range
(per operator: the persistent resource, then its inputs). A DML-owned input of a compiled operator is
DML_BINDING_TYPE_NONE at execution; its slot describes its copy in the persistent resource. Bound buffers are DEFAULT-heap buffers created
with ALLOW_UNORDERED_ACCESS; Offset is a multiple of 16 or of the tensor's
GuaranteedBaseOffsetAlignment (256 for temporary and persistent resources); the range lies inside the
buffer and holds TotalTensorSizeInBytes; outputs' writable ranges do not overlap.

A compiled graph (compiled_graph.py, an IDMLCompiledOperator) binds like one operator whose tensors are
the graph inputs and outputs; its descriptor range holds every dispatched node's slots instead, which
each Bind* rewrites for the bindings in force (`_write_graph_slots`; docs/GRAPHS.md).
"""
from dataclasses import dataclass

import numpy as np

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
        self._cpu_heap = None        # the heap DirectML writes the descriptors into (CPUDescriptorHandle)
        self._cpu_first = 0          # the CPU range's first descriptor in that heap
        self._heap = None            # the shader-visible heap the GPU reads them from (GPUDescriptorHandle)
        self._first_index = 0        # the GPU range's first descriptor in that heap
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
        """Retarget the table (None: empty); E_INVALIDARG when the desc is wrong. Clears all bindings
        (and writes nothing: the descriptors already in the heaps stay as they are)."""
        self._reset(desc)

    def _reset(self, desc):
        device = self._device
        if desc is None:
            self._dispatchable, self._size = None, 0
            self._cpu_heap, self._cpu_first, self._heap, self._first_index = None, 0, None, 0
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
        cpu_heap, cpu_first, gpu_heap, gpu_first = None, 0, None, 0
        if size:
            cpu_heap, cpu_first, gpu_heap, gpu_first = self._check_handles(desc, size)
        self._dispatchable, self._size = dispatchable, size
        self._cpu_heap, self._cpu_first, self._heap, self._first_index = cpu_heap, cpu_first, gpu_heap, gpu_first
        self._clear_bindings()

    def _check_handles(self, desc, size):
        """(CPU heap, first, GPU heap, first) for the desc's two handles. DirectML writes descriptors through
        the CPU handle and binds the GPU handle's range: both in CBV_SRV_UAV heaps, the GPU one shader-visible.
        They may lie in different heaps (or ranges); the application then copies the CPU range into the GPU
        range (CopyDescriptors / CopyDescriptorsSimple) before the work executes."""
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
                          f"of this D3D12 device{_d3d12.foreign_handle_phrase(d3d12_device, cpu, gpu=False)}.")
        found_gpu = _d3d12.find_heap_by_gpu_handle(d3d12_device, gpu)
        if found_gpu is None:
            raise invalid(f"DML_BINDING_TABLE_DESC.GPUDescriptorHandle 0x{gpu:X} is not inside a shader-visible "
                          f"descriptor heap of this D3D12 device{_d3d12.foreign_handle_phrase(d3d12_device, gpu, gpu=True)}"
                          f"; DirectML's GPU handle must be shader-visible.")
        for field, (heap, first) in (("CPUDescriptorHandle", found), ("GPUDescriptorHandle", found_gpu)):
            if not _d3d12.heap_is_cbv_srv_uav(heap):
                raise invalid(f"DML_BINDING_TABLE_DESC.{field} is in a {_d3d12.heap_type_name(heap)} heap; "
                              f"DirectML needs a D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV heap.")
            count = _d3d12.heap_num_descriptors(heap)
            if first + size > count:
                raise invalid(f"DML_BINDING_TABLE_DESC.SizeInDescriptors is {size} from descriptor {first} of the "
                              f"{field}'s heap; the heap holds only {count} descriptors.")
        return found + found_gpu

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
            if _is_graph(dispatchable):
                self._write_graph_slots()
                return
            self._write_slots(0, dispatchable._descriptor_bindings(self._inputs or [None] * len(dispatchable._info.inputs),
                                                                   self._persistent))
        else:
            self._inputs = self._bind_initializer_inputs(dispatchable, bindings)

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
            if _is_graph(dispatchable):
                self._write_graph_slots()
                return
            info = dispatchable._info
            self._write_slots(len(info.inputs), outputs or [None] * len(info.outputs))
        else:
            self._outputs = self._bind_initializer_outputs(dispatchable, bindings)

    @void_method
    def BindTemporaryResource(self, binding):
        dispatchable = self._require_dispatchable()
        size = dispatchable.GetBindingProperties().TemporaryResourceSize
        self._temporary = self._bind_resource(binding, "BindTemporaryResource", DML_TEMPORARY_BUFFER_ALIGNMENT,
                                              size, "DML_TEMPORARY_BUFFER_ALIGNMENT", "TemporaryResourceSize")
        if _is_graph(dispatchable):
            self._write_graph_slots()   # the intermediate tensors' slots describe their temporary regions
        elif hasattr(dispatchable, "_temporary_slot"):   # a two-dispatch kernel reads it: the slot after the tensors
            slot = dispatchable._temporary_slot(self._temporary)
            if slot:
                self._write_slots(len(dispatchable._info.tensors), slot)

    @void_method
    def BindPersistentResource(self, binding):
        dispatchable = self._require_dispatchable()
        size = dispatchable.GetBindingProperties().PersistentResourceSize
        self._persistent = self._bind_resource(binding, "BindPersistentResource", DML_PERSISTENT_BUFFER_ALIGNMENT,
                                               size, "DML_PERSISTENT_BUFFER_ALIGNMENT", "PersistentResourceSize")
        from dmlemu.directml.compiled_operator import IDMLCompiledOperator
        if _is_graph(dispatchable):
            self._write_graph_slots()   # owned inputs' and constants' slots describe their persistent regions
        elif isinstance(dispatchable, IDMLCompiledOperator):
            # An owned input's slot describes its copy in the persistent resource (null when none is bound).
            slots = dispatchable._descriptor_bindings([None] * len(dispatchable._info.tensors), self._persistent)
            for index, _ in dispatchable._regions[1:]:
                self._write_slots(index, [slots[index]])

    # ---- checks -----------------------------------------------------------------------------------
    @staticmethod
    def _sequence(bindings, method):
        if bindings is None:
            return ()
        try:
            return check_sequence(bindings, method + " bindings", "a sequence of DML_BINDING_DESC", max_length=0)
        except HResultError as error:
            raise VoidMisuse(error.message) from None

    def _bind_tensors(self, compiled, bindings, method, tensors):
        """A compiled operator's inputs or outputs: one binding per tensor, or none at all (unbind)."""
        if not bindings:
            return None
        op = compiled._schema.c_name
        # The schema's roles name every tensor, a left-out optional one (None in `tensors`) included.
        # (a tensor array's elements each their own role: JOIN's InputTensors[0], ...; a graph's are its schema's)
        info = compiled._info
        if hasattr(info, "input_roles"):
            roles = info.input_roles if method == "BindInputs" else info.output_roles
        else:
            roles = compiled._schema.inputs if method == "BindInputs" else compiled._schema.outputs
        if len(bindings) != len(tensors):
            names = ", ".join(r.field for r in roles)
            kind = "input" if method == "BindInputs" else "output"
            raise VoidMisuse(f"{method} got {len(bindings)} bindings; {op} has {len(tensors)} {kind}"
                         f"{'s' if len(tensors) != 1 else ''} ({names}), and the count must match exactly.")
        bound = []
        for i, (binding, tensor, role) in enumerate(zip(bindings, tensors, roles)):
            where = f"{method}[{i}] ({role.field})"
            if tensor is None:   # an optional tensor the desc left out: DML_BINDING_TYPE_NONE only
                if self._binding_type(binding, where) != DML_BINDING_TYPE_NONE:
                    raise VoidMisuse(f"{where} is {self._binding_type(binding, where).name}; {role.field} was left "
                                     f"out of the operator desc (None), so it must be DML_BINDING_TYPE_NONE.")
                bound.append(None)
                continue
            bound.append(self._bind_one(binding, where, tensor, role.optional or tensor.owned_by_dml))
            if tensor.owned_by_dml and bound[-1] is not None:
                raise VoidMisuse(f"{where} binds {_d3d12.label(bound[-1].resource)}, but {tensor.field} is "
                                 f"DML_TENSOR_FLAG_OWNED_BY_DML: it is bound at initialization (the initializer's "
                                 f"BindInputs) and must be DML_BINDING_TYPE_NONE at execution.")
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

    @staticmethod
    def _check_persistent_disjoint(bound, sizes):
        """An initializer's persistent resources are its outputs: their writable areas (PersistentResourceSize
        bytes from Offset) must not overlap, or one operator's initialization overwrites another's."""
        areas = sorted((id(b.resource), b.offset, i) for i, b in enumerate(bound) if b is not None and sizes[i])
        for (key_a, start_a, i), (key_b, start_b, j) in zip(areas, areas[1:]):
            end_a = start_a + sizes[i]
            if key_a == key_b and start_b < end_a:
                first, second = sorted((i, j))
                a, b = bound[first], bound[second]
                raise VoidMisuse(f"BindOutputs[{second}] writes bytes {b.offset} to {b.offset + sizes[second]} of "
                                 f"{_d3d12.label(b.resource)} (operator {second}'s persistent resource), overlapping "
                                 f"BindOutputs[{first}] at {a.offset} to {a.offset + sizes[first]} (operator {first}'s); "
                                 f"outputs' writable ranges must not overlap.")

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
        """One BUFFER_ARRAY (or NONE) per target operator, its array sized to the operator's inputs (or
        empty); only DML-owned tensors take a buffer. Returns one list of BoundBuffer|None per operator and
        writes their descriptors (slots 1.. of each operator's part of the range)."""
        operators = initializer._operators
        if bindings and len(bindings) != len(operators):
            raise VoidMisuse(f"BindInputs got {len(bindings)} bindings; the initializer has {len(operators)} operators "
                         f"and takes one DML_BINDING_TYPE_BUFFER_ARRAY per operator (or no bindings).")
        bound = [[None] * len(compiled._info.inputs) for compiled in operators]
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
                if entry.Buffer is None:
                    continue
                if tensor is None:
                    raise VoidMisuse(f"{where}.Bindings[{j}] has a Buffer, but that optional tensor was left out of "
                                     f"{compiled._schema.c_name}'s desc (None); only DML-owned tensors are bound at "
                                     f"initialization.")
                if not tensor.owned_by_dml:
                    raise VoidMisuse(f"{where}.Bindings[{j}] ({tensor.field}) has a Buffer, but {tensor.field} is not "
                                 f"DML_TENSOR_FLAG_OWNED_BY_DML; only DML-owned tensors are bound at initialization.")
                bound[i][j] = self._check_buffer(
                    entry, f"{where}.Bindings[{j}] ({tensor.field})", tensor.binding_alignment,
                    f"a multiple of {tensor.binding_alignment} (DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT or "
                    f"{tensor.field}.GuaranteedBaseOffsetAlignment)", tensor.total_bytes,
                    f"{tensor.field}.TotalTensorSizeInBytes")
        for first, inputs in zip(initializer._first_slots(), bound):
            self._write_slots(first + 1, inputs)
        return bound if bindings else None

    def _bind_initializer_outputs(self, initializer, bindings):
        """The persistent resource of each target operator (NONE or an empty binding when none); writes
        each into slot 0 of its operator's part of the range."""
        operators = initializer._operators
        if not bindings:
            for first in initializer._first_slots():
                self._write_slots(first, [None])
            return None
        if len(bindings) != len(operators):
            raise VoidMisuse(f"BindOutputs got {len(bindings)} bindings; the initializer has {len(operators)} operators "
                         f"and takes one persistent-resource binding per operator (or no bindings).")
        bound, sizes = [], []
        for i, (binding, compiled) in enumerate(zip(bindings, operators)):
            size = compiled.GetBindingProperties().PersistentResourceSize
            bound.append(self._bind_resource(binding, f"BindOutputs[{i}]", DML_PERSISTENT_BUFFER_ALIGNMENT, size,
                                             "DML_PERSISTENT_BUFFER_ALIGNMENT", "PersistentResourceSize"))
            sizes.append(size)
        self._check_persistent_disjoint(bound, sizes)
        for first, persistent in zip(initializer._first_slots(), bound):
            self._write_slots(first, [persistent])
        return bound

    # ---- descriptors --------------------------------------------------------------------------------
    def _tensor_bindings(self):
        """A compiled operator's bindings in binding order (inputs then outputs); None where unbound."""
        compiled = self._dispatchable
        inputs = self._inputs or [None] * len(compiled._info.inputs)
        outputs = self._outputs or [None] * len(compiled._info.outputs)
        return list(inputs) + list(outputs)

    def _write_slots(self, first_slot, bindings):
        """Bind*: one buffer descriptor per binding (a null descriptor for None) into the CPU range, slots
        first_slot, first_slot + 1, ... (slot i = tensor i in binding order). The GPU reads the GPU range
        when the dispatch executes; when the two ranges differ the application copies one to the other."""
        if self._cpu_heap is not None:
            write_descriptors(self._cpu_heap, self._cpu_first + first_slot, bindings)

    def _write_graph_slots(self):
        """A compiled graph (compiled_graph.py): every node's slots for the bindings in force. A graph
        input, output, temporary or persistent binding is described in every node slot that reads or
        writes it, so each Bind* rewrites the whole range."""
        graph = self._dispatchable
        self._write_slots(0, graph._descriptor_slots(self._inputs, self._outputs, self._temporary, self._persistent))

    @property
    def _descriptor_table_gpu_va(self):
        return _d3d12.heap_descriptor_gpu_va(self._heap, self._first_index)


def _is_graph(dispatchable):
    from dmlemu.directml.compiled_graph import IDMLCompiledGraph
    return isinstance(dispatchable, IDMLCompiledGraph)


def descriptor_bytes(bindings):
    """The descriptor slots `bindings` (BoundBuffer or None) make, as one uint8 array (what Bind* writes)."""
    data = np.zeros(len(bindings) * DESCRIPTOR_SIZE, dtype=np.uint8)
    for slot, bound in enumerate(bindings):
        if bound is not None:
            write_buffer_descriptor(data, slot * DESCRIPTOR_SIZE, bound.gpu_va, bound.size)
    return data


def write_descriptors(heap, first_index, bindings):
    """Buffer descriptors for `bindings` (BoundBuffer or None) into heap slots first_index, ..."""
    heap_bytes = _d3d12.heap_bytes(heap)
    for slot, bound in enumerate(bindings):
        offset = _d3d12.heap_slot_offset(heap, first_index + slot)
        if bound is None:
            heap_bytes[offset:offset + DESCRIPTOR_SIZE] = 0
        else:
            write_buffer_descriptor(heap_bytes, offset, bound.gpu_va, bound.size)
