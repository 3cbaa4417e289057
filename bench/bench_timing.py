"""Benchmark: the cost of the timing model and per-wave tracing, against the golden NumPy model.

1. CLIP FLOAT16 with ScaleBias on 16,777,216 elements, RX 7900 XTX preset, timing on and a per-wave
   trace captured: wall time against the golden model's time in the same process (target:
   <= 5x).
2. A transposed 2048 x 2048 FLOAT32 IDENTITY with timing against the golden gather (target <= 20x).
3. IDENTITY FLOAT32 on 2^28 elements with timing (target <= 15 s CPU on a 2-core machine, peak memory
   <= 2x the tensors' bytes), and how the cost grows with size.
The interpreted physics (--physics interpreted) is to stay within 3x of the compiled.

    .venv/bin/python bench/bench_timing.py [--skip-large] [--cpu] [--engine simpy] [--physics interpreted]

The timing units run compiled where setup.py built them (emulator/timing/physics.py), driven by the
event heap (events.EventHeap); --engine simpy drives the same units by simpy (the reference order, the
same cycles), --physics interpreted runs the units' .py sources even where compiled ones exist.

On a machine shared with other work, wall times swing by 30 % or more from run to run; --cpu times
every column (the golden model's too) with the process's CPU time instead, which other processes
disturb less. Either way, compare medians of several runs.

Measured (2026-11-28, a later session's 2-core VM (an AMD EPYC), idle, --cpu, two to four runs each):
- CLIP 2^24 timed + wave trace: 0.323-0.337 s compiled, 4.6-4.7x the golden model (0.070-0.075 s); timed without
  the trace 0.289-0.304 s. Where a compiled dispatch's time goes (cProfile): the functional model about 0.075 s,
  the cache accounting (timing/caches.py: the L2's chunked tag passes and the levels beyond it) about 0.14 s, the
  timing units about 0.075 s.
- Transposed 2048^2 IDENTITY: 0.31 s, 11.7-12.2x the golden gather (best of three timed dispatches, as the golden
  column; the process's first timed dispatch, 0.34-0.54 s, pays the page faults of the accounting's first large
  temporaries).
- IDENTITY FLOAT32 2^28 timed: 9.2 s CPU, peak memory 1.97x the tensors' 2 GiB.
- The interpreted physics (--physics interpreted), CLIP 2^24: timed 1.155-1.175 s, 4.0x the compiled; timed + trace
  1.356-1.376 s, 4.0-4.1x; repeated dispatches on one device (warm caches) 1.28 s against 0.28 s, 4.6x. The
  3x target is missed. The ratio depends on the CPU: the same tree measured 2.9-3.6x on the previous session's VM,
  where compiled code and NumPy ran about 1.7x slower and the interpreter 1.3-1.4x slower than here. The functional
  model and the cache accounting (about 0.215 s) are the same code in both builds, so 3x needs the interpreted
  units at about 0.66 s, against 0.95 s: 30 % fewer. Per memory request they execute about 1,740 bytecodes in
  about 20 calls (sys.settrace opcode counts, CLIP 2^22): the walk and the issue port 32 %, the memory
  system (three FifoServer.finish, the DRAM write queue, MemorySystem.request) 26 %, the request's way through
  the slot group and the CU (send, sent, costs, the front end, the miss queue) 28 %, the state machine, event
  heap and dispatcher 14 %. The calls are not where the time goes: an experiment
  (not kept, since the house rule is one copy of each mechanism) that inlined the request's whole path (the
  front end, the miss queue, MemorySystem.request, the L2 and Infinity Cache servers) into the slot group's send,
  and the issue port's append into the walk, made 34 % fewer calls and 4 % fewer bytecodes and ran 5 % faster
  (1.207 s against 1.277 s, best of five, the same cycles). A heap of integer keys instead of tuples was no
  faster either. The time is the mechanisms' own integer arithmetic and state updates.
"""
import argparse
import os
import resource
import time

import numpy as np


from dmlemu import golden
from dmlemu.direct_run import DirectRun
from dmlemu.gpu import Gpu
from dmlemu.presets import RX_7900_XTX
from dmlemu.kernels.driver import TensorSpec
from dmlemu.traces import capture

CLIP = dict(min_value=-1.0, max_value=1.0, scale_bias=(2.0, 0.5))


def clip_run(n, timing=True):
    x = (np.random.default_rng(n).standard_normal(n) * 3).astype(np.float16)
    gpu = Gpu(RX_7900_XTX, timing=timing)
    spec = TensorSpec("FLOAT16", (n,), None, x.nbytes)
    run = DirectRun(gpu, "ELEMENT_WISE_CLIP", [spec, spec], [x.view(np.uint8), np.zeros(x.nbytes, np.uint8)], **CLIP)
    return x, gpu, run


def _reset_peak_memory():
    """Linux: reset the process's peak resident set (VmHWM) to its current size."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        pass


def _peak_memory():
    """Peak resident bytes since the last reset (VmHWM on Linux), else since the process started."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


CLOCK = time.perf_counter   # time.process_time with --cpu


