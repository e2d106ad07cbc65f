"""The Dask backend: chunks run on the workers of a Dask cluster.

Each chunk is one task calling `simkit.engine.chunk.play_chunk` (a plain,
importable function: never a numba dispatcher), so a worker plays exactly the
games a local run plays and the records are identical. Results come back as
they complete (`as_completed`) and the runner writes and tallies each one at
once; at most ``window`` chunks are in flight, so neither the workers nor this
process ever hold the whole run.

    with make_backend("dask", workers=2, threads=1) as backend:
        result = simulate(scenario, config, backend=backend)

- ``make_backend("dask")`` starts a LocalCluster of ``workers`` processes, each
  running one task at a time on ``threads`` numba threads (the worker's
  ``NUMBA_NUM_THREADS``); ``make_backend("dask", scheduler="tcp://host:8786")``
  uses an existing cluster (see docs/distributed.md).
- Every worker is warmed once per game (a one-game chunk), which compiles or loads
  the cached kernels before the real chunks are timed.
- A task whose worker dies is re-run elsewhere by the scheduler (and a task that
  raises is retried ``retries`` times); games depend only on (seed, game index),
  so a re-run chunk has the same records.
- Runs may share the backend, even interleaved (`compare` steps two runs in
  lockstep): each run's iterator cancels its own chunks still in flight when it
  is closed. ``close()`` (what `simulate` calls) keeps the cluster;
  ``shutdown()`` (or leaving the ``with`` block) closes the client and any
  cluster this backend started, so one backend serves all runs of a sweep.

Dask is optional: ``pip install 'simkit[dask]'``.
"""
from __future__ import annotations

import logging
import os
import time
import uuid

from simkit import progress
from simkit.engine.chunk import play_chunk
from simkit.errors import SimkitError, UsageError

BACKENDS = ("local", "dask")
DEFAULT_WORKERS = 2


class DaskError(SimkitError):
    """The cluster could not run the chunks (lost workers, unreachable scheduler, ...)."""


def _import_distributed():
    try:
        import distributed
    except ImportError:
        raise UsageError("the dask backend needs dask.distributed: pip install 'simkit[dask]'") from None
    return distributed


def _max_workers() -> int:
    return 2 * (os.cpu_count() or 1)


def _max_threads() -> int:
    import numba
    return int(numba.config.NUMBA_NUM_THREADS)


