"""The D3D12 plumbing the workgroup examples share (transpose.py, histogram.py, reduction.py, sgemm.py).

Not a program of its own: each example imports it. A ComputeRig is what a D3D12 compute program
sets up once, call for call as examples/saxpy_dispatch.py does it:

- a device on the default adapter, a COMPUTE queue, allocator and command list, a fence;
- one root signature for every example kernel:
      parameter 0  32BIT_CONSTANTS b0, 4 values (sizes; a kernel's `.root_constants b0, K` reads K <= 4)
      parameter 1  root SRV t0          parameter 2  root SRV t1
      parameter 3  root UAV u0
  (a shader may read fewer registers than the root signature gives);
- `pipeline(name, symbols)`: examples/kernels/<name>.s assembled into a compute shader binary (with
  assembler symbols, such as a tile stride) and CreateComputePipelineState;
- `upload(array)` / `output(nbytes)`: DEFAULT-heap buffers, the inputs copied in through UPLOAD
  buffers, the outputs in UNORDERED_ACCESS;
- `dispatch(...)`: Dispatch bracketed by two timestamp queries; returns the GPU ticks between them
  (the queue's timestamp frequency is the adapter's clock, so ticks are the emulated GPU's cycles of
  the timing model: launch, waves, memory, drain);
- `read(buffer, dtype, count)`: the buffer copied to a READBACK heap and mapped.
"""
import os

import numpy as np

from dmlemu.d3d12 import *  # noqa: F401,F403
from dmlemu.isa.shader_binary import assemble_shader

KERNELS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "kernels")
ROOT_CONSTANTS = 4


def root_signature_desc():
    def view(kind, register):
        return D3D12_ROOT_PARAMETER(ParameterType=kind, Descriptor=D3D12_ROOT_DESCRIPTOR(ShaderRegister=register),
                                    ShaderVisibility=D3D12_SHADER_VISIBILITY_ALL)
    return D3D12_ROOT_SIGNATURE_DESC(pParameters=[
        D3D12_ROOT_PARAMETER(ParameterType=D3D12_ROOT_PARAMETER_TYPE_32BIT_CONSTANTS,
                             Constants=D3D12_ROOT_CONSTANTS(ShaderRegister=0, RegisterSpace=0,
                                                            Num32BitValues=ROOT_CONSTANTS),
                             ShaderVisibility=D3D12_SHADER_VISIBILITY_ALL),
        view(D3D12_ROOT_PARAMETER_TYPE_SRV, 0),
        view(D3D12_ROOT_PARAMETER_TYPE_SRV, 1),
        view(D3D12_ROOT_PARAMETER_TYPE_UAV, 0)], Flags=D3D12_ROOT_SIGNATURE_FLAG_NONE)


def shader_bytecode(name, symbols=None):
    """The compute shader binary of examples/kernels/<name>.s, assembled with `symbols`."""
    path = os.path.join(KERNELS, f"{name}.s")
    with open(path, encoding="utf-8") as f:
        return assemble_shader(f.read(), symbols=symbols, filename=path).to_bytes()


