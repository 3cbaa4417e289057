"""The dispatcher: splits a dispatch into workgroups and waves and runs them in batches.

One per GPU. A dispatch of N workgroups of T threads becomes N * ceil(T / width) waves. Waves are
formed in dispatch order and executed `batch_lanes` lanes at a time (a batch of whole waves that
share a program counter), which keeps peak memory bounded for any dispatch size while each
instruction still runs as one NumPy operation over the batch.

Launch ABI (what a wave finds when it starts):
    s0 .. s(k-1)   the launch's user SGPRs (descriptor table address, constant buffer address, ...)
    s(k)           the workgroup id
    v0             the thread id within the workgroup
    (a compute shader launch, with a group grid: s(k) .. s(k+2) the group's X, Y, Z and v1 .. v3 the
    thread's X, Y, Z in its group; docs/KERNEL_ABI.md)
    EXEC           lanes whose thread id is < T
"""
from dataclasses import dataclass

import numpy as np

from dmlemu.dispatch_record import DispatchRecord, record_budget_bytes
from dmlemu.functional.executor import ExecutionStats, Watchdog, run
from dmlemu.functional.local_data_share import MAX_BATCH_LDS_BYTES, MAX_WORKGROUP_LDS_BYTES, LocalDataShare
from dmlemu.isa.opcodes import ORDER_FREE_ATOMICS
from dmlemu.isa.program import KernelFault
from dmlemu.functional.wave import Ramp, WaveBatch

# Lanes per batch: fewer batches mean less per-instruction Python overhead, larger ones more memory
# per lane array (4 MiB for 32-bit values at 2^20 lanes, under the mmap threshold set below). On
# the element-wise benchmark (2^24 FLOAT32, bench/bench_element_wise.py, a 2-core EPYC VM) 2^20 was
# fastest: GREATER_THAN 25 / 17 / 13 / 12 / 13 ms at 2^18 / 2^19 / 2^20 / 2^21 / 2^22 lanes.
DEFAULT_BATCH_LANES = 1 << 20
# The GPU timeout (docs/RELIABILITY.md): host seconds one dispatch may take in the executor, unless the
# environment's DMLEMU_DISPATCH_SECONDS says otherwise; and Windows' TDR, 2 seconds of GPU time.
DEFAULT_DISPATCH_SECONDS = 300.0
TDR_SECONDS = 2
# The most waves one dispatch may have with the timing model on (it keeps a few numbers per wave).
MAX_TIMED_WAVES = 1 << 26
_ZERO_ID = np.zeros((1, 1), dtype=np.uint32)
_ONE = np.ones((1, 1), dtype=np.uint32)


def _keep_freed_memory():
    """Performance trick: ask glibc to keep freed blocks instead of returning them to the OS.

    Every instruction of a batch allocates a fresh lane array (4 MiB for 32-bit values, 8 MiB for
    64-bit ones at DEFAULT_BATCH_LANES). With glibc's defaults such blocks are mmap-ed and unmapped
    each time, so every instruction pays page faults; measured on the CLIP FLOAT16 benchmark this
    cost about 40 % of the run time. Raising the mmap threshold to glibc's maximum (32 MiB) and the
    trim threshold makes those blocks reuse the heap. Set DMLEMU_NO_MALLOPT=1
    to leave the allocator alone; on other C libraries this does nothing.
    """
    import ctypes
    import os
    global _MALLOPT_DONE
    if _MALLOPT_DONE or os.environ.get("DMLEMU_NO_MALLOPT"):
        return
    _MALLOPT_DONE = True
    try:
        libc = ctypes.CDLL("libc.so.6")
        M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3
        libc.mallopt(M_MMAP_THRESHOLD, 32 << 20)
        libc.mallopt(M_TRIM_THRESHOLD, 256 << 20)
    except (OSError, AttributeError):
        pass


_MALLOPT_DONE = False   # set by the first Dispatcher (a GPU): importing dmlemu changes nothing


