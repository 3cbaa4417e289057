"""The trace's tables by column name (traces/schema.py): a row that misses a column, names an unknown
one or gives values by position is refused with the table and the column named; a schema whose
columns are rearranged gives the same columns and byte-identical exports, so no writer or reader
knows where a column sits."""
import csv
import io

import numpy as np
import pytest

from dmlemu.convenience import run_operator
from dmlemu.directml import (DML_BUFFER_TENSOR_DESC, DML_ELEMENT_WISE_CLIP_OPERATOR_DESC, DML_TENSOR_DATA_TYPE_FLOAT16,
                             DML_TENSOR_DESC, DML_TENSOR_TYPE_BUFFER)
from dmlemu.gpu import Gpu
from dmlemu.kernels.driver import TensorSpec
from dmlemu.direct_run import DirectRun
from dmlemu.presets import TEACHING
from dmlemu.traces import capture, load_trace, save_chrome_json, save_dispatch_csv, save_table_csv, save_trace
from dmlemu.traces.schema import TABLES, TRAFFIC, Table

SEGMENT = dict(dispatch=0, cu=1, simd=2, group=3, first_wave=4, waves=5, pc_first=6, pc_last=7, start=8, end=9)


# ---- rows by name ----------------------------------------------------------------------------------------
def test_a_row_names_every_column_and_packs_into_the_declared_dtype():
    table = TABLES["segments"]
    packed = np.array([table.row(**SEGMENT)], dtype=table.dtype)
    assert {name: int(packed[name][0]) for name in table.names} == SEGMENT
    # Keyword order does not matter: the row is in column order whatever the call's order.
    assert table.row(**dict(reversed(list(SEGMENT.items())))) == table.row(**SEGMENT)


def test_a_row_missing_a_column_is_refused_naming_the_table_and_the_column():
    fields = {k: v for k, v in SEGMENT.items() if k != "end"}
    with pytest.raises(TypeError, match=r"^segments_row\(\) missing 1 required keyword-only argument: 'end'$"):
        TABLES["segments"].row(**fields)


def test_a_row_with_an_unknown_column_is_refused():
    with pytest.raises(TypeError, match=r"^segments_row\(\) got an unexpected keyword argument 'stop'$"):
        TABLES["segments"].row(**SEGMENT, stop=10)


def test_a_row_by_position_is_refused():
    with pytest.raises(TypeError, match=r"^segments_row\(\) takes 0 positional arguments but 10 were given$"):
        TABLES["segments"].row(*SEGMENT.values())


@pytest.mark.parametrize("name", sorted(TABLES))
def test_every_table_refuses_each_missing_column(name):
    table = TABLES[name]
    zero = {n: np.zeros(1, dtype=table.dtype)[n][0].item() for n in table.names}
    assert np.array([table.row(**zero)], dtype=table.dtype).tobytes() == np.zeros(1, dtype=table.dtype).tobytes()
    for missing in table.names:
        with pytest.raises(TypeError, match=rf"^{name}_row\(\) missing 1 required keyword-only argument: '{missing}'$"):
            table.row(**{n: v for n, v in zero.items() if n != missing})


def test_columns_handed_over_at_once_must_be_exactly_the_tables():
    table = TABLES["wave_groups"]
    columns = {n: [i, i + 1] for i, n in enumerate(table.names)}
    assert list(table.zip(columns)) == [tuple(range(len(table.names))), tuple(range(1, len(table.names) + 1))]
    columns["stop"] = columns.pop("end")
    with pytest.raises(ValueError, match=r"^rows of table wave_groups: the table lacks the column\(s\) end and has no "
                                         r"column\(s\) stop; its columns are dispatch, cu, simd, group, first_wave, "
                                         r"waves, start, end$"):
        table.zip(columns)


def test_a_column_declared_twice_or_not_a_plain_name_is_refused_at_declaration():
    with pytest.raises(ValueError, match=r"^table t names the column\(s\) a twice; each column is declared once$"):
        Table("t", (("a", "i8"), ("b", "i8"), ("a", "i4")))
    for bad in ("class", "two words", "_private"):
        with pytest.raises(ValueError, match=rf"^table t column '{bad}' is not a plain Python name"):
            Table("t", ((bad, "i8"),))


