"""CSV export: the per-dispatch summary, or any table of a Trace, one header row then one row per record.

save_dispatch_csv writes Trace.summary() (cache hit rates, coalescing efficiency and all);
save_table_csv(trace, "mem_instructions", path) writes each memory instruction's traffic per level.

Deterministic: integers as integers, floats as Python's repr (the shortest text that reads back as
the same float), booleans as 0/1, "\\n" line ends; the same trace gives the same bytes.
"""
import csv

import numpy as np

__all__ = ["save_dispatch_csv", "save_table_csv"]

CHUNK_ROWS = 65_536     # rows of a table turned into cells at a time (a spilled table is never all in memory)


def save_dispatch_csv(trace, path):
    """Write trace.summary() to `path`: one row per dispatch; returns the path."""
    rows = trace.summary()
    header = list(rows[0]) if rows else _summary_fields(trace)
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(header)
        for row in rows:
            writer.writerow([_cell(row[name]) for name in header])
    return path


def save_table_csv(trace, table_name, path):
    """Write one table of the trace (e.g. "wave_groups") to `path`; returns the path."""
    if table_name not in trace.tables:
        raise ValueError(f"trace has no table named {table_name!r}; its tables are "
                         f"{', '.join(sorted(trace.tables))}")
    table = trace.tables[table_name]
    names = table.dtype.names
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(names)
        for lo in range(0, len(table), CHUNK_ROWS):
            rows = slice(lo, lo + CHUNK_ROWS)
            writer.writerows(zip(*(_cells(table[name][rows]) for name in names)))
    return path


def _cells(column):
    """A column's values as CSV cells: booleans as 0/1, floats as repr, the rest as they are."""
    if column.dtype == np.bool_:
        return column.astype(np.int64).tolist()
    if column.dtype.kind == "f":
        return [repr(v) for v in column.tolist()]
    return column.tolist()


def _summary_fields(trace):
    """The summary's column names, from a one-dispatch trace of zeros (no second list to drift)."""
    from dmlemu.traces.schema import TABLES
    from dmlemu.traces.trace import Trace
    tables = {name: np.zeros(1 if name == "dispatches" else 0, dtype=t.dtype) for name, t in TABLES.items()}
    return list(Trace(tables, trace.preset, trace.wave_width, trace.detail, [], {}).summary()[0])


def _cell(value):
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, float):
        return repr(value)
    return value
