# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
"""The compiled fused multiply-add: v_fma_f16, v_fma_f32 and v_fma_f64 over whole lane arrays, in C.

One optional extension module (setup.py builds it where a C compiler is). numerics.fused_multiply_add and
numerics.fused_multiply_add_f64 call it when it is importable (and DMLEMU_NUMERICS is not `reference`);
otherwise they run their NumPy references (numerics.fused_multiply_add_reference, ..._f64_reference),
which cost 15 to 130 ns a lane because an exact a * b + c takes a dozen or more whole-array passes. The results
are the same bits (tests/isa/test_fma_fast_path.py compares every special value, random bit patterns and
broadcast shapes): a * b + c rounded once to nearest even, IEEE special cases (inf * 0 and inf - inf are
NaN, an exact zero sum is +0 unless both addends are -0, a non-zero result that rounds to zero keeps its
sign), every NaN replaced by the canonical NaN bits the caller passes (numerics.CANONICAL_NAN_BITS).

How each type rounds once:
- float16 and float32: the product of two float16 (11 x 11 bits) or float32 (24 x 24 bits) values is exact
  in double; the sum p + c is rounded to odd in double (TwoSum gives the exact error; an inexact sum with
  an even last bit steps one ulp toward the error), and rounding that to the destination's nearest even
  is the correctly rounded a * b + c (Boldo and Melquiond 2008: 53 >= p + 2 bits). No libm function is
  used. double -> float is the hardware's conversion; double -> float16 (C has no portable half type)
  rounds to odd at 24 bits, which a float holds, then to float16 on the float's bits, as
  numerics.narrow_f64_to_f16 does. float32 on an x86-64 CPU with FMA3 runs the CPU's own fused multiply-add
  instead (vfmadd: IEEE's fusedMultiplyAdd on binary32, the same bits, about five times faster per lane); the
  choice is made once from cpuid, and hardware_fma() reads or sets it (the tests run both routes).
- float64: C99's fma(), which glibc, musl and the current Microsoft CRT compute correctly rounded (in
  hardware where the CPU has FMA); the tests check it against the reference on the machine that built it.

Operands are 3-D strided views of one shape, blocks of rows of lanes (the caller broadcasts them: a stride
of 0 reads one value for every lane, row or block; a wave matrix instruction's outer products are blocks of
16 x 16 with one operand constant along a row and the other along a column); the output is a fresh
C-contiguous array of the destination's unsigned bits. The loops run row by row over contiguous lanes (a
row whose lanes are not adjacent, as a broadcast operand's, is copied into a buffer first, once where
rows repeat), so that the compiler vectorises them.
"""
from libc.stdint cimport uint16_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc

