"""Game-agnostic jitted code: RNG, dice, geometry tables and the batch runner."""
