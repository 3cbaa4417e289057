"""Measure, on a real NVIDIA GPU, the microbenchmarks that dmlemu's timing model is validated against:
pointer-chase latency per cache level (one thread, random single-cycle permutation, 4 KiB .. 4 GiB, plus an
L1-bypassing variant and a one-node-per-2-MiB-page TLB chase), read bandwidth against working-set size
(16 KiB .. 4 GiB, whole GPU), store-stream and copy bandwidth, FMA throughput (FP32, FP64, FP16 half2 on the
CUDA cores, not the tensor cores), host<->device copies (pinned, pageable, zero-copy kernel access), device
properties, and the SM clock during each measurement (nvidia-smi sampled every 100 ms in the background).

How: the kernels are CUDA C in microbench.cu beside this script (one binary, one mode per process, so a
failure loses only its own measurement). A binary built elsewhere can be carried in build/microbench
(nvcc -O3 -arch=sm_90 -cudart static -o build/microbench microbench.cu); if it is missing or does not run,
the script builds it with the nvcc found on the machine. Each mode's JSON states its method. Timings are
CUDA-event medians after warm-up, except the pointer chase, which is timed inside its kernel (clock64 and
%globaltimer). Card settings are left as found (no clock locking).

Not part of the test suite: needs a CUDA GPU, nvidia-smi and nvcc or the prebuilt binary; it took 23 s on
an H200 (each mode has its own timeout and modes stop starting after 330 s, so a run stays near or under
6 minutes). Results of one H200 run: results/h200_microbench.json and .md. Writes JSON to the path given
(default: stdout); the result is rewritten after each mode, so a run cut short keeps what was measured.
Run: python measure_microbench.py out.json [MODE ...]
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(HERE, "microbench.cu")
PREBUILT = os.path.join(HERE, "build", "microbench")
MODES = [("props", 60), ("fma", 90), ("chase", 150), ("chase_cg", 60), ("tlb", 90), ("readbw", 90),
         ("store", 60), ("host", 60)]
TOTAL_BUDGET_S = 330      # modes that would start after this are skipped (the whole run stays bounded)
SMI_FIELDS = ["clocks.sm", "clocks.mem", "power.draw", "temperature.gpu", "utilization.gpu"]
SMI_EXTRA = ["clocks_event_reasons.active"]


def smi(args, timeout=20):
    return subprocess.run(["nvidia-smi"] + args, capture_output=True, text=True, timeout=timeout)


def smi_query(fields):
    r = smi(["--query-gpu=" + ",".join(fields), "--format=csv,noheader,nounits"])
    if r.returncode:
        raise RuntimeError(r.stdout + r.stderr)
    values = [v.strip() for v in r.stdout.strip().splitlines()[0].split(",")]
    return dict(zip(fields, values))


def number(text):
    try:
        return float(text)
    except ValueError:
        return None


class Sampler:
    """nvidia-smi -lms 100 in the background for the duration of one mode."""

    def __init__(self, fields):
        self.fields = fields
        self.proc = None
        self.error = None

    def __enter__(self):
        try:
            self.proc = subprocess.Popen(
                ["nvidia-smi", "--query-gpu=" + ",".join(self.fields), "--format=csv,noheader,nounits",
                 "-lms", "100"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        except Exception as error:  # noqa: BLE001 - record, measure on without clocks
            self.error = repr(error)
        self.t0 = time.time()
        return self

    def __exit__(self, *exc):
        self.samples = []
        if self.proc is None:
            return False
        self.proc.terminate()
        try:
            out, err = self.proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            out, err = self.proc.communicate()
        for line in out.splitlines():
            vals = [v.strip() for v in line.split(",")]
            if len(vals) == len(self.fields):
                self.samples.append(dict(zip(self.fields, vals)))
        if not self.samples and err:
            self.error = err[-500:]
        return False

    def summary(self):
        """SM clock etc. over the samples taken while the GPU was busy (utilization > 0)."""
        if not getattr(self, "samples", None):
            return {"error": self.error or "no samples"}
        busy = [s for s in self.samples if (number(s.get("utilization.gpu", "")) or 0) > 0] or self.samples
        out = {"n_samples": len(self.samples), "n_busy": len(busy)}
        for key, name in (("clocks.sm", "sm_clock_MHz"), ("clocks.mem", "mem_clock_MHz"),
                          ("power.draw", "power_W"), ("temperature.gpu", "temp_C")):
            vals = [number(s[key]) for s in busy if number(s.get(key, "")) is not None]
            if vals:
                out[name] = {"median": statistics.median(vals), "min": min(vals), "max": max(vals)}
        reasons = sorted({s[SMI_EXTRA[0]] for s in busy if SMI_EXTRA[0] in s})
        if reasons:
            out["clock_event_reasons_seen"] = reasons
        return out


def get_binary(result):
    """The carried binary if it runs here, else one built here with nvcc."""
    tries = []
    if os.path.exists(PREBUILT):
        r = subprocess.run([PREBUILT, "props"], capture_output=True, text=True, timeout=120)
        if r.returncode == 0:
            result["binary"] = {"path": PREBUILT, "built": "carried (nvcc -O3 -arch=sm_90 -cudart static)"}
            return PREBUILT
        tries.append({"prebuilt_rc": r.returncode, "stderr": r.stderr[-1000:]})
    nvcc = shutil.which("nvcc") or ("/usr/local/cuda/bin/nvcc" if os.path.exists("/usr/local/cuda/bin/nvcc")
                                    else None)
    if nvcc is None:
        result["binary"] = {"error": "no runnable prebuilt binary and no nvcc", "tries": tries}
        return None
    target = "/tmp/microbench_built_here"
    cmd = [nvcc, "-O3", "-arch=sm_90", "-o", target, SOURCE]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    tries.append({"cmd": " ".join(cmd), "rc": r.returncode, "stderr": r.stderr[-1000:]})
    result["binary"] = {"path": target if r.returncode == 0 else None, "built": "here", "tries": tries}
    return target if r.returncode == 0 else None


def sass_check(binary):
    """Which FMA instructions the FMA kernels hold (cuobjdump, if on the machine)."""
    tool = shutil.which("cuobjdump") or "/usr/local/cuda/bin/cuobjdump"
    r = subprocess.run([tool, "--dump-sass", binary], capture_output=True, text=True, timeout=120)
    counts, fn = {}, None
    for line in r.stdout.splitlines():
        if "Function :" in line:
            fn = line.split("Function :")[1].strip()
            counts[fn] = {}
        elif fn and ("fma_kernel" in fn or "hfma2" in fn or "chase_kernel" in fn or "read_ws" in fn):
            for op in ("FFMA", "DFMA", "HFMA2", "LDG.E.64", "LDG.E.128", "LDG.E.STRONG", "LDG.E.EF"):
                if " " + op in line:
                    counts[fn][op] = counts[fn].get(op, 0) + 1
    return {k: v for k, v in counts.items() if v} or {"rc": r.returncode, "stderr": r.stderr[-300:]}


def run_mode(binary, mode, timeout, fields):
    entry = {}
    t0 = time.time()
    with Sampler(fields) as sampler:
        try:
            r = subprocess.run([binary, mode], capture_output=True, text=True, timeout=timeout)
            entry["rc"] = r.returncode
            if r.returncode == 0:
                entry["result"] = json.loads(r.stdout)
            else:
                entry["error"] = f"exit {r.returncode}"
                entry["stdout_tail"] = r.stdout[-2000:]
            if r.stderr.strip():
                entry["stderr_tail"] = r.stderr[-2000:]
        except subprocess.TimeoutExpired as error:
            entry["error"] = f"timeout after {timeout} s"
            entry["stdout_tail"] = (error.stdout or b"")[-2000:].decode(errors="replace") \
                if isinstance(error.stdout, bytes) else (error.stdout or "")[-2000:]
        except Exception as error:  # noqa: BLE001 - one failed mode must not lose the others
            entry["error"] = repr(error)
    entry["wall_s"] = round(time.time() - t0, 2)
    entry["clock_during_run"] = sampler.summary()
    return entry


def add_cycles_at_smi_clock(entry):
    """For the chase modes: ns x (median nvidia-smi SM clock while busy) next to the clock64 count."""
    try:
        mhz = entry["clock_during_run"]["sm_clock_MHz"]["median"]
        for point in entry["result"]["points"]:
            point["cycles_at_smi_clock"] = round(point["ns"] * mhz / 1000.0, 2)
        entry["result"]["smi_clock_MHz_used"] = mhz
    except (KeyError, TypeError):
        pass


def short_table(result):
    lines = []
    m = result.get("modes", {})
    try:
        pts = m["chase"]["result"]["points"]
        for ws in (4 << 10, 64 << 10, 1 << 20, 16 << 20, 48 << 20, 256 << 20, 1 << 30, 4 << 30):
            p = [q for q in pts if q["ws_bytes"] == ws]
            if p:
                lines.append(f"chase {ws >> 10:>8} KiB: {p[0]['ns']:8.1f} ns {p[0]['cycles']:8.1f} clk")
    except (KeyError, TypeError):
        pass
    try:
        pts = m["readbw"]["result"]["points"]
        for ws in (16 << 10, 128 << 10, 1 << 20, 8 << 20, 32 << 20, 64 << 20, 256 << 20, 4 << 30):
            p = [q for q in pts if q["ws_bytes"] == ws]
            if p:
                lines.append(f"read  {ws >> 10:>8} KiB: {p[0]['GBps']:9.0f} GB/s")
    except (KeyError, TypeError):
        pass
    for mode in ("fma", "store", "host"):
        if "result" in m.get(mode, {}):
            lines.append(f"{mode}: " + json.dumps({k: v for k, v in m[mode]["result"].items() if k != "method"}))
    for mode, e in m.items():
        if "error" in e:
            lines.append(f"{mode}: ERROR {e['error']}")
    return "\n".join(lines)


def main(out_path=None, only=None):
    t_start = time.time()
    result = {"what": "GPU microbenchmarks for dmlemu timing-model calibration (bench/gpu_calibration/"
                      "measure_microbench.py + microbench.cu)",
              "started_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
              "units": "GB/s and TFLOP/s with 1e9 / 1e12; latency ns per dependent load; sizes in bytes"}

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
            ["name", "driver_version", "pci.bus_id", "pcie.link.gen.current", "pcie.link.gen.max",
             "pcie.link.width.current", "pcie.link.width.max", "clocks.sm", "clocks.mem", "clocks.max.sm",
             "clocks.max.mem", "clocks.applications.graphics", "clocks.applications.memory", "power.limit",
             "temperature.gpu", "memory.total", "persistence_mode", "compute_mode"])
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
        entry = run_mode(binary, mode, min(timeout, max(30, TOTAL_BUDGET_S + 60 - elapsed)), fields)
        if mode in ("chase", "chase_cg", "tlb"):
            add_cycles_at_smi_clock(entry)
        result["modes"][mode] = entry
        print(f"           {mode}: {entry.get('error', 'ok')} in {entry['wall_s']} s, SM clock "
              f"{entry['clock_during_run'].get('sm_clock_MHz')}", flush=True)
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
    print(short_table(result))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else None, sys.argv[2:] or None)
