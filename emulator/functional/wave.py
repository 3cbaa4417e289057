"""Waves: the register state of SIMD waves, held for many waves at once.

A wave is `width` lanes that execute one instruction stream under an EXEC mask. The emulator keeps
a *batch* of W waves that share a program counter in one `WaveBatch`, so one NumPy operation
executes an instruction for every lane of every wave in the batch:

    vector register  array of uint32, shape broadcastable to (W, width)   one value per lane
    scalar register  array of uint32, shape (W, 1) or (1, 1)              one value per wave
    EXEC, VCC        bool arrays (W, width);  SCC  bool (W, 1)

Registers that hold the same value for every wave or lane keep a compact shape ((1, 1) or (W, 1))
and NumPy broadcasting widens them only when needed: a kernel's uniform constants cost nothing per
lane. 64-bit values live in register pairs (low dword first); 16-bit values in the low half of a
32-bit register, zero-extended when written. An unwritten register reads as 0.
Speed trick: a vector register written with a 16-bit value keeps it as a uint16 array, which
means the same as the zero-extended uint32 (it is widened only when read as 32 bits); this saves
two full passes per FLOAT16 element in the FP16 kernels.
Speed trick: a vector register whose lanes hold an arithmetic sequence, base + step * lane (mod 2^32)
with a base and a step per wave (thread ids and the element indices and byte offsets a kernel's
prologue derives from them), may be held as a `Ramp`: two (W, 1) columns instead of W x width
lanes. Address arithmetic on it (add, subtract, multiply and shift by uniform values) then costs
O(W), a compare against a uniform bound usually gives a (W, 1) mask, and a buffer access through it
is known to be contiguous without looking at the lanes (executor.py). Anything else sees an
ordinary uint32 array (`Ramp.values()`, made once).
Speed trick: a load whose waves read rows of memory that are further apart than their lanes (a
reduction's workgroups, each a chunk of its own) may be held as `Rows`: the strided view of those rows,
which element-wise ufuncs combine with uniforms and contiguous registers in the rows' shape, reading
memory once instead of copying the lanes out first. Anything else sees the lanes copied once
(`Rows.values()`); a store to the rows' memory copies them first (executor._detach).
SGPR pairs written by mask arithmetic remember the bool lanes they pack (`pair_masks`), so that
restoring EXEC from them or combining them with VCC needs no unpacking (executor._mask_pair_alu).
"""
import numpy as np

from dmlemu.isa.constants import constant_value
from dmlemu.isa.opcodes import TYPES
from dmlemu.isa.operands import EXEC_HI, EXEC_LO, NUM_SGPRS, NUM_VGPRS, SCC, VCC_HI, VCC_LO, VGPR_BASE

_ZERO = np.zeros((1, 1), dtype=np.uint32)
_TRUE = np.ones((1, 1), dtype=bool)
_TRUE.flags.writeable = False
_MASK32 = np.uint64(0xFFFFFFFF)
_SHIFT32 = np.uint64(32)


_U32_LIMIT = 0xFFFFFFFF
# Ufuncs whose result on an arithmetic sequence and a uniform (or a second sequence) is again an
# arithmetic sequence, mod 2^32: (b + s l) op u = (b op u) + (s op' u) l.
_LINEAR = {np.add, np.subtract, np.multiply, np.left_shift}
# Order comparisons: monotone in each operand, so on a sequence that does not wrap they hold for a
# prefix or a suffix of the lanes, and the two end lanes decide whether for all or none.
_MONOTONE = {np.greater, np.greater_equal, np.less, np.less_equal}


def _uniform_u32(x):
    """x as a (k, 1) uint32 column when it is one uint32 value per wave (or one for all), else None."""
    if isinstance(x, np.generic):
        return np.array(x).reshape(1, 1) if x.dtype == np.uint32 else None
    if isinstance(x, np.ndarray) and x.dtype == np.uint32 and x.ndim == 2 and x.shape[1] == 1:
        return x
    return None


class _Lanes(np.lib.mixins.NDArrayOperatorsMixin):
    """What Ramp and Rows share: a register kept in a compact form that stands for the (W, width) array
    `values()` (each subclass makes it once, read-only) wherever an array is expected: NumPy functions,
    and every attribute or method the subclass does not define, see that array."""

    __slots__ = ()

    def __array__(self, dtype=None, copy=None):
        values = self.values()
        if dtype is not None and np.dtype(dtype) != values.dtype:
            return values.astype(dtype)
        return values.copy() if copy else values

    def __getattr__(self, name):
        # Any other ndarray attribute or method (flat, reshape, sum, T, ...) works on the lanes.
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.values(), name)

    def astype(self, dtype, copy=True):
        if np.dtype(dtype) == self.dtype and not copy:
            return self
        return self.values().astype(dtype, copy=copy)


