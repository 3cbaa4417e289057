"""Hand-written loop kernels that the timing and trace tests share: every thread of a 1-D grid reads dwords
of `src` in a loop (or unrolled) and stores one dword to `dst`; the buffer descriptors of `src` and `dst` sit
in a table at s[0:1] (slots 0 and 32). `stride` is the bytes between one trip's loads and the next's."""
from dmlemu.functional.buffer_descriptor import write_buffer_descriptor
from dmlemu.functional.wave_dispatcher import KernelLaunch
from dmlemu.isa.assembler import assemble
from dmlemu.isa.program import Program

PROLOGUE = """
    s_load_dwordx4 s[8:11], s[0:1], 0
    s_load_dwordx4 s[12:15], s[0:1], 32
    s_waitcnt 0
    s_get_workgroup_id s20
    s_mul_i32 s21, s20, {group}
    v_add_u32 v1, s21, v0
    v_lshl_b32 v1, v1, 2
    v_mov_b32 v4, v1
    v_mov_b32 v3, 0
    s_mov_b32 s23, {stride}
"""
STORE = """    buffer_store_dword v3, v4, s[12:15], 0
    s_endpgm
"""


def looped(body, trips):
    """`body` run `trips` times: a scalar counter in s22, decremented and tested after each trip."""
    return f"    s_mov_b32 s22, {trips}\nloop:\n" + body + """    s_sub_u32 s22, s22, 1
    s_cmp_lg_u32 s22, 0
    s_cbranch_scc1 loop
"""


def kernel(body, group, stride):
    """The whole source around `body` (a loop or a straight run): prologue, body, the store."""
    return PROLOGUE.format(group=group, stride=stride) + body + STORE


def launch(gpu, source, name, groups, group, src_bytes):
    """(KernelLaunch, src, dst) of the assembled `source` over `groups` workgroups of `group` threads, with a
    `src_bytes` source buffer and a dword per thread of output on `gpu`."""
    src = gpu.memory.allocate(src_bytes, "src")
    dst = gpu.memory.allocate(groups * group * 4, "dst")
    table = gpu.memory.allocate(64, "table")
    write_buffer_descriptor(table.data, 0, src.gpu_va, src.size)
    write_buffer_descriptor(table.data, 32, dst.gpu_va, dst.size)
    program = Program(assemble(source), name)
    return KernelLaunch(program, groups, group, (table.gpu_va & 0xFFFFFFFF, table.gpu_va >> 32)), src, dst
