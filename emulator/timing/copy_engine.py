"""The copy engine: times CopyBufferRegion / CopyResource (the bytes move functionally first).

One per GPU. A copy reads and writes its bytes through DRAM: it costs a setup of launch_cycles / 4
plus the time to stream 2 x bytes at the DRAM bandwidth (or the engine's own limit, when the
preset sets copy_bytes_per_cycle), plus one DRAM read/write turnaround per batch of written bytes
(as in timing/memory_system.py), plus one DRAM latency.
"""


class CopyEngine:
    def __init__(self, preset):
        self.preset = preset

    def cycles(self, num_bytes):
        p = self.preset
        moved = 2 * num_bytes
        stream = -(-moved * p.clock_hz // p.dram_bytes_per_second)
        if p.copy_bytes_per_cycle:
            stream = max(stream, -(-moved // p.copy_bytes_per_cycle))
        if p.dram_turnaround_cycles:
            stream += num_bytes // p.dram_write_batch_bytes * p.dram_turnaround_cycles
        return p.launch_cycles // 4 + stream + (p.dram_latency_cycles if num_bytes else 0)
