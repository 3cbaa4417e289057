"""The host program every microbenchmark runs through: the public D3D12 API, call for call.

A BenchRig is what a D3D12 compute program sets up once on one adapter (found by its description
through DXGI, as a program picks a GPU): a device, a COMPUTE queue, allocator, command list and fence,
one root signature for every kernel of bench/microbench/kernels/, and a two-slot timestamp query heap.

    parameter 0  32BIT_CONSTANTS b0, 4 values (a kernel's `.root_constants b0, K` reads K <= 4)
    parameter 1  root SRV t0         parameter 2  root UAV u0         parameter 3  root UAV u1

`dispatch` brackets one Dispatch by two EndQuery timestamps and resolves them into a READBACK buffer;
the queue's timestamp frequency is the adapter's clock, so the difference is GPU cycles of the timing
model. `copy_in` and `copy_out` do the same around one CopyBufferRegion. Buffers come from
CreateCommittedResource on the heap a program would use: DEFAULT buffers in UNORDERED_ACCESS (created
in that state, so a large working set costs the host nothing until it is written), UPLOAD buffers
mapped and written by the host.
"""
import os

import numpy as np

from dmlemu.d3d12 import *  # noqa: F401,F403
from dmlemu.dxgi import CreateDXGIFactory1
from dmlemu.errors import HResultError
from dmlemu.isa.shader_binary import assemble_shader

KERNELS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "kernels")
ROOT_CONSTANTS = 4


def adapter(preset_key):
    """The DXGI adapter (EnumAdapters1, in order) whose description is the preset's, as a program picks
    a GPU by its name."""
    from dmlemu.presets import preset_by_key
    description = preset_by_key(preset_key).description
    factory, index = CreateDXGIFactory1(), 0
    while True:
        try:
            found = factory.EnumAdapters1(index)
        except HResultError:
            raise LookupError(f"no adapter is described as {description!r}") from None
        if found.GetDesc1().Description == description:
            return found
        index += 1


def _transition(buffer, before, after):
    return CD3DX12_RESOURCE_BARRIER.Transition(buffer, before, after)


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
        view(D3D12_ROOT_PARAMETER_TYPE_UAV, 0),
        view(D3D12_ROOT_PARAMETER_TYPE_UAV, 1)], Flags=D3D12_ROOT_SIGNATURE_FLAG_NONE)


