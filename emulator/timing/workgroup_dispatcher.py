"""The workgroup dispatcher: hands a dispatch's waves to SIMDs as wave slots free up (timing).

One per dispatch. Waves are handed out in dispatch order (workgroup 0's waves first). Starting a
workgroup costs one of the dispatcher's `workgroup_launchers` (one per shader engine / GPC where a
preset says so) `workgroup_launch_cycles`, so a wide GPU running a tiny kernel is limited by how fast
waves can be launched, not by its compute units. The launchers work in parallel: n workgroups take
n x launch_cycles / launchers cycles, the remainder carried in integers to the next hand-out. A SIMD asks for up to
its free slot count and gets a contiguous range of waves. For a kernel without LDS or barriers,
waves of one workgroup may land on different SIMDs (nothing ties them together); for one with
either, every slot group's slot count is a whole number of workgroups (command_processor.py's
workgroup_occupancy, Simd.begin_dispatch), so every range is whole workgroups and a workgroup's
waves stay in one cohort on one SIMD of one CU.

A small grid is spread, not packed: hardware's workgroup dispatcher (AMD's SPI, NVIDIA's GigaThread
engine) places workgroups round robin over the shader engines, their CUs and the CUs' SIMDs, so 144
one-wave workgroups on a 72-CU GPU run one wave per SIMD, not a full SIMD's worth of waves on each of
a few SIMDs (AMD, 'RDNA Architecture' whitepaper: the workload manager balances waves across the SIMDs;
Chips and Cheese's occupancy sweeps show a one-wave-per-SIMD kernel scaling with the SIMD count). Here
the slot groups ask in round-robin order (command_processor.py: slot group 0 of SIMD 0 of every CU,
then of SIMD 1, ...), and `spread` caps what one ask takes at the grid's fair share: its waves (whole
workgroups for a kernel with LDS or barriers) over the slot groups, rounded up. A grid that fills every
slot is handed out as before; a smaller one lands on as many SIMDs as it can.

A workgroup also holds its wave slots while it starts and ends on its compute unit: its waves are created
and their registers and IDs set up, and at its end its slots are released and the dispatcher told. The
preset's `workgroup_slot_cycles` is that time beyond the waves' own instructions; every hand-out's waves
start that many cycles after the slots asked (the launchers' rate above is a separate, GPU-wide limit,
and hand-outs on different CUs overlap). It bounds a kernel whose workgroups are short: gpu-stream's
init kernel, one store per thread, runs at the rate of workgroup turnover on a real H200 (presets.py).
Compiled by Cython where a C compiler is (workgroup_dispatcher.pxd; setup.py).
"""
import numpy as np


class WorkgroupDispatcher:
    """Hands a dispatch's waves out in order (see the module banner)."""

    def __init__(self, total_waves, waves_per_workgroup, launch_cycles, start_cycle, wave_path, launchers=1,
                 slot_cycles=0):
        self.total = total_waves
        self.per_group = waves_per_workgroup
        self.launch_cycles = launch_cycles
        self.launchers = launchers
        self.slot_cycles = slot_cycles  # a hand-out's waves start this long after its slots asked
        self.launch_carry = 0      # launcher-cycles already spent into the next whole cycle
        self.next_wave = 0
        self.next_launch = start_cycle
        self.handed_out = start_cycle
        self.wave_path = wave_path  # int array: path id of every wave
        self.share = total_waves    # the most waves one take() hands out (spread)
        # Most dispatches have one path (or one plus the tail wave's): the waves whose path
        # differs from wave 0's are few, so ranges without any are answered without NumPy.
        self.exceptions = np.flatnonzero(wave_path != wave_path[0]) if wave_path.size else wave_path
        # Speed: split_by_path runs once per cohort; these plain ints answer it without NumPy
        # scalars when the range holds no exception (a wave outside [first, last] has wave 0's path).
        self._path0 = int(wave_path[0]) if wave_path.size else 0
        self._first_exception = int(self.exceptions[0]) if self.exceptions.size else None
        self._last_exception = int(self.exceptions[-1]) if self.exceptions.size else None

    def spread(self, slot_groups, unit=1):
        """Cap each hand-out at the grid's fair share over `slot_groups` slot groups (see the banner), in
        multiples of `unit` waves (a whole workgroup for a kernel with LDS or barriers, else 1)."""
        if slot_groups > 0:
            units = -(-self.total // unit)
            self.share = unit * -(-units // slot_groups)

    def take(self, now, slots):
        """(start cycle, first wave, count) for a SIMD with `slots` free, or None when done."""
        if self.next_wave >= self.total:
            return None
        first = self.next_wave
        count = min(slots, self.share, self.total - first)
        self.next_wave = first + count
        # Workgroups whose first wave is in this range: each costs one launch.
        groups = -(-(first + count) // self.per_group) - -(-first // self.per_group)
        start = now if now > self.next_launch else self.next_launch
        if self.launchers == 1:
            self.next_launch = start + groups * self.launch_cycles
        else:
            spent = groups * self.launch_cycles + self.launch_carry
            self.next_launch = start + spent // self.launchers
            self.launch_carry = spent % self.launchers
        start += self.slot_cycles
        if self.next_wave >= self.total:
            self.handed_out = start    # the dispatch's last waves have a SIMD
        return start, first, count

    def split_by_path(self, first, count):
        """[(path id, first wave, count)] for a contiguous wave range, in wave order."""
        if self._first_exception is None or self._last_exception < first or self._first_exception >= first + count:
            return [(self._path0, first, count)]
        paths = self.wave_path[first:first + count]
        cuts = np.flatnonzero(np.diff(paths)) + 1
        bounds = [0, *cuts.tolist(), count]
        return [(int(paths[a]), first + a, b - a) for a, b in zip(bounds[:-1], bounds[1:])]
