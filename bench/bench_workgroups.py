"""Executor cost of the workgroup instructions, per lane, against a buffer load in the same process.

Each kernel runs one instruction R times over G workgroups of 256 threads (wave32, functional model
only, timing off); the cost of the instruction is (time - time of the same kernel without it) / (R x
lanes). Printed: ns per lane and the ratio to buffer_load_dword (consecutive lanes: a slice of memory;
gathered lanes: a NumPy take, the fair comparison for the LDS, which is a gather), medians of --repeat runs.

    .venv/bin/python bench/bench_workgroups.py [--groups 4096] [--repeat 5]
"""
import argparse
import statistics
import time

import numpy as np

from dmlemu.functional.buffer_descriptor import write_buffer_descriptor
from dmlemu.functional.wave_dispatcher import KernelLaunch
from dmlemu.gpu import Gpu
from dmlemu.isa.assembler import assemble
from dmlemu.isa.program import Program
from dmlemu.presets import PRESETS

GROUP = 256
REPEAT = 16
PROLOGUE = """
    s_load_dwordx4 s[8:11], s[0:1], 0
    s_waitcnt 0
    s_get_workgroup_id s20
    s_mul_i32 s21, s20, 256
    v_add_u32 v1, s21, v0
    v_lshl_b32 v2, v1, 2
    v_mul_lo_u32 v4, v1, 0x9e3779b1
    v_and_b32 v4, v4, 0x3fffc
    v_lshl_b32 v5, v0, 2
    v_mul_lo_u32 v6, v0, 132
    v_and_b32 v6, v6, 0x3fc
    v_mov_b32 v3, 1
    ds_write_b32 v5, v1, 0
    s_barrier
"""
CASES = {
    "buffer_load_dword (consecutive)": "buffer_load_dword v7, v2, s[8:11], 0",
    "buffer_load_dword (gathered)": "buffer_load_dword v7, v4, s[8:11], 0",
    "ds_read_b32 (consecutive)": "ds_read_b32 v7, v5, 0",
    "ds_read_b32 (stride 33 dwords)": "ds_read_b32 v7, v6, 0",
    "ds_write_b32 (consecutive)": "ds_write_b32 v5, v1, 0",
    "ds_add_u32 (64 lanes a dword)": "ds_add_u32 v6, v3, 0",
    "v_mov_b32_xor": "v_mov_b32_xor v7, v1, 5",
    "ds_bpermute_b32": "ds_bpermute_b32 v7, v6, v1",
}


def run(gpu, body, groups, src):
    table = gpu.memory.allocate(64, "table")
    write_buffer_descriptor(table.data, 0, src.gpu_va, src.size)
    program = Program(assemble(PROLOGUE + body + "    s_endpgm\n"), "bench")
    launch = KernelLaunch(program, groups, GROUP, (table.gpu_va & 0xFFFFFFFF, table.gpu_va >> 32), lds_bytes=1024)
    start = time.perf_counter()
    gpu.dispatch(launch)
    elapsed = time.perf_counter() - start
    gpu.memory.free(table)
    return elapsed


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--groups", type=int, default=4096)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    gpu = Gpu(PRESETS[0], wave_width=32, timing=False)
    src = gpu.memory.allocate(max(1 << 18, args.groups * GROUP * 4), "src")
    lanes = args.groups * GROUP
    base = statistics.median(run(gpu, "", args.groups, src) for _ in range(args.repeat))
    results = {}
    for name, line in CASES.items():
        body = "".join(f"    {line}\n" for _ in range(REPEAT))
        t = statistics.median(run(gpu, body, args.groups, src) for _ in range(args.repeat))
        results[name] = max(0.0, t - base) / (REPEAT * lanes) * 1e9
    reference = results["buffer_load_dword (gathered)"]
    print(f"{lanes} lanes ({args.groups} workgroups of {GROUP}), {REPEAT} instructions each, median of {args.repeat}")
    print("(a consecutive buffer load is a slice of memory, no per-lane work: its figure is ~0)")
    print(f"{'instruction':36} {'ns/lane':>8} {'x gathered load':>16}")
    for name, ns in results.items():
        print(f"{name:36} {ns:8.2f} {ns / reference:16.2f}")


if __name__ == "__main__":
    main()
