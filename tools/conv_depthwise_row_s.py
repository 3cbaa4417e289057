"""Writes kernels/conv_depthwise_row.s and kernels/conv_depthwise_row_stores.inc, the depthwise 3 x 3 convolution
from registers, unrolled.

The kernel is straight-line code (the thread's ROWS x 3 input window loaded once, its 9 P multiply-adds in kernel row
then kernel column order, a masked and an unmasked copy of both, P stores) that the assembler has no macros for, and
it has a variant per Strides H (SH 1: P = 8 pixels, ROWS = 10; SH 2: P = 4, ROWS = 9); this script is its one source:
the register plan (the window x[r][kw] in v(20 + 3 r + kw), the weights in v11 .. v19, the masks R<r> and M<kw>) and
the rule that input row r feeds pixel j's kernel row kh = r - SH j are written once here, and every `.if SH == <sh>`
block is this rule evaluated for one row of conv_depthwise_ops.ROW_PIXELS.
tests/directml/test_convolution_depthwise.py checks that the committed files are what this writes.

    .venv/bin/python -m dmlemu.tools.conv_depthwise_row_s    # rewrites both files
"""
import os

from dmlemu.kernels.conv_depthwise_ops import ROW_PIXELS, ROW_WINDOW

KH, KW = ROW_WINDOW     # the filter the kernel is unrolled for
WEIGHTS = 11            # the vector-loaded weights, w[kh][kw] in v(11 + 3 kh + kw)
WINDOW = 20             # the input window, x[r][kw] in v(20 + 3 r + kw)
COLUMN_MASKS = (40, 42, 44)                             # M<kw>: s[40:41] ..
ROW_MASKS = (46, 48, 50, 52, 54, 64, 66, 68, 70, 72)    # R<r>: s[46:47] .. (s[64:73] after the setup's records)
LIVE = "s[90:91]"       # the live lanes
NEG_ZERO = "0x80000000"
KERNEL_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "kernels")
TARGET = os.path.join(KERNEL_DIR, "conv_depthwise_row.s")
STORES_TARGET = os.path.join(KERNEL_DIR, "conv_depthwise_row_stores.inc")
HEADER = """; =============================================================================================
; conv_depthwise_row.s: DML_OPERATOR_CONVOLUTION FORWARD, depthwise (GroupCount = C = K: one 3 x 3
; filter per channel), two spatial dimensions, Strides H of 1 or 2 (SH), any Strides W,
; Dilations of 1, x and the output packed along W, as GPU libraries write a depthwise convolution:
; each thread computes P output pixels of one column (P = 8 for SH 1, 4 for SH 2) from registers,
; adjacent lanes take adjacent columns (every load and store of a wave is one contiguous run), no
; LDS and no barrier (kernels/conv_depthwise_ops.py picks it and computes the constants below).
;
; Launch: a grid of workgroups (X, 1, Z) = (ceil(STRIPS OW / 64), 1, N C) of 64 threads, STRIPS =
; ceil(OH / P); s4 the group's X, s6 its Z = n C + k, v1 the thread's id (docs/KERNEL_ABI.md).
; A wave with no thread t < STRIPS OW ends at once. Thread t = 64 X + v1 (t < STRIPS OW) computes
; out[n, k, oh0 .. oh0 + P - 1, ow], oh0 = P strip.
; Its (strip, ow), the interior first, as libraries split the border from the bulk:
;   the interior block, strips R_LO .. R_LO + NRI - 1 x columns S_LO .. S_LO + NI - 1 (every tap of
;   every pixel inside the input, every pixel inside the output), takes t < BLOCK = NRI NI:
;   strip = R_LO + t / NI, ow = S_LO + t mod NI;
;   the border takes the rest, u = t - BLOCK: first the strips outside R_LO .. R_LO + NRI - 1,
;   whole (u < FULL = (STRIPS - NRI) OW: r = u / OW, strip = r or r + NRI), then the interior
;   strips' border columns (v = u - FULL: strip = R_LO + v / NE, e = v mod NE, ow = e or e + NI;
;   NE = OW - NI).
; The thread's window is ROWS = (P - 1) SH + 3 input rows ih0 + r (ih0 = oh0 Sh - Ph) by 3 columns
; iw0 + kw (iw0 = ow Sw - Pw; column kw's byte offset is the load's immediate COL<kw>): each input
; element it needs is loaded once, the channel's 9 weights once (SMEM_W, FLOAT32 with the 9 taps
; adjacent: two scalar loads into s96 .. s104, W<kh><kw> naming each tap's register; else one vector
; load a tap at a uniform address into v11 .. v19; CONVOLUTION mode: negative filter strides and
; the flipped origin, so the kernel never knows the mode). Input row r feeds acc_j for kh = r - SH j
; in 0 .. 2: going through the rows ascending and in each the columns ascending, acc_j =
; fma(x[r][kw], w[kh][kw], acc_j) is rounded once per tap in kernel row, then kernel column order:
; docs/NUMERICS.md's "Convolution" for one channel, the bits of the direct kernel and of the golden
; model.
; A wave whose live lanes are all in the block takes the fast path: every load issued at once, then
; row by row as it arrives (s_waitcnt counting down), no masks. Any other wave takes the masked path:
; column kw's loads and multiply-adds run under EXEC = R<r> and M<kw> (R<r>: 0 <= ih0 + r < IH;
; M<kw>: 0 <= iw0 + kw < IW; one unsigned compare each): a padded element is never read and a padded
; tap's lane is outside EXEC, skipped, never fma(0, w, acc).
; Then per pixel j (conv_depthwise_row_store.inc, oh0 + j < OH): acc + bias[k] (HAS_BIAS, one
; rounding), the FusedActivation's own body (HAS_ACT, element_wise_bodies.inc on v10 in FLOAT32),
; FLOAT16 rounds once, the store.
; Per pixel the fast path issues 3 ROWS / P loads (3.75 for SH 1), 9 multiply-adds (the first of
; each accumulator from -0) and about 12 instructions of setup, addresses and store; on the H200
; preset the 1 x 128 x 56 x 56 layer averages 38 lane issue cycles an output, border included, where
; the LDS tile kernel (conv_depthwise.s) takes 175: a streaming kernel's count.
;
; Constant buffer (RECORDS; conv_depthwise_ops.ROW_RECORD_USE is the table):
;   record 0  OW, magic, shift1, shift2, STRIPS OW, row bytes of the output, of x, of w (each a
;             stride H << SHIFT_IN; w's the tap step)
;   record 1  IW, IH, Sw, Sh, w's column bytes (tap step W << SHIFT_IN), the lowest tap's offset, Pw, Ph
;   record 2  OW, OH, C, C magic, shift1, shift2, BLOCK, FULL
;   record 3  x strides N, C, H, W; w stride K, w tap step H, w tap step W, w base
;   record 4  output strides N, C, H, W; bias stride C; R_LO, S_LO, NRI
;   record 5  NI, magic, shift1, shift2, NE, magic, shift1, shift2 (a divisor of 0: 1's)
;   PARAM0 .. the FusedActivation's attributes (P_<NAME>)
; Scalars: s[90:91] the live lanes, s92 n, s93 k, s94 x[n, k, 0, 0], s95 the path (0 fast), s96
; out[n, k, 0, 0] (then SMEM_W's weights in s96 .. s104), s89 w[k, 0, 0, 0]; the masked path's
; M<kw> in s[40:45] and R<r> in s[46:55] and, once the setup has read them, the records' s[64:73].
;
; Written by tools/conv_depthwise_row_s.py, its one source (edit that, then run it): the input rows
; and pixels every Strides H has come once, a stride's further ones and its multiply-adds under
; `.if SH == <Strides H>`; x[ih0 + r][iw0 + kw] lives in v(20 + 3 r + kw), w[kh][kw] in W<kh><kw>.
; ============================================================================================="""
SETUP = """    s_load_dwordx4 s[8:11], s[0:1], ${DESC_X}       ; x's buffer descriptor
    s_load_dwordx4 s[12:15], s[0:1], ${DESC_W}      ; w's
.if HAS_BIAS
    s_load_dwordx4 s[16:19], s[0:1], ${DESC_BIAS}   ; the bias's
.endif
    s_load_dwordx4 s[20:23], s[0:1], ${DESC_OUT}    ; the output's
    s_load_dwordx8 s[24:31], s[2:3], ${CB_DWR_GRID}   ; OW, magic, shift1, shift2, STRIPS OW, row bytes: out, x, w
    s_load_dwordx8 s[32:39], s[2:3], ${CB_DWR_IN}     ; IW, IH, Sw, Sh, w column bytes, -, Pw, Ph
    s_load_dwordx8 s[56:63], s[2:3], ${CB_DWR_OUT}    ; OW, OH, C, magic, shift1, shift2, BLOCK, FULL
    s_load_dwordx8 s[64:71], s[2:3], ${CB_DWR_X}      ; x N, C, H, W; w K, w tap H, w tap W, w base
    s_load_dwordx8 s[72:79], s[2:3], ${CB_DWR_STRIDES} ; out N, C, H, W; bias C; R_LO, S_LO, NRI
    s_load_dwordx8 s[80:87], s[2:3], ${CB_DWR_BLOCK}   ; NI, magic, shift1, shift2, NE, magic, shift1, shift2
    s_waitcnt 0
; ---- n = Z / C, k = Z - n C (one division for the wave); the channel's bases -------------------------
.include "depthwise_channel.inc"             ; s92 n, s93 k, s94 x[n, k, 0, 0]
    s_mul_i32 s89, s93, s68
    s_add_u32 s89, s89, s71              ; w[k, 0, 0, 0]: w base + k w_K (flipped in CONVOLUTION mode)
    s_mul_i32 s96, s92, s72
    s_mul_i32 s88, s93, s73
    s_add_u32 s96, s96, s88              ; out[n, k, 0, 0]
    v_mov_b32 ${BIAS_V}, 0
.if HAS_BIAS
    s_mul_i32 s88, s93, s76
    s_lshl_b32 s88, s88, ${SHIFT_IN}
    v_mov_b32 v3, s88
    buffer_load_${LOAD} ${BIAS_V}, v3, s[16:19], 0   ; bias[k]
.endif
; ---- the lane's (strip, ow): the interior block first, then the border ---------------------------------
    s_lshl_b32 s88, s4, 6
    v_add_u32 v3, v1, s88                ; t = 64 X + tid
    v_cmp_gt_u32 vcc, s28, v3
    s_and_b64 s[90:91], exec, vcc        ; the live lanes: t < STRIPS OW
    s_mov_b64 exec, s[90:91]
    s_cbranch_execz done                 ; a wave past the plane's end
    v_mul_hi_u32 v4, v3, s81
    v_sub_u32 v5, v3, v4
    v_lshr_b32 v5, v5, s82
    v_add_u32 v4, v4, v5
    v_lshr_b32 v4, v4, s83               ; t / NI
    v_mul_lo_u32 v5, v4, s80
    v_sub_u32 v5, v3, v5                 ; t mod NI
    v_add_u32 v4, v4, s77                ; strip = R_LO + t / NI
    v_add_u32 v5, v5, s78                ; ow = S_LO + t mod NI
    s_mov_b32 s95, 0                     ; the fast path
    v_cmp_gt_u32 vcc, s62, v3            ; t < BLOCK
    s_andn2_b64 vcc, s[90:91], vcc
    s_cbranch_vccz mapped                ; every live lane in the block
    s_mov_b32 s95, 1                     ; the masked path
    s_mov_b64 s[98:99], vcc              ; the border's lanes
    v_sub_u32 v6, v3, s62             ; u = t - BLOCK
    v_mul_hi_u32 v7, v6, s25
    v_sub_u32 v8, v6, v7
    v_lshr_b32 v8, v8, s26
    v_add_u32 v7, v7, v8
    v_lshr_b32 v7, v7, s27               ; r = u / OW
    v_mul_lo_u32 v8, v7, s24
    v_sub_u32 v8, v6, v8                 ; u mod OW
    v_cmp_gt_u32 vcc, s77, v7
    v_add_u32 v9, v7, s79
    v_cndmask_b32 v7, v9, v7, vcc        ; strip = r below R_LO, else r + NRI
    v_sub_u32 v6, v6, s63             ; v = u - FULL
    v_mul_hi_u32 v9, v6, s85
    v_sub_u32 v10, v6, v9
    v_lshr_b32 v10, v10, s86
    v_add_u32 v9, v9, v10
    v_lshr_b32 v9, v9, s87               ; v / NE
    v_mul_lo_u32 v10, v9, s84
    v_sub_u32 v10, v6, v10               ; e = v mod NE
    v_add_u32 v9, v9, s77                ; strip = R_LO + v / NE
    v_cmp_gt_u32 vcc, s78, v10
    v_add_u32 v6, v10, s80
    v_cndmask_b32 v10, v6, v10, vcc      ; ow = e below S_LO, else e + NI
    v_sub_u32 v6, v3, s62
    v_cmp_gt_u32 vcc, s63, v6            ; u < FULL: a row outside the interior rows
    v_cndmask_b32 v9, v9, v7, vcc
    v_cndmask_b32 v10, v10, v8, vcc
    s_mov_b64 vcc, s[98:99]
    v_cndmask_b32 v4, v4, v9, vcc        ; the border's lanes take the border's (strip, ow)
    v_cndmask_b32 v5, v5, v10, vcc
mapped:
    v_mov_b32 ${OW_V}, v5                ; ow
    v_lshl_b32 ${OH_V}, v4, ${P_SHIFT}   ; oh0 = P strip
    v_mul_lo_u32 v6, v5, s34
    v_sub_u32 v6, v6, s38                ; iw0 = ow Sw - Pw (modulo 2^32)
    v_mul_lo_u32 v7, ${OH_V}, s35
    v_sub_u32 v7, v7, s39                ; ih0 = oh0 Sh - Ph
    v_mul_lo_u32 v8, v7, s66
    v_add_u32 v8, v8, v6
    v_add_u32 v8, v8, s94
    v_lshl_b32 v8, v8, ${SHIFT_IN}       ; &x[n, k, ih0, iw0] in bytes (modulo 2^32)
    v_mul_lo_u32 ${OUT_V}, ${OH_V}, s74
    v_add_u32 ${OUT_V}, ${OUT_V}, v5
    v_add_u32 ${OUT_V}, ${OUT_V}, s96
    v_lshl_b32 ${OUT_V}, ${OUT_V}, ${SHIFT_IN}   ; &out[n, k, oh0, ow] in bytes (output packed along W)
; ---- the channel's 9 weights: SMEM_W (FLOAT32, the 9 taps adjacent) two scalar loads into s96 .. s104 (s37:
; the lowest tap's offset from w[k, 0, 0, 0], -8 when flipped), else one vector load a tap (uniform addresses) --"""
SMEM_WEIGHTS = """    s_add_u32 s84, s89, s37
    s_lshl_b32 s84, s84, 2
    s_load_dwordx8 s[96:103], s[12:13], s84   ; the filter's taps in address order
    s_add_u32 s84, s84, 32
    s_load_dword s104, s[12:13], s84"""
