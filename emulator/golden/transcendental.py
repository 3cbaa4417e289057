"""The transcendental functions (EXP ... ERF, POW, CONSTANT_POW, ATAN_YX) and their activations (ELU ... GELU).

The same sequences of rounded steps as kernels/element_wise_math.inc and its math_*.inc functions, step for step
(each line of _Math is one instruction there), with the constants of dmlemu.math_constants, the table both
read. The algorithms and special cases are written down in docs/NUMERICS.md.
"""
import numpy as np

from dmlemu.golden.activation import activation_body
from dmlemu.golden.numbers import BITS
from dmlemu.golden.registry import operator
from dmlemu.golden.working import Work, same_dtype, scale_biased
from dmlemu.isa import numerics as _nm
from dmlemu.math_constants import constants as _math_constants


class _Math(Work):
    """The instruction-level steps of one compute type (float32, or float16 with half precision), on arrays:
    Work's rounded add / sub / mul / fma on operands first cast to the compute type, and the rest below."""

    def __init__(self, dtype):
        super().__init__(dtype, half_precision=True)   # float16 computes in float16; float32 in float32
        self.dt = self.dtype
        self.k = {name: np.asarray(v, dtype=self.dt) for name, v in _math_constants(self.dt).items()}
        self.uint = BITS[self.dt.itemsize]
        self.sign_bit = self.uint.type(1 << (8 * self.dt.itemsize - 1))
        self.one, self.zero = np.asarray(1, self.dt), np.asarray(0, self.dt)

    def _a(self, x):
        return np.asarray(x, dtype=self.dt)

    def _binary(self, fn, a, b):
        return super()._binary(fn, self._a(a), self._a(b))

    def div(self, a, b):
        a, b = np.broadcast_arrays(self._a(a), self._a(b))
        return np.asarray(_nm.divide(a, b), dtype=self.dt)

    def exp2(self, x):
        return np.asarray(_nm.exp2(self._a(x), self.dt), dtype=self.dt)

    def log2(self, x):
        return np.asarray(_nm.log2(self._a(x), self.dt), dtype=self.dt)

    def rcp(self, x):
        return np.asarray(_nm.reciprocal(self._a(x), self.dt), dtype=self.dt)

    def sqrt(self, x):
        return np.asarray(_nm.square_root(self._a(x), self.dt), dtype=self.dt)

    def sin_rev(self, x):
        return np.asarray(_nm.sin_revolutions(self._a(x), self.dt), dtype=self.dt)

    def cos_rev(self, x):
        return np.asarray(_nm.cos_revolutions(self._a(x), self.dt), dtype=self.dt)

    def rndne(self, x):
        return _nm.round_integral(self._a(x), "rndne")

    def trunc(self, x):
        return _nm.round_integral(self._a(x), "trunc")

    def fract(self, x):
        return _nm.fract(self._a(x))

    def cls(self, x, mask):
        return _nm.class_test(self._a(x), mask)

    def neg(self, x):        # v_xor_b32 with the sign bit: bits, NaN included
        return (self._a(x).view(self.uint) ^ self.sign_bit).view(self.dt)

    def abs(self, x):        # v_and_b32 with the magnitude mask
        return (self._a(x).view(self.uint) & self.uint.type(~int(self.sign_bit) & (int(self.sign_bit) * 2 - 1))
                ).view(self.dt)

    def sign_of(self, x):    # +-1.0 with x's sign bit (v_and_b32 then v_or_b32)
        return ((self._a(x).view(self.uint) & self.sign_bit) | self.one.view(self.uint)).view(self.dt)

    def sel(self, mask, b, a):   # v_cndmask_b32: mask ? b : a, bits
        a, b = np.broadcast_arrays(self._a(a), self._a(b))
        return np.where(mask, b, a)

    def poly(self, name, degree, x):
        """Horner with fma: c_n, then c = c * x + c_k for k = n - 1 .. 0."""
        c = np.broadcast_to(self.k[f"{name}{degree}"], np.shape(x))
        for k in range(degree - 1, -1, -1):
            c = self.fma(c, x, self.k[f"{name}{k}"])
        return c

    # ---- the shared functions (math_*.inc) ------------------------------------------------------------
    def exp(self, x, halved=False):
        k = self.k
        y = self.mul(x, k["LOG2E_HI"])
        e = self.fma(x, k["LOG2E_HI"], self.neg(y))
        e = self.fma(x, k["LOG2E_LO"], e)
        c = self.mul(e, k["LN2_HI"])
        if halved:
            y = self.sub(y, 1)
        p = self.exp2(y)
        return self.sel(self.cls(p, 0x240), p, self.fma(p, c, p))

    def expm1(self, x):
        large = self.add(self.exp(x), -1)
        small = self.fma(self.mul(x, x), self.poly("EXPM1_P", 7, x), x)
        with np.errstate(invalid="ignore"):
            r = self.sel(self.abs(x) < 0.5, small, large)
            return self.sel(self._a(x) == 0, x, r)

    def _times_ln2(self, l):
        return self.sel(self.cls(l, 0x204), l, self.fma(l, self.k["LN2_HI"], self.mul(l, self.k["LN2_LO"])))

    def log(self, x):
        return self._times_ln2(self.log2(x))

    def log1p(self, u):
        w = self.add(u, 1)
        d = self.sub(w, 1)
        r = self.mul(self.log(w), self.div(u, d))
        r = self.sel(d == 0, u, r)
        return self.sel(self.cls(w, 0x200), w, r)

    def atan2(self, y, x):
        k = self.k
        y, x = self._a(y), self._a(x)
        ay, ax = self.abs(y), self.abs(x)
        mn, mx = _nm.min_num(ay, ax), _nm.max_num(ay, ax)
        z = self.div(mn, mx)
        z = self.sel(np.isnan(z), _nm.min_num(mn, self.one), z)
        wq = self.div(self.sub(z, 1), self.add(z, 1))
        with np.errstate(invalid="ignore"):
            big = z > k["TAN_PI_8"]
            w = self.sel(big, wq, z)
            lo, hi = self.sel(big, k["PI_4_LO"], 0), self.sel(big, k["PI_4_HI"], 0)
            w2 = self.mul(w, w)
            r = self.fma(self.mul(w2, w), self.poly("ATAN_P", 7, w2), w)
            r = self.add(self.add(r, lo), hi)
            r = self.sel(ay > ax, self.add(self.sub(k["PI_2_HI"], r), k["PI_2_LO"]), r)
            r = self.sel(self.cls(x, 0x3C), self.add(self.sub(k["PI_HI"], r), k["PI_LO"]), r)
            r = (r.view(self.uint) | (y.view(self.uint) & self.sign_bit)).view(self.dt)
            return self.sel(np.isnan(y) | np.isnan(x), k["NAN"], r)

    def erf_erfc(self, a, lo):
        """(erf(a), erfc(a)) for a >= 0 (or NaN) with a low part lo (math_erf.inc)."""
        k = self.k
        a = self._a(a)
        s_small = self.fma(a, self.poly("ERF_P", 7, self.mul(a, a)), a)
        with np.errstate(invalid="ignore"):
            clamped = a > k["ERFC_CLAMP"]
            ac = self.sel(clamped, k["ERFC_CLAMP"], a)
            lo = self.sel(clamped, 0, lo)
            s = self.mul(ac, ac)
            ns = self.neg(s)
            r = self.fma(self.add(ac, ac), lo, self.fma(ac, ac, ns))
            e = self.exp(ns)
            e = self.fma(e, self.neg(r), e)
            t = self.rcp(ac)
            c = self.mul(e, self.mul(self.poly("ERFC_S", 12, self.sub(t, k["ERFC_MID"])), t))
            one_minus_s, one_minus_c = self.sub(1, s_small), self.sub(1, c)
            small = a < k["ERF_SPLIT"]
            return self.sel(small, s_small, one_minus_c), self.sel(small, one_minus_s, c)

    def reduce(self, a, cos=False):
        """(f, (-1)^k) of math_reduce.inc for a = |x|: FLOAT32 steps in both compute types."""
        m = self if self.dt == np.float32 else _Math(np.float32)
        k = m.k
        a = np.asarray(a).astype(np.float32)     # exact widening
        t = m.mul(a, k["INV_2PI_HI"])
        e0 = m.fma(a, k["INV_2PI_HI"], m.neg(t))
        p1 = m.mul(a, k["INV_2PI_LO"])
        p2 = m.fma(a, k["INV_2PI_LO2"], m.fma(a, k["INV_2PI_LO"], m.neg(p1)))
        n = m.rndne(m.fma(t, 2, -0.5) if cos else m.add(t, t))
        f = m.fma(n, -0.5, t)
        if cos:
            f = m.sub(f, 0.25)
        f = m.add(m.add(m.add(f, e0), p1), p2)
        if self.dt == np.float16:
            f = _nm.narrow_f16(f)
        even = m.fract(m.mul(n, 0.5)) == 0
        return f, self.sel(even, self.one, -self.one)

    # ---- the operators' bodies (element_wise_math.inc) ------------------------------------------------
    def _tiny(self, a, r):
        with np.errstate(invalid="ignore"):
            return self.sel(a < self.k["TRIG_TINY"], a, r)

    def sin(self, x):
        a = self.abs(x)
        f, parity = self.reduce(a)
        return self.mul(self._tiny(a, self.mul(self.sin_rev(f), parity)), self.sign_of(x))

    def cos(self, x):
        f, parity = self.reduce(self.abs(x), cos=True)
        return self.mul(self.sin_rev(f), self.neg(parity))

    def tan(self, x):
        a = self.abs(x)
        f, parity = self.reduce(a)
        s = self.mul(self.sin_rev(f), parity)
        f, parity = self.reduce(a, cos=True)
        c = self.mul(self.sin_rev(f), self.neg(parity))
        return self.mul(self._tiny(a, self.div(s, c)), self.sign_of(x))

    def asin_acos(self, x, acos):
        a = self.abs(x)
        root = self.sqrt(self.mul(self.sub(1, a), self.add(a, 1)))
        return self.atan2(root, x) if acos else self.atan2(x, root)

    def sinh(self, x):
        a = self.abs(x)
        e = self.expm1(a)
        small = self.mul(self.add(e, self.div(e, self.add(e, 1))), 0.5)
        h = self.exp(a, halved=True)
        large = self.sub(h, self.rcp(self.mul(h, 4)))
        with np.errstate(invalid="ignore"):
            return self.mul(self.sel(a < 1, small, large), self.sign_of(x))

    def cosh(self, x):
        h = self.exp(self.abs(x), halved=True)
        return self.add(h, self.rcp(self.mul(h, 4)))

    def tanh(self, x):
        a = self.abs(x)
        with np.errstate(invalid="ignore"):
            a = self.sel(a > self.k["TANH_CLAMP"], self.k["TANH_CLAMP"], a)
        e = self.expm1(self.add(a, a))
        return self.mul(self.div(e, self.add(e, 2)), self.sign_of(x))

    def _log_2x(self, a):
        return self._times_ln2(self.add(self.log2(a), 1))

    def asinh(self, x):
        a = self.abs(x)
        a2 = self.mul(a, a)
        u = self.add(a, self.div(a2, self.add(self.sqrt(self.add(a2, 1)), 1)))
        with np.errstate(invalid="ignore"):
            r = self.sel(a > self.k["BIG"], self._log_2x(a), self.log1p(u))
        return self.mul(r, self.sign_of(x))

    def acosh(self, x):
        x = self._a(x)
        t = self.sub(x, 1)
        u = self.add(t, self.sqrt(self.mul(self.add(t, 2), t)))
        with np.errstate(invalid="ignore"):
            r = self.sel(x > self.k["BIG"], self._log_2x(x), self.log1p(u))
            return self.sel(x < 1, self.k["NAN"], r)

    def atanh(self, x):
        a = self.abs(x)
        u = self.div(self.add(a, a), self.sub(1, a))
        return self.mul(self.mul(self.log1p(u), 0.5), self.sign_of(x))

    def erf(self, x):
        return self.mul(self.erf_erfc(self.abs(x), self.zero)[0], self.sign_of(x))

    def pow(self, x, y):
        x, y = np.broadcast_arrays(self._a(x), self._a(y))
        ax = self.abs(x)
        l = self.log2(ax)
        m = self.exp2(self.neg(l))
        l_lo = self.sel(self.cls(m, 0x100), self.mul(self.fma(ax, m, -1), self.k["LOG2E_HI"]), 0)
        t = self.mul(y, l)
        c = self.mul(self.fma(y, l_lo, self.fma(y, l, self.neg(t))), self.k["LN2_HI"])
        p = self.exp2(t)
        r = self.sel(self.cls(p, 0x240), p, self.fma(p, c, p))
        odd = self.fract(self.mul(y, 0.5)) == 0.5
        r = self.sel(self.cls(x, 0x3C), self.sel(odd, self.neg(r), r), r)
        with np.errstate(invalid="ignore"):
            r = self.sel(self.cls(x, 0x18), self.sel(self.trunc(y) != y, self.k["NAN"], r), r)
            r = self.sel(ax == 1, self.sel(self.cls(y, 0x204), self.one, r), r)
            r = self.sel(x == 1, self.one, r)
            return self.sel(y == 0, self.one, r)

    def sigmoid(self, z):
        e = self.exp(self.neg(self.abs(z)))
        with np.errstate(invalid="ignore"):
            return self.div(self.sel(self._a(z) < 0, e, self.one), self.add(e, 1))

    def softplus_core(self, z):
        lp = self.log1p(self.exp(self.neg(self.abs(z))))
        return self.add(_nm.max_num(self._a(z), self.zero), lp)

    def gelu(self, x):
        k = self.k
        x = self._a(x)
        u = self.mul(x, k["RSQRT2_HI"])
        ru = self.fma(x, k["RSQRT2_LO"], self.fma(x, k["RSQRT2_HI"], self.neg(u)))
        lo = (ru.view(self.uint) ^ (u.view(self.uint) & self.sign_bit)).view(self.dt)
        erf, erfc = self.erf_erfc(self.abs(u), lo)
        with np.errstate(invalid="ignore"):
            factor = self.sel(x >= 0, self.add(erf, 1), erfc)
        r = self.mul(self.mul(x, 0.5), factor)
        return self.sel(self.cls(x, 0x4), self.neg(self.zero), r)


