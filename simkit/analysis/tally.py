"""Tally lives in the engine (simkit/engine/tally.py): the runner folds chunks into it and
must not import analysis. Re-exported here for code that reads it as part of stage 4."""
from simkit.engine.tally import Tally  # noqa: F401
