"""The matrix multiplication operators' table and compiler: DML_OPERATOR_GEMM as a kernel launch.

GEMM is neither element-wise nor a reduction: kernels/gemm.s computes a 64 x 64 block of the output per
workgroup of 16 x 16 threads (a 4 x 4 block per thread), K in LDS tiles of 16, so the launch is a grid of
workgroups (ceil(N / 64), ceil(M / 64), batches) with 8 KiB of LDS each. The float GEMM without a FusedActivation on
the VALU (FLOAT32, and FLOAT16 where no matrix units serve it) runs gemm.s's WIDE variant instead (`uses_wide`): 128 x
64 blocks (two 4 x 4 blocks per thread, rows 4 ty .. and 64 + 4 ty ..), so the grid is (ceil(N / 64), ceil(M / 128),
batches) with WIDE_LDS_BYTES of LDS, the next tile's loads in flight during this tile's fmas, which the RDNA3 timing
model pairs as VOPD (docs/FIDELITY.md, "GEMM on matrix units"). One `GemmOperator` row per operator says, by name:

  tensors     the desc's tensor fields in binding order, the output last
  source      the kernel source
  types       the data types it serves (FLOAT16 is widened and accumulates in FLOAT32)
  params      the desc's attributes the compiler reads, (field, kind) (the registry checks that the schema has
              them)

The driver hands the kernel every tensor's strides, element offsets per dimension: TransA and TransB swap the
two strides of A's (B's) last two dimensions, so the kernel never knows about them; a broadcast batch
dimension or C is stride 0. The order of every operation is docs/NUMERICS.md's "GEMM"; the golden model
(dmlemu.golden.gemm) follows the same description, independently. A FusedActivation runs the activation
operator's own body (the block `.if BODY == "<activation>"` of kernels/element_wise_bodies.inc, assembled with the
symbols the element-wise driver gives that activation in FLOAT32) on each result before it is rounded and stored;
its attributes follow Alpha and Beta in the constant buffer (PARAM2 ..).

The integer operators run the same kernel with INTEGER set (docs/NUMERICS.md, "Integer and quantized matrix
multiplication"): MATRIX_MULTIPLY_INTEGER and QUANTIZED_LINEAR_MATRIX_MULTIPLY load INT8 / UINT8 A and B (sign- or
zero-extended), subtract their zero points as they copy the tiles (exact), and accumulate with v_mad_u32 from 0
(two's complement modulo 2^32: integer sums are exact, so the order is immaterial); the first stores the INT32
sums, the second requantizes each into INT8 / UINT8. A row's `roles` name the binding index of each operand (A, B,
C, OUT and the integer extras AZP, BZP, ASCALE, BSCALE, OSCALE, OZP); the extras' strides along m and n go to the
M and N records' wide strides (STRIDE_T4 .. T9 in that order), the kernel reading them as CB_GEMM_M_WIDE and
CB_GEMM_N_WIDE.

Matrix units: on a preset with them (AdapterPreset.matrix_fp16_flops_per_cycle_per_cu) and a wave of 32 lanes, a
FLOAT16 GEMM runs gemm.s's WMMA variant (`uses_matrix_units`, the loop in kernels/gemm_wmma.inc): workgroups of 16 x
WMMA_THREADS_Y threads (4 waves) on 128 x 64 blocks, grid (ceil(N / 64), ceil(M / 128), batches), K in FLOAT16 LDS
tiles of 32, each wave 8 v_wmma_f32_16x16x16_f16 per 16 k on its 32 x 64 part, A copied two k a load where
`a_pairs` allows, then the same step 4 once per wave's part (docs/NUMERICS.md, "Matrix instructions": the same bits
as the VALU kernel). The program's name says which kernel ran (gemm_float16_wmma ..).
"""
import functools
import os
from dataclasses import dataclass

from dmlemu.isa.assembler import assemble_file
from dmlemu.isa.program import Program
from dmlemu.kernels.constant_buffer import LAYOUT, f32_bits
from dmlemu.kernels.element_wise_ops import FUSABLE, OPERATORS as ELEMENT_WISE_ROWS
from dmlemu.kernels.element_moves import load_suffixes, shifts, store_suffixes

