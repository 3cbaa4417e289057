"""ID3D12Debug: the D3D12 debug layer switch.

One process-wide switch, as in D3D12: D3D12GetDebugInterface().EnableDebugLayer() affects devices
created afterwards (each device copies it into `device._debug_layer`). The emulator always validates;
what the debug layer adds is messages: every misuse goes to the device's ID3D12InfoQueue
(info_queue.py, reached with QueryInterface), is printed to stderr unless muted, and, as the queue
breaks on errors by default, misuse that a void method (or a recording method) would only record —
device removal, a command list's error state, an Unmap without Map — also raises from the offending
call (D3D12DebugBreak, an HResultError; docs/INFO_QUEUE.md).
"""
_enabled = False


class ID3D12Debug:
    """ID3D12Debug / ID3D12Debug1."""

    def EnableDebugLayer(self):
        """Devices created from now on report misuse at the offending call."""
        global _enabled
        _enabled = True

    def SetEnableGPUBasedValidation(self, Enable):
        """Accepted for portability: the emulator validates resource states at execution always."""

    def SetEnableSynchronizedCommandQueueValidation(self, Enable):
        """Accepted for portability: the emulated queues are always synchronized."""


def D3D12GetDebugInterface(riid=None):
    """The debug interface (the C REFIID/void** pair becomes the return value)."""
    return ID3D12Debug()


def is_enabled():
    return _enabled


__all__ = ["D3D12GetDebugInterface", "ID3D12Debug"]
