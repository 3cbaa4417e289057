# C types of cu_caches.py (Cython pure-Python mode: the .py is the code, this file its declarations).
cimport cython

cdef bint COMPILED

@cython.locals(n=cython.Py_ssize_t, i=cython.Py_ssize_t, k=cython.Py_ssize_t, o=cython.Py_ssize_t,
               first=cython.Py_ssize_t, end=cython.Py_ssize_t, s=cython.longlong, seen=cython.longlong,
               w=cython.longlong, starts=cython.longlong[::1], fill=cython.longlong[::1],
               order=cython.longlong[::1], last=cython.longlong[::1])
cpdef walk_caches(cython.longlong[::1] ids, cython.uchar[::1] writes, cython.int[::1] owners,
                  cython.uchar[::1] skipped, Py_ssize_t owner_count, long long reach, bint after_write,
                  Py_ssize_t count, cython.uchar[::1] hits)
