"""The driver side of the kernels: the constant buffer table, the symbols, division constants.

The constant buffer layout is defined once (kernels/constant_buffer.py). These tests hold the two
readers of that table to it: every scalar load of every assembled kernel variant reads a table field
at the table's offset into the register the kernel uses for that field, the packer writes each field
at its offset, and the kernels still match the golden model when the whole layout is rearranged.
"""
import dataclasses
import glob
import itertools
import os
import re

import numpy as np
import pytest
from hypothesis import assume, given, settings, strategies as st

from dmlemu.functional.buffer_descriptor import DESCRIPTOR_SIZE
from dmlemu.isa.assembler import AssemblyError
from dmlemu.isa.disassembler import disassemble
from dmlemu.kernels import constant_buffer as cbuf
from dmlemu.kernels.constant_buffer import CONSTANTS_BYTES, FIELDS, LAYOUT, RECORD_FIELDS, Field, Layout, f32_bits
from dmlemu.kernels.element_wise_ops import OPERATORS
from dmlemu import data_types
from dmlemu.kernels.driver import (SOURCES, VARIANTS, DataTypeVariant, TensorSpec, build_program, compile_operator,
                                   division_magic, variant_symbols)

from test_kernels import check, random_strides, seeded, tensor_types

KERNEL_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "kernels")

# The scalar registers the kernel sources keep each constant buffer field in (prologue.inc: s24, s25;
# address.inc: s26 and one record in s[28:35]; element_wise_head.inc: s[38:41] and the PARAMs in s[44:51]).
FIELD_REGISTERS = {24: "ELEMENTS", 25: "WORKGROUP_SIZE", 26: "RECORD_COUNT",
                   38: "MIN", 39: "MAX", 40: "SCALE", 41: "BIAS", **{44 + i: f"PARAM{i}" for i in range(8)}}
RECORD_REGISTERS = {28: "SIZE", 29: "MAGIC", 30: "SHIFT1", 31: "SHIFT2",
                    32: "STRIDE_T0", 33: "STRIDE_T1", 34: "STRIDE_T2", 35: "STRIDE_T3"}
# The descriptor of tensor t is loaded into s[8 + 4t : 11 + 4t] (tensors 4 .. 8: s[64 + 4(t - 4) ..]).
DESCRIPTOR_REGISTERS = {8: 0, 12: 1, 16: 2, 20: 3, 64: 4, 68: 5, 72: 6, 76: 7, 80: 8}


def all_variants():
    """Every (operator, data type, packed, scale_bias, half) the kernels are written for: ScaleBias on
    FLOAT32 and FLOAT16 (not IF), half only for FLOAT16, no FLOAT64 CLIP or THRESHOLD."""
    for operator, data_type in itertools.product(sorted(SOURCES), VARIANTS):
        if data_type == "FLOAT64" and operator in ("ELEMENT_WISE_CLIP", "ELEMENT_WISE_THRESHOLD"):
            continue
        for packed, scale_bias, half in itertools.product((False, True), repeat=3):
            if half and data_type != "FLOAT16":
                continue
            if scale_bias and (operator == "ELEMENT_WISE_IF" or data_type not in ("FLOAT32", "FLOAT16")):
                continue
            yield operator, data_type, packed, scale_bias, half


_SLOAD = re.compile(r"^\s*s_load_dword(?:x(\d+))?\s+s(?:\[(\d+):\d+\]|(\d+)),\s*s\[(\d+):\d+\],\s*(\S+)\s*$")
_SMOV = re.compile(r"^\s*s_mov_b32\s+s36,\s*(\S+)\s*$")
_SADD = re.compile(r"^\s*s_add_u32\s+s36,\s*s36,\s*(\S+)\s*$")
_SMOV_WIDE = re.compile(r"^\s*s_mov_b32\s+s53,\s*(\S+)\s*$")
_SADD_WIDE = re.compile(r"^\s*s_add_u32\s+s53,\s*s53,\s*(\S+)\s*$")


