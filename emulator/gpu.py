"""The GPU: one emulated device behind one DXGI adapter.

One per D3D12 device. Holds the device memory, the dispatcher that runs kernels in SIMD waves
(the functional model), and the timing model: the command processor (with the device's caches,
whose contents carry over from dispatch to dispatch), compute units, memory system and copy
engine, which keep the GPU clock in integer cycles that timestamp queries read.

Functional results never depend on timing: with timing=False the same work gives bit-identical
outputs and the clock advances by a first-order estimate instead of the simulation.

Two clocks: `clock_cycles` is the command processor's (when it reads the next command) and
`idle_cycle` the bottom of the pipe (when everything issued so far has completed). Dispatches
overlap when no barrier separates them; `barrier()` joins the two clocks.

Host memory: on a discrete GPU (a preset with a host link, uma False) the D3D12 layer marks the
allocations of UPLOAD and READBACK heaps (and CUSTOM heaps in the L0 pool) as host memory
(`note_host_memory`); copies from or to them stream over the host link (timing/copy_engine.py) and a
kernel's accesses to them cross it past the caches (timing/caches.py, timing/memory_system.py). On a
UMA preset the mark changes nothing.

Guard bytes (functional/device_memory.py) are a testing aid: `guard_bytes=64`, or the environment variable
DMLEMU_GUARD_BYTES=64 when the keyword is left out (so devices the D3D12 mirror creates get them
too), surrounds every allocation with a checked guard zone. Off (0) by default.
"""
import os
import warnings

import numpy as np

from dmlemu.timing.command_processor import CommandProcessor
from dmlemu.timing.copy_engine import CopyEngine
from dmlemu.functional.wave_dispatcher import Dispatcher
from dmlemu.functional.device_memory import GpuMemory
from dmlemu.errors import E_INVALIDARG, HResultError, short_repr
from dmlemu.presets import DEFAULT_PRESET, AdapterPreset, preset_problem

COMPUTE, COPY = "compute", "copy"   # the engines: DIRECT and COMPUTE queues, COPY queues


