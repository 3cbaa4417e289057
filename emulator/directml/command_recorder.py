"""IDMLCommandRecorder: records DirectML dispatches into D3D12 command lists.

RecordDispatch is void in C, so its checks remove the DML device: the command list must be open and
of type DIRECT or COMPUTE, the binding table must belong to the dispatchable, the list must have the
table's shader-visible descriptor heap set, every required binding must be present, a compiled
operator must have been initialized (or have its initializer dispatch recorded), an output may
alias an input only for in-place operators, with the same offset and size, and the temporary and
persistent resources follow DirectML 1.7's hazard rules (the temporary intersects no other binding,
the persistent no output). It then writes the bound
tensors' buffer descriptors into the table's heap range (slot i = tensor i in binding order) and
appends one command to the list (through the D3D12 list's `_record`). When the queue executes it,
the command checks that the operator was initialized (else the DML device is removed and the dispatch
skipped) and that every bound resource is in UNORDERED_ACCESS, promoting COMMON buffers as D3D12 does
(a resource in another state is a D3D12 execution error: the queue removes the D3D12 device, and the
DML device with it); then the GPU runs the kernel with the table's descriptors and the constant buffer.
With DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE the bindings in force at execution are used, and get the
same aliasing and hazard checks there (a misuse removes the DML device and skips the dispatch).
"""
from dmlemu.directml import _d3d12, enums
from dmlemu.directml.compiled_operator import IDMLCompiledOperator
from dmlemu.directml.binding_table import IDMLBindingTable, write_descriptors
from dmlemu.com import VoidMisuse, void_method
from dmlemu.errors import describe
from dmlemu.directml.objects import IDMLDeviceChild, IDMLDispatchable