class BenchRig:
    """A device on one adapter with the microbenchmarks' root signature; buffers, pipelines, timed work."""

    def __init__(self, preset_key):
        self.device = D3D12CreateDevice(adapter(preset_key), D3D_FEATURE_LEVEL_11_0)
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
        self.ticks = self.buffer(16, D3D12_HEAP_TYPE_READBACK)
        self.pipelines = {}
        self.sink = self.buffer(1 << 16)     # the UAV a kernel that writes nothing (normally) is given

    @property
    def clock_hz(self):
        return self.queue.GetTimestampFrequency()

    # ---- command lists ---------------------------------------------------------------------------
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

    def _timed(self, record, before=(), after=()):
        """Run `record(command_list)` between two timestamps, the resource barriers `before` ahead of the
        first and `after` behind the second; the GPU cycles between the timestamps."""
        command_list = self._begin()
        if before:
            command_list.ResourceBarrier(list(before))
        command_list.EndQuery(self.queries, D3D12_QUERY_TYPE_TIMESTAMP, 0)
        record(command_list)
        command_list.EndQuery(self.queries, D3D12_QUERY_TYPE_TIMESTAMP, 1)
        if after:
            command_list.ResourceBarrier(list(after))
        command_list.ResolveQueryData(self.queries, D3D12_QUERY_TYPE_TIMESTAMP, 0, 2, self.ticks, 0)
        self._execute()
        ticks = np.array(self.ticks.Map(0, None)[:16]).view("<u8")
        self.ticks.Unmap(0, None)
        return int(ticks[1] - ticks[0])

    # ---- what a program makes --------------------------------------------------------------------
    def buffer(self, nbytes, heap=D3D12_HEAP_TYPE_DEFAULT):
        """A committed buffer: DEFAULT in UNORDERED_ACCESS (UAV-capable), UPLOAD in GENERIC_READ,
        READBACK in COPY_DEST."""
        state, flags = {D3D12_HEAP_TYPE_DEFAULT: (D3D12_RESOURCE_STATE_UNORDERED_ACCESS,
                                                  D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS),
                        D3D12_HEAP_TYPE_UPLOAD: (D3D12_RESOURCE_STATE_GENERIC_READ, D3D12_RESOURCE_FLAG_NONE),
                        D3D12_HEAP_TYPE_READBACK: (D3D12_RESOURCE_STATE_COPY_DEST, D3D12_RESOURCE_FLAG_NONE)}[heap]
        return self.device.CreateCommittedResource(CD3DX12_HEAP_PROPERTIES(heap), D3D12_HEAP_FLAG_NONE,
                                                   CD3DX12_RESOURCE_DESC.Buffer(max(4, nbytes), flags), state, None)

    def upload_buffer(self, array):
        """An UPLOAD buffer holding `array` (mapped and written by the host)."""
        raw = np.ascontiguousarray(array).view(np.uint8).reshape(-1)
        staging = self.buffer(raw.size, D3D12_HEAP_TYPE_UPLOAD)
        mapped = staging.Map(0, None)
        mapped[:raw.size] = raw
        staging.Unmap(0, None)
        return staging

    def pipeline(self, name, symbols=None):
        """CreateComputePipelineState of bench/microbench/kernels/<name>.s with `symbols` (name -> value) put in."""
        key = (name, tuple(sorted((symbols or {}).items())))
        if key not in self.pipelines:
            path = os.path.join(KERNELS, f"{name}.s")
            with open(path, encoding="utf-8") as f:
                text = f.read()
            # The assembler substitutes ${NAME} in instructions, not in directives (.numthreads): the
            # rig's own symbols are put in first, everywhere; ${SLOT_*} stay for the assembler.
            for name, value in (symbols or {}).items():
                text = text.replace("${" + name + "}", str(value))
            code = assemble_shader(text, filename=path).to_bytes()
            self.pipelines[key] = self.device.CreateComputePipelineState(D3D12_COMPUTE_PIPELINE_STATE_DESC(
                pRootSignature=self.root_signature, CS=D3D12_SHADER_BYTECODE(code, len(code))))
        return self.pipelines[key]

    def dispatch(self, pipeline, groups, constants=(), srv=None, uavs=()):
        """Dispatch(groups, 1, 1) with root constants (32-bit integers), root SRV t0 and root UAVs u0, u1
        (a slot the kernel does not read gets u0's address); the GPU cycles between the timestamps."""
        def record(command_list):
            command_list.SetPipelineState(pipeline)
            command_list.SetComputeRootSignature(self.root_signature)
            words = [np.uint32(c) for c in constants] + [np.uint32(0)] * (ROOT_CONSTANTS - len(constants))
            command_list.SetComputeRoot32BitConstants(0, ROOT_CONSTANTS, b"".join(w.tobytes() for w in words), 0)
            views = list(uavs) + [uavs[0]] * (2 - len(uavs))
            command_list.SetComputeRootShaderResourceView(1, (srv or views[0]).GetGPUVirtualAddress())
            command_list.SetComputeRootUnorderedAccessView(2, views[0].GetGPUVirtualAddress())
            command_list.SetComputeRootUnorderedAccessView(3, views[1].GetGPUVirtualAddress())
            command_list.Dispatch(groups, 1, 1)
            # The UAV barrier a program puts between dependent dispatches; inside the timestamps, so the
            # time includes the dispatch's drain, as a GPU timestamp after a barrier does.
            command_list.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.UAV(None)])
        return self._timed(record)

    def copy_in(self, target, source, nbytes):
        """CopyBufferRegion of `nbytes` into a DEFAULT buffer in UNORDERED_ACCESS (moved to COPY_DEST and
        back around the timestamps) from an UPLOAD buffer; the GPU cycles between the timestamps."""
        return self._timed(lambda command_list: command_list.CopyBufferRegion(target, 0, source, 0, nbytes),
                           before=[_transition(target, D3D12_RESOURCE_STATE_UNORDERED_ACCESS,
                                               D3D12_RESOURCE_STATE_COPY_DEST)],
                           after=[_transition(target, D3D12_RESOURCE_STATE_COPY_DEST,
                                              D3D12_RESOURCE_STATE_UNORDERED_ACCESS)])

    fill = copy_in

    def copy_out(self, target, source, nbytes):
        """CopyBufferRegion of `nbytes` from a DEFAULT buffer in UNORDERED_ACCESS (moved to COPY_SOURCE and
        back around the timestamps) to a READBACK buffer; the GPU cycles between the timestamps."""
        return self._timed(lambda command_list: command_list.CopyBufferRegion(target, 0, source, 0, nbytes),
                           before=[_transition(source, D3D12_RESOURCE_STATE_UNORDERED_ACCESS,
                                               D3D12_RESOURCE_STATE_COPY_SOURCE)],
                           after=[_transition(source, D3D12_RESOURCE_STATE_COPY_SOURCE,
                                              D3D12_RESOURCE_STATE_UNORDERED_ACCESS)])

    def read(self, buffer, dtype, count):
        """`count` elements of `dtype` from a DEFAULT buffer in UNORDERED_ACCESS (it stays in that state)."""
        nbytes = count * np.dtype(dtype).itemsize
        readback = self.buffer(nbytes, D3D12_HEAP_TYPE_READBACK)
        command_list = self._begin()
        command_list.ResourceBarrier([_transition(buffer, D3D12_RESOURCE_STATE_UNORDERED_ACCESS,
                                                  D3D12_RESOURCE_STATE_COPY_SOURCE)])
        command_list.CopyBufferRegion(readback, 0, buffer, 0, nbytes)
        command_list.ResourceBarrier([_transition(buffer, D3D12_RESOURCE_STATE_COPY_SOURCE,
                                                  D3D12_RESOURCE_STATE_UNORDERED_ACCESS)])
        self._execute()
        out = np.array(readback.Map(0, None)[:nbytes]).view(dtype).copy()
        readback.Unmap(0, None)
        return out
