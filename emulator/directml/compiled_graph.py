"""IDMLCompiledGraph: what IDMLDevice1::CompileGraph returns, an IDMLCompiledOperator of many nodes.

DirectML returns a graph as an IDMLCompiledOperator; so does dmlemu (this class derives from
IDMLCompiledOperator, so CreateOperatorInitializer, binding tables and RecordDispatch take it where
they take one operator). Nothing is fused yet: each operator node is compiled by the single-operator
path (IDMLCompiledOperator: its kernel and constant buffer) and runs as its own dispatch, in the
order and with the UAV barriers of the graph's partition (graph.py). What the graph adds is where
things live:

- descriptors: the graph's descriptor range holds, for each dispatch in order, one slot per tensor
  of its node (inputs then outputs, the node's own binding order), so each node's kernel reads its
  descriptor table where it expects it. DirectML writes them when the graph's inputs, outputs,
  temporary and persistent resources are bound (`_descriptor_slots`);
- the persistent resource: each node's own persistent layout (its constants, then its
  DML_TENSOR_FLAG_OWNED_BY_DML inputs, compiled_operator.persistent_layout) at the next multiple of
  DML_PERSISTENT_BUFFER_ALIGNMENT, then each constant node's data (zero-padded to the largest
  TotalTensorSizeInBytes it feeds). The initializer copies all of it (`_constant_copies`, and one
  copy per owned input from the graph input bound at initialization);
- the temporary resource: one region per intermediate tensor (a node output that is no graph
  output), each at the next multiple of DML_TEMPORARY_BUFFER_ALIGNMENT. A node output that is also a
  graph output is written straight into the graph output's binding, and later nodes read it there.

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
from dmlemu.directml.compiled_operator import IDMLCompiledOperator
from dmlemu.directml.enums import (
    DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION, DML_PERSISTENT_BUFFER_ALIGNMENT,
    DML_TEMPORARY_BUFFER_ALIGNMENT,
)
from dmlemu.directml.objects import IDMLDispatchable
from dmlemu.directml.operators import TensorRole
from dmlemu.directml.structs import DML_BINDING_PROPERTIES
from dmlemu.directml.validation import TensorInfo


def _align(n, alignment):
    return -(-n // alignment) * alignment


@dataclasses.dataclass(frozen=True)
class GraphSchema:
    """What binding tables and RecordDispatch read of a compiled operator's schema, for a graph."""
    name: str
    c_name: str
    tensors: tuple                  # TensorRole: the graph inputs, then the graph outputs
    in_place: bool = False


@dataclasses.dataclass(frozen=True)
class GraphInfo:
    """The graph's tensors as one operator's: graph inputs then graph outputs (binding order)."""
    schema: GraphSchema
    tensors: tuple

    @property
    def inputs(self):
        return tuple(t for t in self.tensors if not t.is_output)

    @property
    def outputs(self):
        return tuple(t for t in self.tensors if t.is_output)