def _math_unary(x, scale_bias, half_precision, method):
    """An ELEMENT_WISE transcendental of one input: g(x) in the compute type, then `method` of _Math."""
    work, w = scale_biased(x, scale_bias, half_precision)
    with np.errstate(all="ignore"):
        return w.finish(method(_Math(w.dtype), work))


_UNARY = dict(scale_bias=True, half_precision=True)


@operator(name="ELEMENT_WISE_EXP", **_UNARY)
def exp(x, scale_bias=None, half_precision=False):
    """ELEMENT_WISE_EXP: e^g(x) (docs/NUMERICS.md)."""
    return _math_unary(x, scale_bias, half_precision, lambda m, v: m.exp(v))


@operator(name="ELEMENT_WISE_LOG", **_UNARY)
def log(x, scale_bias=None, half_precision=False):
    """ELEMENT_WISE_LOG: ln g(x)."""
    return _math_unary(x, scale_bias, half_precision, lambda m, v: m.log(v))


@operator(name="ELEMENT_WISE_SQRT", **_UNARY)
def sqrt(x, scale_bias=None, half_precision=False):
    """ELEMENT_WISE_SQRT: the square root of g(x)."""
    return _math_unary(x, scale_bias, half_precision, lambda m, v: m.sqrt(v))


@operator(name="ELEMENT_WISE_RECIP", **_UNARY)
def recip(x, scale_bias=None, half_precision=False):
    """ELEMENT_WISE_RECIP: 1 / g(x)."""
    return _math_unary(x, scale_bias, half_precision, lambda m, v: m.rcp(v))


