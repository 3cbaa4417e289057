"""Property-based tests of DirectML dispatches of the seed operators, through the API mirror only.

Valid cases: random valid descs (every data type each feature level allows, 1 to 8 dimensions,
packed / padded / permuted / broadcast / arbitrary input strides, TotalTensorSizeInBytes with slack,
GuaranteedBaseOffsetAlignment, binding offsets, ScaleBias and bounds with NaN, inf and huge values,
both FLOAT16 paths, in-place CLIP / THRESHOLD / IDENTITY, inputs sharing a buffer, five adapters)
give outputs equal bit for bit to dmlemu.golden, read back through a READBACK buffer. Around the
dispatch, every byte of every allocation is compared and the guard bytes checked (see
tests/memory_watch.py).

Invalid cases: a valid case with one misuse applied. HRESULT methods must raise HResultError with the
expected code and a sentence naming the problem, after which the same devices still run a valid
operator; void methods (Bind*, RecordDispatch) and execution-time errors must remove the device, after
which every call fails cleanly with DXGI_ERROR_DEVICE_REMOVED and GetDeviceRemovedReason says why.
No other exception type may escape, and a failed dispatch writes nothing.

Example counts follow the hypothesis profile (tests/conftest.py): "ci" is deterministic (derandomize)
and runs 1,200 valid, 900 invalid and 52 x 5 one-fault-each cases (about 20 s of CPU); DMLEMU_FUZZ_PROFILE=long
runs 42 times more (50,400 and 37,800; 10 times for the one-fault-each test), with random seeds.
"""
import dataclasses
from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from dmlemu import golden
from dmlemu.d3d12 import *  # noqa: F401,F403
from dmlemu.directml import *  # noqa: F401,F403
from dmlemu.directml.operators import SCHEMAS
from dmlemu.errors import DXGI_ERROR_INVALID_CALL, E_INVALIDARG, E_NOTIMPL, S_OK
from dmlemu.presets import DEFAULT_PRESET, IRIS_XE, TEACHING, RTX_3070

from operator_cases import (BindingCase, BufferCase, Case, FEATURE_LEVELS, HEAP_SLOTS, OPERATORS, TensorCase,
                            assert_removed_everywhere, check_ok, run_case, scaled, small_clip_works)

pytestmark = pytest.mark.usefixtures("guard_bytes")

NO_FP16 = dataclasses.replace(DEFAULT_PRESET, key="nofp16", description="dmlemu test GPU without native FP16",
                              native_fp16=False)
# Odd shapes for the dispatcher: partial waves in every workgroup, wave64, the narrowest waves.
WAVE64 = dataclasses.replace(DEFAULT_PRESET, key="wave64", description="dmlemu test GPU, wave64", wave_width=64,
                             workgroup_size=192)
PARTIAL = dataclasses.replace(RTX_3070, key="partial", description="dmlemu test GPU, 48-thread workgroups",
                              workgroup_size=48)
WAVE4 = dataclasses.replace(TEACHING, key="wave4", description="dmlemu test GPU, wave4", wave_width=4,
                            workgroup_size=12)
ADAPTERS = (DEFAULT_PRESET, TEACHING, IRIS_XE, RTX_3070, NO_FP16, WAVE64, PARTIAL, WAVE4)
SIXTY_FOUR = ("FLOAT64", "INT64", "UINT64")
ALL_TYPES = ("FLOAT32", "FLOAT16", "UINT32", "UINT16", "UINT8", "INT32", "INT16", "INT8", "FLOAT64", "UINT64", "INT64")
FLOAT_SPECIALS = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.5, -2.5, 127.5, -128.5, 255.9, 65535.5, -32768.9, 65504.0,
                  65520.0, 2147483647.0, 2147483648.0, -2147483649.0, 4294967296.0, 9.3e18, -9.3e18, 1.9e19,
                  6e-8, 1e-45, 1.2e-38, 1e30, -1e30, 3.4e38, 3.5e38, 1e39, -1e39, 1e300, float("nan"),
                  float("inf"), float("-inf")]
numbers = st.one_of(st.sampled_from(FLOAT_SPECIALS), st.sampled_from(FLOAT_SPECIALS[-8:]),
                    st.floats(allow_nan=True, allow_infinity=True),
                    st.floats(-300, 300), st.floats(width=32), st.integers(-(1 << 40), 1 << 40),
                    st.sampled_from([np.float32(1.5), np.float64(-2.75), np.int32(-7), np.float16(0.1)]))

SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                                       HealthCheck.filter_too_much])


