"""Saved traces (.npz) read back by dmlemu.traces.io.load_trace and `dmlemu trace`, on files that are not
what save_trace wrote: a TraceFileError (a ValueError) naming the file, the member and the rule, one
`dmlemu: error:` line and exit status 2 from the command, never zipfile's, NumPy's or json's own
errors, and never an allocation a member's header asks for but its bytes do not back.
"""
import io
import json
import zipfile
from contextlib import redirect_stderr, redirect_stdout

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dmlemu.convenience import run_operator
from dmlemu.directml import (
    DML_BUFFER_TENSOR_DESC, DML_ELEMENT_WISE_CLIP_OPERATOR_DESC, DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DESC,
    DML_TENSOR_TYPE_BUFFER,
)
from dmlemu.tools.cli import main
from dmlemu.traces import save_dispatch_csv, to_chrome
from dmlemu.traces import io as trace_io
from dmlemu.traces.io import TraceFileError, load_trace, save_trace
from operator_cases import ACCEPTED, REFUSED, outcome


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """A real trace (CLIP on the teaching GPU, every detail) saved as .npz: (path, its members as bytes)."""
    tensor = DML_TENSOR_DESC(Type=DML_TENSOR_TYPE_BUFFER, Desc=DML_BUFFER_TENSOR_DESC(
        DataType=DML_TENSOR_DATA_TYPE_FLOAT32, Sizes=[4, 8], TotalTensorSizeInBytes=128))
    _, trace = run_operator(DML_ELEMENT_WISE_CLIP_OPERATOR_DESC(InputTensor=tensor, OutputTensor=tensor, Min=0, Max=1),
                            [np.linspace(-2, 2, 32, dtype=np.float32)], trace="memory", adapter="teaching")
    path = save_trace(trace, tmp_path_factory.mktemp("trace") / "t.npz")
    with zipfile.ZipFile(path) as z:
        members = Members({info.filename: z.read(info) for info in z.infolist()})
    return path, members


class Members(dict):
    """The members of the saved trace (a short repr, for hypothesis's reports)."""

    def __repr__(self):
        return f"<{len(self)} members of the saved trace>"


def npy(array):
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, array, allow_pickle=True)
    return buffer.getvalue()


def write(path, members, **replace):
    """A copy of the trace's members with some replaced (bytes or an array) or removed (None)."""
    with zipfile.ZipFile(path, "w") as z:
        for name, data in members.items():
            key = name[:-4]
            if key in replace:
                data = replace[key]
                if data is None:
                    continue
                if isinstance(data, np.ndarray):
                    data = npy(data)
            z.writestr(name, data)
    return path


def meta_with(members, **fields):
    meta = json.loads(str(np.load(io.BytesIO(members["meta.npy"])).reshape(-1)[0]))
    meta.update(fields)
    return np.array(json.dumps(meta))


def error(path):
    with pytest.raises(TraceFileError) as info:
        load_trace(path)
    return str(info.value).replace(f"{path}", "F")


# ---- pinned sentences -------------------------------------------------------------------------------------
def test_the_saved_trace_loads(saved):
    path, _ = saved
    assert "element_wise_clip_float32" in load_trace(path).format_summary()


@pytest.mark.parametrize("cut", [0, 10, 100, 1000, -200, -22, -1])
def test_truncated_files(saved, tmp_path, cut):
    path, _ = saved
    data = path.read_bytes()
    bad = tmp_path / "cut.npz"
    bad.write_bytes(data[:cut])
    assert error(bad) == "F is not a dmlemu trace: it is not a .npz (zip) file, or it is truncated"


def test_files_that_are_not_zips_or_not_traces(saved, tmp_path):
    (tmp_path / "text.npz").write_text("hello")
    assert error(tmp_path / "text.npz") == "F is not a dmlemu trace: it is not a .npz (zip) file, or it is truncated"
    np.savez(tmp_path / "other.npz", a=np.arange(3))
    assert error(tmp_path / "other.npz") == "F is not a dmlemu trace: it has no meta.npy member"


