"""Measure, on a real NVIDIA GPU, the cooperating-workgroup figures that dmlemu's timing model of thread
blocks is validated against: shared-memory (LDS) load/store bandwidth (32- and 128-bit, conflict-free),
bank-conflict slowdown against stride and broadcast, shared-memory load latency, __syncthreads cost by
block size, shared and global atomics (u32/f32, distinct addresses and one address, atomicCAS loops),
warp shuffles (latency, throughput, a 32-lane reduction) and a classic tiled FP32 SGEMM (4096^3, CUDA
cores, no tensor cores, no cuBLAS), with the SM clock during each measurement.

How: the kernels are CUDA C in workgroups.cu beside this script (one binary, one mode per process, so a
failure loses only its own measurement). A binary built elsewhere can be carried in build/workgroups
(nvcc -O3 -arch=sm_90 -cudart static -o build/workgroups workgroups.cu); if it is missing or does not
run, the script builds it with the nvcc found on the machine. Each mode's JSON states its method.
Cycle figures are clock64 (SM cycles) read inside the kernels; rates per second use CUDA events. The SM
clock is sampled with nvidia-smi every 100 ms during each mode and also measured in-kernel (clock64
ticks / %globaltimer ns). Card settings are left as found (no clock locking). The instruction mix of
every kernel is read back with cuobjdump where the machine has it (atomics: whether the compiler
aggregated a warp's atomics; loads: LDS vs LDS.128; SGEMM: FFMA, no tensor-core instructions).

Not part of the test suite: needs a CUDA GPU, nvidia-smi and nvcc or the prebuilt binary. Modes stop
starting after TOTAL_BUDGET_S. Writes JSON to the path given (default: stdout), rewritten after each
mode, so a run cut short keeps what was measured; a summary table goes to the same name with .md. Results
belong in results/h200_workgroups.json and .md (not measured yet: that .md says why and how).
Run: python measure_workgroups.py out.json [MODE ...]
"""
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from measure_microbench import SMI_EXTRA, SMI_FIELDS, Sampler, smi, smi_query

SOURCE = os.path.join(HERE, "workgroups.cu")
PREBUILT = os.path.join(HERE, "build", "workgroups")
MODES = [("props", 30), ("clock", 40), ("ldsbw", 60), ("banks", 60), ("ldslat", 40), ("sync", 90),
         ("shfl", 60), ("atomics", 120), ("sgemm", 120)]
TOTAL_BUDGET_S = 220
SASS_OPS = ("LDS", "STS", "ATOMS", "ATOMG", "RED", "SHFL", "BAR", "REDUX", "VOTE", "MATCH", "FFMA", "LDL",
            "STL", "HMMA", "HGMMA", "LDG", "STG")


def fix_json(text):
    """C printf writes nan/inf; JSON wants NaN/Infinity."""
    text = re.sub(r'(?<=[\s:\[,])-?nan\b', 'NaN', text)
    return re.sub(r'(?<=[\s:\[,])(-?)inf\b', r'\1Infinity', text)


def get_binary(result):
    tries = []
    if os.path.exists(PREBUILT):
        try:
            r = subprocess.run([PREBUILT, "props"], capture_output=True, text=True, check=False, timeout=120)
            if r.returncode == 0:
                result["binary"] = {"path": PREBUILT, "built": "carried (nvcc 13.0 -O3 -arch=sm_90 -cudart static)"}
                return PREBUILT
            tries.append({"prebuilt_rc": r.returncode, "stderr": r.stderr[-1000:]})
        except Exception as error:  # noqa: BLE001
            tries.append({"prebuilt_error": repr(error)[:300]})
    nvcc = shutil.which("nvcc") or ("/usr/local/cuda/bin/nvcc" if os.path.exists("/usr/local/cuda/bin/nvcc")
                                    else None)
    if nvcc is None:
        result["binary"] = {"error": "no runnable prebuilt binary and no nvcc", "tries": tries}
        return None
    target = "/tmp/workgroups_built_here"
    cmd = [nvcc, "-O3", "-arch=sm_90", "-o", target, SOURCE]
    r = subprocess.run(cmd, capture_output=True, text=True, check=False, timeout=300)
    tries.append({"cmd": " ".join(cmd), "rc": r.returncode, "stderr": r.stderr[-1000:]})
    result["binary"] = {"path": target if r.returncode == 0 else None, "built": "here", "tries": tries}
    return target if r.returncode == 0 else None


