"""The compute-shader path: root signatures, compute pipeline states, the SetComputeRoot* methods and
Dispatch (emulator/d3d12/root_signature.py, pipeline_state.py, dispatch.py), the shader binary
(isa/shader_binary.py), the kernel ABI, the example kernels against NumPy, and `dmlemu step --kernel`."""
import importlib.util
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dmlemu.d3d12 import *  # noqa: F401,F403
from dmlemu.d3d12 import inspect
from dmlemu.errors import DXGI_ERROR_INVALID_CALL, E_INVALIDARG, E_NOTIMPL, HResultError
from dmlemu.isa.assembler import AssemblyError
from dmlemu.isa.shader_binary import ShaderBinaryError, assemble_shader, parse_shader_binary

from cli_runner import cli
from operator_cases import ACCEPTED, REFUSED, outcome

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
KERNELS = os.path.join(ROOT, "examples", "kernels")
_spec = importlib.util.spec_from_file_location("saxpy_dispatch", os.path.join(ROOT, "examples", "saxpy_dispatch.py"))
example = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(example)
SLOW = settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def constants_param(register=0, values=2, space=0):
    return D3D12_ROOT_PARAMETER(ParameterType=D3D12_ROOT_PARAMETER_TYPE_32BIT_CONSTANTS,
                                Constants=D3D12_ROOT_CONSTANTS(register, space, values))


def view_param(kind, register=0, space=0):
    return D3D12_ROOT_PARAMETER(ParameterType=kind, Descriptor=D3D12_ROOT_DESCRIPTOR(register, space))


def table_param(*ranges):
    return D3D12_ROOT_PARAMETER(ParameterType=D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE,
                                DescriptorTable=D3D12_ROOT_DESCRIPTOR_TABLE(pDescriptorRanges=list(ranges)))


def uav_range(count=1, base=0, offset=D3D12_DESCRIPTOR_RANGE_OFFSET_APPEND, kind=D3D12_DESCRIPTOR_RANGE_TYPE_UAV):
    return D3D12_DESCRIPTOR_RANGE(kind, count, base, 0, offset)


def serialize(*params, **fields):
    return D3D12SerializeRootSignature(D3D12_ROOT_SIGNATURE_DESC(pParameters=list(params), **fields),
                                       D3D_ROOT_SIGNATURE_VERSION_1)


def error_of(call, *args):
    with pytest.raises(HResultError) as info:
        call(*args)
    return info.value


def bytecode(name="saxpy"):
    return example.shader_bytecode(name)


def source_bytecode(text, name="k"):
    return assemble_shader(text, filename=f"{name}.s").to_bytes()


class Rig:
    """A device, a COMPUTE list and the example's root signature and SAXPY pipeline."""

    def __init__(self, debug=True):
        self.device = D3D12CreateDevice(None, D3D_FEATURE_LEVEL_11_0, debug_layer=debug)
        self.allocator = self.device.CreateCommandAllocator(D3D12_COMMAND_LIST_TYPE_COMPUTE)
        self.list = self.device.CreateCommandList(0, D3D12_COMMAND_LIST_TYPE_COMPUTE, self.allocator, None)
        blob = D3D12SerializeRootSignature(example.root_signature_desc(), D3D_ROOT_SIGNATURE_VERSION_1)
        self.rs = self.device.CreateRootSignature(0, blob.GetBufferPointer(), blob.GetBufferSize())
        self.pso = self.pipeline(bytecode())

    def pipeline(self, code, rs=None):
        return self.device.CreateComputePipelineState(D3D12_COMPUTE_PIPELINE_STATE_DESC(
            pRootSignature=rs or self.rs, CS=D3D12_SHADER_BYTECODE(code, len(code))))

    def buffer(self, size=256, flags=D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS, state=D3D12_RESOURCE_STATE_COMMON):
        return self.device.CreateCommittedResource(CD3DX12_HEAP_PROPERTIES(D3D12_HEAP_TYPE_DEFAULT),
                                                   D3D12_HEAP_FLAG_NONE, CD3DX12_RESOURCE_DESC.Buffer(size, flags),
                                                   state, None)

    def heap(self, slots=1):
        return self.device.CreateDescriptorHeap(D3D12_DESCRIPTOR_HEAP_DESC(
            Type=D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, NumDescriptors=slots,
            Flags=D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE))

    def bind_all(self, x=None, heap=None):
        lst = self.list
        lst.SetPipelineState(self.pso)
        lst.SetComputeRootSignature(self.rs)
        heap = heap or self.heap()
        lst.SetDescriptorHeaps([heap])
        lst.SetComputeRoot32BitConstants(0, 2, [4, 0], 0)
        self.x = x or self.buffer()      # kept alive: a released buffer's address names nothing
        lst.SetComputeRootShaderResourceView(1, self.x.GetGPUVirtualAddress())
        lst.SetComputeRootDescriptorTable(2, heap.GetGPUDescriptorHandleForHeapStart())
        return heap