def test_a_damaged_member(saved, tmp_path):
    path, members = saved
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as z:
        info = z.getinfo("dispatches.npy")
        start = info.header_offset + 30 + len(info.filename) + len(info.extra)
    data[start + info.compress_size // 2] ^= 0xFF      # one flipped byte in the deflated data
    (tmp_path / "flip.npz").write_bytes(bytes(data))
    assert error(tmp_path / "flip.npz").startswith("F: member dispatches.npy ")


def test_members_that_are_not_plain_arrays(saved, tmp_path):
    path, members = saved
    bad = tmp_path / "bad.npz"
    assert error(write(bad, members, dispatches=b"not an npy file")) == (
        "F: member dispatches.npy: it is not a .npy array (the magic string is not correct; expected b'\\x93NUMPY', "
        "got b'not an')")
    assert error(write(bad, members, copies=np.array([{"a": 1}], dtype=object))) == (
        "F: member copies.npy: it holds Python objects (dtype object); only plain arrays are read")
    header = io.BytesIO()   # a header declaring 10**12 rows over 100 bytes of data
    np.lib.format.write_array_header_1_0(header, {"descr": np.lib.format.dtype_to_descr(
        members_dtype(members, "memory")), "fortran_order": False, "shape": (10 ** 12,)})
    assert error(write(bad, members, memory=header.getvalue() + bytes(100))).startswith(
        "F: member memory.npy: its header declares ")
    assert error(write(bad, members, submissions=np.zeros((2, 2), dtype=[("cycle", "<i8")]))) == (
        "F: table submissions has shape (2, 2); a table is one-dimensional")
    assert error(write(bad, members, submissions=np.zeros(3, dtype=np.float64))).startswith(
        "F: table submissions has columns [('', '<f8')]; expected")


def members_dtype(members, name):
    return np.load(io.BytesIO(members[name + ".npy"])).dtype


def test_a_member_too_large_for_the_limit(saved, tmp_path, monkeypatch):
    path, _ = saved
    monkeypatch.setattr(trace_io, "MAX_TRACE_BYTES", 1000)
    assert error(path).startswith("F: its arrays hold ")
    assert error(path).endswith("bytes; a trace file may hold at most 1000")


@pytest.mark.parametrize("meta, message", [
    (np.arange(3), "F: meta.npy is a int64 array of shape (3,); it must hold one JSON text"),
    (np.array("not json"), "F: meta.npy is not JSON text"),
    (np.array("[1, 2]"), "F: meta.npy holds a JSON list; it must be an object"),
    (np.array('{"format": 2}'), "F is a dmlemu trace of format 2; this version reads format 1"),
    (np.array('{"format": 1}'), "F: meta.npy has no field 'preset_key'"),
    (np.array("[" * 100_000 + "]" * 100_000), "F: meta.npy is not JSON text"),
])
def test_meta_that_is_not_the_json_saved(saved, tmp_path, meta, message):
    _, members = saved
    assert error(write(tmp_path / "m.npz", members, meta=meta)) == message


@pytest.mark.parametrize("fields, message", [
    ({"wave_width": 7}, "F: meta.npy field 'wave_width' is 7; it must be 4, 8, 16, 32 or 64"),
    ({"detail": "all"}, "F: meta.npy field 'detail' is 'all'; it must be one of dispatch, wave, instruction, memory"),
    ({"programs": [[0, "k"]]}, "F: meta.npy field 'programs' is [[0, 'k']]; it must be a list of [dispatch id, kernel "
                               "name, [instruction texts]]"),
    ({"aggregated": "memory"}, "F: meta.npy field 'aggregated' is 'memory'; it must be a list of table names"),
    ({"preset": []}, "F: meta.npy field 'preset' is []; it must be an object"),
    ({"preset": {"clock_hz": 0}}, "F: meta.npy preset: clock_hz is 0; it must be a positive integer"),
    ({"preset": {"clock_hz": "fast"}}, "F: meta.npy preset: clock_hz is 'fast'; it must be a non-negative "
                                       "integer"),
    ({"preset": {"native_fp16": 1}}, "F: meta.npy preset: native_fp16 is 1; it must be a bool"),
    ({"preset": {"sources": "x"}}, "F: meta.npy preset field 'sources' is 'x'; it must be a list of texts"),
    ({"preset_key": "custom", "preset": {"key": "custom"}},
     "F: meta.npy preset of the unknown adapter 'custom' lacks the field(s) clock_hz, compute_units, "
     "dedicated_video_memory, description, device_id, dram_bytes_per_second, dram_latency_cycles, launch_cycles, "
     "simds_per_cu, vendor_id, wave_width, workgroup_size"),
])
def test_meta_fields_of_the_wrong_kind(saved, tmp_path, fields, message):
    _, members = saved
    assert error(write(tmp_path / "m.npz", members, meta=meta_with(members, **fields))) == message


def test_dmlemu_trace_prints_one_line(saved, tmp_path):
    _, members = saved
    bad = write(tmp_path / "m.npz", members, meta=meta_with(members, wave_width=7))
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        assert main(["trace", str(bad)]) == 2
    assert err.getvalue() == f"dmlemu: error: {bad}: meta.npy field 'wave_width' is 7; it must be 4, 8, 16, 32 or 64\n"
    assert out.getvalue() == ""


# ---- generated damage -------------------------------------------------------------------------------------
def readable(trace, folder):
    """What `dmlemu trace` does with a loaded trace: the summaries, and the JSON and CSV exports."""
    trace.format_summary()
    trace.instruction_summary()
    to_chrome(trace)
    save_dispatch_csv(trace, folder / "dispatches.csv")


@settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(edits=st.lists(st.tuples(st.integers(0, 1 << 20), st.integers(1, 255)), min_size=1, max_size=4),
       cut=st.one_of(st.none(), st.integers(0, 1 << 20)))
def test_damaged_bytes_give_a_trace_or_a_sentence(saved, tmp_path, edits, cut):
    path, _ = saved
    data = bytearray(path.read_bytes())
    for at, xor in edits:
        data[at % len(data)] ^= xor
    if cut is not None:
        data = data[:cut % (len(data) + 1)]
    bad = tmp_path / "damaged.npz"
    bad.write_bytes(bytes(data))
    try:
        trace = load_trace(bad)
    except TraceFileError as e:
        assert str(e).startswith(str(bad))
        outcome(REFUSED)
        return
    outcome(ACCEPTED)
    readable(trace, tmp_path)


_JSON = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(-2 ** 70, 2 ** 70), st.floats(),
                               st.text(max_size=5)),
                     lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
                     max_leaves=8)
