"""Resumable runs for real: `simkit run` in a subprocess is killed (Ctrl-C or SIGKILL) once some
chunks are on disk; `simkit run --resume` finishes it with the very games.parquet of an
uninterrupted run."""
import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pyarrow.parquet as pq
import pytest

from conftest import invoke

# long enough (about 2 s of greedy play) that a kill after 3 chunks lands mid-run on the fast kernels
GAMES = 20_000
ARGS = ["martian_chess", "--games", GAMES, "--chunk-size", 100, "--policy", "greedy", "--seed", 21,
        "--set", "max_plies=200", "--no-progress", "--json"]


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    from click.testing import CliRunner
    out = tmp_path_factory.mktemp("ref") / "run"
    r = invoke(CliRunner(), ["run", *ARGS, "--out", out])
    assert r.exit_code == 0, r.output
    return pq.read_table(out / "games.parquet").to_pandas()


def _start_and_kill(out, sig, extra=(), group=False):
    env = {**os.environ, "NUMBA_NUM_THREADS": "1"}
    cmd = [sys.executable, "-m", "simkit", "run", *map(str, ARGS), "--out", str(out), *extra]
    # SIGINT back to its default in the child: a test run started in the background (`make test &`
    # from a script) ignores SIGINT, and a child inheriting that would never see the Ctrl-C
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, start_new_session=group,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.time() + 60
    try:
        while time.time() < deadline:
            if p.poll() is not None:
                pytest.fail(f"the run ended before it could be killed: {p.stderr.read().decode()[-500:]}")
            if len(list((out / "chunks").glob("chunk-*.npz"))) >= 3 if (out / "chunks").exists() else False:
                break
            time.sleep(0.01)
        else:
            pytest.fail("no chunk was written within 60 s")
        if group:
            os.killpg(p.pid, sig)       # as Ctrl-C on a terminal: the whole process group
        else:
            p.send_signal(sig)
        _, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    return p.returncode, err.decode()


DASK = ["--backend", "dask", "--workers", 2, "--threads", 1]


@pytest.mark.parametrize("sig,extra", [(signal.SIGINT, ()), (signal.SIGKILL, ()), (signal.SIGINT, DASK)],
                         ids=["SIGINT", "SIGKILL", "Ctrl-C-on-dask"])
def test_killed_run_resumes_to_the_uninterrupted_games_parquet(runner, tmp_path, reference, sig, extra):
    if extra:
        pytest.importorskip("distributed")
    out = tmp_path / "run"
    rc, err = _start_and_kill(out, sig, [str(a) for a in extra], group=bool(extra))
    manifest = json.loads((out / "manifest.json").read_text())
    if sig == signal.SIGINT:
        assert rc == 130, err
        assert "Traceback" not in err and "--resume --out" in err
        assert manifest["status"] == "interrupted" and 0 < manifest["games_done"] < GAMES
    else:
        assert rc == -signal.SIGKILL
        assert manifest["status"] == "running"
    assert not (out / "games.parquet").exists()       # an unfinished run never looks complete
    kept = len(list((out / "chunks").glob("chunk-*.npz")))
    assert 3 <= kept < GAMES // 100
    if sig == signal.SIGKILL:   # damage: a truncated chunk and a chunk whose aggregate is gone are replayed
        chunks = sorted((out / "chunks").glob("chunk-*.npz"))
        chunks[0].write_bytes(chunks[0].read_bytes()[:10])
        with np.load(chunks[1]) as z:
            kept_parts = {k: z[k] for k in z.files if k != "aggregate"}
        np.savez(chunks[1], **kept_parts)
    r = invoke(runner, ["run", *ARGS, "--out", out, "--resume"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["games"] == GAMES
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["status"] == "complete" and manifest["games_done"] == GAMES
    assert not (out / "chunks").exists()
    got = pq.read_table(out / "games.parquet").to_pandas()
    assert got.equals(reference)
    # a complete run is not resumed again
    r = invoke(runner, ["run", *ARGS, "--out", out, "--resume"])
    assert r.exit_code == 2 and "already complete" in r.output