def make_backend(backend: str | None = "local", scheduler: str | None = None, workers: int | None = None,
                 threads: int | None = None, **kwargs):
    """The backend the CLI options ask for (``--backend``, ``--scheduler``, ``--workers``, ``--threads``).

    ``scheduler`` implies the dask backend. ``threads`` is numba threads per process:
    for local it is also passed to `simulate`; for a LocalCluster it is each worker's
    ``NUMBA_NUM_THREADS`` (default: cores / workers); with ``scheduler`` the workers
    were started with their own (give none). Use the result as a context manager.
    """
    from simkit.backends.local import LocalBackend
    if backend is None:
        backend = "dask" if scheduler else "local"
    if backend not in BACKENDS:
        raise UsageError(f"--backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    if backend == "local":
        if scheduler is not None or workers is not None:
            raise UsageError("--scheduler and --workers need --backend dask")
        return LocalBackend()
    if scheduler is not None:
        if workers is not None:
            raise UsageError("--workers starts a local cluster; with --scheduler the cluster's workers are used "
                             "(start more with `dask worker`)")
        if threads is not None:
            raise UsageError("--threads cannot reach the workers of an existing cluster; start them with "
                             "NUMBA_NUM_THREADS=N (see docs/distributed.md)")
        return DaskBackend(scheduler=scheduler, **kwargs)
    workers = DEFAULT_WORKERS if workers is None else workers
    top = _max_workers()
    if not isinstance(workers, int) or not 1 <= workers <= top:
        raise UsageError(f"--workers must be from 1 to {top} on this machine, got {workers} "
                         f"(use --scheduler for a bigger cluster)")
    if threads is None:
        threads = max(1, min(_max_threads(), (os.cpu_count() or 1) // workers))
    if not 1 <= threads <= _max_threads():
        raise UsageError(f"--threads must be from 1 to {_max_threads()} on this machine, got {threads}")
    return DaskBackend(workers=workers, threads=threads, **kwargs)


class _sigint_ignored_in_children:
    """Worker processes started inside inherit SIGINT ignored (Python keeps an inherited SIG_IGN),
    so Ctrl-C on a terminal interrupts the run here, cleanly, instead of every worker printing
    a KeyboardInterrupt traceback. This process's own handler is restored on exit (so Ctrl-C
    is ignored only during the second or so the cluster takes to start)."""

    def __enter__(self):
        import signal
        try:
            self.old = signal.signal(signal.SIGINT, signal.SIG_IGN)
        except ValueError:   # not the main thread: leave signals alone
            self.old = None

    def __exit__(self, *exc):
        import signal
        if self.old is not None:
            signal.signal(signal.SIGINT, self.old)


class DaskBackend:
    name = "dask"
    # seconds spent waiting for workers and loading (on a cold cache: compiling) the game's kernel on each,
    # which the runner leaves out of the games' time, as LocalBackend's
    setup_seconds = 0.0

    def __init__(self, scheduler: str | None = None, workers: int = DEFAULT_WORKERS, threads: int = 1,
                 window: int | None = None, retries: int = 2, connect_timeout: float = 10.0,
                 processes: bool = True):
        dist = _import_distributed()
        self.cluster = None
        self.retries = retries
        self._window = window
        self._warm: set = set()
        if scheduler is not None:
            if not isinstance(scheduler, str) or ":" not in scheduler:
                raise UsageError(f"--scheduler expects an address like tcp://HOST:8786, got {scheduler!r}")
            try:
                self.client = dist.Client(scheduler, timeout=connect_timeout, set_as_default=False)
            except (OSError, TimeoutError, ValueError) as e:
                raise DaskError(f"cannot reach the Dask scheduler at {scheduler}: {e}") from None
        else:
            env = {"NUMBA_NUM_THREADS": str(threads), "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
                   "OPENBLAS_NUM_THREADS": "1"}
            # processes=False (tests only): one in-process worker on this process's numba threads
            extra = {"env": env} if processes else {}
            with _sigint_ignored_in_children():
                self.cluster = dist.LocalCluster(n_workers=workers, threads_per_worker=1, processes=processes,
                                                 dashboard_address=":0", silence_logs=logging.CRITICAL, **extra)
            self.client = dist.Client(self.cluster, set_as_default=False)
        self.threads = threads if scheduler is None else None

    # -- context manager / lifetime -------------------------------------------------------
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.shutdown()

    def shutdown(self):
        """Close the client and the LocalCluster this backend started (idempotent)."""
        client, cluster = getattr(self, "client", None), self.cluster
        self.client = self.cluster = None
        for thing in (client, cluster):
            if thing is not None:
                try:
                    thing.close()
                except Exception:   # already gone (e.g. after Ctrl-C): nothing left to free
                    pass

    def close(self):
        """End of one run: nothing to do (each run cancels its own chunks still in flight
        when its iterator is closed), and the cluster stays up for the next run."""

    # -- the backend interface -------------------------------------------------------------
    def workers(self) -> dict:
        """Worker address -> number of task threads."""
        return dict(self.client.nthreads())

    def _wait_for_workers(self):
        try:
            self.client.wait_for_workers(1, timeout=60)
        except TimeoutError:
            raise DaskError(f"no Dask worker joined {self.client.scheduler.address} within 60 s; "
                            f"start some with `dask worker {self.client.scheduler.address}`") from None

    def warm(self, game, params, seed, first, policy_ids, snapshot_ply):
        """Compile or load the game's kernels on every worker once (a no-game chunk each)."""
        workers = self.workers()
        todo = [w for w in workers if (w, game) not in self._warm]
        futures = [self.client.submit(play_chunk, game, params, seed, 0, 0, first, policy_ids, snapshot_ply,
                                      workers=[w], allow_other_workers=True, pure=False,
                                      key=f"simkit-warm-{game}-{uuid.uuid4().hex[:8]}")
                   for w in todo]
        for w, f in zip(todo, futures):
            try:
                f.result()
                self._warm.add((w, game))
            except Exception:
                pass  # that worker died while warming: the scheduler sends its chunks elsewhere

    def map_chunks(self, game, params, seed, chunks, first, policy_ids, snapshot_ply):
        dist = _import_distributed()
        from distributed.client import FutureCancelledError
        chunks = list(chunks)
        if not chunks:
            return
        t = time.perf_counter()
        self._wait_for_workers()
        progress.run_started(game, sum(c for _, c in chunks), kernels=None)   # compiled on the workers
        self.warm(game, params, seed, first, policy_ids, snapshot_ply)
        self.setup_seconds += time.perf_counter() - t
        window = self._window or max(4, 2 * sum(self.workers().values()))
        run = uuid.uuid4().hex[:8]
        todo = iter(chunks)
        ac = dist.as_completed(loop=self.client.loop)
        live: set = set()

        def submit_next():
            nxt = next(todo, None)
            if nxt is None:
                return
            start, count = nxt
            f = self.client.submit(play_chunk, game, params, seed, start, count, first, policy_ids, snapshot_ply,
                                   key=f"simkit-{game}-{run}-{start}", pure=False, retries=self.retries)
            live.add(f)
            ac.add(f)

        try:
            for _ in range(window):
                submit_next()
            for f in ac:
                try:
                    item = f.result()
                except FutureCancelledError:
                    raise DaskError("a chunk was cancelled (the cluster shut down?)") from None
                except dist.KilledWorker as e:
                    raise DaskError(f"chunk {f.key} killed its workers repeatedly; giving up: {e}") from None
                live.discard(f)
                f.release()
                submit_next()
                progress.games_done(len(item[1]))
                yield item
        finally:  # finished, stopped early, interrupted or failed: drop what is still in flight
            if live and self.client is not None:
                try:
                    self.client.cancel(list(live))
                except Exception:
                    pass