# ---- root signatures ----------------------------------------------------------------------------------
def test_root_signature_serializes_and_creates_with_the_same_layout():
    device = D3D12CreateDevice(None, D3D_FEATURE_LEVEL_11_0)
    desc = example.root_signature_desc()
    blob = D3D12SerializeRootSignature(desc, D3D_ROOT_SIGNATURE_VERSION_1)
    assert isinstance(blob, ID3DBlob) and blob.GetBufferSize() == len(blob.GetBufferPointer())
    rs = device.CreateRootSignature(0, blob, blob.GetBufferSize())
    assert isinstance(rs, ID3D12RootSignature)
    parameters = inspect(rs).parameters
    assert [p.type for p in parameters] == [1, 3, 0]
    assert parameters[0].values == 2 and parameters[2].ranges[0].offset == 0
    again = device.CreateRootSignature(0, blob.GetBufferPointer(), blob.GetBufferSize())
    assert again is not rs and inspect(again).same_layout(rs)
    other = serialize(constants_param(values=3))
    assert not inspect(device.CreateRootSignature(0, other.GetBufferPointer(), other.GetBufferSize())).same_layout(rs)


@pytest.mark.parametrize("params, fields, code, sentence", [
    ((table_param(),), {}, E_INVALIDARG,
     "D3D12SerializeRootSignature: pRootSignature.pParameters[0] is a descriptor table with no ranges; a table has "
     "at least one."),
    ((table_param(uav_range(count=0)),), {}, E_INVALIDARG,
     "D3D12SerializeRootSignature: pRootSignature.pParameters[0].DescriptorTable.pDescriptorRanges[0].NumDescriptors "
     "is 0; a range holds at least 1 descriptor (or 0xFFFFFFFF, unbounded)."),
    ((constants_param(values=0),), {}, E_INVALIDARG,
     "D3D12SerializeRootSignature: pRootSignature.pParameters[0].Constants.Num32BitValues is 0; root constants hold "
     "at least one value."),
    ((view_param(D3D12_ROOT_PARAMETER_TYPE_UAV, 1), table_param(uav_range(count=2))), {}, E_INVALIDARG,
     "D3D12SerializeRootSignature: pRootSignature.pParameters[1] range 0 binds u0 to u1 (space 0), which overlaps u1 "
     "of pRootSignature.pParameters[0]; a register is bound once for the shaders that see it."),
    ((constants_param(values=63), view_param(D3D12_ROOT_PARAMETER_TYPE_SRV)), {}, E_INVALIDARG,
     "D3D12SerializeRootSignature: pRootSignature costs 65 DWORDs (a table 1, a root constant 1, a root descriptor "
     "2); a root signature has at most 64."),
    ((D3D12_ROOT_PARAMETER(ParameterType=7),), {}, E_INVALIDARG,
     "D3D12SerializeRootSignature: pRootSignature.pParameters[0].ParameterType is 7; it must be a "
     "D3D12_ROOT_PARAMETER_TYPE (DESCRIPTOR_TABLE, 32BIT_CONSTANTS, CBV, SRV or UAV)."),
    ((table_param(uav_range(kind=D3D12_DESCRIPTOR_RANGE_TYPE_SAMPLER)),), {}, E_NOTIMPL,
     "D3D12SerializeRootSignature: pRootSignature.pParameters[0].DescriptorTable.pDescriptorRanges[0].RangeType is "
     "D3D12_DESCRIPTOR_RANGE_TYPE_SAMPLER; the emulator has no samplers."),
    ((), {"pStaticSamplers": [object()]}, E_NOTIMPL,
     "D3D12SerializeRootSignature: pRootSignature has 1 static samplers; the emulator has no samplers."),
    ((constants_param(),), {"NumParameters": 2}, E_INVALIDARG,
     "D3D12SerializeRootSignature: pRootSignature.NumParameters is 2, but pRootSignature.pParameters has 1 entries; "
     "they must agree."),
    ((table_param(uav_range(count=0xFFFFFFFF), uav_range(base=9)),), {}, E_INVALIDARG,
     "D3D12SerializeRootSignature: pRootSignature.pParameters[0].DescriptorTable.pDescriptorRanges[1] is appended "
     "after an unbounded range; a range after an unbounded one needs an explicit OffsetInDescriptorsFromTableStart."),
])
def test_serialize_root_signature_rules(params, fields, code, sentence):
    error = error_of(serialize, *params, **fields) if not fields else error_of(
        lambda: serialize(*params, **fields))
    assert error.hresult == code and error.message == sentence


