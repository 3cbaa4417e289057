"""A trace capture around work on the API mirror: what the emulated GPU did, as NumPy columns.

    python examples/capture_trace.py          (from the repository root)

`traces.capture(device)` records everything the device executes between its begin() and end();
the `with` block does both, and `cap.trace` is read after it. A capture that is never started
records nothing, so reading its trace (or calling end()) raises a RuntimeError with a sentence
saying so. Here one ELEMENT_WISE_CLIP runs on a convenience Session's device (the HelloDirectML
sequence on the mirror) inside the capture.
"""
import numpy as np

from dmlemu import golden, traces
from dmlemu.convenience import Session
from dmlemu.directml import *  # noqa: F401,F403


def main():
    sizes = [4, 64]
    x = np.linspace(-4.0, 4.0, num=256, dtype=np.float32).reshape(sizes)
    tensor = DML_TENSOR_DESC(Type=DML_TENSOR_TYPE_BUFFER, Desc=DML_BUFFER_TENSOR_DESC(
        DataType=DML_TENSOR_DATA_TYPE_FLOAT32, Flags=DML_TENSOR_FLAG_NONE, Sizes=sizes, Strides=None,
        TotalTensorSizeInBytes=DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT32, len(sizes), sizes, None)))
    desc = DML_ELEMENT_WISE_CLIP_OPERATOR_DESC(InputTensor=tensor, OutputTensor=tensor, ScaleBias=None,
                                               Min=-1.0, Max=2.0)

    session = Session(adapter="teaching")
    with traces.capture(session.device, detail="wave") as cap:   # records from here ...
        [y] = session.run(desc, [x])
    trace = cap.trace                                            # ... to here: read it after the block

    print(trace.format_summary())
    expected = golden.clip(x, -1.0, 2.0)
    if not np.array_equal(y.view(np.uint32), expected.view(np.uint32)):
        raise SystemExit(f"CLIP output differs from dmlemu.golden:\n got      {y}\n expected {expected}")
    print("bit-exact against dmlemu.golden.")


if __name__ == "__main__":
    main()
