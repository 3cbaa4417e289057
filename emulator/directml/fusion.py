"""The fusing compiler: one kernel for a group of element-wise graph nodes, intermediates in registers.

A fused group (graph.py's partition: element-wise nodes with one Sizes, joined in execution order,
reading one another through edges whose two ends have one DataType and one layout) becomes one program:

    prologue.inc, address.inc      once, for the group's memory tensors (at most 4: address.inc's
                                   tensors 0 .. 3; inputs first, then outputs)
    stage 1 .. stage n             each node's own kernel variant, exactly as CompileOperator would
                                   assemble it (kernels/driver.py variant_symbols, the operator's
                                   source: element_wise_head.inc, its body, element_wise_tail.inc),
                                   preprocessed, without its prologue and addressing, with
      - a load of an input another stage produced replaced by a register copy of that value, with
        the width and the extension of the store and the load it replaces (v_mov_b32, or
        v_bfe_u32 / v_bfe_i32 of the low 8 or 16 bits), so the consumer sees the very bits the
        unfused run would have read back: every intermediate is rounded to its edge's data type
        (the producer's tail narrows as before its store), and fusion never changes a bit;
      - the store of a value only stages read replaced by a copy into a register kept for it
        (above every register a stage uses); a value also read outside the group is stored too;
      - a memory input several stages read loaded once: the first of them keeps the loaded value
        (copied once its load lands, at the stage's s_waitcnt), the later ones copy it;
      - its descriptor slots and offsets those of the group's memory tensors, its constant buffer
        fields (Min, Max, Scale, Bias, PARAM ..) read from its own block of the fused constant
        buffer, its labels renamed apart ("done" is the fused kernel's end)
    done: s_endpgm

The fused constant buffer is the group's addressing constants (kernels/constant_buffer.py: element
count, workgroup size, dimension records of the memory tensors) followed by each node's own constant
buffer, packed by compile_operator as for an unfused dispatch, at a multiple of BLOCK_ALIGNMENT.

This module assembles kernels and belongs with the kernel compiler (kernels/); it lives here while
kernels/ has another owner, and reads only kernels' public functions and its sources.
"""
import os
import re

import numpy as np

from dmlemu.functional.buffer_descriptor import DESCRIPTOR_SIZE
from dmlemu.functional.executor import Program
from dmlemu.isa.assembler import assemble, preprocess, read_source

BLOCK_ALIGNMENT = 64
_ADDRESSING = ("prologue.inc", "address.inc")
_TRANSFER = {   # (load kind) -> instructions copying a kept value into the load's destination
    "dword": ("v_mov_b32 {d}, {s}",),
    "ushort": ("v_bfe_u32 {d}, {s}, 0, 16",), "sshort": ("v_bfe_i32 {d}, {s}, 0, 16",),
    "ubyte": ("v_bfe_u32 {d}, {s}, 0, 8",), "sbyte": ("v_bfe_i32 {d}, {s}, 0, 8",),
}


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


def node_variant(info, half_precision):
    """(operator, data_type, scale_bias, half, types, activation): the arguments compile_operator gives
    variant_symbols for a validated OperatorInfo (kernels/driver.py), so a stage is the node's own kernel."""
    from dmlemu.kernels.driver import _activation_of, tensor_types
    from dmlemu.kernels.element_wise_ops import OPERATORS
    name = info.schema.name
    row = OPERATORS[name]
    types = tuple(t.type_name for t in info.tensors)
    data_type = types[row.type_tensor]
    half = bool(half_precision) and data_type == "FLOAT16"
    attributes = dict(getattr(info, "attributes", None) or info.floats)
    activation = _activation_of(attributes)[0] if row.activation else None
    variant_types = None if types == tensor_types(name, data_type) else types
    return name, data_type, info.scale_bias is not None, half, variant_types, activation


def _address_symbols(tensors, sizes, workgroup_size, layout):
    """The assembler symbols of prologue.inc and address.inc for the group's memory tensors (TensorInfo,
    inputs then outputs), the offset register of each, and the group's addressing constants."""
    from dmlemu.kernels.driver import division_magic, merge_dimensions
    strides = [tuple(t.effective_strides) for t in tensors]
    merged_sizes, merged_strides = merge_dimensions(sizes, strides)
    packed = len(merged_sizes) == 1 and all(s[0] == 1 for s in merged_strides)
    wide = not packed and (max(merged_sizes) > 1 << 24 or any(s >= 1 << 24 for st in merged_strides for s in st))
    shifts = [t.element_size.bit_length() - 1 for t in tensors]
    n = len(tensors)
    data_shift = shifts[-1]      # the packed path's v2 is the last tensor's (an output's) offset
    symbols = {"PACKED": int(packed), "SHIFT_DATA": data_shift, "HAS_T2": int(n > 2), "HAS_T3": int(n > 3),
               "MAD_OFFSET": "v_mad_u32" if wide else "v_mad_u32_u24"}
    offsets, extra = [], {}
    for i, shift in enumerate(shifts):
        symbols[f"SHIFT_T{i}"] = shift
        if not packed:
            offsets.append(f"v{2 + i}")
        elif shift == data_shift:
            offsets.append("v2")
        elif shift == 0:
            offsets.append("v1")
        else:
            offsets.append(extra.setdefault(shift, f"v{3 + len(extra)}"))
    for i in range(n, 12):           # tensors the group does not have (address.inc may know up to 12)
        symbols[f"SHIFT_T{i}"] = 0
        symbols[f"HAS_T{i}"] = int(i < n)
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
                          "RECORD_COUNT": len(merged_sizes), "SCALE": 1.0}, records, params=False)
    return symbols, offsets, header, elements


