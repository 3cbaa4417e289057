"""Compute pipeline states: CreateComputePipelineState and ID3D12PipelineState.

One per CreateComputePipelineState call. Its CS bytecode is a dmlemu compute shader binary
(isa/shader_binary.py: what `dmlemu asm` writes for a source with .numthreads): the header gives the
thread-group shape, the registers the program uses and the resources it reads (t, u and b registers,
and root constants); the program is decoded once here (dmlemu.isa.program.Program), so
execution never meets a bad word. Creation fails with E_INVALIDARG and a sentence for bytecode that
is not a valid shader (bad header, truncated, unknown opcode, a register past what the header
declares) and for a shader whose bindings the root signature does not provide (a register no
parameter of visibility ALL covers, or covered by a parameter of the wrong kind, or root constants
fewer than the shader reads), and for a shader whose `.lds` (HLSL groupshared) is over D3D12's
limit: D3D12_CS_TGSM_REGISTER_COUNT = 8192 32-bit registers of thread group shared memory, 32 KiB,
the API's limit whatever the GPU (D3D12 documents it as the groupshared limit of cs_5_0 and later).

`ComputeShader.launch` turns a Dispatch into a KernelLaunch under the kernel ABI of
docs/KERNEL_ABI.md; `dmlemu step --kernel` uses it too.
"""
from dmlemu.com import check_flags, is_integer, is_one_of
from dmlemu.d3d12.base import DeviceChild, invalid_arg
from dmlemu.d3d12.enums import D3D12_PIPELINE_STATE_FLAGS
from dmlemu.d3d12.root_signature import CONSTANTS, ID3D12RootSignature, ROOT_DESCRIPTOR_KIND, TABLE
from dmlemu.errors import HResultError
from dmlemu.d3d12.structs import D3D12_COMPUTE_PIPELINE_STATE_DESC, D3D12_SHADER_BYTECODE
from dmlemu.isa.shader_binary import (ABI_SGPRS, CBV, MAX_ROOT_CONSTANTS, ROOT_CONSTANTS, SRV, UAV,
                                      ShaderBinaryError, parse_shader_binary, registers_used)

__all__ = ["ID3D12PipelineState", "ComputeShader", "load_compute_shader", "D3D12_CS_TGSM_REGISTER_COUNT",
           "MAX_GROUPSHARED_BYTES"]

# D3D12's thread group shared memory: 8192 32-bit registers (d3d12.h D3D12_CS_TGSM_REGISTER_COUNT), the
# 32 KiB an HLSL shader may declare groupshared. It is the API's rule, the same on every adapter;
# CreateComputePipelineState refuses a shader over it.
D3D12_CS_TGSM_REGISTER_COUNT = 8192
MAX_GROUPSHARED_BYTES = D3D12_CS_TGSM_REGISTER_COUNT * 4

_LETTER = {SRV: "t", UAV: "u", CBV: "b", ROOT_CONSTANTS: "c"}   # how root_signature._locate names a binding


class ComputeShader:
    """A validated compute shader: its binary, decoded program and launch shape."""

    def __init__(self, binary, program):
        self.binary = binary
        self.program = program
        self.name = binary.name
        self.numthreads = binary.numthreads
        self.threads_per_group = binary.threads_per_group
        self.vgprs_used = max(4, binary.vgprs)          # v0 .. v3 are written at launch
        self.sgprs_used = max(ABI_SGPRS, binary.sgprs)
        self.lds_bytes = binary.lds_bytes

    def launch(self, table_va, constants, groups):
        """The KernelLaunch of Dispatch(*groups) with the binding table at `table_va` and the root
        constants' 32-bit values `constants` (at most 16, in declaration order)."""
        from dmlemu.functional.wave_dispatcher import KernelLaunch
        gx, gy, gz = groups
        padded = list(constants) + [0] * (MAX_ROOT_CONSTANTS - len(constants))
        user = (table_va & 0xFFFFFFFF, table_va >> 32, gx, gy, gz, *padded)
        count = gx * gy * gz
        return KernelLaunch(program=self.program, num_workgroups=count, workgroup_size=self.threads_per_group,
                            user_sgprs=user, name=self.name, elements=count * self.threads_per_group,
                            vgprs_used=self.vgprs_used, sgprs_used=self.sgprs_used,
                            group_grid=tuple(groups), thread_grid=self.numthreads, lds_bytes=self.lds_bytes)


def load_compute_shader(data):
    """A ComputeShader from untrusted bytecode; ValueError with a sentence (no method name) otherwise."""
    from dmlemu.isa.program import KernelFault, Program
    binary = parse_shader_binary(data)
    try:
        program = Program(binary.program, binary.name)
    except KernelFault as fault:
        raise ShaderBinaryError(f"the program does not decode: {fault}") from None
    vgprs, sgprs = registers_used(binary.program)
    if vgprs > binary.vgprs or sgprs > binary.sgprs:
        raise ShaderBinaryError(f"the program uses {vgprs} VGPRs and {sgprs} SGPRs, but its header declares "
                                f"{binary.vgprs} and {binary.sgprs}")
    return ComputeShader(binary, program)


