"""Practical significance: significant but negligible effects are reported, not highlighted."""
import math

from simkit.report.findings import FPA_THRESHOLD, run_findings


class _Run:
    """The little of a report run that run_findings reads."""
    length_unit = "plies"
    games = None
    game = "martian_chess"

    def __init__(self, summary):
        self.summary = summary

    def length_cap(self):
        return None

    def units(self):
        import pandas as pd
        return pd.DataFrame()


def _summary(first, second, draws, fpa_ci):
    n = first + second + draws
    fpa = (first + draws / 2) / n - 0.5
    return {"games": n, "first_player_win_rate": first / n, "second_player_win_rate": second / n,
            "draw_rate": draws / n, "draw_rate_ci": [0, 1], "side0_win_rate": (first + second) / (2 * n),
            "side1_win_rate": (first + second) / (2 * n), "first_player_advantage": fpa,
            "first_player_advantage_ci": fpa_ci, "end_reasons": {}, "plies_quantiles": {}, "mean_plies": None}


def _fpa_finding(s):
    return next(f for f in run_findings(_Run(s)) if f.text.startswith("First-player advantage"))


def test_a_small_significant_fpa_is_negligible_not_flagged():
    f = _fpa_finding(_summary(505_000, 491_000, 4_000, [0.006, 0.008]))     # FPA +0.007, significant
    assert "negligible" in f.text and not f.flag
    assert FPA_THRESHOLD == 0.02


def test_a_large_fpa_matters_and_is_flagged():
    f = _fpa_finding(_summary(560_000, 440_000, 0, [0.058, 0.062]))
    assert "practical threshold" in f.text and "negligible" not in f.text and f.flag
    f = _fpa_finding(_summary(500, 500, 0, [-0.03, 0.03]))
    assert "not distinguishable" in f.text and not f.flag
    assert not math.isnan(FPA_THRESHOLD)


def test_many_draws_are_still_flagged():
    s = _summary(137, 138, 725, [-0.03, 0.03])
    draws = next(f for f in run_findings(_Run(s)) if "drawn" in f.text)
    assert draws.flag


def _side_finding(s):
    return next(f for f in run_findings(_Run(s)) if f.text.startswith("Side 0 wins"))


def test_no_significant_imbalance_is_not_called_balanced():
    # `simkit run skorm --games 12 --policy random`: side 0 takes 8 of 12 decided games, 95% CI 39%-86%
    s = _summary(6, 6, 0, [-0.3, 0.3])
    s["side0_win_rate"], s["side1_win_rate"] = 8 / 12, 4 / 12
    f = _side_finding(s)
    assert "no significant imbalance" in f.text and "balanced" not in f.text, f.text
    assert "balance is not shown" in f.text and not f.flag
    fpa = _fpa_finding(s)
    assert "not distinguishable from zero" in fpa.text and "balanced" not in fpa.text, fpa.text


def test_balanced_only_from_an_equivalence_test():
    # 1,000,000 decided games split evenly: the 90% intervals lie well inside ±2 points / ±0.02
    s = _summary(500_000, 500_000, 0, [-0.001, 0.001])
    f = _side_finding(s)
    assert "balanced within ±2.0 points (equivalence test: the 90% interval [49.9%, 50.1%] lies inside " \
           "[48.0%, 52.0%])" in f.text, f.text
    fpa = _fpa_finding(s)
    assert "balanced within ±0.0200 (equivalence test" in fpa.text, fpa.text
    # not significant and not equivalent: 1,000 games' 90% interval reaches 2.6 points from even
    s = _summary(500, 500, 0, [-0.03, 0.03])
    assert "balanced" not in _side_finding(s).text and "balanced" not in _fpa_finding(s).text
