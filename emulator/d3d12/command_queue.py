"""ID3D12CommandQueue: submits command lists and fence signals to the emulated GPU, in order.

One per CreateCommandQueue call (of type DIRECT, COMPUTE or COPY). Execution model, deterministic:
- The queue keeps a FIFO of submitted items: executions of command lists, fence signals, fence waits.
  Items run in order and at once (the emulated GPU finishes work before the call returns), except
  that a Wait(fence, value) holds the queue, and everything after it, until the fence reaches the
  value (a CPU Signal or another queue's Signal); then the held items run, inside that Signal call.
- Each ExecuteCommandLists call gets a submission serial. Its lists' commands run in order with one
  ExecutionContext; when the call's last command finishes, the buffers it touched decay to COMMON
  (resource.py). Work is *in flight* until the CPU observes, through a fence signalled after it
  (fence.py), that it completed: `_observed_serial` is the last serial the CPU knows finished.
- ExecuteCommandLists returns nothing in C. Misuse (an open list, a list of another type or device,
  a list that failed to Close, a list whose allocator was Reset since it was recorded, a bundle)
  removes the device with DXGI_ERROR_INVALID_CALL and runs nothing. A command that finds misuse
  while executing (a wrong StateBefore, a resource in the wrong state) raises HResultError; the
  queue removes the device with that code and sentence and drops the rest of the work. With the
  debug layer on, both also raise at once.
- Each ExecuteCommandLists call's commands share one hazard tracker (ExecutionContext.hazards,
  hazards.py): accesses to overlapping bytes with no barrier between them are counted and, with the
  debug layer, reported once the work has run. Separate calls are ordered, so each starts afresh.
- GetTimestampFrequency is the emulated GPU's clock (device._gpu.timestamp_frequency), in Hz.
"""
import collections
import time

from dmlemu.errors import E_OUTOFMEMORY, HResultError
from dmlemu.com import VoidMisuse, hresult_method, void_method
from dmlemu.d3d12.base import DeviceChild, invalid_arg
from dmlemu.d3d12.command_list import ID3D12GraphicsCommandList
from dmlemu.com import enum_name, is_one_of
from dmlemu.d3d12.enums import (D3D12_COMMAND_LIST_TYPE, D3D12_COMMAND_LIST_TYPE_COPY,
                                 D3D12_COMMAND_QUEUE_FLAG_DISABLE_GPU_TIMEOUT, D3D12_COMMAND_QUEUE_FLAG_NONE,
                                 D3D12_COMMAND_QUEUE_PRIORITY)
from dmlemu.d3d12.fence import ID3D12Fence, _check_value
from dmlemu.d3d12.hazards import HazardTracker
from dmlemu.d3d12.resource import _decay, _require_state
from dmlemu.d3d12.structs import D3D12_COMMAND_QUEUE_DESC
from dmlemu.gpu import COMPUTE, COPY

QUEUE_TYPES = (0, 2, 3)  # DIRECT, COMPUTE, COPY
BUNDLE = 1


class ExecutionContext:
    """What a command sees while it executes: the device, its GPU, the queue and the list."""

    __slots__ = ("device", "gpu", "queue", "command_list", "engine", "hazards")

    def __init__(self, queue):
        self.device = queue._device
        self.gpu = queue._device._gpu
        self.queue = queue
        self.command_list = None
        self.engine = queue._engine      # the GPU engine the queue feeds (gpu.COMPUTE or gpu.COPY)
        self.hazards = HazardTracker()   # one per ExecuteCommandLists call: they are ordered (hazards.py)

    def require_state(self, resource, allowed_states, what):
        """resource._require_state for commands: check/promote the state the access needs."""
        _require_state(resource, allowed_states, what)

    _require_state = require_state


