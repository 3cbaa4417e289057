"""The image -> tensor conversion shader (examples/kernels/image_to_tensor.s: image_load through a typed SRV of an
R8G8B8A8_UNORM Texture2D, FLOAT16 NCHW stores) on the default adapter: host wall time of the Dispatch's
execution against NumPy's conversion of the same image, the modelled GPU time (timestamp queries around the
Dispatch) and the modelled bytes per second; the tensor is checked bit for bit against NumPy.

    python bench/bench_image_conversion.py [SIZE ...]        (square images; default 256 1024)
"""
import os
import sys
import time

import numpy as np

from dmlemu.d3d12 import *  # noqa: F401,F403
from dmlemu.dxgi import CreateDXGIFactory1
from dmlemu.isa.shader_binary import assemble_shader

KERNEL = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples", "kernels",
                      "image_to_tensor.s")


def measure(size):
    device = D3D12CreateDevice(None, D3D_FEATURE_LEVEL_11_0)
    queue = device.CreateCommandQueue(D3D12_COMMAND_QUEUE_DESC(Type=D3D12_COMMAND_LIST_TYPE_DIRECT))
    allocator = device.CreateCommandAllocator(D3D12_COMMAND_LIST_TYPE_DIRECT)
    cl = device.CreateCommandList(0, D3D12_COMMAND_LIST_TYPE_DIRECT, allocator, None)
    fence = device.CreateFence(0, D3D12_FENCE_FLAG_NONE)

    def run():
        cl.Close()
        queue.ExecuteCommandLists([cl])
        queue.Signal(fence, fence.GetCompletedValue() + 1)
        fence.SetEventOnCompletion(fence.GetCompletedValue(), None)
        allocator.Reset()
        cl.Reset(allocator, None)

    def committed(desc, heap_type, state):
        return device.CreateCommittedResource(CD3DX12_HEAP_PROPERTIES(heap_type), D3D12_HEAP_FLAG_NONE, desc, state, None)

    image = np.random.default_rng(size).integers(0, 256, (size, size, 4), dtype=np.uint8)
    texture = committed(CD3DX12_RESOURCE_DESC.Tex2D(DXGI_FORMAT_R8G8B8A8_UNORM, size, size, 1, 1),
                        D3D12_HEAP_TYPE_DEFAULT, D3D12_RESOURCE_STATE_COPY_DEST)
    upload = committed(CD3DX12_RESOURCE_DESC.Buffer(GetRequiredIntermediateSize(texture, 0, 1)), D3D12_HEAP_TYPE_UPLOAD,
                       D3D12_RESOURCE_STATE_GENERIC_READ)
    UpdateSubresources(cl, texture, upload, 0, 0, 1, [D3D12_SUBRESOURCE_DATA(
        pData=image.tobytes(), RowPitch=size * 4, SlicePitch=size * size * 4)])
    cl.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.Transition(texture, D3D12_RESOURCE_STATE_COPY_DEST,
                                                            D3D12_RESOURCE_STATE_NON_PIXEL_SHADER_RESOURCE)])
    run()
    tensor_bytes = 2 * 3 * size * size
    tensor = committed(CD3DX12_RESOURCE_DESC.Buffer(tensor_bytes, D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS),
                       D3D12_HEAP_TYPE_DEFAULT, D3D12_RESOURCE_STATE_COMMON)
    heap = device.CreateDescriptorHeap(D3D12_DESCRIPTOR_HEAP_DESC(
        Type=D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, NumDescriptors=2, Flags=D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE))
    cpu = heap.GetCPUDescriptorHandleForHeapStart().ptr
    device.CreateShaderResourceView(texture, None, D3D12_CPU_DESCRIPTOR_HANDLE(ptr=cpu))
    device.CreateUnorderedAccessView(tensor, None, D3D12_UNORDERED_ACCESS_VIEW_DESC(
        Format=DXGI_FORMAT_R32_TYPELESS, ViewDimension=D3D12_UAV_DIMENSION_BUFFER,
        Buffer=D3D12_BUFFER_UAV(FirstElement=0, NumElements=tensor_bytes // 4, Flags=1)),
        D3D12_CPU_DESCRIPTOR_HANDLE(ptr=cpu + 32))
    blob = D3D12SerializeRootSignature(D3D12_ROOT_SIGNATURE_DESC(pParameters=[
        D3D12_ROOT_PARAMETER(ParameterType=D3D12_ROOT_PARAMETER_TYPE_32BIT_CONSTANTS,
                             Constants=D3D12_ROOT_CONSTANTS(0, 0, 2)),
        D3D12_ROOT_PARAMETER(ParameterType=D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE,
                             DescriptorTable=D3D12_ROOT_DESCRIPTOR_TABLE(pDescriptorRanges=[
                                 D3D12_DESCRIPTOR_RANGE(D3D12_DESCRIPTOR_RANGE_TYPE_SRV, 1, 0, 0, 0),
                                 D3D12_DESCRIPTOR_RANGE(D3D12_DESCRIPTOR_RANGE_TYPE_UAV, 1, 0, 0, 1)]))]),
        D3D_ROOT_SIGNATURE_VERSION_1)
    rs = device.CreateRootSignature(0, blob.GetBufferPointer(), blob.GetBufferSize())
    with open(KERNEL, encoding="utf-8") as f:
        code = assemble_shader(f.read(), filename=KERNEL).to_bytes()
    pso = device.CreateComputePipelineState(D3D12_COMPUTE_PIPELINE_STATE_DESC(
        pRootSignature=rs, CS=D3D12_SHADER_BYTECODE(code, len(code))))
    stamps = device.CreateQueryHeap(D3D12_QUERY_HEAP_DESC(Type=D3D12_QUERY_HEAP_TYPE_TIMESTAMP, Count=2))
    ticks = committed(CD3DX12_RESOURCE_DESC.Buffer(16), D3D12_HEAP_TYPE_READBACK, D3D12_RESOURCE_STATE_COPY_DEST)
    cl.SetDescriptorHeaps([heap])
    cl.SetComputeRootSignature(rs)
    cl.SetPipelineState(pso)
    cl.SetComputeRoot32BitConstants(0, 2, [size, size], 0)
    cl.SetComputeRootDescriptorTable(1, heap.GetGPUDescriptorHandleForHeapStart())
    cl.EndQuery(stamps, D3D12_QUERY_TYPE_TIMESTAMP, 0)
    cl.Dispatch(-(-size // 8), -(-size // 8), 1)
    cl.EndQuery(stamps, D3D12_QUERY_TYPE_TIMESTAMP, 1)
    cl.ResolveQueryData(stamps, D3D12_QUERY_TYPE_TIMESTAMP, 0, 2, ticks, 0)
    readback = committed(CD3DX12_RESOURCE_DESC.Buffer(tensor_bytes), D3D12_HEAP_TYPE_READBACK,
                         D3D12_RESOURCE_STATE_COPY_DEST)
    cl.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.Transition(tensor, D3D12_RESOURCE_STATE_UNORDERED_ACCESS,
                                                            D3D12_RESOURCE_STATE_COPY_SOURCE)])
    cl.CopyResource(readback, tensor)
    start = time.perf_counter()
    run()
    emulated = time.perf_counter() - start
    start = time.perf_counter()
    want = (image[:, :, :3].astype(np.float32) / np.float32(255)).astype(np.float16).transpose(2, 0, 1)
    numpy_seconds = time.perf_counter() - start
    got = readback.Map(0, None)[:tensor_bytes].copy().view(np.float16).reshape(3, size, size)
    if not np.array_equal(got.view(np.uint16), want.view(np.uint16)):
        raise SystemExit(f"{size} x {size}: the tensor differs from NumPy's conversion")
    t0, t1 = ticks.Map(0, None)[:16].copy().view("<u8")
    gpu_seconds = (int(t1) - int(t0)) / queue.GetTimestampFrequency()
    moved = size * size * 4 + tensor_bytes
    print(f"{size:5d} x {size:<5d}  host {emulated * 1e3:8.1f} ms (NumPy {numpy_seconds * 1e3:6.2f} ms, "
          f"{emulated / numpy_seconds:6.0f}x)  modelled GPU {gpu_seconds * 1e6:8.1f} us, "
          f"{moved / gpu_seconds / 1e9:6.1f} GB/s  bit-exact")


def main():
    sizes = [int(a) for a in sys.argv[1:]] or [256, 1024]
    adapter = CreateDXGIFactory1().EnumAdapters1(0).GetDesc1().Description
    print(f"image_to_tensor.s on {adapter}: R8G8B8A8_UNORM Texture2D -> FLOAT16 NCHW (execute + wait, incl. copy-out)")
    for size in sizes:
        measure(size)


if __name__ == "__main__":
    main()
