"""Inspecting the mirror's state: what a CLIP program leaves behind that the C API does not return.

    python examples/inspect_state.py          (from the repository root)

A D3D12 or DirectML program sees its objects only through their methods; PIX and the debug layer
show more. `dmlemu.directml.inspect(obj)` (and `dmlemu.d3d12.inspect` for D3D12 objects alone)
returns a read-only view of any mirror object: here, what CreateOperator validated, the kernel
CompileOperator chose, the bytes of the output buffer, the fence's value and the GPU's clock.
"""
import numpy as np

from dmlemu import golden
from dmlemu.convenience import Session
from dmlemu.directml import *  # noqa: F401,F403
from dmlemu.directml import inspect


def main():
    sizes = [2, 4]
    x = np.linspace(-2.0, 2.0, 8, dtype=np.float32).reshape(sizes)
    tensor = DML_TENSOR_DESC(Type=DML_TENSOR_TYPE_BUFFER, Desc=DML_BUFFER_TENSOR_DESC(
        DataType=DML_TENSOR_DATA_TYPE_FLOAT32, Flags=DML_TENSOR_FLAG_NONE, Sizes=sizes, Strides=None,
        TotalTensorSizeInBytes=DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT32, len(sizes), sizes, None)))
    desc = DML_ELEMENT_WISE_CLIP_OPERATOR_DESC(InputTensor=tensor, OutputTensor=tensor, ScaleBias=None,
                                               Min=-1.0, Max=1.0)

    session = Session()
    [y] = session.run(desc, [x])

    # An operator and its compiled form, looked at from inside.
    op = session.dml.CreateOperator(DML_OPERATOR_DESC(Type=DML_OPERATOR_ELEMENT_WISE_CLIP, Desc=desc))
    info = inspect(op).info
    print("validated:", info.schema.c_name, "input sizes", info.inputs[0].sizes, "attributes", {k: float(v) for k, v in info.attributes.items()})
    compiled = inspect(session.dml.CompileOperator(op, DML_EXECUTION_FLAG_NONE))
    print("kernel:", compiled.kernel.program.name, f"({compiled.kernel.vgprs_used} VGPRs),",
          "persistent resource", compiled.persistent_size, "bytes")

    # The devices, the fence and the GPU after the run.
    device = inspect(session.device)
    print("fence value:", inspect(session.fence).value, "| hazards:", device.hazard_count,
          "| removed:", device.removed_reason, "| GPU cycles:", device.gpu.clock_cycles)
    print("DirectML feature level:", DML_FEATURE_LEVEL(inspect(session.dml).feature_level).name)

    expected = golden.clip(x, np.float32(-1.0), np.float32(1.0))
    if not np.array_equal(y.view(np.uint32), expected.view(np.uint32)):
        raise SystemExit(f"CLIP output differs from dmlemu.golden:\n got      {y}\n expected {expected}")
    print("bit-exact against dmlemu.golden.")


if __name__ == "__main__":
    main()