cdef extern from *:
    """
    #include <math.h>
    #include <stdint.h>
    #include <string.h>

    static inline double dmlemu_f64(uint64_t bits) { double x; memcpy(&x, &bits, 8); return x; }
    static inline uint64_t dmlemu_bits64(double x) { uint64_t b; memcpy(&b, &x, 8); return b; }
    static inline float dmlemu_f32(uint32_t bits) { float x; memcpy(&x, &bits, 4); return x; }
    static inline uint32_t dmlemu_bits32(float x) { uint32_t b; memcpy(&b, &x, 4); return b; }

    /* Every selection below is a mask (all ones or zero) and bit operations, the masks made by
       arithmetic shifts of differences rather than C comparisons where a comparison would let the
       compiler branch on it: the row loops then have no branch and vectorise (see the row functions). */

    /* The float16 with these bits, exactly, as a float. Its exponent and significand bits, placed at
       the top of a float's significand field and the bottom of its exponent field, are a float of value
       2^-112 times the float16's (a float subnormal for a float16 subnormal); times 2^112, exact.
       Infinities and NaNs (exponent 31) are built from bits. */
    static inline float dmlemu_half_to_float(uint16_t h) {
        uint32_t x = h;
        uint32_t sign = (x & 0x8000) << 16;
        uint32_t finite = dmlemu_bits32(dmlemu_f32((x & 0x7FFF) << 13) * 0x1p112f);
        uint32_t special = 0x7F800000u | ((x & 0x3FF) << 13);
        uint32_t is_special = (x & 0x7C00) == 0x7C00 ? ~0u : 0;
        return dmlemu_f32(sign | (special & is_special) | (finite & ~is_special));
    }

    /* x rounded once to float16, to nearest even, as bits: overflow -> inf, subnormals kept, a non-zero
       x that rounds to zero keeps its sign, NaN -> nan_bits. As numerics.narrow_f64_to_f16: |x| is
       clamped into [2^-30, 2^17] (every value outside rounds to the same float16), rounded to odd at 24
       bits (the low 29 significand bits cleared, bit 29 set if any was set), which a float holds
       exactly; that float is rounded to float16 on its bits, after F. Giesen's float_to_half_fast3_rtne:
       - a normal float16: the exponent is rebiased (127 -> 15) and 2^12 - 1, plus the last kept bit,
         added before shifting off the 13 dropped bits: the carry rounds to nearest even, and a
         significand that rounds up to 2^11 carries into the exponent (65520 and above reach 0x7C00,
         inf; larger values are clamped to it);
       - a subnormal float16 (|x| < 2^-14): the 24-bit significand shifted right to the grid of 2^-24
         (14 to 31 bits) with the same carry rounding (a result of 1024 is the smallest normal's bits). */
    static inline uint16_t dmlemu_double_to_half(double x, uint16_t nan_bits) {
        uint64_t bits = dmlemu_bits64(x);
        uint32_t sign = (uint32_t)(bits >> 48) & 0x8000;
        uint64_t u = bits & 0x7FFFFFFFFFFFFFFFULL;
        uint64_t nan = (uint64_t)((int64_t)(0x7FF0000000000000ULL - u) >> 63);
        uint64_t big = (uint64_t)((int64_t)(0x4100000000000000ULL - u) >> 63);               /* above 2^17 */
        uint64_t tiny = (uint64_t)(((int64_t)(u - 0x3E10000000000000ULL) >> 63)              /* below 2^-30 */
                                   & ~((int64_t)(u - 1) >> 63));                            /* and not 0 */
        u = (u & ~(big | tiny)) | (0x4100000000000000ULL & big) | (0x3E10000000000000ULL & tiny);
        uint64_t sticky = (u & ((1ULL << 29) - 1)) != 0 ? (1ULL << 29) : 0;
        uint32_t v = dmlemu_bits32((float)dmlemu_f64((u & ~((1ULL << 29) - 1)) | sticky));
        uint32_t normal = (v - ((uint32_t)(127 - 15) << 23) + 0xFFF + ((v >> 13) & 1)) >> 13;
        normal = normal < 0x7C00 ? normal : 0x7C00;
        int32_t shift = 126 - (int32_t)(v >> 23);
        shift = shift < 14 ? 14 : shift;
        shift = shift > 31 ? 31 : shift;
        uint32_t m = (v & 0x7FFFFF) | 0x800000;
        uint32_t subnormal = (m + ((1u << (shift - 1)) - 1) + ((m >> shift) & 1)) >> shift;
        uint32_t small = (uint32_t)((int32_t)(v - 0x38800000u) >> 31);                       /* below 2^-14 */
        uint32_t o = sign | (subnormal & small) | (normal & ~small);
        return (uint16_t)((o & ~(uint32_t)nan) | (nan_bits & (uint32_t)nan));
    }

    /* p + c for exact double p and c, rounded to odd: the nearest double, or if the sum was inexact and
       that double's last bit is even, its neighbour toward the exact sum. Non-finite sums unchanged.
       Branch-free, in 64-bit masks (a branch on the inexact test, unpredictable on real data, cost
       about 3 ns a lane; masks rather than C comparisons let the compiler vectorise the loop): the step
       is +1 or -1 (the sign of err against s's) where the sum was inexact, finite and even, else 0.
       (Compilers may contract p = a * b; p + c into one fma: the same bits, the product being exact.) */
    static inline double dmlemu_sum_to_odd(double p, double c) {
        double s = p + c;
        double bb = s - p;
        double err = (p - (s - bb)) + (c - bb);     /* TwoSum: (p + c) - s exactly (NaN if s is not finite) */
        int64_t bits = (int64_t)dmlemu_bits64(s);
        int64_t inexact = err != 0.0 ? -1 : 0;
        int64_t finite = fabs(s) <= 0x1.fffffffffffffp1023 ? -1 : 0;
        int64_t even = (bits & 1) - 1;
        int64_t step = (((int64_t)dmlemu_bits64(err) ^ bits) >> 63) | 1;
        return dmlemu_f64((uint64_t)(bits + (step & inexact & finite & even)));
    }

    static inline uint16_t dmlemu_fma_f16(uint16_t a, uint16_t b, uint16_t c, uint16_t nan_bits) {
        double p = (double)dmlemu_half_to_float(a) * (double)dmlemu_half_to_float(b);
        return dmlemu_double_to_half(dmlemu_sum_to_odd(p, (double)dmlemu_half_to_float(c)), nan_bits);
    }

    static inline uint32_t dmlemu_fma_f32(float a, float b, float c, uint32_t nan_bits) {
        float r = (float)dmlemu_sum_to_odd((double)a * (double)b, (double)c);
        return r != r ? nan_bits : dmlemu_bits32(r);
    }

    static inline uint64_t dmlemu_fma_f64(double a, double b, double c, uint64_t nan_bits) {
        double r = fma(a, b, c);
        return r != r ? nan_bits : dmlemu_bits64(r);
    }

    /* One row of contiguous lanes. Speed: the float16 and float32 bodies have no branch, so with
       non-aliasing (__restrict) unit-stride pointers GCC vectorises the loop where the target has 64-bit vector
       shifts and compares: on x86-64 with GCC or Clang on an ELF system each row function is also
       built for AVX2 and the loader picks it on CPUs that have it (target_clones; the same operations
       in each lane, so the same bits). Scalar loops took 6.3 ns a float16 lane, 3.7 a float32 one. */
    #if defined(__x86_64__) && defined(__ELF__) && (defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 6))
    #define DMLEMU_CLONES __attribute__((target_clones("avx2", "default")))
    #else
    #define DMLEMU_CLONES
    #endif
    DMLEMU_CLONES static void dmlemu_fma_f16_row(const uint16_t *__restrict a, const uint16_t *__restrict b,
                                   const uint16_t *__restrict c, uint16_t *__restrict out, Py_ssize_t n,
                                   uint16_t nan_bits) {
        for (Py_ssize_t j = 0; j < n; j++) out[j] = dmlemu_fma_f16(a[j], b[j], c[j], nan_bits);
    }
    DMLEMU_CLONES static void dmlemu_fma_f32_row_odd(const float *__restrict a, const float *__restrict b,
                                   const float *__restrict c, uint32_t *__restrict out, Py_ssize_t n,
                                   uint32_t nan_bits) {
        for (Py_ssize_t j = 0; j < n; j++) out[j] = dmlemu_fma_f32(a[j], b[j], c[j], nan_bits);
    }

    /* float32 on a CPU with FMA3 (x86-64 since Haswell and Piledriver): its vfmadd instructions are
       IEEE 754-2008's fusedMultiplyAdd on binary32, rounded once to nearest even with the same special
       cases (inf * 0 and inf - inf NaN, the sign of an exact zero sum, subnormals kept: Python runs with
       MXCSR's flush-to-zero and denormals-are-zero off, which the double route needs as well). The
       same bits as dmlemu_fma_f32 (tests/isa/test_fma_fast_path.py), about five times faster; the loader-time
       choice is the CPU's (cpuid), made once. */
    #if defined(__x86_64__) && (defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 6))
    #define DMLEMU_HW_FMA 1
    __attribute__((target("avx2,fma"))) static void dmlemu_fma_f32_row_hw(
            const float *__restrict a, const float *__restrict b, const float *__restrict c,
            uint32_t *__restrict out, Py_ssize_t n, uint32_t nan_bits) {
        for (Py_ssize_t j = 0; j < n; j++) {
            float r = __builtin_fmaf(a[j], b[j], c[j]);
            uint32_t bits = dmlemu_bits32(r);
            uint32_t nan = (uint32_t)((int32_t)(0x7F800000u - (bits & 0x7FFFFFFFu)) >> 31);
            out[j] = (bits & ~nan) | (nan_bits & nan);
        }
    }
    static int dmlemu_has_hw_fma = -1;
    #endif

    static void dmlemu_fma_f32_row(const float *a, const float *b, const float *c, uint32_t *out, Py_ssize_t n,
                                   uint32_t nan_bits) {
    #ifdef DMLEMU_HW_FMA
        if (dmlemu_has_hw_fma < 0) {
            __builtin_cpu_init();
            dmlemu_has_hw_fma = __builtin_cpu_supports("fma") && __builtin_cpu_supports("avx2");
        }
        if (dmlemu_has_hw_fma) { dmlemu_fma_f32_row_hw(a, b, c, out, n, nan_bits); return; }
    #endif
        dmlemu_fma_f32_row_odd(a, b, c, out, n, nan_bits);
    }

    /* Whether float32 rows run dmlemu_fma_f32_row_hw; `use` 0 or 1 sets it (1 only where the CPU has FMA3),
       -1 only asks. The tests run both rows on the same operands. */
    static int dmlemu_hardware_fma(int use) {
    #ifdef DMLEMU_HW_FMA
        if (dmlemu_has_hw_fma < 0 || use == 1) {
            __builtin_cpu_init();
            dmlemu_has_hw_fma = __builtin_cpu_supports("fma") && __builtin_cpu_supports("avx2");
        }
        if (use == 0) dmlemu_has_hw_fma = 0;
        return dmlemu_has_hw_fma;
    #else
        return 0;
    #endif
    }
    DMLEMU_CLONES static void dmlemu_fma_f64_row(const double *__restrict a, const double *__restrict b,
                                   const double *__restrict c, uint64_t *__restrict out, Py_ssize_t n,
                                   uint64_t nan_bits) {
        for (Py_ssize_t j = 0; j < n; j++) out[j] = dmlemu_fma_f64(a[j], b[j], c[j], nan_bits);
    }
    """
    void dmlemu_fma_f16_row(const uint16_t* a, const uint16_t* b, const uint16_t* c, uint16_t* out,
                            Py_ssize_t n, uint16_t nan_bits) nogil
    void dmlemu_fma_f32_row(const float* a, const float* b, const float* c, uint32_t* out,
                            Py_ssize_t n, uint32_t nan_bits) nogil
    int dmlemu_hardware_fma(int use)
    void dmlemu_fma_f64_row(const double* a, const double* b, const double* c, uint64_t* out,
                            Py_ssize_t n, uint64_t nan_bits) nogil

