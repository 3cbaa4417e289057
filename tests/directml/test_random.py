"""RANDOM_GENERATOR (Philox 4x32-10) through the mirror, bit for bit against the golden model and Random123's
known-answer vectors (docs/NUMERICS.md, "Random numbers"): the stream (block k / 4 of the counter, word k % 4), the
128-bit counter's carries, the next state's increment ceil(count / 4), the optional OutputStateTensor, strides and
every adapter; the Sizes rule's sentence."""
import numpy as np
from hypothesis import HealthCheck, given, settings, strategies as st

from dmlemu import golden, run_operator
from dmlemu.d3d12 import *  # noqa: F401,F403
from dmlemu.directml import *  # noqa: F401,F403
from dmlemu.errors import E_INVALIDARG, HResultError
from dmlemu.golden.random import philox4x32_10
from dmlemu.presets import PRESETS, WARP
from tensor_layouts import layout_strides

# Random123's kat_vectors for philox4x32_10: (counter words c0 .. c3, key k0 k1) -> four output words.
KNOWN_ANSWERS = (
    ((0, 0, 0, 0), (0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
    ((0xFFFFFFFF,) * 4, (0xFFFFFFFF,) * 2, (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
    ((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344), (0xA4093822, 0x299F31D0),
     (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1)),
)


def tensor(sizes, strides=None):
    sizes = list(sizes)
    return DML_TENSOR_DESC(Type=DML_TENSOR_TYPE_BUFFER, Desc=DML_BUFFER_TENSOR_DESC(
        DataType=DML_TENSOR_DATA_TYPE_UINT32, Sizes=sizes, Strides=strides,
        TotalTensorSizeInBytes=DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_UINT32, len(sizes), sizes, strides)))


def random_desc(out_sizes, with_state=True, strides=None):
    return DML_RANDOM_GENERATOR_OPERATOR_DESC(
        InputStateTensor=tensor([1, 1, 1, 6]), OutputTensor=tensor(out_sizes, strides),
        OutputStateTensor=tensor([1, 1, 1, 6]) if with_state else None,
        Type=DML_RANDOM_GENERATOR_TYPE_PHILOX_4X32_10)


def test_the_known_answers_come_out_of_the_kernel():
    for counter, key, words in KNOWN_ANSWERS:
        assert [int(w[0]) for w in philox4x32_10([[c] for c in counter], key)] == list(words)
        state = np.array(counter + key, np.uint32).reshape(1, 1, 1, 6)
        out, following = run_operator(random_desc([1, 1, 1, 4]), [state])
        assert out.ravel().tolist() == list(words)
        assert following.ravel().tolist()[4:] == list(key)


def test_the_counter_carries_and_the_next_state_steps_by_ceil_count_over_4():
    state = np.array([0xFFFFFFFE, 0xFFFFFFFF, 0xFFFFFFFF, 7, 1, 2], np.uint32).reshape(1, 1, 1, 6)
    out, following = run_operator(random_desc([1, 1, 3, 5]), [state])       # 15 elements: 4 blocks
    assert following.ravel().tolist() == [2, 0, 0, 8, 1, 2]                   # + 4, carried into word 3
    block = [int(w[0]) for w in philox4x32_10([[0], [0], [0], [8]], (1, 2))]   # block 2: the carried counter
    assert out.ravel()[8:12].tolist() == block
    (alone,) = run_operator(random_desc([1, 1, 3, 5], with_state=False), [state])
    assert alone.tolist() == out.tolist()


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.integers(0, 2 ** 32 - 1), min_size=6, max_size=6), st.lists(st.integers(1, 9), min_size=4,
       max_size=4), st.booleans(), st.sampled_from(["packed", "padded", "permuted"]),
       st.sampled_from(PRESETS + (WARP,)), st.integers(0, 2 ** 32 - 1))
def test_drawn_streams_are_bit_exact_on_every_adapter(words, sizes, with_state, layout, preset, seed):
    state = np.array(words, np.uint32).reshape(1, 1, 1, 6)
    strides = layout_strides(sizes, layout, np.random.default_rng(seed))[0]
    got = run_operator(random_desc(sizes, with_state, strides), [state], adapter=preset)
    out, following = golden.run("RANDOM_GENERATOR", [state], {"Type": 0, "OutputSizes": tuple(sizes)})
    assert got[0].dtype == np.uint32 and got[0].tolist() == out.tolist()
    if with_state:
        assert got[1].tolist() == following.tolist()


def test_the_state_sizes_are_checked():
    dml = DMLCreateDevice(D3D12CreateDevice(None, D3D_FEATURE_LEVEL_11_0), DML_CREATE_DEVICE_FLAG_NONE)
    desc = random_desc([1, 1, 2, 2])
    desc.InputStateTensor = desc.OutputStateTensor = tensor([1, 1, 1, 5])
    try:
        dml.CreateOperator(DML_OPERATOR_DESC(Type=DML_OPERATOR_RANDOM_GENERATOR, Desc=desc))
        result = "validated"
    except HResultError as error:
        result = (error.hresult, error.message)
    assert result == (E_INVALIDARG, "InputStateTensor.Sizes is {1,1,1,5}; DML_OPERATOR_RANDOM_GENERATOR with "
                                    "DML_RANDOM_GENERATOR_TYPE_PHILOX_4X32_10 needs {1,1,1,6}.")
