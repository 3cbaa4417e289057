"""DirectMLSuperResolution's binding code, ported call for call, with element-wise stand-ins for its layers.

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
before the initializers execute: it works on real drivers because DirectML's upsample and add keep no
persistent resource, so their initialization reads no descriptor. `Sample::Render`'s DML part then
records the 10 dispatches with UAV barriers between them.

The layers are stand-ins until the mirror has UPSAMPLE_2D and CONVOLUTION: the nearest-neighbour
upsample is ELEMENT_WISE_IDENTITY reading a broadcast view (Sizes {1, 3, H, 2, W, 2}, Strides
{.., W, 0, 1, 0}), each convolution an ELEMENT_WISE_CLIP or ACTIVATION_RELU on 3 channels, the residual
add ELEMENT_WISE_ADD in place on the upsampled image, as the sample does. FLOAT16 NCHW tensors, as the
sample uses; the result is checked bit for bit against NumPy. The D3D12 debug layer is on, as in the
sample's debug build, with the info queue's break on errors off (as a test harness sets it): the
messages are read from the queue at the end.

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

C, H, W = 3, 8, 8                         # the model input: 1 x 3 x H x W, FLOAT16
NUM_UPSAMPLE_LAYERS, NUM_CONV_LAYERS = 2, 7
E_OP_UPSAMPLE, E_OP_CONV, E_OP_ADD = range(3)
# The convolution stand-ins: (operator, Min, Max) per layer; the first 3 run at H x W, the last 4 at 2H x 2W.
CONV_STAND_INS = [("CLIP", -2.0, 2.0), ("RELU", None, None), ("CLIP", -1.0, 1.5), ("CLIP", -0.75, 0.75),
                  ("RELU", None, None), ("CLIP", 0.0, 0.5), ("CLIP", -0.25, 0.25)]


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
    output: np.ndarray            # 1 x 3 x 2H x 2W FLOAT16, read back
    expected: np.ndarray          # NumPy's
    golden: np.ndarray            # dmlemu.golden's, operator by operator
    messages: list                # (severity name, text) of every message in the D3D12 device's info queue
    dml_removed_reason: int       # IDMLDevice::GetDeviceRemovedReason


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

    # ---- Sample::CreateDirectMLResources: the operators (stand-ins) and the buffers -----------------
    def create_directml_resources(self):
        low, high = (1, C, H, W), (1, C, 2 * H, 2 * W)
        # Nearest-neighbour 2x upsample: IDENTITY from a broadcast view of the input into the 2H x 2W output.
        view = (1, C, H, 2, W, 2)
        upsample = DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC(
            InputTensor=tensor_desc(view, [C * H * W, H * W, W, 0, 1, 0]), OutputTensor=tensor_desc(view))
        self.upsample_ops = [self.dml.CompileOperator(self.dml.CreateOperator(DML_OPERATOR_DESC(
            Type=DML_OPERATOR_ELEMENT_WISE_IDENTITY, Desc=upsample)), DML_EXECUTION_FLAG_NONE)
            for _ in range(NUM_UPSAMPLE_LAYERS)]
        self.conv_ops = []
        for i, (kind, lo, hi) in enumerate(CONV_STAND_INS):
            t = tensor_desc(low if i < 3 else high)
            if kind == "CLIP":
                desc = DML_OPERATOR_DESC(Type=DML_OPERATOR_ELEMENT_WISE_CLIP, Desc=DML_ELEMENT_WISE_CLIP_OPERATOR_DESC(
                    InputTensor=t, OutputTensor=t, ScaleBias=None, Min=lo, Max=hi))
            else:
                desc = DML_OPERATOR_DESC(Type=DML_OPERATOR_ACTIVATION_RELU, Desc=DML_ACTIVATION_RELU_OPERATOR_DESC(
                    InputTensor=t, OutputTensor=t))
            self.conv_ops.append(self.dml.CompileOperator(self.dml.CreateOperator(desc), DML_EXECUTION_FLAG_NONE))
        t = tensor_desc(high)
        self.add_op = self.dml.CompileOperator(self.dml.CreateOperator(DML_OPERATOR_DESC(
            Type=DML_OPERATOR_ELEMENT_WISE_ADD, Desc=DML_ELEMENT_WISE_ADD_OPERATOR_DESC(
                ATensor=t, BTensor=t, OutputTensor=t))), DML_EXECUTION_FLAG_NONE)
        self.input_bytes, self.output_bytes = 2 * C * H * W, 2 * C * 4 * H * W
        self.model_input = self.buffer(self.input_bytes)
        self.model_output = self.buffer(self.output_bytes)
        self.intermediate = [self.buffer(self.output_bytes) for _ in range(2)]   # the largest result each

    # ---- Sample::InitializeDirectMLResources ---------------------------------------------------------
    def initialize_directml_resources(self):
        command_list = self.command_list
        command_list.Reset(self.allocator, None)
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
        # Convolution layers (the sample's table of which buffer each reads and writes).
        initialize(E_OP_CONV, conv_idx, self.conv_persistent)
        self.conv_tables = []
        for i, op in enumerate(self.conv_ops):
            source = model_input if i == 0 else (r0 if i in (1, 4, 6) else r1)
            target = r1 if i in (1, 4, 6) else r0
            self.conv_tables.append(execute_table(op, conv_idx + i * conv_count, [source], target,
                                                  self.conv_persistent[i]))
        # Addition: the residual (r1) added in place to the upsampled image (model_output).
        initialize(E_OP_ADD, add_idx, [self.add_persistent])
        self.add_table = execute_table(self.add_op, add_idx, [r1, model_output], model_output, self.add_persistent)
        self.execute()                                    # "Wait until initialization has been finished on the GPU."

    # ---- Sample::Render, the DirectML part -----------------------------------------------------------
    def render(self, image):
        command_list = self.command_list
        self.allocator.Reset()
        command_list.Reset(self.allocator, None)
        upload = self.buffer(self.input_bytes, D3D12_HEAP_TYPE_UPLOAD, D3D12_RESOURCE_STATE_GENERIC_READ)
        upload.Map(0, None)[:self.input_bytes] = image.view(np.uint8).reshape(-1)
        upload.Unmap(0, None)
        command_list.CopyBufferRegion(self.model_input, 0, upload, 0, self.input_bytes)   # COMMON promotes
        command_list.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.Transition(
            self.model_input, D3D12_RESOURCE_STATE_COPY_DEST, D3D12_RESOURCE_STATE_UNORDERED_ACCESS)])
        command_list.SetDescriptorHeaps([self.heap.Heap()])
        uav = [CD3DX12_RESOURCE_BARRIER.UAV(None)]
        self.recorder.RecordDispatch(command_list, self.upsample_ops[0], self.upsample_tables[0])
        for i in range(NUM_CONV_LAYERS):
            self.recorder.RecordDispatch(command_list, self.conv_ops[i], self.conv_tables[i])
            command_list.ResourceBarrier(uav)
            if i == 2:                                    # the second upsample after the third convolution
                self.recorder.RecordDispatch(command_list, self.upsample_ops[1], self.upsample_tables[1])
                command_list.ResourceBarrier(uav)
        self.recorder.RecordDispatch(command_list, self.add_op, self.add_table)
        command_list.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.Transition(
            self.model_output, D3D12_RESOURCE_STATE_UNORDERED_ACCESS, D3D12_RESOURCE_STATE_COPY_SOURCE)])
        readback = self.buffer(self.output_bytes, D3D12_HEAP_TYPE_READBACK, D3D12_RESOURCE_STATE_COPY_DEST)
        command_list.CopyResource(readback, self.model_output)
        self.execute()
        output = readback.Map(0, None)[:self.output_bytes].copy().view(np.float16).reshape(1, C, 2 * H, 2 * W)
        readback.Unmap(0, None)
        return output

    def messages(self):
        queue, found = self.info_queue, []
        for index in range(queue.GetNumStoredMessagesAllowedByRetrievalFilter()):
            message = queue.GetMessage(index, D3D12_MESSAGE(), queue.GetMessage(index, None, None))
            found.append((message.Severity.name[len("D3D12_MESSAGE_SEVERITY_"):], message.pDescription))
        return found


def expected_output(image):
    """The same layers in NumPy: nearest 2x upsample, the stand-in convolutions, the residual add."""
    def upsample(x):
        return x.repeat(2, axis=2).repeat(2, axis=3)

    def conv(i, x):
        kind, lo, hi = CONV_STAND_INS[i]
        return np.clip(x, np.float16(lo), np.float16(hi)) if kind == "CLIP" else np.maximum(x, np.float16(0))

    upsampled = upsample(image)
    x = image
    for i in range(3):
        x = conv(i, x)
    x = upsample(x)
    for i in range(3, NUM_CONV_LAYERS):
        x = conv(i, x)
    return (x.astype(np.float32) + upsampled.astype(np.float32)).astype(np.float16)


def golden_output(image):
    """The same layers through dmlemu.golden, the model the kernels are checked against."""
    def conv(i, x):
        kind, lo, hi = CONV_STAND_INS[i]
        if kind == "CLIP":
            return golden.run("ELEMENT_WISE_CLIP", [x], {"Min": lo, "Max": hi})
        return golden.run("ACTIVATION_RELU", [x])

    def upsample(x):
        view = np.broadcast_to(x[:, :, :, None, :, None], (1, C, x.shape[2], 2, x.shape[3], 2))
        return golden.run("ELEMENT_WISE_IDENTITY", [view]).reshape(1, C, 2 * x.shape[2], 2 * x.shape[3])

    upsampled, x = upsample(image), image
    for i in range(3):
        x = conv(i, x)
    x = upsample(x)
    for i in range(3, NUM_CONV_LAYERS):
        x = conv(i, x)
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
    sample.create_directml_resources()
    sample.initialize_directml_resources()
    image = np.random.default_rng(29).uniform(-3.0, 3.0, (1, C, H, W)).astype(np.float16)
    output = sample.render(image)
    return Result(output=output, expected=expected_output(image), golden=golden_output(image),
                  messages=sample.messages(),
                  dml_removed_reason=sample.dml.GetDeviceRemovedReason())


def main():
    strict = "--strict" in sys.argv[1:]
    result = run(strict)
    for severity, text in result.messages:
        print(f"{severity}: {text}")
    bits = result.output.view(np.uint16)
    same = np.array_equal(bits, result.expected.view(np.uint16)) and np.array_equal(bits, result.golden.view(np.uint16))
    print(f"{'strict-host' if strict else 'default'} binding properties: output "
          f"{'bit-exact against dmlemu.golden and NumPy' if same else 'WRONG'}, DirectML device "
          f"{'removed' if result.dml_removed_reason else 'not removed'}.")
    if not strict and not same:
        raise SystemExit("the output differs from NumPy's or dmlemu.golden's")


if __name__ == "__main__":
    main()
