"""DirectMLSuperResolution's binding code and render path, ported call for call, on a small random-weight model.

    python examples/super_resolution.py            (from the repository root)
    python examples/super_resolution.py --strict   (DMLEMU_STRICT_HOST=1: the sample's latent bug shows)

Microsoft's DirectMLSuperResolution sample (DirectML-Samples, the version without DirectMLX) upscales an
image 2x with 2 upsample layers, 7 convolutions and a residual add, one IDMLCompiledOperator each, and
one IDMLOperatorInitializer per kind (upsample, convolution, add). `Sample::InitializeDirectMLResources`
is what this program ports: the descriptor heap is sized with `GetDescriptorCount` (the largest of the
initializer's and each operator's RequiredDescriptorCount, per operator), each initializer's binding table
is made at its kind's first slot, bound (persistent resources as outputs, NONE where an operator needs
none) and recorded, and then each operator's execute binding table is made **on the same slots**, all in
one command list that is executed afterwards. The sample's comment says initialization and execution
"happen at different times, so we reuse the same descriptor slots", but the execute tables are bound
before the initializers execute: it works on real drivers because DirectML's upsample, convolution (with
weights it does not own) and add keep no persistent resource, so their initialization reads no descriptor.

`Sample::Render` then does what the sample does each frame, on the GPU:
1. the image, an R8G8B8A8_UNORM Texture2D, becomes the model's FLOAT16 NCHW input tensor in a compute
   shader (examples/kernels/image_to_tensor.s: image_load through a typed SRV, UNORM -> float32 -> FLOAT16);
2. the 10 DirectML dispatches with UAV barriers between them: DML_OPERATOR_UPSAMPLE_2D (nearest neighbour,
   2x), DML_OPERATOR_CONVOLUTION (3 x 3, padding 1, bias; RELU fused on all but the last), the second upsample
   after the third convolution, DML_OPERATOR_ELEMENT_WISE_ADD of the residual in place on the upsampled image;
3. the output tensor becomes an R8G8B8A8_UNORM Texture2D in a second shader (examples/kernels/tensor_to_image.s:
   image_store through a typed UAV, FLOAT16 -> float32 -> UNORM), read back with CopyTextureRegion.
The weights are random (the sample loads trained ones from a file) and the channels stay 3 throughout, so
that the example runs in seconds; the layers, their order, the bindings and the shaders are the sample's.
The tensor and the image are checked bit for bit against NumPy (the layers written out in float32 as
docs/NUMERICS.md orders them) and dmlemu.golden. The D3D12 debug layer is on, as in the sample's debug
build, with the info queue's break on errors off (as a test harness sets it): the messages are read from
the queue at the end.

By default (driver-like binding properties) the program runs to the right output and the DirectML debug
layer warns about the shared slots. With --strict every operator reports a persistent resource, the
initializers read the slots the execute tables overwrote, and the debug layer reports it (the
initialization writes into the wrong buffers; the device is removed at the first dispatch).
"""
import os
import sys
from dataclasses import dataclass

import numpy as np

from dmlemu import golden
from dmlemu.d3d12 import *  # noqa: F401,F403
from dmlemu.directml import *  # noqa: F401,F403
from dmlemu.isa.shader_binary import assemble_shader

C, H, W = 3, 8, 8                         # the model input: 1 x 3 x H x W, FLOAT16
NUM_UPSAMPLE_LAYERS, NUM_CONV_LAYERS = 2, 7
E_OP_UPSAMPLE, E_OP_CONV, E_OP_ADD = range(3)
KERNEL = 3                                # every convolution: C -> C channels, 3 x 3, padding 1, stride 1
RELU = [True] * (NUM_CONV_LAYERS - 1) + [False]   # RELU fused on every convolution but the last (the residual)
KERNELS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "kernels")
GROUP = 8                                 # the conversion shaders' .numthreads 8, 8, 1


def weights(seed=29):
    """Random FLOAT16 filters {C, C, 3, 3} and biases {1, C, 1, 1}, one pair per convolution."""
    rng = np.random.default_rng(seed)
    return [(rng.uniform(-0.5, 0.5, (C, C, KERNEL, KERNEL)).astype(np.float16),
             rng.uniform(-0.25, 0.25, (1, C, 1, 1)).astype(np.float16)) for _ in range(NUM_CONV_LAYERS)]