def compile_fused(plan, group, inputs, outputs, kernels, half_precision, workgroup_size):
    """The CompiledKernel of a fused group: `group` the nodes in order, `inputs` / `outputs` its memory
    tensors (graph.group_tensors), `kernels` each node's own CompiledKernel (its constant buffer and
    register use)."""
    from dmlemu.kernels.constant_buffer import LAYOUT
    from dmlemu.kernels.driver import KERNEL_DIR, CompiledKernel, variant_name, variant_symbols
    from dmlemu.kernels.element_wise_ops import OPERATORS
    nodes = plan.nodes
    tensors = [nodes[ks[0][0]].info.inputs[ks[0][1]] for ks in inputs] + \
              [nodes[k].info.outputs[o] for k, o in outputs]
    sizes = tuple(int(s) for s in nodes[group[0]].info.outputs[0].sizes)
    address, offsets, header, elements = _address_symbols(tensors, sizes, workgroup_size, LAYOUT)
    slot_of_input = {kj: i for i, ks in enumerate(inputs) for kj in ks}
    slot_of_output = {ko: len(inputs) + i for i, ko in enumerate(outputs)}
    members = set(group)
    # A memory input read by several stages is loaded by the first and copied by the later ones.
    position_of = {k: p for p, k in enumerate(group)}
    first_reader = {i: min(position_of[k] for k, _ in ks) for i, ks in enumerate(inputs)}
    shared = {i for i, ks in enumerate(inputs) if len({position_of[k] for k, _ in ks}) > 1}
    stages, blocks, at = [], [header], _align(len(header), BLOCK_ALIGNMENT)
    for position, k in enumerate(group):
        info = nodes[k].info
        name, data_type, scale_bias, half, types, activation = node_variant(info, half_precision)
        expected = variant_name(name, data_type, False, scale_bias, half, False, types, activation)
        actual = kernels[k].program.name.replace("_packed", "").replace("_wide", "")
        if actual != expected:
            raise ValueError(f"fusion: node {k} compiled as {kernels[k].program.name}, not a {expected} variant")
        symbols = variant_symbols(name, data_type, False, scale_bias, half, LAYOUT, wide=True, types=types,
                                  activation=activation)
        count = len(info.tensors)
        for i in range(count - 1):
            slot = slot_of_input.get((k, i))
            symbols[f"DESC_T{i}"] = (slot or 0) * DESCRIPTOR_SIZE
            if slot is None:
                symbols[f"OFF_T{i}"] = f"@IN{i}@"          # produced by an earlier stage
            elif slot in shared and first_reader[slot] < position:
                symbols[f"OFF_T{i}"] = f"@EXT{slot}@"      # loaded by an earlier stage
            elif slot in shared:
                symbols[f"OFF_T{i}"] = f"{offsets[slot]}@LOAD{slot}@"   # this stage loads it for the later ones
            else:
                symbols[f"OFF_T{i}"] = offsets[slot]
        out_slot = slot_of_output.get((k, 0))
        symbols[f"DESC_T{count - 1}"] = (out_slot or 0) * DESCRIPTOR_SIZE
        symbols[f"OFF_T{count - 1}"] = symbols["OFF_OUT"] = offsets[out_slot] if out_slot is not None else "@OUT@"
        for field in LAYOUT.fields:          # this node's constants: its own block of the fused buffer
            symbols[f"CB_{field.name}"] = at + field.offset
        blocks.append((at, kernels[k].constants))
        at = _align(at + len(kernels[k].constants), BLOCK_ALIGNMENT)
        path = os.path.join(KERNEL_DIR, OPERATORS[name].source)
        stages.append(preprocess(read_source(path), symbols, path).lines)
    # The values kept for later stages live above every register a node's kernel or a stage uses.
    used = [kernels[k].vgprs_used for k in group] + [int(r) for stage in stages for _, line in stage
                                                    for r in re.findall(r"\bv\[?(\d+)", line)]
    kept_base = _align(max(32, max(used) + 2), 2)
    kept = {}                           # node -> the register(s) keeping its output for later stages
    for k in group:
        if any(c in members for c, _ in plan.consumers.get((k, 0), ())):
            width = 2 if nodes[k].info.outputs[0].element_size == 8 else 1
            kept[k] = [kept_base + i for i in range(width)]
            kept_base += 2
    loaded = {}                         # memory input -> the register(s) keeping its loaded value
    for slot in sorted(shared):
        loaded[slot] = [kept_base, kept_base + 1]
        kept_base += 2
    if kept_base > 256:
        raise ValueError(f"fusion: the group keeps values up to v{kept_base - 1}; a wave has 256 VGPRs")
    lines = []
    for position, (k, stage) in enumerate(zip(group, stages)):
        lines.append(f"; ---- stage {position + 1}: {nodes[k].label}, {nodes[k].kind}")
        lines += _stage(stage, k, position, plan, members, kept, loaded)
    lines += ["done:", "    s_endpgm"]
    source = '.include "prologue.inc"\n.include "address.inc"\n' + "\n".join(lines) + "\n"
    program_name = "fused_" + "_".join(nodes[k].kind.replace("ELEMENT_WISE_", "").lower() for k in group)
    program = Program(assemble(source, address, os.path.join(KERNEL_DIR, "fused.s")), program_name)
    constants = np.zeros(_align(at, 4), dtype=np.uint8)
    constants[:len(header)] = header
    for offset, data in blocks[1:]:
        constants[offset:offset + len(data)] = data
    return CompiledKernel("FUSED", program, constants, len(tensors), elements, workgroup_size), source


