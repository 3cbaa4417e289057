"""Saving and loading a Trace: one .npz file (a zip of .npy arrays), so a capture can be summarised,
converted and plotted later (`dmlemu trace`).

Members: one array per table (structured, no pickles) and `meta.npy`, a JSON text with the format
version, the preset (its key and every field, so a trace of a changed or custom preset still reads
back as captured), the wave width, the detail level, the aggregated tables (with `dropped`, the rows each
lost past the row limit; optional) and the programs.
The file is deterministic: same trace, same bytes (zip entries carry a fixed date). Each member is
written into the zip a chunk of rows at a time (WRITE_CHUNK_BYTES), so a table mapped from the
recorder's spill file (traces/recorder.py) is never copied whole into memory.

Files written before a table gained columns (the memory hierarchy counters of `dispatches` and
`counters`, the busy columns of `dispatches`) or a table (`mem_instructions`, `instructions`) still
load: the missing columns read as zeros and the missing tables as empty, so their cache figures read 0
(as an untimed dispatch's do) and their dispatches get no verdict (traces/verdict.py says so). A column
of another type, or one this version does not know, is an error.

Loading trusts nothing in the file: anything that is not a trace this version wrote (not a zip, a
truncated or damaged member, a member that is not a plain .npy array, an object/pickle dtype, a
table that is not a one-dimensional array of its columns, a meta.npy that is not the JSON above, a
preset that could not be built) raises `TraceFileError`, a ValueError whose sentence names the file
and the member. Members are read one by one after their .npy header is checked against their size,
and all of them together may hold at most MAX_TRACE_BYTES, so a small file cannot make the loader
allocate a large one.
"""
import dataclasses
import io
import json
import tokenize
import zipfile
import zlib

import numpy as np

from dmlemu.errors import short_repr
from dmlemu.traces.recorder import DETAILS
from dmlemu.traces.schema import TABLES
from dmlemu.traces.trace import Trace

__all__ = ["save_trace", "load_trace", "read_npy_header", "TraceFileError", "MAX_TRACE_BYTES"]

FORMAT = 1
_DATE = (1980, 1, 1, 0, 0, 0)
MAX_TRACE_BYTES = 4 << 30    # the uncompressed arrays of one trace file, together
WRITE_CHUNK_BYTES = 4 << 20  # rows of a table written into the zip at a time


class TraceFileError(ValueError):
    """A file that is not a readable dmlemu trace; the message names the file, the member and why."""


def save_trace(trace, path):
    """Write `trace` to `path` (.npz); returns the path."""
    preset = {f.name: getattr(trace.preset, f.name) for f in dataclasses.fields(trace.preset)}
    preset["sources"] = list(preset.get("sources", ()))
    meta = {"format": FORMAT, "preset_key": trace.preset.key, "preset": preset,
            "wave_width": int(trace.wave_width), "detail": trace.detail, "aggregated": list(trace.aggregated),
            "programs": [[int(k), name, list(lines)] for k, (name, lines) in sorted(trace.programs.items())],
            "dropped": {name: int(n) for name, n in sorted(getattr(trace, "dropped", {}).items())}}
    members = [("meta", np.array(json.dumps(meta, sort_keys=True)))]
    members += [(name, trace.tables[name]) for name in sorted(trace.tables)]
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as z:
        for name, array in members:
            _write_member(z, name + ".npy", np.ascontiguousarray(array))
    return path


