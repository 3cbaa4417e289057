"""Reading the debug layer's messages through ID3D12InfoQueue1, as DxDispatch or a test harness does.

    python examples/info_queue.py          (from the repository root)

With the D3D12 debug layer on, a device's info queue keeps every D3D12 and DirectML debug message with
its category, severity and D3D12_MESSAGE_ID (docs/INFO_QUEUE.md). This program turns the break on
errors off (so a misuse returns instead of raising D3D12DebugBreak), registers a callback, makes one
deliberate mistake (an Unmap without a Map), runs an ELEMENT_WISE_CLIP correctly, and then reads the
stored messages back with GetMessage's two calls: the first asks for the byte length, the second fills
a D3D12_MESSAGE.
"""
import numpy as np

from dmlemu import golden
from dmlemu.convenience import Session
from dmlemu.d3d12 import *  # noqa: F401,F403
from dmlemu.directml import *  # noqa: F401,F403


def main():
    D3D12GetDebugInterface().EnableDebugLayer()          # before the device is created
    session = Session(adapter="teaching", debug=True)    # debug=True: DML_CREATE_DEVICE_FLAG_DEBUG too
    queue = session.device.QueryInterface(IID_ID3D12InfoQueue1)
    queue.SetBreakOnSeverity(D3D12_MESSAGE_SEVERITY_ERROR, False)   # report, do not stop at the call
    queue.SetMuteDebugOutput(True)                                  # this program prints them itself
    seen = []
    queue.RegisterMessageCallback(lambda category, severity, id, text, context: seen.append(id),
                                  D3D12_MESSAGE_CALLBACK_FLAG_NONE, None)

    upload = session.device.CreateCommittedResource(
        CD3DX12_HEAP_PROPERTIES(D3D12_HEAP_TYPE_UPLOAD), D3D12_HEAP_FLAG_NONE, CD3DX12_RESOURCE_DESC.Buffer(256),
        D3D12_RESOURCE_STATE_GENERIC_READ, None)
    upload.Unmap(0, None)                                # the mistake: it was never mapped

    sizes = [64]
    x = np.linspace(-3.0, 3.0, 64, dtype=np.float32)
    tensor = DML_TENSOR_DESC(Type=DML_TENSOR_TYPE_BUFFER, Desc=DML_BUFFER_TENSOR_DESC(
        DataType=DML_TENSOR_DATA_TYPE_FLOAT32, Flags=DML_TENSOR_FLAG_NONE, Sizes=sizes, Strides=None,
        TotalTensorSizeInBytes=DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT32, len(sizes), sizes, None)))
    [y] = session.run(DML_ELEMENT_WISE_CLIP_OPERATOR_DESC(InputTensor=tensor, OutputTensor=tensor, ScaleBias=None,
                                                          Min=-1.0, Max=1.0), [x])

    for index in range(queue.GetNumStoredMessagesAllowedByRetrievalFilter()):
        length = queue.GetMessage(index, None, None)                     # first call: the byte length
        message = queue.GetMessage(index, D3D12_MESSAGE(), length)       # second call: the message
        print(f"message {index}: {message.Category.name} {message.Severity.name} #{int(message.ID)} "
              f"({message.ID.name}): {message.pDescription}")
    if seen != [D3D12_MESSAGE_ID_RESOURCE_UNMAP_NOTMAPPED]:
        raise SystemExit(f"expected the one Unmap message, the callback saw {seen}")

    expected = golden.clip(x, -1.0, 1.0)
    if not np.array_equal(y.view(np.uint32), expected.view(np.uint32)):
        raise SystemExit(f"CLIP output differs from dmlemu.golden:\n got      {y}\n expected {expected}")
    print("bit-exact against dmlemu.golden.")


if __name__ == "__main__":
    main()
