"""SAXPY and a divergent kernel as D3D12 compute shaders: root signature, pipeline state, Dispatch.

    python examples/saxpy_dispatch.py          (from the repository root)

The kernels are the assembly files examples/kernels/saxpy.s (y = a * x + y) and
examples/kernels/collatz.s (a loop whose lanes leave at different trips, with an if/else inside).
This program does what a D3D12 compute program does, call for call: assemble the shader (here
with dmlemu.isa.shader_binary, what `dmlemu asm` does), serialize and create a root signature,
create a compute pipeline state, upload the inputs, set the pipeline, the root signature and the
root arguments (two root constants, a root SRV and a descriptor table holding a UAV), Dispatch,
and read the result back. Both are checked bit for bit against NumPy.

The root signature:   parameter 0  32BIT_CONSTANTS b0, 2 values (n, then a or the step limit)
                      parameter 1  root SRV t0 (x)
                      parameter 2  descriptor table: one UAV range u0 (y, or the step counts)
"""
import os

import numpy as np

from dmlemu.d3d12 import *  # noqa: F401,F403
from dmlemu.isa.shader_binary import assemble_shader

KERNELS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "kernels")
GROUP = 64                     # the kernels' .numthreads X


def shader_bytecode(name):
    """The compute shader binary of examples/kernels/<name>.s."""
    path = os.path.join(KERNELS, f"{name}.s")
    with open(path, encoding="utf-8") as f:
        return assemble_shader(f.read(), filename=path).to_bytes()


def root_signature_desc():
    return D3D12_ROOT_SIGNATURE_DESC(pParameters=[
        D3D12_ROOT_PARAMETER(ParameterType=D3D12_ROOT_PARAMETER_TYPE_32BIT_CONSTANTS,
                             Constants=D3D12_ROOT_CONSTANTS(ShaderRegister=0, RegisterSpace=0, Num32BitValues=2),
                             ShaderVisibility=D3D12_SHADER_VISIBILITY_ALL),
        D3D12_ROOT_PARAMETER(ParameterType=D3D12_ROOT_PARAMETER_TYPE_SRV,
                             Descriptor=D3D12_ROOT_DESCRIPTOR(ShaderRegister=0, RegisterSpace=0),
                             ShaderVisibility=D3D12_SHADER_VISIBILITY_ALL),
        D3D12_ROOT_PARAMETER(ParameterType=D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE,
                             DescriptorTable=D3D12_ROOT_DESCRIPTOR_TABLE(pDescriptorRanges=[
                                 D3D12_DESCRIPTOR_RANGE(RangeType=D3D12_DESCRIPTOR_RANGE_TYPE_UAV, NumDescriptors=1,
                                                        BaseShaderRegister=0, RegisterSpace=0,
                                                        OffsetInDescriptorsFromTableStart=0)]),
                             ShaderVisibility=D3D12_SHADER_VISIBILITY_ALL)],
        Flags=D3D12_ROOT_SIGNATURE_FLAG_NONE)


