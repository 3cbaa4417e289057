"""Root signatures: D3D12SerializeRootSignature, ID3DBlob and ID3D12RootSignature.

A root signature says what a shader's root arguments are: descriptor tables (ranges of descriptors
in the shader-visible CBV_SRV_UAV heap), 32-bit root constants, and root CBV / SRV / UAV descriptors
(a GPU virtual address each). D3D12SerializeRootSignature checks a D3D12_ROOT_SIGNATURE_DESC
(version 1.0) and packs it into a blob; CreateRootSignature reads a blob back (untrusted bytes: the
same checks run again on what it decodes) and makes one ID3D12RootSignature per call.

Blob layout (ours; D3D12's is a DXBC container), little-endian dwords: magic 'DMRS', version (1),
NumParameters, NumStaticSamplers (0), Flags, then per parameter its ParameterType and
ShaderVisibility and then: a table's range count and 5 dwords per range (RangeType,
NumDescriptors, BaseShaderRegister, RegisterSpace, OffsetInDescriptorsFromTableStart); constants'
ShaderRegister, RegisterSpace, Num32BitValues; a root descriptor's ShaderRegister, RegisterSpace.

The rules checked are D3D12's for version 1.0: a known ParameterType, ShaderVisibility and range
type; at least one range per table and one descriptor per range (0xFFFFFFFF: unbounded, only as
the table's last range); no SAMPLER range beside CBV/SRV/UAV ranges; register ranges that do not
overlap for shaders that see both; a cost of at most D3D12_MAX_ROOT_COST (64) DWORDs (a table 1,
a constant 1 each, a root descriptor 2). Samplers are not emulated: static samplers and SAMPLER
ranges are E_NOTIMPL. Compute shaders see only parameters of D3D12_SHADER_VISIBILITY_ALL.
"""
from dataclasses import dataclass

from dmlemu.com import COMObject, check_flags, enum_name, is_integer, is_one_of
from dmlemu.d3d12.base import DeviceChild, invalid_arg
from dmlemu.d3d12.enums import (
    D3D12_DESCRIPTOR_RANGE_OFFSET_APPEND, D3D12_DESCRIPTOR_RANGE_TYPE, D3D12_DESCRIPTOR_RANGE_TYPE_CBV,
    D3D12_DESCRIPTOR_RANGE_TYPE_SAMPLER, D3D12_DESCRIPTOR_RANGE_TYPE_SRV, D3D12_DESCRIPTOR_RANGE_TYPE_UAV,
    D3D12_MAX_ROOT_COST, D3D12_ROOT_PARAMETER_TYPE, D3D12_ROOT_PARAMETER_TYPE_32BIT_CONSTANTS,
    D3D12_ROOT_PARAMETER_TYPE_CBV, D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE, D3D12_ROOT_PARAMETER_TYPE_SRV,
    D3D12_ROOT_PARAMETER_TYPE_UAV, D3D12_ROOT_SIGNATURE_FLAGS, D3D12_SHADER_VISIBILITY, D3D12_SHADER_VISIBILITY_ALL,
    D3D_ROOT_SIGNATURE_VERSION, D3D_ROOT_SIGNATURE_VERSION_1_0)
from dmlemu.d3d12.structs import D3D12_ROOT_SIGNATURE_DESC
from dmlemu.errors import E_INVALIDARG, E_NOTIMPL, HResultError

__all__ = ["D3D12SerializeRootSignature", "ID3DBlob", "ID3D12RootSignature"]

MAGIC = 0x53524D44          # b"DMRS" as a little-endian dword
TABLE, CONSTANTS, ROOT_CBV, ROOT_SRV, ROOT_UAV = (int(D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE),
                                                  int(D3D12_ROOT_PARAMETER_TYPE_32BIT_CONSTANTS),
                                                  int(D3D12_ROOT_PARAMETER_TYPE_CBV),
                                                  int(D3D12_ROOT_PARAMETER_TYPE_SRV),
                                                  int(D3D12_ROOT_PARAMETER_TYPE_UAV))
