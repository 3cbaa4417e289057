"""A dispatch's kernel listing annotated per instruction from a trace's tables (`dmlemu trace FILE.npz
--instructions`): what each instruction cost and where the waves waited.

Per instruction (pc), from the tables of traces/schema.py:

    waves       waves that executed it, each trip of a loop counted (table `instructions`)
    issue       its issue cycles on the SIMDs' issue ports: waves x its issue cycles per wave
                (table `instructions`; kernel_path.issue_cycles_per_wave)
    stall       cycles the wave groups waited there, summed over the groups (table `segments`, so a
                trace captured at detail `instruction` or `memory`): the gap between two consecutive
                timed segments of one wave group goes to the s_waitcnt just before the later one
                (waiting for loads), else to a vector memory instruction just before the gap (waiting
                for room in the CU's miss queue), else to the later segment's first instruction
                (waiting for the issue port that the SIMD's other slot group held)
    sect/req    sectors per wave request (memory instructions; table `mem_instructions`)
    L2 hit, IC hit, coal.   hit rates at the L2 and the Infinity Cache and coalescing efficiency (the
                same table; '-' where a level had no request)

Without `--top` the listing is in program order; `--top K` gives the K instructions with the most
issue plus stall cycles, hottest first.
"""
import numpy as np

from dmlemu.isa.opcodes import BY_MNEMONIC

__all__ = ["instruction_rows", "format_listing", "default_dispatch", "STALL_DETAILS"]

STALL_DETAILS = ("instruction", "memory")     # the detail levels that keep the `segments` table


def default_dispatch(trace):
    """The timed dispatch with the most cycles (the first dispatch when none was timed); None for none."""
    d = trace.dispatches
    if not len(d):
        return None
    timed = np.flatnonzero(d["timed"])
    pool = timed if timed.size else np.arange(len(d))
    cycles = (d["end"] - d["start"])[pool]
    return int(d["id"][pool[int(np.argmax(cycles))]])


def _kinds(texts):
    """The opcode table's kind of each instruction text (its first word is the mnemonic)."""
    kinds = []
    for text in texts:
        entry = BY_MNEMONIC.get(text.split(" ", 1)[0]) if text else None
        kinds.append(entry.kind if entry is not None else "")
    return kinds


def stall_cycles(trace, dispatch, kinds):
    """Stall cycles per pc of `dispatch` (see the banner), or None when the trace has no segments."""
    if trace.detail not in STALL_DETAILS:
        return None
    s = trace.tables["segments"]
    s = s[s["dispatch"] == dispatch]
    stall = np.zeros(len(kinds), dtype=np.int64)
    if len(s) < 2:
        return stall
    s = s[np.lexsort((s["start"], s["first_wave"], s["group"], s["simd"], s["cu"]))]
    same = ((s["cu"][1:] == s["cu"][:-1]) & (s["simd"][1:] == s["simd"][:-1]) & (s["group"][1:] == s["group"][:-1])
            & (s["first_wave"][1:] == s["first_wave"][:-1]))
    gap = np.maximum(s["start"][1:] - s["end"][:-1], 0)
    keep = same & (gap > 0)
    later, earlier, gap = s["pc_first"][1:][keep], s["pc_first"][:-1][keep], gap[keep]
    earlier_last = s["pc_last"][:-1][keep]
    n = len(kinds)
    wait_before = np.full(n + 1, -1, dtype=np.int64)      # the s_waitcnt right before pc (a run of them: the nearest)
    for pc in range(1, n + 1):
        if kinds[pc - 1] == "wait":
            wait_before[pc] = pc - 1
    memory = np.array([k in ("load", "store") for k in kinds] + [False])
    owner = np.where(wait_before[later] >= 0, wait_before[later],
                     np.where(memory[earlier] & (earlier == earlier_last), earlier, later))
    owner = np.clip(owner, 0, n - 1)
    np.add.at(stall, owner, gap)
    return stall


