"""Traces: recording what the emulated GPU did (cycles, waves, memory), exporting and plotting it."""
from dmlemu.traces.capture import Capture, capture
from dmlemu.traces.chrome import save_chrome_json, to_chrome
from dmlemu.traces.csv_export import save_dispatch_csv, save_table_csv
from dmlemu.traces.io import load_trace, save_trace
from dmlemu.traces.pftrace import save_pftrace     # imports the optional perfetto package only when called
from dmlemu.traces.recorder import DETAILS, TraceRecorder
from dmlemu.traces.trace import Trace

_PLOTS = ("plot_all", "plot_wave_timeline", "plot_bandwidth", "plot_occupancy", "plot_roofline", "plot_caches")

__all__ = ["Capture", "capture", "DETAILS", "TraceRecorder", "Trace", "to_chrome", "save_chrome_json", "save_pftrace",
           "save_dispatch_csv", "save_table_csv", "save_trace", "load_trace", *_PLOTS]


def __getattr__(name):
    # The plots import matplotlib (slow to import); load them on first use only.
    if name in _PLOTS:
        from dmlemu.traces import plots
        return getattr(plots, name)
    raise AttributeError(f"module 'traces' has no attribute {name!r}")
