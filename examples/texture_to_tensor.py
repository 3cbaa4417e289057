"""An image in a Texture2D becomes a DirectML tensor: the samples' image -> tensor step, with copies and strides.

DirectML's samples (SuperResolution, yolov4, style transfer) keep images in R8G8B8A8_UNORM textures and
convert them to NCHW tensors. This program does the D3D12 half as they do it, on the mirror's textures,
and lets DirectML strides do the layout change instead of a conversion shader:

1. an R8G8B8A8_UNORM Texture2D (DEFAULT heap) gets an image through an UPLOAD buffer
   (UpdateSubresources: GetCopyableFootprints' layout, one CopyTextureRegion);
2. CopyTextureRegion copies the texture into a DEFAULT buffer at a PLACED_FOOTPRINT: rows RowPitch
   (a multiple of 256) apart, with padding after each row;
3. DML_OPERATOR_CAST reads that buffer as a UINT8 tensor of Sizes {1, 4, H, W} with Strides
   {0, 1, RowPitch, 4} (channel c of pixel (y, x) is byte y * RowPitch + x * 4 + c: the padding is
   skipped by the strides) and writes a packed FLOAT32 NCHW tensor;
4. the tensor is read back and checked bit for bit against dmlemu.golden's CAST of the image.

    python examples/texture_to_tensor.py          (from the repository root)
"""
import numpy as np

from dmlemu import golden
from dmlemu.d3d12 import *  # noqa: F401,F403
from dmlemu.directml import *  # noqa: F401,F403

HEIGHT, WIDTH = 5, 37          # 37 RGBA8 texels = 148 bytes a row: the footprint pads each row to 256


def close_execute_reset_wait(device, queue, allocator, command_list):
    command_list.Close()
    queue.ExecuteCommandLists([command_list])
    fence = device.CreateFence(0, D3D12_FENCE_FLAG_NONE)
    queue.Signal(fence, 1)
    fence.SetEventOnCompletion(1, None)
    allocator.Reset()
    command_list.Reset(allocator, None)


def buffer(device, size, heap_type, state, flags=D3D12_RESOURCE_FLAG_NONE):
    return device.CreateCommittedResource(CD3DX12_HEAP_PROPERTIES(heap_type), D3D12_HEAP_FLAG_NONE,
                                          CD3DX12_RESOURCE_DESC.Buffer(size, flags), state, None)


