"""The blocks of docs/long-commands.md: the size guard's refusal of a million-cell sweep (cheap: it
refuses before playing), and every long command stopped by Ctrl-C and resumed (slow: about three
minutes of subprocesses)."""
from __future__ import annotations

import shlex

from simkit.report.doc_blocks import block
from simkit.report.interrupt_check import CASES

GUARD = "sweep martian_chess --vary deadlock_plies=1..1000 --vary clock_plies=1..1000 --games 1000"


@block("long-commands-guard", "docs/long-commands.md", "cheap", f"simkit {GUARD}")
def guard():
    from click.testing import CliRunner
    from simkit.cli import cli
    r = CliRunner().invoke(cli, shlex.split(GUARD), catch_exceptions=False)
    assert r.exit_code == 2, r.output
    return f"```sh\nsimkit {GUARD}\n```\n\n```\n{r.output.strip()}\n```\n(exit {r.exit_code})\n"


@block("long-commands-ctrl-c", "docs/long-commands.md", "slow",
       *[f"simkit {' '.join(map(str, args))}" for args, *_ in CASES.values()])
def ctrl_c_table():
    from simkit.report.interrupt_check import results_table
    return results_table()
