"""simkit: balance simulator and analytics for tabletop strategy games."""
__version__ = "0.1.0"


def load_scenario(target, overrides=None):
    from simkit.scenario.load import load_scenario as _load
    return _load(target, overrides)


def simulate(target, games=10_000, *, seed=0, policies=("greedy", "greedy"), first="alternate",
             overrides=None, threads=None, chunk_size=None, snapshot_ply=None, out_dir=None):
    """Play ``games`` games of a game name, scenario file or Scenario. Returns a RunResult
    (``.games`` DataFrame, ``.summary()`` dict)."""
    from simkit.engine.runner import DEFAULT_SNAPSHOT_PLY, RunConfig, simulate as _simulate
    from simkit.scenario.load import Scenario
    scenario = target if isinstance(target, Scenario) else load_scenario(target, overrides)
    if isinstance(policies, str):
        policies = (policies, policies)
    config = RunConfig(games=games, seed=seed, policies=tuple(policies), first=first, chunk_size=chunk_size,
                       snapshot_ply=DEFAULT_SNAPSHOT_PLY if snapshot_ply is None else snapshot_ply)
    return _simulate(scenario, config, threads=threads, out_dir=out_dir, progress=False)