ctypedef fused lane_t:
    uint16_t
    float
    double


cdef int _check_shape(Py_ssize_t* shape, Py_ssize_t blocks, Py_ssize_t rows, Py_ssize_t width) except -1:
    """The loops index without bounds checks: every operand must have the output's shape."""
    if shape[0] != blocks or shape[1] != rows or shape[2] != width:
        raise ValueError(f"an operand has shape ({shape[0]}, {shape[1]}, {shape[2]}); the output has ({blocks}, "
                         f"{rows}, {width}) and every operand must have it (broadcast first)")
    return 0


cdef inline const lane_t* _row(const lane_t[:, :, :] x, Py_ssize_t i, Py_ssize_t j, lane_t* buffer) noexcept nogil:
    """Row (i, j) of x as contiguous lanes: x's own memory where its lanes are adjacent, else a copy in buffer
    (a broadcast operand: stride 0 along the row, one value; or a strided row), made again only where the row
    differs from the one before (rows go j within i: a row repeated along j or along both is copied once)."""
    cdef Py_ssize_t k
    cdef lane_t value
    if x.strides[2] == sizeof(lane_t):
        return &x[i, j, 0]
    if (i == 0 and j == 0) or x.strides[1] != 0 or (j == 0 and x.strides[0] != 0):
        if x.strides[2] == 0:
            value = x[i, j, 0]
            for k in range(x.shape[2]):
                buffer[k] = value
        else:
            for k in range(x.shape[2]):
                buffer[k] = x[i, j, k]
    return buffer


