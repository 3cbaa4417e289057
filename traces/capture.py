"""Programmatic capture: record everything a device executes between two points.

In the spirit of a programmatic PIX capture (BeginCapture / EndCapture):

    from dmlemu.traces import capture
    with capture(d3d12_device, detail="wave") as cap:
        ... record and execute command lists ...
    trace = cap.trace            # a traces.Trace; cap.trace.format_summary(), export, plots

`target` may be a D3D12 device, a DirectML device (its D3D12 device is used) or an emulator Gpu.
Captures do not nest on one GPU. `max_rows` bounds each table (None: DEFAULT_MAX_ROWS); past it
the recorder folds, and `cap.trace.folded()` says what (traces/recorder.py). `spill_bytes` (per
table; None: never) and `spill_dir` say when and where the recorder writes a large table to a
temporary file, mapped back at the end, so memory stays bounded with every row kept (recorder.py).

A capture records only between begin() and end() (the `with` block does both). One that was never
started records nothing, so using it is refused with a sentence: reading `cap.trace` or calling
`end()` before `begin()` raises RuntimeError, reading `cap.trace` while it still records raises
too, and a capture dropped without ever being started warns (RuntimeWarning) when it is collected.
examples/capture_trace.py is this snippet as a program that runs (README.md shows it).

Exports of cap.trace: traces.save_chrome_json (Chrome JSON), traces.save_pftrace (native Perfetto,
needs the optional perfetto package), traces.save_trace (.npz, every column), traces.plot_all.
"""
import operator
import warnings

from dmlemu.errors import short_repr
from dmlemu.traces.recorder import DEFAULT_MAX_ROWS, SPILL_BYTES, TraceRecorder


def _gpu_of(target):
    for attr in ("_gpu",):
        if hasattr(target, attr):
            return getattr(target, attr)
    parent = getattr(target, "_d3d12_device", None) or getattr(target, "_d3d12", None)
    if parent is not None and hasattr(parent, "_gpu"):
        return parent._gpu
    if hasattr(target, "dispatcher") and hasattr(target, "memory"):
        return target
    raise TypeError(f"cannot capture {type(target).__name__}: pass a D3D12 device, a DirectML device or a Gpu")


_HOW_TO = ("use `with traces.capture(device) as cap:` around the work, or call cap.begin() before it and "
           "cap.end() after it")


class Capture:
    """One capture of one GPU: begin() starts recording, end() stops it and builds `trace`."""

    def __init__(self, target, detail="wave", max_rows=DEFAULT_MAX_ROWS, spill_bytes=SPILL_BYTES, spill_dir=None):
        if max_rows is None:
            max_rows = DEFAULT_MAX_ROWS
        try:
            rows = operator.index(max_rows)
        except TypeError:
            rows = 0
        if isinstance(max_rows, bool) or rows < 1:
            raise ValueError(f"max_rows is {short_repr(max_rows)}; it must be a whole number of rows, at least 1")
        max_rows = rows
        self.gpu = _gpu_of(target)
        self.recorder = TraceRecorder(self.gpu.preset, self.gpu.wave_width, detail, max_rows, spill_bytes, spill_dir)
        self._trace = None
        self._state = "created"     # created -> recording -> ended

    @property
    def trace(self):
        """The traces.Trace of what ran between begin() and end(); refused before end() (one sentence)."""
        if self._state == "created":
            raise RuntimeError(f"this capture was never started, so it recorded nothing: {_HOW_TO}.")
        if self._state == "recording":
            raise RuntimeError(f"this capture is still recording; read cap.trace after the with block or end(): "
                               f"{_HOW_TO}.")
        return self._trace

    @property
    def started(self):
        """True once begin() has been called (the capture records, or has recorded)."""
        return self._state != "created"

    def discard(self):
        """Drop a capture that was never started, without the warning (one whose work failed first)."""
        if self._state == "created":
            self._state = "ended"

    def begin(self):
        if self._state != "created":
            raise RuntimeError(f"this capture was already started; a capture records once: {_HOW_TO}.")
        if self.gpu.recorder is not None:
            raise RuntimeError("a capture is already active on this GPU")
        self.gpu.recorder = self.recorder
        self._state = "recording"
        return self

    def end(self):
        if self._state == "created":
            raise RuntimeError(f"end() was called on a capture that was never started, so it recorded nothing: "
                               f"{_HOW_TO}.")
        if self._state == "ended":
            return self._trace
        if self.gpu.recorder is self.recorder:
            self.gpu.recorder = None
        self._trace = self.recorder.finish()
        self._state = "ended"
        return self._trace

    def __del__(self):
        if getattr(self, "_state", None) == "created":
            warnings.warn(f"a capture was created but never started, so it recorded nothing: {_HOW_TO}.",
                          RuntimeWarning, stacklevel=2)

    def __enter__(self):
        return self.begin()

    def __exit__(self, *exc):
        self.end()
        return False


def capture(target, detail="wave", max_rows=DEFAULT_MAX_ROWS, spill_bytes=SPILL_BYTES, spill_dir=None):
    """A Capture of `target`; use it as a context manager or call begin() and end()."""
    return Capture(target, detail, max_rows, spill_bytes, spill_dir)
