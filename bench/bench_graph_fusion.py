"""Benchmark: a fused element-wise chain against the same graph unfused, on the timing model.

The DirectMLX-style chain x * 2 + 1 -> Relu -> Clip(0, 6) -> Threshold(0.5) of FLOAT32 tensors, compiled
by IDMLDevice1.CompileGraph with fusion (one kernel, the intermediates in registers) and without (four
dispatches with UAV barriers between them), run through the mirror on the default adapter with the
timing model on. Prints, per size, each run's dispatches, GPU time (first dispatch start to last end, in
cycles and microseconds), DRAM bytes, bytes read and written by the kernels, and fused / unfused; the
outputs must be equal bit for bit.

    .venv/bin/python bench/bench_graph_fusion.py [--log2 18 20 22] [--adapter KEY] [--case chain|diamond]

`--case diamond` measures examples/directmlx_graph.py's diamond with h = x + b also a graph output
(h -> Relu, h -> Sigmoid, Relu * Sigmoid -> y): one fused dispatch of four memory tensors (x, b, h, y).
"""
import argparse

import numpy as np

from dmlemu.tools.graph_view import execute_graph

CHAIN = {
    "dtype": "FLOAT32", "inputs": ["x"],
    "nodes": [{"name": "scale", "op": "IDENTITY", "inputs": ["x"], "scale": 2.0, "bias": 1.0},
              {"name": "relu", "op": "relu", "inputs": ["scale"]},
              {"name": "clip", "op": "CLIP", "inputs": ["relu"], "attrs": {"Min": 0.0, "Max": 6.0}},
              {"name": "threshold", "op": "THRESHOLD", "inputs": ["clip"], "attrs": {"Min": 0.5}}],
    "outputs": ["threshold"],
}
DIAMOND = {
    "dtype": "FLOAT32", "inputs": ["x", "b"],
    "nodes": [{"name": "h", "op": "ADD", "inputs": ["x", "b"]},
              {"name": "relu", "op": "relu", "inputs": ["h"]},
              {"name": "sigmoid", "op": "sigmoid", "inputs": ["h"]},
              {"name": "gate", "op": "MULTIPLY", "inputs": ["relu", "sigmoid"]}],
    "outputs": ["h", "gate"],
}
CASES = {"chain": CHAIN, "diamond": DIAMOND}


def measure(log2n, adapter, case="chain"):
    spec = dict(CASES[case], sizes=[1 << log2n])
    rows, outputs = {}, {}
    for fuse in (True, False):
        graph, outs, trace = execute_graph(spec, adapter=adapter, fuse=fuse, trace="dispatch")
        d = trace.dispatches
        cycles = int(d["end"].max() - d["start"].min())
        rows[fuse] = dict(dispatches=len(d), cycles=cycles, us=trace.seconds(cycles) * 1e6,
                          dram=int(d["dram_bytes"].sum()), read=int(d["bytes_read"].sum()),
                          written=int(d["bytes_written"].sum()))
        outputs[fuse] = outs
    assert all(np.array_equal(f, u) for f, u in zip(outputs[True], outputs[False])), "fused and unfused differ"
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--log2", nargs="+", type=int, default=[18, 20, 22])
    parser.add_argument("--adapter", default=None)
    parser.add_argument("--case", choices=sorted(CASES), default="chain")
    args = parser.parse_args(argv)
    print(f"{'elements':>10} {'run':>8} {'disp':>4} {'cycles':>10} {'us':>9} {'DRAM bytes':>12} {'read':>11} "
          f"{'written':>11}")
    for log2n in args.log2:
        rows = measure(log2n, args.adapter, args.case)
        for fuse in (False, True):
            r = rows[fuse]
            print(f"{1 << log2n:>10} {'fused' if fuse else 'unfused':>8} {r['dispatches']:>4} {r['cycles']:>10} "
                  f"{r['us']:>9.1f} {r['dram']:>12} {r['read']:>11} {r['written']:>11}")
        print(f"{'':>10} {'ratio':>8} {'':>4} {rows[True]['cycles'] / rows[False]['cycles']:>10.3f} {'':>9} "
              f"{rows[True]['dram'] / max(1, rows[False]['dram']):>12.3f}")


if __name__ == "__main__":
    main()
