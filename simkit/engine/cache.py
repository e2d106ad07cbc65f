"""numba's on-disk cache, keyed on the kernel sources a compiled kernel can depend on.

numba stamps a cached kernel with its own file only. A kernel compiled from
``games/skorm/play.py`` also contains every jitted callee it calls and every
module constant it reads — from its game folder, ``simkit/engine/`` and
``simkit/policies.py`` — so editing one of those left the old machine code in
the cache, silently. Here every simkit kernel file is cached by a locator whose
stamp is a hash of

    simkit/engine/*.py + simkit/policies.py + the kernel file's own folder

(the only places a kernel's callees and constants may come from, by convention:
a game never calls another game's kernels). A changed stamp makes numba ignore
the old index (correctness), and the first process to see it deletes the folder's
stale ``*.nbi``/``*.nbc`` (no orphans pile up).

The cache path depends on the package-relative folder, not on where simkit is
installed, so an editable checkout and a wheel install with identical sources
share compiled kernels. Root: ``NUMBA_CACHE_DIR`` if set, else numba's user-wide
cache directory (never inside the source tree).

`install()` runs when ``simkit.engine`` or ``simkit.games`` is imported, and takes
effect as numba's caching module loads, i.e. before any kernel is defined. Game folders
outside the package (a test game) call `register_kernel_dir(folder)` first thing in their
``__init__``.
"""
from __future__ import annotations

import functools
import hashlib
import importlib.abc
import importlib.machinery
import os
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1]          # .../simkit
SHARED = (PACKAGE / "engine", PACKAGE / "policies.py")  # code any kernel may call or read
STAMP_FILE = "simkit-sources.stamp"

_roots: dict[Path, str] = {PACKAGE: "simkit"}          # kernel folder root -> its name in the cache
_cleaned: set[str] = set()


def _py_files(path: Path):
    if path.is_file():
        return [path]
    return sorted(p for p in path.rglob("*.py") if "__pycache__" not in p.parts)


@functools.lru_cache(maxsize=None)
def _folder_digest(folder: str) -> str:
    h = hashlib.sha256()
    for p in _py_files(Path(folder)):
        h.update(p.name.encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()


def sources_stamp(folder: Path) -> str:
    """Hash of the shared kernel sources and of ``folder``'s (a kernel file's folder)."""
    parts = [_folder_digest(str(p)) for p in SHARED] + [_folder_digest(str(folder))]
    return hashlib.sha256("|".join(parts).encode()).hexdigest()[:32]


def _cache_base() -> Path:
    from numba.core import config
    if config.CACHE_DIR:
        return Path(config.CACHE_DIR)
    from numba.misc.appdirs import AppDirs
    return Path(AppDirs(appname="numba", appauthor=False).user_cache_dir)


def _relative(py_file: str):
    """(root name, folder relative to it) of a kernel file under a registered root, else None."""
    path = Path(os.path.abspath(py_file)).parent
    for root, name in _roots.items():
        try:
            return name, path.relative_to(root)
        except ValueError:
            continue
    return None


def cache_dir_for(py_file: str) -> Path | None:
    rel = _relative(py_file)
    if rel is None:
        return None
    name, sub = rel
    return _cache_base() / "_".join((name,) + sub.parts)


def clean_stale(cache_path: Path, stamp: str) -> bool:
    """Delete the kernels cached in ``cache_path`` if they were built from other sources.
    Returns True when something stale was removed."""
    marker = cache_path / STAMP_FILE
    try:
        old = marker.read_text().strip()
    except OSError:
        old = None
    if old == stamp:
        return False
    removed = False
    for p in list(cache_path.glob("*.nbi")) + list(cache_path.glob("*.nbc")):
        try:
            p.unlink()
            removed = True
        except OSError:   # another process removed it first
            pass
    tmp = cache_path / f".{STAMP_FILE}.{os.getpid()}"
    tmp.write_text(stamp + "\n")
    os.replace(tmp, marker)
    return removed


def register_kernel_dir(folder) -> None:
    """Cache the kernels under ``folder`` (e.g. a game folder outside the package) the same way."""
    folder = Path(folder).resolve()
    _roots.setdefault(folder, folder.name)
    install()


@functools.lru_cache(maxsize=1)
def _locator_class():
    from numba.core.caching import _CacheLocator, _SourceFileBackedLocatorMixin

    class SimkitCacheLocator(_SourceFileBackedLocatorMixin, _CacheLocator):
        def __init__(self, py_func, py_file, cache_path: Path):
            self._py_file = py_file
            self._lineno = py_func.__code__.co_firstlineno
            self._cache_path = str(cache_path)
            self._stamp = sources_stamp(Path(os.path.abspath(py_file)).parent)

        def get_cache_path(self):
            return self._cache_path

        def get_source_stamp(self):
            return (super().get_source_stamp(), self._stamp)

        @classmethod
        def from_function(cls, py_func, py_file):
            if not os.path.exists(py_file):
                return None
            path = cache_dir_for(py_file)
            if path is None:
                return None     # not simkit's: numba's own locators
            self = cls(py_func, py_file, path)
            try:
                self.ensure_cache_path()
                if self._cache_path not in _cleaned:
                    _cleaned.add(self._cache_path)
                    clean_stale(path, self._stamp)
            except OSError:
                return None
            return self

    return SimkitCacheLocator


def install() -> None:
    """Put simkit's locator first in numba's list (idempotent), now if numba is imported, else the
    moment it is: importing simkit must not import numba (`simkit games` and `rules` need none), and
    every kernel module imports numba before it defines a kernel, so none is defined before this."""
    caching = sys.modules.get("numba.core.caching")
    if caching is not None:
        return _install(caching)
    if not any(isinstance(f, _AfterNumbaCaching) for f in sys.meta_path):
        sys.meta_path.insert(0, _AfterNumbaCaching())


def _install(caching) -> None:
    impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl   # renamed in numba 0.62
    cls = _locator_class()
    if cls not in impl._locator_classes:
        impl._locator_classes.insert(0, cls)


class _AfterNumbaCaching(importlib.abc.MetaPathFinder):
    """Runs `_install` right after numba.core.caching is first executed."""

    def find_spec(self, name, path, target=None):
        if name != "numba.core.caching":
            return None
        sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None:
            return spec
        exec_module = spec.loader.exec_module

        def exec_then_install(module):
            exec_module(module)
            _install(module)
        spec.loader.exec_module = exec_then_install
        return spec


def clear() -> list[Path]:
    """Delete every cached simkit kernel (disk hygiene only: stale ones are never loaded), including
    the in-tree ``__pycache__`` entries numba's default locator wrote before this guard existed."""
    import shutil
    gone = []
    for name in set(_roots.values()):
        for d in _cache_base().glob(f"{name}_*"):
            shutil.rmtree(d, ignore_errors=True)
            gone.append(d)
    for p in list(PACKAGE.rglob("*.nbi")) + list(PACKAGE.rglob("*.nbc")):
        p.unlink(missing_ok=True)
        gone.append(p)
    return gone
