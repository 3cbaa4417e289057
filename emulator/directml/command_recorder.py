"""IDMLCommandRecorder: records DirectML dispatches into D3D12 command lists.

RecordDispatch is void in C, so its checks remove the DML device: the command list must be open and
of type DIRECT or COMPUTE, the binding table must belong to the dispatchable, a compiled operator must
have been initialized (or have its initializer dispatch recorded) and, without
DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE, every required binding must be present, an output may alias an
input only for in-place operators (same offset and size), and the temporary and persistent resources
follow DirectML 1.7's hazard rules. A table whose GPU range is not in the CBV_SRV_UAV heap set on the
list is a D3D12 error instead (SetComputeRootDescriptorTable: the list's error state, nothing recorded).
RecordDispatch writes no descriptor (Bind* did, through the table's CPU handle) and keeps no binding:
the recorded command keeps the table's GPU range. When the queue executes it, the command reads the
descriptors the GPU range holds now; without DESCRIPTORS_VOLATILE the DML debug layer reports each slot
that differs from what the bindings were at RecordDispatch (undefined in DirectML), with it the
descriptors found get RecordDispatch's binding checks there (a misuse removes the DML device and skips
the dispatch). Every buffer the descriptors name must be in UNORDERED_ACCESS (COMMON is promoted; another
state removes the D3D12 device), the reads and writes go to the hazard tracker (d3d12/hazards.py), and
the GPU runs the kernel on that descriptor table. See docs/DESCRIPTORS_AND_HAZARDS.md.
An initializer's dispatch (InitializeCommand) runs the copy kernel kernels/initialize.s once per region
of each target operator's persistent resource; a compiled operator's kernel reads its constants at the
persistent binding's address. The DML debug layer reports an unbound or never-initialized persistent
resource; without it the kernel reads what those bytes hold (docs/PERSISTENT_RESOURCES.md).
A compiled graph (compiled_graph.py) gets the same checks once, then records a start command and its
partition's node dispatches, with a UAV barrier (through the list's ResourceBarrier) where a dependency
level starts: GraphStartCommand, NodeDispatchCommand (docs/GRAPHS.md).
"""
import dataclasses
import weakref

import numpy as np

