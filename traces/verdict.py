"""The verdict on a dispatch: which modelled unit limited it, the share of its time that unit explains,
and what limited its occupancy. Read from a trace's `dispatches` row (traces/schema.py: TRAFFIC and
BUSY, which the recorder fills from the timing model's own counters) and the preset; never from a
kernel's or an operator's name.

Shares of the dispatch's time T (its cycles, from the command processor reading the packet to the
last store acknowledged) over the S SIMDs of the device, each from 0 to 1:

    DRAM bandwidth          DRAM server busy cycles (refresh included) plus the bus turnarounds' idle
                            cycles, over T
    L2 bandwidth            bytes through the L2 (every sector request) over l2_bytes_per_cycle, over T
    Infinity Cache          bytes the Infinity Cache served or took as write-backs over its bandwidth,
                            over T
    LDS bandwidth           the LDS pipes' busy cycles (each bank-conflict pass holds a CU's LDS for
                            lds_banks x 4 / lds_bytes_per_cycle cycles: timing/compute_unit.py) over T x C,
                            C the compute units
    <class> issue           issue cycles of every instruction on the SIMDs' issue ports over T x S; named
                            after the VALU rate class with the most of them (VALU for the full rate,
                            transcendental, FP64, INT64, int32 multiply, conversion) or `scalar and
                            memory issue` when SALU, scalar loads, branches and vector memory issue
                            outweigh each VALU class
    latency at this occupancy  SIMD-cycles with a wave resident but no issue over T x S: waves waiting
                            for memory, scalar data or a dependent result that the other resident waves
                            could not hide
    launch / too few waves  SIMD-cycles with no wave resident over T x S: the command processor's launch,
                            the workgroup launchers' ramp, the tail, or fewer waves than SIMDs

The rule that decides: the throughput unit (DRAM, L2, Infinity Cache, LDS, issue) with the largest share is
the limiter when that share is at least BOUND (it kept the unit busy for at least half the dispatch);
otherwise no unit was saturated and the limiter is the larger of `latency at this occupancy` and
`launch / too few waves`. The share printed is the limiter's own.

The occupancy limiter: the resident waves per SIMD the timing model gave the dispatch (the row's
waves_per_simd: wave slots, limited by the vector register file: timing/command_processor.py's
occupancy) against what the dispatch could fill: `dispatch size` when it has fewer waves than
SIMDs x that occupancy, else, for a kernel whose workgroups cooperate (the row's lds_bytes, or
barrier-wait cycles: whole workgroups per slot group, timing/command_processor.py's
workgroup_occupancy) `LDS` when the CU's LDS holds fewer workgroups than the slots would and
`workgroup size` when whole workgroups leave slots empty, else `VGPRs` when the register file allows
fewer waves than the preset's wave slots, else `wave slots`. For other kernels workgroup size limits
nothing here: a workgroup's waves may land on different SIMDs (timing/workgroup_dispatcher.py); it
counts only in the launchers' ramp, which `launch / too few waves` covers.
"""
import dataclasses

from dmlemu.traces.schema import ISSUE

__all__ = ["BOUND", "LIMITERS", "Verdict", "verdict", "format_verdict", "BOUNDS", "bound_of"]

BOUND = 0.5
DRAM, L2, IC, LDS, LATENCY, IDLE = ("DRAM bandwidth", "L2 bandwidth", "Infinity Cache bandwidth", "LDS bandwidth",
                                    "latency at this occupancy", "launch / too few waves")
_ISSUE_NAMES = {"full": "VALU issue", "fp64": "FP64 issue", "int64": "INT64 issue",
                "int32_mul": "int32 multiply issue", "conversion": "conversion issue",
                "transcendental": "transcendental issue", "matrix": "matrix issue",
                "packed_f16": "packed FP16 issue", "other": "scalar and memory issue"}
ISSUE_LIMITERS = tuple(_ISSUE_NAMES[n[:-len("_issue_cycles")]] for n in ISSUE)
LIMITERS = (DRAM, L2, IC, LDS, *ISSUE_LIMITERS, LATENCY, IDLE)
OCCUPANCY_LIMITERS = ("dispatch size", "LDS", "workgroup size", "VGPRs", "wave slots")


@dataclasses.dataclass(frozen=True)
class Verdict:
    """limiter: one of LIMITERS ('' for an untimed dispatch or a trace recorded before the busy
    counters); share: the limiter's share of the time, 0 to 1; shares: every candidate's share by
    name (dram, l2, ic, lds, issue, latency, idle); occupancy: resident waves per SIMD the dispatch got;
    occupancy_limiter: one of OCCUPANCY_LIMITERS ('' when untimed); note: what the line says about it."""
    limiter: str
    share: float
    shares: dict
    occupancy: int
    occupancy_limiter: str
    note: str = ""


