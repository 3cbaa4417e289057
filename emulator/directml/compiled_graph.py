"""IDMLCompiledGraph: what IDMLDevice1::CompileGraph returns, an IDMLCompiledOperator of many nodes.

DirectML returns a graph as an IDMLCompiledOperator; so does dmlemu (this class derives from
IDMLCompiledOperator, so CreateOperatorInitializer, binding tables and RecordDispatch take it where
they take one operator). Each operator node is compiled by the single-operator path
(IDMLCompiledOperator: its kernel variant and constant buffer); each dispatch of the graph's partition
(graph.py) is a DispatchUnit: one node's own kernel, or the fused kernel fusion.py builds from the
nodes' variants (kernels/fusion.py). The units run in order with the partition's UAV barriers. What the graph adds is where
things live:

- descriptors: the graph's descriptor range holds, for each dispatch in order, one slot per tensor
  it reads or writes in memory (a lone node: its tensors in its own binding order), so each kernel
  reads its descriptor table where it expects it. DirectML writes them when the graph's inputs,
  outputs, temporary and persistent resources are bound (`_descriptor_slots`);
- the persistent resource: each dispatch's constant buffer (strict-host mode only; by default the
  dispatches read their constants as root constants, in DirectML's own memory) then its
  DML_TENSOR_FLAG_OWNED_BY_DML inputs (compiled_operator.persistent_layout's rule) at the next multiple
  of DML_PERSISTENT_BUFFER_ALIGNMENT, then each constant node's data (zero-padded to the largest
  TotalTensorSizeInBytes it feeds). The initializer copies all of it (`_constant_copies`, and one
  copy per owned input from the graph input bound at initialization); a graph with no owned input and
  no constant node needs none (by default);
- the temporary resource: a region per intermediate tensor in memory (a node output that is no graph
  output and that another dispatch reads; values a fused kernel keeps in registers need none), reused
  once a barrier orders its last read before the next write; after them, a region of its own for each
  kernel of two dispatches (a REDUCE split into chunks keeps its partials there; its slot follows its
  tensors' in the descriptor range). A node output that is also a graph output
  is written straight into the graph output's binding, and later nodes read it there.

Binding: BindInputs takes one binding per graph input (DML_GRAPH_DESC.InputCount; a graph input no
edge uses may be DML_BINDING_TYPE_NONE), BindOutputs one per graph output, by graph index. The
graph's binding rules are a compiled operator's (binding_table.py), with the graph inputs and outputs
as its tensors (named "graph input 0", "graph output 0" in sentences).
"""
import dataclasses
import weakref

import numpy as np

from dmlemu.errors import E_OUTOFMEMORY, HResultError
from dmlemu.functional.buffer_descriptor import DESCRIPTOR_SIZE, write_buffer_descriptor
from dmlemu.functional.device_memory import OutOfDeviceMemory
from dmlemu.directml import enums
from dmlemu.directml.compiled_operator import STRICT_TEMPORARY_BYTES, IDMLCompiledOperator
from dmlemu.directml.enums import (
    DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION, DML_PERSISTENT_BUFFER_ALIGNMENT,
    DML_TEMPORARY_BUFFER_ALIGNMENT,
)
from dmlemu.directml.objects import IDMLDispatchable
from dmlemu.directml.operators import InputsAndOutputs, TensorRole
from dmlemu.directml.structs import DML_BINDING_PROPERTIES
from dmlemu.directml.validation import TensorInfo


