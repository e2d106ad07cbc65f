"""Stage 1 of the pipeline: read, inherit, override and validate scenarios."""
from simkit.scenario.load import Scenario, load_scenario, parse_set

__all__ = ["Scenario", "load_scenario", "parse_set"]
