"""NumPy integers are C integers: wherever C takes an integer (a wrapped method's argument, a struct
field), a NumPy integer scalar is the Python int it holds (dmlemu.com.c_value), so a value that meets a
rule is accepted and one that breaks it is refused with a sentence quoting the plain number.
"""
import numpy as np
import pytest

from dmlemu.d3d12 import *  # noqa: F401,F403
from dmlemu.errors import E_INVALIDARG, HResultError
from mirror_rig import MirrorRig, removal

INTEGER_TYPES = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64]


def buffer_desc(width):
    return D3D12_RESOURCE_DESC(Dimension=D3D12_RESOURCE_DIMENSION_BUFFER, Width=width, Height=1, DepthOrArraySize=1,
                               MipLevels=1, SampleDesc=DXGI_SAMPLE_DESC(Count=1),
                               Layout=D3D12_TEXTURE_LAYOUT_ROW_MAJOR)


def upload(device, width):
    return device.CreateCommittedResource(CD3DX12_HEAP_PROPERTIES(D3D12_HEAP_TYPE_UPLOAD), D3D12_HEAP_FLAG_NONE,
                                          buffer_desc(width), D3D12_RESOURCE_STATE_GENERIC_READ, None)


@pytest.mark.parametrize("kind", [np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64])
def test_numpy_integers_are_accepted_where_c_takes_integers(kind):
    rig = MirrorRig()
    resource = upload(rig.device, kind(256))
    assert resource.GetDesc().Width == 256 and type(resource.GetDesc().Width) is int
    mapped = resource.Map(kind(0), D3D12_RANGE(Begin=kind(0), End=kind(16)))
    assert mapped.shape == (256,)
    resource.Unmap(kind(0), D3D12_RANGE(Begin=kind(0), End=kind(16)))
    fence = rig.device.CreateFence(kind(5), D3D12_FENCE_FLAG_NONE)
    assert fence.GetCompletedValue() == 5
    fence.Signal(kind(7))
    assert fence.GetCompletedValue() == 7
    rig.queue.Signal(fence, kind(9))
    assert fence.GetCompletedValue() == 9
    target = rig.buffer(256)
    rig.list.CopyBufferRegion(target, kind(0), resource, kind(0), kind(64))     # a recording method
    rig.execute()
    assert removal(rig.device)[0] == 0


@pytest.mark.parametrize("kind", INTEGER_TYPES)
def test_a_numpy_integer_that_breaks_a_rule_is_refused_with_the_plain_number(kind):
    rig = MirrorRig()
    with pytest.raises(HResultError) as info:
        upload(rig.device, kind(0))
    assert info.value.hresult == E_INVALIDARG
    assert info.value.message == "CreateCommittedResource: pDesc.Width is 0; a buffer must be at least 1 byte."
    if np.iinfo(kind).min < 0:
        with pytest.raises(HResultError) as info:
            rig.device.CreateFence(kind(-1), D3D12_FENCE_FLAG_NONE)
        assert info.value.message == "CreateFence: InitialValue is -1; it must be an unsigned 64-bit integer."


def test_numpy_booleans_and_floats_stay_refused():
    rig = MirrorRig()
    for value in (np.bool_(True), np.float64(256.0)):
        with pytest.raises(HResultError) as info:
            upload(rig.device, value)
        assert info.value.message == f"CreateCommittedResource: pDesc.Width is {value!r}; it must be a UINT64 byte count."