def sass_check(binary):
    """Instruction counts of interest per kernel (whole function, all unrolled copies)."""
    tool = shutil.which("cuobjdump") or "/usr/local/cuda/bin/cuobjdump"
    r = subprocess.run([tool, "--dump-sass", binary], capture_output=True, text=True, check=False, timeout=120)
    counts, fn = {}, None
    for line in r.stdout.splitlines():
        if "Function :" in line:
            fn = line.split("Function :")[1].strip()
            counts[fn] = collections.Counter()
            continue
        m = re.search(r"/\*[0-9a-f]{4}\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]+)", line)
        if fn and m and m.group(2).startswith(SASS_OPS):
            counts[fn][m.group(2)] += 1
    return {k: dict(v) for k, v in counts.items() if v} or {"rc": r.returncode, "stderr": r.stderr[-300:]}


def run_mode(binary, mode, timeout, fields):
    entry = {}
    t0 = time.time()
    with Sampler(fields) as sampler:
        try:
            r = subprocess.run([binary, mode], capture_output=True, text=True, check=False, timeout=timeout)
            entry["rc"] = r.returncode
            try:
                entry["result"] = json.loads(fix_json(r.stdout))
            except ValueError as error:
                entry["parse_error"] = repr(error)[:300]
                entry["stdout_tail"] = r.stdout[-4000:]
            if r.returncode != 0:
                entry["error"] = f"exit {r.returncode}"
            if r.stderr.strip():
                entry["stderr_tail"] = r.stderr[-2000:]
        except subprocess.TimeoutExpired as error:
            entry["error"] = f"timeout after {timeout} s"
            out = error.stdout or b""
            entry["stdout_tail"] = (out.decode(errors="replace") if isinstance(out, bytes) else out)[-4000:]
        except Exception as error:  # noqa: BLE001 - one failed mode must not lose the others
            entry["error"] = repr(error)
    entry["wall_s"] = round(time.time() - t0, 2)
    entry["clock_during_run"] = sampler.summary()
    return entry


def g(d, *keys):
    for k in keys:
        try:
            d = d[k]
        except (KeyError, IndexError, TypeError):
            return None
    return d


def short_table(result):
    m = result.get("modes", {})
    lines = []
    for p in g(m, "ldsbw", "result", "points") or []:
        lines.append(f"LDS {p['name']:>13}: {p['B_per_clk_per_SM_incore']:7.2f} B/clk/SM  {p['TBps_gpu_event']:6.2f} TB/s")
    for p in g(m, "banks", "result", "points") or []:
        lines.append(f"bank stride {p['stride_words']:>2}: {p['tp_cycles_per_warp_load_per_sm']:6.2f} clk/warp-load/SM, "
                     f"latency {p['lat_cycles_per_dependent_warp_load']:6.2f} clk")
    for p in g(m, "ldslat", "result", "points") or []:
        lines.append(f"LDS chase {p['bytes']:>7} B: {p['addr_chase_cycles']:6.2f} clk (index {p['index_chase_cycles']:6.2f})")
    for p in g(m, "sync", "result", "points") or []:
        lines.append(f"sync bs {p['block_size']:>4} x{p['blocks_per_sm']:>2}/SM: {p['cycles_per_trip_with_barrier']:7.2f} "
                     f"clk/trip (no bar {p['cycles_per_trip_without']:5.2f})")
    r = g(m, "shfl", "result")
    if r:
        lines.append("shfl: " + json.dumps({k: v for k, v in r.items() if k != "method"}))
    for p in g(m, "atomics", "result", "points") or []:
        lines.append(f"{p['name']:>55}: {p['Gops_per_s']:9.2f} Gops/s {p['ops_per_clk_per_sm_event']:8.3f} /clk/SM {p['check']}")
    for p in g(m, "sgemm", "result", "points") or []:
        lines.append(f"sgemm {p['name']:>36}: {p['TFLOPs']:6.2f} TFLOP/s err {p['max_err_rel_to_abs_sum']:.1e} "
                     f"regs {p['regs_per_thread']} blk/SM {p['blocks_per_sm']}")
    for mode, e in m.items():
        if "error" in e or "parse_error" in e:
            lines.append(f"{mode}: ERROR {e.get('error')} {e.get('parse_error', '')} {e.get('stderr_tail', '')[-300:]}")
        lines.append(f"{mode}: SM clock {g(e, 'clock_during_run', 'sm_clock_MHz')}")
    return "\n".join(lines)


