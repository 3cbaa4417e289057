"""Hostile bindings of the one-dispatch REDUCE (issue 30): a REDUCE of more than 16,384 elements per output keeps its
chunks' partials in the temporary resource and counts them in a counter (docs/NUMERICS.md, "Reductions"). Drawn
attacks on what it binds: no temporary resource, one too small, at an offset, on an UPLOAD heap, overlapping the
input, the output or the persistent resource, the same buffer bound twice, a counter a host overwrote in strict-host
mode. Each ends in its documented outcome: the DirectML device removed with E_INVALIDARG and a sentence naming the
binding and the rule, the device hung (DXGI_ERROR_DEVICE_HUNG, the GPU timeout) where a host wrote into the
persistent resource, which DirectML leaves to the operator; or the dispatch runs, bit for bit the golden model's sum,
with the counters back at zero. bench/hostile_census.py entry "one-dispatch REDUCE"."""
import contextlib
import io
import os
from unittest import mock

import numpy as np
from hypothesis import HealthCheck, given, settings, strategies as st

from dmlemu.d3d12 import *  # noqa: F401,F403
from dmlemu.directml import *  # noqa: F401,F403
from dmlemu.directml.device import STRICT_HOST_VARIABLE
from dmlemu.errors import E_INVALIDARG, HResultError, S_OK
from dmlemu.functional import executor
from dmlemu.kernels.reduce_ops import CHUNK
from mirror_rig import MirrorRig, buffer_binding, removal
from operator_cases import ACCEPTED, REFUSED, outcome, scaled
from tensor_layouts import same_bits
from test_reduce import expected, reduce_desc

DXGI_ERROR_DEVICE_HUNG = 0x887A0006
N = CHUNK + 5          # two chunks of one output
ATTACKS = ("valid", "valid at an offset", "none", "too small", "upload heap", "over the input", "over the output",
           "over the persistent resource", "misaligned offset", "twice in one list")


def run(attack, debug, strict, offset_draw, seed):
    with mock.patch.dict(os.environ, {STRICT_HOST_VARIABLE: "1" if strict else "0"}):   # read at DMLCreateDevice
        rig = MirrorRig(dml_flags=DML_CREATE_DEVICE_FLAG_DEBUG if debug else DML_CREATE_DEVICE_FLAG_NONE)
    compiled = rig.compile(DML_OPERATOR_DESC(Type=int(DML_OPERATOR_REDUCE), Desc=reduce_desc("SUM", "FLOAT32", [N], [0])))
    rig.initialize(compiled)
    rig.execute()
    props = compiled.GetBindingProperties()
    temp_bytes = props.TemporaryResourceSize
    x = np.random.default_rng(seed).standard_normal(N).astype(np.float32)
    xb, yb = rig.buffer(4 * N + 4096), rig.buffer(4096)
    rig.write(xb, x)
    table = rig.dml.CreateBindingTable(rig.table_desc(compiled, size=props.RequiredDescriptorCount))
    persistent = rig.persistent.get(compiled)
    if persistent is not None:
        table.BindPersistentResource(buffer_binding(persistent))
    table.BindInputs([buffer_binding(xb, 0, 4 * N)])
    table.BindOutputs([buffer_binding(yb, 0, 4)])
    temporary = {
        "valid": lambda: buffer_binding(rig.buffer(temp_bytes)),
        "valid at an offset": lambda: buffer_binding(rig.buffer(temp_bytes + 4096), 256 * offset_draw, temp_bytes),
        "none": lambda: None,
        "too small": lambda: buffer_binding(rig.buffer(temp_bytes), 0, max(0, temp_bytes - 4 * (1 + offset_draw))),
        "upload heap": lambda: buffer_binding(rig.buffer(temp_bytes, D3D12_HEAP_TYPE_UPLOAD)),
        "over the input": lambda: buffer_binding(xb, 256 * offset_draw, temp_bytes),
        "over the output": lambda: buffer_binding(yb, 0, temp_bytes),
        "over the persistent resource": lambda: (buffer_binding(persistent, 0, temp_bytes) if persistent is not None
                                                 else buffer_binding(yb, 0, temp_bytes)),
        "misaligned offset": lambda: buffer_binding(rig.buffer(temp_bytes + 4096), 4 + 4 * offset_draw, temp_bytes),
        "twice in one list": lambda: buffer_binding(rig.buffer(temp_bytes)),
    }[attack]()
    with contextlib.redirect_stderr(io.StringIO()):
        try:
            if temporary is not None:
                table.BindTemporaryResource(temporary)
            for _ in range(2 if attack == "twice in one list" else 1):
                rig.recorder.RecordDispatch(rig.list, compiled, table)
                rig.list.ResourceBarrier([CD3DX12_RESOURCE_BARRIER.UAV(None)])
            rig.execute()
        except HResultError:
            pass                 # Close / Signal after the removal: the reason is read below
    reason, sentence = removal(rig.dml)
    if reason != S_OK:
        return rig, reason, sentence, None
    return rig, reason, sentence, (rig.read(yb)[:4].view(np.float32).reshape(1), expected(x, "SUM", (0,)))