class ID3D12PipelineState(DeviceChild):
    """A compute pipeline: a root signature and a compute shader."""

    _kind = "pipeline state"

    def __init__(self, device, root_signature, shader, desc):
        super().__init__(device)
        self._root_signature = root_signature
        self._shader = shader
        self._desc = desc
        self._bindings = _bind(root_signature, shader)


def _bind(root_signature, shader):
    """For each binding of the shader: (binding, parameter index, descriptor offset in a table or None)."""
    out = []
    for binding in shader.binary.bindings:
        found = root_signature._locate(_LETTER[binding.kind], binding.register, binding.space)
        if found is None:
            other = _other_kind(root_signature, binding)
            if other is not None:
                raise ValueError(f"the shader reads {binding.name} as {_as(binding)}, but {other}")
            raise ValueError(f"the shader reads {binding.name} ({_as(binding)}), which no root parameter of "
                             f"{root_signature._label} with D3D12_SHADER_VISIBILITY_ALL provides")
        index, parameter, offset = found
        if binding.kind == ROOT_CONSTANTS and binding.count > parameter.values:
            raise ValueError(f"the shader reads {binding.count} root constants from {binding.name}, but "
                             f"{root_signature._describe(index)} of {root_signature._label} has "
                             f"Num32BitValues {parameter.values}")
        out.append((binding, index, offset))
    return tuple(out)


def _as(binding):
    return {SRV: "an SRV", UAV: "a UAV", CBV: "a constant buffer through a descriptor",
            ROOT_CONSTANTS: "root constants in SGPRs"}[binding.kind]


def _other_kind(root_signature, binding):
    """A phrase naming a parameter that binds the same b register in another way, or None."""
    if binding.kind not in (CBV, ROOT_CONSTANTS):
        return None
    other = "c" if binding.kind == CBV else "b"
    found = root_signature._locate(other, binding.register, binding.space)
    if found is None:
        return None
    index, parameter, _ = found
    how = "gives it as root constants" if parameter.type == CONSTANTS else \
        "gives it as a constant buffer descriptor" if parameter.type in (TABLE, *ROOT_DESCRIPTOR_KIND) else ""
    return f"{root_signature._describe(index)} of {root_signature._label} {how}"


def create_compute_pipeline_state(device, desc):
    """ID3D12Device::CreateComputePipelineState."""
    m = "CreateComputePipelineState"
    if not isinstance(desc, D3D12_COMPUTE_PIPELINE_STATE_DESC):
        raise invalid_arg(m, f"pDesc is {desc!r}; it must be a D3D12_COMPUTE_PIPELINE_STATE_DESC.")
    rs = desc.pRootSignature
    if rs is None:
        raise invalid_arg(m, "pDesc.pRootSignature is None, and a dmlemu shader has no embedded root signature; "
                             "give the root signature.")
    if not isinstance(rs, ID3D12RootSignature) or rs._device is not device:
        raise invalid_arg(m, f"pDesc.pRootSignature is {rs!r}; it must be a root signature of this device.")
    if not is_one_of(desc.NodeMask, (0, 1)):
        raise invalid_arg(m, f"pDesc.NodeMask is {desc.NodeMask!r}; the emulated adapter has one node, so it must be "
                             "0 or 1.")
    try:
        check_flags(desc.Flags, D3D12_PIPELINE_STATE_FLAGS, "pDesc.Flags")
    except HResultError as error:
        raise invalid_arg(m, error.message) from None
    cached = desc.CachedPSO
    if cached is not None and (cached.pCachedBlob is not None or cached.CachedBlobSizeInBytes):
        raise invalid_arg(m, "pDesc.CachedPSO names a cached blob; the emulator has no pipeline cache, so it must be "
                             "empty.")
    cs = desc.CS
    if not isinstance(cs, D3D12_SHADER_BYTECODE) or not isinstance(cs.pShaderBytecode, (bytes, bytearray, memoryview)):
        raise invalid_arg(m, f"pDesc.CS.pShaderBytecode is "
                             f"{getattr(cs, 'pShaderBytecode', cs)!r}; it must be the bytes of a compute shader "
                             "(`dmlemu asm` output).")
    data = bytes(cs.pShaderBytecode)
    if not is_integer(cs.BytecodeLength) or int(cs.BytecodeLength) != len(data):
        raise invalid_arg(m, f"pDesc.CS.BytecodeLength is {cs.BytecodeLength!r}, but pShaderBytecode has "
                             f"{len(data)} bytes; they must agree.")
    try:
        shader = load_compute_shader(data)
    except ShaderBinaryError as error:
        raise invalid_arg(m, f"pDesc.CS is not a valid compute shader: {error}.") from None
    if shader.lds_bytes > MAX_GROUPSHARED_BYTES:
        raise invalid_arg(m, f"pDesc.CS ({shader.name}) declares {shader.lds_bytes} bytes of LDS (.lds, HLSL "
                             f"groupshared); D3D12 allows a thread group at most {MAX_GROUPSHARED_BYTES} bytes "
                             f"(D3D12_CS_TGSM_REGISTER_COUNT = {D3D12_CS_TGSM_REGISTER_COUNT} 32-bit registers).")
    try:
        return ID3D12PipelineState(device, rs, shader, desc._copy())
    except ValueError as error:
        raise invalid_arg(m, f"pDesc.CS does not match pDesc.pRootSignature: {error}.") from None
