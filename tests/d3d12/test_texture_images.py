"""Compute shaders reading and writing textures through typed views (image_load / image_store on the image
stamp texture_views.py writes), and the per-view state checks of Dispatch with the debug layer's #538
INVALID_SUBRESOURCE_STATE sentence (emulator/d3d12/view_states.py)."""
import numpy as np
import pytest

from dmlemu.d3d12 import *  # noqa: F401,F403
from dmlemu.errors import DXGI_ERROR_INVALID_CALL, S_OK
from dmlemu.isa.shader_binary import assemble_shader
from mirror_rig import MirrorRig, removal

T = CD3DX12_RESOURCE_BARRIER.Transition
# s5..s7 the grid (width, height, depth), s8 the mip; one thread per grid cell (x, y, z), 4 x 4 x 4 a group.
_GRID = """
.numthreads 4, 4, 4
.root_constants b0, 4
.srv t0
.uav u0
    s_lshl_b32 s24, s21, 2
    v_add_u32 v4, s24, v1
    s_lshl_b32 s24, s22, 2
    v_add_u32 v5, s24, v2
    s_lshl_b32 s24, s23, 2
    v_add_u32 v6, s24, v3
    v_mov_b32 v7, s8
"""
LOAD_GRID = _GRID + """
    s_load_dwordx8 s[32:39], s[0:1], ${SLOT_T0}
    s_load_dwordx4 s[40:43], s[0:1], ${SLOT_U0}
    s_waitcnt 0
    image_load v[8:11], v[4:7], s[32:39]
    v_mad_u32 v12, v6, s6, v5
    v_mad_u32 v12, v12, s5, v4
    v_lshl_b32 v12, v12, 4
    s_waitcnt 0
    buffer_store_dword v8, v12, s[40:43], 0
    buffer_store_dword v9, v12, s[40:43], 4
    buffer_store_dword v10, v12, s[40:43], 8
    buffer_store_dword v11, v12, s[40:43], 12
    s_endpgm
"""
STORE_GRID = _GRID + """
    s_load_dwordx8 s[32:39], s[0:1], ${SLOT_U0}
    s_waitcnt 0
    v_mov_b32 v8, v4
    v_mov_b32 v9, v5
    v_mov_b32 v10, v6
    v_mov_b32 v11, 7
    image_store v[8:11], v[4:7], s[32:39]
    s_endpgm
"""