from dmlemu.directml import _d3d12, enums
from dmlemu.functional.buffer_descriptor import DESCRIPTOR_SIZE, read_buffer_descriptor
from dmlemu.directml.compiled_operator import IDMLCompiledOperator
from dmlemu.directml.compiled_graph import IDMLCompiledGraph
from dmlemu.directml.binding_table import BoundBuffer, IDMLBindingTable, descriptor_bytes
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
        volatile = isinstance(dispatchable, IDMLCompiledOperator) and dispatchable._descriptors_volatile
        if properties.TemporaryResourceSize and bindings._temporary is None and not volatile:
            raise VoidMisuse(f"{dispatchable!r} needs a temporary resource of {properties.TemporaryResourceSize} bytes; "
                         f"none is bound (BindTemporaryResource).")
        if properties.PersistentResourceSize and bindings._persistent is None and device._debug:
            raise VoidMisuse(f"{dispatchable!r} needs a persistent resource of {properties.PersistentResourceSize} bytes; "
                         f"none is bound (BindPersistentResource).")
        compiled = isinstance(dispatchable, IDMLCompiledOperator)
        if compiled:
            expected = self._check_compiled(dispatchable, bindings)
        if properties.RequiredDescriptorCount and not self._descriptor_table_settable(commandList, bindings):
            return   # a D3D12 error: the list is in its error state and records nothing more of this call
        if compiled and isinstance(dispatchable, IDMLCompiledGraph):
            self._record_graph(commandList, dispatchable, bindings, expected)
            return
        if compiled:
            command = DispatchCommand(self._device, dispatchable, bindings, expected)
        else:
            command = self._record_initializer(dispatchable, bindings)
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
    def _descriptor_table_settable(command_list, table):
        """RecordDispatch sets the table's GPU range as the dispatch's descriptor table, which D3D12 allows
        only inside the CBV_SRV_UAV heap set on the list (RecordDispatch does not set heaps). Otherwise a
        D3D12 error (SetComputeRootDescriptorTable: the list's error state), not a DirectML one: False."""
        heap = _d3d12.command_list_cbv_srv_uav_heap(command_list)
        if heap is table._heap:
            return True
        gpu = _d3d12.heap_gpu_handle(table._heap, table._first_index)
        where = (f"DirectML's RecordDispatch sets the descriptor table at GPU handle 0x{gpu:X} (slot "
                 f"{table._first_index} of {_d3d12.heap_label(table._heap)}), but ")
        list_label = _d3d12.label(command_list)
        if heap is None:
            sentence = (f"{where}no D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV descriptor heap is set on {list_label}; "
                        f"call SetDescriptorHeaps with that heap before RecordDispatch.")
        else:
            sentence = (f"{where}the CBV_SRV_UAV heap set on {list_label} is {_d3d12.heap_label(heap)}; a "
                        f"descriptor table must lie in the heap that is set.")
        _d3d12.record_error(command_list, "SetComputeRootDescriptorTable", sentence)
        return False

    def _check_compiled(self, compiled, table):
        """RecordDispatch's checks of a compiled operator's bindings; the descriptor bytes the GPU must read
        (what Bind* wrote), or None with DESCRIPTORS_VOLATILE, whose bindings may still change."""
        schema = compiled._schema
        if compiled._descriptors_volatile:
            bound = None   # binding may be deferred until the list is submitted: checked at execution
        else:
            bound = table._tensor_bindings()
            for tensor, binding in zip(compiled._info.tensors, bound):
                # total_bytes 0: a graph input no edge uses (compiled_graph.py), which needs no binding;
                # None: an optional tensor the desc left out (bound as DML_BINDING_TYPE_NONE)
                if binding is None and tensor is not None and not tensor.owned_by_dml and tensor.total_bytes:
                    method = "BindOutputs" if tensor.is_output else "BindInputs"
                    raise VoidMisuse(f"{schema.c_name} has no binding for {tensor.field}; call {method} before "
                                     f"RecordDispatch.")
        if not (compiled._initialized or compiled._initialization_recorded) and self._device._debug:
            raise VoidMisuse(f"the compiled operator {schema.c_name} was never initialized; record an "
                             f"IDMLOperatorInitializer dispatch for it (and execute it) first.")
        if bound is None:
            return None
        bound = compiled._descriptor_bindings(bound, table._persistent)   # owned inputs: in the persistent resource
        self._check_aliasing(compiled, bound)
        self._check_scratch_hazards(compiled, bound, table)
        if isinstance(compiled, IDMLCompiledGraph):   # the node slots, as Bind* wrote them
            return descriptor_bytes(compiled._descriptor_slots(table._inputs, table._outputs, table._temporary,
                                                               table._persistent))
        return descriptor_bytes(bound + compiled._temporary_slot(table._temporary))

    @staticmethod
    def _check_aliasing(compiled, bound):
        """An output overlapping an input: only for in-place operators, with equal offset, size and layout."""
        info = compiled._info
        schema = info.schema
        n_inputs = len(info.inputs)
        for o, out_tensor in enumerate(info.outputs):
            out = bound[n_inputs + o]
            if out is None:       # an optional output left out (RANDOM_GENERATOR's OutputStateTensor)
                continue
            out_end = out.offset + out_tensor.total_bytes
            for i, in_tensor in enumerate(info.inputs):
                inp = bound[i]
                if inp is None or inp.resource is not out.resource:
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
                   for t, b in zip(compiled._info.tensors, bound) if b is not None]
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

    def _record_graph(self, command_list, graph, table, expected):
        """A compiled graph's dispatch: its partition's dispatches in order (graph.py), each a node's kernel
        on the node's slots of the table's range, with the UAV barrier DirectML records between dependency
        levels (a null UAV barrier through the list's ResourceBarrier), after one command that does the
        execution-time checks once for the whole graph."""
        from dmlemu.d3d12.d3dx12 import CD3DX12_RESOURCE_BARRIER
        execution = GraphExecution(self._device, graph, table, expected)
        _d3d12.record(command_list, GraphStartCommand(execution))
        for dispatch, unit in zip(graph._plan.dispatches, graph._units):
            if dispatch.barrier_before:
                command_list.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.UAV(None)])
            _d3d12.record(command_list, NodeDispatchCommand(execution, unit))

    def _record_initializer(self, initializer, table):
        """The initializer's dispatch. The DML debug layer checks that each operator's persistent resource
        and owned inputs are bound (a misuse removes the device); without it a missing binding is a null
        descriptor: the copy writes nothing, or copies zeros."""
        if self._device._debug:
            outputs = table._outputs or [None] * len(initializer._operators)
            inputs = table._inputs or [[None] * len(c._info.inputs) for c in initializer._operators]
            for k, (compiled, persistent, bound) in enumerate(zip(initializer._operators, outputs, inputs)):
                size = compiled.GetBindingProperties().PersistentResourceSize
                if size and persistent is None:
                    raise VoidMisuse(f"the initializer's BindOutputs[{k}] binds no persistent resource for "
                                     f"{compiled._schema.c_name}, which needs {size} bytes (PersistentResourceSize).")
                for j, (tensor, binding) in enumerate(zip(compiled._info.inputs, bound)):
                    if tensor is not None and tensor.owned_by_dml and binding is None:
                        raise VoidMisuse(f"the initializer's BindInputs[{k}].Bindings[{j}] binds nothing for "
                                         f"{tensor.field} of {compiled._schema.c_name}, which is "
                                         f"DML_TENSOR_FLAG_OWNED_BY_DML: its data is bound at initialization.")
        for compiled in initializer._operators:
            compiled._initialization_recorded = True
        return InitializeCommand(self._device, initializer, table)


