"""ID3D12Fence: a 64-bit value the GPU (queue Signal) or the CPU (fence Signal) sets, and the CPU reads.

One per CreateFence call. The emulated GPU finishes queued work before ExecuteCommandLists / Signal
return (unless the queue waits on a fence; see command_queue.py), so a queue's Signal sets the value
at once. What the fence adds is *observation*: queued work counts as in flight until the CPU learns
it completed, by reading a value signalled after it (GetCompletedValue, or SetEventOnCompletion
returning / setting its event). Each queue Signal leaves a record (value, queue, submission serial);
observing a value >= the record's marks that queue's work up to the serial as complete, which is what
lets ID3D12CommandAllocator::Reset succeed.

SetEventOnCompletion(value, None) blocks until the value is reached, as a NULL event does in D3D12.
Work runs when it is submitted, so when nothing already submitted will reach the value only another
thread can: with other threads alive the call waits for one to signal (up to BLOCKING_WAIT_SECONDS),
and with none, or past that, it raises E_FAIL with a sentence instead of hanging. An event argument may be any object
with a `set()` method (a threading.Event, say); it is set when the value is reached. Once the device
is removed, GetCompletedValue returns UINT64_MAX, as in D3D12.
"""
import threading
import time

from dmlemu.errors import E_FAIL, E_INVALIDARG, HResultError
from dmlemu.com import hresult_method
from dmlemu.d3d12.base import DeviceChild

UINT64_MAX = (1 << 64) - 1
BLOCKING_WAIT_SECONDS = 30.0   # how long a NULL-event wait waits for another thread to signal


def _check_value(method, value):
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= UINT64_MAX:
        raise HResultError(E_INVALIDARG, f"{method}: Value is {value!r}; it must be an unsigned 64-bit integer.")
    return value


class ID3D12Fence(DeviceChild):
    """A fence: its completed value, the queue signals not yet observed, and pending events."""

    _kind = "fence"

    def __init__(self, device, initial_value, flags):
        super().__init__(device)
        self._value = initial_value
        self._flags = flags
        self._signal_records = []  # [value, queue, serial] of queue Signals not yet observed
        self._gpu_signals = []     # (value, GPU cycle) of queue Signals, in order: when a value was reached
        self._events = []          # [value, event] of SetEventOnCompletion calls not yet reached

    # ---- ID3D12Fence ---------------------------------------------------------------------------
    def GetCompletedValue(self):
        """The fence's value (UINT64_MAX once the device is removed); reading it observes completion."""
        if self._device._removed_reason is not None:
            return UINT64_MAX
        self._observe(self._value)
        return self._value

    @hresult_method
    def Signal(self, Value):
        """Set the fence from the CPU; queues waiting for it resume."""
        self._set(_check_value("Signal", Value))
        self._device._pump_queues()

    @hresult_method
    def SetEventOnCompletion(self, Value, hEvent):
        """Block until the fence reaches Value (hEvent None), or set hEvent when it does."""
        _check_value("SetEventOnCompletion", Value)
        if hEvent is not None and not callable(getattr(hEvent, "set", None)):
            raise HResultError(E_INVALIDARG, f"SetEventOnCompletion: hEvent is {hEvent!r}; it must be None or "
                                             "an object with a set() method, such as a threading.Event.")
        if self._value >= Value:
            self._observe(self._value)
            if hEvent is not None:
                hEvent.set()
            return
        if hEvent is not None:
            self._events.append([Value, hEvent])
            return
        if threading.active_count() > 1 and self._wait_for_another_thread(Value):
            self._observe(self._value)
            return
        waiting = [q._label for q in self._device._queues if q._pending]
        because = (f"; {', '.join(waiting)} {'is' if len(waiting) == 1 else 'are'} blocked on a Wait"
                   if waiting else "")
        raise HResultError(
            E_FAIL,
            f"SetEventOnCompletion: {self._label} is at {self._value} and no submitted work will signal it to "
            f"{Value}{because}, so waiting with a NULL event would block forever"
            f"{'' if threading.active_count() == 1 else f' (no other thread did within {BLOCKING_WAIT_SECONDS:g} s)'}.")

    def _wait_for_another_thread(self, value):
        """Wait until another thread's Signal (CPU or queue) brings the fence to `value`; False after
        BLOCKING_WAIT_SECONDS, once no other thread is left alive, or when the device is removed."""
        changed = self._device._fence_changed
        deadline = time.monotonic() + BLOCKING_WAIT_SECONDS
        with changed:
            while self._value < value:
                left = deadline - time.monotonic()
                if left <= 0 or self._device._removed_reason is not None or threading.active_count() == 1:
                    return False
                changed.wait(min(left, 0.05))
        return True

    def GetCreationFlags(self):
        """ID3D12Fence1::GetCreationFlags: the D3D12_FENCE_FLAGS given to CreateFence."""
        return self._flags

    # ---- internal ------------------------------------------------------------------------------
    def _set(self, value, queue=None, cycle=0):
        """The fence takes `value`; from a queue Signal (at GPU `cycle` on its engine), remember it
        for observation and for GPU-side waits."""
        with self._device._lock:
            # the record first, then the value: a thread that sees the value (SetEventOnCompletion's fast path)
            # then observes this signal's submission as complete
            if queue is not None:
                self._signal_records.append([value, queue, queue._executed_serial])
                self._gpu_signals.append((value, cycle))
                if len(self._gpu_signals) > 64:
                    del self._gpu_signals[:-64]
            self._value = value
            self._device._fence_changed.notify_all()
        if self._events:
            reached = [entry for entry in self._events if entry[0] <= value]
            self._events = [entry for entry in self._events if entry[0] > value]
            if reached:
                self._observe(value)
            for _, event in reached:
                event.set()

    def _signal_cycle(self, value):
        """The GPU cycle at which a queue Signal took the fence to `value` or beyond (0 when the CPU
        did, or it is too old to matter)."""
        for signalled, cycle in self._gpu_signals:
            if signalled >= value:
                return cycle
        return 0

    def _observe(self, value):
        """The CPU learned the fence is at `value`: queue work signalled at or below it is complete. Under the
        device's lock: another thread's queue may be signalling this fence."""
        with self._device._lock:
            remaining = []
            for record in self._signal_records:
                signalled, queue, serial = record
                if signalled <= value:
                    queue._observed_serial = max(queue._observed_serial, serial)
                else:
                    remaining.append(record)
            self._signal_records = remaining


__all__ = ["ID3D12Fence"]
