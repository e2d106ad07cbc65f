"""A chunk's blocks of games spread over threads: serial `nogil` kernels, driven from Python.

Each game's batch kernel plays a range of blocks, block b being games
b*n//nblocks .. (b+1)*n//nblocks - 1 with its own scratch and its own row of the
aggregate, so blocks never share memory they write. A serial kernel compiles once;
a ``parallel=True`` one also compiled its prange body as a gufunc with wrappers, each
of which re-optimised the whole game below it (the batch kernel was the costliest
compile of every game). Threads release the GIL inside the kernel, so the blocks run
in parallel as prange ran them; a thread takes the next block when it finishes one.

The thread count is numba's (`numba.get_num_threads()`, set by the runner), so
`--threads` means the same as before and a 1-thread run uses no pool at all.
"""
from __future__ import annotations

import concurrent.futures as cf
import functools
import threading

_lock = threading.Lock()


@functools.lru_cache(maxsize=8)
def _pool(threads: int) -> cf.ThreadPoolExecutor:
    return cf.ThreadPoolExecutor(threads, thread_name_prefix="simkit-blocks")


def run_blocks(play_blocks, nblocks: int) -> None:
    """Call ``play_blocks(b0, b1)`` over blocks 0..nblocks-1 on numba's thread count.

    ``play_blocks`` is a jitted ``nogil`` kernel (closed over its arrays) that plays
    blocks b0..b1-1; its results are in the arrays it writes, so the order the
    threads finish in changes nothing."""
    import numba
    threads = min(numba.get_num_threads(), nblocks)
    if threads <= 1:
        play_blocks(0, nblocks)
        return
    with _lock:
        pool = _pool(threads)
    for f in [pool.submit(play_blocks, b, b + 1) for b in range(nblocks)]:
        f.result()
