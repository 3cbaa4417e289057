"""IDMLDevice: the DirectML device, one per DMLCreateDevice call, on top of one D3D12 device.

It creates operators, compiled operators, initializers, binding tables and command recorders, and
answers CheckFeatureSupport. It is also where removal lives: a misuse detected by a void method
(Bind*, RecordDispatch) or at execution removes this DML device (not the D3D12 device); afterwards
every HRESULT method of the device and its children raises DXGI_ERROR_DEVICE_REMOVED, void methods do
nothing, and GetDeviceRemovedReason() returns the cause (S_OK while not removed). With
DML_CREATE_DEVICE_FLAG_DEBUG every problem is also reported at once (appended to `device._debug_messages`)
through dmlemu.d3d12.messages.report, as DirectML sends its messages to the ID3D12InfoQueue of the
D3D12 device: with the D3D12 debug layer on they are stored there (and printed unless muted);
without it they are printed to stderr prefixed "[DIRECTML ERROR]: ". IDMLDebugDevice::SetMuteDebugOutput
stops both.

The emulated DirectML runtime's feature level: by default the adapter preset's `max_feature_level`
(DML_FEATURE_LEVEL_6_4); `DMLCreateDevice(..., max_feature_level=L)` and
`DMLCreateDevice1(..., max_feature_level=L)` emulate an older runtime that stops at L. The device
validates operators at that level (its maximum supported level), whatever minimum was requested.

Strict-host mode (`STRICT_HOST_VARIABLE`, DMLEMU_STRICT_HOST=1 in the environment when the device is
created): every compiled operator reports a nonzero persistent resource (its constants are kept there,
not as root constants) and a nonzero temporary resource, so a host's binding code is exercised on every
path a real driver may take (docs/PERSISTENT_RESOURCES.md). By default binding properties are
driver-like: no persistent resource where DirectML keeps no data.
"""
import os
from dmlemu.errors import (
    DXGI_ERROR_DEVICE_REMOVED, DXGI_ERROR_UNSUPPORTED, E_INVALIDARG, E_NOTIMPL, S_OK,
    HResultError, describe, hresult_name,
)
from dmlemu.directml import _d3d12
from dmlemu.directml import enums
from dmlemu.directml.enums import (
    DML_CREATE_DEVICE_FLAG_DEBUG, DML_CREATE_DEVICE_FLAGS, DML_EXECUTION_FLAGS, DML_FEATURE,
    DML_FEATURE_LEVEL, DML_FEATURE_LEVEL_1_0, DML_FEATURE_LEVEL_3_0,
    DML_FEATURE_LEVEL_6_3, DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT, DML_TENSOR_DATA_TYPE, DML_TENSOR_DATA_TYPE_UNKNOWN,
)
from dmlemu.com import check_enum, check_flags, check_sequence, check_uint, hresult_method, invalid, is_integer
from dmlemu.directml.objects import IDMLObject, IDMLPageable
from dmlemu.directml.structs import (
    DML_FEATURE_DATA_FEATURE_LEVELS, DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT,
    DML_FEATURE_QUERY_FEATURE_LEVELS, DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT,
)
from dmlemu.directml.validation import SIXTY_FOUR_BIT_TYPES, c_level_name, short_type_name, validate_operator_desc

DEBUG_PREFIX = _d3d12.DIRECTML_PREFIX     # "[DIRECTML ERROR]: "