def run_kernel(name, x, y, constant, device=None):
    """Run examples/kernels/<name>.s over x (read through a root SRV) and y (read and written through a
    UAV in a descriptor table), with root constants (len(x), constant); returns y afterwards. `device`:
    a D3D12 device to run on (default: a new one on the default adapter)."""
    x, y = np.ascontiguousarray(x), np.ascontiguousarray(y)
    n, size = x.size, max(4, x.nbytes)
    device = device or D3D12CreateDevice(None, D3D_FEATURE_LEVEL_11_0)
    queue = device.CreateCommandQueue(D3D12_COMMAND_QUEUE_DESC(Type=D3D12_COMMAND_LIST_TYPE_COMPUTE))
    allocator = device.CreateCommandAllocator(D3D12_COMMAND_LIST_TYPE_COMPUTE)
    command_list = device.CreateCommandList(0, D3D12_COMMAND_LIST_TYPE_COMPUTE, allocator, None)

    blob = D3D12SerializeRootSignature(root_signature_desc(), D3D_ROOT_SIGNATURE_VERSION_1)
    root_signature = device.CreateRootSignature(0, blob.GetBufferPointer(), blob.GetBufferSize())
    bytecode = shader_bytecode(name)
    pipeline = device.CreateComputePipelineState(D3D12_COMPUTE_PIPELINE_STATE_DESC(
        pRootSignature=root_signature, CS=D3D12_SHADER_BYTECODE(bytecode, len(bytecode))))

    def buffer(heap, state, flags=D3D12_RESOURCE_FLAG_NONE):
        return device.CreateCommittedResource(CD3DX12_HEAP_PROPERTIES(heap), D3D12_HEAP_FLAG_NONE,
                                              CD3DX12_RESOURCE_DESC.Buffer(size, flags), state, None)

    upload_x = buffer(D3D12_HEAP_TYPE_UPLOAD, D3D12_RESOURCE_STATE_GENERIC_READ)
    upload_y = buffer(D3D12_HEAP_TYPE_UPLOAD, D3D12_RESOURCE_STATE_GENERIC_READ)
    x_buffer = buffer(D3D12_HEAP_TYPE_DEFAULT, D3D12_RESOURCE_STATE_COPY_DEST)
    y_buffer = buffer(D3D12_HEAP_TYPE_DEFAULT, D3D12_RESOURCE_STATE_COPY_DEST, D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS)
    readback = buffer(D3D12_HEAP_TYPE_READBACK, D3D12_RESOURCE_STATE_COPY_DEST)
    for upload, array in ((upload_x, x), (upload_y, y)):
        mapped = upload.Map(0, None)
        mapped[:array.nbytes] = array.view(np.uint8).reshape(-1)
        upload.Unmap(0, None)

    heap = device.CreateDescriptorHeap(D3D12_DESCRIPTOR_HEAP_DESC(
        Type=D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, NumDescriptors=1, Flags=D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE))
    device.CreateUnorderedAccessView(y_buffer, None, D3D12_UNORDERED_ACCESS_VIEW_DESC(
        Format=DXGI_FORMAT_R32_TYPELESS, ViewDimension=D3D12_UAV_DIMENSION_BUFFER,
        Buffer=D3D12_BUFFER_UAV(FirstElement=0, NumElements=size // 4, Flags=D3D12_BUFFER_UAV_FLAG_RAW)),
        heap.GetCPUDescriptorHandleForHeapStart())

    command_list.CopyBufferRegion(x_buffer, 0, upload_x, 0, size)
    command_list.CopyBufferRegion(y_buffer, 0, upload_y, 0, size)
    command_list.ResourceBarrier([
        CD3DX12_RESOURCE_BARRIER.Transition(x_buffer, D3D12_RESOURCE_STATE_COPY_DEST,
                                            D3D12_RESOURCE_STATE_NON_PIXEL_SHADER_RESOURCE),
        CD3DX12_RESOURCE_BARRIER.Transition(y_buffer, D3D12_RESOURCE_STATE_COPY_DEST,
                                            D3D12_RESOURCE_STATE_UNORDERED_ACCESS)])
    command_list.SetPipelineState(pipeline)
    command_list.SetComputeRootSignature(root_signature)
    command_list.SetDescriptorHeaps([heap])
    value = np.float32(constant) if isinstance(constant, float) else np.uint32(constant)
    command_list.SetComputeRoot32BitConstants(0, 2, np.uint32(n).tobytes() + value.tobytes(), 0)   # n, then a / limit
    command_list.SetComputeRootShaderResourceView(1, x_buffer.GetGPUVirtualAddress())
    command_list.SetComputeRootDescriptorTable(2, heap.GetGPUDescriptorHandleForHeapStart())
    command_list.Dispatch(-(-n // GROUP), 1, 1)
    command_list.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.Transition(
        y_buffer, D3D12_RESOURCE_STATE_UNORDERED_ACCESS, D3D12_RESOURCE_STATE_COPY_SOURCE)])
    command_list.CopyBufferRegion(readback, 0, y_buffer, 0, size)
    command_list.Close()
    queue.ExecuteCommandLists([command_list])
    fence = device.CreateFence(0, D3D12_FENCE_FLAG_NONE)
    queue.Signal(fence, 1)
    fence.SetEventOnCompletion(1, None)
    mapped = readback.Map(0, None)
    out = np.array(mapped[:y.nbytes]).view(y.dtype).copy()
    readback.Unmap(0, None)
    return out


def saxpy(a, x, y, device=None):
    """y = a * x + y on the emulated GPU (FLOAT32)."""
    return run_kernel("saxpy", x.astype(np.float32), y.astype(np.float32), float(a), device)


def collatz_steps(x, limit):
    """The Collatz step counts of x (UINT32), at most `limit` each, on the emulated GPU."""
    return run_kernel("collatz", x.astype(np.uint32), np.zeros(x.size, np.uint32), int(limit))


def numpy_saxpy(a, x, y):
    """The reference: a product and a sum, each rounded to FLOAT32 (v_mad_f32 is not fused)."""
    return (np.float32(a) * x.astype(np.float32)).astype(np.float32) + y.astype(np.float32)


def numpy_collatz_steps(x, limit):
    x = x.astype(np.uint32).copy()
    steps = np.zeros(x.size, np.uint32)
    with np.errstate(over="ignore"):
        while True:
            going = (x > 1) & (steps < limit)
            if not going.any():
                return steps
            odd = (x & 1) == 1
            x = np.where(going & odd, x * np.uint32(3) + np.uint32(1), np.where(going, x >> 1, x))
            steps = steps + going.astype(np.uint32)


def main():
    rng = np.random.default_rng(7)
    n = 1000
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    a = 2.5
    got = saxpy(a, x, y)
    want = numpy_saxpy(a, x, y)
    print(f"saxpy: y = {a} * x + y over {n} elements in {-(-n // GROUP)} groups of {GROUP}")
    print("  first values:", " ".join(f"{v:.4f}" for v in got[:6]))
    if not np.array_equal(got.view(np.uint32), want.view(np.uint32)):
        raise SystemExit("saxpy differs from NumPy")
    values = np.arange(1, 200, dtype=np.uint32)
    steps = collatz_steps(values, 500)
    print("collatz: steps of 1 .. 12:", " ".join(str(s) for s in steps[:12]))
    if not np.array_equal(steps, numpy_collatz_steps(values, 500)):
        raise SystemExit("collatz differs from NumPy")
    print("both kernels are bit-exact against dmlemu.golden's rules (NumPy float32 and uint32 arithmetic).")


if __name__ == "__main__":
    main()
