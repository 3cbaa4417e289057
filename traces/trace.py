"""A captured trace: structured columns (NumPy) plus what is needed to read them.

Tables (see recorder.TABLES for the columns): dispatches, wave_groups, segments, memory, copies,
submissions, counters. Times are GPU cycles; `seconds(cycles)` converts with the preset's clock.
Exports and plots live beside this module (chrome.py, csv_export.py, plots.py) and read only these
columns.
"""
import numpy as np


class Trace:
    def __init__(self, tables, preset, wave_width, detail, aggregated, programs):
        self.tables = tables
        self.preset = preset
        self.wave_width = wave_width
        self.detail = detail
        self.aggregated = aggregated      # names of tables whose rows were folded past max_rows
        self.programs = programs          # dispatch id -> (kernel name, instruction texts)

    def __getattr__(self, name):
        tables = self.__dict__.get("tables", {})
        if name in tables:
            return tables[name]
        raise AttributeError(name)

    def seconds(self, cycles):
        return np.asarray(cycles, dtype=np.float64) / self.preset.clock_hz

    def summary(self):
        """One dict per dispatch: cycles, time, bytes, achieved bandwidth and % of peak, occupancy."""
        out = []
        peak = self.preset.dram_bytes_per_second
        slots = self.preset.compute_units * self.preset.simds_per_cu
        for d in self.dispatches:
            cycles = int(d["end"] - d["start"])
            seconds = cycles / self.preset.clock_hz
            moved = int(d["bytes_read"] + d["bytes_written"])
            bandwidth = moved / seconds if seconds else 0.0
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
                "percent_of_peak": 100.0 * bandwidth / peak, "waves": int(d["waves"]),
                "workgroups": int(d["workgroups"]), "elements": int(d["elements"]),
                "wave_instructions": int(d["wave_instructions"]),
                "valu_instructions": int(d["valu_instructions"]), "vgprs": int(d["vgprs"]),
                "waves_per_simd": int(d["waves_per_simd"]), "occupancy": occupancy,
                "oob_reads": int(d["oob_reads"]), "oob_writes": int(d["oob_writes"]),
                "timed": bool(d["timed"]),
            })
        return out

    def format_summary(self):
        """The per-dispatch summary as a text table."""
        lines = [f"{'#':>3} {'kernel':<36} {'cycles':>10} {'time us':>10} {'read B':>11} {'written B':>11} "
                 f"{'GB/s':>8} {'% peak':>7} {'waves':>8} {'occup.':>6}"]
        for s in self.summary():
            lines.append(f"{s['dispatch']:>3} {s['kernel'][:36]:<36} {s['cycles']:>10} {s['seconds'] * 1e6:>10.2f} "
                         f"{s['bytes_read']:>11} {s['bytes_written']:>11} {s['bandwidth_bytes_per_second'] / 1e9:>8.1f} "
                         f"{s['percent_of_peak']:>6.1f}% {s['waves']:>8} {s['occupancy']:>6.2f}")
        return "\n".join(lines)