def _stage(stage, k, position, plan, members, kept, loaded):
    """One node's preprocessed lines as a stage of the fused kernel (see the module docstring)."""
    out, pending = [], []               # pending: copies of loaded values to make once the loads land
    internal = {int(m.group(1)) for _, line in stage for m in [re.search(r"@IN(\d+)@", line)] if m}
    # ... and the memory inputs an earlier stage loaded: tensor t's descriptor is s[8 + 4t : 11 + 4t]
    internal |= {(int(re.search(r"s\[(\d+):\d+\]", line.split(",")[2]).group(1)) - 8) // 4
                 for _, line in stage if "@EXT" in line}
    if any("@OUT@" in line for _, line in stage):
        internal.add(len(plan.nodes[k].info.tensors) - 1)
    labels = {line[:-1] for where, line in stage if line.endswith(":")} - {"done"}
    rename = re.compile(r"\b(" + "|".join(map(re.escape, sorted(labels))) + r")\b") if labels else None
    for where, line in stage:
        if os.path.basename(where.rsplit(":", 1)[0]) in _ADDRESSING:
            continue                                  # the fused kernel's own prologue and addressing
        if line == "done:" or line.split()[0] == "s_endpgm":
            continue
        if re.fullmatch(r"s_load_dwordx4 s\[(\d+):\d+\], s\[0:1\], \d+", line):
            tensor = (int(re.match(r"s_load_dwordx4 s\[(\d+)", line).group(1)) - 8) // 4
            if tensor in internal:
                continue                              # the descriptor of a tensor kept in registers
        if rename is not None:
            line = rename.sub(lambda m: f"{m.group(1)}_s{position + 1}", line)
        mnemonic, operands = _operands(line)
        if mnemonic == "s_waitcnt" and pending:
            out.append("    " + line)
            out += pending                            # the shared inputs' loaded values, kept for later stages
            pending = []
            continue
        shared = re.search(r"@EXT(\d+)@", line)
        if shared is not None:                        # a memory input an earlier stage loaded: copy it
            destination = _registers(operands[0])
            out += [f"    v_mov_b32 v{d}, v{s}" for d, s in zip(destination, loaded[int(shared.group(1))])]
            continue
        first = re.search(r"@LOAD(\d+)@", line)
        if first is not None:                         # this stage loads it; later stages copy it
            line = line.replace(first.group(0), "")
            destination = _registers(_operands(line)[1][0])
            pending += [f"    v_mov_b32 v{s}, v{d}" for d, s in zip(destination, loaded[int(first.group(1))])]
        marker = re.search(r"@IN(\d+)@", line)
        if marker is not None:                        # an input another stage produced: copy its kept value
            source = plan.sources[(k, int(marker.group(1)))]
            kept_regs = kept[source[1]]
            kind = mnemonic[len("buffer_load_"):]
            destination = _registers(operands[0])
            if kind == "dwordx2":
                out += [f"    v_mov_b32 v{d}, v{s}" for d, s in zip(destination, kept_regs)]
            else:
                out += ["    " + t.format(d=f"v{destination[0]}", s=f"v{kept_regs[0]}") for t in _TRANSFER[kind]]
            continue
        if mnemonic.startswith("buffer_store_") and k in kept:
            value = _registers(operands[0])
            if "@OUT@" not in line:
                out.append("    " + line)                 # also read outside the group: stored as well
            out += [f"    v_mov_b32 v{d}, v{s}" for d, s in zip(kept[k], value)]
            continue
        out.append(("    " + line) if not line.endswith(":") else line)
    return out


__all__ = ["compile_fused", "node_variant", "BLOCK_ALIGNMENT"]
