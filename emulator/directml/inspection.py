"""inspect(obj): a read-only view of the DirectML mirror's state that the C API does not show.

DirectML hides what CreateOperator validated, what CompileOperator and CompileGraph built (kernels,
fusion groups, dispatch order, persistent and temporary layouts) and what a binding table holds. A
DirectML developer sees some of it in PIX and the debug layer's messages; tests and teaching tools
need it as data, so every DirectML mirror object has a view here, one view type per object type:

    DML device               DMLDeviceView          d3d12_device, gpu, preset, flags, feature_level,
                                                    debug, debug_messages, removed_reason, removed_message
    operator                 OperatorView           schema, info
    compiled operator        CompiledOperatorView   operator, schema, info, flags, half_precision, kernel,
                                                    constants, persistent_regions, persistent_size,
                                                    initialized
    compiled graph           CompiledGraphView      the above (kernel None), plan, dispatches, units, nodes,
                                                    temporary_offsets, temporary_size, descriptor_count
    binding table            BindingTableView       dispatchable, inputs, outputs, temporary, persistent,
                                                    cpu_heap, cpu_first, heap, first_index, size
    operator initializer     InitializerView        operators
    command recorder         CommandRecorderView    device

`info` is the validated operator (operators.py's OperatorInfo: schema, tensors with their sizes,
strides, data types and flags, attributes); a graph's `info` lists its graph inputs then outputs. A
view is live (each field reads the object when it is read) and changes nothing: fields cannot be
assigned and lists come back as tuples. `constants` is the functional model's Allocation holding a
compiled operator's own copy of its constant buffer. D3D12 objects (a DML device's D3D12 device, a
resource) go to dmlemu.d3d12.inspect, so this inspect takes either mirror's objects; anything else
raises TypeError with a sentence naming the value.
"""
from dmlemu.d3d12 import inspection as d3d12_inspection
from dmlemu.directml.binding_table import IDMLBindingTable
from dmlemu.directml.command_recorder import IDMLCommandRecorder
from dmlemu.directml.compiled_graph import IDMLCompiledGraph
from dmlemu.directml.compiled_operator import IDMLCompiledOperator
from dmlemu.directml.device import IDMLDevice
from dmlemu.directml.initializer import IDMLOperatorInitializer
from dmlemu.directml.operators import IDMLOperator
from dmlemu.errors import describe, short_repr

field = d3d12_inspection.field


class View(d3d12_inspection.View):
    """Base of the DirectML views: a DirectML object's label is its repr (its name, if SetName gave one)."""

    __slots__ = ()

    @property
    def label(self):
        return repr(self._obj)


class DMLDeviceView(View):
    """An IDMLDevice: the D3D12 device under it, its feature level and the debug layer's messages."""

    __slots__ = ()

    d3d12_device = field("_d3d12_device", """The ID3D12Device it was created on.""")

    gpu = field("_gpu", """The emulated Gpu behind both devices.""")

    preset = field("_preset")

    flags = field("_flags", """The DML_CREATE_DEVICE_FLAGS it was created with.""")

    feature_level = field("_feature_level", """The DML_FEATURE_LEVEL it validates operators at.""")

    debug = field("_debug", """Whether it was created with DML_CREATE_DEVICE_FLAG_DEBUG.""")

    strict_host = field(
        "_strict_host",
        """Whether it was created in strict-host mode (DMLEMU_STRICT_HOST=1: every operator's constants in its
        persistent resource, a temporary resource for every operator; docs/PERSISTENT_RESOURCES.md).""")

    debug_messages = field(
        "_debug_messages",
        """Every problem the debug layer reported, in order (kept when SetMuteDebugOutput muted printing).""",
        wrap=tuple)

    removed_reason = field(
        "_removed_reason",
        """The HRESULT that removed it (its own removal, not the D3D12 device's), or None while it works.""")

    removed_message = field("_removed_message", """The sentence that removed it ("" while it works).""")


class OperatorView(View):
    """An IDMLOperator: its schema and what CreateOperator validated."""

    __slots__ = ()

    schema = field("_info.schema", """The OperatorSchema (operators.py) it was validated against.""")

    info = field("_info", """The validated OperatorInfo: tensors (inputs, outputs), attributes, floats, scale_bias.""")


