# C types of events.py (Cython pure-Python mode: the .py is the code, this file its declarations).
cimport cython

cdef bint COMPILED

cdef class Process:
    cpdef long long resume(self, long long now) except? -3


cdef class Scheduler:
    cpdef start(self, Process process, long long now)
    cpdef wake(self, Process process, long long now)


cdef class EventHeap(Scheduler):
    cdef long long[::1] times, orders
    cdef list processes, queue
    cdef public long long size, scheduled

    @cython.locals(order=cython.longlong, i=cython.Py_ssize_t, parent=cython.Py_ssize_t, t=cython.longlong,
                   processes=list)
    cpdef push(self, long long time, long long priority, Process process)

    @cython.locals(last=cython.longlong, time=cython.longlong, process=Process, moved=Process,
                   n=cython.Py_ssize_t, i=cython.Py_ssize_t, child=cython.Py_ssize_t, t=cython.longlong,
                   order=cython.longlong, resume_at=cython.longlong, times=cython.longlong[::1],
                   orders=cython.longlong[::1], heap=list, queue=list)
    cpdef long long run(self, list processes, long long now) except? -3
