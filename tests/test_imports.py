"""simkit/engine/imports.py: numba's import-time BLAS probe is skipped (0.1 s of every command's start)
without taking BLAS from a kernel that needs it; a cached kernel loads without numba refreshing its whole
target context, and a compile after it still finds every implementation."""
import subprocess
import sys
import textwrap


def _run(code):
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout.split()


def test_first_kernel_does_not_import_scipy_linalg():
    # the first kernel a process compiles or loads sets up numba's target, which imports
    # numba.np.arraymath; its BLAS probe would import scipy.linalg
    out = _run("""
        import sys
        import simkit.engine
        from numba import njit

        @njit
        def f(x):
            return x + 1

        print(f(1), "scipy.linalg" in sys.modules)
    """)
    assert out == ["2", "False"]


def test_blas_still_loads_for_a_kernel_that_needs_it():
    out = _run("""
        import sys
        import numpy as np
        import simkit.engine
        from numba import njit

        @njit
        def vdot(a, b):
            return np.dot(a, b)

        @njit
        def matmul(a, b):
            return np.dot(a, b)

        import numba.np.linalg
        m = matmul(np.eye(3), np.full((3, 3), 2.0))
        print(vdot(np.arange(3.0), np.arange(3.0)), m.sum(), "scipy.linalg" in sys.modules,
              numba.np.linalg.ensure_blas.__module__)
    """)
    assert out == ["5.0", "18.0", "True", "numba.np.linalg"]


def test_around_import_runs_after_at_once_for_a_loaded_module():
    from simkit.engine.imports import around_import
    seen = []
    around_import("json", after=seen.append)
    import json
    assert seen == [json]


KERNELS = '''
import numpy as np
from numba import njit


@njit(cache=True)
def cumulative(n):
    out = np.zeros(n, dtype=np.int64)     # an allocation: the loaded kernel needs numba's runtime (NRT)
    for i in range(1, n):
        out[i] = out[i - 1] + i
    return out
'''


def test_a_cached_kernel_loads_without_refreshing_numbas_target(tmp_path):
    # loading a cached kernel no longer imports every implementation numba has (numba.typed's among them,
    # 0.06 s of a command's start); a compile afterwards in the same process still finds them all
    (tmp_path / "kernels_mod.py").write_text(KERNELS)
    env = {"NUMBA_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(tmp_path)}
    code = """
        import os, sys
        os.environ.update({env!r}); sys.path.insert(0, os.environ["PYTHONPATH"])
        import numpy as np
        import simkit.engine
        from kernels_mod import cumulative
        print(int(cumulative(5).sum()), len(cumulative.stats.cache_hits), "numba.typed.typeddict" in sys.modules)
        from numba import njit, types
        from numba.typed import Dict

        @njit
        def counts(xs):
            d = Dict.empty(key_type=types.int64, value_type=types.int64)
            for x in xs:
                d[x] = d.get(x, 0) + 1
            return len(d), np.sort(xs)[0]

        print(*counts(np.array([3, 1, 3, 2])))
    """.format(env=env)
    cold = _run(code)      # compiles cumulative into the cache
    warm = _run(code)      # loads it
    assert cold == ["20", "0", "True", "3", "1"]
    assert warm == ["20", "1", "False", "3", "1"]