class Ramp(_Lanes):
    """uint32 lanes base + step * lane (mod 2^32) of W waves: a vector register kept as two columns.

    base and step are uint32 arrays of shape (W, 1) or (1, 1). It stands for the (W', width) array
    `values()` (W' = the larger first dimension) wherever an array is expected: NumPy functions
    and ufuncs that have no rule below, attributes and methods that are not defined here all see
    that array, made once and read-only (registers are never written in place).

    Exact rules, on the columns only (each is the lanes' result bit for bit):
      add, subtract, multiply, left shift by uniform uint32 values (or add / subtract two ramps):
          modular arithmetic distributes over b + s l;
      right shift by k: when no lane wraps (b + s (width - 1) < 2^32) and b and s are multiples
          of 2^k, (b + s l) >> k = (b >> k) + (s >> k) l;
      >, >=, <, <= against a uniform value: when no lane wraps, the lanes increase (s >= 0), so
          if the first and last lanes of every wave agree all lanes do: a (W, 1) result.
    """

    __slots__ = ("base", "step", "width", "_values", "_last_lane", "_wraps", "_runs")
    dtype = np.dtype(np.uint32)
    ndim = 2

    def __init__(self, base, step, width):
        self.base = base        # (W, 1) or (1, 1) uint32
        self.step = step        # (W, 1) or (1, 1) uint32
        self.width = width
        self._values = None
        self._last_lane = None
        self._wraps = None
        self._runs = None

    @property
    def shape(self):
        return (max(self.base.shape[0], self.step.shape[0]), self.width)

    @property
    def size(self):
        rows, width = self.shape
        return rows * width

    def values(self):
        """The lanes as a read-only (W, width) uint32 array (computed on first use)."""
        if self._values is None:
            lanes = np.arange(self.width, dtype=np.uint32).reshape(1, self.width)
            values = self.base + self.step * lanes
            values.flags.writeable = False
            self._values = values
        return self._values

    def __getitem__(self, key):
        return self.values()[key]

    def view(self, dtype=None):
        if dtype is None or np.dtype(dtype) == np.uint32:
            return self
        return self.values().view(dtype)

    def take_waves(self, keep):
        """The ramp of the waves where `keep` (W,) is true (WaveBatch.select)."""
        pick = lambda c: c if c.shape[0] == 1 else c[keep]
        return Ramp(pick(self.base), pick(self.step), self.width)

    def _last(self):
        """The last lane as uint64, exactly (no modular wrap), for the no-wrap tests; found once."""
        if self._last_lane is None:
            self._last_lane = self.base.astype(np.uint64) + self.step.astype(np.uint64) * np.uint64(self.width - 1)
        return self._last_lane

    def wraps(self):
        """Whether some wave's lanes pass 2^32 (then they are not increasing); found once."""
        if self._wraps is None:
            self._wraps = bool((self._last() > _U32_LIMIT).any())
        return self._wraps

    def element_run(self, offset, shift, rows):
        """For a buffer access through these byte offsets: the element index of the first lane when
        the lanes of `rows` waves, wave after wave, address consecutive elements of 2^shift bytes,
        else None. The lanes' indices are ((value + offset) mod 2^32) >> shift (executor.py); with
        step 2^shift and no wrap, lane k of the run is first + k (floor division by 2^shift of a
        start plus k whole elements), whether or not the start is aligned. O(W); remembered per
        (offset, shift, rows): the loads and the store of a kernel share their offset register.
        """
        key = (offset, shift, rows)
        if self._runs is None:
            self._runs = {}
        elif key in self._runs:
            return self._runs[key]
        self._runs[key] = first = self._element_run(offset, shift, rows)
        return first

    def _element_run(self, offset, shift, rows):
        item = 1 << shift
        step = self.step
        if step.size != 1 or int(step.flat[0]) != item:
            return None
        base = self.base.reshape(-1)
        if base.size != rows and not (base.size == 1 and rows == 1):
            return None
        start = int(base[0]) + offset
        if start + (rows * self.width - 1) * item > _U32_LIMIT:
            return None
        # Consecutive waves' bases a whole wave of elements apart (uint32 differences: no wave
        # wraps, as the whole run stays below 2^32).
        if rows > 1 and not (np.diff(base) == np.uint32(self.width * item)).all():
            return None
        return start >> shift

    def wave_starts(self, offset, shift):
        """For a buffer access through these byte offsets: each wave's first element index as int64 (W',)
        when every wave's lanes address consecutive elements of 2^shift bytes (step 2^shift) without
        wrapping past 2^32, else None. Lane k of wave w then reads element starts[w] + k: the lanes'
        indices are ((value + offset) mod 2^32) >> shift, and with no wrap value + offset is the
        wave's start plus k whole elements (floor division, aligned or not). O(W); remembered per
        (offset, shift) like element_run."""
        key = ("waves", offset, shift)
        if self._runs is None:
            self._runs = {}
        elif key in self._runs:
            return self._runs[key]
        item = 1 << shift
        step = self.step
        starts = None
        if step.size == 1 and int(step.flat[0]) == item:
            base, top = self.memo("bases", self._bases)
            if top + offset + item * (self.width - 1) <= _U32_LIMIT:
                base = base + offset if offset else base
                starts = base >> shift if shift else base
        self._runs[key] = starts
        return starts

    def _bases(self):
        """The bases as int64 (W,) and their largest, found once (every access through the Ramp needs them)."""
        base = self.base.reshape(-1).astype(np.int64)
        return base, int(base.max())

    def aligned(self, shift):
        """Whether every base and step is a multiple of 2^shift (then the waves' element indices at any
        aligned offset differ only by a constant, and what depends on their differences is found once)."""
        low = np.uint32((1 << shift) - 1)
        return self.memo(("aligned", shift), lambda: not ((self.base | self.step) & low).any())

    def memo(self, key, make):
        """make() once per key for this Ramp (facts about its lanes that several instructions ask for:
        the loads and the store of a kernel share their offset register)."""
        if self._runs is None:
            self._runs = {}
        elif key in self._runs:
            return self._runs[key]
        value = self._runs[key] = make()
        return value

    def contiguous_start(self, rows):
        """The first value when the flattened lanes of `rows` waves, wave after wave, are consecutive
        integers first, first + 1, ... without wrapping; else None (O(W))."""
        if not (self.step == 1).all():
            return None
        base = np.broadcast_to(self.base, (rows, 1)).reshape(-1).astype(np.int64)
        first = int(base[0])
        if first + rows * self.width - 1 > _U32_LIMIT:
            return None
        if rows > 1 and not (base == first + self.width * np.arange(rows, dtype=np.int64)).all():
            return None
        return first

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if method == "__call__" and not kwargs and len(inputs) == 2:
            result = self._rule(ufunc, *inputs)
            if result is not None:
                return result
        inputs = tuple(x.values() if isinstance(x, Ramp) else x for x in inputs)
        return getattr(ufunc, method)(*inputs, **kwargs)

    def _rule(self, ufunc, x, y):
        """The exact column rule for ufunc(x, y), or None when there is none (see the class)."""
        if ufunc in _LINEAR:
            if isinstance(x, Ramp) and isinstance(y, Ramp):
                if ufunc in (np.add, np.subtract) and x.width == y.width:
                    return Ramp(ufunc(x.base, y.base), ufunc(x.step, y.step), x.width)
                return None
            if isinstance(x, Ramp):
                u = _uniform_u32(y)
                if u is None or (ufunc is np.left_shift and (u > 31).any()):
                    return None
                step = x.step if ufunc in (np.add, np.subtract) else ufunc(x.step, u)
                return Ramp(ufunc(x.base, u), step, x.width)
            u = _uniform_u32(x)
            if u is None or ufunc is np.left_shift:
                return None
            step = y.step if ufunc is np.add else ufunc(np.uint32(0) if ufunc is np.subtract else u, y.step)
            return Ramp(ufunc(u, y.base), step, y.width)
        if ufunc is np.right_shift and isinstance(x, Ramp):
            u = _uniform_u32(y)
            if u is None or (u > 31).any() or x.wraps():
                return None
            low = (np.uint32(1) << u) - np.uint32(1)
            if ((x.base | x.step) & low).any():
                return None
            return Ramp(x.base >> u, x.step >> u, x.width)
        if ufunc in _MONOTONE:
            ramp, other = (x, y) if isinstance(x, Ramp) else (y, x)
            u = _uniform_u32(other)
            if u is None or ramp.wraps():
                return None
            first = ramp.base
            last = ramp._last().astype(np.uint32)     # exact: no wrap
            ends = (ufunc(first, u), ufunc(last, u)) if ramp is x else (ufunc(u, first), ufunc(u, last))
            if (ends[0] == ends[1]).all():
                return ends[0]
        return None