class IDMLCommandRecorder(IDMLDeviceChild):
    _iids = (enums.IID_IDMLCommandRecorder,)

    @void_method
    def RecordDispatch(self, commandList, dispatchable, bindings):
        device = self._device
        self._check_command_list(commandList)
        if not isinstance(dispatchable, IDMLDispatchable):
            raise VoidMisuse(f"dispatchable is {describe(dispatchable)}; it must be an IDMLCompiledOperator or "
                         f"IDMLOperatorInitializer.")
        if dispatchable._device is not device:
            raise VoidMisuse("dispatchable was created by another DirectML device.")
        if not dispatchable._resident:
            raise VoidMisuse(f"{dispatchable!r} is evicted; call MakeResident before recording it.")
        if not isinstance(bindings, IDMLBindingTable):
            raise VoidMisuse(f"bindings is {describe(bindings)}; it must be an IDMLBindingTable.")
        if bindings._device is not device:
            raise VoidMisuse("bindings was created by another DirectML device.")
        if bindings._dispatchable is not dispatchable:
            raise VoidMisuse(f"the binding table was created (or Reset) for {bindings._dispatchable!r}, not for "
                         f"{dispatchable!r}.")
        properties = dispatchable.GetBindingProperties()
        if properties.RequiredDescriptorCount:
            self._check_heap_set(commandList, bindings)
        if properties.TemporaryResourceSize and bindings._temporary is None:
            raise VoidMisuse(f"{dispatchable!r} needs a temporary resource of {properties.TemporaryResourceSize} bytes; "
                         f"none is bound (BindTemporaryResource).")
        if properties.PersistentResourceSize and bindings._persistent is None:
            raise VoidMisuse(f"{dispatchable!r} needs a persistent resource of {properties.PersistentResourceSize} bytes; "
                         f"none is bound (BindPersistentResource).")
        if isinstance(dispatchable, IDMLCompiledOperator):
            command = self._record_compiled(dispatchable, bindings)
        else:
            command = self._record_initializer(dispatchable)
        _d3d12.record(commandList, command)

    # ---- checks -----------------------------------------------------------------------------------
    def _check_command_list(self, command_list):
        if not _d3d12.is_command_list(command_list):
            raise VoidMisuse(f"commandList is {describe(command_list)}; it must be an ID3D12GraphicsCommandList.")
        if _d3d12.owner_device(command_list) is not self._device._d3d12_device:
            raise VoidMisuse("commandList belongs to another D3D12 device than the DirectML device's.")
        list_type = _d3d12.command_list_type(command_list)
        if list_type not in (_d3d12.D3D12_COMMAND_LIST_TYPE_DIRECT, _d3d12.D3D12_COMMAND_LIST_TYPE_COMPUTE):
            raise VoidMisuse(f"commandList is of type {_d3d12.command_list_type_name(list_type)}; DirectML records "
                         f"only into D3D12_COMMAND_LIST_TYPE_DIRECT or D3D12_COMMAND_LIST_TYPE_COMPUTE lists.")
        if not _d3d12.command_list_is_open(command_list):
            raise VoidMisuse("commandList is closed; Reset it before recording.")

    @staticmethod
    def _check_heap_set(command_list, table):
        heaps = _d3d12.command_list_descriptor_heaps(command_list)
        heap = next((h for h in heaps if _d3d12.heap_is_cbv_srv_uav(h)), None)
        if heap is None:
            raise VoidMisuse("no D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV descriptor heap is set on commandList; call "
                         "SetDescriptorHeaps with the binding table's heap first.")
        if heap is not table._heap:
            raise VoidMisuse("the CBV_SRV_UAV descriptor heap set on commandList is not the one holding the binding "
                         "table's descriptors.")

    def _record_compiled(self, compiled, table):
        schema = compiled._schema
        bound = table._tensor_bindings()
        for tensor, binding in zip(compiled._info.tensors, bound):
            if binding is None:
                method = "BindOutputs" if tensor.is_output else "BindInputs"
                raise VoidMisuse(f"{schema.c_name} has no binding for {tensor.field}; call {method} before RecordDispatch.")
        if not (compiled._initialized or compiled._initialization_recorded):
            raise VoidMisuse(f"the compiled operator {schema.c_name} was never initialized; record an "
                         f"IDMLOperatorInitializer dispatch for it (and execute it) first.")
        self._check_aliasing(compiled, bound)
        self._check_scratch_hazards(compiled, bound, table)
        table._write_descriptors(bound)
        return DispatchCommand(self._device, compiled, table, bound)

    @staticmethod
    def _check_aliasing(compiled, bound):
        """An output overlapping an input: only for in-place operators, with equal offset, size and layout."""
        info = compiled._info
        schema = info.schema
        n_inputs = len(info.inputs)
        for o, out_tensor in enumerate(info.outputs):
            out = bound[n_inputs + o]
            out_end = out.offset + out_tensor.total_bytes
            for i, in_tensor in enumerate(info.inputs):
                inp = bound[i]
                if inp.resource is not out.resource:
                    continue
                in_end = inp.offset + in_tensor.total_bytes
                if not (inp.offset < out_end and out.offset < in_end):
                    continue
                where = f"{out_tensor.field} (bytes {out.offset} to {out_end}) overlaps {in_tensor.field} (bytes " \
                        f"{inp.offset} to {in_end}) in {_d3d12.label(out.resource)}"
                if not schema.in_place:
                    raise VoidMisuse(f"{where}; {schema.c_name} does not support in-place execution.")
                if inp.offset != out.offset or inp.size != out.size:
                    raise VoidMisuse(f"{where}; in-place execution needs the same Offset and SizeInBytes for both "
                                 f"(input {inp.offset}+{inp.size}, output {out.offset}+{out.size}).")
                same_layout = (in_tensor.effective_strides == out_tensor.effective_strides
                               and in_tensor.total_bytes == out_tensor.total_bytes
                               and in_tensor.data_type == out_tensor.data_type)
                if not same_layout:
                    raise VoidMisuse(f"{where}; in-place execution needs identical tensor descs (DataType, Sizes, "
                                 f"Strides and TotalTensorSizeInBytes).")

    @staticmethod
    def _check_scratch_hazards(compiled, bound, table):
        """DirectML 1.7.0's binding-hazard rules for the temporary and persistent resources: the temporary
        binding intersects no input, output or persistent binding; the persistent binding no output."""
        regions = [(t.field, b.resource, b.offset, b.offset + t.total_bytes, t.is_output)
                   for t, b in zip(compiled._info.tensors, bound)]
        persistent, temporary = table._persistent, table._temporary
        if persistent is not None:
            regions.append(("the persistent resource", persistent.resource, persistent.offset,
                            persistent.offset + persistent.size, True))
        for name, scratch, rule, others in (
                ("temporary", temporary, "any input, output or persistent binding", lambda is_output: True),
                ("persistent", persistent, "any output or temporary binding", lambda is_output: is_output)):
            if scratch is None:
                continue
            start, end = scratch.offset, scratch.offset + scratch.size
            for field, resource, other_start, other_end, is_output in regions:
                if field == f"the {name} resource" or resource is not scratch.resource or not others(is_output):
                    continue
                if start < other_end and other_start < end:
                    raise VoidMisuse(f"the {name} resource (bytes {start} to {end} of {_d3d12.label(resource)}) overlaps "
                                 f"{field} (bytes {other_start} to {other_end}); DirectML requires the {name} binding "
                                 f"not to intersect {rule}.")

    def _record_initializer(self, initializer):
        for compiled in initializer._operators:
            compiled._initialization_recorded = True
        return InitializeCommand(self._device, initializer._operators)


