"""dmlemu.run_operator (emulator/convenience.py) on inputs that are not a list of arrays: a TypeError
sentence for the wrong kind of object (as for a wrong desc or dtype), a ValueError sentence for the wrong
count or size, checked without building anything large: range(10**18) and endless generators cost nothing.
"""
import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dmlemu import HResultError, run_operator
from dmlemu.directml import (
    DML_BUFFER_TENSOR_DESC, DML_ELEMENT_WISE_ADD_OPERATOR_DESC, DML_ELEMENT_WISE_CLIP_OPERATOR_DESC,
    DML_ELEMENT_WISE_IF_OPERATOR_DESC, DML_ELEMENT_WISE_LOGICAL_GREATER_THAN_OPERATOR_DESC,
    DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_UINT8, DML_TENSOR_DESC, DML_TENSOR_TYPE_BUFFER,
)

from operator_cases import ACCEPTED, REFUSED, garbage, outcome, scaled

CLIP = "DML_OPERATOR_ELEMENT_WISE_CLIP"


def tensor(data_type=DML_TENSOR_DATA_TYPE_FLOAT32, total=24):
    return DML_TENSOR_DESC(Type=DML_TENSOR_TYPE_BUFFER, Desc=DML_BUFFER_TENSOR_DESC(
        DataType=data_type, Sizes=[2, 3], TotalTensorSizeInBytes=total))


DESC = DML_ELEMENT_WISE_CLIP_OPERATOR_DESC(InputTensor=tensor(), OutputTensor=tensor(), Min=0, Max=1)
X = np.linspace(-1, 2, 6, dtype=np.float32).reshape(2, 3)


def endless():
    while True:
        yield X


@pytest.mark.parametrize("inputs, message", [
    (None, f"inputs is None; give a list with one array per input tensor of {CLIP} (InputTensor)"),
    (5, f"inputs is int 5; give a list with one array per input tensor of {CLIP} (InputTensor)"),
    ("x", f"inputs is str 'x'; give a list with one array per input tensor of {CLIP} (InputTensor)"),
    ({"a": 1}, f"inputs is dict {{'a': 1}}; give a list with one array per input tensor of {CLIP} (InputTensor)"),
])
def test_inputs_of_the_wrong_kind_are_a_type_error_sentence(inputs, message):
    with pytest.raises(TypeError) as info:
        run_operator(DESC, inputs)
    assert str(info.value) == message


@pytest.mark.parametrize("inputs, given", [
    ([], "0"), ([X, X], "2"), (range(10 ** 18), "1000000000000000000"), (range(10 ** 20), "more than 1"),
    (endless(), "more than 1"), (itertools.repeat(X), "more than 1"), (iter([]), "0"),
])
def test_the_wrong_count_is_a_value_error_sentence(inputs, given):
    with pytest.raises(ValueError) as info:
        run_operator(DESC, inputs)
    assert str(info.value) == f"{CLIP} takes 1 inputs (InputTensor); {given} were given"


@pytest.mark.parametrize("item, message", [
    (range(10 ** 18), "InputTensor has Sizes [2, 3] (6 elements); the range given holds more"),
    ([[0.0] * 3] * 3, "InputTensor has Sizes [2, 3] (6 elements); the list given holds more"),
    ([range(10 ** 18)], "InputTensor has Sizes [2, 3] (6 elements); the list given holds more"),
    ([[0.0, 0.0], [0.0]], "InputTensor: the list given is not an array: setting an array element with a sequence."),
])
def test_an_input_holding_too_much_is_refused_before_it_is_built(item, message):
    with pytest.raises(ValueError) as info:
        run_operator(DESC, [item])
    assert str(info.value).startswith(message), str(info.value)


def test_deep_nesting_is_refused_without_recursing():
    deep = [0.0]
    for _ in range(5000):
        deep = [deep]
    with pytest.raises(ValueError) as info:
        run_operator(DESC, [deep])
    assert str(info.value) == "InputTensor: the list given nests more than 32 levels deep"