TAIL = """
; ---- per pixel j: bias, the FusedActivation, narrow, store (the masked path: under its mask) ------------
; The activation's body may use v10 .. v99, s38, s39 and s44 .. s51 (P_<NAME>): what the stores need
; stays in ACC0 .. BIAS_V (v100 .. v111 with HAS_ACT, else after the window) and s[90:91], s29, s57.
.set MASKED, 1
stores:
.include "conv_depthwise_row_stores.inc"
.set MASKED, 0
fast_stores:
.include "conv_depthwise_row_stores.inc"
done:
    s_endpgm"""
STORES_HEAD = """; conv_depthwise_row_stores.inc: conv_depthwise_row.s's P pixels (conv_depthwise_row_store.inc each), then
; s_endpgm; MASKED: each store under oh0 + j < OH (the masked path's), else every pixel stored (the block's).
; Written by tools/conv_depthwise_row_s.py.
    s_waitcnt 0                          ; the bias
    s_mov_b64 exec, s[90:91]
.if WIDEN_F16
.if HAS_BIAS
    v_cvt_f32_f16 ${BIAS_V}, ${BIAS_V}
.endif
.endif
.if HAS_ACT
    s_load_dwordx4 s[44:47], s[2:3], ${CB_PARAM0}   ; the activation's attributes (P_<NAME>)
    s_waitcnt 0
.endif"""