class IDMLDevice(IDMLObject):
    """The DirectML device. Create it with DMLCreateDevice / DMLCreateDevice1."""

    _iids = (enums.IID_IDMLDevice,)

    def __init__(self, d3d12_device, flags, feature_level):
        super().__init__(self)
        self._d3d12_device = d3d12_device
        self._gpu = _d3d12.gpu_of(d3d12_device)
        self._flags = flags
        self._feature_level = feature_level
        self._removed_reason = None      # HRESULT once removed
        self._removed_message = ""
        self._debug_messages = []        # every problem, in order, when created with the debug flag
        self._mute_debug_output = False
        self._strict_host = strict_host_requested()

    # ---- state ----------------------------------------------------------------------------------
    @property
    def _preset(self):
        return self._gpu.preset

    @property
    def _debug(self):
        return bool(self._flags & DML_CREATE_DEVICE_FLAG_DEBUG)

    def _report(self, message, may_break=True, severity=None):
        """The debug layer: keep a problem and send it to the D3D12 device's info queue, or stderr (only
        with DML_CREATE_DEVICE_FLAG_DEBUG; muted by SetMuteDebugOutput). Raises D3D12DebugBreak when the
        info queue breaks on it (deferred to ExecuteCommandLists while the GPU executes). `severity`: a
        D3D12_MESSAGE_SEVERITY (None: ERROR; WARNING for a latent host bug that works here)."""
        if not self._debug:
            return
        self._debug_messages.append(message)
        if not self._mute_debug_output:
            _d3d12.report_debug_message(self._d3d12_device, E_INVALIDARG, message, source="DirectML",
                                         may_break=may_break, severity=severity)

    def _remove(self, message, reason=E_INVALIDARG, may_break=True):
        """Put the device in the removed state (the first cause is kept) and report why."""
        if self._removed_reason is None:
            self._removed_reason = reason
            self._removed_message = message
        self._report(f"{message} The DirectML device is now removed ({hresult_name(reason)}).", may_break)

    def _follow_d3d12_removal(self):
        """D3D12 device removal removes the DML device too (with the D3D12 reason)."""
        if self._removed_reason is None:
            reason = _d3d12.device_removed_reason(self._d3d12_device)
            if reason:
                self._remove(f"the D3D12 device was removed: {_d3d12.device_removed_message(self._d3d12_device)}",
                             reason, may_break=False)

    def _is_removed(self):
        self._follow_d3d12_removal()
        return self._removed_reason is not None

    def _report_failure(self, message):
        """An HRESULT method failed: the debug layer reports it (the failure itself is the break)."""
        self._report(message, may_break=False)

    def _report_misuse(self, hresult, message):
        """Misuse in a void method: remove the device (hresult None: E_INVALIDARG)."""
        self._remove(message, E_INVALIDARG if hresult is None else hresult)

    def _check_not_removed(self, where):
        self._follow_d3d12_removal()
        if self._removed_reason is not None:
            raise HResultError(DXGI_ERROR_DEVICE_REMOVED,
                               f"{where} failed: the DirectML device was removed earlier "
                               f"({hresult_name(self._removed_reason)}): {self._removed_message}")

    def _check_child(self, obj, cls, where):
        """`obj` must be a `cls` created by this device."""
        if not isinstance(obj, cls):
            raise invalid(f"{where} is {describe(obj)}; "
                          f"it must be an {cls.__name__}.")
        if obj._device is not self:
            raise invalid(f"{where} was created by another DirectML device; objects of different "
                          f"DirectML devices must not be mixed.")
        return obj

    # ---- IDMLDevice -------------------------------------------------------------------------------
    @hresult_method
    def CheckFeatureSupport(self, feature, featureQueryData):
        """Returns the feature's data struct (the C featureSupportData out-parameter).

        DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT takes a DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT and
        returns a DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT; DML_FEATURE_FEATURE_LEVELS takes a
        DML_FEATURE_QUERY_FEATURE_LEVELS and returns a DML_FEATURE_DATA_FEATURE_LEVELS. The C size
        arguments are implied by the structs.
        """
        if not is_integer(feature):
            raise invalid(f"feature is {feature!r}; it must be a DML_FEATURE value.")
        try:
            feature = DML_FEATURE(int(feature))
        except ValueError:
            raise HResultError(DXGI_ERROR_UNSUPPORTED, f"feature is {int(feature)}, which is not a DML_FEATURE "
                                                       f"this DirectML knows.") from None
        if feature == DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT:
            if not isinstance(featureQueryData, DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT):
                raise invalid(f"featureQueryData is {type(featureQueryData).__name__}; "
                              f"DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT needs a DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT.")
            data_type = check_enum(featureQueryData.DataType, DML_TENSOR_DATA_TYPE, "featureQueryData.DataType")
            return DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT(IsSupported=int(self._supports_data_type(data_type)))
        if not isinstance(featureQueryData, DML_FEATURE_QUERY_FEATURE_LEVELS):
            raise invalid(f"featureQueryData is {type(featureQueryData).__name__}; "
                          f"DML_FEATURE_FEATURE_LEVELS needs a DML_FEATURE_QUERY_FEATURE_LEVELS.")
        requested = featureQueryData.RequestedFeatureLevels
        if requested is None:
            raise invalid("featureQueryData.RequestedFeatureLevels is None; it must list at least one feature level.")
        level_count = len(DML_FEATURE_LEVEL)
        requested = check_sequence(requested, "featureQueryData.RequestedFeatureLevels", max_length=level_count,
                                   limit=f"a range repeats no value, and only {level_count} values are "
                                         "DML_FEATURE_LEVEL values")
        count = featureQueryData.explicit_count("RequestedFeatureLevelCount")
        if count is not None and check_uint(count, "featureQueryData.RequestedFeatureLevelCount") != len(requested):
            raise invalid(f"featureQueryData.RequestedFeatureLevelCount is {count} but RequestedFeatureLevels has "
                          f"{len(requested)} elements; they must agree.")
        if not requested:
            raise invalid("featureQueryData.RequestedFeatureLevels is empty; it must list at least one feature level.")
        levels = [check_uint(level, f"featureQueryData.RequestedFeatureLevels[{i}]") for i, level in enumerate(requested)]
        supported = [level for level in levels if level <= self._feature_level and level in DML_FEATURE_LEVEL._value2member_map_]
        if not supported:
            raise HResultError(DXGI_ERROR_UNSUPPORTED,
                               f"none of featureQueryData.RequestedFeatureLevels "
                               f"{{{', '.join(c_level_name(level) for level in levels)}}} is supported; this "
                               f"device supports up to {c_level_name(self._feature_level)}.")
        return DML_FEATURE_DATA_FEATURE_LEVELS(MaxSupportedFeatureLevel=DML_FEATURE_LEVEL(max(supported)))

    def _supports_data_type(self, data_type):
        if data_type == DML_TENSOR_DATA_TYPE_UNKNOWN:
            return False
        name = short_type_name(data_type)
        if name in SIXTY_FOUR_BIT_TYPES:
            return self._feature_level >= DML_FEATURE_LEVEL_3_0 and self._preset.supports_64bit
        if name in ("UINT4", "INT4"):
            return self._feature_level >= DML_FEATURE_LEVEL_6_3
        return True

    @hresult_method
    def CreateOperator(self, desc):
        """Validate a DML_OPERATOR_DESC at this device's feature level; returns an IDMLOperator.

        An operator dmlemu has a schema for is validated completely first; if no microkernel exists
        for it yet (dmlemu.kernels.driver.has_kernel) the answer is then E_NOTIMPL.
        """
        from dmlemu.directml.operators import IDMLOperator
        from dmlemu.kernels.driver import has_kernel     # lazily: the API mirror does not import the kernels at load
        info = validate_operator_desc(desc, self._feature_level, self._preset)
        if not has_kernel(info.schema.name):
            raise HResultError(E_NOTIMPL, f"DML_OPERATOR_DESC.Type is {info.schema.c_name}; its desc is validated, but "
                                          f"dmlemu has no kernel for it yet.")
        return IDMLOperator(self, info)

    @hresult_method
    def CompileOperator(self, op, flags):
        """Compile an IDMLOperator into an IDMLCompiledOperator (kernel + constant buffer)."""
        from dmlemu.directml.compiled_operator import IDMLCompiledOperator
        from dmlemu.directml.operators import IDMLOperator
        self._check_child(op, IDMLOperator, "op")
        flags = check_flags(flags, DML_EXECUTION_FLAGS, "flags")
        return IDMLCompiledOperator(self, op, flags)

    @hresult_method
    def CreateOperatorInitializer(self, operators):
        """An initializer for a sequence of IDMLCompiledOperator (None or empty: an empty one)."""
        from dmlemu.directml.initializer import IDMLOperatorInitializer
        return IDMLOperatorInitializer(self, self._check_compiled_list(operators, "operators"))

    def _check_compiled_list(self, operators, where):
        from dmlemu.directml.compiled_operator import IDMLCompiledOperator
        if operators is None:
            return ()
        operators = check_sequence(operators, where, "a sequence of IDMLCompiledOperator", max_length=0)
        return tuple(self._check_child(op, IDMLCompiledOperator, f"{where}[{i}]") for i, op in enumerate(operators))

    @hresult_method
    def CreateCommandRecorder(self):
        from dmlemu.directml.command_recorder import IDMLCommandRecorder
        return IDMLCommandRecorder(self)

    @hresult_method
    def CreateBindingTable(self, desc):
        """A binding table for desc (None: an empty table to Reset later)."""
        from dmlemu.directml.binding_table import IDMLBindingTable
        table = IDMLBindingTable(self)
        table._reset(desc)
        return table

    @hresult_method
    def Evict(self, objects):
        """Mark pageable objects (compiled operators, initializers) non-resident."""
        for obj in self._check_pageables(objects, "ppObjects"):
            obj._resident = False

    @hresult_method
    def MakeResident(self, objects):
        for obj in self._check_pageables(objects, "ppObjects"):
            obj._resident = True

    def _check_pageables(self, objects, where):
        objects = check_sequence(objects, where, "a sequence of IDMLPageable", max_length=0)
        return [self._check_child(obj, IDMLPageable, f"{where}[{i}]") for i, obj in enumerate(objects)]

    def GetDeviceRemovedReason(self):
        """S_OK while the device works; the HRESULT that removed it afterwards."""
        self._follow_d3d12_removal()
        return S_OK if self._removed_reason is None else self._removed_reason

    @hresult_method
    def GetParentDevice(self):
        """The ID3D12Device this DML device was created on."""
        return self._d3d12_device

    # ---- IDMLDebugDevice (QueryInterface(IID_IDMLDebugDevice) works with the debug flag) -----------
    def SetMuteDebugOutput(self, mute):
        self._mute_debug_output = bool(mute)

    def _supported_iids(self):
        iids = super()._supported_iids()
        if self._debug:
            iids.add(enums.IID_IDMLDebugDevice)
        return iids