class DispatchCommand:
    """A compiled operator's dispatch on a command list; runs when the queue executes the list.

    It keeps the table's GPU range (where the kernel reads its descriptors) and, without
    DESCRIPTORS_VOLATILE, the descriptors the bindings made at RecordDispatch (`expected`), to tell the
    DML debug layer when the range holds others at execution. No binding is kept for the GPU."""

    def __init__(self, dml_device, compiled, table, expected):
        self.dml_device = dml_device
        self.compiled = compiled
        self.table = table             # read at execution only for DESCRIPTORS_VOLATILE scratch bindings
        self.expected = expected       # uint8 descriptor bytes, or None (DESCRIPTORS_VOLATILE)
        self.gpu_heap, self.gpu_first = table._heap, table._first_index
        self.cpu_heap, self.cpu_first = table._cpu_heap, table._cpu_first
        self.scratch = (table._temporary, table._persistent)
        self.descriptor_table_va = table._descriptor_table_gpu_va
        self.name = f"DirectML {compiled._schema.name}"

    def execute(self, context):
        device = self.dml_device
        if device._removed_reason is not None:
            return
        compiled = self.compiled
        c_name = compiled._schema.c_name
        persistent = self.scratch[1] if self.expected is not None or self.table._dispatchable is not compiled \
            else self.table._persistent   # the persistent binding in force (DESCRIPTORS_VOLATILE: as it is now)
        if device._debug and not _persistent_initialized(device, compiled, persistent):
            return
        tensors = compiled._info.tensors
        # What the GPU reads: the descriptor table's slots as the heap holds them now.
        slots = _d3d12.read_descriptors(context, self.descriptor_table_va, len(tensors))
        bound = [_decode(context, slots, i) for i in range(len(tensors))]
        if self.expected is None:
            if not self._check_late_bindings(device, compiled, bound):
                return
        else:
            self._report_changed_descriptors(context, device, compiled, slots)
        for tensor, binding in zip(tensors, bound):
            if binding is not None:
                _d3d12.require_unordered_access(context, binding.resource,
                                                f"the {tensor.field} of a DirectML {c_name} dispatch")
        ranges = [(t.is_output, (b.resource, b.offset, b.size)) for t, b in zip(tensors, bound) if b is not None]
        _d3d12.note_access(context, self.name, reads=[r for is_output, r in ranges if not is_output],
                           writes=[r for is_output, r in ranges if is_output])
        launches = compiled._kernel.launches(self.descriptor_table_va, compiled._constants_va(persistent))
        for i, launch in enumerate(launches):
            if i:
                context.gpu.barrier()    # DirectML's UAV barrier between its own dispatches (the partials)
            _d3d12.dispatch(context, launch)

    def _check_late_bindings(self, device, compiled, bound):
        """DESCRIPTORS_VOLATILE: the bindings are the descriptors in force now; they get RecordDispatch's
        checks here (a misuse removes the DML device and skips the dispatch). False when skipped."""
        c_name = compiled._schema.c_name
        for tensor, binding in zip(compiled._info.tensors, bound):
            if binding is None and tensor is not None:   # None: a left-out optional tensor, bound as NONE
                device._remove(f"ExecuteCommandLists: {c_name} has no binding for {tensor.field}; the dispatch is "
                               f"skipped.")
                return False
        table = self.table
        scratch = table if table._dispatchable is compiled else _Scratch(*self.scratch)
        try:
            IDMLCommandRecorder._check_aliasing(compiled, bound)
            IDMLCommandRecorder._check_scratch_hazards(compiled, bound, scratch)
        except VoidMisuse as misuse:
            device._remove(f"ExecuteCommandLists: {misuse.message.rstrip('.')} (bindings in force at execution, "
                           f"DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE); the dispatch is skipped.")
            return False
        return True

    def _report_changed_descriptors(self, context, device, compiled, slots):
        """Without DESCRIPTORS_VOLATILE, bindings changed after RecordDispatch are undefined in DirectML; the
        DML debug layer reports each slot whose descriptor is not the one bound at RecordDispatch (the GPU
        reads what the heap holds)."""
        gpu_label = _d3d12.heap_label(self.gpu_heap)
        split = self.cpu_heap is not self.gpu_heap or self.cpu_first != self.gpu_first
        for i, tensor in enumerate(compiled._info.tensors):
            now = slots[i * DESCRIPTOR_SIZE:i * DESCRIPTOR_SIZE + 16]
            then = self.expected[i * DESCRIPTOR_SIZE:i * DESCRIPTOR_SIZE + 16]
            if (now == then).all():
                continue
            hint = (f"; was the table's CPU range (from slot {self.cpu_first} of {_d3d12.heap_label(self.cpu_heap)}) "
                    f"copied into it?" if split else "")
            device._report(f"ExecuteCommandLists: slot {self.gpu_first + i} of {gpu_label}, the {tensor.field} "
                           f"descriptor of a {compiled._schema.c_name} dispatch, holds {_describe(context, now)}, but "
                           f"RecordDispatch was called with {_describe(context, then)}{hint} Without "
                           f"DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE the bindings must not change from RecordDispatch "
                           f"until the work completes (undefined in DirectML; the GPU reads what the heap holds).")


