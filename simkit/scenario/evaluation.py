"""Which evaluation each side plays with: the rules' hand-set weights or weights learned for the variant.

A game declares its evaluation as weights of named features (``GameSpec.eval_features``) in a table with
a row per side (``params[spec.eval_slot]``). ``simkit learn`` (simkit/analysis/learn.py) fits the weights
to game outcomes and, once a paired match accepted them, stores them here, keyed by the game and the
variant's resolved rules — the rule options only, not the policy knobs (greedy weights, MCTS settings),
so a changed rule gets its own weights and a changed knob (or a handicap) does not.

Every command finds the stored weights of its variant: the rule-like option ``evaluation`` (``--eval``)
is ``auto`` (learned when the variant has them, else the default), ``default`` or ``learned`` (an error
when the variant has none), and a policy string may name its own (``greedy@learned``, ``mcts:400@default``).

The store is a folder of JSON files: ``$SIMKIT_EVALUATIONS`` or ``~/.local/share/simkit/evaluations``.
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import numpy as np

from simkit.errors import UsageError

EVALUATIONS = ("auto", "default", "learned")
OPTION = "evaluation"


def store_dir() -> Path:
    env = os.environ.get("SIMKIT_EVALUATIONS")
    if env:
        return Path(env)
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "simkit" / "evaluations"


HANDICAPS = ("remove_0", "remove_1")


def variant_key(spec, rules: dict) -> str:
    """The variant's identity: a hash of its rule options. Policy knobs (and ``evaluation``) are left out,
    and so are the handicaps (units removed from one side): a handicap changes an army, not how positions
    are worth judging, and `simkit values` must judge its ablated games with the base game's evaluation."""
    keep = {o.name: rules[o.name] for o in spec.options
            if not o.policy_knob and o.name not in HANDICAPS and o.name in rules}
    text = json.dumps({"game": spec.name, "rules": keep}, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def stored_path(spec, rules: dict) -> Path:
    return store_dir() / f"{spec.name}-{variant_key(spec, rules)}.json"


def load_learned(spec, rules: dict) -> dict | None:
    """The learned evaluation stored for this variant (the record ``simkit learn`` wrote), or None."""
    p = stored_path(spec, rules)
    if not p.is_file():
        return None
    try:
        rec = json.loads(p.read_text())
    except (OSError, ValueError):
        raise UsageError(f"{p}: not a learned evaluation (unreadable JSON); remove it or run simkit learn "
                         f"again") from None
    if rec.get("features") != list(spec.eval_features):
        raise UsageError(f"{p}: learned for features {rec.get('features')}, the game now has "
                         f"{list(spec.eval_features)}; run simkit learn again")
    return rec


def save_learned(spec, rules: dict, record: dict) -> Path:
    p = stored_path(spec, rules)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_suffix(".tmp")
    tmp.write_text(json.dumps(record, indent=1))
    tmp.replace(p)
    return p


def chosen(rules: dict, own: str | None) -> str:
    """A side's choice: its policy's own (``@learned``), else the scenario's ``evaluation``."""
    return own or rules.get(OPTION, "auto")


def describe(record: dict | None) -> str:
    """One line for manifests and reports."""
    if record is None:
        return "default (the rules' hand-set weights)"
    return (f"learned for this variant, {record['games']:,} games, held-out log-loss "
            f"{record['logloss_learned']:.3f} vs {record['logloss_default']:.3f} default")


def evaluation_of(spec, rules: dict, own: str | None = None, candidate: dict | None = None) -> dict | None:
    """The learned record a side plays with, or None for the default weights. ``candidate``: weights not
    stored yet (simkit learn's acceptance match) used in place of the store's."""
    choice = chosen(rules, own)
    if choice == "default" or getattr(spec, "eval_slot", None) is None:
        return None
    rec = candidate if candidate is not None else load_learned(spec, rules)
    if rec is None and choice == "learned":
        raise UsageError(f"no learned evaluation for this {spec.name} variant (looked for {stored_path(spec, rules)}): "
                         f"run `simkit learn {spec.name} --set ...` with the same rules, or use --eval default")
    return rec


def with_evaluations(spec, rules: dict, params, owns=(None, None), candidate: dict | None = None):
    """``params`` with each side's row of the weight table set to its evaluation (``owns``: the sides'
    policy suffixes, None for none); ``params`` itself when both play the default weights."""
    slot = getattr(spec, "eval_slot", None)
    if slot is None:
        return params
    recs = [evaluation_of(spec, rules, own, candidate) for own in owns]
    if all(r is None for r in recs):
        return params
    table = np.array(params[slot], dtype=np.float64, copy=True)
    n = len(spec.eval_features)
    for side, rec in enumerate(recs):
        if rec is not None:
            table[side, :n] = np.asarray(rec["weights"], dtype=np.float64)
    from simkit.policies import with_slot
    return with_slot(params, slot, table)