def tensor_desc(sizes, strides=None):
    return DML_TENSOR_DESC(Type=DML_TENSOR_TYPE_BUFFER, Desc=DML_BUFFER_TENSOR_DESC(
        DataType=DML_TENSOR_DATA_TYPE_FLOAT16, Flags=DML_TENSOR_FLAG_NONE, Sizes=list(sizes), Strides=strides,
        TotalTensorSizeInBytes=DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT16, len(sizes), list(sizes),
                                                       strides)))


class DescriptorHeap:
    """DirectXTK12's DescriptorHeap, as the sample uses it: GetCpuHandle(i), GetGpuHandle(i), Heap()."""

    def __init__(self, device, count):
        self.heap = device.CreateDescriptorHeap(D3D12_DESCRIPTOR_HEAP_DESC(
            Type=D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, NumDescriptors=count,
            Flags=D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE, NodeMask=0))
        self.increment = device.GetDescriptorHandleIncrementSize(D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV)

    def GetCpuHandle(self, index):
        return D3D12_CPU_DESCRIPTOR_HANDLE(ptr=self.heap.GetCPUDescriptorHandleForHeapStart().ptr + index * self.increment)

    def GetGpuHandle(self, index):
        return D3D12_GPU_DESCRIPTOR_HANDLE(ptr=self.heap.GetGPUDescriptorHandleForHeapStart().ptr + index * self.increment)

    def Heap(self):
        return self.heap


def GetDescriptorCount(ops, initializer):
    """The sample's GetDescriptorCount: enough slots per operator for its initialization and its execution."""
    count = initializer.GetBindingProperties().RequiredDescriptorCount
    for op in ops:
        count = max(count, op.GetBindingProperties().RequiredDescriptorCount)
    return count


@dataclass
class Result:
    output: np.ndarray            # 1 x 3 x 2H x 2W FLOAT16 model output, read back
    expected: np.ndarray          # NumPy's
    golden: np.ndarray            # dmlemu.golden's, operator by operator
    image: np.ndarray             # 2H x 2W x 4 uint8: the output texture (tensor_to_image.s), read back
    expected_image: np.ndarray    # NumPy's conversion of `expected`
    messages: list                # (severity name, text) of every message in the D3D12 device's info queue
    dml_removed_reason: int       # IDMLDevice::GetDeviceRemovedReason


def shader_bytecode(name):
    path = os.path.join(KERNELS, f"{name}.s")
    with open(path, encoding="utf-8") as f:
        return assemble_shader(f.read(), filename=path).to_bytes()


