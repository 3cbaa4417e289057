"""The workgroup examples (examples/transpose.py, histogram.py, reduction.py, sgemm.py and their kernels
in examples/kernels/) at small sizes, bit for bit against NumPy, on the default adapter (waves of 32)
and on others (waves of 8 and 16, where the reduction's cross-lane steps are assembled differently);
and what their timing shows: the tiled transpose beats the naive one, padding beats bank conflicts."""
import importlib.util
import os
import sys

import numpy as np
import pytest

from dmlemu.d3d12 import D3D12CreateDevice, D3D_FEATURE_LEVEL_11_0
from dmlemu.presets import PRESETS

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLES = os.path.join(ROOT, "examples")


def _load(name):
    if EXAMPLES not in sys.path:        # the examples import compute_rig from their own folder
        sys.path.insert(0, EXAMPLES)
    spec = importlib.util.spec_from_file_location(f"example_{name}", os.path.join(EXAMPLES, f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


transpose, histogram, reduction, sgemm = (_load(n) for n in ("transpose", "histogram", "reduction", "sgemm"))
rig_module = sys.modules["compute_rig"]
PRESET = {p.key: p for p in PRESETS}


def rig(adapter=None):
    return rig_module.ComputeRig(None if adapter is None else D3D12CreateDevice(PRESET[adapter], D3D_FEATURE_LEVEL_11_0))


def same_bits(got, want):
    return np.array_equal(np.asarray(got).view(np.uint32), np.asarray(want, np.float32).view(np.uint32))


def test_transposes_are_bit_exact_and_tiling_and_padding_pay():
    m = np.random.default_rng(1).standard_normal((256, 256)).astype(np.float32)   # 64 tiles: memory, not latency
    cycles = {}
    for label, kernel, symbols in transpose.VARIANTS:
        # each on a fresh device: no variant finds the matrix in the caches an earlier one left it in
        got, cycles[label] = transpose.transpose(rig(), kernel, symbols, m)
        assert same_bits(got, m if symbols.get("COPY") else m.T)
    copy, naive, conflicted, padded = (cycles[v[0]] for v in transpose.VARIANTS)
    assert copy <= padded < conflicted and padded < naive


@pytest.mark.parametrize("adapter", [None, "teaching"])
@pytest.mark.parametrize("dtype", [np.uint8, np.uint32])
def test_histograms_match_bincount(adapter, dtype):
    r = rig(adapter)
    values = np.random.default_rng(2).integers(0, 256 if dtype == np.uint8 else 1 << 32, 9001,
                                                dtype=np.uint64).astype(dtype)
    want = np.bincount(values & 255, minlength=256)
    for private in (False, True):
        got, cycles = histogram.histogram(r, values, private)
        assert np.array_equal(got, want) and cycles > 0


@pytest.mark.parametrize("adapter", [None, "teaching", "irisxe"])
@pytest.mark.parametrize("n", [1, 255, 257, 70000])
def test_reductions_match_numpy_in_the_tree_order(adapter, n):
    r = rig(adapter)
    x = np.random.default_rng(n).standard_normal(n).astype(np.float32)
    want = reduction.numpy_tree_sum(x)
    for cross_lane in (False, True):
        got, _, passes = reduction.gpu_sum(r, x, cross_lane)
        assert same_bits(np.float32(got), want), (adapter, n, cross_lane, got, want)
        assert passes == 1 + (n > 256) + (n > 65536)


def test_the_reduction_order_is_not_numpys_sum():
    # A case where order matters: the tree order, reproduced, differs from a left-to-right sum.
    x = np.array([1e8, 1, -1e8, 1] * 64, np.float32)
    left_to_right = np.float32(0)
    for v in x:
        left_to_right = np.float32(left_to_right + v)
    got, _, _ = reduction.gpu_sum(rig(), x, True)
    assert same_bits(np.float32(got), reduction.numpy_tree_sum(x))
    assert got != left_to_right


@pytest.mark.parametrize("n", [64, 128])
def test_the_sgemm_ladder_is_bit_exact_against_the_golden_fma(n):
    r = rig()
    rng = np.random.default_rng(n)
    a = rng.standard_normal((n, n)).astype(np.float32)
    b = rng.standard_normal((n, n)).astype(np.float32)
    want = sgemm.reference(a, b)
    for label, kernel, block in sgemm.LADDER:
        if label == "naive" and n > 64:
            continue          # the naive kernel's K loop from global memory is the slow one to emulate
        got, cycles = sgemm.sgemm(r, kernel, block, a, b)
        assert same_bits(got, want), label


def test_the_sgemm_reference_rounds_once_as_v_fma_f32_does():
    # a * b - 1 with the product kept exact (fma) is 2^-24 - 2^-47; rounding the product first gives 0.
    from dmlemu.isa.numerics import fused_multiply_add
    a, b, c = np.float32(1 + 2 ** -23), np.float32(1 - 2 ** -24), np.float32(-1)
    assert fused_multiply_add(np.float32([a]), np.float32([b]), np.float32([c]))[0] == np.float32(2 ** -24 - 2 ** -47)
    assert np.float32(a * b) + c == 0
    assert sgemm.reference(np.array([[a]]), np.array([[b]]))[0, 0] == np.float32(a * b)


def test_the_examples_refuse_sizes_their_tiles_do_not_divide():
    with pytest.raises(SystemExit, match="N is 100; it must be a positive multiple of 32"):
        transpose.main(["100"])
    with pytest.raises(SystemExit, match="N is 96; it must be a positive multiple of 64"):
        sgemm.main(["96"])


def test_pipelines_over_d3d12s_groupshared_limit_are_refused():
    from dmlemu.errors import E_INVALIDARG, HResultError
    from dmlemu.isa.shader_binary import assemble_shader
    from dmlemu.d3d12 import D3D12_COMPUTE_PIPELINE_STATE_DESC, D3D12_SHADER_BYTECODE
    r = rig()
    code = assemble_shader(".numthreads 64\n.lds 65536\n s_endpgm\n", filename="big.s").to_bytes()
    with pytest.raises(HResultError) as info:
        r.device.CreateComputePipelineState(D3D12_COMPUTE_PIPELINE_STATE_DESC(
            pRootSignature=r.root_signature, CS=D3D12_SHADER_BYTECODE(code, len(code))))
    assert info.value.hresult == E_INVALIDARG and "declares 65536 bytes of LDS" in info.value.message
