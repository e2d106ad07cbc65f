"""simkit/engine/imports.py: numba's import-time BLAS probe is skipped (0.1 s of every command's start)
without taking BLAS from a kernel that needs it."""
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
