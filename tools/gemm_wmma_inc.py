"""Writes kernels/gemm_wmma.inc, gemm.s's WMMA loop (the FLOAT16 GEMM on matrix units), unrolled.

The loop is straight-line code (32 A loads and 16 B loads per thread and tile, 24 fragment reads and 16 v_wmma per
wave and tile, 64 fragment stores per wave in the epilogue) that the assembler has no macros for; this script is its
one source: the layout constants (80-byte LDS rows, BsT at 128 rows of them) and the register plan (acc v[128:191],
fragments v[72:119] and v[192:239], loads v[20:67]) are written once here. tests/directml/test_gemm_wmma.py checks
that the committed file is what this writes.

    .venv/bin/python -m dmlemu.tools.gemm_wmma_inc        # rewrites kernels/gemm_wmma.inc
"""
import os

ROW = 80            # bytes per LDS row: 32 FLOAT16 k and 8 halves of padding
BS = 128 * ROW      # BsT's offset: after As[128][40]
TARGET = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "kernels", "gemm_wmma.inc")


def source():
    """The text of kernels/gemm_wmma.inc."""
    lines = []
    e = lines.append
    e("""; =============================================================================================
; gemm_wmma.inc: gemm.s's WMMA variant (FLOAT16 on a wave32 GPU with matrix units), included by
; gemm.s under `.if WMMA` after its common setup (the batch offsets v10 .. v13, the buffer
; descriptors, the records, s68 = m0 = 128 Y, s69 = n0 = 64 X, s38 = K, s[66:67] every thread).
;
; Launch (kernels/gemm_ops.py): workgroups of 16 x 8 threads (4 waves), each the 128 x 64 block at
; rows m0 .., columns n0 .., K in FLOAT16 LDS tiles of 32. Wave w = v0 / 32 (lane l = v0 mod 32)
; computes rows m0 + 32 w .. + 31, all 64 columns: 2 x 4 fragments of D (isa/matrix.py's layout),
; acc in v[128:191] (fragment (f, g), rows + 16 f, columns + 16 g, at v(128 + 8 (4 f + g)) ..),
; each starting at -0; per 16 k it reads 2 A and 4 B fragments (12 ds_read_b128, lanes 16 .. 31
; the same addresses as 0 .. 15: a broadcast) and issues 8 v_wmma_f32_16x16x16_f16, so every
; accumulator takes its k ascending (docs/NUMERICS.md, "Matrix instructions" and "GEMM"). Both
; 16-k steps' fragments are read first (v[72:119] and v[192:239]), so the second step's reads land
; during the first step's WMMAs.
;
; Tiles: As[128][40] at 0 (row m of A, k contiguous) and BsT[64][40] at 10240 (column n of B, k
; contiguous), 80-byte rows (32 k and 8 halves of padding: a fragment read's 16 rows fall in every
; bank, two passes). Each thread copies 32 elements of A (row m0 + w + 4 j, k0 + l, j = 0 .. 31)
; and 16 of B (row k0 + l / 16 + 2 j, column n0 + 16 w + l mod 16, j = 0 .. 15) with
; buffer_load_ushort: a wave reads 64 contiguous bytes of A, or 2 x 32 of B. With A_PAIRS (A's k
; stride 1, its other strides even: gemm_ops.py) and A's base dword-aligned, a whole tile inside M
; copies A two k at a time instead: 16 buffer_load_dword of rows m0 + 2 w + l / 16 + 8 j at
; k0 + 2 (l mod 16), 16 ds_write_b32 (s34 says which way the tile in flight came). A column past N is
; read at column N - 1: it only reaches accumulators that are never stored. A row past M (only in a
; block that crosses M) or a k past K (only in the last tile) is not loaded: A's element is then
; -0 (A_PAD), B's +0, so a product past K is -0 and adds nothing. Software pipelining: tile t + 1's
; 48 loads are issued before tile t's WMMAs, which read LDS; then s_barrier, the loaded tile goes
; into LDS, s_barrier. Addresses are in bytes (FLOAT16: 2 bytes an element).
;
; Epilogue: D goes through LDS (FLOAT32 Cs[32][64] at 0, over the tiles), one wave's 32 x 64 part at
; a time (s97 = that wave), into the 4 x 4 blocks (rows 4 ty .., columns 4 tx ..) that gemm.s's
; step 4 (`finish`) stores, with s68 = m0 + 32 s97; the end of step 4 comes back to wmma_part for
; the next wave's part (acc lives above the registers step 4 uses).
; =============================================================================================""")
    e("    v_lshr_b32 v3, v0, 5                 ; w")
    e("    v_and_b32 v4, v0, 31                 ; l: the k this lane copies of A")
    e("    v_add_u32 v5, s68, v3                ; m0 + w: the row of A it copies (+ 4 j)")
    e("    v_mad_u32 v68, v4, s60, v10")
    e("    v_mad_u32 v68, v5, s44, v68")
    e("    v_lshl_b32 v68, v68, 1               ; &A[m0 + w][k0 + l] in bytes")
    e("    s_sub_u32 s24, s48, 1                ; N - 1")
    e("    v_and_b32 v7, v0, 15")
    e("    v_lshl_b32 v8, v3, 4")
    e("    v_add_u32 v7, v7, v8                 ; 16 w + l mod 16: the column of B this lane copies")
    e("    v_add_u32 v8, s69, v7")
    e("    v_min_u32 v8, v8, s24                ; n0 + 16 w + l mod 16, at most N - 1")
    e("    v_mad_u32 v70, v8, s53, v11")
    e("    v_lshr_b32 v9, v4, 4                 ; kb = l / 16: the row of B it copies (+ 2 j)")
    e("    v_mad_u32 v70, v9, s61, v70")
    e("    v_lshl_b32 v70, v70, 1               ; &B[k0 + kb][column] in bytes")
    e("    s_lshl_b32 s25, s61, 2               ; 2 B_k bytes: B's next j")
    e("    s_lshl_b32 s26, s44, 3               ; 4 A_m bytes: A's next j")
    e("    s_lshl_b32 s27, s60, 6               ; 32 A_k bytes: A's next tile")
    e("    s_lshl_b32 s28, s61, 6               ; 32 B_k bytes: B's next tile")
    e("    s_add_u32 s29, s68, 128              ; m0 + 128: the block is inside A when <= M")
    e(".if A_PAIRS")
    e("    s_and_b32 s33, s8, 3                 ; A's base dword-aligned (0): the pair loads may run")
    e("    s_lshl_b32 s32, s44, 4               ; 8 A_m bytes: the pair loads' next j")
    e("    v_lshr_b32 v125, v4, 4")
    e("    v_lshl_b32 v127, v3, 1")
    e("    v_add_u32 v125, v125, v127           ; 2 w + l / 16: the row it copies (+ 8 j)")
    e("    v_add_u32 v127, s68, v125")
    e("    v_mad_u32 v126, v127, s44, v10")
    e("    v_and_b32 v127, v0, 15               ; p = l mod 16: the k pair it copies (2 p, 2 p + 1)")
    e("    v_lshl_b32 v127, v127, 1")
    e("    v_add_u32 v126, v126, v127")
    e("    v_lshl_b32 v126, v126, 1             ; &A[m0 + 2 w + l / 16][k0 + 2 p] in bytes")
    e(f"    v_mul_lo_u32 v124, v125, {ROW}")
    e("    v_lshl_b32 v127, v127, 1")
    e(f"    v_add_u32 v124, v124, v127           ; &As[2 w + l / 16][2 p] (j: + {8 * ROW} j)")
    e(".endif")
    e(f"    v_mul_lo_u32 v120, v3, {ROW}")
    e("    v_lshl_b32 v6, v4, 1")
    e(f"    v_add_u32 v120, v120, v6             ; &As[w][l] (j: + {4 * ROW} j)")
    e(f"    v_mul_lo_u32 v121, v7, {ROW}")
    e("    v_lshl_b32 v6, v9, 1")
    e(f"    v_add_u32 v121, v121, v6             ; &BsT[16 w + l mod 16][kb] - {BS} (j: + 4 j)")
    e("    v_and_b32 v6, v0, 15                 ; l mod 16: the fragment row (column) this lane holds")
    e("    v_lshl_b32 v8, v3, 5")
    e("    v_add_u32 v122, v8, v6")
    e(f"    v_mul_lo_u32 v122, v122, {ROW}          ; &As[32 w + l mod 16][0] (fragment f: + {16 * ROW} f)")
    e(f"    v_mul_lo_u32 v123, v6, {ROW}            ; &BsT[l mod 16][0] - {BS} (fragment g: + {16 * ROW} g)")
    for r in range(128, 192):
        e(f"    v_mov_b32 v{r}, ${{ACC_ZERO}}           ; acc = -0")
    e("    s_cmp_eq_u32 s38, 0")
    e("    s_cbranch_scc1 wmma_done             ; K = 0: no tile")
    e("    s_mov_b32 s39, 1                     ; the first tile: nothing in LDS yet")
    e("wmma_tile:")
    e("    s_cmp_lt_u32 s38, 32")
    e("    s_cbranch_scc1 wmma_edge_loads       ; the last tile, short of 32 k: the masks")
    e("    s_cmp_gt_u32 s29, s40")
    e("    s_cbranch_scc1 wmma_edge_loads       ; a block that crosses M: the masks")
    e(".if A_PAIRS")
    e("    s_cmp_eq_u32 s33, 0")
    e("    s_cbranch_scc0 wmma_full_halves      ; A's base not dword-aligned: one element a load")
    e("    s_mov_b32 s34, 1                     ; this tile's A came in pairs")
    e("    v_mov_b32 v127, v126")
    for j in range(16):
        e(f"    buffer_load_dword v{20 + j}, v127, s[8:11], 0      ; A[m0 + 2 w + l / 16 + {8 * j}][k0 + 2 p .. + 1]")
        if j < 15:
            e("    v_add_u32 v127, v127, s32")
    e("    s_branch wmma_full_b")
    e("wmma_full_halves:")
    e(".endif")
    e("    s_mov_b32 s34, 0                     ; this tile's A came one element a load")
    e("    v_mov_b32 v69, v68")
    for j in range(32):
        e(f"    buffer_load_ushort v{20 + j}, v69, s[8:11], 0      ; A[m0 + w + {4 * j}][k0 + l]")
        if j < 31:
            e("    v_add_u32 v69, v69, s26")
    e("wmma_full_b:")
    e("    v_mov_b32 v71, v70")
    for j in range(16):
        e(f"    buffer_load_ushort v{52 + j}, v71, s[12:15], 0      ; B[k0 + kb + {2 * j}][column]")
        if j < 15:
            e("    v_add_u32 v71, v71, s25")
    e("    s_branch wmma_loaded")
    e("wmma_edge_loads:")
    e("    s_mov_b32 s34, 0                     ; one element a load")
    for j in range(32):
        e(f"    v_mov_b32 v{20 + j}, ${{A_PAD}}           ; A past M or K: -0")
    for j in range(16):
        e(f"    v_mov_b32 v{52 + j}, 0                ; B past K: +0")
    e("    v_cmp_gt_u32 vcc, s38, v4            ; k0 + l < K")
    e("    s_mov_b64 s[30:31], vcc")
    e("    v_mov_b32 v69, v68")
    e("    v_add_u32 v5, s68, v3                ; row m0 + w")
    for j in range(32):
        e("    v_cmp_gt_u32 vcc, s40, v5")
        e("    s_and_b64 exec, vcc, s[30:31]        ; row < M and k < K")
        e(f"    buffer_load_ushort v{20 + j}, v69, s[8:11], 0      ; A[m0 + w + {4 * j}][k0 + l]")
        e("    s_mov_b64 exec, s[66:67]")
        if j < 31:
            e("    v_add_u32 v69, v69, s26")
            e("    v_add_u32 v5, v5, 4")
    e("    v_mov_b32 v71, v70")
    for j in range(16):
        e(f"    v_add_u32 v6, v9, {2 * j}")
        e(f"    v_cmp_gt_u32 vcc, s38, v6            ; k0 + kb + {2 * j} < K")
        e("    s_mov_b64 exec, vcc")
        e(f"    buffer_load_ushort v{52 + j}, v71, s[12:15], 0      ; B[k0 + kb + {2 * j}][column]")
        e("    s_mov_b64 exec, s[66:67]")
        if j < 15:
            e("    v_add_u32 v71, v71, s25")
    e("wmma_loaded:")
    e("    s_cmp_eq_u32 s39, 1")
    e("    s_cbranch_scc1 wmma_store            ; the first tile: nothing to multiply yet")

    def multiply(wait, where):
        sets = ((72, 80, 88), (192, 200, 208))          # step s's fragments: A0, A1, B0 (B g at + 8 g)
        for s in range(2):
            a0, a1, b0 = sets[s]
            e(f"    ds_read_b128 v[{a0}:{a0 + 3}], v122, {32 * s}        ; k0 + {16 * s} ..: A fragment 0, k .. + 7")
            e(f"    ds_read_b128 v[{a0 + 4}:{a0 + 7}], v122, {32 * s + 16}        ; k + 8 .. + 15")
            e(f"    ds_read_b128 v[{a1}:{a1 + 3}], v122, {16 * ROW + 32 * s}      ; A fragment 1 (16 rows on)")
            e(f"    ds_read_b128 v[{a1 + 4}:{a1 + 7}], v122, {16 * ROW + 16 + 32 * s}")
            for g in range(4):
                base = b0 + 8 * g
                e(f"    ds_read_b128 v[{base}:{base + 3}], v123, {BS + 16 * ROW * g + 32 * s}      ; B fragment {g}")
                e(f"    ds_read_b128 v[{base + 4}:{base + 7}], v123, {BS + 16 * ROW * g + 32 * s + 16}")
        for s in range(2):
            a0, a1, b0 = sets[s]
            if wait:       # the loads in flight: 48, or 32 where A came in pairs (the other way then waits for some)
                e(".if A_PAIRS")
                e(f"    s_waitcnt {32 + 12 * (1 - s)}                         ; k0 + {16 * s} ..'s twelve LDS reads have landed (32 loads may not have)")
                e(".else")
                e(f"    s_waitcnt {48 + 12 * (1 - s)}                         ; k0 + {16 * s} ..'s twelve LDS reads have landed{where}")
                e(".endif")
            else:
                e(f"    s_waitcnt {12 * (1 - s)}                         ; k0 + {16 * s} ..'s twelve LDS reads have landed")
            for f in range(2):
                for g in range(4):
                    acc = 128 + 8 * (4 * f + g)
                    e(f"    v_wmma_f32_16x16x16_f16 v[{acc}:{acc + 7}], v[{(a0, a1)[f]}:{(a0, a1)[f] + 7}], "
                      f"v[{b0 + 8 * g}:{b0 + 8 * g + 7}], v[{acc}:{acc + 7}]   ; D({f}, {g}), k0 + {16 * s} ..")

    multiply(48, " (the 48 loads may not have)")
    e("    s_barrier                            ; every wave is done with the tiles in LDS")
    e("wmma_store:")
    e("    s_mov_b32 s39, 0")
    e("    s_waitcnt 0                          ; the loaded tile has landed")
    e(".if A_PAIRS")
    e("    s_cmp_eq_u32 s34, 1")
    e("    s_cbranch_scc0 wmma_store_halves")
    for j in range(16):
        e(f"    ds_write_b32 v124, v{20 + j}, {8 * ROW * j}            ; As[2 w + l / 16 + {8 * j}][2 p .. + 1]")
    e("    s_branch wmma_store_b")
    e("wmma_store_halves:")
    e(".endif")
    for j in range(32):
        e(f"    ds_write_b16 v120, v{20 + j}, {4 * ROW * j}            ; As[w + {4 * j}][l]")
    e("wmma_store_b:")
    for j in range(16):
        e(f"    ds_write_b16 v121, v{52 + j}, {BS + 4 * j}          ; BsT[16 w + l mod 16][kb + {2 * j}]")
    e("    s_barrier                            ; both tiles complete")
    e("    v_add_u32 v68, v68, s27              ; A: 32 k on")
    e(".if A_PAIRS")
    e("    v_add_u32 v126, v126, s27")
    e(".endif")
    e("    v_add_u32 v70, v70, s28              ; B: 32 k on")
    e("    s_cmp_le_u32 s38, 32")
    e("    s_cbranch_scc1 wmma_last")
    e("    s_sub_u32 s38, s38, 32")
    e("    s_branch wmma_tile                   ; load the next tile, multiply this one")
    e("wmma_last:                               ; the last tile, nothing loaded behind it")
    multiply(0, "")
    e("    s_barrier                            ; every wave is done with the tiles: Cs may overwrite them")
    e("wmma_done:")
    e("    s_mov_b32 s97, 0                     ; the wave whose part step 4 stores next")
    e("    s_mov_b32 s96, s68                   ; m0")
    e(".if HAS_ACT")
    e("    v_mov_b32 v124, v12                  ; C's and the output's batch offsets: a FusedActivation's body may")
    e("    v_mov_b32 v125, v13                  ; take v10 .. v99 and s44 .. s55 (gemm.s, step 5)")
    e(".endif")
    e("wmma_part:")
    e("    v_lshr_b32 v3, v0, 5                 ; w")
    e("    v_cmp_eq_u32 vcc, s97, v3")
    e("    s_mov_b64 exec, vcc                  ; wave s97 writes its 32 x 64 part")
    e("    v_lshr_b32 v5, v0, 4")
    e("    v_and_b32 v5, v5, 1                  ; l / 16: the row (+ 16 f + 2 i)")
    e("    v_lshl_b32 v5, v5, 6")
    e("    v_and_b32 v6, v0, 15")
    e("    v_add_u32 v5, v5, v6                 ; column l mod 16 (+ 16 g)")
    e("    v_lshl_b32 v5, v5, 2                 ; &Cs[row][column]")
    for f in range(2):
        for g in range(4):
            acc = 128 + 8 * (4 * f + g)
            for i in range(8):
                e(f"    ds_write_b32 v5, v{acc + i}, {4096 * f + 64 * g + 512 * i}" + ("            ; D(%d, %d)" % (f, g) if i == 0 else ""))
    e("    s_mov_b64 exec, s[66:67]")
    e("    s_barrier                            ; the part in Cs")
    e("    v_lshl_b32 v6, v2, 10")
    e("    v_lshl_b32 v7, v1, 4")
    e("    v_add_u32 v6, v6, v7                 ; &Cs[4 ty][4 tx]")
    e("    ds_read_b128 v[48:51], v6, 0         ; acc[0][0 .. 3]")
    e("    ds_read_b128 v[52:55], v6, 256       ; acc[1][..]")
    e("    ds_read_b128 v[56:59], v6, 512       ; acc[2][..]")
    e("    ds_read_b128 v[60:63], v6, 768       ; acc[3][..]")
    e(".if HAS_ACT")
    e("    s_load_dwordx8 s[40:47], s[2:3], ${CB_GEMM_M}   ; M's and N's records again (the last part's body took them)")
    e("    s_load_dwordx8 s[48:55], s[2:3], ${CB_GEMM_N}")
    e("    v_mov_b32 v12, v124")
    e("    v_mov_b32 v13, v125")
    e(".endif")
    e("    s_waitcnt 0")
    e("    s_barrier                            ; every thread has its block: the next part may overwrite Cs")
    e("    s_lshl_b32 s24, s97, 5")
    e("    s_add_u32 s68, s96, s24              ; the part's m0: m0 + 32 s97")
    e("    s_branch finish")
    return "\n".join(lines) + "\n"


def main():
    with open(TARGET, "w", encoding="utf-8") as f:
        f.write(source())


if __name__ == "__main__":
    main()
