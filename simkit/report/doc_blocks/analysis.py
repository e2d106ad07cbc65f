"""Blocks of docs/metrics.md and docs/skill.md."""
from __future__ import annotations

from simkit.report.doc_blocks import block, ci, lines_starting, pct, run_summary, simkit, simkit_json


@block("coverage", "docs/metrics.md", "cheap", "python -m simkit.analysis.coverage")
def _coverage():
    from simkit.analysis.coverage import REPLICATIONS, SEED, table
    return (f"`python -m simkit.analysis.coverage` ({REPLICATIONS:,} replications per case, seed {SEED}; "
            f"nominal 95%):\n\n" + table())


@block("ratings-coverage", "docs/skill.md", "cheap", "python -m simkit.report.doc_numbers ratings-coverage")
def _ratings_coverage():
    from simkit.analysis.ratings import coverage_table
    return coverage_table()


@block("compare-no-discordant", "docs/metrics.md", "cheap",
       "simkit compare martian_chess --set-b max_plies=110 --policy random --precision 0.005 --seed S")
def _compare_no_discordant():
    rows, verdict = [], None
    for seed in (0, 1, 2):
        s = simkit_json(f"compare martian_chess --set-b max_plies=110 --policy random --precision 0.005 "
                        f"--seed {seed}")
        d = s["differences"]["first_player_advantage"]
        rows.append(f"| {seed} | {s['games']:,} | {s['discordant_pairs']} | {ci(d['diff'], *d['ci'])} |")
        if verdict is None and s["discordant_pairs"] == 0:
            verdict = f"the verdict of seed {seed}: \"{s['verdict']}\""
    return ("`simkit compare martian_chess --set-b max_plies=110 --policy random --precision 0.005 --seed S` "
            "(a random game rarely reaches ply 110):\n\n| seed | pairs when it stopped | discordant pairs | "
            "FPA difference [95%] |\n| ---: | ---: | ---: | --- |\n" + "\n".join(rows)
            + (f"\n\nand {verdict}\n" if verdict else "\n"))


# ---- docs/skill.md ----------------------------------------------------------------------------

@block("skill-clock-leader", "docs/skill.md", "cheap",
       "simkit compare martian_chess --set-b clock=leader --games 2000 --skill random,greedy")
def _skill_clock_leader():
    s = simkit_json("compare martian_chess --set-b clock=leader --games 2000 --skill random,greedy")
    length = s["metrics"]["mean_plies"]
    (r, rlo, rhi), (g, glo, ghi) = length["estimates"]
    f = "{:+.1f}"
    return (f"Example, `simkit compare martian_chess --set-b clock=leader --games 2000 --skill random,greedy`: "
            f"`clock=leader` changes random games' mean length by {ci(r, rlo, rhi, f)} plies and greedy "
            f"games' by {ci(g, glo, ghi, f)} (greedy's 0–0 games no longer end at ply 21): mean length is "
            f"\"{length['verdict']}\".\n")



@block("compare-verdicts", "docs/metrics.md", "cheap",
       "simkit compare martian_chess --set-b clock=leader --policy random",
       "simkit compare scenarios/martian_chess/default.toml scenarios/martian_chess/clock_off.toml --policy random")
def _compare_verdicts():
    out = []
    for cmd in ("compare martian_chess --set-b clock=leader --policy random",
                "compare scenarios/martian_chess/default.toml scenarios/martian_chess/clock_off.toml --policy random"):
        s = simkit_json(cmd)
        out.append(f"`simkit {cmd}` ({s['games']:,} pairs, seed 0): \"{s['verdict']}\"")
    return "\n\n".join(out) + "\n"


@block("tolerance-example", "docs/metrics.md", "cheap",
       "simkit run martian_chess --policy random -n 20000 --tolerance T",
       "simkit compare martian_chess --set-b field_promotion=false --policy random -n 20000 --tolerance 0.02")
def _tolerance_example():
    text = ""
    for t in ("0.02", "0.005"):
        cmd = f"run martian_chess --policy random -n 20000 --tolerance {t} --no-save"
        text += f"$ simkit {cmd}\n" + lines_starting(simkit(cmd), "--tolerance")
    cmd = "compare martian_chess --set-b field_promotion=false --policy random -n 20000 --tolerance 0.02 --no-save"
    text += f"$ simkit {cmd}\n" + simkit(cmd)
    return "```\n" + text + "```\n"


@block("skill-degenerate", "docs/skill.md", "cheap", "simkit run martian_chess --policy greedy --games 20000",
       "simkit run warfare --policy random --games 2000")
def _skill_degenerate():
    mc = run_summary("martian_chess", ("greedy", "greedy"), 20000)
    wf = run_summary("warfare", ("random", "random"), 2000)
    from simkit.games import get_game
    capped = sum(v for r, v in wf["end_reason_shares"].items() if r in get_game("warfare").cap_reasons)
    return (f"(Martian Chess greedy: {pct(mc['quiet_share'], 0)} of games without a capture; Warfare! random: "
            f"{pct(wf['draw_rate'], 0)} of games drawn, {pct(capped, 0)} at the turn cap; "
            f"`simkit run martian_chess --games 20000`, `simkit run warfare --policy random --games 2000`).\n")



@block("values-examples", "docs/metrics.md", "cheap", "simkit values martian_chess --games 20000",
       "simkit values skorm --policy random --games 2000")
def _values_examples():
    mc = simkit_json("values martian_chess --games 20000")
    sk = simkit_json("values skorm --policy random --games 2000")
    reg, abl = mc["regression"], mc["ablation"]
    ratios = ", ".join(f"{u} {v['value']:+.1f}" for u, v in reg["units"].items() if v["value"] == v["value"])
    ablate = ", ".join(f"{u} {v['value']:+.4f} [{v['ci'][0]:+.4f}, {v['ci'][1]:+.4f}]" for u, v in abl.items())
    signs = "all negative" if all(v["coef"] < 0 for v in reg["units"].values()) else "mixed signs"
    ended = sk["regression"].get("ended_before_snapshot", 0) / sk["games"]
    return (f"Examples. `simkit values martian_chess --games 20000` (random play, snapshot at ply "
            f"{mc['snapshot_ply']}): regression relative to the pawn {ratios}; ablation {ablate}; the raw "
            f"coefficients are {signs}"
            + (f" — the methods disagree, and the output says so ({len(mc['methods_disagree'])} note"
               f"{'s' if len(mc['methods_disagree']) != 1 else ''})" if mc["methods_disagree"] else "")
            + f". `simkit values skorm --policy random --games 2000`: {pct(ended, 0)} of the games end before "
              f"the snapshot (ply {sk['snapshot_ply']}) and are left out of the regression.\n")
