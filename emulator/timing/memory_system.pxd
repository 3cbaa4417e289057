# C types of memory_system.py (Cython pure-Python mode: the .py is the code, this file its declarations).
# Byte-time quantities are 64-bit: physics.py runs a device interpreted where they could overflow.
cimport cython

cdef bint COMPILED


cdef class FifoServer:
    cdef public long long units_per_byte, units_per_cycle, free_units, refresh_period_units, refresh_window_units
    cdef public long long busy_cycles, bytes, start
    cdef public bint stream_open

    @cython.locals(end=cython.longlong)
    cpdef tuple serve(self, long long now, long long num_bytes)

    @cython.locals(bps=cython.longlong, start_units=cython.longlong, end_units=cython.longlong,
                   start=cython.longlong, end=cython.longlong, period=cython.longlong, window=cython.longlong,
                   work=cython.longlong, k=cython.longlong, base=cython.longlong, free=cython.longlong,
                   j=cython.longlong)
    cpdef long long finish(self, long long now, long long num_bytes) except? -1

    cpdef long long shared_end(self, long long start_units, long long end_units) except? -1


cdef class DramServer(FifoServer):
    cdef public long long write_batch_bytes, turnaround_cycles, pending_write_bytes, turnarounds, shared_cycles
    cdef public bint read_since_drain
    cdef public long long stream_units_start, stream_units_end
    cdef public long long write_queue_bytes, queued_write_bytes, write_waits, left_bytes
    cdef public long long[::1] queue_leaves, queue_totals
    cdef public Py_ssize_t queue_head, queue_tail

    @cython.locals(start_units=cython.longlong)
    cpdef tuple open_stream(self, long long now, long long num_bytes, long long cycles)

    @cython.locals(work=cython.longlong, s0=cython.longlong, e0=cython.longlong, x=cython.longlong,
                   rest=cython.longlong, remain=cython.longlong)
    cpdef long long shared_end(self, long long start_units, long long end_units) except? -1

    @cython.locals(end=cython.longlong, pending=cython.longlong)
    cpdef tuple serve_mixed(self, long long now, long long num_bytes, long long write_bytes)

    @cython.locals(head=cython.Py_ssize_t, tail=cython.Py_ssize_t, enter=cython.longlong, excess=cython.longlong,
                   target=cython.longlong, lo=cython.Py_ssize_t, hi=cython.Py_ssize_t, mid=cython.Py_ssize_t,
                   leaves=cython.longlong[::1], totals=cython.longlong[::1])
    cpdef long long write_room(self, long long now, long long write_bytes, long long end) except? -1

    @cython.locals(n=cython.Py_ssize_t)
    cpdef Py_ssize_t make_queue_room(self) except -1


cdef class HostLink:
    cdef public FifoServer to_device, to_host
    cdef public long long latency

    @cython.locals(start=cython.longlong, end=cython.longlong)
    cpdef tuple transfer(self, long long now, long long num_bytes, bint to_host)


cdef class MemorySystem:
    cdef public DramServer dram
    cdef public HostLink host_link
    cdef public FifoServer l2, infinity_cache, activation
    cdef public long long dram_latency, l2_latency, ic_latency, row_hit_latency, row_miss_cycles
    cdef public long long atomic_units, atomic_ops
    cdef public list atomic_free
    cdef public object dram_log, host_log

    @cython.locals(done=cython.longlong, unit=cython.Py_ssize_t, n=cython.longlong, start=cython.longlong,
                   end=cython.longlong)
    cpdef long long atomic(self, long long now, list operations) except? -1

    @cython.locals(end=cython.longlong, done=cython.longlong, start=cython.longlong, room=cython.longlong,
                   ready=cython.longlong, write_bytes=cython.longlong)
    cpdef long long request(self, long long now, long long l2_bytes, long long ic_bytes, long long dram_bytes,
                            bint is_write, long long ic_read_bytes=*, long long dram_read_bytes=*,
                            long long host_bytes=*, long long activations=*) except? -1
