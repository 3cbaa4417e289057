"""Matrix-instruction semantics: a wave multiplies 16 x 16 fragments held across its lanes (RDNA3 WMMA).

The rule of v_wmma_f32_16x16x16_f16 (isa/opcodes.py names it here), D = A x B + C over 16 x 16 x 16, after AMD's
V_WMMA_F32_16X16X16_F16 in wave32 (AMD "RDNA3" Instruction Set Architecture Reference Guide, 2023, section 7.9
"Wave Matrix Multiply Accumulate"; the lane layout of AMD GPUOpen, "How to accelerate AI applications on RDNA 3
using WMMA", 2023):

    A   8 VGPRs: lane l holds row m = l mod 16 of the 16 x 16 FLOAT16 matrix A, k = 2 i in the low half of VGPR i,
        k = 2 i + 1 in the high half; lanes 16 .. 31 repeat lanes 0 .. 15 (dmlemu reads lanes 0 .. 15 only)
    B   8 VGPRs: lane l holds column n = l mod 16 of B the same way (k = 2 i low, 2 i + 1 high); lanes 16 .. 31
        repeat lanes 0 .. 15 (read from lanes 0 .. 15 only)
    C,D 8 VGPRs of FLOAT32: VGPR i of lane l holds element (m, n) = (2 i + l // 16, l mod 16)

Numerics (docs/NUMERICS.md, "Matrix instructions"): each D[m][n] starts from C[m][n] and takes
d = fma(A[m][k], B[k][n], d) for k = 0 .. 15 ascending in FLOAT32, rounded once each (a product of two FLOAT16
values is exact in FLOAT32, so fused and per-product rounding agree); NaN results canonical. A wave64 runs two
independent products, one per 32 lanes; a narrower wave (dmlemu's teaching widths 4 to 16) runs one product whose
missing lanes read as 0 and whose results for them are dropped. Every lane is written whatever EXEC says (AMD
requires EXEC to be all ones).
"""
import numpy as np

from dmlemu.isa import numerics as nm

ROWS = 16       # M = N = K = 16
GROUP = 32      # lanes per product


def _halves(dwords, shape):
    """(16 k, W, groups, 16 lanes) FLOAT32 values of an 8-VGPR FLOAT16 fragment's lanes 0 .. 15 of each group of 32
    (the lanes it is read from): k = 2 i from the low half of VGPR i, k = 2 i + 1 from the high half. The 8 dwords of
    a lane side by side are its 16 halves in k order (little-endian, as wave.py reads a register's low half)."""
    waves, width = shape
    lanes = [np.broadcast_to(np.asarray(d, dtype=np.uint32), shape).reshape(waves, width // GROUP, GROUP)[:, :, :ROWS]
             for d in dwords]
    halves = np.stack(lanes, axis=-1).view(np.uint16).view(np.float16)          # [w, g, l, k]
    return np.ascontiguousarray(halves.transpose(3, 0, 1, 2)).astype(np.float32)


def wmma_f32_16x16x16_f16(exec_mask, d_old, a, b, c):
    """The 8 dword arrays of D (each (W, width)) from the 8-dword fragments A, B (FLOAT16 pairs) and C (FLOAT32)."""
    waves, real_width = exec_mask.shape
    width = -(-real_width // GROUP) * GROUP      # a narrower wave: the lanes it lacks read as 0
    shape = (waves, width)
    groups = width // GROUP
    if width != real_width:
        pad = lambda dwords: [np.pad(np.broadcast_to(np.asarray(d, dtype=np.uint32), (waves, real_width)),
                                     ((0, 0), (0, width - real_width))) for d in dwords]
        a, b, c = pad(a), pad(b), pad(c)
    fa = _halves(a, shape)     # [k, w, g, m]
    fb = _halves(b, shape)     # [k, w, g, n]
    cd = np.stack([np.broadcast_to(np.asarray(x, dtype=np.uint32), shape) for x in c], axis=-1)
    # lane l = 16 h + n, VGPR i: element (2 i + h, n) -> acc[w, g, m, n]
    acc = cd.reshape(waves, groups, 2, ROWS, 8).transpose(0, 1, 4, 2, 3).reshape(waves, groups, ROWS, ROWS)
    acc = acc.view(np.float32)
    # k outermost and each k's column of A ([w, g, m]) and row of B ([w, g, n]) contiguous: every step is one
    # fused_multiply_add over (w g) blocks of 16 x 16 outer products (isa/fma_compiled.pyx's blocks of rows), B
    # constant along each column (a stride-0 view) and A along each row, repeated into whole rows (the kernel
    # reads rows of lanes; one repeat costs less than a copy of one value per 16-lane row).
    with np.errstate(all="ignore"):
        for k in range(ROWS):
            column = np.repeat(fa[k][..., None], ROWS, axis=-1)
            acc = nm.fused_multiply_add(column, fb[k][:, :, None, :], acc).astype(np.float32, copy=False)
    out = acc.view(np.uint32).reshape(waves, groups, 8, 2, ROWS).transpose(0, 1, 3, 4, 2).reshape(waves, width, 8)
    return tuple(np.ascontiguousarray(out[:, :real_width, i]) for i in range(8))


def wmma_reference(a_matrix, b_matrix, c_matrix):
    """The same rule on plain matrices (16 x 16 FLOAT16 A and B, FLOAT32 C), one element at a time: the tests'
    per-element oracle."""
    out = np.array(c_matrix, dtype=np.float32)
    for m in range(ROWS):
        for n in range(ROWS):
            d = out[m, n]
            for k in range(ROWS):
                d = np.float32(nm.fused_multiply_add(np.float32(a_matrix[m, k]), np.float32(b_matrix[k, n]), d))
            out[m, n] = d
    return out
