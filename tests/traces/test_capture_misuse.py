"""traces.capture used without starting it: every use that would silently record nothing is refused
with a sentence (reading the trace, end() before begin()), or warned about when the capture is dropped."""
import gc
import warnings

import numpy as np
import pytest

from dmlemu.direct_run import DirectRun
from dmlemu.gpu import Gpu
from dmlemu.kernels.driver import TensorSpec
from dmlemu.presets import TEACHING
from dmlemu.traces import capture

HOW_TO = ("use `with traces.capture(device) as cap:` around the work, or call cap.begin() before it and "
          "cap.end() after it.")


def clip_run(gpu, n=64):
    x = np.linspace(-3, 3, n).astype(np.float16)
    spec = TensorSpec("FLOAT16", (n,), None, x.nbytes)
    return DirectRun(gpu, "ELEMENT_WISE_CLIP", [spec, spec], [x.view(np.uint8), np.zeros(x.nbytes, np.uint8)],
                     min_value=-1.0, max_value=1.0)


def test_reading_the_trace_of_a_capture_never_started_raises_a_sentence():
    gpu = Gpu(TEACHING)
    cap = capture(gpu)
    clip_run(gpu).dispatch()
    with pytest.raises(RuntimeError) as info:
        cap.trace
    assert str(info.value) == "this capture was never started, so it recorded nothing: " + HOW_TO
    cap.discard()


def test_end_before_begin_raises_a_sentence():
    cap = capture(Gpu(TEACHING))
    with pytest.raises(RuntimeError) as info:
        cap.end()
    assert str(info.value) == ("end() was called on a capture that was never started, so it recorded nothing: "
                               + HOW_TO)
    cap.discard()


def test_reading_the_trace_while_recording_raises_and_after_end_it_holds_the_work():
    gpu = Gpu(TEACHING)
    cap = capture(gpu).begin()
    with pytest.raises(RuntimeError) as info:
        cap.trace
    assert str(info.value) == ("this capture is still recording; read cap.trace after the with block or end(): "
                               + HOW_TO)
    clip_run(gpu).dispatch()
    trace = cap.end()
    assert cap.trace is trace and len(trace.dispatches) == 1
    assert cap.end() is trace            # a second end() gives the same trace


def test_a_capture_records_once():
    gpu = Gpu(TEACHING)
    with capture(gpu) as cap:
        pass
    with pytest.raises(RuntimeError) as info:
        cap.begin()
    assert str(info.value) == "this capture was already started; a capture records once: " + HOW_TO


def test_a_capture_dropped_without_being_started_warns():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        capture(Gpu(TEACHING))
        gc.collect()
    messages = [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]
    assert messages == ["a capture was created but never started, so it recorded nothing: " + HOW_TO]


def test_the_with_block_and_a_discarded_capture_do_not_warn():
    gpu = Gpu(TEACHING)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with capture(gpu) as cap:
            clip_run(gpu).dispatch()
        assert len(cap.trace.dispatches) == 1
        capture(gpu).discard()
        del cap
        gc.collect()
    assert not [w for w in caught if issubclass(w.category, RuntimeWarning)]
