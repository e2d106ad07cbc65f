"""Changes to how numba starts, made as its modules are first imported.

simkit must not import numba before a command needs a kernel (`simkit games` and `rules` need
none), so what it changes in numba waits for the numba module concerned: ``around_import(name,
before, after)`` runs ``before()`` just before module ``name`` is first executed and ``after(module)``
just after. Two users:

- ``simkit.engine.cache`` puts simkit's cache locator into ``numba.core.caching``.
- ``skip_blas_probe`` below: numba's ``numba.np.arraymath`` probes for a BLAS when it is imported (the
  first kernel a process loads), by importing ``scipy.linalg``: 0.1 s of every command's start, a
  tenth of a one-game run. No simkit kernel calls BLAS (``np.dot``, ``np.linalg``), so the probe is
  told there is none. Its answer is only read by a jitted ``np.dot`` of two vectors, which then sums
  in a loop; numba's linear algebra still imports scipy itself when it compiles a call that needs it.
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys


class _Around(importlib.abc.MetaPathFinder):
    """Runs ``before`` and ``after`` around the first execution of module ``name`` (then leaves)."""

    def __init__(self, name, before, after):
        self.name, self.before, self.after = name, before, after

    def find_spec(self, name, path, target=None):
        if name != self.name:
            return None
        sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None:
            return spec
        exec_module = spec.loader.exec_module

        def exec_around(module):
            undo = self.before()
            try:
                exec_module(module)
            finally:
                undo()
            self.after(module)
        spec.loader.exec_module = exec_around
        return spec


def around_import(name: str, before=None, after=None) -> None:
    """Run ``before()`` (which returns an undo function) and ``after(module)`` around the first import of
    module ``name``; ``after`` at once if it is imported already (``before`` is then too late). Idempotent
    per module name."""
    before = before or (lambda: (lambda: None))
    after = after or (lambda module: None)
    module = sys.modules.get(name)
    if module is not None:
        after(module)
    elif not any(isinstance(f, _Around) and f.name == name for f in sys.meta_path):
        sys.meta_path.insert(0, _Around(name, before, after))


def _no_blas():
    raise ImportError("simkit: numba's BLAS probe skipped (simkit/engine/imports.py)")


def _answer_no_blas():
    linalg = importlib.import_module("numba.np.linalg")
    probe = getattr(linalg, "ensure_blas", None)
    if probe is None:           # another numba: leave its probe alone
        return lambda: None
    linalg.ensure_blas = _no_blas

    def undo():
        linalg.ensure_blas = probe
    return undo


def skip_blas_probe() -> None:
    """Answer numba's import-time BLAS probe with "none" (module docstring)."""
    around_import("numba.np.arraymath", before=_answer_no_blas)