def test_serialize_takes_version_1_0_only():
    error = error_of(D3D12SerializeRootSignature, D3D12_ROOT_SIGNATURE_DESC(), D3D_ROOT_SIGNATURE_VERSION_1_1)
    assert error.message == ("D3D12SerializeRootSignature: Version is D3D_ROOT_SIGNATURE_VERSION_1_1; "
                             "D3D12SerializeRootSignature serializes D3D_ROOT_SIGNATURE_VERSION_1 only "
                             "(D3D12SerializeVersionedRootSignature, for 1.1, is not emulated).")


def test_visibility_other_than_all_does_not_overlap_and_is_not_seen_by_compute():
    blob = serialize(view_param(D3D12_ROOT_PARAMETER_TYPE_UAV),
                     D3D12_ROOT_PARAMETER(ParameterType=D3D12_ROOT_PARAMETER_TYPE_UAV, ShaderVisibility=
                                          D3D12_SHADER_VISIBILITY_PIXEL, Descriptor=D3D12_ROOT_DESCRIPTOR(1, 0)))
    rig = Rig()
    rs = rig.device.CreateRootSignature(0, blob.GetBufferPointer(), blob.GetBufferSize())
    code = source_bytecode(".numthreads 1\n.uav u1\n s_endpgm\n")
    error = error_of(rig.pipeline, code, rs)
    assert error.message == ("CreateComputePipelineState: pDesc.CS does not match pDesc.pRootSignature: the shader "
                             f"reads u1 (a UAV), which no root parameter of {inspect(rs).label} with "
                             "D3D12_SHADER_VISIBILITY_ALL provides.")


def test_create_root_signature_reads_blobs_as_untrusted_bytes():
    device = D3D12CreateDevice(None, D3D_FEATURE_LEVEL_11_0)
    good = serialize(table_param(uav_range())).GetBufferPointer()
    assert error_of(device.CreateRootSignature, 0, good[:-4], len(good) - 4).message == (
        "CreateRootSignature: pBlobWithRootSignature ends (after 48 bytes) where pParameters[0] range 0 should be; "
        "it is truncated.")
    assert error_of(device.CreateRootSignature, 0, b"\0" * 20, 20).message == (
        "CreateRootSignature: pBlobWithRootSignature starts with 0x00000000; a root signature blob from "
        "D3D12SerializeRootSignature starts with 0x53524D44.")
    assert error_of(device.CreateRootSignature, 0, good, 3).message == (
        "CreateRootSignature: blobLengthInBytes is 3, but pBlobWithRootSignature has 52 bytes; they must agree.")


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200))
def test_random_bytes_as_a_root_signature_blob_are_refused_with_a_sentence(data):
    device = _DEVICE
    for blob in (data, b"DMRS\x01\0\0\0" + data):
        try:
            device.CreateRootSignature(0, blob, len(blob))
            outcome(ACCEPTED)
        except HResultError as error:
            assert error.hresult in (E_INVALIDARG, E_NOTIMPL) and error.message.startswith("CreateRootSignature: ")
            outcome(REFUSED)


_DEVICE = D3D12CreateDevice(None, D3D_FEATURE_LEVEL_11_0)
_range = st.builds(D3D12_DESCRIPTOR_RANGE, st.sampled_from([0, 1, 2, 3, 9]), st.sampled_from([0, 1, 2, 0xFFFFFFFF]),
                   st.integers(0, 4), st.integers(0, 1), st.sampled_from([0, 1, 5, 0xFFFFFFFF]))
_param = st.one_of(
    st.builds(lambda r, v: D3D12_ROOT_PARAMETER(ParameterType=0, ShaderVisibility=v,
                                                DescriptorTable=D3D12_ROOT_DESCRIPTOR_TABLE(pDescriptorRanges=r)),
              st.lists(_range, max_size=3), st.sampled_from([0, 0, 5, 8])),
    st.builds(lambda reg, n, v: D3D12_ROOT_PARAMETER(ParameterType=1, ShaderVisibility=v,
                                                     Constants=D3D12_ROOT_CONSTANTS(reg, 0, n)),
              st.integers(0, 4), st.integers(0, 70), st.sampled_from([0, 0, 5])),
    st.builds(lambda t, reg: D3D12_ROOT_PARAMETER(ParameterType=t, Descriptor=D3D12_ROOT_DESCRIPTOR(reg, 0)),
              st.sampled_from([2, 3, 4, 5]), st.integers(0, 4)))


@settings(max_examples=200, deadline=None)
@given(st.lists(_param, max_size=6))
def test_random_root_signature_descs_serialize_and_round_trip_or_are_refused(params):
    try:
        blob = serialize(*params)
    except HResultError as error:
        assert error.hresult in (E_INVALIDARG, E_NOTIMPL)
        assert error.message.startswith("D3D12SerializeRootSignature: pRootSignature")
        outcome(REFUSED)
        return
    outcome(ACCEPTED)
    rs = _DEVICE.CreateRootSignature(0, blob.GetBufferPointer(), blob.GetBufferSize())
    assert len(inspect(rs).parameters) == len(params) and inspect(rs).blob == blob.GetBufferPointer()