@operator(name="ELEMENT_WISE_SIN", **_UNARY)
def sin(x, scale_bias=None, half_precision=False):
    """ELEMENT_WISE_SIN: sin g(x), g(x) in radians."""
    return _math_unary(x, scale_bias, half_precision, lambda m, v: m.sin(v))


@operator(name="ELEMENT_WISE_COS", **_UNARY)
def cos(x, scale_bias=None, half_precision=False):
    """ELEMENT_WISE_COS: cos g(x)."""
    return _math_unary(x, scale_bias, half_precision, lambda m, v: m.cos(v))


@operator(name="ELEMENT_WISE_TAN", **_UNARY)
def tan(x, scale_bias=None, half_precision=False):
    """ELEMENT_WISE_TAN: tan g(x)."""
    return _math_unary(x, scale_bias, half_precision, lambda m, v: m.tan(v))


@operator(name="ELEMENT_WISE_ASIN", **_UNARY)
def asin(x, scale_bias=None, half_precision=False):
    """ELEMENT_WISE_ASIN: asin g(x)."""
    return _math_unary(x, scale_bias, half_precision, lambda m, v: m.asin_acos(v, False))


@operator(name="ELEMENT_WISE_ACOS", **_UNARY)
def acos(x, scale_bias=None, half_precision=False):
    """ELEMENT_WISE_ACOS: acos g(x)."""
    return _math_unary(x, scale_bias, half_precision, lambda m, v: m.asin_acos(v, True))