class GraphExecution:
    """What the commands of one recorded graph dispatch share: the graph, the table's GPU range, the
    bindings RecordDispatch saw (`expected`: the descriptor bytes of every node slot; None with
    DESCRIPTORS_VOLATILE) and, while the list executes, whether the start command let the nodes run and
    which persistent binding is in force."""

    def __init__(self, dml_device, graph, table, expected):
        self.dml_device = dml_device
        self.graph = graph
        self.table = table
        self.expected = expected
        self.gpu_heap, self.gpu_first = table._heap, table._first_index
        self.cpu_heap, self.cpu_first = table._cpu_heap, table._cpu_first
        self.scratch = (table._temporary, table._persistent)
        self.run = False                 # set by GraphStartCommand at each execution
        self.persistent = None

    def slot_va(self, slot):
        return _d3d12.heap_descriptor_gpu_va(self.gpu_heap, self.gpu_first + slot)


class GraphStartCommand:
    """The execution-time checks of a graph dispatch, once for all its nodes: the device still works,
    the graph was initialized (DML debug layer), descriptors changed since RecordDispatch are reported
    (without DESCRIPTORS_VOLATILE, debug layer), or, with DESCRIPTORS_VOLATILE, the bindings in force
    are complete and legal (a misuse removes the DML device and the nodes are skipped)."""

    name = "DirectML graph"

    def __init__(self, execution):
        self.execution = execution

    def execute(self, context):
        ex = self.execution
        ex.run = False
        device, graph, table = ex.dml_device, ex.graph, ex.table
        if device._removed_reason is not None:
            return
        volatile = ex.expected is None
        ex.persistent = table._persistent if volatile and table._dispatchable is graph else ex.scratch[1]
        if device._debug and not _persistent_initialized(device, graph, ex.persistent):
            return
        if volatile:
            if table._dispatchable is not graph:
                device._remove(f"ExecuteCommandLists: the binding table of a {graph._schema.c_name} dispatch was "
                               f"Reset for another dispatchable before it executed (DML_EXECUTION_FLAG_DESCRIPTORS_"
                               f"VOLATILE); the dispatch is skipped.")
                return
            temporary_size = graph.GetBindingProperties().TemporaryResourceSize
            if temporary_size and table._temporary is None:
                device._remove(f"ExecuteCommandLists: {graph!r} needs a temporary resource of {temporary_size} "
                               f"bytes; none is bound (BindTemporaryResource); the dispatch is skipped.")
                return
            bound = table._tensor_bindings()
            for tensor, binding in zip(graph._info.tensors, bound):
                if binding is None and not tensor.owned_by_dml and tensor.total_bytes:
                    device._remove(f"ExecuteCommandLists: {graph._schema.c_name} has no binding for {tensor.field}; "
                                   f"the dispatch is skipped.")
                    return
            try:
                IDMLCommandRecorder._check_aliasing(graph, bound)
                IDMLCommandRecorder._check_scratch_hazards(graph, bound, table)
            except VoidMisuse as misuse:
                device._remove(f"ExecuteCommandLists: {misuse.message.rstrip('.')} (bindings in force at execution, "
                               f"DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE); the dispatch is skipped.")
                return
        elif device._debug:
            self._report_changed_descriptors(context)
        ex.run = True

    def _report_changed_descriptors(self, context):
        ex = self.execution
        graph = ex.graph
        slots = _d3d12.read_descriptors(context, ex.slot_va(0), graph._descriptor_count)
        split = ex.cpu_heap is not ex.gpu_heap or ex.cpu_first != ex.gpu_first
        for unit in graph._units:
            first = unit.first_slot
            for i, tensor in enumerate(unit.infos):
                at = (first + i) * DESCRIPTOR_SIZE
                now, then = slots[at:at + 16], ex.expected[at:at + 16]
                if (now == then).all():
                    continue
                hint = (f"; was the table's CPU range (from slot {ex.cpu_first} of {_d3d12.heap_label(ex.cpu_heap)}) "
                        f"copied into it?" if split else "")
                field = "?" if tensor is None else tensor.field
                ex.dml_device._report(
                    f"ExecuteCommandLists: slot {ex.gpu_first + first + i} of {_d3d12.heap_label(ex.gpu_heap)}, the "
                    f"{field} descriptor of dispatch {unit.index + 1} ({unit.name}) of a {graph._schema.c_name} "
                    f"dispatch, holds "
                    f"{_describe(context, now)}, but RecordDispatch was called with {_describe(context, then)}{hint} "
                    f"Without DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE the bindings must not change from RecordDispatch "
                    f"until the work completes (undefined in DirectML; the GPU reads what the heap holds).")