@dataclass
class KernelLaunch:
    """Everything needed to start a kernel: program, grid and initial scalar registers."""
    program: object               # isa.program.Program
    num_workgroups: int
    workgroup_size: int
    user_sgprs: tuple = ()        # 32-bit values for s0, s1, ...
    name: str = "kernel"
    elements: int = 0             # logical elements processed (for summaries)
    vgprs_used: int = 0           # registers the kernel needs (occupancy in the timing model)
    sgprs_used: int = 0
    # Compute shaders (D3D12 Dispatch): the grid of groups (X, Y, Z) and of threads in a group
    # (numthreads). With a grid, s(k), s(k+1), s(k+2) hold the group's X, Y, Z instead of the linear
    # group id, and v1, v2, v3 the thread's X, Y, Z in its group (docs/KERNEL_ABI.md).
    group_grid: tuple = ()
    thread_grid: tuple = ()
    lds_bytes: int = 0            # LDS each workgroup owns (a compute shader's .lds; local_data_share.py)


class Dispatcher:
    """Forms waves from a launch and runs them through the executor, batch by batch."""

    def __init__(self, memory, wave_width, batch_lanes=DEFAULT_BATCH_LANES, issue_per_second=None):
        if wave_width not in (4, 8, 16, 32, 64):
            raise ValueError(f"wave width must be 4, 8, 16, 32 or 64, got {wave_width}")
        self.memory = memory
        self.wave_width = wave_width
        self.batch_lanes = batch_lanes
        # Wave-instructions the modelled GPU can issue per second (one per SIMD per cycle), for the
        # timeout; None: no modelled-time budget.
        self.issue_per_second = issue_per_second
        _keep_freed_memory()

    def watchdog(self):
        """A new dispatch's Watchdog: DMLEMU_DISPATCH_SECONDS (or DEFAULT_DISPATCH_SECONDS) of host time, and
        the wave-instructions the GPU could issue in TDR_SECONDS (at one per SIMD per cycle: a GPU that
        must issue more cannot finish within Windows' timeout)."""
        import os
        text = os.environ.get("DMLEMU_DISPATCH_SECONDS", "")
        try:
            seconds = float(text) if text else DEFAULT_DISPATCH_SECONDS
        except ValueError:
            seconds = DEFAULT_DISPATCH_SECONDS
        if not seconds > 0:
            seconds = DEFAULT_DISPATCH_SECONDS
        budget = float("inf") if self.issue_per_second is None else TDR_SECONDS * self.issue_per_second
        return Watchdog(seconds, budget)

    def waves_per_workgroup(self, workgroup_size):
        return -(-workgroup_size // self.wave_width)

    def run(self, launch, sector_bytes=None, lds_banks=32):
        """Execute every wave of the launch; returns ExecutionStats. With `sector_bytes` (the timing
        model is on), stats.record is the DispatchRecord the timing model reads (`lds_banks`: the
        preset's LDS banks, for its bank-conflict counts)."""
        if not isinstance(launch.lds_bytes, int) or not 0 <= launch.lds_bytes <= MAX_WORKGROUP_LDS_BYTES:
            raise ValueError(f"{launch.program.name}: lds_bytes is {launch.lds_bytes!r}; a workgroup's LDS is an integer "
                             f"from 0 to {MAX_WORKGROUP_LDS_BYTES} bytes")
        width = self.wave_width
        per_group = self.waves_per_workgroup(launch.workgroup_size)
        total = launch.num_workgroups * per_group
        if sector_bytes is not None and total > MAX_TIMED_WAVES:
            raise KernelFault(f"{launch.program.name}: the dispatch has {total} waves ({launch.num_workgroups} "
                              f"workgroups of {launch.workgroup_size} threads); the timing model holds at most "
                              f"{MAX_TIMED_WAVES} waves per dispatch (run it with the timing model off, or split it)")
        record = (None if sector_bytes is None else
                  DispatchRecord(total, width, sector_bytes, len(launch.program), lds_banks, record_budget_bytes(),
                                 launch.program.name))
        stats = ExecutionStats(len(launch.program), launch.name, record)
        stats.waves = total
        stats.workgroups = launch.num_workgroups
        stats.elements = launch.elements
        groups_per_batch = self.workgroups_per_batch(launch)
        batch_waves = groups_per_batch * per_group
        watchdog = self.watchdog()
        for first in range(0, total, batch_waves):
            batch = self.form_batch(launch, first, min(total, first + batch_waves) - first)
            lds = None
            if launch.lds_bytes:
                group = first // per_group
                lds = LocalDataShare(launch.lds_bytes, group, min(launch.num_workgroups - group, groups_per_batch))
            run(launch.program, batch, self.memory, stats, lds, watchdog)
            watchdog.issued = stats.wave_instructions      # exact between batches
            watchdog.check(launch.program.name, None, None)
        return stats

    def workgroups_per_batch(self, launch):
        """Whole workgroups per batch: as many as fit `batch_lanes` lanes (at least one) and, with LDS,
        MAX_BATCH_LDS_BYTES of it; one when the kernel has a buffer atomic whose results depend on the
        order of the workgroups (a returned value, swap, compare-and-swap, float add): workgroups then
        run one after another, in order, whatever the batch size (docs/NUMERICS.md, "Atomics")."""
        per_group = self.waves_per_workgroup(launch.workgroup_size)
        groups = max(1, self.batch_lanes // (self.wave_width * per_group))
        if launch.lds_bytes:
            groups = max(1, min(groups, MAX_BATCH_LDS_BYTES // launch.lds_bytes))
        if any(r.entry.kind == "atomic" and (r.entry.returns or r.entry.name_of_operation not in ORDER_FREE_ATOMICS)
               for r in launch.program.records):
            groups = 1
        return groups

    def form_batch(self, launch, first_wave, count):
        """The WaveBatch of waves first_wave .. first_wave + count - 1 as they start (the launch ABI)."""
        width = self.wave_width
        per_group = self.waves_per_workgroup(launch.workgroup_size)
        waves = np.arange(first_wave, first_wave + count, dtype=np.uint32).reshape(-1, 1)
        batch = WaveBatch(count, width)
        group, in_group = waves // np.uint32(per_group), waves % np.uint32(per_group)
        batch.wave_index, batch.workgroup, batch.wave_in_group = waves, group, in_group
        for i, value in enumerate(launch.user_sgprs):
            batch.sgpr[i] = np.full((1, 1), value & 0xFFFFFFFF, dtype=np.uint32)
        batch.sgpr[len(launch.user_sgprs)] = group
        # The thread ids, in_group * width + lane, as a Ramp (wave.py): no per-lane array until an
        # instruction needs one; the prologue's index arithmetic and EXEC stay O(waves).
        thread = Ramp(in_group * np.uint32(width), _ONE, width)
        batch.vgpr[0] = thread
        if launch.group_grid:
            self._grid_ids(batch, len(launch.user_sgprs), group, thread, launch.group_grid, launch.thread_grid)
        batch.set_exec(thread < np.uint32(launch.workgroup_size))
        return batch

    @staticmethod
    def _grid_ids(batch, first_sgpr, group, thread, group_grid, thread_grid):
        """The 3-D ids of a compute shader launch: group X, Y, Z in s(k) .. s(k+2), thread X, Y, Z in v1 .. v3."""
        for i, part in enumerate(_split_ids(group, group_grid)):
            batch.sgpr[first_sgpr + i] = part
        for i, part in enumerate(_split_ids(thread, thread_grid)):
            batch.vgpr[1 + i] = part


def _split_ids(ids, grid):
    """Linear ids -> (X, Y, Z) in a grid, X fastest. A 1-D grid keeps the linear ids and two compact
    zeros: no per-lane work is added."""
    if grid[1] == 1 and grid[2] == 1:
        return ids, _ZERO_ID, _ZERO_ID
    gx, gy = np.uint32(grid[0]), np.uint32(grid[1])
    return ids % gx, (ids // gx) % gy, ids // (gx * gy)
