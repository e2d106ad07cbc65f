"""Where a whole `simkit` command's wall time goes: python scripts/run_phases.py run martian_chess --games 1000000 ...

Runs the command line given (as `simkit ARGS`) in this process through the console entry point and prints,
on stderr, the seconds since this script started at each phase: imports done (the runner, so numba), the run
session set up, the first chunk counted (numba's target set up and the first kernel loaded), the last chunk
counted, the run finished (summary written), then the start of exit (the last atexit handler) -- the exit
itself is what the caller's wall time has beyond it. Also the total time inside `play_chunk` (the kernels).
"""
import atexit
import sys
import time

T0 = time.perf_counter()
marks = []


def mark(name):
    marks.append((name, time.perf_counter() - T0))


# registered first, so it runs last of every atexit handler
atexit.register(lambda: print(" ".join(f"{n}={t:.3f}" for n, t in marks) + f" exit={time.perf_counter() - T0:.3f}",
                              file=sys.stderr))

import simkit.backends.local as local  # noqa: E402
import simkit.engine.runner as runner  # noqa: E402

mark("imports")
Session = runner.RunSession
session_init, session_step, session_finish = Session.__init__, Session.step, Session.finish
counted = [0]
in_chunks = [0.0]


def init(self, *a, **k):
    session_init(self, *a, **k)
    mark("session")


def step(self):
    r = session_step(self)
    counted[0] += 1
    if counted[0] == 1:
        mark("first_chunk")
    if r is None:
        mark("last_chunk")
    return r


def finish(self, **k):
    out = session_finish(self, **k)
    mark("finished")
    return out


play_chunk = local.play_chunk


def timed_chunk(*a, **k):
    t = time.perf_counter()
    try:
        return play_chunk(*a, **k)
    finally:
        in_chunks[0] += time.perf_counter() - t


runner.RunSession.__init__, runner.RunSession.step, runner.RunSession.finish = init, step, finish
local.play_chunk = timed_chunk
atexit.register(lambda: print(f"in play_chunk {in_chunks[0]:.3f}", file=sys.stderr))

if __name__ == "__main__":
    from simkit.cli import main
    sys.argv = ["simkit", *sys.argv[1:]]
    main()
