"""ELEMENT_WISE_THRESHOLD in one call, with the convenience layer, and a trace of the run.

    python examples/threshold.py          (from the repository root)

`dmlemu.convenience.run_operator` does the whole DirectML flow (devices, upload, binding,
RecordDispatch, execute, fence, readback) on the API mirror for you: give it an operator desc
and NumPy arrays, get NumPy arrays back. THRESHOLD computes y = max(x, Min) with IEEE maxNum
rules: a NaN input gives Min, and -0 counts as smaller than +0.
"""
import numpy as np

from dmlemu import golden
from dmlemu.convenience import run_operator
from dmlemu.directml import *  # noqa: F401,F403


def main():
    sizes = [2, 5]
    x = np.array([[-3.5, -1.0, -0.0, 0.0, 0.25],
                  [1.0, 2.5, np.nan, np.inf, -np.inf]], dtype=np.float32)
    tensor = DML_TENSOR_DESC(Type=DML_TENSOR_TYPE_BUFFER, Desc=DML_BUFFER_TENSOR_DESC(
        DataType=DML_TENSOR_DATA_TYPE_FLOAT32, Flags=DML_TENSOR_FLAG_NONE, Sizes=sizes, Strides=None,
        TotalTensorSizeInBytes=DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT32, len(sizes), sizes, None)))
    desc = DML_ELEMENT_WISE_THRESHOLD_OPERATOR_DESC(InputTensor=tensor, OutputTensor=tensor, ScaleBias=None, Min=0.0)

    # One call; trace="wave" also captures what the emulated GPU did (returned beside the outputs).
    [y], trace = run_operator(desc, [x], trace="wave")

    print("x:", x.ravel())
    print("y:", y.ravel())
    print(trace.format_summary())
    expected = golden.threshold(x, 0.0)
    if not np.array_equal(y.view(np.uint32), expected.view(np.uint32)):
        raise SystemExit(f"THRESHOLD output differs from dmlemu.golden:\n got      {y}\n expected {expected}")
    print("bit-exact against dmlemu.golden.")


if __name__ == "__main__":
    main()