class Sample:
    def __init__(self):
        D3D12GetDebugInterface().EnableDebugLayer()     # the sample's _DEBUG build
        self.device = D3D12CreateDevice(None, D3D_FEATURE_LEVEL_11_0)
        self.info_queue = self.device.QueryInterface(IID_ID3D12InfoQueue1)
        self.info_queue.SetMuteDebugOutput(True)        # main() prints them
        # As a test harness does (DxDispatch): report errors and go on; the messages are read at the end.
        self.info_queue.SetBreakOnSeverity(D3D12_MESSAGE_SEVERITY_ERROR, False)
        self.queue = self.device.CreateCommandQueue(D3D12_COMMAND_QUEUE_DESC(
            Type=D3D12_COMMAND_LIST_TYPE_DIRECT, Flags=D3D12_COMMAND_QUEUE_FLAG_NONE))
        self.allocator = self.device.CreateCommandAllocator(D3D12_COMMAND_LIST_TYPE_DIRECT)
        self.command_list = self.device.CreateCommandList(0, D3D12_COMMAND_LIST_TYPE_DIRECT, self.allocator, None)
        self.command_list.Close()
        self.fence = self.device.CreateFence(0, D3D12_FENCE_FLAG_NONE)
        self.fence_value = 0
        self.dml = DMLCreateDevice(self.device, DML_CREATE_DEVICE_FLAG_DEBUG)
        self.recorder = self.dml.CreateCommandRecorder()
        self.keep = []                                   # resources that must outlive the GPU work

    # ---- D3D12 helpers ----------------------------------------------------------------------------
    def buffer(self, size, heap_type=D3D12_HEAP_TYPE_DEFAULT, state=D3D12_RESOURCE_STATE_COMMON):
        flags = D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS if heap_type == D3D12_HEAP_TYPE_DEFAULT else \
            D3D12_RESOURCE_FLAG_NONE
        return self.device.CreateCommittedResource(CD3DX12_HEAP_PROPERTIES(heap_type), D3D12_HEAP_FLAG_NONE,
                                                   CD3DX12_RESOURCE_DESC.Buffer(size, flags), state, None)

    def texture(self, width, height, state, flags=D3D12_RESOURCE_FLAG_NONE):
        desc = CD3DX12_RESOURCE_DESC.Tex2D(DXGI_FORMAT_R8G8B8A8_UNORM, width, height, 1, 1, flags=flags)
        return self.device.CreateCommittedResource(CD3DX12_HEAP_PROPERTIES(D3D12_HEAP_TYPE_DEFAULT),
                                                   D3D12_HEAP_FLAG_NONE, desc, state, None)

    def wait_for_gpu(self):
        self.fence_value += 1
        self.queue.Signal(self.fence, self.fence_value)
        self.fence.SetEventOnCompletion(self.fence_value, None)

    def execute(self):
        self.command_list.Close()
        self.queue.ExecuteCommandLists([self.command_list])
        self.wait_for_gpu()

    def BindTempResourceIfNeeded(self, binding_props, table):
        if binding_props.TemporaryResourceSize > 0:
            resource = self.buffer(binding_props.TemporaryResourceSize)
            self.keep.append(resource)
            table.BindTemporaryResource(DML_BINDING_DESC(Type=DML_BINDING_TYPE_BUFFER, Desc=DML_BUFFER_BINDING(
                Buffer=resource, Offset=0, SizeInBytes=binding_props.TemporaryResourceSize)))

    # ---- Sample::CreateDeviceDependentResources: the conversion shaders -----------------------------
    def create_conversion_shaders(self):
        """The root signature both shaders share (root constants b0: width, height; a table: SRV t0, UAV u0),
        their pipeline states, and their own descriptor heap (the sample's SRV heap), 2 slots a shader."""
        table = D3D12_ROOT_DESCRIPTOR_TABLE(pDescriptorRanges=[
            D3D12_DESCRIPTOR_RANGE(D3D12_DESCRIPTOR_RANGE_TYPE_SRV, 1, 0, 0, 0),
            D3D12_DESCRIPTOR_RANGE(D3D12_DESCRIPTOR_RANGE_TYPE_UAV, 1, 0, 0, 1)])
        blob = D3D12SerializeRootSignature(D3D12_ROOT_SIGNATURE_DESC(pParameters=[
            D3D12_ROOT_PARAMETER(ParameterType=D3D12_ROOT_PARAMETER_TYPE_32BIT_CONSTANTS,
                                 Constants=D3D12_ROOT_CONSTANTS(ShaderRegister=0, RegisterSpace=0, Num32BitValues=2)),
            D3D12_ROOT_PARAMETER(ParameterType=D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE, DescriptorTable=table)]),
            D3D_ROOT_SIGNATURE_VERSION_1)
        self.conversion_rs = self.device.CreateRootSignature(0, blob.GetBufferPointer(), blob.GetBufferSize())
        self.conversion_pso = {}
        for name in ("image_to_tensor", "tensor_to_image"):
            code = shader_bytecode(name)
            self.conversion_pso[name] = self.device.CreateComputePipelineState(D3D12_COMPUTE_PIPELINE_STATE_DESC(
                pRootSignature=self.conversion_rs, CS=D3D12_SHADER_BYTECODE(code, len(code))))
        self.srv_heap = DescriptorHeap(self.device, 4)

    # ---- Sample::CreateDirectMLResources: the operators and the buffers -----------------------------
    def create_directml_resources(self):
        low, high = (1, C, H, W), (1, C, 2 * H, 2 * W)
        self.upsample_ops = [self.dml.CompileOperator(self.dml.CreateOperator(DML_OPERATOR_DESC(
            Type=DML_OPERATOR_UPSAMPLE_2D, Desc=DML_UPSAMPLE_2D_OPERATOR_DESC(
                InputTensor=tensor_desc(low), OutputTensor=tensor_desc(high), ScaleSize=DML_SIZE_2D(Width=2, Height=2),
                InterpolationMode=DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR))), DML_EXECUTION_FLAG_NONE)
            for _ in range(NUM_UPSAMPLE_LAYERS)]
        relu = DML_OPERATOR_DESC(Type=DML_OPERATOR_ACTIVATION_RELU, Desc=DML_ACTIVATION_RELU_OPERATOR_DESC())
        self.conv_ops = []
        for i in range(NUM_CONV_LAYERS):
            t = tensor_desc(low if i < 3 else high)
            desc = DML_CONVOLUTION_OPERATOR_DESC(
                InputTensor=t, FilterTensor=tensor_desc((C, C, KERNEL, KERNEL)), BiasTensor=tensor_desc((1, C, 1, 1)),
                OutputTensor=t, Mode=DML_CONVOLUTION_MODE_CROSS_CORRELATION, Direction=DML_CONVOLUTION_DIRECTION_FORWARD,
                Strides=[1, 1], Dilations=[1, 1], StartPadding=[1, 1], EndPadding=[1, 1], OutputPadding=[0, 0],
                GroupCount=1, FusedActivation=relu if RELU[i] else None)
            self.conv_ops.append(self.dml.CompileOperator(self.dml.CreateOperator(DML_OPERATOR_DESC(
                Type=DML_OPERATOR_CONVOLUTION, Desc=desc)), DML_EXECUTION_FLAG_NONE))
        t = tensor_desc(high)
        self.add_op = self.dml.CompileOperator(self.dml.CreateOperator(DML_OPERATOR_DESC(
            Type=DML_OPERATOR_ELEMENT_WISE_ADD, Desc=DML_ELEMENT_WISE_ADD_OPERATOR_DESC(
                ATensor=t, BTensor=t, OutputTensor=t))), DML_EXECUTION_FLAG_NONE)
        self.input_bytes, self.output_bytes = 2 * C * H * W, 2 * C * 4 * H * W
        self.model_input = self.buffer(self.input_bytes)
        self.model_output = self.buffer(self.output_bytes)
        self.intermediate = [self.buffer(self.output_bytes) for _ in range(2)]   # the largest result each
        self.weights = weights()
        self.filters = [self.buffer(-(-w.nbytes // 4) * 4) for w, _ in self.weights]   # TotalTensorSizeInBytes
        self.biases = [self.buffer(16) for _ in self.weights]      # 6 bytes, DMLCalcBufferTensorSize rounds to 8

    def upload_weights(self, command_list):
        """The sample's LoadWeights: every filter and bias through one upload buffer, CopyBufferRegion each."""
        blobs = [part for w, b in self.weights for part in (w.view(np.uint8).reshape(-1), b.view(np.uint8).reshape(-1))]
        upload = self.buffer(sum(-(-blob.size // 256) * 256 for blob in blobs), D3D12_HEAP_TYPE_UPLOAD,
                             D3D12_RESOURCE_STATE_GENERIC_READ)
        self.keep.append(upload)
        mapped, offset = upload.Map(0, None), 0
        for blob, target in zip(blobs, [r for pair in zip(self.filters, self.biases) for r in pair]):
            mapped[offset:offset + blob.size] = blob
            command_list.CopyBufferRegion(target, 0, upload, offset, blob.size)   # COMMON buffers promote
            offset += -(-blob.size // 256) * 256
        upload.Unmap(0, None)

    # ---- Sample::InitializeDirectMLResources ---------------------------------------------------------
    def initialize_directml_resources(self):
        command_list = self.command_list
        command_list.Reset(self.allocator, None)
        self.upload_weights(command_list)
        self.initializers = [self.dml.CreateOperatorInitializer(self.upsample_ops),
                             self.dml.CreateOperatorInitializer(self.conv_ops),
                             self.dml.CreateOperatorInitializer([self.add_op])]
        # "The same descriptor heap will be used for both initializing and executing operators. These each
        # happen at different times, so we reuse the same descriptor slots."
        upsample_count = GetDescriptorCount(self.upsample_ops, self.initializers[E_OP_UPSAMPLE])
        conv_count = GetDescriptorCount(self.conv_ops, self.initializers[E_OP_CONV])
        add_count = GetDescriptorCount([self.add_op], self.initializers[E_OP_ADD])
        upsample_idx = 0
        conv_idx = upsample_idx + upsample_count * NUM_UPSAMPLE_LAYERS
        add_idx = conv_idx + conv_count * NUM_CONV_LAYERS
        self.heap = DescriptorHeap(self.device, add_idx + add_count)
        command_list.SetDescriptorHeaps([self.heap.Heap()])

        # Persistent resources, where an operator needs one.
        def persistent_for(op):
            size = op.GetBindingProperties().PersistentResourceSize
            return self.buffer(size) if size > 0 else None
        self.upsample_persistent = [persistent_for(op) for op in self.upsample_ops]
        self.conv_persistent = [persistent_for(op) for op in self.conv_ops]
        self.add_persistent = persistent_for(self.add_op)

        def binding(resource):
            if resource is None:
                return DML_BINDING_DESC(Type=DML_BINDING_TYPE_NONE, Desc=None)
            return DML_BINDING_DESC(Type=DML_BINDING_TYPE_BUFFER, Desc=DML_BUFFER_BINDING(
                Buffer=resource, Offset=0, SizeInBytes=resource.GetDesc().Width))

        def table_desc(dispatchable, index):
            return DML_BINDING_TABLE_DESC(Dispatchable=dispatchable, CPUDescriptorHandle=self.heap.GetCpuHandle(index),
                                          GPUDescriptorHandle=self.heap.GetGpuHandle(index),
                                          SizeInDescriptors=dispatchable.GetBindingProperties().RequiredDescriptorCount)

        def initialize(kind, index, persistent):
            props = self.initializers[kind].GetBindingProperties()
            assert props.PersistentResourceSize == 0     # "initialization never uses a persistent resource"
            if kind == E_OP_UPSAMPLE:
                self.init_table = self.dml.CreateBindingTable(table_desc(self.initializers[kind], index))
            else:
                self.init_table.Reset(table_desc(self.initializers[kind], index))
            self.init_table.BindInputs([])                # the inputs vary each frame: none at initialization
            self.init_table.BindOutputs([binding(p) for p in persistent])
            self.BindTempResourceIfNeeded(props, self.init_table)
            self.recorder.RecordDispatch(command_list, self.initializers[kind], self.init_table)

        def execute_table(op, index, inputs, output, persistent):
            props = op.GetBindingProperties()
            table = self.dml.CreateBindingTable(table_desc(op, index))
            table.BindInputs([binding(r) for r in inputs])
            table.BindOutputs([binding(output)])
            self.BindTempResourceIfNeeded(props, table)
            if persistent is not None:
                table.BindPersistentResource(binding(persistent))
            return table

        model_input, model_output, (r0, r1) = self.model_input, self.model_output, self.intermediate
        # Upsample layers: initialization, then the execute tables on the same slots.
        initialize(E_OP_UPSAMPLE, upsample_idx, self.upsample_persistent)
        self.upsample_tables = [execute_table(op, upsample_idx + i * upsample_count,
                                              [model_input if i == 0 else r0], model_output if i == 0 else r1,
                                              self.upsample_persistent[i]) for i, op in enumerate(self.upsample_ops)]
        # Convolution layers (the sample's table of which buffer each reads and writes), with their weights.
        initialize(E_OP_CONV, conv_idx, self.conv_persistent)
        self.conv_tables = []
        for i, op in enumerate(self.conv_ops):
            source = model_input if i == 0 else (r0 if i in (1, 4, 6) else r1)
            target = r1 if i in (1, 4, 6) else r0
            self.conv_tables.append(execute_table(op, conv_idx + i * conv_count,
                                                  [source, self.filters[i], self.biases[i]], target,
                                                  self.conv_persistent[i]))
        # Addition: the residual (r1) added in place to the upsampled image (model_output).
        initialize(E_OP_ADD, add_idx, [self.add_persistent])
        self.add_table = execute_table(self.add_op, add_idx, [r1, model_output], model_output, self.add_persistent)
        self.execute()                                    # "Wait until initialization has been finished on the GPU."

    # ---- the conversion shaders (Sample::Render's compute passes) ------------------------------------
    def convert(self, command_list, name, first_slot, width, height):
        command_list.SetComputeRootSignature(self.conversion_rs)
        command_list.SetPipelineState(self.conversion_pso[name])
        command_list.SetDescriptorHeaps([self.srv_heap.Heap()])
        command_list.SetComputeRoot32BitConstants(0, 2, [width, height], 0)
        command_list.SetComputeRootDescriptorTable(1, self.srv_heap.GetGpuHandle(first_slot))
        command_list.Dispatch(-(-width // GROUP), -(-height // GROUP), 1)

    def raw_view(self, resource, size, uav):
        buffer_part = (D3D12_BUFFER_UAV if uav else D3D12_BUFFER_SRV)(FirstElement=0, NumElements=size // 4,
                                                                      StructureByteStride=0, Flags=1)
        if uav:
            return D3D12_UNORDERED_ACCESS_VIEW_DESC(Format=DXGI_FORMAT_R32_TYPELESS,
                                                    ViewDimension=D3D12_UAV_DIMENSION_BUFFER, Buffer=buffer_part)
        return D3D12_SHADER_RESOURCE_VIEW_DESC(Format=DXGI_FORMAT_R32_TYPELESS, ViewDimension=D3D12_SRV_DIMENSION_BUFFER,
                                               Shader4ComponentMapping=D3D12_DEFAULT_SHADER_4_COMPONENT_MAPPING,
                                               Buffer=buffer_part)

    # ---- Sample::Render ------------------------------------------------------------------------------
    def render(self, image):
        command_list, device = self.command_list, self.device
        self.allocator.Reset()
        command_list.Reset(self.allocator, None)
        # The image into a texture (d3dx12's UpdateSubresources), then a shader-resource view of it.
        texture = self.texture(W, H, D3D12_RESOURCE_STATE_COPY_DEST)
        upload = self.buffer(GetRequiredIntermediateSize(texture, 0, 1), D3D12_HEAP_TYPE_UPLOAD,
                             D3D12_RESOURCE_STATE_GENERIC_READ)
        UpdateSubresources(command_list, texture, upload, 0, 0, 1, [D3D12_SUBRESOURCE_DATA(
            pData=image.tobytes(), RowPitch=W * 4, SlicePitch=W * 4 * H)])
        command_list.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.Transition(
            texture, D3D12_RESOURCE_STATE_COPY_DEST, D3D12_RESOURCE_STATE_NON_PIXEL_SHADER_RESOURCE)])
        output_texture = self.texture(2 * W, 2 * H, D3D12_RESOURCE_STATE_UNORDERED_ACCESS,
                                      D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS)
        device.CreateShaderResourceView(texture, None, self.srv_heap.GetCpuHandle(0))
        device.CreateUnorderedAccessView(self.model_input, None, self.raw_view(self.model_input, self.input_bytes, True),
                                         self.srv_heap.GetCpuHandle(1))
        device.CreateShaderResourceView(self.model_output, self.raw_view(self.model_output, self.output_bytes, False),
                                        self.srv_heap.GetCpuHandle(2))
        device.CreateUnorderedAccessView(output_texture, None, None, self.srv_heap.GetCpuHandle(3))
        # 1. image -> tensor (model_input, promoted from COMMON to UNORDERED_ACCESS).
        self.convert(command_list, "image_to_tensor", 0, W, H)
        uav = [CD3DX12_RESOURCE_BARRIER.UAV(None)]
        command_list.ResourceBarrier(uav)
        # 2. The model.
        command_list.SetDescriptorHeaps([self.heap.Heap()])
        self.recorder.RecordDispatch(command_list, self.upsample_ops[0], self.upsample_tables[0])
        for i in range(NUM_CONV_LAYERS):
            self.recorder.RecordDispatch(command_list, self.conv_ops[i], self.conv_tables[i])
            command_list.ResourceBarrier(uav)
            if i == 2:                                    # the second upsample after the third convolution
                self.recorder.RecordDispatch(command_list, self.upsample_ops[1], self.upsample_tables[1])
                command_list.ResourceBarrier(uav)
        self.recorder.RecordDispatch(command_list, self.add_op, self.add_table)
        # 3. tensor -> image.
        command_list.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.Transition(
            self.model_output, D3D12_RESOURCE_STATE_UNORDERED_ACCESS, D3D12_RESOURCE_STATE_NON_PIXEL_SHADER_RESOURCE)])
        self.convert(command_list, "tensor_to_image", 2, 2 * W, 2 * H)
        # Read back the tensor and the image.
        command_list.ResourceBarrier([
            CD3DX12_RESOURCE_BARRIER.Transition(self.model_output, D3D12_RESOURCE_STATE_NON_PIXEL_SHADER_RESOURCE,
                                                D3D12_RESOURCE_STATE_COPY_SOURCE),
            CD3DX12_RESOURCE_BARRIER.Transition(output_texture, D3D12_RESOURCE_STATE_UNORDERED_ACCESS,
                                                D3D12_RESOURCE_STATE_COPY_SOURCE)])
        readback = self.buffer(self.output_bytes, D3D12_HEAP_TYPE_READBACK, D3D12_RESOURCE_STATE_COPY_DEST)
        command_list.CopyResource(readback, self.model_output)
        (layout,), _, _, total = device.GetCopyableFootprints(output_texture.GetDesc(), 0, 1, 0)
        image_readback = self.buffer(total, D3D12_HEAP_TYPE_READBACK, D3D12_RESOURCE_STATE_COPY_DEST)
        command_list.CopyTextureRegion(CD3DX12_TEXTURE_COPY_LOCATION(image_readback, layout), 0, 0, 0,
                                       CD3DX12_TEXTURE_COPY_LOCATION(output_texture, 0), None)
        self.keep += [texture, upload, output_texture]
        self.execute()
        output = readback.Map(0, None)[:self.output_bytes].copy().view(np.float16).reshape(1, C, 2 * H, 2 * W)
        readback.Unmap(0, None)
        pitch = layout.Footprint.RowPitch
        rows = image_readback.Map(0, None)[:total].copy()
        image_readback.Unmap(0, None)
        picture = np.stack([rows[y * pitch:y * pitch + 2 * W * 4] for y in range(2 * H)]).reshape(2 * H, 2 * W, 4)
        return output, picture

    def messages(self):
        queue, found = self.info_queue, []
        for index in range(queue.GetNumStoredMessagesAllowedByRetrievalFilter()):
            message = queue.GetMessage(index, D3D12_MESSAGE(), queue.GetMessage(index, None, None))
            found.append((message.Severity.name[len("D3D12_MESSAGE_SEVERITY_"):], message.pDescription))
        return found


# ---- NumPy: what the GPU must compute, bit for bit ------------------------------------------------------
def image_to_tensor(image):
    """image_load of R8G8B8A8_UNORM (code / 255 in float32), then FLOAT16 (nearest even): {1, 3, H, W}."""
    return (image[:, :, :3].astype(np.float32) / np.float32(255)).astype(np.float16).transpose(2, 0, 1)[None]


def tensor_to_image(tensor):
    """image_store to R8G8B8A8_UNORM: NaN -> 0, clamp to [0, 1], code = the exact product x 255 rounded to nearest
    even; alpha 1.0 -> 255."""
    x = tensor[0].astype(np.float32).transpose(1, 2, 0).astype(np.float64)
    codes = np.rint(np.clip(np.where(np.isnan(x), 0.0, x), 0.0, 1.0) * 255).astype(np.uint8)
    return np.concatenate([codes, np.full(codes.shape[:2] + (1,), 255, dtype=np.uint8)], axis=2)


def convolution(x, w, b, relu):
    """docs/NUMERICS.md's order in float32: acc = -0, + x w for channels ascending and taps row-major ascending
    (padding taps skipped; x w is exact in float32 for FLOAT16 operands, so each step is the fma), + bias, the
    RELU, one rounding to FLOAT16."""
    _, channels, height, width = x.shape
    padded = np.zeros((channels, height + 2, width + 2), dtype=np.float32)
    inside = np.zeros((height + 2, width + 2), dtype=bool)
    padded[:, 1:-1, 1:-1], inside[1:-1, 1:-1] = x[0].astype(np.float32), True
    out = np.empty((1, w.shape[0], height, width), dtype=np.float16)
    for k in range(w.shape[0]):
        acc = np.full((height, width), -0.0, dtype=np.float32)
        for c in range(channels):
            for i in range(KERNEL):
                for j in range(KERNEL):
                    tap = padded[c, i:i + height, j:j + width] * np.float32(w[k, c, i, j])
                    acc = np.where(inside[i:i + height, j:j + width], acc + tap, acc)
        acc = acc + np.float32(b[0, k, 0, 0])
        if relu:
            acc = np.maximum(acc, np.float32(0))
        out[0, k] = acc.astype(np.float16)
    return out


def expected_output(image):
    """The same layers in NumPy: nearest 2x upsample, the convolutions, the residual add."""
    def upsample(x):
        return x.repeat(2, axis=2).repeat(2, axis=3)

    layers = weights()
    upsampled = upsample(image)
    x = image
    for i in range(NUM_CONV_LAYERS):
        if i == 3:
            x = upsample(x)
        x = convolution(x, *layers[i], RELU[i])
    return (x.astype(np.float32) + upsampled.astype(np.float32)).astype(np.float16)


def golden_output(image):
    """The same layers through dmlemu.golden, the model the kernels are checked against."""
    geometry = dict(Mode=int(DML_CONVOLUTION_MODE_CROSS_CORRELATION), Direction=0, GroupCount=1, Strides=[1, 1], Dilations=[1, 1], StartPadding=[1, 1],
                    EndPadding=[1, 1], OutputPadding=[0, 0])

    def upsample(x):
        return golden.run("UPSAMPLE_2D", [x], {"ScaleSize": (2, 2), "InterpolationMode": 0})

    layers = weights()
    upsampled, x = upsample(image), image
    for i in range(NUM_CONV_LAYERS):
        if i == 3:
            x = upsample(x)
        attributes = dict(geometry, **({"FusedActivation": ("ACTIVATION_RELU", {})} if RELU[i] else {}))
        x = golden.run("CONVOLUTION", [x, *layers[i]], attributes)
    return golden.run("ELEMENT_WISE_ADD", [x, upsampled])


def run(strict=False):
    """Run the port (strict: DMLEMU_STRICT_HOST=1 for the devices it creates) on a fixed image."""
    previous = os.environ.get("DMLEMU_STRICT_HOST")
    os.environ["DMLEMU_STRICT_HOST"] = "1" if strict else "0"
    try:
        sample = Sample()
    finally:
        if previous is None:
            del os.environ["DMLEMU_STRICT_HOST"]
        else:
            os.environ["DMLEMU_STRICT_HOST"] = previous
    sample.create_conversion_shaders()
    sample.create_directml_resources()
    sample.initialize_directml_resources()
    image = np.random.default_rng(29).integers(0, 256, (H, W, 4), dtype=np.uint8)
    output, picture = sample.render(image)
    tensor = image_to_tensor(image)
    expected = expected_output(tensor)
    return Result(output=output, expected=expected, golden=golden_output(tensor), image=picture,
                  expected_image=tensor_to_image(expected), messages=sample.messages(),
                  dml_removed_reason=sample.dml.GetDeviceRemovedReason())


def main():
    strict = "--strict" in sys.argv[1:]
    result = run(strict)
    for severity, text in result.messages:
        print(f"{severity}: {text}")
    bits = result.output.view(np.uint16)
    same = np.array_equal(bits, result.expected.view(np.uint16)) and np.array_equal(bits, result.golden.view(np.uint16))
    same_image = np.array_equal(result.image, result.expected_image)
    print(f"{'strict-host' if strict else 'default'} binding properties: output tensor "
          f"{'bit-exact against dmlemu.golden and NumPy' if same else 'WRONG'}, output image "
          f"{'bit-exact against NumPy' if same_image else 'WRONG'}, DirectML device "
          f"{'removed' if result.dml_removed_reason else 'not removed'}.")
    if not strict and not (same and same_image):
        raise SystemExit("the output differs from NumPy's or dmlemu.golden's")


if __name__ == "__main__":
    main()
