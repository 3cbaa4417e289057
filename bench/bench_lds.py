"""LDS, barrier and atomic microbenchmarks per preset: the table of docs/FIDELITY.md.

    .venv/bin/python bench/bench_lds.py               # every preset
    .venv/bin/python bench/bench_lds.py --preset rx7900xtx

The kernels and what each measures: dmlemu.tools.lds_microbench (tools/lds_microbench.py).
"""
import argparse
import sys

from dmlemu.presets import PRESETS, preset_by_key
from dmlemu.tools.lds_microbench import atomics, bandwidth, barrier, conflict_passes, expected_passes, latency

# Published figures per preset: (value, source) or None where none was found (the preset's figure is an
# estimate, docs/FIDELITY.md says so).
PUBLISHED = {
    "rtx3070": {"latency": (29, "Accel-Sim SM86_RTX3070 gpgpusim.config -gpgpu_smem_latency 29"),
                "bandwidth": (128, "CUDA C++ Programming Guide, cc 8.x: 32 banks x 4 bytes per clock per SM")},
    "h200": {"latency": (29, "Accel-Sim SM90_H100 gpgpusim.config -gpgpu_smem_latency 29"),
             "bandwidth": (128, "CUDA C++ Programming Guide, cc 9.0: 32 banks x 4 bytes per clock per SM")},
    "rx7900xtx": {"bandwidth": (128, "AMD RDNA whitepaper: 128 bytes per clock per CU (LDS half)")},
    "rx6800xt": {"bandwidth": (128, "AMD RDNA whitepaper: 128 bytes per clock per CU (LDS half)")},
}


def table(presets):
    rows = []
    for preset in presets:
        row = {"preset": preset.key, "latency": latency(preset), "bandwidth_b32": bandwidth(preset, 1),
               "bandwidth_b128": bandwidth(preset, 4)}
        for stride in (1, 2, 4, 32, 0):
            row[f"passes_{stride or 'bcast'}"] = (conflict_passes(preset, stride), expected_passes(preset, stride))
        row["barrier"] = barrier(preset)
        row["atomics_distinct"] = atomics(preset, False)
        row["atomics_one"] = atomics(preset, True)
        rows.append(row)
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default=None)
    args = parser.parse_args(argv)
    presets = [preset_by_key(args.preset)] if args.preset else list(PRESETS)
    for row in table(presets):
        published = PUBLISHED.get(row["preset"], {})
        lat = published.get("latency")
        bw = published.get("bandwidth")
        print(f"{row['preset']}: LDS latency {row['latency']:.1f} cycles"
              + (f" (published {lat[0]}: {lat[1]})" if lat else " (preset estimate)")
              + f"; bandwidth b32 {row['bandwidth_b32']:.1f}, b128 {row['bandwidth_b128']:.1f} B/cycle/CU"
              + (f" (published {bw[0]}: {bw[1]})" if bw else ""))
        passes = ", ".join(f"{k[7:]} {v[0]:.2f} (rule {v[1]})" for k, v in row.items() if k.startswith("passes_"))
        print(f"    conflict passes by dword stride: {passes}")
        print(f"    barrier {row['barrier']:.1f} cycles; atomics distinct {row['atomics_distinct']:.1f}, "
              f"one address {row['atomics_one']:.2f} lane atomics/cycle")
    return 0


if __name__ == "__main__":
    sys.exit(main())
