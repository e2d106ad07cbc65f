"""Storm the Castle through the step API (simkit.env): the kernel's and the search's own functions,
one decision or roll at a time.

**Decisions** are the search's codes (search.py): ``kind + 8 * (u + U * v)`` with
``U = max(2 * spaces, card types)``, so the action space has ``8 * U * U`` ids (15,488 with the
default board). A unit is ``space * 2 + slot`` (slot 0 the top of the stack). Kinds: 0 end the
turn, 7 end the dispatch, 1 dispatch (u = card type, v = its space; an item: its holder's
space), 2 move (v = the destination), 3 attack (v = the target unit), 4 a Cleric's prayer,
5 a Blacksmith's forging (v = the item type), 6 a Sorcerer's buff. A code names public facts
only (no card ids), so it means the same in every redeal of the hidden cards. Labels:
``dispatch knight -> BR0``, ``move L1/top -> L2``, ``attack L3/top -> HR1/top``.

**Chance events**: a roll of 2d6 (an attack on a Regular unit, a prayer, a forging) is its own
node after the decision. Outcome codes (``max_outcomes`` 3): 0 failure, 1 success, 2 critical
failure (a natural 2 of an attack; the melee attacker dies), with exact probabilities from
engine/dice.py. A prayer or a forging has failure and success (P(2d6 = 7) = 1/6).

**Hidden cards** (``perfect_information`` False): the observation of a player holds its own hand
but of the opponent only the hand's size, and of both decks only their sizes; ``determinise``
(the search's hook) redeals the opponent's hand and deck and the order of the player's own deck.

**Observation** (float32, flat; ``S`` spaces and ``T`` card types of the scenario, 22 and 11 by
default: 1,712 values), in this order:
- ``units`` [S, 2 slots, 2 sides, T]: the card type on each stack slot, by owner (one-hot);
- ``items`` [S, 2, T]: the item under that unit; ``acted`` [S, 2]: it has acted this turn;
  ``buff`` [S, 2]: its Sorcerer bonus this turn;
- ``hand`` [T]: the observer's own hand by type; ``sizes`` [6]: each side's hand, deck and
  graveyard sizes (side 0's three, then side 1's);
- ``graves`` [2, T]: each graveyard by type; ``grave_tops`` [2, T]: its top card's type (the
  card a Cleric raises);
- ``turn`` [12]: the observer (2, one-hot), the side to move (2), the phase (2: dispatch,
  actions), the dispatch points left, the attacks made, the turns played, the idle turns (ST-S),
  and the pending roll's kind (2: attack, prayer or forging; 0 when none);
- ``pending`` [2 * S * 2 + T]: the rolling unit and its target unit (planes over the stack
  slots), and the type of the item a forging rolls for.
"""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from simkit.engine.dice import STORM_O_CRIT_FAIL, STORM_O_SUCCESS, storm_attack_probs_nb
from simkit.env.rules import GameSteps
from simkit.games.storm_the_castle import search
from simkit.games.storm_the_castle.features import features_nb
from simkit.games.storm_the_castle.moves import modifier_nb
from simkit.games.storm_the_castle.play import search_scratch, tabs_of
from simkit.games.storm_the_castle.render import board_text, card_name, with_item
from simkit.games.storm_the_castle.rules import (AB_SORC, K_ITEM, K_REG, O_BONUS2, O_BUF, O_F, O_MAXTURNS, O_NC, O_NS,
                                                 O_POINTS, O_T, T_AB, T_BONUS, T_KIND, T_ROLL, Params)
from simkit.games.storm_the_castle.search import PD_A, PD_B, PD_KIND, n_actions, tree_capacity
from simkit.games.storm_the_castle.state import (ACT_ATTACK, ACT_CLERIC, ACT_DISPATCH, ACT_MOVE, ACT_SMITH, ACT_SORC,
                                                 C_ACTED,
                                                 C_BUFF, C_ITEM, C_OWNER, C_POS, C_TYPE, END_REASONS, G_ATTACKS,
                                                 G_IDLE, G_OVER, G_PHASE, G_POINTS, G_REASON, G_SIDE, G_TURN,
                                                 G_WINNER, L_DECK, L_GRAVE, L_HAND,
                                                 PH_DISPATCH)