@operator(name="ELEMENT_WISE_ATAN", **_UNARY)
def atan(x, scale_bias=None, half_precision=False):
    """ELEMENT_WISE_ATAN: atan g(x) (atan2 with x = 1)."""
    return _math_unary(x, scale_bias, half_precision, lambda m, v: m.atan2(v, np.ones_like(v)))


@operator(name="ELEMENT_WISE_SINH", **_UNARY)
def sinh(x, scale_bias=None, half_precision=False):
    """ELEMENT_WISE_SINH: sinh g(x)."""
    return _math_unary(x, scale_bias, half_precision, lambda m, v: m.sinh(v))


@operator(name="ELEMENT_WISE_COSH", **_UNARY)
def cosh(x, scale_bias=None, half_precision=False):
    """ELEMENT_WISE_COSH: cosh g(x)."""
    return _math_unary(x, scale_bias, half_precision, lambda m, v: m.cosh(v))


@operator(name="ELEMENT_WISE_TANH", **_UNARY)
def tanh(x, scale_bias=None, half_precision=False):
    """ELEMENT_WISE_TANH: tanh g(x)."""
    return _math_unary(x, scale_bias, half_precision, lambda m, v: m.tanh(v))


@operator(name="ELEMENT_WISE_ASINH", **_UNARY)
def asinh(x, scale_bias=None, half_precision=False):
    """ELEMENT_WISE_ASINH: asinh g(x)."""
    return _math_unary(x, scale_bias, half_precision, lambda m, v: m.asinh(v))