def scalar_loads(dwords):
    """(first register, dwords, base register pair, offset text) of each s_load in a program."""
    loads, text = [], disassemble(list(dwords))
    for line in text.splitlines():
        m = _SLOAD.match(line)
        if m:
            loads.append((int(m.group(2) or m.group(3)), int(m.group(1) or 1), int(m.group(4)), m.group(5)))
    return loads, text


def field_at(fields, offset):
    hits = [f for f in fields if f.offset <= offset < f.end]
    assert hits, f"byte {offset} is in no field of the table"
    return hits[0]


def check_program_reads_the_layout(dwords, layout, tensors):
    """Every scalar load reads the table's fields (at their offsets) into the kernel's registers."""
    loads, text = scalar_loads(dwords)
    read, descriptors = set(), set()
    for reg, count, base, offset in loads:
        if base == 0:    # the descriptor table
            assert count == 4 and reg in DESCRIPTOR_REGISTERS, text
            t = DESCRIPTOR_REGISTERS[reg]
            assert int(offset, 0) == t * DESCRIPTOR_SIZE, f"descriptor of tensor {t} read at {offset}"
            descriptors.add(t)
            continue
        assert base == 2, text
        if offset == "s36":   # one dimension record, at CB_RECORDS + r * CB_RECORD_BYTES
            assert count == 8 and reg == 28
            for i in range(count):
                assert field_at(layout.record_fields, 4 * i).name == RECORD_REGISTERS[reg + i]
            (start,) = [int(m.group(1), 0) for m in map(_SMOV.match, text.splitlines()) if m]
            (step,) = [int(m.group(1), 0) for m in map(_SADD.match, text.splitlines()) if m]
            assert start == layout.field("RECORDS").offset and step == layout.record_bytes
            read.add("RECORDS")
            continue
        if offset == "s53":   # the wide record (strides of tensors 4 ..), at CB_WIDE_RECORDS + r * CB_RECORD_BYTES
            assert count == 8 and reg == 56
            (start,) = [int(m.group(1), 0) for m in map(_SMOV_WIDE.match, text.splitlines()) if m]
            (step,) = [int(m.group(1), 0) for m in map(_SADD_WIDE.match, text.splitlines()) if m]
            assert start == layout.field("WIDE_RECORDS").offset and step == layout.record_bytes
            read.add("WIDE_RECORDS")
            continue
        first = int(offset, 0)
        assert first in {f.offset for f in layout.fields}, f"offset {first} is not a field's offset"
        for i in range(count):
            f = field_at(layout.fields, first + 4 * i)
            assert f.offset == first + 4 * i and f.size == 4
            assert f.name == FIELD_REGISTERS[reg + i], f"s{reg + i} holds {FIELD_REGISTERS[reg + i]}, loaded {f.name}"
            read.add(f.name)
    assert descriptors == set(range(tensors))
    return read


# ---- the table --------------------------------------------------------------------------------------
def test_the_fields_do_not_overlap_and_describe_every_byte():
    ordered = sorted(FIELDS, key=lambda f: f.offset)
    assert ordered[0].offset == 0 and ordered[-1].end == CONSTANTS_BYTES == LAYOUT.total_bytes
    for a, b in zip(ordered, ordered[1:]):
        assert a.end == b.offset, f"{a.name} and {b.name}: overlap or hole"
    records = LAYOUT.field("RECORDS")
    assert records.size == LAYOUT.max_records * LAYOUT.record_bytes and LAYOUT.max_records == cbuf.MAX_RECORDS == 8
    ordered = sorted(RECORD_FIELDS, key=lambda f: f.offset)
    assert ordered[0].offset == 0 and ordered[-1].end == LAYOUT.record_bytes == cbuf.RECORD_BYTES
    for a, b in zip(ordered, ordered[1:]):
        assert a.end == b.offset, f"{a.name} and {b.name}: overlap or hole"
    assert all(f.meaning for f in FIELDS + RECORD_FIELDS)


WITHOUT_RECORDS = tuple(f for f in FIELDS if f.name != "RECORDS")


