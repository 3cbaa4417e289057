"""emulator/functional/atomics.py against a lane-after-lane loop: every operation, returns or not, on
index arrays with many lanes per word (the vectorised rounds, the segmented prefix sums and ufunc.at must
give exactly what applying the lanes one by one gives)."""
import numpy as np
from hypothesis import given, settings, strategies as st

from dmlemu.functional import atomics
from dmlemu.isa import opcodes as op

_VIEW = {"u32": np.uint32, "b32": np.uint32, "i32": np.int32, "f32": np.float32}


def one_by_one(words, index, data, compare, operation):
    value_type, fn, _ = op.ATOMIC_BY_NAME[operation]
    typed = words.view(_VIEW[value_type])
    d, c = data.view(_VIEW[value_type]), None if compare is None else compare.view(_VIEW[value_type])
    old = np.zeros(index.size, dtype=np.uint32)
    for lane, at in enumerate(index.tolist()):
        before = typed[at:at + 1].copy()
        old[lane] = before.view(np.uint32)[0]
        typed[at:at + 1] = fn(before, d[lane:lane + 1]) if c is None else fn(before, d[lane:lane + 1], c[lane:lane + 1])
    return old


def _words(draw_bits, n, value_type):
    if value_type == "f32":
        return np.random.default_rng(draw_bits).normal(0, 100, n).astype(np.float32).view(np.uint32)
    return np.random.default_rng(draw_bits).integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)


@settings(max_examples=60, deadline=None)
@given(operation=st.sampled_from([name for name, *_ in op.ATOMIC_OPERATIONS]), want_old=st.booleans(),
       words=st.integers(1, 40), lanes=st.integers(0, 300), seed=st.integers(0, 2 ** 32 - 1),
       big_memory=st.booleans())
def test_every_operation_gives_what_the_lanes_give_one_after_another(operation, want_old, words, lanes, seed,
                                                                      big_memory):
    value_type = op.ATOMIC_BY_NAME[operation][0]
    rng = np.random.default_rng(seed)
    size = words + (200_000 if big_memory else 0)     # a large memory takes the sorting path
    memory = _words(seed, size, value_type)
    index = rng.integers(0, words, lanes).astype(np.int64)
    data = _words(seed + 1, lanes, value_type)
    compare = None
    if operation == "cmpst_b32":
        compare = np.where(rng.random(lanes) < 0.5, memory[index], data)   # equal some of the time
    expected_memory = memory.copy()
    expected_old = one_by_one(expected_memory, index, data, compare, operation)
    old = atomics.apply(memory, index, data, compare, operation, want_old)
    assert np.array_equal(memory, expected_memory)
    if want_old:
        assert np.array_equal(old, expected_old)
    else:
        assert old is None


def test_many_lanes_on_one_word_fall_back_to_lane_after_lane():
    memory = np.zeros(4, dtype=np.uint32)
    index = np.zeros(1000, dtype=np.int64)
    data = np.arange(1000, dtype=np.uint32)
    expected = memory.copy()
    expected_old = one_by_one(expected, index, data, None, "max_u32")
    old = atomics.apply(memory, index, data, None, "max_u32", True)
    assert np.array_equal(old, expected_old) and np.array_equal(memory, expected)
