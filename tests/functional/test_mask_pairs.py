"""Mask arithmetic through SGPR pairs (executor._mask_pair_alu: EXEC and VCC saved to, combined with and restored
from s[...] pairs, as the reduction and softmax kernels' ARGMAX steps and branch restores do): the fast executor
against the slow per-lane reference executor, bit for bit, including pairs overwritten dword by dword between
uses and batches split by divergent branches."""
import numpy as np
import pytest

from dmlemu.functional.buffer_descriptor import write_buffer_descriptor
from dmlemu.functional.wave_dispatcher import KernelLaunch
from dmlemu.gpu import Gpu
from dmlemu.isa.assembler import assemble
from dmlemu.isa.program import Program
from dmlemu.presets import TEACHING
from reference_executor import run_launch

PAIRS = ("s[40:41]", "s[42:43]", "s[44:45]")
MASKS = ("exec", "vcc") + PAIRS
CMPS = ("v_cmp_lt_u32", "v_cmp_gt_u32", "v_cmp_eq_u32", "v_cmp_lt_f32")


def mask_program(rng, steps):
    """A random program of compares and 64-bit mask moves and bitwise operations among EXEC, VCC and SGPR pairs;
    at the end every pair, VCC and a register written under the last EXEC reach memory."""
    lines = ["s_mov_b64 s[30:31], exec", "v_lane_id v1", "s_get_workgroup_id s12"]
    for r in range(2, 6):
        lines += [f"v_mov_b32 v{r}, {int(rng.integers(0, 2 ** 31))}", f"v_mul_lo_u32 v{r}, v{r}, v1",
                  f"v_xor_b32 v{r}, v{r}, v0"]
    lines += [f"s_mov_b64 {pair}, exec" for pair in PAIRS]
    for step in range(steps):
        roll = rng.random()
        if roll < 0.2:
            lines.append(f"{rng.choice(CMPS)} vcc, v{int(rng.integers(1, 6))}, v{int(rng.integers(1, 6))}")
        elif roll < 0.35:
            lines.append(f"s_mov_b64 {rng.choice(PAIRS)}, {rng.choice(MASKS)}")
        elif roll < 0.7:
            op = rng.choice(("s_and_b64", "s_or_b64", "s_andn2_b64"))
            lines.append(f"{op} {rng.choice(MASKS)}, {rng.choice(MASKS)}, {rng.choice(MASKS)}")
        elif roll < 0.75:
            lines.append(f"s_mov_b64 exec, {rng.choice(PAIRS)}")
        elif roll < 0.8:   # a dword of a pair written on its own: the pair's lanes are no longer the mask's
            pair = int(rng.choice((40, 41, 42, 43, 44, 45)))
            lines.append(f"s_mov_b32 s{pair}, {int(rng.integers(0, 2 ** 31))}")
        elif roll < 0.85:
            lines.append(f"s_not_b64 {rng.choice(PAIRS)}, {rng.choice(MASKS)}")
        elif roll < 0.9:   # a branch that differs between waves: splits the batch
            label = f"skip{step}"
            lines += [f"s_cmp_lt_u32 s12, {int(rng.integers(0, 3))}", f"s_cbranch_scc1 {label}",
                      f"s_mov_b64 {rng.choice(PAIRS)}, vcc", f"{label}:"]
        else:
            r = int(rng.integers(2, 6))
            lines.append(f"v_cndmask_b32 v{r}, v{r}, v1, vcc")
    lines += ["v_cndmask_b32 v6, 0, 1, vcc", "v_add_u32 v7, v1, 3",
              "s_mov_b64 exec, s[30:31]", "s_load_dwordx4 s[20:23], s[0:1], 0", "s_waitcnt 0"]
    for k, s in enumerate(range(40, 46)):
        lines.append(f"v_mov_b32 v{8 + k}, s{s}")
    lines += ["s_mul_i32 s24, s4, 16", "v_add_u32 v14, s24, v0", "v_lshl_b32 v14, v14, 6"]
    for r in range(1, 14):
        lines.append(f"buffer_store_dword v{r}, v14, s[20:23], {4 * r}")
    lines.append("s_endpgm")
    return "\n".join(lines)


@pytest.mark.parametrize("seed", range(40))
def test_mask_pairs_match_reference(seed):
    rng = np.random.default_rng(1000 + seed)
    width = int(rng.choice([4, 8, 16, 32, 64]))
    run_both(mask_program(rng, int(rng.integers(6, 30))), f"masks{seed}", width, int(rng.integers(1, 5)),
             width * 2 if seed % 2 else 1 << 16)   # several batches, or one


