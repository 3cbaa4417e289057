"""The trace's tables: every table's columns, names and NumPy dtypes, declared once, here.

The recorder (traces/recorder.py) writes rows by column name and the readers (traces/trace.py, the
exports chrome.py, pftrace.py and csv_export.py, plots.py, the .npz reader io.py) read columns by
name; none of them knows a column's position. Per table:

    dispatches          one row per dispatch, timed or not: sizes, bytes, instruction counts, its
                        memory hierarchy counters (TRAFFIC; the units are in recorder.py's banner) and
                        what its units were busy with (BUSY: what traces/verdict.py reads)
    instructions        one row per instruction of each dispatch: waves that executed it, issue cycles
    mem_instructions    one row per vector memory instruction of a timed dispatch: its traffic per level
    wave_groups         one row per wave group (waves that ran together on one slot group of a SIMD)
    wave_summary        wave groups past the row limit, folded per (dispatch, CU, SIMD)
    segments            one row per instruction segment of a wave group
    memory              one row per memory request: issue, completion, bytes, DRAM bytes
    copies              one row per copy-engine copy
    submissions         one row per ExecuteCommandLists call
    barriers            one row per barrier: reached, GPU idle, flushed, L2 written back
    hazards             one row per unordered conflicting access (emulator/d3d12/hazards.py)
    counters            one row per time bucket of a timed dispatch (DRAM bytes, resident waves, ...)

`TABLES[name].row(**fields)` makes a row of a table: every column by keyword, as a plain tuple in
the table's column order, which is what NumPy packs into the structured dtype. A missing column, an
unknown one, or a value given by position is a TypeError that names the table and the column, e.g.
`segments_row() missing 1 required keyword-only argument: 'end'`. `row` is a function generated
from the column names when this module is imported (as collections.namedtuple generates its
__new__), so a row costs one call with keywords: no dict, no validation loop (the recorder's hooks
make one per wave group, instruction segment and memory request when those are kept).
`TABLES[name].zip(columns)` makes rows from whole columns (a dict of column name -> sequence),
checked once per call, for hooks that hand many rows over at once. `columns(array, names, rows)`
gives readers the named columns of a table as Python lists, to zip over row by row.
"""
import keyword

import numpy as np

from dmlemu.isa.opcodes import RATE_CLASSES

__all__ = ["Table", "TABLES", "TRAFFIC", "BUSY", "ISSUE", "columns"]


class Table:
    """One table's columns. `columns`: ((name, dtype), ...) in order; `names`; `dtype`, the NumPy
    structured dtype; `row(**fields)`, a row by column name. Iterating a Table gives its (name, dtype)
    pairs, as np.dtype takes them."""

    __slots__ = ("name", "columns", "names", "dtype", "row")

    def __init__(self, name, columns):
        self.name = name
        self.columns = tuple((str(n), str(t)) for n, t in columns)
        self.names = tuple(n for n, _ in self.columns)
        for n in self.names:
            if not n.isidentifier() or keyword.iskeyword(n) or n.startswith("_"):
                raise ValueError(f"table {name} column {n!r} is not a plain Python name; a column name must "
                                 f"be one (rows are made with it as a keyword)")
        if len(set(self.names)) != len(self.names):
            twice = sorted({n for n in self.names if self.names.count(n) > 1})
            raise ValueError(f"table {name} names the column(s) {', '.join(twice)} twice; each column is declared once")
        self.dtype = np.dtype(list(self.columns))
        self.row = _row_function(name, self.names)

    def __iter__(self):
        return iter(self.columns)

    def __repr__(self):
        return f"Table({self.name!r}, {list(self.columns)!r})"

    def zip(self, columns):
        """Rows (tuples in column order) from `columns`, a dict of column name -> equal-length
        sequences; ValueError (a sentence naming the table and the columns) unless it holds exactly
        this table's columns."""
        if len(columns) != len(self.names) or any(n not in columns for n in self.names):
            missing = [n for n in self.names if n not in columns]
            unknown = sorted(set(columns) - set(self.names))
            parts = ([f"lacks the column(s) {', '.join(missing)}"] if missing else []) + \
                    ([f"has no column(s) {', '.join(unknown)}"] if unknown else [])
            raise ValueError(f"rows of table {self.name}: the table {' and '.join(parts)}; its columns are "
                             f"{', '.join(self.names)}")
        return zip(*(columns[n] for n in self.names))


def _row_function(table, names):
    """`def <table>_row(*, a, b, ...): return (a, b, ...)`: every column a required keyword."""
    source = f"def {table}_row(*, {', '.join(names)}):\n    return ({', '.join(names)},)\n"
    namespace = {}
    exec(compile(source, f"<trace table {table}>", "exec"), namespace)
    function = namespace[f"{table}_row"]
    function.__doc__ = f"A row of table {table}: {', '.join(names)}, each by keyword."
    function.__module__ = __name__
    return function


# The memory hierarchy counters of a dispatch (sectors unless named otherwise; recorder.py's banner):
# zero for an untimed dispatch.
_TRAFFIC_COLUMNS = (("cu_hits", "i8"), ("l2_requests", "i8"), ("l2_lines", "i8"), ("l2_hits", "i8"), ("ic_requests", "i8"),
                    ("ic_hits", "i8"), ("dram_read_sectors", "i8"), ("dram_write_sectors", "i8"),
                    ("ic_write_sectors", "i8"), ("dram_turnarounds", "i8"))
