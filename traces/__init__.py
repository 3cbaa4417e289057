"""Traces: recording what the emulated GPU did (cycles, waves, memory), exporting and plotting it."""
from .capture import Capture, capture
from .recorder import DETAILS, TraceRecorder
from .trace import Trace

__all__ = ["Capture", "capture", "DETAILS", "TraceRecorder", "Trace"]
