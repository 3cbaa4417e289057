"""The order and titles Perfetto's UI gives the written traces, from its rules applied to the files (no UI).

Rules of Perfetto's UI (plugin dev.perfetto.ProcessThreadGroups, v52, the build bench/perfetto_screenshot.py
and tests/traces/test_perfetto_ui.py load): a JSON trace's processes are listed by the rank of Chrome's
process names ("Browser" 3, "Gpu" 2, "Renderer" 1, any other 0; highest first), then slice count (most
first), then name, then pid; process_sort_index is ignored; a process is titled "<name> <pid>". Threads of
a process: its main thread (tid == pid) first, then by tid; titled "<name> <tid>". A .pftrace's tracks are
titled by their names alone and listed by sibling_order_rank under a parent with EXPLICIT child ordering.
"""
import json
from collections import Counter

import numpy as np
import pytest

from dmlemu.convenience import run_operator
from dmlemu.directml import (DML_BUFFER_TENSOR_DESC, DML_ELEMENT_WISE_CLIP_OPERATOR_DESC, DML_TENSOR_DATA_TYPE_FLOAT32,
                             DML_TENSOR_DESC, DML_TENSOR_TYPE_BUFFER)
from dmlemu.traces import save_chrome_json, tracks

_CHROME_RANK = {"Browser": 3, "Gpu": 2, "Renderer": 1}


@pytest.fixture(scope="module")
def clip_trace():
    n = 4096
    t = DML_TENSOR_DESC(Type=DML_TENSOR_TYPE_BUFFER, Desc=DML_BUFFER_TENSOR_DESC(
        DataType=DML_TENSOR_DATA_TYPE_FLOAT32, Sizes=[n], TotalTensorSizeInBytes=4 * n))
    _, trace = run_operator(DML_ELEMENT_WISE_CLIP_OPERATOR_DESC(InputTensor=t, OutputTensor=t, Min=-1, Max=1),
                            [np.linspace(-3, 3, n, dtype=np.float32)], adapter="rx7900xtx", trace="memory")
    return trace


def perfetto_json_groups(events):
    """[(process title, [thread titles])] in the order Perfetto's UI lists them."""
    names = {(e["pid"], e.get("tid")): e["args"]["name"] for e in events if e["ph"] == "M"
             and e["name"] in ("process_name", "thread_name")}
    slices = Counter(e["pid"] for e in events if e["ph"] in ("X", "b"))
    pids = sorted({pid for pid, tid in names if tid is None},
                  key=lambda pid: (-_CHROME_RANK.get(names[(pid, None)], 0), -slices[pid], names[(pid, None)], pid))
    groups = []
    for pid in pids:
        tids = sorted((tid for p, tid in names if p == pid and tid is not None), key=lambda tid: (tid != pid, tid))
        groups.append((f"{names[(pid, None)]} {pid}", [f"{names[(pid, tid)]} {tid}" for tid in tids]))
    return groups


def test_perfetto_lists_the_json_device_first_and_its_threads_in_layout_order(clip_trace, tmp_path):
    with open(save_chrome_json(clip_trace, tmp_path / "t.json")) as f:
        events = json.load(f)["traceEvents"]
    groups = perfetto_json_groups(events)
    assert len(groups) > 2
    # The device comes first by its name alone: named as the .pftrace names it, busier CUs would come first.
    title, threads = groups[0]
    assert title.startswith(tracks.JSON_DEVICE_PROCESS + " ")
    renamed = [dict(e, args={"name": tracks.device(clip_trace.preset).name})
               if e["ph"] == "M" and e["name"] == "process_name" and e["args"]["name"] == tracks.JSON_DEVICE_PROCESS
               else e for e in events]
    assert perfetto_json_groups(renamed)[0][0].startswith("CU ")
    # Its threads in the layout's order (Perfetto appends each tid to the name: ids a JSON cannot drop).
    shown = [t.rsplit(" ", 1)[0] for t in threads]
    layout = [tracks.NOTES.name, tracks.COMMAND_PROCESSOR.name, tracks.DISPATCHES.name, tracks.COPY_ENGINE.name,
              tracks.HOST_LINK.name]
    assert shown == [n for n in layout if n in shown]
    assert {tracks.COMMAND_PROCESSOR.name, tracks.DISPATCHES.name, tracks.COPY_ENGINE.name} <= set(shown)
    # Each CU's slot groups in SIMD / group order.
    order = [tracks.slot(s).name for s in range(tracks.GROUP_TRACKS * 8)]
    for title, threads in groups[1:]:
        assert title.startswith("CU ")
        slots = [t.rsplit(" ", 1)[0] for t in threads]
        assert slots and slots == sorted(slots, key=order.index)


def test_the_pftrace_lists_the_device_first_with_names_alone(clip_trace, tmp_path):
    pytest.importorskip("perfetto.protos.perfetto.trace.perfetto_trace_pb2")
    from test_pftrace import Parsed
    from dmlemu.traces import save_pftrace
    p = Parsed(open(save_pftrace(clip_trace, str(tmp_path / "t.pftrace")), "rb").read())
    (root,) = [u for u, t in p.tracks.items() if not t.parent_uuid]
    assert p.tracks[root].name == tracks.device(clip_trace.preset).name
    tree = p.children(root)
    first = [tracks.COMMAND_PROCESSOR.name, tracks.DISPATCHES.name, tracks.COPY_ENGINE.name]
    assert [n for n in tree if n in first] == first and tree.index(first[-1]) < min(
        i for i, n in enumerate(tree) if n.startswith("CU "))
    cus = [n for n in tree if n.startswith("CU ")]
    assert cus == sorted(cus) and all(n.split()[-1].isdigit() and len(n.split()) == 2 for n in cus)
    # No title carries a track id or uuid: every name is the layout's.
    assert not any(str(u) in t.name for u, t in p.tracks.items())
