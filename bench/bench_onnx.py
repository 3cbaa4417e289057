"""Benchmark: whole ONNX models through dmlemu.onnx (one compiled DML graph), timing on, on an adapter preset.

For each model of dmlemu.onnx.models (built with onnx.helper, seeded weights) and each model-zoo graph the onnx
wheel ships under onnx/backend/test/data/light/ (their weights re-seeded at load: the wheel stores them as
constants), it prints:
  * the wall time on this machine of dmlemu.onnx.execute with the timing model on (convert, CompileGraph,
    upload, the dispatches, readback), and ONNX Runtime's CPU provider's wall time on the same inputs
    (median of 5 runs after one warm-up), and their ratio;
  * the modelled time on the preset (the sum of the dispatches' own cycles), the dispatch count, the top
    three layers with their share and bound;
  * the largest difference to ONNX Runtime relative to the largest output magnitude (target:
    <= 1e-3, with the same top-1 class), and whether every output is bit for bit what the DML nodes give
    one by one through dmlemu.golden (--no-golden skips that check);
  * or, for a model that does not convert yet, the ConversionError sentence (at once, before any GPU work).

    .venv/bin/python bench/bench_onnx.py [--adapter rx7900xtx] [--models mlp gemm_mlp ...] [--light [NAME ...]]
                                         [--no-golden]

Measured 2026-11-27 (2-core VM shared with other jobs, load average 2.5 to 10, RX 7900 XTX preset, one run each,
with the golden check, every output bit-exact against it; wall times move by tens of percent with the load,
modelled times do not). wall: dmlemu with timing on; ORT: ONNX Runtime CPU; error: max |difference| / max |y|
against ONNX Runtime, 'same' where the bench compared the top-1 class:

  model            wall       ORT    modelled disp.  error         top layer
  mlp             1.0 s  0.018 ms    120.2 us     5  5.8e-07 same  fc0 72 % (launch)
  gemm_mlp        0.8 s  0.012 ms     50.1 us     3  1.4e-07 same  gemm1 49 % (launch)
  mnist_cnn       0.5 s  0.040 ms     47.4 us     7  6.7e-08 same  conv2+bn2+relu2 48 % (launch)
  bert_block      0.7 s  0.061 ms    115.9 us    17  2.9e-07       ffn.down 22 % (launch)
  gpt_block       0.7 s  0.050 ms    113.3 us    17  2.3e-07       mlp.down 22 % (launch)
  shufflenet     16.1 s   2.72 ms   1231.3 us    91  1.6e-08 same  n201 12 % (launch)
  squeezenet     22.6 s   2.61 ms   2102.0 us    39  1.4e-06       n62+n63 12 % (launch)
  bvlc_alexnet  158.9 s   52.2 ms   7620.0 us    14  7.3e-06 same  n16+n17 39 % (launch)
  inception_v1  176.1 s   62.9 ms  22369.8 us    84  2.7e-07 same  n6+n7 3 % (latency)
  inception_v2  171.4 s   13.5 ms  27319.2 us   155  2.0e-06 same  n424+n425 4 % (launch)
  densenet121   300.5 s  100.5 ms  22820.4 us   305  1.1e-06       n21 2 % (launch)
  resnet50      255.6 s   64.8 ms  17294.3 us    73  6.3e-06 same  n148+n149 6 % (latency)
  zfnet512      201.7 s   35.5 ms  11299.1 us    14  5.4e-06 same  n16+n17 53 % (launch)

(`--light` runs them in the wheel's order, alphabetical. squeezenet is the wheel's light_squeezenet, the model
zoo's SqueezeNet; its and densenet121's 1000 classes come in a [1, 1000, 1, 1] output, so the bench prints no top-1
for them; the test checks it.) Targets: MNIST CNN, BERT block, GPT block <= 30 s each: met (0.5 to
0.7 s); SqueezeNet <= 2 min: met (22.6 s); ResNet-50 <= 10 min: met (255.6 s). Every layer of the small models is
launch-bound on the preset (a few microseconds of work per dispatch). AlexNet's modelled time is mostly its three
fully-connected Gemms (n16+n17 fc6 9216 x 4096, n19+n20 fc7 4096 x 4096, n22 fc8 4096 x 1000: 73 %); where the
minutes of wall time of the zoo models go (executor against golden check) was not profiled.
vgg19 is not in the table (`--models --light vgg19` runs it alone): a whole run, timing on, no golden check, takes
632 s of CPU (58 min wall at ~15 % of a core on the loaded machine), 25 dispatches, peak resident set 3.81 GiB
(`/usr/bin/time -v`; docs/RELIABILITY.md, "Memory of large models", which also says where the memory goes).
"""
import argparse
import resource
import statistics
import sys
import time