from simkit.games.storm_the_castle.step import (chance_classes_nb, first_decision_nb, finish_record_nb,
                                                play_code_nb, policy_code_nb, resolve_outcome_nb, roll_outcome_nb)
from simkit.policies import max_budget

PENDING_KINDS = {ACT_ATTACK: 1, ACT_CLERIC: 2, ACT_SMITH: 2}
OUTCOMES = ("fails", "succeeds", "critical failure")


class StormTheCastleSteps(GameSteps):
    max_outcomes = 3
    perfect_information = False

    def __init__(self, spec, params):
        super().__init__(spec, params)
        self.p = p = params if isinstance(params, Params) else Params(*params)
        self.tabs = tabs_of(p)      # both sides' knob rows: the scripted choice hands the mover's to the search
        self.P = tabs_of(p, 0)      # the search's hooks (they read no knob)
        iopt = p.iopt
        self.nc, self.ns, self.nt = int(iopt[O_NC]), int(iopt[O_NS]), int(iopt[O_T])
        self.num_actions = n_actions(p)
        self.agg_size = self.ns
        ns, nt = self.ns, self.nt
        maxt = int(iopt[O_MAXTURNS])
        # a turn: at most a dispatch per card in hand, ending the dispatch, each own unit on the board
        # acting once with a roll after it, ending the turn
        self.max_decisions = maxt * (self.nc + 2 + 2 * min(self.nc, 2 * ns))
        self.sections = {"units": ns * 2 * 2 * nt, "items": ns * 2 * nt, "acted": ns * 2, "buff": ns * 2,
                         "hand": nt, "sizes": 6, "graves": 2 * nt, "grave_tops": 2 * nt, "turn": 12,
                         "pending": 2 * ns * 2 + nt}
        self.at, k = {}, 0
        for name, size in self.sections.items():
            self.at[name] = k
            k += size
        self.obs_shape = (k,)
        self.obs_low = np.zeros(k, np.float32)
        high = np.ones(k, np.float32)
        most = p.copies.max(axis=0).astype(np.float32)          # copies of each type in the larger deck
        sorcery = sum(int(p.ctab[t, T_BONUS]) * int(most[t]) for t in range(nt) if p.ctab[t, T_AB] == AB_SORC)
        self._put(high, "buff", max(sorcery, 1))
        self._put(high, "hand", most)
        self._put(high, "sizes", self.nc)
        self._put(high, "graves", np.tile(most, 2))
        turn = np.ones(12, np.float32)
        turn[6:10] = iopt[O_POINTS] + iopt[O_BONUS2], 2, maxt, 2
        self._put(high, "turn", turn)
        self.obs_high = high
        self._codes = np.zeros(int(iopt[O_BUF]), np.int32)   # int32, as the search's buffer: decisions_nb compiles once
        self._scores = np.zeros(int(iopt[O_BUF]), np.float64)
        self._outs = np.zeros(search.MAX_OUTCOMES, np.int64)
        self._probs = np.zeros(search.MAX_OUTCOMES, np.float64)
        self._scratch, self._cap = None, -1

    def _part(self, out, name):
        return out[self.at[name]:self.at[name] + self.sections[name]]

    def _put(self, out, name, values):
        self._part(out, name)[:] = values

    @property
    def record_len(self):
        return int(self.p.iopt[O_F])      # this deck's record columns

    # --- the position --------------------------------------------------------------------
    def new_position(self):
        iopt = self.p.iopt
        return search.new_state_nb(iopt[O_NC], iopt[O_NS], iopt[O_T], iopt[O_BUF], iopt[O_F])

    def start(self, S, first, rng, rec):
        first_decision_nb(self.P, S, self.p.copies, np.int64(first), rec, rng)

    def status(self, S):
        return int(search.status_nb(self.P, S))

    def to_move(self, S):
        return int(S[4][G_SIDE])

    def chance(self, S):
        m = chance_classes_nb(self.P, S, self._outs, self._probs)
        return list(zip(self._outs[:m].tolist(), self._probs[:m].tolist()))

    def roll(self, S, rng):
        return int(roll_outcome_nb(self.P, S, rng))

    def resolve(self, S, outcome, rng, rec, agg):
        resolve_outcome_nb(self.P, S, np.int64(outcome), rng, rec, agg)

    def evaluate(self, S):
        # the search's leaf value (side 0's expected score), with side 0's rows of the knob table (mcts_scale,
        # keep rounds) and of the weight table (self.P): both rows are the scenario's unless a side plays its own
        return float(search.evaluate_nb(self.P, S))

    def features(self, S):
        # the learnable part of the evaluation the players score with (evaluate.material_lead_nb = dot(row, f))
        # and whether the side to move is at the start of its turn (features.py: why that is quiet)
        p = self.p
        quiet, f = features_nb(p.ctab, p.spi, p.iopt, p.dist, p.keep, S[0], S[1], S[2], S[3], S[4], S[5])
        return bool(quiet), f

    def legal(self, S):
        n = search.decisions_nb(self.P, S, self._codes, self._scores)
        return np.sort(self._codes[:n].astype(np.int64))

    def apply(self, S, code, rng, rec, agg, snapshot_ply):
        play_code_nb(self.P, S, np.int64(code), rng, rec, agg, np.int64(snapshot_ply))

    def choose(self, S, policies, rng):
        cap = tree_capacity(max_budget(policies))
        if self._scratch is None or self._cap < cap:
            self._scratch, self._cap = search_scratch(self.p, policies), cap
        return int(policy_code_nb(np.asarray(policies, np.int64), self.tabs, S, self._scratch, rng))

    def finish(self, S, first, rec, snapshot_ply):
        finish_record_nb(S[0], S[1], S[3], S[4], self.p.fidx, self.p.eidx, rec)

    def determinise(self, S, player, rng):
        search.determinise_nb(self.P, S, np.int64(player), rng)

    # --- what a player sees --------------------------------------------------------------
    def observation(self, S, player):
        cards, sp, zones, zn, g, pend = S[0], S[1], S[2], S[3], S[4], S[5]
        ns, nt = self.ns, self.nt
        out = np.zeros(self.obs_shape, np.float32)
        units = self._part(out, "units").reshape(ns, 2, 2, nt)
        items = self._part(out, "items").reshape(ns, 2, nt)
        acted = self._part(out, "acted").reshape(ns, 2)
        buff = self._part(out, "buff").reshape(ns, 2)
        for x in range(ns):
            for j in range(2):
                c = sp[x, j]
                if c < 0:
                    continue
                units[x, j, cards[c, C_OWNER], cards[c, C_TYPE]] = 1
                if cards[c, C_ITEM] >= 0:
                    items[x, j, cards[cards[c, C_ITEM], C_TYPE]] = 1
                acted[x, j] = cards[c, C_ACTED]
                buff[x, j] = cards[c, C_BUFF]
        k = self.at["hand"]
        for i in range(zn[player, L_HAND]):        # the observer's own hand only
            out[k + cards[zones[player, L_HAND, i], C_TYPE]] += 1
        k = self.at["sizes"]
        for s in (0, 1):
            out[k + 3 * s:k + 3 * s + 3] = zn[s, L_HAND], zn[s, L_DECK], zn[s, L_GRAVE]
        k, top = self.at["graves"], self.at["grave_tops"]
        for s in (0, 1):
            n = zn[s, L_GRAVE]
            for i in range(n):
                out[k + s * nt + cards[zones[s, L_GRAVE, i], C_TYPE]] += 1
            if n:
                out[top + s * nt + cards[zones[s, L_GRAVE, n - 1], C_TYPE]] = 1
        k = self.at["turn"]
        out[k + player] = 1
        out[k + 2 + g[G_SIDE]] = 1
        out[k + 4 + (0 if g[G_PHASE] == PH_DISPATCH else 1)] = 1
        out[k + 6:k + 10] = g[G_POINTS], g[G_ATTACKS], g[G_TURN], g[G_IDLE]
        kind = int(pend[PD_KIND])
        if kind:
            out[k + 10 + PENDING_KINDS[kind] - 1] = 1
            k = self.at["pending"]
            a, b = int(pend[PD_A]), int(pend[PD_B])
            out[k + self._slot(S, a)] = 1
            if kind == ACT_ATTACK:
                out[k + 2 * ns + self._slot(S, b)] = 1
            elif kind == ACT_SMITH:
                out[k + 4 * ns + cards[b, C_TYPE]] = 1
        return out

    @staticmethod
    def _slot(S, c):
        cards, sp = S[0], S[1]
        x = cards[c, C_POS]
        return 2 * x + (0 if sp[x, 0] == c else 1)

    def _view(self, S):
        """The game as render.py's board text reads it."""
        return SimpleNamespace(p=self.p, cards=S[0], sp=S[1], zones=S[2], zn=S[3], g=S[4], nc=self.nc)

    def label(self, S, code):
        return search.decision_label(self.p, int(code))

    def _option(self, S, code):
        """The (kind, a, b) option of the decision with this code (card ids), or None."""
        n = search.options_nb(self.P, S)
        buf, phase = S[9], np.int64(S[4][G_PHASE])
        for k in range(n):
            kind, a, b = (np.int64(v) for v in buf[k])
            if search.encode_nb(phase, kind, a, b, S[0], S[1], self.P[0], self.P[6]) == code:
                return int(kind), int(a), int(b)
        return None

    def describe(self, S, code):
        opt = self._option(S, int(code))
        if opt is None:
            return self.label(S, code)
        kind, a, b = opt
        v, p, cards = self._view(S), self.p, S[0]
        where = p.spnames
        if kind == ACT_DISPATCH:
            if p.ctab[cards[a, C_TYPE], T_KIND] == K_ITEM:
                return f"dispatch {card_name(v, a)}, equipped to {card_name(v, b)} on {where[cards[b, C_POS]]}"
            return f"dispatch {card_name(v, a)} onto {where[b]}"
        if kind == ACT_MOVE:
            return f"move {with_item(v, a)} {where[cards[a, C_POS]]} -> {where[b]}"
        if kind == ACT_ATTACK:
            txt = f"attack {with_item(v, a)} ({where[cards[a, C_POS]]}) -> {with_item(v, b)} ({where[cards[b, C_POS]]})"
            if p.ctab[cards[b, C_TYPE], T_KIND] != K_REG:
                return txt + ": a Support unit dies without a roll (ST-3)"
            mod = int(modifier_nb(cards, S[1], p.ctab, p.spi, np.int64(a), np.int64(b), np.int64(0)))
            probs = np.zeros(3)
            storm_attack_probs_nb(mod, probs)
            return txt + f": modifier {mod:+d}, needs 2d6 <= {3 + mod}, P(success) {probs[STORM_O_SUCCESS]:.3f}"
        if kind == ACT_CLERIC:
            return f"{card_name(v, a)} prays on {where[cards[a, C_POS]]} (needs {p.ctab[cards[a, C_TYPE], T_ROLL]})"
        if kind == ACT_SMITH:
            return f"{card_name(v, a)} forges {card_name(v, b)} (needs {p.ctab[cards[a, C_TYPE], T_ROLL]})"
        if kind == ACT_SORC:
            return f"{card_name(v, a)} empowers {card_name(v, b)} (+{p.ctab[cards[a, C_TYPE], T_BONUS]} A)"
        return self.label(S, code)

    def outcome_label(self, S, outcome):
        pend, cards = S[5], S[0]
        if pend[PD_KIND] == ACT_ATTACK:
            return OUTCOMES[int(outcome)]
        need = self.p.ctab[cards[pend[PD_A], C_TYPE], T_ROLL]
        return f"rolls {need}" if outcome == STORM_O_SUCCESS else f"misses {need}"

    def render(self, S, player=None):
        g, pend = S[4], S[5]
        board = board_text(self._view(S), player)
        if g[G_OVER]:
            result = "a draw" if g[G_WINNER] < 0 else f"side {g[G_WINNER]} wins"
            return f"{board}\n{result} ({END_REASONS[g[G_REASON]]}) after {g[G_TURN]} turns"
        phase = "dispatch" if g[G_PHASE] == PH_DISPATCH else "actions"
        txt = (f"{board}\nturn {g[G_TURN] + 1}, side {g[G_SIDE]} to move, {phase} phase, "
               f"{g[G_POINTS]} dispatch points left, {g[G_ATTACKS]} attacks made")
        if pend[PD_KIND]:
            v = self._view(S)
            what = {ACT_ATTACK: "attacks", ACT_CLERIC: "prays", ACT_SMITH: "forges"}[int(pend[PD_KIND])]
            txt += f"; {card_name(v, pend[PD_A])} {what}, 2d6 to roll"
        return txt


assert STORM_O_CRIT_FAIL == OUTCOMES.index("critical failure")
