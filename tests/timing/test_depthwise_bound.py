"""Issue 26's must-hold for the depthwise convolution: memory-bound in the trace's verdict (traces/verdict.py).

A 3 x 3 depthwise layer (FLOAT32, 56 x 56, padding 1, GroupCount = C) on the column kernel
(kernels/conv_depthwise_row.s) large enough that the launch is a small part: on the RX 7900 XTX, 4 x 128 x 56 x 56
(12.8 MB read) is bound by DRAM bandwidth, bit for bit the golden model's; on the H200 (benchmark: 8 x 384 x 56 x 56, 38.5 MB in and out, more than
its 60 MB L2 holds, about 15 s of CPU) too. The LDS tile kernel (conv_depthwise.s) was VALU-issue-bound on both
(bench/bench_depthwise.py --tile)."""
import numpy as np
import pytest

from dmlemu import golden
from dmlemu.direct_run import DirectRun
from dmlemu.gpu import Gpu
from dmlemu.kernels.driver import TensorSpec
from dmlemu.presets import H200, RX_7900_XTX
from dmlemu.traces import capture
from dmlemu.traces.verdict import bound_of


def check_dram_bound(preset, batch, channels):
    """Run the layer with the timing model on; assert the kernel, the bits and the verdict; return its stats."""
    rng = np.random.default_rng(batch + channels)
    x = rng.standard_normal((batch, channels, 56, 56)).astype(np.float32)
    w = rng.standard_normal((channels, 1, 3, 3)).astype(np.float32)
    attributes = {"Mode": 1, "Direction": 0, "Strides": (1, 1), "Dilations": (1, 1), "StartPadding": (1, 1),
                  "EndPadding": (1, 1), "OutputPadding": (0, 0), "GroupCount": channels}
    spec = lambda a: TensorSpec("FLOAT32", a.shape, None, a.nbytes)
    raw = lambda a: a.view(np.uint8).reshape(-1)
    gpu = Gpu(preset, timing=True)
    run = DirectRun(gpu, "CONVOLUTION", [spec(x), spec(w), None, spec(x)],
                    [raw(x), raw(w), np.zeros(4, np.uint8), np.zeros(x.nbytes, np.uint8)], attributes=attributes)
    with capture(gpu) as cap:
        stats = run.dispatch()
    got = run.output_bytes(3)[:x.nbytes].view(np.uint32)
    name = run.kernel.program.name
    run.free()
    want = golden.run("CONVOLUTION", [x, w, None], attributes).view(np.uint32).reshape(-1)
    verdict = cap.trace.format_verdicts()
    assert name == "convolution_depthwise_row_float32_no_bias" and np.array_equal(got, want)
    assert bound_of(cap.trace.dispatches[0], preset) == "memory" and ": DRAM bandwidth, " in verdict, verdict
    return stats


def test_a_depthwise_layer_is_dram_bound_on_the_rx_7900_xtx():
    stats = check_dram_bound(RX_7900_XTX, 4, 128)
    # the input's 12.8 MB at least once, at over half the DRAM's peak over the dispatch
    assert stats.timing.dram_bytes >= 4 * 128 * 56 * 56 * 4
    assert stats.timing.dram_bytes / (stats.cycles / RX_7900_XTX.clock_hz) > 0.5 * RX_7900_XTX.dram_bytes_per_second


@pytest.mark.benchmark   # about 15 s of CPU; `make bench` runs it
def test_a_large_depthwise_layer_is_dram_bound_on_the_h200():
    check_dram_bound(H200, 8, 384)
