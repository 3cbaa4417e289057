"""Writing and reading trace files by their suffix: the library behind --trace, --plots and `dmlemu trace`.

    .json   Chrome Trace Event JSON (open it in https://ui.perfetto.dev or chrome://tracing)
    .pftrace  native Perfetto trace (protobuf TrackEvent; traces.pftrace): needs the optional
            perfetto package, `pip install 'dmlemu[perfetto]'`
    .npz    the trace itself, every column (traces.io); `dmlemu trace FILE.npz` reads it back
    .csv    one row per dispatch (traces.csv_export)

Plots (PNG, matplotlib) go into a folder, one file per plot, with fixed names (no timestamps).
"""
import os

from dmlemu.tools.operators import UsageError

__all__ = ["TRACE_SUFFIXES", "save", "load", "plot", "listing"]

TRACE_SUFFIXES = (".json", ".pftrace", ".npz", ".csv")


def _suffix(path):
    """The suffix of a trace file to write; UsageError for another one, or for .pftrace without the
    perfetto package (so a run stops before it starts)."""
    suffix = os.path.splitext(str(path))[1].lower()
    if suffix not in TRACE_SUFFIXES:
        raise UsageError(f"trace file {path} must end in {', '.join(TRACE_SUFFIXES)} "
                         f"(Chrome JSON, native Perfetto, the trace's columns, or one CSV row per dispatch)")
    if suffix == ".pftrace":
        from dmlemu.traces.pftrace import PerfettoMissing, require_perfetto
        try:
            require_perfetto()
        except PerfettoMissing as e:
            raise UsageError(f"cannot write {path}: {e}") from None
    return suffix


def _make_parent(path):
    parent = os.path.dirname(os.path.abspath(str(path)))
    os.makedirs(parent, exist_ok=True)


def save(trace, path, max_events=None, notes=None):
    """Write `trace` to `path` in the format its suffix names; returns the path. max_events: the
    Chrome JSON's event limit (None: its default); `notes`, a list, receives what the file had to
    fold or leave out beyond what the recorder did (Trace.folded())."""
    suffix = _suffix(path)
    _make_parent(path)
    if suffix == ".json":
        from dmlemu.traces.chrome import DEFAULT_MAX_EVENTS, save_chrome_json
        found = []
        save_chrome_json(trace, path, DEFAULT_MAX_EVENTS if max_events is None else max_events, found)
        if notes is not None:
            recorder = trace.folded()
            notes.extend(f"{os.path.basename(str(path))}: {n}" for n in found if n not in recorder)
    elif suffix == ".pftrace":
        from dmlemu.traces.pftrace import save_pftrace
        save_pftrace(trace, path)
    elif suffix == ".npz":
        from dmlemu.traces.io import save_trace
        save_trace(trace, path)
    else:
        from dmlemu.traces.csv_export import save_dispatch_csv
        save_dispatch_csv(trace, path)
    return str(path)


def load(path):
    """A trace saved as .npz (traces.io.load_trace); UsageError (one sentence) for a file that is not one."""
    if os.path.splitext(str(path))[1].lower() != ".npz":
        raise UsageError(f"{path}: dmlemu reads traces saved as .npz (`dmlemu run ... --trace run.npz`); "
                         f"JSON and CSV are exports")
    if not os.path.exists(path):
        raise UsageError(f"{path}: no such file")
    if not os.path.isfile(path):
        raise UsageError(f"{path} is not a regular file; a trace is a .npz file")
    from dmlemu.traces.io import TraceFileError, load_trace
    try:
        return load_trace(path)
    except TraceFileError as error:
        raise UsageError(str(error)) from None


def listing(trace, dispatch=None, top=None):
    """`dmlemu trace FILE.npz --instructions`: the annotated kernel listing of dispatch `dispatch` (None:
    the timed dispatch with the most cycles; traces/listing.py); UsageError (one sentence) for a
    dispatch the trace does not hold."""
    from dmlemu.traces.listing import default_dispatch, format_listing
    ids = [int(i) for i in trace.dispatches["id"]]
    if not ids:
        raise UsageError("the trace holds no dispatch: there is no kernel to list")
    if dispatch is None:
        dispatch = default_dispatch(trace)
    elif dispatch not in ids:
        raise UsageError(f"--dispatch {dispatch}: the trace holds dispatches {_ranges(ids)}")
    return format_listing(trace, dispatch, top)


def _ranges(ids):
    """'0 to 4' for consecutive ids, else the ids listed."""
    if ids == list(range(ids[0], ids[-1] + 1)):
        return f"{ids[0]} to {ids[-1]}" if len(ids) > 1 else f"{ids[0]} only"
    return ", ".join(map(str, ids))


def plot(trace, folder, dispatch=None):
    """Every plot of `trace` as PNG files in `folder`, focused on `dispatch` (None: the longest timed one;
    UsageError for one the trace does not hold); returns their paths."""
    import matplotlib
    matplotlib.use("Agg")   # files only; no display needed
    from dmlemu.traces.plots import focus_dispatch, plot_all
    try:
        focus_dispatch(trace, dispatch)
    except ValueError as e:
        raise UsageError(f"--dispatch {dispatch}: {e}") from None
    os.makedirs(folder, exist_ok=True)
    return [str(p) for p in plot_all(trace, folder, dispatch)]