def test_iterables_of_arrays_still_run():
    expected = np.clip(X, 0, 1)
    for inputs in ([X], (X,), iter([X]), (x for x in [X]), [X.reshape(-1)]):
        [y] = run_operator(DESC, inputs)
        assert np.array_equal(y, expected)
    condition = DML_ELEMENT_WISE_IF_OPERATOR_DESC(ConditionTensor=tensor(DML_TENSOR_DATA_TYPE_UINT8, 8), ATensor=tensor(),
                                                  BTensor=tensor(), OutputTensor=tensor())
    picked = np.array([[1, 0, 1], [0, 1, 0]], dtype=np.uint8)
    [y] = run_operator(condition, itertools.chain([picked], [X, -X]))
    assert np.array_equal(y, np.where(picked, X, -X))


# ---- property: any argument ends in a result or a documented error ---------------------------------------
_ARGUMENTS = ("desc", "inputs", "flags", "adapter", "feature_level", "debug", "trace")


@settings(max_examples=scaled(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(_ARGUMENTS), value=st.one_of(garbage, st.sampled_from(
    [[X], [X.astype(np.float16)], [X[:1]], "teaching", "nope", "wave", "memory", 0x6400, 0x1000, np.int64(0)])))
def test_any_argument_ends_in_outputs_or_a_documented_error(name, value):
    """run_operator's documented errors: HResultError from the mirror, TypeError / ValueError sentences for its
    own arguments (see its docstring). Each is one line naming what was wrong."""
    arguments = {"desc": DESC, "inputs": [X], "adapter": "teaching"}
    arguments[name] = value
    desc, inputs = arguments.pop("desc"), arguments.pop("inputs")
    try:
        result = run_operator(desc, inputs, **arguments)
    except (HResultError, TypeError, ValueError) as error:
        text = error.message if isinstance(error, HResultError) else str(error)
        assert text and "\n" not in text and len(text) < 400, text
        outcome(REFUSED)
        return
    outcome(ACCEPTED)
    outputs = result[0] if arguments.get("trace") is not None else result
    assert isinstance(outputs, list) and all(isinstance(y, np.ndarray) for y in outputs)


# ---- the operators beyond the seeds: two inputs, a broadcast, an output of another type -------------------
ADD = DML_ELEMENT_WISE_ADD_OPERATOR_DESC(
    ATensor=tensor(), OutputTensor=tensor(),
    BTensor=DML_TENSOR_DESC(Type=DML_TENSOR_TYPE_BUFFER, Desc=DML_BUFFER_TENSOR_DESC(
        DataType=DML_TENSOR_DATA_TYPE_FLOAT32, Sizes=[2, 3], Strides=[0, 1], TotalTensorSizeInBytes=12)))
GREATER = DML_ELEMENT_WISE_LOGICAL_GREATER_THAN_OPERATOR_DESC(ATensor=tensor(), BTensor=tensor(),
                                                              OutputTensor=tensor(DML_TENSOR_DATA_TYPE_UINT8, 8))


@pytest.mark.parametrize("desc, inputs, error, message", [
    (ADD, [X, X.astype(np.float16)], TypeError,
     "BTensor is FLOAT32; the array given has dtype float16, not float32"),
    (ADD, [X, X[:1]], ValueError, "BTensor has Sizes [2, 3]; the array given has shape (1, 3)"),
    (ADD, [X], ValueError, "DML_OPERATOR_ELEMENT_WISE_ADD takes 2 inputs (ATensor, BTensor); 1 were given"),
    (GREATER, [X, X, X], ValueError,
     "DML_OPERATOR_ELEMENT_WISE_LOGICAL_GREATER_THAN takes 2 inputs (ATensor, BTensor); 3 were given"),
    (GREATER, [X, range(10 ** 18)], ValueError, "BTensor has Sizes [2, 3] (6 elements); the range given holds more"),
])
def test_binary_operators_name_the_input_that_is_wrong(desc, inputs, error, message):
    with pytest.raises(error) as info:
        run_operator(desc, inputs)
    assert str(info.value) == message


def test_a_broadcast_input_and_a_uint8_output_run():
    row = np.array([[0.5, -1.0, 2.0]], dtype=np.float32)
    [y] = run_operator(ADD, [X, np.repeat(row, 2, axis=0)])
    assert np.array_equal(y, X + row)
    [z] = run_operator(GREATER, [X, -X])
    assert z.dtype == np.uint8 and np.array_equal(z, (X > -X).astype(np.uint8))
