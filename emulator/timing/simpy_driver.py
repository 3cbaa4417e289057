"""The reference driver: the timing model's processes run as simpy processes (timing).

One per dispatch when DMLEMU_TIMING_ENGINE=simpy. Each process (events.py: a slot group of a SIMD,
a compute unit's wait queue) is wrapped in a small simpy process that asks it to resume and yields
what it asks for: a timeout to the cycle it names, or an event that the unit waking it succeeds.
simpy's own event order is then the order of the model; events.EventHeap, the default driver, must
reproduce it exactly (tests/timing/test_cohort_engine.py compares them).
"""
import simpy

from dmlemu.timing.events import DONE, WAIT, Scheduler


class SimpyDriver(Scheduler):
    """Runs the model's processes in a simpy environment (see the module banner)."""

    def __init__(self):
        self.env = None
        self.waiting = {}      # process -> the simpy event it waits for

    def start(self, process, now):
        self.env.process(self._run(process))     # an urgent Initialize event at env.now

    def wake(self, process, now):
        self.waiting.pop(process).succeed()

    def _run(self, process):
        env = self.env
        now = env.now
        while True:
            resume_at = process.resume(now)
            if resume_at >= 0:
                yield env.timeout(resume_at - now)
                now = resume_at
            elif resume_at == WAIT:
                event = self.waiting[process] = env.event()
                yield event
                now = env.now
            else:
                assert resume_at == DONE
                return

    def run(self, processes, now):
        """Start `processes` at cycle `now` in their order and run until no event is left; returns the
        cycle of the last event (env.now)."""
        self.env = simpy.Environment(initial_time=now)
        for process in processes:
            self.start(process, now)
        self.env.run()
        return int(self.env.now)
