"""The fused element-wise kernel: several operators' own kernel variants stitched into one program.

A fused kernel runs a list of stages (element-wise operators of one Sizes, in execution order) over
the memory tensors of the whole group (descriptor table slots: inputs first, then outputs). It is built
from the very sources CompileOperator assembles, so that every stage computes what its operator's own
kernel computes. The generated source names a stage by its node's index only: no user string (a node's
Name) reaches it, so a name is data whatever its characters or length. The program:

    prologue.inc, address.inc      once, for the group's vector memory tensors (at most MAX_TENSORS,
                                   what address.inc addresses: tensors 0 .. 8; on the general path
                                   the offsets of tensors 4 .. 8, which address.inc leaves in v28 ..,
                                   are copied above every register a stage uses)
    scalar preamble                each uniform input (a tensor whose every element is element 0: one
                                   element, or stride 0 in every dimension) loaded once per wave with a
                                   scalar load (s_load_dword / s_load_dwordx2 at the descriptor's base)
                                   into s88 .. s103, as a GPU compiler loads a wave-uniform address;
                                   it takes no address register, no stride record, and leaves the
                                   packed addressing path open to the other tensors
    stage 1 .. stage n             each operator's own variant (driver.variant_symbols, its source:
                                   element_wise_head.inc, its body, element_wise_tail.inc),
                                   preprocessed, without its prologue and addressing, with
      - a load of a value an earlier stage produced replaced by a register copy with the width and
        the extension of the store and the load it replaces (v_mov_b32, or v_bfe_u32 / v_bfe_i32 of
        the low 8 or 16 bits), so the stage sees the very bits the unfused run would have read back:
        every intermediate is rounded to its edge's data type (the producer's tail narrows as before
        its store), and fusion never changes a bit;
      - the store of a value only later stages read replaced by a copy into a register kept for it;
        a value also needed in memory is stored as well;
      - a vector memory input several stages read loaded once: the first keeps the loaded value
        (copied once its load lands, at the stage's s_waitcnt), the later ones copy it;
      - a uniform input's load replaced by a copy of its scalar register (same widths and extension);
      - its descriptor slots and offsets those of the group's memory tensors, its constant buffer
        fields (Min, Max, Scale, Bias, PARAM ..) read from its own block of the fused constant
        buffer, its labels renamed apart ("done" is the fused kernel's end)
    done: s_endpgm

Registers kept between stages live above every register a stage (or its operator's own kernel) uses,
allocated by live range: a value's register is free again at the stage that reads it last, so a chain
of any length keeps one value at a time. The fused constant buffer is the group's addressing constants
(constant_buffer.LAYOUT: element count, workgroup size, dimension records of the vector memory tensors)
followed by each stage's own constant buffer, packed by compile_operator as for an unfused dispatch,
at a multiple of BLOCK_ALIGNMENT.

The graph compiler (emulator/directml/graph.py) decides which nodes form a group; this module knows
nothing of graphs: a stage says where each of its inputs comes from (a memory slot or an earlier
stage) and whether its output goes to memory.
"""
import os
import re
from dataclasses import dataclass

import numpy as np

from dmlemu.functional.buffer_descriptor import DESCRIPTOR_SIZE
from dmlemu.isa.program import Program
from dmlemu.isa.assembler import assemble, preprocess, read_source
from dmlemu.kernels import address
from dmlemu.kernels.constant_buffer import LAYOUT
from dmlemu.kernels.driver import (
    KERNEL_DIR, MAX_TENSORS, CompiledKernel, activation_of, division_magic, merge_dimensions, tensor_types,
    variant_name, variant_symbols,
)
from dmlemu.kernels.element_wise_ops import OPERATORS

BLOCK_ALIGNMENT = 64
MAX_UNIFORM = 8           # uniform inputs per fused kernel: their values in s88 .. s103 (pairs)
UNIFORM_SGPR = 88
_ADDRESSING = ("prologue.inc", "address.inc")
_TRANSFER = {   # load kind -> instructions copying a kept value (VGPR or SGPR) into the load's destination
    "dword": ("v_mov_b32 {d}, {s}",),
    "ushort": ("v_bfe_u32 {d}, {s}, 0, 16",), "sshort": ("v_bfe_i32 {d}, {s}, 0, 16",),
    "ubyte": ("v_bfe_u32 {d}, {s}, 0, 8",), "sbyte": ("v_bfe_i32 {d}, {s}, 0, 8",),
}
_DESCRIPTOR_QUADS = [f"s[{8 + 4 * i}:{11 + 4 * i}]" for i in range(4)] + \
    [f"s[{64 + 4 * i}:{67 + 4 * i}]" for i in range(4)]     # scratch for the preamble's descriptors