_META_KEYS = ["format", "preset_key", "preset", "wave_width", "detail", "aggregated", "programs"]
_PRESET_KEYS = ["clock_hz", "sector_bytes", "wave_width", "native_fp16", "sources", "key", "compute_units",
                "dram_bytes_per_second", "l2_bytes", "infinity_cache_bytes"]


@settings(max_examples=200, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(key=st.sampled_from(_META_KEYS + ["preset." + k for k in _PRESET_KEYS]), value=_JSON, drop=st.booleans())
def test_any_meta_field_value_gives_a_trace_or_a_sentence(saved, tmp_path, key, value, drop):
    _, members = saved
    meta = json.loads(str(np.load(io.BytesIO(members["meta.npy"])).reshape(-1)[0]))
    where, name = (meta["preset"], key[7:]) if key.startswith("preset.") else (meta, key)
    if drop:
        where.pop(name, None)
    else:
        where[name] = value
    bad = write(tmp_path / "meta.npz", members, meta=np.array(json.dumps(meta)))
    try:
        trace = load_trace(bad)
    except TraceFileError:
        outcome(REFUSED)
        return
    outcome(ACCEPTED)
    readable(trace, tmp_path)


_DTYPES = st.sampled_from(["<i8", "<f8", "|u1", "<U3", "|b1", "<i4"])


@settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(table=st.sampled_from(["dispatches", "wave_groups", "segments", "memory", "counters", "submissions", "copies",
                              "mem_instructions", "wave_summary"]),
       shape=st.lists(st.integers(0, 3), max_size=2), dtype=_DTYPES, structured=st.booleans())
def test_any_table_array_gives_a_trace_or_a_sentence(saved, tmp_path, table, shape, dtype, structured):
    _, members = saved
    array = np.zeros(tuple(shape), dtype=[("cycle", dtype)] if structured else dtype)
    bad = write(tmp_path / "table.npz", members, **{table: array})
    try:
        trace = load_trace(bad)
    except TraceFileError as e:
        assert f"table {table}" in str(e), str(e)
        outcome(REFUSED)
        return
    outcome(ACCEPTED)
    readable(trace, tmp_path)