def fmt(v, spec=".2f"):
    return "n/a" if v is None else format(v, spec) if isinstance(v, (int, float)) else str(v)


def markdown(result):
    """A summary table of every figure (the .md written beside the JSON); published comparisons are added by hand."""
    m = result.get("modes", {})
    clk = g(m, "clock", "result") or {}
    smi_mhz = sorted({g(e, "clock_during_run", "sm_clock_MHz", "median") for e in m.values()} - {None})
    out = ["| figure | value |", "| --- | --- |",
           (f"| device | {g(m, 'props', 'result', 'name')}, {g(m, 'props', 'result', 'sm_count')} SMs, "
            f"{g(m, 'props', 'result', 'shared_mem_per_sm_bytes')} B shared memory per SM |"),
           (f"| SM clock in-kernel (clock64 / %globaltimer) | one thread {fmt(clk.get('one_thread_GHz'), '.4f')} GHz, "
            f"all SMs busy {fmt(clk.get('all_sms_GHz'), '.4f')} GHz |"),
           f"| SM clock nvidia-smi (median per mode, MHz) | {', '.join(fmt(x, '.0f') for x in smi_mhz) or 'n/a'} |"]
    for p in g(m, "ldsbw", "result", "points") or []:
        out.append(f"| LDS {p['name']} | {fmt(p['B_per_clk_per_SM_incore'])} B/clk/SM in-kernel "
                   f"({fmt(p['B_per_clk_per_SM_event'])} by events); GPU {fmt(p['TBps_gpu_event'])} TB/s |")
    for p in g(m, "banks", "result", "points") or []:
        out.append(f"| LDS.32 stride {p['stride_words']} words (expected {p['expected_ways']}-way) | "
                   f"{fmt(p['tp_cycles_per_warp_load_per_sm'], '.3f')} clk per warp-load per SM; dependent latency "
                   f"{fmt(p['lat_cycles_per_dependent_warp_load'])} clk |")
    for p in g(m, "ldslat", "result", "points") or []:
        out.append(f"| LDS latency, chase in {p['bytes']} B | {fmt(p['addr_chase_cycles'])} clk "
                   f"(index chase {fmt(p['index_chase_cycles'])} clk) |")
    for p in g(m, "sync", "result", "points") or []:
        out.append(f"| __syncthreads, block {p['block_size']}, {p['blocks_per_sm']} block(s)/SM | "
                   f"{fmt(p['cycles_per_trip_with_barrier'])} clk per trip (no barrier {fmt(p['cycles_per_trip_without'])}); "
                   f"{fmt(p['barriers_per_clk_per_sm'], '.4f')} barriers/clk/SM |")
    for p in g(m, "atomics", "result", "points") or []:
        out.append(f"| {p['name']} | {fmt(p['Gops_per_s'])} Gops/s, {fmt(p['ops_per_clk_per_sm_event'], '.3f')} ops/clk/SM "
                   f"({fmt(p.get('ops_per_clk_gpu_event'), '.3f')} /clk GPU); {p['check']}"
                   + (f"; {fmt(p.get('cas_tries_per_op'))} CAS tries/op" if p['name'].startswith('cas') else "") + " |")
    r = g(m, "shfl", "result") or {}
    for k, v in (r.get("latency_cycles") or {}).items():
        out.append(f"| {k} dependent latency | {fmt(v)} clk |")
    for k in ("warp_reduction_5_shfl_fadd_cycles_one_warp", "warp_reductions_per_clk_per_sm_full",
              "shfl_xor_warp_ops_per_clk_per_sm"):
        if k in r:
            out.append(f"| {k} | {fmt(r[k], '.3f')} |")
    for p in g(m, "sgemm", "result", "points") or []:
        out.append(f"| SGEMM 4096^3 {p['name']} | {fmt(p['TFLOPs'])} TFLOP/s ({fmt(p['ms'], '.3f')} ms; "
                   f"{p['regs_per_thread']} regs, {p['blocks_per_sm']} blocks/SM; max err {fmt(p['max_err_rel_to_abs_sum'], '.1e')}) |")
    for mode, e in m.items():
        if "error" in e or "parse_error" in e:
            out.append(f"| {mode} | FAILED: {e.get('error', '')} {e.get('parse_error', '')} |")
    return "\n".join(out) + "\n"


