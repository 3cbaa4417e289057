"""The h200 preset against this project's measurements of a real NVIDIA H200.

The measurements are the JSON files of bench/gpu_calibration/results/ (PyTorch + Triton on one H200,
docs/REAL_GPU_CHECKS.md says how they were taken); the model's figures are the same experiments run
through the emulator on the `h200` preset (emulator/presets.py), with the helpers of
tools/fidelity.py and tools/microbench.py. Prints one Markdown table: measured, modelled, and their
ratio. The access patterns use side x side FLOAT32 tensors (default 4096: 64 MiB each way, above the
60 MiB L2, as the measured 8192 x 8192 is; 2048 fits the L2 and runs in a third of the time).

    .venv/bin/python bench/h200_check.py              # about a minute
    .venv/bin/python bench/h200_check.py --side 2048 --max-log2 24   # faster
"""
import argparse
import json
import os
import time

from dmlemu.functional.wave_dispatcher import KernelLaunch
from dmlemu.gpu import Gpu
from dmlemu.presets import H200
from dmlemu.tools.fidelity import chain_seconds, copy_seconds, measure
from dmlemu.tools.microbench import chain_program

__all__ = ["MEASURED", "rate_ratios", "rows", "render", "main"]

RESULTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gpu_calibration", "results")
PATTERNS = (("transposed", {"layout": "transposed"}, "transposed"),
            ("broadcast row", {"layout": "broadcast"}, "broadcast_row"),
            ("stride-2 read", {"layout": "stride2"}, "stride2"),
            ("FLOAT16 copy", {"data_type": "FLOAT16"}, "float16"),
            ("FLOAT64 copy", {"data_type": "FLOAT64"}, "float64"))


def _load(name):
    with open(os.path.join(RESULTS, name), encoding="utf-8") as f:
        return json.load(f)


MEASURED = {"patterns": _load("h200_access_patterns.json"), "rates": _load("h200_rates.json")}


def chain_cycles(preset, rate_class, length=256, fill=8):
    """Cycles of one dispatch of `length` instructions of one rate class (tools/microbench.py) run by
    enough waves to fill every SIMD's slots `fill` times over (bench/bench_rates.py's experiment)."""
    program = chain_program(rate_class, length)
    waves = preset.compute_units * preset.simds_per_cu * preset.waves_per_simd * fill
    per_group = preset.workgroup_size // preset.wave_width
    launch = KernelLaunch(program, num_workgroups=-(-waves // per_group), workgroup_size=preset.workgroup_size,
                          name=program.name, vgprs_used=10, sgprs_used=4)
    return Gpu(preset).dispatch(launch).cycles


def rate_ratios(preset=H200, length=256, fill=8):
    """(FP64 chain / FP32 chain, transcendental chain / FP32 chain) in dispatch cycles."""
    full = chain_cycles(preset, "full", length, fill)
    return (chain_cycles(preset, "fp64", length, fill) / full,
            chain_cycles(preset, "transcendental", length, fill) / full)


def rows(side=4096, max_log2=26, preset=H200):
    """[(experiment, measured, modelled, unit)]: the table's rows, modelled on `preset`."""
    patterns, rates = MEASURED["patterns"], MEASURED["rates"]
    peak = preset.dram_bytes_per_second / 1e9
    out = []
    for key, point in patterns["packed_curve"].items():
        log2n = int(key)
        if log2n > max_log2:
            continue
        seconds, moved, _, _, _ = measure(preset, "ELEMENT_WISE_IDENTITY", {}, log2n)
        out.append((f"packed FLOAT32 copy 2^{log2n}, GB/s (read + write)", point["GBps"], moved / seconds / 1e9, "GB/s"))
        if log2n == 26:
            at_26 = ("packed copy 2^26, % of DRAM peak", 100 * point["GBps"] / peak,
                     100 * moved / seconds / 1e9 / peak, "%")
    if max_log2 >= 26:
        out.append(at_26)
    packed, _ = copy_seconds(preset, side=side)
    for label, kwargs, key in PATTERNS:
        seconds, _ = copy_seconds(preset, side=side, **kwargs)
        out.append((f"{label} / packed ({side}^2 modelled, 8192^2 measured)", patterns["ratios_to_packed"][key],
                    seconds / packed, "x"))
    seconds, stats = copy_seconds(preset, side=2048, repeats=4)
    rate = (stats.bytes_read + stats.bytes_written) / seconds / 1e9
    out.append(("repeated 16 MiB copy, GB/s (measured: CUDA graph of 32; model: 4th of 4)",
                rates["repeated_16MiB_GBps_graph"], rate, "GB/s"))
    out.append(("repeated 16 MiB copy / DRAM peak", rates["repeated_16MiB_GBps_graph"] / peak, rate / peak, "x"))
    out.append(("tiny dependent dispatch, us (measured: CUDA graph; model: dispatch + UAV barrier)",
                rates["tiny_kernel_us_each_graph"], chain_seconds(preset, True) * 1e6, "us"))
    out.append(("tiny dispatch without barriers, us (measured: launched from Python)",
                patterns["tiny_kernel_us_each_stream_order"], chain_seconds(preset, False) * 1e6, "us"))
    fp64, transcendental = rate_ratios(preset)
    out.append(("FP64 FMA chain / FP32 FMA chain", rates["rates"]["fp64_over_fp32_time"], fp64, "x"))
    out.append(("exp2 chain / FP32 FMA chain (measured: exp2 + multiply)",
                rates["rates"]["exp2_mul_over_fma_f32_time"], transcendental, "x"))
    return out


def render(table):
    lines = ["| experiment | H200 measured | h200 modelled | modelled / measured |", "|---|---:|---:|---:|"]
    for label, measured, modelled, unit in table:
        digits = 0 if unit == "GB/s" else 2 if unit in ("x", "us") else 1
        lines.append(f"| {label} | {measured:,.{digits}f} | {modelled:,.{digits}f} | {modelled / measured:.2f} |")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--side", type=int, default=4096, help="side of the access-pattern tensors")
    parser.add_argument("--max-log2", type=int, default=26, help="largest packed-curve size (2^N elements)")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    table = rows(args.side, args.max_log2)
    print(render(table))
    print(f"({time.perf_counter() - start:.0f} s)")
    return table


if __name__ == "__main__":
    main()
