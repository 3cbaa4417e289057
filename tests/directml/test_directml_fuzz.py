"""Malformed arguments never crash the DirectML mirror: only HResultError escapes an HRESULT method,
and nothing escapes a void method (misuse removes the device instead)."""
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dmlemu.d3d12 import *  # noqa: F401,F403
from dmlemu.directml import *  # noqa: F401,F403
from dmlemu.directml import inspect
from dmlemu.errors import HResultError
from mirror_rig import MirrorRig
from operator_cases import ACCEPTED, REFUSED, garbage, outcome

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

_device_cache = {}


def d3d12_device():
    if "device" not in _device_cache:
        _device_cache["device"] = D3D12CreateDevice(None, D3D_FEATURE_LEVEL_11_0)
    return _device_cache["device"]


def valid_tensor(data_type=DML_TENSOR_DATA_TYPE_FLOAT32):
    return DML_TENSOR_DESC(Type=DML_TENSOR_TYPE_BUFFER, Desc=DML_BUFFER_TENSOR_DESC(
        DataType=data_type, Flags=0, Sizes=[1, 2, 3, 4], Strides=None,
        TotalTensorSizeInBytes=DMLCalcBufferTensorSize(data_type, 4, [1, 2, 3, 4], None)))


def valid_clip():
    t = valid_tensor()
    return DML_OPERATOR_DESC(Type=DML_OPERATOR_ELEMENT_WISE_CLIP, Desc=DML_ELEMENT_WISE_CLIP_OPERATOR_DESC(
        InputTensor=t, OutputTensor=valid_tensor(), ScaleBias=DML_SCALE_BIAS(Scale=1.0, Bias=0.0), Min=-1, Max=1))


def valid_if():
    return DML_OPERATOR_DESC(Type=DML_OPERATOR_ELEMENT_WISE_IF, Desc=DML_ELEMENT_WISE_IF_OPERATOR_DESC(
        ConditionTensor=valid_tensor(DML_TENSOR_DATA_TYPE_UINT8), ATensor=valid_tensor(), BTensor=valid_tensor(),
        OutputTensor=valid_tensor()))


PATHS = [
    "Type", "Desc", "Desc.InputTensor", "Desc.OutputTensor", "Desc.ScaleBias", "Desc.ScaleBias.Scale",
    "Desc.ScaleBias.Bias", "Desc.Min", "Desc.Max", "Desc.InputTensor.Type", "Desc.InputTensor.Desc",
    "Desc.OutputTensor.Desc.DataType", "Desc.OutputTensor.Desc.Flags", "Desc.OutputTensor.Desc.DimensionCount",
    "Desc.OutputTensor.Desc.Sizes", "Desc.OutputTensor.Desc.Strides", "Desc.OutputTensor.Desc.TotalTensorSizeInBytes",
    "Desc.OutputTensor.Desc.GuaranteedBaseOffsetAlignment", "Desc.InputTensor.Desc.Sizes", "Desc.InputTensor.Desc.Strides",
]
IF_PATHS = ["Desc.ConditionTensor", "Desc.ConditionTensor.Desc.DataType", "Desc.ATensor.Desc.Sizes",
            "Desc.BTensor.Desc.Strides", "Desc.OutputTensor.Desc.TotalTensorSizeInBytes"]


def mutate(desc, path, value):
    *parents, last = path.split(".")
    obj = desc
    for name in parents + [last]:
        fields = getattr(obj, "_fields_", None)   # a CStruct's C field names (ctypes' convention)
        if not isinstance(fields, tuple) or name not in fields:
            return False  # an earlier mutation replaced this part of the desc
        if name == last:
            setattr(obj, last, value)
            return True
        obj = getattr(obj, name)


@SETTINGS
@given(paths=st.lists(st.sampled_from(PATHS), min_size=1, max_size=3), values=st.lists(garbage, min_size=3, max_size=3),
       level=st.sampled_from([DML_FEATURE_LEVEL_1_0, DML_FEATURE_LEVEL_2_1, DML_FEATURE_LEVEL_5_0, DML_FEATURE_LEVEL_6_4]))
def test_create_and_compile_operator_only_raise_hresult_errors(paths, values, level):
    device = DMLCreateDevice(d3d12_device(), DML_CREATE_DEVICE_FLAG_NONE, max_feature_level=level)
    desc = valid_clip()
    for path, value in zip(paths, values):
        mutate(desc, path, value)
    try:
        op = device.CreateOperator(desc)
        device.CompileOperator(op, DML_EXECUTION_FLAG_NONE)
        outcome(ACCEPTED)
    except HResultError:
        outcome(REFUSED)


@SETTINGS
@given(path=st.sampled_from(IF_PATHS), value=garbage)
def test_create_if_only_raises_hresult_errors(path, value):
    device = DMLCreateDevice(d3d12_device(), DML_CREATE_DEVICE_FLAG_NONE)
    desc = valid_if()
    mutate(desc, path, value)
    try:
        device.CompileOperator(device.CreateOperator(desc), 0)
        outcome(ACCEPTED)
    except HResultError:
        outcome(REFUSED)


@SETTINGS
@given(args=st.tuples(garbage, garbage, garbage, garbage))
def test_calc_buffer_tensor_size_only_raises_hresult_errors(args):
    try:
        DMLCalcBufferTensorSize(*args)
        outcome(ACCEPTED)
    except HResultError:
        outcome(REFUSED)


@SETTINGS
@given(feature=st.one_of(st.sampled_from([0, 1]), garbage), query=st.one_of(
    garbage, st.builds(DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT, DataType=garbage),
    st.builds(DML_FEATURE_QUERY_FEATURE_LEVELS, RequestedFeatureLevelCount=garbage, RequestedFeatureLevels=garbage)))
