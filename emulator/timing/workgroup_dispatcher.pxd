# C types of workgroup_dispatcher.py (Cython pure-Python mode: the .py is the code, this file its declarations).
cimport cython


cdef class WorkgroupDispatcher:
    cdef public long long total, per_group, launch_cycles, launchers, launch_carry, next_wave, next_launch
    cdef public long long slot_cycles
    cdef public long long handed_out, _path0, share
    cdef public object wave_path, exceptions, _first_exception, _last_exception

    @cython.locals(units=cython.longlong)
    cpdef spread(self, long long slot_groups, long long unit=*)

    @cython.locals(first=cython.longlong, count=cython.longlong, groups=cython.longlong, start=cython.longlong,
                   spent=cython.longlong)
    cpdef take(self, long long now, long long slots)

    cpdef list split_by_path(self, long long first, long long count)