SRV, UAV, CBV, SAMPLER = (int(D3D12_DESCRIPTOR_RANGE_TYPE_SRV), int(D3D12_DESCRIPTOR_RANGE_TYPE_UAV),
                          int(D3D12_DESCRIPTOR_RANGE_TYPE_CBV), int(D3D12_DESCRIPTOR_RANGE_TYPE_SAMPLER))
UNBOUNDED = 0xFFFFFFFF
APPEND = int(D3D12_DESCRIPTOR_RANGE_OFFSET_APPEND)
LETTER = {SRV: "t", UAV: "u", CBV: "b", SAMPLER: "s"}
ROOT_DESCRIPTOR_KIND = {ROOT_CBV: CBV, ROOT_SRV: SRV, ROOT_UAV: UAV}
_UINT = 0xFFFFFFFF
MAX_BLOB_BYTES = 1 << 16


@dataclass(frozen=True)
class Range:
    """A descriptor range with its offset resolved (APPEND replaced by the running offset)."""
    kind: int
    count: int            # UNBOUNDED for an unbounded range
    base: int
    space: int
    offset: int           # descriptors from the table's start


@dataclass(frozen=True)
class Parameter:
    """A root parameter as the emulator keeps it."""
    type: int
    visibility: int
    ranges: tuple = ()    # tables: Range records
    register: int = 0     # constants and root descriptors
    space: int = 0
    values: int = 0       # constants: Num32BitValues

    @property
    def cost(self):
        """DWORDs of the root signature's 64 it takes."""
        return 1 if self.type == TABLE else self.values if self.type == CONSTANTS else 2


class ID3DBlob(COMObject):
    """A read-only buffer of bytes (ID3D10Blob): GetBufferPointer and GetBufferSize."""

    def __init__(self, data):
        self._data = bytes(data)

    def GetBufferPointer(self):
        """The blob's bytes (a C pointer to them)."""
        return self._data

    def GetBufferSize(self):
        return len(self._data)

    def __repr__(self):
        return f"<ID3DBlob {len(self._data)} bytes>"


class ID3D12RootSignature(DeviceChild):
    """A root signature made from a serialized blob."""

    _kind = "root signature"

    def __init__(self, device, parameters, flags, blob):
        super().__init__(device)
        self._parameters = parameters
        self._flags = flags
        self._blob = blob     # compatibility: two root signatures with the same bytes are the same layout

    def _same_layout(self, other):
        return other is self or (isinstance(other, ID3D12RootSignature) and other._blob == self._blob)

    def _locate(self, kind, register, space):
        """Where a compute shader's binding comes from: (parameter index, Parameter, descriptor offset in the
        table or None) for the parameter of visibility ALL covering register `register` of `space`
        for `kind` ('t', 'u', 'b' descriptor or 'c' root constants), or None."""
        for index, p in enumerate(self._parameters):
            if p.visibility != D3D12_SHADER_VISIBILITY_ALL:
                continue
            if p.type == TABLE:
                for r in p.ranges:
                    if LETTER[r.kind] == kind and r.space == space and register >= r.base and \
                            (r.count == UNBOUNDED or register < r.base + r.count):
                        return index, p, r.offset + register - r.base
            elif p.register == register and p.space == space:
                if (p.type == CONSTANTS and kind == "c") or \
                        (p.type in ROOT_DESCRIPTOR_KIND and LETTER[ROOT_DESCRIPTOR_KIND[p.type]] == kind):
                    return index, p, None
        return None

    def _describe(self, index):
        p = self._parameters[index]
        return f"root parameter {index} ({enum_name(D3D12_ROOT_PARAMETER_TYPE, p.type)})"


# ---- checking a desc ------------------------------------------------------------------------------------
def _fail(where, message, code=E_INVALIDARG):
    raise HResultError(code, f"{where}{message}")


