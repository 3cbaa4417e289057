"""The adapter presets as a table: the library behind `dmlemu adapters`.

Reads dmlemu.presets.PRESETS (one DXGI adapter each, in EnumAdapters1 order) and the software
presets (WARP, from EnumWarpAdapter; its index column reads "warp") and prints the figures that matter
for a DirectML program and for its timing, then each preset's sources.
"""
from dmlemu.directml import DML_FEATURE_LEVEL
from dmlemu.presets import DEFAULT_PRESET, PRESETS, SOFTWARE_PRESETS

__all__ = ["adapter_rows", "format_adapters", "feature_level_name"]

COLUMNS = ("index", "key", "CUs", "SIMDs/CU", "wave", "clock GHz", "memory GiB", "DRAM GB/s", "FP16", "64-bit",
           "max level")


def feature_level_name(value):
    try:
        return DML_FEATURE_LEVEL(value).name[len("DML_FEATURE_LEVEL_"):]
    except ValueError:
        return f"0x{value:x}"


def adapter_rows():
    """One dict per preset with the table's columns (values as text)."""
    rows = []
    for index, p in [(str(i), p) for i, p in enumerate(PRESETS)] + [("warp", p) for p in SOFTWARE_PRESETS]:
        rows.append({
            "index": index, "key": p.key + (" *" if p is DEFAULT_PRESET else ""),
            "CUs": str(p.compute_units), "SIMDs/CU": str(p.simds_per_cu), "wave": str(p.wave_width),
            "clock GHz": f"{p.clock_hz / 1e9:.4g}", "memory GiB": f"{p.dedicated_video_memory / (1 << 30):g}",
            "DRAM GB/s": f"{p.dram_bytes_per_second / 1e9:g}", "FP16": "native" if p.native_fp16 else "emulated",
            "64-bit": "yes" if p.supports_64bit else "no", "max level": feature_level_name(p.max_feature_level),
        })
    return rows


def format_adapters(with_sources=True):
    rows = adapter_rows()
    widths = {c: max(len(c), *(len(r[c]) for r in rows)) for c in COLUMNS}
    lines = ["  ".join(f"{c:>{widths[c]}}" if c not in ("key",) else f"{c:<{widths[c]}}" for c in COLUMNS)]
    for r in rows:
        lines.append("  ".join(f"{r[c]:>{widths[c]}}" if c not in ("key",) else f"{r[c]:<{widths[c]}}"
                               for c in COLUMNS))
    lines += ["", "* the default adapter (D3D12CreateDevice(None, ...) and EnumAdapters1(0)). "
              "Pick one with --adapter KEY.", "warp: the software adapter IDXGIFactory4::EnumWarpAdapter returns "
              "(not listed by EnumAdapters1).", "FP16 'native': DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION "
              "computes FLOAT16 in FLOAT16; 64-bit: INT64/UINT64/FLOAT64 tensors."]
    if with_sources:
        for p in PRESETS + SOFTWARE_PRESETS:
            lines += ["", f"{p.key}: {p.description}"]
            lines += [f"  - {s}" for s in p.sources]
    return "\n".join(lines)