class Rows(_Lanes):
    """A vector register loaded as rows of memory: the (W, width) lanes are `rows`, a read-only strided view of R
    rows of m * width elements (m consecutive waves a row, R = W / m), which no (W, width) view can express (the
    waves' starts are not evenly spaced: a reduction's workgroups, one row of memory apart). Lane l of wave w is
    rows[w // m, (w % m) * width + l], the C order of the (W, width) array, so a (W, width) C-contiguous array seen
    as (R, m * width) is the same lanes.

    Exact rule: an element-wise ufunc of these lanes and a uniform value, a C-contiguous (W, width) array or Rows of
    the same layout is computed on the (R, m * width) forms and its result seen as (W, width) (element-wise results
    do not depend on the shape): the add of a loaded register into an accumulator reads memory once, without a
    copy of the lanes first. Anything else sees `values()`, the lanes copied once (read-only), as a Ramp does.
    Made by executor._load only (copy on write, executor._detach, copies it before a store to its memory)."""

    __slots__ = ("rows", "shape", "_values")
    ndim = 2

    def __init__(self, rows, shape):
        self.rows = rows        # (R, m * width) read-only strided view of memory
        self.shape = shape      # (W, width)
        self._values = None

    @property
    def dtype(self):
        return self.rows.dtype

    @property
    def size(self):
        return self.rows.size

    def values(self):
        """The lanes as a read-only (W, width) array (copied on first use)."""
        if self._values is None:
            values = self.rows.reshape(self.shape)
            values.flags.writeable = False
            self._values = values
        return self._values

    def __getitem__(self, key):
        waves, width = self.shape
        if self._values is None and isinstance(key, np.ndarray) and key.dtype == bool and key.shape == (waves,):
            # Some waves (WaveBatch.select): their lanes only, from the rows seen as (R, m, width).
            rows = self.rows.shape[0]
            return self.rows.reshape(rows, waves // rows, width)[key.reshape(rows, -1)]
        return self.values()[key]

    def view(self, dtype=None):
        if dtype is None or np.dtype(dtype) == self.rows.dtype:
            return self
        if np.dtype(dtype).itemsize != self.rows.dtype.itemsize:
            return self.values().view(dtype)
        return Rows(self.rows.view(dtype), self.shape)

    def _form(self, x):
        """x as this layout's (R, m * width) operand, or None when it is not one (see the class)."""
        if isinstance(x, Rows):
            return x.rows if x.rows.shape == self.rows.shape and x.shape == self.shape else None
        if isinstance(x, (np.ndarray, np.generic)):
            if x.size == 1:
                return x.reshape(()) if isinstance(x, np.ndarray) else x
            if x.shape == self.shape and x.flags.c_contiguous:
                return x.reshape(self.rows.shape)
        return None

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if method == "__call__" and not kwargs and ufunc.nout == 1:
            forms = [self._form(x) for x in inputs]
            if all(f is not None for f in forms):
                result = ufunc(*forms)
                if isinstance(result, np.ndarray) and result.shape == self.rows.shape:
                    return result.reshape(self.shape)
        inputs = tuple(x.values() if isinstance(x, (Rows, Ramp)) else x for x in inputs)
        return getattr(ufunc, method)(*inputs, **kwargs)


def broadcast(x, shape):
    """np.broadcast_to(x, shape) for 2-D `shape`: a read-only view, made directly (zero strides on the broadcast
    axes) where `x` is a C-contiguous 2-D array: np.broadcast_to's own Python costs several microseconds a call,
    and the executor broadcasts registers and masks at nearly every instruction."""
    if type(x) is np.ndarray and x.ndim == 2 and x.flags.c_contiguous:
        rows, columns = x.shape
        if rows == shape[0] and columns == shape[1]:
            view = x.view()
        elif rows in (1, shape[0]) and columns in (1, shape[1]):
            strides = (x.strides[0] if rows == shape[0] else 0, x.strides[1] if columns == shape[1] else 0)
            view = np.ndarray(shape, x.dtype, x, 0, strides)
        else:
            return np.broadcast_to(x, shape)
        view.flags.writeable = False
        return view
    return np.broadcast_to(x, shape)


_ALL_LANES = {}


def _all_lanes(waves, width):
    """A read-only (waves, width) all-true EXEC (a broadcast view, made once per shape)."""
    lanes = _ALL_LANES.get((waves, width))
    if lanes is None:
        lanes = _ALL_LANES[(waves, width)] = np.broadcast_to(_TRUE, (waves, width))
    return lanes


_DWORD_VIEWS = {name: dtype for name, (dtype, dwords) in TYPES.items() if dwords == 1 and np.dtype(dtype).itemsize == 4}
_CONSTANTS = {}


def _constant(operand, type_name):
    """An inline constant or literal as a (1, 1) array of the type, made once per operand and type
    (read-only: every instruction that names it shares the array)."""
    key = (operand, type_name)
    value = _CONSTANTS.get(key)
    if value is None:
        value = np.array(constant_value(operand, type_name)).reshape(1, 1)
        value.flags.writeable = False
        _CONSTANTS[key] = value
    return value


def pack_mask(mask, waves, width):
    """Bool lanes (W, L) -> uint64 per wave (W, 1), lane i in bit i. `mask` may be one value per wave
    or per batch ((W, 1), (1, 1): a compare of uniform operands): it stands for all `width` lanes."""
    if mask.ndim == 2 and mask.shape[1] == 1:
        # One value per wave (or one for all): every lane's bit or none, without a pass over the lanes.
        lanes = np.uint64((1 << width) - 1)
        return np.where(np.broadcast_to(mask, (waves, 1)), lanes, np.uint64(0))
    mask = np.broadcast_to(mask, (waves, width))
    if width % 8 == 0 and mask.flags.c_contiguous:
        # Hot path: a wave's lanes are whole bytes, so the flat bit string of the lanes is every wave's bytes in
        # order (np.packbits along axis 1 costs about 5x more on 2^16 lanes).
        packed = np.packbits(mask.reshape(-1), bitorder="little").reshape(waves, width // 8)
        if width in (8, 16, 32, 64):      # a wave's bytes are one little-endian word
            return packed.view(f"<u{width // 8}").astype(np.uint64)
    else:
        packed = np.packbits(mask, axis=1, bitorder="little")
    padded = np.zeros((waves, 8), dtype=np.uint8)
    padded[:, :min(8, packed.shape[1])] = packed[:, :8]
    return padded.view("<u8").reshape(waves, 1).astype(np.uint64)


def unpack_mask(bits, waves, width):
    """uint64 per wave -> bool lanes (W, L)."""
    b = np.broadcast_to(np.asarray(bits, dtype=np.uint64).reshape(-1, 1), (waves, 1))
    as_bytes = np.ascontiguousarray(b.astype("<u8")).view(np.uint8).reshape(waves, 8)
    if width % 8 == 0:
        # Hot path: a wave's lanes are whole bytes: one flat bit string, and the 0 / 1 bytes viewed as bool.
        used = np.ascontiguousarray(as_bytes[:, :width // 8]).reshape(-1)
        return np.unpackbits(used, bitorder="little").reshape(waves, width).view(bool)
    return np.unpackbits(as_bytes, axis=1, bitorder="little")[:, :width].astype(bool)


class WaveBatch:
    """W waves executing together: registers, masks and ids (see the module banner)."""

    __slots__ = ("waves", "width", "sgpr", "vgpr", "exec", "exec_full", "exec_compact", "vcc", "scc",
                 "wave_index", "workgroup", "wave_in_group", "views", "exec_region", "pair_masks")

    def __init__(self, waves, width):
        self.waves = waves
        self.width = width
        self.sgpr = [None] * NUM_SGPRS
        self.vgpr = [None] * NUM_VGPRS
        self.exec_compact = _TRUE      # EXEC as set, before broadcasting (e.g. (W, 1)): same lanes
        self.exec = _all_lanes(waves, width)
        self.exec_full = True
        self.exec_region = None    # what executor._exec_region found on this EXEC (None: not looked yet)
        self.vcc = np.zeros((1, 1), dtype=bool)
        self.scc = np.zeros((1, 1), dtype=bool)
        self.views = False         # some register may be a read-only view of memory (executor._load)
        self.wave_index = None     # (W, 1) uint32: wave number in the dispatch
        self.workgroup = None      # (W, 1) uint32
        self.wave_in_group = None  # (W, 1) uint32
        self.pair_masks = {}       # SGPR pair -> (its two dwords, the bool lanes they pack): executor._mask_pair

    # ---- masks ------------------------------------------------------------------------------
    def set_exec(self, mask):
        # A mask that is one value per wave ((W, 1), e.g. a compare on a Ramp) is kept as it came
        # in `exec_compact` too: mask arithmetic, all() and any() on it cost O(W), not O(lanes).
        mask = np.asarray(mask)
        self.exec_compact = mask
        self.exec_region = None
        self.exec_full = bool(mask.all())
        if self.exec_full:
            self.exec = _all_lanes(self.waves, self.width)
        else:
            self.exec = broadcast(mask, (self.waves, self.width))

    def exec_any(self):
        compact = self.exec_compact
        if compact.ndim == 2 and compact.shape[0] == self.waves:
            return compact.any(axis=1, keepdims=True)
        return self.exec.any(axis=1, keepdims=True)

    def ones(self):
        return np.ones((self.waves, 1), dtype=bool)

    # ---- context values for v_lane_id / s_get_wave_id / s_get_workgroup_id -------------------
    def lane_id(self):
        return np.arange(self.width, dtype=np.uint32).reshape(1, self.width)

    def wave_id(self):
        return self.wave_in_group

    def workgroup_id(self):
        return self.workgroup

    # ---- splitting at divergent branches --------------------------------------------------------
    def select(self, keep):
        """A new batch holding the waves where `keep` (W,) is true."""
        out = WaveBatch(int(keep.sum()), self.width)

        def pick(a):
            if a is None or a.shape[0] == 1:
                # Shared by both halves; a view of memory is copied (small: one wave's row), or a
                # store of one half would change what the other half loaded (executor._detach).
                if self.views and type(a) is np.ndarray and a.base is not None:
                    return a.copy()
                return a
            if isinstance(a, Ramp):
                return a.take_waves(keep)
            return a[keep]
        out.sgpr = [a if a is None else pick(a) for a in self.sgpr]   # (most registers are never written)
        out.vgpr = [a if a is None else pick(a) for a in self.vgpr]
        out.set_exec(self.exec[keep])
        out.vcc, out.scc = pick(self.vcc), pick(self.scc)
        out.wave_index, out.workgroup, out.wave_in_group = (
            pick(self.wave_index), pick(self.workgroup), pick(self.wave_in_group))
        out.views = self.views
        return out

    # ---- operand access -----------------------------------------------------------------------
    def _dword(self, code):
        """The raw uint32 array of one 32-bit register or special half."""
        if code >= VGPR_BASE:
            v = self.vgpr[code - VGPR_BASE]
            if v is None:
                return _ZERO
            # A register written with a 16-bit value keeps it as uint16 (zero-extended meaning).
            return v.astype(np.uint32) if v.dtype == np.uint16 else v
        if code < NUM_SGPRS:
            v = self.sgpr[code]
            return _ZERO if v is None else v
        if code in (VCC_LO, VCC_HI, EXEC_LO, EXEC_HI):
            mask = self.vcc if code in (VCC_LO, VCC_HI) else self.exec_compact
            bits = pack_mask(mask, self.waves, self.width)
            return ((bits >> _SHIFT32) if code in (VCC_HI, EXEC_HI) else (bits & _MASK32)).astype(np.uint32)
        if code == SCC:
            return self.scc.astype(np.uint32)
        raise ValueError(f"operand code {code} is not a register")

    def read(self, operand, type_name):
        """The operand's value as a NumPy array of the type (at least 2-D, broadcastable)."""
        if type_name == "mask":
            return self.vcc if operand.code == VCC_LO else self.exec_compact
        code = operand.code
        if type_name in _DWORD_VIEWS:
            # Hot paths: a 32-bit read of a vector register (a Ramp stays one for u32 / b32) or a
            # scalar register.
            if code >= VGPR_BASE:
                v = self.vgpr[code - VGPR_BASE]
                if v is None:
                    return _ZERO.view(_DWORD_VIEWS[type_name])
                return (v.astype(np.uint32) if v.dtype == np.uint16 else v).view(_DWORD_VIEWS[type_name])
            if code < NUM_SGPRS:
                v = self.sgpr[code]
                return (_ZERO if v is None else v).view(_DWORD_VIEWS[type_name])
        if not operand.is_register:
            return _constant(operand, type_name)
        dtype, dwords = TYPES[type_name]
        if dwords == 1:
            if np.dtype(dtype).itemsize == 2:
                if code >= VGPR_BASE and self.vgpr[code - VGPR_BASE] is not None and self.vgpr[code - VGPR_BASE].dtype == np.uint16:
                    return self.vgpr[code - VGPR_BASE].view(dtype)
                return self._dword(code).view(np.uint16)[..., ::2].view(dtype)
            return self._dword(code).view(dtype)
        if dwords == 2 and code in (VCC_LO, EXEC_LO):
            return pack_mask(self.vcc if code == VCC_LO else self.exec_compact, self.waves, self.width).view(dtype)
        if dwords == 2:
            lo, hi = self._dword(code), self._dword(code + 1)
            return ((hi.astype(np.uint64) << _SHIFT32) | lo.astype(np.uint64)).view(dtype)
        return [self._dword(code + i) for i in range(dwords)]

    def write(self, operand, type_name, value, masked):
        """Write a result; vector writes keep inactive lanes when `masked`."""
        dtype, dwords = TYPES[type_name]
        if not isinstance(value, (Ramp, Rows)):
            value = np.asarray(value)
        if value.ndim < 2:
            value = value.reshape((1,) * (2 - value.ndim) + value.shape)
        code = operand.code
        if dwords == 2 and code in (VCC_LO, EXEC_LO):
            if code == EXEC_LO:
                # A wave's EXEC all on or all off (restoring a saved EXEC): kept one value per wave,
                # (W, 1), as a compare on a Ramp gives it (the same lanes, see set_exec).
                lanes = value.astype(dtype).view(np.uint64) & np.uint64((1 << self.width) - 1)
                on = lanes == np.uint64((1 << self.width) - 1)
                if lanes.ndim == 2 and lanes.shape[1] == 1 and (on | (lanes == 0)).all():
                    self.set_exec(on)
                    return
            mask = unpack_mask(value.astype(dtype).view(np.uint64), self.waves, self.width)
            if code == EXEC_LO:
                self.set_exec(mask)
            else:
                self.vcc = mask
            return
        if dwords == 1:
            if np.dtype(dtype).itemsize == 2:
                # 16-bit results stay uint16 in vector registers (read back zero-extended);
                # scalar registers always hold uint32.
                raw16 = value.astype(dtype, copy=False).view(np.uint16)
                raws = (raw16 if code >= VGPR_BASE else raw16.astype(np.uint32),)
            else:
                raws = (value.astype(dtype, copy=False).view(np.uint32),)
        elif dwords == 2:
            bits = value.astype(dtype, copy=False).view(np.uint64)
            raws = ((bits & _MASK32).astype(np.uint32), (bits >> _SHIFT32).astype(np.uint32))
        else:
            raws = tuple(np.asarray(v, dtype=np.uint32) for v in value)
        for i, raw in enumerate(raws):
            self._write_dword(code + i, raw, masked)

    def _write_dword(self, code, raw, masked):
        if code >= VGPR_BASE:
            if masked and not self.exec_full:
                old = self.vgpr[code - VGPR_BASE]
                raw = np.where(self.exec, raw, _ZERO if old is None else old)
            self.vgpr[code - VGPR_BASE] = raw
        elif code < NUM_SGPRS:
            self.sgpr[code] = raw
        elif code in (VCC_LO, VCC_HI, EXEC_LO, EXEC_HI):
            lo_code = VCC_LO if code in (VCC_LO, VCC_HI) else EXEC_LO
            bits = pack_mask(self.vcc if lo_code == VCC_LO else self.exec_compact, self.waves, self.width)
            raw64 = raw.astype(np.uint64)
            if code == lo_code:
                bits = (bits & (_MASK32 << _SHIFT32)) | raw64
            else:
                bits = (bits & _MASK32) | (raw64 << _SHIFT32)
            mask = unpack_mask(bits, self.waves, self.width)
            if lo_code == EXEC_LO:
                self.set_exec(mask)
            else:
                self.vcc = mask
        elif code == SCC:
            self.scc = raw != 0
        else:
            raise ValueError(f"operand code {code} cannot be written")