@pytest.mark.parametrize("fields, record_fields, record_bytes, message", [
    (FIELDS + (Field(name="EXTRA", offset=20, meaning="x"),), RECORD_FIELDS, 32, "overlap"),
    (WITHOUT_RECORDS + (Field(name="RECORDS", offset=28, size=256, type="records", meaning="x"),), RECORD_FIELDS,
     32, "overlap"),
    (FIELDS, RECORD_FIELDS + (Field(name="EXTRA", offset=32, meaning="x"),), 32, "does not fit"),
    (FIELDS, RECORD_FIELDS, 24, "does not fit"),
    (FIELDS + (Field(name="ODD", offset=290, meaning="x"),), RECORD_FIELDS, 32, "dword"),
    (FIELDS + (FIELDS[0],), RECORD_FIELDS, 32, "twice"),
    (WITHOUT_RECORDS, RECORD_FIELDS, 32, "RECORDS"),
    (FIELDS + (Field(name="RECORD_SIZE", offset=576, meaning="x"),), RECORD_FIELDS, 32, "same CB_ symbol"),
])
def test_a_layout_with_overlapping_or_misfit_fields_is_refused(fields, record_fields, record_bytes, message):
    with pytest.raises(ValueError, match=message):
        Layout(fields=fields, record_fields=record_fields, record_bytes=record_bytes)


def test_the_symbols_name_every_field_offset():
    symbols = LAYOUT.symbols()
    for f in FIELDS:
        assert symbols[f"CB_{f.name}"] == f.offset
    for f in RECORD_FIELDS:
        assert symbols[f"CB_RECORD_{f.name}"] == f.offset
    assert symbols["CB_RECORD_BYTES"] == LAYOUT.record_bytes and symbols["CB_BYTES"] == CONSTANTS_BYTES
    for variant in all_variants():
        syms = variant_symbols(*variant)
        assert {k: v for k, v in syms.items() if k.startswith("CB_")} == symbols
        tensors = 4 if variant[0] == "ELEMENT_WISE_IF" else 2
        assert [syms[f"DESC_T{t}"] for t in range(tensors)] == [t * DESCRIPTOR_SIZE for t in range(tensors)]


