"""A captured trace: structured columns (NumPy) plus what is needed to read them.

Tables: those of traces/schema.py, which declares each one's columns (dispatches, mem_instructions,
wave_groups, wave_summary, segments, memory, copies, submissions, barriers, hazards, counters); read
them by column name. Times are GPU cycles; `seconds(cycles)` converts with the preset's clock.
Exports and plots live beside this module (chrome.py, pftrace.py, csv_export.py, plots.py) and read
only these columns. A large table of a capture that kept every row may be an np.memmap of
the recorder's spill file (deleted already; traces/recorder.py): it reads like any array.

Memory hierarchy figures in summary() (per dispatch) and instruction_summary() (per memory
instruction): requests, hits and misses are counted in sectors (`preset.sector_bytes`); bytes are
sectors x sector_bytes. A hit rate is hits / requests, a fraction from 0 to 1, and 0.0 where there
were no requests (an untimed dispatch, a level the preset lacks: no Infinity Cache), so every CSV
cell stays a number. Coalescing efficiency is the bytes the lanes asked for over the bytes the L2
was asked for (sectors x sector_bytes): 1.0 when every byte of every sector a wave touched was
used, 0.0 where nothing was requested. For the L2, writes count as requests too (a write hit finds
its sector resident); the Infinity Cache is looked up by the L2's read misses only.
dram_turnarounds counts the write batches during the dispatch that turned the DRAM data bus around
after reads (timing/memory_system.py): each cost the preset's dram_turnaround_cycles of idle bus.

The verdict (traces/verdict.py, whose banner gives the rule): summary()'s `limiter` (the modelled unit
that limited the dispatch), `limiter_share` (the share of its time that unit explains, 0 to 1), the
shares of every candidate (`dram_share`, `l2_share`, `ic_share`, `lds_share`, `issue_share`, `latency_share`,
`idle_share`) and `occupancy_limiter`; format_verdicts() says it in one line per dispatch.
"""
import numpy as np

from dmlemu.traces.verdict import format_verdict, verdict


