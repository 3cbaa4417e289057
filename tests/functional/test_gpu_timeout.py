"""The GPU timeout: a dispatch that would hang a GPU ends, within a bound, in a KernelFault (which the
mirror turns into DXGI_ERROR_DEVICE_HUNG): host seconds per dispatch (DMLEMU_DISPATCH_SECONDS), the
wave-instructions a GPU could issue in Windows' 2-second timeout, and a grid too large for the timing
model."""
import time

import numpy as np
import pytest

from dmlemu.functional.wave_dispatcher import KernelLaunch
from dmlemu.gpu import Gpu
from dmlemu.isa.assembler import assemble
from dmlemu.isa.program import KernelFault, Program
from dmlemu.presets import TEACHING

SPIN = "spin:\n    v_add_u32 v1, v1, 1\n    s_branch spin\n"


def launch(source, groups, group=256):
    return KernelLaunch(Program(assemble(source), "spinner"), groups, group)


def test_an_endless_kernel_over_many_lanes_ends_at_the_host_time_limit(monkeypatch):
    monkeypatch.setenv("DMLEMU_DISPATCH_SECONDS", "0.5")
    gpu = Gpu(TEACHING, timing=False)
    gpu.dispatcher.issue_per_second = None           # no modelled-time budget: the host limit ends it
    start = time.monotonic()
    with pytest.raises(KernelFault, match=r"spinner: the dispatch ran past the emulator's limit of 0.5 s of host "
                                          r"time \(CPU seconds\) per dispatch \(DMLEMU_DISPATCH_SECONDS\); it was at instruction "
                                          r"[01], \d+ instructions into a path, after \d+ wave-instructions"):
        gpu.dispatch(launch(SPIN, 1024, 1024))
    assert time.monotonic() - start < 10
    # the device's memory and dispatcher still work
    gpu.dispatch(launch("    s_endpgm\n", 4))


def test_the_host_time_limit_counts_the_dispatch_threads_cpu_time_not_a_loaded_machines_wall_time():
    """On a loaded machine a dispatch waits for a core; that wait is not the kernel hanging (VGG-19's first
    convolution got 13 % of a core and was removed after 300 s of wall time)."""
    from dmlemu.functional.executor import Watchdog
    watchdog = Watchdog(0.05, float("inf"))
    time.sleep(0.2)                                   # waiting: no CPU time of this thread
    watchdog.check("k", 0, 1)
    spent = time.thread_time()
    while time.thread_time() - spent < 0.1:           # working: CPU time
        pass
    with pytest.raises(KernelFault, match="k: the dispatch ran past the emulator's limit of 0.05 s of host time"):
        watchdog.check("k", 0, 2)


def test_a_grid_of_short_waves_too_long_for_the_host_ends_between_batches(monkeypatch):
    monkeypatch.setenv("DMLEMU_DISPATCH_SECONDS", "0.3")
    gpu = Gpu(TEACHING, timing=False)
    gpu.dispatcher.batch_lanes = 1024
    with pytest.raises(KernelFault, match=r"spinner: the dispatch ran past .* it was between batches"):
        gpu.dispatch(launch("    v_add_u32 v1, v1, 1\n    s_endpgm\n", 1 << 30, 64))


def test_more_work_than_a_gpu_issues_in_two_seconds_is_a_timeout():
    gpu = Gpu(TEACHING, timing=False)
    gpu.dispatcher.issue_per_second = 10_000         # a GPU of 10k wave-instructions a second: the budget is 20k
    with pytest.raises(KernelFault, match=r"spinner: the dispatch issued more than 20000 wave-instructions, more "
                                          r"than the modelled GPU can issue in Windows' 2-second GPU timeout \(TDR\)"):
        gpu.dispatch(launch(SPIN, 64, 256))


def test_on_the_small_teaching_gpu_an_endless_kernel_hits_the_two_second_timeout_first():
    gpu = Gpu(TEACHING, timing=False)
    budget = 2 * TEACHING.compute_units * TEACHING.simds_per_cu * TEACHING.clock_hz
    with pytest.raises(KernelFault, match=rf"spinner: the dispatch issued more than {budget} wave-instructions"):
        gpu.dispatch(launch(SPIN, 1024, 1024))


def test_the_budget_of_a_real_preset_is_its_issue_rate_for_two_seconds():
    gpu = Gpu(TEACHING, timing=False)
    p = TEACHING
    assert gpu.dispatcher.watchdog().budget == 2 * p.compute_units * p.simds_per_cu * p.clock_hz


def test_a_grid_too_large_for_the_timing_model_is_refused_with_a_sentence():
    gpu = Gpu(TEACHING)
    with pytest.raises(KernelFault, match=r"spinner: the dispatch has 34359738368 waves \(1073741824 workgroups of "
                                          r"256 threads\); the timing model holds at most 67108864 waves"):
        gpu.dispatch(launch("    s_endpgm\n", 1 << 30))


@pytest.mark.parametrize("text", ["", "abc", "-1", "0", "nan"])
def test_a_bad_environment_value_means_the_default(monkeypatch, text):
    monkeypatch.setenv("DMLEMU_DISPATCH_SECONDS", text)
    assert Gpu(TEACHING, timing=False).dispatcher.watchdog().seconds == 300.0