def _rows(sh):
    """ROWS: the input rows of a thread's window at Strides H `sh`, (P - 1) SH + 3."""
    return (ROW_PIXELS[sh] - 1) * sh + KH


def _pair(first):
    return f"s[{first}:{first + 1}]"


def _x(r, kw):
    """The register of the window's element x[ih0 + r][iw0 + kw]."""
    return f"v{WINDOW + KW * r + kw}"


def _feeds(sh, r):
    """(j, kh) for each pixel j that input row r feeds, j ascending: kh = r - SH j in 0 .. KH - 1."""
    return [(j, r - sh * j) for j in range(ROW_PIXELS[sh]) if 0 <= r - sh * j < KH]


def _offset(kw):
    """Column kw's load immediate (its byte offset from iw0)."""
    return "0" if kw == 0 else f"${{COL{kw}}}"


def _per_stride(e, body):
    """body(sh) under `.if SH == sh`, for each Strides H the kernel is written for."""
    for sh in ROW_PIXELS:
        e(f".if SH == {sh}")
        body(sh)
        e(".endif")


def _unrolled(e, counts, body):
    """body(i) for i below counts[sh] at each Strides H sh: the i every stride has once, then each stride's
    further ones under `.if SH == sh` (the same instructions for every stride, so no copy of them)."""
    common = min(counts.values())
    for i in range(common):
        body(i)
    for sh, count in counts.items():
        if count > common:
            e(f".if SH == {sh}")
            for i in range(common, count):
                body(i)
            e(".endif")