def _uint(where, value):
    if not is_integer(value) or not 0 <= int(value) <= _UINT:
        _fail("", f"{where} is {value!r}; it must be a UINT (0 to {_UINT}).")
    return int(value)


def _sequence(where, value, count, count_where):
    if value is None:
        value = ()
    if not isinstance(value, (list, tuple)):
        _fail("", f"{where} is {value!r}; it must be a sequence (the C count and array) or None.")
    if count is not None and (not is_integer(count) or int(count) != len(value)):
        _fail("", f"{count_where} is {count!r}, but {where} has {len(value)} entries; they must agree.")
    return tuple(value)


def _check_parameters(desc, where):
    """The desc's parameters as Parameter records, or HResultError naming the first broken rule."""
    from dmlemu.d3d12.structs import D3D12_ROOT_PARAMETER, D3D12_DESCRIPTOR_RANGE
    params = _sequence(f"{where}.pParameters", desc.pParameters, desc.explicit_count("NumParameters"),
                       f"{where}.NumParameters")
    samplers = _sequence(f"{where}.pStaticSamplers", desc.pStaticSamplers,
                         desc.explicit_count("NumStaticSamplers"), f"{where}.NumStaticSamplers")
    if samplers:
        _fail("", f"{where} has {len(samplers)} static samplers; the emulator has no samplers.", E_NOTIMPL)
    try:
        flags = check_flags(desc.Flags, D3D12_ROOT_SIGNATURE_FLAGS, f"{where}.Flags")
    except HResultError as error:
        _fail("", error.message)
    out = []
    for i, p in enumerate(params):
        at = f"{where}.pParameters[{i}]"
        if not isinstance(p, D3D12_ROOT_PARAMETER):
            _fail("", f"{at} is {p!r}; it must be a D3D12_ROOT_PARAMETER.")
        if not is_one_of(p.ParameterType, D3D12_ROOT_PARAMETER_TYPE._c_names_):
            _fail("", f"{at}.ParameterType is {p.ParameterType!r}; it must be a D3D12_ROOT_PARAMETER_TYPE "
                      "(DESCRIPTOR_TABLE, 32BIT_CONSTANTS, CBV, SRV or UAV).")
        if not is_one_of(p.ShaderVisibility, D3D12_SHADER_VISIBILITY._c_names_):
            _fail("", f"{at}.ShaderVisibility is {p.ShaderVisibility!r}; it must be a D3D12_SHADER_VISIBILITY.")
        kind, visibility = int(p.ParameterType), int(p.ShaderVisibility)
        if kind == TABLE:
            t = p.DescriptorTable
            ranges = _sequence(f"{at}.DescriptorTable.pDescriptorRanges", t.pDescriptorRanges,
                               t.explicit_count("NumDescriptorRanges"), f"{at}.DescriptorTable.NumDescriptorRanges")
            if not ranges:
                _fail("", f"{at} is a descriptor table with no ranges; a table has at least one.")
            resolved, offset, kinds = [], 0, set()
            for j, r in enumerate(ranges):
                rat = f"{at}.DescriptorTable.pDescriptorRanges[{j}]"
                if not isinstance(r, D3D12_DESCRIPTOR_RANGE):
                    _fail("", f"{rat} is {r!r}; it must be a D3D12_DESCRIPTOR_RANGE.")
                if not is_one_of(r.RangeType, LETTER):
                    _fail("", f"{rat}.RangeType is {r.RangeType!r}; it must be SRV, UAV, CBV or SAMPLER.")
                range_type = int(r.RangeType)
                if range_type == SAMPLER:
                    _fail("", f"{rat}.RangeType is D3D12_DESCRIPTOR_RANGE_TYPE_SAMPLER; the emulator has no "
                              "samplers.", E_NOTIMPL)
                count = _uint(f"{rat}.NumDescriptors", r.NumDescriptors)
                base = _uint(f"{rat}.BaseShaderRegister", r.BaseShaderRegister)
                space = _uint(f"{rat}.RegisterSpace", r.RegisterSpace)
                given = _uint(f"{rat}.OffsetInDescriptorsFromTableStart", r.OffsetInDescriptorsFromTableStart)
                if count == 0:
                    _fail("", f"{rat}.NumDescriptors is 0; a range holds at least 1 descriptor (or 0xFFFFFFFF, "
                              "unbounded).")
                if count != UNBOUNDED and base + count - 1 > _UINT:
                    _fail("", f"{rat} covers registers {LETTER[range_type]}{base} to "
                              f"{LETTER[range_type]}{base + count - 1}, past the last register "
                              f"{LETTER[range_type]}{_UINT}.")
                if offset == UNBOUNDED and given == APPEND:
                    _fail("", f"{rat} is appended after an unbounded range; a range after an unbounded one needs "
                              "an explicit OffsetInDescriptorsFromTableStart.")
                start = offset if given == APPEND else given
                resolved.append(Range(range_type, count, base, space, start))
                offset = UNBOUNDED if count == UNBOUNDED else start + count
                kinds.add(range_type)
            out.append(Parameter(kind, visibility, tuple(resolved)))
        elif kind == CONSTANTS:
            c = p.Constants
            values = _uint(f"{at}.Constants.Num32BitValues", c.Num32BitValues)
            if values == 0:
                _fail("", f"{at}.Constants.Num32BitValues is 0; root constants hold at least one value.")
            out.append(Parameter(kind, visibility, (), _uint(f"{at}.Constants.ShaderRegister", c.ShaderRegister),
                                 _uint(f"{at}.Constants.RegisterSpace", c.RegisterSpace), values))
        else:
            d = p.Descriptor
            out.append(Parameter(kind, visibility, (), _uint(f"{at}.Descriptor.ShaderRegister", d.ShaderRegister),
                                 _uint(f"{at}.Descriptor.RegisterSpace", d.RegisterSpace)))
    _check_layout(out, where)
    return tuple(out), flags


