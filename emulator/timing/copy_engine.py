"""The copy engine: times CopyBufferRegion / CopyResource (the bytes move functionally first).

One per GPU. A copy reads and writes its bytes through DRAM: it costs a setup of launch_cycles / 4
plus the time to stream 2 x bytes at the DRAM bandwidth (or the engine's own limit, when the
preset sets copy_bytes_per_cycle), plus one DRAM read/write turnaround per batch of written bytes
(as in timing/memory_system.py), plus one DRAM latency. On a COPY queue the stream shares DRAM
with the compute units' requests (memory_system.DramServer: half the bus each while both move
bytes), so it can end later than `cycles` says (gpu.py).

A copy from or to host memory (an UPLOAD or READBACK heap of a discrete GPU: gpu.py knows which) streams
over the host link instead (memory_system.HostLink): its bytes cross the link at the preset's measured
rate, in one direction (both, full duplex, for host to host), and the last byte lands one link latency
later; the device side's DRAM writes or reads (a few percent of DRAM's rate) are not charged. The setup
is the same. A UMA preset has no link: its copies all go through DRAM.
"""


class CopyEngine:
    def __init__(self, preset):
        self.preset = preset

    def setup_cycles(self):
        return self.preset.launch_cycles // 4

    def stream_cycles(self, num_bytes):
        """Cycles the copy's bytes hold the DRAM bus, alone (both directions, turnarounds included)."""
        p = self.preset
        moved = 2 * num_bytes
        stream = -(-moved * p.clock_hz // p.dram_bytes_per_second)
        if p.copy_bytes_per_cycle:
            stream = max(stream, -(-moved // p.copy_bytes_per_cycle))
        if p.dram_turnaround_cycles:
            stream += num_bytes // p.dram_write_batch_bytes * p.dram_turnaround_cycles
        return stream

    def host_stream_cycles(self, num_bytes):
        """Cycles the copy's bytes take on one direction of the host link, alone."""
        p = self.preset
        return -(-num_bytes * p.clock_hz // p.host_link_effective_bytes_per_second())

    def host_cycles(self, num_bytes):
        """A host-memory copy's cycles alone: setup, the link's stream, the link's latency."""
        if not num_bytes:
            return self.setup_cycles()
        return self.setup_cycles() + self.host_stream_cycles(num_bytes) + self.preset.host_link_latency_cycles

    def latency_cycles(self, num_bytes):
        return self.preset.dram_latency_cycles if num_bytes else 0

    def cycles(self, num_bytes):
        """The copy's cycles alone: setup, stream, latency."""
        return self.setup_cycles() + self.stream_cycles(num_bytes) + self.latency_cycles(num_bytes)