def _align(n, alignment):
    return -(-n // alignment) * alignment


@dataclasses.dataclass(frozen=True)
class GraphSchema(InputsAndOutputs):
    """What binding tables and RecordDispatch read of a compiled operator's schema, for a graph."""
    name: str
    c_name: str
    tensors: tuple                  # TensorRole: the graph inputs, then the graph outputs
    in_place: bool = False


@dataclasses.dataclass(frozen=True)
class GraphInfo(InputsAndOutputs):
    """The graph's tensors as one operator's: graph inputs then graph outputs (binding order)."""
    schema: GraphSchema
    tensors: tuple


@dataclasses.dataclass(frozen=True)
class DispatchUnit:
    """One dispatch of a compiled graph: the nodes it runs (one, or a fused group), its kernel, the
    tensors it reads and writes in memory in its descriptor table's order (inputs: the node inputs one
    memory tensor feeds, ((node, input index), ...), None for an input left unconnected; outputs:
    (node, output index)) with their TensorInfo, and its region of the persistent resource: its
    constant buffer at `persistent_offset`, then each DML-owned input at `regions` [(tensor, offset)]."""
    index: int
    nodes: tuple
    kernel: object
    inputs: tuple
    outputs: tuple
    infos: tuple
    regions: tuple
    persistent_offset: int
    persistent_size: int
    first_slot: int
    name: str                         # what the trace calls it: the node names joined by "+"
    source: str = None                # a fused kernel's generated assembly

    @property
    def fused(self):
        return len(self.nodes) > 1

    @property
    def slot_count(self):
        """Its tensors' slots, and after them its temporary resource's for a kernel of two dispatches."""
        return len(self.infos) + bool(self.kernel.temporary_bytes)


def _unit_regions(inputs, constants_bytes):
    """compiled_operator.persistent_layout for a unit's memory inputs (None: an unconnected input)."""
    align = lambda n: _align(n, DML_PERSISTENT_BUFFER_ALIGNMENT)
    regions, end = [], align(constants_bytes)
    for index, tensor in enumerate(inputs):
        if tensor is not None and tensor.owned_by_dml:
            regions.append((index, end))
            end = align(end + tensor.total_bytes)
    return tuple(regions), end


class IDMLCompiledGraph(IDMLCompiledOperator):
    """A compiled DML graph: its plan, one IDMLCompiledOperator per operator node, one DispatchUnit per
    dispatch of the partition (a fused group gets the kernel of fusion.py), and the layouts of its
    descriptor range, persistent resource and temporary resource."""

    _iids = (enums.IID_IDMLCompiledOperator,)

    def __init__(self, dml_device, plan, flags):
        IDMLDispatchable.__init__(self, dml_device)   # not IDMLCompiledOperator's: no kernel of its own
        preset = dml_device._preset
        self._plan = plan
        self._flags = flags
        self._operator = None                # DirectML keeps no reference to the graph's IDMLOperators
        self._half_precision = bool(flags & DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION) and preset.native_fp16
        self._initialized = False
        self._initialization_recorded = False
        self._initialized_persistent = None
        # Each operator node through the single-operator path (its kernel, constants, persistent layout).
        self._nodes = {k: IDMLCompiledOperator(dml_device, plan.nodes[k].operator, flags) for k in plan.order}
        self._info = self._graph_info(plan)
        # As for a single operator: the dispatches' constants are root constants unless in strict-host mode.
        self._constants_in_persistent = dml_device._strict_host
        self._units = self._make_units(plan, preset)
        self._unit_of = {k: unit.index for unit in self._units for k in unit.nodes}
        self._descriptor_count = sum(unit.slot_count for unit in self._units)
        self._layout_persistent(plan)
        self._layout_temporary(plan)
        self._copies = self._upload_copies(dml_device._gpu.memory)

    # ---- layouts ----------------------------------------------------------------------------------
    @staticmethod
    def _graph_info(plan):
        tensors, roles = [], []
        for g in range(plan.input_count):
            first = plan.input_tensor(g)
            field = f"graph input {g}"
            if first is None:     # no edge uses it: nothing to bind (DML_BINDING_TYPE_NONE or a buffer)
                tensor = TensorInfo(field=field, data_type=0, flags=0, sizes=(), strides=None, total_bytes=0,
                                    alignment=0, is_output=False)
            else:
                alignment = max(plan.nodes[k].info.inputs[j].alignment for k, j in plan.input_consumers[g])
                tensor = dataclasses.replace(first, field=field, alignment=alignment, is_output=False)
            tensors.append(tensor)
            roles.append(TensorRole(field, is_output=False, optional=first is None))
        for h in range(plan.output_count):
            field = f"graph output {h}"
            tensors.append(dataclasses.replace(plan.output_tensor(h), field=field, is_output=True))
            roles.append(TensorRole(field, is_output=True))
        count = len(plan.nodes)
        schema = GraphSchema(name="GRAPH", c_name=f"graph of {count} node{'s' if count != 1 else ''}",
                             tensors=tuple(roles))
        return GraphInfo(schema=schema, tensors=tuple(tensors))

    def _make_units(self, plan, preset):
        """One DispatchUnit per dispatch of the partition, with its slots and persistent region placed."""
        from dmlemu.directml.fusion import fused_kernel
        from dmlemu.directml.graph import group_tensors
        units, slot, offset = [], 0, 0
        for index, dispatch in enumerate(plan.dispatches):
            names = "+".join(plan.nodes[k].name for k in dispatch.nodes)
            if len(dispatch.nodes) == 1:
                k = dispatch.nodes[0]
                info = plan.nodes[k].info
                kernel = self._nodes[k]._kernel
                inputs = tuple(((k, j),) for j in range(len(info.inputs)))
                outputs = tuple((k, o) for o in range(len(info.outputs)))
                infos, source = tuple(info.tensors), None
            else:
                inputs, outputs = group_tensors(plan, dispatch.nodes)
                kernel, source = fused_kernel(plan, dispatch.nodes, inputs, outputs,
                                              {k: self._nodes[k]._kernel for k in dispatch.nodes},
                                              self._half_precision, preset.workgroup_size)
                inputs, outputs = tuple(tuple(ks) for ks in inputs), tuple(outputs)
                infos = tuple(plan.nodes[ks[0][0]].info.inputs[ks[0][1]] for ks in inputs) + \
                    tuple(plan.nodes[k].info.outputs[o] for k, o in outputs)
            regions, size = _unit_regions(infos[:len(inputs)],
                                          len(kernel.constants) if self._constants_in_persistent else 0)
            units.append(DispatchUnit(index=index, nodes=dispatch.nodes, kernel=kernel, inputs=inputs,
                                      outputs=outputs, infos=infos, regions=regions, persistent_offset=offset,
                                      persistent_size=size, first_slot=slot, name=names, source=source))
            slot += units[-1].slot_count
            offset = _align(offset + size, DML_PERSISTENT_BUFFER_ALIGNMENT)
        self._units_persistent_end = offset
        return tuple(units)

    def _layout_persistent(self, plan):
        """After the units' regions, each constant node's data; the owned inputs the initializer copies."""
        regions = [(None, 0)]        # what the initializer copies from graph inputs: (graph input, offset)
        for unit in self._units:
            for index, offset in unit.regions:
                k, j = unit.inputs[index][0]
                regions.append((plan.sources[(k, j)][1], unit.persistent_offset + offset))
        end = self._units_persistent_end
        self._constant_persistent, self._constant_bytes = {}, {}
        for node in plan.nodes:
            if node.is_constant:
                size = max(plan.nodes[k].info.inputs[j].total_bytes for k, j in plan.consumers[(node.index, 0)])
                self._constant_persistent[node.index] = end
                self._constant_bytes[node.index] = _align(size, 4)
                end = _align(end + size, DML_PERSISTENT_BUFFER_ALIGNMENT)
        self._regions = regions
        self._persistent_size = end

    def _layout_temporary(self, plan):
        """A region per intermediate tensor in memory (a unit's output that is no graph output; what a
        fused unit keeps in registers needs none), reused once its readers are done: it lives from its
        producer's dispatch to its last reader's, and a later write may take its bytes when a UAV barrier
        comes after that last read and no later than the write. First fit in execution order, each region
        at a multiple of DML_TEMPORARY_BUFFER_ALIGNMENT."""
        barriers = [d.barrier_before for d in plan.dispatches]
        self._temporary_offset, placed, end = {}, [], 0     # placed: (start, end, last dispatch reading)
        for unit in self._units:
            w = unit.index
            for k, o in unit.outputs:
                tensor = plan.nodes[k].info.outputs[o]
                if tensor is None or plan.graph_output_of(k, o) is not None:
                    continue
                last = max(self._unit_of[c] for c, _ in plan.consumers[(k, o)])
                size = _align(tensor.total_bytes, DML_TEMPORARY_BUFFER_ALIGNMENT)
                busy = sorted((a, b) for a, b, read in placed if not any(barriers[read + 1:w + 1]))
                offset = 0
                for a, b in busy:
                    if offset + size <= a:
                        break
                    offset = max(offset, b)
                self._temporary_offset[(k, o)] = offset
                placed.append((offset, offset + size, last))
                end = max(end, offset + size)
        self._unit_temporary = {}          # a two-dispatch kernel's own scratch (its partials): after the rest, unshared
        for unit in self._units:
            if unit.kernel.temporary_bytes:
                end = _align(end, DML_TEMPORARY_BUFFER_ALIGNMENT)
                self._unit_temporary[unit.index] = end
                end += unit.kernel.temporary_bytes
        if self._device._strict_host:      # strict-host mode: every dispatchable needs a temporary resource
            end = max(end, STRICT_TEMPORARY_BYTES)
        self._temporary_size = end

    def _upload_copies(self, memory):
        """DirectML's own GPU data for initialization: each unit's constant buffer and each constant node's
        bytes (zero-padded), each followed by a buffer descriptor of it, and the copy constants
        (kernels/initialize.s) that put them into the graph's persistent resource. Returns [(name, copy
        constants VA, dwords)], what `_constant_copies` hands the initializer."""
        from dmlemu.kernels.constant_buffer import COPY_BYTES, pack_copy
        plan = self._plan
        items = [(f"DirectML initialize {unit.name} constants", np.asarray(unit.kernel.constants, np.uint8),
                  unit.persistent_offset) for unit in self._units]
        for c, size in self._constant_bytes.items():
            data = np.zeros(size, np.uint8)
            data[:len(plan.nodes[c].data)] = np.frombuffer(plan.nodes[c].data, np.uint8)
            items.append((f"DirectML initialize {plan.nodes[c].name} data", data, self._constant_persistent[c]))
        data_at, end = [], 0
        for _, data, _ in items:
            data_at.append(end)
            end = _align(end + data.size, DESCRIPTOR_SIZE) + DESCRIPTOR_SIZE
        copies_at = end
        try:
            allocation = memory.allocate(copies_at + len(items) * COPY_BYTES, name="DirectML graph initialization data")
        except OutOfDeviceMemory as error:
            raise HResultError(E_OUTOFMEMORY, f"CompileGraph: no GPU memory for the graph's initialization data: "
                                              f"{error}.") from None
        weakref.finalize(self, memory.free, allocation)
        workgroup_size = self._device._preset.workgroup_size
        copies = []
        for i, ((name, data, destination), at) in enumerate(zip(items, data_at)):
            allocation.data[at:at + data.size] = data
            descriptor_at = _align(at + data.size, DESCRIPTOR_SIZE)
            write_buffer_descriptor(allocation.data, descriptor_at, allocation.gpu_va + at, data.size)
            source = allocation.gpu_va + descriptor_at
            blob = copies_at + i * COPY_BYTES
            allocation.data[blob:blob + COPY_BYTES] = pack_copy({
                "DWORDS": data.size // 4, "WORKGROUP_SIZE": workgroup_size, "DESTINATION_OFFSET": destination,
                "SOURCE_LO": source & 0xFFFFFFFF, "SOURCE_HI": source >> 32})
            copies.append((name, allocation.gpu_va + blob, data.size // 4))
        # The units' constant buffers stay in this driver-owned memory: by default the kernels read them here
        # (root constants) and the initializer copies only the constant nodes' data.
        units = len(self._units)
        self._unit_constants_va = tuple(allocation.gpu_va + at for at in data_at[:units])
        return copies if self._constants_in_persistent else copies[units:]

    # ---- what the rest of the mirror asks ---------------------------------------------------------
    def GetBindingProperties(self):
        """One descriptor per memory tensor of every dispatch, the intermediate tensors' temporary
        resource, and the dispatches' and constants' persistent resource."""
        return DML_BINDING_PROPERTIES(RequiredDescriptorCount=self._descriptor_count,
                                      TemporaryResourceSize=self._temporary_size,
                                      PersistentResourceSize=self._persistent_size)

    def _constant_copies(self):
        """The initializer's copies that need no binding: [(name, copy constants VA, dwords)]."""
        return list(self._copies)

    def _descriptor_bindings(self, bound, persistent):
        """The graph's own bindings as RecordDispatch checks them (inputs then outputs; owned inputs
        unbound at execution): the dispatches' slots are `_descriptor_slots`."""
        return list(bound)

    def _descriptor_slots(self, inputs, outputs, temporary, persistent):
        """Every slot of the graph's descriptor range (BoundBuffer or None) for the bindings in force:
        for each dispatch, its memory tensors in its table's order, each described where it lives."""
        plan = self._plan

        def region(scratch, offset, size):
            return None if scratch is None else dataclasses.replace(scratch, offset=scratch.offset + offset, size=size)

        def output(k, o, size):
            h = plan.graph_output_of(k, o)
            if h is not None:
                return outputs[h] if outputs else None
            return region(temporary, self._temporary_offset[(k, o)], size)

        slots = []
        for unit in self._units:
            owned = dict(unit.regions)
            for index, (readers, tensor) in enumerate(zip(unit.inputs, unit.infos)):
                k, j = readers[0]
                source = plan.sources.get((k, j))
                if tensor is None or source is None:
                    slots.append(None)
                elif tensor.owned_by_dml:
                    slots.append(region(persistent, unit.persistent_offset + owned[index], tensor.total_bytes))
                elif source[0] == "input":
                    slots.append(inputs[source[1]] if inputs else None)
                elif source[0] == "node":
                    slots.append(output(source[1], source[2], tensor.total_bytes))
                else:
                    slots.append(region(persistent, self._constant_persistent[source[1]], tensor.total_bytes))
            for (k, o), tensor in zip(unit.outputs, unit.infos[len(unit.inputs):]):
                slots.append(None if tensor is None else output(k, o, tensor.total_bytes))
            if unit.index in self._unit_temporary:
                slots.append(region(temporary, self._unit_temporary[unit.index], unit.kernel.temporary_bytes))
        return slots

    def __repr__(self):
        return f"<IDMLCompiledOperator {self._info.schema.c_name}>"


__all__ = ["IDMLCompiledGraph", "DispatchUnit", "GraphInfo", "GraphSchema"]