def instruction_rows(trace, dispatch):
    """One dict per instruction of `dispatch`: pc, instruction, kind, waves and issue (None without an
    `instructions` row), stall (None without segments), sectors_per_request, l2_hit_rate, ic_hit_rate,
    coalescing (None but for memory instructions; a rate None where the level had no request)."""
    texts = list(trace.programs.get(dispatch, ("", []))[1])
    kinds = _kinds(texts)
    ins = trace.tables["instructions"]
    ins = ins[ins["dispatch"] == dispatch]
    waves = {int(pc): (int(w), int(c)) for pc, w, c in zip(ins["pc"], ins["waves"], ins["issue_cycles"])}
    stalls = stall_cycles(trace, dispatch, kinds)
    memory = {m["pc"]: m for m in trace.instruction_summary() if m["dispatch"] == dispatch}
    rows = []
    for pc, text in enumerate(texts):
        w, c = waves.get(pc, (None, None))
        m = memory.get(pc)
        rows.append({
            "pc": pc, "instruction": text, "kind": kinds[pc], "waves": w, "issue": c,
            "stall": int(stalls[pc]) if stalls is not None else None,
            "sectors_per_request": m["sectors_per_wave"] if m else None,
            "l2_hit_rate": m["l2_hit_rate"] if m and m["l2_requests"] else None,
            "ic_hit_rate": m["ic_hit_rate"] if m and m["ic_requests"] else None,
            "coalescing": m["coalescing_efficiency"] if m and m["l2_requests"] else None,
        })
    return rows


def _cell(value, spec=","):
    return "-" if value is None else format(value, spec)


def _pct(value):
    return "-" if value is None else f"{100 * value:.1f}%"


def format_listing(trace, dispatch, top=None):
    """The annotated listing of `dispatch` as text (program order; `top`: the hottest `top` first), with
    a heading, and one sentence on what the trace lacks (segments, per-instruction rows)."""
    d = trace.dispatches[trace.dispatches["id"] == dispatch][0]
    rows = instruction_rows(trace, dispatch)
    cycles = int(d["end"] - d["start"])
    lines = [f"dispatch #{dispatch} {d['name']}: {cycles:,} cycles, {int(d['waves']):,} waves, "
             f"{len(rows)} instructions" + ("" if top is None else f"; the {min(top, len(rows))} with the most "
                                            f"issue + stall cycles, hottest first")]
    notes = []
    if not bool(d["timed"]):
        notes.append("this dispatch was not timed (a device with timing off): no cycles per instruction")
    elif not any(r["waves"] is not None for r in rows):
        notes.append("this trace has no per-instruction rows (it predates the `instructions` table): waves "
                     "and issue cycles read '-'")
    if trace.detail not in STALL_DETAILS:
        notes.append(f"stall cycles at each s_waitcnt need the instruction segments, which this trace (detail "
                     f"'{trace.detail}') lacks: capture with `--trace-detail instruction` (dmlemu run ... "
                     f"--trace-detail instruction --trace FILE.npz)")
    elif "segments" in trace.aggregated:
        notes.append("the recorder kept only the first rows of table segments: stall cycles cover those "
                     "(`dmlemu run ... --trace-all` keeps every row)")
    if top is not None:
        rows = sorted(rows, key=lambda r: (-((r["issue"] or 0) + (r["stall"] or 0)), r["pc"]))[:top]
    lines.append(f"{'pc':>5} {'waves':>9} {'issue':>11} {'stall':>11} {'sect/req':>8} {'L2 hit':>7} "
                 f"{'IC hit':>7} {'coal.':>7}  instruction")
    for r in rows:
        lines.append(f"{r['pc']:>5} {_cell(r['waves']):>9} {_cell(r['issue']):>11} {_cell(r['stall']):>11} "
                     f"{_cell(r['sectors_per_request'], '.2f'):>8} {_pct(r['l2_hit_rate']):>7} "
                     f"{_pct(r['ic_hit_rate']):>7} {_pct(r['coalescing']):>7}  {r['instruction']}")
    lines.append("issue: waves x issue cycles per wave; stall: cycles the wave groups waited there, summed over "
                 "the groups (traces/listing.py)")
    return "\n".join(lines + [f"note: {n}" for n in notes])