class DispatchCommand:
    """A compiled operator's dispatch on a command list; runs when the queue executes the list."""

    def __init__(self, dml_device, compiled, table, bound):
        self.dml_device = dml_device
        self.compiled = compiled
        self.table = table if compiled._descriptors_volatile else None
        self.bound = tuple(bound)
        self.heap, self.first_index = table._heap, table._first_index
        self.descriptor_table_va = table._descriptor_table_gpu_va
        self.name = f"DirectML {compiled._schema.name}"

    def execute(self, context):
        device = self.dml_device
        if device._removed_reason is not None:
            return
        compiled = self.compiled
        c_name = compiled._schema.c_name
        if not compiled._initialized:
            device._remove(f"ExecuteCommandLists: the compiled operator {c_name} was never initialized (its "
                           f"IDMLOperatorInitializer dispatch did not execute before it); the dispatch is skipped.")
            return
        bound = self.bound
        late = self.table is not None and self.table._dispatchable is compiled
        if late:
            bound = tuple(self.table._tensor_bindings())  # DESCRIPTORS_VOLATILE: bindings as they are now
        for tensor, binding in zip(compiled._info.tensors, bound):
            if binding is None:
                device._remove(f"ExecuteCommandLists: {c_name} has no binding for {tensor.field}; the dispatch is skipped.")
                return
        if late:
            # Bindings changed after RecordDispatch get the hazard checks RecordDispatch gave the old ones.
            try:
                IDMLCommandRecorder._check_aliasing(compiled, bound)
                IDMLCommandRecorder._check_scratch_hazards(compiled, bound, self.table)
            except VoidMisuse as misuse:
                device._remove(f"ExecuteCommandLists: {misuse.message.rstrip('.')} (bindings in force at execution, "
                               f"DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE); the dispatch is skipped.")
                return
        for tensor, binding in zip(compiled._info.tensors, bound):
            _d3d12.require_unordered_access(context, binding.resource, f"the {tensor.field} of a DirectML {c_name} dispatch")
        if self.table is None:
            # Without DESCRIPTORS_VOLATILE DirectML keeps the bindings of record time (real DirectML may
            # promote them to root descriptors), so the table's range may be reused or Reset meanwhile.
            write_descriptors(self.heap, self.first_index, bound)
        launch = compiled._kernel.launch(self.descriptor_table_va, compiled._constants.gpu_va)
        _d3d12.dispatch(context, launch)


class InitializeCommand:
    """An initializer's dispatch: marks its operators initialized when executed."""

    def __init__(self, dml_device, operators):
        self.dml_device = dml_device
        self.operators = tuple(operators)
        self.name = "DirectML initialize"

    def execute(self, context):
        if self.dml_device._removed_reason is not None:
            return
        for compiled in self.operators:
            compiled._initialized = True