# ---- the kernel sources and the assembled variants ----------------------------------------------------
def test_the_sources_load_constants_and_descriptors_at_named_offsets_only():
    paths = sorted(glob.glob(os.path.join(KERNEL_DIR, "*.s")) + glob.glob(os.path.join(KERNEL_DIR, "*.inc")))
    assert len(paths) >= 7
    loads = 0
    for path in paths:
        with open(path, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                code = line.split(";")[0].strip()
                if code.startswith("s_load"):
                    loads += 1
                    offset = code.rsplit(",", 1)[1].strip()
                    assert re.fullmatch(r"\$\{(CB|DESC)_\w+\}|s\d+", offset), f"{path}:{number}: {offset}"
                if re.match(r"s_(mov|add)_u?\w*32\s+s36\b", code):
                    assert "${CB_" in code, f"{path}:{number}: a record offset must be a CB_ symbol"
    assert loads >= 10


@pytest.mark.parametrize("operator", sorted(SOURCES))
def test_every_variant_loads_each_field_at_the_table_offset(operator):
    read = set()
    count = 0
    for variant in all_variants():
        if variant[0] != operator:
            continue
        program = build_program(*variant)
        read |= check_program_reads_the_layout(program.dwords, LAYOUT, 4 if operator == "ELEMENT_WISE_IF" else 2)
        count += 1
    assert count >= 11
    expected = {"ELEMENTS", "WORKGROUP_SIZE", "RECORD_COUNT", "RECORDS"}
    if operator != "ELEMENT_WISE_IF":
        expected |= {"MIN", "MAX", "SCALE", "BIAS"}
    assert read == expected


def test_every_field_but_reserved_is_read_by_some_kernel():
    read = set()
    for variant in all_variants():
        read |= check_program_reads_the_layout(build_program(*variant).dwords, LAYOUT,
                                               4 if variant[0] == "ELEMENT_WISE_IF" else 2)
    assert read == {f.name for f in FIELDS} - {"RESERVED", "WIDE_RECORDS"} - set(cbuf.PARAM_FIELDS)
    for operator in sorted(OPERATORS):      # the PARAMs: read, with one load, by the operators with attributes
        program = build_program(operator, OPERATORS[operator].types[0], False, False, False)
        fields = check_program_reads_the_layout(program.dwords, LAYOUT, len(OPERATORS[operator].tensors))
        assert (set(cbuf.PARAM_FIELDS) <= fields) == bool(OPERATORS[operator].params), operator
        read |= fields
    # WIDE_RECORDS: only operators of more than 4 tensors read them (QUANTIZED_LINEAR_ADD; the test after the next)
    wide = any(len(row.tensors) > 4 for row in OPERATORS.values())
    assert read == {f.name for f in FIELDS} - {"RESERVED"} - (set() if wide else {"WIDE_RECORDS"})


def test_a_source_without_the_layout_symbols_does_not_assemble():
    symbols = variant_symbols("ELEMENT_WISE_CLIP", "FLOAT32", False, False, False)
    del symbols["CB_MIN"]
    from dmlemu.isa.assembler import assemble_file
    with pytest.raises(AssemblyError, match="CB_MIN"):
        assemble_file(os.path.join(KERNEL_DIR, "clip.s"), symbols)


# ---- the packer -----------------------------------------------------------------------------------------
def read_field(constants, f, base=0):
    return int(np.frombuffer(constants, dtype="<u4", count=1, offset=base + f.offset)[0])


def test_the_packer_writes_each_field_at_its_offset_and_nothing_else():
    values = {f.name: 1000 + i for i, f in enumerate(FIELDS) if f.type == "u32"}
    values.update({f.name: 0.5 + i for i, f in enumerate(FIELDS) if f.type == "f32"})
    records = [{f.name: 100 * r + i + 1 for i, f in enumerate(RECORD_FIELDS)} for r in range(3)]
    data = LAYOUT.pack(values, records, wide=True)
    assert data.dtype == np.uint8 and data.size == CONSTANTS_BYTES
    assert LAYOUT.pack({}, records).size == 320 and LAYOUT.pack({}, records, params=False).size == 288
    expected = np.zeros(CONSTANTS_BYTES, dtype=np.uint8)
    for f in FIELDS:
        if f.type == "records":
            continue
        bits = f32_bits(values[f.name]) if f.type == "f32" else values[f.name]
        assert read_field(data, f) == bits, f.name
        expected[f.offset:f.end] = np.frombuffer(np.uint32(bits).tobytes(), np.uint8)
    base = LAYOUT.field("RECORDS").offset
    for r, record in enumerate(records):
        for f in RECORD_FIELDS:
            at = base + r * LAYOUT.record_bytes
            assert read_field(data, f, at) == record[f.name]
            expected[at + f.offset:at + f.end] = np.frombuffer(np.uint32(record[f.name]).tobytes(), np.uint8)
    assert np.array_equal(data, expected)   # nothing else written: unused records stay zero


def test_the_packer_refuses_unknown_fields_and_values_that_do_not_fit():
    with pytest.raises(KeyError):
        LAYOUT.pack({"ELEMENT": 1})
    with pytest.raises(KeyError):
        LAYOUT.pack({}, [{"STRIDE": 1}])
    with pytest.raises(ValueError):
        LAYOUT.pack({"ELEMENTS": 1 << 32})
    with pytest.raises(ValueError):
        LAYOUT.pack({"ELEMENTS": -1})
    with pytest.raises(ValueError):
        LAYOUT.pack({"RECORDS": 0})
    with pytest.raises(ValueError):
        LAYOUT.pack({}, [{}] * (LAYOUT.max_records + 1))


def test_compile_operator_packs_the_desc_by_field():
    specs = [TensorSpec("FLOAT16", (3, 5, 7), (1, 3, 15)), TensorSpec("FLOAT16", (3, 5, 7))]
    kernel = compile_operator("ELEMENT_WISE_CLIP", specs, min_value=-1.5, max_value=2.25, scale_bias=(0.5, -3.0),
                              workgroup_size=64)
    c = kernel.constants
    value = lambda name: read_field(c, LAYOUT.field(name))
    assert value("ELEMENTS") == 105 and value("WORKGROUP_SIZE") == 64 and value("RECORD_COUNT") == 3
    assert [value(n) for n in ("MIN", "MAX", "SCALE", "BIAS")] == [f32_bits(v) for v in (-1.5, 2.25, 0.5, -3.0)]
    base = LAYOUT.field("RECORDS").offset
    for r, (size, strides) in enumerate([(7, (15, 1)), (5, (3, 7)), (3, (1, 35))]):   # innermost first
        at = base + r * LAYOUT.record_bytes
        record = {f.name: read_field(c, f, at) for f in RECORD_FIELDS}
        magic, s1, s2 = division_magic(size)
        assert record == {"SIZE": size, "MAGIC": magic, "SHIFT1": s1, "SHIFT2": s2, "STRIDE_T0": strides[0],
                          "STRIDE_T1": strides[1], "STRIDE_T2": 0, "STRIDE_T3": 0}
    assert not c[base + 3 * LAYOUT.record_bytes:].any()


# ---- a rearranged layout: nothing else may hard-code an offset ---------------------------------------------
def rearranged_layout():
    """Every field somewhere else: Min..Bias, the PARAMs and a record's fields stay consecutive (one load each)."""
    header = {"RECORD_COUNT": 0, "MIN": 8, "MAX": 12, "SCALE": 16, "BIAS": 20, "RESERVED": 24, "ELEMENTS": 44,
              "WORKGROUP_SIZE": 60}
    header.update({f"PARAM{i}": 392 + 4 * i for i in range(8)})
    header["WIDE_RECORDS"] = 424
    fields = tuple(dataclasses.replace(f, offset=header[f.name]) for f in FIELDS if f.type != "records")
    fields += (dataclasses.replace(LAYOUT.field("RECORDS"), offset=72, size=8 * 40),
               dataclasses.replace(LAYOUT.field("WIDE_RECORDS"), offset=424, size=8 * 40))
    return Layout(fields=fields, record_fields=RECORD_FIELDS, record_bytes=40)


OTHER = rearranged_layout()
REARRANGED_CASES = [
    ("ELEMENT_WISE_CLIP", "FLOAT16", dict(min_value=-0.75, max_value=1.5, scale_bias=(1.5, -0.25))),
    ("ELEMENT_WISE_CLIP", "INT64", dict(min_value=-20.0, max_value=90.0)),
    ("ELEMENT_WISE_THRESHOLD", "UINT8", dict(min_value=100.0)),
    ("ELEMENT_WISE_THRESHOLD", "FLOAT32", dict(min_value=0.25, scale_bias=(2.0, 0.5))),
    ("ELEMENT_WISE_IDENTITY", "FLOAT16", dict(scale_bias=(-1.0, 3.0), half_precision=True)),
    ("ELEMENT_WISE_IDENTITY", "FLOAT64", {}),
    ("ELEMENT_WISE_IF", "INT16", {}),
    ("ELEMENT_WISE_IF", "UINT64", {}),
]


def test_the_rearranged_layout_really_moves_every_field():
    for f in FIELDS:
        assert OTHER.field(f.name).offset != f.offset, f.name
    assert OTHER.record_bytes != LAYOUT.record_bytes
    program = build_program("ELEMENT_WISE_IF", "INT16", False, False, False, OTHER)
    check_program_reads_the_layout(program.dwords, OTHER, 4)
    assert program.dwords != build_program("ELEMENT_WISE_IF", "INT16", False, False, False).dwords


@pytest.mark.parametrize("operator, data_type, args", REARRANGED_CASES)
def test_the_kernels_follow_a_rearranged_layout(operator, data_type, args):
    """Packer and kernels both follow the table: rearrange it and the results stay bit-exact."""
    rng = seeded("rearranged", operator, data_type)
    sizes = [3, 5, 7]
    types = tensor_types(operator, data_type)
    strides = [random_strides(rng, sizes, t == len(types) - 1) for t in range(len(types))]
    for layout_strides in (None, strides):     # the packed path and the general addressing path
        check(operator, data_type, sizes, strides=layout_strides, rng=rng, width=8,
              args=dict(args, layout=OTHER, workgroup_size=16))


# ---- variants and division constants ---------------------------------------------------------------------
def test_variant_rows_take_named_fields_only():
    assert all(isinstance(v, DataTypeVariant) for v in VARIANTS.values())
    with pytest.raises(TypeError):
        DataTypeVariant(data_types.BY_NAME["FLOAT32"], "dword", "dword", "f32", "none")
    assert VARIANTS["INT8"] == DataTypeVariant(data_type=data_types.BY_NAME["INT8"], load="sbyte", store="byte",
                                               compute="i32", bound_cvt="v_cvt_i8_f32")
    for name, v in VARIANTS.items():
        assert v.size == (1 if name.endswith("8") else 2 if name.endswith("16") else 8 if name.endswith("64") else 4)
        assert v.pair == (v.size == 8) and v.is_float == name.startswith("FLOAT")


def divide(n, d):
    magic, s1, s2 = division_magic(d)
    t = (n * magic) >> 32
    return (t + ((n - t) >> s1)) >> s2


@settings(max_examples=400, deadline=None)
@given(st.integers(1, 2 ** 32 - 1), st.lists(st.integers(0, 2 ** 32 - 1), min_size=1, max_size=20))
def test_division_magic_is_exact(d, numerators):
    magic, s1, s2 = division_magic(d)
    assert 0 <= magic < 2 ** 32 and s1 in (0, 1) and 0 <= s2 < 32
    for n in numerators + [0, d - 1, d, d + 1, 2 ** 32 - 1, (2 ** 32 - 1) // d * d]:
        if 0 <= n < 2 ** 32:
            assert divide(n, d) == n // d, (n, d)


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 31), st.integers(-2, 2), st.integers(0, 2 ** 32 - 1))
def test_division_magic_is_exact_near_powers_of_two(k, delta, n):
    d = (1 << k) + delta
    assume(1 <= d < 2 ** 32)
    assert divide(n, d) == n // d, (n, d)