def _per_pixel(e, body):
    """body(j) for each of the P pixels j."""
    _unrolled(e, ROW_PIXELS, body)


def _per_row(e, body):
    """body(r) for each of the ROWS input rows r."""
    _unrolled(e, {sh: _rows(sh) for sh in ROW_PIXELS}, body)


def _vector_weights(e):
    """The 9 weights, one vector load a tap at a uniform address, w[kh][kw] into v(11 + 3 kh + kw)."""
    e("    s_lshl_b32 s84, s89, ${SHIFT_IN}")
    for kh in range(KH):
        if kh:
            e("    s_add_u32 s84, s84, s31")
        e("    v_mov_b32 v3, s84")
        for kw in range(KW):
            if kw:
                e("    v_add_u32 v3, v3, s36")
            load = f"    buffer_load_${{LOAD}} v{WEIGHTS + KW * kh + kw}, v3, s[12:15], 0"
            e(f"{load}     ; w[k, 0, {kh}, {kw}]" if kh == 0 or kw == 0 else load)


def _widen_weights(e, comment):
    for i in range(KH * KW):
        e(f"    v_cvt_f32_f16 v{WEIGHTS + i}, v{WEIGHTS + i}" + (comment if i == 0 else ""))


def _widen_row(e, r):
    for kw in range(KW):
        e(f"    v_cvt_f32_f16 {_x(r, kw)}, {_x(r, kw)}")


