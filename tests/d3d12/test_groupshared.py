"""A compute shader's LDS (HLSL groupshared): the `.lds BYTES` directive, the container's version 2
header dword that carries it (version 1 binaries read as 0 bytes), CreateComputePipelineState's
D3D12 limit (D3D12_CS_TGSM_REGISTER_COUNT = 8192 dwords = 32 KiB) and the launch's lds_bytes."""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dmlemu.d3d12 import *  # noqa: F401,F403
from dmlemu.d3d12.pipeline_state import MAX_GROUPSHARED_BYTES, load_compute_shader
from dmlemu.errors import E_INVALIDARG, HResultError
from dmlemu.isa.assembler import AssemblyError
from dmlemu.isa.shader_binary import (HEADER_DWORDS_V1, MAX_LDS_BYTES, ShaderBinaryError, assemble_shader,
                                      parse_shader_binary)

from d3d12.test_compute_shader_path import Rig, error_of

SOURCE = ".numthreads 64\n.lds {}\n s_endpgm\n"


def binary(lds):
    return assemble_shader(SOURCE.format(lds), filename="k.s")


def test_lds_directive_round_trips_through_the_container():
    b = binary(4352)
    assert b.lds_bytes == 4352
    data = b.to_bytes()
    assert int.from_bytes(data[4:8], "little") == 2              # version 2
    assert int.from_bytes(data[68:72], "little") == 4352         # dword 17
    assert parse_shader_binary(data) == b
    assert assemble_shader(".numthreads 8\n s_endpgm\n").lds_bytes == 0


def test_a_version_1_binary_reads_as_no_lds():
    data = bytearray(binary(0).to_bytes())
    v1 = bytes(data[:4]) + (1).to_bytes(4, "little") + bytes(data[8:HEADER_DWORDS_V1 * 4]) + bytes(data[72:])
    parsed = parse_shader_binary(v1)
    assert parsed.lds_bytes == 0 and parsed.program == binary(0).program


@pytest.mark.parametrize("text, message", [
    ("6", "k.s:2: the LDS size is 6 bytes; it must be a multiple of 4 (LDS is allocated in dwords)"),
    ("-4", f"k.s:2: the LDS size is -4 bytes; it must be 0 to {MAX_LDS_BYTES} (CreateComputePipelineState then "
           "checks it against D3D12's 32 KiB of groupshared memory)"),
    ("lots", "k.s:2: the LDS size is 'lots'; it must be an integer"),
    ("4, 8", "k.s:2: .lds takes BYTES (the thread group's LDS, HLSL groupshared)"),
])
def test_lds_directive_errors(text, message):
    with pytest.raises(AssemblyError) as info:
        binary(text)
    assert str(info.value) == message


def test_lds_given_twice_is_refused():
    with pytest.raises(AssemblyError) as info:
        assemble_shader(".numthreads 1\n.lds 4\n.lds 8\n s_endpgm\n", filename="k.s")
    assert str(info.value) == "k.s:3: .lds is given twice (first at line 2)"


def _with_lds_word(value):
    data = bytearray(binary(0).to_bytes())
    data[68:72] = value.to_bytes(4, "little")
    return bytes(data)


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 0xFFFFFFFF))
def test_hostile_lds_header_values_are_refused_with_a_sentence_or_read_exactly(value):
    try:
        parsed = parse_shader_binary(_with_lds_word(value))
    except ShaderBinaryError as error:
        text = str(error)
        assert text.startswith(f"the header's LDS size is {value} bytes; it must be ")
        assert value % 4 or value > MAX_LDS_BYTES
        return
    assert parsed.lds_bytes == value and value % 4 == 0 and value <= MAX_LDS_BYTES


@settings(max_examples=100, deadline=None)
@given(st.integers(-(1 << 40), 1 << 40))
def test_hostile_lds_directive_values_are_refused_or_kept(value):
    try:
        b = binary(value)
    except AssemblyError as error:
        assert str(error).startswith(f"k.s:2: the LDS size is {value} bytes; it must be ")
        return
    assert b.lds_bytes == value and 0 <= value <= MAX_LDS_BYTES and value % 4 == 0


def test_pipeline_creation_refuses_lds_over_d3d12s_groupshared_limit():
    rig = Rig()
    assert MAX_GROUPSHARED_BYTES == 32768
    rig.pipeline(binary(32768).to_bytes())                      # exactly the limit: accepted
    error = error_of(rig.pipeline, binary(32772).to_bytes())
    assert error.hresult == E_INVALIDARG
    assert error.message == ("CreateComputePipelineState: pDesc.CS (k) declares 32772 bytes of LDS (.lds, HLSL "
                             "groupshared); D3D12 allows a thread group at most 32768 bytes "
                             "(D3D12_CS_TGSM_REGISTER_COUNT = 8192 32-bit registers).")


def test_the_launch_carries_the_lds_bytes():
    shader = load_compute_shader(binary(1024).to_bytes())
    launch = shader.launch(0, (), (3, 1, 1))
    assert launch.lds_bytes == 1024 and launch.num_workgroups == 3


def test_disassembly_writes_the_lds_directive_back():
    from dmlemu.tools.asm import describe_shader
    text = describe_shader(binary(2048))
    assert ".lds 2048" in text.splitlines()
    assert assemble_shader(text, filename="k.s").lds_bytes == 2048
