"""RANDOM_GENERATOR, DML_RANDOM_GENERATOR_TYPE_PHILOX_4X32_10, written from the page and the Philox paper.

Output element k (row-major over the output's Sizes) is word k % 4 of Philox 4x32-10 (Salmon et al., SC'11:
ten rounds, multipliers 0xD2511F53 and 0xCD9E8D57, key bumps 0x9E3779B9 and 0xBB67AE85) of the 128-bit
counter (InputStateTensor elements 0 .. 3, element 0 the lowest 32 bits) plus k // 4, under the 64-bit key
(elements 4, 5). The next state is the counter plus ceil(count / 4) (the page's increment) and the same key.
Vectorised over the blocks in NumPy uint64 arithmetic; docs/NUMERICS.md, "Random numbers".
"""
import numpy as np

from dmlemu.golden.registry import operator

M0, M1 = 0xD2511F53, 0xCD9E8D57
W0, W1 = 0x9E3779B9, 0xBB67AE85
LOW = np.uint64(0xFFFFFFFF)


def philox4x32_10(counters, key):
    """The four output words (uint32 arrays) of each counter, given as four uint32 arrays (c0 the lowest)."""
    c = [np.asarray(w, np.uint64) for w in counters]
    k0, k1 = int(key[0]), int(key[1])
    for _ in range(10):
        p0, p1 = c[0] * np.uint64(M0), c[2] * np.uint64(M1)
        c = [(p1 >> np.uint64(32)) ^ c[1] ^ np.uint64(k0), p1 & LOW, (p0 >> np.uint64(32)) ^ c[3] ^ np.uint64(k1),
             p0 & LOW]
        k0, k1 = (k0 + W0) & 0xFFFFFFFF, (k1 + W1) & 0xFFFFFFFF
    return [w.astype(np.uint32) for w in c]


def _add_128(state, blocks):
    """The counter words of counter + blocks (uint64 array), each a uint32 array."""
    low = (int(state[1]) << 32 | int(state[0]))
    high = (int(state[3]) << 32 | int(state[2]))
    blocks = np.asarray(blocks, np.uint64)
    low_sum = np.uint64(low) + blocks                      # wraps modulo 2^64
    carry = (low_sum < blocks).astype(np.uint64)
    high_sum = np.uint64(high) + carry
    return [low_sum & LOW, low_sum >> np.uint64(32), high_sum & LOW, high_sum >> np.uint64(32)]


@operator(name="RANDOM_GENERATOR", attributes=("Type",), keyword_attributes=("OutputSizes",))
def random_generator(state, generator_type=0, OutputSizes=(1, 1, 1, 4)):     # noqa: N803 (the output's Sizes)
    """(output of `OutputSizes` as UINT32, the next state {1,1,1,6})."""
    words = np.asarray(state, np.uint32).reshape(-1)
    count = int(np.prod(OutputSizes, dtype=np.int64))
    k = np.arange(count, dtype=np.uint64)
    with np.errstate(over="ignore"):
        blocks = philox4x32_10(_add_128(words, k // np.uint64(4)), words[4:6])
        output = np.choose((k % np.uint64(4)).astype(np.int64), blocks).astype(np.uint32)
        following = _add_128(words, np.array([-(-count // 4)], np.uint64))
    next_state = np.array([int(w[0]) for w in following] + [int(words[4]), int(words[5])], np.uint32)
    return output.reshape(tuple(OutputSizes)), next_state.reshape(1, 1, 1, 6)