KERNEL_DIR = os.path.dirname(os.path.abspath(__file__))
THREADS = 16              # 16 x 16 threads per workgroup
BLOCK = 64                # the output block of a workgroup is BLOCK x BLOCK (4 x 4 per thread)
K_TILE = 16               # K goes in tiles of K_TILE
LDS_BYTES = 2 * BLOCK * K_TILE * 4   # AsT and Bs, FLOAT32
WMMA_BLOCK_M = 128                   # the WMMA variant (gemm_wmma.inc): a 128 x 64 block per workgroup of
WMMA_THREADS_Y = 8                   # ... 16 x 8 threads (4 waves of 32), K in FLOAT16 LDS tiles of 32:
WMMA_LDS_BYTES = (WMMA_BLOCK_M + BLOCK) * 80   # As[128][40] and BsT[64][40] FLOAT16 (80-byte rows), then Cs[32][64]
WMMA_WAVE_WIDTH = 32                 # v_wmma_f32_16x16x16_f16's lanes
WIDE_BLOCK_M = 128                   # the WIDE variant: a 128 x 64 block per workgroup (8 x 4 per thread)
WIDE_LDS_BYTES = 16 * 528 + K_TILE * BLOCK * 4   # AsT[16][128] rows padded to 528 bytes, then Bs[16][64]
_FLOATS = ("FLOAT32", "FLOAT16")
_LOAD, _STORE, _SHIFT = load_suffixes(_FLOATS), store_suffixes(_FLOATS), shifts(_FLOATS)
_NO_TO_FLOAT = {"TO_FLOAT": 0, "HAS_FBIAS": 0, "LOAD_SCALE": "dword", "SHIFT_SCALE": 2, "WIDEN_SCALE": 0}
_INT_LOAD = {"INT8": "sbyte", "UINT8": "ubyte"}          # sign- or zero-extended to 32 bits
_INT_STORE = {"INT32": ("dword", 2), "INT8": ("byte", 0), "UINT8": ("byte", 0), "FLOAT32": ("dword", 2),
              "FLOAT16": ("short", 1)}
EXTRAS = ("AZP", "BZP", "ASCALE", "BSCALE", "OSCALE", "OZP", "BIAS")   # wide stride slots T4 .. T10, in this order


@dataclass(frozen=True, kw_only=True)
class GemmOperator:
    """One operator of the matrix multiplication family (see the module docstring for each field)."""
    name: str
    tensors: tuple
    types: tuple
    source: str = "gemm.s"
    params: tuple = ()
    scale_bias: bool = False
    bounds: tuple = ()
    optional: tuple = ()
    family: str = "gemm"
    roles: tuple = (("A", 0), ("B", 1), ("C", 2), ("OUT", 3))   # (operand, binding index)
    integer: bool = False


OPERATORS = {row.name: row for row in (
    GemmOperator(name="GEMM", tensors=("ATensor", "BTensor", "CTensor", "OutputTensor"), types=("FLOAT32", "FLOAT16"),
                 params=(("TransA", "enum"), ("TransB", "enum"), ("Alpha", "f32"), ("Beta", "f32")), optional=(2,)),
    GemmOperator(name="MATRIX_MULTIPLY_INTEGER", tensors=("ATensor", "AZeroPointTensor", "BTensor", "BZeroPointTensor",
                                                          "OutputTensor"), types=("INT32",), optional=(1, 3),
                 roles=(("A", 0), ("AZP", 1), ("B", 2), ("BZP", 3), ("OUT", 4)), integer=True),
    GemmOperator(name="QUANTIZED_LINEAR_MATRIX_MULTIPLY",
                 tensors=("ATensor", "AScaleTensor", "AZeroPointTensor", "BTensor", "BScaleTensor", "BZeroPointTensor",
                          "OutputScaleTensor", "OutputZeroPointTensor", "OutputTensor"), types=("INT8", "UINT8"),
                 optional=(2, 5, 7), integer=True,
                 roles=(("A", 0), ("ASCALE", 1), ("AZP", 2), ("B", 3), ("BSCALE", 4), ("BZP", 5), ("OSCALE", 6),
                        ("OZP", 7), ("OUT", 8))),
    GemmOperator(name="MATRIX_MULTIPLY_INTEGER_TO_FLOAT",
                 tensors=("ATensor", "AScaleTensor", "AZeroPointTensor", "BTensor", "BScaleTensor", "BZeroPointTensor",
                          "BiasTensor", "OutputTensor"), types=("FLOAT32", "FLOAT16"), optional=(2, 5, 6),
                 integer=True, roles=(("A", 0), ("ASCALE", 1), ("AZP", 2), ("B", 3), ("BSCALE", 4), ("BZP", 5),
                                      ("BIAS", 6), ("OUT", 7))),
)}


