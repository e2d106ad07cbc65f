"""Scenario.with_overrides: derived scenarios (ablation, sweep cells) start from the resolved rules,
so rules changed in Python are honoured (issue 11: they were rebuilt from the scenario file)."""
import pytest

from simkit.analysis.sweep import load_cells
from simkit.analysis.values import _removal
from simkit.errors import ScenarioError
from simkit.scenario import load_scenario


def _python_changed():
    sc = load_scenario("martian_chess")
    sc.rules["max_plies"] = sc.rules["max_plies"] + 37     # a designer's change made in Python
    return sc


def test_with_overrides_keeps_python_side_rules_and_validates():
    sc = _python_changed()
    out = sc.with_overrides({"clock": "off"})
    assert out.rules["clock"] == "off" and out.rules["max_plies"] == sc.rules["max_plies"]
    assert sc.rules["clock"] != "off"                      # the base is not modified
    assert out.overrides["clock"] == "off"
    with pytest.raises(ScenarioError):
        sc.with_overrides({"no_such_rule": 1})
    with pytest.raises(ScenarioError):
        sc.with_overrides(["max_plies=-5"])


def test_sweep_cells_keep_python_side_rules():
    sc = _python_changed()
    cells = load_cells(sc, ["clock"], [("off",), ("deadlock",)], {})
    assert [c.rules["clock"] for c in cells] == ["off", "deadlock"]
    assert all(c.rules["max_plies"] == sc.rules["max_plies"] for c in cells)


def test_ablation_keeps_python_side_rules():
    sc = _python_changed()
    unit = sc.spec.unit_types[0]
    ablated, why = _removal(sc, 0, unit)
    assert ablated is not None, why
    assert ablated.rules["remove_0"] == {unit: 1}
    assert ablated.rules["max_plies"] == sc.rules["max_plies"]