def _ort_seconds(model, feeds):
    import onnxruntime
    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    session.run(None, feeds)
    times = []
    for _ in range(5):
        start = time.perf_counter()
        session.run(None, feeds)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def bench(name, model, adapter, golden):
    from dmlemu.onnx import ConversionError, execute, models
    from dmlemu.onnx.report import compare_onnxruntime, layers
    feeds = models.inputs(model, seed=0)
    start = time.perf_counter()
    try:
        result = execute(model, feeds, adapter=adapter, timing=True, check_golden=golden)
    except ConversionError as error:
        print(f"{name:<14} refused after {time.perf_counter() - start:.2f} s: {error}")
        return
    wall = time.perf_counter() - start
    ort = _ort_seconds(model, feeds)
    differences = compare_onnxruntime(model, feeds, result.outputs)
    worst = max(relative for _, relative, _ in differences.values())
    top1 = [t for _, _, t in differences.values() if t is not None]
    table = layers(result)
    clock = result.preset.clock_hz
    total = sum(layer.cycles for layer in table)
    top = sorted(table, key=lambda layer: -layer.cycles)[:3]
    exact = "not checked" if result.differing is None else ("yes" if not result.differing else
                                                            f"NO ({', '.join(result.differing)})")
    print(f"{name:<14} wall {wall:7.2f} s (timing on), ONNX Runtime CPU {ort * 1e3:8.3f} ms, ratio {wall / ort:9.0f}; "
          f"modelled {total / clock * 1e6:9.2f} us in {len(result.dispatches)} dispatches on {result.preset.key}")
    print(f"{'':<14} vs ONNX Runtime: max |difference| / max |value| {worst:.2e}"
          f"{'' if not top1 else ', top-1 ' + ('the same' if all(top1) else 'DIFFERS')}; bit-exact vs golden: {exact}")
    print(f"{'':<14} top layers: " + "; ".join(f"{'+'.join(layer.onnx_nodes)} {layer.cycles / total:.0%} "
                                                f"({layer.bound or '-'})" for layer in top))
    untimed = [d for d, timed in zip(result.dispatches, result.trace.tables["dispatches"]["timed"]) if not timed]
    print(f"{'':<14} peak RSS so far {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2 ** 20:.2f} GiB; "
          f"{len(untimed)} dispatches with an estimated time (timing record past DMLEMU_TIMING_RECORD_BYTES)"
          + (f": {', '.join('+'.join(d.onnx_nodes) for d in untimed)}" if untimed else ""))


def main(argv=None):
    from dmlemu.onnx import models
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--adapter", default=None, help="adapter preset key (default: the default adapter)")
    parser.add_argument("--models", nargs="*", default=list(models.MODELS), help="dmlemu.onnx.models names")
    parser.add_argument("--light", nargs="*", default=None, metavar="NAME",
                        help="also the onnx wheel's light model-zoo graphs (all, or those named: squeezenet ...)")
    parser.add_argument("--no-golden", action="store_true", help="skip the bit-exact check against dmlemu.golden")
    args = parser.parse_args(argv)
    for name in args.models:
        bench(name, models.MODELS[name][0](), args.adapter, not args.no_golden)
    if args.light is not None:
        for name, path in models.light_models().items():
            if not args.light or name in args.light:
                bench(name, models.reseeded(path), args.adapter, not args.no_golden)
    return 0


if __name__ == "__main__":
    sys.exit(main())
