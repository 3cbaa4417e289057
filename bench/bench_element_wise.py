"""Benchmark: the element-wise kernels per operator class against the golden NumPy model.

For each operator class (simple arithmetic, comparison, transcendental, activation, cast) a few
operators at 2^24 FLOAT32 elements by default: the functional model's time for one dispatch (timing
model off, wave64, the kernel compiled once beforehand, as bench_clip.py does), the golden model's
time (dmlemu.golden.run) measured in the same process, and their ratio. Targets: at
most 3x for arithmetic and comparison, at most 6x for transcendentals (activations and casts have
none; they are printed for the record). Every output is checked bit for bit against the golden
model. An operator without a kernel yet (kernels.driver.has_kernel) is listed as skipped. The last two
columns time the least NumPy that gives the same result (PLAIN_NUMPY: one ufunc, NaNs made canonical)
and the kernel against it, so that a ratio that meets its target only because the golden model is slow
shows as such.

    .venv/bin/python bench/bench_element_wise.py [--log2 24] [--repeat 3] [--only ADD EXP] [--profile ADD]

--profile OP runs cProfile over one dispatch of OP and prints the 25 most expensive functions by
their own time (where the time goes when a class misses its target).
"""
import argparse
import cProfile
import io
import pstats
import time

import numpy as np

from dmlemu import golden
from dmlemu.direct_run import DirectRun
from dmlemu.gpu import Gpu
from dmlemu.kernels.driver import TensorSpec, has_kernel
from dmlemu.presets import DEFAULT_PRESET

# (class, operator name without DML_OPERATOR_, input data type, output data type, attributes, target ratio)
CASES = [
    ("arithmetic", "ELEMENT_WISE_ADD", "FLOAT32", "FLOAT32", {}, 3.0),
    ("arithmetic", "ELEMENT_WISE_MULTIPLY", "FLOAT32", "FLOAT32", {}, 3.0),
    ("arithmetic", "ELEMENT_WISE_DIVIDE", "FLOAT32", "FLOAT32", {}, 3.0),
    ("comparison", "ELEMENT_WISE_LOGICAL_GREATER_THAN", "FLOAT32", "UINT8", {}, 3.0),
    ("comparison", "ELEMENT_WISE_LOGICAL_EQUALS", "FLOAT32", "UINT8", {}, 3.0),
    ("transcendental", "ELEMENT_WISE_EXP", "FLOAT32", "FLOAT32", {}, 6.0),
    ("transcendental", "ELEMENT_WISE_SIN", "FLOAT32", "FLOAT32", {}, 6.0),
    ("transcendental", "ELEMENT_WISE_LOG", "FLOAT32", "FLOAT32", {}, 6.0),
    ("activation", "ACTIVATION_RELU", "FLOAT32", "FLOAT32", {}, None),
    ("activation", "ACTIVATION_LEAKY_RELU", "FLOAT32", "FLOAT32", {"Alpha": np.float32(0.01)}, None),
    ("activation", "ACTIVATION_SIGMOID", "FLOAT32", "FLOAT32", {}, None),
    ("cast", "CAST", "FLOAT32", "FLOAT16", {}, None),
]


# The least NumPy that gives each result (one ufunc and the NaN canonicalisation the numeric rules ask for),
# printed as a floor: how much of a ratio is the golden model's own overhead rather than the kernel's.
def _canonical(y):
    nan = np.isnan(y)
    return np.where(nan, np.float32(np.nan), y) if nan.any() else y


PLAIN_NUMPY = {
    "ELEMENT_WISE_ADD": lambda a, b: _canonical(np.add(a, b)),
    "ELEMENT_WISE_MULTIPLY": lambda a, b: _canonical(np.multiply(a, b)),
    "ELEMENT_WISE_DIVIDE": lambda a, b: _canonical(np.divide(a, b)),
    "ELEMENT_WISE_LOGICAL_GREATER_THAN": lambda a, b: np.greater(a, b).view(np.uint8),
    "ELEMENT_WISE_LOGICAL_EQUALS": lambda a, b: np.equal(a, b).view(np.uint8),
    "ACTIVATION_RELU": lambda x: np.maximum(x, np.float32(0)),
    "CAST": lambda x: x.astype(np.float16),
}


def best_of(fns, repeat):
    """The best time of each function, measured in turns (kernel, golden, NumPy, kernel, ...) so that a
    change in the machine's load during the run reaches all of them alike (the host is shared)."""
    best = [float("inf")] * len(fns)
    for _ in range(repeat):
        for i, fn in enumerate(fns):
            start = time.perf_counter()
            fn()
            best[i] = min(best[i], time.perf_counter() - start)
    return best


