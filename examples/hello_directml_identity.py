"""HelloDirectML, ported line by line to the dmlemu mirror of DirectML and D3D12.

Microsoft's HelloDirectML sample runs DML_OPERATOR_ELEMENT_WISE_IDENTITY on a FLOAT32 tensor of
Sizes {1, 2, 3, 4}: 24 values of 1.618 go in and the same 24 values come out. This is that program,
call for call, in Python: create the D3D12 device, command queue, allocator and list; create the
DirectML device; create and compile the operator; initialize it; bind its resources through a
descriptor heap and a binding table; record the dispatch; execute; wait on a fence; read back.

    python examples/hello_directml_identity.py          (from the repository root)

The names are the C names (ID3D12Device::CreateCommittedResource is device.CreateCommittedResource,
out-parameters are return values, and a failing HRESULT raises dmlemu.HResultError), so the program
ports back to C++ line by line. Run it on another emulated GPU by picking an adapter:
CreateDXGIFactory1().EnumAdapters1(i) (see `dmlemu adapters`).
"""
import numpy as np

from dmlemu import golden
from dmlemu.d3d12 import *  # noqa: F401,F403
from dmlemu.directml import *  # noqa: F401,F403


def CloseExecuteResetWait(d3D12Device, commandQueue, commandAllocator, commandList):
    commandList.Close()
    commandQueue.ExecuteCommandLists([commandList])
    fence = d3D12Device.CreateFence(0, D3D12_FENCE_FLAG_NONE)
    commandQueue.Signal(fence, 1)
    fence.SetEventOnCompletion(1, None)   # a None event blocks until the GPU reaches the fence value
    commandAllocator.Reset()
    commandList.Reset(commandAllocator, None)


