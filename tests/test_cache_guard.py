"""numba's cache guard (simkit/engine/cache.py): a kernel cached before an edit to a jitted
callee in another module must not run the old callee, and stale entries are removed."""
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from simkit.engine import cache

PY = sys.executable


def _run(code, cache_dir, cwd):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache_dir))
    out = subprocess.run([PY, "-c", textwrap.dedent(code)], env=env, cwd=cwd, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout.split()


KERNEL = """
    import sys
    sys.path[:0] = [{shared!r}, {game!r}]
    from pathlib import Path
    from simkit.engine import cache
    cache.SHARED = (Path({shared!r}),)     # the callee's module stands for simkit/engine/
    cache.register_kernel_dir({game!r})
    import k
    print(k.g(), k.g.stats.cache_hits.total(), k.g.stats.cache_misses.total())
"""


@pytest.fixture
def kernels(tmp_path):
    shared, game = tmp_path / "shared", tmp_path / "game"
    shared.mkdir()
    game.mkdir()
    (shared / "lib.py").write_text("from numba import njit\n\n@njit(cache=True)\ndef f_nb():\n    return 1\n")
    (game / "k.py").write_text("from numba import njit\nfrom lib import f_nb\n\n"
                               "@njit(cache=True)\ndef g():\n    return f_nb() + 10\n")
    return shared, game, KERNEL.format(shared=str(shared), game=str(game))


def test_edited_callee_in_another_module_is_not_served_from_the_cache(kernels, tmp_path):
    shared, game, code = kernels
    cdir = tmp_path / "nbcache"
    assert _run(code, cdir, tmp_path) == ["11", "0", "1"]     # compiled
    assert _run(code, cdir, tmp_path) == ["11", "1", "0"]     # served from the cache
    # edit only the callee: numba alone would keep serving 11 (g's own file did not change)
    (shared / "lib.py").write_text("from numba import njit\n\n@njit(cache=True)\ndef f_nb():\n    return 2\n")
    assert _run(code, cdir, tmp_path) == ["12", "0", "1"]
    assert _run(code, cdir, tmp_path) == ["12", "1", "0"]


def test_stale_entries_are_deleted_when_the_stamp_changes(kernels, tmp_path):
    shared, game, code = kernels
    cdir = tmp_path / "nbcache"
    _run(code, cdir, tmp_path)
    [folder] = [p for p in cdir.iterdir() if p.name.startswith("game")]
    stamp = (folder / cache.STAMP_FILE).read_text()
    entries = {p.name for p in folder.glob("*.nb?")}
    assert entries and any(n.endswith(".nbc") for n in entries)
    # as if these were built from other sources: a different stamp and an orphan entry
    (folder / cache.STAMP_FILE).write_text("built-from-other-sources\n")
    (folder / "k.old_kernel-3.py311.1.nbc").write_bytes(b"stale")
    assert _run(code, cdir, tmp_path) == ["11", "0", "1"]     # recompiled, not loaded
    assert not (folder / "k.old_kernel-3.py311.1.nbc").exists()
    assert (folder / cache.STAMP_FILE).read_text() == stamp
    assert {p.name for p in folder.glob("*.nb?")} == entries


def test_cache_path_does_not_depend_on_the_install_location():
    """An editable checkout and a wheel install of the same sources share compiled kernels."""
    here = cache.cache_dir_for(str(cache.PACKAGE / "games" / "skorm" / "play.py"))
    assert here is not None and here.name == "simkit_games_skorm"
    assert cache.cache_dir_for(str(Path("/elsewhere/site-packages/numpy/core.py"))) is None