# ---- the shader binary and CreateComputePipelineState ---------------------------------------------------
def test_shader_binary_round_trips_and_declares_what_the_source_says():
    path = os.path.join(KERNELS, "saxpy.s")
    with open(path, encoding="utf-8") as f:
        binary = assemble_shader(f.read(), filename=path)
    assert binary.name == "saxpy" and binary.numthreads == (64, 1, 1)
    assert [b.name for b in binary.bindings] == ["b0", "t0", "u0"] and binary.bindings[0].count == 2
    assert parse_shader_binary(binary.to_bytes()) == binary


@pytest.mark.parametrize("text, message", [
    (".numthreads 2000\n s_endpgm\n", "k.s:1: numthreads X is 2000; it must be 1 to 1024"),
    (".numthreads 64, 64\n s_endpgm\n", "k.s:1: .numthreads 64, 64, 1 is 4096 threads; a thread group has at most 1024"),
    (".numthreads 1\n.uav t0\n s_endpgm\n", "k.s:2: .uav binds a u register (u0, u1, ...), not 't0'"),
    (".numthreads 1\n.uav u0\n.uav u0\n s_endpgm\n", "k.s:3: u0 is already bound at line 2"),
    (".if 1\n.numthreads 1\n.endif\n s_endpgm\n",
     "k.s:2: .numthreads may not be inside an .if block; shader directives are read before the preprocessor"),
    (" s_endpgm\n", "k.s: a compute shader needs a .numthreads directive (threads per group)"),
])
def test_shader_source_directive_errors(text, message):
    with pytest.raises(AssemblyError) as info:
        assemble_shader(text, filename="k.s")
    assert str(info.value) == message


def _with_word(code, dword_index, value):
    data = bytearray(code)
    data[4 * dword_index:4 * dword_index + 4] = value.to_bytes(4, "little")
    return bytes(data)


@pytest.mark.parametrize("mutate, sentence", [
    (lambda c: c[:40], "the bytecode is 40 bytes; a compute shader binary has a 68-byte header at least"),
    (lambda c: c[:-4], "the bytecode is 236 bytes, but its header (3 bindings, 30 program dwords) makes it 240 bytes "
                       "(truncated)"),
    (lambda c: _with_word(c, 0, 0x43425844), "the bytecode starts with 0x43425844; a dmlemu compute shader starts "
                                            "with the magic 0x53434D44 ('DMCS', what `dmlemu asm` writes for a "
                                            "source with .numthreads)"),
    (lambda c: _with_word(c, 2, 0), "numthreads X is 0; it must be 1 to 1024"),
    (lambda c: _with_word(c, 5, 2), "the program uses 8 VGPRs and 25 SGPRs, but its header declares 2 and 25"),
    (lambda c: _with_word(c, 18, 9), "binding 0 has kind 9; it must be 0 (SRV), 1 (UAV), 2 (CBV) or 3 (root "
                                     "constants)"),
])
def test_pipeline_creation_refuses_bad_bytecode(mutate, sentence):
    rig = Rig()
    error = error_of(rig.pipeline, mutate(bytecode()))
    assert error.hresult == E_INVALIDARG
    assert error.message == f"CreateComputePipelineState: pDesc.CS is not a valid compute shader: {sentence}."


def test_an_unknown_opcode_is_refused_at_pipeline_creation():
    rig = Rig()
    code = _with_word(bytecode(), 18 + 12, 0x3FF)   # the first program word: opcode 0x3ff
    message = error_of(rig.pipeline, code).message
    assert message.startswith("CreateComputePipelineState: pDesc.CS is not a valid compute shader: the program does "
                              "not decode: saxpy: ")
    assert "opcode 0x3ff" in message