class Trace:
    def __init__(self, tables, preset, wave_width, detail, aggregated, programs, dropped=None):
        self.tables = tables
        self.preset = preset
        self.wave_width = wave_width
        self.detail = detail
        self.aggregated = aggregated      # names of tables whose rows were folded past max_rows
        self.programs = programs          # dispatch id -> (kernel name, instruction texts)
        self.dropped = dict(dropped or {})   # table -> rows not kept past max_rows (unknown: absent)

    def __getattr__(self, name):
        tables = self.__dict__.get("tables", {})
        if name in tables:
            return tables[name]
        raise AttributeError(name)

    def folded(self):
        """One sentence per table the recorder folded or cut past its row limit (empty when the trace
        holds every row): what is missing and where its figures still are. Exports show these (a
        track of their own) and `dmlemu run` prints them."""
        notes = []
        for name in self.aggregated:
            kept, dropped = len(self.tables[name]), self.dropped.get(name)
            more = f"{dropped} later rows" if dropped is not None else "later rows"
            if name == "wave_groups":
                s = self.tables["wave_summary"]
                where = (f"folded into {len(s)} per-SIMD summaries (table wave_summary: "
                         f"{int(s['waves'].sum())} waves in {int(s['groups'].sum())} groups)")
            else:
                where = "not in this trace (the counters and per-dispatch figures still cover them)"
            notes.append(f"the recorder kept only the first {kept} rows of {name}; {more} are {where}")
        return notes

    def seconds(self, cycles):
        return np.asarray(cycles, dtype=np.float64) / self.preset.clock_hz

    def summary(self):
        """One dict per dispatch: cycles, time, bytes, achieved DRAM bandwidth and % of DRAM peak (from the
        bytes DRAM really moved during the dispatch: reads and write-backs), the bandwidth the kernel
        requested (its bytes read and written over its time), occupancy,
        and the memory hierarchy: L2 and Infinity Cache requests, hits, misses, hit rates and bytes,
        DRAM bytes read and written back, coalescing efficiency (see the module banner)."""
        out = []
        sector = int(self.preset.sector_bytes)
        peak = self.preset.dram_bytes_per_second
        slots = self.preset.compute_units * self.preset.simds_per_cu
        for d in self.dispatches:
            cycles = int(d["end"] - d["start"])
            seconds = cycles / self.preset.clock_hz
            moved = int(d["bytes_read"] + d["bytes_written"])     # what the kernel asked for
            requested = moved / seconds if seconds else 0.0
            bandwidth = int(d["dram_bytes"]) / seconds if seconds else 0.0   # real DRAM traffic
            counters = self.counters[self.counters["dispatch"] == d["id"]]
            if len(counters) and d["waves_per_simd"]:
                widths = (counters["end"] - counters["start"]).astype(np.float64)
                resident = float((counters["resident_waves"] * widths).sum() / widths.sum())
                occupancy = resident / (slots * int(d["waves_per_simd"]))
            else:
                occupancy = 0.0
            out.append({
                "dispatch": int(d["id"]), "kernel": str(d["name"]), "cycles": cycles, "seconds": seconds,
                "start_cycle": int(d["start"]), "end_cycle": int(d["end"]),
                "bytes_read": int(d["bytes_read"]), "bytes_written": int(d["bytes_written"]),
                "dram_bytes": int(d["dram_bytes"]), "bandwidth_bytes_per_second": bandwidth,
                "percent_of_peak": 100.0 * bandwidth / peak, "requested_bytes_per_second": requested, "waves": int(d["waves"]),
                "workgroups": int(d["workgroups"]), "elements": int(d["elements"]),
                "wave_instructions": int(d["wave_instructions"]),
                "valu_instructions": int(d["valu_instructions"]), "vgprs": int(d["vgprs"]),
                "waves_per_simd": int(d["waves_per_simd"]), "occupancy": occupancy,
                "oob_reads": int(d["oob_reads"]), "oob_writes": int(d["oob_writes"]), "hazards": int(d["hazards"]),
                "timed": bool(d["timed"]),
                **_levels(d, sector, int(d["bytes_read"] + d["bytes_written"])),
                **_verdict_fields(verdict(d, self.preset)),
            })
        return out

    def format_verdicts(self):
        """One line per dispatch: what limited it and the share of its time that explains, the other
        units' shares, its occupancy and what limited that (traces/verdict.py)."""
        return "\n".join(format_verdict(verdict(d, self.preset), d, self.preset) for d in self.dispatches)

    def instruction_summary(self):
        """One dict per memory instruction of each timed dispatch (table mem_instructions): the
        instruction, waves that executed it, sectors and lines per wave, each level's hits, misses
        and hit rate, coalescing efficiency (see the module banner)."""
        out = []
        sector = int(self.preset.sector_bytes)
        has_ic = bool(self.preset.infinity_cache_bytes)
        for m in self.tables["mem_instructions"]:
            waves, sectors, hits = int(m["waves"]), int(m["sectors"]), int(m["l2_hits"])
            requests = sectors - int(m["cu_hits"])        # the CU-side caches' hits never reach the L2
            ic_requests = int(m["ic_hits"] + m["dram_reads"]) if has_ic else 0
            out.append({
                "dispatch": int(m["dispatch"]), "pc": int(m["pc"]), "instruction": str(m["instruction"]),
                "write": bool(m["write"]), "waves": waves, "useful_bytes": int(m["useful_bytes"]),
                "cu_hits": int(m["cu_hits"]), "l2_requests": requests, "l2_lines": int(m["lines"]),
                "sectors_per_wave": sectors / waves if waves else 0.0,
                "lines_per_wave": int(m["lines"]) / waves if waves else 0.0,
                "l2_hits": hits, "l2_misses": requests - hits, "l2_hit_rate": _rate(hits, requests),
                "ic_requests": ic_requests, "ic_hits": int(m["ic_hits"]),
                "ic_hit_rate": _rate(int(m["ic_hits"]), ic_requests),
                "dram_read_bytes": int(m["dram_reads"]) * sector, "dram_write_bytes": int(m["dram_writes"]) * sector,
                "coalescing_efficiency": float(m["coalescing"]),
            })
        return out

    def format_summary(self):
        """The per-dispatch summary as a text table ('-' for a hit rate or efficiency with no request)."""
        lines = [f"{'#':>3} {'kernel':<36} {'cycles':>10} {'time us':>10} {'read B':>11} {'written B':>11} "
                 f"{'DRAM GB/s':>9} {'% peak':>7} {'req GB/s':>8} {'waves':>8} {'occup.':>6} {'L2 hit%':>7} {'IC hit%':>7} {'coal.%':>6}"]
        for s in self.summary():
            name = wrap_name(s["kernel"], 36)
            lines.append(f"{s['dispatch']:>3} {name[0]:<36} {s['cycles']:>10} {s['seconds'] * 1e6:>10.2f} "
                         f"{s['bytes_read']:>11} {s['bytes_written']:>11} {s['bandwidth_bytes_per_second'] / 1e9:>9.1f} "
                         f"{s['percent_of_peak']:>6.1f}% {s['requested_bytes_per_second'] / 1e9:>8.1f} {s['waves']:>8} {s['occupancy']:>6.2f} "
                         f"{_percent(s['l2_hit_rate'], s['l2_requests']):>7} "
                         f"{_percent(s['ic_hit_rate'], s['ic_requests']):>7} "
                         f"{_percent(s['coalescing_efficiency'], s['l2_requests']):>6}")
            lines += [f"{'':>3} {piece}" for piece in name[1:]]      # a long name whole, on lines of its own
        return "\n".join(lines)