@settings(max_examples=scaled(10), deadline=None, suppress_health_check=list(HealthCheck))
@given(attack=st.sampled_from(ATTACKS), debug=st.booleans(), strict=st.booleans(), offset_draw=st.integers(0, 3),
       seed=st.integers(0, 2 ** 32 - 1))
def test_hostile_temporary_bindings_of_a_split_reduce_end_in_their_documented_outcome(attack, debug, strict,
                                                                                       offset_draw, seed):
    rig, reason, sentence, result = run(attack, debug, strict, offset_draw, seed)
    if result is not None:
        assert attack in ("valid", "valid at an offset", "twice in one list"), (attack, "ran")
        same_bits(*result)
        outcome(ACCEPTED)
        return
    assert attack not in ("valid", "valid at an offset", "twice in one list"), (attack, sentence)
    assert reason == E_INVALIDARG and sentence.strip() and "\n" not in sentence.strip(), (reason, sentence)
    assert {"none": "none is bound", "too small": "TemporaryResourceSize is",
            "upload heap": "D3D12_HEAP_TYPE_DEFAULT", "over the input": "overlaps InputTensor",
            "over the output": "overlaps OutputTensor", "misaligned offset": "Offset",
            "over the persistent resource": "overlaps"}[attack] in sentence, (attack, sentence)
    assert removal(rig.device) == (S_OK, "")      # DirectML's misuse removes the DirectML device only
    outcome(REFUSED)


def test_a_counter_a_host_overwrote_in_the_persistent_resource_hangs_the_gpu_until_its_timeout(monkeypatch):
    """Strict-host mode keeps the counters in the persistent resource, which DirectML leaves to the operator; a host
    that writes into it (here 7 into the counter) makes the last chunk wait for a count it never sees: the GPU
    timeout removes the device with DXGI_ERROR_DEVICE_HUNG and names the kernel (the per-wave limit lowered so that
    the test takes a second)."""
    monkeypatch.setattr(executor, "MAX_INSTRUCTIONS_PER_WAVE", 4000)
    monkeypatch.setenv(STRICT_HOST_VARIABLE, "1")
    rig = MirrorRig(dml_flags=DML_CREATE_DEVICE_FLAG_NONE)
    compiled = rig.compile(DML_OPERATOR_DESC(Type=int(DML_OPERATOR_REDUCE), Desc=reduce_desc("SUM", "FLOAT32", [N], [0])))
    rig.initialize(compiled)
    rig.execute()
    (persistent,) = rig.persistent.values()
    data = rig.read(persistent)
    last = int(np.nonzero(data)[0][-1])
    data[last + 1:] = 7                 # the bytes after the constants: the counter among them
    rig.write(persistent, data)
    table = rig.table(compiled)
    xb, yb = rig.buffer(4 * N), rig.buffer(256)
    table.BindInputs([buffer_binding(xb, 0, 4 * N)])
    table.BindOutputs([buffer_binding(yb, 0, 4)])
    rig.recorder.RecordDispatch(rig.list, compiled, table)
    with contextlib.redirect_stderr(io.StringIO()):
        try:
            rig.execute()
        except HResultError:
            pass
    reason, sentence = removal(rig.device)
    assert reason == DXGI_ERROR_DEVICE_HUNG and "the GPU stopped responding: reduce_sum_float32" in sentence, sentence
