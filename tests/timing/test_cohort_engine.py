"""The timing units under their two drivers: events.EventHeap against simpy (simpy_driver.py).

The units (memory_system, compute_unit, simd, workgroup_dispatcher) are written once; both drivers run
the same unit objects, so every cycle, counter, server state and trace row must be the same. The simpy
driver is the reference order (DMLEMU_TIMING_ENGINE=simpy picks it). The fixed cases cover the paths
of the units: the issue port's bookings (two and three slot groups), scalar loads and waits, the miss
queue's wait queue in pieces (a starved queue), wave64 on 32-lane SIMDs, state carried from dispatch to
dispatch (also across drivers), DRAM refresh and bus turnarounds, the Infinity Cache, a copy stream
sharing DRAM, every trace detail, the interpreted build against the compiled one, the 64-bit guard; a
property test draws presets and layouts; wrongly ordered heaps must be caught.
"""
import dataclasses
import importlib
import shutil

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from dmlemu.direct_run import DirectRun
from dmlemu.gpu import Gpu
from dmlemu.kernels.driver import TensorSpec
from dmlemu.presets import RTX_3070, RX_7900_XTX, TEACHING
from dmlemu.timing import command_processor, events, physics, simd as simd_module
from dmlemu.tools.fidelity import layout_strides
from dmlemu.traces import capture


@pytest.mark.skipif(not (shutil.which("cc") or shutil.which("gcc")), reason="no C compiler here")
def test_the_units_are_compiled_where_a_compiler_is(monkeypatch):
    """`make test` installs with a C compiler present (as on the CI machine): every unit must have been
    compiled; a silent fallback to the interpreted units would make the timing model several times slower."""
    monkeypatch.delenv("DMLEMU_TIMING_PHYSICS", raising=False)
    for name in physics.UNITS + ("events",):
        module = importlib.import_module(f"dmlemu.timing.{name}")
        assert physics.compiled(module), f"setup.py did not compile emulator/timing/{name}.py ({module.__file__})"
    assert Gpu(RX_7900_XTX).command_processor.physics == "compiled"


def _layout_run(gpu, layout, data_type="FLOAT32", side=64, operator="ELEMENT_WISE_IDENTITY"):
    item = {"FLOAT16": 2, "FLOAT32": 4, "FLOAT64": 8}[data_type]
    n = side * side
    if layout == "padded":             # each row padded by one element
        strides, in_bytes = (side + 1, 1), side * (side + 1) * item
    else:
        strides, in_bytes = layout_strides(layout, side), n * item * (2 if layout == "stride2" else 1)
    source = TensorSpec(data_type, (side, side), strides, in_bytes)
    out = TensorSpec(data_type, (side, side), None, n * item)
    args = dict(min_value=-1.0, max_value=1.0) if operator == "ELEMENT_WISE_CLIP" else {}
    rng = np.random.default_rng(side)
    return DirectRun(gpu, operator, [source, out], [rng.integers(0, 255, in_bytes, dtype=np.uint8),
                                                    np.zeros(n * item, np.uint8)], **args)


def _facts(gpu, stats_list, trace):
    cp = gpu.command_processor
    memory = cp.memory
    servers = [memory.l2, memory.dram] + ([memory.infinity_cache] if memory.infinity_cache else [])
    out = {
        "dispatches": [(s.cycles, s.start_cycle, s.timing.end_cycle, s.timing.dram_bytes, s.timing.dram_busy_cycles,
                        s.timing.dram_turnarounds, s.timing.simd_busy_cycles) for s in stats_list],
        "servers": [(s.free_units, s.busy_cycles, s.bytes) for s in servers],
        "dram": (memory.dram.pending_write_bytes, memory.dram.read_since_drain, memory.dram.turnarounds,
                 memory.dram.shared_cycles, memory.dram.stream_start, memory.dram.stream_end),
        "cus": [(cu.front_end_free, cu.sectors_in_flight, sorted(cu.in_flight), len(cu.waiting))
                for cu in cp.compute_units],
        "simds": [(s.free_at, s.busy_cycles, s.last_store) for s in cp.simds],
        "clock": gpu.clock_cycles,
    }
    if trace is not None:
        out["tables"] = {name: np.ascontiguousarray(a).tobytes() for name, a in sorted(trace.tables.items())}
    return out


def _both(monkeypatch, scenario):
    """The scenario's facts under the simpy driver and under the event heap."""
    results = []
    for name in ("simpy", "heap"):
        monkeypatch.setenv("DMLEMU_TIMING_ENGINE", name)
        assert command_processor.engine() == name
        results.append(scenario())
    return results


