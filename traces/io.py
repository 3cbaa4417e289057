"""Saving and loading a Trace: one .npz file (a zip of .npy arrays), so a capture can be summarised,
converted and plotted later (`dmlemu trace`).

Members: one array per table (structured, no pickles) and `meta.npy`, a JSON text with the format
version, the preset (its key and every field, so a trace of a changed or custom preset still reads
back as captured), the wave width, the detail level, the aggregated tables and the programs.
The file is deterministic: same trace, same bytes (zip entries carry a fixed date).

Files written before a table gained columns (the memory hierarchy counters of `dispatches` and
`counters`) or a table (`mem_instructions`) still load: the missing columns read as zeros and the
missing tables as empty, so their cache figures read 0 (as an untimed dispatch's do). A column
of another type, or one this version does not know, is an error.
"""
import dataclasses
import io
import json
import zipfile

import numpy as np

from dmlemu.traces.recorder import TABLES
from dmlemu.traces.trace import Trace

__all__ = ["save_trace", "load_trace"]

FORMAT = 1
_DATE = (1980, 1, 1, 0, 0, 0)


def save_trace(trace, path):
    """Write `trace` to `path` (.npz); returns the path."""
    preset = {f.name: getattr(trace.preset, f.name) for f in dataclasses.fields(trace.preset)}
    preset["sources"] = list(preset.get("sources", ()))
    meta = {"format": FORMAT, "preset_key": trace.preset.key, "preset": preset,
            "wave_width": int(trace.wave_width), "detail": trace.detail, "aggregated": list(trace.aggregated),
            "programs": [[int(k), name, list(lines)] for k, (name, lines) in sorted(trace.programs.items())]}
    members = [("meta", np.array(json.dumps(meta, sort_keys=True)))]
    members += [(name, trace.tables[name]) for name in sorted(trace.tables)]
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as z:
        for name, array in members:
            buffer = io.BytesIO()
            np.lib.format.write_array(buffer, np.ascontiguousarray(array), allow_pickle=False)
            info = zipfile.ZipInfo(name + ".npy", date_time=_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            z.writestr(info, buffer.getvalue())
    return path


def load_trace(path):
    """The Trace saved in `path` by save_trace."""
    from dmlemu.presets import PRESETS, AdapterPreset
    with np.load(path, allow_pickle=False) as z:
        if "meta" not in z.files:
            raise ValueError(f"{path} is not a dmlemu trace: it has no meta.npy member")
        meta = json.loads(str(z["meta"].reshape(-1)[0]))
        if meta.get("format") != FORMAT:
            raise ValueError(f"{path} is a dmlemu trace of format {meta.get('format')!r}; "
                             f"this version reads format {FORMAT}")
        tables = {}
        for name, columns in TABLES.items():
            expected = np.dtype(columns)
            array = z[name] if name in z.files else np.zeros(0, dtype=expected)
            if array.dtype != expected:
                array = _with_new_columns(array, expected, name, path)
            tables[name] = array
    fields = dict(meta["preset"])
    fields["sources"] = tuple(fields.get("sources", ()))
    known = {f.name for f in dataclasses.fields(AdapterPreset)}
    fields = {k: v for k, v in fields.items() if k in known}
    # Start from today's preset of that key where there is one, so fields added since have a value.
    base = next((p for p in PRESETS if p.key == meta["preset_key"]), None)
    preset = dataclasses.replace(base, **fields) if base is not None else AdapterPreset(**fields)
    programs = {int(k): (name, list(lines)) for k, name, lines in meta["programs"]}
    return Trace(tables, preset, meta["wave_width"], meta["detail"], list(meta["aggregated"]), programs)


def _with_new_columns(array, expected, name, path):
    """A table saved before columns were added: the same rows, the new columns zero."""
    names = array.dtype.names or ()
    if not names or any(n not in expected.names or array.dtype[n] != expected[n] for n in names):
        raise ValueError(f"{path}: table {name} has columns {array.dtype.descr}; expected {expected.descr}")
    upgraded = np.zeros(array.shape, dtype=expected)
    for n in names:
        upgraded[n] = array[n]
    return upgraded