def main():
    # Set up Direct3D 12: the default adapter (the emulator's default GPU preset).
    d3D12Device = D3D12CreateDevice(None, D3D_FEATURE_LEVEL_11_0)
    commandQueue = d3D12Device.CreateCommandQueue(D3D12_COMMAND_QUEUE_DESC(
        Type=D3D12_COMMAND_LIST_TYPE_DIRECT, Flags=D3D12_COMMAND_QUEUE_FLAG_NONE))
    commandAllocator = d3D12Device.CreateCommandAllocator(D3D12_COMMAND_LIST_TYPE_DIRECT)
    commandList = d3D12Device.CreateCommandList(0, D3D12_COMMAND_LIST_TYPE_DIRECT, commandAllocator, None)

    # Create the DirectML device (with the debug layer: misuse is reported at once).
    dmlDevice = DMLCreateDevice(d3D12Device, DML_CREATE_DEVICE_FLAG_DEBUG)

    tensorSizes = [1, 2, 3, 4]
    tensorBufferSize = DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT32, 4, tensorSizes, None)
    dmlBufferTensorDesc = DML_BUFFER_TENSOR_DESC(
        DataType=DML_TENSOR_DATA_TYPE_FLOAT32, Flags=DML_TENSOR_FLAG_NONE, DimensionCount=len(tensorSizes),
        Sizes=tensorSizes, Strides=None, TotalTensorSizeInBytes=tensorBufferSize, GuaranteedBaseOffsetAlignment=0)
    dmlTensorDesc = DML_TENSOR_DESC(Type=DML_TENSOR_TYPE_BUFFER, Desc=dmlBufferTensorDesc)

    # Create the DirectML operator: the identity operator, f(x) = x.
    dmlIdentityOperatorDesc = DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC(
        InputTensor=dmlTensorDesc, OutputTensor=dmlTensorDesc, ScaleBias=None)
    dmlOperatorDesc = DML_OPERATOR_DESC(Type=DML_OPERATOR_ELEMENT_WISE_IDENTITY, Desc=dmlIdentityOperatorDesc)
    dmlOperator = dmlDevice.CreateOperator(dmlOperatorDesc)

    # Compile the operator into an object that can be dispatched to the GPU.
    dmlCompiledOperator = dmlDevice.CompileOperator(dmlOperator, DML_EXECUTION_FLAG_NONE)

    dmlOperatorInitializer = dmlDevice.CreateOperatorInitializer([dmlCompiledOperator])

    # Query the operator for the required size (in descriptors) of its binding table.
    initializeBindingProperties = dmlOperatorInitializer.GetBindingProperties()
    executeBindingProperties = dmlCompiledOperator.GetBindingProperties()
    descriptorCount = max(initializeBindingProperties.RequiredDescriptorCount,
                          executeBindingProperties.RequiredDescriptorCount)

    # Create descriptor heaps.
    descriptorHeap = d3D12Device.CreateDescriptorHeap(D3D12_DESCRIPTOR_HEAP_DESC(
        Type=D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, NumDescriptors=descriptorCount,
        Flags=D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE, NodeMask=0))

    # Set the descriptor heap(s).
    commandList.SetDescriptorHeaps([descriptorHeap])

    # Create a binding table over the descriptor heap we just created.
    dmlBindingTableDesc = DML_BINDING_TABLE_DESC(
        Dispatchable=dmlOperatorInitializer,
        CPUDescriptorHandle=descriptorHeap.GetCPUDescriptorHandleForHeapStart(),
        GPUDescriptorHandle=descriptorHeap.GetGPUDescriptorHandleForHeapStart(),
        SizeInDescriptors=descriptorCount)
    dmlBindingTable = dmlDevice.CreateBindingTable(dmlBindingTableDesc)

    # Create the temporary and persistent resources that are necessary for executing an operator.
    temporaryResourceSize = max(initializeBindingProperties.TemporaryResourceSize,
                                executeBindingProperties.TemporaryResourceSize)
    persistentResourceSize = executeBindingProperties.PersistentResourceSize

    def CreateDefaultBuffer(size):
        return d3D12Device.CreateCommittedResource(
            CD3DX12_HEAP_PROPERTIES(D3D12_HEAP_TYPE_DEFAULT), D3D12_HEAP_FLAG_NONE,
            CD3DX12_RESOURCE_DESC.Buffer(size, D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS),
            D3D12_RESOURCE_STATE_COMMON, None)

    # Bind and initialize the operator on the GPU.
    temporaryBuffer = persistentBuffer = None
    if temporaryResourceSize != 0:
        temporaryBuffer = CreateDefaultBuffer(temporaryResourceSize)
        if initializeBindingProperties.TemporaryResourceSize != 0:
            dmlBindingTable.BindTemporaryResource(DML_BINDING_DESC(
                Type=DML_BINDING_TYPE_BUFFER,
                Desc=DML_BUFFER_BINDING(Buffer=temporaryBuffer, Offset=0, SizeInBytes=temporaryResourceSize)))
    if persistentResourceSize != 0:
        persistentBuffer = CreateDefaultBuffer(persistentResourceSize)
        # The persistent resource should be bound as the output to the operator initializer.
        dmlBindingTable.BindOutputs([DML_BINDING_DESC(
            Type=DML_BINDING_TYPE_BUFFER,
            Desc=DML_BUFFER_BINDING(Buffer=persistentBuffer, Offset=0, SizeInBytes=persistentResourceSize))])

    # The command recorder is a stateless object that records Dispatches into an existing command list.
    dmlCommandRecorder = dmlDevice.CreateCommandRecorder()

    # Record execution of the operator initializer.
    dmlCommandRecorder.RecordDispatch(commandList, dmlOperatorInitializer, dmlBindingTable)

    # Execute it, and wait for the GPU to finish.
    CloseExecuteResetWait(d3D12Device, commandQueue, commandAllocator, commandList)

    commandList.SetDescriptorHeaps([descriptorHeap])

    # Reset the binding table to bind for the operator we want to execute (it was used for the initializer).
    dmlBindingTableDesc.Dispatchable = dmlCompiledOperator
    dmlBindingTable.Reset(dmlBindingTableDesc)

    if temporaryResourceSize != 0:
        dmlBindingTable.BindTemporaryResource(DML_BINDING_DESC(
            Type=DML_BINDING_TYPE_BUFFER,
            Desc=DML_BUFFER_BINDING(Buffer=temporaryBuffer, Offset=0, SizeInBytes=temporaryResourceSize)))
    if persistentResourceSize != 0:
        dmlBindingTable.BindPersistentResource(DML_BINDING_DESC(
            Type=DML_BINDING_TYPE_BUFFER,
            Desc=DML_BUFFER_BINDING(Buffer=persistentBuffer, Offset=0, SizeInBytes=persistentResourceSize)))

    # Create tensor buffers for upload/input/output/readback of the tensor elements.
    uploadBuffer = d3D12Device.CreateCommittedResource(
        CD3DX12_HEAP_PROPERTIES(D3D12_HEAP_TYPE_UPLOAD), D3D12_HEAP_FLAG_NONE,
        CD3DX12_RESOURCE_DESC.Buffer(tensorBufferSize), D3D12_RESOURCE_STATE_GENERIC_READ, None)
    inputBuffer = d3D12Device.CreateCommittedResource(
        CD3DX12_HEAP_PROPERTIES(D3D12_HEAP_TYPE_DEFAULT), D3D12_HEAP_FLAG_NONE,
        CD3DX12_RESOURCE_DESC.Buffer(tensorBufferSize, D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS),
        D3D12_RESOURCE_STATE_COPY_DEST, None)

    tensorElementCount = tensorBufferSize // 4
    inputTensorElementArray = np.full(tensorElementCount, 1.618, dtype=np.float32)
    print("input tensor: " + " ".join(f"{element:.4f}" for element in inputTensorElementArray))

    # Copy the input through the upload heap (the sample's UpdateSubresources).
    mapped = uploadBuffer.Map(0, None)
    mapped[:tensorBufferSize] = inputTensorElementArray.view(np.uint8)
    uploadBuffer.Unmap(0, None)
    commandList.CopyBufferRegion(inputBuffer, 0, uploadBuffer, 0, tensorBufferSize)
    commandList.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.Transition(
        inputBuffer, D3D12_RESOURCE_STATE_COPY_DEST, D3D12_RESOURCE_STATE_UNORDERED_ACCESS)])

    inputBufferBinding = DML_BUFFER_BINDING(Buffer=inputBuffer, Offset=0, SizeInBytes=tensorBufferSize)
    dmlBindingTable.BindInputs([DML_BINDING_DESC(Type=DML_BINDING_TYPE_BUFFER, Desc=inputBufferBinding)])

    outputBuffer = d3D12Device.CreateCommittedResource(
        CD3DX12_HEAP_PROPERTIES(D3D12_HEAP_TYPE_DEFAULT), D3D12_HEAP_FLAG_NONE,
        CD3DX12_RESOURCE_DESC.Buffer(tensorBufferSize, D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS),
        D3D12_RESOURCE_STATE_UNORDERED_ACCESS, None)
    outputBufferBinding = DML_BUFFER_BINDING(Buffer=outputBuffer, Offset=0, SizeInBytes=tensorBufferSize)
    dmlBindingTable.BindOutputs([DML_BINDING_DESC(Type=DML_BINDING_TYPE_BUFFER, Desc=outputBufferBinding)])

    # Record execution of the compiled operator.
    dmlCommandRecorder.RecordDispatch(commandList, dmlCompiledOperator, dmlBindingTable)
    CloseExecuteResetWait(d3D12Device, commandQueue, commandAllocator, commandList)

    # The output buffer now contains the result of the identity operator, so read it back.
    readbackBuffer = d3D12Device.CreateCommittedResource(
        CD3DX12_HEAP_PROPERTIES(D3D12_HEAP_TYPE_READBACK), D3D12_HEAP_FLAG_NONE,
        CD3DX12_RESOURCE_DESC.Buffer(tensorBufferSize), D3D12_RESOURCE_STATE_COPY_DEST, None)
    commandList.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.Transition(
        outputBuffer, D3D12_RESOURCE_STATE_UNORDERED_ACCESS, D3D12_RESOURCE_STATE_COPY_SOURCE)])
    commandList.CopyResource(readbackBuffer, outputBuffer)
    CloseExecuteResetWait(d3D12Device, commandQueue, commandAllocator, commandList)

    outputBufferData = readbackBuffer.Map(0, None)[:tensorBufferSize].copy().view(np.float32)
    readbackBuffer.Unmap(0, None)
    print("output tensor: " + " ".join(f"{element:.4f}" for element in outputBufferData))

    # dmlemu's addition: the output must equal the golden model's, bit for bit.
    expected = golden.identity(inputTensorElementArray)
    if not np.array_equal(outputBufferData.view(np.uint32), expected.view(np.uint32)):
        raise SystemExit(f"IDENTITY output differs from dmlemu.golden:\n got      {outputBufferData}\n "
                         f"expected {expected}")
    print(f"{tensorElementCount} values, bit-exact against dmlemu.golden.")


if __name__ == "__main__":
    main()