def test_the_dispatch_traffic_columns_are_columns_of_dispatches():
    assert set(TRAFFIC) <= set(TABLES["dispatches"].names)


def test_an_untimed_dispatch_has_zero_traffic_by_name():
    gpu = Gpu(TEACHING, timing=False)
    x = np.linspace(-3, 3, 256).astype(np.float16)
    spec = TensorSpec("FLOAT16", (256,), None, x.nbytes)
    run = DirectRun(gpu, "ELEMENT_WISE_CLIP", [spec, spec], [x.view(np.uint8), np.zeros(x.nbytes, np.uint8)],
                    min_value=-1.0, max_value=1.0)
    with capture(gpu, detail="memory") as cap:
        run.dispatch()
    (d,) = cap.trace.dispatches
    assert not d["timed"] and all(int(d[n]) == 0 for n in TRAFFIC)
    assert int(d["bytes_read"]) == int(d["bytes_written"]) == x.nbytes == int(d["dram_bytes"]) // 2
    assert int(d["waves"]) > 0 and str(d["name"])


# ---- a rearranged schema ------------------------------------------------------------------------------
def _folded_mirror_trace():
    """CLIP on the teaching GPU through the mirror (copies, submissions, barriers), at memory detail,
    40 rows per table: wave groups folded (wave_summary), segments and memory requests cut."""
    n = 4096
    t = DML_TENSOR_DESC(Type=DML_TENSOR_TYPE_BUFFER, Desc=DML_BUFFER_TENSOR_DESC(
        DataType=DML_TENSOR_DATA_TYPE_FLOAT16, Sizes=[n], TotalTensorSizeInBytes=2 * n))
    x = np.linspace(-3, 3, n).astype(np.float16)
    _, trace = run_operator(DML_ELEMENT_WISE_CLIP_OPERATOR_DESC(InputTensor=t, OutputTensor=t, Min=-1, Max=1), [x],
                            adapter="teaching", trace="memory", trace_max_rows=40)
    return trace


def _exports(trace, folder):
    """The bytes of every export that does not print columns in table order, and the table CSVs as dicts."""
    out = {"json": save_chrome_json(trace, folder / "t.json"), "csv": save_dispatch_csv(trace, folder / "t.csv")}
    try:
        from dmlemu.traces.pftrace import require_perfetto, save_pftrace
        require_perfetto()
        out["pftrace"] = save_pftrace(trace, folder / "t.pftrace")
    except ImportError:
        pass
    data = {k: open(p, "rb").read() for k, p in out.items()}
    for name in sorted(trace.tables):
        with open(save_table_csv(trace, name, folder / f"{name}.csv"), newline="") as f:
            data[name + ".csv"] = list(csv.DictReader(io.StringIO(f.read())))
    return data


def test_a_rearranged_schema_gives_the_same_columns_and_the_same_exports(tmp_path, monkeypatch):
    plain = _folded_mirror_trace()
    assert plain.aggregated and len(plain.tables["wave_summary"]) and len(plain.tables["copies"])
    (tmp_path / "plain").mkdir()
    (tmp_path / "rearranged").mkdir()
    expected = _exports(plain, tmp_path / "plain")
    for name, table in list(TABLES.items()):          # every table's columns in reverse order
        monkeypatch.setitem(TABLES, name, Table(name, tuple(reversed(table.columns))))
    rearranged = _folded_mirror_trace()
    for name, table in plain.tables.items():
        other = rearranged.tables[name]
        assert other.dtype.names == tuple(reversed(table.dtype.names)), name
        for column in table.dtype.names:
            assert np.array_equal(other[column], table[column]), (name, column)
    assert rearranged.summary() == plain.summary() and rearranged.folded() == plain.folded()
    assert _exports(rearranged, tmp_path / "rearranged") == expected
    path = save_trace(rearranged, tmp_path / "rearranged" / "t.npz")
    loaded = load_trace(path)
    for name, table in rearranged.tables.items():
        assert loaded.tables[name].dtype == table.dtype and np.array_equal(loaded.tables[name], table), name
