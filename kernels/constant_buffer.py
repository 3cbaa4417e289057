"""The kernels' constant buffer: one table of fields, shared by the packer and the kernel sources.

`FIELDS` lists every field of the buffer (name, byte offset, size, type, meaning); the dimension
records at `RECORDS` are described by `RECORD_FIELDS`, with offsets inside one record. Both sides
read these tables and nothing else:
  * the packer, `Layout.pack`, writes fields by name (kernels/driver.py calls it);
  * the kernel sources load fields at `${CB_<NAME>}` offsets: `Layout.symbols` gives the assembler
    one symbol per field (CB_ELEMENTS, CB_MIN, CB_RECORD_MAGIC, ...) plus CB_RECORD_BYTES,
    CB_MAX_RECORDS and CB_BYTES, and driver.variant_symbols passes them to every kernel variant.

The same table lives in the persistent resource: CompileOperator packs it once, the operator's
initializer dispatch copies it into the persistent resource (kernels/initialize.s, whose own small
constants are COPY_FIELDS below), and every execution reads it there (the launch's s[2:3]).

Three orderings are part of the kernels' code, not only of this table: element_wise_head.inc loads
Min, Max, Scale and Bias with one s_load_dwordx4 from CB_MIN (so the four must be consecutive dwords,
in that order) and PARAM0 .. PARAM7 with one s_load_dwordx8 from CB_PARAM0, and address.inc loads a
whole record with one s_load_dwordx8 (so a record's fields must be consecutive dwords: size, magic,
shift1, shift2, stride of tensor 0 to 3). Any other offset may change here alone;
tests/kernels/test_kernel_driver.py runs the kernels with a rearranged layout to prove it.

Operators of more than 4 tensors also read WIDE_RECORDS, the strides of tensors 4 .. 11 per dimension
record (the same record size and order as RECORDS, loaded with one s_load_dwordx8 per record).
A buffer ends with the last field its kernel reads (`Layout.pack(..., params=, wide=)`): 288 bytes with
this layout for an operator without attributes, 320 with them, 576
with WIDE_RECORDS.
"""
import struct
from dataclasses import dataclass

import numpy as np

MAX_RECORDS = 8      # DirectML tensors have at most 8 dimensions: one record per merged dimension
RECORD_BYTES = 32    # one dimension record: 8 dwords


@dataclass(frozen=True, kw_only=True)
class Field:
    """One field of the constant buffer (or of a dimension record)."""
    name: str            # the assembler symbol is CB_<name> (CB_RECORD_<name> for a record field)
    offset: int          # bytes from the start of the buffer (of the record)
    size: int = 4        # bytes
    type: str = "u32"    # u32: an unsigned 32-bit integer; f32: FLOAT32 bits; records: the record array
    meaning: str

    @property
    def end(self):
        return self.offset + self.size


FIELDS = (
    Field(name="ELEMENTS", offset=0, meaning="element count of the output tensor (lanes past it do nothing)"),
    Field(name="WORKGROUP_SIZE", offset=4, meaning="threads per workgroup (first element of a workgroup = id * this)"),
    Field(name="RECORD_COUNT", offset=8, meaning="number of dimension records in use (merged dimensions), 1 or more"),
    Field(name="RESERVED", offset=12, meaning="unused, zero"),
    Field(name="MIN", offset=16, type="f32", meaning="Min of CLIP and THRESHOLD (FLOAT32 bits; 0 otherwise)"),
    Field(name="MAX", offset=20, type="f32", meaning="Max of CLIP (FLOAT32 bits; 0 otherwise)"),
    Field(name="SCALE", offset=24, type="f32", meaning="ScaleBias Scale (FLOAT32 bits; 1.0 without ScaleBias)"),
    Field(name="BIAS", offset=28, type="f32", meaning="ScaleBias Bias (FLOAT32 bits; 0.0 without ScaleBias)"),
    Field(name="RECORDS", offset=32, size=MAX_RECORDS * RECORD_BYTES, type="records",
          meaning="dimension records (RECORD_FIELDS), innermost dimension first; unused records are zero"),
) + tuple(
    Field(name=f"PARAM{i}", offset=288 + 4 * i,
          meaning=f"attribute dword {i} of the operator and its FusedActivation (kernels/element_wise_ops.py "
                  f"says which; FLOAT32 bits or the tensor type's bits); absent for operators without any")
    for i in range(8)) + (
    Field(name="WIDE_RECORDS", offset=320, size=MAX_RECORDS * RECORD_BYTES, type="records",
          meaning="the strides of tensors 4 .. 11 per dimension record (WIDE_RECORD_FIELDS), same order and "
                  "record size as RECORDS; absent for operators of at most 4 tensors"),
)
PARAM_FIELDS = tuple(f"PARAM{i}" for i in range(8))