class ID3D12CommandQueue(DeviceChild):
    """A command queue of one type."""

    _kind = "command queue"

    def __init__(self, device, desc):
        super().__init__(device)
        self._desc = desc
        self._type = int(desc.Type)
        self._engine = COPY if self._type == D3D12_COMMAND_LIST_TYPE_COPY else COMPUTE
        self._pending = collections.deque()  # ("execute", serial, lists) / ("signal", fence, value) / ("wait", ...)
        self._submitted_serial = 0
        self._executed_serial = 0
        self._observed_serial = 0

    # ---- ID3D12CommandQueue --------------------------------------------------------------------
    def GetDesc(self):
        return self._desc._copy()

    @hresult_method
    def GetTimestampFrequency(self):
        """Ticks per second of timestamps on this queue: the emulated GPU clock in Hz."""
        return self._device._gpu.timestamp_frequency

    @hresult_method
    def GetClockCalibration(self):
        """(GPU timestamp, CPU timestamp in ns of time.perf_counter_ns), the two C out-parameters."""
        return self._device._gpu.timestamp(self._engine), time.perf_counter_ns()

    @void_method
    def ExecuteCommandLists(self, ppCommandLists):
        """Submit closed command lists; they run in order, now (unless the queue waits on a fence)."""
        if not isinstance(ppCommandLists, (list, tuple)):
            raise VoidMisuse("ppCommandLists must be a sequence of command lists (the C count and array).")
        lists = tuple(ppCommandLists)
        for i, command_list in enumerate(lists):
            self._check_list(i, command_list)
        if not lists:
            return
        with self._device._lock:    # serials in the order the work queues: another thread may submit too
            self._submitted_serial += 1
            serial = self._submitted_serial
            snapshot = []
            for command_list in lists:
                if command_list._allocator is not None:
                    command_list._allocator._submissions.append((self, serial, command_list._label))
                snapshot.append((command_list, tuple(command_list._commands)))
            self._pending.append(("execute", serial, tuple(snapshot)))
        self._device._pump_queues()

    def _check_list(self, i, command_list):
        where = f"ppCommandLists[{i}]"
        if not isinstance(command_list, ID3D12GraphicsCommandList) or command_list._device is not self._device:
            raise VoidMisuse(f"{where} is {command_list!r}; it must be a command list of this device.")
        label = command_list._label
        if command_list._type == BUNDLE:
            raise VoidMisuse(f"{where} is {label}, a bundle; bundles run only through ExecuteBundle.")
        if command_list._type != self._type:
            raise VoidMisuse(f"{where} is {label}, a {enum_name(D3D12_COMMAND_LIST_TYPE, command_list._type)} list; "
                             f"{self._label} is {enum_name(D3D12_COMMAND_LIST_TYPE, self._type)}.")
        if command_list._open:
            raise VoidMisuse(f"{where} is {label}, which is still open; Close it before executing it.")
        if command_list._error is not None:
            raise VoidMisuse(f"{where} is {label}, which failed to Close, so it cannot be executed.")
        allocator = command_list._allocator
        if allocator is not None and allocator._epoch != command_list._allocator_epoch:
            raise VoidMisuse(f"{where} is {label}, recorded into {allocator._label}, which was Reset since; Reset "
                             "the list and record it again.")

    @hresult_method
    def Signal(self, pFence, Value):
        """Queue a fence signal: the fence takes Value when the work submitted before it completes."""
        self._check_fence("Signal", pFence)
        self._pending.append(("signal", pFence, _check_value("Signal", Value)))
        self._device._pump_queues()

    @hresult_method
    def Wait(self, pFence, Value):
        """Hold this queue's later work until the fence reaches Value."""
        self._check_fence("Wait", pFence)
        self._pending.append(("wait", pFence, _check_value("Wait", Value)))
        self._device._pump_queues()

    def _check_fence(self, method, fence):
        if not isinstance(fence, ID3D12Fence) or fence._device is not self._device:
            raise invalid_arg(method, f"pFence is {fence!r}; it must be a fence of this device.")

    # ---- execution -----------------------------------------------------------------------------
    def _step(self):
        """Run the first pending item if it can run now; True if it ran."""
        if not self._pending:
            return False
        item = self._pending[0]
        if item[0] == "wait":
            if item[1]._value < item[2]:
                return False
            self._pending.popleft()
            # The GPU side of the wait: this engine's later work starts when the value was signalled.
            self._device._gpu.wait_until(item[1]._signal_cycle(item[2]), self._engine)
            return True
        self._pending.popleft()
        if item[0] == "signal":
            item[1]._set(item[2], self, self._device._gpu.timestamp(self._engine))
        else:
            self._execute(item[1], item[2])
        return True

    def _execute(self, serial, snapshot):
        device = self._device
        ctx = ExecutionContext(self)
        device._ecl_touched = {}
        ctx.gpu.begin_submission(self._engine)  # the command processor's cost of one ExecuteCommandLists
        try:
            for command_list, commands in snapshot:
                ctx.command_list = command_list
                for command in commands:
                    try:
                        command.execute(ctx)
                    except HResultError as error:
                        device._report_misuse(error.hresult, f"ExecuteCommandLists: {error.message} (in "
                                                             f"{command_list._label} on {self._label})")
                        return
                    except MemoryError:
                        device._report_misuse(E_OUTOFMEMORY, f"ExecuteCommandLists: the host could not provide the "
                                              f"memory to run {getattr(command, 'name', type(command).__name__)} "
                                              f"(MemoryError; in {command_list._label} on {self._label}); lower its "
                                              f"work (a smaller grid or tensor), or DMLEMU_TIMING_RECORD_BYTES or "
                                              f"turn the timing model off")
                        return
            ctx.gpu.barrier(True, self._engine)   # wait for idle; the results become visible (fences, CPU)
        finally:
            _decay(device._ecl_touched, copy_queue=self._type == D3D12_COMMAND_LIST_TYPE_COPY)
            device._ecl_touched = {}
            self._executed_serial = serial


def create_command_queue(device, desc):
    m = "CreateCommandQueue"
    if not isinstance(desc, D3D12_COMMAND_QUEUE_DESC):
        raise invalid_arg(m, f"pDesc is {desc!r}; it must be a D3D12_COMMAND_QUEUE_DESC.")
    if not is_one_of(desc.Type, QUEUE_TYPES):
        raise invalid_arg(m, f"pDesc.Type is {enum_name(D3D12_COMMAND_LIST_TYPE, desc.Type)}; a queue is DIRECT, "
                             "COMPUTE or COPY.")
    if not is_one_of(desc.Priority, D3D12_COMMAND_QUEUE_PRIORITY._c_names_):
        raise invalid_arg(m, f"pDesc.Priority is {desc.Priority!r}; it must be a D3D12_COMMAND_QUEUE_PRIORITY.")
    if not is_one_of(desc.Flags, (D3D12_COMMAND_QUEUE_FLAG_NONE, D3D12_COMMAND_QUEUE_FLAG_DISABLE_GPU_TIMEOUT)):
        raise invalid_arg(m, f"pDesc.Flags is {desc.Flags!r}; it must be NONE or DISABLE_GPU_TIMEOUT.")
    if not is_one_of(desc.NodeMask, (0, 1)):
        raise invalid_arg(m, f"pDesc.NodeMask is {desc.NodeMask!r}; the emulated adapter has one node, so it must "
                             "be 0 or 1.")
    queue = ID3D12CommandQueue(device, desc._copy())
    device._queues.append(queue)
    return queue


__all__ = ["ID3D12CommandQueue", "ExecutionContext"]
