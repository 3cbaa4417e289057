"""Atomic read-modify-write: lanes applying one operation to memory in a fixed order.

Used by the LDS atomics (ds_add_u32 ...) and the buffer atomics (buffer_atomic_add ...). The order
is the one docs/NUMERICS.md ("Atomics") writes down: within one instruction executed by a batch of
waves, the active lanes apply in (wave, lane) ascending order; every lane's returned value is the
memory word just before its own operation. Where that order cannot change the result (an
order-free operation, opcodes.ORDER_FREE_ATOMICS, whose old values nobody reads) it is applied
with one NumPy `ufunc.at`; otherwise lanes that touch distinct words are applied together, round
after round (the k-th lane on each word in round k), and add/sub with returns by a segmented prefix
sum: the same values as lane after lane, faster.
"""
import numpy as np

from dmlemu.isa import opcodes as op

_VIEW = {"u32": np.uint32, "b32": np.uint32, "i32": np.int32, "f32": np.float32}
_AT = {"add_u32": np.add, "sub_u32": np.subtract, "min_i32": np.minimum, "min_u32": np.minimum,
       "max_i32": np.maximum, "max_u32": np.maximum, "and_b32": np.bitwise_and, "or_b32": np.bitwise_or,
       "xor_b32": np.bitwise_xor}
_MAX_ROUNDS = 64        # beyond this many lanes on one word, lane after lane in Python


def _runs(index):
    """(stable order sorting `index`, the sorted indices, where each run of one word starts)."""
    order = np.argsort(index, kind="stable")
    sorted_index = index[order]
    starts = np.ones(index.size, dtype=bool)
    starts[1:] = sorted_index[1:] != sorted_index[:-1]
    return order, sorted_index, starts


def apply(words, index, data, compare, operation, want_old):
    """Apply `operation` (a row of opcodes.ATOMIC_OPERATIONS) to the uint32 array `words` at `index`
    (n,) int64, lane after lane in index-array order, with `data` (n,) uint32 (and `compare` for
    cmpst); returns the old values (n,) uint32 when `want_old`, else None."""
    n = index.size
    if n == 0:
        return np.zeros(0, dtype=np.uint32) if want_old else None
    value_type, fn, _ = op.ATOMIC_BY_NAME[operation]
    dtype = _VIEW[value_type]
    typed = words.view(dtype)
    d = np.ascontiguousarray(data, dtype=np.uint32).view(dtype)
    c = None if compare is None else np.ascontiguousarray(compare, dtype=np.uint32).view(dtype)
    if not want_old and operation in _AT:                # order-free: one unbuffered ufunc pass
        _AT[operation].at(typed, index, d)
        return None
    runs = None
    if words.size <= 8 * n + 65536:                       # a small memory (LDS): count the lanes per word
        distinct = int(np.bincount(index, minlength=1).max()) == 1
    else:
        runs = _runs(index)
        distinct = bool(runs[2].all())
    if distinct:                                          # every lane on its own word: one step
        old = typed[index]
        typed[index] = fn(old, d) if c is None else fn(old, d, c)
        return old.view(np.uint32) if want_old else None
    order, sorted_index, starts = runs or _runs(index)
    group_start = np.maximum.accumulate(np.where(starts, np.arange(n), 0))
    rank_sorted = np.arange(n) - group_start
    if operation in ("add_u32", "sub_u32"):
        step = d.astype(np.uint64) if operation == "add_u32" else (-d.astype(np.int64)).astype(np.uint64)
        s = step[order]
        before = np.cumsum(s) - s                         # exclusive prefix, mod 2^64
        before -= before[group_start]
        base = typed[sorted_index].astype(np.uint64)
        old_sorted = (base + before).astype(np.uint32)
        last = np.r_[starts[1:], True]
        typed[sorted_index[last]] = (old_sorted[last].astype(np.uint64) + s[last]).astype(np.uint32)
        old = np.empty(n, dtype=np.uint32)
        old[order] = old_sorted
        return old if want_old else None
    rank = np.empty(n, dtype=np.int64)
    rank[order] = rank_sorted
    rounds = int(rank_sorted.max()) + 1
    old = np.empty(n, dtype=dtype)
    if rounds <= _MAX_ROUNDS:
        for r in range(rounds):
            lanes = np.flatnonzero(rank == r)             # distinct words, in lane order
            at = index[lanes]
            before = typed[at]
            old[lanes] = before
            typed[at] = fn(before, d[lanes]) if c is None else fn(before, d[lanes], c[lanes])
    else:
        for lane in range(n):
            at = index[lane:lane + 1]
            before = typed[at]
            old[lane] = before[0]
            typed[at] = fn(before, d[lane:lane + 1]) if c is None else fn(before, d[lane:lane + 1], c[lane:lane + 1])
    return old.view(np.uint32) if want_old else None