class Gpu:
    """An emulated GPU built from an adapter preset."""

    def __init__(self, preset=DEFAULT_PRESET, *, wave_width=None, timing=True, guard_bytes=None):
        problem = preset_problem(preset)
        if problem:
            key = preset.key if isinstance(preset, AdapterPreset) else preset
            raise HResultError(E_INVALIDARG, f"adapter preset {short_repr(key)}: {problem}")
        self.preset = preset
        if guard_bytes is None:
            guard_bytes = _guard_bytes_from_environment()
        self.memory = GpuMemory(preset.dedicated_video_memory, guard_bytes=guard_bytes)
        self.wave_width = wave_width or preset.wave_width
        self.dispatcher = Dispatcher(self.memory, self.wave_width,
                                     issue_per_second=preset.compute_units * preset.simds_per_cu * preset.clock_hz)
        self.command_processor = CommandProcessor(preset, self.wave_width)
        self.copy_engine = CopyEngine(preset)
        self.timing = timing
        self.clock_cycles = 0     # the command processor: when it can read the next command
        self.idle_cycle = 0       # the bottom of the pipe: when all work issued so far has completed
        self._unflushed = False   # work issued since the last barrier
        self.copy_clock = 0       # the copy engine's own timeline (COPY queues run beside compute)
        self._open_copy = None    # (start, bytes, dst, src) of a COPY-queue copy whose end is not settled
        self.timestamp_frequency = preset.clock_hz
        self._recorder = None  # a traces recorder while a capture is active; None costs nothing
        self.host_link = bool(preset.host_link_effective_bytes_per_second()) and not preset.uma
        self._host_allocations = []   # live allocations in host memory (note_host_memory)
        self._host_ranges_sent = ()   # the ranges the caches were last told

    @property
    def recorder(self):
        return self._recorder

    @recorder.setter
    def recorder(self, recorder):
        self._settle_copy()      # an open copy's trace row goes to the capture it started in
        self._recorder = recorder

    # ---- host memory --------------------------------------------------------------------------
    def note_host_memory(self, allocation):
        """`allocation` (anything with gpu_va, size and freed) lives in host memory, behind the host
        link, until it is freed. Ignored without a host link (UMA: host heaps are the device's memory)."""
        if self.host_link:
            self._host_allocations.append(allocation)

    def host_ranges(self):
        """The (gpu_va, size) of every live host-memory allocation (freed ones are forgotten)."""
        if any(a.freed for a in self._host_allocations):
            self._host_allocations = [a for a in self._host_allocations if not a.freed]
        return [(a.gpu_va, a.size) for a in self._host_allocations]

    def is_host_memory(self, allocation):
        """Whether `allocation` is (in) a live host-memory allocation."""
        va = allocation.gpu_va
        return any(a.gpu_va <= va < a.gpu_va + a.size for a in self._host_allocations if not a.freed)

    # ---- work ---------------------------------------------------------------------------------
    def begin_submission(self, engine=COMPUTE):
        """An ExecuteCommandLists call reached the command processor (COMPUTE: DIRECT and COMPUTE
        queues) or the copy engine (COPY queues)."""
        if engine == COPY:
            self._settle_copy()
            self.copy_clock += self.preset.submit_cycles
            return
        self.clock_cycles += self.preset.submit_cycles
        if self.recorder is not None:
            self.recorder.submission(self.clock_cycles)

    def dispatch(self, launch):
        """Run a KernelLaunch (functionally to completion at once); returns its ExecutionStats.

        Timed, the dispatch starts when the command processor reads it and the command processor
        goes on once its last waves have a SIMD: with no barrier in between, the next dispatch
        overlaps this one's tail (timing/command_processor.py). stats.cycles runs from the start
        to the last wave's end and last store. Untimed, a first-order estimate, one after another.
        """
        if launch.lds_bytes > self.preset.lds_max_bytes_per_workgroup:
            raise ValueError(f"KernelLaunch.lds_bytes is {launch.lds_bytes}; adapter preset {self.preset.key} allows "
                             f"at most {self.preset.lds_max_bytes_per_workgroup} bytes of LDS per workgroup")
        stats = self.dispatcher.run(launch, sector_bytes=self.preset.sector_bytes if self.timing else None,
                                    lds_banks=self.preset.lds_banks)
        start = self.clock_cycles
        overflow = stats.record.overflow if stats.record is not None else None
        if overflow is not None:
            # The timing record passed its host budget (dispatch_record.py): the dispatch ran, its time is
            # the estimate of the timing model off, and the trace row says untimed.
            warnings.warn(overflow, RuntimeWarning, stacklevel=2)
            stats.record = None
        if self.timing and overflow is None:
            if self.host_link:
                ranges = tuple(self.host_ranges())
                if ranges != self._host_ranges_sent:
                    self.command_processor.caches.set_host_ranges(list(ranges))
                    self._host_ranges_sent = ranges
            handed_out, end = self.command_processor.simulate_dispatch(launch, stats, start, self.recorder)
            self.clock_cycles = handed_out
        else:
            end = start + self._estimate_cycles(stats)
            if self.recorder is not None:
                self.recorder.untimed_dispatch(launch, stats, start, end)
            self.clock_cycles = end
        stats.cycles = end - start
        stats.start_cycle = start
        self.idle_cycle = max(self.idle_cycle, end)
        self._unflushed = True
        return stats

    def barrier(self, release=False, engine=COMPUTE):
        """A barrier (ResourceBarrier, or the end of an ExecuteCommandLists): the command processor
        waits until all work issued so far has completed and pays `flush_cycles` (wait, invalidate
        the CUs' own caches, signal) when there was any since the last barrier. A release (a
        transition out of UAV use, the end of an ExecuteCommandLists) also makes the results
        visible to other agents (copy engine, CPU): the L2 writes its dirty sectors back and the
        clock advances while it does. Returns the cycles the command processor spent. On the copy
        engine, whose copies are already complete in order and bypass the caches, a barrier is free."""
        if engine == COPY:
            return 0
        before = idle = flushed = self.clock_cycles
        if self._unflushed:
            idle = max(self.clock_cycles, self.idle_cycle)
            flushed = self.clock_cycles = idle + self.preset.flush_cycles
            self._unflushed = False
        if release and self.timing:
            self.clock_cycles += self.command_processor.release_cycles()
        self.idle_cycle = max(self.idle_cycle, self.clock_cycles)
        if self.recorder is not None and self.clock_cycles > before:
            self.recorder.barrier(before, idle, flushed, self.clock_cycles, release)
        return self.clock_cycles - before

    def copy_rows(self, dst, src, rows, engine=COMPUTE):
        """Copy rows (dst_offset, src_offset, num_bytes) between two allocations as ONE copy (a texture
        copy, CopyTextureRegion): each row's bytes move as copy_buffer moves them, and the copy is timed
        as copy_buffer times one copy of their total."""
        total = 0
        for dst_offset, src_offset, num_bytes in rows:
            if num_bytes:
                np.copyto(dst.data[dst_offset:dst_offset + num_bytes], src.data[src_offset:src_offset + num_bytes])
                self.command_processor.caches.invalidate(dst.gpu_va + dst_offset, num_bytes)
                total += num_bytes
        return self.copy_buffer(dst, 0, src, 0, total, engine, move=False)

    def copy_buffer(self, dst, dst_offset, src, src_offset, num_bytes, engine=COMPUTE, move=True):
        """Copy bytes between two allocations and advance the engine's clock; returns the copy's
        cycles as known now. The copy writes memory behind the L2, whose copies of the destination
        bytes become stale. On a DIRECT or COMPUTE queue it runs in the command processor's order.

        On the COPY engine it runs on its own timeline, beside compute work, and shares DRAM with
        it (timing/memory_system.py): its bytes start behind the DRAM requests already queued, and
        stay an open stream on the DRAM server, half the bus each with the compute requests that
        overlap it, until its end is observed (the copy engine's timestamp, a fence signal, its
        next submission or copy, the end of a trace capture): then the copy engine's clock moves to
        where the sharing pushed the end, and its trace row is written."""
        if num_bytes and move:     # move=False: copy_rows moved the bytes; only the timing is left
            np.copyto(dst.data[dst_offset:dst_offset + num_bytes], src.data[src_offset:src_offset + num_bytes])
            self.command_processor.caches.invalidate(dst.gpu_va + dst_offset, num_bytes)
        if self.host_link and (self.is_host_memory(src) or self.is_host_memory(dst)):
            return self._host_copy(dst, src, num_bytes, engine)
        cycles = self.copy_engine.cycles(num_bytes)
        if engine == COPY:
            self._settle_copy()
            start = self.copy_clock
            if self.timing and num_bytes:
                ce = self.copy_engine
                _, end = self.command_processor.memory.dram.open_stream(
                    start + ce.setup_cycles(), 2 * num_bytes, ce.stream_cycles(num_bytes))   # read and write
                self._open_copy = (start, num_bytes, dst.name, src.name)
                self.copy_clock = end + ce.latency_cycles(num_bytes)
                return self.copy_clock - start
            if self.recorder is not None:
                self.recorder.copy(start, start + cycles, num_bytes, dst.name, src.name)
            self.copy_clock = start + cycles
            return cycles
        start = self.clock_cycles
        if self.recorder is not None:
            self.recorder.copy(start, start + cycles, num_bytes, dst.name, src.name)
        self.clock_cycles = start + cycles
        self.idle_cycle = max(self.idle_cycle, self.clock_cycles)
        self._unflushed = True
        return cycles

    def _host_copy(self, dst, src, num_bytes, engine):
        """A copy from or to host memory (copy_buffer): its bytes cross the host link after the copy
        engine's setup, behind what the link's direction already carries (a kernel's host accesses, an
        earlier copy), towards the device when the source is host memory and towards the host when the
        destination is (both at once, full duplex, host to host); it ends one link latency after its
        last byte. It does not use DRAM's bus (timing/copy_engine.py). Returns its cycles."""
        ce = self.copy_engine
        if engine == COPY:
            self._settle_copy()
            start = self.copy_clock
        else:
            start = self.clock_cycles
        end = start + ce.host_cycles(num_bytes)
        if self.timing and num_bytes:
            link = self.command_processor.memory.host_link
            at = start + ce.setup_cycles()
            for to_host in (False, True):
                if (to_host and self.is_host_memory(dst)) or (not to_host and self.is_host_memory(src)):
                    first, last = link.transfer(at, num_bytes, to_host)
                    end = max(end, last)
                    if self.recorder is not None:
                        self.recorder.host_transfer(first, last, num_bytes, to_host)
        if self.recorder is not None:
            self.recorder.copy(start, end, num_bytes, dst.name, src.name)
        if engine == COPY:
            self.copy_clock = end
        else:
            self.clock_cycles = end
            self.idle_cycle = max(self.idle_cycle, end)
            self._unflushed = True
        return end - start

    def timestamp(self, engine=COMPUTE):
        """The engine's clock in ticks of `timestamp_frequency`, written at the bottom of the pipe:
        when all work before it on that engine has completed (it does not hold up the command
        processor)."""
        if engine == COPY:
            self._settle_copy()
            return self.copy_clock
        return max(self.clock_cycles, self.idle_cycle)

    def wait_until(self, cycle, engine=COMPUTE):
        """A queue Wait on a fence that some engine signalled at `cycle`: this engine's later work
        starts no earlier."""
        if engine == COPY:
            self._settle_copy()
            self.copy_clock = max(self.copy_clock, cycle)
        else:
            self.clock_cycles = max(self.clock_cycles, cycle)
            self.idle_cycle = max(self.idle_cycle, self.clock_cycles)

    def _settle_copy(self):
        """The open COPY-queue copy's end is observed: close its DRAM stream where the compute
        requests that shared the bus pushed it, move the copy engine's clock there and write its
        trace row."""
        if self._open_copy is None:
            return
        start, num_bytes, dst, src = self._open_copy
        self._open_copy = None
        end = self.command_processor.memory.dram.close_stream() + self.copy_engine.latency_cycles(num_bytes)
        if end > self.copy_clock:
            self.copy_clock = end
        if self._recorder is not None:
            self._recorder.copy(start, self.copy_clock, num_bytes, dst, src)

    # ---- emulation-only time ------------------------------------------------------------------
    def _estimate_cycles(self, stats):
        """First-order cost when the timing model is off: launch, then issue or DRAM time."""
        p = self.preset
        simds = p.compute_units * p.simds_per_cu
        issue = -(-stats.wave_instructions // simds)
        moved = stats.bytes_read + stats.bytes_written
        memory = -(-moved * p.clock_hz // p.dram_bytes_per_second) + p.dram_latency_cycles
        return p.launch_cycles + max(issue, memory)


def _guard_bytes_from_environment():
    """DMLEMU_GUARD_BYTES as a non-negative int (unset or empty: 0)."""
    text = os.environ.get("DMLEMU_GUARD_BYTES", "").strip()
    if not text:
        return 0
    try:
        value = int(text, 0)
    except ValueError:
        raise ValueError(f"DMLEMU_GUARD_BYTES is {text!r}; it must be a non-negative integer") from None
    if value < 0:
        raise ValueError(f"DMLEMU_GUARD_BYTES is {text!r}; it must be a non-negative integer")
    return value