@dataclass(frozen=True)
class FusedStage:
    """One operator of a fused kernel: its node's index (the only thing of the node the generated source
    names), how error sentences name it (`label`, which may hold the user's node name: it never reaches
    the source), its validated desc (`info`: an OperatorInfo), its own CompiledKernel, where each input
    comes from (("memory", slot) or ("stage", position of an earlier stage)) and the memory slot its
    output is stored to (None: later stages read it in registers)."""
    node: int
    label: str
    info: object
    kernel: object
    inputs: tuple
    output: object = None


def _align(n, alignment):
    return -(-n // alignment) * alignment


def _registers(operand):
    """A VGPR operand as a list of register numbers: v7 -> [7], v[10:11] -> [10, 11]."""
    match = re.fullmatch(r"v(\d+)", operand) or re.fullmatch(r"v\[(\d+):(\d+)\]", operand)
    if match is None:
        raise ValueError(f"fusion: {operand!r} is not a VGPR")
    first = int(match.group(1))
    last = int(match.group(2)) if match.lastindex == 2 else first
    return list(range(first, last + 1))


def _operands(line):
    mnemonic, _, rest = line.partition(" ")
    return mnemonic, [o.strip() for o in rest.split(",")]


def stage_variant(info, half_precision):
    """(operator, data_type, scale_bias, half, types, activation): the arguments compile_operator gives
    variant_symbols for a validated OperatorInfo, so that a stage is the operator's own kernel."""
    name = info.schema.name
    row = OPERATORS[name]
    types = tuple(t.type_name for t in info.tensors)
    data_type = types[row.type_tensor]
    half = bool(half_precision) and data_type == "FLOAT16"
    attributes = dict(getattr(info, "attributes", None) or info.floats)
    activation = activation_of(attributes)[0] if row.activation else None
    variant_types = None if types == tensor_types(name, data_type) else types
    return name, data_type, info.scale_bias is not None, half, variant_types, activation


def is_uniform(tensor):
    """Whether every element of a tensor desc reads element 0 (one element, or stride 0 wherever the size
    is above 1): a fused kernel loads it once per wave with a scalar load."""
    return all(size == 1 or stride == 0 for size, stride in zip(tensor.sizes, tensor.effective_strides))


def _address_symbols(tensors, sizes, workgroup_size, layout):
    """The assembler symbols of prologue.inc and address.inc for the vector memory tensors (TensorInfo),
    the offset register of each, and the group's addressing constants."""
    # A dimension of size 1 where the group's is larger (BATCH_NORMALIZATION's Mean .. Bias) is broadcast: stride 0,
    # as driver.compile_operator gives it (its only coordinate is 0, so this changes no other address).
    strides = [tuple(0 if size == 1 else stride for size, stride in zip(t.sizes, t.effective_strides))
               for t in tensors]
    merged_sizes, merged_strides = merge_dimensions(sizes, strides)
    packed = len(merged_sizes) == 1 and all(s[0] == 1 for s in merged_strides)
    wide = not packed and (max(merged_sizes) > 1 << 24 or any(s >= 1 << 24 for st in merged_strides for s in st))
    shifts = [t.element_size.bit_length() - 1 for t in tensors]
    n = len(tensors)
    data_shift = shifts[-1]      # the packed path's v2 is the last tensor's (an output's) offset
    symbols = {"PACKED": int(packed), "SHIFT_DATA": data_shift, **address.DEFAULTS,
               "MAD_OFFSET": "v_mad_u32" if wide else "v_mad_u32_u24"}
    offsets, extra = [], {}
    for i, shift in enumerate(shifts):
        symbols[f"SHIFT_T{i}"] = shift
        if not packed:
            offsets.append(f"v{2 + i}" if i < 4 else f"v{24 + i}")     # address.inc: tensors 4 .. 8 in v28 ..
        elif shift == data_shift:
            offsets.append("v2")
        elif shift == 0:
            offsets.append("v1")
        else:
            offsets.append(extra.setdefault(shift, f"v{3 + len(extra)}"))
    for i in range(2, 12):
        symbols[f"HAS_T{i}"] = int(i < n)
    for i in range(n, 12):
        symbols[f"SHIFT_T{i}"] = 0
    for k in (1, 2):
        group = list(extra.items())[k - 1] if len(extra) >= k else None
        symbols[f"PACKED_X{k}"] = int(group is not None)
        symbols[f"PACKED_X{k}_SHIFT"], symbols[f"PACKED_X{k}_REG"] = group if group else (0, "v3")
    symbols.update(layout.symbols())
    elements = int(np.prod(sizes, dtype=np.int64))
    records = []
    for d in reversed(range(len(merged_sizes))):   # innermost first
        magic, shift1, shift2 = division_magic(merged_sizes[d])
        record = {"SIZE": merged_sizes[d], "MAGIC": magic, "SHIFT1": shift1, "SHIFT2": shift2}
        for t in range(n):
            record[f"STRIDE_T{t}"] = merged_strides[t][d] & 0xFFFFFFFF
        records.append(record)
    header = layout.pack({"ELEMENTS": elements, "WORKGROUP_SIZE": workgroup_size,
                          "RECORD_COUNT": len(merged_sizes), "SCALE": 1.0}, records, params=False, wide=n > 4)
    return symbols, offsets, header, elements


def _allocate(intervals, base):
    """Registers for values live over stage positions: intervals {key: (first, last, width)}; a register
    pair is free again at the position that reads its value last. Returns ({key: [registers]}, end)."""
    free, busy, registers, end = [], [], {}, base
    for key, (first, last, width) in sorted(intervals.items(), key=lambda item: (item[1][0], str(item[0]))):
        for entry in [b for b in busy if b[0] <= first]:
            busy.remove(entry)
            free.append(entry[1])
        free.sort()
        if free:
            pair = free.pop(0)
        else:
            pair, end = end, end + 2
        registers[key] = [pair + i for i in range(width)]
        busy.append((last, pair))
    return registers, end


def compile_fused(stages, tensors, half_precision, workgroup_size):
    """The CompiledKernel of a fused group and its generated source: `stages` (FusedStage, in order),
    `tensors` the group's memory tensors (TensorInfo) in descriptor table order, inputs then outputs;
    inputs that are uniform (`is_uniform`) are read by scalar loads."""
    output_slots = {s.output for s in stages if s.output is not None}
    uniform = [slot for slot, t in enumerate(tensors) if slot not in output_slots and is_uniform(t)]
    if len(uniform) > MAX_UNIFORM:
        raise ValueError(f"fusion: {len(uniform)} uniform inputs; a fused kernel keeps at most {MAX_UNIFORM}")
    vector = [slot for slot in range(len(tensors)) if slot not in uniform]
    if len(vector) > MAX_TENSORS:
        raise ValueError(f"fusion: {len(vector)} memory tensors; address.inc addresses at most {MAX_TENSORS}")
    sizes = tuple(int(s) for s in stages[0].info.outputs[0].sizes)
    address, vector_offsets, header, elements = _address_symbols([tensors[s] for s in vector], sizes,
                                                                 workgroup_size, LAYOUT)
    offsets = dict(zip(vector, vector_offsets))
    # address.inc leaves tensors 4 .. 8 of the general path in v28 .., where a stage's own registers may be
    # (its FLOAT attributes in v24 .. v31): they move above every register a stage uses (`relocated`).
    moved = {slot: offsets[slot] for slot in vector[4:] if len(vector) > 4 and not address["PACKED"]}
    offsets.update({slot: f"@OFF{slot}@" for slot in moved})
    scalar = {slot: UNIFORM_SGPR + 2 * u for u, slot in enumerate(uniform)}
    # A vector memory input read by several stages is loaded by the first and copied by the later ones.
    readers = {}
    for position, stage in enumerate(stages):
        for where, slot in (i for i in stage.inputs if i is not None):
            if where == "memory" and slot in offsets:
                readers.setdefault(slot, []).append(position)
    shared = {slot: (min(p), max(p)) for slot, p in readers.items() if len(set(p)) > 1}
    last_reader = {}
    for position, stage in enumerate(stages):
        for where, p in (i for i in stage.inputs if i is not None):
            if where == "stage":
                last_reader[p] = max(last_reader.get(p, p), position)
    lines_of, blocks, at = [], [header], _align(len(header), BLOCK_ALIGNMENT)
    for position, stage in enumerate(stages):
        info = stage.info
        name, data_type, scale_bias, half, types, activation = stage_variant(info, half_precision)
        expected = variant_name(name, data_type, False, scale_bias, half, False, types, activation)
        actual = stage.kernel.program.name.replace("_packed", "").replace("_wide", "")
        if actual != expected:
            raise ValueError(f"fusion: {stage.label} compiled as {stage.kernel.program.name}, not a {expected} variant")
        symbols = variant_symbols(name, data_type, False, scale_bias, half, LAYOUT, wide=True, types=types,
                                  activation=activation)
        count = len(info.tensors)
        for i, source in enumerate(stage.inputs):
            where, what = source
            slot = what if where == "memory" else None
            symbols[f"DESC_T{i}"] = (slot or 0) * DESCRIPTOR_SIZE
            if where == "stage":
                symbols[f"OFF_T{i}"] = f"@IN{what}@"            # produced by an earlier stage
            elif slot in scalar:
                symbols[f"OFF_T{i}"] = f"@UNI{slot}@"           # a uniform input, in SGPRs
            elif slot in shared and shared[slot][0] < position:
                symbols[f"OFF_T{i}"] = f"@EXT{slot}@"           # loaded by an earlier stage
            elif slot in shared:
                symbols[f"OFF_T{i}"] = f"{offsets[slot]}@LOAD{slot}@"   # this stage loads it for the later ones
            else:
                symbols[f"OFF_T{i}"] = offsets[slot]
        out = stage.output
        symbols[f"DESC_T{count - 1}"] = (out or 0) * DESCRIPTOR_SIZE
        symbols[f"OFF_T{count - 1}"] = symbols["OFF_OUT"] = offsets[out] if out is not None else "@OUT@"
        for field in LAYOUT.fields:          # this stage's constants: its own block of the fused buffer
            symbols[f"CB_{field.name}"] = at + field.offset
        blocks.append((at, stage.kernel.constants))
        at = _align(at + len(stage.kernel.constants), BLOCK_ALIGNMENT)
        path = os.path.join(KERNEL_DIR, OPERATORS[name].source)
        lines_of.append(preprocess(read_source(path), symbols, path).lines)
    # The values kept between stages live above every register a stage or an operator's kernel uses.
    used = [s.kernel.vgprs_used for s in stages] + [int(r) for lines in lines_of for _, line in lines
                                                    for r in re.findall(r"\bv\[?(\d+)", line)]
    base = _align(max(32, max(used) + 2), 2)
    relocated = {slot: base + i for i, slot in enumerate(moved)}
    base = _align(base + len(relocated), 2)
    intervals = {("stage", p): (p, last, 2 if stages[p].info.outputs[0].element_size == 8 else 1)
                 for p, last in last_reader.items()}
    intervals.update({("memory", slot): (first, last, 2) for slot, (first, last) in shared.items()})
    kept, end = _allocate(intervals, base)
    if end > 256:
        raise ValueError(f"fusion: the group keeps values up to v{end - 1}; a wave has 256 VGPRs")
    lines = [f"    v_mov_b32 v{reg}, {moved[slot]}   ; tensor offset kept above the stages' registers"
             for slot, reg in relocated.items()] + _preamble(tensors, scalar)
    lines_of = [[(where, re.sub(r"@OFF(\d+)@", lambda m: f"v{relocated[int(m.group(1))]}", line))
                 for where, line in stage_lines] for stage_lines in lines_of]
    for position, (stage, stage_lines) in enumerate(zip(stages, lines_of)):
        lines.append(f"; ---- stage {position + 1}: node {int(stage.node)}, {stage.info.schema.name}")
        lines += _stage(stage_lines, position, stage, kept, scalar)
    lines += ["done:", "    s_endpgm"]
    source = '.include "prologue.inc"\n.include "address.inc"\n' + "\n".join(lines) + "\n"
    program_name = "fused_" + "_".join(s.info.schema.name.replace("ELEMENT_WISE_", "").lower() for s in stages)
    program = Program(assemble(source, address, os.path.join(KERNEL_DIR, "fused.s")), program_name)
    constants = np.zeros(_align(at, 4), dtype=np.uint8)
    constants[:len(header)] = header
    for offset, data in blocks[1:]:
        constants[offset:offset + len(data)] = data
    return CompiledKernel("FUSED", program, constants, len(tensors), elements, workgroup_size), source


def _preamble(tensors, scalar):
    """Each uniform input's element 0 into its SGPR(s), once per wave: its descriptor (into scratch
    descriptor registers the stages load their own over), then a scalar load at the descriptor's base."""
    if not scalar:
        return []
    lines = ["; ---- uniform inputs: element 0 of each, one scalar load per wave"]
    items = list(scalar.items())
    for first in range(0, len(items), len(_DESCRIPTOR_QUADS)):
        batch = items[first:first + len(_DESCRIPTOR_QUADS)]
        for (slot, _), quad in zip(batch, _DESCRIPTOR_QUADS):
            lines.append(f"    s_load_dwordx4 {quad}, s[0:1], {slot * DESCRIPTOR_SIZE}")
        lines.append("    s_waitcnt 0")
        for (slot, sgpr), quad in zip(batch, _DESCRIPTOR_QUADS):
            base = quad.split(":")[0] + ":" + str(int(quad.split(":")[0][2:]) + 1) + "]"
            if tensors[slot].element_size == 8:
                lines.append(f"    s_load_dwordx2 s[{sgpr}:{sgpr + 1}], {base}, 0")
            else:
                lines.append(f"    s_load_dword s{sgpr}, {base}, 0")
        lines.append("    s_waitcnt 0")
    return lines


def _stage(stage_lines, position, stage, kept, scalar):
    """One operator's preprocessed lines as a stage of the fused kernel (see the module docstring)."""
    out, pending = [], []               # pending: copies of loaded values to make once the loads land
    # The descriptors this stage need not load: tensors it reads in registers, and its output if kept only.
    internal = {_operands(line)[1][2] for _, line in stage_lines
                if line.startswith("buffer_load_") and re.search(r"@(IN|EXT|UNI)\d+@", line)}
    internal |= {_operands(line)[1][2] for _, line in stage_lines
                 if line.startswith("buffer_store_") and "@OUT@" in line}
    labels = {line[:-1] for where, line in stage_lines if line.endswith(":")} - {"done"}
    rename = re.compile(r"\b(" + "|".join(map(re.escape, sorted(labels))) + r")\b") if labels else None
    for where, line in stage_lines:
        if os.path.basename(where.rsplit(":", 1)[0]) in _ADDRESSING:
            continue                                  # the fused kernel's own prologue and addressing
        if line == "done:" or line.split()[0] == "s_endpgm":
            continue
        mnemonic, operands = _operands(line)
        if mnemonic == "s_load_dwordx4" and operands[1] == "s[0:1]" and operands[0] in internal:
            continue                                  # the descriptor of a tensor kept in registers
        if rename is not None:
            line = rename.sub(lambda m: f"{m.group(1)}_s{position + 1}", line)
            mnemonic, operands = _operands(line)
        if mnemonic == "s_waitcnt" and pending:
            out.append("    " + line)
            out += pending                            # the shared inputs' loaded values, kept for later stages
            pending = []
            continue
        marker = re.search(r"@(IN|EXT|UNI|LOAD)(\d+)@", line)
        kind = mnemonic[len("buffer_load_"):] if mnemonic.startswith("buffer_load_") else None
        if marker is not None and marker.group(1) == "LOAD":   # this stage loads it; later stages copy it
            line = line.replace(marker.group(0), "")
            destination = _registers(_operands(line)[1][0])
            keep = kept[("memory", int(marker.group(2)))]
            pending += [f"    v_mov_b32 v{s}, v{d}" for d, s in zip(destination, keep)]
        elif marker is not None:                      # a value in registers: copy it with the load's width
            number = int(marker.group(2))
            if marker.group(1) == "UNI":
                source = [f"s{scalar[number]}", f"s{scalar[number] + 1}"]
            elif marker.group(1) == "EXT":
                source = [f"v{r}" for r in kept[("memory", number)]]
            else:
                source = [f"v{r}" for r in kept[("stage", number)]]
            destination = _registers(operands[0])
            if kind == "dwordx2":
                out += [f"    v_mov_b32 v{d}, {s}" for d, s in zip(destination, source)]
            else:
                out += ["    " + t.format(d=f"v{destination[0]}", s=source[0]) for t in _TRANSFER[kind]]
            continue
        if mnemonic.startswith("buffer_store_") and ("stage", position) in kept:
            value = _registers(operands[0])
            if "@OUT@" not in line:
                out.append("    " + line)                 # also needed in memory: stored as well
            out += [f"    v_mov_b32 v{d}, v{s}" for d, s in zip(kept[("stage", position)], value)]
            continue
        out.append(("    " + line) if not line.endswith(":") else line)
    return out


__all__ = ["FusedStage", "compile_fused", "stage_variant", "is_uniform", "BLOCK_ALIGNMENT",
           "MAX_UNIFORM"]
