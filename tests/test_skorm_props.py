"""Skorm: perft goldens, an independent move generator, invariants over
reachable states (hypothesis), records and determinism."""
import json
from pathlib import Path

import numba
import numpy as np
from hypothesis import given, settings, strategies as st

from simkit.games.skorm import SPEC
from simkit.games.skorm.play import RECORD_FIELDS, Game, run_chunk
from simkit.games.skorm.rules import I_RANGE, I_STEPS_H, I_STEPS_W, P_ARMY, P_CQ, P_CR, P_I, UNITS
from simkit.games.skorm.moves import attack_bits_nb, threat_dirs_nb
from simkit.games.skorm.state import SC_CNT, SC_PN0, SC_TOMOVE, SC_WL0
from skorm_helpers import params_for, reference_actions

DATA = Path(__file__).parent / "data" / "skorm"
VARIANTS = [
    params_for(),
    params_for(placement="random"),
    params_for(archer_range=3, placement="wall"),
    params_for(board_radius=5, zone_depth=4, placement="wall", gold_tile_immediate_max=6),
    params_for(horseman_steps=1, army={"shieldman": 3, "archer": 2, "horseman": 2}, placement="random",
               remove_1={"archer": 2}, facing="random"),
    params_for(placement="random", facing="none", warlord_steps=1, gold_tile=False, max_plies=120),
]


def test_perft_golden():
    golden = json.loads((DATA / "perft.json").read_text())
    got = SPEC.perft(params_for(), 4)
    assert got[:2] == [27, 728]                       # given by the issue
    assert got == [golden[str(d)] for d in range(1, 5)]


def _check_attack_map(p, g):
    """Greedy's cheap attack map agrees with the opponent's real action list."""
    s = g.to_move
    o = 1 - s
    g.sc[SC_TOMOVE] = o
    targets = {int(a) & 255 for a in g.legal_actions()}
    g.sc[SC_TOMOVE] = s
    w0, w1 = attack_bits_nb(p, g.cell, g.plist, g.sc, o, -1)
    bits = (int(w1) << 64) | int(w0)
    for c in g.plist[s, :g.sc[SC_PN0 + s]]:
        c = int(c)
        if g.cell[c] == 1 + 4 * s:   # shieldman: direction mask vs its facing
            m = threat_dirs_nb(p, g.cell, c, o, g.counts)
            assert ((m & ~(1 << int(g.face[c]))) != 0) == (c in targets)
        else:
            assert bool((bits >> c) & 1) == (c in targets)


def test_start_position_is_point_symmetric():
    p = VARIANTS[0]
    idx = {(int(q), int(r)): i for i, (q, r) in enumerate(zip(p[P_CQ], p[P_CR]))}
    coords = {i: c for c, i in idx.items()}

    def refl(c):
        return idx[(-coords[c][0], -coords[c][1])]

    g0 = Game(p, first=0)
    g1 = Game(p, first=1)
    a0 = {(a >> 16, refl((a >> 8) & 255), refl(a & 255)) for a in g0.legal_actions().tolist()}
    a1 = {(a >> 16, (a >> 8) & 255, a & 255) for a in g1.legal_actions().tolist()}
    assert a0 == a1 and len(a0) == 27


def _check_invariants(p, g, prev_counts):
    N = g.cell.shape[0]
    counts = np.array([(g.cell == 1 + 4 * s + k).sum() for s in (0, 1) for k in range(4)])
    assert (counts <= prev_counts).all()                          # pieces never appear
    assert np.array_equal(counts, g.sc[SC_CNT:SC_CNT + 8])
    for s in (0, 1):
        cells = g.plist[s, :g.sc[SC_PN0 + s]]
        assert len(set(cells.tolist())) == len(cells)             # one piece per cell
        assert all((g.cell[c] - 1) >> 2 == s for c in cells)
        assert len(cells) == counts[4 * s:4 * s + 4].sum()
        wl = g.sc[SC_WL0 + s]
        assert (wl < 0) == (counts[4 * s + 3] == 0)
        if wl >= 0:
            assert g.cell[wl] == 1 + 4 * s + 3
    shields = (g.cell == 1) | (g.cell == 5)
    assert ((g.face[shields] >= 0) & (g.face[shields] <= 5)).all()   # facings valid
    assert (g.face[~shields] == -1).all()
    assert 0 <= g.cell.min() and g.cell.max() <= 8 and g.cell.shape[0] == N
    return counts


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31), variant=st.integers(0, len(VARIANTS) - 1),
       pols=st.tuples(st.integers(0, 1), st.integers(0, 1)), first=st.integers(0, 1))