@pytest.mark.parametrize("text, sentence", [
    (".numthreads 1\n.uav u3\n s_endpgm\n", "the shader reads u3 (a UAV), which no root parameter of {rs} with "
                                           "D3D12_SHADER_VISIBILITY_ALL provides"),
    (".numthreads 1\n.root_constants b0, 3\n s_endpgm\n", "the shader reads 3 root constants from b0, but root "
                                                          "parameter 0 (D3D12_ROOT_PARAMETER_TYPE_32BIT_CONSTANTS) "
                                                          "of {rs} has Num32BitValues 2"),
    (".numthreads 1\n.cbv b0\n s_endpgm\n", "the shader reads b0 as a constant buffer through a descriptor, but root "
                                           "parameter 0 (D3D12_ROOT_PARAMETER_TYPE_32BIT_CONSTANTS) of {rs} gives "
                                           "it as root constants"),
])
def test_pipeline_creation_checks_the_shader_against_the_root_signature(text, sentence):
    rig = Rig()
    error = error_of(rig.pipeline, source_bytecode(text))
    assert error.message == ("CreateComputePipelineState: pDesc.CS does not match pDesc.pRootSignature: "
                             + sentence.format(rs=inspect(rig.rs).label) + ".")


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=300), st.integers(0, 58), st.integers(0, 0xFFFFFFFF))
def test_random_and_mutated_bytecode_is_refused_with_a_sentence_or_accepted(data, index, word):
    rig = _PSO_RIG
    for code in (data, _with_word(bytecode(), index, word)):
        try:
            rig.pipeline(code)
            outcome(ACCEPTED)
        except HResultError as error:
            assert error.hresult == E_INVALIDARG
            assert error.message.startswith("CreateComputePipelineState: pDesc.CS ")
            outcome(REFUSED)


_PSO_RIG = Rig()


# ---- recording: the root arguments and Dispatch ------------------------------------------------------
@pytest.mark.parametrize("calls, sentence", [
    (lambda r: r.list.Dispatch(1, 1, 1),
     "Dispatch: no pipeline state is set; call SetPipelineState with a compute pipeline state first."),
    (lambda r: (r.list.SetPipelineState(r.pso), r.list.Dispatch(1, 1, 1)),
     "Dispatch: no compute root signature is set; call SetComputeRootSignature first."),
    (lambda r: (r.list.SetPipelineState(r.pso), r.list.SetComputeRootSignature(r.rs), r.list.Dispatch(1, 1, 1)),
     "Dispatch: root parameter 0 (D3D12_ROOT_PARAMETER_TYPE_32BIT_CONSTANTS), which the shader reads for b0, is "
     "not set."),
    (lambda r: (r.list.SetPipelineState(r.pso), r.list.SetComputeRootSignature(r.rs),
                r.list.SetComputeRoot32BitConstant(0, 5, 0), r.list.Dispatch(1, 1, 1)),
     "Dispatch: root constant 1 of root parameter 0 (D3D12_ROOT_PARAMETER_TYPE_32BIT_CONSTANTS) is not set; the "
     "shader reads 2."),
    (lambda r: (r.bind_all(), r.list.Dispatch(65536, 1, 1)),
     "Dispatch: ThreadGroupCountX is 65536; D3D12_CS_DISPATCH_MAX_THREAD_GROUPS_PER_DIMENSION allows at most 65535."),
    (lambda r: (r.bind_all(), r.list.SetDescriptorHeaps([r.heap()]), r.list.Dispatch(1, 1, 1)),
     "Dispatch: the descriptor table of root parameter 2 (D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE) points into "
     "descriptor heap #1, but the CBV_SRV_UAV heap set on the list is descriptor heap #2."),
    (lambda r: (r.list.SetComputeRoot32BitConstant(0, 1, 0)),
     "SetComputeRoot32BitConstant: no compute root signature is set; call SetComputeRootSignature first."),
    (lambda r: (r.list.SetComputeRootSignature(r.rs), r.list.SetComputeRoot32BitConstant(3, 1, 0)),
     "SetComputeRoot32BitConstant: RootParameterIndex is 3; root signature #1 has 3 parameters (0 to 2)."),
    (lambda r: (r.list.SetComputeRootSignature(r.rs), r.list.SetComputeRootUnorderedAccessView(0, 0)),
     "SetComputeRootUnorderedAccessView: RootParameterIndex 0 is root parameter 0 "
     "(D3D12_ROOT_PARAMETER_TYPE_32BIT_CONSTANTS) of root signature #1; this method sets a "
     "D3D12_ROOT_PARAMETER_TYPE_UAV parameter."),
    (lambda r: (r.list.SetComputeRootSignature(r.rs), r.list.SetComputeRoot32BitConstants(0, 2, [1, 2], 1)),
     "SetComputeRoot32BitConstants: DestOffsetIn32BitValues 1 + 2 values passes the end of root parameter 0, which "
     "holds 2 constants."),
    (lambda r: (r.list.SetComputeRootSignature(r.rs), r.list.SetComputeRoot32BitConstants(0, 1, [2.5], 0)),
     "SetComputeRoot32BitConstants: pSrcData[0] is 2.5; a root constant is a UINT (0 to 4294967295) or an "
     "np.float32 (for a float's bits give np.float32(x))."),
    (lambda r: (r.list.SetComputeRootSignature(r.rs), r.list.SetComputeRootShaderResourceView(1, 12345)),
     "SetComputeRootShaderResourceView: BufferLocation 0x3039 is not the GPU virtual address of a buffer of this "
     "device."),
    (lambda r: (r.list.SetComputeRootSignature(r.rs), r.list.SetComputeRootDescriptorTable(2, 64)),
     "SetComputeRootDescriptorTable: BaseDescriptor 0x40 is not the GPU handle of a slot of a shader-visible "
     "CBV_SRV_UAV descriptor heap of this device."),
])
def test_recording_rules(calls, sentence):
    rig = Rig()
    error = error_of(calls, rig)
    assert error.hresult == E_INVALIDARG and error.message == sentence


