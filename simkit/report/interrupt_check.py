"""Ctrl-C in the middle of a long command, then `--resume`: what happens, checked for real.

`interrupt_and_resume` starts ``simkit CMD ... --out DIR`` in a subprocess that pauses at a
chosen point, sends it SIGINT there (as Ctrl-C on a terminal does), then runs
``simkit CMD --resume --out DIR`` (nothing else given: the options come from the manifest)
and compares every result file with an uninterrupted run's (`same_results`). The pause points:

- ``saved:N``  -- right after the N-th chunk of games is written: Ctrl-C at a chunk boundary;
- ``played:N`` -- right after the N-th chunk is played (for quality: the N-th traced game),
  before it is written: Ctrl-C in the middle of a chunk, whose games are then lost.

The pause is a listener on `simkit.progress` installed in the child (`child`); the command
itself is the one a designer runs. Used by tests/test_interrupts.py and by the table of
docs/long-commands.md (simkit.report.doc_blocks.long_commands); ``python -m
simkit.report.interrupt_check`` prints that table and times the size guard.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

# the keys of a summary that measure time, not games: equal results differ in them
TIMING = {"elapsed_s", "games_per_s", "plies_per_s", "turns_per_s", "resumed_games"}

MC = "martian_chess"
# every long command, small and quick (random or greedy play, small chunks): its arguments, a pause at a
# chunk boundary and one in the middle of a chunk (quality's played:N counts traced games: played:250 is
# the middle of its second chunk of 200), and the result file an interrupted command must not have written
CASES = {
    "run": (["run", MC, "--games", 2000, "--chunk-size", 200, "--policy", "random"], "saved:3", "played:4",
            "games.parquet"),
    "run --skill": (["run", MC, "--games", 600, "--chunk-size", 100, "--skill", "random,greedy"],
                    "saved:8", "played:3", "skill.json"),
    "compare": (["compare", MC, "--set-b", "clock=off", "--games", 1000, "--chunk-size", 100, "--policy", "random"],
                "saved:5", "played:8", "compare.json"),
    "sweep": (["sweep", MC, "--vary", "deadlock_plies=10,14,18", "--games", 400, "--chunk-size", 100,
               "--policy", "random"], "saved:6", "played:7", "sweep.csv"),
    "values": (["values", MC, "--games", 400, "--chunk-size", 100, "--policy", "random"], "saved:7", "played:10",
               "values.json"),
    "matchup": (["matchup", MC, "--policies", "random,greedy", "--games", 400, "--chunk-size", 100],
                "saved:5", "played:6", "matchup.json"),
    "ladder": (["ladder", MC, "--rungs", "random,greedy", "--games", 400], "saved:1", "played:2", "ladder.json"),
    "tune": (["tune", MC, "--knob", "deadlock_plies=10,14,18,22", "--objective", "first_player_advantage=0",
              "--games", 200, "--verify-games", 400, "--finalists", 2, "--policy", "random"], "saved:5", "played:7",
             "tune.json"),
    "sensitivity": (["sensitivity", MC, "--option", "deadlock_plies", "--games", 400, "--policy", "random"],
                    "saved:2", "played:2", "sensitivity.json"),
    "quality": (["quality", MC, "--games", 500, "--policy", "random"], "saved:1", "played:250", "quality.json"),
    "draws": (["draws", MC, "--levels", "random,greedy", "--games", 200], "saved:2", "played:3", "draws.json"),
}


class _Pause:
    def __init__(self, kind: str, n: int, marker: str):
        self.kind, self.n, self.marker, self.seen = kind, n, marker, 0

    def run_started(self, game, games, kernels):
        pass

    def _tick(self, kind):
        if kind != self.kind:
            return
        self.seen += 1
        if self.seen == self.n:
            Path(self.marker).write_text(str(os.getpid()))
            time.sleep(600)      # the parent's SIGINT lands here

    def games_done(self, n):
        self._tick("played")

    def games_saved(self, n):
        self._tick("saved")


def child():
    """``python -c 'from simkit.report.interrupt_check import child; child()' CMD ARGS...``: the
    command line, pausing where SIMKIT_PAUSE says ("saved:N" or "played:N") after touching
    SIMKIT_PAUSE_FILE."""
    import faulthandler
    from simkit import progress
    # every thread's stack on SIGUSR1: what ctrl_c prints when the command does not end after its Ctrl-C
    faulthandler.register(signal.SIGUSR1, all_threads=True)
    kind, n = os.environ["SIMKIT_PAUSE"].split(":")
    progress.listen(_Pause(kind, int(n), os.environ["SIMKIT_PAUSE_FILE"]))
    from simkit.cli import cli
    cli.main(args=sys.argv[1:], prog_name="simkit")


def start_paused(args, pause: str, marker: Path, env=None) -> subprocess.Popen:
    """``simkit ARGS`` in a subprocess that pauses at ``pause`` (see the module docstring)."""
    env = {**os.environ, **(env or {}), "SIMKIT_PAUSE": pause, "SIMKIT_PAUSE_FILE": str(marker)}
    code = "from simkit.report.interrupt_check import child; child()"
    # SIGINT back to its default in the child: a test run started in the background ignores SIGINT,
    # and a child inheriting that would never see the Ctrl-C
    return subprocess.Popen([sys.executable, "-c", code, *map(str, args)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def wait_for(p: subprocess.Popen, marker: Path, timeout: float = 300) -> None:
    deadline = time.time() + timeout
    while not marker.exists():
        if p.poll() is not None:
            raise RuntimeError(f"the command ended before its pause (exit {p.returncode}): "
                               f"{p.stderr.read().decode()[-1500:]}")
        if time.time() > deadline:
            p.kill()
            raise RuntimeError(f"no pause within {timeout:.0f} s")
        time.sleep(0.02)


def ctrl_c(args, out: Path, pause: str, env=None, timeout: float = 300) -> dict:
    """Start ``simkit ARGS --out OUT``, Ctrl-C it at ``pause``: its exit code, stderr, seconds to the
    pause, and the manifest it left."""
    marker = out.parent / f".{out.name}.paused"
    marker.unlink(missing_ok=True)
    t0 = time.perf_counter()
    p = start_paused([*args, "--out", out], pause, marker, env)
    try:
        wait_for(p, marker, timeout)
        took = time.perf_counter() - t0
        p.send_signal(signal.SIGINT)
        try:
            _, err = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            p.send_signal(signal.SIGUSR1)       # its threads' stacks (child), then give up on it
            time.sleep(2)
            p.kill()
            _, err = p.communicate()
            raise RuntimeError(f"no exit within {timeout:.0f} s of the Ctrl-C; the command's stderr, with "
                               f"every thread's stack at the end:\n{err.decode()[-6000:]}") from None
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        marker.unlink(missing_ok=True)
    manifest = json.loads((out / "manifest.json").read_text()) if (out / "manifest.json").exists() else {}
    return {"exit": p.returncode, "stderr": err.decode(), "seconds": took, "manifest": manifest}


def run_cli(args) -> tuple[int, str, str]:
    """``simkit ARGS`` in this process: (exit code, stdout, stderr)."""
    from click.testing import CliRunner

    from simkit.cli import cli
    r = CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)
    return r.exit_code, r.stdout, r.stderr


def _strip(x):
    if isinstance(x, dict):
        return {k: _strip(v) for k, v in x.items() if k not in TIMING}
    if isinstance(x, list):
        return [_strip(v) for v in x]
    return x


def result_files(out: Path) -> list[str]:
    """Every result file of a command's directory, relative (manifests hold times and sessions,
    chunk files only exist while a run is unfinished)."""
    return sorted(str(p.relative_to(out)) for p in out.rglob("*")
                  if p.is_file() and p.name != "manifest.json" and "chunks" not in p.parts
                  and not p.name.startswith("."))


def same_results(a: Path, b: Path) -> list[str]:
    """The result files of ``a`` and ``b`` that differ (or exist in one only): empty when every
    record, table and JSON result is equal (JSON compared without its timing keys)."""
    fa, fb = result_files(a), result_files(b)
    diff = sorted(set(fa) ^ set(fb))
    for f in sorted(set(fa) & set(fb)):
        pa, pb = a / f, b / f
        if f.endswith(".json"):
            same = _strip(json.loads(pa.read_text())) == _strip(json.loads(pb.read_text()))
        elif f.endswith(".parquet"):
            import pyarrow.parquet as pq
            same = pq.read_table(pa).replace_schema_metadata(None).equals(
                pq.read_table(pb).replace_schema_metadata(None))
        else:
            same = pa.read_bytes() == pb.read_bytes()
        if not same:
            diff.append(f)
    return diff


def interrupt_and_resume(command: str, args, tmp: Path, pause: str, reference: Path | None = None,
                         env=None) -> dict:
    """Ctrl-C ``simkit COMMAND ARGS`` at ``pause``, resume it with ``--resume --out DIR`` alone, and
    compare with ``reference`` (an uninterrupted run's directory; made here when None). Returns
    the Ctrl-C's exit code and line, the manifest's status then, the resume's exit code, and the
    files that differ from the uninterrupted run."""
    out = tmp / f"{command}-{pause.replace(':', '')}"
    if reference is None:
        reference = tmp / f"{command}-reference"
        code, _, err = run_cli([command, *args, "--out", reference])
        if code != 0:
            raise RuntimeError(f"simkit {command}: exit {code}: {err[-1500:]}")
    c = ctrl_c([command, *args], out, pause, env)
    left = result_files(out) if out.exists() else []
    line = [ln for ln in c["stderr"].splitlines() if ln.startswith("interrupted")]
    t0 = time.perf_counter()
    code, _, err = run_cli([command, "--resume", "--out", out])
    resumed = time.perf_counter() - t0
    status = json.loads((out / "manifest.json").read_text()).get("status") if code == 0 else None
    return {"command": command, "pause": pause, "exit": c["exit"], "line": line[-1] if line else "",
            "traceback": "Traceback" in c["stderr"], "stderr": c["stderr"], "status": c["manifest"].get("status"),
            "kept": c["manifest"].get("games_kept", c["manifest"].get("games_done")), "files_at_ctrl_c": left,
            "seconds_to_ctrl_c": c["seconds"], "resume_exit": code, "resume_stderr": err,
            "resume_seconds": resumed, "resumed_status": status,
            "differ": same_results(reference, out) if code == 0 else ["(resume failed)"], "out": out}


def kept_of(line: str) -> tuple[int, int]:
    """(kept, total) of an "interrupted: kept N of M games in DIR; ..." line."""
    kept, total = line.split(" games in ")[0].split()[-3::2]
    return int(kept.replace(",", "")), int(total.replace(",", ""))


def results_table(tmp: Path | None = None) -> str:
    """Every command of CASES stopped at a chunk boundary and mid-chunk, then resumed: a markdown table
    (what docs/long-commands.md shows)."""
    import tempfile
    with tempfile.TemporaryDirectory() if tmp is None else _nullcontext(tmp) as d:
        d = Path(d)
        lines = ["| command | Ctrl-C at a chunk boundary | Ctrl-C mid-chunk (the chunk in flight is lost) | "
                 "`simkit CMD --resume --out DIR` | records and results equal to an uninterrupted run |",
                 "| --- | --- | --- | --- | --- |"]
        for case, (args, boundary, mid, _) in CASES.items():
            ref = d / f"{case.replace(' ', '')}-reference"
            code, _, err = run_cli([*args, "--out", ref])
            if code != 0:
                raise RuntimeError(f"simkit {' '.join(map(str, args))}: exit {code}: {err[-1500:]}")
            got = [interrupt_and_resume(args[0], args[1:], d / case.replace(" ", ""), p, reference=ref)
                   for p in (boundary, mid)]
            cells = []
            for r in got:
                k, t = kept_of(r["line"]) if r["line"] else (0, 0)
                cells.append(f"exit {r['exit']}, {'a traceback, ' if r['traceback'] else ''}manifest "
                             f"{r['status']}: kept {k:,} of {t:,} games")
            resumed = [f"exit {r['resume_exit']}, {r['resumed_status']}" for r in got]
            resumed = f"{resumed[0]} (both)" if resumed[0] == resumed[1] else " / ".join(resumed)
            files = len(result_files(ref))
            same = "yes" if all(not r["differ"] for r in got) else "no: " + ", ".join(
                sorted({f for r in got for f in r["differ"]}))
            lines.append(f"| `simkit {' '.join(map(str, args))}` | {cells[0]} | {cells[1]} | {resumed} | "
                         f"{same} ({files} files compared) |")
    return "\n".join(lines) + "\n"


class _nullcontext:
    def __init__(self, v):
        self.v = v

    def __enter__(self):
        return self.v

    def __exit__(self, *exc):
        return False


def measure_guard(tmp: Path) -> dict:
    """The million-cell sweep: the refusal's wall and CPU time in a fresh process (interpreter start
    included) and its message; with --yes, the seconds to its first chunk and the process's resident
    memory then."""
    import resource
    args = ["sweep", MC, "--vary", "deadlock_plies=1..1000", "--vary", "clock_plies=1..1000", "--games", 1000]
    t, before = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run([sys.executable, "-m", "simkit", *map(str, args), "--out", str(tmp / "refused")],
                       capture_output=True, text=True)
    refused = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    marker = tmp / ".yes.paused"
    t = time.perf_counter()
    q = start_paused([*args, "--yes", "--out", tmp / "yes"], "saved:1", marker)
    try:
        wait_for(q, marker)
        first = time.perf_counter() - t
        rss = next(int(ln.split()[1]) for ln in Path(f"/proc/{q.pid}/status").read_text().splitlines()
                   if ln.startswith("VmRSS"))
        q.send_signal(signal.SIGINT)
        _, err = q.communicate(timeout=120)
    finally:
        if q.poll() is None:
            q.kill()
            q.wait()
    return {"refused_exit": p.returncode, "refused_s": refused, "refused_cpu_s": cpu,
            "refused_message": p.stderr.strip(),
            "yes_first_chunk_s": first, "yes_rss_mib": rss / 1024, "yes_exit": q.returncode,
            "yes_line": err.decode().strip().splitlines()[-1]}


def main(argv=None):
    """``python -m simkit.report.interrupt_check [--guard]``: the table (unless ``--guard``), then the
    size guard's timings, measured now."""
    import tempfile
    guard_only = "--guard" in (sys.argv[1:] if argv is None else argv)
    with tempfile.TemporaryDirectory() as d:
        if not guard_only:
            t = time.perf_counter()
            print(results_table(Path(d) / "table"))
            print(f"(the table took {time.perf_counter() - t:.0f} s)")
        (Path(d) / "guard").mkdir()
        print(f"load average before: {os.getloadavg()[0]:.1f}")
        for k, v in measure_guard(Path(d) / "guard").items():
            print(f"{k}: {v:.2f}" if isinstance(v, float) else f"{k}: {v}")


if __name__ == "__main__":
    main()