@pytest.mark.parametrize("d", [0, -1, 2 ** 32])
def test_division_magic_refuses_divisors_out_of_range(d):
    with pytest.raises(ValueError):
        division_magic(d)


def test_wide_general_paths_use_32_bit_multiply_adds_and_stay_bit_exact():
    """A stride of 2^24 elements does not fit the 24-bit multiply-add: the _wide variant places the
    elements with v_mad_u32 and gives the golden model's bits; narrow strides use v_mad_u32_u24."""
    import numpy as np
    from dmlemu import golden
    from dmlemu.direct_run import DirectRun
    from dmlemu.gpu import Gpu
    from dmlemu.presets import TEACHING
    from dmlemu.isa.encoding import format_instruction
    from dmlemu.isa.encoding import decode
    strides = (1 << 24, 1)
    span = (1 << 24) + 3
    x = np.random.default_rng(7).integers(0, 255, span, dtype=np.uint8)
    gpu = Gpu(TEACHING, timing=False)
    for sizes_, strides_, wide in (((2, 3), strides, True), ((2, 3), (5, 1), False)):
        source = TensorSpec("UINT8", sizes_, strides_, span)
        out = TensorSpec("UINT8", sizes_, None, 6)
        run = DirectRun(gpu, "ELEMENT_WISE_CLIP", [source, out], [x, np.zeros(6, np.uint8)],
                        min_value=10.0, max_value=200.0)
        assert run.kernel.program.name.endswith("_wide") == wide
        texts = [format_instruction(i) for _, i in decode(run.kernel.program.dwords)]
        assert any(t.startswith("v_mad_u32 " if wide else "v_mad_u32_u24 ") for t in texts)
        run.dispatch()
        expected = golden.clip(golden.gather(x, 0, np.uint8, sizes_, strides_), 10.0, 200.0)
        assert np.array_equal(run.output_bytes()[:6].reshape(sizes_), expected)
        run.free()