def _register_spans(index, p):
    """(letter, space, first, last, where) for every register range a parameter binds."""
    if p.type == TABLE:
        for j, r in enumerate(p.ranges):
            last = _UINT if r.count == UNBOUNDED else r.base + r.count - 1
            yield LETTER[r.kind], r.space, r.base, last, f"pParameters[{index}] range {j}"
    elif p.type == CONSTANTS:
        yield "b", p.space, p.register, p.register, f"pParameters[{index}]"
    else:
        yield LETTER[ROOT_DESCRIPTOR_KIND[p.type]], p.space, p.register, p.register, f"pParameters[{index}]"


def _check_layout(params, where):
    cost = sum(p.cost for p in params)
    if cost > D3D12_MAX_ROOT_COST:
        _fail("", f"{where} costs {cost} DWORDs (a table 1, a root constant 1, a root descriptor 2); a root signature "
                  f"has at most {D3D12_MAX_ROOT_COST}.")
    spans = [(s, p.visibility) for i, p in enumerate(params) for s in _register_spans(i, p)]
    if not _any_overlap(spans):
        return
    for a in range(len(spans)):     # the first overlap in parameter order, for the sentence
        (letter, space, first, last, at), seen = spans[a]
        for b in range(a):
            (letter2, space2, first2, last2, at2), seen2 = spans[b]
            both = seen == seen2 or D3D12_SHADER_VISIBILITY_ALL in (seen, seen2)
            if letter == letter2 and space == space2 and both and first <= last2 and first2 <= last:
                _fail("", f"{where}.{at} binds {_span(letter, first, last)} (space {space}), which overlaps "
                          f"{_span(letter2, first2, last2)} of {where}.{at2}; a register is bound once for the "
                          "shaders that see it.")


