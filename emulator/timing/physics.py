"""Which build of the timing units a device runs: compiled, or the same sources interpreted (timing).

One choice per device (CommandProcessor), for as long as it lives. The units (memory_system.py,
compute_unit.py, simd.py, workgroup_dispatcher.py, the CU-side caches' cu_caches.py, and events.py's
heap) are plain Python that Cython compiles in its pure-Python mode where a C compiler is (setup.py);
then `dmlemu.timing.<unit>` is the extension module. The interpreted build is the same .py files loaded as Python source.

The 64-bit guard: compiled, a server's byte-time quantities (memory_system.py) are C 64-bit
integers. They stay exact while every rate, in byte-time units per cycle or per byte, is below LIMIT
and the simulated time is below 2^60 units (over 2^36 cycles at the largest such rate): a device
whose preset has a rate at or above LIMIT runs the interpreted build, whose Python integers are
unbounded; a dispatch that would start past 2^60 units on a compiled device is refused with an
OverflowError (command_processor.py) rather than computed wrongly. DMLEMU_TIMING_PHYSICS=interpreted
runs every device interpreted.

Stale builds: a compiled unit older than its .py or .pxd (the source was edited and not rebuilt) would
run the old code. Then every device runs the interpreted units, which are the sources as they are, and a
RuntimeWarning names the file and how to rebuild (`make`, or `pip install -e .`).
"""
from array import array
import contextlib
import gc
import importlib
import importlib.machinery
import importlib.util
import math
import os
import sys
import warnings

UNITS = ("memory_system", "compute_unit", "simd", "workgroup_dispatcher", "cu_caches")
LIMIT = 1 << 24      # largest byte-time rate the compiled build takes (cycles < 2^36 then stay below 2^60 units)
START_LIMIT = 1 << 60   # byte-time units a dispatch may start at on the compiled build

_interpreted = None
_warned = set()


def compiled(module):
    """Whether `module` is an extension module (Cython built it) rather than Python source."""
    return compiled_file(module.__file__)


def compiled_file(path):
    """Whether a module loaded from `path` (its __file__) is an extension module. Each unit asks it of
    itself at import (its COMPILED) and picks its containers by it (zeros()): one process may hold
    compiled and interpreted copies of the units (and of events.py: interpreted())."""
    return path.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))


def zeros(n, compiled):
    """`n` zero integers in the container a unit of that build indexes fastest. Speed: compiled, a
    64-bit array (the buffer of a typed memoryview: C integers); interpreted, a list (reading an item
    is one specialised bytecode; an array's item is looked up and built into an int object)."""
    return array("q", bytes(8 * n)) if compiled else [0] * n


def compacted(first, second, head, tail, compiled):
    """A queue held as entries head .. tail - 1 of two parallel arrays (a unit's miss queue, DRAM's write
    queue), moved to the front to make room at its tail: (first, second) to use from then on, whose
    entries are 0 .. tail - head - 1; twice as long (from zeros(..., compiled)) when the entries filled
    more than a quarter of them. Not a hot path: it runs once per at least three quarters of the arrays'
    length of entries added."""
    n = tail - head
    into_first, into_second = first, second
    if 4 * n >= len(first):
        into_first, into_second = zeros(2 * len(first), compiled), zeros(2 * len(first), compiled)
    for j in range(n):
        into_first[j] = first[head + j]
        into_second[j] = second[head + j]
    return into_first, into_second