RECORD_FIELDS = (
    Field(name="SIZE", offset=0, meaning="size of the dimension (the divisor)"),
    Field(name="MAGIC", offset=4, meaning="division_magic: multiplier for index / size"),
    Field(name="SHIFT1", offset=8, meaning="division_magic: first shift"),
    Field(name="SHIFT2", offset=12, meaning="division_magic: second shift"),
    Field(name="STRIDE_T0", offset=16, meaning="stride of tensor 0 in elements (two's complement; 0 broadcasts)"),
    Field(name="STRIDE_T1", offset=20, meaning="stride of tensor 1 in elements"),
    Field(name="STRIDE_T2", offset=24, meaning="stride of tensor 2 in elements (ELEMENT_WISE_IF only, else 0)"),
    Field(name="STRIDE_T3", offset=28, meaning="stride of tensor 3 in elements (ELEMENT_WISE_IF only, else 0)"),
)


WIDE_RECORD_FIELDS = tuple(
    Field(name=f"STRIDE_T{t}", offset=4 * (t - 4), meaning=f"stride of tensor {t} in elements (operators of more "
                                                          f"than 4 tensors)")
    for t in range(4, 12))


def f32_bits(value):
    """The FLOAT32 bit pattern of a number (rounded to FLOAT32 first), as an unsigned integer."""
    return struct.unpack("<I", struct.pack("<f", float(np.float32(value))))[0]


def _check_fields(fields, total, what):
    names = set()
    for f in fields:
        if f.name in names:
            raise ValueError(f"{what}: field {f.name} defined twice")
        names.add(f.name)
        if f.offset < 0 or f.offset % 4 or f.size <= 0 or f.size % 4:
            raise ValueError(f"{what}: field {f.name} must be whole dwords at a dword offset")
        if f.end > total:
            raise ValueError(f"{what}: field {f.name} (bytes {f.offset}..{f.end}) does not fit in {total} bytes")
        if f.type not in ("u32", "f32", "records") or (f.type != "records" and f.size != 4):
            raise ValueError(f"{what}: field {f.name} has type {f.type} and size {f.size}")
    ordered = sorted(fields, key=lambda f: f.offset)
    for a, b in zip(ordered, ordered[1:]):
        if b.offset < a.end:
            raise ValueError(f"{what}: fields {a.name} and {b.name} overlap")