def _any_overlap(spans):
    """Whether two spans bind a register of one letter and space for a shader that sees both, found in
    n log n: per (letter, space), spans sorted by first register, with the furthest last register reached so far
    per visibility; a span overlaps an earlier-sorted one whose last register reaches its first, seen by the same
    shaders (the same visibility, or either is ALL)."""
    groups = {}
    for (letter, space, first, last, _), seen in spans:
        groups.setdefault((letter, space), []).append((first, last, seen))
    for group in groups.values():
        group.sort(key=lambda span: span[0])
        reach = {}                  # visibility -> the furthest last register of the spans so far
        for first, last, seen in group:
            if seen == D3D12_SHADER_VISIBILITY_ALL:
                furthest = max(reach.values(), default=-1)
            else:
                furthest = max(reach.get(seen, -1), reach.get(D3D12_SHADER_VISIBILITY_ALL, -1))
            if furthest >= first:
                return True
            reach[seen] = max(reach.get(seen, -1), last)
    return False


def _span(letter, first, last):
    if first == last:
        return f"{letter}{first}"
    if last == _UINT:
        return f"{letter}{first} and up (unbounded)"
    return f"{letter}{first} to {letter}{last}"


# ---- the blob ----------------------------------------------------------------------------------------------
def _pack(params, flags):
    words = [MAGIC, int(D3D_ROOT_SIGNATURE_VERSION_1_0), len(params), 0, flags]
    for p in params:
        words += [p.type, p.visibility]
        if p.type == TABLE:
            words.append(len(p.ranges))
            for r in p.ranges:
                words += [r.kind, r.count, r.base, r.space, r.offset]
        elif p.type == CONSTANTS:
            words += [p.register, p.space, p.values]
        else:
            words += [p.register, p.space]
    return b"".join(w.to_bytes(4, "little") for w in words)


def _unpack(data, where):
    """A D3D12_ROOT_SIGNATURE_DESC from untrusted blob bytes, or HResultError naming the problem."""
    from dmlemu.d3d12.structs import (D3D12_DESCRIPTOR_RANGE, D3D12_ROOT_CONSTANTS, D3D12_ROOT_DESCRIPTOR,
                                      D3D12_ROOT_DESCRIPTOR_TABLE, D3D12_ROOT_PARAMETER)
    if len(data) % 4 or len(data) < 20:
        _fail("", f"{where} is {len(data)} bytes; a root signature blob is whole dwords, at least 20 bytes.")
    words = [int.from_bytes(data[i:i + 4], "little") for i in range(0, len(data), 4)]
    position = [0]

    def take(what):
        if position[0] >= len(words):
            _fail("", f"{where} ends (after {len(data)} bytes) where {what} should be; it is truncated.")
        position[0] += 1
        return words[position[0] - 1]

    if take("the magic") != MAGIC:
        _fail("", f"{where} starts with 0x{words[0]:08X}; a root signature blob from D3D12SerializeRootSignature "
                  f"starts with 0x{MAGIC:08X}.")
    version = take("the version")
    if version != D3D_ROOT_SIGNATURE_VERSION_1_0:
        _fail("", f"{where} has version {version}; the emulator reads version 1.0 blobs.")
    count, samplers, flags = take("NumParameters"), take("NumStaticSamplers"), take("Flags")
    if samplers:
        _fail("", f"{where} has {samplers} static samplers; the emulator has no samplers.", E_NOTIMPL)
    if count > len(words):
        _fail("", f"{where} declares {count} parameters in {len(data)} bytes; it is truncated.")
    params = []
    for i in range(count):
        kind, visibility = take(f"pParameters[{i}].ParameterType"), take(f"pParameters[{i}].ShaderVisibility")
        p = D3D12_ROOT_PARAMETER(ParameterType=kind, ShaderVisibility=visibility)
        if kind == TABLE:
            n = take(f"pParameters[{i}].NumDescriptorRanges")
            if n > len(words):
                _fail("", f"{where} declares {n} ranges for pParameters[{i}] in {len(data)} bytes; it is truncated.")
            ranges = [D3D12_DESCRIPTOR_RANGE(*(take(f"pParameters[{i}] range {j}") for _ in range(5)))
                      for j in range(n)]
            p.DescriptorTable = D3D12_ROOT_DESCRIPTOR_TABLE(pDescriptorRanges=ranges)
        elif kind == CONSTANTS:
            p.Constants = D3D12_ROOT_CONSTANTS(*(take(f"pParameters[{i}].Constants") for _ in range(3)))
        elif kind in ROOT_DESCRIPTOR_KIND:
            p.Descriptor = D3D12_ROOT_DESCRIPTOR(*(take(f"pParameters[{i}].Descriptor") for _ in range(2)))
        params.append(p)
    if position[0] != len(words):
        _fail("", f"{where} has {4 * (len(words) - position[0])} bytes after its last parameter; a blob ends there.")
    return D3D12_ROOT_SIGNATURE_DESC(pParameters=params, Flags=flags)


