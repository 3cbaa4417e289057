"""What the D3D12 debug layer says of a compute shader's workgroup instructions once it has run: writes
and atomics through a read-only view (an SRV or a CBV: dropped) and reads of LDS never written (GPU-based
validation's messages, emulator/d3d12/dispatch.py)."""
import importlib.util
import os

import numpy as np
import pytest

from dmlemu.d3d12 import *  # noqa: F401,F403
from dmlemu.isa.shader_binary import assemble_shader

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_spec = importlib.util.spec_from_file_location("saxpy_dispatch", os.path.join(ROOT, "examples", "saxpy_dispatch.py"))
example = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(example)

ATOMICS_ON_BOTH_VIEWS = """
.numthreads 64, 1, 1
.root_constants b0, 2
.srv t0
.uav u0
    s_load_dwordx4 s[8:11], s[0:1], ${SLOT_T0}
    s_load_dwordx4 s[12:15], s[0:1], ${SLOT_U0}
    s_waitcnt 0
    v_lshl_b32 v5, v0, 2
    v_mov_b32 v6, 1
    buffer_atomic_add v6, v5, s[8:11], 0
    buffer_atomic_add v6, v5, s[12:15], 0
    buffer_store_dword v6, v5, s[8:11], 0
    s_endpgm
"""


def _messages(device):
    queue = device.QueryInterface(IID_ID3D12InfoQueue1)
    out = []
    for i in range(queue.GetNumStoredMessagesAllowedByRetrievalFilter()):
        size = queue.GetMessage(i, None, None)
        out.append(queue.GetMessage(i, D3D12_MESSAGE(), size).pDescription)
    return out


def _run(monkeypatch, source, debug, device=None):
    monkeypatch.setattr(example, "shader_bytecode", lambda name: assemble_shader(source, name="atomics").to_bytes())
    device = device or D3D12CreateDevice(None, D3D_FEATURE_LEVEL_11_0, debug_layer=debug)
    y = example.run_kernel("atomics", np.arange(64, dtype=np.uint32), np.full(64, 7, dtype=np.uint32), 0, device)
    return y, device


def test_the_stored_message_is_the_sentence_and_nothing_else_is_reported(monkeypatch):
    device = D3D12CreateDevice(None, D3D_FEATURE_LEVEL_11_0, debug_layer=True)
    queue = device.QueryInterface(IID_ID3D12InfoQueue1)
    queue.SetBreakOnSeverity(D3D12_MESSAGE_SEVERITY_ERROR, False)
    y, _ = _run(monkeypatch, ATOMICS_ON_BOTH_VIEWS, True, device)
    assert np.array_equal(y, np.full(64, 8, dtype=np.uint32))      # the UAV's atomic applied, the SRV's dropped
    messages = _messages(device)
    assert len(messages) == 1 and messages[0].startswith(SRV_WRITES)


SRV_WRITES = ("ExecuteCommandLists: the Dispatch of pipeline state #1 (atomics) wrote 128 lane(s) through a "
              "shader-resource or constant-buffer view, first with buffer_atomic_add at instruction 5; those views "
              "are read-only, so the writes were dropped (bind the resource as a UAV to write it)")


def test_atomics_and_stores_through_an_srv_are_dropped_and_the_debug_layer_says_so(monkeypatch):
    with pytest.raises(D3D12DebugBreak) as error:    # the debug layer breaks on errors
        _run(monkeypatch, ATOMICS_ON_BOTH_VIEWS, True)
    assert error.value.message.startswith(SRV_WRITES)



def test_without_the_debug_layer_the_writes_are_dropped_silently(monkeypatch):
    y, device = _run(monkeypatch, ATOMICS_ON_BOTH_VIEWS, False)
    assert np.array_equal(y, np.full(64, 8, dtype=np.uint32))
