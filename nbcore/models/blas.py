"""BLAS's thread count while a model trains.

Training's matrix products are thin ((60000, 784) @ (784, 10) and the like) and mostly read memory: measured
on this machine (2 cores), two OpenBLAS threads were 2-10x slower than one whenever the other core was busy
(softmax regression), and an EM iteration at K = 10 took 25 % more CPU time with two (2.6 s against 3.4 s
for 30 iterations; 1.75 s of wall time against 2.5 s on a quiet machine). A server teaching a class is never
quiet, so training runs with one BLAS thread, through threadpoolctl when it is installed.
"""

from __future__ import annotations

import contextlib

try:
    from threadpoolctl import threadpool_limits
except ImportError:  # optional: without it BLAS keeps its own thread count
    threadpool_limits = None


def single_thread():
    """A context in which BLAS uses one thread (the whole process: threadpoolctl's limits are global)."""
    if threadpool_limits is None:
        return contextlib.nullcontext()
    return threadpool_limits(1, user_api="blas")