@operator(name="ELEMENT_WISE_ACOSH", **_UNARY)
def acosh(x, scale_bias=None, half_precision=False):
    """ELEMENT_WISE_ACOSH: acosh g(x)."""
    return _math_unary(x, scale_bias, half_precision, lambda m, v: m.acosh(v))


@operator(name="ELEMENT_WISE_ATANH", **_UNARY)
def atanh(x, scale_bias=None, half_precision=False):
    """ELEMENT_WISE_ATANH: atanh g(x)."""
    return _math_unary(x, scale_bias, half_precision, lambda m, v: m.atanh(v))


@operator(name="ELEMENT_WISE_ERF", **_UNARY)
def erf(x, scale_bias=None, half_precision=False):
    """ELEMENT_WISE_ERF: the error function of g(x)."""
    return _math_unary(x, scale_bias, half_precision, lambda m, v: m.erf(v))


@operator(name="ELEMENT_WISE_CONSTANT_POW", attributes=("Exponent",), **_UNARY)
def constant_pow(x, Exponent, scale_bias=None, half_precision=False):
    """ELEMENT_WISE_CONSTANT_POW: g(x)^Exponent, the Exponent a FLOAT attribute (IEEE pow's special cases)."""
    work, w = scale_biased(x, scale_bias, half_precision)
    with np.errstate(all="ignore"):
        return w.finish(_Math(w.dtype).pow(work, np.full_like(work, w.param(Exponent))))


def integer_pow(x, y):
    """POW of integers (docs/NUMERICS.md, "Integer POW"): the exact power x^y modulo 2^bits of the type (two's
    complement), for y >= 0 (x^0 = 1, 0^0 included); for y < 0, 1 / x^|y| truncated toward zero: 1 for x = 1,
    (-1)^y for x = -1, 0 for any other x (0 included). The power by squaring over the exponent's bits, in
    uint64 (a product of two values below 2^32 fits), reduced modulo 2^bits after every product: exact."""
    x, y = np.asarray(x), np.asarray(y)
    bits = 8 * x.dtype.itemsize
    mask = np.uint64((1 << bits) - 1)
    base = x.astype(np.int64).astype(np.uint64) & mask
    wide_y = y.astype(np.int64)
    e = np.where(wide_y >= 0, wide_y, 0).astype(np.uint64)
    result = np.ones(x.shape, np.uint64)
    for _ in range(bits):                           # every exponent is below 2^bits
        result = np.where((e & np.uint64(1)) == 1, (result * base) & mask, result)
        base = (base * base) & mask
        e >>= np.uint64(1)
    negative = np.where(x == 1, 1, np.where(x.astype(np.int64) == -1, np.where(wide_y % 2 == 1, -1, 1), 0))
    result = np.where(wide_y < 0, negative.astype(np.int64).astype(np.uint64) & mask, result)
    return result.astype(BITS[x.dtype.itemsize]).view(x.dtype)