def _scenario(preset, layout="packed", data_type="FLOAT32", side=64, detail=None, repeats=2, operator=None,
              wave_width=None, stream=None, engines=None, monkeypatch=None):
    """A scenario: `repeats` dispatches on one device (alternately dependent and independent); with
    `engines`, dispatch i runs under driver engines[i] (monkeypatch sets it)."""
    def run():
        gpu = Gpu(preset, **({"wave_width": wave_width} if wave_width else {}))
        r = _layout_run(gpu, layout, data_type, side, operator or "ELEMENT_WISE_IDENTITY")
        cap = capture(gpu, detail) if detail else None
        if cap:
            cap.begin()
        stats = []
        for i in range(repeats):
            if engines:
                monkeypatch.setenv("DMLEMU_TIMING_ENGINE", engines[i % len(engines)])
            if stream and i == 0:     # a copy stream open on DRAM while the dispatch runs
                gpu.command_processor.memory.dram.open_stream(gpu.clock_cycles, *stream)
            stats.append(r.dispatch() if i % 2 == 0 else gpu.dispatch(r.launch()))
        facts = _facts(gpu, stats, cap.end() if cap else None)
        facts["stream_end"] = gpu.command_processor.memory.dram.close_stream()
        facts["physics"] = gpu.command_processor.physics
        return facts
    return run


STARVED = dataclasses.replace(RX_7900_XTX, max_lines_in_flight_per_cu=8)
TINY_QUEUE = dataclasses.replace(TEACHING, max_lines_in_flight_per_cu=3, lookups_per_cycle_per_cu=1)