def _write_member(z, name, array):
    """`array` as the .npy member `name`: the same bytes np.lib.format.write_array gives (a 1.0 header
    for these dtypes), written in chunks of rows; the size is set first, as writestr does."""
    if array.dtype.hasobject:
        raise ValueError(f"table member {name} holds Python objects (dtype {array.dtype}); only plain arrays are saved")
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, np.lib.format.header_data_from_array_1_0(array))
    info = zipfile.ZipInfo(name, date_time=_DATE)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = 0o644 << 16
    info.file_size = header.tell() + array.nbytes
    flat = array.reshape(-1)
    rows = max(1, WRITE_CHUNK_BYTES // max(1, array.dtype.itemsize))
    with z.open(info, mode="w") as dest:
        dest.write(header.getvalue())
        for i in range(0, len(flat), rows):
            dest.write(flat[i:i + rows].tobytes())


def load_trace(path):
    """The Trace saved in `path` by save_trace; TraceFileError for anything else (see the module banner).
    OSError (no such file, no permission) passes through."""
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, ValueError, NotImplementedError):
        # NotImplementedError: a central directory claiming a zip version zipfile does not read.
        raise TraceFileError(f"{path} is not a dmlemu trace: it is not a .npz (zip) file, or it is truncated") from None
    with archive:
        names = {info.filename: info for info in archive.infolist()}
        if "meta.npy" not in names:
            raise TraceFileError(f"{path} is not a dmlemu trace: it has no meta.npy member")
        wanted = ["meta"] + [name for name in TABLES if name + ".npy" in names]
        total = sum(names[name + ".npy"].file_size for name in wanted)
        if total > MAX_TRACE_BYTES:
            raise TraceFileError(f"{path}: its arrays hold {total} bytes; a trace file may hold at most "
                                 f"{MAX_TRACE_BYTES}")
        meta = _read_meta(_read_member(archive, names["meta.npy"], path), path)
        tables = {}
        for name, table in TABLES.items():
            expected = table.dtype
            if name + ".npy" not in names:
                tables[name] = np.zeros(0, dtype=expected)
                continue
            array = _read_member(archive, names[name + ".npy"], path)
            if array.ndim != 1:
                raise TraceFileError(f"{path}: table {name} has shape {array.shape}; a table is one-dimensional")
            if array.dtype != expected:
                array = _with_new_columns(array, expected, name, path)
            tables[name] = array
    preset = _read_preset(meta, path)
    return Trace(tables, preset, meta["wave_width"], meta["detail"], meta["aggregated"], meta["programs"],
                 meta.get("dropped"))


def read_npy_header(fp, size):
    """(shape, fortran_order, dtype) of the .npy stream `fp` holding `size` bytes, read up to the data;
    ValueError, a clause saying why, unless it is a plain .npy 1.0 / 2.0 array whose header declares
    exactly the data the stream holds (so reading it allocates no more than `size` bytes)."""
    try:
        version = np.lib.format.read_magic(fp)
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(fp)
        elif version == (2, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(fp)
        else:
            raise ValueError(f"it is .npy format {version[0]}.{version[1]}; 1.0 and 2.0 are read")
    except (ValueError, SyntaxError, TypeError, EOFError, tokenize.TokenError, RecursionError, MemoryError) as e:
        # NumPy parses the header (at most 10,000 characters) with Python's tokenizer and literal_eval.
        raise ValueError(f"it is not a .npy array ({' '.join(str(e).split())[:120] or type(e).__name__})") from None
    if dtype.hasobject:
        raise ValueError(f"it holds Python objects (dtype {dtype}); only plain arrays are read")
    count = 1
    for n in shape:
        count *= int(n)
    data = count * dtype.itemsize
    if fp.tell() + data != size:
        raise ValueError(f"its header declares {data} bytes of data (shape {shape}, dtype {dtype}) but it holds "
                         f"{size - fp.tell()}")
    return shape, fortran, dtype


def _read_member(archive, info, path):
    """One .npy member as an array, its header checked against its size before any data is read."""
    where = f"{path}: member {info.filename}"
    try:
        with archive.open(info) as f:
            try:
                shape, fortran, dtype = read_npy_header(f, info.file_size)
            except ValueError as e:
                raise TraceFileError(f"{where}: {e}") from None
            size = info.file_size - f.tell()
            data = f.read(size)
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, NotImplementedError, RuntimeError) as e:
        # A damaged or truncated member (bad CRC, cut deflate stream), or one compressed in a way
        # zipfile cannot read (NotImplementedError) or encrypted (RuntimeError).
        raise TraceFileError(f"{where} cannot be read: {' '.join(str(e).split())[:120] or type(e).__name__}") from None
    if len(data) != size:
        raise TraceFileError(f"{where} is truncated: {len(data)} of {size} bytes")
    return np.frombuffer(data, dtype=dtype).reshape(shape, order="F" if fortran else "C").copy()