@pytest.mark.parametrize("operator, data_type, attributes", [
    ("ELEMENT_WISE_ADD1", "FLOAT16", {"FusedActivation": ("ACTIVATION_LINEAR", {"Alpha": 1.5, "Beta": -0.25})}),
    ("ELEMENT_WISE_CLIP1", "INT64", {"Min": np.int64(-(1 << 40)), "Max": np.int64(1 << 41)}),
    ("ELEMENT_WISE_ROUND", "FLOAT32", {"RoundingMode": 2}),
])
def test_the_attribute_dwords_follow_a_rearranged_layout(operator, data_type, attributes):
    """The PARAM dwords move with the table too (they are loaded at CB_PARAM0, wherever that is)."""
    from element_wise_cases import check_operator, seeded as seeded_case
    rng = seeded_case("rearranged-params", operator)
    program = build_program(operator, data_type, True, False, False, OTHER,
                            activation="ACTIVATION_LINEAR" if operator == "ELEMENT_WISE_ADD1" else None)
    assert set(cbuf.PARAM_FIELDS) <= check_program_reads_the_layout(program.dwords, OTHER,
                                                                    len(OPERATORS[operator].tensors))
    check_operator(operator, data_type, [3, 5, 7], rng=rng, attributes=attributes, width=8)
    from dmlemu.gpu import Gpu
    from dmlemu.presets import TEACHING
    from dmlemu.direct_run import DirectRun
    from dmlemu import golden
    sizes, types = [3, 5, 7], [data_type] * len(OPERATORS[operator].tensors)
    specs = [TensorSpec(t, tuple(sizes), None, golden.calc_buffer_tensor_size(t, sizes)) for t in types]
    buffers = [rng.integers(0, 256, size=s.total_bytes, dtype=np.uint8) for s in specs]
    gpu = Gpu(TEACHING, wave_width=8)
    runs = [DirectRun(gpu, operator, specs, buffers, attributes=attributes, layout=layout) for layout in (LAYOUT, OTHER)]
    for run in runs:
        run.dispatch()
    assert np.array_equal(runs[0].output_bytes(), runs[1].output_bytes())
    assert runs[1].kernel.constants.size == OTHER.bytes_for(params=True, wide=False)   # no WIDE_RECORDS


