"""The fast executor against the slow per-lane reference executor (tests/oracles/reference_executor.py) on a sample
of the element-wise skeleton's kernels: every register and memory byte the two leave must agree."""
import numpy as np
import pytest

from dmlemu.direct_run import DirectRun
from dmlemu.gpu import Gpu
from dmlemu.kernels.driver import TensorSpec, tensor_types
from dmlemu.kernels.element_wise_ops import OPERATORS
from dmlemu import golden
from dmlemu.presets import TEACHING
from reference_executor import run_launch
from element_wise_cases import random_attributes, random_strides, random_values, seeded

SAMPLE = [
    ("ELEMENT_WISE_ADD", "INT64", None), ("ELEMENT_WISE_ADD1", "FLOAT16", None),
    ("ELEMENT_WISE_DIVIDE", "FLOAT32", None), ("ELEMENT_WISE_DIVIDE", "INT16", None),
    ("ELEMENT_WISE_MODULUS_FLOOR", "INT32", None), ("ELEMENT_WISE_ROUND", "FLOAT16", None),
    ("ELEMENT_WISE_BIT_SHIFT_RIGHT", "INT64", None), ("ELEMENT_WISE_BIT_COUNT", "UINT16", "UINT8"),
    ("ELEMENT_WISE_LOGICAL_LESS_THAN_OR_EQUAL", "FLOAT16", "UINT32"), ("ELEMENT_WISE_CLIP1", "UINT64", None),
    ("ELEMENT_WISE_CLIP_GRAD", "INT8", None), ("ELEMENT_WISE_IS_INFINITY", "FLOAT32", "UINT8"),
    ("CAST", "FLOAT64", "INT8"), ("CAST", "UINT32", "FLOAT16"), ("ACTIVATION_SHRINK", "FLOAT32", None),
    ("ACTIVATION_HARD_SWISH", "FLOAT16", None), ("ELEMENT_WISE_SIGN", "INT32", None),
    ("ELEMENT_WISE_QUANTIZE_LINEAR", "FLOAT16", "INT8"), ("ELEMENT_WISE_DEQUANTIZE_LINEAR", "UINT32", "FLOAT16"),
    ("ELEMENT_WISE_QUANTIZED_LINEAR_ADD", "UINT8", "INT8"),
    # transcendental functions and their activations (every math_*.inc function at least once)
    ("ELEMENT_WISE_SIN", "FLOAT32", None), ("ELEMENT_WISE_COS", "FLOAT16", None),
    ("ELEMENT_WISE_ATAN_YX", "FLOAT32", None), ("ELEMENT_WISE_ASINH", "FLOAT16", None),
    ("ELEMENT_WISE_POW", "FLOAT32", None), ("ACTIVATION_GELU", "FLOAT32", None),
    ("ACTIVATION_SOFTPLUS", "FLOAT16", None), ("ELEMENT_WISE_SINH", "FLOAT32", None),
]


@pytest.mark.parametrize("name, data_type, output_type", SAMPLE)
@pytest.mark.parametrize("strided", [False, True])
def test_fast_and_reference_executors_agree(name, data_type, output_type, strided):
    rng = seeded("executor", name, data_type, strided)
    op = OPERATORS[name]
    types = list(tensor_types(name, data_type, output_type) if op.type_combos else tensor_types(name, data_type))
    if output_type is not None:
        types[-1] = output_type
    sizes = [3, 1, 5] if strided else [23]
    specs, buffers = [], []
    for t, dt in enumerate(types):
        st_ = random_strides(rng, sizes, t == len(types) - 1) if strided else None
        nbytes = golden.calc_buffer_tensor_size(dt, sizes, st_)
        buf = rng.integers(0, 256, size=nbytes + 8, dtype=np.uint8)
        if t < len(types) - 1:
            golden.scatter(buf, 0, random_values(rng, golden.DATA_TYPES[dt], sizes), st_)
        specs.append(TensorSpec(dt, tuple(sizes), None if st_ is None else tuple(st_), nbytes))
        buffers.append(buf)
    args = dict(attributes=random_attributes(rng, name, data_type), half_precision=bool(rng.integers(0, 2)))
    width = 8
    fast_gpu, ref_gpu = Gpu(TEACHING, wave_width=width), Gpu(TEACHING, wave_width=width)
    fast = DirectRun(fast_gpu, name, specs, buffers, **args)
    ref = DirectRun(ref_gpu, name, specs, buffers, **args)
    fast.dispatch()
    run_launch(ref.launch(), ref_gpu.memory, width)
    for a, b in zip(fast.allocations, ref.allocations):
        assert np.array_equal(a.data, b.data), f"{name} {types}: the executors disagree"
    assert op.name == name


def test_a_uniform_compare_result_combined_with_a_per_lane_one_by_salu():
    # A compare of uniform operands leaves one VCC value per batch; read as a 64-bit SGPR pair it stands
    # for every lane (WaveBatch's pack_mask once packed it as lane 0 alone).
    from test_executor import run_random_program
    text = "\n".join([
        "s_mov_b64 s[30:31], exec", "v_lane_id v1",
        "s_mov_b32 s13, 0x3dcccccd", "v_mov_b32 v2, s13", "v_trunc_f32 v3, v2",
        "v_cmp_ne_f32 vcc, v3, v2",               # uniform: true in every lane
        "s_mov_b64 s[56:57], vcc", "v_cmp_gt_u32 vcc, v1, 2", "s_and_b64 vcc, vcc, s[56:57]",
        "v_cndmask_b32 v4, 0, 1, vcc",            # lanes 3 .. 7: 1
        "s_mov_b64 exec, s[30:31]", "s_load_dwordx4 s[20:23], s[0:1], 0", "s_waitcnt 0",
        "s_mul_i32 s24, s4, 16", "v_add_u32 v13, s24, v0", "v_lshl_b32 v13, v13, 6"]
        + [f"buffer_store_dword v{r}, v13, s[20:23], {4 * r}" for r in range(1, 13)] + ["s_endpgm"])
    run_random_program(np.random.default_rng(0), text, "uniform_vcc_and", width=8, groups=1)
