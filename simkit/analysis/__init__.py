"""Stages 4 and 5: tidy frames, statistics and metrics."""