def _vgpr_waves(preset, vgprs):
    allocated = max(8, -(-int(vgprs) // 8) * 8)
    return max(1, preset.vgprs_per_simd_lane // allocated)


def verdict(row, preset):
    """The Verdict of one `dispatches` row (a structured-array row or a dict of its columns) on `preset`."""
    cycles = int(row["end"]) - int(row["start"])
    simds = preset.compute_units * preset.simds_per_cu
    issue = {n: int(row[n]) for n in ISSUE}
    zero = dict.fromkeys(("dram", "l2", "ic", "lds", "issue", "latency", "idle"), 0.0)
    if not bool(row["timed"]) or cycles <= 0:
        return Verdict("", 0.0, zero, 0, "", "untimed")
    if int(row["waves"]) and not int(row["occupied_simd_cycles"]):
        return Verdict("", 0.0, zero, int(row["waves_per_simd"]), "",
                       "recorded before the busy counters: no verdict")
    sector = preset.sector_bytes
    capacity = cycles * simds
    issued = sum(issue.values())
    ic_rate = preset.infinity_cache_bytes_per_second
    shares = {
        "dram": (int(row["dram_busy_cycles"]) + int(row["dram_turnarounds"]) * preset.dram_turnaround_cycles) / cycles,
        "l2": int(row["l2_requests"]) * sector / preset.l2_bytes_per_cycle / cycles,
        "ic": ((int(row["ic_hits"]) + int(row["ic_write_sectors"])) * sector * preset.clock_hz / ic_rate / cycles
               if ic_rate else 0.0),
        "lds": (int(row["lds_passes"]) * 4 * preset.lds_banks / preset.lds_bytes_per_cycle
                / (cycles * preset.compute_units)),
        "issue": issued / capacity,
        "latency": max(0, int(row["occupied_simd_cycles"]) - issued) / capacity,
        "idle": max(0, capacity - int(row["occupied_simd_cycles"])) / capacity,
    }
    shares = {k: min(1.0, v) for k, v in shares.items()}
    top_issue = ISSUE_LIMITERS[max(range(len(ISSUE)), key=lambda i: (issue[ISSUE[i]], -i))]
    throughput = [(shares["dram"], DRAM), (shares["l2"], L2), (shares["ic"], IC), (shares["lds"], LDS),
                  (shares["issue"], top_issue)]
    share, limiter = max(throughput, key=lambda t: t[0])
    if share < BOUND:
        share, limiter = max((shares["latency"], LATENCY), (shares["idle"], IDLE), key=lambda t: t[0])
    slots = int(row["waves_per_simd"])
    lds_bytes, workgroups = int(row["lds_bytes"]), int(row["workgroups"])
    cooperative = (lds_bytes > 0 or int(row["barrier_wait_cycles"]) > 0) and workgroups > 0
    if int(row["waves"]) < simds * slots:
        occupancy_limiter = "dispatch size"
    elif cooperative:
        from dmlemu.timing.command_processor import workgroup_occupancy
        occupancy_limiter = workgroup_occupancy(preset, int(row["vgprs"]), lds_bytes,
                                                int(row["waves"]) // workgroups).limiter
    elif _vgpr_waves(preset, row["vgprs"]) < preset.waves_per_simd:
        occupancy_limiter = "VGPRs"
    else:
        occupancy_limiter = "wave slots"
    return Verdict(limiter, share, shares, slots, occupancy_limiter)


def format_verdict(v, row, preset, name=None):
    """One line: the limiter and its share, the other units' shares, the occupancy and its limiter."""
    head = f"#{int(row['id'])} {name if name is not None else str(row['name'])}: "
    if not v.limiter:
        return head + (v.note or "no verdict")
    s = v.shares
    units = (f"DRAM {s['dram']:.0%}, L2 {s['l2']:.0%}, "
             + (f"IC {s['ic']:.0%}, " if preset.infinity_cache_bytes else "")
             + (f"LDS {s['lds']:.0%}, " if s["lds"] else "")
             + f"issue {s['issue']:.0%}, waiting {s['latency']:.0%}, empty {s['idle']:.0%}")
    cycles = int(row["end"]) - int(row["start"])
    simds = preset.compute_units * preset.simds_per_cu
    if v.occupancy_limiter == "dispatch size":
        why = f"{int(row['waves']):,} waves for {simds} SIMDs"
    elif v.occupancy_limiter == "VGPRs":
        why = f"{int(row['vgprs'])} VGPRs per lane of {preset.vgprs_per_simd_lane}"
    elif v.occupancy_limiter == "LDS":
        why = f"{int(row['lds_bytes']):,} bytes of LDS per workgroup of {preset.lds_bytes_per_cu:,} per CU"
    elif v.occupancy_limiter == "workgroup size":
        why = f"{int(row['waves']) // max(1, int(row['workgroups']))}-wave workgroups in {preset.waves_per_simd} slots"
    else:
        why = f"{preset.waves_per_simd} slots"
    return (f"{head}{v.limiter}, {v.share:.0%} of {cycles:,} cycles ({units}); "
            f"occupancy {v.occupancy} of {preset.waves_per_simd} waves/SIMD, limited by {v.occupancy_limiter} "
            f"({why})")


# ---- the one-word bound -----------------------------------------------------------------------------------
BOUNDS = ("memory", "compute", "latency", "launch")


def bound_of(row, preset):
    """What bound a dispatch, in one word (the "bound" column of `dmlemu onnx`'s per-layer table; this is
    the one place that word is decided): `memory` when a bandwidth (DRAM, L2, Infinity Cache, or the on-chip
    LDS, as Nsight Compute's memory throughput counts shared memory) is the verdict's limiter, `compute` when
    issue is (a VALU rate class, or scalar and memory issue), `latency` when no unit was saturated and waves
    waited with nothing to hide it, `launch` when SIMDs stood empty (the launch, the ramp, the tail, too few
    waves); '' for an untimed dispatch. The verdict's rule decides (module banner: a throughput unit busy at
    least BOUND of the time)."""
    limiter = verdict(row, preset).limiter
    if limiter in (DRAM, L2, IC, LDS):
        return "memory"
    if limiter in ISSUE_LIMITERS:
        return "compute"
    if limiter == LATENCY:
        return "latency"
    if limiter == IDLE:
        return "launch"
    return ""