class IDMLDevice1(IDMLDevice):
    _iids = (enums.IID_IDMLDevice1,)

    @hresult_method
    def CompileGraph(self, desc, flags, *, fuse=True):
        """Compile a DML_GRAPH_DESC into an IDMLCompiledOperator (emulator/directml/graph.py checks and
        partitions it; compiled_graph.py lays it out; fusion.py compiles fused groups). The C riid is
        implied: the result is an IDMLCompiledOperator. Introduced in DML_FEATURE_LEVEL_2_1.

        `fuse` (dmlemu's, keyword-only): fuse element-wise nodes into shared kernels, as DirectML does
        (default); False gives one dispatch per operator node (same bits, docs/GRAPHS.md)."""
        from dmlemu.directml.compiled_graph import IDMLCompiledGraph
        from dmlemu.directml.graph import validate_graph_desc
        plan = validate_graph_desc(desc, self, fuse=bool(fuse))
        flags = check_flags(flags, DML_EXECUTION_FLAGS, "flags")
        return IDMLCompiledGraph(self, plan, flags)


def _create_device(d3d12_device, flags, minimum_level, max_feature_level, where):
    if not _d3d12.is_device(d3d12_device):
        raise HResultError(E_INVALIDARG, f"{where} d3d12Device is "
                                         f"{describe(d3d12_device)}; "
                                         f"it must be an ID3D12Device.")
    flags = check_flags(flags, DML_CREATE_DEVICE_FLAGS, f"{where} flags")
    preset = _d3d12.gpu_of(d3d12_device).preset
    if max_feature_level is None:
        max_feature_level = preset.max_feature_level
    max_feature_level = check_enum(max_feature_level, DML_FEATURE_LEVEL, f"{where} max_feature_level")
    # A level above the runtime's highest is DXGI_ERROR_UNSUPPORTED, also when this runtime does not
    # know its name (a newer DirectML's level); only unknown values below it are E_INVALIDARG.
    if is_integer(minimum_level) and int(minimum_level) > max_feature_level:
        raise HResultError(DXGI_ERROR_UNSUPPORTED,
                           f"{where} minimumFeatureLevel is {_level_text(minimum_level)}; this DirectML supports up "
                           f"to {max_feature_level.name}.")
    minimum_level = check_enum(minimum_level, DML_FEATURE_LEVEL, f"{where} minimumFeatureLevel")
    reason = _d3d12.device_removed_reason(d3d12_device)
    if reason:
        raise HResultError(DXGI_ERROR_DEVICE_REMOVED, f"{where}: the D3D12 device was removed ({hresult_name(reason)}).")
    return IDMLDevice1(d3d12_device, flags, max_feature_level)