def _fma(e, j, r, kh, kw, fast):
    """acc_j = fma(x[r][kw], w[kh][kw], acc_j); the fast path's first tap of acc_j starts from -0."""
    first = fast and kh == 0 and kw == 0
    e(f"    v_fma_f32 ${{ACC{j}}}, {_x(r, kw)}, ${{W{kh}{kw}}}, {NEG_ZERO if first else f'${{ACC{j}}}'}"
      f"   ; j {j} kh {kh} kw {kw}{' from -0' if first else ''}")


def _masked(e):
    """The masked path: acc_j = -0, the masks, every load under its own, then the multiply-adds under theirs."""
    e("; ---- the masked path: the masks, every load under its own, then the multiply-adds under theirs ----------")
    _per_pixel(e, lambda j: e(f"    v_mov_b32 ${{ACC{j}}}, {NEG_ZERO}" + ("        ; acc_j = -0" if j == 0 else "")))
    for kw in range(KW):
        if kw:
            e(f"    v_add_u32 v9, v6, {kw}")
        e(f"    v_cmp_gt_u32 vcc, s32, {'v9' if kw else 'v6'}")
        e(f"    s_and_b64 {_pair(COLUMN_MASKS[kw])}, {LIVE}, vcc    ; M{kw}"
          + (": column iw0 inside the input" if kw == 0 else ""))

    def row_mask(r):
        if r:
            e("    v_add_u32 v7, v7, 1")
        e("    v_cmp_gt_u32 vcc, s33, v7")
        e(f"    s_and_b64 {_pair(ROW_MASKS[r])}, {LIVE}, vcc    ; R{r}: input row ih0 + {r} inside the input")

    def load_row(r):
        if r:
            e(f"    s_mov_b64 exec, {LIVE}")
            e(f"    v_add_u32 v8, v8, s30                ; input row {r}")
        for kw in range(KW):
            e(f"    s_and_b64 exec, {_pair(ROW_MASKS[r])}, {_pair(COLUMN_MASKS[kw])}")
            e(f"    buffer_load_${{LOAD}} {_x(r, kw)}, v8, s[8:11], {_offset(kw)}")

    def fmas(sh):
        for r in range(_rows(sh)):
            for kw in range(KW):
                e(f"    s_and_b64 exec, {_pair(ROW_MASKS[r])}, {_pair(COLUMN_MASKS[kw])}")
                for j, kh in _feeds(sh, r):
                    _fma(e, j, r, kh, kw, False)

    _per_row(e, row_mask)
    _per_row(e, load_row)
    e("    s_waitcnt 0")
    e(".if WIDEN_F16")
    e(f"    s_mov_b64 exec, {LIVE}")
    _widen_weights(e, "               ; FLOAT16 widened, exactly")
    _per_row(e, lambda r: _widen_row(e, r))
    e(".endif")
    _per_stride(e, fmas)
    e("    s_branch stores")