def _inputs(name, count, n, data_type):
    """Seeded FLOAT32 inputs: normal values times 4 (arithmetic away from the special cases), B of a
    comparison half equal to A so that both outcomes occur."""
    rng = np.random.default_rng(n)
    arrays = [(rng.standard_normal(n) * 4).astype(golden.DATA_TYPES[data_type]) for _ in range(count)]
    if count == 2 and "EQUALS" in name:
        arrays[1][::2] = arrays[0][::2]
    return arrays


def prepare(name, data_type, output_type, attributes, n, width):
    """A DirectRun of the operator on n packed elements and its inputs (the kernel compiled once)."""
    from dmlemu.directml.operators import SCHEMAS_BY_NAME
    schema = SCHEMAS_BY_NAME[name]
    inputs = _inputs(name, len(schema.inputs), n, data_type)
    specs = [TensorSpec(data_type, (n,), None, a.nbytes) for a in inputs]
    out_bytes = n * golden.DATA_TYPES[output_type].itemsize
    specs.append(TensorSpec(output_type, (n,), None, out_bytes))
    gpu = Gpu(DEFAULT_PRESET, wave_width=width, timing=False)
    buffers = [a.view(np.uint8) for a in inputs] + [np.zeros(out_bytes, np.uint8)]
    return DirectRun(gpu, name, specs, buffers, attributes=attributes), inputs


def measure(case, log2n, width, repeat):
    kind, name, data_type, output_type, attributes, target = case
    n = 1 << log2n
    run, inputs = prepare(name, data_type, output_type, attributes, n, width)
    gold = lambda: golden.run(name, inputs, attributes, None, False, output_type=output_type)
    plain = PLAIN_NUMPY.get(name)
    with np.errstate(all="ignore"):
        times = best_of([run.dispatch, gold] + ([lambda: plain(*inputs)] if plain else []), repeat)
    kernel_s, golden_s, numpy_s = times + [None] * (3 - len(times))
    expected = np.asarray(gold()).astype(golden.DATA_TYPES[output_type])
    exact = np.array_equal(run.output_bytes()[:expected.nbytes], expected.view(np.uint8))
    run.free()
    return kernel_s, golden_s, numpy_s, exact


def profile(name, log2n, width, top=25):
    case = next(c for c in CASES if c[1].endswith(name.upper()))
    _, name, data_type, output_type, attributes, _ = case
    run, _ = prepare(name, data_type, output_type, attributes, 1 << log2n, width)
    run.dispatch()   # warm: the first dispatch builds what later ones reuse
    profiler = cProfile.Profile()
    profiler.enable()
    run.dispatch()
    profiler.disable()
    text = io.StringIO()
    pstats.Stats(profiler, stream=text).sort_stats("tottime").print_stats(top)
    print(f"cProfile of one {name} {data_type} dispatch of 2^{log2n} elements (wave{width}), by own time:")
    print(text.getvalue())


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--log2", type=int, default=24, help="log2 of the element count (default 24)")
    parser.add_argument("--width", type=int, default=64)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", nargs="+", metavar="OP", help="operators to run (suffixes, e.g. ADD RELU CAST)")
    parser.add_argument("--profile", metavar="OP", help="cProfile one dispatch of OP instead")
    args = parser.parse_args(argv)
    if args.profile:
        profile(args.profile, args.log2, args.width)
        return []
    print(f"element-wise kernels vs golden, 2^{args.log2} elements, wave{args.width}, timing model off, "
          f"best of {args.repeat}")
    print(f"{'class':<15} {'operator':<34} {'types':<17} {'kernel ms':>9} {'golden ms':>9} {'ratio':>7} "
          f"{'target':>7} {'result':<7} {'numpy ms':>8} {'k/numpy':>8}")
    rows = []
    for case in CASES:
        kind, name, data_type, output_type, _, target = case
        if args.only and not any(name.endswith(o.upper()) for o in args.only):
            continue
        types = data_type if output_type == data_type else f"{data_type}->{output_type}"
        if not has_kernel(name):
            print(f"{kind:<15} {name:<34} {types:<17} {'skipped: no kernel yet':>35}")
            continue
        kernel_s, golden_s, numpy_s, exact = measure(case, args.log2, args.width, args.repeat)
        ratio = kernel_s / golden_s
        verdict = "-" if target is None else ("meets" if ratio <= target else "MISSES")
        rows.append((kind, name, kernel_s, golden_s, ratio, target, exact))
        plain = f"{numpy_s * 1e3:>8.1f} {kernel_s / numpy_s:>7.2f}x" if numpy_s else f"{'-':>8} {'-':>8}"
        print(f"{kind:<15} {name:<34} {types:<17} {kernel_s * 1e3:>9.1f} {golden_s * 1e3:>9.1f} {ratio:>6.2f}x "
              f"{(f'{target:g}x' if target else '-'):>7} {verdict:<7} {plain}"
              f"{'' if exact else '  OUTPUT DIFFERS FROM GOLDEN'}")
    return rows


if __name__ == "__main__":
    main()
