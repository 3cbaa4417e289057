# C types of compute_unit.py (Cython pure-Python mode: the .py is the code, this file its declarations).
cimport cython

from dmlemu.timing.events cimport Process, Scheduler
from dmlemu.timing.memory_system cimport MemorySystem

cdef bint COMPILED


cdef class WaitingRequest:
    cdef public long long sectors, sent, l2, infinity_cache, dram, ic_reads, dram_reads, host, done, sent_at
    cdef public long long activations, hop
    cdef public bint is_write
    cdef public Process process


cdef class ComputeUnit(Process):
    cdef public long long index, capacity, chunk, lookups_per_cycle, front_end_free, sectors_in_flight
    cdef public long long lds_units_per_cycle, lds_units_per_pass, lds_free_units, lds_passes
    cdef public MemorySystem memory
    cdef public long long[::1] done_cycles, done_sectors
    cdef public Py_ssize_t head, tail
    cdef public object waiting
    cdef public Scheduler scheduler
    cdef public long long hit_bytes_per_cycle, hit_free_bytes

    @cython.locals(cycles=cython.longlong[::1], sectors=cython.longlong[::1], head=cython.Py_ssize_t,
                   tail=cython.Py_ssize_t)
    cpdef retire(self, long long now)

    @cython.locals(done=cython.longlong, i=cython.Py_ssize_t, cycles=cython.longlong[::1],
                   counts=cython.longlong[::1])
    cpdef long long send(self, long long now, long long sectors, bint is_write, long long l2,
                         long long infinity_cache, long long dram, long long ic_reads,
                         long long dram_reads, long long host, long long activations=*,
                         long long hop=*) except? -1

    @cython.locals(n=cython.Py_ssize_t)
    cpdef Py_ssize_t make_room(self) except -1

    @cython.locals(start=cython.longlong)
    cpdef long long lds_serve(self, long long now, long long passes) except? -1

    @cython.locals(start=cython.longlong)
    cpdef long long look_up(self, long long now, long long lines) except? -1

    @cython.locals(start=cython.longlong)
    cpdef long long hit_data(self, long long now, long long num_bytes) except? -1

    cpdef long long try_issue(self, long long now, long long sectors, bint is_write, long long l2,
                              long long infinity_cache, long long dram, long long ic_reads,
                              long long dram_reads, long long host, long long activations=*,
                              long long hop=*) except? -2

    @cython.locals(request=WaitingRequest)
    cpdef WaitingRequest wait_for_room(self, long long now, long long arrive, long long sectors, long long l2,
                                       long long infinity_cache, long long dram, long long ic_reads,
                                       long long dram_reads, long long host, bint is_write, Process process,
                                       long long activations=*, long long hop=*)

    @cython.locals(request=WaitingRequest, capacity=cython.longlong, chunk=cython.longlong,
                   sectors=cython.longlong, sent=cython.longlong, done=cython.longlong, left=cython.longlong,
                   free=cython.longlong, want=cython.longlong, end=cython.longlong, piece=cython.longlong)
    cpdef long long resume(self, long long now) except? -3

    @cython.locals(freed=cython.longlong, done=cython.longlong, i=cython.Py_ssize_t)
    cpdef long long time_until_free(self, long long needed) except? -1