def _fast(e):
    """The fast path: every load issued at once, then row by row as it arrives, no masks."""
    e("; ---- the fast path: every tap inside, every pixel stored; the rows as they arrive ------------------------")
    e("fast:")

    def load_row(r):
        if r:
            e(f"    v_add_u32 v8, v8, s30                ; input row {r}")
        for kw in range(KW):
            e(f"    buffer_load_${{LOAD}} {_x(r, kw)}, v8, s[8:11], {_offset(kw)}")

    def fmas(sh):
        rows = _rows(sh)
        for r in range(rows):
            e(f"    s_waitcnt {KW * (rows - 1 - r)}                  ; input row {r} arrived")
            e(".if WIDEN_F16")
            if r == 0:
                _widen_weights(e, "   ; the weights")
            _widen_row(e, r)
            e(".endif")
            for kw in range(KW):
                for j, kh in _feeds(sh, r):
                    _fma(e, j, r, kh, kw, True)

    _per_row(e, load_row)
    _per_stride(e, fmas)
    e("    s_branch fast_stores")


def source():
    """The text of kernels/conv_depthwise_row.s."""
    lines = []
    e = lines.append
    e(HEADER)
    e(SETUP)
    e(".if SMEM_W")
    e(SMEM_WEIGHTS)
    e(".else")
    _vector_weights(e)
    e(".endif")
    e("    s_cmp_eq_u32 s95, 0")
    e("    s_cbranch_scc1 fast")
    _masked(e)
    _fast(e)
    e(TAIL)
    return "\n".join(lines) + "\n"


def stores_source():
    """The text of kernels/conv_depthwise_row_stores.inc: the P pixels' stores (conv_depthwise_row_store.inc each)."""
    lines = []
    e = lines.append
    e(STORES_HEAD)

    def store(j):
        e(f".set ACCJ, ${{ACC{j}}}")
        e(f".set J, {j}")
        e('.include "conv_depthwise_row_store.inc"')

    _per_pixel(e, store)
    e("    s_endpgm")
    return "\n".join(lines) + "\n"


def main():
    for target, text in ((TARGET, source()), (STORES_TARGET, stores_source())):
        with open(target, "w", encoding="utf-8") as f:
            f.write(text)


if __name__ == "__main__":
    main()