CASES = {
    "packed-rx7900xtx-instruction": dict(preset=RX_7900_XTX, detail="instruction"),
    "transposed-rtx3070-memory": dict(preset=RTX_3070, layout="transposed", detail="memory"),
    "clip16-broadcast-rx7900xtx-wave": dict(preset=RX_7900_XTX, layout="broadcast", data_type="FLOAT16",
                                            operator="ELEMENT_WISE_CLIP", detail="wave"),
    "starved-transposed-memory": dict(preset=STARVED, layout="transposed", detail="memory"),
    "tinyqueue-stride2-teaching": dict(preset=TINY_QUEUE, layout="stride2", side=32, detail="memory", repeats=3),
    "wave64-float64-transposed": dict(preset=RX_7900_XTX, layout="transposed", data_type="FLOAT64", wave_width=64),
    "copy-stream-sharing-dram": dict(preset=RTX_3070, side=128, stream=(1 << 20, 4000)),
    "teaching-padded-instruction": dict(preset=TEACHING, layout="padded", side=32, detail="instruction"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_event_heap_matches_the_simpy_driver(monkeypatch, case):
    simpy_facts, heap_facts = _both(monkeypatch, _scenario(**CASES[case]))
    assert heap_facts == simpy_facts


@pytest.mark.parametrize("groups", [1, 3])
def test_the_drivers_match_with_other_slot_group_counts(monkeypatch, groups):
    monkeypatch.setattr(simd_module, "ISSUE_GROUPS", groups)
    simpy_facts, heap_facts = _both(monkeypatch, _scenario(RTX_3070, "transposed", detail="instruction"))
    assert heap_facts == simpy_facts


def test_dispatches_continue_each_other_whichever_driver_ran_them(monkeypatch):
    """The units keep their state between dispatches (they live as long as the device): dispatches run
    alternately by the heap and by simpy give what four under simpy give."""
    def facts(engines):
        return _scenario(STARVED, "transposed", detail="memory", repeats=4, engines=engines,
                         monkeypatch=monkeypatch)()
    reference = facts(["simpy"])
    assert facts(["heap", "simpy"]) == reference
    assert facts(["simpy", "heap"]) == reference


def test_the_interpreted_units_give_what_the_compiled_ones_give(monkeypatch):
    """DMLEMU_TIMING_PHYSICS=interpreted runs the same .py files as Python source."""
    scenario = _scenario(STARVED, "transposed", detail="memory", repeats=3)
    monkeypatch.delenv("DMLEMU_TIMING_ENGINE", raising=False)
    default = scenario()
    monkeypatch.setenv("DMLEMU_TIMING_PHYSICS", "interpreted")
    interpreted = scenario()
    assert interpreted.pop("physics") == "interpreted"
    default.pop("physics")
    assert interpreted == default


def test_rates_too_large_for_64_bits_run_the_interpreted_units(monkeypatch):
    """A DRAM rate whose byte-time units do not fit 64-bit arithmetic (clock and bandwidth coprime and
    large): the device runs the interpreted units (Python integers), under either driver."""
    preset = dataclasses.replace(TEACHING, clock_hz=1_000_000_007, dram_bytes_per_second=998_244_353_000_001)
    assert not physics.fits_64_bits(preset) and physics.fits_64_bits(TEACHING)
    simpy_facts, heap_facts = _both(monkeypatch, _scenario(preset, side=32, repeats=1))
    assert heap_facts == simpy_facts and heap_facts["physics"] == "interpreted"
    assert max(s[0] for s in heap_facts["servers"]) >= physics.START_LIMIT    # past the compiled range


def test_a_dispatch_past_the_64_bit_range_is_refused_on_the_compiled_units():
    gpu = Gpu(TEACHING)
    if gpu.command_processor.physics != "compiled":
        pytest.skip("the units are interpreted here")
    run = _layout_run(gpu, "packed", side=8)
    gpu.clock_cycles = gpu.idle_cycle = 1 << 56      # 2^56 cycles x 32 units a cycle (the L2) >= 2^60
    with pytest.raises(OverflowError, match="DMLEMU_TIMING_PHYSICS=interpreted"):
        run.dispatch()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(layout=st.sampled_from(["packed", "transposed", "broadcast", "stride2", "padded"]),
       data_type=st.sampled_from(["FLOAT16", "FLOAT32", "FLOAT64"]),
       side=st.sampled_from([8, 24, 40]),
       base=st.sampled_from([TEACHING, RTX_3070, RX_7900_XTX]),
       queue=st.integers(1, 64), lookups=st.integers(1, 8), refresh=st.sampled_from([0, 50, 3900]),
       turnaround=st.sampled_from([0, 7]), batch=st.sampled_from([64, 1024]))
def test_the_drivers_match_on_drawn_presets(monkeypatch, layout, data_type, side, base, queue, lookups,
                                            refresh, turnaround, batch):
    preset = dataclasses.replace(base, max_lines_in_flight_per_cu=queue, lookups_per_cycle_per_cu=lookups,
                                 refresh_interval_cycles=refresh, refresh_cycles=13 if refresh else 0,
                                 dram_turnaround_cycles=turnaround, dram_write_batch_bytes=batch,
                                 compute_units=min(base.compute_units, 4))
    simpy_facts, heap_facts = _both(monkeypatch, _scenario(preset, layout, data_type, side, detail="memory"))
    assert heap_facts == simpy_facts


class _ByProcess(events.EventHeap):
    """Wrong: among events of one cycle and priority, the order of the processes' addresses goes first
    (a calendar keyed by process), not the order they were scheduled in."""

    def push(self, time, priority, process):
        self.scheduled = id(process) & ((1 << 61) - 1)
        super().push(time, priority, process)


class _WakeLate(events.EventHeap):
    """Wrong: a woken process resumes a cycle after the unit woke it."""

    def wake(self, process, now):
        self.push(now + 1, events.NORMAL, process)


class _LastScheduledFirst(events.EventHeap):
    """Wrong: among events of one cycle and priority, the one scheduled last goes first."""

    def __init__(self, capacity):
        super().__init__(capacity)
        self.scheduled = (1 << 61) - 1

    def push(self, time, priority, process):
        super().push(time, priority, process)
        self.scheduled -= 2        # push added one: scheduling numbers count down


@pytest.mark.parametrize("mutant", [_ByProcess, _WakeLate, _LastScheduledFirst], ids=lambda m: m.__name__)
def test_a_wrongly_ordered_heap_is_caught(monkeypatch, mutant):
    """The comparison has teeth: a heap that breaks simpy's order somewhere gives other facts on one of
    the fixed cases."""
    monkeypatch.setenv("DMLEMU_TIMING_ENGINE", "simpy")
    cases = ["starved-transposed-memory", "tinyqueue-stride2-teaching", "clip16-broadcast-rx7900xtx-wave"]
    reference = [_scenario(**CASES[c])() for c in cases]
    monkeypatch.setenv("DMLEMU_TIMING_ENGINE", "heap")
    monkeypatch.setattr(command_processor, "EventHeap", mutant)
    assert [_scenario(**CASES[c])() for c in cases] != reference


@settings(max_examples=60, deadline=None)
@given(rows=st.lists(st.tuples(*[st.integers(0, 2)] * 3, st.integers(0, 10_000), st.integers(1, 16),
                               st.integers(0, 1000), st.integers(0, 1000), st.integers(0, 10_000)),
                     min_size=1, max_size=200),
       max_rows=st.integers(0, 40), detail=st.sampled_from(["dispatch", "wave", "memory"]),
       before=st.integers(0, 30))
def test_the_recorders_bulk_wave_groups_equal_one_call_per_cohort(rows, max_rows, detail, before):
    """TraceRecorder.wave_groups (how the slot groups hand their rows over, at a dispatch's end) keeps
    the same table rows (packed or spilled), row limit, summary and counters' input as wave_group called once per cohort,
    whatever was recorded before."""
    from dmlemu.traces.recorder import TraceRecorder
    recorders = [TraceRecorder(RX_7900_XTX, 32, detail, max_rows=max_rows, spill_bytes=64 * 40) for _ in range(2)]
    for r in recorders:
        for k in range(before):
            r.wave_group(k % 3, k % 2, 0, k, 8, k, k + 5, 3)
    one, bulk = recorders
    for cu, simd, group, first, waves, start, end, alu in rows:
        one.wave_group(cu, simd, group, first, waves, start, end, alu)
    bulk.wave_groups(*[list(column) for column in zip(*rows)])

    def state(r):
        t = r.tables["wave_groups"]
        kept = (t.count, t.finish().tobytes())     # the table's rows, packed or spilled
        return (kept, sorted(r.aggregated), r.dropped, r._summary, r._busy_rows().tolist())
    assert state(bulk) == state(one)