# ---- valid cases --------------------------------------------------------------------------------------
@st.composite
def sizes_for(draw, dims):
    cap = draw(st.sampled_from([16, 64, 256, 600, 600, 600, 4000]))
    sizes = draw(st.lists(st.integers(1, 6), min_size=dims, max_size=dims))
    if dims <= 3 and draw(st.booleans()):
        sizes[draw(st.integers(0, dims - 1))] = draw(st.integers(1, cap))
    while int(np.prod(sizes)) > cap:
        i = int(np.argmax(sizes))
        sizes[i] = max(1, sizes[i] // 2)
    return tuple(sizes)


@st.composite
def injective_strides(draw, sizes):
    """None, packed, or a permuted layout with padding: every element has its own address."""
    kind = draw(st.sampled_from(["none", "packed", "permuted"]))
    if kind == "none":
        return None
    if kind == "packed":
        return tuple(golden.packed_strides(sizes))
    order = draw(st.permutations(range(len(sizes))))   # fastest first
    strides = [0] * len(sizes)
    reach = 0
    for axis in order:
        if sizes[axis] == 1:
            strides[axis] = draw(st.sampled_from([0, 1, 5, reach + 1, (1 << 32) - 1]))   # a size-1 dim's stride is unused
            continue
        strides[axis] = reach + 1 + draw(st.sampled_from([0, 0, 1, 3]))
        reach += (sizes[axis] - 1) * strides[axis]
    return tuple(strides)


@st.composite
def input_strides(draw, sizes):
    """Any input layout: injective ones, broadcasts (stride 0) and arbitrary overlapping strides."""
    kind = draw(st.sampled_from(["injective", "injective", "broadcast", "arbitrary"]))
    strides = draw(injective_strides(sizes))
    if kind == "injective":
        return strides
    strides = list(strides if strides is not None else golden.packed_strides(sizes))
    if kind == "broadcast":
        for axis in range(len(sizes)):
            if draw(st.booleans()):
                strides[axis] = 0
        return tuple(strides)
    return tuple(draw(st.lists(st.integers(0, 6), min_size=len(sizes), max_size=len(sizes))))


@st.composite
def tensor_for(draw, type_name, sizes, strides):
    itemsize = golden.DATA_TYPES[type_name].itemsize
    alignment = draw(st.sampled_from([0, 0, 0] + [a for a in (1, 2, 4, 8, 16, 32, 64, 128, 256) if a >= itemsize]))
    extra = draw(st.sampled_from([0, 0, 0, 1, 3, 4, 8, 12, 64]))
    return TensorCase(type_name, tuple(sizes), strides, extra, alignment)


@st.composite
def valid_cases(draw, ops=None, in_place=None):
    op = draw(st.sampled_from(sorted(ops or OPERATORS)))
    adapter = draw(st.sampled_from(ADAPTERS))
    schema = SCHEMAS[OPERATORS[op]]
    levels = [level for level in FEATURE_LEVELS if schema.introduced_at <= level <= adapter.max_feature_level]
    level = draw(st.sampled_from(levels))
    support = schema.support_at(level).tensors["OutputTensor"]
    types = [t for t in support.data_types if adapter.supports_64bit or t not in SIXTY_FOUR]
    type_name = draw(st.sampled_from(types))
    dims = draw(st.integers(support.min_dims, support.max_dims))
    sizes = draw(sizes_for(dims))
    is_if = op == "ELEMENT_WISE_IF"
    if in_place is None:
        in_place = not is_if and draw(st.integers(0, 3)) == 0
    out_strides = draw(injective_strides(sizes))
    output = draw(tensor_for(type_name, sizes, out_strides))
    if in_place:
        same = output.strides
        if same is not None and tuple(same) == tuple(golden.packed_strides(sizes)) and draw(st.booleans()):
            same = None   # None and explicit packed strides are the same layout
        inputs = [dataclasses.replace(output, strides=same, alignment=draw(st.sampled_from([0, output.alignment])))]
    else:
        input_types = ["UINT8", type_name, type_name] if is_if else [type_name]
        inputs = [draw(tensor_for(t, sizes, draw(input_strides(sizes)))) for t in input_types]
    tensors = inputs + [output]

    buffers, bindings = [], []

    def place(tensor, buffer_index=None, align=None):
        align = max(16, tensor.alignment, align or 0)
        offset = align * draw(st.integers(0, 3))
        size = tensor.total + 4 * draw(st.sampled_from([0, 0, 1, 5]))
        if buffer_index is None:
            buffers.append(BufferCase(offset + size + draw(st.sampled_from([0, 0, 4, 37, 100]))))
            buffer_index = len(buffers) - 1
        else:
            buffers[buffer_index].width = max(buffers[buffer_index].width, offset + size)
        bindings.append(BindingCase(buffer_index, offset, size))

    if in_place:
        place(inputs[0], align=output.alignment)   # one offset must suit both descs
        b = bindings[0]
        bindings.append(BindingCase(b.buffer, b.offset, b.size))
    elif is_if and draw(st.booleans()):
        buffers.append(BufferCase(4))   # the three inputs share one buffer (they may overlap)
        for tensor in inputs:
            place(tensor, 0)
        buffers[0].width += draw(st.sampled_from([0, 4, 64]))
        place(output)
    else:
        for tensor in tensors:
            place(tensor)

    floats = {}
    if "Min" in schema.float_fields:
        floats["Min"] = draw(numbers)
    if "Max" in schema.float_fields:
        floats["Max"] = draw(numbers)
    scale_bias = None
    if schema.scale_bias and type_name in ("FLOAT32", "FLOAT16") and draw(st.integers(0, 3)):
        scale_bias = (draw(numbers), draw(numbers))
    flags = draw(st.sampled_from([0, 1, 1, 2, 4, 5, 7]))
    late_bind = bool(flags & DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE) and draw(st.booleans())
    return Case(op=op, adapter=adapter, level=level, tensors=tensors, buffers=buffers, bindings=bindings,
                flags=flags, debug=draw(st.booleans()), create1=draw(st.booleans()), scale_bias=scale_bias,
                floats=floats, first_slot=draw(st.integers(0, HEAP_SLOTS - len(tensors))), barrier=draw(st.booleans()),
                seed=draw(st.integers(0, (1 << 32) - 1)), in_place=in_place, late_bind=late_bind,
                scratch=draw(st.integers(0, 4)) == 0, d3d12_debug=draw(st.booleans()))


def describe(case):
    path = "half" if case.half_precision else "wide"
    return f"{case.op} {case.tensors[-1].type_name} {len(case.tensors[-1].sizes)}D {path}"


@settings(max_examples=scaled(1200, 42), **SETTINGS)   # the long profile: ~50,000 as before
@given(case=valid_cases())
def test_valid_cases_match_golden_bit_for_bit(case):
    event(f"valid: {case.op}")
    event(f"valid type: {case.tensors[-1].type_name}")
    if case.tensors[-1].type_name == "FLOAT16":
        event(f"valid FLOAT16 path: {'half' if case.half_precision else 'widened'}")
    if case.in_place:
        event("valid: in-place")
    check_ok(run_case(case))


# ---- invalid cases ----------------------------------------------------------------------------------------
@dataclass
class Expect:
    kind: str              # "hresult" or "removed"
    hresult: int
    contains: str          # a fragment of the sentence naming the problem
    stage: str = None      # for "hresult": the call that must raise
    d3d12_removed: bool = False
    dml_reports: bool = True   # a D3D12 error (not DirectML's) is not printed by DML_CREATE_DEVICE_FLAG_DEBUG


def _volatile(case):
    """DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE: the bindings are checked when the dispatch executes."""
    return bool(case.flags & DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE)


def _same_type_fields(case):
    schema = case.schema
    fields = [role.field for role in schema.tensors]
    return [fields.index(f) for f in schema.same_data_type[0]]   # the seed operators have one DataType group


def _row(case, level=None):
    return case.schema.support_at(case.level if level is None else level)


def _allowed_types(case, field="OutputTensor", level=None):
    types = _row(case, level).tensors[field].data_types
    return [t for t in types if case.adapter.supports_64bit or t not in SIXTY_FOUR]


def _field(case, index):
    return case.schema.tensors[index].field


FAULTS = {}


def fault(name, applies=lambda case: True):
    def register(function):
        FAULTS[name] = (applies, function)
        return function
    return register


# -- CreateOperator / CompileOperator: E_INVALIDARG (HRESULT) ----------------------------------------------
@fault("type not allowed at the feature level")
def _(draw, case):
    allowed = _row(case).tensors["OutputTensor"].data_types
    choice = draw(st.sampled_from([t for t in ALL_TYPES if t not in allowed] + ["UNKNOWN", "UINT4", "INT4"]))
    for i in _same_type_fields(case):
        t = case.tensors[i]
        if choice in ("UNKNOWN", "UINT4", "INT4"):
            t.total_override = 1 << 16
        t.type_name = choice
        t.alignment = 0
    return Expect("hresult", E_INVALIDARG, f"DataType is DML_TENSOR_DATA_TYPE_{choice};", "CreateOperator")


@fault("data type value outside the enum")
def _(draw, case):
    t = case.tensors[draw(st.integers(0, len(case.tensors) - 1))]
    t.type_name = draw(st.sampled_from([14, 99, -1]))
    t.total_override = 64
    return Expect("hresult", E_INVALIDARG, f"DataType is {t.type_name}", "CreateOperator")


@fault("64-bit type on an adapter without 64-bit support",
       lambda case: case.op != "ELEMENT_WISE_THRESHOLD")
def _(draw, case):
    level = max(case.level, DML_FEATURE_LEVEL_5_0)
    case.adapter, case.level = IRIS_XE, level
    choice = draw(st.sampled_from([t for t in SIXTY_FOUR if t in _row(case).tensors["OutputTensor"].data_types]))
    for i in _same_type_fields(case):
        case.tensors[i].type_name = choice
        case.tensors[i].alignment = 0
    case.scale_bias = None
    return Expect("hresult", E_INVALIDARG, "does not support 64-bit tensor data types", "CreateOperator")


@fault("mismatched data types", lambda case: len(_allowed_types(case)) > 1)
def _(draw, case):
    index = draw(st.sampled_from(_same_type_fields(case)[1:]))
    t = case.tensors[index]
    t.type_name = draw(st.sampled_from([x for x in _allowed_types(case) if x != t.type_name]))
    t.alignment = 0
    case.scale_bias = None
    return Expect("hresult", E_INVALIDARG, "requires the same DataType", "CreateOperator")


@fault("mismatched sizes")
def _(draw, case):
    index = draw(st.integers(1, len(case.tensors) - 1))
    t = case.tensors[index]
    sizes = list(t.sizes)
    sizes[draw(st.integers(0, len(sizes) - 1))] += 1
    t.sizes, t.strides = tuple(sizes), None
    return Expect("hresult", E_INVALIDARG, "requires the same Sizes", "CreateOperator")


@fault("mismatched dimension counts")
def _(draw, case):
    support = _row(case).tensors["OutputTensor"]
    index = draw(st.integers(1, len(case.tensors) - 1))
    t = case.tensors[index]
    if len(t.sizes) < support.max_dims:
        t.sizes = (1,) + tuple(t.sizes)
    elif len(t.sizes) > support.min_dims:
        t.sizes = tuple(t.sizes[1:])
    else:
        return None
    t.strides = None
    return Expect("hresult", E_INVALIDARG, "requires the same DimensionCount", "CreateOperator")


@fault("a zero size")
def _(draw, case):
    index = draw(st.integers(0, len(case.tensors) - 1))
    t = case.tensors[index]
    axis = draw(st.integers(0, len(t.sizes) - 1))
    sizes = list(t.sizes)
    sizes[axis] = 0
    t.sizes, t.total_override = tuple(sizes), 64
    return Expect("hresult", E_INVALIDARG, f"{_field(case, index)}.Sizes[{axis}] is 0; sizes must be non-zero.",
                  "CreateOperator")


@fault("too many or too few dimensions")
def _(draw, case):
    support = _row(case).tensors["OutputTensor"]
    choices = [support.max_dims + 1, 9, 12] + ([support.min_dims - 1] if support.min_dims > 1 else []) + [0]
    dims = draw(st.sampled_from(choices))
    for t in case.tensors:
        sizes = (tuple(t.sizes) + (1,) * 12)[:dims] if dims else ()
        t.sizes, t.strides, t.total_override = sizes, None, 4096
    return Expect("hresult", E_INVALIDARG, f"Sizes has {dims} dimensions;", "CreateOperator")


@fault("TotalTensorSizeInBytes too small")
def _(draw, case):
    index = draw(st.integers(0, len(case.tensors) - 1))
    t = case.tensors[index]
    minimum = t.minimum_bytes
    t.total_override = draw(st.sampled_from([0, minimum - 4, minimum - 1, minimum // 2]))
    return Expect("hresult", E_INVALIDARG,
                  f"{_field(case, index)}.TotalTensorSizeInBytes is {t.total_override}; its Sizes and Strides need "
                  f"at least {minimum} bytes", "CreateOperator")


@fault("GuaranteedBaseOffsetAlignment not a power of two >= the element size")
def _(draw, case):
    index = draw(st.integers(0, len(case.tensors) - 1))
    t = case.tensors[index]
    bad = [3, 6, 24, 48, 1000] + [a for a in (1, 2, 4) if a < t.itemsize]
    t.alignment = draw(st.sampled_from(bad))
    return Expect("hresult", E_INVALIDARG, f"{_field(case, index)}.GuaranteedBaseOffsetAlignment is {t.alignment}",
                  "CreateOperator")


@fault("ScaleBias on an integer tensor",
       lambda case: case.schema.scale_bias and any(t not in ("FLOAT32", "FLOAT16") for t in _allowed_types(case)))
def _(draw, case):
    choice = draw(st.sampled_from([t for t in _allowed_types(case) if t not in ("FLOAT32", "FLOAT16")]))
    for t in case.tensors:
        t.type_name, t.alignment = choice, 0
    case.scale_bias = (draw(numbers), draw(numbers))
    return Expect("hresult", E_INVALIDARG, "ScaleBias is set but", "CreateOperator")


@fault("Strides of the wrong length")
def _(draw, case):
    index = draw(st.integers(0, len(case.tensors) - 1))
    t = case.tensors[index]
    strides = list(t.effective_strides)
    t.strides = tuple(strides + [1]) if draw(st.booleans()) or len(strides) == 1 else tuple(strides[:-1])
    t.total_override = 1 << 16
    return Expect("hresult", E_INVALIDARG, f"{_field(case, index)}.Strides has {len(t.strides)} elements",
                  "CreateOperator")


@fault("output strides that alias", lambda case: max(case.tensors[-1].sizes) > 1)
def _(draw, case):
    t = case.tensors[-1]
    axis = draw(st.sampled_from([i for i, s in enumerate(t.sizes) if s > 1]))
    strides = list(t.effective_strides)
    strides[axis] = 0
    t.strides = tuple(strides)
    return Expect("hresult", E_INVALIDARG, "can make two elements share an address", "CreateOperator")


@fault("DimensionCount disagrees with Sizes")
def _(draw, case):
    index = draw(st.integers(0, len(case.tensors) - 1))
    t = case.tensors[index]
    t.dimension_count = len(t.sizes) + draw(st.sampled_from([1, -1, 5]))
    return Expect("hresult", E_INVALIDARG, f"{_field(case, index)}.DimensionCount is {t.dimension_count}",
                  "CreateOperator")


@fault("IF condition that is not UINT8", lambda case: case.op == "ELEMENT_WISE_IF")
def _(draw, case):
    t = case.tensors[0]
    t.type_name, t.alignment = draw(st.sampled_from([x for x in ALL_TYPES if x != "UINT8" and x not in SIXTY_FOUR])), 0
    return Expect("hresult", E_INVALIDARG, f"ConditionTensor.DataType is DML_TENSOR_DATA_TYPE_{t.type_name};",
                  "CreateOperator")


@fault("operator newer than the feature level", lambda case: case.op == "ELEMENT_WISE_IF")
def _(draw, case):
    case.level, case.create1 = DML_FEATURE_LEVEL_1_0, False
    return Expect("hresult", E_INVALIDARG, "introduced in DML_FEATURE_LEVEL_2_0", "CreateOperator")


@fault("DML_TENSOR_FLAG_OWNED_BY_DML")
def _(draw, case):
    index = draw(st.integers(0, len(case.tensors) - 1))
    case.tensors[index].flags = DML_TENSOR_FLAG_OWNED_BY_DML
    if index == len(case.tensors) - 1:
        return Expect("hresult", E_INVALIDARG, "only input tensors can be owned by DirectML", "CreateOperator")
    # Whichever comes first removes the device: binding the owned input at execution (BindInputs), or recording
    # the case's initializer, which binds no BUFFER_ARRAY (the data has nowhere to come from).
    return Expect("removed", E_INVALIDARG, "is DML_TENSOR_FLAG_OWNED_BY_DML: it")


@fault("tensor Type not BUFFER")
def _(draw, case):
    index = draw(st.integers(0, len(case.tensors) - 1))
    case.tensors[index].tensor_type = draw(st.sampled_from([0, 2, 7]))
    if case.tensors[index].tensor_type == 0:
        return Expect("hresult", E_INVALIDARG, "must be DML_TENSOR_TYPE_BUFFER", "CreateOperator")
    return Expect("hresult", E_INVALIDARG, "which is not a DML_TENSOR_TYPE value", "CreateOperator")


@fault("a bound that is not a C FLOAT", lambda case: case.op in ("ELEMENT_WISE_CLIP", "ELEMENT_WISE_THRESHOLD"))
def _(draw, case):
    value = draw(st.sampled_from([10 ** 400, "1.0", None, True, complex(1, 1)]))
    case.floats["Min"] = value
    text = "it is out of the range of a C FLOAT" if value == 10 ** 400 else "it must be a number (a C FLOAT)"
    return Expect("hresult", E_INVALIDARG, f"Min is {value!r}; {text}", "CreateOperator")


@fault("more than 2^32 - 1 elements")
def _(draw, case):
    support = _row(case).tensors["OutputTensor"]
    sizes = (1,) * (max(support.min_dims, 2) - 2) + (65536, 65537)
    for t in case.tensors:
        t.sizes, t.strides, t.total_override = sizes, None, 1 << 40
    return Expect("hresult", E_INVALIDARG, "a buffer tensor may have at most 4294967295", "CreateOperator")


@fault("sizes or strides that are not UINTs")
def _(draw, case):
    index = draw(st.integers(0, len(case.tensors) - 1))
    t = case.tensors[index]
    value = draw(st.sampled_from([-1, 1 << 32, 2.0]))
    axis = draw(st.integers(0, len(t.sizes) - 1))
    if draw(st.booleans()):
        sizes = list(t.sizes)
        sizes[axis] = value
        t.sizes, t.total_override = tuple(sizes), 1 << 16
        return Expect("hresult", E_INVALIDARG, f"{_field(case, index)}.Sizes[{axis}] is", "CreateOperator")
    strides = list(t.effective_strides)
    strides[axis] = value
    t.strides, t.total_override = tuple(strides), 1 << 16
    return Expect("hresult", E_INVALIDARG, f"{_field(case, index)}.Strides[{axis}] is", "CreateOperator")


@fault("undefined execution flags")
def _(draw, case):
    case.flags |= draw(st.sampled_from([0x8, 0x10, 0x80000000]))
    return Expect("hresult", E_INVALIDARG, "are not DML_EXECUTION_FLAGS flags", "CompileOperator")


# -- CreateBindingTable: E_INVALIDARG (HRESULT) --------------------------------------------------------------
@fault("binding table smaller than RequiredDescriptorCount")
def _(draw, case):
    case.fault_args["table_size_delta"] = -draw(st.integers(1, len(case.tensors) - 1))
    return Expect("hresult", E_INVALIDARG,
                  f"requires {len(case.tensors)} descriptors (GetBindingProperties().RequiredDescriptorCount)",
                  "CreateBindingTable")


@fault("binding table past the end of the heap")
def _(draw, case):
    n = len(case.tensors)
    case.first_slot = HEAP_SLOTS - n + draw(st.integers(1, n - 1))
    return Expect("hresult", E_INVALIDARG, f"SizeInDescriptors is {n} from descriptor {case.first_slot} of the "
                                           f"CPUDescriptorHandle's heap; the heap holds only {HEAP_SLOTS} descriptors",
                  "CreateBindingTable")


@fault("binding table handles outside every heap")
def _(draw, case):
    case.first_slot = HEAP_SLOTS + draw(st.integers(2, 50))
    return Expect("hresult", E_INVALIDARG, "is not inside a descriptor heap of this D3D12 device",
                  "CreateBindingTable")


# -- Bind*: device removal (void methods) --------------------------------------------------------------------
def _pick_binding(draw, case):
    return draw(st.integers(0, len(case.tensors) - 1))


@fault("misaligned binding offset")
def _(draw, case):
    index = _pick_binding(draw, case)
    b, t = case.bindings[index], case.tensors[index]
    align = max(16, t.alignment)
    step = draw(st.sampled_from([4, 8, 12] + ([16] if align > 16 else [])))
    b.offset += step
    case.buffers[b.buffer].width = max(case.buffers[b.buffer].width, b.offset + b.size)
    return Expect("removed", E_INVALIDARG, f"({_field(case, index)}).Offset is {b.offset}; it must be a multiple "
                                           f"of {align}")


@fault("binding range past the end of the buffer")
def _(draw, case):
    index = _pick_binding(draw, case)
    b = case.bindings[index]
    b.size = case.buffers[b.buffer].width - b.offset + 4 * draw(st.integers(1, 40))
    return Expect("removed", E_INVALIDARG, f"({_field(case, index)}) covers bytes {b.offset} to {b.offset + b.size}")


@fault("binding smaller than TotalTensorSizeInBytes")
def _(draw, case):
    index = _pick_binding(draw, case)
    b, t = case.bindings[index], case.tensors[index]
    b.size = draw(st.sampled_from([0, t.total - 4, t.total - 1]))
    return Expect("removed", E_INVALIDARG, f"({_field(case, index)}).SizeInBytes is {b.size}; "
                                           f"{_field(case, index)}.TotalTensorSizeInBytes is {t.total}")


@fault("buffer on an UPLOAD or READBACK heap")
def _(draw, case):
    b = case.bindings[_pick_binding(draw, case)]
    case.buffers[b.buffer].heap_type = draw(st.sampled_from([D3D12_HEAP_TYPE_UPLOAD, D3D12_HEAP_TYPE_READBACK]))
    case.barrier = False
    return Expect("removed", E_INVALIDARG, "DirectML requires all bound buffers to be D3D12_HEAP_TYPE_DEFAULT")


@fault("buffer without ALLOW_UNORDERED_ACCESS")
def _(draw, case):
    b = case.bindings[_pick_binding(draw, case)]
    case.buffers[b.buffer].uav = False
    return Expect("removed", E_INVALIDARG, "was created without D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS")


@fault("buffer of another D3D12 device")
def _(draw, case):
    b = case.bindings[_pick_binding(draw, case)]
    case.buffers[b.buffer].other_device = True
    case.barrier = False
    return Expect("removed", E_INVALIDARG, "belongs to another D3D12 device")


@fault("wrong number of input bindings")
def _(draw, case):
    delta = draw(st.sampled_from([1, 2] + ([-1] if case.n_inputs > 1 else []) + [-case.n_inputs]))
    case.faults.add("input_count")
    case.fault_args["delta"] = delta
    if delta == -case.n_inputs:   # no bindings at all = unbind, found by RecordDispatch (volatile: at execution)
        return Expect("removed", E_INVALIDARG, f"has no binding for {_field(case, 0)}; "
                                               + ("the dispatch is skipped" if _volatile(case) else "call BindInputs"))
    return Expect("removed", E_INVALIDARG, f"BindInputs got {case.n_inputs + delta} bindings")


@fault("two output bindings")
def _(draw, case):
    case.faults.add("output_count")
    return Expect("removed", E_INVALIDARG, "BindOutputs got 2 bindings")


@fault("DML_BINDING_TYPE_NONE for a required tensor")
def _(draw, case):
    index = _pick_binding(draw, case)
    case.faults.add("binding_type_none")
    case.fault_args["index"] = index
    return Expect("removed", E_INVALIDARG, f"({_field(case, index)}) is DML_BINDING_TYPE_NONE; "
                                           f"{_field(case, index)} is not optional.")


@fault("BUFFER_ARRAY binding for a compiled operator")
def _(draw, case):
    index = _pick_binding(draw, case)
    case.faults.add("buffer_array")
    case.fault_args["index"] = index
    return Expect("removed", E_INVALIDARG, "a compiled operator's tensor takes DML_BINDING_TYPE_BUFFER")


@fault("a DML_BUFFER_BINDING where a DML_BINDING_DESC belongs")
def _(draw, case):
    index = _pick_binding(draw, case)
    case.faults.add("raw_binding")
    case.fault_args["index"] = index
    return Expect("removed", E_INVALIDARG, "is a DML_BUFFER_BINDING; it must be a DML_BINDING_DESC")


@fault("temporary resource overlapping a tensor")
def _(draw, case):
    case.faults.add("temp_overlap")
    case.fault_args["index"] = _pick_binding(draw, case)
    case.scratch = False
    return Expect("removed", E_INVALIDARG, "DirectML requires the temporary binding not to intersect any input, "
                                           "output or persistent binding")


@fault("misaligned temporary resource")
def _(draw, case):
    case.faults.add("temp_misaligned")
    return Expect("removed", E_INVALIDARG, "BindTemporaryResource.Offset is 16; it must be a multiple of 256")


# -- RecordDispatch: device removal -------------------------------------------------------------------------
@fault("IF output overlapping an input (IF is not in-place)", lambda case: case.op == "ELEMENT_WISE_IF")
def _(draw, case):
    source = draw(st.integers(0, 2))
    b, out = case.bindings[source], case.bindings[-1]
    out_tensor = case.tensors[-1]
    out_tensor.alignment = 0
    out.buffer, out.offset = b.buffer, b.offset
    out.size = out_tensor.total
    case.buffers[b.buffer].width = max(case.buffers[b.buffer].width, out.offset + out.size)
    return Expect("removed", E_INVALIDARG, "DML_OPERATOR_ELEMENT_WISE_IF does not support in-place execution")


@fault("late-bound IF output overlapping an input (DESCRIPTORS_VOLATILE)", lambda case: case.op == "ELEMENT_WISE_IF")
def _(draw, case):
    expect = FAULTS["IF output overlapping an input (IF is not in-place)"][1](draw, case)
    case.flags |= DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE
    case.late_bind = True
    return dataclasses.replace(expect, contains="does not support in-place execution (bindings in force at "
                                                "execution, DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE)")


@fault("in-place output at another offset", lambda case: case.in_place and case.tensors[0].total > 16)
def _(draw, case):
    out = case.bindings[-1]
    case.tensors[-1].alignment = 0
    out.offset += 16
    case.buffers[out.buffer].width = max(case.buffers[out.buffer].width, out.offset + out.size)
    return Expect("removed", E_INVALIDARG, "in-place execution needs the same Offset and SizeInBytes")


@fault("in-place with different tensor descs", lambda case: case.in_place)
def _(draw, case):
    case.tensors[-1].extra_bytes += 4
    need = case.tensors[-1].total
    for b in case.bindings:
        b.size = max(b.size, need)
    case.buffers[case.bindings[0].buffer].width = max(case.buffers[case.bindings[0].buffer].width,
                                                      case.bindings[0].offset + case.bindings[0].size)
    return Expect("removed", E_INVALIDARG, "in-place execution needs identical tensor descs")


@fault("no descriptor heap set on the list")
def _(draw, case):
    case.faults.add("no_heap")   # a D3D12 recording error: Close fails (the debug layer: RecordDispatch raises)
    return Expect("hresult", E_INVALIDARG, "no D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV descriptor heap is set",
                  "RecordDispatch" if case.d3d12_debug else "ExecuteCommandLists", dml_reports=False)


@fault("another descriptor heap set on the list")
def _(draw, case):
    case.faults.add("other_heap")
    return Expect("hresult", E_INVALIDARG, "a descriptor table must lie in the heap that is set",
                  "RecordDispatch" if case.d3d12_debug else "ExecuteCommandLists", dml_reports=False)


@fault("recording into a closed list")
def _(draw, case):
    case.faults.add("closed_list")
    return Expect("removed", E_INVALIDARG, "commandList is closed; Reset it before recording.")


@fault("operator never initialized")
def _(draw, case):
    case.faults.add("no_init")
    case.debug = True   # only the DML debug layer checks initialization (docs/PERSISTENT_RESOURCES.md)
    return Expect("removed", E_INVALIDARG, "was never initialized; record an IDMLOperatorInitializer dispatch")


@fault("recording into a COPY list")
def _(draw, case):
    case.faults.add("copy_list")
    case.barrier = False
    return Expect("removed", E_INVALIDARG, "commandList is of type D3D12_COMMAND_LIST_TYPE_COPY")


@fault("binding table of another dispatchable")
def _(draw, case):
    case.faults.add("table_for_initializer")
    return Expect("removed", E_INVALIDARG, "initializer")


@fault("missing output binding")
def _(draw, case):
    case.faults.add("no_outputs")
    return Expect("removed", E_INVALIDARG, "has no binding for OutputTensor; " + (
        "the dispatch is skipped" if _volatile(case) else "call BindOutputs before RecordDispatch."))


@fault("evicted compiled operator")
def _(draw, case):
    case.faults.add("evict")
    return Expect("removed", E_INVALIDARG, "is evicted; call MakeResident before recording it.")


# -- execution: device removal -------------------------------------------------------------------------------
@fault("initializer recorded but never executed")
def _(draw, case):
    case.faults.add("side_init")
    case.debug = True   # only the DML debug layer checks initialization (docs/PERSISTENT_RESOURCES.md)
    return Expect("removed", E_INVALIDARG, "IDMLOperatorInitializer dispatch did not execute before it")


@fault("input buffer in the wrong resource state")
def _(draw, case):
    case.faults.add("wrong_state")
    case.barrier = False
    return Expect("removed", DXGI_ERROR_INVALID_CALL, "in D3D12_RESOURCE_STATE_UNORDERED_ACCESS, but it is in "
                                                      "D3D12_RESOURCE_STATE_COPY_DEST", d3d12_removed=True)


FAULT_NAMES = sorted(FAULTS)
# What a valid case needs for a fault to apply (operators, in-place), so each fault is reached directly.
FAULT_NEEDS = {
    "IF output overlapping an input (IF is not in-place)": (["ELEMENT_WISE_IF"], None),
    "late-bound IF output overlapping an input (DESCRIPTORS_VOLATILE)": (["ELEMENT_WISE_IF"], None),
    "IF condition that is not UINT8": (["ELEMENT_WISE_IF"], None),
    "operator newer than the feature level": (["ELEMENT_WISE_IF"], None),
    "in-place output at another offset": (["ELEMENT_WISE_CLIP", "ELEMENT_WISE_THRESHOLD", "ELEMENT_WISE_IDENTITY"], True),
    "in-place with different tensor descs": (["ELEMENT_WISE_CLIP", "ELEMENT_WISE_THRESHOLD", "ELEMENT_WISE_IDENTITY"],
                                             True),
    "a bound that is not a C FLOAT": (["ELEMENT_WISE_CLIP", "ELEMENT_WISE_THRESHOLD"], None),
    "ScaleBias on an integer tensor": (["ELEMENT_WISE_CLIP", "ELEMENT_WISE_THRESHOLD", "ELEMENT_WISE_IDENTITY"], None),
    "64-bit type on an adapter without 64-bit support": (["ELEMENT_WISE_CLIP", "ELEMENT_WISE_IDENTITY",
                                                          "ELEMENT_WISE_IF"], None),
}


@st.composite
def invalid_cases(draw, names=None):
    case = draw(valid_cases()).copy()
    case.late_bind = False   # one misuse at a time (the late-binding fault sets it again)
    candidates = [name for name in (names or FAULT_NAMES) if FAULTS[name][0](case)]
    name = draw(st.sampled_from(candidates))
    expect = FAULTS[name][1](draw, case)
    if expect is None:
        name = "mismatched sizes"
        expect = FAULTS[name][1](draw, case)
    return name, case, expect


def check_invalid(name, case, expect):
    if expect.d3d12_removed and case.d3d12_debug:
        # the D3D12 debug layer reports the execution error at ExecuteCommandLists (and still removes the device)
        expect = dataclasses.replace(expect, kind="hresult", stage="ExecuteCommandLists")
    outcome = run_case(case)
    detail = (name, outcome.kind, outcome.stage, hex(outcome.hresult), outcome.message)
    assert outcome.kind == expect.kind, detail
    assert outcome.hresult == expect.hresult, detail
    assert expect.contains in outcome.message, (expect.contains, detail)
    rig = outcome.rig
    if expect.d3d12_removed:
        assert rig.device.GetDeviceRemovedReason() == expect.hresult
        assert_removed_everywhere(rig, outcome.handles, expect.hresult, True)
    elif expect.kind == "hresult":
        assert outcome.stage == expect.stage, detail
        if case.debug and rig is not None and expect.dml_reports:   # DML_CREATE_DEVICE_FLAG_DEBUG printed it
            assert outcome.message in outcome.debug_output, outcome.debug_output
        assert rig.dml.GetDeviceRemovedReason() == S_OK
        small_clip_works(rig)   # after E_INVALIDARG (or E_NOTIMPL) the same devices keep working
    else:
        if case.debug:   # DML_CREATE_DEVICE_FLAG_DEBUG printed the removal
            assert any(expect.contains in line and "The DirectML device is now removed" in line
                       for line in outcome.debug_output.splitlines()), outcome.debug_output
        assert_removed_everywhere(rig, outcome.handles, expect.hresult, expect.d3d12_removed)


@settings(max_examples=scaled(900, 42), **SETTINGS)    # long: ~37,800
@given(drawn=invalid_cases())
def test_invalid_cases_fail_cleanly_with_a_sentence(drawn):
    name, case, expect = drawn
    event(f"invalid: {name}")
    check_invalid(name, case, expect)


@pytest.mark.parametrize("name", FAULT_NAMES)
@settings(max_examples=scaled(5, 10), **SETTINGS)
@given(data=st.data())
def test_every_fault_is_reached(name, data):
    """Each fault at least a few times, whatever the random mix above drew."""
    ops, in_place = FAULT_NEEDS.get(name, (None, None))
    case = data.draw(valid_cases(ops, in_place)).copy()
    case.late_bind = False
    assume(FAULTS[name][0](case))
    expect = FAULTS[name][1](data.draw, case)
    assume(expect is not None)
    check_invalid(name, case, expect)