class Rig(MirrorRig):
    def __init__(self, debug=False):
        super().__init__(heap_slots=2, d3d12_debug=debug, list_type=D3D12_COMMAND_LIST_TYPE_COMPUTE)
        self.info = self.device.QueryInterface(IID_ID3D12InfoQueue) if debug else None
        if debug:
            self.info.SetBreakOnSeverity(D3D12_MESSAGE_SEVERITY_ERROR, False)
            self.info.SetMuteDebugOutput(True)
        blob = D3D12SerializeRootSignature(D3D12_ROOT_SIGNATURE_DESC(pParameters=[
            D3D12_ROOT_PARAMETER(ParameterType=D3D12_ROOT_PARAMETER_TYPE_32BIT_CONSTANTS,
                                 Constants=D3D12_ROOT_CONSTANTS(0, 0, 4)),
            D3D12_ROOT_PARAMETER(ParameterType=D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE,
                                 DescriptorTable=D3D12_ROOT_DESCRIPTOR_TABLE(pDescriptorRanges=[
                                     D3D12_DESCRIPTOR_RANGE(D3D12_DESCRIPTOR_RANGE_TYPE_SRV, 1, 0, 0, 0),
                                     D3D12_DESCRIPTOR_RANGE(D3D12_DESCRIPTOR_RANGE_TYPE_UAV, 1, 0, 0, 1)]))]),
            D3D_ROOT_SIGNATURE_VERSION_1)
        self.rs = self.device.CreateRootSignature(0, blob.GetBufferPointer(), blob.GetBufferSize())
        self.keep = []

    def pipeline(self, source):
        code = assemble_shader(source, filename="grid.s").to_bytes()
        return self.device.CreateComputePipelineState(D3D12_COMPUTE_PIPELINE_STATE_DESC(
            pRootSignature=self.rs, CS=D3D12_SHADER_BYTECODE(code, len(code))))

    def texture(self, desc, state=D3D12_RESOURCE_STATE_COPY_DEST):
        return self.device.CreateCommittedResource(CD3DX12_HEAP_PROPERTIES(D3D12_HEAP_TYPE_DEFAULT),
                                                   D3D12_HEAP_FLAG_NONE, desc, state, None)

    def fill(self, texture, subresources):
        """Upload one array per subresource (rows of texels) with UpdateSubresources (recorded, not executed)."""
        upload = self.buffer(GetRequiredIntermediateSize(texture, 0, len(subresources)), D3D12_HEAP_TYPE_UPLOAD)
        self.keep.append(upload)
        UpdateSubresources(self.list, texture, upload, 0, 0, len(subresources), [D3D12_SUBRESOURCE_DATA(
            pData=a.tobytes(), RowPitch=a.shape[-2] * a.shape[-1] if a.ndim == 4 else a.shape[-1] * a.itemsize,
            SlicePitch=a[0].nbytes if a.ndim == 4 else a.nbytes) for a in subresources])

    def dispatch(self, pso, grid, mip=0, srv=None, uav=None):
        """Bind srv / uav (callables writing slot 0 / 1) and Dispatch the grid."""
        for slot, make in ((0, srv), (1, uav)):
            if make is not None:
                make(self.heap_cpu(slot))
        self.list.SetComputeRootSignature(self.rs)
        self.list.SetPipelineState(pso)
        self.list.SetComputeRoot32BitConstants(0, 4, list(grid) + [mip], 0)
        self.list.SetComputeRootDescriptorTable(1, self.heap.GetGPUDescriptorHandleForHeapStart())
        self.list.Dispatch(*(-(-g // 4) for g in grid))

    def heap_cpu(self, slot):
        return D3D12_CPU_DESCRIPTOR_HANDLE(ptr=self.heap.GetCPUDescriptorHandleForHeapStart().ptr + 32 * slot)

    def raw_uav(self, buffer):
        desc = D3D12_UNORDERED_ACCESS_VIEW_DESC(Format=DXGI_FORMAT_R32_TYPELESS, ViewDimension=D3D12_UAV_DIMENSION_BUFFER,
                                                Buffer=D3D12_BUFFER_UAV(FirstElement=0,
                                                                        NumElements=buffer.GetDesc().Width // 4, Flags=1))
        return lambda handle: self.device.CreateUnorderedAccessView(buffer, None, desc, handle)

    def read_subresource(self, texture, index):
        (layout,), (rows,), (row_bytes,), total = self.device.GetCopyableFootprints(texture.GetDesc(), index, 1, 0)
        readback = self.buffer(total, D3D12_HEAP_TYPE_READBACK)
        self.list.CopyTextureRegion(CD3DX12_TEXTURE_COPY_LOCATION(readback, layout), 0, 0, 0,
                                    CD3DX12_TEXTURE_COPY_LOCATION(texture, index), None)
        self.execute()
        data = readback.Map(0, None)[:total].copy()
        readback.Unmap(0, None)
        f = layout.Footprint
        return np.stack([data[(z * rows + y) * f.RowPitch:(z * rows + y) * f.RowPitch + row_bytes]
                         for z in range(f.Depth) for y in range(rows)]).reshape(f.Depth, rows, row_bytes)


def ids(slices, mips, width, height):
    """R32_UINT texel ids: slice * 1000000 + mip * 10000 + y * 100 + x, per subresource (mip fastest)."""
    return [np.array([[s * 1000000 + m * 10000 + y * 100 + x for x in range(max(1, width >> m))]
                      for y in range(max(1, height >> m))], dtype=np.uint32)
            for s in range(slices) for m in range(mips)]


@pytest.mark.parametrize("mip", [0, 1, 2])
def test_a_texture2darray_srv_of_some_slices_and_mips_loads_the_texels_it_names(mip):
    rig = Rig()
    width, height, slices, mips = 8, 4, 3, 3
    texture = rig.texture(CD3DX12_RESOURCE_DESC.Tex2D(DXGI_FORMAT_R32_UINT, width, height, slices, mips))
    rig.fill(texture, ids(slices, mips, width, height))
    rig.list.ResourceBarrier([T(texture, D3D12_RESOURCE_STATE_COPY_DEST, D3D12_RESOURCE_STATE_NON_PIXEL_SHADER_RESOURCE)])
    grid = (8, 4, 4)                      # past the view on every axis: those lanes read 0
    out = rig.buffer(16 * 8 * 4 * 4)
    view = D3D12_SHADER_RESOURCE_VIEW_DESC(
        Format=DXGI_FORMAT_R32_UINT, ViewDimension=D3D12_SRV_DIMENSION_TEXTURE2DARRAY,
        Shader4ComponentMapping=D3D12_DEFAULT_SHADER_4_COMPONENT_MAPPING,
        Texture2DArray=D3D12_TEX2D_ARRAY_SRV(MostDetailedMip=1, MipLevels=2, FirstArraySlice=1, ArraySize=2))
    rig.dispatch(rig.pipeline(LOAD_GRID), grid, mip,
                 srv=lambda h: rig.device.CreateShaderResourceView(texture, view, h), uav=rig.raw_uav(out))
    rig.execute()
    got = rig.read(out).view(np.uint32).reshape(4, 4, 8, 4)            # [slice][y][x][R, G, B, A]
    for s in range(4):
        for y in range(4):
            for x in range(8):
                w, h = max(1, width >> (1 + mip)), max(1, height >> (1 + mip))
                inside = mip < 2 and s < 2 and x < w and y < h
                want = [(1 + s) * 1000000 + (1 + mip) * 10000 + y * 100 + x, 0, 0, 1] if inside else [0, 0, 0, 0]
                assert got[s, y, x].tolist() == want, (s, y, x)
    assert removal(rig.device) == (S_OK, "")


def test_a_texture3d_uav_of_some_depth_slices_stores_there_and_drops_the_rest():
    rig = Rig()
    texture = rig.texture(CD3DX12_RESOURCE_DESC.Tex3D(DXGI_FORMAT_R8G8B8A8_UINT, 4, 4, 4, 1,
                                                      D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS),
                          D3D12_RESOURCE_STATE_UNORDERED_ACCESS)
    view = D3D12_UNORDERED_ACCESS_VIEW_DESC(Format=DXGI_FORMAT_R8G8B8A8_UINT, ViewDimension=D3D12_UAV_DIMENSION_TEXTURE3D,
                                            Texture3D=D3D12_TEX3D_UAV(MipSlice=0, FirstWSlice=1, WSize=2))
    rig.dispatch(rig.pipeline(STORE_GRID), (8, 4, 4),
                 uav=lambda h: rig.device.CreateUnorderedAccessView(texture, None, view, h))
    rig.list.ResourceBarrier([T(texture, D3D12_RESOURCE_STATE_UNORDERED_ACCESS, D3D12_RESOURCE_STATE_COPY_SOURCE)])
    got = rig.read_subresource(texture, 0).reshape(4, 4, 4, 4)           # [z][y][x][RGBA]
    for z in range(4):
        for y in range(4):
            for x in range(4):
                want = [x, y, z - 1, 7] if z in (1, 2) else [0, 0, 0, 0]
                assert got[z, y, x].tolist() == want, (z, y, x)


def test_float_and_unorm_uav_stores_convert_as_d3d_does():
    """R8G8B8A8_UNORM and R16G16B16A16_FLOAT through default UAVs: (x / 4, 0, 0.5, 0.125) per texel becomes
    UNORM codes (x 255, nearest even: 127.5 -> 128) and FLOAT16 halves."""
    rig = Rig()
    store = STORE_GRID.replace("v_mov_b32 v8, v4", "v_cvt_f32_u32 v8, v4\n    v_mul_f32 v8, 0x3e800000, v8").replace(
        "v_mov_b32 v9, v5", "v_mov_b32 v9, 0").replace("v_mov_b32 v10, v6", "v_mov_b32 v10, 0x3f000000").replace(
        "v_mov_b32 v11, 7", "v_mov_b32 v11, 0x3e000000")
    pso = rig.pipeline(store)
    x = np.arange(4, dtype=np.float32) / 4
    for fmt, dtype, want in ((DXGI_FORMAT_R8G8B8A8_UNORM, np.uint8, [[int(np.rint(v * 255)), 0, 128, 32] for v in x]),
                             (DXGI_FORMAT_R16G16B16A16_FLOAT, np.float16, [[v, 0.0, 0.5, 0.125] for v in x])):
        texture = rig.texture(CD3DX12_RESOURCE_DESC.Tex2D(fmt, 4, 4, 1, 1, flags=D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS),
                              D3D12_RESOURCE_STATE_UNORDERED_ACCESS)
        rig.dispatch(pso, (4, 4, 1), uav=lambda h: rig.device.CreateUnorderedAccessView(texture, None, None, h))
        rig.list.ResourceBarrier([T(texture, D3D12_RESOURCE_STATE_UNORDERED_ACCESS, D3D12_RESOURCE_STATE_COPY_SOURCE)])
        got = rig.read_subresource(texture, 0)[0].view(dtype).reshape(4, 4, 4)       # [y][x][RGBA]
        for y in range(4):
            assert got[y].tolist() == want, (fmt, y)


# ---- states per view ------------------------------------------------------------------------------------------
def _uav_of_mip(rig, texture, mip):
    view = D3D12_UNORDERED_ACCESS_VIEW_DESC(Format=DXGI_FORMAT_R8G8B8A8_UINT, ViewDimension=D3D12_UAV_DIMENSION_TEXTURE2D,
                                            Texture2D=D3D12_TEX2D_UAV(MipSlice=mip))
    return lambda h: rig.device.CreateUnorderedAccessView(texture, None, view, h)


def _two_mips(rig):
    return rig.texture(CD3DX12_RESOURCE_DESC.Tex2D(DXGI_FORMAT_R8G8B8A8_UINT, 4, 4, 1, 2,
                                                   flags=D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS),
                       D3D12_RESOURCE_STATE_UNORDERED_ACCESS)


def test_a_uav_dispatch_on_a_copy_source_texture_is_message_538_naming_resource_states_and_call():
    rig = Rig(debug=True)
    texture = _two_mips(rig)
    rig.list.ResourceBarrier([T(texture, D3D12_RESOURCE_STATE_UNORDERED_ACCESS, D3D12_RESOURCE_STATE_COPY_SOURCE)])
    pso = rig.pipeline(STORE_GRID)
    rig.dispatch(pso, (4, 4, 1), uav=_uav_of_mip(rig, texture, 0))
    rig.list.Close()
    rig.queue.ExecuteCommandLists([rig.list])
    [message] = [rig.info.GetMessage(i, D3D12_MESSAGE(), rig.info.GetMessage(i, None, None))
                 for i in range(rig.info.GetNumStoredMessages())]
    sentence = ("ExecuteCommandLists: Dispatch: Resource state (0x800: D3D12_RESOURCE_STATE_COPY_SOURCE) of resource "
                "(texture #1) (subresource: 0) is invalid for use as an unordered access view by the UAV u0 of the "
                "Dispatch of pipeline state #1 (grid). Expected State Bits (all): 0x8: "
                "D3D12_RESOURCE_STATE_UNORDERED_ACCESS, Actual State: 0x800: D3D12_RESOURCE_STATE_COPY_SOURCE, Missing "
                "State: 0x8: D3D12_RESOURCE_STATE_UNORDERED_ACCESS; record a transition barrier first. (in command "
                "list #1 on command queue #1)")
    assert (int(message.ID), message.Category, message.Severity) == (
        538, D3D12_MESSAGE_CATEGORY_EXECUTION, D3D12_MESSAGE_SEVERITY_ERROR)
    assert int(message.ID) == D3D12_MESSAGE_ID_INVALID_SUBRESOURCE_STATE
    assert message.pDescription == sentence
    assert removal(rig.device) == (DXGI_ERROR_INVALID_CALL, sentence)


def test_only_the_subresources_a_view_holds_are_checked():
    """Mip 1 in COPY_SOURCE does not stop a UAV of mip 0; a UAV of mip 1 names subresource 1."""
    rig = Rig()
    texture = _two_mips(rig)
    rig.list.ResourceBarrier([T(texture, D3D12_RESOURCE_STATE_UNORDERED_ACCESS, D3D12_RESOURCE_STATE_COPY_SOURCE, 1)])
    pso = rig.pipeline(STORE_GRID)
    rig.dispatch(pso, (4, 4, 1), uav=_uav_of_mip(rig, texture, 0))
    rig.execute()
    assert removal(rig.device) == (S_OK, "")
    rig.dispatch(pso, (4, 4, 1), uav=_uav_of_mip(rig, texture, 1))
    rig.list.Close()
    rig.queue.ExecuteCommandLists([rig.list])
    code, sentence = removal(rig.device)
    assert code == DXGI_ERROR_INVALID_CALL and sentence.startswith(
        "ExecuteCommandLists: Dispatch: Resource state (0x800: D3D12_RESOURCE_STATE_COPY_SOURCE) of resource "
        "(texture #1) (subresource: 1) is invalid for use as an unordered access view by the UAV u0 of the Dispatch")


def test_a_uav_dispatch_on_a_copy_source_buffer_is_message_538_too():
    rig = Rig(debug=True)
    out = rig.buffer(1024)
    rig.list.ResourceBarrier([T(out, D3D12_RESOURCE_STATE_COMMON, D3D12_RESOURCE_STATE_COPY_SOURCE)])
    rig.dispatch(rig.pipeline(LOAD_GRID), (4, 4, 4), uav=rig.raw_uav(out))
    rig.list.Close()
    rig.queue.ExecuteCommandLists([rig.list])
    ids_seen = [int(rig.info.GetMessage(i, D3D12_MESSAGE(), rig.info.GetMessage(i, None, None)).ID)
                for i in range(rig.info.GetNumStoredMessages())]
    assert ids_seen == [538]
    assert "(buffer #1) (subresource: 0) is invalid for use as an unordered access view" in removal(rig.device)[1]
