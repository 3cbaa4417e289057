# C types of simd.py (Cython pure-Python mode: the .py is the code, this file its declarations).
cimport cython

from dmlemu.timing.compute_unit cimport ComputeUnit, WaitingRequest
from dmlemu.timing.events cimport Process
from dmlemu.timing.workgroup_dispatcher cimport WorkgroupDispatcher

# Step kinds (kernel_path.py), resume() results (events.py) and slot-group states, as C integers.
cdef long long ALU, SMEM, VMEM, LDS, BARRIER, WAIT_STEP, WAIT, DONE
cdef long long STORE, ATOMIC, ATOMIC_RETURN, PERMUTE_SLOT
cdef long long BLOCK, FIELDS, STEP_FIELDS, NOTHING, LATENCY
cdef bint COMPILED
cdef long long START, TAKE, SPLIT, NEXT_COHORT, WALK, SEND, ROOM, SENT, COHORT_END, ENDED


cdef class IssuePort:
    cdef public long long[::1] bounds
    cdef public Py_ssize_t size
    cdef public long long start

    @cython.locals(n=cython.Py_ssize_t, lo=cython.Py_ssize_t, hi=cython.Py_ssize_t,
                   mid=cython.Py_ssize_t, i=cython.Py_ssize_t, j=cython.Py_ssize_t, k=cython.Py_ssize_t,
                   removed=cython.Py_ssize_t, end=cython.longlong, left=cython.longlong,
                   first=cython.longlong, last=cython.longlong, bounds=cython.longlong[::1])
    cpdef long long book(self, long long now, long long t, long long cycles, long long stall=*) except? -1

    @cython.locals(n=cython.Py_ssize_t, i=cython.Py_ssize_t, j=cython.Py_ssize_t, bounds=cython.longlong[::1])
    cpdef Py_ssize_t drop(self, long long now) except -1

    @cython.locals(old=cython.longlong[::1], grown=cython.longlong[::1], n=cython.Py_ssize_t,
                   j=cython.Py_ssize_t)
    cpdef Py_ssize_t make_room(self, long long now) except -1


cdef class Simd:
    cdef public ComputeUnit cu
    cdef public long long index, free_at, busy_cycles, last_store, barrier_cycles
    cdef public list group_slots, groups
    cdef public IssuePort port


cdef class CohortWork:
    cdef public WorkgroupDispatcher dispatcher
    cdef public dict path_costs, schedules
    cdef public object traffic, recorder
    cdef public dict blocks, lds_sums, atomic_rows
    cdef public long long atomic_units
    cdef public long long sector_bytes, costs_at
    cdef public long long l0_latency, tlb_miss_cycles, walk_cycles, far_cycles
    cdef public long long l1_latency
    cdef public bint segments, memory_rows, cu_side
    cdef public object rows_buffer
    cdef public long long[::1] rows
    cdef public Py_ssize_t nrows

    @cython.locals(key=cython.longlong, records=list, record=list, bare=bint, kind=cython.longlong)
    cpdef tuple schedule(self, long long path_id, long long waves)

    @cython.locals(sums=object)
    cpdef long long lds_passes(self, long long slot, long long first, long long count) except? -1

    cpdef list atomic_operations(self, long long slot, long long first, long long count)

    @cython.locals(k=cython.longlong, block=cython.longlong, key=cython.longlong, rows=object,
                   at=cython.longlong)
    cpdef list costs(self, long long slot, long long first, long long count)

    @cython.locals(at=cython.Py_ssize_t)
    cpdef wave_group(self, long long cu, long long simd, long long group, long long first_wave, long long waves,
                     long long start, long long end, long long alu_cycles)


cdef class SlotGroup(Process):
    cdef public Simd simd
    cdef public ComputeUnit cu
    cdef public IssuePort port
    cdef public list pieces
    cdef public long long[::1] steps, loads
    cdef public Py_ssize_t nloads
    cdef public CohortWork work
    cdef public WorkgroupDispatcher dispatcher
    cdef public long long group, slots, state, first, count, piece, path_id, first_wave, waves, begin, busy
    cdef public Py_ssize_t at, end
    cdef public long long schedule_key, t, issued, done
    cdef public list costs
    cdef public Py_ssize_t cost_at
    cdef public WaitingRequest request

    @cython.locals(state=cython.longlong, start_at=cython.longlong, key=cython.longlong,
                   resume_at=cython.longlong)
    cpdef long long resume(self, long long now) except? -3

    @cython.locals(t=cython.longlong, end=cython.Py_ssize_t, port=IssuePort,
                   work=CohortWork, steps=cython.longlong[::1], segments=bint, loads=cython.longlong[::1],
                   at=cython.Py_ssize_t, count=cython.longlong, issue=cython.longlong, stall=cython.longlong,
                   then=cython.longlong, n=cython.Py_ssize_t, start=cython.longlong, k=cython.Py_ssize_t,
                   j=cython.Py_ssize_t)
    cpdef long long walk(self, long long now) except? -2

    @cython.locals(cu=ComputeUnit, work=CohortWork, steps=cython.longlong[::1], at=cython.Py_ssize_t,
                   latency=cython.longlong, costs=list, k=cython.Py_ssize_t, lines=cython.longlong,
                   hits=cython.longlong, passes=cython.longlong, arrive=cython.longlong, sectors=cython.longlong,
                   is_write=bint, sector_bytes=cython.longlong, ic_reads=cython.longlong, dram_reads=cython.longlong,
                   ic_bytes=cython.longlong, dram_bytes=cython.longlong, host=cython.longlong,
                   activations=cython.longlong, done=cython.longlong, ready=cython.longlong,
                   hop=cython.longlong)
    cpdef long long send(self, long long now) except? -1

    @cython.locals(work=CohortWork, steps=cython.longlong[::1], at=cython.Py_ssize_t, access=cython.longlong,
                   is_lds=bint, is_write=bint, done=cython.longlong, k=cython.Py_ssize_t)
    cpdef sent(self, long long now)

    @cython.locals(loads=cython.longlong[::1], grown=cython.longlong[::1], n=cython.Py_ssize_t,
                   i=cython.Py_ssize_t, j=cython.Py_ssize_t)
    cpdef add_load(self, long long done)
