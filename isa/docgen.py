"""Generates docs/ISA.md from the opcode table, so the reference can never drift from the code."""
import inspect

from dmlemu.isa import encoding, lanes, operands
from dmlemu.isa import numerics as nm
from dmlemu.isa import opcodes as op

# The instruction-level numeric rules the semantics call, documented from their docstrings.
RULES = (nm.canonicalize, nm.min_num, nm.max_num, nm.narrow_f16, nm.f16_arith, nm.float_to_int, nm.exp2, nm.log2,
         nm.sin_revolutions, nm.cos_revolutions, nm.reciprocal, nm.square_root, nm.reciprocal_sqrt,
         nm.round_integral, nm.fract, nm.fused_multiply_add, nm.fused_multiply_add_f64, nm.float_class, nm.class_test, nm.ldexp_exact,
         nm.int_to_float, nm.narrow_f64_to_f16, nm.divide, nm.bit_field_extract, nm.packed_fma_f16)
# The cross-lane rules (isa/lanes.py).
LANE_RULES = (lanes.read_lane, lanes.read_first_lane, lanes.write_lane, lanes.row_shift_right, lanes.row_mirror,
              lanes.lane_xor, lanes.broadcast_lane, lanes.swizzle, lanes.permute_forward, lanes.permute_backward)

HEADER = """# The dmlemu instruction set

Generated from `isa/opcodes.py` by `dmlemu isa-doc` (or `make isa-doc`); do not edit by hand.
A test fails when this file is stale.

dmlemu kernels run on a small vector ISA in the style of AMD GCN/RDNA: scalar (`s_`) instructions
run once per wave, vector (`v_`) instructions once per active lane, under the EXEC mask. 64-bit
values live in register pairs. See README.md for how a wave executes.

Workgroups: the waves of one workgroup share its LDS (`ds_` instructions, the bytes a kernel declares
with `.lds`), wait for each other at `s_barrier`, exchange lane values with the cross-lane moves and
`ds_swizzle` / `ds_permute`, and update memory with atomics (`ds_<op>` in the LDS, `buffer_atomic_<op>`
in a buffer). The order in which atomics apply, and in which the waves of a workgroup run between
barriers, is in docs/NUMERICS.md ("Atomics and the order of waves").

Numeric rules: every instruction's result is a fixed rule that gives the same bits on every machine
(section "Numeric rules" below, from isa/numerics.py; the golden model calls the same functions).
The measured error of the transcendental instructions is in [ISA_PRECISION.md](ISA_PRECISION.md).
"""


def _encoding_section():
    lines = ["## Encoding", "", "Every instruction is one 64-bit word, plus one 32-bit literal dword when an "
             "operand uses code 255.", "", "| field | bits |", "|---|---|"]
    for name, (start, width) in encoding.FIELDS.items():
        lines.append(f"| {name} | {start}..{start + width - 1} |")
    lines += ["", "Register and constant operands fill slot0..slot3 in assembly order; a label or immediate "
              "goes to imm14 (branch offsets are signed dwords from the next instruction).", "",
              "### Operand codes", "", "```", operands.__doc__.split("\n\n", 1)[1].strip(), "```", ""]
    return lines


def generate():
    lines = [HEADER]
    lines += _encoding_section()
    lines += ["## Instructions", "",
              f"{len(op.TABLE)} instructions. Cycles: issue / latency, as the timing model charges them; a VALU "
              "instruction's issue cycles are those of its rate class on the adapter preset "
              "(`valu_rate_cycles`; \"full\" is the table's figure).", ""]
    for unit in op.UNITS:
        entries = sorted((e for e in op.TABLE if e.unit == unit), key=lambda e: e.opcode)
        if not entries:
            continue
        lines += [f"### {unit}", "", "| opcode | mnemonic | format | operands | types | cycles | rate class | description |",
                  "|---|---|---|---|---|---|---|---|"]
        for e in entries:
            ops = ", ".join(e.operands) or "-"
            types = ", ".join(t or "-" for t in e.types) or "-"
            lines.append(f"| 0x{e.opcode:03x} | `{e.mnemonic}` | {e.fmt} | {ops} | {types} | "
                         f"{e.issue_cycles} / {e.latency_cycles} | {e.rate_class} | {e.doc} |")
        lines.append("")
    lines += ["## Numeric rules", "", "From `isa/numerics.py`: the functions the semantics above call, and their rules.", ""]
    for fn in RULES:
        signature = str(inspect.signature(fn))
        lines += [f"### `numerics.{fn.__name__}{signature}`", "", inspect.cleandoc(fn.__doc__), ""]
    lines += ["## Cross-lane rules", "", inspect.cleandoc(lanes.__doc__).split("\n\n")[0], ""]
    for fn in LANE_RULES:
        lines += [f"### `lanes.{fn.__name__}{inspect.signature(fn)}`", "", inspect.cleandoc(fn.__doc__), ""]
    return "\n".join(lines)
