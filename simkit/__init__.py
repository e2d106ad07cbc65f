"""simkit: balance simulator and analytics for tabletop strategy games."""
__version__ = "0.1.0"


def load_scenario(target, overrides=None):
    from simkit.scenario.load import load_scenario as _load
    return _load(target, overrides)


def simulate(target, games=10_000, *, seed=0, policies=("greedy", "greedy"), first="alternate",
             overrides=None, threads=None, chunk_size=None, snapshot_ply=None, out_dir=None, precision=None):
    """Play ``games`` games of a game name, scenario file or Scenario. Returns a RunResult
    (``.games`` DataFrame, ``.summary()`` dict). ``precision``: stop early once the FPA's
    95% half-width is <= it (``games`` is the ceiling)."""
    from simkit.engine.runner import DEFAULT_SNAPSHOT_PLY, RunConfig, simulate as _simulate
    from simkit.scenario.load import Scenario
    scenario = target if isinstance(target, Scenario) else load_scenario(target, overrides)
    if isinstance(policies, str):
        policies = (policies, policies)
    config = RunConfig(games=games, seed=seed, policies=tuple(policies), first=first, chunk_size=chunk_size,
                       snapshot_ply=DEFAULT_SNAPSHOT_PLY if snapshot_ply is None else snapshot_ply)
    return _simulate(scenario, config, threads=threads, out_dir=out_dir, progress=False, precision=precision)


def _scenario(target, overrides=None):
    from simkit.scenario.load import Scenario
    return target if isinstance(target, Scenario) else load_scenario(target, overrides)


def _config(games, seed, policies, first, chunk_size, snapshot_ply):
    from simkit.engine.runner import DEFAULT_SNAPSHOT_PLY, RunConfig
    if isinstance(policies, str):
        policies = (policies, policies)
    return RunConfig(games=games, seed=seed, policies=tuple(policies), first=first, chunk_size=chunk_size,
                     snapshot_ply=DEFAULT_SNAPSHOT_PLY if snapshot_ply is None else snapshot_ply)


def compare(a, b=None, games=10_000, *, overrides_a=None, overrides_b=None, seed=0, policies=("greedy", "greedy"),
            first="alternate", precision=None, threads=None, chunk_size=None, snapshot_ply=None, out_dir=None,
            keep=True, backend=None):
    """Compare scenario B with A on common random numbers (game i of A vs game i of B).

    ``a``/``b``: game names, scenario files or Scenarios (``b`` defaults to ``a``; use
    ``overrides_b={"clock": "off"}``). Returns a CompareResult: ``.table`` (A, B, B - A,
    95% CI, p-value per metric), ``.games`` (per-game records of both, ``variant`` a/b),
    ``.summary()``, ``.verdict``."""
    from simkit.analysis.compare import compare as _compare
    sa = _scenario(a, overrides_a)
    sb = _scenario(a if b is None else b, overrides_b)
    return _compare(sa, sb, _config(games, seed, policies, first, chunk_size, snapshot_ply), threads=threads,
                    out_dir=out_dir, precision=precision, keep=keep, progress=False, backend=backend)


def sweep(target, vary, games=10_000, *, overrides=None, seed=0, policies=("greedy", "greedy"), first="alternate",
          precision=None, threads=None, chunk_size=None, snapshot_ply=None, out_dir=None, backend=None):
    """Run every combination of ``vary`` ({key: [values]} or ["key=1..3", ...]).

    Returns a SweepResult: ``.table`` (one row per cell: the varied keys, then metrics with
    ``_ci_lo``/``_ci_hi``), ``.summary()``."""
    from simkit.analysis.sweep import sweep as _sweep
    from simkit.scenario.sweep import parse_grid
    base = _scenario(target, overrides)
    items = [f"{k}={','.join(_grid_value(v) for v in vs)}" for k, vs in vary.items()] if isinstance(vary, dict) \
        else list(vary)
    keys, grid = parse_grid(items, base.spec)
    return _sweep(base, keys, grid, _config(games, seed, policies, first, chunk_size, snapshot_ply),
                  base_sets=dict(base.overrides), threads=threads, out_dir=out_dir, precision=precision,
                  progress=False, backend=backend)


def _grid_value(v):
    import json
    if isinstance(v, bool):
        return "true" if v else "false"
    return json.dumps(v) if isinstance(v, str) else repr(v)


def values(target, games=50_000, *, overrides=None, seed=0, policies=("random", "random"), first="alternate",
           snapshot_ply=None, threads=None, chunk_size=None, out_dir=None):
    """Unit values by ablation and by regression. Returns a ValuesResult: ``.table``
    (method, unit, value, ci_lo, ci_hi), ``.summary()``."""
    from simkit.analysis.values import unit_values
    from simkit.engine.runner import validate_config
    sc = _scenario(target, overrides)
    config = _config(games, seed, policies, first, chunk_size, None)
    validate_config(sc.spec, config)
    return unit_values(sc, config, threads=threads, out_dir=out_dir, snapshot_ply=snapshot_ply)


def matchup(target, policies, games=10_000, *, overrides=None, seed=0, first="alternate", threads=None,
            chunk_size=None, out_dir=None):
    """Every pair of ``policies``, both seat orders. Returns a MatchupResult: ``.matrix``
    (row policy's expected score vs column), ``.table``, ``.summary()``."""
    from simkit.analysis.matchup import check_policies, matchup as _matchup
    sc = _scenario(target, overrides)
    pols = check_policies(sc.spec, list(policies))
    return _matchup(sc, pols, _config(games, seed, (pols[0], pols[1]), first, chunk_size, None), threads=threads,
                    out_dir=out_dir)
