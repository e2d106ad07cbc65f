"""The `simkit` command line. Commands only parse arguments and call the library."""
from __future__ import annotations

import atexit
import gc

import click

from simkit.errors import SimkitError


class SimkitGroup(click.Group):
    """Turns every user error (SimkitError) into one line on stderr and exit code 2."""

    def invoke(self, ctx):
        from simkit import progress
        from simkit.cli.compiling import CompileNotice
        notice = CompileNotice()     # "compiling ... kernels" before a cold cache's first game
        progress.listen(notice)
        try:
            return super().invoke(ctx)
        except SimkitError as e:
            # one line, whatever the message quotes (control characters from a fuzzed file are escaped)
            msg = "".join(c if c.isprintable() else repr(c)[1:-1] for c in str(e))
            click.echo(f"error: {msg}", err=True)
            ctx.exit(e.exit_code)
        finally:
            progress.unlisten(notice)


@click.group(cls=SimkitGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="simkit")
def cli():
    """Balance simulator for tabletop strategy games.

    \b
    Quick start:
      simkit games                              # what can be played
      simkit rules martian_chess                # every rule option of a game
      simkit run martian_chess --games 100000   # a balance run
      simkit play martian_chess --seed 3        # watch one game
    """


def main():
    # At exit CPython collects every object it tracks, then tears down each module: after a run, with
    # numba, pandas and pyarrow loaded, 0.36 s of a 1,000,000-game run's 2.72 s (docs/speed.md,
    # "Exit"). The objects go with the process; frozen, the last collections skip them. atexit
    # handlers, weakref finalizers and the flush of stdout and stderr still run as on any exit.
    atexit.register(gc.freeze)
    cli(prog_name="simkit")


from simkit.cli import commands  # noqa: E402,F401
from simkit.cli import report_commands  # noqa: E402,F401
from simkit.cli import analysis_commands  # noqa: E402,F401
from simkit.cli import skill_commands  # noqa: E402,F401
from simkit.cli import luck_commands  # noqa: E402,F401
from simkit.cli import learn_commands  # noqa: E402,F401