class NodeDispatchCommand:
    """One dispatch of a graph's partition (compiled_graph.DispatchUnit): a node's kernel, or a fused
    group's, on its slots of the graph's range, reading its constants in its region of the graph's
    persistent resource. Like a single operator's dispatch it checks the resource states and tells the
    hazard tracker what it reads and writes; the trace names it after its nodes ("a+b+c: <kernel>")."""

    def __init__(self, execution, unit):
        self.execution = execution
        self.unit = unit
        plan = execution.graph._plan
        kinds = "+".join(plan.nodes[k].kind for k in unit.nodes)
        labels = ", ".join(plan.nodes[k].label for k in unit.nodes)
        self.name = f"DirectML {kinds} {labels}" if not unit.fused else f"DirectML fused {kinds} ({labels})"

    def execute(self, context):
        ex = self.execution
        if not ex.run or ex.dml_device._removed_reason is not None:
            return
        unit = self.unit
        table_va = ex.slot_va(unit.first_slot)
        slots = _d3d12.read_descriptors(context, table_va, unit.slot_count)
        bound = [_decode(context, slots, i) for i in range(unit.slot_count)]
        outputs_from = len(unit.inputs)
        for i, (tensor, binding) in enumerate(zip(unit.infos, bound)):
            if binding is not None:
                _d3d12.require_unordered_access(context, binding.resource,
                                                f"the {tensor.field} of dispatch {unit.index + 1} ({unit.name}) "
                                                f"in a DirectML graph dispatch")
        ranges = [(i >= outputs_from, (b.resource, b.offset, b.size)) for i, b in enumerate(bound) if b is not None]
        _d3d12.note_access(context, self.name, reads=[r for is_output, r in ranges if not is_output],
                           writes=[r for is_output, r in ranges if is_output])
        persistent = ex.persistent
        if not ex.graph._constants_in_persistent:    # root constants, in DirectML's own memory
            constants_va = ex.graph._unit_constants_va[unit.index]
        else:
            constants_va = 0 if persistent is None else persistent.gpu_va + unit.persistent_offset
        for i, launch in enumerate(unit.kernel.launches(table_va, constants_va)):
            if i:
                context.gpu.barrier()    # DirectML's UAV barrier between its own dispatches (the partials)
            _d3d12.dispatch(context, dataclasses.replace(launch, name=f"{unit.name}: {launch.name}"))


