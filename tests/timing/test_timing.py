"""The timing model's mechanisms, one at a time (fidelity on whole kernels: test_fidelity.py)."""
import dataclasses

import numpy as np
import pytest

from dmlemu.isa import opcodes as op
from dmlemu.timing.command_processor import occupancy
from dmlemu.timing.kernel_path import ALU, SMEM, VMEM, WAIT, PathCost
from dmlemu.direct_run import DirectRun
from dmlemu.gpu import Gpu
from dmlemu.timing.copy_engine import CopyEngine
from dmlemu.timing.memory_system import DramServer, FifoServer
from dmlemu.presets import DEFAULT_PRESET, IRIS_XE, RTX_3070, RX_7900_XTX, TEACHING
from dmlemu.kernels.driver import TensorSpec, build_program, registers_used


def identity_run(preset, n, timing=True, dtype=np.float32, **gpu_args):
    x = np.arange(n, dtype=dtype)
    gpu = Gpu(preset, timing=timing, **gpu_args)
    spec = TensorSpec({np.float32: "FLOAT32", np.float16: "FLOAT16"}[dtype], (n,), None, x.nbytes)
    run = DirectRun(gpu, "ELEMENT_WISE_IDENTITY", [spec, spec], [x.view(np.uint8), np.zeros(x.nbytes, np.uint8)])
    return gpu, run


