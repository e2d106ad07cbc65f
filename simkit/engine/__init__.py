"""Game-agnostic jitted code: RNG, dice, geometry tables and the batch runner."""
from simkit.engine.cache import install as _install_cache

# before any kernel is defined: numba's cache must know what simkit kernels depend on
_install_cache()