def main():
    device = D3D12CreateDevice(None, D3D_FEATURE_LEVEL_11_0)
    queue = device.CreateCommandQueue(D3D12_COMMAND_QUEUE_DESC(Type=D3D12_COMMAND_LIST_TYPE_DIRECT))
    allocator = device.CreateCommandAllocator(D3D12_COMMAND_LIST_TYPE_DIRECT)
    command_list = device.CreateCommandList(0, D3D12_COMMAND_LIST_TYPE_DIRECT, allocator, None)
    image = np.random.default_rng(7).integers(0, 256, (HEIGHT, WIDTH, 4), dtype=np.uint8)

    # 1. The image into a texture, through an upload buffer (d3dx12's UpdateSubresources).
    texture_desc = CD3DX12_RESOURCE_DESC.Tex2D(DXGI_FORMAT_R8G8B8A8_UNORM, WIDTH, HEIGHT, 1, 1)
    texture = device.CreateCommittedResource(CD3DX12_HEAP_PROPERTIES(D3D12_HEAP_TYPE_DEFAULT), D3D12_HEAP_FLAG_NONE,
                                             texture_desc, D3D12_RESOURCE_STATE_COPY_DEST, None)
    upload = buffer(device, GetRequiredIntermediateSize(texture, 0, 1), D3D12_HEAP_TYPE_UPLOAD,
                    D3D12_RESOURCE_STATE_GENERIC_READ)
    UpdateSubresources(command_list, texture, upload, 0, 0, 1, [D3D12_SUBRESOURCE_DATA(
        pData=image.tobytes(), RowPitch=WIDTH * 4, SlicePitch=WIDTH * 4 * HEIGHT)])
    command_list.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.Transition(
        texture, D3D12_RESOURCE_STATE_COPY_DEST, D3D12_RESOURCE_STATE_COPY_SOURCE)])

    # 2. The texture into a buffer at its footprint (rows RowPitch apart).
    (layout,), _, _, total = device.GetCopyableFootprints(texture_desc, 0, 1, 0)
    pitch = layout.Footprint.RowPitch
    sizes, strides = [1, 4, HEIGHT, WIDTH], [0, 1, pitch, 4]
    input_size = DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_UINT8, 4, sizes, strides)
    input_size = -(-input_size // 4) * 4
    pixels = buffer(device, max(input_size, total), D3D12_HEAP_TYPE_DEFAULT, D3D12_RESOURCE_STATE_COPY_DEST,
                    D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS)
    command_list.CopyTextureRegion(CD3DX12_TEXTURE_COPY_LOCATION(pixels, layout), 0, 0, 0,
                                   CD3DX12_TEXTURE_COPY_LOCATION(texture, 0), None)
    command_list.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.Transition(
        pixels, D3D12_RESOURCE_STATE_COPY_DEST, D3D12_RESOURCE_STATE_UNORDERED_ACCESS)])

    # 3. CAST the strided UINT8 view of the rows into a packed FLOAT32 NCHW tensor.
    dml = DMLCreateDevice(device, DML_CREATE_DEVICE_FLAG_DEBUG)
    output_size = DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT32, 4, sizes, None)
    input_tensor = DML_TENSOR_DESC(Type=DML_TENSOR_TYPE_BUFFER, Desc=DML_BUFFER_TENSOR_DESC(
        DataType=DML_TENSOR_DATA_TYPE_UINT8, Flags=DML_TENSOR_FLAG_NONE, Sizes=sizes, Strides=strides,
        TotalTensorSizeInBytes=input_size))
    output_tensor = DML_TENSOR_DESC(Type=DML_TENSOR_TYPE_BUFFER, Desc=DML_BUFFER_TENSOR_DESC(
        DataType=DML_TENSOR_DATA_TYPE_FLOAT32, Flags=DML_TENSOR_FLAG_NONE, Sizes=sizes, Strides=None,
        TotalTensorSizeInBytes=output_size))
    operator = dml.CreateOperator(DML_OPERATOR_DESC(Type=DML_OPERATOR_CAST, Desc=DML_CAST_OPERATOR_DESC(
        InputTensor=input_tensor, OutputTensor=output_tensor)))
    compiled = dml.CompileOperator(operator, DML_EXECUTION_FLAG_NONE)
    initializer = dml.CreateOperatorInitializer([compiled])
    count = max(initializer.GetBindingProperties().RequiredDescriptorCount,
                compiled.GetBindingProperties().RequiredDescriptorCount)
    heap = device.CreateDescriptorHeap(D3D12_DESCRIPTOR_HEAP_DESC(
        Type=D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, NumDescriptors=count, Flags=D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE))
    table_desc = DML_BINDING_TABLE_DESC(Dispatchable=initializer,
                                        CPUDescriptorHandle=heap.GetCPUDescriptorHandleForHeapStart(),
                                        GPUDescriptorHandle=heap.GetGPUDescriptorHandleForHeapStart(),
                                        SizeInDescriptors=count)
    table = dml.CreateBindingTable(table_desc)
    recorder = dml.CreateCommandRecorder()
    command_list.SetDescriptorHeaps([heap])
    recorder.RecordDispatch(command_list, initializer, table)     # CAST keeps nothing: an empty initializer
    close_execute_reset_wait(device, queue, allocator, command_list)  # before the table's slots are rebound
    command_list.SetDescriptorHeaps([heap])
    table_desc.Dispatchable = compiled
    table.Reset(table_desc)
    output = buffer(device, output_size, D3D12_HEAP_TYPE_DEFAULT, D3D12_RESOURCE_STATE_UNORDERED_ACCESS,
                    D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS)
    table.BindInputs([DML_BINDING_DESC(Type=DML_BINDING_TYPE_BUFFER, Desc=DML_BUFFER_BINDING(
        Buffer=pixels, Offset=0, SizeInBytes=input_size))])
    table.BindOutputs([DML_BINDING_DESC(Type=DML_BINDING_TYPE_BUFFER, Desc=DML_BUFFER_BINDING(
        Buffer=output, Offset=0, SizeInBytes=output_size))])
    recorder.RecordDispatch(command_list, compiled, table)

    # 4. Read the tensor back.
    readback = buffer(device, output_size, D3D12_HEAP_TYPE_READBACK, D3D12_RESOURCE_STATE_COPY_DEST)
    command_list.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.Transition(
        output, D3D12_RESOURCE_STATE_UNORDERED_ACCESS, D3D12_RESOURCE_STATE_COPY_SOURCE)])
    command_list.CopyResource(readback, output)
    close_execute_reset_wait(device, queue, allocator, command_list)
    tensor = readback.Map(0, None)[:output_size].copy().view(np.float32).reshape(sizes)
    readback.Unmap(0, None)

    print(f"{WIDTH} x {HEIGHT} R8G8B8A8_UNORM texture, footprint RowPitch {pitch} (rows of {WIDTH * 4} bytes)")
    print("pixel (0, 0):", image[0, 0].tolist(), "-> tensor[0, :, 0, 0]:", tensor[0, :, 0, 0].tolist())
    expected = golden.cast(image.transpose(2, 0, 1)[None], np.float32)
    if not np.array_equal(tensor.view(np.uint32), expected.view(np.uint32)):
        raise SystemExit(f"the tensor differs from dmlemu.golden's CAST of the image:\n got {tensor}\n "
                         f"expected {expected}")
    print(f"{tensor.size} values, bit-exact against dmlemu.golden.")


if __name__ == "__main__":
    main()
