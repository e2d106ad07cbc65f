"""numba's cache guard (simkit/engine/cache.py): a kernel cached before an edit to a jitted
callee in another module must not run the old callee, two source trees keep their own kernels,
and old stamps are pruned."""
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


def _tree(root, value):
    """A source tree: a shared callee returning ``value`` and the kernel calling it."""
    shared, game = root / "shared", root / "game"
    shared.mkdir(parents=True)
    game.mkdir()
    (shared / "lib.py").write_text(f"from numba import njit\n\n@njit(cache=True)\ndef f_nb():\n    return {value}\n")
    (game / "k.py").write_text("from numba import njit\nfrom lib import f_nb\n\n"
                               "@njit(cache=True)\ndef g():\n    return f_nb() + 10\n")
    return KERNEL.format(shared=str(shared), game=str(game))


@pytest.fixture
def kernels(tmp_path):
    return tmp_path / "shared", tmp_path / "game", _tree(tmp_path, 1)


def test_edited_callee_in_another_module_is_not_served_from_the_cache(kernels, tmp_path):
    shared, game, code = kernels
    cdir = tmp_path / "nbcache"
    assert _run(code, cdir, tmp_path) == ["11", "0", "1"]     # compiled
    assert _run(code, cdir, tmp_path) == ["11", "1", "0"]     # served from the cache
    # edit only the callee: numba alone would keep serving 11 (g's own file did not change)
    (shared / "lib.py").write_text("from numba import njit\n\n@njit(cache=True)\ndef f_nb():\n    return 2\n")
    assert _run(code, cdir, tmp_path) == ["12", "0", "1"]
    assert _run(code, cdir, tmp_path) == ["12", "1", "0"]


def test_two_source_trees_sharing_the_cache_keep_each_others_kernels(tmp_path):
    """A branch checkout and main (or a wheel of another commit) share NUMBA_CACHE_DIR: switching
    between them must not recompile, and a third tree with the first one's sources reuses its kernels."""
    cdir = tmp_path / "nbcache"
    a, b = _tree(tmp_path / "a", 1), _tree(tmp_path / "b", 2)
    assert _run(a, cdir, tmp_path) == ["11", "0", "1"]       # compiled
    assert _run(b, cdir, tmp_path) == ["12", "0", "1"]       # other sources: compiled, beside a's
    assert _run(a, cdir, tmp_path) == ["11", "1", "0"]       # a's kernels are still there
    assert _run(b, cdir, tmp_path) == ["12", "1", "0"]
    [folder] = [p for p in cdir.iterdir() if p.name.startswith("game")]
    assert len([d for d in folder.iterdir() if d.is_dir()]) == 2     # one folder per source stamp
    # identical sources elsewhere (a fresh clone: new paths, new mtimes) load a's kernels
    import shutil
    shutil.copytree(tmp_path / "a", tmp_path / "c")
    os.utime(tmp_path / "c" / "game" / "k.py", (1, 1))
    c = KERNEL.format(shared=str(tmp_path / "c" / "shared"), game=str(tmp_path / "c" / "game"))
    assert _run(c, cdir, tmp_path) == ["11", "1", "0"]


def test_old_stamps_are_pruned_by_count_and_age(tmp_path):
    import time
    folder = tmp_path / "simkit_games_x"
    now = time.time()
    ages = {f"s{i}": i for i in range(12)}                     # stamp -> days since last use
    ages["old"] = cache.MAX_AGE_DAYS + 1
    for name, days in ages.items():
        (folder / name).mkdir(parents=True)
        (folder / name / "k.g-5.py311.nbi").write_bytes(b"x")
        os.utime(folder / name, (now - days * 86400, now - days * 86400))
    (folder / "k.g-5.py311.1.nbc").write_bytes(b"flat layout of an older simkit")
    gone = cache.prune(folder, "s11")                           # the current stamp: the oldest but one
    left = sorted(d.name for d in folder.iterdir())
    # the current one (now marked as used) and the KEEP - 1 most recently used others
    assert left == sorted(["s11"] + [f"s{i}" for i in range(cache.KEEP - 1)]), left
    assert folder / "old" in gone and not (folder / "k.g-5.py311.1.nbc").exists()
    # age alone: a stamp unused for longer than MAX_AGE_DAYS goes even when few are cached
    os.utime(folder / "s0", (now - (cache.MAX_AGE_DAYS + 2) * 86400,) * 2)
    cache.prune(folder, "s1")
    assert not (folder / "s0").exists() and (folder / "s11").exists()


def test_cache_path_does_not_depend_on_the_install_location():
    """An editable checkout and a wheel install of the same sources share compiled kernels."""
    here = cache.cache_dir_for(str(cache.PACKAGE / "games" / "skorm" / "play.py"))
    assert here is not None and here.name == "simkit_games_skorm"
    assert cache.cache_dir_for(str(Path("/elsewhere/site-packages/numpy/core.py"))) is None