def uses_matrix_units(preset, data_type):
    """Whether a GEMM of `data_type` runs the WMMA variant on `preset`: FLOAT16, a preset with matrix units and a
    wave of WMMA_WAVE_WIDTH lanes (others, and wave64, use the VALU kernel)."""
    return (preset is not None and data_type == "FLOAT16" and preset.wave_width == WMMA_WAVE_WIDTH
            and getattr(preset, "matrix_fp16_flops_per_cycle_per_cu", 0) > 0)


def uses_wide(integer, wmma, activation, preset=None, m=None, n=None, batches=1):
    """Whether a GEMM runs gemm.s's WIDE variant (128 x 64 blocks, two 4 x 4 blocks per thread, the next tile's
    loads in flight during this one's fmas): the float kernel without a FusedActivation (whose body may use the
    registers that hold the second block) on the VALU, when its grid gives every compute unit of `preset` a
    workgroup (else the 64 x 64 kernel's twice as many workgroups fill the GPU better), as a library picks a
    shader by size."""
    if integer is not None or wmma or activation is not None:
        return False
    if preset is None or m is None:
        return True
    return -(-m // WIDE_BLOCK_M) * -(-n // BLOCK) * batches >= preset.compute_units


def variant_symbols(data_type, has_c, layout=LAYOUT, activation=None, activation_symbols=None, integer=None,
                    wmma=False, wide=False, pairs=False):
    """The assembler symbols of one variant of gemm.s; with `activation` (ACTIVATION_RELU ...), those the
    element-wise driver gives that activation's own kernel in FLOAT32 (`activation_symbols`: its variant_symbols,
    handed in by kernels/driver.py), under gemm.s's own. `integer`: for the integer operators, (A's type, B's
    type, roles, the extras given): `data_type` is then the output's (INT32, or INT8 / UINT8 requantized)."""
    records = layout.field("RECORDS").offset
    step = layout.record_bytes
    base = {} if activation is None else dict(activation_symbols(activation, "FLOAT32", True, False, False, layout))
    if integer is None:
        kind = {"INTEGER": 0, "QLINEAR": 0, "HAS_AZP": 0, "HAS_BZP": 0, "HAS_OZP": 0, "MAC": "v_fma_f32",
                "ACC_ZERO": "0x80000000", "LOAD_A": _LOAD[data_type], "LOAD_B": _LOAD[data_type],
                "SHIFT_IN": _SHIFT[data_type], "DESC_AZP": 0, "DESC_BZP": 0, "DESC_ASCALE": 0, "DESC_BSCALE": 0,
                "DESC_OSCALE": 0, "DESC_OZP": 0, "LOAD_OUT": "dword", "OUT_SAT": "i8", **_NO_TO_FLOAT}
        desc = {"DESC_T0": 0, "DESC_T1": 32, "DESC_T2": 64, "DESC_T3": 96}
        load, store, shift = _LOAD[data_type], _STORE[data_type], _SHIFT[data_type]
    else:
        a_type, b_type, roles, given = integer
        roles = dict(roles)
        slot = lambda role: 32 * roles.get(role, 0)
        store, shift = _INT_STORE[data_type]
        load = store
        kind = {"INTEGER": 1, "QLINEAR": int(data_type != "INT32"), "HAS_AZP": int("AZP" in given),
                "HAS_BZP": int("BZP" in given), "HAS_OZP": int("OZP" in given), "MAC": "v_mad_u32", "ACC_ZERO": 0,
                "LOAD_A": _INT_LOAD[a_type], "LOAD_B": _INT_LOAD[b_type], "SHIFT_IN": 0,
                "LOAD_OUT": _INT_LOAD.get(data_type, "dword"), "OUT_SAT": "i8" if data_type == "INT8" else "u8",
                **{f"DESC_{role}": slot(role) for role in EXTRAS}, **_NO_TO_FLOAT}
        if data_type in ("FLOAT32", "FLOAT16"):     # MATRIX_MULTIPLY_INTEGER_TO_FLOAT: scales and bias of its type
            kind.update({"TO_FLOAT": 1, "HAS_FBIAS": int("BIAS" in given), "LOAD_SCALE": _LOAD[data_type],
                         "SHIFT_SCALE": _SHIFT[data_type], "WIDEN_SCALE": int(data_type == "FLOAT16")})
        desc = {"DESC_T0": slot("A"), "DESC_T1": slot("B"), "DESC_T2": 0, "DESC_T3": slot("OUT")}
    wide_block = int(wide)
    wide = layout.field("WIDE_RECORDS").offset
    return {**base, **kind, **desc, "HAS_ACT": int(activation is not None), "HAS_C": int(has_c), "LOAD": load, "STORE": store, "SHIFT": shift,
            "CB_GEMM_M_WIDE": wide + 2 * step, "CB_GEMM_N_WIDE": wide + 3 * step,
            "WIDEN_F16": int(data_type == "FLOAT16" and integer is None), "NARROW_F16": int(data_type == "FLOAT16"),
            # WMMA: FLOAT16 tiles; an element of A past K is -0 (B's is +0), so its product -0 adds nothing
            "WMMA": int(wmma), "A_PAD": 0x8000 if wmma else 0, "WIDE": wide_block,
            # WMMA: A's whole tiles two k a load (a_pairs: its k stride 1, its others even)
            "A_PAIRS": int(pairs),
            # the five records of RECORDS gemm.s reads (the layout's own offsets, named for what each holds)
            "CB_GEMM_BATCH_INNER": records, "CB_GEMM_BATCH_OUTER": records + step, "CB_GEMM_M": records + 2 * step,
            "CB_GEMM_N": records + 3 * step, "CB_GEMM_K": records + 4 * step, **layout.symbols()}


@functools.lru_cache(maxsize=None)
def build_program(data_type, has_c, layout=LAYOUT, activation=None, activation_symbols=None, integer=None,
                  wmma=False, wide=None, pairs=False):
    """Assemble and decode one variant of gemm.s (cached); `wide` None: WIDE wherever uses_wide allows it."""
    if wmma and data_type != "FLOAT16":
        raise ValueError(f"gemm.s's WMMA variant serves FLOAT16, not {data_type}")
    if wide is None:
        wide = uses_wide(integer, wmma, activation)
    elif wide and not uses_wide(integer, wmma, activation):
        raise ValueError("gemm.s's WIDE variant serves the float GEMM without a FusedActivation on the VALU")
    if pairs and not wmma:
        raise ValueError("gemm.s copies A in pairs only in its WMMA variant")
    symbols = variant_symbols(data_type, has_c, layout, activation, activation_symbols, integer, wmma, wide, pairs)
    dwords = assemble_file(os.path.join(KERNEL_DIR, OPERATORS["GEMM"].source), symbols)
    act = "" if activation is None else "_" + activation.lower()
    if integer is not None:
        a_type, b_type, _, given = integer
        zero_points = "".join(f"_{role.lower()}" for role in ("AZP", "BZP", "OZP", "BIAS") if role in given)
        return Program(dwords, f"gemm_{a_type.lower()}_{b_type.lower()}_to_{data_type.lower()}{zero_points}")
    return Program(dwords, f"gemm_{data_type.lower()}{'_wmma' if wmma else ''}{'' if has_c else '_no_c'}{act}")


def a_pairs(a, trans_a, packed_strides):
    """Whether the WMMA variant may copy A two k at a time (buffer_load_dword of two FLOAT16): A's k stride is 1 and
    its row and batch strides are even, so an even k is dword-aligned wherever A's base is (the kernel checks that)."""
    batch, row, col = _matrix_strides(a, packed_strides, trans_a)
    return col == 1 and row % 2 == 0 and all(stride % 2 == 0 for stride in batch)


def _matrix_strides(spec, packed_strides, transpose=False):
    """(batch strides (outer, inner), row stride, column stride) of a tensor in elements, after the transpose;
    batch dimensions of size 1 get stride 0 (their only coordinate is 0)."""
    sizes = tuple(int(s) for s in spec.sizes)
    strides = tuple(int(s) for s in (spec.strides if spec.strides is not None else packed_strides(sizes)))
    row, col = strides[-2], strides[-1]
    if transpose:
        row, col = col, row
    batch = [0 if size == 1 else stride for size, stride in zip(sizes[:-2], strides[:-2])]
    batch = [0] * (2 - len(batch)) + batch
    return batch, row, col


def compile_gemm(operator, tensors, attributes, layout, no_kernel, division_magic, packed_strides, activation_of,
                 activation_symbols, preset=None):
    """(program, constant buffer bytes, group grid, thread grid, LDS bytes) of a validated GEMM desc;
    kernels/driver.py wraps them in a CompiledKernel. `no_kernel` is the NoKernel class to raise; `activation_of`
    and `activation_symbols` are the driver's (the FusedActivation's name and attributes; an element-wise
    kernel's symbols)."""
    row = OPERATORS[operator]
    if row.integer:
        return _compile_integer(row, tensors, layout, division_magic, packed_strides)
    a, b, c, out = tensors
    if out.data_type not in row.types:
        raise no_kernel(f"dmlemu's kernel for {operator} serves {', '.join(row.types)}, not {out.data_type}")
    activation, activation_attributes = activation_of(attributes)
    if activation is not None and activation not in FUSABLE:
        raise no_kernel(f"dmlemu has no fused kernel body for the FusedActivation {activation}")
    act_params = [] if activation is None else list(ELEMENT_WISE_ROWS[activation].params)
    if len(act_params) > 4 or any(encoding != "f32" for _, encoding in act_params):
        raise no_kernel(f"dmlemu's kernel for {operator} cannot fuse {activation}'s attributes")
    trans_a, trans_b = bool(int(attributes.get("TransA") or 0)), bool(int(attributes.get("TransB") or 0))
    wmma = uses_matrix_units(preset, out.data_type)
    sizes = [int(s) for s in out.sizes]
    batches = 1
    for size in sizes[:-2]:
        batches *= size
    wide = uses_wide(None, wmma, activation, preset, sizes[-2], sizes[-1], batches)
    records, values, group_grid = _launch(a, b, c, out, trans_a, trans_b, division_magic, packed_strides,
                                          WMMA_BLOCK_M if wmma else WIDE_BLOCK_M if wide else BLOCK)
    if wmma:
        values["WORKGROUP_SIZE"] = THREADS * WMMA_THREADS_Y
    values.update({"PARAM0": f32_bits(float(attributes.get("Alpha", 1.0))), "PARAM1": f32_bits(float(attributes.get("Beta", 0.0)))})
    for i, (name, _) in enumerate(act_params):
        if activation_attributes.get(name) is None:
            raise ValueError(f"{activation} needs its attribute {name}")
        values[f"PARAM{2 + i}"] = f32_bits(float(activation_attributes[name]))
    constants = layout.pack(values, records, params=True, wide=False)
    program = build_program(out.data_type, c is not None, layout, activation,
                            activation_symbols if activation is not None else None, wmma=wmma, wide=wide,
                            pairs=wmma and a_pairs(a, trans_a, packed_strides))
    lds_bytes = WMMA_LDS_BYTES if wmma else WIDE_LDS_BYTES if wide else LDS_BYTES
    return program, constants, group_grid, (THREADS, WMMA_THREADS_Y if wmma else THREADS, 1), lds_bytes


def _compile_integer(row, tensors, layout, division_magic, packed_strides):
    """compile_gemm for MATRIX_MULTIPLY_INTEGER and QUANTIZED_LINEAR_MATRIX_MULTIPLY: the float launch, no C, the
    extras' strides along m (AZP, ASCALE, OSCALE, OZP) and n (BZP, BSCALE) in the M and N records' wide slots."""
    roles = dict(row.roles)
    a, b, out = tensors[roles["A"]], tensors[roles["B"]], tensors[roles["OUT"]]
    records, values, group_grid = _launch(a, b, None, out, False, False, division_magic, packed_strides)
    given = tuple(role for role in EXTRAS if role in roles and tensors[roles[role]] is not None)
    for slot, role in enumerate(EXTRAS):
        if role not in given:
            continue
        spec = tensors[roles[role]]
        _, row_stride, col_stride = _matrix_strides(spec, packed_strides)
        along_m = role in ("AZP", "ASCALE", "OSCALE", "OZP")      # BZP, BSCALE, BIAS: along n
        size = int(spec.sizes[-2] if along_m else spec.sizes[-1])
        stride = (row_stride if along_m else col_stride) if size > 1 else 0
        records[2 if along_m else 3][f"STRIDE_T{4 + slot}"] = stride & 0xFFFFFFFF
    constants = layout.pack(values, records, params=True, wide=True)
    integer = (a.data_type, b.data_type, row.roles, given)
    program = build_program(out.data_type, False, layout, integer=integer)
    return program, constants, group_grid, (THREADS, THREADS, 1), LDS_BYTES


def _launch(a, b, c, out, trans_a, trans_b, division_magic, packed_strides, block_m=BLOCK):
    """The five dimension records (batch inner, batch outer, M, N, K), the values ELEMENTS .. RECORD_COUNT and the
    group grid of one matrix product (blocks of block_m rows and BLOCK columns)."""
    sizes = tuple(int(s) for s in out.sizes)
    m, n = sizes[-2:]
    k = int(a.sizes[-2] if trans_a else a.sizes[-1])
    batch_sizes = [1] * (2 - len(sizes[:-2])) + list(sizes[:-2])
    a_batch, a_m, a_k = _matrix_strides(a, packed_strides, trans_a)
    b_batch, b_k, b_n = _matrix_strides(b, packed_strides, trans_b)
    c_batch, c_m, c_n = _matrix_strides(c, packed_strides) if c is not None else ([0, 0], 0, 0)
    o_batch, o_m, o_n = _matrix_strides(out, packed_strides)
    magic, shift1, shift2 = division_magic(batch_sizes[1])

    def record(size, strides, division=(0, 0, 0)):
        fields = {"SIZE": size, "MAGIC": division[0], "SHIFT1": division[1], "SHIFT2": division[2]}
        fields.update({f"STRIDE_T{t}": s & 0xFFFFFFFF for t, s in enumerate(strides)})
        return fields
    records = [record(batch_sizes[1], (a_batch[1], b_batch[1], c_batch[1], o_batch[1]), (magic, shift1, shift2)),
               record(batch_sizes[0], (a_batch[0], b_batch[0], c_batch[0], o_batch[0])),
               record(m, (a_m, 0, c_m, o_m)), record(n, (0, b_n, c_n, o_n)), record(k, (a_k, b_k, 0, 0))]
    batches = batch_sizes[0] * batch_sizes[1]
    values = {"ELEMENTS": batches * m * n, "WORKGROUP_SIZE": THREADS * THREADS, "RECORD_COUNT": len(records)}
    return records, values, (-(-n // BLOCK), -(-m // block_m), batches)


__all__ = ["THREADS", "BLOCK", "K_TILE", "LDS_BYTES", "OPERATORS", "GemmOperator", "EXTRAS", "build_program", "compile_gemm", "variant_symbols",
           "WMMA_LDS_BYTES", "WMMA_BLOCK_M", "WMMA_THREADS_Y", "WMMA_WAVE_WIDTH", "a_pairs", "uses_matrix_units", "WIDE_BLOCK_M", "WIDE_LDS_BYTES", "uses_wide"]