@pytest.mark.parametrize("width", [8, 32, 64])
@pytest.mark.parametrize("first", [0, 3, 7, 64])
def test_readfirstlane_of_one_value_per_wave_matches_reference(width, first):
    """v_readfirstlane_b32 of a register that holds one value per wave (read_first_lane's shortcut, no pass over
    EXEC) and of a per-lane one, under an EXEC that starts at lane `first` (none active past the width)."""
    text = "\n".join([
        "s_mov_b64 s[30:31], exec", "s_get_workgroup_id s12", "s_get_wave_id s14", "v_lane_id v1",
        "v_mov_b32 v2, s12", "v_mul_lo_u32 v2, v2, 7", "v_add_u32 v2, v2, s14",
        f"v_cmp_le_u32 vcc, {first}, v1", "s_and_b64 exec, exec, vcc",
        "v_readfirstlane_b32 s40, v2", "v_readfirstlane_b32 s41, v1",
        "s_mov_b64 exec, s[30:31]", "v_mov_b32 v3, s40", "v_mov_b32 v4, s41",
        "s_load_dwordx4 s[20:23], s[0:1], 0", "s_waitcnt 0",
        "s_mul_i32 s24, s4, 16", "v_add_u32 v14, s24, v0", "v_lshl_b32 v14, v14, 6",
        "buffer_store_dword v3, v14, s[20:23], 0", "buffer_store_dword v4, v14, s[20:23], 4", "s_endpgm"])
    run_both(text, f"first{width}_{first}", width, 3, 1 << 16)


def run_both(text, name, width, groups, batch_lanes, group_size=16):
    """The program over `groups` workgroups on the fast executor and on the per-lane reference: the same bytes."""
    program = Program(assemble(text), name)
    runs = []
    for _ in range(2):
        gpu = Gpu(TEACHING, wave_width=width)
        gpu.dispatcher.batch_lanes = batch_lanes
        buffer = gpu.memory.allocate(64 * groups * group_size, "out")
        table = gpu.memory.allocate(32, "table")
        write_buffer_descriptor(table.data, 0, buffer.gpu_va, buffer.size)
        launch = KernelLaunch(program, groups, group_size, (table.gpu_va & 0xFFFFFFFF, table.gpu_va >> 32, 0, 0))
        runs.append((gpu, buffer, launch))
    (fast_gpu, fast_buffer, launch), (ref_gpu, ref_buffer, ref_launch) = runs
    fast_gpu.dispatch(launch)
    run_launch(ref_launch, ref_gpu.memory, width)
    assert np.array_equal(fast_buffer.data, ref_buffer.data)


def test_a_saved_exec_restores_through_the_remembered_lanes():
    """s_mov_b64 s[40:41], exec remembers the lanes; a later s_mov_b64 exec, s[40:41] takes them without
    unpacking, and a dword written in between makes the restore unpack the dwords again."""
    from dmlemu.functional import executor
    from dmlemu.functional.wave import WaveBatch, pack_mask

    program = Program(assemble("v_lane_id v1\nv_cmp_gt_u32 vcc, 5, v1\ns_mov_b64 s[40:41], vcc\n"
                               "s_mov_b64 exec, s[40:41]\ns_mov_b32 s40, 3\ns_mov_b64 exec, s[40:41]\ns_endpgm"), "m")
    records = executor.bind(program)
    batch = WaveBatch(2, 8)
    for pc in range(3):
        handler, entry, operands, _ = records[pc]
        handler(None, batch, entry, operands)
    lanes = np.arange(8) < 5
    assert np.array_equal(np.broadcast_to(batch.pair_masks[40][2], (2, 8)), np.broadcast_to(lanes, (2, 8)))
    assert np.array_equal(batch.read(program.records[3].operands[1], "b64").reshape(-1),
                          pack_mask(np.broadcast_to(lanes, (2, 8)), 2, 8).reshape(-1))
    handler, entry, operands, _ = records[3]
    handler(None, batch, entry, operands)
    assert batch.exec_compact is batch.pair_masks[40][2]
    for pc in (4, 5):
        handler, entry, operands, _ = records[pc]
        handler(None, batch, entry, operands)
    assert np.array_equal(batch.exec, np.broadcast_to(np.arange(8) < 2, (2, 8)))   # 3 = lanes 0 and 1


@pytest.mark.parametrize("width", [4, 8, 16, 24, 32, 64])
def test_pack_and_unpack_mask_are_the_lanes_bits(width):
    """pack_mask / unpack_mask (the flat packbits paths where a wave's lanes are whole bytes, and the general one)
    against bit i = lane i computed lane by lane: per-lane, per-wave and uniform masks, contiguous or not."""
    from dmlemu.functional.wave import pack_mask, unpack_mask

    rng = np.random.default_rng(width)
    for waves in (1, 3, 40):
        for shape in ((waves, width), (1, width), (waves, 1), (1, 1)):
            mask = rng.random(shape) < 0.4
            for lanes in (mask, mask[:, ::-1]):
                full = np.broadcast_to(lanes, (waves, width))
                expected = np.array([[sum(1 << i for i in range(width) if full[w, i])] for w in range(waves)],
                                    dtype=np.uint64)
                packed = pack_mask(lanes, waves, width)
                assert packed.dtype == np.uint64 and packed.shape == (waves, 1)
                assert np.array_equal(packed, expected)
                unpacked = unpack_mask(packed, waves, width)
                assert unpacked.dtype == bool and np.array_equal(unpacked, full)
