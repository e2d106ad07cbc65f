"""Where a game's playing time goes, by compiled function: python scripts/perf_profile.py GAME POLICY [BUDGET]
[--annotate FUNCTION]

Compiles GAME's batch kernel into an empty numba cache of its own (so this process holds each function's
LLVM module), plays POLICY self-play on 1 thread under `perf record` for about 10 seconds, and prints
each function's share of the samples (self time; numba links every callee's code into its caller's
module, so a function inlined by LLVM counts as its caller). perf alone cannot name JIT code: the
samples' addresses are matched to the function start addresses of the kernel's own library.
Needs `perf` (linux-tools); counts are sampled, so shares below ~1% are noise.

``--annotate FUNCTION`` (a compiled function's name, e.g. ``rollout_step_nb``) also disassembles it (objdump)
and prints its most sampled instructions, the samples on its argument pushes (``push``), and each call it
makes with the samples since the call before it (what leads up to the call: the argument pushes, mostly,
when numba passes a tuple of arrays field by field). A sample lands on the instruction that waits, so the
samples on a push are the wait for what it loads.
"""
import argparse
import bisect
import collections
import os
import re
import subprocess
import tempfile
import time


def function_starts(dispatcher) -> list[tuple[int, str]]:
    """(address, name) of every function defined in the compiled library of each overload."""
    starts = []
    for cres in dispatcher.overloads.values():
        lib = cres.library
        for fn in lib._final_module.functions:
            if fn.is_declaration:
                continue
            try:
                addr = lib.get_pointer_to_function(fn.name)
            except Exception:   # a function the engine did not emit (inlined everywhere)
                continue
            if addr:
                starts.append((addr, fn.name))
    return sorted(set(starts))


def short(name: str) -> str:
    """A numba mangled name as module.function."""
    words = []
    m = re.match(r"_ZN(.*)", name)
    if not m:
        return name[:60]
    s = m.group(1)
    while s and s[0].isdigit():
        k = re.match(r"(\d+)", s).group(1)
        words.append(s[len(k):len(k) + int(k)])
        s = s[len(k) + int(k):]
    words = [w for w in words if not w.startswith("_3clocals_3e")]
    return ".".join(words[-2:]) if words else name[:60]


def annotate(starts, ips, target: str, workdir: str) -> None:
    """The instruction-level view of compiled function ``target`` (module docstring, ``--annotate``)."""
    import ctypes
    names = {a: short(n) for a, n in starts}
    for k, (a, n) in enumerate(starts):
        if not short(n).endswith(target):
            continue
        size = min((starts[k + 1][0] if k + 1 < len(starts) else a + 65536) - a, 1 << 20)
        offs = collections.Counter(ip - a for ip in ips if a <= ip < a + size)
        path = os.path.join(workdir, "function.bin")
        with open(path, "wb") as f:
            f.write(ctypes.string_at(a, size))
        dis = subprocess.run(["objdump", "-D", "-b", "binary", "-m", "i386:x86-64", path],
                             capture_output=True, text=True).stdout
        lines = {}
        for line in dis.splitlines():
            m = re.match(r"\s*([0-9a-f]+):\s+(?:[0-9a-f]{2} )+\s*(.*)", line)
            if m:
                lines[int(m.group(1), 16)] = m.group(2)
        pushes = sum(c for off, c in offs.items() if lines.get(off, "").startswith("push"))
        print(f"{short(n)}: {size} bytes, {sum(offs.values())} samples, {pushes} on pushes")
        for off, c in offs.most_common(12):
            print(f"{c:8d}  +{off:<6x} {lines.get(off, '?')}")
        # the callee of `call *%reg` is the address last loaded into that register (movabs)
        regs, calls, pending = {}, collections.Counter(), 0
        for off in sorted(lines):
            ins = lines[off]
            pending += offs.get(off, 0)
            mv = re.match(r"movabs \$0x([0-9a-f]+),%(\w+)", ins)
            if mv:
                regs[mv.group(2)] = int(mv.group(1), 16)
            if ins.startswith("call"):
                r = re.search(r"\*%(\w+)$", ins)
                callee = names.get(regs.get(r.group(1), -1), "?") if r else ins
                calls[f"{callee} at +{off:x}"] += pending
                pending = 0
        for callee, c in calls.most_common(12):
            print(f"{c:8d}  up to the call of {callee}")
        return
    print(f"no compiled function named {target}")


def main(game: str, policy: str, budget: int, target: str | None = None) -> None:
    os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="simkit-prof-")   # compiled here, not loaded
    import importlib

    import numba
    from simkit.games import get_game
    from simkit.policies import policy_vector
    numba.set_num_threads(1)
    spec = get_game(game)
    params = spec.prepare({o.name: o.default for o in spec.options})
    name = f"{policy}:{budget}" if budget else policy
    pv = policy_vector(spec, (name, name))
    spec.run_chunk(params, 0, 0, [0, 1], pv, 10)   # compile
    module = importlib.import_module(getattr(spec.run_chunk, "module", None) or spec.run_chunk.__module__)
    batch = [v for v in vars(module).values() if isinstance(v, numba.core.dispatcher.Dispatcher)
             and v.targetoptions.get("nogil")]
    starts = [s for d in batch for s in function_starts(d)]
    addrs = [a for a, _ in starts]
    data = os.path.join(tempfile.mkdtemp(prefix="simkit-perf-"), "perf.data")
    perf = subprocess.Popen(["perf", "record", "-q", "-p", str(os.getpid()), "-o", data, "--", "sleep", "10"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(0.5)
    games = 0
    step = 2 if policy == "mcts" else 2000   # calls long enough that Python's share is small
    t0 = time.time()
    while perf.poll() is None:
        spec.run_chunk(params, 7, games, [g % 2 for g in range(games, games + step)], pv, 10)
        games += step
    script = subprocess.run(["perf", "script", "-i", data, "-F", "ip"], capture_output=True, text=True).stdout
    ips = []
    for line in script.split():
        try:
            ips.append(int(line, 16))
        except ValueError:
            continue
    counts = collections.Counter()
    total = len(ips)
    for ip in ips:
        i = bisect.bisect_right(addrs, ip) - 1
        # past the last start by more than 1 MB: not the kernel's code (the interpreter, libm, ...)
        counts[short(starts[i][1]) if i >= 0 and ip - addrs[i] < 1 << 20 else "(outside the kernel)"] += 1
    print(f"{game} {policy}:{budget}: {games} games in {time.time() - t0:.1f} s, {total} samples")
    for name, c in counts.most_common(25):
        print(f"{100 * c / max(total, 1):6.1f}%  {name}")
    if target:
        annotate(starts, ips, target, os.path.dirname(data))


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("game")
    ap.add_argument("policy")
    ap.add_argument("budget", type=int, nargs="?", default=0)
    ap.add_argument("--annotate", metavar="FUNCTION")
    a = ap.parse_args()
    main(a.game, a.policy, a.budget, a.annotate)
