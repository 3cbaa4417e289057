"""Measure, on a real NVIDIA GPU, instruction-rate ratios (FP32 FMA, FP64 FMA, FP32 exp2 on the SFU) with
Triton kernels, tiny-kernel cost with the CPU launch overhead removed (a CUDA graph of 64 dependent
kernels), and a repeated L2-resident copy with launch overhead amortised (CUDA graph of 32 copies).
Not part of the test suite: needs PyTorch, Triton and a CUDA GPU. Writes JSON to the path given.
"""
import json
import statistics
import sys


def timed(torch, fn, reps=15, warm=3):
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b) * 1e3)
    return statistics.median(times)


def main(out_path):
    import torch
    result = {"device": torch.cuda.get_device_name()}
    dev = torch.device("cuda")

    def graph_of(fn, count):
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            fn()
        torch.cuda.current_stream().wait_stream(s)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            for _ in range(count):
                fn()
        return g

    tiny = torch.zeros(64, device=dev)
    g = graph_of(lambda: tiny.add_(1.0), 64)
    result["tiny_kernel_us_each_graph"] = timed(torch, g.replay) / 64
    small = torch.randn(2048, 2048, device=dev)
    out = torch.empty_like(small)
    g2 = graph_of(lambda: out.copy_(small), 32)
    per = timed(torch, g2.replay) / 32
    result["repeated_16MiB_copy_us_graph"] = per
    result["repeated_16MiB_GBps_graph"] = 2 * small.numel() * 4 / per / 1e3
    try:
        import triton
        import triton.language as tl
    except Exception as error:  # noqa: BLE001 - report what is missing
        result["triton"] = repr(error)
        json.dump(result, open(out_path, "w"), indent=1)
        return
    result["triton"] = triton.__version__

    @triton.jit
    def fma_chain(x_ptr, y_ptr, n, ITERS: tl.constexpr, BLOCK: tl.constexpr):
        i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + i, mask=i < n)
        a = x
        b = x * 0.5
        c = x * 0.25
        d = x * 0.125
        for _ in range(ITERS):     # four independent chains: latency hidden, throughput measured
            a = a * 0.999 + 0.001
            b = b * 0.999 + 0.001
            c = c * 0.999 + 0.001
            d = d * 0.999 + 0.001
        tl.store(y_ptr + i, a + b + c + d, mask=i < n)

    @triton.jit
    def exp2_chain(x_ptr, y_ptr, n, ITERS: tl.constexpr, BLOCK: tl.constexpr):
        i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + i, mask=i < n)
        a = x
        b = x * 0.5
        c = x * 0.25
        d = x * 0.125
        for _ in range(ITERS):
            a = tl.math.exp2(a) * -0.5
            b = tl.math.exp2(b) * -0.5
            c = tl.math.exp2(c) * -0.5
            d = tl.math.exp2(d) * -0.5
        tl.store(y_ptr + i, a + b + c + d, mask=i < n)

    n = 132 * 2048 * 8
    iters = 512
    rates = {}
    for name, kernel, dtype in (("fma_f32", fma_chain, torch.float32), ("fma_f64", fma_chain, torch.float64),
                                ("exp2_f32_plus_mul", exp2_chain, torch.float32)):
        x = torch.rand(n, device=dev, dtype=dtype)
        y = torch.empty_like(x)
        grid = (n // 256,)
        t = timed(torch, lambda: kernel[grid](x, y, n, ITERS=iters, BLOCK=256), reps=7, warm=2)
        ops = n * iters * 4
        rates[name] = {"us": t, "G_ops_per_s": ops / t / 1e3}
    rates["fp64_over_fp32_time"] = rates["fma_f64"]["us"] / rates["fma_f32"]["us"]
    rates["exp2_mul_over_fma_f32_time"] = rates["exp2_f32_plus_mul"]["us"] / rates["fma_f32"]["us"]
    result["rates"] = rates
    json.dump(result, open(out_path, "w"), indent=1)


if __name__ == "__main__":
    main(sys.argv[1])