def main(out_path=None, only=None):
    t_start = time.time()
    result = {"what": "workgroup (thread-block) microbenchmarks for dmlemu timing-model calibration "
                      "(bench/gpu_calibration/measure_workgroups.py + workgroups.cu)",
              "started_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
              "units": "cycles = SM clock64 cycles; B/clk/SM bytes per SM cycle; TB/s 1e12 B/s; Gops/s 1e9/s; "
                       "TFLOP/s 1e12 FLOP/s"}

    def save():
        text = json.dumps(result, indent=1)
        if out_path:
            with open(out_path, "w") as f:
                f.write(text)
        return text

    fields = SMI_FIELDS + SMI_EXTRA
    try:
        smi_query(fields)
    except Exception as error:  # noqa: BLE001
        result["smi_extra_fields_error"] = repr(error)[:300]
        fields = SMI_FIELDS
    try:
        result["nvidia_smi_before"] = smi_query(
            ["name", "driver_version", "clocks.sm", "clocks.mem", "clocks.max.sm", "clocks.max.mem",
             "clocks.applications.graphics", "power.limit", "temperature.gpu", "persistence_mode", "compute_mode"])
    except Exception as error:  # noqa: BLE001
        result["nvidia_smi_before"] = {"error": repr(error)[:500]}
    save()
    binary = get_binary(result)
    save()
    if binary is None:
        print(save() if not out_path else short_table(result))
        return
    try:
        result["sass_check"] = sass_check(binary)
    except Exception as error:  # noqa: BLE001
        result["sass_check"] = {"error": repr(error)[:300]}
    result["modes"] = {}
    for mode, timeout in MODES:
        if only and mode not in only:
            continue
        elapsed = time.time() - t_start
        if elapsed > TOTAL_BUDGET_S:
            result["modes"][mode] = {"error": f"skipped: {elapsed:.0f} s used of the {TOTAL_BUDGET_S} s budget"}
            continue
        print(f"[{elapsed:6.1f} s] {mode} ...", flush=True)
        entry = run_mode(binary, mode, min(timeout, max(20, TOTAL_BUDGET_S + 40 - elapsed)), fields)
        result["modes"][mode] = entry
        print(f"           {mode}: {entry.get('error', 'ok')} in {entry['wall_s']} s, SM clock "
              f"{g(entry, 'clock_during_run', 'sm_clock_MHz')}", flush=True)
        save()
    try:
        result["nvidia_smi_after"] = smi_query(["clocks.sm", "clocks.mem", "temperature.gpu", "power.draw"])
        r = smi(["-q", "-d", "CLOCK,PERFORMANCE"])
        result["nvidia_smi_q_clock_after"] = r.stdout[-4000:]
    except Exception as error:  # noqa: BLE001
        result["nvidia_smi_after"] = {"error": repr(error)[:300]}
    result["total_wall_s"] = round(time.time() - t_start, 1)
    text = save()
    if not out_path:
        print(text)
    try:
        md = markdown(result)
        if out_path:
            with open(os.path.splitext(out_path)[0] + ".md", "w") as f:
                f.write(md)
        print(short_table(result))
    except Exception as error:  # noqa: BLE001 - the JSON is already written
        print("summary failed:", repr(error))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else None, sys.argv[2:] or None)