@dataclass(frozen=True, kw_only=True)
class Layout:
    """A constant buffer layout: the buffer's fields, and the fields of one dimension record."""
    fields: tuple = FIELDS
    record_fields: tuple = RECORD_FIELDS
    record_bytes: int = RECORD_BYTES
    wide_record_fields: tuple = WIDE_RECORD_FIELDS

    def __post_init__(self):
        _check_fields(self.record_fields, self.record_bytes, "dimension record")
        _check_fields(self.wide_record_fields, self.record_bytes, "wide dimension record")
        if any(f.type == "records" for f in self.record_fields + self.wide_record_fields):
            raise ValueError("a dimension record cannot hold records")
        records = [f for f in self.fields if f.type == "records" and f.name != "WIDE_RECORDS"]
        if len(records) != 1 or records[0].name != "RECORDS":
            raise ValueError("the layout needs exactly one records field, named RECORDS")
        if records[0].size % self.record_bytes:
            raise ValueError("RECORDS must be a whole number of records")
        wide = [f for f in self.fields if f.name == "WIDE_RECORDS"]
        if wide and (wide[0].type != "records" or wide[0].size != records[0].size):
            raise ValueError("WIDE_RECORDS must be records of the size of RECORDS")
        _check_fields(self.fields, max(f.end for f in self.fields), "constant buffer")
        if len(self.symbols()) != len(self.fields) + len(self.record_fields) + len(self.wide_record_fields) + 3:
            raise ValueError("two fields would get the same CB_ symbol")

    @property
    def total_bytes(self):
        return max(f.end for f in self.fields)

    @property
    def max_records(self):
        return self.field("RECORDS").size // self.record_bytes

    def field(self, name):
        for f in self.fields:
            if f.name == name:
                return f
        raise KeyError(f"the constant buffer has no field {name}")

    def record_field(self, name):
        for f in self.record_fields:
            if f.name == name:
                return f
        raise KeyError(f"a dimension record has no field {name}")

    def wide_record_field(self, name):
        for f in self.wide_record_fields:
            if f.name == name:
                return f
        raise KeyError(f"a wide dimension record has no field {name}")

    def symbols(self):
        """The assembler symbols of this layout: CB_<NAME> = byte offset of each field, and so on."""
        symbols = {f"CB_{f.name}": f.offset for f in self.fields}
        symbols.update({f"CB_RECORD_{f.name}": f.offset for f in self.record_fields})
        symbols.update({f"CB_WIDE_RECORD_{f.name}": f.offset for f in self.wide_record_fields})
        symbols.update(CB_RECORD_BYTES=self.record_bytes, CB_MAX_RECORDS=self.max_records, CB_BYTES=self.total_bytes)
        return symbols

    @property
    def bytes_without_params(self):
        """The buffer's size for a kernel that reads neither a PARAM field nor WIDE_RECORDS: up to the end of
        the last other field."""
        return self.bytes_for(params=False, wide=False)

    def bytes_for(self, params, wide):
        """The buffer's size for a kernel that reads the PARAM fields (`params`) and WIDE_RECORDS (`wide`) or
        not: up to the end of the last field it reads."""
        skipped = (() if params else PARAM_FIELDS) + (() if wide else ("WIDE_RECORDS",))
        return max(f.end for f in self.fields if f.name not in skipped)

    def pack(self, values, records=(), params=True, wide=None):
        """The buffer's bytes (a uint8 array): `values` maps field names to numbers (u32 fields take
        integers in 0 .. 2**32-1, f32 fields any number, stored as FLOAT32 bits); `records` is one
        {record field name: integer} per dimension, innermost first (STRIDE_T4 .. go to WIDE_RECORDS).
        Anything not given is zero. `params=False`: the kernel reads no PARAM field; `wide=False`: no
        WIDE_RECORDS (default: whether a record names a tensor past 3); the buffer ends after the last
        field the kernel reads."""
        records = list(records)
        if len(records) > self.max_records:
            raise ValueError(f"{len(records)} dimension records; the constant buffer holds {self.max_records}")
        words = np.zeros(self.total_bytes // 4, dtype=np.uint32)
        for name, value in values.items():
            f = self.field(name)
            if f.type == "records":
                raise ValueError("dimension records are passed as `records`")
            words[f.offset // 4] = _encode(f, value)
        base = self.field("RECORDS").offset
        wide_names = {f.name for f in self.wide_record_fields}
        if wide is None:
            wide = any(name in wide_names for record in records for name in record)
        for r, record in enumerate(records):
            for name, value in record.items():
                if name in wide_names:
                    if not wide:
                        raise ValueError(f"{name} given for a buffer without WIDE_RECORDS")
                    f = self.wide_record_field(name)
                    at = self.field("WIDE_RECORDS").offset + r * self.record_bytes + f.offset
                else:
                    f = self.record_field(name)
                    at = base + r * self.record_bytes + f.offset
                words[at // 4] = _encode(f, value)
        data = words.view(np.uint8).copy()
        if not params and any(name in PARAM_FIELDS for name in values):
            raise ValueError("PARAM fields given for a buffer without them")
        return data[:self.bytes_for(params, wide)].copy()


def _encode(field, value):
    if field.type == "f32":
        return f32_bits(value)
    value = int(value)
    if not 0 <= value < 1 << 32:
        raise ValueError(f"{field.name} = {value} does not fit in an unsigned 32-bit field")
    return value


LAYOUT = Layout()
CONSTANTS_BYTES = LAYOUT.total_bytes

# The constants of one initializer copy (kernels/initialize.s): its symbols are CB_COPY_<NAME>.
# DWORDS .. RESERVED are loaded with one s_load_dwordx4 and SOURCE_LO, SOURCE_HI with one
# s_load_dwordx2, so each group stays consecutive and in this order.
COPY_FIELDS = (
    Field(name="DWORDS", offset=0, meaning="dwords to copy (one per lane)"),
    Field(name="WORKGROUP_SIZE", offset=4, meaning="threads per workgroup"),
    Field(name="DESTINATION_OFFSET", offset=8, meaning="byte offset of the region in the persistent resource"),
    Field(name="RESERVED", offset=12, meaning="unused, zero"),
    Field(name="SOURCE_LO", offset=16, meaning="GPU address of the source's buffer descriptor, bits 0..31"),
    Field(name="SOURCE_HI", offset=20, meaning="GPU address of the source's buffer descriptor, bits 32..63"),
)
COPY_BYTES = 32   # the copy constants; bytes 24..31 are zero
_check_fields(COPY_FIELDS, COPY_BYTES, "copy constants")


def copy_symbols():
    """The assembler symbols of the copy constants: CB_COPY_<NAME> = byte offset of each field."""
    return {f"CB_COPY_{f.name}": f.offset for f in COPY_FIELDS}


def pack_copy(values):
    """The copy constants' bytes (a uint8 array of COPY_BYTES): `values` maps COPY_FIELDS names to
    integers in 0 .. 2**32-1; anything not given is zero."""
    words = np.zeros(COPY_BYTES // 4, dtype=np.uint32)
    by_name = {f.name: f for f in COPY_FIELDS}
    for name, value in values.items():
        if name not in by_name:
            raise KeyError(f"the copy constants have no field {name}")
        words[by_name[name].offset // 4] = _encode(by_name[name], value)
    return words.view(np.uint8).copy()

__all__ = ["Field", "Layout", "FIELDS", "PARAM_FIELDS", "WIDE_RECORD_FIELDS", "RECORD_FIELDS", "LAYOUT", "MAX_RECORDS", "RECORD_BYTES",
           "CONSTANTS_BYTES", "f32_bits", "COPY_FIELDS", "COPY_BYTES", "copy_symbols", "pack_copy"]