def test_fifo_server_is_exact_over_many_requests():
    server = FifoServer(clock_hz=3, bytes_per_second=7)   # 7/3 bytes per cycle: not an integer
    end = 0
    for _ in range(1000):
        _, end = server.serve(0, 5)
    assert end == -(-1000 * 5 * 3 // 7)
    assert server.bytes == 5000


def test_fifo_server_waits_for_earlier_requests_and_idles_when_free():
    server = FifoServer(clock_hz=1, bytes_per_second=2)   # 2 bytes per cycle
    assert server.serve(10, 8) == (10, 14)
    assert server.serve(11, 8) == (14, 18)   # queued behind the first
    assert server.serve(100, 2) == (100, 101)  # idle DRAM starts at once


def test_refresh_windows_stall_transfers():
    plain = FifoServer(clock_hz=1, bytes_per_second=1)
    refreshed = FifoServer(clock_hz=1, bytes_per_second=1, refresh_interval=100, refresh_cycles=10)
    assert plain.serve(0, 250) == (0, 250)
    assert refreshed.serve(0, 250) == (0, 270)   # two refresh windows crossed


def _bus(batch=100, turnaround=7):
    """A DRAM of 1 byte per cycle, no refresh, whose writes drain in batches of `batch` bytes."""
    return DramServer(dataclasses.replace(TEACHING, clock_hz=1, dram_bytes_per_second=1, refresh_cycles=0,
                                          refresh_interval_cycles=0, dram_write_batch_bytes=batch,
                                          dram_turnaround_cycles=turnaround))


def test_a_write_batch_after_reads_turns_the_dram_bus_around():
    dram = _bus()
    assert dram.serve_mixed(0, 50, 0) == (0, 50)        # reads
    assert dram.serve_mixed(0, 100, 100) == (50, 150)   # a whole batch of writes: the controller drains it
    assert dram.serve_mixed(0, 10, 0) == (157, 167)     # ... and the bus idled 7 cycles turning around
    assert dram.turnarounds == 1 and dram.busy_cycles == 160   # the bubble is not busy time
    assert dram.serve_mixed(0, 60, 60) == (167, 227) and dram.turnarounds == 1   # batch not full yet
    assert dram.serve_mixed(0, 40, 40) == (227, 267) and dram.turnarounds == 2   # 100 written: drained
    assert dram.serve_mixed(0, 1, 0) == (274, 275)


def test_read_only_and_write_only_streams_never_turn_the_bus_around():
    reads, writes = _bus(), _bus()
    for _ in range(20):
        reads.serve_mixed(0, 100, 0)
        writes.serve_mixed(0, 100, 100)
    assert reads.turnarounds == writes.turnarounds == 0
    assert reads.serve_mixed(0, 1, 0) == writes.serve_mixed(0, 1, 1) == (2000, 2001)


def test_turnaround_costs_a_streaming_copy_bandwidth_in_proportion_to_its_write_batches():
    preset = RX_7900_XTX
    n = 1 << 22              # 16 MiB written: more than the 6 MB L2, so write-backs reach DRAM
    stats = identity_run(preset, n)[1].dispatch()
    timing = stats.timing
    written = timing.traffic.totals["dram_writes"] * preset.sector_bytes
    batches = written // preset.dram_write_batch_bytes
    # Every batch turns the bus around but the few at the end, which follow no read.
    assert written > 0 and 0.95 * batches <= timing.dram_turnarounds <= batches
    plain = identity_run(dataclasses.replace(preset, dram_turnaround_cycles=0), n)[1].dispatch().cycles
    assert plain < stats.cycles
    # Reads wait for the bus; at most each bubble's cycles are lost to the dispatch.
    assert stats.cycles - plain <= timing.dram_turnarounds * preset.dram_turnaround_cycles + preset.dram_latency_cycles


def test_the_copy_engine_pays_one_turnaround_per_write_batch():
    preset = RX_7900_XTX
    engine, plain = CopyEngine(preset), CopyEngine(dataclasses.replace(preset, dram_turnaround_cycles=0))
    n = 10 * preset.dram_write_batch_bytes + 5
    assert engine.cycles(n) - plain.cycles(n) == 10 * preset.dram_turnaround_cycles


def test_occupancy_is_limited_by_vector_registers():
    program = build_program("ELEMENT_WISE_CLIP", "FLOAT16", False, True, False)  # general path: more registers
    vgprs, _ = registers_used(program)
    assert vgprs > 8
    assert occupancy(TEACHING, vgprs) == TEACHING.vgprs_per_simd_lane // (-(-vgprs // 8) * 8)
    assert occupancy(TEACHING, vgprs) < TEACHING.waves_per_simd
    assert occupancy(RX_7900_XTX, vgprs) == RX_7900_XTX.waves_per_simd


def test_same_dispatch_same_cycles_every_time():
    cycles = []
    for _ in range(5):
        gpu, run = identity_run(DEFAULT_PRESET, 100_000)
        cycles.append(run.dispatch().cycles)
    assert len(set(cycles)) == 1


def test_timing_on_and_off_give_identical_outputs():
    outputs = []
    for timing in (True, False):
        x = np.linspace(-3, 3, 50_001, dtype=np.float16)
        gpu = Gpu(DEFAULT_PRESET, timing=timing)
        spec = TensorSpec("FLOAT16", (x.size,), None, x.nbytes)
        run = DirectRun(gpu, "ELEMENT_WISE_CLIP", [spec, spec], [x.view(np.uint8), np.zeros(x.nbytes, np.uint8)],
                        min_value=-1.0, max_value=2.0, scale_bias=(1.5, 0.25))
        stats = run.dispatch()
        assert stats.cycles > 0
        outputs.append(run.output_bytes().copy())
    assert np.array_equal(outputs[0], outputs[1])


def test_more_elements_take_more_cycles():
    cycles = [identity_run(DEFAULT_PRESET, n)[1].dispatch().cycles for n in (1 << 10, 1 << 14, 1 << 18, 1 << 20)]
    assert cycles == sorted(cycles) and cycles[0] < cycles[-1]


def test_fewer_lines_in_flight_means_less_bandwidth():
    fast = identity_run(RX_7900_XTX, 1 << 20)[1].dispatch().cycles
    starved = identity_run(dataclasses.replace(RX_7900_XTX, max_lines_in_flight_per_cu=8), 1 << 20)[1].dispatch().cycles
    assert starved > 2 * fast


def test_refresh_costs_bandwidth():
    """A refresh stalls the transfers that span it; one that falls while the DRAM idles costs nothing
    (2^20 elements: the DRAM is busy 57 % of the time and idle at both refreshes), so the copy is
    large enough to keep the DRAM busy across them."""
    with_refresh = identity_run(RX_7900_XTX, 1 << 21)[1].dispatch().cycles
    without = identity_run(dataclasses.replace(RX_7900_XTX, refresh_cycles=0, refresh_interval_cycles=0),
                           1 << 21)[1].dispatch().cycles
    assert without < with_refresh       # measured 49,054 vs 50,241 cycles


def test_launch_and_flush_are_fixed_costs():
    """Launch is in the dispatch's cycles; the flush is the barrier's after it (DirectRun adds one)."""
    def measure(preset):
        gpu, run = identity_run(preset, 64)
        start = gpu.clock_cycles
        cycles = run.dispatch().cycles
        return cycles, gpu.clock_cycles - start
    base, base_total = measure(RX_7900_XTX)
    slower, slower_total = measure(dataclasses.replace(RX_7900_XTX, launch_cycles=RX_7900_XTX.launch_cycles + 1000,
                                                       flush_cycles=RX_7900_XTX.flush_cycles + 500))
    assert slower - base == 1000 and slower_total - base_total == 1500
    assert base_total == base + RX_7900_XTX.flush_cycles


def test_wider_waves_on_narrow_simds_take_more_passes():
    """A wave twice as wide as its SIMD (8 lanes on TEACHING's 4-lane SIMDs) issues every VALU and memory
    instruction in two passes: the same path costs exactly twice the issue cycles, in a cohort large
    enough that issue, not latency, bounds each instruction; scalar instructions take one pass."""
    assert TEACHING.simd_lanes == 4
    narrow_gpu, narrow = identity_run(TEACHING, 4096, wave_width=4)
    wide_gpu, wide = identity_run(TEACHING, 4096, wave_width=8)
    narrow_stats, wide_stats = narrow.dispatch(), wide.dispatch()
    assert wide_stats.waves * 8 == narrow_stats.waves * 4
    program = wide.launch().program
    path = max(wide_stats.record.paths, key=len)          # the body's path (the tail's is shorter)
    one, two = (PathCost(program, path, passes, TEACHING.smem_latency_percent).schedule(256)[0]
                for passes in (1, 2))
    assert [(a.kind, a.first_pc, a.last_pc) for a in one] == [(b.kind, b.first_pc, b.last_pc) for b in two]
    executed = path[:next(k for k, pc in enumerate(path) if program.records[pc].entry.kind == "end")]
    valu_issue = sum(program.records[pc].entry.issue_cycles for pc in executed
                     if program.records[pc].entry.unit == op.VALU)
    assert valu_issue > 0 and any(a.kind == VMEM for a in one)
    # Each VALU instruction issues once more per wave; nothing else changes.
    assert (sum(b.cycles for b in two if b.kind == ALU) - sum(a.cycles for a in one if a.kind == ALU)
            == 256 * valu_issue)
    for a, b in zip(one, two):
        assert b.cycles == (2 * a.cycles if a.kind == VMEM else b.cycles)
        if a.kind in (SMEM, WAIT):
            assert b.cycles == a.cycles


def test_clock_advances_over_dispatches_and_copies():
    gpu, run = identity_run(DEFAULT_PRESET, 4096)
    t0 = gpu.timestamp()
    run.dispatch()
    t1 = gpu.timestamp()
    a, b = run.allocations[0], run.allocations[1]
    cycles = gpu.copy_buffer(b, 0, a, 0, 4096)
    assert t1 > t0 and gpu.timestamp() == t1 + cycles
    assert gpu.copy_engine.cycles(1 << 20) > gpu.copy_engine.cycles(1 << 10)


@pytest.mark.parametrize("preset", [RX_7900_XTX, TEACHING], ids=lambda p: p.key)
def test_tail_waves_take_the_short_path(preset):
    """Waves whose every lane is past the end branch over the body: a second, shorter path."""
    gpu, run = identity_run(preset, 1000)
    stats = run.dispatch()
    record = stats.record
    first_element = np.arange(stats.waves) * preset.wave_width
    idle = first_element >= 1000
    assert len(record.paths) == (2 if idle.any() else 1)
    if idle.any():
        short = min(record.paths, key=len)
        assert (record.wave_path[idle] == record.paths[short]).all()
        assert (record.wave_path[~idle] != record.paths[short]).all()


@pytest.mark.parametrize("detail", ["dispatch", "wave", "instruction", "memory"])
def test_tracing_at_any_detail_leaves_cycles_unchanged(detail):
    from dmlemu.traces import capture
    untraced = identity_run(DEFAULT_PRESET, 200_000)[1].dispatch().cycles
    gpu, run = identity_run(DEFAULT_PRESET, 200_000)   # same starting clock: refresh is periodic in time
    with capture(gpu, detail):
        traced = run.dispatch().cycles
    assert traced == untraced


def test_the_timing_models_speed_work_moved_no_cycle():
    """Cycles and memory-request times pinned with the timing model before its speed work
    (flat issue calendar, per-block cohort traffic, narrow per-wave tables, faster cache chunks):
    it must give the same numbers. bench/timing_identity.py checks many more runs, trace bytes
    included, against a recording of the previous model. (rtx3070 was 6821 until its L1TEX tag rate, 4
    lines per clock, replaced the estimate of 1: a model change, not speed work. Issue 23's write
    back-pressure, refresh windows at fixed times, in-order CU wait queue, piecewise issue-port
    booking with ALU stalls left to the other group, and small-grid spread moved them all, on purpose:
    teaching 220971, rx7900xtx 8324, rtx3070 6895, irisxe 20735, starved 11330, wave64 7250, the three
    overlapping dispatches 36344/35995/36000, the transposed reads 10912 and 21379 before. Issue 23's
    DRAM banks with row buffers, miss queues sized from hardware and h200's measured DRAM latency moved
    them on purpose: rx7900xtx 7992, rtx3070 6965, irisxe 20977, starved 11288, wave64 7073, the transposed
    reads 9587 and 21589 before; teaching, which has no banks, kept its figures. The caches' issue order
    (generations of every wave slot, slot by slot, where wave order had each wave's load and store
    together) moved the three overlapping dispatches on the teaching GPU's 4 KiB L2, on purpose:
    33575/32926/32926 and the request times 407994163/408363182 before. Issue 23's CU-side caches by each cache's
    own reuse (cu_caches.py: an L0 per CU, where a workgroup's own re-reads were all it caught) moved
    irisxe's transposed read, whose 16 EUs share one L1, on purpose: 20596 before.)"""
    cycles = {p.key: identity_run(p, 100_003)[1].dispatch().cycles for p in (TEACHING, RX_7900_XTX, RTX_3070, IRIS_XE)}
    assert cycles == {"teaching": 204295, "rx7900xtx": 7280, "rtx3070": 5949, "irisxe": 20507}
    starved = dataclasses.replace(RX_7900_XTX, max_lines_in_flight_per_cu=8)    # requests sent in pieces
    assert identity_run(starved, 1 << 16)[1].dispatch().cycles == 11213
    assert identity_run(RX_7900_XTX, 1 << 16, wave_width=64)[1].dispatch().cycles == 6863   # two passes
    from dmlemu.traces import capture
    gpu, run = identity_run(TEACHING, 1 << 14)
    with capture(gpu, "memory") as cap:        # three dispatches with no barrier: they overlap
        assert [gpu.dispatch(run.launch()).cycles for _ in range(3)] == [33580, 33610, 33610]
    memory = cap.trace.memory
    assert (len(memory), int(memory["issue"].sum()), int(memory["complete"].sum())) == (8190, 411719371, 412091987)
    side = 128
    for preset, expected in ((RX_7900_XTX, 6677), (IRIS_XE, 19980)):
        source = TensorSpec("FLOAT32", (side, side), (1, side), side * side * 4)   # transposed read
        out = TensorSpec("FLOAT32", (side, side), None, side * side * 4)
        run = DirectRun(Gpu(preset), "ELEMENT_WISE_CLIP", [source, out], [np.zeros(side * side * 4, np.uint8),
                                                                           np.zeros(side * side * 4, np.uint8)],
                        min_value=0.0, max_value=1.0)
        assert run.dispatch().cycles == expected


def test_the_cu_wait_queue_sends_waiting_requests_in_arrival_order_in_pieces():
    """compute_unit.ComputeUnit: a request that does not fit the miss queue waits in the CU's queue;
    its process sends the first waiting request in pieces (at least a quarter of the queue) as
    earlier sectors retire, then the next; a request that arrives while others wait queues behind them."""
    from dmlemu.timing.compute_unit import ComputeUnit
    from dmlemu.timing.events import DONE, WAIT, Process
    from dmlemu.timing.memory_system import MemorySystem
    from dmlemu.timing.simpy_driver import SimpyDriver
    preset = dataclasses.replace(RX_7900_XTX, max_lines_in_flight_per_cu=8, refresh_interval_cycles=0,
                                 dram_turnaround_cycles=0)
    sector = preset.sector_bytes
    level = lambda n: (n * sector, 0, 0, 0, 0, 0)       # L2 hits only: done = L2 transfer + latency
    sends = []

    class Logged(MemorySystem):
        def request(self, now, l2, *rest):
            done = super().request(now, l2, *rest)
            sends.append((now, l2 // sector, done))
            return done

    class Requester(Process):
        """Arrives at `arrive` with `sectors`, asks the miss queue, waits in the wait queue if it must."""

        def __init__(self, cu, name, arrive, sectors, results):
            self.cu, self.name, self.arrive, self.sectors, self.results = cu, name, arrive, sectors, results
            self.request = None

        def resume(self, now):
            if self.request is not None:      # woken: the last piece was sent
                self.results[self.name] = (self.request.done, self.request.sent_at)
                return DONE
            if now < self.arrive:
                return self.arrive
            done = self.cu.try_issue(now, self.sectors, False, *level(self.sectors))
            if done >= 0:
                self.results[self.name] = (done, None)
                return DONE
            self.request = self.cu.wait_for_room(now, now, self.sectors, *level(self.sectors), False, self)
            return WAIT

    cu = ComputeUnit(0, preset, Logged(preset))
    driver = cu.scheduler = SimpyDriver()
    first = cu.try_issue(0, 8, False, *level(8))         # fills the queue until `first`
    assert cu.try_issue(0, 1, False, *level(1)) == -1
    sends.clear()
    results = {}
    # 12 sectors through a queue of 8: two pieces; b waits behind a.
    driver.run([Requester(cu, "a", 5, 12, results), Requester(cu, "b", 6, 2, results)], 0)
    # Each piece: one L2 cycle and the L2's 250-cycle latency. a's first piece (8 sectors) leaves when
    # `first` retires (251), its last 4 when that piece retires (502); b, behind a, then too (4 free).
    assert first == 251
    assert sends == [(251, 8, 502), (502, 4, 753), (502, 2, 753)]
    assert results == {"a": (753, 502), "b": (753, 502)}   # (last piece's completion, when it was sent)
    assert not cu.waiting and cu.sectors_in_flight == 6
    # A request that would fit still queues behind a waiting one (2 sectors wanted, 1 free): the CU
    # sends in order, so a faster memory that frees room sooner cannot reorder its requests.
    cu = ComputeUnit(0, preset, MemorySystem(preset))
    driver = cu.scheduler = SimpyDriver()
    cu.try_issue(0, 7, False, *level(7))
    results = {}
    driver.run([Requester(cu, "c", 1, 4, results), Requester(cu, "small", 2, 1, results)], 0)
    assert results["small"][1] == results["c"][1] is not None and results["small"][0] >= results["c"][0]


def test_parallel_workgroup_launchers_share_the_launch_cost_exactly():
    from dmlemu.timing.workgroup_dispatcher import WorkgroupDispatcher
    one = WorkgroupDispatcher(16, 1, 1, 0, np.zeros(16, np.int64))
    eight = WorkgroupDispatcher(16, 1, 1, 0, np.zeros(16, np.int64), launchers=8)
    assert one.take(0, 16) == (0, 0, 16) and one.next_launch == 16
    assert eight.take(0, 16) == (0, 0, 16) and eight.next_launch == 2
    # Three launchers, one workgroup at a time: 2 cycles each, so 2/3 of a cycle per workgroup, the
    # remainder carried: the fourth workgroup starts at cycle 2 (6 launcher-cycles / 3).
    three = WorkgroupDispatcher(4, 1, 2, 0, np.zeros(4, np.int64), launchers=3)
    starts = [three.take(0, 1)[0] for _ in range(4)]
    assert starts == [0, 0, 1, 2] and three.next_launch == 2 and three.launch_carry == 2


def test_a_workgroups_start_and_end_hold_its_slots_for_the_slot_cycles():
    """workgroup_slot_cycles: every hand-out's waves start that long after the slots asked, the launchers'
    rate kept apart (workgroup_dispatcher.py); a SIMD asking again later pays it again. Then a dispatch of
    one-shot workgroups (an IDENTITY of 2^18 elements) takes longer with more slot cycles."""
    from dmlemu.timing.workgroup_dispatcher import WorkgroupDispatcher
    held = WorkgroupDispatcher(8, 2, 1, 0, np.zeros(8, np.int64), slot_cycles=100)
    assert held.take(10, 4) == (110, 0, 4) and held.next_launch == 12
    assert held.take(11, 4) == (112, 4, 4) and held.handed_out == 112
    assert held.take(500, 4) is None
    cycles = []
    for slot in (0, 50, 400):
        _, run = identity_run(dataclasses.replace(RX_7900_XTX, workgroup_slot_cycles=slot), 1 << 18)
        cycles.append(run.dispatch().cycles)
    assert cycles[0] < cycles[1] < cycles[2]