cdef int _fma(const lane_t[:, :, :] a, const lane_t[:, :, :] b, const lane_t[:, :, :] c, void* out,
              Py_ssize_t blocks, Py_ssize_t rows, Py_ssize_t width, uint64_t nan_bits) except -1:
    """out (blocks x rows x width, C order) = a * b + c rounded once, row by row."""
    cdef lane_t* buffers
    cdef const lane_t* ra
    cdef const lane_t* rb
    cdef const lane_t* rc
    cdef Py_ssize_t i, j, at
    _check_shape(a.shape, blocks, rows, width)
    _check_shape(b.shape, blocks, rows, width)
    _check_shape(c.shape, blocks, rows, width)
    if blocks == 0 or rows == 0 or width == 0:
        return 0
    buffers = <lane_t*>malloc(3 * width * sizeof(lane_t))
    if buffers == NULL:
        raise MemoryError()
    with nogil:
        for i in range(blocks):
            for j in range(rows):
                ra = _row(a, i, j, buffers)
                rb = _row(b, i, j, buffers + width)
                rc = _row(c, i, j, buffers + 2 * width)
                at = (i * rows + j) * width
                if lane_t is uint16_t:
                    dmlemu_fma_f16_row(ra, rb, rc, <uint16_t*>out + at, width, <uint16_t>nan_bits)
                elif lane_t is float:
                    dmlemu_fma_f32_row(ra, rb, rc, <uint32_t*>out + at, width, <uint32_t>nan_bits)
                else:
                    dmlemu_fma_f64_row(ra, rb, rc, <uint64_t*>out + at, width, nan_bits)
    free(buffers)
    return 0