class _Scratch:
    """The temporary and persistent bindings of record time, for the scratch checks of a late dispatch
    whose table was Reset since."""

    def __init__(self, temporary, persistent):
        self._temporary, self._persistent = temporary, persistent


def _decode(context, slots, index):
    """Descriptor `index` of a descriptor table as a BoundBuffer, or None (null, or no buffer there)."""
    va, size, valid = read_buffer_descriptor(slots, index * DESCRIPTOR_SIZE)
    if not valid:
        return None
    resource = _d3d12.resource_at(context, va)
    if resource is None:
        return None
    return BoundBuffer(resource, va - _d3d12.resource_gpu_va(resource), size)


def _describe(context, descriptor):
    """A descriptor (16 bytes) in words: "buffer #2 bytes 0 to 96", "a null descriptor", ..."""
    va, size, valid = read_buffer_descriptor(descriptor)
    if not valid:
        return "a null descriptor"
    resource = _d3d12.resource_at(context, va)
    if resource is None:
        return f"a descriptor of GPU addresses 0x{va:X} to 0x{va + size:X}, in no buffer"
    offset = va - _d3d12.resource_gpu_va(resource)
    return f"{_d3d12.label(resource)} bytes {offset} to {offset + size}"


class InitializeCommand:
    """An initializer's dispatch: for each target operator, copy kernels (kernels/initialize.s) through the
    GPU's dispatch path fill its persistent resource: its precomputed constants, then each owned input.
    Each reads its descriptors in the table's GPU range as the heap holds them at execution (slot 0 of an
    operator's part: the persistent resource; slot 1 + i: input i)."""

    def __init__(self, dml_device, initializer, table):
        from dmlemu.errors import E_OUTOFMEMORY
        from dmlemu.functional.device_memory import OutOfDeviceMemory
        from dmlemu.kernels.constant_buffer import COPY_BYTES, pack_copy
        self.dml_device = dml_device
        self.name = "DirectML initialize"
        self.workgroup_size = dml_device._preset.workgroup_size
        self.parts = []          # (compiled, table GPU VA of its part, [(name, copy constants VA, dwords)])
        self.table_heap, self.table_first = table._heap, table._first_index
        # For the DML debug layer: what the initializer's Bind* calls put in each operator's part of the range,
        # and (when DirectML writes the GPU range itself) what that range held at RecordDispatch.
        self.expected = _initializer_descriptors(initializer, table)
        split = table._cpu_heap is not table._heap or table._cpu_first != table._first_index
        self.recorded = None if split or table._heap is None else [
            _d3d12.heap_bytes(table._heap)[_d3d12.heap_slot_offset(table._heap, table._first_index + first):][
                :len(expected)].copy() for first, expected in self.expected]
        owned = [(c, first, i, offset) for c, first in zip(initializer._operators, initializer._first_slots())
                 for i, offset in c._regions[1:]]
        memory = dml_device._gpu.memory
        constants = None
        if owned:
            try:
                constants = memory.allocate(COPY_BYTES * len(owned), name="DirectML initializer copies")
            except OutOfDeviceMemory as error:
                raise VoidMisuse(f"no GPU memory for the initializer's copies: {error}.", E_OUTOFMEMORY) from None
            weakref.finalize(self, memory.free, constants)
        n = 0
        for compiled, first in zip(initializer._operators, initializer._first_slots()):
            table_va = _d3d12.heap_descriptor_gpu_va(table._heap, table._first_index + first)
            c_name = compiled._schema.c_name
            if isinstance(compiled, IDMLCompiledGraph):   # every node's constants and every constant node
                copies = compiled._constant_copies()
            elif compiled._constants_in_persistent:       # strict-host mode: the constants too
                copies = [(f"DirectML initialize {c_name} constants", compiled._constants_copy_va,
                           len(compiled._kernel.constants) // 4)]
            else:                                         # root constants: nothing of them to copy
                copies = []
            for index, offset in compiled._regions[1:]:
                tensor = compiled._info.inputs[index]
                source = _d3d12.heap_descriptor_gpu_va(table._heap, table._first_index + first + 1 + index)
                dwords = -(-tensor.total_bytes // 4)
                constants.data[n * COPY_BYTES:(n + 1) * COPY_BYTES] = pack_copy({
                    "DWORDS": dwords, "WORKGROUP_SIZE": self.workgroup_size, "DESTINATION_OFFSET": offset,
                    "SOURCE_LO": source & 0xFFFFFFFF, "SOURCE_HI": source >> 32})
                copies.append((f"DirectML initialize {c_name} {tensor.field}", constants.gpu_va + n * COPY_BYTES, dwords))
                n += 1
            self.parts.append((compiled, table_va, copies))

    def execute(self, context):
        from dmlemu.kernels.driver import copy_launch
        if self.dml_device._removed_reason is not None:
            return
        for part, (compiled, table_va, copies) in enumerate(self.parts):
            c_name = compiled._schema.c_name
            inputs = compiled._info.inputs
            if self.dml_device._debug:
                self._report_overwritten_slots(context, part)
            if not copies:     # PersistentResourceSize 0: nothing to write, no descriptor is read
                compiled._initialized = True
                compiled._initialized_persistent = None
                continue
            slots = _d3d12.read_descriptors(context, table_va, 1 + len(inputs))
            persistent = _decode(context, slots, 0)
            owned = [(inputs[i], _decode(context, slots, 1 + i)) for i, _ in compiled._regions[1:]]
            for what, binding in [("persistent resource", persistent)] + [(t.field, b) for t, b in owned]:
                if binding is not None:
                    _d3d12.require_unordered_access(context, binding.resource,
                                                    f"the {what} of a DirectML {c_name} initialization")
            _d3d12.note_access(context, f"DirectML initialize {c_name}",
                               reads=[(b.resource, b.offset, b.size) for _, b in owned if b is not None],
                               writes=[] if persistent is None else [(persistent.resource, persistent.offset,
                                                                      persistent.size)])
            for name, constants_va, dwords in copies:
                _d3d12.dispatch(context, copy_launch(table_va, constants_va, dwords, self.workgroup_size, name))
            compiled._initialized = True
            compiled._initialized_persistent = None if persistent is None else persistent.gpu_va


    def _report_overwritten_slots(self, context, part):
        """The DML debug layer: the slots of operator `part`'s share of the range that no longer hold what
        the initializer's bindings put there (another binding table made on the same slots, typically the
        operator's execute table, bound before the initializer executed). Each slot the initializer reads
        (the persistent resource and owned inputs of an operator that keeps data) is an error: the copies
        go where the slot now points. For an operator whose initialization reads nothing, changed slots make
        one warning: the latent bug
        works here, as on drivers that keep nothing for the operator, and breaks where a driver keeps its
        constants in a persistent resource (strict-host mode, DMLEMU_STRICT_HOST=1, shows it)."""
        from dmlemu.d3d12.messages import D3D12_MESSAGE_SEVERITY_WARNING
        compiled, table_va, copies = self.parts[part]
        first, expected = self.expected[part]
        count = len(expected) // DESCRIPTOR_SIZE
        slots = _d3d12.read_descriptors(context, table_va, count)
        read = {0} | {1 + i for i, _ in compiled._regions[1:]} if copies else set()
        heap = _d3d12.heap_label(self.table_heap)
        c_name = compiled._schema.c_name
        latent = []
        for i in range(count):
            at = slice(i * DESCRIPTOR_SIZE, (i + 1) * DESCRIPTOR_SIZE)
            now = slots[at]
            what = "persistent resource" if i == 0 else f"{_field(compiled, i - 1)} (initialization input)"
            if i in read:
                if (now == expected[at]).all():
                    continue
                self.dml_device._report(
                    f"ExecuteCommandLists: slot {self.table_first + first + i} of {heap}, the {what} descriptor of "
                    f"{c_name} in an IDMLOperatorInitializer dispatch, holds {_describe(context, now)}, but the "
                    f"initializer's binding table bound {_describe(context, expected[at])}; another binding table on "
                    f"the same descriptor slots was bound before the initializer executed. The initialization reads "
                    f"this slot and uses what it holds now; create the other binding table after the initializer "
                    f"has executed, or on other slots.")
            elif not copies and self.recorded is not None and not (now == self.recorded[part][at]).all():
                latent.append((self.table_first + first + i, what, now))
        if latent:
            slot, what, now = latent[0]
            others = f" and {len(latent) - 1} more of its slots" if len(latent) > 1 else ""
            self.dml_device._report(
                f"ExecuteCommandLists: slot {slot} of {heap}, the {what} descriptor of {c_name} in an "
                f"IDMLOperatorInitializer dispatch{others}, changed after the initializer was recorded (slot {slot} "
                f"now holds {_describe(context, now)}): another binding table on the same descriptor slots was "
                f"bound before the initializer executed. It works here only because {c_name} needs nothing from "
                f"them (PersistentResourceSize 0); a driver that keeps the operator's data in a persistent resource "
                f"reads them (DMLEMU_STRICT_HOST=1 shows that case).", severity=D3D12_MESSAGE_SEVERITY_WARNING)


def _field(compiled, index):
    tensor = compiled._info.inputs[index]
    return f"input {index}" if tensor is None else tensor.field


def _initializer_descriptors(initializer, table):
    """[(first slot, descriptor bytes)] per target operator: what the initializer's bindings wrote in its
    part of the range (the persistent resource, then one slot per input)."""
    outputs = table._outputs or [None] * len(initializer._operators)
    inputs = table._inputs or [[None] * len(c._info.inputs) for c in initializer._operators]
    return [(first, descriptor_bytes([persistent] + list(bound)))
            for first, persistent, bound in zip(initializer._first_slots(), outputs, inputs)]


def _persistent_initialized(device, compiled, persistent):
    """The DML debug layer at execution: the operator was initialized, into the persistent resource now
    bound (when it has one: PersistentResourceSize 0 reads none). Otherwise it removes the DML device (the
    dispatch is skipped) and returns False."""
    c_name = compiled._schema.c_name
    if not compiled._initialized:
        device._remove(f"ExecuteCommandLists: the compiled operator {c_name} was never initialized (its "
                       f"IDMLOperatorInitializer dispatch did not execute before it); the dispatch is skipped.")
        return False
    if compiled._persistent_size and persistent is not None and persistent.gpu_va != compiled._initialized_persistent:
        device._remove(f"ExecuteCommandLists: the persistent resource bound to {c_name} "
                       f"({_d3d12.label(persistent.resource)} bytes {persistent.offset} to "
                       f"{persistent.offset + persistent.size}) is not the one its initialization wrote; bind the "
                       f"persistent resource the IDMLOperatorInitializer dispatch initialized. The dispatch is skipped.")
        return False
    return True