def test_a_root_signature_with_another_layout_fails_dispatch_and_drops_the_arguments():
    rig = Rig()
    rig.bind_all()
    blob = serialize(constants_param(values=4))
    other = rig.device.CreateRootSignature(0, blob.GetBufferPointer(), blob.GetBufferSize())
    rig.list.SetComputeRootSignature(other)
    assert inspect(rig.list).compute_root_args == {}
    assert error_of(rig.list.Dispatch, 1, 1, 1).message == (
        f"Dispatch: {inspect(rig.pso).label} was created with {inspect(rig.rs).label}, whose layout differs from "
        f"{inspect(other).label} set by SetComputeRootSignature.")


def test_without_the_debug_layer_a_bad_dispatch_makes_close_fail():
    rig = Rig(debug=False)
    rig.list.Dispatch(1, 1, 1)
    assert inspect(rig.list).commands == ()
    assert error_of(rig.list.Close).message == (
        f"Close: {inspect(rig.list).label} recorded an invalid call, so it cannot be executed: Dispatch: no pipeline "
        "state is set; call SetPipelineState with a compute pipeline state first.")


@pytest.mark.parametrize("groups", [(0, 1, 1), (4, 0, 1), (1, 1, 0)])
def test_a_dispatch_of_zero_groups_records_nothing(groups):
    rig = Rig()
    rig.bind_all()
    rig.list.Dispatch(*groups)
    assert inspect(rig.list).commands == ()
    rig.list.Dispatch(1, 1, 1)
    assert len(inspect(rig.list).commands) == 1


def test_reset_with_an_initial_pipeline_state_and_clear_state():
    rig = Rig()
    rig.list.Close()
    rig.allocator.Reset()
    rig.list.Reset(rig.allocator, rig.pso)
    assert inspect(rig.list).pipeline_state is rig.pso
    rig.list.ClearState(None)
    assert inspect(rig.list).pipeline_state is None and inspect(rig.list).compute_root_signature is None
    assert error_of(rig.list.SetPipelineState, None).message == (
        "SetPipelineState: pPipelineState is None; it must be a pipeline state of this device.")


def test_a_shader_reading_a_buffer_in_the_wrong_state_removes_the_device_at_execution():
    rig = Rig(debug=False)
    queue = rig.device.CreateCommandQueue(D3D12_COMMAND_QUEUE_DESC(Type=D3D12_COMMAND_LIST_TYPE_COMPUTE))
    x = rig.buffer()
    rig.list.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.Transition(x, D3D12_RESOURCE_STATE_COMMON,
                                                                  D3D12_RESOURCE_STATE_COPY_DEST)])
    heap = rig.bind_all(x=x)
    rig.list.Dispatch(1, 1, 1)
    rig.list.Close()
    queue.ExecuteCommandLists([rig.list])
    code, sentence = inspect(rig.device).removed_reason
    assert code == DXGI_ERROR_INVALID_CALL
    assert sentence == (f"ExecuteCommandLists: Dispatch: Resource state (0x400: D3D12_RESOURCE_STATE_COPY_DEST) of "
                        f"resource ({inspect(x).label}) (subresource: 0) is invalid for use as a non-pixel shader "
                        f"resource by the SRV t0 of the Dispatch of {inspect(rig.pso).label} (saxpy). Expected State "
                        "Bits (all): 0x40: D3D12_RESOURCE_STATE_NON_PIXEL_SHADER_RESOURCE, Actual State: 0x400: "
                        "D3D12_RESOURCE_STATE_COPY_DEST, Missing State: 0x40: "
                        "D3D12_RESOURCE_STATE_NON_PIXEL_SHADER_RESOURCE; record a transition barrier first. "
                        f"(in {inspect(rig.list).label} on {inspect(queue).label})")
    assert heap is not None


