"""The annotated kernel listing (traces/listing.py, `dmlemu trace FILE.npz --instructions`): waves and issue
cycles per instruction, stall cycles at each s_waitcnt from the instruction segments, memory figures per
memory instruction, --top, --dispatch, and the sentence for a trace captured without the segments."""
import numpy as np
import pytest

from dmlemu.presets import RX_7900_XTX
from dmlemu.traces.io import load_trace, save_trace
from dmlemu.traces.listing import default_dispatch, instruction_rows

from tests.cli_runner import cli
from tests.traces.test_verdict import run_kernel, run_operator_trace


@pytest.fixture(scope="module")
def sigmoid(tmp_path_factory):
    """A SIGMOID FLOAT16 run at detail instruction, saved and read back."""
    path = tmp_path_factory.mktemp("listing") / "s.npz"
    save_trace(run_operator_trace("SIGMOID", "FLOAT16", 1 << 16, "rx7900xtx", detail="instruction"), path)
    return path


def test_every_instruction_has_its_waves_issue_and_stall(sigmoid):
    trace = load_trace(sigmoid)
    rows = instruction_rows(trace, 0)
    waves = int(trace.dispatches["waves"][0])
    assert [r["instruction"] for r in rows] == trace.programs[0][1]
    assert all(r["waves"] == waves for r in rows[:-1])         # one path, every instruction once per wave
    assert sum(r["issue"] for r in rows) == sum(int(trace.dispatches[0][n]) for n in trace.dispatches.dtype.names
                                                if n.endswith("_issue_cycles"))
    division = next(r for r in rows if r["instruction"].startswith("v_div_f32"))
    assert division["issue"] == 10 * waves                      # the ISA table's issue cycles for a division
    waits = [r for r in rows if r["kind"] == "wait"]
    assert all(r["issue"] == 0 for r in waits)
    # the wait for the input load holds most of the stall: the kernel waits for memory there
    load = next(r for r in rows if r["kind"] == "load")
    after = rows[load["pc"] + 1]
    assert after["kind"] == "wait" and after["stall"] == max(r["stall"] for r in rows) > 0
    assert load["sectors_per_request"] == 1.0 and load["coalescing"] == 1.0 and load["l2_hit_rate"] == 0.0


def test_the_cli_lists_the_hottest_first_and_says_so(sigmoid):
    code, out, err = cli("trace", sigmoid, "--instructions", "--top", "3")
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].startswith("dispatch #0 activation_sigmoid_float16_packed: ") and "hottest first" in lines[0]
    assert lines[2].split()[-2:] == ["s_waitcnt", "0"] and len(lines) == 1 + 1 + 3 + 1
    code, out, _ = cli("trace", sigmoid, "--instructions", "--dispatch", "0")
    assert code == 0 and "buffer_load_ushort" in out and "note:" not in out


def test_a_trace_without_segments_says_which_detail_to_capture_with(tmp_path):
    path = tmp_path / "w.npz"
    save_trace(run_operator_trace("IDENTITY", "FLOAT32", 4096, "teaching", detail="wave"), path)
    code, out, _ = cli("trace", path, "--instructions")
    assert code == 0
    notes = [line for line in out.splitlines() if line.startswith("note:")]
    assert notes == ["note: stall cycles at each s_waitcnt need the instruction segments, which this trace "
                     "(detail 'wave') lacks: capture with `--trace-detail instruction` (dmlemu run ... "
                     "--trace-detail instruction --trace FILE.npz)"]
    assert rows_have_no_stall(load_trace(path))


def rows_have_no_stall(trace):
    return all(r["stall"] is None for r in instruction_rows(trace, 0))


def test_stalls_in_a_loop_go_to_its_waitcnt():
    trace = run_kernel(RX_7900_XTX, "reads", 2, 3, 64, detail="instruction")
    rows = instruction_rows(trace, 0)
    waits = [r for r in rows if r["kind"] == "wait"]
    loop_wait = waits[-1]                              # the s_waitcnt inside the loop
    assert loop_wait["waves"] == 3 * int(trace.dispatches["waves"][0]) and loop_wait["stall"] > 0
    loads = [r for r in rows if r["kind"] == "load"]
    assert all(r["waves"] == loop_wait["waves"] for r in loads)


def test_the_default_dispatch_is_the_longest_timed_one():
    trace = run_kernel(RX_7900_XTX, "reads", 1, 1, 64, repeat=2)
    cycles = (trace.dispatches["end"] - trace.dispatches["start"]).tolist()
    assert default_dispatch(trace) == int(np.argmax(cycles))
    trace.dispatches["end"][0] = trace.dispatches["start"][0] + 1
    assert default_dispatch(trace) == 1
    trace.dispatches["timed"][1] = False
    assert default_dispatch(trace) == 0


@pytest.mark.parametrize("argv, message", [
    (["--top", "3"], "--top goes with --instructions (the annotated kernel listing)"),
    (["--dispatch", "0"], "--dispatch goes with --instructions (the annotated kernel listing) or --plots (the "
                          "dispatch the plots focus on)"),
    (["--instructions", "--top", "0"], "--top is 0; it must be at least 1 (the number of instructions to list)"),
    (["--instructions", "--dispatch", "7"], "--dispatch 7: the trace holds dispatches 0 only"),
])
def test_bad_listing_arguments_are_one_sentence(sigmoid, argv, message):
    code, out, err = cli("trace", sigmoid, *argv)
    assert code == 2 and err == f"dmlemu: error: {message}\n"
