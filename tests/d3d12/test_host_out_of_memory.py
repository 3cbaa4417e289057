"""A MemoryError anywhere in the mirror is E_OUTOFMEMORY with a sentence, never an escape (issue 30).

The checks before allocation bound what a call asks of the host (docs/RELIABILITY.md); where the host refuses
anyway, NumPy raises MemoryError deep inside. An HRESULT method then fails with E_OUTOFMEMORY naming itself and
what to lower (com.hresult_method); a void method, and a command that runs out of memory while a queue executes
it, remove the device with E_OUTOFMEMORY (GetDeviceRemovedReason), as a driver that cannot allocate; `dmlemu`
prints one line naming the command, its sizes and the options to lower.
"""
import io
import contextlib

import numpy as np
import pytest

from dmlemu import gpu as gpu_module
from dmlemu.errors import E_OUTOFMEMORY, HResultError, S_OK
from dmlemu.tools import cli
from mirror_rig import ClipRig, removal
from operator_cases import small_clip_works


def _no_memory(*args, **kwargs):
    raise MemoryError()


def test_an_hresult_method_that_meets_memory_error_fails_with_e_outofmemory(monkeypatch):
    rig = ClipRig()
    from dmlemu.directml import device as dml_device
    monkeypatch.setattr(dml_device, "validate_operator_desc", _no_memory)
    with pytest.raises(HResultError) as caught:
        rig.dml.CreateOperator(None)
    assert caught.value.hresult == E_OUTOFMEMORY
    assert caught.value.message.startswith("IDMLDevice1.CreateOperator: the host could not provide the memory this "
                                           "call needed (MemoryError); lower the sizes")
    assert "DMLEMU_TIMING_RECORD_BYTES" in caught.value.message
    monkeypatch.undo()
    assert rig.dml.GetDeviceRemovedReason() == S_OK     # nothing removed: the next call works
    small_clip_works(rig)


def test_a_dispatch_that_meets_memory_error_removes_the_device_with_e_outofmemory(monkeypatch):
    rig = ClipRig()
    rig.initialize_clip()
    rig.execute()
    table = rig.bound_table()
    rig.recorder.RecordDispatch(rig.list, rig.compiled, table)
    monkeypatch.setattr(gpu_module.Gpu, "dispatch", _no_memory)
    rig.list.Close()
    rig.queue.ExecuteCommandLists([rig.list])     # returns nothing in C: the device is removed
    reason, sentence = removal(rig.device)
    assert reason == E_OUTOFMEMORY
    assert sentence.startswith("ExecuteCommandLists: the host could not provide the memory to run DirectML "
                               "ELEMENT_WISE_CLIP (MemoryError; in command list #1 on command queue #1)")
    assert "lower its work (a smaller grid or tensor), or DMLEMU_TIMING_RECORD_BYTES" in sentence


def test_a_recording_method_that_meets_memory_error_makes_close_fail_with_e_outofmemory(monkeypatch):
    rig = ClipRig()
    from dmlemu.d3d12 import command_list
    monkeypatch.setattr(command_list, "CopyBufferRegionCommand", _no_memory)
    rig.list.CopyBufferRegion(rig.a, 0, rig.b, 0, 64)
    with pytest.raises(HResultError) as caught:
        rig.list.Close()
    assert caught.value.hresult == E_OUTOFMEMORY
    assert "CopyBufferRegion: the host could not provide the memory this call needed (MemoryError)" in \
        caught.value.message
    assert removal(rig.device) == (S_OK, "")


def test_a_void_method_that_meets_memory_error_removes_its_device_with_e_outofmemory():
    from dmlemu.com import COMObject, void_method

    class Device:
        removed = None

        def _is_removed(self):
            return self.removed is not None

        def _report_misuse(self, hresult, sentence):
            self.removed = (hresult, sentence)

    class Thing(COMObject):
        _device = Device()

        @void_method
        def Grow(self):
            raise MemoryError()

    thing = Thing()
    assert thing.Grow() is None
    hresult, sentence = thing._device.removed
    assert hresult == E_OUTOFMEMORY and sentence.startswith("Grow: the host could not provide the memory this call needed")


@pytest.mark.parametrize("argv, named", [
    (["run", "CLIP", "--sizes", "4", "4"], "in `dmlemu run` with --sizes 4 4; lower --sizes"),
    (["step", "--sizes", "2", "3"], "in `dmlemu step` with --sizes 2 3; lower --sizes, --groups"),
    (["sweep", "--serial", "--sizes", "4096"], "in `dmlemu sweep` with --sizes 4096; lower --sizes, --max-points"),
    (["onnx", "model.onnx"], "in `dmlemu onnx`; lower the model's input shapes, --no-timing"),
])
def test_dmlemu_names_the_command_its_sizes_and_the_options_to_lower(monkeypatch, argv, named):
    parser = cli.build_parser()
    args = parser.parse_args(argv)
    monkeypatch.setattr(cli, "build_parser", lambda: _Parser(parser, args))
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        assert cli.main(argv) == 2
    line = err.getvalue()
    assert line.count("\n") == 1 and line.startswith("dmlemu: error: the host ran out of memory (MemoryError) ")
    assert named in line and "DMLEMU_TIMING_RECORD_BYTES" in line


class _Parser:
    """A parser whose command's handler meets a MemoryError."""

    def __init__(self, parser, args):
        self.parser, self.args = parser, args

    def parse_args(self, argv):
        self.args.handler = _no_memory
        return self.args


def test_numpy_memory_error_is_what_these_paths_catch():
    """The premise: NumPy reports a request the host cannot back as MemoryError (a subclass where it says more)."""
    with pytest.raises(MemoryError):
        np.empty(1 << 62, dtype=np.uint8)
