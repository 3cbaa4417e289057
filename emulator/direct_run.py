"""Direct kernel runs: a compiled kernel on device buffers, without the D3D12/DirectML mirror.

This is the shortest path from tensors to a dispatch, used by the benchmarks, the kernel tests and
`dmlemu step`. It does what the mirror's RecordDispatch does (descriptor table, constant buffer)
with none of the API validation; programs should use the mirror or dmlemu.convenience.
"""

import dataclasses

from dmlemu.kernels.driver import compile_operator

from dmlemu.functional.buffer_descriptor import DESCRIPTOR_SIZE, write_buffer_descriptor


class DirectRun:
    """Device buffers for each tensor of one operator, ready to dispatch repeatedly."""

    def __init__(self, gpu, operator, tensors, buffers, offsets=None, **kernel_args):
        """`tensors`: TensorSpecs in binding order; `buffers`: one uint8 array per tensor (bytes
        uploaded to a fresh allocation of the same size), or an int index naming an earlier
        tensor's allocation to alias (in-place); `offsets`: byte offset of each tensor inside
        its buffer (the binding offset), default 0."""
        self.gpu = gpu
        # The kernel for the wave width the Gpu runs (a Gpu may run another width than its preset's).
        preset = gpu.preset if gpu.wave_width == gpu.preset.wave_width else \
            dataclasses.replace(gpu.preset, wave_width=gpu.wave_width)
        self.kernel = compile_operator(operator, tensors, preset=preset, **kernel_args)
        self.allocations = []
        for i, data in enumerate(buffers):
            if isinstance(data, int):
                self.allocations.append(self.allocations[data])
                continue
            allocation = gpu.memory.allocate(max(4, data.size), f"tensor{i}")
            allocation.data[:data.size] = data
            self.allocations.append(allocation)
        self.table = gpu.memory.allocate(DESCRIPTOR_SIZE * self.kernel.descriptor_count, "descriptor table")
        offsets = offsets or [0] * len(tensors)
        for i, (allocation, offset) in enumerate(zip(self.allocations, offsets)):
            write_buffer_descriptor(self.table.data, i * DESCRIPTOR_SIZE, allocation.gpu_va + offset,
                                    allocation.size - offset)
        self.temporary = None          # the temporary resource of a two-stage kernel: the slot after the tensors
        if self.kernel.temporary_bytes:
            self.temporary = gpu.memory.allocate(self.kernel.temporary_bytes, "temporary")
            write_buffer_descriptor(self.table.data, len(tensors) * DESCRIPTOR_SIZE, self.temporary.gpu_va,
                                    self.kernel.temporary_bytes)
        self.constants = gpu.memory.allocate(self.kernel.constants.size, "constants")
        self.constants.data[:] = self.kernel.constants

    def launch(self):
        return self.kernel.launch(self.table.gpu_va, self.constants.gpu_va)

    def dispatch(self):
        """Dispatch, then a barrier (as a UAV barrier after it would): the next dispatch on this GPU
        starts after this one has completed and the flush; stats.cycles runs from the start to
        the last wave's end and last store (the flush is the barrier's). A two-stage kernel dispatches
        both stages, a barrier after each; this returns the last one's stats, `self.stats` all of them."""
        self.stats = []
        for launch in self.kernel.launches(self.table.gpu_va, self.constants.gpu_va):
            self.stats.append(self.gpu.dispatch(launch))
            self.gpu.barrier()
        return self.stats[-1]

    def output_bytes(self, index=-1):
        return self.allocations[index].data

    def free(self):
        seen = set()
        for allocation in self.allocations + [self.table, self.constants] + [self.temporary] * bool(self.temporary):
            if id(allocation) not in seen:
                seen.add(id(allocation))
                self.gpu.memory.free(allocation)
