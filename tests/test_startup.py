"""Start-up: `simkit --help` answers without importing numba (issue 13: instant start)."""
import subprocess
import sys


def test_help_does_not_import_numba_or_pandas():
    code = ("import sys\n"
            "from click.testing import CliRunner\n"
            "from simkit.cli import cli\n"
            "r = CliRunner().invoke(cli, ['--help'])\n"
            "assert r.exit_code == 0 and 'simkit run' in r.output, r.output\n"
            "print(','.join(m for m in ('numba', 'pandas', 'statsmodels', 'matplotlib') if m in sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "", f"imported at --help: {out.strip()}"