# ---- the API ------------------------------------------------------------------------------------------------
def D3D12SerializeRootSignature(pRootSignature, Version):
    """Check a root signature desc and pack it into an ID3DBlob (the C ppBlob; ppErrorBlob becomes the
    HResultError's sentence). Version must be D3D_ROOT_SIGNATURE_VERSION_1 (1.0), as for the C function."""
    m = "D3D12SerializeRootSignature"
    if not isinstance(pRootSignature, D3D12_ROOT_SIGNATURE_DESC):
        raise HResultError(E_INVALIDARG, f"{m}: pRootSignature is {pRootSignature!r}; it must be a "
                                         "D3D12_ROOT_SIGNATURE_DESC.")
    if not is_one_of(Version, (D3D_ROOT_SIGNATURE_VERSION_1_0,)):
        raise HResultError(E_INVALIDARG, f"{m}: Version is {enum_name(D3D_ROOT_SIGNATURE_VERSION, Version)}; "
                                         "D3D12SerializeRootSignature serializes D3D_ROOT_SIGNATURE_VERSION_1 only "
                                         "(D3D12SerializeVersionedRootSignature, for 1.1, is not emulated).")
    try:
        params, flags = _check_parameters(pRootSignature, "pRootSignature")
    except HResultError as error:
        raise HResultError(error.hresult, f"{m}: {error.message}") from None
    return ID3DBlob(_pack(params, flags))


def create_root_signature(device, node_mask, blob, length):
    """ID3D12Device::CreateRootSignature: read and check a serialized root signature."""
    m = "CreateRootSignature"
    if not is_one_of(node_mask, (0, 1)):
        raise invalid_arg(m, f"nodeMask is {node_mask!r}; the emulated adapter has one node, so it must be 0 or 1.")
    if isinstance(blob, ID3DBlob):
        blob = blob.GetBufferPointer()
    if not isinstance(blob, (bytes, bytearray, memoryview)):
        raise invalid_arg(m, f"pBlobWithRootSignature is {blob!r}; it must be the bytes of a serialized root "
                             "signature (ID3DBlob.GetBufferPointer()).")
    data = bytes(blob)
    if not is_integer(length) or int(length) != len(data):
        raise invalid_arg(m, f"blobLengthInBytes is {length!r}, but pBlobWithRootSignature has {len(data)} bytes; "
                             "they must agree.")
    if len(data) > MAX_BLOB_BYTES:
        raise invalid_arg(m, f"pBlobWithRootSignature is {len(data)} bytes; a root signature blob is at most "
                             f"{MAX_BLOB_BYTES}.")
    try:
        desc = _unpack(data, "pBlobWithRootSignature")
        params, flags = _check_parameters(desc, "pBlobWithRootSignature")
    except HResultError as error:
        raise HResultError(error.hresult, f"{m}: {error.message}") from None
    return ID3D12RootSignature(device, params, flags, _pack(params, flags))
