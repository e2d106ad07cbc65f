"""numba's on-disk cache, keyed on the kernel sources a compiled kernel can depend on.

numba stamps a cached kernel with its own file only. A kernel compiled from
``games/skorm/play.py`` also contains every jitted callee it calls and every
module constant it reads — from its game folder, ``simkit/engine/`` and
``simkit/policies.py`` — so editing one of those left the old machine code in
the cache, silently. Here every simkit kernel file is cached by a locator whose
stamp is a hash of

    simkit/engine/*.py + simkit/policies.py + the kernel file's own folder

(the only places a kernel's callees and constants may come from, by convention:
a game never calls another game's kernels). The kernels are cached in one folder
**per stamp**, ``<root>/simkit_games_skorm/<stamp>/``: an edit makes a new folder
(correctness), and two source trees that share the cache (a branch checkout, a wheel
of another commit, a scratch copy) each keep their own kernels instead of deleting
each other's on sight, which cost 50-60 CPU-s of recompiling per game at every
switch. Old stamps are pruned by the first process that uses a folder: any stamp not
used for ``MAX_AGE_DAYS``, and all but the ``KEEP`` most recently used.

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
import os
from pathlib import Path

from simkit.engine.imports import around_import, light_cache_loads, skip_blas_probe

PACKAGE = Path(__file__).resolve().parents[1]          # .../simkit
SHARED = (PACKAGE / "engine", PACKAGE / "policies.py")  # code any kernel may call or read
KEEP = 8                    # source stamps kept per kernel folder (the most recently used)
MAX_AGE_DAYS = 30           # a stamp folder unused this long is removed

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


def game_sources(spec) -> dict:
    """Where a game's kernels come from and their source stamp: ``{"folder", "stamp"}`` (the folder
    of the module holding its batch kernel). Records depend on exactly these sources, so a run
    directory records the stamp and `--resume` refuses a run whose stamp differs. Reads files only:
    no numba, no kernel import."""
    import importlib.util
    hook = spec.run_chunk
    module = getattr(hook, "module", None) or hook.__module__
    origin = importlib.util.find_spec(module).origin
    folder = Path(os.path.abspath(origin)).parent
    rel = _relative(origin)
    name = "/".join((rel[0],) + rel[1].parts) if rel is not None else str(folder)
    return {"folder": name, "stamp": sources_stamp(folder)}


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


def prune(folder: Path, current: str, keep: int = KEEP, max_age_days: float = MAX_AGE_DAYS) -> list[Path]:
    """Mark ``folder/current`` as used now and remove the other stamp folders of ``folder`` that are
    older than ``max_age_days`` or beyond the ``keep`` most recently used, and the flat-layout
    entries (``*.nbi``/``*.nbc`` directly in ``folder``) of simkit before per-stamp folders.
    Returns what was removed."""
    import shutil
    import time
    here = folder / current
    try:
        os.utime(here)
    except OSError:
        pass
    gone = []
    for p in list(folder.glob("*.nbi")) + list(folder.glob("*.nbc")) + list(folder.glob("simkit-sources.stamp")):
        try:
            p.unlink()
            gone.append(p)
        except OSError:   # another process removed it first
            pass
    stamps = []
    for d in folder.iterdir():
        if d.is_dir() and d.name != current:
            try:
                stamps.append((d.stat().st_mtime, d))
            except OSError:
                continue
    stamps.sort(reverse=True)                     # most recently used first
    cutoff = time.time() - max_age_days * 86400
    for i, (mtime, d) in enumerate(stamps):
        if i + 1 >= keep or mtime < cutoff:       # the current stamp is one of the kept
            shutil.rmtree(d, ignore_errors=True)
            gone.append(d)
    return gone


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
            self._stamp = sources_stamp(Path(os.path.abspath(py_file)).parent)
            self._folder = cache_path
            self._cache_path = str(cache_path / self._stamp)     # one folder per source stamp

        def get_cache_path(self):
            return self._cache_path

        def get_source_stamp(self):
            # the hash of the kernel's sources (its own file included), not numba's (mtime, size) of
            # the file: two trees with identical sources (a checkout and a wheel, a fresh clone) share
            # the folder, and a file's mtime would make them overwrite each other's index
            return self._stamp

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
                    prune(path, self._stamp)
            except OSError:
                return None
            return self

    return SimkitCacheLocator


def install() -> None:
    """Put simkit's locator first in numba's list (idempotent), now if numba is imported, else the
    moment it is: importing simkit must not import numba (`simkit games` and `rules` need none), and
    every kernel module imports numba before it defines a kernel, so none is defined before this.
    Numba's BLAS probe is skipped and its cache loads made light at the same time (``simkit.engine.imports``)."""
    around_import("numba.core.caching", after=_install)
    skip_blas_probe()


def _install(caching) -> None:
    impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl   # renamed in numba 0.62
    cls = _locator_class()
    if cls not in impl._locator_classes:
        impl._locator_classes.insert(0, cls)
    light_cache_loads(caching)


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