def fma_f16(const uint16_t[:, :, :] a, const uint16_t[:, :, :] b, const uint16_t[:, :, :] c,
            uint16_t[:, :, ::1] out, uint16_t nan_bits):
    """out = a * b + c rounded once, for float16 lanes given as their uint16 bits (all of out's shape)."""
    _fma(a, b, c, &out[0, 0, 0] if out.size else NULL, out.shape[0], out.shape[1], out.shape[2], nan_bits)


def fma_f32(const float[:, :, :] a, const float[:, :, :] b, const float[:, :, :] c, uint32_t[:, :, ::1] out,
            uint32_t nan_bits):
    """out = the bits of a * b + c rounded once, for float32 lanes (all of out's shape)."""
    _fma(a, b, c, &out[0, 0, 0] if out.size else NULL, out.shape[0], out.shape[1], out.shape[2], nan_bits)


def fma_f64(const double[:, :, :] a, const double[:, :, :] b, const double[:, :, :] c, uint64_t[:, :, ::1] out,
            uint64_t nan_bits):
    """out = the bits of a * b + c rounded once, for float64 lanes (all of out's shape)."""
    _fma(a, b, c, &out[0, 0, 0] if out.size else NULL, out.shape[0], out.shape[1], out.shape[2], nan_bits)


def hardware_fma(use=None):
    """Whether float32 lanes run the CPU's fused multiply-add (FMA3: the same bits as the double route, about
    five times faster); use=False makes them take the double route (rounded to odd) from now on, use=True
    the CPU's again where it has FMA3. Returns the setting in force."""
    return bool(dmlemu_hardware_fma(-1 if use is None else int(bool(use))))
