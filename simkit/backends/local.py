"""The default backend: chunks run here, one after another, each on all numba threads."""
from simkit import progress
from simkit.engine.chunk import play_chunk


class LocalBackend:
    name = "local"

    def map_chunks(self, game, params, seed, chunks, first, policy_ids, snapshot_ply):
        chunks = list(chunks)
        progress.run_started(game, sum(c for _, c in chunks))
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