def _read_meta(array, path):
    """meta.npy's JSON, every field checked: the format, the preset, wave width, detail, tables, programs."""
    where = f"{path}: meta.npy"
    if array.dtype.kind != "U" or array.size != 1:
        raise TraceFileError(f"{where} is a {array.dtype} array of shape {array.shape}; it must hold one JSON text")
    try:
        meta = json.loads(str(array.reshape(-1)[0]))
    except (ValueError, RecursionError):
        raise TraceFileError(f"{where} is not JSON text") from None
    if not isinstance(meta, dict):
        raise TraceFileError(f"{where} holds a JSON {type(meta).__name__}; it must be an object")
    if meta.get("format") != FORMAT:
        raise TraceFileError(f"{path} is a dmlemu trace of format {meta.get('format')!r}; "
                             f"this version reads format {FORMAT}")
    checks = {
        "preset_key": lambda v: isinstance(v, str),
        "preset": lambda v: isinstance(v, dict),
        "wave_width": lambda v: type(v) is int and v in (4, 8, 16, 32, 64),
        "detail": lambda v: v in DETAILS,
        "aggregated": lambda v: isinstance(v, list) and all(isinstance(n, str) for n in v),
        "programs": lambda v: isinstance(v, list) and all(
            isinstance(p, list) and len(p) == 3 and type(p[0]) is int and isinstance(p[1], str)
            and isinstance(p[2], list) and all(isinstance(line, str) for line in p[2]) for p in v),
    }
    rules = {"preset_key": "a text", "preset": "an object", "wave_width": "4, 8, 16, 32 or 64",
             "detail": "one of " + ", ".join(DETAILS), "aggregated": "a list of table names",
             "programs": "a list of [dispatch id, kernel name, [instruction texts]]"}
    for key, check in checks.items():
        if key not in meta:
            raise TraceFileError(f"{where} has no field {key!r}")
        if not check(meta[key]):
            raise TraceFileError(f"{where} field {key!r} is {short_repr(meta[key])}; it must be {rules[key]}")
    dropped = meta.get("dropped", {})     # optional: files written before it was saved have none
    if not isinstance(dropped, dict) or not all(isinstance(k, str) and type(v) is int and v >= 0
                                                for k, v in dropped.items()):
        raise TraceFileError(f"{where} field 'dropped' is {short_repr(dropped)}; it must be an object of "
                             f"table names and row counts")
    meta["programs"] = {k: (name, list(lines)) for k, name, lines in meta["programs"]}
    meta["aggregated"] = list(meta["aggregated"])
    return meta


def _read_preset(meta, path):
    """The AdapterPreset of the trace: today's preset of that key with the saved fields over it, every
    field of the right type and range, the whole one the timing model could build (presets.preset_problem)."""
    from dmlemu.presets import PRESETS, AdapterPreset, preset_problem
    where = f"{path}: meta.npy preset"
    fields = dict(meta["preset"])
    fields["sources"] = fields.get("sources", [])
    if not isinstance(fields["sources"], list) or not all(isinstance(t, str) for t in fields["sources"]):
        raise TraceFileError(f"{where} field 'sources' is {short_repr(fields['sources'])}; it must be a list of texts")
    fields["sources"] = tuple(fields["sources"])
    if "valu_rate_cycles" in fields:     # saved as [[class, cycles], ...]; checked by preset_problem
        rates = fields["valu_rate_cycles"]
        if not isinstance(rates, list) or not all(isinstance(r, list) and len(r) == 2 for r in rates):
            raise TraceFileError(f"{where} field 'valu_rate_cycles' is {short_repr(rates)}; it must be a list of "
                                 "[rate class, cycles] pairs")
        fields["valu_rate_cycles"] = tuple(tuple(r) for r in rates)
    known = {f.name: f for f in dataclasses.fields(AdapterPreset)}
    fields = {k: v for k, v in fields.items() if k in known}     # types and ranges: preset_problem
    # Start from today's preset of that key where there is one, so fields added since have a value.
    base = next((p for p in PRESETS if p.key == meta["preset_key"]), None)
    try:
        preset = dataclasses.replace(base, **fields) if base is not None else AdapterPreset(**fields)
    except TypeError:
        missing = sorted(set(known) - set(fields) - {f.name for f in known.values()
                                                      if f.default is not dataclasses.MISSING
                                                      or f.default_factory is not dataclasses.MISSING})
        raise TraceFileError(f"{where} of the unknown adapter {meta['preset_key']!r} lacks the field(s) "
                             f"{', '.join(missing)}") from None
    problem = preset_problem(preset)
    if problem:
        raise TraceFileError(f"{where}: {problem}")
    return preset




def _column_fits(have, want):
    """A saved column of the expected type, or a string column wider than it (a dispatch name past 64)."""
    return have == want or (have.kind == want.kind == "U" and have.itemsize >= want.itemsize)


def _with_new_columns(array, expected, name, path):
    """A table saved before columns were added: the same rows, the new columns zero."""
    names = array.dtype.names or ()
    if not names or any(n not in expected.names or not _column_fits(array.dtype[n], expected[n]) for n in names):
        raise TraceFileError(f"{path}: table {name} has columns {array.dtype.descr}; expected {expected.descr}")
    if names == expected.names:
        return array             # a string column widened for long names (recorder.MAX_NAME)
    expected = np.dtype([(n, array.dtype[n] if n in names else expected[n]) for n in expected.names])
    upgraded = np.zeros(array.shape, dtype=expected)
    for n in names:
        upgraded[n] = array[n]
    return upgraded