def test_operators_of_more_than_four_tensors_read_the_wide_records(monkeypatch):
    """Nine tensors (QUANTIZED_LINEAR_ADD's count): descriptors in s[64:83], the strides of tensors 4 .. 8 from
    WIDE_RECORDS, record by record, with the same record size; both layouts."""
    from dmlemu.kernels.element_wise_ops import ElementWiseOperator
    row = ElementWiseOperator(name="TEST_NINE", tensors=tuple(f"T{i}" for i in range(9)), types=("FLOAT32",),
                              body_name="ADD_EVERY_INPUT")
    monkeypatch.setitem(OPERATORS, "TEST_NINE", row)
    for layout in (LAYOUT, OTHER):
        program = build_program("TEST_NINE", "FLOAT32", False, False, False, layout)
        assert "WIDE_RECORDS" in check_program_reads_the_layout(program.dwords, layout, 9)
    kernel = compile_operator("TEST_NINE", [TensorSpec("FLOAT32", (2, 3), (3, t + 1) if t < 8 else None)
                                            for t in range(9)])
    wide = LAYOUT.field("WIDE_RECORDS").offset
    strides = np.frombuffer(kernel.constants[wide:wide + 2 * LAYOUT.record_bytes], dtype="<u4").reshape(2, 8)
    assert strides[:, :5].tolist() == [[5, 6, 7, 8, 1], [3, 3, 3, 3, 3]]   # innermost first; T8 packed