# ---- execution: bit-exact kernels, the ABI, timing and traces ------------------------------------------------
@SLOW
@given(st.integers(1, 700), st.floats(-8, 8, width=32), st.integers(0, 2**32 - 1))
def test_saxpy_is_bit_exact_against_numpy(n, a, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    got = example.saxpy(a, x, y)
    assert np.array_equal(got.view(np.uint32), example.numpy_saxpy(a, x, y).view(np.uint32))


@SLOW
@given(st.lists(st.integers(0, 2**32 - 1), min_size=1, max_size=300), st.integers(0, 300))
def test_the_divergent_collatz_kernel_is_bit_exact_against_numpy(values, limit):
    x = np.array(values, dtype=np.uint32)
    assert np.array_equal(example.collatz_steps(x, limit), example.numpy_collatz_steps(x, limit))


GRID_KERNEL = """
.numthreads 4, 2, 1
.uav u0
    s_load_dwordx4 s[8:11], s[0:1], ${SLOT_U0}
    s_mul_i32 s24, s2, s3                ; groups X * Y
    s_mul_i32 s24, s24, s23              ; Z * X * Y
    s_mul_i32 s25, s22, s2               ; Y * X
    s_add_u32 s24, s24, s25
    s_add_u32 s24, s24, s21              ; the linear group id
    s_lshl_b32 s24, s24, 3               ; * 8 threads
    v_add_u32 v9, s24, v0                ; the output element
    v_lshl_b32 v9, v9, 2
    v_lshl_b32 v10, v2, 4                ; pack thread x | thread y << 4 | group x << 8 | y << 12 | z << 16
    v_or_b32 v10, v10, v1
    s_lshl_b32 s26, s22, 12
    s_lshl_b32 s27, s23, 16
    s_lshl_b32 s28, s21, 8
    s_or_b32 s26, s26, s27
    s_or_b32 s26, s26, s28
    v_or_b32 v10, v10, s26
    s_waitcnt 0
    buffer_store_dword v10, v9, s[8:11], 0
    s_endpgm
"""


def test_the_abi_gives_3d_group_and_thread_ids():
    rig = Rig()
    blob = serialize(view_param(D3D12_ROOT_PARAMETER_TYPE_UAV))
    rs = rig.device.CreateRootSignature(0, blob.GetBufferPointer(), blob.GetBufferSize())
    pso = rig.pipeline(source_bytecode(GRID_KERNEL, "grid"), rs)
    groups = (3, 2, 2)
    out = rig.buffer(8 * 12 * 4, state=D3D12_RESOURCE_STATE_UNORDERED_ACCESS)
    queue = rig.device.CreateCommandQueue(D3D12_COMMAND_QUEUE_DESC(Type=D3D12_COMMAND_LIST_TYPE_COMPUTE))
    rig.list.SetPipelineState(pso)
    rig.list.SetComputeRootSignature(rs)
    rig.list.SetComputeRootUnorderedAccessView(0, out.GetGPUVirtualAddress())
    rig.list.Dispatch(*groups)
    rig.list.Close()
    queue.ExecuteCommandLists([rig.list])
    got = inspect(out).data[:8 * 12 * 4].view(np.uint32)
    want = [tx | ty << 4 | gx << 8 | gy << 12 | gz << 16
            for gz in range(2) for gy in range(2) for gx in range(3) for ty in range(2) for tx in range(4)]
    assert got.tolist() == want


def test_dispatch_is_timed_and_traced_and_functional_results_do_not_depend_on_timing():
    from dmlemu.traces import capture
    rng = np.random.default_rng(1)
    x, y = rng.standard_normal(300).astype(np.float32), rng.standard_normal(300).astype(np.float32)
    device = D3D12CreateDevice(None, D3D_FEATURE_LEVEL_11_0)
    with capture(device) as cap:
        timed = example.saxpy(1.5, x, y, device)
    summary = cap.trace.format_summary()
    assert "saxpy" in summary
    untimed_device = D3D12CreateDevice(None, D3D_FEATURE_LEVEL_11_0)
    inspect(untimed_device).gpu.timing = False
    untimed = example.saxpy(1.5, x, y, untimed_device)
    assert np.array_equal(timed.view(np.uint32), untimed.view(np.uint32))
    assert np.array_equal(timed.view(np.uint32), example.numpy_saxpy(1.5, x, y).view(np.uint32))
    assert inspect(device).gpu.clock_cycles > 0


# ---- the command line: asm, disasm, step --kernel ---------------------------------------------------------
def test_asm_writes_the_compute_shader_binary_and_disasm_reads_it_back(tmp_path):
    source = os.path.join(KERNELS, "collatz.s")
    status, out, _ = cli("asm", source, "-o", tmp_path / "collatz.cso")
    assert status == 0 and out.startswith("wrote compute shader collatz (")
    data = (tmp_path / "collatz.cso").read_bytes()
    assert data == bytecode("collatz")
    status, text, _ = cli("disasm", tmp_path / "collatz.cso")
    assert status == 0 and text.splitlines()[1:5] == [".numthreads 64, 1, 1", ".root_constants b0, 2", ".srv t0",
                                                      ".uav u0"]
    (tmp_path / "again" ).mkdir()
    (tmp_path / "again" / "collatz.s").write_text(text)
    status, _, _ = cli("asm", tmp_path / "again" / "collatz.s", "-o", tmp_path / "again.cso")
    assert status == 0 and (tmp_path / "again.cso").read_bytes() == data


def test_step_kernel_steps_one_wave_of_a_user_kernel():
    status, out, err = cli("step", "--kernel", os.path.join(KERNELS, "saxpy.s"), "--groups", "2", "--constants", "70",
                           "2.0", "--buffer", "t0=float32:70", "--buffer", "u0=float32:70:zeros", "--wave", "8")
    assert status == 0, err
    lines = out.splitlines()
    assert lines[0].endswith("saxpy.s, Dispatch(2, 1, 1) of numthreads (64, 1, 1)")
    assert "stepping wave 8 (workgroup 1)" in out
    assert "root constants (s5 ..): 0x00000046 0x40000000" in out
    # wave 8 is threads 64 .. 71 of 70: lanes 6 and 7 are switched off by the bounds check
    assert "           vcc = 11111100" in out
    assert "buffer_store_dword v7, v5, s[12:15], 0" in out
    assert "The wave ended after 15 instructions." in out


def test_step_kernel_matches_the_dispatch_result_for_its_wave():
    from dmlemu.tools.stepper import KernelStepper
    rng = np.random.default_rng(3)
    x = rng.integers(1, 1000, 8).astype(np.uint32)
    stepper = KernelStepper(os.path.join(KERNELS, "collatz.s"), groups=(1,), constants=(8, 100),
                            buffers={"t0": x, "u0": np.zeros(8, np.uint32)}, width=8)
    for _ in stepper.steps():
        pass
    assert np.array_equal(stepper.buffer("u0"), example.numpy_collatz_steps(x, 100))


@pytest.mark.parametrize("argv, message", [
    (["--constants", "1"], "dmlemu: error: the kernel reads 2 root constants (b0 (2)); --constants gave 1"),
    (["--constants", "1", "2"], "dmlemu: error: the kernel reads t0; give it a buffer with --buffer t0=DTYPE:COUNT"),
    (["--constants", "1", "2", "--buffer", "t0=float32:4", "--buffer", "u0=float32:4", "--buffer", "u7=float32:1"],
     "dmlemu: error: the kernel declares no u7; its bindings are b0, t0, u0"),
    (["--constants", "1", "x"], "dmlemu: error: root constant 'x' is not a number; give an integer (7, 0x10, -1) or "
                                "a float (2.5)"),
    (["--constants", "1", "2", "--buffer", "t0=float32"], "dmlemu: error: --buffer 't0=float32' must be "
                                                          "REGISTER=DTYPE:COUNT[:zeros] or REGISTER=FILE.npy"),
])
def test_step_kernel_argument_errors(argv, message):
    status, _, err = cli("step", "--kernel", os.path.join(KERNELS, "saxpy.s"), *argv)
    assert status == 2 and err.strip() == message


_SPAN = st.tuples(st.sampled_from([D3D12_DESCRIPTOR_RANGE_TYPE_UAV, D3D12_DESCRIPTOR_RANGE_TYPE_SRV]),
                  st.integers(0, 1), st.integers(0, 40), st.integers(1, 8),
                  st.sampled_from([D3D12_SHADER_VISIBILITY_ALL, D3D12_SHADER_VISIBILITY_PIXEL,
                                   D3D12_SHADER_VISIBILITY_VERTEX]))


@settings(max_examples=60, deadline=None)
@given(st.lists(_SPAN, min_size=1, max_size=12))
def test_root_signature_register_overlap_is_refused_exactly_when_two_ranges_share_a_register_a_shader_sees(spans):
    """Drawn tables of one range each (kind, space, base, count, visibility): serialization fails with the overlap
    sentence exactly when a brute-force check over every pair finds two ranges of one kind and space sharing a
    register seen by one shader (the same visibility, or either is ALL); the sentence names the first such pair in
    parameter order."""
    params = [D3D12_ROOT_PARAMETER(ParameterType=D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE, ShaderVisibility=seen,
                                   DescriptorTable=D3D12_ROOT_DESCRIPTOR_TABLE(
                                       pDescriptorRanges=[D3D12_DESCRIPTOR_RANGE(kind, count, base, space)]))
              for kind, space, base, count, seen in spans]
    first = next(((a, b) for a in range(len(spans)) for b in range(a)
                  if spans[a][:2] == spans[b][:2] and spans[a][2] <= spans[b][2] + spans[b][3] - 1
                  and spans[b][2] <= spans[a][2] + spans[a][3] - 1
                  and (spans[a][4] == spans[b][4] or D3D12_SHADER_VISIBILITY_ALL in (spans[a][4], spans[b][4]))),
                 None)
    if first is None:
        serialize(*params)
    else:
        message = error_of(serialize, *params).message
        assert f"pParameters[{first[0]}] range 0 binds" in message and f"of pRootSignature.pParameters[{first[1]}] " \
            "range 0;" in message