@operator(name="ELEMENT_WISE_POW", **_UNARY)
def pow_(x, exponent, scale_bias=None, half_precision=False):
    """ELEMENT_WISE_POW: g(x)^exponent element by element, the exponent tensor of x's type."""
    x, exponent = same_dtype(x, exponent)
    if x.dtype.kind in "iu":         # integers: exact powers, wrapping (no ScaleBias: a float-only field)
        return integer_pow(x, exponent)
    work, w = scale_biased(x, scale_bias, half_precision)
    with np.errstate(all="ignore"):
        return w.finish(_Math(w.dtype).pow(work, w.widen(exponent)))


@operator(name="ELEMENT_WISE_ATAN_YX", half_precision=True)
def atan_yx(a, b, half_precision=False):
    """ELEMENT_WISE_ATAN_YX: atan2(a, b), a the y and b the x coordinate (IEEE atan2's special cases)."""
    a, b = same_dtype(a, b)
    w = Work(a.dtype, half_precision)
    with np.errstate(all="ignore"):
        return w.finish(_Math(w.dtype).atan2(w.widen(a), w.widen(b)))


# ---- the transcendental activations ---------------------------------------------------------------------------
def _math_activation(*, name):
    """Register fn(m, w, x, attributes) -> working result (m: the _Math of the compute type) as activation
    `name`'s body (never canonicalised: its arithmetic makes NaNs canonical)."""
    def decorate(fn):
        activation_body(name=name)(lambda w, x, at, extra: (fn(_Math(w.dtype), w, x, at), False))
        return fn
    return decorate


@_math_activation(name="ACTIVATION_ELU")
def _elu(m, w, x, at):
    return m.sel(np.asarray(x) >= 0, x, m.mul(m.expm1(x), w.param(at["Alpha"])))


@_math_activation(name="ACTIVATION_SCALED_ELU")
def _scaled_elu(m, w, x, at):
    return m.mul(m.sel(np.asarray(x) > 0, x, m.mul(m.expm1(x), w.param(at["Alpha"]))), w.param(at["Gamma"]))


@_math_activation(name="ACTIVATION_CELU")
def _celu(m, w, x, at):
    return m.add(_nm.max_num(m._a(x), m.zero),
                 _nm.min_num(m.mul(m.expm1(m.div(x, w.param(at["Alpha"]))), w.param(at["Alpha"])), m.zero))


@_math_activation(name="ACTIVATION_SIGMOID")
def _sigmoid(m, w, x, at):
    return m.sigmoid(x)


@_math_activation(name="ACTIVATION_SWISH")
def _swish(m, w, x, at):
    return m.mul(x, m.sigmoid(m.mul(x, w.param(at["SigmoidInputScale"]))))


@_math_activation(name="ACTIVATION_SOFTPLUS")
def _softplus(m, w, x, at):
    return m.div(m.softplus_core(m.mul(x, w.param(at["Steepness"]))), w.param(at["Steepness"]))


@_math_activation(name="ACTIVATION_PARAMETRIC_SOFTPLUS")
def _parametric_softplus(m, w, x, at):
    return m.mul(m.softplus_core(m.mul(x, w.param(at["Beta"]))), w.param(at["Alpha"]))


@_math_activation(name="ACTIVATION_SOFTSIGN")
def _softsign(m, w, x, at):
    return m.sel(m.cls(x, 0x204), m.sign_of(x), m.div(x, m.add(m.abs(x), 1)))


@_math_activation(name="ACTIVATION_TANH")
def _tanh(m, w, x, at):
    return m.tanh(x)


@_math_activation(name="ACTIVATION_SCALED_TANH")
def _scaled_tanh(m, w, x, at):
    return m.mul(m.tanh(m.mul(x, w.param(at["Beta"]))), w.param(at["Alpha"]))


@_math_activation(name="ACTIVATION_GELU")
def _gelu(m, w, x, at):
    return m.gelu(x)
