"""Where a game's cold compile goes: python scripts/compile_profile.py GAME

Warms GAME (what `simkit precompile` does for it) into an empty numba cache of its own and prints
the wall seconds, then the functions whose compile took longest (inclusive of the callees they
compiled first) and the seconds LLVM spent finalising each function's library: numba links every
callee's code into each caller's module and optimises and emits it again, so a big callee (the
search) is paid once per function that reaches it (docs/speed.md, "Compile time").
"""
import collections
import os
import sys
import tempfile
import time


def main(game: str) -> None:
    os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="simkit-cold-")   # a cold cache, before numba loads
    from numba.core import codegen, dispatcher
    from simkit.games import get_game

    compiled = collections.Counter()
    finalised = collections.Counter()
    compile_ = dispatcher.Dispatcher.compile
    finalize = codegen.CPUCodeLibrary.finalize

    active = set()   # numba's compile re-enters itself for the same function: count the outer call only

    def timed_compile(self, sig):
        if id(self) in active or sig in self.overloads:
            return compile_(self, sig)
        active.add(id(self))
        t = time.perf_counter()
        try:
            return compile_(self, sig)
        finally:
            active.discard(id(self))
            compiled[self.py_func.__module__ + "." + self.py_func.__name__] += time.perf_counter() - t

    def timed_finalize(self):
        t = time.perf_counter()
        try:
            return finalize(self)
        finally:
            finalised[(self.name or "?").split(".")[-1]] += time.perf_counter() - t

    dispatcher.Dispatcher.compile = timed_compile
    codegen.CPUCodeLibrary.finalize = timed_finalize
    t = time.perf_counter()
    cpu = time.process_time()
    get_game(game).warm()
    # CPU seconds too: the wall time of a compile on a shared machine counts the other sessions' work
    print(f"{game}: warm {time.perf_counter() - t:.1f} s ({time.process_time() - cpu:.1f} CPU-s) into an empty "
          f"cache; LLVM finalising {sum(finalised.values()):.1f} s of it")
    print("\ncompile seconds, inclusive of the callees compiled inside:")
    for name, s in compiled.most_common(15):
        print(f"{s:7.1f}  {name}")
    print("\nLLVM finalise seconds (optimise + emit the function's linked module):")
    for name, s in finalised.most_common(15):
        print(f"{s:7.1f}  {name}")


if __name__ == "__main__":
    main(sys.argv[1])
