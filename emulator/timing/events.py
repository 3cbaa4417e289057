# cython: boundscheck=False
# (compiled, the heap's indices are not checked: they stay below its capacity by construction)
"""Processes and the event heap that drives them: the timing model's clock (timing).

Every timed unit that waits is a *process*: a state machine whose `resume(now)` runs it from where it
stopped until it must wait again, and says for what:

    a cycle >= now   resume me at that cycle (simpy: yield env.timeout(cycle - now))
    WAIT             resume me when another unit wakes me (simpy: yield an event that unit succeeds)
    DONE             I have ended

A unit asks its driver (a Scheduler) to `start` another process (it runs at `now`, before the cycle's
other events: simpy's urgent Initialize) or to `wake` a waiting one (it resumes at `now`, after the
events already due then: simpy's Event.succeed). Per dispatch there is one process per slot group of
every SIMD (simd.py) and, while requests wait for room, one per compute unit (compute_unit.py).

Two drivers run the same processes in the same order:

    EventHeap      (here) a heap of pending resumptions, ordered as simpy orders events: by cycle,
                   then urgent before normal, then the order they were scheduled. Each process has at
                   most one pending resumption, so the heap has a fixed capacity.
    SimpyDriver    (simpy_driver.py) each process wrapped in a simpy process: the reference order.

This module is compiled by Cython where a C compiler is (events.pxd types it; setup.py); the
`Process` and `Scheduler` classes are the bases the compiled units call through a C vtable.
Interpreted, the heap is the standard library's heapq (see EventHeap).
"""
from heapq import heappop, heappush

from dmlemu.timing.physics import compiled_file, zeros

# Speed: whether this module runs compiled (Cython built it). Each unit picks its containers by its
# own COMPILED (physics.zeros): 64-bit arrays compiled, lists interpreted.
COMPILED = compiled_file(__file__)
URGENT, NORMAL = 0, 1      # simpy's event priorities: an urgent event goes first among those of its cycle
WAIT = -1                  # resume(): wait until another unit wakes this process
DONE = -2                  # resume(): the process has ended


class Process:
    """A unit's state machine (see the module banner); subclasses define resume()."""

    def resume(self, now):
        """Run from where the process stopped, at cycle `now`; returns a cycle >= now, WAIT or DONE."""
        raise NotImplementedError


class Scheduler:
    """What a process asks of the driver that runs it (see the module banner)."""

    def start(self, process, now):
        """Start `process` at cycle `now`, before the normal events due then (simpy: urgent)."""
        raise NotImplementedError

    def wake(self, process, now):
        """Resume the waiting `process` at cycle `now`, after the events already due then."""
        raise NotImplementedError


class EventHeap(Scheduler):
    """The default driver: a binary heap of pending resumptions in simpy's order.

    Every resumption's key is (cycle, order), the order being the priority and the scheduling number
    in one integer (priority above every number), so no two keys are equal and any binary heap pops
    them in one sequence. Speed: the container depends on the build. Compiled, the heap is three
    parallel arrays (cycle, order, process) of a fixed capacity (one slot per process: a process
    waits for one thing at a time); cycles and orders are 64-bit arrays, so a push or pop compares
    and moves C integers and allocates nothing. Interpreted, a Python-level sift would cost more
    than simpy's loop: the heap is then a list of (cycle, order, process) tuples that the standard
    library's heapq (C code) sifts, the same keys (`queue`; the arrays stay empty)."""

    def __init__(self, capacity):
        self.times = zeros(capacity if COMPILED else 0, COMPILED)    # (empty when interpreted)
        self.orders = zeros(capacity if COMPILED else 0, COMPILED)
        self.processes = [None] * capacity if COMPILED else []
        self.queue = []
        self.size = 0
        self.scheduled = 0

    def push(self, time, priority, process):
        """Schedule `process` to resume at cycle `time`."""
        order = (priority << 62) | self.scheduled    # priority above every scheduling number
        self.scheduled += 1
        if not COMPILED:                  # interpreted: heapq (see the class)
            heappush(self.queue, (time, order, process))
            return
        # Speed: compiled, the arrays are indexed in place (a local copy of a typed memoryview costs two
        # atomic reference counts per call).
        processes = self.processes
        i = self.size
        assert i < len(processes), "a process with two pending resumptions"
        self.size = i + 1
        while i > 0:                   # sift up
            parent = (i - 1) >> 1
            t = self.times[parent]
            if t < time or t == time and self.orders[parent] < order:
                break
            self.times[i] = t
            self.orders[i] = self.orders[parent]
            processes[i] = processes[parent]
            i = parent
        self.times[i] = time
        self.orders[i] = order
        processes[i] = process

    def start(self, process, now):
        self.push(now, URGENT, process)

    def wake(self, process, now):
        self.push(now, NORMAL, process)

    def run(self, processes, now):
        """Start `processes` at cycle `now` in their order and run until no event is left; returns the
        cycle of the last event (simpy's env.now after env.run())."""
        for process in processes:
            self.push(now, URGENT, process)
        last = now
        if not COMPILED:                  # interpreted: heapq (see the class)
            queue = self.queue
            normal = NORMAL << 62
            while queue:
                last, order, process = heappop(queue)
                resume_at = process.resume(last)
                if resume_at >= 0:        # push(resume_at, NORMAL, process), without the call
                    heappush(queue, (resume_at, normal | self.scheduled, process))
                    self.scheduled += 1
            return last
        times, orders, heap = self.times, self.orders, self.processes
        while self.size:
            # Pop the first: the last entry sifts down from the root.
            time = times[0]
            process = heap[0]
            n = self.size - 1
            self.size = n
            if n:
                t, order, moved = times[n], orders[n], heap[n]
                i = 0
                while True:
                    child = 2 * i + 1
                    if child >= n:
                        break
                    if child + 1 < n and (times[child + 1] < times[child] or times[child + 1] == times[child]
                                          and orders[child + 1] < orders[child]):
                        child += 1
                    if t < times[child] or t == times[child] and order < orders[child]:
                        break
                    times[i] = times[child]
                    orders[i] = orders[child]
                    heap[i] = heap[child]
                    i = child
                times[i] = t
                orders[i] = order
                heap[i] = moved
            heap[n] = None
            last = time
            resume_at = process.resume(time)
            if resume_at >= 0:
                self.push(resume_at, NORMAL, process)
        return last