def test_reachable_states(seed, variant, pols, first):
    p = VARIANTS[variant]
    ip = p[P_I]
    steps = (1, 1, int(ip[I_STEPS_H]), int(ip[I_STEPS_W]))
    g = Game(p, seed=seed, game=seed % 97, first=first)
    army = p[P_ARMY]
    counts = np.array([army[s, k] for s in (0, 1) for k in range(4)])
    assert np.array_equal(counts, g.sc[SC_CNT:SC_CNT + 8])       # placement put the whole army down
    counts = _check_invariants(p, g, counts)
    plies = 0
    while not g.done:
        acts = g.legal_actions()
        assert len(set(acts.tolist())) == len(acts)               # SK-5b: each action once
        assert set(acts.tolist()) == reference_actions(p, g.cell, g.face, g.to_move, int(ip[I_RANGE]), steps)
        _check_attack_map(p, g)
        g.play(pols[g.to_move])
        plies += 1
        counts = _check_invariants(p, g, counts)
    assert len(g.legal_actions()) == 0                            # a finished game has no actions
    assert g.end_reason is not None and plies >= 1


def _consistent(p, rec, agg):
    f = {name: rec[:, i] for i, name in enumerate(RECORD_FIELDS)}
    army = p[P_ARMY]
    for s in (0, 1):
        for k, u in enumerate(UNITS):
            assert np.array_equal(f[f"kills_{s}_{u}"], f[f"kills_capture_{s}_{u}"] + f[f"kills_shot_{s}_{u}"])
            assert np.array_equal(f[f"final_{s}_{u}"], army[s, k] - f[f"losses_{s}_{u}"])
            assert (f[f"snap_{s}_{u}"] >= f[f"final_{s}_{u}"]).all()
        assert (f[f"kills_capture_{s}_archer"] == 0).all()        # archers never capture
        assert (f[f"kills_shot_{s}_shieldman"] == 0).all()
        lost = sum(f[f"losses_{1 - s}_{u}"] for u in UNITS)
        made = sum(f[f"kills_{s}_{u}"] for u in UNITS)
        assert np.array_equal(lost, made)
    assert agg.sum() == sum(f[f"losses_{s}_{u}"].sum() for s in (0, 1) for u in UNITS)
    reasons = f["end_reason"]
    w = f["winner"]
    assert ((w == -1) == np.isin(reasons, [3, 4])).all()          # stalemate / move_limit are the draws
    killed = reasons == 0
    assert (f["losses_0_warlord"][killed] + f["losses_1_warlord"][killed] == 1).all()
    assert (f["plies"] <= int(p[P_I][7])).all()


def test_records_and_determinism():
    p = VARIANTS[1]
    firsts = (np.arange(120) % 2).astype(np.int8)
    numba.set_num_threads(1)
    try:
        rec1, agg1 = run_chunk(p, 99, 1000, firsts, (1, 0), 10)
    finally:
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    rec2, agg2 = run_chunk(p, 99, 1000, firsts, (1, 0), 10)
    a, _ = run_chunk(p, 99, 1000, firsts[:37], (1, 0), 10)
    b, _ = run_chunk(p, 99, 1037, firsts[37:], (1, 0), 10)
    assert np.array_equal(rec1, rec2) and np.array_equal(agg1, agg2)
    assert np.array_equal(rec1, np.vstack([a, b]))
    _consistent(p, rec1, agg1)
    other, _ = run_chunk(p, 100, 1000, firsts, (1, 0), 10)
    assert not np.array_equal(rec1, other)
    for q in (VARIANTS[0], VARIANTS[3]):
        rec, agg = run_chunk(q, 5, 0, firsts[:40], (0, 1), 10)
        _consistent(q, rec, agg)
        assert agg.shape == (int(q[P_I][0]),) and len(SPEC.aggregate_index(q)) == agg.shape[0]


def test_greedy_beats_random_and_trace_is_the_batch_game():
    p = VARIANTS[0]
    firsts = (np.arange(40) % 2).astype(np.int8)
    rec, _ = run_chunk(p, 3, 0, firsts, (1, 0), 10)
    assert (rec[:, 1] == 0).mean() > 0.9
    text = SPEC.play(p, 3, 5, int(firsts[5]), (1, 0))
    last = text.strip().splitlines()[-1]
    assert f"player {rec[5, 1]} wins" in last and f"after {rec[5, 2]} plies" in last
    assert "S5" in text and "s2" in text                          # shields drawn with their facing
    assert SPEC.aggregate_index(p)[30] == "0,0"


def test_random_policy_is_uniform_over_actions():
    """From the start position the 27 actions are drawn uniformly (chi-square)."""
    p = VARIANTS[0]
    start = Game(p).legal_actions()
    assert len(start) == 27
    n = 2700
    counts = {int(a): 0 for a in start}
    for seed in range(n):
        g = Game(p, seed=seed, game=0, first=0)
        counts[g.play(0)] += 1
    obs = np.array(list(counts.values()))
    chi2 = ((obs - n / 27) ** 2 / (n / 27)).sum()
    assert obs.min() > 0 and chi2 < 70            # 26 dof: P(chi2 > 70) ~ 1e-5