def timed(fn):
    start = CLOCK()
    value = fn()
    return CLOCK() - start, value


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-large", action="store_true", help="skip the large IDENTITY run")
    parser.add_argument("--log2-large", type=int, default=28, help="log2 of the large run's elements (28)")
    parser.add_argument("--cpu", action="store_true", help="time with the process's CPU time, not wall time")
    parser.add_argument("--engine", choices=("heap", "simpy"), default=None,
                        help="the driver of the timing units (default: the heap, compiled or not)")
    parser.add_argument("--physics", choices=("default", "interpreted"), default="default",
                        help="interpreted: the timing units' Python sources even where compiled ones exist")
    args = parser.parse_args(argv)
    if args.engine:
        os.environ["DMLEMU_TIMING_ENGINE"] = args.engine
    if args.physics == "interpreted":
        os.environ["DMLEMU_TIMING_PHYSICS"] = "interpreted"
    from dmlemu.timing.command_processor import engine
    print(f"timing driver: {engine()}, units: {Gpu(RX_7900_XTX).command_processor.physics}")
    global CLOCK
    CLOCK = time.process_time if args.cpu else time.perf_counter
    clock = "CPU" if args.cpu else "wall"

    print("CLIP FLOAT16 + ScaleBias, RX 7900 XTX, wave32")
    print(f"{'elements':>10} {'golden s':>9} {'functional s':>12} {'timed s':>8} {'timed+trace s':>13} "
          f"{'ratio':>6} {'GPU us':>8}")
    for log2n in (16, 18, 20, 22, 24):
        n = 1 << log2n
        x, gpu, run = clip_run(n)
        gold, expected = timed(lambda: golden.clip(x, CLIP["min_value"], CLIP["max_value"], CLIP["scale_bias"]))
        for _ in range(2):  # best of three, like the other columns' warm runs
            gold = min(gold, timed(lambda: golden.clip(x, CLIP["min_value"], CLIP["max_value"], CLIP["scale_bias"]))[0])
        gpu.timing = False
        run.dispatch()  # warm-up: first-touch page faults of the output
        functional, _ = timed(run.dispatch)
        gpu.timing = True
        timed_only, _ = timed(run.dispatch)
        with capture(gpu, "wave") as cap:
            traced, stats = timed(run.dispatch)
        assert np.array_equal(run.output_bytes()[:x.nbytes], expected.view(np.uint8))
        assert len(cap.trace.wave_groups) > 0
        print(f"{n:>10} {gold:>9.4f} {functional:>12.4f} {timed_only:>8.4f} {traced:>13.4f} "
              f"{traced / gold:>5.1f}x {stats.cycles / RX_7900_XTX.clock_hz * 1e6:>8.1f}")

    # A transposed read: the golden model gathers at the input's strides, then copies.
    side = 2048
    x = np.random.default_rng(1).standard_normal(side * side).astype(np.float32)
    gpu = Gpu(RX_7900_XTX)
    source = TensorSpec("FLOAT32", (side, side), (1, side), x.nbytes)
    out = TensorSpec("FLOAT32", (side, side), None, x.nbytes)
    run = DirectRun(gpu, "ELEMENT_WISE_IDENTITY", [source, out], [x.view(np.uint8), np.zeros(x.nbytes, np.uint8)])
    gold = min(timed(lambda: golden.identity(golden.gather(x.view(np.uint8), 0, np.float32, (side, side),
                                                              (1, side))))[0] for _ in range(3))
    gpu.timing = False
    run.dispatch()  # warm-up, as the CLIP rows': the kernel's first build, first-touch page faults of the output
    gpu.timing = True
    # Best of three timed dispatches, as the golden model's column is its best of three. The first timed
    # dispatch of a process also pays the page faults of the accounting's first large temporaries (the C
    # allocator maps fresh memory for them until it has seen large blocks freed): printed beside it.
    first, stats = timed(run.dispatch)
    wall = min([first] + [timed(run.dispatch)[0] for _ in range(2)])
    expected = golden.identity(golden.gather(x.view(np.uint8), 0, np.float32, (side, side), (1, side)))
    assert np.array_equal(run.output_bytes().view(np.float32).reshape(side, side), expected)
    print(f"IDENTITY FLOAT32 {side}x{side} transposed read, with timing: {wall:.2f} s {clock}, golden {gold:.4f} s, "
          f"{wall / gold:.1f}x (first timed dispatch {first:.2f} s, {first / gold:.1f}x); "
          f"{stats.cycles / RX_7900_XTX.clock_hz * 1e6:.1f} us GPU")

    if not args.skip_large:
        n = 1 << args.log2_large
        x = np.ones(n, dtype=np.float32)
        gpu = Gpu(RX_7900_XTX)
        spec = TensorSpec("FLOAT32", (n,), None, x.nbytes)
        run = DirectRun(gpu, "ELEMENT_WISE_IDENTITY", [spec, spec], [x.view(np.uint8), np.zeros(x.nbytes, np.uint8)])
        del x
        _reset_peak_memory()      # the host input arrays made above are not the emulator's cost
        wall, stats = timed(run.dispatch)
        seconds = stats.cycles / RX_7900_XTX.clock_hz
        peak = _peak_memory()
        tensors = 2 * n * 4
        print(f"IDENTITY FLOAT32 2^{args.log2_large} with timing: {wall:.1f} s {clock}, {seconds * 1e3:.3f} ms GPU, "
              f"{(stats.bytes_read + stats.bytes_written) / seconds / 1e9:.0f} GB/s; peak memory during the dispatch "
              f"{peak / 2 ** 30:.2f} GiB = {peak / tensors:.2f}x the tensors' {tensors / 2 ** 30:.0f} GiB (whole process)")


if __name__ == "__main__":
    main()
