"""The GPU: one emulated device behind one DXGI adapter.

One per D3D12 device. Holds the device memory, the dispatcher that runs kernels in SIMD waves,
and the GPU clock (integer cycles) that timestamp queries read. The D3D12 command queue hands it
work in submission order: kernel dispatches and buffer copies.
"""
import numpy as np

from .dispatcher import Dispatcher
from .memory import GpuMemory
from .presets import DEFAULT_PRESET


class Gpu:
    """An emulated GPU built from an adapter preset."""

    def __init__(self, preset=DEFAULT_PRESET, *, wave_width=None):
        self.preset = preset
        self.memory = GpuMemory(preset.dedicated_video_memory)
        self.wave_width = wave_width or preset.wave_width
        self.dispatcher = Dispatcher(self.memory, self.wave_width)
        self.clock_cycles = 0
        self.timestamp_frequency = preset.clock_hz
        self.listeners = []  # callables(event: dict) for traces; empty means tracing is off

    # ---- work ---------------------------------------------------------------------------------
    def dispatch(self, launch):
        """Run a KernelLaunch to completion and advance the clock; returns its DispatchStats."""
        stats = self.dispatcher.run(launch)
        start = self.clock_cycles
        stats.cycles = self._dispatch_cycles(stats)
        self.clock_cycles = start + stats.cycles
        stats.start_cycle = start
        for listener in self.listeners:
            listener("dispatch", stats)
        return stats

    def copy_buffer(self, dst, dst_offset, src, src_offset, num_bytes):
        """Copy bytes between two allocations (the copy engine) and advance the clock."""
        if num_bytes:
            np.copyto(dst.data[dst_offset:dst_offset + num_bytes], src.data[src_offset:src_offset + num_bytes])
        cycles = self.preset.launch_cycles // 4 + self._bytes_cycles(2 * num_bytes)
        self.clock_cycles += cycles
        return cycles

    def timestamp(self):
        """The GPU clock in ticks of `timestamp_frequency`."""
        return self.clock_cycles

    # ---- time ---------------------------------------------------------------------------------
    def _bytes_cycles(self, num_bytes):
        bytes_per_cycle = self.preset.dram_bytes_per_second / self.preset.clock_hz
        return int(-(-num_bytes // bytes_per_cycle))

    def _dispatch_cycles(self, stats):
        """First-order cost: launch, then the larger of issue time and DRAM time."""
        simds = self.preset.compute_units * self.preset.simds_per_cu
        issue = -(-stats.wave_instructions // simds)
        memory = self._bytes_cycles(stats.bytes_read + stats.bytes_written) + self.preset.dram_latency_cycles
        return self.preset.launch_cycles + max(issue, memory)