TRAFFIC = tuple(n for n, _ in _TRAFFIC_COLUMNS)

# What a timed dispatch kept its units busy with (recorder.py's banner; zero for an untimed dispatch):
# the issue cycles of its instructions, per VALU rate class (isa/opcodes.py) and the rest (SALU,
# scalar loads, branches, vector memory issue), the SIMD issue ports' booked cycles, the SIMD-cycles
# with a wave resident, and the DRAM server's busy cycles.
ISSUE = tuple(f"{c}_issue_cycles" for c in RATE_CLASSES) + ("other_issue_cycles",)
_BUSY_COLUMNS = (*((n, "i8") for n in ISSUE), ("simd_busy_cycles", "i8"), ("occupied_simd_cycles", "i8"),
                 ("dram_busy_cycles", "i8"))
BUSY = tuple(n for n, _ in _BUSY_COLUMNS)

TABLES = {t.name: t for t in (
    Table("dispatches", (("id", "i8"), ("name", "U64"), ("start", "i8"), ("end", "i8"), ("waves", "i8"),
                         ("workgroups", "i8"), ("elements", "i8"), ("bytes_read", "i8"), ("bytes_written", "i8"),
                         ("dram_bytes", "i8"), ("wave_instructions", "i8"), ("valu_instructions", "i8"),
                         ("vgprs", "i4"), ("waves_per_simd", "i4"),
                         ("oob_reads", "i8"), ("oob_writes", "i8"), ("timed", "?"),
                         *_TRAFFIC_COLUMNS, ("hazards", "i8"), *_BUSY_COLUMNS,
                         ("lds_bytes", "i8"), ("barrier_wait_cycles", "i8"), ("lds_passes", "i8"))),
    Table("instructions", (("dispatch", "i8"), ("pc", "i4"), ("waves", "i8"), ("issue_cycles", "i8"))),
    Table("mem_instructions", (("dispatch", "i8"), ("pc", "i4"), ("instruction", "U64"), ("write", "?"),
                               ("waves", "i8"), ("useful_bytes", "i8"), ("sectors", "i8"), ("lines", "i8"),
                               ("cu_hits", "i8"), ("l2_hits", "i8"), ("ic_hits", "i8"), ("dram_reads", "i8"), ("dram_writes", "i8"),
                               ("ic_writes", "i8"), ("coalescing", "f8"))),
    Table("wave_groups", (("dispatch", "i8"), ("cu", "i4"), ("simd", "i4"), ("group", "i4"), ("first_wave", "i8"),
                          ("waves", "i4"), ("start", "i8"), ("end", "i8"))),
    Table("wave_summary", (("dispatch", "i8"), ("cu", "i4"), ("simd", "i4"), ("waves", "i8"), ("groups", "i8"),
                           ("start", "i8"), ("end", "i8"))),
    Table("segments", (("dispatch", "i8"), ("cu", "i4"), ("simd", "i4"), ("group", "i4"), ("first_wave", "i8"),
                       ("waves", "i4"), ("pc_first", "i4"), ("pc_last", "i4"), ("start", "i8"), ("end", "i8"))),
    Table("memory", (("dispatch", "i8"), ("cu", "i4"), ("simd", "i4"), ("group", "i4"), ("pc", "i4"),
                     ("issue", "i8"), ("complete", "i8"), ("bytes", "i8"), ("dram_bytes", "i8"), ("write", "?"))),
    Table("copies", (("start", "i8"), ("end", "i8"), ("bytes", "i8"), ("dst", "U64"), ("src", "U64"))),
    # The host link (timing/memory_system.py's HostLink): a copy's transfer (dispatch -1), or one row per
    # dispatch and direction spanning its host-memory requests (first start to last end, their bytes).
    Table("host_link", (("start", "i8"), ("end", "i8"), ("bytes", "i8"), ("to_host", "?"), ("dispatch", "i8"))),
    Table("submissions", (("cycle", "i8"),)),
    Table("barriers", (("start", "i8"), ("idle", "i8"), ("flushed", "i8"), ("end", "i8"), ("release", "?"))),
    Table("hazards", (("dispatch", "i8"), ("kind", "U20"), ("operation", "U96"), ("earlier", "U96"),
                      ("resource", "U64"), ("start", "i8"), ("end", "i8"))),
    Table("counters", (("dispatch", "i8"), ("start", "i8"), ("end", "i8"), ("dram_read_bytes", "i8"),
                       ("dram_write_bytes", "i8"), ("resident_waves", "f8"), ("alu_busy", "f8"),
                       ("l2_hits", "i8"), ("l2_misses", "i8"), ("ic_hits", "i8"), ("ic_misses", "i8"))),
)}


def columns(table, names, rows=None):
    """Python lists of the named columns of `table` (a structured array; `rows`: an index array or
    slice of the rows wanted, None: all), one list per name, to zip over: values read by name."""
    if rows is None:
        return [table[n].tolist() for n in names]
    return [table[n][rows].tolist() for n in names]