class ComputeRig:
    """A device with the examples' root signature; buffers, pipelines and timed dispatches on it."""

    def __init__(self, device=None):
        self.device = device or D3D12CreateDevice(None, D3D_FEATURE_LEVEL_11_0)
        self.queue = self.device.CreateCommandQueue(D3D12_COMMAND_QUEUE_DESC(Type=D3D12_COMMAND_LIST_TYPE_COMPUTE))
        self.allocator = self.device.CreateCommandAllocator(D3D12_COMMAND_LIST_TYPE_COMPUTE)
        self.list = self.device.CreateCommandList(0, D3D12_COMMAND_LIST_TYPE_COMPUTE, self.allocator, None)
        self.list.Close()
        self.fence = self.device.CreateFence(0, D3D12_FENCE_FLAG_NONE)
        self.fence_value = 0
        blob = D3D12SerializeRootSignature(root_signature_desc(), D3D_ROOT_SIGNATURE_VERSION_1)
        self.root_signature = self.device.CreateRootSignature(0, blob.GetBufferPointer(), blob.GetBufferSize())
        self.queries = self.device.CreateQueryHeap(D3D12_QUERY_HEAP_DESC(Type=D3D12_QUERY_HEAP_TYPE_TIMESTAMP,
                                                                         Count=2))
        self.ticks = self._buffer(16, D3D12_HEAP_TYPE_READBACK, D3D12_RESOURCE_STATE_COPY_DEST)

    # ---- command lists -----------------------------------------------------------------------------
    def _begin(self):
        self.allocator.Reset()
        self.list.Reset(self.allocator, None)
        return self.list

    def _execute(self):
        self.list.Close()
        self.queue.ExecuteCommandLists([self.list])
        self.fence_value += 1
        self.queue.Signal(self.fence, self.fence_value)
        self.fence.SetEventOnCompletion(self.fence_value, None)

    def _buffer(self, size, heap, state, flags=D3D12_RESOURCE_FLAG_NONE):
        return self.device.CreateCommittedResource(CD3DX12_HEAP_PROPERTIES(heap), D3D12_HEAP_FLAG_NONE,
                                                   CD3DX12_RESOURCE_DESC.Buffer(max(4, size), flags), state, None)

    # ---- what a program makes --------------------------------------------------------------------
    def pipeline(self, name, symbols=None):
        """CreateComputePipelineState of examples/kernels/<name>.s with the rig's root signature."""
        code = shader_bytecode(name, symbols)
        return self.device.CreateComputePipelineState(D3D12_COMPUTE_PIPELINE_STATE_DESC(
            pRootSignature=self.root_signature, CS=D3D12_SHADER_BYTECODE(code, len(code))))

    def upload(self, array, writable=False):
        """A DEFAULT-heap buffer holding `array`, in NON_PIXEL_SHADER_RESOURCE (an SRV's state), or in
        UNORDERED_ACCESS when `writable`."""
        raw = np.ascontiguousarray(array).view(np.uint8).reshape(-1)
        staging = self._buffer(raw.size, D3D12_HEAP_TYPE_UPLOAD, D3D12_RESOURCE_STATE_GENERIC_READ)
        mapped = staging.Map(0, None)
        mapped[:raw.size] = raw
        staging.Unmap(0, None)
        flags = D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS if writable else D3D12_RESOURCE_FLAG_NONE
        target = self._buffer(raw.size, D3D12_HEAP_TYPE_DEFAULT, D3D12_RESOURCE_STATE_COPY_DEST, flags)
        command_list = self._begin()
        command_list.CopyBufferRegion(target, 0, staging, 0, raw.size)
        state = D3D12_RESOURCE_STATE_UNORDERED_ACCESS if writable else D3D12_RESOURCE_STATE_NON_PIXEL_SHADER_RESOURCE
        command_list.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.Transition(target, D3D12_RESOURCE_STATE_COPY_DEST,
                                                                          state)])
        self._execute()
        return target

    def output(self, nbytes):
        """A zeroed DEFAULT-heap buffer of `nbytes` in UNORDERED_ACCESS (a UAV's state)."""
        return self.upload(np.zeros(max(4, nbytes), np.uint8), writable=True)

    def dispatch(self, pipeline, groups, constants=(), srvs=(), uav=None):
        """Dispatch(*groups) of `pipeline` with root constants (32-bit values; floats as FLOAT32),
        root SRVs t0, t1 and root UAV u0; returns the GPU cycles between the timestamps around it."""
        command_list = self._begin()
        command_list.SetPipelineState(pipeline)
        command_list.SetComputeRootSignature(self.root_signature)
        words = [np.float32(c).view(np.uint32) if isinstance(c, float) else np.uint32(c) for c in constants]
        words += [np.uint32(0)] * (ROOT_CONSTANTS - len(words))
        command_list.SetComputeRoot32BitConstants(0, ROOT_CONSTANTS, b"".join(w.tobytes() for w in words), 0)
        for index, buffer in enumerate(srvs):
            command_list.SetComputeRootShaderResourceView(1 + index, buffer.GetGPUVirtualAddress())
        for index in range(len(srvs), 2):     # a root SRV the kernel does not read still needs an address
            command_list.SetComputeRootShaderResourceView(1 + index, (srvs[0] if srvs else uav).GetGPUVirtualAddress())
        command_list.SetComputeRootUnorderedAccessView(3, uav.GetGPUVirtualAddress())
        command_list.EndQuery(self.queries, D3D12_QUERY_TYPE_TIMESTAMP, 0)
        command_list.Dispatch(*groups)
        command_list.EndQuery(self.queries, D3D12_QUERY_TYPE_TIMESTAMP, 1)
        command_list.ResolveQueryData(self.queries, D3D12_QUERY_TYPE_TIMESTAMP, 0, 2, self.ticks, 0)
        self._execute()
        ticks = np.array(self.ticks.Map(0, None)[:16]).view("<u8")
        self.ticks.Unmap(0, None)
        return int(ticks[1] - ticks[0])

    def read(self, buffer, dtype, count):
        """`count` elements of `dtype` from a buffer in UNORDERED_ACCESS (it stays in that state)."""
        nbytes = count * np.dtype(dtype).itemsize
        readback = self._buffer(nbytes, D3D12_HEAP_TYPE_READBACK, D3D12_RESOURCE_STATE_COPY_DEST)
        command_list = self._begin()
        command_list.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.Transition(
            buffer, D3D12_RESOURCE_STATE_UNORDERED_ACCESS, D3D12_RESOURCE_STATE_COPY_SOURCE)])
        command_list.CopyBufferRegion(readback, 0, buffer, 0, nbytes)
        command_list.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.Transition(
            buffer, D3D12_RESOURCE_STATE_COPY_SOURCE, D3D12_RESOURCE_STATE_UNORDERED_ACCESS)])
        self._execute()
        out = np.array(readback.Map(0, None)[:nbytes]).view(dtype).copy()
        readback.Unmap(0, None)
        return out

    @property
    def clock_hz(self):
        return self.queue.GetTimestampFrequency()

    @property
    def wave_width(self):
        """The adapter's wave width (lanes), which the reduction's cross-lane steps are assembled for."""
        from dmlemu.d3d12 import inspect
        return inspect(self.device).gpu.wave_width

    def describe(self, cycles):
        """'N cycles (T us at F GHz)'."""
        return f"{cycles:>9} cycles ({cycles / self.clock_hz * 1e6:8.1f} us at {self.clock_hz / 1e9:.2f} GHz)"