def rates(preset):
    """The byte-time rates of the preset's servers: units per cycle and units per byte of each."""
    out = []
    servers = [preset.dram_bytes_per_second, preset.l2_bytes_per_cycle * preset.clock_hz]
    if preset.infinity_cache_bytes:
        servers.append(preset.infinity_cache_bytes_per_second)
    if preset.host_link_effective_bytes_per_second() and not preset.uma:
        servers.append(preset.host_link_effective_bytes_per_second())    # memory_system.HostLink
    if preset.dram_activations_per_second():
        servers.append(preset.dram_activations_per_second())   # memory_system's activation server
    for bytes_per_second in servers:
        common = math.gcd(preset.clock_hz, bytes_per_second)
        out += [preset.clock_hz // common, bytes_per_second // common]
    return out


def fits_64_bits(preset):
    """Whether the compiled build computes this preset's byte-time exactly (see the banner)."""
    return max(rates(preset)) < LIMIT


def stale_sources(module_file):
    """The sources (.py, .pxd beside it) modified after the compiled module `module_file` was built."""
    built_at = os.path.getmtime(module_file)
    folder, name = os.path.dirname(module_file), os.path.basename(module_file).split(".")[0]
    sources = [os.path.join(folder, name + suffix) for suffix in (".py", ".pxd")]
    return [path for path in sources if os.path.exists(path) and os.path.getmtime(path) > built_at]


def _stale(built):
    """Whether any compiled unit (events included) is older than its sources; warns once per file."""
    stale = []
    for module in [*built.values(), importlib.import_module("dmlemu.timing.events")]:
        if compiled(module):
            stale += stale_sources(module.__file__)
    for path in stale:
        if path not in _warned:
            _warned.add(path)
            warnings.warn(f"{path} changed after its compiled module was built; the timing units run "
                          f"interpreted (same results, slower) until they are rebuilt (make, or pip install -e .)",
                          RuntimeWarning, stacklevel=3)
    return bool(stale)


def modules(preset):
    """The unit modules a device of this preset runs: {name: module}, compiled where they were built,
    are not older than their sources and the preset fits 64 bits, else interpreted."""
    wanted = os.environ.get("DMLEMU_TIMING_PHYSICS", "").lower()
    built = {name: importlib.import_module(f"dmlemu.timing.{name}") for name in UNITS}
    if not any(compiled(m) for m in built.values()):
        return built
    if wanted != "interpreted" and fits_64_bits(preset) and not _stale(built):
        return built
    return interpreted()


def interpreted():
    """The unit modules and the event heap loaded from their .py sources, whether or not compiled ones
    were built: {name: module}, events.py's copy under "events" (command_processor drives the units
    with its EventHeap). While the units load, `dmlemu.timing.events` is that copy, so they subclass
    its Process and not the compiled one. Speed: CPython specialises no attribute access on a Python
    class whose base Cython compiled (every `self.field` of a slot group or compute unit would be a
    generic lookup, about 3x slower), and the compiled heap would call each resume() through Cython's
    lookup of a Python override."""
    global _interpreted
    if _interpreted is None:
        loaded = {}
        folder = os.path.dirname(os.path.abspath(__file__))
        events = importlib.import_module("dmlemu.timing.events")
        try:
            for name in ("events", "workgroup_dispatcher", "memory_system", "compute_unit", "simd", "cu_caches"):
                qualified = f"dmlemu.timing._interpreted_{name}"
                loader = importlib.machinery.SourceFileLoader(qualified, os.path.join(folder, f"{name}.py"))
                spec = importlib.util.spec_from_loader(qualified, loader)
                module = importlib.util.module_from_spec(spec)
                sys.modules[qualified] = module
                loader.exec_module(module)
                loaded[name] = module
                if name == "events":
                    sys.modules["dmlemu.timing.events"] = module     # what the units below import
        finally:
            sys.modules["dmlemu.timing.events"] = events
        _interpreted = loaded
    return _interpreted


@contextlib.contextmanager
def collector_paused():
    """Speed: Python's cyclic garbage collector paused for a block, then as it was. A timed dispatch
    allocates hundreds of thousands of small tuples and lists (a few per event), a trace export one dict
    per event kept to the end; none of them is in a reference cycle, yet every 700 allocations would start
    a collection that walks the young objects (and now and then every live one): about 7 % of a dispatch,
    half an export of 200,000 events. Reference counting frees them as before."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
