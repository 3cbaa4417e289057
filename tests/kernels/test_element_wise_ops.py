"""The element-wise operators of the kernel skeleton (kernels/element_wise_ops.py) against the golden model.

Every operator of the table, every data type it serves, ranks 1 to 8, broadcasting and padded or transposed
strides, special values (NaN, signalling NaN, +-0, +-inf, subnormals, integer extremes) mixed into random
data: the output buffer must equal the golden model's bits scattered into the original bytes, and no other
byte may change (tests/kernels/test_kernels.py `check`, generalised here to any tensors and attributes).
"""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from dmlemu import golden
from dmlemu.direct_run import DirectRun
from dmlemu.gpu import Gpu
from dmlemu.kernels.driver import TensorSpec
from dmlemu.kernels.element_wise_ops import OPERATORS
from dmlemu.presets import TEACHING
from operator_cases import scaled
from element_wise_cases import (GUARD, NEW, check_operator, output_type_for, random_attributes, random_sizes,
                                random_strides, random_values, seeded, specials)


CASES = [(name, dt) for name in NEW for dt in OPERATORS[name].types]


@pytest.mark.parametrize("name, data_type", CASES)
def test_every_operator_and_data_type_with_special_values(name, data_type):
    rng = seeded(name, data_type)
    op = OPERATORS[name]
    gpu = Gpu(TEACHING, wave_width=16, timing=False)   # the functional model (the hypothesis test times them)
    floats = data_type in ("FLOAT32", "FLOAT16")
    for ndim in (1, 3, 8):
        sizes = random_sizes(rng, ndim, max_elements=120)
        count = len(op.tensors)
        strides = [random_strides(rng, sizes, t == count - 1) for t in range(count)] if ndim > 1 else None
        half = data_type == "FLOAT16" and ndim == 3
        sb = (float(rng.normal()), float(rng.normal())) if op.scale_bias and floats and ndim == 8 else None
        check_operator(name, data_type, sizes, rng=rng, strides=strides, gpu=gpu, half=half, scale_bias=sb,
                       attributes=random_attributes(rng, name, data_type),
                       output_type=output_type_for(rng, name, data_type), absent=op.optional if ndim == 3 else ())


