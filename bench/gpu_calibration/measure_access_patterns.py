"""Measure, on a real NVIDIA GPU, the access-pattern ratios that docs/FIDELITY.md validates the timing
model against: packed, transposed, broadcast-row and stride-2 copies, FLOAT16 / FLOAT64 copies, a
repeated copy that fits the L2, and back-to-back tiny kernels. Not part of the test suite: it needs
PyTorch and a CUDA GPU, and writes JSON to the path given (default: stdout).

Each figure is the median of CUDA-event timings after warm-up. Run: python measure_access_patterns.py out.json
[SIDE] (SIDE 2048: the patterns on 16 MiB tensors only).
"""
import functools
import json
import sys

import measure_rates    # beside this script: python puts the script's folder on sys.path


def main(out_path=None, n=8192, tail=True):
    import torch
    dev = torch.device("cuda")
    props = torch.cuda.get_device_properties(dev)
    result = {"device": props.name, "sm_count": props.multi_processor_count,
              "l2_bytes": getattr(props, "L2_cache_size", None), "torch": torch.__version__}

    timed = functools.partial(measure_rates.timed, torch, reps=20)   # CUDA-event median, microseconds

    flush = torch.empty(512 << 20, dtype=torch.uint8, device=dev)

    def cold(fn):
        def run():
            flush.zero_()          # evict the L2 between repetitions (not timed separately: subtract below)
            fn()
        return run

    # n = 8192: 8192^2 FLOAT32 = 256 MiB per tensor, far above any L2; n = 2048 (16 MiB) is the size
    # docs/FIDELITY.md uses, where fixed per-kernel costs weigh more.
    x = torch.randn(n, n, device=dev)
    y = torch.empty_like(x)
    t_flush = timed(lambda: flush.zero_())
    packed = timed(cold(lambda: y.copy_(x))) - t_flush
    transposed = timed(cold(lambda: y.copy_(x.t()))) - t_flush
    row = torch.randn(1, n, device=dev)
    broadcast = timed(cold(lambda: y.copy_(row.expand(n, n)))) - t_flush
    wide = torch.randn(n, 2 * n, device=dev)
    stride2 = timed(cold(lambda: y.copy_(wide[:, ::2]))) - t_flush
    x16, y16 = x.half(), torch.empty(n, n, dtype=torch.float16, device=dev)
    fp16 = timed(cold(lambda: y16.copy_(x16))) - t_flush
    x64, y64 = x.double(), torch.empty(n, n, dtype=torch.float64, device=dev)
    fp64 = timed(cold(lambda: y64.copy_(x64))) - t_flush
    result["side"] = n
    result["copy_f32_us"] = packed
    result["bytes_moved_packed"] = 2 * x.numel() * 4
    result["packed_GBps"] = result["bytes_moved_packed"] / packed / 1e3
    result["ratios_to_packed"] = {"transposed": transposed / packed, "broadcast_row": broadcast / packed,
                                  "stride2": stride2 / packed, "float16": fp16 / packed, "float64": fp64 / packed}
    if not tail:
        json.dump(result, open(out_path, "w") if out_path else sys.stdout, indent=1)
        return
    # the same 16 MiB copied again and again: hits the L2 when it fits (bytes counted as read + write)
    small = torch.randn(2048, 2048, device=dev)
    small_out = torch.empty_like(small)
    rep = timed(lambda: small_out.copy_(small), reps=50)
    result["repeated_16MiB_copy_us"] = rep
    result["repeated_16MiB_GBps"] = 2 * small.numel() * 4 / rep / 1e3
    # packed copy bandwidth curve
    curve = {}
    for log2 in (16, 18, 20, 22, 24, 26, 28):
        a = torch.empty(1 << log2, dtype=torch.float32, device=dev)
        b = torch.empty_like(a)
        t = timed(cold(lambda: b.copy_(a))) - t_flush
        curve[log2] = {"us": t, "GBps": 2 * a.numel() * 4 / t / 1e3}
    result["packed_curve"] = curve
    # 64 tiny kernels back to back in one stream (each depends on the previous: a stream orders them)
    tiny = torch.zeros(64, device=dev)
    def chain():
        for _ in range(64):
            tiny.add_(1.0)
    result["tiny_kernel_us_each_stream_order"] = timed(chain) / 64
    json.dump(result, open(out_path, "w") if out_path else sys.stdout, indent=1)


if __name__ == "__main__":
    # measure_access_patterns.py [OUT.json [SIDE]]: SIDE other than 8192 measures the patterns only
    side = int(sys.argv[2]) if len(sys.argv) > 2 else 8192
    main(sys.argv[1] if len(sys.argv) > 1 else None, side, side == 8192)