class CompiledOperatorView(View):
    """An IDMLCompiledOperator: its kernel, constant buffer and persistent layout."""

    __slots__ = ()

    operator = field("_operator", """The IDMLOperator it was compiled from (None for a graph).""")

    schema = field("_info.schema")

    info = field("_info")

    flags = field("_flags", """The DML_EXECUTION_FLAGS it was compiled with.""")

    half_precision = field(
        "_half_precision",
        """Whether its kernel computes in FLOAT16 (ALLOW_HALF_PRECISION_COMPUTATION on a GPU with native FP16).""")

    kernel = field("_kernel", """The compiled kernel (kernels.driver): program, constants, registers used.""")

    constants = field(
        "_constants",
        """The Allocation holding its own GPU copy of the constant buffer (the kernel reads it there as root
        constants; in strict-host mode initialization copies it into the persistent resource).""")

    constants_in_persistent = field(
        "_constants_in_persistent",
        """Whether its kernels read their constants in the persistent resource (strict-host mode) rather than
        as root constants in DirectML's own memory.""")

    persistent_regions = field(
        "_regions",
        """What initialization copies where: (None, 0) for the constants (0 bytes of them unless in
        strict-host mode), then (input index, offset) per DML-owned input (a graph: (graph input, offset)).""",
        wrap=tuple)

    persistent_size = field("_persistent_size", """PersistentResourceSize of its binding properties.""")

    initialized = field("_initialized", """Whether an initializer dispatch for it has executed.""")


class CompiledGraphView(CompiledOperatorView):
    """A compiled graph: its plan, dispatch units (fusion groups) and resource layouts."""

    __slots__ = ()

    @property
    def kernel(self):
        """None: a graph's kernels are its units'."""
        return None

    @property
    def constants(self):
        """None: a graph's constant buffers are its nodes' and units'."""
        return None

    plan = field("_plan", """The validated GraphPlan (graph.py): nodes, edges, levels, dispatches.""")

    dispatches = field(
        "_plan.dispatches",
        """The partition's Dispatch records in execution order: nodes, level, barrier_before.""",
        wrap=tuple)

    units = field(
        "_units",
        """One DispatchUnit per dispatch (compiled_graph.py): its nodes, kernel, tensors, generated source.""",
        wrap=tuple)

    @property
    def nodes(self):
        """{operator node index: its IDMLCompiledOperator} (each node compiled alone)."""
        return dict(self._obj._nodes)

    @property
    def temporary_offsets(self):
        """{(node, output index): offset in the temporary resource} of each intermediate tensor in memory."""
        return dict(self._obj._temporary_offset)

    temporary_size = field("_temporary_size")

    descriptor_count = field("_descriptor_count")


class BindingTableView(View):
    """An IDMLBindingTable: its dispatchable, its descriptor ranges and what is bound."""

    __slots__ = ()

    dispatchable = field("_dispatchable")

    @property
    def inputs(self):
        """BoundBuffer (or None) per input of the last BindInputs (an initializer: one tuple per operator);
        None before any."""
        return _frozen(self._obj._inputs)

    @property
    def outputs(self):
        return _frozen(self._obj._outputs)

    temporary = field("_temporary", """The BoundBuffer of BindTemporaryResource, or None.""")

    persistent = field("_persistent", """The BoundBuffer of BindPersistentResource, or None.""")

    cpu_heap = field(
        "_cpu_heap",
        """The descriptor heap its CPUDescriptorHandle points into (where Bind* writes descriptors).""")

    cpu_first = field("_cpu_first")

    heap = field("_heap", """The shader-visible descriptor heap its GPUDescriptorHandle points into.""")

    first_index = field("_first_index")

    size = field("_size", """SizeInDescriptors.""")


class InitializerView(View):
    """An IDMLOperatorInitializer: the compiled operators it initializes."""

    __slots__ = ()

    operators = field("_operators", wrap=tuple)


class CommandRecorderView(View):
    """An IDMLCommandRecorder: its device (it keeps no other state)."""

    __slots__ = ()

    device = field("_device")


VIEWS = (   # most derived first: isinstance picks the first match
    (IDMLDevice, DMLDeviceView), (IDMLCompiledGraph, CompiledGraphView), (IDMLCompiledOperator, CompiledOperatorView),
    (IDMLOperator, OperatorView), (IDMLBindingTable, BindingTableView), (IDMLOperatorInitializer, InitializerView),
    (IDMLCommandRecorder, CommandRecorderView),
)


def _frozen(value):
    """Lists (and lists of lists) as tuples; anything else as it is."""
    if isinstance(value, list):
        return tuple(_frozen(item) for item in value)
    return value


def inspect(obj):
    """A read-only view of a DirectML (or D3D12) mirror object's state (see the module's table);
    TypeError otherwise."""
    for cls, view in VIEWS:
        if isinstance(obj, cls):
            return view(obj)
    if d3d12_inspection.view_type(obj) is not None:
        return d3d12_inspection.inspect(obj)
    names = ", ".join([cls.__name__ for cls, _ in VIEWS] + [cls.__name__ for cls, _ in d3d12_inspection.VIEWS])
    raise TypeError(f"inspect: obj is {short_repr(obj)}, {describe(obj)}; dmlemu.directml.inspect takes a "
                    f"DirectML or D3D12 mirror object ({names}).")


__all__ = ["inspect"]
