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