@pytest.mark.parametrize("name", NEW)
@settings(max_examples=scaled(4), deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                      HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_random_types_ranks_strides_and_broadcasting_per_operator(name, data):
    op = OPERATORS[name]
    data_type = data.draw(st.sampled_from(op.types))
    ndim = data.draw(st.integers(1, 8))
    rng = np.random.default_rng(data.draw(st.integers(0, 2 ** 32 - 1)))
    sizes = random_sizes(rng, ndim, max_elements=200)
    count = len(op.tensors)
    strides = [random_strides(rng, sizes, t == count - 1) if data.draw(st.booleans()) else None for t in range(count)]
    floats = data_type in ("FLOAT32", "FLOAT16")
    sb = None
    if op.scale_bias and floats and data.draw(st.booleans()):
        sb = (data.draw(st.floats(-8, 8, width=32)), data.draw(st.floats(-8, 8, width=32)))
    check_operator(name, data_type, sizes, rng=rng, strides=strides,
                   offsets=[16 * data.draw(st.integers(0, 3)) for _ in range(count)],
                   half=data_type == "FLOAT16" and data.draw(st.booleans()), scale_bias=sb,
                   attributes=random_attributes(rng, name, data_type),
                   output_type=output_type_for(rng, name, data_type),
                   width=data.draw(st.sampled_from([4, 8, 32, 64])),
                   absent=tuple(i for i in op.optional if data.draw(st.booleans())))


BINARY_CASES = [(name, dt) for name in NEW for dt in OPERATORS[name].types
                if OPERATORS[name].inputs == 2 and OPERATORS[name].type_tensor == 0]


@pytest.mark.parametrize("name, data_type", BINARY_CASES)
def test_every_pair_of_special_values(name, data_type):
    """Integer extremes (wrap-around, MIN / -1, x / 0, shifts past the width), NaNs, zeros of both signs and
    infinities, every pair of them (a in every row, b in every column)."""
    s = specials(golden.DATA_TYPES[data_type])
    a, b = np.repeat(s, s.size), np.tile(s, s.size)
    rng = seeded("pairs", name, data_type)
    check_operator(name, data_type, [a.size], rng=rng, payload=[a, b], offsets=[0, 0, 0], width=64,
                   gpu=Gpu(TEACHING, wave_width=64, timing=False), attributes=random_attributes(rng, name, data_type),
                   output_type=output_type_for(rng, name, data_type))


@pytest.mark.parametrize("inputs", [3, 5, 8])
@pytest.mark.parametrize("data_type", ["FLOAT32", "FLOAT16", "INT8", "UINT16", "INT64"])
def test_the_skeleton_addresses_up_to_nine_tensors(monkeypatch, inputs, data_type):
    """QUANTIZED_LINEAR_ADD has 8 inputs and an output: a test operator summing every input (body
    ADD_EVERY_INPUT) runs through the same head and tail, with broadcast, padded and transposed strides."""
    from dmlemu.kernels.element_wise_ops import ElementWiseOperator
    name = f"TEST_ADD_EVERY_INPUT_{inputs}"
    row = ElementWiseOperator(name=name, tensors=tuple(f"T{i}" for i in range(inputs)) + ("OutputTensor",),
                              types=(data_type,), body_name="ADD_EVERY_INPUT")
    monkeypatch.setitem(OPERATORS, name, row)
    rng = seeded("nine", inputs, data_type)
    dtype = golden.DATA_TYPES[data_type]
    for strided in (False, True):
        sizes = [3, 4, 5] if strided else [61]
        types = [data_type] * (inputs + 1)
        strides = [random_strides(rng, sizes, t == inputs) if strided else None for t in range(inputs + 1)]
        offsets = [16 * int(rng.integers(0, 3)) for _ in types]
        specs, buffers, values = [], [], []
        for t, (st_, off) in enumerate(zip(strides, offsets)):
            nbytes = golden.calc_buffer_tensor_size(data_type, sizes, st_)
            specs.append(TensorSpec(data_type, tuple(sizes), None if st_ is None else tuple(st_), nbytes))
            buf = rng.integers(0, 256, size=off + nbytes + GUARD, dtype=np.uint8)
            if t < inputs:
                v = (rng.normal(size=sizes) * 100).astype(dtype)
                golden.scatter(buf, off, v, st_)
                values.append(golden.gather(buf, off, dtype, sizes, st_))
            buffers.append(buf)
        run = DirectRun(Gpu(TEACHING, wave_width=8), name, specs, buffers, offsets=offsets)
        stats = run.dispatch()
        work = np.float32 if data_type == "FLOAT16" else dtype
        with np.errstate(over="ignore"):
            total = values[0].astype(work)
            for v in values[1:]:
                total = (total + v.astype(work)).astype(work)
            expected = buffers[-1].copy()
            golden.scatter(expected, offsets[-1], total.astype(dtype), strides[-1])
        assert np.array_equal(run.allocations[-1].data, expected), (inputs, data_type, strided)
        assert stats.oob_reads == 0 and stats.oob_writes == 0
        assert run.kernel.constants.size == (576 if inputs + 1 > 4 else 288)


@pytest.mark.parametrize("source", OPERATORS["CAST"].types)
def test_cast_every_type_pair_with_special_values(source):
    """CAST from `source` to every data type: saturation, NaN -> 0, wrap-around, sign extension, rounding."""
    values = np.concatenate([specials(golden.DATA_TYPES[source]),
                             random_values(seeded("cast", source), golden.DATA_TYPES[source], (40,))])
    gpu = Gpu(TEACHING, wave_width=32, timing=False)
    for target in OPERATORS["CAST"].output_types:
        check_operator("CAST", source, [values.size], rng=seeded("cast", source, target), payload=[values],
                       offsets=[0, 16], gpu=gpu, output_type=target, width=32)


@pytest.mark.parametrize("output_type", OPERATORS["ELEMENT_WISE_LOGICAL_EQUALS"].output_types)
def test_comparison_and_count_outputs_of_every_integer_type(output_type):
    gpu = Gpu(TEACHING, wave_width=16, timing=False)
    for name, data_type in (("ELEMENT_WISE_LOGICAL_GREATER_THAN_OR_EQUAL", "INT64"), ("ELEMENT_WISE_IS_NAN", "FLOAT16"),
                            ("ELEMENT_WISE_BIT_COUNT", "UINT64"), ("ELEMENT_WISE_LOGICAL_XOR", "INT8")):
        rng = seeded("outputs", name, output_type)
        check_operator(name, data_type, [5, 7], rng=rng, gpu=gpu, output_type=output_type, width=16,
                       strides=[random_strides(rng, [5, 7], t == len(OPERATORS[name].tensors) - 1)
                                for t in range(len(OPERATORS[name].tensors))])
