"""The default backend: chunks run here, one after another, each on all numba threads."""
import time

from simkit import progress
from simkit.engine.chunk import play_chunk


class LocalBackend:
    name = "local"
    # seconds spent loading (on a cold cache: compiling) the game's kernel, which the runner leaves out of
    # the games' time: a first run of Warfare! said "1,000 games in 63.59 s (15.7 games/s)", a minute of
    # compiling and 0.1 s of games
    setup_seconds = 0.0

    def map_chunks(self, game, params, seed, chunks, first, policy_ids, snapshot_ply):
        chunks = list(chunks)
        progress.run_started(game, sum(c for _, c in chunks))    # a cold cache's notice comes first
        if chunks:
            t = time.perf_counter()
            play_chunk(game, params, seed, chunks[0][0], 0, first, policy_ids, snapshot_ply)    # no game
            self.setup_seconds += time.perf_counter() - t
        for start, count in chunks:
            item = play_chunk(game, params, seed, start, count, first, policy_ids, snapshot_ply)
            progress.games_done(count)
            yield item

    def close(self):
        """End of one run (nothing to release here)."""

    def shutdown(self):
        """End of the backend's life (same interface as DaskBackend)."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.shutdown()