def test_check_feature_support_only_raises_hresult_errors(feature, query):
    try:
        DMLCreateDevice(d3d12_device(), 0).CheckFeatureSupport(feature, query)
        outcome(ACCEPTED)
    except HResultError:
        outcome(REFUSED)


@SETTINGS
@given(flags=garbage, level=garbage, minimum=garbage)
def test_create_device_only_raises_hresult_errors(flags, level, minimum):
    try:
        DMLCreateDevice1(d3d12_device(), flags, minimum, max_feature_level=level)
        outcome(ACCEPTED)
    except HResultError:
        outcome(REFUSED)


def if_rig():
    """A MirrorRig (DML device without the debug flag, 8-slot heap) with a compiled IF operator, its initializer
    and a 1024-byte DEFAULT buffer (`rig.resource`)."""
    rig = MirrorRig(dml_flags=DML_CREATE_DEVICE_FLAG_NONE, heap_slots=8)
    rig.compiled = rig.compile(valid_if())
    rig.initializer = rig.dml.CreateOperatorInitializer([rig.compiled])
    rig.resource = rig.buffer(1024)
    return rig


def binding_strategy(rig_buffer_marker="BUFFER"):
    buffer_binding = st.builds(
        lambda buf, offset, size: ("buffer", buf, offset, size),
        st.one_of(st.just(rig_buffer_marker), garbage), st.one_of(st.integers(0, 2048), garbage),
        st.one_of(st.integers(0, 2048), garbage))
    return st.builds(lambda t, d: (t, d), st.one_of(st.sampled_from([0, 1, 2]), garbage),
                     st.one_of(buffer_binding, garbage,
                               st.lists(buffer_binding, max_size=4).map(lambda items: ("array", items))))


def build_binding(rig, spec):
    if not isinstance(spec, tuple) or len(spec) != 2:
        return spec
    binding_type, desc = spec

    def one(item):
        _, buf, offset, size = item
        return DML_BUFFER_BINDING(Buffer=rig.resource if isinstance(buf, str) and buf == "BUFFER" else buf,
                                  Offset=offset, SizeInBytes=size)

    if isinstance(desc, tuple) and desc and desc[0] == "buffer":
        desc = one(desc)
    elif isinstance(desc, tuple) and desc and desc[0] == "array":
        desc = DML_BUFFER_ARRAY_BINDING(Bindings=[one(item) for item in desc[1]])
    return DML_BINDING_DESC(Type=binding_type, Desc=desc)


@SETTINGS
@given(use_initializer=st.booleans(), method=st.sampled_from(["BindInputs", "BindOutputs", "BindTemporaryResource",
                                                               "BindPersistentResource"]),
       specs=st.one_of(st.lists(binding_strategy(), max_size=4), garbage, binding_strategy()))
def test_bind_never_raises(use_initializer, method, specs):
    rig = if_rig()
    dispatchable = rig.initializer if use_initializer else rig.compiled
    table = rig.dml.CreateBindingTable(rig.table_desc(dispatchable, size=4))
    if isinstance(specs, list):
        argument = [build_binding(rig, s) for s in specs]
    else:
        argument = build_binding(rig, specs)
    assert getattr(table, method)(argument) is None
    recorder = rig.dml.CreateCommandRecorder() if rig.dml.GetDeviceRemovedReason() == 0 else None
    if recorder is not None:
        assert recorder.RecordDispatch(rig.list, dispatchable, table) is None
    # Void methods: misuse removes the DirectML device (DirectML's documented reaction).
    outcome(REFUSED if rig.dml.GetDeviceRemovedReason() else ACCEPTED)


@SETTINGS
@given(fields=st.fixed_dictionaries({}, optional={
    "Dispatchable": garbage, "CPUDescriptorHandle": garbage, "GPUDescriptorHandle": garbage,
    "SizeInDescriptors": garbage}))
def test_create_binding_table_only_raises_hresult_errors(fields):
    rig = if_rig()
    desc = rig.table_desc(rig.compiled, size=4)
    for name, value in fields.items():
        setattr(desc, name, value)
    try:
        rig.dml.CreateBindingTable(desc)
        outcome(ACCEPTED)
    except HResultError:
        outcome(REFUSED)


@SETTINGS
@given(args=st.tuples(garbage, garbage, garbage), which=st.integers(0, 2))
def test_record_dispatch_never_raises(args, which):
    rig = if_rig()
    table = rig.dml.CreateBindingTable(rig.table_desc(rig.compiled, size=4))
    real = [rig.list, rig.compiled, table]
    real[which] = args[which]
    assert rig.dml.CreateCommandRecorder().RecordDispatch(*real) is None
    outcome(REFUSED if rig.dml.GetDeviceRemovedReason() or inspect(rig.list).error is not None else ACCEPTED)


@SETTINGS
@given(value=garbage)
def test_object_methods_only_raise_hresult_errors(value):
    device = DMLCreateDevice(d3d12_device(), 0)
    for call in (lambda: device.QueryInterface(value), lambda: device.SetName(value),
                 lambda: device.SetPrivateData(value, value), lambda: device.SetPrivateData(IID_IDMLDevice, value),
                 lambda: device.GetPrivateData(value), lambda: device.Evict(value), lambda: device.MakeResident(value),
                 lambda: device.CreateOperatorInitializer(value), lambda: device.CreateBindingTable(value),
                 lambda: device.CompileOperator(value, 0), lambda: device.CreateOperator(value)):
        try:
            call()
            outcome(ACCEPTED)
        except HResultError:
            outcome(REFUSED)
