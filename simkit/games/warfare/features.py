"""Warfare!'s evaluation as weighted features (simkit learn, docs/learn.md; GameSpec.eval_features).

The search's lead (search.lead_nb, side 0's view, before ``mcts_scale`` squashes it) is, for any row ``w``
of the weight table (state.P_EVAL)::

    lead(w) = sum_t w[material:t] * (side 0's units of type t - side 1's)  +  w[threat] * threat

``threat`` (search.threat_nb) is the side to move's attack potential minus half the other side's, signed
for side 0, scored in the rules' unit values -- never the row's, so that it is a feature and not a
function of the weights. No fixed term is left: the lead is exactly ``dot(w, f)``. (The squash, the cap's
pull to 1/2 and the greedy commander's move heuristics are not position values a fit could weigh.)

**quiet**: the start of a side's turn, before its first decision -- no activation made this turn, no
opposed roll and no advance decision pending, the game going on. Mid-turn a position is an exchange
under way: the mover's remaining activations and a pending roll swing the material at once, so a
material-only snapshot there mostly measures the turn's order, not the position (as in Storm the Castle).
"""
import numpy as np
from numba import njit

from simkit.engine.search import ONGOING

from .search import M_ADVU, M_NACT, M_PU, M_RESULT, S_META, S_SIDE, S_TYPE, S_USQ, lead_nb, threat_nb
from .state import EV_MATERIAL, EV_THREAT, NEV


@njit(cache=True)
def features_nb(P, S):
    """(quiet, f) of the position in search state ``S`` (module docstring): f float64[NEV] in the order of
    state.EVAL_FEATURES, side 0's minus side 1's."""
    f = np.zeros(NEV, np.float64)
    usq, utype, uside = S[S_USQ], S[S_TYPE], S[S_SIDE]
    for u in range(usq.shape[0]):
        if usq[u] >= 0:
            f[EV_MATERIAL + utype[u]] += 1.0 if uside[u] == 0 else -1.0
    f[EV_THREAT] = threat_nb(P, S)
    meta = S[S_META]
    quiet = meta[M_RESULT] == ONGOING and meta[M_NACT] == 0 and meta[M_PU] < 0 and meta[M_ADVU] < 0
    return quiet, f


@njit(cache=True, _nrt=False)
def lead_of_nb(P, S, val):
    """search.lead_nb (the evaluation's lead with weight row ``val``), from Python: for tests and fits."""
    return lead_nb(P, S, val)