def wrap_name(text, width):
    """`text` whole, in lines of at most `width` characters, each broken after a '+', a space or a '_' in
    its second half where there is one (else at the width): nothing cut, nothing added. Tables print a
    dispatch's name this way (a fused graph dispatch names every node it runs)."""
    lines = []
    while len(text) > width:
        cut = max(text.rfind(c, width // 2, width) for c in ("+", " ", "_"))
        cut = cut + 1 if cut >= 0 else width
        lines.append(text[:cut])
        text = text[cut:]
    return lines + [text]


def _verdict_fields(v):
    """A Verdict as summary() keys (in their CSV order)."""
    return {"limiter": v.limiter, "limiter_share": v.share,
            **{f"{name}_share": value for name, value in v.shares.items()},
            "occupancy_limiter": v.occupancy_limiter}


def _rate(part, whole):
    return part / whole if whole else 0.0


def _percent(fraction, requests):
    return f"{100.0 * fraction:.1f}" if requests else "-"


def _levels(d, sector, useful_bytes):
    """A dispatch row's memory hierarchy figures (summary() keys, in their CSV order)."""
    requests, hits, cu_hits = int(d["l2_requests"]), int(d["l2_hits"]), int(d["cu_hits"])
    ic_requests, ic_hits = int(d["ic_requests"]), int(d["ic_hits"])
    return {
        "cu_hits": cu_hits, "l2_requests": requests, "l2_lines": int(d["l2_lines"]), "l2_hits": hits, "l2_misses": requests - hits,
        "l2_hit_rate": _rate(hits, requests), "l2_bytes": requests * sector,
        "ic_requests": ic_requests, "ic_hits": ic_hits, "ic_misses": ic_requests - ic_hits,
        "ic_hit_rate": _rate(ic_hits, ic_requests), "ic_bytes": ic_requests * sector,
        "ic_write_bytes": int(d["ic_write_sectors"]) * sector,
        "dram_read_bytes": int(d["dram_read_sectors"]) * sector,
        "dram_write_bytes": int(d["dram_write_sectors"]) * sector,
        "dram_turnarounds": int(d["dram_turnarounds"]),
        "coalescing_efficiency": _rate(useful_bytes, (cu_hits + requests) * sector),   # what the coalescer asked
    }