class IDMLCompiledGraph(IDMLCompiledOperator):
    """A compiled DML graph: its plan, one IDMLCompiledOperator per operator node, and the layouts of its
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
        self._first_slot, slot = {}, 0
        for k in plan.order:
            self._first_slot[k] = slot
            slot += len(self._nodes[k]._info.tensors)
        self._descriptor_count = slot
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

    def _layout_persistent(self, plan):
        """Each operator node's persistent region, then each constant node's data (offsets in bytes)."""
        self._node_persistent, end = {}, 0
        regions = [(None, 0)]        # what the initializer copies from graph inputs: (graph input, offset)
        for k in plan.order:
            compiled = self._nodes[k]
            self._node_persistent[k] = end
            for j, offset in compiled._regions[1:]:
                regions.append((plan.sources[(k, j)][1], end + offset))
            end = _align(end + compiled._persistent_size, DML_PERSISTENT_BUFFER_ALIGNMENT)
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
        """A region per intermediate tensor, reused once its readers are done: an intermediate lives from
        its producer's level to its last reader's level, and two whose lives do not overlap may share
        bytes (the UAV barrier between levels orders the last read before the next write). First fit
        in execution order, each region at a multiple of DML_TEMPORARY_BUFFER_ALIGNMENT."""
        self._temporary_offset, placed, end = {}, [], 0     # placed: (start, end, last level read)
        for k in plan.order:
            level = plan.levels[k]
            for o, tensor in enumerate(plan.nodes[k].info.outputs):
                if tensor is None or plan.graph_output_of(k, o) is not None:
                    continue
                last = max(plan.levels[c] for c, _ in plan.consumers[(k, o)])
                size = _align(tensor.total_bytes, DML_TEMPORARY_BUFFER_ALIGNMENT)
                busy = sorted((a, b) for a, b, read in placed if read >= level)
                offset = 0
                for a, b in busy:
                    if offset + size <= a:
                        break
                    offset = max(offset, b)
                self._temporary_offset[(k, o)] = offset
                placed.append((offset, offset + size, last))
                end = max(end, offset + size)
        self._temporary_size = end

    def _upload_copies(self, memory):
        """DirectML's own GPU data for initialization: each constant node's bytes (zero-padded) with a
        buffer descriptor of them, and the copy constants (kernels/initialize.s) of every node's constant
        buffer and every constant node into the graph's persistent resource. Returns [(name, copy
        constants VA, dwords)], what `_constant_copies` hands the initializer."""
        from dmlemu.kernels.constant_buffer import COPY_BYTES, pack_copy
        plan = self._plan
        data_at, end = {}, 0
        for c, size in self._constant_bytes.items():
            data_at[c] = end
            end = _align(end + size, DESCRIPTOR_SIZE) + DESCRIPTOR_SIZE
        copies_at = end
        count = len(self._nodes) + len(self._constant_bytes)
        try:
            allocation = memory.allocate(copies_at + count * COPY_BYTES, name="DirectML graph initialization data")
        except OutOfDeviceMemory as error:
            raise HResultError(E_OUTOFMEMORY, f"CompileGraph: no GPU memory for the graph's initialization data: "
                                              f"{error}.") from None
        weakref.finalize(self, memory.free, allocation)
        workgroup_size = self._device._preset.workgroup_size
        copies = []

        def add(name, dwords, destination, source_descriptor_va):
            at = copies_at + len(copies) * COPY_BYTES
            allocation.data[at:at + COPY_BYTES] = pack_copy({
                "DWORDS": dwords, "WORKGROUP_SIZE": workgroup_size, "DESTINATION_OFFSET": destination,
                "SOURCE_LO": source_descriptor_va & 0xFFFFFFFF, "SOURCE_HI": source_descriptor_va >> 32})
            copies.append((name, allocation.gpu_va + at, dwords))

        for k in plan.order:
            compiled = self._nodes[k]
            # The node's own GPU copy of its constants: a buffer descriptor of it sits just before its
            # copy constants (IDMLCompiledOperator._upload_constants).
            add(f"DirectML initialize {plan.nodes[k].name} constants", len(compiled._kernel.constants) // 4,
                self._node_persistent[k], compiled._constants_copy_va - DESCRIPTOR_SIZE)
        for c, size in self._constant_bytes.items():
            data = plan.nodes[c].data
            at = data_at[c]
            allocation.data[at:at + len(data)] = np.frombuffer(data, dtype=np.uint8)
            descriptor_at = _align(at + size, DESCRIPTOR_SIZE)
            write_buffer_descriptor(allocation.data, descriptor_at, allocation.gpu_va + at, size)
            add(f"DirectML initialize {plan.nodes[c].name} data", size // 4, self._constant_persistent[c],
                allocation.gpu_va + descriptor_at)
        return copies

    # ---- what the rest of the mirror asks ---------------------------------------------------------
    def GetBindingProperties(self):
        """One descriptor per tensor of every dispatched node, the intermediate tensors' temporary
        resource, and the nodes' and constants' persistent resource."""
        return DML_BINDING_PROPERTIES(RequiredDescriptorCount=self._descriptor_count,
                                      TemporaryResourceSize=self._temporary_size,
                                      PersistentResourceSize=self._persistent_size)

    def _constant_copies(self):
        """The initializer's copies that need no binding: [(name, copy constants VA, dwords)]."""
        return list(self._copies)

    def _descriptor_bindings(self, bound, persistent):
        """The graph's own bindings as RecordDispatch checks them (inputs then outputs; owned inputs
        unbound at execution): the node slots are `_descriptor_slots`."""
        return list(bound)

    def _descriptor_slots(self, inputs, outputs, temporary, persistent):
        """Every slot of the graph's descriptor range (BoundBuffer or None) for the bindings in force:
        for each dispatched node, its inputs then its outputs, each described where it lives."""
        plan = self._plan

        def region(scratch, offset, size):
            return None if scratch is None else dataclasses.replace(scratch, offset=scratch.offset + offset, size=size)

        def output(k, o, size):
            h = plan.graph_output_of(k, o)
            if h is not None:
                return outputs[h] if outputs else None
            return region(temporary, self._temporary_offset[(k, o)], size)

        slots = []
        for k in plan.order:
            node, compiled = plan.nodes[k], self._nodes[k]
            owned = dict(compiled._regions[1:])
            for j, tensor in enumerate(node.info.inputs):
                source = plan.sources.get((k, j))
                if tensor is None or source is None:
                    slots.append(None)
                elif tensor.owned_by_dml:
                    slots.append(region(persistent, self._node_persistent[k] + owned[j], tensor.total_bytes))
                elif source[0] == "input":
                    slots.append(inputs[source[1]] if inputs else None)
                elif source[0] == "node":
                    slots.append(output(source[1], source[2], tensor.total_bytes))
                else:
                    slots.append(region(persistent, self._constant_persistent[source[1]], tensor.total_bytes))
            for o, tensor in enumerate(node.info.outputs):
                slots.append(None if tensor is None else output(k, o, tensor.total_bytes))
        return slots

    def _node_slots(self, k):
        """(first slot, count) of node k's descriptor table in the graph's range."""
        return self._first_slot[k], len(self._nodes[k]._info.tensors)

    def __repr__(self):
        return f"<IDMLCompiledOperator {self._info.schema.c_name}>"


__all__ = ["IDMLCompiledGraph", "GraphInfo", "GraphSchema"]