def _level_text(level):
    """A DML_FEATURE_LEVEL's C name, or its hex value when this runtime has no name for it."""
    return DML_FEATURE_LEVEL(int(level)).name if int(level) in DML_FEATURE_LEVEL._c_names_ else f"0x{int(level):X}"


STRICT_HOST_VARIABLE = "DMLEMU_STRICT_HOST"


def strict_host_requested():
    """Whether a device created now is in strict-host mode: DMLEMU_STRICT_HOST set to 1 (or true, yes, on)."""
    return os.environ.get(STRICT_HOST_VARIABLE, "").strip().lower() in ("1", "true", "yes", "on")


def DMLCreateDevice(d3d12Device, flags, *, max_feature_level=None):
    """Create a DML device on an ID3D12Device (DMLCreateDevice1 with DML_FEATURE_LEVEL_1_0).

    `max_feature_level` (dmlemu's, keyword-only): the highest feature level the emulated DirectML
    runtime supports; default the adapter preset's max_feature_level.
    """
    return _create_device(d3d12Device, flags, DML_FEATURE_LEVEL_1_0, max_feature_level, "DMLCreateDevice")


def DMLCreateDevice1(d3d12Device, flags, minimumFeatureLevel, *, max_feature_level=None):
    """Create a DML device; DXGI_ERROR_UNSUPPORTED when minimumFeatureLevel is above what it supports."""
    return _create_device(d3d12Device, flags, minimumFeatureLevel, max_feature_level, "DMLCreateDevice1")
